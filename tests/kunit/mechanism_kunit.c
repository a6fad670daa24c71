// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite dm_tier_mechanism: kernel-side helpers of the pool layer
 * (kernel/dm-tier-pool.[ch]) and the metadata layer (kernel/dm-tier-metadata.c)
 * that need no device: the metadata mode state machine, the dirty test of
 * the FUA fast path, commits refused in fail mode and on a read-only
 * activation, and the map switch and heat persistence that migration and
 * commits rely on. The I/O paths are exercised by the VM tests.
 */
#include <kunit/test.h>

#include "dm-tier-pool.h"

static struct tier_pool *fake_pool(struct kunit *test)
{
	struct tier_pool *pool = kunit_kzalloc(test, sizeof(*pool), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pool);
	spin_lock_init(&pool->lock);
	mutex_init(&pool->md_lock);
	strscpy(pool->tier_name[0], "kunit", BDEVNAME_SIZE);
	return pool;
}

static void mode_names_test(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, tier_mode_name(TIER_MODE_WRITE), "rw");
	KUNIT_EXPECT_STREQ(test, tier_mode_name(TIER_MODE_READ_ONLY), "ro");
	KUNIT_EXPECT_STREQ(test, tier_mode_name(TIER_MODE_FAIL), "fail");
}

/* rw -> ro -> rw (a retried commit succeeded); fail is never left. */
static void mode_transitions_test(struct kunit *test)
{
	struct tier_pool *pool = fake_pool(test);

	KUNIT_EXPECT_EQ(test, pool->mode, TIER_MODE_WRITE);
	tier_set_mode(pool, TIER_MODE_READ_ONLY, "kunit: first failure");
	KUNIT_EXPECT_EQ(test, pool->mode, TIER_MODE_READ_ONLY);
	tier_set_mode(pool, TIER_MODE_WRITE, "kunit: retried commit");
	KUNIT_EXPECT_EQ(test, pool->mode, TIER_MODE_WRITE);
	tier_set_mode(pool, TIER_MODE_READ_ONLY, "kunit: failure again");
	tier_set_mode(pool, TIER_MODE_FAIL, "kunit: repeated failures");
	KUNIT_EXPECT_EQ(test, pool->mode, TIER_MODE_FAIL);
	tier_set_mode(pool, TIER_MODE_READ_ONLY, "kunit: must not leave fail");
	KUNIT_EXPECT_EQ(test, pool->mode, TIER_MODE_FAIL);
	tier_set_mode(pool, TIER_MODE_WRITE, "kunit: must not leave fail");
	KUNIT_EXPECT_EQ(test, pool->mode, TIER_MODE_FAIL);
}

/*
 * Tier health from I/O results: a medium error degrades, a run of them or
 * a path error takes a data tier offline, a success restarts the run; the
 * metadata tier stops at degraded.
 */
static void tier_health_io_test(struct kunit *test)
{
	struct tier_pool *pool = fake_pool(test);
	u32 i;

	pool->nr_tiers = 3;
	tier_note_io_error(pool, 1, BLK_STS_IOERR);
	KUNIT_EXPECT_EQ(test, tier_health_of(pool, 1), TIER_HEALTH_DEGRADED);
	for (i = 0; i < TIER_OFFLINE_ERRORS - 2; i++)
		tier_note_io_error(pool, 1, BLK_STS_IOERR);
	tier_note_io_ok(pool, 1);
	tier_note_io_error(pool, 1, BLK_STS_IOERR);
	KUNIT_EXPECT_EQ(test, tier_health_of(pool, 1), TIER_HEALTH_DEGRADED);
	KUNIT_EXPECT_EQ(test, tier_pool_offline_mask(pool), 0U);
	for (i = 0; i < TIER_OFFLINE_ERRORS; i++)
		tier_note_io_error(pool, 1, BLK_STS_IOERR);
	KUNIT_EXPECT_TRUE(test, tier_offline(pool, 1));
	KUNIT_EXPECT_EQ(test, atomic64_read(&pool->io_errors[1]),
			(s64)(2 * TIER_OFFLINE_ERRORS));

	tier_note_io_error(pool, 2, BLK_STS_TRANSPORT);
	KUNIT_EXPECT_TRUE(test, tier_offline(pool, 2));
	KUNIT_EXPECT_EQ(test, tier_pool_offline_mask(pool),
			(u32)(BIT(1) | BIT(2)));
	tier_note_io_error(pool, 0, BLK_STS_OFFLINE);
	KUNIT_EXPECT_EQ(test, tier_health_of(pool, 0), TIER_HEALTH_DEGRADED);
	KUNIT_EXPECT_EQ(test, tier_note_tier_event(pool, 2, TIER_HEV_RECOVERED),
			TIER_HEALTH_OFFLINE);
	KUNIT_EXPECT_EQ(test, tier_health_of(pool, 2), TIER_HEALTH_OK);
}

/*
 * An offline tier cannot be flushed: tier_pool_flush_tiers() reports it
 * without any I/O (the fake pool has no devices) and keeps it written, so
 * the jobs waiting for it fail. Offline tiers take no new extents.
 */
static void offline_tier_unflushable_test(struct kunit *test)
{
	struct tier_pool *pool = fake_pool(test);

	pool->nr_tiers = 2;
	tier_note_io_error(pool, 1, BLK_STS_TRANSPORT);
	tier_mark_written(pool, 1);
	mutex_lock(&pool->md_lock);
	KUNIT_EXPECT_EQ(test, tier_pool_flush_tiers(pool, BIT(1)), BIT(1));
	/* Not written, nothing to flush: no I/O either. */
	KUNIT_EXPECT_EQ(test, tier_pool_flush_tiers(pool, BIT(0)), 0UL);
	mutex_unlock(&pool->md_lock);
	KUNIT_EXPECT_TRUE(test, test_bit(1, &pool->flush_dirty));

	KUNIT_ASSERT_EQ(test, tier_alloc_init(&pool->alloc[0], 4), 0);
	KUNIT_ASSERT_EQ(test, tier_alloc_init(&pool->alloc[1], 4), 0);
	spin_lock_irq(&pool->lock);
	tier_pool_sync_noalloc(pool);
	spin_unlock_irq(&pool->lock);
	KUNIT_EXPECT_TRUE(test, pool->alloc[1].flags & TIER_ALLOC_F_NOALLOC);
	KUNIT_EXPECT_FALSE(test, pool->alloc[0].flags & TIER_ALLOC_F_NOALLOC);
	tier_note_tier_event(pool, 1, TIER_HEV_RECOVERED);
	spin_lock_irq(&pool->lock);
	tier_pool_sync_noalloc(pool);
	spin_unlock_irq(&pool->lock);
	KUNIT_EXPECT_FALSE(test, pool->alloc[1].flags & TIER_ALLOC_F_NOALLOC);
	tier_alloc_destroy(&pool->alloc[0]);
	tier_alloc_destroy(&pool->alloc[1]);
}

/* Dirty exactly while changes are counted that no commit captured. */
static void map_dirty_test(struct kunit *test)
{
	struct tier_pool *pool = fake_pool(test);

	KUNIT_EXPECT_FALSE(test, tier_map_dirty(pool));
	pool->change_seq = 3;
	KUNIT_EXPECT_TRUE(test, tier_map_dirty(pool));
	/* A commit that captured 2 leaves the third change dirty. */
	pool->durable_seq = 2;
	KUNIT_EXPECT_TRUE(test, tier_map_dirty(pool));
	pool->durable_seq = 3;
	KUNIT_EXPECT_FALSE(test, tier_map_dirty(pool));
}

/*
 * In fail mode a commit returns -EIO before touching anything: the fake
 * pool has no devices, so any I/O attempt would crash the test.
 */
static void commit_refused_in_fail_mode_test(struct kunit *test)
{
	struct tier_pool *pool = fake_pool(test);

	pool->mode = TIER_MODE_FAIL;
	pool->change_seq = 1;
	mutex_lock(&pool->md_lock);
	KUNIT_EXPECT_EQ(test, tier_pool_commit(pool), -EIO);
	mutex_unlock(&pool->md_lock);
	KUNIT_EXPECT_TRUE(test, tier_map_dirty(pool));
	KUNIT_EXPECT_EQ(test, pool->commits, 0ULL);
}

/*
 * Activated read-only: a commit returns -EROFS before touching anything
 * (no device here either), with map changes and heat due, and leaves the
 * metadata mode alone: nothing failed.
 */
static void commit_refused_read_only_test(struct kunit *test)
{
	struct tier_pool *pool = fake_pool(test);

	pool->read_only = true;
	pool->change_seq = 1;
	pool->heat_dirty = true;
	pool->heat_flush = true;
	mutex_lock(&pool->md_lock);
	KUNIT_EXPECT_EQ(test, tier_pool_commit(pool), -EROFS);
	mutex_unlock(&pool->md_lock);
	KUNIT_EXPECT_TRUE(test, tier_map_dirty(pool));
	KUNIT_EXPECT_TRUE(test, pool->heat_flush);
	KUNIT_EXPECT_EQ(test, pool->commits, 0ULL);
	KUNIT_EXPECT_EQ(test, pool->mode, TIER_MODE_WRITE);
}

/* A pool with a map and two allocators, as tier_md_load() leaves it. */
static struct tier_pool *map_pool(struct kunit *test, u64 extents)
{
	struct tier_pool *pool = fake_pool(test);
	size_t bytes;
	u32 i;

	pool->nr_tiers = 2;
	pool->virt_extents = extents;
	bio_list_init(&pool->parked);
	bio_list_init(&pool->deferred);
	INIT_LIST_HEAD(&pool->done);
	hash_init(pool->busy_index);
	KUNIT_ASSERT_EQ(test,
			tier_map_init(&pool->map, extents, TIER_MAP_F_HEAT), 0);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, tier_alloc_init(&pool->alloc[i], 64), 0);
	bytes = BITS_TO_LONGS(pool->map.nr_blocks) * sizeof(long);
	pool->heat_touched = kunit_kzalloc(test, bytes, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pool->heat_touched);
	return pool;
}

static void map_pool_free(struct tier_pool *pool)
{
	tier_alloc_destroy(&pool->alloc[0]);
	tier_alloc_destroy(&pool->alloc[1]);
	tier_map_destroy(&pool->map);
}

/* Put @v on @tier at @pext, busy, with a job moving it to @to / @to_pext. */
static void start_move(struct kunit *test, struct tier_pool *pool,
		       struct tier_job *job, u64 v, u32 tier, u64 pext, u32 to,
		       u64 to_pext)
{
	struct tier_loc src = { .tier = tier,
				.flags = TIER_EXT_F_PINNED,
				.pext = tier_pext(pext) };

	struct tier_alloc *a_src = &pool->alloc[tier],
			  *a_dst = &pool->alloc[to];

	KUNIT_ASSERT_EQ(test, tier_alloc_mark_used(a_src, tier_pext(pext)), 0);
	KUNIT_ASSERT_EQ(test, tier_alloc_mark_used(a_dst, tier_pext(to_pext)),
			0);
	tier_map_set(&pool->map, tier_vext(v), &src);
	pool->mapped[tier]++;
	tier_map_set_busy(&pool->map, tier_vext(v), true);
	job->kind = TIER_JOB_MIGRATE;
	job->vext = tier_vext(v);
	job->src = src;
	job->loc.tier = to;
	job->loc.pext = tier_pext(to_pext);
	spin_lock_irq(&pool->lock);
	tier_job_start(pool, job);
	spin_unlock_irq(&pool->lock);
}

/*
 * Switching points the word at the copy (busy cleared, flags kept), counts
 * the change as not durable, frees the source only after a commit, and
 * releases the bios parked behind the move. A demoted extent's heat resets.
 */
static void switch_extent_test(struct kunit *test)
{
	struct tier_pool *pool = map_pool(test, 600);
	struct tier_job job = {}, job2 = {};
	struct bio bio = {};
	struct tier_loc loc;

	start_move(test, pool, &job, 300, 1, 5, 0, 9);
	pool->map.words[300] =
		tier_mw_with_access(pool->map.words[300], 40, 5, 10);
	bio_list_add(&pool->parked, &bio);

	spin_lock_irq(&pool->lock);
	tier_switch_extent(pool, &job);
	spin_unlock_irq(&pool->lock);

	KUNIT_EXPECT_FALSE(test, pool->map.words[300] & TIER_MW_BUSY);
	KUNIT_ASSERT_TRUE(test,
			  tier_map_lookup(&pool->map, tier_vext(300), &loc));
	KUNIT_EXPECT_EQ(test, loc.tier, 0);
	KUNIT_EXPECT_EQ(test, loc.pext.p, 9ULL);
	KUNIT_EXPECT_EQ(test, loc.flags, TIER_EXT_F_PINNED);
	KUNIT_EXPECT_TRUE(test, tier_map_dirty(pool));
	KUNIT_EXPECT_EQ(test, pool->mapped[0], 1ULL);
	KUNIT_EXPECT_EQ(test, pool->mapped[1], 0ULL);
	/* Promotion keeps the heat that earned it. */
	KUNIT_EXPECT_EQ(test, tier_mw_heat(pool->map.words[300]), 40);
	KUNIT_EXPECT_EQ(test, tier_mw_atime(pool->map.words[300], 10), 5U);
	/* The source waits for a commit: still used, pending. */
	KUNIT_EXPECT_EQ(test, pool->alloc[1].nr_used, 1ULL);
	KUNIT_EXPECT_EQ(test, pool->alloc[1].nr_pending, 1ULL);
	/* The job ended: out of the index. */
	KUNIT_EXPECT_EQ(test, pool->nr_busy, 0U);
	spin_lock_irq(&pool->lock);
	KUNIT_EXPECT_NULL(test, tier_job_find(pool, 300));
	spin_unlock_irq(&pool->lock);
	KUNIT_EXPECT_TRUE(test, bio_list_empty(&pool->parked));
	KUNIT_EXPECT_PTR_EQ(test, bio_list_peek(&pool->deferred), &bio);

	/* Demotion: heat starts again from zero. */
	start_move(test, pool, &job2, 7, 0, 1, 1, 2);
	pool->map.words[7] =
		tier_mw_with_access(pool->map.words[7], 1000, 5, 10);
	spin_lock_irq(&pool->lock);
	tier_switch_extent(pool, &job2);
	spin_unlock_irq(&pool->lock);
	KUNIT_EXPECT_EQ(test, tier_mw_heat(pool->map.words[7]), 0);
	KUNIT_EXPECT_EQ(test, tier_mw_atime(pool->map.words[7], 10), 5U);
	map_pool_free(pool);
}

/*
 * A pin or unpin that lands while the extent is being moved (busy) is what
 * the new mapping carries, not the flags the job captured when it started.
 */
static void switch_keeps_current_flags_test(struct kunit *test)
{
	struct tier_pool *pool = map_pool(test, 600);
	struct tier_job job = {};
	struct tier_loc loc;

	start_move(test, pool, &job, 42, 1, 5, 0, 9); /* src pinned */
	spin_lock_irq(&pool->lock);
	KUNIT_EXPECT_TRUE(test, tier_map_set_flags(&pool->map, tier_vext(42), 0,
						   TIER_EXT_F_PINNED));
	KUNIT_EXPECT_TRUE(test, pool->map.words[42] & TIER_MW_BUSY);
	tier_switch_extent(pool, &job);
	spin_unlock_irq(&pool->lock);
	KUNIT_ASSERT_TRUE(test,
			  tier_map_lookup(&pool->map, tier_vext(42), &loc));
	KUNIT_EXPECT_EQ(test, loc.tier, 0);
	KUNIT_EXPECT_EQ(test, loc.flags, 0);
	map_pool_free(pool);
}

/*
 * Heat changes reach the map's dirty bits only when due (or when the pool
 * suspends), so that reads do not multiply metadata writes.
 */
static void heat_capture_test(struct kunit *test)
{
	struct tier_pool *pool = map_pool(test, 600);

	pool->heat_commit_j = jiffies;
	set_bit(1, pool->heat_touched);
	pool->heat_dirty = true;
	tier_pool_heat_capture(pool);
	KUNIT_EXPECT_EQ(test, pool->map.nr_dirty[0], 0ULL);
	KUNIT_EXPECT_TRUE(test, test_bit(1, pool->heat_touched));

	pool->heat_flush = true;
	tier_pool_heat_capture(pool);
	KUNIT_EXPECT_EQ(test, pool->map.nr_dirty[0], 1ULL);
	KUNIT_EXPECT_EQ(test, pool->map.nr_dirty[1], 1ULL);
	KUNIT_EXPECT_TRUE(test, test_bit(1, pool->map.dirty[0]));
	KUNIT_EXPECT_FALSE(test, test_bit(1, pool->heat_touched));
	KUNIT_EXPECT_FALSE(test, pool->heat_dirty);
	KUNIT_EXPECT_FALSE(test, pool->heat_flush);

	/* Due after TIER_HEAT_COMMIT_S without a flush request. */
	set_bit(2, pool->heat_touched);
	pool->heat_dirty = true;
	pool->heat_commit_j = jiffies - (TIER_HEAT_COMMIT_S + 1) * HZ;
	KUNIT_EXPECT_TRUE(test, tier_pool_heat_due(pool));
	tier_pool_heat_capture(pool);
	KUNIT_EXPECT_TRUE(test, test_bit(2, pool->map.dirty[1]));
	KUNIT_EXPECT_FALSE(test, tier_pool_heat_due(pool));
	map_pool_free(pool);
}

/* map()'s access counting: heat goes up, atime follows the clock. */
static void heat_note_test(struct kunit *test)
{
	struct tier_pool *pool = map_pool(test, 600);
	struct tier_loc loc = { .tier = 0, .pext = { 3 } };
	u32 now;

	pool->cfg.promote_window = 60;
	pool->clock_base = 1000;
	pool->clock_j = jiffies;
	/* An unmapped extent has no heat (its word stays 0). */
	tier_heat_note(pool, tier_vext(261));
	KUNIT_EXPECT_EQ(test, pool->map.words[261], 0ULL);
	tier_map_set(&pool->map, tier_vext(260), &loc);
	tier_heat_note(pool, tier_vext(260));
	tier_heat_note(pool, tier_vext(260));
	KUNIT_EXPECT_EQ(test, tier_mw_heat(pool->map.words[260]), 2);
	now = tier_clock_now(pool);
	KUNIT_EXPECT_GE(test, tier_mw_atime(pool->map.words[260], now), 1000U);
	KUNIT_EXPECT_TRUE(test, test_bit(1, pool->heat_touched));
	KUNIT_EXPECT_TRUE(test, pool->heat_dirty);
	map_pool_free(pool);
}

static void offq_endio(struct bio *bio)
{
	int *ended = bio->bi_private;

	*ended = bio->bi_status == BLK_STS_IOERR ? 1 : -1;
}

/*
 * Teardown fails what the offline queue still holds with EIO and closes
 * it, so nothing can be parked after the pool goes.
 */
static void offq_fail_all_test(struct kunit *test)
{
	struct tier_pool *pool = fake_pool(test);
	struct bio a, b;
	int ended_a = 0, ended_b = 0;

	bio_list_init(&pool->offq);
	KUNIT_EXPECT_EQ(test, tier_pool_offq_fail_all(pool), 0U);
	KUNIT_EXPECT_TRUE(test, pool->offq_closed);
	pool->offq_closed = false;
	bio_init(&a, NULL, NULL, 0, REQ_OP_WRITE);
	bio_init(&b, NULL, NULL, 0, REQ_OP_WRITE);
	a.bi_end_io = offq_endio;
	a.bi_private = &ended_a;
	b.bi_end_io = offq_endio;
	b.bi_private = &ended_b;
	bio_list_add(&pool->offq, &a);
	bio_list_add(&pool->offq, &b);
	pool->offq_len = 2;
	KUNIT_EXPECT_EQ(test, tier_pool_offq_fail_all(pool), 2U);
	KUNIT_EXPECT_EQ(test, ended_a, 1);
	KUNIT_EXPECT_EQ(test, ended_b, 1);
	KUNIT_EXPECT_EQ(test, pool->offq_len, 0U);
	KUNIT_EXPECT_TRUE(test, bio_list_empty(&pool->offq));
	KUNIT_EXPECT_TRUE(test, pool->offq_closed);
}

/*
 * The busy index: every started job is found by its virtual extent until
 * it ends, on busy or done alike; range queries agree with a plain walk
 * whether they look up the range's extents (short ranges) or walk the
 * jobs (ranges longer than the number of jobs).
 */
#define BUSY_JOBS 600
static void busy_index_test(struct kunit *test)
{
	struct tier_pool *pool = fake_pool(test);
	struct tier_job *jobs;
	unsigned long flags;
	u64 v, first;
	u32 i;

	jobs = kunit_kcalloc(test, BUSY_JOBS, sizeof(*jobs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, jobs);
	INIT_LIST_HEAD(&pool->done);
	hash_init(pool->busy_index);
	bio_list_init(&pool->parked);
	bio_list_init(&pool->deferred);

	spin_lock_irqsave(&pool->lock, flags);
	/* Extents 0, 7, 14, ...: spread over the buckets and colliding. */
	for (i = 0; i < BUSY_JOBS; i++) {
		jobs[i].vext.v = (u64)i * 7;
		tier_job_start(pool, &jobs[i]);
	}
	KUNIT_EXPECT_EQ(test, pool->nr_busy, (unsigned int)BUSY_JOBS);
	/* Half of them complete: on done, still found. */
	for (i = 0; i < BUSY_JOBS; i += 2)
		list_move_tail(&jobs[i].list, &pool->done);
	for (i = 0; i < BUSY_JOBS; i++) {
		KUNIT_EXPECT_PTR_EQ(test, tier_job_find(pool, (u64)i * 7),
				    &jobs[i]);
		KUNIT_EXPECT_NULL(test, tier_job_find(pool, (u64)i * 7 + 3));
	}
	KUNIT_EXPECT_NULL(test, tier_job_find(pool, (u64)BUSY_JOBS * 7));
	/* Short ranges (looked up) and long ones (walked). */
	KUNIT_EXPECT_TRUE(test, tier_range_busy(pool, 0, 0));
	KUNIT_EXPECT_FALSE(test, tier_range_busy(pool, 1, 6));
	KUNIT_EXPECT_TRUE(test, tier_range_busy(pool, 1, 7));
	KUNIT_EXPECT_TRUE(test, tier_range_busy(pool, 700, 700));
	KUNIT_EXPECT_TRUE(test, tier_range_busy(pool, 0, U64_MAX - 1));
	KUNIT_EXPECT_FALSE(test, tier_range_busy(pool, (u64)BUSY_JOBS * 7,
						 U64_MAX - 1));
	/* Every other job ends: only the rest are found, in any range. */
	for (i = 1; i < BUSY_JOBS; i += 2)
		tier_job_end(pool, &jobs[i]);
	KUNIT_EXPECT_EQ(test, pool->nr_busy, (unsigned int)BUSY_JOBS / 2);
	for (i = 0; i < BUSY_JOBS; i++)
		KUNIT_EXPECT_PTR_EQ(test, tier_job_find(pool, (u64)i * 7),
				    i % 2 ? NULL : &jobs[i]);
	for (first = 0; first < 30; first++)
		for (v = first; v < first + 2 * BUSY_JOBS; v += 13) {
			/* Busy: a multiple of 14 in first..v. */
			bool want = DIV_ROUND_UP(first, 14) * 14 <= v;

			KUNIT_EXPECT_EQ(test, tier_range_busy(pool, first, v),
					want);
		}
	for (i = 0; i < BUSY_JOBS; i += 2)
		tier_job_end(pool, &jobs[i]);
	KUNIT_EXPECT_EQ(test, pool->nr_busy, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&pool->done));
	KUNIT_EXPECT_FALSE(test, tier_range_busy(pool, 0, U64_MAX - 1));
	KUNIT_EXPECT_FALSE(test, tier_range_busy(pool, 5, 5));
	spin_unlock_irqrestore(&pool->lock, flags);
}

static struct kunit_case dm_tier_mechanism_cases[] = {
	KUNIT_CASE(mode_names_test),
	KUNIT_CASE(mode_transitions_test),
	KUNIT_CASE(tier_health_io_test),
	KUNIT_CASE(offline_tier_unflushable_test),
	KUNIT_CASE(offq_fail_all_test),
	KUNIT_CASE(map_dirty_test),
	KUNIT_CASE(commit_refused_in_fail_mode_test),
	KUNIT_CASE(commit_refused_read_only_test),
	KUNIT_CASE(switch_extent_test),
	KUNIT_CASE(switch_keeps_current_flags_test),
	KUNIT_CASE(heat_capture_test),
	KUNIT_CASE(heat_note_test),
	KUNIT_CASE(busy_index_test),
	{}
};

static struct kunit_suite dm_tier_mechanism_suite = {
	.name = "dm_tier_mechanism",
	.test_cases = dm_tier_mechanism_cases,
};

kunit_test_suite(dm_tier_mechanism_suite);
