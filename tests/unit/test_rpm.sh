#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dist/dm-tier.spec: rpmspec -P parses it, rpmlint finds nothing in it
# (filters justified in dist/dm-tier.rpmlintrc), its Version is the
# release's, and `make rpm` (rpmbuild on Debian's rpm, about 10 s) builds
# dm-tier and dm-tier-dkms holding the files the Debian packages hold.
# rpmlint of the binary rpms is not run: built by Debian's rpm, they lack
# what a Fedora/EL buildroot adds (brp-strip, brp-compress, systemd
# scriptlet macros, Packager, signature). Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
ver=$(sed -n 's/^#define DM_TIER_VERSION_STRING "\(.*\)"/\1/p' include/uapi/linux/dm-tier-version.h)
spec=dist/dm-tier.spec
echo "1..5"
rc=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; rc=1; }
for t in rpmspec rpmlint rpmbuild; do
	command -v $t >/dev/null || { echo "# $t missing; run 'make deps'"; for i in 1 2 3 4 5; do echo "not ok $i - $t missing"; done; exit 1; }
done
if out=$(rpmspec -P "$spec" 2>&1); then
	ok "rpmspec -P parses the spec"
else
	sed 's/^/# /' <<<"$out"
	notok "rpmspec -P"
fi
if out=$(rpmlint -r dist/dm-tier.rpmlintrc "$spec" 2>&1) && grep -q '0 errors, 0 warnings' <<<"$out"; then
	ok "rpmlint: the spec is clean"
else
	sed 's/^/# /' <<<"$out"
	notok "rpmlint complains about the spec"
fi
expect=$(rpmspec -q --srpm --qf '%{version}' "$spec" 2>/dev/null)
if [ "$expect" = "$ver" ]; then
	ok "spec Version is $ver"
else
	notok "spec Version '$expect', the release is $ver"
fi
if out=$(make --no-print-directory -s rpm 2>&1); then
	ok "make rpm builds"
else
	sed 's/^/# /' <<<"$out"
	notok "make rpm"
fi
list=$(rpm -qlp build/rpm/RPMS/*/dm-tier-"$ver"-*.rpm 2>/dev/null; echo; rpm -qlp build/rpm/RPMS/*/dm-tier-dkms-"$ver"-*.rpm 2>/dev/null)
missing=()
src=/usr/src/dm-tier-$ver
for p in /usr/sbin/tierctl /usr/sbin/tierd /usr/bin/ckpt \
	/usr/lib/systemd/system/dm-tier-activate.service /usr/lib/systemd/system/dm-tier-activate-nvmf.service \
	/usr/lib/systemd/system/tierd.service /usr/lib/udev/rules.d/61-dm-tier.rules \
	/usr/share/man/man8/tierctl.8 /usr/share/man/man8/tierd.8 /usr/share/man/man5/tierd.conf.5 \
	/usr/share/man/man7/dm-tier.7 /usr/share/bash-completion/completions/tierctl /etc/dm-tier/policies.d \
	$src/dkms.conf $src/Kbuild $src/kernel/dm-tier-main.c $src/include/uapi/linux/dm-tier.h; do
	grep -qxF "$p" <<<"$list" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	ok "the rpms hold the tools, units, udev rule, man pages, completion and module source"
else
	printf '# missing: %s\n' "${missing[@]}"
	notok "the rpms lack ${#missing[@]} files"
fi
exit $rc
