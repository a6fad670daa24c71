#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh
# A shrink with memory-tier fills still queued (review of 2026-12-06): a
# 256 MiB device, tier 1 behind dm-delay, a memory tier (numa:NODE:32M,
# one read makes a copy). The last 64 extents are on tier 1; one 4 KiB
# read of each queues 64 fills, which read tier 1 one at a time (0.5 s
# each). While most are still queued, the tail is discarded and the device
# shrunk to 192 MiB: the fill work, paused across the resize with its
# queue kept, goes on over the smaller map. The old code read the map
# word of each queued extent past the new end (KASAN: slab-out-of-bounds
# in tier_mem_fill on the debug kernel); now those entries are dropped.
# Then the device reads and writes, the memory tier fills again, no warning.
. "$(dirname "$0")/lib.sh"
DEV=ms
D=/dev/mapper/$DEV

# copies and fills of $1's memory tier.
mem_copies_fills() { # dev
	dmsetup status "$1" | awk '$3 == "tier" {
		n = $9; m = 10 + 5 * n + 9 + n
		print $(m + 3), $(m + 6) }'
}

guest_main() {
	local v c f f0
	delay_dev slow "$DMT_NVME1" 0
	tierctl create $DEV --tier "$DMT_NVME0" --tier /dev/mapper/slow \
		--tier "numa:$DMT_NUMA_NODE:32M" --size 256M --mem-promote-hits 1 --force >/dev/null
	tier_set $DEV auto_migrate 0
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M seek=192 count=64 oflag=direct status=none ||
		fail "writing the tail"
	tierctl migrate $DEV --range 192M:64M --tier 1 --wait >/dev/null || fail "migrate the tail to tier 1"
	expect_eq "$(tier_mapped $DEV 1)" 64 "extents on tier 1"
	tier_msg $DEV commit || fail "commit"
	read -r _ f0 <<<"$(mem_copies_fills $DEV)"
	[ -n "$f0" ] || fail "no memory tier fields in the status: $(dmsetup status $DEV)"

	delay_set slow "$DMT_NVME1" 0 500
	for v in $(seq 192 255); do
		dd if=$D of=/dev/null bs=4k skip=$((v * 256)) count=1 iflag=direct status=none &
	done
	wait
	read -r c f <<<"$(mem_copies_fills $DEV)"
	echo "queued: 64 reads done, $((f - f0)) fills done so far ($c copies)"
	[ $((f - f0)) -lt 48 ] || fail "the fills were not queued long enough: $((f - f0)) of 64 done"

	blkdiscard -o $((192 << 20)) -l $((64 << 20)) $D || fail "discard of the tail"
	bounded 120 "shrink" tierctl resize $DEV --size 192M >/dev/null || fail "tierctl resize --size 192M"
	expect_eq "$(tier_stat $DEV virt_extents)" 192 "extents after the shrink"
	read -r c f <<<"$(mem_copies_fills $DEV)"
	echo "shrunk: $((f - f0)) fills done ($c copies)"
	# The rest of the queue is dropped at once: nothing left to read.
	sleep 5
	delay_set slow "$DMT_NVME1" 0 0

	# The device still works, and its memory tier fills again.
	dd if=<(rand_bytes) iflag=fullblock of=/tmp/x bs=1M count=4 status=none
	dd if=/tmp/x of=$D bs=1M seek=100 oflag=direct status=none || fail "write after the shrink"
	for v in 1 2 3; do
		expect_eq "$(dev_sum $D 4 100)" "$(dev_sum /tmp/x)" "read $v after the shrink"
	done
	read -r c f <<<"$(mem_copies_fills $DEV)"
	[ "$c" -gt 0 ] || fail "no memory-tier copy after the shrink"
	tier_sane $DEV "after the shrink"
	no_kernel_warning "memory tier shrink"
	tierctl remove $DEV >/dev/null
	dmsetup remove slow
	echo "memtier shrink: queued fills past the new end dropped, device and memory tier work"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 256M --numa-node 64M --timeout 400 -- "$0" main
