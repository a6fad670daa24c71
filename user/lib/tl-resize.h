/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-resize.h - resizing an active device (tierctl resize): tiers whose
 * device grew, the virtual size. The kernel commits the new sizes at the
 * resume of a table reload; the labels' nr_extents and dev_sectors are
 * rewritten here afterwards (docs/FORMAT.md "Resizing"). Pure except
 * tl_resize_mapped_on_disk().
 */
#ifndef DM_TIER_TL_RESIZE_H
#define DM_TIER_TL_RESIZE_H

#include "tl.h"

/**
 * struct tl_resize_plan - what a resize changes.
 * @sb:       the superblock as the resize commits it (grown records, new
 *            virtual size).
 * @grown:    tiers whose device grew by at least one extent.
 * @old_nr:   per tier, its extents before.
 * @old_virt: the virtual size before, in extents.
 * @max_virt: the largest virtual size after the tiers' growth.
 * @bound:    what limits @max_virt.
 * @capacity: the tiers' extents after the growth.
 */
struct tl_resize_plan {
	struct tier_sb sb;
	u32 grown;
	u64 old_nr[TIER_MAX_TIERS];
	u64 old_virt;
	u64 max_virt;
	enum tier_resize_bound bound;
	u64 capacity;
};

/**
 * tl_resize_plan() - the sizes a resize of @sb gives.
 * @sb:          the current superblock.
 * @dev_sectors: per tier, its device's size now.
 * @virt:        the virtual size wanted, in extents; 0: unchanged.
 * @p:           out.
 * Return: TL_OK; TL_FAIL when a tier's device shrank (never truncated:
 * the message says which and what to do); TL_USAGE when @virt is above
 * the maximum (the message says the maximum, what limits it and what to
 * do).
 */
int tl_resize_plan(const struct tier_sb *sb, const u64 *dev_sectors, u64 virt,
		   struct tl_resize_plan *p, struct tl_err *err);

/**
 * tl_resize_shrink_open() - whether a shrink of the virtual size may go on
 * while the device is open: whatever is on it (a mounted filesystem, a
 * program's data) loses its end, and a filesystem does not expect that.
 * @name:       the device, for the message.
 * @old_bytes:  the virtual size now.
 * @new_bytes:  the size asked for (0: unchanged).
 * @open_count: the dm device's openers (device-mapper info).
 * @yes:        --yes: the caller has shrunk what is on it.
 * Return: TL_OK when it is no shrink, the device is not open, or @yes;
 * TL_FAIL with @err saying so (the sizes, the openers) and what to do:
 * shrink the filesystem first (XFS cannot shrink), then --yes.
 */
int tl_resize_shrink_open(const char *name, u64 old_bytes, u64 new_bytes,
			  int open_count, bool yes, struct tl_err *err);

/**
 * tl_resize_label() - @l with the size the superblock records for it.
 * Return: 1 when @out differs from @l (rewrite it), 0 when not, -1 when
 * @sb does not list the member as a tier.
 */
int tl_resize_label(const struct tier_label *l, const struct tier_sb *sb,
		    struct tier_label *out);

/**
 * tl_resize_mapped() - count the mapped entries of virtual extents
 * [@from, @to) in the map blocks @blk (of map block @first_block on).
 * @blks:        consecutive map blocks, @nr of them.
 * @first_block: index of @blks[0].
 * @first:       out: the first mapped extent (U64_MAX when none).
 * Return: how many are mapped.
 */
u64 tl_resize_mapped(const void *blks, u64 nr, u64 first_block, u64 from,
		     u64 to, u64 *first);

/**
 * tl_resize_mapped_on_disk() - tl_resize_mapped() over the active map copy
 * of @sb on @meta_path (as of the last commit).
 * Return: TL_OK or TL_FAIL (read error, a block failing its checks).
 */
int tl_resize_mapped_on_disk(const char *meta_path, const struct tier_sb *sb,
			     u64 from, u64 to, u64 *count, u64 *first,
			     struct tl_err *err);

#endif /* DM_TIER_TL_RESIZE_H */
