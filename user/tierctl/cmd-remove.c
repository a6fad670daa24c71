// SPDX-License-Identifier: GPL-2.0
/* tierctl remove: deactivate a dm-tier device. */
#include <stdio.h>
#include <unistd.h>

#include "tierctl.h"
#include "tl-dm.h"

int cmd_remove(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_err err = { "" };
	struct tl_dm_dev d;
	const char *name;
	int c, ret, tries;

	opts_reset();
	while ((c = next_opt("remove", argc, argv, "", longopts)) != -1) {
		if (c == 'h')
			return TIERCTL_EXIT_OK;
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
	printf("removed /dev/mapper/%s\n", name);
	return TIERCTL_EXIT_OK;
}
