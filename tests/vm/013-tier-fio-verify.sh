#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# dmt: smp
# Concurrent writers: fio with 4 jobs, random writes with crc32c verification
# over a device whose hot tier is too small for the data (allocation, spill
# and remapping race each other); zero verify errors, also after a
# remove/activate cycle.
. "$(dirname "$0")/lib.sh"

fio_verify() {
	fio --name=v --filename=/dev/mapper/fv --direct=1 --ioengine=libaio \
		--iodepth=8 --numjobs=4 --offset_increment=64m --size=64m \
		--rw=randwrite --bsrange=4k-256k --verify=crc32c \
		--verify_fatal=1 --randrepeat=1 --group_reporting "$@" >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; fail "fio $*"; }
	grep -E 'err= *0|IOPS' /tmp/fio.out | head -n 3
}

guest_main() {
	tierctl create fv --tier "$DMT_NVME0" --tier "$DMT_NVME1" --extent-size 256K
	fio_verify --do_verify=1
	[ "$(jfield fv '["tiers"][1]["used_extents"]')" -gt 0 ] || fail "no spill to tier 1"
	tierctl remove fv
	tierctl activate fv
	fio_verify --verify_only=1
	tierctl remove fv
	echo "4 concurrent writers, zero verify errors"
}
run_guest_phase "$@"

vm --fresh --nvme 96M --nvme 256M -- "$0" main
