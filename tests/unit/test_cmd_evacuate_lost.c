// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for "tierctl evacuate-lost" (user/tierctl/cmd-evacuate.c)
 * without a kernel: dev-get, extent-dump and tier-forget are scripted. The
 * device has two tiers that are not ok (1 and 2) with ranges on both. The
 * command lists the chosen tier's ranges (the printer of where --lost)
 * before it asks, and its question and result count only that tier's
 * ranges and bytes. Before, it asked with a byte total only, and its range
 * count was that of every tier not ok (3 here instead of 2).
 * unit-ldflags: -Wl,--wrap=tl_nl_open,--wrap=tl_nl_close,--wrap=tl_nl_dev_get,--wrap=tl_nl_extent_dump,--wrap=tl_nl_tier_forget
 */
/* tierctl.h before cmocka.h: cmocka defines a fail() macro. */
#include "tierctl.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1024ULL * 1024)

static int fake_sock;
static unsigned int forgets;

int __wrap_tl_nl_open(struct tl_nl **nl, struct tl_err *err);
int __wrap_tl_nl_open(struct tl_nl **nl, struct tl_err *err)
{
	(void)err;
	*nl = (struct tl_nl *)&fake_sock;
	return TL_OK;
}

void __wrap_tl_nl_close(struct tl_nl *nl);
void __wrap_tl_nl_close(struct tl_nl *nl)
{
	(void)nl;
}

/* 16 MiB in 1 MiB extents; tier 1 degraded, tier 2 offline. */
int __wrap_tl_nl_dev_get(struct tl_nl *nl, const char *name,
			 struct tl_nl_dev *dev, struct tl_err *err);
int __wrap_tl_nl_dev_get(struct tl_nl *nl, const char *name,
			 struct tl_nl_dev *dev, struct tl_err *err)
{
	static const char *const states[] = { "ok", "degraded", "offline" };
	u32 t;

	(void)nl;
	(void)err;
	memset(dev, 0, sizeof(*dev));
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->extent_bytes = MIB;
	dev->size_bytes = 16 * MIB;
	dev->nr_tiers = 3;
	for (t = 0; t < 3; t++)
		snprintf(dev->tiers[t].state, sizeof(dev->tiers[t].state),
			 "%s", states[t]);
	return TL_OK;
}

/*
 * Extents 0-1 tier 1, 2 tier 2, 3 tier 1, 4-5 tier 0, 6 tier 2:
 * tier 1 has 2 ranges (3 MiB), tier 2 has 2 (2 MiB); the whole device
 * dump gives 4 lost ranges.
 */
int __wrap_tl_nl_extent_dump(struct tl_nl *nl, const char *name,
			     uint64_t start, uint64_t len,
			     int (*cb)(const struct tl_nl_extent *ext, void *arg),
			     void *arg, struct tl_err *err);
int __wrap_tl_nl_extent_dump(struct tl_nl *nl, const char *name,
			     uint64_t start, uint64_t len,
			     int (*cb)(const struct tl_nl_extent *ext, void *arg),
			     void *arg, struct tl_err *err)
{
	static const u32 tier_of[] = { 1, 1, 2, 1, 0, 0, 2 };
	struct tl_nl_extent e;
	u32 i;
	int rc;

	(void)nl;
	(void)name;
	(void)err;
	assert_int_equal(start, 0);
	assert_int_equal(len, 0);
	for (i = 0; i < sizeof(tier_of) / sizeof(tier_of[0]); i++) {
		memset(&e, 0, sizeof(e));
		e.index = i;
		e.tier = tier_of[i];
		rc = cb(&e, arg);
		if (rc)
			return rc;
	}
	return TL_OK;
}

int __wrap_tl_nl_tier_forget(struct tl_nl *nl, const char *name,
			     uint32_t tier, uint64_t *done, struct tl_err *err);
int __wrap_tl_nl_tier_forget(struct tl_nl *nl, const char *name,
			     uint32_t tier, uint64_t *done, struct tl_err *err)
{
	(void)nl;
	(void)name;
	(void)err;
	assert_int_equal(tier, 1);
	forgets++;
	*done = 3;
	return TL_OK;
}

/*
 * cmd_evacuate_lost(@argv) with @answer on stdin and stdout, stderr into
 * one capture (@out), in the order written.
 */
static int run(char **argv, const char *answer, char *out, size_t len)
{
	FILE *cap = tmpfile(), *in = tmpfile();
	int so, se, si, rc, argc = 0;
	size_t n;

	while (argv[argc])
		argc++;
	assert_non_null(cap);
	assert_non_null(in);
	fputs(answer, in);
	fflush(in);
	rewind(in);
	fflush(stdout);
	fflush(stderr);
	so = dup(STDOUT_FILENO);
	se = dup(STDERR_FILENO);
	si = dup(STDIN_FILENO);
	assert_true(dup2(fileno(cap), STDOUT_FILENO) >= 0);
	assert_true(dup2(fileno(cap), STDERR_FILENO) >= 0);
	assert_true(dup2(fileno(in), STDIN_FILENO) >= 0);
	clearerr(stdin);
	forgets = 0;
	rc = cmd_evacuate_lost(argc, argv);
	fflush(stdout);
	fflush(stderr);
	assert_true(dup2(so, STDOUT_FILENO) >= 0);
	assert_true(dup2(se, STDERR_FILENO) >= 0);
	assert_true(dup2(si, STDIN_FILENO) >= 0);
	clearerr(stdin);
	close(so);
	close(se);
	close(si);
	rewind(cap);
	n = fread(out, 1, len - 1, cap);
	out[n] = '\0';
	fclose(cap);
	fclose(in);
	return rc;
}

/* The ranges of tier 1, and only those, come before the question. */
static void test_lists_before_asking(void **state)
{
	char *argv[] = { "evacuate-lost", "ckpt", "--tier", "1", NULL };
	char out[4096];
	const char *ask, *r1, *r2;

	(void)state;
	assert_int_equal(run(argv, "yes\n", out, sizeof(out)),
			 TIERCTL_EXIT_OK);
	assert_int_equal(forgets, 1);
	ask = strstr(out, "type 'yes' to go on");
	assert_non_null(ask);
	/* where --lost's printer: header, then one row per range. */
	r1 = strstr(out, "    0                2097152          1\n");
	r2 = strstr(out, "    3145728          1048576          1\n");
	assert_non_null(r1);
	assert_non_null(r2);
	assert_true(r1 < ask && r2 < ask);
	assert_non_null(strstr(out, "  lost:  3145728 bytes in 2 ranges:"));
	/* Tier 2's ranges are not this evacuation's. */
	assert_null(strstr(out, "2097152          1048576          2"));
	assert_null(strstr(out, "tier 2 is offline"));
	/* The question and the result count tier 1's ranges alone. */
	assert_non_null(strstr(out, "3145728 bytes of ckpt in 2 ranges (listed above) live on tier 1"));
	assert_non_null(strstr(out, "ckpt: tier 1 (degraded) evacuated: 3145728 bytes in 2 ranges now read as zeroes (3 extents unmapped, committed)"));
}

/* Not confirmed: the list was shown, nothing is forgotten, exit 1. */
static void test_not_confirmed(void **state)
{
	char *argv[] = { "evacuate-lost", "ckpt", "--tier", "1", NULL };
	char out[4096];

	(void)state;
	assert_int_equal(run(argv, "no\n", out, sizeof(out)),
			 TIERCTL_EXIT_FAIL);
	assert_int_equal(forgets, 0);
	assert_non_null(strstr(out, "    0                2097152          1\n"));
	assert_non_null(strstr(out, "not confirmed; nothing changed"));
}

/* JSON: one object with the tier's ranges, its counts, and the result. */
static void test_json(void **state)
{
	char *argv[] = { "evacuate-lost", "ckpt", "--tier", "1", "--yes",
			 "--json", NULL };
	char out[4096];

	(void)state;
	assert_int_equal(run(argv, "", out, sizeof(out)), TIERCTL_EXIT_OK);
	assert_int_equal(forgets, 1);
	assert_non_null(strstr(out, "\"lost_tiers\":[{\"tier\":1,\"state\":\"degraded\",\"bytes\":3145728}]"));
	assert_non_null(strstr(out, "\"lost_bytes\":3145728"));
	assert_non_null(strstr(out, "\"lost_ranges\":[{\"device_offset\":0,\"length\":2097152,\"tier\":1},{\"device_offset\":3145728,\"length\":1048576,\"tier\":1}]"));
	assert_non_null(strstr(out, "\"ranges\":2"));
	assert_non_null(strstr(out, "\"evacuated\":true"));
	assert_non_null(strstr(out, "\"forgotten_extents\":3"));
	assert_null(strstr(out, "type 'yes'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lists_before_asking),
		cmocka_unit_test(test_not_confirmed),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
