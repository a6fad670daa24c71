#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh disable=SC2016  # conditions are evaluated later
# An NVMe-oF tier loses its path and gets it back, with tierd watching.
# The bench's in-guest nvmet target (tools/vm-run --nvmf) is tier 1 through
# an nvmf:// URI, created with --fast-io-fail-tmo 2 (I/O fails 2 s into an
# outage instead of waiting for ctrl_loss_tmo; the default is 5 s).
#   tierd    data on tier 1; the target's port closes: a read fails, the
#            tier turns degraded (an I/O error) or offline (a path error,
#            BLK_STS_TRANSPORT without native multipath) and tier-error is
#            sent; tierd retries the
#            reconnection with backoff while the controller is not live;
#            the port comes back: the controller reconnects, tierd sends
#            tier-recover, tier-recovered arrives, the tier is ok and the
#            data reads back intact; the metadata stays read-write
#   renumber tierd reconnecting tier 1 during an outage, add-tier
#            --position 1 inserts a local drive: the NVMe-oF tier is tier 2
#            now and the healthy drive tier 1. tierd follows its tier by
#            device ("is tier 2 now"), recovers tier 2 once the port is
#            back and never sends tier-recover to the drive at the old
#            index (it did: the probe of the healthy tier succeeded, tierd
#            logged "recovered" and stopped, tier 2 stayed offline);
#            remove-tier 1 then restores the list (run twice when the first
#            only completes the label hints add-tier could not write to
#            the unreachable tier)
#   manual   without tierd, the same outage; `tierctl recover NAME TIER`
#            probes the tier with a flush and clears its state once the
#            path is back
. "$(dirname "$0")/lib.sh"
DEV=rr
D=/dev/mapper/$DEV
CFS=/sys/kernel/config/nvmet
CONF=/tmp/tierd-conf
LOG=/tmp/tierd.log

show_log() { echo "---- tierd log ----"; cat $LOG; echo "---- tierctl watch ----"; cat /tmp/watch.out; echo "----"; }
die() { show_log; fail "$*"; }

port_off() { rm "$CFS/ports/1/subsystems/$DMT_NVMF_NQN"; }
port_on() { ln -s "$CFS/subsystems/$DMT_NVMF_NQN" "$CFS/ports/1/subsystems/$DMT_NVMF_NQN"; }

tier_state() { tierctl status $DEV --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["tiers"]['"$1"']["state"])'; }
tier1_state() { tier_state 1; }
tier1_failed() { case $(tier1_state) in degraded | offline) return 0 ;; esac; return 1; }
ctrl_state() { cat "/sys/class/nvme/$CTRL/state"; }
# A direct read of the whole device (every extent is on tier 1).
read_all() { dd if=$D of=/dev/null bs=1M iflag=direct status=none 2>/dev/null; }
sum_all() { dev_sum $D; }

# Close the port; wait for a read to fail (the fast_io_fail_tmo), so that
# the tier is degraded or offline.
outage() { # where
	port_off
	wait_for 30 '[ "$(ctrl_state)" != live ]' || die "$1: controller $CTRL still live after the port closed"
	wait_for 30 '! read_all' || die "$1: reads still succeed 30 s into the outage"
	wait_for 10 'tier1_failed' || die "$1: tier 1 is $(tier1_state) after failed reads"
	echo "$1: port closed, controller $(ctrl_state), reads fail, tier 1 $(tier1_state)"
}

guest_main() {
	local uri="nvmf://tcp/127.0.0.1:4420/$DMT_NVMF_NQN" sum dev1 pid_watch pid_tierd c rc
	command -v nvme >/dev/null || skip "nvme-cli is not installed"
	[ -n "${DMT_NVMF_NQN:-}" ] || fail "the bench exported no NVMe-oF subsystem"
	nvme disconnect-all >/dev/null
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$uri" --extent-size 1M \
		--ctrl-loss-tmo 600 --reconnect-delay 1 --fast-io-fail-tmo 2 --force >/dev/null
	dev1=$(jfield $DEV '["tiers"][1]["device"]')
	CTRL=$(basename "$(readlink -f "/sys/block/${dev1#/dev/}/device")")
	# A native multipath head's device is the subsystem: take its path.
	if [[ $CTRL == nvme-subsys* ]]; then
		for c in "/sys/block/${dev1#/dev/}"/device/nvme[0-9]*; do CTRL=$(basename "$c"); break; done
	fi
	[ -e "/sys/class/nvme/$CTRL/state" ] || fail "no controller state for $dev1 ($CTRL)"
	[ -e "/sys/class/nvme/$CTRL/fast_io_fail_tmo" ] || skip "the kernel has no fast_io_fail_tmo for $CTRL"
	expect_eq "$(cat "/sys/class/nvme/$CTRL/fast_io_fail_tmo")" 2 "fast_io_fail_tmo of $CTRL (--fast-io-fail-tmo 2)"
	echo "tier 1 is $dev1 on controller $CTRL ($(ctrl_state))"

	tier_set $DEV auto_migrate 0
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M count=24 oflag=direct status=none
	sum=$(sum_all)
	dmsetup message $DEV 0 migrate 0 "$(blockdev --getsz $D)" 1
	tier_wait $DEV 120 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped0 = 0 ]' ||
		fail "migrate to tier 1 not done: $(tier_summary $DEV)"

	# ---- tierd
	mkdir -p $CONF
	echo "[global]" >$CONF/tierd.conf
	tierd --foreground --config-dir $CONF --log-level debug >$LOG 2>&1 &
	pid_tierd=$!
	wait_for 10 "grep -q 'netlink: connected' $LOG" || die "tierd did not connect"
	tierctl watch $DEV --json --count 2 --timeout 240 >/tmp/watch.out 2>/tmp/watch.err &
	pid_watch=$!
	wait_for 10 'grep -q watching /tmp/watch.err' || die "tierctl watch did not subscribe"

	outage tierd
	wait_for 20 "grep -q '$DEV: tier 1 .*NVMe-oF: reconnecting' $LOG" || die "tierd did not start reconnecting"
	wait_for 20 "grep -q 'not live yet' $LOG" || die "tierd did not wait for the controller to be live"
	tier1_failed || die "tier 1 recovered while its controller was $(ctrl_state)"
	port_on
	wait_for 30 '[ "$(ctrl_state)" = live ]' || die "controller $CTRL did not reconnect (state $(ctrl_state))"
	# tierd's backoff: 2, 4, 8, 16 s.
	wait_for 60 '[ "$(tier1_state)" = ok ]' || die "tierd did not recover tier 1"
	grep -q "$DEV: tier 1 reconnected and recovered" $LOG || die "the recovery was not logged"
	wait $pid_watch || die "tierctl watch did not get tier-error and tier-recovered"
	python3 - /tmp/watch.out <<-'EOF' || die "wrong events from tierctl watch"
		import json, sys
		ev = [json.loads(l) for l in open(sys.argv[1])]
		assert [e["event"] for e in ev] == ["tier-error", "tier-recovered"], ev
		assert all(e["event_tier"] == 1 for e in ev), ev
	EOF
	expect_eq "$(sum_all)" "$sum" "checksum after the recovery"
	tier_sane $DEV "after the recovery"
	echo "tierd: degraded, waited for the live controller, recovered; data intact"

	# ---- renumber
	from=$(wc -l <$LOG)
	since() { tail -n +$((from + 1)) $LOG; }
	outage renumber
	wait_for 20 "since | grep -q '$DEV: tier 1 .*NVMe-oF: reconnecting'" || die "renumber: tierd did not start reconnecting"
	# The kernel checks only the inserted drive's label; the hints of the
	# unreachable tier's label may fail (a warning).
	tierctl add-tier $DEV "$DMT_NVME1" --position 1 --class nvme >/tmp/add.out 2>&1 ||
		{ cat /tmp/add.out; die "renumber: add-tier --position 1 failed"; }
	expect_eq "$(jfield $DEV '["tiers"][2]["device"]')" "$dev1" "renumber: the NVMe-oF tier after add-tier --position 1"
	expect_eq "$(tier_state 1)" ok "renumber: the inserted drive"
	tier_failed2() { case $(tier_state 2) in degraded | offline) return 0 ;; esac; return 1; }
	tier_failed2 || die "renumber: tier 2 is $(tier_state 2) before the port is back"
	# The next attempt reads the tier list (backoff: up to 32 s apart).
	wait_for 70 "since | grep -q '$DEV: tier 1 (${dev1#/dev/}) is tier 2 now'" || die "renumber: tierd did not follow the tier to index 2"
	port_on
	wait_for 30 '[ "$(ctrl_state)" = live ]' || die "renumber: controller $CTRL did not reconnect (state $(ctrl_state))"
	wait_for 90 '[ "$(tier_state 2)" = ok ]' || die "renumber: tierd did not recover tier 2 (it is $(tier_state 2))"
	since | grep -q "$DEV: tier 2 reconnected and recovered" || die "renumber: the recovery of tier 2 was not logged"
	! since | grep -q "$DEV: tier 1 reconnected and recovered" || die "renumber: tierd sent tier-recover to tier 1 (the healthy drive at the old index)"
	expect_eq "$(sum_all)" "$sum" "checksum after the recovery of the renumbered tier"
	# add-tier could not rewrite the unreachable tier's label hints: the
	# first remove-tier completes them and removes nothing (it says so).
	tierctl remove-tier $DEV 1 >/tmp/rm.out 2>&1 || { cat /tmp/rm.out; die "renumber: remove-tier 1 failed"; }
	if grep -q "Nothing is removed now" /tmp/rm.out; then
		cat /tmp/rm.out
		tierctl remove-tier $DEV 1 >/dev/null || die "renumber: remove-tier 1 (again) failed"
	fi
	expect_eq "$(jfield $DEV '["tiers"][1]["device"]')" "$dev1" "renumber: the NVMe-oF tier after remove-tier 1"
	tier_sane $DEV "after the renumbered recovery"
	echo "renumber: tierd followed the NVMe-oF tier from index 1 to 2 and recovered it there"
	kill $pid_tierd
	wait $pid_tierd || die "tierd exited with status $? on SIGTERM"

	# ---- manual
	outage manual
	port_on
	wait_for 30 '[ "$(ctrl_state)" = live ]' || fail "controller $CTRL did not reconnect"
	tier1_failed || fail "tier 1 is $(tier1_state) before tierctl recover"
	tierctl recover $DEV 1 | tee /tmp/recover.out
	grep -Eq "was (degraded|offline), now ok" /tmp/recover.out || fail "tierctl recover did not say what it did"
	expect_eq "$(tier1_state)" ok "tier 1 after tierctl recover"
	expect_eq "$(tierctl recover $DEV 1 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["previous_state"])')" ok "previous_state of a second recover"
	rc=0
	tierctl recover $DEV 5 >/tmp/out 2>&1 || rc=$?
	expect_eq "$rc" 2 "exit status of recover with a tier that does not exist"
	grep -q "tiers 0 to 1, not 5" /tmp/out || { cat /tmp/out; fail "recover of tier 5: unclear error"; }
	expect_eq "$(sum_all)" "$sum" "checksum after tierctl recover"
	tier_sane $DEV "after tierctl recover"
	tierctl remove $DEV
	echo "NVMe-oF path loss: degraded or offline on the outage, recovered by tierd and by tierctl recover, nothing lost"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 64M --nvmf 256M -- "$0" main
