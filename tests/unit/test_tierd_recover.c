// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/tierd/tl-recover.c: when tierd tries again to bring an
 * NVMe-oF tier back, and when it gives up.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>

#include "tl-recover.h"

/* The window follows the controllers' ctrl_loss_tmo, bounded. */
static void test_window(void **state)
{
	(void)state;
	assert_int_equal(tl_recover_window_ms(600), 900 * 1000);
	assert_int_equal(tl_recover_window_ms(0), 300 * 1000);
	assert_int_equal(tl_recover_window_ms(30), 330 * 1000);
	assert_int_equal(tl_recover_window_ms(3300), 3600 * 1000);
	assert_int_equal(tl_recover_window_ms(100000), 3600 * 1000);
	/* Reconnecting forever (-1): the upper bound. */
	assert_int_equal(tl_recover_window_ms(-1), 3600 * 1000);
	assert_int_equal(
		tl_recover_window_ms(TL_RECOVER_DEF_CTRL_LOSS_TMO),
		(TL_RECOVER_DEF_CTRL_LOSS_TMO + TL_RECOVER_MARGIN_S) * 1000);
}

/* 2, 4, 8, 16, 32 s, then every 60 s. */
static void test_backoff(void **state)
{
	static const int64_t want[] = { 2000,  4000,  8000,  16000, 32000,
					60000, 60000, 60000, 60000, 60000 };
	int64_t w = tl_recover_window_ms(600);
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(tl_recover_next_delay_ms(i + 1, 0, w),
				 want[i]);
	assert_int_equal(tl_recover_next_delay_ms(0, 0, w), 2000);
	assert_int_equal(tl_recover_next_delay_ms(1000000, 0, w), 60000);
}

/* Attempts stop exactly when the window is over. */
static void test_give_up(void **state)
{
	int64_t w = tl_recover_window_ms(600);

	(void)state;
	assert_int_equal(tl_recover_next_delay_ms(20, w - 1, w), 60000);
	assert_int_equal(tl_recover_next_delay_ms(20, w, w), -1);
	assert_int_equal(tl_recover_next_delay_ms(3, w + 1, w), -1);
	assert_int_equal(tl_recover_next_delay_ms(1, 0, 0), -1);
}

/*
 * The point of the window: with the default ctrl_loss_tmo the kernel
 * reconnects by itself for 600 s, then deletes the controller; from then on
 * only tierd's connect (and the re-bind by label) brings the namespace
 * back. Attempts must go on past that, every minute at most, and stop
 * within the window. (tierd once gave up after 8 attempts, 182 s.)
 */
static void test_outlasts_ctrl_loss_tmo(void **state)
{
	int64_t w = tl_recover_window_ms(TL_RECOVER_DEF_CTRL_LOSS_TMO);
	int64_t t = 0, delay, after_loss = 0;
	unsigned int failed = 0;

	(void)state;
	for (;;) {
		failed++; /* an attempt at @t failed */
		if (t > TL_RECOVER_DEF_CTRL_LOSS_TMO * 1000LL)
			after_loss++;
		delay = tl_recover_next_delay_ms(failed, t, w);
		if (delay < 0)
			break;
		assert_true(delay > 0 && delay <= 60000);
		t += delay;
		assert_true(failed < 1000);
	}
	assert_true(t >= w);
	assert_true(t < w + 60000);
	/* Several attempts after the controller is deleted. */
	assert_true(after_loss >= 4);
	/* Between 0 and 62 s: 6 attempts, then one a minute. */
	assert_true(failed >= 18 && failed <= 22);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_give_up),
		cmocka_unit_test(test_outlasts_ctrl_loss_tmo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
