/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-check.h - offline metadata tools (tierctl check, dump, repair): read
 * every metadata structure of an inactive device through file descriptors
 * (block devices or plain image files), judge it with the pure format code
 * of kernel/core (the kernel's own checks), report each problem with its
 * block, and plan the writes that rebuild what can be rebuilt.
 *
 * Severity follows the kernel's load rules (tier_md_load() in
 * kernel/dm-tier-metadata.c): what makes the kernel refuse the device is an
 * error (damage; an unreadable superblock slot too); what it passes over (a
 * superblock slot that does not decode, which tier_sb_pick() skips, the
 * inactive map copy, which it never loads and rewrites at its first
 * commit) is a warning.
 */
#ifndef DM_TIER_TL_CHECK_H
#define DM_TIER_TL_CHECK_H

#include "tl.h"
#include "extent_map.h"

#define TL_CHK_MAX_DEVS 16

/**
 * struct tl_chk_dev - one member device given to the tools.
 * @path:      for messages.
 * @fd:        open file descriptor (O_DIRECT on block devices is fine: all
 *             I/O is in aligned 4 KiB blocks).
 * @sectors:   current size.
 * @label_ret: tier_label_decode() result (-EIO: unreadable).
 * @label_err: its error.
 * @label:     decoded label (valid when @label_ret is 0).
 * @index:     tier index, TIER_META_DEV, or -1 when not identified.
 */
struct tl_chk_dev {
	const char *path;
	int fd;
	u64 sectors;
	int label_ret;
	struct tier_err label_err;
	struct tier_label label;
	int index;
	/*
	 * Its label's tier index hint was taken by another device: placed by
	 * the superblock's member UUIDs (apply_sb_list()), a crash in a tier
	 * 0 replacement leaves two labels of tier 0.
	 */
	bool dup;
};

enum tl_sev {
	TL_SEV_WARN = 0,	/* the kernel loads the device anyway */
	TL_SEV_ERROR = 1,	/* damage: the kernel refuses it */
};

/**
 * struct tl_problem - one finding.
 * @sev:       enum tl_sev.
 * @dev:       device array index, or -1.
 * @structure: "label", "superblock", "map", "allocator", "extent", "device".
 * @slot:      superblock slot or map copy, -1 when not applicable.
 * @block:     map block index, or -1.
 * @sector:    sector of the block on @dev, or -1.
 * @vext:      virtual extent, or -1.
 * @what:      what is wrong.
 * @fix:       what repair does about it ("" when nothing).
 */
struct tl_problem {
	int sev;
	int dev;
	const char *structure;
	int slot;
	s64 block;
	s64 sector;
	s64 vext;
	char what[320];
	char fix[160];
};

/**
 * struct tl_write - one block repair would write.
 * @dev:         device array index.
 * @sector:      where.
 * @blk:         the content (TIER_BLOCK_SIZE, aligned).
 * @what:        description for the preview.
 * @flush_first: the writes before it must be on the disks before it is
 *               written (a new phase of the repair, docs/FORMAT.md
 *               "Offline"): tl_md_write() flushes their devices first.
 */
struct tl_write {
	int dev;
	u64 sector;
	void *blk;
	char what[200];
	bool flush_first;
};

/**
 * struct tl_md - everything the tools read and concluded.
 * @dev, @nr_devs: the members given.
 * @devof:       device array index per device index (tiers, TIER_META_DEV),
 *               -1 when missing.
 * @uuid, @name, @nr_tiers, @meta_ext, @extent_shift: the device (labels).
 * @have_group:  a valid label named the device.
 * @meta_dev:    device array index of the metadata holder, or -1.
 * @slot_ret, @slot_err, @slot_sb, @slot_zero: both superblock slots.
 * @slot_unreadable: a slot's read failed (not its decode): the kernel
 *               refuses the device, and whether the slot held the newest
 *               commit cannot be known, so repair writes over it only when
 *               forced.
 * @repair_refused: tl_md_plan_repair() planned nothing, and why.
 * @slot_settings_ret: tier_settings_decode() of each valid slot.
 * @sb_slot:     slot tier_sb_pick() chose, or -1.
 * @sb_fatal:    no superblock can be used (and repair must not invent one:
 *               newer version or features).
 * @sb_rebuilt:  @sb was rebuilt from the labels and the map (repair).
 * @sb:          the superblock the kernel would use (or the rebuilt one).
 * @nr_blocks:   map blocks the kernel reads (covering virt_extents).
 * @map:         both copies, map_blocks blocks each (NULL when no sb).
 * @blk_ret:     tier_map_block_check() result per block per copy.
 * @blk_err:     its error.
 * @used:        extents mapped per tier by the active copy's valid blocks.
 * @nr_doubles:  physical extents mapped twice.
 * @problems:    findings; @nr_problems, @nr_errors, @nr_warnings.
 * @writes:      planned repair writes (tl_md_plan_repair()).
 * @nr_written:  of them, written by tl_md_write() (fewer than @nr_writes
 *               when a write failed: the device is then partly repaired).
 */
struct tl_md {
	struct tl_chk_dev dev[TL_CHK_MAX_DEVS];
	u32 nr_devs;
	int devof[TIER_MAX_DEVS];
	u8 uuid[TIER_UUID_LEN];
	char name[TIER_NAME_LEN];
	u32 nr_tiers;
	bool meta_ext;
	u32 extent_shift;
	bool have_group;
	int meta_dev;
	int slot_ret[2];
	struct tier_err slot_err[2];
	struct tier_sb slot_sb[2];
	bool slot_zero[2];
	bool slot_unreadable[2];
	const char *repair_refused;
	int slot_settings_ret[2];
	int sb_slot;
	bool sb_fatal;
	bool sb_rebuilt;
	struct tier_sb sb;
	u64 nr_blocks;
	u8 *map[2];
	int *blk_ret[2];
	struct tier_err *blk_err[2];
	u64 used[TIER_MAX_TIERS];
	u64 nr_doubles;
	struct tl_problem *problems;
	u32 nr_problems, nr_errors, nr_warnings;
	struct tl_write *writes;
	u32 nr_writes;
	u32 nr_written;
	u32 nr_losses;
};

/* Zero @md; then fill dev[] (path, fd, sectors) and nr_devs. */
void tl_md_init(struct tl_md *md);
void tl_md_free(struct tl_md *md);

/**
 * tl_md_load() - read and check everything: labels, both superblock slots,
 * label against superblock, both map copies, the allocator (used counts,
 * double use, extents past a tier), heat and flags.
 * Return: TL_OK (problems, if any, are in @md), TL_FAIL when the check
 * itself could not run (out of memory: @err).
 */
int tl_md_load(struct tl_md *md, struct tl_err *err);

/* Whether the device can be dumped (a superblock is usable). */
bool tl_md_dumpable(const struct tl_md *md);

/**
 * tl_md_plan_repair() - decide the writes that rebuild what can be rebuilt
 * (see docs/tierctl.md "check, dump, restore, repair"). Fills @md->writes;
 * problems that stay are those without a fix.
 * @force: write over a superblock slot that cannot be read (the commit it
 *         may hold is lost); without it, such a slot makes the plan empty
 *         (@md->repair_refused says why).
 * Return: TL_OK or TL_FAIL (out of memory).
 */
int tl_md_plan_repair(struct tl_md *md, bool force, struct tl_err *err);

/**
 * tl_md_write() - perform the planned writes in order, as a kernel commit
 * does: the map copy the new superblock makes active, flush, the
 * superblock, flush, the other copy, flush, the labels, flush (each write
 * marked flush_first is preceded by an fsync of the devices written
 * since the last one; after a failed write too, what was written is
 * flushed, and @md->nr_written counts it).
 * Return: TL_OK or TL_FAIL naming the device and sector.
 */
int tl_md_write(struct tl_md *md, struct tl_err *err);

/* Output through tl-print (text or JSON, one path). */
void tl_md_print_check(const struct tl_md *md);
void tl_md_print_dump(const struct tl_md *md);
/* @after: the check after writing, or NULL. */
void tl_md_print_plan(const struct tl_md *md, bool written,
		      const struct tl_md *after);

/* "tier 1", "metadata device", "unidentified" for device array index. */
const char *tl_md_role(const struct tl_md *md, int dev, char *buf, size_t len);

#endif /* DM_TIER_TL_CHECK_H */
