#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The device tells the stack its extent geometry (issue 17: "tell the stack
# the extent geometry"): minimum_io_size and optimal_io_size are the extent
# size, so mkfs.xfs picks sunit = swidth = one extent and mkfs.ext4 a RAID
# stride and stripe width of one extent, with no option from the user.
# Otherwise XFS's small first writes land anywhere in an extent and the
# worker zeroes the rest of each extent synchronously. mkfs.xfs ignores a
# device's stripe geometry below 1 GiB, hence 1.5 GiB of drives.
. "$(dirname "$0")/lib.sh"
DEV=geo
D=/dev/mapper/$DEV

# One device of extent size $1 (KiB) over both drives: its queue limits,
# then what mkfs.xfs and mkfs.ext4 choose.
check_extent() { # kib
	local kib=$1 bytes=$(($1 * 1024)) q blocks
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --extent-size "${kib}K" \
		--force >/dev/null || fail "create with ${kib} KiB extents"
	q=/sys/block/$(basename "$(readlink -f $D)")/queue
	expect_eq "$(cat $q/minimum_io_size)" "$bytes" "minimum_io_size at ${kib} KiB extents"
	expect_eq "$(cat $q/optimal_io_size)" "$bytes" "optimal_io_size at ${kib} KiB extents"
	expect_eq "$(cat $q/discard_granularity)" "$bytes" "discard_granularity at ${kib} KiB extents"
	blocks=$((bytes / 4096))
	mkfs.xfs -q -f $D || fail "mkfs.xfs at ${kib} KiB extents"
	mkdir -p /mnt/geo && mount $D /mnt/geo || fail "mount"
	xfs_info /mnt/geo >/tmp/xfs_info
	grep -q "sunit=$blocks *swidth=$blocks blks" /tmp/xfs_info || {
		cat /tmp/xfs_info
		fail "mkfs.xfs did not align to ${kib} KiB extents (want sunit=swidth=$blocks blocks)"
	}
	# Large writes then fill whole extents: a checkpoint-sized file lands on
	# extent boundaries.
	dd if=<(rand_bytes) iflag=fullblock of=/mnt/geo/ckpt bs=1M count=16 oflag=direct status=none || fail "write"
	umount /mnt/geo
	mkfs.ext4 -q -F $D || fail "mkfs.ext4 at ${kib} KiB extents"
	dumpe2fs -h $D 2>/dev/null >/tmp/dumpe2fs
	grep -Eq "^RAID stride: +$blocks$" /tmp/dumpe2fs &&
		grep -Eq "^RAID stripe width: +$blocks$" /tmp/dumpe2fs || {
		grep -E '^RAID|^Block size' /tmp/dumpe2fs
		fail "mkfs.ext4 did not align to ${kib} KiB extents (want stride = stripe width = $blocks blocks)"
	}
	tierctl remove $DEV
	echo "${kib} KiB extents: io_min = io_opt = $bytes; XFS sunit = swidth = $blocks blocks, ext4 stride = stripe width = $blocks blocks"
}

guest_main() {
	check_extent 1024
	check_extent 256
	check_extent 64
	no_kernel_warning "io geometry"
}
run_guest_phase "$@"

vm --fresh --nvme 512M --nvme 1G --timeout 300 -- "$0" main
