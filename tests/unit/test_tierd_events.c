// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/tierd/tl-events.c: what tierd makes of a monitor
 * notification about a device it tracks: whether a tier-recovered ends the
 * attempts to reconnect its tier, whether a dev-del is of the device tracked
 * under its name.
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

#define U_OLD "2f1c0a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
#define U_NEW "9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d"

/* A dev-del (or any notification) of the device named @name, uuid @uuid. */
static struct tl_nl_dev *dev_ntf(uint32_t event, const char *name,
				 const char *uuid)
{
	struct tl_nl_dev *ev = calloc(1, sizeof(*ev));

	assert_non_null(ev);
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	snprintf(ev->uuid, sizeof(ev->uuid), "%s", uuid);
	ev->event = event;
	return ev;
}

/*
 * `dmsetup rename data old`, `tierctl create data ...`, `tierctl remove
 * old`: the dev-del of the old device carries the name the kernel last saw
 * for it, "data", and its own uuid. tierd tracks the new "data" (its
 * dev-new gave U_NEW): that dev-del is not about it. tierd forgot the live
 * device here (its pins, moves and reconnection attempts).
 */
static void test_dev_del_after_rename(void **state)
{
	struct tl_nl_dev *old = dev_ntf(DM_TIER_EVENT_DEV_NEW, "data", U_OLD);
	struct tl_nl_dev *neu = dev_ntf(DM_TIER_EVENT_DEV_NEW, "data", U_NEW);
	struct tl_nl_dev *del = dev_ntf(DM_TIER_EVENT_DEV_DEL, "data", U_OLD);
	char tracked[40] = ""; /* what tierd records for "data" */

	(void)state;
	/* The first "data" appears, then (renamed) a new one. */
	assert_true(tl_ev_same_device(tracked, old));
	snprintf(tracked, sizeof(tracked), "%s", old->uuid);
	snprintf(tracked, sizeof(tracked), "%s", neu->uuid);
	/* The old one goes, under the name it had: not the tracked one. */
	assert_false(tl_ev_same_device(tracked, del));
	free(old);
	free(neu);
	free(del);
}

/* A dev-del of the device tracked under its name: it goes. */
static void test_dev_del_same(void **state)
{
	struct tl_nl_dev *del = dev_ntf(DM_TIER_EVENT_DEV_DEL, "data", U_NEW);

	(void)state;
	assert_true(tl_ev_same_device(U_NEW, del));
	free(del);
}

/* No uuid on either side: the name decides, as before. */
static void test_dev_del_no_uuid(void **state)
{
	struct tl_nl_dev *del = dev_ntf(DM_TIER_EVENT_DEV_DEL, "data", "");

	(void)state;
	assert_true(tl_ev_same_device(U_NEW, del));
	free(del);
	del = dev_ntf(DM_TIER_EVENT_DEV_DEL, "data", U_OLD);
	assert_true(tl_ev_same_device("", del));
	free(del);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recovered_ok),
		cmocka_unit_test(test_recovered_not_ok),
		cmocka_unit_test(test_error_then_stale_recovered),
		cmocka_unit_test(test_not_recovered),
		cmocka_unit_test(test_dev_del_after_rename),
		cmocka_unit_test(test_dev_del_same),
		cmocka_unit_test(test_dev_del_no_uuid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
