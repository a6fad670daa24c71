#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: spare
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154
# Power cuts around tier-list changes in the middle (remove-tier of tier 1
# of 3, add-tier --position 1), whose commit renumbers the map: four
# null_blk disks with a volatile write cache (tools/nullb) under dm-linear
# shims, cut (shims_cut: all I/O fails at once, then every unflushed write
# is lost) at each step, as 070 does for the end of the list:
#   rm    after the table without tier 1 is loaded (before the commit),
#         after the commit (label of the removed disk not wiped, hints of
#         the moved tier not rewritten)
#   add   after the label is written (TIERCTL_TEST_STOP=label), after the
#         table with the new tier 1 is loaded, after the commit (hints not
#         rewritten)
# After each cut the device activates with the old list (before the commit)
# or the new one (after it), with the extents of the moved tier on it (the
# map numbers follow the list), the data written before intact, a label the
# superblock does not list reported and left out; running the command again
# completes it, and tierctl check is clean.
. "$(dirname "$0")/lib.sh"
DEV=pm
D=/dev/mapper/$DEV
SHIMS="hotL:hot0 midL:mid0 coldL:cold0 newL:new0"

sha_dev() { dev_sum $D "$1"; }
nr_tiers_now() { tier_stat $DEV nr_tiers; }
hint() { tierctl probe "/dev/mapper/$1" --json | jget '["tier"]'; }

# Cut the power, deactivate, power on, activate; stderr of activate kept.
power_cut() { # what
	# shellcheck disable=SC2086 # the pairs
	shims_cut $SHIMS
	tierctl remove $DEV >/dev/null 2>&1 || dmsetup remove --force $DEV >/dev/null 2>&1 || true
	# shellcheck disable=SC2086
	shims_restore $SHIMS
	tierctl activate $DEV >/tmp/act.out 2>/tmp/act.err ||
		{ cat /tmp/act.err; fail "$1: activate after the cut"; }
	expect_eq "$(sha_dev 24)" "$SUM" "$1: data after the cut"
	tier_sane $DEV "$1"
}

stale_reported() { # what tier
	grep -q "carries a label of tier $2 of $DEV that the superblock does not list" /tmp/act.err ||
		{ cat /tmp/act.err; fail "$1: the stale label was not reported"; }
}
no_stale() { # what
	! grep -q "does not list" /tmp/act.err || { cat /tmp/act.err; fail "$1: a stale label reported"; }
}

# The live table's parameters with tier K dropped / DEV inserted at K.
table_minus_at() { # k
	dmsetup table $DEV | awk -v k="$1" '{ n = 6 + k; out = ""
		for (i = 1; i <= NF; i++) { if (i == n) continue; v = (i == 5) ? $i - 1 : $i; out = out (out ? " " : "") v }
		print out }' | cut -d' ' -f4-
}
table_plus_at() { # k maj:min
	dmsetup table $DEV | awk -v k="$1" -v d="$2" '{ n = 6 + k; out = ""
		for (i = 1; i <= NF; i++) { if (i == n) out = out " " d; v = (i == 5) ? $i + 1 : $i; out = out (out ? " " : "") v }
		print out }' | cut -d' ' -f4-
}
load_only() { # table-params
	dmsetup reload $DEV --table "0 $(blockdev --getsz $D) tier $1"
}

guest_main() {
	local p new
	"$TOP/tools/nullb" create hot0 96 32
	"$TOP/tools/nullb" create mid0 128 32
	"$TOP/tools/nullb" create cold0 256 32
	"$TOP/tools/nullb" create new0 128 32
	for p in $SHIMS; do
		dmsetup create "${p%%:*}" --table "0 $(blockdev --getsz "/dev/${p#*:}") linear /dev/${p#*:} 0"
	done
	new=$(dmsetup info -c --noheadings -o major,minor newL | tr -d ' ')
	# A virtual size tiers 0 and 2 hold: tier 1 may go.
	tierctl create $DEV --tier /dev/mapper/hotL --tier /dev/mapper/midL --tier /dev/mapper/coldL \
		--extent-size 1M --size 200M >/dev/null
	rand_bytes $((24 << 20)) >/tmp/data
	dd if=/tmp/data of=$D bs=1M oflag=direct conv=fsync status=none
	SUM=$(dev_sum /tmp/data)
	# Extents on tier 2: their map words are renumbered by each change.
	tierctl migrate $DEV --range 0:16M --tier 2 --wait >/dev/null
	expect_eq "$(tier_mapped $DEV 2)" 16 "extents migrated to tier 2"
	# The counts per tier hold still from here (persisted: every later
	# activation keeps it): no promotion of what the checks read.
	tier_set $DEV auto_migrate 0
	tier_msg $DEV commit

	# rm, cut with the shorter table loaded: the old list.
	load_only "$(table_minus_at 1)"
	power_cut "rm/load"
	expect_eq "$(nr_tiers_now)" 3 "rm/load: tiers"
	expect_eq "$(tier_mapped $DEV 2)" 16 "rm/load: extents on tier 2"
	no_stale "rm/load"
	echo "remove tier 1, cut with the table loaded: 3 tiers, 16 extents still on tier 2"

	# rm, cut after the commit: the new list, coldL's extents on tier 1.
	TIERCTL_TEST_STOP=commit tierctl remove-tier $DEV 1 2>/dev/null
	power_cut "rm/commit"
	expect_eq "$(nr_tiers_now)" 2 "rm/commit: tiers"
	expect_eq "$(tier_mapped $DEV 1)" 16 "rm/commit: extents on tier 1 (was 2)"
	stale_reported "rm/commit" 1
	expect_eq "$(hint coldL)" 2 "rm/commit: coldL's hint not rewritten yet"
	# Running it again completes the cut run instead of removing coldL.
	expect_status 0 "was not removed: an earlier change completed" tierctl remove-tier $DEV 1
	expect_eq "$(nr_tiers_now)" 2 "rm/commit: tiers after running remove-tier again"
	expect_eq "$(hint coldL)" 1 "rm/commit: coldL's hint rewritten"
	expect_status 1 "not a dm-tier member|no dm-tier label|no label" tierctl probe /dev/mapper/midL
	tierctl remove $DEV >/dev/null
	tierctl activate $DEV >/dev/null 2>/tmp/act.err
	no_stale "rm/commit, completed"
	echo "remove tier 1, cut after the commit: 2 tiers, tier 2's extents on tier 1; remove-tier again completed it"

	# add at 1, cut after the label: the old list; the label is stale.
	TIERCTL_TEST_STOP=label tierctl add-tier $DEV /dev/mapper/newL --position 1 2>/dev/null
	power_cut "add/label"
	expect_eq "$(nr_tiers_now)" 2 "add/label: tiers"
	stale_reported "add/label" 1
	echo "add at 1, cut after the label: 2 tiers, stale label reported"

	# add at 1, cut with the longer table loaded: the old list.
	TIERCTL_TEST_STOP=label tierctl add-tier $DEV /dev/mapper/newL --position 1 2>/dev/null
	load_only "$(table_plus_at 1 "$new")"
	power_cut "add/load"
	expect_eq "$(nr_tiers_now)" 2 "add/load: tiers"
	expect_eq "$(tier_mapped $DEV 1)" 16 "add/load: extents on tier 1"
	stale_reported "add/load" 1
	echo "add at 1, cut with the table loaded: 2 tiers, stale label reported"

	# add at 1, cut after the commit: coldL's extents on tier 2; again.
	TIERCTL_TEST_STOP=commit tierctl add-tier $DEV /dev/mapper/newL --position 1 2>/dev/null
	power_cut "add/commit"
	expect_eq "$(nr_tiers_now)" 3 "add/commit: tiers"
	expect_eq "$(tier_mapped $DEV 1)" 0 "add/commit: the new tier 1"
	expect_eq "$(tier_mapped $DEV 2)" 16 "add/commit: extents on tier 2 (was 1)"
	no_stale "add/commit"
	expect_eq "$(hint coldL)" 1 "add/commit: coldL's hint not rewritten yet"
	expect_status 0 "already a member" tierctl add-tier $DEV /dev/mapper/newL --position 1
	expect_eq "$(hint coldL)" 2 "add/commit: coldL's hint rewritten"
	expect_eq "$(hint newL)" 1 "add/commit: newL's hint"
	echo "add at 1, cut after the commit: 3 tiers, tier 1's extents on tier 2; add-tier again rewrote the hints"

	# Data moved to the inserted tier survives a cut.
	tierctl migrate $DEV --range 16M:24M --tier 1 --wait >/dev/null
	[ "$(tier_mapped $DEV 1)" -ge 8 ] || fail "migrate to tier 1: $(tier_summary $DEV)"
	tier_msg $DEV commit
	sleep 2
	power_cut "moved"
	[ "$(tier_mapped $DEV 1)" -ge 8 ] || fail "after the cut, tier 1 maps $(tier_mapped $DEV 1)"
	expect_eq "$(tier_mapped $DEV 2)" 16 "moved: extents on tier 2"
	tierctl remove $DEV >/dev/null
	expect_status 0 "clean" tierctl check $DEV
	echo "8 MiB on the inserted tier survived a cut; check clean"
}
run_guest_phase "$@"

vm --mem 2048 -- "$0" main
