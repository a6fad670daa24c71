#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154  # status variables come from tier_eval
# The tier list changes online (tierctl add-tier, remove-tier). Two tiers
# with XFS, checksummed files and a fio crc32c write+verify loop running
# the whole time:
#   foreign   a disk carrying a filesystem (ext4) is refused by add-tier,
#             which names it and says --force erases it; nothing is written
#             and the filesystem is intact; with --force it is erased
#             (blkid finds nothing) and added
#   add       a third tier is appended with a table reload; new allocations
#             and migration use it at once (migrate of everything to tier 2)
#   refuse    removing the non-empty tier 2 (or 1) is refused with its extent
#             count and the evacuate hint; tier 0 and positions 0 and past
#             the end are refused (071 tests changes in the middle)
#   remove    migrated back, tier 2 is removed (the last tier), its label
#             wiped; a copy of that label left on another disk is a stale
#             label: activate warns and ignores it, remove-tier wipes it
#   again     the same disk is added again
# Then remove/activate keeps the three tiers, xfs_repair -n and tierctl check
# are clean, and a second boot activates the same list with the files
# intact; used = mapped throughout.
. "$(dirname "$0")/lib.sh"
DEV=tl
D=/dev/mapper/$DEV
MNT=/mnt/tl


nr_tiers_now() { tier_stat $DEV nr_tiers; }

guest_first() {
	local n2 out fio_pid id tbl
	mkdir -p $MNT
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --extent-size 1M >/dev/null
	mkfs.xfs -q $D
	mount $D $MNT
	mkdir $MNT/a $MNT/fio
	write_files $MNT/a 8 4 /tmp/sums
	rm -f /tmp/fio.stop /tmp/fio.failed
	fio_verify_loop $MNT/fio &
	fio_pid=$!
	sleep 3

	# foreign: a filesystem on the new disk, refused without --force.
	mkfs.ext4 -q -F "$DMT_NVME2"
	expect_status 1 "add-tier: $DMT_NVME2 carries a filesystem \\(ext4\\); refusing to overwrite it.*--force to erase it" \
		tierctl add-tier $DEV "$DMT_NVME2" --class nvme
	expect_eq "$(nr_tiers_now)" 2 "foreign: tiers after the refusal"
	expect_eq "$(blkid -p -s TYPE -o value "$DMT_NVME2")" ext4 "foreign: the filesystem after the refusal"
	expect_status 1 "no dm-tier label|not a dm-tier member|no label" tierctl probe "$DMT_NVME2"
	# The same through replace-tier's add step: nothing changes.
	expect_status 1 "carries a filesystem \\(ext4\\).*the add step failed" \
		tierctl replace-tier $DEV 1 "$DMT_NVME2"
	expect_eq "$(nr_tiers_now)" 2 "foreign: tiers after the refused replace-tier"

	# add: the third tier (--force erases the ext4), used at once by a
	# migration.
	out=$(tierctl add-tier $DEV "$DMT_NVME2" --class nvme --force --json)
	echo "add-tier: $out"
	expect_eq "$(jget '["tier"]' <<<"$out")" 2 "add-tier: new tier index"
	expect_eq "$(nr_tiers_now)" 3 "tiers after add-tier"
	expect_eq "$(tierctl probe "$DMT_NVME2" --json | jget '["tier"]')" 2 "label of the new tier"
	expect_eq "$(blkid -p -s TYPE -o value "$DMT_NVME2")" "" "add --force: signatures left on the new tier"
	tierctl status $DEV | grep -E "^ *2 " || { tierctl status $DEV; fail "status does not list tier 2"; }
	tierctl migrate $DEV --range 0:48M --tier 2 --wait >/dev/null
	n2=$(tier_mapped $DEV 2)
	[ "$n2" -gt 0 ] || fail "migrate --tier 2 moved nothing: $(tier_summary $DEV)"
	echo "add: tier 2 holds $n2 extents after migrate: $(tier_summary $DEV)"
	tier_sane $DEV add

	# refuse: a tier with data, a middle tier, tier 0.
	expect_status 1 "tier 2 holds [0-9]+ extents \\([0-9.]+ [KMG]iB\\): run tierctl evacuate $DEV 2 first" \
		tierctl remove-tier $DEV 2
	expect_status 1 "tier 1 holds [0-9]+ extents .*: run tierctl evacuate $DEV 1 first" \
		tierctl remove-tier $DEV 1
	expect_status 2 "tier 0 cannot be removed" tierctl remove-tier $DEV 0
	expect_status 2 "position 0 is tier 0" tierctl add-tier $DEV "$DMT_NVME3" --position 0
	expect_status 1 "position goes from 1 to 3" tierctl add-tier $DEV "$DMT_NVME3" --position 4
	expect_eq "$(nr_tiers_now)" 3 "tiers after the refusals"

	# remove: migrated back, tier 2 goes, its label is wiped.
	tierctl migrate $DEV --range all --tier 1 --wait >/dev/null
	tier_wait $DEV 30 "[ \$mapped2 = 0 ]" || fail "tier 2 not empty: $(tier_summary $DEV)"
	dd if="$DMT_NVME2" of="$DMT_NVME3" bs=4096 count=1 conv=fsync status=none
	out=$(tierctl remove-tier $DEV 2 --json)
	echo "remove-tier: $out"
	expect_eq "$(nr_tiers_now)" 2 "tiers after remove-tier"
	expect_eq "$(dmsetup table $DEV | awk '{ print $5 }')" 2 "table's tier count"
	expect_status 1 "not a dm-tier member|no dm-tier label|no label" tierctl probe "$DMT_NVME2"
	tier_sane $DEV remove

	# again: the same disk comes back as tier 2.
	tierctl add-tier $DEV "$DMT_NVME2" >/dev/null
	expect_eq "$(nr_tiers_now)" 3 "tiers after the second add-tier"
	# A queued move to the tier: removing it is refused by tierctl, and
	# by the kernel for a table loaded without tierctl, naming the move.
	tier_set $DEV migration_bandwidth 1
	id=$(tierctl migrate $DEV --range all --tier 2 --json | jget '["move_id"]')
	expect_status 1 "move $id \\(migrate to tier 2\\) targets the tier being removed: cancel it \\(tierctl cancel $DEV $id\\)" \
		tierctl remove-tier $DEV 2
	tbl=$(dmsetup table $DEV | awk '{ n = 5 + $5; out = ""; for (i = 1; i <= NF; i++) if (i != n) out = out (out ? " " : "") $i; print out }' | awk '{ $5 = $5 - 1; $1 = ""; $2 = ""; $3 = ""; print }')
	! dmsetup reload $DEV --table "0 $(blockdev --getsz $D) tier $tbl" 2>/dev/null ||
		fail "the kernel loaded a table without tier 2 while a move to it was queued"
	klog_has "Move $id (migrate to tier 2) targets the tier being removed" ||
		fail "no 'Move $id ... targets the tier being removed' in the kernel log"
	tierctl cancel $DEV "$id" >/dev/null || true
	tier_set $DEV migration_bandwidth 0
	expect_eq "$(nr_tiers_now)" 3 "tiers after the refused removal"
	tierctl migrate $DEV --range 0:8M --tier 2 --wait >/dev/null
	[ "$(tier_mapped $DEV 2)" -gt 0 ] || fail "nothing moved to the re-added tier"
	sleep 3
	touch /tmp/fio.stop
	wait "$fio_pid"
	[ ! -e /tmp/fio.failed ] || fail "fio verify failed in run(s) $(tr '\n' ' ' </tmp/fio.failed)"
	echo "fio: $(cat /tmp/fio.runs) write+verify runs, 0 verify errors"
	check_files $MNT/a /tmp/sums
	cp /tmp/sums $MNT/sums # for the second boot
	tier_sane $DEV again
	umount $MNT

	# remove/activate: the superblock's list; the stale label is ignored.
	tierctl remove $DEV >/dev/null
	expect_status 0 "$DMT_NVME3 carries a label of tier 2 of $DEV that the superblock does not list" \
		tierctl activate $DEV
	expect_eq "$(nr_tiers_now)" 3 "tiers after activate"
	expect_status 0 "stale label wiped on $DMT_NVME3" tierctl remove-tier $DEV 3
	xfs_repair -n $D >/tmp/xfs_repair.out 2>&1 || { cat /tmp/xfs_repair.out; fail "xfs_repair -n"; }
	tier_sane $DEV activate
	tierctl remove $DEV >/dev/null
	expect_status 0 "clean" tierctl check $DEV
	echo "boot 1: add, refuse, remove, add again with fio verifying; activate and check clean"
}

guest_second() {
	local out
	mkdir -p $MNT
	out=$(tierctl activate $DEV 2>&1)
	[[ $out != *"does not list"* ]] || fail "stale label after the wipe: $out"
	expect_eq "$(nr_tiers_now)" 3 "tiers after the reboot"
	mount $D $MNT
	check_files $MNT/a $MNT/sums
	umount $MNT
	xfs_repair -n $D >/tmp/xfs_repair.out 2>&1 || { cat /tmp/xfs_repair.out; fail "xfs_repair -n after the reboot"; }
	tier_sane $DEV reboot
	tierctl remove $DEV >/dev/null
	expect_status 0 "clean" tierctl check $DEV
	echo "boot 2: three tiers, files intact, check clean"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 256M --nvme 128M --nvme 128M -- "$0" first
vm --nvme 64M --nvme 256M --nvme 128M --nvme 128M -- "$0" second
