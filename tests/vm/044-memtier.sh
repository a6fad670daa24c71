#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# dmt: smp
# shellcheck source=tests/vm/lib.sh disable=SC2016,SC2154  # conditions are evaluated later; counters come from eval
# The volatile memory tier (clean copies on a CPU-less NUMA node, what CXL
# memory looks like): NVMe hot tier, NVMe-oF cold tier (nvmf:// over the
# bench's in-guest nvmet target), memory tier numa:NODE:64M. Two boots on
# the same drives, the first ended by a power cut (QEMU killed).
# Boot 1:
#   errors    numa:NODE:4G on a 256 MiB node and a node that does not exist
#             exit 2 with what to change; nothing connected, the hot drive
#             untouched, no device, no mem.conf line
#   create    the node's MemFree drops by 64 MiB at create (pages up front),
#             node 0's does not; status: node, size, no copies; class mem,
#             not durable
#   reads     a ckpt "model" (2 x 16 MiB) moved to the remote tier, caches
#             dropped, read again and again with O_DIRECT: misses first, then
#             copies (fills) and hits, the remote tier no longer read; data
#             verifies
#   write     2 MiB overwritten in the middle with O_DIRECT: copies
#             invalidated, reads (from the tier, then from new copies)
#             return the new data, ckpt verify sees exactly the 512 new
#             blocks
#   resize    mem_size_mb 64 -> 32 -> 64 live (tierctl policy): MemFree follows
#   reload    remove gives the 64 MiB back; activate re-creates an empty tier
#             (every copy is filled after activation)
#   cut       fsync'd ckpt bursts (each acknowledged to the host) while the
#             model is read in a loop; QEMU killed
# Boot 2:
#   recover   activate (the state directory carried over): no data lost
#             (model checksum, every acknowledged burst, xfs_repair -n), the
#             memory tier re-created empty (every copy filled after
#             activation; heat is persisted, so the first read of the model
#             misses nearly every extent and may already hit a few)
#   pin       `tierctl pin --tier mem` makes a file resident with no read
#   remove    all of the node's memory back; the kernel itself refuses a
#             table asking for 4096 MiB of the node, or a node that does not
#             exist, with a clear message and nothing left behind
. "$(dirname "$0")/lib.sh"
DEV=mt
D=/dev/mapper/$DEV
MNT=/mnt/mt
WD=$TOP/build/vm/$TEST_NAME
MEM_MIB=64
MODEL=(--files 2 --size 16M --seed 7)
MODEL_EXTENTS=32 # 2 x 16 MiB in 1 MiB extents
VM_ARGS=(--nvme 128M --nvmf 512M --numa-node 256M)

# MemFree of NUMA node $1, in KiB.
memfree() { awk '$3 == "MemFree:" { print $4 }' "/sys/devices/system/node/node$1/meminfo"; }

# The memory tier's fields of the status line, as shell variables for
# eval: mem_node mem_max mem_used copies hits misses fills evictions
# invalidations (after the migration fields and the per-tier mapped counts,
# see lib.sh), plus reads0/reads1.
mem_stats() { # dev
	dmsetup status "$1" | awk '{
		n = $9; p = 10 + 5 * n; m = p + 9 + n
		if ($3 != "tier" || NF < m + 8) {
			print "mem_stats: no memory tier fields in the status: " $0 >"/dev/stderr"
			exit 1
		}
		printf "mem_node=%s mem_max=%s mem_used=%s copies=%s hits=%s misses=%s fills=%s evictions=%s invalidations=%s reads0=%s reads1=%s\n", \
			$m, $(m + 1), $(m + 2), $(m + 3), $(m + 4), $(m + 5), $(m + 6), $(m + 7), $(m + 8), $13, $18
	}'
}
mem_eval() { # dev
	local s
	s=$(mem_stats "$1") || fail "no memory tier status of $1"
	eval "$s"
}
copies_now() { mem_stats $DEV | sed 's/.*copies=\([0-9]*\).*/\1/'; }
mem_summary() { # dev
	(mem_eval "$1"
	 echo "node $mem_node $((mem_used >> 20))/$((mem_max >> 20)) MiB, $copies copies, $hits hits, $misses misses, $fills fills, $evictions evictions, $invalidations invalidations; tier reads $reads0/$reads1")
}

# MemFree of node $1 is $2 MiB lower (negative: higher) than $3 (KiB),
# -12/+8 MiB: pages on the per-CPU free lists are not in MemFree, a few MiB
# on 6.1 and up to about 10 MiB on 6.12 (whose lists grow): pages freed by a
# remove may sit there, and an allocation takes those first. The page cache
# may take some too: up to 10 s of dropping caches and waiting.
expect_drop() { # node mib before where
	local now drop i
	for i in $(seq 20); do
		now=$(memfree "$1")
		drop=$((($3 - now) / 1024))
		[ $drop -ge $(($2 - 12)) ] && [ $drop -le $(($2 + 8)) ] && break
		sync
		echo 3 >/proc/sys/vm/drop_caches
		sleep 0.5
	done
	echo "$4: node $1 MemFree $(($3 / 1024)) -> $((now / 1024)) MiB"
	[ $drop -ge $(($2 - 12)) ] && [ $drop -le $(($2 + 8)) ] ||
		fail "$4: node $1 MemFree changed by $drop MiB, expected $2 (after $i tries)"
}

# After a refused create: no device, no connection, no label, no record.
nothing_left() { # where
	udevadm settle
	! dmsetup info $DEV >/dev/null 2>&1 || fail "$1: $DEV exists"
	[ -z "$(fabric_ctrls)" ] || fail "$1: NVMe/TCP controllers left: $(fabric_ctrls | tr '\n' ' ')"
	cmp -s -n 1048576 "$DMT_NVME0" /dev/zero || fail "$1: the hot drive was written"
	! grep -qs node= /etc/dm-tier/mem.conf || fail "$1: a memory tier was recorded"
}

# One O_DIRECT pass over the model with ckpt verify (must verify) and the
# memory tier's counters before (b_*) and after it.
model_pass() { # where [ckpt verify options]
	local where=$1
	shift
	mem_eval $DEV
	b_copies=$copies b_hits=$hits b_misses=$misses b_reads1=$reads1
	ckpt verify $MNT/model "${MODEL[@]}" "$@" >/tmp/verify.out 2>&1 ||
		{ cat /tmp/verify.out; fail "$where: the model does not verify"; }
	mem_eval $DEV
	echo "$where: +$((hits - b_hits)) hits +$((misses - b_misses)) misses +$((reads1 - b_reads1)) tier-1 reads; $(mem_summary $DEV)"
}

# Right after an activation the memory tier is empty: the counters start
# from zero and every copy there is was filled since (udev's probe reads
# make a few). The first read of the model (after the mount) misses every
# extent once (two may share blocks the mount read): heat is persisted, so
# the first 512 KiB bio of an extent can queue its fill and the second one
# hit the new copy (hits may outnumber misses), but a copy from before the
# activation would serve both halves with no miss at all.
expect_cold() { # where
	mem_eval $DEV
	echo "$1: right after activation: $(mem_summary $DEV)"
	expect_eq "$mem_node" "$DMT_NUMA_NODE" "$1: memory tier node"
	expect_eq "$mem_max" $((MEM_MIB << 20)) "$1: memory tier size"
	[ "$copies" -le "$fills" ] && [ "$copies" -lt $MODEL_EXTENTS ] ||
		fail "$1: $copies copies ($fills fills) right after activation"
	mount $D $MNT
	echo 3 >/proc/sys/vm/drop_caches
	model_pass_damaged "$1: first read"
	[ $((misses - b_misses)) -ge $((MODEL_EXTENTS - 2)) ] ||
		fail "$1: the first read after activation: $((hits - b_hits)) hits, $((misses - b_misses)) misses over $MODEL_EXTENTS extents: copies from before"
}

# The model once 2 MiB of ckpt.0000 were overwritten: exactly those 512
# blocks differ from ckpt's pattern, and the file matches /tmp/expect's sum.
model_pass_damaged() { # where
	local bad
	mem_eval $DEV
	b_copies=$copies b_hits=$hits b_misses=$misses b_reads1=$reads1
	ckpt verify $MNT/model "${MODEL[@]}" --json >/tmp/verify.json 2>/dev/null || :
	mem_eval $DEV
	bad=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["bad_blocks"], d["bad_files"], d["errors"], " ".join(sorted({m["kind"] for m in d["mismatches"]})))' /tmp/verify.json)
	[ "$bad" = "${WANT_BAD:-0 0 0 }" ] ||
		{ cat /tmp/verify.json; fail "$1: ckpt verify found '$bad' (bad_blocks bad_files errors kinds), expected '${WANT_BAD:-0 0 0 }'"; }
	[ -z "${WANT_SUM:-}" ] || expect_eq "$(sum0)" "$WANT_SUM" "$1: checksum of the overwritten file"
	echo "$1: +$((hits - b_hits)) hits +$((misses - b_misses)) misses +$((reads1 - b_reads1)) tier-1 reads; $(mem_summary $DEV)"
}
sum0() { dev_sum $MNT/model/ckpt.0000; }

guest_first() {
	local n=${DMT_NUMA_NODE:-} hot=$DMT_NVME0 uri f0 z0 i size c
	[ -n "$n" ] || fail "the bench made no CPU-less NUMA node"
	[ -d "/sys/devices/system/node/node$n" ] || fail "node $n is not in sysfs"
	command -v nvme >/dev/null || skip "nvme-cli is not installed"
	command -v ckpt >/dev/null || fail "ckpt is not built (make user)"
	[ -n "${DMT_NVMF_NQN:-}" ] || fail "the bench exported no NVMe-oF subsystem"
	uri="nvmf://tcp/127.0.0.1:4420/$DMT_NVMF_NQN"
	rm -rf /etc/dm-tier
	nvme disconnect-all >/dev/null
	echo "node $n: $(($(memfree "$n") / 1024)) MiB free; node 0: $(($(memfree 0) / 1024)) MiB free"

	# ---- errors
	expect_status 2 "NUMA node $n has .* free, less than the 4 GiB asked for.*lower SIZE" \
		tierctl create $DEV --tier "$hot" --tier "$uri" --tier "numa:$n:4G" --force
	nothing_left "numa:$n:4G"
	expect_status 2 "NUMA node 7 does not exist.*node.*$n" \
		tierctl create $DEV --tier "$hot" --tier "$uri" --tier numa:7:64M --force
	nothing_left "numa:7:64M"

	# ---- create
	f0=$(memfree "$n") z0=$(memfree 0)
	tierctl create $DEV --tier "$hot" --tier "$uri" --tier "numa:$n:${MEM_MIB}M" --force | tee /tmp/create.out
	expect_drop "$n" $MEM_MIB "$f0" "create"
	[ $(((z0 - $(memfree 0)) / 1024)) -lt $((MEM_MIB / 2)) ] ||
		fail "node 0 MemFree dropped by $(((z0 - $(memfree 0)) / 1024)) MiB at create: memory from the wrong node"
	grep -q "^[0-9a-f]\{32\} node=$n size_mb=$MEM_MIB" /etc/dm-tier/mem.conf ||
		{ cat /etc/dm-tier/mem.conf; fail "memory tier not recorded in mem.conf"; }
	mem_eval $DEV
	expect_eq "$mem_node" "$n" "mem_node"
	expect_eq "$mem_max" $((MEM_MIB << 20)) "mem_bytes_max"
	expect_eq "$mem_used" $((MEM_MIB << 20)) "mem_bytes_used (allocated up front)"
	expect_eq "$copies" 0 "copies after create"
	expect_eq "$(jfield $DEV '["nr_tiers"]')" 2 "nr_tiers (durable)"
	expect_eq "$(jfield $DEV '["tiers"][1]["class"]')" nvmf "class of tier 1"
	expect_eq "$(jfield $DEV '["tiers"][2]["class"]')" mem "class of the memory tier"
	expect_eq "$(jfield $DEV '["tiers"][2]["durable"]')" False "durable of the memory tier"
	expect_eq "$(jfield $DEV '["tiers"][2]["numa_node"]')" "$n" "numa_node of the memory tier"
	tierctl status $DEV | grep -Eq "numa node $n +mem +no " || { tierctl status $DEV; fail "no memory tier row in tierctl status"; }

	# ---- reads of a model on the remote tier
	tier_set $DEV auto_migrate 0
	mkfs.xfs -q $D
	mkdir -p $MNT && mount $D $MNT
	ckpt write $MNT/model "${MODEL[@]}" --qd 16
	umount $MNT
	size=$(blockdev --getsz $D)
	dmsetup message $DEV 0 migrate 0 "$size" 1
	tier_wait $DEV 180 '[ $manual_pending = 0 ] && [ $in_flight = 0 ] && [ $mapped0 = 0 ]' ||
		fail "migrate to the remote tier not done: $(tier_summary $DEV)"
	echo "model on the remote tier: $(tier_summary $DEV)"
	mount $D $MNT
	echo 3 >/proc/sys/vm/drop_caches
	model_pass "read 1"
	[ $((misses - b_misses)) -ge $MODEL_EXTENTS ] || fail "read 1: only $((misses - b_misses)) misses"
	[ $((reads1 - b_reads1)) -ge $MODEL_EXTENTS ] || fail "read 1: only $((reads1 - b_reads1)) reads of the remote tier"
	for i in 2 3; do
		wait_for 20 '[ "$(copies_now)" -ge $MODEL_EXTENTS ]' || :
		model_pass "read $i"
	done
	wait_for 30 '[ "$(copies_now)" -ge $MODEL_EXTENTS ]' ||
		fail "fewer than $MODEL_EXTENTS copies after 3 reads: $(mem_summary $DEV)"
	[ "$fills" -ge $MODEL_EXTENTS ] || fail "copies without fills: $(mem_summary $DEV)"
	model_pass "read 4"
	[ $((hits - b_hits)) -ge $MODEL_EXTENTS ] || fail "read 4: only $((hits - b_hits)) hits with $b_copies copies"
	[ $((reads1 - b_reads1)) -le 2 ] || fail "read 4: the remote tier was still read $((reads1 - b_reads1)) times"
	c=$(jfield $DEV '["tiers"][2]["hit_ratio"]')
	python3 -c "import sys; sys.exit(not 0 < $c < 1)" || fail "hit_ratio $c"
	echo "reads: copies and hits grow, the remote tier is not read any more (hit ratio $c)"

	# ---- write: 2 MiB in the middle of ckpt.0000, O_DIRECT
	dd if=$MNT/model/ckpt.0000 of=/tmp/expect bs=1M iflag=direct status=none
	rand_bytes 2M >/tmp/patch
	dd if=/tmp/patch of=/tmp/expect bs=512K seek=13 conv=notrunc status=none
	WANT_SUM=$(dev_sum /tmp/expect)
	mem_eval $DEV
	c=$invalidations
	dd if=/tmp/patch of=$MNT/model/ckpt.0000 bs=512K seek=13 conv=notrunc oflag=direct status=none
	mem_eval $DEV
	[ $((invalidations - c)) -ge 2 ] || fail "overwriting 2 MiB invalidated $((invalidations - c)) copies: $(mem_summary $DEV)"
	WANT_BAD="512 1 0 wrong-data"
	for i in 1 2 3; do
		model_pass_damaged "read $i after the write"
		wait_for 20 '[ "$(copies_now)" -ge $MODEL_EXTENTS ]' || :
	done
	[ $((hits - b_hits)) -ge $MODEL_EXTENTS ] || fail "after the write: reads not served from copies ($((hits - b_hits)) hits)"
	echo "write: $((invalidations - c)) copies invalidated, the new data reads back from the tier and from new copies"

	# ---- resize live
	f0=$(memfree "$n")
	tierctl policy $DEV mem_size_mb=32 >/dev/null
	expect_drop "$n" -32 "$f0" "mem_size_mb 32"
	mem_eval $DEV
	expect_eq "$mem_max" $((32 << 20)) "mem_bytes_max after the resize"
	[ "$copies" -le 32 ] || fail "$copies copies in 32 MiB"
	model_pass_damaged "read at 32 MiB"
	tierctl policy $DEV mem_size_mb=$MEM_MIB >/dev/null
	expect_drop "$n" 0 "$f0" "back to $MEM_MIB MiB"

	# ---- reload: remove / activate
	umount $MNT
	f0=$(memfree "$n")
	tierctl remove $DEV
	expect_drop "$n" -$MEM_MIB "$f0" "remove"
	# Against the free memory after the remove: what activation takes.
	f0=$(memfree "$n")
	tierctl activate $DEV | tee /tmp/activate.out
	expect_drop "$n" $MEM_MIB "$f0" "activate"
	tier_set $DEV auto_migrate 0
	expect_cold "after remove + activate"

	# ---- power cut under reads and acknowledged bursts
	cp -r /etc/dm-tier /dmt-out/state
	echo "$WANT_SUM" >/dmt-out/want_sum
	: >/dmt-out/acked
	(while :; do ckpt verify $MNT/model --files 2 --size 16M --seed 7 >/dev/null 2>&1; done) &
	touch /dmt-out/arm # the --crash-after countdown starts now
	echo "bursts running; the power cut comes"
	for i in $(seq 100); do
		ckpt write $MNT/b$i --files 2 --size 2M --seed $((100 + i)) --qd 4 >/dev/null || fail "burst $i"
		echo "$i" >>/dmt-out/acked
	done
	sleep 120
	fail "no power cut"
}

guest_second() {
	local n=$DMT_NUMA_NODE f0 i acked c np
	mkdir -p /etc/dm-tier $MNT
	cp "$WD"/saved/state/* /etc/dm-tier/
	WANT_SUM=$(cat "$WD/saved/want_sum")
	acked=$(cat "$WD/saved/acked")

	# ---- recover
	f0=$(memfree "$n")
	tierctl activate | tee /tmp/activate.out
	grep -q "activated /dev/mapper/$DEV" /tmp/activate.out || fail "$DEV not activated"
	expect_drop "$n" $MEM_MIB "$f0" "activate after the power cut"
	tier_set $DEV auto_migrate 0
	WANT_BAD="512 1 0 wrong-data"
	expect_cold "after the power cut"
	for i in $acked; do
		ckpt verify $MNT/b$i --files 2 --size 2M --seed $((100 + i)) >/tmp/verify.out 2>&1 ||
			{ cat /tmp/verify.out; fail "acknowledged burst $i lost"; }
	done
	echo "recover: $(echo "$acked" | wc -w) acknowledged bursts and the model intact"

	# ---- pin
	ckpt write $MNT/pin --files 1 --size 8M --seed 9 >/dev/null
	mem_eval $DEV
	c=$fills
	tierctl pin $DEV $MNT/pin/ckpt.0000 --tier mem | tee /tmp/pin.out
	np=$(sed -n 's/.*pinned \([0-9]*\) extents.*/\1/p' /tmp/pin.out)
	[ "${np:-0}" -ge 8 ] || fail "pin --tier mem pinned '${np:-}' extents of an 8 MiB file"
	# The memory tier is full of the model's and the bursts' copies: the
	# resident extents are filled in (evicting others) with no read at all.
	wait_for 30 '[ "$(mem_stats $DEV | sed "s/.*fills=\([0-9]*\).*/\1/")" -ge $((c + np)) ]' ||
		fail "pin --tier mem: $np extents not filled without reads: $(mem_summary $DEV)"
	mem_eval $DEV
	b_hits=$hits
	b_misses=$misses
	ckpt verify $MNT/pin --files 1 --size 8M --seed 9 >/dev/null || fail "the pinned file does not verify"
	mem_eval $DEV
	expect_eq "$((misses - b_misses))" 0 "misses reading the pinned file"
	[ $((hits - b_hits)) -ge "$np" ] || fail "the pinned file's first read hit only $((hits - b_hits)) times"
	echo "pin: $np extents resident without reads, the first read all hits: $(mem_summary $DEV)"
	tierctl status $DEV

	# ---- remove, then what the kernel refuses by itself
	umount $MNT
	xfs_repair -n $D >/tmp/repair.log 2>&1 || { cat /tmp/repair.log; fail "xfs_repair -n found problems"; }
	local table
	table=$(dmsetup table $DEV)
	f0=$(memfree "$n")
	tierctl remove $DEV
	expect_drop "$n" -$MEM_MIB "$f0" "remove"
	f0=$(memfree "$n")
	dmesg -C
	expect_status 1 "" dmsetup create mtk --table "$(mem_table "$table" "$n" 4096)"
	klog_has "memory tier: NUMA node $n could not supply 4096 MiB" ||
		{ dmesg | tail; fail "no clear message for 4096 MiB of a 256 MiB node"; }
	dmesg | grep 'memory tier' | sed 's/^/  dmesg: /'
	! dmsetup info mtk >/dev/null 2>&1 || fail "a refused table left a device"
	expect_drop "$n" 0 "$f0" "after the refused 4096 MiB table"
	dmesg -C
	expect_status 1 "" dmsetup create mtk --table "$(mem_table "$table" 7 16)"
	klog_has "memory tier: NUMA node 7 is not online" ||
		{ dmesg | tail; fail "no clear message for node 7"; }
	dmesg | grep 'memory tier' | sed 's/^/  dmesg: /'
	! dmsetup info mtk >/dev/null 2>&1 || fail "a refused table left a device"
	echo "memory tier: allocated on node $n, copies never stale, nothing lost, empty after activation"
}

# TABLE with its mem_* optional arguments replaced by mem_node NODE
# mem_size_mb MIB.
mem_table() { # table node mib
	awk -v node="$2" -v mib="$3" '{
		n = $5; o = 6 + n; cnt = (NF >= o) ? $o : 0
		s = $1; for (i = 2; i < o; i++) s = s " " $i
		opts = ""; k = 0
		for (i = o + 1; i + 1 <= o + cnt; i += 2)
			if ($i !~ /^mem_/) { opts = opts " " $i " " $(i + 1); k += 2 }
		print s " " k + 4 opts " mem_node " node " mem_size_mb " mib }' <<<"$1"
}
run_guest_phase "$@"

rm -rf "$WD/saved"
vm --fresh "${VM_ARGS[@]}" --crash-after 4 --crash-armed -- "$0" first ||
	fail "boot 1: no power cut (status $?)"
mkdir -p "$WD/saved"
cp -r "$WD/run/state" "$WD/run/want_sum" "$WD/run/acked" "$WD/saved/" || fail "boot 1 left no state"
echo "boot 1: $(wc -l <"$WD/saved/acked") acknowledged bursts before the cut"
vm "${VM_ARGS[@]}" -- "$0" second
