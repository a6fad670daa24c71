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
#include "remote.h"
#include "tl-dm.h"
#include "tl-print.h"
#include "tl-status.h"
#include "tl-sysfs.h"
#include "tl-tierlist.h"
#include "live.h"

#ifndef BLKGETSIZE64
#define BLKGETSIZE64 _IOR(0x12, 114, size_t)
#endif

bool tierctl_test_stop(const char *step)
{
	const char *s = getenv("TIERCTL_TEST_STOP");

	if (!s || strcmp(s, step))
		return false;
	fprintf(stderr, "tierctl: TIERCTL_TEST_STOP: stopped after the %s step\n",
		step);
	return true;
}

void tierctl_live_free(struct tierctl_live *lv)
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

int tierctl_live_open(const char *cmd, const char *name,
		      struct tierctl_live *lv)
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
		tierctl_live_free(lv);
		return fail("%s: %s is activated read-only: nothing can change; remove it and activate it read-write",
			    cmd, name);
	}
	if (tl_table_parse_line(lv->d.params, &lv->tt, &err)) {
		tierctl_live_free(lv);
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
		tierctl_live_free(lv);
		return ret;
	}
	if (tl_tierlist_read_sb(lv->meta_path, &lv->meta_label, &lv->sb, &err)) {
		tierctl_live_free(lv);
		return report(TIERCTL_EXIT_FAIL, &err);
	}
	return TIERCTL_EXIT_OK;
}

void tierctl_claim_release(struct tierctl_claim *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

int tierctl_claim_open(const char *cmd, const char *path, bool force,
		       struct tierctl_claim *c, struct tl_err *err)
{
	char busy[512];
	struct stat st;
	int ret;

	memset(c, 0, sizeof(*c));
	/* Not mounted, not claimed by another device, and held. */
	c->fd = open(path, O_RDWR | O_EXCL | O_CLOEXEC);
	if (c->fd < 0) {
		if (errno == EBUSY && !stat(path, &st) &&
		    tl_sysfs_busy_reason(TL_SYSROOT, TL_MOUNTINFO,
					 major(st.st_rdev), minor(st.st_rdev),
					 busy, sizeof(busy)))
			return tl_fail(err, TL_FAIL,
				       "%s: %s is in use: %s; unmount or deactivate it first",
				       cmd, path, busy);
		if (errno == EBUSY)
			return tl_fail(err, TL_FAIL,
				       "%s: cannot open %s exclusively: it is in use (mounted, or a member of another device); stop that user first",
				       cmd, path);
		return tl_fail(err, TL_FAIL, "%s: cannot open %s: %s", cmd,
			       path, strerror(errno));
	}
	if (ioctl(c->fd, BLKGETSIZE64, &c->bytes))
		c->bytes = 0;
	/* Theirs: filesystems, partition tables, RAID/LVM, crypto, swap. */
	ret = probe_foreign(c->fd, c->found, sizeof(c->found));
	if (ret < 0) {
		tierctl_claim_release(c);
		return tl_fail(err, TL_FAIL,
			       "%s: cannot probe %s for signatures: %s", cmd,
			       path, strerror(-ret));
	}
	if (ret > 0 && !force) {
		tl_fail(err, TL_FAIL,
			"%s: %s carries %s; refusing to overwrite it: check that it is the right device, and if what is on it is not needed, run again with --force to erase it (as wipefs -a does)",
			cmd, path, c->found);
		tierctl_claim_release(c);
		return TL_FAIL;
	}
	return TL_OK;
}

int tierctl_claim_wipe(struct tierctl_claim *c, const char *path,
		       struct tl_err *err)
{
	if (!c->found[0])
		return TL_OK;
	return wipe_foreign(c->fd, path, err);
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
void tierctl_live_restore(const char *name, const struct tierctl_live *lv)
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

/* The fields of a result line, inside an open object. */
static void print_result_fields(const char *what, const char *name, u32 tier,
				const char *dev, u32 nr_tiers,
				const char *extra)
{
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
}

static void print_result(const char *what, const char *name, u32 tier,
			 const char *dev, u32 nr_tiers, const char *extra)
{
	print_obj_begin(NULL);
	print_result_fields(what, name, tier, dev, nr_tiers, extra);
	print_obj_end();
}

int cmd_add_tier(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "class", required_argument, NULL, 'c' },
		{ "position", required_argument, NULL, 'p' },
		{ "ctrl-loss-tmo", required_argument, NULL, 'L' },
		{ "reconnect-delay", required_argument, NULL, 'R' },
		{ "fast-io-fail-tmo", required_argument, NULL, 'F' },
		{ "force", no_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *class_arg = NULL, *pos_arg = NULL, *loss_arg = NULL;
	const char *reconnect_arg = NULL, *fail_arg = NULL;
	struct tierctl_remote r;
	bool json = tierctl_json, force = false;
	u32 tier_class, pos;
	int c, rc;

	opts_reset();
	while ((c = next_opt("add-tier", argc, argv, "c:p:fj", longopts)) != -1) {
		switch (c) {
		case 'c':
			class_arg = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'p':
			pos_arg = optarg;
			break;
		case 'L':
			loss_arg = optarg;
			break;
		case 'R':
			reconnect_arg = optarg;
			break;
		case 'F':
			fail_arg = optarg;
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
	tier_class = TL_CLASS_AUTO;
	if (class_arg && (tl_class_parse(class_arg, &tier_class) ||
			  tier_class == TIER_CLASS_MEM))
		return usage_error("add-tier: unknown class '%s'; use nvme, nvmf, pmem or auto",
				   class_arg);
	if (pos_arg && parse_tier_arg("add-tier", pos_arg, &pos))
		return TIERCTL_EXIT_USAGE;
	if (pos_arg && !pos)
		return usage_error("add-tier: position 0 is tier 0, which identifies the device and holds the metadata when it has no metadata device: it cannot be replaced; use --position 1 or more");
	rc = tierctl_remote_parse("add-tier", argv[optind + 1], loss_arg,
				  reconnect_arg, fail_arg, &r);
	if (rc)
		return rc;
	/* The device must exist before anything is connected. */
	if (r.is_remote) {
		struct tl_err err = { "" };
		struct tl_dm_dev d;

		if (tl_dm_query(argv[optind], NULL, false, &d, &err))
			return fail("add-tier: no active device named '%s'; activate it first (tierctl activate %s)",
				    argv[optind], argv[optind]);
		tl_dm_dev_free(&d);
	}
	rc = tierctl_remote_connect("add-tier", &r);
	if (rc)
		return rc;
	rc = tierctl_add_tier(argv[optind], r.dev, tier_class,
			      pos_arg ? (int)pos : -1, false, force, json);
	if (rc) {
		tierctl_remote_undo(&r);
		return rc;
	}
	return tierctl_remote_record("add-tier", argv[optind], &r);
}

/*
 * Queued moves (migrate, pin --tier, evacuate) name tiers by index; the
 * kernel renumbers them with the map when the list changes. Only a migrate
 * or pin to the tier being removed cannot follow (the kernel refuses it
 * too); an evacuation of that tier can (the tier is empty: nothing is left
 * for it to move). @mapped: the tier's mapped extents (status line).
 * TIERCTL_EXIT_OK when nothing is in the way, else the failure printed.
 */
static int check_remove_moves(const char *name, u64 *mapped, u32 tier)
{
	struct tl_err err = { "" };
	struct tl_status stat;
	struct tl_nl_dev *dev;
	struct tl_dm_dev d;
	struct tl_nl *nl;
	int rc;
	u32 i;

	if (tl_dm_query(name, NULL, true, &d, &err))
		return report(TIERCTL_EXIT_FAIL, &err);
	rc = tl_status_parse(d.params, &stat, &err);
	tl_dm_dev_free(&d);
	if (rc)
		return report(TIERCTL_EXIT_FAIL, &err);
	*mapped = stat.tier[tier].mapped_extents;
	rc = nl_open_dev("remove-tier", name, NULL, &nl, &dev);
	if (rc)
		return rc;
	for (i = 0; i < dev->nr_moves; i++) {
		const struct tl_nl_move *m = &dev->moves[i];

		if (m->target_tier != tier || !strcmp(m->kind, "evacuate"))
			continue;
		rc = fail("remove-tier: move %u (%s to tier %u) targets the tier being removed: cancel it (tierctl cancel %s %u) or wait for it to end, then run remove-tier again",
			  m->id, m->kind, tier, name, m->id);
		break;
	}
	tl_nl_close(nl);
	free(dev);
	return rc;
}

int tierctl_add_tier(const char *name, const char *dev, u32 tier_class,
		     int position, bool spare_meta, bool force, bool json)
{
	char paths[TIER_MAX_TIERS][TL_PATH_LEN], params[4096], devt[32];
	struct tierctl_claim claim = { .fd = -1 };
	struct tier_label cur, l;
	struct tl_err err = { "" };
	u8 member_uuid[TIER_UUID_LEN];
	char dpath[TL_PATH_LEN];
	struct tierctl_live lv;
	struct stat st;
	int rc, lret, listed;
	u32 pos;

	if (position == 0)
		return usage_error("add-tier: position 0 is tier 0, which identifies the device and holds the metadata when it has no metadata device: it cannot be replaced; use --position 1 or more");
	if (stat(dev, &st) || !S_ISBLK(st.st_mode))
		return usage_error("add-tier: %s is not a block device", dev);
	if (tl_sysfs_devname(TL_SYSROOT, major(st.st_rdev), minor(st.st_rdev),
			     dpath, sizeof(dpath)))
		snprintf(dpath, sizeof(dpath), "%s", dev);
	rc = tierctl_live_open("add-tier", name, &lv);
	if (rc)
		return rc;
	pos = position < 0 ? lv.nr : (u32)position;
	if (pos > lv.nr) {
		rc = fail("add-tier: %s has tiers 0 to %u: --position goes from 1 to %u (%u appends)",
			  name, lv.nr - 1, lv.nr, lv.nr);
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
	if (!lret && memcmp(cur.uuid, lv.sb.uuid, TIER_UUID_LEN) && !force) {
		rc = fail("add-tier: %s carries the label of dm-tier device '%.63s'; remove it from that device, or if that device is gone, run again with --force to overwrite the label",
			  dpath, cur.name);
		goto out;
	}
	if (!lret && !memcmp(cur.uuid, lv.sb.uuid, TIER_UUID_LEN) &&
	    cur.tier_index == TIER_META_DEV) {
		rc = fail("add-tier: %s is the metadata device of %s", dpath,
			  name);
		goto out;
	}
	/*
	 * Held exclusively until the label is written; what libblkid finds
	 * on it (a filesystem, a partition table, RAID/LVM...) is refused
	 * without --force, as create does.
	 */
	rc = tierctl_claim_open("add-tier", dpath, force, &claim, &err);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	if (tier_class == TL_CLASS_AUTO)
		tier_class = tl_sysfs_detect_class(TL_SYSROOT, major(st.st_rdev),
						   minor(st.st_rdev));
	rc = tl_uuid_random(member_uuid) ?
		     tl_fail(&err, TL_FAIL, "cannot get random numbers") :
		     tl_tierlist_new_label_at(&lv.meta_label, &lv.sb, pos,
					      claim.bytes >> TIER_SECTOR_SHIFT,
					      tier_class, member_uuid, &l,
					      &err);
	/* Room for tier 0's metadata; no older superblock there, label last. */
	if (!rc && spare_meta)
		rc = tl_tierlist_spare_label(&l, &lv.sb, &err);
	/* --force: the signatures go once nothing else is in the way. */
	if (!rc)
		rc = tierctl_claim_wipe(&claim, dpath, &err);
	if (!rc && spare_meta)
		rc = tl_tierlist_zero_spare_slots(dpath, &err);
	if (!rc)
		rc = tl_tierlist_write_label(dpath, &l, &err);
	/* The kernel opens its members exclusively: let go before the load. */
	tierctl_claim_release(&claim);
	if (!rc && tierctl_test_stop("label"))
		goto out;
	if (!rc)
		rc = tl_table_insert_tier(lv.d.params, pos, devt, params,
					  sizeof(params), &err);
	if (!rc && tl_dm_reload(name, lv.d.start, lv.d.length, TL_DM_TARGET,
				params, &err)) {
		tierctl_live_restore(name, &lv);
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
	if (tierctl_test_stop("commit"))
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
	print_u64("tier", "tier %llu", pos);
	print_str("device", " (%s", dpath);
	print_str("class", ", %s", tl_class_name(tier_class));
	print_u64("nr_extents", ", %llu extents", l.nr_extents);
	print_u64("capacity_bytes", ", %llu bytes)",
		  l.nr_extents << (l.extent_shift + TIER_SECTOR_SHIFT));
	print_u64("nr_tiers", "; %llu tiers now", lv.sb.nr_tiers);
	if (pos < lv.nr) {
		if (pos + 1 == lv.nr)
			snprintf(params, sizeof(params),
				 "the tier after it moved up by one (now tier %u)",
				 lv.nr);
		else
			snprintf(params, sizeof(params),
				 "the tiers after it moved up by one (now tiers %u to %u)",
				 pos + 1, lv.nr);
		print_str("note", "; %s", params);
	} else {
		print_null("note", NULL);
	}
	print_text("\n");
	print_obj_end();
	print_close();
	rc = TIERCTL_EXIT_OK;
out:
	tierctl_claim_release(&claim);
	tierctl_live_free(&lv);
	return rc;
}

/*
 * remove-tier of the tier after the last (a tier removed already), or of
 * any tier while the label hints show a change cut after its commit: a run
 * cut before its last step left the removed device's label; wipe every
 * tier label of this device that the superblock does not list, and
 * rewrite the hints. @what says which case it is.
 */
static int wipe_stale(const char *name, u32 tier, struct tierctl_live *lv, bool json,
		      const char *what)
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
	print_u64("tier", "tier %llu", tier);
	print_str("state", " %s", what);
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
		{ "disconnect", no_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = tierctl_json, disconnect = false;
	const char *name;
	u32 tier;
	int c;

	opts_reset();
	while ((c = next_opt("remove-tier", argc, argv, "j", longopts)) != -1) {
		switch (c) {
		case 'd':
			disconnect = true;
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
	if (parse_name_tier("remove-tier", argc, argv, NULL, &name, &tier))
		return TIERCTL_EXIT_USAGE;
	return tierctl_remove_tier(name, tier, disconnect, json);
}

/*
 * Whether a member's label hints disagree with the superblock: a tier-list
 * change that renumbered tiers was cut between the kernel's commit and the
 * rewrite of the hints (a member's index hint is its old position).
 */
static bool hints_stale(const struct tierctl_live *lv)
{
	struct tier_label l, nl;
	u32 i;

	for (i = 0; i < lv->nr; i++)
		if (!tl_tierlist_read_label(lv->path[i], &l) &&
		    tl_tierlist_hint(&l, &lv->sb, &nl) == 1)
			return true;
	return false;
}

int tierctl_remove_tier(const char *name, u32 tier, bool disconnect,
			bool json)
{
	char params[4096], size[TL_SIZE_STR_LEN], removed[TL_PATH_LEN];
	unsigned int rmaj = 0, rmin = 0;
	struct tl_err err = { "" };
	struct tier_label l, l1;
	struct tierctl_live lv;
	u64 held = 0, cap;
	bool meta0;
	int rc;
	u32 i;

	rc = tierctl_live_open("remove-tier", name, &lv);
	if (rc)
		return rc;
	/*
	 * Tier 0 leaves only for tier 1 to take its place, with the metadata
	 * when it holds it: tier 1 must have the spare area replace-tier
	 * gave it (docs/FORMAT.md "Replacing tier 0").
	 */
	meta0 = !tier && !lv.tt.t.metadata_dev;
	if (meta0 && lv.nr > 1 &&
	    (tl_tierlist_read_label(lv.path[1], &l1) ||
	     l1.spare_meta_blocks != 2 + 2 * lv.sb.map_blocks ||
	     tier_label_sb_index(&l1, &lv.sb) != 1)) {
		rc = usage_error("remove-tier: tier 0 cannot be removed: it holds the metadata of %s and tier 1 (%s) has no room for it; 'tierctl replace-tier %s 0 NEWDEV' replaces tier 0 with a new device",
				 name, lv.path[1], name);
		goto out;
	}
	if (!tier && lv.nr == 1) {
		rc = fail("remove-tier: tier 0 is the only tier of %s", name);
		goto out;
	}
	if (tier == lv.nr) {
		rc = wipe_stale(name, tier, &lv, json, "is not in the list");
		goto out;
	}
	if (tier > lv.nr) {
		rc = fail("remove-tier: %s has tiers 0 to %u", name, lv.nr - 1);
		goto out;
	}
	/*
	 * A removal before the last tier cut after its commit: the tier now
	 * at this index is another device, so finish that run's label work
	 * instead of removing again.
	 */
	if (hints_stale(&lv)) {
		warn("remove-tier: the label hints of %s do not follow its tier list: an earlier add-tier or remove-tier was cut after its commit; completing it. Nothing is removed now: check 'tierctl status %s' and run remove-tier again if needed",
		     name, name);
		rc = wipe_stale(name, tier, &lv, json,
				"was not removed: an earlier change completed");
		goto out;
	}
	/*
	 * Mapped extents, not used ones: freed extents count as used until a
	 * commit. The kernel checks again (nothing allocated either), and
	 * refuses a queued move to the tier too.
	 */
	rc = check_remove_moves(name, &held, tier);
	if (rc)
		goto out;
	if (held) {
		u64 b = held << (lv.sb.extent_shift + TIER_SECTOR_SHIFT);

		rc = fail("remove-tier: tier %u holds %llu extents (%s): run tierctl evacuate %s %u first",
			  tier, (unsigned long long)held, tl_size_str(b, size),
			  name, tier);
		goto out;
	}
	/* The superblock demands capacity >= the virtual size. */
	cap = 0;
	for (i = 0; i < lv.sb.nr_tiers; i++)
		if (i != tier)
			cap += lv.sb.tier[i].nr_extents;
	if (cap < lv.sb.virt_extents) {
		char vs[TL_SIZE_STR_LEN];

		rc = fail("remove-tier: without tier %u, %s has %s of capacity for a virtual size of %s; shrink the device first (tierctl resize %s --size) or add a tier (tierctl add-tier)",
			  tier, name,
			  tl_size_str(cap << (lv.sb.extent_shift + TIER_SECTOR_SHIFT),
				      size),
			  tl_size_str(lv.sb.virt_extents
					      << (lv.sb.extent_shift +
						  TIER_SECTOR_SHIFT),
				      vs),
			  name);
		goto out;
	}
	snprintf(removed, sizeof(removed), "%s", lv.path[tier]);
	if (disconnect &&
	    tl_parse_devt(lv.tt.t.tier_dev[tier], &rmaj, &rmin)) {
		rc = fail("remove-tier: unexpected device '%s' in the table of %s (not MAJ:MIN)",
			  lv.tt.t.tier_dev[tier], name);
		goto out;
	}
	rc = tl_table_drop_tier(lv.d.params, tier, params, sizeof(params), &err);
	if (!rc && tl_dm_reload(name, lv.d.start, lv.d.length, TL_DM_TARGET,
				params, &err)) {
		tierctl_live_restore(name, &lv);
		tl_err_append(&err, "%s keeps its %u tiers", name, lv.nr);
		rc = TL_FAIL;
	}
	/* The metadata moved with tier 0's removal: read it where it is now. */
	if (!rc && meta0) {
		snprintf(lv.meta_path, TL_PATH_LEN, "%s", lv.path[1]);
		lv.meta_label = l1;
	}
	if (!rc)
		rc = tl_tierlist_read_sb(lv.meta_path, &lv.meta_label, &lv.sb,
					 &err);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	if (tierctl_test_stop("commit"))
		goto out;
	/* The superblock lists it no more: its label goes, the hints follow. */
	if (!tl_tierlist_read_label(removed, &l) &&
	    !memcmp(l.uuid, lv.sb.uuid, TIER_UUID_LEN) &&
	    tier_label_sb_index(&l, &lv.sb) < 0 &&
	    tl_tierlist_wipe_label(removed, &err))
		warn("remove-tier: %s; run 'tierctl remove-tier %s %u' again to wipe it",
		     err.msg, name, lv.sb.nr_tiers);
	/* Every remaining member, wherever it moved (the old paths). */
	rewrite_hints("remove-tier", lv.path, lv.nr,
		      lv.tt.t.metadata_dev ? lv.meta_path : NULL, &lv.sb);
	print_open(json);
	print_obj_begin(NULL);
	print_result_fields("removed", name, tier, removed, lv.sb.nr_tiers,
			    tier < lv.sb.nr_tiers ?
				    "its label is wiped; the tiers after it moved down by one" :
				    "its label is wiped");
	/* Only now: the table no longer holds the namespace. */
	print_arr_begin("disconnected", NULL);
	rc = disconnect ? tierctl_remote_forget("remove-tier: removed, but",
						rmaj, rmin) :
			  TIERCTL_EXIT_OK;
	print_arr_end();
	print_obj_end();
	print_close();
out:
	tierctl_live_free(&lv);
	return rc;
}
