#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bench picks its accelerator by trying it: a fake qemu-system-x86_64 on
# PATH plays a nested paravirtual KVM that aborts QEMU (the MSR assertion), a
# KVM whose guest prints nothing, and a KVM that boots. vm-run must choose
# TCG, TCG and KVM, say why in one line, probe once per QEMU version (the
# verdict is cached), obey DMT_ACCEL=tcg|kvm, and fail a forced kvm that
# cannot boot with status 125 and a message, not an assertion dump.
# Host-only: no guest boots (vm-run --accel-only).
. "$(dirname "$0")/lib.sh"

if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
	# Without a usable /dev/kvm no probe runs; that answer is checked.
	out=$("$TOP/tools/vm-run" --accel-only 2>&1) || fail "vm-run --accel-only: $out"
	grep -q 'accel tcg: .*/dev/kvm' <<<"$out" || fail "no reason for TCG: $out"
	skip "no usable /dev/kvm here: only the no-KVM answer was checked ($out)"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; rm -f "${cache_files[@]}"' EXIT
cache_files=()
real_qemu=$(command -v qemu-system-x86_64)

# fake_qemu MODE: MODE is abort, silent or boots. Every probe is logged.
fake_qemu() {
	local dir=$tmp/$1
	mkdir -p "$dir"
	cat >"$dir/qemu-system-x86_64" <<EOF
#!/bin/bash
if [ "\${1:-}" = --version ]; then
	echo "QEMU emulator version 0.0.0 (dm-tier test $1 $$)"
	exit 0
fi
echo probe >>"$dir/probes"
console=
for a in "\$@"; do case \$a in file:*) console=\${a#file:} ;; esac; done
case $1 in
abort)
	echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2
	echo "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3183: kvm_buf_set_msrs: Assertion \\\`ret == cpu->kvm_msr_buf->nmsrs' failed." >&2
	kill -ABRT \$\$ ;;
silent) while :; do sleep 1; done ;;
boots)
	echo "[    1.0] Freeing unused kernel image (initmem) memory: 2000K" >"\$console"
	while :; do sleep 1; done ;;
esac
EOF
	chmod +x "$dir/qemu-system-x86_64"
}

accel() { # MODE [VAR=VALUE...]: run vm-run --accel-only with the fake QEMU
	local mode=$1
	shift
	env PATH="$tmp/$mode:$PATH" DMT_ACCEL_PROBE_S=3 "$@" \
		"$TOP/tools/vm-run" --accel-only 2>&1
}
probes() { cat "$tmp/$1/probes" 2>/dev/null | wc -l; }

before=$(ls "${DMT_CACHE:-$HOME/.cache/dm-tier}"/vm/accel-* 2>/dev/null || true)

fake_qemu abort
out=$(accel abort) || fail "vm-run with an aborting KVM: $out"
echo "$out"
grep -qx '.*accel tcg: /dev/kvm present but the probe boot failed: error: failed to set MSR 0x10a to 0x69' <<<"$out" ||
	fail "aborting KVM: expected TCG and the QEMU error as the reason"
rc=0
out=$(accel abort DMT_ACCEL=kvm) || rc=$?
echo "$out"
expect_eq "$rc" 125 "forced kvm that cannot boot"
grep -q 'accel kvm (DMT_ACCEL=kvm) cannot boot the guest: the probe boot failed: error: failed to set MSR' <<<"$out" ||
	fail "forced kvm: no clear message"
! grep -q Assertion <<<"$out" || fail "forced kvm: QEMU's assertion dump reached the user"
expect_eq "$(probes abort)" 1 "probes of the aborting KVM (the verdict must be cached)"

fake_qemu silent
out=$(accel silent) || fail "vm-run with a silent KVM: $out"
echo "$out"
grep -q 'accel tcg: /dev/kvm present but the probe boot printed nothing on the console in 3s' <<<"$out" ||
	fail "silent KVM: expected TCG and the reason"
out=$(accel silent) || fail "second run: $out"
expect_eq "$(probes silent)" 1 "probes of the silent KVM (cached verdict)"
pgrep -f "$tmp/silent" >/dev/null && fail "the probe left its QEMU running"

fake_qemu boots
out=$(accel boots) || fail "vm-run with a working KVM: $out"
echo "$out"
grep -q 'accel kvm: the probe boot under /dev/kvm worked' <<<"$out" || fail "working KVM not used"
out=$(accel boots DMT_ACCEL=kvm) || fail "forced kvm on a working KVM: $out"
grep -q 'accel kvm: ' <<<"$out" || fail "forced kvm on a working KVM: $out"
out=$(accel boots DMT_ACCEL=tcg) || fail "DMT_ACCEL=tcg: $out"
echo "$out"
grep -q 'accel tcg: DMT_ACCEL=tcg' <<<"$out" || fail "DMT_ACCEL=tcg not obeyed"
expect_eq "$(probes boots)" 1 "probes of the working KVM"

rc=0
out=$(accel boots DMT_ACCEL=fast) || rc=$?
expect_eq "$rc" 125 "DMT_ACCEL=fast"
grep -q "DMT_ACCEL='fast': use kvm or tcg" <<<"$out" || fail "bad DMT_ACCEL: $out"

# Only the fake QEMUs' verdicts are removed; the real one stays cached.
cache_files=()
for f in "${DMT_CACHE:-$HOME/.cache/dm-tier}"/vm/accel-*; do
	grep -qxF "$f" <<<"$before" || cache_files+=("$f")
done
[ "$real_qemu" = "$(command -v qemu-system-x86_64)" ] || fail "PATH leaked"
echo "accelerator probe: abort -> tcg, silent -> tcg, boots -> kvm, each probed once"
