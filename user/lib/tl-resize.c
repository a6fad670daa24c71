// SPDX-License-Identifier: GPL-2.0
/* libtier: resizing an active device (see tl-resize.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tl-disk.h"
#include "tl-resize.h"

static const char *bound_text(enum tier_resize_bound b)
{
	switch (b) {
	case TIER_RESIZE_BOUND_MAP:
		return "the map room fixed when the device was created";
	case TIER_RESIZE_BOUND_CAPACITY:
		return "the tiers' capacity";
	default:
		return "the 64-bit byte limit";
	}
}

int tl_resize_plan(const struct tier_sb *sb, const u64 *dev_sectors, u64 virt,
		   struct tl_resize_plan *p, struct tl_err *err)
{
	struct tier_sb_tier rec[TIER_MAX_TIERS];
	u32 i, b = sb->extent_shift + TIER_SECTOR_SHIFT;
	int r;

	memset(p, 0, sizeof(*p));
	memset(rec, 0, sizeof(rec));
	p->old_virt = sb->virt_extents;
	for (i = 0; i < sb->nr_tiers && i < TIER_MAX_TIERS; i++) {
		p->old_nr[i] = sb->tier[i].nr_extents;
		r = tier_sb_tier_grown(sb, i, dev_sectors[i], &rec[i]);
		if (r == -ENOSPC)
			return tl_fail(err, TL_FAIL,
				       "tier %u's device shrank: %llu bytes, the superblock records %llu; a tier is never truncated: give the device its size back",
				       i,
				       (unsigned long long)dev_sectors[i]
					       << TIER_SECTOR_SHIFT,
				       (unsigned long long)sb->tier[i].dev_sectors
					       << TIER_SECTOR_SHIFT);
		if (r < 0)
			return tl_fail(err, TL_FAIL,
				       "tier %u's device is smaller than its data start",
				       i);
		if (r == 1)
			p->grown |= 1U << i;
	}
	p->sb = *sb;
	/* The grown records with the current size: always accepted. */
	r = tier_sb_resize(&p->sb, rec, sb->virt_extents, NULL);
	if (r)
		return tl_fail(err, TL_FAIL,
			       "the superblock does not accept the grown tiers (%d)",
			       r);
	p->max_virt = tier_sb_max_virt(&p->sb, &p->bound);
	for (i = 0; i < p->sb.nr_tiers; i++)
		p->capacity += p->sb.tier[i].nr_extents;
	if (!virt)
		return TL_OK;
	if (virt > p->max_virt)
		return tl_fail(err, TL_USAGE,
			       "the largest virtual size is %llu bytes (%llu extents), limited by %s; %s",
			       (unsigned long long)p->max_virt << b,
			       (unsigned long long)p->max_virt,
			       bound_text(p->bound),
			       p->bound == TIER_RESIZE_BOUND_MAP ?
				       "to go beyond, create a new device with a larger --max-size and copy the data over" :
				       "grow a tier's device or add a tier (tierctl add-tier) first");
	r = tier_sb_resize(&p->sb, NULL, virt, NULL);
	if (r)
		return tl_fail(err, TL_USAGE, "a virtual size of %llu extents is refused",
			       (unsigned long long)virt);
	return TL_OK;
}

int tl_resize_label(const struct tier_label *l, const struct tier_sb *sb,
		    struct tier_label *out)
{
	const struct tier_sb_tier *t;
	int pos;

	*out = *l;
	pos = tier_label_sb_index(l, sb);
	if (pos < 0)
		return -1;
	t = &sb->tier[pos];
	out->nr_extents = t->nr_extents;
	out->dev_sectors = t->dev_sectors;
	return out->nr_extents != l->nr_extents ||
	       out->dev_sectors != l->dev_sectors;
}

u64 tl_resize_mapped(const void *blks, u64 nr, u64 first_block, u64 from,
		     u64 to, u64 *first)
{
	struct tier_map_entry e;
	u64 b, v, n = 0;
	u32 i;

	*first = U64_MAX;
	for (b = 0; b < nr; b++) {
		const u8 *blk = (const u8 *)blks + b * TIER_BLOCK_SIZE;

		for (i = 0; i < TIER_MAP_ENTRIES; i++) {
			v = (first_block + b) * TIER_MAP_ENTRIES + i;
			if (v < from || v >= to)
				continue;
			tier_map_block_get(blk, i, &e);
			if (!(e.word & TIER_MAPW_MAPPED))
				continue;
			if (!n)
				*first = v;
			n++;
		}
	}
	return n;
}

int tl_resize_mapped_on_disk(const char *meta_path, const struct tier_sb *sb,
			     u64 from, u64 to, u64 *count, u64 *first,
			     struct tl_err *err)
{
	u64 b0, b1, b, n, f;
	struct tier_err terr;
	void *blk;
	int fd, rc = TL_OK;

	*count = 0;
	*first = U64_MAX;
	if (from >= to)
		return TL_OK;
	blk = tl_block_alloc(1);
	if (!blk)
		return tl_fail(err, TL_FAIL, "out of memory");
	fd = open(meta_path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		free(blk);
		return tl_fail(err, TL_FAIL, "cannot open %s: %s", meta_path,
			       strerror(errno));
	}
	b0 = from / TIER_MAP_ENTRIES;
	b1 = (to - 1) / TIER_MAP_ENTRIES;
	for (b = b0; b <= b1; b++) {
		sector_t s = tier_map_block_sector(sb, sb->active_copy, b);

		if (tl_pread_full(fd, blk, TIER_BLOCK_SIZE,
				  (u64)s << TIER_SECTOR_SHIFT) ||
		    tier_map_block_check(blk, sb, sb->active_copy, b, &terr)) {
			rc = tl_fail(err, TL_FAIL,
				     "cannot read map block %llu on %s (tierctl check tells more)",
				     (unsigned long long)b, meta_path);
			break;
		}
		n = tl_resize_mapped(blk, 1, b, from, to, &f);
		if (n && *first == U64_MAX)
			*first = f;
		*count += n;
	}
	close(fd);
	free(blk);
	return rc;
}

int tl_resize_shrink_open(const char *name, u64 old_bytes, u64 new_bytes,
			  int open_count, bool yes, struct tl_err *err)
{
	char from[TL_SIZE_STR_LEN], to[TL_SIZE_STR_LEN], cut[TL_SIZE_STR_LEN];

	if (!new_bytes || new_bytes >= old_bytes || open_count <= 0 || yes)
		return TL_OK;
	return tl_fail(err, TL_FAIL,
		       "resize: %s is open (%d opener%s: a mounted filesystem, or a program using it); shrinking it from %s to %s cuts off its last %s, and a filesystem on it must be shrunk first (XFS cannot shrink: copy its data to a smaller device instead; ext4: unmount, then resize2fs); once nothing on it reaches past the new end, run again with --yes",
		       name, open_count, open_count == 1 ? "" : "s",
		       tl_size_str(old_bytes, from), tl_size_str(new_bytes, to),
		       tl_size_str(old_bytes - new_bytes, cut));
}
