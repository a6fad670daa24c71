#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/run's time budget (DMT_VM_DEADLINE, set by tools/check from
# DMT_CHECK_BUDGET): CI stops a run at its limit and reports nothing, so the
# VM layer must end in time and say what it left out. A copy of tests/vm/run
# runs fake tests in a scratch tree: one that fits, one that starts and is
# still running at the deadline, one whose expected time no longer fits; then
# a queue that does not fit, where a "# dmt: spare" test gives way so that
# the others run. Prints TAP.
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

echo "1..8"
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
# 30 s: the quick test and the run's start must leave the slow one's 2 s
# even on a loaded host (with two debug-kernel VMs beside it they took 12 s
# of a 15 s budget once, and 002 was not started).
t0=$(date +%s)
out=$(DMT_CACHE="$T/cache" DMT_VM_JOBS=1 DMT_VM_DEADLINE=$((t0 + 30)) \
	"$T/tree/tests/vm/run" 001 002 003 2>&1)
took=$(($(date +%s) - t0))
sed 's/^/# /' <<<"$out"
check 1 "the run ends at the deadline, not at the slow test's end (${took}s)" \
	test "$took" -lt 55
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

# A queue of 2 + 100 + 3 expected seconds with 40 left: the spare test
# goes, both others run, two jobs at a time too. (The margins leave room
# for a loaded host: the unit layer may run beside a kernel build.)
rm -f "$T/tree/tests/vm/"00[1-3]-*.sh
fake 011-a 'sleep 1'
printf '#!/bin/bash\n# dmt: spare\nexit 0\n' >"$T/tree/tests/vm/012-spare.sh"
chmod +x "$T/tree/tests/vm/012-spare.sh"
fake 013-b 'sleep 1'
printf '011-a 2\n012-spare 100\n013-b 3\n' >"$T/tree/tests/vm/durations"
for jobs in 1 2; do
	out=$(DMT_CACHE="$T/cache$jobs" DMT_VM_JOBS=$jobs DMT_VM_DEADLINE=$(($(date +%s) + 40)) \
		"$T/tree/tests/vm/run" 011 012 013 2>&1)
	sed 's/^/# /' <<<"$out"
	case $jobs in
	1) check 6 "one job: the spare test gives way, the others run" \
		bash -c 'grep -q "^\[vm\] skip 012-spare (not started: a spare test" <<<"$1" &&
			grep -q "^vm: 2 passed, 0 failed, 1 skipped" <<<"$1"' _ "$out" ;;
	2) check 7 "two jobs: the spare test gives way, the others run" \
		bash -c 'grep -q "^\[vm\] skip 012-spare (not started: a spare test" <<<"$1" &&
			grep -q "^vm: 2 passed, 0 failed, 1 skipped" <<<"$1"' _ "$out" ;;
	esac
done
# With time enough, nothing gives way.
out=$(DMT_CACHE="$T/cache3" DMT_VM_JOBS=2 DMT_VM_DEADLINE=$(($(date +%s) + 600)) \
	"$T/tree/tests/vm/run" 011 012 013 2>&1)
sed 's/^/# /' <<<"$out"
check 8 "with time enough the spare test runs too" \
	grep -q "^vm: 3 passed, 0 failed, 0 skipped" <<<"$out"
exit $rc
