// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl replace-tier NAME TIER NEWDEV: add NEWDEV as tier TIER+1,
 * evacuate TIER onto it (--to TIER+1, waiting, with a progress line), then
 * remove TIER, so that NEWDEV ends up as tier TIER (issue 18). Each step is
 * the code of the command of that name (add-tier, evacuate, remove-tier),
 * called in this process. Which step comes next is read from the
 * superblock each time (tl_replace_next()): running the same command again
 * after a crash, a power cut or Ctrl-C resumes where the last run stopped,
 * and says so.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tierctl.h"
#include "remote.h"
#include "tl-dm.h"
#include "tl-print.h"
#include "tl-replace.h"
#include "tl-status.h"
#include "tl-sysfs.h"
#include "tl-tierlist.h"

int replace_parse(int argc, char **argv, struct replace_opts *o)
{
	static const struct option longopts[] = {
		{ "class", required_argument, NULL, 'c' },
		{ "disconnect", no_argument, NULL, 'd' },
		{ "force", no_argument, NULL, 'f' },
		{ "ctrl-loss-tmo", required_argument, NULL, 'L' },
		{ "reconnect-delay", required_argument, NULL, 'R' },
		{ "fast-io-fail-tmo", required_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	unsigned long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->json = tierctl_json;
	o->tier_class = TL_CLASS_AUTO;
	opts_reset();
	while ((c = next_opt("replace-tier", argc, argv, "c:fj", longopts)) != -1) {
		switch (c) {
		case 'c':
			o->class_arg = optarg;
			break;
		case 'd':
			o->disconnect = true;
			break;
		case 'f':
			o->force = true;
			break;
		case 'L':
			o->loss_tmo_arg = optarg;
			break;
		case 'R':
			o->reconnect_arg = optarg;
			break;
		case 'F':
			o->fail_arg = optarg;
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
	if (argc - optind != 3)
		return usage_error("replace-tier: give NAME, TIER and NEWDEV");
	o->name = argv[optind];
	errno = 0;
	v = strtoul(argv[optind + 1], &end, 10);
	if (errno || end == argv[optind + 1] || *end || v >= TIER_MAX_TIERS ||
	    argv[optind + 1][0] == '-')
		return usage_error("replace-tier: invalid tier '%s' (0 to %d)",
				   argv[optind + 1], TIER_MAX_TIERS - 1);
	o->tier = v;
	o->dev = argv[optind + 2];
	if (o->class_arg && (tl_class_parse(o->class_arg, &o->tier_class) ||
			     o->tier_class == TIER_CLASS_MEM ||
			     o->tier_class == TL_CLASS_AUTO))
		return usage_error("replace-tier: unknown class '%s'; use nvme, nvmf or pmem (without --class: the class of the tier replaced)",
				   o->class_arg);
	return TIERCTL_EXIT_OK;
}

/*
 * Tests only (VM test 076): TIERCTL_TEST_STOP=replace:STEP makes
 * replace-tier stop right after STEP (add, evacuate, remove), as a crash
 * would; TIERCTL_TEST_STOP=commit stops add-tier or remove-tier right
 * after the kernel's commit (cmd-tierlist.c) and replace-tier after that
 * step. Exit 0 after saying so, so that a power cut can follow.
 */
static bool replace_test_stop(const char *step)
{
	const char *s = getenv("TIERCTL_TEST_STOP");

	if (!s || (strcmp(s, "commit") &&
		   (strncmp(s, "replace:", 8) || strcmp(s + 8, step))))
		return false;
	fprintf(stderr, "tierctl: TIERCTL_TEST_STOP: replace-tier stopped after the %s step\n",
		step);
	return true;
}

/* What replace-tier reads before each step. */
struct rstate {
	struct tier_sb sb;
	u64 old_mapped;
	u8 new_member[TIER_UUID_LEN];
	bool has_member; /* NEWDEV carries a label of this device */
	bool new_spare; /* ... with a spare metadata area of its size */
	bool meta_ext;
};

static int devt_path(const char *devt, char *buf, size_t len)
{
	unsigned int maj, min;

	if (!tl_parse_devt(devt, &maj, &min) &&
	    !tl_sysfs_devname(TL_SYSROOT, maj, min, buf, len))
		return 0;
	snprintf(buf, len, "%s", devt);
	return -1;
}

/* The superblock of active device @name, NEWDEV's label, tier @tier's mapped. */
static int read_state(const struct replace_opts *o, const char *dpath,
		      struct rstate *st)
{
	struct tl_err err = { "" };
	struct tl_table tt = { 0 };
	char meta[TL_PATH_LEN];
	struct tier_label ml, nl;
	struct tl_status stat;
	struct tl_dm_dev d;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = tl_dm_query(o->name, NULL, false, &d, &err);
	if (ret == -ENXIO)
		return fail("replace-tier: no active device named '%s'; activate it first (tierctl activate %s)",
			    o->name, o->name);
	if (ret)
		return report(TIERCTL_EXIT_FAIL, &err);
	if (d.nr_targets != 1 || strcmp(d.type, TL_DM_TARGET)) {
		tl_dm_dev_free(&d);
		return fail("replace-tier: %s is not a dm-tier device", o->name);
	}
	ret = tl_table_parse_line(d.params, &tt, &err);
	tl_dm_dev_free(&d);
	if (ret) {
		tl_table_free(&tt);
		return report(TIERCTL_EXIT_FAIL, &err);
	}
	st->meta_ext = tt.t.metadata_dev != NULL;
	devt_path(st->meta_ext ? tt.t.metadata_dev : tt.t.tier_dev[0], meta,
		  sizeof(meta));
	tl_table_free(&tt);
	if (tl_tierlist_read_label(meta, &ml))
		return fail("replace-tier: cannot read the label of %s", meta);
	if (tl_tierlist_read_sb(meta, &ml, &st->sb, &err))
		return report(TIERCTL_EXIT_FAIL, &err);
	if (!tl_tierlist_read_label(dpath, &nl) &&
	    !memcmp(nl.uuid, st->sb.uuid, TIER_UUID_LEN) &&
	    nl.tier_index != TIER_META_DEV) {
		memcpy(st->new_member, nl.member_uuid, TIER_UUID_LEN);
		st->has_member = true;
		st->new_spare = nl.spare_meta_blocks ==
				2 + 2 * st->sb.map_blocks;
	}
	if (o->tier >= st->sb.nr_tiers)
		return TIERCTL_EXIT_OK;
	if (tl_dm_query(o->name, NULL, true, &d, &err))
		return report(TIERCTL_EXIT_FAIL, &err);
	ret = tl_status_parse(d.params, &stat, &err);
	tl_dm_dev_free(&d);
	if (ret)
		return report(TIERCTL_EXIT_FAIL, &err);
	st->old_mapped = stat.tier[o->tier].mapped_extents;
	return TIERCTL_EXIT_OK;
}

/*
 * With --json the steps' own output would break the one JSON object
 * replace-tier prints: their stdout goes to /dev/null then (errors stay on
 * stderr). quiet_begin() returns the saved stdout, or -1 (not quiet, or
 * it failed: the step then prints, which is harmless).
 */
static int quiet_begin(bool quiet)
{
	int saved, fd;

	fflush(stdout);
	if (!quiet)
		return -1;
	saved = dup(STDOUT_FILENO);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved < 0 || fd < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		saved = -1;
	}
	if (fd >= 0)
		close(fd);
	return saved;
}

static void quiet_end(int saved)
{
	fflush(stdout);
	if (saved < 0)
		return;
	dup2(saved, STDOUT_FILENO);
	close(saved);
}

/* The evacuate step: "tierctl evacuate NAME TIER --to TIER+1 --wait". */
static int evacuate_step(const struct replace_opts *o, bool json)
{
	char tbuf[16], nbuf[16];
	char *a[] = { "evacuate", (char *)o->name, tbuf, "--to", nbuf, "--wait",
		      NULL };
	struct tl_err err = { "" };
	int rc;

	snprintf(tbuf, sizeof(tbuf), "%u", o->tier);
	snprintf(nbuf, sizeof(nbuf), "%u", o->tier + 1);
	(void)json;
	rc = cmd_evacuate(6, a);
	/* The evacuate flag reaches the superblock at a commit; the next
	 * turn reads it from there. */
	if (!rc && tl_dm_message(o->name, "commit", &err))
		rc = report(TIERCTL_EXIT_FAIL, &err);
	return rc;
}

int cmd_replace_tier(int argc, char **argv)
{
	enum tl_replace_step step = TL_REPLACE_ADD, first = TL_REPLACE_DONE;
	enum tl_replace_step prev = TL_REPLACE_DONE;
	char dpath[TL_PATH_LEN], why[512];
	const char *steps_done[8];
	struct tierctl_remote r;
	struct replace_opts o;
	struct rstate st;
	struct stat sb;
	u32 nr_done = 0, i, guard, repeats = 0;
	bool json, started = false;
	int rc, saved;

	rc = replace_parse(argc, argv, &o);
	if (rc || o.help)
		return rc;
	json = o.json;
	rc = tierctl_remote_parse("replace-tier", o.dev, o.loss_tmo_arg,
				  o.reconnect_arg, o.fail_arg, &r);
	if (rc)
		return rc;
	/* A URI: the device first (read_state() says so), then connect. */
	if (r.is_remote) {
		rc = read_state(&o, "/dev/null", &st);
		if (rc)
			return rc;
		rc = tierctl_remote_connect("replace-tier", &r);
		if (rc)
			return rc;
	}
	if (stat(r.dev, &sb) || !S_ISBLK(sb.st_mode))
		return usage_error("replace-tier: %s is not a block device",
				   r.dev);
	if (tl_sysfs_devname(TL_SYSROOT, major(sb.st_rdev), minor(sb.st_rdev),
			     dpath, sizeof(dpath)))
		snprintf(dpath, sizeof(dpath), "%s", r.dev);
	/* Three steps, one repeated at most, and a turn to see "done". */
	for (guard = 0; guard < 6; guard++) {
		rc = read_state(&o, dpath, &st);
		if (rc)
			return rc;
		rc = tl_replace_next(&st.sb, o.tier,
				     st.has_member ? st.new_member : NULL,
				     st.new_spare, st.old_mapped, &step, why,
				     sizeof(why));
		/* Not a member yet: what this run connected goes again. */
		if (rc && !st.has_member)
			tierctl_remote_undo(&r);
		if (rc == TL_USAGE)
			return usage_error("replace-tier: %s", why);
		if (rc)
			return fail("replace-tier: %s", why);
		if (!started) {
			first = step;
			started = true;
			if (!json && step == TL_REPLACE_DONE)
				printf("%s: replace-tier %u: %s is tier %u already: nothing to do but a leftover label\n",
				       o.name, o.tier, dpath, o.tier);
			else if (!json && step != TL_REPLACE_ADD)
				printf("%s: replace-tier %u: resuming at the %s step (the superblock shows the earlier steps done)\n",
				       o.name, o.tier, tl_replace_step_name(step));
		} else if (step == prev && ++repeats > 1) {
			/*
			 * Once is normal: a remove-tier that finds an earlier
			 * change cut after its commit only completes that
			 * change's label work. Twice, the step does nothing.
			 */
			return fail("replace-tier: the %s step did not take effect; 'tierctl status %s' shows the state, run replace-tier again",
				    tl_replace_step_name(step), o.name);
		}
		if (step == TL_REPLACE_DONE)
			break;
		if (step != prev)
			repeats = 0;
		prev = step;
		if (!json)
			printf("%s: replace-tier %u: step %s\n", o.name, o.tier,
			       tl_replace_step_name(step));
		/*
		 * Queued moves (tierd's pins and retention) follow the list
		 * change: nothing to wait for (docs/ARCHITECTURE.md "Move
		 * queue"). A move to TIER is refused while it evacuates.
		 */
		saved = quiet_begin(json);
		if (step == TL_REPLACE_ADD)
			rc = tierctl_add_tier(
				o.name, r.dev,
				o.class_arg ? o.tier_class :
				r.is_remote ? TL_CLASS_AUTO :
					      st.sb.tier[o.tier].tier_class,
				(int)o.tier + 1, !o.tier && !st.meta_ext,
				o.force, json);
		else if (step == TL_REPLACE_EVACUATE)
			rc = evacuate_step(&o, json);
		else
			rc = tierctl_remove_tier(o.name, o.tier, o.disconnect,
						 json);
		quiet_end(saved);
		/* NEWDEV joined: recorded before anything else can fail. */
		if (!rc && step == TL_REPLACE_ADD)
			rc = tierctl_remote_record("replace-tier", o.name, &r);
		if (rc && step == TL_REPLACE_ADD && !st.has_member)
			tierctl_remote_undo(&r);
		if (rc)
			return fail("replace-tier: the %s step failed (above); fix that and run 'tierctl replace-tier %s %u %s' again: it resumes there",
				    tl_replace_step_name(step), o.name, o.tier,
				    o.dev);
		if (nr_done < ARRAY_SIZE(steps_done))
			steps_done[nr_done++] = tl_replace_step_name(step);
		if (replace_test_stop(tl_replace_step_name(step)))
			return TIERCTL_EXIT_OK;
	}
	if (step != TL_REPLACE_DONE)
		return fail("replace-tier: no end after %u steps; 'tierctl status %s' shows the state",
			    guard, o.name);
	/*
	 * The removed member's label: wiped by the remove step, unless a
	 * crash cut it after its commit. remove-tier of the tier after the
	 * last wipes every label of this device the superblock does not list
	 * (its "tier N is not in the list" line would only confuse here).
	 */
	saved = quiet_begin(true);
	rc = tierctl_remove_tier(o.name, st.sb.nr_tiers, false, json);
	quiet_end(saved);
	/* Again (idempotent): a run cut between its add step and the record. */
	if (!rc)
		rc = tierctl_remote_record("replace-tier", o.name, &r);
	if (rc)
		return rc;
	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "%s: ", o.name);
	print_u64("tier", "tier %llu", o.tier);
	print_str("device", " is %s now", dpath);
	print_str("resumed_at", " (started at the %s step", tl_replace_step_name(first));
	print_arr_begin("steps", NULL);
	for (i = 0; i < nr_done; i++)
		print_str(NULL, i ? ", %s" : "; ran: %s", steps_done[i]);
	print_arr_end();
	print_text("%s)", nr_done ? "" : "; nothing left to do");
	print_u64("nr_tiers", "; %llu tiers\n", st.sb.nr_tiers);
	print_obj_end();
	print_close();
	return TIERCTL_EXIT_OK;
}
