// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kernel/core/units.c, run in-kernel on UML by tests/kunit/run.
 * Same cases as the userspace tests/unit/test_units.c.
 */
#include <kunit/test.h>

#include "units.h"

struct size_case {
	const char *in;
	int ret;
	u64 bytes;
};

static const struct size_case parse_cases[] = {
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
	{ "18446744073709551615", 0, U64_MAX },
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

/* Quoted, so that "" and " 1M" stay visible in the TAP output. */
static void parse_case_desc(const struct size_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->in);
}

KUNIT_ARRAY_PARAM(parse, parse_cases, parse_case_desc);

static void tier_parse_size_test(struct kunit *test)
{
	const struct size_case *c = test->param_value;
	u64 out = 0xdeadbeef;
	int ret = tier_parse_size(c->in, &out);

	KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "input \"%s\"", c->in);
	if (ret == 0)
		KUNIT_EXPECT_EQ_MSG(test, out, c->bytes, "input \"%s\"", c->in);
	else
		KUNIT_EXPECT_EQ_MSG(test, out, 0xdeadbeefULL,
				    "input \"%s\": output written on error",
				    c->in);
}

static void tier_parse_size_null_test(struct kunit *test)
{
	u64 out;

	KUNIT_EXPECT_EQ(test, tier_parse_size(NULL, &out), -EINVAL);
}

struct format_case {
	u64 bytes;
	const char *out;
};

static const struct format_case format_cases[] = {
	{ 0, "0 B" },
	{ 512, "512 B" },
	{ 1024, "1 KiB" },
	{ 1536ULL << 20, "1.5 GiB" },
	{ U64_MAX, "15.9 EiB" },
};

static void format_case_desc(const struct format_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->out);
}

KUNIT_ARRAY_PARAM(format, format_cases, format_case_desc);

static void tier_format_size_test(struct kunit *test)
{
	const struct format_case *c = test->param_value;
	char buf[16];

	KUNIT_EXPECT_STREQ(test, tier_format_size(c->bytes, buf, sizeof(buf)),
			   c->out);
}

/* Formatting then parsing an exact size gives the size back. */
static void tier_size_roundtrip_test(struct kunit *test)
{
	static const char *const in[] = { "1K", "64K", "1M", "64M", "7G" };
	char buf[16], *space;
	u64 a, b;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(in); i++) {
		KUNIT_ASSERT_EQ(test, tier_parse_size(in[i], &a), 0);
		tier_format_size(a, buf, sizeof(buf));
		space = strchr(buf, ' ');
		KUNIT_ASSERT_NOT_NULL(test, space);
		memmove(space, space + 1, strlen(space));
		KUNIT_ASSERT_EQ_MSG(test, tier_parse_size(buf, &b), 0,
				    "formatted \"%s\"", buf);
		KUNIT_EXPECT_EQ_MSG(test, a, b, "input \"%s\"", in[i]);
	}
}

/* Byte ranges round out to whole extents; 0 and outside are refused. */
static void tier_bytes_to_extents_test(struct kunit *test)
{
	u64 first = 99, last = 99;
	int r;

	r = tier_bytes_to_extents((1 << 20) - 1, 2, 20, 10, &first, &last);
	KUNIT_EXPECT_EQ(test, r, 0);
	KUNIT_EXPECT_EQ(test, first, 0ULL);
	KUNIT_EXPECT_EQ(test, last, 1ULL);
	r = tier_bytes_to_extents(0, 10 << 20, 20, 10, &first, &last);
	KUNIT_EXPECT_EQ(test, r, 0);
	KUNIT_EXPECT_EQ(test, first, 0ULL);
	KUNIT_EXPECT_EQ(test, last, 9ULL);
	first = 99;
	last = 99;
	r = tier_bytes_to_extents(0, 0, 20, 10, &first, &last);
	KUNIT_EXPECT_EQ(test, r, -EINVAL);
	r = tier_bytes_to_extents(10 << 20, 1, 20, 10, &first, &last);
	KUNIT_EXPECT_EQ(test, r, -ERANGE);
	r = tier_bytes_to_extents(5 << 20, U64_MAX, 20, 10, &first, &last);
	KUNIT_EXPECT_EQ(test, r, -ERANGE);
	r = tier_bytes_to_extents(0, 1, 20, U64_MAX, &first, &last);
	KUNIT_EXPECT_EQ(test, r, -ERANGE);
	KUNIT_EXPECT_EQ(test, first, 99ULL);
	KUNIT_EXPECT_EQ(test, last, 99ULL);
}

static struct kunit_case dm_tier_units_cases[] = {
	KUNIT_CASE_PARAM(tier_parse_size_test, parse_gen_params),
	KUNIT_CASE(tier_parse_size_null_test),
	KUNIT_CASE_PARAM(tier_format_size_test, format_gen_params),
	KUNIT_CASE(tier_size_roundtrip_test),
	KUNIT_CASE(tier_bytes_to_extents_test),
	{}
};

static struct kunit_suite dm_tier_units_suite = {
	.name = "dm_tier_units",
	.test_cases = dm_tier_units_cases,
};

kunit_test_suite(dm_tier_units_suite);
