// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl add-tier, remove-tier: change the tier list of an active device
 * with a table reload (docs/ARCHITECTURE.md "Tier list changes"). The
 * kernel commits the superblock with the new list at the resume; the
 * labels' tier index and count are hints rewritten here afterwards, and a
 * removed member's label is wiped last. Every step can be cut by a crash:
 * activate then uses the superblock's list, warns about a label it does
 * not list, and running the command again completes it.
 */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tierctl.h"
#include "tl-dm.h"
#include "tl-print.h"
#include "tl-status.h"
#include "tl-sysfs.h"
#include "tl-tierlist.h"

#ifndef BLKGETSIZE64
#define BLKGETSIZE64 _IOR(0x12, 114, size_t)
#endif

/*
 * Tests only (VM test 070): TIERCTL_TEST_STOP=label|commit makes the
 * command stop right after that step, as a crash would (exit 0 after
 * saying so), so that a power cut can follow it.
 */
static bool test_stop(const char *step)
{
	const char *s = getenv("TIERCTL_TEST_STOP");

	if (!s || strcmp(s, step))
		return false;
	fprintf(stderr, "tierctl: TIERCTL_TEST_STOP: stopped after the %s step\n",
		step);
	return true;
}

/* An active device: its table, member paths and superblock. */
struct live {
	struct tl_dm_dev d;
	struct tl_table tt;
	u32 nr;
	char path[TIER_MAX_TIERS][TL_PATH_LEN];
	char meta_path[TL_PATH_LEN];
	struct tier_label meta_label;
	struct tier_sb sb;
};

static void live_free(struct live *lv)
{
	tl_table_free(&lv->tt);
	tl_dm_dev_free(&lv->d);
}

static int devt_to_path(const char *devt, char *buf, size_t len)
{
	unsigned int maj, min;

	if (!tl_parse_devt(devt, &maj, &min) &&
	    !tl_sysfs_devname(TL_SYSROOT, maj, min, buf, len))
		return 0;
	snprintf(buf, len, "%s", devt);
	return -1;
}

static int live_open(const char *cmd, const char *name, struct live *lv)
{
	struct tl_err err = { "" };
	u32 i;
	int ret;

	memset(lv, 0, sizeof(*lv));
	ret = tl_dm_query(name, NULL, false, &lv->d, &err);
	if (ret == -ENXIO)
		return fail("%s: no active device named '%s'; activate it first (tierctl activate %s)",
			    cmd, name, name);
	if (ret)
		return report(TIERCTL_EXIT_FAIL, &err);
	if (lv->d.nr_targets != 1 || strcmp(lv->d.type, TL_DM_TARGET)) {
		tl_dm_dev_free(&lv->d);
		return fail("%s: %s is not a dm-tier device", cmd, name);
	}
	if (lv->d.read_only) {
		live_free(lv);
		return fail("%s: %s is activated read-only: nothing can change; remove it and activate it read-write",
			    cmd, name);
	}
	if (tl_table_parse_line(lv->d.params, &lv->tt, &err)) {
		live_free(lv);
		return report(TIERCTL_EXIT_FAIL, &err);
	}
	lv->nr = lv->tt.t.nr_tiers;
	for (i = 0; i < lv->nr; i++)
		devt_to_path(lv->tt.t.tier_dev[i], lv->path[i], TL_PATH_LEN);
	if (lv->tt.t.metadata_dev)
		devt_to_path(lv->tt.t.metadata_dev, lv->meta_path, TL_PATH_LEN);
	else
		snprintf(lv->meta_path, TL_PATH_LEN, "%s", lv->path[0]);
	if (tl_tierlist_read_label(lv->meta_path, &lv->meta_label)) {
		ret = fail("%s: cannot read the label of %s", cmd, lv->meta_path);
		live_free(lv);
		return ret;
	}
	if (tl_tierlist_read_sb(lv->meta_path, &lv->meta_label, &lv->sb, &err)) {
		live_free(lv);
		return report(TIERCTL_EXIT_FAIL, &err);
	}
	return TIERCTL_EXIT_OK;
}

/* Rewrite the hints of the labels of @paths (the list @sb has). */
static void rewrite_hints(const char *cmd, char (*paths)[TL_PATH_LEN], u32 n,
			  const char *meta_path, const struct tier_sb *sb)
{
	struct tier_label l, nl;
	struct tl_err err = { "" };
	u32 i;

	for (i = 0; i <= n; i++) {
		const char *p = i < n ? paths[i] : meta_path;

		if (!p || !*p || tl_tierlist_read_label(p, &l))
			continue;
		if (tl_tierlist_hint(&l, sb, &nl) != 1)
			continue;
		if (tl_tierlist_write_label(p, &nl, &err))
			warn("%s: %s (its tier index and count are hints only: the device works without the update)",
			     cmd, err.msg);
	}
}

/* After a failed reload: the previous table back, when the new one is stuck. */
static void restore_table(const char *name, const struct live *lv)
{
	struct tl_err err = { "" };
	struct tl_dm_dev d;

	if (tl_dm_query(name, NULL, false, &d, NULL))
		return;
	if (d.suspended &&
	    tl_dm_reload(name, lv->d.start, lv->d.length, TL_DM_TARGET,
			 lv->d.params, &err))
		warn("%s stays suspended: %s", name, err.msg);
	tl_dm_dev_free(&d);
}

static void print_result(const char *what, const char *name, u32 tier,
			 const char *dev, u32 nr_tiers, const char *extra)
{
	print_obj_begin(NULL);
	print_str("name", "%s: ", name);
	print_str("action", "%s ", what);
	print_u64("tier", "tier %llu", tier);
	print_str("device", " (%s)", dev);
	print_u64("nr_tiers", "; %llu tiers now", nr_tiers);
	if (extra)
		print_str("note", "; %s", extra);
	else
		print_null("note", NULL);
	print_text("\n");
	print_obj_end();
}

int cmd_add_tier(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "class", required_argument, NULL, 'c' },
		{ "position", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char paths[TIER_MAX_TIERS][TL_PATH_LEN], params[4096], devt[32];
	const char *class_arg = NULL, *pos_arg = NULL, *name, *dev;
	struct tier_label cur, l;
	struct tl_err err = { "" };
	bool json = tierctl_json;
	u8 member_uuid[TIER_UUID_LEN];
	char dpath[TL_PATH_LEN];
	u32 tier_class, pos;
	struct live lv;
	struct stat st;
	u64 bytes = 0;
	int c, rc, fd, lret, listed;

	opts_reset();
	while ((c = next_opt("add-tier", argc, argv, "c:p:j", longopts)) != -1) {
		switch (c) {
		case 'c':
			class_arg = optarg;
			break;
		case 'p':
			pos_arg = optarg;
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
	if (argc - optind != 2)
		return usage_error("add-tier: give NAME and DEV");
	name = argv[optind];
	dev = argv[optind + 1];
	tier_class = TL_CLASS_AUTO;
	if (class_arg && (tl_class_parse(class_arg, &tier_class) ||
			  tier_class == TIER_CLASS_MEM))
		return usage_error("add-tier: unknown class '%s'; use nvme, nvmf, pmem or auto",
				   class_arg);
	if (pos_arg && parse_tier_arg("add-tier", pos_arg, &pos))
		return TIERCTL_EXIT_USAGE;
	if (stat(dev, &st) || !S_ISBLK(st.st_mode))
		return usage_error("add-tier: %s is not a block device", dev);
	if (tl_sysfs_devname(TL_SYSROOT, major(st.st_rdev), minor(st.st_rdev),
			     dpath, sizeof(dpath)))
		snprintf(dpath, sizeof(dpath), "%s", dev);
	rc = live_open("add-tier", name, &lv);
	if (rc)
		return rc;
	if (pos_arg && pos != lv.nr) {
		rc = fail("add-tier: inserting at position %u is not supported yet (it renumbers the tiers after it); add at the end: --position %u or no --position",
			  pos, lv.nr);
		goto out;
	}
	snprintf(devt, sizeof(devt), "%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	lret = tl_tierlist_read_label(dpath, &cur);
	if (!lret && !memcmp(cur.uuid, lv.sb.uuid, TIER_UUID_LEN) &&
	    (listed = tier_label_sb_index(&cur, &lv.sb)) >= 0) {
		/* A run cut after the kernel's commit: only the hints left. */
		memcpy(paths, lv.path, sizeof(paths));
		rewrite_hints("add-tier", paths, lv.nr, lv.tt.t.metadata_dev ?
			      lv.meta_path : NULL, &lv.sb);
		print_open(json);
		print_result("has", name, listed, dpath, lv.nr,
			     "already a member; labels updated");
		print_close();
		rc = TIERCTL_EXIT_OK;
		goto out;
	}
	if (!lret && memcmp(cur.uuid, lv.sb.uuid, TIER_UUID_LEN)) {
		rc = fail("add-tier: %s carries the label of dm-tier device '%.63s'; remove it from that device, or wipe the label (wipefs -a) if that device is gone",
			  dpath, cur.name);
		goto out;
	}
	if (!lret && cur.tier_index == TIER_META_DEV) {
		rc = fail("add-tier: %s is the metadata device of %s", dpath,
			  name);
		goto out;
	}
	/* Not mounted, not claimed by another device (exclusive open). */
	fd = open(dpath, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		rc = fail("add-tier: cannot open %s exclusively: %s; it is in use (mounted, or a member of another device)",
			  dpath, strerror(errno));
		goto out;
	}
	if (ioctl(fd, BLKGETSIZE64, &bytes))
		bytes = 0;
	close(fd);
	if (tier_class == TL_CLASS_AUTO)
		tier_class = tl_sysfs_detect_class(TL_SYSROOT, major(st.st_rdev),
						   minor(st.st_rdev));
	rc = tl_uuid_random(member_uuid) ?
		     tl_fail(&err, TL_FAIL, "cannot get random numbers") :
		     tl_tierlist_new_label(&lv.meta_label, &lv.sb,
					   bytes >> TIER_SECTOR_SHIFT,
					   tier_class, member_uuid, &l, &err);
	if (!rc)
		rc = tl_tierlist_write_label(dpath, &l, &err);
	if (!rc && test_stop("label"))
		goto out;
	if (!rc)
		rc = tl_table_add_tier(lv.d.params, devt, params,
				       sizeof(params), &err);
	if (!rc && tl_dm_reload(name, lv.d.start, lv.d.length, TL_DM_TARGET,
				params, &err)) {
		restore_table(name, &lv);
		tl_err_append(&err,
			      "%s keeps its %u tiers; the label written on %s is unused (run add-tier again, or wipe it)",
			      name, lv.nr, dpath);
		rc = TL_FAIL;
	}
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	/* The kernel committed the new list; the hints follow it. */
	if (test_stop("commit"))
		goto out;
	if (tl_tierlist_read_sb(lv.meta_path, &lv.meta_label, &lv.sb, &err)) {
		rc = report(TIERCTL_EXIT_FAIL, &err);
		goto out;
	}
	memcpy(paths, lv.path, sizeof(paths));
	snprintf(paths[lv.nr], TL_PATH_LEN, "%s", dpath);
	rewrite_hints("add-tier", paths, lv.nr + 1,
		      lv.tt.t.metadata_dev ? lv.meta_path : NULL, &lv.sb);
	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "%s: ", name);
	print_str("action", "%s ", "added");
	print_u64("tier", "tier %llu", lv.nr);
	print_str("device", " (%s", dpath);
	print_str("class", ", %s", tl_class_name(tier_class));
	print_u64("nr_extents", ", %llu extents", l.nr_extents);
	print_u64("capacity_bytes", ", %llu bytes)",
		  l.nr_extents << (l.extent_shift + TIER_SECTOR_SHIFT));
	print_u64("nr_tiers", "; %llu tiers now\n", lv.sb.nr_tiers);
	print_obj_end();
	print_close();
	rc = TIERCTL_EXIT_OK;
out:
	live_free(&lv);
	return rc;
}

/*
 * remove-tier of the tier after the last (a tier removed already): a run
 * cut before its last step left the removed device's label; wipe every
 * tier label of this device that the superblock does not list.
 */
static int wipe_stale(const char *name, u32 tier, struct live *lv, bool json)
{
	struct tl_blockdev *bd;
	struct tl_err err = { "" };
	size_t n, i, wiped = 0;
	struct tier_label l;
	int rc = TIERCTL_EXIT_OK;

	if (tl_sysfs_scan(TL_SYSROOT, &bd, &n))
		return fail("remove-tier: cannot list block devices");
	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "%s: ", name);
	print_u64("tier", "tier %llu is not in the list", tier);
	print_arr_begin("wiped", NULL);
	for (i = 0; i < n; i++) {
		if (tl_tierlist_read_label(bd[i].path, &l) ||
		    memcmp(l.uuid, lv->sb.uuid, TIER_UUID_LEN) ||
		    l.tier_index == TIER_META_DEV ||
		    tier_label_sb_index(&l, &lv->sb) >= 0)
			continue;
		if (tl_tierlist_wipe_label(bd[i].path, &err)) {
			rc = report(TIERCTL_EXIT_FAIL, &err);
			continue;
		}
		print_str(NULL, "; stale label wiped on %s", bd[i].path);
		wiped++;
	}
	print_arr_end();
	/* A remove-tier cut before its end: the hints too. */
	rewrite_hints("remove-tier", lv->path, lv->nr,
		      lv->tt.t.metadata_dev ? lv->meta_path : NULL, &lv->sb);
	print_text("%s\n", wiped ? "" : " (nothing to do)");
	print_obj_end();
	print_close();
	free(bd);
	return rc;
}

int cmd_remove_tier(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char params[4096], size[TL_SIZE_STR_LEN], removed[TL_PATH_LEN];
	char size2[TL_SIZE_STR_LEN];
	struct tl_err err = { "" };
	bool json = tierctl_json;
	struct tl_status stat;
	struct tier_label l;
	struct tl_dm_dev d;
	struct live lv;
	const char *name;
	u64 held = 0, cap;
	u32 tier, i;
	int c, rc;

	opts_reset();
	while ((c = next_opt("remove-tier", argc, argv, "j", longopts)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			return TIERCTL_EXIT_OK;
		default:
			return TIERCTL_EXIT_USAGE;
		}
	}
	if (parse_name_tier("remove-tier", argc, argv, NULL, &name, &tier))
		return TIERCTL_EXIT_USAGE;
	if (!tier)
		return usage_error("remove-tier: tier 0 cannot be removed (it identifies the device and holds the metadata)");
	rc = live_open("remove-tier", name, &lv);
	if (rc)
		return rc;
	if (tier == lv.nr) {
		rc = wipe_stale(name, tier, &lv, json);
		goto out;
	}
	if (tier > lv.nr) {
		rc = fail("remove-tier: %s has tiers 0 to %u", name, lv.nr - 1);
		goto out;
	}
	if (tier + 1 != lv.nr) {
		rc = fail("remove-tier: removing tier %u is not supported yet: only the last tier (%u) can be removed (the tiers after it would be renumbered)",
			  tier, lv.nr - 1);
		goto out;
	}
	/*
	 * Mapped extents, not used ones: freed extents count as used until a
	 * commit. The kernel checks again (nothing allocated either).
	 */
	if (tl_dm_query(name, NULL, true, &d, &err)) {
		rc = report(TIERCTL_EXIT_FAIL, &err);
		goto out;
	}
	rc = tl_status_parse(d.params, &stat, &err);
	tl_dm_dev_free(&d);
	if (rc) {
		rc = report(TIERCTL_EXIT_FAIL, &err);
		goto out;
	}
	held = stat.tier[tier].mapped_extents;
	/* A queued move may target the tier: the kernel refuses too. */
	if (stat.mig.manual_pending) {
		rc = fail("remove-tier: moves are queued (%llu extents to go): wait for them or cancel them ('tierctl status %s' lists them), then run remove-tier again",
			  (unsigned long long)stat.mig.manual_pending, name);
		goto out;
	}
	if (held) {
		u64 b = held << (lv.sb.extent_shift + TIER_SECTOR_SHIFT);

		rc = fail("remove-tier: tier %u holds %llu extents (%s): run tierctl evacuate %s %u first",
			  tier, (unsigned long long)held, tl_size_str(b, size),
			  name, tier);
		goto out;
	}
	/* The device is never larger than its tiers (the superblock would
	 * not decode): the kernel refuses too. */
	for (i = 0, cap = 0; i < lv.sb.nr_tiers; i++)
		if (i != tier)
			cap += lv.sb.tier[i].nr_extents;
	if (cap < lv.sb.virt_extents) {
		u64 shift = lv.sb.extent_shift + TIER_SECTOR_SHIFT;

		rc = fail("remove-tier: without tier %u, %s has %s of capacity for a virtual size of %s; shrink the device or add a tier first",
			  tier, name, tl_size_str(cap << shift, size),
			  tl_size_str(lv.sb.virt_extents << shift, size2));
		goto out;
	}
	snprintf(removed, sizeof(removed), "%s", lv.path[tier]);
	rc = tl_table_drop_last_tier(lv.d.params, params, sizeof(params), &err);
	if (!rc && tl_dm_reload(name, lv.d.start, lv.d.length, TL_DM_TARGET,
				params, &err)) {
		restore_table(name, &lv);
		tl_err_append(&err, "%s keeps its %u tiers", name, lv.nr);
		rc = TL_FAIL;
	}
	if (!rc)
		rc = tl_tierlist_read_sb(lv.meta_path, &lv.meta_label, &lv.sb,
					 &err);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	if (test_stop("commit"))
		goto out;
	/* The superblock lists it no more: its label goes, the hints follow. */
	if (!tl_tierlist_read_label(removed, &l) &&
	    !memcmp(l.uuid, lv.sb.uuid, TIER_UUID_LEN) &&
	    tier_label_sb_index(&l, &lv.sb) < 0 &&
	    tl_tierlist_wipe_label(removed, &err))
		warn("remove-tier: %s; run 'tierctl remove-tier %s %u' again to wipe it",
		     err.msg, name, tier);
	rewrite_hints("remove-tier", lv.path, lv.sb.nr_tiers,
		      lv.tt.t.metadata_dev ? lv.meta_path : NULL, &lv.sb);
	print_open(json);
	print_result("removed", name, tier, removed, lv.sb.nr_tiers,
		     "its label is wiped");
	print_close();
	rc = TIERCTL_EXIT_OK;
out:
	live_free(&lv);
	return rc;
}
