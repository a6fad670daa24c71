#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh disable=SC2016,SC2154  # conditions are evaluated later; tier_eval sets the counts
# dmt: debug-kernel
# Map changes made outside the worker, against the commits and the resumes
# they race (a review of 63cf97e). Two NVMe drives (hot 64M, cold 128M),
# each under a dm-linear shim that can turn into the error target, 1 MiB
# extents, the debug module:
#   forget    tier 1 degraded with 4 extents on it; a commit reads the used
#             counts and waits in dbg_commit_delay_ms (dbg_commit_delays
#             says when it is there); forget-tier 1 comes
#             meanwhile; once that commit is on disk, tier 0 fails (a power
#             cut before the forget's own commit). The superblock on disk
#             must agree with its map: forget-tier used to unmap between
#             the commit's count and its copy of the map, and `tierctl
#             check` found used_extents 4 against a map of 0 on tier 1, and
#             activation refused the device. After: check clean, the device
#             activates with tier 1's 4 extents (the forget was not
#             committed, and said so), data on tier 0 intact
#   suspended while the device is suspended, an evacuation is refused
#             (EBUSY) and nothing is queued at resume: one queued in a
#             shrink's resume walked the old, larger map (past the new
#             end); its tier flag could land on a renumbered tier
# DMT_CR_STEPS="suspended" runs a subset, in the order given.
. "$(dirname "$0")/lib.sh"
DEV=cr
D=/dev/mapper/$DEV

tier1_state() { jfield $DEV '["tiers"][1]["state"]'; }

step_forget() {
	local commit_pid forget_pid rc
	rand_bytes $((8 << 20)) >/tmp/data
	dd if=/tmp/data of=$D bs=1M oflag=direct conv=fsync status=none
	tier_set $DEV auto_migrate 0
	tier_set $DEV commit_interval_ms 60000
	tier_msg $DEV migrate 0 8192 1 || fail "migrate 0-3 MiB to tier 1"
	tier_wait $DEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped1 = 4 ]' ||
		fail "migrate to tier 1: $(tier_summary $DEV)"
	tier_msg $DEV commit || fail "commit after the migration"
	# Tier 1 fails; a read of its extents marks it degraded.
	shim_error t1L "$DMT_NVME1"
	dd if=$D of=/dev/null bs=1M count=1 iflag=direct status=none 2>/dev/null &&
		fail "a read of tier 1 worked on the error target"
	wait_for 10 '[ "$(tier1_state)" = degraded ]' || fail "tier 1 is $(tier1_state) after a failed read"

	# A first write makes the map dirty; the commit of it stops in the
	# window between its count and its copy of the map (8 s: room for the
	# forget to come, and for the cut below on a loaded host).
	dbg_param dbg_commit_delay_ms 8000
	dbg_param dbg_commit_delays 0
	dd if=/tmp/data of=$D bs=1M count=1 seek=20 oflag=direct status=none
	dmsetup message $DEV 0 commit &
	commit_pid=$!
	wait_for 30 '[ "$(cat /sys/module/dm_tier/parameters/dbg_commit_delays)" -ge 1 ]' ||
		fail "the commit did not reach its window"
	dmsetup message $DEV 0 forget-tier 1 2>/tmp/forget.err &
	forget_pid=$!
	wait_bounded 60 "the commit" $commit_pid || fail "the commit message failed"
	# That commit is on disk; the forget's own one waits in the window:
	# tier 0 fails now, a power cut before it.
	shim_error t0L "$DMT_NVME0"
	rc=0
	wait_bounded 60 "forget-tier" $forget_pid || rc=$?
	[ "$rc" != 0 ] || fail "forget-tier succeeded although its commit could not be written"
	dbg_param dbg_commit_delay_ms 0
	dmsetup remove --retry $DEV
	shim_linear t0L "$DMT_NVME0"
	shim_linear t1L "$DMT_NVME1"

	tierctl check /dev/mapper/t0L /dev/mapper/t1L >/tmp/check.out 2>&1 ||
		{ cat /tmp/check.out; fail "forget: the metadata on disk after the cut is damaged"; }
	tierctl activate $DEV >/dev/null 2>/tmp/act.err ||
		{ cat /tmp/act.err; fail "forget: activation after the cut"; }
	expect_eq "$(tier_mapped $DEV 1)" 4 "forget: tier 1's extents after the cut (the forget was not committed)"
	expect_eq "$(tier1_state)" ok "forget: tier 1 after activation"
	cmp <(dd if=$D bs=1M skip=4 count=4 iflag=direct status=none) <(dd if=/tmp/data bs=1M skip=4 count=4 status=none) ||
		fail "forget: the data on tier 0 changed"
	cmp <(dd if=$D bs=1M count=4 iflag=direct status=none) <(dd if=/tmp/data bs=1M count=4 status=none) ||
		fail "forget: the data on tier 1 changed"
	tier_sane $DEV forget
	echo "forget: a forget-tier beside a commit, cut before its own commit: check clean, activated, tier 1 maps 4, data intact"
}

step_suspended() {
	local rc before
	before=$(tier_mapped $DEV 1)
	dmsetup suspend $DEV
	rc=$(status_of tier_msg $DEV evacuate 1)
	dmsetup resume $DEV
	expect_eq "$rc" 16 "suspended: evacuate 1 (EBUSY)"
	tier_eval $DEV
	expect_eq "$manual_pending" 0 "suspended: moves queued after the resume"
	expect_eq "$mapped1" "$before" "suspended: tier 1's extents after the resume"
	echo "suspended: evacuate refused with EBUSY, nothing queued"
}

guest_main() {
	dmsetup create t0L --table "0 $(blockdev --getsz "$DMT_NVME0") linear $DMT_NVME0 0"
	dmsetup create t1L --table "0 $(blockdev --getsz "$DMT_NVME1") linear $DMT_NVME1 0"
	tierctl create $DEV --tier /dev/mapper/t0L --tier /dev/mapper/t1L --extent-size 1M --force >/dev/null
	local step
	for step in ${DMT_CR_STEPS:-forget suspended}; do
		"step_$step"
	done
	tierctl remove $DEV >/dev/null
	expect_status 0 "clean" tierctl check /dev/mapper/t0L /dev/mapper/t1L
	no_kernel_warning commit-races
}
run_guest_phase "$@"

export DMT_DEBUG_MODULE=1
vm --fresh --nvme 64M --nvme 128M -- "$0" main
