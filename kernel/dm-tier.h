/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm-tier.h - internal interfaces between the target (mechanism,
 * dm-tier-target.c) and the metadata layer (dm-tier-metadata.c).
 *
 * Locking (see docs/ARCHITECTURE.md "Locking"):
 *  - tier_pools_mutex: the global list of pools; ctr/dtr only.
 *  - pool->md_lock (mutex): loading and committing metadata; taken by the
 *    worker, the periodic commit and postsuspend, never on the I/O path.
 *  - pool->lock (spinlock, irq-safe): map and allocator updates, bio lists,
 *    busy extents, counters that are not per-cpu. Never held across I/O.
 *  - map() reads map words locklessly (READ_ONCE of one u64 per extent);
 *    every writer of a map word is the worker, under pool->lock.
 */
#ifndef DM_TIER_H
#define DM_TIER_H

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <linux/dm-io.h>
#include <linux/list.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "core/tier-internal.h"
#include "core/format.h"
#include "core/extent_map.h"
#include "core/alloc.h"
#include "core/table.h"

#define DM_MSG_PREFIX "tier"

/* Metadata health; only ever moves down (write -> read-only -> fail). */
enum tier_md_mode {
	TIER_MODE_WRITE, /* normal */
	TIER_MODE_READ_ONLY, /* a commit failed: no new extents, no discard */
	TIER_MODE_FAIL, /* a commit failed again: all I/O fails */
};

struct tier_pcpu_stats {
	u64 reads[TIER_MAX_TIERS];
	u64 writes[TIER_MAX_TIERS];
};

/*
 * One tiered device: its metadata, map, allocators and worker. Shared by
 * every table loaded over the same metadata device, so that a table reload
 * keeps the in-memory state of the running one (as dm-cache and dm-thin do).
 */
struct tier_pool {
	struct list_head list; /* tier_pools; tier_pools_mutex */
	unsigned int ref; /* tables using it; tier_pools_mutex */
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

	/* Quiescing I/O before a freed physical extent is reused. */
	unsigned int io_epoch;
	atomic_t inflight[2];
	wait_queue_head_t drain_wait;

	struct tier_pcpu_stats __percpu *stats;

	struct workqueue_struct *wq; /* ordered: worker and commits */
	struct work_struct worker;
	struct delayed_work commit_work;
	unsigned int commit_interval_ms;
	bool periodic; /* periodic commits armed */
	struct dm_target *ti; /* the active table's target */
};

#define TIER_MD_BUF_BLOCKS 256 /* 1 MiB staging buffer for map I/O */

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
 * Context: any; takes pool->lock.
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

/* ---- dm-tier-target.c -------------------------------------------------- */

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
