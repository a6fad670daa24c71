#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Packaging: `dkms build` of the staged sources succeeds for the installed
# Debian kernel headers, in a private DKMS tree (the host is not modified),
# and dkms.conf carries the release version. Host-only: no VM.
. "$(dirname "$0")/lib.sh"
command -v dkms >/dev/null || fail "dkms missing; run 'make deps'"
ver=$(sed -n 's/^#define DM_TIER_VERSION_STRING "\(.*\)"/\1/p' "$TOP/include/uapi/linux/dm-tier-version.h")
grep -qx "PACKAGE_VERSION=\"$ver\"" "$TOP/dkms.conf" || fail "dkms.conf version differs from $ver"
# The headers a user's DKMS builds against: the installed ones that plain
# `make` picks (the bench's guest kernels live in the cache, not here).
kdir=$("$TOP/tools/kdir") || fail "no installed kernel headers; run 'make deps'"
KVER=$(sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h")
tmp=$TOP/build/dkms-test
rm -rf "$tmp" && mkdir -p "$tmp/src" "$tmp/tree" "$tmp/install"
"$TOP/tools/dkms-stage" "$tmp/src/dm-tier-$ver"
dk=(--sourcetree "$tmp/src" --dkmstree "$tmp/tree" --installtree "$tmp/install")
dkms add -m dm-tier -v "$ver" "${dk[@]}" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "dkms add"; }
dkms build -m dm-tier -v "$ver" -k "$KVER" --kernelsourcedir "$kdir" "${dk[@]}" >>"$tmp/log" 2>&1 || {
	cat "$tmp/log" "$tmp/tree/dm-tier/$ver/build/make.log" 2>/dev/null
	fail "dkms build for $KVER"
}
ko=$(find "$tmp/tree/dm-tier/$ver/$KVER" -name 'dm-tier.ko*' | head -n 1)
[ -n "$ko" ] || fail "dkms built no dm-tier.ko"
expect_eq "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" "$KVER" "vermagic of the DKMS build"
echo "dkms built $ko for $KVER"
