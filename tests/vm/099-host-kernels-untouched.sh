#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: last
# The bench never changes what the host boots. Runs last, after the VM tests
# have built dm-tier.ko for 6.1 and 6.12 and booted both (a module no test
# built, when the time budget left 001 or 002 out, is built here): the installed
# linux-image packages and /boot are what they were before `make deps`
# (build/host-kernels.baseline, written by tools/deps before it installs
# anything), the guest kernels and their headers come from the cache, and
# plain `make` still builds against the host's own headers (tools/kdir), its
# dm-tier.ko untouched by the bench's builds. Host-only: no VM.
. "$(dirname "$0")/lib.sh"

baseline=$TOP/build/host-kernels.baseline
[ -f "$baseline" ] || fail "$baseline missing: tools/deps (make deps) writes it before installing"
now=$("$TOP/tools/host-kernels")
if ! d=$(diff -u --label "before make deps" --label now "$baseline" - <<<"$now"); then
	echo "$d"
	fail "installed kernel images or /boot changed since make deps"
fi
echo "linux-image packages and /boot as before make deps ($(grep -c '^pkg ' "$baseline" || true) images, $(grep -c '^boot ' "$baseline" || true) files in /boot)"

cache=${DMT_CACHE:-$HOME/.cache/dm-tier}
for k in 6.1 6.12; do
	(
		eval "$("$TOP/tools/kernel-locate" "$k" 2>/dev/null)" || fail "kernel-locate $k"
		if [ "$KVER" = "$(uname -r)" ]; then
			echo "$k: the host's running kernel $KVER"
			exit 0
		fi
		case $VMLINUZ:$KDIR in
		"$cache"/kernels/*:"$cache"/kernels/*) ;;
		*) fail "$k: guest kernel or headers outside the cache: $VMLINUZ $KDIR" ;;
		esac
		if [ ! -f "$TOP/build/kmod/$KVER/dm-tier.ko" ]; then
			# No VM test booted this kernel in this run (the time
			# budget left 002 out): build it as the bench does.
			make -s -C "$TOP" modules KDIR="$KDIR" KO_COPY=0 >"$TOP/build/099-modbuild-$KVER.log" 2>&1 ||
				{ cat "$TOP/build/099-modbuild-$KVER.log"; fail "$k: the module build for $KVER failed"; }
			[ -f "$TOP/build/kmod/$KVER/dm-tier.ko" ] ||
				fail "$k: the bench's module build for $KVER left no build/kmod/$KVER/dm-tier.ko"
			echo "$k: no VM test built the module for $KVER in this run: built here"
		fi
		expect_eq "$(modinfo -F vermagic "$TOP/build/kmod/$KVER/dm-tier.ko" | cut -d' ' -f1)" \
			"$KVER" "$k: vermagic of the bench's module"
		echo "$k: $KVER from $cache/kernels, module built against its unpacked headers"
	) || exit 1
done

kdir=$("$TOP/tools/kdir" 2>/dev/null) || skip "no host kernel headers for plain make"
case $kdir in "$cache"/*) fail "plain make would build against the bench's cache: $kdir" ;; esac
kver=$(sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h")
if [ -f "$TOP/dm-tier.ko" ]; then
	expect_eq "$(modinfo -F vermagic "$TOP/dm-tier.ko" | cut -d' ' -f1)" "$kver" \
		"vermagic of ./dm-tier.ko (plain make's, for $kdir)"
fi
echo "plain make builds for $kver ($kdir)"
