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
 * A line that ends after <nospc_errors> (an older module) parses with the
 * migration part marked absent; fields a later kernel appends after the
 * last mapped_i are ignored; a migration part cut short is an error.
 */
#ifndef DM_TIER_TL_STATUS_H
#define DM_TIER_TL_STATUS_H

#include "tl.h"
#include "table.h"

#define TL_WORD_LEN 16

struct tl_status_tier {
	char state[TL_WORD_LEN];	/* "ok", later "degraded", "offline" */
	u64 total_extents;
	u64 used_extents;
	u64 read_ios;
	u64 write_ios;
	u64 mapped_extents;	/* extents of the map on this tier; 0 if absent */
};

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
};

struct tl_status {
	char metadata_mode[TL_WORD_LEN];	/* "rw", "ro", "fail" */
	u64 commits;
	u64 extent_sectors;
	u64 virt_extents;
	u64 mapped_extents;
	u32 nr_tiers;
	struct tl_status_tier tier[TIER_MAX_TIERS];
	u64 nospc_errors;
	struct tl_status_migration mig;
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
 * struct tl_table - a parsed table line, owning its words.
 * @t:     the parsed table; its device pointers point into @words.
 * @words: private copy of the line.
 */
struct tl_table {
	struct tier_table t;
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

#endif /* DM_TIER_TL_STATUS_H */
