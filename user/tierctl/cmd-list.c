// SPDX-License-Identifier: GPL-2.0
/* tierctl list / status: what the kernel reports about dm-tier devices. */
#include <stdio.h>

#include "print.h"
#include "tierctl.h"
#include "tl-dm.h"
#include "tl-report.h"
#include "tl-status.h"
#include "tl-sysfs.h"

static bool parse_json_opt(const char *cmd, int argc, char **argv,
			   bool *json, int *rc)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*json = tierctl_json;
	opts_reset();
	while ((c = next_opt(cmd, argc, argv, "j", longopts)) != -1) {
		switch (c) {
		case 'j':
			*json = true;
			break;
		case 'h':
			*rc = TIERCTL_EXIT_OK;
			return false;
		default:
			*rc = TIERCTL_EXIT_USAGE;
			return false;
		}
	}
	return true;
}

int cmd_list(int argc, char **argv)
{
	struct tl_err err = { "" };
	struct tl_list_entry *v = NULL;
	char **names;
	size_t n, nr = 0, i;
	bool json;
	int rc;

	if (!parse_json_opt("list", argc, argv, &json, &rc))
		return rc;
	if (optind < argc)
		return usage_error("list: unexpected argument '%s'",
				   argv[optind]);
	if (tl_dm_list_names(&names, &n, &err)) {
		if (!tl_dm_available())
			return fail("device-mapper is not available in this kernel (run 'modprobe dm-mod')");
		return report(TIERCTL_EXIT_FAIL, &err);
	}
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		tl_dm_names_free(names, n);
		return fail("out of memory");
	}
	for (i = 0; i < n; i++) {
		struct tl_dm_dev d;
		struct tl_table tt;

		/* A device removed meanwhile is simply not listed. */
		if (tl_dm_query(names[i], NULL, false, &d, NULL))
			continue;
		if (d.nr_targets == 1 && !strcmp(d.type, TL_DM_TARGET)) {
			snprintf(v[nr].name, sizeof(v[nr].name), "%s", d.name);
			snprintf(v[nr].uuid, sizeof(v[nr].uuid), "%s", d.uuid);
			v[nr].size_bytes = d.length << TIER_SECTOR_SHIFT;
			if (!tl_table_parse_line(d.params, &tt, NULL))
				v[nr].nr_tiers = tt.t.nr_tiers;
			tl_table_free(&tt);
			nr++;
		}
		tl_dm_dev_free(&d);
	}
	tl_dm_names_free(names, n);

	print_open(json);
	tl_print_list(v, nr);
	print_close();
	free(v);
	return TIERCTL_EXIT_OK;
}

/* "/dev/nvme0n1" for a table's "259:0"; the table word itself otherwise. */
static void dev_path(const char *word, char *buf, size_t len)
{
	unsigned int maj, min;

	if (!tl_parse_devt(word, &maj, &min) &&
	    !tl_sysfs_devname(TL_SYSROOT, maj, min, buf, len))
		return;
	snprintf(buf, len, "%s", word);
}

static void print_view(const struct tl_dm_dev *d, const struct tl_status *st,
		       const struct tl_table *tt, bool json)
{
	char paths[TIER_MAX_TIERS][TL_PATH_LEN], meta[TL_PATH_LEN];
	struct tl_status_view v = {
		.name = d->name,
		.uuid = d->uuid,
		.size_bytes = d->length << TIER_SECTOR_SHIFT,
		.suspended = d->suspended,
		.st = st,
		.tt = tt,
	};
	u32 i;

	for (i = 0; i < st->nr_tiers; i++) {
		unsigned int maj, min;

		dev_path(tt->t.tier_dev[i], paths[i], sizeof(paths[i]));
		v.tier_path[i] = paths[i];
		if (!tl_parse_devt(tt->t.tier_dev[i], &maj, &min))
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
	if (!rc && (tt.t.nr_tiers != st.nr_tiers ||
		    tt.t.extent_sectors != st.extent_sectors))
		rc = tl_fail(&err, TL_FAIL,
			     "status and table of %s disagree (%u/%u tiers, %llu/%u sector extents)",
			     name, st.nr_tiers, tt.t.nr_tiers,
			     (unsigned long long)st.extent_sectors,
			     tt.t.extent_sectors);
	if (rc) {
		tl_err_append(&err,
			      "is tierctl older than the dm-tier module? ('tierctl version', 'modinfo dm-tier')");
	} else {
		print_view(&ds, &st, &tt, json);
	}
	tl_table_free(&tt);
	tl_dm_dev_free(&ds);
	tl_dm_dev_free(&dt);
	return rc ? report(rc, &err) : TIERCTL_EXIT_OK;
}
