#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A first `make` on a fresh machine: the -dev packages arrive with the deps
# stamp (tools/deps), so the Makefile must ask pkg-config after it, not
# while it parses. Here a copy of the Makefile runs in a scratch tree whose
# tools/deps only leaves a mark, and a pkg-config on PATH that knows no
# library until that mark exists. Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
TOP=$PWD
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/tree/tools" "$T/bin"
cp Makefile "$T/tree/"
for d in include kernel user; do ln -s "$TOP/$d" "$T/tree/$d"; done
cat >"$T/tree/tools/deps" <<EOF
#!/bin/sh
touch "$T/deps-ran"
EOF
real=$(command -v pkg-config)
cat >"$T/bin/pkg-config" <<EOF
#!/bin/sh
[ -e "$T/deps-ran" ] || exit 1
exec "$real" "\$@"
EOF
chmod +x "$T/tree/tools/deps" "$T/bin/pkg-config"
mk() { PATH="$T/bin:$PATH" make --no-print-directory -C "$T/tree" "$@"; }

echo "1..2"
rc=0
# tl-nl.c includes <netlink/attr.h>, found only through libnl's --cflags.
if out=$(mk "$T/tree/build/user/obj/user/lib/tl-nl.o" 2>&1); then
	echo "ok 1 - an object that needs libnl's --cflags builds on the first make"
else
	sed 's/^/# /' <<<"$out"
	echo "not ok 1 - the first make compiled without libnl's --cflags"
	rc=1
fi
rm -f "$T/deps-ran" "$T/tree/build/.deps-ok"
# Read after the Makefile, so that $(DEPS_STAMP) is known.
echo 'show-libs: | $(DEPS_STAMP) ; @echo $(USER_LIBS)' >"$T/show.mk"
libs=$(mk -f Makefile -f "$T/show.mk" show-libs 2>&1)
if [[ " $libs " == *" -lnl-genl-3 "* ]]; then
	echo "ok 2 - the link flags are taken after the deps stamp: $libs"
else
	echo "# got: $libs"
	echo "not ok 2 - the link flags lack libnl's (taken before the deps stamp)"
	rc=1
fi
exit $rc
