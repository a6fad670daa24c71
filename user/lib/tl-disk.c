// SPDX-License-Identifier: GPL-2.0
/* libtier: metadata block I/O (see tl-disk.h). */
#include <stdio.h>
#include <unistd.h>

#include "tl-disk.h"

void *tl_block_alloc(size_t nblocks)
{
	void *p;

	if (!nblocks || posix_memalign(&p, TIER_BLOCK_SIZE,
				       nblocks * TIER_BLOCK_SIZE))
		return NULL;
	memset(p, 0, nblocks * TIER_BLOCK_SIZE);
	return p;
}

int tl_pread_full(int fd, void *buf, size_t len, u64 off)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = pread(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

int tl_pwrite_full(int fd, const void *buf, size_t len, u64 off)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = pwrite(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

int tl_read_label(int fd, struct tier_label *l, struct tier_err *terr)
{
	void *blk = tl_block_alloc(1);
	int ret;

	memset(terr, 0, sizeof(*terr));
	if (!blk)
		return -ENOMEM;
	ret = tl_pread_full(fd, blk, TIER_BLOCK_SIZE, 0);
	if (!ret) {
		ret = tier_label_decode(blk, l, terr);
		if (ret == -ENODATA)
			ret = 1;
	}
	free(blk);
	return ret;
}

int tl_read_sb(int fd, sector_t meta_start, struct tier_sb *sb,
	       struct tier_err *terr)
{
	struct tier_sb slots[2];
	struct tier_err e[2];
	int ret[2], slot, r;
	void *blk = tl_block_alloc(1);
	u32 i;

	memset(terr, 0, sizeof(*terr));
	if (!blk)
		return -ENOMEM;
	for (i = 0; i < 2; i++) {
		memset(&e[i], 0, sizeof(e[i]));
		r = tl_pread_full(fd, blk, TIER_BLOCK_SIZE,
				  tier_sb_sector(meta_start, i)
					  << TIER_SECTOR_SHIFT);
		if (r) {
			free(blk);
			return r;
		}
		ret[i] = tier_sb_decode(blk, i, &slots[i], &e[i]);
	}
	free(blk);
	slot = tier_sb_pick(slots, ret, terr);
	if (slot < 0) {
		/* Name the slot's own complaint rather than "none valid". */
		if (ret[1] && e[1].code != TIER_E_NONE)
			*terr = e[1];
		else if (ret[0] && e[0].code != TIER_E_NONE)
			*terr = e[0];
		if (terr->code == TIER_E_NONE)
			terr->code = TIER_E_SB_NONE_VALID;
		return slot;
	}
	*sb = slots[slot];
	return 0;
}

const char *tl_tier_err_text(const struct tier_err *terr, int ret, char *buf,
			     size_t len)
{
	if (terr->code == TIER_E_NONE && ret < 0)
		snprintf(buf, len, "read error: %s", strerror(-ret));
	else
		snprintf(buf, len, "%s", tier_err_str(terr->code));
	return buf;
}
