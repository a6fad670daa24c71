#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154,SC2015  # status variables come from tier_eval
# The queue of explicit move requests (docs/ARCHITECTURE.md "Move queue"),
# one boot, two NVMe drives (hot 128M, cold 512M under dm-delay), 1 MiB extents:
#   queue   migrate, pin --tier, migrate, migrate sent back to back while the
#           first crawls at 1 MiB/s: none refused, each gets an id, status
#           lists them in order; the 4th is cancelled while queued; the queue
#           filled to 32 (behind a fifth whose copies crawl: tier 1's writes
#           take 5 s) answers EBUSY "queue is full"; then every request
#           ends with exactly one migration-done event carrying its id and
#           outcome (done / cancelled), the moved regions on tier 1 with
#           their contents, the cancelled one's extents never moved
#   pinrace a pin that arrives while automatic demotions of its extents are
#           in flight (tier 1 is a dm-delay device; here its writes take
#           3 s, so the copies outlast many ticks): once all is idle every
#           pinned extent is on the pin's tier, contents intact (the copy
#           in flight is dropped; the pin's walk waits for busy extents on
#           its target)
#   remove  the device removed with a full queue (behind a request that
#           crawls: tier 1's reads take 5 s): no hang, no kernel
#           warning, each queued request ends "cancelled" (one event each)
. "$(dirname "$0")/lib.sh"
DEV=mq
D=/dev/mapper/$DEV
MB=1048576

put() { dd if="$1" of=$D bs=1M seek="$2" oflag=direct conv=fsync status=none; }
dev_sha() { dev_sum $D "$2" "$1"; }
file_sha() { dev_sum "$1"; }
# Tier 1's pace: its dm-delay's write (and read) delays, and the copies
# in flight (1 makes a request crawl at one delayed I/O per extent).
tier1_pace() { # write_ms read_ms inflight
	delay_set t1 "$DMT_NVME1" "$1" "$2"
	tier_set $DEV migration_inflight "$3"
}
# migration-done events of request ID in the watch log: "outcome" per line.
outcomes() { # log id
	python3 - "$1" "$2" <<-'PY'
		import json, sys
		for line in open(sys.argv[1]):
		    try:
		        e = json.loads(line)
		    except ValueError:
		        continue
		    if e.get("event") == "migration-done" and e.get("move_id") == int(sys.argv[2]):
		        print(e.get("outcome"))
	PY
}
# Extents of [off, off+len) MiB on TIER, from tierctl where.
where_on() { # off_mib len_mib tier
	tierctl where $DEV --range "$(($1 * MB)):$(($2 * MB))" --json |
		python3 -c "
import json, sys
d = json.load(sys.stdin)
print(d['tiers'][$3]['bytes'] // $MB)"
}

step_queue() {
	local r id1 id2 id3 id4 id5 n=0 fill rc i watch t0 fill_ms
	tier_set $DEV auto_migrate 0
	for r in a b c d; do rand_bytes 8M >/tmp/$r.bin; done
	put /tmp/a.bin 0
	put /tmp/b.bin 8
	put /tmp/c.bin 16
	put /tmp/d.bin 24
	# 64 MiB more: a long request that crawls (below) keeps the queue
	# from draining while 28 tierctl calls fill it on a slow (loaded)
	# guest (1.5-3 s each on the debug kernel).
	rand_bytes 64M >/tmp/e.bin
	put /tmp/e.bin 32
	tierctl watch $DEV --json >/tmp/watch.json 2>/dev/null &
	watch=$!
	sleep 1
	# Until the queue is listed, 1 MiB/s, and tier 1's writes take 3 s,
	# one copy at a time, so that the first request (8 MiB) lasts 24 s
	# or more: six slow tierctl calls could outlast its 8 s at 1 MiB/s.
	tier_set $DEV migration_bandwidth 1
	tier1_pace 3000 0 1
	# Back to back: queued, never refused; each prints its id.
	tierctl migrate $DEV --range 0:8M --tier 1 --json >/tmp/r1.json
	tierctl pin $DEV --range 8M:8M --tier 1 --json >/tmp/r2.json
	tierctl migrate $DEV --range 16M:8M --tier 1 --json >/tmp/r3.json
	tierctl migrate $DEV --range 24M:8M --tier 1 --json >/tmp/r4.json
	tierctl status $DEV --json >/tmp/st.json
	tierctl status $DEV >/tmp/st.txt
	# Cancel the fourth while it waits (the first still crawls): it never
	# moves anything. (Cancelled after the checks below, it had started
	# on a loaded host: 3 of its extents moved.)
	id4=$(jget '["move_id"]' </tmp/r4.json)
	tierctl cancel $DEV "$id4" >/dev/null || fail "queue: cancel the queued request $id4"
	expect_status 2 "no queued move request" tierctl cancel $DEV "$id4"
	tier1_pace 0 0 8
	id1=$(jget '["move_id"]' </tmp/r1.json)
	id2=$(jget '["move_ids"][0]' </tmp/r2.json)
	id3=$(jget '["move_id"]' </tmp/r3.json)
	echo "queue: requests $id1 (migrate) $id2 (pin) $id3 $id4 (migrate) queued"
	[ "$id1" -lt "$id2" ] && [ "$id2" -lt "$id3" ] && [ "$id3" -lt "$id4" ] ||
		fail "queue: ids not increasing: $id1 $id2 $id3 $id4"
	expect_eq "$(jget '["moves"] and [m["id"] for m in d["moves"]]' </tmp/st.json)" "[$id1, $id2, $id3, $id4]" "queue: status lists the requests in order"
	expect_eq "$(jget '["moves"][1]["kind"]' </tmp/st.json)" pin "queue: the second request's kind"
	expect_eq "$(jget '["moves"][3]["state"]' </tmp/st.json)" queued "queue: the fourth request's state"
	grep -E "^ +$id4 +migrate +queued" /tmp/st.txt >/dev/null ||
		fail "queue: text status does not list request $id4: $(cat /tmp/st.txt)"
	sed -n '/moves:/,/tier  device/p' /tmp/st.txt
	# The first three at full speed. Then the fifth alone, with tier 1's
	# writes taking 5 s and one copy at a time: its 64 MiB last 320 s or
	# more (the whole step took 226 s with a busy loop on one of the
	# host's two cores), so no request ends while the queue fills and is
	# counted (with the first three still ending on a loaded host, one
	# could end between the refusal and the count: 31, not 32).
	tier_set $DEV migration_bandwidth 0
	wait_for 120 "[ \$(tierctl status $DEV --json | jget '[\"moves\"].__len__()') = 0 ]" ||
		fail "queue: the first three requests not done in 120 s: $(tierctl status $DEV)"
	tier1_pace 5000 0 1
	tier_set $DEV migration_bandwidth 1
	tierctl migrate $DEV --range 32M:64M --tier 1 --json >/tmp/r5.json
	id5=$(jget '["move_id"]' </tmp/r5.json)
	rm -f /tmp/fill.json
	t0=$(now_ms)
	while :; do
		rc=0
		tierctl migrate $DEV --range 100M:1M --tier 1 --json >>/tmp/fill.json 2>/tmp/f.err || rc=$?
		[ $rc = 0 ] || break
		n=$((n + 1))
		[ $n -le 40 ] || fail "queue: 40 more requests accepted: no bound"
	done
	fill_ms=$(($(now_ms) - t0))
	tierctl status $DEV --json >/tmp/st2.json
	tier1_pace 0 0 8
	expect_eq "$rc" 1 "queue: the request past a full queue (stderr: $(cat /tmp/f.err))"
	grep -q "queue is full" /tmp/f.err || fail "queue: EBUSY without 'queue is full': $(cat /tmp/f.err)"
	echo "queue: $n more accepted in $(fmt_ms $fill_ms) s, then: $(head -n 1 /tmp/f.err)"
	expect_eq "$(jget '["moves"].__len__()' </tmp/st2.json)" 32 "queue: requests queued when full"
	fill=$(python3 -c "
import json
for line in open('/tmp/fill.json'):
    print(json.loads(line)['move_id'])")
	# Full speed: everything ends.
	tier_set $DEV migration_bandwidth 0
	tier_wait $DEV 120 "[ \$manual_pending = 0 ] && [ \$in_flight = 0 ]" ||
		fail "queue: requests not done after 120 s: $(tier_summary $DEV)"
	wait_for 10 "[ \$(tierctl status $DEV --json | jget '[\"moves\"].__len__()') = 0 ]" ||
		fail "queue: the queue is not empty: $(tierctl status $DEV)"
	# Every event written out (the watcher may lag), then stopped.
	wait_for 10 "[ \$(grep -c migration-done /tmp/watch.json) -ge $((5 + n)) ]" ||
		fail "queue: $(grep -c migration-done /tmp/watch.json) migration-done events of $((5 + n)) after 10 s"
	kill "$watch"
	wait "$watch" || true
	for i in "$id1" "$id2" "$id3" "$id5"; do
		expect_eq "$(outcomes /tmp/watch.json "$i" | tr '\n' ' ')" "done " "queue: migration-done events of request $i"
	done
	expect_eq "$(outcomes /tmp/watch.json "$id4" | tr '\n' ' ')" "cancelled " "queue: migration-done events of the cancelled request $id4"
	for i in $fill; do
		expect_eq "$(outcomes /tmp/watch.json "$i" | tr '\n' ' ')" "done " "queue: migration-done events of request $i"
	done
	echo "queue: $((5 + n)) requests, one migration-done event each: $(grep -c migration-done /tmp/watch.json) events"
	expect_eq "$(where_on 0 24 1)" 24 "queue: MiB of the three moved regions on tier 1"
	expect_eq "$(where_on 24 8 0)" 8 "queue: MiB of the cancelled request's region still on tier 0"
	expect_eq "$(where_on 32 64 1)" 64 "queue: MiB of the fifth request's region on tier 1"
	tierctl where $DEV --range 8M:8M --json | jget '["files"][0]["extents"] and all(e.get("pinned") for e in d["files"][0]["extents"])' | grep -qx True ||
		fail "queue: the pinned region is not pinned"
	expect_eq "$(dev_sha 32 64)" "$(file_sha /tmp/e.bin)" "queue: contents of region e"
	for r in a:0 b:8 c:16 d:24; do
		expect_eq "$(dev_sha "${r#*:}" 8)" "$(file_sha "/tmp/${r%%:*}.bin")" "queue: contents of region ${r%%:*}"
	done
	tier_eval $DEV
	expect_eq "$migration_errors" 0 "queue: migration errors"
	tier_sane $DEV queue
}

step_pinrace() {
	local moving
	# Region f, written with automatic moves off (step_queue): tier 0,
	# like region d.
	rand_bytes 8M >/tmp/f.bin
	put /tmp/f.bin 200
	expect_eq "$(where_on 200 8 0)" 8 "pinrace: MiB of region f on tier 0 before"
	expect_eq "$(where_on 24 8 0)" 8 "pinrace: MiB of region d on tier 0 before"
	delay_set t1 "$DMT_NVME1" 3000
	# A few extents to demote (16 MiB down to 9% of 128), and room for
	# more copies than that: the pin's walk runs while they are in
	# flight (with every copy slot taken it would wait for them).
	tier_set $DEV migration_inflight 32
	tier_set_wm $DEV 10 9
	tier_set $DEV auto_migrate 1
	tier_wait $DEV 60 "[ \$in_flight -gt 0 ]" ||
		fail "pinrace: no automatic demotion started: $(tier_summary $DEV)"
	moving=$in_flight
	tierctl pin $DEV --range 24M:8M --range 200M:8M --tier 0 >/dev/null
	tier_wait $DEV 120 "[ \$manual_pending = 0 ] && [ \$in_flight = 0 ]" ||
		fail "pinrace: not idle after 120 s: $(tier_summary $DEV)"
	echo "pinrace: $moving automatic copies in flight when the pin came"
	tier_set $DEV auto_migrate 0
	tier_set $DEV migration_inflight 8
	delay_set t1 "$DMT_NVME1" 0
	expect_eq "$(where_on 24 8 0)" 8 "pinrace: MiB of pinned region d on tier 0"
	expect_eq "$(where_on 200 8 0)" 8 "pinrace: MiB of pinned region f on tier 0"
	expect_eq "$(dev_sha 24 8)" "$(file_sha /tmp/d.bin)" "pinrace: contents of region d"
	expect_eq "$(dev_sha 200 8)" "$(file_sha /tmp/f.bin)" "pinrace: contents of region f"
	tier_eval $DEV
	expect_eq "$migration_errors" 0 "pinrace: migration errors"
	tier_sane $DEV pinrace
}

step_remove() {
	local n=0 watch
	tierctl watch --json >/tmp/watch2.json 2>/dev/null &
	watch=$!
	sleep 1
	# Tier 1's reads take 5 s and one copy at a time: the 56 MiB request
	# lasts 280 s or more, so none ends while the queue fills (and the
	# removal waits for one read at most).
	tier1_pace 0 5000 1
	tier_set $DEV migration_bandwidth 1
	tierctl migrate $DEV --range 0:64M --tier 0 >/dev/null
	while tierctl migrate $DEV --range 100M:1M --tier 0 >/dev/null 2>&1; do
		n=$((n + 1))
		[ $n -le 40 ] || fail "remove: no bound"
	done
	echo "remove: $((n + 1)) requests queued, removing"
	bounded 60 "remove with a full queue" tierctl remove $DEV
	wait_for 10 "[ \$(grep -c migration-done /tmp/watch2.json) -ge $((n + 1)) ]" ||
		fail "remove: $(grep -c migration-done /tmp/watch2.json) migration-done events of $((n + 1)) after 10 s"
	kill "$watch"
	wait "$watch" || true
	no_kernel_warning "remove with a full queue"
	expect_eq "$(python3 -c "
import json, sys
n = 0
for line in open('/tmp/watch2.json'):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    n += e.get('event') == 'migration-done' and e.get('outcome') == 'cancelled'
print(n)")" $((n + 1)) "remove: cancelled events"
	echo "remove: no hang, $((n + 1)) requests ended cancelled"
}

guest_main() {
	local s t0
	delay_dev t1 "$DMT_NVME1" 0
	tierctl create $DEV --tier "$DMT_NVME0" --tier /dev/mapper/t1 --extent-size 1M >/dev/null
	for s in queue pinrace remove; do
		t0=$(now_ms)
		"step_$s"
		echo "[$s done in $(fmt_ms $(($(now_ms) - t0))) s]"
	done
	echo "move queue: queue pinrace remove ok"
}
run_guest_phase "$@"

vm --fresh --nvme 128M --nvme 512M --timeout 600 -- "$0" main
