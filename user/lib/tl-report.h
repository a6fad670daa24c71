/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-report.h - what "tierctl list" and "tierctl status" print, through
 * tl-print.h: one set of calls for text and --json. The caller brackets them
 * with print_open() / print_close().
 */
#ifndef DM_TIER_TL_REPORT_H
#define DM_TIER_TL_REPORT_H

#include "tl.h"
#include "tl-status.h"

struct tl_nl_dev;
struct tl_lost;

/**
 * struct tl_list_entry - one line of "tierctl list".
 * @name:       DM name.
 * @uuid:       DM uuid.
 * @size_bytes: device size.
 * @nr_tiers:   durable tiers in its table (0 when the table did not parse).
 * @has_mem:    it has a memory tier, on NUMA node @mem_node, of
 *              @mem_bytes_max bytes.
 */
struct tl_list_entry {
	char name[128];
	char uuid[129];
	u64 size_bytes;
	u32 nr_tiers;
	bool has_mem;
	u32 mem_node;
	u64 mem_bytes_max;
};

/*
 * JSON: array of {name, size_bytes, nr_tiers, mem_node, mem_bytes_max,
 * uuid} (the mem_ keys null without a memory tier); text: a table.
 */
void tl_print_list(const struct tl_list_entry *v, size_t n);

/**
 * struct tl_status_view - everything "tierctl status" shows.
 * @name, @uuid:  DM name and uuid.
 * @size_bytes:   device size.
 * @suspended:    DM suspended flag.
 * @read_only:    DM read-only flag: the table was loaded read-only
 *                ("tierctl activate --readonly"); the kernel writes nothing.
 * @st:           parsed status line.
 * @tt:           parsed table line (options, devices).
 * @tier_path:    "/dev/..." of each tier (or the table's word).
 * @meta_path:    same for the metadata device, NULL when on tier 0.
 * @tier_class:   class of each tier (enum tier_class) as sysfs suggests.
 * @nd, @lost:    the netlink reply and the byte ranges on tiers that are
 *                not ok (tl_lost_scan()); NULL when not looked up.
 * @lost_note:    why the ranges are unknown (e.g. not root), or NULL.
 */
struct tl_status_view {
	const char *name;
	const char *uuid;
	u64 size_bytes;
	bool suspended;
	bool read_only;
	const struct tl_status *st;
	const struct tl_table *tt;
	const char *tier_path[TIER_MAX_TIERS];
	const char *meta_path;
	u32 tier_class[TIER_MAX_TIERS];
	const struct tl_nl_dev *nd;
	const struct tl_lost *lost;
	const char *lost_note;
};

/*
 * JSON object: name, uuid, dm_device, size_bytes, extent_bytes,
 * virt_extents, nr_tiers, metadata_mode, commits, commit_last_us and
 * commit_total_us (the last commit's duration and the sum over them, in
 * microseconds; null when not reported), metadata_device (null when
 * on tier 0), metadata_used_bytes and metadata_size_bytes (the metadata
 * device, or tier 0's metadata area; null when not reported), suspended, read_only, mapped_extents, mapped_bytes, commit_interval_ms,
 * reserve_pct, discard_passdown, migration {pace, in_flight, promotions,
 * demotions, bytes_moved, above_high_ms, errors, manual_pending} (null when
 * the module does not report it), moves[] (the queued move requests, head
 * first: {id, kind, state, range_start, range_len, target_tier,
 * done_extents, left_extents}; null when not read over netlink), tiers[] {index, device, class, durable
 * (true), state, capacity_extents, used_extents, free_extents, used_bytes,
 * capacity_bytes, free_bytes, mapped_extents (null when not reported),
 * read_ios, write_ios, io_errors (null when not reported), evacuation
 * (tl_tier_evacuation(): null, "evacuating", "stopped" or "empty")}, then
 * for a
 * memory tier one more element {index (= nr_tiers), device (null), class
 * "mem", durable (false), numa_node, mem_bytes_used, mem_bytes_max,
 * mem_copies, hit_ratio (hits / (hits + misses), 0..1, null before the
 * first read), mem_hits, mem_misses, mem_fills, mem_evictions,
 * mem_invalidations}, nospc_errors, lost (null when every tier is ok or
 * the ranges are unknown; else {lost_tiers [{tier, state, bytes}],
 * lost_bytes, lost_ranges [{device_offset, length, tier}]}: what
 * tl_print_lost() prints).
 *
 * @v->st comes from the status line (tl_status_parse()) or from netlink
 * (tl_nl_dev_to_status()); a tier's class is the one @v->st reports, else
 * @v->tier_class[].
 */
void tl_print_status(const struct tl_status_view *v);

/**
 * tl_tier_evacuation() - the evacuation state of tier @i: NULL when it
 * takes extents normally; "evacuating" while an evacuate request of it is
 * queued (@req gets it; only known over netlink, @nd); "empty" when it
 * takes no new extents and has none mapped; "stopped" when it takes no new
 * extents, still has some and no request moves them (cancelled, failed,
 * or after an activation: 'tierctl evacuate' again resumes).
 * @st:  the status.
 * @nd:  the netlink reply (the move queue), or NULL.
 * @i:   the tier.
 * @req: out, optional: the request, or NULL.
 */
const char *tl_tier_evacuation(const struct tl_status *st,
			       const struct tl_nl_dev *nd, u32 i,
			       const struct tl_nl_move **req);

#endif /* DM_TIER_TL_REPORT_H */
