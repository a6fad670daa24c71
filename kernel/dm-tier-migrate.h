/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm-tier-migrate.h - the migration engine (dm-tier-migrate.c): a tick on
 * the pool's ordered workqueue that asks the policy (kernel/core/policy.c)
 * what to move and copies extents with the copier (dm-tier-copy.h).
 *
 * Layer: above the pool (dm-tier-pool.h), which it calls for jobs, the
 * I/O-epoch quiesce and the extent switch; called by the target and
 * netlink. Its state (struct tier_mig) is private; the settings it follows
 * are the pool's (pool->cfg).
 *
 * Locking: its state is under pool->lock, except what only the tick
 * touches; it takes no lock of its own.
 */
#ifndef DM_TIER_MIGRATE_H
#define DM_TIER_MIGRATE_H

#include <linux/types.h>

#include "dm-tier.h"
#include "core/movq.h"
#include "core/policy.h"

struct tier_pool;
struct tier_job;

/**
 * tier_mig_init() - allocate the migration state of a loaded pool.
 * @pool:  pool after tier_pool_create().
 * @error: out; static message for ti->error.
 *
 * Context: process, may sleep.
 * Return: 0 or a negative errno; on failure tier_mig_teardown() and
 * tier_mig_destroy() free what was made.
 */
int tier_mig_init(struct tier_pool *pool, char **error);

/**
 * tier_mig_teardown() - stop the tick for good and destroy the copier,
 * which waits for copies in flight (teardown, before the pool's
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
 * tier_mig_start() - arm the migration tick (resume); not for a pool
 * activated read-only, where nothing moves.
 * @pool: the pool.
 *
 * Context: process.
 */
void tier_mig_start(struct tier_pool *pool);

/**
 * tier_mig_stop() - stop the tick and wait for copies in flight to be
 * switched or abandoned (postsuspend). Queued requests are kept and go on
 * after the next tier_mig_start(); tier_mig_teardown() cancels them.
 * @pool: the pool.
 *
 * Context: process, may sleep; not on pool->wq.
 */
void tier_mig_stop(struct tier_pool *pool);

/**
 * tier_mig_queued() - how many explicit requests are queued (the running
 * one included); a shrink of the virtual size is refused while any is (a
 * request may cover extents beyond the new end).
 * @pool: the pool.
 *
 * Context: caller holds pool->lock.
 */
u32 tier_mig_queued(struct tier_pool *pool);

/**
 * tier_mig_copies_held() - whether copies claimed and not yet ended hold
 * destination extents: each gives one back when it ends, its source with
 * the commit after a switch, its destination at once after a failure.
 * @pool: the pool.
 *
 * Context: caller holds pool->lock.
 * Return: true while any copy is claimed or in flight.
 */
bool tier_mig_copies_held(struct tier_pool *pool);

/**
 * tier_mig_list_blocker() - a queued request that keeps tier @pos from
 * being removed: a migrate or pin to it (tier_movq_renumber_blocker();
 * an evacuation of the tier or a preference for it does not block).
 * @pool: the pool.
 * @pos:  the tier to remove, < nr_tiers.
 * @out:  out: a copy of the request when there is one.
 *
 * Context: caller holds pool->lock.
 * Return: true when there is one.
 */
bool tier_mig_list_blocker(struct tier_pool *pool, u32 pos,
			   struct tier_move *out);

/**
 * tier_mig_tiers_renumber() - the queued requests follow a tier-list change
 * of @old_n tiers (a tier inserted at or removed from @pos): their tiers,
 * preferred destinations and unsent outcomes go through the table that
 * renumbered the map (tier_movq_renumber()); an evacuation of the removed
 * tier ends done. The target passes it to tier_pool_add_tier() and
 * tier_pool_remove_tier(), which call it in the pool->lock section that
 * shifts the per-tier state and sets pool->nr_tiers, so no request is
 * ever taken or queued against a list its numbers do not match. A request
 * that names the removed tier cannot exist here (refused at the load,
 * tier_mig_request() refuses a held tier); if one did, the whole queue
 * ends cancelled (warning) rather than run with stale numbers.
 * @pool:   the pool.
 * @insert: a tier inserted (else removed).
 * @pos:    its position.
 * @old_n:  tiers before the change.
 *
 * Context: caller holds pool->lock; migration stopped (postsuspend's
 * tier_mig_stop(): no tick, no copy in flight).
 */
void tier_mig_tiers_renumber(struct tier_pool *pool, bool insert, u32 pos,
			     u32 old_n);

/**
 * tier_mig_tiers_changed() - the tier list changed (pool->nr_tiers): the
 * plan starts again for the new list and the candidates of the last scan
 * are dropped (they may name a tier that is gone).
 * @pool: the pool.
 *
 * Context: process; migration stopped (the device is suspended).
 */
void tier_mig_tiers_changed(struct tier_pool *pool);

/**
 * tier_mig_set_cfg() - new settings (pool->cfg); the tick takes them at
 * once.
 * @pool: the pool.
 * @cfg:  validated settings (tier_policy_cfg_check()).
 *
 * Context: process; takes pool->lock.
 */
void tier_mig_set_cfg(struct tier_pool *pool,
		      const struct tier_policy_cfg *cfg);

/**
 * tier_mig_request() - queue a request to move extents @first..@last to
 * @tier (migrate, pin --tier), skipping unmapped ones and those already
 * there. Requests run one at a time, in order; each ends with one
 * migration-done event carrying its id and outcome.
 * @pool:  the pool.
 * @kind:  enum tier_move_kind.
 * @first: first virtual extent.
 * @last:  last virtual extent, >= @first, < virt_extents.
 * @tier:  destination tier, checked again under pool->lock: the tier list
 *         may have changed since the caller looked (a message runs outside
 *         tier_pools_mutex).
 * @id:    out: the request's id.
 *
 * Context: process; takes pool->lock.
 * Return: 0, -EBUSY when TIER_MOVQ_MAX requests are queued, -EINVAL when
 * @tier is not a tier (now), -ENOSPC when @tier is held for a removal
 * (tier_pool_hold_tier(): it takes no new extents; TIER_MSG_REMOVING), or
 * -EROFS when the pool is activated read-only.
 */
int tier_mig_request(struct tier_pool *pool, u32 kind, u64 first, u64 last,
		     u32 tier, u32 *id);

/**
 * tier_mig_cancel() - cancel queued request @id: one not started ends at
 * once, the running one once its copies in flight end (what they moved
 * stays moved). Its migration-done event says "cancelled".
 * @pool: the pool.
 * @id:   the request's id.
 *
 * Context: process; takes pool->lock.
 * Return: 0, or -ENOENT when no queued request has that id.
 */
int tier_mig_cancel(struct tier_pool *pool, u32 id);

/* Refusal of a move to an evacuating tier (messages and netlink). */
#define TIER_MSG_EVACUATING \
	"the tier is being evacuated and takes no new extents ('tierctl evacuate NAME TIER --cancel' undoes that)"

/* Refusal of a move to a tier forget-tier declared lost. */
#define TIER_MSG_FORGOTTEN \
	"the tier was forgotten (forget-tier) and takes no new extents until 'tierctl recover' succeeds"

/* Refusal of a move to a tier a loaded table removes (remove-tier). */
#define TIER_MSG_REMOVING \
	"the tier is being removed (remove-tier) and takes no new extents"

/**
 * tier_mig_evacuate() - stop allocation on @tier (pool->evac) and queue a
 * request that moves every extent off it; one already queued for @tier is
 * returned instead of a second. The caller checked the tier may be
 * evacuated (not the metadata's, not offline) and persists the flag.
 * @pool:    the pool.
 * @tier:    the tier, < nr_tiers (checked again under pool->lock).
 * @pref:    the preferred destination (evacuate --to; the caller checked
 *           it is another tier of the device), or TIER_MOVE_NO_PREF. A
 *           request already queued takes a given @pref for its next
 *           extents (a resumed replace-tier names its new tier again).
 * @id:      out: the request's id.
 * @missing: out: with -ENOSPC, the extents that do not fit.
 *
 * Context: process; takes pool->lock.
 * Return: 0; -ENOSPC when the other tiers (online, not evacuating) lack
 * room above their reserves for the extents mapped on @tier; -EBUSY when
 * the queue is full; -EINVAL when @tier is no tier (now); -EROFS
 * read-only. On error nothing changed.
 */
int tier_mig_evacuate(struct tier_pool *pool, u32 tier, u32 pref, u32 *id,
		      u64 *missing);

/**
 * tier_mig_evacuate_stop() - cancel the evacuate requests of @tier and let
 * it take new extents again (pool->evac cleared). The caller persists it.
 * @pool: the pool.
 * @tier: the tier, < nr_tiers.
 *
 * Context: process; takes pool->lock.
 * Return: how many requests were cancelled.
 */
u32 tier_mig_evacuate_stop(struct tier_pool *pool, u32 tier);

/**
 * tier_mig_move_left() - extents request @m (a tier_mig_moves() entry) has
 * left: tier_move_left(), but for an evacuation the extents still mapped on
 * its tier.
 * @pool: the pool.
 * @m:    the request.
 *
 * Context: any.
 * Return: the count.
 */
u64 tier_mig_move_left(struct tier_pool *pool, const struct tier_move *m);

/**
 * tier_mig_moves() - a snapshot of the queue, head first.
 * @pool: the pool.
 * @out:  TIER_MOVQ_MAX entries.
 *
 * Context: process; takes pool->lock.
 * Return: how many were copied.
 */
u32 tier_mig_moves(struct tier_pool *pool, struct tier_move *out);

/**
 * tier_mig_pop_result() - the oldest outcome of an ended request not yet
 * sent (the event sender, on DM_TIER_EVENT_MIGRATION_DONE).
 * @pool: the pool.
 * @res:  out.
 *
 * Context: process; takes pool->lock.
 * Return: true when there was one.
 */
bool tier_mig_pop_result(struct tier_pool *pool, struct tier_move_result *res);

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
 * tier_mig_tier_recovered() - @tier passed a recovery probe: the extents on
 * it whose copies failed reading them may be tried again by automatic moves.
 * @pool: the pool.
 * @tier: the tier, < nr_tiers.
 *
 * Context: process; takes pool->lock.
 */
void tier_mig_tier_recovered(struct tier_pool *pool, u32 tier);

/**
 * tier_mig_draining() - whether the migration plan drains @tier now (its
 * usage crossed the high watermark and has not yet gone below the low one:
 * watermark-high was raised last for it, not watermark-low). A lockless
 * read of the tick's state: the answer may be one tick old.
 * @pool: the pool.
 * @tier: the tier.
 *
 * Context: any; never sleeps.
 */
bool tier_mig_draining(struct tier_pool *pool, u32 tier);

/**
 * tier_mig_stats() - add the migration counters to @st.
 * @pool: the pool.
 * @st:   out.
 *
 * Context: caller holds pool->lock (irqs off).
 */
void tier_mig_stats(struct tier_pool *pool, struct tier_stats *st);

#endif /* DM_TIER_MIGRATE_H */
