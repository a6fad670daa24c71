// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/tl-lost.c: which tier states count as lost, and
 * the merge of mapped extents into the byte ranges on lost tiers (what
 * `tierctl where --lost`, status and evacuate-lost report).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tl-lost.h"

#define MiB (1ULL << 20)

static void dev3(struct tl_nl_dev *d, const char *s0, const char *s1,
		 const char *s2, uint64_t size)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "t");
	d->nr_tiers = 3;
	d->extent_bytes = MiB;
	d->size_bytes = size;
	snprintf(d->tiers[0].state, sizeof(d->tiers[0].state), "%s", s0);
	snprintf(d->tiers[1].state, sizeof(d->tiers[1].state), "%s", s1);
	snprintf(d->tiers[2].state, sizeof(d->tiers[2].state), "%s", s2);
}

static void expect_range(const struct tl_lost *l, size_t i, uint64_t start,
			 uint64_t len, uint32_t tier)
{
	assert_true(i < l->nr);
	assert_int_equal(l->r[i].start, start);
	assert_int_equal(l->r[i].len, len);
	assert_int_equal(l->r[i].tier, tier);
}

/* Every state but "ok" is lost: degraded, offline, states added later. */
static void test_state(void **state)
{
	(void)state;
	assert_false(tl_tier_state_lost("ok"));
	assert_true(tl_tier_state_lost("degraded"));
	assert_true(tl_tier_state_lost("offline"));
	assert_true(tl_tier_state_lost("some-future-state"));
	assert_true(tl_tier_state_lost(""));
	assert_true(tl_tier_state_lost(NULL));
	assert_true(tl_tier_state_lost("OK"));	/* the kernel says "ok" */
}

static void test_init(void **state)
{
	struct tl_nl_dev d;
	struct tl_lost l;

	(void)state;
	dev3(&d, "ok", "degraded", "offline", 100 * MiB);
	tl_lost_init(&l, &d);
	assert_int_equal(l.tier_lost, 0x6);
	assert_int_equal(l.nr, 0);
	assert_int_equal(l.bytes_total, 0);
	dev3(&d, "ok", "ok", "ok", 100 * MiB);
	tl_lost_init(&l, &d);
	assert_int_equal(l.tier_lost, 0);
	tl_lost_free(&l);
}

/*
 * Adjacent extents of one lost tier merge; a gap, a change of lost tier or
 * an extent of an ok tier in between splits; ok tiers count nothing.
 */
static void test_merge(void **state)
{
	static const struct { uint64_t index; uint32_t tier; } ext[] = {
		{ 0, 0 }, { 1, 1 }, { 2, 1 }, { 3, 1 },	/* 1-3 on tier 1 */
		{ 4, 2 }, { 5, 2 },			/* 4-5 on tier 2 */
		{ 6, 1 },				/* 6 on tier 1 */
		{ 7, 0 }, { 8, 1 },			/* ok between: 8 */
		{ 10, 1 }, { 11, 1 },			/* gap: 10-11 */
		{ 20, 7 },				/* no such tier */
	};
	struct tl_nl_dev d;
	struct tl_lost l;
	size_t i;

	(void)state;
	dev3(&d, "ok", "degraded", "offline", 100 * MiB);
	tl_lost_init(&l, &d);
	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		assert_int_equal(tl_lost_add(&l, ext[i].index, ext[i].tier), 0);
	assert_int_equal(l.nr, 5);
	expect_range(&l, 0, 1 * MiB, 3 * MiB, 1);
	expect_range(&l, 1, 4 * MiB, 2 * MiB, 2);
	expect_range(&l, 2, 6 * MiB, 1 * MiB, 1);
	expect_range(&l, 3, 8 * MiB, 1 * MiB, 1);
	expect_range(&l, 4, 10 * MiB, 2 * MiB, 1);
	assert_int_equal(l.bytes[0], 0);
	assert_int_equal(l.bytes[1], 7 * MiB);
	assert_int_equal(l.bytes[2], 2 * MiB);
	assert_int_equal(l.bytes_total, 9 * MiB);
	tl_lost_free(&l);
	tl_lost_free(&l);	/* twice is harmless */
}

/* The last extent is cut at the device size; beyond it nothing counts. */
static void test_device_end(void **state)
{
	struct tl_nl_dev d;
	struct tl_lost l;

	(void)state;
	dev3(&d, "ok", "degraded", "ok", 10 * MiB + 4096);
	tl_lost_init(&l, &d);
	assert_int_equal(tl_lost_add(&l, 9, 1), 0);
	assert_int_equal(tl_lost_add(&l, 10, 1), 0);
	assert_int_equal(tl_lost_add(&l, 11, 1), 0);
	assert_int_equal(l.nr, 1);
	expect_range(&l, 0, 9 * MiB, MiB + 4096, 1);
	assert_int_equal(l.bytes_total, MiB + 4096);
	tl_lost_free(&l);
}

/* Many ranges: the array grows. */
static void test_many(void **state)
{
	struct tl_nl_dev d;
	struct tl_lost l;
	uint64_t i;

	(void)state;
	dev3(&d, "ok", "degraded", "ok", 10000 * MiB);
	tl_lost_init(&l, &d);
	for (i = 0; i < 10000; i += 2)
		assert_int_equal(tl_lost_add(&l, i, 1), 0);
	assert_int_equal(l.nr, 5000);
	expect_range(&l, 4999, 9998 * MiB, MiB, 1);
	assert_int_equal(l.bytes_total, 5000 * MiB);
	tl_lost_free(&l);
}

/* evacuate-lost forgets one tier: only its ranges and bytes stay. */
static void test_keep_tier(void **state)
{
	struct tl_nl_dev d;
	struct tl_lost l;

	(void)state;
	dev3(&d, "ok", "degraded", "offline", 8 * MiB);
	tl_lost_init(&l, &d);
	assert_int_equal(tl_lost_add(&l, 0, 1), 0);
	assert_int_equal(tl_lost_add(&l, 1, 2), 0);
	assert_int_equal(tl_lost_add(&l, 2, 1), 0);
	assert_int_equal(tl_lost_add(&l, 3, 0), 0);
	assert_int_equal(tl_lost_add(&l, 4, 2), 0);
	assert_int_equal(tl_lost_add(&l, 5, 2), 0);
	assert_int_equal(l.nr, 4);
	assert_int_equal(l.bytes_total, 5 * MiB);
	tl_lost_keep_tier(&l, 2);
	assert_int_equal(l.nr, 2);
	expect_range(&l, 0, 1 * MiB, MiB, 2);
	expect_range(&l, 1, 4 * MiB, 2 * MiB, 2);
	assert_int_equal(l.tier_lost, 1u << 2);
	assert_int_equal(l.bytes[1], 0);
	assert_int_equal(l.bytes[2], 3 * MiB);
	assert_int_equal(l.bytes_total, 3 * MiB);
	/* A tier with nothing lost on it: nothing left. */
	tl_lost_keep_tier(&l, 1);
	assert_int_equal(l.nr, 0);
	assert_int_equal(l.tier_lost, 0);
	assert_int_equal(l.bytes_total, 0);
	tl_lost_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_device_end),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_keep_tier),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
