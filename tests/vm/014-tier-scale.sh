#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A device of 1M extents (64 GiB of 64 KiB extents on sparse drive images):
# created, written at both ends, activated again with its data. Prints how
# long activation (reading and checking the whole map) and the first full
# commit took: a measurement for docs/PERFORMANCE.md, not a timed assert.
. "$(dirname "$0")/lib.sh"

ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

guest_main() {
	local t n
	tierctl create big --tier "$DMT_NVME0" --tier "$DMT_NVME1" --extent-size 64K >/dev/null
	n=$(jfield big '["virt_extents"]')
	echo "virtual extents: $n"
	[ "$n" -ge $((1 << 20)) ] || fail "expected at least 1M extents, got $n"
	dd if=/dev/urandom of=/tmp/head bs=64k count=16 status=none
	dd if=/tmp/head of=/dev/mapper/big bs=64k oflag=direct conv=fsync status=none
	dd if=/tmp/head of=/dev/mapper/big bs=64k oflag=direct conv=fsync status=none \
		seek=$((n - 16))
	t=$(date +%s%N)
	dmsetup message big 0 commit
	echo "commit after activation (whole inactive map copy): $(ms_since "$t") ms"
	local table
	table=$(dmsetup table big)
	tierctl remove big >/dev/null
	t=$(date +%s%N)
	dmsetup create big --table "$table"
	echo "kernel load of $n extents (dmsetup create: labels, superblock, map, checks): $(ms_since "$t") ms under TCG"
	dmsetup remove big
	t=$(date +%s%N)
	tierctl activate big >/dev/null
	echo "tierctl activate (scan all block devices + the above + udev): $(ms_since "$t") ms under TCG"
	cmp /tmp/head <(dd if=/dev/mapper/big bs=64k count=16 iflag=direct status=none) ||
		fail "head extents differ"
	cmp /tmp/head <(dd if=/dev/mapper/big bs=64k count=16 skip=$((n - 16)) iflag=direct status=none) ||
		fail "tail extents differ"
	expect_eq "$(jfield big '["mapped_extents"]')" 32 "mapped extents"
	tierctl remove big >/dev/null
	echo "1M extents: created, written, activated, data intact"
}
run_guest_phase "$@"

vm --fresh --nvme 48G --nvme 24G -- "$0" main
