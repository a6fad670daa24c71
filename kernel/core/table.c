// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - dm table line parser and formatter (pure; shared with tierctl).
 */
#include "tier-internal.h"
#include "format.h"
#include "policy.h"
#include "memtier.h"
#include "health.h"
#include "table.h"

enum tier_opt_kind {
	TIER_OPT_U32, /* nr_values u32s stored from offset */
	TIER_OPT_DEV, /* one device string stored at offset */
};

/* tier_opt.flags */
#define TIER_OPT_F_FIXED 0x1 /* only a table load sets it, not "set" */

/*
 * struct tier_opt - one row of the key table.
 * @name:      key.
 * @kind:      enum tier_opt_kind.
 * @nr_values: words following the key.
 * @min, @max: range of each value (TIER_OPT_U32).
 * @def:       default of each value (TIER_OPT_U32).
 * @offset:    field in struct tier_table.
 * @flags:     TIER_OPT_F_*.
 * @persist:   id of the setting in the superblock's settings record when
 *             a runtime change of it persists (docs/FORMAT.md "Settings
 *             record"), 0 when it does not. Never renumber or reuse an id:
 *             a new persisted setting takes the next free one.
 */
struct tier_opt {
	const char *name;
	u32 kind;
	u32 nr_values;
	u32 min;
	u32 max;
	u32 def;
	size_t offset;
	u32 flags;
	u16 persist;
};

enum tier_table_err {
	TIER_TE_ARGS,
	TIER_TE_EXTENT,
	TIER_TE_EXTENT_RANGE,
	TIER_TE_NR_TIERS,
	TIER_TE_DEVS,
	TIER_TE_EMPTY_DEV,
	TIER_TE_DUP_DEV,
	TIER_TE_OPT_COUNT,
	TIER_TE_OPT_MISMATCH,
	TIER_TE_OPT_UNKNOWN,
	TIER_TE_OPT_TWICE,
	TIER_TE_OPT_MISSING,
	TIER_TE_OPT_VALUE,
	TIER_TE_OPT_RANGE,
	TIER_TE_OPT_FIXED,
	TIER_TE_MEM_SIZE_MISSING,
	TIER_TE_MEM_NODE_MISSING,
	TIER_TE_OFFQ_RANGE,
};

static const char *const tier_table_msgs[] = {
	[TIER_TE_ARGS] = "Not enough arguments",
	[TIER_TE_EXTENT] = "Invalid extent size",
	[TIER_TE_EXTENT_RANGE] =
		"Extent size must be a power of two from 128 to 131072 sectors",
	[TIER_TE_NR_TIERS] = "Number of tiers must be from 1 to 8",
	[TIER_TE_DEVS] = "Not enough tier devices",
	[TIER_TE_EMPTY_DEV] = "Empty device name",
	[TIER_TE_DUP_DEV] = "Duplicate device",
	[TIER_TE_OPT_COUNT] = "Invalid optional argument count",
	[TIER_TE_OPT_MISMATCH] =
		"Optional argument count does not match arguments",
	[TIER_TE_OPT_UNKNOWN] = "Unknown optional argument",
	[TIER_TE_OPT_TWICE] = "Optional argument given twice",
	[TIER_TE_OPT_MISSING] = "Missing optional argument value",
	[TIER_TE_OPT_VALUE] = "Invalid optional argument value",
	[TIER_TE_OPT_RANGE] = "Optional argument value out of range",
	[TIER_TE_OPT_FIXED] = "Optional argument cannot be changed at runtime",
	[TIER_TE_MEM_SIZE_MISSING] = "mem_node needs mem_size_mb",
	[TIER_TE_MEM_NODE_MISSING] =
		"mem_size_mb needs mem_node: the device has no memory tier; reload the table with mem_node and mem_size_mb",
	[TIER_TE_OFFQ_RANGE] = "offline_queue_s must be from 0 to 600 seconds",
};

#define TIER_OPT_FIELD(f) offsetof(struct tier_table, f)

/* Format order is row order; add rows at the end. */
static const struct tier_opt tier_opts[] = {
	{ "metadata_dev", TIER_OPT_DEV, 1, 0, 0, 0,
	  TIER_OPT_FIELD(metadata_dev), 0, 0 },
	{ "commit_interval_ms", TIER_OPT_U32, 1, 1, TIER_COMMIT_INTERVAL_MAX,
	  TIER_COMMIT_INTERVAL_DEF, TIER_OPT_FIELD(commit_interval_ms), 0, 1 },
	{ "reserve_pct", TIER_OPT_U32, 1, 0, TIER_RESERVE_PCT_MAX,
	  TIER_RESERVE_PCT_DEF, TIER_OPT_FIELD(reserve_pct), 0, 2 },
	{ "discard_passdown", TIER_OPT_U32, 1, 0, 1, 1,
	  TIER_OPT_FIELD(discard_passdown), 0, 3 },
	{ "auto_migrate", TIER_OPT_U32, 1, 0, 1, TIER_AUTO_MIGRATE_DEF,
	  TIER_OPT_FIELD(policy.auto_migrate), 0, 4 },
	{ "high_watermark", TIER_OPT_U32, 1, 1, 100, TIER_HIGH_WM_DEF,
	  TIER_OPT_FIELD(policy.high_watermark), 0, 5 },
	{ "low_watermark", TIER_OPT_U32, 1, 0, 99, TIER_LOW_WM_DEF,
	  TIER_OPT_FIELD(policy.low_watermark), 0, 6 },
	{ "demote_age", TIER_OPT_U32, 1, 0, TIER_DEMOTE_AGE_MAX,
	  TIER_DEMOTE_AGE_DEF, TIER_OPT_FIELD(policy.demote_age), 0, 7 },
	{ "drain_deadline", TIER_OPT_U32, 1, 0, TIER_DRAIN_DEADLINE_MAX,
	  TIER_DRAIN_DEADLINE_DEF, TIER_OPT_FIELD(policy.drain_deadline), 0,
	  8 },
	{ "promote_hits", TIER_OPT_U32, 1, 0, TIER_PROMOTE_HITS_MAX,
	  TIER_PROMOTE_HITS_DEF, TIER_OPT_FIELD(policy.promote_hits), 0, 9 },
	{ "promote_window", TIER_OPT_U32, 1, 1, TIER_PROMOTE_WINDOW_MAX,
	  TIER_PROMOTE_WINDOW_DEF, TIER_OPT_FIELD(policy.promote_window), 0,
	  10 },
	{ "migration_bandwidth", TIER_OPT_U32, 1, 0, TIER_MIG_BANDWIDTH_MAX,
	  TIER_MIG_BANDWIDTH_DEF, TIER_OPT_FIELD(policy.migration_bandwidth), 0,
	  11 },
	{ "migration_inflight", TIER_OPT_U32, 1, 1, TIER_MIG_INFLIGHT_MAX,
	  TIER_MIG_INFLIGHT_DEF, TIER_OPT_FIELD(policy.migration_inflight), 0,
	  12 },
	{ "redirect_writes", TIER_OPT_U32, 1, 0, 1, TIER_REDIRECT_WRITES_DEF,
	  TIER_OPT_FIELD(policy.redirect_writes), 0, 13 },
	/* Memory tier; the default of mem_node means none. */
	{ "mem_node", TIER_OPT_U32, 1, 0, TIER_MEM_NODE_MAX, TIER_MEM_NODE_NONE,
	  TIER_OPT_FIELD(mem_node), TIER_OPT_F_FIXED, 0 },
	/* Not persisted: host memory, recorded in mem.conf by tierctl. */
	{ "mem_size_mb", TIER_OPT_U32, 1, 1, TIER_MEM_SIZE_MB_MAX, 0,
	  TIER_OPT_FIELD(mem_size_mb), 0, 0 },
	{ "mem_promote_hits", TIER_OPT_U32, 1, 1, TIER_MEM_PROMOTE_HITS_MAX,
	  TIER_MEM_PROMOTE_HITS_DEF, TIER_OPT_FIELD(policy.mem_promote_hits), 0,
	  14 },
	/* How long a write to an offline tier may wait (0: EIO at once). */
	{ "offline_queue_s", TIER_OPT_U32, 1, 0, TIER_OFFQ_S_MAX,
	  TIER_OFFQ_S_DEF, TIER_OPT_FIELD(offline_queue_s), 0, 15 },
};

static_assert(ARRAY_SIZE(tier_opts) <= 32); /* "given" is a u32 mask */

static u32 *tier_opt_u32(struct tier_table *t, const struct tier_opt *o)
{
	return (u32 *)((char *)t + o->offset);
}

static const u32 *tier_opt_u32_c(const struct tier_table *t,
				 const struct tier_opt *o)
{
	return (const u32 *)((const char *)t + o->offset);
}

static const char **tier_opt_dev(struct tier_table *t, const struct tier_opt *o)
{
	return (const char **)((char *)t + o->offset);
}

static const char *tier_opt_dev_c(const struct tier_table *t,
				  const struct tier_opt *o)
{
	return *(const char *const *)((const char *)t + o->offset);
}

void tier_table_init(struct tier_table *t)
{
	size_t i;
	u32 k;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < ARRAY_SIZE(tier_opts); i++) {
		if (tier_opts[i].kind != TIER_OPT_U32)
			continue;
		for (k = 0; k < tier_opts[i].nr_values; k++)
			tier_opt_u32(t, &tier_opts[i])[k] = tier_opts[i].def;
	}
}

/* Plain decimal u32: digits only, at least one, no overflow. */
static int tier_parse_u32(const char *s, u32 *out)
{
	u64 v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (*s - '0');
		if (v > U32_MAX)
			return -EINVAL;
	}
	*out = v;
	return 0;
}

static int tier_table_error(const char **error, enum tier_table_err e)
{
	*error = tier_table_msgs[e];
	return -EINVAL;
}

static const struct tier_opt *tier_opt_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tier_opts); i++) {
		if (!strcmp(tier_opts[i].name, name))
			return &tier_opts[i];
	}
	return NULL;
}

/* A value outside @o's range; offline_queue_s says its bound. */
static int tier_opt_range_error(const struct tier_opt *o, const char **error)
{
	if (!strcmp(o->name, "offline_queue_s"))
		return tier_table_error(error, TIER_TE_OFFQ_RANGE);
	return tier_table_error(error, TIER_TE_OPT_RANGE);
}

/* One value of a TIER_OPT_U32 row: a plain decimal within the row's range. */
static int tier_opt_value(const struct tier_opt *o, const char *s, u32 *out,
			  const char **error)
{
	u32 v;

	if (tier_parse_u32(s, &v))
		return tier_table_error(error, TIER_TE_OPT_VALUE);
	if (v < o->min || v > o->max)
		return tier_opt_range_error(o, error);
	*out = v;
	return 0;
}

static int tier_parse_opts(unsigned int argc, char **argv, struct tier_table *t,
			   const char **error)
{
	const struct tier_opt *o;
	unsigned int i = 0, k;
	u32 count, seen = 0, bit;
	u32 *val;
	int ret;

	if (tier_parse_u32(argv[0], &count))
		return tier_table_error(error, TIER_TE_OPT_COUNT);
	if (count != argc - 1)
		return tier_table_error(error, TIER_TE_OPT_MISMATCH);
	argv++;
	while (i < count) {
		o = tier_opt_find(argv[i]);
		if (!o)
			return tier_table_error(error, TIER_TE_OPT_UNKNOWN);
		bit = 1U << (o - tier_opts);
		if (seen & bit)
			return tier_table_error(error, TIER_TE_OPT_TWICE);
		seen |= bit;
		if (o->nr_values > count - i - 1)
			return tier_table_error(error, TIER_TE_OPT_MISSING);
		i++;
		if (o->kind == TIER_OPT_DEV) {
			if (!*argv[i])
				return tier_table_error(error,
							TIER_TE_EMPTY_DEV);
			*tier_opt_dev(t, o) = argv[i++];
			continue;
		}
		val = tier_opt_u32(t, o);
		for (k = 0; k < o->nr_values; k++, i++) {
			ret = tier_opt_value(o, argv[i], &val[k], error);
			if (ret)
				return ret;
		}
	}
	t->given = seen;
	return 0;
}

/* A memory tier needs both its node and its size. */
static int tier_table_mem_check(const struct tier_table *t, const char **error)
{
	if (t->mem_node != TIER_MEM_NODE_NONE && !t->mem_size_mb)
		return tier_table_error(error, TIER_TE_MEM_SIZE_MISSING);
	if (t->mem_node == TIER_MEM_NODE_NONE && t->mem_size_mb)
		return tier_table_error(error, TIER_TE_MEM_NODE_MISSING);
	return 0;
}

int tier_table_parse(unsigned int argc, char **argv, struct tier_table *t,
		     const char **error)
{
	struct tier_table out;
	const char *devs[TIER_MAX_DEVS];
	u32 nr_devs, i, j;
	int ret;

	tier_table_init(&out);
	if (argc < 3)
		return tier_table_error(error, TIER_TE_ARGS);
	if (tier_parse_u32(argv[0], &out.extent_sectors))
		return tier_table_error(error, TIER_TE_EXTENT);
	if (out.extent_sectors < TIER_TABLE_EXTENT_MIN ||
	    out.extent_sectors > TIER_TABLE_EXTENT_MAX ||
	    !is_power_of_2(out.extent_sectors))
		return tier_table_error(error, TIER_TE_EXTENT_RANGE);
	out.extent_shift = ilog2(out.extent_sectors);
	if (tier_parse_u32(argv[1], &out.nr_tiers) || out.nr_tiers < 1 ||
	    out.nr_tiers > TIER_MAX_TIERS)
		return tier_table_error(error, TIER_TE_NR_TIERS);
	if (argc - 2 < out.nr_tiers)
		return tier_table_error(error, TIER_TE_DEVS);
	for (i = 0; i < out.nr_tiers; i++) {
		if (!*argv[2 + i])
			return tier_table_error(error, TIER_TE_EMPTY_DEV);
		out.tier_dev[i] = argv[2 + i];
	}
	if (argc > 2 + out.nr_tiers) {
		ret = tier_parse_opts(argc - 2 - out.nr_tiers,
				      argv + 2 + out.nr_tiers, &out, error);
		if (ret)
			return ret;
	}
	ret = tier_policy_cfg_check(&out.policy, error);
	if (ret)
		return ret;
	ret = tier_table_mem_check(&out, error);
	if (ret)
		return ret;

	nr_devs = out.nr_tiers;
	memcpy(devs, out.tier_dev, nr_devs * sizeof(devs[0]));
	if (out.metadata_dev)
		devs[nr_devs++] = out.metadata_dev;
	for (i = 0; i < nr_devs; i++) {
		for (j = i + 1; j < nr_devs; j++) {
			if (!strcmp(devs[i], devs[j]))
				return tier_table_error(error, TIER_TE_DUP_DEV);
		}
	}
	*t = out;
	return 0;
}

/* Appends to buf, tracking the length the full line would have. */
struct tier_line {
	char *buf;
	size_t len;
	size_t pos;
};

static void tier_line_add(struct tier_line *l, const char *word, u32 num,
			  bool is_num)
{
	size_t at = min(l->pos, l->len);
	const char *sep = l->pos ? " " : "";
	int n;

	if (is_num)
		n = snprintf(l->buf + at, l->len - at, "%s%u", sep, num);
	else
		n = snprintf(l->buf + at, l->len - at, "%s%s", sep, word);
	l->pos += n; /* never negative for these formats */
}

static bool tier_opt_is_default(const struct tier_table *t,
				const struct tier_opt *o)
{
	u32 k;

	if (o->kind == TIER_OPT_DEV)
		return !tier_opt_dev_c(t, o);
	for (k = 0; k < o->nr_values; k++) {
		if (tier_opt_u32_c(t, o)[k] != o->def)
			return false;
	}
	return true;
}

int tier_table_format(const struct tier_table *t, char *buf, size_t len)
{
	struct tier_line l = { .buf = buf, .len = len, .pos = 0 };
	const struct tier_opt *o;
	u32 words = 0, i, k;

	if (len)
		buf[0] = '\0';
	tier_line_add(&l, NULL, t->extent_sectors, true);
	tier_line_add(&l, NULL, t->nr_tiers, true);
	for (i = 0; i < t->nr_tiers && i < TIER_MAX_TIERS; i++)
		tier_line_add(&l, t->tier_dev[i], 0, false);

	for (i = 0; i < ARRAY_SIZE(tier_opts); i++) {
		if (!tier_opt_is_default(t, &tier_opts[i]))
			words += 1 + tier_opts[i].nr_values;
	}
	if (words)
		tier_line_add(&l, NULL, words, true);
	for (i = 0; i < ARRAY_SIZE(tier_opts); i++) {
		o = &tier_opts[i];
		if (tier_opt_is_default(t, o))
			continue;
		tier_line_add(&l, o->name, 0, false);
		if (o->kind == TIER_OPT_DEV) {
			tier_line_add(&l, tier_opt_dev_c(t, o), 0, false);
			continue;
		}
		for (k = 0; k < o->nr_values; k++)
			tier_line_add(&l, NULL, tier_opt_u32_c(t, o)[k], true);
	}
	if (l.pos >= len)
		return -ENOSPC;
	return l.pos;
}

/*
 * The key table row of a setting that may change while the table is live
 * (one u32, not fixed), or NULL with *@error set (unknown or fixed key).
 */
static const struct tier_opt *tier_opt_settable(const char *key,
						const char **error)
{
	const struct tier_opt *o = tier_opt_find(key);

	if (!o) {
		tier_table_error(error, TIER_TE_OPT_UNKNOWN);
		return NULL;
	}
	if (o->kind != TIER_OPT_U32 || o->nr_values != 1 ||
	    (o->flags & TIER_OPT_F_FIXED)) {
		tier_table_error(error, TIER_TE_OPT_FIXED);
		return NULL;
	}
	return o;
}

int tier_table_set_opt(struct tier_table *t, const char *key, const char *value,
		       const char **error)
{
	const struct tier_opt *o = tier_opt_settable(key, error);
	struct tier_table out;
	int ret;

	if (!o)
		return -ENOENT;
	out = *t;
	ret = tier_opt_value(o, value, tier_opt_u32(&out, o), error);
	if (ret)
		return ret;
	ret = tier_policy_cfg_check(&out.policy, error);
	if (ret)
		return ret;
	ret = tier_table_mem_check(&out, error);
	if (ret)
		return ret;
	*t = out;
	return 0;
}

int tier_table_set_u32(struct tier_table *t, const char *key, u32 value,
		       const char **error)
{
	const struct tier_opt *o = tier_opt_settable(key, error);

	if (!o)
		return -ENOENT;
	if (value < o->min || value > o->max)
		return tier_opt_range_error(o, error);
	*tier_opt_u32(t, o) = value;
	return 0;
}

/* ---- persisted settings ------------------------------------------------ */

static const struct tier_opt *tier_opt_by_persist(u16 id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tier_opts); i++) {
		if (tier_opts[i].persist == id)
			return &tier_opts[i];
	}
	return NULL;
}

int tier_table_settings_apply(struct tier_table *t,
			      const struct tier_settings *s, u32 *refused,
			      const char **error)
{
	struct tier_table out = *t;
	const struct tier_opt *o;
	u32 i, v;
	int applied = 0, ret;

	*refused = 0;
	for (i = 0; i < s->count && i < TIER_SETTINGS_MAX; i++) {
		o = s->e[i].id ? tier_opt_by_persist(s->e[i].id) : NULL;
		if (!o)
			continue; /* a newer module's setting: kept, not used */
		if (t->given & BIT(o - tier_opts))
			continue; /* the table line wins */
		v = s->e[i].value;
		if (v < o->min || v > o->max) {
			(*refused)++;
			continue;
		}
		*tier_opt_u32(&out, o) = v;
		applied++;
	}
	ret = tier_policy_cfg_check(&out.policy, error);
	if (!ret)
		ret = tier_table_mem_check(&out, error);
	if (ret)
		return ret;
	*t = out;
	return applied;
}

int tier_table_settings_record(struct tier_settings *s,
			       const struct tier_table *t, const char *key)
{
	const struct tier_opt *o = tier_opt_find(key);

	if (!o || !o->persist)
		return -ENOENT;
	return tier_settings_put(s, o->persist, *tier_opt_u32_c(t, o));
}

void tier_table_settings_reset(struct tier_table *live,
			       const struct tier_table *line)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tier_opts); i++) {
		if (!tier_opts[i].persist)
			continue;
		*tier_opt_u32(live, &tier_opts[i]) =
			*tier_opt_u32_c(line, &tier_opts[i]);
	}
}

const char *tier_table_settings_key(u16 id)
{
	const struct tier_opt *o = id ? tier_opt_by_persist(id) : NULL;

	return o ? o->name : NULL;
}

u16 tier_table_settings_id(const char *key)
{
	const struct tier_opt *o = tier_opt_find(key);

	return o ? o->persist : 0;
}
