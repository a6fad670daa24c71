/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-tierlist.h - changing the tier list of an active device (tierctl
 * add-tier, remove-tier): the table line, the new member's label, the label
 * hints; the superblock is authoritative for the list (docs/FORMAT.md
 * "Tier list changes"). Pure except the tl_tierlist_*_dev() helpers.
 */
#ifndef DM_TIER_TL_TIERLIST_H
#define DM_TIER_TL_TIERLIST_H

#include "tl.h"

/**
 * tl_table_add_tier() - @params with @dev appended to its tier list.
 * Return: TL_OK, or TL_FAIL (malformed line, 8 tiers already, too long).
 */
int tl_table_add_tier(const char *params, const char *dev, char *out,
		      size_t len, struct tl_err *err);

/**
 * tl_table_insert_tier() - @params with @dev inserted at tier position @pos
 * of its tier list (the tiers from @pos on move up by one; @pos = the tier
 * count appends, as tl_table_add_tier()).
 * Return: TL_OK, or TL_FAIL (malformed line, @pos beyond the count, 8
 * tiers already, too long).
 */
int tl_table_insert_tier(const char *params, u32 pos, const char *dev,
			 char *out, size_t len, struct tl_err *err);

/**
 * tl_table_drop_tier() - @params without tier @pos (the tiers after it
 * move down by one).
 * Return: TL_OK, or TL_FAIL (malformed line, a single tier, @pos beyond
 * the list, too long).
 */
int tl_table_drop_tier(const char *params, u32 pos, char *out, size_t len,
		       struct tl_err *err);

/**
 * tl_table_drop_last_tier() - @params without its last tier.
 * Return: TL_OK, or TL_FAIL (malformed line, a single tier, too long).
 */
int tl_table_drop_last_tier(const char *params, char *out, size_t len,
			    struct tl_err *err);

/**
 * tl_tierlist_new_label() - the label of a device appended as tier
 * @sb->nr_tiers: the device's identity from @ref (any member's label),
 * its geometry from its size (data from TIER_DATA_ALIGN, whole extents).
 * @ref:         a member's label.
 * @sb:          the current superblock.
 * @dev_sectors: the new device's size.
 * @tier_class:  its class.
 * @member_uuid: a fresh member UUID.
 * @l:           out.
 * Return: TL_OK; TL_USAGE when the list is full or the device holds no
 * whole extent after its first MiB, or has more than 2^48 extents.
 */
int tl_tierlist_new_label(const struct tier_label *ref,
			  const struct tier_sb *sb, u64 dev_sectors,
			  u32 tier_class, const u8 *member_uuid,
			  struct tier_label *l, struct tl_err *err);

/**
 * tl_tierlist_new_label_at() - as tl_tierlist_new_label(), for a device
 * inserted at position @pos (1..@sb->nr_tiers; @sb->nr_tiers appends): its
 * tier index hint is @pos, which the kernel checks
 * (tier_label_check_new()).
 * Return: TL_OK; TL_USAGE as tl_tierlist_new_label(), or @pos is 0 or
 * beyond the count.
 */
int tl_tierlist_new_label_at(const struct tier_label *ref,
			     const struct tier_sb *sb, u32 pos,
			     u64 dev_sectors, u32 tier_class,
			     const u8 *member_uuid, struct tier_label *l,
			     struct tl_err *err);

/**
 * tl_tierlist_spare_label() - @l (a new tier's label, from
 * tl_tierlist_new_label_at()) with a spare metadata area of @sb's size
 * before its data (docs/FORMAT.md "Replacing tier 0"): data from the first
 * MiB boundary after the area, whole extents to the end of the device.
 * Return: TL_OK; TL_USAGE when the metadata is on a separate device, or
 * the device holds no whole extent after the area.
 */
int tl_tierlist_spare_label(struct tier_label *l, const struct tier_sb *sb,
			    struct tl_err *err);

/*
 * Zero both superblock slots of @l's spare metadata area on @path (before
 * its label is written), so that no older superblock there is ever read;
 * TL_OK or TL_FAIL.
 */
int tl_tierlist_zero_spare_slots(const char *path, struct tl_err *err);

/**
 * tl_tierlist_hint() - @l with its hints (tier index, tier count) as @sb
 * lists the member. Tier 0's label with a spare metadata area (the
 * metadata moved to it, replace-tier NAME 0) becomes the metadata holder's:
 * TIER_LABEL_F_META with that area.
 * Return: 1 when @out differs from @l (rewrite it), 0 when not, -1 when
 * @sb does not list the member (a stale label) or it is not this device's.
 */
int tl_tierlist_hint(const struct tier_label *l, const struct tier_sb *sb,
		     struct tier_label *out);

/* Read the label of @path; 0, 1 (none), or a negative errno. */
int tl_tierlist_read_label(const char *path, struct tier_label *l);

/* Write @l as @path's label, then fsync; TL_OK or TL_FAIL. */
int tl_tierlist_write_label(const char *path, const struct tier_label *l,
			    struct tl_err *err);

/* Zero @path's label block, then fsync; TL_OK or TL_FAIL. */
int tl_tierlist_wipe_label(const char *path, struct tl_err *err);

/* The superblock on @path (the metadata holder, label @l); TL_OK or TL_FAIL. */
int tl_tierlist_read_sb(const char *path, const struct tier_label *l,
			struct tier_sb *sb, struct tl_err *err);

#endif /* DM_TIER_TL_TIERLIST_H */
