// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/tl-fiemap.c: range sets (add, normalize with and
 * without extent alignment, bytes) and FIEMAP on real temporary files
 * (skipped where the filesystem, e.g. tmpfs, does not support it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tl-fiemap.h"

static void expect_ranges(const struct tl_ranges *rs, size_t nr,
			  const uint64_t (*want)[2])
{
	size_t i;

	assert_int_equal(rs->nr, nr);
	for (i = 0; i < nr; i++) {
		assert_int_equal(rs->r[i].start, want[i][0]);
		assert_int_equal(rs->r[i].len, want[i][1]);
	}
}

static void test_ranges_empty(void **state)
{
	struct tl_ranges rs = { 0 };

	(void)state;
	tl_ranges_normalize(&rs, 0);
	tl_ranges_normalize(&rs, 4096);
	assert_int_equal(rs.nr, 0);
	assert_int_equal(tl_ranges_bytes(&rs), 0);
	/* Empty ranges are not recorded. */
	assert_int_equal(tl_ranges_add(&rs, 100, 0), 0);
	assert_int_equal(rs.nr, 0);
	tl_ranges_free(&rs);
	tl_ranges_free(&rs);	/* twice is harmless */
}

static void test_ranges_overlap_touch(void **state)
{
	static const uint64_t want[][2] = { { 0, 30 }, { 40, 10 } };
	struct tl_ranges rs = { 0 };

	(void)state;
	assert_int_equal(tl_ranges_add(&rs, 0, 10), 0);
	assert_int_equal(tl_ranges_add(&rs, 5, 10), 0);	/* overlaps */
	assert_int_equal(tl_ranges_add(&rs, 15, 15), 0);	/* touches */
	assert_int_equal(tl_ranges_add(&rs, 2, 3), 0);		/* inside */
	assert_int_equal(tl_ranges_add(&rs, 40, 10), 0);	/* apart */
	tl_ranges_normalize(&rs, 0);
	expect_ranges(&rs, 2, want);
	assert_int_equal(tl_ranges_bytes(&rs), 40);
	tl_ranges_free(&rs);
}

static void test_ranges_unsorted(void **state)
{
	static const uint64_t want[][2] = { { 0, 10 }, { 50, 10 }, { 100, 10 } };
	struct tl_ranges rs = { 0 };

	(void)state;
	assert_int_equal(tl_ranges_add(&rs, 100, 10), 0);
	assert_int_equal(tl_ranges_add(&rs, 0, 10), 0);
	assert_int_equal(tl_ranges_add(&rs, 50, 10), 0);
	assert_int_equal(tl_ranges_add(&rs, 50, 10), 0);	/* duplicate */
	tl_ranges_normalize(&rs, 1);
	expect_ranges(&rs, 3, want);
	assert_int_equal(tl_ranges_bytes(&rs), 30);
	tl_ranges_free(&rs);
}

static void test_ranges_align(void **state)
{
	static const uint64_t want[][2] = { { 0, 8192 }, { 16384, 4096 },
					    { 1 << 20, (1 << 20) + 4096 } };
	struct tl_ranges rs = { 0 };

	(void)state;
	assert_int_equal(tl_ranges_add(&rs, 100, 10), 0);	/* → 0..4096 */
	assert_int_equal(tl_ranges_add(&rs, 4000, 200), 0);	/* → 0..8192 */
	assert_int_equal(tl_ranges_add(&rs, 16385, 1), 0);	/* → 16384..20480 */
	/* Apart by bytes and by 4K blocks. */
	assert_int_equal(tl_ranges_add(&rs, (1 << 20) + 5, 100), 0);
	assert_int_equal(tl_ranges_add(&rs, (2 << 20) + 7, 1), 0);
	tl_ranges_normalize(&rs, 4096);
	assert_int_equal(rs.nr, 4);
	/* Rounded out to 1 MiB extents: 0-1M, 1M-2M and 2M-3M touch. */
	tl_ranges_normalize(&rs, 1 << 20);
	assert_int_equal(rs.nr, 1);
	assert_int_equal(rs.r[0].start, 0);
	assert_int_equal(rs.r[0].len, 3 << 20);
	tl_ranges_free(&rs);

	/* Ranges in extents 0 and 2 stay apart. */
	assert_int_equal(tl_ranges_add(&rs, (2 << 20) + 7, 1), 0);
	assert_int_equal(tl_ranges_add(&rs, 5, 1), 0);
	tl_ranges_normalize(&rs, 1 << 20);
	assert_int_equal(rs.nr, 2);
	assert_int_equal(rs.r[0].start, 0);
	assert_int_equal(rs.r[0].len, 1 << 20);
	assert_int_equal(rs.r[1].start, 2 << 20);
	assert_int_equal(rs.r[1].len, 1 << 20);
	tl_ranges_free(&rs);

	/* Aligned ranges touching after rounding merge. */
	assert_int_equal(tl_ranges_add(&rs, 100, 10), 0);
	assert_int_equal(tl_ranges_add(&rs, 4000, 200), 0);
	assert_int_equal(tl_ranges_add(&rs, 16385, 1), 0);
	assert_int_equal(tl_ranges_add(&rs, (1 << 20) + 5, (1 << 20) + 10), 0);
	tl_ranges_normalize(&rs, 4096);
	expect_ranges(&rs, 3, want);
	tl_ranges_free(&rs);
}

static void test_ranges_edges(void **state)
{
	struct tl_ranges rs = { 0 };
	int i;

	(void)state;
	/* A range running past 2^64 is clipped, not wrapped. */
	assert_int_equal(tl_ranges_add(&rs, UINT64_MAX - 10, 100), 0);
	assert_int_equal(rs.r[0].len, 10);
	tl_ranges_normalize(&rs, 4096);
	assert_int_equal(rs.r[0].start, (UINT64_MAX - 10) & ~4095ULL);
	assert_true(rs.r[0].start + rs.r[0].len >= rs.r[0].start);
	tl_ranges_free(&rs);

	/* Many ranges: the array grows; every other 4K block → 500 ranges. */
	for (i = 999; i >= 0; i--)
		assert_int_equal(tl_ranges_add(&rs, (uint64_t)i * 8192, 4096), 0);
	tl_ranges_normalize(&rs, 0);
	assert_int_equal(rs.nr, 1000);
	assert_int_equal(tl_ranges_bytes(&rs), 1000 * 4096);
	tl_ranges_normalize(&rs, 8192);	/* now they all touch */
	assert_int_equal(rs.nr, 1);
	assert_int_equal(rs.r[0].len, 1000 * 8192);
	tl_ranges_free(&rs);
}

/* ---- FIEMAP on real files ---- */

static char tmpdir[256];

static int rm_entry(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	return remove(path);
}

static int fs_setup(void **state)
{
	/* Not /tmp first: often tmpfs, which has no FIEMAP. */
	const char *bases[] = { "build/unit", getenv("TMPDIR"), "/var/tmp", "/tmp" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bases); i++) {
		if (!bases[i])
			continue;
		snprintf(tmpdir, sizeof(tmpdir), "%s/fiemap-XXXXXX", bases[i]);
		if (mkdtemp(tmpdir))
			return 0;
	}
	return -1;
}

static int fs_teardown(void **state)
{
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

static void write_file(const char *path, size_t bytes)
{
	char buf[65536];
	size_t done = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 31 + 7);
	while (done < bytes) {
		size_t n = bytes - done < sizeof(buf) ? bytes - done : sizeof(buf);

		assert_int_equal(write(fd, buf, n), (ssize_t)n);
		done += n;
	}
	assert_int_equal(fsync(fd), 0);
	close(fd);
}

static dev_t dev_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_dev;
}

struct walk_log {
	int files;
	int extents;
	uint64_t next_logical;	/* of the current file */
	uint64_t bytes;
};

static int log_extent(const char *file, const struct tl_file_extent *ext,
		      void *arg)
{
	struct walk_log *w = arg;

	if (!ext) {
		w->files++;
		w->next_logical = 0;
		return 0;
	}
	/* In file order, without holes (the files are written densely). */
	assert_int_equal(ext->logical, w->next_logical);
	assert_true(ext->len > 0);
	w->next_logical = ext->logical + ext->len;
	w->extents++;
	w->bytes += ext->len;
	return 0;
}

#define SKIP_IF_NO_FIEMAP(rc, err)                                             \
	do {                                                                   \
		if ((rc) == TL_FAIL && strstr((err).msg, "does not report file extents")) { \
			print_message("skipped: %s\n", (err).msg);             \
			skip();                                                \
		}                                                              \
	} while (0)

static void test_fiemap_file(void **state)
{
	char path[400];
	struct tl_ranges rs = { 0 };
	struct tl_err err = { "" };
	struct walk_log log = { 0 };
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "%s/data", tmpdir);
	write_file(path, 3 << 20);
	rc = tl_fiemap_path(path, dev_of(path), &rs, &err);
	SKIP_IF_NO_FIEMAP(rc, err);
	assert_int_equal(rc, TL_OK);
	assert_true(rs.nr >= 1);
	tl_ranges_normalize(&rs, 0);
	/* All 3 MiB is allocated; at most a block of slack at the end. */
	assert_true(tl_ranges_bytes(&rs) >= 3 << 20);
	assert_true(tl_ranges_bytes(&rs) <= (3 << 20) + 65536);
	tl_ranges_free(&rs);

	assert_int_equal(tl_fiemap_walk(path, dev_of(path), log_extent, &log, &err), TL_OK);
	assert_int_equal(log.files, 1);
	assert_true(log.extents >= 1);
	assert_true(log.next_logical >= 3 << 20);

	/* An empty file: listed, no extents. */
	snprintf(path, sizeof(path), "%s/empty", tmpdir);
	write_file(path, 0);
	memset(&log, 0, sizeof(log));
	assert_int_equal(tl_fiemap_walk(path, dev_of(path), log_extent, &log, &err), TL_OK);
	assert_int_equal(log.files, 1);
	assert_int_equal(log.extents, 0);
}

static void test_fiemap_dir(void **state)
{
	char path[400], dir[300];
	struct tl_ranges rs = { 0 };
	struct tl_err err = { "" };
	struct walk_log log = { 0 };
	int rc;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/tree", tmpdir);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/a", dir);
	write_file(path, 1 << 20);
	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/sub/b", dir);
	write_file(path, 2 << 20);
	snprintf(path, sizeof(path), "%s/sub/c", dir);
	write_file(path, 4096);
	/* A symlink to outside is not followed. */
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink("/etc/passwd", path), 0);

	rc = tl_fiemap_walk(dir, dev_of(dir), log_extent, &log, &err);
	SKIP_IF_NO_FIEMAP(rc, err);
	assert_int_equal(rc, TL_OK);
	assert_int_equal(log.files, 3);
	assert_true(log.bytes >= (3 << 20) + 4096);

	assert_int_equal(tl_fiemap_path(dir, dev_of(dir), &rs, &err), TL_OK);
	tl_ranges_normalize(&rs, 0);
	assert_true(tl_ranges_bytes(&rs) >= (3 << 20) + 4096);
	tl_ranges_free(&rs);
}

static void test_fiemap_not_on_device(void **state)
{
	char path[400];
	struct tl_ranges rs = { 0 };
	struct tl_err err = { "" };
	dev_t other;

	(void)state;
	snprintf(path, sizeof(path), "%s/elsewhere", tmpdir);
	write_file(path, 4096);
	other = makedev(major(dev_of(path)) + 1, minor(dev_of(path)));
	assert_int_equal(tl_fiemap_path(path, other, &rs, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "is not on a filesystem on device"));
	assert_non_null(strstr(err.msg, path));
	assert_int_equal(rs.nr, 0);

	/* The directory case is checked at the top, before any walk. */
	assert_int_equal(tl_fiemap_path(tmpdir, other, &rs, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "is not on a filesystem on device"));

	snprintf(path, sizeof(path), "%s/missing", tmpdir);
	assert_int_equal(tl_fiemap_path(path, dev_of(tmpdir), &rs, &err), TL_USAGE);

	/* Neither a file nor a directory. */
	assert_int_equal(tl_fiemap_path("/dev/null", dev_of("/dev/null"), &rs, &err),
			 TL_USAGE);
	assert_non_null(strstr(err.msg, "neither a regular file nor a directory"));
	assert_int_equal(rs.nr, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges_empty),
		cmocka_unit_test(test_ranges_overlap_touch),
		cmocka_unit_test(test_ranges_unsorted),
		cmocka_unit_test(test_ranges_align),
		cmocka_unit_test(test_ranges_edges),
		cmocka_unit_test(test_fiemap_file),
		cmocka_unit_test(test_fiemap_dir),
		cmocka_unit_test(test_fiemap_not_on_device),
	};

	/* The group's setup makes the temporary directory for the file tests. */
	return cmocka_run_group_tests(tests, fs_setup, fs_teardown);
}
