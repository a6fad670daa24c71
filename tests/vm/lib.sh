# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the VM tests. A test is a host script that boots the bench
# with tools/vm-run and runs parts of itself in the guest:
#     . "$(dirname "$0")/lib.sh"
#     guest_main() { ...runs in the VM... }
#     run_guest_phase "$@"          # dispatches to guest_$1 inside the VM
#     vm --fresh --nvme 64M -- "$0" main
# Exit 0 = pass, 77 = skip, anything else = fail.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TEST_NAME=${DMT_TEST_NAME:-$(basename "$0" .sh)}
export PATH=$TOP/build/user:$PATH

# Boot the bench for this test: images live in build/vm/$TEST_NAME, output
# lines are prefixed with the test name. Extra options pass through.
vm() {
	"$TOP/tools/vm-run" --prefix "$TEST_NAME" --workdir "$TOP/build/vm/$TEST_NAME" "$@"
}

in_guest() { [ "${DMT_IN_VM:-}" = 1 ]; }

# Inside the guest, "$0 PHASE" runs guest_PHASE and exits with its status.
run_guest_phase() {
	if in_guest; then
		local phase=${1:?phase}
		shift
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

# ---- dm-tier helpers (guest side) --------------------------------------

# Field of `tierctl status NAME --json`: jfield NAME 'tiers[1]["used_extents"]'
jfield() {
	tierctl status "$1" --json | python3 -c "import json,sys; d=json.load(sys.stdin); print(d$2)"
}

# Write N files of MIB MiB of random data under DIR, fsync them, and record
# their checksums in DIR/../FILE (default /dmt-out/sums).
write_files() { # dir n mib [sums]
	local dir=$1 n=$2 mib=$3 sums=${4:-/dmt-out/sums} i
	for i in $(seq "$n"); do
		head -c $((mib << 20)) /dev/urandom >"$dir/f$i"
	done
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
