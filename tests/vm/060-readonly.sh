#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154  # status variables come from tier_eval
# Read-only activation writes nothing to any member (issue 15). Two NVMe
# drives (hot 128M, cold 256M), 1 MiB extents:
#   setup     96 MiB of data, a third of it moved to tier 1, device removed;
#             every member hashed (sha256 of the whole drive)
#   ro        `tierctl activate --readonly`, then a read-only reload with
#             auto_migrate 1, commit_interval_ms 100, promote_hits 1 and
#             demote_age 1 (a read-write table would commit heat, promote
#             and demote within seconds); the whole device read and
#             compared, read again for 40 s; status: activation "ro",
#             commits 0, nothing moved; tierctl status says READ-ONLY
#   refused   messages commit, set, migrate (EROFS); netlink policy-set,
#             migrate, pin (tierctl, EROFS with the kernel's reason) and
#             tier-forget (the kernel's ynl CLI, EROFS); a
#             write and a discard through a read-write dm-linear stacked on
#             it (the block layer only warns about those: map() fails
#             them); a read-write table over the same tiers, as a second
#             device or a reload of this one, and `tierctl activate` without
#             --readonly
#   hashes    after removal every member hashes as before
#   rw        activated read-write: a read-only table (second device,
#             reload, `tierctl activate --readonly`) is refused; writes and
#             commits work again
#   rocompat  tier 0's newest superblock given an unknown ro_compat bit: a
#             read-only table loads and reads back, a read-write one is
#             refused with a message saying to load it read-only
# The checks of the ro phase are collected and reported together, so that
# on a module without read-only activation the test shows every difference
# (commits, moves, accepted messages and writes, changed hashes) at once.
. "$(dirname "$0")/lib.sh"
DEV=ro
D=/dev/mapper/$DEV
BAD=()

# The status line's <activation>: after <swaps>, which follows the memory
# tier's 9 fields (fields may be appended after it).
activation() {
	dmsetup status $DEV | awk '{ n = $9; print $(10 + 5 * n + n + 19) }'
}

check() { # what command...
	local what=$1
	shift
	if "$@"; then
		echo "ok: $what"
	else
		echo "NOT OK: $what"
		BAD+=("$what")
	fi
}

# COMMAND must fail and say PATTERN (case-insensitive ERE).
refused() { # pattern command...
	local pat=$1 rc=0
	shift
	"$@" >/tmp/out 2>&1 || rc=$?
	sed 's/^/  said: /' /tmp/out
	[ "$rc" != 0 ] && grep -qiE "$pat" /tmp/out
}

hash_members() { # out
	md5sum "$DMT_NVME0" "$DMT_NVME1" >"$1"
	sed 's/^/  /' "$1"
}

read_all() {
	dd if=$D of=/dev/null bs=1M iflag=direct status=none
}

step_setup() {
	local sectors
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --force >/dev/null
	rand_bytes $((96 << 20)) >/tmp/data
	dd if=/tmp/data of=$D bs=1M oflag=direct conv=fsync status=none
	sectors=$((32 << 11))
	dmsetup message $DEV 0 migrate 0 $sectors 1
	tier_wait $DEV 120 '[ $manual_pending = 0 ] && [ $in_flight = 0 ]' ||
		fail "setup: the move to tier 1 did not end: $(tier_summary $DEV)"
	tier_eval $DEV
	[ "$mapped1" -ge 16 ] && [ "$mapped0" -ge 16 ] ||
		fail "setup: data not on both tiers: $mapped0 on tier 0, $mapped1 on tier 1"
	echo "setup: $mapped0 extents on tier 0, $mapped1 on tier 1"
	tierctl remove $DEV >/dev/null
	hash_members /tmp/h.before
}

step_ro() {
	local tbl t0 left
	tierctl activate --readonly $DEV || fail "tierctl activate --readonly failed"
	check "the block device is read-only" test "$(blockdev --getro $D)" = 1
	t0=$(date +%s)
	# Settings that make a read-write table write within seconds.
	tbl=$(dmsetup table $DEV)
	tbl="${tbl%% tier *} tier $(sed 's/^.* tier //' <<<"$tbl" | awk '{print $1, $2, $3, $4}') 10 commit_interval_ms 100 promote_hits 1 demote_age 1 high_watermark 20 low_watermark 10"
	echo "ro: reloading read-only with: $tbl"
	dmsetup reload --readonly $DEV --table "$tbl" || fail "read-only reload refused"
	dmsetup resume $DEV
	check "the whole device reads back as written" \
		dev_cmp $D /tmp/data
	read_all
	dmsetup status $DEV
	check "status: activation ro" test "$(activation)" = ro
	check "tierctl status --json: read_only true" \
		test "$(jfield $DEV '["read_only"]')" = True
	tierctl status $DEV | sed 's/^/  /'
	check "tierctl status says READ-ONLY" bash -c "tierctl status $DEV | grep -q READ-ONLY"
	# Up for 40 s, read now and then (heat, promotion candidates).
	while left=$((t0 + 40 - $(date +%s))); [ "$left" -gt 0 ]; do
		read_all
		sleep $((left < 5 ? left : 5))
	done
	tier_eval $DEV
	echo "ro: after 40 s: $(tier_summary $DEV)"
	check "commits 0 in the status line" test "$commits" = 0
	check "commits 0 in tierctl status --json" test "$(jfield $DEV '["commits"]')" = 0
	check "nothing promoted or demoted" test "$promotions$demotions$moved_bytes" = 000
	check "the migration engine is idle" test "$pace" = idle
	check "no write counted on any tier" test "$writes0$writes1" = 00
}

step_refused() {
	local tbl
	check "message commit: EROFS" refused 'read-only file system' dmsetup message $DEV 0 commit
	check "message set: EROFS" refused 'read-only file system' dmsetup message $DEV 0 set promote_hits 2
	check "message migrate: EROFS" refused 'read-only file system' dmsetup message $DEV 0 migrate 0 2048 0
	check "kernel log names the read-only activation" klog_has 'activated read-only: nothing can change'
	check "netlink policy-set: EROFS" refused 'activated read-only' tierctl policy $DEV high_watermark=70
	check "netlink migrate: EROFS" refused 'activated read-only' tierctl migrate $DEV 0:4M --to 0
	check "netlink pin: EROFS" refused 'activated read-only' tierctl pin $DEV --range 0:4M --tier 0
	check "netlink unpin: EROFS" refused 'activated read-only' tierctl unpin $DEV --range 0:4M
	# tier-forget by raw netlink (tierctl evacuate-lost refuses an ok tier
	# itself): refused as read-only before anything else (it used to pass
	# the metadata-mode check, which stays rw on a read-only activation).
	local ynl
	ynl=$("$TOP/tools/ynl-locate" --cached) || fail "refused: no YNL copy in the cache"
	check "netlink tier-forget: EROFS" refused 'activated read-only' \
		python3 "$ynl/tools/net/ynl/cli.py" --spec "$TOP/tools/netlink/dm-tier.yaml" \
		--schema "$ynl/Documentation/netlink/genetlink-legacy.yaml" \
		--do tier-forget --json '{"name": "'$DEV'", "target-tier": 1}'
	check "a plain write is refused" refused '.' dd if=/dev/zero of=$D bs=1M count=1 oflag=direct status=none
	# A read-write device stacked on it: the block layer only warns when
	# its writes reach the read-only device, so map() must refuse them.
	if dmsetup create over --table "0 $(blockdev --getsz $D) linear $D 0" 2>/tmp/over.err; then
		check "a write through a stacked device fails" \
			refused '.' dd if=/dev/zero of=/dev/mapper/over bs=1M count=4 oflag=direct conv=fsync status=none
		check "a write to an unmapped extent through it fails" \
			refused '.' dd if=/dev/zero of=/dev/mapper/over bs=4k count=1 seek=$(((100 << 20) / 4096)) oflag=direct status=none
		check "a discard through it fails" refused '.' blkdiscard -o 0 -l $((4 << 20)) /dev/mapper/over
		dmsetup remove --retry over
		check "the kernel logged the refused write" klog_has 'write to a read-only activation refused'
	else
		echo "note: a read-write dm-linear over the read-only device was refused: $(cat /tmp/over.err)"
	fi
	check "the data is unchanged" \
		dev_cmp $D /tmp/data
	tier_eval $DEV
	check "still no commit, nothing mapped anew" test "$commits/$mapped" = "0/96"
	# Read-write while the read-only table is active: refused.
	tbl=$(dmsetup table $DEV)
	check "a read-write second device is refused" refused 'failed|busy' dmsetup create rw2 --table "$tbl"
	check "with a clear reason" klog_has 'active read-only; remove that device before loading a read-write table'
	check "a read-write reload is refused" refused 'failed|busy' dmsetup reload $DEV --table "$tbl"
	check "tierctl activate (read-write) is refused" refused 'active read-only' tierctl activate $DEV
	check "tierctl activate --readonly again: already active" \
		bash -c "tierctl activate --readonly $DEV | grep -q 'already active read-only'"
	tierctl remove $DEV >/dev/null
}

step_rw() {
	local tbl
	tierctl activate $DEV >/dev/null || fail "read-write activation after read-only failed"
	tbl=$(dmsetup table $DEV)
	expect_status 1 'failed|busy' dmsetup create ro2 --readonly --table "$tbl"
	klog_has 'active read-write; remove that device before loading a read-only table' ||
		fail "no message for a read-only table over a read-write device"
	expect_status 1 'failed|busy' dmsetup reload --readonly $DEV --table "$tbl"
	expect_status 1 'active read-write' tierctl activate --readonly $DEV
	expect_eq "$(activation)" rw "activation field of a read-write table"
	expect_eq "$(jfield $DEV '["read_only"]')" False "read_only of a read-write table"
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M count=8 seek=100 oflag=direct conv=fsync status=none ||
		fail "write after a read-only activation failed"
	dmsetup message $DEV 0 commit || fail "commit after a read-only activation failed"
	tier_eval $DEV
	[ "$commits" -ge 1 ] || fail "read-write: no commit"
	dev_cmp $D /tmp/data ||
		fail "read-write: data differs"
	tierctl remove $DEV >/dev/null
	echo "rw: read-only tables refused, writes and commits work"
}

# Set bit 0 of ro_compat (0x78) in tier 0's newest superblock slot, resealed.
set_ro_compat() { # disk
	local g0 g1 slot sb
	g0=$(le "$1" $((8 * 512 + 0x20)) 8)
	g1=$(le "$1" $((16 * 512 + 0x20)) 8)
	slot=$([ "$g1" -gt "$g0" ] && echo 1 || echo 0)
	sb=$(((8 + 8 * slot) * 512))
	set_u64_resealed "$1" $sb $((0x78)) $(($(le "$1" $((sb + 0x78)) 8) | 1))
	echo "slot $slot now has ro_compat bit 0"
}

# Metadata a newer module wrote with a ro_compat feature this one does not
# know: read-only, it activates and reads back; read-write it is refused
# (the old code refused both, though docs/FORMAT.md promises reading).
step_rocompat() {
	local tbl
	tierctl activate $DEV >/dev/null || fail "rocompat: activation"
	tbl=$(dmsetup table $DEV)
	tierctl remove $DEV >/dev/null
	set_ro_compat "$DMT_NVME0" || fail "rocompat: could not set the bit"
	dmsetup create $DEV --readonly --table "$tbl" ||
		fail "rocompat: a read-only table over metadata with an unknown ro_compat feature was refused"
	dev_cmp $D /tmp/data || fail "rocompat: read-only, the data differs"
	dmsetup remove $DEV
	expect_status 1 'failed' dmsetup create $DEV --table "$tbl"
	klog_has 'Metadata has features this module can only read: load the table read-only' ||
		fail "rocompat: no message for a read-write table"
	echo "rocompat: an unknown ro_compat feature activates read-only and is refused read-write"
}

guest_main() {
	step_setup
	step_ro
	step_refused
	hash_members /tmp/h.after
	check "every member hashes as before the read-only activation" cmp -s /tmp/h.before /tmp/h.after
	if [ ${#BAD[@]} -gt 0 ]; then
		diff /tmp/h.before /tmp/h.after || true
		fail "read-only activation: ${#BAD[@]} check(s) failed: $(printf '%s; ' "${BAD[@]}")"
	fi
	step_rw
	step_rocompat
	echo "read-only activation writes nothing; one mode at a time"
}
run_guest_phase "$@"

"$TOP/tools/ynl-locate" >/dev/null || fail "tools/ynl-locate could not fetch the YNL CLI"
vm --fresh --nvme 128M --nvme 256M -- "$0" main
