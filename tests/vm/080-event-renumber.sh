#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154,SC2016  # status variables come from tier_eval
# A monitor event that names a tier, raised before a tier-list change and
# sent after it, names the tier's new index (issue 18; docs/ARCHITECTURE.md
# "Move queue", the per-tier events). Three tiers, tier 1 empty, tier 2
# small, a virtual size that fits without tier 1. The debug knob
# dbg_event_delay_ms holds the event work for 60 s: tier 2 is filled past
# 95% (near-full, raised by the next migration tick, at most 5 s later),
# and 12 s later tier 1 is removed, so tier 2 becomes tier 1 while the
# event waits. The event must arrive as near-full of tier 1, with that
# tier's use above 95%; the pending bit used to keep the old index (tier
# 2, which no longer exists).
. "$(dirname "$0")/lib.sh"
DEV=evr
D=/dev/mapper/$DEV

# near-full events in the watch log, as "TIER USED CAPACITY" lines.
near_full_events() {
	python3 - <<-'EOF'
		import json
		for line in open("/tmp/ev.json"):
		    e = json.loads(line)
		    if e["event"] == "near-full":
		        print(e.get("event_tier"), e.get("used_extents"), e.get("capacity_extents"))
	EOF
}

guest_main() {
	local pid t_full t_removed ev
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --tier "$DMT_NVME2" \
		--extent-size 1M --size 64M >/dev/null
	tierctl policy $DEV auto_migrate=0 >/dev/null
	tier_eval $DEV
	[ "$nr_tiers" = 3 ] || fail "expected 3 tiers, got $nr_tiers"
	echo "tier 2: $total2 extents"
	dd if=<(rand_bytes "${total2}M") iflag=fullblock of=$D bs=1M oflag=direct status=none
	tierctl watch $DEV --json >/tmp/ev.json 2>/tmp/watch.err &
	pid=$!
	wait_for 10 'grep -q watching /tmp/watch.err' || fail "tierctl watch did not subscribe"

	dbg_param dbg_event_delay_ms 60000
	tierctl migrate $DEV --range "0:${total2}M" --tier 2 >/dev/null || fail "migrate to tier 2"
	wait_for 30 '[ "$(tier_mapped $DEV 2)" = "$total2" ]' ||
		fail "tier 2 holds $(tier_mapped $DEV 2) of $total2 extents after 30 s"
	t_full=$(now_ms)
	# Two migration ticks at least (5 s apart when idle): near-full is
	# pending now, held by the delay.
	sleep 12
	[ -z "$(near_full_events)" ] || fail "near-full sent before the change: the delay did not hold it"
	tierctl remove-tier $DEV 1 >/dev/null || fail "remove-tier 1"
	t_removed=$(now_ms)
	# The event may have been raised a poll before t_full: 15 s of margin
	# (a guard of 30 s under a delay of 40 left little room on a slow host).
	[ $((t_removed - t_full)) -lt 45000 ] ||
		fail "remove-tier ended $((t_removed - t_full)) ms after the fill: too late for the 60 s delay"
	tier_eval $DEV
	expect_eq "$nr_tiers" 2 "tiers after remove-tier 1"
	expect_eq "$mapped1" "$total2" "extents on tier 1 (the old tier 2)"

	wait_for 90 '[ -n "$(near_full_events)" ]' || fail "no near-full event within 90 s"
	sleep 1
	ev=$(near_full_events)
	echo "near-full events after the change: $ev"
	expect_eq "$(wc -l <<<"$ev")" 1 "near-full events"
	read -r tier used cap <<<"$ev"
	expect_eq "$tier" 1 "near-full's tier (2 before the change, 1 after)"
	[ "$((used * 100))" -gt "$((95 * cap))" ] || fail "near-full of tier 1: $used of $cap extents used"
	dbg_param dbg_event_delay_ms 0
	kill $pid
	tier_sane $DEV event-renumber
	tierctl remove $DEV >/dev/null
	no_kernel_warning event-renumber
	echo "event renumber: near-full raised for tier 2 arrived as tier 1 after remove-tier 1"
}
run_guest_phase "$@"

export DMT_DEBUG_MODULE=1
vm --fresh --nvme 64M --nvme 64M --nvme 24M -- "$0" main
