#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh
# What a failed preresume leaves the pool using. device-mapper swaps a new
# table in before its preresume; when that fails, the device stays
# suspended with the new table and the previous one is destroyed, with the
# devices only it held. Three tiers over dm-linear shims (tier 2: shim2):
#   removal   tier 2's removal is loaded with dmsetup (no tierctl to reload
#             the previous table at once) while tier 0's superblock slots
#             fail: the removal's commit fails at preresume, the device
#             stays suspended, and the pool still uses tier 2, which no
#             table holds now. shim2 is removed and created again: the same
#             device number, another block device. The previous table
#             reloaded over it re-binds tier 2 by its label and resumes;
#             once tier 0 is healed the mode is rw again, status names the
#             tier, extents migrate to tier 2 and back, the data reads back
#             and the map checks. In the failed state `tierctl status`
#             says the tier-list change failed at resume and what to do
#             (before: "status and table disagree; is tierctl older").
#   held      tier 2's removal fails at preresume, then a table inserting a
#             tier at 1 resumes over it (tier 2 becomes 3) and the failed
#             table is destroyed: tier 3 takes extents again (moves there
#             and back, data intact) and can be removed. Before: the
#             destroyed table released the hold by its old index (2), so
#             tier 3 stayed held (migrate: ENOSPC; remove-tier: "another
#             table without this tier is loaded already").
#   shrink    a table of half the size is loaded, the device suspended, a
#             move queued (migrate), so the shrink's preresume fails
#             (moves queued): `tierctl status` lists the move and `tierctl
#             cancel` cancels it; the same table loaded again by hand
#             resumes and shrinks the device (virt_extents 32); data and
#             map intact.
# Before the fixes the pool held no reference on its devices and compared
# them by device number: it went on with the removed shim's freed
# block_device (KASAN use-after-free in status and the commits' flushes,
# and migrations to tier 2 failed). It took the live table only at resume,
# so after a failed preresume netlink did not find the device (status,
# cancel: "no such device"); and it resized only for a length other than
# the live table's, so the failed shrink table, loaded again, resumed
# without shrinking.
. "$(dirname "$0")/lib.sh"
DEV=fr87
D=/dev/mapper/$DEV
SDEV=fs87
HDEV=hd87

shim0_ok() { printf '0 %s linear %s 0\n' "$SZ" "$A"; }
# Sectors 8..23: both superblock slots (docs/FORMAT.md).
shim0_bad() { printf '0 8 linear %s 0\n8 16 error\n24 %s linear %s 24\n' "$A" $((SZ - 24)) "$A"; }
shim0_swap() { "$1" | dmsetup load shim0 && dmsetup suspend shim0 && dmsetup resume shim0; }
# Tiers 1 and 2: 64 MiB each of the second disk.
shim_of() { printf '0 131072 linear %s %s\n' "$B" $(($1 * 131072)); }
devno() { dmsetup info -c --noheadings -o major,minor "$1"; }
mode() { tier_stat $DEV mode; }

step_removal() {
	local table new sum no2
	tierctl create $DEV --tier /dev/mapper/shim0 --tier /dev/mapper/shim1 \
		--tier /dev/mapper/shim2 --extent-size 1M --size 64M --force >/dev/null
	tier_set $DEV auto_migrate 0
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M count=8 oflag=direct conv=fsync status=none
	sum=$(dev_sum $D 8)
	table=$(dmsetup table $DEV)
	# "0 LEN tier EXTENT 3 DEV0 DEV1 DEV2 ...": the same without DEV2.
	new=$(awk '{ $5 = 2; $8 = ""; print }' <<<"$table" | tr -s ' ')
	no2=$(devno shim2)

	# ---- removal
	shim0_swap shim0_bad
	dmsetup reload $DEV --table "$new" || fail "removal: the table without tier 2 did not load"
	bounded 60 "removal: dmsetup suspend" dmsetup suspend $DEV
	! dmsetup resume $DEV 2>/dev/null || fail "removal: resumed though the commit of the tier list failed"
	klog_has "tier list change 3 -> 2 failed" || fail "removal: no failed tier list change in dmesg"
	expect_status 1 "suspended with a table of 2 tiers while the device has 3.*dmsetup reload" \
		tierctl status $DEV
	# The previous table is gone: no table holds shim2.
	bounded 60 "removal: dmsetup remove shim2" dmsetup remove --retry shim2
	shim_of 1 | dmsetup create shim2
	expect_eq "$(devno shim2)" "$no2" "removal: shim2's device number after creating it again"
	shim0_swap shim0_ok
	dmsetup reload $DEV --table "$table" || fail "removal: the previous table did not load"
	bounded 60 "removal: dmsetup resume" dmsetup resume $DEV ||
		fail "removal: the previous table did not resume: $(dmesg | grep 'tier:' | tail -n 3)"
	tierctl status $DEV >/tmp/st.out || { cat /tmp/st.out; fail "removal: tierctl status"; }
	wait_for 30 '[ "$(mode)" = rw ]' || fail "removal: metadata mode $(mode), not rw, after tier 0 healed"
	tier_msg $DEV migrate 0 $((4 * 2048)) 2 || fail "removal: migrate to tier 2"
	tier_wait $DEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped2 = 4 ]' ||
		fail "removal: the migration to tier 2 did not end: $(tier_summary $DEV)"
	tier_msg $DEV commit || fail "removal: commit"
	expect_eq "$(dev_sum $D 8)" "$sum" "removal: the data with 4 extents on tier 2"
	tier_msg $DEV migrate 0 $((4 * 2048)) 0 || fail "removal: migrate back to tier 0"
	tier_wait $DEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped2 = 0 ]' ||
		fail "removal: the migration back did not end: $(tier_summary $DEV)"
	expect_eq "$(dev_sum $D 8)" "$sum" "removal: the data back on tier 0"
	tier_sane $DEV removal
	klog_has "tier 2 re-bound from .* to .* by its label" ||
		fail "removal: tier 2 was not re-bound to the new shim2: $(dmesg | grep 'tier:' | tail -n 3)"
	echo "removal: tier 2 re-bound to the new shim2, migrations to it and back, data intact"
	bounded 60 "dmsetup remove" dmsetup remove --retry $DEV
	tierctl check $DEV >/tmp/check.out 2>&1 ||
		{ cat /tmp/check.out; fail "tierctl check after the removal"; }
	echo "removal: the pool kept its devices; a device created again under the same number is re-bound"
}

step_held() {
	local table new ins sum s3
	tierctl create $HDEV --tier /dev/mapper/shim0 --tier /dev/mapper/shim1 \
		--tier /dev/mapper/shim2 --extent-size 1M --size 64M --force >/dev/null
	tier_set $HDEV auto_migrate 0
	dd if=<(rand_bytes) iflag=fullblock of=/dev/mapper/$HDEV bs=1M count=8 oflag=direct conv=fsync status=none
	sum=$(dev_sum /dev/mapper/$HDEV 8)
	# shim3's label as the tier to insert at 1 (add-tier stopped before
	# its table load: the test loads the table by hand below).
	TIERCTL_TEST_STOP=label tierctl add-tier $HDEV /dev/mapper/shim3 --position 1 2>/dev/null ||
		fail "held: add-tier's label on shim3"
	table=$(dmsetup table $HDEV)
	new=$(awk '{ $5 = 2; $8 = ""; print }' <<<"$table" | tr -s ' ')
	s3=$(devno shim3 | tr -d ' ')
	ins=$(awk -v s3="$s3" '{ $5 = 4; $6 = $6 " " s3; print }' <<<"$table")

	# Tier 2's removal fails at preresume (its commit: tier 0's slots
	# fail after the suspend's own commit, so the mode stays rw).
	dmsetup reload $HDEV --table "$new" || fail "held: the table without tier 2 did not load"
	bounded 60 "held: dmsetup suspend" dmsetup suspend $HDEV
	shim0_swap shim0_bad
	! dmsetup resume $HDEV 2>/dev/null || fail "held: resumed though the commit of the tier list failed"
	shim0_swap shim0_ok
	# The insert at 1 resumes over it: tier 2, held by the failed table,
	# becomes tier 3; then the failed table is destroyed.
	dmsetup reload $HDEV --table "$ins" || fail "held: the table with shim3 at 1 did not load"
	bounded 60 "held: dmsetup resume" dmsetup resume $HDEV ||
		fail "held: the insert did not resume: $(dmesg | grep 'tier:' | tail -n 3)"
	expect_eq "$(tier_stat $HDEV nr_tiers)" 4 "held: tiers after the insert"
	klog_has "$HDEV: tier 1 added" || fail "held: no 'tier 1 added' in dmesg"
	# No table holds shim2 (tier 3) any more: it takes extents again.
	tier_msg $HDEV migrate 0 $((4 * 2048)) 3 ||
		fail "held: migrate to tier 3 (shim2) refused: it is still held by the destroyed table"
	tier_wait $HDEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped3 = 4 ]' ||
		fail "held: the migration to tier 3 did not end: $(tier_summary $HDEV)"
	tier_msg $HDEV migrate 0 $((4 * 2048)) 0 || fail "held: migrate back to tier 0"
	tier_wait $HDEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped3 = 0 ]' ||
		fail "held: the migration back did not end: $(tier_summary $HDEV)"
	expect_eq "$(dev_sum /dev/mapper/$HDEV 8)" "$sum" "held: the data after moves to tier 3 and back"
	tier_sane $HDEV held
	# And it can be removed (it was "held already" before). The insert was
	# loaded by hand: the first remove-tier completes the label hints
	# add-tier would have written and removes nothing (it says so).
	tierctl remove-tier $HDEV 3 >/tmp/rm.out 2>&1 || { cat /tmp/rm.out; fail "held: tierctl remove-tier 3"; }
	if grep -q "Nothing is removed now" /tmp/rm.out; then
		tierctl remove-tier $HDEV 3 >/tmp/rm.out 2>&1 ||
			{ cat /tmp/rm.out; fail "held: tierctl remove-tier 3 (again)"; }
	fi
	expect_eq "$(tier_stat $HDEV nr_tiers)" 3 "held: tiers after removing tier 3"
	bounded 60 "held: dmsetup remove" dmsetup remove --retry $HDEV
	echo "held: the tier a failed removal held was released where an insert had moved it"
}

step_shrink() {
	local table small sum id
	tierctl create $SDEV --tier /dev/mapper/shim0 --tier /dev/mapper/shim1 \
		--extent-size 1M --size 64M --force >/dev/null
	tier_set $SDEV auto_migrate 0
	dd if=<(rand_bytes) iflag=fullblock of=/dev/mapper/$SDEV bs=1M count=8 oflag=direct conv=fsync status=none
	sum=$(dev_sum /dev/mapper/$SDEV 8)
	table=$(dmsetup table $SDEV)
	small=$(awk '{ $2 = 65536; print }' <<<"$table")
	dmsetup reload $SDEV --table "$small" || fail "shrink: the 32 MiB table did not load"
	bounded 60 "shrink: dmsetup suspend" dmsetup suspend $SDEV
	tier_msg $SDEV migrate 0 2048 1 || fail "shrink: migrate while suspended"
	! dmsetup resume $SDEV 2>/dev/null || fail "shrink: resumed with a move queued"
	klog_has "$SDEV: resize failed: -16" || fail "shrink: no failed resize in dmesg"
	tierctl status $SDEV --json >/tmp/st.json 2>/tmp/st.err ||
		{ cat /tmp/st.err; fail "shrink: tierctl status after the failed resume"; }
	id=$(jq -r '.moves[0].id' /tmp/st.json)
	tierctl cancel $SDEV "$id" >/tmp/st.out 2>&1 || { cat /tmp/st.out; fail "shrink: tierctl cancel $id"; }
	dmsetup reload $SDEV --table "$small" || fail "shrink: the 32 MiB table did not load again"
	bounded 60 "shrink: dmsetup resume" dmsetup resume $SDEV ||
		fail "shrink: the 32 MiB table did not resume: $(dmesg | grep 'tier:' | tail -n 3)"
	expect_eq "$(tier_stat $SDEV virt_extents)" 32 "shrink: virtual extents after the 32 MiB table resumed"
	expect_eq "$(dev_sum /dev/mapper/$SDEV 8)" "$sum" "shrink: the data after the shrink"
	tier_sane $SDEV shrink
	bounded 60 "shrink: dmsetup remove" dmsetup remove --retry $SDEV
	echo "shrink: after the failed preresume status and cancel found the device; the table loaded again shrank it"
}

guest_main() {
	A=$DMT_NVME0 B=$DMT_NVME1
	SZ=$(blockdev --getsz "$A")
	shim0_ok | dmsetup create shim0
	shim_of 0 | dmsetup create shim1
	shim_of 1 | dmsetup create shim2
	# 32 MiB after them: a tier to insert.
	printf '0 65536 linear %s 262144\n' "$B" | dmsetup create shim3
	step_removal
	step_held
	step_shrink
	no_kernel_warning "failed resume"
	dmsetup remove --retry shim0 shim1 shim2 shim3
	echo "failed preresume: the pool kept its devices and the live table"
}
run_guest_phase "$@"

vm --fresh --nvme 96M --nvme 160M -- "$0" main
