// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl recover: tell the kernel a degraded tier is usable again (the
 * tier-recover request), after the admin repaired or reconnected it. When
 * the tier's device is gone (a namespace deleted and reconnected under a
 * new name), the tier is first re-bound by its label (tl-rebind.h). tierd
 * does the same by itself for NVMe-oF tiers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tl-print.h"
#include "tl-rebind.h"
#include "tierctl.h"

int cmd_recover(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tier", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_err err = { "" };
	struct tl_rebind rb = { 0 };
	struct tl_nl_dev *dev;
	bool json = tierctl_json;
	const char *name;
	struct tl_nl *nl;
	char *was;
	const char *tier_opt = NULL;
	u32 tier = 0;
	int c, rc;

	opts_reset();
	while ((c = next_opt("recover", argc, argv, "t:j", longopts)) != -1) {
		switch (c) {
		case 't':
			tier_opt = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			return TIERCTL_EXIT_OK;
		default:
			return TIERCTL_EXIT_USAGE;
		}
	}
	if (parse_name_tier("recover", argc, argv, tier_opt, &name, &tier))
		return TIERCTL_EXIT_USAGE;

	rc = nl_open_dev("recover", name, &tier, &nl, &dev);
	if (rc)
		return rc;
	was = dev->tiers[tier].state;
	/* Tier 0 is the device itself: never re-bound. */
	if (tier && tl_rebind_tier(name, tier, &rb, &err)) {
		tl_nl_close(nl);
		free(dev);
		return report(TIERCTL_EXIT_FAIL, &err);
	}
	rc = tl_nl_tier_recover(nl, name, tier, &err);
	tl_nl_close(nl);
	if (rc) {
		free(dev);
		return report(rc, &err);
	}

	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "%s: ", name);
	print_u64("tier", "tier %llu", tier);
	print_str("previous_state", " was %s", was);
	print_text(", now ok (a new I/O error marks it degraded again)\n");
	print_bool("rebound", rb.rebound ? "  re-bound by its label: " : NULL,
		   rb.rebound);
	if (rb.rebound) {
		print_str("previous_device", "%s", rb.from);
		print_str("device", " is now %s (nothing copied)\n", rb.to);
	}
	print_obj_end();
	print_close();
	free(dev);
	return TIERCTL_EXIT_OK;
}
