// SPDX-License-Identifier: GPL-2.0
/* Unit tests for user/lib/tl-progress.c: the progress line of --wait. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tl-progress.h"

#define MIB (1ULL << 20)

static void test_counts_rate_eta(void **state)
{
	char b[TL_PROGRESS_LEN];

	(void)state;
	/* 12 of 40 1 MiB extents in 4 s: 3 MiB/s, 28 left: 9.33 s -> 10 s. */
	assert_string_equal(tl_progress_line(b, "extents", 12, 40, MIB, 4000),
			    "12/40 extents (12 MiB of 40 MiB), 3 MiB/s, ETA 10 s");
	/* Long ETAs in minutes, rounded up. */
	assert_string_equal(tl_progress_line(b, "extents", 1, 1000, MIB, 1000),
			    "1/1000 extents (1 MiB of 1000 MiB), 1 MiB/s, ETA 17 min");
}

/*
 * `migrate --wait` once reported the extents the request had passed as
 * moved, with their rate: a range already on the target "moved" at
 * memory speed.
 */
static void test_move_rate_counts_copies_only(void **state)
{
	char b[TL_PROGRESS_LEN];

	(void)state;
	/* 30 of 40 passed in 4 s, 12 of them copied: 3 MiB/s, ETA 10/30*4. */
	assert_string_equal(tl_move_progress_line(b, 30, 40, 12, MIB, 4000),
			    "30/40 extents looked at, 12 moved (12 MiB), 3 MiB/s, ETA 2 s");
	/* All in place: nothing moved, no rate. */
	assert_string_equal(tl_move_progress_line(b, 20, 40, 0, MIB, 1000),
			    "20/40 extents looked at, 0 moved (0 B), ETA 1 s");
	/* Nothing passed yet: no ETA; the end: no ETA; past the end: clamped. */
	assert_string_equal(tl_move_progress_line(b, 0, 40, 0, MIB, 1000),
			    "0/40 extents looked at, 0 moved (0 B)");
	assert_string_equal(tl_move_progress_line(b, 41, 40, 40, MIB, 2000),
			    "40/40 extents looked at, 40 moved (40 MiB), 20 MiB/s");
	assert_string_equal(tl_move_progress_line(b, 5, 40, 1, MIB, 0),
			    "5/40 extents looked at, 1 moved (1 MiB)");
}

/*
 * The formatting progress of `create` once showed "0 B/s, ETA 436669020 min":
 * the nanoseconds' difference, negative across a second boundary, had been
 * cast to unsigned.
 */
static void test_ms_between(void **state)
{
	struct timespec t0 = { .tv_sec = 10, .tv_nsec = 900000000 };
	struct timespec t1 = { .tv_sec = 12, .tv_nsec = 100000000 };

	(void)state;
	assert_int_equal(tl_ms_between(&t0, &t1), 1200);
	assert_int_equal(tl_ms_between(&t1, &t0), 0);
	assert_int_equal(tl_ms_between(&t0, &t0), 0);
	t1.tv_sec = 10;
	t1.tv_nsec = 999999999;
	assert_int_equal(tl_ms_between(&t0, &t1), 99);
}

static void test_start_and_end(void **state)
{
	char b[TL_PROGRESS_LEN];

	(void)state;
	/* Nothing done yet: no rate, no ETA (no division by zero). */
	assert_string_equal(tl_progress_line(b, "extents", 0, 40, MIB, 0),
			    "0/40 extents (0 B of 40 MiB)");
	assert_string_equal(tl_progress_line(b, "extents", 0, 40, MIB, 5000),
			    "0/40 extents (0 B of 40 MiB)");
	/* Done: the rate, no ETA; more than total is clamped. */
	assert_string_equal(tl_progress_line(b, "extents", 41, 40, MIB, 2000),
			    "40/40 extents (40 MiB of 40 MiB), 20 MiB/s");
	/* Unknown total: counts and rate only. */
	assert_string_equal(tl_progress_line(b, "blocks", 3, 0, 4096, 1000),
			    "3 blocks (12 KiB), 12 KiB/s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_rate_eta),
		cmocka_unit_test(test_start_and_end),
		cmocka_unit_test(test_ms_between),
		cmocka_unit_test(test_move_rate_counts_copies_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
