#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# dmt: smp
# shellcheck source=tests/vm/lib.sh disable=SC2154
# Memory-tier read hits take no lock (issue 17, "Hot paths"): a reader
# holds a reference on its slot, writes drop copies that are being read,
# evictions and shrinks must never take pages a reader holds. On the debug
# kernel (KASAN, lockdep), two vCPUs:
#   race    a device with 64 KiB extents over one NVMe drive and an 8 MiB
#           memory tier (128 slots for 512 extents: evictions all the
#           time), mem_promote_hits 1. Four writers each own 8 MiB and
#           write it three times (new data each round) with crc32c
#           verify: a backlog of recent blocks during the round, every
#           block after it (those reads are hits on copies filled after
#           the writes, or misses). Two readers hammer the whole 32 MiB
#           meanwhile (promotions, hits), and the tier is resized 8 -> 4
#           -> 8 MiB every 2 s. Every verify passes (a stale copy served
#           after a write, or pages reused under a reader, fails one);
#           hits, evictions and invalidations all happened.
#   sane    the map and allocators check, no kernel warning.
# It fails when a write's completion does not drop its extent's copy (a
# stale copy is served to the verify). The reference protocol's own races
# (a drop or eviction under a reader, a look-up that meets a reused slot)
# have windows of nanoseconds here: tests/unit/test_memtier_race.c
# widens them and fails for each.
. "$(dirname "$0")/lib.sh"
DEV=mr
D=/dev/mapper/$DEV

guest_main() {
	local rd_pid rs_pid round c0 h0 m0 f0 e0 i0 c h m f e i
	tierctl create $DEV --tier "$DMT_NVME0" --tier "numa:$DMT_NUMA_NODE:8M" \
		--extent-size 64K --mem-promote-hits 1 >/dev/null
	dmsetup message $DEV 0 set auto_migrate 0
	read -r c0 h0 m0 f0 e0 i0 <<<"$(mem_counts $DEV)"
	[ -n "$i0" ] || fail "race: no memory tier fields in the status: $(dmsetup status $DEV)"
	fio --name=fill --filename=$D --direct=1 --ioengine=libaio --rw=write \
		--bs=1M --size=32M --iodepth=8 --eta=never >/dev/null || fail "race: first fill"

	fio --name=rd --filename=$D --direct=1 --ioengine=libaio --rw=randread \
		--bs=4k --size=32M --iodepth=8 --numjobs=2 --time_based --runtime=3600 \
		--eta=never >/tmp/rd.out 2>&1 &
	rd_pid=$!
	(
		while :; do
			tierctl policy $DEV mem_size_mb=4 >/dev/null || exit 1
			sleep 1
			tierctl policy $DEV mem_size_mb=8 >/dev/null || exit 1
			sleep 1
		done
	) &
	rs_pid=$!
	for round in 1 2 3; do
		fio --name=wr --filename=$D --direct=1 --ioengine=libaio \
			--rw=randwrite --bs=4k --size=8M --offset_increment=8M \
			--numjobs=4 --iodepth=4 --randseed=$((round * 7919)) \
			--verify=crc32c --verify_backlog=32 --verify_fatal=1 \
			--do_verify=1 --eta=never >/tmp/wr.out 2>&1 ||
			{ kill $rd_pid $rs_pid 2>/dev/null; cat /tmp/wr.out; fail "race: round $round: write or verify failed"; }
		echo "race: round $round written and verified; $(mem_counts $DEV) (copies hits misses fills evictions invalidations)"
	done
	kill $rs_pid 2>/dev/null
	wait $rs_pid 2>/dev/null || true
	# fio stops on SIGINT and still prints its report.
	kill -INT $rd_pid 2>/dev/null
	wait $rd_pid 2>/dev/null || true
	grep -q "err= 0" /tmp/rd.out && ! grep -q "err= *[1-9]" /tmp/rd.out ||
		{ cat /tmp/rd.out; fail "race: the readers saw an error"; }
	read -r c h m f e i <<<"$(mem_counts $DEV)"
	echo "race: $((h - h0)) hits, $((m - m0)) misses, $((f - f0)) fills, $((e - e0)) evictions, $((i - i0)) invalidations, $c copies now"
	[ $((h - h0)) -gt 1000 ] || fail "race: only $((h - h0)) hits: the readers did not race the writers on copies"
	[ $((e - e0)) -gt 100 ] || fail "race: only $((e - e0)) evictions"
	[ $((i - i0)) -gt 100 ] || fail "race: only $((i - i0)) invalidations"

	tierctl policy $DEV mem_size_mb=8 >/dev/null
	tier_sane $DEV race
	tierctl remove $DEV
	no_kernel_warning memtier-race
	echo "memtier-race: lockless hits raced writes, evictions and resizes; every block verified"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --numa-node 64M --timeout 900 -- "$0" main
