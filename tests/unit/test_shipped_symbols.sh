#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The shipped tools carry no test hook: no tier_test_ symbol (defined,
# undefined or local) in tierctl, tierd or ckpt as `make user` builds them.
# The unit tests put their hooks in through tests/unit/tier-test-hooks.h,
# which only tests/unit/run force-includes. Prints TAP, one line per tool.
set -uo pipefail
cd "$(dirname "$0")/../.."
tools=(tierctl tierd ckpt)
echo "1..${#tools[@]}"
# Build what is checked (a no-op when `make user` is up to date).
if ! out=$(make --no-print-directory -s user 2>&1); then
	sed 's/^/# /' <<<"$out"
	for t in "${tools[@]}"; do echo "not ok - $t: make user failed"; done
	exit 1
fi
rc=0 i=0
for t in "${tools[@]}"; do
	i=$((i + 1))
	bin=build/user/$t
	if ! syms=$(nm -a "$bin" 2>&1); then
		sed 's/^/# /' <<<"$syms"
		echo "not ok $i - $t: nm cannot read $bin"
		rc=1
	elif hooks=$(grep 'tier_test_' <<<"$syms"); then
		sed 's/^/# /' <<<"$hooks"
		echo "not ok $i - $t carries test hooks (tier_test_ symbols)"
		rc=1
	else
		echo "ok $i - $t carries no tier_test_ symbol"
	fi
done
exit $rc
