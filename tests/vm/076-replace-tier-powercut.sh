#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: spare
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154
# Power cuts in the middle of tierctl replace-tier (issue 18): four null_blk
# disks with a volatile write cache (tools/nullb) under dm-linear shims;
# three tiers, 48 MiB of data all on tier 1, which is replaced by newL. Cut
# (shims_cut: all I/O fails at once, unflushed writes lost) at each point:
#   add    after the add step (TIERCTL_TEST_STOP=replace:add): four tiers,
#          newL tier 2
#   evac   during the evacuation (1 MiB/s, a few extents moved; Ctrl-C of
#          the command and the request cancelled, committed): tier 1
#          flagged, extents on both, as committed
#   moved  after the evacuate step (replace:evacuate): tier 1 empty
#   commit after the remove step's commit (TIERCTL_TEST_STOP=commit): three
#          tiers, the old disk's label stale (reported by activate)
# After each cut: activate, the data intact, and the same replace-tier
# command resumes at the step the superblock shows (it says which). The
# last run wipes the stale label; newL is tier 1. Then tier 0 (hotL,
# holding 16 MiB and the metadata) is replaced by the freed coldL, cut:
#   add0    after the add step: four tiers, coldL tier 1 with a spare
#           metadata area
#   moved0  after the evacuate step: tier 0 empty
#   torn0   in the remove step's commit, after the map copies reached
#           coldL and before its superblock (its slots fail: dm error):
#           the resume refused, the old tier 0's superblock used
#   commit0 after the remove step's commit: the metadata on coldL (its
#           superblock one generation above hotL's, which activate passes
#           over), coldL's label not rewritten yet, hotL's stale
# After each cut: check (no error), activate, data intact, resumed; the
# end: coldL is tier 0
# holding the metadata, hotL's label wiped, check clean.
. "$(dirname "$0")/lib.sh"
DEV=rp
D=/dev/mapper/$DEV
SHIMS="hotL:hot0 coldL:cold0 midL:mid0 newL:new0"
MIB=48 # of data, all on tier 1: 48 s of evacuation at 1 MiB/s

sha_dev() { dev_sum $D "$1"; }
nr_tiers_now() { tier_stat $DEV nr_tiers; }
probe_tier() { tierctl probe "$1" --json 2>/dev/null | jget '["tier"]'; }

power_cut() { # what
	# shellcheck disable=SC2086 # the pairs
	shims_cut $SHIMS
	tierctl remove $DEV >/dev/null 2>&1 || dmsetup remove --force $DEV >/dev/null 2>&1 || true
	# shellcheck disable=SC2086
	shims_restore $SHIMS
	# The offline check finds the superblock activate will use: no error.
	tierctl check $DEV >/tmp/chk.out 2>&1 || { cat /tmp/chk.out; fail "$1: check after the cut"; }
	tierctl activate $DEV >/tmp/act.out 2>/tmp/act.err ||
		{ cat /tmp/act.err; fail "$1: activate after the cut"; }
	expect_eq "$(sha_dev $MIB)" "$SUM" "$1: data after the cut"
	tier_sane $DEV "$1"
}

# replace-tier again; it must say it resumes at step $2.
RT=1
RNEW=/dev/mapper/newL
resume() { # what step [env]
	local out
	out=$(env ${3:+"$3"} tierctl replace-tier $DEV $RT $RNEW 2>&1) ||
		{ echo "$out"; fail "$1: replace-tier again"; }
	echo "$out" | sed 's/^/  said: /'
	grep -q "resuming at the $2 step" <<<"$out" || fail "$1: not resumed at the $2 step"
}

guest_main() {
	local p pid n out id sz
	"$TOP/tools/nullb" create hot0 96 32
	"$TOP/tools/nullb" create cold0 128 32
	"$TOP/tools/nullb" create mid0 128 32
	"$TOP/tools/nullb" create new0 128 32
	for p in $SHIMS; do
		dmsetup create "${p%%:*}" --table "0 $(blockdev --getsz "/dev/${p#*:}") linear /dev/${p#*:} 0"
	done
	tierctl create $DEV --tier /dev/mapper/hotL --tier /dev/mapper/coldL --tier /dev/mapper/midL --extent-size 1M >/dev/null
	tier_set $DEV auto_migrate 0
	rand_bytes $((MIB << 20)) >/tmp/data
	dd if=/tmp/data of=$D bs=1M oflag=direct conv=fsync status=none
	SUM=$(dev_sum /tmp/data)
	tierctl migrate $DEV --range all --tier 1 --wait >/dev/null
	expect_eq "$(tier_mapped $DEV 1)" $MIB "extents on tier 1"

	# add: cut between the add and the evacuation.
	TIERCTL_TEST_STOP=replace:add tierctl replace-tier $DEV 1 /dev/mapper/newL >/dev/null 2>&1 ||
		fail "add: replace-tier"
	power_cut add
	expect_eq "$(nr_tiers_now)" 4 "add: tiers"
	expect_eq "$(probe_tier /dev/mapper/newL)" 2 "add: newL's tier"
	echo "add: cut after the add step: 4 tiers, newL tier 2"

	# evac: cut in the middle of the evacuation. Ctrl-C of the command
	# once a few extents moved; the kernel's request is cancelled so that
	# the state at the cut is known (flagged, extents on both disks).
	tier_set $DEV migration_bandwidth 1
	tierctl replace-tier $DEV 1 /dev/mapper/newL >/tmp/evac.out 2>&1 &
	pid=$!
	# Ctrl-C as soon as the evacuation is queued: the kernel goes on alone.
	wait_for 60 "[ \"\$(tierctl status $DEV --json | jget '[\"moves\"].__len__()')\" -ge 1 ]" ||
		{ cat /tmp/evac.out; fail "evac: no evacuation queued: $(tierctl status $DEV)"; }
	echo "evac: the evacuation queued: $(tier_summary $DEV)"
	# SIGTERM: a script's background job ignores SIGINT (Ctrl-C).
	kill -TERM "$pid"
	wait "$pid" || true
	grep -q "resuming at the evacuate step" /tmp/evac.out || { cat /tmp/evac.out; fail "evac: not resumed at the evacuate step"; }
	wait_for 60 "[ \$(tier_mapped $DEV 2) -ge 2 ]" || fail "evac: nothing moved: $(tier_summary $DEV)"
	id=$(tierctl status $DEV --json | jget '["moves"][0]["id"]') || fail "evac: the evacuation ended already: $(tier_summary $DEV)"
	tierctl cancel $DEV "$id" >/dev/null || fail "evac: cancel $id"
	tier_set $DEV migration_bandwidth 0
	tier_msg $DEV commit || fail "evac: commit"
	n=$(tier_mapped $DEV 1)
	if [ "$n" -eq 0 ] || [ "$n" -ge $MIB ]; then
		fail "evac: $n extents left on tier 1: $(tier_summary $DEV)"
	fi
	power_cut evac
	expect_eq "$(tier_mapped $DEV 1)" "$n" "evac: extents on tier 1 after the cut"
	expect_eq "$(tier_mapped $DEV 2)" $((MIB - n)) "evac: extents on newL after the cut"
	expect_eq "$(dmsetup status $DEV | awk '{ print $NF }')" 2 "evac: tier 1's evacuate flag after the cut"
	echo "evac: cut with $n of $MIB extents left on tier 1 (request cancelled after Ctrl-C); flag kept"

	# moved: cut after the evacuate step.
	resume moved evacuate TIERCTL_TEST_STOP=replace:evacuate
	power_cut moved
	expect_eq "$(tier_mapped $DEV 1)" 0 "moved: extents on tier 1"
	expect_eq "$(tier_mapped $DEV 2)" $MIB "moved: extents on newL (tier 2)"
	echo "moved: cut after the evacuation: tier 1 empty, $MIB extents on newL"

	# commit: cut after the remove step's commit (old label not wiped).
	resume commit remove TIERCTL_TEST_STOP=commit
	power_cut commit
	expect_eq "$(nr_tiers_now)" 3 "commit: tiers"
	grep -q "carries a label of tier 1 of $DEV that the superblock does not list" /tmp/act.err ||
		{ cat /tmp/act.err; fail "commit: the stale label of coldL was not reported"; }
	echo "commit: cut after the removal's commit: 3 tiers, coldL's stale label reported"

	# done: the last run finds nothing to do but the stale label.
	out=$(tierctl replace-tier $DEV 1 /dev/mapper/newL 2>&1) || { echo "$out"; fail "done: replace-tier"; }
	echo "$out" | sed 's/^/  said: /'
	grep -q "nothing to do but a leftover label" <<<"$out" || fail "done: not finished"
	expect_status 1 "no dm-tier label|not a dm-tier member|no label" tierctl probe /dev/mapper/coldL
	expect_eq "$(probe_tier /dev/mapper/newL)" 1 "done: newL's tier"
	tierctl remove $DEV >/dev/null
	tierctl activate $DEV >/dev/null 2>/tmp/act.err
	! grep -q "does not list" /tmp/act.err || { cat /tmp/act.err; fail "done: a stale label reported"; }
	expect_eq "$(sha_dev $MIB)" "$SUM" "done: data"
	expect_eq "$(tier_mapped $DEV 1)" $MIB "done: extents on the new tier 1"
	tier_sane $DEV "done"

	# Tier 0 (hotL: 16 MiB and the metadata) by the freed coldL.
	RT=0
	RNEW=/dev/mapper/coldL
	tierctl migrate $DEV --range 0:16M --tier 0 --wait >/dev/null || fail "tier 0: migrate"
	expect_eq "$(tier_mapped $DEV 0)" 16 "extents on tier 0"
	TIERCTL_TEST_STOP=replace:add tierctl replace-tier $DEV 0 $RNEW >/dev/null 2>&1 ||
		fail "add0: replace-tier"
	power_cut add0
	expect_eq "$(nr_tiers_now)" 4 "add0: tiers"
	expect_eq "$(probe_tier $RNEW)" 1 "add0: coldL's tier"
	echo "add0: cut after the add step: 4 tiers, coldL tier 1"
	resume moved0 evacuate TIERCTL_TEST_STOP=replace:evacuate
	power_cut moved0
	expect_eq "$(tier_mapped $DEV 0)" 0 "moved0: extents on tier 0"
	expect_eq "$(tier_mapped $DEV 1)" 16 "moved0: extents on coldL (tier 1)"
	echo "moved0: cut after the evacuation: tier 0 empty"
	# torn0: the remove commit cut between its map copies and its
	# superblock: coldL's superblock slots fail (dm error over them), so
	# both copies reach coldL and no superblock; the resume is refused
	# and the previous table comes back.
	sz=$(blockdev --getsz /dev/cold0)
	dmsetup suspend coldL
	printf '0 8 linear /dev/cold0 0\n8 16 error\n24 %s linear /dev/cold0 24\n' $((sz - 24)) |
		dmsetup load coldL
	dmsetup resume coldL
	out=$(tierctl replace-tier $DEV 0 $RNEW 2>&1) &&
		{ echo "$out"; fail "torn0: replaced with coldL's superblock slots failing"; }
	echo "$out" | sed 's/^/  said: /'
	grep -q "the remove step failed" <<<"$out" || fail "torn0: the remove step did not fail"
	power_cut torn0
	expect_eq "$(nr_tiers_now)" 4 "torn0: tiers (the list before the removal)"
	expect_eq "$(tier_mapped $DEV 1)" 16 "torn0: extents on coldL (tier 1)"
	echo "torn0: the switch cut before its superblock: the old tier 0's metadata is used"
	resume commit0 remove TIERCTL_TEST_STOP=commit
	power_cut commit0
	expect_eq "$(nr_tiers_now)" 3 "commit0: tiers"
	grep -q "carries a label of tier 0 of $DEV that the superblock does not list" /tmp/act.err ||
		{ cat /tmp/act.err; fail "commit0: the stale label of hotL was not reported"; }
	expect_eq "$(tier_mapped $DEV 0)" 16 "commit0: extents on coldL (tier 0)"
	dmsetup table $DEV | grep -q " 3 $(lsblk -dno MAJ:MIN $RNEW | tr -d ' ') " ||
		fail "commit0: coldL not tier 0: $(dmsetup table $DEV)"
	echo "commit0: cut after the removal's commit: the metadata on coldL, hotL's stale label reported"
	out=$(tierctl replace-tier $DEV 0 $RNEW 2>&1) || { echo "$out"; fail "done0: replace-tier"; }
	echo "$out" | sed 's/^/  said: /'
	grep -q "nothing to do but a leftover label" <<<"$out" || fail "done0: not finished"
	expect_status 1 "no dm-tier label|not a dm-tier member|no label" tierctl probe /dev/mapper/hotL
	expect_eq "$(probe_tier $RNEW)" 0 "done0: coldL's tier"
	tierctl remove $DEV >/dev/null
	tierctl activate $DEV >/dev/null 2>/tmp/act.err
	! grep -q "does not list" /tmp/act.err || { cat /tmp/act.err; fail "done0: a stale label reported"; }
	expect_eq "$(sha_dev $MIB)" "$SUM" "done0: data"
	expect_eq "$(tier_mapped $DEV 0)" 16 "done0: extents on the new tier 0"
	tier_sane $DEV "done0"
	tierctl remove $DEV >/dev/null
	expect_status 0 "clean" tierctl check $DEV
	no_kernel_warning "replace-tier power cuts"
	echo "replace-tier: cuts after add, during and after the evacuation, after the removal's commit, of tier 1 and of tier 0: data intact, resumed each time; check clean"
}
run_guest_phase "$@"

vm --mem 2048 -- "$0" main
