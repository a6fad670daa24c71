#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154  # status variables come from tier_eval
# tierctl replace-tier (issue 18): three NVMe tiers with XFS, checksummed
# files and a fio crc32c write+verify loop running the whole time:
#   replace   'replace-tier rt 1 NEWDEV' (tier 1 holding extents): add at
#             position 2, evacuate 1 --to 2 (the new disk takes the
#             extents), remove 1: NEWDEV is tier 1, the old disk's label is
#             wiped, three tiers; run again: "nothing to do"
#   tierd     'replace_tier = 2 OLD1' in a policy file, tierd --once runs
#             the replacement of tier 2 (16 MiB migrated there) by the
#             freed disk, which then holds them, and exits 0; first, with
#             an ext4 on that disk, tierd (which never passes --force)
#             logs the refusal naming the filesystem, changes nothing and
#             exits 1; wipefs -a, and the next run replaces
#   tier0     'replace-tier rt 0 NEWDEV' (tier 0 holding extents and the
#             metadata): NEWDEV added at 1 with a spare metadata area,
#             tier 0 evacuated onto it, tier 0 removed with the metadata
#             moved to NEWDEV in the same commit: NEWDEV is tier 0 (its
#             label holds the metadata), the old disk's label is wiped
#   rekey     a reload of the same table finds the pool under its new
#             tier 0 (no second pool loaded from disk), and a second
#             mapped device over the same disks is refused
# Then fio 0 verify errors, files intact, used = mapped, xfs_repair -n
# clean, remove/activate with the new list, tierctl check clean.
. "$(dirname "$0")/lib.sh"
DEV=rt
D=/dev/mapper/$DEV
MNT=/mnt/rt


nr_tiers_now() { tier_stat $DEV nr_tiers; }
probe_tier() { tierctl probe "$1" --json 2>/dev/null | jget '["tier"]'; }
# used = mapped on every tier (after a commit: freed extents reusable).
used_is_mapped() {
	local i
	tier_msg $DEV commit || return 1
	tier_eval $DEV
	for ((i = 0; i < nr_tiers; i++)); do
		[ "$(eval echo "\$used$i")" = "$(eval echo "\$mapped$i")" ] || return 1
	done
}
settle() { # where
	wait_for 20 used_is_mapped || fail "$1: used != mapped: $(tier_summary $DEV)"
}

guest_main() {
	local out fio_pid n1 rc=0
	mkdir -p $MNT
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --tier "$DMT_NVME2" --extent-size 1M >/dev/null
	tier_set $DEV auto_migrate 0
	mkfs.xfs -q $D
	mount $D $MNT
	mkdir $MNT/a $MNT/fio
	write_files $MNT/a 8 4 /tmp/sums
	tierctl migrate $DEV --range all --tier 1 --wait >/dev/null
	rm -f /tmp/fio.stop /tmp/fio.failed
	fio_verify_loop $MNT/fio &
	fio_pid=$!
	sleep 3

	# replace: tier 1, holding extents, by NVME3 under I/O.
	n1=$(tier_mapped $DEV 1)
	[ "$n1" -gt 20 ] || fail "replace: only $n1 extents on tier 1"
	tier_set $DEV migration_bandwidth 64
	out=$(tierctl replace-tier $DEV 1 "$DMT_NVME3" 2>&1) || { echo "$out"; fail "replace-tier $DEV 1"; }
	echo "$out" | sed 's/^/  said: /'
	grep -q "step add" <<<"$out" || fail "replace: no add step"
	grep -q "step evacuate" <<<"$out" || fail "replace: no evacuate step"
	grep -q "step remove" <<<"$out" || fail "replace: no remove step"
	grep -q "tier 1 is $DMT_NVME3 now" <<<"$out" || fail "replace: no summary"
	tier_set $DEV migration_bandwidth 0
	expect_eq "$(nr_tiers_now)" 3 "replace: tiers"
	expect_eq "$(probe_tier "$DMT_NVME3")" 1 "replace: NVME3's label"
	expect_eq "$(probe_tier "$DMT_NVME2")" 2 "replace: NVME2's label"
	expect_status 1 "no dm-tier label|not a dm-tier member|no label" tierctl probe "$DMT_NVME1"
	dmsetup table $DEV | grep -q "$(lsblk -dno MAJ:MIN "$DMT_NVME3" | tr -d ' ')" ||
		fail "replace: NVME3 not in the table: $(dmsetup table $DEV)"
	# The evacuation went to the new disk (--to), not to tier 0.
	[ "$(tier_mapped $DEV 1)" -gt 0 ] || fail "replace: nothing on the new tier 1: $(tier_summary $DEV)"
	expect_eq "$(tierctl status $DEV --json | jget '["tiers"][1]["evacuation"]')" None "replace: new tier 1 takes extents"
	settle replace
	tier_sane $DEV replace
	# Again: nothing to do.
	out=$(tierctl replace-tier $DEV 1 "$DMT_NVME3" --json) || fail "replace again: $out"
	echo "again: $out"
	expect_eq "$(jget '["resumed_at"]' <<<"$out")" "done" "again: resumed_at"
	expect_eq "$(jget '["steps"].__len__()' <<<"$out")" 0 "again: steps run"

	# tierd: replace tier 2 (holding extents) by the freed old tier-1
	# disk, from policy.
	tierctl migrate $DEV --range 0:16M --tier 2 --wait >/dev/null || fail "tierd: migrate to tier 2"
	n1=$(tier_mapped $DEV 2)
	[ "$n1" -gt 0 ] || fail "tierd: nothing on tier 2: $(tier_summary $DEV)"
	mkdir -p /tmp/tierd-rt/policies.d
	printf '[device %s]\nreplace_tier = 2 %s\n' $DEV "$DMT_NVME1" >/tmp/tierd-rt/policies.d/r.conf
	# A filesystem on the spare: tierd does not erase it.
	mkfs.ext4 -q -F "$DMT_NVME1"
	tierd --once --foreground --log-level info --config-dir /tmp/tierd-rt >/tmp/tierd-fs.log 2>&1 || rc=$?
	sed 's/^/  tierd: /' /tmp/tierd-fs.log
	expect_eq "$rc" 1 "tierd: --once exit status with ext4 on the spare"
	grep -q "replace_tier: tierctl: add-tier: $DMT_NVME1 carries a filesystem (ext4); refusing to overwrite it" /tmp/tierd-fs.log ||
		fail "tierd: the refusal does not name the filesystem"
	grep -q "replace_tier: tierctl replace-tier exited 1" /tmp/tierd-fs.log || fail "tierd: no exit status logged"
	expect_eq "$(blkid -p -s TYPE -o value "$DMT_NVME1")" ext4 "tierd: the spare's filesystem after the refusal"
	expect_eq "$(nr_tiers_now)" 3 "tierd: tiers after the refusal"
	expect_eq "$(probe_tier "$DMT_NVME2")" 2 "tierd: NVME2 still tier 2"
	wipefs -a -q "$DMT_NVME1"
	rc=0
	tierd --once --foreground --log-level info --config-dir /tmp/tierd-rt >/tmp/tierd-rt.log 2>&1 || rc=$?
	sed 's/^/  tierd: /' /tmp/tierd-rt.log
	expect_eq "$rc" 0 "tierd: --once exit status"
	grep -q "replace_tier: done" /tmp/tierd-rt.log || fail "tierd: no 'replace_tier: done'"
	expect_eq "$(probe_tier "$DMT_NVME1")" 2 "tierd: NVME1's label"
	[ "$(tier_mapped $DEV 2)" -ge "$n1" ] || fail "tierd: the new tier 2 maps $(tier_mapped $DEV 2) of $n1 extents"
	expect_status 1 "no dm-tier label|not a dm-tier member|no label" tierctl probe "$DMT_NVME2"
	expect_eq "$(nr_tiers_now)" 3 "tierd: tiers"

	# tier0: tier 0 (extents and the metadata) by the disk tierd freed.
	tierctl migrate $DEV --range 16M:16M --tier 0 --wait >/dev/null || fail "tier0: migrate to tier 0"
	n1=$(tier_mapped $DEV 0)
	[ "$n1" -gt 0 ] || fail "tier0: nothing on tier 0: $(tier_summary $DEV)"
	tier_set $DEV migration_bandwidth 64
	out=$(tierctl replace-tier $DEV 0 "$DMT_NVME2" 2>&1) || { echo "$out"; fail "replace-tier $DEV 0"; }
	echo "$out" | sed 's/^/  said: /'
	grep -q "step evacuate" <<<"$out" || fail "tier0: no evacuate step"
	grep -q "step remove" <<<"$out" || fail "tier0: no remove step"
	grep -q "tier 0 is $DMT_NVME2 now" <<<"$out" || fail "tier0: no summary"
	tier_set $DEV migration_bandwidth 0
	expect_eq "$(nr_tiers_now)" 3 "tier0: tiers"
	expect_eq "$(probe_tier "$DMT_NVME2")" 0 "tier0: NVME2's label"
	expect_status 1 "no dm-tier label|not a dm-tier member|no label" tierctl probe "$DMT_NVME0"
	[ "$(tier_mapped $DEV 0)" -ge "$n1" ] || fail "tier0: the new tier 0 maps $(tier_mapped $DEV 0) of $n1 extents"
	settle tier0
	tier_sane $DEV tier0

	# rekey: the pool is keyed by its new tier 0 now. A reload of the
	# same table finds it instead of loading a second pool from the disks
	# beside it (each load logs "map copy N: ... blocks current"), and a
	# second mapped device over the same disks is refused.
	local loads
	loads=$(dmesg | grep -c 'map copy [0-9]*: .* blocks current')
	dmsetup table $DEV >/tmp/rt.table
	dmsetup reload $DEV /tmp/rt.table || fail "rekey: reload of the same table"
	dmsetup suspend $DEV || fail "rekey: suspend"
	dmsetup resume $DEV || fail "rekey: resume"
	expect_eq "$(dmesg | grep -c 'map copy [0-9]*: .* blocks current')" "$loads" \
		"rekey: pools loaded from disk by the reload"
	dmsetup create rt-alias --table "$(dmsetup table $DEV)" 2>/dev/null &&
		fail "rekey: a second dm device over the same disks was accepted"
	klog_has 'already used by another mapped device' ||
		fail "rekey: no message for a second device over the same disks"

	sleep 2
	touch /tmp/fio.stop
	wait "$fio_pid"
	[ ! -e /tmp/fio.failed ] || fail "fio verify failed in run(s) $(tr '\n' ' ' </tmp/fio.failed)"
	echo "fio: $(cat /tmp/fio.runs) write+verify runs, 0 verify errors"
	check_files $MNT/a /tmp/sums
	settle end
	tier_sane $DEV end
	umount $MNT
	xfs_repair -n $D >/tmp/xfs_repair.out 2>&1 || { cat /tmp/xfs_repair.out; fail "xfs_repair -n"; }
	tierctl remove $DEV >/dev/null
	out=$(tierctl activate $DEV 2>&1) || fail "activate: $out"
	[[ $out != *"does not list"* ]] || fail "activate: a stale label: $out"
	expect_eq "$(nr_tiers_now)" 3 "activate: tiers"
	mount $D $MNT
	check_files $MNT/a /tmp/sums
	umount $MNT
	tierctl remove $DEV >/dev/null
	expect_status 0 "clean" tierctl check $DEV
	no_kernel_warning "replace-tier"
	echo "replace-tier: replace again tierd tier0 rekey end ok"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 256M --nvme 128M --nvme 256M --timeout 500 -- "$0" main
