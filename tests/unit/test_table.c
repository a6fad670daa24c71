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

	argc = split("128 1 8:16 8 discard_passdown 0 reserve_pct 10 "
		     "metadata_dev 8:48 commit_interval_ms 500", copy, argv);
	assert_int_equal(tier_table_parse(argc, argv, &t, &error), 0);
	assert_int_equal(t.extent_shift, 7);
	assert_string_equal(t.metadata_dev, "8:48");
	assert_int_equal(t.commit_interval_ms, 500);
	assert_int_equal(t.reserve_pct, 10);
	assert_int_equal(t.discard_passdown, 0);

	argc = split("131072 1 a", copy, argv);
	assert_int_equal(tier_table_parse(argc, argv, &t, &error), 0);
	assert_int_equal(t.extent_shift, 17);

	tier_table_init(&t);
	assert_int_equal(t.nr_tiers, 0);
	assert_int_equal(t.commit_interval_ms, 1000);
	assert_int_equal(t.reserve_pct, 2);
	assert_int_equal(t.discard_passdown, 1);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_values),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_small_buffer),
		cmocka_unit_test(test_roundtrip),
	};

	return cmocka_run_group_tests_name("table", tests, NULL, NULL);
}
