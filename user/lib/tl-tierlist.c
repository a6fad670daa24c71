// SPDX-License-Identifier: GPL-2.0
/* libtier: changing the tier list (see tl-tierlist.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tl-disk.h"
#include "tl-tierlist.h"

#define TL_TABLE_WORDS 64

/* Split @params into at most TL_TABLE_WORDS words of @buf. */
static int split_words(const char *params, char *buf, size_t len,
		       char **w, u32 *n, struct tl_err *err)
{
	char *p, *save = NULL;

	if (snprintf(buf, len, "%s", params) >= (int)len)
		return tl_fail(err, TL_FAIL, "table line too long");
	*n = 0;
	for (p = strtok_r(buf, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		if (*n == TL_TABLE_WORDS)
			return tl_fail(err, TL_FAIL, "table line too long");
		w[(*n)++] = p;
	}
	return TL_OK;
}

static int table_tiers(char **w, u32 n, const char *params, u32 *nr,
		       struct tl_err *err)
{
	char *end;
	unsigned long v;

	if (n < 3)
		goto bad;
	v = strtoul(w[1], &end, 10);
	if (*end || v < 1 || v > TIER_MAX_TIERS || 2 + v > n)
		goto bad;
	*nr = v;
	return TL_OK;
bad:
	return tl_fail(err, TL_FAIL, "not a dm-tier table line: '%s'", params);
}

/* Join @w[0..n) with @nr as the tier count into @out. */
static int join_words(char **w, u32 n, u32 nr, char *out, size_t len,
		      struct tl_err *err)
{
	size_t pos = 0;
	u32 i;
	int r;

	for (i = 0; i < n; i++) {
		if (i == 1)
			r = snprintf(out + pos, len - pos, "%s%u", " ", nr);
		else
			r = snprintf(out + pos, len - pos, "%s%s",
				     i ? " " : "", w[i]);
		if (r < 0 || (size_t)r >= len - pos)
			return tl_fail(err, TL_FAIL, "table line too long");
		pos += r;
	}
	return TL_OK;
}

int tl_table_insert_tier(const char *params, u32 pos, const char *dev,
			 char *out, size_t len, struct tl_err *err)
{
	char buf[4096], *w[TL_TABLE_WORDS + 1];
	u32 n, nr, i;
	int rc;

	rc = split_words(params, buf, sizeof(buf), w, &n, err);
	if (!rc)
		rc = table_tiers(w, n, params, &nr, err);
	if (rc)
		return rc;
	if (nr == TIER_MAX_TIERS)
		return tl_fail(err, TL_FAIL, "the device has %d tiers already",
			       TIER_MAX_TIERS);
	if (pos > nr)
		return tl_fail(err, TL_FAIL,
			       "tier position %u is beyond the %u tiers", pos,
			       nr);
	if (n == TL_TABLE_WORDS)
		return tl_fail(err, TL_FAIL, "table line too long");
	for (i = n; i > 2 + pos; i--)
		w[i] = w[i - 1];
	w[2 + pos] = (char *)dev;
	return join_words(w, n + 1, nr + 1, out, len, err);
}

int tl_table_add_tier(const char *params, const char *dev, char *out,
		      size_t len, struct tl_err *err)
{
	char buf[4096], *w[TL_TABLE_WORDS];
	u32 n, nr;
	int rc;

	rc = split_words(params, buf, sizeof(buf), w, &n, err);
	if (!rc)
		rc = table_tiers(w, n, params, &nr, err);
	if (rc)
		return rc;
	return tl_table_insert_tier(params, nr, dev, out, len, err);
}

int tl_table_drop_tier(const char *params, u32 pos, char *out, size_t len,
		       struct tl_err *err)
{
	char buf[4096], *w[TL_TABLE_WORDS];
	u32 n, nr, i;
	int rc;

	rc = split_words(params, buf, sizeof(buf), w, &n, err);
	if (!rc)
		rc = table_tiers(w, n, params, &nr, err);
	if (rc)
		return rc;
	if (nr == 1)
		return tl_fail(err, TL_FAIL, "the device has a single tier");
	if (pos >= nr)
		return tl_fail(err, TL_FAIL, "the device has tiers 0 to %u",
			       nr - 1);
	for (i = 2 + pos; i + 1 < n; i++)
		w[i] = w[i + 1];
	return join_words(w, n - 1, nr - 1, out, len, err);
}

int tl_table_drop_last_tier(const char *params, char *out, size_t len,
			    struct tl_err *err)
{
	char buf[4096], *w[TL_TABLE_WORDS];
	u32 n, nr;
	int rc;

	rc = split_words(params, buf, sizeof(buf), w, &n, err);
	if (!rc)
		rc = table_tiers(w, n, params, &nr, err);
	if (rc)
		return rc;
	if (nr == 1)
		return tl_fail(err, TL_FAIL, "the device has a single tier");
	return tl_table_drop_tier(params, nr - 1, out, len, err);
}

int tl_tierlist_new_label(const struct tier_label *ref,
			  const struct tier_sb *sb, u64 dev_sectors,
			  u32 tier_class, const u8 *member_uuid,
			  struct tier_label *l, struct tl_err *err)
{
	return tl_tierlist_new_label_at(ref, sb, sb->nr_tiers, dev_sectors,
					tier_class, member_uuid, l, err);
}

int tl_tierlist_new_label_at(const struct tier_label *ref,
			     const struct tier_sb *sb, u32 pos,
			     u64 dev_sectors, u32 tier_class,
			     const u8 *member_uuid, struct tier_label *l,
			     struct tl_err *err)
{
	u64 nr;

	if (sb->nr_tiers >= TIER_MAX_TIERS)
		return tl_fail(err, TL_USAGE, "the device has %d tiers already",
			       TIER_MAX_TIERS);
	if (!pos || pos > sb->nr_tiers)
		return tl_fail(err, TL_USAGE,
			       "a new tier goes at position 1 to %u (tier 0 identifies the device)",
			       sb->nr_tiers);
	nr = dev_sectors > TIER_DATA_ALIGN ?
		     (dev_sectors - TIER_DATA_ALIGN) >> sb->extent_shift :
		     0;
	if (!nr)
		return tl_fail(err, TL_USAGE,
			       "the device is too small: it must hold a 1 MiB offset and at least one extent");
	if (nr > TIER_MAX_TIER_EXTENTS)
		return tl_fail(err, TL_USAGE,
			       "the device has more than 2^32 extents of this device's size: a tier holds at most 2^32 extents");
	memset(l, 0, sizeof(*l));
	memcpy(l->uuid, sb->uuid, TIER_UUID_LEN);
	memcpy(l->member_uuid, member_uuid, TIER_UUID_LEN);
	memcpy(l->name, ref->name, TIER_NAME_LEN);
	l->name[TIER_NAME_LEN - 1] = '\0';
	l->flags = ref->flags & TIER_LABEL_F_META_EXT;
	l->tier_index = pos;
	l->nr_tiers = sb->nr_tiers + 1;
	l->tier_class = tier_class;
	l->extent_shift = sb->extent_shift;
	l->dev_sectors = dev_sectors;
	l->data_start = TIER_DATA_ALIGN;
	l->nr_extents = nr;
	l->virt_extents = sb->virt_extents;
	l->ctime = sb->ctime;
	return TL_OK;
}

int tl_tierlist_spare_label(struct tier_label *l, const struct tier_sb *sb,
			    struct tl_err *err)
{
	u64 blocks = 2 + 2 * sb->map_blocks;
	sector_t data;
	u64 nr;

	if (sb->flags & TIER_SB_F_META_EXT)
		return tl_fail(err, TL_USAGE,
			       "the metadata is on a separate device: a new tier needs no room for it");
	data = (TIER_META_START + blocks * TIER_BLOCK_SECTORS +
		TIER_DATA_ALIGN - 1) / TIER_DATA_ALIGN * TIER_DATA_ALIGN;
	nr = l->dev_sectors > data ?
		     (l->dev_sectors - data) >> sb->extent_shift : 0;
	if (!nr)
		return tl_fail(err, TL_USAGE,
			       "the device is too small: it must hold the metadata (%llu MiB) and at least one extent",
			       (unsigned long long)(data >> 11));
	l->data_start = data;
	l->nr_extents = nr;
	l->spare_meta_blocks = blocks;
	return TL_OK;
}

int tl_tierlist_zero_spare_slots(const char *path, struct tl_err *err)
{
	void *blk = tl_block_alloc(2);
	int fd, ret;

	if (!blk)
		return tl_fail(err, TL_FAIL, "out of memory");
	fd = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
	} else {
		ret = tl_pwrite_full(fd, blk, 2 * TIER_BLOCK_SIZE,
				     (off_t)TIER_META_START << TIER_SECTOR_SHIFT);
		if (!ret && fsync(fd))
			ret = -errno;
		close(fd);
	}
	free(blk);
	if (ret)
		return tl_fail(err, TL_FAIL,
			       "clearing the metadata area of %s failed: %s",
			       path, strerror(-ret));
	return TL_OK;
}

int tl_tierlist_hint(const struct tier_label *l, const struct tier_sb *sb,
		     struct tier_label *out)
{
	int pos;

	*out = *l;
	if (memcmp(l->uuid, sb->uuid, TIER_UUID_LEN))
		return -1;
	if (l->tier_index == TIER_META_DEV) {
		out->nr_tiers = sb->nr_tiers;
		return out->nr_tiers != l->nr_tiers;
	}
	pos = tier_label_sb_index(l, sb);
	if (pos < 0)
		return -1;
	out->tier_index = pos;
	out->nr_tiers = sb->nr_tiers;
	/* The metadata moved to it (tier_label_check_sb() accepted that). */
	if (!pos && out->spare_meta_blocks &&
	    !(sb->flags & TIER_SB_F_META_EXT)) {
		out->flags |= TIER_LABEL_F_META;
		out->meta_start = TIER_META_START;
		out->meta_blocks = out->spare_meta_blocks;
		out->spare_meta_blocks = 0;
		return 1;
	}
	return out->tier_index != l->tier_index || out->nr_tiers != l->nr_tiers;
}

int tl_tierlist_read_label(const char *path, struct tier_label *l)
{
	struct tier_err terr;
	int fd, ret;

	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = tl_read_label(fd, l, &terr);
	close(fd);
	return ret;
}

static int write_block0(const char *path, const void *blk, struct tl_err *err)
{
	int fd, ret;

	fd = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return tl_fail(err, TL_FAIL, "cannot open %s: %s", path,
			       strerror(errno));
	ret = tl_pwrite_full(fd, blk, TIER_BLOCK_SIZE, 0);
	if (!ret && fsync(fd))
		ret = -errno;
	close(fd);
	if (ret)
		return tl_fail(err, TL_FAIL, "writing the label of %s failed: %s",
			       path, strerror(-ret));
	return TL_OK;
}

int tl_tierlist_write_label(const char *path, const struct tier_label *l,
			    struct tl_err *err)
{
	void *blk = tl_block_alloc(1);
	int rc;

	if (!blk)
		return tl_fail(err, TL_FAIL, "out of memory");
	tier_label_encode(l, blk);
	rc = write_block0(path, blk, err);
	free(blk);
	return rc;
}

int tl_tierlist_wipe_label(const char *path, struct tl_err *err)
{
	void *blk = tl_block_alloc(1);
	int rc;

	if (!blk)
		return tl_fail(err, TL_FAIL, "out of memory");
	rc = write_block0(path, blk, err);
	free(blk);
	return rc;
}

int tl_tierlist_read_sb(const char *path, const struct tier_label *l,
			struct tier_sb *sb, struct tl_err *err)
{
	struct tier_err terr;
	sector_t start;
	char why[128];
	int fd, ret;

	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return tl_fail(err, TL_FAIL, "cannot open %s: %s", path,
			       strerror(errno));
	/* Tier 0's own area, or the spare one the metadata moved to. */
	tier_label_meta_area(l, &start, NULL);
	ret = tl_read_sb(fd, start, sb, &terr);
	close(fd);
	if (ret)
		return tl_fail(err, TL_FAIL, "cannot read the superblock on %s: %s",
			       path, tl_tier_err_text(&terr, ret, why,
						      sizeof(why)));
	return TL_OK;
}
