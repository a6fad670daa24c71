#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154,SC2015  # status variables come from tier_eval
# tierctl evacuate (issue 18; docs/ARCHITECTURE.md "Evacuation"), one boot,
# three NVMe drives (tier 0 64M, tier 1 256M, tier 2 128M), 1 MiB extents,
# automatic migration off:
#   refuse   tier 0 holding the metadata; tier 1 holding 200 MiB while the
#            other tiers have room for 187 above their reserves: "13 MiB
#            missing", nothing
#            changed (the tier still takes extents)
#   evacuate XFS with files on tier 1 and fio crc32c write+verify passes
#            running: 'tierctl evacuate ev 1 --wait' moves everything off
#            (faster tier 0 first, then tier 2); tier 1 is "empty", 0 mapped
#            and 0 used, its status bit set; more files written land
#            elsewhere; files and fio verify; no migration error
#   persist  remove/activate: still "empty", still takes nothing; a migrate
#            to it is refused ("being evacuated"); tierd --once pinning files
#            to it logs the refusal and exits 0 (no failure)
#   undo     'evacuate --cancel': it takes extents again (a migrate to it
#            moves data there)
#   stuck    a migrate to tier 1 crawling at 1 MiB/s, then 'evacuate 1':
#            the migrate ends failed (ENOSPC, a kernel message), the
#            evacuation behind it runs; cancelled, all back on tier 1
#   cancel   an evacuation at 1 MiB/s cancelled by 'tierctl cancel ID': the
#            request ends "cancelled" (one migration-done event), the tier is
#            "stopped" with extents left and still takes nothing new
#            (while it ran, 'tierctl recover ev 1' succeeded); a
#            second 'evacuate --to 2' resumes and empties it, tier 2 filled
#            first although tier 0 has room; --to the tier itself or
#            past the last tier refused (CLI and message)
#   end      xfs_repair -n clean, 'tierctl check' of the inactive members
#            clean (used = mapped), no kernel warning
#   held     a new device (160 MiB, 100 on tier 2) with a table without
#            tier 1 loaded, not resumed (remove-tier's first step): an
#            evacuation of tier 2 that needs tier 1's room is refused (its
#            room counted); accepted once the table is cleared
. "$(dirname "$0")/lib.sh"
DEV=ev
D=/dev/mapper/$DEV
MNT=/mnt/ev

put() { dd if="$1" of=$D bs=1M seek="$2" oflag=direct conv=fsync status=none; }
commit() { tier_msg $DEV commit || fail "commit failed"; }
# Commit until the frees of moved extents settle: tier 1 uses none.
settle_used1() { # what
	wait_for 20 "tier_msg $DEV commit && [ \$(tier_stat $DEV used 1) = 0 ]" ||
		fail "$1: tier 1 still uses extents: $(tier_summary $DEV)"
}
# The last field of the status line: the evacuating tiers, a bit each.
evac_mask() { dmsetup status "${1:-$DEV}" | awk '{ print $NF }'; } # [dev]
tier1_state() { tierctl status $DEV --json | jget '["tiers"][1]["evacuation"]'; }
# migration-done outcomes of request ID in a watch log.
outcomes() { # log id
	python3 - "$1" "$2" <<-'PY'
		import json, sys
		for line in open(sys.argv[1]):
		    try:
		        e = json.loads(line)
		    except ValueError:
		        continue
		    if e.get("event") == "migration-done" and e.get("move_id") == int(sys.argv[2]):
		        print(e.get("outcome"))
	PY
}

step_refuse() {
	local out
	expect_status 1 "tier 0 holds the metadata" tierctl evacuate $DEV 0
	# 200 MiB on tier 1; tiers 0 and 2 have about 185 MiB free together.
	rand_bytes 200M >/tmp/big.bin
	put /tmp/big.bin 0
	tierctl migrate $DEV --range 0:200M --tier 1 --wait >/dev/null || fail "refuse: migrate to tier 1"
	tier_eval $DEV
	expect_eq "$mapped1" 200 "refuse: extents on tier 1"
	out=$(tierctl evacuate $DEV 1 2>&1) && fail "refuse: evacuate of a tier without room elsewhere succeeded: $out"
	echo "refuse: $out"
	# 200 - (62 + 125) = 13 extents of 1 MiB.
	grep -q ": 13 MiB missing" <<<"$out" || fail "refuse: no (or a wrong) missing amount in: $out"
	expect_eq "$(evac_mask)" 0 "refuse: evacuating bits after a refusal"
	expect_eq "$(tier1_state)" None "refuse: tier 1 state after a refusal"
	# The kernel refuses as well (message interface, no CLI check). Tier 0
	# is tierctl's refusal only: the kernel evacuates its extents (the
	# metadata area is no extent) for replace-tier 0, tested by 075/076.
	expect_eq "$(status_of tier_msg $DEV evacuate 1 2>/dev/null)" 1 "refuse: message evacuate 1 (no room)"
	# A destination (--to) that is the tier itself or not a tier.
	expect_status 2 "is the tier being evacuated" tierctl evacuate $DEV 2 --to 2
	expect_status 2 "has tiers 0 to 2" tierctl evacuate $DEV 2 --to 3
	expect_eq "$(status_of tier_msg $DEV evacuate 2 to 2 2>/dev/null)" 22 "refuse: message evacuate 2 to 2"
	expect_eq "$(status_of tier_msg $DEV evacuate 2 to 9 2>/dev/null)" 22 "refuse: message evacuate 2 to 9"
	klog_has "the destination (to) is the tier being evacuated" || fail "refuse: no kernel message for a bad destination"
	klog_has "lack room for the extents of the tier" || fail "refuse: no kernel message for the lack of room"
	# Back to an empty device.
	blkdiscard $D
	commit
	tier_eval $DEV
	expect_eq "$mapped" 0 "refuse: mapped after the discard"
	rm -f /tmp/big.bin
}

fio_pass() { # seed
	fio --name=ev --filename=$MNT/fio.dat --size=16M --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randwrite --bs=64k --randseed="$1" --verify=crc32c \
		--verify_fatal=1 --do_verify=1 --eta=never >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; fail "fio pass $1"; }
}

step_evacuate() {
	local fiopid seed=1 t0 out id
	mkfs.xfs -q -f $D
	mkdir -p $MNT
	mount $D $MNT
	mkdir -p $MNT/a
	write_files $MNT/a 10 4 /tmp/sums
	fio_pass 1
	sync
	# Everything to tier 1 first.
	tierctl migrate $DEV --range all --tier 1 --wait >/dev/null || fail "evacuate: migrate all to tier 1"
	tier_eval $DEV
	echo "evacuate: before: $(tier_summary $DEV)"
	[ "$mapped1" -ge 60 ] || fail "evacuate: only $mapped1 extents on tier 1"
	expect_eq "$mapped1" "$mapped" "evacuate: every extent on tier 1"
	# fio write+verify passes all along.
	rm -f /tmp/fio.stop
	(
		while [ ! -e /tmp/fio.stop ]; do
			seed=$((seed + 1))
			fio_pass $seed
			echo $seed >/tmp/fio.seed
		done
	) &
	fiopid=$!
	# Paced like a drain: 16 MiB/s, several seconds of moves under fio.
	tier_set $DEV migration_bandwidth 16
	t0=$(now_ms)
	out=$(tierctl evacuate $DEV 1 --wait --json) || fail "evacuate: tierctl evacuate --wait failed: $out"
	echo "evacuate: $out"
	id=$(jget '["move_id"]' <<<"$out")
	expect_eq "$(jget '["outcome"]' <<<"$out")" "done" "evacuate: outcome"
	echo "evacuate: request $id done in $(fmt_ms $(($(now_ms) - t0))) s"
	tier_set $DEV migration_bandwidth 0
	touch /tmp/fio.stop
	wait $fiopid || fail "evacuate: fio failed during the evacuation"
	echo "evacuate: fio passes: $(cat /tmp/fio.seed 2>/dev/null || echo 0) after the first"
	settle_used1 evacuate
	tier_eval $DEV
	echo "evacuate: after: $(tier_summary $DEV)"
	expect_eq "$mapped1" 0 "evacuate: extents mapped on tier 1"
	expect_eq "$(tier1_state)" empty "evacuate: tier 1 state"
	expect_eq "$(evac_mask)" 2 "evacuate: status line evacuating bits"
	[ "$mapped0" -gt 0 ] || fail "evacuate: nothing went to the faster tier 0"
	tierctl status $DEV | grep -E "tier 1: +empty" || fail "evacuate: text status: $(tierctl status $DEV)"
	# New writes never land on tier 1.
	mkdir -p $MNT/b
	write_files $MNT/b 4 4 /tmp/sums_b
	fio_pass 100
	commit
	tier_eval $DEV
	expect_eq "$mapped1" 0 "evacuate: tier 1 extents after more writes"
	expect_eq "$used1" 0 "evacuate: tier 1 used after more writes"
	check_files $MNT/a /tmp/sums
	check_files $MNT/b /tmp/sums_b
	expect_eq "$migration_errors" 0 "evacuate: migration errors"
	expect_eq "$nospc_errors" 0 "evacuate: nospc errors"
	tier_sane $DEV evacuate
}

step_persist() {
	local rc
	umount $MNT
	tierctl remove $DEV >/dev/null
	tierctl activate $DEV >/dev/null || fail "persist: activate"
	tier_set $DEV auto_migrate 0
	expect_eq "$(evac_mask)" 2 "persist: evacuating bits after activate"
	expect_eq "$(tier1_state)" empty "persist: tier 1 state after activate"
	mount $D $MNT
	mkdir -p $MNT/c
	write_files $MNT/c 2 4 /tmp/sums_c
	commit
	expect_eq "$(tier_mapped $DEV 1)" 0 "persist: tier 1 extents after writes"
	expect_status 1 "being evacuated" tierctl migrate $DEV --range all --tier 1
	# tierd pinning files to the tier: refused (ENOSPC), logged, retried at
	# its next pass, but no failure: --once exits 0.
	mkdir -p /tmp/tierd-ev/policies.d
	printf '[device %s]\npin = %s/c tier=1\n' $DEV $MNT >/tmp/tierd-ev/policies.d/a.conf
	rc=0
	tierd --once --foreground --log-level info --config-dir /tmp/tierd-ev >/tmp/tierd-ev.log 2>&1 || rc=$?
	expect_eq "$rc" 0 "persist: tierd --once pinning to the evacuating tier (log: $(cat /tmp/tierd-ev.log))"
	grep -q "refused: .*being evacuated" /tmp/tierd-ev.log ||
		fail "persist: tierd did not log the refusal: $(cat /tmp/tierd-ev.log)"
	expect_eq "$(tier_mapped $DEV 1)" 0 "persist: tier 1 extents after tierd's pin"
}

step_undo() {
	local out
	out=$(tierctl evacuate $DEV 1 --cancel --json) || fail "undo: evacuate --cancel failed"
	echo "undo: $out"
	expect_eq "$(evac_mask)" 0 "undo: evacuating bits"
	expect_eq "$(tier1_state)" None "undo: tier 1 state"
	tierctl migrate $DEV --range all --tier 1 --wait >/dev/null || fail "undo: migrate to tier 1"
	tier_eval $DEV
	expect_eq "$mapped1" "$mapped" "undo: every extent on tier 1 again"
	check_files $MNT/a /tmp/sums
}

# A migrate to tier 1 queued before 'evacuate 1' (as tierd's moves may be):
# it ends failed with ENOSPC at its next extent, and the evacuation behind
# it runs. It used to wait at the head of the queue for the tier to take
# extents again, which it never did, so the evacuation never started.
step_stuck() {
	local out mig eid rc=0 len=8
	# A range with 40 MiB or more mapped (XFS leaves holes; all of it is
	# on tier 1): its crawl back at 1 MiB/s lasts 40 s or more, so the
	# evacuation comes while it runs, even when tierctl is slow (8 MiB,
	# 8 s, used to be enough).
	while [ "$(tierctl where $DEV --range 0:${len}M --json | jget '["tiers"][1]["bytes"]')" -lt $((40 << 20)) ]; do
		len=$((len + 8))
		[ $len -le 96 ] || fail "stuck: less than 40 MiB mapped in the first 96 MiB"
	done
	tierctl migrate $DEV --range 0:${len}M --tier 2 --wait >/dev/null || fail "stuck: migrate 0:${len}M to tier 2"
	tier_set $DEV migration_bandwidth 1
	tierctl migrate $DEV --range 0:${len}M --tier 1 --wait >/tmp/stuck.out 2>&1 &
	mig=$!
	wait_for 30 "[ \$(tierctl status $DEV --json | jget '[\"moves\"][0][\"done_extents\"]') -ge 1 ]" ||
		fail "stuck: the migrate to tier 1 did not start: $(tierctl status $DEV)"
	out=$(tierctl evacuate $DEV 1 --json) || fail "stuck: evacuate 1 behind the migrate: $out"
	eid=$(jget '["move_id"]' <<<"$out")
	wait_bounded 60 "stuck: the migrate queued to the evacuating tier" "$mig" || rc=$?
	[ "$rc" != 0 ] && grep -q "failed (No space left on device)" /tmp/stuck.out ||
		fail "stuck: the migrate to tier 1 (rc $rc): $(cat /tmp/stuck.out)"
	klog_has "migrate stopped at extent [0-9]*: tier 1 takes no new extents" ||
		fail "stuck: no kernel message for the stopped migrate"
	wait_for 30 "[ \$(tierctl status $DEV --json | jget '[\"moves\"][0][\"done_extents\"]') -ge 2 ]" ||
		fail "stuck: the evacuation behind it did not run: $(tierctl status $DEV)"
	echo "stuck: $(head -1 /tmp/stuck.out); evacuation $eid runs"
	tierctl cancel $DEV "$eid" >/dev/null || fail "stuck: tierctl cancel $eid"
	wait_for 20 "[ \$(tierctl status $DEV --json | jget '[\"moves\"].__len__()') = 0 ]" ||
		fail "stuck: the evacuation did not end: $(tierctl status $DEV)"
	tierctl evacuate $DEV 1 --cancel >/dev/null || fail "stuck: evacuate --cancel"
	tier_set $DEV migration_bandwidth 0
	tierctl migrate $DEV --range all --tier 1 --wait >/dev/null || fail "stuck: migrate back to tier 1"
	check_files $MNT/a /tmp/sums
}

step_cancel() {
	local out id watch left
	tierctl watch $DEV --json >/tmp/watch.json 2>/dev/null &
	watch=$!
	sleep 1
	tier_set $DEV migration_bandwidth 1
	out=$(tierctl evacuate $DEV 1 --json) || fail "cancel: evacuate failed: $out"
	id=$(jget '["move_id"]' <<<"$out")
	wait_for 30 "[ \$(tierctl status $DEV --json | jget '[\"moves\"][0][\"done_extents\"]') -ge 2 ]" ||
		fail "cancel: nothing moved in 30 s: $(tierctl status $DEV)"
	tierctl status $DEV | grep -E "tier 1: +evacuating \(request $id" ||
		fail "cancel: text status while running: $(tierctl status $DEV)"
	expect_eq "$(tier1_state)" evacuating "cancel: tier 1 state while running"
	# Same request for a second evacuate while it runs.
	expect_eq "$(tierctl evacuate $DEV 1 --json | jget '["move_id"]')" "$id" "cancel: a second evacuate's request id"
	# A tier being evacuated can be recovered (its probe flush): an outage
	# during an evacuation must not keep it offline until the evacuation
	# is stopped (it was refused, ENOSPC "being evacuated").
	bounded 30 "cancel: recover" tierctl recover $DEV 1 >/tmp/rec.out 2>&1 ||
		{ cat /tmp/rec.out; fail "cancel: tierctl recover of the evacuating tier 1 was refused"; }
	expect_eq "$(tier1_state)" evacuating "cancel: tier 1 state after a recover"
	tierctl cancel $DEV "$id" >/dev/null || fail "cancel: tierctl cancel $id"
	wait_for 20 "[ \$(tierctl status $DEV --json | jget '[\"moves\"].__len__()') = 0 ]" ||
		fail "cancel: the request did not end: $(tierctl status $DEV)"
	tier_set $DEV migration_bandwidth 0
	sleep 1
	kill "$watch"
	wait "$watch" || true
	expect_eq "$(outcomes /tmp/watch.json "$id" | tr '\n' ' ')" "cancelled " "cancel: migration-done events of request $id"
	left=$(tier_mapped $DEV 1)
	[ "$left" -gt 0 ] || fail "cancel: nothing left on tier 1 after the cancel"
	expect_eq "$(tier1_state)" stopped "cancel: tier 1 state after the cancel"
	expect_eq "$(evac_mask)" 2 "cancel: evacuating bits after the cancel"
	echo "cancel: request $id cancelled with $left extents left on tier 1"
	# Still no new extents on it.
	mkdir -p $MNT/d
	write_files $MNT/d 2 4 /tmp/sums_d
	commit
	expect_eq "$(tier_mapped $DEV 1)" "$left" "cancel: tier 1 extents after more writes"
	# Resumed with a preferred destination (--to 2): tier 2 takes extents
	# first, although the faster tier 0 has room; only once tier 2 has
	# no free extent above its reserve do the rest go the usual way.
	local m0 m2 g0 g2
	m0=$(tier_mapped $DEV 0)
	m2=$(tier_mapped $DEV 2)
	out=$(tierctl evacuate $DEV 1 --to 2 --wait --json) || fail "cancel: the second evacuate (--to 2) failed: $out"
	expect_eq "$(jget '["to_tier"]' <<<"$out")" 2 "cancel: to_tier of the resumed evacuation"
	commit
	expect_eq "$(tier_mapped $DEV 1)" 0 "cancel: tier 1 extents after the resumed evacuation"
	tier_eval $DEV
	g0=$((mapped0 - m0)) g2=$((mapped2 - m2))
	echo "cancel: --to 2: $left extents: $g2 to tier 2, $g0 to tier 0; $(tier_summary $DEV)"
	[ "$g2" -gt 0 ] || fail "cancel: evacuate --to 2 put nothing on tier 2"
	# Tier 0 got more than a stray XFS allocation: tier 2 must be full
	# above its 2% reserve (the fallback, docs/tierctl.md).
	if [ "$g0" -gt 2 ] && [ $((total2 - used2)) -gt $((total2 * 2 / 100 + 1)) ]; then
		fail "cancel: evacuate --to 2 sent $g0 extents to tier 0 while tier 2 had $((total2 - used2)) free"
	fi
	expect_eq "$(tier1_state)" empty "cancel: tier 1 state after the resumed evacuation"
	check_files $MNT/a /tmp/sums
	check_files $MNT/c /tmp/sums_c
	check_files $MNT/d /tmp/sums_d
}

# A table without tier 1 loaded and not resumed (remove-tier's first step)
# holds tier 1: it takes no extents until that table resumes or is cleared.
# Its room is then no room for an evacuation of tier 2 (accepted before:
# the extents that did not fit on tier 0 went for tier 1, whose claims
# failed until the request ended ENOSPC). Cleared, the same is accepted.
# A device of its own after 'end', smaller than tiers 0 and 2 together
# (a table without tier 1 must still hold its virtual size).
step_held() {
	local hd=hd tbl size
	tierctl create $hd --tier "$DMT_NVME0" --tier "$DMT_NVME1" --tier "$DMT_NVME2" \
		--extent-size 1M --size 160M --force >/dev/null || fail "held: create"
	tier_set $hd auto_migrate 0
	rand_bytes 100M >/tmp/held.bin
	dd if=/tmp/held.bin of=/dev/mapper/$hd bs=1M oflag=direct conv=fsync status=none
	tierctl migrate $hd --range 0:100M --tier 2 --wait >/dev/null || fail "held: migrate to tier 2"
	expect_eq "$(tier_mapped $hd 2)" 100 "held: extents on tier 2"
	# The table's fields 6.. are the tiers (071): drop tier 1's.
	tbl=$(dmsetup table $hd | awk '{ out = ""; for (i = 1; i <= NF; i++) if (i != 7) out = out (out ? " " : "") $i; print out }' |
		awk '{ $5 = $5 - 1; $1 = ""; $2 = ""; $3 = ""; print }')
	size=$(blockdev --getsz /dev/mapper/$hd)
	dmsetup load $hd --table "0 $size tier $tbl" || fail "held: loading a table without tier 1"
	dmsetup info $hd | grep -q "Tables present: *LIVE & INACTIVE" ||
		fail "held: no inactive table: $(dmsetup info $hd)"
	echo "held: $(tier_summary $hd)"
	# Tier 0 (63 MiB, the metadata on it) cannot take 100 extents.
	expect_eq "$(status_of tier_msg $hd evacuate 2 2>/dev/null)" 1 \
		"held: message evacuate 2 with only the held tier 1 to take what tier 0 cannot"
	expect_eq "$(evac_mask $hd)" 0 "held: evacuating bits after the refusal"
	dmsetup clear $hd || fail "held: dmsetup clear"
	expect_eq "$(status_of tier_msg $hd evacuate 2)" 0 "held: message evacuate 2 once the table is cleared"
	tierctl evacuate $hd 2 --cancel >/dev/null || fail "held: evacuate 2 --cancel"
	wait_for 30 "[ \$(tierctl status $hd --json | jget '[\"moves\"].__len__()') = 0 ]" ||
		fail "held: the evacuation did not end: $(tierctl status $hd)"
	dev_cmp /dev/mapper/$hd /tmp/held.bin || fail "held: data after the evacuation"
	tier_sane $hd held
	tierctl remove $hd >/dev/null || fail "held: remove"
	rm -f /tmp/held.bin
}

step_end() {
	umount $MNT
	xfs_repair -n $D >/tmp/repair.out 2>&1 || { cat /tmp/repair.out; fail "end: xfs_repair -n"; }
	tier_sane $DEV end
	tierctl remove $DEV >/dev/null
	tierctl check "$DMT_NVME0" "$DMT_NVME1" "$DMT_NVME2" >/tmp/check.out 2>&1 ||
		{ cat /tmp/check.out; fail "end: tierctl check"; }
	no_kernel_warning "evacuate"
}

guest_main() {
	local s t0
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --tier "$DMT_NVME2" --extent-size 1M >/dev/null
	tier_set $DEV auto_migrate 0
	for s in ${DMT_EVAC_STEPS:-refuse evacuate persist undo stuck cancel end held}; do
		t0=$(now_ms)
		"step_$s"
		echo "[$s done in $(fmt_ms $(($(now_ms) - t0))) s]"
	done
	echo "evacuate: refuse evacuate persist undo stuck cancel end held ok"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 256M --nvme 128M --timeout 600 -- "$0" main
