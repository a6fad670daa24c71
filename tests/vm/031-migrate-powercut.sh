#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154,SC2015  # status variables come from tier_eval
# Power cuts during migrations: both tiers on null_blk disks with a volatile
# write cache under dm-linear shims (as in 020), XFS on a device of 1 MiB
# extents, and at the moment of each cut:
#   * migrate requests ping-ponging the extents of checksummed files and of
#     the ackio record file between the tiers,
#   * watermarks (30/15) low enough that automatic demotion runs, and
#     promote_hits 2 so reads promote,
#   * tests/vm/helpers/ackio.py writing O_DSYNC records and fsync'd files.
# The cut comes 1-4 s into the workload, when a copy is in flight if one
# shows within 3 s. After each: power back, tierctl activate, every
# acknowledged write and every checksum intact, xfs_repair -n clean, no
# extent leaked (used = mapped per tier once idle). At the end, a migrate
# of the whole region still works.
. "$(dirname "$0")/lib.sh"
CUTS=${DMT_MIGRATE_CUTS:-$(long_or_short 6 3)} # make check-long: 6
DEV=pm
D=/dev/mapper/$DEV
ES=2048 # sectors per 1 MiB extent
MNT=/mnt/pm
ACKIO=$TOP/tests/vm/helpers/ackio.py

# Stop all I/O to the disks at once (the shims fail everything), then cycle
# the disks' power: whatever was not flushed is gone.
cut_power() {
	shims_cut hotL:hot0 coldL:cold0
}

restore_power() {
	shims_restore hotL:hot0 coldL:cold0
}

settings() { # after every activation (a power cut may lose a change not yet committed)
	tier_set_wm $DEV 30 15
	tier_set $DEV promote_hits 2
	tier_set $DEV auto_migrate 1
}

# Extent-aligned span of the files' blocks on the device: "START NR" sectors.
span_of() { # files...
	xfs_bmap "$@" | awk -v es=$ES '
		$3 ~ /^[0-9]+\.\.[0-9]+$/ {
			split($3, r, /\.\./)
			if (lo == "" || r[1] + 0 < lo) lo = r[1] + 0
			if (r[2] + 1 > hi) hi = r[2] + 1
		}
		END { lo = int(lo / es) * es; hi = int((hi + es - 1) / es) * es; print lo, hi - lo }'
}

# Ping-pong [start, start+nr) between tier 1 and tier 0 until STOP exists;
# accepted requests in /tmp/migrator. After the cut a request may fail.
migrator() { # start nr stop
	local to=1 ok=0 rc
	while [ ! -e "$3" ]; do
		rc=$(status_of tier_msg $DEV migrate "$1" "$2" $to 2>/dev/null)
		[ "$rc" != 0 ] || ok=$((ok + 1)) to=$((1 - to))
		echo "$ok" >/tmp/migrator
		sleep 0.2
	done
}

recover() { # cycle
	tierctl activate $DEV >/dev/null
	tier_sane $DEV "cycle $1: after activation"
	# Nothing leaked: once idle and committed, every used extent is mapped.
	tier_set $DEV auto_migrate 0
	tier_wait $DEV 60 "[ \$in_flight = 0 ] && [ \$manual_pending = 0 ]" ||
		fail "cycle $1: migrations do not stop after activation: $(tier_summary $DEV)"
	tier_msg $DEV commit
	tier_wait $DEV 10 "[ \$used0 = \$mapped0 ] && [ \$used1 = \$mapped1 ]" ||
		fail "cycle $1: used extents that are not mapped after recovery: $(tier_summary $DEV)"
	mount -o discard $D $MNT
	python3 "$ACKIO" verify $MNT/w /tmp/state/ack.*.log || fail "cycle $1: acknowledged ackio data lost"
	check_files $MNT/w /tmp/state/keep.sums
	umount $MNT
	xfs_repair -n $D >/tmp/repair.log 2>&1 || { cat /tmp/repair.log; fail "cycle $1: xfs_repair -n"; }
}

guest_main() {
	local c span start nr delay ack_pid mig_pid hits=0 aim
	"$TOP/tools/nullb" create hot0 96 32
	"$TOP/tools/nullb" create cold0 384 32
	dmsetup create hotL --table "0 $(blockdev --getsz /dev/hot0) linear /dev/hot0 0"
	dmsetup create coldL --table "0 $(blockdev --getsz /dev/cold0) linear /dev/cold0 0"
	tierctl create $DEV --tier /dev/mapper/hotL --tier /dev/mapper/coldL --extent-size 1M >/dev/null
	tier_stats $DEV >/dev/null || fail "no migration fields in the status: is this the migration module?"
	mkfs.xfs -q $D
	mkdir -p $MNT /tmp/state
	mount -o discard $D $MNT
	mkdir $MNT/w
	# Files in one directory stay in one allocation group: a compact span.
	write_files $MNT/w 4 4 /tmp/state/keep.sums
	python3 "$ACKIO" write $MNT/w /tmp/state/ack.0.log 1 >/dev/null # creates w/slots
	sync -f $MNT
	span=$(cd $MNT/w && span_of f1 f2 f3 f4 slots)
	read -r start nr <<<"$span"
	echo "ping-pong region: sectors $start+$nr ($((nr / ES)) extents); $(tier_summary $DEV)"
	[ "$nr" -gt 0 ] && [ $((nr / ES)) -le 64 ] || fail "region of $((nr / ES)) extents: expected 1..64"
	umount $MNT
	settings
	for c in $(seq "$CUTS"); do
		mount -o discard $D $MNT
		rm -f /tmp/mig.stop /tmp/migrator
		python3 "$ACKIO" write $MNT/w "/tmp/state/ack.$c.log" >/dev/null 2>&1 &
		ack_pid=$!
		migrator "$start" "$nr" /tmp/mig.stop &
		mig_pid=$!
		# python starts slowly under TCG: cut once ackio is writing.
		for _ in $(seq 100); do
			[ ! -s "/tmp/state/ack.$c.log" ] || break
			sleep 0.1
		done
		delay=$((1 + RANDOM % 3)).$((RANDOM % 10))
		sleep "$delay"
		# Aim at a copy: the next moment one is in flight.
		tier_wait $DEV 3 "[ \$in_flight -gt 0 ]" || true
		aim=$WAITED_MS
		local at="in_flight $in_flight manual_pending $manual_pending pace $pace"
		[ "$in_flight" = 0 ] || hits=$((hits + 1))
		cut_power
		touch /tmp/mig.stop
		wait $mig_pid
		wait $ack_pid && fail "cycle $c: ackio did not notice the power cut"
		echo "cycle $c: cut $delay+$(fmt_ms "$aim") s in, $at," \
			"$(cat /tmp/migrator) migrate requests, $(grep -c . "/tmp/state/ack.$c.log") ackio writes acknowledged"
		umount $MNT
		tierctl remove $DEV >/dev/null
		restore_power
		recover "$c"
		echo "cycle $c: reactivated, acknowledged data and checksums intact, xfs_repair clean: $(tier_summary $DEV)"
		settings
	done
	[ $hits -ge $(((CUTS + 1) / 2)) ] ||
		fail "only $hits of $CUTS cuts came while a copy was in flight"
	# The engine still works on the recovered device.
	tier_set $DEV auto_migrate 0
	tier_eval $DEV
	local want=$((mapped1 + mapped0))
	tier_msg $DEV migrate 0 "$(blockdev --getsz $D)" 1 || fail "final migrate (status $?)"
	tier_wait $DEV 60 "[ \$manual_pending = 0 ] && [ \$in_flight = 0 ] && [ \$mapped1 = $want ]" ||
		fail "final migrate of everything to tier 1 not done: $(tier_summary $DEV)"
	expect_eq "$migration_errors" 0 "migration errors after the final migrate"
	mount $D $MNT
	python3 "$ACKIO" verify $MNT/w /tmp/state/ack.*.log || fail "after the final migrate: ackio data lost"
	check_files $MNT/w /tmp/state/keep.sums
	umount $MNT
	tierctl remove $DEV >/dev/null
	echo "$CUTS power cuts during migrations ($hits with a copy in flight): no acknowledged write lost, checksums intact, xfs_repair clean"
}
run_guest_phase "$@"

vm --mem 2048 --timeout 600 -- "$0" main
