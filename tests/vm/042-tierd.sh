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
#   metrics    the textfile and GET /metrics have the device's metrics
#   retention  three checkpoint directories on XFS, checkpoint_keep 1: the
#              newest stays on tier 0 (pinned), the two older end up on the
#              last tier
#   once       tierd --once: 0 applied, 2 bad configuration, 1 a pin that
#              cannot be applied
#   stop       SIGTERM: exit status 0
. "$(dirname "$0")/lib.sh"
DEV=td
MNT=/mnt/td
CONF=/tmp/tierd-conf
LOG=/tmp/tierd.log
PROM=/tmp/tierd-metrics/dm-tier.prom
PORT=19477
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
		metrics_listen = 127.0.0.1:$PORT
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

step_metrics() {
	local body
	wait_for 10 "grep -q '^dm_tier_tier_used_bytes{device=\"$DEV\",tier=\"0\"' $PROM 2>/dev/null" ||
		die "no dm_tier_tier_used_bytes for $DEV in $PROM: $(cat $PROM 2>&1 | head -20)"
	grep -q "^dm_tier_events_total{device=\"$DEV\",event=\"dev-new\"} 1$" $PROM ||
		die "dev-new not counted in $PROM"
	grep -q "^dm_tier_metadata_mode{device=\"$DEV\",mode=\"rw\"} 1$" $PROM ||
		die "metadata mode not in $PROM"
	body=$(python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:$PORT/metrics', timeout=5).read().decode())") ||
		die "GET /metrics failed"
	grep -q "^# TYPE dm_tier_tier_capacity_bytes gauge$" <<<"$body" || die "GET /metrics: no capacity family"
	grep -q "^dm_tier_device_size_bytes{device=\"$DEV\"} $(blockdev --getsize64 /dev/mapper/$DEV)$" <<<"$body" ||
		die "GET /metrics: wrong or missing device size"
	echo "metrics: textfile and GET /metrics have $DEV"
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
		head -c $((8 << 20)) /dev/urandom >/tmp/ck-$c
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
	b0=$(where_bytes $MNT/run/c3 0)
	expect_eq "$b0" $((8 << 20)) "bytes of the newest checkpoint on tier 0"
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
	echo "retention: c1, c2 on tier 1, c3 pinned on tier 0 after $(fmt_ms $(($(now_ms) - t0))) s"
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
