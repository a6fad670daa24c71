// SPDX-License-Identifier: GPL-2.0
/* pattern.c - ckpt's deterministic block content; see pattern.h. */
#include <endian.h>
#include <string.h>

#include "pattern.h"

#define GOLDEN 0x9e3779b97f4a7c15ULL
#define CHECK_SALT 0x636b70742d686472ULL

/* splitmix64's finaliser: a good 64-bit mixer. */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t ckpt_block_key(uint64_t seed, uint64_t file, uint64_t offset)
{
	uint64_t k = mix64(seed + GOLDEN);

	k = mix64(k ^ (file + 2 * GOLDEN));
	return mix64(k ^ (offset + 3 * GOLDEN));
}

void ckpt_hdr_make(struct ckpt_hdr *h, uint64_t seed, uint64_t file,
		   uint64_t offset)
{
	h->magic = CKPT_MAGIC;
	h->seed = seed;
	h->file = file;
	h->offset = offset;
	h->check = mix64(ckpt_block_key(seed, file, offset) ^ CHECK_SALT);
}

static void put64(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

void ckpt_hdr_encode(const struct ckpt_hdr *h, void *blk)
{
	unsigned char *p = blk;

	put64(p, h->magic);
	put64(p + 8, h->seed);
	put64(p + 16, h->file);
	put64(p + 24, h->offset);
	put64(p + 32, h->check);
}

bool ckpt_hdr_decode(const void *blk, struct ckpt_hdr *h)
{
	const unsigned char *p = blk;
	struct ckpt_hdr want;

	h->magic = get64(p);
	h->seed = get64(p + 8);
	h->file = get64(p + 16);
	h->offset = get64(p + 24);
	h->check = get64(p + 32);
	if (h->magic != CKPT_MAGIC)
		return false;
	ckpt_hdr_make(&want, h->seed, h->file, h->offset);
	return h->check == want.check;
}

/* Payload word @i of a block: splitmix64 stream from the block key. */
static inline uint64_t stream_next(uint64_t *state)
{
	*state += GOLDEN;
	return mix64(*state);
}

void ckpt_fill_block(void *blk, uint64_t seed, uint64_t file, uint64_t offset)
{
	unsigned char *p = blk;
	struct ckpt_hdr h;
	uint64_t state = ckpt_block_key(seed, file, offset);
	unsigned int i;

	ckpt_hdr_make(&h, seed, file, offset);
	ckpt_hdr_encode(&h, p);
	for (i = CKPT_HDR_SIZE; i < CKPT_BLOCK_SIZE; i += 8)
		put64(p + i, stream_next(&state));
}

void ckpt_fill(void *buf, size_t len, uint64_t seed, uint64_t file,
	       uint64_t offset)
{
	unsigned char *p = buf;
	size_t done;

	for (done = 0; done + CKPT_BLOCK_SIZE <= len; done += CKPT_BLOCK_SIZE)
		ckpt_fill_block(p + done, seed, file, offset + done);
}

static bool all_zero(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

static enum ckpt_kind wrong_data(const unsigned char *p, uint32_t byte,
				 struct ckpt_check *out)
{
	out->kind = CKPT_WRONG_DATA;
	out->byte = byte;
	out->zero_tail = all_zero(p + byte, CKPT_BLOCK_SIZE - byte);
	return out->kind;
}

enum ckpt_kind ckpt_check_block(const void *blk, uint64_t seed, uint64_t file,
				uint64_t offset, struct ckpt_check *out)
{
	const unsigned char *p = blk;
	unsigned char want[CKPT_HDR_SIZE];
	struct ckpt_hdr h;
	uint64_t state;
	unsigned int i, j;

	memset(out, 0, sizeof(*out));
	ckpt_hdr_make(&h, seed, file, offset);
	ckpt_hdr_encode(&h, want);
	if (memcmp(p, want, CKPT_HDR_SIZE)) {
		if (all_zero(p, CKPT_BLOCK_SIZE)) {
			out->kind = CKPT_ZEROES;
			return out->kind;
		}
		if (ckpt_hdr_decode(p, &out->found)) {
			out->kind = out->found.seed != seed ? CKPT_OTHER_SEED :
							      CKPT_MISPLACED;
			return out->kind;
		}
		memset(&out->found, 0, sizeof(out->found));
		for (i = 0; p[i] == want[i]; i++)
			;
		return wrong_data(p, i, out);
	}
	state = ckpt_block_key(seed, file, offset);
	for (i = CKPT_HDR_SIZE; i < CKPT_BLOCK_SIZE; i += 8) {
		uint64_t w = stream_next(&state);

		if (get64(p + i) == w)
			continue;
		w = htole64(w);
		for (j = 0; p[i + j] == ((unsigned char *)&w)[j]; j++)
			;
		return wrong_data(p, i + j, out);
	}
	out->kind = CKPT_OK;
	return out->kind;
}

const char *ckpt_kind_name(enum ckpt_kind kind)
{
	switch (kind) {
	case CKPT_OK:
		return "ok";
	case CKPT_WRONG_DATA:
		return "wrong-data";
	case CKPT_MISPLACED:
		return "misplaced";
	case CKPT_OTHER_SEED:
		return "other-seed";
	case CKPT_ZEROES:
		return "zeroes";
	case CKPT_SHORT_FILE:
		return "short-file";
	case CKPT_MISSING_FILE:
		return "missing-file";
	}
	return "unknown";
}
