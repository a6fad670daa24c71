// SPDX-License-Identifier: GPL-2.0
/* Unit tests for "tierctl evacuate" without a kernel: its command line
 * (evacuate_parse), the checks it makes before asking the kernel
 * (evacuate_precheck, user/tierctl/cmd-evacuate.c: metadata tier, single
 * tier, offline tier, room with the missing MiB), and the tier state
 * "tierctl status" shows (tl_tier_evacuation, user/lib/tl-report.c). The
 * kernel side: VM test 068; the room and destination rules themselves:
 * tests/cases/policy_cases.h.
 */
/* tierctl.h before cmocka.h: cmocka defines a fail() macro. */
#include "tierctl.h"
#include "tl-report.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_ARGS 8
#define MIB (1024ULL * 1024)

/* evacuate_parse() on "evacuate ARG...", the list ending with NULL. */
static int parse(struct evacuate_opts *o, ...)
{
	static char *argv[MAX_ARGS + 2];
	int argc = 0;
	va_list ap;
	char *a;

	argv[argc++] = "evacuate";
	va_start(ap, o);
	while ((a = va_arg(ap, char *)) && argc <= MAX_ARGS)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return evacuate_parse(argc, argv, o);
}

static void test_parse(void **state)
{
	struct evacuate_opts o;

	(void)state;
	assert_int_equal(parse(&o, "ckpt", "1", NULL), TIERCTL_EXIT_OK);
	assert_string_equal(o.name, "ckpt");
	assert_int_equal(o.tier, 1);
	assert_false(o.wait);
	assert_false(o.cancel);
	assert_int_equal(parse(&o, "ckpt", "2", "--wait", NULL), TIERCTL_EXIT_OK);
	assert_int_equal(o.tier, 2);
	assert_true(o.wait);
	assert_int_equal(parse(&o, "--cancel", "ckpt", "--tier", "1", NULL),
			 TIERCTL_EXIT_OK);
	assert_true(o.cancel);
	assert_int_equal(o.tier, 1);
	assert_int_equal(parse(&o, "ckpt", "1", "--json", NULL), TIERCTL_EXIT_OK);
	assert_true(o.json);
	/* No --to: no preferred destination. */
	assert_int_equal(o.to, TL_NL_NO_TIER);
	assert_int_equal(parse(&o, "ckpt", "1", "--to", "2", "--wait", NULL),
			 TIERCTL_EXIT_OK);
	assert_int_equal(o.to, 2);
	assert_true(o.wait);
}

static void test_parse_to_errors(void **state)
{
	struct evacuate_opts o;

	(void)state;
	assert_int_equal(parse(&o, "ckpt", "1", "--to", "x", NULL),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "1", "--to", NULL),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "1", "--to", "2", "--cancel", NULL),
			 TIERCTL_EXIT_USAGE);
}

static void test_parse_errors(void **state)
{
	struct evacuate_opts o;

	(void)state;
	assert_int_equal(parse(&o, NULL), TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", NULL), TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "x", NULL), TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "-1", NULL), TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "1", "2", NULL), TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "1", "--wait", "--cancel", NULL),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "1", "--bogus", NULL),
			 TIERCTL_EXIT_USAGE);
}

static void dev3(struct tl_nl_dev *d, u64 used0, u64 mapped1, u64 used2);

/* --to: another tier of the device that takes extents. */
static void test_check_to(void **state)
{
	struct tl_nl_dev d;
	char why[256];

	(void)state;
	dev3(&d, 10, 50, 10);
	assert_int_equal(evacuate_check_to(&d, 1, 2, why, sizeof(why)),
			 TIERCTL_EXIT_OK);
	assert_int_equal(evacuate_check_to(&d, 1, 0, why, sizeof(why)),
			 TIERCTL_EXIT_OK);
	assert_int_equal(evacuate_check_to(&d, 1, 1, why, sizeof(why)),
			 TIERCTL_EXIT_USAGE);
	assert_non_null(strstr(why, "being evacuated; name another"));
	assert_int_equal(evacuate_check_to(&d, 1, 3, why, sizeof(why)),
			 TIERCTL_EXIT_USAGE);
	assert_non_null(strstr(why, "tiers 0 to 2"));
	snprintf(d.tiers[2].state, sizeof(d.tiers[2].state), "offline");
	assert_int_equal(evacuate_check_to(&d, 1, 2, why, sizeof(why)),
			 TIERCTL_EXIT_FAIL);
	assert_non_null(strstr(why, "is offline"));
	snprintf(d.tiers[2].state, sizeof(d.tiers[2].state), "ok");
	d.tiers[2].evacuating = 1;
	assert_int_equal(evacuate_check_to(&d, 1, 2, why, sizeof(why)),
			 TIERCTL_EXIT_FAIL);
	assert_non_null(strstr(why, "being evacuated and takes no"));
}

/* Three tiers of 100 extents of 1 MiB; tier 1 maps @mapped1. */
static void dev3(struct tl_nl_dev *d, u64 used0, u64 mapped1, u64 used2)
{
	u32 i;

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "ckpt");
	d->extent_bytes = MIB;
	d->nr_tiers = 3;
	for (i = 0; i < 3; i++) {
		snprintf(d->tiers[i].state, sizeof(d->tiers[i].state), "ok");
		d->tiers[i].capacity_extents = 100;
	}
	d->tiers[0].mapped_extents = used0;
	d->tiers[1].used_extents = mapped1;
	d->tiers[1].mapped_extents = mapped1;
	d->tiers[2].mapped_extents = used2;
	/* Used counts extents awaiting a commit to be freed: not taken. */
	d->tiers[0].used_extents = 100;
	d->tiers[2].used_extents = 100;
}

static void test_precheck_ok(void **state)
{
	struct tl_nl_dev d;
	char why[512] = "";
	u64 missing = 1;

	(void)state;
	/* 60 on tier 1; 50 + 50 free elsewhere (no reserve). */
	dev3(&d, 50, 60, 50);
	assert_int_equal(evacuate_precheck(&d, 1, true, 0, &missing, why,
					   sizeof(why)),
			 TIERCTL_EXIT_OK);
	assert_int_equal(missing, 0);
	/* Tier 0 with a separate metadata device. */
	dev3(&d, 10, 0, 0);
	assert_int_equal(evacuate_precheck(&d, 0, false, 0, &missing, why,
					   sizeof(why)),
			 TIERCTL_EXIT_OK);
	/* Already evacuating: resumed, whatever the room. */
	dev3(&d, 100, 60, 100);
	d.tiers[1].evacuating = true;
	assert_int_equal(evacuate_precheck(&d, 1, true, 0, &missing, why,
					   sizeof(why)),
			 TIERCTL_EXIT_OK);
}

static void test_precheck_refusals(void **state)
{
	struct tl_nl_dev d;
	char why[512];
	u64 missing;

	(void)state;
	dev3(&d, 0, 10, 0);
	assert_int_equal(evacuate_precheck(&d, 0, true, 0, &missing, why,
					   sizeof(why)),
			 TIERCTL_EXIT_FAIL);
	assert_non_null(strstr(why, "tier 0 holds the metadata"));
	assert_int_equal(evacuate_precheck(&d, 3, true, 0, &missing, why,
					   sizeof(why)),
			 TIERCTL_EXIT_USAGE);
	assert_non_null(strstr(why, "tiers 0 to 2, not 3"));
	snprintf(d.tiers[1].state, sizeof(d.tiers[1].state), "offline");
	assert_int_equal(evacuate_precheck(&d, 1, true, 0, &missing, why,
					   sizeof(why)),
			 TIERCTL_EXIT_FAIL);
	assert_non_null(strstr(why, "is offline"));
	d.nr_tiers = 1;
	assert_int_equal(evacuate_precheck(&d, 0, false, 0, &missing, why,
					   sizeof(why)),
			 TIERCTL_EXIT_FAIL);
	assert_non_null(strstr(why, "only tier 0"));
}

static void test_precheck_room(void **state)
{
	struct tl_nl_dev d;
	char why[512];
	u64 missing;

	(void)state;
	/* 60 on tier 1; 30 + 20 free: 10 MiB missing. */
	dev3(&d, 70, 60, 80);
	assert_int_equal(evacuate_precheck(&d, 1, true, 0, &missing, why,
					   sizeof(why)),
			 TIERCTL_EXIT_FAIL);
	assert_int_equal(missing, 10 * MIB);
	assert_non_null(strstr(why, ": 10 MiB missing above their 0% reserves"));
	/* A 10% reserve (10 extents per tier) is not room: 30 missing. */
	assert_int_equal(evacuate_precheck(&d, 1, true, 10, &missing, why,
					   sizeof(why)),
			 TIERCTL_EXIT_FAIL);
	assert_int_equal(missing, 30 * MIB);
	assert_non_null(strstr(why, ": 30 MiB missing above their 10% reserves"));
	/* An offline tier's room does not count: 60 - 30 = 30 missing. */
	snprintf(d.tiers[2].state, sizeof(d.tiers[2].state), "offline");
	assert_int_equal(evacuate_precheck(&d, 1, true, 0, &missing, why,
					   sizeof(why)),
			 TIERCTL_EXIT_FAIL);
	assert_int_equal(missing, 30 * MIB);
	/* Nor an evacuating one's. */
	snprintf(d.tiers[2].state, sizeof(d.tiers[2].state), "ok");
	d.tiers[2].evacuating = true;
	assert_int_equal(evacuate_precheck(&d, 1, true, 0, &missing, why,
					   sizeof(why)),
			 TIERCTL_EXIT_FAIL);
	assert_int_equal(missing, 30 * MIB);
}

static void test_tier_evacuation(void **state)
{
	static struct tl_nl_dev nd;
	const struct tl_nl_move *m;
	struct tl_status st;

	(void)state;
	memset(&st, 0, sizeof(st));
	memset(&nd, 0, sizeof(nd));
	st.nr_tiers = 3;
	st.tier[1].mapped_extents = 5;
	assert_null(tl_tier_evacuation(&st, &nd, 1, &m));
	assert_null(m);
	st.tier[1].evacuating = true;
	/* No request: stopped while extents remain, then empty. */
	assert_string_equal(tl_tier_evacuation(&st, &nd, 1, &m), "stopped");
	assert_string_equal(tl_tier_evacuation(&st, NULL, 1, NULL), "stopped");
	st.tier[1].mapped_extents = 0;
	assert_string_equal(tl_tier_evacuation(&st, &nd, 1, &m), "empty");
	/* A migrate to tier 1 is not its evacuation; an evacuate of it is. */
	st.tier[1].mapped_extents = 5;
	nd.nr_moves = 2;
	nd.moves[0].id = 3;
	snprintf(nd.moves[0].kind, sizeof(nd.moves[0].kind), "migrate");
	nd.moves[0].target_tier = 1;
	nd.moves[1].id = 4;
	snprintf(nd.moves[1].kind, sizeof(nd.moves[1].kind), "evacuate");
	nd.moves[1].target_tier = 1;
	assert_string_equal(tl_tier_evacuation(&st, &nd, 1, &m), "evacuating");
	assert_non_null(m);
	assert_int_equal(m->id, 4);
	/* Out of range: none. */
	assert_null(tl_tier_evacuation(&st, &nd, 3, &m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_to_errors),
		cmocka_unit_test(test_check_to),
		cmocka_unit_test(test_precheck_ok),
		cmocka_unit_test(test_precheck_refusals),
		cmocka_unit_test(test_precheck_room),
		cmocka_unit_test(test_tier_evacuation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
