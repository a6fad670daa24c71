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
#   memcopy   a device of its own with a memory tier (a review of bbe98a6):
#             extent 0 on tier 1 with a copy in memory, tier 1 degraded,
#             forget-tier 1 unmaps it and waits (dbg_forget_delay_ms); a
#             4 KiB FUA write maps it anew on tier 0 and waits for its
#             commit (dbg_commit_delay_ms); the rest of the extent must
#             read as zeroes. forget-tier dropped the memory copies only
#             after its whole range, and the read got the forgotten
#             contents from the copy. Then, tier 1 working again but not
#             recovered, a migrate to it is refused (it moved data onto
#             the tier declared lost); after tierctl recover it moves
# DMT_CR_STEPS="suspended" runs a subset, in the order given (memcopy
# removes cr first).
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

# cr's end: removed, its metadata clean.
cr_done() {
	dmsetup info $DEV >/dev/null 2>&1 || return 0
	tierctl remove $DEV >/dev/null
	expect_status 0 "clean" tierctl check /dev/mapper/t0L /dev/mapper/t1L
}

step_memcopy() {
	local dev=mc d=/dev/mapper/mc wpid fpid zero old got
	cr_done
	tierctl create $dev --tier /dev/mapper/t0L --tier /dev/mapper/t1L \
		--tier "numa:$DMT_NUMA_NODE:8M" --extent-size 1M --mem-promote-hits 1 \
		--force >/dev/null || fail "memcopy: create"
	tier_set $dev auto_migrate 0
	tier_set $dev commit_interval_ms 60000
	rand_bytes 2M >/tmp/mc
	dd if=/tmp/mc of=$d bs=1M oflag=direct conv=fsync status=none
	tier_msg $dev migrate 0 4096 1 || fail "memcopy: migrate 0-2 MiB to tier 1"
	tier_wait $dev 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped1 = 2 ]' ||
		fail "memcopy: migrate to tier 1: $(tier_summary $dev)"
	tier_msg $dev commit || fail "memcopy: commit after the migration"
	# Reads copy extent 0 into the memory tier.
	wait_for 30 'dd if=$d of=/dev/null bs=1M count=1 iflag=direct status=none &&
		[ "$(mem_counts $dev | cut -d" " -f1)" -ge 1 ]' ||
		fail "memcopy: no copy of extent 0 in memory: $(mem_counts $dev)"
	echo "memcopy: memory tier (copies hits misses fills evictions invalidations): $(mem_counts $dev)"
	# Tier 1 fails; a write in place to extent 1 marks it degraded.
	shim_error t1L "$DMT_NVME1"
	dd if=/dev/zero of=$d bs=4k seek=256 count=1 oflag=direct status=none 2>/dev/null &&
		fail "memcopy: a write to tier 1 worked on the error target"
	wait_for 10 '[ "$(jfield $dev "[\"tiers\"][1][\"state\"]")" = degraded ]' ||
		fail "memcopy: tier 1 is not degraded after a failed write"

	dbg_param dbg_forget_delay_ms 10000
	dmsetup message $dev 0 forget-tier 1 2>/dev/null &
	fpid=$!
	wait_for 20 '[ "$(tier_mapped $dev 1)" = 0 ]' || fail "memcopy: forget-tier unmapped nothing"
	# The FUA write maps extent 0 on tier 0, then waits for a commit.
	dbg_param dbg_commit_delay_ms 8000
	dbg_param dbg_commit_delays 0
	dd if=/tmp/mc of=$d bs=4k count=1 oflag=direct,dsync status=none &
	wpid=$!
	wait_for 30 '[ "$(cat /sys/module/dm_tier/parameters/dbg_commit_delays)" -ge 1 ]' ||
		fail "memcopy: the FUA write's commit did not come"
	zero=$(head -c $((1020 << 10)) /dev/zero | md5sum)
	old=$(dd if=/tmp/mc bs=4k skip=1 count=255 status=none | md5sum)
	got=$(dd if=$d bs=4k skip=1 count=255 iflag=direct status=none | md5sum)
	[ "$got" != "$old" ] || fail "memcopy: extent 0 around a new write after forget-tier: the forgotten contents (its memory copy)"
	expect_eq "$got" "$zero" "memcopy: extent 0 around a new write after forget-tier"
	wait_bounded 60 "the FUA write" $wpid || fail "memcopy: the FUA write failed"
	wait_bounded 60 "forget-tier" $fpid || true
	dbg_param dbg_commit_delay_ms 0
	dbg_param dbg_forget_delay_ms 0
	expect_eq "$(dd if=$d bs=4k skip=1 count=255 iflag=direct status=none | md5sum)" "$zero" \
		"memcopy: extent 0 around the new write, once written"
	cmp <(dd if=$d bs=4k count=1 iflag=direct status=none) <(head -c 4096 /tmp/mc) ||
		fail "memcopy: the new write"
	# Forgotten, tier 1 takes no new extent until a recover, though it
	# works again (a migrate to it used to move data onto the lost tier;
	# so did demotions and first writes that spilled there).
	shim_linear t1L "$DMT_NVME1"
	expect_eq "$(status_of tier_msg $dev migrate 0 2048 1 2>/dev/null)" 1 "memcopy: a migrate to the forgotten tier 1"
	sleep 1
	expect_eq "$(tier_mapped $dev 1)" 0 "memcopy: extents on the forgotten tier 1"
	bounded 30 "memcopy: recover" tierctl recover $dev 1 >/dev/null || fail "memcopy: recover of tier 1"
	tier_msg $dev migrate 0 2048 1 || fail "memcopy: a migrate to the recovered tier 1"
	tier_wait $dev 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped1 = 1 ]' ||
		fail "memcopy: the migrate to the recovered tier 1: $(tier_summary $dev)"
	cmp <(dd if=$d bs=4k count=1 iflag=direct status=none) <(head -c 4096 /tmp/mc) ||
		fail "memcopy: the new write, moved to tier 1"
	tierctl remove $dev >/dev/null
	echo "memcopy: after forget-tier, a new write's extent reads zeroes around it, not the memory copy; the tier takes nothing until recovered"
}

guest_main() {
	dmsetup create t0L --table "0 $(blockdev --getsz "$DMT_NVME0") linear $DMT_NVME0 0"
	dmsetup create t1L --table "0 $(blockdev --getsz "$DMT_NVME1") linear $DMT_NVME1 0"
	tierctl create $DEV --tier /dev/mapper/t0L --tier /dev/mapper/t1L --extent-size 1M --force >/dev/null
	local step
	for step in ${DMT_CR_STEPS:-forget suspended memcopy}; do
		"step_$step"
	done
	cr_done
	no_kernel_warning commit-races
}
run_guest_phase "$@"

export DMT_DEBUG_MODULE=1
vm --fresh --nvme 64M --nvme 128M --numa-node 64M -- "$0" main
