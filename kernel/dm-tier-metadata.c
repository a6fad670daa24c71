// SPDX-License-Identifier: GPL-2.0
/*
 * dm-tier-metadata.c - reading, validating and committing the on-disk
 * metadata (labels, superblock slots, two map copies). The encoding and all
 * checks live in kernel/core/format.c and extent_map.c; this file does the
 * I/O and the commit protocol (docs/FORMAT.md "Commit").
 */
#include <linux/blkdev.h>
#include <linux/dm-io.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "dm-tier.h"
#include "dm-tier-debug.h"
#include "compat.h"

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

void tier_set_mode(struct tier_pool *pool, enum tier_md_mode mode,
		   const char *why)
{
	unsigned long flags;
	bool changed = false;

	might_sleep(); /* dm_table_event() */
	spin_lock_irqsave(&pool->lock, flags);
	if (mode > pool->mode) {
		pool->mode = mode;
		changed = true;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (!changed)
		return;
	DMERR("%s: metadata mode now %s: %s", pool->tier_name[0],
	      tier_mode_name(mode), why);
	tier_event(pool, DM_TIER_EVENT_MODE_CHANGE, 0);
	if (pool->ti)
		dm_table_event(pool->ti->table);
}

/* Synchronous block I/O on a metadata device through dm-io. */
static int tier_md_io(struct tier_pool *pool, struct block_device *bdev,
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
		.client = pool->io_client,
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

int tier_md_flush_tiers(struct tier_pool *pool)
{
	int r = 0, r2;
	u32 i;

	for (i = 0; i < pool->nr_tiers; i++) {
		r2 = blkdev_issue_flush(pool->tier_bdev[i]);
		if (r2 && !r)
			r = r2;
	}
	if (pool->meta_bdev != pool->tier_bdev[0]) {
		r2 = blkdev_issue_flush(pool->meta_bdev);
		if (r2 && !r)
			r = r2;
	}
	return r;
}

/* ---- loading ----------------------------------------------------------- */

static void tier_log_check(const char *what, const char *dev, sector_t sector,
			   const struct tier_err *err)
{
	DMERR("%s on %s, block at sector %llu: %s (item %llu, value %llu)",
	      what, dev, (unsigned long long)sector, tier_err_str(err->code),
	      (unsigned long long)err->item, (unsigned long long)err->value);
}

static int tier_md_load_labels(struct tier_pool *pool,
			       struct tier_label *labels, char **error)
{
	struct tier_err err = {};
	sector_t size;
	u32 i;
	int r;

	for (i = 0; i < pool->nr_tiers; i++) {
		r = tier_md_io(pool, pool->tier_bdev[i], REQ_OP_READ, 0,
			       pool->md_buf, 1);
		if (r) {
			DMERR("%s: cannot read the label: %d",
			      pool->tier_name[i], r);
			*error = "Cannot read a tier's label";
			return r;
		}
		r = tier_label_decode(pool->md_buf, &labels[i], &err);
		if (r) {
			tier_log_check("label", pool->tier_name[i], 0, &err);
			if (r == -ENODATA)
				*error =
					"A tier device carries no dm-tier label";
			else
				*error =
					"A tier's label is corrupt or unknown (see dmesg)";
			return r;
		}
		if (labels[i].tier_index != i ||
		    labels[i].nr_tiers != pool->nr_tiers) {
			DMERR("%s: label says tier %u of %u, table says tier %u of %u",
			      pool->tier_name[i], labels[i].tier_index,
			      labels[i].nr_tiers, i, pool->nr_tiers);
			*error = "Tier devices are not in their label's order";
			return -EINVAL;
		}
		if (memcmp(labels[i].uuid, labels[0].uuid, TIER_UUID_LEN)) {
			DMERR("%s: belongs to another dm-tier device than %s",
			      pool->tier_name[i], pool->tier_name[0]);
			*error =
				"Tier devices belong to different dm-tier devices";
			return -EINVAL;
		}
		size = bdev_nr_sectors(pool->tier_bdev[i]);
		if (size < labels[i].dev_sectors) {
			DMERR("%s: %llu sectors, label needs %llu",
			      pool->tier_name[i], (unsigned long long)size,
			      (unsigned long long)labels[i].dev_sectors);
			*error = "A tier device shrank since its creation";
			return -EINVAL;
		}
	}
	if (!(labels[0].flags & TIER_LABEL_F_META)) {
		*error = "Metadata on a separate device is not supported yet";
		return -EOPNOTSUPP;
	}
	return 0;
}

static int tier_md_load_sb(struct tier_pool *pool, sector_t meta_start,
			   char **error)
{
	struct tier_sb sb[2];
	struct tier_err err[2] = {}, perr = {};
	int ret[2], slot, r;
	u32 s;

	for (s = 0; s < 2; s++) {
		sector_t sector = tier_sb_sector(meta_start, s);

		r = tier_md_io(pool, pool->meta_bdev, REQ_OP_READ, sector,
			       pool->md_buf, 1);
		if (r) {
			DMERR("%s: cannot read superblock slot %u: %d",
			      pool->tier_name[0], s, r);
			*error = "Cannot read the superblock";
			return r;
		}
		ret[s] = tier_sb_decode(pool->md_buf, s, &sb[s], &err[s]);
	}
	slot = tier_sb_pick(sb, ret, &perr);
	/*
	 * One bad slot is normal (never written yet, or torn by a crash
	 * during a commit): say so only when it leaves nothing usable.
	 */
	for (s = 0; s < 2 && slot < 0; s++)
		if (ret[s])
			tier_log_check("superblock slot", pool->tier_name[0],
				       tier_sb_sector(meta_start, s), &err[s]);
	if (slot < 0) {
		DMERR("%s: no usable superblock: %s", pool->tier_name[0],
		      tier_err_str(perr.code));
		*error = "Superblock is corrupt or unknown (see dmesg)";
		return slot;
	}
	if (tier_sb_needs_ro(&sb[slot])) {
		*error = "Metadata has features this module can only read";
		return -EOPNOTSUPP;
	}
	pool->sb = sb[slot];
	return 0;
}

static int tier_md_load_map(struct tier_pool *pool, char **error)
{
	const struct tier_sb *sb = &pool->sb;
	u32 copy = sb->active_copy;
	struct tier_err err = {};
	u64 index, n, k;
	int r;

	for (index = 0; index < pool->map.nr_blocks; index += n) {
		sector_t sector = tier_map_block_sector(sb, copy, index);

		n = min_t(u64, TIER_MD_BUF_BLOCKS, pool->map.nr_blocks - index);
		r = tier_md_io(pool, pool->meta_bdev, REQ_OP_READ, sector,
			       pool->md_buf, n);
		if (r) {
			DMERR("%s: cannot read map blocks %llu..%llu: %d",
			      pool->tier_name[0], index, index + n - 1, r);
			*error = "Cannot read the extent map";
			return r;
		}
		for (k = 0; k < n; k++) {
			void *blk = pool->md_buf + k * TIER_BLOCK_SIZE;

			r = tier_map_load_block(&pool->map, sb, copy, index + k,
						blk, &err);
			if (r) {
				DMERR("%s: map copy %u block %llu (sector %llu) rejected",
				      pool->tier_name[0], copy, index + k,
				      (unsigned long long)(sector +
							   k * TIER_BLOCK_SECTORS));
				tier_log_check("map block", pool->tier_name[0],
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

int tier_md_load(struct tier_pool *pool, const struct tier_table *tbl,
		 char **error)
{
	struct tier_label *labels;
	struct tier_err err = {};
	u32 i;
	int r;

	labels = kcalloc(TIER_MAX_TIERS, sizeof(*labels), GFP_KERNEL);
	if (!labels) {
		*error = "Cannot allocate memory for labels";
		return -ENOMEM;
	}
	r = tier_md_load_labels(pool, labels, error);
	if (r)
		goto out;
	if (labels[0].extent_shift != tbl->extent_shift) {
		DMERR("%s: created with %u-sector extents, table says %u",
		      pool->tier_name[0], 1U << labels[0].extent_shift,
		      tbl->extent_sectors);
		*error =
			"Extent size differs from the one the device was created with";
		r = -EINVAL;
		goto out;
	}
	r = tier_md_load_sb(pool, labels[0].meta_start, error);
	if (r)
		goto out;
	for (i = 0; i < pool->nr_tiers; i++) {
		r = tier_label_check_sb(&labels[i], &pool->sb, i, &err);
		if (r) {
			tier_log_check("label vs superblock",
				       pool->tier_name[i], 0, &err);
			*error =
				"A tier's label disagrees with the superblock (see dmesg)";
			goto out;
		}
		pool->data_start[i] = pool->sb.tier[i].data_start;
	}
	pool->extent_shift = pool->sb.extent_shift;
	pool->extent_sectors = 1ULL << pool->extent_shift;
	pool->virt_extents = pool->sb.virt_extents;

	r = tier_map_init(&pool->map, pool->virt_extents, TIER_MAP_F_HEAT);
	if (r) {
		*error = "Cannot allocate the extent map";
		goto out;
	}
	r = tier_md_load_map(pool, error);
	if (r)
		goto out;
	for (i = 0; i < pool->nr_tiers; i++) {
		r = tier_alloc_init(&pool->alloc[i],
				    pool->sb.tier[i].nr_extents);
		if (r) {
			*error = "Cannot allocate a tier's allocator";
			goto out;
		}
		tier_alloc_set_reserve_pct(&pool->alloc[i], tbl->reserve_pct);
	}
	r = tier_alloc_load_map(pool->alloc, pool->nr_tiers, &pool->map, &err);
	if (r) {
		tier_log_check("map", pool->tier_name[0], 0, &err);
		*error = "Extent map is inconsistent (see dmesg)";
		goto out;
	}
	for (i = 0; i < pool->nr_tiers; i++) {
		if (pool->alloc[i].nr_used != pool->sb.tier[i].used_extents) {
			DMERR("%s: map uses %llu extents of tier %u, superblock says %llu",
			      pool->tier_name[0], pool->alloc[i].nr_used, i,
			      pool->sb.tier[i].used_extents);
			*error =
				"Extent map disagrees with the superblock (see dmesg)";
			r = -EUCLEAN;
			goto out;
		}
	}
	for (i = 0; i < pool->nr_tiers; i++)
		pool->mapped[i] = pool->alloc[i].nr_used;
	/*
	 * The inactive copy is stale for whatever the last commit wrote; the
	 * first commit rewrites it whole rather than guess.
	 */
	tier_map_mark_all_dirty(&pool->map, pool->sb.active_copy ^ 1);
out:
	kfree(labels);
	return r;
}

/* ---- commit ------------------------------------------------------------ */

/* Write the blocks of @copy that are dirty, batching contiguous runs. */
static int tier_md_write_map(struct tier_pool *pool, const struct tier_sb *nsb,
			     u32 copy)
{
	struct tier_map *m = &pool->map;
	unsigned long flags;
	u64 index, n;
	int r;

	index = tier_map_commit_next(m, copy, 0);
	while (index < m->nr_blocks) {
		/* Capture a run of dirty blocks under the lock. */
		spin_lock_irqsave(&pool->lock, flags);
		for (n = 0; n < TIER_MD_BUF_BLOCKS && index + n < m->nr_blocks;
		     n++) {
			if (n && tier_map_commit_next(m, copy, index + n) !=
					 index + n)
				break;
			tier_map_fill_block(m, nsb, copy, index + n,
					    pool->md_buf + n * TIER_BLOCK_SIZE);
		}
		spin_unlock_irqrestore(&pool->lock, flags);
		r = tier_md_io(pool, pool->meta_bdev, REQ_OP_WRITE,
			       tier_map_block_sector(nsb, copy, index),
			       pool->md_buf, n);
		if (r) {
			DMERR("%s: writing map copy %u blocks %llu..%llu failed: %d",
			      pool->tier_name[0], copy, index, index + n - 1,
			      r);
			return r;
		}
		index = tier_map_commit_next(m, copy, index + n);
	}
	return 0;
}

/*
 * Wait until every bio remapped before now has completed, so that a
 * physical extent unmapped before now can be handed to another extent
 * without an old read or write still touching it (commit), or an extent
 * marked busy can be copied without an old write still landing on it
 * (migration).
 */
static void tier_sync_rcu(bool expedited)
{
	if (expedited)
		synchronize_rcu_expedited();
	else
		synchronize_rcu();
}

/*
 * Readers (map(), the memory tier's fill) read the map word, read the epoch
 * and increment inflight[epoch & 1], all inside one RCU read section. The
 * worker counts the bios it submits without RCU: it runs on pool->wq, like
 * every caller of this function (or the pool is suspended), so never at the
 * same time. The argument, with E the epoch on entry:
 *
 *  1. The unmaps or busy marks were made before the first grace period
 *     began, so a reader that can still use an old word began its read
 *     section before it, and has read the epoch (E or older) and
 *     incremented its counter once the grace period ends.
 *  2. The epoch becomes E + 1. A reader that read E, but whose section
 *     began after the first grace period started, may not have incremented
 *     yet. The second grace period waits for every section begun before
 *     the advance; sections begun after it read E + 1. So once it ends,
 *     every bio that will ever be counted with epoch E is counted.
 *  3. Waiting for inflight[E & 1] to drain then waits for every bio counted
 *     in E; bios of older epochs drained in earlier calls by the same
 *     argument (each call leaves no reader of its old epoch behind), so the
 *     counter of parity E & 1 holds only epoch E's bios and new epoch E + 2
 *     bios cannot exist yet.
 *
 * Without the second grace period (before issue 13), a reader of
 * E that incremented after the wait ended landed in the parity of epoch
 * E + 2, which the next call does not wait for.
 */
void tier_quiesce_old_io(struct tier_pool *pool, bool expedited)
{
	unsigned int old;

	tier_dbg_quiesce_begin();
	tier_sync_rcu(expedited);
	tier_dbg_quiesce_gap();
	old = pool->io_epoch;
	WRITE_ONCE(pool->io_epoch, old + 1);
	tier_sync_rcu(expedited);
	wait_event(pool->drain_wait, !atomic_read(&pool->inflight[old & 1]));
	tier_dbg_quiesce_end(pool, old);
}

int tier_md_commit(struct tier_pool *pool)
{
	struct tier_sb nsb;
	unsigned long flags;
	bool frees = false;
	sector_t sb_sector;
	u64 seq;
	u32 copy, i;
	int r;

	lockdep_assert_held(&pool->md_lock);
	/* Read-only mode still tries: a second failure means fail mode. */
	if (READ_ONCE(pool->mode) == TIER_MODE_FAIL)
		return -EIO;

	spin_lock_irqsave(&pool->lock, flags);
	seq = pool->change_seq;
	tier_mig_heat_capture(pool);
	nsb = pool->sb;
	nsb.generation++;
	nsb.commit_time = ktime_get_real_seconds();
	copy = pool->sb.active_copy ^ 1;
	nsb.active_copy = copy;
	for (i = 0; i < pool->nr_tiers; i++) {
		tier_alloc_commit_begin(&pool->alloc[i]);
		if (pool->alloc[i].nr_committing)
			frees = true;
		/* Not nr_used: that includes extents being prepared. */
		nsb.tier[i].used_extents = pool->mapped[i];
	}
	spin_unlock_irqrestore(&pool->lock, flags);

	/* Phase 1: data the map points at, then the map blocks. */
	r = tier_md_flush_tiers(pool);
	if (r) {
		DMERR("%s: flushing the tiers failed: %d", pool->tier_name[0],
		      r);
		goto fail;
	}
	r = tier_md_write_map(pool, &nsb, copy);
	if (r)
		goto fail;
	/* Phase 2: the superblock that switches to the new copy. */
	tier_sb_encode(&nsb, pool->md_buf);
	sb_sector =
		tier_sb_sector(nsb.meta_start, tier_sb_slot(nsb.generation));
	r = tier_md_io(pool, pool->meta_bdev,
		       REQ_OP_WRITE | REQ_PREFLUSH | REQ_FUA, sb_sector,
		       pool->md_buf, 1);
	if (r) {
		DMERR("%s: writing superblock generation %llu failed: %d",
		      pool->tier_name[0], nsb.generation, r);
		goto fail;
	}
	pool->sb = nsb;
	pool->commits++;
	WRITE_ONCE(pool->durable_seq, seq);
	if (frees)
		tier_quiesce_old_io(pool, false);
	spin_lock_irqsave(&pool->lock, flags);
	for (i = 0; i < pool->nr_tiers; i++)
		tier_alloc_commit_end(&pool->alloc[i], true);
	spin_unlock_irqrestore(&pool->lock, flags);
	return 0;

fail:
	spin_lock_irqsave(&pool->lock, flags);
	tier_map_mark_all_dirty(&pool->map, copy);
	for (i = 0; i < pool->nr_tiers; i++)
		tier_alloc_commit_end(&pool->alloc[i], false);
	spin_unlock_irqrestore(&pool->lock, flags);
	tier_set_mode(pool,
		      pool->mode == TIER_MODE_WRITE ? TIER_MODE_READ_ONLY :
						      TIER_MODE_FAIL,
		      "metadata commit failed");
	return -EIO;
}
