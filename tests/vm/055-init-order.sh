#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# Module init registers in an order that a failure can unwind (issue 13,
# defect 8).
#
# Once the "tier" target is registered, a table can be loaded at once; if
# init then failed, the module would be freed under that table. So init
# registers the netlink family first and the target last: nothing can fail
# after the target is visible.
#
# The debug module (DMT_DEBUG_MODULE=1) is reloaded with dbg_init_delay_ms
# (a window between the two registrations) and dbg_init_fail_second (the
# second one fails). While insmod waits in that window, the test keeps
# loading a valid tier table. insmod must fail, no table may have been
# loaded, and the kernel must stay quiet (on the debug kernel, KASAN reports
# a use of the freed module). Then a plain insmod works and the device comes
# back with its data.
. "$(dirname "$0")/lib.sh"
DEV=io
D=/dev/mapper/$DEV

guest_main() {
	local table sum ins rc t0 took tries=0 loaded=0 nl_ok=0
	[ -n "${DMT_MODULE:-}" ] || fail "DMT_MODULE not set by the bench"
	tierctl create $DEV --tier "$DMT_NVME0" --extent-size 256K >/dev/null
	dd if=<(rand_bytes) iflag=fullblock of=$D bs=1M count=4 oflag=direct status=none
	sum=$(dd if=$D bs=1M count=4 iflag=direct status=none | md5sum)
	table=$(dmsetup table $DEV)
	dmsetup remove --retry $DEV
	rmmod dm_tier || fail "rmmod dm_tier"

	t0=$(now_ms)
	insmod "$DMT_MODULE" dbg_init_delay_ms=5000 dbg_init_fail_second=1 2>/tmp/insmod.err &
	ins=$!
	while kill -0 $ins 2>/dev/null; do
		tries=$((tries + 1))
		if dmsetup create $DEV --table "$table" 2>/dev/null; then
			loaded=1
			break
		fi
		# The control plane may already answer in the window: with no
		# device, an empty list.
		tierctl list >/dev/null 2>&1 && nl_ok=1
		sleep 0.1
	done
	rc=0
	wait $ins || rc=$?
	took=$(($(now_ms) - t0))
	echo "init window: $(fmt_ms $took) s, $tries table loads tried, netlink answered: $nl_ok, insmod status $rc ($(cat /tmp/insmod.err))"
	[ $loaded = 0 ] ||
		fail "a tier table was loaded while module init could still fail (target registered before the last fallible step)"
	[ "$rc" != 0 ] || fail "insmod succeeded although dbg_init_fail_second=1"
	[ "$took" -ge 5000 ] && [ "$tries" -ge 2 ] ||
		fail "insmod took $(fmt_ms $took) s, $tries loads tried: the 5 s window did not open"
	! lsmod | grep -q '^dm_tier ' || fail "dm_tier listed as loaded after a failed init"
	! dmsetup info $DEV >/dev/null 2>&1 || fail "device $DEV exists after the failed init"
	no_kernel_warning "failed init"

	insmod "$DMT_MODULE" || fail "plain insmod after the failed one"
	dmsetup create $DEV --table "$table" || fail "the device does not come back after a clean load"
	expect_eq "$(dd if=$D bs=1M count=4 iflag=direct status=none | md5sum)" "$sum" "data after the reload"
	tierctl list | grep -q "$DEV" || fail "tierctl list does not show $DEV after the reload"
	dmsetup remove --retry $DEV
	no_kernel_warning "reload"
	echo "init order: no table could be loaded while init could fail; clean reload"
}
run_guest_phase "$@"

export DMT_DEBUG_MODULE=1
vm --fresh --nvme 64M --timeout 300 -- "$0" main
