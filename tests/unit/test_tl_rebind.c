// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/tl-rebind.c: the table line with one tier's
 * device replaced (what the re-bind reloads), options kept as they are.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "tl-rebind.h"

static void expect_replace(const char *params, u32 tier, const char *dev,
			   const char *want)
{
	struct tl_err err = { "" };
	char out[256];

	assert_int_equal(tl_table_replace_tier(params, tier, dev, out,
					       sizeof(out), &err), TL_OK);
	assert_string_equal(out, want);
}

static void test_replace(void **state)
{
	(void)state;
	expect_replace("2048 2 259:0 259:3", 1, "259:7", "2048 2 259:0 259:7");
	expect_replace("2048 3 259:0 259:3 8:16 4 auto_migrate 0 reserve_pct 5",
		       1, "259:12",
		       "2048 3 259:0 259:12 8:16 4 auto_migrate 0 reserve_pct 5");
	expect_replace("2048 3 259:0 259:3 8:16 2 reserve_pct 5", 2, "8:32",
		       "2048 3 259:0 259:3 8:32 2 reserve_pct 5");
	/* Tier 0 is replaceable as text (the callers refuse it). */
	expect_replace("2048 2 259:0 259:3", 0, "259:9", "2048 2 259:9 259:3");
	/* Longer and shorter words. */
	expect_replace("128 2 1:1 2:2 2 commit_interval_ms 50", 1, "259:65535",
		       "128 2 1:1 259:65535 2 commit_interval_ms 50");
}

static void test_replace_errors(void **state)
{
	struct tl_err err = { "" };
	char out[32];

	(void)state;
	/* No such tier: beyond the count, or the line is cut short. */
	assert_int_equal(tl_table_replace_tier("2048 2 259:0 259:3", 2, "1:1",
					       out, sizeof(out), &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "the table has no tier 2"));
	/* An option's word is not a tier. */
	assert_int_equal(tl_table_replace_tier("2048 1 259:0 2 reserve_pct 5", 1,
					       "1:1", out, sizeof(out), &err),
			 TL_FAIL);
	assert_int_equal(tl_table_replace_tier("2048 3 259:0", 2, "1:1", out,
					       sizeof(out), &err), TL_FAIL);
	assert_int_equal(tl_table_replace_tier("", 0, "1:1", out, sizeof(out),
					       &err), TL_FAIL);
	/* Too long for the buffer. */
	assert_int_equal(tl_table_replace_tier("2048 2 259:0 259:3 2 reserve_pct 5",
					       1, "259:4", out, 16, &err),
			 TL_FAIL);
	assert_non_null(strstr(err.msg, "too long"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_replace_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
