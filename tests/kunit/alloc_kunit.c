// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kernel/core/alloc.c (per-tier extent allocator, deferred
 * frees across commits, cross-tier placement, loading from the map), run
 * in-kernel on UML by tests/kunit/run. Same cases as the userspace
 * tests/unit/test_alloc.c.
 */
#include <kunit/test.h>
#include <kunit/resource.h>

#include "format.h"
#include "extent_map.h"
#include "alloc.h"

/* ---- helpers ------------------------------------------------------------ */

struct tiers_params {
	u32 nr;
	const u64 *sizes;
};

struct tiers_res {
	u32 nr;
	struct tier_alloc a[];
};

static void tiers_res_free(struct kunit_resource *res)
{
	struct tiers_res *t = container_of(res->data, struct tiers_res, a[0]);
	u32 i;

	for (i = 0; i < t->nr; i++)
		tier_alloc_destroy(&t->a[i]);
	kfree(t);
}

static int tiers_res_init(struct kunit_resource *res, void *context)
{
	const struct tiers_params *p = context;
	struct tiers_res *t;
	int ret;

	t = kzalloc(struct_size(t, a, p->nr), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	for (t->nr = 0; t->nr < p->nr; t->nr++) {
		ret = tier_alloc_init(&t->a[t->nr], p->sizes[t->nr]);
		if (ret) {
			res->data = t->a;
			tiers_res_free(res);
			return ret;
		}
	}
	res->data = t->a;
	return 0;
}

/* Allocators for @nr tiers, destroyed when the test ends. */
static struct tier_alloc *test_tiers(struct kunit *test, u32 nr,
				     const u64 *sizes)
{
	struct tiers_params p = { nr, sizes };
	struct tier_alloc *a;

	a = kunit_alloc_resource(test, tiers_res_init, tiers_res_free,
				 GFP_KERNEL, &p);
	KUNIT_ASSERT_NOT_NULL(test, a);
	return a;
}

static struct tier_alloc *test_alloc(struct kunit *test, u64 nr_extents)
{
	return test_tiers(test, 1, &nr_extents);
}

static int map_res_init(struct kunit_resource *res, void *context)
{
	struct tier_map *m = kzalloc(sizeof(*m), GFP_KERNEL);
	int ret;

	if (!m)
		return -ENOMEM;
	ret = tier_map_init(m, *(const u64 *)context, 0);
	if (ret) {
		kfree(m);
		return ret;
	}
	res->data = m;
	return 0;
}

static void map_res_free(struct kunit_resource *res)
{
	tier_map_destroy(res->data);
	kfree(res->data);
}

/* A map destroyed when the test ends. */
static struct tier_map *test_map(struct kunit *test, u64 nr_extents)
{
	struct tier_map *m;

	m = kunit_alloc_resource(test, map_res_init, map_res_free, GFP_KERNEL,
				 &nr_extents);
	KUNIT_ASSERT_NOT_NULL(test, m);
	return m;
}

/* Take @n extents from one tier; each must succeed. */
static void take(struct kunit *test, struct tier_alloc *a, bool use_reserve,
		 int n)
{
	struct tier_pext p;

	while (n--)
		KUNIT_ASSERT_EQ(test, tier_alloc_get(a, use_reserve, &p), 0);
}

static void expect_stats(struct kunit *test, const struct tier_alloc *a,
			 u64 used, u64 pending, u64 free)
{
	struct tier_alloc_stats st;

	tier_alloc_stats(a, &st);
	KUNIT_EXPECT_EQ(test, st.total, a->nr_extents);
	KUNIT_EXPECT_EQ(test, st.used, used);
	KUNIT_EXPECT_EQ(test, st.pending, pending);
	KUNIT_EXPECT_EQ(test, st.free, free);
	KUNIT_EXPECT_EQ(test, st.reserve, a->reserve);
	KUNIT_EXPECT_EQ(test, st.used + st.pending + st.free, st.total);
}

/* ---- one tier ----------------------------------------------------------- */

static void tier_alloc_init_test(struct kunit *test)
{
	struct tier_alloc a;

	memset(&a, 0x5a, sizeof(a));
	KUNIT_EXPECT_EQ(test, tier_alloc_init(&a, 0), -EINVAL);
	KUNIT_EXPECT_NULL(test, a.used);
	KUNIT_EXPECT_EQ(test, a.nr_extents, 0);
	KUNIT_EXPECT_EQ(test, tier_alloc_init(&a, TIER_MAX_PEXTS + 1), -EINVAL);
	KUNIT_EXPECT_NULL(test, a.pending);

	KUNIT_ASSERT_EQ(test, tier_alloc_init(&a, 100), 0);
	KUNIT_EXPECT_EQ(test, tier_alloc_free_count(&a), 100);
	KUNIT_EXPECT_EQ(test, a.reserve, 0);
	expect_stats(test, &a, 0, 0, 100);
	tier_alloc_destroy(&a);
	tier_alloc_destroy(&a);
	KUNIT_EXPECT_NULL(test, a.used);
}

static void tier_alloc_next_fit_test(struct kunit *test)
{
	struct tier_alloc *a = test_alloc(test, 130);
	struct tier_pext p;
	u64 i;

	/* 130 extents: the bitmap spans three words. */
	for (i = 0; i < 130; i++) {
		KUNIT_ASSERT_EQ(test, tier_alloc_get(a, false, &p), 0);
		KUNIT_EXPECT_EQ(test, p.p, i);
	}
	p.p = 999;
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, true, &p), -ENOSPC);
	KUNIT_EXPECT_EQ(test, p.p, 999); /* untouched */
	KUNIT_EXPECT_EQ(test, a->cursor, 0);

	/* Next fit: holes behind the cursor are found after wrapping. */
	KUNIT_EXPECT_EQ(test, tier_alloc_unget(a, tier_pext(5)), 0);
	KUNIT_EXPECT_EQ(test, tier_alloc_unget(a, tier_pext(70)), 0);
	KUNIT_EXPECT_EQ(test, tier_alloc_unget(a, tier_pext(129)), 0);
	a->cursor = 60;
	KUNIT_ASSERT_EQ(test, tier_alloc_get(a, false, &p), 0);
	KUNIT_EXPECT_EQ(test, p.p, 70);
	KUNIT_ASSERT_EQ(test, tier_alloc_get(a, false, &p), 0);
	KUNIT_EXPECT_EQ(test, p.p, 129);
	KUNIT_EXPECT_EQ(test, a->cursor, 0);
	KUNIT_ASSERT_EQ(test, tier_alloc_get(a, false, &p), 0);
	KUNIT_EXPECT_EQ(test, p.p, 5);
	KUNIT_EXPECT_EQ(test, a->cursor, 6);
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, false, &p), -ENOSPC);

	/* unget: out of range, or not in use. */
	KUNIT_EXPECT_EQ(test, tier_alloc_unget(a, tier_pext(130)), -EINVAL);
	KUNIT_EXPECT_EQ(test, tier_alloc_unget(a, tier_pext(5)), 0);
	KUNIT_EXPECT_EQ(test, tier_alloc_unget(a, tier_pext(5)), -EINVAL);
	KUNIT_EXPECT_EQ(test, a->nr_used, 129);
}

struct reserve_case {
	const char *desc;
	u64 nr_extents;
	u32 pct;
	u64 reserve;
};

/* clang-format off */
static const struct reserve_case reserve_cases[] = {
	{ "2% of 199, rounded down", 199, 2, 3 },
	{ "0%", 199, 0, 0 },
	{ "50% of 199", 199, 50, 99 },
	{ "100%", 199, 100, 199 },
	{ "1000% is 100%", 199, 1000, 199 },
	{ "50% of 1", 1, 50, 0 },
	{ "1% of 100", 100, 1, 1 },
	{ "50% of 2^48", TIER_MAX_PEXTS, 50, TIER_MAX_PEXTS / 2 },
	{ "100% of 2^48", TIER_MAX_PEXTS, 100, TIER_MAX_PEXTS },
	{ "U32_MAX% of 2^48", TIER_MAX_PEXTS, U32_MAX, TIER_MAX_PEXTS },
};

/* clang-format on */

static void reserve_desc(const struct reserve_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(reserve, reserve_cases, reserve_desc);

static void tier_alloc_reserve_pct_test(struct kunit *test)
{
	const struct reserve_case *c = test->param_value;
	struct tier_alloc a;

	/* Only the size matters: no bitmaps needed. */
	memset(&a, 0, sizeof(a));
	a.nr_extents = c->nr_extents;
	tier_alloc_set_reserve_pct(&a, c->pct);
	KUNIT_EXPECT_EQ(test, a.reserve, c->reserve);
}

/* The reserve is honoured, then broken into only when asked to. */
static void tier_alloc_reserve_test(struct kunit *test)
{
	struct tier_alloc *a = test_alloc(test, 199);
	struct tier_pext p;

	tier_alloc_set_reserve_pct(a, 50);
	KUNIT_ASSERT_EQ(test, a->reserve, 99);
	take(test, a, false, 100);
	/* 99 free == reserve: only the reserve-using pass may take them. */
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, false, &p), -ENOSPC);
	expect_stats(test, a, 100, 0, 99);
	take(test, a, true, 99);
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, true, &p), -ENOSPC);
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, false, &p), -ENOSPC);
	expect_stats(test, a, 199, 0, 0);
	/* A freed extent goes back to the reserve first. */
	KUNIT_EXPECT_EQ(test, tier_alloc_unget(a, tier_pext(7)), 0);
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, false, &p), -ENOSPC);
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, true, &p), 0);
	KUNIT_EXPECT_EQ(test, p.p, 7);
}

/* An offline tier (TIER_ALLOC_F_NOALLOC) gives out nothing. */
static void tier_alloc_noalloc_test(struct kunit *test)
{
	struct tier_alloc *a = test_alloc(test, 10);
	struct tier_pext p;

	a->flags |= TIER_ALLOC_F_NOALLOC;
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, false, &p), -ENOSPC);
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, true, &p), -ENOSPC);
	/* Loading the map and freeing still work. */
	KUNIT_EXPECT_EQ(test, tier_alloc_mark_used(a, tier_pext(4)), 0);
	KUNIT_EXPECT_EQ(test, tier_alloc_free_deferred(a, tier_pext(4)), 0);
	a->flags = 0;
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, false, &p), 0);
	KUNIT_EXPECT_EQ(test, p.p, 0);
}

static void tier_alloc_mark_used_test(struct kunit *test)
{
	struct tier_alloc *a = test_alloc(test, 10);
	struct tier_pext p;

	KUNIT_EXPECT_EQ(test, tier_alloc_mark_used(a, tier_pext(3)), 0);
	/* Two virtual extents on one physical extent: corruption. */
	KUNIT_EXPECT_EQ(test, tier_alloc_mark_used(a, tier_pext(3)), -EUCLEAN);
	KUNIT_EXPECT_EQ(test, tier_alloc_mark_used(a, tier_pext(10)), -EINVAL);
	KUNIT_EXPECT_EQ(test, tier_alloc_mark_used(a, tier_pext(U64_MAX)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, tier_alloc_mark_used(a, tier_pext(9)), 0);
	KUNIT_EXPECT_EQ(test, a->nr_used, 2);
	/* An allocated extent is used as well. */
	KUNIT_ASSERT_EQ(test, tier_alloc_get(a, false, &p), 0);
	KUNIT_EXPECT_EQ(test, p.p, 0);
	KUNIT_EXPECT_EQ(test, tier_alloc_mark_used(a, tier_pext(0)), -EUCLEAN);
	a->cursor = 3;
	KUNIT_ASSERT_EQ(test, tier_alloc_get(a, false, &p), 0);
	KUNIT_EXPECT_EQ(test, p.p, 4);
	KUNIT_EXPECT_EQ(test, a->nr_used, 4);
}

/* ---- deferred frees and commits ----------------------------------------- */

static void tier_alloc_deferred_free_test(struct kunit *test)
{
	struct tier_alloc *a = test_alloc(test, 4);
	struct tier_pext p;

	take(test, a, false, 4);
	KUNIT_EXPECT_EQ(test, tier_alloc_free_deferred(a, tier_pext(1)), 0);
	KUNIT_EXPECT_EQ(test, tier_alloc_free_deferred(a, tier_pext(1)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, tier_alloc_unget(a, tier_pext(1)), -EINVAL);
	KUNIT_EXPECT_EQ(test, tier_alloc_free_deferred(a, tier_pext(4)),
			-EINVAL);
	expect_stats(test, a, 3, 1, 0);
	/* Not reusable before the commit recording the unmap is on disk. */
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, true, &p), -ENOSPC);

	tier_alloc_commit_begin(a);
	KUNIT_EXPECT_EQ(test, a->nr_committing, 1);
	KUNIT_EXPECT_EQ(test, a->nr_pending, 0);
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, true, &p), -ENOSPC);
	/* Freed while the commit is in flight: belongs to the next one. */
	KUNIT_EXPECT_EQ(test, tier_alloc_free_deferred(a, tier_pext(2)), 0);
	KUNIT_EXPECT_EQ(test, tier_alloc_free_deferred(a, tier_pext(2)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, tier_alloc_free_deferred(a, tier_pext(1)),
			-EINVAL);
	expect_stats(test, a, 2, 2, 0);
	tier_alloc_commit_end(a, true);
	expect_stats(test, a, 2, 1, 1);
	KUNIT_ASSERT_EQ(test, tier_alloc_get(a, true, &p), 0);
	KUNIT_EXPECT_EQ(test, p.p, 1);
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, true, &p), -ENOSPC);
	expect_stats(test, a, 3, 1, 0);

	/* The next commit frees the one freed during the previous one. */
	tier_alloc_commit_begin(a);
	tier_alloc_commit_end(a, true);
	KUNIT_ASSERT_EQ(test, tier_alloc_get(a, true, &p), 0);
	KUNIT_EXPECT_EQ(test, p.p, 2);

	/* Empty commits are no-ops. */
	tier_alloc_commit_begin(a);
	tier_alloc_commit_end(a, true);
	expect_stats(test, a, 4, 0, 0);
}

/* A failed commit keeps its frees unusable; they join the next commit. */
static void tier_alloc_failed_commit_test(struct kunit *test)
{
	struct tier_alloc *a = test_alloc(test, 4);
	struct tier_pext p;

	take(test, a, false, 4);
	KUNIT_EXPECT_EQ(test, tier_alloc_free_deferred(a, tier_pext(2)), 0);
	tier_alloc_commit_begin(a);
	tier_alloc_commit_end(a, false);
	KUNIT_EXPECT_EQ(test, a->nr_committing, 1);
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, true, &p), -ENOSPC);
	KUNIT_EXPECT_EQ(test, tier_alloc_free_deferred(a, tier_pext(2)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, tier_alloc_unget(a, tier_pext(2)), -EINVAL);
	expect_stats(test, a, 3, 1, 0);

	KUNIT_EXPECT_EQ(test, tier_alloc_free_deferred(a, tier_pext(3)), 0);
	tier_alloc_commit_begin(a); /* merges */
	KUNIT_EXPECT_EQ(test, a->nr_committing, 2);
	KUNIT_EXPECT_EQ(test, a->nr_pending, 0);
	tier_alloc_commit_end(a, false);
	tier_alloc_commit_begin(a); /* nothing new pending */
	KUNIT_EXPECT_EQ(test, a->nr_committing, 2);
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, true, &p), -ENOSPC);
	expect_stats(test, a, 2, 2, 0);
	tier_alloc_commit_end(a, true);
	expect_stats(test, a, 2, 0, 2);
	KUNIT_EXPECT_EQ(test, a->nr_committing, 0);
	KUNIT_ASSERT_EQ(test, tier_alloc_get(a, true, &p), 0);
	KUNIT_ASSERT_EQ(test, tier_alloc_get(a, true, &p), 0);
	KUNIT_EXPECT_EQ(test, tier_alloc_get(a, true, &p), -ENOSPC);

	/* A failed commit with later frees pending: both kinds kept apart. */
	KUNIT_EXPECT_EQ(test, tier_alloc_free_deferred(a, tier_pext(0)), 0);
	tier_alloc_commit_begin(a);
	KUNIT_EXPECT_EQ(test, tier_alloc_free_deferred(a, tier_pext(1)), 0);
	tier_alloc_commit_end(a, false);
	KUNIT_EXPECT_EQ(test, a->nr_committing, 1);
	KUNIT_EXPECT_EQ(test, a->nr_pending, 1);
	tier_alloc_commit_begin(a);
	KUNIT_EXPECT_EQ(test, a->nr_committing, 2);
	tier_alloc_commit_end(a, true);
	expect_stats(test, a, 2, 0, 2);
}

/* ---- several tiers ------------------------------------------------------ */

static void tier_alloc_spill_test(struct kunit *test)
{
	static const u64 sizes[] = { 10, 10, 100 };
	struct tier_alloc *t = test_tiers(test, 3, sizes);
	struct tier_loc loc;
	bool rsv = true;
	int i;

	for (i = 0; i < 3; i++)
		tier_alloc_set_reserve_pct(&t[i], 20);
	KUNIT_EXPECT_EQ(test, tier_pick_alloc_tier(t, 3, &rsv), 0);
	KUNIT_EXPECT_FALSE(test, rsv);

	/* Fill tier 0 down to its reserve, then spill to tier 1, 2. */
	for (i = 0; i < 8; i++) {
		loc.flags = 99;
		KUNIT_ASSERT_EQ(test, tier_alloc_extent(t, 3, &loc), 0);
		KUNIT_EXPECT_EQ(test, loc.tier, 0);
		KUNIT_EXPECT_EQ(test, loc.pext.p, i);
		KUNIT_EXPECT_EQ(test, loc.flags, 0);
	}
	for (i = 0; i < 8; i++) {
		KUNIT_ASSERT_EQ(test, tier_alloc_extent(t, 3, &loc), 0);
		KUNIT_EXPECT_EQ(test, loc.tier, 1);
		KUNIT_EXPECT_EQ(test, loc.pext.p, i);
	}
	for (i = 0; i < 80; i++) {
		KUNIT_ASSERT_EQ(test, tier_alloc_extent(t, 3, &loc), 0);
		KUNIT_EXPECT_EQ(test, loc.tier, 2);
	}
	/* All tiers at their reserve: the reserve, fastest tier first. */
	KUNIT_EXPECT_EQ(test, tier_pick_alloc_tier(t, 3, &rsv), 0);
	KUNIT_EXPECT_TRUE(test, rsv);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, tier_alloc_extent(t, 3, &loc), 0);
		KUNIT_EXPECT_EQ(test, loc.tier, 0);
	}
	KUNIT_ASSERT_EQ(test, tier_alloc_extent(t, 3, &loc), 0);
	KUNIT_EXPECT_EQ(test, loc.tier, 1);

	/* An offline tier is skipped in both passes. */
	t[1].flags |= TIER_ALLOC_F_NOALLOC;
	KUNIT_EXPECT_EQ(test, tier_pick_alloc_tier(t, 3, &rsv), 2);
	KUNIT_EXPECT_TRUE(test, rsv);
	for (i = 0; i < 20; i++) {
		KUNIT_ASSERT_EQ(test, tier_alloc_extent(t, 3, &loc), 0);
		KUNIT_EXPECT_EQ(test, loc.tier, 2);
	}
	KUNIT_EXPECT_EQ(test, tier_alloc_extent(t, 3, &loc), -ENOSPC);
	KUNIT_EXPECT_EQ(test, tier_pick_alloc_tier(t, 3, &rsv), -ENOSPC);
	t[1].flags = 0;
	KUNIT_EXPECT_EQ(test, tier_pick_alloc_tier(t, 3, &rsv), 1);
	KUNIT_EXPECT_TRUE(test, rsv);
	KUNIT_EXPECT_EQ(test, tier_pick_alloc_tier(t, 0, &rsv), -ENOSPC);

	/* Pending frees are not free space. */
	KUNIT_ASSERT_EQ(test, tier_alloc_extent(t, 3, &loc), 0);
	KUNIT_EXPECT_EQ(test, loc.tier, 1);
	KUNIT_EXPECT_EQ(test, tier_alloc_free_deferred(&t[0], tier_pext(3)), 0);
	KUNIT_EXPECT_EQ(test, tier_alloc_extent(t, 3, &loc), -ENOSPC);
	tier_alloc_commit_begin(&t[0]);
	KUNIT_EXPECT_EQ(test, tier_alloc_extent(t, 3, &loc), -ENOSPC);
	tier_alloc_commit_end(&t[0], true);
	KUNIT_ASSERT_EQ(test, tier_alloc_extent(t, 3, &loc), 0);
	KUNIT_EXPECT_EQ(test, loc.tier, 0);
	KUNIT_EXPECT_EQ(test, loc.pext.p, 3);
}

/* ENOSPC when every tier is full, with or without reserves, 8 tiers. */
static void tier_alloc_all_full_test(struct kunit *test)
{
	static const u64 sizes[TIER_MAX_TIERS] = { 1, 2, 3, 64, 65, 1, 1, 7 };
	struct tier_alloc *t = test_tiers(test, TIER_MAX_TIERS, sizes);
	struct tier_loc loc = { 77, 77, { 77 } };
	u64 total = 0, n = 0, per_tier[TIER_MAX_TIERS] = {};
	bool rsv;
	int i;

	for (i = 0; i < TIER_MAX_TIERS; i++) {
		tier_alloc_set_reserve_pct(&t[i], i * 10);
		total += sizes[i];
	}
	while (tier_alloc_extent(t, TIER_MAX_TIERS, &loc) == 0) {
		KUNIT_ASSERT_LT(test, loc.tier, TIER_MAX_TIERS);
		KUNIT_ASSERT_LT(test, loc.pext.p, sizes[loc.tier]);
		per_tier[loc.tier]++;
		if (++n > total)
			break;
	}
	KUNIT_EXPECT_EQ(test, n, total);
	for (i = 0; i < TIER_MAX_TIERS; i++) {
		KUNIT_EXPECT_EQ(test, per_tier[i], sizes[i]);
		KUNIT_EXPECT_EQ(test, tier_alloc_free_count(&t[i]), 0);
	}
	KUNIT_EXPECT_EQ(test, tier_alloc_extent(t, TIER_MAX_TIERS, &loc),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, tier_pick_alloc_tier(t, TIER_MAX_TIERS, &rsv),
			-ENOSPC);
	/* The output is written only on success. */
	loc = (struct tier_loc){ 77, 77, { 77 } };
	KUNIT_EXPECT_EQ(test, tier_alloc_extent(t, TIER_MAX_TIERS, &loc),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, loc.tier, 77);
	KUNIT_EXPECT_EQ(test, loc.pext.p, 77);
}

static void tier_alloc_load_map_test(struct kunit *test)
{
	static const u64 sizes[] = { 10, 20 };
	static const u64 short1[] = { 10, 19 };
	struct tier_map *m = test_map(test, 50);
	struct tier_err err = { 0 };
	struct tier_alloc *t;
	struct tier_loc l;

	l = (struct tier_loc){ 0, 0, { 9 } };
	tier_map_set(m, tier_vext(3), &l);
	l = (struct tier_loc){ 1, TIER_EXT_F_PINNED, { 9 } };
	tier_map_set(m, tier_vext(4), &l);
	l = (struct tier_loc){ 1, 0, { 19 } };
	tier_map_set(m, tier_vext(49), &l);
	t = test_tiers(test, 2, sizes);
	KUNIT_EXPECT_EQ(test, tier_alloc_load_map(t, 2, m, &err), 0);
	KUNIT_EXPECT_EQ(test, t[0].nr_used, 1);
	KUNIT_EXPECT_EQ(test, t[1].nr_used, 2);
	KUNIT_EXPECT_TRUE(test, test_bit(9, t[1].used));
	KUNIT_EXPECT_TRUE(test, test_bit(19, t[1].used));
	/* Loaded extents are not handed out again. */
	t[0].cursor = 9;
	KUNIT_ASSERT_EQ(test, tier_alloc_get(&t[0], false, &l.pext), 0);
	KUNIT_EXPECT_EQ(test, l.pext.p, 0);

	/* Two virtual extents on one physical extent. */
	l = (struct tier_loc){ 1, 0, { 9 } };
	tier_map_set(m, tier_vext(20), &l);
	t = test_tiers(test, 2, sizes);
	KUNIT_EXPECT_EQ(test, tier_alloc_load_map(t, 2, m, &err), -EUCLEAN);
	KUNIT_EXPECT_EQ(test, err.code, TIER_E_MAP_DOUBLE_USE);
	KUNIT_EXPECT_EQ(test, err.item, 20);
	KUNIT_EXPECT_EQ(test, err.value, 9);

	/* An extent or a tier out of range. */
	tier_map_clear(m, tier_vext(20), NULL);
	t = test_tiers(test, 2, short1);
	KUNIT_EXPECT_EQ(test, tier_alloc_load_map(t, 2, m, &err), -EUCLEAN);
	KUNIT_EXPECT_EQ(test, err.code, TIER_E_MAP_ENTRY_PEXT);
	KUNIT_EXPECT_EQ(test, err.item, 49);
	KUNIT_EXPECT_EQ(test, err.value, 19);
	t = test_tiers(test, 1, sizes);
	KUNIT_EXPECT_EQ(test, tier_alloc_load_map(t, 1, m, &err), -EUCLEAN);
	KUNIT_EXPECT_EQ(test, err.code, TIER_E_MAP_ENTRY_TIER);
	KUNIT_EXPECT_EQ(test, err.item, 4);
	KUNIT_EXPECT_EQ(test, err.value, 1);
}

/* ---- random operations checked against a trivial model ------------------ */

enum { M_FREE, M_USED, M_PENDING, M_COMMITTING };

static void tier_alloc_model_test(struct kunit *test)
{
	const u64 n = 1000;
	struct tier_alloc *a = test_alloc(test, n);
	u8 *model = kunit_kzalloc(test, n, GFP_KERNEL);
	struct tier_alloc_stats st;
	u64 i, cnt[4];
	bool in_commit = false;
	struct tier_pext p;
	u32 seed = 7, r;
	int step, ret;

	KUNIT_ASSERT_NOT_NULL(test, model);
	tier_alloc_set_reserve_pct(a, 5);
	for (step = 0; step < 100000; step++) {
		seed = seed * 1103515245 + 12345;
		r = seed >> 8;
		switch (r % 10) {
		case 0 ... 3:
			ret = tier_alloc_get(a, r & 0x100, &p);
			if (ret == 0) {
				KUNIT_ASSERT_EQ(test, model[p.p], M_FREE);
				model[p.p] = M_USED;
			}
			break;
		case 4 ... 6:
			i = (r >> 4) % n;
			ret = tier_alloc_free_deferred(a, tier_pext(i));
			KUNIT_ASSERT_EQ(test, ret,
					model[i] == M_USED ? 0 : -EINVAL);
			if (!ret)
				model[i] = M_PENDING;
			break;
		case 7:
			if (in_commit)
				break;
			tier_alloc_commit_begin(a);
			for (i = 0; i < n; i++) {
				if (model[i] == M_PENDING)
					model[i] = M_COMMITTING;
			}
			in_commit = true;
			break;
		case 8:
			if (!in_commit)
				break;
			tier_alloc_commit_end(a, r & 0x300); /* 1/4 fail */
			for (i = 0; i < n; i++) {
				if (model[i] == M_COMMITTING && (r & 0x300))
					model[i] = M_FREE;
			}
			in_commit = false;
			break;
		case 9:
			i = (r >> 4) % n;
			ret = tier_alloc_unget(a, tier_pext(i));
			KUNIT_ASSERT_EQ(test, ret,
					model[i] == M_USED ? 0 : -EINVAL);
			if (!ret)
				model[i] = M_FREE;
			break;
		}
		if (step % 1000)
			continue;
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[model[i]]++;
		tier_alloc_stats(a, &st);
		KUNIT_ASSERT_EQ(test, st.free, cnt[M_FREE]);
		KUNIT_ASSERT_EQ(test, st.used, cnt[M_USED]);
		KUNIT_ASSERT_EQ(test, st.pending,
				cnt[M_PENDING] + cnt[M_COMMITTING]);
		KUNIT_ASSERT_EQ(test, st.reserve, 50);
		for (i = 0; i < n; i++)
			KUNIT_ASSERT_EQ(test, test_bit(i, a->used),
					model[i] != M_FREE);
	}
}

static struct kunit_case dm_tier_alloc_cases[] = {
	KUNIT_CASE(tier_alloc_init_test),
	KUNIT_CASE(tier_alloc_next_fit_test),
	KUNIT_CASE_PARAM(tier_alloc_reserve_pct_test, reserve_gen_params),
	KUNIT_CASE(tier_alloc_reserve_test),
	KUNIT_CASE(tier_alloc_noalloc_test),
	KUNIT_CASE(tier_alloc_mark_used_test),
	KUNIT_CASE(tier_alloc_deferred_free_test),
	KUNIT_CASE(tier_alloc_failed_commit_test),
	KUNIT_CASE(tier_alloc_spill_test),
	KUNIT_CASE(tier_alloc_all_full_test),
	KUNIT_CASE(tier_alloc_load_map_test),
	KUNIT_CASE(tier_alloc_model_test),
	{}
};

static struct kunit_suite dm_tier_alloc_suite = {
	.name = "dm_tier_alloc",
	.test_cases = dm_tier_alloc_cases,
};

kunit_test_suite(dm_tier_alloc_suite);
