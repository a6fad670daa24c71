/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-replace.h - tierctl replace-tier (and tierd's replace_tier policy
 * line): which step of a tier replacement comes next, derived from the
 * superblock alone, so that running the same command again after a crash
 * or an interruption resumes where the previous run stopped. Pure.
 *
 * A replacement of tier T by the device NEWDEV is three tier-list steps:
 *   add       NEWDEV joins as tier T+1 (add-tier --position T+1);
 *   evacuate  tier T empties, preferably onto T+1 (evacuate T --to T+1);
 *   remove    tier T leaves (remove-tier T): NEWDEV is tier T now.
 * Each step is one kernel commit (the list, or the per-tier evacuate flag),
 * so the superblock tells how far a replacement got: NEWDEV's member UUID
 * (its label) listed at T+1, at T, or not at all, and tier T's evacuate
 * flag. No separate in-progress record is needed (docs/tierctl.md
 * "replace-tier").
 */
#ifndef DM_TIER_TL_REPLACE_H
#define DM_TIER_TL_REPLACE_H

#include "tl.h"

enum tl_replace_step {
	TL_REPLACE_ADD, /* NEWDEV is not a member: add it as tier T+1 */
	TL_REPLACE_EVACUATE, /* NEWDEV is T+1: empty T (start or resume) */
	TL_REPLACE_REMOVE, /* T evacuated and empty: remove it */
	TL_REPLACE_DONE, /* NEWDEV is tier T: replaced */
};

/* "add", "evacuate", "remove", "done". */
const char *tl_replace_step_name(enum tl_replace_step s);

/**
 * tl_replace_next() - the next step of replacing tier @tier of the device
 * whose superblock is @sb by the device whose label names @new_member.
 * @sb:         the superblock (tier list, member UUIDs, tier flags).
 * @tier:       the tier to replace, as numbered before the replacement.
 * @new_member: the member UUID in NEWDEV's label when that label is one of
 *              this device's (same device UUID), else NULL (no label, or
 *              a stale one of another device: the add step refuses that).
 * @new_spare:  NEWDEV's label has a spare metadata area of this device's
 *              metadata size (tierctl_add_tier() with spare_meta).
 * @old_mapped: extents mapped on @tier now (status line); only read when
 *              NEWDEV is tier @tier + 1.
 * @step:       out.
 * @why:        out: the reason of a refusal.
 * @len:        size of @why.
 *
 * Tier 0 follows the same steps: NEWDEV is added at 1 (with a spare
 * metadata area when tier 0 holds the metadata: the add step is then
 * tierctl_add_tier() with spare_meta), tier 0 is evacuated onto it, and
 * the removal of tier 0 makes it tier 0, moving the metadata to it in the
 * same commit (docs/FORMAT.md "Replacing tier 0"). A NEWDEV that is tier 1
 * already without that area is refused: it cannot take the metadata.
 *
 * Return: TL_OK with *@step; TL_USAGE (no such tier, NEWDEV already
 * another tier of the device); TL_FAIL (NEWDEV tier 1 without room for
 * tier 0's metadata, the list full, the new tier being evacuated).
 */
int tl_replace_next(const struct tier_sb *sb, u32 tier, const u8 *new_member,
		    bool new_spare, u64 old_mapped, enum tl_replace_step *step,
		    char *why, size_t len);

#endif /* DM_TIER_TL_REPLACE_H */
