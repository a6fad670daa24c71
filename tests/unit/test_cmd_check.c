// SPDX-License-Identifier: GPL-2.0
/* The exit codes of tierctl check, dump, repair and restore
 * (user/tierctl/cmd-check.c, cmd-restore.c) on image files: 0 clean, 1
 * damaged, 2 usage; repair writes nothing without --yes; a dump restores
 * onto other images. The checks themselves: test_check.c; on real devices:
 * VM test 062.
 *
 * unit-ldflags: -Wl,--wrap=tl_pwrite_full,--wrap=tl_sysfs_scan
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "tl-create.h"
#include "tl-disk.h"
#include "tl-sysfs.h"

/* From user/tierctl/tierctl.h, whose fail() collides with cmocka's. */
int cmd_check(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_repair(int argc, char **argv);
int cmd_restore(int argc, char **argv);

/* Writes left before tl_pwrite_full() fails with EIO (-1: never). */
static int pwrite_ok_left = -1;

int __real_tl_pwrite_full(int fd, const void *buf, size_t len, u64 off);
int __wrap_tl_pwrite_full(int fd, const void *buf, size_t len, u64 off);

int __wrap_tl_pwrite_full(int fd, const void *buf, size_t len, u64 off)
{
	if (pwrite_ok_left == 0)
		return -EIO;
	if (pwrite_ok_left > 0)
		pwrite_ok_left--;
	return __real_tl_pwrite_full(fd, buf, len, off);
}

/* The block devices a scan finds (image files here), in this order. */
static const char *scan_paths[4];
static size_t scan_n;

int __wrap_tl_sysfs_scan(const char *sysroot, struct tl_blockdev **out,
			 size_t *n);

int __wrap_tl_sysfs_scan(const char *sysroot, struct tl_blockdev **out,
			 size_t *n)
{
	struct tl_blockdev *bd = calloc(scan_n + 1, sizeof(*bd));
	size_t i;

	(void)sysroot;
	if (!bd)
		return -ENOMEM;
	for (i = 0; i < scan_n; i++) {
		snprintf(bd[i].name, sizeof(bd[i].name), "img%zu", i);
		snprintf(bd[i].path, sizeof(bd[i].path), "%s", scan_paths[i]);
	}
	*out = bd;
	*n = scan_n;
	return 0;
}

struct imgs {
	char path[3][64];	/* tiers 0, 1; [2]: metadata device */
	char dump[64];
	bool meta;
};

static void make_imgs_meta(struct imgs *im, bool meta)
{
	struct tl_create_req req;
	struct tier_fresh f;
	struct tl_err err = { "" };
	int fds[TIER_MAX_DEVS];
	const char *paths[TIER_MAX_DEVS];
	u32 i;

	memset(&req, 0, sizeof(req));
	req.name = "img";
	req.nr_tiers = 2;
	req.extent_shift = 11;
	req.ctime = 1700000000;
	for (i = 0; i < TIER_MAX_DEVS; i++) {
		fds[i] = -1;
		paths[i] = "?";
	}
	for (i = 0; i < 2; i++) {
		snprintf(im->path[i], sizeof(im->path[i]), "/tmp/tl-cmdchk-XXXXXX");
		fds[i] = mkstemp(im->path[i]);
		assert_true(fds[i] >= 0);
		req.tier[i].sectors = (i + 1) * 65536;
		req.tier[i].tier_class = TIER_CLASS_NVME;
		assert_int_equal(ftruncate(fds[i], req.tier[i].sectors << 9), 0);
		paths[i] = im->path[i];
	}
	im->meta = meta;
	if (meta) {
		snprintf(im->path[2], sizeof(im->path[2]), "/tmp/tl-cmdchk-XXXXXX");
		fds[TIER_META_DEV] = mkstemp(im->path[2]);
		assert_true(fds[TIER_META_DEV] >= 0);
		req.has_meta = true;
		req.meta.sectors = 8192;
		assert_int_equal(ftruncate(fds[TIER_META_DEV], 8192 << 9), 0);
		paths[TIER_META_DEV] = im->path[2];
	}
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_OK);
	assert_int_equal(tl_create_new_ids(&f, &err), TL_OK);
	assert_int_equal(tl_create_write(&f, fds, paths, &err), TL_OK);
	for (i = 0; i < TIER_MAX_DEVS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	snprintf(im->dump, sizeof(im->dump), "/tmp/tl-cmdchk-dump-XXXXXX");
	close(mkstemp(im->dump));
}

static void make_imgs(struct imgs *im)
{
	make_imgs_meta(im, false);
}

static void free_imgs(struct imgs *im)
{
	unlink(im->path[0]);
	unlink(im->path[1]);
	if (im->meta)
		unlink(im->path[2]);
	unlink(im->dump);
}

/* Run "tierctl CMD ARGS..." (NULL-terminated) with stdout to @out (or
 * /dev/null); its exit code. */
static int run(int (*fn)(int, char **), const char *out, ...)
{
	char *argv[16];
	int argc = 0, saved, fd, rc;
	va_list ap;
	char *a;

	va_start(ap, out);
	while ((a = va_arg(ap, char *)) && argc < 15)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	fflush(stdout);
	saved = dup(1);
	fd = open(out ? out : "/dev/null", O_WRONLY | O_TRUNC | O_CREAT, 0600);
	dup2(fd, 1);
	close(fd);
	rc = fn(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	return rc;
}

static void flip(const char *path, u64 off)
{
	int fd = open(path, O_RDWR);
	u8 b;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &b, 1, off), 1);
	b ^= 0xff;
	assert_int_equal(pwrite(fd, &b, 1, off), 1);
	close(fd);
}

static u32 crc_of(const char *path, u64 off)
{
	int fd = open(path, O_RDONLY);
	u8 blk[TIER_BLOCK_SIZE];

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, blk, sizeof(blk), off), (ssize_t)sizeof(blk));
	close(fd);
	return tier_block_csum(blk);
}

static void test_exit_codes(void **state)
{
	struct imgs im;
	u32 before;

	(void)state;
	make_imgs(&im);
	assert_int_equal(run(cmd_check, NULL, "check", im.path[0], im.path[1], NULL), 0);
	assert_int_equal(run(cmd_check, NULL, "check", "--strict", "--json",
			     im.path[1], im.path[0], NULL), 0);
	assert_int_equal(run(cmd_dump, NULL, "dump", im.path[0], im.path[1], NULL), 0);
	/* Usage. */
	assert_int_equal(run(cmd_check, NULL, "check", NULL), 2);
	assert_int_equal(run(cmd_check, NULL, "check", "--yes", im.path[0], NULL), 2);
	assert_int_equal(run(cmd_dump, NULL, "dump", "--strict", im.path[0], NULL), 2);
	assert_int_equal(run(cmd_check, NULL, "check", "/dev/null", NULL), 2);
	assert_int_equal(run(cmd_check, NULL, "check", "/nonexistent/x", NULL), 2);
	assert_int_equal(run(cmd_restore, NULL, "restore", im.dump, NULL), 2);
	/* One member missing: damaged. */
	assert_int_equal(run(cmd_check, NULL, "check", im.path[0], NULL), 1);

	/* Map copy 0 block 0 (sector 24): damaged; repair previews. */
	flip(im.path[0], 24 * 512 + 100);
	assert_int_equal(run(cmd_check, NULL, "check", im.path[0], im.path[1], NULL), 1);
	before = crc_of(im.path[0], 24 * 512);
	assert_int_equal(run(cmd_repair, NULL, "repair", im.path[0], im.path[1], NULL), 1);
	assert_int_equal(crc_of(im.path[0], 24 * 512), before);
	assert_int_equal(run(cmd_dump, NULL, "dump", im.path[0], im.path[1], NULL), 1);
	assert_int_equal(run(cmd_repair, NULL, "repair", "--yes", im.path[0],
			     im.path[1], NULL), 0);
	assert_int_equal(run(cmd_check, NULL, "check", "--strict", im.path[0],
			     im.path[1], NULL), 0);

	/* The older slot (0, never written: zeroes) made garbage: a
	 * warning only; --strict makes it fail. */
	flip(im.path[0], 8 * 512 + 3000);
	assert_int_equal(run(cmd_check, NULL, "check", im.path[0], im.path[1], NULL), 0);
	assert_int_equal(run(cmd_check, NULL, "check", "--strict", im.path[0],
			     im.path[1], NULL), 1);
	assert_int_equal(run(cmd_repair, NULL, "repair", im.path[0], im.path[1], NULL), 0);
	assert_int_equal(run(cmd_repair, NULL, "repair", "-y", im.path[0],
			     im.path[1], NULL), 0);
	assert_int_equal(run(cmd_check, NULL, "check", "--strict", im.path[0],
			     im.path[1], NULL), 0);
	free_imgs(&im);
}

static void test_dump_restore(void **state)
{
	struct imgs im, to;

	(void)state;
	make_imgs(&im);
	make_imgs(&to);
	assert_int_equal(run(cmd_dump, im.dump, "dump", "--json", im.path[0],
			     im.path[1], NULL), 0);
	/* The wrong number of devices; another device's label. */
	assert_int_equal(run(cmd_restore, NULL, "restore", im.dump, to.path[0],
			     NULL), 2);
	assert_int_equal(run(cmd_restore, NULL, "restore", im.dump, to.path[0],
			     to.path[1], NULL), 2);
	assert_int_equal(run(cmd_restore, NULL, "restore", "--force", "--name",
			     "copy", im.dump, to.path[0], to.path[1], NULL), 0);
	assert_int_equal(run(cmd_check, NULL, "check", "--strict", to.path[0],
			     to.path[1], NULL), 0);
	/* A text dump is not a JSON dump. */
	assert_int_equal(run(cmd_dump, im.dump, "dump", im.path[0], im.path[1],
			     NULL), 0);
	assert_int_equal(run(cmd_restore, NULL, "restore", "--force", im.dump,
			     to.path[0], to.path[1], NULL), 2);
	free_imgs(&im);
	free_imgs(&to);
}

/*
 * @dump restored onto @to, @to->path[2] its metadata device: restore
 * succeeds and the result checks clean.
 */
static void assert_restores_clean(const char *dump, const struct imgs *to)
{
	assert_int_equal(run(cmd_restore, NULL, "restore", "--force",
			     "--metadata-dev", to->path[2], dump, to->path[0],
			     to->path[1], NULL), 0);
	assert_int_equal(run(cmd_check, NULL, "check", "--strict", to->path[0],
			     to->path[1], to->path[2], NULL), 0);
}

/* A separate metadata device: found by its label, repaired, restored. */
static void test_metadata_dev(void **state)
{
	struct imgs im, to;

	(void)state;
	make_imgs_meta(&im, true);
	make_imgs_meta(&to, true);
	assert_int_equal(run(cmd_check, NULL, "check", "--strict", im.path[2],
			     im.path[1], im.path[0], NULL), 0);
	/* Without it: the metadata holder is missing. */
	assert_int_equal(run(cmd_check, NULL, "check", im.path[0], im.path[1],
			     NULL), 1);
	flip(im.path[2], 300);		/* its label */
	flip(im.path[2], 16 * 512 + 100); /* superblock slot 1, the only one */
	assert_int_equal(run(cmd_check, NULL, "check", im.path[0], im.path[1],
			     im.path[2], NULL), 1);
	assert_int_equal(run(cmd_repair, NULL, "repair", "--yes", im.path[0],
			     im.path[1], im.path[2], NULL), 1);
	/* The label first (the superblock needs it), then the superblock. */
	flip(im.path[2], 300);
	assert_int_equal(run(cmd_repair, NULL, "repair", "--yes", im.path[0],
			     im.path[1], im.path[2], NULL), 0);
	assert_int_equal(run(cmd_check, NULL, "check", "--strict", im.path[0],
			     im.path[1], im.path[2], NULL), 0);
	assert_int_equal(run(cmd_dump, im.dump, "dump", "--json", im.path[0],
			     im.path[1], im.path[2], NULL), 0);
	assert_int_equal(run(cmd_restore, NULL, "restore", "--force", im.dump,
			     to.path[0], to.path[1], NULL), 2);
	assert_restores_clean(im.dump, &to);
	free_imgs(&im);
	free_imgs(&to);
}

/*
 * A dump of a device whose metadata device's label is damaged (the device
 * found by its superblock): the dump gave the metadata device's size as 0
 * (from the label it could not read), and restore refused the dump ("its
 * metadata device of 0 sectors cannot hold the metadata area"): no
 * backup of the one device that needs it. It gives the device's size.
 */
static void test_dump_meta_label_damaged(void **state)
{
	struct imgs im, to;

	(void)state;
	make_imgs_meta(&im, true);
	make_imgs_meta(&to, true);
	flip(im.path[2], 300);		/* the metadata device's label */
	assert_int_equal(run(cmd_dump, im.dump, "dump", "--json", im.path[0],
			     im.path[1], im.path[2], NULL), 1);
	assert_restores_clean(im.dump, &to);
	free_imgs(&im);
	free_imgs(&to);
}

static char *slurp(const char *path)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
	return buf;
}

/*
 * A write that fails in the middle of 'repair --yes': the output said
 * "would write 2 blocks ... nothing written; run again with --yes to
 * write" though the first block was on the disk. It says how many were
 * written (text and JSON "blocks_written"), exit 1. The two blocks: the
 * superblock of generation 2 in slot 0, naming copy 1 (whose block 0 is
 * good), then copy 0's block 0.
 */
static void test_repair_write_fails(void **state)
{
	char out[64] = "/tmp/tl-cmdchk-out-XXXXXX";
	struct imgs im;
	const char *text;

	(void)state;
	close(mkstemp(out));
	make_imgs(&im);
	flip(im.path[0], 24 * 512 + 100);	/* map copy 0 block 0 */
	flip(im.path[0], 8 * 512 + 3000);	/* superblock slot 0 */
	pwrite_ok_left = 1;
	assert_int_equal(run(cmd_repair, out, "repair", "--yes", im.path[0],
			     im.path[1], NULL), 1);
	pwrite_ok_left = -1;
	text = slurp(out);
	assert_null(strstr(text, "nothing written"));
	assert_non_null(strstr(text, "a write failed after 1 of the 2 blocks"));
	/* The same damage again (the superblock was written). */
	free_imgs(&im);
	make_imgs(&im);
	flip(im.path[0], 24 * 512 + 100);
	flip(im.path[0], 8 * 512 + 3000);
	pwrite_ok_left = 1;
	assert_int_equal(run(cmd_repair, out, "repair", "--yes", "--json",
			     im.path[0], im.path[1], NULL), 1);
	text = slurp(out);
	assert_non_null(strstr(text, "\"written\":false"));
	assert_non_null(strstr(text, "\"blocks_written\":1"));
	pwrite_ok_left = -1;
	assert_int_equal(run(cmd_repair, NULL, "repair", "--yes", im.path[0],
			     im.path[1], NULL), 0);
	assert_int_equal(run(cmd_check, NULL, "check", "--strict", im.path[0],
			     im.path[1], NULL), 0);
	unlink(out);
	free_imgs(&im);
}

/*
 * 'check NAME' after a tier 0 replacement cut between NEWDEV's label
 * rewrite and the old label's wipe (docs/FORMAT.md "Replacing tier 0"):
 * two labels say tier 0, the old one's slots zeroed. The scan took one
 * device per tier index, the first found: the old tier 0 alone, whose
 * superblock check then rebuilt from its labels (exit 1), and which repair
 * --yes wrote a superblock and map onto. Every device with the UUID is
 * taken: clean, with a warning naming the old drive; repair writes nothing.
 */
static void test_check_name_two_tier0(void **state)
{
	char old[64] = "/tmp/tl-cmdchk-XXXXXX";
	u8 *buf = malloc(1 << 20);
	struct tier_label l;
	struct imgs im;
	u64 off, size;
	u32 crc;
	int src, dst;

	(void)state;
	assert_non_null(buf);
	make_imgs(&im);
	src = open(im.path[0], O_RDONLY);
	dst = mkstemp(old);
	assert_true(src >= 0 && dst >= 0);
	size = lseek(src, 0, SEEK_END);
	for (off = 0; off < size; off += 1 << 20) {
		assert_int_equal(tl_pread_full(src, buf, 1 << 20, off), 0);
		assert_int_equal(tl_pwrite_full(dst, buf, 1 << 20, off), 0);
	}
	assert_int_equal(tl_pread_full(dst, buf, TIER_BLOCK_SIZE, 0), 0);
	assert_int_equal(tier_label_decode(buf, &l, NULL), 0);
	memset(l.member_uuid, 0x5a, TIER_UUID_LEN);
	tier_label_encode(&l, buf);
	assert_int_equal(tl_pwrite_full(dst, buf, TIER_BLOCK_SIZE, 0), 0);
	memset(buf, 0, 2 * TIER_BLOCK_SIZE);
	assert_int_equal(tl_pwrite_full(dst, buf, 2 * TIER_BLOCK_SIZE, 8 << 9), 0);
	close(src);
	close(dst);

	scan_paths[0] = old;
	scan_paths[1] = im.path[0];
	scan_paths[2] = im.path[1];
	scan_n = 3;
	crc = crc_of(old, 16 << 9);
	assert_int_equal(run(cmd_check, NULL, "check", "img", NULL), 0);
	assert_int_equal(run(cmd_check, NULL, "check", "--strict", "img", NULL), 1);
	assert_int_equal(run(cmd_repair, NULL, "repair", "--yes", "img", NULL), 0);
	assert_int_equal(crc_of(old, 16 << 9), crc);
	scan_n = 0;
	unlink(old);
	free(buf);
	free_imgs(&im);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_dump_restore),
		cmocka_unit_test(test_metadata_dev),
		cmocka_unit_test(test_repair_write_fails),
		cmocka_unit_test(test_check_name_two_tier0),
		cmocka_unit_test(test_dump_meta_label_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
