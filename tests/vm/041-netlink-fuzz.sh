#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# dmt: smp
# shellcheck source=tests/vm/lib.sh
# The dm-tier generic netlink family under fire: while fio writes and
# verifies one region of a two-tier device, nlfuzz (tests/vm/helpers/nlfuzz.c,
# raw netlink sockets) sends 5000 random and malformed requests with a fixed
# seed, the real device name among random ones; every request must be
# answered. Before that, `nlfuzz ops` checks each operation's answers once
# (and the table must show what policy-set changed), and a monitor must see
# dev-new, migration-done and dev-del. Then tier health: a tier whose I/O
# fails is degraded (status, tier-error) until tier-recover (tier-recovered).
# As an unprivileged user (setpriv, no capabilities) the mutating operations,
# extent-dump and joining the monitor group get EPERM while dev-get and
# policy-get work (test 048 also checks a caller with CAP_NET_ADMIN only).
# Afterwards fio's region verifies, a region written before the fuzz has its
# checksum, and the status is sane. Any kernel WARNING/BUG/KASAN in dmesg fails the test (the
# harness checks).
# DMT_NLFUZZ_COUNT / DMT_NLFUZZ_SEED change the request count / seed.
. "$(dirname "$0")/lib.sh"
DEV=nf
D=/dev/mapper/$DEV
NLFUZZ=$TOP/build/vm/$TEST_NAME/nlfuzz # per test: tests run side by side

fio_loop() { # stop-file: write + verify 48 MiB at 64 MiB until told to stop
	local pass=0
	while [ ! -e "$1" ]; do
		pass=$((pass + 1))
		fio --name=nf --filename=$D --direct=1 --ioengine=libaio --iodepth=8 \
			--offset=64m --size=48m --rw=randwrite --bsrange=4k-1m \
			--verify=crc32c --verify_fatal=1 --do_verify=1 \
			--randseed=$pass >/tmp/fio.out 2>&1 || { cat /tmp/fio.out; return 1; }
	done
	echo "$pass" >/tmp/fio.passes
}

# Tier health on a device whose tiers sit on dm-linear shims: tier 1's shim
# fails all I/O, a read of data there fails and marks the tier degraded
# (status and tier-error); with the shim back, tier-recover clears it
# (tier-recovered) and the data reads back intact.
step_health() {
	local h=nfh sum i
	for i in 0 1; do
		eval "dmsetup create nfh$i --table \"0 \$(blockdev --getsz \$DMT_NVME$i) linear \$DMT_NVME$i 0\""
	done
	tierctl create $h --tier /dev/mapper/nfh0 --tier /dev/mapper/nfh1 --extent-size 1M --force >/dev/null
	dd if=<(rand_bytes) iflag=fullblock of=/dev/mapper/$h bs=1M count=4 oflag=direct conv=fsync status=none
	sum=$(dd if=/dev/mapper/$h bs=1M count=4 iflag=direct status=none | sha256sum)
	tier_msg $h migrate 0 8192 1 || fail "health: migrate to tier 1"
	tier_wait $h 60 "[ \$manual_pending = 0 ] && [ \$in_flight = 0 ] && [ \$mapped1 = 4 ]" ||
		fail "health: migrate not done: $(tier_summary $h)"
	tier_msg $h commit || fail "health: commit"
	expect_eq "$(tier_stat $h state 1)" ok "health: tier 1 state before the failure"

	dmsetup suspend --noflush --nolockfs nfh1
	dmsetup load nfh1 --table "0 $(blockdev --getsz "$DMT_NVME1") error"
	dmsetup resume nfh1
	! dd if=/dev/mapper/$h of=/dev/null bs=1M count=1 iflag=direct status=none 2>/dev/null ||
		fail "health: a read from the failed tier succeeded"
	expect_eq "$(tier_stat $h state 1)" degraded "health: tier 1 state after a failed read"
	expect_eq "$(tier_stat $h state 0)" ok "health: tier 0 state after a failed read on tier 1"

	dmsetup load nfh1 --table "0 $(blockdev --getsz "$DMT_NVME1") linear $DMT_NVME1 0"
	dmsetup resume nfh1
	expect_eq "$(tier_stat $h state 1)" degraded "health: tier 1 stays degraded until recovered"
	"$NLFUZZ" recover $h 1 || fail "health: tier-recover"
	expect_eq "$(tier_stat $h state 1)" ok "health: tier 1 state after tier-recover"
	expect_eq "$(dd if=/dev/mapper/$h bs=1M count=4 iflag=direct status=none | sha256sum)" \
		"$sum" "health: data on tier 1 after recovery"
	tierctl remove $h
	dmsetup remove --retry nfh0 nfh1
	echo "health: tier 1 degraded by a failed read, recovered by tier-recover"
}

guest_main() {
	local count=${DMT_NLFUZZ_COUNT:-5000} seed=${DMT_NLFUZZ_SEED:-41} sum0 fio tbl mon ev
	# Notifications: a listener from before the device exists until after
	# it is gone.
	"$NLFUZZ" monitor 600 >/tmp/mon.out 2>&1 &
	mon=$!
	for _ in $(seq 50); do grep -q listening /tmp/mon.out && break; sleep 0.1; done
	grep -q listening /tmp/mon.out || fail "nlfuzz monitor: $(cat /tmp/mon.out)"
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --extent-size 1M >/dev/null
	# 32 MiB written before the fuzz, checked after it.
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M count=32 oflag=direct status=none
	sum0=$(dd if=$D bs=1M count=32 iflag=direct status=none | sha256sum)

	# Each operation once, with its answers checked: policy-set (both
	# watermarks at once, all or nothing), pin/extent-dump/unpin counts,
	# migrate and its errors. It leaves the watermarks at 70/50, which the
	# table must show as a `set` message would, and 32 MiB moving to tier 1.
	"$NLFUZZ" ops $DEV 32 || fail "nlfuzz ops: an operation did not answer as expected"
	tbl=$(dmsetup table $DEV)
	[[ $tbl == *"high_watermark 70 low_watermark 50"* ]] ||
		fail "policy-set is not in the table: $tbl"

	rm -f /tmp/fio.stop /tmp/fio.passes
	fio_loop /tmp/fio.stop &
	fio=$!
	"$NLFUZZ" fuzz -n "$count" -s "$seed" -d $DEV -t 5000 ||
		fail "nlfuzz: requests went unanswered"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$NLFUZZ" perm $DEV || fail "nlfuzz perm: permissions not as expected"
	touch /tmp/fio.stop
	wait $fio || fail "fio failed its verification during the fuzz"
	echo "fio: $(cat /tmp/fio.passes) write+verify passes during the fuzz"

	# Whatever the fuzz set, pinned or asked to move: let it settle, then
	# check (a random migration_bandwidth of 1 MiB/s would take long).
	tier_set $DEV migration_bandwidth 0
	tier_wait $DEV 60 "[ \$manual_pending = 0 ] && [ \$in_flight = 0 ]" ||
		fail "migrations still running 60 s after the fuzz: $(tier_summary $DEV)"
	expect_eq "$(dd if=$D bs=1M count=32 iflag=direct status=none | sha256sum)" \
		"$sum0" "checksum of the region written before the fuzz"
	fio --name=nf --filename=$D --direct=1 --ioengine=libaio --iodepth=8 \
		--offset=64m --size=48m --rw=randwrite --bsrange=4k-1m \
		--verify=crc32c --verify_fatal=1 --verify_only=1 \
		--randseed="$(cat /tmp/fio.passes)" >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; fail "fio region does not verify after the fuzz"; }
	tier_sane $DEV "after the fuzz"
	echo "status: $(tier_summary $DEV)"
	tierctl remove $DEV
	step_health
	sleep 1
	kill $mon 2>/dev/null || true
	wait $mon 2>/dev/null || true
	echo "events: $(sort /tmp/mon.out | uniq -c | tr -s ' \n' ' ')"
	# dev-new (1) at activation, migration-done (5) of the ops migrate to
	# tier 1, dev-del (2) after the remove; each with the dev layout.
	for ev in "event=1 tier=-1 name=$DEV layout=yes" "event=5 tier=1 name=$DEV layout=yes" \
		"event=2 tier=-1 name=$DEV layout=yes"; do
		grep -qxF "$ev" /tmp/mon.out || fail "no notification '$ev': $(cat /tmp/mon.out)"
	done
	# tier-error (6) and tier-recovered (7) of tier 1, once each.
	for ev in "event=6 tier=1 name=nfh layout=yes" "event=7 tier=1 name=nfh layout=yes"; do
		[ "$(grep -cxF "$ev" /tmp/mon.out)" = 1 ] || fail "not once: '$ev': $(cat /tmp/mon.out)"
	done
	[ "$(grep -c "^event=1 tier=-1 name=$DEV " /tmp/mon.out)" = 1 ] ||
		fail "dev-new of $DEV not exactly once: $(cat /tmp/mon.out)"
	echo "netlink fuzz: $count requests answered, permissions enforced, data intact"
}
run_guest_phase "$@"

mkdir -p "${NLFUZZ%/*}"
gcc -O2 -Wall -Wextra -Werror -o "$NLFUZZ" "$TOP/tests/vm/helpers/nlfuzz.c" ||
	fail "cannot build nlfuzz"
vm --fresh --nvme 64M --nvme 512M --timeout 300 -- "$0" main
