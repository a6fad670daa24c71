/* SPDX-License-Identifier: GPL-2.0 */
/*
 * live.h - an active device as the commands that reload its table (add-tier,
 * remove-tier, resize) read it: table, member paths, superblock. Defined in
 * cmd-tierlist.c.
 */
#ifndef DM_TIER_TIERCTL_LIVE_H
#define DM_TIER_TIERCTL_LIVE_H

#include <stdbool.h>

#include "tl-dm.h"
#include "tl-status.h"
#include "tl-sysfs.h"
#include "tl-tierlist.h"

/* An active device: its table, member paths and superblock. */
struct tierctl_live {
	struct tl_dm_dev d;
	struct tl_table tt;
	u32 nr;
	char path[TIER_MAX_TIERS][TL_PATH_LEN];
	char meta_path[TL_PATH_LEN];
	struct tier_label meta_label;
	struct tier_sb sb;
};

/*
 * tierctl_live_open() - read the active read-write dm-tier device @name: its
 * table, the members' paths, the metadata holder's label and superblock.
 * Return: TIERCTL_EXIT_OK with @lv filled (free it with tierctl_live_free()),
 * or an exit status after printing "@cmd: ..." (@lv then needs no free).
 */
int tierctl_live_open(const char *cmd, const char *name,
		      struct tierctl_live *lv);
void tierctl_live_free(struct tierctl_live *lv);

/* After a failed reload: @lv's table back, when the new one is stuck. */
void tierctl_live_restore(const char *name, const struct tierctl_live *lv);

/**
 * struct tierctl_claim - a device about to become a member (add-tier, and
 * so replace-tier's add step), held open exclusively (O_EXCL) from its
 * checks until its label is written: nothing can mount or claim it in
 * between. The table reload comes after tierctl_claim_release(), since the
 * kernel opens its members exclusively too.
 * @fd:    the exclusive descriptor (read-write), -1 when not held.
 * @bytes: the device's size (0 when it cannot be read).
 * @found: the foreign signatures libblkid found on it (probe_foreign():
 *         "a filesystem (ext4)", ...), "" when none.
 */
struct tierctl_claim {
	int fd;
	u64 bytes;
	char found[256];
};

/*
 * tierctl_claim_open() - open @path exclusively, size it, and probe it for
 * foreign signatures (filesystems, partition tables, RAID/LVM, crypto,
 * swap): what `create` refuses without --force. Without @force a device
 * carrying one is refused, with a message that names what was found and
 * says that --force erases it; with @force it is held, @c->found saying
 * what tierctl_claim_wipe() is to erase.
 * Return: TL_OK with @c held; TL_FAIL with "@cmd: ..." in @err (in use,
 * cannot be opened or probed, a signature and no @force) and @c released.
 */
int tierctl_claim_open(const char *cmd, const char *path, bool force,
		       struct tierctl_claim *c, struct tl_err *err);
/*
 * Erase what tierctl_claim_open() found on @c (wipe_foreign(), as create
 * --force does, like wipefs -a), before the label is written; nothing to
 * do when nothing was found. TL_OK or TL_FAIL.
 */
int tierctl_claim_wipe(struct tierctl_claim *c, const char *path,
		       struct tl_err *err);
/* Close @c's descriptor, if held (again: nothing). */
void tierctl_claim_release(struct tierctl_claim *c);

/*
 * Tests only (VM tests 070, 074): TIERCTL_TEST_STOP=@step makes the command
 * stop right after that step, as a crash would (exit 0 after saying so),
 * so that a power cut can follow it.
 */
bool tierctl_test_stop(const char *step);

#endif /* DM_TIER_TIERCTL_LIVE_H */
