#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Damaged metadata refuses to load, with a clear ti->error and a dmesg line
# naming the block: a map block of the active copy, a label, both superblock
# slots. Repaired, the device loads with its data. Metadata write errors move
# the device to read-only metadata mode, where a second failed commit keeps
# it (fail needs repeated failures for a minute) and reads still work; once
# the metadata area heals, a flush commits and the mode is rw again. Each
# change is shown by status and sent as a mode-change event.
. "$(dirname "$0")/lib.sh"

expect_refused() { # what table-line dmesg-pattern
	local rc=0
	dmsetup create c --table "$2" 2>/tmp/err || rc=$?
	[ $rc -ne 0 ] || fail "$1: the device loaded"
	dmesg | tail -n 20 >/tmp/dmesg
	grep -q "$3" /tmp/dmesg || { cat /tmp/dmesg; fail "$1: no dmesg line /$3/"; }
	echo "$1: refused: $(grep -o 'tier: [A-Z].*' /tmp/dmesg | tail -n 1)"
	tierctl activate c >/tmp/act 2>&1 && fail "$1: tierctl activate succeeded"
	echo "$1: tierctl says: $(head -n 1 /tmp/act)"
}

guest_main() {
	local a=$DMT_NVME0 b=$DMT_NVME1 table sb gen0 gen1 slot copy mapsec off
	tierctl create c --tier "$a" --tier "$b" >/dev/null
	dd if=<(rand_bytes) iflag=fullblock of=/tmp/data bs=1M count=48 status=none
	dd if=/tmp/data of=/dev/mapper/c bs=1M oflag=direct conv=fsync status=none
	table=$(dmsetup table c | cut -d' ' -f1-3)" 2048 2 $a $b"
	tierctl remove c

	# The newest valid superblock slot says which map copy is current.
	gen0=$(le "$a" $((8 * 512 + 0x20)) 8)
	gen1=$(le "$a" $((16 * 512 + 0x20)) 8)
	slot=$([ "$gen1" -gt "$gen0" ] && echo 1 || echo 0)
	sb=$(((8 + 8 * slot) * 512))
	copy=$(le "$a" $((sb + 0x48)) 4)
	mapsec=$(le "$a" $((sb + 0x58 + 8 * copy)) 8)
	echo "superblock slot $slot (generation $gen0/$gen1), map copy $copy at sector $mapsec"

	off=$((mapsec * 512 + 100))
	flip_byte "$a" $off
	expect_refused "map block" "$table" "map copy $copy block 0 (sector $mapsec) rejected"
	flip_byte "$a" $off

	flip_byte "$b" 300
	expect_refused "label" "$table" "label on .*checksum"
	flip_byte "$b" 300

	flip_byte "$a" $((8 * 512 + 64))
	flip_byte "$a" $((16 * 512 + 64))
	expect_refused "superblocks" "$table" "no usable superblock"
	flip_byte "$a" $((8 * 512 + 64))
	flip_byte "$a" $((16 * 512 + 64))

	tierctl activate c >/dev/null
	dev_cmp /dev/mapper/c /tmp/data ||
		fail "data differs after repair"
	tierctl remove c
	echo "repaired metadata loads with the data intact"

	# Metadata write errors: the metadata area of tier 0 starts failing.
	local ds sz
	ds=$(le "$a" $((0x90)) 8)
	sz=$(blockdev --getsz "$a")
	printf '0 %s error\n%s %s linear %s %s\n' "$ds" "$ds" $((sz - ds)) "$a" "$ds" |
		dmsetup create shim
	dmsetup create c --table "${table/$a//dev/mapper/shim}" 2>/dev/null &&
		fail "loaded with unreadable metadata"
	printf '0 %s linear %s 0\n' "$sz" "$a" | dmsetup load shim
	dmsetup resume shim
	dmsetup create c --table "${table/$a//dev/mapper/shim}"
	expect_eq "$(jfield c '["metadata_mode"]')" rw "mode before errors"
	# Only explicit flushes commit from here on, so that the steps below
	# are not raced by the periodic commit.
	dmsetup message c 0 set commit_interval_ms 60000
	tierctl watch c --json >/tmp/ev.json 2>/tmp/watch.err &
	local watch_pid=$!
	for _ in $(seq 50); do grep -q watching /tmp/watch.err && break; sleep 0.2; done
	printf '0 %s error\n%s %s linear %s %s\n' "$ds" "$ds" $((sz - ds)) "$a" "$ds" |
		dmsetup load shim
	dmsetup suspend shim && dmsetup resume shim
	dd if=<(rand_bytes) iflag=fullblock of=/dev/mapper/c bs=1M seek=60 count=1 oflag=direct status=none
	dd if=/dev/null of=/dev/mapper/c conv=fsync status=none 2>/dev/null &&
		fail "flush succeeded although the metadata could not be written"
	expect_eq "$(jfield c '["metadata_mode"]')" ro "mode after a failed commit"
	dd if=<(rand_bytes) iflag=fullblock of=/dev/mapper/c bs=1M seek=61 count=1 oflag=direct status=none 2>/dev/null &&
		fail "read-only metadata mode allocated a new extent"
	dev_cmp /dev/mapper/c /tmp/data ||
		fail "read-only mode: old data unreadable"
	dd if=/dev/null of=/dev/mapper/c conv=fsync status=none 2>/dev/null &&
		fail "second flush succeeded"
	expect_eq "$(jfield c '["metadata_mode"]')" ro "mode after a second failed commit"
	dev_cmp /dev/mapper/c /tmp/data ||
		fail "read-only mode after two failures: old data unreadable"
	klog_has 'metadata mode now ro' || fail "no dmesg line for read-only mode"
	! klog_has 'metadata mode now fail' || fail "two failed commits went to fail mode"
	# The metadata area heals: the next flush commits, the mode is rw.
	printf '0 %s linear %s 0\n' "$sz" "$a" | dmsetup load shim
	dmsetup suspend shim && dmsetup resume shim
	dd if=/dev/null of=/dev/mapper/c conv=fsync status=none ||
		fail "flush failed after the metadata area healed"
	expect_eq "$(jfield c '["metadata_mode"]')" rw "mode after a retried commit succeeded"
	dd if=<(rand_bytes) iflag=fullblock of=/dev/mapper/c bs=1M seek=61 count=1 oflag=direct conv=fsync status=none ||
		fail "rw mode again, but a new extent cannot be allocated"
	# Each mode change is a mode-change event carrying the new mode.
	for _ in $(seq 50); do [ "$(grep -c mode-change /tmp/ev.json)" -ge 2 ] && break; sleep 0.2; done
	kill $watch_pid
	python3 - <<-'EOF' || { cat /tmp/ev.json; fail "mode-change events"; }
		import json
		ev = [json.loads(l) for l in open("/tmp/ev.json")]
		modes = [e["metadata_mode"] for e in ev if e["event"] == "mode-change"]
		assert modes == ["ro", "rw"], modes
	EOF
	dmsetup remove --retry c
	dmsetup remove --retry shim
	echo "metadata errors: rw -> ro, kept on a second failure, rw once healed, reported"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 128M -- "$0" main
