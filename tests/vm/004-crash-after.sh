#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --crash-after kills QEMU without a clean shutdown; the next boot on the same
# drive images finds everything written with O_DIRECT + fsync before the cut.
. "$(dirname "$0")/lib.sh"

guest_write() {
	rand_bytes $((4 << 20)) >/tmp/pattern
	dd if=/tmp/pattern of="$DMT_NVME0" bs=1M oflag=direct conv=fsync status=none
	# /dmt-out is the run directory on the host: the checksum outlives the VM.
	sha256sum </tmp/pattern | cut -d' ' -f1 >/dmt-out/expected
	echo "written and fsync'd; waiting for the power cut"
	sleep 600
}

guest_verify() {
	local got
	got=$(dd if="$DMT_NVME0" bs=1M count=4 iflag=direct status=none | sha256sum | cut -d' ' -f1)
	expect_eq "$got" "$1" "checksum after power cut"
	echo "data survived the power cut"
}
run_guest_phase "$@"

wd=$TOP/build/vm/$TEST_NAME
vm --fresh --nvme 32M --crash-after 3 -- "$0" write || fail "first boot: no power cut (status $?)"
expected=$(cat "$wd/run/expected" 2>/dev/null) || fail "first boot did not record the checksum"
vm --nvme 32M -- "$0" verify "$expected"
