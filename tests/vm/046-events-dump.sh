#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh disable=SC2154,SC2016  # status variables come from tier_eval
# Monitor events and dumps at their limits, one boot, two NVMe drives (32M,
# 64M) with 64 KiB extents (about 1500 of them), automatic migration off:
#   near-full  filling the whole device sends near-full for tier 0 and for
#              tier 1, each once, with its use above 95%
#   dump       `tierctl where --range 0:SIZE` walks every extent through the
#              resumable extent-dump (256 extents per message, several
#              messages): bytes per tier equal the status's mapped counts,
#              and the JSON lists every byte of the device once
. "$(dirname "$0")/lib.sh"
DEV=ev
D=/dev/mapper/$DEV

# Events of kind EVENT for TIER in the watch log.
count_ev() { # event tier
	python3 - "$1" "$2" <<-'EOF'
		import json, sys
		n = 0
		for line in open("/tmp/ev.json"):
		    e = json.loads(line)
		    if e["event"] == sys.argv[1] and e.get("event_tier") == int(sys.argv[2]):
		        assert e["used_extents"] * 100 > 95 * e["capacity_extents"], e
		        n += 1
		print(n)
	EOF
}

guest_main() {
	local pid size extent_bytes
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --extent-size 64K >/dev/null
	tierctl policy $DEV auto_migrate=0 >/dev/null
	tierctl watch $DEV --json >/tmp/ev.json 2>/tmp/watch.err &
	pid=$!
	wait_for 10 'grep -q watching /tmp/watch.err' || fail "tierctl watch did not subscribe"

	# ---- near-full
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M oflag=direct status=none 2>/dev/null || true
	sync
	wait_for 20 '[ "$(count_ev near-full 0)" = 1 ] && [ "$(count_ev near-full 1)" = 1 ]' ||
		{ cat /tmp/ev.json; fail "near-full events: tier 0 $(count_ev near-full 0), tier 1 $(count_ev near-full 1), expected 1 each"; }
	sleep 3 # a second event would come with the next tick
	expect_eq "$(count_ev near-full 0)" 1 "near-full events for tier 0"
	expect_eq "$(count_ev near-full 1)" 1 "near-full events for tier 1"
	kill $pid
	tier_sane $DEV "after filling the device"
	echo "near-full: once per tier: $(tier_summary $DEV)"

	# ---- dump
	tier_eval $DEV
	[ "$virt_extents" -gt 1024 ] || fail "only $virt_extents extents: the dump would fit in few messages"
	extent_bytes=$((extent_sectors * 512))
	size=$(blockdev --getsize64 $D)
	tierctl where $DEV --range "0:$size" --json >/tmp/where.json
	python3 - "$extent_bytes" "$size" "$mapped0" "$mapped1" <<-'EOF' || fail "where --range 0:all: $(head -c 2000 /tmp/where.json)"
		import json, sys
		eb, size, m0, m1 = (int(a) for a in sys.argv[1:])
		d = json.load(open("/tmp/where.json"))
		tiers = {t["tier"]: t["bytes"] for t in d["tiers"]}
		assert tiers.get(0, 0) == m0 * eb, (tiers, m0)
		assert tiers.get(1, 0) == m1 * eb, (tiers, m1)
		pos = 0
		for f in d["files"]:
		    for x in f["extents"]:
		        assert x["device_offset"] == pos, (x, pos)
		        pos += x["length"]
		assert pos == size, (pos, size)
		assert (m0 + m1) * eb + d["unmapped_bytes"] == size, d["unmapped_bytes"]
	EOF
	echo "dump: $((mapped0 + mapped1)) mapped extents of $virt_extents listed through extent-dump, bytes per tier match the status"
	tierctl remove $DEV >/dev/null
}
run_guest_phase "$@"

vm --fresh --nvme 32M --nvme 64M -- "$0" main
