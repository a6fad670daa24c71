#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# dmt: smp
# The I/O-epoch quiesce must not miss a bio (issue 13, defect 1).
#
# A bio that map() remaps is counted in the current I/O epoch; a commit that
# frees extents and each migration batch wait (tier_quiesce_old_io()) until
# every bio that may have read the old map word has completed. A reader that
# read the epoch just before a quiesce advanced it, and counted itself only
# after that quiesce's wait ended, sits in the parity the *next* quiesce does
# not wait for: its write can land on an extent after that quiesce copied it
# away (lost) or on a freed extent.
#
# Debug knobs widen the window (module built with DM_TIER_DEBUG=1): the
# quiesce sleeps after its first grace period (dbg_quiesce_delay_ms), and a
# reader that finds a quiesce running waits between its epoch read and its
# increment until the quiesce is over (dbg_epoch_delay_us, a cap). Tier 1
# sits behind dm-delay (writes take 500 ms), so when a batch promotes half
# the region, a write to the other half that the batch's quiesce let through
# uncounted is still in flight when the next batch copies its extent up.
# fio writes with crc32c verify while `migrate` ping-pongs the region; any
# lost write fails the verify.
# DMT_RACE_SECS sets the fio phase (default 60).
. "$(dirname "$0")/lib.sh"
DEV=qr
D=/dev/mapper/$DEV
ES=512 # sectors per 256 KiB extent
REGION=$((16 * ES)) # 4 MiB: 16 extents, two migration batches of 8

fio_pass() { # seed
	fio --name=qr --filename=$D --direct=1 --ioengine=libaio --iodepth=16 \
		--numjobs=1 --size=4m --rw=randwrite --bsrange=4k-64k \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --randseed="$1" \
		--eta=never >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; echo "during: $(tier_summary $DEV)"; fail "fio pass $1: data lost or corrupt"; }
}

# Ping-pong the region between the tiers until STOP exists.
migrator() { # stop
	local to=1 ok=0 rc
	while [ ! -e "$1" ]; do
		# One request at a time, as before the kernel queued them.
		if [ "$(tier_stat $DEV manual_pending)" != 0 ]; then
			sleep 0.1
			continue
		fi
		rc=$(status_of tier_msg $DEV migrate 0 $REGION $to)
		case $rc in
		0) ok=$((ok + 1)) to=$((1 - to)) ;;
		16) ;;
		*) echo "migrator: status $rc"; exit 1 ;;
		esac
		echo "$ok" >/tmp/migrator
		sleep 0.1
	done
}

guest_main() {
	local secs=${DMT_RACE_SECS:-60} seed=0 t0 mig
	delay_dev slow1 "$DMT_NVME1" 500
	tierctl create $DEV --tier "$DMT_NVME0" --tier /dev/mapper/slow1 \
		--extent-size 256K >/dev/null
	tier_set $DEV migration_inflight 8
	tier_set $DEV auto_migrate 0
	# Tier 0 above its high watermark: the migrate requests run at full
	# pace (8 copies a batch) even though fio keeps the device busy.
	tier_set_wm $DEV 1 0
	dbg_param dbg_quiesce_delay_ms 100
	dbg_param dbg_epoch_delay_us 1500000
	rm -f /tmp/mig.stop /tmp/migrator
	migrator /tmp/mig.stop &
	mig=$!
	t0=$(now_ms)
	while [ $seed -lt 2 ] || [ $(($(now_ms) - t0)) -lt $((secs * 1000)) ]; do
		seed=$((seed + 1))
		fio_pass $seed
		echo "pass $seed: write + verify ok, $(cat /tmp/migrator 2>/dev/null) migrate requests: $(tier_summary $DEV)"
	done
	touch /tmp/mig.stop
	wait $mig || fail "the migrate loop failed"
	tier_wait $DEV 60 "[ \$manual_pending = 0 ] && [ \$in_flight = 0 ]" ||
		fail "migrations still running 60 s after the last request: $(tier_summary $DEV)"
	fio --name=qr --filename=$D --direct=1 --ioengine=libaio --iodepth=16 --size=4m \
		--rw=randwrite --bsrange=4k-64k --verify=crc32c --verify_fatal=1 \
		--verify_only=1 --randseed=$seed --eta=never >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; fail "final verify"; }
	dbg_param dbg_epoch_delay_us 0
	dbg_param dbg_quiesce_delay_ms 0
	tier_eval $DEV
	[ "$((promotions + demotions))" -ge 8 ] || fail "too few moves ($promotions up, $demotions down)"
	tier_sane $DEV quiesce
	tierctl remove $DEV
	dmsetup remove --retry slow1
	no_kernel_warning quiesce
	echo "quiesce: $seed fio passes over $(cat /tmp/migrator) migrate requests ($promotions up, $demotions down), no data lost"
}
run_guest_phase "$@"

export DMT_DEBUG_MODULE=1
vm --fresh --nvme 64M --nvme 128M --timeout 900 -- "$0" main
