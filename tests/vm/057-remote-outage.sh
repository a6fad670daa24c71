#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh disable=SC2016  # conditions are evaluated later
# dmt: debug-kernel
# A remote tier's outage does not stop the hot tier (issue 15). Tier 0 is
# an emulated NVMe drive, tier 1 the bench's in-guest nvmet target over
# nvme-tcp, connected with fast_io_fail_tmo=2. 24 MiB are migrated to
# tier 1; then, while a writer writes 4 KiB records into new tier-0 extents
# and fsyncs each (commits, flushes) and a reader reads the tier-1 data,
# the target's port is removed for 30 s:
#   - every fsync completes, each in under 5 s;
#   - tier 1 goes offline (tier-error), its reads fail with EIO, each in
#     under 5 s, and once it is offline at once;
#   - the metadata stays rw throughout;
#   - after the port returns and `tierctl recover`: tier 1 ok
#     (tier-recovered), every fsynced record and the tier-1 data verify,
#     and the events came in order: tier-error, tier-recovered, no
#     mode-change.
# The old code flushed every tier on each commit: the flush of tier 1 failed,
# the metadata went ro, then fsyncs failed.
. "$(dirname "$0")/lib.sh"
DEV=ro57
D=/dev/mapper/$DEV
CFS=/sys/kernel/config/nvmet
FSYNCIO="$TOP/tests/vm/helpers/fsyncio.py"
OUTAGE_S=${DMT_OUTAGE_S:-30}

port_off() { rm "$CFS/ports/1/subsystems/$DMT_NVMF_NQN"; }
port_on() { ln -s "$CFS/subsystems/$DMT_NVMF_NQN" "$CFS/ports/1/subsystems/$DMT_NVMF_NQN"; }
ctrl_state() { cat "/sys/class/nvme/$CTRL/state"; }
tier1_state() { tier_stat $DEV state 1; }
writer_so_far() {
	awk '{ n++; if ($2 > m) m = $2; if ($3 != "ok") e++ }
		END { printf "writer so far: %d records, slowest %d ms, %d failed", n, m, e }' /tmp/w.log
	echo ", metadata mode $(tier_stat $DEV mode)"
}
sum_a() { dd if=$D bs=1M count=24 iflag=direct status=none | sha256sum | cut -d' ' -f1; }


guest_main() {
	local uri="nvmf://tcp/127.0.0.1:4420/$DMT_NVMF_NQN" dev1 c sum t_off t_on w_pid r_pid watch_pid rc
	local secs=$((OUTAGE_S + 25)) max n_ok n_err slow n_fast fast t_offline
	command -v nvme >/dev/null || skip "nvme-cli is not installed"
	[ -n "${DMT_NVMF_NQN:-}" ] || fail "the bench exported no NVMe-oF subsystem"
	nvme disconnect-all >/dev/null
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$uri" --extent-size 1M \
		--ctrl-loss-tmo 600 --reconnect-delay 1 --force >/dev/null
	dev1=$(jfield $DEV '["tiers"][1]["device"]')
	CTRL=$(basename "$(readlink -f "/sys/block/${dev1#/dev/}/device")")
	if [[ $CTRL == nvme-subsys* ]]; then
		for c in "/sys/block/${dev1#/dev/}"/device/nvme[0-9]*; do CTRL=$(basename "$c"); break; done
	fi
	[ -w "/sys/class/nvme/$CTRL/fast_io_fail_tmo" ] || skip "the kernel has no fast_io_fail_tmo for $CTRL"
	echo 2 >"/sys/class/nvme/$CTRL/fast_io_fail_tmo"
	echo "tier 1 is $dev1 on controller $CTRL ($(ctrl_state))"

	tier_set $DEV auto_migrate 0
	dd if=/dev/urandom of=$D bs=1M count=24 oflag=direct status=none
	sum=$(sum_a)
	tier_msg $DEV migrate 0 $((24 * 2048)) 1 || fail "migrate to tier 1"
	tier_wait $DEV 120 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped1 = 24 ]' ||
		fail "migrate to tier 1 not done: $(tier_summary $DEV)"
	tier_msg $DEV commit || fail "commit after the migration"
	echo "before: $(tier_summary $DEV)"

	tierctl watch $DEV --json >/tmp/watch.out 2>/tmp/watch.err &
	watch_pid=$!
	wait_for 10 'grep -q watching /tmp/watch.err' || fail "tierctl watch did not subscribe"

	# Writer: a record at each MiB of [32, 56): a fresh extent each time.
	python3 "$FSYNCIO" write $D 32 24 $secs /tmp/w.log >/tmp/w.out 2>&1 &
	w_pid=$!
	python3 "$FSYNCIO" read $D 0 24 $secs /tmp/r.log >/tmp/r.out 2>&1 &
	r_pid=$!
	sleep 5
	t_off=$(now_ms)
	port_off
	echo "port removed"
	wait_for 20 '[ "$(tier1_state)" = offline ]' ||
		fail "tier 1 is $(tier1_state) 20 s into the outage (controller $(ctrl_state)); $(writer_so_far)"
	t_offline=$(now_ms)
	echo "tier 1 offline $(fmt_ms $((t_offline - t_off))) s into the outage; mode $(tier_stat $DEV mode)"
	# The state as every interface shows it: dm status (above), netlink
	# through tierctl status, text and JSON.
	tierctl status $DEV >/tmp/st.txt 2>&1 || { cat /tmp/st.txt; fail "tierctl status during the outage"; }
	grep -Eq '^ *1 .*offline' /tmp/st.txt || { cat /tmp/st.txt; fail "tierctl status (text) does not show tier 1 offline"; }
	expect_eq "$(tierctl status $DEV --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["tiers"][1]["state"])')" offline "tierctl status --json state of tier 1 during the outage"
	sleep $((OUTAGE_S - 5))
	[ "$(tier_stat $DEV mode)" = rw ] || fail "metadata mode $(tier_stat $DEV mode) during the outage; $(writer_so_far)"
	port_on
	t_on=$(now_ms)
	echo "port back after $(fmt_ms $((t_on - t_off))) s"
	rc=0
	wait_bounded $((secs + 60)) "fsync writer" $w_pid || rc=$?
	wait_bounded 60 "reader" $r_pid || true
	[ $rc = 0 ] || { tail -n 20 /tmp/w.log; fail "a write or fsync failed (status $rc)"; }

	# fsync latency: all under 5 s, through the whole run.
	read -r n_ok max <<<"$(awk '{ n++; if ($2 > m) m = $2 } END { print n + 0, m + 0 }' /tmp/w.log)"
	echo "writer: $n_ok records fsynced, slowest fsync $max ms"
	[ "$n_ok" -ge 20 ] || fail "only $n_ok records written in $secs s"
	[ "$max" -lt 5000 ] || { sort -k2 -n /tmp/w.log | tail -n 5; fail "an fsync took $max ms (>= 5 s)"; }

	# Reads of tier 1 during the outage: EIO, each bounded; once the tier
	# is offline, at once.
	read -r n_err slow <<<"$(awk -v a=$t_off -v b=$t_on '
		$1 >= a && $1 < b && $3 != "ok" { n++ }
		$2 > m { m = $2 } END { print n + 0, m + 0 }' /tmp/r.log)"
	read -r n_fast fast <<<"$(awk -v a=$((t_offline + 1000)) -v b=$t_on '
		$1 >= a && $1 + $2 < b { n++; if ($2 > m) m = $2; if ($3 == "ok") ok++ }
		END { print n + 0 - ok, m + 0 }' /tmp/r.log)"
	echo "reader: $(wc -l </tmp/r.log) reads, $n_err failed during the outage, slowest $slow ms; $n_fast after tier 1 went offline, slowest $fast ms"
	[ "$n_err" -gt 0 ] || fail "no read of tier 1 failed during the outage"
	[ "$n_fast" -gt 0 ] || fail "no read of tier 1 while it was offline"
	if grep -v ' ok$' /tmp/r.log | grep -qv ' errno5$'; then
		grep -v ' ok$' /tmp/r.log | awk '{ print $3 }' | sort | uniq -c
		fail "reads failed with another error than EIO"
	fi
	[ "$slow" -lt 5000 ] || fail "a read of tier 1 took $slow ms (>= 5 s)"
	[ "$fast" -lt 1000 ] || fail "a read of offline tier 1 took $fast ms"

	# Recovery.
	wait_for 60 '[ "$(ctrl_state)" = live ]' || fail "controller $CTRL did not reconnect ($(ctrl_state))"
	expect_eq "$(tier1_state)" offline "tier 1 before tierctl recover"
	bounded 30 "tierctl recover" tierctl recover $DEV 1 | tee /tmp/recover.out
	grep -q "was offline, now ok" /tmp/recover.out || fail "tierctl recover did not say what it did"
	expect_eq "$(tier1_state)" ok "tier 1 after tierctl recover"
	expect_eq "$(tierctl status $DEV --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["tiers"][1]["state"])')" ok "tierctl status --json state of tier 1"
	tier_msg $DEV commit || fail "commit after the recovery"
	tier_sane $DEV "after the recovery"
	expect_eq "$(sum_a)" "$sum" "tier-1 data after the recovery"
	python3 "$FSYNCIO" verify $D 32 24 /tmp/w.log || fail "fsynced records do not read back"
	wait_for 10 'grep -q tier-recovered /tmp/watch.out' || true
	kill $watch_pid
	python3 - /tmp/watch.out <<-'EOF' || { cat /tmp/watch.out; fail "wrong events"; }
		import json, sys
		ev = [json.loads(l) for l in open(sys.argv[1])]
		names = [(e["event"], e.get("event_tier")) for e in ev
		         if e["event"] in ("tier-error", "tier-recovered", "mode-change")]
		# One tier-error per transition: ok -> offline, or ok -> degraded
		# -> offline; then one tier-recovered; no mode change.
		assert names in ([("tier-error", 1), ("tier-recovered", 1)],
		                 [("tier-error", 1), ("tier-error", 1),
		                  ("tier-recovered", 1)]), names
	EOF
	# Kernel reports: vm-run checks the console (and knows nvmet-tcp's own
	# lockdep report on loopback disconnects, which is not ours).
	tierctl remove $DEV
	echo "remote outage: fsyncs on tier 0 under 5 s (slowest $max ms), tier-1 reads EIO, offline -> ok, metadata rw, data intact"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvmf 256M -- "$0" main
