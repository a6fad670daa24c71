/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-restore.h - tierctl restore: read the JSON of tierctl dump and write
 * it as fresh metadata (labels, both superblock slots, both map copies) to
 * member devices, as thin_restore does with thin_dump's output.
 */
#ifndef DM_TIER_TL_RESTORE_H
#define DM_TIER_TL_RESTORE_H

#include "tl.h"

/**
 * struct tl_dump_ext - one mapped extent of a dump.
 * @vext, @tier, @pext, @flags, @heat, @atime: as printed.
 */
struct tl_dump_ext {
	u64 vext;
	u32 tier;
	u64 pext;
	u32 flags;
	u32 heat;
	u64 atime;
};

/**
 * struct tl_dump - what tierctl dump --json prints (the fields restore
 * uses; paths and map_blocks are recomputed).
 */
struct tl_dump {
	char name[TIER_NAME_LEN];
	u8 uuid[TIER_UUID_LEN];
	u64 generation, commit_time, ctime, extent_shift, virt_extents;
	u64 active_copy, map_blocks, meta_start, flags, compat, incompat,
		ro_compat;
	bool meta_ext;
	u8 meta_uuid[TIER_UUID_LEN];
	u64 meta_dev_sectors;
	struct tier_settings settings;
	u32 nr_tiers;
	struct {
		u8 member_uuid[TIER_UUID_LEN];
		u32 tier_class;
		u64 dev_sectors, data_start, nr_extents, used_extents, flags;
	} tier[TIER_MAX_TIERS];
	struct tl_dump_ext *ext;
	u64 nr_ext;
};

/* Parse @text; TL_OK, or TL_USAGE naming the line and what is wrong. */
int tl_dump_parse(const char *text, size_t len, struct tl_dump *d,
		  struct tl_err *err);
void tl_dump_free(struct tl_dump *d);

/**
 * tl_restore_plan() - check @d (a layout as create makes it or, for a
 * device whose tier list or sizes changed since, one the kernel would load;
 * extents inside the device, no physical extent twice) and fill @f for the
 * writing.
 * @keep_ids: keep the dump's device and member UUIDs (restoring onto the
 *            original devices); otherwise new random ones.
 * @name:     a new name, or NULL for the dump's.
 * Return: TL_OK, TL_USAGE (the dump is not valid) or TL_FAIL.
 */
int tl_restore_plan(const struct tl_dump *d, bool keep_ids, const char *name,
		    struct tier_fresh *f, struct tl_err *err);

/**
 * tl_restore_write() - write the metadata: both map copies with the
 * extents (generation g - 1), the superblock of the dump's generation g and,
 * in the other slot, the same at g - 1 (zeroes when g is 1, as create
 * leaves it), the labels last; then fsync.
 * @fds, @paths: per device index (tiers, [TIER_META_DEV]).
 */
int tl_restore_write(const struct tl_dump *d, const struct tier_fresh *f,
		     const int *fds, const char *const *paths,
		     struct tl_err *err);

#endif /* DM_TIER_TL_RESTORE_H */
