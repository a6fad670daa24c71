#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# Power cuts that really lose data: both tiers on null_blk disks with a
# volatile write cache (tools/nullb), cut in the middle of an fsync-heavy fio
# workload on XFS (mounted with -o discard) 20 times. After each cut the
# disks drop whatever was not flushed; dm-tier must come back at its last
# commit with every acknowledged write (fio verify_only with the saved
# verify state) and a filesystem xfs_repair finds clean.
#
# The cut: fio (trigger file) saves its verify state, stops, and runs
# "$0 cut" while a second writer (tests/vm/helpers/ackio.py: O_DSYNC records
# and fsync'd files) keeps going. The tiers sit under dm-linear shims;
# suspending the shims and swapping in the error target stops all I/O at
# once without pulling disks from under the tier target, then the null_blk
# power cycle drops their caches.
. "$(dirname "$0")/lib.sh"
# 20 cuts on Debian's kernel; on the debug kernel, where each costs about
# twice as much, 4 in `make check` and 8 in `make check-long` (test 032
# covers every crash state of a run exhaustively).
CYCLES=${DMT_POWERCUT_CYCLES:-$([ "${DMT_KERNEL:-}" = debug ] && long_or_short 8 4 || echo 20)}

# One fio job, the same in the write and the verify run (fio replays it).
# No verify_backlog: with it, fio 3.33 verify_only ignores the saved state.
fio_job() { # file extra-args...
	fio --name=pc --filename="$1" --size=24m --rw=randwrite --bsrange=4k-64k \
		--ioengine=psync --direct=1 --sync=1 --verify=crc32c \
		--randrepeat=1 --random_generator=tausworthe64 \
		--eta=never --output=/tmp/fio.out "${@:2}"
}

# Run by fio itself when /tmp/cut.flag appears: fio has saved its verify
# state and stopped its job; everything not flushed is about to be lost,
# including what the second writer (ackio) and XFS have in flight.
guest_cut() {
	cp local-pc-0-verify.state /tmp/state/saved.state
	shims_cut hotL:hot0 coldL:cold0
}

restore_power() {
	shims_restore hotL:hot0 coldL:cold0
}

guest_main() {
	local ackio=$TOP/tests/vm/helpers/ackio.py
	"$TOP/tools/nullb" create hot0 96 32
	"$TOP/tools/nullb" create cold0 384 32
	dmsetup create hotL --table "0 $(blockdev --getsz /dev/hot0) linear /dev/hot0 0"
	dmsetup create coldL --table "0 $(blockdev --getsz /dev/cold0) linear /dev/cold0 0"
	tierctl create pc --tier /dev/mapper/hotL --tier /dev/mapper/coldL --extent-size 256K
	mkfs.xfs -q /dev/mapper/pc
	mkdir -p /mnt/pc /tmp/state
	cd /tmp/state
	local c prev= fio_pid ack_pid
	for c in $(seq "$CYCLES"); do
		mount -o discard /dev/mapper/pc /mnt/pc
		if [ -n "$prev" ]; then
			# Everything fio and ackio saw complete before the cut.
			cp saved.state local-pc-0-verify.state
			fio_job "/mnt/pc/$prev" --verify_only=1 --verify_state_load=1 ||
				{ cat /tmp/fio.out; fail "cycle $c: acknowledged fio data lost"; }
			python3 "$ackio" verify /mnt/pc/ack /tmp/state/ack.*.log ||
				fail "cycle $c: acknowledged ackio data lost"
			rm -f "/mnt/pc/$prev" ./*verify.state
			umount /mnt/pc
			xfs_repair -n /dev/mapper/pc >/tmp/repair.log 2>&1 ||
				{ cat /tmp/repair.log; fail "cycle $c: xfs_repair -n"; }
			mount -o discard /dev/mapper/pc /mnt/pc
		fi
		mkdir -p /mnt/pc/ack
		prev=f$c
		rm -f /tmp/cut.flag
		fio_job "/mnt/pc/$prev" --time_based --runtime=60 --verify_state_save=1 \
			--trigger-file=/tmp/cut.flag --trigger="$0 cut" &
		fio_pid=$!
		python3 "$ackio" write /mnt/pc/ack "/tmp/state/ack.$c.log" >/dev/null 2>&1 &
		ack_pid=$!
		sleep $((1 + c % 3)).$((RANDOM % 10))
		touch /tmp/cut.flag
		wait $fio_pid || true
		wait $ack_pid && fail "cycle $c: ackio did not notice the power cut"
		[ -s saved.state ] || fail "cycle $c: fio saved no verify state"
		umount /mnt/pc
		tierctl remove pc >/dev/null
		restore_power
		tierctl activate pc >/dev/null
		echo "cycle $c: cut after $(grep -c . "/tmp/state/ack.$c.log") ackio and $(grep -o 'issued rwts: total=[0-9]*,[0-9]*' /tmp/fio.out | cut -d, -f2) fio writes; reassembled"
	done
	mount /dev/mapper/pc /mnt/pc
	cp saved.state local-pc-0-verify.state
	fio_job "/mnt/pc/$prev" --verify_only=1 --verify_state_load=1 ||
		{ cat /tmp/fio.out; fail "last cycle: acknowledged data lost"; }
	python3 "$ackio" verify /mnt/pc/ack /tmp/state/ack.*.log || fail "last cycle: ackio data lost"
	umount /mnt/pc
	xfs_repair -n /dev/mapper/pc >/dev/null 2>&1 || fail "final xfs_repair -n"
	tierctl remove pc >/dev/null
	echo "$CYCLES power cuts: no acknowledged write lost, xfs_repair clean"
}
run_guest_phase "$@"

vm --mem 2048 -- "$0" main
