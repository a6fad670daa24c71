#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh disable=SC2016
# dmt: debug-kernel
# Netlink requests that wait on a hung tier (a review of f674f8f). Device nh:
# tier 0 and tier 1 on dm-linear shims nh0 and nh1 over two NVMe drives
# (their volatile write cache shows through, so a flush reaches the shim),
# 1 MiB extents, extents 0-3 on tier 1, 4-7 on tier 0; device nb beside it
# on a third drive; the debug module. A shim suspended with --noflush holds
# every bio sent to it, flushes too, until it resumes: a tier path that
# hangs (an NVMe-oF controller reconnecting, queue_if_no_path).
#   load      nh removed; nh1 suspended: `dmsetup create nh` (the first
#             load of its pool, which reads tier 1's label) waits in its
#             constructor. Meanwhile the others must each end within their
#             bound, and a second table over the same devices (`dmsetup
#             create nh2`) is refused at once ("being loaded by another
#             table"). nh1 resumed: nh is created, its data and tiers as
#             before. Before the fix the load held tier_pools_mutex and
#             everything else waited for it.
#   recover   tier 1 degraded; nh1 suspended; the probe's wait set to 45 s
#             (dbg_probe_wait_s; 15 s in production): `tierctl recover nh
#             --tier 1` waits in its probe flush. Meanwhile a pin and a
#             commit of nh (`dmsetup message nh 0 commit`) end within their
#             bound while it still waits; a second recover of tier 1 waits
#             for the same flush (one kernel thread in blkdev_issue_flush);
#             `tierctl list`, `tierctl status nb`, `dmsetup remove nb` and
#             `dmsetup create nb` (its constructor and resume) end within
#             their bound. Both recovers then give up (exit 1, "did not
#             answer its probe flush in time", tier 1 still degraded); the
#             flush goes on and holds a module reference until nh1 resumes.
#             A recover then succeeds and tier 1 is ok. Before the fixes
#             tier-recover held tier_pools_mutex and genl_mutex across the
#             flush, and each of them waited for it; then it held md_lock
#             (nh's commits, so its fsyncs, waited) and its netlink request
#             (genetlink's cb_lock) for as long as the tier hung.
#   commit    tier 1 degraded; nh0 suspended; a pin makes the worker commit,
#             which waits writing the map to tier 0 with md_lock held.
#             `tierctl evacuate-lost nh --tier 1` (tier-forget) and
#             `tierctl evacuate nh 1 --cancel` (its superblock flag) wait for
#             md_lock; `tierctl policy nh` (policy-set) and the four above
#             must each end within their bound. nh0 resumed: both end well,
#             tier 1 maps nothing, the policy is in the table. Before the
#             fix tier-forget waited for md_lock holding tier_pools_mutex
#             (and genl_mutex), and policy-set waited for it itself.
#   evpair    tier 1 recovered and refilled; with dbg_event_hold: tier 1
#             degraded (tier-error), recovered (tier-recovered), degraded
#             again (tier-error, the same pending bit); the hold released
#             and a migrate's migration-done sends them: tier-recovered
#             then tier-error, so that the last one says what the tier is
#             (degraded). Sent in event order, tier-error (6) then
#             tier-recovered (7), they announced a failed tier recovered,
#             and tierd stopped reconnecting it.
#   evdel     (last: it removes nh) tier 1 recovered and refilled; with dbg_event_hold
#             no event is sent, so the teardown finds tier 1's tier-error
#             pending: `tierctl watch nh` must see it before dev-del, and
#             dev-del last. The teardown sent the pending events in event
#             order, dev-del (2) before tier-error (6).
# On a hang the suspended shim is resumed (the waits end) and the test fails.
# DMT_NH_STEPS="commit" runs a subset, in the order given (evdel last).
. "$(dirname "$0")/lib.sh"
DEV=nh
D=/dev/mapper/$DEV
HELD= # the shim suspended now: resumed before a failure

write_cache() { cat "/sys/block/$(basename "$(readlink -f "/dev/mapper/$1")")/queue/write_cache"; }

# Resume the held shim and fail: what waited on it ends, the VM can stop.
fail_held() { # message
	echo w >/proc/sysrq-trigger # the blocked tasks, to the kernel log
	[ -z "$HELD" ] || dmsetup resume "$HELD"
	HELD=
	fail "$1"
}

# COMMAND must end, with status 0, within S seconds while $HELD is
# suspended: it does not wait for the request that waits on that shim.
must_go() { # s what command...
	local s=$1 what=$2 pid rc=0
	shift 2
	"$@" >/tmp/go.out 2>&1 &
	pid=$!
	if ! wait_for "$s" "! kill -0 $pid 2>/dev/null"; then
		fail_held "$what: not done after $s s while $HELD was suspended: it waited behind a request that waits on $HELD"
	fi
	wait $pid || rc=$?
	[ $rc = 0 ] || { cat /tmp/go.out; fail_held "$what: exit status $rc"; }
}

# Every other dm-tier request and table change on the host: none waits
# for nh's tier.
others_go() { # step
	local tbl
	must_go 10 "$1: tierctl list" tierctl list
	grep -qw nb /tmp/go.out || { cat /tmp/go.out; fail_held "$1: tierctl list does not show nb"; }
	must_go 10 "$1: tierctl status nb" tierctl status nb
	tbl=$(dmsetup table nb)
	must_go 20 "$1: dmsetup remove nb" dmsetup remove --retry nb
	must_go 20 "$1: dmsetup create nb" dmsetup create nb --table "$tbl"
	must_go 10 "$1: tierctl status nb after its re-creation" tierctl status nb
}

# A background job still runs (it waits on the held shim).
still_waits() { # pid what out
	kill -0 "$1" 2>/dev/null || { cat "$3"; fail_held "$2: ended while $HELD was suspended (it never waited on it?)"; }
}

# Background job PID waits inside the kernel, in FUNC (its kernel stack
# names it): its request is in, before the others are tried.
waits_in() { # pid func what out
	wait_for 30 "grep -q $2 /proc/$1/stack 2>/dev/null || ! kill -0 $1 2>/dev/null" ||
		fail_held "$3: not waiting in $2 after 30 s: $(cat "/proc/$1/stack" 2>&1)"
	still_waits "$1" "$3" "$4"
}

# Tier 1 degraded: its shim fails for a moment, a read of extent 0 fails.
tier1_degrade() { # step
	shim_error nh1 "$DMT_NVME1"
	! dd if=$D of=/dev/null bs=1M count=1 iflag=direct status=none 2>/dev/null ||
		fail "$1: a read from tier 1 on the error target succeeded"
	shim_linear nh1 "$DMT_NVME1"
	expect_eq "$(tier_stat $DEV state 1)" degraded "$1: tier 1 after a failed read"
}

step_load() {
	local tbl sum ld n rc=0
	tbl=$(dmsetup table $DEV)
	sum=$(md5sum <$D)
	dmsetup remove $DEV
	dmsetup suspend --noflush --nolockfs nh1
	HELD=nh1
	dmsetup create $DEV --table "$tbl" >/tmp/ld.out 2>&1 &
	ld=$!
	# Reading tier 1's label (holding tier_pools_mutex before the fix).
	waits_in $ld tier_pool_create "load: dmsetup create $DEV" /tmp/ld.out
	others_go load
	must_go 10 "load: tierctl list while $DEV loads" tierctl list
	! grep -qw $DEV /tmp/go.out || { cat /tmp/go.out; fail_held "load: tierctl list shows $DEV before its load ended"; }
	n=$(dmesg | grep -c "being loaded by another table" || true)
	timeout 10 dmsetup create nh2 --table "$tbl" >/tmp/ld2.out 2>&1 || rc=$?
	[ $rc != 0 ] && [ $rc != 124 ] ||
		{ cat /tmp/ld2.out; fail_held "load: a second table over nh's devices during the load: status $rc (want refused at once)"; }
	[ "$(dmesg | grep -c "being loaded by another table")" -gt "$n" ] ||
		{ dmesg | tail -n 5; fail_held "load: the second table's refusal does not say why"; }
	[ ! -e /dev/mapper/nh2 ] || fail_held "load: nh2 exists"
	still_waits $ld "load: dmsetup create $DEV" /tmp/ld.out
	dmsetup resume nh1
	HELD=
	wait_bounded 60 "load: dmsetup create $DEV after the resume" $ld ||
		{ cat /tmp/ld.out; fail "load: dmsetup create $DEV failed after the resume"; }
	expect_eq "$(md5sum <$D)" "$sum" "load: $DEV's contents after the load"
	expect_eq "$(tier_stat $DEV mapped 1)" 4 "load: tier 1's extents after the load"
	expect_eq "$(tier_stat $DEV state 1)" ok "load: tier 1 after the load"
	tier_sane $DEV load
	echo "load: the first load waited on the suspended tier; list, status, remove and create of nb went on; a second table was refused; loaded after the resume"
}

# Kernel threads flushing right now (the probe's work, a commit's flush).
flushing() { grep -l blkdev_issue_flush /proc/[0-9]*/stack 2>/dev/null | wc -l; }

step_recover() {
	local rec rec2 rc=0 c0 refs
	tier1_degrade recover
	# The probe's wait (15 s in production), long enough for what follows.
	echo 45 >/sys/module/dm_tier/parameters/dbg_probe_wait_s
	dmsetup suspend --noflush --nolockfs nh1
	HELD=nh1
	tierctl recover $DEV --tier 1 >/tmp/rec.out 2>&1 &
	rec=$!
	# In the probe flush (holding tier_pools_mutex before 2026-12-07,
	# md_lock before its sixth session).
	waits_in $rec tier_tier_recover "recover: tierctl recover" /tmp/rec.out
	# The device's commits go on: a pin asks for one, the commit message
	# makes one and waits for it.
	c0=$(tier_stat $DEV commits)
	must_go 10 "recover: tierctl pin" tierctl pin $DEV --range 6M:1M
	must_go 20 "recover: a commit of $DEV" dmsetup message $DEV 0 commit
	[ "$(tier_stat $DEV commits)" -gt "$c0" ] || fail_held "recover: no commit while the probe waited"
	still_waits $rec "recover: tierctl recover" /tmp/rec.out
	# A second recover of the same tier waits for the same flush.
	tierctl recover $DEV --tier 1 >/tmp/rec2.out 2>&1 &
	rec2=$!
	waits_in $rec2 tier_tier_recover "recover: a second tierctl recover" /tmp/rec2.out
	wait_for 10 '[ "$(flushing)" = 1 ]' ||
		fail_held "recover: $(flushing) flushes in flight with two recovers waiting (want 1: the second shares the first's)"
	others_go recover
	# Each gives up after its wait: exit 1, the kernel's reason, the state
	# kept; the flush goes on and keeps the module loaded.
	wait_for 120 "! kill -0 $rec 2>/dev/null && ! kill -0 $rec2 2>/dev/null" ||
		fail_held "recover: tierctl recover still waits after its probe's wait"
	wait $rec || rc=$?
	[ $rc = 1 ] || { cat /tmp/rec.out; fail_held "recover: exit status $rc while tier 1 hangs (want 1)"; }
	grep -q "did not answer its probe flush in time" /tmp/rec.out ||
		{ cat /tmp/rec.out; fail_held "recover: the failure does not say the path hangs"; }
	expect_eq "$(tier_stat $DEV state 1)" degraded "recover: tier 1 after a probe that timed out"
	klog_has "tier 1 (.*): probe flush did not answer in 45 s" ||
		fail_held "recover: the kernel log does not name the probe's timeout"
	wait_for 10 '[ "$(flushing)" = 1 ]' ||
		fail_held "recover: $(flushing) flushes in flight after the recovers gave up (want 1)"
	refs=$(cat /sys/module/dm_tier/refcnt)
	dmsetup resume nh1
	HELD=
	wait_for 30 '[ "$(flushing)" = 0 ]' || fail "recover: the probe's flush did not end after the resume"
	wait_for 10 "[ \"\$(cat /sys/module/dm_tier/refcnt)\" = $((refs - 1)) ]" ||
		fail "recover: module references $(cat /sys/module/dm_tier/refcnt) after the probe's flush ended, $refs before (want one less: rmmod must not wait on a hung flush)"
	echo 0 >/sys/module/dm_tier/parameters/dbg_probe_wait_s
	bounded 60 "recover: tierctl recover after the resume" tierctl recover $DEV --tier 1 >/tmp/rec.out 2>&1 ||
		{ cat /tmp/rec.out; fail "recover: tierctl recover failed after the resume"; }
	expect_eq "$(tier_stat $DEV state 1)" ok "recover: tier 1 after the recover"
	tierctl unpin $DEV --range 6M:1M >/dev/null || fail "recover: unpin"
	tier_sane $DEV recover
	echo "recover: the probe waited on the suspended tier without holding the device's commits; a second recover shared its flush; both gave up (exit 1, state kept) with the flush still holding the module; recovered after the resume"
}

step_commit() {
	local c0 fg ev
	tier1_degrade commit
	c0=$(tier_stat $DEV commits)
	dmsetup suspend --noflush --nolockfs nh0
	HELD=nh0
	# Pinning mapped extents asks for a commit: the worker's commit writes
	# the map to tier 0 and waits there, holding md_lock.
	must_go 10 "commit: tierctl pin" tierctl pin $DEV --range 4M:2M
	tierctl evacuate-lost $DEV --tier 1 --yes >/tmp/fg.out 2>&1 &
	fg=$!
	# Its first batch waits for md_lock (holding tier_pools_mutex before
	# the fix).
	waits_in $fg tier_forget_tier_range "commit: tierctl evacuate-lost" /tmp/fg.out
	tierctl evacuate $DEV 1 --cancel >/tmp/ev.out 2>&1 &
	ev=$!
	# In its request: for md_lock (before the fix, for genl_mutex).
	waits_in $ev genl_rcv_msg "commit: tierctl evacuate --cancel" /tmp/ev.out
	expect_eq "$(tier_stat $DEV commits)" "$c0" "commit: commits while tier 0 is suspended"
	must_go 10 "commit: tierctl policy" tierctl policy $DEV high_watermark=70 low_watermark=50
	others_go commit
	still_waits $fg "commit: tierctl evacuate-lost" /tmp/fg.out
	still_waits $ev "commit: tierctl evacuate --cancel" /tmp/ev.out
	dmsetup resume nh0
	HELD=
	wait_bounded 60 "commit: tierctl evacuate-lost after the resume" $fg ||
		{ cat /tmp/fg.out; fail "commit: evacuate-lost failed after the resume"; }
	wait_bounded 60 "commit: tierctl evacuate --cancel after the resume" $ev ||
		{ cat /tmp/ev.out; fail "commit: evacuate --cancel failed after the resume"; }
	expect_eq "$(tier_stat $DEV mapped 1)" 0 "commit: tier 1 after evacuate-lost"
	[[ $(dmsetup table $DEV) == *"high_watermark 70 low_watermark 50"* ]] ||
		fail "commit: the policy is not in the table: $(dmsetup table $DEV)"
	tier_msg $DEV commit || fail "commit: a commit after the resume"
	tier_sane $DEV commit
	echo "commit: forget and the evacuate flag waited for the commit on the suspended tier 0; policy, list, status, remove and create of nb went on"
}

# The events of `tierctl watch --json` output FILE, one "event tier" a line
# (tier "-" when the event names none).
events_of() { # file
	jq -r '"\(.event) \(.event_tier // "-")"' "$1"
}

# Start `tierctl watch nh --json` into FILE; its pid in WATCH.
watch_start() { # file
	tierctl watch $DEV --json >"$1" 2>"$1.err" &
	WATCH=$!
	wait_for 10 "grep -q watching $1.err" || fail "tierctl watch did not start: $(cat "$1.err")"
}

# Tier 1 recovered (forgotten by commit: it takes extents again) and 0-3
# MiB on it again.
tier1_refill() { # step
	tierctl recover $DEV --tier 1 >/dev/null || fail "$1: recover tier 1"
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M count=4 oflag=direct conv=fsync status=none
	tier_msg $DEV migrate 0 8192 1 || fail "$1: migrate 0-3 MiB to tier 1"
	tier_wait $DEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped1 = 4 ]' ||
		fail "$1: migrate to tier 1: $(tier_summary $DEV)"
	tier_msg $DEV commit || fail "$1: commit after the migration"
}

step_evpair() {
	local ev
	tier1_refill evpair
	watch_start /tmp/evpair.json
	dbg_param dbg_event_hold 1
	tier1_degrade evpair
	tierctl recover $DEV --tier 1 >/dev/null || fail "evpair: recover tier 1"
	tier1_degrade evpair
	dbg_param dbg_event_hold 0
	# Extents 4-7 are on tier 0 already: the request ends at once, and its
	# migration-done sends what is pending.
	tier_msg $DEV migrate 8192 8192 0 || fail "evpair: migrate 4-7 MiB to tier 0"
	wait_for 30 '[ "$(events_of /tmp/evpair.json | grep -cE "^tier-(error|recovered) 1$")" -ge 2 ]' ||
		fail "evpair: the held events did not come: $(cat /tmp/evpair.json)"
	sleep 1
	kill "$WATCH" 2>/dev/null || true
	wait "$WATCH" 2>/dev/null || true
	ev=$(events_of /tmp/evpair.json | grep -E '^tier-(error|recovered) 1$' | tail -n 2 | tr '\n' ,)
	echo "evpair: tier 1's last health events: $ev"
	expect_eq "$ev" "tier-recovered 1,tier-error 1," \
		"evpair: tier 1's health events, sent together (the last one must say degraded)"
	expect_eq "$(jq -r 'select(.event == "tier-error") | .state' /tmp/evpair.json | tail -n 1)" degraded \
		"evpair: tier 1's state in its tier-error"
	echo "evpair: tier-recovered, then tier-error: the last event matches the tier's state"
}

step_evdel() {
	local ev
	tier1_refill evdel
	watch_start /tmp/evdel.json
	dbg_param dbg_event_hold 1
	tier1_degrade evdel
	tierctl remove $DEV
	dbg_param dbg_event_hold 0
	sleep 1
	kill "$WATCH" 2>/dev/null || true
	wait "$WATCH" 2>/dev/null || true
	ev=$(events_of /tmp/evdel.json)
	echo "evdel: events: $(tr '\n' ',' <<<"$ev")"
	expect_eq "$(tail -n 2 <<<"$ev" | tr '\n' ,)" "tier-error 1,dev-del -," \
		"evdel: the last two events (tier 1's tier-error, pending at the teardown, then dev-del)"
	echo "evdel: the event pending at the teardown went out before dev-del"
}

guest_main() {
	local s
	dmsetup create nh0 --table "0 $(blockdev --getsz "$DMT_NVME0") linear $DMT_NVME0 0"
	dmsetup create nh1 --table "0 $(blockdev --getsz "$DMT_NVME1") linear $DMT_NVME1 0"
	for s in nh0 nh1; do
		[ "$(write_cache $s)" = "write back" ] ||
			fail "$s has no volatile write cache ($(write_cache $s)): a flush would not reach it"
	done
	tierctl create $DEV --tier /dev/mapper/nh0 --tier /dev/mapper/nh1 --extent-size 1M --force >/dev/null
	tier_set $DEV auto_migrate 0
	tier_set $DEV commit_interval_ms 60000
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M count=8 oflag=direct conv=fsync status=none
	tier_msg $DEV migrate 0 8192 1 || fail "migrate 0-3 MiB to tier 1"
	tier_wait $DEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped1 = 4 ]' ||
		fail "migrate to tier 1: $(tier_summary $DEV)"
	tier_msg $DEV commit || fail "commit after the migration"
	tierctl create nb --tier "$DMT_NVME2" --extent-size 1M >/dev/null
	for s in ${DMT_NH_STEPS:-load recover commit evpair evdel}; do
		"step_$s"
	done
	tierctl remove nb
	[ ! -e $D ] || tierctl remove $DEV
	dmsetup remove nh0 nh1
	no_kernel_warning netlink-hang
}
run_guest_phase "$@"

export DMT_DEBUG_MODULE=1
vm --fresh --nvme 128M --nvme 128M --nvme 64M -- "$0" main
