// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/tl-resize.c: what tierctl resize plans from the
 * superblock and the devices' sizes (growth, refusals with what to do), the
 * labels it rewrites, the count of mapped extents beyond a new end, and
 * the shrink of an open device, refused without --yes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl-resize.h"

#define MIB_S 2048ULL /* sectors */

/* Tiers of 64 MiB (metadata on it) and 320 MiB, 1 MiB extents, 320 MiB. */
static void fresh(struct tier_fresh *f, u64 map_extents)
{
	struct tier_layout_req req;
	u32 i;

	memset(&req, 0, sizeof(req));
	req.nr_tiers = 2;
	req.extent_shift = 11;
	req.dev_sectors[0] = 64 * MIB_S;
	req.dev_sectors[1] = 320 * MIB_S;
	req.virt_sectors = 320 * MIB_S;
	req.map_extents = map_extents;
	memset(f, 0, sizeof(*f));
	assert_int_equal(tier_layout_compute(&req, &f->lo, NULL), 0);
	memset(f->uuid, 0x11, TIER_UUID_LEN);
	for (i = 0; i < TIER_MAX_DEVS; i++)
		memset(f->member_uuid[i], 0x20 + i, TIER_UUID_LEN);
	strcpy(f->name, "rs");
	f->ctime = 1700000000;
	assert_int_equal(tier_fresh_check(f, NULL), 0);
}

static void test_plan(void **state)
{
	struct tier_fresh f;
	struct tier_sb sb;
	struct tl_resize_plan p;
	struct tl_err err = { "" };
	u64 dev[TIER_MAX_TIERS] = { 64 * MIB_S, 320 * MIB_S };

	fresh(&f, 0);
	tier_fresh_sb(&f, &sb);
	assert_int_equal(sb.map_blocks, 2); /* 384 raw extents */
	/* Nothing grew. */
	assert_int_equal(tl_resize_plan(&sb, dev, 0, &p, &err), TL_OK);
	assert_int_equal(p.grown, 0);
	assert_int_equal(p.sb.virt_extents, 320);
	assert_int_equal(p.capacity, 63 + 319);
	assert_int_equal(p.max_virt, 382);
	assert_int_equal(p.bound, TIER_RESIZE_BOUND_CAPACITY);
	/* Tier 1 grew to 1 GiB: the map room bounds at 508. */
	dev[1] = 1024 * MIB_S;
	assert_int_equal(tl_resize_plan(&sb, dev, 0, &p, &err), TL_OK);
	assert_int_equal(p.grown, 2);
	assert_int_equal(p.old_nr[1], 319);
	assert_int_equal(p.sb.tier[1].nr_extents, 1023);
	assert_int_equal(p.sb.tier[1].dev_sectors, 1024 * MIB_S);
	assert_int_equal(p.max_virt, 508);
	assert_int_equal(p.bound, TIER_RESIZE_BOUND_MAP);
	assert_int_equal(tl_resize_plan(&sb, dev, 508, &p, &err), TL_OK);
	assert_int_equal(p.sb.virt_extents, 508);
	assert_int_equal(tl_resize_plan(&sb, dev, 509, &p, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "the largest virtual size is 532676608 bytes (508 extents), limited by the map room"));
	assert_non_null(strstr(err.msg, "--max-size"));
	/* Shrinking is a plan too (the mapped extents are checked apart). */
	assert_int_equal(tl_resize_plan(&sb, dev, 1, &p, &err), TL_OK);
	assert_int_equal(p.sb.virt_extents, 1);
	/* A device that shrank: refused, with its sizes. */
	dev[1] = 300 * MIB_S;
	assert_int_equal(tl_resize_plan(&sb, dev, 0, &p, &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "tier 1's device shrank: 314572800 bytes, the superblock records 335544320"));
	/* Map room reserved at creation: capacity bounds again. */
	fresh(&f, 4096);
	tier_fresh_sb(&f, &sb);
	dev[1] = 1024 * MIB_S;
	assert_int_equal(tl_resize_plan(&sb, dev, 0, &p, &err), TL_OK);
	assert_int_equal(p.bound, TIER_RESIZE_BOUND_CAPACITY);
	assert_int_equal(p.max_virt, p.capacity);
	(void)state;
}

static void test_label(void **state)
{
	struct tier_fresh f;
	struct tier_sb sb;
	struct tier_label l, out;
	struct tl_resize_plan p;
	struct tl_err err = { "" };
	u64 dev[TIER_MAX_TIERS] = { 64 * MIB_S, 1024 * MIB_S };

	fresh(&f, 0);
	tier_fresh_sb(&f, &sb);
	tier_fresh_label(&f, 1, &l);
	assert_int_equal(tl_resize_label(&l, &sb, &out), 0);
	assert_int_equal(tl_resize_plan(&sb, dev, 0, &p, &err), TL_OK);
	/* The old label is accepted by the grown superblock, then rewritten. */
	assert_int_equal(tier_label_check_sb(&l, &p.sb, 1, NULL), 0);
	assert_int_equal(tl_resize_label(&l, &p.sb, &out), 1);
	assert_int_equal(out.nr_extents, 1023);
	assert_int_equal(out.dev_sectors, 1024 * MIB_S);
	assert_int_equal(out.tier_index, l.tier_index);
	assert_int_equal(tier_label_check_sb(&out, &p.sb, 1, NULL), 0);
	/* A label of another member. */
	l.member_uuid[0] ^= 1;
	assert_int_equal(tl_resize_label(&l, &p.sb, &out), -1);
	(void)state;
}

static void test_mapped(void **state)
{
	struct tier_fresh f;
	struct tier_sb sb;
	struct tier_map_entry e = { 0 };
	u8 *blk = calloc(2, TIER_BLOCK_SIZE);
	u64 first;

	assert_non_null(blk);
	fresh(&f, 0);
	tier_fresh_sb(&f, &sb);
	tier_map_block_init(blk, &sb, 0, 0);
	tier_map_block_init(blk + TIER_BLOCK_SIZE, &sb, 0, 1);
	e.word = TIER_MAPW_MAPPED | 7;
	tier_map_block_set(blk, 10, &e);
	tier_map_block_set(blk, 253, &e);
	tier_map_block_set(blk + TIER_BLOCK_SIZE, 5, &e); /* extent 259 */
	assert_int_equal(tl_resize_mapped(blk, 2, 0, 0, 508, &first), 3);
	assert_int_equal(first, 10);
	assert_int_equal(tl_resize_mapped(blk, 2, 0, 11, 508, &first), 2);
	assert_int_equal(first, 253);
	assert_int_equal(tl_resize_mapped(blk, 2, 0, 254, 508, &first), 1);
	assert_int_equal(first, 259);
	assert_int_equal(tl_resize_mapped(blk, 2, 0, 260, 508, &first), 0);
	assert_true(first == U64_MAX);
	/* Only [from, to): the end is excluded. */
	assert_int_equal(tl_resize_mapped(blk, 2, 0, 11, 253, &first), 0);
	/* A block given with its index. */
	assert_int_equal(tl_resize_mapped(blk + TIER_BLOCK_SIZE, 1, 1, 0, 508,
					  &first), 1);
	assert_int_equal(first, 259);
	free(blk);
	(void)state;
}

/*
 * A shrink of a device that is open (mounted): refused without --yes,
 * saying the sizes, the openers and that the filesystem is shrunk first
 * (XFS cannot); growing, an unchanged size, a closed device, or --yes go on.
 */
static void test_shrink_open(void **state)
{
	struct tl_err err = { "" };

	(void)state;
	assert_int_equal(tl_resize_shrink_open("ckpt", 1024ULL << 20,
					       768ULL << 20, 1, false, &err),
			 TL_FAIL);
	assert_non_null(strstr(err.msg, "resize: ckpt is open (1 opener: a mounted filesystem"));
	assert_non_null(strstr(err.msg, "shrinking it from 1 GiB to 768 MiB cuts off its last 256 MiB"));
	assert_non_null(strstr(err.msg, "a filesystem on it must be shrunk first (XFS cannot shrink"));
	assert_non_null(strstr(err.msg, "run again with --yes"));
	err.msg[0] = '\0';
	assert_int_equal(tl_resize_shrink_open("ckpt", 1024ULL << 20,
					       768ULL << 20, 3, false, &err),
			 TL_FAIL);
	assert_non_null(strstr(err.msg, "(3 openers:"));

	err.msg[0] = '\0';
	/* --yes: the caller shrank what is on it. */
	assert_int_equal(tl_resize_shrink_open("ckpt", 1024ULL << 20,
					       768ULL << 20, 1, true, &err),
			 TL_OK);
	/* Not open. */
	assert_int_equal(tl_resize_shrink_open("ckpt", 1024ULL << 20,
					       768ULL << 20, 0, false, &err),
			 TL_OK);
	/* Growing, the same size, no --size: nothing is cut off. */
	assert_int_equal(tl_resize_shrink_open("ckpt", 768ULL << 20,
					       1024ULL << 20, 1, false, &err),
			 TL_OK);
	assert_int_equal(tl_resize_shrink_open("ckpt", 768ULL << 20,
					       768ULL << 20, 1, false, &err),
			 TL_OK);
	assert_int_equal(tl_resize_shrink_open("ckpt", 768ULL << 20, 0, 1,
					       false, &err),
			 TL_OK);
	assert_string_equal(err.msg, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_mapped),
		cmocka_unit_test(test_shrink_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
