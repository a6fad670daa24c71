// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kernel/core/memtier.c (the memory tier's slot bookkeeping:
 * fills, generations, invalidation, eviction order, resident copies,
 * readers' references, never the only copy), run in-kernel on UML by
 * tests/kunit/run. Same cases as the userspace tests/unit/test_memtier.c.
 */
#include <kunit/test.h>

#include "format.h"
#include "extent_map.h"
#include "policy.h"
#include "memtier.h"

#define NR_EXT 64
#define MAPPED(v) (TIER_MAPW_MAPPED | (v))

/* A table of @nr slots with fake frames, every extent mapped. */
struct fixture {
	struct tier_mem m;
	u64 words[NR_EXT];
	u16 heat[NR_EXT];
	u32 atime[NR_EXT];
	struct tier_mem_heat h;
	char frames[16];
};

static void setup_n(struct kunit *test, struct fixture *f, u32 nr)
{
	u32 s;
	u64 v;

	memset(f, 0, sizeof(*f));
	KUNIT_ASSERT_EQ(test, tier_mem_init(&f->m, NR_EXT, nr), 0);
	for (s = 0; s < nr; s++)
		KUNIT_EXPECT_EQ(test, tier_mem_add(&f->m, s, &f->frames[s]), 0);
	for (v = 0; v < NR_EXT; v++)
		f->words[v] = MAPPED(v);
	f->h.heat = f->heat;
	f->h.atime = f->atime;
	f->h.now = 1000;
	f->h.window = 60;
}

/* Claim a slot for @v (not resident). */
static u32 claim(struct fixture *f, u64 v, u32 *gen)
{
	return tier_mem_claim(&f->m, tier_vext(v), false, &f->h, gen);
}

/* Claim and publish a copy of @v; returns its slot. */
static u32 fill(struct kunit *test, struct fixture *f, u64 v, bool resident)
{
	u32 gen, s = tier_mem_claim(&f->m, tier_vext(v), resident, &f->h, &gen);

	KUNIT_ASSERT_NE(test, s, TIER_MEM_NONE);
	KUNIT_EXPECT_TRUE(test, tier_mem_publish(&f->m, s, gen, true, true));
	return s;
}

static void tier_mem_fill_and_read_test(struct kunit *test)
{
	struct fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u32 s, gen, r;

	KUNIT_ASSERT_NOT_NULL(test, f);
	setup_n(test, f, 4);
	KUNIT_EXPECT_EQ(test, tier_mem_get(&f->m, tier_vext(5)), TIER_MEM_NONE);
	s = tier_mem_claim(&f->m, tier_vext(5), false, &f->h, &gen);
	KUNIT_EXPECT_NE(test, s, TIER_MEM_NONE);
	/* Not readable while filling; no second claim of the same extent. */
	KUNIT_EXPECT_EQ(test, tier_mem_get(&f->m, tier_vext(5)), TIER_MEM_NONE);
	KUNIT_EXPECT_EQ(test,
			tier_mem_claim(&f->m, tier_vext(5), false, &f->h, &gen),
			TIER_MEM_NONE);
	KUNIT_EXPECT_TRUE(test, tier_mem_publish(&f->m, s, gen, true, true));
	KUNIT_EXPECT_EQ(test, f->m.nr_valid, 1);
	KUNIT_EXPECT_EQ(test, f->m.fills, 1);
	r = tier_mem_get(&f->m, tier_vext(5));
	KUNIT_EXPECT_EQ(test, r, s);
	KUNIT_EXPECT_PTR_EQ(test, f->m.slots[r].frame, &f->frames[s]);
	tier_mem_put(&f->m, r);
	KUNIT_EXPECT_EQ(test, tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

static void tier_mem_write_invalidates_test(struct kunit *test)
{
	struct fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	bool res;

	KUNIT_ASSERT_NOT_NULL(test, f);
	setup_n(test, f, 4);
	fill(test, f, 7, false);
	KUNIT_EXPECT_TRUE(test, tier_mem_invalidate(&f->m, tier_vext(7), &res));
	KUNIT_EXPECT_FALSE(test, res);
	KUNIT_EXPECT_EQ(test, tier_mem_get(&f->m, tier_vext(7)), TIER_MEM_NONE);
	KUNIT_EXPECT_EQ(test, f->m.nr_valid, 0);
	KUNIT_EXPECT_EQ(test, f->m.nr_free, 4);
	KUNIT_EXPECT_EQ(test, f->m.invalidations, 1);
	/* Nothing to drop: not counted. */
	KUNIT_EXPECT_FALSE(test,
			   tier_mem_invalidate(&f->m, tier_vext(7), NULL));
	KUNIT_EXPECT_EQ(test, f->m.invalidations, 1);
	KUNIT_EXPECT_EQ(test, tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

static void tier_mem_fill_racing_write_test(struct kunit *test)
{
	struct fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u32 s, s2, gen, gen2;

	KUNIT_ASSERT_NOT_NULL(test, f);
	setup_n(test, f, 4);
	/* The fill read old data; the write completed before it published. */
	s = tier_mem_claim(&f->m, tier_vext(3), false, &f->h, &gen);
	KUNIT_EXPECT_TRUE(test, tier_mem_invalidate(&f->m, tier_vext(3), NULL));
	KUNIT_EXPECT_EQ(test, tier_mem_check(&f->m, f->words), 0);
	/* A new fill (after the write) may start meanwhile, in another slot. */
	s2 = tier_mem_claim(&f->m, tier_vext(3), false, &f->h, &gen2);
	KUNIT_EXPECT_NE(test, s2, TIER_MEM_NONE);
	KUNIT_EXPECT_NE(test, s2, s);
	KUNIT_EXPECT_FALSE(test, tier_mem_publish(&f->m, s, gen, true, true));
	KUNIT_EXPECT_EQ(test, tier_mem_get(&f->m, tier_vext(3)), TIER_MEM_NONE);
	KUNIT_EXPECT_TRUE(test, tier_mem_publish(&f->m, s2, gen2, true, true));
	KUNIT_EXPECT_EQ(test, tier_mem_get(&f->m, tier_vext(3)), s2);
	tier_mem_put(&f->m, s2);
	KUNIT_EXPECT_EQ(test, f->m.fills, 1);
	KUNIT_EXPECT_EQ(test, f->m.nr_valid, 1);
	KUNIT_EXPECT_EQ(test, f->m.nr_free, 3);
	KUNIT_EXPECT_EQ(test, tier_mem_check(&f->m, f->words), 0);

	/* A failed read publishes nothing and frees the slot. */
	s = tier_mem_claim(&f->m, tier_vext(4), false, &f->h, &gen);
	KUNIT_EXPECT_FALSE(test, tier_mem_publish(&f->m, s, gen, false, true));
	KUNIT_EXPECT_EQ(test, f->m.slot_of[4], TIER_MEM_NONE);
	KUNIT_EXPECT_EQ(test, tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

static void tier_mem_never_only_copy_test(struct kunit *test)
{
	struct fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u32 s, gen;

	KUNIT_ASSERT_NOT_NULL(test, f);
	setup_n(test, f, 2);
	/* Discarded while filling: the home is unmapped at publish time. */
	s = tier_mem_claim(&f->m, tier_vext(9), false, &f->h, &gen);
	f->words[9] = 0;
	KUNIT_EXPECT_FALSE(test, tier_mem_publish(&f->m, s, gen, true, false));
	KUNIT_EXPECT_EQ(test, f->m.nr_valid, 0);
	KUNIT_EXPECT_EQ(test, tier_mem_check(&f->m, f->words), 0);
	/* The check catches a copy whose home is gone. */
	fill(test, f, 9, false);
	KUNIT_EXPECT_EQ(test, tier_mem_check(&f->m, f->words), -EUCLEAN);
	KUNIT_EXPECT_TRUE(test, tier_mem_invalidate(&f->m, tier_vext(9), NULL));
	KUNIT_EXPECT_EQ(test, tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

static void tier_mem_eviction_coldest_first_test(struct kunit *test)
{
	struct fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u32 gen, s;

	KUNIT_ASSERT_NOT_NULL(test, f);
	setup_n(test, f, 3);
	/* Extent 10 hot, 11 cold but recent, 12 cold and oldest. */
	f->heat[10] = 8;
	f->atime[10] = 990;
	f->heat[11] = 1;
	f->atime[11] = 999;
	f->heat[12] = 1;
	f->atime[12] = 900;
	fill(test, f, 10, false);
	fill(test, f, 11, false);
	fill(test, f, 12, false);
	KUNIT_EXPECT_EQ(test, f->m.nr_free, 0);
	s = tier_mem_claim(&f->m, tier_vext(13), false, &f->h, &gen);
	KUNIT_EXPECT_NE(test, s, TIER_MEM_NONE);
	KUNIT_EXPECT_EQ(test, f->m.evictions, 1);
	KUNIT_EXPECT_EQ(test, f->m.slot_of[12], TIER_MEM_NONE);
	KUNIT_EXPECT_NE(test, f->m.slot_of[11], TIER_MEM_NONE);
	KUNIT_EXPECT_TRUE(test, tier_mem_publish(&f->m, s, gen, true, true));
	/* Heat decays: 10 untouched for 10 windows is now the coldest. */
	f->h.now = 990 + 60 * 10;
	f->heat[11] = 2;
	f->atime[11] = f->h.now;
	f->heat[13] = 2;
	f->atime[13] = f->h.now;
	s = tier_mem_claim(&f->m, tier_vext(14), false, &f->h, &gen);
	KUNIT_EXPECT_NE(test, s, TIER_MEM_NONE);
	KUNIT_EXPECT_EQ(test, f->m.slot_of[10], TIER_MEM_NONE);
	KUNIT_EXPECT_EQ(test, f->m.evictions, 2);
	KUNIT_EXPECT_TRUE(test, tier_mem_publish(&f->m, s, gen, true, true));
	KUNIT_EXPECT_EQ(test, tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

static void tier_mem_resident_never_evicted_test(struct kunit *test)
{
	struct fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	void *frame;
	u32 gen;

	KUNIT_ASSERT_NOT_NULL(test, f);
	setup_n(test, f, 2);
	f->heat[20] = 0; /* coldest, but resident */
	f->heat[21] = 5;
	fill(test, f, 20, true);
	fill(test, f, 21, false);
	KUNIT_EXPECT_EQ(test, f->m.nr_resident, 1);
	/* Eviction takes 21, the only one it may take. */
	fill(test, f, 22, false);
	KUNIT_EXPECT_EQ(test, f->m.slot_of[21], TIER_MEM_NONE);
	KUNIT_EXPECT_NE(test, f->m.slot_of[20], TIER_MEM_NONE);
	/* Full of residents: nothing can be claimed or shrunk away. */
	tier_mem_set_resident(&f->m, tier_vext(22), true);
	KUNIT_EXPECT_EQ(test, f->m.nr_resident, 2);
	KUNIT_EXPECT_EQ(test, claim(f, 23, &gen), TIER_MEM_NONE);
	KUNIT_EXPECT_EQ(test, tier_mem_remove_one(&f->m, &f->h, &frame),
			TIER_MEM_NONE);
	/* Unpinned: evictable again. */
	tier_mem_set_resident(&f->m, tier_vext(22), false);
	KUNIT_EXPECT_EQ(test, f->m.nr_resident, 1);
	KUNIT_EXPECT_NE(test, claim(f, 23, &gen), TIER_MEM_NONE);
	KUNIT_EXPECT_EQ(test, f->m.slot_of[22], TIER_MEM_NONE);
	/* A write drops a resident copy too, and says so (refill). */
	{
		bool res, dropped;

		dropped = tier_mem_invalidate(&f->m, tier_vext(20), &res);
		KUNIT_EXPECT_TRUE(test, dropped);
		KUNIT_EXPECT_TRUE(test, res);
	}
	KUNIT_EXPECT_EQ(test, f->m.nr_resident, 0);
	KUNIT_EXPECT_EQ(test, tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

static void tier_mem_reader_holds_pages_test(struct kunit *test)
{
	struct fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u32 s, r, gen;

	KUNIT_ASSERT_NOT_NULL(test, f);
	setup_n(test, f, 1);
	s = fill(test, f, 30, false);
	r = tier_mem_get(&f->m, tier_vext(30));
	KUNIT_EXPECT_EQ(test, r, s);
	/* Busy copies are not evicted. */
	KUNIT_EXPECT_EQ(test, claim(f, 31, &gen), TIER_MEM_NONE);
	/* A write drops it, but the pages stay the reader's until put. */
	KUNIT_EXPECT_TRUE(test,
			  tier_mem_invalidate(&f->m, tier_vext(30), NULL));
	KUNIT_EXPECT_EQ(test, f->m.slots[s].state, TIER_MEM_DEAD);
	KUNIT_EXPECT_EQ(test, f->m.nr_free, 0);
	KUNIT_EXPECT_EQ(test, claim(f, 31, &gen), TIER_MEM_NONE);
	KUNIT_EXPECT_EQ(test, tier_mem_check(&f->m, f->words), 0);
	tier_mem_put(&f->m, r);
	KUNIT_EXPECT_EQ(test, f->m.slots[s].state, TIER_MEM_FREE);
	KUNIT_EXPECT_EQ(test, f->m.nr_free, 1);
	KUNIT_EXPECT_EQ(test, tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

static void tier_mem_promote_due_test(struct kunit *test)
{
	struct fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	setup_n(test, f, 2);
	KUNIT_EXPECT_FALSE(test,
			   tier_mem_promote_due(&f->m, tier_vext(1), 1, 2));
	KUNIT_EXPECT_TRUE(test,
			  tier_mem_promote_due(&f->m, tier_vext(1), 2, 2));
	KUNIT_EXPECT_TRUE(test,
			  tier_mem_promote_due(&f->m, tier_vext(1), 9, 2));
	fill(test, f, 1, false);
	KUNIT_EXPECT_FALSE(test,
			   tier_mem_promote_due(&f->m, tier_vext(1), 9, 2));
	tier_mem_destroy(&f->m);
}

static void tier_mem_resize_test(struct kunit *test)
{
	struct tier_mem_slot *bigger, *old;
	struct fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	void *frame;
	u32 s;

	KUNIT_ASSERT_NOT_NULL(test, f);
	setup_n(test, f, 3);
	f->heat[40] = 9;
	f->heat[41] = 1;
	fill(test, f, 40, false);
	fill(test, f, 41, false);
	/* Shrinking takes a free slot first, then the coldest copy. */
	s = tier_mem_remove_one(&f->m, &f->h, &frame);
	KUNIT_EXPECT_NE(test, s, TIER_MEM_NONE);
	KUNIT_EXPECT_EQ(test, f->m.nr_valid, 2);
	KUNIT_EXPECT_EQ(test, f->m.nr_present, 2);
	s = tier_mem_remove_one(&f->m, &f->h, &frame);
	KUNIT_EXPECT_NE(test, s, TIER_MEM_NONE);
	KUNIT_EXPECT_EQ(test, f->m.slot_of[41], TIER_MEM_NONE);
	KUNIT_EXPECT_NE(test, f->m.slot_of[40], TIER_MEM_NONE);
	KUNIT_EXPECT_EQ(test, f->m.evictions, 1);
	KUNIT_EXPECT_EQ(test, tier_mem_check(&f->m, f->words), 0);
	/* Growing: absent slots first, then a bigger array. */
	s = tier_mem_first_absent(&f->m);
	KUNIT_EXPECT_NE(test, s, TIER_MEM_NONE);
	KUNIT_EXPECT_EQ(test, tier_mem_add(&f->m, s, &f->frames[8]), 0);
	KUNIT_EXPECT_EQ(test, tier_mem_add(&f->m, s, &f->frames[8]), -EINVAL);
	bigger = kcalloc(5, sizeof(*bigger), GFP_KERNEL);
	KUNIT_EXPECT_NULL(test, tier_mem_swap_slots(&f->m, bigger, 2));
	old = tier_mem_swap_slots(&f->m, bigger, 5);
	KUNIT_EXPECT_NOT_NULL(test, old);
	kfree(old);
	while ((s = tier_mem_first_absent(&f->m)) != TIER_MEM_NONE)
		KUNIT_EXPECT_EQ(test, tier_mem_add(&f->m, s, &f->frames[s + 8]),
				0);
	KUNIT_EXPECT_EQ(test, f->m.nr_present, 5);
	KUNIT_EXPECT_NE(test, tier_mem_get(&f->m, tier_vext(40)),
			TIER_MEM_NONE);
	tier_mem_put(&f->m, f->m.slot_of[40]);
	KUNIT_EXPECT_EQ(test, tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

/*
 * Slot visits of tier_mem_first_absent() while @n ABSENT slots get their
 * frames one at a time, as tier_mem_grow() adds them; stops early once
 * above @budget (a search from slot 0 for every frame would take minutes
 * at 2^18).
 */
static u64 grow_visits(struct kunit *test, u32 n, u64 budget)
{
	static char frame;
	struct tier_mem m;
	u64 visits;
	u32 i, s;

	KUNIT_ASSERT_EQ(test, tier_mem_init(&m, 1, n), 0);
	for (i = 0; i < n && m.absent_visits <= budget; i++) {
		s = tier_mem_first_absent(&m);
		KUNIT_ASSERT_EQ(test, s, i);
		KUNIT_ASSERT_EQ(test, tier_mem_add(&m, s, &frame), 0);
		if (!(i & 4095))
			cond_resched();
	}
	if (i == n) {
		KUNIT_EXPECT_EQ(test, tier_mem_first_absent(&m), TIER_MEM_NONE);
		KUNIT_EXPECT_EQ(test, m.nr_present, n);
		KUNIT_EXPECT_EQ(test, tier_mem_check(&m, NULL), 0);
	}
	visits = m.absent_visits;
	tier_mem_destroy(&m);
	return visits;
}

/* Creating or growing the tier costs linear time in the frames added. */
static void tier_mem_grow_linear_test(struct kunit *test)
{
	u64 small, big;

	small = grow_visits(test, 1U << 16, U64_MAX);
	big = grow_visits(test, 1U << 18, 5 * small);
	kunit_info(test, "adding 2^16 frames: %llu slot visits; 2^18: %llu%s",
		   small, big, big > 5 * small ? " (gave up)" : "");
	KUNIT_EXPECT_GE(test, small, 1ULL << 16);
	KUNIT_EXPECT_LE(test, big, 5 * small);
}

/* Shrinking leaves holes; growing again fills them, then the new slots. */
static void tier_mem_grow_after_shrink_test(struct kunit *test)
{
	const u32 n = 1U << 16;
	struct tier_mem_slot *bigger, *old;
	struct tier_mem_heat h = {};
	static char frame;
	struct tier_mem m;
	u64 before;
	void *fr;
	u32 i, s;

	KUNIT_ASSERT_EQ(test, tier_mem_init(&m, 1, n), 0);
	while ((s = tier_mem_first_absent(&m)) != TIER_MEM_NONE)
		KUNIT_ASSERT_EQ(test, tier_mem_add(&m, s, &frame), 0);
	for (i = 0; i < n / 2; i++)
		KUNIT_ASSERT_NE(test, tier_mem_remove_one(&m, &h, &fr),
				TIER_MEM_NONE);
	KUNIT_EXPECT_EQ(test, m.nr_present, n / 2);
	bigger = kvcalloc(2 * n, sizeof(*bigger), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bigger);
	old = tier_mem_swap_slots(&m, bigger, 2 * n);
	KUNIT_ASSERT_NOT_NULL(test, old);
	kvfree(old);
	before = m.absent_visits;
	for (i = 0; i < n + n / 2; i++) {
		s = tier_mem_first_absent(&m);
		KUNIT_ASSERT_NE(test, s, TIER_MEM_NONE);
		KUNIT_ASSERT_EQ(test, tier_mem_add(&m, s, &frame), 0);
		if (m.absent_visits - before > 16ULL * n)
			break;
	}
	KUNIT_EXPECT_LE_MSG(test, m.absent_visits - before, 16ULL * n,
			    "quadratic: gave up after %u frames", i);
	if (i == n + n / 2) {
		KUNIT_EXPECT_EQ(test, tier_mem_first_absent(&m), TIER_MEM_NONE);
		KUNIT_EXPECT_EQ(test, m.nr_present, 2 * n);
		KUNIT_EXPECT_EQ(test, tier_mem_check(&m, NULL), 0);
	}
	tier_mem_destroy(&m);
}

static void tier_mem_init_and_sizes_test(struct kunit *test)
{
	struct tier_mem m;

	KUNIT_EXPECT_EQ(test, tier_mem_init(&m, 0, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, tier_mem_init(&m, 4, 0), -EINVAL);
	/* 1 MiB extents (2048 sectors, shift 11). */
	KUNIT_EXPECT_EQ(test, tier_mem_slots_for(4096, 11), 4096);
	KUNIT_EXPECT_EQ(test, tier_mem_slots_for(1, 11), 1);
	/* 64 MiB extents: 1 MiB holds none. */
	KUNIT_EXPECT_EQ(test, tier_mem_slots_for(1, 17), 0);
	KUNIT_EXPECT_EQ(test, tier_mem_slots_for(TIER_MEM_SIZE_MB_MAX, 7),
			TIER_MEM_SIZE_MB_MAX * 16U);
}

static struct kunit_case dm_tier_memtier_cases[] = {
	KUNIT_CASE(tier_mem_fill_and_read_test),
	KUNIT_CASE(tier_mem_write_invalidates_test),
	KUNIT_CASE(tier_mem_fill_racing_write_test),
	KUNIT_CASE(tier_mem_never_only_copy_test),
	KUNIT_CASE(tier_mem_eviction_coldest_first_test),
	KUNIT_CASE(tier_mem_resident_never_evicted_test),
	KUNIT_CASE(tier_mem_reader_holds_pages_test),
	KUNIT_CASE(tier_mem_promote_due_test),
	KUNIT_CASE(tier_mem_resize_test),
	KUNIT_CASE(tier_mem_init_and_sizes_test),
	KUNIT_CASE(tier_mem_grow_linear_test),
	KUNIT_CASE(tier_mem_grow_after_shrink_test),
	{}
};

static struct kunit_suite dm_tier_memtier_suite = {
	.name = "dm_tier_memtier",
	.test_cases = dm_tier_memtier_cases,
};

kunit_test_suite(dm_tier_memtier_suite);
