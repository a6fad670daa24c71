// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/tierd/tl-recover.c: when tierd tries again to bring an
 * NVMe-oF tier back, and when it gives up; and which tier an attempt is
 * for once add-tier --position, remove-tier or replace-tier renumbered the
 * tiers (the attempts go with the tier's device; tierd kept them by index,
 * and sent tier-recover to the healthy tier now at the old index).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A tier list of @n devices, tier i on @devs[i], tier @bad offline. */
static struct tl_nl_dev *layout(const char *const *devs, uint32_t n,
				int bad)
{
	struct tl_nl_dev *nd = calloc(1, sizeof(*nd));
	uint32_t t;

	assert_non_null(nd);
	snprintf(nd->name, sizeof(nd->name), "ckpt");
	nd->nr_tiers = n;
	for (t = 0; t < n; t++) {
		snprintf(nd->tiers[t].device, sizeof(nd->tiers[t].device),
			 "%s", devs[t]);
		snprintf(nd->tiers[t].tier_class,
			 sizeof(nd->tiers[t].tier_class), "nvmf");
		snprintf(nd->tiers[t].state, sizeof(nd->tiers[t].state), "%s",
			 (int)t == bad ? "offline" : "ok");
	}
	return nd;
}

/* Attempts for the tier on @device, last seen at @tier. */
static void start(struct tl_recover *r, const char *device, uint32_t tier)
{
	memset(r, 0, sizeof(*r));
	r->active = true;
	r->tier = tier;
	snprintf(r->device, sizeof(r->device), "%s", device);
}

/*
 * add-tier --position 1 while tier 2 (nvme3n1) is offline: it is tier 3
 * now, and the tier at the old index 2 is the healthy nvme1n1. The next
 * attempt's tier-recover must name 3: at 2 the kernel would probe
 * nvme1n1, answer success, and tierd would stop.
 */
static void test_rekey_insert(void **state)
{
	static const char *const before[] = { "nvme0n1", "nvme1n1", "nvme3n1" };
	static const char *const after[] = { "nvme0n1", "nvme5n1", "nvme1n1",
					     "nvme3n1" };
	struct tl_nl_dev *old = layout(before, 3, 2), *cur = layout(after, 4, 3);
	struct tl_recover r;

	(void)state;
	start(&r, "nvme3n1", 2);
	assert_int_equal(tl_recover_rekey(&r, old), TL_RECOVER_SAME);
	assert_int_equal(r.tier, 2);
	assert_int_equal(tl_recover_rekey(&r, cur), TL_RECOVER_MOVED);
	assert_true(r.active);
	assert_int_equal(r.tier, 3);
	assert_string_equal(cur->tiers[r.tier].state, "offline");
	/* Again with the same list: nothing moves. */
	assert_int_equal(tl_recover_rekey(&r, cur), TL_RECOVER_SAME);
	assert_int_equal(r.tier, 3);
	free(old);
	free(cur);
}

/* remove-tier 1 (empty, healthy) while tier 2 is offline: it is tier 1. */
static void test_rekey_remove(void **state)
{
	static const char *const after[] = { "nvme0n1", "nvme3n1" };
	struct tl_nl_dev *cur = layout(after, 2, 1);
	struct tl_recover r;

	(void)state;
	start(&r, "nvme3n1", 2);
	assert_int_equal(tl_recover_rekey(&r, cur), TL_RECOVER_MOVED);
	assert_true(r.active);
	assert_int_equal(r.tier, 1);
	free(cur);
}

/*
 * replace-tier of the offline tier (or its remove-tier once evacuate-lost
 * emptied it): its device is no tier any more; the attempts end, and the
 * healthy tier now at its index is left alone.
 */
static void test_rekey_replaced(void **state)
{
	static const char *const after[] = { "nvme0n1", "nvme1n1", "nvme6n1" };
	struct tl_nl_dev *cur = layout(after, 3, -1);
	struct tl_recover r;

	(void)state;
	start(&r, "nvme3n1", 2);
	assert_int_equal(tl_recover_rekey(&r, cur), TL_RECOVER_GONE);
	assert_false(r.active);
	/* Ended: later lists change nothing. */
	assert_int_equal(tl_recover_rekey(&r, cur), TL_RECOVER_SAME);
	assert_false(r.active);
	free(cur);
}

/* A notification without the tier list, an entry without a device: kept. */
static void test_rekey_no_list(void **state)
{
	static const char *const after[] = { "nvme0n1", "nvme1n1" };
	struct tl_nl_dev *none = calloc(1, sizeof(*none));
	struct tl_nl_dev *cur = layout(after, 2, -1);
	struct tl_recover r;

	(void)state;
	assert_non_null(none);
	start(&r, "nvme3n1", 2);
	assert_int_equal(tl_recover_rekey(&r, none), TL_RECOVER_SAME);
	assert_true(r.active);
	assert_int_equal(r.tier, 2);
	start(&r, "", 1);
	assert_int_equal(tl_recover_rekey(&r, cur), TL_RECOVER_SAME);
	assert_true(r.active);
	assert_int_equal(r.tier, 1);
	free(none);
	free(cur);
}

/*
 * Entries by device: tierd's table of them, several tiers at once. A
 * tier-recovered for the tier now at the old index (nvme1n1) does not end
 * the attempts for nvme3n1; the one for nvme3n1's own index does.
 */
static void test_find_by_device(void **state)
{
	static const char *const after[] = { "nvme0n1", "nvme5n1", "nvme1n1",
					     "nvme3n1", "nvme4n1" };
	struct tl_nl_dev *cur = layout(after, 5, 3);
	struct tl_recover r[TIER_MAX_TIERS];
	size_t i;

	(void)state;
	memset(r, 0, sizeof(r));
	start(&r[0], "nvme3n1", 2);
	start(&r[1], "nvme4n1", 3);
	for (i = 0; i < TIER_MAX_TIERS; i++)
		tl_recover_rekey(&r[i], cur);
	assert_int_equal(r[0].tier, 3);
	assert_int_equal(r[1].tier, 4);
	assert_int_equal(tl_recover_tier_of(cur, "nvme3n1"), 3);
	assert_int_equal(tl_recover_tier_of(cur, "nvme9n1"), -1);
	assert_int_equal(tl_recover_tier_of(cur, ""), -1);
	/* tier-recovered of tier 2 (the event's list): nvme1n1, not ours. */
	assert_null(tl_recover_find(r, TIER_MAX_TIERS, cur->tiers[2].device));
	assert_ptr_equal(tl_recover_find(r, TIER_MAX_TIERS, cur->tiers[3].device),
			 &r[0]);
	assert_ptr_equal(tl_recover_find(r, TIER_MAX_TIERS, "nvme4n1"), &r[1]);
	r[1].active = false;
	assert_null(tl_recover_find(r, TIER_MAX_TIERS, "nvme4n1"));
	assert_null(tl_recover_find(r, TIER_MAX_TIERS, ""));
	free(cur);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_give_up),
		cmocka_unit_test(test_outlasts_ctrl_loss_tmo),
		cmocka_unit_test(test_rekey_insert),
		cmocka_unit_test(test_rekey_remove),
		cmocka_unit_test(test_rekey_replaced),
		cmocka_unit_test(test_rekey_no_list),
		cmocka_unit_test(test_find_by_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
