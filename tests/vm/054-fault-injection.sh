#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# dmt: smp
# Fault injection (issue 13): the kernel's own injectors, aimed at one tier's
# bios and at the module's allocations, under verified workloads. Expected:
# errors reported, no splat, no hang, nothing acknowledged lost. One boot of
# the debug kernel (FAULT_INJECTION, FAIL_MAKE_REQUEST, FAILSLAB), with
# `slub_debug=A,tier_job,tier_copy_buf` on the command line: in 6.1 a cache's
# /sys/kernel/slab/<cache>/failslab is read-only, so the flag is set at boot
# for dm-tier's job cache (KMEM_CACHE(tier_job), behind the job mempool) and
# for the migration copier's buffers (kernel/dm-tier-copy.c: one kept, more
# allocated while copies need them, GFP_NOIO without retries); failslab's
# cache-filter then confines the failures to them.
#
# Device finj: tier 0 on one NVMe drive (128M), tier 1 on another (256M), 1 MiB
# extents, used raw. Tier 1 holds A's second half and B's first half (fio
# reads B in order and under TCG may not get far in SECS). Regions (MiB): A = [0,32) ackio's 512 slots of 64 KiB
# (tests/vm/helpers/ackio.py: O_DIRECT|O_DSYNC records, each logged only once
# acknowledged; DIR/slots is a symlink to the device), B = [64,128) fio
# crc32c blocks, C = [160,224) new extents for step 2.
#
#   bio     half of A and half of B are migrated to tier 1, then
#           fail_make_request fails a share of tier 1's bios
#           (/sys/block/<tier 1>/make-it-fail) while ackio writes records
#           (EIO counted, never logged) and fio re-reads B with
#           --verify_only --continue_on_error=io: an I/O error is allowed,
#           a read that succeeds must verify. Expected: EIOs reach the
#           workload, tier 1 is degraded with io_errors > 0 (tierctl status,
#           dmsetup status); after make-it-fail 0, `tierctl recover finj 1`
#           makes it ok; remove + activate (a failed flush of tier 1 during a
#           commit may have made the metadata read-only: reported, then
#           cleared by the reload); every acknowledged record and every
#           block of B verify.
#   slab    failslab (cache-filter, ignore-gfp-wait N) fails a share of the
#           tier_job and tier_copy_buf slab allocations while: ackio writes to
#           A after a discard (every record a first write to an extent),
#           fio writes C (whole-extent and partial first writes) with
#           crc32c verify, `migrate` ping-pongs B between the tiers (by
#           message and by tierctl over netlink) and tierctl sends
#           status/policy/where requests. Expected: failures absorbed
#           (mempool reserve, requeue, next migration tick), nothing failed
#           by them, all migrations done after injection stops; every
#           acknowledged record, C and B verify, also after remove+activate.
#   self    the checks can fail: a zeroed acknowledged record fails ackio
#           verify, an overwritten block of C fails fio's verify.
#
# Prints the injected counts (from the injectors' `times` counters), the
# EIOs the workload saw and the records verified. DMT_FI_SECS sets the
# injection time of each step (default 20 s); DMT_FI_PROB the percentages
# (default "10 50": fail_make_request, failslab); DMT_FI_NO_RECOVER=1 leaves
# out `tierctl recover` (the test must then fail).
. "$(dirname "$0")/lib.sh"
DEV=finj
D=/dev/mapper/$DEV
MB=2048 # sectors per MiB (= per extent)
DBG=/sys/kernel/debug
ACKIO=$TOP/tests/vm/helpers/ackio.py
SECS=${DMT_FI_SECS:-20}
read -r P_BIO P_SLAB <<<"${DMT_FI_PROB:-10 50}"
TIMES=1000000

# fio over B ([64M,128M), 64 KiB blocks, crc32c), or over C (two jobs).
fio_b() {
	fio --name=b --filename=$D --direct=1 --ioengine=libaio --iodepth=8 \
		--offset=64m --size=64m --bs=64k --rw=write --verify=crc32c \
		--eta=never "$@"
}
fio_c() {
	fio --filename=$D --direct=1 --ioengine=libaio --iodepth=8 \
		--verify=crc32c --verify_fatal=1 --randrepeat=1 --eta=never "$@" \
		--name=whole --offset=160m --size=32m --bs=1m --rw=write \
		--name=part --offset=192m --size=32m --bs=16k --rw=randwrite
}
# Re-read B with verify until SECS passed (at least once): an I/O error is
# counted (fio's "errors: total="), a block that reads but does not verify
# fails the pass. Status: the number of failed passes.
fio_reread() {
	local end=$(($(now_ms) + SECS * 1000)) n=0 bad=0 rc
	while [ $n = 0 ] || [ "$(now_ms)" -lt "$end" ]; do
		n=$((n + 1))
		rc=0
		fio_b --verify_only=1 --continue_on_error=io --verify_fatal=1 || rc=$?
		echo "pass $n: status $rc"
		if [ $rc != 0 ] || grep -qiE 'verify: bad|verify failed|mismatch' /tmp/fio1.out; then
			bad=$((bad + 1))
		fi
	done
	return $bad
}
migrate_wait() { # what tier count secs
	tier_wait $DEV "$4" "[ \$manual_pending = 0 ] && [ \$in_flight = 0 ] && [ \$mapped$2 -ge $3 ]" ||
		fail "$1: migrate not done after $4 s: $(tier_summary $DEV)"
}
# Injected failures so far: what the `times` counter lost since TIMES.
injected() { echo $((TIMES - $(cat "$DBG/$1/times"))); }
fi_setup() { # injector probability
	local d=$DBG/$1
	echo 0 >"$d/probability"
	echo 1 >"$d/interval"
	echo $TIMES >"$d/times"
	echo 0 >"$d/space"
	echo 1 >"$d/verbose"
	echo N >"$d/task-filter"
	echo "$2" >"$d/probability"
}
acked() { grep -c '^S ' "$1" || true; }
jnum() { jfield $DEV "$1"; }

guest_main() {
	echo 60 >/proc/sys/kernel/hung_task_timeout_secs
	mountpoint -q $DBG || mount -t debugfs debugfs $DBG
	[ -d $DBG/fail_make_request ] && [ -d $DBG/failslab ] ||
		skip "kernel $(uname -r) has no fail_make_request/failslab (boot the debug kernel)"
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" >/dev/null
	tier_set $DEV auto_migrate 0
	step_bio
	step_slab
	step_self
	tierctl remove $DEV
	no_kernel_warning fault-injection
	echo "fault-injection: errors reported, no splat, no hang, nothing acknowledged lost"
}

step_bio() {
	local t0 t1 disk ack_pid fio_pid rc fio_err eio inj st mode nrec passes
	t0=$(now_ms)
	disk=$(basename "$(readlink -f "$DMT_NVME1")")
	[ -w "/sys/block/$disk/make-it-fail" ] || fail "no /sys/block/$disk/make-it-fail"
	# A and B mapped on tier 0, then their second halves moved to tier 1.
	dd if=/dev/zero of=$D bs=1M count=32 oflag=direct status=none
	fio_b --do_verify=1 --verify_fatal=1 >/tmp/fio.out 2>&1 || { cat /tmp/fio.out; fail "bio: writing B"; }
	tier_msg $DEV migrate $((16 * MB)) $((16 * MB)) 1 || fail "bio: migrate A/2"
	migrate_wait "bio: A/2 to tier 1" 1 16 120
	tier_msg $DEV migrate $((64 * MB)) $((32 * MB)) 1 || fail "bio: migrate B/2"
	migrate_wait "bio: B/2 to tier 1" 1 48 120
	# Commit the moves now: their commit flushes tier 1, and a flush that
	# failed under the injection would take tier 1 offline at once (a
	# failed flush is a path loss, "Faults"), before fio read anything.
	tier_msg $DEV commit || fail "bio: commit after the moves"
	echo "bio: $(tier_summary $DEV)"
	mkdir -p /tmp/a && ln -sfn $D /tmp/a/slots
	rm -f /dmt-out/ack1.log

	# fio reads B first: the injection starts once its reads reach tier 1.
	# Otherwise ackio's first writes to tier-1 extents and their commit's
	# flush can be the failures that take tier 1 offline before any read,
	# and the reads this step is about would all fail fast, unsent.
	local reads0
	reads0=$(tier_stat $DEV reads 1)
	fio_reread >/tmp/fio1.out 2>&1 &
	fio_pid=$!
	wait_for 30 "[ \$(tier_stat $DEV reads 1) -gt $reads0 ]" || fail "bio: fio did not start reading tier 1 in 30 s"
	# Inject: a share of every bio to tier 1's disk fails (flushes too).
	fi_setup fail_make_request "$P_BIO"
	echo 1 >"/sys/block/$disk/make-it-fail"
	t1=$(now_ms)
	ACKIO_FILES=0 ACKIO_EIO=1 timeout $((SECS + 60)) python3 "$ACKIO" write /tmp/a /dmt-out/ack1.log "$SECS" \
		>/tmp/ack1.out 2>&1 &
	ack_pid=$!
	rc=0
	wait_bounded $((SECS + 120)) "bio: fio under fail_make_request" $fio_pid || rc=$?
	cp /tmp/fio1.out /dmt-out/fio1.out
	[ $rc = 0 ] || { tail -n 40 /tmp/fio1.out; fail "bio: fio verify under injection: $rc passes failed (a read that succeeded returned wrong data?)"; }
	rc=0
	wait $ack_pid || rc=$?
	[ $rc = 0 ] || { cat /tmp/ack1.out; fail "bio: ackio writer exited $rc"; }
	echo 0 >"/sys/block/$disk/make-it-fail"
	echo 0 >$DBG/fail_make_request/probability
	inj=$(injected fail_make_request)
	fio_err=$(awk -F'total=' '/errors *: total=/ { split($2, a, ","); n += a[1] } END { print n + 0 }' /tmp/fio1.out)
	passes=$(grep -c '^pass' /tmp/fio1.out || true)
	eio=$(sed -n 's/.*, \([0-9]*\) failed with EIO.*/\1/p' /tmp/ack1.out)
	nrec=$(acked /dmt-out/ack1.log)
	echo "bio: ${SECS}s at $P_BIO% on $disk: $inj bios failed by fail_make_request; ackio: $nrec acknowledged, ${eio:-?} EIO; fio: $passes verify passes over B, $fio_err reads failed with EIO, no mismatch"

	# Reported: to the workload, in the tier's health, in the kernel log.
	[ "$inj" -gt 0 ] || fail "bio: fail_make_request injected nothing"
	[ $((${fio_err:-0} + ${eio:-0})) -gt 0 ] || fail "bio: no EIO reached the workload"
	[ "$nrec" -gt 0 ] || fail "bio: no write was acknowledged"
	st=$(dmsetup status $DEV)
	echo "bio: dmsetup status: $st"
	[ "$(tier_stat $DEV reads 1)" -gt 0 ] || fail "bio: fio read nothing from tier 1"
	echo "bio: I/Os sent to tier 1 (including failed ones): $(tier_stat $DEV reads 1) reads, $(tier_stat $DEV writes 1) writes"
	# Degraded, or offline when a flush failed or errors came in a row.
	case $(tier_stat $DEV state 1) in degraded | offline) ;; *) fail "bio: tier 1 not degraded or offline after $inj failed bios" ;; esac
	[ "$(tier_stat $DEV state 0)" = ok ] || fail "bio: tier 0 degraded, only tier 1 failed"
	[ "$(jnum '["tiers"][1]["io_errors"]')" -gt 0 ] || fail "bio: tierctl status shows no io_errors on tier 1"
	[ "$(jnum '["tiers"][0]["io_errors"]')" = 0 ] || fail "bio: io_errors on tier 0"
	dmesg >/tmp/dmesg.txt
	# The change of state and its cause are logged, never rate limited.
	# The first failure may be a bio ("I/O error on tier 1" too) or the
	# flush of a commit, which takes the tier offline at once, so that no
	# bio reaches it afterwards (CI saw that once).
	grep -E "tier 1 \(.*\) now (degraded|offline) after" /tmp/dmesg.txt ||
		fail "bio: no 'tier 1 (...) now degraded|offline after ...' in the kernel log"
	echo "bio: tier 1 $(tier_stat $DEV state 1), io_errors $(jnum '["tiers"][1]["io_errors"]') (tierctl status)"

	# Recover: the tier, then a reload (clears a read-only metadata mode).
	if [ "${DMT_FI_NO_RECOVER:-0}" != 1 ]; then
		bounded 30 "bio: tierctl recover" tierctl recover $DEV 1
	fi
	[ "$(tier_stat $DEV state 1)" = ok ] || fail "bio: tier 1 still $(tier_stat $DEV state 1) after recovery"
	mode=$(tier_stat $DEV mode)
	echo "bio: tier 1 ok after tierctl recover; metadata mode $mode before the reload"
	bounded 60 "bio: remove" tierctl remove $DEV
	bounded 60 "bio: activate" tierctl activate $DEV >/dev/null
	tier_sane $DEV "bio: after activate"
	tier_set $DEV auto_migrate 0
	bounded 300 "bio: ackio verify" python3 "$ACKIO" verify /tmp/a /dmt-out/ack1.log >/tmp/v1.out 2>&1 ||
		{ head -n 20 /tmp/v1.out; fail "bio: acknowledged records lost"; }
	tail -n 1 /tmp/v1.out
	fio_b --verify_only=1 --verify_fatal=1 >/tmp/fio.out 2>&1 || { cat /tmp/fio.out; fail "bio: B no longer verifies"; }
	echo "bio: $nrec acknowledged records and all of B (1024 blocks) verify after recovery ($(fmt_ms $(($(now_ms) - t1))) s with injection and after, step $(fmt_ms $(($(now_ms) - t0))) s)"
}

step_slab() {
	local t0 c f ack_pid fio_pid nl_pid rc inj_job nrec i ok=0 bad=0 moves=0 busy=0 tier
	t0=$(now_ms)
	for c in tier_job tier_copy_buf; do
		f=/sys/kernel/slab/$c/failslab
		[ "$(cat $f 2>/dev/null)" = 1 ] || fail "slab: $f is not 1 (slub_debug=A,$c not applied)"
	done
	# Every ackio record a first write: A's extents unmapped.
	blkdiscard -o 0 -l 32M $D
	tier_wait $DEV 30 "[ \$mapped = 64 ]" || fail "slab: A not unmapped: $(tier_summary $DEV)"
	rm -f /dmt-out/ack2.log
	tier_set $DEV auto_migrate 1

	fi_setup failslab "$P_SLAB"
	echo Y >$DBG/failslab/cache-filter
	echo N >$DBG/failslab/ignore-gfp-wait
	ACKIO_FILES=0 timeout $((SECS + 60)) python3 "$ACKIO" write /tmp/a /dmt-out/ack2.log "$SECS" >/tmp/ack2.out 2>&1 &
	ack_pid=$!
	fio_c --do_verify=1 >/tmp/fio2.out 2>&1 &
	fio_pid=$!
	# Netlink and messages: migrate B back and forth, status/policy/where.
	(
		end=$(($(now_ms) + SECS * 1000)) i=0
		while [ "$(now_ms)" -lt "$end" ]; do
			tier=$((i % 2))
			r=0
			if [ "$(tier_stat $DEV manual_pending)" != 0 ]; then
				# One request at a time: the kernel would queue 32.
				r=16
			elif [ $((i % 4)) -lt 2 ]; then
				tier_msg $DEV migrate $((64 * MB)) $((64 * MB)) $tier 2>/tmp/mg.err || r=$?
			else
				# The move queue full: exit 1, "queue is full".
				tierctl migrate $DEV --range 64M:64M --tier $tier >/dev/null 2>/tmp/mg.err || r=$?
				[ $r != 1 ] || ! grep -q 'queue is full' /tmp/mg.err || r=16
			fi
			case $r in 0) echo move ;; 16) echo busy ;; *) echo "bad migrate $r: $(cat /tmp/mg.err)" ;; esac
			for cmd in "status $DEV --json" "policy $DEV" "where $DEV --range 0:224M" "status $DEV"; do
				if tierctl $cmd >/dev/null 2>/tmp/nl.err; then echo ok; else echo "bad $cmd: $(cat /tmp/nl.err)"; fi
			done
			i=$((i + 1))
			sleep 1
		done
	) >/tmp/nl.out 2>&1 &
	nl_pid=$!
	wait_bounded $((SECS + 120)) "slab: netlink/migrate loop" $nl_pid || fail "slab: request loop"
	rc=0
	wait $ack_pid || rc=$?
	[ $rc = 0 ] || { cat /tmp/ack2.out; fail "slab: ackio writer exited $rc"; }
	rc=0
	wait_bounded 300 "slab: fio under failslab" $fio_pid || rc=$?
	[ $rc = 0 ] || { cat /tmp/fio2.out; fail "slab: fio write+verify of C exited $rc"; }
	echo 0 >$DBG/failslab/probability
	inj_job=$(injected failslab)
	ok=$(grep -c '^ok' /tmp/nl.out || true)
	moves=$(grep -c '^move' /tmp/nl.out || true)
	busy=$(grep -c '^busy' /tmp/nl.out || true)
	bad=$(grep -c '^bad' /tmp/nl.out || true)
	nrec=$(acked /dmt-out/ack2.log)
	grep -E 'err=' /tmp/fio2.out | head -n 2
	echo "slab: ${SECS}s at $P_SLAB%: $inj_job tier_job/tier_copy_buf allocations failed by failslab; ackio $(tail -n 1 /tmp/ack2.out); fio C written and verified; $moves migrate requests accepted, $busy busy; $ok netlink requests ok, $bad failed"
	[ "$bad" = 0 ] || { grep '^bad' /tmp/nl.out | head; fail "slab: requests failed"; }
	[ "$inj_job" -gt 0 ] || fail "slab: failslab injected nothing into tier_job/tier_copy_buf"
	[ "$nrec" -gt 0 ] || fail "slab: no write was acknowledged"
	[ "$moves" -gt 0 ] || fail "slab: no migrate request accepted"

	# Injection off: migrations finish, data verifies, also after a reload.
	tier_set $DEV auto_migrate 0
	tier_wait $DEV 180 "[ \$manual_pending = 0 ] && [ \$in_flight = 0 ]" ||
		fail "slab: migrations not done 180 s after injection: $(tier_summary $DEV)"
	echo "slab: $(tier_summary $DEV)"
	tier_sane $DEV "slab: after injection"
	# Manual requests stopped by a full tier 0 ("tier 0 is full") end
	# failed (ENOSPC) without counting as migration errors; no copy failed.
	dmesg >/tmp/dmesg.txt
	! grep -m 3 "copy failed" /tmp/dmesg.txt || fail "slab: a migration copy failed under allocation failures"
	echo "slab: migration errors $(tier_stat $DEV migration_errors): $(grep -c 'is full' /tmp/dmesg.txt || true) manual requests stopped by a full tier, no copy failed"
	[ "$(tier_stat $DEV state 0)" = ok ] && [ "$(tier_stat $DEV state 1)" = ok ] ||
		fail "slab: a tier degraded by allocation failures"
	for i in 1 2; do
		bounded 300 "slab: ackio verify" python3 "$ACKIO" verify /tmp/a /dmt-out/ack2.log >/tmp/v2.out 2>&1 ||
			{ head -n 20 /tmp/v2.out; fail "slab: acknowledged records lost (pass $i)"; }
		fio_c --verify_only=1 >/tmp/fio.out 2>&1 || { cat /tmp/fio.out; fail "slab: C does not verify (pass $i)"; }
		fio_b --verify_only=1 --verify_fatal=1 >/tmp/fio.out 2>&1 || { cat /tmp/fio.out; fail "slab: B does not verify after migrations (pass $i)"; }
		[ $i = 2 ] && break
		bounded 60 "slab: remove" tierctl remove $DEV
		bounded 60 "slab: activate" tierctl activate $DEV >/dev/null
		tier_sane $DEV "slab: after activate"
	done
	tail -n 1 /tmp/v2.out
	echo "slab: $nrec acknowledged records, C and B verify, before and after remove+activate (step $(fmt_ms $(($(now_ms) - t0))) s)"
}

# The checks above can fail: damage an acknowledged record and a block of C.
step_self() {
	local slot rc
	slot=$(awk '$1 == "S" { s = $2 } END { print s }' /dmt-out/ack2.log)
	dd if=/dev/zero of=$D bs=64k seek="$slot" count=1 oflag=direct status=none
	rc=0
	python3 "$ACKIO" verify /tmp/a /dmt-out/ack2.log >/tmp/v3.out 2>&1 || rc=$?
	[ $rc = 1 ] || { cat /tmp/v3.out; fail "self: ackio verify missed a zeroed acknowledged record (status $rc)"; }
	head -n 1 /tmp/v3.out
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=16k seek=$((200 * 64)) count=1 oflag=direct status=none
	rc=0
	fio_c --verify_only=1 >/tmp/fio.out 2>&1 || rc=$?
	[ $rc != 0 ] || fail "self: fio verify missed an overwritten block of C"
	grep -m 1 -iE 'verify|bad' /tmp/fio.out || true
	echo "self: verify catches a lost acknowledged record (slot $slot) and a damaged fio block"
}
run_guest_phase "$@"

# Fault injection needs the debug kernel, also when the test runs alone.
vm --kernel "${DMT_KERNEL:-debug}" --fresh --nvme 128M --nvme 256M \
	--append 'slub_debug=A,tier_job,tier_copy_buf' --timeout 1100 -- "$0" main
