// SPDX-License-Identifier: GPL-2.0
/*
 * dm-tier-target.c - the "tier" target: data path (mechanism).
 *
 * map() remaps bios to allocated extents inline, returns zeroes for reads of
 * extents never written, and defers everything that needs allocation, a
 * commit or metadata changes (first writes, FUA while the map is dirty,
 * flushes, discards) to an ordered worker. See docs/ARCHITECTURE.md.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <linux/dm-io.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "dm-tier-target.h"
#include "dm-tier-memtier.h"
#include "dm-tier-migrate.h"
#include "dm-tier-pool.h"
#include "dm-tier-metadata.h"
#include "dm-tier-debug.h"
#include "compat.h"

static u64 tier_pool_last_id; /* tier_pools_mutex */

/* Per-bio data. */
struct tier_bio {
	struct tier_pool *pool;
	struct tier_c *tc; /* the table the bio came through */
	struct tier_job *job; /* set while the bio is hooked */
	bio_end_io_t *saved_end_io;
	void *saved_private;
	u64 vext; /* the extent of a read or write (not flush, discard) */
	u64 offq_deadline; /* parked for an offline tier until; 0: never */
	u8 tier;
	u8 epoch;
	bool counted; /* holds inflight[epoch] */
	bool issued; /* sent to tier @tier: its errors are the tier's */
	bool write; /* a write to @vext: its completion drops the memory copy */
};

/* The target instance: one per table; the state lives in the pool. */
struct tier_c {
	struct dm_target *ti;
	struct tier_pool *pool;
	struct list_head pool_node; /* in pool->targets; tier_pools_mutex */
	struct dm_dev *tier_dev[TIER_MAX_TIERS];
	struct dm_dev *meta_dev; /* metadata_dev, or NULL */
	struct tier_table tbl;
	char **argv_copy; /* tbl's strings point into it */
	unsigned int argc;
	/*
	 * The table asks for another memory tier than the pool has: at
	 * resume the pool's is replaced by @mem_new (NULL: none).
	 */
	bool mem_change;
	struct tier_memtier *mem_new;
	/*
	 * Tiers whose device differs from the pool's but carries the tier's
	 * label (re-bind, checked at load): swapped in at resume.
	 */
	unsigned long rebind;
	/*
	 * A table with one tier more (+1: tierctl add-tier) or less (-1:
	 * remove-tier) than the pool had at load (@list_base): applied at
	 * preresume (docs/ARCHITECTURE.md "Tier list changes"). @list_pos is
	 * the table's index of the inserted tier (+1) or the pool's index of
	 * the removed one (-1); the tiers after it move by one. For +1 the
	 * new tier's record and allocator are prepared here; for -1 the
	 * tier is held empty (tier_pool_hold_tier()) from the load on.
	 */
	int list_change;
	u32 list_base;
	u32 list_pos;
	bool held;
	struct tier_sb_tier new_rec;
	struct tier_alloc new_alloc;
	/*
	 * A reload of a running pool (@reload) may resize: a tier device
	 * that grew, another table length (tierctl resize). Prepared by the
	 * constructor, applied at preresume (docs/ARCHITECTURE.md "Resize").
	 */
	bool reload;
	bool resize;
	struct tier_resize rz;
};

static inline struct tier_bio *tier_bio(struct bio *bio)
{
	return dm_per_bio_data(bio, sizeof(struct tier_bio));
}

static inline struct tier_vext bio_vext(struct tier_pool *pool, struct bio *bio,
					sector_t *offset)
{
	struct dm_target *ti = tier_bio(bio)->tc->ti;

	return tier_sector_to_vext(dm_target_offset(ti, bio->bi_iter.bi_sector),
				   pool->extent_shift, offset);
}

static void tier_defer_bio(struct tier_pool *pool, struct bio *bio)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	bio_list_add(&pool->deferred, bio);
	spin_unlock_irqrestore(&pool->lock, flags);
	tier_wake_worker(pool);
}

/*
 * Count a bio about to reach a physical extent in the current I/O epoch: an
 * extent freed by a commit is reused only after the bios of older epochs
 * finished (tier_quiesce_old_io()). Inside an RCU read section: map()'s, in
 * which it read the map word, or the worker's own (tier_submit()), since
 * quiesces run on pool->qwq, beside the worker.
 */
static void tier_count_io(struct tier_pool *pool, struct tier_bio *tb)
{
	unsigned int epoch = READ_ONCE(pool->io_epoch);

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "epoch read outside RCU");
	tb->epoch = epoch & 1;
	tier_dbg_epoch_window();
	atomic_inc(&pool->inflight[tb->epoch]);
	tier_dbg_check_count(pool, epoch);
	tb->counted = true;
	tb->issued = true;
}

static void tier_uncount_io(struct tier_pool *pool, struct tier_bio *tb)
{
	if (!tb->counted)
		return;
	tb->counted = false;
	if (atomic_dec_and_test(&pool->inflight[tb->epoch]))
		wake_up(&pool->drain_wait);
}

/* Point @bio (for extent @v) at @loc; the caller counts and submits it. */
static void tier_remap(struct tier_pool *pool, struct bio *bio,
		       struct tier_vext v, const struct tier_loc *loc,
		       sector_t offset)
{
	struct tier_bio *tb = tier_bio(bio);
	struct tier_pcpu_stats *st;

	bio_set_dev(bio, pool->tier_bdev[loc->tier]);
	bio->bi_iter.bi_sector =
		tier_pext_to_sector(pool->data_start[loc->tier],
				    pool->extent_shift, loc->pext, offset);
	tb->tier = loc->tier;
	tier_heat_note(pool, v);
	st = get_cpu_ptr(pool->stats);
	if (bio_data_dir(bio) == WRITE)
		st->writes[loc->tier]++;
	else
		st->reads[loc->tier]++;
	put_cpu_ptr(pool->stats);
}

/* Submit a remapped bio from the worker. */
static void tier_submit(struct tier_pool *pool, struct bio *bio)
{
	tier_dbg_check_submit(pool, bio, tier_bio(bio)->tier);
	rcu_read_lock();
	tier_count_io(pool, tier_bio(bio));
	rcu_read_unlock();
	dm_submit_bio_remap(bio, NULL);
}

/* ---- map() ------------------------------------------------------------- */

/*
 * Whether a bio for a mapped extent (map word @word, at @loc) can go down
 * at once. Writes to an extent being moved wait for the worker; so do FUA
 * bios while the map has changes not yet durable, and whole-extent writes
 * to a lower tier, which the worker redirects to a fresh tier-0 extent.
 */
static bool tier_can_remap(struct tier_pool *pool, struct bio *bio, u64 word,
			   const struct tier_loc *loc, sector_t offset)
{
	if ((bio->bi_opf & REQ_FUA) && tier_map_dirty(pool))
		return false;
	if (bio_data_dir(bio) != WRITE)
		return true;
	if (word & TIER_MW_BUSY)
		return false;
	return !(loc->tier && offset == 0 &&
		 bio_sectors(bio) == pool->extent_sectors &&
		 !(loc->flags & TIER_EXT_F_PINNED) &&
		 READ_ONCE(pool->cfg.redirect_writes));
}

/*
 * A write, discard or flush to a read-only activation. dm core marks the
 * disk read-only, but the block layer only warns about writes to it, so a
 * stacked device or a kernel user can still send one: it fails here,
 * before anything is allocated or mapped. An empty flush has nothing of
 * ours to make durable.
 */
static int tier_map_read_only(struct tier_pool *pool, struct bio *bio)
{
	if (op_is_flush(bio->bi_opf) && !bio_sectors(bio)) {
		bio_endio(bio);
		return DM_MAPIO_SUBMITTED;
	}
	DMERR_LIMIT("%s: write to a read-only activation refused",
		    tier_pool_log_name(pool));
	return DM_MAPIO_KILL;
}

/*
 * Park a write to an extent of an offline tier that cannot be redirected
 * (partial, or no room elsewhere) on the offline queue, for at most
 * offline_queue_s from when it was first parked (tier_offq_may_park()).
 * Never blocks: map() calls it. The worker issues it again when the tier
 * is back (tier_offq_scan()); the timer wakes the worker at the deadline.
 * Return: BLK_STS_OK when parked; else the status to complete it with:
 * EIO, or DM_REQUEUE while a noflush suspend closes the queue (dm issues
 * it again after the resume, as dm-multipath's queue_if_no_path does).
 */
static blk_status_t tier_offq_park(struct tier_pool *pool, struct bio *bio)
{
	struct tier_bio *tb = tier_bio(bio);
	u32 queue_s = READ_ONCE(pool->offline_queue_s);
	u64 now = get_jiffies_64();
	blk_status_t st = BLK_STS_OK;
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	if (!tier_offq_may_park(queue_s, pool->offq_closed) ||
	    (tb->offq_deadline && now >= tb->offq_deadline)) {
		st = pool->offq_closed && pool->offq_requeue ?
			     BLK_STS_DM_REQUEUE :
			     BLK_STS_IOERR;
		goto out;
	}
	if (!tb->offq_deadline)
		tb->offq_deadline = tier_offq_deadline(now, queue_s, HZ);
	if (!pool->offq_len || tb->offq_deadline < pool->offq_next) {
		pool->offq_next = tb->offq_deadline;
		mod_delayed_work(pool->wq, &pool->offq_work,
				 tier_offq_delay(now, pool->offq_next));
	}
	bio_list_add(&pool->offq, bio);
	pool->offq_len++;
out:
	spin_unlock_irqrestore(&pool->lock, flags);
	return st;
}

/*
 * The offline queue, from the worker: writes whose tier is back go to
 * @bios (the worker issues them), those past their deadline (or all, once
 * the queue is closed) complete with EIO (DM_REQUEUE in a noflush
 * suspend), the rest wait and the timer is armed for the earliest.
 */
static void tier_offq_scan(struct tier_pool *pool, struct bio_list *bios)
{
	struct bio_list keep, fail;
	u64 now = get_jiffies_64(), next = U64_MAX;
	blk_status_t st;
	unsigned long flags;
	u32 expired = 0;
	struct bio *bio;

	bio_list_init(&keep);
	bio_list_init(&fail);
	spin_lock_irqsave(&pool->lock, flags);
	st = pool->offq_closed && pool->offq_requeue ? BLK_STS_DM_REQUEUE :
						       BLK_STS_IOERR;
	while ((bio = bio_list_pop(&pool->offq))) {
		struct tier_bio *tb = tier_bio(bio);
		struct tier_loc loc;
		bool offline;

		/* Unmapped meanwhile (tier-forget): a first write now. */
		offline = tier_map_lookup(&pool->map, tier_vext(tb->vext),
					  &loc) &&
			  tier_offline(pool, loc.tier);
		switch (tier_offq_next(offline, pool->offq_closed, now,
				       tb->offq_deadline)) {
		case TIER_OFFQ_REISSUE:
			bio_list_add(bios, bio);
			pool->offq_len--;
			break;
		case TIER_OFFQ_FAIL:
			bio_list_add(&fail, bio);
			pool->offq_len--;
			if (!pool->offq_closed) {
				pool->offq_expired++;
				expired++;
			}
			break;
		default:
			bio_list_add(&keep, bio);
			next = min(next, tb->offq_deadline);
			break;
		}
	}
	pool->offq = keep;
	if (pool->offq_len) {
		pool->offq_next = next;
		mod_delayed_work(pool->wq, &pool->offq_work,
				 tier_offq_delay(now, next));
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (expired)
		DMERR_LIMIT("%s: %u writes to an offline tier expired: EIO",
			    tier_pool_log_name(pool), expired);
	while ((bio = bio_list_pop(&fail))) {
		bio->bi_status = st;
		bio_endio(bio);
	}
}

/*
 * A bio for an extent on an offline tier, after map()'s RCU read section.
 * Reads fail at once unless the memory tier served them (@hit); whole-extent
 * writes go to the worker, which redirects them to a healthy tier
 * (tier_process_write()); partial writes fail, or wait on the offline
 * queue when offline_queue_s is set (tier_offq_park()).
 */
static int tier_map_offline(struct tier_pool *pool, struct bio *bio, u64 word,
			    sector_t offset, bool hit)
{
	blk_status_t st;

	if (bio_op(bio) == REQ_OP_READ) {
		if (!hit)
			return DM_MAPIO_KILL;
		bio_endio(bio);
		return DM_MAPIO_SUBMITTED;
	}
	if ((word & TIER_MW_BUSY) ||
	    (offset == 0 && bio_sectors(bio) == pool->extent_sectors)) {
		tier_defer_bio(pool, bio);
		return DM_MAPIO_SUBMITTED;
	}
	st = tier_offq_park(pool, bio);
	if (!st)
		return DM_MAPIO_SUBMITTED;
	return st == BLK_STS_DM_REQUEUE ? DM_MAPIO_REQUEUE : DM_MAPIO_KILL;
}

static int tier_map(struct dm_target *ti, struct bio *bio)
{
	struct tier_c *tc = ti->private;
	struct tier_pool *pool = tc->pool;
	struct tier_bio *tb = tier_bio(bio);
	struct tier_loc loc;
	struct tier_vext v;
	sector_t offset;
	u64 word;

	tb->pool = pool;
	tb->tc = tc;
	tb->job = NULL;
	tb->offq_deadline = 0;
	tb->counted = false;
	tb->issued = false;
	tb->write = false;

	/* Fail mode: nothing can be made durable; reads still work. */
	if (unlikely(READ_ONCE(pool->mode) == TIER_MODE_FAIL) &&
	    (op_is_write(bio_op(bio)) || (bio->bi_opf & REQ_PREFLUSH)))
		return DM_MAPIO_KILL;
	if (unlikely(pool->read_only) && op_is_write(bio_op(bio)))
		return tier_map_read_only(pool, bio);
	if (bio->bi_opf & REQ_PREFLUSH || bio_op(bio) == REQ_OP_DISCARD) {
		tier_defer_bio(pool, bio);
		return DM_MAPIO_SUBMITTED;
	}

	v = bio_vext(pool, bio, &offset);
	if (unlikely(v.v >= pool->virt_extents))
		return DM_MAPIO_KILL;
	/*
	 * One extent per bio. Splitting here rather than with max_io_len:
	 * dm would then also split at the tiers' max_sectors, and a 1 MiB
	 * write that covers its extent would arrive as pieces that each look
	 * like a partial first write (zeroing) or miss the redirect.
	 */
	if (offset + bio_sectors(bio) > pool->extent_sectors)
		dm_accept_partial_bio(bio, pool->extent_sectors - offset);
	tb->vext = v.v;
	tb->write = bio_data_dir(bio) == WRITE;
	rcu_read_lock();
	word = READ_ONCE(pool->map.words[v.v]);
	smp_rmb(); /* word before change_seq: see tier_publish() */
	if (tier_mw_decode(word, &loc) &&
	    unlikely(tier_offline(pool, loc.tier))) {
		bool hit = bio_op(bio) == REQ_OP_READ &&
			   tier_memtier_read(pool, bio, v, offset);

		rcu_read_unlock();
		return tier_map_offline(pool, bio, word, offset, hit);
	}
	if (tier_mw_decode(word, &loc) &&
	    tier_can_remap(pool, bio, word, &loc, offset)) {
		bool read = bio_op(bio) == REQ_OP_READ;

		/* A copy in the memory tier: no tier I/O, no epoch. */
		if (read && tier_memtier_read(pool, bio, v, offset)) {
			rcu_read_unlock();
			tier_heat_note(pool, v);
			bio_endio(bio);
			return DM_MAPIO_SUBMITTED;
		}
		tier_count_io(pool, tb);
		rcu_read_unlock();
		tier_remap(pool, bio, v, &loc, offset);
		if (read)
			tier_memtier_read_miss(pool, v);
		return DM_MAPIO_REMAPPED;
	}
	rcu_read_unlock();
	if (!(word & TIER_MW_MAPPED)) {
		if (bio_data_dir(bio) == READ) {
			/* Never written: zeroes, without touching a tier. */
			zero_fill_bio(bio);
			bio_endio(bio);
			return DM_MAPIO_SUBMITTED;
		}
		tier_defer_bio(pool, bio);
		return DM_MAPIO_SUBMITTED;
	}
	/* FUA while the map is dirty, a write to a busy or redirected extent. */
	tier_defer_bio(pool, bio);
	return DM_MAPIO_SUBMITTED;
}

/*
 * Errors of bios we sent to a tier count against it; "not supported", "try
 * again", "no space" and "no memory" are no sign of a failing device.
 */
static int tier_end_io(struct dm_target *ti, struct bio *bio,
		       blk_status_t *error)
{
	struct tier_bio *tb = tier_bio(bio);

	if (!tb->pool)
		return DM_ENDIO_DONE;
	/* The home is written (or in doubt): its memory copy is stale. */
	if (tb->write)
		tier_memtier_written(tb->pool, tier_vext(tb->vext));
	tier_uncount_io(tb->pool, tb);
	if (!tb->issued)
		return DM_ENDIO_DONE;
	/*
	 * Before the completion goes up: a later flush covers it, and until
	 * one did, losing the tier loses an acknowledged write in place. Not
	 * a job's write (flushed before its extent was published, failed if
	 * that flush failed), a FUA one, or one to a tier with no volatile
	 * write cache (durable on their own; the block layer drops FUA
	 * there).
	 */
	if (op_is_write(bio_op(bio))) {
		if (!*error && bio_op(bio) != REQ_OP_DISCARD && !tb->job &&
		    !(bio->bi_opf & REQ_FUA) &&
		    bdev_write_cache(tb->pool->tier_bdev[tb->tier]))
			tier_note_acked(tb->pool, tb->tier);
		tier_mark_written(tb->pool, tb->tier);
	}
	/*
	 * Readahead may fail with the tier healthy: device-mapper fails it
	 * while a tier that is a dm device is suspended (a table reload).
	 */
	if (!*error)
		tier_note_io_ok(tb->pool, tb->tier);
	else if (*error != BLK_STS_NOTSUPP && *error != BLK_STS_AGAIN &&
		 *error != BLK_STS_NOSPC && *error != BLK_STS_RESOURCE &&
		 !(bio->bi_opf & REQ_RAHEAD))
		tier_note_io_error(tb->pool, tb->tier, *error);
	return DM_ENDIO_DONE;
}

/* ---- worker ------------------------------------------------------------ */

/* Lists the worker builds while it runs: bios that wait for a commit. */
struct tier_batch {
	struct bio_list flushes; /* empty flushes: complete after commit */
	struct bio_list submit; /* FUA writes: submit after commit */
	struct bio_list complete; /* FUA first writes: complete after */
	struct bio_list retry; /* ENOSPC while frees await a commit */
	bool need_commit;
};

/*
 * One of @job's I/Os ended (its status already in @job): the last one hands
 * the job to the worker, which publishes or switches the extent.
 * Context: any (bio completion).
 */
static void tier_job_io_end(struct tier_pool *pool, struct tier_job *job)
{
	unsigned long flags;
	bool last;

	spin_lock_irqsave(&pool->lock, flags);
	last = !--job->pending;
	if (last)
		list_move_tail(&job->list, &pool->done);
	spin_unlock_irqrestore(&pool->lock, flags);
	if (last)
		tier_wake_worker(pool);
}

/* Completion of a hooked write (first write, redirect): see tier_job_io_end. */
static void tier_overwrite_endio(struct bio *bio)
{
	struct tier_bio *tb = tier_bio(bio);
	struct tier_job *job = tb->job;
	struct tier_pool *pool = tb->pool;

	bio->bi_end_io = tb->saved_end_io;
	bio->bi_private = tb->saved_private;
	/* The physical extent is no longer touched: the commit need not wait. */
	tier_uncount_io(pool, tb);
	/* Before the job is published: the commit flushes the tier. */
	tier_mark_written(pool, job->loc.tier);
	job->status = bio->bi_status;
	tier_job_io_end(pool, job);
}

/* Completion of the zeroing beside a partial first write. */
static void tier_zero_endio(struct bio *zbio)
{
	struct tier_job *job = zbio->bi_private;
	struct tier_pool *pool = job->pool;

	if (zbio->bi_status)
		job->zero_status = zbio->bi_status;
	else if (job->zero_offload && tier_dbg_zero_refused())
		job->zero_status = BLK_STS_NOTSUPP;
	bio_put(zbio);
	tier_mark_written(pool, job->loc.tier);
	tier_job_io_end(pool, job);
}

/* A range of a tier's sectors. */
struct tier_gap {
	sector_t start;
	sector_t len;
};

/*
 * The parts of @job's new extent that its first write (wr_sectors at
 * wr_offset) leaves out, on its tier: @gap[0] before the write, @gap[1]
 * after it; an empty one has len 0.
 */
static void tier_job_gaps(struct tier_pool *pool, struct tier_job *job,
			  struct tier_gap gap[2])
{
	sector_t start = tier_pext_to_sector(pool->data_start[job->loc.tier],
					     pool->extent_shift, job->loc.pext,
					     0);
	sector_t end = job->wr_offset + job->wr_sectors;

	gap[0].start = start;
	gap[0].len = job->wr_offset;
	gap[1].start = start + end;
	gap[1].len = pool->extent_sectors - end;
}

/*
 * Zero the parts of @job's new extent that its first write leaves out
 * (tier_job_gaps()), beside that write rather than before it: the ranges
 * are disjoint, and the extent is published only once both ended
 * (tier_job_io_end()), so no read can see what it held before. WRITE
 * ZEROES where the tier has it, else zero pages (__blkdev_issue_zeroout()).
 * Context: the worker; the block layer's bio allocations may wait for its
 * reserve (GFP_NOIO), never for this pool.
 */
static void tier_zero_rest(struct tier_pool *pool, struct tier_job *job)
{
	struct block_device *bdev = pool->tier_bdev[job->loc.tier];
	struct tier_gap gap[2];
	struct bio *zbio = NULL;
	int i, r = 0;

	tier_job_gaps(pool, job, gap);
	job->zero_offload = bdev_write_zeroes_sectors(bdev) != 0;
	for (i = 0; i < 2 && !r; i++)
		if (gap[i].len)
			r = __blkdev_issue_zeroout(bdev, gap[i].start,
						   gap[i].len, GFP_NOIO, &zbio,
						   0);
	if (r)
		job->zero_status = errno_to_blk_status(r);
	if (!zbio) {
		tier_job_io_end(pool, job);
		return;
	}
	/* Chained: this last bio ends when every part of the zeroing did. */
	zbio->bi_private = job;
	zbio->bi_end_io = tier_zero_endio;
	submit_bio(zbio);
}

/*
 * The zeroing beside @job's partial first write failed. A tier can
 * advertise WRITE ZEROES and then refuse it; blkdev_issue_zeroout() falls
 * back to writing zero pages, so the worker tries that once (rare, and it
 * waits for it, as every zeroing did before it ran beside the write). The
 * fallback differs by kernel: 6.1 takes it after any error of the WRITE
 * ZEROES, 6.12 only after the device refused it as unsupported (the
 * refusal this is for); another error on 6.12 fails the write here.
 * Otherwise the first write fails with the zeroing's error and its extent
 * is returned (tier_process_done()). Context: the worker, before
 * tier_flush_done(), which then covers a successful retry.
 */
static void tier_zero_failed(struct tier_pool *pool, struct tier_job *job)
{
	struct block_device *bdev = pool->tier_bdev[job->loc.tier];
	struct tier_gap gap[2];
	int i, r = 0;

	if (job->status)
		return; /* the write failed: the job fails anyway */
	if (job->zero_offload) {
		/* Both ranges again: which part failed is not known. */
		tier_job_gaps(pool, job, gap);
		for (i = 0; i < 2 && !r; i++)
			if (gap[i].len)
				r = blkdev_issue_zeroout(bdev, gap[i].start,
							 gap[i].len, GFP_NOIO,
							 0);
		tier_mark_written(pool, job->loc.tier);
		if (!r) {
			job->zero_status = BLK_STS_OK;
			return;
		}
		job->zero_status = errno_to_blk_status(r);
	}
	DMERR_LIMIT("%s: zeroing a new extent on tier %u failed: %d",
		    tier_pool_log_name(pool), job->loc.tier,
		    blk_status_to_errno(job->zero_status));
	/*
	 * Not counted here: the write ends with this status, and tier_end_io()
	 * counts it (counted in both, 8 such failures in a row, not 16, took
	 * the tier offline).
	 */
	job->status = job->zero_status;
	job->bio->bi_status = job->zero_status;
}

/* Context: process (the worker): dm_table_event() takes a mutex. */
static void tier_log_nospc(struct tier_pool *pool)
{
	unsigned long flags;
	bool log;

	spin_lock_irqsave(&pool->lock, flags);
	pool->nospc_errors++;
	log = !pool->nospc_logged;
	pool->nospc_logged = true;
	spin_unlock_irqrestore(&pool->lock, flags);
	if (log) {
		DMERR("%s: every tier is full: new extents fail with ENOSPC until space is freed",
		      tier_pool_log_name(pool));
		tier_event(pool, DM_TIER_EVENT_NEAR_FULL, pool->nr_tiers - 1);
		if (pool->ti)
			dm_table_event(pool->ti->table);
	}
}

/*
 * A bio for an extent the map knows: submit it, or hold it for the commit
 * when it is a FUA write and the map has changes not yet on disk.
 */
static void tier_issue_mapped(struct tier_pool *pool, struct bio *bio,
			      struct tier_vext v, const struct tier_loc *loc,
			      sector_t offset, struct tier_batch *batch)
{
	tier_remap(pool, bio, v, loc, offset);
	if ((bio->bi_opf & REQ_FUA) && tier_map_dirty(pool)) {
		bio_list_add(&batch->submit, bio);
		batch->need_commit = true;
		return;
	}
	tier_submit(pool, bio);
}

/* Its preparation failed: the extent, never in the map, is free at once. */
static void tier_job_abandon(struct tier_pool *pool, struct tier_job *job)
{
	tier_alloc_unget(&pool->alloc[job->loc.tier], job->loc.pext);
	tier_job_end(pool, job);
}

/* Map a prepared extent and end its job. Under pool->lock. */
static void tier_publish(struct tier_pool *pool, struct tier_job *job)
{
	/*
	 * Dirty before visible: a FUA bio in map() that sees the new word
	 * must also see that the map is not durable yet.
	 */
	WRITE_ONCE(pool->change_seq, pool->change_seq + 1);
	smp_wmb(); /* change_seq before the word; pairs with map()'s smp_rmb() */
	tier_map_set(&pool->map, job->vext, &job->loc);
	pool->mapped[job->loc.tier]++;
	tier_job_end(pool, job);
}

static void tier_process_done(struct tier_pool *pool, struct tier_job *job,
			      struct tier_batch *batch)
{
	struct bio *bio = job->bio;
	unsigned long flags;

	if (job->kind == TIER_JOB_MIGRATE) {
		tier_mig_done(pool, job);
		return;
	}
	spin_lock_irqsave(&pool->lock, flags);
	if (job->kind == TIER_JOB_REDIRECT) {
		if (job->status) {
			/* The old copy is intact; the new extent goes back. */
			tier_alloc_unget(&pool->alloc[job->loc.tier],
					 job->loc.pext);
			tier_map_set_busy(&pool->map, job->vext, false);
			tier_job_end(pool, job);
		} else {
			tier_switch_extent(pool, job);
		}
	} else if (job->status) {
		tier_job_abandon(pool, job);
	} else {
		tier_publish(pool, job);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	tier_job_free(pool, job);

	if (!bio->bi_status && (bio->bi_opf & REQ_FUA)) {
		bio_list_add(&batch->complete, bio);
		batch->need_commit = true;
		return;
	}
	bio_endio(bio);
}

/* Whether a commit would free extents. Under pool->lock. */
static bool tier_frees_pending(struct tier_pool *pool)
{
	u32 i;

	for (i = 0; i < pool->nr_tiers; i++)
		if (pool->alloc[i].nr_pending || pool->alloc[i].nr_committing)
			return true;
	return false;
}

/*
 * A whole-extent write to an extent on a lower tier: give it a fresh tier-0
 * extent instead of copying anything up (checkpoint overwrite). Under lock.
 * Return: true when @job now redirects the write.
 */
static bool tier_redirect(struct tier_pool *pool, struct tier_job *job,
			  struct bio *bio, struct tier_vext v,
			  const struct tier_loc *loc)
{
	struct tier_pext p;

	/* Off an offline tier whatever the settings: the write is its data. */
	bool forced = tier_offline(pool, loc->tier);

	if (!loc->tier || pool->mode != TIER_MODE_WRITE ||
	    (!forced && ((loc->flags & TIER_EXT_F_PINNED) ||
			 !pool->cfg.redirect_writes)) ||
	    tier_alloc_get(&pool->alloc[0], forced, &p))
		return false;
	job->kind = TIER_JOB_REDIRECT;
	job->vext = v;
	job->src = *loc;
	job->loc.tier = 0;
	job->loc.flags = loc->flags;
	job->loc.pext = p;
	job->bio = bio;
	job->status = BLK_STS_OK;
	job->pending = 1;
	tier_map_set_busy(&pool->map, v, true);
	tier_job_start(pool, job);
	pool->fg_alloc_j = jiffies;
	return true;
}

/*
 * Send the write of @job (@offset sectors into its new extent); the extent
 * is published (or switched to) only when it and any zeroing beside it
 * completed, so that nobody reads what the physical extent held before.
 */
static void tier_hook_write(struct tier_pool *pool, struct bio *bio,
			    struct tier_job *job, sector_t offset)
{
	struct tier_bio *tb = tier_bio(bio);

	tb->pool = pool;
	tb->job = job;
	tb->saved_end_io = bio->bi_end_io;
	tb->saved_private = bio->bi_private;
	bio->bi_end_io = tier_overwrite_endio;
	tier_remap(pool, bio, job->vext, &job->loc, offset);
	tier_submit(pool, bio);
}

/*
 * First write to an extent: allocate, prepare, then publish.
 * Return: 0, or -ENOMEM when no job could be allocated: @bio was not
 * touched and must be retried later.
 */
static int tier_process_write(struct tier_pool *pool, struct bio *bio,
			      struct tier_batch *batch)
{
	struct tier_job *job, *owner;
	struct tier_loc loc;
	struct tier_vext v;
	unsigned long flags;
	sector_t offset;
	bool whole;
	int r;

	v = bio_vext(pool, bio, &offset);
	whole = offset == 0 && bio_sectors(bio) == pool->extent_sectors;
	job = tier_job_alloc(pool);
	if (!job)
		return -ENOMEM;

	spin_lock_irqsave(&pool->lock, flags);
	if (tier_map_lookup(&pool->map, v, &loc)) {
		if (pool->map.words[v.v] & TIER_MW_BUSY) {
			/* Being moved: reissued once the move is over. */
			tier_job_park(pool, tier_job_find(pool, v.v), bio);
			spin_unlock_irqrestore(&pool->lock, flags);
			tier_job_free(pool, job);
			return 0;
		}
		if (whole && bio_data_dir(bio) == WRITE &&
		    tier_redirect(pool, job, bio, v, &loc)) {
			spin_unlock_irqrestore(&pool->lock, flags);
			tier_hook_write(pool, bio, job, 0);
			return 0;
		}
		if (tier_offline(pool, loc.tier)) {
			blk_status_t st;

			/* Partial, or no room elsewhere: wait, or EIO. */
			spin_unlock_irqrestore(&pool->lock, flags);
			tier_job_free(pool, job);
			st = tier_offq_park(pool, bio);
			if (st) {
				bio->bi_status = st;
				bio_endio(bio);
			}
			return 0;
		}
		spin_unlock_irqrestore(&pool->lock, flags);
		tier_job_free(pool, job);
		tier_issue_mapped(pool, bio, v, &loc, offset, batch);
		return 0;
	}
	owner = tier_job_find(pool, v.v);
	if (owner) {
		/* Being prepared by an earlier write: after it. */
		tier_job_park(pool, owner, bio);
		spin_unlock_irqrestore(&pool->lock, flags);
		tier_job_free(pool, job);
		return 0;
	}
	if (pool->mode != TIER_MODE_WRITE) {
		spin_unlock_irqrestore(&pool->lock, flags);
		tier_job_free(pool, job);
		bio_io_error(bio);
		return 0;
	}
	tier_pool_sync_noalloc(pool); /* offline tiers take no extent */
	r = tier_alloc_extent(pool->alloc, pool->nr_tiers, &loc);
	if (r && pool->release_pending) {
		/* The last commit's frees are about to become free. */
		bio_list_add(&pool->release_wait, bio);
		spin_unlock_irqrestore(&pool->lock, flags);
		tier_job_free(pool, job);
		return 0;
	}
	if (r && tier_frees_pending(pool)) {
		/* Discarded extents become free with the next commit. */
		spin_unlock_irqrestore(&pool->lock, flags);
		tier_job_free(pool, job);
		bio_list_add(&batch->retry, bio);
		batch->need_commit = true;
		return 0;
	}
	if (r && tier_mig_copies_held(pool)) {
		/*
		 * A copy holds its source and its destination until it ends:
		 * with the virtual size at the tiers' capacity, the last free
		 * extents can be those. Its end (tier_job_end()) sends this
		 * bio again, to find the extent it gave back.
		 */
		bio_list_add(&pool->parked, bio);
		spin_unlock_irqrestore(&pool->lock, flags);
		tier_job_free(pool, job);
		return 0;
	}
	if (r) {
		spin_unlock_irqrestore(&pool->lock, flags);
		tier_job_free(pool, job);
		tier_log_nospc(pool);
		bio->bi_status = BLK_STS_NOSPC;
		bio_endio(bio);
		return 0;
	}
	pool->nospc_logged = false;
	if (loc.tier == 0)
		pool->fg_alloc_j = jiffies;
	job->kind = TIER_JOB_PREPARE;
	job->vext = v;
	job->loc = loc;
	job->bio = bio;
	job->status = BLK_STS_OK;
	job->wr_offset = offset;
	job->wr_sectors = bio_sectors(bio);
	/* A write that replaces every byte needs no zeroing beside it. */
	job->pending = whole ? 1 : 2;
	tier_job_start(pool, job);
	spin_unlock_irqrestore(&pool->lock, flags);

	if (!whole)
		tier_zero_rest(pool, job);
	tier_hook_write(pool, bio, job, offset);
	return 0;
}

/*
 * Discard: whole extents are unmapped (reads give zeroes, the space returns
 * to its tier after the next commit); the parts of partly covered extents
 * are passed down when the table allows it and the tier supports it.
 */
static void tier_process_discard(struct tier_pool *pool, struct bio *bio)
{
	struct tier_c *tc = tier_bio(bio)->tc;
	sector_t start = dm_target_offset(tc->ti, bio->bi_iter.bi_sector);
	sector_t end = start + bio_sectors(bio);
	u64 first = start >> pool->extent_shift;
	u64 last = (end - 1) >> pool->extent_shift;
	unsigned long flags;
	blk_status_t status = BLK_STS_OK;
	u64 v;

	if (!bio_sectors(bio)) {
		bio_endio(bio);
		return;
	}
	spin_lock_irqsave(&pool->lock, flags);
	if (tier_range_busy(pool, first, last)) {
		bio_list_add(&pool->parked, bio);
		spin_unlock_irqrestore(&pool->lock, flags);
		return;
	}
	if (pool->mode != TIER_MODE_WRITE) {
		spin_unlock_irqrestore(&pool->lock, flags);
		bio_io_error(bio);
		return;
	}
	spin_unlock_irqrestore(&pool->lock, flags);

	for (v = first; v <= last && v < pool->virt_extents; v++) {
		sector_t ext_start = v << pool->extent_shift;
		sector_t s = max(start, ext_start);
		sector_t e = min(end, ext_start + pool->extent_sectors);
		struct tier_loc loc;
		bool mapped;

		spin_lock_irqsave(&pool->lock, flags);
		if (s == ext_start && e == ext_start + pool->extent_sectors) {
			if (tier_map_clear(&pool->map, tier_vext(v), &loc)) {
				tier_alloc_free_deferred(&pool->alloc[loc.tier],
							 loc.pext);
				pool->mapped[loc.tier]--;
				WRITE_ONCE(pool->change_seq,
					   pool->change_seq + 1);
			}
			spin_unlock_irqrestore(&pool->lock, flags);
			continue;
		}
		mapped = tier_map_lookup(&pool->map, tier_vext(v), &loc);
		spin_unlock_irqrestore(&pool->lock, flags);
		if (mapped && tc->tbl.discard_passdown &&
		    !tier_offline(pool, loc.tier) &&
		    bdev_max_discard_sectors(pool->tier_bdev[loc.tier])) {
			sector_t base = pool->data_start[loc.tier];
			sector_t phys =
				tier_pext_to_sector(base, pool->extent_shift,
						    loc.pext, s - ext_start);

			/* Best effort: a tier that fails it keeps its data. */
			blkdev_issue_discard(pool->tier_bdev[loc.tier], phys,
					     e - s, GFP_NOIO);
			tier_mark_written(pool, loc.tier);
		}
		cond_resched();
	}
	/* After the map changed: a fill that raced it cannot publish. */
	tier_memtier_discard(pool, first, last);
	bio->bi_status = status;
	bio_endio(bio);
}

/*
 * Commit (or flush the tiers), then complete the flushes, submit the held
 * FUA writes and complete the hooked ones, and only then release what the
 * commit freed: a flush waits for the superblock write, not for the old
 * epoch's I/O to drain. Leaves @batch empty: the worker may call it again
 * in the same pass.
 */
static void tier_finish_batch(struct tier_pool *pool, struct tier_batch *batch)
{
	blk_status_t status = BLK_STS_OK, flush_status = BLK_STS_OK;
	unsigned long failed;
	bool frees = false;
	struct bio *bio;
	int r = 0;

	if (!batch->need_commit && bio_list_empty(&batch->flushes))
		return;
	batch->need_commit = false;
	mutex_lock(&pool->md_lock);
	r = tier_pool_sync_durable(pool, &frees, &failed);
	if (r)
		status = BLK_STS_IOERR;

	/*
	 * A flush also fails when a data tier failed its flush just now, or
	 * acknowledged writes were lost since the last one that said so (a
	 * tier failed its flush, or went offline, holding them): what the
	 * fsync promises is not all on disk. Only a batch with a flush takes
	 * the news; a FUA write promises itself.
	 */
	if (!bio_list_empty(&batch->flushes) &&
	    (tier_pool_take_writes_lost(pool) || failed))
		flush_status = BLK_STS_IOERR;
	while ((bio = bio_list_pop(&batch->flushes))) {
		bio->bi_status = status ?: flush_status;
		bio_endio(bio);
	}
	/* Not yet sent: a failure here is not their tier's I/O error. */
	while ((bio = bio_list_pop(&batch->submit))) {
		if (status || (failed & BIT(tier_bio(bio)->tier))) {
			bio->bi_status = BLK_STS_IOERR;
			bio_endio(bio);
		} else {
			tier_submit(pool, bio);
		}
	}
	while ((bio = bio_list_pop(&batch->complete))) {
		if (status) {
			/* Their write landed; the commit is what failed. */
			tier_bio(bio)->issued = false;
			bio->bi_status = status;
		}
		bio_endio(bio);
	}
	if (frees)
		tier_pool_release_frees(pool);
	mutex_unlock(&pool->md_lock);
	if (!bio_list_empty(&batch->retry)) {
		unsigned long flags;

		if (status) {
			while ((bio = bio_list_pop(&batch->retry)))
				bio_io_error(bio);
			return;
		}
		spin_lock_irqsave(&pool->lock, flags);
		bio_list_merge(&pool->deferred, &batch->retry);
		spin_unlock_irqrestore(&pool->lock, flags);
		tier_wake_worker(pool);
	}
}

/*
 * Jobs whose data landed on a data tier (not the metadata device): flush
 * those tiers once before the jobs publish their mappings, so that no
 * commit can make durable a mapping to data that is not (the superblock's
 * PREFLUSH covers tier 0 when it holds the metadata; with a separate
 * metadata device tier 0 is flushed here too, redirects included). A job
 * whose tier could not be flushed fails: a first write with EIO, a
 * migration or a redirect keeps its source.
 */
static void tier_flush_done(struct tier_pool *pool, struct list_head *done)
{
	unsigned long mask = 0, failed;
	struct tier_job *job;

	list_for_each_entry(job, done, list)
		if (!job->status &&
		    tier_flush_before_publish(pool, job->loc.tier))
			mask |= BIT(job->loc.tier);
	if (!mask)
		return;
	mutex_lock(&pool->md_lock);
	failed = tier_pool_flush_tiers(pool, mask);
	mutex_unlock(&pool->md_lock);
	if (!failed)
		return;
	list_for_each_entry(job, done, list) {
		if (job->status || !(failed & BIT(job->loc.tier)) ||
		    !tier_flush_before_publish(pool, job->loc.tier))
			continue;
		job->status = BLK_STS_IOERR;
		/* Counted against the tier once, by the flush. */
		if (job->bio) {
			tier_bio(job->bio)->issued = false;
			job->bio->bi_status = BLK_STS_IOERR;
		}
	}
}

static void tier_worker(struct work_struct *ws)
{
	struct tier_pool *pool = container_of(ws, struct tier_pool, worker);
	struct tier_batch batch = {};
	struct tier_job *job, *tmp;
	struct bio_list bios;
	unsigned long flags;
	bool starved = false;
	LIST_HEAD(done);
	struct bio *bio;

	bio_list_init(&batch.flushes);
	bio_list_init(&batch.submit);
	bio_list_init(&batch.complete);
	bio_list_init(&batch.retry);
	tier_dbg_worker_delay();

	spin_lock_irqsave(&pool->lock, flags);
	list_splice_init(&pool->done, &done);
	spin_unlock_irqrestore(&pool->lock, flags);
	list_for_each_entry(job, &done, list)
		if (job->kind == TIER_JOB_PREPARE && job->zero_status)
			tier_zero_failed(pool, job);
	tier_flush_done(pool, &done);
	list_for_each_entry_safe(job, tmp, &done, list)
		tier_process_done(pool, job, &batch);

	spin_lock_irqsave(&pool->lock, flags);
	bios = pool->deferred;
	bio_list_init(&pool->deferred);
	/* Writes parked for an offline tier: back, expired, or waiting. */
	if (pool->offq_len) {
		spin_unlock_irqrestore(&pool->lock, flags);
		tier_offq_scan(pool, &bios);
		spin_lock_irqsave(&pool->lock, flags);
	}
	/* Suspended: no commit; the request waits for the resume. */
	if (pool->commit_requested && !pool->suspended) {
		pool->commit_requested = false;
		batch.need_commit = true;
	}
	spin_unlock_irqrestore(&pool->lock, flags);

	while ((bio = bio_list_pop(&bios))) {
		/*
		 * Nothing here sleeps any more on the common path (zeroing
		 * runs beside the writes): a long list must not hog the CPU.
		 */
		cond_resched();
		if (READ_ONCE(pool->mode) == TIER_MODE_FAIL) {
			bio_io_error(bio);
			continue;
		}
		if (bio->bi_opf & REQ_PREFLUSH) {
			/* dm sends flushes empty; data follows separately. */
			bio_list_add(&batch.flushes, bio);
		} else if (bio_op(bio) == REQ_OP_DISCARD) {
			/*
			 * FUA writes held for the commit were remapped to
			 * their physical extents already: send them before a
			 * discard can unmap those extents, else the commit
			 * would free them under the held writes.
			 */
			if (!bio_list_empty(&batch.submit))
				tier_finish_batch(pool, &batch);
			tier_process_discard(pool, bio);
		} else if (tier_process_write(pool, bio, &batch)) {
			/*
			 * No job left: this bio and the rest go back to the
			 * front of the queue. Jobs in flight wake the worker
			 * when they end; the retry covers a failure with
			 * none in flight (the slab failed, the reserve was
			 * being refilled).
			 */
			bio_list_add_head(&bios, bio);
			spin_lock_irqsave(&pool->lock, flags);
			bio_list_merge_head(&pool->deferred, &bios);
			spin_unlock_irqrestore(&pool->lock, flags);
			bio_list_init(&bios);
			queue_delayed_work(pool->wq, &pool->retry_work,
					   msecs_to_jiffies(TIER_JOB_RETRY_MS));
			starved = true;
			break;
		}
	}
	tier_finish_batch(pool, &batch);

	/*
	 * Bios released while this run went through its list; not when it
	 * ran out of jobs (a job's end or the retry wakes it, no busy loop).
	 */
	spin_lock_irqsave(&pool->lock, flags);
	if (!starved && !bio_list_empty(&pool->deferred))
		tier_wake_worker(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
}

/* ---- pool lifetime ----------------------------------------------------- */

/*
 * Stop everything that runs on its own, in an order where nothing stopped
 * later can restart what was stopped earlier, before anything is freed
 * (docs/ARCHITECTURE.md "Teardown"):
 *  1. the periodic commit (tier_pool_disarm()) and the migration tick are
 *     disarmed under pool->lock (nothing re-arms them after) and cancelled;
 *  2. the copier is destroyed: it waits for copies in flight, whose
 *     completions queue the worker (the workqueue still exists);
 *  3. the memory tier: its fill work reads the map and the tiers;
 *  4. the workqueue is drained (the worker may arm the retry work while it
 *     has bios; it has none left), the retry work is cancelled, and the
 *     workqueue destroyed (tier_pool_drain()).
 * Events (tier_pool_events_close()) are closed after this, memory freed
 * last.
 * Also for a pool whose creation failed part way.
 */
static void tier_dev_stop(struct tier_pool *pool)
{
	tier_pool_disarm(pool);
	tier_mig_teardown(pool);
	tier_memtier_destroy(pool->mem);
	pool->mem = NULL;
	tier_pool_drain(pool);
}

/* Free a pool stopped by tier_dev_stop(). */
static void tier_dev_free(struct tier_pool *pool)
{
	tier_mig_destroy(pool);
	tier_pool_free(pool);
}

/* A pool for @tc's table, loaded, with its migration engine. */
static struct tier_pool *tier_dev_create(struct tier_c *tc, char **error)
{
	struct tier_pool *pool;
	int r;

	pool = tier_pool_create(&tc->tbl, tc->tier_dev, tc->meta_dev,
				dm_table_get_md(tc->ti->table), tier_worker,
				!tier_compat_table_writable(tc->ti), error);
	if (IS_ERR(pool))
		return pool;
	r = tier_mig_init(pool, error);
	if (r) {
		tier_dev_stop(pool);
		tier_dev_free(pool);
		return ERR_PTR(r);
	}
	return pool;
}

#define TIER_MSG_OTHER_MD \
	"The tier devices are already used by another mapped device"
#define TIER_MSG_TWO_TARGETS \
	"The tier devices are used by two targets of this table"
#define TIER_MSG_READ_ONLY \
	"the device is activated read-only: nothing can change"
#define TIER_MSG_ACTIVE_RO \
	"The tier devices are active read-only; remove that device before loading a read-write table"
#define TIER_MSG_ACTIVE_RW \
	"The tier devices are active read-write; remove that device before loading a read-only table"

/*
 * A table with one tier more or less than the pool: where the list
 * changes. The other tiers are the pool's devices in the pool's order
 * (they were checked against the superblock's member UUIDs at load or
 * re-bind; a list change does no re-bind): the first index where the
 * table and the pool differ is the position, and the rest match shifted by
 * one. An inserted device is checked by its label later
 * (tier_prepare_list_change()).
 */
static int tier_list_change_pos(struct tier_c *tc, struct tier_pool *pool,
				char **error)
{
	u32 n = pool->nr_tiers, pos, i;
	bool ins = tc->list_change > 0;

	for (pos = 0; pos < min(n, tc->tbl.nr_tiers); pos++)
		if (!tier_pool_uses_bdev(pool, pos, tc->tier_dev[pos]->bdev))
			break;
	for (i = pos; i < min(n, tc->tbl.nr_tiers); i++) {
		u32 at = ins ? i + 1 : i;

		if (at >= tc->tbl.nr_tiers ||
		    !tier_pool_uses_bdev(pool, ins ? i : i + 1,
					 tc->tier_dev[at]->bdev)) {
			*error =
				"The table's tiers are not the device's plus or minus one";
			return -EINVAL;
		}
	}
	/*
	 * Tier 0 is never inserted; it is removed only with tier 1 taking its
	 * place (replace-tier NAME 0): the metadata moves to tier 1 unless it
	 * is on a metadata device (checked by tier_prepare_list_change()).
	 */
	if (!pos && ins) {
		*error =
			"Tier 0 cannot be inserted (insert at 1, then remove tier 0)";
		return -EINVAL;
	}
	tc->list_pos = pos;
	return 0;
}

/*
 * Whether @tc's table is @pool's without tier 0, tier 1 becoming tier 0
 * (tierctl replace-tier NAME 0): without a metadata device the pool is
 * keyed by tier 0, which this table no longer names.
 */
static bool tier_table_drops_tier0(struct tier_c *tc, struct tier_pool *pool)
{
	return tc->tbl.nr_tiers + 1 == pool->nr_tiers && pool->nr_tiers > 1 &&
	       tier_pool_uses_bdev(pool, 1, tc->tier_dev[0]->bdev);
}

#define TIER_MSG_LOADING \
	"The tier devices are being loaded by another table; try again when it is done"

/*
 * A pool being loaded by a constructor without tier_pools_mutex
 * (tier_pool_get()): a second table over the same metadata is refused
 * meanwhile, so one device is never loaded twice.
 */
struct tier_pool_loading {
	struct list_head node; /* in tier_pools_loading */
	dev_t meta_dev_id;
};

static LIST_HEAD(tier_pools_loading); /* tier_pools_mutex */

/* The dev_t of @tc's metadata: its metadata device, else tier 0. */
static dev_t tier_table_meta_dev(struct tier_c *tc)
{
	return tc->meta_dev ? tc->meta_dev->bdev->bd_dev :
			      tc->tier_dev[0]->bdev->bd_dev;
}

/*
 * The loaded pool @tc's table shares (a reload of its device), with @tc
 * added to its targets and a reference taken.
 * Context: process, under tier_pools_mutex.
 * Return: the pool; NULL when no pool is loaded over these devices; or an
 * ERR_PTR with *@error set when the table cannot share the one that is.
 */
static struct tier_pool *tier_pool_find(struct tier_c *tc, char **error)
{
	dev_t meta = tier_table_meta_dev(tc);
	struct tier_pool *pool;
	struct tier_c *other;
	bool drop0;
	u32 i;

	lockdep_assert_held(&tier_pools_mutex);
	list_for_each_entry(pool, &tier_pools, list) {
		drop0 = tier_table_drops_tier0(tc, pool);
		if (pool->meta_dev_id != meta &&
		    (pool->meta_ext || tc->meta_dev || !drop0))
			continue;
		/* Never written through one table and frozen by another. */
		if (pool->read_only == tier_compat_table_writable(tc->ti)) {
			*error = pool->read_only ? TIER_MSG_ACTIVE_RO :
						   TIER_MSG_ACTIVE_RW;
			return ERR_PTR(-EBUSY);
		}
		/*
		 * Shared only by tables of one mapped device (reloads), one
		 * target per table: checked here, at load, since two devices
		 * loaded before either resumes would alias one pool.
		 */
		if (pool->md != dm_table_get_md(tc->ti->table)) {
			*error = TIER_MSG_OTHER_MD;
			return ERR_PTR(-EBUSY);
		}
		list_for_each_entry(other, &pool->targets, pool_node) {
			if (other->ti->table == tc->ti->table) {
				*error = TIER_MSG_TWO_TARGETS;
				return ERR_PTR(-EBUSY);
			}
		}
		/* One tier more or less: a tier-list change (preresume). */
		if (tc->tbl.nr_tiers == pool->nr_tiers + 1)
			tc->list_change = 1;
		else if (tc->tbl.nr_tiers + 1 == pool->nr_tiers)
			tc->list_change = -1;
		if ((pool->nr_tiers != tc->tbl.nr_tiers && !tc->list_change) ||
		    pool->extent_shift != tc->tbl.extent_shift ||
		    (!tier_pool_uses_bdev(pool, 0, tc->tier_dev[0]->bdev) &&
		     !drop0)) {
			*error =
				"Device is active with another tier count, extent size or tier 0";
			return ERR_PTR(-EBUSY);
		}
		if (tc->list_change && pool->read_only) {
			*error = TIER_MSG_READ_ONLY;
			return ERR_PTR(-EROFS);
		}
		tc->list_base = pool->nr_tiers;
		tc->reload = true;
		if (tc->list_change) {
			int r = tier_list_change_pos(tc, pool, error);

			if (r)
				return ERR_PTR(r);
		} else {
			/*
			 * Tier 0 is the pool's key; another device for a
			 * later tier is a re-bind, its label checked by the
			 * constructor.
			 */
			for (i = 1; i < tc->tbl.nr_tiers; i++)
				if (!tier_pool_uses_bdev(pool, i,
							 tc->tier_dev[i]->bdev))
					tc->rebind |= BIT(i);
		}
		pool->ref++;
		list_add(&tc->pool_node, &pool->targets);
		return pool;
	}
	return NULL;
}

/*
 * The pool of the device whose metadata is on @tc's metadata device (or
 * tier 0), shared with a table already loaded over the same devices (table
 * reload), else loaded from the disks. The load reads every tier's label,
 * the superblock and the map, which waits as long as a hung tier's path
 * does, so it runs with tier_pools_mutex dropped: every other device's
 * table loads, resumes and netlink requests go on meanwhile.
 * Context: process; called and returns with tier_pools_mutex held, drops
 * it while it loads.
 * Return: the pool, with a reference for @tc, or an ERR_PTR with *@error
 * set.
 */
static struct tier_pool *tier_pool_get(struct tier_c *tc, char **error)
{
	struct tier_pool_loading loading = {
		.meta_dev_id = tier_table_meta_dev(tc),
	};
	struct tier_pool_loading *other;
	struct tier_pool *pool, *fresh;

	lockdep_assert_held(&tier_pools_mutex);
	pool = tier_pool_find(tc, error);
	if (pool)
		return pool;
	list_for_each_entry(other, &tier_pools_loading, node) {
		if (other->meta_dev_id == loading.meta_dev_id) {
			*error = TIER_MSG_LOADING;
			return ERR_PTR(-EBUSY);
		}
	}
	list_add(&loading.node, &tier_pools_loading);
	mutex_unlock(&tier_pools_mutex);
	fresh = tier_dev_create(tc, error);
	mutex_lock(&tier_pools_mutex);
	list_del(&loading.node);
	if (IS_ERR(fresh))
		return fresh;
	/*
	 * A table over the same metadata was refused meanwhile, but a pool
	 * this table shares another way (it drops tier 0) can have been
	 * loaded: that one wins, the fresh copy goes (its teardown flushes
	 * work that takes the mutex).
	 */
	pool = tier_pool_find(tc, error);
	if (pool) {
		mutex_unlock(&tier_pools_mutex);
		tier_dev_stop(fresh);
		tier_dev_free(fresh);
		mutex_lock(&tier_pools_mutex);
		return pool;
	}
	fresh->id = ++tier_pool_last_id;
	list_add(&fresh->list, &tier_pools);
	list_add(&tc->pool_node, &fresh->targets);
	return fresh;
}

/*
 * Commit what changed since the last commit (map, heat, deferred frees),
 * unless the metadata is in fail mode, and release what it freed.
 * Context: process; the device is suspended (no worker, tick, fill or
 * periodic commit runs); takes pool->md_lock.
 */
static void tier_commit_pending(struct tier_pool *pool)
{
	WRITE_ONCE(pool->heat_flush, true);
	mutex_lock(&pool->md_lock);
	/* A release still pending: its frees, then the deferred ones. */
	tier_pool_release_flush(pool);
	if ((tier_map_dirty(pool) || READ_ONCE(pool->heat_dirty) ||
	     READ_ONCE(pool->frees_deferred)) &&
	    READ_ONCE(pool->mode) != TIER_MODE_FAIL)
		tier_pool_commit(pool);
	mutex_unlock(&pool->md_lock);
	/* Nothing runs while suspended: the frees are released now. */
	tier_pool_release_flush(pool);
}

/*
 * Drop a table's reference; the last one takes the pool off the list. The
 * caller then frees it with tier_pool_release() after dropping
 * tier_pools_mutex (the event work takes it, and so does a netlink
 * operation's unpin, which the release waits for).
 * Return: true when that was the last reference.
 */
static bool tier_pool_put(struct tier_pool *pool, struct tier_c *tc)
{
	lockdep_assert_held(&tier_pools_mutex);
	list_del(&tc->pool_node);
	if (--pool->ref)
		return false;
	list_del(&pool->list);
	return true;
}

static void tier_pool_release(struct tier_pool *pool)
{
	/* A netlink operation may still be at work on it (a probe flush). */
	tier_pool_wait_unpinned(pool);
	/*
	 * A device removed while suspended gets no postsuspend: what changed
	 * since its suspend (netlink pins, persisted settings) is committed
	 * here, or it was acknowledged and lost. Only for a pool that was
	 * active: a table loaded and never resumed writes nothing.
	 */
	if (pool->announced)
		tier_commit_pending(pool);
	tier_dev_stop(pool);
	tier_pool_events_close(pool);
	tier_dev_free(pool);
}

/* ---- constructor / destructor ------------------------------------------ */

/*
 * A table over a running pool names another device for some tier (a
 * reconnected namespace under a new name): it must carry that tier's
 * label. No lock: the check reads what never changes after load, and the
 * table's reference keeps the pool.
 */
static int tier_check_rebind(struct tier_c *tc, char **error)
{
	u32 i;
	int r;

	for (i = 1; i < TIER_MAX_TIERS; i++) {
		if (!(tc->rebind & BIT(i)))
			continue;
		mutex_lock(&tc->pool->md_lock);
		r = tier_md_check_member(tc->pool->meta, i,
					 tc->tier_dev[i]->bdev,
					 tc->tier_dev[i]->name, error);
		mutex_unlock(&tc->pool->md_lock);
		if (r)
			return r;
	}
	return 0;
}

/*
 * Whether the tiers other than @pos hold the virtual size: a superblock
 * with less capacity is invalid (tier_sb_decode()). Under pool->lock.
 */
static bool tier_list_fits(struct tier_pool *pool, u32 pos)
{
	u64 cap = 0;
	u32 i;

	for (i = 0; i < pool->nr_tiers; i++)
		if (i != pos)
			cap += pool->alloc[i].nr_extents;
	return cap >= pool->virt_extents;
}

/*
 * ti->error of a removal refused for a queued move, which names it: dm
 * prints ti->error after the constructor returned and freed its context,
 * so the text lives here. tier_pools_mutex serialises the writers; the
 * last byte is never written, so a print that races another refusal reads
 * that one's text at worst, never past the end.
 */
static char tier_list_err[224];

#define TIER_MSG_LIST_BLOCKED \
	"Move %u (%s to tier %u) targets the tier being removed: "
#define TIER_MSG_LIST_BLOCKED_HINT \
	"cancel it (tierctl cancel %s %u) or wait for it to end"

/* The message naming @m, a move that keeps tier @pos from being removed. */
static void tier_list_blocker_msg(struct tier_pool *pool, u32 pos,
				  const struct tier_move *m, char *buf,
				  size_t len)
{
	int n;

	n = snprintf(buf, len, TIER_MSG_LIST_BLOCKED, m->id,
		     tier_move_kind_name(m->kind), pos);
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, TIER_MSG_LIST_BLOCKED_HINT,
			 tier_pool_log_name(pool), m->id);
}

/*
 * A table with one tier more or less than the pool (tc->list_change): the
 * inserted device must carry the label tierctl add-tier wrote for its
 * position (its allocator is prepared now, where sleeping and failing are
 * allowed); the removed tier must be empty and stays so (no allocation)
 * until the resume. Queued moves follow the change at the resume
 * (tier_mig_tiers_renumber()); only a migrate or pin to the removed tier
 * refuses it: there is no tier to renumber it to.
 */
static int tier_prepare_list_change(struct tier_c *tc, char **error)
{
	struct tier_pool *pool = tc->pool;
	u32 n = tc->list_base, pos = tc->list_pos;
	struct tier_move m;
	bool blocked = false;
	int r;

	if (tc->list_change > 0) {
		struct dm_dev *dev = tc->tier_dev[pos];

		mutex_lock(&pool->md_lock);
		r = pool->nr_tiers == n ?
			    tier_md_check_new_tier(pool->meta, pos, dev->bdev,
						   dev->name, &tc->new_rec,
						   error) :
			    -EBUSY;
		mutex_unlock(&pool->md_lock);
		if (r == -EBUSY)
			*error =
				"The tier list changed while the table was loaded";
		if (r)
			return r;
		r = tier_alloc_init(&tc->new_alloc, tc->new_rec.nr_extents);
		if (r) {
			*error = "Cannot allocate the new tier's allocator";
			return r;
		}
		tier_alloc_set_reserve_pct(&tc->new_alloc, tc->tbl.reserve_pct);
		return 0;
	}
	if (tc->list_change < 0 && !pos && !pool->meta_ext) {
		mutex_lock(&pool->md_lock);
		r = tier_md_check_spare(pool->meta, tc->tier_dev[0]->bdev,
					tc->tier_dev[0]->name, error);
		mutex_unlock(&pool->md_lock);
		if (r)
			return r;
	}
	if (tc->list_change < 0) {
		spin_lock_irq(&pool->lock);
		if (pool->nr_tiers != n) {
			*error =
				"The tier list changed while the table was loaded";
			r = -EBUSY;
		} else if (tier_mig_list_blocker(pool, pos, &m)) {
			/* Held only once none is: then none can be queued. */
			blocked = true;
			r = -EBUSY;
		} else if (!tier_list_fits(pool, pos)) {
			*error =
				"The other tiers are smaller than the device's virtual size";
			r = -ENOSPC;
		} else {
			r = tier_pool_hold_tier(pool, pos, tc, error);
		}
		spin_unlock_irq(&pool->lock);
		tc->held = !r;
		if (blocked) {
			mutex_lock(&tier_pools_mutex);
			tier_list_blocker_msg(pool, pos, &m, tier_list_err,
					      sizeof(tier_list_err) - 1);
			mutex_unlock(&tier_pools_mutex);
			*error = tier_list_err;
		}
		return r;
	}
	return 0;
}

/* A queued move may cover extents beyond a smaller virtual size. */
static bool tier_resize_moves_queued(struct tier_pool *pool)
{
	u32 n;

	spin_lock_irq(&pool->lock);
	n = tier_mig_queued(pool);
	spin_unlock_irq(&pool->lock);
	return n;
}

/*
 * A reload of a running pool without a tier-list change: tiers whose device
 * grew, and a table length other than the live table's, which becomes the
 * virtual size (tier_pool_resize_prepare()). Not together with a re-bind of
 * the same tier, nor a larger size with a memory tier (its index is sized
 * for the virtual size at its creation).
 */
static int tier_prepare_resize(struct tier_c *tc, char **error)
{
	struct tier_pool *pool = tc->pool;
	struct dm_target *ti = tc->ti;
	u64 virt;
	bool mem;
	int r;

	if (!tc->reload || tc->list_change)
		return 0;
	mutex_lock(&tier_pools_mutex);
	virt = pool->virt_extents;
	/*
	 * Only a length other than the last resumed table's resizes: a table
	 * shorter than the virtual size, reloaded as it is, stays allowed as
	 * before.
	 */
	if (pool->live_len && ti->len != pool->live_len)
		virt = ti->len >> pool->extent_shift;
	mem = pool->mem || tc->tbl.mem_node != TIER_MEM_NODE_NONE;
	mutex_unlock(&tier_pools_mutex);
	if (virt != pool->virt_extents &&
	    (!virt || (ti->len & (pool->extent_sectors - 1)))) {
		*error =
			"The new table length is not a multiple of the extent size";
		return -EINVAL;
	}
	if (virt > pool->virt_extents && mem) {
		*error =
			"Growing the virtual size needs a table without a memory tier";
		return -EOPNOTSUPP;
	}
	if (virt < pool->virt_extents && tier_resize_moves_queued(pool)) {
		*error =
			"Moves are queued: wait or cancel them before shrinking";
		return -EBUSY;
	}
	r = tier_pool_resize_prepare(pool, tc->tier_dev, tc->rebind, virt,
				     &tc->rz, error);
	tc->resize = r > 0;
	return r < 0 ? r : 0;
}

/* At resume (suspended, under tier_pools_mutex): swap re-bound tiers in. */
static void tier_apply_rebind(struct tier_c *tc)
{
	struct tier_pool *pool = tc->pool;
	u32 i;

	for (i = 1; i < min(pool->nr_tiers, tc->tbl.nr_tiers); i++)
		if ((tc->rebind & BIT(i)) &&
		    !tier_pool_uses_bdev(pool, i, tc->tier_dev[i]->bdev))
			tier_pool_rebind(pool, i, tc->tier_dev[i]);
	tc->rebind = 0;
}

/*
 * The name netlink requests use: the device-mapper name (/dev/mapper/NAME),
 * not the disk name (dm-N). Under tier_pools_mutex.
 */
static void tier_pool_cache_name(struct tier_pool *pool, struct dm_target *ti)
{
	struct mapped_device *md = dm_table_get_md(ti->table);
	char name[DM_NAME_LEN];

	lockdep_assert_held(&tier_pools_mutex);
	if (dm_copy_name_and_uuid(md, name, NULL))
		strscpy(name, dm_device_name(md), sizeof(name));
	strscpy_pad(pool->name, name, sizeof(pool->name));
}

static void tier_ctx_free(struct dm_target *ti, struct tier_c *tc)
{
	u32 i;

	tier_memtier_destroy(tc->mem_new);
	tier_alloc_destroy(&tc->new_alloc);
	tier_pool_resize_free(&tc->rz);
	for (i = 0; i < TIER_MAX_TIERS; i++)
		if (tc->tier_dev[i])
			dm_put_device(ti, tc->tier_dev[i]);
	if (tc->meta_dev)
		dm_put_device(ti, tc->meta_dev);
	if (tc->argv_copy) {
		for (i = 0; i < tc->argc; i++)
			kfree(tc->argv_copy[i]);
		kfree(tc->argv_copy);
	}
	kfree(tc);
}

/*
 * Settings persisted in the superblock fill in what the table line did not
 * give (precedence: line, persisted, default; docs/ARCHITECTURE.md
 * "Settings that persist"). Never a reason to refuse the table: what
 * cannot be used is logged and left out. A read-only activation reads them
 * too; it only never writes them.
 */
static void tier_load_settings(struct tier_c *tc)
{
	struct tier_pool *pool = tc->pool;
	struct tier_settings s;
	const char *err = NULL;
	u32 refused = 0;
	int r;

	spin_lock_irq(&pool->lock);
	tier_md_get_settings(pool->meta, &s);
	spin_unlock_irq(&pool->lock);
	if (!s.count)
		return;
	r = tier_table_settings_apply(&tc->tbl, &s, &refused, &err);
	if (r < 0)
		DMWARN("%s: persisted settings conflict with the table line (%s), not used",
		       tier_pool_log_name(pool), err ? err : "invalid");
	else if (r)
		DMINFO("%s: %d persisted setting%s applied",
		       tier_pool_log_name(pool), r, r == 1 ? "" : "s");
	if (refused)
		DMWARN("%s: %u persisted setting%s out of range, not used",
		       tier_pool_log_name(pool), refused,
		       refused == 1 ? "" : "s");
}

/*
 * Construct a tiered device:
 *
 *   tier <extent_sectors> <nr_tiers> <tier_dev>... [<#opt_args> <opt_args>...]
 *
 * extent_sectors: extent size in 512-byte sectors, the one the device was
 *	created with (power of two, 128..131072).
 * nr_tiers:	1..8; tier devices follow, fastest first. Tier 0 holds the
 *	metadata unless metadata_dev names a separate device. Every device
 *	must carry the label "tierctl create" wrote, at the position the
 *	label names.
 * Optional arguments (key value pairs, see kernel/core/table.c):
 *	metadata_dev <dev>		the separate metadata device the
 *					device was created with
 *	commit_interval_ms <1..60000>	periodic commit (default 1000)
 *	reserve_pct <0..50>		per-tier share kept free for
 *					migrations (default 2)
 *	discard_passdown <0|1>		pass partial discards down (default 1)
 *	mem_node <0..1023>		memory tier of clean copies on this
 *					NUMA node (none by default)
 *	mem_size_mb <1..1048576>	its size, allocated now; required
 *					with mem_node
 *	mem_promote_hits <1..65535>	reads before a copy (default 2)
 *	offline_queue_s <0..600>	how long a write to an offline
 *					tier that cannot be redirected waits
 *					for it (default 0: EIO at once)
 *
 * STATUSTYPE_TABLE reproduces this line, with devices as major:minor and
 * only the optional arguments that differ from their defaults.
 */
static int tier_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct tier_pool *pool;
	struct tier_c *tc;
	const char *perr = NULL;
	char *error = NULL;
	bool last;
	int r, i;

	tc = kzalloc(sizeof(*tc), GFP_KERNEL);
	if (!tc) {
		ti->error = "Cannot allocate the target context";
		return -ENOMEM;
	}
	tc->ti = ti;
	/* Keep our own copy: tbl points into it for STATUSTYPE_TABLE. */
	tc->argv_copy = kcalloc(argc + 1, sizeof(char *), GFP_KERNEL);
	if (!tc->argv_copy) {
		ti->error = "Cannot allocate the target context";
		kfree(tc);
		return -ENOMEM;
	}
	tc->argc = argc;
	for (i = 0; i < argc; i++) {
		tc->argv_copy[i] = kstrdup(argv[i], GFP_KERNEL);
		if (!tc->argv_copy[i]) {
			ti->error = "Cannot allocate the target context";
			r = -ENOMEM;
			goto bad;
		}
	}
	r = tier_table_parse(argc, tc->argv_copy, &tc->tbl, &perr);
	if (r) {
		ti->error = (char *)perr;
		goto bad;
	}
	if (tc->tbl.metadata_dev) {
		r = dm_get_device(ti, tc->tbl.metadata_dev,
				  dm_table_get_mode(ti->table), &tc->meta_dev);
		if (r) {
			ti->error = "Cannot open the metadata device";
			goto bad;
		}
	}
	for (i = 0; i < tc->tbl.nr_tiers; i++) {
		r = dm_get_device(ti, tc->tbl.tier_dev[i],
				  dm_table_get_mode(ti->table),
				  &tc->tier_dev[i]);
		if (r) {
			ti->error = "Cannot open a tier device";
			goto bad;
		}
	}

	mutex_lock(&tier_pools_mutex);
	pool = tier_pool_get(tc, &error);
	if (!IS_ERR(pool))
		tier_pool_cache_name(pool, ti);
	mutex_unlock(&tier_pools_mutex);
	if (IS_ERR(pool)) {
		ti->error = error;
		r = PTR_ERR(pool);
		goto bad;
	}
	tc->pool = pool;
	r = tier_check_rebind(tc, &error);
	if (!r)
		r = tier_prepare_list_change(tc, &error);
	if (!r)
		r = tier_prepare_resize(tc, &error);
	if (r) {
		ti->error = error;
		goto bad_pool;
	}
	tier_load_settings(tc);
	if (!tc->resize && ti->len > pool->virt_extents << pool->extent_shift) {
		ti->error = "Target is larger than the device's virtual size";
		r = -EINVAL;
		goto bad_pool;
	}
	/* A memory tier other than the pool's is built now, used at resume. */
	mutex_lock(&tier_pools_mutex);
	tc->mem_change = !tier_memtier_same(pool->mem, tc->tbl.mem_node,
					    tc->tbl.mem_size_mb);
	mutex_unlock(&tier_pools_mutex);
	if (tc->mem_change && tc->tbl.mem_node != TIER_MEM_NODE_NONE) {
		struct tier_memtier *mem;

		mem = tier_memtier_create(pool, tc->tbl.mem_node,
					  tc->tbl.mem_size_mb, &error);
		if (IS_ERR(mem)) {
			ti->error = error;
			r = PTR_ERR(mem);
			goto bad_pool;
		}
		tc->mem_new = mem;
	}
	ti->num_flush_bios = 1;
	ti->flush_supported = true;
	ti->num_discard_bios = 1;
	ti->discards_supported = true;
	ti->accounts_remapped_io = true;
	ti->per_io_data_size = sizeof(struct tier_bio);
	ti->private = tc;
	return 0;

bad_pool:
	if (tc->held)
		tier_pool_release_tier(tc->pool, tc);
	mutex_lock(&tier_pools_mutex);
	last = tier_pool_put(tc->pool, tc);
	mutex_unlock(&tier_pools_mutex);
	if (last)
		tier_pool_release(tc->pool);
bad:
	tier_ctx_free(ti, tc);
	return r;
}

static void tier_dtr(struct dm_target *ti)
{
	struct tier_c *tc = ti->private;
	struct tier_pool *pool = tc->pool;
	bool last;

	/* A table without a tier, destroyed before it resumed. */
	if (tc->held)
		tier_pool_release_tier(pool, tc);
	mutex_lock(&tier_pools_mutex);
	if (pool->ti == ti)
		pool->ti = NULL;
	last = tier_pool_put(pool, tc);
	mutex_unlock(&tier_pools_mutex);
	if (last)
		tier_pool_release(pool);
	tier_ctx_free(ti, tc);
}

/* ---- suspend / resume -------------------------------------------------- */

/*
 * Before dm waits for the bios in flight: writes parked for an offline
 * tier would hold the suspend until their deadline, so the queue closes
 * and the worker completes them: with EIO, or, in a noflush suspend
 * (a table reload that keeps I/O), with DM_REQUEUE, so that dm issues
 * them again after the resume, where they wait again (with a new
 * deadline). Until the resume (or presuspend_undo) nothing is parked.
 */
static void tier_presuspend(struct dm_target *ti)
{
	struct tier_c *tc = ti->private;
	struct tier_pool *pool = tc->pool;
	bool queued;

	spin_lock_irq(&pool->lock);
	pool->offq_closed = true;
	pool->offq_requeue = dm_noflush_suspending(ti);
	queued = pool->offq_len;
	spin_unlock_irq(&pool->lock);
	if (queued)
		tier_wake_worker(pool);
}

static void tier_offq_open(struct tier_pool *pool)
{
	spin_lock_irq(&pool->lock);
	pool->offq_closed = false;
	pool->offq_requeue = false;
	spin_unlock_irq(&pool->lock);
}

static void tier_presuspend_undo(struct dm_target *ti)
{
	struct tier_c *tc = ti->private;

	tier_offq_open(tc->pool);
}

/*
 * Suspended, the device writes nothing: no periodic commit, no tick, no
 * fill, and the worker leaves commit requests (the "commit" message,
 * netlink pin/unpin) for the resume. pool->periodic and pool->suspended
 * change under pool->lock, and everything that arms the commit work or
 * reads the flag holds it, so nothing re-arms the work after this.
 */
static void tier_postsuspend(struct dm_target *ti)
{
	struct tier_c *tc = ti->private;
	struct tier_pool *pool = tc->pool;

	spin_lock_irq(&pool->lock);
	WRITE_ONCE(pool->suspended, true);
	/* The resume may change the tier list: a forget's walk stops. */
	WRITE_ONCE(pool->suspend_gen, pool->suspend_gen + 1);
	pool->periodic = false;
	spin_unlock_irq(&pool->lock);
	cancel_delayed_work_sync(&pool->commit_work);
	tier_memtier_stop(pool);
	tier_mig_stop(pool);
	flush_workqueue(pool->wq);
	cancel_delayed_work_sync(&pool->retry_work);
	tier_commit_pending(pool);
}

/*
 * A table with one tier more or less: the superblock with the new tier
 * list is committed now, suspended (no map(), worker, commit, migration or
 * fill), where a failure can still refuse the resume; then the pool uses
 * the new list. device-mapper has swapped the table in already: after a
 * failure the device stays suspended with it, and the previous table
 * (reloaded) resumes as before (tierctl does that).
 */
static int tier_preresume(struct dm_target *ti)
{
	struct tier_c *tc = ti->private;
	struct tier_pool *pool = tc->pool;
	char why[sizeof(tier_list_err)];
	bool blocked = false;
	struct tier_move m;
	int r = 0;

	/* Live now, whatever this returns (struct tier_pool, ti). */
	mutex_lock(&tier_pools_mutex);
	pool->ti = ti;
	mutex_unlock(&tier_pools_mutex);
	if (tc->resize) {
		mutex_lock(&tier_pools_mutex);
		/*
		 * Only tiers grew, and the metadata stopped being writable
		 * since the load: resume at the recorded sizes
		 * (tier_pool_resize_prepare()), not stay suspended.
		 */
		if (!tc->rz.map_change && !tier_pool_md_writable(pool)) {
			tier_pool_growth_deferred(pool);
			tc->resize = false;
			mutex_unlock(&tier_pools_mutex);
			return 0;
		}
		if (tc->rz.virt < pool->virt_extents &&
		    tier_resize_moves_queued(pool))
			r = -EBUSY;
		else
			r = tier_pool_resize(pool, &tc->rz);
		if (!r) {
			tc->resize = false;
			tier_mig_tiers_changed(pool);
		}
		mutex_unlock(&tier_pools_mutex);
		if (r)
			DMERR("%s: resize failed: %d; reload the previous table",
			      tier_pool_log_name(pool), r);
		return r;
	}
	if (!tc->list_change)
		return 0;
	mutex_lock(&tier_pools_mutex);
	spin_lock_irq(&pool->lock);
	/*
	 * Queued moves follow the new numbers in the section that switches
	 * the pool (tier_mig_tiers_renumber()). None can target the removed
	 * tier: refused at the load, and tier_mig_request() refuses a held
	 * tier since; checked again before anything is committed.
	 */
	if (pool->nr_tiers != tc->list_base)
		r = -EBUSY;
	else if (tc->list_change < 0 &&
		 tier_mig_list_blocker(pool, tc->list_pos, &m))
		blocked = true;
	spin_unlock_irq(&pool->lock);
	if (blocked) {
		tier_list_blocker_msg(pool, tc->list_pos, &m, why, sizeof(why));
		DMERR("%s: %s", tier_pool_log_name(pool), why);
		r = -EBUSY;
	}
	if (!r && tc->list_change > 0)
		r = tier_pool_add_tier(pool, tc->list_pos,
				       tc->tier_dev[tc->list_pos], &tc->new_rec,
				       &tc->new_alloc, tier_mig_tiers_renumber);
	else if (!r)
		r = tier_pool_remove_tier(pool, tc->list_pos, tc,
					  tier_mig_tiers_renumber);
	if (!r) {
		tc->list_change = 0;
		tc->held = false;
		tier_mig_tiers_changed(pool);
	}
	mutex_unlock(&tier_pools_mutex);
	if (r)
		DMERR("%s: tier list change %u -> %u failed: %d; reload the previous table",
		      tier_pool_log_name(pool), tc->list_base, tc->tbl.nr_tiers,
		      r);
	return r;
}

/*
 * The persisted settings as they are now, for @tc's table about to go
 * live: a `set`, policy-set or reset-settings since its load changed the
 * record, which the values its load read would undo. Options the table
 * line gives still win. Context: resume, under tier_pools_mutex.
 */
static void tier_refresh_settings(struct tier_c *tc)
{
	struct tier_pool *pool = tc->pool;
	struct tier_settings rec;
	struct tier_table line, t;
	const char *err = NULL;
	u32 refused;

	lockdep_assert_held(&tier_pools_mutex);
	/* The line parsed at load: it parses again. */
	if (tier_table_parse(tc->argc, tc->argv_copy, &line, &err))
		return;
	t = tc->tbl;
	tier_table_settings_reset(&t, &line);
	spin_lock_irq(&pool->lock);
	tier_md_get_settings(pool->meta, &rec);
	spin_unlock_irq(&pool->lock);
	/* A record the line conflicts with: as loaded (the load warned). */
	if (rec.count &&
	    tier_table_settings_apply(&t, &rec, &refused, &err) < 0)
		return;
	tc->tbl = t;
}

static void tier_resume(struct dm_target *ti)
{
	struct tier_c *tc = ti->private;
	struct tier_pool *pool = tc->pool;
	struct tier_memtier *old_mem = NULL;
	u32 i;

	mutex_lock(&tier_pools_mutex);
	tier_refresh_settings(tc);
	pool->ti = ti;
	pool->live_len = ti->len;
	tier_apply_rebind(tc);
	if (tc->mem_change) {
		/* Suspended: no map(), no fill; the new tier starts empty. */
		old_mem = pool->mem;
		spin_lock_irq(&pool->lock);
		pool->mem = tc->mem_new;
		spin_unlock_irq(&pool->lock);
		tc->mem_new = NULL;
		tc->mem_change = false;
	}
	/* A rename takes effect at the next resume. */
	tier_pool_cache_name(pool, ti);
	if (!pool->announced) {
		pool->announced = true;
		WRITE_ONCE(pool->ev_open, true);
		tier_event(pool, DM_TIER_EVENT_DEV_NEW, 0);
	}
	mutex_unlock(&tier_pools_mutex);
	tier_memtier_destroy(old_mem);
	pool->commit_interval_ms = tc->tbl.commit_interval_ms;
	WRITE_ONCE(pool->offline_queue_s, tc->tbl.offline_queue_s);
	tier_offq_open(pool);
	spin_lock_irq(&pool->lock);
	for (i = 0; i < pool->nr_tiers; i++)
		tier_alloc_set_reserve_pct(&pool->alloc[i],
					   tc->tbl.reserve_pct);
	spin_unlock_irq(&pool->lock);
	tier_mig_set_cfg(pool, &tc->tbl.policy);
	spin_lock_irq(&pool->lock);
	WRITE_ONCE(pool->suspended, false);
	pool->periodic = true;
	queue_delayed_work(pool->wq, &pool->commit_work,
			   msecs_to_jiffies(pool->commit_interval_ms));
	spin_unlock_irq(&pool->lock);
	tier_mig_start(pool);
	tier_memtier_start(pool);
	tier_wake_worker(pool);
}

/* ---- status, messages, limits ------------------------------------------ */

void tier_stats_get(struct tier_pool *pool, struct tier_stats *st)
{
	unsigned long flags;

	tier_pool_stats_begin(pool, st);
	spin_lock_irqsave(&pool->lock, flags);
	tier_pool_stats_locked(pool, st);
	tier_mig_stats(pool, st);
	tier_memtier_stats(pool, st);
	spin_unlock_irqrestore(&pool->lock, flags);
	tier_pool_stats_end(pool, st);
}

/*
 * Status format (STATUSTYPE_INFO), space separated:
 *   <metadata_mode> <commits> <extent_sectors> <virt_extents>
 *   <mapped_extents> <nr_tiers>
 *   then per tier: <state> <total_extents> <used_extents> <read_ios>
 *   <write_ios>
 *   then <nospc_errors>
 *   then migration: <promotions> <demotions> <moved_bytes> <in_flight>
 *   <pace> <above_high_ms> <migration_errors> <manual_pending>
 *   then per tier: <mapped_extents>
 * metadata_mode: rw | ro | fail. state: ok | degraded (an I/O error since
 * activation or the last tier-recover) | offline (a path error, a failed
 * flush or TIER_OFFLINE_ERRORS errors in a row: not used until
 * tier-recover). commits: commits since this
 * activation. used_extents counts extents in the map plus those being
 * prepared, migrated to the tier or awaiting a commit to be freed.
 * pace: idle | full | deadline | background. above_high_ms: time tier 0
 * spent above its high watermark. manual_pending: extents the queued
 * migrate and pin requests have still to examine or copy. Counters count
 * since activation.
 * then the memory tier: <mem_node> <mem_bytes_max> <mem_bytes_used>
 *   <mem_copies> <mem_hits> <mem_misses> <mem_fills> <mem_evictions>
 *   <mem_invalidations>; mem_node is "-" and the rest 0 without one.
 *   mem_bytes_used: node memory it holds (allocated up front);
 *   mem_copies: extents with a valid copy; hits: reads served from memory;
 *   misses: reads of mapped extents that were not; fills: copies made;
 *   evictions: copies dropped for room; invalidations: copies (or fills in
 *   flight) dropped by writes and discards.
 * then <swaps>: promotions that displaced a cold tier-0 extent.
 * then <activation>: rw, or ro for a table loaded read-only (dmsetup
 *   --readonly), which writes nothing to any member: no commit, no
 *   migration, messages fail with EROFS. Not the metadata mode.
 * then <meta_used_blocks> <meta_total_blocks>: the metadata device (the
 *   separate one, or tier 0's area before its data) in 4 KiB blocks: used
 *   by the label, the superblock slots and both map copies, and its size.
 * then <offline_queued> <offline_expired>: writes parked for an offline
 *   tier now (offline_queue_s), and those failed at their deadline.
 * then <evacuating>: the tiers being evacuated or evacuated (taking no new
 *   extents), a bit each (decimal; bit i: tier i), 0 when none.
 * Fields may be appended later.
 */
static void tier_status(struct dm_target *ti, status_type_t type,
			unsigned int status_flags, char *result,
			unsigned int maxlen)
{
	struct tier_c *tc = ti->private;
	struct tier_pool *pool = tc->pool;
	unsigned int sz = 0;
	struct tier_stats stats, *st = &stats;
	u32 i;

	switch (type) {
	case STATUSTYPE_INFO:
		tier_stats_get(pool, st);
		DMEMIT("%s %llu %llu %llu %llu %u", tier_mode_name(st->mode),
		       st->commits, (unsigned long long)pool->extent_sectors,
		       pool->virt_extents, st->mapped, pool->nr_tiers);
		for (i = 0; i < pool->nr_tiers; i++)
			DMEMIT(" %s %llu %llu %llu %llu",
			       tier_health_name(st->tier[i].state),
			       st->tier[i].total, st->tier[i].used,
			       st->tier[i].reads, st->tier[i].writes);
		DMEMIT(" %llu", st->nospc_errors);
		DMEMIT(" %llu %llu %llu %u %s %llu %llu %llu", st->promotions,
		       st->demotions, st->moved_bytes, st->mig_inflight,
		       tier_pace_name(st->pace), st->above_high_ms,
		       st->mig_errors, st->man_pending);
		for (i = 0; i < pool->nr_tiers; i++)
			DMEMIT(" %llu", st->tier[i].mapped);
		if (st->mem)
			DMEMIT(" %u", st->mem_node);
		else
			DMEMIT(" -");
		DMEMIT(" %llu %llu %llu %llu %llu %llu %llu %llu",
		       st->mem_bytes_max, st->mem_bytes_used, st->mem_copies,
		       st->mem_hits, st->mem_misses, st->mem_fills,
		       st->mem_evictions, st->mem_invalidations);
		DMEMIT(" %llu", st->mig_swaps);
		DMEMIT(" %s", pool->read_only ? "ro" : "rw");
		DMEMIT(" %llu %llu", st->meta_used_blocks,
		       st->meta_total_blocks);
		DMEMIT(" %llu %llu", st->offline_queued, st->offline_expired);
		DMEMIT(" %u", st->evac);
		break;
	case STATUSTYPE_TABLE: {
		struct tier_table t = tc->tbl;

		for (i = 0; i < t.nr_tiers; i++)
			t.tier_dev[i] = tc->tier_dev[i]->name;
		if (tc->meta_dev)
			t.metadata_dev = tc->meta_dev->name;
		if (tier_table_format(&t, result, maxlen) < 0 && maxlen)
			result[0] = '\0';
		break;
	}
	case STATUSTYPE_IMA:
		/* Measured at table load and resume (dm-ima), like dm-crypt. */
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",extent_sectors=%u,nr_tiers=%u", tc->tbl.extent_sectors,
		       tc->tbl.nr_tiers);
		for (i = 0; i < tc->tbl.nr_tiers; i++)
			DMEMIT(",tier_%u=%s", i, tc->tier_dev[i]->name);
		if (tc->meta_dev)
			DMEMIT(",metadata_dev=%s", tc->meta_dev->name);
		DMEMIT(",commit_interval_ms=%u,reserve_pct=%u,discard_passdown=%c",
		       tc->tbl.commit_interval_ms, tc->tbl.reserve_pct,
		       tc->tbl.discard_passdown ? 'y' : 'n');
		if (tc->tbl.mem_node != TIER_MEM_NODE_NONE)
			DMEMIT(",mem_node=%u,mem_size_mb=%u", tc->tbl.mem_node,
			       tc->tbl.mem_size_mb);
		DMEMIT(",metadata_mode=%s;",
		       tier_mode_name(READ_ONCE(pool->mode)));
		break;
	}
}

/* Apply the table's settings to the pool after a "set" message. */
static void tier_apply_settings(struct tier_c *tc)
{
	struct tier_pool *pool = tc->pool;
	u32 i;

	/* Parked writes keep the deadline they were given. */
	WRITE_ONCE(pool->offline_queue_s, tc->tbl.offline_queue_s);
	spin_lock_irq(&pool->lock);
	for (i = 0; i < pool->nr_tiers; i++)
		tier_alloc_set_reserve_pct(&pool->alloc[i],
					   tc->tbl.reserve_pct);
	spin_unlock_irq(&pool->lock);
	if (pool->commit_interval_ms != tc->tbl.commit_interval_ms) {
		unsigned long delay =
			msecs_to_jiffies(tc->tbl.commit_interval_ms);

		spin_lock_irq(&pool->lock);
		pool->commit_interval_ms = tc->tbl.commit_interval_ms;
		/* Not while suspended: postsuspend disarmed it for good. */
		if (pool->periodic)
			mod_delayed_work(pool->wq, &pool->commit_work, delay);
		spin_unlock_irq(&pool->lock);
	}
	tier_mig_set_cfg(pool, &tc->tbl.policy);
}

int tier_pool_get_table(struct tier_pool *pool, struct tier_table *t)
{
	struct tier_c *tc;

	lockdep_assert_held(&tier_pools_mutex);
	if (!pool->ti)
		return -ENODEV;
	tc = pool->ti->private;
	*t = tc->tbl;
	return 0;
}

int tier_pool_set_table(struct tier_pool *pool, const struct tier_table *t)
{
	struct tier_c *tc;

	lockdep_assert_held(&tier_pools_mutex);
	if (!pool->ti)
		return -ENODEV;
	tc = pool->ti->private;
	/* Only the optional settings; the device strings stay tc's own. */
	tc->tbl.commit_interval_ms = t->commit_interval_ms;
	tc->tbl.reserve_pct = t->reserve_pct;
	tc->tbl.discard_passdown = t->discard_passdown;
	tc->tbl.policy = t->policy;
	tc->tbl.mem_size_mb = t->mem_size_mb;
	tc->tbl.offline_queue_s = t->offline_queue_s;
	tier_apply_settings(tc);
	return 0;
}

/* The next commit writes the settings record: make the pool dirty. */
static void tier_settings_dirty(struct tier_pool *pool)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	WRITE_ONCE(pool->change_seq, pool->change_seq + 1);
	spin_unlock_irqrestore(&pool->lock, flags);
}

/*
 * Replace the settings record, which the next commit writes (the pool is
 * dirty). Under pool->lock, never md_lock: a commit that waits on a hung
 * tier holds that, and tier_pools_mutex, held by the callers, must not
 * wait for it.
 */
static void tier_settings_store(struct tier_pool *pool,
				const struct tier_settings *s)
{
	lockdep_assert_held(&pool->lock);
	tier_md_set_settings(pool->meta, s);
	WRITE_ONCE(pool->change_seq, pool->change_seq + 1);
}

/*
 * Record the values of @keys in @tc's table as persisted settings; keys
 * that do not persist (mem_size_mb) are skipped. Under tier_pools_mutex.
 */
static void tier_persist_keys(struct tier_c *tc, const char *const *keys,
			      unsigned int n)
{
	struct tier_pool *pool = tc->pool;
	const char *full = NULL;
	struct tier_settings s;
	bool changed = false;
	unsigned int i;
	int r;

	lockdep_assert_held(&tier_pools_mutex);
	spin_lock_irq(&pool->lock);
	tier_md_get_settings(pool->meta, &s);
	for (i = 0; i < n; i++) {
		r = tier_table_settings_record(&s, &tc->tbl, keys[i]);
		if (!r)
			changed = true;
		else if (r == -ENOSPC)
			full = keys[i];
	}
	if (changed)
		tier_settings_store(pool, &s);
	spin_unlock_irq(&pool->lock);
	if (full)
		DMWARN_LIMIT("%s: %s: settings record full",
			     tier_pool_log_name(pool), full);
}

void tier_pool_persist(struct tier_pool *pool, const char *const *keys,
		       unsigned int n)
{
	lockdep_assert_held(&tier_pools_mutex);
	if (pool->ti)
		tier_persist_keys(pool->ti->private, keys, n);
}

/*
 * "reset-settings": forget every runtime change. The persisted record is
 * cleared (at the next commit) and every persisted option of the live
 * table goes back to what its table line gave, or to the default: what a
 * load without persisted settings gives.
 */
static int tier_message_reset(struct tier_c *tc)
{
	struct tier_pool *pool = tc->pool;
	struct tier_settings none = {};
	struct tier_table line, t;
	const char *err = NULL;
	int r;

	mutex_lock(&tier_pools_mutex);
	/* The line parsed at load: it parses again. */
	r = tier_table_parse(tc->argc, tc->argv_copy, &line, &err);
	if (!r) {
		t = tc->tbl;
		tier_table_settings_reset(&t, &line);
		tc->tbl = t;
		tier_apply_settings(tc);
		spin_lock_irq(&pool->lock);
		tier_settings_store(pool, &none);
		spin_unlock_irq(&pool->lock);
	}
	mutex_unlock(&tier_pools_mutex);
	if (r)
		DMWARN_LIMIT("%s: reset-settings: %s", tier_pool_log_name(pool),
			     err ? err : "invalid table line");
	return r;
}

/* "migrate <start_sector> <nr_sectors> <tier>" */
static int tier_message_migrate(struct tier_c *tc, char **argv)
{
	struct tier_pool *pool = tc->pool;
	unsigned long long start, nr;
	unsigned int tier;
	char dummy;
	u32 id;
	int r;

	if (sscanf(argv[1], "%llu%c", &start, &dummy) != 1 ||
	    sscanf(argv[2], "%llu%c", &nr, &dummy) != 1 ||
	    sscanf(argv[3], "%u%c", &tier, &dummy) != 1) {
		DMWARN_LIMIT("%s: migrate <start> <nr> <tier>: bad number",
			     tier_pool_log_name(pool));
		return -EINVAL;
	}
	if (!nr || start >= tc->ti->len || nr > tc->ti->len - start) {
		DMWARN_LIMIT("%s: migrate: %llu+%llu is outside %llu sectors",
			     tier_pool_log_name(pool), start, nr,
			     (unsigned long long)tc->ti->len);
		return -EINVAL;
	}
	if (tier == pool->nr_tiers && READ_ONCE(pool->mem)) {
		DMWARN_LIMIT("%s: migrate: %s", tier_pool_log_name(pool),
			     TIER_MSG_MEM_MIGRATE);
		return -EINVAL;
	}
	if (tier >= pool->nr_tiers) {
		DMWARN_LIMIT("%s: migrate: no tier %u (the device has %u)",
			     tier_pool_log_name(pool), tier, pool->nr_tiers);
		return -EINVAL;
	}
	if (READ_ONCE(pool->evac) & BIT(tier)) {
		DMWARN_LIMIT("%s: migrate: tier %u: %s",
			     tier_pool_log_name(pool), tier,
			     TIER_MSG_EVACUATING);
		return -ENOSPC;
	}
	if (test_bit(tier, &pool->forgotten)) {
		DMWARN_LIMIT("%s: migrate: tier %u: %s",
			     tier_pool_log_name(pool), tier,
			     TIER_MSG_FORGOTTEN);
		return -ENOSPC;
	}
	if (READ_ONCE(pool->mode) != TIER_MODE_WRITE) {
		DMWARN_LIMIT("%s: migrate: metadata is %s, nothing can move",
			     tier_pool_log_name(pool),
			     tier_mode_name(READ_ONCE(pool->mode)));
		return -EROFS;
	}
	r = tier_mig_request(pool, TIER_MOVE_MIGRATE,
			     start >> pool->extent_shift,
			     (start + nr - 1) >> pool->extent_shift, tier, &id);
	if (r == -EBUSY)
		DMWARN_LIMIT("%s: migrate: the move queue is full (%u)",
			     tier_pool_log_name(pool), TIER_MOVQ_MAX);
	else if (r == -ENOSPC)
		DMWARN_LIMIT("%s: migrate: tier %u: %s",
			     tier_pool_log_name(pool), tier, TIER_MSG_REMOVING);
	else if (r == -EINVAL)
		DMWARN_LIMIT("%s: migrate: no tier %u (the tier list changed)",
			     tier_pool_log_name(pool), tier);
	return r;
}

/* ---- evacuate -------------------------------------------------------------- */

#define TIER_MSG_EVAC_OFFLINE \
	"the tier is offline: its extents cannot be read (recover it, or forget it if lost for good)"

void tier_evacuate_persist(struct tier_pool *pool)
{
	u32 i, evac;

	mutex_lock(&pool->md_lock);
	/* nr_tiers and the bits' numbering change under md_lock too. */
	spin_lock_irq(&pool->lock);
	evac = pool->evac;
	spin_unlock_irq(&pool->lock);
	for (i = 0; i < pool->nr_tiers; i++)
		tier_md_set_tier_flags(pool->meta, i, TIER_SB_TIER_F_EVACUATE,
				       evac & BIT(i) ? TIER_SB_TIER_F_EVACUATE :
						       0);
	mutex_unlock(&pool->md_lock);
	tier_settings_dirty(pool);
	tier_request_commit(pool);
}

int tier_evacuate(struct tier_pool *pool, u32 tier, bool stop, u32 pref,
		  u32 *id, u64 *mapped, u64 *missing, const char **err)
{
	int r;

	*id = 0;
	*mapped = 0;
	*missing = 0;
	if (tier >= pool->nr_tiers) {
		*err = "the device has no such tier";
		return -EINVAL;
	}
	if (READ_ONCE(pool->mode) != TIER_MODE_WRITE || pool->read_only) {
		*err = "metadata is not read-write: nothing can change";
		return -EROFS;
	}
	/*
	 * A resume may change the size or the tier list under it: one queued
	 * in a shrink's preresume walked the old, larger map, and its flag
	 * could land on a renumbered tier.
	 */
	if (READ_ONCE(pool->suspended)) {
		*err = TIER_MSG_SUSPENDED;
		return -EBUSY;
	}
	*mapped = READ_ONCE(pool->mapped[tier]);
	if (stop) {
		tier_mig_evacuate_stop(pool, tier);
		return 0;
	}
	if (pool->nr_tiers == 1) {
		*err = "the device has only this tier: there is nowhere to move its extents";
		return -EINVAL;
	}
	/*
	 * Tier 0 too: only its extents move; the metadata area is no extent
	 * and stays until replace-tier moves it with the list change.
	 */
	if (tier_offline(pool, tier)) {
		*err = TIER_MSG_EVAC_OFFLINE;
		return -EINVAL;
	}
	if (pref != TIER_MOVE_NO_PREF) {
		if (pref >= pool->nr_tiers) {
			*err = "the destination (to) is not a tier of the device";
			return -EINVAL;
		}
		if (pref == tier) {
			*err = "the destination (to) is the tier being evacuated";
			return -EINVAL;
		}
		if (tier_offline(pool, pref) ||
		    (READ_ONCE(pool->evac) & BIT(pref))) {
			*err = "the destination (to) is offline or evacuating";
			return -EINVAL;
		}
	}
	r = tier_mig_evacuate(pool, tier, pref, id, missing);
	if (r == -ENOSPC)
		*err = "the other tiers lack room for the extents of the tier";
	else if (r == -EBUSY)
		*err = "the move queue is full; try again when requests ended";
	else if (r)
		*err = "cannot queue the evacuation";
	return r;
}

/* "evacuate <tier> [stop | to <tier>]" */
static int tier_message_evacuate(struct tier_c *tc, unsigned int argc,
				 char **argv)
{
	struct tier_pool *pool = tc->pool;
	const char *err = "bad arguments";
	unsigned int tier, pref = TIER_MOVE_NO_PREF;
	u64 mapped, missing;
	bool stop = false, ok;
	char dummy;
	int r = -EINVAL;
	u32 id;

	if (argc == 3 && !strcasecmp(argv[2], "stop"))
		stop = true;
	ok = argc == 2 || stop;
	if (argc == 4 && !strcasecmp(argv[2], "to"))
		ok = sscanf(argv[3], "%u%c", &pref, &dummy) == 1 &&
		     pref != TIER_MOVE_NO_PREF;
	if (ok && sscanf(argv[1], "%u%c", &tier, &dummy) == 1)
		r = tier_evacuate(pool, tier, stop, pref, &id, &mapped,
				  &missing, &err);
	if (!r)
		tier_evacuate_persist(pool);
	if (r == -ENOSPC)
		DMWARN_LIMIT("%s: evacuate %s: %s (%llu extents missing)",
			     tier_pool_log_name(pool), argv[1], err, missing);
	else if (r)
		DMWARN_LIMIT("%s: evacuate %s: %s", tier_pool_log_name(pool),
			     argv[1], err);
	return r;
}

/* ---- forget-tier --------------------------------------------------------- */

#define TIER_MSG_FORGET_SUSPENDED \
	"the device was suspended meanwhile: what was forgotten is committed by the suspend; run it again after the resume"
#define TIER_MSG_FORGET_RECOVERED \
	"the tier was recovered meanwhile (tier-recover): the rest of it was not forgotten"

int tier_forget_tier(struct tier_pool *pool, u32 tier, u64 *done,
		     const char **err)
{
	char name[BDEVNAME_SIZE] = "";
	u64 busy, seq, last;
	const char *note = "";
	bool stopped = false, suspended;
	unsigned int gen;
	u32 nr_tiers;

	*done = 0;
	/*
	 * What the walk starts from, in one hold of the lock a resume's
	 * changes take: netlink calls without tier_pools_mutex, so a table
	 * reload may change the tier list or the size after this; it
	 * suspends the device first, which the walk checks (@gen).
	 */
	spin_lock_irq(&pool->lock);
	suspended = pool->suspended;
	gen = pool->suspend_gen;
	nr_tiers = pool->nr_tiers;
	last = pool->virt_extents - 1;
	if (tier < nr_tiers)
		strscpy(name, pool->tier_name[tier], sizeof(name));
	spin_unlock_irq(&pool->lock);
	if (tier >= nr_tiers) {
		*err = "the device has no such tier";
		return -EINVAL;
	}
	/* The metadata mode stays rw on a read-only activation. */
	if (pool->read_only) {
		*err = TIER_MSG_READ_ONLY;
		return -EROFS;
	}
	if (!tier) {
		*err = pool->meta_ext ?
			       "tier 0 takes redirected writes and cannot be forgotten" :
			       "tier 0 holds the metadata and cannot be forgotten";
		return -EINVAL;
	}
	if (tier_tier_ok(pool, tier)) {
		*err = "the tier is ok: only a tier that is not ok can be forgotten";
		return -EINVAL;
	}
	if (READ_ONCE(pool->mode) != TIER_MODE_WRITE) {
		*err = "metadata is not read-write: nothing can change";
		return -EROFS;
	}
	if (suspended) {
		*err = TIER_MSG_SUSPENDED;
		return -EBUSY;
	}
	/*
	 * Each copy in the memory tier goes with its mapping, under the same
	 * lock (a fill that raced it cannot publish): not afterwards, when a
	 * first write may have mapped the extent anew and a read would find
	 * the forgotten contents.
	 */
	*done = tier_forget_tier_range(pool, tier, 0, last, gen, &busy,
				       &stopped, tier_memtier_written);
	tier_dbg_forget_delay();
	if (stopped)
		note = " (suspended or recovered meanwhile: not all)";
	else if (busy)
		note = " (some were being moved: not yet)";
	DMWARN("%s: tier %u (%s) forgotten: %llu extents now read as zeroes%s",
	       tier_pool_log_name(pool), tier, name, *done, note);
	if (stopped) {
		/*
		 * Suspended: the suspend commits what was forgotten.
		 * Recovered: the next commit does (the extents are dirty).
		 */
		if (READ_ONCE(pool->suspended) ||
		    READ_ONCE(pool->suspend_gen) != gen) {
			*err = TIER_MSG_FORGET_SUSPENDED;
		} else {
			*err = TIER_MSG_FORGET_RECOVERED;
			tier_request_commit(pool);
		}
		return -EBUSY;
	}
	/* Like the commit message: what changed is durable on return. */
	seq = READ_ONCE(pool->change_seq);
	tier_request_commit(pool);
	flush_workqueue(pool->wq);
	/* And its frees: released on the quiesce queue. */
	tier_pool_release_flush(pool);
	if (READ_ONCE(pool->durable_seq) < seq) {
		*err = READ_ONCE(pool->suspended) ?
			       "the device was suspended; the change is committed at resume" :
			       "the commit failed: the metadata is not read-write";
		return READ_ONCE(pool->suspended) ? -EBUSY : -EIO;
	}
	if (busy) {
		*err = "extents of the tier were being moved; try again";
		return -EBUSY;
	}
	return 0;
}

static int tier_message_forget(struct tier_c *tc, char **argv)
{
	const char *err = NULL;
	unsigned int tier;
	char dummy;
	u64 done;
	int r;

	if (sscanf(argv[1], "%u%c", &tier, &dummy) != 1) {
		DMWARN_LIMIT("%s: forget-tier <tier>: bad number",
			     tier_pool_log_name(tc->pool));
		return -EINVAL;
	}
	r = tier_forget_tier(tc->pool, tier, &done, &err);
	if (r)
		DMWARN_LIMIT("%s: forget-tier %u: %s",
			     tier_pool_log_name(tc->pool), tier, err);
	return r;
}

/*
 * Messages:
 *   commit                         commit the metadata now
 *   set <key> <value>              change a setting (any optional table
 *                                  argument but metadata_dev); the table
 *                                  line shows the new value, the next
 *                                  commit persists it (not mem_size_mb)
 *   reset-settings                 every persisted setting back to its
 *                                  table line value or default; the
 *                                  next commit clears the record
 *   migrate <start> <nr> <tier>    move the extents of sectors
 *                                  start..start+nr-1 to a tier now
 *                                  (asynchronous; see manual_pending)
 *   forget-tier <tier>             unmap every extent on a tier that is
 *                                  not ok (lost for good), then commit
 *   evacuate <tier> [stop]         stop allocation on a tier and move
 *                                  every extent off it (asynchronous);
 *                                  "stop" cancels that and lets the tier
 *                                  take extents again
 *   evacuate <tier> to <dest>      the same, extents going to tier <dest>
 *                                  while it has room (then as usual)
 */
static int tier_message(struct dm_target *ti, unsigned int argc, char **argv,
			char *result, unsigned int maxlen)
{
	struct tier_c *tc = ti->private;
	struct tier_pool *pool = tc->pool;

	if (argc && pool->read_only) {
		DMERR_LIMIT("%s: %s: %s", tier_pool_log_name(pool), argv[0],
			    TIER_MSG_READ_ONLY);
		return -EROFS;
	}
	if (argc == 1 && !strcasecmp(argv[0], "commit")) {
		/* What changed before the message must be durable after it. */
		u64 seq = READ_ONCE(pool->change_seq);

		if (READ_ONCE(pool->suspended)) {
			/* Postsuspend committed; later changes wait. */
			if (!tier_map_dirty(pool))
				return 0;
			DMWARN_LIMIT("%s: commit: suspended, commit at resume",
				     tier_pool_log_name(pool));
			return -EBUSY;
		}
		tier_request_commit(pool);
		flush_workqueue(pool->wq);
		tier_pool_release_flush(pool); /* and its frees */
		return READ_ONCE(pool->durable_seq) >= seq ? 0 : -EIO;
	}
	if (argc == 3 && !strcasecmp(argv[0], "set")) {
		struct tier_table t;
		const char *err = NULL;
		int r;

		/* Serialised with netlink's policy-set. */
		mutex_lock(&tier_pools_mutex);
		t = tc->tbl;
		r = tier_table_set_opt(&t, argv[1], argv[2], &err);
		/* The memory tier first: on failure nothing changes. */
		if (!r && t.mem_size_mb != tc->tbl.mem_size_mb)
			r = tier_memtier_resize(pool, t.mem_size_mb, &err);
		if (!r) {
			const char *key = argv[1];

			tc->tbl = t;
			tier_apply_settings(tc);
			tier_persist_keys(tc, &key, 1);
		}
		mutex_unlock(&tier_pools_mutex);
		if (r) {
			DMWARN_LIMIT("%s: set %s %s: %s",
				     tier_pool_log_name(pool), argv[1], argv[2],
				     err ? err : "invalid");
			return r == -ENOENT ? -EINVAL : r;
		}
		return 0;
	}
	if (argc == 1 && !strcasecmp(argv[0], "reset-settings"))
		return tier_message_reset(tc);
	if (argc == 4 && !strcasecmp(argv[0], "migrate"))
		return tier_message_migrate(tc, argv);
	if (argc == 2 && !strcasecmp(argv[0], "forget-tier"))
		return tier_message_forget(tc, argv);
	if (argc >= 2 && argc <= 4 && !strcasecmp(argv[0], "evacuate"))
		return tier_message_evacuate(tc, argc, argv);
	DMWARN_LIMIT("%s: unrecognised message: %s%s", tier_pool_log_name(pool),
		     argc ? argv[0] : "(none)", argc > 1 ? " ..." : "");
	return -EINVAL;
}

static int tier_iterate_devices(struct dm_target *ti,
				iterate_devices_callout_fn fn, void *data)
{
	struct tier_c *tc = ti->private;
	int r = 0;
	u32 i;

	for (i = 0; i < tc->tbl.nr_tiers && !r; i++)
		r = fn(ti, tc->tier_dev[i], 0,
		       bdev_nr_sectors(tc->tier_dev[i]->bdev), data);
	return r;
}

static void tier_io_hints(struct dm_target *ti, struct queue_limits *limits)
{
	struct tier_c *tc = ti->private;
	struct tier_pool *pool = tc->pool;
	unsigned int extent_bytes = pool->extent_sectors << SECTOR_SHIFT;

	/*
	 * The extent is the unit of allocation: a first write smaller than
	 * an extent zeroes the rest of it in the worker. Advertise it as
	 * io_min and io_opt (as dm-thin does with its block size), so that
	 * mkfs.xfs (sunit/swidth) and mkfs.ext4 (stride) align to extents
	 * and large writes fill whole ones. A tier's io_opt that is already
	 * a multiple of the extent is kept.
	 */
	if (limits->io_opt < extent_bytes || limits->io_opt % extent_bytes) {
		limits->io_min = max(limits->io_min, extent_bytes);
		limits->io_opt = extent_bytes;
	}

	/* Discards unmap whole extents, whatever the tiers support. */
	limits->discard_granularity = extent_bytes;
	tier_compat_set_max_discard(limits, min_t(u64, UINT_MAX,
						  pool->extent_sectors * 64));
}

static struct target_type tier_target = {
	.name = "tier",
	.version = { 1, 1, 0 },
	.module = THIS_MODULE,
	.ctr = tier_ctr,
	.dtr = tier_dtr,
	.map = tier_map,
	.end_io = tier_end_io,
	.presuspend = tier_presuspend,
	.presuspend_undo = tier_presuspend_undo,
	.postsuspend = tier_postsuspend,
	.preresume = tier_preresume,
	.resume = tier_resume,
	.status = tier_status,
	.message = tier_message,
	.iterate_devices = tier_iterate_devices,
	.io_hints = tier_io_hints,
};

int dm_tier_target_register(void)
{
	int r;

	r = tier_pool_module_init();
	if (r)
		return r;
	r = dm_register_target(&tier_target);
	if (r)
		tier_pool_module_exit();
	return r;
}

void dm_tier_target_unregister(void)
{
	dm_unregister_target(&tier_target);
	tier_pool_module_exit();
}
