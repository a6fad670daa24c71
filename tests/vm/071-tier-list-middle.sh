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
#             its extents (same count), class and label hint; the removed
#             disk's label is wiped
#   insert    a new disk (pmem) inserted at position 1: the tier at 1 moves
#             to 2 with its extents; extents migrated onto the new tier 1
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

# used = mapped on every tier once nothing waits for a commit.
used_is_mapped() { # where
	local i m u
	tier_msg $DEV commit
	sleep 1
	tier_msg $DEV commit
	tier_eval $DEV
	for ((i = 0; i < nr_tiers; i++)); do
		eval "m=\$mapped$i u=\$used$i"
		[ "$m" = "$u" ] || fail "$1: tier $i maps $m extents, uses $u"
	done
}

guest_main() {
	local out fio_pid n1 n2 cls
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
	n2=$(tier_mapped $DEV 2)
	out=$(tierctl remove-tier $DEV 1 --json)
	echo "remove-tier 1: $out"
	expect_eq "$(jget '["tier"]' <<<"$out")" 1 "remove-tier: tier"
	expect_eq "$(nr_tiers_now)" 2 "tiers after remove-tier 1"
	expect_eq "$(tier_mapped $DEV 1)" "$n2" "old tier 2's extents, now on tier 1"
	expect_eq "$(classes)" "nvme nvmf" "classes after remove-tier 1"
	expect_eq "$(table_devs)" "$(devt "$DMT_NVME0") $(devt "$DMT_NVME2")" "table after remove-tier 1"
	expect_eq "$(tierctl probe "$DMT_NVME2" --json | jget '["tier"]')" 1 "hint of the moved tier"
	expect_eq "$(tierctl probe "$DMT_NVME2" --json | jget '["nr_tiers"]')" 2 "count hint of the moved tier"
	expect_status 1 "not a dm-tier member|no dm-tier label|no label" tierctl probe "$DMT_NVME1"
	dmesg | grep -q "map entries renumbered" || fail "no renumbering in the kernel log"
	tier_sane $DEV remove
	echo "remove: $(tier_summary $DEV)"

	# insert: a new disk at position 1; the tier at 1 moves to 2.
	n1=$(tier_mapped $DEV 1)
	out=$(tierctl add-tier $DEV "$DMT_NVME3" --class pmem --position 1 --json)
	echo "add-tier --position 1: $out"
	expect_eq "$(jget '["tier"]' <<<"$out")" 1 "add-tier: tier"
	expect_eq "$(nr_tiers_now)" 3 "tiers after add-tier --position 1"
	expect_eq "$(tier_mapped $DEV 1)" 0 "the new tier 1"
	expect_eq "$(tier_mapped $DEV 2)" "$n1" "old tier 1's extents, now on tier 2"
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
