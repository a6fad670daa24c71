// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl resize NAME [--size SIZE]: pick up tiers whose device grew, and
 * change the virtual size, with a table reload (docs/ARCHITECTURE.md
 * "Resize"). The kernel commits the grown tier records and the new virtual
 * size in one superblock at the resume; the labels' sizes are hints
 * rewritten here afterwards. A crash at any step leaves the old or the new
 * sizes; running the command again completes it.
 */
#include <sys/ioctl.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tierctl.h"
#include "tl-dm.h"
#include "tl-print.h"
#include "tl-resize.h"
#include "tl-status.h"
#include "units.h"
#include "tl-tierlist.h"
#include "live.h"

#ifndef BLKGETSIZE64
#define BLKGETSIZE64 _IOR(0x12, 114, size_t)
#endif

/*
 * The kernel records new sizes only while the metadata mode is rw: in ro
 * or fail it keeps a grown tier at its recorded size and refuses a new
 * virtual size, so say why here instead. First, since the superblock may
 * be what cannot be read then. A device that is not there, or not a
 * dm-tier one, is left to tierctl_live_open() to report.
 */
static int rz_md_writable(const char *name)
{
	struct tl_err err = { "" };
	struct tl_status st;
	struct tl_dm_dev d;
	int rc;

	if (tl_dm_query(name, NULL, true, &d, &err))
		return TIERCTL_EXIT_OK;
	rc = tl_status_parse(d.params, &st, &err);
	tl_dm_dev_free(&d);
	if (rc)
		return TIERCTL_EXIT_OK;
	if (strcmp(st.metadata_mode, "rw"))
		return fail("resize: the metadata of %s is %s (a commit failed: see 'tierctl status %s'); nothing can be recorded until it is rw again: fix the metadata device's path, then run resize again",
			    name, st.metadata_mode, name);
	return TIERCTL_EXIT_OK;
}

/*
 * tierctl_live_open(), the table and superblock list the same tiers, and
 * the metadata takes commits.
 */
static int rz_open(const char *name, struct tierctl_live *lv)
{
	int rc = rz_md_writable(name);

	if (!rc)
		rc = tierctl_live_open("resize", name, lv);
	if (rc)
		return rc;
	if (lv->sb.nr_tiers != lv->nr) {
		rc = fail("resize: the table has %u tiers, the superblock %u: finish the tier-list change first (add-tier/remove-tier again)",
			  lv->nr, lv->sb.nr_tiers);
		tierctl_live_free(lv);
	}
	return rc;
}

static int dev_size(const char *path, u64 *sectors)
{
	u64 bytes = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKGETSIZE64, &bytes)) {
		close(fd);
		return -errno;
	}
	close(fd);
	*sectors = bytes >> TIER_SECTOR_SHIFT;
	return 0;
}

/*
 * @name's openers: udev probes a device after a writer closes it (blkid
 * holds it open for a moment), so, as remove does, give such transient
 * opens up to 5 s to go away before counting them.
 */
static int settled_open_count(const char *name, int open_count)
{
	struct tl_dm_dev d;
	int tries;

	for (tries = 0; open_count > 0 && tries < 50; tries++) {
		usleep(100 * 1000);
		if (tl_dm_query(name, NULL, false, &d, NULL))
			break;
		open_count = d.open_count;
		tl_dm_dev_free(&d);
	}
	return open_count;
}

/* The labels' sizes as the superblock records them; how many rewritten. */
static u32 rewrite_sizes(const struct tierctl_live *lv, const struct tier_sb *sb)
{
	struct tier_label l, nl;
	struct tl_err err = { "" };
	u32 i, n = 0;

	for (i = 0; i < lv->nr; i++) {
		if (tl_tierlist_read_label(lv->path[i], &l) ||
		    tl_resize_label(&l, sb, &nl) != 1)
			continue;
		if (tl_tierlist_write_label(lv->path[i], &nl, &err))
			warn("resize: %s (the label's size is a hint: the device works without the update; run resize again)",
			     err.msg);
		else
			n++;
	}
	return n;
}

static void print_resized(const char *name, const struct tierctl_live *lv,
			  const struct tl_resize_plan *p,
			  const struct tier_sb *sb, u32 labels)
{
	u32 b = sb->extent_shift + TIER_SECTOR_SHIFT, i;
	char s1[TL_SIZE_STR_LEN], s2[TL_SIZE_STR_LEN];

	print_obj_begin(NULL);
	print_str("name", "%s:", name);
	print_arr_begin("tiers", NULL);
	for (i = 0; i < sb->nr_tiers; i++) {
		print_obj_begin(NULL);
		print_u64("tier", " tier %llu", i);
		print_str("device", " (%s)", lv->path[i]);
		print_u64("nr_extents", " %llu extents", sb->tier[i].nr_extents);
		print_bool("grown", NULL, p->grown & (1U << i));
		if (p->grown & (1U << i))
			print_u64_text("old_nr_extents", " (was %llu)",
				       p->old_nr[i], NULL);
		else
			print_u64("old_nr_extents", NULL, p->old_nr[i]);
		print_text(";");
		print_obj_end();
	}
	print_arr_end();
	print_u64("capacity_bytes", " capacity %llu bytes",
		  p->capacity << b);
	print_str("capacity", " (%s);", tl_size_str(p->capacity << b, s1));
	print_u64("virt_bytes", " virtual size %llu bytes",
		  sb->virt_extents << b);
	print_u64("old_virt_bytes", NULL, p->old_virt << b);
	if (sb->virt_extents != p->old_virt)
		print_str("virt", " (%s, was ", tl_size_str(sb->virt_extents << b,
							     s1));
	else
		print_str("virt", " (%s", tl_size_str(sb->virt_extents << b, s1));
	if (sb->virt_extents != p->old_virt)
		print_text("%s)", tl_size_str(p->old_virt << b, s2));
	else
		print_text(")");
	print_u64("max_virt_bytes", "; largest virtual size now %llu bytes",
		  p->max_virt << b);
	print_str("max_virt_limit", " (%s)",
		  p->bound == TIER_RESIZE_BOUND_MAP ? "map room" :
		  p->bound == TIER_RESIZE_BOUND_CAPACITY ? "tier capacity" :
							   "byte limit");
	print_u64("labels_rewritten", "; %llu labels rewritten\n", labels);
	print_obj_end();
}

int cmd_resize(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "yes", no_argument, NULL, 'y' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *size_arg = NULL, *name;
	struct tl_err err = { "" };
	bool json = tierctl_json, yes = false;
	u64 sectors[TIER_MAX_TIERS] = { 0 }, virt = 0, bytes, n, first;
	struct tl_resize_plan p;
	struct tierctl_live lv;
	struct tier_sb now;
	u32 i, b, labels;
	int c, rc, opens;

	opts_reset();
	while ((c = next_opt("resize", argc, argv, "s:yj", longopts)) != -1) {
		switch (c) {
		case 's':
			size_arg = optarg;
			break;
		case 'y':
			yes = true;
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
	if (argc - optind != 1)
		return usage_error("resize: give NAME");
	name = argv[optind];
	if (size_arg && (tier_parse_size(size_arg, &bytes) || !bytes))
		return usage_error("resize: bad size '%s' (e.g. 200G, 1T)",
				   size_arg);
	rc = rz_open(name, &lv);
	if (rc)
		return rc;
	b = lv.sb.extent_shift + TIER_SECTOR_SHIFT;
	if (size_arg) {
		if (bytes & ((1ULL << b) - 1)) {
			rc = usage_error("resize: %s is not a multiple of the extent size (%llu bytes); e.g. %llu",
					 size_arg, 1ULL << b,
					 (unsigned long long)(bytes >> b) << b);
			goto out;
		}
		virt = bytes >> b;
	}
	for (i = 0; i < lv.nr; i++) {
		if (dev_size(lv.path[i], &sectors[i])) {
			rc = fail("resize: cannot read the size of %s", lv.path[i]);
			goto out;
		}
	}
	rc = tl_resize_plan(&lv.sb, sectors, virt, &p, &err);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	/* Shrinking: say which mapped extents are in the way (last commit). */
	if (virt && virt < lv.sb.virt_extents) {
		if (tl_dm_message(name, "commit", &err) ||
		    tl_tierlist_read_sb(lv.meta_path, &lv.meta_label, &now,
					&err) ||
		    tl_resize_mapped_on_disk(lv.meta_path, &now, virt,
					     now.virt_extents, &n, &first,
					     &err)) {
			rc = report(TIERCTL_EXIT_FAIL, &err);
			goto out;
		}
		if (n) {
			rc = fail("resize: %llu mapped extents live at or beyond the new end (the first is extent %llu, byte %llu): discard them (e.g. shrink the filesystem, then fstrim) or give a larger size",
				  (unsigned long long)n,
				  (unsigned long long)first,
				  (unsigned long long)first << b);
			goto out;
		}
		/*
		 * Nothing mapped there need not mean nothing uses it: a
		 * filesystem's end is its own, mapped or not.
		 */
		opens = yes ? 0 : settled_open_count(name, lv.d.open_count);
		if (tl_resize_shrink_open(name, lv.sb.virt_extents << b,
					  virt << b, opens, yes, &err)) {
			rc = report(TIERCTL_EXIT_FAIL, &err);
			goto out;
		}
	}
	if (p.grown || (virt && virt != lv.sb.virt_extents)) {
		u64 len = (virt ? virt : lv.sb.virt_extents) << lv.sb.extent_shift;

		/* A table shorter than the virtual size keeps its length. */
		if (!virt && lv.d.length < len)
			len = lv.d.length;
		if (tl_dm_reload(name, lv.d.start, len, TL_DM_TARGET,
				 lv.d.params, &err)) {
			tierctl_live_restore(name, &lv);
			tl_err_append(&err,
				      "%s keeps its sizes (the kernel says why: dmesg | grep tier)",
				      name);
			rc = report(TIERCTL_EXIT_FAIL, &err);
			goto out;
		}
	}
	if (tierctl_test_stop("commit"))
		goto out;
	/* The kernel committed the sizes; the labels' hints follow. */
	if (tl_tierlist_read_sb(lv.meta_path, &lv.meta_label, &now, &err)) {
		rc = report(TIERCTL_EXIT_FAIL, &err);
		goto out;
	}
	/* A module without resize takes the table and changes nothing. */
	for (i = 0; i < now.nr_tiers; i++)
		if (now.tier[i].nr_extents < p.sb.tier[i].nr_extents)
			break;
	if ((virt && now.virt_extents != virt) || i < now.nr_tiers) {
		tl_fail(&err, TL_NOFEATURE,
			"resize: the kernel did not record the new sizes: the dm-tier module predates resize; update it (remove the devices, modprobe -r dm-tier, load the new one)");
		rc = report(TIERCTL_EXIT_NOFEATURE, &err);
		goto out;
	}
	labels = rewrite_sizes(&lv, &now);
	/* What the kernel committed (a re-run: the earlier run's). */
	for (i = 0; i < now.nr_tiers; i++)
		if (now.tier[i].nr_extents > p.old_nr[i])
			p.grown |= 1U << i;
	print_open(json);
	print_resized(name, &lv, &p, &now, labels);
	print_close();
	rc = TIERCTL_EXIT_OK;
out:
	tierctl_live_free(&lv);
	return rc;
}
