// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - migration policy: watermarks, heat, candidate order, pacing
 * (pure; the mechanism is dm-tier-migrate.c).
 */
#include "tier-internal.h"
#include "format.h"
#include "extent_map.h"
#include "policy.h"

void tier_policy_cfg_init(struct tier_policy_cfg *cfg)
{
	cfg->auto_migrate = TIER_AUTO_MIGRATE_DEF;
	cfg->high_watermark = TIER_HIGH_WM_DEF;
	cfg->low_watermark = TIER_LOW_WM_DEF;
	cfg->demote_age = TIER_DEMOTE_AGE_DEF;
	cfg->drain_deadline = TIER_DRAIN_DEADLINE_DEF;
	cfg->promote_hits = TIER_PROMOTE_HITS_DEF;
	cfg->promote_window = TIER_PROMOTE_WINDOW_DEF;
	cfg->migration_bandwidth = TIER_MIG_BANDWIDTH_DEF;
	cfg->migration_inflight = TIER_MIG_INFLIGHT_DEF;
	cfg->redirect_writes = TIER_REDIRECT_WRITES_DEF;
	cfg->mem_promote_hits = TIER_MEM_PROMOTE_HITS_DEF;
}

int tier_policy_cfg_check(const struct tier_policy_cfg *cfg, const char **error)
{
	if (cfg->low_watermark >= cfg->high_watermark) {
		*error = "low_watermark must be below high_watermark";
		return -EINVAL;
	}
	if (!cfg->promote_window) {
		*error = "promote_window must be at least 1";
		return -EINVAL;
	}
	if (!cfg->migration_inflight ||
	    cfg->migration_inflight > TIER_MIG_INFLIGHT_MAX) {
		*error = "migration_inflight must be from 1 to 64";
		return -EINVAL;
	}
	return 0;
}

bool tier_policy_move_allowed(u32 offline, u32 noalloc, u32 from, u32 to)
{
	if (from >= 32 || to >= 32)
		return false;
	return !(offline & (1U << from)) && !(offline & (1U << to)) &&
	       !(noalloc & (1U << to));
}

int tier_policy_evac_dest(u32 nr_tiers, u32 src, u32 blocked, const u64 *free,
			  u32 pref, u32 *full_tier)
{
	bool any = false;
	u32 i;

	if (nr_tiers > TIER_MAX_TIERS)
		nr_tiers = TIER_MAX_TIERS;
	if (pref < nr_tiers && pref != src && !(blocked & (1U << pref)) &&
	    free[pref])
		return (int)pref;
	for (i = 0; i < nr_tiers; i++) {
		if (i == src || (blocked & (1U << i)))
			continue;
		if (free[i])
			return (int)i;
		if (!any)
			*full_tier = i;
		any = true;
	}
	return any ? -ENOSPC : -ENOENT;
}

int tier_policy_evac_room(u32 nr_tiers, u32 src, u32 blocked, const u64 *free,
			  u64 mapped, u64 *missing)
{
	u64 room = 0;
	u32 i;

	if (nr_tiers > TIER_MAX_TIERS)
		nr_tiers = TIER_MAX_TIERS;
	for (i = 0; i < nr_tiers && room < mapped; i++)
		if (i != src && !(blocked & (1U << i)))
			room += free[i];
	*missing = room < mapped ? mapped - room : 0;
	return *missing ? -ENOSPC : 0;
}

/* ---- heat --------------------------------------------------------------- */

u16 tier_heat_decay(u16 heat, u32 atime, u32 now, u32 window)
{
	u32 halvings;

	if (now <= atime)
		return heat;
	halvings = (now - atime) / (window ? window : 1);
	if (halvings >= 16)
		return 0;
	return heat >> halvings;
}

u16 tier_heat_touch(u16 heat, u32 atime, u32 now, u32 window)
{
	u16 h = tier_heat_decay(heat, atime, now, window);

	return h < TIER_HEAT_MAX ? h + 1 : TIER_HEAT_MAX;
}

/* ---- watermarks --------------------------------------------------------- */

void tier_policy_plan_init(struct tier_policy_plan *plan, u32 nr_tiers)
{
	memset(plan, 0, sizeof(*plan));
	plan->nr_tiers = min_t(u32, nr_tiers, TIER_MAX_TIERS);
}

/* floor(pct * total / 100); total < 2^48, so the product cannot overflow. */
static u64 tier_pct_of(u64 total, u32 pct)
{
	return div_u64(total * min_t(u32, pct, 100), 100);
}

/*
 * Where a tier starts draining. With a drain deadline, tier 0 drains as soon
 * as it is above its low watermark: the next checkpoint burst needs the room
 * back whether or not this one crossed the high watermark.
 */
static u32 tier_drain_start(const struct tier_policy_cfg *cfg, u32 t)
{
	return !t && cfg->drain_deadline ? cfg->low_watermark :
					   cfg->high_watermark;
}

void tier_policy_update(const struct tier_policy_cfg *cfg,
			const struct tier_usage *usage,
			struct tier_policy_plan *plan)
{
	const struct tier_usage *u;
	u32 nr = min_t(u32, plan->nr_tiers, TIER_MAX_TIERS), t;
	u64 low_mark, room;
	bool last;

	for (t = 0; t < TIER_MAX_TIERS; t++) {
		if (t >= nr) {
			plan->draining[t] = false;
			plan->demote_need[t] = 0;
			plan->accept_demote[t] = 0;
			plan->accept_promote[t] = 0;
			continue;
		}
		u = &usage[t];
		last = t == nr - 1;
		if (last)
			plan->draining[t] = false;
		else if (plan->draining[t])
			plan->draining[t] =
				(!t && plan->burst) ||
				u->used * 100 >
					(u64)cfg->low_watermark * u->total;
		else
			plan->draining[t] =
				u->used * 100 >
				(u64)tier_drain_start(cfg, t) * u->total;

		low_mark = tier_pct_of(u->total, cfg->low_watermark);
		plan->demote_need[t] = 0;
		if (plan->draining[t] && u->used > low_mark)
			plan->demote_need[t] = u->used - low_mark;
		plan->accept_demote[t] = t ? u->free_all : 0;
		room = u->used < low_mark ? low_mark - u->used : 0;
		plan->accept_promote[t] =
			plan->draining[t] || last ? 0 : min(u->free, room);
	}
}

/* ---- classification ----------------------------------------------------- */

enum tier_work_kind tier_policy_classify(const struct tier_policy_cfg *cfg,
					 const struct tier_policy_plan *plan,
					 struct tier_vext v,
					 const struct tier_loc *loc, u16 heat,
					 u32 atime, u32 now,
					 struct tier_work *w)
{
	u32 from = loc->tier, nr = min_t(u32, plan->nr_tiers, TIER_MAX_TIERS);
	u32 t;
	u16 h;
	bool hot, old;

	if (!cfg->auto_migrate || (loc->flags & TIER_EXT_F_PINNED) ||
	    from >= nr)
		return TIER_WORK_NONE;
	h = tier_heat_decay(heat, atime, now, cfg->promote_window);
	hot = cfg->promote_hits && h >= cfg->promote_hits;

	if (hot) {
		for (t = 0; t < from; t++) {
			if (!plan->accept_promote[t])
				continue;
			w->vext = v.v;
			w->from = from;
			w->to = t;
			w->kind = TIER_WORK_PROMOTE;
			w->key = (u64)(TIER_HEAT_MAX - h) << 32 |
				 (U32_MAX - atime);
			return TIER_WORK_PROMOTE;
		}
	}

	if (from + 1 >= nr)
		return TIER_WORK_NONE;
	/* A hot extent demoted by age alone would come straight back up. */
	old = cfg->demote_age && !hot && now >= atime &&
	      now - atime >= cfg->demote_age;
	if (!plan->demote_need[from] && !old)
		return TIER_WORK_NONE;
	for (t = from + 1; t < nr; t++) {
		if (!plan->accept_demote[t])
			continue;
		w->vext = v.v;
		w->from = from;
		w->to = t;
		w->kind = TIER_WORK_DEMOTE;
		w->key = (u64)h << 32 | atime;
		return TIER_WORK_DEMOTE;
	}
	return TIER_WORK_NONE;
}

/* ---- displacement ------------------------------------------------------- */

enum tier_work_kind tier_policy_displace(const struct tier_policy_cfg *cfg,
					 const struct tier_policy_plan *plan,
					 struct tier_vext v,
					 const struct tier_loc *loc, u16 heat,
					 u32 atime, u32 now,
					 struct tier_work *w)
{
	u32 from = loc->tier, nr = min_t(u32, plan->nr_tiers, TIER_MAX_TIERS);
	u32 t;
	u16 h;

	if (!cfg->auto_migrate || !cfg->promote_hits || nr < 2 ||
	    (loc->flags & TIER_EXT_F_PINNED) || from >= nr || plan->draining[0])
		return TIER_WORK_NONE;
	h = tier_heat_decay(heat, atime, now, cfg->promote_window);
	w->vext = v.v;
	w->from = from;
	if (!from) {
		/* Touched within the window: not a victim (hysteresis). */
		if (now < atime || now - atime < cfg->promote_window)
			return TIER_WORK_NONE;
		w->to = from;
		w->kind = TIER_WORK_DEMOTE;
		w->key = (u64)h << 32 | atime;
		return TIER_WORK_DEMOTE;
	}
	if (h < cfg->promote_hits)
		return TIER_WORK_NONE;
	/* Plain promotion applies (tier_policy_classify()): not blocked. */
	for (t = 0; t < from; t++)
		if (plan->accept_promote[t])
			return TIER_WORK_NONE;
	w->to = 0;
	w->kind = TIER_WORK_PROMOTE;
	w->key = (u64)(TIER_HEAT_MAX - h) << 32 | (U32_MAX - atime);
	return TIER_WORK_PROMOTE;
}

u32 tier_policy_pair_swaps(const struct tier_work *hot, u32 nr_hot,
			   const struct tier_work *cold, u32 nr_cold, u32 max,
			   struct tier_work *out)
{
	u32 i, n = min_t(u32, min_t(u32, nr_hot, nr_cold), max);

	for (i = 0; i < n; i++) {
		u64 hot_heat = TIER_HEAT_MAX - (hot[i].key >> 32);
		u64 cold_heat = cold[i].key >> 32;

		/* Sorted: once a pair fails, every later one does. */
		if (hot_heat <= 2 * cold_heat)
			break;
		out[2 * i] = cold[i];
		out[2 * i].to = hot[i].from;
		out[2 * i + 1] = hot[i];
	}
	return i;
}

/* ---- candidates --------------------------------------------------------- */

void tier_cand_init(struct tier_cand_heap *h, struct tier_work *storage,
		    u32 cap)
{
	h->w = storage;
	h->nr = 0;
	h->cap = cap;
}

static void tier_cand_swap(struct tier_work *a, struct tier_work *b)
{
	struct tier_work tmp = *a;

	*a = *b;
	*b = tmp;
}

/* Restore the max-heap below @i within the first @nr items. */
static void tier_cand_sift_down(struct tier_work *w, u32 nr, u32 i)
{
	u32 child;

	for (;;) {
		child = 2 * i + 1;
		if (child >= nr)
			return;
		if (child + 1 < nr && w[child + 1].key > w[child].key)
			child++;
		if (w[i].key >= w[child].key)
			return;
		tier_cand_swap(&w[i], &w[child]);
		i = child;
	}
}

bool tier_cand_offer(struct tier_cand_heap *h, const struct tier_work *w)
{
	u32 i, parent;

	if (h->nr < h->cap) {
		i = h->nr++;
		h->w[i] = *w;
		while (i) {
			parent = (i - 1) / 2;
			if (h->w[parent].key >= h->w[i].key)
				break;
			tier_cand_swap(&h->w[parent], &h->w[i]);
			i = parent;
		}
		return true;
	}
	if (!h->nr || w->key >= h->w[0].key)
		return false;
	h->w[0] = *w;
	tier_cand_sift_down(h->w, h->nr, 0);
	return true;
}

void tier_cand_sort(struct tier_cand_heap *h)
{
	u32 end;

	for (end = h->nr; end > 1; end--) {
		tier_cand_swap(&h->w[0], &h->w[end - 1]);
		tier_cand_sift_down(h->w, end - 1, 0);
	}
}

/* ---- pacing ------------------------------------------------------------- */

/* The smaller of two rates, 0 meaning unlimited. */
static u64 tier_rate_min(u64 a, u64 b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return min(a, b);
}

/* Bytes/s that shed @extents of @bytes each in @secs (> 0), plus a quarter. */
static u64 tier_deadline_rate(u64 extents, u64 bytes, u32 secs)
{
	u64 total, need, rate;

	if (check_mul_overflow(extents, bytes, &total))
		total = U64_MAX;
	need = div_u64(total, secs);
	if (check_add_overflow(need, need / 4, &rate))
		rate = U64_MAX;
	return rate ? rate : 1;
}

void tier_policy_pace(const struct tier_policy_cfg *cfg,
		      const struct tier_pace_in *in, struct tier_pace *out)
{
	u64 bw = (u64)cfg->migration_bandwidth << 20;
	u32 inflight = max_t(u32, cfg->migration_inflight, 1);
	u64 rate;

	if (!in->work) {
		out->mode = TIER_PACE_IDLE;
		out->max_inflight = 0;
		out->rate = 0;
		return;
	}
	out->mode = TIER_PACE_FULL;
	out->max_inflight = inflight;
	out->rate = bw;
	if (in->urgent || !in->fg_busy)
		return;
	if (cfg->drain_deadline && in->drain_extents) {
		if (in->since_burst >= cfg->drain_deadline)
			return; /* past the deadline: full speed */
		rate = tier_deadline_rate(in->drain_extents, in->extent_bytes,
					  cfg->drain_deadline -
						  in->since_burst);
		out->mode = TIER_PACE_DEADLINE;
		out->rate = tier_rate_min(rate, bw);
		return;
	}
	out->mode = TIER_PACE_BACKGROUND;
	out->max_inflight = 1;
	out->rate = tier_rate_min(TIER_BACKGROUND_RATE, bw);
}

const char *tier_pace_name(u32 mode)
{
	static const char *const names[] = {
		[TIER_PACE_IDLE] = "idle",
		[TIER_PACE_FULL] = "full",
		[TIER_PACE_DEADLINE] = "deadline",
		[TIER_PACE_BACKGROUND] = "background",
	};

	return mode < ARRAY_SIZE(names) ? names[mode] : "?";
}
