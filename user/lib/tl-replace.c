// SPDX-License-Identifier: GPL-2.0
/* libtier: the steps of a tier replacement (see tl-replace.h). */
#include <stdio.h>
#include <string.h>

#include "tl-replace.h"

const char *tl_replace_step_name(enum tl_replace_step s)
{
	switch (s) {
	case TL_REPLACE_ADD:
		return "add";
	case TL_REPLACE_EVACUATE:
		return "evacuate";
	case TL_REPLACE_REMOVE:
		return "remove";
	case TL_REPLACE_DONE:
		return "done";
	}
	return "?";
}

/* The position @sb lists member @uuid at, or -1. */
static int member_pos(const struct tier_sb *sb, const u8 *uuid)
{
	u32 i;

	for (i = 0; i < sb->nr_tiers && i < TIER_MAX_TIERS; i++)
		if (!memcmp(sb->tier[i].member_uuid, uuid, TIER_UUID_LEN))
			return (int)i;
	return -1;
}

int tl_replace_next(const struct tier_sb *sb, u32 tier, const u8 *new_member,
		    bool new_spare, u64 old_mapped, enum tl_replace_step *step,
		    char *why, size_t len)
{
	int pos = new_member ? member_pos(sb, new_member) : -1;

	/* Checked first: a finished replacement answers "done" even when
	 * the list is full or the old numbering had one tier more. */
	if (pos >= 0 && (u32)pos == tier) {
		*step = TL_REPLACE_DONE;
		return TL_OK;
	}
	if (pos >= 0 && (u32)pos == tier + 1) {
		/* Tier 1 takes tier 0's place, with the metadata. */
		if (!tier && !(sb->flags & TIER_SB_F_META_EXT) && !new_spare) {
			snprintf(why, len,
				 "the new device is tier 1 already, without room for the metadata that tier 0 holds; evacuate and remove tier 1 (tierctl evacuate NAME 1, tierctl remove-tier NAME 1) and run replace-tier again");
			return TL_FAIL;
		}
		if (sb->tier[pos].flags & TIER_SB_TIER_F_EVACUATE) {
			snprintf(why, len,
				 "the new tier %d is being evacuated itself; cancel that (tierctl evacuate NAME %d --cancel) and run replace-tier again",
				 pos, pos);
			return TL_FAIL;
		}
		*step = (sb->tier[tier].flags & TIER_SB_TIER_F_EVACUATE) &&
				!old_mapped ?
			TL_REPLACE_REMOVE :
			TL_REPLACE_EVACUATE;
		return TL_OK;
	}
	if (pos >= 0) {
		snprintf(why, len,
			 "the new device is tier %d of this device already, not a replacement of tier %u; give a device that is not a member",
			 pos, tier);
		return TL_USAGE;
	}
	if (tier >= sb->nr_tiers) {
		snprintf(why, len, "the device has tiers 0 to %u, not %u",
			 sb->nr_tiers - 1, tier);
		return TL_USAGE;
	}
	if (sb->nr_tiers >= TIER_MAX_TIERS) {
		snprintf(why, len,
			 "the device has %d tiers, the most it can have, and a replacement needs one more for a while; remove an empty tier first (tierctl remove-tier)",
			 TIER_MAX_TIERS);
		return TL_FAIL;
	}
	*step = TL_REPLACE_ADD;
	return TL_OK;
}
