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
 * @old_mapped: extents mapped on @tier now (status line); only read when
 *              NEWDEV is tier @tier + 1.
 * @step:       out.
 * @why:        out: the reason of a refusal.
 * @len:        size of @why.
 *
 * Tier 0 is refused: when it holds the metadata (no TIER_SB_F_META_EXT)
 * because moving the metadata to another device is not built, else because
 * remove-tier takes only tiers >= 1 out of the list.
 *
 * Return: TL_OK with *@step; TL_USAGE (no such tier, NEWDEV already
 * another tier of the device); TL_FAIL (tier 0 holding the metadata, the
 * list full, the new tier being evacuated).
 */
int tl_replace_next(const struct tier_sb *sb, u32 tier, const u8 *new_member,
		    u64 old_mapped, enum tl_replace_step *step, char *why,
		    size_t len);

#endif /* DM_TIER_TL_REPLACE_H */
