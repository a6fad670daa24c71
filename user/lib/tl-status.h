/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-status.h - the dm-tier target's status line (STATUSTYPE_INFO) and table
 * line (STATUSTYPE_TABLE) as tierctl reads them.
 *
 * Status line, space separated:
 *   <metadata_mode> <commits> <extent_sectors> <virt_extents>
 *   <mapped_extents> <nr_tiers>
 *   then per tier: <state> <total_extents> <used_extents> <read_ios> <write_ios>
 *   then <nospc_errors>
 *   then, from the module with the migration engine on:
 *   <promotions> <demotions> <moved_bytes> <in_flight> <pace>
 *   <above_high_ms> <migration_errors> <manual_pending>
 *   <mapped_0> ... <mapped_{nr_tiers-1}>
 *   then, from a module with the memory tier (9 fields):
 *   <mem_node> <mem_bytes_max> <mem_bytes_used> <mem_copies> <mem_hits>
 *   <mem_misses> <mem_fills> <mem_evictions> <mem_invalidations>
 *   (mem_node "-" and the rest 0 when the device has no memory tier),
 *   then <swaps> and <activation> (rw, or ro for a table loaded
 *   read-only), which this parser ignores (tierctl takes the activation
 *   from device-mapper's read-only flag, swaps from netlink),
 *   then <meta_used_blocks> <meta_total_blocks>: the metadata device's
 *   use and size in 4 KiB blocks (struct tl_status_meta; absent from
 *   older modules),
 *   then <offline_queued> <offline_expired> (struct tl_status_offline) and
 *   <evacuating>: a bit per tier being evacuated (tl_status_tier
 *   @evacuating; absent from older modules).
 * A line that ends after <nospc_errors> (an older module) parses with the
 * migration part marked absent, one that ends after the last mapped_i with
 * no memory tier; fields a later kernel appends after those are ignored; a
 * migration or memory part cut short is an error.
 */
#ifndef DM_TIER_TL_STATUS_H
#define DM_TIER_TL_STATUS_H

#include "tl.h"
#include "table.h"

#define TL_WORD_LEN 16

/**
 * struct tl_status_tier - one durable tier.
 * @state:          "ok", "degraded", later "offline".
 * @tier_class:     class the kernel reports (netlink: from the superblock),
 *                  "" when it does not (status line): the printer then uses
 *                  what sysfs suggests.
 * @io_errors:      errors counted on the tier (netlink only, see
 *                  struct tl_status @has_io_errors).
 * @mapped_extents: extents of the map on this tier; 0 if absent.
 * @evacuating:     the tier is being evacuated or was (takes no new
 *                  extents); false when the kernel does not report it.
 */
struct tl_status_tier {
	char state[TL_WORD_LEN];
	char tier_class[TL_WORD_LEN];
	u64 total_extents;
	u64 used_extents;
	u64 read_ios;
	u64 write_ios;
	u64 io_errors;
	u64 mapped_extents;
	bool evacuating;
};

/* Highest NUMA node number the table accepts for mem_node. */
#define TL_MEM_NODE_MAX 1023
/* mem_size_mb range of the table. */
#define TL_MEM_SIZE_MB_MAX 1048576
/* mem_promote_hits range and default. */
#define TL_MEM_PROMOTE_HITS_MAX 65535
#define TL_MEM_PROMOTE_HITS_DEF 2

/**
 * struct tl_mem_stats - the memory tier (volatile clean copies on a NUMA
 * node; index nr_tiers), as the status line's last 9 fields or netlink's
 * extra tier nest report it.
 * @present:       the device has a memory tier (false: every number is 0).
 * @node:          the NUMA node its pages come from.
 * @bytes_max:     its size cap (mem_size_mb).
 * @bytes_used:    node memory it holds now.
 * @copies:        extents with a valid copy in memory.
 * @hits, @misses: reads of mapped extents served / not served from memory.
 * @fills:         copies made; @evictions: dropped for room;
 * @invalidations: dropped or rewritten because the extent was written or
 *                 discarded.
 */
struct tl_mem_stats {
	bool present;
	u32 node;
	u64 bytes_max;
	u64 bytes_used;
	u64 copies;
	u64 hits;
	u64 misses;
	u64 fills;
	u64 evictions;
	u64 invalidations;
};

/*
 * hits / (hits + misses) in tenths of a percent, or -1 when there was no
 * read (then "-" is shown, JSON null).
 */
int tl_mem_hit_permille(const struct tl_mem_stats *m);

/**
 * struct tl_status_migration - the migration part of the status line.
 * @present:        false for an older module's line: then every number is
 *                  0 and @pace is "unknown".
 * @promotions:     migrations to a faster tier since activation.
 * @demotions:      migrations to a slower tier since activation.
 * @moved_bytes:    bytes copied by migrations.
 * @in_flight:      copies in flight now.
 * @pace:           "idle", "full", "deadline", "background" (a later word
 *                  still parses).
 * @above_high_ms:  ms tier 0 spent above its high watermark.
 * @errors:         failed copies.
 * @manual_pending: extents a "migrate" message still has to move.
 * @swaps:          promotions that displaced a cold tier-0 extent (netlink
 *                  only; 0 from the status line).
 */
struct tl_status_migration {
	bool present;
	u64 promotions;
	u64 demotions;
	u64 moved_bytes;
	u64 in_flight;
	char pace[TL_WORD_LEN];
	u64 above_high_ms;
	u64 errors;
	u64 manual_pending;
	u64 swaps;
};

/**
 * struct tl_status_meta - the metadata device's use (status line only).
 * @present:      the module reports it.
 * @used_blocks:  4 KiB blocks used: label, superblock slots, map copies.
 * @total_blocks: the metadata device's size (the separate device, or tier
 *                0's area before its data) in 4 KiB blocks.
 */
struct tl_status_meta {
	bool present;
	u64 used_blocks;
	u64 total_blocks;
};

/**
 * struct tl_status_offline - writes waiting for an offline tier
 * (offline_queue_s; docs/ARCHITECTURE.md "Offline queue").
 * @present: the module reports them.
 * @queued:  writes parked now.
 * @expired: parked writes failed with EIO at their deadline since
 *           activation.
 */
struct tl_status_offline {
	bool present;
	u64 queued;
	u64 expired;
};

/**
 * struct tl_status_commit_time - how long metadata commits take (netlink
 * only: the status line does not carry it).
 * @present:  the module reports it.
 * @last_us:  the last commit, from its flushes of the data tiers to its
 *            superblock write; 0 before the first.
 * @total_us: the sum over the device's commits since activation.
 */
struct tl_status_commit_time {
	bool present;
	u64 last_us;
	u64 total_us;
};

/**
 * struct tl_status - what the kernel reports about a device, from either
 * source: the status line (tl_status_parse()) or netlink's dev-get
 * (tl_nl_dev_to_status()). One printer (tl_print_status()) serves both.
 * @nr_tiers:      durable tiers (the memory tier is not counted).
 * @has_io_errors: @tier[].io_errors are reported (netlink).
 * @mem:           the memory tier.
 */
struct tl_status {
	char metadata_mode[TL_WORD_LEN];	/* "rw", "ro", "fail" */
	u64 commits;
	struct tl_status_commit_time commit_time;
	u64 extent_sectors;
	u64 virt_extents;
	u64 mapped_extents;
	u32 nr_tiers;
	struct tl_status_tier tier[TIER_MAX_TIERS];
	u64 nospc_errors;
	bool has_io_errors;
	struct tl_status_migration mig;
	struct tl_mem_stats mem;
	struct tl_status_meta meta;
	struct tl_status_offline offline;
};

/**
 * tl_status_parse() - parse a status line.
 * @line: the target's status (params of the DM_DEVICE_STATUS target).
 * @st:   out; written only on success.
 * @err:  out, optional.
 *
 * Words are lowercase identifiers ([a-z][a-z0-9_-]*, shorter than
 * TL_WORD_LEN) so that states added later still parse; numbers plain
 * decimal u64. extent_sectors must be a power of two in the table's range,
 * 1 <= nr_tiers <= TIER_MAX_TIERS, used <= total per tier,
 * mapped <= virt, and, when the migration part is there, its pace a word
 * and each tier's mapped extents <= its total.
 *
 * Return: TL_OK or TL_FAIL.
 */
int tl_status_parse(const char *line, struct tl_status *st,
		    struct tl_err *err);

/**
 * struct tl_mem_cfg - the memory tier's table keys.
 * @on:           mem_node and mem_size_mb are (to be) in the table.
 * @node:         mem_node (0..TL_MEM_NODE_MAX).
 * @size_mb:      mem_size_mb (1..TL_MEM_SIZE_MB_MAX).
 * @promote_hits: mem_promote_hits (1..TL_MEM_PROMOTE_HITS_MAX; 0 or the
 *                default: not written).
 */
struct tl_mem_cfg {
	bool on;
	u32 node;
	u32 size_mb;
	u32 promote_hits;
};

/**
 * struct tl_table - a parsed table line, owning its words.
 * @t:     the parsed table; its device pointers point into @words.
 * @mem:   the memory tier keys (mem_node, mem_size_mb, mem_promote_hits),
 *         read here whether or not kernel/core's parser knows them.
 * @words: private copy of the line.
 */
struct tl_table {
	struct tier_table t;
	struct tl_mem_cfg mem;
	char *words;
};

/**
 * tl_table_parse_line() - split a table line into words and parse it with
 * tier_table_parse().
 * @line: the target's params, e.g. "2048 2 259:0 259:1".
 * @tt:   out; release with tl_table_free() (also after failure: no-op).
 * @err:  out, optional; names the kernel parser's complaint.
 *
 * Return: TL_OK or TL_FAIL.
 */
int tl_table_parse_line(const char *line, struct tl_table *tt,
			struct tl_err *err);
void tl_table_free(struct tl_table *tt);

/**
 * tl_table_build() - the params for a new table.
 * @nr_tiers:     number of tiers.
 * @extent_shift: log2(extent sectors).
 * @tier_dev:     device paths, fastest first.
 * @metadata_dev: separate metadata device path, or NULL.
 * @buf, @len:    output.
 *
 * Return: TL_OK, or TL_FAIL when a path is empty, contains a blank, or the
 * line does not fit.
 */
int tl_table_build(u32 nr_tiers, u32 extent_shift, const char *const *tier_dev,
		   const char *metadata_dev, char *buf, size_t len,
		   struct tl_err *err);

/**
 * tl_table_add_mem() - add the memory tier keys to a table line built by
 * tl_table_build() (the optional-argument count is adjusted).
 * @buf, @len: the line, changed in place.
 * @nr_tiers:  its tier count (the words before the options).
 * @mem:       nothing is added unless @mem->on.
 *
 * Return: TL_OK, or TL_FAIL when the line does not fit or is malformed.
 */
int tl_table_add_mem(char *buf, size_t len, u32 nr_tiers,
		     const struct tl_mem_cfg *mem, struct tl_err *err);

#endif /* DM_TIER_TL_STATUS_H */
