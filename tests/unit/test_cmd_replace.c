// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for "tierctl replace-tier" without a kernel: its command line
 * (replace_parse, user/tierctl/cmd-replace.c) and the resume decision
 * (tl_replace_next, user/lib/tl-replace.c): which step comes next, from
 * the superblock's tier list and flags and NEWDEV's member UUID, for every
 * point a crash can leave a replacement at. The kernel side: VM tests 075
 * and 076.
 */
/* tierctl.h before cmocka.h: cmocka defines a fail() macro. */
#include "tierctl.h"
#include "remote.h"
#include "tl-replace.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_ARGS 8

static int parse(struct replace_opts *o, ...)
{
	static char *argv[MAX_ARGS + 2];
	int argc = 0;
	va_list ap;
	char *a;

	argv[argc++] = "replace-tier";
	va_start(ap, o);
	while ((a = va_arg(ap, char *)) && argc <= MAX_ARGS)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return replace_parse(argc, argv, o);
}

static void test_parse(void **state)
{
	struct replace_opts o;

	(void)state;
	assert_int_equal(parse(&o, "ckpt", "1", "/dev/sdc", NULL),
			 TIERCTL_EXIT_OK);
	assert_string_equal(o.name, "ckpt");
	assert_int_equal(o.tier, 1);
	assert_string_equal(o.dev, "/dev/sdc");
	assert_null(o.class_arg);
	assert_int_equal(o.tier_class, TL_CLASS_AUTO);
	assert_false(o.json);
	assert_int_equal(parse(&o, "--class", "nvmf", "ckpt", "0", "/dev/x",
			       "--json", NULL),
			 TIERCTL_EXIT_OK);
	assert_int_equal(o.tier, 0);
	assert_int_equal(o.tier_class, TIER_CLASS_NVMF);
	assert_true(o.json);
}

static void test_parse_errors(void **state)
{
	struct replace_opts o;

	(void)state;
	assert_int_equal(parse(&o, NULL), TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "1", NULL), TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "1", "/dev/a", "/dev/b", NULL),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "x", "/dev/a", NULL),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "-1", "/dev/a", NULL),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "8", "/dev/a", NULL),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "1", "/dev/a", "--class", "mem",
			       NULL),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "1", "/dev/a", "--class", "auto",
			       NULL),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "ckpt", "1", "/dev/a", "--bogus", NULL),
			 TIERCTL_EXIT_USAGE);
}

/* A superblock of @n tiers, member UUIDs 0x10 + i, no flags. */
static void sb_n(struct tier_sb *sb, u32 n, bool meta_ext)
{
	u32 i;

	memset(sb, 0, sizeof(*sb));
	sb->nr_tiers = n;
	sb->flags = meta_ext ? TIER_SB_F_META_EXT : 0;
	for (i = 0; i < n; i++)
		memset(sb->tier[i].member_uuid, 0x10 + i, TIER_UUID_LEN);
}

static int next_spare(const struct tier_sb *sb, u32 tier, int new_fill,
		      bool spare, u64 mapped, enum tl_replace_step *step,
		      char *why)
{
	u8 uuid[TIER_UUID_LEN];

	memset(uuid, new_fill, TIER_UUID_LEN);
	*step = 99;
	why[0] = '\0';
	return tl_replace_next(sb, tier, new_fill ? uuid : NULL, spare, mapped,
			       step, why, 512);
}

static int next(const struct tier_sb *sb, u32 tier, int new_fill, u64 mapped,
		enum tl_replace_step *step, char *why)
{
	return next_spare(sb, tier, new_fill, false, mapped, step, why);
}

/* Each point of a replacement of tier 1 of three by member 0x77. */
static void test_resume_steps(void **state)
{
	enum tl_replace_step s;
	struct tier_sb sb;
	char why[512];

	(void)state;
	/* Not started: NEWDEV has no label of this device. */
	sb_n(&sb, 3, false);
	assert_int_equal(next(&sb, 1, 0, 50, &s, why), TL_OK);
	assert_int_equal(s, TL_REPLACE_ADD);
	/* Cut after the label, before the commit: not listed, add again. */
	assert_int_equal(next(&sb, 1, 0x77, 50, &s, why), TL_OK);
	assert_int_equal(s, TL_REPLACE_ADD);
	/* Cut after the add's commit: 0x77 is tier 2, tier 1 not flagged. */
	memmove(&sb.tier[3], &sb.tier[2], sizeof(sb.tier[0]));
	memset(sb.tier[2].member_uuid, 0x77, TIER_UUID_LEN);
	sb.nr_tiers = 4;
	assert_int_equal(next(&sb, 1, 0x77, 50, &s, why), TL_OK);
	assert_int_equal(s, TL_REPLACE_EVACUATE);
	/* Cut during the evacuation: flagged, extents left: resume it. */
	sb.tier[1].flags = TIER_SB_TIER_F_EVACUATE;
	assert_int_equal(next(&sb, 1, 0x77, 20, &s, why), TL_OK);
	assert_int_equal(s, TL_REPLACE_EVACUATE);
	/* Evacuated: empty, remove it. */
	assert_int_equal(next(&sb, 1, 0x77, 0, &s, why), TL_OK);
	assert_int_equal(s, TL_REPLACE_REMOVE);
	/* Empty but never flagged (nothing was on it): evacuate first, so
	 * that nothing lands on it before the removal. */
	sb.tier[1].flags = 0;
	assert_int_equal(next(&sb, 1, 0x77, 0, &s, why), TL_OK);
	assert_int_equal(s, TL_REPLACE_EVACUATE);
	/* Removed: 0x77 is tier 1. */
	sb_n(&sb, 3, false);
	memset(sb.tier[1].member_uuid, 0x77, TIER_UUID_LEN);
	assert_int_equal(next(&sb, 1, 0x77, 0, &s, why), TL_OK);
	assert_int_equal(s, TL_REPLACE_DONE);
}

/* The last tier: the new one is appended after it. */
static void test_resume_last(void **state)
{
	enum tl_replace_step s;
	struct tier_sb sb;
	char why[512];

	(void)state;
	sb_n(&sb, 2, false);
	assert_int_equal(next(&sb, 1, 0, 5, &s, why), TL_OK);
	assert_int_equal(s, TL_REPLACE_ADD);
	sb_n(&sb, 3, false);
	memset(sb.tier[2].member_uuid, 0x77, TIER_UUID_LEN);
	sb.tier[1].flags = TIER_SB_TIER_F_EVACUATE;
	assert_int_equal(next(&sb, 1, 0x77, 0, &s, why), TL_OK);
	assert_int_equal(s, TL_REPLACE_REMOVE);
}

/*
 * Tier 0 (issue 18): NEWDEV added at 1 (with a spare metadata area when
 * tier 0 holds the metadata), tier 0 evacuated onto it, then removed: the
 * metadata moves with that removal. Each point a crash can leave.
 */
static void test_resume_tier0(void **state)
{
	enum tl_replace_step s;
	struct tier_sb sb;
	char why[512];
	int ext;

	(void)state;
	for (ext = 0; ext < 2; ext++) {
		sb_n(&sb, 3, ext);
		assert_int_equal(next(&sb, 0, 0, 50, &s, why), TL_OK);
		assert_int_equal(s, TL_REPLACE_ADD);
		/* Label written, not committed: add again. */
		assert_int_equal(next_spare(&sb, 0, 0x77, true, 50, &s, why),
				 TL_OK);
		assert_int_equal(s, TL_REPLACE_ADD);
		/* Committed at 1. */
		memmove(&sb.tier[2], &sb.tier[1], 2 * sizeof(sb.tier[0]));
		memset(sb.tier[1].member_uuid, 0x77, TIER_UUID_LEN);
		sb.nr_tiers = 4;
		assert_int_equal(next_spare(&sb, 0, 0x77, !ext, 50, &s, why),
				 TL_OK);
		assert_int_equal(s, TL_REPLACE_EVACUATE);
		sb.tier[0].flags = TIER_SB_TIER_F_EVACUATE;
		assert_int_equal(next_spare(&sb, 0, 0x77, !ext, 9, &s, why),
				 TL_OK);
		assert_int_equal(s, TL_REPLACE_EVACUATE);
		assert_int_equal(next_spare(&sb, 0, 0x77, !ext, 0, &s, why),
				 TL_OK);
		assert_int_equal(s, TL_REPLACE_REMOVE);
		/* A metadata device needs no spare area on NEWDEV. */
		assert_int_equal(next(&sb, 0, 0x77, 0, &s, why),
				 ext ? TL_OK : TL_FAIL);
		/* Removed: NEWDEV is tier 0 with the metadata. */
		memmove(&sb.tier[0], &sb.tier[1], 3 * sizeof(sb.tier[0]));
		memset(&sb.tier[3], 0, sizeof(sb.tier[0]));
		sb.nr_tiers = 3;
		assert_int_equal(next_spare(&sb, 0, 0x77, !ext, 0, &s, why),
				 TL_OK);
		assert_int_equal(s, TL_REPLACE_DONE);
		/* Its label rewritten (no spare area any more): still done. */
		assert_int_equal(next(&sb, 0, 0x77, 0, &s, why), TL_OK);
		assert_int_equal(s, TL_REPLACE_DONE);
	}
}

static void test_refusals(void **state)
{
	enum tl_replace_step s;
	struct tier_sb sb;
	char why[512];

	(void)state;
	/* NEWDEV tier 1 without room for tier 0's metadata: refused. */
	sb_n(&sb, 4, false);
	memset(sb.tier[1].member_uuid, 0x77, TIER_UUID_LEN);
	assert_int_equal(next(&sb, 0, 0x77, 5, &s, why), TL_FAIL);
	assert_non_null(strstr(why, "without room for the metadata"));
	assert_int_equal(s, 99);
	/* No such tier. */
	sb_n(&sb, 3, false);
	assert_int_equal(next(&sb, 3, 0, 0, &s, why), TL_USAGE);
	assert_non_null(strstr(why, "tiers 0 to 2"));
	/* NEWDEV is another member already (tier 0, or tier 3 of four). */
	assert_int_equal(next(&sb, 1, 0x10, 0, &s, why), TL_USAGE);
	assert_non_null(strstr(why, "tier 0 of this device already"));
	sb_n(&sb, 4, false);
	assert_int_equal(next(&sb, 1, 0x13, 0, &s, why), TL_USAGE);
	assert_non_null(strstr(why, "tier 3 of this device already"));
	sb_n(&sb, 3, false);
	/* NEWDEV is the tier itself: nothing to do. */
	assert_int_equal(next(&sb, 1, 0x11, 9, &s, why), TL_OK);
	assert_int_equal(s, TL_REPLACE_DONE);
	/* A full list: no room for the extra tier a replacement needs. */
	sb_n(&sb, TIER_MAX_TIERS, false);
	assert_int_equal(next(&sb, 1, 0, 0, &s, why), TL_FAIL);
	assert_non_null(strstr(why, "needs one more"));
	/* The new tier itself being evacuated: cancel that first. */
	sb_n(&sb, 3, false);
	memset(sb.tier[2].member_uuid, 0x77, TIER_UUID_LEN);
	sb.tier[2].flags = TIER_SB_TIER_F_EVACUATE;
	assert_int_equal(next(&sb, 1, 0x77, 3, &s, why), TL_FAIL);
	assert_non_null(strstr(why, "evacuate NAME 2 --cancel"));
}

/*
 * An nvmf:// NEWDEV (or add-tier DEV) and its connection options: parsed
 * as create parses them, refused without a URI, nothing connected yet.
 */
static void test_remote_parse(void **state)
{
	struct replace_opts o;
	struct tierctl_remote r;

	(void)state;
	assert_int_equal(parse(&o, "ckpt", "1",
			       "nvmf://tcp/127.0.0.1:4420/nqn.2024-01.io.dm-tier:c1",
			       "--disconnect", "--ctrl-loss-tmo", "60",
			       "--fast-io-fail-tmo", "3", NULL),
			 TIERCTL_EXIT_OK);
	assert_true(o.disconnect);
	assert_string_equal(o.loss_tmo_arg, "60");
	assert_string_equal(o.fail_arg, "3");
	assert_null(o.reconnect_arg);
	assert_int_equal(tierctl_remote_parse("replace-tier", o.dev,
					      o.loss_tmo_arg, o.reconnect_arg,
					      o.fail_arg, &r),
			 TIERCTL_EXIT_OK);
	assert_true(r.is_remote);
	assert_false(r.connected_now);
	assert_int_equal(r.opts.ctrl_loss_tmo, 60);
	assert_int_equal(r.opts.fast_io_fail_tmo, 3);
	assert_int_equal(r.opts.reconnect_delay, 2);
	assert_string_equal(r.uri.subsysnqn, "nqn.2024-01.io.dm-tier:c1");
	assert_string_equal(r.uri_text,
			    "nvmf://tcp/127.0.0.1:4420/nqn.2024-01.io.dm-tier:c1");
	assert_string_equal(r.dev, "");

	/* A local device: itself, options refused. */
	assert_int_equal(tierctl_remote_parse("add-tier", "/dev/nvme3n1", NULL,
					      NULL, NULL, &r),
			 TIERCTL_EXIT_OK);
	assert_false(r.is_remote);
	assert_string_equal(r.dev, "/dev/nvme3n1");
	assert_int_equal(tierctl_remote_parse("add-tier", "/dev/nvme3n1", "60",
					      NULL, NULL, &r),
			 TIERCTL_EXIT_USAGE);
	/* A bad URI, bad or clashing options. */
	assert_int_equal(tierctl_remote_parse("add-tier",
					      "nvmf://udp/127.0.0.1:4420/nqn.x",
					      NULL, NULL, NULL, &r),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(tierctl_remote_parse("add-tier",
					      "nvmf://tcp/127.0.0.1:0/nqn.x",
					      NULL, NULL, NULL, &r),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(tierctl_remote_parse("add-tier",
					      "nvmf://tcp/127.0.0.1:4420/nqn.x",
					      NULL, "0", NULL, &r),
			 TIERCTL_EXIT_USAGE);
	/* fast_io_fail_tmo must be shorter than ctrl_loss_tmo. */
	assert_int_equal(tierctl_remote_parse("add-tier",
					      "nvmf://tcp/127.0.0.1:4420/nqn.x",
					      "10", NULL, "20", &r),
			 TIERCTL_EXIT_USAGE);
}

static void test_step_names(void **state)
{
	(void)state;
	assert_string_equal(tl_replace_step_name(TL_REPLACE_ADD), "add");
	assert_string_equal(tl_replace_step_name(TL_REPLACE_EVACUATE),
			    "evacuate");
	assert_string_equal(tl_replace_step_name(TL_REPLACE_REMOVE), "remove");
	assert_string_equal(tl_replace_step_name(TL_REPLACE_DONE), "done");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_resume_steps),
		cmocka_unit_test(test_resume_last),
		cmocka_unit_test(test_resume_tier0),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_step_names),
		cmocka_unit_test(test_remote_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
