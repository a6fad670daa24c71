// SPDX-License-Identifier: GPL-2.0
/* Unit tests for kernel/core/memtier.c: the memory tier's slot bookkeeping
 * (fills, generations, invalidation, eviction order, resident copies,
 * readers' references, never the only copy). Same cases as
 * tests/kunit/memtier_kunit.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

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

static void setup_n(struct fixture *f, u32 nr)
{
	u32 s;
	u64 v;

	memset(f, 0, sizeof(*f));
	assert_int_equal(tier_mem_init(&f->m, NR_EXT, nr), 0);
	for (s = 0; s < nr; s++)
		assert_int_equal(tier_mem_add(&f->m, s, &f->frames[s]), 0);
	for (v = 0; v < NR_EXT; v++)
		f->words[v] = MAPPED(v);
	f->h.heat = f->heat;
	f->h.atime = f->atime;
	f->h.now = 1000;
	f->h.window = 60;
}

/* Claim and publish a copy of @v; returns its slot. */
static u32 fill(struct fixture *f, u64 v, bool resident)
{
	u32 gen, s = tier_mem_claim(&f->m, tier_vext(v), resident, &f->h, &gen);

	assert_int_not_equal(s, TIER_MEM_NONE);
	assert_true(tier_mem_publish(&f->m, s, gen, true, true));
	return s;
}

static void test_fill_and_read(void **state)
{
	struct fixture f;
	u32 s, gen, r;

	(void)state;
	setup_n(&f, 4);
	assert_int_equal(tier_mem_get(&f.m, tier_vext(5)), TIER_MEM_NONE);
	s = tier_mem_claim(&f.m, tier_vext(5), false, &f.h, &gen);
	assert_int_not_equal(s, TIER_MEM_NONE);
	/* Not readable while filling; no second claim of the same extent. */
	assert_int_equal(tier_mem_get(&f.m, tier_vext(5)), TIER_MEM_NONE);
	assert_int_equal(tier_mem_claim(&f.m, tier_vext(5), false, &f.h, &gen),
			 TIER_MEM_NONE);
	assert_true(tier_mem_publish(&f.m, s, gen, true, true));
	assert_int_equal(f.m.nr_valid, 1);
	assert_int_equal(f.m.fills, 1);
	r = tier_mem_get(&f.m, tier_vext(5));
	assert_int_equal(r, s);
	assert_ptr_equal(f.m.slots[r].frame, &f.frames[s]);
	tier_mem_put(&f.m, r);
	assert_int_equal(tier_mem_check(&f.m, f.words), 0);
	tier_mem_destroy(&f.m);
}

static void test_write_invalidates(void **state)
{
	struct fixture f;
	bool res;

	(void)state;
	setup_n(&f, 4);
	fill(&f, 7, false);
	assert_true(tier_mem_invalidate(&f.m, tier_vext(7), &res));
	assert_false(res);
	assert_int_equal(tier_mem_get(&f.m, tier_vext(7)), TIER_MEM_NONE);
	assert_int_equal(f.m.nr_valid, 0);
	assert_int_equal(f.m.nr_free, 4);
	assert_int_equal(f.m.invalidations, 1);
	/* Nothing to drop: not counted. */
	assert_false(tier_mem_invalidate(&f.m, tier_vext(7), NULL));
	assert_int_equal(f.m.invalidations, 1);
	assert_int_equal(tier_mem_check(&f.m, f.words), 0);
	tier_mem_destroy(&f.m);
}

static void test_fill_racing_write(void **state)
{
	struct fixture f;
	u32 s, s2, gen, gen2;

	(void)state;
	setup_n(&f, 4);
	/* The fill read old data; the write completed before it published. */
	s = tier_mem_claim(&f.m, tier_vext(3), false, &f.h, &gen);
	assert_true(tier_mem_invalidate(&f.m, tier_vext(3), NULL));
	assert_int_equal(tier_mem_check(&f.m, f.words), 0);
	/* A new fill (after the write) may start meanwhile, in another slot. */
	s2 = tier_mem_claim(&f.m, tier_vext(3), false, &f.h, &gen2);
	assert_int_not_equal(s2, TIER_MEM_NONE);
	assert_int_not_equal(s2, s);
	assert_false(tier_mem_publish(&f.m, s, gen, true, true));
	assert_int_equal(tier_mem_get(&f.m, tier_vext(3)), TIER_MEM_NONE);
	assert_true(tier_mem_publish(&f.m, s2, gen2, true, true));
	assert_int_equal(tier_mem_get(&f.m, tier_vext(3)), s2);
	tier_mem_put(&f.m, s2);
	assert_int_equal(f.m.fills, 1);
	assert_int_equal(f.m.nr_valid, 1);
	assert_int_equal(f.m.nr_free, 3);
	assert_int_equal(tier_mem_check(&f.m, f.words), 0);

	/* A failed read publishes nothing and frees the slot. */
	s = tier_mem_claim(&f.m, tier_vext(4), false, &f.h, &gen);
	assert_false(tier_mem_publish(&f.m, s, gen, false, true));
	assert_int_equal(f.m.slot_of[4], TIER_MEM_NONE);
	assert_int_equal(tier_mem_check(&f.m, f.words), 0);
	tier_mem_destroy(&f.m);
}

static void test_never_only_copy(void **state)
{
	struct fixture f;
	u32 s, gen;

	(void)state;
	setup_n(&f, 2);
	/* Discarded while filling: the home is unmapped at publish time. */
	s = tier_mem_claim(&f.m, tier_vext(9), false, &f.h, &gen);
	f.words[9] = 0;
	assert_false(tier_mem_publish(&f.m, s, gen, true, false));
	assert_int_equal(f.m.nr_valid, 0);
	assert_int_equal(tier_mem_check(&f.m, f.words), 0);
	/* The check catches a copy whose home is gone. */
	fill(&f, 9, false);
	assert_int_equal(tier_mem_check(&f.m, f.words), -EUCLEAN);
	assert_true(tier_mem_invalidate(&f.m, tier_vext(9), NULL));
	assert_int_equal(tier_mem_check(&f.m, f.words), 0);
	tier_mem_destroy(&f.m);
}

static void test_eviction_coldest_first(void **state)
{
	struct fixture f;
	u32 gen, s;

	(void)state;
	setup_n(&f, 3);
	/* Extent 10 hot, 11 cold but recent, 12 cold and oldest. */
	f.heat[10] = 8;
	f.atime[10] = 990;
	f.heat[11] = 1;
	f.atime[11] = 999;
	f.heat[12] = 1;
	f.atime[12] = 900;
	fill(&f, 10, false);
	fill(&f, 11, false);
	fill(&f, 12, false);
	assert_int_equal(f.m.nr_free, 0);
	s = tier_mem_claim(&f.m, tier_vext(13), false, &f.h, &gen);
	assert_int_not_equal(s, TIER_MEM_NONE);
	assert_int_equal(f.m.evictions, 1);
	assert_int_equal(f.m.slot_of[12], TIER_MEM_NONE);
	assert_int_not_equal(f.m.slot_of[11], TIER_MEM_NONE);
	assert_true(tier_mem_publish(&f.m, s, gen, true, true));
	/* Heat decays: 10 untouched for 10 windows is now the coldest. */
	f.h.now = 990 + 60 * 10;
	f.heat[11] = 2;
	f.atime[11] = f.h.now;
	f.heat[13] = 2;
	f.atime[13] = f.h.now;
	s = tier_mem_claim(&f.m, tier_vext(14), false, &f.h, &gen);
	assert_int_not_equal(s, TIER_MEM_NONE);
	assert_int_equal(f.m.slot_of[10], TIER_MEM_NONE);
	assert_int_equal(f.m.evictions, 2);
	assert_true(tier_mem_publish(&f.m, s, gen, true, true));
	assert_int_equal(tier_mem_check(&f.m, f.words), 0);
	tier_mem_destroy(&f.m);
}

static void test_resident_never_evicted(void **state)
{
	struct fixture f;
	void *frame;
	u32 gen;

	(void)state;
	setup_n(&f, 2);
	f.heat[20] = 0; /* coldest, but resident */
	f.heat[21] = 5;
	fill(&f, 20, true);
	fill(&f, 21, false);
	assert_int_equal(f.m.nr_resident, 1);
	/* Eviction takes 21, the only one it may take. */
	fill(&f, 22, false);
	assert_int_equal(f.m.slot_of[21], TIER_MEM_NONE);
	assert_int_not_equal(f.m.slot_of[20], TIER_MEM_NONE);
	/* Full of residents: nothing can be claimed or shrunk away. */
	tier_mem_set_resident(&f.m, tier_vext(22), true);
	assert_int_equal(f.m.nr_resident, 2);
	assert_int_equal(tier_mem_claim(&f.m, tier_vext(23), false, &f.h, &gen),
			 TIER_MEM_NONE);
	assert_int_equal(tier_mem_remove_one(&f.m, &f.h, &frame),
			 TIER_MEM_NONE);
	/* Unpinned: evictable again. */
	tier_mem_set_resident(&f.m, tier_vext(22), false);
	assert_int_equal(f.m.nr_resident, 1);
	assert_int_not_equal(tier_mem_claim(&f.m, tier_vext(23), false, &f.h,
					    &gen),
			     TIER_MEM_NONE);
	assert_int_equal(f.m.slot_of[22], TIER_MEM_NONE);
	/* A write drops a resident copy too, and says so (refill). */
	{
		bool res;

		assert_true(tier_mem_invalidate(&f.m, tier_vext(20), &res));
		assert_true(res);
	}
	assert_int_equal(f.m.nr_resident, 0);
	assert_int_equal(tier_mem_check(&f.m, f.words), 0);
	tier_mem_destroy(&f.m);
}

static void test_reader_holds_pages(void **state)
{
	struct fixture f;
	u32 s, r, gen;

	(void)state;
	setup_n(&f, 1);
	s = fill(&f, 30, false);
	r = tier_mem_get(&f.m, tier_vext(30));
	assert_int_equal(r, s);
	/* Busy copies are not evicted. */
	assert_int_equal(tier_mem_claim(&f.m, tier_vext(31), false, &f.h, &gen),
			 TIER_MEM_NONE);
	/* A write drops it, but the pages stay the reader's until put. */
	assert_true(tier_mem_invalidate(&f.m, tier_vext(30), NULL));
	assert_int_equal(f.m.slots[s].state, TIER_MEM_DEAD);
	assert_int_equal(f.m.nr_free, 0);
	assert_int_equal(tier_mem_claim(&f.m, tier_vext(31), false, &f.h, &gen),
			 TIER_MEM_NONE);
	assert_int_equal(tier_mem_check(&f.m, f.words), 0);
	tier_mem_put(&f.m, r);
	assert_int_equal(f.m.slots[s].state, TIER_MEM_FREE);
	assert_int_equal(f.m.nr_free, 1);
	assert_int_equal(tier_mem_check(&f.m, f.words), 0);
	tier_mem_destroy(&f.m);
}

static void test_promote_due(void **state)
{
	struct fixture f;

	(void)state;
	setup_n(&f, 2);
	assert_false(tier_mem_promote_due(&f.m, tier_vext(1), 1, 2));
	assert_true(tier_mem_promote_due(&f.m, tier_vext(1), 2, 2));
	assert_true(tier_mem_promote_due(&f.m, tier_vext(1), 9, 2));
	fill(&f, 1, false);
	assert_false(tier_mem_promote_due(&f.m, tier_vext(1), 9, 2));
	tier_mem_destroy(&f.m);
}

static void test_resize(void **state)
{
	struct tier_mem_slot *bigger, *old;
	struct fixture f;
	void *frame;
	u32 s;

	(void)state;
	setup_n(&f, 3);
	f.heat[40] = 9;
	f.heat[41] = 1;
	fill(&f, 40, false);
	fill(&f, 41, false);
	/* Shrinking takes a free slot first, then the coldest copy. */
	s = tier_mem_remove_one(&f.m, &f.h, &frame);
	assert_int_not_equal(s, TIER_MEM_NONE);
	assert_int_equal(f.m.nr_valid, 2);
	assert_int_equal(f.m.nr_present, 2);
	s = tier_mem_remove_one(&f.m, &f.h, &frame);
	assert_int_not_equal(s, TIER_MEM_NONE);
	assert_int_equal(f.m.slot_of[41], TIER_MEM_NONE);
	assert_int_not_equal(f.m.slot_of[40], TIER_MEM_NONE);
	assert_int_equal(f.m.evictions, 1);
	assert_int_equal(tier_mem_check(&f.m, f.words), 0);
	/* Growing: absent slots first, then a bigger array. */
	s = tier_mem_first_absent(&f.m);
	assert_int_not_equal(s, TIER_MEM_NONE);
	assert_int_equal(tier_mem_add(&f.m, s, &f.frames[8]), 0);
	assert_int_equal(tier_mem_add(&f.m, s, &f.frames[8]), -EINVAL);
	bigger = calloc(5, sizeof(*bigger));
	assert_null(tier_mem_swap_slots(&f.m, bigger, 2));
	old = tier_mem_swap_slots(&f.m, bigger, 5);
	assert_non_null(old);
	free(old);
	while ((s = tier_mem_first_absent(&f.m)) != TIER_MEM_NONE)
		assert_int_equal(tier_mem_add(&f.m, s, &f.frames[s + 8]), 0);
	assert_int_equal(f.m.nr_present, 5);
	assert_int_not_equal(tier_mem_get(&f.m, tier_vext(40)), TIER_MEM_NONE);
	tier_mem_put(&f.m, f.m.slot_of[40]);
	assert_int_equal(tier_mem_check(&f.m, f.words), 0);
	tier_mem_destroy(&f.m);
}

/*
 * Slot visits of tier_mem_first_absent() while @n ABSENT slots get their
 * frames one at a time, as tier_mem_grow() adds them; stops early once
 * above @budget (a search from slot 0 for every frame would take minutes
 * at 2^18).
 */
static u64 grow_visits(u32 n, u64 budget)
{
	static char frame;
	struct tier_mem m;
	u64 visits;
	u32 i, s;

	assert_int_equal(tier_mem_init(&m, 1, n), 0);
	for (i = 0; i < n && m.absent_visits <= budget; i++) {
		s = tier_mem_first_absent(&m);
		assert_int_equal(s, i);
		assert_int_equal(tier_mem_add(&m, s, &frame), 0);
	}
	if (i == n) {
		assert_int_equal(tier_mem_first_absent(&m), TIER_MEM_NONE);
		assert_int_equal(m.nr_present, n);
		assert_int_equal(tier_mem_check(&m, NULL), 0);
	}
	visits = m.absent_visits;
	tier_mem_destroy(&m);
	return visits;
}

/* Creating or growing the tier costs linear time in the frames added. */
static void test_grow_linear(void **state)
{
	u64 small, big;

	(void)state;
	small = grow_visits(1U << 16, U64_MAX);
	big = grow_visits(1U << 18, 5 * small);
	print_message("adding 2^16 frames: %llu slot visits; 2^18: %llu%s\n",
		      (unsigned long long)small, (unsigned long long)big,
		      big > 5 * small ? " (gave up)" : "");
	assert_true(small >= 1U << 16);
	assert_true(big <= 5 * small);
}

/* Shrinking leaves holes; growing again fills them, then the new slots. */
static void test_grow_after_shrink(void **state)
{
	const u32 n = 1U << 16;
	struct tier_mem_slot *bigger, *old;
	struct tier_mem_heat h = { 0 };
	static char frame;
	struct tier_mem m;
	u64 before;
	void *fr;
	u32 i, s;

	(void)state;
	assert_int_equal(tier_mem_init(&m, 1, n), 0);
	while ((s = tier_mem_first_absent(&m)) != TIER_MEM_NONE)
		assert_int_equal(tier_mem_add(&m, s, &frame), 0);
	for (i = 0; i < n / 2; i++)
		assert_int_not_equal(tier_mem_remove_one(&m, &h, &fr),
				     TIER_MEM_NONE);
	assert_int_equal(m.nr_present, n / 2);
	bigger = calloc(2 * n, sizeof(*bigger));
	assert_non_null(bigger);
	old = tier_mem_swap_slots(&m, bigger, 2 * n);
	assert_non_null(old);
	free(old);
	before = m.absent_visits;
	for (i = 0; i < n + n / 2; i++) {
		s = tier_mem_first_absent(&m);
		assert_int_not_equal(s, TIER_MEM_NONE);
		assert_int_equal(tier_mem_add(&m, s, &frame), 0);
		if (m.absent_visits - before > 16ULL * n)
			break;
	}
	print_message("regrowing %u frames: %llu slot visits\n", i,
		      (unsigned long long)(m.absent_visits - before));
	if (i == n + n / 2) {
		assert_int_equal(tier_mem_first_absent(&m), TIER_MEM_NONE);
		assert_int_equal(m.nr_present, 2 * n);
		assert_int_equal(tier_mem_check(&m, NULL), 0);
	}
	before = m.absent_visits - before;
	tier_mem_destroy(&m);
	assert_true(before <= 16ULL * n);
}

static void test_init_and_sizes(void **state)
{
	struct tier_mem m;

	(void)state;
	assert_int_equal(tier_mem_init(&m, 0, 4), -EINVAL);
	assert_int_equal(tier_mem_init(&m, 4, 0), -EINVAL);
	tier_test_fail_alloc = 1;
	assert_int_equal(tier_mem_init(&m, 4, 4), -ENOMEM);
	tier_test_fail_alloc = 0;
	/* 1 MiB extents (2048 sectors, shift 11). */
	assert_int_equal(tier_mem_slots_for(4096, 11), 4096);
	assert_int_equal(tier_mem_slots_for(1, 11), 1);
	/* 64 MiB extents: 1 MiB holds none. */
	assert_int_equal(tier_mem_slots_for(1, 17), 0);
	assert_int_equal(tier_mem_slots_for(TIER_MEM_SIZE_MB_MAX, 7),
			 TIER_MEM_SIZE_MB_MAX * 16U);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill_and_read),
		cmocka_unit_test(test_write_invalidates),
		cmocka_unit_test(test_fill_racing_write),
		cmocka_unit_test(test_never_only_copy),
		cmocka_unit_test(test_eviction_coldest_first),
		cmocka_unit_test(test_resident_never_evicted),
		cmocka_unit_test(test_reader_holds_pages),
		cmocka_unit_test(test_promote_due),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_init_and_sizes),
		cmocka_unit_test(test_grow_linear),
		cmocka_unit_test(test_grow_after_shrink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
