#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bench boots Debian's 6.1 kernel, loads the freshly built dm-tier.ko
# (registering the "tier" target), and the module unloads and reloads cleanly.
. "$(dirname "$0")/lib.sh"

guest_main() {
	lsmod | grep -q '^dm_tier ' || fail "dm-tier.ko not loaded by the bench"
	klog_has 'device-mapper: tier: version' || fail "no load message in dmesg"
	rmmod dm_tier || fail "rmmod dm_tier failed"
	! lsmod | grep -q '^dm_tier ' || fail "dm_tier still loaded after rmmod"
	insmod "$TOP/build/kmod/$DMT_KVER/dm-tier.ko" || fail "reload failed"
	rmmod dm_tier || fail "second rmmod failed"
	echo "module loaded, unloaded and reloaded cleanly on $DMT_KVER"
}
run_guest_phase "$@"

vm --kernel "${DMT_KERNEL:-6.1}" -- "$0" main
