#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# dmt: smp
# shellcheck source=tests/vm/lib.sh disable=SC2154,SC2015  # status variables come from tier_eval
# The migration engine, one boot, two NVMe drives (hot 64M, cold 512M),
# 1 MiB extents. Counters come from `dmsetup status` (tier_stats in lib.sh).
#   settings  table keys and `set` messages with their limits; migrate's EINVAL
#   burst     3x tier 0's capacity in fsync'd files on XFS: spill; then the
#             idle device demotes tier 0 to its low watermark; data intact
#   deadline  drain_deadline with a light reader keeping the device busy: a
#             burst above the high watermark (written with auto_migrate 0) is
#             under low within the deadline, the engine in its deadline pace
#   promote   a region migrated to tier 1, read with O_DIRECT more than
#             promote_hits times, moves up, but only up to tier 0's low
#             watermark; contents intact
#   redirect  whole-extent overwrites of tier-1 data land on tier 0 without a
#             copy; a partial write, or redirect_writes 0, leaves them there
#   age       demote_age 3 moves every unread extent down, under the watermarks
#   displace  tier 0 at its low watermark with cold data: a region on tier 1
#             read over and over swaps in (the cold extents go down), tier 0's
#             use stays where it was, no swap back once it is up; contents
#   throttle  32 MiB at migration_bandwidth 2 takes >= 2x (and >= 10 s) what
#             it takes unthrottled; a second migrate meanwhile is queued
#             and cancelled
#   fio       4 jobs with crc32c verify while migrate ping-pongs their region
#             between the tiers and low watermarks keep the engine busy too
# DMT_MIG_STEPS="burst deadline" runs a subset (in this order; raw-device
# steps need "raw" first); DMT_MIG_FIO_SECS sets the fio phase (default 40),
# DMT_MIG_READER_IOPS the deadline step's foreground reader (default 200).
. "$(dirname "$0")/lib.sh"
DEV=mg
D=/dev/mapper/$DEV
ES=2048 # sectors per 1 MiB extent
MNT=/mnt/mg

# Writes of whole MiBs with O_DIRECT: file, device offset in MiB.
put() { dd if="$1" of=$D bs=1M seek="$2" oflag=direct conv=fsync status=none; }
# sha256 of COUNT MiB of the device at OFFSET MiB, read with O_DIRECT.
dev_sha() { dev_sum $D "$2" "$1"; }
file_sha() { dev_sum "$1"; }
# Extents of tier 0 at or below PCT percent (rounding up: the engine may
# count a partial extent as under the mark).
pct_extents() { echo $((($1 * $2 + 99) / 100)); }
# Wait for a migrate request to be done: nothing pending, nothing copying,
# and the expected number of extents on the target tier.
wait_moved() { # what tier want timeout
	tier_wait $DEV "$4" "[ \$manual_pending = 0 ] && [ \$in_flight = 0 ] && [ \$mapped$2 = $3 ]" ||
		fail "$1: migrate not done after $4 s: $(tier_summary $DEV)"
}

step_settings() {
	local tbl base kv rc bad size
	tbl=$(dmsetup table $DEV)
	# "0 LEN tier EXTENT_SECTORS NR_TIERS DEV..." without optional arguments
	base=$(awk '{ n = 5 + $5; for (i = 1; i <= n; i++) printf "%s%s", $i, (i < n ? " " : "\n") }' <<<"$tbl")
	size=$(blockdev --getsz $D)
	dmsetup reload $DEV --table "$base 6 high_watermark 70 low_watermark 50 promote_window 30"
	dmsetup suspend $DEV && dmsetup resume $DEV
	tbl=$(dmsetup table $DEV)
	for kv in "high_watermark 70" "low_watermark 50" "promote_window 30"; do
		[[ $tbl == *"$kv"* ]] || fail "table key '$kv' not in the table: $tbl"
	done
	! dmsetup reload $DEV --table "$base 4 high_watermark 50 low_watermark 50" 2>/dev/null ||
		fail "a table with low_watermark = high_watermark was accepted"
	! dmsetup reload $DEV --table "$base 2 no_such_key 1" 2>/dev/null || fail "an unknown table key was accepted"
	dmsetup reload $DEV --table "$base"
	dmsetup suspend $DEV && dmsetup resume $DEV
	expect_eq "$(dmsetup table $DEV)" "$base" "table after reloading the defaults"

	# Runtime settings show in the table (so a table reload keeps them).
	tier_set $DEV demote_age 3600
	tier_set $DEV migration_inflight 6
	tbl=$(dmsetup table $DEV)
	[[ $tbl == *"demote_age 3600"* && $tbl == *"migration_inflight 6"* ]] ||
		fail "settings changed by message are not in the table: $tbl"
	tier_set $DEV demote_age 0
	tier_set $DEV migration_inflight 8
	tier_set $DEV commit_interval_ms 1000
	tier_set $DEV reserve_pct 2
	for bad in "set high_watermark 0" "set high_watermark 101" "set low_watermark 100" \
		"set low_watermark 80" "set high_watermark 60" "set auto_migrate 2" \
		"set redirect_writes 2" "set migration_inflight 0" "set promote_window 0" \
		"set no_such_key 1" "set promote_hits x" "migrate 0 $ES 2" "migrate $size $ES 0" \
		"migrate 0 $ES" "migrate x $ES 1" "migrate 0 $ES 1 extra"; do
		# shellcheck disable=SC2086 # words of the message
		rc=$(status_of tier_msg $DEV $bad)
		expect_eq "$rc" 22 "message '$bad' (80/60 watermarks)"
	done
	expect_eq "$(dmsetup table $DEV)" "$base" "table after refused messages"
	tier_stats $DEV >/dev/null
	echo "settings: table keys, set messages and their limits ok"
}

step_burst() {
	local n t0 low
	mkfs.xfs -q $D
	mount $D $MNT
	mkdir $MNT/a $MNT/b
	tier_eval $DEV
	n=$(((3 * total0 + 31) / 32))
	t0=$(now_ms)
	write_files $MNT/a $n 32 /tmp/sums.a
	echo "burst: $n x 32 MiB written and synced in $(fmt_ms $(($(now_ms) - t0))) s: $(tier_summary $DEV)"
	tier_eval $DEV
	[ "$mapped1" -gt 0 ] || fail "burst: nothing on tier 1 after writing 3x tier 0's capacity"
	expect_eq "$nospc_errors" 0 "burst: nospc errors"
	low=$(pct_extents "$total0" 60)
	tier_wait $DEV 90 "[ \$used0 -le $low ]" ||
		fail "burst: tier 0 not at its low watermark ($low of $total0) after 90 s idle: $(tier_summary $DEV)"
	echo "burst: idle, tier 0 at the low watermark after $(fmt_ms "$WAITED_MS") s: $(tier_summary $DEV)"
	[ "$demotions" -gt 0 ] || fail "burst: no demotions"
	expect_eq "$migration_errors" 0 "burst: migration errors"
	echo 3 >/proc/sys/vm/drop_caches
	check_files $MNT/a /tmp/sums.a
	tier_sane $DEV burst
}

# The longest pause, in ms, between the reader's completions that ended in
# [FROM, TO] (epoch ms), from its fio latency log (epoch timestamps).
reader_gap() { # log from to
	awk -F, -v from="$2" -v to="$3" '
		{ t = $1 + 0 }
		t > from && t <= to { g = t - (prev > from ? prev : from); if (g > max) max = g }
		{ prev = t }
		END {
			if (prev < to) { g = to - (prev > from ? prev : from); if (g > max) max = g }
			print max + 0
		}' "$1"
}

step_deadline() {
	local dl=15 slack=10 n low high reader sampler t0 t_end took peak paces gap tb
	tier_eval $DEV
	low=$(pct_extents "$total0" 60)
	high=$((total0 * 80 / 100))
	tier_set $DEV drain_deadline $dl
	# A light foreground load: 200 reads of 4 KiB a second (the engine
	# calls the foreground busy when it saw I/O in the last 250 ms). Its
	# latency log tells whether the guest kept it going.
	rm -f /tmp/rd_*.log
	fio --name=reader --filename=$MNT/a/f1 --rw=randread --bs=4k --direct=1 \
		--rate_iops="${DMT_MIG_READER_IOPS:-200}" --time_based --runtime=600 \
		--write_lat_log=/tmp/rd --log_unix_epoch=1 \
		--eta=never --output=/tmp/reader.out &
	reader=$!
	sleep 2
	kill -0 $reader 2>/dev/null || { cat /tmp/reader.out; fail "deadline: the reader did not start"; }
	tier_wait $DEV 60 "[ \$used0 -le $low ]" || fail "deadline: tier 0 above low before the burst: $(tier_summary $DEV)"
	n=$(((total0 - used0 + 32 + 15) / 16))
	rm -f /tmp/b.stop /tmp/b.log
	(
		peak=0 paces=" " t=$(now_ms)
		while [ ! -e /tmp/b.stop ]; do
			tier_eval $DEV
			[ "$used0" -le "$peak" ] || peak=$used0
			[[ $paces == *" $pace "* ]] || paces+="$pace "
			echo "$peak$paces" >/tmp/b.peak
			echo "$(fmt_ms $(($(now_ms) - t))) used0 $used0 pace $pace in_flight $in_flight ios $((reads0 + writes0 + reads1 + writes1)) demotions $demotions" >>/tmp/b.log
			sleep 0.1
		done
	) &
	sampler=$!
	# The engine keeps up with page-cache writeback: it would drain at full
	# speed while the burst is still above the high watermark. Hold it off
	# so that the burst ends above high and the drain runs after it.
	tier_set $DEV auto_migrate 0
	tb=$(now_ms)
	write_files $MNT/b $n 16 /tmp/sums.b
	# The deadline counts from the burst's last allocation, which may be
	# most of a slow burst ago (34 s under TCG on a busy host, while the
	# engine was held off): give the drain its full dl seconds from now.
	tb=$((($(now_ms) - tb + 999) / 1000))
	if [ "$tb" -gt 2 ]; then
		dl=$((dl + tb))
		tier_set $DEV drain_deadline $dl
	fi
	tier_set $DEV auto_migrate 1
	echo "burst end" >>/tmp/b.log
	t0=$(now_ms)
	tier_wait $DEV $((dl + 60)) "[ \$used0 -le $low ]" ||
		fail "deadline: tier 0 above low $((dl + 60)) s after the burst: $(tier_summary $DEV)"
	took=$WAITED_MS
	t_end=$(now_ms)
	touch /tmp/b.stop
	wait $sampler
	kill -0 $reader 2>/dev/null || { cat /tmp/reader.out; fail "deadline: the reader stopped"; }
	kill $reader && wait $reader || true
	read -r peak paces </tmp/b.peak
	gap=$(reader_gap /tmp/rd_lat.1.log "$t0" "$t_end")
	echo "deadline: burst of $n x 16 MiB took tier 0 to $peak of $total0 extents (high $high, low $low);" \
		"under low $(fmt_ms "$took") s after the burst ended (deadline $dl s); paces seen: $paces;" \
		"the reader's longest pause meanwhile: $gap ms"
	[ "$peak" -gt "$high" ] && [ "$took" -le $(((dl + slack) * 1000)) ] &&
		{ [[ " $paces " == *" deadline "* ]] || [ "$gap" -gt 250 ]; } || {
		echo "deadline: status samples (seconds since the burst started):"
		cat /tmp/b.log
		[ "$peak" -gt "$high" ] || fail "deadline: the burst did not take tier 0 above the high watermark"
		[[ " $paces " == *" deadline "* ]] || [ "$gap" -gt 250 ] ||
			fail "deadline: the engine never used the deadline pace, though the reader never paused for 250 ms"
		fail "deadline: drained in $(fmt_ms "$took") s, deadline $dl s (+$slack s slack)"
	}
	# Busy means I/O within the last 250 ms: a guest starved by its host
	# pauses the reader longer, and the engine rightly drains at full pace.
	[[ " $paces " == *" deadline "* ]] ||
		echo "deadline: pace not checked: the reader paused for $gap ms (a starved guest: the device was idle then)"
	tier_set $DEV drain_deadline 0
	echo 3 >/proc/sys/vm/drop_caches
	check_files $MNT/b /tmp/sums.b
	tier_sane $DEV deadline
}

# From here on the raw device, every extent unmapped first.
step_raw() {
	! mountpoint -q $MNT || umount $MNT
	blkdiscard -f $D 2>/tmp/blkdiscard.err || { cat /tmp/blkdiscard.err; fail "blkdiscard $D"; }
	tier_msg $DEV commit
	tier_wait $DEV 30 "[ \$mapped = 0 ] && [ \$used0 = 0 ] && [ \$used1 = 0 ] && [ \$in_flight = 0 ]" ||
		fail "raw: extents left after discarding the whole device: $(tier_summary $DEV)"
	tier_sane $DEV raw
}

# Regions stay clear of the device's first and last MiBs, which udev's
# blkid probes read after every close of a written device (heat).
step_promote() { # region: 16 MiB at 32 MiB
	local p0 cap
	tier_set $DEV auto_migrate 0
	rand_bytes 16M >/tmp/c.bin
	put /tmp/c.bin 32
	tier_msg $DEV migrate $((32 * ES)) $((16 * ES)) 1 || fail "promote: migrate to tier 1 (status $?)"
	wait_moved promote 1 16 60
	expect_eq "$mapped0" 0 "promote: extents on tier 0 after migrating all to tier 1"
	p0=$promotions
	# Promotion fills tier 0 up to its low watermark only: 16% first.
	tier_set_wm $DEV 80 16
	cap=$((total0 * 16 / 100))
	tier_set $DEV promote_hits 3
	tier_set $DEV auto_migrate 1
	sleep 2
	expect_eq "$(tier_mapped $DEV 1)" 16 "promote: extents still on tier 1 before any read"
	for _ in 1 2 3 4 5; do
		dd if=$D of=/dev/null bs=1M skip=32 count=16 iflag=direct status=none
	done
	tier_wait $DEV 30 "[ \$mapped0 -ge $cap ] && [ \$in_flight = 0 ]" ||
		fail "promote: tier 0 not filled to its low watermark ($cap extents) 30 s after 5 reads: $(tier_summary $DEV)"
	sleep 2
	tier_eval $DEV
	echo "promote: low watermark 16%: $mapped0 of 16 hot extents promoted ($cap allowed), $(fmt_ms "$WAITED_MS") s"
	[ "$mapped0" -le "$cap" ] && [ "$used0" -le "$cap" ] ||
		fail "promote: promotion filled tier 0 beyond its low watermark ($cap extents): $(tier_summary $DEV)"
	[ "$promotions" -gt "$p0" ] || fail "promote: promotions counter did not move ($p0 -> $promotions)"
	# Back to 60%: the rest, still hot, follows.
	tier_set_wm $DEV 80 60
	tier_wait $DEV 30 "[ \$mapped0 = 16 ] && [ \$in_flight = 0 ]" ||
		fail "promote: hot extents left on tier 1 under a 60% low watermark: $(tier_summary $DEV)"
	echo "promote: low watermark 60%: all 16 promoted after $(fmt_ms "$WAITED_MS") s: $(tier_summary $DEV)"
	expect_eq "$(dev_sha 32 16)" "$(file_sha /tmp/c.bin)" "promote: contents after promotion"
	tier_set $DEV promote_hits 4
	tier_sane $DEV promote
}

step_redirect() { # region: 16 MiB at 64 MiB
	local m0 m1 mb
	tier_set $DEV auto_migrate 0
	rand_bytes 16M >/tmp/d.bin
	put /tmp/d.bin 64
	tier_eval $DEV
	m1=$((mapped1 + 16))
	tier_msg $DEV migrate $((64 * ES)) $((16 * ES)) 1 || fail "redirect: migrate to tier 1 (status $?)"
	wait_moved redirect 1 $m1 60
	m0=$mapped0 mb=$moved_bytes
	# Half an extent: written in place on tier 1.
	rand_bytes 512K >/tmp/d.part
	dd if=/tmp/d.part of=/tmp/d.bin bs=512K conv=notrunc status=none
	dd if=/tmp/d.part of=$D bs=512K seek=128 oflag=direct conv=fsync status=none
	tier_eval $DEV
	[ "$mapped0" = "$m0" ] && [ "$mapped1" = "$m1" ] ||
		fail "redirect: a partial write moved its extent: $(tier_summary $DEV)"
	# A whole extent with redirect_writes 0: in place too.
	tier_set $DEV redirect_writes 0
	rand_bytes 1M >/tmp/d.one
	dd if=/tmp/d.one of=/tmp/d.bin bs=1M seek=1 conv=notrunc status=none
	put /tmp/d.one 65
	tier_eval $DEV
	[ "$mapped0" = "$m0" ] && [ "$mapped1" = "$m1" ] ||
		fail "redirect: redirect_writes 0 still redirected: $(tier_summary $DEV)"
	tier_set $DEV redirect_writes 1
	# 14 whole extents: each to a fresh tier-0 extent, nothing copied.
	rand_bytes 14M >/tmp/d.new
	dd if=/tmp/d.new of=/tmp/d.bin bs=1M seek=2 conv=notrunc status=none
	put /tmp/d.new 66
	tier_eval $DEV
	echo "redirect: after 14 whole-extent overwrites: $(tier_summary $DEV)"
	expect_eq "$mapped0" $((m0 + 14)) "redirect: extents on tier 0"
	expect_eq "$mapped1" $((m1 - 14)) "redirect: extents on tier 1"
	expect_eq "$moved_bytes" "$mb" "redirect: moved_bytes (a redirect copies nothing)"
	expect_eq "$(dev_sha 64 16)" "$(file_sha /tmp/d.bin)" "redirect: contents"
	echo 3 >/proc/sys/vm/drop_caches
	tier_msg $DEV commit
	tier_wait $DEV 10 "[ \$used1 = \$mapped1 ]" ||
		fail "redirect: tier 1 uses $used1 extents but maps $mapped1, 10 s after the overwrites"
	tier_sane $DEV redirect
}

# demote_age: extents unread for that long go down even under the low
# watermark (promotion off, or the hot ones would come straight back).
step_age() { # regions of promote and redirect: 30 extents on tier 0
	local d0 m
	tier_eval $DEV
	d0=$demotions m=$mapped0
	[ "$m" -gt 0 ] || fail "age: nothing on tier 0 to age"
	tier_set $DEV promote_hits 0
	tier_set $DEV demote_age 3
	tier_set $DEV auto_migrate 1
	tier_wait $DEV 30 "[ \$mapped0 = 0 ] && [ \$in_flight = 0 ]" ||
		fail "age: extents left on tier 0 30 s after demote_age 3: $(tier_summary $DEV)"
	echo "age: $m extents demoted by age in $(fmt_ms "$WAITED_MS") s: $(tier_summary $DEV)"
	[ "$demotions" -ge $((d0 + m)) ] || fail "age: demotions $d0 -> $demotions for $m extents"
	tier_set $DEV demote_age 0
	tier_set $DEV promote_hits 4
	expect_eq "$(dev_sha 32 16)" "$(file_sha /tmp/c.bin)" "age: contents of the promote region"
	expect_eq "$(dev_sha 64 16)" "$(file_sha /tmp/d.bin)" "age: contents of the redirect region"
	tier_sane $DEV age
}

# Promotion that displaces (smq's swaps): when tier 0 sits at its low
# watermark full of cold data, a hot extent of tier 1 trades places with
# the coldest one instead of waiting for room that never comes.
step_displace() { # regions: 24 MiB at 160 MiB (cold), 8 MiB at 192 MiB (hot)
	local reader s0 s1 u0
	step_raw
	tier_set $DEV auto_migrate 0
	rand_bytes 24M >/tmp/e.cold
	rand_bytes 8M >/tmp/e.hot
	put /tmp/e.cold 160
	put /tmp/e.hot 192
	tier_msg $DEV migrate $((192 * ES)) $((8 * ES)) 1 || fail "displace: migrate to tier 1 (status $?)"
	wait_moved displace 1 8 60
	tier_eval $DEV
	u0=$mapped0
	expect_eq "$u0" 24 "displace: cold extents on tier 0"
	# Tier 0 above its low watermark: plain promotion has no room.
	tier_set_wm $DEV 90 30
	tier_set $DEV promote_hits 3
	tier_set $DEV promote_window 2
	sleep 3 # the cold extents untouched for a window: they may go
	s0=$(tierctl status $DEV --json | jget '["migration"]["swaps"]')
	tier_set $DEV auto_migrate 1
	# A region read over and over (as a model's weights are).
	( while [ ! -e /tmp/e.stop ]; do
		dd if=$D of=/dev/null bs=1M skip=192 count=8 iflag=direct status=none
		sleep 0.3
	done ) &
	reader=$!
	rm -f /tmp/e.stop
	local i up=0
	for i in $(seq 120); do
		up=$(tierctl where $DEV --range 192M:8M --json | jget '["tiers"][0]["bytes"]')
		[ "$up" = $((8 << 20)) ] && break
		sleep 0.5
	done
	touch /tmp/e.stop
	wait $reader
	[ "$up" = $((8 << 20)) ] ||
		fail "displace: the hot region is not all on tier 0 after 60 s of reads ($up bytes): $(tier_summary $DEV)"
	tier_wait $DEV 30 "[ \$in_flight = 0 ]" || fail "displace: copies still in flight: $(tier_summary $DEV)"
	tier_eval $DEV
	s1=$(tierctl status $DEV --json | jget '["migration"]["swaps"]')
	echo "displace: 8 hot extents swapped in for cold ones ($((s1 - s0)) swaps): $(tier_summary $DEV)"
	[ $((s1 - s0)) -ge 8 ] || fail "displace: swaps $s0 -> $s1 for 8 hot extents"
	expect_eq "$mapped0" "$u0" "displace: extents on tier 0 (a swap keeps its use)"
	expect_eq "$mapped1" 8 "displace: extents on tier 1 (the displaced cold ones)"
	# No swap back: the displaced extents are cold, the promoted ones
	# are not victims while they are read, and nothing else is hot.
	sleep 8
	expect_eq "$(tierctl status $DEV --json | jget '["migration"]["swaps"]')" "$s1" "displace: swaps 8 s later"
	expect_eq "$(dev_sha 160 24)" "$(file_sha /tmp/e.cold)" "displace: contents of the cold region"
	expect_eq "$(dev_sha 192 8)" "$(file_sha /tmp/e.hot)" "displace: contents of the hot region"
	tier_set $DEV promote_window 60
	tier_set $DEV promote_hits 4
	tier_set_wm $DEV 80 60
	tier_sane $DEV displace
}

step_throttle() { # region: 32 MiB at 128 MiB, on an empty device
	local m0 m1 t0 slow fast id
	step_raw
	tier_set $DEV auto_migrate 0
	rand_bytes 32M >/tmp/e.bin
	put /tmp/e.bin 128
	tier_eval $DEV
	m0=$mapped0 m1=$mapped1
	tier_set $DEV migration_bandwidth 2
	t0=$(now_ms)
	tier_msg $DEV migrate $((128 * ES)) $((32 * ES)) 1 || fail "throttle: migrate (status $?)"
	# A second request meanwhile is queued, not refused; cancelled, it
	# never runs.
	id=$(tierctl migrate $DEV --range 0:1M --tier 1 --json | jget '["move_id"]')
	tierctl cancel $DEV "$id" >/dev/null || fail "throttle: cancel the queued request $id"
	sleep 3
	echo "throttle: 3 s into 32 MiB at 2 MiB/s: $(tier_summary $DEV)"
	wait_moved throttle 1 $((m1 + 32)) 90
	slow=$(($(now_ms) - t0))
	tier_set $DEV migration_bandwidth 0
	t0=$(now_ms)
	tier_msg $DEV migrate $((128 * ES)) $((32 * ES)) 0 || fail "throttle: migrate back (status $?)"
	wait_moved throttle 0 "$m0" 90
	fast=$(($(now_ms) - t0))
	echo "throttle: 32 MiB to tier 1 at 2 MiB/s in $(fmt_ms $slow) s, back unthrottled in $(fmt_ms $fast) s"
	# 32 MiB at 2 MiB/s: 16 s. Not a ratio to the unthrottled copy, whose
	# time grows with the host's load (half of 16 s left little room).
	[ $slow -ge 12000 ] ||
		fail "throttle: the bandwidth cap did not slow the copy ($(fmt_ms $slow) s vs $(fmt_ms $fast) s)"
	expect_eq "$(dev_sha 128 32)" "$(file_sha /tmp/e.bin)" "throttle: contents"
	tier_sane $DEV throttle
}

fio_job() { # extra args
	fio --name=mf --filename=$D --direct=1 --ioengine=libaio --iodepth=8 --numjobs=4 \
		--offset=256m --offset_increment=8m --size=8m --rw=randwrite --bsrange=4k-256k \
		--verify=crc32c --verify_fatal=1 --group_reporting --eta=never "$@" >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; echo "during: $(tier_summary $DEV)"; fail "fio $*"; }
}

# Ping-pong [start, start+nr) between tier 1 and tier 0 until STOP exists;
# counts accepted requests and EBUSY answers in /tmp/migrator.
migrator() { # start nr stop
	local to=1 ok=0 busy=0 rc
	while [ ! -e "$3" ]; do
		# One request at a time (the kernel would queue up to 32).
		if [ "$(tier_stat $DEV manual_pending)" != 0 ]; then
			busy=$((busy + 1))
			sleep 0.1
			continue
		fi
		rc=$(status_of tier_msg $DEV migrate "$1" "$2" $to)
		case $rc in
		0) ok=$((ok + 1)) to=$((1 - to)) ;;
		16) busy=$((busy + 1)) ;;
		*) echo "migrator: migrate $1 $2 $to: status $rc"; exit 1 ;;
		esac
		echo "$ok $busy" >/tmp/migrator
		sleep 0.3
	done
}

step_fio() { # region: 32 MiB at 256 MiB, on an empty device
	local secs=${DMT_MIG_FIO_SECS:-$(long_or_short 40 20)} seed=0 mig t0 ok busy s0
	step_raw
	tier_set_wm $DEV 30 20
	tier_set $DEV promote_hits 2
	tier_set $DEV promote_window 60
	tier_set $DEV migration_inflight 8
	tier_set $DEV auto_migrate 1
	tier_eval $DEV
	s0="$promotions $demotions $moved_bytes"
	rm -f /tmp/mig.stop /tmp/migrator
	migrator $((256 * ES)) $((32 * ES)) /tmp/mig.stop &
	mig=$!
	t0=$(now_ms)
	while [ $seed -lt 2 ] || [ $(($(now_ms) - t0)) -lt $((secs * 1000)) ]; do
		seed=$((seed + 1))
		fio_job --randseed=$seed --do_verify=1
		echo "fio: pass $seed (write + verify) ok, $(cat /tmp/migrator 2>/dev/null) migrate requests/EBUSY: $(tier_summary $DEV)"
	done
	touch /tmp/mig.stop
	wait $mig || fail "fio: the migrate loop failed"
	read -r ok busy </tmp/migrator
	tier_wait $DEV 60 "[ \$manual_pending = 0 ] && [ \$in_flight = 0 ]" ||
		fail "fio: migrations still running 60 s after the last request: $(tier_summary $DEV)"
	fio_job --randseed=$seed --verify_only=1
	grep -E 'err= *[0-9]' /tmp/fio.out | head -n 1
	tier_eval $DEV
	echo "fio: $seed passes in $(fmt_ms $(($(now_ms) - t0))) s, $ok migrate requests ($busy EBUSY retries);" \
		"promotions/demotions/moved $s0 -> $promotions $demotions $moved_bytes"
	[ "$ok" -ge 3 ] || fail "fio: only $ok migrate requests accepted: the previous ones never finished"
	[ "$promotions" -gt "${s0%% *}" ] || fail "fio: the promotions counter did not move"
	expect_eq "$migration_errors" 0 "fio: migration errors"
	expect_eq "$nospc_errors" 0 "fio: nospc errors"
	tier_sane $DEV fio
}

guest_main() {
	local steps=${DMT_MIG_STEPS:-settings burst deadline raw promote redirect age displace throttle fio} s t0
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --extent-size 1M >/dev/null
	tier_stats $DEV >/dev/null || fail "no migration fields in the status: is this the migration module?"
	mkdir -p $MNT
	for s in $steps; do
		t0=$(now_ms)
		"step_$s"
		echo "[$s done in $(fmt_ms $(($(now_ms) - t0))) s]"
	done
	! mountpoint -q $MNT || umount $MNT
	tierctl remove $DEV
	echo "migration: $steps ok"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 512M --timeout 600 -- "$0" main
