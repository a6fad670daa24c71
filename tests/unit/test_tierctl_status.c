// SPDX-License-Identifier: GPL-2.0
/* Unit tests for user/lib/tl-status.c (the kernel's status and table lines
 * as tierctl reads them) and user/lib/tl-util.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tl.h"
#include "tl-status.h"

static void test_status_one_tier(void **state)
{
	struct tl_status st;
	struct tl_err err = { "" };

	(void)state;
	assert_int_equal(tl_status_parse("rw 42 2048 100 7 1 ok 200 7 1234 567 0",
					 &st, &err),
			 TL_OK);
	assert_string_equal(st.metadata_mode, "rw");
	assert_int_equal(st.commits, 42);
	assert_int_equal(st.extent_sectors, 2048);
	assert_int_equal(st.virt_extents, 100);
	assert_int_equal(st.mapped_extents, 7);
	assert_int_equal(st.nr_tiers, 1);
	assert_string_equal(st.tier[0].state, "ok");
	assert_int_equal(st.tier[0].total_extents, 200);
	assert_int_equal(st.tier[0].used_extents, 7);
	assert_int_equal(st.tier[0].read_ios, 1234);
	assert_int_equal(st.tier[0].write_ios, 567);
	assert_int_equal(st.nospc_errors, 0);
}

static void test_status_three_tiers(void **state)
{
	struct tl_status st;
	struct tl_err err = { "" };

	(void)state;
	assert_int_equal(tl_status_parse("ro 18446744073709551615 131072 1000 600 3 "
					 "ok 100 100 1 2 degraded 500 300 3 4 "
					 "offline 1000 200 5 6 9",
					 &st, &err),
			 TL_OK);
	assert_string_equal(st.metadata_mode, "ro");
	assert_true(st.commits == UINT64_MAX);
	assert_int_equal(st.nr_tiers, 3);
	assert_string_equal(st.tier[1].state, "degraded");
	assert_string_equal(st.tier[2].state, "offline");
	assert_int_equal(st.tier[2].total_extents, 1000);
	assert_int_equal(st.tier[2].write_ios, 6);
	assert_int_equal(st.nospc_errors, 9);
}

/* A module without the migration engine ends the line at nospc_errors. */
static void test_status_old_line(void **state)
{
	struct tl_status st;

	(void)state;
	memset(&st, 0x5a, sizeof(st));
	assert_int_equal(tl_status_parse("rw 42 2048 100 7 2 ok 200 7 1 2 ok 900 0 3 4 5",
					 &st, NULL),
			 TL_OK);
	assert_int_equal(st.nospc_errors, 5);
	assert_false(st.mig.present);
	assert_string_equal(st.mig.pace, "unknown");
	assert_int_equal(st.mig.promotions, 0);
	assert_int_equal(st.mig.demotions, 0);
	assert_int_equal(st.mig.moved_bytes, 0);
	assert_int_equal(st.mig.in_flight, 0);
	assert_int_equal(st.mig.above_high_ms, 0);
	assert_int_equal(st.mig.errors, 0);
	assert_int_equal(st.mig.manual_pending, 0);
	assert_int_equal(st.tier[0].mapped_extents, 0);
	assert_int_equal(st.tier[1].mapped_extents, 0);
}

static void test_status_migration(void **state)
{
	struct tl_status st;
	struct tl_err err = { "" };

	(void)state;
	assert_int_equal(tl_status_parse("rw 42 2048 1000 300 2 ok 200 150 11 12 "
					 "ok 900 160 13 14 3 "
					 "12 40 1288490188 3 full 4100 1 17 140 160",
					 &st, &err),
			 TL_OK);
	assert_int_equal(st.nospc_errors, 3);
	assert_true(st.mig.present);
	assert_int_equal(st.mig.promotions, 12);
	assert_int_equal(st.mig.demotions, 40);
	assert_int_equal(st.mig.moved_bytes, 1288490188);
	assert_int_equal(st.mig.in_flight, 3);
	assert_string_equal(st.mig.pace, "full");
	assert_int_equal(st.mig.above_high_ms, 4100);
	assert_int_equal(st.mig.errors, 1);
	assert_int_equal(st.mig.manual_pending, 17);
	assert_int_equal(st.tier[0].mapped_extents, 140);
	assert_int_equal(st.tier[1].mapped_extents, 160);

	/* One tier, every pace word, u64 limits. */
	assert_int_equal(tl_status_parse("rw 1 128 10 0 1 ok 10 0 0 0 0 "
					 "0 0 18446744073709551615 0 idle 0 0 0 0",
					 &st, &err),
			 TL_OK);
	assert_string_equal(st.mig.pace, "idle");
	assert_true(st.mig.moved_bytes == UINT64_MAX);
	assert_int_equal(st.tier[0].mapped_extents, 0);
	assert_int_equal(tl_status_parse("rw 1 128 10 0 1 ok 10 0 0 0 0 0 0 0 1 deadline 0 0 0 10",
					 &st, &err),
			 TL_OK);
	assert_string_equal(st.mig.pace, "deadline");
	assert_int_equal(st.tier[0].mapped_extents, 10);
	assert_int_equal(tl_status_parse("rw 1 128 10 0 1 ok 10 0 0 0 0 0 0 0 1 background 0 0 0 0",
					 &st, &err),
			 TL_OK);
	assert_string_equal(st.mig.pace, "background");
	/* A pace word this tierctl does not know is still shown. */
	assert_int_equal(tl_status_parse("rw 1 128 10 0 1 ok 10 0 0 0 0 0 0 0 1 turbo_2 0 0 0 0",
					 &st, &err),
			 TL_OK);
	assert_string_equal(st.mig.pace, "turbo_2");
}

static void test_status_extra_fields(void **state)
{
	struct tl_status st;

	(void)state;
	/* Later kernels may append fields after the migration part: ignored.
	 * Blanks are flexible. */
	assert_int_equal(tl_status_parse("  fail 1 128 10 0 1 ok 10 0 0 0 3 "
					 "1 2 3 4 idle 5 6 7 0 - 0 0 0 0 0 0 0 0 future 7 x\n",
					 &st, NULL),
			 TL_OK);
	assert_string_equal(st.metadata_mode, "fail");
	assert_int_equal(st.nospc_errors, 3);
	assert_true(st.mig.present);
	assert_int_equal(st.mig.manual_pending, 7);
	assert_int_equal(st.tier[0].mapped_extents, 0);
	assert_int_equal(tl_status_parse("\tfail 1 128 10 0 1 ok 10 0 0 0 3\t1 2 3 4\tidle 5 6 7 0\t\n",
					 &st, NULL),
			 TL_OK);
	assert_int_equal(st.mig.above_high_ms, 5);
	/* A state or mode this tierctl does not know is still shown. */
	assert_int_equal(tl_status_parse("needs_check 1 128 10 0 1 resync-2 10 0 0 0 0",
					 &st, NULL),
			 TL_OK);
	assert_string_equal(st.metadata_mode, "needs_check");
	assert_string_equal(st.tier[0].state, "resync-2");
}

struct bad_case {
	const char *line;
	const char *msg_part;
};

static const struct bad_case bad[] = {
	{ "", "fields" },
	{ "rw 1 2048 100 7", "fields" },
	{ "rw 1 2048 100 7 1", "expected 12 for 1 tiers" },
	{ "rw 1 2048 100 7 1 ok 200 7 1234 567", "expected 12" },
	{ "rw 1 2048 100 7 2 ok 200 7 1234 567 0", "expected 17 for 2 tiers" },
	{ "RW 1 2048 100 7 1 ok 200 7 1234 567 0", "metadata mode" },
	{ "1rw 1 2048 100 7 1 ok 200 7 1234 567 0", "metadata mode" },
	{ "averyveryverylongmode 1 2048 100 7 1 ok 200 7 1 5 0", "metadata mode" },
	{ "rw x 2048 100 7 1 ok 200 7 1234 567 0", "commits" },
	{ "rw -1 2048 100 7 1 ok 200 7 1234 567 0", "commits" },
	{ "rw 18446744073709551616 2048 100 7 1 ok 200 7 1 5 0", "commits" },
	{ "rw 1 2000 100 7 1 ok 200 7 1234 567 0", "extent size" },
	{ "rw 1 64 100 7 1 ok 200 7 1234 567 0", "extent size" },
	{ "rw 1 262144 100 7 1 ok 200 7 1234 567 0", "extent size" },
	{ "rw 1 2048 100 101 1 ok 200 7 1234 567 0", "exceed" },
	{ "rw 1 2048 100 7 0 0", "tier count" },
	{ "rw 1 2048 100 7 9 ok 1 1 1 1", "tier count" },
	{ "rw 1 2048 100 7 1 OK 200 7 1234 567 0", "tier 0: bad state" },
	{ "rw 1 2048 100 7 1 7 200 7 1234 567 0", "tier 0: bad state" },
	{ "rw 1 2048 100 7 1 ok 20x 7 1234 567 0", "tier 0: bad total extents" },
	{ "rw 1 2048 100 7 1 ok 200 7 12.4 567 0", "tier 0: bad read" },
	{ "rw 1 2048 100 7 1 ok 200 7 1 +5 0", "tier 0: bad write" },
	{ "rw 1 2048 100 7 1 ok 200 201 1 5 0", "used extents exceed" },
	{ "rw 1 2048 100 7 1 ok 200 7 1 5 -", "nospc" },
	/* The migration part: all of it or none. */
	{ "rw 1 2048 100 7 1 ok 200 7 1 5 0 1", "migration fields cut short: 1 after" },
	{ "rw 1 2048 100 7 1 ok 200 7 1 5 0 1 2 3 4 idle 5 6 7",
	  "cut short: 8 after the nospc error count, expected 9 for 1 tiers" },
	{ "rw 1 2048 100 7 2 ok 200 7 1 5 ok 200 0 1 5 0 1 2 3 4 idle 5 6 7 7",
	  "expected 10 for 2 tiers" },
	{ "rw 1 2048 100 7 1 ok 200 7 1 5 0 x 2 3 4 idle 5 6 7 7", "bad migration promotion count 'x'" },
	{ "rw 1 2048 100 7 1 ok 200 7 1 5 0 1 -2 3 4 idle 5 6 7 7", "bad migration demotion count" },
	{ "rw 1 2048 100 7 1 ok 200 7 1 5 0 1 2 1.5G 4 idle 5 6 7 7", "bad migration moved bytes" },
	{ "rw 1 2048 100 7 1 ok 200 7 1 5 0 1 2 3 idle 4 5 6 7 7", "bad migration in-flight copies 'idle'" },
	{ "rw 1 2048 100 7 1 ok 200 7 1 5 0 1 2 3 4 5 idle 6 7 7", "bad migration pace '5'" },
	{ "rw 1 2048 100 7 1 ok 200 7 1 5 0 1 2 3 4 FULL 5 6 7 7", "bad migration pace 'FULL'" },
	{ "rw 1 2048 100 7 1 ok 200 7 1 5 0 1 2 3 4 idle 5s 6 7 7", "bad migration time above high" },
	{ "rw 1 2048 100 7 1 ok 200 7 1 5 0 1 2 3 4 idle 5 e 7 7", "bad migration migration error" },
	{ "rw 1 2048 100 7 1 ok 200 7 1 5 0 1 2 3 4 idle 5 6 18446744073709551616 7",
	  "bad migration pending migrate" },
	{ "rw 1 2048 100 7 1 ok 200 7 1 5 0 1 2 3 4 idle 5 6 7 ok", "tier 0: bad mapped extent count 'ok'" },
	{ "rw 1 2048 100 7 2 ok 200 7 1 5 ok 50 0 1 5 0 1 2 3 4 idle 5 6 7 7 51",
	  "tier 1: 51 mapped extents exceed 50 total" },
};

static void test_status_malformed(void **state)
{
	struct tl_status st;
	size_t i;

	(void)state;
	memset(&st, 0x5a, sizeof(st));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct tl_err err = { "" };
		int rc = tl_status_parse(bad[i].line, &st, &err);

		if (rc != TL_FAIL)
			fail_msg("'%s' parsed", bad[i].line);
		if (!strstr(err.msg, bad[i].msg_part))
			fail_msg("'%s': message '%s' lacks '%s'", bad[i].line,
				 err.msg, bad[i].msg_part);
	}
	/* Not written on failure. */
	assert_int_equal(st.nr_tiers, 0x5a5a5a5a);
	assert_int_equal(tl_status_parse(NULL, &st, NULL), TL_FAIL);
}

static void test_table_parse_line(void **state)
{
	struct tl_table tt;
	struct tl_err err = { "" };

	(void)state;
	assert_int_equal(tl_table_parse_line("2048 2 259:0 259:1", &tt, &err),
			 TL_OK);
	assert_int_equal(tt.t.extent_sectors, 2048);
	assert_int_equal(tt.t.nr_tiers, 2);
	assert_string_equal(tt.t.tier_dev[0], "259:0");
	assert_string_equal(tt.t.tier_dev[1], "259:1");
	assert_null(tt.t.metadata_dev);
	tl_table_free(&tt);

	assert_int_equal(tl_table_parse_line("128 1 7:0 4 metadata_dev 7:1 reserve_pct 5\n",
					     &tt, &err),
			 TL_OK);
	assert_string_equal(tt.t.metadata_dev, "7:1");
	assert_int_equal(tt.t.reserve_pct, 5);
	tl_table_free(&tt);

	assert_int_equal(tl_table_parse_line("2048 2 259:0", &tt, &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "Not enough"));
	tl_table_free(&tt);
	assert_int_equal(tl_table_parse_line("2048 2 259:0 259:0", &tt, &err),
			 TL_FAIL);
	assert_non_null(strstr(err.msg, "Duplicate"));
	tl_table_free(&tt);
	assert_int_equal(tl_table_parse_line(NULL, &tt, &err), TL_FAIL);
	tl_table_free(&tt);
}

static void test_table_build(void **state)
{
	const char *devs[] = { "/dev/nvme0n1", "/dev/sdb" };
	const char *bad_devs[] = { "/dev/with blank" };
	struct tl_table tt;
	char buf[256];

	(void)state;
	assert_int_equal(tl_table_build(2, 11, devs, NULL, buf, sizeof(buf), NULL),
			 TL_OK);
	assert_string_equal(buf, "2048 2 /dev/nvme0n1 /dev/sdb");
	assert_int_equal(tl_table_build(1, 7, devs, "/dev/pmem0", buf,
					sizeof(buf), NULL),
			 TL_OK);
	assert_string_equal(buf, "128 1 /dev/nvme0n1 2 metadata_dev /dev/pmem0");
	/* What we build, the kernel's parser takes. */
	assert_int_equal(tl_table_parse_line(buf, &tt, NULL), TL_OK);
	assert_string_equal(tt.t.metadata_dev, "/dev/pmem0");
	tl_table_free(&tt);

	assert_int_equal(tl_table_build(1, 11, bad_devs, NULL, buf, sizeof(buf),
					NULL),
			 TL_FAIL);
	assert_int_equal(tl_table_build(0, 11, devs, NULL, buf, sizeof(buf), NULL),
			 TL_FAIL);
	assert_int_equal(tl_table_build(2, 11, devs, NULL, buf, 10, NULL),
			 TL_FAIL);
}

static void test_uuid(void **state)
{
	u8 u[TIER_UUID_LEN], v[TIER_UUID_LEN];
	char hex[TL_UUID_HEX_LEN + 1], dm[TL_DM_UUID_LEN + 1];
	int i;

	(void)state;
	for (i = 0; i < TIER_UUID_LEN; i++)
		u[i] = i * 17;
	tl_uuid_hex(u, hex);
	assert_string_equal(hex, "00112233445566778899aabbccddeeff");
	tl_dm_uuid(u, dm);
	assert_string_equal(dm, "DMTIER-00112233445566778899aabbccddeeff");
	assert_int_equal(strlen(dm), TL_DM_UUID_LEN);
	assert_true(tl_is_tier_dm_uuid(dm));
	assert_false(tl_is_tier_dm_uuid("LVM-abc"));
	assert_false(tl_is_tier_dm_uuid(NULL));
	assert_int_equal(tl_uuid_parse_hex("00112233445566778899AABBCCDDEEFF", v), 0);
	assert_memory_equal(u, v, TIER_UUID_LEN);
	assert_int_equal(tl_uuid_parse_hex("0011", v), -EINVAL);
	assert_int_equal(tl_uuid_parse_hex("g0112233445566778899aabbccddeeff", v),
			 -EINVAL);
	assert_int_equal(tl_uuid_random(u), 0);
	assert_int_equal(tl_uuid_random(v), 0);
	assert_memory_not_equal(u, v, TIER_UUID_LEN);
	assert_int_equal(u[6] >> 4, 4);
	assert_int_equal(u[8] >> 6, 2);
}

static void test_classes(void **state)
{
	u32 c;

	(void)state;
	assert_int_equal(tl_class_parse("nvme", &c), 0);
	assert_int_equal(c, TIER_CLASS_NVME);
	assert_int_equal(tl_class_parse("NVMF", &c), 0);
	assert_int_equal(c, TIER_CLASS_NVMF);
	assert_int_equal(tl_class_parse("pmem", &c), 0);
	assert_int_equal(c, TIER_CLASS_PMEM);
	assert_int_equal(tl_class_parse("auto", &c), 0);
	assert_int_equal(c, TL_CLASS_AUTO);
	assert_int_equal(tl_class_parse("mem", &c), -EINVAL);
	assert_int_equal(tl_class_parse("meta", &c), -EINVAL);
	assert_int_equal(tl_class_parse("", &c), -EINVAL);
	assert_int_equal(tl_class_parse(NULL, &c), -EINVAL);
	assert_string_equal(tl_class_name(TIER_CLASS_UNKNOWN), "unknown");
	assert_string_equal(tl_class_name(TIER_CLASS_NVMF), "nvmf");
	assert_string_equal(tl_class_name(99), "?");
}

static void test_extent_size_arg(void **state)
{
	struct tl_err err = { "" };
	u32 shift = 0;

	(void)state;
	assert_int_equal(tl_parse_extent_size("64K", &shift, &err), TL_OK);
	assert_int_equal(shift, 7);
	assert_int_equal(tl_parse_extent_size("1M", &shift, &err), TL_OK);
	assert_int_equal(shift, 11);
	assert_int_equal(tl_parse_extent_size("64MiB", &shift, &err), TL_OK);
	assert_int_equal(shift, 17);
	assert_int_equal(tl_parse_extent_size("2048s", &shift, &err), TL_OK);
	assert_int_equal(shift, 11);
	assert_int_equal(tl_parse_extent_size("32K", &shift, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "power of two from 64K to 64M"));
	assert_int_equal(tl_parse_extent_size("128M", &shift, &err), TL_USAGE);
	assert_int_equal(tl_parse_extent_size("3M", &shift, &err), TL_USAGE);
	assert_int_equal(tl_parse_extent_size("1MB", &shift, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "invalid extent size"));
	assert_int_equal(tl_parse_extent_size("", &shift, &err), TL_USAGE);
	assert_int_equal(shift, 11);
}

static void test_size_arg(void **state)
{
	struct tl_err err = { "" };
	u64 sectors = 0;

	(void)state;
	assert_int_equal(tl_parse_virt_size("10G", 11, &sectors, &err), TL_OK);
	assert_true(sectors == 10ULL << 21);
	assert_int_equal(tl_parse_virt_size("1000K", 11, &sectors, &err),
			 TL_USAGE);
	assert_non_null(strstr(err.msg, "not a multiple of the extent size (1 MiB)"));
	assert_int_equal(tl_parse_virt_size("64K", 7, &sectors, &err), TL_OK);
	assert_int_equal(sectors, 128);
	assert_int_equal(tl_parse_virt_size("0", 11, &sectors, &err), TL_USAGE);
	assert_int_equal(tl_parse_virt_size("16E", 11, &sectors, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "too large"));
	assert_int_equal(tl_parse_virt_size("ten", 11, &sectors, &err), TL_USAGE);
}

static void test_tier_arg(void **state)
{
	struct tl_err err = { "" };

	(void)state;
	assert_int_equal(tl_check_tier_arg("/dev/nvme0n1", &err), TL_OK);
	/* A memory tier must be well formed; whether the node can hold it is
	 * tl_numa_check()'s (test_tierctl_mem). */
	assert_int_equal(tl_check_tier_arg("numa:1:4G", &err), TL_OK);
	assert_int_equal(tl_check_tier_arg("numa:1", &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "numa:NODE:SIZE"));
	assert_int_equal(tl_check_tier_arg("", &err), TL_USAGE);
}

/* The memory tier's 9 fields after the per-tier mapped counts. */
static void test_status_mem(void **state)
{
	struct tl_status st;
	struct tl_err err = { "" };

	(void)state;
	assert_int_equal(tl_status_parse("rw 4 2048 100 7 2 ok 200 7 1 2 ok 900 0 3 4 5 "
					 "0 0 0 0 idle 0 0 0 7 0 "
					 "1 4294967296 1073741824 1024 900 100 1500 476 12",
					 &st, &err),
			 TL_OK);
	assert_int_equal(st.nr_tiers, 2);
	assert_true(st.mem.present);
	assert_int_equal(st.mem.node, 1);
	assert_int_equal(st.mem.bytes_max, 4ULL << 30);
	assert_int_equal(st.mem.bytes_used, 1ULL << 30);
	assert_int_equal(st.mem.copies, 1024);
	assert_int_equal(st.mem.hits, 900);
	assert_int_equal(st.mem.misses, 100);
	assert_int_equal(st.mem.fills, 1500);
	assert_int_equal(st.mem.evictions, 476);
	assert_int_equal(st.mem.invalidations, 12);
	assert_int_equal(tl_mem_hit_permille(&st.mem), 900);
	assert_int_equal(st.tier[0].mapped_extents, 7);

	/* "-": no memory tier; the rest is 0. */
	assert_int_equal(tl_status_parse("rw 4 2048 100 7 1 ok 200 7 1 2 5 "
					 "0 0 0 0 idle 0 0 0 7 - 0 0 0 0 0 0 0 0",
					 &st, &err),
			 TL_OK);
	assert_false(st.mem.present);
	assert_int_equal(tl_mem_hit_permille(&st.mem), -1);
	/* A module without the memory tier: no memory tier either. */
	assert_int_equal(tl_status_parse("rw 4 2048 100 7 1 ok 200 7 1 2 5 "
					 "0 0 0 0 idle 0 0 0 7",
					 &st, &err),
			 TL_OK);
	assert_false(st.mem.present);
	/* Cut short, or not numbers. */
	assert_int_equal(tl_status_parse("rw 4 2048 100 7 1 ok 200 7 1 2 5 "
					 "0 0 0 0 idle 0 0 0 7 1 4096 0",
					 &st, &err),
			 TL_FAIL);
	assert_non_null(strstr(err.msg, "memory tier fields cut short"));
	assert_int_equal(tl_status_parse("rw 4 2048 100 7 1 ok 200 7 1 2 5 "
					 "0 0 0 0 idle 0 0 0 7 x 0 0 0 0 0 0 0 0",
					 &st, &err),
			 TL_FAIL);
	assert_non_null(strstr(err.msg, "NUMA node 'x'"));
	assert_int_equal(tl_status_parse("rw 4 2048 100 7 1 ok 200 7 1 2 5 "
					 "0 0 0 0 idle 0 0 0 7 1 0 0 0 -1 0 0 0 0",
					 &st, &err),
			 TL_FAIL);
	assert_non_null(strstr(err.msg, "hit count '-1'"));
}

/* The metadata device's use after <swaps> <activation>; optional. */
static void test_status_meta(void **state)
{
	static const char head[] = "rw 4 2048 100 7 1 ok 200 7 1 2 5 "
				   "0 0 0 0 idle 0 0 0 7 - 0 0 0 0 0 0 0 0 ";
	char line[256];
	struct tl_status st;
	struct tl_err err = { "" };

	(void)state;
	snprintf(line, sizeof(line), "%s3 rw 27 16384", head);
	assert_int_equal(tl_status_parse(line, &st, &err), TL_OK);
	assert_true(st.meta.present);
	assert_int_equal(st.meta.used_blocks, 27);
	assert_int_equal(st.meta.total_blocks, 16384);
	/* Later fields are ignored. */
	snprintf(line, sizeof(line), "%s3 ro 27 16384 9 x", head);
	assert_int_equal(tl_status_parse(line, &st, &err), TL_OK);
	assert_int_equal(st.meta.total_blocks, 16384);
	/* An older module: not reported. */
	snprintf(line, sizeof(line), "%s3 rw", head);
	assert_int_equal(tl_status_parse(line, &st, &err), TL_OK);
	assert_false(st.meta.present);
	/* Anything else there (another kernel's fields): not reported. */
	snprintf(line, sizeof(line), "%s3 rw 27", head);
	assert_int_equal(tl_status_parse(line, &st, &err), TL_OK);
	assert_false(st.meta.present);
	snprintf(line, sizeof(line), "%s3 rw 27 x", head);
	assert_int_equal(tl_status_parse(line, &st, &err), TL_OK);
	assert_false(st.meta.present);
	snprintf(line, sizeof(line), "%s3 rw 28 27", head);
	assert_int_equal(tl_status_parse(line, &st, &err), TL_OK);
	assert_false(st.meta.present);
	assert_int_equal(st.meta.used_blocks, 0);
}

static void test_mem_hit_ratio(void **state)
{
	struct tl_mem_stats m = { .present = true };

	(void)state;
	assert_int_equal(tl_mem_hit_permille(&m), -1);
	m.misses = 5;
	assert_int_equal(tl_mem_hit_permille(&m), 0);
	m.hits = 5;
	assert_int_equal(tl_mem_hit_permille(&m), 500);
	m.hits = 99999;
	m.misses = 1;
	assert_int_equal(tl_mem_hit_permille(&m), 999);	/* never 100% with a miss */
	m.misses = 0;
	assert_int_equal(tl_mem_hit_permille(&m), 1000);
	m.hits = UINT64_MAX;
	m.misses = UINT64_MAX;
	assert_int_equal(tl_mem_hit_permille(&m), 500);
}

/* The memory tier keys in a table line, whichever parser knows them. */
static void test_table_mem(void **state)
{
	const char *devs[] = { "/dev/nvme0n1", "/dev/sdb" };
	struct tl_mem_cfg mem = { .on = true, .node = 1, .size_mb = 4096,
				  .promote_hits = TL_MEM_PROMOTE_HITS_DEF };
	struct tl_err err = { "" };
	struct tl_table tt;
	char buf[256];

	(void)state;
	assert_int_equal(tl_table_parse_line("2048 2 259:0 259:1 6 reserve_pct 5 mem_node 1 mem_size_mb 4096",
					     &tt, &err),
			 TL_OK);
	assert_true(tt.mem.on);
	assert_int_equal(tt.mem.node, 1);
	assert_int_equal(tt.mem.size_mb, 4096);
	assert_int_equal(tt.mem.promote_hits, TL_MEM_PROMOTE_HITS_DEF);
	assert_int_equal(tt.t.reserve_pct, 5);
	assert_int_equal(tt.t.nr_tiers, 2);
	tl_table_free(&tt);
	assert_int_equal(tl_table_parse_line("2048 1 259:0 6 mem_promote_hits 9 mem_size_mb 1 mem_node 0",
					     &tt, &err),
			 TL_OK);
	assert_true(tt.mem.on);
	assert_int_equal(tt.mem.node, 0);
	assert_int_equal(tt.mem.promote_hits, 9);
	tl_table_free(&tt);
	assert_int_equal(tl_table_parse_line("2048 1 259:0", &tt, &err), TL_OK);
	assert_false(tt.mem.on);
	tl_table_free(&tt);
	/* Both or neither; ranges; once. */
	assert_int_equal(tl_table_parse_line("2048 1 259:0 2 mem_node 1", &tt, &err),
			 TL_FAIL);
	assert_non_null(strstr(err.msg, "go together"));
	tl_table_free(&tt);
	assert_int_equal(tl_table_parse_line("2048 1 259:0 4 mem_node 1024 mem_size_mb 1",
					     &tt, &err),
			 TL_FAIL);
	tl_table_free(&tt);
	assert_int_equal(tl_table_parse_line("2048 1 259:0 4 mem_node 1 mem_size_mb 0",
					     &tt, &err),
			 TL_FAIL);
	tl_table_free(&tt);
	assert_int_equal(tl_table_parse_line("2048 1 259:0 6 mem_node 1 mem_size_mb 8 mem_node 2",
					     &tt, &err),
			 TL_FAIL);
	tl_table_free(&tt);

	/* Building: after the other options, count adjusted; parses back. */
	assert_int_equal(tl_table_build(2, 11, devs, NULL, buf, sizeof(buf), NULL),
			 TL_OK);
	assert_int_equal(tl_table_add_mem(buf, sizeof(buf), 2, &mem, &err), TL_OK);
	assert_string_equal(buf, "2048 2 /dev/nvme0n1 /dev/sdb 4 mem_node 1 mem_size_mb 4096");
	assert_int_equal(tl_table_parse_line(buf, &tt, &err), TL_OK);
	assert_true(tt.mem.on);
	assert_int_equal(tt.mem.size_mb, 4096);
	tl_table_free(&tt);
	assert_int_equal(tl_table_build(1, 11, devs, "/dev/pmem0", buf,
					sizeof(buf), NULL),
			 TL_OK);
	mem.promote_hits = 7;
	assert_int_equal(tl_table_add_mem(buf, sizeof(buf), 1, &mem, &err), TL_OK);
	assert_string_equal(buf, "2048 1 /dev/nvme0n1 8 metadata_dev /dev/pmem0 "
				 "mem_node 1 mem_size_mb 4096 mem_promote_hits 7");
	assert_int_equal(tl_table_parse_line(buf, &tt, &err), TL_OK);
	assert_string_equal(tt.t.metadata_dev, "/dev/pmem0");
	assert_int_equal(tt.mem.promote_hits, 7);
	tl_table_free(&tt);
	/* Off: unchanged; too long: refused. */
	mem.on = false;
	assert_int_equal(tl_table_add_mem(buf, sizeof(buf), 1, &mem, &err), TL_OK);
	mem.on = true;
	assert_int_equal(tl_table_build(1, 11, devs, NULL, buf, sizeof(buf), NULL),
			 TL_OK);
	assert_int_equal(tl_table_add_mem(buf, 30, 1, &mem, &err), TL_FAIL);
	mem.size_mb = 0;
	assert_int_equal(tl_table_build(1, 11, devs, NULL, buf, sizeof(buf), NULL),
			 TL_OK);
	assert_int_equal(tl_table_add_mem(buf, sizeof(buf), 1, &mem, &err), TL_FAIL);
}

static void test_err_append(void **state)
{
	struct tl_err err = { "" };
	char big[2 * TL_MSG_LEN];

	(void)state;
	tl_err_append(&err, "first %d", 1);
	assert_string_equal(err.msg, "first 1");
	tl_err_append(&err, "second");
	assert_string_equal(err.msg, "first 1\nsecond");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(tl_fail(&err, TL_FAIL, "%s", big), TL_FAIL);
	assert_int_equal(strlen(err.msg), TL_MSG_LEN - 1);
	tl_err_append(&err, "more");	/* full: ignored, no overflow */
	assert_int_equal(strlen(err.msg), TL_MSG_LEN - 1);
	assert_int_equal(tl_fail(NULL, TL_USAGE, "x"), TL_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_one_tier),
		cmocka_unit_test(test_status_three_tiers),
		cmocka_unit_test(test_status_old_line),
		cmocka_unit_test(test_status_migration),
		cmocka_unit_test(test_status_extra_fields),
		cmocka_unit_test(test_status_malformed),
		cmocka_unit_test(test_table_parse_line),
		cmocka_unit_test(test_table_build),
		cmocka_unit_test(test_uuid),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_extent_size_arg),
		cmocka_unit_test(test_size_arg),
		cmocka_unit_test(test_tier_arg),
		cmocka_unit_test(test_status_mem),
		cmocka_unit_test(test_status_meta),
		cmocka_unit_test(test_mem_hit_ratio),
		cmocka_unit_test(test_table_mem),
		cmocka_unit_test(test_err_append),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
