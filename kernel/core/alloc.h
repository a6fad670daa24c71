/* SPDX-License-Identifier: GPL-2.0 */
/*
 * alloc.h - per-tier physical extent allocator.
 *
 * A bitmap with one bit per physical extent (set = not free), a next-fit
 * cursor, and a reserve of extents only the second allocation pass (and
 * later, migration) may use. Freed extents are deferred: they stay set in the
 * used bitmap until the commit that records their unmapping is on disk,
 * tracked in two more bitmaps (pending: freed since the last commit began;
 * committing: freed before the commit in flight), so freeing never
 * allocates. Pure logic: the caller serialises all calls on one allocator.
 */
#ifndef DM_TIER_CORE_ALLOC_H
#define DM_TIER_CORE_ALLOC_H

#include "tier-internal.h"
#include "format.h"
#include "extent_map.h"

/* struct tier_alloc flags */
#define TIER_ALLOC_F_NOALLOC 0x1 /* tier takes no new extents */

/*
 * Frees remembered by number as well as in the bitmaps, so that a commit
 * that frees few extents releases them one by one instead of walking a
 * whole bitmap under the pool's IRQ-off lock (16 TiB of 1 MiB extents is
 * 256 K words a commit). Beyond this many, the commit walks the bitmap.
 */
#define TIER_ALLOC_LOG 64

/**
 * struct tier_alloc - allocator of one tier.
 * @nr_extents:    physical extents on the tier.
 * @nr_used:       bits set in @used: mapped plus awaiting a commit.
 * @nr_pending:    bits set in @pending.
 * @nr_committing: bits set in @committing.
 * @reserve:       extents the first allocation pass leaves free.
 * @cursor:        where the next search starts.
 * @flags:         TIER_ALLOC_F_*.
 * @used:          bit per extent, set when not free.
 * @pending:       freed since the last tier_alloc_commit_begin().
 * @committing:    freed before the commit in flight (or a failed one).
 * @pending_log:   TIER_ALLOC_LOG entries: the extents of @pending while
 *                 @nr_pending <= TIER_ALLOC_LOG.
 * @committing_log: the same for @committing.
 */
struct tier_alloc {
	u64 nr_extents;
	u64 nr_used;
	u64 nr_pending;
	u64 nr_committing;
	u64 reserve;
	u64 cursor;
	u32 flags;
	unsigned long *used;
	unsigned long *pending;
	unsigned long *committing;
	u64 *pending_log;
	u64 *committing_log;
};

/**
 * struct tier_alloc_stats - summary for status output.
 * @total:   physical extents.
 * @used:    extents mapped.
 * @pending: extents freed but not yet reusable (commit not on disk).
 * @free:    extents allocatable now (reserve included).
 * @reserve: the reserve.
 */
struct tier_alloc_stats {
	u64 total;
	u64 used;
	u64 pending;
	u64 free;
	u64 reserve;
};

/**
 * tier_alloc_init() - allocator with every extent free, no reserve.
 * @a:          out; zeroed on failure.
 * @nr_extents: physical extents, 1..TIER_MAX_TIER_EXTENTS.
 *
 * Memory: 3 bits per physical extent, 1 KiB of free logs.
 *
 * Context: process; may sleep (tier_zalloc_array()).
 * Return: 0, -EINVAL for a bad size, -ENOMEM.
 */
int tier_alloc_init(struct tier_alloc *a, u64 nr_extents);

/**
 * tier_alloc_destroy() - free the bitmaps.
 * @a: allocator; may be zeroed or already destroyed.
 *
 * Context: process.
 */
void tier_alloc_destroy(struct tier_alloc *a);

/**
 * tier_alloc_set_reserve_pct() - reserve @pct percent (rounded down) of the
 * tier for the second pass.
 * @a:   allocator.
 * @pct: 0..100; larger values are clamped to 100.
 *
 * Context: any.
 */
void tier_alloc_set_reserve_pct(struct tier_alloc *a, u32 pct);

/**
 * tier_alloc_mark_used() - record a mapped extent while loading the map.
 * @a: allocator.
 * @p: physical extent.
 *
 * Context: any.
 * Return: 0; -EINVAL when out of range; -EUCLEAN when already used (two
 * virtual extents share it: metadata corruption).
 */
int tier_alloc_mark_used(struct tier_alloc *a, struct tier_pext p);

/**
 * tier_alloc_get() - allocate a free extent, next-fit from the cursor.
 * @a:           allocator.
 * @use_reserve: allow the last @a->reserve free extents to be taken.
 * @p:           out; written only on success.
 *
 * Context: any; O(bitmap words).
 * Return: 0; -ENOSPC when none may be taken (TIER_ALLOC_F_NOALLOC set, no
 * free extent, or only reserved ones and !@use_reserve).
 */
int tier_alloc_get(struct tier_alloc *a, bool use_reserve, struct tier_pext *p);

/**
 * tier_alloc_unget() - give back an extent from tier_alloc_get() that no
 * map entry ever referenced (e.g. its first write failed); reusable at once.
 * @a: allocator.
 * @p: the extent.
 *
 * Context: any.
 * Return: 0; -EINVAL when out of range, not used, or awaiting a commit.
 */
int tier_alloc_unget(struct tier_alloc *a, struct tier_pext p);

/**
 * tier_alloc_free_deferred() - free an extent whose unmapping (or move
 * away) is in the in-memory map but not yet committed. It stays unusable
 * until tier_alloc_commit_end(success) of a commit begun after this call.
 * @a: allocator.
 * @p: the extent.
 *
 * Context: any; never allocates.
 * Return: 0; -EINVAL when out of range, not used or already freed.
 */
int tier_alloc_free_deferred(struct tier_alloc *a, struct tier_pext p);

/**
 * tier_alloc_commit_begin() - a commit capturing the current map starts:
 * frees so far (and those of failed commits) become "committing".
 * @a: allocator.
 *
 * Call before capturing the map blocks of the commit.
 *
 * Context: any; O(TIER_ALLOC_LOG), or O(bitmap words) after a failed
 * commit.
 */
void tier_alloc_commit_begin(struct tier_alloc *a);

/**
 * tier_alloc_commit_end() - the commit finished.
 * @a:       allocator.
 * @success: the superblock is on disk; committing extents become free.
 *           On failure they stay unusable and join the next commit.
 *
 * Context: any; O(frees) up to TIER_ALLOC_LOG of them, O(bitmap words)
 * beyond.
 */
void tier_alloc_commit_end(struct tier_alloc *a, bool success);

/**
 * tier_alloc_free_count() - extents allocatable now (reserve included).
 * @a: allocator.
 *
 * Context: any.
 * Return: nr_extents - nr_used.
 */
static inline u64 tier_alloc_free_count(const struct tier_alloc *a)
{
	return a->nr_extents - a->nr_used;
}

/**
 * tier_alloc_stats() - summarise an allocator.
 * @a: allocator.
 * @s: out.
 *
 * Context: any.
 */
void tier_alloc_stats(const struct tier_alloc *a, struct tier_alloc_stats *s);

/**
 * tier_pick_alloc_tier() - the tier a new extent goes to.
 * @tiers:       allocators, fastest first.
 * @nr_tiers:    how many.
 * @use_reserve: out; whether the pick relies on the reserve.
 *
 * First pass: fastest tier with free > reserve; second pass: fastest tier
 * with any free extent. Tiers with TIER_ALLOC_F_NOALLOC are skipped.
 *
 * Context: any.
 * Return: tier index, or -ENOSPC.
 */
int tier_pick_alloc_tier(const struct tier_alloc *tiers, u32 nr_tiers,
			 bool *use_reserve);

/**
 * tier_alloc_extent() - tier_pick_alloc_tier() then tier_alloc_get().
 * @tiers:    allocators, fastest first.
 * @nr_tiers: how many.
 * @loc:      out; tier and pext (flags 0), written only on success.
 *
 * Context: any.
 * Return: 0 or -ENOSPC.
 */
int tier_alloc_extent(struct tier_alloc *tiers, u32 nr_tiers,
		      struct tier_loc *loc);

/**
 * tier_alloc_load_map() - mark every extent the map uses.
 * @tiers:    fresh allocators (tier_alloc_init()), one per tier.
 * @nr_tiers: how many.
 * @m:        the loaded map.
 * @err:      out, optional; @err->item is the virtual extent.
 *
 * On error the allocators are partly filled: destroy them.
 *
 * Context: any; O(extents).
 * Return: 0; -EUCLEAN when an entry names a tier or extent out of range or
 * two entries share an extent (TIER_E_MAP_DOUBLE_USE).
 */
int tier_alloc_load_map(struct tier_alloc *tiers, u32 nr_tiers,
			const struct tier_map *m, struct tier_err *err);

/**
 * tier_alloc_grow() - carry an allocator's state into a larger one.
 * @dst: from tier_alloc_init() with nr_extents >= @src's (a grown tier),
 *       otherwise untouched.
 * @src: the tier's allocator.
 *
 * Every bit (used, freed-pending, freed-committing), the counters, cursor
 * and flags are copied; the extents beyond @src's are free. The reserve is
 * the caller's (tier_alloc_set_reserve_pct() for the new size). Nothing is
 * allocated, so the caller may hold a spinlock.
 *
 * Context: any; caller serialises with users of both.
 * Return: 0, or -EINVAL when @dst is smaller than @src.
 */
int tier_alloc_grow(struct tier_alloc *dst, const struct tier_alloc *src);

#endif /* DM_TIER_CORE_ALLOC_H */
