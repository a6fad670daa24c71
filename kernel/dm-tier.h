/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm-tier.h - internal interfaces between the target (mechanism,
 * dm-tier-target.c), the metadata layer (dm-tier-metadata.c), migration
 * (dm-tier-migrate.c) and the netlink family (dm-tier-netlink.c).
 *
 * Locking (see docs/ARCHITECTURE.md "Locking"):
 *  - tier_pools_mutex: the global list of pools, refcounts, pool->ti, the
 *    cached names, the active table's settings; ctr/dtr/resume, the "set"
 *    message, netlink operations and the event work. Never held across I/O.
 *  - pool->md_lock (mutex): loading and committing metadata; taken by the
 *    worker, the periodic commit and postsuspend, never on the I/O path.
 *  - pool->lock (spinlock, irq-safe): map and allocator updates, bio lists,
 *    busy extents, counters that are not per-cpu. Never held across I/O.
 *  - map() reads map words locklessly (READ_ONCE of one u64 per extent);
 *    every writer of a map word (the worker, the migration tick, netlink
 *    pin/unpin) holds pool->lock.
 *  - the memory tier's lock (spinlock, irq-safe, dm-tier-memtier.c): its
 *    slot table and fill ring; taken in map(), bio completion, the fill
 *    work and under pool->lock (status), never the other way round; never
 *    held across I/O, allocation or the hit path's copy.
 */
#ifndef DM_TIER_H
#define DM_TIER_H

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <linux/dm-ioctl.h>
#include <linux/dm-io.h>
#include <linux/list.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <uapi/linux/dm-tier.h>

#include "core/tier-internal.h"
#include "core/format.h"
#include "core/extent_map.h"
#include "core/alloc.h"
#include "core/table.h"
#include "core/policy.h"
#include "core/units.h"
#include "core/memtier.h"

struct dm_kcopyd_client;

#define DM_MSG_PREFIX "tier"

/* Metadata health; only ever moves down (write -> read-only -> fail). */
enum tier_md_mode {
	TIER_MODE_WRITE, /* normal */
	TIER_MODE_READ_ONLY, /* a commit failed: no new extents, no discard */
	TIER_MODE_FAIL, /* a commit failed again: all I/O fails */
};

/* What a struct tier_job does. */
enum tier_job_kind {
	TIER_JOB_PREPARE, /* unmapped extent: first write or zeroing */
	TIER_JOB_REDIRECT, /* whole-extent write moved to a fresh tier-0 extent */
	TIER_JOB_MIGRATE, /* copy to another tier (dm-tier-migrate.c) */
};

/*
 * An extent the worker is changing. PREPARE: allocated but not yet in the
 * map, because its first write (which covers it whole) or its zeroing has
 * not completed. REDIRECT and MIGRATE: mapped at @src with TIER_MAPW_BUSY
 * set; reads go to @src, writes wait. In every case other bios for the
 * extent wait ("parked") until the job ends.
 */
struct tier_job {
	struct list_head list; /* pool->busy, then pool->done */
	struct tier_pool *pool;
	struct tier_vext vext;
	struct tier_loc loc; /* destination */
	struct tier_loc src; /* REDIRECT, MIGRATE: where the data is now */
	struct bio *bio; /* PREPARE, REDIRECT: the write, hooked */
	enum tier_job_kind kind;
	bool manual; /* MIGRATE: asked for by a "migrate" message */
	blk_status_t status;
};

/* Migration state (dm-tier-migrate.c); fields under pool->lock unless noted. */
struct tier_mig {
	struct tier_policy_cfg cfg; /* settings; map() reads single fields */
	struct tier_policy_plan plan; /* tick only */
	struct tier_policy_cfg tick_cfg; /* tick only: cfg of the last tick */
	struct dm_kcopyd_client *kc;
	struct delayed_work tick; /* on pool->wq */
	bool running; /* tick armed (resume..postsuspend); pool->lock */
	wait_queue_head_t idle_wait; /* inflight reached 0 */

	/* Candidates of the last scan, sorted; tick only. */
	struct tier_work *cand;
	u32 nr_cand;
	u32 cand_pos;
	unsigned long scan_j;

	u32 inflight; /* copies in flight */
	u64 out[TIER_MAX_TIERS]; /* copies in flight away from each tier */

	/* An explicit "migrate" request: extents next..last to @man_tier. */
	bool man_active;
	u64 man_next;
	u64 man_last;
	u32 man_tier;
	u32 man_inflight;
	bool man_notify; /* migration-done when the request is over */

	/* Pacing; tick only except fg_alloc_j (worker, under lock). */
	struct tier_pace pace;
	s64 tokens; /* bytes the bandwidth cap allows now */
	unsigned long tick_j;
	unsigned long fg_alloc_j; /* tier 0 last grew by a foreground write */
	u64 fg_ios; /* foreground I/O count at the last tick */
	unsigned long fg_seen_j; /* when that count last changed */
	bool fg_busy;

	/* Counters since activation. */
	u64 promotions;
	u64 demotions;
	u64 moved_bytes;
	u64 errors;
	u64 above_high_ms;

	/* Heat clock: seconds since the superblock's ctime. */
	u32 clock_base;
	unsigned long clock_j;
	/* Map blocks whose heat changed since the last commit (atomic bits). */
	unsigned long *heat_touched;
	bool heat_dirty;
	bool heat_flush; /* the next commit writes heat even if not due */
	unsigned long heat_commit_j;
};

struct tier_pcpu_stats {
	u64 reads[TIER_MAX_TIERS];
	u64 writes[TIER_MAX_TIERS];
	u64 mem_hits; /* reads served by the memory tier */
	u64 mem_misses; /* reads of mapped extents it did not serve */
};

struct tier_memtier; /* dm-tier-memtier.c */

/*
 * Events for the netlink "monitor" group (enum dm_tier_event). Recorded in
 * any context as one bit per (event, tier) in tier_pool.ev_pending and sent
 * later from process context (dm-tier-netlink.c). Events that concern no
 * tier use tier 0's bit.
 */
#define TIER_EV_MAX 9 /* DM_TIER_EVENT_NEAR_FULL, the highest event */
#define TIER_EV_BITS ((TIER_EV_MAX + 1) * TIER_MAX_TIERS)

/* A snapshot of a pool's counters: what status and dev-get show. */
struct tier_stats {
	enum tier_md_mode mode;
	u64 commits;
	u64 mapped;
	u64 nospc_errors;
	struct {
		u64 total;
		u64 used;
		u64 mapped;
		u64 reads;
		u64 writes;
		u64 io_errors;
		bool degraded;
	} tier[TIER_MAX_TIERS];
	u64 promotions;
	u64 demotions;
	u64 moved_bytes;
	u64 mig_errors;
	u64 above_high_ms;
	u64 man_pending;
	u32 mig_inflight;
	enum tier_pace_mode pace;
	/* The memory tier; all 0 (mem false) without one. */
	bool mem;
	u32 mem_node;
	u32 mem_size_mb;
	u64 mem_slots; /* extents it can hold */
	u64 mem_bytes_max;
	u64 mem_bytes_used;
	u64 mem_copies;
	u64 mem_hits;
	u64 mem_misses;
	u64 mem_fills;
	u64 mem_evictions;
	u64 mem_invalidations;
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
	 * The one mapped device whose tables may use the pool (reloads), set
	 * by the first table; valid while the pool lives, since its tables
	 * hold the pool. tier_pools_mutex.
	 */
	struct mapped_device *md;
	struct list_head targets; /* the tables' targets; tier_pools_mutex */
	dev_t meta_dev_id;

	/* Geometry, fixed once loaded. */
	u32 nr_tiers;
	u32 extent_shift;
	sector_t extent_sectors;
	u64 virt_extents;
	dev_t tier_dev_id[TIER_MAX_TIERS];
	struct block_device *tier_bdev[TIER_MAX_TIERS];
	sector_t data_start[TIER_MAX_TIERS];
	struct block_device *meta_bdev;
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

	/* Tier health (end_io): errors counted, degraded until tier-recover. */
	atomic64_t io_errors[TIER_MAX_TIERS];
	unsigned long degraded; /* bit per tier; atomic bitops */
	unsigned long near_full; /* bit per tier above 95%; atomic bitops */

	/* Pending monitor events (atomic bits) and the work that sends them. */
	DECLARE_BITMAP(ev_pending, TIER_EV_BITS);
	struct work_struct ev_work;

	/* Metadata; md_lock. */
	struct mutex md_lock;
	struct tier_sb sb; /* last committed superblock */
	struct dm_io_client *io_client;
	void *md_buf; /* TIER_MD_BUF_BLOCKS blocks */
	u64 commits; /* commits done since activation */

	/* Mapping state; lock. */
	spinlock_t lock;
	struct tier_map map;
	struct tier_alloc alloc[TIER_MAX_TIERS];
	u64 mapped[TIER_MAX_TIERS]; /* extents the map points at */
	/*
	 * The map is dirty while change_seq != durable_seq: change_seq counts
	 * map changes (bumped before a new mapping becomes visible), and a
	 * successful commit sets durable_seq to the count it captured.
	 */
	u64 change_seq;
	u64 durable_seq;
	bool commit_requested; /* by a message; the worker commits */
	enum tier_md_mode mode;
	struct bio_list deferred; /* bios for the worker */
	struct bio_list parked; /* waiting for a busy extent */
	struct list_head busy; /* struct tier_job being prepared */
	struct list_head done; /* jobs whose write completed */
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

	struct tier_pcpu_stats __percpu *stats;

	struct workqueue_struct *wq; /* ordered: worker and commits */
	struct work_struct worker;
	struct delayed_work commit_work;
	struct delayed_work retry_work; /* wakes the worker: no job was left */
	unsigned int commit_interval_ms;
	bool periodic; /* periodic commits armed; pool->lock */
	bool suspended; /* postsuspend..resume: no commit; pool->lock */
	struct dm_target *ti; /* the active table's target */

	struct tier_mig mig;

	/*
	 * The memory tier, or NULL. Replaced only at resume (the device is
	 * suspended: no map()) under tier_pools_mutex and pool->lock, so
	 * map() and completions read it with READ_ONCE, status under
	 * pool->lock, netlink under tier_pools_mutex.
	 */
	struct tier_memtier *mem;
};

#define TIER_MD_BUF_BLOCKS 256 /* 1 MiB staging buffer for map I/O */
#define TIER_JOB_RETRY_MS 10 /* worker retry after no job could be had */

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
 * tier_event() - record a monitor event; dm-tier-netlink.c sends it later
 * from process context (once per pending (event, tier) pair).
 * @pool:  the pool.
 * @event: enum dm_tier_event.
 * @tier:  the tier it concerns; 0 for device-wide events.
 *
 * Does nothing before the pool's first resume (dev-new) or once its
 * teardown began. The check and the queueing form one RCU read section:
 * tier_nl_pool_gone() closes events, waits for a grace period, and only
 * then cancels the work, so no caller can queue it after the cancel.
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
		queue_work(system_wq, &pool->ev_work);
	}
	rcu_read_unlock();
}

/* ---- dm-tier-metadata.c ------------------------------------------------ */

/**
 * tier_md_load() - read labels, superblock and map; fill the pool.
 * @pool: pool with geometry-independent fields, devices and io_client set.
 * @tbl:  the parsed table (device order, options).
 * @error: out; a static message for ti->error on failure.
 *
 * Every check that fails is also logged with the device and block it
 * concerns.
 *
 * Context: process, may sleep; caller holds pool->md_lock.
 * Return: 0 or a negative errno.
 */
int tier_md_load(struct tier_pool *pool, const struct tier_table *tbl,
		 char **error);

/**
 * tier_md_commit() - make the current map durable (two-phase).
 * @pool: the pool.
 *
 * Flushes every tier (data written before now), writes the map blocks dirty
 * for the inactive copy, flushes, then writes the next superblock slot with
 * FUA. On success, extents freed before the commit began become reusable
 * once all I/O issued before the commit has completed. On failure the
 * device moves to read-only metadata mode (or fail mode if already
 * read-only).
 *
 * Context: process, may sleep; caller holds pool->md_lock and is the worker
 * (or the pool is suspended), so the map does not change meanwhile: the
 * tier flush of phase 1 covers every mapping the commit captures.
 * Return: 0, or -EIO when the device cannot commit (mode not "write").
 */
int tier_md_commit(struct tier_pool *pool);

/**
 * tier_md_flush_tiers() - flush the volatile cache of every tier device.
 * @pool: the pool.
 *
 * Context: process, may sleep.
 * Return: 0 or the first error.
 */
int tier_md_flush_tiers(struct tier_pool *pool);

/**
 * tier_set_mode() - degrade the metadata mode (never upgrades) and tell
 * userspace with a dm event.
 * @pool: the pool.
 * @mode: the new, worse mode.
 * @why:  reason for the log line.
 *
 * Context: process, may sleep: dm_table_event() takes a mutex. Called by
 * commits (worker, periodic commit, postsuspend); takes pool->lock.
 */
void tier_set_mode(struct tier_pool *pool, enum tier_md_mode mode,
		   const char *why);

/**
 * tier_mode_name() - "rw", "ro" or "fail" as shown by status.
 * @mode: the mode.
 *
 * Context: any.
 * Return: a static string.
 */
const char *tier_mode_name(enum tier_md_mode mode);

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
 * Context: process, may sleep; caller runs on pool->wq (or the pool is
 * suspended): this is the only place that advances the I/O epoch.
 */
void tier_quiesce_old_io(struct tier_pool *pool, bool expedited);

/* ---- dm-tier-migrate.c ------------------------------------------------- */

#define TIER_HEAT_COMMIT_S 30 /* heat alone is committed at most this often */

/**
 * tier_clock_now() - the heat clock: seconds since the superblock's ctime.
 * @pool: the pool.
 *
 * Context: any.
 */
static inline u32 tier_clock_now(struct tier_pool *pool)
{
	return pool->mig.clock_base + (u32)((jiffies - pool->mig.clock_j) / HZ);
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
	u32 atime = READ_ONCE(m->atime[v.v]);
	u16 heat = READ_ONCE(m->heat[v.v]);
	u16 nheat = tier_heat_touch(heat, atime, now,
				    READ_ONCE(pool->mig.cfg.promote_window));
	u64 block = tier_map_block_of(v);

	if (nheat == heat && atime == now)
		return;
	WRITE_ONCE(m->heat[v.v], nheat);
	WRITE_ONCE(m->atime[v.v], now);
	if (!test_bit(block, pool->mig.heat_touched)) {
		set_bit(block, pool->mig.heat_touched);
		WRITE_ONCE(pool->mig.heat_dirty, true);
	}
}

/**
 * tier_mig_init() - allocate the migration state of a loaded pool.
 * @pool:  pool after tier_md_load().
 * @cfg:   initial settings.
 * @error: out; static message for ti->error.
 *
 * Context: process, may sleep.
 * Return: 0 or -ENOMEM.
 */
int tier_mig_init(struct tier_pool *pool, const struct tier_policy_cfg *cfg,
		  char **error);

/**
 * tier_mig_teardown() - stop the tick for good and destroy the kcopyd
 * client, which waits for copies in flight (teardown, before the pool's
 * workqueue goes: their completions queue the worker).
 * @pool: the pool (also one whose tier_mig_init() failed).
 *
 * Context: process, may sleep; not on pool->wq.
 */
void tier_mig_teardown(struct tier_pool *pool);

/**
 * tier_mig_destroy() - free the migration state.
 * @pool: the pool, after tier_mig_teardown() and with pool->wq destroyed.
 *
 * Context: process.
 */
void tier_mig_destroy(struct tier_pool *pool);

/**
 * tier_mig_start() - arm the migration tick (resume).
 * @pool: the pool.
 *
 * Context: process.
 */
void tier_mig_start(struct tier_pool *pool);

/**
 * tier_mig_stop() - stop the tick and wait for copies in flight to be
 * switched or abandoned (postsuspend). Explicit requests are kept and go on
 * after the next tier_mig_start().
 * @pool: the pool.
 *
 * Context: process, may sleep; not on pool->wq.
 */
void tier_mig_stop(struct tier_pool *pool);

/**
 * tier_mig_set_cfg() - new settings; takes effect at the next tick.
 * @pool: the pool.
 * @cfg:  validated settings (tier_policy_cfg_check()).
 *
 * Context: process; takes pool->lock.
 */
void tier_mig_set_cfg(struct tier_pool *pool,
		      const struct tier_policy_cfg *cfg);

/**
 * tier_mig_request() - move extents @first..@last to @tier now ("migrate"
 * message), skipping unmapped ones and those already there.
 * @pool:  the pool.
 * @first: first virtual extent.
 * @last:  last virtual extent, >= @first, < virt_extents.
 * @tier:  destination tier, < nr_tiers.
 *
 * Context: process; takes pool->lock.
 * Return: 0, or -EBUSY while an earlier request is still running.
 */
int tier_mig_request(struct tier_pool *pool, u64 first, u64 last, u32 tier);

/**
 * tier_mig_done() - a copy finished: switch the mapping to the copy, or
 * abandon it on error. Called by the worker for TIER_JOB_MIGRATE jobs on
 * pool->done; frees @job.
 * @pool: the pool.
 * @job:  the job, off every list.
 *
 * Context: the worker.
 */
void tier_mig_done(struct tier_pool *pool, struct tier_job *job);

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
 * tier_mig_heat_capture() - mark the map blocks whose heat changed dirty,
 * so the commit being prepared writes them.
 * @pool: the pool.
 *
 * Context: commit, under pool->lock.
 */
void tier_mig_heat_capture(struct tier_pool *pool);

/**
 * tier_mig_heat_due() - whether heat changes alone warrant a commit now.
 * @pool: the pool.
 *
 * Context: any.
 */
bool tier_mig_heat_due(struct tier_pool *pool);

/* ---- dm-tier-target.c -------------------------------------------------- */

/**
 * tier_wake_worker() - run the worker.
 * @pool: the pool.
 *
 * Context: any.
 */
void tier_wake_worker(struct tier_pool *pool);

/**
 * tier_job_end() - the job is over: bios parked behind it go back to the
 * worker; the job leaves its list.
 * @pool: the pool.
 * @job:  the job.
 *
 * Context: under pool->lock.
 */
void tier_job_end(struct tier_pool *pool, struct tier_job *job);

/**
 * tier_job_free() - return a job to the pool's mempool.
 * @pool: the pool.
 * @job:  the job, off every list.
 *
 * Context: any.
 */
void tier_job_free(struct tier_pool *pool, struct tier_job *job);

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

/*
 * The pools, newest first (tier_pool.id decreasing). Netlink operations
 * look pools up under tier_pools_mutex and act while holding it; a pool
 * leaves the list (and is freed) only under it.
 */
extern struct mutex tier_pools_mutex;
extern struct list_head tier_pools;

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
 * tier_pool_stats() - snapshot the counters that status and dev-get show.
 * @pool: the pool.
 * @st:   out.
 *
 * Context: any but hard irq; takes pool->lock.
 */
void tier_pool_stats(struct tier_pool *pool, struct tier_stats *st);

/**
 * tier_pool_get_table() - copy of the active table's parsed line.
 * @pool: the pool.
 * @t:    out.
 *
 * Context: process; caller holds tier_pools_mutex.
 * Return: 0, or -ENODEV when no table of the pool is active (resumed).
 */
int tier_pool_get_table(struct tier_pool *pool, struct tier_table *t);

/**
 * tier_pool_set_table() - store new optional settings in the active table
 * and apply them to the pool, exactly as the "set" message does (so
 * `dmsetup table` shows them and a reload keeps them).
 * @pool: the pool.
 * @t:    a table from tier_pool_get_table() with validated settings.
 *
 * Context: process; caller holds tier_pools_mutex.
 * Return: 0, or -ENODEV when no table of the pool is active.
 */
int tier_pool_set_table(struct tier_pool *pool, const struct tier_table *t);

/**
 * tier_request_commit() - ask the worker for a commit (as the "commit"
 * message does), without waiting for it.
 * @pool: the pool.
 *
 * Context: any but hard irq; takes pool->lock.
 */
void tier_request_commit(struct tier_pool *pool);

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
 * tier_note_io_error() - count an I/O error of a tier; the first one marks
 * it degraded (status, dev-get) and queues tier-error.
 * @pool: the pool.
 * @tier: the tier, < nr_tiers.
 *
 * Context: any (bio completion, irq).
 */
void tier_note_io_error(struct tier_pool *pool, u32 tier);

/**
 * tier_tier_recover() - declare a degraded tier healthy again.
 * @pool: the pool.
 * @tier: the tier, < nr_tiers.
 *
 * Context: any; queues tier-recovered when it was degraded.
 * Return: true when it was degraded.
 */
bool tier_tier_recover(struct tier_pool *pool, u32 tier);

/* ---- dm-tier-memtier.c ------------------------------------------------- */

/* migrate to the memory tier's index (netlink and the message). */
#define TIER_MSG_MEM_MIGRATE "the memory tier holds copies only; use pin"

/* set mem_size_mb / policy-set mem-size-mb on a device without one. */
#define TIER_MSG_NO_MEM \
	"the device has no memory tier; reload the table with mem_node and mem_size_mb"

/**
 * tier_memtier_create() - a memory tier of @size_mb MiB of pages from NUMA
 * node @node, all allocated now (no other node is used); paused until
 * tier_memtier_start().
 * @pool:    a loaded pool (geometry, map).
 * @node:    the node; it must be online and have memory.
 * @size_mb: the cap; whole extents of it are used.
 * @error:   out; message for ti->error.
 *
 * Context: process, may sleep (allocates up to @size_mb MiB).
 * Return: the tier, or an ERR_PTR (-EINVAL bad node or size, -ENOMEM the
 * node could not supply it, -EINTR); on error nothing stays allocated.
 */
struct tier_memtier *tier_memtier_create(struct tier_pool *pool, u32 node,
					 u32 size_mb, char **error);

/**
 * tier_memtier_destroy() - stop its fills and return every page.
 * @mt: the tier (not in use by map() any more), or NULL.
 *
 * Context: process, may sleep.
 */
void tier_memtier_destroy(struct tier_memtier *mt);

/**
 * tier_memtier_same() - whether @mt is what a table asks for.
 * @mt:      the pool's memory tier, or NULL.
 * @node:    the table's mem_node (TIER_MEM_NODE_NONE: none).
 * @size_mb: the table's mem_size_mb.
 *
 * Context: caller holds tier_pools_mutex.
 */
bool tier_memtier_same(const struct tier_memtier *mt, u32 node, u32 size_mb);

/**
 * tier_memtier_start() - allow fills and copy resident extents in (resume).
 * @pool: the pool.
 *
 * Context: process.
 */
void tier_memtier_start(struct tier_pool *pool);

/**
 * tier_memtier_stop() - stop fills and wait for the one running
 * (postsuspend): a suspended device does no I/O.
 * @pool: the pool.
 *
 * Context: process, may sleep.
 */
void tier_memtier_stop(struct tier_pool *pool);

/**
 * tier_memtier_fill_work() - the fill work: reads queued extents and
 * resident ones (after activation or a pin) from their homes into slots.
 * @ws: the tier's work.
 *
 * Context: process (the tier's workqueue).
 */
void tier_memtier_fill_work(struct work_struct *ws);

/**
 * tier_memtier_read() - serve a read of mapped extent @v from its copy.
 * @pool:   the pool.
 * @bio:    a read within the extent.
 * @v:      the extent.
 * @offset: sector offset of @bio in the extent.
 *
 * Copies the data into @bio; the caller completes it.
 *
 * Context: map(); never sleeps; takes the tier's lock (irq-safe).
 * Return: true when served, false without a valid copy.
 */
bool tier_memtier_read(struct tier_pool *pool, struct bio *bio,
		       struct tier_vext v, sector_t offset);

/**
 * tier_memtier_read_miss() - a read of mapped extent @v went to its home:
 * count it, and queue a fill when its heat reached mem_promote_hits.
 * @pool: the pool.
 * @v:    the extent, its heat already updated for this read.
 *
 * Context: map(); never sleeps.
 */
void tier_memtier_read_miss(struct tier_pool *pool, struct tier_vext v);

/**
 * tier_memtier_written() - a write to @v completed (or failed): drop its
 * copy and make a fill in flight fail; a resident extent is copied again.
 * @pool: the pool.
 * @v:    the extent.
 *
 * Context: any (bio completion, irq).
 */
void tier_memtier_written(struct tier_pool *pool, struct tier_vext v);

/**
 * tier_memtier_discard() - extents first..last were discarded (unmapped or
 * partly discarded): drop their copies.
 * @pool:  the pool.
 * @first: first virtual extent.
 * @last:  last virtual extent.
 *
 * Context: any but hard irq (the worker, after the map changed).
 */
void tier_memtier_discard(struct tier_pool *pool, u64 first, u64 last);

/**
 * tier_memtier_resize() - new cap (set mem_size_mb, policy-set): growing
 * allocates from the node (on failure nothing changes), shrinking evicts
 * the coldest copies and frees their pages.
 * @pool:    the pool.
 * @size_mb: the new cap.
 * @err:     out; message on failure.
 *
 * Context: process, may sleep; caller holds tier_pools_mutex.
 * Return: 0; -EINVAL (no memory tier, smaller than an extent), -ENOMEM,
 * -ENOSPC (resident pins would not fit), -EBUSY, -EINTR.
 */
int tier_memtier_resize(struct tier_pool *pool, u32 size_mb, const char **err);

/**
 * tier_memtier_pin() - keep copies of the mapped extents first..last
 * resident (TIER_EXT_F_MEMRES, persisted); they are copied in at once by
 * the fill work and never evicted.
 * @pool:   the pool.
 * @first:  first virtual extent.
 * @last:   last virtual extent.
 * @pin:    must be true (unpin: tier_memtier_unpin()).
 * @mapped: out; mapped extents of the range.
 * @err:    out; message on failure.
 *
 * Context: process, may sleep; caller holds tier_pools_mutex.
 * Return: 0, -EINVAL without a memory tier, -ENOSPC when the resident
 * extents would not fit (nothing changed).
 */
int tier_memtier_pin(struct tier_pool *pool, u64 first, u64 last, bool pin,
		     u64 *mapped, const char **err);

/**
 * tier_memtier_unpin() - first..last's copies become evictable (the caller
 * clears TIER_EXT_F_MEMRES).
 * @pool:  the pool.
 * @first: first virtual extent.
 * @last:  last virtual extent.
 *
 * Context: process; caller holds tier_pools_mutex.
 */
void tier_memtier_unpin(struct tier_pool *pool, u64 first, u64 last);

/**
 * tier_memtier_stats() - add the memory tier's counters to @st (hits and
 * misses come from the per-cpu stats).
 * @pool: the pool.
 * @st:   out.
 *
 * Context: caller holds pool->lock (irqs off).
 */
void tier_memtier_stats(struct tier_pool *pool, struct tier_stats *st);

/* ---- dm-tier-netlink.c ------------------------------------------------- */

#if IS_ENABLED(CONFIG_NET)
/**
 * tier_nl_event_work() - work function of tier_pool.ev_work: sends the
 * pending events of the pool to the monitor group.
 * @ws: &pool->ev_work.
 *
 * Context: process (system_wq); takes tier_pools_mutex.
 */
void tier_nl_event_work(struct work_struct *ws);

/**
 * tier_nl_pool_gone() - the pool left the list: stop events, send what is
 * pending, then dev-del.
 * @pool: the pool, off tier_pools, about to be freed.
 *
 * Context: process, may sleep; caller does not hold tier_pools_mutex.
 */
void tier_nl_pool_gone(struct tier_pool *pool);

/**
 * dm_tier_nl_register() - register the "dm-tier" generic netlink family.
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int dm_tier_nl_register(void);

/**
 * dm_tier_nl_unregister() - unregister it.
 *
 * Context: module exit, after the target (no pool is left).
 */
void dm_tier_nl_unregister(void);
#else
/* Without networking (the UML KUnit kernel) events are not sent. */
static inline void tier_nl_event_work(struct work_struct *ws)
{
}

static inline void tier_nl_pool_gone(struct tier_pool *pool)
{
}
#endif

/**
 * dm_tier_target_register() - register the "tier" target type.
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int dm_tier_target_register(void);

/**
 * dm_tier_target_unregister() - unregister it.
 *
 * Context: module exit.
 */
void dm_tier_target_unregister(void);

#endif /* DM_TIER_H */
