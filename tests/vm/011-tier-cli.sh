#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tierctl's errors: usage errors exit 2, failures exit 1, each with a message
# that says what to do; devices carrying a filesystem are refused without
# --force; a full device takes new writes again right after a discard; a
# tier over NVMe-oF is reassembled through the fabric namespace; a name
# other disks' labels carry is refused by create unless --force, and two
# devices of one name are activated by neither activate NAME nor --all.
. "$(dirname "$0")/lib.sh"

guest_main() {
	local a=$DMT_NVME0 b=$DMT_NVME1 v
	# With the module loaded, version names every side's version.
	v=$(tierctl version --json) || fail "tierctl version"
	python3 -c 'import json, sys
v = json.loads(sys.argv[1])
assert v["module"] == v["version"], v
assert len(v["target_version"].split(".")) == 3, v
assert v["netlink_family_version"] == v["netlink_family_version_tierctl"] == 1, v
assert v["format_version"] == 1, v' "$v" || fail "tierctl version --json: $v"
	expect_status 2 'power of two' tierctl create x --tier "$a" --tier "$b" --extent-size 3M
	expect_status 2 '64 ?K|range|between' tierctl create x --tier "$a" --extent-size 32K
	expect_status 2 'twice|more than once|same' tierctl create x --tier "$a" --tier "$a"
	ln -s "$a" /tmp/alias
	expect_status 2 'twice|more than once|same' tierctl create x --tier "$a" --tier /tmp/alias
	expect_status 2 'exceeds' tierctl create x --tier "$a" --tier "$b" --size 10G
	expect_status 2 'not a block device|no such|does not exist' tierctl create x --tier /dev/nope
	# Memory tiers are checked before any device is touched.
	expect_status 2 'NUMA node 1023 does not exist' tierctl create x --tier "$a" --tier numa:1023:64M
	expect_status 2 'first tier must be a block device' tierctl create x --tier numa:0:64M --tier "$a"
	expect_status 2 'whole number of MiB' tierctl create x --tier "$a" --tier numa:0:1000K
	expect_status 2 'usage|unknown' tierctl create x --tier "$a" --bogus
	expect_status 2 'unknown command' tierctl frobnicate
	expect_status 1 'no .*device|not found|does not exist' tierctl remove nosuch
	expect_status 1 'no .*device|not found|does not exist' tierctl status nosuch

	mkfs.ext4 -q -F "$b"
	expect_status 1 'ext4.*--force|--force.*ext4' tierctl create x --tier "$a" --tier "$b"
	tierctl create x --tier "$a" --tier "$b" --force >/dev/null
	expect_status 1 'in use.*mapper/x' tierctl create y --tier "$b"
	# One device over the same tiers under a second name is refused.
	dmsetup create x2 --table "$(dmsetup table x)" 2>/dev/null &&
		fail "a second dm device over the same tiers was accepted"
	klog_has 'already used by another mapped device' ||
		fail "no message for a second device over the same tiers"

	# A device whose every extent is in use accepts new extents right
	# after a discard: freed extents become usable with the next commit.
	local sz
	sz=$(blockdev --getsize64 /dev/mapper/x)
	dd if=/dev/zero of=/dev/mapper/x bs=1M oflag=direct status=none count=$((sz >> 20)) ||
		fail "filling the whole device failed"
	expect_eq "$(jfield x '["mapped_extents"]')" $((sz >> 20)) "mapped extents of a full device"
	blkdiscard -o 0 -l $((16 << 20)) /dev/mapper/x
	dd if=<(rand_bytes) iflag=fullblock of=/dev/mapper/x bs=1M count=16 oflag=direct conv=fsync status=none ||
		fail "rewrite after discard on a full device failed"
	expect_eq "$(jfield x '["nospc_errors"]')" 0 "ENOSPC errors"
	tierctl remove x
	expect_status 1 'dm-tier.*--force' tierctl create y --tier "$b"

	# The last free extents may be held by copies in flight (a copy holds
	# its source and its destination until it ends): first writes wait
	# for the copies instead of failing with ENOSPC. Tier 1 sits on
	# dm-delay so that the copies stay in flight.
	local n k
	delay_dev slow "$b" 0
	tierctl create z --tier "$a" --tier /dev/mapper/slow --force >/dev/null
	tier_set z auto_migrate 0
	n=$(($(blockdev --getsize64 /dev/mapper/z) >> 20))
	dd if=/dev/zero of=/dev/mapper/z bs=1M oflag=direct status=none count=$((n - 4)) ||
		fail "filling all but 4 extents failed"
	# As many copies to tier 1 as it has free extents, of extents the
	# fill put on tier 0 (its first ones).
	tier_eval z
	k=$((total1 - used1))
	[ "$k" -ge 1 ] && [ "$k" -le 4 ] && [ "$mapped0" -gt "$k" ] ||
		fail "fill left $k free extents on tier 1: $(tier_summary z)"
	delay_set slow "$b" 3000
	tier_msg z migrate 0 $((k * 2048)) 1 || fail "migrate of $k extents to tier 1"
	tier_wait z 20 "[ \$in_flight = $k ]" ||
		fail "the $k copies are not in flight together: $(tier_summary z)"
	dd if=<(rand_bytes) iflag=fullblock of=/tmp/last bs=1M count=4 status=none
	dd if=/tmp/last of=/dev/mapper/z bs=1M seek=$((n - 4)) oflag=direct conv=fsync status=none ||
		fail "first writes while copies held the last free extents failed: $(tier_summary z)"
	expect_eq "$(tier_stat z nospc_errors)" 0 "ENOSPC errors with copies in flight"
	expect_eq "$(dev_sum /dev/mapper/z 4 $((n - 4)))" "$(dev_sum /tmp/last)" "the last 4 extents"
	delay_set slow "$b" 0
	tier_wait z 30 '[ $in_flight = 0 ] && [ $manual_pending = 0 ]' ||
		fail "the $k copies did not end: $(tier_summary z)"
	tierctl remove z >/dev/null
	dmsetup remove --retry slow

	# A capacity tier over NVMe-oF: activation must use the fabric
	# namespace, not the drive this host's own nvmet target exports.
	# create, remove and activate answer in JSON with --json.
	tierctl create f --tier "$a" --tier "$DMT_NVMF0" --force --json >/tmp/c.json ||
		fail "create --json"
	python3 -c 'import json, sys
d = json.load(open("/tmp/c.json"))
assert d["name"] == "f" and d["nr_tiers"] == 2 and len(d["tiers"]) == 2, d
assert d["tiers"][1]["device"] == sys.argv[1] and d["tiers"][1]["class"] == "nvmf", d
assert d["mem"] is None and d["metadata_dev"] is None and d["size_bytes"] > 0, d' "$DMT_NVMF0" ||
		fail "create --json: $(cat /tmp/c.json)"
	expect_eq "$(jfield f '["tiers"][1]["class"]')" nvmf "class of the fabric tier"
	dd if=<(rand_bytes) iflag=fullblock of=/tmp/f bs=1M count=100 status=none
	dd if=/tmp/f of=/dev/mapper/f bs=1M oflag=direct conv=fsync status=none
	[ "$(tierctl --json remove f)" = '{"name":"f","removed":true,"disconnected":[]}' ] ||
		fail "remove --json: $(tierctl --json remove f 2>&1)"
	tierctl activate f --json >/tmp/a.json || fail "activate --json"
	python3 -c 'import json
d = json.load(open("/tmp/a.json"))
assert [(e["name"], e["state"], e["nr_tiers"]) for e in d["devices"]] == [("f", "activated", 2)], d' ||
		fail "activate --json: $(cat /tmp/a.json)"
	tierctl activate f --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
assert [(e["name"], e["state"]) for e in d["devices"]] == [("f", "already-active")], d' ||
		fail "activate --json of an active device"
	expect_eq "$(jfield f '["tiers"][1]["device"]')" "$DMT_NVMF0" "fabric tier after activation"
	dev_cmp /dev/mapper/f /tmp/f ||
		fail "data over NVMe-oF differs"
	tierctl remove f >/dev/null

	# Two devices of one name: create refuses a second f while the first
	# one's labels (on a and the fabric namespace; not active) are there,
	# naming them, unless --force; activate then refuses both, by name
	# and with --all, until one's labels are gone. b's old label (z's
	# tier 1) is wiped first.
	dd if=/dev/zero of="$b" bs=4096 count=1 oflag=direct conv=fsync status=none
	expect_status 1 "'f' is already the name of a dm-tier device on other devices:.*$a \\(tier 0, uuid [0-9a-f]{32}\\).*--force creates it anyway" \
		tierctl create f --tier "$b"
	expect_status 1 "no dm-tier label|not a dm-tier member|no label" tierctl probe "$b"
	tierctl create f --tier "$b" --force >/dev/null 2>/tmp/f2.err || { cat /tmp/f2.err; fail "create --force of a second f"; }
	grep -q "'f' is also the name of a dm-tier device on" /tmp/f2.err || { cat /tmp/f2.err; fail "create --force: no warning"; }
	tierctl remove f >/dev/null
	expect_status 1 "2 dm-tier devices are named 'f' \\(uuid .*$b.*\\): none of them is activated" tierctl activate f
	expect_status 1 "2 dm-tier devices are named 'f'.*none of them is activated" tierctl activate --all
	dmsetup info f >/dev/null 2>&1 && fail "activate --all activated one of two devices named f"
	dd if=/dev/zero of="$b" bs=4096 count=1 oflag=direct conv=fsync status=none
	tierctl activate --all >/dev/null || fail "activate --all once the name is unique again"
	expect_eq "$(jfield f '["nr_tiers"]')" 2 "the first f after activate --all"
	dev_cmp /dev/mapper/f /tmp/f || fail "the first f's data after activate --all"
	tierctl remove f >/dev/null
	echo "errors and exit codes as documented"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 128M --nvmf 256M -- "$0" main
