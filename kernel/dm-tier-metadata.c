// SPDX-License-Identifier: GPL-2.0
/*
 * dm-tier-metadata.c - reading, validating and committing the on-disk
 * metadata (labels, superblock slots, two map copies). The encoding and all
 * checks live in kernel/core/format.c and extent_map.c; this file does the
 * I/O and the commit protocol (docs/FORMAT.md "Commit"). Its state is
 * struct tier_md, which nobody else sees (dm-tier-metadata.h).
 */
#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <linux/dm-io.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "dm-tier-metadata.h"
#include "compat.h"
#include "core/format.h"

/* The metadata of one device; see dm-tier-metadata.h for the locking. */
struct tier_md {
	u32 nr_tiers;
	struct block_device *tier_bdev[TIER_MAX_TIERS];
	struct block_device *meta_bdev; /* tier 0's, or the metadata device */
	bool meta_ext; /* the metadata is on a separate device */
	const char *meta_name; /* the caller's, for logs */
	sector_t meta_dev_sectors; /* the metadata device's size at load */
	const char *tier_name[TIER_MAX_TIERS]; /* the caller's, for logs */
	struct tier_sb sb; /* last committed superblock */
	struct tier_settings settings; /* what the next commit records */
	struct dm_io_client *io_client;
	void *md_buf; /* TIER_MD_BUF_BLOCKS blocks */
};

const char *tier_mode_name(enum tier_md_mode mode)
{
	switch (mode) {
	case TIER_MODE_WRITE:
		return "rw";
	case TIER_MODE_READ_ONLY:
		return "ro";
	default:
		return "fail";
	}
}

struct tier_md *tier_md_create(u32 nr_tiers, struct block_device *const *bdevs,
			       const char *const *names,
			       struct block_device *meta_bdev,
			       const char *meta_name, char **error)
{
	struct tier_md *md;
	u32 i;

	md = kzalloc(sizeof(*md), GFP_KERNEL);
	if (!md) {
		*error = "Cannot allocate metadata buffers";
		return ERR_PTR(-ENOMEM);
	}
	md->nr_tiers = nr_tiers;
	for (i = 0; i < nr_tiers; i++) {
		md->tier_bdev[i] = bdevs[i];
		md->tier_name[i] = names[i];
	}
	md->meta_ext = !!meta_bdev;
	md->meta_bdev = meta_bdev ? meta_bdev : bdevs[0];
	md->meta_name = meta_bdev ? meta_name : names[0];
	md->md_buf = kvmalloc(TIER_MD_BUF_BLOCKS * TIER_BLOCK_SIZE, GFP_KERNEL);
	if (!md->md_buf) {
		*error = "Cannot allocate metadata buffers";
		kfree(md);
		return ERR_PTR(-ENOMEM);
	}
	md->io_client = dm_io_client_create();
	if (IS_ERR(md->io_client)) {
		int r = PTR_ERR(md->io_client);

		*error = "Cannot create the dm-io client";
		kvfree(md->md_buf);
		kfree(md);
		return ERR_PTR(r);
	}
	return md;
}

void tier_md_destroy(struct tier_md *md)
{
	if (!md)
		return;
	dm_io_client_destroy(md->io_client);
	kvfree(md->md_buf);
	kfree(md);
}

u32 tier_md_extent_shift(const struct tier_md *md)
{
	return md->sb.extent_shift;
}

u64 tier_md_virt_extents(const struct tier_md *md)
{
	return md->sb.virt_extents;
}

sector_t tier_md_data_start(const struct tier_md *md, u32 tier)
{
	return md->sb.tier[tier].data_start;
}

u32 tier_md_tier_class(const struct tier_md *md, u32 tier)
{
	return md->sb.tier[tier].tier_class;
}

void tier_md_uuid(const struct tier_md *md, u8 *uuid)
{
	memcpy(uuid, md->sb.uuid, TIER_UUID_LEN);
}

u64 tier_md_ctime(const struct tier_md *md)
{
	return md->sb.ctime;
}

u32 tier_md_heat_clock(const struct tier_md *md)
{
	time64_t now = ktime_get_real_seconds();

	if (now <= (time64_t)md->sb.ctime)
		return 0;
	return (u32)min_t(time64_t, now - md->sb.ctime, U32_MAX / 2);
}

void tier_md_meta_usage(const struct tier_md *md, u64 *used, u64 *total)
{
	sector_t end = md->sb.meta_start +
		       (2 + 2 * md->sb.map_blocks) * TIER_BLOCK_SECTORS;

	/* The label, the slots and both copies; on tier 0 up to its data. */
	*used = end / TIER_BLOCK_SECTORS;
	*total = (md->meta_ext ? md->meta_dev_sectors :
				 md->sb.tier[0].data_start) /
		 TIER_BLOCK_SECTORS;
}

/* Synchronous block I/O on a metadata device through dm-io. */
static int tier_md_io(struct tier_md *md, struct block_device *bdev,
		      blk_opf_t opf, sector_t sector, void *buf,
		      unsigned int nr_blocks)
{
	struct dm_io_region region = {
		.bdev = bdev,
		.sector = sector,
		.count = (sector_t)nr_blocks * TIER_BLOCK_SECTORS,
	};
	struct dm_io_request req = {
		.bi_opf = opf,
		.mem.type = is_vmalloc_addr(buf) ? DM_IO_VMA : DM_IO_KMEM,
		.client = md->io_client,
	};
	unsigned long error_bits = 0;
	int r;

	if (req.mem.type == DM_IO_VMA)
		req.mem.ptr.vma = buf;
	else
		req.mem.ptr.addr = buf;
	r = tier_compat_dm_io(&req, 1, &region, &error_bits);
	if (!r && error_bits)
		r = -EIO;
	return r;
}

int tier_md_flush_tier(struct tier_md *md, u32 tier)
{
	return blkdev_issue_flush(md->tier_bdev[tier]);
}

/* ---- loading ----------------------------------------------------------- */

static void tier_log_check(const char *what, const char *dev, sector_t sector,
			   const struct tier_err *err)
{
	DMERR("%s on %s, block at sector %llu: %s (item %llu, value %llu)",
	      what, dev, (unsigned long long)sector, tier_err_str(err->code),
	      (unsigned long long)err->item, (unsigned long long)err->value);
}

/* ---- re-binding a member ------------------------------------------------ */

int tier_md_check_member(struct tier_md *md, u32 tier,
			 struct block_device *bdev, const char *name,
			 char **error)
{
	struct tier_err err = {};
	struct tier_label label;
	void *buf;
	int r;

	buf = kmalloc(TIER_BLOCK_SIZE, GFP_KERNEL);
	if (!buf) {
		*error = "Cannot allocate a label buffer";
		return -ENOMEM;
	}
	r = tier_md_io(md, bdev, REQ_OP_READ, 0, buf, 1);
	if (r) {
		DMERR("%s: cannot read the label: %d", name, r);
		*error = "Cannot read a tier's label";
		goto out;
	}
	r = tier_label_decode(buf, &label, &err);
	if (r) {
		tier_log_check("label", name, 0, &err);
		DMERR("%s is not tier %u of %s: no valid label", name, tier,
		      md->tier_name[0]);
		*error = "A new tier device carries no valid dm-tier label";
		r = -EINVAL;
		goto out;
	}
	if (tier_label_check_sb(&label, &md->sb, tier, &err)) {
		tier_log_check("label", name, 0, &err);
		DMERR("%s is not tier %u of %s", name, tier, md->tier_name[0]);
		*error = "The new device does not carry this tier's label";
		r = -EINVAL;
	} else if (bdev_nr_sectors(bdev) < label.dev_sectors ||
		   bdev_nr_sectors(bdev) < md->sb.tier[tier].dev_sectors) {
		DMERR("%s: %llu sectors, label needs %llu", name,
		      (unsigned long long)bdev_nr_sectors(bdev),
		      (unsigned long long)label.dev_sectors);
		*error = "The new tier device is smaller than its label says";
		r = -EINVAL;
	}
out:
	kfree(buf);
	return r;
}

void tier_md_rebind(struct tier_md *md, u32 tier, struct block_device *bdev,
		    const char *name)
{
	md->tier_bdev[tier] = bdev;
	md->tier_name[tier] = name;
}

/*
 * The separate metadata device's label, into labels[TIER_META_DEV]: one of
 * this device's (uuid), a metadata device, and not smaller than created.
 */
static int tier_md_load_meta_label(struct tier_md *md,
				   struct tier_label *labels, char **error)
{
	struct tier_label *l = &labels[TIER_META_DEV];
	struct tier_err err = {};
	int r;

	r = tier_md_io(md, md->meta_bdev, REQ_OP_READ, 0, md->md_buf, 1);
	if (r) {
		DMERR("%s: cannot read the metadata device's label: %d",
		      md->meta_name, r);
		*error = "Cannot read the metadata device's label";
		return r;
	}
	r = tier_label_decode(md->md_buf, l, &err);
	if (r) {
		tier_log_check("label", md->meta_name, 0, &err);
		*error =
			r == -ENODATA ?
				"The metadata device carries no dm-tier label" :
				"The metadata device's label is corrupt or unknown (see dmesg)";
		return r;
	}
	if (l->tier_index != TIER_META_DEV ||
	    memcmp(l->uuid, labels[0].uuid, TIER_UUID_LEN)) {
		DMERR("%s: not the metadata device of %s (label: tier %u)",
		      md->meta_name, md->tier_name[0], l->tier_index);
		*error = "metadata_dev is not this device's metadata device";
		return -EINVAL;
	}
	md->meta_dev_sectors = bdev_nr_sectors(md->meta_bdev);
	if (md->meta_dev_sectors < l->dev_sectors) {
		DMERR("%s: %llu sectors, label needs %llu", md->meta_name,
		      (unsigned long long)md->meta_dev_sectors,
		      (unsigned long long)l->dev_sectors);
		*error = "The metadata device shrank since its creation";
		return -EINVAL;
	}
	return 0;
}

static int tier_md_load_labels(struct tier_md *md, struct tier_label *labels,
			       char **error)
{
	struct tier_err err = {};
	sector_t size;
	u32 i;
	int r;

	for (i = 0; i < md->nr_tiers; i++) {
		r = tier_md_io(md, md->tier_bdev[i], REQ_OP_READ, 0, md->md_buf,
			       1);
		if (r) {
			DMERR("%s: cannot read the label: %d", md->tier_name[i],
			      r);
			*error = "Cannot read a tier's label";
			return r;
		}
		r = tier_label_decode(md->md_buf, &labels[i], &err);
		if (r) {
			tier_log_check("label", md->tier_name[i], 0, &err);
			if (r == -ENODATA)
				*error =
					"A tier device carries no dm-tier label";
			else
				*error =
					"A tier's label is corrupt or unknown (see dmesg)";
			return r;
		}
		/*
		 * The label's tier index and count are hints; the position
		 * is checked against the superblock's list once it is read.
		 */
		if (labels[i].tier_index == TIER_META_DEV ||
		    (i && (labels[i].flags & TIER_LABEL_F_META))) {
			DMERR("%s: holds the metadata, given as tier %u",
			      md->tier_name[i], i);
			*error = "Tier devices are not in their label's order";
			return -EINVAL;
		}
		if (memcmp(labels[i].uuid, labels[0].uuid, TIER_UUID_LEN)) {
			DMERR("%s: belongs to another dm-tier device than %s",
			      md->tier_name[i], md->tier_name[0]);
			*error =
				"Tier devices belong to different dm-tier devices";
			return -EINVAL;
		}
		size = bdev_nr_sectors(md->tier_bdev[i]);
		if (size < labels[i].dev_sectors) {
			DMERR("%s: %llu sectors, label needs %llu",
			      md->tier_name[i], (unsigned long long)size,
			      (unsigned long long)labels[i].dev_sectors);
			*error = "A tier device shrank since its creation";
			return -EINVAL;
		}
	}
	/*
	 * Tier 0's metadata area: its own, or the spare one a tier 0
	 * replacement moved the metadata to before tierctl rewrote the label.
	 */
	if (!tier_label_meta_area(&labels[0], NULL, NULL) != md->meta_ext) {
		DMERR("%s: the metadata is %s, the table %s metadata_dev",
		      md->tier_name[0],
		      md->meta_ext ? "on tier 0" : "on a separate device",
		      md->meta_ext ? "gives" : "has no");
		if (md->meta_ext)
			*error = "The metadata is on tier 0: drop metadata_dev";
		else
			*error =
				"The metadata is on a separate device: name it as metadata_dev";
		return -EINVAL;
	}
	return md->meta_ext ? tier_md_load_meta_label(md, labels, error) : 0;
}

#define TIER_MSG_NEEDS_RO \
	"Metadata has features this module can only read: load the table read-only, or a newer module"

static int tier_md_load_sb(struct tier_md *md, sector_t meta_start,
			   bool read_only, char **error)
{
	struct tier_sb sb[2];
	struct tier_err err[2] = {}, perr = {};
	int ret[2], slot, r;
	u32 s;

	for (s = 0; s < 2; s++) {
		sector_t sector = tier_sb_sector(meta_start, s);

		r = tier_md_io(md, md->meta_bdev, REQ_OP_READ, sector,
			       md->md_buf, 1);
		if (r) {
			DMERR("%s: cannot read superblock slot %u: %d",
			      md->meta_name, s, r);
			*error = "Cannot read the superblock";
			return r;
		}
		ret[s] = tier_sb_decode(md->md_buf, s, &sb[s], &err[s]);
	}
	slot = tier_sb_pick(sb, ret, &perr);
	/*
	 * One bad slot is normal (never written yet, or torn by a crash
	 * during a commit): say so only when it leaves nothing usable.
	 */
	for (s = 0; s < 2 && slot < 0; s++)
		if (ret[s])
			tier_log_check("superblock slot", md->meta_name,
				       tier_sb_sector(meta_start, s), &err[s]);
	if (slot < 0) {
		DMERR("%s: no usable superblock: %s", md->meta_name,
		      tier_err_str(perr.code));
		*error = "Superblock is corrupt or unknown (see dmesg)";
		return slot;
	}
	/* Unknown ro_compat features: reading is safe, writing is not. */
	if (tier_sb_needs_ro(&sb[slot]) && !read_only) {
		*error = TIER_MSG_NEEDS_RO;
		return -EOPNOTSUPP;
	}
	md->sb = sb[slot];
	md->settings = md->sb.settings;
	return 0;
}

static int tier_md_load_map(struct tier_md *md, struct tier_map *map,
			    char **error)
{
	const struct tier_sb *sb = &md->sb;
	u32 copy = sb->active_copy;
	struct tier_err err = {};
	u64 index, n, k;
	int r;

	for (index = 0; index < map->nr_blocks; index += n) {
		sector_t sector = tier_map_block_sector(sb, copy, index);

		n = min_t(u64, TIER_MD_BUF_BLOCKS, map->nr_blocks - index);
		r = tier_md_io(md, md->meta_bdev, REQ_OP_READ, sector,
			       md->md_buf, n);
		if (r) {
			DMERR("%s: cannot read map blocks %llu..%llu: %d",
			      md->meta_name, index, index + n - 1, r);
			*error = "Cannot read the extent map";
			return r;
		}
		for (k = 0; k < n; k++) {
			void *blk = md->md_buf + k * TIER_BLOCK_SIZE;

			r = tier_map_load_block(map, sb, copy, index + k, blk,
						&err);
			if (r) {
				DMERR("%s: map copy %u block %llu (sector %llu) rejected",
				      md->meta_name, copy, index + k,
				      (unsigned long long)(sector +
							   k * TIER_BLOCK_SECTORS));
				tier_log_check("map block", md->meta_name,
					       sector + k * TIER_BLOCK_SECTORS,
					       &err);
				*error =
					"Extent map block is corrupt (see dmesg)";
				return r;
			}
		}
		cond_resched();
	}
	return 0;
}

/*
 * The inactive copy is behind by whatever the last commit wrote, and may be
 * torn or rotten: every block starts dirty for it, and each block read back
 * that already holds what the map would write is cleared, so the first
 * commit writes only the blocks that differ (P9: not the whole copy). A read
 * error only leaves blocks dirty: the commit rewrites them.
 */
static void tier_md_compare_inactive(struct tier_md *md, struct tier_map *map)
{
	const struct tier_sb *sb = &md->sb;
	u32 copy = sb->active_copy ^ 1;
	u64 index, n, k, same = 0;
	int r;

	tier_map_mark_all_dirty(map, copy);
	for (index = 0; index < map->nr_blocks; index += n) {
		n = min_t(u64, TIER_MD_BUF_BLOCKS, map->nr_blocks - index);
		r = tier_md_io(md, md->meta_bdev, REQ_OP_READ,
			       tier_map_block_sector(sb, copy, index),
			       md->md_buf, n);
		if (r) {
			DMWARN("%s: map copy %u blocks %llu..%llu unreadable: %d",
			       md->meta_name, copy, index, index + n - 1, r);
			continue;
		}
		for (k = 0; k < n; k++) {
			void *blk = md->md_buf + k * TIER_BLOCK_SIZE;

			same += tier_map_block_current(map, sb, copy, index + k,
						       blk);
		}
		cond_resched();
	}
	DMINFO("%s: map copy %u: %llu of %llu blocks current", md->meta_name,
	       copy, same, map->nr_blocks);
}

int tier_md_load(struct tier_md *md, const struct tier_table *tbl,
		 struct tier_map *map, struct tier_alloc *alloc, bool read_only,
		 char **error)
{
	struct tier_label *labels;
	struct tier_err err = {};
	sector_t meta_start, size;
	u32 i;
	int r;

	labels = kcalloc(TIER_MAX_DEVS, sizeof(*labels), GFP_KERNEL);
	if (!labels) {
		*error = "Cannot allocate memory for labels";
		return -ENOMEM;
	}
	r = tier_md_load_labels(md, labels, error);
	if (r)
		goto out;
	if (labels[0].extent_shift != tbl->extent_shift) {
		DMERR("%s: created with %u-sector extents, table says %u",
		      md->tier_name[0], 1U << labels[0].extent_shift,
		      tbl->extent_sectors);
		*error =
			"Extent size differs from the one the device was created with";
		r = -EINVAL;
		goto out;
	}
	if (md->meta_ext)
		meta_start = labels[TIER_META_DEV].meta_start;
	else
		tier_label_meta_area(&labels[0], &meta_start, NULL);
	r = tier_md_load_sb(md, meta_start, read_only, error);
	if (r)
		goto out;
	if (md->meta_ext && tier_label_check_sb(&labels[TIER_META_DEV], &md->sb,
						TIER_META_DEV, &err)) {
		tier_log_check("label vs superblock", md->meta_name, 0, &err);
		*error =
			"The metadata device's label disagrees with the superblock (see dmesg)";
		r = -EINVAL;
		goto out;
	}
	if (md->sb.nr_tiers != md->nr_tiers) {
		DMERR("%s: the table gives %u tiers, the superblock lists %u",
		      md->tier_name[0], md->nr_tiers, md->sb.nr_tiers);
		*error = "The table's tier count differs from the superblock's";
		r = -EINVAL;
		goto out;
	}
	for (i = 0; i < md->nr_tiers; i++) {
		int pos = tier_label_sb_index(&labels[i], &md->sb);

		if (pos >= 0 && pos != i) {
			DMERR("%s: the superblock lists it as tier %d, the table gives tier %u",
			      md->tier_name[i], pos, i);
			*error = "Tier devices are not in their label's order";
			r = -EINVAL;
			goto out;
		}
		r = tier_label_check_sb(&labels[i], &md->sb, i, &err);
		if (r) {
			tier_log_check("label vs superblock", md->tier_name[i],
				       0, &err);
			*error =
				"A tier's label disagrees with the superblock (see dmesg)";
			goto out;
		}
		/*
		 * A grown tier's label may still give the old size (rewritten
		 * after the commit): the superblock's data area must fit.
		 */
		size = bdev_nr_sectors(md->tier_bdev[i]);
		if (size < md->sb.tier[i].dev_sectors) {
			DMERR("%s: %llu sectors, the superblock records %llu",
			      md->tier_name[i], (unsigned long long)size,
			      (unsigned long long)md->sb.tier[i].dev_sectors);
			*error = "A tier device shrank since it was recorded";
			r = -EINVAL;
			goto out;
		}
	}

	r = tier_map_init(map, md->sb.virt_extents, TIER_MAP_F_HEAT);
	if (r) {
		*error = "Cannot allocate the extent map";
		goto out;
	}
	tier_map_set_clock(map, tier_md_heat_clock(md));
	r = tier_md_load_map(md, map, error);
	if (r)
		goto out;
	for (i = 0; i < md->nr_tiers; i++) {
		r = tier_alloc_init(&alloc[i], md->sb.tier[i].nr_extents);
		if (r) {
			*error = "Cannot allocate a tier's allocator";
			goto out;
		}
		tier_alloc_set_reserve_pct(&alloc[i], tbl->reserve_pct);
	}
	r = tier_alloc_load_map(alloc, md->nr_tiers, map, &err);
	if (r) {
		tier_log_check("map", md->tier_name[0], 0, &err);
		*error = "Extent map is inconsistent (see dmesg)";
		goto out;
	}
	for (i = 0; i < md->nr_tiers; i++) {
		if (alloc[i].nr_used != md->sb.tier[i].used_extents) {
			DMERR("%s: map uses %llu extents of tier %u, superblock says %llu",
			      md->tier_name[0], alloc[i].nr_used, i,
			      md->sb.tier[i].used_extents);
			*error =
				"Extent map disagrees with the superblock (see dmesg)";
			r = -EUCLEAN;
			goto out;
		}
	}
	tier_md_compare_inactive(md, map);
out:
	kfree(labels);
	return r;
}

void tier_md_get_settings(const struct tier_md *md, struct tier_settings *s)
{
	*s = md->settings;
}

void tier_md_set_settings(struct tier_md *md, const struct tier_settings *s)
{
	md->settings = *s;
}

u32 tier_md_tier_flags(const struct tier_md *md, u32 tier)
{
	return md->sb.tier[tier].flags;
}

void tier_md_set_tier_flags(struct tier_md *md, u32 tier, u32 mask, u32 value)
{
	md->sb.tier[tier].flags = (md->sb.tier[tier].flags & ~mask) |
				  (value & mask);
}

/* ---- commit ------------------------------------------------------------ */

/* Write the blocks of @copy that are dirty, batching contiguous runs. */
static int tier_md_write_map(struct tier_md *md, struct tier_map *m,
			     spinlock_t *map_lock, const struct tier_sb *nsb,
			     u32 copy)
{
	unsigned long flags;
	u64 index, n;
	int r;

	index = tier_map_commit_next(m, copy, 0);
	while (index < m->nr_blocks) {
		/* Capture a run of dirty blocks under the lock. */
		spin_lock_irqsave(map_lock, flags);
		for (n = 0; n < TIER_MD_BUF_BLOCKS && index + n < m->nr_blocks;
		     n++) {
			if (n && tier_map_commit_next(m, copy, index + n) !=
					 index + n)
				break;
			tier_map_fill_block(m, nsb, copy, index + n,
					    md->md_buf + n * TIER_BLOCK_SIZE);
		}
		spin_unlock_irqrestore(map_lock, flags);
		r = tier_md_io(md, md->meta_bdev, REQ_OP_WRITE,
			       tier_map_block_sector(nsb, copy, index),
			       md->md_buf, n);
		if (r) {
			DMERR("%s: writing map copy %u blocks %llu..%llu failed: %d",
			      md->meta_name, copy, index, index + n - 1, r);
			return r;
		}
		index = tier_map_commit_next(m, copy, index + n);
	}
	return 0;
}

/* Commit @nsb (a copy of md->sb with its changes) with the map. */
static int tier_md_commit_sb(struct tier_md *md, struct tier_map *map,
			     spinlock_t *map_lock, struct tier_sb *nsb_in,
			     const u64 *used)
{
	struct tier_sb nsb = *nsb_in;
	unsigned long flags;
	sector_t sb_sector;
	u32 copy, i;
	int r;

	nsb.generation++;
	nsb.commit_time = ktime_get_real_seconds();
	copy = md->sb.active_copy ^ 1;
	nsb.active_copy = copy;
	for (i = 0; i < nsb.nr_tiers; i++)
		nsb.tier[i].used_extents = used[i];
	/* Changed under the map lock, not md_lock: see tier_md_set_settings(). */
	spin_lock_irqsave(map_lock, flags);
	nsb.settings = md->settings;
	spin_unlock_irqrestore(map_lock, flags);

	/*
	 * Phase 1: the map blocks. The data tiers were flushed by the caller;
	 * the metadata device's data goes with phase 2's PREFLUSH.
	 */
	r = tier_md_write_map(md, map, map_lock, &nsb, copy);
	if (r)
		goto fail;
	/* Phase 2: the superblock that switches to the new copy. */
	tier_sb_encode(&nsb, md->md_buf);
	sb_sector =
		tier_sb_sector(nsb.meta_start, tier_sb_slot(nsb.generation));
	r = tier_md_io(md, md->meta_bdev, REQ_OP_WRITE | REQ_PREFLUSH | REQ_FUA,
		       sb_sector, md->md_buf, 1);
	if (r) {
		DMERR("%s: writing superblock generation %llu failed: %d",
		      md->meta_name, nsb.generation, r);
		goto fail;
	}
	md->sb = nsb;
	return 0;

fail:
	spin_lock_irqsave(map_lock, flags);
	tier_map_mark_all_dirty(map, copy);
	spin_unlock_irqrestore(map_lock, flags);
	return r;
}

/*
 * Write map copy @copy of @nsb in full to @bdev: the map's blocks, and
 * empty blocks up to map_blocks (the area may hold anything before).
 */
static int tier_md_write_copy_full(struct tier_md *md, struct tier_map *m,
				   spinlock_t *map_lock,
				   const struct tier_sb *nsb, u32 copy,
				   struct block_device *bdev)
{
	unsigned long flags;
	u64 index, n, k;
	int r;

	for (index = 0; index < nsb->map_blocks; index += n) {
		n = min_t(u64, TIER_MD_BUF_BLOCKS, nsb->map_blocks - index);
		spin_lock_irqsave(map_lock, flags);
		for (k = 0; k < n; k++) {
			void *blk = md->md_buf + k * TIER_BLOCK_SIZE;

			if (index + k < m->nr_blocks) {
				tier_map_fill_block(m, nsb, copy, index + k,
						    blk);
			} else {
				tier_map_block_init(blk, nsb, copy, index + k);
				tier_map_block_seal(blk);
			}
		}
		spin_unlock_irqrestore(map_lock, flags);
		r = tier_md_io(md, bdev, REQ_OP_WRITE,
			       tier_map_block_sector(nsb, copy, index),
			       md->md_buf, n);
		if (r) {
			DMERR("%s: new tier 0: writing map copy %u blocks %llu..%llu failed: %d",
			      md->meta_name, copy, index, index + n - 1, r);
			return r;
		}
		cond_resched();
	}
	return 0;
}

/*
 * Commit @nsb_in (tier 0 removed, tier 1 now tier 0) with the whole
 * metadata area on @bdev, the new tier 0: both copies in full, then the
 * superblock of the next generation (PREFLUSH|FUA). Until then the old
 * tier 0 is not written; its superblock is one generation older, so
 * activation picks this one (docs/FORMAT.md "Replacing tier 0"); once it is
 * durable, the old slots are zeroed. On success @bdev is the metadata
 * device from now on.
 */
static int tier_md_commit_move(struct tier_md *md, struct tier_map *map,
			       spinlock_t *map_lock,
			       const struct tier_sb *nsb_in, const u64 *used,
			       struct block_device *bdev)
{
	struct tier_sb nsb = *nsb_in;
	struct block_device *old;
	unsigned long flags;
	u32 copy, i;
	int r;

	nsb.generation++;
	nsb.commit_time = ktime_get_real_seconds();
	copy = md->sb.active_copy ^ 1;
	nsb.active_copy = copy;
	for (i = 0; i < nsb.nr_tiers; i++)
		nsb.tier[i].used_extents = used[i];
	spin_lock_irqsave(map_lock, flags);
	nsb.settings = md->settings;
	spin_unlock_irqrestore(map_lock, flags);

	r = tier_md_write_copy_full(md, map, map_lock, &nsb, copy, bdev);
	if (!r)
		r = tier_md_write_copy_full(md, map, map_lock, &nsb, copy ^ 1,
					    bdev);
	if (r)
		goto fail;
	tier_sb_encode(&nsb, md->md_buf);
	r = tier_md_io(md, bdev, REQ_OP_WRITE | REQ_PREFLUSH | REQ_FUA,
		       tier_sb_sector(nsb.meta_start,
				      tier_sb_slot(nsb.generation)),
		       md->md_buf, 1);
	if (r) {
		DMERR("%s: writing superblock generation %llu on the new tier 0 failed: %d",
		      md->meta_name, nsb.generation, r);
		goto fail;
	}
	old = md->meta_bdev;
	md->sb = nsb;
	md->meta_bdev = bdev;
	/*
	 * The old tier 0's slots are of no use now: zeroed, so that no reader
	 * (code that does not know the spare area) takes the older metadata.
	 * Activation picks the higher generation anyway: a failure is only
	 * logged.
	 */
	memset(md->md_buf, 0, 2 * TIER_BLOCK_SIZE);
	r = tier_md_io(md, old, REQ_OP_WRITE | REQ_FUA,
		       tier_sb_sector(nsb.meta_start, 0), md->md_buf, 2);
	if (r)
		DMWARN("%s: clearing the old tier 0's superblock slots failed: %d",
		       md->meta_name, r);
	return 0;

fail:
	/* Both copies on the old tier 0 lost their dirty bits: all again. */
	spin_lock_irqsave(map_lock, flags);
	tier_map_mark_all_dirty(map, 0);
	tier_map_mark_all_dirty(map, 1);
	spin_unlock_irqrestore(map_lock, flags);
	return r;
}

int tier_md_commit(struct tier_md *md, struct tier_map *map,
		   spinlock_t *map_lock, const u64 *used)
{
	return tier_md_commit_sb(md, map, map_lock, &md->sb, used);
}

void tier_md_get_sb(const struct tier_md *md, struct tier_sb *sb)
{
	*sb = md->sb;
}

int tier_md_commit_resize(struct tier_md *md, struct tier_map *map,
			  spinlock_t *map_lock, const u64 *used,
			  const struct tier_sb_tier *recs, u64 virt)
{
	struct tier_sb nsb = md->sb;
	struct tier_err err = {};
	int r;

	r = tier_sb_resize(&nsb, recs, virt, &err);
	if (r) {
		tier_log_check("resize", md->meta_name, 0, &err);
		return r;
	}
	if (map->nr_extents != virt)
		return -EINVAL;
	return tier_md_commit_sb(md, map, map_lock, &nsb, used);
}

int tier_md_check_new_tier(struct tier_md *md, u32 tier,
			   struct block_device *bdev, const char *name,
			   struct tier_sb_tier *rec, char **error)
{
	struct tier_err err = {};
	struct tier_label label;
	void *buf;
	int r;

	buf = kmalloc(TIER_BLOCK_SIZE, GFP_KERNEL);
	if (!buf) {
		*error = "Cannot allocate a label buffer";
		return -ENOMEM;
	}
	r = tier_md_io(md, bdev, REQ_OP_READ, 0, buf, 1);
	if (r) {
		DMERR("%s: cannot read the label: %d", name, r);
		*error = "Cannot read the new tier's label";
		goto out;
	}
	r = tier_label_decode(buf, &label, &err);
	if (r) {
		tier_log_check("label", name, 0, &err);
		*error = "The new tier device carries no valid dm-tier label";
		r = -EINVAL;
		goto out;
	}
	if (tier_label_check_new(&label, &md->sb, tier, bdev_nr_sectors(bdev),
				 &err)) {
		tier_log_check("new tier's label", name, 0, &err);
		DMERR("%s is not labelled as a new tier %u of %s", name, tier,
		      md->tier_name[0]);
		*error =
			"The new tier device carries no label for this position";
		r = -EINVAL;
		goto out;
	}
	tier_sb_tier_from_label(&label, rec);
out:
	kfree(buf);
	return r;
}

int tier_md_check_spare(struct tier_md *md, struct block_device *bdev,
			const char *name, char **error)
{
	struct tier_err err = {};
	struct tier_label label;
	void *buf;
	int r;

	buf = kmalloc(TIER_BLOCK_SIZE, GFP_KERNEL);
	if (!buf) {
		*error = "Cannot allocate a label buffer";
		return -ENOMEM;
	}
	r = tier_md_io(md, bdev, REQ_OP_READ, 0, buf, 1);
	if (r) {
		DMERR("%s: cannot read the label: %d", name, r);
		*error = "Cannot read tier 1's label";
		goto out;
	}
	r = tier_label_decode(buf, &label, &err);
	if (r) {
		tier_log_check("label", name, 0, &err);
		*error = "Tier 1 carries no valid dm-tier label";
		r = -EINVAL;
		goto out;
	}
	if (md->meta_ext || md->nr_tiers < 2 ||
	    tier_label_sb_index(&label, &md->sb) != 1 ||
	    label.spare_meta_blocks != 2 + 2 * md->sb.map_blocks ||
	    md->sb.meta_start != TIER_META_START) {
		DMERR("%s: tier 1 has no spare metadata area of %llu blocks (label: %llu)",
		      name, 2 + 2 * md->sb.map_blocks, label.spare_meta_blocks);
		*error =
			"Tier 1 has no room for tier 0's metadata (see tierctl replace-tier)";
		r = -EINVAL;
	}
out:
	kfree(buf);
	return r;
}

int tier_md_commit_tiers(struct tier_md *md, struct tier_map *map,
			 spinlock_t *map_lock, const u64 *used, bool insert,
			 u32 pos, const struct tier_sb_tier *added,
			 struct block_device *bdev, const char *name)
{
	u8 table[TIER_MAX_TIERS], inv[TIER_MAX_TIERS];
	struct tier_sb nsb = md->sb;
	u32 old = md->nr_tiers, i;
	unsigned long flags;
	u64 moved = 0;
	int r;

	if (old != nsb.nr_tiers ||
	    tier_map_renumber_table(old, insert, pos, table))
		return -EINVAL;
	r = insert ? tier_sb_insert_tier(&nsb, pos, added) :
		     tier_sb_remove_tier(&nsb, pos);
	if (r)
		return r;
	/*
	 * The map words follow the list in the same commit: renumbered in
	 * memory (their blocks dirtied for both copies), written to the
	 * inactive copy, switched to by the superblock with the new list.
	 */
	spin_lock_irqsave(map_lock, flags);
	r = tier_map_renumber(map, table, old, &moved);
	spin_unlock_irqrestore(map_lock, flags);
	if (r) {
		DMERR("%s: tier %u still maps extent %llu: list not changed",
		      md->meta_name, pos, moved);
		return r;
	}
	if (!insert && !pos && !md->meta_ext)
		r = tier_md_commit_move(md, map, map_lock, &nsb, used,
					md->tier_bdev[1]);
	else
		r = tier_md_commit_sb(md, map, map_lock, &nsb, used);
	if (r) {
		/* The superblock keeps the old list: the old numbers back. */
		tier_map_renumber_inverse(table, old, inv);
		spin_lock_irqsave(map_lock, flags);
		WARN_ON(tier_map_renumber(map, inv, nsb.nr_tiers, NULL));
		spin_unlock_irqrestore(map_lock, flags);
		return r;
	}
	md->nr_tiers = nsb.nr_tiers;
	if (insert) {
		for (i = old; i > pos; i--) {
			md->tier_bdev[i] = md->tier_bdev[i - 1];
			md->tier_name[i] = md->tier_name[i - 1];
		}
		md->tier_bdev[pos] = bdev;
		md->tier_name[pos] = name;
	} else {
		for (i = pos; i + 1 < old; i++) {
			md->tier_bdev[i] = md->tier_bdev[i + 1];
			md->tier_name[i] = md->tier_name[i + 1];
		}
		md->tier_bdev[old - 1] = NULL;
		md->tier_name[old - 1] = NULL;
	}
	if (moved)
		DMINFO("%s: %llu map entries renumbered for the new tier list",
		       md->meta_name, moved);
	return 0;
}
