// SPDX-License-Identifier: GPL-2.0
/* tierctl migrate: move the mapped extents of a range to a tier (netlink). */
#include <stdio.h>
#include <stdlib.h>

#include "tl-print.h"
#include "tierctl.h"

int cmd_migrate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN], c_[TL_SIZE_STR_LEN];
	struct tl_err err = { "" };
	struct tl_nl_dev *dev;
	const char *name, *range;
	u64 start, len, done = 0;
	bool json = tierctl_json, have_tier = false;
	struct tl_nl *nl;
	u32 tier = 0;
	int c, rc;

	opts_reset();
	while ((c = next_opt("migrate", argc, argv, "t:jH", longopts)) != -1) {
		switch (c) {
		case 't':
			if (parse_tier_arg("migrate", optarg, &tier))
				return TIERCTL_EXIT_USAGE;
			have_tier = true;
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
	if (argc - optind < 2)
		return usage_error("migrate: needs NAME and RANGE (START:LEN or all)");
	if (argc - optind > 2)
		return usage_error("migrate: unexpected argument '%s'", argv[optind + 2]);
	if (!have_tier)
		return usage_error("migrate: no --to TIER given");
	name = argv[optind];
	range = argv[optind + 1];
	if (parse_range("migrate", range, true, &start, &len))
		return TIERCTL_EXIT_USAGE;

	rc = nl_open_dev("migrate", name, &tier, &nl, &dev);
	if (rc)
		return rc;
	if (!len)	/* "all" */
		len = dev->size_bytes;
	rc = tl_nl_migrate(nl, name, start, len, tier, &done, &err);
	tl_nl_close(nl);
	if (rc) {
		free(dev);
		return report(rc, &err);
	}

	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "%s: ", name);
	print_u64("done_extents", "%llu extents", done);
	print_u64_text("done_bytes", " (%s)", done * dev->extent_bytes,
		       tl_size_str(done * dev->extent_bytes, a));
	print_u64_text("range_start", " of range %s", start, bytes_text(start, b));
	print_u64_text("range_len", ":%s", len, bytes_text(len, c_));
	print_u64("target_tier", " are moving to tier %llu", tier);
	print_text(" (in the background: 'tierctl status %s' shows the progress)\n",
		   name);
	print_obj_end();
	print_close();
	free(dev);
	return TIERCTL_EXIT_OK;
}
