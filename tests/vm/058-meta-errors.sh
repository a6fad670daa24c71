#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh disable=SC2016
# dmt: debug-kernel
# Metadata-device errors in the middle of a commit (issue 15). Tier 0 sits
# on a dm-linear shim whose superblock sectors can be swapped for dm-error:
# the map blocks of a commit are written, its superblock write fails.
#   ro     a FUA first write's commit fails: EIO, the mode is ro, tier 0
#          counts no I/O error; a flush fails too; data committed
#          before reads back (tier 0 and tier 1); a write in place works, a
#          new extent is refused; dmsetup suspend/resume and a second failed
#          flush keep ro (no escalation); tier 1 (a dm-linear shim over
#          the first 96 MiB of its disk) grows to 128 MiB and the table is
#          reloaded: it resumes with tier 1 at its recorded size, still ro
#          (the resize it implied failed -EROFS at preresume and left the
#          device suspended, with this table and the previous one alike);
#          tierctl resize refuses, saying the metadata is ro
#   rw     the shim heals: the next flush commits, the mode is rw; a
#          reload grows tier 1 now; the write whose flush failed reads
#          back, also after a reload
#   fail   errors again, periodic commits retried: after repeated failures
#          (TIER_MD_FAIL_COMMITS over TIER_MD_FAIL_SECS) the mode is fail;
#          writes and flushes fail, reads of both tiers still work
# Events: mode-change ro, rw, ro, fail, in that order.
# The old code went to fail on the second failed commit (or the suspend's)
# and then failed every read.
. "$(dirname "$0")/lib.sh"
DEV=me58
D=/dev/mapper/$DEV

shim_ok() { printf '0 %s linear %s 0\n' "$SZ" "$A"; }
# Sectors 8..23: both superblock slots (docs/FORMAT.md).
shim_bad() { printf '0 8 linear %s 0\n8 16 error\n24 %s linear %s 24\n' "$A" $((SZ - 24)) "$A"; }
shim_swap() { "$1" | dmsetup load shim && dmsetup suspend shim && dmsetup resume shim; }
# Tier 1: a dm-linear shim over the first MIB MiB of the second disk.
shim1() { printf '0 %s linear %s 0\n' $(($1 * 2048)) "$DMT_NVME1"; }
shim1_grow() { shim1 "$1" | dmsetup load shim1 && dmsetup suspend shim1 && dmsetup resume shim1; }
# Reload DEV with its own table and resume it; the state it ends in.
reload_same() { dmsetup reload $DEV --table "$1" && dmsetup resume $DEV; }
dev_state() { dmsetup info -c --noheadings -o attr $DEV; }
mode() { tier_stat $DEV mode; }
flush() { dd if=/dev/null of=$D conv=fsync status=none 2>/dev/null; }
sum_of() { dev_sum $D "$2" "$1"; }


guest_main() {
	local table sum_a sum_b watch_pid t0 errs0 t1
	A=$DMT_NVME0
	SZ=$(blockdev --getsz "$A")
	shim_ok | dmsetup create shim
	shim1 96 | dmsetup create shim1
	tierctl create $DEV --tier /dev/mapper/shim --tier /dev/mapper/shim1 --extent-size 1M --force >/dev/null
	table=$(dmsetup table $DEV)
	tier_set $DEV auto_migrate 0
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M count=8 oflag=direct conv=fsync status=none
	tier_msg $DEV migrate 0 $((4 * 2048)) 1 || fail "migrate"
	tier_wait $DEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped1 = 4 ]' ||
		fail "migrate not done: $(tier_summary $DEV)"
	tier_msg $DEV commit || fail "commit"
	sum_a=$(sum_of 0 8)
	tier_set $DEV commit_interval_ms 60000
	tierctl watch $DEV --json >/tmp/ev.json 2>/tmp/watch.err &
	watch_pid=$!
	wait_for 10 'grep -q watching /tmp/watch.err' || fail "tierctl watch did not subscribe"

	# ---- ro
	shim_swap shim_bad
	dd if=<(rand_bytes) iflag=fullblock of=/tmp/b bs=1M count=1 status=none
	dd if=/tmp/b of=$D bs=1M seek=16 oflag=direct status=none || fail "ro: the write before the flush failed"
	# A FUA first write: its data lands, its commit fails. The EIO is the
	# commit's, not tier 0's I/O error (the old code counted it there).
	errs0=$(jfield $DEV '["tiers"][0]["io_errors"]')
	! dd if=/tmp/b of=$D bs=1M seek=17 oflag=direct,dsync status=none 2>/dev/null ||
		fail "ro: a FUA first write succeeded though its commit failed"
	expect_eq "$(mode)" ro "mode after a failed commit"
	expect_eq "$(jfield $DEV '["tiers"][0]["io_errors"]')" "$errs0" "tier 0's I/O errors after a failed commit"
	! flush || fail "ro: a flush succeeded with the superblock unwritable"
	expect_eq "$(sum_of 0 8)" "$sum_a" "ro: data committed before (tiers 0 and 1)"
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=64k count=1 seek=1 oflag=direct status=none ||
		fail "ro: a write in place failed"
	sum_a=$(sum_of 0 8)
	! dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M seek=20 count=1 oflag=direct status=none 2>/dev/null ||
		fail "ro: a new extent was allocated"
	bounded 60 "ro: dmsetup suspend" dmsetup suspend $DEV
	dmsetup resume $DEV
	expect_eq "$(mode)" ro "mode after dmsetup suspend/resume in ro"
	! flush || fail "ro: the second flush succeeded"
	expect_eq "$(mode)" ro "mode after a second failed commit"
	expect_eq "$(tier_stat $DEV state 0)" ok "tier 0 state (metadata errors are the mode's)"
	# A tier that grew, reloaded while ro: the growth cannot be committed,
	# so it waits; the device must not stay suspended.
	t1=$(tier_stat $DEV total 1)
	shim1_grow 128
	reload_same "$table" || { dmsetup resume shim; fail "ro: the reload after tier 1 grew did not resume ($(dev_state)): $(dmesg | grep 'tier:' | tail -n 2)"; }
	[[ $(dev_state) != *s* ]] || fail "ro: $DEV suspended after the reload: $(dev_state)"
	expect_eq "$(tier_stat $DEV total 1)" "$t1" "ro: tier 1's extents after the reload (its recorded size)"
	expect_eq "$(mode)" ro "mode after the reload"
	klog_has "tier: $DEV: a grown tier is used at its recorded size: the metadata is ro" ||
		fail "ro: no kernel message about the deferred growth"
	expect_status 1 "the metadata of $DEV is ro" tierctl resize $DEV
	echo "ro: $(dmsetup status $DEV | cut -d' ' -f1-6)"

	# ---- rw
	shim_swap shim_ok
	flush || fail "rw: the retried commit failed after the shim healed"
	expect_eq "$(mode)" rw "mode after a retried commit"
	reload_same "$table" || fail "rw: the reload that grows tier 1"
	expect_eq "$(tier_stat $DEV total 1)" $((t1 + 32)) "rw: tier 1's extents after a reload (grown by 32 MiB)"
	expect_eq "$(sum_of 16 1)" "$(dev_sum /tmp/b)" "rw: the write whose flush failed"
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M seek=20 count=1 oflag=direct conv=fsync status=none ||
		fail "rw: a new extent cannot be allocated"
	sum_b=$(sum_of 16 8)
	kill $watch_pid
	dmsetup remove --retry $DEV
	dmsetup create $DEV --table "$table"
	expect_eq "$(sum_of 0 8)" "$sum_a" "rw: data after a reload"
	expect_eq "$(sum_of 16 8)" "$sum_b" "rw: new data after a reload"
	echo "rw: back after the shim healed; $(tier_summary $DEV)"

	# ---- fail
	tierctl watch $DEV --json >>/tmp/ev.json 2>/tmp/watch.err &
	watch_pid=$!
	wait_for 10 'grep -q watching /tmp/watch.err' || fail "tierctl watch did not subscribe again"
	tier_set $DEV auto_migrate 0
	# A new extent while the metadata still works (on one virtual CPU a
	# periodic commit could fail and refuse it before dd got there); the
	# setting below is a change to commit after the shim fails, whatever
	# a commit in between took.
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M seek=30 count=1 oflag=direct status=none || fail "fail: write"
	shim_swap shim_bad
	tier_set $DEV commit_interval_ms 1000
	t0=$(now_ms)
	wait_for 20 '[ "$(mode)" = ro ]' || fail "fail: mode $(mode), not ro, after periodic commits failed"
	wait_for 90 '[ "$(mode)" = fail ]' || fail "fail: mode still $(mode) after 90 s of failed commits"
	echo "fail: mode fail $(fmt_ms $(($(now_ms) - t0))) s after the errors began"
	[ $(($(now_ms) - t0)) -ge 25000 ] || fail "fail mode entered after less than TIER_MD_FAIL_SECS"
	expect_eq "$(sum_of 0 8)" "$sum_a" "fail: reads of tiers 0 and 1"
	! dd if=<(rand_bytes) iflag=fullblock of=$D bs=64k count=1 oflag=direct status=none 2>/dev/null ||
		fail "fail: a write succeeded"
	! flush || fail "fail: a flush succeeded"
	bounded 60 "fail: dmsetup remove" dmsetup remove --retry $DEV
	sleep 1
	kill $watch_pid 2>/dev/null || true
	python3 - <<-'EOF' || { cat /tmp/ev.json; fail "mode-change events"; }
		import json
		ev = [json.loads(l) for l in open("/tmp/ev.json")]
		modes = [e["metadata_mode"] for e in ev if e["event"] == "mode-change"]
		assert modes == ["ro", "rw", "ro", "fail"], modes
	EOF
	# Kernel messages name the device the admin knows, not tier 0's disk.
	klog_has "tier: $DEV: metadata mode now rw: a retried commit succeeded" ||
		fail "no dmesg line naming $DEV for the return to rw: $(dmesg | grep 'metadata mode now' | tail -n 2)"
	no_kernel_warning "metadata errors"
	dmsetup remove --retry shim shim1
	echo "metadata errors mid-commit: ro, kept through suspend, rw once healed, fail only after repeated failures, reads kept"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 128M -- "$0" main
