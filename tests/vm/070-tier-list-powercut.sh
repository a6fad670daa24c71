#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: spare
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154
# Power cuts in the middle of tierctl add-tier and remove-tier: three
# null_blk disks with a volatile write cache (tools/nullb) under dm-linear
# shims, cut (shims_cut: all I/O fails at once, then every unflushed write
# is lost) at each step of each command:
#   add   after the label is written (TIERCTL_TEST_STOP=label), after the
#         table with the new tier is loaded but not resumed, after the
#         kernel's commit (TIERCTL_TEST_STOP=commit, label hints not
#         rewritten)
#   rm    after the table without the tier is loaded, after the commit
#         (removed device's label not wiped)
# After each cut the device activates with the old list (before the commit)
# or the new one (after it), the data written before is intact, a label the
# superblock does not list is reported and left out, and running the
# command again completes it. Data moved to the added tier survives a cut.
. "$(dirname "$0")/lib.sh"
DEV=pc
D=/dev/mapper/$DEV
SHIMS="hotL:hot0 coldL:cold0 newL:new0"

sha_dev() { dev_sum $D "$1"; }
nr_tiers_now() { tier_stat $DEV nr_tiers; }

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
}

stale_reported() { # what
	grep -q "carries a label of tier 2 of $DEV that the superblock does not list" /tmp/act.err ||
		{ cat /tmp/act.err; fail "$1: the stale label on newL was not reported"; }
}
no_stale() { # what
	! grep -q "does not list" /tmp/act.err || { cat /tmp/act.err; fail "$1: a stale label reported"; }
}

# The table of the live device with the new disk appended / the last dropped.
table_plus() { dmsetup table $DEV | awk -v d="$(dmsetup info -c --noheadings -o major,minor newL | tr -d ' ')" '{ $5 = $5 + 1; n = 5 + $5 - 1; out = ""; for (i = 1; i <= NF; i++) { out = out (i > 1 ? " " : "") $i; if (i == n) out = out " " d } print out }' | cut -d' ' -f4-; }
table_minus() { dmsetup table $DEV | awk '{ n = 5 + $5; out = ""; for (i = 1; i <= NF; i++) if (i != n) out = out (out ? " " : "") $i; print out }' | awk '{ $5 = $5 - 1; print }' | cut -d' ' -f4-; }
load_only() { # table-params
	dmsetup reload $DEV --table "0 $(blockdev --getsz $D) tier $1"
}

guest_main() {
	"$TOP/tools/nullb" create hot0 96 32
	"$TOP/tools/nullb" create cold0 256 32
	"$TOP/tools/nullb" create new0 128 32
	local p
	for p in $SHIMS; do
		dmsetup create "${p%%:*}" --table "0 $(blockdev --getsz "/dev/${p#*:}") linear /dev/${p#*:} 0"
	done
	tierctl create $DEV --tier /dev/mapper/hotL --tier /dev/mapper/coldL --extent-size 1M >/dev/null
	rand_bytes $((24 << 20)) >/tmp/data
	dd if=/tmp/data of=$D bs=1M oflag=direct conv=fsync status=none
	SUM=$(dev_sum /tmp/data)

	# add, cut after the label: the old list; the label is stale; again.
	TIERCTL_TEST_STOP=label tierctl add-tier $DEV /dev/mapper/newL 2>/dev/null
	power_cut "add/label"
	expect_eq "$(nr_tiers_now)" 2 "add/label: tiers"
	stale_reported "add/label"
	tierctl add-tier $DEV /dev/mapper/newL >/dev/null
	expect_eq "$(nr_tiers_now)" 3 "add/label: tiers after running add-tier again"
	echo "add, cut after the label: 2 tiers, stale label reported; add-tier again: 3 tiers"

	# remove, cut with the shorter table loaded: the old list.
	load_only "$(table_minus)"
	power_cut "rm/load"
	expect_eq "$(nr_tiers_now)" 3 "rm/load: tiers"
	no_stale "rm/load"
	echo "remove, cut with the table loaded: 3 tiers"

	# remove, cut after the commit: the new list; the label is stale; again.
	TIERCTL_TEST_STOP=commit tierctl remove-tier $DEV 2 2>/dev/null
	power_cut "rm/commit"
	expect_eq "$(nr_tiers_now)" 2 "rm/commit: tiers"
	stale_reported "rm/commit"
	expect_status 0 "stale label wiped on /dev/" tierctl remove-tier $DEV 2
	tierctl remove $DEV >/dev/null
	tierctl activate $DEV >/dev/null 2>/tmp/act.err
	no_stale "rm/commit, completed"
	echo "remove, cut after the commit: 2 tiers, stale label reported; remove-tier again wiped it"

	# add, cut with the longer table loaded (label written): the old list.
	TIERCTL_TEST_STOP=label tierctl add-tier $DEV /dev/mapper/newL 2>/dev/null
	load_only "$(table_plus)"
	power_cut "add/load"
	expect_eq "$(nr_tiers_now)" 2 "add/load: tiers"
	stale_reported "add/load"
	echo "add, cut with the table loaded: 2 tiers, stale label reported"

	# add, cut after the commit: the new list with stale hints; again.
	TIERCTL_TEST_STOP=commit tierctl add-tier $DEV /dev/mapper/newL 2>/dev/null
	power_cut "add/commit"
	expect_eq "$(nr_tiers_now)" 3 "add/commit: tiers"
	no_stale "add/commit"
	expect_eq "$(tierctl probe /dev/mapper/hotL --json | jget '["nr_tiers"]')" 2 "add/commit: tier 0's hint"
	expect_status 0 "already a member" tierctl add-tier $DEV /dev/mapper/newL
	expect_eq "$(tierctl probe /dev/mapper/hotL --json | jget '["nr_tiers"]')" 3 "add/commit: tier 0's hint rewritten"
	echo "add, cut after the commit: 3 tiers; add-tier again rewrote the hints"

	# Data moved to the added tier survives a cut.
	tierctl migrate $DEV --range 0:16M --tier 2 --wait >/dev/null
	expect_eq "$(tier_mapped $DEV 2)" 16 "migrate to tier 2: $(tier_summary $DEV)"
	# The count holds still from here (persisted, so the activation after
	# the cut keeps it): power_cut reads the 24 MiB back, about 8 reads per
	# extent, which makes every extent hot enough (promote_hits 4) for the
	# policy to promote it from tier 2 to tier 0 before the count is read.
	tier_set $DEV auto_migrate 0
	tier_msg $DEV commit
	power_cut "moved"
	expect_eq "$(tier_mapped $DEV 2)" 16 "after the cut, extents on tier 2"
	tier_sane $DEV final
	tierctl remove $DEV >/dev/null
	expect_status 0 "clean" tierctl check $DEV
	echo "16 MiB on the added tier survived a cut; check clean"
}
run_guest_phase "$@"

vm --mem 2048 -- "$0" main
