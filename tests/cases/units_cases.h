/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cases for kernel/core/units.c: size parsing and formatting (tierctl, the
 * table parser), byte ranges to extents. Run by tests/unit/test_units.c
 * (cmocka) and tests/kunit/units_kunit.c (KUnit); see case.h.
 */
#include "case.h"
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
	snprintf(desc, CASE_DESC_SIZE, "\"%s\"", c->in);
}

CASE_PARAMS(parse, parse_cases, parse_case_desc);

static void tier_parse_size_test(CASE_CTX)
{
	const struct size_case *c = CASE_PARAM;
	u64 out = 0xdeadbeef;
	int ret = tier_parse_size(c->in, &out);

	CASE_EQ_MSG(ret, c->ret, "input \"%s\"", c->in);
	if (ret == 0)
		CASE_EQ_MSG(out, c->bytes, "input \"%s\"", c->in);
	else
		CASE_EQ_MSG(out, 0xdeadbeefULL,
			    "input \"%s\": output written on error", c->in);
}

static void tier_parse_size_null_test(CASE_CTX)
{
	u64 out;

	CASE_EQ(tier_parse_size(NULL, &out), -EINVAL);
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
	snprintf(desc, CASE_DESC_SIZE, "%s", c->out);
}

CASE_PARAMS(format, format_cases, format_case_desc);

static void tier_format_size_test(CASE_CTX)
{
	const struct format_case *c = CASE_PARAM;
	char buf[16];

	CASE_STREQ(tier_format_size(c->bytes, buf, sizeof(buf)), c->out);
}

/* Formatting then parsing an exact size gives the size back. */
static void tier_size_roundtrip_test(CASE_CTX)
{
	static const char *const in[] = { "1K", "64K", "1M", "64M", "7G" };
	char buf[16], *space;
	u64 a, b;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(in); i++) {
		CASE_ASSERT_EQ(tier_parse_size(in[i], &a), 0);
		tier_format_size(a, buf, sizeof(buf));
		space = strchr(buf, ' ');
		CASE_ASSERT_NOT_NULL(space);
		memmove(space, space + 1, strlen(space));
		CASE_ASSERT_EQ_MSG(tier_parse_size(buf, &b), 0,
				   "formatted \"%s\"", buf);
		CASE_EQ_MSG(a, b, "input \"%s\"", in[i]);
	}
}

/* Byte ranges round out to whole extents; 0 and outside are refused. */
static void tier_bytes_to_extents_test(CASE_CTX)
{
	u64 first = 99, last = 99;
	int r;

	/* 1 MiB extents (shift 20), 10 extents. */
	r = tier_bytes_to_extents(0, 1, 20, 10, &first, &last);
	CASE_EQ(r, 0);
	CASE_EQ(first, 0ULL);
	CASE_EQ(last, 0ULL);
	r = tier_bytes_to_extents((1 << 20) - 1, 2, 20, 10, &first, &last);
	CASE_EQ(r, 0);
	CASE_EQ(first, 0ULL);
	CASE_EQ(last, 1ULL);
	r = tier_bytes_to_extents(3 << 20, 2 << 20, 20, 10, &first, &last);
	CASE_EQ(r, 0);
	CASE_EQ(first, 3ULL);
	CASE_EQ(last, 4ULL);
	r = tier_bytes_to_extents(0, 10 << 20, 20, 10, &first, &last);
	CASE_EQ(r, 0);
	CASE_EQ(first, 0ULL);
	CASE_EQ(last, 9ULL);
	first = 99;
	last = 99;
	r = tier_bytes_to_extents(0, 0, 20, 10, &first, &last);
	CASE_EQ(r, -EINVAL);
	r = tier_bytes_to_extents(10 << 20, 1, 20, 10, &first, &last);
	CASE_EQ(r, -ERANGE);
	r = tier_bytes_to_extents(0, (10 << 20) + 1, 20, 10, &first, &last);
	CASE_EQ(r, -ERANGE);
	r = tier_bytes_to_extents(5 << 20, U64_MAX, 20, 10, &first, &last);
	CASE_EQ(r, -ERANGE);
	r = tier_bytes_to_extents(U64_MAX, 1, 20, 10, &first, &last);
	CASE_EQ(r, -ERANGE);
	r = tier_bytes_to_extents(0, 1, 20, U64_MAX, &first, &last);
	CASE_EQ(r, -ERANGE);
	CASE_EQ(first, 99ULL);
	CASE_EQ(last, 99ULL);
}

static struct case_entry units_cases[] = {
	CASE_RUN_PARAMS(tier_parse_size_test, parse),
	CASE_RUN(tier_parse_size_null_test),
	CASE_RUN_PARAMS(tier_format_size_test, format),
	CASE_RUN(tier_size_roundtrip_test),
	CASE_RUN(tier_bytes_to_extents_test),
	{}
};
