#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# dmt: smp
# A FUA write held for a commit must not be submitted to an extent that a
# discard freed in the same worker pass (issue 13, defect 2).
#
# While the map has changes that are not durable, a FUA write to a mapped
# extent goes to the worker, which holds it until its commit. If a discard
# of the same extent comes in the same worker pass, it unmaps the extent;
# the commit then releases the physical extent, and the held write used to
# go to it afterwards: onto free space that the next first write may take.
#
# The module is the debug build: tier_submit() checks (WARN_ON_ONCE) that
# the physical extent it sends a bio to is allocated and not awaiting a
# commit to be freed. The tier sits behind dm-delay (writes 100 ms), a
# stream of partial first writes keeps the map dirty, and each worker pass
# sleeps 100 ms first (dbg_worker_delay_ms), so the FUA write and the
# discard queue up meanwhile and land in one pass. (The stream's zeroing
# once kept the worker busy; it now runs beside the writes, off the
# worker.) DMT_FUA_ROUNDS sets the rounds (default 40).
. "$(dirname "$0")/lib.sh"
DEV=fd
D=/dev/mapper/$DEV
EXT=65536 # bytes per extent (128 sectors)

# 4 KiB at extent E, offset 4 KiB (a partial write); extra dd flags.
put4k() { # extent flags
	dd if=/tmp/blk of=$D bs=4096 seek=$(($1 * 16 + 1)) count=1 conv=notrunc \
		oflag=direct"$2" status=none
}

guest_main() {
	local rounds=${DMT_FUA_ROUNDS:-40} r x=7 next=100 stream fua
	rand_bytes 4096 >/tmp/blk
	delay_dev slow0 "$DMT_NVME0" 100
	tierctl create $DEV --tier /dev/mapper/slow0 --extent-size 64K >/dev/null
	dbg_param dbg_worker_delay_ms 100
	# A FUA write to a mapped extent reaches the worker only while the map
	# has changes that are not durable: keep it busy making them.
	touch /tmp/stream.on
	(
		n=$next
		while [ -e /tmp/stream.on ]; do
			put4k $n ""
			n=$((n + 1))
		done
	) &
	stream=$!
	for r in $(seq "$rounds"); do
		put4k $x ""
		put4k $x ",dsync" &
		fua=$!
		sleep 0.02
		blkdiscard -o $((x * EXT)) -l $EXT $D
		wait $fua || fail "round $r: the FUA write failed"
		[ $((r % 10)) = 0 ] && echo "round $r: $(tier_summary $DEV)"
		if klog_has 'bio sent to tier'; then
			dmesg | grep -B 2 -A 14 'bio sent to tier'
			fail "round $r: a held FUA write went to a freed extent"
		fi
	done
	rm -f /tmp/stream.on
	wait $stream
	dbg_param dbg_worker_delay_ms 0
	tier_sane $DEV fua-discard
	tierctl remove $DEV
	dmsetup remove --retry slow0
	no_kernel_warning fua-discard
	echo "fua-discard: $rounds rounds of FUA write + discard of one extent behind a busy worker, no write to a freed extent"
}
run_guest_phase "$@"

export DMT_DEBUG_MODULE=1
vm --fresh --nvme 64M --timeout 900 -- "$0" main
