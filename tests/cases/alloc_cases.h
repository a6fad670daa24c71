/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cases for kernel/core/alloc.c: per-tier extent allocator, deferred frees
 * across commits, cross-tier placement, loading from the map. Run by
 * tests/unit/test_alloc.c (cmocka) and tests/kunit/alloc_kunit.c (KUnit);
 * see case.h.
 */
#include "case.h"
#include "format.h"
#include "extent_map.h"
#include "alloc.h"

/* ---- helpers ------------------------------------------------------------ */

/* Take @n extents from one tier; each must succeed. */
static void take(CASE_CTX, struct tier_alloc *a, bool use_reserve, int n)
{
	struct tier_pext p;

	while (n--)
		CASE_ASSERT_EQ(tier_alloc_get(a, use_reserve, &p), 0);
}

static void expect_stats(CASE_CTX, const struct tier_alloc *a, u64 used,
			 u64 pending, u64 free)
{
	struct tier_alloc_stats st;

	tier_alloc_stats(a, &st);
	CASE_EQ(st.total, a->nr_extents);
	CASE_EQ(st.used, used);
	CASE_EQ(st.pending, pending);
	CASE_EQ(st.free, free);
	CASE_EQ(st.reserve, a->reserve);
	CASE_EQ(st.used + st.pending + st.free, st.total);
}

/* ---- one tier ----------------------------------------------------------- */

static void tier_alloc_init_test(CASE_CTX)
{
	struct tier_alloc a;
	int i;

	memset(&a, 0x5a, sizeof(a));
	CASE_EQ(tier_alloc_init(&a, 0), -EINVAL);
	CASE_NULL(a.used);
	CASE_EQ(a.nr_extents, 0);
	CASE_EQ(tier_alloc_init(&a, TIER_MAX_PEXTS + 1), -EINVAL);
	CASE_NULL(a.pending);
	/* Each of the three bitmaps failing leaves nothing behind. */
	for (i = 1; CASE_FAULT_INJECTION && i <= 3; i++) {
		case_fail_alloc(i);
		CASE_EQ(tier_alloc_init(&a, 100), -ENOMEM);
		CASE_NULL(a.used);
		CASE_NULL(a.pending);
		CASE_NULL(a.committing);
		CASE_EQ(a.nr_extents, 0);
	}
	case_fail_alloc(0);

	CASE_ASSERT_EQ(tier_alloc_init(&a, 100), 0);
	CASE_EQ(tier_alloc_free_count(&a), 100);
	CASE_EQ(a.reserve, 0);
	expect_stats(test, &a, 0, 0, 100);
	tier_alloc_destroy(&a);
	tier_alloc_destroy(&a);
	CASE_NULL(a.used);
}

static void tier_alloc_next_fit_test(CASE_CTX)
{
	struct tier_alloc a;
	struct tier_pext p;
	u64 i;

	/* 130 extents: the bitmap spans three words. */
	CASE_ASSERT_EQ(tier_alloc_init(&a, 130), 0);
	for (i = 0; i < 130; i++) {
		CASE_ASSERT_EQ(tier_alloc_get(&a, false, &p), 0);
		CASE_EQ(p.p, i);
	}
	p.p = 999;
	CASE_EQ(tier_alloc_get(&a, true, &p), -ENOSPC);
	CASE_EQ(p.p, 999); /* untouched */
	CASE_EQ(a.cursor, 0);

	/* Next fit: holes behind the cursor are found after wrapping. */
	CASE_EQ(tier_alloc_unget(&a, tier_pext(5)), 0);
	CASE_EQ(tier_alloc_unget(&a, tier_pext(70)), 0);
	CASE_EQ(tier_alloc_unget(&a, tier_pext(129)), 0);
	a.cursor = 60;
	CASE_ASSERT_EQ(tier_alloc_get(&a, false, &p), 0);
	CASE_EQ(p.p, 70);
	CASE_ASSERT_EQ(tier_alloc_get(&a, false, &p), 0);
	CASE_EQ(p.p, 129);
	CASE_EQ(a.cursor, 0);
	CASE_ASSERT_EQ(tier_alloc_get(&a, false, &p), 0);
	CASE_EQ(p.p, 5);
	CASE_EQ(a.cursor, 6);
	CASE_EQ(tier_alloc_get(&a, false, &p), -ENOSPC);

	/* unget: out of range, or not in use. */
	CASE_EQ(tier_alloc_unget(&a, tier_pext(130)), -EINVAL);
	CASE_EQ(tier_alloc_unget(&a, tier_pext(5)), 0);
	CASE_EQ(tier_alloc_unget(&a, tier_pext(5)), -EINVAL);
	CASE_EQ(a.nr_used, 129);
	tier_alloc_destroy(&a);
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
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(reserve, reserve_cases, reserve_desc);

static void tier_alloc_reserve_pct_test(CASE_CTX)
{
	const struct reserve_case *c = CASE_PARAM;
	struct tier_alloc a;

	/* Only the size matters: no bitmaps needed, no overflow. */
	memset(&a, 0, sizeof(a));
	a.nr_extents = c->nr_extents;
	tier_alloc_set_reserve_pct(&a, c->pct);
	CASE_EQ(a.reserve, c->reserve);
}

/* The reserve is honoured, then broken into only when asked to. */
static void tier_alloc_reserve_test(CASE_CTX)
{
	struct tier_alloc a;
	struct tier_pext p;

	CASE_ASSERT_EQ(tier_alloc_init(&a, 199), 0);
	tier_alloc_set_reserve_pct(&a, 50);
	CASE_ASSERT_EQ(a.reserve, 99);
	take(test, &a, false, 100);
	/* 99 free == reserve: only the reserve-using pass may take them. */
	CASE_EQ(tier_alloc_get(&a, false, &p), -ENOSPC);
	expect_stats(test, &a, 100, 0, 99);
	take(test, &a, true, 99);
	CASE_EQ(tier_alloc_get(&a, true, &p), -ENOSPC);
	CASE_EQ(tier_alloc_get(&a, false, &p), -ENOSPC);
	expect_stats(test, &a, 199, 0, 0);
	/* A freed extent goes back to the reserve first. */
	CASE_EQ(tier_alloc_unget(&a, tier_pext(7)), 0);
	CASE_EQ(tier_alloc_get(&a, false, &p), -ENOSPC);
	CASE_EQ(tier_alloc_get(&a, true, &p), 0);
	CASE_EQ(p.p, 7);
	tier_alloc_destroy(&a);
}

/* An offline tier (TIER_ALLOC_F_NOALLOC) gives out nothing. */
static void tier_alloc_noalloc_test(CASE_CTX)
{
	struct tier_alloc a;
	struct tier_pext p;

	CASE_ASSERT_EQ(tier_alloc_init(&a, 10), 0);
	a.flags |= TIER_ALLOC_F_NOALLOC;
	CASE_EQ(tier_alloc_get(&a, false, &p), -ENOSPC);
	CASE_EQ(tier_alloc_get(&a, true, &p), -ENOSPC);
	/* Loading the map and freeing still work. */
	CASE_EQ(tier_alloc_mark_used(&a, tier_pext(4)), 0);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(4)), 0);
	a.flags = 0;
	CASE_EQ(tier_alloc_get(&a, false, &p), 0);
	CASE_EQ(p.p, 0);
	tier_alloc_destroy(&a);
}

static void tier_alloc_mark_used_test(CASE_CTX)
{
	struct tier_alloc a;
	struct tier_pext p;

	CASE_ASSERT_EQ(tier_alloc_init(&a, 10), 0);
	CASE_EQ(tier_alloc_mark_used(&a, tier_pext(3)), 0);
	/* Two virtual extents on one physical extent: corruption. */
	CASE_EQ(tier_alloc_mark_used(&a, tier_pext(3)), -EUCLEAN);
	CASE_EQ(tier_alloc_mark_used(&a, tier_pext(10)), -EINVAL);
	CASE_EQ(tier_alloc_mark_used(&a, tier_pext(U64_MAX)), -EINVAL);
	CASE_EQ(tier_alloc_mark_used(&a, tier_pext(9)), 0);
	CASE_EQ(a.nr_used, 2);
	/* An allocated extent is used as well. */
	CASE_ASSERT_EQ(tier_alloc_get(&a, false, &p), 0);
	CASE_EQ(p.p, 0);
	CASE_EQ(tier_alloc_mark_used(&a, tier_pext(0)), -EUCLEAN);
	a.cursor = 3;
	CASE_ASSERT_EQ(tier_alloc_get(&a, false, &p), 0);
	CASE_EQ(p.p, 4);
	CASE_EQ(a.nr_used, 4);
	tier_alloc_destroy(&a);
}

#if CASE_WARN_OK
/*
 * The counters say free space, the bitmap is full (a simulated bug): the
 * core warns once and fails the allocation.
 */
static void tier_alloc_counter_out_of_sync_test(CASE_CTX)
{
	struct tier_alloc a;
	struct tier_pext p;
	struct tier_loc loc;

	CASE_ASSERT_EQ(tier_alloc_init(&a, 3), 0);
	CASE_EQ(tier_alloc_mark_used(&a, tier_pext(0)), 0);
	CASE_EQ(tier_alloc_mark_used(&a, tier_pext(1)), 0);
	CASE_EQ(tier_alloc_mark_used(&a, tier_pext(2)), 0);
	a.nr_used = 1;
	CASE_EQ(tier_alloc_get(&a, true, &p), -ENOSPC);
	a.cursor = 2;
	CASE_EQ(tier_alloc_get(&a, true, &p), -ENOSPC);
	CASE_EQ(tier_alloc_extent(&a, 1, &loc), -ENOSPC);
	tier_alloc_destroy(&a);
}
#endif

/* ---- deferred frees and commits ----------------------------------------- */

static void tier_alloc_deferred_free_test(CASE_CTX)
{
	struct tier_alloc a;
	struct tier_pext p;

	CASE_ASSERT_EQ(tier_alloc_init(&a, 4), 0);
	take(test, &a, false, 4);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(1)), 0);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(1)), -EINVAL);
	CASE_EQ(tier_alloc_unget(&a, tier_pext(1)), -EINVAL);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(4)), -EINVAL);
	expect_stats(test, &a, 3, 1, 0);
	/* Not reusable before the commit recording the unmap is on disk. */
	CASE_EQ(tier_alloc_get(&a, true, &p), -ENOSPC);

	tier_alloc_commit_begin(&a);
	CASE_EQ(a.nr_committing, 1);
	CASE_EQ(a.nr_pending, 0);
	CASE_EQ(tier_alloc_get(&a, true, &p), -ENOSPC);
	/* Freed while the commit is in flight: belongs to the next one. */
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(2)), 0);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(2)), -EINVAL);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(1)), -EINVAL);
	expect_stats(test, &a, 2, 2, 0);
	tier_alloc_commit_end(&a, true);
	expect_stats(test, &a, 2, 1, 1);
	CASE_ASSERT_EQ(tier_alloc_get(&a, true, &p), 0);
	CASE_EQ(p.p, 1);
	CASE_EQ(tier_alloc_get(&a, true, &p), -ENOSPC);
	expect_stats(test, &a, 3, 1, 0);

	/* The next commit frees the one freed during the previous one. */
	tier_alloc_commit_begin(&a);
	tier_alloc_commit_end(&a, true);
	CASE_ASSERT_EQ(tier_alloc_get(&a, true, &p), 0);
	CASE_EQ(p.p, 2);

	/* Empty commits are no-ops. */
	tier_alloc_commit_begin(&a);
	tier_alloc_commit_end(&a, true);
	expect_stats(test, &a, 4, 0, 0);
	tier_alloc_destroy(&a);
}

/* Free every third of the extents [first, first + 3 * n). */
static void free_some(CASE_CTX, struct tier_alloc *a, u64 first, u64 n)
{
	u64 i;

	for (i = 0; i < n; i++)
		CASE_EQ(tier_alloc_free_deferred(a, tier_pext(first + 3 * i)),
			0);
}

/* Every bit of @a's bitmaps agrees with its counters, none is stray. */
static void expect_bitmaps(CASE_CTX, const struct tier_alloc *a)
{
	u64 i, used = 0, pending = 0, committing = 0;

	for (i = 0; i < a->nr_extents; i++) {
		used += test_bit(i, a->used);
		pending += test_bit(i, a->pending);
		committing += test_bit(i, a->committing);
	}
	CASE_EQ(used, a->nr_used);
	CASE_EQ(pending, a->nr_pending);
	CASE_EQ(committing, a->nr_committing);
}

/*
 * A commit of up to TIER_ALLOC_LOG frees releases them from its log, more
 * from the bitmap walk; both, and the merge after a failed commit on either
 * side of the limit, leave the same allocator.
 */
static void tier_alloc_free_log_test(CASE_CTX)
{
	struct tier_alloc a, big;
	u64 i;

	CASE_ASSERT_EQ(tier_alloc_init(&a, 1000), 0);
	take(test, &a, false, 1000);

	free_some(test, &a, 0, TIER_ALLOC_LOG);
	tier_alloc_commit_begin(&a);
	CASE_EQ(a.nr_committing, TIER_ALLOC_LOG);
	for (i = 0; i < TIER_ALLOC_LOG; i++)
		CASE_EQ(a.committing_log[i], 3 * i);
	tier_alloc_commit_end(&a, true);
	expect_stats(test, &a, 1000 - TIER_ALLOC_LOG, 0, TIER_ALLOC_LOG);
	expect_bitmaps(test, &a);
	take(test, &a, false, TIER_ALLOC_LOG);

	/* One more than the log holds: the walk. */
	free_some(test, &a, 1, TIER_ALLOC_LOG + 1);
	tier_alloc_commit_begin(&a);
	tier_alloc_commit_end(&a, true);
	expect_stats(test, &a, 999 - TIER_ALLOC_LOG, 0, TIER_ALLOC_LOG + 1);
	expect_bitmaps(test, &a);
	take(test, &a, false, TIER_ALLOC_LOG + 1);

	/* A failed commit of 20 merged with 10 more: still the log. */
	free_some(test, &a, 2, 20);
	tier_alloc_commit_begin(&a);
	tier_alloc_commit_end(&a, false);
	free_some(test, &a, 62, 10);
	tier_alloc_commit_begin(&a);
	CASE_EQ(a.nr_committing, 30);
	CASE_EQ(a.committing_log[19], 2 + 3 * 19);
	CASE_EQ(a.committing_log[20], 62);
	CASE_EQ(a.committing_log[29], 62 + 3 * 9);
	tier_alloc_commit_end(&a, true);
	expect_stats(test, &a, 970, 0, 30);
	expect_bitmaps(test, &a);
	take(test, &a, false, 30);

	/* 40 failed, 30 more: beyond the log once merged. */
	free_some(test, &a, 0, 40);
	tier_alloc_commit_begin(&a);
	tier_alloc_commit_end(&a, false);
	free_some(test, &a, 200, 30);
	tier_alloc_commit_begin(&a);
	tier_alloc_commit_end(&a, true);
	expect_stats(test, &a, 930, 0, 70);
	expect_bitmaps(test, &a);
	take(test, &a, false, 70);

	/* A grown tier keeps the logs of its frees. */
	free_some(test, &a, 1, 5);
	tier_alloc_commit_begin(&a);
	free_some(test, &a, 2, 3);
	CASE_ASSERT_EQ(tier_alloc_init(&big, 2000), 0);
	CASE_EQ(tier_alloc_grow(&big, &a), 0);
	tier_alloc_commit_end(&big, true);
	tier_alloc_commit_begin(&big);
	tier_alloc_commit_end(&big, true);
	expect_stats(test, &big, 992, 0, 1008);
	expect_bitmaps(test, &big);
	tier_alloc_destroy(&big);
	tier_alloc_destroy(&a);
}

/* A failed commit keeps its frees unusable; they join the next commit. */
static void tier_alloc_failed_commit_test(CASE_CTX)
{
	struct tier_alloc a;
	struct tier_pext p;

	CASE_ASSERT_EQ(tier_alloc_init(&a, 4), 0);
	take(test, &a, false, 4);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(2)), 0);
	tier_alloc_commit_begin(&a);
	tier_alloc_commit_end(&a, false);
	CASE_EQ(a.nr_committing, 1);
	CASE_EQ(tier_alloc_get(&a, true, &p), -ENOSPC);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(2)), -EINVAL);
	CASE_EQ(tier_alloc_unget(&a, tier_pext(2)), -EINVAL);
	expect_stats(test, &a, 3, 1, 0);

	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(3)), 0);
	tier_alloc_commit_begin(&a); /* merges */
	CASE_EQ(a.nr_committing, 2);
	CASE_EQ(a.nr_pending, 0);
	tier_alloc_commit_end(&a, false);
	tier_alloc_commit_begin(&a); /* nothing new pending */
	CASE_EQ(a.nr_committing, 2);
	CASE_EQ(tier_alloc_get(&a, true, &p), -ENOSPC);
	expect_stats(test, &a, 2, 2, 0);
	tier_alloc_commit_end(&a, true);
	expect_stats(test, &a, 2, 0, 2);
	CASE_EQ(a.nr_committing, 0);
	CASE_ASSERT_EQ(tier_alloc_get(&a, true, &p), 0);
	CASE_ASSERT_EQ(tier_alloc_get(&a, true, &p), 0);
	CASE_EQ(tier_alloc_get(&a, true, &p), -ENOSPC);

	/* A failed commit with later frees pending: both kinds kept apart. */
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(0)), 0);
	tier_alloc_commit_begin(&a);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(1)), 0);
	tier_alloc_commit_end(&a, false);
	CASE_EQ(a.nr_committing, 1);
	CASE_EQ(a.nr_pending, 1);
	tier_alloc_commit_begin(&a);
	CASE_EQ(a.nr_committing, 2);
	tier_alloc_commit_end(&a, true);
	expect_stats(test, &a, 2, 0, 2);
	tier_alloc_destroy(&a);
}

/*
 * A failed commit whose frees came in during the commit before: they stay
 * unusable, and the next successful commit frees them with later frees.
 */
static void tier_alloc_failed_commit_carry_test(CASE_CTX)
{
	struct tier_alloc a;
	struct tier_pext p;

	CASE_ASSERT_EQ(tier_alloc_init(&a, 4), 0);
	take(test, &a, false, 4);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(1)), 0);
	tier_alloc_commit_begin(&a);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(2)), 0);
	tier_alloc_commit_end(&a, true);
	CASE_ASSERT_EQ(tier_alloc_get(&a, true, &p), 0);
	CASE_EQ(p.p, 1);
	expect_stats(test, &a, 3, 1, 0);

	tier_alloc_commit_begin(&a);
	tier_alloc_commit_end(&a, false);
	CASE_EQ(a.nr_committing, 1);
	CASE_EQ(tier_alloc_get(&a, true, &p), -ENOSPC);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(2)), -EINVAL);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(3)), 0);
	tier_alloc_commit_begin(&a); /* merges */
	CASE_EQ(a.nr_committing, 2);
	CASE_EQ(a.nr_pending, 0);
	tier_alloc_commit_end(&a, false);
	tier_alloc_commit_begin(&a); /* nothing new pending */
	CASE_EQ(a.nr_committing, 2);
	tier_alloc_commit_end(&a, true);
	CASE_EQ(a.nr_used, 2);
	CASE_EQ(tier_alloc_get(&a, true, &p), 0);
	CASE_EQ(tier_alloc_get(&a, true, &p), 0);
	CASE_EQ(tier_alloc_get(&a, true, &p), -ENOSPC);

	/* Empty commits are no-ops. */
	tier_alloc_commit_begin(&a);
	tier_alloc_commit_end(&a, true);
	CASE_EQ(a.nr_used, 4);
	tier_alloc_destroy(&a);
}

#if CASE_FAULT_INJECTION
/* Freeing never allocates: no allocation failure can break it. */
static void tier_alloc_free_never_allocates_test(CASE_CTX)
{
	struct tier_alloc a;
	struct tier_pext p;

	CASE_ASSERT_EQ(tier_alloc_init(&a, 8), 0);
	CASE_EQ(tier_alloc_get(&a, false, &p), 0);
	case_fail_alloc(1);
	CASE_EQ(tier_alloc_free_deferred(&a, p), 0);
	tier_alloc_commit_begin(&a);
	tier_alloc_commit_end(&a, true);
	CASE_EQ(case_fail_alloc_left(), 1); /* never consumed */
	case_fail_alloc(0);
	tier_alloc_destroy(&a);
}
#endif

/* ---- several tiers ------------------------------------------------------ */

static void destroy_tiers(struct tier_alloc *t, int nr)
{
	while (nr--)
		tier_alloc_destroy(&t[nr]);
}

static void tier_alloc_spill_test(CASE_CTX)
{
	struct tier_alloc t[3];
	struct tier_loc loc;
	bool rsv = true;
	int i;

	CASE_ASSERT_EQ(tier_alloc_init(&t[0], 10), 0);
	CASE_ASSERT_EQ(tier_alloc_init(&t[1], 10), 0);
	CASE_ASSERT_EQ(tier_alloc_init(&t[2], 100), 0);
	for (i = 0; i < 3; i++)
		tier_alloc_set_reserve_pct(&t[i], 20);
	CASE_EQ(tier_pick_alloc_tier(t, 3, &rsv), 0);
	CASE_FALSE(rsv);

	/* Fill tier 0 down to its reserve, then spill to tier 1, 2. */
	for (i = 0; i < 8; i++) {
		loc.flags = 99;
		CASE_ASSERT_EQ(tier_alloc_extent(t, 3, &loc), 0);
		CASE_EQ(loc.tier, 0);
		CASE_EQ(loc.pext.p, i);
		CASE_EQ(loc.flags, 0);
	}
	for (i = 0; i < 8; i++) {
		CASE_ASSERT_EQ(tier_alloc_extent(t, 3, &loc), 0);
		CASE_EQ(loc.tier, 1);
		CASE_EQ(loc.pext.p, i);
	}
	for (i = 0; i < 80; i++) {
		CASE_ASSERT_EQ(tier_alloc_extent(t, 3, &loc), 0);
		CASE_EQ(loc.tier, 2);
	}
	/* All tiers at their reserve: the reserve, fastest tier first. */
	CASE_EQ(tier_pick_alloc_tier(t, 3, &rsv), 0);
	CASE_TRUE(rsv);
	for (i = 0; i < 2; i++) {
		CASE_ASSERT_EQ(tier_alloc_extent(t, 3, &loc), 0);
		CASE_EQ(loc.tier, 0);
	}
	CASE_ASSERT_EQ(tier_alloc_extent(t, 3, &loc), 0);
	CASE_EQ(loc.tier, 1);

	/* An offline tier is skipped in both passes. */
	t[1].flags |= TIER_ALLOC_F_NOALLOC;
	CASE_EQ(tier_pick_alloc_tier(t, 3, &rsv), 2);
	CASE_TRUE(rsv);
	CASE_EQ(tier_alloc_get(&t[1], true, &loc.pext), -ENOSPC);
	for (i = 0; i < 20; i++) {
		CASE_ASSERT_EQ(tier_alloc_extent(t, 3, &loc), 0);
		CASE_EQ(loc.tier, 2);
	}
	CASE_EQ(tier_alloc_extent(t, 3, &loc), -ENOSPC);
	CASE_EQ(tier_pick_alloc_tier(t, 3, &rsv), -ENOSPC);
	t[1].flags = 0;
	CASE_EQ(tier_pick_alloc_tier(t, 3, &rsv), 1);
	CASE_TRUE(rsv);
	CASE_EQ(tier_pick_alloc_tier(t, 0, &rsv), -ENOSPC);

	/* Pending frees are not free space. */
	CASE_ASSERT_EQ(tier_alloc_extent(t, 3, &loc), 0);
	CASE_EQ(loc.tier, 1);
	CASE_EQ(tier_alloc_free_deferred(&t[0], tier_pext(3)), 0);
	CASE_EQ(tier_alloc_extent(t, 3, &loc), -ENOSPC);
	tier_alloc_commit_begin(&t[0]);
	CASE_EQ(tier_alloc_extent(t, 3, &loc), -ENOSPC);
	tier_alloc_commit_end(&t[0], true);
	CASE_ASSERT_EQ(tier_alloc_extent(t, 3, &loc), 0);
	CASE_EQ(loc.tier, 0);
	CASE_EQ(loc.pext.p, 3);
	destroy_tiers(t, 3);
}

/* ENOSPC when every tier is full, with or without reserves, 8 tiers. */
static void tier_alloc_all_full_test(CASE_CTX)
{
	static const u64 sizes[TIER_MAX_TIERS] = { 1, 2, 3, 64, 65, 1, 1, 7 };
	struct tier_alloc *t = case_alloc(test, TIER_MAX_TIERS * sizeof(*t));
	struct tier_loc loc = { 77, 77, { 77 } };
	u64 total = 0, n = 0, per_tier[TIER_MAX_TIERS] = {};
	bool rsv;
	int i;

	for (i = 0; i < TIER_MAX_TIERS; i++) {
		CASE_ASSERT_EQ(tier_alloc_init(&t[i], sizes[i]), 0);
		tier_alloc_set_reserve_pct(&t[i], i * 10);
		total += sizes[i];
	}
	while (tier_alloc_extent(t, TIER_MAX_TIERS, &loc) == 0) {
		CASE_ASSERT_LT(loc.tier, TIER_MAX_TIERS);
		CASE_ASSERT_LT(loc.pext.p, sizes[loc.tier]);
		per_tier[loc.tier]++;
		if (++n > total)
			break;
	}
	CASE_EQ(n, total);
	for (i = 0; i < TIER_MAX_TIERS; i++) {
		CASE_EQ(per_tier[i], sizes[i]);
		CASE_EQ(tier_alloc_free_count(&t[i]), 0);
	}
	CASE_EQ(tier_alloc_extent(t, TIER_MAX_TIERS, &loc), -ENOSPC);
	CASE_EQ(tier_pick_alloc_tier(t, TIER_MAX_TIERS, &rsv), -ENOSPC);
	/* The output is written only on success. */
	loc = (struct tier_loc){ 77, 77, { 77 } };
	CASE_EQ(tier_alloc_extent(t, TIER_MAX_TIERS, &loc), -ENOSPC);
	CASE_EQ(loc.tier, 77);
	CASE_EQ(loc.pext.p, 77);
	destroy_tiers(t, TIER_MAX_TIERS);
}

static void tier_alloc_load_map_test(CASE_CTX)
{
	struct tier_alloc t[2];
	struct tier_map m;
	struct tier_err err = { 0 };
	struct tier_loc l;

	CASE_ASSERT_EQ(tier_map_init(&m, 50, 0), 0);
	l = (struct tier_loc){ 0, 0, { 9 } };
	tier_map_set(&m, tier_vext(3), &l);
	l = (struct tier_loc){ 1, TIER_EXT_F_PINNED, { 9 } };
	tier_map_set(&m, tier_vext(4), &l);
	l = (struct tier_loc){ 1, 0, { 19 } };
	tier_map_set(&m, tier_vext(49), &l);
	CASE_ASSERT_EQ(tier_alloc_init(&t[0], 10), 0);
	CASE_ASSERT_EQ(tier_alloc_init(&t[1], 20), 0);
	CASE_EQ(tier_alloc_load_map(t, 2, &m, &err), 0);
	CASE_EQ(t[0].nr_used, 1);
	CASE_EQ(t[1].nr_used, 2);
	CASE_TRUE(test_bit(9, t[1].used));
	CASE_TRUE(test_bit(19, t[1].used));
	/* Loaded extents are not handed out again. */
	t[0].cursor = 9;
	CASE_ASSERT_EQ(tier_alloc_get(&t[0], false, &l.pext), 0);
	CASE_EQ(l.pext.p, 0);
	destroy_tiers(t, 2);

	/* Two virtual extents on one physical extent. */
	l = (struct tier_loc){ 1, 0, { 9 } };
	tier_map_set(&m, tier_vext(20), &l);
	CASE_ASSERT_EQ(tier_alloc_init(&t[0], 10), 0);
	CASE_ASSERT_EQ(tier_alloc_init(&t[1], 20), 0);
	CASE_EQ(tier_alloc_load_map(t, 2, &m, &err), -EUCLEAN);
	CASE_EQ(err.code, TIER_E_MAP_DOUBLE_USE);
	CASE_EQ(err.item, 20);
	CASE_EQ(err.value, 9);
	destroy_tiers(t, 2);

	/* An extent or a tier out of range. */
	tier_map_clear(&m, tier_vext(20), NULL);
	CASE_ASSERT_EQ(tier_alloc_init(&t[0], 10), 0);
	CASE_ASSERT_EQ(tier_alloc_init(&t[1], 19), 0);
	CASE_EQ(tier_alloc_load_map(t, 2, &m, &err), -EUCLEAN);
	CASE_EQ(err.code, TIER_E_MAP_ENTRY_PEXT);
	CASE_EQ(err.item, 49);
	CASE_EQ(err.value, 19);
	destroy_tiers(t, 2);
	CASE_ASSERT_EQ(tier_alloc_init(&t[0], 10), 0);
	CASE_EQ(tier_alloc_load_map(t, 1, &m, &err), -EUCLEAN);
	CASE_EQ(err.code, TIER_E_MAP_ENTRY_TIER);
	CASE_EQ(err.item, 4);
	CASE_EQ(err.value, 1);
	destroy_tiers(t, 1);
	tier_map_destroy(&m);
}

/* ---- random operations checked against a trivial model ------------------ */

enum { M_FREE, M_USED, M_PENDING, M_COMMITTING };

static void tier_alloc_model_test(CASE_CTX)
{
	const u64 n = 1000;
	struct tier_alloc a;
	u8 *model = case_zalloc(n);
	struct tier_alloc_stats st;
	u64 i, cnt[4];
	bool in_commit = false;
	struct tier_pext p;
	u32 seed = 7, r;
	int step, ret;

	CASE_ASSERT_NOT_NULL(model);
	CASE_ASSERT_EQ(tier_alloc_init(&a, n), 0);
	tier_alloc_set_reserve_pct(&a, 5);
	for (step = 0; step < 200000; step++) {
		seed = seed * 1103515245 + 12345;
		r = seed >> 8;
		switch (r % 10) {
		case 0 ... 3:
			ret = tier_alloc_get(&a, r & 0x100, &p);
			if (ret == 0) {
				CASE_ASSERT_EQ(model[p.p], M_FREE);
				model[p.p] = M_USED;
			}
			break;
		case 4 ... 6:
			i = (r >> 4) % n;
			ret = tier_alloc_free_deferred(&a, tier_pext(i));
			CASE_ASSERT_EQ(ret, model[i] == M_USED ? 0 : -EINVAL);
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
			tier_alloc_commit_end(&a, r & 0x300); /* 1/4 fail */
			for (i = 0; i < n; i++) {
				if (model[i] == M_COMMITTING && (r & 0x300))
					model[i] = M_FREE;
			}
			in_commit = false;
			break;
		case 9:
			i = (r >> 4) % n;
			ret = tier_alloc_unget(&a, tier_pext(i));
			CASE_ASSERT_EQ(ret, model[i] == M_USED ? 0 : -EINVAL);
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
		CASE_ASSERT_EQ(st.free, cnt[M_FREE]);
		CASE_ASSERT_EQ(st.used, cnt[M_USED]);
		CASE_ASSERT_EQ(st.pending, cnt[M_PENDING] + cnt[M_COMMITTING]);
		CASE_ASSERT_EQ(st.reserve, 50);
		for (i = 0; i < n; i++)
			CASE_ASSERT_EQ(test_bit(i, a.used), model[i] != M_FREE);
	}
	tier_alloc_destroy(&a);
	case_free(model);
}

/* A grown tier: its allocator's state carried into a larger one. */
static void tier_alloc_grow_test(CASE_CTX)
{
	struct tier_alloc a, b, small;
	struct tier_pext p;
	u64 i;

	CASE_ASSERT_EQ(tier_alloc_init(&a, 100), 0);
	CASE_ASSERT_EQ(tier_alloc_init(&b, 300), 0);
	CASE_ASSERT_EQ(tier_alloc_init(&small, 50), 0);
	take(test, &a, true, 10);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(3)), 0);
	tier_alloc_commit_begin(&a);
	CASE_EQ(tier_alloc_free_deferred(&a, tier_pext(4)), 0);
	CASE_EQ(tier_alloc_grow(&small, &a), -EINVAL);
	CASE_EQ(tier_alloc_grow(&b, &a), 0);
	CASE_EQ(b.nr_extents, 300);
	CASE_EQ(b.nr_used, a.nr_used);
	CASE_EQ(b.nr_pending, a.nr_pending);
	CASE_EQ(b.nr_committing, a.nr_committing);
	CASE_EQ(b.cursor, a.cursor);
	for (i = 0; i < 300; i++) {
		CASE_EQ(test_bit(i, b.used), i < 100 && test_bit(i, a.used));
		CASE_EQ(test_bit(i, b.pending),
			i < 100 && test_bit(i, a.pending));
		CASE_EQ(test_bit(i, b.committing),
			i < 100 && test_bit(i, a.committing));
	}
	expect_stats(test, &b, 8, 2, 290);
	/* The deferred frees complete in the grown one. */
	tier_alloc_commit_end(&b, true);
	CASE_FALSE(test_bit(3, b.used));
	CASE_TRUE(test_bit(4, b.used));
	/* Everything can be taken now, the new extents too, then nothing. */
	for (i = b.nr_used; i < 300; i++)
		CASE_ASSERT_EQ(tier_alloc_get(&b, true, &p), 0);
	CASE_EQ(tier_alloc_get(&b, true, &p), -ENOSPC);
	tier_alloc_destroy(&a);
	tier_alloc_destroy(&b);
	tier_alloc_destroy(&small);
}

static struct case_entry alloc_cases[] = {
	CASE_RUN(tier_alloc_init_test),
	CASE_RUN(tier_alloc_next_fit_test),
	CASE_RUN_PARAMS(tier_alloc_reserve_pct_test, reserve),
	CASE_RUN(tier_alloc_reserve_test),
	CASE_RUN(tier_alloc_noalloc_test),
	CASE_RUN(tier_alloc_mark_used_test),
#if CASE_WARN_OK
	CASE_RUN(tier_alloc_counter_out_of_sync_test),
#endif
	CASE_RUN(tier_alloc_deferred_free_test),
	CASE_RUN(tier_alloc_failed_commit_test),
	CASE_RUN(tier_alloc_failed_commit_carry_test),
#if CASE_FAULT_INJECTION
	CASE_RUN(tier_alloc_free_never_allocates_test),
#endif
	CASE_RUN(tier_alloc_spill_test),
	CASE_RUN(tier_alloc_all_full_test),
	CASE_RUN(tier_alloc_load_map_test),
	CASE_RUN(tier_alloc_model_test),
	CASE_RUN(tier_alloc_grow_test),
	CASE_RUN(tier_alloc_free_log_test),
	{}
};
