/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-disk.h - reading and writing metadata blocks of member devices through
 * file descriptors (block devices opened O_DIRECT, or plain files in tests).
 */
#ifndef DM_TIER_TL_DISK_H
#define DM_TIER_TL_DISK_H

#include "tl.h"

/* @nblocks zeroed TIER_BLOCK_SIZE blocks, TIER_BLOCK_SIZE aligned (O_DIRECT);
 * free() it. NULL when out of memory. */
void *tl_block_alloc(size_t nblocks);

/* Whole-buffer pread/pwrite at byte @off, retrying EINTR and short
 * transfers; 0, -errno, or -EIO at end of device. */
int tl_pread_full(int fd, void *buf, size_t len, u64 off);
int tl_pwrite_full(int fd, const void *buf, size_t len, u64 off);

/**
 * tl_read_label() - read block 0 of @fd and decode it.
 * @l:    out; valid when 0 is returned.
 * @terr: out; the failed check when the result is negative and the block
 *        was read (code TIER_E_NONE means the read itself failed).
 * Return: 0 for a valid label, 1 when the block holds no dm-tier label, or
 * the negative error of tier_label_decode() / of the read.
 */
int tl_read_label(int fd, struct tier_label *l, struct tier_err *terr);

/**
 * tl_read_sb() - read both superblock slots at @meta_start and pick the
 * current one (tier_sb_pick()).
 * Return: 0, or a negative errno with @terr (TIER_E_NONE: read error).
 */
int tl_read_sb(int fd, sector_t meta_start, struct tier_sb *sb,
	       struct tier_err *terr);

/* "label: bad checksum (item 0, value 12)" style text of @terr into @buf;
 * "read error: <strerror>" when @terr->code is TIER_E_NONE and @ret < 0. */
const char *tl_tier_err_text(const struct tier_err *terr, int ret, char *buf,
			     size_t len);

#endif /* DM_TIER_TL_DISK_H */
