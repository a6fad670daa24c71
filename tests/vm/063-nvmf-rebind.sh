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
# Nothing is left to commit when the namespace goes, and no I/O reaches it
# while it is gone: the suspend of the reload commits what is dirty (heat
# from any read, too), and a commit flushes every tier today, the dead one
# included, which moves the metadata to ro (until commits flush only the
# tiers they wrote: issue 15's per-tier flush).
. "$(dirname "$0")/lib.sh"
DEV=rb
D=/dev/mapper/$DEV

sum_all() { dd if=$D bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
table_tier1() { dmsetup table $DEV | awk '{ print $7 }'; }
# The NVMe namespaces that are not the bench's local drives.
fabric_ns() {
	local b d
	for b in /sys/block/nvme*n*; do
		[ -e "$b" ] || continue
		d=/dev/$(basename "$b")
		[ "$d" = "$(readlink -f "$DMT_NVME0")" ] || [ "$d" = "$(readlink -f "$DMT_NVME1")" ] || echo "$d"
	done
}
devt_of() { local n; n=$(basename "$(readlink -f "$1")"); cat "/sys/class/block/$n/dev"; }

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
	dd if=/dev/urandom of=$D bs=1M count=24 oflag=direct status=none
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
	dmesg | grep -q "tier 1 re-bound from .* by its label" || fail "the kernel did not log the re-bind"
	expect_eq "$(sum_all)" "$sum" "checksum after the re-bind"
	tier_sane $DEV "after the re-bind"
	# Writes to tier 1 extents and a commit.
	dd if=/dev/urandom of=$D bs=1M count=4 seek=2 oflag=direct conv=notrunc status=none
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
	tierctl remove $DEV >/dev/null
	no_kernel_warning "re-bind"
	echo "NVMe-oF re-bind: the namespace under a new name is tier 1 again, nothing copied, data intact"
}
jget_s() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d$2)" "$1"; }
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 64M --nvmf 256M -- "$0" main
