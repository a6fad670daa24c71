#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bench's devices exist in the guest: emulated NVMe drives of the asked
# sizes, an NVMe-oF/TCP fabric namespace, and a CPU-less NUMA node.
. "$(dirname "$0")/lib.sh"

guest_main() {
	expect_eq "$(blockdev --getsize64 "$DMT_NVME0")" $((64 << 20)) "NVMe 0 size"
	expect_eq "$(blockdev --getsize64 "$DMT_NVME1")" $((96 << 20)) "NVMe 1 size"
	[ -b "${DMT_NVMF0:-}" ] || fail "no fabric namespace (DMT_NVMF0='${DMT_NVMF0:-}')"
	expect_eq "$(blockdev --getsize64 "$DMT_NVMF0")" $((128 << 20)) "fabric namespace size"
	local ctrl
	ctrl=$(basename "$DMT_NVMF0" | sed 's/n[0-9]*$//')
	grep -qx tcp /sys/class/nvme/*/transport || fail "no controller with transport tcp"
	# Data written through the fabric reaches the exported drive.
	echo fabric-ok | dd of="$DMT_NVMF0" bs=4096 conv=sync,fsync oflag=direct status=none
	expect_eq "$(dd if="$DMT_NVMF0" bs=4096 count=1 iflag=direct status=none | tr -d '\0')" fabric-ok "read back over the fabric"
	local node=/sys/devices/system/node/node$DMT_NUMA_NODE
	[ -d "$node" ] || fail "NUMA node $DMT_NUMA_NODE missing"
	expect_eq "$(cat "$node/cpulist")" "" "CPUs of the memory-only node"
	local kb
	kb=$(awk '/MemTotal/ {print $4}' "$node/meminfo")
	[ "$kb" -gt $((200 << 10)) ] && [ "$kb" -le $((256 << 10)) ] || fail "node $DMT_NUMA_NODE MemTotal ${kb} kB, expected about 256 MiB"
	echo "nvme: $DMT_NVME0 $DMT_NVME1, fabric: $DMT_NVMF0 ($ctrl), memory node: $DMT_NUMA_NODE (${kb} kB)"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 96M --nvmf 128M --numa-node 256M -- "$0" main
