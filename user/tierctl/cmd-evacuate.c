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

#include "tl-dm.h"
#include "tl-lost.h"
#include "tl-print.h"
#include "tl-sysfs.h"
#include "tl-tierlist.h"
#include "tierctl.h"
#include "policy.h"

#define EVACUATE_TRIES 20	/* EBUSY: extents of the tier being moved */
#define EVACUATE_WAIT_US 500000

/*
 * Ask on stderr, read the answer from stdin: true for "yes". The ranges
 * were listed on stdout just before.
 */
static bool confirm(const char *name, u32 tier, u64 bytes, size_t ranges)
{
	char line[64];

	fprintf(stderr,
		"tierctl: evacuate-lost: %llu bytes of %s in %zu range%s (listed above) live on tier %u and will read as zeroes from now on.\n"
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
	char a[TL_SIZE_STR_LEN];
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
	/* Only this tier's ranges: other tiers that are not ok stay. */
	tl_lost_keep_tier(&l, tier);
	bytes = l.bytes[tier];
	/*
	 * The ranges first, as where --lost lists them, then the question;
	 * JSON carries them in the one object, "evacuated" saying whether
	 * they were forgotten.
	 */
	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "%s: ", name);
	print_u64("tier", "tier %llu", tier);
	print_str("previous_state", " (%s) holds these ranges of the device, which read as zeroes once it is evacuated:\n",
		  dev->tiers[tier].state);
	tl_print_lost(&l, dev, 0, tierctl_human);
	if (!json)
		fflush(stdout);
	if (!yes && !confirm(name, tier, bytes, l.nr)) {
		print_bool("evacuated", NULL, false);
		print_obj_end();
		print_close();
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
		print_bool("evacuated", NULL, false);
		print_obj_end();
		print_close();
		rc = report(rc, &err);
		goto out;
	}
	print_text("%s: tier %u (%s) evacuated: %s bytes", name, tier,
		   dev->tiers[tier].state, bytes_text(bytes, a));
	print_u64("ranges", " in %llu ranges now read as zeroes", l.nr);
	print_bool("evacuated", NULL, true);
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

/* ---- tierctl evacuate: empty a healthy tier by moving its extents ---- */

int evacuate_parse(int argc, char **argv, struct evacuate_opts *o)
{
	static const struct option longopts[] = {
		{ "tier", required_argument, NULL, 't' },
		{ "to", required_argument, NULL, 'T' },
		{ "wait", no_argument, NULL, 'w' },
		{ "cancel", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *tier_opt = NULL, *to_opt = NULL;
	int c;

	memset(o, 0, sizeof(*o));
	o->json = tierctl_json;
	o->to = TL_NL_NO_TIER;
	opts_reset();
	while ((c = next_opt("evacuate", argc, argv, "t:T:wcj", longopts)) != -1) {
		switch (c) {
		case 't':
			tier_opt = optarg;
			break;
		case 'T':
			to_opt = optarg;
			break;
		case 'w':
			o->wait = true;
			break;
		case 'c':
			o->cancel = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			o->help = true;
			return TIERCTL_EXIT_OK;
		default:
			return TIERCTL_EXIT_USAGE;
		}
	}
	if (o->wait && o->cancel)
		return usage_error("evacuate: --wait and --cancel do not go together");
	if (to_opt && o->cancel)
		return usage_error("evacuate: --to and --cancel do not go together");
	if (to_opt && parse_tier_arg("evacuate --to", to_opt, &o->to))
		return TIERCTL_EXIT_USAGE;
	return parse_name_tier("evacuate", argc, argv, tier_opt, &o->name,
			       &o->tier);
}

int evacuate_check_to(const struct tl_nl_dev *dev, u32 tier, u32 to, char *why,
		      size_t len)
{
	if (to >= dev->nr_tiers) {
		snprintf(why, len, "--to %u: %s has tiers 0 to %u", to,
			 dev->name, dev->nr_tiers - 1);
		return TIERCTL_EXIT_USAGE;
	}
	if (to == tier) {
		snprintf(why, len, "--to %u is the tier being evacuated; name another tier",
			 to);
		return TIERCTL_EXIT_USAGE;
	}
	if (!strcmp(dev->tiers[to].state, "offline") ||
	    dev->tiers[to].evacuating) {
		snprintf(why, len, "--to %u: tier %u of %s is %s and takes no extents; name another tier, or leave --to out",
			 to, to, dev->name,
			 dev->tiers[to].evacuating ? "being evacuated" :
						     "offline");
		return TIERCTL_EXIT_FAIL;
	}
	return TIERCTL_EXIT_OK;
}

int evacuate_precheck(const struct tl_nl_dev *dev, u32 tier, bool meta_on_tier0,
		      u32 reserve_pct, u64 *missing_bytes, char *why,
		      size_t len)
{
	u64 free[TIER_MAX_TIERS] = { 0 }, missing = 0;
	u32 i, blocked = 0;

	*missing_bytes = 0;
	if (tier >= dev->nr_tiers) {
		snprintf(why, len, "%s has tiers 0 to %u, not %u", dev->name,
			 dev->nr_tiers - 1, tier);
		return TIERCTL_EXIT_USAGE;
	}
	if (dev->nr_tiers == 1) {
		snprintf(why, len, "%s has only tier 0: there is nowhere to move its extents ('tierctl add-tier' first)",
			 dev->name);
		return TIERCTL_EXIT_FAIL;
	}
	if (!tier && meta_on_tier0) {
		snprintf(why, len, "tier 0 holds the metadata: it cannot be evacuated on its own; 'tierctl replace-tier %s 0 NEWDEV' moves its data and the metadata to a new device (a device created with --metadata-dev keeps the metadata elsewhere)",
			 dev->name);
		return TIERCTL_EXIT_FAIL;
	}
	if (!strcmp(dev->tiers[tier].state, "offline")) {
		snprintf(why, len, "tier %u of %s is offline: its extents cannot be read ('tierctl recover %s --tier %u' once it is back, or 'tierctl evacuate-lost' if it is lost for good)",
			 tier, dev->name, dev->name, tier);
		return TIERCTL_EXIT_FAIL;
	}
	if (dev->tiers[tier].evacuating)
		return TIERCTL_EXIT_OK;
	for (i = 0; i < dev->nr_tiers; i++) {
		const struct tl_nl_tier *t = &dev->tiers[i];
		u64 reserve = t->capacity_extents * reserve_pct / 100;
		/* Mapped, not used: extents freed but awaiting a commit
		 * (used) are room by the time the moves need them. */
		u64 f = t->capacity_extents > t->mapped_extents ?
				t->capacity_extents - t->mapped_extents : 0;

		free[i] = f > reserve ? f - reserve : 0;
		if (t->evacuating || !strcmp(t->state, "offline"))
			blocked |= 1U << i;
	}
	if (tier_policy_evac_room(dev->nr_tiers, tier, blocked, free,
				  dev->tiers[tier].mapped_extents, &missing)) {
		char a[TL_SIZE_STR_LEN];

		*missing_bytes = missing * dev->extent_bytes;
		snprintf(why, len, "the other tiers of %s lack room for the %s mapped on tier %u: %llu MiB missing above their %u%% reserves; free space first, or add a tier",
			 dev->name,
			 tl_size_str(dev->tiers[tier].mapped_extents * dev->extent_bytes, a),
			 tier, (unsigned long long)((*missing_bytes + (1 << 20) - 1) >> 20),
			 reserve_pct);
		return TIERCTL_EXIT_FAIL;
	}
	return TIERCTL_EXIT_OK;
}

bool evacuate_confirm(const struct tl_nl_dev *dev, u32 tier,
		      struct wait_result *res)
{
	const struct tl_nl_tier *t;
	u32 k;

	if (strcmp(res->outcome, "unknown") || !dev->has_migration ||
	    tier >= dev->nr_tiers)
		return false;
	for (k = 0; k < dev->nr_moves; k++)
		if (!strcmp(dev->moves[k].kind, "evacuate") &&
		    dev->moves[k].target_tier == tier)
			return false; /* queued again meanwhile */
	t = &dev->tiers[tier];
	if (!t->evacuating || t->mapped_extents)
		return false;
	/* Still flagged and holding nothing: what "done" leaves. */
	snprintf(res->outcome, sizeof(res->outcome), "done");
	snprintf(res->why, sizeof(res->why),
		 "its event was not seen; the tier is empty");
	return true;
}

/*
 * The table's reserve_pct and whether the metadata is on tier 0 to stay:
 * not when tier 1 has a spare metadata area (replace-tier NAME 0 added it
 * to take the metadata over: its evacuate step moves tier 0's data there).
 */
static int evacuate_table(const char *name, u32 *reserve_pct, bool *meta0)
{
	struct tier_label l;
	char path[TL_PATH_LEN];
	unsigned int maj, min;
	struct tl_err err = { "" };
	struct tl_table tt = { 0 };
	struct tl_dm_dev dt;
	int rc;

	rc = tl_dm_query(name, NULL, false, &dt, &err);
	if (rc)
		return fail("evacuate: cannot read the table of %s: %s", name,
			    err.msg[0] ? err.msg : strerror(-rc));
	rc = tl_table_parse_line(dt.params, &tt, &err);
	if (!rc) {
		*reserve_pct = tt.t.reserve_pct;
		*meta0 = !tt.t.metadata_dev;
		if (*meta0 && tt.t.nr_tiers > 1 &&
		    !tl_parse_devt(tt.t.tier_dev[1], &maj, &min) &&
		    !tl_sysfs_devname(TL_SYSROOT, maj, min, path, sizeof(path)) &&
		    !tl_tierlist_read_label(path, &l) && l.spare_meta_blocks)
			*meta0 = false;
	}
	tl_table_free(&tt);
	tl_dm_dev_free(&dt);
	return rc ? report(rc, &err) : TIERCTL_EXIT_OK;
}

int cmd_evacuate(int argc, char **argv)
{
	struct evacuate_opts o;
	struct wait_result waited = { 0 };
	struct tl_err err = { "" };
	struct tl_nl *nl, *mon = NULL;
	struct tl_nl_dev *dev;
	char why[512], a[TL_SIZE_STR_LEN];
	u64 mapped = 0, missing;
	u32 reserve_pct = 0, id;
	bool meta0 = true, unknown = false;
	int rc;

	rc = evacuate_parse(argc, argv, &o);
	if (rc || o.help)
		return rc;
	rc = nl_open_dev("evacuate", o.name, &o.tier, &nl, &dev);
	if (rc)
		return rc;
	if (!o.cancel) {
		rc = evacuate_table(o.name, &reserve_pct, &meta0);
		if (!rc && evacuate_precheck(dev, o.tier, meta0, reserve_pct,
					     &missing, why, sizeof(why)))
			rc = fail("evacuate: %s", why);
		if (!rc && o.to != TL_NL_NO_TIER) {
			int t = evacuate_check_to(dev, o.tier, o.to, why,
						  sizeof(why));

			if (t == TIERCTL_EXIT_USAGE)
				rc = usage_error("evacuate: %s", why);
			else if (t)
				rc = fail("evacuate: %s", why);
		}
		if (rc)
			goto out;
	}
	if (o.wait)
		mon = wait_open_monitor();
	rc = tl_nl_evacuate(nl, o.name, o.tier, o.cancel, o.to, &mapped, &err);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	id = tl_nl_last_move_id(nl);
	if (o.wait && id)
		rc = wait_for_move(nl, &mon, "evacuate", o.name, id, mapped,
				   dev->extent_bytes, &waited);
	else if (o.wait) /* nothing was queued: nothing to wait for */
		snprintf(waited.outcome, sizeof(waited.outcome), "done");
	if (rc)
		goto out;
	/* Its event was not seen: the tier's state may still tell. */
	if (!strcmp(waited.outcome, "unknown") &&
	    tl_nl_dev_get(nl, o.name, dev, &err) == TL_OK)
		evacuate_confirm(dev, o.tier, &waited);
	err.msg[0] = '\0';
	unknown = !strcmp(waited.outcome, "unknown");
	print_open(o.json);
	print_obj_begin(NULL);
	print_str("name", "%s: ", o.name);
	print_u64("tier", "tier %llu", o.tier);
	if (o.cancel) {
		print_null("move_id", NULL);
		print_str("evacuation", ": %s", "cancelled");
		print_u64("mapped_extents", ", %llu extents stay on it", mapped);
		print_text("; it takes new extents again\n");
	} else {
		print_u64("move_id", ": request %llu", id);
		print_u64_text("mapped_bytes", ", %s", mapped * dev->extent_bytes,
			       tl_size_str(mapped * dev->extent_bytes, a));
		print_u64("mapped_extents", " (%llu extents) to move", mapped);
		if (o.to != TL_NL_NO_TIER)
			print_u64("to_tier", ", to tier %llu first", o.to);
		else
			print_null("to_tier", NULL);
		print_bool("waited", NULL, o.wait);
		if (o.wait) {
			print_str("outcome", ": %s", waited.outcome);
			print_u64("moved_extents",
				  unknown ? ", at least %llu extents moved" :
					    ", %llu extents moved",
				  waited.moved);
			print_u64("elapsed_ms", " in %llu ms\n", waited.elapsed_ms);
		} else {
			print_text("; it takes no new extents (in the background: 'tierctl status %s' shows the progress)\n",
				   o.name);
		}
	}
	print_obj_end();
	print_close();
	if (!strcmp(waited.outcome, "failed"))
		rc = fail("evacuate: request %u failed (%s): the tier still holds extents and takes no new ones; 'tierctl evacuate %s %u' tries again",
			  id, waited.err ? strerror((int)waited.err) : "unknown error",
			  o.name, o.tier);
	else if (!strcmp(waited.outcome, "cancelled"))
		rc = fail("evacuate: request %u was cancelled; the tier takes no new extents until 'tierctl evacuate %s %u --cancel'",
			  id, o.name, o.tier);
	else if (unknown)
		rc = wait_unknown("evacuate", o.name, id, &waited,
				  "its tier's evacuation state: 'empty' when it is done, 'stopped' when extents are left ('tierctl evacuate' again resumes)");
out:
	tl_nl_close(mon);
	tl_nl_close(nl);
	free(dev);
	return rc;
}
