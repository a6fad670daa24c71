#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh disable=SC2016
# dmt: debug-kernel
# A separate metadata device (issue 18): tierctl create --metadata-dev. Two
# null_blk tiers (hot 96M, cold 256M) and a 16M null_blk metadata device,
# each under a dm-linear shim (power cuts, metadata errors), 1 MiB extents:
#   small     a metadata device below the minimum is refused, the message
#             says the minimum
#   create    the table names metadata_dev; tierctl status (text and JSON)
#             shows the metadata device's size and use; XFS with files, part
#             of them moved to tier 1; commits write the metadata device,
#             never tier 0's first MiB (label, then unused: its hash stays)
#   activate  removed, tierctl check clean, activated by label: the table
#             names the metadata device again, files verified
#   powercut  every disk loses its volatile cache after files were fsynced:
#             activated again, files verified, xfs_repair -n and tierctl
#             check clean
#   readonly  tierctl activate --readonly: files read, no member written
#             (hashes of all three disks unchanged)
#   metaerr   the metadata device fails (dm-error): a new extent and a flush
#             fail, the mode is ro (not a tier failure: tier states stay
#             ok), data reads back; healed, the next flush commits, mode rw
# The old module refused metadata_dev ("not supported yet").
. "$(dirname "$0")/lib.sh"
DEV=md66
D=/dev/mapper/$DEV
SHIMS=(hotL:hot0 coldL:cold0 metaL:meta0)

mode() { tier_stat $DEV mode; }
flush() { dd if=/dev/null of=$D conv=fsync status=none 2>/dev/null; }
head_sum() { dev_sum /dev/hot0 1; }
disk_sums() { local d; for d in hot0 cold0 meta0; do dev_sum /dev/$d; done; }
meta_ok() { printf '0 %s linear /dev/meta0 0\n' "$(blockdev --getsz /dev/meta0)"; }
meta_bad() { printf '0 %s error\n' "$(blockdev --getsz /dev/meta0)"; }
meta_swap() { "$1" | dmsetup load metaL && dmsetup suspend metaL && dmsetup resume metaL; }

guest_main() {
	local p table hsum sums w0 w1 t0w before ext raw
	"$TOP/tools/nullb" create hot0 96 32
	"$TOP/tools/nullb" create cold0 256 32
	"$TOP/tools/nullb" create meta0 16 8
	for p in "${SHIMS[@]}"; do
		dmsetup create "${p%%:*}" --table "0 $(blockdev --getsz "/dev/${p#*:}") linear /dev/${p#*:} 0"
	done
	udevadm settle

	# ---- small: 24 KiB cannot hold the map of 352 MiB of tiers (28 KiB).
	dmsetup create tinyL --table "0 48 linear /dev/meta0 0"
	expect_status 2 "metadata device /dev/[^ ]+ \\(24 KiB\\) is too small: the metadata of these tiers needs at least 28 KiB" \
		tierctl create $DEV --tier /dev/mapper/hotL --tier /dev/mapper/coldL \
		--metadata-dev /dev/mapper/tinyL --extent-size 1M --force
	dmsetup remove --retry tinyL

	# ---- create
	tierctl create $DEV --tier /dev/mapper/hotL --tier /dev/mapper/coldL \
		--metadata-dev /dev/mapper/metaL --extent-size 1M --force >/dev/null
	table=$(dmsetup table $DEV)
	echo "create: table $table"
	echo "$table" | grep -qE " metadata_dev [0-9]+:[0-9]+" || fail "create: no metadata_dev in the table"
	hsum=$(head_sum)
	tierctl status $DEV --json >/tmp/st.json
	expect_eq "$(jget '["metadata_size_bytes"]' </tmp/st.json)" 16777216 "status: metadata device size"
	# Label, 2 slots, 2 copies of a 2-block map (352 extents of raw capacity).
	expect_eq "$(jget '["metadata_used_bytes"]' </tmp/st.json)" $((7 * 4096)) "status: metadata used"
	expect_eq "$(readlink -f "$(jget '["metadata_device"]' </tmp/st.json)")" "$(readlink -f /dev/mapper/metaL)" \
		"status: metadata device"
	tierctl status $DEV | grep -E "metadata: +rw, .*on /dev/[^,]+, 28 KiB used of 16 MiB" ||
		{ tierctl status $DEV; fail "status text: no metadata device use"; }
	tier_set $DEV auto_migrate 0
	# Settings persist (issue 18): activate brings auto_migrate 0 back.
	table=$(dmsetup table $DEV)
	expect_eq "$table" "${table% auto_migrate 0} auto_migrate 0" "set: the table shows auto_migrate 0"
	mkfs.xfs -q $D
	mkdir -p /mnt/md /tmp/s
	mount $D /mnt/md
	w0=$(dev_written meta0)
	t0w=$(dev_written hot0)
	write_files /mnt/md 8 8 /tmp/s/a
	tier_msg $DEV migrate 0 $((40 * 2048)) 1 || fail "migrate"
	tier_wait $DEV 120 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped1 -gt 0 ]' ||
		fail "migrate not done: $(tier_summary $DEV)"
	tier_msg $DEV commit || fail "commit"
	w1=$(dev_written meta0)
	echo "create: $(tier_summary $DEV); metadata device written $((w1 - w0)) sectors, tier 0 $(($(dev_written hot0) - t0w))"
	[ "$w1" -gt "$w0" ] || fail "create: commits did not write the metadata device"
	[ "$(tier_stat $DEV commits)" -gt 0 ] || fail "create: no commit"
	if [ "$(tier_mapped $DEV 0)" = 0 ] || [ "$(tier_mapped $DEV 1)" = 0 ]; then
		fail "create: data not on both tiers: $(tier_summary $DEV)"
	fi
	expect_eq "$(head_sum)" "$hsum" "create: tier 0's first MiB after commits"
	umount /mnt/md

	# ---- activate by label
	tierctl remove $DEV >/dev/null
	expect_status 0 "$DEV: clean \\(0 errors, 0 warnings\\)" tierctl check $DEV
	# The tiers alone: the metadata device is found by its label.
	expect_status 0 "$DEV: clean \\(0 errors, 0 warnings\\)" tierctl check /dev/mapper/coldL /dev/mapper/hotL
	tierctl dump /dev/mapper/hotL /dev/mapper/coldL --json >/tmp/dump.json
	expect_eq "$(readlink -f "$(jget '["metadata_device"]["path"]' </tmp/dump.json)")" \
		"$(readlink -f /dev/mapper/metaL)" "dump: metadata device"
	tierctl activate $DEV >/dev/null
	expect_eq "$(dmsetup table $DEV)" "$table" "activate: table"
	mount $D /mnt/md
	check_files /mnt/md /tmp/s/a
	echo "activate: by label, files verified"

	# ---- powercut after fsynced files
	mkdir -p /mnt/md/b
	write_files /mnt/md/b 4 4 /tmp/s/b
	umount /mnt/md 2>/dev/null || true
	mount $D /mnt/md
	dd if=<(rand_bytes) iflag=fullblock of=/mnt/md/c bs=1M count=6 conv=fsync status=none
	sha256sum </mnt/md/c >/tmp/s/c
	shims_cut "${SHIMS[@]}"
	umount /mnt/md 2>/dev/null || umount -l /mnt/md || true
	tierctl remove $DEV >/dev/null 2>&1 || dmsetup remove --force $DEV || true
	shims_restore "${SHIMS[@]}"
	tierctl activate $DEV >/dev/null
	mount $D /mnt/md
	check_files /mnt/md /tmp/s/a
	check_files /mnt/md/b /tmp/s/b
	expect_eq "$(sha256sum </mnt/md/c)" "$(cat /tmp/s/c)" "powercut: the fsynced file"
	umount /mnt/md
	xfs_repair -n $D >/tmp/repair.log 2>&1 || { cat /tmp/repair.log; fail "powercut: xfs_repair -n"; }
	tierctl remove $DEV >/dev/null
	expect_status 0 "$DEV: clean \\(0 errors, 0 warnings\\)" tierctl check $DEV
	expect_eq "$(head_sum)" "$hsum" "powercut: tier 0's first MiB"
	echo "powercut: fsynced data intact, xfs_repair and tierctl check clean"

	# ---- readonly: nothing written to any member
	sums=$(disk_sums)
	before="$(dev_written hot0) $(dev_written cold0) $(dev_written meta0)"
	tierctl activate --readonly $DEV >/dev/null
	tierctl status $DEV | grep -q "READ-ONLY" || fail "readonly: status does not say so"
	mount -o ro,norecovery $D /mnt/md
	check_files /mnt/md /tmp/s/a
	umount /mnt/md
	sleep 2
	tierctl remove $DEV >/dev/null
	expect_eq "$(dev_written hot0) $(dev_written cold0) $(dev_written meta0)" "$before" "readonly: sectors written"
	expect_eq "$(disk_sums)" "$sums" "readonly: member hashes"
	echo "readonly: files read, no member written"

	# ---- metaerr: the metadata device fails
	tierctl activate $DEV >/dev/null
	tier_set $DEV commit_interval_ms 60000
	tier_set $DEV auto_migrate 0
	ext=$(($(blockdev --getsz $D) / 2048 - 1))
	raw=$(dev_sum $D 64)
	# The last extent unmapped (committed), so that a write there is new.
	blkdiscard -f -o $((ext << 20)) -l $((1 << 20)) $D
	tier_msg $DEV commit || fail "metaerr: commit"
	meta_swap meta_bad
	! dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M seek="$ext" count=1 oflag=direct conv=fsync status=none 2>/dev/null ||
		fail "metaerr: a new extent was written and flushed with the metadata device failing"
	expect_eq "$(mode)" ro "metaerr: mode after a failed commit"
	! flush || fail "metaerr: a flush succeeded"
	expect_eq "$(tier_stat $DEV state 0) $(tier_stat $DEV state 1)" "ok ok" "metaerr: tier states"
	expect_eq "$(dev_sum $D 64)" "$raw" "metaerr: reads"
	tierctl status $DEV | grep -E "metadata: +ro" || fail "metaerr: status does not say ro"
	klog_has "tier: $DEV: metadata mode now ro" || fail "metaerr: no kernel message"
	meta_swap meta_ok
	flush || fail "metaerr: the retried commit failed after the device healed"
	expect_eq "$(mode)" rw "metaerr: mode after healing"
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M seek="$ext" count=1 oflag=direct conv=fsync status=none ||
		fail "metaerr: a new extent after healing"
	expect_eq "$(dev_sum $D 64)" "$raw" "metaerr: reads after healing"
	echo "metaerr: ro while the metadata device failed (tiers ok, reads kept), rw once healed"
	tierctl remove $DEV >/dev/null
	expect_status 0 "$DEV: clean \\(0 errors, 0 warnings\\)" tierctl check $DEV
	expect_eq "$(head_sum)" "$hsum" "end: tier 0's first MiB"
	no_kernel_warning "metadata device"
	for p in "${SHIMS[@]}"; do dmsetup remove --retry "${p%%:*}"; done
	echo "separate metadata device: create, status, activate by label, power cut, read-only, metadata errors"
}
run_guest_phase "$@"

vm --mem 1536 -- "$0" main
