// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/tl-mem.c: "numa:NODE:SIZE" tier arguments, the
 * NUMA node check on a fake sysfs tree, and the mem.conf record (in a
 * temporary $TIER_STATE_DIR).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/stat.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tl-mem.h"

static char root[256], state_dir[300];

static void put(const char *rel, const char *content)
{
	char p[1024], *s;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/tl-mem-XXXXXX");
	assert_non_null(mkdtemp(root));
	/* Node 0: CPUs and 8 GiB free; node 2: CPU-less CXL memory, 3 GiB
	 * free; no node 1. */
	put("devices/system/node/node0/meminfo",
	    "Node 0 MemTotal:       16384000 kB\n"
	    "Node 0 MemFree:         8388608 kB\n"
	    "Node 0 MemUsed:         7995392 kB\n");
	put("devices/system/node/node2/meminfo",
	    "Node 2 MemTotal:        4194304 kB\n"
	    "Node 2 MemFree:         3145728 kB\n");
	put("devices/system/node/online", "0,2\n");
	snprintf(state_dir, sizeof(state_dir), "%s/etc/dm-tier", root);
	setenv("TIER_STATE_DIR", state_dir, 1);
	return 0;
}

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("TIER_STATE_DIR");
	return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void test_parse(void **state)
{
	struct tl_err err = { "" };
	u64 bytes;
	u32 node;

	(void)state;
	assert_true(tl_numa_is_spec("numa:1:4G"));
	assert_false(tl_numa_is_spec("/dev/numa"));
	assert_int_equal(tl_numa_parse("numa:1:4G", &node, &bytes, &err), TL_OK);
	assert_int_equal(node, 1);
	assert_int_equal(bytes, 4ULL << 30);
	assert_int_equal(tl_numa_parse("numa:0:512MiB", &node, &bytes, &err), TL_OK);
	assert_int_equal(node, 0);
	assert_int_equal(bytes, 512ULL << 20);
	assert_int_equal(tl_numa_parse("numa:1023:1T", &node, &bytes, &err), TL_OK);
	assert_int_equal(node, 1023);
	assert_int_equal(bytes, 1ULL << 40);

	assert_int_equal(tl_numa_parse("numa:1", &node, &bytes, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "give the size too"));
	assert_int_equal(tl_numa_parse("numa::4G", &node, &bytes, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "NODE must be a NUMA node number"));
	assert_int_equal(tl_numa_parse("numa:1024:4G", &node, &bytes, &err), TL_USAGE);
	assert_int_equal(tl_numa_parse("numa:-1:4G", &node, &bytes, &err), TL_USAGE);
	assert_int_equal(tl_numa_parse("numa:x:4G", &node, &bytes, &err), TL_USAGE);
	assert_int_equal(tl_numa_parse("numa:1:", &node, &bytes, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "invalid SIZE"));
	assert_int_equal(tl_numa_parse("numa:1:0", &node, &bytes, &err), TL_USAGE);
	assert_int_equal(tl_numa_parse("numa:1:4Q", &node, &bytes, &err), TL_USAGE);
	assert_int_equal(tl_numa_parse("numa:1:1000K", &node, &bytes, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "whole number of MiB"));
	assert_int_equal(tl_numa_parse("numa:1:2T", &node, &bytes, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "above the 1 TiB"));
	assert_int_equal(tl_numa_parse("/dev/sda", &node, &bytes, &err), TL_USAGE);
}

static void test_take(void **state)
{
	const char *args[4] = { "/dev/nvme0n1", "numa:2:1G", "/dev/sdb" };
	struct tl_err err = { "" };
	struct tl_mem_cfg mem;
	const char *mem_arg;
	int n = 3;

	(void)state;
	assert_int_equal(tl_numa_take(args, &n, &mem, &mem_arg, &err), TL_OK);
	assert_int_equal(n, 2);
	assert_string_equal(args[0], "/dev/nvme0n1");
	assert_string_equal(args[1], "/dev/sdb");
	assert_string_equal(mem_arg, "numa:2:1G");
	assert_true(mem.on);
	assert_int_equal(mem.node, 2);
	assert_int_equal(mem.size_mb, 1024);
	assert_int_equal(mem.promote_hits, TL_MEM_PROMOTE_HITS_DEF);
	/* None: unchanged. */
	assert_int_equal(tl_numa_take(args, &n, &mem, &mem_arg, &err), TL_OK);
	assert_int_equal(n, 2);
	assert_false(mem.on);
	assert_null(mem_arg);
	/* Not first (tier 0 holds the metadata), at most one, well formed. */
	args[0] = "numa:0:1G";
	args[1] = "/dev/sdb";
	n = 2;
	assert_int_equal(tl_numa_take(args, &n, &mem, &mem_arg, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "the first tier must be a block device"));
	args[0] = "/dev/sda";
	args[1] = "numa:0:1G";
	args[2] = "numa:2:1G";
	n = 3;
	assert_int_equal(tl_numa_take(args, &n, &mem, &mem_arg, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "at most one memory tier"));
	args[2] = "numa:2";
	assert_int_equal(tl_numa_take(args, &n, &mem, &mem_arg, &err), TL_USAGE);
}

static void test_check(void **state)
{
	struct tl_err err = { "" };
	u64 free_bytes;

	(void)state;
	assert_int_equal(tl_numa_mem_free(root, 2, &free_bytes), 0);
	assert_int_equal(free_bytes, 3ULL << 30);
	assert_int_equal(tl_numa_mem_free(root, 1, &free_bytes), -ENOENT);

	assert_int_equal(tl_numa_check(root, 2, 2ULL << 30, 1 << 20, &err), TL_OK);
	assert_int_equal(tl_numa_check(root, 2, 3ULL << 30, 1 << 20, &err), TL_OK);
	assert_int_equal(tl_numa_check(root, 0, 8ULL << 30, 1 << 20, &err), TL_OK);
	/* No such node: the ones there are. */
	assert_int_equal(tl_numa_check(root, 1, 1ULL << 30, 1 << 20, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "NUMA node 1 does not exist"));
	assert_true(strstr(err.msg, "nodes 0, 2") || strstr(err.msg, "nodes 2, 0"));
	/* Not enough free: how much there is, lower SIZE. */
	assert_int_equal(tl_numa_check(root, 2, 4ULL << 30, 1 << 20, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "NUMA node 2 has 3 GiB free, less than the 4 GiB asked for; lower SIZE"));
	/* Smaller than an extent. */
	assert_int_equal(tl_numa_check(root, 2, 1 << 20, 4 << 20, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "smaller than one extent (4 MiB)"));
	/* A node without meminfo. */
	put("devices/system/node/node5/cpulist", "\n");
	assert_int_equal(tl_numa_check(root, 5, 1 << 20, 1 << 20, &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "free memory of NUMA node 5"));
	/* No NUMA at all. */
	assert_int_equal(tl_numa_check("/nonexistent", 0, 1 << 20, 1 << 20, &err),
			 TL_USAGE);
	assert_non_null(strstr(err.msg, "lacks NUMA support"));
}

#define U1 "00112233445566778899aabbccddeeff"
#define U2 "ffeeddccbbaa99887766554433221100"

static void test_record_line(void **state)
{
	struct tl_mem_cfg c;
	struct tl_err err = { "" };
	char hex[TL_UUID_HEX_LEN + 1], line[256];

	(void)state;
	assert_int_equal(tl_mem_record_parse_line(U1 " node=2 size_mb=4096", hex, &c, &err),
			 TL_OK);
	assert_string_equal(hex, U1);
	assert_true(c.on);
	assert_int_equal(c.node, 2);
	assert_int_equal(c.size_mb, 4096);
	assert_int_equal(c.promote_hits, TL_MEM_PROMOTE_HITS_DEF);
	tl_mem_record_format_line(hex, &c, line, sizeof(line));
	assert_string_equal(line, U1 " node=2 size_mb=4096");
	/* Any order, upper-case uuid, promote_hits. */
	assert_int_equal(tl_mem_record_parse_line("  FFEEDDCCBBAA99887766554433221100 promote_hits=5 size_mb=1 node=0\n",
						  hex, &c, &err),
			 TL_OK);
	assert_string_equal(hex, U2);
	assert_int_equal(c.promote_hits, 5);
	tl_mem_record_format_line(hex, &c, line, sizeof(line));
	assert_string_equal(line, U2 " node=0 size_mb=1 promote_hits=5");

	assert_int_equal(tl_mem_record_parse_line("# comment", hex, &c, &err), 1);
	assert_int_equal(tl_mem_record_parse_line("   ", hex, &c, &err), 1);
	assert_int_equal(tl_mem_record_parse_line("xyz node=1 size_mb=1", hex, &c, &err),
			 TL_USAGE);
	assert_non_null(strstr(err.msg, "not a device uuid"));
	assert_int_equal(tl_mem_record_parse_line(U1 " node=1", hex, &c, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "both needed"));
	assert_int_equal(tl_mem_record_parse_line(U1 " node=1 node=2 size_mb=1", hex, &c, &err),
			 TL_USAGE);
	assert_non_null(strstr(err.msg, "twice"));
	assert_int_equal(tl_mem_record_parse_line(U1 " node=1024 size_mb=1", hex, &c, &err),
			 TL_USAGE);
	assert_int_equal(tl_mem_record_parse_line(U1 " node=1 size_mb=0", hex, &c, &err),
			 TL_USAGE);
	assert_int_equal(tl_mem_record_parse_line(U1 " node=1 size_mb=1 colour=blue", hex, &c, &err),
			 TL_USAGE);
	assert_non_null(strstr(err.msg, "unexpected 'colour=blue'"));
}

static void test_record_file(void **state)
{
	struct tl_mem_cfg a = { .on = true, .node = 2, .size_mb = 2048,
				.promote_hits = TL_MEM_PROMOTE_HITS_DEF };
	struct tl_mem_cfg b = { .on = true, .node = 0, .size_mb = 64,
				.promote_hits = 9 };
	struct tl_mem_cfg c;
	struct tl_err err = { "" };
	char buf[1024];
	FILE *f;
	size_t n;

	(void)state;
	assert_non_null(strstr(tl_mem_record_path(), "/etc/dm-tier/mem.conf"));
	/* No file: nothing recorded. */
	assert_int_equal(tl_mem_record_get(U1, &c, &err), TL_MEM_NO_RECORD);
	assert_int_equal(tl_mem_record_set(U1, &a, &err), TL_OK);
	assert_int_equal(tl_mem_record_set(U2, &b, &err), TL_OK);
	assert_int_equal(tl_mem_record_get(U1, &c, &err), TL_OK);
	assert_int_equal(c.node, 2);
	assert_int_equal(c.size_mb, 2048);
	assert_int_equal(tl_mem_record_get(U2, &c, &err), TL_OK);
	assert_int_equal(c.promote_hits, 9);
	/* Replaced in place (mem_size_mb changed live), then dropped. */
	a.size_mb = 1024;
	assert_int_equal(tl_mem_record_set(U1, &a, &err), TL_OK);
	f = fopen(tl_mem_record_path(), "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "# dm-tier memory tiers"));
	assert_non_null(strstr(buf, U1 " node=2 size_mb=1024\n" U2
				    " node=0 size_mb=64 promote_hits=9\n"));
	assert_int_equal(tl_mem_record_set(U1, NULL, &err), TL_OK);
	assert_int_equal(tl_mem_record_get(U1, &c, &err), TL_MEM_NO_RECORD);
	assert_int_equal(tl_mem_record_get(U2, &c, &err), TL_OK);
	/* A state directory that cannot be created: says what to do. */
	setenv("TIER_STATE_DIR", "/proc/no/such/dir", 1);
	assert_int_equal(tl_mem_record_set(U1, &a, &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "TIER_STATE_DIR"));
	setenv("TIER_STATE_DIR", state_dir, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_record_line),
		cmocka_unit_test(test_record_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
