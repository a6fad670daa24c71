// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl list: the active dm-tier devices, as the kernel reports them.
 * Served over netlink (dev-get) when the module has the dm-tier family, else
 * from device-mapper's status lines (an older module); same JSON keys.
 */
#include <ctype.h>
#include <stdio.h>

#include "tl-print.h"
#include "tierctl.h"
#include "tl-dm.h"
#include "tl-report.h"
#include "tl-status.h"

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
