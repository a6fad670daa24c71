#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh disable=SC2016
# dmt: debug-kernel
# Failing and flaky tiers (issue 15). Both tiers sit on dm-linear shims;
# 16 extents of 1 MiB, 0-7 on tier 0, 8-15 on tier 1 (the committed map
# says where each one is).
#   bad1     dm-error over the physical extents of vexts 10 and 13 on tier 1:
#            exactly those two fail to read (EIO), the rest read back
#            intact; tier 1 degraded (not offline), tier 0 ok, metadata rw
#   bad0     the same over vexts 2 and 5 in tier 0's data area: exactly
#            those fail, writes to them fail, a flush still commits; tier 0
#            degraded (the metadata tier never goes offline); demotion by
#            age tries the copies of 2 and 5 once, later scans leave them
#   flakey   tier 1 on dm-flakey, down (every I/O fails): reads fail until
#            errors in a row take tier 1 offline, then at once; tier-0 reads
#            and fsynced writes go on; a whole-extent write to vext 9 is
#            redirected to tier 0, a partial write to vext 12 fails (EIO);
#            back up and `tierctl recover`: ok, every extent verifies, a
#            migrate to tier 1 moves (no stale "full" mark)
#   lost     a write in place to tier 1 that no flush covered, then tier 1
#            down and offline: the first flush after fails (EIO), once;
#            recovered, the write reads back
#   covered  a write in place, tier 1 degraded and recovered (the probe
#            flush covers the write), then down and offline: no EIO
#   nocache  tier 1's shim set to "write through", a write in place, tier 1
#            down and offline: no EIO (the write was durable at completion)
#   fua      a FUA write to tier 0 held for a commit whose flush of tier 1
#            fails (tier 1 down, offline): sent, succeeds, reads back
#   (bad1 also migrates 8-15 to tier 0 one copy at a time: 10 and 13
#   fail, the rest moves, the request ends failed; then back to tier 1)
# Every step is bounded; no warning, no hang.
# The old code has no offline state: the flakey step fails there.
. "$(dirname "$0")/lib.sh"
DEV=te59
D=/dev/mapper/$DEV
TIERMAP="$TOP/tests/vm/helpers/tiermap.py"

ext_sum() { dev_sum $D 1 "$1"; }
# The vexts whose 1 MiB direct read fails, space separated.
failing() {
	local v out=""
	for v in $(seq 0 15); do
		bounded 20 "read of vext $v" dd if=$D of=/dev/null bs=1M skip=$v count=1 iflag=direct status=none 2>/dev/null ||
			out+="$v "
	done
	echo "${out% }"
}
# A shim table over DISK with dm-error over the listed "start len" ranges.
shim_table() { # disk ranges...
	python3 - "$@" <<-'EOF'
		import subprocess, sys
		disk = sys.argv[1]
		size = int(subprocess.check_output(["blockdev", "--getsz", disk]))
		bad = sorted(tuple(map(int, r.split())) for r in sys.argv[2:])
		pos = 0
		for s, n in bad:
		    if s > pos:
		        print(pos, s - pos, "linear", disk, pos)
		    print(s, n, "error")
		    pos = s + n
		if pos < size:
		    print(pos, size - pos, "linear", disk, pos)
	EOF
}
shim_load() { # shim table-text
	dmsetup suspend --noflush --nolockfs "$1"
	dmsetup load "$1" <<<"$2"
	dmsetup resume "$1"
}
range_of() { awk -v v="$1" '$1 == v { print $3, $4 }' /tmp/map; }
# Tier 1 down (dm-flakey) and offline after 17 failed 4 KiB reads, in one
# loop: seconds, not the 30 s after which heat alone is committed (and
# tier 1 flushed).
tier1_offline() { # step
	local i
	shim_load te1 "0 $(blockdev --getsz "$DMT_NVME1") flakey $DMT_NVME1 0 0 3600"
	for i in $(seq 17); do
		dd if=$D of=/dev/null bs=4k skip=$((8 * 256 + i)) count=1 iflag=direct status=none 2>/dev/null || true
	done
	expect_eq "$(tier_stat $DEV state 1)" offline "$1: tier 1 after 17 failed reads"
}

guest_main() {
	local i sums=() got want t0 el max errs
	for i in 0 1; do
		eval "dmsetup create te$i --table \"0 \$(blockdev --getsz \$DMT_NVME$i) linear \$DMT_NVME$i 0\""
	done
	tierctl create $DEV --tier /dev/mapper/te0 --tier /dev/mapper/te1 --extent-size 1M --force >/dev/null
	tier_set $DEV auto_migrate 0
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M count=16 oflag=direct conv=fsync status=none
	tier_msg $DEV migrate $((8 * 2048)) $((8 * 2048)) 1 || fail "migrate"
	tier_wait $DEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped1 = 8 ]' ||
		fail "migrate not done: $(tier_summary $DEV)"
	tier_msg $DEV commit || fail "commit"
	for i in $(seq 0 15); do sums[i]=$(ext_sum $i); done
	python3 "$TIERMAP" "$DMT_NVME0" "$DMT_NVME1" 0 15 >/tmp/map
	awk '$2 != ($1 < 8 ? 0 : 1) { bad = 1 } END { exit bad }' /tmp/map || { cat /tmp/map; fail "vexts not where they were put"; }

	# ---- bad1
	shim_load te1 "$(shim_table "$DMT_NVME1" "$(range_of 10)" "$(range_of 13)")"
	expect_eq "$(failing)" "10 13" "bad1: vexts whose reads fail"
	for i in 0 1 2 3 4 5 6 7 8 9 11 12 14 15; do expect_eq "$(ext_sum $i)" "${sums[i]}" "bad1: vext $i"; done
	expect_eq "$(tier_stat $DEV state 1)" degraded "bad1: tier 1"
	expect_eq "$(tier_stat $DEV state 0)" ok "bad1: tier 0"
	expect_eq "$(tier_stat $DEV mode)" rw "bad1: metadata mode"
	# A migrate of 8-15 to tier 0, one copy at a time: the copies of 10
	# and 13 fail, the rest of the range still moves, and the request
	# ends failed (the old code stopped at the first failed copy).
	tier_set $DEV migration_inflight 1
	expect_status 1 "request [0-9]+ failed" bounded 120 "bad1: migrate" \
		tierctl migrate $DEV --range 8M:8M --tier 0 --wait
	expect_eq "$(tier_stat $DEV mapped 1)" 2 "bad1: extents left on tier 1 by the migrate over 10 and 13"
	tier_set $DEV migration_inflight 8 # the default
	shim_load te1 "$(shim_table "$DMT_NVME1")"
	bounded 30 "bad1: recover" tierctl recover $DEV 1 >/dev/null
	expect_eq "$(failing)" "" "bad1: after recovery"
	tierctl migrate $DEV --range 8M:8M --tier 1 --wait >/dev/null || fail "bad1: migrate back to tier 1"
	expect_eq "$(tier_stat $DEV mapped 1)" 8 "bad1: extents on tier 1 again"
	echo "bad1: EIO on exactly vexts 10 and 13 (tier 1), tier 1 degraded, a migrate over them moved the rest, recovered"

	# ---- bad0
	shim_load te0 "$(shim_table "$DMT_NVME0" "$(range_of 2)" "$(range_of 5)")"
	expect_eq "$(failing)" "2 5" "bad0: vexts whose reads fail"
	! bounded 20 "bad0: write" dd if=/dev/zero of=$D bs=4k seek=$((2 * 256)) count=1 oflag=direct status=none 2>/dev/null ||
		fail "bad0: a write to a failing extent succeeded"
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M seek=20 count=1 oflag=direct status=none
	bounded 30 "bad0: flush" dd if=/dev/null of=$D conv=fsync status=none || fail "bad0: a flush (commit) failed"
	expect_eq "$(tier_stat $DEV state 0)" degraded "bad0: tier 0"
	expect_eq "$(tier_stat $DEV mode)" rw "bad0: metadata mode"
	for i in 0 1 3 4 6 7 8 15; do expect_eq "$(ext_sum $i)" "${sums[i]}" "bad0: vext $i"; done
	# Every tier-0 extent demoted by age: the copies of 2 and 5 fail once,
	# and the scans after (every 5 s) leave them alone (the old code tried
	# them at each scan, one more error against the tier each time).
	errs=$(tier_stat $DEV migration_errors)
	tier_set $DEV promote_hits 0 # the reads above made 8 and 15 hot
	tier_set $DEV demote_age 1
	tier_set $DEV auto_migrate 1
	tier_wait $DEV 60 "[ \$mapped0 = 2 ] && [ \$in_flight = 0 ] && [ \$migration_errors -ge $((errs + 2)) ]" ||
		fail "bad0: demotion by age: $(tier_summary $DEV), $(tier_stat $DEV migration_errors) failed copies"
	sleep 12
	expect_eq "$(tier_stat $DEV migration_errors)" $((errs + 2)) "bad0: failed copies after two more scans"
	tier_set $DEV auto_migrate 0
	tier_set $DEV demote_age 0
	tier_set $DEV promote_hits 4 # the default
	echo "bad0: demotion by age moved all but 2 and 5, whose copies failed once and were not tried again"
	shim_load te0 "$(shim_table "$DMT_NVME0")"
	bounded 30 "bad0: recover" tierctl recover $DEV 0 >/dev/null
	expect_eq "$(tier_stat $DEV state 0)" ok "bad0: tier 0 after recover"
	for i in $(seq 0 15); do expect_eq "$(ext_sum $i)" "${sums[i]}" "bad0: vext $i after recovery"; done
	# Back where the flakey step expects them.
	tierctl migrate $DEV --range 0:8M --tier 0 --wait >/dev/null || fail "bad0: migrate 0-7 back to tier 0"
	tierctl migrate $DEV --range 20M:1M --tier 0 --wait >/dev/null || fail "bad0: migrate 20 back to tier 0"
	expect_eq "$(tier_stat $DEV mapped 1)" 8 "bad0: extents on tier 1 again"
	echo "bad0: EIO on exactly vexts 2 and 5 (tier 0 data area), commits went on, recovered"

	# ---- flakey
	shim_load te1 "0 $(blockdev --getsz "$DMT_NVME1") flakey $DMT_NVME1 0 0 3600"
	t0=$(now_ms)
	for i in $(seq 1 40); do
		bounded 20 "flakey: read" dd if=$D of=/dev/null bs=1M skip=$((8 + i % 8)) count=1 iflag=direct status=none 2>/dev/null &&
			fail "flakey: a read of tier 1 succeeded while it was down"
		[ "$(tier_stat $DEV state 1)" = offline ] && break
	done
	expect_eq "$(tier_stat $DEV state 1)" offline "flakey: tier 1 after $i failed reads"
	echo "flakey: tier 1 offline after $i failed reads ($(fmt_ms $(($(now_ms) - t0))) s)"
	expect_eq "$(failing)" "8 9 10 11 12 13 14 15" "flakey: vexts whose reads fail"
	# They fail at once (no I/O sent): each read of tier 1 timed alone
	# (the 16 reads of failing() and their bounded/timeout wrappers come
	# near 10 s of process start-up on a loaded host, at 0.3 s an exec).
	max=0
	for i in $(seq 8 15); do
		t0=$(now_ms)
		dd if=$D of=/dev/null bs=1M skip=$i count=1 iflag=direct status=none 2>/dev/null &&
			fail "flakey: a read of vext $i succeeded with tier 1 offline"
		el=$(($(now_ms) - t0))
		[ $el -le $max ] || max=$el
	done
	echo "flakey: the slowest of 8 reads of offline tier 1 took $max ms"
	[ $max -lt 3000 ] || fail "flakey: a read of offline tier 1 took $max ms"
	for i in 0 1 2 3 4 5 6 7; do expect_eq "$(ext_sum $i)" "${sums[i]}" "flakey: vext $i on tier 0"; done
	dd if=<(rand_bytes) iflag=fullblock of=/tmp/x bs=1M count=1 status=none
	bounded 30 "flakey: whole write" dd if=/tmp/x of=$D bs=1M seek=9 count=1 oflag=direct conv=fsync status=none ||
		fail "flakey: a whole-extent write to offline tier 1 was not redirected"
	expect_eq "$(ext_sum 9)" "$(dev_sum /tmp/x)" "flakey: the redirected extent"
	expect_eq "$(tier_stat $DEV mapped 1)" 7 "flakey: extents left on tier 1"
	! bounded 20 "flakey: partial write" dd if=/dev/zero of=$D bs=4k seek=$((12 * 256)) count=1 oflag=direct status=none 2>/dev/null ||
		fail "flakey: a partial write to an offline extent succeeded"
	bounded 30 "flakey: fsync" dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M seek=21 count=1 oflag=direct conv=fsync status=none ||
		fail "flakey: a new tier-0 extent could not be written and fsynced"
	expect_eq "$(tier_stat $DEV mode)" rw "flakey: metadata mode"
	! bounded 30 "flakey: recover while down" tierctl recover $DEV 1 >/tmp/rec.out 2>&1 ||
		fail "flakey: recover succeeded while the tier was down"
	grep -q "probe flush" /tmp/rec.out || { cat /tmp/rec.out; fail "flakey: recover did not say why it failed"; }
	shim_load te1 "$(shim_table "$DMT_NVME1")"
	bounded 30 "flakey: recover" tierctl recover $DEV 1 >/dev/null
	expect_eq "$(tier_stat $DEV state 1)" ok "flakey: tier 1 after recover"
	sums[9]=$(dev_sum /tmp/x)
	for i in $(seq 0 15); do expect_eq "$(ext_sum $i)" "${sums[i]}" "flakey: vext $i after recovery"; done
	tier_sane $DEV "after recovery"
	# Recovered, tier 1 takes extents again: a migrate to it moves (it
	# ended failed, "tier 1 is full", while the no-new-extents mark that
	# the fsynced first write set during the outage outlived the
	# recovery, until some later first write).
	tierctl migrate $DEV --range 21M:1M --tier 1 --wait >/tmp/mig.out 2>&1 ||
		{ cat /tmp/mig.out; fail "flakey: a migrate to the recovered tier 1"; }
	expect_eq "$(tier_stat $DEV mapped 1)" 8 "flakey: extents on tier 1 after the migrate"
	tierctl migrate $DEV --range 21M:1M --tier 0 --wait >/dev/null || fail "flakey: the migrate back to tier 0"

	# ---- lost
	# A write in place to vext 11 that no flush covers, then tier 1 goes
	# down and, 17 failed 4 KiB reads later, offline. The suspend commits
	# map and heat and flushes every tier; nothing flushes tier 1 after it
	# (the map stays clean, heat alone is committed 30 s later at the
	# earliest), so the step runs in well under 30 s. 4 KiB: a whole-extent
	# write would be redirected to tier 0.
	dmsetup suspend $DEV && dmsetup resume $DEV
	head -c 4096 <(rand_bytes) >/tmp/w11
	dd if=/tmp/w11 of=$D bs=4k seek=$((11 * 256 + 7)) count=1 oflag=direct status=none ||
		fail "lost: the write in place to vext 11"
	tier1_offline lost
	# That write may be lost with the tier: the first flush after it went
	# offline says so (EIO), once; the next one succeeds (the old code
	# completed both: an fsync that promised data no flush covered).
	! bounded 30 "lost: first flush" dd if=/dev/null of=$D conv=fsync status=none 2>/dev/null ||
		fail "lost: a flush succeeded though tier 1 went offline holding a write no flush covered"
	bounded 30 "lost: second flush" dd if=/dev/null of=$D conv=fsync status=none ||
		fail "lost: the flush after the one that reported the loss failed"
	klog_has "tier 1 (.*) went offline holding acknowledged writes no flush covered" ||
		fail "lost: the kernel log does not say why the flush failed"
	shim_load te1 "$(shim_table "$DMT_NVME1")"
	bounded 30 "lost: recover" tierctl recover $DEV 1 >/dev/null
	# The drive kept it (an emulated drive loses nothing): durable now.
	dd if=$D of=/tmp/r11 bs=4k skip=$((11 * 256 + 7)) count=1 iflag=direct status=none
	cmp -s /tmp/r11 /tmp/w11 || fail "lost: the write in place after recovery"
	bounded 30 "lost: flush after recovery" dd if=/dev/null of=$D conv=fsync status=none ||
		fail "lost: a flush after the recovery failed"
	echo "lost: the first flush after tier 1 went offline holding a write in place failed (EIO), the next succeeded"

	# ---- covered
	# An outage that loses nothing costs no flush anything: a write in
	# place, tier 1 degraded by one failed read, `tierctl recover` (its
	# probe flush covers the write), then tier 1 down and offline: the
	# flush after succeeds (the probe used to leave the write marked, and
	# the outage turned the mark into a loss: EIO, and XFS shuts down).
	dmsetup suspend $DEV && dmsetup resume $DEV
	dd if=/tmp/w11 of=$D bs=4k seek=$((11 * 256 + 8)) count=1 oflag=direct status=none ||
		fail "covered: the write in place to vext 11"
	shim_load te1 "$(shim_table "$DMT_NVME1" "$(range_of 13)")"
	! dd if=$D of=/dev/null bs=4k skip=$((13 * 256)) count=1 iflag=direct status=none 2>/dev/null ||
		fail "covered: a read of vext 13 succeeded over dm-error"
	expect_eq "$(tier_stat $DEV state 1)" degraded "covered: tier 1 after one failed read"
	shim_load te1 "$(shim_table "$DMT_NVME1")"
	bounded 30 "covered: recover" tierctl recover $DEV 1 >/dev/null
	tier1_offline covered
	bounded 30 "covered: flush" dd if=/dev/null of=$D conv=fsync status=none ||
		fail "covered: a flush failed after an outage that lost nothing (the recovery's probe flush covered the write)"
	shim_load te1 "$(shim_table "$DMT_NVME1")"
	bounded 30 "covered: recover after the outage" tierctl recover $DEV 1 >/dev/null
	echo "covered: an outage after a recovery's probe flush covered the write: the flush after succeeded"

	# ---- nocache
	# A tier with no volatile write cache: a write is durable when it
	# completes, so the tier's outage loses nothing either (the block
	# layer drops FUA and flushes there; the write used to stay marked).
	dmsetup suspend $DEV && dmsetup resume $DEV
	echo "write through" >"/sys/block/$(basename "$(readlink -f /dev/mapper/te1)")/queue/write_cache"
	dd if=/tmp/w11 of=$D bs=4k seek=$((11 * 256 + 9)) count=1 oflag=direct status=none ||
		fail "nocache: the write in place to vext 11"
	tier1_offline nocache
	bounded 30 "nocache: flush" dd if=/dev/null of=$D conv=fsync status=none ||
		fail "nocache: a flush failed after the outage of a tier with no write cache"
	shim_load te1 "$(shim_table "$DMT_NVME1")"
	bounded 30 "nocache: recover" tierctl recover $DEV 1 >/dev/null
	for i in 8 9; do
		dd if=$D of=/tmp/r11 bs=4k skip=$((11 * 256 + i)) count=1 iflag=direct status=none
		cmp -s /tmp/r11 /tmp/w11 || fail "nocache: block $i of vext 11"
	done
	echo "nocache: the outage of a tier with no write cache after a write in place: the flush after succeeded"

	# ---- fua
	# A FUA write to tier 0 held for a commit whose flush of tier 1 fails:
	# the commit succeeds, so the write is sent and succeeds (the old code
	# failed everything that waited for that commit with EIO, and never
	# sent the FUA write). Periodic commits off, so the FUA write's is the
	# one that flushes tier 1.
	echo "write back" >"/sys/block/$(basename "$(readlink -f /dev/mapper/te1)")/queue/write_cache"
	tier_set $DEV commit_interval_ms 60000
	bounded 30 "fua: flush" dd if=/dev/null of=$D conv=fsync status=none || fail "fua: the first flush"
	shim_load te1 "0 $(blockdev --getsz "$DMT_NVME1") flakey $DMT_NVME1 0 0 3600"
	# A failed write in place leaves tier 1 to flush (degraded, not offline).
	! dd if=/tmp/w11 of=$D bs=4k seek=$((12 * 256)) count=1 oflag=direct status=none 2>/dev/null ||
		fail "fua: a write to tier 1 succeeded while it was down"
	expect_eq "$(tier_stat $DEV state 1)" degraded "fua: tier 1 after a failed write"
	# A new extent on tier 0 leaves the map to commit.
	dd if=/tmp/w11 of=$D bs=4k seek=$((25 * 256)) count=1 oflag=direct status=none ||
		fail "fua: a first write to tier 0"
	bounded 30 "fua: FUA write" dd if=/tmp/w11 of=$D bs=4k seek=$((3 * 256)) count=1 oflag=direct,dsync status=none ||
		fail "fua: a FUA write to tier 0 failed because the commit it waited for could not flush tier 1"
	expect_eq "$(tier_stat $DEV state 1)" offline "fua: tier 1 after its failed flush"
	dd if=$D of=/tmp/r3 bs=4k skip=$((3 * 256)) count=1 iflag=direct status=none
	cmp -s /tmp/r3 /tmp/w11 || fail "fua: the FUA write does not read back"
	shim_load te1 "$(shim_table "$DMT_NVME1")"
	bounded 30 "fua: recover" tierctl recover $DEV 1 >/dev/null
	echo "fua: a FUA write to tier 0 whose commit could not flush tier 1 succeeded"
	no_kernel_warning "tier errors"
	tierctl remove $DEV
	dmsetup remove --retry te0 te1
	echo "failing and flaky tiers: EIO on exactly the affected extents, offline after errors in a row, redirect and fail-fast, recovered"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 128M -- "$0" main
