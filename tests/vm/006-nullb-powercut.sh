#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The null_blk power-cut primitive (tools/nullb): after a power 0->1 cycle,
# flushed and FUA data survive while unflushed O_DIRECT writes are gone.
. "$(dirname "$0")/lib.sh"

guest_main() {
	local nb=$TOP/tools/nullb
	"$nb" create pc0 64 32
	[ "$(cat /sys/block/pc0/queue/write_cache)" = "write back" ] || fail "no volatile cache"
	rand_bytes 1M >/tmp/a
	rand_bytes 1M >/tmp/b
	rand_bytes 1M >/tmp/c
	# A: written then flushed. B: FUA (O_DSYNC direct). C: direct, never flushed.
	dd if=/tmp/a of=/dev/pc0 bs=1M seek=0 oflag=direct conv=fsync status=none
	dd if=/tmp/b of=/dev/pc0 bs=1M seek=1 oflag=direct,dsync status=none
	dd if=/tmp/c of=/dev/pc0 bs=1M seek=2 oflag=direct status=none
	"$nb" powercut pc0
	cmp -s /tmp/a <(dd if=/dev/pc0 bs=1M skip=0 count=1 iflag=direct status=none) || fail "flushed data lost"
	cmp -s /tmp/b <(dd if=/dev/pc0 bs=1M skip=1 count=1 iflag=direct status=none) || fail "FUA data lost"
	cmp -s /tmp/c <(dd if=/dev/pc0 bs=1M skip=2 count=1 iflag=direct status=none) && fail "unflushed data survived: the cache is not volatile"
	"$nb" remove pc0
	echo "flushed and FUA data survived, unflushed data was dropped"
}
run_guest_phase "$@"

vm -- "$0" main
