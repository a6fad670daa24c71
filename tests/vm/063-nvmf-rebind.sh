#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh disable=SC2016,SC2034  # tier_wait conditions are evaluated later (and use c0)
# An NVMe-oF tier comes back under a new /dev name, and is re-bound by its
# label. The bench's in-guest nvmet target is tier 1 (nvmf:// URI); the data
# is moved there. Its controller is deleted (nvme disconnect: what the
# kernel does when ctrl_loss_tmo runs out) while dm-tier still holds the
# namespace, so the reconnected namespace gets another name and device
# number.
#   rebind    `tierctl recover` finds the device carrying tier 1's label and
#             reloads the table with it: `dmsetup table` names the new
#             device, status shows it, the data reads back intact, writes
#             and a commit work, metadata stays rw; a second recover does
#             nothing
#   refuse    a reload naming, for tier 1, a device without its label is
#             refused by the kernel ("does not carry this tier's label")
#   again     remove, activate (by label): the new device is tier 1
#   tierd     twice, tierd started before the outage (it acts on the
#             tier-error event) and after the error (it finds tier 1
#             failed when it starts): the controller is deleted again and
#             a read of tier-1 data fails (tier-error). tierd alone, without
#             tierctl:
#             connects the recorded target (libnvme), which makes a new
#             controller, so the namespace comes back under yet another
#             name (the old one is still held by the table), re-binds tier
#             1 by its label (a table reload with the new device) and sends
#             tier-recover: `dmsetup table` names the new device, tier 1
#             ok, metadata rw, the data intact, no extent moved (mapped
#             counts per tier and migration counters unchanged), tierd's
#             log says what it did, events tier-error ... tier-recovered
# Commits flush only the tiers written since their last flush (issue 15), so
# the suspend of a reload, which commits what is dirty (heat from a read,
# too), does not touch the dead namespace.
. "$(dirname "$0")/lib.sh"
DEV=rb
D=/dev/mapper/$DEV

sum_all() { dev_sum $D; }
table_tier1() { dmsetup table $DEV | awk '{ print $7 }'; }
# The NVMe namespaces of the bench's NVMe-oF subsystem (not the local drives,
# nor the one nvmet exports): their controller's or multipath subsystem's NQN;
# a multipath head's hidden paths (nvme3c4n1) left out.
fabric_ns() {
	local b
	for b in /sys/block/nvme*n*; do
		[[ $(basename "$b") =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
		[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" != "$DMT_NVMF_NQN" ] || echo "/dev/$(basename "$b")"
	done
}
devt_of() { local n; n=$(basename "$(readlink -f "$1")"); cat "/sys/class/block/$n/dev"; }

# ---- tierd: tierd alone re-binds the namespace that came back renamed
CONF=/tmp/tierd-conf
TLOG=/tmp/tierd.log
show_tierd() { echo "---- tierd log ----"; cat $TLOG; echo "---- events ----"; cat /tmp/watch.out; echo "----"; }
die() { show_tierd; fail "$*"; }
t1_state() { jfield $DEV '["tiers"][1]["state"]'; }
# The counters that say whether anything moved.
moved_counters() { (tier_eval $DEV; echo "mapped0=$mapped0 mapped1=$mapped1 used0=$used0 used1=$used1 promotions=$promotions demotions=$demotions moved_bytes=$moved_bytes migration_errors=$migration_errors manual_pending=$manual_pending"); }

# One round: the controller is deleted while the table holds the namespace,
# a read of tier 1 fails (tier-error), and tierd alone brings tier 1 back
# under the namespace's new name. WHEN tierd starts: "running" before the
# outage (it acts on the tier-error event), "late" after the error (it finds
# tier 1 failed when it lists the devices at start).
tierd_round() { # when
	local when=$1 old_devt new_dev new_devt before pid_tierd pid_watch k0 why
	tier_set $DEV auto_migrate 0
	sum=$(sum_all)
	# Nothing dirty when the namespace goes (see the header; the suspend of
	# the reload would commit it anyway).
	tier_msg $DEV commit || fail "tierd $when: commit before the outage"
	old_devt=$(table_tier1)
	before=$(moved_counters)
	echo "tierd $when: tier 1 is $old_devt; $before"
	mkdir -p $CONF
	echo "[global]" >$CONF/tierd.conf
	: >$TLOG
	start_tierd() {
		tierd --foreground --config-dir $CONF --log-level debug >$TLOG 2>&1 &
		pid_tierd=$!
		wait_for 10 "grep -q 'netlink: connected' $TLOG" || die "tierd $when: tierd did not connect"
	}
	[ "$when" = late ] || start_tierd
	tierctl watch $DEV --json >/tmp/watch.out 2>/tmp/watch.err &
	pid_watch=$!
	wait_for 10 'grep -q watching /tmp/watch.err' || die "tierctl watch did not subscribe"
	k0=$(dmesg | wc -l)

	# The controller is deleted (as when ctrl_loss_tmo runs out); the table
	# still holds the namespace, so its name stays taken.
	nvme disconnect -n "$DMT_NVMF_NQN" >/dev/null
	udevadm settle
	[ ! -e "/sys/dev/block/$old_devt" ] || fail "tierd $when: $old_devt still in sysfs after the disconnect"
	[ -z "$(fabric_ns)" ] || fail "tierd $when: a fabric namespace is left after the disconnect: $(fabric_ns)"
	# A read of tier-1 data fails: tier-error; the rest is tierd's.
	! dd if=$D of=/dev/null bs=1M count=24 iflag=direct status=none 2>/dev/null ||
		fail "tierd $when: a read of tier 1 succeeded with its namespace gone"
	wait_for 10 'grep -q tier-error /tmp/watch.out' || die "tierd $when: no tier-error after a failed read"
	if [ "$when" = late ]; then
		why="found (degraded|offline)"
		expect_eq "$(t1_state | grep -Ec '^(degraded|offline)$')" 1 "tierd late: tier 1 failed before tierd starts"
		start_tierd
	else
		why="tier-error"
	fi
	wait_for 120 '[ "$(t1_state)" = ok ]' || die "tierd $when: tier 1 not back ($(t1_state), table $(table_tier1))"
	new_devt=$(table_tier1)
	new_dev=$(jfield $DEV '["tiers"][1]["device"]')
	echo "tierd $when: tier 1 is $new_dev ($new_devt) now"
	[ "$new_devt" != "$old_devt" ] || die "tierd $when: the table still names $old_devt"
	expect_eq "$(devt_of "$new_dev")" "$new_devt" "tierd $when: the device status names is the table's"
	expect_eq "$(fabric_ns)" "$new_dev" "tierd $when: the reconnected namespace is tier 1"
	grep -Eq "$DEV: tier 1 \(.*\) is NVMe-oF: reconnecting \($why; retrying for up to 900 s\)" $TLOG ||
		die "tierd $when: tierd did not log that it reconnects tier 1 ($why)"
	grep -q "$DEV: tier 1 re-bound by its label from .* to $new_dev (nothing copied)" $TLOG ||
		die "tierd $when: tierd did not log the re-bind to $new_dev"
	grep -q "$DEV: tier 1 reconnected and recovered (attempt [0-9]*)" $TLOG || die "tierd $when: tierd did not log the recovery"
	grep "$DEV: tier 1" $TLOG
	expect_eq "$(dmesg | tail -n +$((k0 + 1)) | grep -c "tier 1 re-bound from .* to $new_devt (${new_dev#/dev/}) by its label")" 1 \
		"tierd $when: kernel log lines of the re-bind to $new_dev"
	# Nothing moved: the same extents on each tier, no migration.
	expect_eq "$(moved_counters)" "$before" "tierd $when: mapped counts and migration counters after the re-bind"
	expect_eq "$(sum_all)" "$sum" "tierd $when: checksum after the re-bind"
	tier_sane $DEV "tierd $when: after the re-bind"
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M count=2 seek=8 oflag=direct conv=notrunc status=none ||
		fail "tierd $when: writes after the re-bind"
	tier_msg $DEV commit || fail "tierd $when: commit after the re-bind"
	tier_sane $DEV "tierd $when: after writing"
	wait_for 10 'grep -q tier-recovered /tmp/watch.out' || true
	kill $pid_watch
	outage_events_ok /tmp/watch.out || die "tierd $when: wrong events"
	kill $pid_tierd
	wait $pid_tierd || die "tierd $when: tierd exited with status $? on SIGTERM"
	echo "tierd $when: re-bound $old_devt -> $new_devt ($new_dev) by itself, nothing moved, data intact"
}

guest_main() {
	local uri="nvmf://tcp/127.0.0.1:4420/$DMT_NVMF_NQN" sum dev1 old_devt new_dev new_devt out rc c0
	command -v nvme >/dev/null || skip "nvme-cli is not installed"
	[ -n "${DMT_NVMF_NQN:-}" ] || fail "the bench exported no NVMe-oF subsystem"
	nvme disconnect-all >/dev/null
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$uri" --extent-size 1M --force >/dev/null
	dev1=$(jfield $DEV '["tiers"][1]["device"]')
	old_devt=$(table_tier1)
	expect_eq "$(devt_of "$dev1")" "$old_devt" "tier 1 in the table"
	tier_set $DEV auto_migrate 0
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M count=24 oflag=direct status=none
	dmsetup message $DEV 0 migrate 0 "$(blockdev --getsz $D)" 1
	tier_wait $DEV 120 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped0 = 0 ]' ||
		fail "migrate to tier 1 not done: $(tier_summary $DEV)"
	sum=$(sum_all)
	# Nothing may be left to commit when the namespace goes (see the
	# header): udev's probe after a resume reads the device too, so wait
	# for the periodic commit that writes its heat (at most every 30 s).
	dmsetup suspend $DEV && dmsetup resume $DEV
	udevadm settle
	c0=$(tier_stat $DEV commits)
	tier_wait $DEV 40 '[ $commits -gt $c0 ]' || echo "no heat commit within 40 s (nothing was dirty)"
	echo "tier 1 is $dev1 ($old_devt): $(tier_summary $DEV)"

	# ---- the namespace goes away and comes back under another name
	nvme disconnect -n "$DMT_NVMF_NQN" >/dev/null
	udevadm settle
	[ ! -e "/sys/dev/block/$old_devt" ] || fail "$old_devt still in sysfs after the disconnect"
	expect_eq "$(table_tier1)" "$old_devt" "the table after the disconnect"
	nvme connect -t tcp -a 127.0.0.1 -s 4420 -n "$DMT_NVMF_NQN" >/dev/null
	udevadm settle
	wait_for 10 '[ -n "$(fabric_ns)" ]' || fail "no namespace after reconnecting"
	echo "reconnected; the table still names $old_devt"

	# ---- rebind
	out=$(tierctl recover $DEV 1 --json) || fail "tierctl recover: $out"
	echo "recover: $out"
	expect_eq "$(jget_s "$out" '["rebound"]')" True "rebound"
	new_dev=$(jget_s "$out" '["device"]')
	new_devt=$(devt_of "$new_dev")
	[ "$new_devt" != "$old_devt" ] || fail "the namespace came back as $old_devt"
	expect_eq "$(table_tier1)" "$new_devt" "tier 1 in the table after the re-bind"
	expect_eq "$(jfield $DEV '["tiers"][1]["device"]')" "$new_dev" "tier 1 in status"
	expect_eq "$(jfield $DEV '["tiers"][1]["state"]')" ok "tier 1 state"
	klog_has "tier 1 re-bound from .* by its label" || fail "the kernel did not log the re-bind"
	expect_eq "$(sum_all)" "$sum" "checksum after the re-bind"
	tier_sane $DEV "after the re-bind"
	# Writes to tier 1 extents and a commit.
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M count=4 seek=2 oflag=direct conv=notrunc status=none
	dmsetup message $DEV 0 commit || fail "commit after the re-bind"
	sum=$(sum_all)
	tier_sane $DEV "after writing"
	out=$(tierctl recover $DEV 1 --json)
	expect_eq "$(jget_s "$out" '["rebound"]')" False "rebound on a second recover"
	echo "rebind: $old_devt -> $new_devt ($new_dev), data intact, writes and commits work"

	# ---- refuse: tier 1 must carry its label
	rc=0
	dmsetup reload $DEV --table "$(dmsetup table $DEV | awk -v d="$(devt_of "$DMT_NVME1")" '{ $7 = d; print }')" 2>/tmp/err || rc=$?
	[ "$rc" != 0 ] || { dmsetup clear $DEV; fail "a table with a foreign tier 1 was loaded"; }
	dmesg | tail -5 | grep -q "is not tier 1 of" || { dmesg | tail -5; fail "the refusal was not logged"; }
	expect_eq "$(table_tier1)" "$new_devt" "the live table after the refused reload"
	echo "refuse: a device without tier 1's label is refused"

	# ---- again: activation by label uses the new device
	tierctl remove $DEV >/dev/null
	tierctl activate $DEV >/dev/null || fail "activate after the re-bind"
	expect_eq "$(table_tier1)" "$new_devt" "tier 1 after activate"
	expect_eq "$(sum_all)" "$sum" "checksum after activate"
	tier_sane $DEV "after activate"
	echo "again: activate by label uses $new_dev"

	tierd_round running
	tierd_round late
	tierctl remove $DEV >/dev/null
	no_kernel_warning "re-bind"
	echo "NVMe-oF re-bind: the namespace under a new name is tier 1 again, nothing copied, data intact"
}
jget_s() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d$2)" "$1"; }
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 64M --nvmf 256M -- "$0" main
