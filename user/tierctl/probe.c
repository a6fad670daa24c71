// SPDX-License-Identifier: GPL-2.0
/*
 * Foreign signatures through libblkid: what "tierctl create" refuses to
 * overwrite without --force, and wipes with it. Kept out of user/lib so that
 * the unit tests need not link libblkid.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <stdio.h>
#include <unistd.h>

#include <blkid/blkid.h>

#include "tierctl.h"

static blkid_probe new_probe(int fd)
{
	blkid_probe pr = blkid_new_probe();

	if (!pr)
		return NULL;
	if (blkid_probe_set_device(pr, fd, 0, 0)) {
		blkid_free_probe(pr);
		return NULL;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_MAGIC |
						      BLKID_SUBLKS_TYPE |
						      BLKID_SUBLKS_USAGE |
						      BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	return pr;
}

/* "a filesystem (xfs)", "a RAID/LVM signature (LVM2_member)"... */
static void describe(const char *usage, const char *type, char *buf,
		     size_t len)
{
	const char *what = "a signature";

	if (usage && !strcmp(usage, "filesystem"))
		what = "a filesystem";
	else if (usage && !strcmp(usage, "raid"))
		what = "a RAID/LVM signature";
	else if (usage && !strcmp(usage, "crypto"))
		what = "an encryption header";
	snprintf(buf, len, "%s (%s)", what, type);
}

static void append(char *what, size_t len, const char *phrase)
{
	size_t pos = strlen(what);

	if (strstr(what, phrase))
		return;
	snprintf(what + pos, len - pos, "%s%s", pos ? ", " : "", phrase);
}

int probe_foreign(int fd, char *what, size_t len)
{
	blkid_probe pr = new_probe(fd);
	const char *type, *usage, *pttype;
	char phrase[128];
	int found = 0, r;

	what[0] = '\0';
	if (!pr)
		return -ENOMEM;
	while ((r = blkid_do_probe(pr)) == 0) {
		type = usage = pttype = NULL;
		if (!blkid_probe_lookup_value(pr, "PTTYPE", &pttype, NULL) &&
		    pttype) {
			snprintf(phrase, sizeof(phrase),
				 "a partition table (%s)", pttype);
		} else if (!blkid_probe_lookup_value(pr, "TYPE", &type, NULL) &&
			   type) {
			blkid_probe_lookup_value(pr, "USAGE", &usage, NULL);
			describe(usage, type, phrase, sizeof(phrase));
		} else {
			snprintf(phrase, sizeof(phrase), "an unknown signature");
		}
		append(what, len, phrase);
		found = 1;
	}
	blkid_free_probe(pr);
	if (r < 0 && !found)
		return -EIO;
	return found;
}

int wipe_foreign(int fd, const char *path, struct tl_err *err)
{
	blkid_probe pr = new_probe(fd);
	int r, guard = 0;

	if (!pr)
		return tl_fail(err, TL_FAIL, "%s: cannot probe signatures",
			       path);
	while ((r = blkid_do_probe(pr)) == 0 && guard++ < 64) {
		if (blkid_do_wipe(pr, 0)) {
			blkid_free_probe(pr);
			return tl_fail(err, TL_FAIL,
				       "%s: cannot erase an old signature: %s",
				       path, strerror(errno));
		}
	}
	blkid_free_probe(pr);
	if (fsync(fd))
		return tl_fail(err, TL_FAIL, "%s: flush failed: %s", path,
			       strerror(errno));
	return TL_OK;
}
