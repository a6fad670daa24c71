#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The man pages (make man, generated from docs/ by tools/md2man) render
# without a groff warning, show their NAME section through man(1), and
# tierctl(8) documents every command of tierctl's command table. md2man
# refuses a page whose include names a missing section. Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
pages=(tierctl.8 tierd.8 tierd.conf.5 dm-tier.7)
echo "1..$((${#pages[@]} * 2 + 2))"
if ! out=$(make --no-print-directory -s man user 2>&1); then
	sed 's/^/# /' <<<"$out"
	echo "Bail out! make man failed"
	exit 1
fi
rc=0 i=0
ok() { i=$((i + 1)); echo "ok $i - $*"; }
notok() { i=$((i + 1)); echo "not ok $i - $*"; rc=1; }
for p in "${pages[@]}"; do
	f=build/man/$p
	w=$(groff -man -t -z -ww -Tutf8 "$f" 2>&1)
	if [ -z "$w" ]; then ok "$p: groff -ww finds nothing to warn about"; else
		sed 's/^/# /' <<<"$w"; notok "$p: groff warnings"; fi
	txt=$(MANWIDTH=80 man -l "$f" 2>&1)
	# lexgrog (mandb, whatis, lintian) must find "name - description".
	if ! lexgrog "$f" 2>&1 | grep -q ": \"${p%.*} - "; then
		echo "# lexgrog: $(lexgrog "$f" 2>&1)"
		notok "$p: no whatis entry (NAME must be 'name \\- description')"
	elif grep -q '^NAME' <<<"$txt" && [ "$(wc -l <<<"$txt")" -gt 10 ]; then
		ok "$p: man -l renders it ($(wc -l <<<"$txt") lines)"
	else
		sed 's/^/# /' <<<"$txt" | head -20
		notok "$p: man -l shows no NAME section"
	fi
done
# Every command is described (a "### name" heading, or "### a, b").
missing=
for c in $(build/user/tierctl help | sed -n 's/^  \([a-z][a-z-]*\).*/\1/p'); do
	grep -qE "^### (.*[ ,])?$c(,|$| )" docs/tierctl.md || missing+=" $c"
done
if [ -z "$missing" ]; then ok "docs/tierctl.md describes every tierctl command"; else
	notok "docs/tierctl.md (tierctl(8)) does not describe:$missing"; fi
d=$(mktemp -d)
printf '# x(1)\n\n<!-- include ../tierd.md#No such section -->\n' >"$d/x.1.md"
mkdir -p "$d/sub" && mv "$d/x.1.md" "$d/sub/"
cp docs/tierd.md "$d/tierd.md"
if tools/md2man "$d/sub/x.1.md" "$d/x.1" 2>"$d/err"; then
	notok "md2man accepted an include of a missing section"
elif grep -q "no section 'No such section'" "$d/err"; then
	ok "md2man refuses an include of a missing section: $(cat "$d/err")"
else
	notok "md2man failed without naming the missing section: $(cat "$d/err")"
fi
rm -rf "$d"
exit $rc
