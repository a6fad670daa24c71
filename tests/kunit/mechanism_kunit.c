// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite dm_tier_mechanism: kernel-side helpers of the metadata layer
 * (kernel/dm-tier-metadata.c, kernel/dm-tier.h) that need no device: the
 * metadata mode state machine, the dirty test of the FUA fast path, and
 * commits refused in fail mode. The I/O paths are exercised by the VM tests.
 */
#include <kunit/test.h>

#include "dm-tier.h"

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

/* Modes only ever degrade: rw -> ro -> fail, never back. */
static void mode_only_degrades_test(struct kunit *test)
{
	struct tier_pool *pool = fake_pool(test);

	KUNIT_EXPECT_EQ(test, pool->mode, TIER_MODE_WRITE);
	tier_set_mode(pool, TIER_MODE_READ_ONLY, "kunit: first failure");
	KUNIT_EXPECT_EQ(test, pool->mode, TIER_MODE_READ_ONLY);
	tier_set_mode(pool, TIER_MODE_WRITE, "kunit: must not upgrade");
	KUNIT_EXPECT_EQ(test, pool->mode, TIER_MODE_READ_ONLY);
	tier_set_mode(pool, TIER_MODE_FAIL, "kunit: second failure");
	KUNIT_EXPECT_EQ(test, pool->mode, TIER_MODE_FAIL);
	tier_set_mode(pool, TIER_MODE_READ_ONLY, "kunit: must not upgrade");
	KUNIT_EXPECT_EQ(test, pool->mode, TIER_MODE_FAIL);
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
	KUNIT_EXPECT_EQ(test, tier_md_commit(pool), -EIO);
	mutex_unlock(&pool->md_lock);
	KUNIT_EXPECT_TRUE(test, tier_map_dirty(pool));
	KUNIT_EXPECT_EQ(test, pool->commits, 0ULL);
}

static struct kunit_case dm_tier_mechanism_cases[] = {
	KUNIT_CASE(mode_names_test),
	KUNIT_CASE(mode_only_degrades_test),
	KUNIT_CASE(map_dirty_test),
	KUNIT_CASE(commit_refused_in_fail_mode_test),
	{}
};

static struct kunit_suite dm_tier_mechanism_suite = {
	.name = "dm_tier_mechanism",
	.test_cases = dm_tier_mechanism_cases,
};

kunit_test_suite(dm_tier_mechanism_suite);
