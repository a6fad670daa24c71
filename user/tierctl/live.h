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

/*
 * Tests only (VM tests 070, 074): TIERCTL_TEST_STOP=@step makes the command
 * stop right after that step, as a crash would (exit 0 after saying so),
 * so that a power cut can follow it.
 */
bool tierctl_test_stop(const char *step);

#endif /* DM_TIER_TIERCTL_LIVE_H */
