#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh disable=SC2016,SC2154  # conditions are evaluated later; tier_eval sets mapped1, used1
# dmt: debug-kernel
# A tier lost for good. Two tiers, XFS with files on both: the "cold" files
# pinned to tier 1, the "hot" ones to tier 0. Tier 1 sits under a dm-linear
# shim; swapping in the error target makes it fail, a read marks it
# degraded. Then:
#   report    `tierctl where --lost` and `tierctl status` give exactly the
#             byte ranges that `tierctl where` put on tier 1 before the
#             failure (the cold files, whole extents)
#   refuse    evacuate-lost of tier 0, of an ok tier, without confirmation,
#             and the forget-tier message on an ok tier change nothing
#   evacuate  `tierctl evacuate-lost --yes`: the lost ranges read zeroes,
#             the hot files verify, tier 1 maps and uses nothing (the
#             extents were freed by the commit), per-tier mapped counts add
#             up, metadata rw, new files on tier 0 work, xfs_repair clean
#   again     remove; the shim maps tier 1's device back; activate: tier 1
#             is ok and empty (its label still names it; its old contents
#             are free space), the hot files verify, the cold files read
#             zeroes, xfs_repair clean
. "$(dirname "$0")/lib.sh"
DEV=lt
D=/dev/mapper/$DEV
MNT=/mnt/$DEV
EB=$((1 << 20))

tier1_state() { jfield $DEV '["tiers"][1]["state"]'; }
# A value out of a JSON document on stdin: jget '["lost"]["lost_bytes"]'.
jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print(d$1)"; }
# The extent numbers (one per word) of LIST that fall in RUNS, or not.
in_runs() { # list runs
	python3 -c '
import sys
runs = [tuple(map(int, r.split("-"))) for r in sys.argv[2].split()]
print(" ".join(x for x in sys.argv[1].split() if any(a <= int(x) <= b for a, b in runs)))
' "$1" "$2"
}

# The 1 MiB extents of the device on TIER, per `tierctl where --json` on
# stdin, as sorted "first-last" runs of extent numbers.
where_runs() { # tier
	python3 -c '
import json, sys
eb, tier = int(sys.argv[1]), int(sys.argv[2])
d = json.load(sys.stdin)
ext = set()
for f in d["files"]:
    for e in f["extents"]:
        if e["tier"] == tier:
            ext.update(range(e["device_offset"] // eb, (e["device_offset"] + e["length"] - 1) // eb + 1))
runs, prev = [], None
for x in sorted(ext):
    if runs and x == runs[-1][1] + 1:
        runs[-1][1] = x
    else:
        runs.append([x, x])
print(" ".join(f"{a}-{b}" for a, b in runs))
' $EB "$1"
}

# The same runs from `tierctl where --lost --json` (or the "lost" object
# of `tierctl status --json`) on stdin; fails unless every range is on
# tier 1 and extent-aligned (the device size is a multiple of 1 MiB).
lost_runs() { # [key]
	python3 -c '
import json, sys
eb = int(sys.argv[1])
d = json.load(sys.stdin)
if len(sys.argv) > 2:
    d = d[sys.argv[2]]
out = []
for r in d["lost_ranges"]:
    assert r["tier"] == 1, r
    assert r["device_offset"] % eb == 0 and r["length"] % eb == 0, r
    a, n = r["device_offset"], r["length"]
    out.append(f"{a // eb}-{(a + n) // eb - 1}")
total = sum(r["length"] for r in d["lost_ranges"])
assert total == d["lost_bytes"], (total, d["lost_bytes"])
print(" ".join(out))
' $EB "$@"
}

# Every byte of the runs (extent numbers) reads zero from the device.
runs_read_zero() { # runs
	local r a b
	for r in $1; do
		a=${r%-*} b=${r#*-}
		cmp -n $(((b - a + 1) * EB)) <(dd if=$D bs=1M skip="$a" count=$((b - a + 1)) iflag=direct status=none) /dev/zero ||
			fail "extents $r do not read as zeroes"
	done
}

# Sum of the bytes of the runs.
runs_bytes() { # runs
	local r a b n=0
	for r in $1; do a=${r%-*} b=${r#*-}; n=$((n + (b - a + 1) * EB)); done
	echo $n
}

# The runs of files' extents (where --json of PATH...), any tier.
file_runs() { # path...
	tierctl where $DEV "$@" --json | python3 -c '
import json, sys
eb = int(sys.argv[1])
d = json.load(sys.stdin)
ext = set()
for f in d["files"]:
    for e in f["extents"]:
        ext.update(range(e["device_offset"] // eb, (e["device_offset"] + e["length"] - 1) // eb + 1))
print(" ".join(str(x) for x in sorted(ext)))
' $EB
}

cold_is_zero() {
	local f
	for f in "$MNT"/d/c*; do
		cmp -s "$f" <(head -c "$(stat -c %s "$f")" /dev/zero) || fail "$1: $f does not read as zeroes"
	done
}

guest_main() {
	local size before lost st out rc hot_ext cold_ext x
	dmsetup create t1L --table "0 $(blockdev --getsz "$DMT_NVME1") linear $DMT_NVME1 0"
	tierctl create $DEV --tier "$DMT_NVME0" --tier /dev/mapper/t1L --extent-size 1M >/dev/null
	tier_set $DEV auto_migrate 0
	size=$(blockdev --getsize64 $D)
	# Stripe unit = one extent: files' large allocations start on extent
	# boundaries, so the cold files own their extents.
	mkfs.xfs -q -f -d su=1m,sw=1 $D
	mkdir -p $MNT
	mount $D $MNT
	# Hot and cold files side by side in one directory (one allocation
	# group), so that the cold ones make separate ranges.
	mkdir $MNT/d
	for x in 1 2 3; do
		rand_bytes 3M >$MNT/d/h$x
		sync -f $MNT
		rand_bytes 4M >$MNT/d/c$x
		sync -f $MNT
	done
	(cd $MNT/d && sha256sum h*) >/tmp/sums.hot
	tierctl pin $DEV $MNT/d/c* --tier 1 >/dev/null || fail "pin cold to tier 1"
	tier_wait $DEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ]' || fail "pin to tier 1 not done: $(tier_summary $DEV)"
	# Extents the hot files share with cold ones go back to tier 0.
	tierctl pin $DEV $MNT/d/h* --tier 0 >/dev/null || fail "pin hot to tier 0"
	tier_wait $DEV 60 '[ $manual_pending = 0 ] && [ $in_flight = 0 ]' || fail "pin to tier 0 not done: $(tier_summary $DEV)"
	before=$(tierctl where $DEV --range "0:$size" --json | where_runs 1)
	[ -n "$before" ] || fail "nothing on tier 1 after the pin: $(tier_summary $DEV)"
	[[ $before == *" "* ]] || echo "note: the cold files make one range only ($before)"
	hot_ext=$(file_runs $MNT/d/h*)
	cold_ext=$(file_runs $MNT/d/c*)
	x=$(in_runs "$hot_ext" "$before")
	[ -z "$x" ] || fail "hot files' extents $x are on tier 1 (tier 1: $before)"
	x=$(in_runs "$cold_ext" "$before")
	[ "$x" = "$cold_ext" ] || fail "cold files' extents $cold_ext are not all on tier 1 ($before): they share extents with hot files"
	echo "before: tier 1 holds extents $before; cold files on extents $cold_ext, hot on $hot_ext"
	tier_sane $DEV "before"

	# ---- refuse (tier 1 still ok)
	expect_status 0 "every tier is ok" tierctl where --lost $DEV
	expect_eq "$(tierctl status $DEV --json | jget '["lost"]')" None "status lost with every tier ok"
	expect_status 1 "tier 1 of $DEV is ok" tierctl evacuate-lost $DEV 1 --yes
	expect_status 1 "tier 0 holds the metadata" tierctl evacuate-lost $DEV 0 --yes
	rc=$(status_of tier_msg $DEV forget-tier 1)
	expect_eq "$rc" 22 "forget-tier on an ok tier"
	expect_eq "$(tier_mapped $DEV 1)" "$(($(runs_bytes "$before") / EB))" "tier 1 mapped after the refusals"

	# ---- the failure
	shim_error t1L "$DMT_NVME1"
	echo 3 >/proc/sys/vm/drop_caches
	cat $MNT/d/c1 >/dev/null 2>&1 && fail "a cold file reads although tier 1 fails"
	wait_for 10 '[ "$(tier1_state)" = degraded ]' || fail "tier 1 is $(tier1_state) after a failed read"
	echo "failure: tier 1 on dm-error, degraded"

	# ---- report
	lost=$(tierctl where --lost $DEV --json | lost_runs) || fail "where --lost JSON"
	expect_eq "$lost" "$before" "where --lost vs where before the failure"
	tierctl where --lost $DEV | sed 's/^/  /'
	st=$(tierctl status $DEV --json | lost_runs lost) || fail "status lost JSON"
	expect_eq "$st" "$before" "status lost vs where before the failure"
	expect_eq "$(tierctl status $DEV --json | jget '["lost"]["lost_bytes"]')" "$(runs_bytes "$before")" "status lost_bytes"
	tierctl status $DEV | grep -q "tier 1 is degraded" || { tierctl status $DEV; fail "status text does not name the lost tier"; }
	echo "report: where --lost and status give extents $lost"

	# ---- refuse without confirmation
	expect_status 1 "not confirmed" tierctl evacuate-lost $DEV 1 <<<"no"
	expect_eq "$(tierctl where --lost $DEV --json | lost_runs)" "$before" "lost ranges after an unconfirmed evacuate"

	# ---- evacuate
	out=$(tierctl evacuate-lost $DEV 1 --yes --json) || fail "evacuate-lost failed"
	echo "evacuate: $out"
	expect_eq "$(jget '["forgotten_extents"]' <<<"$out")" "$(($(runs_bytes "$before") / EB))" "extents forgotten"
	expect_eq "$(jget '["lost_bytes"]' <<<"$out")" "$(runs_bytes "$before")" "bytes evacuated"
	expect_eq "$(tierctl where --lost $DEV --json | jget '["lost_bytes"]')" 0 "lost bytes after evacuate"
	tier_eval $DEV
	expect_eq "$mapped1" 0 "tier 1 mapped after evacuate"
	expect_eq "$used1" 0 "tier 1 used after evacuate (freed by the commit)"
	tier_sane $DEV "after evacuate"
	runs_read_zero "$before"
	echo 3 >/proc/sys/vm/drop_caches
	check_files $MNT/d /tmp/sums.hot
	cold_is_zero "after evacuate"
	# Tier 0 use as usual.
	rand_bytes 5M >$MNT/d/new
	sync -f $MNT
	(cd $MNT/d && sha256sum h* new) >/tmp/sums.hot
	echo 3 >/proc/sys/vm/drop_caches
	check_files $MNT/d /tmp/sums.hot
	tier_eval $DEV
	expect_eq "$mapped1" 0 "tier 1 mapped after new writes"
	tier_sane $DEV "after new writes"
	umount $MNT
	xfs_repair -n $D >/tmp/repair.log 2>&1 || { cat /tmp/repair.log; fail "xfs_repair -n after evacuate"; }
	no_kernel_warning "evacuate"
	echo "evacuate: lost ranges read zeroes, hot files verify, tier 1 empty, xfs clean"

	# ---- again: remove, the device back, activate
	tierctl remove $DEV
	shim_linear t1L "$DMT_NVME1"
	tierctl activate $DEV >/dev/null || fail "activate after evacuate"
	expect_eq "$(tier1_state)" ok "tier 1 after activation"
	tier_eval $DEV
	expect_eq "$mapped1" 0 "tier 1 mapped after activation"
	expect_eq "$used1" 0 "tier 1 used after activation"
	tier_sane $DEV "after activation"
	runs_read_zero "$before"
	mount $D $MNT
	check_files $MNT/d /tmp/sums.hot
	cold_is_zero "after activation"
	umount $MNT
	xfs_repair -n $D >/tmp/repair.log 2>&1 || { cat /tmp/repair.log; fail "xfs_repair -n after activation"; }
	tierctl remove $DEV
	no_kernel_warning "end"
	echo "lost tier: reported exactly, evacuated on confirmation, the rest verifies, survives remove/activate"
}
run_guest_phase "$@"

vm --fresh --nvme 256M --nvme 512M --timeout 600 -- "$0" main
