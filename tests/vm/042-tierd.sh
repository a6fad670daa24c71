#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh
# tierd, the policy daemon (docs/tierd.md), one boot, two NVMe drives (hot
# 64M, cold 512M), 1 MiB extents; tierd runs in the foreground with its
# configuration in a temporary --config-dir:
#   apply      started before the device exists, it applies the device's
#              policy on dev-new: the kernel's table and `tierctl policy`
#              show it
#   reload     a broken file + SIGHUP: every problem logged as FILE:LINE,
#              nothing of the new configuration applied (not even its valid
#              keys); fixed + SIGHUP: the new value is in the kernel
#   metrics    the textfile has the device's metrics with the kernel's
#              values: device_info's dm="dm-N" as dmsetup and sysfs name the
#              device and its uuid as the dm uuid's, build_info, commits > 0,
#              nospc 0, the tier and pace state sets; no dm_tier_tier_ names;
#              tierd holds no socket but netlink ones; metrics_listen is
#              refused with what to do
#   retention  three checkpoint directories on XFS, checkpoint_keep 1: the
#              newest stays on tier 0 (pinned), the two older end up on the
#              last tier; the kernel queues tierd's moves (no request
#              refused and retried), each ends with its own migration-done
#              event that tierd matches by id, no migration error
#   once       tierd --once: 0 applied, 2 bad configuration, 1 a pin that
#              cannot be applied
#   stop       SIGTERM: exit status 0
. "$(dirname "$0")/lib.sh"
DEV=td
MNT=/mnt/td
CONF=/tmp/tierd-conf
LOG=/tmp/tierd.log
PROM=/tmp/tierd-metrics/dm-tier.prom
TIERD_PID=

# A key of the table line's optional arguments, e.g. tbl_opt high_watermark.
tbl_opt() { # key
	dmsetup table $DEV | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}

show_log() { echo "---- tierd log ----"; cat $LOG; echo "-------------------"; }
die() { show_log; fail "$*"; }

# Bytes of PATH on TIER per `tierctl where --json`.
where_bytes() { # path tier
	tierctl where $DEV "$1" --json |
		python3 -c "import json,sys; d=json.load(sys.stdin); print(d['tiers'][$2]['bytes'])"
}

step_apply() {
	mkdir -p $CONF/policies.d "$(dirname $PROM)"
	cat >$CONF/tierd.conf <<-EOF
		[global]
		metrics_textfile = $PROM
		metrics_interval = 2
	EOF
	cat >$CONF/policies.d/10-$DEV.conf <<-EOF
		# the device under test
		[device $DEV]
		high_watermark = 70
		low_watermark = 40
		drain_deadline = 120
		checkpoint_dir = $MNT/run   # created later: retried every pass
		checkpoint_keep = 1
	EOF
	tierd --check --config-dir $CONF || fail "tierd --check refused the test configuration"
	tierd --foreground --config-dir $CONF --log-level debug >$LOG 2>&1 &
	TIERD_PID=$!
	wait_for 10 "grep -q 'netlink: connected' $LOG" || die "tierd did not connect to the netlink family"
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --extent-size 1M >/dev/null
	wait_for 10 "[ \"\$(tbl_opt high_watermark)\" = 70 ]" ||
		die "policy not applied after dev-new: table '$(dmsetup table $DEV)'"
	grep -q "$DEV: event dev-new" $LOG || die "the dev-new event was not logged"
	grep -q "$DEV: policy applied: high_watermark=70 low_watermark=40 drain_deadline=120" $LOG ||
		die "the applied policy was not logged"
	expect_eq "$(tbl_opt low_watermark)" 40 "low_watermark in the table"
	expect_eq "$(tbl_opt drain_deadline)" 120 "drain_deadline in the table"
	expect_eq "$(tierctl policy $DEV --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["high_watermark"])')" \
		70 "tierctl policy high_watermark"
	echo "apply: policy applied on dev-new: $(dmsetup table $DEV | cut -d' ' -f8-)"
}

step_reload() {
	local bad=$CONF/policies.d/20-bad.conf
	printf '[device %s]\ndrain_deadline = 300\nhigh_watermark = 150\nbogus_key = 1\n' $DEV >$bad
	kill -HUP "$TIERD_PID"
	wait_for 10 "grep -q 'configuration NOT reloaded' $LOG" || die "no refusal logged after SIGHUP"
	grep -q "$bad:3: high_watermark = 150: out of range (use 1 to 100)" $LOG ||
		die "the out-of-range value was not logged with FILE:LINE"
	grep -q "$bad:4: unknown key 'bogus_key' in \[device $DEV\]" $LOG ||
		die "the unknown key was not logged with FILE:LINE"
	sleep 1
	# Nothing new applied, not even the valid drain_deadline of that file.
	expect_eq "$(tbl_opt high_watermark)" 70 "high_watermark after a refused reload"
	expect_eq "$(tbl_opt drain_deadline)" 120 "drain_deadline after a refused reload"
	kill -0 "$TIERD_PID" || die "tierd died on a bad configuration"

	printf '[device %s]\nhigh_watermark = 90\n' $DEV >$bad
	kill -HUP "$TIERD_PID"
	wait_for 10 "[ \"\$(tbl_opt high_watermark)\" = 90 ]" ||
		die "the fixed configuration was not applied: table '$(dmsetup table $DEV)'"
	expect_eq "$(tbl_opt drain_deadline)" 120 "drain_deadline after the good reload"
	echo "reload: bad file refused with FILE:LINE, previous policy kept; fixed file applied"
}

# The value of the sample SERIES (name{labels}, exactly) in the textfile.
prom_value() { # series
	awk -v s="$1" 'index($0, s " ") == 1 { print substr($0, length(s) + 2); found = 1 } END { exit !found }' $PROM
}

# The textfile shows the 4 MiB written: committed and mapped.
written_4m() {
	[ "$(prom_value "dm_tier_commits_total{device=\"$DEV\"}")" -gt "$COMMITS0" ] &&
		[ "$(prom_value "dm_tier_device_mapped_bytes{device=\"$DEV\"}")" = $((4 << 20)) ]
} 2>/dev/null

step_metrics() {
	local dm ino uuid v mod
	wait_for 10 "grep -q '^dm_tier_used_bytes{device=\"$DEV\",tier=\"0\"' $PROM 2>/dev/null" ||
		die "no dm_tier_used_bytes for $DEV in $PROM: $(head -20 $PROM 2>&1)"
	grep -q "^dm_tier_events_total{device=\"$DEV\",event=\"dev-new\"} 1$" $PROM ||
		die "dev-new not counted in $PROM"
	! grep -q "dm_tier_tier_" $PROM || die "a dm_tier_tier_ name is still written: $(grep -m1 dm_tier_tier_ $PROM)"
	grep -q "^# TYPE dm_tier_capacity_bytes gauge$" $PROM || die "no capacity family"
	expect_eq "$(prom_value "dm_tier_device_size_bytes{device=\"$DEV\"}")" \
		"$(blockdev --getsize64 /dev/mapper/$DEV)" "dm_tier_device_size_bytes"
	expect_eq "$(prom_value "dm_tier_extent_bytes{device=\"$DEV\"}")" $((1 << 20)) "dm_tier_extent_bytes"

	# The join key with node_exporter: the kernel name dmsetup and sysfs give.
	dm=$(dmsetup info -c --noheadings -o blkdevname $DEV | tr -d ' ')
	[[ $dm == dm-* ]] || die "dmsetup gave no dm-N for $DEV: '$dm'"
	expect_eq "$(cat "/sys/block/$dm/dm/name")" $DEV "/sys/block/$dm/dm/name"
	uuid=$(dmsetup info -c --noheadings -o uuid $DEV)
	grep -q "^dm_tier_device_info{device=\"$DEV\",dm=\"$dm\",uuid=\"[0-9a-f-]*\"} 1$" $PROM ||
		die "no device_info with dm=\"$dm\": $(grep dm_tier_device_info $PROM)"
	v=$(sed -n "s/^dm_tier_device_info{device=\"$DEV\",dm=\"$dm\",uuid=\"\([0-9a-f-]*\)\"} 1$/\1/p" $PROM)
	expect_eq "DMTIER-${v//-/}" "$uuid" "device_info's uuid against the dm uuid"
	mod=$(cat /sys/module/dm_tier/version 2>/dev/null || true)
	grep -qF "dm_tier_build_info{version=\"$(tierctl version --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')\",module_version=\"$mod\"} 1" $PROM ||
		die "build_info: $(grep dm_tier_build_info $PROM)"

	# Values from the kernel: before the first write the textfile's commits
	# are the status line's (tierd's policy changes persist, so they were
	# committed: issue 18), one more at least after it (the textfile is
	# rewritten every 2 s); never more than the status line counts
	# afterwards. No ENOSPC.
	wait_for 10 "[ \"\$(prom_value 'dm_tier_commits_total{device=\"$DEV\"}')\" = \"\$(tier_stat $DEV commits)\" ]" ||
		die "dm_tier_commits_total $(prom_value "dm_tier_commits_total{device=\"$DEV\"}") is not the status line's $(tier_stat $DEV commits) before any write"
	COMMITS0=$(tier_stat $DEV commits)
	dd if=<(rand_bytes) iflag=fullblock of=/dev/mapper/$DEV bs=1M count=4 oflag=direct conv=fsync status=none
	wait_for 10 written_4m ||
		die "after a 4 MiB write: commits_total $(prom_value "dm_tier_commits_total{device=\"$DEV\"}"), device_mapped_bytes $(prom_value "dm_tier_device_mapped_bytes{device=\"$DEV\"}") (status: $(dmsetup status $DEV))"
	v=$(prom_value "dm_tier_commits_total{device=\"$DEV\"}")
	[ "$v" -le "$(tier_stat $DEV commits)" ] || die "dm_tier_commits_total $v is above the status line's $(tier_stat $DEV commits)"
	expect_eq "$(prom_value "dm_tier_nospc_errors_total{device=\"$DEV\"}")" 0 "dm_tier_nospc_errors_total"
	# Commit durations in seconds: the last one within the sum, both > 0.
	python3 -c 'import sys
total, last = float(sys.argv[1]), float(sys.argv[2])
assert 0 < last <= total < 600, (total, last)' \
		"$(prom_value "dm_tier_commit_seconds_total{device=\"$DEV\"}")" \
		"$(prom_value "dm_tier_commit_last_seconds{device=\"$DEV\"}")" ||
		die "commit seconds: $(grep '^dm_tier_commit_' $PROM)"
	prom_value "dm_tier_migrations_in_flight{device=\"$DEV\"}" >/dev/null || die "no migrations_in_flight"
	prom_value "dm_tier_manual_pending_extents{device=\"$DEV\"}" >/dev/null || die "no manual_pending_extents"
	expect_eq "$(prom_value "dm_tier_metadata_mode{device=\"$DEV\",mode=\"rw\"}")" 1 "metadata mode rw"
	for v in 0 1; do
		grep -q "^dm_tier_state{device=\"$DEV\",tier=\"$v\",class=\"[a-z]*\",state=\"ok\"} 1$" $PROM ||
			die "tier $v not ok: $(grep "^dm_tier_state{device=\"$DEV\",tier=\"$v\"" $PROM)"
		expect_eq "$(grep -c "^dm_tier_state{device=\"$DEV\",tier=\"$v\",.* 0$" $PROM)" 2 "tier $v: states at 0"
	done
	# Exactly one pace is current.
	expect_eq "$(grep -c "^dm_tier_migration_pace{device=\"$DEV\",pace=\"[a-z]*\"} 1$" $PROM)" 1 "current paces"
	expect_eq "$(grep -c "^dm_tier_migration_pace{device=\"$DEV\"," $PROM)" 4 "pace samples"

	# No HTTP server: every socket tierd holds is a netlink socket (its
	# request and monitor sockets).
	v=0
	for ino in $(find "/proc/$TIERD_PID/fd" -lname 'socket:*' -printf '%l\n' | tr -dc '0-9\n'); do
		awk -v i="$ino" '$NF == i { f = 1 } END { exit !f }' /proc/net/netlink ||
			die "tierd holds a socket that is not netlink (inode $ino): $(ss -anp | grep -w tierd)"
		v=$((v + 1))
	done
	[ "$v" -ge 2 ] || die "tierd holds $v sockets, expected its two netlink ones"
	printf '[global]\nmetrics_listen = 127.0.0.1:9477\n' >/tmp/tierd-listen.conf
	expect_status 2 "tierd-listen.conf:2: metrics_listen was removed in 0\.2: write metrics_textfile = /var/lib/prometheus/node-exporter/dm-tier\.prom and let node_exporter's textfile collector serve it" \
		tierd --check -c /tmp/tierd-listen.conf
	echo "metrics: textfile has $DEV ($dm, commits $(prom_value "dm_tier_commits_total{device=\"$DEV\"}")); tierd has only its $v netlink sockets"
}

# An old checkpoint may share its first or last extent with the kept one
# (or with XFS metadata); tierd leaves extents of kept checkpoints where
# they are, so up to SHARED bytes of an old one may stay on tier 0. With a
# 1 MiB stripe unit, XFS usually aligns the files and nothing is shared.
SHARED=$((2 << 20))

step_retention() {
	local c t0 b0 b1
	mkfs.xfs -q -d su=1m,sw=1 /dev/mapper/$DEV
	mkdir -p $MNT
	mount /dev/mapper/$DEV $MNT
	mkdir -p $MNT/run
	for c in c1 c2 c3; do
		mkdir $MNT/run/$c
		rand_bytes $((8 << 20)) >/tmp/ck-$c
		cp /tmp/ck-$c $MNT/run/$c/data
	done
	sync -f $MNT
	# Distinct ages, oldest first (writing the files set the mtimes).
	touch -d '-3 min' $MNT/run/c1
	touch -d '-2 min' $MNT/run/c2
	touch $MNT/run/c3
	t0=$(now_ms)
	for c in c1 c2; do
		wait_for 90 "[ \"\$(where_bytes $MNT/run/$c 0)\" -le $SHARED ] && [ \"\$(where_bytes $MNT/run/$c 1)\" -ge $(((8 << 20) - SHARED)) ]" ||
			die "old checkpoint $c not on the last tier after 90 s: $(tierctl where $DEV $MNT/run/$c)"
		b0=$(where_bytes $MNT/run/$c 0)
		b1=$(where_bytes $MNT/run/$c 1)
		echo "retention: $c: $b0 bytes on tier 0, $b1 on tier 1"
	done
	# Its pin to tier 0 is a queued move too: a drain may have demoted an
	# extent of it before tierd pinned it (a full run here saw 7 of 8 MiB
	# the old ones had settled).
	wait_for 60 "[ \"\$(where_bytes $MNT/run/c3 0)\" = $((8 << 20)) ]" ||
		die "newest checkpoint c3: $(where_bytes $MNT/run/c3 0) bytes on tier 0 after 60 s, expected $((8 << 20)): $(tierctl where $DEV $MNT/run/c3)"
	tierctl where $DEV $MNT/run/c3 --json | python3 -c "
import json, sys
d = json.load(sys.stdin)
ext = [e for f in d['files'] for e in f['extents']]
assert ext and all(e.get('pinned') for e in ext), 'newest checkpoint not pinned: %s' % ext" ||
		die "the newest checkpoint is not pinned"
	grep -q "$DEV: old checkpoint $MNT/run/c1: .*unpin and move to tier 1" $LOG ||
		die "retention of c1 was not logged"
	# The data is intact after the moves.
	echo 3 >/proc/sys/vm/drop_caches
	for c in c1 c2 c3; do
		cmp -s $MNT/run/$c/data /tmp/ck-$c || die "checkpoint $c differs after retention"
	done
	# Queued, not refused: no request was retried, none failed, and tierd
	# saw each of its moves end by its id (pin c3, migrate c1, migrate c2).
	! grep -E "$DEV: (pin|unpin|migrate) .*; retrying\$|request [0-9]+ (failed|cancelled)" $LOG ||
		die "retention: a request was refused and retried, or a move failed"
	expect_eq "$(tier_stat $DEV migration_errors)" 0 "retention: migration errors"
	wait_for 30 "[ \$(grep -cE '$DEV: (pin|migrate) .*: request [0-9]+ done' $LOG) -ge 3 ]" ||
		die "retention: tierd did not see its moves end by id"
	grep -E "$DEV: event migration-done" $LOG | grep -vE ", request [0-9]+ " &&
		die "retention: a migration-done event without a request id"
	echo "retention: c1, c2 on tier 1, c3 pinned on tier 0 after $(fmt_ms $(($(now_ms) - t0))) s;" \
		"$(grep -cE "$DEV: (pin|migrate) .*: request [0-9]+ done" $LOG) moves followed to their own event"
}

# --once next to the daemon: 0 when everything applies, 2 for a bad
# configuration, 1 when a pin cannot be applied.
step_once() {
	local bad=/tmp/tierd-bad rc
	rc=$(status_of tierd --once --config-dir $CONF)
	expect_eq "$rc" 0 "tierd --once with the test configuration"
	mkdir -p $bad/policies.d
	printf '[device %s]\npin = /x tier=fast\n' $DEV >$bad/policies.d/a.conf
	rc=$(status_of tierd --once --config-dir $bad)
	expect_eq "$rc" 2 "tierd --once with a bad configuration"
	printf '[device %s]\npin = %s/nonexistent\n' $DEV $MNT >$bad/policies.d/a.conf
	rc=$(status_of tierd --once --config-dir $bad)
	expect_eq "$rc" 1 "tierd --once with a pin whose path is missing"
	echo "once: exit codes 0, 2 and 1 as documented"
}

step_stop() {
	local rc=0
	kill -TERM "$TIERD_PID"
	wait "$TIERD_PID" || rc=$?
	expect_eq "$rc" 0 "tierd's exit status after SIGTERM"
	TIERD_PID=
}

guest_main() {
	local s
	command -v tierd >/dev/null || fail "no tierd in PATH (make user)"
	for s in apply reload metrics retention once stop; do
		"step_$s"
	done
	umount $MNT
	tierctl remove $DEV
	show_log | grep -E ' (event|policy applied|checkpoint|configuration)' | head -40
	echo "tierd: policy on dev-new, reload refusal and apply, metrics, retention ok"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 512M --timeout 600 -- "$0" main
