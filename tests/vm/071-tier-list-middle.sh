#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154  # status variables come from tier_eval
# Tier-list changes in the middle (tierctl remove-tier of tier 1 of 3,
# add-tier --position 1): the commit that writes the new list renumbers the
# map words (docs/ARCHITECTURE.md "Tier list changes"). Three tiers of
# distinct classes (nvme, pmem, nvmf) with XFS, checksummed files and a fio
# crc32c write+verify loop running the whole time:
#   place     extents migrated onto tiers 1 and 2
#   refuse    removing tier 1 while it holds extents: the evacuate hint
#   remove    tier 1 evacuated, then removed: tier 2 becomes tier 1 with
#             its extents (same count, with tier 0's: the queued moves go
#             between the two), class and label hint; the removed disk's
#             label is wiped
#   insert    a new disk (pmem) inserted at position 1: the tier at 1 moves
#             to 2 with its extents; extents migrated onto the new tier 1
#   queued    moves (one crawling at 1 MiB/s, one queued) across both changes
#             follow the renumbering: status shows their new target, and
#             they end on the nvmf tier, whatever its index
#             (docs/ARCHITECTURE.md "Move queue"); a queued move to the new
#             tier 1 refuses its removal, naming the move (tierctl, and the
#             kernel for a table loaded by hand)
# Then, fio stopped: every file intact, used = mapped per tier after a
# commit; remove/activate keeps the list and the classes per index (status
# JSON, probe hints); xfs_repair -n and tierctl check are clean.
. "$(dirname "$0")/lib.sh"
DEV=tm
D=/dev/mapper/$DEV
MNT=/mnt/tm


nr_tiers_now() { tier_stat $DEV nr_tiers; }

# "class0 class1 ..." from tierctl status --json.
classes() {
	tierctl status $DEV --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(t["class"] for t in d["tiers"] if t["durable"]))'
}

# The table's tier devices as MAJ:MIN.
table_devs() { dmsetup table $DEV | awk '{ for (i = 6; i < 6 + $5; i++) printf "%s%s", (i > 6 ? " " : ""), $i; print "" }'; }
devt() { printf '%d:%d' "$(stat -c '0x%t' "$1")" "$(stat -c '0x%T' "$1")"; }

# "OFFSET:LEN" (bytes) from the first extent mapped on tier T to the Nth
# (the last when T maps fewer), or nothing when it maps none.
span_on() { # tier n
	tierctl where $DEV --range 0:320M --json | python3 -c '
import json, sys
t, n = int(sys.argv[1]), int(sys.argv[2])
d = json.load(sys.stdin)
eb, offs = d["extent_bytes"], []
for e in (e for f in d["files"] for e in f["extents"] if e["tier"] == t):
	offs += range(e["device_offset"], e["device_offset"] + e["length"], eb)
offs = offs[:n]
if offs:
	print("%d:%d" % (offs[0], offs[-1] + eb - offs[0]))' "$1" "$2"
}

# The tiers the mapped extents of range R are on, e.g. "[2]".
tiers_of() { # range
	tierctl where $DEV --range "$1" --json |
		jget '["files"] and sorted(set(e["tier"] for f in d["files"] for e in f["extents"] if e["tier"] is not None))'
}

# Queue a migrate of each range to tier T; prints the ids.
queue_moves() { # tier ranges...
	local t=$1 r
	shift
	for r; do
		tierctl migrate $DEV --range "$r" --tier "$t" --json | jget '["move_id"]' ||
			fail "migrate --range $r --tier $t"
	done
}

# After a change: the two moves of range R (one crawling, one queued behind
# it) target tier T now (STATUS, taken right after the change, TOOK ms
# after the first move was queued); then, at full speed, the queue drains
# and every mapped extent of R is on T (where). At 1 MiB/s the crawl lasts
# about 32 s: when queueing and the change took 25 s or more (a loaded host
# and the debug kernel), the moves may have ended before it, and then only
# their placement is checked.
moves_followed() { # what tier range status took
	local what=$1 t=$2 r=$3 st=$4 took=$5 targets
	targets=$(jget '["moves"] and [m["target_tier"] for m in d["moves"]]' <<<"$st")
	if [ "$targets" = "[]" ] && [ "$took" -ge 25000 ]; then
		echo "$what: queueing and the change took $(fmt_ms "$took") s, about the moves' crawl: their targets are not checked"
	else
		expect_eq "$targets" "[$t, $t]" "$what: targets of the two queued moves (fewer left: too fast)"
	fi
	tier_set $DEV migration_bandwidth 0
	wait_for 30 "[ \$(tierctl status $DEV --json | jget '[\"moves\"].__len__()') = 0 ]" ||
		fail "$what: moves still queued: $(tierctl status $DEV)"
	expect_eq "$(tiers_of "$r")" "[$t]" "$what: tiers of $r after its queued moves"
	expect_eq "$(tier_stat $DEV migration_errors)" 0 "$what: migration errors"
}

# used = mapped on every tier once nothing waits for a commit. Tried for
# up to 30 s: with automatic migration on, a copy in flight holds its
# destination extent (used, not mapped yet) until its switch.
used_is_mapped() { # where
	local i m u bad end=$(($(now_ms) + 30000))
	while :; do
		tier_msg $DEV commit
		sleep 1
		tier_msg $DEV commit
		tier_eval $DEV
		bad=
		for ((i = 0; i < nr_tiers; i++)); do
			eval "m=\$mapped$i u=\$used$i"
			[ "$m" = "$u" ] || bad="tier $i maps $m extents, uses $u ($in_flight copies in flight)"
		done
		[ -n "$bad" ] || return 0
		[ "$(now_ms)" -lt $end ] || fail "$1: $bad"
	done
}

guest_main() {
	local out fio_pid n0 n1 n2 cls range ids id idh idh2 tbl st t0 took m
	mkdir -p $MNT
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --tier "$DMT_NVME2" \
		--class nvme --class pmem --class nvmf --extent-size 1M --size 320M >/dev/null
	expect_eq "$(classes)" "nvme pmem nvmf" "classes at creation"
	mkfs.xfs -q $D
	mount $D $MNT
	mkdir $MNT/a $MNT/fio
	write_files $MNT/a 8 4 /tmp/sums
	rm -f /tmp/fio.stop /tmp/fio.failed
	fio_verify_loop $MNT/fio &
	fio_pid=$!
	sleep 3

	# place: extents on tiers 1 and 2.
	tierctl migrate $DEV --range 0:40M --tier 2 --wait >/dev/null
	tierctl migrate $DEV --range 40M:80M --tier 1 --wait >/dev/null
	n1=$(tier_mapped $DEV 1)
	n2=$(tier_mapped $DEV 2)
	{ [ "$n1" -gt 0 ] && [ "$n2" -gt 0 ]; } || fail "place: $(tier_summary $DEV)"
	echo "place: $(tier_summary $DEV)"

	# refuse: tier 1 holds extents.
	expect_status 1 "tier 1 holds [0-9]+ extents .*: run tierctl evacuate $DEV 1 first" \
		tierctl remove-tier $DEV 1

	# remove: evacuate tier 1, then remove it; tier 2 becomes 1.
	tierctl evacuate $DEV 1 --wait >/dev/null || fail "evacuate 1: $(tier_summary $DEV)"
	tier_wait $DEV 30 "[ \$mapped1 = 0 ]" || fail "tier 1 not empty: $(tier_summary $DEV)"
	# The counts per tier hold still from here (fio rewrites in place):
	# no demotion to make room on tier 0, no redirected write.
	tier_set $DEV auto_migrate 0
	tier_set $DEV redirect_writes 0
	sleep 2
	# Two moves to the nvmf tier (2, then 1) across the removal: one
	# crawling through (up to) 32 extents of tier 0 at 1 MiB/s, one queued
	# behind it. Extents only go from tier 0 to it: the two keep their
	# count.
	range=$(span_on 0 32)
	[ -n "$range" ] || fail "no extent on tier 0: $(tier_summary $DEV)"
	tier_set $DEV migration_bandwidth 1
	tier_eval $DEV
	n0=$mapped0
	n2=$mapped2
	echo "before queueing: $(tier_summary $DEV)"
	t0=$(now_ms)
	ids=$(queue_moves 2 "$range" "$range" | tr '\n' ' ')
	out=$(tierctl remove-tier $DEV 1 --json)
	st=$(tierctl status $DEV --json)
	took=$(($(now_ms) - t0))
	echo "queued before remove-tier 1: moves $ids of $range; remove-tier 1: $out"
	expect_eq "$(jget '["tier"]' <<<"$out")" 1 "remove-tier: tier"
	expect_eq "$(nr_tiers_now)" 2 "tiers after remove-tier 1"
	tier_eval $DEV
	expect_eq "$((mapped0 + mapped1))" "$((n0 + n2))" "old tier 2's extents (and those moving there), now on tier 1"
	[ "$mapped1" -ge "$n2" ] || fail "tier 1 maps $mapped1 extents, old tier 2 had $n2"
	moves_followed "remove-tier 1" 1 "$range" "$st" "$took"
	expect_eq "$(classes)" "nvme nvmf" "classes after remove-tier 1"
	expect_eq "$(table_devs)" "$(devt "$DMT_NVME0") $(devt "$DMT_NVME2")" "table after remove-tier 1"
	expect_eq "$(tierctl probe "$DMT_NVME2" --json | jget '["tier"]')" 1 "hint of the moved tier"
	expect_eq "$(tierctl probe "$DMT_NVME2" --json | jget '["nr_tiers"]')" 2 "count hint of the moved tier"
	expect_status 1 "not a dm-tier member|no dm-tier label|no label" tierctl probe "$DMT_NVME1"
	klog_has "map entries renumbered" || fail "no renumbering in the kernel log"
	tier_sane $DEV remove
	echo "remove: $(tier_summary $DEV)"

	# insert: a new disk at position 1; the tier at 1 moves to 2, with
	# the moves queued to it (a move left at 1 would fill the new tier).
	range=$(span_on 0 32)
	[ -n "$range" ] || fail "no extent on tier 0: $(tier_summary $DEV)"
	tier_set $DEV migration_bandwidth 1
	tier_eval $DEV
	n0=$mapped0
	n1=$mapped1
	echo "before queueing: $(tier_summary $DEV)"
	t0=$(now_ms)
	ids=$(queue_moves 1 "$range" "$range" | tr '\n' ' ')
	out=$(tierctl add-tier $DEV "$DMT_NVME3" --class pmem --position 1 --json)
	st=$(tierctl status $DEV --json)
	took=$(($(now_ms) - t0))
	echo "queued before add-tier --position 1: moves $ids of $range; add-tier --position 1: $out"
	expect_eq "$(jget '["tier"]' <<<"$out")" 1 "add-tier: tier"
	expect_eq "$(nr_tiers_now)" 3 "tiers after add-tier --position 1"
	tier_eval $DEV
	expect_eq "$mapped1" 0 "the new tier 1"
	expect_eq "$((mapped0 + mapped2))" "$((n0 + n1))" "old tier 1's extents (and those moving there), now on tier 2"
	[ "$mapped2" -ge "$n1" ] || fail "tier 2 maps $mapped2 extents, old tier 1 had $n1"
	moves_followed "add-tier --position 1" 2 "$range" "$st" "$took"
	expect_eq "$(tier_mapped $DEV 1)" 0 "the new tier 1 after the queued moves"

	# A queued move to the new tier 1 (behind one crawling to the emptied
	# tier 0, and one taking tier 0's extents to tier 2 after it: the
	# first alone ends once tier 0 is full, some 30 s, which the checks
	# below nearly took on a slow host) refuses its removal, by tierctl
	# and by the kernel for a table loaded by hand.
	tier_set $DEV migration_bandwidth 1
	idh=$(queue_moves 0 0:320M)
	idh2=$(queue_moves 2 0:320M)
	id=$(queue_moves 1 0:1M)
	expect_status 1 "move $id \\(migrate to tier 1\\) targets the tier being removed: cancel it \\(tierctl cancel $DEV $id\\)" \
		tierctl remove-tier $DEV 1
	tbl=$(dmsetup table $DEV | awk '{ out = ""; for (i = 1; i <= NF; i++) if (i != 7) out = out (out ? " " : "") $i; print out }' | awk '{ $5 = $5 - 1; $1 = ""; $2 = ""; $3 = ""; print }')
	! dmsetup reload $DEV --table "0 $(blockdev --getsz $D) tier $tbl" 2>/dev/null ||
		fail "the kernel loaded a table without tier 1 while a move to it was queued"
	klog_has "Move $id (migrate to tier 1) targets the tier being removed: cancel it (tierctl cancel $DEV $id)" ||
		fail "no 'Move $id ... targets the tier being removed' in the kernel log"
	# Clean-up: on a slow host the crawls may have ended by now.
	for m in "$id" "$idh2" "$idh"; do
		tierctl cancel $DEV "$m" >/dev/null 2>/tmp/cancel.err ||
			grep -q "no queued move request has that id" /tmp/cancel.err ||
			fail "cancel of move $m: $(cat /tmp/cancel.err)"
	done
	tier_set $DEV migration_bandwidth 0
	wait_for 30 "[ \$(tierctl status $DEV --json | jget '[\"moves\"].__len__()') = 0 ]" ||
		fail "moves still queued after the cancels: $(tierctl status $DEV)"
	expect_eq "$(nr_tiers_now)" 3 "tiers after the refused removal"
	expect_eq "$(tier_mapped $DEV 1)" 0 "the new tier 1 after the refused removal"
	expect_eq "$(classes)" "nvme pmem nvmf" "classes after add-tier --position 1"
	expect_eq "$(table_devs)" "$(devt "$DMT_NVME0") $(devt "$DMT_NVME3") $(devt "$DMT_NVME2")" \
		"table after add-tier --position 1"
	expect_eq "$(tierctl probe "$DMT_NVME3" --json | jget '["tier"]')" 1 "hint of the new tier"
	expect_eq "$(tierctl probe "$DMT_NVME2" --json | jget '["tier"]')" 2 "hint of the moved tier"
	expect_eq "$(tierctl probe "$DMT_NVME0" --json | jget '["nr_tiers"]')" 3 "count hint of tier 0"
	tier_set $DEV auto_migrate 1
	tier_set $DEV redirect_writes 1
	tierctl migrate $DEV --range 0:24M --tier 1 --wait >/dev/null
	[ "$(tier_mapped $DEV 1)" -gt 0 ] || fail "nothing moved to the inserted tier: $(tier_summary $DEV)"
	tier_sane $DEV insert
	echo "insert: $(tier_summary $DEV)"

	sleep 3
	touch /tmp/fio.stop
	wait "$fio_pid"
	[ ! -e /tmp/fio.failed ] || fail "fio verify failed in run(s) $(tr '\n' ' ' </tmp/fio.failed)"
	echo "fio: $(cat /tmp/fio.runs) write+verify runs, 0 verify errors"
	check_files $MNT/a /tmp/sums
	used_is_mapped "after the changes"
	umount $MNT

	# remove/activate: the same list, classes per index.
	tier_set $DEV auto_migrate 0
	n1=$(tier_mapped $DEV 1)
	n2=$(tier_mapped $DEV 2)
	tierctl remove $DEV >/dev/null
	out=$(tierctl activate $DEV 2>&1)
	[[ $out != *"does not list"* ]] || fail "a stale label after activate: $out"
	expect_eq "$(nr_tiers_now)" 3 "tiers after activate"
	expect_eq "$(classes)" "nvme pmem nvmf" "classes after activate"
	expect_eq "$(table_devs)" "$(devt "$DMT_NVME0") $(devt "$DMT_NVME3") $(devt "$DMT_NVME2")" \
		"table after activate"
	expect_eq "$(tier_mapped $DEV 1)" "$n1" "tier 1 after activate"
	expect_eq "$(tier_mapped $DEV 2)" "$n2" "tier 2 after activate"
	cls=$(tierctl status $DEV --json | jget '["tiers"][1]["device"]')
	expect_eq "$cls" "$DMT_NVME3" "status JSON: device of tier 1"
	mount $D $MNT
	check_files $MNT/a /tmp/sums
	umount $MNT
	xfs_repair -n $D >/tmp/xfs_repair.out 2>&1 || { cat /tmp/xfs_repair.out; fail "xfs_repair -n"; }
	used_is_mapped "after activate"
	tier_sane $DEV activate
	tierctl remove $DEV >/dev/null
	expect_status 0 "clean" tierctl check $DEV
	echo "remove-tier 1 and add-tier --position 1 with fio verifying; activate, xfs_repair and check clean"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 128M --nvme 384M --nvme 128M -- "$0" main
