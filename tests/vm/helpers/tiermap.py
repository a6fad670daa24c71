#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where each virtual extent lives, from the committed on-disk map.

  tiermap.py TIER0_DEV TIER1_DEV... FIRST LAST
      For each vext FIRST..LAST print "<vext> <tier> <start_sector> <sectors>"
      (sector on that tier's device; "<vext> - - -" when unmapped). Reads the
      labels (extent_shift at 0x84, data_start at 0x90), the newest
      superblock slot (sectors 8 and 16) and its active map copy
      (docs/FORMAT.md). Run after a commit.
"""
import sys


def le(dev, off, size):
    with open(dev, "rb") as f:
        f.seek(off)
        return int.from_bytes(f.read(size), "little")


def main(argv):
    devs = argv[1:-2]
    first, last = int(argv[-2]), int(argv[-1])
    a = devs[0]
    gen = [le(a, (8 + 8 * s) * 512 + 0x20, 8) for s in (0, 1)]
    slot = 1 if gen[1] > gen[0] else 0
    sb = (8 + 8 * slot) * 512
    copy = le(a, sb + 0x48, 4)
    mapsec = le(a, sb + 0x58 + 8 * copy, 8)
    ds = [le(d, 0x90, 8) for d in devs]
    shift = le(a, 0x84, 4)
    for v in range(first, last + 1):
        blk, ent = divmod(v, 254)
        off = (mapsec + 8 * blk) * 512 + 0x20 + 16 * ent
        w = le(a, off, 8)
        if not w >> 63:
            print(v, "-", "-", "-")
            continue
        tier = (w >> 56) & 0xF
        pext = w & ((1 << 48) - 1)
        print(v, tier, ds[tier] + (pext << shift), 1 << shift)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
