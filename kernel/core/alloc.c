// SPDX-License-Identifier: GPL-2.0
/*
 * alloc.c - per-tier physical extent allocator with deferred frees (pure).
 */
#include "tier-internal.h"
#include "format.h"
#include "extent_map.h"
#include "alloc.h"

int tier_alloc_init(struct tier_alloc *a, u64 nr_extents)
{
	u64 longs;

	memset(a, 0, sizeof(*a));
	if (!nr_extents || nr_extents > TIER_MAX_TIER_EXTENTS)
		return -EINVAL;
	longs = BITS_TO_LONGS(nr_extents);
	a->used = tier_zalloc_array(longs, sizeof(unsigned long));
	a->pending = tier_zalloc_array(longs, sizeof(unsigned long));
	a->committing = tier_zalloc_array(longs, sizeof(unsigned long));
	a->pending_log = tier_zalloc_array(TIER_ALLOC_LOG, sizeof(u64));
	a->committing_log = tier_zalloc_array(TIER_ALLOC_LOG, sizeof(u64));
	if (!a->used || !a->pending || !a->committing || !a->pending_log ||
	    !a->committing_log) {
		tier_alloc_destroy(a);
		return -ENOMEM;
	}
	a->nr_extents = nr_extents;
	return 0;
}

void tier_alloc_destroy(struct tier_alloc *a)
{
	tier_free_array(a->used);
	tier_free_array(a->pending);
	tier_free_array(a->committing);
	tier_free_array(a->pending_log);
	tier_free_array(a->committing_log);
	memset(a, 0, sizeof(*a));
}

void tier_alloc_set_reserve_pct(struct tier_alloc *a, u32 pct)
{
	pct = min_t(u32, pct, 100);
	/* nr_extents <= 2^48, so the product cannot overflow. */
	a->reserve = div_u64(a->nr_extents * pct, 100);
}

int tier_alloc_mark_used(struct tier_alloc *a, struct tier_pext p)
{
	if (p.p >= a->nr_extents)
		return -EINVAL;
	if (test_bit(p.p, a->used))
		return -EUCLEAN;
	__set_bit(p.p, a->used);
	a->nr_used++;
	return 0;
}

int tier_alloc_get(struct tier_alloc *a, bool use_reserve, struct tier_pext *p)
{
	u64 free = tier_alloc_free_count(a), bit;

	if ((a->flags & TIER_ALLOC_F_NOALLOC) || !free ||
	    (!use_reserve && free <= a->reserve))
		return -ENOSPC;
	bit = find_next_zero_bit(a->used, a->nr_extents, a->cursor);
	if (bit >= a->nr_extents) {
		bit = find_next_zero_bit(a->used, a->cursor, 0);
		if (WARN_ON_ONCE(bit >= a->cursor)) /* counters wrong */
			return -ENOSPC;
	}
	__set_bit(bit, a->used);
	a->nr_used++;
	a->cursor = bit + 1 < a->nr_extents ? bit + 1 : 0;
	*p = tier_pext(bit);
	return 0;
}

static bool tier_alloc_awaiting(const struct tier_alloc *a, u64 bit)
{
	return test_bit(bit, a->pending) || test_bit(bit, a->committing);
}

int tier_alloc_unget(struct tier_alloc *a, struct tier_pext p)
{
	if (p.p >= a->nr_extents || !test_bit(p.p, a->used) ||
	    tier_alloc_awaiting(a, p.p))
		return -EINVAL;
	__clear_bit(p.p, a->used);
	a->nr_used--;
	return 0;
}

int tier_alloc_free_deferred(struct tier_alloc *a, struct tier_pext p)
{
	if (p.p >= a->nr_extents || !test_bit(p.p, a->used) ||
	    tier_alloc_awaiting(a, p.p))
		return -EINVAL;
	__set_bit(p.p, a->pending);
	if (a->nr_pending < TIER_ALLOC_LOG)
		a->pending_log[a->nr_pending] = p.p;
	a->nr_pending++;
	return 0;
}

void tier_alloc_commit_begin(struct tier_alloc *a)
{
	u64 i, longs = BITS_TO_LONGS(a->nr_extents);
	unsigned long *tmp;

	if (!a->nr_pending)
		return;
	if (!a->nr_committing) {
		/* committing is all zero: swap the bitmaps. */
		tmp = a->committing;
		a->committing = a->pending;
		a->pending = tmp;
	} else {
		/* A commit failed before: merge (bit sets are disjoint). */
		for (i = 0; i < longs; i++) {
			a->committing[i] |= a->pending[i];
			a->pending[i] = 0;
		}
	}
	/* The log follows while both sets fit (a log is valid up to its size). */
	if (a->nr_committing + a->nr_pending <= TIER_ALLOC_LOG)
		memcpy(&a->committing_log[a->nr_committing], a->pending_log,
		       a->nr_pending * sizeof(a->pending_log[0]));
	a->nr_committing += a->nr_pending;
	a->nr_pending = 0;
}

void tier_alloc_commit_end(struct tier_alloc *a, bool success)
{
	u64 i, longs = BITS_TO_LONGS(a->nr_extents);

	if (!success || !a->nr_committing)
		return;
	if (a->nr_committing <= TIER_ALLOC_LOG) {
		for (i = 0; i < a->nr_committing; i++) {
			__clear_bit(a->committing_log[i], a->used);
			__clear_bit(a->committing_log[i], a->committing);
		}
	} else {
		for (i = 0; i < longs; i++) {
			a->used[i] &= ~a->committing[i];
			a->committing[i] = 0;
		}
	}
	a->nr_used -= a->nr_committing;
	a->nr_committing = 0;
}

void tier_alloc_stats(const struct tier_alloc *a, struct tier_alloc_stats *s)
{
	s->total = a->nr_extents;
	s->pending = a->nr_pending + a->nr_committing;
	s->used = a->nr_used - s->pending;
	s->free = tier_alloc_free_count(a);
	s->reserve = a->reserve;
}

int tier_pick_alloc_tier(const struct tier_alloc *tiers, u32 nr_tiers,
			 bool *use_reserve)
{
	const struct tier_alloc *a;
	u32 i;

	for (i = 0; i < nr_tiers; i++) {
		a = &tiers[i];
		if (!(a->flags & TIER_ALLOC_F_NOALLOC) &&
		    tier_alloc_free_count(a) > a->reserve) {
			*use_reserve = false;
			return i;
		}
	}
	for (i = 0; i < nr_tiers; i++) {
		a = &tiers[i];
		if (!(a->flags & TIER_ALLOC_F_NOALLOC) &&
		    tier_alloc_free_count(a) > 0) {
			*use_reserve = true;
			return i;
		}
	}
	return -ENOSPC;
}

int tier_alloc_extent(struct tier_alloc *tiers, u32 nr_tiers,
		      struct tier_loc *loc)
{
	struct tier_pext p;
	bool use_reserve;
	int tier, ret;

	tier = tier_pick_alloc_tier(tiers, nr_tiers, &use_reserve);
	if (tier < 0)
		return tier;
	ret = tier_alloc_get(&tiers[tier], use_reserve, &p);
	if (ret)
		return ret;
	loc->tier = tier;
	loc->flags = 0;
	loc->pext = p;
	return 0;
}

int tier_alloc_load_map(struct tier_alloc *tiers, u32 nr_tiers,
			const struct tier_map *m, struct tier_err *err)
{
	struct tier_loc loc;
	u64 v;
	int ret;

	for (v = 0; v < m->nr_extents; v++) {
		if (!tier_map_lookup(m, tier_vext(v), &loc))
			continue;
		if (loc.tier >= nr_tiers)
			return tier_err_set(err, TIER_E_MAP_ENTRY_TIER, v,
					    loc.tier);
		ret = tier_alloc_mark_used(&tiers[loc.tier], loc.pext);
		if (ret == -EINVAL)
			return tier_err_set(err, TIER_E_MAP_ENTRY_PEXT, v,
					    loc.pext.p);
		if (ret)
			return tier_err_set(err, TIER_E_MAP_DOUBLE_USE, v,
					    loc.pext.p);
	}
	return 0;
}

int tier_alloc_grow(struct tier_alloc *dst, const struct tier_alloc *src)
{
	u64 longs = BITS_TO_LONGS(src->nr_extents);
	size_t bytes = longs * sizeof(unsigned long);

	if (!dst->used || dst->nr_extents < src->nr_extents)
		return -EINVAL;
	/* Bits past src's last extent are zero in src (never set). */
	memcpy(dst->used, src->used, bytes);
	memcpy(dst->pending, src->pending, bytes);
	memcpy(dst->committing, src->committing, bytes);
	memcpy(dst->pending_log, src->pending_log,
	       TIER_ALLOC_LOG * sizeof(src->pending_log[0]));
	memcpy(dst->committing_log, src->committing_log,
	       TIER_ALLOC_LOG * sizeof(src->committing_log[0]));
	dst->nr_used = src->nr_used;
	dst->nr_pending = src->nr_pending;
	dst->nr_committing = src->nr_committing;
	dst->cursor = src->cursor;
	dst->flags = src->flags;
	return 0;
}
