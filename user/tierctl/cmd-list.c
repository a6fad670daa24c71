// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl list / status: what the kernel reports about dm-tier devices.
 * Served over netlink (dev-get) when the module has the dm-tier family, else
 * from device-mapper's status line (an older module); same JSON keys.
 */
#include <ctype.h>
#include <stdio.h>

#include "tl-print.h"
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

struct nl_list {
	struct tl_list_entry *v;
	size_t nr, cap;
};

/* "DMTIER-<32 hex>" from the superblock UUID in text form (dashes or not). */
static bool dm_uuid_from_text(const char *text, char *out, size_t len)
{
	char hex[TL_UUID_HEX_LEN + 1];
	size_t n = 0;

	for (; *text; text++) {
		if (*text == '-')
			continue;
		if (!isxdigit((unsigned char)*text) || n == TL_UUID_HEX_LEN)
			return false;
		hex[n++] = tolower((unsigned char)*text);
	}
	hex[n] = '\0';
	if (n != TL_UUID_HEX_LEN)
		return false;
	snprintf(out, len, "%s%s", TL_DM_UUID_PREFIX, hex);
	return true;
}

static int nl_list_add(const struct tl_nl_dev *dev, void *arg)
{
	struct nl_list *l = arg;
	struct tl_list_entry *e;

	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;

		e = realloc(l->v, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		l->v = e;
		l->cap = cap;
	}
	e = &l->v[l->nr++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", dev->name);
	e->size_bytes = dev->size_bytes;
	e->nr_tiers = dev->nr_tiers;
	e->has_mem = dev->mem.present;
	e->mem_node = dev->mem.node;
	e->mem_bytes_max = dev->mem.bytes_max;
	if (!dm_uuid_from_text(dev->uuid, e->uuid, sizeof(e->uuid))) {
		struct tl_dm_dev d;

		/* Not in the expected form: ask device-mapper. */
		if (!tl_dm_query(dev->name, NULL, false, &d, NULL)) {
			snprintf(e->uuid, sizeof(e->uuid), "%s", d.uuid);
			tl_dm_dev_free(&d);
		}
	}
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tl_list_entry *)a)->name,
		      ((const struct tl_list_entry *)b)->name);
}

/* list over netlink; TIERCTL_EXIT_NOFEATURE (quietly) when it cannot be. */
static int list_netlink(bool json)
{
	struct tl_err err = { "" };
	struct nl_list l = { 0 };
	struct tl_nl *nl;
	int rc;

	if (tl_nl_open(&nl, &err))
		return TIERCTL_EXIT_NOFEATURE;
	rc = tl_nl_dev_list(nl, nl_list_add, &l, &err);
	tl_nl_close(nl);
	if (rc == TL_NOFEATURE) {
		free(l.v);
		return TIERCTL_EXIT_NOFEATURE;
	}
	if (rc == -ENOMEM)
		rc = tl_fail(&err, TL_FAIL, "out of memory");
	if (rc) {
		free(l.v);
		return report(rc, &err);
	}
	if (l.nr > 1)
		qsort(l.v, l.nr, sizeof(*l.v), entry_cmp);
	print_open(json);
	tl_print_list(l.v, l.nr);
	print_close();
	free(l.v);
	return TIERCTL_EXIT_OK;
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
	rc = list_netlink(json);
	if (rc != TIERCTL_EXIT_NOFEATURE)
		return rc;
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
			if (!tl_table_parse_line(d.params, &tt, NULL)) {
				v[nr].nr_tiers = tt.t.nr_tiers;
				v[nr].has_mem = tt.mem.on;
				v[nr].mem_node = tt.mem.node;
				v[nr].mem_bytes_max = (u64)tt.mem.size_mb << 20;
			}
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

/*
 * "tierctl status" for either source: @st from the status line or from
 * netlink (tl_nl_dev_to_status()), @tt the table (options, devices), @nd
 * the netlink reply for the tiers' kernel names (NULL on the DM path).
 */
static void print_view(const struct tl_dm_dev *d, const struct tl_status *st,
		       const struct tl_table *tt, const struct tl_nl_dev *nd,
		       bool json)
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
 * status over netlink. TIERCTL_EXIT_NOFEATURE, without a message, when the
 * module has no dm-tier family (or no dev-get): the caller falls back.
 */
static int status_netlink(const char *name, bool json)
{
	struct tl_err err = { "" };
	struct tl_table tt = { 0 };
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
	/* The table: options, metadata device, DM uuid, suspended flag. */
	ret = tl_dm_query(name, NULL, false, &dt, &err);
	if (ret) {
		free(dev);
		if (ret == -ENXIO)
			return fail("%s disappeared while being queried", name);
		return report(TIERCTL_EXIT_FAIL, &err);
	}
	rc = tl_table_parse_line(dt.params, &tt, &err);
	if (!rc && (tt.t.nr_tiers != dev->nr_tiers ||
		    ((u64)tt.t.extent_sectors << TIER_SECTOR_SHIFT) != dev->extent_bytes))
		rc = tl_fail(&err, TL_FAIL,
			     "netlink and table of %s disagree (%u/%u tiers, %llu/%llu byte extents)",
			     name, dev->nr_tiers, tt.t.nr_tiers,
			     (unsigned long long)dev->extent_bytes,
			     (unsigned long long)tt.t.extent_sectors << TIER_SECTOR_SHIFT);
	if (rc)
		tl_err_append(&err,
			      "is tierctl older than the dm-tier module? ('tierctl version', 'modinfo dm-tier')");
	else {
		tl_nl_dev_to_status(dev, &st);
		print_view(&dt, &st, &tt, dev, json);
	}
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
		print_view(&ds, &st, &tt, NULL, json);
	}
	tl_table_free(&tt);
	tl_dm_dev_free(&ds);
	tl_dm_dev_free(&dt);
	return rc ? report(rc, &err) : TIERCTL_EXIT_OK;
}
