#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Offline tools on a real device (tierctl check, dump, repair). With data
# written (checksummed), each metadata structure is damaged in turn with dd:
# the label of tier 1, superblock slot 0, slot 1, block 0 of the inactive
# and of the active map copy, a used count (resealed, so that the kernel
# reads it). check names the block (exit 1 for damage the kernel refuses; a
# warning, exit 0, and exit 1 with --strict for what the kernel passes over),
# repair without --yes writes nothing, repair --yes fixes it, check is clean,
# the device activates and the data verifies. Active devices are refused.
# Then dump -> restore: onto the same devices with the metadata destroyed
# (--keep-uuid), and onto dd copies under a new identity and name, active
# next to the original; the dumps agree but for paths and identity.
. "$(dirname "$0")/lib.sh"

# The slot the kernel uses, its map copy and that copy's first sector.
where() { # dev
	local g0 g1 sb
	g0=$(le "$1" $((8 * 512 + 0x20)) 8)
	g1=$(le "$1" $((16 * 512 + 0x20)) 8)
	SLOT=$([ "$g1" -gt "$g0" ] && echo 1 || echo 0)
	sb=$(((8 + 8 * SLOT) * 512))
	COPY=$(le "$1" $((sb + 0x48)) 4)
	MAP0=$(le "$1" $((sb + 0x58)) 8)
	MAP1=$(le "$1" $((sb + 0x60)) 8)
}

verify_data() { # what
	tierctl activate c >/dev/null
	dev_cmp /dev/mapper/c /tmp/data ||
		fail "$1: data differs after repair"
	tierctl remove c >/dev/null
	echo "$1: repaired, activates, 48 MiB verified"
}

# What repair may write: both labels and tier 0's metadata area, all before
# the tiers' data (data_start of each, from its label, read once at the
# start: META_END). Hashing the whole devices took a minute of the test
# under TCG.
meta_sums() {
	head -c "${META_END[0]}" "$DMT_NVME0" | md5sum
	head -c "${META_END[1]}" "$DMT_NVME1" | md5sum
}

# Repair: the preview writes nothing, --yes fixes, check is strict-clean.
repair_it() { # what want-preview-rc devs...
	local what=$1 want=$2
	shift 2
	meta_sums >/tmp/before
	expect_status "$want" "would write [1-9]" tierctl repair "$@"
	meta_sums | cmp -s - /tmp/before || fail "$what: repair without --yes wrote"
	expect_status 0 "wrote [1-9].*after repair, c: clean" tierctl repair --yes "$@"
	expect_status 0 "c: clean \\(0 errors, 0 warnings\\)" tierctl check --strict "$@"
	verify_data "$what"
}

guest_main() {
	local a=$DMT_NVME0 b=$DMT_NVME1
	tierctl create c --tier "$a" --tier "$b" >/dev/null
	META_END=($(($(le "$a" $((0x90)) 8) * 512)) $(($(le "$b" $((0x90)) 8) * 512)))
	[ "${META_END[0]}" -gt 0 ] && [ "${META_END[1]}" -gt 0 ] || fail "no data_start in the labels"
	dd if=<(rand_bytes) iflag=fullblock of=/tmp/data bs=1M count=48 status=none
	dd if=/tmp/data of=/dev/mapper/c bs=1M oflag=direct conv=fsync status=none
	# One more commit, after the one that mapped the 48 MiB: the
	# inactive map copy then holds every extent of /tmp/data too.
	dd if=<(rand_bytes) iflag=fullblock of=/dev/mapper/c bs=1M seek=60 count=1 oflag=direct conv=fsync status=none

	expect_status 2 "in use|is active.*tierctl remove c" tierctl check c
	expect_status 2 "in use|is active" tierctl repair --yes "$a" "$b"
	tierctl remove c >/dev/null

	expect_status 0 "c: clean \\(0 errors, 0 warnings\\)" tierctl check c
	tierctl dump --json c >/tmp/dump.json
	python3 - <<-'EOF' || fail "dump"
		import json
		d = json.load(open("/tmp/dump.json"))
		ext = d["extents"]
		assert d["name"] == "c" and len(d["tiers"]) == 2, d
		assert len(ext) == 49, len(ext)
		assert sorted(e["vext"] for e in ext) == list(range(48)) + [60]
		assert sum(t["used_extents"] for t in d["tiers"]) == 49
		pairs = {(e["tier"], e["pext"]) for e in ext}
		assert len(pairs) == 49, "a physical extent twice"
		print("dump: 49 extents, superblock generation", d["generation"])
	EOF
	tierctl dump c | grep -q '^  60 -> ' || fail "text dump lacks vext 60"

	# The label of tier 1: found by elimination, rebuilt.
	flip_byte "$b" 300
	expect_status 1 "error: $b \\(tier 1\\) label at sector 0: label: bad checksum" \
		tierctl check "$a" "$b"
	expect_status 1 "tier 1: no member device found" tierctl check c
	repair_it "label of tier 1" 1 "$b" "$a"

	# Superblock slots: the kernel passes over one bad slot.
	for s in 0 1; do
		flip_byte "$a" $(((8 + 8 * s) * 512 + 64))
		expect_status 0 "warning: $a \\(tier 0\\) superblock at sector $((8 + 8 * s)): slot $s: superblock: bad checksum.*the kernel passes over it" \
			tierctl check c
		expect_status 1 "clean, with warnings" tierctl check --strict c
		repair_it "superblock slot $s" 0 c
	done

	# Map copies: the inactive one is a warning, the active one damage.
	where "$a"
	local inactive=$((1 - COPY)) sec
	sec=$([ $inactive = 0 ] && echo "$MAP0" || echo "$MAP1")
	flip_byte "$a" $((sec * 512 + 100))
	expect_status 0 "warning: $a \\(tier 0\\) map at sector $sec: map copy $inactive block 0: map block: bad checksum.*does not read the inactive copy" \
		tierctl check c
	repair_it "map copy $inactive block 0 (inactive)" 0 c
	where "$a"
	sec=$([ "$COPY" = 0 ] && echo "$MAP0" || echo "$MAP1")
	flip_byte "$a" $((sec * 512 + 100))
	expect_status 1 "error: $a \\(tier 0\\) map at sector $sec: map copy $COPY block 0: map block: bad checksum" \
		tierctl check c
	tierctl activate c >/dev/null 2>&1 && fail "the kernel loaded a damaged active map copy"
	expect_status 1 "repair: rebuilt from map copy $((1 - COPY)) block 0" tierctl repair c
	repair_it "map copy $COPY block 0 (active)" 1 c

	# A used count, resealed: the kernel refuses it.
	where "$a"
	set_u64_resealed "$a" $(((8 + 8 * SLOT) * 512)) $((0x100 + 0x08)) 7
	expect_status 1 "superblock at sector $((8 + 8 * SLOT)): slot $SLOT: tier 0 used_extents is 7, the map maps" \
		tierctl check c
	tierctl activate c >/dev/null 2>&1 && fail "the kernel loaded a wrong used count"
	repair_it "used count" 1 c

	expect_status 0 '"status":"clean"' tierctl check --strict --json c
	tierctl dump --json c >/tmp/dump2.json
	python3 - <<-'EOF' || fail "dump after the repairs"
		import json
		a, b = (json.load(open(f)) for f in ("/tmp/dump.json", "/tmp/dump2.json"))
		# A slot repaired may roll back to the previous commit (vext 60).
		key = lambda d: sorted((e["vext"], e["tier"], e["pext"], e["flags"])
		                       for e in d["extents"] if e["vext"] < 48)
		assert key(a) == key(b), "the mapping changed"
		print("dump after every repair: the same 48 mappings of the data, generation",
		      a["generation"], "->", b["generation"])
	EOF

	# Dump and restore: the metadata destroyed (both labels, the whole
	# metadata area of tier 0), restored from the dump onto the same
	# devices, keeping the identity; then onto copies of the members
	# under a new identity, next to the original.
	local ds
	ds=$(le "$a" $((0x90)) 8)
	dd if=/dev/zero of="$a" bs=512 count="$ds" conv=fsync status=none
	dd if=/dev/zero of="$b" bs=4096 count=1 conv=fsync status=none
	expect_status 1 "no dm-tier label" tierctl check "$a" "$b"
	expect_status 0 "restored 'c'.*check: clean" tierctl restore --keep-uuid /tmp/dump2.json "$a" "$b"
	expect_status 0 "c: clean \\(0 errors, 0 warnings\\)" tierctl check --strict c
	tierctl dump --json c >/tmp/dump3.json
	verify_data "restore onto the same devices"
	dd if="$a" of="$DMT_NVME2" bs=1M conv=fsync status=none
	dd if="$b" of="$DMT_NVME3" bs=1M conv=fsync status=none
	expect_status 0 "restored 'copy'.*check: clean" \
		tierctl restore --name copy /tmp/dump2.json "$DMT_NVME2" "$DMT_NVME3"
	tierctl dump --json copy >/tmp/dump4.json
	python3 - <<-'EOF' || fail "restore round trip"
		import json
		a, b, c = (json.load(open(f)) for f in ("/tmp/dump2.json", "/tmp/dump3.json", "/tmp/dump4.json"))
		def strip(d, ids):
		    d = dict(d)
		    d["tiers"] = [{k: v for k, v in t.items() if k != "path" and (ids or k != "member_uuid")}
		                  for t in d["tiers"]]
		    if not ids:
		        d.pop("uuid"); d.pop("name")
		    return d
		assert strip(a, True) == strip(b, True), "restore --keep-uuid changed the dump"
		assert strip(a, False) == strip(c, False), "restore onto copies changed the dump"
		assert a["uuid"] != c["uuid"] and c["name"] == "copy"
		print("dump -> restore -> dump: the same but for paths (and uuids, name when asked)")
	EOF
	tierctl activate copy >/dev/null
	tierctl activate c >/dev/null
	dev_cmp /dev/mapper/copy /tmp/data ||
		fail "restored copy: data differs"
	dev_cmp /dev/mapper/c /tmp/data ||
		fail "original next to the copy: data differs"
	tierctl remove copy >/dev/null
	tierctl remove c >/dev/null
	echo "restored copy and original active side by side, data verified on both"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 128M --nvme 64M --nvme 128M -- "$0" main
