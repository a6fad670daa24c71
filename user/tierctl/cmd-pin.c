// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl pin / unpin: the extents under files (FIEMAP) or byte ranges of a
 * device, pinned (optionally moved to a tier) or unpinned over netlink.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tl-print.h"
#include "tierctl.h"
#include "tl-fiemap.h"

/* How long to keep retrying while the kernel's move queue is full. */
#define BUSY_WAIT_S 600

static int pin_range(struct tl_nl *nl, bool pin, const char *name,
		     const struct tl_range *r, int tier, u64 *done,
		     struct tl_err *err)
{
	time_t give_up = time(NULL) + BUSY_WAIT_S;
	int rc;

	for (;;) {
		rc = pin ? tl_nl_pin(nl, name, r->start, r->len, tier, done, err) :
			   tl_nl_unpin(nl, name, r->start, r->len, done, err);
		/*
		 * A pin that moves extents is queued; only a full queue
		 * (32 requests) refuses the next one: wait for room.
		 */
		if (rc != TL_FAIL || tl_nl_last_error(nl) != -EBUSY ||
		    time(NULL) >= give_up)
			return rc;
		usleep(200 * 1000);
	}
}

/* --tier of pin: "mem" (PIN_TIER_MEM) or a tier index, the memory tier's
 * (nr_tiers, at most TIER_MAX_TIERS) included. */
#define PIN_TIER_MEM (-2)

static int parse_pin_tier(const char *arg, int *tier)
{
	unsigned long v;
	char *end;

	if (!strcmp(arg, "mem")) {
		*tier = PIN_TIER_MEM;
		return TIERCTL_EXIT_OK;
	}
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v > TIER_MAX_TIERS)
		return usage_error("pin: invalid tier '%s' (a tier index, 0 is the fastest, or mem for the memory tier)",
				   arg);
	*tier = (int)v;
	return TIERCTL_EXIT_OK;
}

/*
 * The target tier against the device: "mem" (or the index nr_tiers) needs a
 * memory tier and becomes nr_tiers, which the kernel reads as "keep
 * resident in the memory tier".
 */
static int resolve_tier(const char *name, const struct tl_nl_dev *dev,
			int *tier, struct tl_err *err)
{
	if (*tier == PIN_TIER_MEM || (*tier >= 0 && (u32)*tier == dev->nr_tiers)) {
		if (!dev->mem.present)
			return tl_fail(err, TL_USAGE,
				       "pin: device %s has no memory tier; create it with --tier numa:NODE:SIZE",
				       name);
		*tier = (int)dev->nr_tiers;
		return TL_OK;
	}
	if (*tier >= 0 && (u32)*tier > dev->nr_tiers)
		return tl_fail(err, TL_USAGE, "pin: %s has tiers 0 to %u%s, not %d",
			       name, dev->nr_tiers - 1,
			       dev->mem.present ? " and the memory tier (mem)" : "",
			       *tier);
	return TL_OK;
}

static int pin_main(const char *cmd, bool pin, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tier", required_argument, NULL, 't' },
		{ "range", required_argument, NULL, 'r' },
		{ "wait", no_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "human", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char a[TL_SIZE_STR_LEN];
	struct tl_ranges rs = { 0 };
	struct tl_err err = { "" };
	struct tl_nl_dev *dev = NULL;
	struct tl_nl *nl = NULL, *mon = NULL;
	struct wait_result waited = { 0 };
	bool json = tierctl_json, wait = false;
	u64 wait_errors = 0, *covered = NULL;
	u64 start, len, done, total = 0;
	u32 *ids = NULL, nr_ids = 0, failed = 0, cancelled = 0, unknown = 0;
	const char *name;
	int tier = -1, c, i, rc;
	dev_t devt = 0;
	size_t k;

	opts_reset();
	while ((c = next_opt(cmd, argc, argv, pin ? "t:r:wjH" : "r:jH",
			     longopts)) != -1) {
		switch (c) {
		case 'w':
			if (!pin)
				return usage_error("unpin: --wait is for pin --tier");
			wait = true;
			break;
		case 't':
			if (!pin)
				return usage_error("unpin: --tier is for pin");
			if (parse_pin_tier(optarg, &tier))
				return TIERCTL_EXIT_USAGE;
			break;
		case 'r':
			if (parse_range(cmd, optarg, false, &start, &len))
				goto usage;
			if (tl_ranges_add(&rs, start, len)) {
				tl_ranges_free(&rs);
				return fail("out of memory");
			}
			break;
		case 'j':
			json = true;
			break;
		case 'H':
			tierctl_human = true;
			break;
		case 'h':
			tl_ranges_free(&rs);
			return TIERCTL_EXIT_OK;
		default:
			goto usage;
		}
	}
	if (optind >= argc) {
		usage_error("%s: no device NAME given", cmd);
		goto usage;
	}
	if (wait && (tier == -1 || tier == PIN_TIER_MEM)) {
		usage_error("pin: --wait follows a move: give --tier N as well");
		goto usage;
	}
	name = argv[optind++];
	if (optind >= argc && !rs.nr) {
		usage_error("%s: give the files (PATH...) or --range START:LEN", cmd);
		goto usage;
	}
	if (optind < argc) {
		rc = mapper_devt(name, &devt);
		if (rc)
			goto out;
		/* Every path first: refuse the whole command before changing anything. */
		for (i = optind; i < argc; i++) {
			rc = check_on_device(argv[i], name, devt);
			if (rc)
				goto out;
		}
	}

	rc = nl_open_dev(cmd, name, NULL, &nl, &dev);
	if (rc)
		goto out;
	if (tier != -1)
		rc = resolve_tier(name, dev, &tier, &err);
	for (i = optind; !rc && i < argc; i++)
		rc = tl_fiemap_path(argv[i], devt, &rs, &err);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	/* Whole extents, merged: one request per run of extents. */
	tl_ranges_normalize(&rs, dev->extent_bytes);
	ids = calloc(rs.nr + 1, sizeof(*ids));
	covered = calloc(rs.nr + 1, sizeof(*covered));
	if (!ids || !covered) {
		rc = fail("out of memory");
		goto out;
	}
	/* Before the requests: no migration-done event can be missed. */
	if (wait)
		mon = wait_open_monitor();
	for (k = 0; k < rs.nr; k++) {
		rc = pin_range(nl, pin, name, &rs.r[k], tier, &done, &err);
		if (rc) {
			if (total)
				tl_err_append(&err, "%llu extents were %s before this failure",
					      (unsigned long long)total,
					      pin ? "pinned" : "unpinned");
			rc = report(rc, &err);
			goto out;
		}
		total += done;
		/* Each range that moves is one queued request, run in order. */
		if (tl_nl_last_move_id(nl)) {
			covered[nr_ids] = done;
			ids[nr_ids++] = tl_nl_last_move_id(nl);
		}
	}
	/* With --wait, each request is followed to its own event. */
	for (k = 0; wait && k < nr_ids; k++) {
		rc = wait_for_move(nl, &mon, cmd, name, ids[k], covered[k],
				   dev->extent_bytes, &waited);
		if (rc)
			goto out;
		wait_errors += waited.errors;
		failed += !strcmp(waited.outcome, "failed");
		cancelled += !strcmp(waited.outcome, "cancelled");
		if (!strcmp(waited.outcome, "unknown") && !unknown++)
			warn("%s: the outcome of request %u is unknown (%s)",
			     cmd, ids[k], waited.why);
	}

	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "%s: ", name);
	print_text("%s ", pin ? "pinned" : "unpinned");
	print_u64("done_extents", "%llu extents", total);
	print_u64_text("done_bytes", " (%s)", total * dev->extent_bytes,
		       tl_size_str(total * dev->extent_bytes, a));
	print_u64("ranges", " in %llu ranges", rs.nr);
	if (nr_ids) {
		print_arr_begin("move_ids", nr_ids == 1 ? ", request" : ", requests");
		for (k = 0; k < nr_ids; k++)
			print_u64(NULL, " %llu", ids[k]);
		print_arr_end();
	}
	if (pin && tier >= 0 && dev->mem.present && (u32)tier == dev->nr_tiers)
		print_u64("target_tier",
			  ", keeping them resident in the memory tier (tier %llu)",
			  tier);
	else if (pin && tier >= 0)
		print_u64("target_tier", wait ? ", moved to tier %llu" : ", moving to tier %llu",
			  tier);
	else if (pin)
		print_null("target_tier", ", where they are");
	if (wait) {
		print_u64("failed_requests", ", %llu failed", failed);
		print_u64("cancelled_requests", ", %llu cancelled", cancelled);
		print_u64("unknown_requests", ", %llu of unknown outcome",
			  unknown);
		print_u64("errors", ", %llu extents not moved", wait_errors);
	}
	print_text("\n");
	print_obj_end();
	print_close();
	rc = TIERCTL_EXIT_OK;
	if (failed || cancelled)
		rc = fail("pin: %u of %u move requests failed or were cancelled; extents not moved stay where they were (see 'tierctl status %s' and dmesg)",
			  failed + cancelled, nr_ids, name);
	if (unknown)
		rc = fail("pin: the outcome of %u of %u move requests is unknown: they left the queue unseen; check 'tierctl status %s' and 'tierctl where %s PATH...' (where the extents are now)",
			  unknown, nr_ids, name, name);
out:
	free(ids);
	free(covered);
	tl_nl_close(mon);
	tl_nl_close(nl);
	tl_ranges_free(&rs);
	free(dev);
	return rc;
usage:
	tl_ranges_free(&rs);
	return TIERCTL_EXIT_USAGE;
}

int cmd_pin(int argc, char **argv)
{
	return pin_main("pin", true, argc, argv);
}

int cmd_unpin(int argc, char **argv)
{
	return pin_main("unpin", false, argc, argv);
}
