#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tier target end to end: tierctl create over two NVMe drives (the hot
# one small), XFS, more data than the hot tier holds (spill), status, fstrim
# returning space, suspend/resume and table reload keeping data, remove and
# activate; then a second boot with the drives attached in reverse order:
# tierctl activate finds them by label, checksums match, xfs_repair clean.
. "$(dirname "$0")/lib.sh"

guest_create() {
	tierctl create t0 --tier "$DMT_NVME0" --tier "$DMT_NVME1"
	[ -b /dev/mapper/t0 ] || fail "/dev/mapper/t0 missing after create"
	expect_eq "$(jfield t0 '["metadata_mode"]')" rw "metadata mode"
	expect_eq "$(jfield t0 '["extent_bytes"]')" 1048576 "extent size"
	# Allocation order and spill, without the migration engine draining
	# tier 0 meanwhile (030-migrate covers that).
	dmsetup message t0 0 set auto_migrate 0
	mkfs.xfs -q /dev/mapper/t0
	mkdir -p /mnt/t0 && mount /dev/mapper/t0 /mnt/t0
	write_files /mnt/t0 6 40		# 240 MiB > 128 MiB hot tier
	local hot_total hot_used cold_used
	hot_total=$(jfield t0 '["tiers"][0]["capacity_extents"]')
	hot_used=$(jfield t0 '["tiers"][0]["used_extents"]')
	cold_used=$(jfield t0 '["tiers"][1]["used_extents"]')
	echo "hot tier $hot_used/$hot_total extents used, cold tier $cold_used"
	[ "$cold_used" -gt 50 ] || fail "writes did not spill to the cold tier ($cold_used extents)"
	[ "$hot_used" -ge $((hot_total * 9 / 10)) ] || fail "hot tier not filled first ($hot_used of $hot_total)"

	# fstrim: deleted files' extents go back to their tier after a commit.
	local before after
	before=$(jfield t0 '["tiers"][1]["used_extents"]')
	rm /mnt/t0/f5 /mnt/t0/f6
	sed -i '/ f[56]$/d' /dmt-out/sums
	fstrim /mnt/t0
	dmsetup message t0 0 commit
	after=$(jfield t0 '["tiers"][1]["used_extents"]')
	echo "cold tier extents used: $before before fstrim, $after after"
	[ "$after" -lt $((before - 40)) ] || fail "fstrim returned no space ($before -> $after)"
	check_files /mnt/t0

	# Suspend/resume and a reload of the same table keep everything.
	dmsetup suspend t0 && dmsetup resume t0
	dmsetup table t0 >/tmp/t0.table
	dmsetup reload t0 /tmp/t0.table && dmsetup suspend t0 && dmsetup resume t0
	echo 3 >/proc/sys/vm/drop_caches
	check_files /mnt/t0
	umount /mnt/t0
	tierctl remove t0
	[ ! -e /dev/mapper/t0 ] || fail "t0 still there after remove"

	# Same boot: activation by label.
	tierctl activate t0
	mount /dev/mapper/t0 /mnt/t0 && check_files /mnt/t0 && umount /mnt/t0
	tierctl activate t0 # idempotent
	tierctl remove t0
	echo "created, spilled, trimmed, reloaded, reactivated"
}

guest_reboot() {
	echo "drives now: hot=$DMT_NVME0 cold=$DMT_NVME1"
	tierctl activate --all
	tierctl list --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert any(x['name']=='t0' for x in (d if isinstance(d,list) else d['devices'])), d"
	xfs_repair -n /dev/mapper/t0 >/tmp/repair.log 2>&1 || { cat /tmp/repair.log; fail "xfs_repair -n found problems"; }
	mkdir -p /mnt/t0 && mount /dev/mapper/t0 /mnt/t0
	check_files /mnt/t0 "$TOP/build/vm/$TEST_NAME/sums.saved"
	umount /mnt/t0
	tierctl remove t0
	echo "after reboot: activated by label, data intact, xfs_repair clean"
}
run_guest_phase "$@"

vm --fresh --nvme 128M --nvme 512M -- "$0" create
# The guest sees the host's files: keep the checksums for the next boot.
cp "$TOP/build/vm/$TEST_NAME/run/sums" "$TOP/build/vm/$TEST_NAME/sums.saved"
vm --reverse-drives --nvme 128M --nvme 512M -- "$0" reboot
