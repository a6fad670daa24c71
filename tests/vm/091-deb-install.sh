#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: spare
# dmt: also-6.12
# dmt: timeout 2700
# The Debian packages on a guest, and boot-time activation across two
# reboots on the same drive images.
#
# Boot 1: `make deb` on the host (into build/vm/091-deb-install/deb), then in the guest `dpkg -i` of
# dm-tier-dkms and dm-tier: DKMS builds dm-tier.ko for the guest kernel
# (headers: the KDIR of tools/kernel-locate, linked as
# /lib/modules/KVER/build, as linux-headers-KVER would), the module loads
# from updates/dkms (no module from the tree: vm-run --no-module), the
# packaged /usr/sbin/tierctl creates a device over two NVMe drives, XFS with
# checksummed files, an /etc/fstab line with nofail.
# Boots 2 and 3: the device comes back by itself and is mounted, data verified
# (new data is written on boot 2 and verified on boot 3).
#
# What is emulated, and how (the guest has no systemd: tools/vm/guest-init
# is a bash init with udevd):
# - The guest's root is a tmpfs overlay that does not survive a reboot; the
#   files the installation changed (the packages' files, dpkg's and DKMS's
#   state with the built module, depmod's output, the enable symlinks
#   deb-systemd-helper made, /etc/fstab) are carried to the next boot in a
#   tarball restored first thing, standing in for a persistent root disk.
# - systemd-udev-trigger + systemd-udev-settle: `udevadm trigger
#   --action=add` of the block devices and `udevadm settle`, with the
#   installed rules (61-dm-tier.rules). Checked: udev marks both members
#   (ID_FS_TYPE=dm_tier_member, ID_FS_LABEL, ID_FS_UUID; lsblk -f shows
#   them) and asks for the unit (SYSTEMD_WANTS=dm-tier-activate.service).
# - sysinit.target: every dm-tier unit enabled in
#   /etc/systemd/system/sysinit.target.wants (the postinst enabled
#   dm-tier-activate.service there) is checked to be ordered after
#   systemd-udev-settle.service and before local-fs-pre.target without
#   default dependencies, then its ExecStartPre= and ExecStart= lines run in
#   file order as systemd runs them ('-' prefix: failure ignored).
# - local-fs.target: `mount /mnt/t0`, i.e. the fstab line.
# Not covered here: systemd itself (job ordering, acting on SYSTEMD_WANTS
# for a hotplugged member, `nofail` when the device is missing),
# dm-tier-activate-nvmf.service (needs network-online), and the units'
# syntax and dependencies, which tests/unit/test_deb.sh checks with
# systemd-analyze verify.
# Warm runs: DKMS's compiler output is cached across runs with ccache,
# through Debian's own switch for it (DEBIAN_KERNEL_USE_CCACHE=1: the
# headers' .kernelvariables then make CC "ccache gcc-12"). The cache lives
# in $DMT_CACHE/vm/ccache-091 on the host; the guest copies it into its
# tmpfs before `dpkg -i` (the host tree is read-only in the guest) and hands
# it back through /dmt-out, and the host keeps it. ccache keys each object by
# the compiler (its size and mtime), the full command line (the kernel's
# include paths and flags, so the kernel version) and the contents of the
# source and every header it includes: an edited module source or another
# kernel or compiler is a miss. Before the install boot the host pre-warms
# the cache (ccache_prewarm below): it runs DKMS's compile of the packaged
# sources itself, with the same compiler, headers, paths and flags, in a few
# seconds, so the guest gets only hits, on a cold cache or after an edit
# too. The guest's DKMS still runs its whole build: everything but the
# compiler's work is the real path: dpkg, the postinst, dkms build (make,
# the feature probes, modpost, link, signing) and install, depmod. The hits
# and misses are printed (warm: 46 hits, 0 misses and the one probe that
# fails on 6.1, which ccache never caches). Without ccache on the host
# (tools/deps installs it), DKMS compiles everything.
# DMT_KERNEL=6.12 runs it on the 6.12 kernel; `make check-long` runs it on
# both (the "also-6.12" tag), `make check` on 6.1 only (alone under TCG a
# run takes about 3 min on a quiet host, cold or warm: the pre-warm costs
# the host 8-14 s cold, 2 s warm; most of the rest is the install boot).
. "$(dirname "$0")/lib.sh"
WD=$TOP/build/vm/$TEST_NAME
UNITDIR=/lib/systemd/system

# The packaged tools, not the tree's build/user.
guest_path() {
	export PATH=/usr/sbin:/usr/bin:/sbin:/bin
}
check_path() {
	expect_eq "$(command -v tierctl)" /usr/sbin/tierctl "tierctl in PATH"
}

# The module that is loaded is the one DKMS built for this kernel.
check_dkms_module() {
	local path
	path=$(modinfo -n dm-tier) || fail "modinfo finds no dm-tier module"
	case $path in
	/lib/modules/"$(uname -r)"/updates/dkms/dm-tier.ko*) ;;
	*) fail "dm-tier resolves to $path, not DKMS's updates/dkms" ;;
	esac
	[ -d /sys/module/dm_tier ] || fail "dm-tier is not loaded"
	expect_eq "$(cat /sys/module/dm_tier/srcversion)" "$(modinfo -F srcversion dm-tier)" \
		"srcversion of the loaded module vs DKMS's"
	expect_eq "$(modinfo -F vermagic dm-tier | cut -d' ' -f1)" "$(uname -r)" "vermagic"
}

# The compiler cache of the DKMS build (see the header).
CCACHE_KEPT=${DMT_CACHE:-$HOME/.cache/dm-tier}/vm/ccache-091
ccache_load() {
	if ! command -v ccache >/dev/null; then
		echo "no ccache on the host ('make deps' installs it): DKMS compiles everything"
		return 0
	fi
	mkdir -p /tmp/ccache
	[ ! -d "$CCACHE_KEPT" ] || cp -a "$CCACHE_KEPT/." /tmp/ccache/ || fail "copying the kept ccache"
	# The sloppiness skips only ccache's guard against a header edited
	# during the build (DKMS copies the sources just before it): the
	# contents are hashed all the same.
	export CCACHE_DIR=/tmp/ccache CCACHE_MAXSIZE=50M DEBIAN_KERNEL_USE_CCACHE=1 \
		CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime
	ccache -z >/dev/null
}
ccache_save() {
	[ -n "${CCACHE_DIR:-}" ] || return 0
	echo "ccache: $(ccache --print-stats | awk -F'\t' '
		$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h += $2 }
		$1 == "cache_miss" { m = $2 } $1 == "compile_failed" { f = $2 }
		END { printf "%d hits, %d misses, %d failed (not cached)", h, m, f }') in DKMS's build"
	# One file over 9p instead of one per cache entry.
	tar -C /tmp -cf /dmt-out/ccache.tar ccache || fail "handing the ccache back"
}

# The pre-warm (see the header): before the install boot, the host runs
# the compile DKMS will run in the guest, into the kept cache, so that the
# guest's compiler calls are hits even when the module's sources changed
# since the last run (a cold cache fills here, on the host, in seconds,
# instead of under TCG). The same compiler (the guest's root is the host's),
# the same kernel headers (tools/kernel-locate's KDIR, which the guest links
# as /lib/modules/KVER/build; make -C resolves it to the same real path),
# the sources extracted from the very dm-tier-dkms package the guest
# installs, at the path DKMS builds them in ($dkms_tree/dm-tier/VERSION/build,
# on a tmpfs mounted over dkms_tree in a mount namespace of its own: the
# host's /var/lib/dkms is not touched), DKMS's make command line, and the
# guest's environment for what ccache hashes (no LANG/LC_*, CCACHE_* as in
# ccache_load). Identical command lines and inputs give identical keys: the
# guest's DKMS still runs the whole build (make, every compiler call, the
# feature probes, modpost, link, signing), each compile answered from the
# cache. Best effort: without unshare or ccache the guest compiles what the
# cache lacks, as before; the guest's hit/miss line shows which it was.
ccache_prewarm() {
	local src dkms_tree ver t0
	command -v ccache >/dev/null || return 0
	if ! unshare -m --propagation private true 2>/dev/null; then
		echo "ccache pre-warm skipped: no mount namespace (unshare -m) here; DKMS compiles cache misses in the guest"
		return 0
	fi
	src=$WD/prewarm
	rm -rf "$src"
	mkdir -p "$src" "$CCACHE_KEPT" || fail "pre-warm: mkdir"
	dpkg-deb -x "$WD"/deb/dm-tier-dkms_*_all.deb "$src/pkg" || fail "pre-warm: dpkg-deb -x"
	src=$(echo "$src"/pkg/usr/src/dm-tier-*)
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$src/dkms.conf")
	[ -n "$ver" ] || fail "pre-warm: no PACKAGE_VERSION in $src/dkms.conf"
	# dkms_tree as the guest's DKMS reads it (the guest's /etc is the host's).
	dkms_tree=$(bash -c '. /etc/dkms/framework.conf 2>/dev/null; for f in /etc/dkms/framework.conf.d/*.conf; do [ -f "$f" ] && . "$f"; done; echo "${dkms_tree:-/var/lib/dkms}"')
	[ -d "$dkms_tree" ] || { echo "ccache pre-warm skipped: no $dkms_tree"; return 0; }
	t0=$(date +%s)
	# shellcheck disable=SC2016
	unshare -m --propagation private bash -c '
		mount -t tmpfs -o mode=0755 tmpfs "$1" && mkdir -p "$1/dm-tier/$2/build" &&
			cp -a "$3/." "$1/dm-tier/$2/build/" || exit 1
		exec env -i HOME=/ PATH=/usr/sbin:/usr/bin:/sbin:/bin CCACHE_DIR="$5" CCACHE_MAXSIZE=50M \
			DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime \
			make -j2 -C "$4" M="$1/dm-tier/$2/build" modules' \
		prewarm "$dkms_tree" "$ver" "$src" "$DMT_DEB_KDIR" "$CCACHE_KEPT" >"$WD/prewarm.log" 2>&1 ||
		{ tail -n 20 "$WD/prewarm.log"; fail "pre-warm: DKMS's make on the host failed"; }
	echo "ccache pre-warmed on the host in $(($(date +%s) - t0))s (DKMS's compile of dm-tier $ver for $(basename "$DMT_DEB_KDIR" | sed 's/^linux-headers-//'))"
}

guest_install() {
	guest_path
	local kver t0
	kver=$(uname -r)
	[ ! -d /sys/module/dm_tier ] || fail "dm-tier loaded before the packages are installed"
	# Always KDIR (the cached kernel's own relative link does not resolve
	# through the bind mount on a merged-/usr root), so that the pre-warm
	# on the host compiles in the same directory.
	ln -sfn "$DMT_DEB_KDIR" "/lib/modules/$kver/build"
	# man-db's dpkg trigger (the package ships man pages) rebuilds the whole
	# man index: about 15 s under TCG, for nothing this test looks at. The
	# guest's own copy of the switch Debian's man-db reads (the host's is
	# untouched; images for containers and CI turn it off the same way).
	rm -f /var/lib/man-db/auto-update
	ccache_load
	echo "dpkg -i (DKMS builds dm-tier.ko for $kver)"
	t0=$(date +%s)
	# No terminal: debconf's noninteractive frontend, as automated installs
	# set it (otherwise it tries Dialog and Readline first, a second or two).
	DEBIAN_FRONTEND=noninteractive dpkg -i "$WD"/deb/dm-tier-dkms_*_all.deb "$WD"/deb/dm-tier_*_amd64.deb \
		>/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; fail "dpkg -i"; }
	echo "dpkg -i took $(($(date +%s) - t0))s"
	ccache_save
	check_path
	grep -iE 'dkms|error|warn' /tmp/dpkg.log | sed 's/^/  dpkg: /' | head -n 20
	dkms status -m dm-tier | grep -q "$kver.*installed" || { dkms status; fail "dkms: dm-tier not installed for $kver"; }
	[ -L /etc/systemd/system/sysinit.target.wants/dm-tier-activate.service ] ||
		fail "the postinst did not enable dm-tier-activate.service"
	udevadm control --reload
	modprobe dm-tier
	check_dkms_module

	tierctl create t0 --tier "$DMT_NVME0" --tier "$DMT_NVME1"
	mkfs.xfs -q /dev/mapper/t0
	mkdir -p /mnt/t0
	echo "/dev/mapper/t0 /mnt/t0 xfs nofail 0 0" >>/etc/fstab
	mount /mnt/t0
	write_files /mnt/t0 4 8 /dmt-out/sums
	umount /mnt/t0
	tierctl remove t0
	echo "installed, created t0, $(wc -l </dmt-out/sums) files written"

	# The persistent root of the next boots (see the header): regular files
	# and symlinks only, so that extracting never replaces a directory
	# symlink such as /lib.
	{
		dpkg -L dm-tier dm-tier-dkms
		find /var/lib/dkms /var/lib/dpkg/info/dm-tier* /etc/systemd/system /etc/dm-tier \
			/var/lib/systemd/deb-systemd-helper-enabled "/lib/modules/$kver/updates"
		ls -d "/lib/modules/$kver"/modules.* /var/lib/dpkg/status /etc/fstab
	} | sort -u | while read -r f; do
		[ -f "$f" ] || [ -L "$f" ] && echo "$f"
	done >/tmp/files
	tar -cf /dmt-out/root.tar --no-recursion -T /tmp/files 2>/tmp/tar.log ||
		{ cat /tmp/tar.log; fail "tar of the installed files"; }
	echo "root state: $(wc -l </tmp/files) files carried to the next boot"
}

# Run a unit's ExecStartPre= then ExecStart= lines as systemd does: in
# file order, split into words (no shell), '-' prefix = failure ignored.
run_unit() { # unit-file
	local u=$1 key cmd ign argv
	for key in ExecStartPre ExecStart; do
		while IFS= read -r cmd; do
			ign=0
			[[ $cmd == -* ]] && ign=1 cmd=${cmd#-}
			[[ $cmd != *%* ]] || fail "$u: specifiers in '$cmd' are not emulated"
			echo "  $(basename "$u"): $key=$cmd"
			read -ra argv <<<"$cmd"
			"${argv[@]}" 2>&1 | sed 's/^/    /'
			[ "${PIPESTATUS[0]}" = 0 ] || [ $ign = 1 ] || fail "$(basename "$u"): $cmd failed"
		done < <(sed -n '/^\[Service\]/,/^\[/p' "$u" | sed -n "s/^$key=//p")
	done
}

unit_key() { # unit-file key: its values, space-separated
	sed -n "s/^$2=//p" "$1" | tr '\n' ' '
}

guest_boot() { # boot-number
	local n=$1 wants u dev prop
	guest_path
	[ ! -d /sys/module/dm_tier ] || fail "dm-tier loaded before boot activation"
	[ ! -e /dev/mapper/t0 ] || fail "/dev/mapper/t0 exists before boot activation"
	tar -xpf "$WD/root.tar" -C / || fail "restoring the installed root"
	check_path

	echo "boot $n: udev coldplug with the installed rules (systemd-udev-trigger, -settle)"
	udevadm control --reload
	udevadm trigger --action=add --subsystem-match=block
	udevadm settle --timeout=60
	for dev in "$DMT_NVME0" "$DMT_NVME1"; do
		prop=$(udevadm info -q property "$dev")
		grep -qx ID_FS_TYPE=dm_tier_member <<<"$prop" || { echo "$prop"; fail "udev did not mark $dev as a member"; }
		grep -qx ID_FS_LABEL=t0 <<<"$prop" || fail "$dev: no ID_FS_LABEL=t0"
		grep -q '^SYSTEMD_WANTS=.*dm-tier-activate.service' <<<"$prop" ||
			{ echo "$prop"; fail "$dev: udev does not ask for dm-tier-activate.service"; }
	done
	lsblk -f -o NAME,FSTYPE,LABEL,UUID "$DMT_NVME0" "$DMT_NVME1" | sed 's/^/  lsblk: /'
	expect_eq "$(lsblk -dno FSTYPE "$DMT_NVME1")" dm_tier_member "lsblk FSTYPE of $DMT_NVME1"
	expect_eq "$(lsblk -dno UUID "$DMT_NVME0")" "$(lsblk -dno UUID "$DMT_NVME1")" "members' UUID"

	echo "boot $n: sysinit.target: the enabled dm-tier units"
	wants=$(ls /etc/systemd/system/sysinit.target.wants/dm-tier-*.service 2>/dev/null)
	[ -n "$wants" ] || fail "no dm-tier unit enabled in sysinit.target.wants"
	for u in $wants; do
		u=$UNITDIR/$(basename "$u")
		[ -f "$u" ] || fail "$u: enabled but not installed"
		[[ " $(unit_key "$u" After) " == *" systemd-udev-settle.service "* ]] || fail "$u: not After=systemd-udev-settle.service"
		[[ " $(unit_key "$u" Before) " == *" local-fs-pre.target "* ]] || fail "$u: not Before=local-fs-pre.target"
		expect_eq "$(unit_key "$u" DefaultDependencies)" "no " "$u DefaultDependencies"
		run_unit "$u"
	done
	[ -b /dev/mapper/t0 ] || fail "boot $n: /dev/mapper/t0 did not come back"
	check_dkms_module

	echo "boot $n: local-fs.target: the fstab line"
	grep -q '^/dev/mapper/t0 /mnt/t0 xfs nofail' /etc/fstab || fail "fstab line lost"
	mkdir -p /mnt/t0
	mount /mnt/t0 || fail "mount /mnt/t0 (fstab)"
	check_files /mnt/t0 "$WD/sums"
	echo "boot $n: $(wc -l <"$WD/sums") files verified"
	cp "$WD/sums" /dmt-out/sums
	if [ "$n" = 2 ]; then
		rand_bytes 8M >/mnt/t0/g2
		sync -f /mnt/t0
		(cd /mnt/t0 && sha256sum g2) >>/dmt-out/sums
	fi
	umount /mnt/t0
	tierctl remove t0
}
run_guest_phase "$@"

command -v dpkg-buildpackage >/dev/null || fail "dpkg-buildpackage missing; run 'make deps'"
mkdir -p "$WD"
# Into the test's own directory: tests/unit/test_deb.sh's `make deb` may
# empty build/deb meanwhile.
make -s -C "$TOP" deb DEB_DIR="$WD/deb" >"$WD/make-deb.log" 2>&1 || { cat "$WD/make-deb.log"; fail "make deb"; }
located=$("$TOP/tools/kernel-locate" "${DMT_KERNEL:-6.1}") || fail "no kernel ${DMT_KERNEL:-6.1}"
DMT_DEB_KDIR=$(eval "$located" && echo "$KDIR")
export DMT_DEB_KDIR
rm -f "$WD/root.tar" "$WD/sums"
ccache_prewarm
drives=(--nvme 128M --nvme 256M)
# DKMS compiles the module in the guest: minutes under TCG.
vm --fresh --no-module --timeout 2400 "${drives[@]}" -- "$0" install || fail "boot 1 (install)"
cp "$WD/run/root.tar" "$WD/run/sums" "$WD/" || fail "boot 1 left no root state"
# Keep the guest's compiler cache for the next run (replaced whole).
if [ -f "$WD/run/ccache.tar" ]; then
	mkdir -p "$(dirname "$CCACHE_KEPT")"
	rm -rf "$WD/run/ccache" && tar -C "$WD/run" -xf "$WD/run/ccache.tar" && rm -f "$WD/run/ccache.tar" &&
		mv "$WD/run/ccache" "$CCACHE_KEPT.new.$$" &&
		{ [ ! -d "$CCACHE_KEPT" ] || mv "$CCACHE_KEPT" "$CCACHE_KEPT.old.$$"; } &&
		mv "$CCACHE_KEPT.new.$$" "$CCACHE_KEPT"
	rm -rf "$CCACHE_KEPT.new.$$" "$CCACHE_KEPT.old.$$"
fi
for n in 2 3; do
	vm --no-module "${drives[@]}" -- "$0" boot $n || fail "boot $n"
	cp "$WD/run/sums" "$WD/sums"
done
echo "packages installed; the device came back by itself on 2 reboots, data verified"
