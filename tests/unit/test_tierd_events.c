// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/tierd/tl-events.c: what tierd makes of a monitor
 * notification about a device it tracks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/dm-tier.h>

#include "tl-events.h"

/* A notification of @event for tier @t of a two-tier device, tier @t in @state. */
static struct tl_nl_dev *ntf(uint32_t event, uint32_t t, const char *state)
{
	struct tl_nl_dev *ev = calloc(1, sizeof(*ev));

	assert_non_null(ev);
	snprintf(ev->name, sizeof(ev->name), "data");
	ev->event = event;
	ev->has_event_tier = true;
	ev->event_tier = t;
	ev->nr_tiers = 2;
	snprintf(ev->tiers[0].state, sizeof(ev->tiers[0].state), "ok");
	snprintf(ev->tiers[1].state, sizeof(ev->tiers[1].state), "%s", state);
	return ev;
}

/* tier-recovered of a tier that is ok: its attempts end. */
static void test_recovered_ok(void **state)
{
	struct tl_nl_dev *ev = ntf(DM_TIER_EVENT_TIER_RECOVERED, 1, "ok");

	(void)state;
	assert_int_equal(tl_ev_recovered_tier(ev), 1);
	free(ev);
}

/*
 * tier-recovered that reached tierd after the tier failed again (the two
 * events sent together, in event order, by a kernel before 2026-12-07:
 * tier-error, then tier-recovered): the tier is degraded or offline in the
 * layout the notification carries, and the attempts must go on. tierd
 * stopped them here and left the offline tier alone.
 */
static void test_recovered_not_ok(void **state)
{
	static const char *const bad[] = { "degraded", "offline" };
	struct tl_nl_dev *ev;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ev = ntf(DM_TIER_EVENT_TIER_RECOVERED, 1, bad[i]);
		assert_int_equal(tl_ev_recovered_tier(ev), -1);
		free(ev);
	}
}

/* The sequence as tierd sees it: error, recovered (state offline). */
static void test_error_then_stale_recovered(void **state)
{
	struct tl_nl_dev *err = ntf(DM_TIER_EVENT_TIER_ERROR, 1, "offline");
	struct tl_nl_dev *rec = ntf(DM_TIER_EVENT_TIER_RECOVERED, 1, "offline");
	bool active = true; /* the tier-error started the attempts */
	int t;

	(void)state;
	assert_int_equal(tl_ev_recovered_tier(err), -1);
	t = tl_ev_recovered_tier(rec);
	if (t >= 0)
		active = false;
	assert_true(active);
	free(err);
	free(rec);
}

/* Anything else ends nothing. */
static void test_not_recovered(void **state)
{
	struct tl_nl_dev *ev;

	(void)state;
	ev = ntf(DM_TIER_EVENT_TIER_ERROR, 1, "ok");
	assert_int_equal(tl_ev_recovered_tier(ev), -1);
	free(ev);
	ev = ntf(DM_TIER_EVENT_TIER_RECOVERED, 1, "ok");
	ev->has_event_tier = false;
	assert_int_equal(tl_ev_recovered_tier(ev), -1);
	free(ev);
	ev = ntf(DM_TIER_EVENT_TIER_RECOVERED, 2, "ok");
	assert_int_equal(tl_ev_recovered_tier(ev), -1);
	free(ev);
	ev = ntf(DM_TIER_EVENT_TIER_RECOVERED, TIER_MAX_TIERS, "ok");
	ev->nr_tiers = TIER_MAX_TIERS + 1;
	assert_int_equal(tl_ev_recovered_tier(ev), -1);
	free(ev);
	/* No state in the layout: not known to be ok. */
	ev = ntf(DM_TIER_EVENT_TIER_RECOVERED, 1, "");
	assert_int_equal(tl_ev_recovered_tier(ev), -1);
	free(ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recovered_ok),
		cmocka_unit_test(test_recovered_not_ok),
		cmocka_unit_test(test_error_then_stale_recovered),
		cmocka_unit_test(test_not_recovered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
