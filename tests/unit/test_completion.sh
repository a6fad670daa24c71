#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `tierctl completion bash` (installed by `make install`) completes every
# command of `tierctl help` and, for each command, every option its usage
# line names. The script is sourced into this shell and driven the way bash
# drives it (COMP_WORDS, COMP_CWORD). Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
if ! out=$(make --no-print-directory -s completion 2>&1); then
	sed 's/^/# /' <<<"$out"
	echo "1..1"
	echo "not ok 1 - make completion failed"
	exit 1
fi
# shellcheck source=/dev/null
. build/completion/tierctl
complete_words() { # word... (the last one is being completed)
	COMP_WORDS=(tierctl "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_tierctl
	printf '%s\n' "${COMPREPLY[@]}"
}
mapfile -t cmds < <(build/user/tierctl help | sed -n 's/^  \([a-z][a-z-]*\).*/\1/p')
echo "1..$((${#cmds[@]} + 2))"
rc=0 i=0
ok() { i=$((i + 1)); echo "ok $i - $*"; }
notok() { i=$((i + 1)); echo "not ok $i - $*"; rc=1; }

got=$(complete_words "")
missing=
for c in "${cmds[@]}"; do grep -qx "$c" <<<"$got" || missing+=" $c"; done
if [ ${#cmds[@]} -gt 10 ] && [ -z "$missing" ]; then
	ok "tierctl <TAB> offers all ${#cmds[@]} commands"
else
	notok "tierctl <TAB> misses:$missing (of ${#cmds[@]})"
fi
for c in "${cmds[@]}"; do
	usage=$(build/user/tierctl help "$c" | sed 's/^usage: tierctl //')
	want=$(grep -oE '(^|[ [|])--?[A-Za-z][A-Za-z0-9-]*' <<<"$usage" | sed 's/^[ [|]//' | sort -u)
	got=$(complete_words "$c" -)
	missing=
	for o in $want; do grep -qx -- "$o" <<<"$got" || missing+=" $o"; done
	if [ -z "$missing" ]; then
		ok "tierctl $c -<TAB> offers its options:" $want
	else
		notok "tierctl $c -<TAB> misses:$missing"
	fi
done
got=$(complete_words help cr)
if [ "$got" = create ]; then ok "tierctl help cr<TAB> gives create"; else
	notok "tierctl help cr<TAB> gave '$got'"; fi
exit $rc
