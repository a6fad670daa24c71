# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154  # tier_stats variables come from eval
# Shared helpers of the VM tests. A test is a host script that boots the bench
# with tools/vm-run and runs parts of itself in the guest:
#     . "$(dirname "$0")/lib.sh"
#     guest_main() { ...runs in the VM... }
#     run_guest_phase "$@"          # dispatches to guest_$1 inside the VM
#     vm --fresh --nvme 64M -- "$0" main
# Exit 0 = pass, 77 = skip, anything else = fail.
set -euo pipefail
# (Parameter expansions, not dirname/basename: see sleep() below.)
TOP=${BASH_SOURCE[0]%/*}
[ "$TOP" != "${BASH_SOURCE[0]}" ] || TOP=.
TOP=$(cd "$TOP/../.." && pwd)
TEST_NAME=${0##*/}
TEST_NAME=${DMT_TEST_NAME:-${TEST_NAME%.sh}}
export PATH=$TOP/build/user:$PATH

# Boot the bench for this test: images live in build/vm/$TEST_NAME, output
# lines are prefixed with the test name. Extra options pass through.
# DMT_VM_MODULE=PATH boots with that dm-tier.ko instead of building the tree's.
vm() {
	randfill_build
	"$TOP/tools/vm-run" --prefix "$TEST_NAME" --workdir "$TOP/build/vm/$TEST_NAME" \
		${DMT_VM_MODULE:+--module "$DMT_VM_MODULE"} "$@"
}

in_guest() { [ "${DMT_IN_VM:-}" = 1 ]; }

# sleep N (seconds, no suffix) without starting a process: a read that times
# out on a pipe nobody writes to. The tests poll (wait_for, tier_wait) every
# 0.2 s for minutes, and under TCG an exec of /bin/sleep costs about 0.1 s of
# a guest that mostly has one vCPU, taken from the work being waited for.
# Anything else (1m, infinity, several arguments) goes to /bin/sleep.
sleep() {
	if [ $# = 1 ] && [[ $1 =~ ^[0-9]*\.?[0-9]+$ ]]; then
		[ -n "${DMT_NAP_FD:-}" ] || exec {DMT_NAP_FD}<> <(:)
		read -rt "$1" -u "$DMT_NAP_FD" || [ $? -gt 128 ]
	else
		command sleep "$@"
	fi
}

# Test data: rand_bytes SIZE (SIZE bytes, K/M/G suffixes) or rand_bytes
# (endless: `dd if=<(rand_bytes) iflag=fullblock bs=1M count=N`) on stdout,
# rand_bytes SIZE FILE... into files. tests/vm/helpers/randfill.c, built on
# the host (static) by vm(): the kernel's /dev/urandom runs at ~1.6 MB/s on
# the debug kernel under TCG.
RANDFILL=$TOP/build/vm/bin/randfill
rand_bytes() { "$RANDFILL" "$@"; }
randfill_build() {
	local src=$TOP/tests/vm/helpers/randfill.c dir=${RANDFILL%/*}
	[ "$RANDFILL" -nt "$src" ] && return 0
	mkdir -p "$dir"
	(
		flock 9
		[ "$RANDFILL" -nt "$src" ] ||
			{ cc -std=gnu11 -O2 -Wall -Wextra -Werror -static -o "$RANDFILL.$$" "$src" &&
				mv -f "$RANDFILL.$$" "$RANDFILL"; }
	) 9>"$dir/.lock"
}

# A value out of a JSON document on stdin: jget '["tiers"][0]["state"]',
# printed as Python prints it (True, False, None, 12, text). The argument is
# a Python expression on d; a plain path of keys and indexes to a string, an
# integer, a boolean or null goes through jq instead: in the debug guest
# under TCG Python starts in 2-3 s (its imports walk sys.path over 9p), jq
# in under 1 s.
jget() {
	local doc out path=${1#[}
	path=[${path%]}]
	path=${path//][/,}
	IFS= read -rd '' doc || : # all of stdin, without a process
	# A missing key, a non-scalar, a float or a type error: Python's turn.
	if [[ $1 =~ ^(\[(\"[A-Za-z0-9_]+\"|[0-9]+)\])+$ ]] &&
		out=$(jq -r --argjson p "$path" 'if any(paths; . == $p) then getpath($p) else error("no such key") end |
			if type == "boolean" then (if . then "True" else "False" end)
			elif type == "null" then "None"
			elif type == "string" or (type == "number" and . == floor) then .
			else error("not a plain value") end' <<<"$doc" 2>/dev/null); then
		printf '%s\n' "$out"
		return 0
	fi
	python3 -c "import json,sys; d=json.load(sys.stdin); print(d$1)" <<<"$doc"
}

# The heavy tests (power cuts, crash states, migrations) have a short
# variant that `make check` runs, within its time budget, and a long one,
# `make check-long` (DMT_VM_LONG=1). Prints LONG or SHORT accordingly.
long_or_short() { # long short
	if [ "${DMT_VM_LONG:-0}" = 1 ]; then echo "$1"; else echo "$2"; fi
}

# Inside the guest, "$0 PHASE" runs guest_PHASE and exits with its status.
run_guest_phase() {
	if in_guest; then
		local phase=${1:?phase}
		shift
		# DMT_VM_XTRACE=1: every command of the guest phase with its
		# start time, into the run directory (build/vm/TEST/run/
		# xtrace-PHASE.log), to see where a test's time goes.
		if [ "${DMT_VM_XTRACE:-0}" = 1 ]; then
			exec {BASH_XTRACEFD}>>"/dmt-out/xtrace-$phase.log"
			PS4='+ $EPOCHREALTIME ${BASH_SOURCE[0]##*/}:$LINENO '
			set -x
		fi
		"guest_$phase" "$@"
		exit $?
	fi
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

expect_eq() { # actual expected message
	[ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
}

# Run COMMAND...: it must exit WANT and say something matching the
# case-insensitive extended regex PATTERN (stdout and stderr together,
# across lines); what it said is echoed, indented.
expect_status() { # want pattern command...
	local want=$1 pat=$2 rc=0
	shift 2
	"$@" >/tmp/out 2>&1 || rc=$?
	[ "$rc" = "$want" ] || { cat /tmp/out; fail "'$*' exited $rc, expected $want"; }
	grep -qiEz "$pat" /tmp/out || { cat /tmp/out; fail "'$*' did not say /$pat/"; }
	sed 's/^/  said: /' /tmp/out
}

# The live NVMe/TCP controllers, e.g. "nvme2".
fabric_ctrls() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/transport" ] && [ "$(cat "$c/transport")" = tcp ] && basename "$c"
	done
	return 0
}

# ---- dm-tier helpers (guest side) --------------------------------------

# Field of `tierctl status NAME --json`: jfield NAME '["tiers"][1]["used_extents"]'
jfield() {
	tierctl status "$1" --json | jget "$2"
}

# Write N files of MIB MiB of random data under DIR, fsync them, and record
# their checksums in DIR/../FILE (default /dmt-out/sums).
write_files() { # dir n mib [sums]
	local dir=$1 n=$2 mib=$3 sums=${4:-/dmt-out/sums} files
	mapfile -t files < <(seq -f "$dir/f%.0f" "$n")
	rand_bytes "${mib}M" "${files[@]}"
	sync -f "$dir"
	(cd "$dir" && sha256sum f*) >"$sums"
}

check_files() { # dir [sums]
	(cd "$1" && sha256sum --quiet -c "${2:-/dmt-out/sums}") || fail "file checksums differ in $1"
}

# Exit status of a command that is expected to fail, without tripping set -e.
status_of() {
	local rc=0
	"$@" || rc=$?
	echo "$rc"
}

# ---- migration helpers (guest side) --------------------------------------
# They read `dmsetup status` directly (not tierctl), so they depend only on
# the kernel's status line:
#   <mode> <commits> <extent_sectors> <virt_extents> <mapped> <nr_tiers>
#   {<state> <total> <used> <reads> <writes>} x nr_tiers   <nospc_errors>
#   <promotions> <demotions> <moved_bytes> <in_flight> <pace> <above_high_ms>
#   <migration_errors> <manual_pending> <mapped_0> ... <mapped_{n-1}>

# The status of DEV as shell assignments, for eval "$(tier_stats DEV)":
# mode commits extent_sectors virt_extents mapped nr_tiers nospc_errors
# promotions demotions moved_bytes in_flight pace above_high_ms
# migration_errors manual_pending, and per tier i: state$i total$i used$i
# reads$i writes$i mapped$i.
tier_stats() { # dev
	local line f n p i
	line=$(dmsetup status "$1") || return 1
	# Plain bash, no awk: every exec costs about 0.3 s on the debug kernel
	# under TCG, and the tests poll this. f[k - 1] is the status's field k.
	read -ra f <<<"$line"
	n=${f[8]:-}
	[[ $n =~ ^[0-9]+$ ]] && p=$((10 + 5 * n)) && [ "${f[2]}" = tier ] && [ ${#f[@]} -ge $((p + 8 + n)) ] || {
		echo "tier_stats: $1: no migration fields in the status: $line" >&2
		return 1
	}
	printf 'mode=%s commits=%s extent_sectors=%s virt_extents=%s mapped=%s nr_tiers=%s\n' \
		"${f[3]}" "${f[4]}" "${f[5]}" "${f[6]}" "${f[7]}" "${f[8]}"
	for ((i = 0; i < n; i++)); do
		printf 'state%d=%s total%d=%s used%d=%s reads%d=%s writes%d=%s mapped%d=%s\n' \
			$i "${f[9 + 5 * i]}" $i "${f[10 + 5 * i]}" $i "${f[11 + 5 * i]}" \
			$i "${f[12 + 5 * i]}" $i "${f[13 + 5 * i]}" $i "${f[p + 8 + i]}"
	done
	printf 'nospc_errors=%s promotions=%s demotions=%s moved_bytes=%s in_flight=%s pace=%s above_high_ms=%s migration_errors=%s manual_pending=%s\n' \
		"${f[p - 1]}" "${f[p]}" "${f[p + 1]}" "${f[p + 2]}" "${f[p + 3]}" "${f[p + 4]}" "${f[p + 5]}" "${f[p + 6]}" "${f[p + 7]}"
}

# tier_stats's variables set in this shell (fails the test without a status).
tier_eval() { # dev
	local s
	s=$(tier_stats "$1") || fail "no migration status of $1"
	eval "$s"
}

# One field: tier_stat DEV FIELD [TIER], e.g. tier_stat t0 demotions,
# tier_stat t0 used 0. tier_mapped DEV TIER: extents mapped on that tier.
tier_stat() { # dev field [tier]
	local s
	s=$(tier_stats "$1") || return 1
	(eval "$s" && eval "echo \"\${$2${3-}}\"")
}
tier_mapped() { tier_stat "$1" mapped "$2"; }

# A one-line summary of the migration state, for logs.
tier_summary() { # dev
	local s
	s=$(tier_stats "$1") || return 1
	(eval "$s"
	 local i m u t out="mapped"
	 for ((i = 0; i < nr_tiers; i++)); do m=mapped$i u=used$i t=total$i; out+=" t$i=${!m}/${!u}/${!t}"; done
	 echo "$out (mapped/used/total); promotions $promotions demotions $demotions moved $((moved_bytes >> 20)) MiB in_flight $in_flight pace $pace above_high_ms $above_high_ms errors $migration_errors manual_pending $manual_pending nospc $nospc_errors")
}

# Counters that must agree whenever they are read: the per-tier mapped
# counts add up to mapped; a tier never maps more than it uses nor uses
# more than it has.
tier_sane() { # dev [where]
	local s i sum=0 m u t
	s=$(tier_stats "$1") || fail "${2:-}: no status"
	eval "$s"
	for ((i = 0; i < nr_tiers; i++)); do
		eval "m=\$mapped$i u=\$used$i t=\$total$i"
		[ "$m" -le "$u" ] || fail "${2:-}: tier $i maps $m extents but uses only $u"
		[ "$u" -le "$t" ] || fail "${2:-}: tier $i uses $u of $t extents"
		sum=$((sum + m))
	done
	[ "$sum" = "$mapped" ] || fail "${2:-}: per-tier mapped counts add up to $sum, mapped is $mapped"
	[ "$mode" = rw ] || fail "${2:-}: metadata mode $mode"
}

# `dmsetup message DEV 0 ARGS...`: prints nothing on success; the status is
# 0, 16 (EBUSY), 22 (EINVAL) or 1 (anything else, the message on stderr).
tier_msg() { # dev args...
	local dev=$1 out
	shift
	out=$(dmsetup message "$dev" 0 "$@" 2>&1) && return 0
	case $out in
	*"resource busy"*) return 16 ;;
	*"Invalid argument"*) return 22 ;;
	esac
	echo "$out" >&2
	return 1
}
tier_set() { # dev key value
	tier_msg "$1" set "$2" "$3" || fail "dmsetup message $1 0 set $2 $3 (status $?)"
}
# Watermarks in an order that is valid from any previous pair.
tier_set_wm() { # dev high low
	tier_set "$1" low_watermark 0
	tier_set "$1" high_watermark "$2"
	tier_set "$1" low_watermark "$3"
}

now_ms() {
	local t=${EPOCHREALTIME//[.,]/}
	echo $((t / 1000))
}
fmt_ms() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }

# Poll the shell CONDITION every 0.2 s until it holds (status 0) or TIMEOUT
# seconds passed (status 1).
wait_for() { # timeout_s condition
	local end=$(($(now_ms) + $1 * 1000))
	while ! eval "$2"; do
		[ "$(now_ms)" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# Run COMMAND for at most S seconds (longer is a hang: tasks dumped, fail).
bounded() { # s what command...
	local s=$1 what=$2 rc=0
	shift 2
	timeout "$s" "$@" || rc=$?
	[ "$rc" != 124 ] || { echo w >/proc/sysrq-trigger; fail "$what: not done after $s s (hang)"; }
	return "$rc"
}
# Wait for background job PID at most S seconds; returns its status.
wait_bounded() { # s what pid
	wait_for "$1" "! kill -0 $3 2>/dev/null" || { echo w >/proc/sysrq-trigger; fail "$2: not done after $1 s (hang)"; }
	wait "$3"
}

# Poll the status of DEV (as tier_stats variables, in this shell) every
# 0.2 s until the shell CONDITION holds or TIMEOUT seconds passed. WAITED_MS
# is the time taken. Status 1 on timeout.
tier_wait() { # dev timeout_s condition
	local dev=$1 limit=$(($2 * 1000)) cond=$3 s t0
	t0=$(now_ms)
	while :; do
		s=$(tier_stats "$dev") || return 2
		eval "$s"
		WAITED_MS=$(($(now_ms) - t0))
		eval "$cond" && return 0
		[ "$WAITED_MS" -lt "$limit" ] || return 1
		sleep 0.2
	done
}

# A checksum of COUNT MiB of DEV (a device or a file) from SKIP MiB on (all
# of it without COUNT), read with O_DIRECT (never the page cache) where the
# file system has it; the same checksum for the same bytes either way. No pipe carries the
# data: under TCG a pipe between two processes costs several times the read
# (48 MiB: 4.4 s on two virtual CPUs, 0.8 s on one), and sha256 three times
# md5, which suffices to tell data apart. Chunks of 32 MiB go through a
# file in /tmp (the guest's RAM).
dev_sum() { # dev [count_mib [skip_mib]]
	local dev=$1 n=${2:-} s=${3:-0} f=/tmp/.dev_sum.$$ c sums=
	if [ -z "$n" ]; then
		if [ -b "$dev" ]; then n=$(blockdev --getsize64 "$dev"); else n=$(stat -c %s "$dev"); fi
		n=$(((n + (1 << 20) - 1) >> 20))
	fi
	while [ "$n" -gt 0 ]; do
		c=$((n > 32 ? 32 : n))
		# tmpfs (a file in /tmp) has no O_DIRECT on 6.1: read it cached.
		dd if="$dev" of="$f" bs=1M skip="$s" count="$c" iflag=direct status=none 2>/dev/null ||
			dd if="$dev" of="$f" bs=1M skip="$s" count="$c" status=none || { rm -f "$f"; return 1; }
		sums+=$(md5sum <"$f")
		n=$((n - c)) s=$((s + c))
	done
	rm -f "$f"
	sums=$(md5sum <<<"$sums")
	echo "${sums%% *}"
}

# DEV starts with the bytes of FILE (read with O_DIRECT into /tmp, then
# compared: no pipe, see dev_sum). Status as cmp's.
dev_cmp() { # dev file
	local f=/tmp/.dev_cmp.$$ len rc=0
	len=$(stat -c %s "$2")
	dd if="$1" of="$f" bs=1M count=$(((len + (1 << 20) - 1) >> 20)) iflag=direct status=none || { rm -f "$f"; return 2; }
	cmp -n "$len" "$f" "$2" || rc=$?
	rm -f "$f"
	return "$rc"
}

# fio crc32c write+verify passes on DIR until /tmp/fio.stop exists (run it in
# the background): /tmp/fio.runs counts the passes, /tmp/fio.failed lists
# the ones that failed (their output goes to stderr).
fio_verify_loop() { # dir
	local i=0
	while [ ! -e /tmp/fio.stop ]; do
		i=$((i + 1))
		fio --name=v --directory="$1" --size=16M --bs=64k --rw=randwrite \
			--direct=1 --ioengine=libaio --iodepth=4 --numjobs=2 \
			--verify=crc32c --verify_fatal=1 --do_verify=1 --randrepeat=0 \
			--group_reporting --eta=never >/tmp/fio.$i.out 2>&1 ||
			{ echo "$i" >>/tmp/fio.failed; cat /tmp/fio.$i.out >&2; }
		echo "$i" >/tmp/fio.runs
	done
}

# Power cuts on null_blk disks under dm-linear shims (SHIM:DISK pairs, the
# disk being /dev/DISK from tools/nullb): every shim fails all I/O at once,
# then each disk loses its volatile cache. shims_restore maps them back.
shims_cut() {
	local p
	for p; do dmsetup suspend --noflush --nolockfs "${p%%:*}"; done
	for p; do dmsetup load "${p%%:*}" --table "0 $(blockdev --getsz "/dev/${p#*:}") error"; done
	for p; do dmsetup resume "${p%%:*}"; done
	for p; do "$TOP/tools/nullb" powercut "${p#*:}"; done
}

shims_restore() {
	local p
	for p; do dmsetup load "${p%%:*}" --table "0 $(blockdev --getsz "/dev/${p#*:}") linear /dev/${p#*:} 0"; done
	for p; do dmsetup resume "${p%%:*}"; done
}

# One dm-linear shim SHIM over the whole of DISK: shim_error turns it into
# the error target (a dead disk: no flush, no filesystem freeze on the way),
# shim_linear maps DISK through it again.
shim_error() { # shim disk
	dmsetup suspend --noflush --nolockfs "$1"
	dmsetup load "$1" --table "0 $(blockdev --getsz "$2") error"
	dmsetup resume "$1"
}
shim_linear() { # shim disk
	dmsetup load "$1" --table "0 $(blockdev --getsz "$2") linear $2 0"
	dmsetup resume "$1"
}

# ---- races (tests 050-053; guest side) ------------------------------------
# These tests boot the debug module (DMT_DEBUG_MODULE=1: `make modules
# DM_TIER_DEBUG=1`, knobs in kernel/dm-tier-debug.h).

# Set a debug knob of the loaded module (fails without the debug build).
dbg_param() { # name value
	local p=/sys/module/dm_tier/parameters/$1
	[ -w "$p" ] || fail "no debug knob $1: the module is not a DM_TIER_DEBUG=1 build"
	echo "$2" >"$p"
}

# The dm-delay table over DISK: writes (and flushes) delayed by WRITE_MS,
# reads by READ_MS (default: undelayed).
delay_table() { # disk write_ms [read_ms]
	echo "0 $(blockdev --getsz "$1") delay $1 0 ${3:-0} $1 0 $2"
}
# /dev/mapper/NAME: dm-delay over DISK (delay_table).
delay_dev() { # name disk write_ms
	dmsetup create "$1" --table "$(delay_table "$2" "$3")"
	udevadm settle
}
# NAME, made by delay_dev over DISK, reloaded with WRITE_MS [READ_MS].
delay_set() { # name disk write_ms [read_ms]
	dmsetup suspend "$1"
	dmsetup load "$1" --table "$(delay_table "${@:2}")"
	dmsetup resume "$1"
}

# copies hits misses fills evictions invalidations of DEV's memory tier
# (the status line's memory-tier fields, after the migration fields).
mem_counts() { # dev
	dmsetup status "$1" | awk '$3 == "tier" {
		n = $9; m = 10 + 5 * n + 9 + n
		print $(m + 3), $(m + 4), $(m + 5), $(m + 6), $(m + 7), $(m + 8) }'
}

# Sectors written to a block device (by its kernel name or /dev path).
dev_written() { # dev
	local n
	n=$(basename "$(readlink -f "$1")")
	awk '{ print $7 }' "/sys/block/$n/stat"
}

# Little-endian integer of SIZE bytes at byte OFFSET of DEV.
le() { # dev offset size
	od -An -t u"$3" -j "$2" -N "$3" --endian=little "$1" | tr -d ' '
}

# Set the u64 at byte OFF of the 4 KiB block at byte BLK of DEV and reseal
# the block's CRC-32C, as a bug (not a torn write) would leave it.
set_u64_resealed() { # dev blk off value
	python3 - "$@" <<-'EOF'
		import struct, sys
		dev, blk, off, val = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
		t = []
		for i in range(256):
		    c = i
		    for _ in range(8):
		        c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
		    t.append(c)
		with open(dev, "r+b", buffering=0) as f:
		    f.seek(blk)
		    b = bytearray(f.read(4096))
		    b[off:off + 8] = struct.pack("<Q", val)
		    c = 0xffffffff
		    for x in b[4:]:
		        c = t[(c ^ x) & 0xff] ^ (c >> 8)
		    b[0:4] = struct.pack("<I", c)
		    f.seek(blk)
		    f.write(b)
	EOF
}

# Invert the byte at OFFSET of DEV (a corruption the checksums must catch).
flip_byte() { # dev byte-offset
	local v
	v=$(od -An -t u1 -j "$2" -N 1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $((v ^ 0xff)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc,fsync status=none
}

# The health events of `tierctl watch --json` output FILE show one outage of
# tier 1 and its recovery: ok -> offline (or ok -> degraded -> offline),
# then one tier-recovered, and no metadata mode change. Prints the events
# it saw and returns 1 otherwise.
outage_events_ok() { # file
	python3 - "$1" <<-'EOF'
		import json, sys
		ev = [json.loads(l) for l in open(sys.argv[1])]
		names = [(e["event"], e.get("event_tier")) for e in ev
		         if e["event"] in ("tier-error", "tier-recovered", "mode-change")]
		ok = names in ([("tier-error", 1), ("tier-recovered", 1)],
		               [("tier-error", 1), ("tier-error", 1),
		                ("tier-recovered", 1)])
		if not ok:
		    print("health events: %s" % names)
		sys.exit(0 if ok else 1)
	EOF
}

# Fail when the guest kernel logged a WARNING or BUG since the test began.
# Turn on dm-tier's dynamic-debug lines (pr_debug: the memory tier's slot
# search, the migration's map scans), which some tests count. Needs
# CONFIG_DYNAMIC_DEBUG (Debian's kernels; not the debug kernel's config).
dm_tier_debug_on() {
	local ctl=/proc/dynamic_debug/control
	[ -w $ctl ] || {
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
		ctl=/sys/kernel/debug/dynamic_debug/control
	}
	[ -w $ctl ] || fail "no dynamic debug control file: the kernel needs CONFIG_DYNAMIC_DEBUG"
	echo 'module dm_tier +p' >$ctl || fail "cannot enable dm_tier's debug messages"
}

# Whether the kernel log has a line matching grep's ARGS. Not `dmesg |
# grep -q`: under pipefail that fails whenever grep exits at a match before
# dmesg has written everything (SIGPIPE), which a longer log (6.12's) made
# happen.
klog_has() { # grep-args...
	local k
	k=$(dmesg)
	grep -q "$@" <<<"$k"
}

no_kernel_warning() { # what
	local k
	k=$(dmesg)
	if grep -E -m 5 -A 12 'WARNING:|BUG:|INFO: task .* blocked' <<<"$k"; then
		fail "$1: the kernel reported the above"
	fi
}
