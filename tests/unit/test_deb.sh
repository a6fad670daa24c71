#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make deb` (debian/, docs/INSTALL.md): dpkg-buildpackage builds the two
# packages into build/deb/ (about 30 s), lintian passes (warnings fail;
# overrides are justified in debian/*.lintian-overrides), each package holds
# what it must (dpkg-deb -c), the installed units and udev rule call the
# packaged /usr/sbin/tierctl, dm-tier-activate.service is enabled by the
# postinst and started by nothing, dkms.conf carries the release version,
# systemd-analyze verify accepts the units, and `make install` installs the
# same units and rule for its PREFIX. Installing the packages in a
# guest and booting with them: tests/vm/091-deb-install.sh. Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
ver=$(sed -n 's/^#define DM_TIER_VERSION_STRING "\(.*\)"/\1/p' include/uapi/linux/dm-tier-version.h)
D=build/deb
echo "1..9"
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; rc=1; }
rc=0

for t in dpkg-buildpackage dh_dkms lintian systemd-analyze; do
	command -v $t >/dev/null || { echo "# $t missing; run 'make deps'"; for i in 1 2 3 4 5 6 7 8 9; do echo "not ok $i - $t missing"; done; exit 1; }
done
if out=$(make --no-print-directory -s deb 2>&1); then
	ok "make deb builds and lintian passes"
else
	sed 's/^/# /' <<<"$out"
	notok "make deb (dpkg-buildpackage, lintian)"
fi
tools=$D/dm-tier_${ver}_amd64.deb dkms=$D/dm-tier-dkms_${ver}_all.deb
[ -f "$tools" ] && [ -f "$dkms" ] || { echo "# no $tools or $dkms"; ls $D | sed 's/^/# /'; exit 1; }

# Every path each package must hold.
check_list() { # deb paths...
	local deb=$1 list missing=() p
	shift
	list=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
	for p in "$@"; do
		grep -qxF "$p" <<<"$list" || missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		ok "$(basename "$deb") holds its $# files"
	else
		printf '# missing: %s\n' "${missing[@]}"
		notok "$(basename "$deb") lacks ${#missing[@]} of its files"
	fi
}
check_list "$tools" /usr/sbin/tierctl /usr/sbin/tierd /usr/bin/ckpt \
	/lib/systemd/system/tierd.service /lib/systemd/system/dm-tier-activate.service \
	/lib/systemd/system/dm-tier-activate-nvmf.service /lib/udev/rules.d/61-dm-tier.rules \
	/usr/share/man/man8/tierctl.8.gz /usr/share/man/man8/tierd.8.gz \
	/usr/share/man/man5/tierd.conf.5.gz /usr/share/man/man7/dm-tier.7.gz \
	/usr/share/bash-completion/completions/tierctl \
	/usr/share/doc/dm-tier/examples/tierd.conf.example /usr/share/doc/dm-tier/copyright \
	/etc/dm-tier/policies.d/
src=/usr/src/dm-tier-$ver
check_list "$dkms" $src/dkms.conf $src/Kbuild $src/kernel/dm-tier-main.c \
	$src/kernel/core/format.c $src/kernel/compat.h $src/include/uapi/linux/dm-tier.h \
	$src/include/uapi/linux/dm-tier-version.h /usr/share/doc/dm-tier-dkms/copyright
# Nothing else in the DKMS package: only what tools/dkms-stage copies.
extra=$(dpkg-deb -c "$dkms" | awk '{print $6}' | sed 's|^\./|/|' |
	grep -vE "^/(usr/|usr/src/|usr/share/(doc/(dm-tier-dkms/.*)?)?|usr/share/)?$|^$src/((dkms\.conf|Kbuild|.*/|.*\.[ch]))?$")
if [ -z "$extra" ]; then
	ok "dm-tier-dkms holds only the module sources, dkms.conf and its doc"
else
	sed 's/^/# extra: /' <<<"$extra"
	notok "dm-tier-dkms holds files beyond the module sources"
fi

x=$(mktemp -d)
trap 'rm -rf "$x"' EXIT
dpkg-deb -x "$tools" "$x/root" && dpkg-deb -e "$tools" "$x/ctl" && dpkg-deb -x "$dkms" "$x/dkms"
bad=$(grep -l /usr/local "$x"/root/lib/systemd/system/* "$x"/root/lib/udev/rules.d/*)
execs=$(grep -h '^ExecStart=\|IMPORT{program}' "$x"/root/lib/systemd/system/dm-tier-activate*.service \
	"$x"/root/lib/udev/rules.d/61-dm-tier.rules)
if [ -z "$bad" ] && [ "$(grep -c '/usr/sbin/tierctl ' <<<"$execs")" = 3 ]; then
	ok "units and udev rule call /usr/sbin/tierctl"
else
	echo "# /usr/local in: $bad"
	sed 's/^/# /' <<<"$execs"
	notok "units or udev rule do not call the packaged tierctl"
fi
# Boot activation is enabled at installation and nothing starts at it; the
# NVMe-oF variant and tierd are left to the admin.
pi=$x/ctl/postinst
if grep -q "deb-systemd-helper enable 'dm-tier-activate.service'" "$pi" &&
	! grep -q 'deb-systemd-invoke start' "$pi" &&
	! grep -B3 "deb-systemd-helper enable 'dm-tier-activate-nvmf.service'" "$pi" | grep -q 'was-enabled defaults to true'; then
	ok "postinst enables dm-tier-activate.service only, starts nothing"
else
	sed 's/^/# /' "$pi"
	notok "postinst enables or starts the wrong units"
fi
# dkms.conf: the release version, and the same as the tree's.
if grep -qx "PACKAGE_VERSION=\"$ver\"" "$x/dkms$src/dkms.conf" && cmp -s dkms.conf "$x/dkms$src/dkms.conf"; then
	ok "dkms.conf is the tree's, version $ver"
else
	diff dkms.conf "$x/dkms$src/dkms.conf" | sed 's/^/# /'
	notok "dkms.conf differs from the tree's or lacks version $ver"
fi
# The units as systemd reads them (syntax, dependencies on the host's
# targets), with their tierctl pointing at the packaged one, extracted.
mkdir -p "$x/units"
for u in "$x"/root/lib/systemd/system/*.service; do
	sed "s|/usr/sbin/|$x/root/usr/sbin/|" "$u" >"$x/units/$(basename "$u")"
done
if out=$(systemd-analyze verify --man=no "$x"/units/*.service 2>&1) && [ -z "$out" ]; then
	ok "systemd-analyze verify accepts the units"
else
	sed 's/^/# /' <<<"$out"
	notok "systemd-analyze verify complains about the units"
fi
# make install (without the package): the same units and rule, their
# tierctl under PREFIX.
i=$x/install
if make --no-print-directory -s install-boot DESTDIR="$i" PREFIX=/opt/dmt SYSTEMD_UNITDIR=/lib/systemd/system \
	UDEV_RULESDIR=/lib/udev/rules.d >"$x/install.log" 2>&1 &&
	[ "$(grep -h '/opt/dmt/sbin/tierctl ' "$i"/lib/systemd/system/dm-tier-activate*.service \
		"$i"/lib/udev/rules.d/61-dm-tier.rules | wc -l)" = 3 ]; then
	ok "make install-boot installs the units and udev rule for PREFIX"
else
	sed 's/^/# /' "$x/install.log"
	find "$i" | sed 's/^/# /'
	notok "make install-boot"
fi
exit $rc
