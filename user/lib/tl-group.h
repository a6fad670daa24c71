/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-group.h - group member devices by the labels found on them
 * (tierctl activate). Pure: the caller reads and decodes the labels.
 */
#ifndef DM_TIER_TL_GROUP_H
#define DM_TIER_TL_GROUP_H

#include "tl.h"
#include "tl-sysfs.h"

/**
 * struct tl_member - a device carrying a valid dm-tier label.
 * @path:     "/dev/..." path.
 * @maj, @min: device number.
 * @label:    decoded label.
 */
struct tl_member {
	char path[TL_PATH_LEN];
	unsigned int maj, min;
	struct tier_label label;
};

/**
 * struct tl_group - the members of one virtual device (same label uuid).
 * @uuid, @name, @nr_tiers, @extent_shift, @meta_ext: from the first member.
 * @slot:     member index (in struct tl_groups) per device index (tiers,
 *            then TIER_META_DEV), -1 when not found.
 * @count:    members found per device index (> 1: duplicates).
 * @dup:      member index of the second member of a duplicated index.
 * @conflict: member index of the first member whose label disagrees with
 *            the group's (name, extent size, metadata placement), -1 when
 *            none.
 * @stale:    after tl_group_apply_sb(), members labelled for this device
 *            that the superblock does not list (an interrupted add-tier or
 *            remove-tier); @nr_stale of them.
 *
 * Until tl_group_apply_sb(), @nr_tiers and @slot follow the labels' tier
 * indexes and counts, which are hints: enough to find the metadata holder.
 */
struct tl_group {
	u8 uuid[TIER_UUID_LEN];
	char name[TIER_NAME_LEN];
	u32 nr_tiers;
	u32 extent_shift;
	bool meta_ext;
	int slot[TIER_MAX_DEVS];
	u32 count[TIER_MAX_DEVS];
	int dup[TIER_MAX_DEVS];
	int conflict;
	int stale[TIER_MAX_DEVS];
	u32 nr_stale;
};

struct tl_groups {
	struct tl_member *member;
	size_t nr_members;
	struct tl_group *group;
	size_t nr_groups;
};

void tl_groups_init(struct tl_groups *gs);
void tl_groups_free(struct tl_groups *gs);

/* Add a member (copied); 0 or -ENOMEM. */
int tl_groups_add(struct tl_groups *gs, const struct tl_member *m);

/**
 * tl_group_apply_sb() - the superblock is authoritative for the tier list:
 * place the members by their member UUIDs at the positions @sb lists them
 * (whatever their labels' tier indexes say), take its tier count, and note
 * the members it does not list in @g->stale.
 */
void tl_group_apply_sb(const struct tl_groups *gs, struct tl_group *g,
		       const struct tier_sb *sb);

/**
 * tl_group_check() - whether a group can be activated: no conflicting
 * label, every tier 0..nr_tiers-1 (and the metadata device when the labels
 * say it is separate) present exactly once.
 * Return: TL_OK, or TL_FAIL with a message naming the device, the missing
 * tier indices or the duplicated ones and their paths.
 */
int tl_group_check(const struct tl_groups *gs, const struct tl_group *g,
		   struct tl_err *err);

/**
 * tl_group_meta_candidates() - the members of @g that may hold its
 * metadata: the metadata device's label when the metadata is separate,
 * else every label of the device with a metadata area (tier 0's, and a
 * spare area a tier 0 replacement moves the metadata to; after a crash in
 * it two labels may have one, docs/FORMAT.md "Replacing tier 0").
 * @mi:  out; indexes into @gs->member, in scan order.
 * @max: room in @mi.
 * Return: how many (at most @max).
 */
u32 tl_group_meta_candidates(const struct tl_groups *gs,
			     const struct tl_group *g, int *mi, u32 max);

/**
 * tl_meta_pick() - which of @n superblocks (read from the candidates, in
 * their order; @ret[i] 0 when @sb[i] is valid) holds the device's metadata:
 * the valid one with the highest generation. A tier 0 replacement writes
 * the superblock on the new tier 0 one generation above the old tier 0's,
 * and the old one is never written again.
 * Return: its index, or -1 when none is valid.
 */
int tl_meta_pick(const struct tier_sb *sb, const int *ret, u32 n);

/* The member that holds the metadata (tier 0 or the metadata device), or
 * NULL when it was not found. */
const struct tl_member *tl_group_meta_member(const struct tl_groups *gs,
					     const struct tl_group *g);

/**
 * tl_group_table() - the dm table of a complete group.
 * @virt_extents: size in extents (from the superblock).
 * @params:       out; the tier target's parameters (device paths).
 * @sectors:      out; the target length.
 * Return: TL_OK or TL_FAIL.
 */
int tl_group_table(const struct tl_groups *gs, const struct tl_group *g,
		   u64 virt_extents, char *params, size_t len, u64 *sectors,
		   struct tl_err *err);

/* Index of the group called @name; -1 when none, -2 when more than one
 * group (different uuids) has that name. */
int tl_groups_find_name(const struct tl_groups *gs, const char *name);

/**
 * tl_groups_name_shared() - whether more than one group (different uuids)
 * is called @name: activating either as /dev/mapper/@name would pick one
 * by the order of the scan (the kernel's names), so neither may be.
 * Return: TL_OK when at most one is; TL_FAIL with @err naming each group's
 * uuid and member devices and saying what to do.
 */
int tl_groups_name_shared(const struct tl_groups *gs, const char *name,
			  struct tl_err *err);

/**
 * tl_groups_name_elsewhere() - the members labelled with @name (by name,
 * whatever their uuid) other than the devices @maj[i]:@min[i], i < @n (those
 * a create is about to format): another dm-tier device of that name that
 * 'activate' could not tell from a new one.
 * @list: out: "PATH (tier N, uuid HEX)" for each, joined with ", " (cut
 *        at @len).
 * Return: how many.
 */
size_t tl_groups_name_elsewhere(const struct tl_groups *gs, const char *name,
				const unsigned int *maj,
				const unsigned int *min, size_t n, char *list,
				size_t len);

#endif /* DM_TIER_TL_GROUP_H */
