// SPDX-License-Identifier: GPL-2.0
/* tierctl migrate: move the mapped extents of a range to a tier (netlink). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl-print.h"
#include "tierctl.h"

int cmd_migrate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tier", required_argument, NULL, 't' },
		{ "to", required_argument, NULL, 't' }, /* 0.1 spelling */
		{ "range", required_argument, NULL, 'r' },
		{ "wait", no_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN], c_[TL_SIZE_STR_LEN];
	struct wait_result waited = { 0 };
	struct tl_err err = { "" };
	struct tl_nl_dev *dev;
	const char *name, *range = NULL;
	u64 start, len, done = 0;
	bool json = tierctl_json, have_tier = false, wait = false, unknown;
	struct tl_nl *nl, *mon = NULL;
	u32 tier = 0, id;
	int c, rc;

	opts_reset();
	while ((c = next_opt("migrate", argc, argv, "t:r:wjH", longopts)) != -1) {
		switch (c) {
		case 't':
			if (parse_tier_arg("migrate", optarg, &tier))
				return TIERCTL_EXIT_USAGE;
			have_tier = true;
			break;
		case 'r':
			range = optarg;
			break;
		case 'w':
			wait = true;
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
	if (argc - optind < 1)
		return usage_error("migrate: no device NAME given");
	name = argv[optind++];
	/* The range as --range (as pin and where take it), or positional. */
	if (!range && optind < argc)
		range = argv[optind++];
	if (optind < argc)
		return usage_error("migrate: unexpected argument '%s'", argv[optind]);
	if (!range)
		return usage_error("migrate: no --range START:LEN (or all) given");
	if (!have_tier)
		return usage_error("migrate: no --tier TIER given");
	if (parse_range("migrate", range, true, &start, &len))
		return TIERCTL_EXIT_USAGE;

	rc = nl_open_dev("migrate", name, &tier, &nl, &dev);
	if (rc)
		return rc;
	if (!len)	/* "all" */
		len = dev->size_bytes;
	/* Before the request: its migration-done event cannot be missed. */
	if (wait)
		mon = wait_open_monitor();
	rc = tl_nl_migrate(nl, name, start, len, tier, &done, &err);
	if (rc) {
		tl_nl_close(mon);
		tl_nl_close(nl);
		free(dev);
		return report(rc, &err);
	}
	id = tl_nl_last_move_id(nl);
	if (wait && id)
		rc = wait_for_move(nl, &mon, "migrate", name, id, done,
				   dev->extent_bytes, &waited);
	else if (wait) /* nothing was queued: nothing to wait for */
		snprintf(waited.outcome, sizeof(waited.outcome), "done");
	tl_nl_close(mon);
	tl_nl_close(nl);
	if (rc) {
		free(dev);
		return rc;
	}

	unknown = !strcmp(waited.outcome, "unknown");
	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "%s: ", name);
	if (id)
		print_u64("move_id", "request %llu: ", id);
	else
		print_null("move_id", "");
	print_u64("done_extents", "%llu extents", done);
	print_u64_text("done_bytes", " (%s)", done * dev->extent_bytes,
		       tl_size_str(done * dev->extent_bytes, a));
	print_u64_text("range_start", " of range %s", start, bytes_text(start, b));
	print_u64_text("range_len", ":%s", len, bytes_text(len, c_));
	if (wait) {
		print_u64("target_tier", " to tier %llu", tier);
		print_bool("waited", NULL, true);
		print_str("outcome", ": %s", waited.outcome);
		print_u64("moved_extents",
			  unknown ? ", at least %llu extents moved" :
				    ", %llu extents moved",
			  waited.moved);
		print_u64("elapsed_ms", " in %llu ms", waited.elapsed_ms);
		/* Unknown: how many were not moved is unknown too. */
		if (unknown)
			print_null("errors", "\n");
		else
			print_u64("errors", ", %llu not moved\n", waited.errors);
		print_str("paces", NULL, waited.paces);
	} else {
		print_u64("target_tier", " are moving to tier %llu", tier);
		print_bool("waited", NULL, false);
		print_text(" (in the background: 'tierctl status %s' shows the progress)\n",
			   name);
	}
	print_obj_end();
	print_close();
	free(dev);
	if (!strcmp(waited.outcome, "failed"))
		return fail("migrate: request %u failed (%s): extents not moved stay where they were; see 'tierctl status %s' and dmesg",
			    id, waited.err ? strerror((int)waited.err) : "unknown error",
			    name);
	if (!strcmp(waited.outcome, "cancelled"))
		return fail("migrate: request %u was cancelled", id);
	if (unknown) {
		char check[384];

		snprintf(check, sizeof(check),
			 "'tierctl where %s --range %llu:%llu' (where its extents are now)",
			 name, (unsigned long long)start,
			 (unsigned long long)len);
		return wait_unknown("migrate", name, id, &waited, check);
	}
	return TIERCTL_EXIT_OK;
}
