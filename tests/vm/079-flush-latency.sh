#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154  # status variables come from tier_eval
# A flush waits for its commit's superblock, not for unrelated slow I/O
# (issue 17, "Flush latency"; docs/ARCHITECTURE.md "A data tier's flush
# fails").
#
# A commit that frees extents (here: a discard) must let every bio of the
# old I/O epoch drain before those extents can be handed out again. That
# wait used to sit between the superblock write and the completion of the
# PREFLUSH that asked for the commit, so an fsync on tier 0 waited for a
# read that happened to be in flight on a slow tier. Tier 1 sits behind
# dm-delay (reads 6 s): after a discard, with one such read in flight, a
# 4 KiB write with fsync on tier 0 must finish well before the read does.
# A latency bound by design (6 s against 3 s), not a performance figure.
# Measured: 153 ms; 5652 ms with the old order (the commit drained the old
# epoch before completing the PREFLUSH). udev's probes are held off during
# the measurement: they read the device through the page cache, which on
# Debian's 6.1.192 holds the block device's i_rwsem for the whole (slow)
# read, and dd's lseek() waits behind it: that cost the first version of
# this test 11.8 s with either order.
. "$(dirname "$0")/lib.sh"
DEV=fl
D=/dev/mapper/$DEV
MIB=1048576

slow1_table() { # read_ms
	local sz
	sz=$(blockdev --getsz "$DMT_NVME1")
	echo "0 $sz delay $DMT_NVME1 0 $1 $DMT_NVME1 0 0"
}

slow1_reads() { # ms
	dmsetup suspend slow1
	dmsetup load slow1 --table "$(slow1_table "$1")"
	dmsetup resume slow1
}

guest_main() {
	local t0 t_read reader fsync_ms read_ms
	dmsetup create slow1 --table "$(slow1_table 0)"
	udevadm settle
	tierctl create $DEV --tier "$DMT_NVME0" --tier /dev/mapper/slow1 --extent-size 1M >/dev/null
	tier_set $DEV auto_migrate 0
	# No periodic commit in between: it would take the discard's frees
	# (and their wait) itself, and the fsync would wait for it.
	tier_set $DEV commit_interval_ms 60000
	rand_bytes 3M >/tmp/data
	dd if=/tmp/data of=$D bs=1M oflag=direct conv=fsync status=none
	rand_bytes 4K >/tmp/blk
	# Extent 0 on the slow tier, 1 and 2 on tier 0.
	tierctl migrate $DEV --range 0:1M --tier 1 --wait >/dev/null || fail "migrate extent 0 to tier 1"
	tier_msg $DEV commit
	tier_eval $DEV
	expect_eq "$mapped1" 1 "extents on tier 1"
	slow1_reads 6000

	# udev probes the device when a writer closes it (blkdiscard, dd):
	# buffered reads of extent 0, on the slow tier, which hold the block
	# device's i_rwsem shared for seconds (Debian's 6.1.192), and every
	# lseek() (dd's) waits behind them. Not what is measured here.
	udevadm settle
	udevadm control --stop-exec-queue
	# Extent 1 freed: the next commit releases it after the old epoch.
	blkdiscard -o $MIB -l $MIB $D
	t_read=$(now_ms)
	dd if=$D of=/dev/null bs=4k count=1 iflag=direct status=none &
	reader=$!
	sleep 0.5
	t0=$(now_ms)
	dd if=/tmp/blk of=$D bs=4k seek=$((2 * 256)) count=1 oflag=direct conv=fsync status=none ||
		fail "the write with fsync failed"
	fsync_ms=$(($(now_ms) - t0))
	wait $reader || fail "the read from tier 1 failed"
	read_ms=$(($(now_ms) - t_read))
	udevadm control --start-exec-queue
	echo "fsync after a discard: $fsync_ms ms, with a read from tier 1 in flight for $read_ms ms"
	[ "$read_ms" -ge 5000 ] || fail "the read from tier 1 took $read_ms ms: dm-delay did not hold it"
	[ "$fsync_ms" -lt 3000 ] ||
		fail "the fsync took $fsync_ms ms: it waited for the slow tier's read (the old I/O epoch)"

	slow1_reads 0
	tier_eval $DEV
	expect_eq "$mapped" 2 "extents mapped after the discard"
	cmp <(dd if=$D bs=1M count=1 iflag=direct status=none) <(head -c $MIB /tmp/data) ||
		fail "extent 0 (tier 1) differs"
	cmp <(dd if=$D bs=4k skip=$((2 * 256)) count=1 iflag=direct status=none) /tmp/blk ||
		fail "the block written with fsync differs"
	tier_sane $DEV flush-latency
	tierctl remove $DEV >/dev/null
	dmsetup remove slow1
	no_kernel_warning flush-latency
	echo "flush latency: a PREFLUSH completes after its superblock, not after the old epoch's I/O"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 128M -- "$0" main
