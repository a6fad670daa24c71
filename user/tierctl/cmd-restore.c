// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl restore: write the JSON of tierctl dump back as fresh metadata
 * to member devices (user/lib/tl-restore.c), then check what was written
 * (user/lib/tl-check.c).
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
#include "tl-print.h"
#include "tl-restore.h"

/* The whole of @path ("-": stdin) into a malloc'ed buffer. */
static int read_all(const char *path, char **buf, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t cap = 1 << 16, n = 0, got;
	char *b = NULL, *nb;

	if (!f)
		return -errno;
	for (;;) {
		nb = realloc(b, cap);
		if (!nb) {
			free(b);
			if (f != stdin)
				fclose(f);
			return -ENOMEM;
		}
		b = nb;
		got = fread(b + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		cap *= 2;
	}
	if (f != stdin)
		fclose(f);
	*buf = b;
	*len = n;
	return 0;
}

/* Open a target exclusively; its size in sectors. */
static int open_target(const char *path, u64 *sectors)
{
	struct stat st;
	u64 bytes = 0;
	int fd, flags = O_RDWR | O_CLOEXEC;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode))
		flags |= O_DIRECT | O_EXCL;
	else if (!S_ISREG(st.st_mode))
		return -ENOTBLK;
	fd = open(path, flags);
	if (fd < 0)
		return -errno;
	if (S_ISBLK(st.st_mode) ? ioctl(fd, BLKGETSIZE64, &bytes) < 0 : 0) {
		close(fd);
		return -errno;
	}
	if (!S_ISBLK(st.st_mode))
		bytes = st.st_size;
	*sectors = bytes >> TIER_SECTOR_SHIFT;
	return fd;
}

int cmd_restore(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "metadata-dev", required_argument, NULL, 'm' },
		{ "keep-uuid", no_argument, NULL, 'k' },
		{ "name", required_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *meta_arg = NULL, *name = NULL, *file;
	const char *paths[TIER_MAX_DEVS] = { NULL };
	int fds[TIER_MAX_DEVS], c, rc = TIERCTL_EXIT_OK;
	bool keep = false, force = false, json = tierctl_json;
	struct tl_err err = { "" };
	struct tier_fresh f;
	struct tl_dump d;
	struct tl_md md;
	size_t len = 0;
	char *text = NULL, hex[TL_UUID_HEX_LEN + 1];
	u32 i, n;

	for (i = 0; i < TIER_MAX_DEVS; i++)
		fds[i] = -1;
	memset(&d, 0, sizeof(d));
	tl_md_init(&md);
	opts_reset();
	while ((c = next_opt("restore", argc, argv, "m:kn:fj", longopts)) != -1) {
		switch (c) {
		case 'm':
			meta_arg = optarg;
			break;
		case 'k':
			keep = true;
			break;
		case 'n':
			name = optarg;
			break;
		case 'f':
			force = true;
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
	if (argc - optind < 2)
		return usage_error("restore: give the dump FILE and the member devices, fastest tier first");
	file = argv[optind++];
	c = read_all(file, &text, &len);
	if (c)
		return fail("restore: cannot read %s: %s", file, strerror(-c));
	rc = tl_dump_parse(text, len, &d, &err);
	free(text);
	if (rc)
		return report(rc, &err);
	n = argc - optind;
	if (n != d.nr_tiers || !!meta_arg != d.meta_ext) {
		rc = usage_error("restore: the dump has %u tier%s%s; give %u device%s%s",
				 d.nr_tiers, d.nr_tiers == 1 ? "" : "s",
				 d.meta_ext ? " and a metadata device" : "",
				 d.nr_tiers, d.nr_tiers == 1 ? "" : "s",
				 d.meta_ext ? " and --metadata-dev DEV" : "");
		goto out;
	}
	rc = tl_restore_plan(&d, keep, name, &f, &err);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	for (i = 0; i < TIER_MAX_DEVS; i++) {
		struct tier_label l;
		struct tier_err terr;
		u64 sectors = 0, need;

		if (i < n)
			paths[i] = argv[optind + i];
		else if (i == TIER_META_DEV && meta_arg)
			paths[i] = meta_arg;
		else
			continue;
		fds[i] = open_target(paths[i], &sectors);
		if (fds[i] == -EBUSY) {
			rc = usage_error("restore: %s is in use (a member of an active device, or mounted)",
					 paths[i]);
			goto out;
		}
		if (fds[i] < 0) {
			rc = fail("restore: cannot open %s: %s", paths[i],
				  strerror(-fds[i]));
			goto out;
		}
		need = i == TIER_META_DEV ? d.meta_dev_sectors : d.tier[i].dev_sectors;
		if (sectors < need) {
			rc = usage_error("restore: %s has %llu sectors, the dump's %s %u needs %llu",
					 paths[i], (unsigned long long)sectors,
					 i == TIER_META_DEV ? "metadata device" : "tier",
					 i, (unsigned long long)need);
			goto out;
		}
		if (!force && !tl_read_label(fds[i], &l, &terr) &&
		    memcmp(l.uuid, d.uuid, TIER_UUID_LEN)) {
			rc = usage_error("restore: %s carries the label of another dm-tier device ('%s'); add --force to overwrite it",
					 paths[i], l.name);
			goto out;
		}
	}
	rc = tl_restore_write(&d, &f, fds, paths, &err);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	/* What was written must check clean. */
	for (i = 0; i < TIER_MAX_DEVS; i++) {
		if (fds[i] < 0)
			continue;
		md.dev[md.nr_devs].path = paths[i];
		md.dev[md.nr_devs].fd = fds[i];
		md.dev[md.nr_devs].sectors = i == TIER_META_DEV ?
						     d.meta_dev_sectors :
						     d.tier[i].dev_sectors;
		md.nr_devs++;
	}
	rc = tl_md_load(&md, &err);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	tl_uuid_hex(f.uuid, hex);
	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "restored '%s'", f.name);
	print_str("uuid", " (uuid %s)", hex);
	print_u64("nr_tiers", ": %llu tiers", d.nr_tiers);
	print_u64("extents", ", %llu mapped extents", d.nr_ext);
	print_u64("generation", ", generation %llu", d.generation);
	print_str("check", "; check: %s\n", md.nr_errors ? "damaged" : "clean");
	print_obj_end();
	print_close();
	rc = md.nr_errors ? TIERCTL_EXIT_FAIL : TIERCTL_EXIT_OK;
out:
	for (i = 0; i < TIER_MAX_DEVS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	tl_md_free(&md);
	tl_dump_free(&d);
	return rc;
}
