/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table.h - the dm-tier table line:
 *
 *   <extent_sectors> <nr_tiers> <tier_dev_0> ... <tier_dev_N-1>
 *   [<nr_opt_args> <key> <value>...]
 *
 * Optional keys (each a row of the key table in table.c; later features add
 * rows): metadata_dev <dev>, commit_interval_ms <1..60000> (1000),
 * reserve_pct <0..50> (2), discard_passdown <0|1> (1), and the migration
 * settings of struct tier_policy_cfg (policy.h, same names): auto_migrate,
 * high_watermark, low_watermark, demote_age, drain_deadline, promote_hits,
 * promote_window, migration_bandwidth, migration_inflight, redirect_writes;
 * the memory tier: mem_node <0..1023> (absent: no memory tier; fixed while
 * live), mem_size_mb <1..1048576> (required with mem_node, refused
 * without), mem_promote_hits <1..65535> (2); offline_queue_s <0..600> (0):
 * how long a write to an extent of an offline tier may wait for the tier
 * instead of failing with EIO at once.
 * <nr_opt_args> counts the words after it, keys included.
 */
#ifndef DM_TIER_CORE_TABLE_H
#define DM_TIER_CORE_TABLE_H

#include "tier-internal.h"
#include "format.h"
#include "policy.h"
#include "memtier.h"

#define TIER_TABLE_EXTENT_MIN 128 /* sectors: 64 KiB */
#define TIER_TABLE_EXTENT_MAX 131072 /* sectors: 64 MiB */
#define TIER_COMMIT_INTERVAL_DEF 1000 /* ms */
#define TIER_COMMIT_INTERVAL_MAX 60000 /* ms */
#define TIER_RESERVE_PCT_DEF 2
#define TIER_RESERVE_PCT_MAX 50

/**
 * struct tier_table - a parsed table line.
 * @extent_sectors:     extent size in sectors (power of two).
 * @extent_shift:       log2(@extent_sectors).
 * @nr_tiers:           number of tier devices.
 * @tier_dev:           device strings, fastest first (point into argv).
 * @metadata_dev:       separate metadata device, or NULL (on tier 0).
 * @commit_interval_ms: time between metadata commits.
 * @reserve_pct:        percentage of each tier kept for migration.
 * @discard_passdown:   1 to pass discards of unmapped extents down.
 * @policy:             migration settings (and mem_promote_hits).
 * @mem_node:           NUMA node of the memory tier, TIER_MEM_NODE_NONE
 *                      for none.
 * @mem_size_mb:        memory tier cap in MiB; 0 without a memory tier.
 * @given:              the optional keys the table line gave explicitly,
 *                      one bit per key table row (tier_table_parse());
 *                      those win over persisted settings
 *                      (tier_table_settings_apply()).
 * @offline_queue_s:    seconds a write to an offline tier that cannot be
 *                      redirected waits for the tier; 0 = EIO at once.
 */
struct tier_table {
	u32 extent_sectors;
	u32 extent_shift;
	u32 nr_tiers;
	const char *tier_dev[TIER_MAX_TIERS];
	const char *metadata_dev;
	u32 commit_interval_ms;
	u32 reserve_pct;
	u32 discard_passdown;
	struct tier_policy_cfg policy;
	u32 mem_node;
	u32 mem_size_mb;
	u32 given;
	u32 offline_queue_s;
};

/**
 * tier_table_init() - a table with no devices and every option at its
 * default.
 * @t: out.
 *
 * Context: any.
 */
void tier_table_init(struct tier_table *t);

/**
 * tier_table_parse() - parse a constructor line (argv as dm splits it).
 * @argc:  number of words.
 * @argv:  the words; @t keeps pointers into them.
 * @t:     out; written only on success.
 * @error: out; on failure a static message for ti->error.
 *
 * Numbers are plain decimal: no sign, no blanks, no suffix, no overflow.
 * Duplicate device strings, unknown or repeated keys, missing values, a
 * count that does not match the words present and migration settings that
 * fail tier_policy_cfg_check() are rejected.
 *
 * Context: any; pure.
 * Return: 0 or -EINVAL.
 */
int tier_table_parse(unsigned int argc, char **argv, struct tier_table *t,
		     const char **error);

/**
 * tier_table_format() - the constructor line of @t (STATUSTYPE_TABLE).
 * @t:   the table; to print major:minor names, pass a copy whose
 *       tier_dev[] / metadata_dev point at them.
 * @buf: output.
 * @len: its size.
 *
 * Optional arguments appear only when not at their default, in key table
 * order, so tier_table_parse() of the output gives @t back.
 *
 * Context: any; pure.
 * Return: the length written (excluding the NUL), or -ENOSPC when @buf is
 * too small (then it holds a truncated, NUL-terminated line if @len > 0).
 */
int tier_table_format(const struct tier_table *t, char *buf, size_t len);

/**
 * tier_table_set_opt() - change one optional setting of a parsed table
 * (the "set KEY VALUE" message).
 * @t:     the table; unchanged on any error.
 * @key:   key name, as in the table line.
 * @value: its value, validated exactly as tier_table_parse() does (same
 *         range, same messages), then the migration settings are
 *         cross-checked (tier_policy_cfg_check()).
 * @error: out; on failure a static message.
 *
 * Context: any; pure.
 * Return: 0; -ENOENT for an unknown key or one that cannot change while the
 * table is live (metadata_dev, mem_node); -EINVAL for a bad or out-of-range
 * value or a failed cross-check (mem_size_mb without a memory tier).
 */
int tier_table_set_opt(struct tier_table *t, const char *key, const char *value,
		       const char **error);

/**
 * tier_table_set_u32() - change one numeric optional setting, range-checked
 * exactly as tier_table_parse() and tier_table_set_opt() do (same messages),
 * but without the cross-check, so that several settings can change at
 * once (netlink policy-set): the caller runs tier_policy_cfg_check() on the
 * result.
 * @t:     the table; unchanged on any error.
 * @key:   key name, as in the table line.
 * @value: the new value.
 * @error: out; on failure a static message.
 *
 * Context: any; pure.
 * Return: 0; -ENOENT for an unknown key or one that cannot change while the
 * table is live (metadata_dev, mem_node); -EINVAL for a value out of range.
 */
int tier_table_set_u32(struct tier_table *t, const char *key, u32 value,
		       const char **error);

/*
 * Persisted settings (docs/ARCHITECTURE.md "Settings that persist"): a
 * runtime change of an option whose key table row has a persist id is
 * recorded in the superblock's settings record (struct tier_settings). At
 * load the precedence is: the table line, then the persisted value, then
 * the default. Persisted: every option "set" can change but mem_size_mb
 * (host memory, in mem.conf).
 */

/**
 * tier_table_settings_apply() - apply persisted settings to a parsed table
 * for every option the table line did not give (@t->given).
 * @t:       the table; unchanged on error.
 * @s:       the persisted settings.
 * @refused: out; entries whose value is outside the key's range: refused
 *           (not clamped), the option keeps its table or default value.
 * @error:   out; on failure a static message.
 *
 * Entries with ids no key has (written by a newer module) are skipped.
 * When the result fails the cross-checks (tier_policy_cfg_check(), e.g. a
 * persisted low_watermark above the line's high_watermark) nothing is
 * applied.
 *
 * Context: any; pure.
 * Return: the number of settings applied, or -EINVAL (cross-check).
 */
int tier_table_settings_apply(struct tier_table *t,
			      const struct tier_settings *s, u32 *refused,
			      const char **error);

/**
 * tier_table_settings_record() - record option @key's current value in @t
 * into @s (after a runtime change).
 * @s:   the settings to persist.
 * @t:   the table holding the new value.
 * @key: key name.
 *
 * Context: any; pure.
 * Return: 0; -ENOENT when @key is not persisted (unknown, fixed, or
 * mem_size_mb); -ENOSPC when @s is full.
 */
int tier_table_settings_record(struct tier_settings *s,
			       const struct tier_table *t, const char *key);

/**
 * tier_table_settings_reset() - every persisted option of @live back to
 * its value in @line: the table line as parsed, so the value the line gave
 * or the default ("reset-settings": what a load without persisted settings
 * gives).
 * @live: the live table.
 * @line: the same table line parsed again.
 *
 * Context: any; pure.
 */
void tier_table_settings_reset(struct tier_table *live,
			       const struct tier_table *line);

/**
 * tier_table_settings_key() - the key of a persisted setting id.
 * @id: setting id.
 *
 * Context: any; pure.
 * Return: the key name, or NULL for an id no key has.
 */
const char *tier_table_settings_key(u16 id);

/**
 * tier_table_settings_id() - the persisted setting id of a key.
 * @key: key name.
 *
 * Context: any; pure.
 * Return: the id, or 0 when @key is unknown or not persisted.
 */
u16 tier_table_settings_id(const char *key);

#endif /* DM_TIER_CORE_TABLE_H */
