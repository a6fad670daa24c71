// SPDX-License-Identifier: GPL-2.0
/* Unit tests for kernel/core/units.c (size parsing used by tierctl and the
 * table parser). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "units.h"

struct size_case {
	const char *in;
	int ret;
	u64 bytes;
};

static const struct size_case cases[] = {
	{ "0", 0, 0 },
	{ "4096", 0, 4096 },
	{ "512b", 0, 512 },
	{ "8s", 0, 4096 },
	{ "8S", 0, 4096 },
	{ "64K", 0, 65536 },
	{ "64k", 0, 65536 },
	{ "64KiB", 0, 65536 },
	{ "1M", 0, 1048576 },
	{ "1MiB", 0, 1048576 },
	{ "1mib", 0, 1048576 },
	{ "2G", 0, 2ULL << 30 },
	{ "3T", 0, 3ULL << 40 },
	{ "1P", 0, 1ULL << 50 },
	{ "15E", 0, 15ULL << 60 },
	{ "18446744073709551615", 0, UINT64_MAX },
	{ "18446744073709551616", -ERANGE, 0 },
	{ "16E", -ERANGE, 0 },
	{ "17179869184G", -ERANGE, 0 },
	{ "", -EINVAL, 0 },
	{ "M", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ " 1M", -EINVAL, 0 },
	{ "1M ", -EINVAL, 0 },
	{ "1MB", -EINVAL, 0 },
	{ "1KB", -EINVAL, 0 },
	{ "1.5G", -EINVAL, 0 },
	{ "1x", -EINVAL, 0 },
	{ "1Mi", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
};

static void test_parse_size_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u64 out = 0xdeadbeef;
		int ret = tier_parse_size(cases[i].in, &out);

		if (ret != cases[i].ret)
			fail_msg("'%s': ret %d, want %d", cases[i].in, ret,
				 cases[i].ret);
		if (ret == 0 && out != cases[i].bytes)
			fail_msg("'%s': %llu, want %llu", cases[i].in,
				 (unsigned long long)out,
				 (unsigned long long)cases[i].bytes);
		if (ret != 0 && out != 0xdeadbeef)
			fail_msg("'%s': output written on error", cases[i].in);
	}
}

static void test_parse_size_null(void **state)
{
	u64 out;

	(void)state;
	assert_int_equal(tier_parse_size(NULL, &out), -EINVAL);
}

static void test_format_size(void **state)
{
	char buf[16];

	(void)state;
	assert_string_equal(tier_format_size(0, buf, sizeof(buf)), "0 B");
	assert_string_equal(tier_format_size(512, buf, sizeof(buf)), "512 B");
	assert_string_equal(tier_format_size(1024, buf, sizeof(buf)), "1 KiB");
	assert_string_equal(tier_format_size(1536ULL << 20, buf, sizeof(buf)),
			    "1.5 GiB");
	assert_string_equal(tier_format_size(UINT64_MAX, buf, sizeof(buf)),
			    "15.9 EiB");
}

/* Formatting then parsing an exact size gives the size back. */
static void test_roundtrip(void **state)
{
	static const char *const in[] = { "1K", "64K", "1M", "64M", "7G" };
	char buf[16], *space;
	u64 a, b;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(in); i++) {
		assert_int_equal(tier_parse_size(in[i], &a), 0);
		tier_format_size(a, buf, sizeof(buf));
		space = strchr(buf, ' ');
		assert_non_null(space);
		memmove(space, space + 1, strlen(space));
		assert_int_equal(tier_parse_size(buf, &b), 0);
		assert_int_equal(a, b);
	}
}

/* Byte ranges round out to whole extents; 0 and outside are refused. */
static void test_bytes_to_extents(void **state)
{
	u64 first = 99, last = 99;

	(void)state;
	/* 1 MiB extents (shift 20), 10 extents. */
	assert_int_equal(tier_bytes_to_extents(0, 1, 20, 10, &first, &last), 0);
	assert_int_equal(first, 0);
	assert_int_equal(last, 0);
	assert_int_equal(tier_bytes_to_extents((1 << 20) - 1, 2, 20, 10, &first,
					       &last),
			 0);
	assert_int_equal(first, 0);
	assert_int_equal(last, 1);
	assert_int_equal(tier_bytes_to_extents(3 << 20, 2 << 20, 20, 10, &first,
					       &last),
			 0);
	assert_int_equal(first, 3);
	assert_int_equal(last, 4);
	assert_int_equal(tier_bytes_to_extents(0, 10 << 20, 20, 10, &first,
					       &last),
			 0);
	assert_int_equal(first, 0);
	assert_int_equal(last, 9);
	first = last = 99;
	assert_int_equal(tier_bytes_to_extents(0, 0, 20, 10, &first, &last),
			 -EINVAL);
	assert_int_equal(tier_bytes_to_extents(10 << 20, 1, 20, 10, &first,
					       &last),
			 -ERANGE);
	assert_int_equal(tier_bytes_to_extents(0, (10 << 20) + 1, 20, 10,
					       &first, &last),
			 -ERANGE);
	assert_int_equal(tier_bytes_to_extents(5 << 20, U64_MAX, 20, 10, &first,
					       &last),
			 -ERANGE);
	assert_int_equal(tier_bytes_to_extents(U64_MAX, 1, 20, 10, &first,
					       &last),
			 -ERANGE);
	assert_int_equal(tier_bytes_to_extents(0, 1, 20, U64_MAX, &first,
					       &last),
			 -ERANGE);
	assert_int_equal(first, 99);
	assert_int_equal(last, 99);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size_table),
		cmocka_unit_test(test_parse_size_null),
		cmocka_unit_test(test_format_size),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_bytes_to_extents),
	};

	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
