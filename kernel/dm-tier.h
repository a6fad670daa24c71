/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm-tier.h - the types every part of the module shares: the log prefix,
 * the metadata mode, monitor event numbering and the statistics snapshot.
 * Each part has its own header (docs/ARCHITECTURE.md "Layers"):
 *
 *   dm-tier-metadata.h  metadata I/O behind struct tier_md
 *   dm-tier-pool.h      the pool: data-path state, jobs, I/O epochs, the
 *                       extent switch, commits, stats and settings
 *   dm-tier-migrate.h   the migration engine
 *   dm-tier-memtier.h   the memory tier
 *   dm-tier-target.h    the dm target: dm ops, map(), the worker
 *   dm-tier-netlink.h   the generic netlink family
 *
 * Calls go down that list only (netlink above the target); tools/lint
 * checks it by the includes of each file.
 */
#ifndef DM_TIER_H
#define DM_TIER_H

#include <linux/types.h>

#include "core/format.h"
#include "core/health.h"
#include "core/policy.h"

#define DM_MSG_PREFIX "tier"

/*
 * Events for the netlink "monitor" group (enum dm_tier_event). Recorded in
 * any context as one bit per (event, tier) in tier_pool.ev_pending and sent
 * later from process context (dm-tier-netlink.c). Events that concern no
 * tier use tier 0's bit.
 */
#define TIER_EV_MAX 9 /* DM_TIER_EVENT_NEAR_FULL, the highest event */
#define TIER_EV_BITS ((TIER_EV_MAX + 1) * TIER_MAX_TIERS)
/* The events that name a tier (the others are device-wide, tier 0's bit). */
#define TIER_EV_PER_TIER                                                    \
	(BIT(DM_TIER_EVENT_WATERMARK_HIGH) |                                \
	 BIT(DM_TIER_EVENT_WATERMARK_LOW) | BIT(DM_TIER_EVENT_TIER_ERROR) | \
	 BIT(DM_TIER_EVENT_TIER_RECOVERED) | BIT(DM_TIER_EVENT_NEAR_FULL))

/* A snapshot of a pool's counters: what status and dev-get show. */
struct tier_stats {
	enum tier_md_mode mode;
	u64 commits;
	/* Duration of the last commit and the sum over @commits. */
	u64 commit_last_us;
	u64 commit_total_us;
	u64 mapped;
	u64 nospc_errors;
	/* Metadata area in 4 KiB blocks: used (label included) and total. */
	u64 meta_used_blocks;
	u64 meta_total_blocks;
	u64 offline_queued; /* writes parked for an offline tier now */
	u64 offline_expired; /* parked writes failed at their deadline */
	struct {
		u64 total;
		u64 used;
		u64 mapped;
		u64 reads;
		u64 writes;
		u64 io_errors;
		enum tier_health state;
	} tier[TIER_MAX_TIERS];
	u64 promotions;
	u64 demotions;
	u64 moved_bytes;
	u64 mig_errors;
	u64 mig_swaps; /* promotions that displaced a tier-0 extent */
	u64 above_high_ms;
	u64 man_pending; /* extents the queued requests have left */
	u32 moves_queued; /* explicit move requests queued */
	u32 evac; /* evacuating tiers, a bit each */
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

#endif /* DM_TIER_H */
