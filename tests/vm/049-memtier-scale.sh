#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh
# Creating the memory tier costs time linear in its size (issue 13, defect
# 3): on the bench's CPU-less NUMA node (1200 MiB), at 64 KiB extents, the
# table load with mem_size_mb 1024 (16384 slots) against 256 (4096 slots).
# The pages are allocated up front either way; what must not grow faster
# is giving them to slots, which searched from slot 0 for every frame
# under a spinlock with IRQs off (16384^2 / 2 slot visits). Both times are
# printed; the larger may take at most DMT_MEM_SCALE_RATIO (default 8)
# times the smaller (linear: 4), plus 1 s of slack for noise under TCG.
# A live resize 256 -> 1024 must also work and fill the node.
. "$(dirname "$0")/lib.sh"

# Milliseconds of `dmsetup load` of table $2 into a fresh device $1.
load_ms() { # name table
	local t0 t1
	dmsetup create "$1" --notable || fail "create $1"
	t0=$(date +%s%N)
	dmsetup load "$1" --table "$2" || fail "load of $1 failed: $2"
	t1=$(date +%s%N)
	dmsetup remove "$1" || fail "remove $1"
	echo $(((t1 - t0) / 1000000))
}

guest_main() {
	local node=$DMT_NUMA_NODE tbl t256 t1024 i ratio=${DMT_MEM_SCALE_RATIO:-8}
	tierctl create ms --tier "$DMT_NVME0" --tier "numa:$node:256M" --extent-size 64K \
		>/dev/null || fail "create ms with a 256 MiB memory tier"
	tbl=$(dmsetup table ms)
	[[ $tbl == *"mem_size_mb 256"* ]] || fail "no memory tier in the table: $tbl"
	dmsetup remove ms || fail "remove ms"
	# Once each to warm up, then the best of two of each size.
	load_ms w1 "$tbl" >/dev/null
	t256=999999 t1024=999999
	for i in 1 2; do
		t=$(load_ms s$i "$tbl")
		[ "$t" -lt "$t256" ] && t256=$t
		t=$(load_ms l$i "${tbl/mem_size_mb 256/mem_size_mb 1024}")
		[ "$t" -lt "$t1024" ] && t1024=$t
	done
	echo "table load with a memory tier of 256 MiB: $t256 ms, 1024 MiB: $t1024 ms"
	[ "$t1024" -le $((ratio * t256 + 1000)) ] ||
		fail "1024 MiB took $t1024 ms, more than $ratio x $t256 ms + 1 s: not linear"
	# A live resize to 1024 MiB.
	dmsetup create ms --table "$tbl" || fail "create ms again"
	tier_msg ms set mem_size_mb 1024 || fail "resize to 1024 MiB failed"
	[[ $(dmsetup table ms) == *"mem_size_mb 1024"* ]] || fail "resize not in the table: $(dmsetup table ms)"
	dmsetup remove ms || fail "remove ms"
	echo "memory tier scale: linear enough, live resize to 1024 MiB ok"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --numa-node 1200M --timeout 600 -- "$0" main
