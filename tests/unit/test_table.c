// SPDX-License-Identifier: GPL-2.0
/* Unit tests for kernel/core/table.c: dm table line parsing and formatting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "format.h"
#include "table.h"

#define MAX_WORDS 64

/* Splits @line on single blanks into @argv (words point into @copy). */
static unsigned int split(const char *line, char *copy, char **argv)
{
	unsigned int argc = 0;
	char *p = copy;

	strcpy(copy, line);
	if (!*p)
		return 0;
	argv[argc++] = p;
	for (; *p; p++) {
		if (*p == ' ') {
			*p = '\0';
			assert_true(argc < MAX_WORDS);
			argv[argc++] = p + 1;
		}
	}
	return argc;
}

struct parse_case {
	const char *line;
	const char *error;	/* NULL: must parse */
};

static const struct parse_case cases[] = {
	/* good */
	{ "2048 1 8:16", NULL },
	{ "128 2 8:16 8:32", NULL },
	{ "131072 8 a b c d e f g h", NULL },
	{ "2048 1 8:16 0", NULL },
	{ "2048 1 8:16 2 reserve_pct 0", NULL },
	{ "2048 1 8:16 2 reserve_pct 50", NULL },
	{ "2048 1 8:16 2 commit_interval_ms 1", NULL },
	{ "2048 1 8:16 2 commit_interval_ms 60000", NULL },
	{ "2048 1 8:16 2 discard_passdown 0", NULL },
	{ "2048 1 8:16 2 metadata_dev 8:48", NULL },
	{ "2048 2 8:16 8:32 8 discard_passdown 0 reserve_pct 10 "
	  "metadata_dev 8:48 commit_interval_ms 500", NULL },
	{ "02048 1 8:16", NULL },
	/* migration settings */
	{ "2048 2 a b 2 auto_migrate 0", NULL },
	{ "2048 2 a b 2 auto_migrate 1", NULL },
	{ "2048 2 a b 2 high_watermark 100", NULL },
	{ "2048 2 a b 2 high_watermark 61", NULL },
	{ "2048 2 a b 2 low_watermark 0", NULL },
	{ "2048 2 a b 2 low_watermark 79", NULL },
	{ "2048 2 a b 4 high_watermark 100 low_watermark 99", NULL },
	{ "2048 2 a b 4 low_watermark 0 high_watermark 1", NULL },
	{ "2048 2 a b 2 demote_age 0", NULL },
	{ "2048 2 a b 2 demote_age 315360000", NULL },
	{ "2048 2 a b 2 drain_deadline 604800", NULL },
	{ "2048 2 a b 2 promote_hits 0", NULL },
	{ "2048 2 a b 2 promote_hits 65535", NULL },
	{ "2048 2 a b 2 promote_window 1", NULL },
	{ "2048 2 a b 2 promote_window 604800", NULL },
	{ "2048 2 a b 2 migration_bandwidth 1048576", NULL },
	{ "2048 2 a b 2 migration_inflight 1", NULL },
	{ "2048 2 a b 2 migration_inflight 64", NULL },
	{ "2048 2 a b 2 redirect_writes 0", NULL },
	{ "2048 1 a 20 auto_migrate 0 high_watermark 90 low_watermark 10 "
	  "demote_age 3600 drain_deadline 60 promote_hits 2 promote_window 30 "
	  "migration_bandwidth 100 migration_inflight 8 redirect_writes 0", NULL },
	/* counts */
	{ "", "Not enough arguments" },
	{ "2048", "Not enough arguments" },
	{ "2048 1", "Not enough arguments" },
	{ "2048 2 8:16", "Not enough tier devices" },
	{ "2048 3 8:16 8:32", "Not enough tier devices" },
	/* extent size */
	{ "x 1 8:16", "Invalid extent size" },
	{ "+2048 1 8:16", "Invalid extent size" },
	{ "-2048 1 8:16", "Invalid extent size" },
	{ "2048k 1 8:16", "Invalid extent size" },
	{ "0x800 1 8:16", "Invalid extent size" },
	{ "4294967296 1 8:16", "Invalid extent size" },
	{ "99999999999999999999999 1 8:16", "Invalid extent size" },
	{ "2047 1 8:16",
	  "Extent size must be a power of two from 128 to 131072 sectors" },
	{ "64 1 8:16",
	  "Extent size must be a power of two from 128 to 131072 sectors" },
	{ "0 1 8:16",
	  "Extent size must be a power of two from 128 to 131072 sectors" },
	{ "262144 1 8:16",
	  "Extent size must be a power of two from 128 to 131072 sectors" },
	{ "2147483648 1 8:16",
	  "Extent size must be a power of two from 128 to 131072 sectors" },
	/* tiers */
	{ "2048 0 8:16", "Number of tiers must be from 1 to 8" },
	{ "2048 9 a b c d e f g h i", "Number of tiers must be from 1 to 8" },
	{ "2048 -1 8:16", "Number of tiers must be from 1 to 8" },
	{ "2048 1x 8:16", "Number of tiers must be from 1 to 8" },
	{ "2048 1  8:16", "Empty device name" },
	{ "2048 2 8:16 8:16", "Duplicate device" },
	{ "2048 3 a b a", "Duplicate device" },
	{ "2048 2 8:16 8:32 2 metadata_dev 8:32", "Duplicate device" },
	/* optional arguments */
	{ "2048 1 8:16 x", "Invalid optional argument count" },
	{ "2048 1 8:16 +2 reserve_pct 3", "Invalid optional argument count" },
	{ "2048 1 8:16 1",
	  "Optional argument count does not match arguments" },
	{ "2048 1 8:16 2 reserve_pct",
	  "Optional argument count does not match arguments" },
	{ "2048 1 8:16 2 reserve_pct 3 4",
	  "Optional argument count does not match arguments" },
	{ "2048 1 8:16 1 reserve_pct", "Missing optional argument value" },
	{ "2048 1 8:16 3 reserve_pct 3 discard_passdown",
	  "Missing optional argument value" },
	{ "2048 1 8:16 1 metadata_dev", "Missing optional argument value" },
	{ "2048 1 8:16 2 bogus 1", "Unknown optional argument" },
	{ "2048 1 8:16 2 RESERVE_PCT 1", "Unknown optional argument" },
	{ "2048 1 8:16 2 8:32 reserve_pct", "Unknown optional argument" },
	{ "2048 1 8:16 4 reserve_pct 1 reserve_pct 2",
	  "Optional argument given twice" },
	{ "2048 1 8:16 2 reserve_pct x", "Invalid optional argument value" },
	{ "2048 1 8:16 2 reserve_pct -1", "Invalid optional argument value" },
	{ "2048 1 8:16 2 reserve_pct 1.5", "Invalid optional argument value" },
	{ "2048 1 8:16 2 reserve_pct ", "Invalid optional argument value" },
	{ "2048 1 8:16 2 reserve_pct 51",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 commit_interval_ms 0",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 commit_interval_ms 60001",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 discard_passdown 2",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 commit_interval_ms 99999999999",
	  "Invalid optional argument value" },
	{ "2048 1 8:16 2 metadata_dev ", "Empty device name" },
	{ "2048 1 8:16 2 auto_migrate 2", "Optional argument value out of range" },
	{ "2048 1 8:16 2 high_watermark 0",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 high_watermark 101",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 low_watermark 100",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 demote_age 315360001",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 drain_deadline 604801",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 promote_hits 65536",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 promote_window 0",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 promote_window 604801",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 migration_bandwidth 1048577",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 migration_inflight 0",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 migration_inflight 65",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 redirect_writes 2",
	  "Optional argument value out of range" },
	{ "2048 1 8:16 2 promote_hits x", "Invalid optional argument value" },
	{ "2048 1 8:16 4 high_watermark 5 high_watermark 6",
	  "Optional argument given twice" },
	/* cross-checks */
	{ "2048 1 8:16 2 low_watermark 80",
	  "low_watermark must be below high_watermark" },
	{ "2048 1 8:16 2 high_watermark 60",
	  "low_watermark must be below high_watermark" },
	{ "2048 1 8:16 4 high_watermark 50 low_watermark 50",
	  "low_watermark must be below high_watermark" },
	{ "2048 1 8:16 4 low_watermark 99 high_watermark 1",
	  "low_watermark must be below high_watermark" },
};

static void test_parse_table(void **state)
{
	char copy[512], *argv[MAX_WORDS];
	struct tier_table t, before;
	const char *error;
	unsigned int argc;
	size_t i;
	int ret;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		argc = split(cases[i].line, copy, argv);
		memset(&t, 0x5a, sizeof(t));
		before = t;
		error = NULL;
		ret = tier_table_parse(argc, argv, &t, &error);
		if (!cases[i].error) {
			if (ret)
				fail_msg("'%s': %d (%s)", cases[i].line, ret,
					 error);
			continue;
		}
		if (ret != -EINVAL || !error ||
		    strcmp(error, cases[i].error))
			fail_msg("'%s': ret %d '%s', want '%s'", cases[i].line,
				 ret, error ? error : "(null)",
				 cases[i].error);
		if (memcmp(&t, &before, sizeof(t)))
			fail_msg("'%s': output written on error",
				 cases[i].line);
	}
}

static void test_parse_values(void **state)
{
	char copy[512], *argv[MAX_WORDS];
	struct tier_policy_cfg cfg;
	struct tier_table t;
	const char *error = NULL;
	unsigned int argc;

	(void)state;
	argc = split("2048 2 8:16 8:32", copy, argv);
	assert_int_equal(tier_table_parse(argc, argv, &t, &error), 0);
	assert_int_equal(t.extent_sectors, 2048);
	assert_int_equal(t.extent_shift, 11);
	assert_int_equal(t.nr_tiers, 2);
	assert_ptr_equal(t.tier_dev[0], argv[2]);
	assert_string_equal(t.tier_dev[1], "8:32");
	assert_null(t.tier_dev[2]);
	assert_null(t.metadata_dev);
	assert_int_equal(t.commit_interval_ms, TIER_COMMIT_INTERVAL_DEF);
	assert_int_equal(t.reserve_pct, TIER_RESERVE_PCT_DEF);
	assert_int_equal(t.discard_passdown, 1);
	tier_policy_cfg_init(&cfg);
	assert_memory_equal(&t.policy, &cfg, sizeof(cfg));

	argc = split("128 1 8:16 8 discard_passdown 0 reserve_pct 10 "
		     "metadata_dev 8:48 commit_interval_ms 500", copy, argv);
	assert_int_equal(tier_table_parse(argc, argv, &t, &error), 0);
	assert_int_equal(t.extent_shift, 7);
	assert_string_equal(t.metadata_dev, "8:48");
	assert_int_equal(t.commit_interval_ms, 500);
	assert_int_equal(t.reserve_pct, 10);
	assert_int_equal(t.discard_passdown, 0);

	tier_policy_cfg_init(&cfg);
	assert_memory_equal(&t.policy, &cfg, sizeof(cfg));

	argc = split("131072 1 a", copy, argv);
	assert_int_equal(tier_table_parse(argc, argv, &t, &error), 0);
	assert_int_equal(t.extent_shift, 17);

	argc = split("2048 1 a 20 redirect_writes 0 migration_inflight 9 "
		     "migration_bandwidth 7 promote_window 6 promote_hits 5 "
		     "drain_deadline 4 demote_age 3 low_watermark 2 "
		     "high_watermark 90 auto_migrate 0", copy, argv);
	assert_int_equal(tier_table_parse(argc, argv, &t, &error), 0);
	assert_int_equal(t.policy.auto_migrate, 0);
	assert_int_equal(t.policy.high_watermark, 90);
	assert_int_equal(t.policy.low_watermark, 2);
	assert_int_equal(t.policy.demote_age, 3);
	assert_int_equal(t.policy.drain_deadline, 4);
	assert_int_equal(t.policy.promote_hits, 5);
	assert_int_equal(t.policy.promote_window, 6);
	assert_int_equal(t.policy.migration_bandwidth, 7);
	assert_int_equal(t.policy.migration_inflight, 9);
	assert_int_equal(t.policy.redirect_writes, 0);
	assert_int_equal(t.reserve_pct, TIER_RESERVE_PCT_DEF);

	memset(&t, 0x5a, sizeof(t));
	tier_table_init(&t);
	assert_int_equal(t.nr_tiers, 0);
	assert_int_equal(t.commit_interval_ms, 1000);
	assert_int_equal(t.reserve_pct, 2);
	assert_int_equal(t.discard_passdown, 1);
	assert_memory_equal(&t.policy, &cfg, sizeof(cfg));
}

static void test_format(void **state)
{
	struct tier_table t;
	char buf[256];

	(void)state;
	tier_table_init(&t);
	t.extent_sectors = 2048;
	t.extent_shift = 11;
	t.nr_tiers = 2;
	t.tier_dev[0] = "259:0";
	t.tier_dev[1] = "8:16";
	assert_int_equal(tier_table_format(&t, buf, sizeof(buf)), 17);
	assert_string_equal(buf, "2048 2 259:0 8:16");

	/* Only non-defaults, in key table order. */
	t.discard_passdown = 0;
	t.metadata_dev = "8:32";
	assert_true(tier_table_format(&t, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "2048 2 259:0 8:16 4 metadata_dev 8:32 "
			    "discard_passdown 0");
	t.commit_interval_ms = 5;
	t.reserve_pct = 0;
	t.metadata_dev = NULL;
	assert_true(tier_table_format(&t, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "2048 2 259:0 8:16 6 commit_interval_ms 5 "
			    "reserve_pct 0 discard_passdown 0");

	/* Policy keys after the others, in row order, only non-defaults. */
	tier_table_init(&t);
	t.extent_sectors = 2048;
	t.nr_tiers = 1;
	t.tier_dev[0] = "a";
	t.policy.redirect_writes = 0;
	t.policy.low_watermark = 10;
	t.policy.migration_bandwidth = 50;
	t.reserve_pct = 3;
	assert_true(tier_table_format(&t, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "2048 1 a 8 reserve_pct 3 low_watermark 10 "
			    "migration_bandwidth 50 redirect_writes 0");
	/* Every policy key once. */
	t.reserve_pct = 2;
	t.policy.auto_migrate = 0;
	t.policy.high_watermark = 70;
	t.policy.demote_age = 1;
	t.policy.drain_deadline = 2;
	t.policy.promote_hits = 3;
	t.policy.promote_window = 4;
	t.policy.migration_inflight = 5;
	assert_true(tier_table_format(&t, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "2048 1 a 20 auto_migrate 0 high_watermark 70 "
			    "low_watermark 10 demote_age 1 drain_deadline 2 "
			    "promote_hits 3 promote_window 4 "
			    "migration_bandwidth 50 migration_inflight 5 "
			    "redirect_writes 0");
}

static void test_format_small_buffer(void **state)
{
	struct tier_table t;
	char buf[64];
	int full, len;

	(void)state;
	tier_table_init(&t);
	t.extent_sectors = 2048;
	t.nr_tiers = 1;
	t.tier_dev[0] = "253:1";
	t.reserve_pct = 7;
	full = tier_table_format(&t, buf, sizeof(buf));
	assert_string_equal(buf, "2048 1 253:1 2 reserve_pct 7");
	assert_int_equal(full, strlen(buf));
	/* Exactly fits, one short, tiny, empty. */
	assert_int_equal(tier_table_format(&t, buf, full + 1), full);
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(tier_table_format(&t, buf, full), -ENOSPC);
	assert_int_equal(strlen(buf), full - 1);
	for (len = 1; len < full; len++) {
		memset(buf, 'x', sizeof(buf));
		assert_int_equal(tier_table_format(&t, buf, len), -ENOSPC);
		assert_int_equal(strlen(buf), len - 1);
		assert_int_equal(buf[len], 'x');
	}
	buf[0] = 'x';
	assert_int_equal(tier_table_format(&t, buf, 0), -ENOSPC);
	assert_int_equal(buf[0], 'x');
}

static void assert_tables_equal(const struct tier_table *a,
				const struct tier_table *b)
{
	u32 i;

	assert_int_equal(a->extent_sectors, b->extent_sectors);
	assert_int_equal(a->extent_shift, b->extent_shift);
	assert_int_equal(a->nr_tiers, b->nr_tiers);
	for (i = 0; i < TIER_MAX_TIERS; i++) {
		if (i < a->nr_tiers)
			assert_string_equal(a->tier_dev[i], b->tier_dev[i]);
		else
			assert_null(b->tier_dev[i]);
	}
	if (a->metadata_dev)
		assert_string_equal(a->metadata_dev, b->metadata_dev);
	else
		assert_null(b->metadata_dev);
	assert_int_equal(a->commit_interval_ms, b->commit_interval_ms);
	assert_int_equal(a->reserve_pct, b->reserve_pct);
	assert_int_equal(a->discard_passdown, b->discard_passdown);
	assert_memory_equal(&a->policy, &b->policy, sizeof(a->policy));
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

/* parse(format(x)) == x over many combinations; format(parse(s)) == s for
 * canonical lines. */
static void test_roundtrip(void **state)
{
	static const char *const devs[] = { "259:0", "259:1", "8:16", "8:32",
					    "8:48", "8:64", "8:80", "8:96" };
	char line[512], copy[512], again[512], *argv[MAX_WORDS];
	struct tier_table t, back;
	const char *error = NULL;
	unsigned int argc;
	u32 seed = 3, i;
	int n;

	(void)state;
	for (n = 0; n < 2000; n++) {
		seed = seed * 1103515245 + 12345;
		tier_table_init(&t);
		t.extent_shift = 7 + (seed >> 8) % 11;
		t.extent_sectors = 1U << t.extent_shift;
		t.nr_tiers = 1 + (seed >> 12) % 8;
		for (i = 0; i < t.nr_tiers; i++)
			t.tier_dev[i] = devs[i];
		if (t.nr_tiers < 8 && (seed & 0x10000))
			t.metadata_dev = "253:9";
		if (seed & 0x20000)
			t.commit_interval_ms = 1 + (seed >> 3) % 60000;
		if (seed & 0x40000)
			t.reserve_pct = (seed >> 5) % 51;
		if (seed & 0x80000)
			t.discard_passdown = (seed >> 9) & 1;
		random_policy(&t.policy, &seed);
		assert_true(tier_table_format(&t, line, sizeof(line)) > 0);
		argc = split(line, copy, argv);
		if (tier_table_parse(argc, argv, &back, &error))
			fail_msg("'%s': %s", line, error);
		assert_tables_equal(&t, &back);
		/* And formatting the parsed table gives the same line. */
		assert_true(tier_table_format(&back, again, sizeof(again)) > 0);
		assert_string_equal(line, again);
	}
}

static void test_set_opt(void **state)
{
	char copy[512], *argv[MAX_WORDS];
	struct tier_table t, before;
	const char *error;
	unsigned int argc;

	(void)state;
	argc = split("2048 2 a b 2 metadata_dev c", copy, argv);
	assert_int_equal(tier_table_parse(argc, argv, &t, &error), 0);

#define SET_OK(key, value, field, want)                                        \
	do {                                                                   \
		error = NULL;                                                  \
		assert_int_equal(tier_table_set_opt(&t, key, value, &error),   \
				 0);                                           \
		assert_null(error);                                            \
		assert_int_equal(t.field, want);                               \
	} while (0)
#define SET_BAD(key, value, ret, msg)                                          \
	do {                                                                   \
		before = t;                                                    \
		error = NULL;                                                  \
		assert_int_equal(tier_table_set_opt(&t, key, value, &error),   \
				 ret);                                         \
		assert_non_null(error);                                        \
		assert_string_equal(error, msg);                               \
		assert_memory_equal(&t, &before, sizeof(t));                   \
	} while (0)
	SET_OK("commit_interval_ms", "250", commit_interval_ms, 250);
	SET_OK("reserve_pct", "0", reserve_pct, 0);
	SET_OK("discard_passdown", "0", discard_passdown, 0);
	SET_OK("auto_migrate", "0", policy.auto_migrate, 0);
	SET_OK("high_watermark", "95", policy.high_watermark, 95);
	SET_OK("low_watermark", "90", policy.low_watermark, 90);
	SET_OK("demote_age", "86400", policy.demote_age, 86400);
	SET_OK("drain_deadline", "600", policy.drain_deadline, 600);
	SET_OK("promote_hits", "0", policy.promote_hits, 0);
	SET_OK("promote_window", "1", policy.promote_window, 1);
	SET_OK("migration_bandwidth", "200", policy.migration_bandwidth, 200);
	SET_OK("migration_inflight", "64", policy.migration_inflight, 64);
	SET_OK("redirect_writes", "0", policy.redirect_writes, 0);
	SET_OK("reserve_pct", "002", reserve_pct, 2);
	assert_string_equal(t.metadata_dev, "c");
	assert_string_equal(t.tier_dev[1], "b");

	SET_BAD("bogus", "1", -ENOENT, "Unknown optional argument");
	SET_BAD("", "1", -ENOENT, "Unknown optional argument");
	SET_BAD("Reserve_pct", "1", -ENOENT, "Unknown optional argument");
	SET_BAD("metadata_dev", "d", -ENOENT,
		"Optional argument cannot be changed at runtime");
	SET_BAD("reserve_pct", "51", -EINVAL,
		"Optional argument value out of range");
	SET_BAD("commit_interval_ms", "0", -EINVAL,
		"Optional argument value out of range");
	SET_BAD("migration_inflight", "65", -EINVAL,
		"Optional argument value out of range");
	SET_BAD("high_watermark", "101", -EINVAL,
		"Optional argument value out of range");
	SET_BAD("promote_window", "0", -EINVAL,
		"Optional argument value out of range");
	SET_BAD("reserve_pct", "x", -EINVAL,
		"Invalid optional argument value");
	SET_BAD("reserve_pct", "", -EINVAL, "Invalid optional argument value");
	SET_BAD("reserve_pct", NULL, -EINVAL,
		"Invalid optional argument value");
	SET_BAD("reserve_pct", "-1", -EINVAL,
		"Invalid optional argument value");
	SET_BAD("demote_age", "4294967296", -EINVAL,
		"Invalid optional argument value");
	/* high 95, low 90 */
	SET_BAD("high_watermark", "90", -EINVAL,
		"low_watermark must be below high_watermark");
	SET_BAD("low_watermark", "95", -EINVAL,
		"low_watermark must be below high_watermark");
	SET_OK("low_watermark", "10", policy.low_watermark, 10);
	SET_OK("high_watermark", "11", policy.high_watermark, 11);
#undef SET_OK
#undef SET_BAD
}

/*
 * Several settings at once (netlink policy-set): ranges per key as the
 * table, no cross-check until the caller asks; a pair that is only valid
 * together goes through in either order.
 */
static void test_set_u32(void **state)
{
	struct tier_table t, before;
	const char *error = NULL;

	(void)state;
	tier_table_init(&t);
	before = t;
	assert_int_equal(tier_table_set_u32(&t, "high_watermark", 0, &error),
			 -EINVAL);
	assert_string_equal(error, "Optional argument value out of range");
	assert_int_equal(tier_table_set_u32(&t, "migration_inflight", 65,
					    &error),
			 -EINVAL);
	assert_int_equal(tier_table_set_u32(&t, "no_such_key", 1, &error),
			 -ENOENT);
	assert_int_equal(tier_table_set_u32(&t, "metadata_dev", 1, &error),
			 -ENOENT);
	assert_memory_equal(&t, &before, sizeof(t));
	/* 80/60 -> 20/10: high first is invalid alone, fine together. */
	assert_int_equal(tier_table_set_u32(&t, "high_watermark", 20, &error),
			 0);
	assert_int_not_equal(tier_policy_cfg_check(&t.policy, &error), 0);
	assert_int_equal(tier_table_set_u32(&t, "low_watermark", 10, &error),
			 0);
	assert_int_equal(tier_policy_cfg_check(&t.policy, &error), 0);
	assert_int_equal(t.policy.high_watermark, 20);
	assert_int_equal(t.policy.low_watermark, 10);
	assert_int_equal(tier_table_set_u32(&t, "reserve_pct", 50, &error), 0);
	assert_int_equal(t.reserve_pct, 50);
}

/*
 * The memory tier's keys: mem_node needs mem_size_mb and the other way
 * round; mem_node is fixed while live; non-defaults round-trip.
 */
static void test_mem_keys(void **state)
{
	static const struct parse_case mem_cases[] = {
		{ "2048 1 a 4 mem_node 1 mem_size_mb 4096", NULL },
		{ "2048 1 a 4 mem_node 0 mem_size_mb 1", NULL },
		{ "2048 1 a 6 mem_node 1023 mem_size_mb 1048576 mem_promote_hits 65535",
		  NULL },
		{ "2048 1 a 2 mem_promote_hits 1", NULL },
		{ "2048 1 a 2 mem_node 1", "mem_node needs mem_size_mb" },
		{ "2048 1 a 2 mem_size_mb 64",
		  "mem_size_mb needs mem_node: the device has no memory tier; reload the table with mem_node and mem_size_mb" },
		{ "2048 1 a 4 mem_node 1024 mem_size_mb 1",
		  "Optional argument value out of range" },
		{ "2048 1 a 4 mem_node 1 mem_size_mb 0",
		  "Optional argument value out of range" },
		{ "2048 1 a 4 mem_node 1 mem_size_mb 1048577",
		  "Optional argument value out of range" },
		{ "2048 1 a 2 mem_promote_hits 0",
		  "Optional argument value out of range" },
		{ "2048 1 a 2 mem_promote_hits 65536",
		  "Optional argument value out of range" },
		{ "2048 1 a 4 mem_node x mem_size_mb 1",
		  "Invalid optional argument value" },
	};
	char copy[512], *argv[MAX_WORDS], buf[512];
	struct tier_table t, before;
	const char *error;
	unsigned int argc, i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(mem_cases); i++) {
		argc = split(mem_cases[i].line, copy, argv);
		error = NULL;
		if (!mem_cases[i].error) {
			assert_int_equal(tier_table_parse(argc, argv, &t, &error),
					 0);
			/* Canonical lines: format gives them back. */
			assert_true(tier_table_format(&t, buf, sizeof(buf)) > 0);
			assert_string_equal(buf, mem_cases[i].line);
			continue;
		}
		assert_int_equal(tier_table_parse(argc, argv, &t, &error),
				 -EINVAL);
		assert_non_null(error);
		assert_string_equal(error, mem_cases[i].error);
	}

	/* Defaults: no memory tier, nothing printed. */
	tier_table_init(&t);
	assert_int_equal(t.mem_node, TIER_MEM_NODE_NONE);
	assert_int_equal(t.mem_size_mb, 0);
	assert_int_equal(t.policy.mem_promote_hits, 2);

	/* set: size and hits change live, the node does not. */
	argc = split("2048 1 a 4 mem_node 1 mem_size_mb 64", copy, argv);
	assert_int_equal(tier_table_parse(argc, argv, &t, &error), 0);
	assert_int_equal(tier_table_set_opt(&t, "mem_size_mb", "128", &error),
			 0);
	assert_int_equal(t.mem_size_mb, 128);
	assert_int_equal(tier_table_set_opt(&t, "mem_promote_hits", "5",
					    &error),
			 0);
	assert_int_equal(t.policy.mem_promote_hits, 5);
	before = t;
	assert_int_equal(tier_table_set_opt(&t, "mem_node", "0", &error),
			 -ENOENT);
	assert_string_equal(error,
			    "Optional argument cannot be changed at runtime");
	assert_int_equal(tier_table_set_u32(&t, "mem_node", 0, &error),
			 -ENOENT);
	assert_int_equal(tier_table_set_opt(&t, "mem_size_mb", "0", &error),
			 -EINVAL);
	assert_memory_equal(&t, &before, sizeof(t));
	assert_int_equal(tier_table_set_u32(&t, "mem_size_mb", 256, &error),
			 0);
	assert_int_equal(t.mem_size_mb, 256);

	/* Without a memory tier the size cannot be set. */
	argc = split("2048 1 a", copy, argv);
	assert_int_equal(tier_table_parse(argc, argv, &t, &error), 0);
	before = t;
	assert_int_equal(tier_table_set_opt(&t, "mem_size_mb", "64", &error),
			 -EINVAL);
	assert_string_equal(error,
			    "mem_size_mb needs mem_node: the device has no memory tier; reload the table with mem_node and mem_size_mb");
	assert_memory_equal(&t, &before, sizeof(t));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_u32),
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_values),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_small_buffer),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_set_opt),
		cmocka_unit_test(test_mem_keys),
	};

	return cmocka_run_group_tests_name("table", tests, NULL, NULL);
}
