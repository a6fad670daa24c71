#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The same module builds against bookworm-backports' 6.12 headers and loads
# and unloads in a VM booting that kernel (fetched once into the cache).
. "$(dirname "$0")/lib.sh"
if ! msg=$("$TOP/tools/kernel-locate" 6.12 2>&1 >/dev/null); then
	skip "kernel 6.12 not obtainable from Debian's archive here: $msg"
fi
DMT_TEST_NAME=$TEST_NAME DMT_KERNEL=6.12 exec "$(dirname "$0")/001-module-load.sh"
