#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154  # status variables come from tier_eval
# The netlink control path through tierctl, one boot, two NVMe drives (hot
# 64M, cold 256M), 1 MiB extents, XFS:
#   watch     with nothing happening, --timeout ends it with status 1
#   policy    get all / one key, set several at once (the table shows them),
#             a refused set changes nothing (all or nothing, the kernel's
#             reason on stderr), unknown keys, an unprivileged set fails
#             with the CAP_SYS_ADMIN message
#   pin       a directory of files pinned to tier 0: `where` shows every
#             extent on tier 0 and pinned
#   burst     `watch` in the background sees watermark-high while a burst
#             fills tier 0 (events raised while the event work has not run
#             yet go out together, so watermark-low may come before it);
#             the engine drains tier 0 to its low watermark, the pinned
#             files stay on tier 0 (where + status)
#   migrate   a file's device ranges moved to tier 1 with --wait (a progress
#             line on a terminal, none off it): `where` shows tier 1
#   unpin     `where` shows the files unpinned (automatic migration off
#             meanwhile); paths off the device refused
#   end       status/list JSON (state, io_errors), every checksum intact
#   ynl       the kernel's ynl CLI reads dev-get and policy-get from our spec
. "$(dirname "$0")/lib.sh"
DEV=ctl
D=/dev/mapper/$DEV
MNT=/mnt/ctl

# A JSON document on stdin, checked by a python expression over d.
jcheck() { # what expression
	python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if ($2) else 1)" ||
		fail "$1"
}

# Every extent of `tierctl where --json` for PATH: on tier TIER, pinned
# PINNED (True, False, or any: an extent may be shared with a pinned file).
where_all() { # path tier pinned(True/False/any) what
	tierctl where $DEV "$1" --json >/tmp/where.json || fail "$4: tierctl where $1 failed"
	python3 - "$2" "$3" "$4" <<'EOF' || fail "$4: $(cat /tmp/where.json)"
import json, sys
d = json.load(open("/tmp/where.json"))
tier, pinned, what = int(sys.argv[1]), sys.argv[2], sys.argv[3]
n = 0
for f in d["files"]:
    for e in f["extents"]:
        n += 1
        if e["tier"] != tier or (pinned != "any" and e["pinned"] != (pinned == "True")):
            print(f"{what}: {f['path']} at file offset {e['file_offset']}: tier {e['tier']}, pinned {e['pinned']}", file=sys.stderr)
            sys.exit(1)
if n == 0:
    print(f"{what}: no extents at all", file=sys.stderr)
    sys.exit(1)
total = sum(t["bytes"] for t in d["tiers"])
if d["tiers"][tier]["bytes"] != total or d["unmapped_bytes"] != 0:
    print(f"{what}: summary {d['tiers']}, unmapped {d['unmapped_bytes']}", file=sys.stderr)
    sys.exit(1)
EOF
}

step_watch() {
	local rc
	rc=0
	tierctl watch $DEV --count 1 --timeout 2 >/tmp/w.out 2>/tmp/w.err || rc=$?
	expect_eq "$rc" 1 "watch with nothing happening (stderr: $(cat /tmp/w.err))"
	grep -q "within 2 s" /tmp/w.err || fail "watch timeout message: $(cat /tmp/w.err)"
	echo "watch: --timeout ends a quiet watch with status 1"
}

step_policy() {
	local rc tbl
	tierctl policy $DEV --json | jcheck "policy: not all ten keys" \
		'all(isinstance(d[k], int) for k in ["auto_migrate", "high_watermark", "low_watermark", "demote_age", "drain_deadline", "promote_hits", "promote_window", "migration_bandwidth", "migration_inflight", "redirect_writes"])'
	tierctl policy $DEV high_watermark=70 low-watermark=50 demote_age=3600 >/tmp/p.out ||
		fail "policy set failed"
	grep -qx "high_watermark=70" /tmp/p.out || fail "policy set output: $(cat /tmp/p.out)"
	expect_eq "$(tierctl policy $DEV high_watermark)" "high_watermark=70" "policy get one key"
	expect_eq "$(tierctl policy $DEV --json low_watermark | jget '["low_watermark"]')" 50 "policy get --json"
	tbl=$(dmsetup table $DEV)
	for kv in "high_watermark 70" "low_watermark 50" "demote_age 3600"; do
		[[ $tbl == *"$kv"* ]] || fail "policy: '$kv' not in the table: $tbl"
	done
	# All or nothing: an invalid pair changes neither key.
	rc=0
	tierctl policy $DEV high_watermark=40 demote_age=5 2>/tmp/p.err || rc=$?
	expect_eq "$rc" 2 "policy set with high below low (stderr: $(cat /tmp/p.err))"
	echo "policy: refused as expected: $(head -n 1 /tmp/p.err)"
	expect_eq "$(tierctl policy $DEV demote_age)" "demote_age=3600" "demote_age after a refused set"
	expect_eq "$(tierctl policy $DEV high_watermark)" "high_watermark=70" "high_watermark after a refused set"
	rc=0
	tierctl policy $DEV no_such_key=1 2>/tmp/p.err || rc=$?
	expect_eq "$rc" 2 "policy with an unknown key"
	grep -q "valid keys: auto_migrate" /tmp/p.err || fail "unknown key message: $(cat /tmp/p.err)"
	# Unprivileged: reading is allowed, changing is not.
	setpriv --reuid=65534 --regid=65534 --clear-groups tierctl policy $DEV high_watermark >/dev/null ||
		fail "an unprivileged policy get failed"
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups tierctl policy $DEV high_watermark=70 2>/tmp/p.err || rc=$?
	expect_eq "$rc" 1 "unprivileged policy set (stderr: $(cat /tmp/p.err))"
	grep -q "needs CAP_SYS_ADMIN (run as root)" /tmp/p.err || fail "EPERM message: $(cat /tmp/p.err)"
	# Back to the defaults' shape for the burst, in one request.
	tierctl policy $DEV high_watermark=80 low_watermark=60 demote_age=0 >/dev/null ||
		fail "policy reset failed"
	echo "policy: get, set (all or nothing), unknown key, unprivileged set ok"
}

step_pin() {
	local out
	mkdir -p $MNT/keep/sub
	write_files $MNT/keep 3 4 /tmp/sums.keep
	rand_bytes $((2 << 20)) >$MNT/keep/sub/g1
	sync -f $MNT/keep
	(cd $MNT/keep && sha256sum sub/g1) >>/tmp/sums.keep
	out=$(tierctl pin $DEV $MNT/keep --tier 0 --json) || fail "pin failed"
	echo "pin: $out"
	jcheck "pin: fewer extents than the 14 MiB of files" 'd["done_extents"] >= 14' <<<"$out"
	# The move to tier 0 runs in the background.
	tier_wait $DEV 60 "[ \$manual_pending = 0 ] && [ \$in_flight = 0 ]" ||
		fail "pin: the move to tier 0 not done in 60 s: $(tier_summary $DEV)"
	where_all $MNT/keep 0 True "pin"
	tierctl where $DEV $MNT/keep/f1 | tail -n 2
	echo "pin: 4 files (14 MiB) pinned, all on tier 0"
}

step_burst() {
	local watch n low
	tier_eval $DEV
	tierctl watch $DEV --timeout 120 --json >/tmp/watch.json 2>/tmp/watch.err &
	watch=$!
	# Subscribed before the burst starts.
	for _ in $(seq 50); do grep -q watching /tmp/watch.err && break; sleep 0.1; done
	grep -q watching /tmp/watch.err || fail "watch did not start: $(cat /tmp/watch.err)"
	mkdir -p $MNT/burst
	n=$(((2 * total0 + 15) / 16))
	write_files $MNT/burst "$n" 16 /tmp/sums.burst
	echo "burst: $n x 16 MiB written: $(tier_summary $DEV)"
	wait_for 60 "jq -se 'any(.[]; .event == \"watermark-high\" and .event_tier == 0 and .name == \"$DEV\")' /tmp/watch.json >/dev/null 2>&1" ||
		fail "watch: no watermark-high event of tier 0 in 60 s: $(cat /tmp/watch.json /tmp/watch.err)"
	kill $watch 2>/dev/null || true
	wait $watch 2>/dev/null || true
	echo "watch: $(jq -r '"\(.event) \(.event_tier // "-")"' /tmp/watch.json | tr '\n' ,)"
	low=$(((total0 * 60 + 99) / 100))
	tier_wait $DEV 120 "[ \$used0 -le $low ] && [ \$in_flight = 0 ]" ||
		fail "burst: tier 0 not drained to its low watermark in 120 s: $(tier_summary $DEV)"
	echo "burst: drained in $(fmt_ms "$WAITED_MS") s: $(tier_summary $DEV)"
	[ "$demotions" -gt 0 ] || fail "burst: no demotions"
	where_all $MNT/keep 0 True "burst: pinned files"
	tierctl status $DEV --json | jcheck "burst: tier 0 maps fewer extents than are pinned" \
		'd["tiers"][0]["mapped_extents"] >= 14 and d["migration"]["demotions"] > 0'
	echo "burst: watermark-high seen, tier 0 drained, pinned files still on tier 0"
}

step_migrate() {
	local ranges r rc
	rand_bytes $((4 << 20)) >$MNT/mv
	sync -f $MNT
	(cd $MNT && sha256sum mv) >/tmp/sums.mv
	tierctl where $DEV $MNT/mv
	# START:LEN of each extent of the file on the device; not those it
	# shares with the pinned files (the kernel would move them too).
	ranges=$(tierctl where $DEV $MNT/mv --json |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join("%d:%d" % (e["device_offset"], e["length"]) for f in d["files"] for e in f["extents"] if not e["pinned"]))')
	[ -n "$ranges" ] || fail "migrate: no extents for $MNT/mv"
	# --wait follows each request's moves to their end: on a terminal
	# (script(1) gives it one) with a progress line, else silently.
	local first=1 cmd
	for r in $ranges; do
		for _ in $(seq 100); do
			rc=0
			cmd="tierctl migrate $DEV --range $r --tier 1 --wait"
			if [ $first = 1 ]; then
				script -qec "$cmd" /tmp/m.tty >/dev/null 2>&1 || rc=$?
				cp /tmp/m.tty /tmp/m.err
			else
				$cmd --json >/tmp/m.json 2>/tmp/m.err || rc=$?
			fi
			[ $rc = 1 ] && grep -q "queue is full" /tmp/m.err && { sleep 0.2; continue; }
			break
		done
		expect_eq "$rc" 0 "migrate --range $r --tier 1 --wait (output: $(cat /tmp/m.err))"
		if [ $first = 1 ]; then
			grep -qE 'migrate: [0-9]+/[0-9]+ extents looked at, [0-9]+ moved \(' /tmp/m.tty ||
				fail "migrate --wait on a terminal showed no progress line: $(cat /tmp/m.tty)"
		else
			[ ! -s /tmp/m.err ] || fail "migrate --wait off a terminal printed progress: $(cat /tmp/m.err)"
			jcheck "migrate --wait --json: $(cat /tmp/m.json)" 'd["waited"] is True and d["errors"] == 0 and set(d["paces"].split()) <= {"idle", "background", "full", "deadline"} and d["paces"] != ""' </tmp/m.json
		fi
		# Returned: its moves are done, nothing explicit is left.
		tier_eval $DEV
		expect_eq "$manual_pending" 0 "manual_pending right after migrate --wait returned"
		first=0
	done
	tier_wait $DEV 60 "[ \$manual_pending = 0 ] && [ \$in_flight = 0 ]" ||
		fail "migrate: not done in 60 s: $(tier_summary $DEV)"
	tierctl where $DEV $MNT/mv --json | jcheck "migrate: $MNT/mv not on tier 1" \
		'all(e["tier"] == (0 if e["pinned"] else 1) for f in d["files"] for e in f["extents"]) and d["tiers"][1]["bytes"] > 0'
	tierctl where $DEV $MNT/mv
	echo "migrate: $MNT/mv ($ranges) now on tier 1"
}

step_unpin() {
	local rc
	# Unpinned extents are the engine's again: with XFS's hot metadata on
	# tier 1, a swap (or a demotion) may at once send the coldest of them
	# (these files) to tier 1. Nothing moves while `where` looks.
	tier_set $DEV auto_migrate 0
	tier_wait $DEV 60 "[ \$in_flight = 0 ]" ||
		fail "unpin: moves still in flight after 60 s: $(tier_summary $DEV)"
	tierctl unpin $DEV $MNT/keep || fail "unpin failed"
	where_all $MNT/keep 0 False "unpin"
	tier_set $DEV auto_migrate 1
	rc=0
	tierctl where $DEV /etc/passwd 2>/tmp/u.err || rc=$?
	expect_eq "$rc" 2 "where on a file of another filesystem"
	grep -q "is not on a filesystem on /dev/mapper/$DEV" /tmp/u.err || fail "message: $(cat /tmp/u.err)"
	rc=0
	tierctl pin $DEV /etc --tier 0 2>/tmp/u.err || rc=$?
	expect_eq "$rc" 2 "pin of a directory of another filesystem"
	rc=0
	tierctl where nosuchdev --range 0:1M 2>/tmp/u.err || rc=$?
	expect_eq "$rc" 2 "where on an unknown device (stderr: $(cat /tmp/u.err))"
	echo "unpin: ok; paths off the device and unknown devices refused"
}

step_end() {
	tierctl status $DEV --json | jcheck "status: no tier state / io_errors" \
		'all(t["state"] == "ok" and t["io_errors"] == 0 for t in d["tiers"]) and d["name"] == "'$DEV'" and d["uuid"].startswith("DMTIER-")'
	# The module times its commits: the last within the sum, a mean
	# under a second on these drives.
	tier_msg $DEV commit || fail "commit"
	tierctl status $DEV --json | jcheck "status: commit durations" \
		'd["commits"] > 0 and 0 < d["commit_last_us"] <= d["commit_total_us"] < d["commits"] * 1000000'
	tierctl list --json | jcheck "list: $DEV missing" \
		'any(e["name"] == "'$DEV'" and e["nr_tiers"] == 2 and e["uuid"].startswith("DMTIER-") for e in d)'
	tierctl status $DEV
	echo 3 >/proc/sys/vm/drop_caches
	check_files $MNT/keep /tmp/sums.keep
	check_files $MNT/burst /tmp/sums.burst
	check_files $MNT /tmp/sums.mv
	tier_sane $DEV end
	echo "end: status/list JSON ok, checksums intact"
}

# The kernel's own YNL CLI (tools/net/ynl from linux-source-6.12, fetched on
# the host by tools/ynl-locate) drives the family from our spec alone.
step_ynl() {
	local ynl cli
	ynl=$("$TOP/tools/ynl-locate" --cached) || fail "ynl: no YNL copy in the cache"
	cli=(python3 "$ynl/tools/net/ynl/cli.py" --spec "$TOP/tools/netlink/dm-tier.yaml"
		--schema "$ynl/Documentation/netlink/genetlink-legacy.yaml" --output-json)
	"${cli[@]}" --do dev-get --json '{"name": "'$DEV'"}' >/tmp/ynl.json 2>&1 ||
		fail "ynl: dev-get: $(cat /tmp/ynl.json)"
	jcheck "ynl: dev-get: $(cat /tmp/ynl.json)" \
		'd["name"] == "'$DEV'" and d["nr-tiers"] == 2 and len(d["tiers"]) == 2 and d["metadata-mode"] == "rw"' </tmp/ynl.json
	"${cli[@]}" --do policy-get --json '{"name": "'$DEV'"}' >/tmp/ynl.json 2>&1 ||
		fail "ynl: policy-get: $(cat /tmp/ynl.json)"
	jcheck "ynl: policy-get disagrees with tierctl policy: $(cat /tmp/ynl.json)" \
		'd["policy"]["high-watermark"] == '"$(tierctl policy $DEV --json | jget '["high_watermark"]')" </tmp/ynl.json
	echo "ynl: the kernel's ynl CLI reads the device and its policy from tools/netlink/dm-tier.yaml"
}

guest_main() {
	local s t0
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --extent-size 1M >/dev/null
	tierctl policy $DEV >/dev/null 2>/tmp/p.err || {
		[ $? = 3 ] && skip "the dm-tier module has no netlink family: $(cat /tmp/p.err)"
		fail "tierctl policy: $(cat /tmp/p.err)"
	}
	step_watch
	mkfs.xfs -q $D
	mkdir -p $MNT
	mount $D $MNT
	for s in policy pin burst migrate unpin end ynl; do
		t0=$(now_ms)
		"step_$s"
		echo "[$s done in $(fmt_ms $(($(now_ms) - t0))) s]"
	done
	umount $MNT
	tierctl remove $DEV
	echo "control: watch policy pin burst migrate unpin ynl ok"
}
run_guest_phase "$@"

"$TOP/tools/ynl-locate" >/dev/null || fail "tools/ynl-locate could not fetch the YNL CLI"
vm --fresh --nvme 64M --nvme 256M --timeout 600 -- "$0" main
