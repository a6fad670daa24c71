// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl check, dump, repair: the offline metadata tools (as
 * thin_check/thin_dump/thin_repair are for dm-thin). The logic is in
 * user/lib/tl-check.c; this file finds and opens the member devices (by
 * NAME through their labels, as activate does, or as DEV... paths, image
 * files included; a separate metadata device the DEV... labels name but
 * that is not among them is found by its label) and refuses an active
 * device.
 */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <unistd.h>

#include "tierctl.h"
#include "tl-check.h"
#include "tl-disk.h"
#include "tl-dm.h"
#include "tl-group.h"
#include "tl-print.h"
#include "tl-sysfs.h"

/* Exit code for an active (or otherwise busy) device: the request is
 * wrong, the metadata is not known to be damaged. */
#define EXIT_ACTIVE TIERCTL_EXIT_USAGE

struct members {
	char path[TL_CHK_MAX_DEVS][TL_PATH_LEN];
	u32 n;
};

/* Every labelled block device into @gs (as tierctl activate scans). */
static int scan_groups(struct tl_groups *gs, size_t *nr_scanned)
{
	struct tl_blockdev *bd;
	size_t n, i;
	int ret, fd;

	ret = tl_sysfs_scan(TL_SYSROOT, &bd, &n);
	if (ret)
		return fail("cannot list block devices in %s/class/block: %s",
			    TL_SYSROOT, strerror(-ret));
	for (i = 0; i < n; i++) {
		struct tl_member m;
		struct tier_err terr;

		fd = open(bd[i].path, O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(&m, 0, sizeof(m));
		ret = tl_read_label(fd, &m.label, &terr);
		close(fd);
		if (ret)
			continue;
		snprintf(m.path, sizeof(m.path), "%s", bd[i].path);
		m.maj = bd[i].maj;
		m.min = bd[i].min;
		if (tl_groups_add(gs, &m)) {
			free(bd);
			return fail("out of memory");
		}
	}
	free(bd);
	*nr_scanned = n;
	return TIERCTL_EXIT_OK;
}

/* The devices whose label names @name (as tierctl activate finds them). */
static int find_by_name(const char *cmd, const char *name, struct members *ms)
{
	struct tl_groups gs;
	size_t n = 0, m;
	int idx, rc;

	tl_groups_init(&gs);
	rc = scan_groups(&gs, &n);
	if (rc)
		goto out;
	idx = tl_groups_find_name(&gs, name);
	if (idx == -1) {
		rc = fail("%s: no dm-tier device named '%s' found on %zu block devices; a member whose label is damaged is not found by name: give the member devices (tierctl %s DEV...)",
			  cmd, name, n, cmd);
		goto out;
	}
	if (idx == -2) {
		rc = fail("%s: several dm-tier devices are named '%s'; give the member devices (tierctl %s DEV...)",
			  cmd, name, cmd);
		goto out;
	}
	/*
	 * Every device carrying the device's UUID, not one per tier index:
	 * the index is a hint, and after a cut tier 0 replacement two labels
	 * say tier 0; the check places them by the newest superblock, as
	 * activate does, and names the stale one. With one of them only, it
	 * judged (and repair rewrote) the old tier 0's stale metadata.
	 */
	ms->n = 0;
	for (m = 0; m < gs.nr_members && ms->n < TL_CHK_MAX_DEVS; m++)
		if (!memcmp(gs.member[m].label.uuid, gs.group[idx].uuid,
			    TIER_UUID_LEN))
			snprintf(ms->path[ms->n++], TL_PATH_LEN, "%s",
				 gs.member[m].path);
out:
	tl_groups_free(&gs);
	return rc;
}

/*
 * DEV... given without the separate metadata device their labels say they
 * have: find it by its label, as activate does, and add it. Nothing when
 * a DEV is not a block device, the labels do not say so, the device is
 * there, or none is found (the check then names the missing member).
 */
static void add_meta_by_label(struct members *ms)
{
	struct tier_label l;
	struct tier_err terr;
	struct tl_groups gs;
	u8 uuid[TIER_UUID_LEN];
	bool want = false;
	size_t n, i;
	u32 k;
	int fd;

	for (k = 0; k < ms->n; k++) {
		struct stat st;

		/* Block devices only: image files have no sysfs to search. */
		if (stat(ms->path[k], &st) < 0 || !S_ISBLK(st.st_mode))
			return;
		fd = open(ms->path[k], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!tl_read_label(fd, &l, &terr)) {
			if (l.tier_index == TIER_META_DEV) {
				close(fd);
				return;
			}
			if (l.flags & TIER_LABEL_F_META_EXT) {
				memcpy(uuid, l.uuid, TIER_UUID_LEN);
				want = true;
			}
		}
		close(fd);
	}
	if (!want || ms->n >= TL_CHK_MAX_DEVS)
		return;
	tl_groups_init(&gs);
	if (!scan_groups(&gs, &n)) {
		for (i = 0; i < gs.nr_groups; i++) {
			int s = gs.group[i].slot[TIER_META_DEV];

			if (s < 0 || memcmp(gs.group[i].uuid, uuid, TIER_UUID_LEN))
				continue;
			snprintf(ms->path[ms->n++], TL_PATH_LEN, "%s",
				 gs.member[s].path);
			break;
		}
	}
	tl_groups_free(&gs);
}

/* Open every member (O_EXCL on block devices: the kernel holds a live
 * device's members exclusively), in @md. */
static int open_members(const char *cmd, const struct members *ms, bool rw,
			struct tl_md *md)
{
	struct stat st;
	u32 i;

	for (i = 0; i < ms->n; i++) {
		struct tl_chk_dev *d = &md->dev[i];
		int flags = (rw ? O_RDWR : O_RDONLY) | O_CLOEXEC;
		u64 bytes = 0;

		d->path = ms->path[i];
		if (stat(d->path, &st) < 0)
			return usage_error("%s: %s: %s", cmd, d->path,
					   strerror(errno));
		if (S_ISBLK(st.st_mode))
			flags |= O_DIRECT | O_EXCL;
		else if (!S_ISREG(st.st_mode))
			return usage_error("%s: %s is neither a block device nor an image file",
					   cmd, d->path);
		d->fd = open(d->path, flags);
		md->nr_devs = i + 1;
		if (d->fd < 0 && errno == EBUSY)
			return usage_error("%s: %s is in use (a member of an active dm-tier device, or mounted); %s works on inactive devices only: run 'tierctl remove NAME' first",
					   cmd, d->path, cmd);
		if (d->fd < 0)
			return fail("%s: cannot open %s: %s", cmd, d->path,
				    strerror(errno));
		if (S_ISBLK(st.st_mode)) {
			if (ioctl(d->fd, BLKGETSIZE64, &bytes) < 0)
				return fail("%s: cannot get the size of %s: %s",
					    cmd, d->path, strerror(errno));
		} else {
			bytes = st.st_size;
		}
		d->sectors = bytes >> TIER_SECTOR_SHIFT;
	}
	return TIERCTL_EXIT_OK;
}

static void close_members(struct tl_md *md)
{
	u32 i;

	for (i = 0; i < md->nr_devs; i++)
		if (md->dev[i].fd >= 0)
			close(md->dev[i].fd);
}

/* Refuse a device that device-mapper has active (by its DM uuid). */
static int refuse_active(const char *cmd, const struct tl_md *md)
{
	char dm_uuid[TL_DM_UUID_LEN + 1];
	struct tl_dm_dev d;
	int rc;

	if (!md->have_group || !tl_dm_available())
		return TIERCTL_EXIT_OK;
	tl_dm_uuid(md->uuid, dm_uuid);
	if (tl_dm_query(NULL, dm_uuid, false, &d, NULL))
		return TIERCTL_EXIT_OK;
	rc = usage_error("%s: '%s' is active as /dev/mapper/%s; %s works on inactive devices only: run 'tierctl remove %s' first",
			 cmd, md->name, d.name, cmd, md->name);
	tl_dm_dev_free(&d);
	return rc;
}

struct offline_opts {
	bool json, yes, strict, force;
	struct members ms;
};

static int parse(const char *cmd, int argc, char **argv, bool repair,
		 struct offline_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "yes", no_argument, NULL, 'y' },
		{ "strict", no_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, i, rc;

	memset(o, 0, sizeof(*o));
	o->json = tierctl_json;
	opts_reset();
	while ((c = next_opt(cmd, argc, argv, "jysf", longopts)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 'y':
			if (!repair)
				return usage_error("%s: --yes is an option of repair", cmd);
			o->yes = true;
			break;
		case 's':
			if (strcmp(cmd, "check"))
				return usage_error("%s: --strict is an option of check", cmd);
			o->strict = true;
			break;
		case 'f':
			if (!repair)
				return usage_error("%s: --force is an option of repair", cmd);
			o->force = true;
			break;
		case 'h':
			return -1;
		default:
			return TIERCTL_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error("%s: give the device NAME or its member devices", cmd);
	if (argc - optind > TL_CHK_MAX_DEVS)
		return usage_error("%s: at most %d member devices", cmd,
				   TL_CHK_MAX_DEVS);
	if (argc - optind == 1 && !strchr(argv[optind], '/')) {
		rc = find_by_name(cmd, argv[optind], &o->ms);
		return rc;
	}
	for (i = optind; i < argc; i++)
		snprintf(o->ms.path[o->ms.n++], TL_PATH_LEN, "%s", argv[i]);
	add_meta_by_label(&o->ms);
	return TIERCTL_EXIT_OK;
}

/* Parse, open, refuse active, load: TIERCTL_EXIT_OK with @md loaded. */
static int prepare(const char *cmd, int argc, char **argv, bool repair,
		   struct offline_opts *o, struct tl_md *md)
{
	struct tl_err err = { "" };
	int rc;

	tl_md_init(md);
	rc = parse(cmd, argc, argv, repair, o);
	if (rc)
		return rc;
	rc = open_members(cmd, &o->ms, o->yes, md);
	if (rc)
		return rc;
	rc = tl_md_load(md, &err);
	if (rc)
		return report(rc, &err);
	return refuse_active(cmd, md);
}

int cmd_check(int argc, char **argv)
{
	struct offline_opts o;
	struct tl_md md;
	int rc;

	rc = prepare("check", argc, argv, false, &o, &md);
	if (!rc) {
		print_open(o.json);
		tl_md_print_check(&md);
		print_close();
		rc = md.nr_errors || (o.strict && md.nr_warnings) ?
			     TIERCTL_EXIT_FAIL : TIERCTL_EXIT_OK;
	}
	close_members(&md);
	tl_md_free(&md);
	return rc < 0 ? TIERCTL_EXIT_OK : rc;
}

int cmd_dump(int argc, char **argv)
{
	struct offline_opts o;
	struct tl_md md;
	int rc;

	rc = prepare("dump", argc, argv, false, &o, &md);
	if (rc)
		goto out;
	if (!tl_md_dumpable(&md)) {
		rc = fail("dump: '%s' has no usable superblock; 'tierctl check' says why, 'tierctl repair' may rebuild it",
			  md.have_group ? md.name : "?");
		goto out;
	}
	print_open(o.json);
	tl_md_print_dump(&md);
	print_close();
	if (md.nr_errors)
		rc = fail("dump: '%s' is damaged (%u errors): unreadable map blocks were left out; see 'tierctl check'",
			  md.name, md.nr_errors);
out:
	close_members(&md);
	tl_md_free(&md);
	return rc < 0 ? TIERCTL_EXIT_OK : rc;
}

int cmd_repair(int argc, char **argv)
{
	struct tl_err err = { "" };
	struct offline_opts o;
	struct tl_md md, after;
	bool have_after = false;
	int rc;

	tl_md_init(&after);
	rc = prepare("repair", argc, argv, true, &o, &md);
	if (rc)
		goto out;
	rc = tl_md_plan_repair(&md, o.force, &err);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	if (o.yes && md.nr_writes) {
		rc = tl_md_write(&md, &err);
		if (rc) {
			print_open(o.json);
			tl_md_print_plan(&md, false, NULL);
			print_close();
			rc = report(rc, &err);
			goto out;
		}
		/* Judge the result as check would, from the disks. */
		after.nr_devs = md.nr_devs;
		memcpy(after.dev, md.dev, sizeof(md.dev));
		rc = tl_md_load(&after, &err);
		if (rc) {
			rc = report(rc, &err);
			goto out;
		}
		have_after = true;
	}
	print_open(o.json);
	tl_md_print_plan(&md, o.yes && md.nr_writes, have_after ? &after : NULL);
	print_close();
	if (have_after)
		rc = after.nr_errors ? TIERCTL_EXIT_FAIL : TIERCTL_EXIT_OK;
	else
		rc = md.nr_errors ? TIERCTL_EXIT_FAIL : TIERCTL_EXIT_OK;
out:
	close_members(&md);
	tl_md_free(&md);
	tl_md_free(&after);
	return rc < 0 ? TIERCTL_EXIT_OK : rc;
}
