// SPDX-License-Identifier: GPL-2.0
/*
 * dm-tier-pool.c - the pool (see dm-tier-pool.h): its lifetime, jobs, the
 * I/O-epoch quiesce, the extent switch, commits and the metadata mode,
 * extent flags, tier health, stats and the event plumbing. The target
 * (dm-tier-target.c) runs the worker and map() on top of it; migration and
 * the memory tier call into it, never the other way round.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/device-mapper.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "dm-tier-pool.h"
#include "dm-tier-debug.h"

/* The pools (see dm-tier-pool.h). */
LIST_HEAD(tier_pools);
DEFINE_MUTEX(tier_pools_mutex); /* the list, refcounts, pins, ti, names */
static struct kmem_cache *tier_job_cache;
/* The event sink; set before any pool exists, cleared after the last. */
static const struct tier_event_ops *tier_ev_ops;

/* ---- pins ---------------------------------------------------------------- */

void tier_pool_pin(struct tier_pool *pool)
{
	lockdep_assert_held(&tier_pools_mutex);
	pool->pins++;
}

void tier_pool_unpin(struct tier_pool *pool)
{
	lockdep_assert_held(&tier_pools_mutex);
	/*
	 * Off the list (ref 0): its teardown waits, or reads pins under the
	 * mutex after this and does not. complete() is safe against the
	 * waiter freeing the pool the moment it returns.
	 */
	if (!--pool->pins && !pool->ref)
		complete(&pool->unpinned);
}

void tier_pool_wait_unpinned(struct tier_pool *pool)
{
	unsigned int pins;

	mutex_lock(&tier_pools_mutex);
	pins = pool->pins;
	mutex_unlock(&tier_pools_mutex);
	if (pins)
		wait_for_completion(&pool->unpinned);
}

/* ---- jobs ---------------------------------------------------------------- */

/*
 * tier-recover's probe flushes, each in its own work item: one that times
 * out goes on here, holding its device and the module (struct tier_probe),
 * and module exit drains what is left of it.
 */
static struct workqueue_struct *tier_probe_wq;

int tier_pool_module_init(void)
{
	int r;

	tier_job_cache = KMEM_CACHE(tier_job, 0);
	if (!tier_job_cache)
		return -ENOMEM;
	tier_probe_wq = alloc_workqueue("dm-tier-probe", WQ_UNBOUND, 0);
	if (!tier_probe_wq) {
		r = -ENOMEM;
		goto bad_wq;
	}
	r = tier_copy_init();
	if (r)
		goto bad_copy;
	return 0;

bad_copy:
	destroy_workqueue(tier_probe_wq);
bad_wq:
	kmem_cache_destroy(tier_job_cache);
	return r;
}

void tier_pool_module_exit(void)
{
	tier_copy_exit();
	destroy_workqueue(tier_probe_wq);
	kmem_cache_destroy(tier_job_cache);
}

void tier_wake_worker(struct tier_pool *pool)
{
	queue_work(pool->wq, &pool->worker);
}

/*
 * Never waits: jobs are freed by the worker, the very thread that would
 * wait (and the migration tick shares its ordered workqueue), so a
 * blocking mempool_alloc() with the reserve used up by jobs whose writes
 * completed would wait for itself. Callers requeue their work instead, as
 * dm-thin's ensure_next_mapping() does.
 */
struct tier_job *tier_job_alloc(struct tier_pool *pool)
{
	struct tier_job *job = mempool_alloc(&pool->job_pool, GFP_NOWAIT);

	if (!job)
		return NULL;
	memset(job, 0, sizeof(*job));
	job->pool = pool;
	return job;
}

/* The job mempool's allocator: the slab, or a debug failure. */
static void *tier_job_slab_alloc(gfp_t gfp, void *cache)
{
	if (tier_dbg_job_alloc_fail())
		return NULL;
	return kmem_cache_alloc(cache, gfp);
}

void tier_job_free(struct tier_pool *pool, struct tier_job *job)
{
	mempool_free(job, &pool->job_pool);
}

void tier_job_start(struct tier_pool *pool, struct tier_job *job)
{
	lockdep_assert_held(&pool->lock);
	INIT_LIST_HEAD(&job->list); /* the completion moves it to done */
	hash_add(pool->busy_index, &job->busy_node, job->vext.v);
	pool->nr_busy++;
}

void tier_job_end(struct tier_pool *pool, struct tier_job *job)
{
	lockdep_assert_held(&pool->lock);
	list_del(&job->list);
	hash_del(&job->busy_node);
	pool->nr_busy--;
	bio_list_merge(&pool->deferred, &job->parked);
	bio_list_init(&job->parked);
	bio_list_merge(&pool->deferred, &pool->parked);
	bio_list_init(&pool->parked);
}

void tier_job_park(struct tier_pool *pool, struct tier_job *owner,
		   struct bio *bio)
{
	lockdep_assert_held(&pool->lock);
	tier_dbg_parked();
	bio_list_add(owner ? &owner->parked : &pool->parked, bio);
}

struct tier_job *tier_job_find(struct tier_pool *pool, u64 v)
{
	struct tier_job *job;

	lockdep_assert_held(&pool->lock);
	hash_for_each_possible(pool->busy_index, job, busy_node, v)
		if (job->vext.v == v)
			return job;
	return NULL;
}

bool tier_range_busy(struct tier_pool *pool, u64 first, u64 last)
{
	struct tier_job *job;
	unsigned int bkt;
	u64 v;

	lockdep_assert_held(&pool->lock);
	if (last - first < pool->nr_busy) {
		for (v = first; v <= last; v++)
			if (tier_job_find(pool, v))
				return true;
		return false;
	}
	/* A discard of a large range: the jobs are fewer than its extents. */
	hash_for_each(pool->busy_index, bkt, job, busy_node)
		if (job->vext.v >= first && job->vext.v <= last)
			return true;
	return false;
}

void tier_switch_extent(struct tier_pool *pool, struct tier_job *job)
{
	struct tier_loc loc = job->loc, cur;

	lockdep_assert_held(&pool->lock);
	/*
	 * The flags of the word as it is now: a pin or unpin while the extent
	 * was busy changed them after the job captured job->src.
	 */
	loc.flags = tier_map_lookup(&pool->map, job->vext, &cur) ?
			    cur.flags :
			    job->src.flags;
	/* Dirty before visible, as in tier_publish(). */
	WRITE_ONCE(pool->change_seq, pool->change_seq + 1);
	smp_wmb(); /* pairs with map()'s smp_rmb() */
	tier_map_set(&pool->map, job->vext, &loc); /* also clears BUSY */
	/*
	 * A demoted extent has to earn its way back up: without this, a hot
	 * extent a drain or a "migrate" pushed down would bounce straight
	 * back at the next scan.
	 */
	if (loc.tier > job->src.tier)
		tier_map_heat_reset(&pool->map, job->vext);
	tier_alloc_free_deferred(&pool->alloc[job->src.tier], job->src.pext);
	pool->mapped[job->src.tier]--;
	pool->mapped[loc.tier]++;
	tier_job_end(pool, job);
}

/* ---- I/O epochs ------------------------------------------------------------ */

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
 * Readers (map(), the memory tier's fill, the worker) read the epoch and
 * increment inflight[epoch & 1] inside one RCU read section, map() and the
 * fill in the same section as their read of the map word. The worker, which
 * reads words under pool->lock, counts every bio it remapped before it
 * queues anything that quiesces (the tick, the commit's release), so a
 * quiesce that covers a change always starts after the worker counted the
 * bios that used the old word. Quiesces run one at a time (quiesce_lock).
 * The argument, with E the epoch on entry:
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

	mutex_lock(&pool->quiesce_lock);
	tier_dbg_quiesce_begin();
	tier_sync_rcu(expedited);
	tier_dbg_quiesce_gap();
	old = pool->io_epoch;
	WRITE_ONCE(pool->io_epoch, old + 1);
	tier_sync_rcu(expedited);
	wait_event(pool->drain_wait, !atomic_read(&pool->inflight[old & 1]));
	tier_dbg_quiesce_end(pool, old);
	mutex_unlock(&pool->quiesce_lock);
}

/* ---- commits and metadata mode ------------------------------------------- */

void tier_set_mode(struct tier_pool *pool, enum tier_md_mode mode,
		   const char *why)
{
	unsigned long flags;
	bool changed = false;

	might_sleep(); /* dm_table_event() */
	spin_lock_irqsave(&pool->lock, flags);
	if (mode != pool->mode && pool->mode != TIER_MODE_FAIL) {
		pool->mode = mode;
		changed = true;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (!changed)
		return;
	if (mode == TIER_MODE_WRITE)
		DMINFO("%s: metadata mode now %s: %s", tier_pool_log_name(pool),
		       tier_mode_name(mode), why);
	else
		DMERR("%s: metadata mode now %s: %s", tier_pool_log_name(pool),
		      tier_mode_name(mode), why);
	tier_event(pool, DM_TIER_EVENT_MODE_CHANGE, 0);
	if (pool->ti)
		dm_table_event(pool->ti->table);
}

void tier_pool_heat_capture(struct tier_pool *pool)
{
	u64 block;

	/*
	 * Heat rides along with a commit only every TIER_HEAT_COMMIT_S (or
	 * when suspending): random reads touch every map block, and writing
	 * them all with each map change would multiply metadata writes.
	 */
	if (!pool->heat_touched ||
	    !(tier_pool_heat_due(pool) || READ_ONCE(pool->heat_flush)))
		return;
	WRITE_ONCE(pool->heat_flush, false);
	WRITE_ONCE(pool->heat_dirty, false);
	for_each_set_bit(block, pool->heat_touched, pool->map.nr_blocks) {
		clear_bit(block, pool->heat_touched);
		tier_map_mark_dirty(&pool->map,
				    tier_vext(block * TIER_MAP_ENTRIES));
	}
	pool->heat_commit_j = jiffies;
}

bool tier_pool_heat_due(struct tier_pool *pool)
{
	return READ_ONCE(pool->heat_dirty) &&
	       time_after(jiffies, READ_ONCE(pool->heat_commit_j) +
					   TIER_HEAT_COMMIT_S * HZ);
}

/*
 * A commit is on disk: count it, and how long it took from @start (its
 * flushes of the data tiers, map blocks and superblock): status and
 * metrics show the last and the sum. Context: md_lock held.
 */
static void tier_pool_commit_done(struct tier_pool *pool, ktime_t start)
{
	u64 ns = ktime_to_ns(ktime_sub(ktime_get(), start));

	lockdep_assert_held(&pool->md_lock);
	pool->commits++;
	WRITE_ONCE(pool->commit_last_ns, ns);
	WRITE_ONCE(pool->commit_total_ns, pool->commit_total_ns + ns);
}

#define TIER_MSG_ACKED_LOST \
	"%s: tier %u (%s) %s holding acknowledged writes no flush covered: the next flush fails (EIO)"

void tier_pool_acked_lost(struct tier_pool *pool, u32 tier, const char *why)
{
	if (!test_bit(tier, &pool->acked_dirty))
		return;
	/*
	 * The loss is published before the bit goes (test_and_clear_bit() is
	 * fully ordered): a flush that finds the bit gone must find
	 * writes_lost set, or a caller preempted between the two would let
	 * that flush succeed.
	 */
	atomic_set(&pool->writes_lost, 1);
	if (test_and_clear_bit(tier, &pool->acked_dirty))
		DMERR_LIMIT(TIER_MSG_ACKED_LOST, tier_pool_log_name(pool), tier,
			    pool->tier_name[tier], why);
}

/*
 * Before a flush of @tier: its written and acknowledged marks are taken
 * (the flush covers what set them). Return: whether it held acknowledged
 * writes, for tier_pool_flush_undo().
 */
static bool tier_pool_flush_begin(struct tier_pool *pool, u32 tier)
{
	clear_bit(tier, &pool->flush_dirty);
	smp_mb__after_atomic(); /* pairs with tier_note_acked() */
	return test_and_clear_bit(tier, &pool->acked_dirty);
}

/*
 * That flush failed: the marks back; with @why, the acknowledged writes
 * (@acked) count as lost (tier_pool_acked_lost()).
 */
static void tier_pool_flush_undo(struct tier_pool *pool, u32 tier, bool acked,
				 const char *why)
{
	set_bit(tier, &pool->flush_dirty);
	if (!acked)
		return;
	set_bit(tier, &pool->acked_dirty);
	if (why)
		tier_pool_acked_lost(pool, tier, why);
}

unsigned long tier_pool_flush_tiers(struct tier_pool *pool, unsigned long mask)
{
	unsigned long failed = 0;
	bool acked;
	u32 i;
	int r;

	for (i = 0; i < pool->nr_tiers; i++) {
		if (!(mask & BIT(i)))
			continue;
		if (tier_offline(pool, i)) {
			failed |= BIT(i);
			tier_pool_acked_lost(pool, i, "is offline");
			continue;
		}
		if (!test_bit(i, &pool->flush_dirty))
			continue;
		acked = tier_pool_flush_begin(pool, i);
		r = tier_md_flush_tier(pool->meta, i);
		if (!r)
			continue;
		tier_pool_flush_undo(pool, i, acked, "failed a flush");
		failed |= BIT(i);
		/* A failed flush is a failed I/O to the tier: counted too. */
		atomic64_inc(&pool->io_errors[i]);
		DMERR_LIMIT("%s: flushing tier %u (%s) failed: %d",
			    tier_pool_log_name(pool), i, pool->tier_name[i], r);
		tier_note_tier_event(pool, i, TIER_HEV_FLUSH_ERROR);
	}
	return failed;
}

/* Flush the written tiers of @mask; Return: the ones whose flush failed now. */
static unsigned long tier_pool_flush(struct tier_pool *pool, unsigned long mask)
{
	unsigned long offline = 0;
	u32 i;

	for (i = 0; i < pool->nr_tiers; i++)
		if (tier_offline(pool, i))
			offline |= BIT(i);
	return tier_pool_flush_tiers(pool, mask) & ~offline;
}

/* The metadata mode after a commit (tier_md_mode_next()). */
static void tier_pool_md_result(struct tier_pool *pool, int r)
{
	enum tier_md_mode mode = READ_ONCE(pool->mode), next;
	enum tier_md_event ev;
	u32 secs;

	if (!r) {
		pool->md_fails = 0;
		ev = TIER_MDEV_COMMIT_OK;
	} else if (READ_ONCE(pool->suspended)) {
		/* dmsetup suspend in ro: the commit is tried, never escalates. */
		ev = TIER_MDEV_COMMIT_FAIL_QUIET;
	} else {
		if (!pool->md_fails++)
			pool->md_fail_j = jiffies;
		ev = TIER_MDEV_COMMIT_FAIL;
	}
	secs = pool->md_fails ? (jiffies - pool->md_fail_j) / HZ : 0;
	next = tier_md_mode_next(mode, ev, pool->md_fails, secs);
	if (next != mode)
		tier_set_mode(pool, next,
			      r ? "metadata commit failed" :
				  "a retried commit succeeded");
}

/*
 * The second half of a commit that freed extents, on pool->qwq: the
 * extents become allocatable once no bio of the old epoch can reach them.
 * First writes that found no room meanwhile go back to the worker.
 */
static void tier_release_work(struct work_struct *ws)
{
	struct tier_pool *pool =
		container_of(ws, struct tier_pool, release_work);
	unsigned long flags;
	bool waiters;
	u32 i;

	tier_quiesce_old_io(pool, false);
	spin_lock_irqsave(&pool->lock, flags);
	for (i = 0; i < pool->nr_tiers; i++)
		tier_alloc_commit_end(&pool->alloc[i], true);
	pool->release_pending = false;
	waiters = !bio_list_empty(&pool->release_wait);
	bio_list_merge(&pool->deferred, &pool->release_wait);
	bio_list_init(&pool->release_wait);
	spin_unlock_irqrestore(&pool->lock, flags);
	if (waiters)
		tier_wake_worker(pool);
}

void tier_pool_release_frees(struct tier_pool *pool)
{
	unsigned long flags;

	lockdep_assert_held(&pool->md_lock);
	spin_lock_irqsave(&pool->lock, flags);
	pool->release_pending = true;
	spin_unlock_irqrestore(&pool->lock, flags);
	queue_work(pool->qwq, &pool->release_work);
}

void tier_pool_release_flush(struct tier_pool *pool)
{
	if (pool->qwq)
		flush_workqueue(pool->qwq);
}

/*
 * Commit up to the superblock write; *failed: the data tiers whose flush
 * failed during it; *frees: the commit freed extents, and
 * tier_pool_release_frees() must follow (under the same md_lock hold).
 */
static int tier_pool_commit_durable(struct tier_pool *pool,
				    unsigned long *failed, bool *frees)
{
	u64 used[TIER_MAX_TIERS];
	ktime_t start;
	unsigned long flags;
	bool freed = false, acked0;
	u64 seq;
	u32 i;
	int r;

	lockdep_assert_held(&pool->md_lock);
	*frees = false;
	*failed = 0;
	/* Activated read-only: no commit ever, heat and first commit included. */
	if (pool->read_only)
		return -EROFS;
	if (READ_ONCE(pool->mode) == TIER_MODE_FAIL)
		return -EIO;
	start = ktime_get();

	/*
	 * The data tiers written since their last flush (tier 0, when it holds
	 * the metadata, is flushed by the superblock's PREFLUSH; with a
	 * separate metadata device it is a data tier too). No mapping waits
	 * for this flush: a mapping into a data tier is published only after
	 * its data was flushed there (tier_pool_flush_tiers() before
	 * tier_publish() and tier_switch_extent()); it is for writes in place.
	 * So a tier whose flush fails goes offline, and the commit goes on.
	 */
	*failed = tier_pool_flush(pool, pool->meta_ext ? ~0UL : ~BIT(0));

	spin_lock_irqsave(&pool->lock, flags);
	seq = pool->change_seq;
	tier_pool_heat_capture(pool);
	if (!pool->release_pending)
		pool->frees_deferred = false;
	for (i = 0; i < pool->nr_tiers; i++) {
		/*
		 * While the last commit's frees wait for their quiesce, new
		 * ones stay pending for the next commit: that quiesce may have
		 * begun before they were unmapped.
		 */
		if (!pool->release_pending) {
			tier_alloc_commit_begin(&pool->alloc[i]);
			if (pool->alloc[i].nr_committing)
				freed = true;
		} else if (pool->alloc[i].nr_pending) {
			pool->frees_deferred = true;
		}
		/* Not nr_used: that includes extents being prepared. */
		used[i] = pool->mapped[i];
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	/*
	 * The counts above must still match the map this commit copies: the
	 * other writers of the map are the worker (on this ordered queue, or
	 * stopped while suspended) and tier_forget_tier_range(), whose
	 * batches hold md_lock.
	 */
	tier_dbg_commit_delay();

	/* The superblock's PREFLUSH covers tier 0's writes up to now. */
	acked0 = !pool->meta_ext && tier_pool_flush_begin(pool, 0);
	tier_map_set_clock(&pool->map, tier_clock_now(pool));
	r = tier_md_commit(pool->meta, &pool->map, &pool->lock, used);
	if (r) {
		/* Tier 0 holds the metadata: the mode reports the failure. */
		if (!pool->meta_ext)
			tier_pool_flush_undo(pool, 0, acked0, NULL);
		spin_lock_irqsave(&pool->lock, flags);
		for (i = 0; i < pool->nr_tiers; i++)
			tier_alloc_commit_end(&pool->alloc[i], false);
		spin_unlock_irqrestore(&pool->lock, flags);
		tier_pool_md_result(pool, r);
		return -EIO;
	}
	tier_pool_commit_done(pool, start);
	WRITE_ONCE(pool->durable_seq, seq);
	tier_pool_md_result(pool, 0);
	/* Only a commit on disk frees; a failed one keeps them committing. */
	*frees = freed;
	return 0;
}

/* Commit; *failed: the data tiers whose flush failed during it. */
static int tier_pool_do_commit(struct tier_pool *pool, unsigned long *failed)
{
	bool frees;
	int r;

	r = tier_pool_commit_durable(pool, failed, &frees);
	if (!r && frees)
		tier_pool_release_frees(pool);
	return r;
}

int tier_pool_commit(struct tier_pool *pool)
{
	unsigned long failed;

	return tier_pool_do_commit(pool, &failed);
}

int tier_pool_sync_durable(struct tier_pool *pool, bool *frees,
			   unsigned long *failed)
{
	lockdep_assert_held(&pool->md_lock);
	*frees = false;
	*failed = 0;
	/* A read-only activation writes nothing, flushes included. */
	if (pool->read_only)
		return tier_map_dirty(pool) ? -EROFS : 0;
	if (tier_map_dirty(pool) || READ_ONCE(pool->frees_deferred))
		return tier_pool_commit_durable(pool, failed, frees);
	if (READ_ONCE(pool->mode) == TIER_MODE_FAIL)
		return -EIO;
	*failed = tier_pool_flush(pool, ~0UL);
	return 0;
}

/*
 * Commits run in the worker, the only thread that publishes mappings, so
 * nothing is published between a commit's tier flush and its capture of
 * the map (forget-tier only unmaps, each batch under md_lock).
 */
void tier_request_commit(struct tier_pool *pool)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	pool->commit_requested = true;
	spin_unlock_irqrestore(&pool->lock, flags);
	tier_wake_worker(pool);
}

#define TIER_PIN_BATCH 4096 /* extents per hold of pool->lock */

u64 tier_set_pinned(struct tier_pool *pool, u64 first, u64 last, bool pin,
		    u64 *mapped)
{
	return tier_set_ext_flags(pool, first, last,
				  pin ? TIER_EXT_F_PINNED : 0,
				  pin ? 0 : TIER_EXT_F_PINNED, mapped);
}

u64 tier_set_ext_flags(struct tier_pool *pool, u64 first, u64 last, u32 set,
		       u32 clear, u64 *mapped)
{
	u64 v = first, changed = 0, n;
	unsigned long flags;

	*mapped = 0;
	while (v <= last) {
		spin_lock_irqsave(&pool->lock, flags);
		for (n = 0; n < TIER_PIN_BATCH && v <= last; n++, v++) {
			if (pool->map.words[v] & TIER_MW_MAPPED)
				(*mapped)++;
			if (!tier_map_set_flags(&pool->map, tier_vext(v), set,
						clear))
				continue;
			/* Like any map change: the next commit persists it. */
			WRITE_ONCE(pool->change_seq, pool->change_seq + 1);
			changed++;
		}
		spin_unlock_irqrestore(&pool->lock, flags);
		cond_resched();
	}
	return changed;
}

/* ---- tier health, names, stats ------------------------------------------ */

enum tier_health tier_note_tier_event(struct tier_pool *pool, u32 tier,
				      enum tier_health_event ev)
{
	enum tier_health cur, next;
	u32 run = atomic_read(&pool->err_run[tier]);

	do {
		cur = tier_health_of(pool, tier);
		next = tier_health_next(cur, ev, run, tier == 0);
		if (next == cur)
			return cur;
	} while (atomic_cmpxchg(&pool->health[tier], cur, next) != cur);
	/* No flush goes to an offline tier: what it holds unflushed is lost. */
	if (next == TIER_HEALTH_OFFLINE)
		tier_pool_acked_lost(pool, tier, "went offline");
	if (next > cur) {
		/*
		 * Not rate limited: at most two per recovery (the state only
		 * gets worse until then), while a call site's limit is shared
		 * by every device and tier: others' changes would hide this.
		 */
		DMERR("%s: tier %u (%s) now %s after %s",
		      tier_pool_log_name(pool), tier, pool->tier_name[tier],
		      tier_health_name(next),
		      ev == TIER_HEV_FLUSH_ERROR ? "a failed flush" :
		      ev == TIER_HEV_PATH_ERROR	 ? "a path error" :
						   "I/O errors");
		tier_event(pool, DM_TIER_EVENT_TIER_ERROR, tier);
	} else {
		DMINFO("%s: tier %u (%s) %s again", tier_pool_log_name(pool),
		       tier, pool->tier_name[tier], tier_health_name(next));
		tier_event(pool, DM_TIER_EVENT_TIER_RECOVERED, tier);
	}
	return cur;
}

void tier_note_io_error(struct tier_pool *pool, u32 tier, blk_status_t status)
{
	u32 run;

	atomic64_inc(&pool->io_errors[tier]);
	run = atomic_inc_return(&pool->err_run[tier]);
	/* The first of a run (a success ends one): many when errors are sparse. */
	if (run == 1)
		DMERR_LIMIT("%s: I/O error on tier %u (%s): %d",
			    tier_pool_log_name(pool), tier,
			    pool->tier_name[tier], blk_status_to_errno(status));
	tier_note_tier_event(pool, tier,
			     status == BLK_STS_TRANSPORT ||
					     status == BLK_STS_OFFLINE ?
				     TIER_HEV_PATH_ERROR :
				     TIER_HEV_IO_ERROR);
}

/*
 * The pool's own reference on a device it uses (struct tier_pool,
 * tier_bdev): the device's memory, its disk's and its queue's outlive a
 * removal while the pool points at it; its bios then fail. Not an open: it
 * keeps nobody from removing or claiming the device.
 */
static void tier_pool_hold_bdev(struct block_device *bdev)
{
	get_device(&bdev->bd_device);
}

/* Context: process, may sleep (the last reference frees the disk). */
static void tier_pool_drop_bdev(struct block_device *bdev)
{
	if (bdev)
		put_device(&bdev->bd_device);
}

#define TIER_MSG_PROBE \
	"The tier failed its probe flush: reconnect or repair it, then retry"
#define TIER_MSG_RECOVER_MOVED \
	"the tier list changed or the tier was re-bound meanwhile (a table reload): check the tier, then retry"

#define TIER_MSG_PROBE_HUNG \
	"The tier did not answer its probe flush in time: its path hangs (a controller reconnecting, a suspended device); nothing changed: retry once it answers"

/*
 * Whether tier-recover may still act on @tier, which the caller found as
 * @dev: the tier list changes under md_lock (and only at a resume), so the
 * tier is checked again under it; a suspended device is refused (its
 * resume may re-bind the tier under tier_pools_mutex).
 */
static int tier_recover_still(struct tier_pool *pool, u32 tier, dev_t dev,
			      const char **err)
{
	lockdep_assert_held(&pool->md_lock);
	if (READ_ONCE(pool->suspended)) {
		*err = TIER_MSG_SUSPENDED;
		return -EBUSY;
	}
	if (tier >= pool->nr_tiers || pool->tier_dev_id[tier] != dev) {
		*err = TIER_MSG_RECOVER_MOVED;
		return -EBUSY;
	}
	return 0;
}

/*
 * One probe flush of a device, shared by its work and every caller that
 * waits for it (the last reference frees it). While it runs it is on
 * tier_probes: a recover of the same device meanwhile (a script retrying,
 * tierd and an admin) waits for it instead of starting another, so flushes
 * that hang do not pile up, one worker each, on tier_probe_wq.
 */
struct tier_probe {
	struct work_struct work;
	struct list_head node; /* tier_probes, while the flush runs */
	struct block_device *bdev; /* referenced (tier_pool_hold_bdev()) */
	struct completion done;
	refcount_t ref;
	int result;
};

static DEFINE_SPINLOCK(tier_probes_lock);
static LIST_HEAD(tier_probes);

static void tier_probe_put(struct tier_probe *p)
{
	if (!refcount_dec_and_test(&p->ref))
		return;
	tier_pool_drop_bdev(p->bdev);
	kfree(p);
}

/*
 * The module stays loaded while a flush runs (rmmod: EBUSY, not a wait as
 * long as the path hangs); module exit's drain of tier_probe_wq covers the
 * return after module_put().
 */
static void tier_probe_work(struct work_struct *ws)
{
	struct tier_probe *p = container_of(ws, struct tier_probe, work);

	p->result = blkdev_issue_flush(p->bdev);
	spin_lock(&tier_probes_lock);
	list_del_init(&p->node);
	spin_unlock(&tier_probes_lock);
	complete_all(&p->done);
	tier_probe_put(p);
	module_put(THIS_MODULE);
}

/* The probe of @bdev in flight, or @fresh started; referenced for the caller. */
static struct tier_probe *tier_probe_get(struct block_device *bdev,
					 struct tier_probe *fresh)
{
	struct tier_probe *p;

	spin_lock(&tier_probes_lock);
	list_for_each_entry(p, &tier_probes, node) {
		if (p->bdev == bdev) {
			refcount_inc(&p->ref);
			spin_unlock(&tier_probes_lock);
			kfree(fresh);
			return p;
		}
	}
	INIT_WORK(&fresh->work, tier_probe_work);
	init_completion(&fresh->done);
	refcount_set(&fresh->ref, 2);
	fresh->bdev = bdev;
	tier_pool_hold_bdev(bdev);
	__module_get(THIS_MODULE);
	list_add(&fresh->node, &tier_probes);
	spin_unlock(&tier_probes_lock);
	queue_work(tier_probe_wq, &fresh->work);
	return fresh;
}

/*
 * Whether @tier's path answers a flush, asked without md_lock and waited
 * for at most TIER_PROBE_WAIT_S: a path that still hangs keeps neither the
 * pool's commits (and so the device's fsyncs, its suspend, its reloads)
 * nor the caller's netlink request (genetlink's cb_lock, which a family
 * registration anywhere on the host waits for) as long as it hangs. A
 * flush that timed out goes on in tier_probe_wq.
 */
static int tier_probe_path(struct tier_pool *pool, u32 tier, dev_t dev,
			   const char **err)
{
	unsigned int wait_s = tier_dbg_probe_wait_s(TIER_PROBE_WAIT_S);
	char name[BDEVNAME_SIZE];
	struct tier_probe *p;
	long left;
	int r;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		*err = "Cannot allocate the probe";
		return -ENOMEM;
	}
	mutex_lock(&pool->md_lock);
	r = tier_recover_still(pool, tier, dev, err);
	if (r) {
		mutex_unlock(&pool->md_lock);
		kfree(p);
		return r;
	}
	strscpy(name, pool->tier_name[tier], sizeof(name));
	p = tier_probe_get(pool->tier_bdev[tier], p);
	mutex_unlock(&pool->md_lock);

	left = wait_for_completion_killable_timeout(&p->done, wait_s * HZ);
	if (left > 0) {
		r = p->result;
		if (r)
			*err = TIER_MSG_PROBE;
	} else if (!left) {
		r = -ETIMEDOUT;
		*err = TIER_MSG_PROBE_HUNG;
	} else {
		r = -EINTR;
		*err = "Interrupted while the tier's probe flush waited";
	}
	tier_probe_put(p);
	if (r == -ETIMEDOUT)
		DMERR("%s: tier %u (%s): probe flush did not answer in %u s; state kept",
		      tier_pool_log_name(pool), tier, name, wait_s);
	else if (r && r != -EINTR)
		DMERR("%s: tier %u (%s): probe flush failed: %d; state kept",
		      tier_pool_log_name(pool), tier, name, r);
	return r;
}

int tier_tier_recover(struct tier_pool *pool, u32 tier, dev_t dev,
		      void (*recovered)(struct tier_pool *pool, u32 tier),
		      const char **err)
{
	bool acked;
	int r;

	r = tier_probe_path(pool, tier, dev, err);
	if (r)
		return r;
	/*
	 * Serialised with commits, which flush and read the same bits; the
	 * probe takes acked_dirty as any flush does (tier_pool_flush_begin()),
	 * else a bit its flush covered would stay and turn into a loss, and
	 * a spurious EIO, at the tier's next outage.
	 */
	mutex_lock(&pool->md_lock);
	/* Again: a reload may have renumbered it during the probe. */
	r = tier_recover_still(pool, tier, dev, err);
	if (r) {
		mutex_unlock(&pool->md_lock);
		return r;
	}
	/*
	 * The path answered. Flushed again here only when written since its
	 * last flush: this flush takes the marks, as a commit's does, so it
	 * runs under md_lock, and a path that dropped again right after the
	 * probe would hold that lock as long as it hangs.
	 */
	if (!test_bit(tier, &pool->flush_dirty) &&
	    !test_bit(tier, &pool->acked_dirty)) {
		r = 0;
		acked = false;
	} else {
		acked = tier_pool_flush_begin(pool, tier);
		r = tier_md_flush_tier(pool->meta, tier);
	}
	if (r) {
		tier_pool_flush_undo(pool, tier, acked,
				     "failed its probe flush");
		mutex_unlock(&pool->md_lock);
		DMERR("%s: tier %u (%s): probe flush failed: %d; state kept",
		      tier_pool_log_name(pool), tier, pool->tier_name[tier], r);
		*err = TIER_MSG_PROBE;
		return r;
	}
	atomic_set(&pool->err_run[tier], 0);
	tier_note_tier_event(pool, tier, TIER_HEV_RECOVERED);
	/*
	 * An offline tier's no-new-extents mark, set by a first write while
	 * it was offline, goes with the outage: else every claim on it
	 * (migrate, evacuation, demotion) failed "full" until the next
	 * first write happened to resync the marks. So does a forgotten
	 * tier's: it is back.
	 */
	spin_lock_irq(&pool->lock);
	clear_bit(tier, &pool->forgotten);
	tier_pool_sync_noalloc(pool);
	spin_unlock_irq(&pool->lock);
	recovered(pool, tier);
	mutex_unlock(&pool->md_lock);
	/* Writes parked for it (offline_queue_s) go again. */
	tier_wake_worker(pool);
	return 0;
}

void tier_pool_sync_noalloc(struct tier_pool *pool)
{
	u32 i, noalloc = tier_pool_noalloc_mask(pool);

	lockdep_assert_held(&pool->lock);
	for (i = 0; i < pool->nr_tiers; i++) {
		if (tier_offline(pool, i) || (noalloc & BIT(i)))
			pool->alloc[i].flags |= TIER_ALLOC_F_NOALLOC;
		else
			pool->alloc[i].flags &= ~TIER_ALLOC_F_NOALLOC;
	}
}

u32 tier_pool_noalloc_mask(struct tier_pool *pool)
{
	return READ_ONCE(pool->evac) | (u32)READ_ONCE(pool->noalloc_hold) |
	       (u32)READ_ONCE(pool->forgotten);
}

u32 tier_pool_offline_mask(struct tier_pool *pool)
{
	u32 i, mask = 0;

	for (i = 0; i < pool->nr_tiers; i++)
		if (tier_offline(pool, i))
			mask |= BIT(i);
	return mask;
}

u32 tier_pool_offq_fail_all(struct tier_pool *pool)
{
	struct bio_list bios;
	unsigned long flags;
	struct bio *bio;
	u32 n = 0;

	spin_lock_irqsave(&pool->lock, flags);
	pool->offq_closed = true;
	bios = pool->offq;
	bio_list_init(&pool->offq);
	pool->offq_len = 0;
	spin_unlock_irqrestore(&pool->lock, flags);
	while ((bio = bio_list_pop(&bios))) {
		bio_io_error(bio);
		n++;
	}
	return n;
}

bool tier_tier_ok(struct tier_pool *pool, u32 tier)
{
	return tier_health_of(pool, tier) == TIER_HEALTH_OK;
}

u64 tier_forget_tier_range(struct tier_pool *pool, u32 tier, u64 first,
			   u64 last, unsigned int gen, u64 *busy, bool *stopped,
			   void (*unmapped)(struct tier_pool *pool,
					    struct tier_vext v))
{
	u64 v = first, done = 0, n;
	struct tier_loc old;
	unsigned long flags;
	int r;

	*busy = 0;
	*stopped = false;
	while (v <= last) {
		/*
		 * Each batch between two commits: a commit reads the used
		 * counts before it copies the map blocks, and an unmap in
		 * between wrote a superblock whose counts disagree with its
		 * map (activation refuses it). And none once the device is
		 * suspended: its postsuspend commit is the last before resume,
		 * and the resume may renumber the tiers or shrink the map (a
		 * caller without tier_pools_mutex does not keep it out). Nor
		 * once the tier is ok again: a tier-recover meanwhile said it
		 * is not lost.
		 */
		mutex_lock(&pool->md_lock);
		if (READ_ONCE(pool->suspended) ||
		    READ_ONCE(pool->suspend_gen) != gen ||
		    tier_tier_ok(pool, tier)) {
			mutex_unlock(&pool->md_lock);
			*stopped = true;
			break;
		}
		spin_lock_irqsave(&pool->lock, flags);
		/* Lost: no new extent goes there from now on. */
		if (!test_and_set_bit(tier, &pool->forgotten))
			tier_pool_sync_noalloc(pool);
		for (n = 0; n < TIER_PIN_BATCH && v <= last; n++, v++) {
			r = tier_map_clear_on_tier(&pool->map, tier_vext(v),
						   tier, &old);
			if (r == -EBUSY)
				(*busy)++;
			if (r <= 0)
				continue;
			/* As a discard: freed after the next commit. */
			tier_alloc_free_deferred(&pool->alloc[tier], old.pext);
			pool->mapped[tier]--;
			WRITE_ONCE(pool->change_seq, pool->change_seq + 1);
			done++;
			/*
			 * Under the lock that maps it again: the worker may
			 * map a first write here the moment it is dropped,
			 * and a read must then not find the old contents.
			 */
			unmapped(pool, tier_vext(v));
		}
		spin_unlock_irqrestore(&pool->lock, flags);
		mutex_unlock(&pool->md_lock);
		cond_resched();
	}
	return done;
}

void tier_pool_rebind(struct tier_pool *pool, u32 tier, struct dm_dev *dev)
{
	struct block_device *gone = pool->tier_bdev[tier];
	char old[BDEVNAME_SIZE];

	lockdep_assert_held(&tier_pools_mutex);
	strscpy(old, pool->tier_name[tier], sizeof(old));
	tier_pool_hold_bdev(dev->bdev);
	mutex_lock(&pool->md_lock);
	spin_lock_irq(&pool->lock);
	WRITE_ONCE(pool->tier_bdev[tier], dev->bdev);
	pool->tier_dev_id[tier] = dev->bdev->bd_dev;
	strscpy(pool->tier_name[tier], dev->name, BDEVNAME_SIZE);
	spin_unlock_irq(&pool->lock);
	tier_md_rebind(pool->meta, tier, dev->bdev, pool->tier_name[tier]);
	mutex_unlock(&pool->md_lock);
	DMINFO("%s: tier %u re-bound from %s to %s (%pg) by its label",
	       tier_pool_log_name(pool), tier, old, pool->tier_name[tier],
	       dev->bdev);
	tier_pool_drop_bdev(gone);
}

int tier_pool_hold_tier(struct tier_pool *pool, u32 tier, const void *owner,
			char **err)
{
	struct tier_alloc *a = &pool->alloc[tier];

	lockdep_assert_held(&pool->lock);
	if (tier >= pool->nr_tiers || test_bit(tier, &pool->noalloc_hold)) {
		*err = "Another table without this tier is loaded already";
		return -EBUSY;
	}
	/* Frees awaiting a commit are no data: the map points elsewhere. */
	if (pool->mapped[tier] ||
	    a->nr_used != a->nr_pending + a->nr_committing) {
		*err = "The tier to remove holds extents: evacuate it first (tierctl evacuate)";
		return -EBUSY;
	}
	set_bit(tier, &pool->noalloc_hold);
	pool->hold_owner[tier] = owner;
	a->flags |= TIER_ALLOC_F_NOALLOC;
	return 0;
}

void tier_pool_release_tier(struct tier_pool *pool, const void *owner)
{
	u32 tier;

	spin_lock_irq(&pool->lock);
	for (tier = 0; tier < pool->nr_tiers; tier++) {
		if (pool->hold_owner[tier] != owner)
			continue;
		pool->hold_owner[tier] = NULL;
		if (test_and_clear_bit(tier, &pool->noalloc_hold))
			tier_pool_sync_noalloc(pool);
		break;
	}
	spin_unlock_irq(&pool->lock);
}

/* Per-tier state of a tier position that is (re)used: as at creation. */
static void tier_pool_tier_reset(struct tier_pool *pool, u32 tier)
{
	int cpu;

	atomic64_set(&pool->io_errors[tier], 0);
	atomic_set(&pool->health[tier], TIER_HEALTH_OK);
	atomic_set(&pool->err_run[tier], 0);
	clear_bit(tier, &pool->flush_dirty);
	clear_bit(tier, &pool->acked_dirty);
	clear_bit(tier, &pool->near_full);
	clear_bit(tier, &pool->noalloc_hold);
	pool->hold_owner[tier] = NULL;
	clear_bit(tier, &pool->forgotten);
	pool->mapped[tier] = 0;
	for_each_possible_cpu(cpu) {
		struct tier_pcpu_stats *st = per_cpu_ptr(pool->stats, cpu);

		st->reads[tier] = 0;
		st->writes[tier] = 0;
	}
}

/* @x with a zero bit inserted at @pos (bits from @pos on move up). */
static unsigned long tier_bits_insert(unsigned long x, u32 pos)
{
	unsigned long low = x & (BIT(pos) - 1);

	return low | ((x & ~(BIT(pos) - 1)) << 1);
}

/* @x without bit @pos (bits above it move down). */
static unsigned long tier_bits_remove(unsigned long x, u32 pos)
{
	unsigned long low = x & (BIT(pos) - 1);

	return low | ((x >> 1) & ~(BIT(pos) - 1));
}

/* Per-tier state of tier @from moved to position @to (under pool->lock). */
static void tier_pool_tier_move(struct tier_pool *pool, u32 to, u32 from)
{
	int cpu;

	pool->tier_dev_id[to] = pool->tier_dev_id[from];
	pool->tier_bdev[to] = pool->tier_bdev[from];
	pool->data_start[to] = pool->data_start[from];
	pool->tier_class[to] = pool->tier_class[from];
	memcpy(pool->tier_name[to], pool->tier_name[from], BDEVNAME_SIZE);
	pool->alloc[to] = pool->alloc[from];
	pool->mapped[to] = pool->mapped[from];
	pool->hold_owner[to] = pool->hold_owner[from];
	atomic64_set(&pool->io_errors[to],
		     atomic64_read(&pool->io_errors[from]));
	atomic_set(&pool->health[to], atomic_read(&pool->health[from]));
	atomic_set(&pool->err_run[to], atomic_read(&pool->err_run[from]));
	for_each_possible_cpu(cpu) {
		struct tier_pcpu_stats *st = per_cpu_ptr(pool->stats, cpu);

		st->reads[to] = st->reads[from];
		st->writes[to] = st->writes[from];
	}
}

/*
 * Pending monitor events that name a tier follow it (tier_ev_renumber());
 * the sender takes them at any time, so they are taken the same way
 * (tier_events_take()) and raised again (under pool->lock).
 */
static void tier_pool_events_renumber(struct tier_pool *pool, bool insert,
				      u32 pos, u32 old_n)
{
	DECLARE_BITMAP(ev, TIER_EV_BITS);
	u8 table[TIER_MAX_TIERS];
	unsigned int bit;

	if (tier_map_renumber_table(old_n, insert, pos, table))
		return;
	tier_events_take(pool, ev);
	tier_ev_renumber(ev, TIER_EV_MAX + 1, TIER_EV_PER_TIER, table);
	for_each_set_bit(bit, ev, TIER_EV_BITS)
		tier_event(pool, bit / TIER_MAX_TIERS, bit % TIER_MAX_TIERS);
}

/*
 * Every per-tier piece of the pool follows its tier to its new index: the
 * tier list changed in the middle (docs/ARCHITECTURE.md "Tier list
 * changes"). @old_n tiers before; an insert leaves position @pos with a
 * copy of what was there (the caller sets it up), a removal leaves the
 * last position with a copy of the last tier (the caller clears it).
 * Under pool->lock; the device is suspended: no I/O, job or fill touches
 * a tier meanwhile.
 */
static void tier_pool_tiers_shift(struct tier_pool *pool, bool insert, u32 pos,
				  u32 old_n)
{
	unsigned long (*shift)(unsigned long x, u32 pos);
	u32 i;

	lockdep_assert_held(&pool->lock);
	if (insert) {
		for (i = old_n; i > pos; i--)
			tier_pool_tier_move(pool, i, i - 1);
		shift = tier_bits_insert;
	} else {
		for (i = pos; i + 1 < old_n; i++)
			tier_pool_tier_move(pool, i, i + 1);
		shift = tier_bits_remove;
	}
	WRITE_ONCE(pool->flush_dirty, shift(READ_ONCE(pool->flush_dirty), pos));
	WRITE_ONCE(pool->acked_dirty, shift(READ_ONCE(pool->acked_dirty), pos));
	WRITE_ONCE(pool->near_full, shift(READ_ONCE(pool->near_full), pos));
	WRITE_ONCE(pool->noalloc_hold,
		   shift(READ_ONCE(pool->noalloc_hold), pos));
	WRITE_ONCE(pool->forgotten, shift(READ_ONCE(pool->forgotten), pos));
	WRITE_ONCE(pool->evac, (u32)shift(pool->evac, pos));
	tier_pool_events_renumber(pool, insert, pos, old_n);
}

/*
 * The used counts of the new list a tier-list commit records, under
 * pool->lock: the counts of the old list through the change.
 */
static void tier_pool_used(struct tier_pool *pool, u64 *used, bool insert,
			   u32 pos)
{
	u32 i, n = pool->nr_tiers;

	for (i = 0; i < TIER_MAX_TIERS; i++)
		used[i] = 0;
	for (i = 0; i < n; i++) {
		if (i < pos)
			used[i] = pool->mapped[i];
		else if (insert && i + 1 < TIER_MAX_TIERS)
			used[i + 1] = pool->mapped[i];
		else if (!insert && i > pos)
			used[i - 1] = pool->mapped[i];
	}
}

/* Re-point the metadata handle's names at the pool's, after a shift. */
static void tier_pool_md_names(struct tier_pool *pool)
{
	u32 i;

	for (i = 0; i < pool->nr_tiers; i++)
		tier_md_rebind(pool->meta, i, pool->tier_bdev[i],
			       pool->tier_name[i]);
}

int tier_pool_add_tier(struct tier_pool *pool, u32 pos, struct dm_dev *dev,
		       const struct tier_sb_tier *rec, struct tier_alloc *alloc,
		       void (*follow)(struct tier_pool *pool, bool insert,
				      u32 pos, u32 old_n))
{
	ktime_t start;
	u64 used[TIER_MAX_TIERS];
	u32 n = pool->nr_tiers;
	int r;

	lockdep_assert_held(&tier_pools_mutex);
	if (pool->read_only || READ_ONCE(pool->mode) != TIER_MODE_WRITE)
		return -EROFS;
	if (n >= TIER_MAX_TIERS || !pos || pos > n)
		return -EBUSY;
	mutex_lock(&pool->md_lock);
	spin_lock_irq(&pool->lock);
	tier_pool_used(pool, used, true, pos);
	spin_unlock_irq(&pool->lock);
	start = ktime_get();
	tier_map_set_clock(&pool->map, tier_clock_now(pool));
	r = tier_md_commit_tiers(pool->meta, &pool->map, &pool->lock, used,
				 true, pos, rec, dev->bdev, dev->name);
	if (r) {
		mutex_unlock(&pool->md_lock);
		DMERR("%s: committing the tier list with %s as tier %u failed: %d",
		      tier_pool_log_name(pool), dev->name, pos, r);
		return r;
	}
	tier_pool_commit_done(pool, start);
	tier_pool_hold_bdev(dev->bdev);
	spin_lock_irq(&pool->lock);
	tier_pool_tiers_shift(pool, true, pos, n);
	pool->alloc[pos] = *alloc;
	memset(alloc, 0, sizeof(*alloc));
	pool->tier_bdev[pos] = dev->bdev;
	pool->tier_dev_id[pos] = dev->bdev->bd_dev;
	pool->data_start[pos] = rec->data_start;
	pool->tier_class[pos] = rec->tier_class;
	strscpy(pool->tier_name[pos], dev->name, BDEVNAME_SIZE);
	WRITE_ONCE(pool->nr_tiers, n + 1);
	/* Queued moves name tiers by index: they follow in this section. */
	if (follow)
		follow(pool, true, pos, n);
	spin_unlock_irq(&pool->lock);
	tier_pool_tier_reset(pool, pos);
	spin_lock_irq(&pool->lock);
	tier_pool_sync_noalloc(pool);
	spin_unlock_irq(&pool->lock);
	tier_pool_md_names(pool);
	mutex_unlock(&pool->md_lock);
	DMINFO("%s: tier %u added: %s (%pg), %llu extents%s",
	       tier_pool_log_name(pool), pos, pool->tier_name[pos], dev->bdev,
	       (unsigned long long)rec->nr_extents,
	       pos < n ? "; the tiers after it moved up by one" : "");
	return 0;
}

int tier_pool_remove_tier(struct tier_pool *pool, u32 pos, const void *owner,
			  void (*follow)(struct tier_pool *pool, bool insert,
					 u32 pos, u32 old_n))
{
	ktime_t start;
	u64 used[TIER_MAX_TIERS];
	u32 n = pool->nr_tiers;
	struct block_device *gone;
	struct tier_alloc old;
	char name[BDEVNAME_SIZE];
	char *why;
	int r;

	lockdep_assert_held(&tier_pools_mutex);
	if (pool->read_only || READ_ONCE(pool->mode) != TIER_MODE_WRITE)
		return -EROFS;
	if (pos >= n || n < 2)
		return -EBUSY;
	mutex_lock(&pool->md_lock);
	spin_lock_irq(&pool->lock);
	if (!test_bit(pos, &pool->noalloc_hold) ||
	    pool->hold_owner[pos] != owner) {
		spin_unlock_irq(&pool->lock);
		mutex_unlock(&pool->md_lock);
		DMERR("%s: tier %u is not held by the table being resumed: not removed",
		      tier_pool_log_name(pool), pos);
		return -EBUSY;
	}
	/* Held since the load: still empty, unless a job was under way. */
	clear_bit(pos, &pool->noalloc_hold);
	r = tier_pool_hold_tier(pool, pos, owner, &why);
	if (r) {
		set_bit(pos, &pool->noalloc_hold);
		pool->hold_owner[pos] = owner;
	}
	tier_pool_used(pool, used, false, pos);
	spin_unlock_irq(&pool->lock);
	if (r) {
		mutex_unlock(&pool->md_lock);
		DMERR("%s: tier %u is not empty: not removed",
		      tier_pool_log_name(pool), pos);
		return r;
	}
	start = ktime_get();
	tier_map_set_clock(&pool->map, tier_clock_now(pool));
	r = tier_md_commit_tiers(pool->meta, &pool->map, &pool->lock, used,
				 false, pos, NULL, NULL, NULL);
	if (r) {
		mutex_unlock(&pool->md_lock);
		DMERR("%s: committing the tier list without tier %u failed: %d",
		      tier_pool_log_name(pool), pos, r);
		return r;
	}
	tier_pool_commit_done(pool, start);
	strscpy(name, pool->tier_name[pos], sizeof(name));
	gone = pool->tier_bdev[pos];
	spin_lock_irq(&pool->lock);
	old = pool->alloc[pos];
	/* An evacuated tier's state goes with it: a tier added later is new. */
	tier_pool_tiers_shift(pool, false, pos, n);
	WRITE_ONCE(pool->nr_tiers, n - 1);
	memset(&pool->alloc[n - 1], 0, sizeof(pool->alloc[n - 1]));
	pool->tier_bdev[n - 1] = NULL;
	pool->tier_dev_id[n - 1] = 0;
	pool->data_start[n - 1] = 0;
	pool->tier_class[n - 1] = 0;
	tier_pool_sync_noalloc(pool);
	if (follow)
		follow(pool, false, pos, n);
	spin_unlock_irq(&pool->lock);
	/*
	 * Tier 1 became tier 0 and holds the metadata now: the pool's key
	 * follows it, or the next table naming it would load a second pool
	 * over these devices (tier_pool_get(); tier_pools_mutex held).
	 */
	if (!pos && !pool->meta_ext)
		pool->meta_dev_id = pool->tier_dev_id[0];
	tier_pool_tier_reset(pool, n - 1);
	memset(pool->tier_name[n - 1], 0, BDEVNAME_SIZE);
	tier_pool_md_names(pool);
	mutex_unlock(&pool->md_lock);
	tier_alloc_destroy(&old);
	tier_pool_drop_bdev(gone);
	DMINFO("%s: tier %u (%s) removed%s", tier_pool_log_name(pool), pos,
	       name,
	       pos + 1 < n ? "; the tiers after it moved down by one" : "");
	return 0;
}

/* ---- resize (docs/ARCHITECTURE.md "Resize") ------------------------------ */

void tier_pool_resize_free(struct tier_resize *rz)
{
	u32 i;

	for (i = 0; i < TIER_MAX_TIERS; i++)
		tier_alloc_destroy(&rz->alloc[i]);
	tier_map_destroy(&rz->map);
	kvfree(rz->heat_touched);
	memset(rz, 0, sizeof(*rz));
}

/* The tiers' records on the table's devices; under pool->md_lock. */
static void tier_pool_resize_tiers(struct tier_pool *pool,
				   const struct tier_sb *sb,
				   struct dm_dev *const *devs,
				   unsigned long skip, struct tier_resize *rz)
{
	sector_t size;
	u32 i;
	int r;

	for (i = 0; i < sb->nr_tiers; i++) {
		size = bdev_nr_sectors(devs[i]->bdev);
		r = tier_sb_tier_grown(sb, i, size, &rz->rec[i]);
		if (r == -ENOSPC)
			/* An outage can read as size 0: not ours to judge. */
			DMWARN("%s: tier %u (%s) is smaller than recorded (%llu < %llu sectors)",
			       tier_pool_log_name(pool), i, devs[i]->name,
			       (unsigned long long)size,
			       (unsigned long long)sb->tier[i].dev_sectors);
		if (r == 1 && !(skip & BIT(i)))
			rz->grow |= BIT(i);
		else
			rz->rec[i] = sb->tier[i];
	}
}

#define TIER_MSG_MD_NOT_WRITABLE \
	"The metadata is not writable (see the metadata mode): the virtual size cannot change"
#define TIER_MSG_GROWTH_DEFERRED \
	"a grown tier is used at its recorded size: the metadata is %s; reload the table once it is rw"

int tier_pool_resize_prepare(struct tier_pool *pool, struct dm_dev *const *devs,
			     unsigned long skip, u64 virt,
			     struct tier_resize *rz, char **error)
{
	struct tier_err err = {};
	struct tier_sb sb;
	u64 max, n = 0, first = 0;
	enum tier_resize_bound bound;
	u32 i;
	int r;

	memset(rz, 0, sizeof(*rz));
	rz->virt = virt;
	mutex_lock(&pool->md_lock);
	tier_md_get_sb(pool->meta, &sb);
	tier_pool_resize_tiers(pool, &sb, devs, skip, rz);
	mutex_unlock(&pool->md_lock);
	rz->map_change = virt != sb.virt_extents;
	/* Read-only: a grown device is used as it is recorded. */
	if (pool->read_only)
		rz->grow = 0;
	/*
	 * Metadata that cannot be written now (mode ro or fail): the resume
	 * could not commit a tier's growth, and refusing it would leave the
	 * device suspended, this table and the previous one alike (both see
	 * the growth). The tier is used as recorded; a reload once the mode
	 * is rw again grows it.
	 */
	if (rz->grow && !rz->map_change && !tier_pool_md_writable(pool)) {
		tier_pool_growth_deferred(pool);
		rz->grow = 0;
	}
	if (!rz->grow && !rz->map_change)
		return 0;
	if (pool->read_only) {
		*error =
			"the device is activated read-only: nothing can change";
		return -EROFS;
	}
	if (!tier_pool_md_writable(pool)) {
		*error = TIER_MSG_MD_NOT_WRITABLE;
		return -EROFS;
	}
	r = tier_sb_resize(&sb, rz->rec, virt, &err);
	if (r) {
		max = tier_sb_max_virt(&sb, &bound);
		DMERR("%s: virtual size %llu extents refused: the maximum is %llu (%s)",
		      tier_pool_log_name(pool), (unsigned long long)virt,
		      (unsigned long long)max,
		      bound == TIER_RESIZE_BOUND_MAP	  ? "room of the map" :
		      bound == TIER_RESIZE_BOUND_CAPACITY ? "tier capacity" :
							    "byte limit");
		*error =
			"The virtual size exceeds the map room or tier capacity (see dmesg)";
		return r;
	}
	if (rz->map_change) {
		spin_lock_irq(&pool->lock);
		if (virt < pool->virt_extents)
			n = tier_map_mapped_from(&pool->map, virt, &first);
		spin_unlock_irq(&pool->lock);
		if (n) {
			DMERR("%s: %llu mapped extents at or beyond %llu, the first is %llu",
			      tier_pool_log_name(pool), (unsigned long long)n,
			      (unsigned long long)virt,
			      (unsigned long long)first);
			*error =
				"Mapped extents live at or beyond the new end (see dmesg)";
			return -EBUSY;
		}
		r = tier_map_init(&rz->map, virt, TIER_MAP_F_HEAT);
		if (!r) {
			rz->heat_touched =
				kvcalloc(BITS_TO_LONGS(rz->map.nr_blocks),
					 sizeof(unsigned long), GFP_KERNEL);
			if (!rz->heat_touched)
				r = -ENOMEM;
		}
		if (r) {
			*error = "Cannot allocate the map of the new size";
			goto fail;
		}
	}
	for (i = 0; i < TIER_MAX_TIERS; i++) {
		if (!(rz->grow & BIT(i)))
			continue;
		r = tier_alloc_init(&rz->alloc[i], rz->rec[i].nr_extents);
		if (r) {
			*error = "Cannot allocate a grown tier's allocator";
			goto fail;
		}
	}
	return 1;

fail:
	tier_pool_resize_free(rz);
	return r;
}

/* Carry the heat bits of the blocks both maps have; under pool->lock. */
static void tier_pool_heat_touched_copy(unsigned long *dst,
					const unsigned long *src, u64 blocks)
{
	u64 b;

	for_each_set_bit(b, src, blocks)
		__set_bit(b, dst);
}

bool tier_pool_md_writable(struct tier_pool *pool)
{
	return !pool->read_only && READ_ONCE(pool->mode) == TIER_MODE_WRITE;
}

void tier_pool_growth_deferred(struct tier_pool *pool)
{
	DMWARN("%s: " TIER_MSG_GROWTH_DEFERRED, tier_pool_log_name(pool),
	       tier_mode_name(READ_ONCE(pool->mode)));
}

int tier_pool_resize(struct tier_pool *pool, struct tier_resize *rz)
{
	ktime_t start;
	struct tier_map *map = rz->map_change ? &rz->map : &pool->map;
	u64 used[TIER_MAX_TIERS], old_virt = pool->virt_extents, old_blocks;
	struct tier_alloc old;
	unsigned long *ht;
	u32 i;
	int r = 0;

	lockdep_assert_held(&tier_pools_mutex);
	if (!tier_pool_md_writable(pool))
		return -EROFS;
	mutex_lock(&pool->md_lock);
	spin_lock_irq(&pool->lock);
	if (rz->map_change)
		r = tier_map_resize_copy(&rz->map, &pool->map);
	tier_pool_used(pool, used, true, pool->nr_tiers); /* no change */
	spin_unlock_irq(&pool->lock);
	start = ktime_get();
	if (!r) {
		tier_map_set_clock(map, tier_clock_now(pool));
		r = tier_md_commit_resize(pool->meta, map, &pool->lock, used,
					  rz->rec, rz->virt);
	}
	if (r) {
		mutex_unlock(&pool->md_lock);
		DMERR("%s: committing the new sizes failed: %d",
		      tier_pool_log_name(pool), r);
		return r;
	}
	tier_pool_commit_done(pool, start);
	spin_lock_irq(&pool->lock);
	if (rz->map_change) {
		/* Changes made during the commit (pins, forgets) come along. */
		WARN_ON_ONCE(tier_map_resize_copy(&rz->map, &pool->map));
		old_blocks = pool->map.nr_blocks;
		swap(pool->map, rz->map);
		ht = pool->heat_touched;
		old_blocks = min(old_blocks, pool->map.nr_blocks);
		tier_pool_heat_touched_copy(rz->heat_touched, ht, old_blocks);
		pool->heat_touched = rz->heat_touched;
		rz->heat_touched = ht;
		pool->virt_extents = rz->virt;
	}
	for (i = 0; i < pool->nr_tiers; i++) {
		if (!(rz->grow & BIT(i)))
			continue;
		/* Sized from the same record: cannot fail. */
		WARN_ON_ONCE(tier_alloc_grow(&rz->alloc[i], &pool->alloc[i]));
		old = pool->alloc[i];
		pool->alloc[i] = rz->alloc[i];
		rz->alloc[i] = old;
	}
	spin_unlock_irq(&pool->lock);
	mutex_unlock(&pool->md_lock);
	for (i = 0; i < pool->nr_tiers; i++)
		if (rz->grow & BIT(i))
			DMINFO("%s: tier %u grown to %llu extents",
			       tier_pool_log_name(pool), i,
			       (unsigned long long)rz->rec[i].nr_extents);
	if (rz->virt != old_virt)
		DMINFO("%s: virtual size %llu -> %llu extents",
		       tier_pool_log_name(pool), (unsigned long long)old_virt,
		       (unsigned long long)rz->virt);
	return 0;
}

int tier_pool_dm_name(struct tier_pool *pool, char *name)
{
	lockdep_assert_held(&tier_pools_mutex);
	/* pool->md is hashed until dev_remove, which precedes the dtr. */
	if (!pool->ti || dm_copy_name_and_uuid(pool->md, name, NULL))
		return -ENODEV;
	strscpy_pad(pool->name, name, sizeof(pool->name));
	return 0;
}

void tier_pool_stats_begin(struct tier_pool *pool, struct tier_stats *st)
{
	int cpu;
	u32 i;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		struct tier_pcpu_stats *ps = per_cpu_ptr(pool->stats, cpu);

		for (i = 0; i < pool->nr_tiers; i++) {
			st->tier[i].reads += READ_ONCE(ps->reads[i]);
			st->tier[i].writes += READ_ONCE(ps->writes[i]);
		}
		st->mem_hits += READ_ONCE(ps->mem_hits);
		st->mem_misses += READ_ONCE(ps->mem_misses);
	}
}

void tier_pool_stats_locked(struct tier_pool *pool, struct tier_stats *st)
{
	u32 i;

	lockdep_assert_held(&pool->lock);
	for (i = 0; i < pool->nr_tiers; i++) {
		st->tier[i].used = pool->alloc[i].nr_used;
		st->tier[i].total = pool->alloc[i].nr_extents;
		st->tier[i].mapped = pool->mapped[i];
		st->mapped += pool->mapped[i];
	}
	st->evac = pool->evac;
	st->nospc_errors = pool->nospc_errors;
	tier_md_meta_usage(pool->meta, &st->meta_used_blocks,
			   &st->meta_total_blocks);
	st->offline_queued = pool->offq_len;
	st->offline_expired = pool->offq_expired;
	st->mode = pool->mode;
	st->commits = pool->commits;
	st->commit_last_us = div_u64(READ_ONCE(pool->commit_last_ns), 1000);
	st->commit_total_us = div_u64(READ_ONCE(pool->commit_total_ns), 1000);
}

void tier_pool_stats_end(struct tier_pool *pool, struct tier_stats *st)
{
	u32 i;

	if (!st->mem) {
		/* Counted only while a memory tier exists (a reload drops it). */
		st->mem_hits = 0;
		st->mem_misses = 0;
	}
	for (i = 0; i < pool->nr_tiers; i++) {
		st->tier[i].io_errors = atomic64_read(&pool->io_errors[i]);
		st->tier[i].state = tier_health_of(pool, i);
	}
}

/* ---- events -------------------------------------------------------------- */

void tier_pool_set_event_ops(const struct tier_event_ops *ops)
{
	WRITE_ONCE(tier_ev_ops, ops);
}

static void tier_pool_ev_work(struct work_struct *ws)
{
	const struct tier_event_ops *ops = READ_ONCE(tier_ev_ops);

	tier_dbg_event_delay();
	if (ops)
		ops->send(container_of(ws, struct tier_pool, ev_work));
}

void tier_pool_events_close(struct tier_pool *pool)
{
	const struct tier_event_ops *ops = READ_ONCE(tier_ev_ops);

	/*
	 * No new events: a tier_event() that saw ev_open queued the work
	 * within its RCU read section, so after the grace period the cancel
	 * catches it, and nothing queues the work again.
	 */
	WRITE_ONCE(pool->ev_open, false);
	synchronize_rcu();
	cancel_work_sync(&pool->ev_work);
	if (ops)
		ops->gone(pool);
}

/* ---- lifetime ------------------------------------------------------------ */

/*
 * The age sweep visits the whole map once an hour, far within the
 * TIER_ATIME_SWEEP_MAX its words allow, a batch per hold of pool->lock.
 */
#define TIER_AGE_PERIOD_S 3600
#define TIER_AGE_BATCH 4096
static_assert(2 * TIER_AGE_PERIOD_S < TIER_ATIME_SWEEP_MAX);

static void tier_age_work(struct work_struct *ws)
{
	struct tier_pool *pool =
		container_of(to_delayed_work(ws), struct tier_pool, age_work);
	bool done;
	u64 v = 0;

	do {
		spin_lock_irq(&pool->lock);
		v = tier_map_age_sweep(&pool->map, v, TIER_AGE_BATCH,
				       tier_clock_now(pool));
		done = v >= pool->map.nr_extents;
		spin_unlock_irq(&pool->lock);
		cond_resched();
	} while (!done);
	queue_delayed_work(system_unbound_wq, &pool->age_work,
			   TIER_AGE_PERIOD_S * HZ);
}

static void tier_retry_work(struct work_struct *ws)
{
	struct tier_pool *pool =
		container_of(to_delayed_work(ws), struct tier_pool, retry_work);

	tier_wake_worker(pool);
}

/* The offline queue's next deadline: the worker fails what expired. */
static void tier_offq_timer(struct work_struct *ws)
{
	struct tier_pool *pool =
		container_of(to_delayed_work(ws), struct tier_pool, offq_work);

	tier_wake_worker(pool);
}

static void tier_commit_work(struct work_struct *ws)
{
	struct tier_pool *pool = container_of(to_delayed_work(ws),
					      struct tier_pool, commit_work);

	/*
	 * Read-only mode retries too: a commit that succeeds returns the
	 * device to read-write (tier_md_mode_next()).
	 */
	if ((tier_map_dirty(pool) || tier_pool_heat_due(pool) ||
	     READ_ONCE(pool->frees_deferred)) &&
	    READ_ONCE(pool->mode) != TIER_MODE_FAIL) {
		mutex_lock(&pool->md_lock);
		tier_pool_commit(pool);
		mutex_unlock(&pool->md_lock);
	}
	spin_lock_irq(&pool->lock);
	if (pool->periodic)
		queue_delayed_work(pool->wq, &pool->commit_work,
				   msecs_to_jiffies(pool->commit_interval_ms));
	spin_unlock_irq(&pool->lock);
}

void tier_pool_disarm(struct tier_pool *pool)
{
	spin_lock_irq(&pool->lock);
	pool->periodic = false;
	spin_unlock_irq(&pool->lock);
	cancel_delayed_work_sync(&pool->commit_work);
}

void tier_pool_drain(struct tier_pool *pool)
{
	/* It re-arms itself; the _sync cancel stops that too. */
	cancel_delayed_work_sync(&pool->age_work);
	/* Normally empty: the suspend before the destructor failed them. */
	if (tier_pool_offq_fail_all(pool))
		DMERR("%s: writes parked for an offline tier failed at teardown",
		      tier_pool_log_name(pool));
	/*
	 * A release may wake the worker, and the worker's commit queue a
	 * release: flush both ways, then the worker once more, below.
	 */
	tier_pool_release_flush(pool);
	if (pool->wq)
		drain_workqueue(pool->wq);
	tier_pool_release_flush(pool);
	if (pool->qwq) {
		destroy_workqueue(pool->qwq);
		pool->qwq = NULL;
	}
	if (pool->wq) {
		drain_workqueue(pool->wq);
		cancel_delayed_work_sync(&pool->retry_work);
		cancel_delayed_work_sync(&pool->offq_work);
		cancel_delayed_work_sync(&pool->commit_work);
		destroy_workqueue(pool->wq);
		pool->wq = NULL;
	}
}

void tier_pool_free(struct tier_pool *pool)
{
	u32 i;

	kvfree(pool->heat_touched);
	mempool_exit(&pool->job_pool);
	for (i = 0; i < TIER_MAX_TIERS; i++)
		tier_alloc_destroy(&pool->alloc[i]);
	tier_map_destroy(&pool->map);
	tier_md_destroy(pool->meta);
	free_percpu(pool->stats);
	for (i = 0; i < TIER_MAX_TIERS; i++)
		tier_pool_drop_bdev(pool->tier_bdev[i]);
	kfree(pool);
}

/* Geometry and identity from the loaded metadata; the heat clock. */
static int tier_pool_loaded(struct tier_pool *pool, char **error)
{
	struct tier_md *md = pool->meta;
	u32 i;

	pool->extent_shift = tier_md_extent_shift(md);
	pool->extent_sectors = 1ULL << pool->extent_shift;
	pool->virt_extents = tier_md_virt_extents(md);
	/* Fixed once loaded; netlink reads these without md_lock. */
	tier_md_uuid(md, pool->uuid);
	for (i = 0; i < pool->nr_tiers; i++) {
		pool->data_start[i] = tier_md_data_start(md, i);
		pool->tier_class[i] = tier_md_tier_class(md, i);
		pool->mapped[i] = pool->alloc[i].nr_used;
		/* Not shared yet: the allocator flag directly. */
		if (tier_md_tier_flags(md, i) & TIER_SB_TIER_F_EVACUATE) {
			pool->evac |= BIT(i);
			pool->alloc[i].flags |= TIER_ALLOC_F_NOALLOC;
		}
	}
	pool->heat_touched = kvcalloc(BITS_TO_LONGS(pool->map.nr_blocks),
				      sizeof(unsigned long), GFP_KERNEL);
	if (!pool->heat_touched) {
		*error = "Cannot allocate the migration state";
		return -ENOMEM;
	}
	/* The map was loaded with this clock (tier_md_load()). */
	pool->clock_base = tier_md_heat_clock(md);
	pool->clock_j = jiffies;
	pool->heat_commit_j = jiffies;
	pool->fg_alloc_j =
		jiffies - (unsigned long)TIER_DRAIN_DEADLINE_MAX * HZ;
	return 0;
}

struct tier_pool *tier_pool_create(const struct tier_table *tbl,
				   struct dm_dev *const *devs,
				   struct dm_dev *meta_dev,
				   struct mapped_device *md, work_func_t worker,
				   bool read_only, char **error)
{
	const char *names[TIER_MAX_TIERS];
	struct tier_pool *pool;
	struct tier_md *meta;
	u32 i;
	int r;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool) {
		*error = "Cannot allocate the pool";
		return ERR_PTR(-ENOMEM);
	}
	mutex_init(&pool->md_lock);
	mutex_init(&pool->quiesce_lock);
	INIT_WORK(&pool->release_work, tier_release_work);
	bio_list_init(&pool->release_wait);
	spin_lock_init(&pool->lock);
	bio_list_init(&pool->deferred);
	bio_list_init(&pool->parked);
	bio_list_init(&pool->offq);
	INIT_LIST_HEAD(&pool->done);
	hash_init(pool->busy_index);
	INIT_LIST_HEAD(&pool->targets);
	pool->md = md;
	pool->read_only = read_only;
	init_waitqueue_head(&pool->drain_wait);
	INIT_WORK(&pool->worker, worker);
	INIT_DELAYED_WORK(&pool->commit_work, tier_commit_work);
	INIT_DELAYED_WORK(&pool->retry_work, tier_retry_work);
	INIT_DELAYED_WORK(&pool->offq_work, tier_offq_timer);
	INIT_DELAYED_WORK(&pool->age_work, tier_age_work);
	INIT_WORK(&pool->ev_work, tier_pool_ev_work);
	pool->ref = 1;
	init_completion(&pool->unpinned);
	/* Like a new mapped device: suspended until its first resume. */
	pool->suspended = true;
	pool->nr_tiers = tbl->nr_tiers;
	for (i = 0; i < pool->nr_tiers; i++) {
		tier_pool_hold_bdev(devs[i]->bdev);
		pool->tier_bdev[i] = devs[i]->bdev;
		pool->tier_dev_id[i] = devs[i]->bdev->bd_dev;
		strscpy(pool->tier_name[i], devs[i]->name, BDEVNAME_SIZE);
		names[i] = pool->tier_name[i];
	}
	pool->meta_dev_id = pool->tier_dev_id[0];
	strscpy(pool->meta_name, pool->tier_name[0], BDEVNAME_SIZE);
	if (meta_dev) {
		pool->meta_ext = true;
		pool->meta_dev_id = meta_dev->bdev->bd_dev;
		strscpy(pool->meta_name, meta_dev->name, BDEVNAME_SIZE);
	}
	pool->commit_interval_ms = tbl->commit_interval_ms;
	pool->cfg = tbl->policy;

	r = mempool_init(&pool->job_pool, 16, tier_job_slab_alloc,
			 mempool_free_slab, tier_job_cache);
	if (r) {
		*error = "Cannot allocate the job pool";
		goto bad;
	}
	r = -ENOMEM;
	pool->stats = alloc_percpu(struct tier_pcpu_stats);
	if (!pool->stats) {
		*error = "Cannot allocate metadata buffers";
		goto bad;
	}
	meta = tier_md_create(pool->nr_tiers, pool->tier_bdev, names,
			      meta_dev ? meta_dev->bdev : NULL, pool->meta_name,
			      error);
	if (IS_ERR(meta)) {
		r = PTR_ERR(meta);
		goto bad;
	}
	pool->meta = meta;
	pool->wq = alloc_ordered_workqueue("dm-tier-%s", WQ_MEM_RECLAIM,
					   pool->tier_name[0]);
	if (!pool->wq) {
		*error = "Cannot create the workqueue";
		goto bad;
	}
	pool->qwq = alloc_ordered_workqueue("dm-tier-q-%s", WQ_MEM_RECLAIM,
					    pool->tier_name[0]);
	if (!pool->qwq) {
		*error = "Cannot create the quiesce workqueue";
		goto bad;
	}
	mutex_lock(&pool->md_lock);
	r = tier_md_load(pool->meta, tbl, &pool->map, pool->alloc, read_only,
			 error);
	mutex_unlock(&pool->md_lock);
	if (r)
		goto bad;
	r = tier_pool_loaded(pool, error);
	if (r)
		goto bad;
	queue_delayed_work(system_unbound_wq, &pool->age_work,
			   TIER_AGE_PERIOD_S * HZ);
	return pool;
bad:
	tier_pool_disarm(pool);
	tier_pool_drain(pool);
	tier_pool_free(pool);
	return ERR_PTR(r);
}
