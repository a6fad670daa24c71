// SPDX-License-Identifier: GPL-2.0
/* tierctl remove: deactivate a dm-tier device. */
#include <stdio.h>
#include <unistd.h>

#include "tierctl.h"
#include "remote.h"
#include "tl-dm.h"
#include "tl-print.h"
#include "tl-status.h"
#include "tl-sysfs.h"

/* The device numbers of the tiers (and metadata device) in a table. */
struct table_devs {
	unsigned int maj[TIER_MAX_DEVS], min[TIER_MAX_DEVS];
	int nr;
};

static int table_devs(const char *name, const char *params,
		      struct table_devs *td)
{
	struct tl_err err = { "" };
	struct tl_table tt;
	u32 i;
	int rc = TIERCTL_EXIT_OK;

	td->nr = 0;
	if (tl_table_parse_line(params, &tt, &err)) {
		tl_table_free(&tt);
		return fail("%s: cannot read its table, so --disconnect does not know its tiers: %s; remove without --disconnect and use 'nvme disconnect'",
			    name, err.msg);
	}
	for (i = 0; i <= tt.t.nr_tiers && td->nr < TIER_MAX_DEVS; i++) {
		const char *dev = i < tt.t.nr_tiers ? tt.t.tier_dev[i] :
						      tt.t.metadata_dev;

		if (!dev)
			continue;
		if (tl_parse_devt(dev, &td->maj[td->nr], &td->min[td->nr])) {
			rc = fail("%s: unexpected device '%s' in its table (not MAJ:MIN)",
				  name, dev);
			break;
		}
		td->nr++;
	}
	tl_table_free(&tt);
	return rc;
}

/*
 * After the dm device is gone: disconnect the NVMe-oF controllers behind
 * its devices and drop their targets from the record, so that the next
 * `tierctl activate` does not connect them again.
 */
static int disconnect_remote_tiers(const char *name,
				   const struct table_devs *td)
{
	char cmd[TL_PATH_LEN];
	int i, rc = TIERCTL_EXIT_OK;

	snprintf(cmd, sizeof(cmd), "removed /dev/mapper/%s, but", name);
	for (i = 0; i < td->nr; i++)
		if (tierctl_remote_forget(cmd, td->maj[i], td->min[i]))
			rc = TIERCTL_EXIT_FAIL;
	return rc;
}

int cmd_remove(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "disconnect", no_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_err err = { "" };
	struct tl_dm_dev d;
	struct table_devs td = { .nr = 0 };
	const char *name;
	bool disconnect = false, json = tierctl_json;
	int c, ret, tries;

	opts_reset();
	while ((c = next_opt("remove", argc, argv, "j", longopts)) != -1) {
		if (c == 'h')
			return TIERCTL_EXIT_OK;
		if (c == 'd') {
			disconnect = true;
			continue;
		}
		if (c == 'j') {
			json = true;
			continue;
		}
		return TIERCTL_EXIT_USAGE;
	}
	if (optind >= argc)
		return usage_error("remove: no device NAME given");
	if (optind + 1 < argc)
		return usage_error("remove: unexpected argument '%s'",
				   argv[optind + 1]);
	name = argv[optind];

	ret = tl_dm_query(name, NULL, false, &d, &err);
	if (ret == -ENXIO)
		return fail("no device-mapper device named '%s'; 'tierctl list' shows the dm-tier devices",
			    name);
	if (ret)
		return report(TIERCTL_EXIT_FAIL, &err);
	if (strcmp(d.type, TL_DM_TARGET) || d.nr_targets != 1) {
		if (!d.nr_targets)
			ret = fail("%s is not a dm-tier device (it has no table)",
				   name);
		else
			ret = fail("%s is not a dm-tier device (target '%s'%s); use dmsetup for it",
				   name, d.type,
				   d.nr_targets > 1 ? " and others" : "");
		tl_dm_dev_free(&d);
		return ret;
	}
	if (disconnect) {
		ret = table_devs(name, d.params ? d.params : "", &td);
		if (ret) {
			tl_dm_dev_free(&d);
			return ret;
		}
	}
	tl_dm_dev_free(&d);
	/*
	 * udev probes a device after a writer closes it (blkid holds it open
	 * for a moment): give such transient opens up to 5 s to go away.
	 */
	for (tries = 0; d.open_count > 0 && tries < 50; tries++) {
		usleep(100 * 1000);
		if (tl_dm_query(name, NULL, false, &d, &err))
			break;
		tl_dm_dev_free(&d);
	}
	if (d.open_count > 0)
		return fail("%s is busy (open %d time%s: mounted, or used by a program or another device); unmount or close it and retry",
			    name, d.open_count, d.open_count == 1 ? "" : "s");
	if (tl_dm_remove(name, &err))
		return report(TIERCTL_EXIT_FAIL, &err);
	/* JSON: {"name": ..., "removed": true, "disconnected": [URI...]}. */
	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "removed /dev/mapper/%s\n", name);
	print_bool("removed", NULL, true);
	print_arr_begin("disconnected", NULL);
	ret = disconnect ? disconnect_remote_tiers(name, &td) : TIERCTL_EXIT_OK;
	print_arr_end();
	print_obj_end();
	print_close();
	return ret;
}
