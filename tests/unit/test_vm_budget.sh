#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/run's time budget (DMT_VM_DEADLINE, set by tools/check from
# DMT_CHECK_BUDGET): CI stops a run at its limit and reports nothing, so the
# VM layer must end in time and say what it left out. A copy of tests/vm/run
# runs three fake tests in a scratch tree: one that fits, one that starts and
# is still running at the deadline, one whose expected time no longer fits.
# Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/tree/tests/vm"
cp tests/vm/run "$T/tree/tests/vm/"
fake() { # name body
	printf '#!/bin/bash\n%s\n' "$2" >"$T/tree/tests/vm/$1.sh"
	chmod +x "$T/tree/tests/vm/$1.sh"
}
fake 001-quick 'sleep 1'
fake 002-slow 'exec sleep 60'
fake 003-long 'exit 0'
printf '001-quick 1\n002-slow 2\n003-long 500\n' >"$T/tree/tests/vm/durations"

echo "1..5"
rc=0
check() { # n description command...
	local n=$1 what=$2
	shift 2
	if "$@"; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		rc=1
	fi
}
t0=$(date +%s)
out=$(DMT_CACHE="$T/cache" DMT_VM_JOBS=1 DMT_VM_DEADLINE=$((t0 + 7)) \
	"$T/tree/tests/vm/run" 001 002 003 2>&1)
took=$(($(date +%s) - t0))
sed 's/^/# /' <<<"$out"
check 1 "the run ends at the deadline, not at the slow test's end (${took}s)" \
	test "$took" -lt 30
check 2 "the test running at the deadline fails, and says why" \
	grep -q '^\[vm\] FAIL 002-slow (.*stopped at the time budget' <<<"$out"
check 3 "the test that no longer fits is not started and counts as skipped" \
	grep -q '^\[vm\] skip 003-long (not started' <<<"$out"
check 4 "the summary counts all three and names what was not run" \
	bash -c 'grep -q "^vm: 1 passed, 1 failed, 1 skipped" <<<"$1" &&
		grep -q "not run, the time budget.*: 003-long (run them" <<<"$1"' _ "$out"
# The recorded durations order the next run; a cut or unstarted test's
# time is not its duration.
check 5 "only the completed test's duration is recorded" \
	bash -c '[ "$(cut -d" " -f1 "$1")" = 001-quick ]' _ "$T/cache/vm/durations"
exit $rc
