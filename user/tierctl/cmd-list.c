// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl list / status: what the kernel reports about dm-tier devices.
 * Served over netlink (dev-get) when the module has the dm-tier family, else
 * from device-mapper's status line (an older module); same JSON keys.
 */
#include <ctype.h>
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

/* part / whole in tenths of a percent, without overflow. */
static unsigned int permille(u64 part, u64 whole)
{
	if (!whole)
		return 0;
	if (part > U64_MAX / 1000)
		return part / (whole / 1000 ? whole / 1000 : 1);
	return part * 1000 / whole;
}

/* "4.1 s" for 4100 ms. */
static const char *ms_str(u64 ms, char *buf, size_t len)
{
	snprintf(buf, len, "%llu.%llu s", (unsigned long long)(ms / 1000),
		 (unsigned long long)(ms % 1000 / 100));
	return buf;
}

static void print_nl_tier(const struct tl_nl_dev *dev, const struct tl_table *tt,
			  u32 i)
{
	const struct tl_nl_tier *t = &dev->tiers[i];
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN], c[TL_SIZE_STR_LEN];
	char path[TL_PATH_LEN];
	u64 ext = dev->extent_bytes;
	u64 free_ext = t->capacity_extents > t->used_extents ?
		       t->capacity_extents - t->used_extents : 0;
	unsigned int pm = permille(t->used_extents, t->capacity_extents);
	const char *cls = t->tier_class;

	if (t->device[0])
		snprintf(path, sizeof(path), "/dev/%s", t->device);
	else if (i < tt->t.nr_tiers)
		dev_path(tt->t.tier_dev[i], path, sizeof(path));
	else
		snprintf(path, sizeof(path), "-");
	if (!cls[0]) {
		unsigned int maj, min;

		cls = "unknown";
		if (i < tt->t.nr_tiers &&
		    !tl_parse_devt(tt->t.tier_dev[i], &maj, &min))
			cls = tl_class_name(tl_sysfs_detect_class(TL_SYSROOT, maj, min));
	}
	print_obj_begin(NULL);
	print_u64("index", "  %-5llu ", i);
	print_str("device", "%-20s ", path);
	print_str("class", "%-8s ", cls);
	print_str("state", "%-9s ", t->state[0] ? t->state : "unknown");
	print_u64("capacity_extents", NULL, t->capacity_extents);
	print_u64("used_extents", NULL, t->used_extents);
	print_u64("free_extents", NULL, free_ext);
	print_u64_text("used_bytes", "%9s", t->used_extents * ext,
		       tl_size_str(t->used_extents * ext, a));
	print_u64_text("capacity_bytes", " / %-9s", t->capacity_extents * ext,
		       tl_size_str(t->capacity_extents * ext, b));
	print_text(" (%3u.%u%%) ", pm / 10, pm % 10);
	print_u64_text("free_bytes", " %-11s", free_ext * ext,
		       tl_size_str(free_ext * ext, c));
	if (dev->has_migration)
		print_u64("mapped_extents", " %-10llu", t->mapped_extents);
	else
		print_null("mapped_extents", " -         ");
	print_u64("read_ios", " %-12llu", t->read_ios);
	print_u64("write_ios", " %-12llu", t->write_ios);
	print_u64("io_errors", " %llu\n", t->io_errors);
	print_obj_end();
}

static void print_nl_migration(const struct tl_nl_dev *dev)
{
	const struct tl_nl_migration *m = &dev->migration;
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN];

	if (!dev->has_migration) {
		print_null("migration",
			   "  migration: not reported (the dm-tier module predates migration)\n");
		return;
	}
	print_obj_begin("migration");
	print_str("pace", "  migration: pace %s", m->pace[0] ? m->pace : "unknown");
	print_u64("in_flight", ", %llu in flight", m->in_flight);
	print_u64("promotions", ", %llu up", m->promotions);
	print_u64("demotions", ", %llu down", m->demotions);
	print_u64_text("bytes_moved", ", %s moved", m->bytes_moved,
		       tl_size_str(m->bytes_moved, a));
	print_u64_text("above_high_ms", ", %s above high watermark",
		       m->above_high_ms, ms_str(m->above_high_ms, b, sizeof(b)));
	print_u64("errors", ", %llu errors", m->errors);
	print_u64("manual_pending",
		  m->manual_pending ? ", %llu extents left to migrate" : NULL,
		  m->manual_pending);
	print_text("\n");
	print_obj_end();
}

/*
 * "tierctl status" from netlink's dev-get, with the table line for the
 * options and devices: the keys of tl_print_status() plus each tier's
 * io_errors (and the state the kernel reports).
 */
static void print_nl_status(const struct tl_dm_dev *d, const struct tl_table *tt,
			    const struct tl_nl_dev *dev, bool json)
{
	const struct tier_table *t = &tt->t;
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN], dm[160], meta[TL_PATH_LEN];
	u64 ext = dev->extent_bytes, size = d->length << TIER_SECTOR_SHIFT;
	unsigned int pm = permille(dev->mapped_extents, dev->virt_extents);
	u32 i;

	snprintf(dm, sizeof(dm), "/dev/mapper/%s", d->name);
	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "%s:", d->name);
	print_str("uuid", NULL, d->uuid);
	print_str("dm_device", NULL, dm);
	print_u64_text("size_bytes", " %s", size, tl_size_str(size, a));
	print_u64_text("extent_bytes", ", %s extents", ext, tl_size_str(ext, b));
	print_u64("virt_extents", NULL, dev->virt_extents);
	print_u64("nr_tiers", ", %llu tier", dev->nr_tiers);
	print_text("%s\n", dev->nr_tiers == 1 ? "" : "s");
	print_str("metadata_mode", "  metadata:  %s",
		  dev->metadata_mode[0] ? dev->metadata_mode : "unknown");
	print_u64("commits", ", %llu commits", dev->commits);
	if (t->metadata_dev) {
		dev_path(t->metadata_dev, meta, sizeof(meta));
		print_str("metadata_device", ", on %s", meta);
	} else {
		print_null("metadata_device", ", on tier 0");
	}
	print_bool("suspended", d->suspended ? ", SUSPENDED" : NULL, d->suspended);
	print_text("\n");
	print_u64("mapped_extents", "  mapped:    %llu", dev->mapped_extents);
	print_u64_text("mapped_bytes", " extents (%s)", dev->mapped_extents * ext,
		       tl_size_str(dev->mapped_extents * ext, a));
	print_text(" of %llu, %u.%u%%\n", (unsigned long long)dev->virt_extents,
		   pm / 10, pm % 10);
	print_u64("commit_interval_ms", "  options:   commit every %llu ms",
		  t->commit_interval_ms);
	print_u64("reserve_pct", ", %llu%% reserve", t->reserve_pct);
	print_bool("discard_passdown", ", discard passdown %s\n",
		   t->discard_passdown);
	print_nl_migration(dev);
	print_arr_begin("tiers", "  tier  device               class    state          used / capacity            free        mapped     reads        writes       io errors\n");
	for (i = 0; i < dev->nr_tiers && i < TIER_MAX_TIERS; i++)
		print_nl_tier(dev, tt, i);
	print_arr_end();
	print_u64("nospc_errors", "  nospc errors: %llu\n", dev->nospc_errors);
	print_obj_end();
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
	else
		print_nl_status(&dt, &tt, dev, json);
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
		print_view(&ds, &st, &tt, json);
	}
	tl_table_free(&tt);
	tl_dm_dev_free(&ds);
	tl_dm_dev_free(&dt);
	return rc ? report(rc, &err) : TIERCTL_EXIT_OK;
}
