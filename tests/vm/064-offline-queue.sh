#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh disable=SC2016
# dmt: debug-kernel
# offline_queue_s and migration around an offline tier (issue 15). Three
# tiers on dm-linear shims, 1 MiB extents: vexts 0-7 on tier 0, 8-11 on
# tier 1, 12-15 on tier 2. Tier 2 is taken offline (dm-flakey, down; reads
# until errors in a row make it offline).
#   migrate   a move between the healthy tiers (0 -> 1) completes; a move
#             to the offline tier waits and completes after the recovery
#   fast      offline_queue_s 0: a partial write to a tier-2 extent fails
#             with EIO at once
#   queue     offline_queue_s 120 (tierctl policy): the same write waits,
#             counted in the status, then succeeds once tier 2 is
#             recovered; the extent reads back with the new 4 KiB
#   expire    offline_queue_s 3 (message), no recovery: EIO after about 3 s
#   suspend   offline_queue_s 600: a noflush suspend hands the parked write
#             back to dm (it waits again after the resume); a plain
#             suspend (dmsetup remove --force) fails it with EIO; the
#             destructor runs; nothing hangs, no kernel warning
# The old code fails "migrate" (nothing moves while a tier is offline) and
# "queue" (no offline_queue_s key).
. "$(dirname "$0")/lib.sh"
DEV=oq64
D=/dev/mapper/$DEV

ext_sum() { dev_sum $D 1 "$1"; }
# <offline_queued> <offline_expired>: the status line's fields before the
# last one (<evacuating>, docs/ARCHITECTURE.md "The status line").
offq() { dmsetup status $DEV | awk '{ print $(NF - 2), $(NF - 1) }'; }
shim_load() { # shim table-text
	dmsetup suspend --noflush --nolockfs "$1"
	dmsetup load "$1" <<<"$2"
	dmsetup resume "$1"
}
linear2() { echo "0 $(blockdev --getsz "$DMT_NVME2") linear $DMT_NVME2 0"; }
# Tier 2 down, then reads of its extents until it is offline.
tier2_offline() { # what
	local i
	shim_load te2 "0 $(blockdev --getsz "$DMT_NVME2") flakey $DMT_NVME2 0 0 3600"
	for i in $(seq 1 40); do
		bounded 20 "$1: read" dd if=$D of=/dev/null bs=1M skip=$((12 + i % 4)) count=1 iflag=direct status=none 2>/dev/null &&
			fail "$1: a read of tier 2 succeeded while it was down"
		[ "$(tier_stat $DEV state 2)" = offline ] && return 0
	done
	fail "$1: tier 2 is $(tier_stat $DEV state 2) after 40 failed reads"
}
# A 4 KiB write of /tmp/blk at 8 KiB into vext V: the arguments of dd.
W=(if=/tmp/blk "of=$D" bs=4k count=1 oflag=direct status=none)
at() { echo "seek=$(($1 * 256 + 2))"; }

guest_main() {
	local i sums=() t0 el pid rc
	for i in 0 1 2; do
		eval "dmsetup create te$i --table \"0 \$(blockdev --getsz \$DMT_NVME$i) linear \$DMT_NVME$i 0\""
	done
	tierctl create $DEV --tier /dev/mapper/te0 --tier /dev/mapper/te1 --tier /dev/mapper/te2 \
		--extent-size 1M --force >/dev/null
	tier_set $DEV auto_migrate 0
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M count=16 oflag=direct conv=fsync status=none
	tier_msg $DEV migrate $((8 * 2048)) $((4 * 2048)) 1 || fail "migrate to 1"
	tier_wait $DEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped1 = 4 ]' ||
		fail "migrate to 1 not done: $(tier_summary $DEV)"
	tier_msg $DEV migrate $((12 * 2048)) $((4 * 2048)) 2 || fail "migrate to 2"
	tier_wait $DEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped2 = 4 ]' ||
		fail "migrate to 2 not done: $(tier_summary $DEV)"
	tier_msg $DEV commit || fail "commit"
	for i in $(seq 0 15); do sums[i]=$(ext_sum $i); done
	dd if=$D of=/tmp/want13 bs=1M skip=13 count=1 iflag=direct status=none
	expect_eq "$(offq)" "0 0" "nothing queued at first"

	# ---- settings: table, message, netlink, bounds
	expect_eq "$(status_of tier_msg $DEV set offline_queue_s 601)" 22 "set offline_queue_s 601"
	klog_has "offline_queue_s must be from 0 to 600 seconds" || fail "set 601: no message saying the bound"
	! tierctl policy $DEV offline_queue_s=601 >/tmp/p.out 2>&1 || fail "tierctl policy accepted 601"
	grep -q "0 to 600" /tmp/p.out || { cat /tmp/p.out; fail "tierctl policy 601: no bound in the error"; }
	expect_eq "$(tierctl policy $DEV offline_queue_s)" "offline_queue_s=0" "default offline_queue_s"

	tier2_offline "offline"
	echo "tier 2 offline"

	# ---- migrate: healthy tiers move, the offline one waits
	tier_msg $DEV migrate 0 $((4 * 2048)) 1 || fail "migrate 0-3 to 1"
	tier_wait $DEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped1 = 8 ]' ||
		fail "migrate: a move between healthy tiers did not complete with tier 2 offline: $(tier_summary $DEV)"
	for i in 0 1 2 3; do expect_eq "$(ext_sum $i)" "${sums[i]}" "migrate: vext $i on tier 1"; done
	tier_msg $DEV migrate $((4 * 2048)) $((2 * 2048)) 2 || fail "migrate 4-5 to 2"
	sleep 3
	expect_eq "$(tier_stat $DEV mapped 2)" 4 "migrate: nothing moved to offline tier 2"
	expect_eq "$(tier_stat $DEV manual_pending)" 2 "migrate: the move to tier 2 waits"
	echo "migrate: 0 -> 1 done with tier 2 offline, 0 -> 2 waits"

	# ---- fast: default 0, EIO at once
	dd if=<(rand_bytes) iflag=fullblock of=/tmp/blk bs=4k count=1 status=none
	t0=$(now_ms)
	! bounded 10 "fast: partial write" dd "${W[@]}" "$(at 12)" 2>/dev/null || fail "fast: a partial write to offline tier 2 succeeded"
	el=$(($(now_ms) - t0))
	[ $el -lt 3000 ] || fail "fast: EIO took $el ms"
	echo "fast: EIO after $el ms"

	# ---- queue: 120 s, recovered meanwhile (the checks and the recovery
	# below take 12-15 s, and more on a loaded host: 20 s left no margin)
	expect_eq "$(tierctl policy $DEV offline_queue_s=120)" "offline_queue_s=120" "queue: tierctl policy"
	dmsetup table $DEV | grep -q "offline_queue_s 120" || fail "queue: not in the table line: $(dmsetup table $DEV)"
	t0=$(now_ms)
	dd "${W[@]}" "$(at 13)" 2>/tmp/q.err &
	pid=$!
	wait_for 10 '[ "$(offq)" = "1 0" ]' || fail "queue: the write is not queued: $(offq)"
	# tierctl status shows the parked write (netlink), text and JSON.
	tierctl status $DEV | grep -q "offline queue: 1 writes waiting for an offline tier, 0 failed" ||
		fail "queue: tierctl status does not show the parked write: $(tierctl status $DEV)"
	tierctl status --json $DEV | grep -q '"offline_queued":1,"offline_expired":0' ||
		fail "queue: tierctl status --json: $(tierctl status --json $DEV)"
	sleep 2
	kill -0 $pid 2>/dev/null || fail "queue: the write ended while tier 2 was offline: $(cat /tmp/q.err)"
	shim_load te2 "$(linear2)"
	bounded 30 "queue: recover" tierctl recover $DEV 2 >/dev/null
	wait_bounded 20 "queue: the parked write" $pid || fail "queue: the write failed after recovery: $(cat /tmp/q.err)"
	el=$(($(now_ms) - t0))
	expect_eq "$(offq)" "0 0" "queue: after recovery"
	# The extent as it was, with the 4 KiB at 8 KiB replaced.
	dd if=/tmp/blk of=/tmp/want13 bs=4k seek=2 count=1 conv=notrunc status=none
	expect_eq "$(ext_sum 13)" "$(dev_sum /tmp/want13)" "queue: vext 13 with the parked write"
	echo "queue: the write waited and completed after recovery ($(fmt_ms $el) s)"
	# The paused move to tier 2 goes on now.
	tier_wait $DEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped2 = 6 ]' ||
		fail "migrate: the move to tier 2 did not resume after recovery: $(tier_summary $DEV)"
	for i in 4 5; do expect_eq "$(ext_sum $i)" "${sums[i]}" "migrate: vext $i on tier 2"; done
	for i in 12 14 15; do expect_eq "$(ext_sum $i)" "${sums[i]}" "after recovery: vext $i"; done

	# ---- expire: 3 s, no recovery
	tier2_offline "expire"
	tier_set $DEV offline_queue_s 3
	t0=$(now_ms)
	! bounded 30 "expire: partial write" dd "${W[@]}" "$(at 14)" 2>/dev/null || fail "expire: the write succeeded with tier 2 offline"
	el=$(($(now_ms) - t0))
	if [ $el -lt 2500 ] || [ $el -ge 10000 ]; then fail "expire: EIO after $el ms (want about 3 s)"; fi
	expect_eq "$(offq)" "0 1" "expire: counters"
	echo "expire: EIO after $(fmt_ms $el) s"

	# ---- suspend: noflush hands it back, a plain suspend fails it, teardown
	expect_eq "$(tierctl policy $DEV offline_queue_s=600)" "offline_queue_s=600" "suspend: tierctl policy"
	dd "${W[@]}" "$(at 14)" 2>/tmp/s.err &
	pid=$!
	wait_for 10 '[ "$(offq)" = "1 1" ]' || fail "suspend: the write is not queued: $(offq)"
	bounded 20 "suspend: noflush suspend" dmsetup suspend --noflush $DEV
	kill -0 $pid 2>/dev/null || fail "suspend: a noflush suspend ended the write: $(cat /tmp/s.err)"
	bounded 20 "suspend: resume" dmsetup resume $DEV
	wait_for 10 '[ "$(offq)" = "1 1" ]' || fail "suspend: the write is not queued again after the resume: $(offq)"
	t0=$(now_ms)
	bounded 30 "suspend: remove --force" dmsetup remove --force $DEV 2>/dev/null || true
	rc=0
	wait_bounded 20 "suspend: the parked write" $pid || rc=$?
	[ $rc != 0 ] || fail "suspend: the parked write succeeded"
	el=$(($(now_ms) - t0))
	[ $el -lt 15000 ] || fail "suspend: EIO took $el ms"
	! dmsetup info $DEV >/dev/null 2>&1 || bounded 30 "suspend: remove" dmsetup remove --retry $DEV
	echo "suspend: noflush kept the write, remove --force failed it after $(fmt_ms $el) s"

	no_kernel_warning "offline queue"
	dmsetup remove --retry te0 te1 te2
	echo "offline_queue_s: fail fast, wait and complete, expire, suspend and teardown; migration between healthy tiers goes on"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 64M --nvme 64M -- "$0" main
