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
	while ((c = next_opt("replace-tier", argc, argv, "c:j", longopts)) != -1) {
		switch (c) {
		case 'c':
			o->class_arg = optarg;
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

/* What replace-tier reads before each step. */
struct rstate {
	struct tier_sb sb;
	u64 old_mapped;
	u8 new_member[TIER_UUID_LEN];
	bool has_member; /* NEWDEV carries a label of this device */
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
 * Run tierctl command @argv (its code, in this process). With --json the
 * step's own output would break the one JSON object replace-tier prints:
 * its stdout goes to /dev/null then (errors stay on stderr).
 */
static int run_step(bool quiet, char **argv)
{
	int argc = 0, saved = -1, fd, rc;

	while (argv[argc])
		argc++;
	fflush(stdout);
	if (quiet) {
		saved = dup(STDOUT_FILENO);
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (saved < 0 || fd < 0 || dup2(fd, STDOUT_FILENO) < 0) {
			if (fd >= 0)
				close(fd);
			if (saved >= 0)
				close(saved);
			return fail("replace-tier: cannot redirect the output of a step");
		}
		close(fd);
	}
	rc = find_cmd(argv[0])->fn(argc, argv);
	fflush(stdout);
	if (quiet) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	return rc;
}

int cmd_replace_tier(int argc, char **argv)
{
	char dpath[TL_PATH_LEN], tbuf[16], nbuf[16], why[512];
	const char *steps_done[8];
	enum tl_replace_step step, first = TL_REPLACE_DONE;
	struct replace_opts o;
	struct rstate st;
	struct stat sb;
	u32 nr_done = 0, i, guard;
	bool json, started = false;
	int rc;

	rc = replace_parse(argc, argv, &o);
	if (rc || o.help)
		return rc;
	json = o.json;
	if (stat(o.dev, &sb) || !S_ISBLK(sb.st_mode))
		return usage_error("replace-tier: %s is not a block device",
				   o.dev);
	if (tl_sysfs_devname(TL_SYSROOT, major(sb.st_rdev), minor(sb.st_rdev),
			     dpath, sizeof(dpath)))
		snprintf(dpath, sizeof(dpath), "%s", o.dev);
	snprintf(tbuf, sizeof(tbuf), "%u", o.tier);
	snprintf(nbuf, sizeof(nbuf), "%u", o.tier + 1);
	/* Four steps at most; one more turn only to see "done". */
	for (guard = 0; guard < 6; guard++) {
		rc = read_state(&o, dpath, &st);
		if (rc)
			return rc;
		rc = tl_replace_next(&st.sb, o.tier,
				     st.has_member ? st.new_member : NULL,
				     st.old_mapped, &step, why, sizeof(why));
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
		} else if (nr_done && !strcmp(steps_done[nr_done - 1],
					      tl_replace_step_name(step)) &&
			   step != TL_REPLACE_DONE) {
			/* The step ran and the superblock does not show it. */
			return fail("replace-tier: the %s step did not take effect; 'tierctl status %s' shows the state, run replace-tier again",
				    tl_replace_step_name(step), o.name);
		}
		if (step == TL_REPLACE_DONE)
			break;
		if (!json)
			printf("%s: replace-tier %u: step %s\n", o.name, o.tier,
			       tl_replace_step_name(step));
		if (step == TL_REPLACE_ADD) {
			char *a[] = { "add-tier", (char *)o.name, (char *)o.dev,
				      "--position", nbuf, "--class",
				      (char *)tl_class_name(
					      o.class_arg ? o.tier_class :
							    st.sb.tier[o.tier]
								    .tier_class),
				      NULL };
			rc = run_step(json, a);
		} else if (step == TL_REPLACE_EVACUATE) {
			char *a[] = { "evacuate", (char *)o.name, tbuf, "--to",
				      nbuf, "--wait", NULL };
			struct tl_err err = { "" };

			rc = run_step(json, a);
			/*
			 * The evacuate flag reaches the superblock at a
			 * commit; the next turn reads it from there.
			 */
			if (!rc && tl_dm_message(o.name, "commit", &err))
				rc = report(TIERCTL_EXIT_FAIL, &err);
		} else {
			char *a[] = { "remove-tier", (char *)o.name, tbuf,
				      NULL };
			rc = run_step(json, a);
		}
		if (rc)
			return fail("replace-tier: the %s step failed (above); fix that and run 'tierctl replace-tier %s %u %s' again: it resumes there",
				    tl_replace_step_name(step), o.name, o.tier,
				    o.dev);
		steps_done[nr_done++] = tl_replace_step_name(step);
	}
	if (step != TL_REPLACE_DONE)
		return fail("replace-tier: no end after %u steps; 'tierctl status %s' shows the state",
			    guard, o.name);
	/* A run cut after the removal's commit left the old label: wipe it. */
	if (!nr_done) {
		char *a[] = { "remove-tier", (char *)o.name, nbuf, NULL };

		snprintf(nbuf, sizeof(nbuf), "%u", st.sb.nr_tiers);
		rc = run_step(json, a);
		if (rc)
			return rc;
	}
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
