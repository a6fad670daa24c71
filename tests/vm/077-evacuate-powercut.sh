#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: spare
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154
# Power cuts in the middle of tierctl evacuate (issue 18: "a power cut in
# the middle of each operation"). Three null_blk disks with a volatile write
# cache under dm-linear shims (as 070); 32 MiB of the data on tier 2.
#   mid     tier 2 is evacuated at 1 MiB/s; the power is cut after some
#           extents moved and a commit recorded them, with copies still in
#           flight. The device activates with every byte intact; tier 2 is
#           "stopped" (the evacuate flag is in the superblock, the request
#           is not), holds fewer extents than before and takes no new ones;
#           'tierctl evacuate' again empties it.
#   done    a cut right after the evacuation ended: tier 2 is "empty" after
#           activation. Removing it is refused, by tierctl and by the
#           kernel: the device's virtual size is all three tiers, and a
#           superblock larger than its tiers would not activate again (the
#           bug this found: remove-tier committed it, check called it bad).
# Then tierctl check is clean and used = mapped.
. "$(dirname "$0")/lib.sh"
DEV=ev
D=/dev/mapper/$DEV
SHIMS="hotL:hot0 midL:mid0 coldL:cold0"

sha_dev() { dev_sum $D "$1"; }
tier2_state() { tierctl status $DEV --json | jget '["tiers"][2]["evacuation"]'; }
moves() { tierctl status $DEV --json | jget "$1"; }
# The live table's parameters without the last tier (as 070).
table_minus() { dmsetup table $DEV | awk '{ n = 5 + $5; out = ""; for (i = 1; i <= NF; i++) if (i != n) out = out (out ? " " : "") $i; print out }' | awk '{ $5 = $5 - 1; print }' | cut -d' ' -f4-; }

# Cut the power, deactivate, power on, activate; the data must be intact.
power_cut() { # what mib sum
	# shellcheck disable=SC2086 # the pairs
	shims_cut $SHIMS
	tierctl remove $DEV >/dev/null 2>&1 || dmsetup remove --force $DEV >/dev/null 2>&1 || true
	# shellcheck disable=SC2086
	shims_restore $SHIMS
	tierctl activate $DEV >/tmp/act.out 2>/tmp/act.err ||
		{ cat /tmp/act.err; fail "$1: activate after the cut"; }
	expect_eq "$(sha_dev "$2")" "$3" "$1: data after the cut"
}

guest_main() {
	local p before left id
	"$TOP/tools/nullb" create hot0 96 32
	"$TOP/tools/nullb" create mid0 96 32
	"$TOP/tools/nullb" create cold0 256 32
	for p in $SHIMS; do
		dmsetup create "${p%%:*}" --table "0 $(blockdev --getsz "/dev/${p#*:}") linear /dev/${p#*:} 0"
	done
	tierctl create $DEV --tier /dev/mapper/hotL --tier /dev/mapper/midL \
		--tier /dev/mapper/coldL --extent-size 1M >/dev/null
	tier_set $DEV auto_migrate 0
	rand_bytes $((48 << 20)) >/tmp/data
	dd if=/tmp/data of=$D bs=1M oflag=direct conv=fsync status=none
	tierctl migrate $DEV --range 0:32M --tier 2 --wait >/dev/null || fail "migrate to tier 2"
	dmsetup message $DEV 0 commit
	before=$(tier_mapped $DEV 2)
	[ "$before" -ge 32 ] || fail "setup: tier 2 maps $before extents: $(tier_summary $DEV)"
	SUM=$(dev_sum /tmp/data)

	# ---- mid: cut with the evacuation under way
	tier_set $DEV migration_bandwidth 1
	id=$(tierctl evacuate $DEV 2 --json | jget '["move_id"]') || fail "mid: evacuate"
	wait_for 60 "[ \$(moves '[\"moves\"][0][\"done_extents\"]') -ge 3 ]" ||
		fail "mid: nothing moved in 60 s: $(tierctl status $DEV)"
	# The moved extents and the flag committed (a periodic commit would,
	# 1 s later or more on a loaded host).
	tier_msg $DEV commit || fail "mid: commit"
	expect_eq "$(moves '["moves"].__len__()')" 1 "mid: request $id still queued at the cut"
	power_cut "mid" 48 "$SUM"
	left=$(tier_mapped $DEV 2)
	if [ "$left" -eq 0 ] || [ "$left" -ge "$before" ]; then
		fail "mid: tier 2 maps $left extents after the cut (had $before; want fewer, not 0)"
	fi
	expect_eq "$(tier2_state)" stopped "mid: tier 2 after activation"
	expect_eq "$(moves '["moves"].__len__()')" 0 "mid: requests after activation"
	tier_sane $DEV "mid"
	echo "mid: cut during the evacuation: data intact, tier 2 stopped with $left of $before extents"
	# It takes nothing new: 8 MiB more land elsewhere.
	rand_bytes $((8 << 20)) >>/tmp/data
	dd if=/tmp/data of=$D bs=1M skip=48 seek=48 count=8 oflag=direct conv=fsync status=none
	dmsetup message $DEV 0 commit
	expect_eq "$(tier_mapped $DEV 2)" "$left" "mid: tier 2 extents after more writes"
	SUM=$(dev_sum /tmp/data)
	# Resumed at full speed: empty.
	tier_set $DEV migration_bandwidth 0
	tierctl evacuate $DEV 2 --wait >/dev/null || fail "mid: evacuate again"
	expect_eq "$(tier_mapped $DEV 2)" 0 "mid: tier 2 extents after evacuate again"
	expect_eq "$(tier2_state)" empty "mid: tier 2 after evacuate again"
	expect_eq "$(sha_dev 56)" "$SUM" "mid: data after evacuate again"
	echo "mid: evacuate again emptied tier 2"

	# ---- done: cut right after the end
	dmsetup message $DEV 0 commit
	power_cut "done" 56 "$SUM"
	expect_eq "$(tier_mapped $DEV 2)" 0 "done: tier 2 extents after the cut"
	expect_eq "$(tier2_state)" empty "done: tier 2 after activation"
	# The device's virtual size is all three tiers' capacity: without
	# tier 2 it would be larger than its tiers (its superblock would not
	# decode at the next activation). Refused by tierctl and the kernel.
	expect_status 1 "without tier 2, $DEV has .* of capacity for a virtual size of .*; shrink the device first \\(tierctl resize $DEV --size\\) or add a tier" \
		tierctl remove-tier $DEV 2
	! dmsetup reload $DEV --table "0 $(blockdev --getsz $D) tier $(table_minus)" 2>/dev/null ||
		fail "done: the kernel loaded a table without tier 2"
	klog_has "The other tiers are smaller than the device's virtual size" ||
		fail "done: no kernel message for the refused table"
	expect_eq "$(tier_stat $DEV nr_tiers)" 3 "done: tiers after the refusals"
	expect_eq "$(sha_dev 56)" "$SUM" "done: data after the refusals"
	tier_sane $DEV final
	tierctl remove $DEV >/dev/null
	expect_status 0 "clean" tierctl check $DEV
	echo "done: cut after the evacuation: tier 2 empty; removing it refused (virtual size); check clean"
	no_kernel_warning "077"
}
run_guest_phase "$@"

vm --mem 2048 -- "$0" main
