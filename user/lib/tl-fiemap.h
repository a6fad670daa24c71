/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-fiemap.h - which byte ranges of a block device hold a file's data
 * (FIEMAP), for tierctl pin/unpin/where and tierd's pins.
 *
 * The filesystem must sit directly on the dm-tier device (st_dev of every
 * file equals the device's dev_t), so fe_physical is a byte offset into the
 * device. Extents that FIEMAP flags as not addressable (inline data,
 * delalloc, encoded, unknown location) are refused with a message, after an
 * fsync that usually resolves delalloc.
 */
#ifndef DM_TIER_TL_FIEMAP_H
#define DM_TIER_TL_FIEMAP_H

#include <stdint.h>
#include <sys/types.h>

#include "tl.h"

struct tl_range {
	uint64_t start; /* bytes */
	uint64_t len;	/* bytes, > 0 */
};

/* A growable, sorted, merged set of byte ranges. */
struct tl_ranges {
	struct tl_range *r;
	size_t nr;
	size_t cap;
};

void tl_ranges_free(struct tl_ranges *rs);
/* Add [start, start+len); 0 or -ENOMEM. Keeps no order until normalized. */
int tl_ranges_add(struct tl_ranges *rs, uint64_t start, uint64_t len);
/*
 * Sort and merge overlapping or touching ranges; with @align (a power of two,
 * e.g. the extent size; 0 or 1 for none) first round each range out to
 * @align and merge what then touches.
 */
void tl_ranges_normalize(struct tl_ranges *rs, uint64_t align);
/* Total bytes covered. */
uint64_t tl_ranges_bytes(const struct tl_ranges *rs);

/*
 * Add the physical ranges of @path (a regular file, or every regular file
 * under a directory, not crossing into other filesystems) to @rs; every file
 * must live on @dev. TL_OK, TL_FAIL (I/O, unsupported FIEMAP) or TL_USAGE
 * (not on @dev, not a file or directory).
 */
int tl_fiemap_path(const char *path, dev_t dev, struct tl_ranges *rs,
		   struct tl_err *err);

/* One extent of a file: @len bytes at file offset @logical live at byte
 * @physical of the device. */
struct tl_file_extent {
	uint64_t logical;
	uint64_t physical;
	uint64_t len;
};

/*
 * Walk @path like tl_fiemap_path() (same checks, same errors), calling @cb
 * once per regular file with @ext NULL, then once per extent of it in file
 * order. A non-zero return from @cb stops the walk and is returned.
 */
int tl_fiemap_walk(const char *path, dev_t dev,
		   int (*cb)(const char *file, const struct tl_file_extent *ext,
			     void *arg),
		   void *arg, struct tl_err *err);

#endif /* DM_TIER_TL_FIEMAP_H */
