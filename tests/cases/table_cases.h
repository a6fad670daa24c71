/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cases for kernel/core/table.c: dm table line parsing and formatting,
 * runtime changes. Run by tests/unit/test_table.c (cmocka) and
 * tests/kunit/table_kunit.c (KUnit); see case.h.
 */
#include "case.h"
#include "format.h"
#include "table.h"

#define MAX_WORDS 64
/* A line with options, for the persisted settings cases. */
#define LINE_GIVEN "2048 2 a b 6 high_watermark 90 demote_age 5 reserve_pct 2"
#define LINE_MEM \
	"2048 2 a b 8 high_watermark 90 mem_node 0 mem_size_mb 64 demote_age 5"
#define LINE_LEN 512

/* A line split into words the way dm does, kept for the test's lifetime. */
struct words {
	unsigned int argc;
	char *argv[MAX_WORDS];
	char buf[LINE_LEN];
};

/* Split @line on single blanks (an empty line has no words). */
static struct words *split(CASE_CTX, const char *line)
{
	struct words *w = case_zalloc(sizeof(*w));
	char *p;

	CASE_ASSERT_NOT_NULL(w);
	CASE_ASSERT_LT(strlen(line), sizeof(w->buf));
	memcpy(w->buf, line, strlen(line) + 1);
	if (!*w->buf)
		return w;
	w->argv[w->argc++] = w->buf;
	for (p = w->buf; *p; p++) {
		if (*p != ' ')
			continue;
		*p = '\0';
		CASE_ASSERT_LT(w->argc, MAX_WORDS);
		w->argv[w->argc++] = p + 1;
	}
	return w;
}

/* Quoted, so that "" and trailing blanks stay visible in the TAP output. */
static void line_desc(const char *line, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "\"%s\"", line);
}

/* ---- valid lines -------------------------------------------------------- */

struct good_case {
	const char *line;
	u32 extent_sectors;
	u32 extent_shift;
	u32 nr_tiers;
	const char *metadata_dev;
	u32 commit_interval_ms;
	u32 reserve_pct;
	u32 discard_passdown;
};

/* Every option but the migration settings. */
#define OPTS_8 \
	"8 discard_passdown 0 reserve_pct 10 metadata_dev 8:48 commit_interval_ms 500"

/* clang-format off */
static const struct good_case good_cases[] = {
	{ "2048 1 8:16", 2048, 11, 1, NULL, 1000, 2, 1 },
	{ "128 2 8:16 8:32", 128, 7, 2, NULL, 1000, 2, 1 },
	{ "131072 8 a b c d e f g h", 131072, 17, 8, NULL, 1000, 2, 1 },
	{ "4096 1 /dev/mapper/x-y", 4096, 12, 1, NULL, 1000, 2, 1 },
	{ "2048 1 8:16 0", 2048, 11, 1, NULL, 1000, 2, 1 },
	{ "2048 1 8:16 2 reserve_pct 0", 2048, 11, 1, NULL, 1000, 0, 1 },
	{ "2048 1 8:16 2 reserve_pct 50", 2048, 11, 1, NULL, 1000, 50, 1 },
	{ "2048 1 8:16 2 commit_interval_ms 1", 2048, 11, 1, NULL, 1, 2, 1 },
	{ "2048 1 8:16 2 commit_interval_ms 60000", 2048, 11, 1, NULL, 60000,
	  2, 1 },
	{ "2048 1 8:16 2 discard_passdown 0", 2048, 11, 1, NULL, 1000, 2, 0 },
	{ "2048 1 8:16 2 discard_passdown 1", 2048, 11, 1, NULL, 1000, 2, 1 },
	{ "2048 1 8:16 2 metadata_dev 8:48", 2048, 11, 1, "8:48", 1000, 2, 1 },
	{ "2048 2 a b 8 discard_passdown 0 reserve_pct 10 metadata_dev c commit_interval_ms 500",
	  2048, 11, 2, "c", 500, 10, 0 },
	{ "2048 2 8:16 8:32 " OPTS_8,
	  2048, 11, 2, "8:48", 500, 10, 0 },
	{ "128 1 8:16 " OPTS_8,
	  128, 7, 1, "8:48", 500, 10, 0 },
	{ "131072 1 a", 131072, 17, 1, NULL, 1000, 2, 1 },
	{ "128 8 a b c d e f g h 2 metadata_dev i", 128, 7, 8, "i", 1000, 2,
	  1 },
	{ "02048 1 8:16", 2048, 11, 1, NULL, 1000, 2, 1 },
	{ "2048 01 8:16 02 reserve_pct 007", 2048, 11, 1, NULL, 1000, 7, 1 },
};

/* clang-format on */

static void good_case_desc(const struct good_case *c, char *desc)
{
	line_desc(c->line, desc);
}

CASE_PARAMS(good, good_cases, good_case_desc);

static void tier_table_parse_good_test(CASE_CTX)
{
	const struct good_case *c = CASE_PARAM;
	struct words *w = split(test, c->line);
	struct tier_policy_cfg cfg;
	const char *error = NULL;
	struct tier_table t;
	u32 i;

	memset(&t, 0x5a, sizeof(t));
	CASE_ASSERT_EQ_MSG(tier_table_parse(w->argc, w->argv, &t, &error), 0,
			   "%s", error);
	CASE_NULL(error);
	CASE_EQ(t.extent_sectors, c->extent_sectors);
	CASE_EQ(t.extent_shift, c->extent_shift);
	CASE_EQ(t.nr_tiers, c->nr_tiers);
	/* Device strings point into argv, in order. */
	for (i = 0; i < TIER_MAX_TIERS; i++) {
		if (i < c->nr_tiers)
			CASE_PTR_EQ(t.tier_dev[i], w->argv[2 + i]);
		else
			CASE_NULL(t.tier_dev[i]);
	}
	if (c->metadata_dev)
		CASE_STREQ(t.metadata_dev, c->metadata_dev);
	else
		CASE_NULL(t.metadata_dev);
	CASE_EQ(t.commit_interval_ms, c->commit_interval_ms);
	CASE_EQ(t.reserve_pct, c->reserve_pct);
	CASE_EQ(t.discard_passdown, c->discard_passdown);
	/* No migration setting given: all at their defaults. */
	tier_policy_cfg_init(&cfg);
	CASE_MEMEQ(&t.policy, &cfg, sizeof(cfg));
}

/* ---- migration settings ------------------------------------------------- */

struct policy_case {
	const char *line;
	size_t field; /* offset in struct tier_policy_cfg */
	u32 value;
};

#define PF(f) offsetof(struct tier_policy_cfg, f)

/* clang-format off */
static const struct policy_case policy_cases[] = {
	{ "2048 2 a b 2 auto_migrate 0", PF(auto_migrate), 0 },
	{ "2048 2 a b 2 auto_migrate 1", PF(auto_migrate), 1 },
	{ "2048 2 a b 2 high_watermark 100", PF(high_watermark), 100 },
	{ "2048 2 a b 2 high_watermark 61", PF(high_watermark), 61 },
	{ "2048 2 a b 2 low_watermark 0", PF(low_watermark), 0 },
	{ "2048 2 a b 2 low_watermark 79", PF(low_watermark), 79 },
	{ "2048 2 a b 2 demote_age 0", PF(demote_age), 0 },
	{ "2048 2 a b 2 demote_age 315360000", PF(demote_age), 315360000 },
	{ "2048 2 a b 2 drain_deadline 604800", PF(drain_deadline), 604800 },
	{ "2048 2 a b 2 promote_hits 0", PF(promote_hits), 0 },
	{ "2048 2 a b 2 promote_hits 65535", PF(promote_hits), 65535 },
	{ "2048 2 a b 2 promote_window 1", PF(promote_window), 1 },
	{ "2048 2 a b 2 promote_window 604800", PF(promote_window), 604800 },
	{ "2048 2 a b 2 migration_bandwidth 1048576", PF(migration_bandwidth),
	  1048576 },
	{ "2048 2 a b 2 migration_inflight 1", PF(migration_inflight), 1 },
	{ "2048 2 a b 2 migration_inflight 64", PF(migration_inflight), 64 },
	{ "2048 2 a b 2 redirect_writes 0", PF(redirect_writes), 0 },
};

/* clang-format on */

static void policy_case_desc(const struct policy_case *c, char *desc)
{
	line_desc(c->line, desc);
}

CASE_PARAMS(policy, policy_cases, policy_case_desc);

/* Each key sets its own field; every other setting keeps its default. */
static void tier_table_parse_policy_test(CASE_CTX)
{
	const struct policy_case *c = CASE_PARAM;
	struct words *w = split(test, c->line);
	struct tier_policy_cfg want;
	const char *error = NULL;
	struct tier_table t;

	CASE_ASSERT_EQ_MSG(tier_table_parse(w->argc, w->argv, &t, &error), 0,
			   "%s", error);
	tier_policy_cfg_init(&want);
	*(u32 *)((char *)&want + c->field) = c->value;
	CASE_EQ(memcmp(&t.policy, &want, sizeof(want)), 0);
	CASE_EQ(t.commit_interval_ms, TIER_COMMIT_INTERVAL_DEF);
	CASE_EQ(t.reserve_pct, TIER_RESERVE_PCT_DEF);
	CASE_EQ(t.discard_passdown, 1);
}

/* Every key, in row order. */
#define POLICY_ALL_FWD_LINE                                                \
	"2048 1 a 20 auto_migrate 0 high_watermark 90 low_watermark 10 "   \
	"demote_age 3600 drain_deadline 60 promote_hits 2 promote_window " \
	"30 migration_bandwidth 100 migration_inflight 8 redirect_writes 0"

/* Several migration settings at once: they must parse. */
static const char *const policy_valid_lines[] = {
	"2048 2 a b 4 high_watermark 100 low_watermark 99",
	"2048 2 a b 4 low_watermark 0 high_watermark 1",
	POLICY_ALL_FWD_LINE,
};

static void policy_valid_desc(const char *const *line, char *desc)
{
	line_desc(*line, desc);
}

CASE_PARAMS(policy_valid, policy_valid_lines, policy_valid_desc);

static void tier_table_parse_policy_valid_test(CASE_CTX)
{
	const char *const *line = CASE_PARAM;
	struct words *w = split(test, *line);
	const char *error = NULL;
	struct tier_table t;

	CASE_EQ_MSG(tier_table_parse(w->argc, w->argv, &t, &error), 0, "%s",
		    error);
	CASE_NULL(error);
}

/* Every key, in reverse row order. */
#define POLICY_ALL_LINE                                                    \
	"2048 1 a 20 redirect_writes 0 migration_inflight 9 "              \
	"migration_bandwidth 7 promote_window 6 promote_hits 5 "           \
	"drain_deadline 4 demote_age 3 low_watermark 2 high_watermark 90 " \
	"auto_migrate 0"

static void tier_table_parse_policy_all_test(CASE_CTX)
{
	struct words *w = split(test, POLICY_ALL_LINE);
	const char *error = NULL;
	struct tier_table t;

	CASE_ASSERT_EQ_MSG(tier_table_parse(w->argc, w->argv, &t, &error), 0,
			   "%s", error);
	CASE_EQ(t.policy.auto_migrate, 0);
	CASE_EQ(t.policy.high_watermark, 90);
	CASE_EQ(t.policy.low_watermark, 2);
	CASE_EQ(t.policy.demote_age, 3);
	CASE_EQ(t.policy.drain_deadline, 4);
	CASE_EQ(t.policy.promote_hits, 5);
	CASE_EQ(t.policy.promote_window, 6);
	CASE_EQ(t.policy.migration_bandwidth, 7);
	CASE_EQ(t.policy.migration_inflight, 9);
	CASE_EQ(t.policy.redirect_writes, 0);
	CASE_EQ(t.reserve_pct, TIER_RESERVE_PCT_DEF);
}

/* ---- malformed lines ---------------------------------------------------- */

struct bad_case {
	const char *line;
	int ret;
	const char *error;
};

#define E_ARGS "Not enough arguments"
#define E_EXTENT "Invalid extent size"
#define E_RANGE "Extent size must be a power of two from 128 to 131072 sectors"
#define E_TIERS "Number of tiers must be from 1 to 8"
#define E_DEVS "Not enough tier devices"
#define E_EMPTY "Empty device name"
#define E_DUP "Duplicate device"
#define E_COUNT "Invalid optional argument count"
#define E_MISMATCH "Optional argument count does not match arguments"
#define E_UNKNOWN "Unknown optional argument"
#define E_TWICE "Optional argument given twice"
#define E_MISSING "Missing optional argument value"
#define E_VALUE "Invalid optional argument value"
#define E_VRANGE "Optional argument value out of range"
#define E_WM "low_watermark must be below high_watermark"

/* clang-format off */
static const struct bad_case bad_cases[] = {
	/* counts */
	{ "", -EINVAL, E_ARGS },
	{ "2048", -EINVAL, E_ARGS },
	{ "2048 1", -EINVAL, E_ARGS },
	{ "2048 2 8:16", -EINVAL, E_DEVS },
	{ "2048 3 8:16 8:32", -EINVAL, E_DEVS },
	{ "2048 8 a b c d e f g", -EINVAL, E_DEVS },
	/* extent size */
	{ "x 1 8:16", -EINVAL, E_EXTENT },
	{ "+2048 1 8:16", -EINVAL, E_EXTENT },
	{ "-2048 1 8:16", -EINVAL, E_EXTENT },
	{ " 2048 1 8:16", -EINVAL, E_EXTENT },
	{ "2048k 1 8:16", -EINVAL, E_EXTENT },
	{ "0x800 1 8:16", -EINVAL, E_EXTENT },
	{ "4294967296 1 8:16", -EINVAL, E_EXTENT },
	{ "99999999999999999999999 1 8:16", -EINVAL, E_EXTENT },
	{ "2047 1 8:16", -EINVAL, E_RANGE },
	{ "3072 1 8:16", -EINVAL, E_RANGE },
	{ "64 1 8:16", -EINVAL, E_RANGE },
	{ "0 1 8:16", -EINVAL, E_RANGE },
	{ "262144 1 8:16", -EINVAL, E_RANGE },
	{ "2147483648 1 8:16", -EINVAL, E_RANGE },
	/* tiers */
	{ "2048 0 8:16", -EINVAL, E_TIERS },
	{ "2048 9 a b c d e f g h i", -EINVAL, E_TIERS },
	{ "2048 -1 8:16", -EINVAL, E_TIERS },
	{ "2048 1x 8:16", -EINVAL, E_TIERS },
	{ "2048 4294967297 8:16", -EINVAL, E_TIERS },
	{ "2048 1  8:16", -EINVAL, E_EMPTY },
	{ "2048 2 8:16 ", -EINVAL, E_EMPTY },
	{ "2048 2 8:16 8:16", -EINVAL, E_DUP },
	{ "2048 3 a b a", -EINVAL, E_DUP },
	{ "2048 2 8:16 8:32 2 metadata_dev 8:32", -EINVAL, E_DUP },
	{ "2048 1 8:16 2 metadata_dev 8:16", -EINVAL, E_DUP },
	/* optional arguments */
	{ "2048 1 8:16 x", -EINVAL, E_COUNT },
	{ "2048 1 8:16 +2 reserve_pct 3", -EINVAL, E_COUNT },
	{ "2048 1 8:16 ", -EINVAL, E_COUNT },
	{ "2048 1 8:16 99999999999", -EINVAL, E_COUNT },
	{ "2048 1 8:16 1", -EINVAL, E_MISMATCH },
	{ "2048 1 8:16 0 reserve_pct", -EINVAL, E_MISMATCH },
	{ "2048 1 8:16 2 reserve_pct", -EINVAL, E_MISMATCH },
	{ "2048 1 8:16 2 reserve_pct 3 4", -EINVAL, E_MISMATCH },
	{ "2048 1 8:16 1 reserve_pct", -EINVAL, E_MISSING },
	{ "2048 1 8:16 3 reserve_pct 3 discard_passdown", -EINVAL, E_MISSING },
	{ "2048 1 8:16 1 metadata_dev", -EINVAL, E_MISSING },
	{ "2048 1 8:16 2 bogus 1", -EINVAL, E_UNKNOWN },
	{ "2048 1 8:16 2 RESERVE_PCT 1", -EINVAL, E_UNKNOWN },
	{ "2048 1 8:16 2 8:32 reserve_pct", -EINVAL, E_UNKNOWN },
	{ "2048 1 8:16 2  1", -EINVAL, E_UNKNOWN },
	{ "2048 1 8:16 4 reserve_pct 1 reserve_pct 2", -EINVAL, E_TWICE },
	{ "2048 1 8:16 4 metadata_dev a metadata_dev b", -EINVAL, E_TWICE },
	{ "2048 1 8:16 2 reserve_pct x", -EINVAL, E_VALUE },
	{ "2048 1 8:16 2 reserve_pct -1", -EINVAL, E_VALUE },
	{ "2048 1 8:16 2 reserve_pct 1.5", -EINVAL, E_VALUE },
	{ "2048 1 8:16 2 reserve_pct ", -EINVAL, E_VALUE },
	{ "2048 1 8:16 2 commit_interval_ms 99999999999", -EINVAL, E_VALUE },
	{ "2048 1 8:16 2 reserve_pct 51", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 commit_interval_ms 0", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 commit_interval_ms 60001", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 discard_passdown 2", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 metadata_dev ", -EINVAL, E_EMPTY },
	/* migration settings */
	{ "2048 1 8:16 2 auto_migrate 2", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 high_watermark 0", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 high_watermark 101", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 low_watermark 100", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 demote_age 315360001", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 drain_deadline 604801", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 promote_hits 65536", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 promote_window 0", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 promote_window 604801", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 migration_bandwidth 1048577", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 migration_inflight 0", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 migration_inflight 65", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 redirect_writes 2", -EINVAL, E_VRANGE },
	{ "2048 1 8:16 2 promote_hits x", -EINVAL, E_VALUE },
	{ "2048 1 8:16 4 high_watermark 5 high_watermark 6", -EINVAL, E_TWICE },
	/* cross-checks */
	{ "2048 1 8:16 2 low_watermark 80", -EINVAL, E_WM },
	{ "2048 1 8:16 2 high_watermark 60", -EINVAL, E_WM },
	{ "2048 1 8:16 4 high_watermark 50 low_watermark 50", -EINVAL, E_WM },
	{ "2048 1 8:16 4 low_watermark 99 high_watermark 1", -EINVAL, E_WM },
};

/* clang-format on */

static void bad_case_desc(const struct bad_case *c, char *desc)
{
	line_desc(c->line, desc);
}

CASE_PARAMS(bad, bad_cases, bad_case_desc);

static void tier_table_parse_bad_test(CASE_CTX)
{
	const struct bad_case *c = CASE_PARAM;
	struct words *w = split(test, c->line);
	struct tier_table t, before;
	const char *error = NULL;

	memset(&t, 0x5a, sizeof(t));
	before = t;
	CASE_EQ(tier_table_parse(w->argc, w->argv, &t, &error), c->ret);
	CASE_ASSERT_NOT_NULL(error);
	CASE_STREQ(error, c->error);
	/* The output is written only on success. */
	CASE_EQ(memcmp(&t, &before, sizeof(t)), 0);
}

/* ---- defaults ----------------------------------------------------------- */

static void tier_table_init_test(CASE_CTX)
{
	struct tier_policy_cfg cfg;
	struct tier_table t;
	u32 i;

	memset(&t, 0x5a, sizeof(t));
	tier_table_init(&t);
	CASE_EQ(t.extent_sectors, 0);
	CASE_EQ(t.nr_tiers, 0);
	for (i = 0; i < TIER_MAX_TIERS; i++)
		CASE_NULL(t.tier_dev[i]);
	CASE_NULL(t.metadata_dev);
	CASE_EQ(t.commit_interval_ms, TIER_COMMIT_INTERVAL_DEF);
	CASE_EQ(t.commit_interval_ms, 1000);
	CASE_EQ(t.reserve_pct, TIER_RESERVE_PCT_DEF);
	CASE_EQ(t.reserve_pct, 2);
	CASE_EQ(t.discard_passdown, 1);
	tier_policy_cfg_init(&cfg);
	CASE_EQ(memcmp(&t.policy, &cfg, sizeof(cfg)), 0);
}

/* ---- formatting --------------------------------------------------------- */

#define FORMAT_LINE_2 "2048 2 259:0 8:16 4 metadata_dev 8:32 discard_passdown 0"
#define FORMAT_LINE_3 \
	"2048 2 259:0 8:16 6 commit_interval_ms 5 reserve_pct 0 discard_passdown 0"
#define FORMAT_LINE_4                                                       \
	"2048 1 a 8 reserve_pct 3 low_watermark 10 migration_bandwidth 50 " \
	"redirect_writes 0"
#define FORMAT_LINE_5                                                    \
	"2048 1 a 20 auto_migrate 0 high_watermark 70 low_watermark 10 " \
	"demote_age 1 drain_deadline 2 promote_hits 3 promote_window 4 " \
	"migration_bandwidth 50 migration_inflight 5 redirect_writes 0"

static void tier_table_format_test(CASE_CTX)
{
	char *buf = case_zalloc(256);
	struct tier_table t;

	CASE_ASSERT_NOT_NULL(buf);
	tier_table_init(&t);
	t.extent_sectors = 2048;
	t.extent_shift = 11;
	t.nr_tiers = 2;
	t.tier_dev[0] = "259:0";
	t.tier_dev[1] = "8:16";
	CASE_EQ(tier_table_format(&t, buf, 256), 17);
	CASE_STREQ(buf, "2048 2 259:0 8:16");

	/* Only non-defaults, in key table order. */
	t.discard_passdown = 0;
	t.metadata_dev = "8:32";
	CASE_GT(tier_table_format(&t, buf, 256), 0);
	CASE_STREQ(buf, FORMAT_LINE_2);
	t.commit_interval_ms = 5;
	t.reserve_pct = 0;
	t.metadata_dev = NULL;
	CASE_GT(tier_table_format(&t, buf, 256), 0);
	CASE_STREQ(buf, FORMAT_LINE_3);

	/* Policy keys after the others, in row order, only non-defaults. */
	tier_table_init(&t);
	t.extent_sectors = 2048;
	t.nr_tiers = 1;
	t.tier_dev[0] = "a";
	t.policy.redirect_writes = 0;
	t.policy.low_watermark = 10;
	t.policy.migration_bandwidth = 50;
	t.reserve_pct = 3;
	CASE_GT(tier_table_format(&t, buf, 256), 0);
	CASE_STREQ(buf, FORMAT_LINE_4);
	/* Every policy key once. */
	t.reserve_pct = 2;
	t.policy.auto_migrate = 0;
	t.policy.high_watermark = 70;
	t.policy.demote_age = 1;
	t.policy.drain_deadline = 2;
	t.policy.promote_hits = 3;
	t.policy.promote_window = 4;
	t.policy.migration_inflight = 5;
	CASE_GT(tier_table_format(&t, buf, 256), 0);
	CASE_STREQ(buf, FORMAT_LINE_5);
}

static void tier_table_format_small_buffer_test(CASE_CTX)
{
	char *buf = case_zalloc(64);
	struct tier_table t;
	int full, len;

	CASE_ASSERT_NOT_NULL(buf);
	tier_table_init(&t);
	t.extent_sectors = 2048;
	t.nr_tiers = 1;
	t.tier_dev[0] = "253:1";
	t.reserve_pct = 7;
	full = tier_table_format(&t, buf, 64);
	CASE_STREQ(buf, "2048 1 253:1 2 reserve_pct 7");
	CASE_ASSERT_EQ(full, strlen(buf));
	/* Exactly fits, one short, every shorter size, empty. */
	CASE_EQ(tier_table_format(&t, buf, full + 1), full);
	for (len = full; len >= 1; len--) {
		memset(buf, 'x', 64);
		CASE_EQ(tier_table_format(&t, buf, len), -ENOSPC);
		/* Truncated, NUL-terminated, nothing written past @len. */
		CASE_EQ(strlen(buf), len - 1);
		CASE_EQ(buf[len], 'x');
	}
	buf[0] = 'x';
	CASE_EQ(tier_table_format(&t, buf, 0), -ENOSPC);
	CASE_EQ(buf[0], 'x');
	CASE_EQ(tier_table_format(&t, NULL, 0), -ENOSPC);
}

/* ---- round trips -------------------------------------------------------- */

/* format(parse(line)) == line for lines in canonical form. */
#define CANON_POLICY_LINE                                                  \
	"2048 1 a 22 reserve_pct 3 auto_migrate 0 high_watermark 90 "      \
	"low_watermark 0 demote_age 315360000 drain_deadline 604800 "      \
	"promote_hits 65535 promote_window 1 migration_bandwidth 1048576 " \
	"migration_inflight 64 redirect_writes 0"

struct canon_case {
	const char *line;
};

/* clang-format off */
static const struct canon_case canon_cases[] = {
	{ "2048 1 8:16" },
	{ "128 8 a b c d e f g h" },
	{ "131072 2 259:0 8:16 2 metadata_dev 253:9" },
	{ "2048 1 8:16 2 reserve_pct 0" },
	{ "128 1 a 8 metadata_dev d commit_interval_ms 1 reserve_pct 50 discard_passdown 0" },
	{ "2048 1 a 4 high_watermark 100 low_watermark 99" },
	{ CANON_POLICY_LINE },
};

/* clang-format on */

static void canon_case_desc(const struct canon_case *c, char *desc)
{
	line_desc(c->line, desc);
}

CASE_PARAMS(canon, canon_cases, canon_case_desc);

static void tier_table_canonical_test(CASE_CTX)
{
	const struct canon_case *c = CASE_PARAM;
	struct words *w = split(test, c->line);
	char *buf = case_zalloc(LINE_LEN);
	const char *error = NULL;
	struct tier_table t;

	CASE_ASSERT_NOT_NULL(buf);
	CASE_ASSERT_EQ_MSG(tier_table_parse(w->argc, w->argv, &t, &error), 0,
			   "%s", error);
	CASE_EQ(tier_table_format(&t, buf, LINE_LEN), strlen(c->line));
	CASE_STREQ(buf, c->line);
}

static void expect_tables_equal(CASE_CTX, const struct tier_table *a,
				const struct tier_table *b)
{
	u32 i;

	CASE_EQ(a->extent_sectors, b->extent_sectors);
	CASE_EQ(a->extent_shift, b->extent_shift);
	CASE_EQ(a->nr_tiers, b->nr_tiers);
	for (i = 0; i < TIER_MAX_TIERS; i++) {
		if (i < a->nr_tiers)
			CASE_STREQ(a->tier_dev[i], b->tier_dev[i]);
		else
			CASE_NULL(b->tier_dev[i]);
	}
	if (a->metadata_dev)
		CASE_STREQ(a->metadata_dev, b->metadata_dev);
	else
		CASE_NULL(b->metadata_dev);
	CASE_EQ(a->commit_interval_ms, b->commit_interval_ms);
	CASE_EQ(a->reserve_pct, b->reserve_pct);
	CASE_EQ(a->discard_passdown, b->discard_passdown);
	CASE_EQ(memcmp(&a->policy, &b->policy, sizeof(a->policy)), 0);
}

static u32 lcg(u32 *seed)
{
	*seed = *seed * 1103515245 + 12345;
	return *seed >> 4;
}

/* Each setting at its default or a random valid value. */
static void random_policy(struct tier_policy_cfg *p, u32 *seed)
{
	u32 bits = lcg(seed);

	if (bits & 0x1)
		p->auto_migrate = lcg(seed) & 1;
	if (bits & 0x2)
		p->high_watermark = 1 + lcg(seed) % 100;
	if (bits & 0x4 || p->low_watermark >= p->high_watermark)
		p->low_watermark = lcg(seed) % p->high_watermark;
	if (bits & 0x8)
		p->demote_age = lcg(seed) % (TIER_DEMOTE_AGE_MAX + 1);
	if (bits & 0x10)
		p->drain_deadline = lcg(seed) % (TIER_DRAIN_DEADLINE_MAX + 1);
	if (bits & 0x20)
		p->promote_hits = lcg(seed) % (TIER_PROMOTE_HITS_MAX + 1);
	if (bits & 0x40)
		p->promote_window = 1 + lcg(seed) % TIER_PROMOTE_WINDOW_MAX;
	if (bits & 0x80)
		p->migration_bandwidth =
			lcg(seed) % (TIER_MIG_BANDWIDTH_MAX + 1);
	if (bits & 0x100)
		p->migration_inflight = 1 + lcg(seed) % TIER_MIG_INFLIGHT_MAX;
	if (bits & 0x200)
		p->redirect_writes = lcg(seed) & 1;
}

/* parse(format(t)) == t, and format again gives the same line. */
static void tier_table_roundtrip_test(CASE_CTX)
{
	static const char *const devs[] = { "259:0", "259:1", "8:16", "8:32",
					    "8:48",  "8:64",  "8:80", "8:96" };
	char *line = case_zalloc(LINE_LEN);
	char *again = case_zalloc(LINE_LEN);
	struct tier_table t, back;
	const char *error = NULL;
	struct words *w;
	u32 seed = 3, i;
	int n, len, ret;

	CASE_ASSERT_NOT_NULL(line);
	CASE_ASSERT_NOT_NULL(again);
	for (n = 0; n < 2000; n++) {
		seed = seed * 1103515245 + 12345;
		tier_table_init(&t);
		t.extent_shift = 7 + (seed >> 8) % 11;
		t.extent_sectors = 1U << t.extent_shift;
		t.nr_tiers = 1 + (seed >> 12) % 8;
		for (i = 0; i < t.nr_tiers; i++)
			t.tier_dev[i] = devs[i];
		if (seed & 0x10000)
			t.metadata_dev = "253:9";
		if (seed & 0x20000)
			t.commit_interval_ms = 1 + (seed >> 3) % 60000;
		if (seed & 0x40000)
			t.reserve_pct = (seed >> 5) % 51;
		if (seed & 0x80000)
			t.discard_passdown = (seed >> 9) & 1;
		random_policy(&t.policy, &seed);
		len = tier_table_format(&t, line, LINE_LEN);
		CASE_ASSERT_GT(len, 0);
		CASE_ASSERT_EQ(len, strlen(line));
		w = split(test, line);
		ret = tier_table_parse(w->argc, w->argv, &back, &error);
		CASE_ASSERT_EQ_MSG(ret, 0, "\"%s\": %s", line, error);
		expect_tables_equal(test, &t, &back);
		CASE_ASSERT_EQ(tier_table_format(&back, again, LINE_LEN), len);
		CASE_ASSERT_STREQ(line, again);
		case_free(w);
	}
}

/* ---- runtime changes ---------------------------------------------------- */

struct set_case {
	const char *key;
	const char *value;
	int ret;
	const char *error; /* NULL: success */
	size_t field; /* offset in struct tier_table, on success */
	u32 want;
};

#define TF(f) offsetof(struct tier_table, f)
#define E_FIXED "Optional argument cannot be changed at runtime"

/*
 * Applied in order to "2048 2 a b 2 metadata_dev c"; each failure must
 * leave the table as it was.
 */
/* clang-format off */
static const struct set_case set_cases[] = {
	{ "commit_interval_ms", "250", 0, NULL, TF(commit_interval_ms), 250 },
	{ "reserve_pct", "0", 0, NULL, TF(reserve_pct), 0 },
	{ "discard_passdown", "0", 0, NULL, TF(discard_passdown), 0 },
	{ "auto_migrate", "0", 0, NULL, TF(policy.auto_migrate), 0 },
	{ "high_watermark", "95", 0, NULL, TF(policy.high_watermark), 95 },
	{ "low_watermark", "90", 0, NULL, TF(policy.low_watermark), 90 },
	{ "demote_age", "86400", 0, NULL, TF(policy.demote_age), 86400 },
	{ "drain_deadline", "600", 0, NULL, TF(policy.drain_deadline), 600 },
	{ "promote_hits", "0", 0, NULL, TF(policy.promote_hits), 0 },
	{ "promote_window", "1", 0, NULL, TF(policy.promote_window), 1 },
	{ "migration_bandwidth", "200", 0, NULL,
	  TF(policy.migration_bandwidth), 200 },
	{ "migration_inflight", "64", 0, NULL, TF(policy.migration_inflight),
	  64 },
	{ "redirect_writes", "0", 0, NULL, TF(policy.redirect_writes), 0 },
	{ "reserve_pct", "002", 0, NULL, TF(reserve_pct), 2 },
	{ "bogus", "1", -ENOENT, E_UNKNOWN, 0, 0 },
	{ "", "1", -ENOENT, E_UNKNOWN, 0, 0 },
	{ "Reserve_pct", "1", -ENOENT, E_UNKNOWN, 0, 0 },
	{ "metadata_dev", "d", -ENOENT, E_FIXED, 0, 0 },
	{ "reserve_pct", "51", -EINVAL, E_VRANGE, 0, 0 },
	{ "commit_interval_ms", "0", -EINVAL, E_VRANGE, 0, 0 },
	{ "migration_inflight", "65", -EINVAL, E_VRANGE, 0, 0 },
	{ "high_watermark", "101", -EINVAL, E_VRANGE, 0, 0 },
	{ "promote_window", "0", -EINVAL, E_VRANGE, 0, 0 },
	{ "reserve_pct", "x", -EINVAL, E_VALUE, 0, 0 },
	{ "reserve_pct", "", -EINVAL, E_VALUE, 0, 0 },
	{ "reserve_pct", NULL, -EINVAL, E_VALUE, 0, 0 },
	{ "reserve_pct", "-1", -EINVAL, E_VALUE, 0, 0 },
	{ "demote_age", "4294967296", -EINVAL, E_VALUE, 0, 0 },
	/* high 95, low 90 */
	{ "high_watermark", "90", -EINVAL, E_WM, 0, 0 },
	{ "low_watermark", "95", -EINVAL, E_WM, 0, 0 },
	{ "low_watermark", "10", 0, NULL, TF(policy.low_watermark), 10 },
	{ "high_watermark", "11", 0, NULL, TF(policy.high_watermark), 11 },
};

/* clang-format on */

static void tier_table_set_opt_test(CASE_CTX)
{
	struct words *w = split(test, "2048 2 a b 2 metadata_dev c");
	const struct set_case *c;
	struct tier_table t, before;
	const char *error;
	size_t i;
	int ret;

	CASE_ASSERT_EQ(tier_table_parse(w->argc, w->argv, &t, &error), 0);
	for (i = 0; i < ARRAY_SIZE(set_cases); i++) {
		c = &set_cases[i];
		before = t;
		error = NULL;
		ret = tier_table_set_opt(&t, c->key, c->value, &error);
		CASE_EQ_MSG(ret, c->ret, "set %s %s", c->key, c->value);
		if (c->error) {
			CASE_ASSERT_NOT_NULL(error);
			CASE_STREQ(error, c->error);
			CASE_EQ_MSG(memcmp(&t, &before, sizeof(t)), 0,
				    "set %s %s", c->key, c->value);
			continue;
		}
		CASE_NULL(error);
		CASE_EQ_MSG(*(u32 *)((char *)&t + c->field), c->want,
			    "set %s %s", c->key, c->value);
		*(u32 *)((char *)&before + c->field) = c->want;
		CASE_EQ(memcmp(&t, &before, sizeof(t)), 0);
	}
	CASE_STREQ(t.metadata_dev, "c");
	CASE_PTR_EQ(t.tier_dev[1], w->argv[3]);
	CASE_STREQ(t.tier_dev[1], "b");
}

/* Several settings at once: ranges per key, cross-check by the caller. */
static void tier_table_set_u32_test(CASE_CTX)
{
	struct tier_table t, before;
	const char *error = NULL;
	int r;

	tier_table_init(&t);
	before = t;
	CASE_EQ(tier_table_set_u32(&t, "high_watermark", 101, &error), -EINVAL);
	CASE_STREQ(error, "Optional argument value out of range");
	error = NULL;
	CASE_EQ(tier_table_set_u32(&t, "high_watermark", 0, &error), -EINVAL);
	CASE_STREQ(error, "Optional argument value out of range");
	CASE_EQ(tier_table_set_u32(&t, "migration_inflight", 65, &error),
		-EINVAL);
	CASE_EQ(tier_table_set_u32(&t, "no_such_key", 1, &error), -ENOENT);
	CASE_EQ(tier_table_set_u32(&t, "nope", 1, &error), -ENOENT);
	CASE_EQ(tier_table_set_u32(&t, "metadata_dev", 1, &error), -ENOENT);
	CASE_EQ(memcmp(&t, &before, sizeof(t)), 0);
	r = tier_table_set_u32(&t, "high_watermark", 20, &error);
	CASE_EQ(r, 0);
	CASE_NE(tier_policy_cfg_check(&t.policy, &error), 0);
	r = tier_table_set_u32(&t, "low_watermark", 10, &error);
	CASE_EQ(r, 0);
	CASE_EQ(tier_policy_cfg_check(&t.policy, &error), 0);
	CASE_EQ(t.policy.high_watermark, 20U);
	CASE_EQ(t.policy.low_watermark, 10U);
	CASE_EQ(tier_table_set_u32(&t, "reserve_pct", 50, &error), 0);
	CASE_EQ(t.reserve_pct, 50);
}

#define E_MEM_NODE \
	"mem_size_mb needs mem_node: the device has no memory tier; reload the table with mem_node and mem_size_mb"

struct mem_case {
	const char *line;
	const char *error; /* NULL: must parse, and format back the same */
};

/* clang-format off */
static const struct mem_case mem_cases[] = {
	{ "2048 1 a 4 mem_node 1 mem_size_mb 4096", NULL },
	{ "2048 1 a 4 mem_node 0 mem_size_mb 1", NULL },
	{ "2048 1 a 6 mem_node 1023 mem_size_mb 1048576 mem_promote_hits 65535", NULL },
	{ "2048 1 a 2 mem_promote_hits 1", NULL },
	{ "2048 1 a 2 mem_node 1", "mem_node needs mem_size_mb" },
	{ "2048 1 a 2 mem_size_mb 64", E_MEM_NODE },
	{ "2048 1 a 4 mem_node 1024 mem_size_mb 1", "Optional argument value out of range" },
	{ "2048 1 a 4 mem_node 1 mem_size_mb 0", "Optional argument value out of range" },
	{ "2048 1 a 4 mem_node 1 mem_size_mb 1048577", "Optional argument value out of range" },
	{ "2048 1 a 2 mem_promote_hits 0", "Optional argument value out of range" },
	{ "2048 1 a 2 mem_promote_hits 65536", "Optional argument value out of range" },
	{ "2048 1 a 4 mem_node x mem_size_mb 1", "Invalid optional argument value" },
};

/* clang-format on */

static void mem_case_desc(const struct mem_case *c, char *desc)
{
	line_desc(c->line, desc);
}

CASE_PARAMS(mem, mem_cases, mem_case_desc);

static void tier_table_mem_keys_test(CASE_CTX)
{
	const struct mem_case *c = CASE_PARAM;
	struct words *w = split(test, c->line);
	const char *error = NULL;
	struct tier_table t;
	char *buf;

	if (c->error) {
		CASE_EQ(tier_table_parse(w->argc, w->argv, &t, &error),
			-EINVAL);
		CASE_ASSERT_NOT_NULL(error);
		CASE_STREQ(error, c->error);
		return;
	}
	buf = case_zalloc(LINE_LEN);
	CASE_ASSERT_NOT_NULL(buf);
	CASE_ASSERT_EQ(tier_table_parse(w->argc, w->argv, &t, &error), 0);
	CASE_GT(tier_table_format(&t, buf, LINE_LEN), 0);
	CASE_STREQ(buf, c->line);
}

/* set: size and hits change live, the node does not; none without a tier. */
static void tier_table_mem_set_test(CASE_CTX)
{
	struct words *w = split(test, "2048 1 a 4 mem_node 1 mem_size_mb 64");
	struct words *plain = split(test, "2048 1 a");
	struct tier_table t, before;
	const char *error = NULL;
	int r;

	tier_table_init(&t);
	CASE_EQ(t.mem_node, TIER_MEM_NODE_NONE);
	CASE_EQ(t.mem_size_mb, 0U);
	CASE_EQ(t.policy.mem_promote_hits, 2U);

	CASE_ASSERT_EQ(tier_table_parse(w->argc, w->argv, &t, &error), 0);
	r = tier_table_set_opt(&t, "mem_size_mb", "128", &error);
	CASE_EQ(r, 0);
	CASE_EQ(t.mem_size_mb, 128U);
	CASE_EQ(tier_table_set_opt(&t, "mem_promote_hits", "5", &error), 0);
	CASE_EQ(t.policy.mem_promote_hits, 5U);
	before = t;
	CASE_EQ(tier_table_set_opt(&t, "mem_node", "0", &error), -ENOENT);
	CASE_STREQ(error, "Optional argument cannot be changed at runtime");
	CASE_EQ(tier_table_set_u32(&t, "mem_node", 0, &error), -ENOENT);
	CASE_EQ(tier_table_set_opt(&t, "mem_size_mb", "0", &error), -EINVAL);
	CASE_EQ(memcmp(&t, &before, sizeof(t)), 0);
	CASE_EQ(tier_table_set_u32(&t, "mem_size_mb", 256, &error), 0);
	CASE_EQ(t.mem_size_mb, 256U);

	CASE_ASSERT_EQ(tier_table_parse(plain->argc, plain->argv, &t, &error),
		       0);
	before = t;
	CASE_EQ(tier_table_set_opt(&t, "mem_size_mb", "64", &error), -EINVAL);
	CASE_STREQ(error, E_MEM_NODE);
	CASE_EQ(memcmp(&t, &before, sizeof(t)), 0);
}

/* ---- persisted settings ------------------------------------------------- */

/* Every option "set" can change persists, but mem_size_mb; ids distinct. */
static void tier_table_settings_ids_test(CASE_CTX)
{
	static const char *const persisted[] = {
		"commit_interval_ms",  "reserve_pct",
		"discard_passdown",    "auto_migrate",
		"high_watermark",      "low_watermark",
		"demote_age",	       "drain_deadline",
		"promote_hits",	       "promote_window",
		"migration_bandwidth", "migration_inflight",
		"redirect_writes",     "mem_promote_hits",
		"offline_queue_s",
	};
	u32 seen = 0;
	size_t i;
	u16 id;

	for (i = 0; i < ARRAY_SIZE(persisted); i++) {
		id = tier_table_settings_id(persisted[i]);
		CASE_TRUE_MSG(id >= 1 && id < 32, "%s", persisted[i]);
		CASE_FALSE_MSG(seen & BIT(id), "%s", persisted[i]);
		seen |= BIT(id);
		CASE_STREQ(tier_table_settings_key(id), persisted[i]);
	}
	/* The ids on disk: never renumbered. */
	CASE_EQ(tier_table_settings_id("commit_interval_ms"), 1);
	CASE_EQ(tier_table_settings_id("high_watermark"), 5);
	CASE_EQ(tier_table_settings_id("mem_promote_hits"), 14);
	CASE_EQ(tier_table_settings_id("mem_size_mb"), 0);
	CASE_EQ(tier_table_settings_id("mem_node"), 0);
	CASE_EQ(tier_table_settings_id("metadata_dev"), 0);
	CASE_EQ(tier_table_settings_id("nosuch"), 0);
	CASE_NULL(tier_table_settings_key(0));
	CASE_NULL(tier_table_settings_key(999));
}

/* The parser records which options the line gave. */
static void tier_table_given_test(CASE_CTX)
{
	struct words *w = split(test, LINE_GIVEN);
	struct words *plain = split(test, "2048 2 a b");
	struct tier_table t, u;
	const char *error;

	CASE_ASSERT_EQ(tier_table_parse(plain->argc, plain->argv, &t, &error),
		       0);
	CASE_EQ(t.given, 0);
	CASE_ASSERT_EQ(tier_table_parse(w->argc, w->argv, &t, &error), 0);
	CASE_NE(t.given, 0);
	/* A "set" changes the value, not what the line gave. */
	u = t;
	CASE_EQ(tier_table_set_opt(&u, "low_watermark", "10", &error), 0);
	CASE_EQ(u.given, t.given);
}

static void settings_add(struct tier_settings *s, const char *key, u32 v)
{
	tier_settings_put(s, tier_table_settings_id(key), v);
}

/* Precedence: the table line, then the persisted value, then the default. */
static void tier_table_settings_apply_test(CASE_CTX)
{
	struct words *w = split(test, LINE_GIVEN);
	struct tier_settings *s = case_alloc(test, sizeof(*s));
	struct tier_table t;
	const char *error = NULL;
	u32 refused = 9;

	settings_add(s, "high_watermark", 70);
	settings_add(s, "low_watermark", 30);
	settings_add(s, "demote_age", 100);
	settings_add(s, "reserve_pct", 7);
	settings_add(s, "commit_interval_ms", 250);
	settings_add(s, "mem_promote_hits", 4);
	tier_settings_put(s, 999, 1); /* a newer module's: skipped */
	CASE_ASSERT_EQ(tier_table_parse(w->argc, w->argv, &t, &error), 0);
	CASE_EQ(tier_table_settings_apply(&t, s, &refused, &error), 3);
	CASE_EQ(refused, 0);
	CASE_EQ(t.policy.high_watermark, 90); /* line */
	CASE_EQ(t.policy.demote_age, 5); /* line */
	CASE_EQ(t.reserve_pct, 2); /* line, even at the default value */
	CASE_EQ(t.policy.low_watermark, 30); /* persisted */
	CASE_EQ(t.commit_interval_ms, 250); /* persisted */
	CASE_EQ(t.policy.mem_promote_hits, 4); /* persisted */
	CASE_EQ(t.policy.promote_hits, TIER_PROMOTE_HITS_DEF); /* default */

	/* No settings: the table as parsed. */
	memset(s, 0, sizeof(*s));
	CASE_ASSERT_EQ(tier_table_parse(w->argc, w->argv, &t, &error), 0);
	CASE_EQ(tier_table_settings_apply(&t, s, &refused, &error), 0);
	CASE_EQ(t.commit_interval_ms, TIER_COMMIT_INTERVAL_DEF);
}

/* Values outside a key's range are refused one by one, not clamped. */
static void tier_table_settings_refused_test(CASE_CTX)
{
	struct words *w = split(test, "2048 2 a b");
	struct tier_settings *s = case_alloc(test, sizeof(*s));
	struct tier_table t;
	const char *error = NULL;
	u32 refused = 0;

	settings_add(s, "commit_interval_ms", 0); /* min 1 */
	settings_add(s, "reserve_pct", 51); /* max 50 */
	settings_add(s, "auto_migrate", 2); /* 0|1 */
	settings_add(s, "promote_window", 0xffffffff);
	settings_add(s, "drain_deadline", 600);
	CASE_ASSERT_EQ(tier_table_parse(w->argc, w->argv, &t, &error), 0);
	CASE_EQ(tier_table_settings_apply(&t, s, &refused, &error), 1);
	CASE_EQ(refused, 4);
	CASE_EQ(t.commit_interval_ms, TIER_COMMIT_INTERVAL_DEF);
	CASE_EQ(t.reserve_pct, TIER_RESERVE_PCT_DEF);
	CASE_EQ(t.policy.auto_migrate, TIER_AUTO_MIGRATE_DEF);
	CASE_EQ(t.policy.promote_window, TIER_PROMOTE_WINDOW_DEF);
	CASE_EQ(t.policy.drain_deadline, 600);
}

/* A result that fails the cross-checks applies nothing. */
static void tier_table_settings_cross_test(CASE_CTX)
{
	struct words *w = split(test, "2048 2 a b 2 low_watermark 40");
	struct tier_settings *s = case_alloc(test, sizeof(*s));
	struct tier_table t, before;
	const char *error = NULL;
	u32 refused = 0;

	settings_add(s, "high_watermark", 30); /* below the line's 40 */
	settings_add(s, "demote_age", 77);
	CASE_ASSERT_EQ(tier_table_parse(w->argc, w->argv, &t, &error), 0);
	before = t;
	CASE_EQ(tier_table_settings_apply(&t, s, &refused, &error), -EINVAL);
	CASE_NOT_NULL(error);
	CASE_EQ(memcmp(&t, &before, sizeof(t)), 0);
}

static void tier_table_settings_record_test(CASE_CTX)
{
	struct words *w = split(test, "2048 2 a b");
	struct tier_settings *s = case_alloc(test, sizeof(*s));
	struct tier_table t;
	const char *error = NULL;
	u32 v = 0;

	CASE_ASSERT_EQ(tier_table_parse(w->argc, w->argv, &t, &error), 0);
	CASE_EQ(tier_table_set_opt(&t, "drain_deadline", "600", &error), 0);
	CASE_EQ(tier_table_settings_record(s, &t, "drain_deadline"), 0);
	CASE_EQ(tier_settings_get(s, tier_table_settings_id("drain_deadline"),
				  &v),
		0);
	CASE_EQ(v, 600);
	/* Set to the value it had: still recorded, it was asked for. */
	CASE_EQ(tier_table_settings_record(s, &t, "promote_hits"), 0);
	CASE_EQ(s->count, 2);
	CASE_EQ(tier_table_settings_record(s, &t, "mem_size_mb"), -ENOENT);
	CASE_EQ(tier_table_settings_record(s, &t, "mem_node"), -ENOENT);
	CASE_EQ(tier_table_settings_record(s, &t, "metadata_dev"), -ENOENT);
	CASE_EQ(tier_table_settings_record(s, &t, "nosuch"), -ENOENT);
	CASE_EQ(s->count, 2);
}

/* Reset: every persisted option back to the line's value or the default. */
static void tier_table_settings_reset_test(CASE_CTX)
{
	struct words *w = split(test, LINE_MEM);
	struct tier_table line, live;
	const char *error = NULL;

	CASE_ASSERT_EQ(tier_table_parse(w->argc, w->argv, &line, &error), 0);
	live = line;
	CASE_EQ(tier_table_set_opt(&live, "high_watermark", "70", &error), 0);
	CASE_EQ(tier_table_set_opt(&live, "low_watermark", "20", &error), 0);
	CASE_EQ(tier_table_set_opt(&live, "commit_interval_ms", "5", &error),
		0);
	CASE_EQ(tier_table_set_opt(&live, "mem_size_mb", "128", &error), 0);
	tier_table_settings_reset(&live, &line);
	CASE_EQ(live.policy.high_watermark, 90);
	CASE_EQ(live.policy.low_watermark, TIER_LOW_WM_DEF);
	CASE_EQ(live.commit_interval_ms, TIER_COMMIT_INTERVAL_DEF);
	CASE_EQ(live.policy.demote_age, 5);
	CASE_EQ(live.mem_size_mb, 128); /* not persisted, not reset */
	live.mem_size_mb = line.mem_size_mb;
	CASE_EQ(memcmp(&live, &line, sizeof(live)), 0);
}

#define E_OFFQ "offline_queue_s must be from 0 to 600 seconds"

/* offline_queue_s: a table key, settable, bounded with its own message. */
static void tier_table_offline_queue_test(CASE_CTX)
{
	struct words *w = split(test, "2048 1 a 2 offline_queue_s 600");
	struct words *over = split(test, "2048 1 a 2 offline_queue_s 601");
	struct words *plain = split(test, "2048 1 a");
	struct tier_table t, before;
	const char *error = NULL;
	char *buf = case_zalloc(LINE_LEN);

	CASE_ASSERT_NOT_NULL(buf);
	tier_table_init(&t);
	CASE_EQ(t.offline_queue_s, 0U);
	CASE_ASSERT_EQ(tier_table_parse(w->argc, w->argv, &t, &error), 0);
	CASE_EQ(t.offline_queue_s, 600U);
	CASE_GT(tier_table_format(&t, buf, LINE_LEN), 0);
	CASE_STREQ(buf, "2048 1 a 2 offline_queue_s 600");
	CASE_EQ(tier_table_parse(over->argc, over->argv, &t, &error), -EINVAL);
	CASE_STREQ(error, E_OFFQ);

	/* Default 0 is not shown; set changes it live. */
	CASE_ASSERT_EQ(tier_table_parse(plain->argc, plain->argv, &t, &error),
		       0);
	CASE_GT(tier_table_format(&t, buf, LINE_LEN), 0);
	CASE_STREQ(buf, "2048 1 a");
	CASE_EQ(tier_table_set_opt(&t, "offline_queue_s", "20", &error), 0);
	CASE_EQ(t.offline_queue_s, 20U);
	before = t;
	error = NULL;
	CASE_EQ(tier_table_set_opt(&t, "offline_queue_s", "601", &error),
		-EINVAL);
	CASE_STREQ(error, E_OFFQ);
	error = NULL;
	CASE_EQ(tier_table_set_u32(&t, "offline_queue_s", 100000, &error),
		-EINVAL);
	CASE_STREQ(error, E_OFFQ);
	CASE_EQ(memcmp(&t, &before, sizeof(t)), 0);
	CASE_EQ(tier_table_set_u32(&t, "offline_queue_s", 0, &error), 0);
	CASE_EQ(t.offline_queue_s, 0U);
	/* Other rows keep the generic message. */
	CASE_EQ(tier_table_set_u32(&t, "reserve_pct", 51, &error), -EINVAL);
	CASE_STREQ(error, "Optional argument value out of range");
}

static struct case_entry table_cases[] = {
	CASE_RUN_PARAMS(tier_table_parse_good_test, good),
	CASE_RUN_PARAMS(tier_table_parse_policy_test, policy),
	CASE_RUN_PARAMS(tier_table_parse_policy_valid_test, policy_valid),
	CASE_RUN(tier_table_parse_policy_all_test),
	CASE_RUN_PARAMS(tier_table_parse_bad_test, bad),
	CASE_RUN(tier_table_init_test),
	CASE_RUN(tier_table_format_test),
	CASE_RUN(tier_table_format_small_buffer_test),
	CASE_RUN_PARAMS(tier_table_canonical_test, canon),
	CASE_RUN(tier_table_roundtrip_test),
	CASE_RUN(tier_table_set_opt_test),
	CASE_RUN(tier_table_set_u32_test),
	CASE_RUN_PARAMS(tier_table_mem_keys_test, mem),
	CASE_RUN(tier_table_mem_set_test),
	CASE_RUN(tier_table_settings_ids_test),
	CASE_RUN(tier_table_given_test),
	CASE_RUN(tier_table_settings_apply_test),
	CASE_RUN(tier_table_settings_refused_test),
	CASE_RUN(tier_table_settings_cross_test),
	CASE_RUN(tier_table_settings_record_test),
	CASE_RUN(tier_table_settings_reset_test),
	CASE_RUN(tier_table_offline_queue_test),
	{}
};
