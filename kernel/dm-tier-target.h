/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm-tier-target.h - the "tier" target (dm-tier-target.c): the dm ops
 * (ctr/dtr, map(), end_io, suspend/resume, status, messages), the worker,
 * and the lifetime of a device (pool, migration engine, memory tier).
 *
 * Layer: above the pool, migration and the memory tier, which it calls;
 * called only by netlink and the module init.
 *
 * Locking: see dm-tier-pool.h; the table's settings (tier_c.tbl) are under
 * tier_pools_mutex.
 */
#ifndef DM_TIER_TARGET_H
#define DM_TIER_TARGET_H

#include "dm-tier.h"
#include "core/table.h"

struct tier_pool;

/**
 * tier_stats_get() - snapshot the counters that status and dev-get show:
 * the pool's, the migration engine's and the memory tier's, those under
 * pool->lock in one hold.
 * @pool: the pool.
 * @st:   out.
 *
 * Context: any but hard irq; takes pool->lock.
 */
void tier_stats_get(struct tier_pool *pool, struct tier_stats *st);

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
 * tier_forget_tier() - turn every extent mapped on a lost tier into an
 * unmapped, read-as-zero extent, and commit (the "forget-tier" message and
 * netlink tier-forget). The physical extents are freed by that commit, as
 * for a discard; copies in the memory tier are dropped.
 * @pool: the pool: held by the live table (a message), or pinned
 *        (tier_pool_pin(): netlink, without tier_pools_mutex).
 * @tier: the tier; must not be 0 (it holds the metadata) and must not be
 *        "ok" (tier_tier_ok()). Checked against the tier list once, under
 *        pool->lock; the walk stops when the device is suspended
 *        afterwards (a resume may renumber the tiers) or the tier is
 *        recovered meanwhile.
 * @done: out; extents unmapped by this call.
 * @err:  out; a static message on failure.
 *
 * Context: process, may sleep (takes pool->md_lock per batch, may wait
 * behind a commit that waits on a hung tier, and waits for its own commit
 * on pool->wq); the caller holds no lock (not tier_pools_mutex: the wait
 * may be long) and is not on pool->wq.
 * Return: 0; -EINVAL (no such tier, tier 0, tier ok); -EROFS (activated
 * read-only, or metadata not rw); -EBUSY (suspended, before or meanwhile;
 * recovered meanwhile; or extents of the tier were being moved: the
 * others were forgotten, try again); -EIO (the commit failed).
 */
int tier_forget_tier(struct tier_pool *pool, u32 tier, u64 *done,
		     const char **err);

/**
 * tier_evacuate() - start (or, with @stop, undo) the evacuation of a tier
 * (the "evacuate" message and netlink evacuate): the tier takes no new
 * extents and a move request empties the tier. Undo cancels the tier's
 * requests. The superblock flag (TIER_SB_TIER_F_EVACUATE) follows with
 * tier_evacuate_persist(), which the caller calls after a success.
 * @pool:    the pool.
 * @tier:    the tier.
 * @stop:    undo instead.
 * @pref:    the preferred destination tier (evacuate --to): extents go
 *           there while it has room above its reserve, then to the usual
 *           choice (tier_policy_evac_dest()); TIER_MOVE_NO_PREF for none.
 *           Ignored with @stop.
 * @id:      out: the request's id (0 for undo).
 * @mapped:  out: extents mapped on the tier now.
 * @missing: out: with -ENOSPC, the extents the other tiers lack room for.
 * @err:     out; a static message on failure.
 *
 * Context: process; takes pool->lock; the tier list holds (the live
 * table's message, or tier_pools_mutex held).
 * Return: 0; -EINVAL (no such tier, the only tier, tier 0 holding the
 * metadata, an offline tier; @pref not a tier, the tier itself, offline or
 * evacuating); -EROFS (metadata not rw); -ENOSPC (no room
 * elsewhere); -EBUSY (the move queue is full, or the device is suspended).
 */
int tier_evacuate(struct tier_pool *pool, u32 tier, bool stop, u32 pref,
		  u32 *id, u64 *mapped, u64 *missing, const char **err);

/**
 * tier_evacuate_persist() - record every tier's evacuate flag as its bit
 * in pool->evac is now, for the next commit (requested here). Each call
 * writes the state of the moment under md_lock, where the tier list
 * holds, so calls that run out of order (two netlink requests, a tier
 * list change between a request and its call) leave the flags right.
 * @pool: the pool, held by the live table or pinned (tier_pool_pin()).
 *
 * Context: process, may sleep: takes pool->md_lock, which a commit
 * waiting on a hung tier holds; the caller does not hold
 * tier_pools_mutex.
 */
void tier_evacuate_persist(struct tier_pool *pool);

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

/**
 * tier_pool_persist() - persist the named settings at their values in the
 * active table (after tier_pool_set_table()): recorded in the superblock's
 * settings record by the next commit, as the "set" message does. Keys that
 * do not persist (mem_size_mb) are skipped.
 * @pool: the pool.
 * @keys: table key names.
 * @n:    how many.
 *
 * The record is under pool->lock (tier_md_set_settings()), not
 * pool->md_lock: this never waits for a commit, which may wait on a hung
 * tier while tier_pools_mutex is held here.
 *
 * Context: process; caller holds tier_pools_mutex; takes pool->lock.
 */
void tier_pool_persist(struct tier_pool *pool, const char *const *keys,
		       unsigned int n);

#endif /* DM_TIER_TARGET_H */
