// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl evacuate-lost: a tier is lost for good; after a confirmation,
 * turn every byte range of the device on it into an unmapped range that
 * reads as zeroes (the kernel's tier-forget, which commits), so the rest
 * of the device returns to normal use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tl-lost.h"
#include "tl-print.h"
#include "tierctl.h"

#define EVACUATE_TRIES 20	/* EBUSY: extents of the tier being moved */
#define EVACUATE_WAIT_US 500000

/* Ask on stderr, read the answer from stdin: true for "yes". */
static bool confirm(const char *name, u32 tier, u64 bytes, size_t ranges)
{
	char line[64];

	fprintf(stderr,
		"tierctl: evacuate-lost: %llu bytes of %s in %zu range%s live on tier %u and will read as zeroes from now on.\n"
		"tierctl: type 'yes' to go on: ",
		(unsigned long long)bytes, name, ranges, ranges == 1 ? "" : "s",
		tier);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	line[strcspn(line, "\n")] = '\0';
	return !strcmp(line, "yes");
}

int cmd_evacuate_lost(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tier", required_argument, NULL, 't' },
		{ "yes", no_argument, NULL, 'y' },
		{ "json", no_argument, NULL, 'j' },
		{ "human", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_err err = { "" };
	bool json = tierctl_json, yes = false;
	struct tl_lost l = { 0 };
	struct tl_nl_dev *dev;
	u64 done = 0, bytes;
	const char *name, *tier_opt = NULL;
	struct tl_nl *nl;
	int c, rc, try;
	u32 tier = 0;

	opts_reset();
	while ((c = next_opt("evacuate-lost", argc, argv, "t:yjH", longopts)) != -1) {
		switch (c) {
		case 't':
			tier_opt = optarg;
			break;
		case 'y':
			yes = true;
			break;
		case 'j':
			json = true;
			break;
		case 'H':
			tierctl_human = true;
			break;
		case 'h':
			return TIERCTL_EXIT_OK;
		default:
			return TIERCTL_EXIT_USAGE;
		}
	}
	if (parse_name_tier("evacuate-lost", argc, argv, tier_opt, &name, &tier))
		return TIERCTL_EXIT_USAGE;

	rc = nl_open_dev("evacuate-lost", name, &tier, &nl, &dev);
	if (rc)
		return rc;
	if (!tier) {
		rc = fail("evacuate-lost: tier 0 holds the metadata of %s and cannot be evacuated",
			  name);
		goto out;
	}
	if (!tl_tier_state_lost(dev->tiers[tier].state)) {
		rc = fail("evacuate-lost: tier %u of %s is %s; only a tier that is not ok can be evacuated ('tierctl status %s')",
			  tier, name, dev->tiers[tier].state, name);
		goto out;
	}
	rc = tl_lost_scan(nl, name, dev, &l, &err);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	bytes = l.bytes[tier];
	if (!yes && !confirm(name, tier, bytes, l.nr)) {
		rc = fail("evacuate-lost: not confirmed; nothing changed (--yes skips the question)");
		goto out;
	}
	for (try = 0;; try++) {
		rc = tl_nl_tier_forget(nl, name, tier, &done, &err);
		if (!rc || tl_nl_last_error(nl) != -EBUSY ||
		    try + 1 >= EVACUATE_TRIES)
			break;
		/* Its extents were being moved: the rest went; again. */
		memset(&err, 0, sizeof(err));
		usleep(EVACUATE_WAIT_US);
	}
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "%s: ", name);
	print_u64("tier", "tier %llu", tier);
	print_str("previous_state", " (%s) evacuated", dev->tiers[tier].state);
	print_u64("lost_bytes", ": %llu bytes", bytes);
	print_u64("ranges", " in %llu ranges now read as zeroes", l.nr);
	print_u64("forgotten_extents", " (%llu extents unmapped, committed)\n",
		  done);
	print_obj_end();
	print_close();
out:
	tl_nl_close(nl);
	tl_lost_free(&l);
	free(dev);
	return rc;
}
