/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm-tier-pool.h - the pool: the state of one tiered device that every
 * table loaded over it shares (map, allocators, jobs, I/O epochs, commits,
 * counters, settings), and the data-path functions the layers above build
 * on: jobs, the I/O-epoch quiesce, the extent switch, commits, flag
 * changes, stats and settings.
 *
 * Layer: above the metadata (dm-tier-metadata.h), below migration,
 * the memory tier, the target and netlink (docs/ARCHITECTURE.md "Layers").
 * It calls only down, and up only through what the layers above hand it:
 * the worker function (tier_pool_create()) and the event sink
 * (tier_pool_set_event_ops()).
 *
 * Locking (see docs/ARCHITECTURE.md "Locking"):
 *  - tier_pools_mutex: the global list of pools, refcounts and pins,
 *    pool->ti, the cached names, the active table's settings;
 *    ctr/dtr/resume, the "set" message, netlink operations and the event
 *    work. Never held across I/O nor while waiting for pool->md_lock
 *    (whose holder may wait on a hung tier): what must, runs with the pool
 *    pinned (tier_pool_pin()); a new pool's first load runs with it
 *    dropped (tier_pool_get() in the target). The exceptions are the
 *    resume's re-bind and the tier-list and resize commits of preresume,
 *    with the device suspended (docs/ARCHITECTURE.md "Locking").
 *  - pool->md_lock (mutex): loading and committing metadata; taken by the
 *    worker, the periodic commit, postsuspend, tier-recover's probe,
 *    forget-tier's batches, the evacuate flags, and a reload's re-bind and
 *    tier-list checks; never on the I/O path.
 *  - pool->lock (spinlock, irq-safe): map and allocator updates, bio lists,
 *    busy extents, counters that are not per-cpu, the migration state
 *    (dm-tier-migrate.c). Never held across I/O.
 *  - map() reads map words locklessly (READ_ONCE of one u64 per extent);
 *    every writer of a map word (the worker, the migration tick, netlink
 *    pin/unpin) holds pool->lock.
 *  - the memory tier's lock (spinlock, irq-safe, dm-tier-memtier.c): its
 *    slot table and fill ring; taken in map(), bio completion, the fill
 *    work and under pool->lock (status), never the other way round; never
 *    held across I/O, allocation or the hit path's copy.
 */
#ifndef DM_TIER_POOL_H
#define DM_TIER_POOL_H

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/device-mapper.h>
#include <linux/dm-ioctl.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <uapi/linux/dm-tier.h>

#include "dm-tier.h"
#include "dm-tier-copy.h"
#include "dm-tier-debug.h"
#include "dm-tier-metadata.h"
#include "core/alloc.h"
#include "core/extent_map.h"
#include "core/policy.h"
#include "core/table.h"

struct tier_mig; /* dm-tier-migrate.c */
struct tier_memtier; /* dm-tier-memtier.c */

/* 256 buckets: a few jobs a bucket at the most jobs that run at once. */
#define TIER_BUSY_INDEX_BITS 8

/* What a struct tier_job does. */
enum tier_job_kind {
	TIER_JOB_PREPARE, /* unmapped extent: its first write (and zeroing) */
	TIER_JOB_REDIRECT, /* whole-extent write moved to a fresh tier-0 extent */
	TIER_JOB_MIGRATE, /* copy to another tier (dm-tier-migrate.c) */
};

/*
 * An extent the worker is changing. PREPARE: allocated but not yet in the
 * map, because its first write has not completed, nor, when that write
 * covers only part of the extent, the zeroing of the rest, which runs
 * beside it. REDIRECT and MIGRATE: mapped at @src with TIER_MW_BUSY set;
 * reads go to @src, writes wait. In every case other bios for the extent
 * wait ("parked") until the job ends.
 */
struct tier_job {
	struct list_head list; /* pool->done once its I/O completed */
	struct hlist_node busy_node; /* pool->busy_index, until the job ends */
	struct tier_pool *pool;
	struct tier_vext vext;
	struct tier_loc loc; /* destination */
	struct tier_loc src; /* REDIRECT, MIGRATE: where the data is now */
	struct bio *bio; /* PREPARE, REDIRECT: the write, hooked */
	struct bio_list parked; /* bios for this extent, until the job ends */
	enum tier_job_kind kind;
	bool manual; /* MIGRATE: asked for by a "migrate" message */
	bool src_unreadable; /* MIGRATE: the copy failed reading the source */
	blk_status_t status; /* PREPARE, REDIRECT: the write; MIGRATE: the copy */
	/*
	 * PREPARE, REDIRECT: I/Os not yet ended (pool->lock): the write, and
	 * the zeroing beside a partial first write. The last one's end hands
	 * the job to the worker.
	 */
	unsigned int pending;
	blk_status_t zero_status; /* PREPARE: the zeroing's */
	/* PREPARE: where the first write lies in the extent (sectors). */
	sector_t wr_offset;
	sector_t wr_sectors;
	bool zero_offload; /* PREPARE: the zeroing was sent as WRITE ZEROES */
	struct tier_copy_job copy; /* MIGRATE: the copier's */
};

struct tier_pcpu_stats {
	u64 reads[TIER_MAX_TIERS];
	u64 writes[TIER_MAX_TIERS];
	u64 mem_hits; /* reads served by the memory tier */
	u64 mem_misses; /* reads of mapped extents it did not serve */
};

/*
 * One tiered device: its metadata, map, allocators and worker. Shared by
 * every table loaded over the same metadata device, so that a table reload
 * keeps the in-memory state of the running one (as dm-cache and dm-thin do).
 */
struct tier_pool {
	struct list_head list; /* tier_pools; tier_pools_mutex */
	unsigned int ref; /* tables using it; tier_pools_mutex */
	/*
	 * Netlink operations at work on the pool without tier_pools_mutex
	 * (tier_pool_pin(): a probe flush, forget-tier, an evacuation's
	 * flag), counted under tier_pools_mutex; the last table's teardown
	 * waits for @unpinned before it stops and frees the pool
	 * (tier_pool_wait_unpinned()).
	 */
	unsigned int pins;
	struct completion unpinned;
	/*
	 * The one mapped device whose tables may use the pool (reloads), set
	 * by the first table; valid while the pool lives, since its tables
	 * hold the pool. tier_pools_mutex.
	 */
	struct mapped_device *md;
	struct list_head targets; /* the tables' targets; tier_pools_mutex */
	dev_t meta_dev_id; /* the pool's key: metadata device or tier 0 */
	/*
	 * The metadata is on a separate device (table key metadata_dev):
	 * tier 0 is then a data tier like the others for flushes. Fixed.
	 */
	bool meta_ext;
	char meta_name[BDEVNAME_SIZE]; /* the metadata device, for logs */

	/*
	 * Geometry, fixed once loaded, except the tier list and the sizes:
	 * nr_tiers and the per-tier fields below (and virt_extents, the map
	 * and the allocators' sizes) change only while the device is
	 * suspended, at preresume of a table with one tier more or less (or
	 * a resize), under tier_pools_mutex, pool->md_lock and pool->lock
	 * (tier_pool_add_tier(), tier_pool_remove_tier(), tier_pool_resize());
	 * a change in the middle moves every per-tier field
	 * (tier_pool_tiers_shift()).
	 */
	u32 nr_tiers;
	u32 extent_shift;
	sector_t extent_sectors;
	u64 virt_extents;
	dev_t tier_dev_id[TIER_MAX_TIERS];
	/*
	 * Each holds a reference of the pool's own on the device
	 * (tier_pool_hold_bdev()), taken when the pool starts using it and
	 * dropped when it stops: after a failed preresume the pool goes on
	 * using devices no live table holds (the tier a failed removal
	 * keeps; the device a re-bind would have replaced), and one removed
	 * then (a dm device, a vanished namespace) must stay memory the
	 * pool can submit to (its bios fail) and print. Compared by pointer
	 * (tier_pool_uses_bdev()): a device created again under the same
	 * number is another block_device.
	 */
	struct block_device *tier_bdev[TIER_MAX_TIERS];
	sector_t data_start[TIER_MAX_TIERS];
	char tier_name[TIER_MAX_TIERS][BDEVNAME_SIZE];
	u32 tier_class[TIER_MAX_TIERS]; /* from the superblock, at load */
	u8 uuid[TIER_UUID_LEN]; /* virtual device UUID, at load */

	/* Identity for netlink; tier_pools_mutex. */
	u64 id; /* unique, increasing: resumable dumps */
	/*
	 * dm name as last seen (ctr, resume, each netlink lookup); requests
	 * resolve names at request time (tier_pool_dm_name()).
	 */
	char name[DM_NAME_LEN];
	bool announced; /* dev-new queued (first resume) */
	bool ev_open; /* events are queued (READ_ONCE); announced..teardown */

	/*
	 * Tier health (docs/ARCHITECTURE.md "Faults"): enum tier_health per
	 * tier, changed by tier_note_tier_event() with cmpxchg; errors
	 * counted, and the errors since the tier's last success.
	 */
	atomic64_t io_errors[TIER_MAX_TIERS];
	atomic_t health[TIER_MAX_TIERS];
	atomic_t err_run[TIER_MAX_TIERS];
	/*
	 * Flush tracking, bit per tier, atomic bitops: a write, zeroing or
	 * copy to the tier completed since its last successful flush (set at
	 * completion, cleared before a flush, set again when the flush
	 * fails).
	 */
	unsigned long flush_dirty;
	/*
	 * Writes acknowledged and not yet durable, bit per tier, atomic
	 * bitops: set when a write in place to the tier completed successfully
	 * (tier_note_acked(), before flush_dirty), taken before a flush of
	 * the tier (tier_pool_flush_tiers()). When that flush fails, or the
	 * tier goes offline while its bit is set, those writes may be lost:
	 * writes_lost is set, and the next REQ_PREFLUSH completes with EIO
	 * (once), so an fsync never reports durable what no flush covered.
	 */
	unsigned long acked_dirty;
	atomic_t writes_lost;
	unsigned long near_full; /* bit per tier above 95%; atomic bitops */

	/* Pending monitor events (atomic bits) and the work that sends them. */
	DECLARE_BITMAP(ev_pending, TIER_EV_BITS);
	struct work_struct ev_work;

	/* Metadata (dm-tier-metadata.c); md_lock. */
	struct mutex md_lock;
	struct tier_md *meta;
	u64 commits; /* commits done since activation */
	/* The last commit's duration and the sum over @commits; WRITE_ONCE. */
	u64 commit_last_ns;
	u64 commit_total_ns;
	u32 md_fails; /* failed commits in a row */
	unsigned long md_fail_j; /* when the first of them failed */

	/* Mapping state; lock. */
	spinlock_t lock;
	struct tier_map map;
	struct tier_alloc alloc[TIER_MAX_TIERS];
	u64 mapped[TIER_MAX_TIERS]; /* extents the map points at */
	/*
	 * Tiers being evacuated or evacuated (TIER_SB_TIER_F_EVACUATE), a
	 * bit each: they take no new extents (tier_pool_sync_noalloc()).
	 */
	u32 evac;
	/*
	 * Tiers a loaded table without them (tierctl remove-tier) keeps from
	 * taking extents until it resumes or is destroyed; bit per tier.
	 * tier_pool_sync_noalloc() keeps their TIER_ALLOC_F_NOALLOC.
	 * @hold_owner names the table of each hold: a tier-list change that
	 * resumes meanwhile (after the holder's preresume failed) moves the
	 * tier and its bit, and the holder's destructor must release the
	 * tier it held, wherever it is now, not the index it held.
	 */
	unsigned long noalloc_hold;
	const void *hold_owner[TIER_MAX_TIERS];
	/*
	 * Tiers forget-tier declared lost, a bit each: they take no new
	 * extents (tier_pool_sync_noalloc()) until tier-recover succeeds or
	 * the next activation: new data must not go where the data just
	 * forgotten was.
	 */
	unsigned long forgotten;
	/*
	 * The map is dirty while change_seq != durable_seq: change_seq counts
	 * map changes (bumped before a new mapping becomes visible), and a
	 * successful commit sets durable_seq to the count it captured.
	 */
	u64 change_seq;
	u64 durable_seq;
	bool commit_requested; /* by a message; the worker commits */
	enum tier_md_mode mode;
	/*
	 * Activated read-only (the first table's mode; every table of the
	 * pool has it): nothing is ever written to a member. Fixed before
	 * the pool is resumed.
	 */
	bool read_only;
	struct bio_list deferred; /* bios for the worker */
	/*
	 * Waiting for any job's end: discards over a busy range, first
	 * writes that found no room while copies held extents. A bio for one
	 * busy extent waits on its job instead (tier_job_park()).
	 */
	struct bio_list parked;
	/*
	 * The offline queue (offline_queue_s, docs/ARCHITECTURE.md "Tier
	 * states"): writes to extents of an offline tier that could not be
	 * redirected, each until its tier is back or its deadline passes.
	 * @offq_len counts them, @offq_next is the deadline the timer
	 * (@offq_work) is armed for, @offq_closed refuses new ones (from
	 * presuspend to resume, and at teardown), @offq_requeue completes
	 * them with DM_REQUEUE instead of EIO (a noflush suspend: dm issues
	 * them again after the resume), @offq_expired counts those that
	 * failed at their deadline. All under pool->lock.
	 */
	struct bio_list offq;
	u32 offq_len;
	u64 offq_next;
	u64 offq_expired;
	bool offq_closed;
	bool offq_requeue;
	/* offline_queue_s of the active table (READ_ONCE in map()). */
	u32 offline_queue_s;
	struct list_head done; /* jobs whose I/O completed, for the worker */
	/*
	 * Every running job by virtual extent: every write to an unmapped
	 * extent and every discard asks whether a job holds it, and a burst
	 * or a drain keeps many jobs in flight.
	 */
	DECLARE_HASHTABLE(busy_index, TIER_BUSY_INDEX_BITS);
	unsigned int nr_busy; /* jobs in busy_index */
	mempool_t job_pool;
	u64 nospc_errors;
	bool nospc_logged;
	bool nospc_event; /* near-full sent for this ENOSPC episode */

	/* Quiescing I/O before a freed physical extent is reused. */
	unsigned int io_epoch;
	/* Debug builds: every epoch below it has been quiesced. */
	unsigned int io_drained;
	atomic_t inflight[2];
	wait_queue_head_t drain_wait;
	/* One quiesce at a time: the argument needs each to finish its epoch. */
	struct mutex quiesce_lock;
	/*
	 * Ordered: the waits for the old epoch (a commit's release of frees,
	 * a migration batch's quiesce), so that they do not hold the worker
	 * and the flushes queued behind it while a slow tier's bios finish.
	 */
	struct workqueue_struct *qwq;
	struct work_struct release_work; /* on qwq */
	/* A commit's frees await release_work; pool->lock. */
	bool release_pending;
	/*
	 * A commit left frees pending because a release was: the next commit
	 * takes them even when the map is clean (else they wait for the next
	 * change, and a first write that needs them for ever); pool->lock.
	 */
	bool frees_deferred;
	/* First writes that found no room but that release: pool->lock. */
	struct bio_list release_wait;

	struct tier_pcpu_stats __percpu *stats;

	struct workqueue_struct *wq; /* ordered: worker and commits */
	struct work_struct worker;
	struct delayed_work commit_work;
	struct delayed_work retry_work; /* wakes the worker: no job was left */
	/* Wakes the worker at the offline queue's next deadline. */
	struct delayed_work offq_work;
	/*
	 * Keeps the map words' access times readable (tier_map_age_sweep()):
	 * on system_unbound_wq, from creation to tier_pool_drain(), suspended
	 * or not (memory only).
	 */
	struct delayed_work age_work;
	unsigned int commit_interval_ms;
	bool periodic; /* periodic commits armed; pool->lock */
	bool suspended; /* postsuspend..resume: no commit; pool->lock */
	/*
	 * Postsuspends so far (pool->lock; READ_ONCE): the tier list, the
	 * size and the tiers' devices change only at a resume, after one.
	 * Work done without tier_pools_mutex over several holds of md_lock
	 * (forget-tier's walk) stops when it changed.
	 */
	unsigned int suspend_gen;
	/*
	 * The live table's target (tier_pools_mutex): set at its preresume,
	 * as device-mapper swapped it in before: after a failed preresume
	 * the device stays suspended with it, and netlink still finds the
	 * device (its status, cancelling the move that made a shrink fail).
	 * NULL once that table is destroyed and before the first table.
	 */
	struct dm_target *ti;
	/*
	 * The length of the last table that resumed (tier_pools_mutex), 0
	 * before the first: a reload with another length resizes
	 * (tier_prepare_resize()). Not the live table's: one whose shrink
	 * failed at preresume is live but did not change the size, and
	 * loading it again must try again.
	 */
	sector_t live_len;

	/*
	 * Migration settings (the active table's); written under pool->lock,
	 * map() and the memory tier read single fields with READ_ONCE.
	 */
	struct tier_policy_cfg cfg;
	/* Tier 0 last grew by a foreground write; pool->lock. */
	unsigned long fg_alloc_j;

	/* Heat clock: seconds since the superblock's ctime. */
	u32 clock_base;
	unsigned long clock_j;
	/* Map blocks whose heat changed since the last commit (atomic bits). */
	unsigned long *heat_touched;
	bool heat_dirty;
	bool heat_flush; /* the next commit writes heat even if not due */
	unsigned long heat_commit_j;

	/* The migration engine (dm-tier-migrate.c); NULL until initialised. */
	struct tier_mig *mig;

	/*
	 * The memory tier, or NULL. Replaced only at resume (the device is
	 * suspended: no map()) under tier_pools_mutex and pool->lock, so
	 * map() and completions read it with READ_ONCE, status under
	 * pool->lock, netlink under tier_pools_mutex.
	 */
	struct tier_memtier *mem;
};

/* Refusals of what a suspended device cannot do now (EBUSY). */
#define TIER_MSG_SUSPENDED "the device is suspended; resume it first"
/*
 * How long tier-recover waits for its probe flush: a live path answers in
 * milliseconds; one that hangs fails the request (-ETIMEDOUT) instead of
 * holding it, and the netlink socket's lock, as long as it hangs.
 */
#define TIER_PROBE_WAIT_S 15

#define TIER_JOB_RETRY_MS 10 /* worker retry after no job could be had */
#define TIER_HEAT_COMMIT_S 30 /* heat alone is committed at most this often */

/*
 * The pools, newest first (tier_pool.id decreasing). Netlink operations
 * look pools up under tier_pools_mutex and act while holding it, except
 * what may wait for I/O: that runs with the pool pinned (tier_pool_pin())
 * and the mutex dropped. A pool leaves the list only under it, and is
 * freed once no operation has it pinned.
 */
extern struct mutex tier_pools_mutex;
extern struct list_head tier_pools;

/**
 * tier_pool_pin() - keep @pool (its memory, workqueues, metadata and
 * migration state) from being stopped and freed while a netlink operation
 * works on it without tier_pools_mutex: a tier-recover's probe flush,
 * forget-tier's walk and commit, an evacuation's flag, which may wait on a
 * hung path or behind a commit that does. tier_pools_mutex is never held
 * across such a wait: every dm-tier table load, resume and removal on the
 * host, and every netlink request, would wait too. What the operation
 * needs of the pool's identity (the tier list, the size, the tiers'
 * devices, the active table) may change meanwhile: it checks again under
 * the lock that covers it (pool->md_lock for the tier list, @suspend_gen).
 * @pool: a pool found on tier_pools.
 *
 * Context: process; caller holds tier_pools_mutex.
 */
void tier_pool_pin(struct tier_pool *pool);

/**
 * tier_pool_unpin() - undo tier_pool_pin(); wakes the teardown that waits
 * for the last pin (tier_pool_wait_unpinned()).
 * @pool: the pool; not to be touched after this call: when this was its
 *        last pin and its last table is gone, the teardown waiting for it
 *        frees it at once (it does not take tier_pools_mutex again).
 *
 * Context: process; caller holds tier_pools_mutex.
 */
void tier_pool_unpin(struct tier_pool *pool);

/**
 * tier_pool_wait_unpinned() - wait until no netlink operation has @pool
 * pinned. The pool is off tier_pools (its last table dropped it), so no
 * new pin comes.
 * @pool: the pool.
 *
 * Context: process, may sleep; caller does not hold tier_pools_mutex
 * (tier_pool_unpin() takes it).
 */
void tier_pool_wait_unpinned(struct tier_pool *pool);

/**
 * tier_pool_log_name() - how kernel messages name the device: its
 * device-mapper name as last seen (the name the admin gave, "ckpt"), or
 * tier 0's disk before the first table cached it.
 * @pool: the pool.
 *
 * A rename racing with a message shows a mix of the two names at worst:
 * pool->name is written with strscpy_pad() under tier_pools_mutex, so its
 * last byte stays NUL and a reader never runs past it.
 *
 * Context: any.
 * Return: a string that lives as long as the pool.
 */
static inline const char *tier_pool_log_name(const struct tier_pool *pool)
{
	return pool->name[0] ? pool->name : pool->tier_name[0];
}

/**
 * tier_map_dirty() - whether the map has changes that are not durable.
 * @pool: the pool.
 *
 * Pairs with the smp_wmb() in the worker: a caller that read a map word
 * published by the worker and then calls this (after smp_rmb()) sees the
 * change that published it.
 *
 * Context: any.
 */
static inline bool tier_map_dirty(struct tier_pool *pool)
{
	return READ_ONCE(pool->change_seq) != READ_ONCE(pool->durable_seq);
}

/**
 * tier_event() - record a monitor event; the event sink (dm-tier-netlink.c)
 * sends it later from process context (once per pending (event, tier)
 * pair).
 * @pool:  the pool.
 * @event: enum dm_tier_event.
 * @tier:  the tier it concerns; 0 for device-wide events.
 *
 * Does nothing before the pool's first resume (dev-new) or once its
 * teardown began. (Debug builds: dbg_event_hold leaves the work unqueued,
 * the event pending.) The check and the queueing form one RCU read section:
 * tier_pool_events_close() closes events, waits for a grace period, and
 * only then cancels the work, so no caller can queue it after the cancel.
 *
 * Context: any (atomic, under pool->lock, irq); never sleeps.
 */
static inline void tier_event(struct tier_pool *pool, u32 event, u32 tier)
{
	if (event > TIER_EV_MAX || tier >= TIER_MAX_TIERS)
		return;
	rcu_read_lock();
	if (READ_ONCE(pool->ev_open)) {
		set_bit(event * TIER_MAX_TIERS + tier, pool->ev_pending);
		if (!tier_dbg_event_hold())
			queue_work(system_wq, &pool->ev_work);
	}
	rcu_read_unlock();
}

/**
 * tier_events_take() - take (and clear) every pending monitor event at
 * once, each word with xchg(), so that none raised meanwhile is lost.
 * @pool: the pool.
 * @ev:   out, TIER_EV_BITS bits.
 *
 * Context: any.
 */
static inline void tier_events_take(struct tier_pool *pool, unsigned long *ev)
{
	u32 i;

	for (i = 0; i < BITS_TO_LONGS(TIER_EV_BITS); i++)
		ev[i] = xchg(&pool->ev_pending[i], 0);
}

/**
 * tier_clock_now() - the heat clock: seconds since the superblock's ctime.
 * @pool: the pool.
 *
 * Context: any.
 */
static inline u32 tier_clock_now(struct tier_pool *pool)
{
	return pool->clock_base + (u32)((jiffies - pool->clock_j) / HZ);
}

/**
 * tier_heat_note() - count an access to a mapped extent.
 * @pool: the pool.
 * @v:    the extent.
 *
 * Lockless and lossy: concurrent accesses to one extent may count once.
 * Marks the extent's map block so the next commit persists the heat.
 *
 * Context: any (map() and the worker).
 */
static inline void tier_heat_note(struct tier_pool *pool, struct tier_vext v)
{
	struct tier_map *m = &pool->map;
	u32 now = tier_clock_now(pool);
	u64 word = READ_ONCE(m->words[v.v]);
	u16 nheat = tier_heat_touch(tier_mw_heat(word),
				    tier_mw_atime(word, now), now,
				    READ_ONCE(pool->cfg.promote_window));
	u64 block = tier_map_block_of(v);

	/* Above 31 a heat code covers several heats: round at random. */
	if (!tier_map_touch(m, v, word, nheat, now,
			    nheat > 31 ? get_random_u32() : 0))
		return;
	if (!test_bit(block, pool->heat_touched)) {
		set_bit(block, pool->heat_touched);
		WRITE_ONCE(pool->heat_dirty, true);
	}
}

/* ---- lifetime ------------------------------------------------------------ */

/**
 * tier_pool_module_init() - create what every pool shares: the slabs of
 * struct tier_job and of the copier's buffers, tier-recover's probe
 * workqueue.
 *
 * Context: module init (target registration).
 * Return: 0 or -ENOMEM.
 */
int tier_pool_module_init(void);

/**
 * tier_pool_module_exit() - destroy them (waits for a probe flush still
 * under way: one that timed out).
 *
 * Context: module exit, after the last pool is gone.
 */
void tier_pool_module_exit(void);

/**
 * tier_pool_create() - a pool for a table, with its metadata loaded.
 * @tbl:    the parsed table (device count, options, settings).
 * @devs:   the table's tier devices, @tbl->nr_tiers of them.
 * @meta:   the table's metadata_dev, or NULL (the metadata is on tier 0).
 * @md:     the mapped device the table belongs to.
 * @worker: the work function of pool->worker (the target's worker).
 * @read_only: the table is read-only: the pool never writes (and metadata
 *          with ro_compat features this module does not know loads).
 * @error:  out; a static message for ti->error on failure.
 *
 * The pool is suspended (no periodic commit) until the caller resumes it;
 * migration and the memory tier are the caller's to add.
 *
 * Context: process, may sleep (reads all metadata).
 * Return: the pool (ref 1, not on tier_pools), or an ERR_PTR.
 */
struct tier_pool *tier_pool_create(const struct tier_table *tbl,
				   struct dm_dev *const *devs,
				   struct dm_dev *meta,
				   struct mapped_device *md, work_func_t worker,
				   bool read_only, char **error);

/**
 * tier_pool_disarm() - disarm and cancel the periodic commit for good
 * (teardown, step 1 of docs/ARCHITECTURE.md "Teardown").
 * @pool: the pool (also one whose creation failed part way).
 *
 * Context: process, may sleep; not on pool->wq.
 */
void tier_pool_disarm(struct tier_pool *pool);

/**
 * tier_pool_offq_fail_all() - close the offline queue and fail every write
 * in it with EIO (teardown: nothing may stay parked once the pool goes).
 * @pool: the pool.
 *
 * Context: process or any that may complete bios; takes pool->lock.
 * Return: how many writes were failed.
 */
u32 tier_pool_offq_fail_all(struct tier_pool *pool);

/**
 * tier_pool_offline_mask() - the tiers that are offline now, a bit each
 * (migration pauses only moves from or to them).
 * @pool: the pool.
 *
 * Context: any; reads the health atomics.
 * Return: bit i set when tier i is offline.
 */
u32 tier_pool_offline_mask(struct tier_pool *pool);

/**
 * tier_pool_noalloc_mask() - the tiers that take no new extents though
 * they may be online: evacuating or evacuated (pool->evac), held by a
 * loaded table without them (noalloc_hold), forgotten (forgotten).
 * @pool: the pool.
 *
 * Context: any; a snapshot (pool->lock held for a stable one).
 * Return: bit i set when tier i takes no new extents for those reasons.
 */
u32 tier_pool_noalloc_mask(struct tier_pool *pool);

/**
 * tier_pool_drain() - drain and destroy the workqueue (teardown, step 4:
 * after everything that queues work on it has stopped).
 * @pool: the pool, after tier_pool_disarm().
 *
 * Context: process, may sleep; not on pool->wq.
 */
void tier_pool_drain(struct tier_pool *pool);

/**
 * tier_pool_free() - free a pool drained by tier_pool_drain(), its events
 * closed (tier_pool_events_close()) and its migration state destroyed.
 * @pool: the pool.
 *
 * Context: process, may sleep.
 */
void tier_pool_free(struct tier_pool *pool);

/* ---- events ---------------------------------------------------------------- */

/**
 * struct tier_event_ops - where monitor events go (the netlink family).
 * @send: send the pool's pending events. Context: process (system_wq).
 * @gone: the pool's events are closed and its work cancelled: send the
 *        last ones (dev-del). Context: process, may sleep; caller does
 *        not hold tier_pools_mutex.
 */
struct tier_event_ops {
	void (*send)(struct tier_pool *pool);
	void (*gone)(struct tier_pool *pool);
};

/**
 * tier_pool_set_event_ops() - set the event sink, or none (NULL): events
 * are then dropped.
 * @ops: the sink; static, it must outlive every pool.
 *
 * Context: module init, before the target is registered, and module exit,
 * after it is unregistered (no pool exists).
 */
void tier_pool_set_event_ops(const struct tier_event_ops *ops);

/**
 * tier_pool_events_close() - the pool left the list: stop its events,
 * then hand it to the sink's @gone.
 * @pool: the pool, off tier_pools, its workqueue drained.
 *
 * Context: process, may sleep; caller does not hold tier_pools_mutex.
 */
void tier_pool_events_close(struct tier_pool *pool);

/* ---- the data path ------------------------------------------------------- */

/**
 * tier_wake_worker() - run the worker.
 * @pool: the pool.
 *
 * Context: any.
 */
void tier_wake_worker(struct tier_pool *pool);

/**
 * tier_job_alloc() - a zeroed job for @pool, without waiting.
 * @pool: the pool.
 *
 * GFP_NOWAIT: jobs are freed by the worker, so the worker (and the
 * migration tick, on the same ordered workqueue) must never wait for one.
 * On failure the caller requeues its work and retries once jobs in flight
 * ended (the worker) or at its next tick (migration).
 *
 * Context: any; never sleeps.
 * Return: the job, or NULL when the slab and the mempool's reserve are
 * both empty.
 */
struct tier_job *tier_job_alloc(struct tier_pool *pool);

/**
 * tier_job_free() - return a job to the pool's mempool.
 * @pool: the pool.
 * @job:  the job, off every list.
 *
 * Context: any.
 */
void tier_job_free(struct tier_pool *pool, struct tier_job *job);

/**
 * tier_job_start() - @job (its vext set) now changes its extent: it goes
 * into the index tier_job_find() and tier_range_busy() search, until
 * tier_job_end(); its completion puts it on pool->done meanwhile.
 * @pool: the pool.
 * @job:  the job; no other job may hold the same virtual extent.
 *
 * Context: under pool->lock.
 */
void tier_job_start(struct tier_pool *pool, struct tier_job *job);

/**
 * tier_job_end() - the job is over: the bios parked on it, and those on
 * pool->parked, go back to the worker; the job leaves its list and the
 * index. Bios parked on other jobs stay where they are, so a job's end
 * costs the worker only the bios that may now proceed.
 * @pool: the pool.
 * @job:  the job.
 *
 * Context: under pool->lock.
 */
void tier_job_end(struct tier_pool *pool, struct tier_job *job);

/**
 * tier_job_park() - @bio waits for the end of @owner, the job changing its
 * extent (tier_job_find()), or of any job when @owner is NULL.
 * @pool:  the pool.
 * @owner: the job, or NULL.
 * @bio:   the bio.
 *
 * Context: under pool->lock.
 */
void tier_job_park(struct tier_pool *pool, struct tier_job *owner,
		   struct bio *bio);

/**
 * tier_job_find() - the job changing virtual extent @v, from its start to
 * its end (its I/O running, on pool->done, or taken off done by the worker
 * that ends it).
 * @pool: the pool.
 * @v:    the virtual extent.
 *
 * Context: under pool->lock. Return: the job, or NULL. One hash bucket.
 */
struct tier_job *tier_job_find(struct tier_pool *pool, u64 v);

/**
 * tier_range_busy() - whether a job changes an extent in @first..@last.
 * @pool:  the pool.
 * @first: first virtual extent.
 * @last:  last virtual extent (>= @first).
 *
 * Context: under pool->lock. Return: true if one does. Looks up each
 * extent of the range or walks the jobs, whichever is fewer.
 */
bool tier_range_busy(struct tier_pool *pool, u64 first, u64 last);

/**
 * tier_switch_extent() - point @job's extent at @job->loc instead of
 * @job->src, free @job->src after the next commit, end the job.
 * @pool: the pool.
 * @job:  a REDIRECT or MIGRATE job whose data is at @job->loc.
 *
 * Context: the worker, under pool->lock.
 */
void tier_switch_extent(struct tier_pool *pool, struct tier_job *job);

/**
 * tier_quiesce_old_io() - wait until every bio remapped before now has
 * completed.
 * @pool:      the pool.
 * @expedited: use expedited RCU grace periods (faster, costs IPIs).
 *
 * Used before a freed physical extent is reused (commit) and before an
 * extent is copied (migration), so that no bio that read the map word
 * earlier still touches it. Two grace periods, one on each side of the
 * epoch advance (the argument is at the definition and in
 * docs/ARCHITECTURE.md "Locking").
 *
 * Context: process, may sleep; runs on pool->qwq (a release, a migration
 * batch), so that the worker and the flushes behind it do not wait for a
 * slow tier's bios; takes quiesce_lock, so one runs at a time: this is the
 * only place that advances the I/O epoch.
 */
void tier_quiesce_old_io(struct tier_pool *pool, bool expedited);

/**
 * tier_health_of() - a tier's health now.
 * @pool: the pool.
 * @tier: the tier, < nr_tiers.
 *
 * Context: any.
 */
static inline enum tier_health tier_health_of(struct tier_pool *pool, u32 tier)
{
	return (enum tier_health)atomic_read(&pool->health[tier]);
}

/**
 * tier_offline() - whether a tier is offline: its extents are not read or
 * written (EIO, a memory copy or a redirect), it takes no new extents and
 * no migration, commits do not flush it.
 * @pool: the pool.
 * @tier: the tier, < nr_tiers.
 *
 * Context: any (map()).
 */
static inline bool tier_offline(struct tier_pool *pool, u32 tier)
{
	return tier_health_of(pool, tier) == TIER_HEALTH_OFFLINE;
}

/**
 * tier_mark_written() - a write, zeroing or copy to @tier completed: the
 * next flush of the pool must flush the tier.
 * @pool: the pool.
 * @tier: the tier, < nr_tiers.
 *
 * Called at completion, before the completion is passed on, so that a
 * flush issued after it clears the bit only to flush the tier.
 *
 * Context: any (bio completion, irq).
 */
static inline void tier_mark_written(struct tier_pool *pool, u32 tier)
{
	if (!test_bit(tier, &pool->flush_dirty))
		set_bit(tier, &pool->flush_dirty);
}

/**
 * tier_note_acked() - a write in place to @tier completed successfully and
 * is acknowledged upwards: until a flush of the tier succeeds, losing the
 * tier loses it (acked_dirty). Call before tier_mark_written(): a flush
 * that clears flush_dirty after this then also sees the bit.
 * @pool: the pool.
 * @tier: the tier, < nr_tiers.
 *
 * Context: any (bio completion, irq).
 */
static inline void tier_note_acked(struct tier_pool *pool, u32 tier)
{
	if (!test_bit(tier, &pool->acked_dirty)) {
		set_bit(tier, &pool->acked_dirty);
		smp_mb__after_atomic(); /* before flush_dirty is set */
	}
}

/**
 * tier_pool_acked_lost() - @tier can no longer make its acknowledged writes
 * durable (its flush failed, or it went offline): if it has any
 * (acked_dirty), the next REQ_PREFLUSH fails (writes_lost), and the log
 * says why.
 * @pool: the pool.
 * @tier: the tier, < nr_tiers.
 * @why:  what happened, for the log.
 *
 * Context: any (bio completion, irq); never sleeps.
 */
void tier_pool_acked_lost(struct tier_pool *pool, u32 tier, const char *why);

/**
 * tier_pool_take_writes_lost() - whether writes may have been lost since
 * the last call that said so; true once per loss.
 * @pool: the pool.
 *
 * Context: the worker, for a batch that carries a REQ_PREFLUSH.
 * Return: true when the flush must fail with EIO.
 */
static inline bool tier_pool_take_writes_lost(struct tier_pool *pool)
{
	return atomic_read(&pool->writes_lost) &&
	       atomic_xchg(&pool->writes_lost, 0);
}

/**
 * tier_flush_before_publish() - whether data written to @tier must be
 * flushed before a mapping to it is published: every data tier, that is
 * every tier but the one the metadata lives on (whose data the commit's
 * superblock PREFLUSH covers).
 * @pool: the pool.
 * @tier: the tier, < nr_tiers.
 *
 * Context: any.
 */
static inline bool tier_flush_before_publish(struct tier_pool *pool, u32 tier)
{
	return tier || pool->meta_ext;
}

/**
 * tier_note_io_ok() - an I/O to @tier succeeded: the run of consecutive
 * errors (TIER_OFFLINE_ERRORS) starts again.
 * @pool: the pool.
 * @tier: the tier, < nr_tiers.
 *
 * Context: any (bio completion, irq).
 */
static inline void tier_note_io_ok(struct tier_pool *pool, u32 tier)
{
	if (atomic_read(&pool->err_run[tier]))
		atomic_set(&pool->err_run[tier], 0);
}

/**
 * tier_note_tier_event() - feed a tier's health state machine
 * (tier_health_next()); each change is logged and queues one tier-error
 * (worse) or tier-recovered (better) event.
 * @pool: the pool.
 * @tier: the tier, < nr_tiers.
 * @ev:   what happened.
 *
 * Context: any (bio completion, irq); never sleeps.
 * Return: the health before the event.
 */
enum tier_health tier_note_tier_event(struct tier_pool *pool, u32 tier,
				      enum tier_health_event ev);

/**
 * tier_note_io_error() - count a failed I/O of a tier: a path error
 * (BLK_STS_TRANSPORT, BLK_STS_OFFLINE) or the TIER_OFFLINE_ERRORS-th error
 * in a row takes a data tier offline, any other error makes it degraded.
 * @pool:   the pool.
 * @tier:   the tier, < nr_tiers.
 * @status: the bio's status (BLK_STS_IOERR when unknown).
 *
 * Context: any (bio completion, irq).
 */
void tier_note_io_error(struct tier_pool *pool, u32 tier, blk_status_t status);

/**
 * tier_tier_recover() - probe a tier with a cache flush and, when it
 * succeeds, declare it ok again (tier-recovered when it was not).
 * @pool: the pool, pinned (tier_pool_pin()) or held by a live table.
 * @tier: the tier, as the caller found it under tier_pools_mutex.
 * @dev:  its device then (pool->tier_dev_id[@tier]): a table reload that
 *        changed the tier list or re-bound the tier meanwhile is refused,
 *        not probed under another tier's number.
 * @recovered: called under pool->md_lock (the tier list holds) when the
 *        probe succeeded: what the layers above keep per tier
 *        (tier_mig_tier_recovered()).
 * @err:  out on failure; a static message (extack).
 *
 * The flush also makes durable what was written to the tier before it
 * failed, so its pending mappings may be committed again. The worker is
 * woken: writes parked for the tier (offline_queue_s) are issued again.
 * The tiers' no-new-extents marks are resynced (tier_pool_sync_noalloc()).
 * The probe is two flushes: the first without md_lock, waited for at most
 * TIER_PROBE_WAIT_S (a path that still hangs, a suspended dm device or an
 * NVMe-oF controller reconnecting, fails the request and holds nothing:
 * the pool's commits, its suspend and its reloads go on); once the path
 * answers, the second under md_lock, as a commit's flush, for the tier's
 * dirty bits. A suspended device is refused (EBUSY): its resume may
 * re-bind the tier under tier_pools_mutex, which then must not wait for
 * this flush.
 *
 * Context: process, may sleep; caller does not hold tier_pools_mutex
 * (the flush may wait on a hung path); takes pool->md_lock, then
 * pool->lock.
 * Return: 0; -EBUSY (device suspended, or the tier changed); -ETIMEDOUT
 * (no answer in TIER_PROBE_WAIT_S); -EINTR (a fatal signal); -ENOMEM; or
 * the flush's error: the tier keeps its state.
 */
int tier_tier_recover(struct tier_pool *pool, u32 tier, dev_t dev,
		      void (*recovered)(struct tier_pool *pool, u32 tier),
		      const char **err);

/**
 * tier_pool_flush_tiers() - flush the tiers of @mask written since their
 * last flush (clear the bit, flush, set it again on failure: the tier then
 * goes offline, or degraded if it holds the metadata).
 * @pool: the pool.
 * @mask: bit per tier.
 *
 * Before a mapping into a data tier is published: its data must be durable
 * there first, so that no commit ever makes durable a mapping to data that
 * is not (docs/ARCHITECTURE.md "Faults").
 *
 * Context: process, may sleep; caller holds pool->md_lock.
 * Return: the tiers of @mask that could not be flushed: failed now, or
 * offline (not tried).
 */
unsigned long tier_pool_flush_tiers(struct tier_pool *pool, unsigned long mask);

/**
 * tier_pool_sync_noalloc() - offline tiers and those of
 * tier_pool_noalloc_mask() (evacuating, held, forgotten) take no new
 * extents (TIER_ALLOC_F_NOALLOC), the others do again.
 * @pool: the pool.
 *
 * Context: under pool->lock, before an allocation.
 */
void tier_pool_sync_noalloc(struct tier_pool *pool);

/**
 * tier_pool_hold_tier() - keep an empty tier from taking extents from now
 * on: a table without it was loaded (tierctl remove-tier), and it must
 * still be empty when that table resumes. Undone by
 * tier_pool_release_tier().
 * @pool:  the pool.
 * @tier:  the tier to remove (tier 0 only when tier 1 takes its place).
 * @owner: the holder (the table's context), which releases it by that.
 * @err:   out; a static message for ti->error.
 *
 * Context: caller holds pool->lock.
 * Return: 0; -EBUSY when the tier holds extents or some are being
 * prepared or moved there, or it is held already.
 */
int tier_pool_hold_tier(struct tier_pool *pool, u32 tier, const void *owner,
			char **err);

/**
 * tier_pool_release_tier() - undo tier_pool_hold_tier() (the table without
 * the tier was destroyed without resuming): the tier @owner holds, at
 * whatever index a tier-list change resumed since has moved it to.
 * @pool:  the pool.
 * @owner: the holder given to tier_pool_hold_tier().
 *
 * Context: process; takes pool->lock.
 */
void tier_pool_release_tier(struct tier_pool *pool, const void *owner);

/**
 * tier_pool_add_tier() - insert a tier at @pos (@pos = count appends):
 * commit the superblock with the longer tier list and the map renumbered
 * (tier_md_commit_tiers()), then use it in memory: every per-tier piece of
 * the tiers from @pos on moves up by one (tier_pool_tiers_shift()), the new
 * tier gets its device, allocator (prepared by the caller), data area and
 * class, health ok, no counts. New allocations and migration may use it
 * from the resume. The caller restarts the migration plan
 * (tier_mig_tiers_changed()).
 * @pool:   the pool.
 * @pos:    1..nr_tiers.
 * @dev:    its device (the resuming table holds it).
 * @rec:    its superblock record (tier_md_check_new_tier()).
 * @alloc:  its allocator, sized for @rec; moved into the pool on success
 *          (zeroed), left to the caller on failure.
 * @follow: optional; state of an upper layer that names tiers by index
 *          (the target passes tier_mig_tiers_renumber(): the move queue)
 *          follows, called under pool->lock in the section that shifts
 *          the per-tier state and sets nr_tiers (only after the commit
 *          succeeded), with @pos and the count before the change.
 *
 * Context: process, may sleep; the device is suspended (postsuspend ran),
 * at preresume under tier_pools_mutex; takes pool->md_lock, then
 * pool->lock.
 * Return: 0; -EROFS (read-only activation, metadata not rw); -EBUSY (the
 * list is full or @pos out of range); the commit's error (the list and
 * the map are unchanged).
 */
int tier_pool_add_tier(struct tier_pool *pool, u32 pos, struct dm_dev *dev,
		       const struct tier_sb_tier *rec, struct tier_alloc *alloc,
		       void (*follow)(struct tier_pool *pool, bool insert,
				      u32 pos, u32 old_n));

/**
 * tier_pool_remove_tier() - drop tier @pos, held empty by
 * tier_pool_hold_tier(): commit the superblock with the shorter list and
 * the map renumbered, then forget it in memory (allocator freed); the
 * tiers after it move down by one with all their state. The caller
 * refuses while a queued move targets the tier (tier_mig_list_blocker())
 * and restarts the migration plan.
 * Removing tier 0 makes tier 1 tier 0; without a metadata device the
 * metadata moves to it (tier_md_commit_tiers()) and it becomes the pool's
 * key (@pool->meta_dev_id), so the table that names it as tier 0 finds
 * this pool from now on.
 * @pool:   the pool.
 * @pos:    0..nr_tiers - 1.
 * @owner:  the table that holds it (tier_pool_hold_tier()): a hold at @pos
 *          that is another's is refused, never a tier removed by a stale
 *          index.
 * @follow: as for tier_pool_add_tier().
 *
 * Context: as tier_pool_add_tier().
 * Return: 0; -EROFS; -EBUSY (not held by @owner, or extents appeared on
 * it); the commit's error (the list and the map are unchanged).
 */
int tier_pool_remove_tier(struct tier_pool *pool, u32 pos, const void *owner,
			  void (*follow)(struct tier_pool *pool, bool insert,
					 u32 pos, u32 old_n));

/**
 * struct tier_resize - a resize prepared by a table's constructor and
 * applied at its preresume (docs/ARCHITECTURE.md "Resize").
 * @virt:         the new virtual size in extents.
 * @grow:         tiers whose device grew by at least one extent.
 * @rec:          per tier, its record on the grown device (as the
 *                superblock's for the others).
 * @alloc:        for the tiers in @grow, an allocator of the new size.
 * @map_change:   @virt differs from the pool's: @map and @heat_touched.
 * @map:          a map of @virt extents.
 * @heat_touched: heat bits for @map's blocks.
 */
struct tier_resize {
	u64 virt;
	unsigned long grow;
	struct tier_sb_tier rec[TIER_MAX_TIERS];
	struct tier_alloc alloc[TIER_MAX_TIERS];
	bool map_change;
	struct tier_map map;
	unsigned long *heat_touched;
};

/**
 * tier_pool_resize_prepare() - what a reloaded table changes in size: the
 * tiers whose device is now larger than the superblock records (by at
 * least one extent; a smaller device is left alone: the kernel never
 * truncates, tierctl refuses), and the virtual size @virt when it differs.
 * Allocates what the switch needs (it may sleep and fail). While the
 * metadata is not writable (tier_pool_md_writable()) a grown tier is left
 * at its recorded size, with a warning, rather than refused: the resume
 * could not commit it.
 * @pool:  the pool.
 * @devs:  the table's tier devices (nr_tiers of the pool).
 * @skip:  tiers not to grow (re-bound in the same table).
 * @virt:  the table's virtual size in extents.
 * @rz:    out; free with tier_pool_resize_free().
 * @error: out; a static message for ti->error.
 *
 * Context: process, may sleep; at table load; takes pool->md_lock and
 * pool->lock.
 * Return: 1 when something changes, 0 when nothing does; -EROFS
 * (read-only, or a new @virt while the metadata is not writable), -ENOSPC
 * (@virt beyond tier_sb_max_virt()), -EBUSY (a shrink below mapped
 * extents), -ENOMEM.
 */
int tier_pool_resize_prepare(struct tier_pool *pool, struct dm_dev *const *devs,
			     unsigned long skip, u64 virt,
			     struct tier_resize *rz, char **error);

/**
 * tier_pool_md_writable() - whether the metadata can be committed now: a
 * read-write activation whose metadata mode is rw (not ro or fail).
 * @pool: the pool.
 *
 * Context: any; reads pool->mode once (it changes under pool->lock).
 * Return: true when writable.
 */
bool tier_pool_md_writable(struct tier_pool *pool);

/**
 * tier_pool_growth_deferred() - log that a grown tier stays at its recorded
 * size because the metadata is not writable (tier_pool_md_writable()).
 * @pool: the pool.
 *
 * Context: any.
 */
void tier_pool_growth_deferred(struct tier_pool *pool);

/**
 * tier_pool_resize() - apply a prepared resize: commit the superblock with
 * the grown tier records and the new virtual size
 * (tier_md_commit_resize(), the map of the new size written with it),
 * then switch: map, heat bits and virtual size, grown allocators.
 * @pool: the pool.
 * @rz:   from tier_pool_resize_prepare(); what was switched out is left
 *        in it for tier_pool_resize_free().
 *
 * Context: process, may sleep; the device is suspended (postsuspend ran),
 * at preresume under tier_pools_mutex; takes pool->md_lock, then
 * pool->lock (the map is copied under it: suspended, only netlink and
 * messages, which it excludes, touch it).
 * Return: 0; -EROFS; -EBUSY (extents mapped beyond a new end meanwhile);
 * the commit's error (nothing changed).
 */
int tier_pool_resize(struct tier_pool *pool, struct tier_resize *rz);

/**
 * tier_pool_resize_free() - free what tier_pool_resize_prepare()
 * allocated, or what tier_pool_resize() switched out.
 * @rz: the resize; zeroed.
 *
 * Context: process.
 */
void tier_pool_resize_free(struct tier_resize *rz);

/**
 * tier_tier_ok() - whether a tier's state is "ok". Every other state
 * (degraded today) counts as not ok: forget-tier needs one.
 * @pool: the pool.
 * @tier: the tier, < nr_tiers.
 *
 * Context: any.
 */
bool tier_tier_ok(struct tier_pool *pool, u32 tier);

/**
 * tier_forget_tier_range() - unmap the extents of first..last that live on
 * @tier, a tier lost for good (forget-tier): reads of them return zeroes,
 * and their physical extents return to @tier after the next commit, as
 * for a discard. Extents being moved (TIER_MW_BUSY) are left alone.
 * @pool:  the pool.
 * @tier:  the lost tier, < nr_tiers.
 * @first: first virtual extent.
 * @last:  last virtual extent, >= @first, < virt_extents.
 * @gen:   pool->suspend_gen when the caller checked @tier, @first, @last
 *         (and that the device was not suspended).
 * @busy:  out; extents of @tier left alone because a job owns them.
 * @stopped: out; the device was suspended since @gen (a resume may have
 *         changed the tier list or the size), or @tier is ok again (a
 *         tier-recover meanwhile): the range was left unfinished.
 * @unmapped: called for each extent unmapped, under pool->lock (IRQs off),
 *         before the worker can map it again: drops what else holds its
 *         old contents (the memory tier's copy).
 *
 * Each batch holds pool->md_lock, so no commit runs between its reading of
 * the used counts and its copy of the map (they would disagree on disk).
 * Without tier_pools_mutex (netlink's tier-forget), a table reload may
 * renumber the tiers or shrink the map between two batches; it suspends
 * the device first, and each batch checks @gen under md_lock.
 *
 * Context: process, may sleep; takes pool->md_lock, then pool->lock, per
 * batch; neither held by the caller.
 * Return: the number of extents unmapped.
 */
u64 tier_forget_tier_range(struct tier_pool *pool, u32 tier, u64 first,
			   u64 last, unsigned int gen, u64 *busy, bool *stopped,
			   void (*unmapped)(struct tier_pool *pool,
					    struct tier_vext v));

/**
 * tier_pool_uses_bdev() - whether @bdev is the device the pool uses as tier
 * @tier: the same block_device, not only the same dev_t. A device removed
 * and created again under its number (a dm minor is reused at once) is a
 * new block_device, while the pool's reference keeps the old one.
 * @pool: the pool.
 * @tier: the tier, < nr_tiers.
 * @bdev: a table's device.
 *
 * Context: any; the tier list does not change meanwhile (tier_pools_mutex,
 * or a table that holds the pool).
 */
static inline bool tier_pool_uses_bdev(const struct tier_pool *pool, u32 tier,
				       const struct block_device *bdev)
{
	return pool->tier_bdev[tier] == bdev;
}

/**
 * tier_pool_rebind() - tier @tier's member is now @dev: the same label
 * under another device (a reconnected NVMe-oF namespace with a new name),
 * accepted by tier_md_check_member(). Nothing is copied; I/O, commits,
 * migration and the memory tier use @dev from now on.
 * @pool: the pool.
 * @tier: the tier, 1..nr_tiers-1 (tier 0 identifies the pool).
 * @dev:  the new table's device; the pool takes a reference on it and
 *        drops the one on the device it replaces.
 *
 * Context: process, may sleep; the device is suspended (postsuspend ran:
 * no map(), worker, commit, migration or fill), at resume under
 * tier_pools_mutex; takes pool->md_lock, then pool->lock.
 */
void tier_pool_rebind(struct tier_pool *pool, u32 tier, struct dm_dev *dev);

/* ---- commits and metadata mode ------------------------------------------- */

/**
 * tier_pool_commit() - make the current map durable: flush the data tiers
 * written since their last flush, then tier_md_commit().
 * @pool: the pool.
 *
 * Captures the change count, the heat due and the per-tier mapped counts,
 * and starts the allocators' commit; on success, extents freed before the
 * commit began become reusable once all I/O issued before the commit has
 * completed (tier_pool_release_frees(): asynchronously). A data tier
 * whose flush fails goes offline; the commit goes on (no mapping waits for
 * a data tier's flush). A failure of the metadata device moves the mode
 * along tier_md_mode_next(); a success in read-only mode returns it to
 * read-write.
 *
 * Context: process, may sleep; caller holds pool->md_lock and is the worker
 * (or the pool is suspended), so the map does not change meanwhile: the
 * tier flushes cover every mapping the commit captures.
 * Return: 0, -EIO when nothing was committed, or -EROFS, writing nothing,
 * when the pool is activated read-only.
 */
int tier_pool_commit(struct tier_pool *pool);

/**
 * tier_pool_sync_durable() - what a PREFLUSH needs: commit when the map is
 * dirty, else flush the tiers written since their last flush; what waits
 * for it may complete on return.
 * @pool:   the pool.
 * @frees:  out: the commit that just reached the disk freed extents: call
 *          tier_pool_release_frees() before dropping md_lock, after
 *          submitting what waited for the commit.
 * @failed: out: the data tiers whose flush failed during this call (they
 *          went offline). Only a PREFLUSH fails for them, once (later ones
 *          skip the offline tier): a FUA write or a first write waiting for
 *          the commit promises only itself, so a failing tier it does not
 *          use is none of its business.
 *
 * Context: as tier_pool_commit(), md_lock held.
 * Return: 0 when the map is durable (the commit, if one was needed, is on
 * disk); -EIO when the commit failed or the pool is in fail mode; -EROFS
 * when the pool is activated read-only and the map is dirty.
 */
int tier_pool_sync_durable(struct tier_pool *pool, bool *frees,
			   unsigned long *failed);

/**
 * tier_pool_release_frees() - the second half of a commit that freed
 * extents (tier_pool_sync_durable()): queue their release on pool->qwq,
 * where they become allocatable once no bio of the old I/O epoch can still
 * reach them (tier_quiesce_old_io()). Until then, extents freed later stay
 * pending for the commit after, and first writes that find no room wait in
 * pool->release_wait; neither the worker nor the flushes behind it wait for
 * the old epoch's bios (a slow tier's reads).
 * @pool: the pool.
 *
 * Context: process; md_lock held, the same hold as the commit, and every
 * bio the worker remapped so far is counted; takes pool->lock.
 */
void tier_pool_release_frees(struct tier_pool *pool);

/**
 * tier_pool_release_flush() - wait until the releases queued so far (and a
 * migration batch's quiesce) have run: what a commit freed is free.
 * @pool: the pool.
 *
 * Context: process, may sleep; no pool lock held (a release takes
 * pool->lock and quiesce_lock).
 */
void tier_pool_release_flush(struct tier_pool *pool);

/**
 * tier_request_commit() - ask the worker for a commit (as the "commit"
 * message does), without waiting for it.
 * @pool: the pool.
 *
 * Context: any but hard irq; takes pool->lock.
 */
void tier_request_commit(struct tier_pool *pool);

/**
 * tier_set_mode() - change the metadata mode and tell userspace with a dm
 * event and mode-change; fail is never left.
 * @pool: the pool.
 * @mode: the new mode.
 * @why:  reason for the log line.
 *
 * Context: process, may sleep: dm_table_event() takes a mutex. Called by
 * commits (worker, periodic commit, postsuspend); takes pool->lock.
 */
void tier_set_mode(struct tier_pool *pool, enum tier_md_mode mode,
		   const char *why);

/**
 * tier_pool_heat_capture() - mark the map blocks whose heat changed dirty,
 * so the commit being prepared writes them.
 * @pool: the pool.
 *
 * Context: commit, under pool->lock.
 */
void tier_pool_heat_capture(struct tier_pool *pool);

/**
 * tier_pool_heat_due() - whether heat changes alone warrant a commit now.
 * @pool: the pool.
 *
 * Context: any.
 */
bool tier_pool_heat_due(struct tier_pool *pool);

/* ---- flags, names, stats --------------------------------------------------- */

/**
 * tier_set_pinned() - set or clear TIER_EXT_F_PINNED on the mapped extents
 * first..last; the next commit persists it.
 * @pool:  the pool.
 * @first: first virtual extent.
 * @last:  last virtual extent, >= @first, < virt_extents.
 * @pin:   set (true) or clear.
 * @mapped: out; the mapped extents of the range.
 *
 * Context: process, may sleep between batches; takes pool->lock.
 * Return: the number of extents whose flag changed.
 */
u64 tier_set_pinned(struct tier_pool *pool, u64 first, u64 last, bool pin,
		    u64 *mapped);

/**
 * tier_set_ext_flags() - change TIER_EXT_F_* flags of the mapped extents
 * first..last; the next commit persists them.
 * @pool:   the pool.
 * @first:  first virtual extent.
 * @last:   last virtual extent, >= @first, < virt_extents.
 * @set:    flags to set.
 * @clear:  flags to clear.
 * @mapped: out; the mapped extents of the range.
 *
 * Context: process, may sleep between batches; takes pool->lock.
 * Return: the number of extents whose word changed.
 */
u64 tier_set_ext_flags(struct tier_pool *pool, u64 first, u64 last, u32 set,
		       u32 clear, u64 *mapped);

/**
 * tier_pool_dm_name() - the device-mapper name (/dev/mapper/NAME) of the
 * pool's device now, as dmsetup rename last set it; also kept in
 * @pool->name for notifications.
 * @pool: the pool.
 * @name: out, DM_NAME_LEN bytes.
 *
 * Context: process, under tier_pools_mutex (takes device-mapper's name
 * lock for reading).
 * Return: 0, or -ENODEV when the device has no live table (loaded but
 * never resumed, or being removed).
 */
int tier_pool_dm_name(struct tier_pool *pool, char *name);

/**
 * tier_pool_stats_begin() - zero @st and add the per-cpu counters: the
 * first part of a snapshot (tier_stats_get()).
 * @pool: the pool.
 * @st:   out.
 *
 * Context: any.
 */
void tier_pool_stats_begin(struct tier_pool *pool, struct tier_stats *st);

/**
 * tier_pool_stats_locked() - add the counters under pool->lock.
 * @pool: the pool.
 * @st:   out.
 *
 * Context: caller holds pool->lock (irqs off).
 */
void tier_pool_stats_locked(struct tier_pool *pool, struct tier_stats *st);

/**
 * tier_pool_stats_end() - add the tier health; the last part.
 * @pool: the pool.
 * @st:   out; its memory-tier part filled.
 *
 * Context: any.
 */
void tier_pool_stats_end(struct tier_pool *pool, struct tier_stats *st);

#endif /* DM_TIER_POOL_H */
