/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cases for kernel/core/memtier.c: the memory tier's slot bookkeeping
 * (fills, generations, invalidation, eviction order, resident copies,
 * readers' references, never the only copy). Run by
 * tests/unit/test_memtier.c (cmocka) and tests/kunit/memtier_kunit.c
 * (KUnit); see case.h.
 */
#include "case.h"
#include "format.h"
#include "extent_map.h"
#include "policy.h"
#include "memtier.h"

#define NR_EXT 64
#define MAPPED(v) (TIER_MW_MAPPED | TIER_MW_ACCESS_NONE | (v))

/* A table of @nr slots with fake frames, every extent mapped. */
struct fixture {
	struct tier_mem m;
	u64 words[NR_EXT];
	struct tier_mem_heat h;
	char frames[16];
};

static void setup_n(CASE_CTX, struct fixture *f, u32 nr)
{
	u32 s;
	u64 v;

	memset(f, 0, sizeof(*f));
	CASE_ASSERT_EQ(tier_mem_init(&f->m, NR_EXT, nr, NR_EXT), 0);
	for (s = 0; s < nr; s++)
		CASE_EQ(tier_mem_add(&f->m, s, &f->frames[s]), 0);
	for (v = 0; v < NR_EXT; v++)
		f->words[v] = MAPPED(v);
	f->h.words = f->words;
	f->h.now = 1000;
	f->h.window = 60;
}

/* The heat and access time kept in extent @v's map word. */
static void fx_heat(struct fixture *f, u64 v, u32 heat)
{
	f->words[v] = tier_mw_with_access(f->words[v], heat,
					  tier_mw_atime(f->words[v], f->h.now),
					  f->h.now);
}

static void fx_atime(struct fixture *f, u64 v, u32 atime)
{
	u32 heat = tier_mw_heat(f->words[v]);

	f->words[v] = tier_mw_with_access(f->words[v], heat, atime, f->h.now);
}

/* Claim a slot for @v (not resident). */
static u32 claim(struct fixture *f, u64 v, u32 *gen)
{
	return tier_mem_claim(&f->m, tier_vext(v), false, &f->h, gen);
}

/* Claim and publish a copy of @v; returns its slot. */
static u32 fill(CASE_CTX, struct fixture *f, u64 v, bool resident)
{
	u32 gen, s = tier_mem_claim(&f->m, tier_vext(v), resident, &f->h, &gen);

	CASE_ASSERT_NE(s, TIER_MEM_NONE);
	CASE_TRUE(tier_mem_publish(&f->m, s, gen, true, true));
	return s;
}

static void tier_mem_fill_and_read_test(CASE_CTX)
{
	struct fixture *f = case_zalloc(sizeof(*f));
	u32 s, gen, r;

	CASE_ASSERT_NOT_NULL(f);
	setup_n(test, f, 4);
	CASE_EQ(tier_mem_get(&f->m, tier_vext(5)), TIER_MEM_NONE);
	s = tier_mem_claim(&f->m, tier_vext(5), false, &f->h, &gen);
	CASE_NE(s, TIER_MEM_NONE);
	/* Not readable while filling; no second claim of the same extent. */
	CASE_EQ(tier_mem_get(&f->m, tier_vext(5)), TIER_MEM_NONE);
	CASE_EQ(tier_mem_claim(&f->m, tier_vext(5), false, &f->h, &gen),
		TIER_MEM_NONE);
	CASE_TRUE(tier_mem_publish(&f->m, s, gen, true, true));
	CASE_EQ(f->m.nr_valid, 1);
	CASE_EQ(f->m.fills, 1);
	r = tier_mem_get(&f->m, tier_vext(5));
	CASE_EQ(r, s);
	CASE_PTR_EQ(tier_mem_frame(&f->m, r), &f->frames[s]);
	tier_mem_put(&f->m, r);
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

static void tier_mem_write_invalidates_test(CASE_CTX)
{
	struct fixture *f = case_zalloc(sizeof(*f));
	bool res;

	CASE_ASSERT_NOT_NULL(f);
	setup_n(test, f, 4);
	fill(test, f, 7, false);
	CASE_TRUE(tier_mem_invalidate(&f->m, tier_vext(7), &res));
	CASE_FALSE(res);
	CASE_EQ(tier_mem_get(&f->m, tier_vext(7)), TIER_MEM_NONE);
	CASE_EQ(f->m.nr_valid, 0);
	CASE_EQ(f->m.nr_free, 4);
	CASE_EQ(f->m.invalidations, 1);
	/* Nothing to drop: not counted. */
	CASE_FALSE(tier_mem_invalidate(&f->m, tier_vext(7), NULL));
	CASE_EQ(f->m.invalidations, 1);
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

static void tier_mem_fill_racing_write_test(CASE_CTX)
{
	struct fixture *f = case_zalloc(sizeof(*f));
	u32 s, s2, gen, gen2;

	CASE_ASSERT_NOT_NULL(f);
	setup_n(test, f, 4);
	/* The fill read old data; the write completed before it published. */
	s = tier_mem_claim(&f->m, tier_vext(3), false, &f->h, &gen);
	CASE_TRUE(tier_mem_invalidate(&f->m, tier_vext(3), NULL));
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	/* A new fill (after the write) may start meanwhile, in another slot. */
	s2 = tier_mem_claim(&f->m, tier_vext(3), false, &f->h, &gen2);
	CASE_NE(s2, TIER_MEM_NONE);
	CASE_NE(s2, s);
	CASE_FALSE(tier_mem_publish(&f->m, s, gen, true, true));
	CASE_EQ(tier_mem_get(&f->m, tier_vext(3)), TIER_MEM_NONE);
	CASE_TRUE(tier_mem_publish(&f->m, s2, gen2, true, true));
	CASE_EQ(tier_mem_get(&f->m, tier_vext(3)), s2);
	tier_mem_put(&f->m, s2);
	CASE_EQ(f->m.fills, 1);
	CASE_EQ(f->m.nr_valid, 1);
	CASE_EQ(f->m.nr_free, 3);
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);

	/* A failed read publishes nothing and frees the slot. */
	s = tier_mem_claim(&f->m, tier_vext(4), false, &f->h, &gen);
	CASE_FALSE(tier_mem_publish(&f->m, s, gen, false, true));
	CASE_EQ(f->m.slot_of[4], TIER_MEM_NONE);
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

static void tier_mem_never_only_copy_test(CASE_CTX)
{
	struct fixture *f = case_zalloc(sizeof(*f));
	u32 s, gen;

	CASE_ASSERT_NOT_NULL(f);
	setup_n(test, f, 2);
	/* Discarded while filling: the home is unmapped at publish time. */
	s = tier_mem_claim(&f->m, tier_vext(9), false, &f->h, &gen);
	f->words[9] = 0;
	CASE_FALSE(tier_mem_publish(&f->m, s, gen, true, false));
	CASE_EQ(f->m.nr_valid, 0);
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	/* The check catches a copy whose home is gone. */
	fill(test, f, 9, false);
	CASE_EQ(tier_mem_check(&f->m, f->words), -EUCLEAN);
	CASE_TRUE(tier_mem_invalidate(&f->m, tier_vext(9), NULL));
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

static void tier_mem_eviction_coldest_first_test(CASE_CTX)
{
	struct fixture *f = case_zalloc(sizeof(*f));
	u32 gen, s;

	CASE_ASSERT_NOT_NULL(f);
	setup_n(test, f, 3);
	/* Extent 10 hot, 11 cold but recent, 12 cold and oldest. */
	fx_heat(f, 10, 8);
	fx_atime(f, 10, 990);
	fx_heat(f, 11, 1);
	fx_atime(f, 11, 999);
	fx_heat(f, 12, 1);
	fx_atime(f, 12, 900);
	fill(test, f, 10, false);
	fill(test, f, 11, false);
	fill(test, f, 12, false);
	CASE_EQ(f->m.nr_free, 0);
	s = tier_mem_claim(&f->m, tier_vext(13), false, &f->h, &gen);
	CASE_NE(s, TIER_MEM_NONE);
	CASE_EQ(f->m.evictions, 1);
	CASE_EQ(f->m.slot_of[12], TIER_MEM_NONE);
	CASE_NE(f->m.slot_of[11], TIER_MEM_NONE);
	CASE_TRUE(tier_mem_publish(&f->m, s, gen, true, true));
	/* Heat decays: 10 untouched for 10 windows is now the coldest. */
	f->h.now = 990 + 60 * 10;
	fx_heat(f, 11, 2);
	fx_atime(f, 11, f->h.now);
	fx_heat(f, 13, 2);
	fx_atime(f, 13, f->h.now);
	s = tier_mem_claim(&f->m, tier_vext(14), false, &f->h, &gen);
	CASE_NE(s, TIER_MEM_NONE);
	CASE_EQ(f->m.slot_of[10], TIER_MEM_NONE);
	CASE_EQ(f->m.evictions, 2);
	CASE_TRUE(tier_mem_publish(&f->m, s, gen, true, true));
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

static void tier_mem_resident_never_evicted_test(CASE_CTX)
{
	struct fixture *f = case_zalloc(sizeof(*f));
	void *frame;
	u32 gen;

	CASE_ASSERT_NOT_NULL(f);
	setup_n(test, f, 2);
	fx_heat(f, 20, 0); /* coldest, but resident */
	fx_heat(f, 21, 5);
	fill(test, f, 20, true);
	fill(test, f, 21, false);
	CASE_EQ(f->m.nr_resident, 1);
	/* Eviction takes 21, the only one it may take. */
	fill(test, f, 22, false);
	CASE_EQ(f->m.slot_of[21], TIER_MEM_NONE);
	CASE_NE(f->m.slot_of[20], TIER_MEM_NONE);
	/* Full of residents: nothing can be claimed or shrunk away. */
	tier_mem_set_resident(&f->m, tier_vext(22), true);
	CASE_EQ(f->m.nr_resident, 2);
	CASE_EQ(claim(f, 23, &gen), TIER_MEM_NONE);
	CASE_EQ(tier_mem_remove_one(&f->m, &f->h, &frame), TIER_MEM_NONE);
	/* Unpinned: evictable again. */
	tier_mem_set_resident(&f->m, tier_vext(22), false);
	CASE_EQ(f->m.nr_resident, 1);
	CASE_NE(claim(f, 23, &gen), TIER_MEM_NONE);
	CASE_EQ(f->m.slot_of[22], TIER_MEM_NONE);
	/* A write drops a resident copy too, and says so (refill). */
	{
		bool res, dropped;

		dropped = tier_mem_invalidate(&f->m, tier_vext(20), &res);
		CASE_TRUE(dropped);
		CASE_TRUE(res);
	}
	CASE_EQ(f->m.nr_resident, 0);
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

/*
 * Readers never wait for the locked side and hold pages across it: a copy
 * in use is neither evicted nor reused, and the last reader of a dropped
 * copy leaves it without taking any lock, for a claim (or tier_mem_reap())
 * to free.
 */
static void tier_mem_reader_holds_pages_test(CASE_CTX)
{
	struct fixture *f = case_zalloc(sizeof(*f));
	u32 s, a, b, gen;

	CASE_ASSERT_NOT_NULL(f);
	setup_n(test, f, 1);
	s = fill(test, f, 30, false);
	a = tier_mem_get(&f->m, tier_vext(30));
	b = tier_mem_get(&f->m, tier_vext(30));
	CASE_EQ(a, s);
	CASE_EQ(b, s);
	CASE_EQ(atomic_read(&tier_mem_slot(&f->m, s)->ref), TIER_MEM_OPEN | 2);
	/* Busy copies are not evicted. */
	CASE_EQ(tier_mem_victim(&f->m, &f->h), TIER_MEM_NONE);
	CASE_EQ(claim(f, 31, &gen), TIER_MEM_NONE);
	tier_mem_put(&f->m, a);
	/* Still read by one: a write drops it, the pages stay until put. */
	CASE_TRUE(tier_mem_invalidate(&f->m, tier_vext(30), NULL));
	CASE_EQ(tier_mem_slot(&f->m, s)->state, TIER_MEM_DEAD);
	CASE_EQ(f->m.nr_free, 0);
	CASE_EQ(f->m.nr_dead, 1);
	CASE_EQ(tier_mem_reap(&f->m), 0);
	CASE_EQ(claim(f, 31, &gen), TIER_MEM_NONE);
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	/* The reader leaves without the lock; a later claim reaps the slot. */
	tier_mem_put(&f->m, b);
	CASE_EQ(tier_mem_slot(&f->m, s)->state, TIER_MEM_DEAD);
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	CASE_EQ(claim(f, 31, &gen), s);
	CASE_EQ(f->m.nr_dead, 0);
	CASE_EQ(f->m.evictions, 0);
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	/* Or tier_mem_reap(), once the last reader of a dropped copy left. */
	CASE_TRUE(tier_mem_publish(&f->m, s, gen, true, true));
	a = tier_mem_get(&f->m, tier_vext(31));
	CASE_EQ(a, s);
	CASE_TRUE(tier_mem_invalidate(&f->m, tier_vext(31), NULL));
	tier_mem_put(&f->m, a);
	CASE_EQ(tier_mem_reap(&f->m), 1);
	CASE_EQ(f->m.nr_dead, 0);
	CASE_EQ(f->m.nr_free, 1);
	CASE_EQ(claim(f, 32, &gen), s);
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

/*
 * A lockless reader reads slot_of, then stalls; meanwhile a write drops
 * the copy and the slot is given to another extent. Its reference must
 * not let it copy the other extent's data.
 */
static void tier_mem_stale_lookup_test(CASE_CTX)
{
	struct fixture *f = case_zalloc(sizeof(*f));
	u32 s, looked, gen;

	CASE_ASSERT_NOT_NULL(f);
	setup_n(test, f, 1);
	s = fill(test, f, 10, false);
	looked = f->m.slot_of[10];
	CASE_EQ(looked, s);
	CASE_TRUE(tier_mem_invalidate(&f->m, tier_vext(10), NULL));
	/* Dropped, not refilled yet: closed to readers. */
	CASE_EQ(tier_mem_get_slot(&f->m, looked, tier_vext(10)), TIER_MEM_NONE);
	/* Claimed for extent 11 (same slot): closed while it fills. */
	CASE_EQ(claim(f, 11, &gen), s);
	CASE_EQ(tier_mem_get_slot(&f->m, looked, tier_vext(10)), TIER_MEM_NONE);
	CASE_TRUE(tier_mem_publish(&f->m, s, gen, true, true));
	/* Open again, but for 11: the reader of 10 lets go. */
	CASE_EQ(tier_mem_get_slot(&f->m, looked, tier_vext(10)), TIER_MEM_NONE);
	CASE_EQ(atomic_read(&tier_mem_slot(&f->m, s)->ref), TIER_MEM_OPEN);
	CASE_EQ(tier_mem_get(&f->m, tier_vext(11)), s);
	tier_mem_put(&f->m, s);
	CASE_EQ(tier_mem_get_slot(&f->m, TIER_MEM_NONE, tier_vext(11)),
		TIER_MEM_NONE);
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

static void tier_mem_promote_due_test(CASE_CTX)
{
	struct fixture *f = case_zalloc(sizeof(*f));

	CASE_ASSERT_NOT_NULL(f);
	setup_n(test, f, 2);
	CASE_FALSE(tier_mem_promote_due(&f->m, tier_vext(1), 1, 2));
	CASE_TRUE(tier_mem_promote_due(&f->m, tier_vext(1), 2, 2));
	CASE_TRUE(tier_mem_promote_due(&f->m, tier_vext(1), 9, 2));
	fill(test, f, 1, false);
	CASE_FALSE(tier_mem_promote_due(&f->m, tier_vext(1), 9, 2));
	tier_mem_destroy(&f->m);
}

static void tier_mem_resize_test(CASE_CTX)
{
	struct fixture *f = case_zalloc(sizeof(*f));
	void *frame;
	u32 s;

	CASE_ASSERT_NOT_NULL(f);
	setup_n(test, f, 3);
	fx_heat(f, 40, 9);
	fx_heat(f, 41, 1);
	fill(test, f, 40, false);
	fill(test, f, 41, false);
	/* Shrinking takes a free slot first, then the coldest copy. */
	s = tier_mem_remove_one(&f->m, &f->h, &frame);
	CASE_NE(s, TIER_MEM_NONE);
	CASE_EQ(f->m.nr_valid, 2);
	CASE_EQ(f->m.nr_present, 2);
	s = tier_mem_remove_one(&f->m, &f->h, &frame);
	CASE_NE(s, TIER_MEM_NONE);
	CASE_EQ(f->m.slot_of[41], TIER_MEM_NONE);
	CASE_NE(f->m.slot_of[40], TIER_MEM_NONE);
	CASE_EQ(f->m.evictions, 1);
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	/* Growing: absent slots first, then a bigger array. */
	s = tier_mem_first_absent(&f->m);
	CASE_NE(s, TIER_MEM_NONE);
	CASE_EQ(tier_mem_add(&f->m, s, &f->frames[8]), 0);
	CASE_EQ(tier_mem_add(&f->m, s, &f->frames[8]), -EINVAL);
	CASE_EQ(tier_mem_chunks_needed(&f->m, 2), -EINVAL);
	CASE_EQ(tier_mem_chunks_needed(&f->m, NR_EXT + 1), -EINVAL);
	CASE_EQ(tier_mem_chunks_needed(&f->m, 5), 0);
	tier_mem_extend(&f->m, 5, NULL);
	while ((s = tier_mem_first_absent(&f->m)) != TIER_MEM_NONE)
		CASE_EQ(tier_mem_add(&f->m, s, &f->frames[s + 8]), 0);
	CASE_EQ(f->m.nr_present, 5);
	CASE_NE(tier_mem_get(&f->m, tier_vext(40)), TIER_MEM_NONE);
	tier_mem_put(&f->m, f->m.slot_of[40]);
	CASE_EQ(tier_mem_check(&f->m, f->words), 0);
	tier_mem_destroy(&f->m);
}

/*
 * Slot visits of tier_mem_first_absent() while @n ABSENT slots get their
 * frames one at a time, as tier_mem_grow() adds them; stops early once
 * above @budget (a search from slot 0 for every frame would take minutes
 * at 2^18).
 */
static u64 grow_visits(CASE_CTX, u32 n, u64 budget)
{
	static char frame;
	struct tier_mem m;
	u64 visits;
	u32 i, s;

	CASE_ASSERT_EQ(tier_mem_init(&m, 1, n, 2 * n), 0);
	for (i = 0; i < n && m.absent_visits <= budget; i++) {
		s = tier_mem_first_absent(&m);
		CASE_ASSERT_EQ(s, i);
		CASE_ASSERT_EQ(tier_mem_add(&m, s, &frame), 0);
		if (!(i & 4095))
			case_yield();
	}
	if (i == n) {
		CASE_EQ(tier_mem_first_absent(&m), TIER_MEM_NONE);
		CASE_EQ(m.nr_present, n);
		CASE_EQ(tier_mem_check(&m, NULL), 0);
	}
	visits = m.absent_visits;
	tier_mem_destroy(&m);
	return visits;
}

/* Creating or growing the tier costs linear time in the frames added. */
static void tier_mem_grow_linear_test(CASE_CTX)
{
	u64 small, big;

	small = grow_visits(test, 1U << 16, U64_MAX);
	big = grow_visits(test, 1U << 18, 5 * small);
	CASE_INFO("adding 2^16 frames: %llu slot visits; 2^18: %llu%s",
		  (unsigned long long)small, (unsigned long long)big,
		  big > 5 * small ? " (gave up)" : "");
	CASE_GE(small, 1ULL << 16);
	CASE_LE(big, 5 * small);
}

/* Shrinking leaves holes; growing again fills them, then the new slots. */
static void tier_mem_grow_after_shrink_test(CASE_CTX)
{
	const u32 n = 1U << 16;
	struct tier_mem_slot **chunks, *first;
	struct tier_mem_heat h = {};
	static char frame;
	struct tier_mem m;
	u64 before;
	void *fr;
	u32 i, s;
	int k;

	CASE_ASSERT_EQ(tier_mem_init(&m, 1, n, 2 * n), 0);
	while ((s = tier_mem_first_absent(&m)) != TIER_MEM_NONE)
		CASE_ASSERT_EQ(tier_mem_add(&m, s, &frame), 0);
	for (i = 0; i < n / 2; i++)
		CASE_ASSERT_NE(tier_mem_remove_one(&m, &h, &fr), TIER_MEM_NONE);
	CASE_EQ(m.nr_present, n / 2);
	/* The new slots come in new chunks; the old ones stay where they are. */
	k = tier_mem_chunks_needed(&m, 2 * n);
	CASE_ASSERT_EQ(k, (int)(n / TIER_MEM_CHUNK));
	chunks = tier_mem_chunks_alloc(k);
	CASE_ASSERT_NOT_NULL(chunks);
	first = tier_mem_slot(&m, 0);
	tier_mem_extend(&m, 2 * n, chunks);
	tier_free_array(chunks);
	CASE_PTR_EQ(tier_mem_slot(&m, 0), first);
	CASE_EQ(m.nr_slots, 2 * n);
	before = m.absent_visits;
	for (i = 0; i < n + n / 2; i++) {
		s = tier_mem_first_absent(&m);
		CASE_ASSERT_NE(s, TIER_MEM_NONE);
		CASE_ASSERT_EQ(tier_mem_add(&m, s, &frame), 0);
		if (m.absent_visits - before > 16ULL * n)
			break;
	}
	CASE_LE_MSG(m.absent_visits - before, 16ULL * n,
		    "quadratic: gave up after %u frames", i);
	if (i == n + n / 2) {
		CASE_EQ(tier_mem_first_absent(&m), TIER_MEM_NONE);
		CASE_EQ(m.nr_present, 2 * n);
		CASE_EQ(tier_mem_check(&m, NULL), 0);
	}
	tier_mem_destroy(&m);
}

/*
 * A table of @n slots, each holding a copy of one of extents 0..n-1 (heat
 * 5, accessed now); @words has room for @n + @more extents, all mapped.
 */
static u64 *full_table(CASE_CTX, struct tier_mem *m, struct tier_mem_heat *h,
		       u32 n, u32 more)
{
	static char frame;
	u32 s, gen;
	u64 *words, v;

	words = tier_zalloc_array(n + more, sizeof(*words));
	if (!words)
		return NULL;
	h->words = words;
	h->now = 1000;
	h->window = 60;
	for (v = 0; v < n + more; v++)
		words[v] = tier_mw_with_access(MAPPED(v), 5, h->now, h->now);
	if (tier_mem_init(m, n + more, n, n)) {
		tier_free_array(words);
		return NULL;
	}
	for (s = 0; s < n; s++)
		CASE_EQ(tier_mem_add(m, s, &frame), 0);
	for (v = 0; v < n; v++) {
		s = tier_mem_claim(m, tier_vext(v), false, h, &gen);
		CASE_NE(s, TIER_MEM_NONE);
		CASE_TRUE(tier_mem_publish(m, s, gen, true, true));
		if (!(v & 4095))
			case_yield();
	}
	CASE_EQ(m->nr_free, 0);
	return words;
}

/*
 * An eviction compares a sample of copies, not every one: under the lock
 * with interrupts off, a scan of 2^16 slots per fill is what this replaced.
 */
static void tier_mem_victim_bounded_test(CASE_CTX)
{
	const u32 n = 1U << 16, claims = 1024;
	struct tier_mem_heat h;
	struct tier_mem m;
	u32 i, s, gen;
	u64 *words;

	words = full_table(test, &m, &h, n, claims);
	CASE_ASSERT_NOT_NULL(words);
	for (i = 0; i < claims; i++) {
		s = tier_mem_claim(&m, tier_vext(n + i), false, &h, &gen);
		CASE_ASSERT_NE(s, TIER_MEM_NONE);
		CASE_TRUE(tier_mem_publish(&m, s, gen, true, true));
	}
	CASE_INFO("%u evictions among 2^16 copies: %llu slot visits", claims,
		  (unsigned long long)m.victim_visits);
	CASE_EQ(m.evictions, claims);
	CASE_LE(m.victim_visits, (u64)claims * TIER_MEM_VICTIM_SAMPLE);
	CASE_EQ(tier_mem_check(&m, words), 0);
	tier_mem_destroy(&m);
	tier_free_array(words);
}

/*
 * Sampled CLOCK: the first eviction takes the coldest of the first sample
 * (slots 0..31), not the coldest of all; the coldest of all goes within
 * one turn of the hand.
 */
static void tier_mem_victim_sampled_test(CASE_CTX)
{
	const u32 n = 8 * TIER_MEM_VICTIM_SAMPLE;
	struct tier_mem_heat h;
	struct tier_mem m;
	u64 *words, coolish, coldest;
	u32 i, s, gen;

	words = full_table(test, &m, &h, n, n);
	CASE_ASSERT_NOT_NULL(words);
	coolish = tier_mem_slot(&m, 7)->vext;
	coldest = tier_mem_slot(&m, 200)->vext;
	words[coolish] = tier_mw_with_access(words[coolish], 1, h.now, h.now);
	words[coldest] = tier_mw_with_access(words[coldest], 0, 500, h.now);
	s = tier_mem_claim(&m, tier_vext(n), false, &h, &gen);
	CASE_ASSERT_NE(s, TIER_MEM_NONE);
	CASE_TRUE(tier_mem_publish(&m, s, gen, true, true));
	CASE_EQ(m.slot_of[coolish], TIER_MEM_NONE);
	CASE_NE(m.slot_of[coldest], TIER_MEM_NONE);
	for (i = 1; i < n / TIER_MEM_VICTIM_SAMPLE; i++) {
		s = tier_mem_claim(&m, tier_vext(n + i), false, &h, &gen);
		CASE_ASSERT_NE(s, TIER_MEM_NONE);
		CASE_TRUE(tier_mem_publish(&m, s, gen, true, true));
	}
	CASE_EQ(m.slot_of[coldest], TIER_MEM_NONE);
	CASE_EQ(m.evictions, n / TIER_MEM_VICTIM_SAMPLE);
	CASE_EQ(tier_mem_check(&m, words), 0);
	tier_mem_destroy(&m);
	tier_free_array(words);
}

static void tier_mem_init_and_sizes_test(CASE_CTX)
{
	struct tier_mem m;

	CASE_EQ(tier_mem_init(&m, 0, 4, 4), -EINVAL);
	CASE_EQ(tier_mem_init(&m, 4, 0, 4), -EINVAL);
	if (CASE_FAULT_INJECTION) {
		case_fail_alloc(1);
		CASE_EQ(tier_mem_init(&m, 4, 4, 4), -ENOMEM);
		case_fail_alloc(0);
	}
	/* 1 MiB extents (2048 sectors, shift 11). */
	CASE_EQ(tier_mem_slots_for(4096, 11), 4096);
	CASE_EQ(tier_mem_slots_for(1, 11), 1);
	/* 64 MiB extents: 1 MiB holds none. */
	CASE_EQ(tier_mem_slots_for(1, 17), 0);
	CASE_EQ(tier_mem_slots_for(TIER_MEM_SIZE_MB_MAX, 7),
		TIER_MEM_SIZE_MB_MAX * 16U);
}

static struct case_entry memtier_cases[] = {
	CASE_RUN(tier_mem_fill_and_read_test),
	CASE_RUN(tier_mem_write_invalidates_test),
	CASE_RUN(tier_mem_fill_racing_write_test),
	CASE_RUN(tier_mem_never_only_copy_test),
	CASE_RUN(tier_mem_eviction_coldest_first_test),
	CASE_RUN(tier_mem_resident_never_evicted_test),
	CASE_RUN(tier_mem_reader_holds_pages_test),
	CASE_RUN(tier_mem_stale_lookup_test),
	CASE_RUN(tier_mem_promote_due_test),
	CASE_RUN(tier_mem_resize_test),
	CASE_RUN(tier_mem_init_and_sizes_test),
	CASE_RUN(tier_mem_grow_linear_test),
	CASE_RUN(tier_mem_grow_after_shrink_test),
	CASE_RUN(tier_mem_victim_bounded_test),
	CASE_RUN(tier_mem_victim_sampled_test),
	{}
};
