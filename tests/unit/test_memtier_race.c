// SPDX-License-Identifier: GPL-2.0
/*
 * The memory tier's lockless readers (kernel/core/memtier.c) against its
 * locked side, from several threads. Readers look extents up, take a
 * reference, check that the frame holds the extent they asked for before
 * and after a pause (as a copy out of it would), and put the reference. A
 * writer, under a mutex as the module's spinlock, fills copies (claims
 * that evict when the table is full), drops them as writes would, and
 * takes slots' pages away and gives them back (shrink and grow). A fill
 * stamps its frame with its extent; the protocol lets no claim reuse a
 * frame that a reader holds, so a reader that sees another stamp, or a
 * table that fails tier_mem_check(), fails the test.
 * unit-ldflags: -pthread
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>

#include "format.h"
#include "extent_map.h"
#include "policy.h"
#include "memtier.h"

#define NR_EXT 48
#define NR_SLOTS 8
#define NR_READERS 3
#define WRITER_OPS 300000
#define MAPPED(v) (TIER_MW_MAPPED | TIER_MW_ACCESS_NONE | (v))

/* A slot's pages: the extent whose data they hold. */
struct frame {
	u64 stamp;
};

static struct {
	struct tier_mem m;
	struct tier_mem_heat h;
	u64 words[NR_EXT];
	struct frame frames[NR_SLOTS];
	pthread_mutex_t lock;
	int stop;
	u64 hits, misses, wrong;
	u64 fills, drops, shrinks, dead_seen;
} race;

static u32 rnd(u64 *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (u32)(*state >> 33);
}

static void *reader(void *arg)
{
	u64 seed = (uintptr_t)arg, hits = 0, misses = 0, wrong = 0;
	struct frame *f;
	u64 a, b;
	u32 v, s, k;

	while (!__atomic_load_n(&race.stop, __ATOMIC_RELAXED)) {
		v = rnd(&seed) % NR_EXT;
		s = tier_mem_get(&race.m, tier_vext(v));
		if (s == TIER_MEM_NONE) {
			misses++;
			continue;
		}
		f = tier_mem_frame(&race.m, s);
		a = __atomic_load_n(&f->stamp, __ATOMIC_RELAXED);
		for (k = 0; k < 64; k++)
			__asm__ __volatile__("" ::: "memory");
		if (!(hits & 255))
			sched_yield();
		b = __atomic_load_n(&f->stamp, __ATOMIC_RELAXED);
		if (a != v || b != v)
			wrong++;
		tier_mem_put(&race.m, s);
		hits++;
	}
	__atomic_add_fetch(&race.hits, hits, __ATOMIC_RELAXED);
	__atomic_add_fetch(&race.misses, misses, __ATOMIC_RELAXED);
	__atomic_add_fetch(&race.wrong, wrong, __ATOMIC_RELAXED);
	return NULL;
}

/* One locked operation: a fill, a write's drop, or a shrink and grow. */
static void writer_op(u64 *seed)
{
	u32 op = rnd(seed) % 10, v = rnd(seed) % NR_EXT, s, gen;
	void *frame;

	pthread_mutex_lock(&race.lock);
	if (op < 6) {
		s = tier_mem_claim(&race.m, tier_vext(v), false, &race.h, &gen);
		if (s != TIER_MEM_NONE) {
			/* The fill's read of the home: only the claimer writes. */
			__atomic_store_n(&((struct frame *)tier_mem_frame(&race.m, s))->stamp,
					 (u64)v, __ATOMIC_RELAXED);
			if (tier_mem_publish(&race.m, s, gen, true, true))
				race.fills++;
		}
	} else if (op < 9) {
		if (tier_mem_invalidate(&race.m, tier_vext(v), NULL))
			race.drops++;
	} else {
		s = tier_mem_remove_one(&race.m, &race.h, &frame);
		if (s != TIER_MEM_NONE) {
			/* Poisoned while away: no reader may hold it now. */
			__atomic_store_n(&((struct frame *)frame)->stamp, U64_MAX,
					 __ATOMIC_RELAXED);
			s = tier_mem_first_absent(&race.m);
			assert_int_not_equal(s, TIER_MEM_NONE);
			assert_int_equal(tier_mem_add(&race.m, s, frame), 0);
			race.shrinks++;
		}
	}
	race.dead_seen += race.m.nr_dead != 0;
	pthread_mutex_unlock(&race.lock);
}

static void lockless_readers_test(void **state)
{
	pthread_t readers[NR_READERS];
	u64 seed = 42;
	u32 i, s;

	(void)state;
	memset(&race, 0, sizeof(race));
	pthread_mutex_init(&race.lock, NULL);
	assert_int_equal(tier_mem_init(&race.m, NR_EXT, NR_SLOTS, NR_SLOTS), 0);
	for (s = 0; s < NR_SLOTS; s++)
		assert_int_equal(tier_mem_add(&race.m, s, &race.frames[s]), 0);
	for (i = 0; i < NR_EXT; i++)
		race.words[i] = MAPPED(i);
	race.h.words = race.words;
	race.h.now = 1000;
	race.h.window = 60;

	for (i = 0; i < NR_READERS; i++)
		assert_int_equal(pthread_create(&readers[i], NULL, reader,
						(void *)(uintptr_t)(i + 1)),
				 0);
	for (i = 0; i < WRITER_OPS; i++) {
		writer_op(&seed);
		if (!(i % 4096)) {
			pthread_mutex_lock(&race.lock);
			assert_int_equal(tier_mem_check(&race.m, race.words), 0);
			pthread_mutex_unlock(&race.lock);
		}
	}
	__atomic_store_n(&race.stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < NR_READERS; i++)
		pthread_join(readers[i], NULL);

	print_message("%llu hits, %llu misses, %llu wrong; %llu fills, %llu drops, "
		      "%llu shrinks; a dropped copy was still read after %llu ops\n",
		      (unsigned long long)race.hits,
		      (unsigned long long)race.misses,
		      (unsigned long long)race.wrong,
		      (unsigned long long)race.fills,
		      (unsigned long long)race.drops,
		      (unsigned long long)race.shrinks,
		      (unsigned long long)race.dead_seen);
	assert_int_equal(race.wrong, 0);
	/* The run raced: readers hit copies, writes dropped copies in use. */
	assert_true(race.hits > 1000);
	assert_true(race.fills > 1000 && race.drops > 1000);
	/* Every reader is gone: every DEAD slot can be reaped. */
	tier_mem_reap(&race.m);
	assert_int_equal(race.m.nr_dead, 0);
	assert_int_equal(tier_mem_check(&race.m, race.words), 0);
	tier_mem_destroy(&race.m);
	pthread_mutex_destroy(&race.lock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lockless_readers_test),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
