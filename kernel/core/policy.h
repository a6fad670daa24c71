/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h - migration policy: pure decisions, no I/O, no locks, no bios.
 *
 * The mechanism (dm-tier-migrate.c) feeds it tier usage, each extent's
 * location, heat and last access, and how busy the foreground is; the
 * policy answers with work items (demote extent E to tier T, promote E to
 * T), their order, and how fast to go. The dm-cache policy interface is the
 * model: the policy never sees a bio and never touches the map.
 *
 * Heat clock: seconds since the superblock's ctime (a u32, like the on-disk
 * atime). Heat is an access count that halves for every promote_window
 * seconds without an access; decay is applied lazily, when an extent is
 * touched or evaluated, so nothing scans the map to age it.
 */
#ifndef DM_TIER_CORE_POLICY_H
#define DM_TIER_CORE_POLICY_H

#include "tier-internal.h"
#include "format.h"
#include "extent_map.h"

/* Defaults and limits of the settings (table keys of the same name). */
#define TIER_AUTO_MIGRATE_DEF 1
#define TIER_HIGH_WM_DEF 80 /* percent */
#define TIER_LOW_WM_DEF 60 /* percent */
#define TIER_DEMOTE_AGE_DEF 0 /* seconds, 0 = off */
#define TIER_DEMOTE_AGE_MAX (10U * 365 * 24 * 3600)
#define TIER_DRAIN_DEADLINE_DEF 0 /* seconds, 0 = off */
#define TIER_DRAIN_DEADLINE_MAX (7U * 24 * 3600)
#define TIER_PROMOTE_HITS_DEF 4 /* 0 = promotion off */
#define TIER_PROMOTE_HITS_MAX 0xffff
#define TIER_PROMOTE_WINDOW_DEF 60 /* seconds */
#define TIER_PROMOTE_WINDOW_MAX (7U * 24 * 3600)
#define TIER_MIG_BANDWIDTH_DEF 0 /* MiB/s, 0 = unlimited */
#define TIER_MIG_BANDWIDTH_MAX 1048576
#define TIER_MIG_INFLIGHT_DEF 8 /* copies */
#define TIER_MIG_INFLIGHT_MAX 64
#define TIER_REDIRECT_WRITES_DEF 1
#define TIER_MEM_PROMOTE_HITS_DEF 2 /* reads before a memory-tier copy */
#define TIER_MEM_PROMOTE_HITS_MAX 0xffff
/* Background pace (foreground busy, nothing urgent): one copy, this rate. */
#define TIER_BACKGROUND_RATE (16ULL << 20) /* bytes/s */

#define TIER_HEAT_MAX 0xffff

/**
 * struct tier_policy_cfg - migration settings (all u32, table rows).
 * @auto_migrate:        0 turns automatic migration off; an explicit
 *                       "migrate" message still works.
 * @high_watermark:      percent of a tier's extents; above it the tier
 *                       drains (1..100).
 * @low_watermark:       percent; draining stops at or below it, and
 *                       promotion fills a tier only up to it (0..99, below
 *                       @high_watermark).
 * @demote_age:          seconds without access after which an extent
 *                       demotes even below the watermark; 0 = off.
 * @drain_deadline:      seconds after a burst ends by which a draining tier
 *                       0 must be under @low_watermark; 0 = off.
 * @promote_hits:        heat at which an extent on a lower tier moves up;
 *                       0 = promotion off.
 * @promote_window:      heat half-life in seconds (>= 1).
 * @migration_bandwidth: MiB/s cap on copies; 0 = unlimited.
 * @migration_inflight:  copies in flight at most (1..64).
 * @redirect_writes:     1: a write covering a whole extent that lives on a
 *                       lower tier goes to a fresh tier-0 extent instead.
 * @mem_promote_hits:    heat (reads within promote_window) at which an
 *                       extent gets a copy in the memory tier (1..65535).
 */
struct tier_policy_cfg {
	u32 auto_migrate;
	u32 high_watermark;
	u32 low_watermark;
	u32 demote_age;
	u32 drain_deadline;
	u32 promote_hits;
	u32 promote_window;
	u32 migration_bandwidth;
	u32 migration_inflight;
	u32 redirect_writes;
	u32 mem_promote_hits;
};

/**
 * tier_policy_cfg_init() - every setting at its default.
 * @cfg: out.
 *
 * Context: any.
 */
void tier_policy_cfg_init(struct tier_policy_cfg *cfg);

/**
 * tier_policy_cfg_check() - cross-field validation (ranges of single fields
 * are the table parser's job).
 * @cfg:   settings.
 * @error: out; static message when invalid.
 *
 * Context: any.
 * Return: 0, or -EINVAL (low_watermark not below high_watermark,
 * promote_window 0, migration_inflight 0 or above the maximum).
 */
int tier_policy_cfg_check(const struct tier_policy_cfg *cfg,
			  const char **error);

/**
 * tier_policy_move_allowed() - whether a move may run while some tiers
 * are offline or evacuated: only moves from or to an offline tier pause,
 * moves between healthy tiers go on; nothing moves to an evacuating tier.
 * @offline: bit i set when tier i is offline.
 * @noalloc: bit i set when tier i is evacuating (takes no new extents).
 * @from:    the extent's tier.
 * @to:      the destination tier.
 *
 * Context: any; pure.
 * Return: true when neither @from nor @to is offline and @to is not in
 * @noalloc.
 */
bool tier_policy_move_allowed(u32 offline, u32 noalloc, u32 from, u32 to);

/* tier_policy_evac_dest() @pref when the evacuation names no destination. */
#define TIER_EVAC_NO_PREF 0xffffffffU

/**
 * tier_policy_evac_dest() - where an extent of evacuating tier @src goes:
 * the preferred tier @pref while it may take extents and has a free one
 * above its reserve ("evacuate --to", replace-tier: the new device); else
 * (no preference, or the preferred tier full, offline or evacuating) the
 * fastest (lowest-numbered) other tier that is not blocked and has a free
 * extent above its reserve; faster tiers fill before slower ones. Falling
 * back rather than stopping: an evacuation ends whenever it would without
 * a preference, and the caller checked that the tiers together have room.
 * @nr_tiers: tiers of the device, <= TIER_MAX_TIERS.
 * @src:      the tier being evacuated.
 * @blocked:  bit i set when tier i takes nothing (offline or evacuating).
 * @free:     per tier, free extents above its reserve.
 * @pref:     the preferred destination, or TIER_EVAC_NO_PREF (also: a
 *            value >= @nr_tiers or == @src is no preference).
 * @full_tier: out, with -ENOSPC.
 *
 * Context: any; pure.
 * Return: the tier; -ENOSPC when every allowed tier is full (the fastest
 * allowed one in *@full_tier then, or -ENOENT when no other tier may take
 * an extent at all (all offline or evacuating).
 */
int tier_policy_evac_dest(u32 nr_tiers, u32 src, u32 blocked, const u64 *free,
			  u32 pref, u32 *full_tier);

/**
 * tier_policy_evac_room() - whether the extents mapped on @src fit on the
 * other tiers that may take them (not in @blocked), above their reserves.
 * @nr_tiers: tiers of the device, <= TIER_MAX_TIERS.
 * @src:      the tier to evacuate.
 * @blocked:  bit i set when tier i takes nothing (offline or evacuating).
 * @free:     per tier, free extents above its reserve.
 * @mapped:   extents mapped on @src.
 * @missing:  out: extents that do not fit (0 when they all do).
 *
 * Context: any; pure.
 * Return: 0 when they fit, -ENOSPC when *@missing extents lack room.
 */
int tier_policy_evac_room(u32 nr_tiers, u32 src, u32 blocked, const u64 *free,
			  u64 mapped, u64 *missing);

/**
 * tier_heat_decay() - heat as of @now.
 * @heat:   stored heat.
 * @atime:  stored last access (heat clock).
 * @now:    heat clock now; a @now before @atime means no decay.
 * @window: half-life in seconds; 0 is taken as 1.
 *
 * Context: any.
 * Return: @heat >> ((@now - @atime) / @window), 0 past 16 halvings.
 */
u16 tier_heat_decay(u16 heat, u32 atime, u32 now, u32 window);

/**
 * tier_heat_touch() - heat after one access at @now: decayed, plus one,
 * saturating at TIER_HEAT_MAX. The caller stores it with atime = @now.
 * @heat:   stored heat.
 * @atime:  stored last access.
 * @now:    heat clock now.
 * @window: half-life in seconds.
 *
 * Context: any.
 * Return: the new heat.
 */
u16 tier_heat_touch(u16 heat, u32 atime, u32 now, u32 window);

/**
 * struct tier_usage - one tier's extent counts as the allocator sees them.
 * @total:    physical extents.
 * @used:     not free (mapped, being prepared or migrated, awaiting a
 *            commit to be freed).
 * @free:     allocatable by foreground writes (outside the reserve).
 * @free_all: allocatable by migrations (the reserve included).
 */
struct tier_usage {
	u64 total;
	u64 used;
	u64 free;
	u64 free_all;
};

/**
 * struct tier_policy_plan - what the tiers need now.
 * @nr_tiers:       tiers, 1..TIER_MAX_TIERS.
 * @draining:       tier went above its high watermark and is not yet at or
 *                  below its low one. Carried between calls (hysteresis):
 *                  the caller keeps the plan and passes it back.
 * @demote_need:    extents to move off the tier to reach the low watermark
 *                  (0 unless draining; always 0 for the last tier).
 * @accept_demote:  extents the tier can take by demotion (its free_all; 0
 *                  for tier 0).
 * @accept_promote: extents the tier can take by promotion: up to its low
 *                  watermark, within its free (never the reserve), 0 while
 *                  draining and for the last tier.
 * @burst:          set by the caller before tier_policy_update(): tier 0 is
 *                  still being filled by foreground writes. A draining tier
 *                  0 then keeps draining even at its low watermark, so that
 *                  a burst that refills it after a drain pass does not leave
 *                  it between the watermarks.
 */
struct tier_policy_plan {
	u32 nr_tiers;
	bool burst;
	bool draining[TIER_MAX_TIERS];
	u64 demote_need[TIER_MAX_TIERS];
	u64 accept_demote[TIER_MAX_TIERS];
	u64 accept_promote[TIER_MAX_TIERS];
};

/**
 * tier_policy_plan_init() - a plan with nothing draining.
 * @plan:     out.
 * @nr_tiers: tiers.
 *
 * Context: any.
 */
void tier_policy_plan_init(struct tier_policy_plan *plan, u32 nr_tiers);

/**
 * tier_policy_update() - recompute @plan from usage.
 * @cfg:   settings.
 * @usage: per tier, @plan->nr_tiers entries.
 * @plan:  in: draining state of the previous call; out: the new plan.
 *
 * A tier (not the last) starts draining when used * 100 > high * total and
 * stops when used * 100 <= low * total. With drain_deadline set, tier 0
 * starts draining above its low watermark already (the deadline then paces
 * the drain).
 *
 * Context: any.
 */
void tier_policy_update(const struct tier_policy_cfg *cfg,
			const struct tier_usage *usage,
			struct tier_policy_plan *plan);

/* Kinds of work item. */
enum tier_work_kind {
	TIER_WORK_NONE = 0,
	TIER_WORK_DEMOTE,
	TIER_WORK_PROMOTE,
};

/**
 * struct tier_work - one proposed migration.
 * @vext: virtual extent.
 * @from: tier it is on.
 * @to:   tier to move it to.
 * @kind: enum tier_work_kind.
 * @key:  order among candidates of the same kind: lower goes first
 *        (demotion: coldest, then least recently used; promotion: hottest,
 *        then most recently used).
 */
struct tier_work {
	u64 vext;
	u32 from;
	u32 to;
	u32 kind;
	u64 key;
};

/**
 * tier_policy_classify() - what to do with one mapped extent.
 * @cfg:   settings.
 * @plan:  current plan.
 * @v:     the extent.
 * @loc:   where it is (flags: TIER_EXT_F_PINNED extents are never chosen).
 * @heat:  its stored heat.
 * @atime: its stored last access.
 * @now:   heat clock now.
 * @w:     out; filled when the return is not TIER_WORK_NONE.
 *
 * Promotion (heat decayed to @now >= promote_hits, to the fastest tier
 * above it with accept_promote) wins over demotion. Demotion applies when
 * the extent's tier has demote_need, or when demote_age is set and the
 * extent was not accessed for that long (unless it is hot enough to
 * promote: it would come straight back); it goes to the nearest slower
 * tier with accept_demote. Nothing when auto_migrate is 0, and nothing
 * for an extent on a tier at or past @plan->nr_tiers.
 *
 * Context: any.
 * Return: the kind of work, TIER_WORK_NONE for none.
 */
enum tier_work_kind tier_policy_classify(const struct tier_policy_cfg *cfg,
					 const struct tier_policy_plan *plan,
					 struct tier_vext v,
					 const struct tier_loc *loc, u16 heat,
					 u32 atime, u32 now,
					 struct tier_work *w);

/**
 * tier_policy_displace() - an extent's part in displacement: a hot extent
 * on a slower tier swaps with a cold one of tier 0 when promotion alone
 * cannot bring it up (tier 0 at or above its low watermark), as smq does.
 * @cfg:   settings.
 * @plan:  current plan.
 * @v:     the extent.
 * @loc:   where it is (pinned extents never take part).
 * @heat:  its stored heat.
 * @atime: its stored last access.
 * @now:   heat clock now.
 * @w:     out; filled when the return is not TIER_WORK_NONE.
 *
 * TIER_WORK_PROMOTE: @v is hot (decayed heat >= promote_hits) on a tier
 * below 0, and no tier above it accepts a promotion while tier 0 is not
 * draining: a candidate to displace a tier-0 extent (@w->to 0, key hottest
 * first, as tier_policy_classify() orders promotions).
 * TIER_WORK_DEMOTE: @v is on tier 0 and was not accessed within the last
 * promote_window seconds: a candidate to be displaced (@w->to its
 * destination is chosen when paired, key coldest first, then least recently
 * used). Nothing when auto_migrate or promote_hits is 0, or with one tier.
 *
 * Context: any.
 * Return: the candidate's role, TIER_WORK_NONE for none.
 */
enum tier_work_kind tier_policy_displace(const struct tier_policy_cfg *cfg,
					 const struct tier_policy_plan *plan,
					 struct tier_vext v,
					 const struct tier_loc *loc, u16 heat,
					 u32 atime, u32 now,
					 struct tier_work *w);

/**
 * tier_policy_pair_swaps() - pair displacement candidates into swaps.
 * @hot:     TIER_WORK_PROMOTE candidates of tier_policy_displace(),
 *           sorted (hottest first), @nr_hot of them.
 * @cold:    TIER_WORK_DEMOTE candidates, sorted (coldest first), @nr_cold.
 * @max:     swaps wanted at most (the rate cap).
 * @out:     room for @max pairs: out[2i] the cold extent's demotion (@to:
 *           the hot extent's tier), out[2i+1] the hot extent's promotion.
 *
 * The i-th hottest pairs with the i-th coldest while the hot one's heat is
 * more than twice the cold one's (hysteresis: two extents of similar heat
 * never trade places back and forth; a displaced extent has to get that
 * much hotter than what is then on tier 0 to come back).
 *
 * Context: any.
 * Return: the number of swaps (pairs) in @out.
 */
u32 tier_policy_pair_swaps(const struct tier_work *hot, u32 nr_hot,
			   const struct tier_work *cold, u32 nr_cold, u32 max,
			   struct tier_work *out);

/**
 * struct tier_cand_heap - the @cap lowest-key work items offered.
 * @w:   storage for @cap items (caller-owned).
 * @nr:  items held.
 * @cap: capacity.
 *
 * A max-heap on key until tier_cand_sort(), then ascending by key.
 */
struct tier_cand_heap {
	struct tier_work *w;
	u32 nr;
	u32 cap;
};

/**
 * tier_cand_init() - an empty heap over caller storage.
 * @h:       the heap.
 * @storage: @cap items.
 * @cap:     capacity, >= 1.
 *
 * Context: any.
 */
void tier_cand_init(struct tier_cand_heap *h, struct tier_work *storage,
		    u32 cap);

/**
 * tier_cand_offer() - keep @w if it is among the @cap lowest keys so far.
 * @h: the heap (not sorted since the last init).
 * @w: the candidate.
 *
 * Context: any. O(log cap).
 * Return: true when kept (possibly evicting the highest key).
 */
bool tier_cand_offer(struct tier_cand_heap *h, const struct tier_work *w);

/**
 * tier_cand_sort() - order the held items by ascending key, in place.
 * @h: the heap; afterwards h->w[0..nr-1] is sorted and only
 *     tier_cand_init() may be called on it again.
 *
 * Context: any. O(nr log nr), no allocation.
 */
void tier_cand_sort(struct tier_cand_heap *h);

/* Pace modes, as status shows them (tier_pace_name()). */
enum tier_pace_mode {
	TIER_PACE_IDLE = 0, /* nothing to do */
	TIER_PACE_FULL, /* urgent or foreground idle: full speed */
	TIER_PACE_DEADLINE, /* foreground busy: the drain deadline's rate */
	TIER_PACE_BACKGROUND, /* foreground busy, nothing urgent: trickle */
};

/**
 * struct tier_pace_in - what pacing depends on.
 * @work:          there are migrations to do.
 * @urgent:        a tier is above its high watermark.
 * @fg_busy:       foreground I/O was seen during the last tick.
 * @drain_extents: extents tier 0 must still shed to reach its low
 *                 watermark (0 when not draining).
 * @since_burst:   seconds since tier 0 last grew by foreground writes.
 * @extent_bytes:  extent size in bytes.
 */
struct tier_pace_in {
	bool work;
	bool urgent;
	bool fg_busy;
	u64 drain_extents;
	u32 since_burst;
	u64 extent_bytes;
};

/**
 * struct tier_pace - how fast to migrate now.
 * @mode:         enum tier_pace_mode.
 * @max_inflight: copies allowed in flight (0 when idle).
 * @rate:         bytes per second allowed, 0 = unlimited.
 */
struct tier_pace {
	u32 mode;
	u32 max_inflight;
	u64 rate;
};

/**
 * tier_policy_pace() - pace migrations.
 * @cfg: settings (migration_bandwidth caps every mode).
 * @in:  inputs.
 * @out: out.
 *
 * Idle without work. Full speed (migration_inflight copies, bandwidth cap)
 * when urgent or the foreground is idle. Foreground busy: with a drain
 * deadline and extents to drain, the rate that meets the deadline plus a
 * quarter (full speed once the deadline has passed); otherwise one copy at
 * TIER_BACKGROUND_RATE.
 *
 * Context: any.
 */
void tier_policy_pace(const struct tier_policy_cfg *cfg,
		      const struct tier_pace_in *in, struct tier_pace *out);

/**
 * tier_pace_name() - "idle", "full", "deadline" or "background".
 * @mode: enum tier_pace_mode.
 *
 * Context: any.
 * Return: a static string ("?" when out of range).
 */
const char *tier_pace_name(u32 mode);

#endif /* DM_TIER_CORE_POLICY_H */
