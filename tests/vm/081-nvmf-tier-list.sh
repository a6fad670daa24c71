#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh
# NVMe-oF members in tier-list changes (issue 18: "a new capacity namespace
# arrives, an old NVMe is retired, a remote target moves"). The bench's
# in-guest nvmet target exports a drive on 127.0.0.1:4420; its connection
# is dropped first so that tierctl has to make it. Two local tiers with 48
# MiB of data, then:
#   refusals  add-tier nvmf:// to a device that does not exist connects
#             nothing; one that fails after connecting (--position past the
#             end) disconnects again and records nothing
#   add       add-tier nvmf://... --ctrl-loss-tmo 60: connected, tier 2 of
#             class nvmf, recorded (nvmf.conf and nvme-cli's config.json);
#             16 MiB migrated onto it; remove, nvme disconnect-all, activate:
#             reconnected from the record, 3 tiers, data intact
#   remove    evacuate 2, remove-tier 2 --disconnect: "disconnected URI", no
#             controller, no record line, no config.json entry
#   replace   replace-tier 1 nvmf://... (a local tier retired for a remote
#             namespace): connected and recorded, tier 1 class nvmf with the
#             data; then replace-tier 1 LOCAL --class nvme --disconnect: the
#             remote namespace retired, disconnected and forgotten
# After each step the data verifies and used = mapped; no kernel warning.
. "$(dirname "$0")/lib.sh"
DEV=nt
D=/dev/mapper/$DEV
CONF=/etc/dm-tier/nvmf.conf
NVME_JSON=/etc/nvme/config.json

expect_ctrls() { # count where
	local n
	udevadm settle
	n=$(fabric_ctrls | wc -l)
	[ "$n" = "$1" ] || fail "$2: $n NVMe/TCP controllers ($(fabric_ctrls | tr '\n' ' ')), expected $1"
}

recorded() { # yes|no where
	local n=0 j=0
	# grep -c exits 1 when it counts 0.
	[ ! -e "$CONF" ] || n=$(grep -c "^$URI " "$CONF" || true)
	[ ! -e "$NVME_JSON" ] || j=$(grep -c "$DMT_NVMF_NQN" "$NVME_JSON" || true)
	if [ "$1" = yes ]; then
		[ "$n" = 1 ] || { cat "$CONF" 2>/dev/null; fail "$2: $URI is not recorded in $CONF"; }
		[ "$j" -ge 1 ] || fail "$2: no $NVME_JSON entry for $DMT_NVMF_NQN"
	else
		[ "$n" = 0 ] || { cat "$CONF"; fail "$2: $URI still recorded in $CONF"; }
		[ "$j" = 0 ] || { cat "$NVME_JSON"; fail "$2: $NVME_JSON still has $DMT_NVMF_NQN"; }
	fi
}

data_ok() { # where
	dev_cmp $D /tmp/data || fail "$1: the 48 MiB differ"
	tier_sane $DEV "$1"
}

guest_main() {
	local out
	URI="nvmf://tcp/127.0.0.1:4420/$DMT_NVMF_NQN"
	command -v nvme >/dev/null || skip "nvme-cli is not installed"
	[ -n "${DMT_NVMF_NQN:-}" ] || fail "the bench exported no NVMe-oF subsystem"
	rm -f "$CONF" "$NVME_JSON"
	nvme disconnect-all >/dev/null
	expect_ctrls 0 "after nvme disconnect-all"

	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --extent-size 1M >/dev/null
	tier_set $DEV auto_migrate 0
	rand_bytes 48M >/tmp/data
	dd if=/tmp/data of=$D bs=1M oflag=direct conv=fsync status=none
	tierctl migrate $DEV --range 16M:32M --tier 1 --wait >/dev/null || fail "migrate to tier 1"
	data_ok "created"

	# ---- refusals
	expect_status 1 "no active device named 'nosuch'" tierctl add-tier nosuch "$URI"
	expect_ctrls 0 "after add-tier to a missing device"
	expect_status 2 "apply to an nvmf:// device" tierctl add-tier $DEV "$DMT_NVME2" --ctrl-loss-tmo 60
	expect_status 1 "position goes from 1 to 2" tierctl add-tier $DEV "$URI" --position 5
	expect_ctrls 0 "after an add-tier that failed once connected"
	recorded no "after the failed add-tier"

	# ---- add
	out=$(tierctl add-tier $DEV "$URI" --ctrl-loss-tmo 60 --json) || fail "add-tier $URI"
	echo "add-tier: $out"
	expect_eq "$(jget '["tier"]' <<<"$out")" 2 "add-tier: tier"
	expect_eq "$(jget '["class"]' <<<"$out")" nvmf "add-tier: class"
	expect_ctrls 1 "after add-tier"
	recorded yes "after add-tier"
	grep -qxF "$URI ctrl_loss_tmo=60 reconnect_delay=2 fast_io_fail_tmo=5" "$CONF" ||
		{ cat "$CONF"; fail "add-tier recorded other options"; }
	tierctl migrate $DEV --range 0:16M --tier 2 --wait >/dev/null || fail "migrate to the remote tier"
	expect_eq "$(tier_mapped $DEV 2)" 16 "extents on the remote tier"
	data_ok "after add-tier"
	tierctl remove $DEV >/dev/null
	nvme disconnect-all >/dev/null
	expect_ctrls 0 "after the simulated reboot"
	tierctl activate $DEV >/dev/null || fail "activate after add-tier"
	tier_set $DEV auto_migrate 0
	expect_ctrls 1 "after activate"
	expect_eq "$(tier_stat $DEV nr_tiers)" 3 "tiers after activate"
	expect_eq "$(tier_mapped $DEV 2)" 16 "extents on the remote tier after activate"
	data_ok "after activate"
	echo "add: $URI joined as tier 2, recorded, reconnected by activate"

	# ---- remove --disconnect
	tierctl evacuate $DEV 2 --wait >/dev/null || fail "evacuate 2"
	tierctl remove-tier $DEV 2 --disconnect | tee /tmp/rm.out
	grep -qF "disconnected $URI" /tmp/rm.out || fail "remove-tier --disconnect did not say what it disconnected"
	expect_ctrls 0 "after remove-tier --disconnect"
	recorded no "after remove-tier --disconnect"
	expect_eq "$(tier_stat $DEV nr_tiers)" 2 "tiers after remove-tier"
	data_ok "after remove-tier"
	echo "remove: the remote tier evacuated, removed, disconnected and forgotten"

	# ---- replace: local -> remote -> local
	tierctl replace-tier $DEV 1 "$URI" | tee /tmp/rep1.out || fail "replace-tier 1 $URI"
	expect_ctrls 1 "after replace-tier onto the remote namespace"
	recorded yes "after replace-tier onto the remote namespace"
	expect_eq "$(jfield $DEV '["tiers"][1]["class"]')" nvmf "class of tier 1 (the remote namespace)"
	[ "$(tier_mapped $DEV 1)" -ge 32 ] || fail "tier 1 holds $(tier_mapped $DEV 1) extents after the replacement"
	data_ok "after replace-tier onto the remote namespace"
	tierctl replace-tier $DEV 1 "$DMT_NVME1" --class nvme --disconnect | tee /tmp/rep2.out ||
		fail "replace-tier 1 $DMT_NVME1 --disconnect"
	grep -qF "disconnected $URI" /tmp/rep2.out || fail "replace-tier --disconnect did not say what it disconnected"
	expect_ctrls 0 "after replace-tier --disconnect"
	recorded no "after replace-tier --disconnect"
	expect_eq "$(jfield $DEV '["tiers"][1]["class"]')" nvme "class of tier 1 (local again)"
	data_ok "after replace-tier back to the local drive"
	tierctl remove $DEV >/dev/null
	tierctl activate $DEV >/dev/null || fail "activate at the end"
	expect_ctrls 0 "after the last activate (nothing recorded)"
	data_ok "at the end"
	expect_status 2 "active" tierctl check $DEV
	tierctl remove $DEV >/dev/null
	tierctl check $DEV >/tmp/chk.out 2>&1 || { cat /tmp/chk.out; fail "tierctl check after the changes"; }
	no_kernel_warning nvmf-tier-list
	echo "NVMe-oF tier-list changes: add, remove --disconnect, replace both ways, recorded and forgotten as documented"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 128M --nvme 64M --nvmf 128M -- "$0" main
