#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every tierctl command either takes --json (its usage line says so, and
# `tierctl CMD --json` gets past option parsing: it fails, if at all, for a
# missing argument, not for the option) or refuses it with a message that
# says it does not apply. Never silently ignored: the global form
# (`tierctl --json CMD`) is refused the same way by the commands without
# JSON output. Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
make --no-print-directory -s user >/dev/null 2>&1 || { echo "1..1"; echo "not ok 1 - make user failed"; exit 1; }
T=build/user/tierctl
mapfile -t cmds < <($T help | sed -n 's/^  \([a-z][a-z-]*\).*/\1/p')
echo "1..${#cmds[@]}"
rc=0 i=0
for c in "${cmds[@]}"; do
	i=$((i + 1))
	usage=$($T help "$c")
	# No device is touched: no NAME, or a NAME that does not exist.
	out=$(TIER_STATE_DIR=$(mktemp -d) timeout 20 $T "$c" --json 2>&1 </dev/null)
	out2=$(TIER_STATE_DIR=$(mktemp -d) timeout 20 $T --json "$c" 2>&1 </dev/null)
	if grep -q -- '--json' <<<"$usage"; then
		if grep -qi "unknown option\|unexpected argument '--json'" <<<"$out"; then
			echo "not ok $i - $c: usage names --json but '$c --json' says: $(head -n 1 <<<"$out")"
			rc=1
		else
			echo "ok $i - $c takes --json"
		fi
	elif grep -qi -- "--json does not apply" <<<"$out" && grep -qi -- "--json does not apply" <<<"$out2"; then
		echo "ok $i - $c refuses --json: $(grep -i -m1 -- '--json does not apply' <<<"$out")"
	else
		echo "not ok $i - $c: no --json in its usage, and '$c --json' / '--json $c' do not refuse it clearly: $(head -n 1 <<<"$out") / $(head -n 1 <<<"$out2")"
		rc=1
	fi
done
exit $rc
