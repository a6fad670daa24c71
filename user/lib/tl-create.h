/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-create.h - planning a new dm-tier device and writing its metadata
 * (tierctl create). The caller probes the devices; this part is pure up to
 * tl_create_write(), which writes through file descriptors.
 */
#ifndef DM_TIER_TL_CREATE_H
#define DM_TIER_TL_CREATE_H

#include "tl.h"
#include "tl-sysfs.h"

/**
 * struct tl_create_dev - one device of a new tier device, as probed.
 * @path:       canonical "/dev/..." path (goes into the table).
 * @maj, @min:  device number.
 * @sectors:    size in 512-byte sectors.
 * @tier_class: enum tier_class (ignored for the metadata device).
 */
struct tl_create_dev {
	char path[TL_PATH_LEN];
	unsigned int maj, min;
	u64 sectors;
	u32 tier_class;
};

/**
 * struct tl_create_req - what "tierctl create" was asked for.
 * @name:         device name.
 * @nr_tiers:     1..TIER_MAX_TIERS.
 * @tier:         the tiers, fastest first.
 * @has_meta:     a separate metadata device is given in @meta.
 * @extent_shift: log2(extent sectors).
 * @virt_sectors: requested size, 0 = all capacity.
 * @max_sectors:  virtual size to reserve map room for (--max-size), 0 =
 *                the tiers' raw capacity.
 * @ctime:        creation time.
 */
struct tl_create_req {
	const char *name;
	u32 nr_tiers;
	struct tl_create_dev tier[TIER_MAX_TIERS];
	bool has_meta;
	struct tl_create_dev meta;
	u32 extent_shift;
	u64 virt_sectors;
	u64 max_sectors;
	u64 ctime;
};

/**
 * tl_create_check_devs() - the same device given twice (by device number,
 * whatever the paths). TL_OK or TL_USAGE naming both arguments.
 * @args: the command-line spelling of each device: tiers, then (if
 *        @req->has_meta) the metadata device.
 */
int tl_create_check_devs(const struct tl_create_req *req,
			 const char *const *args, struct tl_err *err);

/**
 * tl_create_plan() - compute the layout and fill @f (everything but the
 * UUIDs, see tl_create_new_ids()).
 * Return: TL_OK; TL_USAGE for a bad name, a device too small or too big,
 * or a size above the capacity ("size X exceeds the tiers' capacity Y");
 * TL_FAIL for anything else the core rejects.
 */
int tl_create_plan(const struct tl_create_req *req, struct tier_fresh *f,
		   struct tl_err *err);

/* Random device and member UUIDs into @f; TL_OK or TL_FAIL. */
int tl_create_new_ids(struct tier_fresh *f, struct tl_err *err);

/**
 * tl_create_write() - write every block of tier_fresh_block() in order,
 * coalescing contiguous blocks, then fsync() every device.
 * @fds:   per device index (tiers, [TIER_META_DEV] when @f->lo.meta_ext).
 * @paths: for messages, same indexing.
 * Return: TL_OK or TL_FAIL naming the device and the error.
 */
int tl_create_write(const struct tier_fresh *f, const int *fds,
		    const char *const *paths, struct tl_err *err);

/*
 * A progress callback: @done of @total metadata blocks written so far;
 * called after each batch (and once at the end) with the caller's @arg.
 */
typedef void (*tl_create_progress_fn)(uint64_t done, uint64_t total,
				      void *arg);

/* tl_create_write() that reports its progress to @cb (NULL: none). */
int tl_create_write_progress(const struct tier_fresh *f, const int *fds,
			     const char *const *paths, tl_create_progress_fn cb,
			     void *arg, struct tl_err *err);

#endif /* DM_TIER_TL_CREATE_H */
