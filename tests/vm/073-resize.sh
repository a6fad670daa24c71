#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154  # status variables come from tier_eval
# tierctl resize, online, with XFS, checksummed files and a fio crc32c
# write+verify loop running the whole time. Tier 1 is a dm-linear device
# over a larger disk, so that it can grow (a table reload with a longer
# length, as a resized remote namespace would):
#   grow     tier 1 grows from 320 MiB to 1 GiB; tierctl resize picks it
#            up: the status shows the bigger tier, the labels follow
#   virt     --size grows the virtual size from 320 MiB; xfs_growfs uses
#            it; filling the filesystem maps extents of tier 1 beyond its
#            old end (the new extents are used)
#   refuse   a virtual size beyond the map room (fixed at creation) is
#            refused with the maximum; a shrink below mapped data is
#            refused with the count and the first extent; a tier device
#            that shrank is refused, never truncated
# Then remove/activate keeps the sizes, xfs_repair -n and tierctl check are
# clean, used = mapped; last, the tail is discarded and, the device held
# open, a shrink refused without --yes (the size kept) and accepted with it.
. "$(dirname "$0")/lib.sh"
DEV=tl
D=/dev/mapper/$DEV
MNT=/mnt/tl
G=g1

fio_loop() {
	local i=0
	while [ ! -e /tmp/fio.stop ]; do
		i=$((i + 1))
		fio --name=v --directory=$MNT/fio --size=16M --bs=64k --rw=randwrite \
			--direct=1 --ioengine=libaio --iodepth=4 --numjobs=2 \
			--verify=crc32c --verify_fatal=1 --do_verify=1 --randrepeat=0 \
			--group_reporting --eta=never >/tmp/fio.$i.out 2>&1 ||
			{ echo "$i" >>/tmp/fio.failed; cat /tmp/fio.$i.out >&2; }
		echo "$i" >/tmp/fio.runs
	done
}

g_len() { # MiB: tier 1's dm-linear over the second disk, reloaded
	dmsetup suspend $G
	dmsetup load $G --table "0 $(($1 * 2048)) linear $DMT_NVME1 0"
	dmsetup resume $G
}

guest_main() {
	local out fio_pid t1 t1_new max n
	mkdir -p $MNT
	dmsetup create $G --table "0 $((320 * 2048)) linear $DMT_NVME1 0"
	tierctl create $DEV --tier "$DMT_NVME0" --tier /dev/mapper/$G --extent-size 1M --size 320M >/dev/null
	mkfs.xfs -q $D
	mount $D $MNT
	mkdir $MNT/a $MNT/fio $MNT/fill
	write_files $MNT/a 8 4 /tmp/sums
	rm -f /tmp/fio.stop /tmp/fio.failed
	fio_loop &
	fio_pid=$!
	sleep 3

	# Nothing grew: resize changes nothing and says the largest size.
	t1=$(tier_stat $DEV total 1)
	out=$(tierctl resize $DEV --json)
	echo "resize (nothing grew): $out"
	expect_eq "$(jget '["tiers"][1]["grown"]' <<<"$out")" False "resize without growth"
	expect_eq "$(tier_stat $DEV total 1)" "$t1" "tier 1 before it grows"

	# grow: tier 1's device from 320 MiB to 1 GiB.
	g_len 1024
	out=$(tierctl resize $DEV --json)
	echo "resize (tier 1 grew): $out"
	expect_eq "$(jget '["tiers"][1]["grown"]' <<<"$out")" True "resize: tier 1 grown"
	t1_new=$(tier_stat $DEV total 1)
	expect_eq "$t1_new" 1023 "tier 1's extents after the growth (1 GiB less the first MiB)"
	expect_eq "$(jget '["tiers"][1]["nr_extents"]' <<<"$out")" "$t1_new" "resize output: tier 1's extents"
	expect_eq "$(le /dev/mapper/$G $((0x98)) 8)" "$t1_new" "tier 1's label (nr_extents) after the resize"
	tierctl status $DEV | grep -E "^ *1 " || true
	klog_has "tier 1 grown to $t1_new extents" || fail "no 'tier 1 grown' in the kernel log"
	tier_sane $DEV grow

	# refuse: beyond the map room; the message says the maximum.
	max=$(jget '["max_virt_bytes"]' <<<"$out")
	expect_eq "$(jget '["max_virt_limit"]' <<<"$out")" "map room" "what limits the virtual size"
	expect_status 2 "the largest virtual size is $max bytes \\([0-9]+ extents\\), limited by the map room fixed when the device was created" \
		tierctl resize $DEV --size 1G
	expect_status 2 "not a multiple of the extent size" tierctl resize $DEV --size 200000K

	# virt: grow to the maximum, XFS grows into it.
	out=$(tierctl resize $DEV --size "$max" --json)
	echo "resize --size $max: $out"
	expect_eq "$(blockdev --getsize64 $D)" "$max" "virtual size after resize --size"
	expect_eq "$(tier_stat $DEV virt_extents)" $((max >> 20)) "status virt_extents"
	xfs_growfs $MNT >/dev/null || fail "xfs_growfs"
	df -m $MNT | tail -1
	# Fill: new allocations reach tier 1's extents beyond its old end.
	for n in $(seq 1 130); do
		rand_bytes $((4 << 20)) >$MNT/fill/f$n 2>/dev/null || break
	done
	sync -f $MNT
	dmsetup message $DEV 0 commit
	tier_eval $DEV
	echo "filled: $(tier_summary $DEV)"
	[ "$used1" -gt "$t1" ] || fail "tier 1 uses $used1 extents: none beyond its old $t1"
	tier_sane $DEV fill

	# refuse: a shrink below mapped data; the count and the first extent.
	expect_status 1 "[0-9]+ mapped extents live at or beyond the new end \\(the first is extent [0-9]+" \
		tierctl resize $DEV --size 64M
	expect_eq "$(blockdev --getsize64 $D)" "$max" "size after the refused shrink"
	# The kernel refuses too, for a table loaded without tierctl.
	! dmsetup reload $DEV --table "0 $((64 * 2048)) tier $(dmsetup table $DEV | cut -d' ' -f4-)" 2>/dev/null ||
		fail "the kernel loaded a table below mapped extents"
	klog_has -E "[0-9]+ mapped extents at or beyond [0-9]+, the first is [0-9]+" || fail "no shrink refusal in the kernel log"
	dmsetup clear $DEV
	sleep 3
	touch /tmp/fio.stop
	wait "$fio_pid"
	[ ! -e /tmp/fio.failed ] || fail "fio verify failed in run(s) $(tr '\n' ' ' </tmp/fio.failed)"
	echo "fio: $(cat /tmp/fio.runs) write+verify runs, 0 verify errors"
	check_files $MNT/a /tmp/sums
	umount $MNT

	# remove/activate keeps the sizes.
	tierctl remove $DEV >/dev/null
	# refuse: the tier device shrank (inactive: activation refuses too).
	g_len 512
	expect_status 1 "" tierctl activate $DEV
	dmsetup remove --retry $DEV 2>/dev/null || true
	g_len 1024
	tierctl activate $DEV >/dev/null
	expect_eq "$(blockdev --getsize64 $D)" "$max" "virtual size after activate"
	expect_eq "$(tier_stat $DEV total 1)" "$t1_new" "tier 1 after activate"
	g_len 900
	expect_status 1 "tier 1's device shrank: [0-9]+ bytes, the superblock records [0-9]+; a tier is never truncated" \
		tierctl resize $DEV
	g_len 1024
	xfs_repair -n $D >/tmp/xfs_repair.out 2>&1 || { cat /tmp/xfs_repair.out; fail "xfs_repair -n"; }
	mount $D $MNT
	check_files $MNT/a /tmp/sums
	umount $MNT
	tier_sane $DEV activate

	# shrink: the tail discarded; while the device is open (a program
	# holds it, as a mounted filesystem would) the shrink is refused
	# without --yes, saying the filesystem is shrunk first; with --yes it
	# goes through.
	blkdiscard -f -o $((max - (16 << 20))) $D || fail "blkdiscard of the tail"
	exec 9<"$D"
	expect_status 1 "resize: $DEV is open \\([0-9]+ openers?: .*cuts off its last 16 MiB, and a filesystem on it must be shrunk first \\(XFS cannot shrink.*run again with --yes" \
		tierctl resize $DEV --size $((max - (16 << 20)))
	expect_eq "$(blockdev --getsize64 $D)" "$max" "size after the refused shrink of the open device"
	out=$(tierctl resize $DEV --size $((max - (16 << 20))) --yes --json) || fail "resize --yes of the open device"
	exec 9<&-
	echo "resize (shrink): $out"
	expect_eq "$(blockdev --getsize64 $D)" $((max - (16 << 20))) "virtual size after the shrink"
	tier_sane $DEV shrink
	tierctl remove $DEV >/dev/null
	expect_status 0 "clean" tierctl check $DEV
	tierctl activate $DEV >/dev/null
	expect_eq "$(blockdev --getsize64 $D)" $((max - (16 << 20))) "virtual size after the shrink and activate"
	tierctl remove $DEV >/dev/null
	no_kernel_warning "resize"
	echo "resize: tier 1 grew 320 MiB -> 1 GiB, virtual 320 MiB -> $((max >> 20)) MiB with XFS and fio verifying; refusals said why; shrink after discard; check clean"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 1G -- "$0" main
