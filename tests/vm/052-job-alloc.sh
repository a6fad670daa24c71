#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# dmt: smp
# Job allocation must not deadlock under memory pressure (issue 13, defect 4).
#
# Every first write covering a whole extent holds a job (struct tier_job)
# until its write completes; jobs come from a mempool with a reserve of 16
# and are freed only by the worker. With the slab failing (memory pressure),
# a worker that waits in mempool_alloc() for the 17th job waits for itself.
#
# The module is the debug build: dbg_job_fail_every=1 fails every slab
# allocation behind the mempool, so the reserve is all there is. The tier
# sits behind dm-delay (writes 300 ms) and fio sends 32 parallel
# whole-extent first writes, then verifies them (crc32c). It must finish,
# with no hung task, and every block must verify.
. "$(dirname "$0")/lib.sh"
DEV=ja
D=/dev/mapper/$DEV

guest_main() {
	local fio_pid t0 limit=${DMT_JOB_ALLOC_LIMIT:-180}
	echo 30 >/proc/sys/kernel/hung_task_timeout_secs
	delay_dev slow0 "$DMT_NVME0" 300
	tierctl create $DEV --tier /dev/mapper/slow0 --extent-size 64K >/dev/null
	dbg_param dbg_job_fail_every 1
	t0=$(now_ms)
	fio --name=ja --filename=$D --direct=1 --ioengine=libaio --iodepth=32 \
		--rw=write --bs=64k --size=16m --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --eta=never >/tmp/fio.out 2>&1 &
	fio_pid=$!
	if ! wait_for "$limit" "! kill -0 $fio_pid 2>/dev/null"; then
		echo "32 parallel first writes not done after $limit s: $(tier_summary $DEV)"
		echo w >/proc/sysrq-trigger
		sleep 1
		dmesg | grep -E -A 30 'task:.*(kworker|fio)' | grep -E 'task:|mempool|tier_|fio' | head -n 40
		fail "job allocation deadlocked"
	fi
	wait $fio_pid || { cat /tmp/fio.out; fail "fio: write or verify failed"; }
	grep -E 'err= *0' /tmp/fio.out | head -n 2
	echo "256 whole-extent first writes (32 in parallel) with every job slab allocation failing: done and verified in $(fmt_ms $(($(now_ms) - t0))) s"
	dbg_param dbg_job_fail_every 0
	fio --name=ja --filename=$D --direct=1 --ioengine=libaio --iodepth=32 \
		--rw=write --bs=64k --size=16m --verify=crc32c --verify_fatal=1 \
		--verify_only=1 --eta=never >/tmp/fio.out 2>&1 || { cat /tmp/fio.out; fail "verify after"; }
	tier_sane $DEV job-alloc
	tierctl remove $DEV
	dmsetup remove --retry slow0
	no_kernel_warning job-alloc
	echo "job-alloc: no deadlock, no hung task, all data verified"
}
run_guest_phase "$@"

export DMT_DEBUG_MODULE=1
vm --fresh --nvme 64M --timeout 600 -- "$0" main
