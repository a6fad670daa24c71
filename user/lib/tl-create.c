// SPDX-License-Identifier: GPL-2.0
/* libtier: planning and writing a new device (see tl-create.h). */
#include <stdio.h>
#include <unistd.h>

#include "tl-create.h"
#include "tl-disk.h"

int tl_create_check_devs(const struct tl_create_req *req,
			 const char *const *args, struct tl_err *err)
{
	const struct tl_create_dev *d[TIER_MAX_DEVS];
	u32 n = 0, i, j;

	for (i = 0; i < req->nr_tiers; i++)
		d[n++] = &req->tier[i];
	if (req->has_meta)
		d[n++] = &req->meta;
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			if (d[i]->maj != d[j]->maj || d[i]->min != d[j]->min)
				continue;
			return tl_fail(err, TL_USAGE,
				       "%s and %s are the same device (%u:%u); give each device once",
				       args[i], args[j], d[i]->maj, d[i]->min);
		}
	}
	return TL_OK;
}

static const char *req_dev_path(const struct tl_create_req *req, u64 item)
{
	if (item == TIER_META_DEV)
		return req->has_meta ? req->meta.path : "?";
	return item < req->nr_tiers ? req->tier[item].path : "?";
}

static int layout_error(const struct tl_create_req *req,
			const struct tier_layout_req *lr,
			const struct tier_err *e, struct tl_err *err)
{
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN];
	u64 extent = 1ULL << (req->extent_shift + TIER_SECTOR_SHIFT);
	u64 meta_min = tier_layout_meta_min_sectors(lr);

	switch (e->code) {
	case TIER_E_LAYOUT_TIER_TOO_SMALL:
		return tl_fail(err, TL_USAGE,
			       "%s (%s) is too small: it must hold %s at least one %s extent; use a bigger device or a smaller --extent-size",
			       req_dev_path(req, e->item),
			       tl_size_str(e->value << TIER_SECTOR_SHIFT, a),
			       e->item == 0 && !req->has_meta ?
				       "the metadata and" :
				       "a 1 MiB offset and",
			       tl_size_str(extent, b));
	case TIER_E_LAYOUT_META_TOO_SMALL:
		if (e->item == TIER_META_DEV)
			return tl_fail(err, TL_USAGE,
				       "metadata device %s (%s) is too small: the metadata of these tiers needs at least %s; use a bigger --metadata-dev or a larger --extent-size",
				       req_dev_path(req, e->item),
				       tl_size_str(e->value << TIER_SECTOR_SHIFT, a),
				       tl_size_str(meta_min << TIER_SECTOR_SHIFT, b));
		return tl_fail(err, TL_USAGE,
			       "%s (%s) is too small for the metadata of these tiers; use a bigger device or a larger --extent-size",
			       req_dev_path(req, e->item),
			       tl_size_str(e->value << TIER_SECTOR_SHIFT, a));
	case TIER_E_LAYOUT_TIER_TOO_BIG:
		return tl_fail(err, TL_USAGE,
			       "%s has more than 2^48 extents; use a larger --extent-size",
			       req_dev_path(req, e->item));
	case TIER_E_LAYOUT_VIRT_LIMIT:
		return tl_fail(err, TL_USAGE,
			       "the size exceeds what the device can address; use a smaller --size or a larger --extent-size");
	default:
		return tl_fail(err, TL_FAIL, "cannot lay out the device: %s",
			       tier_err_str(e->code));
	}
}

int tl_create_plan(const struct tl_create_req *req, struct tier_fresh *f,
		   struct tl_err *err)
{
	struct tier_layout_req lr;
	struct tier_layout lo;
	struct tier_err e = { 0 };
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN];
	u32 i;
	int ret;

	if (!req->name || !tier_name_valid(req->name))
		return tl_fail(err, TL_USAGE,
			       "invalid device name '%s': use 1 to 63 printable characters without blanks or '/'",
			       req->name ? req->name : "");
	if (req->nr_tiers < 1 || req->nr_tiers > TIER_MAX_TIERS)
		return tl_fail(err, TL_USAGE,
			       "a device has 1 to %d tiers (got %u)",
			       TIER_MAX_TIERS, req->nr_tiers);
	memset(&lr, 0, sizeof(lr));
	lr.nr_tiers = req->nr_tiers;
	lr.extent_shift = req->extent_shift;
	for (i = 0; i < req->nr_tiers; i++)
		lr.dev_sectors[i] = req->tier[i].sectors;
	if (req->has_meta)
		lr.meta_dev_sectors = req->meta.sectors;
	/* Map room for growth (tierctl resize --size), docs/FORMAT.md. */
	lr.map_extents = req->max_sectors >> req->extent_shift;
	if (req->max_sectors && req->virt_sectors > req->max_sectors)
		return tl_fail(err, TL_USAGE,
			       "--max-size %s is smaller than --size %s",
			       tl_size_str(req->max_sectors << TIER_SECTOR_SHIFT,
					   a),
			       tl_size_str(req->virt_sectors
						   << TIER_SECTOR_SHIFT,
					   b));

	/* First with all the capacity: that is the limit for --size. */
	ret = tier_layout_compute(&lr, &lo, &e);
	if (ret)
		return layout_error(req, &lr, &e, err);
	if (req->virt_sectors) {
		u64 cap_sectors = lo.virt_extents << req->extent_shift;

		if (req->virt_sectors > cap_sectors)
			return tl_fail(err, TL_USAGE,
				       "size %s exceeds the tiers' capacity %s",
				       tl_size_str(req->virt_sectors
							   << TIER_SECTOR_SHIFT,
						   a),
				       tl_size_str(cap_sectors
							   << TIER_SECTOR_SHIFT,
						   b));
		lr.virt_sectors = req->virt_sectors;
		ret = tier_layout_compute(&lr, &lo, &e);
		if (ret)
			return layout_error(req, &lr, &e, err);
	}

	memset(f, 0, sizeof(*f));
	f->lo = lo;
	memcpy(f->name, req->name, strlen(req->name));
	for (i = 0; i < req->nr_tiers; i++)
		f->tier_class[i] = req->tier[i].tier_class;
	f->ctime = req->ctime;
	memset(&e, 0, sizeof(e));
	ret = tier_fresh_check(f, &e);
	if (ret)
		return tl_fail(err, ret == -EOPNOTSUPP ? TL_USAGE : TL_FAIL,
			       "cannot create the device: %s (tier %llu)",
			       tier_err_str(e.code),
			       (unsigned long long)e.item);
	return TL_OK;
}

int tl_create_new_ids(struct tier_fresh *f, struct tl_err *err)
{
	u32 i;
	int ret = tl_uuid_random(f->uuid);

	for (i = 0; !ret && i < TIER_MAX_DEVS; i++)
		ret = tl_uuid_random(f->member_uuid[i]);
	if (ret)
		return tl_fail(err, TL_FAIL, "cannot get random numbers: %s",
			       strerror(-ret));
	return TL_OK;
}

#define TL_WRITE_BATCH 256	/* blocks per write: 1 MiB */

static int flush_batch(const int *fds, const char *const *paths, u32 dev,
		       const void *buf, u64 nblocks, sector_t sector,
		       struct tl_err *err)
{
	int ret;

	if (!nblocks)
		return TL_OK;
	ret = tl_pwrite_full(fds[dev], buf, nblocks * TIER_BLOCK_SIZE,
			     sector << TIER_SECTOR_SHIFT);
	if (ret)
		return tl_fail(err, TL_FAIL,
			       "writing %s at sector %llu failed: %s; the device is not usable, run create again",
			       paths[dev], (unsigned long long)sector,
			       strerror(-ret));
	return TL_OK;
}

int tl_create_write(const struct tier_fresh *f, const int *fds,
		    const char *const *paths, struct tl_err *err)
{
	return tl_create_write_progress(f, fds, paths, NULL, NULL, err);
}

int tl_create_write_progress(const struct tier_fresh *f, const int *fds,
			     const char *const *paths, tl_create_progress_fn cb,
			     void *arg, struct tl_err *err)
{
	u64 n, total = tier_fresh_nr_blocks(f), count = 0;
	struct tier_blk_loc loc, start = { 0 };
	char *buf = tl_block_alloc(TL_WRITE_BATCH);
	u32 i;
	int rc = TL_OK;

	if (!buf)
		return tl_fail(err, TL_FAIL, "out of memory");
	for (n = 0; n < total; n++) {
		if (tier_fresh_block(f, n, &loc, buf + count * TIER_BLOCK_SIZE)) {
			rc = tl_fail(err, TL_FAIL,
				     "internal error: no block %llu of %llu",
				     (unsigned long long)n,
				     (unsigned long long)total);
			goto out;
		}
		if (count && loc.dev == start.dev &&
		    loc.sector == start.sector + count * TIER_BLOCK_SECTORS &&
		    count < TL_WRITE_BATCH) {
			count++;
			if (count == TL_WRITE_BATCH) {
				rc = flush_batch(fds, paths, start.dev, buf,
						 count, start.sector, err);
				if (rc)
					goto out;
				count = 0;
				if (cb)
					cb(n + 1, total, arg);
			}
			continue;
		}
		if (count) {
			/* Not contiguous: write the batch, then restart it
			 * with this block, moved to the front. */
			rc = flush_batch(fds, paths, start.dev, buf, count,
					 start.sector, err);
			if (rc)
				goto out;
			memmove(buf, buf + count * TIER_BLOCK_SIZE,
				TIER_BLOCK_SIZE);
		}
		start = loc;
		count = 1;
	}
	rc = flush_batch(fds, paths, start.dev, buf, count, start.sector, err);
	if (rc)
		goto out;
	if (cb)
		cb(total, total, arg);
	for (i = 0; i < TIER_MAX_DEVS; i++) {
		bool used = i < f->lo.nr_tiers ||
			    (i == TIER_META_DEV && f->lo.meta_ext);

		if (used && fsync(fds[i])) {
			rc = tl_fail(err, TL_FAIL,
				     "flushing %s failed: %s; the device is not usable, run create again",
				     paths[i], strerror(errno));
			goto out;
		}
	}
out:
	free(buf);
	return rc;
}
