#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh
# Who may do what over netlink, which device a name means, and the smaller
# contracts of the target (issue 13, defects 6, 7 and 8). One boot, three
# NVMe drives, single-tier devices of 64 KiB extents:
#   perm     as nobody with no capabilities, and as root with CAP_NET_ADMIN
#            only: policy-set, migrate, pin, unpin, tier-recover and
#            extent-dump get EPERM, so does joining the monitor group;
#            dev-get and policy-get work (nlfuzz perm)
#   rename   A renamed to X, then B renamed to A, no resume: a request for
#            X acts on the first device, one for A on the second, one for B
#            finds nothing
#   alias    two mapped devices loaded over the same tier device before
#            either resumes: the second load is refused with a clear
#            message; so is one table with two tier targets over it; a
#            device loaded but never resumed is not found by netlink
#   commit   `dmsetup message DEV 0 commit` while new extents are mapped
#            all the time: every one succeeds
#   ima      with ima_policy=critical_data, the dm_table_load measurement
#            carries the target's IMA status (name, version, settings)
. "$(dirname "$0")/lib.sh"
NLFUZZ=$TOP/build/vm/$TEST_NAME/nlfuzz # per test: tests run side by side

# A tier setting over netlink, as tierctl reads it: "key=value".
pol() { tierctl policy "$1" "$2"; }

step_perm() {
	local dev=pm
	tierctl create $dev --tier "$DMT_NVME0" --extent-size 64K >/dev/null || fail "create $dev"
	dd if=<(rand_bytes) iflag=fullblock of=/dev/mapper/$dev bs=1M count=2 oflag=direct status=none
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$NLFUZZ" perm "$dev" || fail "perm: as nobody, permissions not as expected"
	setpriv --bounding-set=-all,+net_admin --inh-caps=-all,+net_admin \
		"$NLFUZZ" perm "$dev" || fail "perm: with CAP_NET_ADMIN only, permissions not as expected"
	# Root still may (nlfuzz ops covers each operation in test 041).
	tierctl where "$dev" --range 0:1M >/dev/null || fail "perm: root cannot dump extents"
	echo "perm: nobody and CAP_NET_ADMIN-only callers refused, root allowed"
	tierctl remove $dev >/dev/null || fail "remove $dev"
}

step_rename() {
	local rc
	tierctl create na --tier "$DMT_NVME0" --extent-size 64K --force >/dev/null || fail "create na"
	tierctl create nb --tier "$DMT_NVME1" --extent-size 64K --force >/dev/null || fail "create nb"
	dmsetup rename na nx || fail "rename na nx"
	dmsetup rename nb na || fail "rename nb na"
	# No resume since: the names must be resolved at request time.
	tierctl policy nx high_watermark=71 >/dev/null || fail "rename: policy-set of nx failed"
	tierctl policy na high_watermark=72 >/dev/null || fail "rename: policy-set of na failed"
	[[ $(dmsetup table nx) == *"high_watermark 71"* ]] ||
		fail "rename: a request for nx did not reach nx: nx: $(dmsetup table nx); na: $(dmsetup table na)"
	[[ $(dmsetup table na) == *"high_watermark 72"* ]] ||
		fail "rename: a request for na did not reach the device now called na: nx: $(dmsetup table nx); na: $(dmsetup table na)"
	expect_eq "$(pol nx high_watermark)" "high_watermark=71" "rename: policy-get of nx"
	rc=0
	tierctl policy nb high_watermark >/tmp/nb.out 2>&1 || rc=$?
	[ "$rc" != 0 ] || fail "rename: the old name nb still finds a device: $(cat /tmp/nb.out)"
	tierctl list 2>/dev/null | grep -qw nb && fail "rename: list shows nb: $(tierctl list)"
	echo "rename: requests follow dmsetup rename at once; the old name finds nothing"
	tierctl remove nx >/dev/null || fail "remove nx"
	tierctl remove na >/dev/null || fail "remove na"
}

step_alias() {
	local tbl sz half rc
	tierctl create al --tier "$DMT_NVME2" --extent-size 64K --force >/dev/null || fail "create al"
	tbl=$(dmsetup table al)
	dmsetup remove --retry al || fail "remove al"
	sz=$(awk '{ print $2 }' <<<"$tbl")
	half=$((sz / 2))
	dmsetup create a1 --notable || fail "create a1"
	dmsetup create a2 --notable || fail "create a2"
	dmsetup load a1 --table "$tbl" || fail "alias: the first load failed"
	# Loaded, never resumed: no live table, netlink does not find it.
	rc=0
	tierctl policy a1 high_watermark >/tmp/a1.out 2>&1 || rc=$?
	[ "$rc" != 0 ] || fail "alias: a device with no live table was found: $(cat /tmp/a1.out)"
	dmesg -C
	rc=0
	dmsetup load a2 --table "$tbl" 2>/tmp/a2.err || rc=$?
	[ "$rc" != 0 ] || fail "alias: a second mapped device loaded over the same tier device"
	klog_has "already used by another mapped device" ||
		fail "alias: no clear message for the second device: $(dmesg | tail -3)"
	dmesg | grep "tier:" | tail -1 | sed 's/^/  said: /'
	dmsetup resume a1 || fail "alias: resume a1"
	expect_eq "$(pol a1 high_watermark)" "high_watermark=80" "alias: a1 after resume"
	# A reload of the same device over the same tier device is fine.
	dmsetup load a1 --table "$tbl" || fail "alias: a reload of a1 was refused"
	dmsetup clear a1
	dmsetup remove --retry a1 a2 || fail "remove a1 a2"
	dmsetup create a3 --notable || fail "create a3"
	dmesg -C
	rc=0
	printf '0 %s %s\n%s %s %s\n' "$half" "${tbl#* * }" "$half" "$half" "${tbl#* * }" |
		dmsetup load a3 2>/tmp/a3.err || rc=$?
	[ "$rc" != 0 ] || fail "alias: one table with two tier targets over one device loaded"
	klog_has "used by two targets of this table" ||
		fail "alias: no clear message for two targets: $(dmesg | tail -3)"
	dmesg | grep "tier:" | tail -1 | sed 's/^/  said: /'
	dmsetup remove --retry a3 || fail "remove a3"
	echo "alias: a second device or a second target over one tier device refused at load"
}

step_commit() {
	local d=/dev/mapper/cm i rc fails=0 n=60
	: >/tmp/cm.err
	tierctl create cm --tier "$DMT_NVME0" --extent-size 64K --force >/dev/null || fail "create cm"
	# New extents all the time: 4 KiB into every 64 KiB extent, then
	# discard them all and start again.
	python3 - $d <<'PY' &
import mmap, os, subprocess, sys
buf = mmap.mmap(-1, 4096)
buf.write(os.urandom(4096))
while not os.path.exists("/tmp/cm.stop"):
    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_DIRECT)
    for off in range(0, 48 << 20, 64 << 10):
        os.pwritev(fd, [buf], off)
    os.close(fd)
    subprocess.run(["blkdiscard", sys.argv[1]], check=False)
PY
	sleep 1
	for i in $(seq $n); do
		rc=0
		dmsetup message cm 0 commit 2>/tmp/cm.err1 || rc=$?
		# Keep every failure's message (errno), not only the last call's.
		[ "$rc" = 0 ] || { fails=$((fails + 1)); cat /tmp/cm.err1 >>/tmp/cm.err; }
	done
	touch /tmp/cm.stop
	wait
	[ "$fails" = 0 ] || fail "commit: $fails of $n commit messages failed under a workload that maps new extents ($(cat /tmp/cm.err))"
	echo "commit: $n commit messages under new mappings, all succeeded ($(tier_summary cm))"
	tierctl remove cm >/dev/null || fail "remove cm"
}

step_ima() {
	local log=/sys/kernel/security/ima/ascii_runtime_measurements found
	mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security
	[ -r $log ] || fail "no IMA measurement log at $log"
	tierctl create im --tier "$DMT_NVME1" --extent-size 64K --force >/dev/null || fail "create im"
	# ima-buf: the last field is the measured buffer in hex.
	found=$(python3 - $log <<'PY'
import sys
last = ""
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 6 and f[4].startswith("dm_table_load"):
        buf = bytes.fromhex(f[5]).decode(errors="replace")
        if "target_name=tier," in buf:
            last = buf
print(last)
PY
)
	[ -n "$found" ] || fail "ima: no dm_table_load measurement with the tier target's status: $(awk '{ print $5 }' $log | sort | uniq -c | tr -s ' \n' ' ')"
	echo "ima: ${found##*target_name=tier,}" | cut -c1-400
	for k in target_version= extent_sectors=128 nr_tiers=1 tier_0= commit_interval_ms= \
		reserve_pct= discard_passdown= metadata_mode=rw; do
		[[ $found == *"$k"* ]] || fail "ima: '$k' missing: $found"
	done
	tierctl remove im >/dev/null || fail "remove im"
}

# Each step in a subshell, devices cleared after it: one failing step does
# not hide what the others find (DMT_STEPS picks some).
guest_main() {
	local step failed=()
	for step in ${DMT_STEPS:-perm rename alias commit ima}; do
		echo "--- $step"
		(step_"$step") || failed+=("$step")
		dmsetup remove_all >/dev/null 2>&1 || true
	done
	[ ${#failed[@]} = 0 ] || fail "steps failed: ${failed[*]}"
	echo "names, permissions, commit and IMA: as expected"
}
run_guest_phase "$@"

mkdir -p "${NLFUZZ%/*}"
gcc -O2 -Wall -Wextra -Werror -o "$NLFUZZ" "$TOP/tests/vm/helpers/nlfuzz.c" ||
	fail "cannot build nlfuzz"
vm --fresh --nvme 64M --nvme 64M --nvme 64M --append ima_policy=critical_data \
	--timeout 600 -- "$0" main
