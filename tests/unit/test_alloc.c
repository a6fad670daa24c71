// SPDX-License-Identifier: GPL-2.0
/* Unit tests for kernel/core/alloc.c: per-tier extent allocator, deferred
 * frees across commits, cross-tier placement, loading from the map. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "format.h"
#include "extent_map.h"
#include "alloc.h"

static void test_init_errors(void **state)
{
	struct tier_alloc a;
	int i;

	(void)state;
	assert_int_equal(tier_alloc_init(&a, 0), -EINVAL);
	assert_null(a.used);
	assert_int_equal(tier_alloc_init(&a, TIER_MAX_PEXTS + 1), -EINVAL);
	for (i = 1; i <= 3; i++) {
		tier_test_fail_alloc = i;
		assert_int_equal(tier_alloc_init(&a, 100), -ENOMEM);
		assert_null(a.used);
		assert_null(a.pending);
		assert_null(a.committing);
		assert_int_equal(a.nr_extents, 0);
	}
	tier_test_fail_alloc = 0;
	assert_int_equal(tier_alloc_init(&a, 100), 0);
	assert_int_equal(tier_alloc_free_count(&a), 100);
	tier_alloc_destroy(&a);
	tier_alloc_destroy(&a);
}

static void test_get_next_fit(void **state)
{
	struct tier_alloc a;
	struct tier_pext p;
	u64 i;

	(void)state;
	assert_int_equal(tier_alloc_init(&a, 130), 0);
	for (i = 0; i < 130; i++) {
		assert_int_equal(tier_alloc_get(&a, false, &p), 0);
		assert_int_equal(p.p, i);
	}
	p.p = 999;
	assert_int_equal(tier_alloc_get(&a, true, &p), -ENOSPC);
	assert_int_equal(p.p, 999);
	assert_int_equal(a.cursor, 0);

	/* Next fit: holes behind the cursor are found after wrapping. */
	assert_int_equal(tier_alloc_unget(&a, tier_pext(5)), 0);
	assert_int_equal(tier_alloc_unget(&a, tier_pext(70)), 0);
	assert_int_equal(tier_alloc_unget(&a, tier_pext(129)), 0);
	a.cursor = 60;
	assert_int_equal(tier_alloc_get(&a, false, &p), 0);
	assert_int_equal(p.p, 70);
	assert_int_equal(tier_alloc_get(&a, false, &p), 0);
	assert_int_equal(p.p, 129);
	assert_int_equal(a.cursor, 0);
	assert_int_equal(tier_alloc_get(&a, false, &p), 0);
	assert_int_equal(p.p, 5);
	assert_int_equal(a.cursor, 6);
	assert_int_equal(tier_alloc_get(&a, false, &p), -ENOSPC);

	/* unget errors */
	assert_int_equal(tier_alloc_unget(&a, tier_pext(130)), -EINVAL);
	assert_int_equal(tier_alloc_unget(&a, tier_pext(5)), 0);
	assert_int_equal(tier_alloc_unget(&a, tier_pext(5)), -EINVAL);
	tier_alloc_destroy(&a);
}

static void test_reserve(void **state)
{
	struct tier_alloc a;
	struct tier_pext p;
	int i;

	(void)state;
	assert_int_equal(tier_alloc_init(&a, 199), 0);
	tier_alloc_set_reserve_pct(&a, 2);
	assert_int_equal(a.reserve, 3);		/* 3.98 rounded down */
	tier_alloc_set_reserve_pct(&a, 0);
	assert_int_equal(a.reserve, 0);
	tier_alloc_set_reserve_pct(&a, 100);
	assert_int_equal(a.reserve, 199);
	tier_alloc_set_reserve_pct(&a, 1000);
	assert_int_equal(a.reserve, 199);
	tier_alloc_set_reserve_pct(&a, 50);
	assert_int_equal(a.reserve, 99);

	for (i = 0; i < 100; i++)
		assert_int_equal(tier_alloc_get(&a, false, &p), 0);
	/* 99 free == reserve: only the reserve-using pass may take them. */
	assert_int_equal(tier_alloc_get(&a, false, &p), -ENOSPC);
	for (i = 0; i < 99; i++)
		assert_int_equal(tier_alloc_get(&a, true, &p), 0);
	assert_int_equal(tier_alloc_get(&a, true, &p), -ENOSPC);
	tier_alloc_destroy(&a);

	/* Huge tier: no overflow in the percentage. */
	a.nr_extents = TIER_MAX_PEXTS;
	tier_alloc_set_reserve_pct(&a, 50);
	assert_int_equal(a.reserve, TIER_MAX_PEXTS / 2);
}

static void test_mark_used(void **state)
{
	struct tier_alloc a;
	struct tier_pext p;

	(void)state;
	assert_int_equal(tier_alloc_init(&a, 10), 0);
	assert_int_equal(tier_alloc_mark_used(&a, tier_pext(3)), 0);
	assert_int_equal(tier_alloc_mark_used(&a, tier_pext(3)), -EUCLEAN);
	assert_int_equal(tier_alloc_mark_used(&a, tier_pext(10)), -EINVAL);
	assert_int_equal(tier_alloc_mark_used(&a, tier_pext(9)), 0);
	assert_int_equal(a.nr_used, 2);
	assert_int_equal(tier_alloc_get(&a, false, &p), 0);
	assert_int_equal(p.p, 0);
	a.cursor = 3;
	assert_int_equal(tier_alloc_get(&a, false, &p), 0);
	assert_int_equal(p.p, 4);
	tier_alloc_destroy(&a);
}

static void test_deferred_free(void **state)
{
	struct tier_alloc a;
	struct tier_alloc_stats st;
	struct tier_pext p;
	int i;

	(void)state;
	assert_int_equal(tier_alloc_init(&a, 4), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(tier_alloc_get(&a, false, &p), 0);

	assert_int_equal(tier_alloc_free_deferred(&a, tier_pext(1)), 0);
	assert_int_equal(tier_alloc_free_deferred(&a, tier_pext(1)), -EINVAL);
	assert_int_equal(tier_alloc_unget(&a, tier_pext(1)), -EINVAL);
	assert_int_equal(tier_alloc_free_deferred(&a, tier_pext(4)), -EINVAL);
	tier_alloc_stats(&a, &st);
	assert_int_equal(st.total, 4);
	assert_int_equal(st.used, 3);
	assert_int_equal(st.pending, 1);
	assert_int_equal(st.free, 0);
	/* Not reusable before the commit recording the unmap is on disk. */
	assert_int_equal(tier_alloc_get(&a, true, &p), -ENOSPC);

	tier_alloc_commit_begin(&a);
	assert_int_equal(a.nr_committing, 1);
	assert_int_equal(tier_alloc_get(&a, true, &p), -ENOSPC);
	/* Freed during the commit: belongs to the next one. */
	assert_int_equal(tier_alloc_free_deferred(&a, tier_pext(2)), 0);
	assert_int_equal(tier_alloc_free_deferred(&a, tier_pext(2)), -EINVAL);
	tier_alloc_commit_end(&a, true);
	assert_int_equal(tier_alloc_get(&a, true, &p), 0);
	assert_int_equal(p.p, 1);
	assert_int_equal(tier_alloc_get(&a, true, &p), -ENOSPC);
	tier_alloc_stats(&a, &st);
	assert_int_equal(st.used, 3);
	assert_int_equal(st.pending, 1);

	/* A failed commit keeps them unusable, and the next one frees them
	 * together with later frees. */
	tier_alloc_commit_begin(&a);
	tier_alloc_commit_end(&a, false);
	assert_int_equal(a.nr_committing, 1);
	assert_int_equal(tier_alloc_get(&a, true, &p), -ENOSPC);
	assert_int_equal(tier_alloc_free_deferred(&a, tier_pext(2)), -EINVAL);
	assert_int_equal(tier_alloc_free_deferred(&a, tier_pext(3)), 0);
	tier_alloc_commit_begin(&a);	/* merges */
	assert_int_equal(a.nr_committing, 2);
	assert_int_equal(a.nr_pending, 0);
	tier_alloc_commit_end(&a, false);
	tier_alloc_commit_begin(&a);	/* nothing new pending */
	assert_int_equal(a.nr_committing, 2);
	tier_alloc_commit_end(&a, true);
	assert_int_equal(a.nr_used, 2);
	assert_int_equal(tier_alloc_get(&a, true, &p), 0);
	assert_int_equal(tier_alloc_get(&a, true, &p), 0);
	assert_int_equal(tier_alloc_get(&a, true, &p), -ENOSPC);

	/* Empty commits are no-ops. */
	tier_alloc_commit_begin(&a);
	tier_alloc_commit_end(&a, true);
	assert_int_equal(a.nr_used, 4);
	tier_alloc_destroy(&a);
}

/* Freeing never allocates: no allocation failure can break it. */
static void test_free_never_allocates(void **state)
{
	struct tier_alloc a;
	struct tier_pext p;

	(void)state;
	assert_int_equal(tier_alloc_init(&a, 8), 0);
	assert_int_equal(tier_alloc_get(&a, false, &p), 0);
	tier_test_fail_alloc = 1;
	assert_int_equal(tier_alloc_free_deferred(&a, p), 0);
	tier_alloc_commit_begin(&a);
	tier_alloc_commit_end(&a, true);
	assert_int_equal(tier_test_fail_alloc, 1);	/* never consumed */
	tier_test_fail_alloc = 0;
	tier_alloc_destroy(&a);
}

static void test_counter_out_of_sync(void **state)
{
	struct tier_alloc a;
	struct tier_pext p;

	(void)state;
	assert_int_equal(tier_alloc_init(&a, 3), 0);
	assert_int_equal(tier_alloc_mark_used(&a, tier_pext(0)), 0);
	assert_int_equal(tier_alloc_mark_used(&a, tier_pext(1)), 0);
	assert_int_equal(tier_alloc_mark_used(&a, tier_pext(2)), 0);
	a.nr_used = 1;	/* simulated bug: the bitmap is full anyway */
	assert_int_equal(tier_alloc_get(&a, true, &p), -ENOSPC);
	a.cursor = 2;
	assert_int_equal(tier_alloc_get(&a, true, &p), -ENOSPC);
	{
		struct tier_loc loc;

		assert_int_equal(tier_alloc_extent(&a, 1, &loc), -ENOSPC);
	}
	tier_alloc_destroy(&a);
}

static void test_pick(void **state)
{
	struct tier_alloc t[3];
	struct tier_loc loc;
	bool rsv = true;
	int i;

	(void)state;
	assert_int_equal(tier_alloc_init(&t[0], 10), 0);
	assert_int_equal(tier_alloc_init(&t[1], 10), 0);
	assert_int_equal(tier_alloc_init(&t[2], 100), 0);
	for (i = 0; i < 3; i++)
		tier_alloc_set_reserve_pct(&t[i], 20);

	assert_int_equal(tier_pick_alloc_tier(t, 3, &rsv), 0);
	assert_false(rsv);
	/* Fill tier 0 down to its reserve, then spill to tier 1, 2. */
	for (i = 0; i < 8; i++) {
		assert_int_equal(tier_alloc_extent(t, 3, &loc), 0);
		assert_int_equal(loc.tier, 0);
		assert_int_equal(loc.pext.p, i);
		assert_int_equal(loc.flags, 0);
	}
	assert_int_equal(tier_alloc_extent(t, 3, &loc), 0);
	assert_int_equal(loc.tier, 1);
	for (i = 0; i < 7; i++)
		assert_int_equal(tier_alloc_extent(t, 3, &loc), 0);
	assert_int_equal(loc.tier, 1);
	for (i = 0; i < 80; i++) {
		assert_int_equal(tier_alloc_extent(t, 3, &loc), 0);
		assert_int_equal(loc.tier, 2);
	}
	/* All tiers at their reserve: second pass, fastest first. */
	assert_int_equal(tier_pick_alloc_tier(t, 3, &rsv), 0);
	assert_true(rsv);
	for (i = 0; i < 2; i++) {
		assert_int_equal(tier_alloc_extent(t, 3, &loc), 0);
		assert_int_equal(loc.tier, 0);
	}
	assert_int_equal(tier_alloc_extent(t, 3, &loc), 0);
	assert_int_equal(loc.tier, 1);
	/* Offline tier 1 is skipped in both passes. */
	t[1].flags |= TIER_ALLOC_F_NOALLOC;
	assert_int_equal(tier_pick_alloc_tier(t, 3, &rsv), 2);
	assert_true(rsv);
	assert_int_equal(tier_alloc_get(&t[1], true, &loc.pext), -ENOSPC);
	for (i = 0; i < 20; i++) {
		assert_int_equal(tier_alloc_extent(t, 3, &loc), 0);
		assert_int_equal(loc.tier, 2);
	}
	assert_int_equal(tier_alloc_extent(t, 3, &loc), -ENOSPC);
	assert_int_equal(tier_pick_alloc_tier(t, 3, &rsv), -ENOSPC);
	t[1].flags = 0;
	assert_int_equal(tier_pick_alloc_tier(t, 3, &rsv), 1);
	assert_int_equal(tier_pick_alloc_tier(t, 0, &rsv), -ENOSPC);
	/* Pending frees are not free space. */
	for (i = 0; i < 1; i++)
		assert_int_equal(tier_alloc_extent(t, 3, &loc), 0);
	assert_int_equal(tier_alloc_free_deferred(&t[0], tier_pext(3)), 0);
	assert_int_equal(tier_alloc_extent(t, 3, &loc), -ENOSPC);
	for (i = 0; i < 3; i++)
		tier_alloc_destroy(&t[i]);
}

static void test_load_map(void **state)
{
	struct tier_alloc t[2];
	struct tier_map m;
	struct tier_err err = { 0 };
	struct tier_loc l;

	(void)state;
	assert_int_equal(tier_map_init(&m, 50, 0), 0);
	assert_int_equal(tier_alloc_init(&t[0], 10), 0);
	assert_int_equal(tier_alloc_init(&t[1], 20), 0);
	l = (struct tier_loc){ 0, 0, { 9 } };
	tier_map_set(&m, tier_vext(3), &l);
	l = (struct tier_loc){ 1, TIER_EXT_F_PINNED, { 9 } };
	tier_map_set(&m, tier_vext(4), &l);
	l = (struct tier_loc){ 1, 0, { 19 } };
	tier_map_set(&m, tier_vext(49), &l);
	assert_int_equal(tier_alloc_load_map(t, 2, &m, &err), 0);
	assert_int_equal(t[0].nr_used, 1);
	assert_int_equal(t[1].nr_used, 2);
	tier_alloc_destroy(&t[0]);
	tier_alloc_destroy(&t[1]);

	/* Two virtual extents on one physical extent. */
	assert_int_equal(tier_alloc_init(&t[0], 10), 0);
	assert_int_equal(tier_alloc_init(&t[1], 20), 0);
	l = (struct tier_loc){ 1, 0, { 9 } };
	tier_map_set(&m, tier_vext(20), &l);
	assert_int_equal(tier_alloc_load_map(t, 2, &m, &err), -EUCLEAN);
	assert_int_equal(err.code, TIER_E_MAP_DOUBLE_USE);
	assert_int_equal(err.item, 20);
	assert_int_equal(err.value, 9);
	tier_alloc_destroy(&t[0]);
	tier_alloc_destroy(&t[1]);

	/* Out of range tier or extent. */
	tier_map_clear(&m, tier_vext(20), NULL);
	assert_int_equal(tier_alloc_init(&t[0], 10), 0);
	assert_int_equal(tier_alloc_init(&t[1], 19), 0);
	assert_int_equal(tier_alloc_load_map(t, 2, &m, &err), -EUCLEAN);
	assert_int_equal(err.code, TIER_E_MAP_ENTRY_PEXT);
	assert_int_equal(err.item, 49);
	tier_alloc_destroy(&t[0]);
	tier_alloc_destroy(&t[1]);
	assert_int_equal(tier_alloc_init(&t[0], 10), 0);
	assert_int_equal(tier_alloc_load_map(t, 1, &m, &err), -EUCLEAN);
	assert_int_equal(err.code, TIER_E_MAP_ENTRY_TIER);
	assert_int_equal(err.item, 4);
	assert_int_equal(err.value, 1);
	tier_alloc_destroy(&t[0]);
	tier_map_destroy(&m);
}

/* Random operations checked against a trivial model. */
enum { M_FREE, M_USED, M_PENDING, M_COMMITTING };

static void test_model(void **state)
{
	const u64 n = 1000;
	struct tier_alloc a;
	struct tier_alloc_stats st;
	struct tier_pext p;
	u8 model[1000];
	u32 seed = 7;
	u64 i, cnt[4];
	int step, ret;
	bool in_commit = false;

	(void)state;
	memset(model, M_FREE, sizeof(model));
	assert_int_equal(tier_alloc_init(&a, n), 0);
	tier_alloc_set_reserve_pct(&a, 5);
	for (step = 0; step < 200000; step++) {
		u32 r;

		seed = seed * 1103515245 + 12345;
		r = seed >> 8;
		switch (r % 10) {
		case 0: case 1: case 2: case 3:
			ret = tier_alloc_get(&a, r & 0x100, &p);
			if (ret == 0) {
				assert_int_equal(model[p.p], M_FREE);
				model[p.p] = M_USED;
			}
			break;
		case 4: case 5: case 6:
			i = (r >> 4) % n;
			ret = tier_alloc_free_deferred(&a, tier_pext(i));
			assert_int_equal(ret, model[i] == M_USED ? 0 : -EINVAL);
			if (!ret)
				model[i] = M_PENDING;
			break;
		case 7:
			if (in_commit)
				break;
			tier_alloc_commit_begin(&a);
			for (i = 0; i < n; i++) {
				if (model[i] == M_PENDING)
					model[i] = M_COMMITTING;
			}
			in_commit = true;
			break;
		case 8:
			if (!in_commit)
				break;
			tier_alloc_commit_end(&a, r & 0x300);	/* 1/4 fail */
			for (i = 0; i < n; i++) {
				if (model[i] == M_COMMITTING && (r & 0x300))
					model[i] = M_FREE;
			}
			in_commit = false;
			break;
		case 9:
			i = (r >> 4) % n;
			ret = tier_alloc_unget(&a, tier_pext(i));
			assert_int_equal(ret, model[i] == M_USED ? 0 : -EINVAL);
			if (!ret)
				model[i] = M_FREE;
			break;
		}
		if (step % 1000)
			continue;
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[model[i]]++;
		tier_alloc_stats(&a, &st);
		assert_int_equal(st.free, cnt[M_FREE]);
		assert_int_equal(st.used, cnt[M_USED]);
		assert_int_equal(st.pending, cnt[M_PENDING] + cnt[M_COMMITTING]);
		assert_int_equal(st.reserve, 50);
		for (i = 0; i < n; i++)
			assert_int_equal(test_bit(i, a.used),
					 model[i] != M_FREE);
	}
	tier_alloc_destroy(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_get_next_fit),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_mark_used),
		cmocka_unit_test(test_deferred_free),
		cmocka_unit_test(test_free_never_allocates),
		cmocka_unit_test(test_counter_out_of_sync),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_load_map),
		cmocka_unit_test(test_model),
	};

	return cmocka_run_group_tests_name("alloc", tests, NULL, NULL);
}
