#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A device of 1M extents (64 GiB of 64 KiB extents on sparse drive images):
# created, written at both ends, activated again with its data. Prints how
# long activation (reading and checking the whole map) and the first full
# commit took: a measurement for docs/PERFORMANCE.md, not a timed assert.
# The migration's map scan, which shares the ordered workqueue with the I/O
# worker, must cover the map in chunks of 65536 extents, one per tick (its
# dynamic-debug line counts them), not in one pass that holds the worker.
. "$(dirname "$0")/lib.sh"

ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# Sectors written to tier 0 (which holds the metadata) since boot.
written() { awk '{ print $7 }' "/sys/class/block/$(basename "$DMT_NVME0")/stat"; }

# P9: the first commit after activation writes the map blocks that differ
# from the inactive copy, not the whole copy (4642 blocks, 37136 sectors).
first_commit_writes_little() {
	local after t blocks line cur
	blocks=$(( (n + 253) / 254 ))
	# Heat that udev's probes changed may leave a block or two behind.
	line=$(dmesg | grep 'blocks current' | tail -1)
	cur=$(sed -n 's/.*map copy [01]: \([0-9]*\) of \([0-9]*\) blocks current.*/\1 \2/p' <<<"$line")
	[ "${cur#* }" = "$blocks" ] && [ "${cur% *}" -ge $((blocks - 4)) ] ||
		fail "activation should find the inactive map copy current ($blocks blocks): '$line'"
	echo "activation: $line"
	dd if=/tmp/head of=/dev/mapper/big bs=64k count=1 seek=$((n / 2)) oflag=direct status=none
	t=$(date +%s%N)
	dmsetup message big 0 commit
	echo "first commit after activation, one new extent: $(ms_since "$t") ms"
	after=$(written)
	echo "sectors written to tier 0 since activation (one extent of data, every commit): $((after - w0))"
	# 128 data sectors, a few map blocks (8 each) per commit, superblocks.
	[ $((after - w0)) -le 1024 ] ||
		fail "$((after - w0)) sectors written since activation: the whole inactive map copy again?"
}

# The first map scan after activation: a pass over all $n extents in
# ceil(n / 65536) chunks (issue 17: "Map scans walk the whole map").
scan_in_chunks() {
	local line chunks=$(( (n + 65535) / 65536 ))
	wait_for 20 "klog_has 'big: map scan of $n extents'" ||
		fail "no map scan of $n extents logged within 20 s of activation (dynamic debug: $(dmesg | grep -c 'map scan of') lines)"
	line=$(dmesg | grep "big: map scan of $n extents" | tail -n 1)
	[[ $line == *" in $chunks chunks,"* ]] ||
		fail "the map scan should take $chunks chunks of 65536 extents: $line"
	echo "migration: ${line#*: big: }"
}

guest_main() {
	local t n w0
	dm_tier_debug_on
	tierctl create big --tier "$DMT_NVME0" --tier "$DMT_NVME1" --extent-size 64K >/dev/null
	n=$(jfield big '["virt_extents"]')
	echo "virtual extents: $n"
	[ "$n" -ge $((1 << 20)) ] || fail "expected at least 1M extents, got $n"
	dd if=<(rand_bytes) iflag=fullblock of=/tmp/head bs=64k count=16 status=none
	dd if=/tmp/head of=/dev/mapper/big bs=64k oflag=direct conv=fsync status=none
	dd if=/tmp/head of=/dev/mapper/big bs=64k oflag=direct conv=fsync status=none \
		seek=$((n - 16))
	t=$(date +%s%N)
	dmsetup message big 0 commit
	echo "first commit after create (both copies current, two extents): $(ms_since "$t") ms"
	local table
	table=$(dmsetup table big)
	tierctl remove big >/dev/null
	t=$(date +%s%N)
	dmsetup create big --table "$table"
	echo "kernel load of $n extents (dmsetup create: labels, superblock, map, checks): $(ms_since "$t") ms under TCG"
	dmsetup remove --retry big
	sync
	w0=$(written)
	t=$(date +%s%N)
	tierctl activate big >/dev/null
	echo "tierctl activate (scan all block devices + the above + udev): $(ms_since "$t") ms under TCG"
	cmp /tmp/head <(dd if=/dev/mapper/big bs=64k count=16 iflag=direct status=none) ||
		fail "head extents differ"
	cmp /tmp/head <(dd if=/dev/mapper/big bs=64k count=16 skip=$((n - 16)) iflag=direct status=none) ||
		fail "tail extents differ"
	expect_eq "$(jfield big '["mapped_extents"]')" 32 "mapped extents"
	scan_in_chunks
	first_commit_writes_little
	tierctl remove big >/dev/null
	echo "1M extents: created, written, activated, data intact"
}
run_guest_phase "$@"

vm --fresh --nvme 48G --nvme 24G -- "$0" main
