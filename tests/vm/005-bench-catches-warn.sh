#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of the bench: a guest kernel WARNING fails the run (status 126)
# and the report is shown, even though the command itself succeeded.
. "$(dirname "$0")/lib.sh"

guest_main() {
	insmod "$1" && echo "fixture loaded"
}
run_guest_phase "$@"

eval "$("$TOP/tools/kernel-locate" 6.1)"
fx=$TOP/build/fixtures/warn
mkdir -p "$fx"
cp "$TOP"/tests/vm/fixtures/warn/{warn_on_load.c,Kbuild} "$fx/"
make -s -C "$KDIR" M="$fx" modules >/dev/null 2>&1 || fail "fixture module does not build"
rc=0
out=$(vm -- "$0" main "$fx/warn_on_load.ko" 2>&1) || rc=$?
echo "$out"
expect_eq "$rc" 126 "vm-run status for a WARNing guest"
grep -q 'dmesg: .*deliberate warning' <<<"$out" || fail "the WARNING was not shown"
echo "the bench failed the run and showed the warning, as it must"
