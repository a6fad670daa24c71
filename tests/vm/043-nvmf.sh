#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh disable=SC2016  # tier_wait conditions are evaluated later
# NVMe-oF remote tiers. The bench's in-guest nvmet target (tools/vm-run
# --nvmf) exports an emulated drive on 127.0.0.1:4420; the test first drops
# the bench's own connection so that tierctl has to make it.
#   errors    bad URIs and a numa: tier on a missing node exit 2 before
#             connecting; a target that refuses, or a create failing after
#             connecting, leaves nothing connected and nothing recorded
#   create    NVMe hot tier + nvmf:// cold tier: connected with the given
#             timeouts, recorded in /etc/dm-tier/nvmf.conf, class nvmf; XFS
#             data forced onto the remote tier with a migrate message
#   reboot    umount, tierctl remove, nvme disconnect-all, tierctl activate:
#             reconnected from the record, reassembled, data intact,
#             xfs_repair -n clean; a second activate reuses the connection
#   missing   with the target's port closed, activate warns about the record
#             and fails naming the missing tier; it works again once the
#             port is back
#   autoconnect  create also wrote the target into /etc/nvme/config.json:
#             after remove + nvme disconnect-all, nvme-cli's own
#             `nvme connect-all` (what nvmf-autoconnect.service runs at boot)
#             connects it, and activate reuses that connection
#   remove    remove --disconnect drops the controller, the record line and
#             the config.json entry
. "$(dirname "$0")/lib.sh"
DEV=rt
D=/dev/mapper/$DEV
MNT=/mnt/rt
CONF=/etc/dm-tier/nvmf.conf
NVME_JSON=/etc/nvme/config.json
CFS=/sys/kernel/config/nvmet

expect_ctrls() { # count where
	local n
	udevadm settle
	n=$(fabric_ctrls | wc -l)
	[ "$n" = "$1" ] || fail "$2: $n NVMe/TCP controllers ($(fabric_ctrls | tr '\n' ' ')), expected $1"
}

# The bench's subsystem on port 1 off (no listener: connections refused) / on.
port_off() { rm "$CFS/ports/1/subsystems/$DMT_NVMF_NQN"; }
port_on() { ln -s "$CFS/subsystems/$DMT_NVMF_NQN" "$CFS/ports/1/subsystems/$DMT_NVMF_NQN"; }

guest_main() {
	local uri="nvmf://tcp/127.0.0.1:4420/$DMT_NVMF_NQN" hot=$DMT_NVME0 ctrl size dev1 mapped_before
	command -v nvme >/dev/null || skip "nvme-cli is not installed"
	[ -n "${DMT_NVMF_NQN:-}" ] || fail "the bench exported no NVMe-oF subsystem"
	rm -f "$CONF" "$NVME_JSON"
	nvme disconnect-all >/dev/null
	expect_ctrls 0 "after nvme disconnect-all"

	# ---- errors
	expect_status 2 "port '0' is out of range" tierctl create $DEV --tier "$hot" --tier "nvmf://tcp/127.0.0.1:0/$DMT_NVMF_NQN"
	expect_status 2 "unknown transport 'udp'" tierctl create $DEV --tier "$hot" --tier "nvmf://udp/127.0.0.1:4420/$DMT_NVMF_NQN"
	expect_status 2 'must start with "nqn\."' tierctl create $DEV --tier "$hot" --tier nvmf://tcp/127.0.0.1:4420/cold0
	expect_status 2 'same NVMe-oF target' tierctl create $DEV --tier "$uri" --tier "$uri"
	expect_status 2 'NUMA node 7 does not exist' tierctl create $DEV --tier "$hot" --tier "$uri" --tier numa:7:64M
	expect_status 2 'reconnect-delay' tierctl create $DEV --tier "$hot" --tier "$uri" --reconnect-delay 0
	expect_status 1 "cannot connect nvmf://tcp/127.0.0.1:4421/.*refused" \
		tierctl create $DEV --tier "$hot" --tier "nvmf://tcp/127.0.0.1:4421/$DMT_NVMF_NQN"
	expect_status 1 'cannot connect' tierctl create $DEV --tier "$hot" --tier nvmf://tcp/127.0.0.1:4420/nqn.2026-01.io.dm-tier:nosuch
	expect_ctrls 0 "after failed connects"
	# Failing after the connection was made (tier 0 carries a filesystem):
	# what this command connected is disconnected again.
	mkfs.ext4 -q -F "$hot"
	expect_status 1 'ext4.*--force' tierctl create $DEV --tier "$hot" --tier "$uri"
	expect_ctrls 0 "after a create that failed once connected"
	[ ! -e "$CONF" ] || { cat "$CONF"; fail "failed creates recorded a connection"; }
	[ ! -e "$NVME_JSON" ] || { cat "$NVME_JSON"; fail "failed creates wrote $NVME_JSON"; }

	# ---- create
	tierctl create $DEV --tier "$hot" --tier "$uri" --ctrl-loss-tmo 60 --reconnect-delay 1 --force | tee /tmp/create.out
	grep -q "nvmf.*$uri" /tmp/create.out || fail "create does not show the URI of the remote tier"
	expect_ctrls 1 "after create"
	ctrl=$(fabric_ctrls)
	if [ -e "/sys/class/nvme/$ctrl/ctrl_loss_tmo" ]; then
		expect_eq "$(cat "/sys/class/nvme/$ctrl/ctrl_loss_tmo")" 60 "ctrl_loss_tmo of $ctrl"
		expect_eq "$(cat "/sys/class/nvme/$ctrl/reconnect_delay")" 1 "reconnect_delay of $ctrl"
	fi
	# The default fast_io_fail_tmo: I/O to a lost path fails after 5 s.
	if [ -e "/sys/class/nvme/$ctrl/fast_io_fail_tmo" ]; then
		expect_eq "$(cat "/sys/class/nvme/$ctrl/fast_io_fail_tmo")" 5 "fast_io_fail_tmo of $ctrl"
	fi
	grep -qxF "$uri ctrl_loss_tmo=60 reconnect_delay=1 fast_io_fail_tmo=5" "$CONF" || { cat "$CONF"; fail "connection not recorded"; }
	expect_eq "$(grep -c '^nvmf://' "$CONF")" 1 "record lines"
	python3 - "$NVME_JSON" "$DMT_NVMF_NQN" <<'PY' || { cat "$NVME_JSON"; fail "$NVME_JSON: no entry for the remote tier"; }
import json, sys
hosts = json.load(open(sys.argv[1]))
ports = [p for h in hosts for s in h.get("subsystems", []) if s["nqn"] == sys.argv[2]
         for p in s.get("ports", [])]
assert [(p["transport"], p["traddr"], p["trsvcid"], p["ctrl_loss_tmo"], p["reconnect_delay"], p.get("fast_io_fail_tmo"))
        for p in ports] == [("tcp", "127.0.0.1", "4420", 60, 1, 5)], ports
PY
	expect_eq "$(jfield $DEV '["tiers"][1]["class"]')" nvmf "class of the remote tier"
	dev1=$(jfield $DEV '["tiers"][1]["device"]')
	[[ $dev1 == /dev/nvme*n1 ]] || fail "tier 1 is $dev1, not the fabric namespace"

	dmsetup message $DEV 0 set auto_migrate 0
	mkfs.xfs -q $D
	mkdir -p $MNT && mount $D $MNT
	write_files $MNT 4 6
	umount $MNT
	# Everything mapped goes to the remote tier.
	size=$(blockdev --getsz $D)
	dmsetup message $DEV 0 migrate 0 "$size" 1
	tier_wait $DEV 180 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped0 = 0 ]' ||
		fail "migrate to the remote tier not done: $(tier_summary $DEV)"
	tier_sane $DEV "after migrating to tier 1"
	mapped_before=$(tier_stat $DEV mapped 1)
	[ "$mapped_before" -ge 24 ] || fail "only $mapped_before extents on the remote tier"
	mount $D $MNT && check_files $MNT && umount $MNT
	echo "created over $uri ($ctrl, $dev1): $(tier_summary $DEV)"

	# ---- reboot
	tierctl remove $DEV
	nvme disconnect-all >/dev/null
	expect_ctrls 0 "after the simulated reboot"
	tierctl activate | tee /tmp/activate.out
	grep -q "activated /dev/mapper/$DEV" /tmp/activate.out || fail "$DEV not activated"
	# Table settings set by message do not survive: keep the data where
	# it is, on the remote tier, while it is checked.
	dmsetup message $DEV 0 set auto_migrate 0
	expect_ctrls 1 "after activate"
	ctrl=$(fabric_ctrls)
	if [ -e "/sys/class/nvme/$ctrl/fast_io_fail_tmo" ]; then
		expect_eq "$(cat "/sys/class/nvme/$ctrl/fast_io_fail_tmo")" 5 "fast_io_fail_tmo of $ctrl after activate"
	fi
	tier_sane $DEV "after activate"
	echo "after activate (before: $mapped_before extents on tier 1): $(tier_summary $DEV)"
	[ "$(tier_stat $DEV mapped 1)" -gt 0 ] || fail "nothing mapped on the remote tier after activate"
	xfs_repair -n $D >/tmp/repair.log 2>&1 || { cat /tmp/repair.log; fail "xfs_repair -n found problems"; }
	mount $D $MNT && check_files $MNT && umount $MNT
	# Idempotent: the connection is reused, the device already active.
	expect_status 0 'already active' tierctl activate $DEV
	expect_ctrls 1 "after a second activate"
	echo "reboot: reconnected from $CONF, reassembled, data intact, xfs_repair clean"

	# ---- autoconnect: nvme-cli connects from config.json by itself
	tierctl remove $DEV >/dev/null
	nvme disconnect-all >/dev/null
	expect_ctrls 0 "before nvme connect-all"
	nvme connect-all >/tmp/connect-all.out 2>&1 || { cat /tmp/connect-all.out; fail "nvme connect-all failed"; }
	expect_ctrls 1 "after nvme connect-all (from $NVME_JSON)"
	tierctl activate $DEV >/dev/null
	expect_ctrls 1 "after activate over nvme-cli's connection"
	mount $D $MNT && check_files $MNT && umount $MNT
	echo "autoconnect: nvme connect-all brought the remote tier up from $NVME_JSON"

	# ---- missing
	tierctl remove $DEV >/dev/null
	nvme disconnect-all >/dev/null
	port_off
	expect_status 1 "missing.*tier.*1|tier.*1.*missing" tierctl activate $DEV
	grep -qiF "warning: cannot connect $uri" /tmp/out || { cat /tmp/out; fail "no warning about the unreachable recorded target"; }
	port_on
	tierctl activate $DEV >/dev/null
	mount $D $MNT && check_files $MNT && umount $MNT
	echo "missing: warned, failed naming the missing tier, recovered with the port"

	# ---- remove --disconnect
	tierctl remove $DEV --disconnect | tee /tmp/remove.out
	grep -qF "disconnected $uri" /tmp/remove.out || fail "remove --disconnect did not say what it disconnected"
	expect_ctrls 0 "after remove --disconnect"
	! grep -q '^nvmf://' "$CONF" || { cat "$CONF"; fail "remove --disconnect left the record line"; }
	! grep -qF "$DMT_NVMF_NQN" "$NVME_JSON" || { cat "$NVME_JSON"; fail "remove --disconnect left the $NVME_JSON entry"; }
	# Nothing recorded: activate connects nothing and finds the device
	# incomplete.
	expect_status 1 'missing' tierctl activate $DEV
	expect_ctrls 0 "after activate with an empty record"
	echo "NVMe-oF tiers: connect, record, reconnect, disconnect as documented"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvmf 256M -- "$0" main
