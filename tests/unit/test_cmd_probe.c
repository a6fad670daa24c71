// SPDX-License-Identifier: GPL-2.0
/* Unit tests of "tierctl probe" (user/tierctl/cmd-probe.c): the udev
 * properties of a member (--export, for IMPORT{program} in
 * dist/61-dm-tier.rules), nothing for a device without a label, the text
 * and JSON answers and the usage errors. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Before cmocka.h, whose fail() macro would rename tierctl's fail(). */
#include "tierctl.h"
#include "tl-create.h"
#include "tl-disk.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#define MiB_SECTORS 2048ULL

/* The label `tierctl create` writes on device @index of a 2-tier device
 * @name, with fixed uuids. */
static void fill_label(struct tier_label *l, const char *name, u32 index)
{
	static struct tier_fresh f;
	struct tl_create_req req;
	u32 i;

	memset(&req, 0, sizeof(req));
	req.name = name;
	req.nr_tiers = 2;
	req.extent_shift = TIER_EXTENT_SHIFT_DEF;
	for (i = 0; i < 2; i++) {
		req.tier[i].sectors = 64 * MiB_SECTORS * (i + 1);
		req.tier[i].tier_class = TIER_CLASS_NVME;
	}
	req.has_meta = true;
	req.meta.sectors = 16 * MiB_SECTORS;
	req.ctime = 1700000000;
	assert_int_equal(tl_create_plan(&req, &f, NULL), TL_OK);
	for (i = 0; i < TIER_UUID_LEN; i++)
		f.uuid[i] = 0x10 + i;
	for (i = 0; i < TIER_UUID_LEN; i++)
		f.member_uuid[index][i] = 0xa0 + i;
	tier_fresh_label(&f, index, l);
}

/* A 1 MiB file holding @l's label block (or zeroes when @l is NULL). */
static void make_dev(char *path, const struct tier_label *l)
{
	void *blk = tl_block_alloc(1);
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_non_null(blk);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	if (l) {
		tier_label_encode(l, blk);
		assert_int_equal(tl_pwrite_full(fd, blk, TIER_BLOCK_SIZE, 0), 0);
	}
	free(blk);
	close(fd);
}

/* cmd_probe("probe" ARG...) with its stdout into @out; returns its code. */
static int run_probe(char *out, size_t len, ...)
{
	char *argv[8] = { "probe" }, tmp[] = "/tmp/tl-probe-out-XXXXXX";
	int argc = 1, saved, fd, rc;
	ssize_t n;
	va_list ap;

	va_start(ap, len);
	while (argc < 7 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(1);
	assert_true(dup2(fd, 1) == 1);
	tierctl_json = false;
	rc = cmd_probe(argc, argv);
	fflush(stdout);
	assert_true(dup2(saved, 1) == 1);
	close(saved);
	n = pread(fd, out, len - 1, 0);
	assert_true(n >= 0);
	out[n] = '\0';
	close(fd);
	unlink(tmp);
	return rc;
}

static const char member0[] =
	"ID_FS_TYPE=dm_tier_member\n"
	"ID_FS_USAGE=raid\n"
	"ID_FS_VERSION=1\n"
	"ID_FS_UUID=10111213-1415-1617-1819-1a1b1c1d1e1f\n"
	"ID_FS_UUID_ENC=10111213-1415-1617-1819-1a1b1c1d1e1f\n"
	"ID_FS_UUID_SUB=a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf\n"
	"ID_FS_UUID_SUB_ENC=a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf\n"
	"ID_FS_LABEL=ckpt\n"
	"ID_FS_LABEL_ENC=ckpt\n"
	"DM_TIER_MEMBER=0\n"
	"DM_TIER_NR_TIERS=2\n";

static void test_export_member(void **state)
{
	char path[] = "/tmp/tl-probe-XXXXXX", out[4096];
	struct tier_label l;

	(void)state;
	fill_label(&l, "ckpt", 0);
	make_dev(path, &l);
	assert_int_equal(run_probe(out, sizeof(out), "--export", path, NULL),
			 TIERCTL_EXIT_OK);
	assert_string_equal(out, member0);
	unlink(path);
}

/* Unsafe characters: '_' in ID_FS_LABEL, \xNN in ID_FS_LABEL_ENC (as
 * blkid does); the metadata device says "meta". */
static void test_export_escapes_meta(void **state)
{
	struct tier_label l;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	fill_label(&l, "a\"b$c\\d", TIER_META_DEV);
	probe_export(&l, f);
	fclose(f);
	assert_non_null(strstr(buf, "\nID_FS_LABEL=a_b_c_d\n"));
	assert_non_null(strstr(buf, "\nID_FS_LABEL_ENC=a\\x22b\\x24c\\x5cd\n"));
	assert_non_null(strstr(buf, "\nDM_TIER_MEMBER=meta\n"));
	free(buf);
}

/* No label: --export prints nothing and succeeds (udev imports nothing);
 * the text answer says so and exits 1. */
static void test_not_a_member(void **state)
{
	char path[] = "/tmp/tl-probe-XXXXXX", out[4096], want[256];

	(void)state;
	make_dev(path, NULL);
	assert_int_equal(run_probe(out, sizeof(out), "--export", path, NULL),
			 TIERCTL_EXIT_OK);
	assert_string_equal(out, "");
	assert_int_equal(run_probe(out, sizeof(out), path, NULL),
			 TIERCTL_EXIT_FAIL);
	snprintf(want, sizeof(want), "%s: no dm-tier label\n", path);
	assert_string_equal(out, want);
	assert_int_equal(run_probe(out, sizeof(out), "--json", path, NULL),
			 TIERCTL_EXIT_FAIL);
	assert_non_null(strstr(out, "\"member\":false"));
	unlink(path);
}

static void test_text_json(void **state)
{
	char path[] = "/tmp/tl-probe-XXXXXX", out[4096], want[512];
	struct tier_label l;

	(void)state;
	fill_label(&l, "ckpt", 1);
	make_dev(path, &l);
	assert_int_equal(run_probe(out, sizeof(out), path, NULL), TIERCTL_EXIT_OK);
	snprintf(want, sizeof(want),
		 "%s: member of dm-tier device 'ckpt' (uuid 101112131415161718191a1b1c1d1e1f), tier 1 of 2\n",
		 path);
	assert_string_equal(out, want);
	assert_int_equal(run_probe(out, sizeof(out), "--json", path, NULL),
			 TIERCTL_EXIT_OK);
	assert_non_null(strstr(out, "\"member\":true"));
	assert_non_null(strstr(out, "\"name\":\"ckpt\""));
	assert_non_null(strstr(out, "\"tier\":1"));
	unlink(path);
}

static void test_usage(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run_probe(out, sizeof(out), NULL), TIERCTL_EXIT_USAGE);
	assert_int_equal(run_probe(out, sizeof(out), "a", "b", NULL),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(run_probe(out, sizeof(out), "--export", "--json", "a",
				   NULL),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(run_probe(out, sizeof(out), "/nonexistent/dev", NULL),
			 TIERCTL_EXIT_FAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_member),
		cmocka_unit_test(test_export_escapes_meta),
		cmocka_unit_test(test_not_a_member),
		cmocka_unit_test(test_text_json),
		cmocka_unit_test(test_usage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
