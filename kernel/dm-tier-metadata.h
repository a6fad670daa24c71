/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm-tier-metadata.h - the metadata layer: labels, superblock slots and the
 * two map copies on disk, behind the opaque struct tier_md (as dm-cache's
 * and dm-clone's metadata are). It loads the on-disk state into the map
 * and allocators its caller owns, and commits that map (two-phase, see
 * docs/FORMAT.md "Commit"). The superblock, the staging buffer and the map
 * copies are reachable only through the functions below.
 *
 * Layer: the lowest of the mechanism; it calls only kernel/core/ and
 * compat.h (docs/ARCHITECTURE.md "Layers").
 *
 * Locking: the caller serialises load and commit (pool->md_lock). The only
 * other lock it takes is the caller's map lock, passed to
 * tier_md_commit(), while it captures map blocks; never across I/O.
 */
#ifndef DM_TIER_METADATA_H
#define DM_TIER_METADATA_H

#include <linux/blk_types.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "dm-tier.h"
#include "core/alloc.h"
#include "core/extent_map.h"
#include "core/table.h"

struct block_device;
struct tier_md;

#define TIER_MD_BUF_BLOCKS 256 /* 1 MiB staging buffer for map I/O */

/**
 * tier_md_create() - the metadata handle of a device, not loaded yet.
 * @nr_tiers:  tier devices, 1..TIER_MAX_TIERS.
 * @bdevs:     the tier devices, fastest first.
 * @names:     their names for log lines; must outlive the handle.
 * @meta_bdev: the separate metadata device (table key metadata_dev), or
 *             NULL: the metadata is on tier 0.
 * @meta_name: its name for log lines (ignored when @meta_bdev is NULL);
 *             must outlive the handle.
 * @error:     out; a static message for ti->error on failure.
 *
 * Context: process, may sleep.
 * Return: the handle, or an ERR_PTR (-ENOMEM).
 */
struct tier_md *tier_md_create(u32 nr_tiers, struct block_device *const *bdevs,
			       const char *const *names,
			       struct block_device *meta_bdev,
			       const char *meta_name, char **error);

/**
 * tier_md_destroy() - free the handle.
 * @md: the handle, or NULL.
 *
 * Context: process, may sleep.
 */
void tier_md_destroy(struct tier_md *md);

/**
 * tier_md_load() - read labels, superblock and map; fill @map and @alloc.
 * @md:    the handle.
 * @tbl:   the parsed table (extent size, reserve).
 * @map:   out; initialised and loaded from the active copy.
 * @alloc: out; nr_tiers allocators, initialised from the map.
 * @read_only: the pool will never write: metadata with ro_compat features
 *         this module does not know is accepted (docs/FORMAT.md).
 * @error: out; a static message for ti->error on failure.
 *
 * Every check that fails is also logged with the device and block it
 * concerns. On failure @map and @alloc may be partly initialised; the
 * caller destroys them as usual.
 *
 * Context: process, may sleep; caller serialises it with commits
 * (pool->md_lock).
 * Return: 0 or a negative errno.
 */
int tier_md_load(struct tier_md *md, const struct tier_table *tbl,
		 struct tier_map *map, struct tier_alloc *alloc, bool read_only,
		 char **error);

/**
 * tier_md_commit() - make @map durable: phases 1 and 2 of the commit.
 * @md:       the handle.
 * @map:      the map loaded by tier_md_load().
 * @map_lock: the lock under which @map changes; held (irqsave) while map
 *            blocks are captured, never across I/O.
 * @used:     per tier, the mapped extents the new superblock records.
 *
 * The caller has flushed the data tiers the map may point at unflushed
 * data on (tier_md_flush_tier()); with a separate metadata device that
 * includes tier 0. Writes the map blocks dirty for the inactive copy, then
 * the next superblock slot with PREFLUSH|FUA: the PREFLUSH makes the map
 * blocks and every write to the metadata device (tier 0 with its data, or
 * the separate metadata device) completed before it durable first. On
 * failure
 * every block of the copy it was writing is marked dirty again, so the next
 * commit rewrites it.
 *
 * Context: process, may sleep; caller serialises it (pool->md_lock) and
 * keeps the map from changing meanwhile except under @map_lock.
 * Return: 0 or a negative errno.
 */
int tier_md_commit(struct tier_md *md, struct tier_map *map,
		   spinlock_t *map_lock, const u64 *used);

/**
 * tier_md_check_new_tier() - whether @bdev carries the label tierctl
 * add-tier writes for a new tier @tier of this device (docs/ARCHITECTURE.md
 * "Tier list changes"): tier_label_check_new().
 * @md:    a loaded handle.
 * @tier:  the new position, 1..the current tier count (the count appends,
 *         less inserts).
 * @bdev:  the device.
 * @name:  its name, for the log.
 * @rec:   out; the superblock record the change will commit.
 * @error: out; a static message for ti->error.
 *
 * Context: process, may sleep (reads the label with a buffer of its own);
 * caller holds pool->md_lock (the tier list does not change meanwhile).
 * Return: 0, -ENOMEM, -EIO, -EINVAL.
 */
int tier_md_check_new_tier(struct tier_md *md, u32 tier,
			   struct block_device *bdev, const char *name,
			   struct tier_sb_tier *rec, char **error);

/**
 * tier_md_check_spare() - whether @bdev, tier 1 of this device, carries a
 * spare metadata area of this device's metadata size in its label (tierctl
 * replace-tier NAME 0 added it so), so that removing tier 0 can move the
 * metadata to it.
 * @md:    a loaded handle without a separate metadata device.
 * @bdev:  tier 1's device.
 * @name:  its name, for the log.
 * @error: out; a static message for ti->error.
 *
 * Context: process, may sleep; caller holds pool->md_lock.
 * Return: 0, -ENOMEM, -EIO, -EINVAL.
 */
int tier_md_check_spare(struct tier_md *md, struct block_device *bdev,
			const char *name, char **error);

/**
 * tier_md_commit_tiers() - a commit (as tier_md_commit()) whose superblock
 * has the tier list one longer (@added inserted at @pos) or one shorter
 * (tier @pos dropped), and whose map has every mapped word's tier renumbered
 * (tier_map_renumber()): the one write that changes the list, so a crash
 * leaves either the old list with the old map or the new list with the new
 * map (the commit writes the inactive copy, then the superblock that
 * switches to it). The renumbered blocks stay dirty for the other copy, so
 * the next commit rewrites it too. On success the handle uses the new list
 * (@bdev and @name at @pos for an added tier; the caller re-points the
 * names of the moved tiers with tier_md_rebind()). On failure the map is
 * renumbered back.
 * @md, @map, @map_lock: as tier_md_commit().
 * @used:   per tier of the new list, its mapped extents.
 * @insert: true: insert @added at @pos; false: remove tier @pos.
 * @pos:    1..count for an insert (count appends), 0..count - 1 for a
 *          removal. Removing tier 0 makes tier 1 tier 0; without a
 *          separate metadata device the metadata moves to it in this
 *          commit (tier_md_check_spare() checked its spare area): both map
 *          copies in full and the superblock of the next generation are
 *          written there, nothing on the old tier 0, whose superblock stays
 *          one generation older (docs/FORMAT.md "Replacing tier 0").
 * @added:  the new tier's record when inserting.
 * @bdev:   its device; @name: its name (outlives the handle, or is
 *          re-pointed).
 *
 * Context: process, may sleep; caller holds pool->md_lock, not @map_lock;
 * no map word changes meanwhile (the device is suspended).
 * Return: 0; -EINVAL (bad @pos); -EBUSY (a mapped extent is on the removed
 * tier); or the commit's error. Except on success, the list and the map
 * are unchanged.
 */
int tier_md_commit_tiers(struct tier_md *md, struct tier_map *map,
			 spinlock_t *map_lock, const u64 *used, bool insert,
			 u32 pos, const struct tier_sb_tier *added,
			 struct block_device *bdev, const char *name);

/**
 * tier_md_get_sb() - a copy of the current superblock (as last committed).
 * @md: a loaded handle.
 * @sb: out.
 *
 * Context: caller holds pool->md_lock.
 */
void tier_md_get_sb(const struct tier_md *md, struct tier_sb *sb);

/**
 * tier_md_commit_resize() - a commit (as tier_md_commit()) whose superblock
 * has grown tier records and/or another virtual size
 * (tier_sb_resize()): the one write that resizes, so a crash leaves the
 * old or the new sizes (docs/ARCHITECTURE.md "Resize").
 * @md, @map_lock: as tier_md_commit().
 * @map:  the map of the new virtual size (its blocks beyond the old end
 *        dirty: tier_map_resize_copy()).
 * @used: per tier, its mapped extents.
 * @recs: nr_tiers records (tier_sb_tier_grown()), or NULL.
 * @virt: the new virtual size in extents.
 *
 * Context: process, may sleep; caller holds pool->md_lock.
 * Return: 0; -EINVAL/-ENOSPC when tier_sb_resize() refuses (nothing
 * written); the commit's error (the sizes are unchanged).
 */
int tier_md_commit_resize(struct tier_md *md, struct tier_map *map,
			  spinlock_t *map_lock, const u64 *used,
			  const struct tier_sb_tier *recs, u64 virt);

/**
 * tier_md_get_settings() - the persisted settings: as loaded, or as last
 * set by tier_md_set_settings() (not yet committed, perhaps).
 * @md: a loaded handle.
 * @s:  out.
 *
 * Context: under the map lock the commits are given (pool->lock), or the
 * handle is not shared yet (loading).
 */
void tier_md_get_settings(const struct tier_md *md, struct tier_settings *s);

/**
 * tier_md_set_settings() - the settings the next commit records in the
 * superblock (docs/FORMAT.md "Settings record"). The caller makes the
 * next commit happen (a change_seq bump).
 * @md: a loaded handle.
 * @s:  the settings; count 0 removes the record and its feature bit.
 *
 * A commit copies the record under the map lock it is given, once, not
 * under md_lock: a change of settings never waits for a commit (which may
 * wait on a hung tier for as long as its path hangs). A change after the
 * copy goes with the next commit.
 *
 * Context: under the map lock the commits are given (pool->lock).
 */
void tier_md_set_settings(struct tier_md *md, const struct tier_settings *s);

/**
 * tier_md_tier_flags() - a tier's superblock record flags
 * (TIER_SB_TIER_F_*): as loaded, or as last set by tier_md_set_tier_flags().
 * @md:   a loaded handle.
 * @tier: the tier, < nr_tiers.
 *
 * Context: caller holds pool->md_lock, or the handle is not shared yet
 * (loading).
 * Return: the flags, unknown bits included.
 */
u32 tier_md_tier_flags(const struct tier_md *md, u32 tier);

/**
 * tier_md_set_tier_flags() - the tier record flags the next commit records
 * (docs/FORMAT.md "Per-tier record"); bits other than @mask are kept. The
 * caller makes the next commit happen (a change_seq bump).
 * @md:    a loaded handle.
 * @tier:  the tier, < nr_tiers.
 * @mask:  the bits to change.
 * @value: their new values.
 *
 * Context: caller holds pool->md_lock (no commit meanwhile).
 */
void tier_md_set_tier_flags(struct tier_md *md, u32 tier, u32 mask, u32 value);

/**
 * tier_md_flush_tier() - flush the volatile cache of one tier device.
 * @md:   the handle.
 * @tier: the tier, < nr_tiers.
 *
 * Context: process, may sleep.
 * Return: 0 or a negative errno (-ENOLINK, -ENODEV: the path is lost).
 */
int tier_md_flush_tier(struct tier_md *md, u32 tier);

/**
 * tier_md_check_member() - whether @bdev carries the label of tier @tier of
 * this device (re-bind: the same member under a new device name, e.g. a
 * reconnected NVMe-oF namespace).
 * @md:    a loaded handle.
 * @tier:  the tier, 1..nr_tiers-1.
 * @bdev:  the candidate device.
 * @name:  its name, for the log.
 * @error: out; a static message for ti->error.
 *
 * Reads the label with a buffer of its own (not the staging buffer), and
 * compares it with what never changes after load (UUIDs, geometry), so it
 * needs no lock.
 *
 * Context: process, may sleep.
 * Return: 0, -ENOMEM, the read's error, or -EINVAL when it does not match.
 */
int tier_md_check_member(struct tier_md *md, u32 tier,
			 struct block_device *bdev, const char *name,
			 char **error);

/**
 * tier_md_rebind() - tier @tier's member is @bdev from now on (commits
 * flush it).
 * @md:   the handle.
 * @tier: the tier, 1..nr_tiers-1.
 * @bdev: a device tier_md_check_member() accepted.
 * @name: its name for logs; must outlive the handle's use of it.
 *
 * Context: caller holds pool->md_lock (no commit meanwhile).
 */
void tier_md_rebind(struct tier_md *md, u32 tier, struct block_device *bdev,
		    const char *name);

/**
 * tier_md_extent_shift() - log2 of the extent size in sectors.
 * @md: a loaded handle.
 *
 * Context: any; fixed once loaded.
 */
u32 tier_md_extent_shift(const struct tier_md *md);

/**
 * tier_md_virt_extents() - extents of the virtual device.
 * @md: a loaded handle.
 *
 * Context: any; fixed once loaded.
 */
u64 tier_md_virt_extents(const struct tier_md *md);

/**
 * tier_md_data_start() - first sector of a tier's data area.
 * @md:   a loaded handle.
 * @tier: the tier, < nr_tiers.
 *
 * Context: any; fixed once loaded.
 */
sector_t tier_md_data_start(const struct tier_md *md, u32 tier);

/**
 * tier_md_tier_class() - a tier's class (enum dm_tier_class).
 * @md:   a loaded handle.
 * @tier: the tier, < nr_tiers.
 *
 * Context: any; fixed once loaded.
 */
u32 tier_md_tier_class(const struct tier_md *md, u32 tier);

/**
 * tier_md_uuid() - the virtual device's UUID.
 * @md:   a loaded handle.
 * @uuid: out, TIER_UUID_LEN bytes.
 *
 * Context: any; fixed once loaded.
 */
void tier_md_uuid(const struct tier_md *md, u8 *uuid);

/**
 * tier_md_ctime() - the device's creation time (seconds since the epoch).
 * @md: a loaded handle.
 *
 * Context: any; fixed once loaded.
 */
u64 tier_md_ctime(const struct tier_md *md);

/**
 * tier_md_heat_clock() - the heat clock as the wall clock gives it now:
 * seconds since the device's creation (like the map's access times), 0
 * before it, at most U32_MAX / 2.
 * @md: a handle whose superblock is read.
 *
 * tier_md_load() converts the map's access times with it; the pool's clock
 * starts from it.
 *
 * Context: any.
 */
u32 tier_md_heat_clock(const struct tier_md *md);

/**
 * tier_md_meta_usage() - the metadata device's use and size, in 4 KiB
 * blocks: used = label, superblock slots and both map copies; total = the
 * separate metadata device's size, or tier 0's area before its data.
 * @md:    a loaded handle.
 * @used:  out.
 * @total: out.
 *
 * Context: any; fixed once loaded.
 */
void tier_md_meta_usage(const struct tier_md *md, u64 *used, u64 *total);

/**
 * tier_mode_name() - "rw", "ro" or "fail" as shown by status.
 * @mode: the mode.
 *
 * Context: any.
 * Return: a static string.
 */
const char *tier_mode_name(enum tier_md_mode mode);

#endif /* DM_TIER_METADATA_H */
