// SPDX-License-Identifier: GPL-2.0
/* Unit tests for user/lib/tl-group.c: grouping decoded labels into devices
 * for "tierctl activate", completeness, duplicates, and the table built. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "tl-create.h"
#include "tl-group.h"
#include "tl-status.h"
#include "tl-tierlist.h"

#define MiB_SECTORS 2048ULL

/* A planned device: @nr tiers of 64 MiB (+ a metadata device). */
static void plan(struct tier_fresh *f, const char *name, u32 nr, bool meta,
		 u8 uuid_byte)
{
	struct tl_create_req req;
	u32 i;

	memset(&req, 0, sizeof(req));
	req.name = name;
	req.nr_tiers = nr;
	req.extent_shift = TIER_EXTENT_SHIFT_DEF;
	for (i = 0; i < nr; i++) {
		req.tier[i].sectors = 64 * MiB_SECTORS * (i + 1);
		req.tier[i].tier_class = TIER_CLASS_NVME;
	}
	if (meta) {
		req.has_meta = true;
		req.meta.sectors = 16 * MiB_SECTORS;
	}
	req.ctime = 1700000000;
	assert_int_equal(tl_create_plan(&req, f, NULL), TL_OK);
	memset(f->uuid, uuid_byte, TIER_UUID_LEN);
	for (i = 0; i < TIER_MAX_DEVS; i++)
		memset(f->member_uuid[i], uuid_byte + 1 + i, TIER_UUID_LEN);
}

/* Add device @dev of @f as @path (its label goes through encode/decode,
 * as on disk). */
static void add(struct tl_groups *gs, const struct tier_fresh *f, u32 dev,
		const char *path)
{
	static u8 blk[TIER_BLOCK_SIZE];
	struct tl_member m;
	struct tier_label l;

	memset(&m, 0, sizeof(m));
	tier_fresh_label(f, dev, &l);
	tier_label_encode(&l, blk);
	assert_int_equal(tier_label_decode(blk, &m.label, NULL), 0);
	snprintf(m.path, sizeof(m.path), "%s", path);
	assert_int_equal(tl_groups_add(gs, &m), 0);
}

static void test_complete_any_order(void **state)
{
	struct tl_groups gs;
	struct tier_fresh f;
	struct tl_err err = { "" };
	char params[512];
	u64 sectors;

	(void)state;
	plan(&f, "fast", 3, false, 0x10);
	tl_groups_init(&gs);
	add(&gs, &f, 2, "/dev/sdc");
	add(&gs, &f, 0, "/dev/nvme0n1");
	add(&gs, &f, 1, "/dev/nvme1n1");
	assert_int_equal(gs.nr_groups, 1);
	assert_string_equal(gs.group[0].name, "fast");
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_OK);
	assert_string_equal(tl_group_meta_member(&gs, &gs.group[0])->path,
			    "/dev/nvme0n1");
	assert_int_equal(tl_group_table(&gs, &gs.group[0], f.lo.virt_extents,
					params, sizeof(params), &sectors, &err),
			 TL_OK);
	assert_string_equal(params, "2048 3 /dev/nvme0n1 /dev/nvme1n1 /dev/sdc");
	assert_true(sectors == f.lo.virt_extents << 11);
	assert_int_equal(tl_groups_find_name(&gs, "fast"), 0);
	assert_int_equal(tl_groups_find_name(&gs, "slow"), -1);
	tl_groups_free(&gs);
}

static void test_missing(void **state)
{
	struct tl_groups gs;
	struct tier_fresh f;
	struct tl_err err = { "" };
	char params[512];
	u64 sectors;

	(void)state;
	plan(&f, "fast", 4, false, 0x20);
	tl_groups_init(&gs);
	add(&gs, &f, 0, "/dev/a");
	add(&gs, &f, 2, "/dev/c");
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "device 'fast'"));
	assert_non_null(strstr(err.msg, "is incomplete: missing tier 1, tier 3 (it has 4 tiers); connect the missing devices and run 'tierctl activate fast' again"));
	assert_int_equal(tl_group_table(&gs, &gs.group[0], f.lo.virt_extents,
					params, sizeof(params), &sectors, &err),
			 TL_FAIL);
	tl_groups_free(&gs);

	/* Tier 0 missing: no metadata member either. */
	tl_groups_init(&gs);
	add(&gs, &f, 1, "/dev/b");
	add(&gs, &f, 2, "/dev/c");
	add(&gs, &f, 3, "/dev/d");
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "missing tier 0 (it has 4 tiers); connect the missing device and"));
	assert_null(tl_group_meta_member(&gs, &gs.group[0]));
	tl_groups_free(&gs);
}

static void test_meta_dev(void **state)
{
	struct tl_groups gs;
	struct tier_fresh f;
	struct tl_err err = { "" };
	char params[512];
	u64 sectors;

	(void)state;
	plan(&f, "m", 2, true, 0x30);
	tl_groups_init(&gs);
	add(&gs, &f, 0, "/dev/a");
	add(&gs, &f, 1, "/dev/b");
	assert_true(gs.group[0].meta_ext);
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "missing the metadata device (it has 2 tiers and a metadata device)"));
	add(&gs, &f, TIER_META_DEV, "/dev/pmem0");
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_OK);
	assert_string_equal(tl_group_meta_member(&gs, &gs.group[0])->path,
			    "/dev/pmem0");
	assert_int_equal(tl_group_table(&gs, &gs.group[0], f.lo.virt_extents,
					params, sizeof(params), &sectors, &err),
			 TL_OK);
	assert_string_equal(params, "2048 2 /dev/a /dev/b 2 metadata_dev /dev/pmem0");
	tl_groups_free(&gs);
}

static void test_duplicate(void **state)
{
	struct tl_groups gs;
	struct tier_fresh f;
	struct tl_err err = { "" };

	(void)state;
	plan(&f, "dup", 2, false, 0x40);
	tl_groups_init(&gs);
	add(&gs, &f, 0, "/dev/a");
	add(&gs, &f, 1, "/dev/b");
	add(&gs, &f, 1, "/dev/b-clone");
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "tier 1 was found 2 times (/dev/b, /dev/b-clone)"));
	add(&gs, &f, 1, "/dev/b-clone2");
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "3 times (/dev/b, /dev/b-clone, ...)"));
	tl_groups_free(&gs);
}

static void test_two_devices_and_conflict(void **state)
{
	struct tl_groups gs;
	struct tier_fresh f1, f2, f3;
	struct tl_err err = { "" };

	(void)state;
	plan(&f1, "one", 1, false, 0x50);
	plan(&f2, "two", 2, false, 0x60);
	plan(&f3, "one", 2, false, 0x70);	/* same name, other uuid */
	tl_groups_init(&gs);
	add(&gs, &f1, 0, "/dev/a");
	add(&gs, &f2, 1, "/dev/c");
	add(&gs, &f2, 0, "/dev/b");
	assert_int_equal(gs.nr_groups, 2);
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_OK);
	assert_int_equal(tl_group_check(&gs, &gs.group[1], &err), TL_OK);
	assert_int_equal(tl_groups_find_name(&gs, "two"), 1);
	add(&gs, &f3, 0, "/dev/d");
	assert_int_equal(tl_groups_find_name(&gs, "one"), -2);

	/* A label with the uuid of "two" but a different geometry. */
	f1.lo.nr_tiers = 1;
	memcpy(f1.uuid, f2.uuid, TIER_UUID_LEN);
	add(&gs, &f1, 0, "/dev/stale");
	assert_int_equal(gs.nr_groups, 3);
	assert_int_equal(tl_group_check(&gs, &gs.group[1], &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "the label on /dev/stale does not match"));
	tl_groups_free(&gs);
}

/*
 * Two devices of one name (another uuid): tl_groups_name_shared() names
 * both with their members; one device of a name is fine.
 */
static void test_name_shared(void **state)
{
	struct tl_groups gs;
	struct tier_fresh f1, f2, f3;
	struct tl_err err = { "" };

	(void)state;
	plan(&f1, "ckpt", 2, false, 0x80);
	plan(&f2, "ckpt", 1, false, 0x90);	/* same name, other uuid */
	plan(&f3, "scratch", 1, false, 0xa0);
	tl_groups_init(&gs);
	add(&gs, &f1, 0, "/dev/nvme0n1");
	add(&gs, &f1, 1, "/dev/sda");
	add(&gs, &f3, 0, "/dev/sdc");
	assert_int_equal(tl_groups_name_shared(&gs, "ckpt", &err), TL_OK);
	assert_string_equal(err.msg, "");
	add(&gs, &f2, 0, "/dev/sdb");
	assert_int_equal(tl_groups_name_shared(&gs, "scratch", &err), TL_OK);
	assert_int_equal(tl_groups_name_shared(&gs, "nosuch", &err), TL_OK);
	assert_int_equal(tl_groups_name_shared(&gs, "ckpt", &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "2 dm-tier devices are named 'ckpt' (uuid 80808080808080808080808080808080 on /dev/nvme0n1, /dev/sda; uuid 90909090909090909090909090909090 on /dev/sdb): none of them is activated"));
	assert_non_null(strstr(err.msg, "disconnect the devices of the one that is not wanted"));
	tl_groups_free(&gs);
}

/* Add device @dev of @f as @path with device number 8:@min. */
static void add_devt(struct tl_groups *gs, const struct tier_fresh *f,
		     u32 dev, const char *path, unsigned int min)
{
	add(gs, f, dev, path);
	gs->member[gs->nr_members - 1].maj = 8;
	gs->member[gs->nr_members - 1].min = min;
}

/*
 * The labels of a name on devices other than a create's own: listed (any
 * uuid, the metadata device too); the create's own devices are not.
 */
static void test_name_elsewhere(void **state)
{
	static const unsigned int maj[] = { 8, 8 }, min[] = { 0, 16 };
	struct tl_groups gs;
	struct tier_fresh f1, f2;
	char list[512];

	(void)state;
	plan(&f1, "ckpt", 2, true, 0xb0);
	plan(&f2, "other", 1, false, 0xc0);
	tl_groups_init(&gs);
	assert_int_equal(tl_groups_name_elsewhere(&gs, "ckpt", maj, min, 2,
						  list, sizeof(list)),
			 0);
	assert_string_equal(list, "");
	add_devt(&gs, &f1, 0, "/dev/sda", 0);	/* the create's own */
	add_devt(&gs, &f2, 0, "/dev/sdb", 16);	/* the create's own, other name */
	add_devt(&gs, &f2, 0, "/dev/sde", 64);	/* another name */
	assert_int_equal(tl_groups_name_elsewhere(&gs, "ckpt", maj, min, 2,
						  list, sizeof(list)),
			 0);
	add_devt(&gs, &f1, 1, "/dev/sdc", 32);
	add_devt(&gs, &f1, TIER_META_DEV, "/dev/sdd", 48);
	assert_int_equal(tl_groups_name_elsewhere(&gs, "ckpt", maj, min, 2,
						  list, sizeof(list)),
			 2);
	assert_string_equal(list,
			    "/dev/sdc (tier 1, uuid b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0), "
			    "/dev/sdd (metadata device, uuid b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0)");
	/* Cut at the buffer, still a string. */
	assert_int_equal(tl_groups_name_elsewhere(&gs, "ckpt", maj, min, 2,
						  list, 20),
			 2);
	assert_int_equal(strlen(list), 19);
	/* Nothing excluded: the create's device is counted too. */
	assert_int_equal(tl_groups_name_elsewhere(&gs, "ckpt", maj, min, 0,
						  list, sizeof(list)),
			 3);
	tl_groups_free(&gs);
}

static void test_bad_virt(void **state)
{
	struct tl_groups gs;
	struct tier_fresh f;
	struct tl_err err = { "" };
	char params[512];
	u64 sectors;

	(void)state;
	plan(&f, "v", 1, false, 0x80);
	tl_groups_init(&gs);
	add(&gs, &f, 0, "/dev/a");
	assert_int_equal(tl_group_table(&gs, &gs.group[0], 0, params,
					sizeof(params), &sectors, &err),
			 TL_FAIL);
	assert_int_equal(tl_group_table(&gs, &gs.group[0], U64_MAX, params,
					sizeof(params), &sectors, &err),
			 TL_FAIL);
	tl_groups_free(&gs);
}

static void test_alloc_failure(void **state)
{
	struct tl_groups gs;
	struct tl_member m;

	(void)state;
	tl_groups_init(&gs);
	memset(&m, 0, sizeof(m));
	m.label.tier_index = TIER_MAX_DEVS;	/* not a device index */
	assert_int_equal(tl_groups_add(&gs, &m), -EINVAL);
	assert_int_equal(gs.nr_members, 0);
	tl_groups_free(&gs);
}


/* A decoded copy of @l added as @path. */
static void add_label(struct tl_groups *gs, const struct tier_label *l,
		      const char *path)
{
	static u8 blk[TIER_BLOCK_SIZE];
	struct tl_member m;

	memset(&m, 0, sizeof(m));
	tier_label_encode(l, blk);
	assert_int_equal(tier_label_decode(blk, &m.label, NULL), 0);
	snprintf(m.path, sizeof(m.path), "%s", path);
	assert_int_equal(tl_groups_add(gs, &m), 0);
}

/*
 * add-tier, then remove-tier, as activate sees the disks at each crash
 * point: the superblock's list wins over the labels' hints, and a label it
 * does not list is stale.
 */
static void test_tier_list_change(void **state)
{
	struct tier_label l0, nl, hint;
	struct tier_sb sb, sb2, sb3;
	struct tier_sb_tier rec;
	struct tl_err err = { "" };
	struct tl_groups gs;
	struct tier_fresh f;
	char params[512];
	u8 mu[TIER_UUID_LEN];
	u64 sectors;

	(void)state;
	plan(&f, "grow", 2, false, 0x90);
	tier_fresh_sb(&f, &sb);
	tier_fresh_label(&f, 0, &l0);
	memset(mu, 0xee, sizeof(mu));
	assert_int_equal(tl_tierlist_new_label(&l0, &sb, 256 * MiB_SECTORS,
					       TIER_CLASS_NVMF, mu, &nl, &err),
			 TL_OK);
	assert_int_equal(nl.tier_index, 2);
	assert_int_equal(nl.nr_tiers, 3);
	assert_int_equal(nl.data_start, TIER_DATA_ALIGN);
	assert_int_equal(nl.nr_extents,
			 (256 * MiB_SECTORS - TIER_DATA_ALIGN) >> sb.extent_shift);
	assert_int_equal(tier_label_check_new(&nl, &sb, 2, 256 * MiB_SECTORS,
					      NULL),
			 0);
	/* Too small for one extent after the first MiB. */
	assert_int_equal(tl_tierlist_new_label(&l0, &sb, TIER_DATA_ALIGN + 8,
					       TIER_CLASS_NVMF, mu, &hint,
					       &err),
			 TL_USAGE);

	/* Crash before the commit: the old list, the new label is stale. */
	tl_groups_init(&gs);
	add(&gs, &f, 0, "/dev/a");
	add(&gs, &f, 1, "/dev/b");
	add_label(&gs, &nl, "/dev/new");
	assert_int_equal(gs.nr_groups, 1);
	assert_int_equal(gs.group[0].conflict, -1);
	tl_group_apply_sb(&gs, &gs.group[0], &sb);
	assert_int_equal(gs.group[0].nr_tiers, 2);
	assert_int_equal(gs.group[0].nr_stale, 1);
	assert_string_equal(gs.member[gs.group[0].stale[0]].path, "/dev/new");
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_OK);

	/* After the commit: three tiers, old hints on tiers 0 and 1. */
	sb2 = sb;
	tier_sb_tier_from_label(&nl, &rec);
	assert_int_equal(tier_sb_set_tier_count(&sb2, 3, &rec), 0);
	tl_group_apply_sb(&gs, &gs.group[0], &sb2);
	assert_int_equal(gs.group[0].nr_tiers, 3);
	assert_int_equal(gs.group[0].nr_stale, 0);
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_OK);
	assert_int_equal(tl_group_table(&gs, &gs.group[0], sb2.virt_extents,
					params, sizeof(params), &sectors, &err),
			 TL_OK);
	assert_non_null(strstr(params, " 3 /dev/a /dev/b /dev/new"));
	/* The hints to rewrite: tier 0's count; the new label is right. */
	assert_int_equal(tl_tierlist_hint(&l0, &sb2, &hint), 1);
	assert_int_equal(hint.nr_tiers, 3);
	assert_int_equal(hint.tier_index, 0);
	assert_int_equal(tier_label_check_sb(&hint, &sb2, 0, NULL), 0);
	assert_int_equal(tl_tierlist_hint(&nl, &sb2, &hint), 0);

	/* remove-tier committed, the label not wiped: stale again. */
	sb3 = sb2;
	assert_int_equal(tier_sb_set_tier_count(&sb3, 2, NULL), 0);
	tl_group_apply_sb(&gs, &gs.group[0], &sb3);
	assert_int_equal(gs.group[0].nr_tiers, 2);
	assert_int_equal(gs.group[0].nr_stale, 1);
	assert_int_equal(tl_tierlist_hint(&nl, &sb3, &hint), -1);
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_OK);
	tl_groups_free(&gs);
}

/*
 * A tier inserted at position 1 and one removed from the middle: activate
 * groups the members by the superblock whatever their hints say, both
 * before the commit (the new label stale; its hint collides with tier 1's)
 * and after it (old hints on the tiers that moved).
 */
static void test_tier_list_middle(void **state)
{
	struct tier_label l0, l1, nl, hint;
	struct tier_sb sb, sb2, sb3;
	struct tier_sb_tier rec;
	struct tl_err err = { "" };
	struct tl_groups gs;
	struct tier_fresh f;
	char params[512];
	u8 mu[TIER_UUID_LEN];
	u64 sectors;

	(void)state;
	plan(&f, "mid", 3, false, 0x91);
	tier_fresh_sb(&f, &sb);
	/* A virtual size tiers 0 and 2 hold: tier 1 may go. */
	sb.virt_extents = sb.tier[0].nr_extents;
	tier_fresh_label(&f, 0, &l0);
	tier_fresh_label(&f, 1, &l1);
	memset(mu, 0xed, sizeof(mu));
	assert_int_equal(tl_tierlist_new_label_at(&l0, &sb, 1,
						  256 * MiB_SECTORS,
						  TIER_CLASS_NVMF, mu, &nl,
						  &err),
			 TL_OK);
	assert_int_equal(nl.tier_index, 1);
	assert_int_equal(nl.nr_tiers, 4);
	assert_int_equal(tier_label_check_new(&nl, &sb, 1, 256 * MiB_SECTORS,
					      NULL),
			 0);
	assert_int_equal(tl_tierlist_new_label_at(&l0, &sb, 0,
						  256 * MiB_SECTORS,
						  TIER_CLASS_NVMF, mu, &hint,
						  &err),
			 TL_USAGE);
	assert_int_equal(tl_tierlist_new_label_at(&l0, &sb, 4,
						  256 * MiB_SECTORS,
						  TIER_CLASS_NVMF, mu, &hint,
						  &err),
			 TL_USAGE);

	/* Crash before the commit: the old list, the new label stale. */
	tl_groups_init(&gs);
	add(&gs, &f, 0, "/dev/a");
	add(&gs, &f, 1, "/dev/b");
	add(&gs, &f, 2, "/dev/c");
	add_label(&gs, &nl, "/dev/new");
	assert_int_equal(gs.nr_groups, 1);
	tl_group_apply_sb(&gs, &gs.group[0], &sb);
	assert_int_equal(gs.group[0].nr_tiers, 3);
	assert_int_equal(gs.group[0].nr_stale, 1);
	assert_string_equal(gs.member[gs.group[0].stale[0]].path, "/dev/new");
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_OK);
	assert_int_equal(tl_group_table(&gs, &gs.group[0], sb.virt_extents,
					params, sizeof(params), &sectors, &err),
			 TL_OK);
	assert_non_null(strstr(params, " 3 /dev/a /dev/b /dev/c"));

	/* After the commit: the new device at 1, b and c moved up. */
	sb2 = sb;
	tier_sb_tier_from_label(&nl, &rec);
	assert_int_equal(tier_sb_insert_tier(&sb2, 1, &rec), 0);
	tl_group_apply_sb(&gs, &gs.group[0], &sb2);
	assert_int_equal(gs.group[0].nr_tiers, 4);
	assert_int_equal(gs.group[0].nr_stale, 0);
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_OK);
	assert_int_equal(tl_group_table(&gs, &gs.group[0], sb2.virt_extents,
					params, sizeof(params), &sectors, &err),
			 TL_OK);
	assert_non_null(strstr(params, " 4 /dev/a /dev/new /dev/b /dev/c"));
	/* Hints to rewrite: b's index moves to 2. */
	assert_int_equal(tl_tierlist_hint(&l1, &sb2, &hint), 1);
	assert_int_equal(hint.tier_index, 2);
	assert_int_equal(hint.nr_tiers, 4);
	assert_int_equal(tier_label_check_sb(&hint, &sb2, 2, NULL), 0);
	assert_int_equal(tl_tierlist_hint(&nl, &sb2, &hint), 0);

	/* Tier 2 (b) removed, its label not wiped: stale; c moves to 2. */
	sb3 = sb2;
	assert_int_equal(tier_sb_remove_tier(&sb3, 2), 0);
	tl_group_apply_sb(&gs, &gs.group[0], &sb3);
	assert_int_equal(gs.group[0].nr_tiers, 3);
	assert_int_equal(gs.group[0].nr_stale, 1);
	assert_string_equal(gs.member[gs.group[0].stale[0]].path, "/dev/b");
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_OK);
	assert_int_equal(tl_group_table(&gs, &gs.group[0], sb3.virt_extents,
					params, sizeof(params), &sectors, &err),
			 TL_OK);
	assert_non_null(strstr(params, " 3 /dev/a /dev/new /dev/c"));
	assert_int_equal(tl_tierlist_hint(&l1, &sb3, &hint), -1);
	tl_groups_free(&gs);
}

static void test_table_tier_list(void **state)
{
	const char *line = "2048 2 8:0 8:16 2 commit_interval_ms 500";
	char out[512], back[512];
	struct tl_err err = { "" };

	(void)state;
	assert_int_equal(tl_table_add_tier(line, "8:32", out, sizeof(out), &err),
			 TL_OK);
	assert_string_equal(out, "2048 3 8:0 8:16 8:32 2 commit_interval_ms 500");
	assert_int_equal(tl_table_drop_last_tier(out, back, sizeof(back), &err),
			 TL_OK);
	assert_string_equal(back, line);
	assert_int_equal(tl_table_drop_last_tier("2048 1 8:0", back,
						 sizeof(back), &err),
			 TL_FAIL);
	assert_non_null(strstr(err.msg, "single tier"));
	assert_int_equal(tl_table_add_tier("2048 8 a b c d e f g h", "i", out,
					   sizeof(out), &err),
			 TL_FAIL);
	assert_int_equal(tl_table_add_tier("2048 3 a b", "i", out, sizeof(out),
					   &err),
			 TL_FAIL);
	assert_int_equal(tl_table_add_tier("2048 1 8:0", "8:16", out, 12, &err),
			 TL_FAIL);
	/* In the middle: inserted at 1, dropped again; dropping tier 1. */
	assert_int_equal(tl_table_insert_tier(line, 1, "8:32", out, sizeof(out),
					      &err),
			 TL_OK);
	assert_string_equal(out, "2048 3 8:0 8:32 8:16 2 commit_interval_ms 500");
	assert_int_equal(tl_table_drop_tier(out, 1, back, sizeof(back), &err),
			 TL_OK);
	assert_string_equal(back, line);
	assert_int_equal(tl_table_drop_tier(out, 2, back, sizeof(back), &err),
			 TL_OK);
	assert_string_equal(back, "2048 2 8:0 8:32 2 commit_interval_ms 500");
	assert_int_equal(tl_table_drop_tier(out, 3, back, sizeof(back), &err),
			 TL_FAIL);
	assert_int_equal(tl_table_insert_tier(line, 3, "8:32", out, sizeof(out),
					      &err),
			 TL_FAIL);
	assert_int_equal(tl_table_insert_tier("2048 1 8:0", 0, "8:16", out,
					      sizeof(out), &err),
			 TL_OK);
	assert_string_equal(out, "2048 2 8:16 8:0");
}

/*
 * Replacing tier 0 (docs/FORMAT.md "Replacing tier 0"), as activate sees
 * the disks at each crash point: the new tier's label with a spare
 * metadata area, the metadata holders (old tier 0, new tier) and the one
 * whose superblock wins, the label rewritten to hold the metadata.
 */
static void test_tier0_replace(void **state)
{
	struct tier_label l0, nl, out;
	struct tier_sb sb, sb2, sbs[3];
	struct tier_sb_tier rec;
	struct tl_err err = { "" };
	struct tl_groups gs;
	struct tier_fresh f;
	u8 mu[TIER_UUID_LEN];
	int mi[TIER_MAX_DEVS], ret[3];
	char params[512];
	u64 sectors;

	(void)state;
	plan(&f, "zero", 3, false, 0x51);
	tier_fresh_sb(&f, &sb);
	sb.virt_extents = sb.tier[1].nr_extents;
	tier_fresh_label(&f, 0, &l0);
	memset(mu, 0xab, sizeof(mu));
	assert_int_equal(tl_tierlist_new_label_at(&l0, &sb, 1,
						  256 * MiB_SECTORS,
						  TIER_CLASS_NVME, mu, &nl,
						  &err),
			 TL_OK);
	assert_int_equal(tl_tierlist_spare_label(&nl, &sb, &err), TL_OK);
	assert_int_equal(nl.spare_meta_blocks, 2 + 2 * sb.map_blocks);
	assert_true(nl.data_start >= TIER_META_START +
					     nl.spare_meta_blocks * 8);
	assert_int_equal(nl.data_start % TIER_DATA_ALIGN, 0);
	assert_int_equal(nl.nr_extents,
			 (256 * MiB_SECTORS - nl.data_start) >> sb.extent_shift);
	assert_int_equal(tier_label_check_new(&nl, &sb, 1, 256 * MiB_SECTORS,
					      NULL),
			 0);
	/* Too small for the area and one extent; no area with a metadata dev. */
	out = nl;
	out.dev_sectors = nl.data_start;
	assert_int_equal(tl_tierlist_spare_label(&out, &sb, &err), TL_USAGE);
	sb2 = sb;
	sb2.flags |= TIER_SB_F_META_EXT;
	out = nl;
	assert_int_equal(tl_tierlist_spare_label(&out, &sb2, &err), TL_USAGE);

	/* The labels: tier 0 and the new tier may hold the metadata. */
	tl_groups_init(&gs);
	add(&gs, &f, 0, "/dev/old0");
	add(&gs, &f, 1, "/dev/b");
	add(&gs, &f, 2, "/dev/c");
	add_label(&gs, &nl, "/dev/new");
	assert_int_equal(gs.nr_groups, 1);
	assert_int_equal(tl_group_meta_candidates(&gs, &gs.group[0], mi,
						  TIER_MAX_DEVS),
			 2);
	assert_string_equal(gs.member[mi[0]].path, "/dev/old0");
	assert_string_equal(gs.member[mi[1]].path, "/dev/new");
	assert_int_equal(tl_group_meta_candidates(&gs, &gs.group[0], mi, 1), 1);

	/* Crash before the switch: only the old tier 0 has a superblock. */
	sbs[0] = sb;
	sbs[0].generation = 40;
	ret[0] = 0;
	ret[1] = -ENODATA;
	assert_int_equal(tl_meta_pick(sbs, ret, 2), 0);
	/* After it: the new tier's superblock, one generation up, wins. */
	sb2 = sb;
	tier_sb_tier_from_label(&nl, &rec);
	assert_int_equal(tier_sb_insert_tier(&sb2, 1, &rec), 0);
	assert_int_equal(tier_sb_remove_tier(&sb2, 0), 0);
	sb2.generation = 41;
	sbs[1] = sb2;
	ret[1] = 0;
	assert_int_equal(tl_meta_pick(sbs, ret, 2), 1);
	/* Whatever the scan order; none valid: none. */
	sbs[2] = sbs[0];
	ret[2] = 0;
	assert_int_equal(tl_meta_pick(sbs + 1, ret + 1, 2), 0);
	ret[0] = ret[1] = -EBADMSG;
	assert_int_equal(tl_meta_pick(sbs, ret, 2), -1);
	assert_int_equal(tl_meta_pick(sbs, ret, 0), -1);

	/* The new list: the new device is tier 0, the old one stale. */
	tl_group_apply_sb(&gs, &gs.group[0], &sb2);
	assert_int_equal(gs.group[0].nr_tiers, 3);
	assert_int_equal(gs.group[0].nr_stale, 1);
	assert_string_equal(gs.member[gs.group[0].stale[0]].path, "/dev/old0");
	assert_int_equal(tl_group_check(&gs, &gs.group[0], &err), TL_OK);
	assert_int_equal(tier_label_check_sb(&nl, &sb2, 0, NULL), 0);
	assert_int_equal(tl_group_table(&gs, &gs.group[0], sb2.virt_extents,
					params, sizeof(params), &sectors, &err),
			 TL_OK);
	assert_non_null(strstr(params, " 3 /dev/new /dev/b /dev/c"));
	tl_groups_free(&gs);

	/* Its label rewritten: it holds the metadata, the area is its own. */
	assert_int_equal(tl_tierlist_hint(&nl, &sb2, &out), 1);
	assert_int_equal(out.tier_index, 0);
	assert_true(out.flags & TIER_LABEL_F_META);
	assert_int_equal(out.meta_start, TIER_META_START);
	assert_int_equal(out.meta_blocks, nl.spare_meta_blocks);
	assert_int_equal(out.spare_meta_blocks, 0);
	assert_int_equal(tier_label_check_sb(&out, &sb2, 0, NULL), 0);
	assert_int_equal(tl_tierlist_hint(&out, &sb2, &l0), 0);
	/* Before the switch, at 1, it keeps its spare area. */
	tier_sb_tier_from_label(&nl, &rec);
	sb2 = sb;
	assert_int_equal(tier_sb_insert_tier(&sb2, 1, &rec), 0);
	assert_int_equal(tl_tierlist_hint(&nl, &sb2, &out), 0);
	assert_int_equal(out.spare_meta_blocks, nl.spare_meta_blocks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_complete_any_order),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_meta_dev),
		cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_name_shared),
		cmocka_unit_test(test_name_elsewhere),
		cmocka_unit_test(test_two_devices_and_conflict),
		cmocka_unit_test(test_bad_virt),
		cmocka_unit_test(test_alloc_failure),
		cmocka_unit_test(test_tier_list_change),
		cmocka_unit_test(test_tier_list_middle),
		cmocka_unit_test(test_table_tier_list),
		cmocka_unit_test(test_tier0_replace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
