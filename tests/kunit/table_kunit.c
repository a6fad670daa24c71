// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kernel/core/table.c (dm table line parsing and
 * formatting), run in-kernel on UML by tests/kunit/run. Same cases as the
 * userspace tests/unit/test_table.c.
 */
#include <kunit/test.h>

#include "format.h"
#include "table.h"

#define MAX_WORDS 64
#define LINE_LEN 512

/* A line split into words the way dm does, kept for the test's lifetime. */
struct words {
	unsigned int argc;
	char *argv[MAX_WORDS];
	char buf[LINE_LEN];
};

/* Split @line on single blanks (an empty line has no words). */
static struct words *split(struct kunit *test, const char *line)
{
	struct words *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	char *p;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_LT(test, strlen(line), sizeof(w->buf));
	strscpy(w->buf, line, sizeof(w->buf));
	if (!*w->buf)
		return w;
	w->argv[w->argc++] = w->buf;
	for (p = w->buf; *p; p++) {
		if (*p != ' ')
			continue;
		*p = '\0';
		KUNIT_ASSERT_LT(test, w->argc, MAX_WORDS);
		w->argv[w->argc++] = p + 1;
	}
	return w;
}

/* Quoted, so that "" and trailing blanks stay visible in the TAP output. */
static void line_desc(const char *line, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", line);
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

KUNIT_ARRAY_PARAM(good, good_cases, good_case_desc);

static void tier_table_parse_good_test(struct kunit *test)
{
	const struct good_case *c = test->param_value;
	struct words *w = split(test, c->line);
	const char *error = NULL;
	struct tier_table t;
	u32 i;

	memset(&t, 0x5a, sizeof(t));
	KUNIT_ASSERT_EQ_MSG(test,
			    tier_table_parse(w->argc, w->argv, &t, &error), 0,
			    "%s", error);
	KUNIT_EXPECT_NULL(test, error);
	KUNIT_EXPECT_EQ(test, t.extent_sectors, c->extent_sectors);
	KUNIT_EXPECT_EQ(test, t.extent_shift, c->extent_shift);
	KUNIT_EXPECT_EQ(test, t.nr_tiers, c->nr_tiers);
	/* Device strings point into argv, in order. */
	for (i = 0; i < TIER_MAX_TIERS; i++) {
		if (i < c->nr_tiers)
			KUNIT_EXPECT_PTR_EQ(test, t.tier_dev[i],
					    w->argv[2 + i]);
		else
			KUNIT_EXPECT_NULL(test, t.tier_dev[i]);
	}
	if (c->metadata_dev)
		KUNIT_EXPECT_STREQ(test, t.metadata_dev, c->metadata_dev);
	else
		KUNIT_EXPECT_NULL(test, t.metadata_dev);
	KUNIT_EXPECT_EQ(test, t.commit_interval_ms, c->commit_interval_ms);
	KUNIT_EXPECT_EQ(test, t.reserve_pct, c->reserve_pct);
	KUNIT_EXPECT_EQ(test, t.discard_passdown, c->discard_passdown);
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
};

/* clang-format on */

static void bad_case_desc(const struct bad_case *c, char *desc)
{
	line_desc(c->line, desc);
}

KUNIT_ARRAY_PARAM(bad, bad_cases, bad_case_desc);

static void tier_table_parse_bad_test(struct kunit *test)
{
	const struct bad_case *c = test->param_value;
	struct words *w = split(test, c->line);
	struct tier_table t, before;
	const char *error = NULL;

	memset(&t, 0x5a, sizeof(t));
	before = t;
	KUNIT_EXPECT_EQ(test, tier_table_parse(w->argc, w->argv, &t, &error),
			c->ret);
	KUNIT_ASSERT_NOT_NULL(test, error);
	KUNIT_EXPECT_STREQ(test, error, c->error);
	/* The output is written only on success. */
	KUNIT_EXPECT_EQ(test, memcmp(&t, &before, sizeof(t)), 0);
}

/* ---- defaults ----------------------------------------------------------- */

static void tier_table_init_test(struct kunit *test)
{
	struct tier_table t;
	u32 i;

	memset(&t, 0x5a, sizeof(t));
	tier_table_init(&t);
	KUNIT_EXPECT_EQ(test, t.extent_sectors, 0);
	KUNIT_EXPECT_EQ(test, t.nr_tiers, 0);
	for (i = 0; i < TIER_MAX_TIERS; i++)
		KUNIT_EXPECT_NULL(test, t.tier_dev[i]);
	KUNIT_EXPECT_NULL(test, t.metadata_dev);
	KUNIT_EXPECT_EQ(test, t.commit_interval_ms, TIER_COMMIT_INTERVAL_DEF);
	KUNIT_EXPECT_EQ(test, t.reserve_pct, TIER_RESERVE_PCT_DEF);
	KUNIT_EXPECT_EQ(test, t.discard_passdown, 1);
}

/* ---- formatting --------------------------------------------------------- */

#define FORMAT_LINE_2 "2048 2 259:0 8:16 4 metadata_dev 8:32 discard_passdown 0"
#define FORMAT_LINE_3 \
	"2048 2 259:0 8:16 6 commit_interval_ms 5 reserve_pct 0 discard_passdown 0"

static void tier_table_format_test(struct kunit *test)
{
	char *buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	struct tier_table t;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	tier_table_init(&t);
	t.extent_sectors = 2048;
	t.extent_shift = 11;
	t.nr_tiers = 2;
	t.tier_dev[0] = "259:0";
	t.tier_dev[1] = "8:16";
	KUNIT_EXPECT_EQ(test, tier_table_format(&t, buf, 256), 17);
	KUNIT_EXPECT_STREQ(test, buf, "2048 2 259:0 8:16");

	/* Only non-defaults, in key table order. */
	t.discard_passdown = 0;
	t.metadata_dev = "8:32";
	KUNIT_EXPECT_GT(test, tier_table_format(&t, buf, 256), 0);
	KUNIT_EXPECT_STREQ(test, buf, FORMAT_LINE_2);
	t.commit_interval_ms = 5;
	t.reserve_pct = 0;
	t.metadata_dev = NULL;
	KUNIT_EXPECT_GT(test, tier_table_format(&t, buf, 256), 0);
	KUNIT_EXPECT_STREQ(test, buf, FORMAT_LINE_3);
}

static void tier_table_format_small_buffer_test(struct kunit *test)
{
	char *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct tier_table t;
	int full, len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	tier_table_init(&t);
	t.extent_sectors = 2048;
	t.nr_tiers = 1;
	t.tier_dev[0] = "253:1";
	t.reserve_pct = 7;
	full = tier_table_format(&t, buf, 64);
	KUNIT_EXPECT_STREQ(test, buf, "2048 1 253:1 2 reserve_pct 7");
	KUNIT_ASSERT_EQ(test, full, strlen(buf));
	/* Exactly fits, one short, every shorter size, empty. */
	KUNIT_EXPECT_EQ(test, tier_table_format(&t, buf, full + 1), full);
	for (len = full; len >= 1; len--) {
		memset(buf, 'x', 64);
		KUNIT_EXPECT_EQ(test, tier_table_format(&t, buf, len), -ENOSPC);
		/* Truncated, NUL-terminated, nothing written past @len. */
		KUNIT_EXPECT_EQ(test, strlen(buf), len - 1);
		KUNIT_EXPECT_EQ(test, buf[len], 'x');
	}
	buf[0] = 'x';
	KUNIT_EXPECT_EQ(test, tier_table_format(&t, buf, 0), -ENOSPC);
	KUNIT_EXPECT_EQ(test, buf[0], 'x');
	KUNIT_EXPECT_EQ(test, tier_table_format(&t, NULL, 0), -ENOSPC);
}

/* ---- round trips -------------------------------------------------------- */

/* format(parse(line)) == line for lines in canonical form. */
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
};

/* clang-format on */

static void canon_case_desc(const struct canon_case *c, char *desc)
{
	line_desc(c->line, desc);
}

KUNIT_ARRAY_PARAM(canon, canon_cases, canon_case_desc);

static void tier_table_canonical_test(struct kunit *test)
{
	const struct canon_case *c = test->param_value;
	struct words *w = split(test, c->line);
	char *buf = kunit_kzalloc(test, LINE_LEN, GFP_KERNEL);
	const char *error = NULL;
	struct tier_table t;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ_MSG(test,
			    tier_table_parse(w->argc, w->argv, &t, &error), 0,
			    "%s", error);
	KUNIT_EXPECT_EQ(test, tier_table_format(&t, buf, LINE_LEN),
			strlen(c->line));
	KUNIT_EXPECT_STREQ(test, buf, c->line);
}

static void expect_tables_equal(struct kunit *test, const struct tier_table *a,
				const struct tier_table *b)
{
	u32 i;

	KUNIT_EXPECT_EQ(test, a->extent_sectors, b->extent_sectors);
	KUNIT_EXPECT_EQ(test, a->extent_shift, b->extent_shift);
	KUNIT_EXPECT_EQ(test, a->nr_tiers, b->nr_tiers);
	for (i = 0; i < TIER_MAX_TIERS; i++) {
		if (i < a->nr_tiers)
			KUNIT_EXPECT_STREQ(test, a->tier_dev[i],
					   b->tier_dev[i]);
		else
			KUNIT_EXPECT_NULL(test, b->tier_dev[i]);
	}
	if (a->metadata_dev)
		KUNIT_EXPECT_STREQ(test, a->metadata_dev, b->metadata_dev);
	else
		KUNIT_EXPECT_NULL(test, b->metadata_dev);
	KUNIT_EXPECT_EQ(test, a->commit_interval_ms, b->commit_interval_ms);
	KUNIT_EXPECT_EQ(test, a->reserve_pct, b->reserve_pct);
	KUNIT_EXPECT_EQ(test, a->discard_passdown, b->discard_passdown);
}

/* parse(format(t)) == t, and format again gives the same line. */
static void tier_table_roundtrip_test(struct kunit *test)
{
	static const char *const devs[] = { "259:0", "259:1", "8:16", "8:32",
					    "8:48",  "8:64",  "8:80", "8:96" };
	char *line = kunit_kzalloc(test, LINE_LEN, GFP_KERNEL);
	char *again = kunit_kzalloc(test, LINE_LEN, GFP_KERNEL);
	struct tier_table t, back;
	const char *error = NULL;
	struct words *w;
	u32 seed = 3, i;
	int n, len, ret;

	KUNIT_ASSERT_NOT_NULL(test, line);
	KUNIT_ASSERT_NOT_NULL(test, again);
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
		len = tier_table_format(&t, line, LINE_LEN);
		KUNIT_ASSERT_GT(test, len, 0);
		KUNIT_ASSERT_EQ(test, len, strlen(line));
		w = split(test, line);
		ret = tier_table_parse(w->argc, w->argv, &back, &error);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "\"%s\": %s", line, error);
		expect_tables_equal(test, &t, &back);
		KUNIT_ASSERT_EQ(test, tier_table_format(&back, again, LINE_LEN),
				len);
		KUNIT_ASSERT_STREQ(test, line, again);
		kunit_kfree(test, w);
	}
}

static struct kunit_case dm_tier_table_cases[] = {
	KUNIT_CASE_PARAM(tier_table_parse_good_test, good_gen_params),
	KUNIT_CASE_PARAM(tier_table_parse_bad_test, bad_gen_params),
	KUNIT_CASE(tier_table_init_test),
	KUNIT_CASE(tier_table_format_test),
	KUNIT_CASE(tier_table_format_small_buffer_test),
	KUNIT_CASE_PARAM(tier_table_canonical_test, canon_gen_params),
	KUNIT_CASE(tier_table_roundtrip_test),
	{}
};

static struct kunit_suite dm_tier_table_suite = {
	.name = "dm_tier_table",
	.test_cases = dm_tier_table_cases,
};

kunit_test_suite(dm_tier_table_suite);
