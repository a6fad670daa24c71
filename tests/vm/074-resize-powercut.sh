#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: spare
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154
# Power cuts in the middle of tierctl resize: two null_blk disks with a
# volatile write cache (tools/nullb) under dm-linear shims; tier 1's shim
# maps only part of its disk, so that it can grow. Cut (all I/O fails at
# once, then every unflushed write is lost) at each step:
#   tier  tier 1's device grew: with the same table reloaded (growth
#         prepared) but not resumed; after the kernel's commit
#         (TIERCTL_TEST_STOP=commit: label not rewritten)
#   virt  with a longer table loaded but not resumed; after the commit
#   both  tier 1 and the virtual size together, after the commit
#   shrink after the commit (map room reserved by create --max-size), then
#         grown again: a map block left beyond the end by the shrink reads
#         as unmapped, not as the mapping it had before
# Before the commit the device activates with the old size, after it with
# the new one (a label with the old size is a hint), the data written
# before is intact, data written to the new space and flushed survives a
# cut, and running the command again completes it (labels rewritten).
. "$(dirname "$0")/lib.sh"
DEV=pc
D=/dev/mapper/$DEV
COLD_LEN=128 # MiB of cold0 that coldL maps

sha_dev() { # MiB [offset-MiB]
	dev_sum $D "$1" "${2:-0}"
}

shims_up() {
	dmsetup load hotL --table "0 $(blockdev --getsz /dev/hot0) linear /dev/hot0 0"
	dmsetup load coldL --table "0 $((COLD_LEN * 2048)) linear /dev/cold0 0"
	dmsetup resume hotL
	dmsetup resume coldL
}

grow_cold() { # MiB
	COLD_LEN=$1
	dmsetup suspend coldL
	dmsetup load coldL --table "0 $((COLD_LEN * 2048)) linear /dev/cold0 0"
	dmsetup resume coldL
}

# Cut the power, deactivate, power on, activate.
power_cut() { # what
	shims_cut hotL:hot0 coldL:cold0
	tierctl remove $DEV >/dev/null 2>&1 || dmsetup remove --force $DEV >/dev/null 2>&1 || true
	shims_up
	tierctl activate $DEV >/tmp/act.out 2>/tmp/act.err ||
		{ cat /tmp/act.err; dmesg | tail -20; fail "$1: activate after the cut"; }
	expect_eq "$(sha_dev 24)" "$SUM" "$1: data after the cut"
}

total1() { tier_stat $DEV total 1; }
label_nr1() { le /dev/mapper/coldL $((0x98)) 8; }
size_mib() { echo $(($(blockdev --getsize64 $D) >> 20)); }
reload_len() { # MiB: the live table with another length, loaded only
	dmsetup reload $DEV --table "0 $(($1 * 2048)) tier $(dmsetup table $DEV | cut -d' ' -f4-)"
}

guest_main() {
	head -c 16M /dev/zero >/tmp/zero16
	"$TOP/tools/nullb" create hot0 96 32
	"$TOP/tools/nullb" create cold0 512 32
	dmsetup create hotL --table "0 $(blockdev --getsz /dev/hot0) linear /dev/hot0 0"
	dmsetup create coldL --table "0 $((COLD_LEN * 2048)) linear /dev/cold0 0"
	tierctl create $DEV --tier /dev/mapper/hotL --tier /dev/mapper/coldL --extent-size 1M --size 128M --max-size 600M >/dev/null
	rand_bytes $((24 << 20)) >/tmp/data
	dd if=/tmp/data of=$D bs=1M oflag=direct conv=fsync status=none
	SUM=$(dev_sum /tmp/data)
	expect_eq "$(total1)" 127 "tier 1 at creation"

	# tier, cut with the table loaded (growth prepared): the old size.
	grow_cold 256
	dmsetup reload $DEV --table "$(dmsetup table $DEV)"
	power_cut "tier/load"
	expect_eq "$(total1)" 127 "tier/load: tier 1"
	expect_eq "$(label_nr1)" 127 "tier/load: tier 1's label"
	echo "tier growth, cut with the table loaded: the old size (127 extents)"

	# tier, cut after the commit: the new size, the label's old size a hint.
	TIERCTL_TEST_STOP=commit tierctl resize $DEV 2>/dev/null
	power_cut "tier/commit"
	expect_eq "$(total1)" 255 "tier/commit: tier 1"
	expect_eq "$(label_nr1)" 127 "tier/commit: tier 1's label not rewritten yet"
	expect_status 0 "1 labels rewritten" tierctl resize $DEV
	expect_eq "$(label_nr1)" 255 "tier/commit: tier 1's label after resize again"
	tierctl remove $DEV >/dev/null
	expect_status 0 "clean" tierctl check $DEV
	tierctl activate $DEV >/dev/null
	echo "tier growth, cut after the commit: the new size (255 extents); resize again rewrote the label"

	# virt, cut with the longer table loaded: the old size.
	reload_len 200
	power_cut "virt/load"
	expect_eq "$(size_mib)" 128 "virt/load: virtual size"
	expect_eq "$(tier_stat $DEV virt_extents)" 128 "virt/load: virt_extents"
	echo "virtual growth, cut with the table loaded: 128 MiB"

	# virt, cut after the commit: the new size.
	TIERCTL_TEST_STOP=commit tierctl resize $DEV --size 200M 2>/dev/null
	power_cut "virt/commit"
	expect_eq "$(size_mib)" 200 "virt/commit: virtual size"
	expect_status 0 "virtual size 209715200 bytes" tierctl resize $DEV --size 200M
	# Data in the new space, flushed, survives a cut.
	rand_bytes $((16 << 20)) >/tmp/data2
	dd if=/tmp/data2 of=$D bs=1M seek=180 oflag=direct conv=fsync status=none
	power_cut "virt/new data"
	expect_eq "$(sha_dev 16 180)" "$(dev_sum /tmp/data2)" "virt: data in the new space after a cut"
	echo "virtual growth, cut after the commit: 200 MiB; 16 MiB written there survived a cut"

	# Both at once (tier 1 grows again, and the size), cut after the commit.
	grow_cold 512
	TIERCTL_TEST_STOP=commit tierctl resize $DEV --size 250M 2>/dev/null
	power_cut "both/commit"
	expect_eq "$(size_mib)" 250 "both/commit: virtual size"
	expect_eq "$(total1)" 511 "both/commit: tier 1"
	expect_eq "$(sha_dev 16 180)" "$(dev_sum /tmp/data2)" "both: data in the new space"
	tierctl resize $DEV >/dev/null
	expect_eq "$(label_nr1)" 511 "both/commit: tier 1's label after resize again"
	echo "tier and virtual growth together, cut after the commit: both new"

	# shrink, cut after the commit, grow again: map block 1 (extents
	# 254..507) held mapped entries before the shrink; it must read as
	# unmapped after the growth (zeroes), not as the old mapping.
	expect_status 0 "virtual size 419430400 bytes" tierctl resize $DEV --size 400M
	rand_bytes $((16 << 20)) >/tmp/data3
	dd if=/tmp/data3 of=$D bs=1M seek=300 oflag=direct conv=fsync status=none
	expect_eq "$(sha_dev 16 300)" "$(dev_sum /tmp/data3)" "shrink: data at 300 MiB"
	blkdiscard -o $((300 << 20)) -l $((16 << 20)) $D
	TIERCTL_TEST_STOP=commit tierctl resize $DEV --size 200M 2>/dev/null
	power_cut "shrink/commit"
	expect_eq "$(size_mib)" 200 "shrink/commit: virtual size"
	expect_eq "$(sha_dev 16 180)" "$(dev_sum /tmp/data2)" "shrink: data below the new end"
	expect_status 0 "virtual size 419430400 bytes" tierctl resize $DEV --size 400M
	expect_eq "$(sha_dev 16 300)" "$(dev_sum /tmp/zero16)" "grown again: the discarded range reads zeroes"
	dmsetup message $DEV 0 commit
	power_cut "grown again"
	expect_eq "$(sha_dev 16 300)" "$(dev_sum /tmp/zero16)" "grown again, after a cut: zeroes"
	echo "shrink to 200 MiB cut after the commit, grown to 400 MiB: the range discarded before reads zeroes"
	tier_sane $DEV final
	tierctl remove $DEV >/dev/null
	expect_status 0 "clean" tierctl check $DEV
	no_kernel_warning "resize power cuts"
	echo "check clean"
}
run_guest_phase "$@"

vm --mem 2048 -- "$0" main
