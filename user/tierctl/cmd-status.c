// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl status: one device's tiers, usage and counters, as the kernel
 * reports them. Served over netlink (dev-get) when the module has the dm-tier
 * family, else from device-mapper's status and table lines (an older module);
 * same JSON keys.
 */
#include <stdio.h>

#include "tierctl.h"
#include "tl-dm.h"
#include "tl-lost.h"
#include "tl-print.h"
#include "tl-report.h"
#include "tl-status.h"
#include "tl-sysfs.h"

/* "/dev/nvme0n1" for a table's "259:0"; the table word itself otherwise. */
static void dev_path(const char *word, char *buf, size_t len)
{
	unsigned int maj, min;

	if (!tl_parse_devt(word, &maj, &min) &&
	    !tl_sysfs_devname(TL_SYSROOT, maj, min, buf, len))
		return;
	snprintf(buf, len, "%s", word);
}

/*
 * "tierctl status" for either source: @st from the status line or from
 * netlink (tl_nl_dev_to_status()), @tt the table (options, devices), @nd
 * the netlink reply for the tiers' kernel names (NULL on the DM path).
 */
static void print_view(const struct tl_dm_dev *d, const struct tl_status *st,
		       const struct tl_table *tt, const struct tl_nl_dev *nd,
		       const struct tl_lost *lost, const char *lost_note,
		       bool json)
{
	char paths[TIER_MAX_TIERS][TL_PATH_LEN], meta[TL_PATH_LEN];
	struct tl_status_view v = {
		.name = d->name,
		.uuid = d->uuid,
		.size_bytes = d->length << TIER_SECTOR_SHIFT,
		.suspended = d->suspended,
		.read_only = d->read_only,
		.st = st,
		.tt = tt,
		.nd = nd,
		.lost = lost,
		.lost_note = lost_note,
	};
	u32 i;

	for (i = 0; i < st->nr_tiers; i++) {
		unsigned int maj, min;
		bool in_table = i < tt->t.nr_tiers;

		if (nd && nd->tiers[i].device[0])
			snprintf(paths[i], sizeof(paths[i]), "/dev/%s",
				 nd->tiers[i].device);
		else if (in_table)
			dev_path(tt->t.tier_dev[i], paths[i], sizeof(paths[i]));
		else
			snprintf(paths[i], sizeof(paths[i]), "-");
		v.tier_path[i] = paths[i];
		if (in_table && !st->tier[i].tier_class[0] &&
		    !tl_parse_devt(tt->t.tier_dev[i], &maj, &min))
			v.tier_class[i] = tl_sysfs_detect_class(TL_SYSROOT, maj,
								min);
	}
	if (tt->t.metadata_dev) {
		dev_path(tt->t.metadata_dev, meta, sizeof(meta));
		v.meta_path = meta;
	}
	print_open(json);
	tl_print_status(&v);
	print_close();
}

/*
 * The metadata device's use, which only the status line reports: left
 * absent when the line cannot be had or parsed (the rest of the status
 * comes from netlink).
 */
static void status_line_meta(const char *name, struct tl_status_meta *meta)
{
	struct tl_err err = { "" };
	struct tl_status st;
	struct tl_dm_dev ds;

	memset(meta, 0, sizeof(*meta));
	if (tl_dm_query(name, NULL, true, &ds, &err))
		return;
	if (ds.nr_targets == 1 && !tl_status_parse(ds.params, &st, &err))
		*meta = st.meta;
	tl_dm_dev_free(&ds);
}

/*
 * The live table names one tier more or less than the device has, and the
 * device is suspended: a tier-list change failed at its resume
 * (device-mapper keeps the new table live; tierctl reloads the previous
 * one itself, so this is a change made by hand or interrupted). Say that,
 * not "is tierctl older". Returns true when it set @err.
 */
static bool failed_list_change(const char *name, const struct tl_dm_dev *dt,
			       u32 dev_tiers, u32 table_tiers,
			       struct tl_err *err)
{
	if (!dt->suspended || dev_tiers == table_tiers ||
	    (dev_tiers != table_tiers + 1 && dev_tiers + 1 != table_tiers))
		return false;
	tl_fail(err, TL_FAIL,
		"%s is suspended with a table of %u tiers while the device has %u: a change of its tier list failed at resume ('dmesg | grep tier' says why)",
		name, table_tiers, dev_tiers);
	tl_err_append(err,
		      "reload the table it had and resume it (dmsetup reload, dmsetup resume), or fix the cause and run 'dmsetup resume %s'",
		      name);
	return true;
}

/*
 * status over netlink. TIERCTL_EXIT_NOFEATURE, without a message, when the
 * module has no dm-tier family (or no dev-get): the caller falls back.
 */
static int status_netlink(const char *name, bool json)
{
	struct tl_err err = { "" }, lerr = { "" };
	const char *lost_note = NULL;
	struct tl_table tt = { 0 };
	struct tl_lost lost = { 0 };
	struct tl_nl_dev *dev;
	struct tl_status st;
	struct tl_dm_dev dt;
	struct tl_nl *nl;
	int rc, ret;

	if (tl_nl_open(&nl, &err))
		return TIERCTL_EXIT_NOFEATURE;
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		tl_nl_close(nl);
		return fail("out of memory");
	}
	rc = tl_nl_dev_get(nl, name, dev, &err);
	/*
	 * A tier that is not ok: which ranges live on it (extent-dump needs
	 * CAP_SYS_ADMIN; without it, say so instead).
	 */
	if (!rc && tl_lost_scan(nl, name, dev, &lost, &lerr)) {
		tl_lost_free(&lost);
		lost.tier_lost = 0;
		lost_note = tl_nl_last_error(nl) == -EPERM ?
				    "a tier is not ok; run as root to see which ranges live on it" :
				    "a tier is not ok; the ranges on it could not be listed ('tierctl where --lost')";
	}
	tl_nl_close(nl);
	if (rc == TL_NOFEATURE) {
		free(dev);
		return TIERCTL_EXIT_NOFEATURE;
	}
	if (rc == TL_USAGE) {
		/* Not a dm-tier device the family knows: let the DM path say why. */
		free(dev);
		return TIERCTL_EXIT_NOFEATURE;
	}
	if (rc) {
		free(dev);
		return report(rc, &err);
	}
	/* The table: options, metadata device, DM uuid, suspended and
	 * read-only flags. */
	ret = tl_dm_query(name, NULL, false, &dt, &err);
	if (ret) {
		free(dev);
		if (ret == -ENXIO)
			return fail("%s disappeared while being queried", name);
		return report(TIERCTL_EXIT_FAIL, &err);
	}
	rc = tl_table_parse_line(dt.params, &tt, &err);
	if (!rc && failed_list_change(name, &dt, dev->nr_tiers, tt.t.nr_tiers,
				      &err))
		rc = TL_FAIL;
	else {
		if (!rc &&
		    (tt.t.nr_tiers != dev->nr_tiers ||
		     ((u64)tt.t.extent_sectors << TIER_SECTOR_SHIFT) != dev->extent_bytes))
			rc = tl_fail(&err, TL_FAIL,
				     "netlink and table of %s disagree (%u/%u tiers, %llu/%llu byte extents)",
				     name, dev->nr_tiers, tt.t.nr_tiers,
				     (unsigned long long)dev->extent_bytes,
				     (unsigned long long)tt.t.extent_sectors << TIER_SECTOR_SHIFT);
		if (rc)
			tl_err_append(&err,
				      "is tierctl older than the dm-tier module? ('tierctl version', 'modinfo dm-tier')");
	}
	if (!rc) {
		tl_nl_dev_to_status(dev, &st);
		status_line_meta(name, &st.meta);
		print_view(&dt, &st, &tt, dev, &lost, lost_note, json);
	}
	tl_lost_free(&lost);
	tl_table_free(&tt);
	tl_dm_dev_free(&dt);
	free(dev);
	return rc ? report(rc, &err) : TIERCTL_EXIT_OK;
}

int cmd_status(int argc, char **argv)
{
	struct tl_err err = { "" };
	struct tl_dm_dev ds, dt;
	struct tl_status st;
	struct tl_table tt = { 0 };
	const char *name;
	bool json;
	int rc, ret;

	if (!parse_json_opt("status", argc, argv, &json, &rc))
		return rc;
	if (optind >= argc)
		return usage_error("status: no device NAME given");
	if (optind + 1 < argc)
		return usage_error("status: unexpected argument '%s'",
				   argv[optind + 1]);
	name = argv[optind];

	rc = status_netlink(name, json);
	if (rc != TIERCTL_EXIT_NOFEATURE)
		return rc;
	/* An older module: device-mapper's status and table lines. */
	ret = tl_dm_query(name, NULL, true, &ds, &err);
	if (ret == -ENXIO)
		return fail("no device-mapper device named '%s'; 'tierctl list' shows the dm-tier devices",
			    name);
	if (ret)
		return report(TIERCTL_EXIT_FAIL, &err);
	if (ds.nr_targets != 1 || strcmp(ds.type, TL_DM_TARGET)) {
		tl_dm_dev_free(&ds);
		return fail("%s is not a dm-tier device", name);
	}
	ret = tl_dm_query(name, NULL, false, &dt, &err);
	if (ret) {
		tl_dm_dev_free(&ds);
		if (ret == -ENXIO)
			return fail("%s disappeared while being queried", name);
		return report(TIERCTL_EXIT_FAIL, &err);
	}
	rc = tl_status_parse(ds.params, &st, &err);
	if (!rc)
		rc = tl_table_parse_line(dt.params, &tt, &err);
	if (!rc && failed_list_change(name, &dt, st.nr_tiers, tt.t.nr_tiers,
				      &err))
		rc = TL_FAIL;
	else {
		if (!rc && (tt.t.nr_tiers != st.nr_tiers ||
			    tt.t.extent_sectors != st.extent_sectors))
			rc = tl_fail(&err, TL_FAIL,
				     "status and table of %s disagree (%u/%u tiers, %llu/%u sector extents)",
				     name, st.nr_tiers, tt.t.nr_tiers,
				     (unsigned long long)st.extent_sectors,
				     tt.t.extent_sectors);
		if (rc)
			tl_err_append(&err,
				      "is tierctl older than the dm-tier module? ('tierctl version', 'modinfo dm-tier')");
	}
	if (!rc) {
		print_view(&ds, &st, &tt, NULL, NULL, NULL, json);
	}
	tl_table_free(&tt);
	tl_dm_dev_free(&ds);
	tl_dm_dev_free(&dt);
	return rc ? report(rc, &err) : TIERCTL_EXIT_OK;
}
