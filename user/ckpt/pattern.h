/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pattern.h - the data ckpt writes and verifies (pure, no I/O).
 *
 * A file is a sequence of 4 KiB blocks. Block content is a deterministic
 * function of (seed, file index, byte offset in the file):
 *
 *   bytes  0..7   magic "dmtCKPT1"              (little-endian u64 fields)
 *   bytes  8..15  seed
 *   bytes 16..23  file index
 *   bytes 24..31  byte offset of the block in its file
 *   bytes 32..39  check: a hash of the four fields above
 *   bytes 40..4095 splitmix64 stream seeded with ckpt_block_key()
 *
 * The header lets a verifier tell a block that belongs elsewhere (another
 * file, offset or run) from damaged data or zeroes. docs/ckpt.md.
 */
#ifndef DM_TIER_CKPT_PATTERN_H
#define DM_TIER_CKPT_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CKPT_BLOCK_SIZE 4096u
#define CKPT_HDR_SIZE 40u
#define CKPT_MAGIC 0x3154504b43746d64ULL /* "dmtCKPT1" little-endian */

struct ckpt_hdr {
	uint64_t magic;
	uint64_t seed;
	uint64_t file;
	uint64_t offset;
	uint64_t check;
};

/* What a block holds compared with what it should hold. */
enum ckpt_kind {
	CKPT_OK = 0,
	CKPT_WRONG_DATA,	/* damaged: first bad byte in ckpt_result.byte */
	CKPT_MISPLACED,		/* intact header of another file/offset */
	CKPT_OTHER_SEED,	/* intact header written with another seed */
	CKPT_ZEROES,		/* the whole block reads as zeroes */
	CKPT_SHORT_FILE,	/* past the end of a file that is too short */
	CKPT_MISSING_FILE,	/* the file does not exist */
};

struct ckpt_check {
	enum ckpt_kind kind;
	uint32_t byte;		/* CKPT_WRONG_DATA: first differing byte */
	bool zero_tail;		/* CKPT_WRONG_DATA: zeroes from @byte on */
	struct ckpt_hdr found;	/* CKPT_MISPLACED / CKPT_OTHER_SEED */
};

/* The per-block key: seeds the payload stream and the header check. */
uint64_t ckpt_block_key(uint64_t seed, uint64_t file, uint64_t offset);

/* Header of block (seed, file, offset), check included. */
void ckpt_hdr_make(struct ckpt_hdr *h, uint64_t seed, uint64_t file,
		   uint64_t offset);
/* Serialise @h into the first CKPT_HDR_SIZE bytes of @blk. */
void ckpt_hdr_encode(const struct ckpt_hdr *h, void *blk);
/* Parse @blk's header into @h; true when magic and check are valid. */
bool ckpt_hdr_decode(const void *blk, struct ckpt_hdr *h);

/* Fill one 4 KiB block, or @len bytes (a multiple of CKPT_BLOCK_SIZE) of
 * consecutive blocks starting at @offset (a multiple of CKPT_BLOCK_SIZE). */
void ckpt_fill_block(void *blk, uint64_t seed, uint64_t file, uint64_t offset);
void ckpt_fill(void *buf, size_t len, uint64_t seed, uint64_t file,
	       uint64_t offset);

/* Classify one block read from (file, offset); returns @out->kind. */
enum ckpt_kind ckpt_check_block(const void *blk, uint64_t seed, uint64_t file,
				uint64_t offset, struct ckpt_check *out);

/* Stable lower-case name of @kind ("ok", "wrong-data", "misplaced", ...). */
const char *ckpt_kind_name(enum ckpt_kind kind);

#endif /* DM_TIER_CKPT_PATTERN_H */
