#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh
# A persistent memory tier. The guest boots with memmap=64M!1G, so 64 MiB
# of its RAM at 1 GiB is a legacy e820 pmem range: nd_e820 + nd_pmem give
# /dev/pmem0, the block device a CXL pmem region (or an NVDIMM) also gives.
#   create    /dev/pmem0 as tier 0 over an NVMe tier 1: class pmem, durable,
#             in create's output, status (text and JSON), the label
#   data      XFS, files spill from pmem to NVMe, checksums
#   activate  remove + activate by label: the class comes back from the
#             label, the data intact
. "$(dirname "$0")/lib.sh"
DEV=pm
D=/dev/mapper/$DEV
MNT=/mnt/pm

guest_main() {
	modprobe nd_e820 2>/dev/null || true
	modprobe nd_pmem 2>/dev/null || true
	udevadm settle
	[ -b /dev/pmem0 ] || skip "no /dev/pmem0 (memmap= pmem needs nd_e820 and nd_pmem)"
	echo "pmem0: $(blockdev --getsize64 /dev/pmem0) bytes ($(basename "$(readlink -f /sys/block/pmem0/device)"))"

	tierctl create $DEV --tier /dev/pmem0 --tier "$DMT_NVME0" | tee /tmp/create.out
	grep -Eq 'tier 0 +/dev/pmem0 +pmem' /tmp/create.out || fail "create does not show tier 0 as pmem"
	expect_eq "$(jfield $DEV '["tiers"][0]["class"]')" pmem "class of tier 0"
	expect_eq "$(jfield $DEV '["tiers"][0]["durable"]')" True "tier 0 durable"
	expect_eq "$(jfield $DEV '["tiers"][1]["class"]')" nvme "class of tier 1"
	tierctl status $DEV | grep -Eq '^ +0 +/dev/pmem0 +pmem +yes' ||
		{ tierctl status $DEV; fail "status text does not show tier 0 as durable pmem"; }

	mkfs.xfs -q $D
	mkdir -p $MNT && mount $D $MNT
	write_files $MNT 6 16 # 96 MiB: more than the 64 MiB pmem tier holds
	umount $MNT
	[ "$(tier_mapped $DEV 1)" -gt 0 ] || fail "nothing spilled to tier 1: $(tier_summary $DEV)"
	tier_sane $DEV "after the writes"
	echo "data: $(tier_summary $DEV)"

	tierctl remove $DEV >/dev/null
	tierctl activate $DEV >/dev/null
	expect_eq "$(jfield $DEV '["tiers"][0]["class"]')" pmem "class of tier 0 after activate"
	mount $D $MNT && check_files $MNT && umount $MNT
	tier_sane $DEV "after activate"
	tierctl remove $DEV >/dev/null
	echo "pmem: labelled and shown as class pmem, durable; data intact across remove/activate"
}
run_guest_phase "$@"

vm --fresh --nvme 256M --append 'memmap=64M!1G' -- "$0" main
