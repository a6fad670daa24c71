#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154
# The tier-list lifecycle again with a separate metadata device (issue 18:
# "everything again with a separate metadata device"). Metadata on its own
# drive, tiers 96M + 256M, virtual size 320M, XFS with checksummed files and
# a fio crc32c write+verify loop running throughout:
#   replace   replace-tier 1 with a new drive (add at 2, evacuate to it,
#             remove: the new drive is tier 1); the metadata device is
#             still the one the table names
#   insert    add-tier --position 1: a drive between the two tiers; data
#             migrated onto it
#   middle    evacuate the middle tier, remove-tier 1 (the tier after it is
#             renumbered)
#   tier0     replace-tier 0 (extents on it) with the freed middle drive:
#             added at 1, tier 0 evacuated onto it and removed; the new
#             drive is tier 0, the old one's label wiped, the metadata
#             device unchanged (no metadata moves)
# Then fio verified everything, xfs_repair -n and tierctl check are clean,
# remove/activate finds the members and the metadata device by label with
# the new list, files verified, used = mapped.
. "$(dirname "$0")/lib.sh"
DEV=lm
D=/dev/mapper/$DEV
MNT=/mnt/lm

nr_tiers_now() { tier_stat $DEV nr_tiers; }
same_dev() { [ "$(readlink -f "$1")" = "$(readlink -f "$2")" ]; }
tier_dev_is() { # tier dev what
	local p
	p=$(tierctl status $DEV --json | jget "[\"tiers\"][$1][\"device\"]")
	same_dev "$p" "$2" || fail "$3: tier $1 is $p, not $2"
}
meta_dev_is() { # dev what
	local p
	p=$(tierctl status $DEV --json | jget '["metadata_device"]')
	same_dev "$p" "$1" || fail "$2: the metadata device is $p, not $1"
}

guest_main() {
	local META=$DMT_NVME0 T0=$DMT_NVME1 T1=$DMT_NVME2 NEW0=$DMT_NVME3 MID=$DMT_NVME4
	local fio_pid runs
	mkdir -p $MNT
	tierctl create $DEV --metadata-dev "$META" --tier "$T0" --tier "$T1" \
		--extent-size 1M --size 320M >/dev/null
	meta_dev_is "$META" "create"
	mkfs.xfs -q $D
	mount $D $MNT
	mkdir $MNT/a $MNT/fio
	write_files $MNT/a 8 4 /tmp/sums
	rm -f /tmp/fio.stop /tmp/fio.failed
	fio_verify_loop $MNT/fio &
	fio_pid=$!
	sleep 3

	# ---- replace: tier 1 by a new drive.
	tierctl migrate $DEV --range 0:32M --tier 1 --wait >/dev/null || fail "replace: migrate to tier 1"
	[ "$(tier_mapped $DEV 1)" -gt 0 ] || fail "replace: nothing on tier 1 to move"
	tierctl replace-tier $DEV 1 "$NEW0" >/tmp/rep.out 2>&1 || { cat /tmp/rep.out; fail "replace: replace-tier 1"; }
	cat /tmp/rep.out
	expect_eq "$(nr_tiers_now)" 2 "replace: tiers"
	tier_dev_is 0 "$T0" "replace"
	tier_dev_is 1 "$NEW0" "replace"
	meta_dev_is "$META" "replace"
	[ "$(tier_mapped $DEV 1)" -gt 0 ] || fail "replace: nothing on the new tier 1: $(tier_summary $DEV)"
	tier_sane $DEV "replace"
	echo "replace: tier 1 replaced online, metadata device unchanged"

	# ---- insert
	tierctl add-tier $DEV "$MID" --position 1 >/dev/null || fail "insert: add-tier --position 1"
	expect_eq "$(nr_tiers_now)" 3 "insert: tiers"
	tier_dev_is 1 "$MID" "insert"
	tier_dev_is 2 "$NEW0" "insert"
	tierctl migrate $DEV --range 0:48M --tier 1 --wait >/dev/null || fail "insert: migrate to tier 1"
	[ "$(tier_mapped $DEV 1)" -gt 0 ] || fail "insert: nothing on the inserted tier: $(tier_summary $DEV)"
	tier_sane $DEV "insert"
	echo "insert: a drive added between the tiers, data migrated onto it"

	# ---- middle
	tierctl evacuate $DEV 1 --wait >/dev/null || fail "middle: evacuate 1"
	tierctl remove-tier $DEV 1 >/dev/null || fail "middle: remove-tier 1"
	expect_eq "$(nr_tiers_now)" 2 "middle: tiers"
	tier_dev_is 0 "$T0" "middle"
	tier_dev_is 1 "$NEW0" "middle"
	meta_dev_is "$META" "middle"
	tier_sane $DEV "middle"
	echo "middle: the middle tier evacuated and removed"

	# ---- tier0: tier 0 by the freed middle drive.
	tierctl migrate $DEV --range 0:32M --tier 0 --wait >/dev/null || fail "tier0: migrate to tier 0"
	[ "$(tier_mapped $DEV 0)" -gt 0 ] || fail "tier0: nothing on tier 0 to move"
	tierctl replace-tier $DEV 0 "$MID" >/tmp/rep0.out 2>&1 || { cat /tmp/rep0.out; fail "tier0: replace-tier 0"; }
	cat /tmp/rep0.out
	grep -q "tier 0 is $MID now" /tmp/rep0.out || fail "tier0: no summary"
	expect_eq "$(nr_tiers_now)" 2 "tier0: tiers"
	tier_dev_is 0 "$MID" "tier0"
	tier_dev_is 1 "$NEW0" "tier0"
	meta_dev_is "$META" "tier0"
	[ "$(tier_mapped $DEV 0)" -gt 0 ] || fail "tier0: nothing on the new tier 0: $(tier_summary $DEV)"
	expect_status 1 "no dm-tier label|not a dm-tier member|no label" tierctl probe "$T0"
	tier_sane $DEV "tier0"
	echo "tier0: tier 0 replaced online, metadata device unchanged"

	touch /tmp/fio.stop
	wait $fio_pid
	runs=$(cat /tmp/fio.runs)
	[ ! -e /tmp/fio.failed ] || fail "fio verify failed in runs $(cat /tmp/fio.failed) of $runs"
	check_files $MNT/a /tmp/sums
	umount $MNT
	xfs_repair -n $D >/tmp/repair.log 2>&1 || { cat /tmp/repair.log; fail "xfs_repair -n"; }
	tierctl remove $DEV >/dev/null
	expect_status 0 "$DEV: clean \\(0 errors, 0 warnings\\)" tierctl check $DEV
	tierctl activate $DEV >/tmp/act.out 2>&1 || { cat /tmp/act.out; fail "activate"; }
	! grep -q "does not list" /tmp/act.out || { cat /tmp/act.out; fail "activate: a stale label"; }
	expect_eq "$(nr_tiers_now)" 2 "activate: tiers"
	tier_dev_is 0 "$MID" "activate"
	tier_dev_is 1 "$NEW0" "activate"
	meta_dev_is "$META" "activate"
	mount $D $MNT
	check_files $MNT/a /tmp/sums
	umount $MNT
	tier_sane $DEV final
	tierctl remove $DEV >/dev/null
	echo "$runs fio verify passes, files intact, xfs_repair and check clean; activated by label"
	no_kernel_warning "078"
}
run_guest_phase "$@"

vm --fresh --nvme 16M --nvme 96M --nvme 256M --nvme 320M --nvme 128M -- "$0" main
