// SPDX-License-Identifier: GPL-2.0
/* libtier: file extents on the block device via FIEMAP (see tl-fiemap.h). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/fiemap.h>
#include <linux/fs.h>

#include "tl-fiemap.h"

/* Extents asked for per FS_IOC_FIEMAP call. */
#define FIEMAP_BATCH 256

/* Extents without a fixed place on the device: cannot be pinned or located. */
#define FIEMAP_UNADDRESSABLE                                                  \
	(FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC |                     \
	 FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_INLINE |                  \
	 FIEMAP_EXTENT_DATA_TAIL)

void tl_ranges_free(struct tl_ranges *rs)
{
	free(rs->r);
	rs->r = NULL;
	rs->nr = rs->cap = 0;
}

int tl_ranges_add(struct tl_ranges *rs, uint64_t start, uint64_t len)
{
	if (!len)
		return 0;
	if (rs->nr == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 16;
		struct tl_range *r = realloc(rs->r, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		rs->r = r;
		rs->cap = cap;
	}
	/* A range running past 2^64 is clipped rather than wrapped. */
	if (len > UINT64_MAX - start)
		len = UINT64_MAX - start;
	rs->r[rs->nr].start = start;
	rs->r[rs->nr].len = len;
	rs->nr++;
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct tl_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->len < y->len ? -1 : x->len > y->len;
}

void tl_ranges_normalize(struct tl_ranges *rs, uint64_t align)
{
	size_t i, out = 0;

	if (align > 1) {
		for (i = 0; i < rs->nr; i++) {
			uint64_t start = rs->r[i].start & ~(align - 1);
			uint64_t end = rs->r[i].start + rs->r[i].len;

			/* Round the end up, saturating at the last whole unit. */
			if (end > UINT64_MAX - (align - 1))
				end = UINT64_MAX & ~(align - 1);
			else
				end = (end + align - 1) & ~(align - 1);
			rs->r[i].start = start;
			rs->r[i].len = end - start;
		}
	}
	if (rs->nr < 2)
		return;
	qsort(rs->r, rs->nr, sizeof(rs->r[0]), range_cmp);
	for (i = 1; i < rs->nr; i++) {
		struct tl_range *cur = &rs->r[out];
		uint64_t cur_end = cur->start + cur->len;
		uint64_t end = rs->r[i].start + rs->r[i].len;

		if (rs->r[i].start <= cur_end) {	/* overlapping or touching */
			if (end > cur_end)
				cur->len = end - cur->start;
		} else {
			rs->r[++out] = rs->r[i];
		}
	}
	rs->nr = out + 1;
}

uint64_t tl_ranges_bytes(const struct tl_ranges *rs)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < rs->nr; i++)
		sum += rs->r[i].len;
	return sum;
}

typedef int (*extent_cb)(const char *file, const struct tl_file_extent *ext,
			 void *arg);

static int not_on_dev(const char *path, const struct stat *st, dev_t dev,
		      struct tl_err *err)
{
	return tl_fail(err, TL_USAGE,
		       "%s is not on a filesystem on device %u:%u (it is on %u:%u)",
		       path, major(dev), minor(dev), major(st->st_dev),
		       minor(st->st_dev));
}

/* Every extent of the open regular file @fd, in file order. */
static int fiemap_fd(int fd, const char *path, extent_cb cb, void *arg,
		     struct tl_err *err)
{
	size_t size = sizeof(struct fiemap) +
		      FIEMAP_BATCH * sizeof(struct fiemap_extent);
	struct fiemap *fm = calloc(1, size);
	uint64_t next = 0;
	bool synced = false;
	int rc = TL_OK;

	if (!fm)
		return tl_fail(err, TL_FAIL, "out of memory");
	for (;;) {
		struct fiemap_extent *e;
		uint32_t i;

		memset(fm, 0, size);
		fm->fm_start = next;
		fm->fm_length = FIEMAP_MAX_OFFSET - next;
		/* SYNC: delayed allocation gets a place before we look. */
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = FIEMAP_BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
			int e2 = errno;

			if (e2 == EOPNOTSUPP || e2 == ENOTTY)
				rc = tl_fail(err, TL_FAIL,
					     "%s: its filesystem does not report file extents (FIEMAP: %s)",
					     path, strerror(e2));
			else
				rc = tl_fail(err, TL_FAIL, "%s: FIEMAP: %s", path,
					     strerror(e2));
			break;
		}
		if (!fm->fm_mapped_extents)
			break;
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			struct tl_file_extent fe;

			e = &fm->fm_extents[i];
			if (e->fe_flags & FIEMAP_UNADDRESSABLE) {
				/* One fsync usually gives delalloc a place. */
				if (!synced && !fsync(fd)) {
					synced = true;
					break;
				}
				rc = tl_fail(err, TL_FAIL,
					     "%s: the extent at file offset %llu has no fixed place on the device (FIEMAP flags 0x%x: inline, delayed, encoded or unknown)",
					     path, (unsigned long long)e->fe_logical,
					     e->fe_flags);
				goto out;
			}
			fe.logical = e->fe_logical;
			fe.physical = e->fe_physical;
			fe.len = e->fe_length;
			rc = cb(path, &fe, arg);
			if (rc)
				goto out;
		}
		if (i < fm->fm_mapped_extents) {	/* after the fsync: again */
			next = e->fe_logical;
			continue;
		}
		e = &fm->fm_extents[fm->fm_mapped_extents - 1];
		if (e->fe_flags & FIEMAP_EXTENT_LAST)
			break;
		if (e->fe_logical + e->fe_length <= next)	/* no progress */
			break;
		next = e->fe_logical + e->fe_length;
	}
out:
	free(fm);
	return rc;
}

static int walk_file(const char *path, dev_t dev, extent_cb cb, void *arg,
		     struct tl_err *err)
{
	struct stat st;
	int fd, rc;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return tl_fail(err, errno == ENOENT ? TL_USAGE : TL_FAIL,
			       "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		rc = tl_fail(err, TL_FAIL, "%s: %s", path, strerror(errno));
	} else if (st.st_dev != dev) {
		rc = not_on_dev(path, &st, dev, err);
	} else {
		rc = cb(path, NULL, arg);
		if (!rc && st.st_size)
			rc = fiemap_fd(fd, path, cb, arg, err);
	}
	close(fd);
	return rc;
}

/* nftw() takes no context: the walk in progress (one per thread). */
static __thread struct {
	dev_t dev;
	extent_cb cb;
	void *arg;
	struct tl_err *err;
	int rc;
} walk;

static int walk_entry(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	switch (type) {
	case FTW_F:
		if (!S_ISREG(st->st_mode))
			return 0;	/* devices, sockets, fifos: no data */
		walk.rc = walk_file(path, walk.dev, walk.cb, walk.arg, walk.err);
		return walk.rc ? 1 : 0;
	case FTW_DNR:
		walk.rc = tl_fail(walk.err, TL_FAIL, "%s: cannot read the directory",
				  path);
		return 1;
	case FTW_NS:
		walk.rc = tl_fail(walk.err, TL_FAIL, "%s: cannot stat", path);
		return 1;
	default:
		return 0;	/* directories, symlinks (not followed) */
	}
}

int tl_fiemap_walk(const char *path, dev_t dev, extent_cb cb, void *arg,
		   struct tl_err *err)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return tl_fail(err, errno == ENOENT ? TL_USAGE : TL_FAIL, "%s: %s",
			       path, strerror(errno));
	if (st.st_dev != dev)
		return not_on_dev(path, &st, dev, err);
	if (S_ISREG(st.st_mode))
		return walk_file(path, dev, cb, arg, err);
	if (!S_ISDIR(st.st_mode))
		return tl_fail(err, TL_USAGE,
			       "%s is neither a regular file nor a directory", path);
	walk.dev = dev;
	walk.cb = cb;
	walk.arg = arg;
	walk.err = err;
	walk.rc = TL_OK;
	/* FTW_MOUNT: other filesystems mounted below are not ours to pin. */
	if (nftw(path, walk_entry, 32, FTW_PHYS | FTW_MOUNT) < 0)
		return tl_fail(err, TL_FAIL, "%s: %s", path, strerror(errno));
	return walk.rc;
}

struct add_ctx {
	struct tl_ranges *rs;
	struct tl_err *err;
};

static int add_extent(const char *file, const struct tl_file_extent *ext,
		      void *arg)
{
	struct add_ctx *c = arg;

	if (ext && tl_ranges_add(c->rs, ext->physical, ext->len))
		return tl_fail(c->err, TL_FAIL, "out of memory");
	return 0;
}

int tl_fiemap_path(const char *path, dev_t dev, struct tl_ranges *rs,
		   struct tl_err *err)
{
	struct add_ctx c = { rs, err };

	return tl_fiemap_walk(path, dev, add_extent, &c, err);
}
