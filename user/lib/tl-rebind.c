// SPDX-License-Identifier: GPL-2.0
/*
 * libtier: re-binding a tier by its label (see tl-rebind.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tl-disk.h"
#include "tl-dm.h"
#include "tl-rebind.h"
#include "tl-status.h"
#include "tl-sysfs.h"

int tl_table_replace_tier(const char *params, u32 tier, const char *dev,
			  char *out, size_t len, struct tl_err *err)
{
	const char *p = params, *word = NULL;
	unsigned long nr;
	size_t n = 0, wlen = 0;
	u32 w;
	int r;

	/* Words 0 and 1: extent size and tier count; tier i is word 2 + i. */
	for (w = 0; w <= 2 + tier; w++) {
		p += strspn(p, " ");
		if (!*p)
			break;
		word = p;
		wlen = strcspn(p, " ");
		if (w == 1) {
			nr = strtoul(p, NULL, 10);
			if (tier >= nr)
				break;
		}
		p += wlen;
	}
	if (w <= 2 + tier || !word)
		return tl_fail(err, TL_FAIL,
			       "the table has no tier %u: '%s'", tier, params);
	n = (size_t)(word - params);
	r = snprintf(out, len, "%.*s%s%s", (int)n, params, dev, word + wlen);
	if (r < 0 || (size_t)r >= len)
		return tl_fail(err, TL_FAIL, "table line too long");
	return TL_OK;
}

/* "/dev/NAME" of MAJ:MIN, else the text itself. */
static void devt_path(const char *devt, char *buf, size_t len)
{
	unsigned int maj, min;

	if (!tl_parse_devt(devt, &maj, &min) &&
	    !tl_sysfs_devname(TL_SYSROOT, maj, min, buf, len))
		return;
	snprintf(buf, len, "%s", devt);
}

static int read_label_path(const char *path, struct tier_label *l)
{
	struct tier_err terr;
	int fd, ret;

	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = tl_read_label(fd, l, &terr);
	close(fd);
	return ret;
}

/* The one block device carrying tier @tier's label of device @uuid. */
static int find_member(const u8 *uuid, u32 tier, struct tl_blockdev *found,
		       struct tl_err *err)
{
	struct tl_blockdev *bd;
	size_t n, i, hits = 0;
	int ret;

	ret = tl_sysfs_scan(TL_SYSROOT, &bd, &n);
	if (ret)
		return tl_fail(err, TL_FAIL, "cannot list block devices: %s",
			       strerror(-ret));
	for (i = 0; i < n; i++) {
		struct tier_label l;

		if (read_label_path(bd[i].path, &l))
			continue;
		if (memcmp(l.uuid, uuid, TIER_UUID_LEN) || l.tier_index != tier)
			continue;
		if (hits++) {
			tl_fail(err, TL_FAIL,
				"both %s and %s carry the label of tier %u; remove the stale one",
				found->path, bd[i].path, tier);
			free(bd);
			return TL_FAIL;
		}
		*found = bd[i];
	}
	free(bd);
	if (!hits)
		return tl_fail(err, TL_FAIL,
			       "no block device carries the label of tier %u (is it connected? 'nvme list')",
			       tier);
	return TL_OK;
}

int tl_rebind_tier(const char *name, u32 tier, struct tl_rebind *rb,
		   struct tl_err *err)
{
	char params[4096], devt[32], meta_path[TL_PATH_LEN];
	struct tl_table tt = { 0 };
	struct tl_blockdev found;
	struct tier_label l0;
	struct tl_dm_dev d;
	unsigned int maj, min;
	int ret;

	memset(rb, 0, sizeof(*rb));
	if (!tier)
		return tl_fail(err, TL_FAIL,
			       "tier 0 holds the metadata: it cannot be re-bound");
	ret = tl_dm_query(name, NULL, false, &d, err);
	if (ret == -ENXIO)
		return tl_fail(err, TL_FAIL, "no device-mapper device named '%s'",
			       name);
	if (ret)
		return TL_FAIL;
	if (d.nr_targets != 1 || strcmp(d.type, TL_DM_TARGET)) {
		tl_dm_dev_free(&d);
		return tl_fail(err, TL_FAIL, "%s is not a dm-tier device", name);
	}
	ret = tl_table_parse_line(d.params, &tt, err);
	if (ret)
		goto out;
	if (tier >= tt.t.nr_tiers) {
		ret = tl_fail(err, TL_FAIL, "%s has tiers 0 to %u, not %u", name,
			      tt.t.nr_tiers - 1, tier);
		goto out;
	}
	devt_path(tt.t.tier_dev[tier], rb->from, sizeof(rb->from));
	/*
	 * The table's device is still there (its controller may be
	 * reconnecting): nothing to re-bind, and no label is read (a read of
	 * a path that is down could wait). A deleted namespace leaves sysfs
	 * at once, though the table still holds it.
	 */
	if (!tl_parse_devt(tt.t.tier_dev[tier], &maj, &min) &&
	    !tl_sysfs_devname(TL_SYSROOT, maj, min, meta_path,
			      sizeof(meta_path))) {
		snprintf(rb->to, sizeof(rb->to), "%s", rb->from);
		goto out;
	}
	/* The device UUID, from tier 0's label. */
	devt_path(tt.t.tier_dev[0], meta_path, sizeof(meta_path));
	if (read_label_path(meta_path, &l0)) {
		ret = tl_fail(err, TL_FAIL, "cannot read the label of tier 0 (%s)",
			      meta_path);
		goto out;
	}
	ret = find_member(l0.uuid, tier, &found, err);
	if (ret)
		goto out;
	snprintf(rb->to, sizeof(rb->to), "%s", found.path);
	snprintf(devt, sizeof(devt), "%u:%u", found.maj, found.min);
	ret = tl_table_replace_tier(d.params, tier, devt, params,
				    sizeof(params), err);
	if (!ret)
		ret = tl_dm_reload(name, d.start, d.length, TL_DM_TARGET, params,
				   err);
	if (!ret)
		rb->rebound = true;
out:
	tl_table_free(&tt);
	tl_dm_dev_free(&d);
	return ret;
}
