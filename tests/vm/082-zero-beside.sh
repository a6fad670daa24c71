#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh disable=SC2016
# dmt: debug-kernel
# dmt: smp
# A partial first write zeroes the rest of its new extent beside the write,
# not in the worker before it (issue 17: "no synchronous zeroing in the
# worker"). Extents of 1 MiB; the tier sits on a shim (dm-delay, later a
# dm-linear/dm-error table) over a drive first filled with 0xaa, so a part
# left unzeroed would show.
#   stale   4 KiB first writes at the head, the middle and the end of new
#           extents, and one of 12 KiB at an odd offset: each extent reads
#           back as the data with zeroes around it, again after a
#           re-activation
#   beside  tier writes delayed 1 s: 16 partial first writes to 16 new
#           extents, all in flight at once (one fio, QD16), end in well
#           under the 16 s it takes to zero one extent after another in the
#           worker (fio's runtime: the old module took 17-19 s here)
#   failed  dm-error over the tail of the next new physical extent: a 4 KiB
#           first write at its head fails (EIO, the zeroing failed), nothing
#           is mapped, tier 0 is degraded with one I/O error counted (the
#           old module counted two); with the error gone and the tier
#           recovered the same write succeeds, zeroes around it
#   parked  tier writes delayed 1 s again: 16 fio jobs each write 8 x 4 KiB
#           at QD8 into their own new extent; the writes behind each
#           extent's first wait on that extent's job, and each is parked
#           once (dbg_parks <= 112). The old module sent every parked bio
#           round again at any job's end (770 parks here)
#   refused the tier advertises WRITE ZEROES and the next one ends refused
#           (dbg_zero_refuse=1): the worker zeroes again with
#           blkdev_issue_zeroout() and the write lands, zeroes around it,
#           tier 0 stays ok and nothing is logged as failed
# The module is the debug build (dbg_parks, dbg_zero_refuse).
. "$(dirname "$0")/lib.sh"
DEV=zb82
D=/dev/mapper/$DEV
SHIM=zs82

# The 1 MiB extent VEXT of $D is zeroes but for FILE at byte OFFSET.
expect_extent() { # vext offset file what
	head -c 1M /dev/zero >/tmp/want
	dd if="$3" of=/tmp/want bs=1 seek="$2" conv=notrunc status=none
	expect_eq "$(dev_sum $D 1 "$1")" "$(dev_sum /tmp/want)" "$4"
}
shim_load() { # table
	dmsetup suspend --noflush --nolockfs $SHIM
	dmsetup load $SHIM <<<"$1"
	dmsetup resume $SHIM
}
# One direct write of FILE at byte OFFSET of extent VEXT.
partial() { # vext offset file
	dd if="$3" of=$D bs="$(stat -c %s "$3")" seek=$(($1 * 1048576 + $2)) count=1 \
		oflag=direct,seek_bytes conv=notrunc status=none 2>/dev/null
}

guest_main() {
	local i t0 ms ds pids=() size table first parks wz logged errs
	size=$(blockdev --getsz "$DMT_NVME0")
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
for _ in range(int(sys.argv[2])):
    os.write(fd, b"\xaa" * 1048576)
os.fsync(fd)' "$DMT_NVME0" $((size / 2048))
	head -c 12288 <(rand_bytes) >/tmp/p12
	head -c 4096 /tmp/p12 >/tmp/p4
	delay_dev $SHIM "$DMT_NVME0" 0
	tierctl create $DEV --tier /dev/mapper/$SHIM --extent-size 1M --force >/dev/null

	# ---- stale
	partial 0 0 /tmp/p4 || fail "stale: write at the head"
	partial 1 $((512 * 1024)) /tmp/p4 || fail "stale: write in the middle"
	partial 2 $((1024 * 1024 - 4096)) /tmp/p4 || fail "stale: write at the end"
	partial 3 $((3 * 4096 + 1536)) /tmp/p12 || fail "stale: write at an odd offset"
	for i in 1 2; do
		expect_extent 0 0 /tmp/p4 "stale $i: vext 0"
		expect_extent 1 $((512 * 1024)) /tmp/p4 "stale $i: vext 1"
		expect_extent 2 $((1024 * 1024 - 4096)) /tmp/p4 "stale $i: vext 2"
		expect_extent 3 $((3 * 4096 + 1536)) /tmp/p12 "stale $i: vext 3"
		expect_eq "$(tier_mapped $DEV 0)" 4 "stale $i: mapped extents"
		[ $i = 2 ] && break
		table=$(dmsetup table $DEV)
		dmsetup remove --retry $DEV
		dmsetup create $DEV --table "$table" || fail "stale: re-activation"
	done
	echo "stale: partial first writes read back with zeroes around them (before and after a re-activation)"

	# ---- beside
	# No commit in the way: each writes map blocks and a superblock, 1 s
	# each with the delay, and the worker waits for it.
	tier_msg $DEV commit || fail "beside: commit"
	tier_set $DEV commit_interval_ms 60000
	delay_set $SHIM "$DMT_NVME0" 1000
	# One process, all 16 writes in flight at once: 4 KiB at 4 KiB into
	# each extent from 16 on; fio's runtime leaves its start-up out.
	fio --name=bs --filename=$D --direct=1 --ioengine=libaio --iodepth=16 \
		--rw=write:1020k --bs=4k --offset=$(((16 << 20) + 4096)) --number_ios=16 \
		--buffer_pattern=0x5a --output-format=json >/tmp/bs.json 2>/tmp/bs.err ||
		{ cat /tmp/bs.err; fail "beside: fio"; }
	ms=$(jq '.jobs[0].write.runtime' /tmp/bs.json)
	delay_set $SHIM "$DMT_NVME0" 0
	tier_set $DEV commit_interval_ms 1000
	echo "beside: 16 partial first writes in flight at once, tier writes delayed 1 s: $(fmt_ms "$ms") s"
	expect_eq "$(jq '.jobs[0].write.total_ios' /tmp/bs.json)" 16 "beside: writes"
	[ "$ms" -lt 8000 ] ||
		fail "beside: 16 partial first writes in flight at once took $(fmt_ms "$ms") s: their extents were zeroed one after another"
	head -c 4096 /dev/zero | tr '\0' '\132' >/tmp/p5a
	for i in 16 23 31; do expect_extent $i 4096 /tmp/p5a "beside: vext $i"; done
	expect_eq "$(tier_mapped $DEV 0)" 20 "beside: mapped extents"

	# ---- failed
	# Next-fit allocation: the next new extent is physical extent 20.
	ds=$(le "$DMT_NVME0" $((0x90)) 8)
	[ "$ds" -gt 0 ] || fail "failed: no data_start in tier 0's label"
	shim_load "0 $((ds + 20 * 2048 + 8)) linear $DMT_NVME0 0
$((ds + 20 * 2048 + 8)) 2040 error
$((ds + 21 * 2048)) $((size - ds - 21 * 2048)) linear $DMT_NVME0 $((ds + 21 * 2048))"
	errs=$(jfield $DEV '["tiers"][0]["io_errors"]')
	! partial 40 0 /tmp/p4 || fail "failed: a first write whose zeroing failed succeeded"
	expect_eq "$(tier_mapped $DEV 0)" 20 "failed: mapped extents"
	# One failed write, one error against the tier (it was counted twice:
	# 8 such writes in a row took a tier offline, not 16).
	expect_eq "$(jfield $DEV '["tiers"][0]["io_errors"]')" $((errs + 1)) "failed: tier 0's I/O errors"
	head -c 1M /dev/zero >/tmp/zero
	expect_eq "$(dev_sum $D 1 40)" "$(dev_sum /tmp/zero)" "failed: vext 40 reads as zeroes"
	expect_eq "$(tier_stat $DEV state 0)" degraded "failed: tier 0"
	klog_has "zeroing a new extent on tier 0 failed" || fail "failed: no log of the failed zeroing"
	shim_load "$(delay_table "$DMT_NVME0" 0)"
	bounded 30 "failed: recover" tierctl recover $DEV 0 >/dev/null
	partial 40 0 /tmp/p4 || fail "failed: the first write after recovery"
	expect_extent 40 0 /tmp/p4 "failed: vext 40 after recovery"
	expect_eq "$(tier_stat $DEV state 0)" ok "failed: tier 0 after recovery"
	echo "failed: EIO when the zeroing failed, nothing mapped, tier 0 degraded; recovered"

	# ---- parked
	first=41
	[ $(((first + 16) * 2048)) -le "$(blockdev --getsz $D)" ] || fail "parked: device too small"
	delay_set $SHIM "$DMT_NVME0" 1000
	dbg_param dbg_parks 0
	fio --name=pk --filename=$D --direct=1 --ioengine=libaio --iodepth=8 --rw=write \
		--bs=4k --size=32k --offset=$((first << 20)) --offset_increment=1m --numjobs=16 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --eta=never >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; fail "parked: fio write or verify"; }
	parks=$(cat /sys/module/dm_tier/parameters/dbg_parks)
	delay_set $SHIM "$DMT_NVME0" 0
	echo "parked: 16 extents x 8 writes of 4 KiB at QD8, tier writes delayed 1 s: $parks parks"
	[ "$parks" -gt 0 ] || fail "parked: no write waited for its extent's preparation"
	[ "$parks" -le 112 ] ||
		fail "parked: $parks parks for at most 112 writes that waited: parked bios went round again at other extents' ends"
	expect_eq "$(tier_mapped $DEV 0)" 37 "parked: mapped extents"

	# ---- refused
	shim_load "0 $size linear $DMT_NVME0 0"
	wz=$(cat "/sys/block/$(basename "$(readlink -f /dev/mapper/$SHIM)")/queue/write_zeroes_max_bytes")
	if [ "$wz" -gt 0 ]; then
		[ $((58 * 2048)) -le "$(blockdev --getsz $D)" ] || fail "refused: device too small"
		logged=$(dmesg | grep -c "zeroing a new extent on tier 0 failed")
		dbg_param dbg_zero_refuse 1
		partial 57 8192 /tmp/p4 || fail "refused: a first write whose WRITE ZEROES was refused failed"
		expect_eq "$(cat /sys/module/dm_tier/parameters/dbg_zero_refuse)" 0 "refused: refusals left"
		expect_extent 57 8192 /tmp/p4 "refused: vext 57"
		expect_eq "$(tier_stat $DEV state 0)" ok "refused: tier 0"
		expect_eq "$(dmesg | grep -c "zeroing a new extent on tier 0 failed")" "$logged" "refused: failures logged"
		expect_eq "$(tier_mapped $DEV 0)" 38 "refused: mapped extents"
		echo "refused: a refused WRITE ZEROES was done again by the worker; the write landed"
	else
		echo "refused: not run: the drive has no WRITE ZEROES (write_zeroes_max_bytes 0)"
	fi

	tier_sane $DEV zero-beside
	tierctl remove $DEV
	dmsetup remove --retry $SHIM
	no_kernel_warning zero-beside
	echo "zero-beside: partial first writes zero beside the write, correctly and in parallel"
}
run_guest_phase "$@"

export DMT_DEBUG_MODULE=1
vm --fresh --nvme 64M --timeout 600 -- "$0" main
