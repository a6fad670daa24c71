#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# Whole-VM kills (QEMU SIGKILL; 3 in `make check`, 5 in `make check-long`) in the middle of a workload of
# O_DIRECT|O_DSYNC record writes and fsync'd files on XFS over dm-tier; after
# each, the next boot activates the device by label, XFS recovers, every
# acknowledged write reads back (tests/vm/helpers/ackio.py) and xfs_repair -n
# is clean.
. "$(dirname "$0")/lib.sh"
KILLS=${DMT_CRASH_KILLS:-$(long_or_short 5 3)}
WD=$TOP/build/vm/$TEST_NAME
ACKIO=$TOP/tests/vm/helpers/ackio.py

recover() {
	tierctl activate ck
	mount /dev/mapper/ck /mnt/ck
	python3 "$ACKIO" verify /mnt/ck/w "$WD"/ack.*.log || fail "acknowledged data lost"
	umount /mnt/ck
	xfs_repair -n /dev/mapper/ck >/tmp/repair.log 2>&1 || { cat /tmp/repair.log; fail "xfs_repair -n"; }
}

guest_first() {
	tierctl create ck --tier "$DMT_NVME0" --tier "$DMT_NVME1"
	mkfs.xfs -q /dev/mapper/ck
	mkdir -p /mnt/ck && mount /dev/mapper/ck /mnt/ck && mkdir /mnt/ck/w && umount /mnt/ck
	guest_cycle
}

guest_cycle() {
	mkdir -p /mnt/ck
	[ -e /dev/mapper/ck ] || recover
	mount /dev/mapper/ck /mnt/ck
	python3 "$ACKIO" write /mnt/ck/w /dmt-out/ack.log &
	# The --crash-after countdown starts at the first acknowledged write,
	# not at python's start: on a busy host (two VM tests side by side, the
	# debug kernel) starting python alone can take longer than the countdown.
	wait_for 120 '[ -s /dmt-out/ack.log ]' || fail "the workload acknowledged nothing in 120 s"
	echo "workload running; the power cut comes"
	touch /dmt-out/arm
	wait
	fail "the workload ended before the power cut"
}

guest_last() {
	mkdir -p /mnt/ck
	recover
	tierctl remove ck
	echo "all $KILLS power cuts survived"
}
run_guest_phase "$@"

rm -f "$WD"/ack.*.log
phase=first
for k in $(seq "$KILLS"); do
	# Cut at a different moment each time (metadata commits every second).
	vm $([ $k = 1 ] && echo --fresh) --nvme 96M --nvme 256M --crash-after $((3 + k % 4)) --crash-armed -- "$0" $phase ||
		fail "boot $k: no power cut (status $?)"
	cp "$WD/run/ack.log" "$WD/ack.$k.log" 2>/dev/null || fail "boot $k wrote no log"
	echo "boot $k: $(grep -c . "$WD/ack.$k.log") acknowledged operations before the cut"
	phase=cycle
done
vm --nvme 96M --nvme 256M -- "$0" last
