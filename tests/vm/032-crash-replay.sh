#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source=tests/vm/lib.sh disable=SC2154,SC2015  # status variables come from tier_eval
# Every crash state, enumerated: both tiers are dm-linear slices of ONE
# dm-log-writes device, so one log holds every write of the tier in the order
# it reached stable media (dm-log-writes logs writes only when a later flush
# completes: the worst case a power cut allows). The workload is XFS on a
# dm-tier device of 1 MiB extents, 64 MiB hot + 448 MiB cold:
#   * ckpt bursts (O_DIRECT, io_uring, fsync of each file and the directory)
#     and small files written with dd conv=fsync,
#   * watermarks 30/15 so that background demotion runs, and migrate
#     messages ping-ponging the first 32 extents between the tiers,
#   * rm + fstrim of older bursts (discards reach the tier and the log).
# After each file is durable, a named mark goes into the log ("ok_NAME");
# before a file is removed, "rm_NAME". Then the log is replayed with our own
# build/user/dmt-logreplay onto a spare drive, incrementally, to each
# FLUSH/FUA entry. At each such crash state, on a throwaway dm-snapshot of the
# replayed drive: the hot and cold slices are rebuilt as linears, the tier is
# activated with its table (metadata valid), its status sane (rw, per-tier
# mapped adds up), used = mapped on every tier, XFS mounts (log recovery),
# every file whose ok_ mark precedes the state (and no rm_ mark) verifies,
# and xfs_repair -n is clean. Any failure is a violation; the test needs 0.
#
# DMT_CRASH_STATES=short (default, `make check`): a short workload and 14 of
# its crash states, evenly spread (30 in `make check-long`). DMT_CRASH_STATES=all (`make
# check-crash`): a longer workload, at least 200 FLUSH/FUA entries (else the
# test fails), every one of them checked. DMT_CRASH_BURSTS overrides the
# number of bursts. Consecutive FLUSH/FUA entries with no write, discard or
# mark between them are the same crash state: checked once, counted as
# covered. In both variants a self-check first proves that the checker
# reports broken states: a file whose mark comes after the state, a tier
# label overwritten, an XFS superblock overwritten: each must be reported.
. "$(dirname "$0")/lib.sh"
MODE=${DMT_CRASH_STATES:-short}
case $MODE in
short) BURSTS=${DMT_CRASH_BURSTS:-10} SAMPLE=${DMT_CRASH_SAMPLE:-$(long_or_short 30 14)} ;;
all) BURSTS=${DMT_CRASH_BURSTS:-24} SAMPLE=0 ;;
*) echo "DMT_CRASH_STATES must be short or all, not '$MODE'" >&2; exit 2 ;;
esac
DEV=cr
D=/dev/mapper/$DEV
MNT=/mnt/cr
HOT=$((64 << 11)) # sectors
LRB=$TOP/build/user/dmt-logreplay
CKPT=$TOP/build/user/ckpt
ST=/tmp/state
OUT=/dmt-out

mark() { dmsetup message lw 0 mark "$1"; }

burst() { # i
	"$CKPT" write "$MNT/c$1" --files 2 --size 1M --bs 256K --seed "$1" --prefix c >/dev/null ||
		fail "ckpt write burst $1"
	mark "ok_c$1"
}

small() { # i
	dd if=<(rand_bytes) iflag=fullblock of="$MNT/s$1" bs=16k count=4 conv=fsync status=none || fail "dd s$1"
	(cd $MNT && sha256sum "s$1") >"$ST/s$1.sum"
	mark "ok_s$1"
}

guest_main() {
	local i to=1 size span list=$ST/list
	modprobe dm-log-writes
	modprobe dm-snapshot
	mkdir -p $MNT $ST /mnt/r
	local DATA=$DMT_NVME0 LOG=$DMT_NVME1
	local S
	S=$(blockdev --getsz "$DATA")
	dd if=/dev/zero of="$LOG" bs=1M count=4 oflag=direct status=none
	dmsetup create lw --table "0 $S log-writes $DATA $LOG"
	dmsetup create hotL --table "0 $HOT linear /dev/mapper/lw 0"
	dmsetup create coldL --table "0 $((S - HOT)) linear /dev/mapper/lw $HOT"
	local t0
	t0=$(now_ms)
	tierctl create $DEV --tier /dev/mapper/hotL --tier /dev/mapper/coldL --extent-size 1M >/dev/null
	# The table with the devices as major:minor; the replay swaps them.
	dmsetup table $DEV >$ST/table
	echo "$(dmsetup info -c --noheadings -o major,minor hotL) $(dmsetup info -c --noheadings -o major,minor coldL)" >$ST/devs
	mark tier_ok
	mkfs.xfs -q $D
	mark fs_ok
	mount $D $MNT
	tier_set_wm $DEV 30 15
	tier_set $DEV promote_hits 2
	size=$(blockdev --getsz $D)
	span=$((32 * 2048))
	for i in $(seq "$BURSTS"); do
		burst "$i"
		[ $((i % 3)) != 0 ] || small "$i"
		if [ $((i % 4)) = 0 ] && [ "$i" -gt 4 ]; then
			mark "rm_c$((i - 4))"
			rm -rf "$MNT/c$((i - 4))"
			fstrim $MNT
		fi
		if [ $((i % 5)) = 0 ]; then
			# EBUSY while the previous request runs: fine, the next one goes.
			[ "$(status_of tier_msg $DEV migrate 0 $span $to)" != 0 ] || to=$((1 - to))
		fi
		[ $((i % 7)) != 0 ] || sync
	done
	echo "workload: $BURSTS bursts in $(fmt_ms $(($(now_ms) - t0))) s: $(tier_summary $DEV)"
	[ "$size" -gt $span ] || fail "device of $size sectors"
	umount $MNT
	tier_set $DEV auto_migrate 0
	tier_wait $DEV 60 "[ \$in_flight = 0 ] && [ \$manual_pending = 0 ]" ||
		fail "migrations do not stop: $(tier_summary $DEV)"
	dmsetup remove --retry $DEV
	dmsetup remove --retry hotL
	dmsetup remove --retry coldL
	dmsetup remove --retry lw # its last mark updates the super: it counts every entry
	"$LRB" info "$LOG"
	"$LRB" list "$LOG" >$list || fail "dmt-logreplay list failed (status $?)"
	replay_all "$LOG" "$DMT_NVME2" "$DMT_NVME3" "$S"
}

# ---- the checker -------------------------------------------------------------

# Build the throwaway state: snapshot of REPLAY (COW on COWDEV), hot/cold
# linears over it, the tier table with its devices swapped.
state_up() { # replay cowdev sectors
	dmsetup create snap --table "0 $3 snapshot $1 $2 N 8" || return 1
	dmsetup create rhot --table "0 $HOT linear /dev/mapper/snap 0" || return 1
	dmsetup create rcold --table "0 $(($3 - HOT)) linear /dev/mapper/snap $HOT" || return 1
}

state_down() {
	umount /mnt/r 2>/dev/null || true
	local d
	for d in rt rhot rcold snap; do
		dmsetup remove --retry "$d" 2>/dev/null || true
	done
	! dmsetup info snap >/dev/null 2>&1 || fail "cannot tear down the snapshot of a crash state"
}

# The table of the logged tier over rhot/rcold, auto_migrate 0 added so that
# nothing moves while the state is checked.
replay_table() {
	local oh oc nh nc
	read -r oh oc <$ST/devs
	nh=$(dmsetup info -c --noheadings -o major,minor rhot)
	nc=$(dmsetup info -c --noheadings -o major,minor rcold)
	awk -v oh="$oh" -v oc="$oc" -v nh="$nh" -v nc="$nc" '{
		n = $5; out = $1 " " $2 " " $3 " " $4 " " n
		for (i = 6; i < 6 + n; i++) out = out " " ($i == oh ? nh : $i == oc ? nc : $i)
		k = (NF >= 6 + n) ? $(6 + n) : 0
		out = out " " (k + 2)
		for (i = 7 + n; i <= NF; i++) out = out " " $i
		print out " auto_migrate 0"
	}' $ST/table
}

# Check the state: prints the violations (one line each) on stdout and
# returns their number (0 = sound). EXPECT: files that must verify; FS: 1 when
# the filesystem exists.
check_state() { # label fs expect...
	local label=$1 fs=$2 v=0 f i
	shift 2
	if ! dmsetup create rt --table "$(replay_table)" 2>/tmp/act.err; then
		echo "$label: tier activation refused: $(tr '\n' ' ' </tmp/act.err)"
		return 1
	fi
	if ! (tier_sane rt "$label") 2>/tmp/sane.err; then
		echo "$label: status not sane: $(cat /tmp/sane.err)"
		v=$((v + 1))
	fi
	tier_eval rt
	for ((i = 0; i < nr_tiers; i++)); do
		[ "$(eval echo "\$used$i")" = "$(eval echo "\$mapped$i")" ] ||
			{ echo "$label: tier $i uses $(eval echo "\$used$i") extents, maps $(eval echo "\$mapped$i")"; v=$((v + 1)); }
	done
	[ "$fs" = 1 ] || return $v
	if ! mount /dev/mapper/rt /mnt/r 2>/tmp/mnt.err; then
		echo "$label: XFS does not mount: $(tr '\n' ' ' </tmp/mnt.err)"
		return $((v + 1))
	fi
	for f in "$@"; do
		case $f in
		c*) "$CKPT" verify "/mnt/r/$f" --files 2 --size 1M --seed "${f#c}" --prefix c >/dev/null 2>/tmp/ver.err ||
			{ echo "$label: $f (fsynced before this state) does not verify: $(tail -n 2 /tmp/ver.err | tr '\n' ' ')"; v=$((v + 1)); } ;;
		s*) (cd /mnt/r && sha256sum --quiet -c "$ST/$f.sum") >/tmp/ver.err 2>&1 ||
			{ echo "$label: $f (fsynced before this state) differs: $(tr '\n' ' ' </tmp/ver.err)"; v=$((v + 1)); } ;;
		esac
	done
	umount /mnt/r || { echo "$label: umount failed"; return $((v + 1)); }
	if ! xfs_repair -n /dev/mapper/rt >/tmp/repair.log 2>&1; then
		echo "$label: xfs_repair -n finds problems: $(grep -v '^ *-\|^Phase\|^No modify' /tmp/repair.log | head -n 3 | tr '\n' ' ')"
		v=$((v + 1))
	fi
	return $v
}

# One crash state: set up, check (with an optional sabotage), tear down.
# Prints violations; returns their number.
one_state() { # replay cow sectors label fs sabotage expect...
	local r=0 rep=$1 cow=$2 sz=$3 label=$4 fs=$5 sab=$6
	shift 6
	state_up "$rep" "$cow" "$sz" || { state_down; echo "$label: cannot build the snapshot"; return 1; }
	case $sab in
	label) dd if=<(rand_bytes) iflag=fullblock of=/dev/mapper/rhot bs=4k count=1 oflag=direct status=none ;;
	esac
	if [ "$sab" = xfs ]; then
		# The XFS superblock is block 0 of the tier device: overwrite it
		# through the activated tier, then check from a fresh activation.
		dmsetup create rt --table "$(replay_table)" >/dev/null 2>&1 || { state_down; echo "$label: sabotage setup failed"; return 1; }
		dd if=/dev/zero of=/dev/mapper/rt bs=4k count=1 oflag=direct conv=fsync status=none
		dmsetup remove --retry rt
	fi
	check_state "$label" "$fs" "$@" || r=$?
	state_down
	return $r
}

# Files that must verify at a state: every ok_ mark seen, less rm_'d ones.
expected_files() {
	local f
	for f in "${!okd[@]}"; do
		[ -n "${rmd[$f]:-}" ] || echo "$f"
	done | sort -V
}

replay_all() { # log replay cow sectors
	local log=$1 rep=$2 cow=$3 sz=$4
	local idx flags nr name pos=0@1 line
	local tier_ok=0 fs_ok=0 dirty=0 total=0 points=0 dup=0 checked=0 viol=0 out
	declare -gA okd=() rmd=()
	local -a cand=()
	local t0
	t0=$(now_ms)
	# Candidate states: FLUSH/FUA entries after the tier exists, with a
	# write, discard or mark since the previous one.
	while read -r idx _ flags _ nr name; do
		total=$((total + 1))
		case $flags in
		*MARK*)
			case $name in tier_ok) tier_ok=1 ;; esac
			dirty=1
			continue ;;
		*FLUSH* | *FUA*) ;;
		*) dirty=1; continue ;;
		esac
		[ $tier_ok = 1 ] || continue
		points=$((points + 1))
		# A FUA write is itself a write: a new state.
		if [ $dirty = 1 ] || [ "$nr" != 0 ]; then
			cand+=("$idx")
			dirty=0
		else
			dup=$((dup + 1))
		fi
	done <$ST/list
	echo "log: $total entries, $points FLUSH/FUA entries after the tier was created, ${#cand[@]} distinct crash states ($dup repeat the state before them)"
	if [ "$MODE" = all ] && [ "$points" -lt 200 ]; then
		fail "only $points FLUSH/FUA entries; the long variant needs at least 200 (raise DMT_CRASH_BURSTS)"
	fi
	# Which candidates to check.
	local -A pick=()
	local n=${#cand[@]} k step
	if [ "$SAMPLE" = 0 ] || [ "$n" -le "$SAMPLE" ]; then
		for k in "${cand[@]}"; do pick[$k]=1; done
	else
		step=$(((n + SAMPLE - 1) / SAMPLE))
		for ((k = 0; k < n; k += step)); do pick[${cand[$k]}]=1; done
		pick[${cand[$((n - 1))]}]=1
	fi
	echo "checking ${#pick[@]} of ${#cand[@]} crash states ($MODE)"

	tier_ok=0
	local selfchecked=0
	while read -r idx _ flags _ nr name; do
		case $flags in
		*MARK*)
			case $name in
			tier_ok) tier_ok=1 ;;
			fs_ok) fs_ok=1 ;;
			ok_*) okd[${name#ok_}]=1 ;;
			rm_*) rmd[${name#rm_}]=1 ;;
			esac
			continue ;;
		esac
		[ -n "${pick[$idx]:-}" ] || continue
		line=$("$LRB" replay "$log" "$rep" --from "$pos" --to "$idx") ||
			fail "dmt-logreplay replay --from $pos --to $idx failed"
		pos=${line#next }
		# shellcheck disable=SC2046
		out=$(one_state "$rep" "$cow" "$sz" "entry $idx ($flags)" $fs_ok none $(expected_files)) || {
			viol=$((viol + $?))
			echo "$out" | tee -a $OUT/violations
		}
		checked=$((checked + 1))
		if [ $fs_ok = 1 ] && [ $selfchecked = 0 ] && [ ${#okd[@]} -gt 0 ]; then
			selfcheck "$rep" "$cow" "$sz" "$idx"
			selfchecked=1
		fi
		[ $((checked % 10)) != 0 ] || echo "  $checked states checked, up to entry $idx, $viol violations, $(fmt_ms $(($(now_ms) - t0))) s"
	done <$ST/list
	[ $selfchecked = 1 ] || fail "no state with a filesystem and a durable file: the self-check did not run"
	echo "crash states checked: $checked of ${#cand[@]} distinct ($points FLUSH/FUA entries, $dup duplicates), violations: $viol, $(fmt_ms $(($(now_ms) - t0))) s"
	echo "$checked $viol ${#cand[@]} $points" >$OUT/crash-states
	[ "$viol" = 0 ] || fail "$viol violations in $checked crash states (above, and in $OUT/violations)"
}

# The checker must be able to fail: three broken states, each reported.
selfcheck() { # replay cow sectors idx
	local out rc last
	last=$(awk '$3 ~ /MARK/ && $6 ~ /^ok_c/ { n = $6 } END { sub(/^ok_/, "", n); print n }' $ST/list)
	[ -n "${okd[$last]:-}" ] && fail "self-check: $last is already durable at entry $4"
	rc=0
	# shellcheck disable=SC2046
	out=$(one_state "$1" "$2" "$3" "self-check, entry $4, expecting $last (fsynced later)" 1 none $(expected_files) "$last") || rc=$?
	[ $rc -ge 1 ] && grep -q "$last.*does not verify" <<<"$out" ||
		fail "self-check: a file whose mark comes after the state was not reported (status $rc: $out)"
	echo "self-check: reported: $out"
	rc=0
	out=$(one_state "$1" "$2" "$3" "self-check, entry $4, tier label overwritten" 1 label) || rc=$?
	[ $rc -ge 1 ] && grep -q "activation refused" <<<"$out" ||
		fail "self-check: an overwritten tier label was not reported (status $rc: $out)"
	echo "self-check: reported: $out"
	rc=0
	out=$(one_state "$1" "$2" "$3" "self-check, entry $4, XFS superblock zeroed" 1 xfs) || rc=$?
	[ $rc -ge 1 ] || fail "self-check: a zeroed XFS superblock was not reported ($out)"
	echo "self-check: reported: $out"
}

run_guest_phase "$@"
if [ "$MODE" = all ]; then
	vm --fresh --timeout 14400 --nvme 512M --nvme 3G --nvme 512M --nvme 256M -- "$0" main
else
	vm --fresh --timeout 1100 --nvme 512M --nvme 2G --nvme 512M --nvme 256M -- "$0" main
fi
