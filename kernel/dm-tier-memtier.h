/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm-tier-memtier.h - the volatile memory tier (dm-tier-memtier.c): clean
 * copies of hot extents in pages of one NUMA node, filled from their
 * homes, serving reads in map(), dropped by writes and discards.
 *
 * Layer: above the pool (dm-tier-pool.h), which it calls for flag changes,
 * commit requests, tier health and the I/O epochs; called by the target
 * and netlink. Its state (struct tier_memtier) is private; the pool holds
 * a pointer to it (pool->mem).
 *
 * Locking: its own spinlock (irq-safe), a leaf: taken in map(), bio
 * completion, the fill work and under pool->lock, never the other way
 * round (see dm-tier-pool.h).
 */
#ifndef DM_TIER_MEMTIER_H
#define DM_TIER_MEMTIER_H

#include <linux/blk_types.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "dm-tier.h"
#include "core/extent_map.h"

struct bio;
struct tier_pool;
struct tier_memtier;

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

#endif /* DM_TIER_MEMTIER_H */
