#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# dmt: smp
# Teardown and lifetime ordering (issue 13, defect 5).
#
# 1. A suspended device writes nothing: no metadata commit while suspended,
#    whatever arrives meanwhile: the `commit` message, netlink pin/unpin
#    (which change the map), `set commit_interval_ms` (which must not re-arm
#    the periodic commit). The tiers' write counters must not move until the
#    resume, after which the pending changes are committed.
# 2. A loop of create, I/O with monitor events (a listener runs), message
#    and netlink traffic, a short commit interval, and remove: the pool's
#    works, timers and copier stop before what they use is freed (the
#    debug kernel's KASAN and DEBUG_OBJECTS see the rest; here: no splat).
# DMT_TEARDOWN_ROUNDS sets the loop (default 4).
. "$(dirname "$0")/lib.sh"
DEV=td
D=/dev/mapper/$DEV

# Sectors written to both tiers.
tiers_written() { echo $(($(dev_written "$DMT_NVME0") + $(dev_written "$DMT_NVME1"))); }

step_suspended() {
	local w0 w1 c0 c1 rc
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --extent-size 256K >/dev/null
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M count=8 oflag=direct status=none
	dmsetup suspend $DEV
	sleep 1
	w0=$(tiers_written)
	c0=$(tier_stat $DEV commits)
	tier_set $DEV commit_interval_ms 20
	tierctl pin $DEV --range 0:4M >/dev/null || fail "pin while suspended"
	rc=$(status_of tier_msg $DEV commit)
	echo "suspended: commit message status $rc"
	case $rc in 0 | 16) ;; *) fail "commit message while suspended: status $rc" ;; esac
	tierctl unpin $DEV --range 0:2M >/dev/null || fail "unpin while suspended"
	tierctl policy $DEV high_watermark=70 >/dev/null || fail "policy-set while suspended"
	sleep 2
	w1=$(tiers_written)
	c1=$(tier_stat $DEV commits)
	[ "$w1" = "$w0" ] && [ "$c1" = "$c0" ] ||
		fail "suspended: $((w1 - w0)) sectors written, commits $c0 -> $c1 while suspended"
	dmsetup resume $DEV
	tier_wait $DEV 10 "[ \$commits -gt $c1 ]" || fail "no commit after the resume"
	tierctl where $DEV --range 0:4M --json | grep -q '"pinned": *true' ||
		fail "the pin made while suspended is lost"
	tierctl remove $DEV
	echo "suspended: pin/unpin, commit, set and policy-set while suspended wrote nothing; committed after resume"
}

step_loop() {
	local rounds=${DMT_TEARDOWN_ROUNDS:-4} r watch fiop msgp
	for r in $(seq "$rounds"); do
		tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --extent-size 256K \
			--force >/dev/null
		tierctl watch $DEV --json >/tmp/watch.$r 2>&1 &
		watch=$!
		tier_set $DEV commit_interval_ms 10
		tier_set_wm $DEV 20 10
		fio --name=td --filename=$D --direct=1 --ioengine=libaio --iodepth=8 \
			--rw=randrw --bs=256k --size=48m --io_size=64m --trim_percentage=20 \
			--eta=never >/tmp/fio.out 2>&1 &
		fiop=$!
		(
			for _ in 1 2 3 4 5; do
				tier_msg $DEV commit || true
				tier_msg $DEV migrate 0 8192 1 || true
				tierctl pin $DEV --range 0:2M >/dev/null || true
				tierctl unpin $DEV --range 0:2M >/dev/null || true
				tierctl policy $DEV demote_age=1 >/dev/null || true
				tier_msg $DEV set commit_interval_ms $((RANDOM % 50 + 1)) || true
				sleep 0.2
			done
		) &
		msgp=$!
		wait $fiop || { cat /tmp/fio.out; fail "round $r: fio"; }
		wait $msgp
		dmsetup suspend $DEV
		tier_msg $DEV set commit_interval_ms 5 || true
		dmsetup resume $DEV
		tierctl remove $DEV
		kill $watch 2>/dev/null || true
		wait $watch 2>/dev/null || true
		echo "round $r: create, I/O, events ($(grep -c . /tmp/watch.$r) lines), messages, netlink, remove"
		no_kernel_warning "round $r"
	done
}

guest_main() {
	step_suspended
	step_loop
	no_kernel_warning teardown
	echo "teardown: ok"
}
run_guest_phase "$@"

export DMT_DEBUG_MODULE=1
vm --fresh --nvme 64M --nvme 128M --timeout 900 -- "$0" main
