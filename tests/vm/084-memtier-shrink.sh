#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh
# A shrink with memory-tier fills still queued (review of 2026-12-06), on
# the debug module: a 256 MiB device, a memory tier (numa:NODE:32M, one
# read makes a copy), the last 64 extents written. One 4 KiB read of each
# queues 64 fills; the fill work sleeps 1 s after each entry it takes
# (dbg_fill_delay_ms), so most are still queued when the tail is discarded
# and the device shrunk to 192 MiB: the suspend pauses the fill work with
# its queue kept, and after the resume it goes on over the smaller map.
# The old code read the map word of each queued extent past the new end
# (KASAN: slab-out-of-bounds in tier_mem_fill on the debug kernel); now
# those entries are dropped. Then the device reads and writes, the memory
# tier fills again, no warning.
. "$(dirname "$0")/lib.sh"
DEV=ms
D=/dev/mapper/$DEV

guest_main() {
	local v c f f0 left
	tierctl create $DEV --tier "$DMT_NVME0" --tier "numa:$DMT_NUMA_NODE:32M" \
		--size 256M --mem-promote-hits 1 >/dev/null
	tier_set $DEV auto_migrate 0
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M seek=192 count=64 oflag=direct status=none ||
		fail "writing the tail"
	tier_msg $DEV commit || fail "commit"
	read -r _ _ _ f0 _ <<<"$(mem_counts $DEV)"
	[ -n "$f0" ] || fail "no memory tier fields in the status: $(dmsetup status $DEV)"

	dbg_param dbg_fill_delay_ms 1000
	for v in $(seq 192 255); do
		dd if=$D of=/dev/null bs=4k skip=$((v * 256)) count=1 iflag=direct status=none
	done
	blkdiscard -o $((192 << 20)) -l $((64 << 20)) $D || fail "discard of the tail"
	read -r c _ _ f _ <<<"$(mem_counts $DEV)"
	left=$((64 - (f - f0)))
	echo "queued: 64 reads, $((f - f0)) fills done, tail discarded ($c copies)"
	[ "$left" -ge 16 ] || fail "only $left fills left queued before the shrink"
	bounded 200 "shrink" tierctl resize $DEV --size 192M >/dev/null || fail "tierctl resize --size 192M"
	expect_eq "$(tier_stat $DEV virt_extents)" 192 "extents after the shrink"
	echo "shrunk with fills queued"
	dbg_param dbg_fill_delay_ms 0
	sleep 3

	# The device still works, and its memory tier fills again.
	dd if=<(rand_bytes) iflag=fullblock of=/tmp/x bs=1M count=4 status=none
	dd if=/tmp/x of=$D bs=1M seek=100 oflag=direct status=none || fail "write after the shrink"
	for v in 1 2 3; do
		expect_eq "$(dev_sum $D 4 100)" "$(dev_sum /tmp/x)" "read $v after the shrink"
	done
	read -r c _ _ f _ <<<"$(mem_counts $DEV)"
	[ "$c" -gt 0 ] || fail "no memory-tier copy after the shrink"
	tier_sane $DEV "after the shrink"
	no_kernel_warning "memory tier shrink"
	tierctl remove $DEV >/dev/null
	echo "memtier shrink: queued fills past the new end dropped, device and memory tier work"
}
run_guest_phase "$@"

export DMT_DEBUG_MODULE=1
vm --fresh --nvme 384M --numa-node 64M --timeout 600 -- "$0" main
