// SPDX-License-Identifier: GPL-2.0
/* Unit tests for kernel/core/format.c: on-disk format v1 (label, superblock,
 * map blocks), layout computation and fresh metadata. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "format.h"
#include "extent_map.h"
#include "alloc.h"

#define GiB_SECTORS (1ULL << 21)
#define MiB_SECTORS 2048ULL

static u8 blk[TIER_BLOCK_SIZE] __attribute__((aligned(8)));

static void reseal(void *b)
{
	*(__le32 *)b = cpu_to_le32(tier_block_csum(b));
}

static void expect_err(int ret, int want_ret, const struct tier_err *err,
		       enum tier_err_code want_code, const char *what)
{
	if (ret != want_ret || err->code != want_code)
		fail_msg("%s: ret %d code %d (%s), want %d code %d (%s)", what,
			 ret, err->code, tier_err_str(err->code), want_ret,
			 want_code, tier_err_str(want_code));
}

/* ---- generic ------------------------------------------------------------ */

static void test_offsets(void **state)
{
	(void)state;
	assert_int_equal(offsetof(struct tier_label_disk, name), 0x38);
	assert_int_equal(offsetof(struct tier_label_disk, tier_index), 0x78);
	assert_int_equal(offsetof(struct tier_label_disk, ctime), 0xb8);
	assert_int_equal(offsetof(struct tier_label_disk, reserved), 0xc0);
	assert_int_equal(offsetof(struct tier_sb_disk, generation), 0x20);
	assert_int_equal(offsetof(struct tier_sb_disk, map_start), 0x58);
	assert_int_equal(offsetof(struct tier_sb_disk, meta_uuid), 0x90);
	assert_int_equal(offsetof(struct tier_sb_disk, tier), 0x100);
	assert_int_equal(offsetof(struct tier_sb_disk, reserved2), 0x300);
	assert_int_equal(offsetof(struct tier_sb_tier_disk, member_uuid),
			 0x28);
	assert_int_equal(offsetof(struct tier_map_block_disk, entry), 0x20);
	assert_int_equal(TIER_MAP_ENTRIES, 254);
}

static void test_csum(void **state)
{
	static const char check[] = "123456789";
	u32 c;

	(void)state;
	/* The standard CRC-32C check value (with final inversion). */
	c = ~tier_crc32c(~0U, check, 9);
	assert_int_equal(c, 0xe3069283);
	memset(blk, 0, sizeof(blk));
	assert_int_equal(tier_block_csum(blk),
			 tier_crc32c(~0U, blk + 4, TIER_BLOCK_SIZE - 4));
	/* The csum field itself is excluded. */
	blk[0] = 0xff;
	assert_int_equal(tier_block_csum(blk),
			 tier_crc32c(~0U, blk + 4, TIER_BLOCK_SIZE - 4));
	assert_int_equal(tier_uuid_csum(blk + 4),
			 tier_crc32c(~0U, blk + 4, TIER_UUID_LEN));
}

static void test_err_str(void **state)
{
	struct tier_err err;
	int c;

	(void)state;
	for (c = 0; c < TIER_E_NR_CODES; c++) {
		const char *s = tier_err_str(c);
		int ret;

		assert_non_null(s);
		assert_true(strlen(s) > 0);
		ret = tier_err_set(&err, c, 7, 9);
		assert_int_equal(err.code, c);
		assert_int_equal(err.item, 7);
		assert_int_equal(err.value, 9);
		if (c == TIER_E_NONE)
			assert_int_equal(ret, 0);
		else
			assert_true(ret < 0);
	}
	assert_string_equal(tier_err_str(TIER_E_NR_CODES), "unknown error");
	assert_string_equal(tier_err_str(-1), "unknown error");
	assert_int_equal(tier_err_set(NULL, TIER_E_LABEL_CSUM, 0, 0),
			 -EBADMSG);
	assert_int_equal(tier_err_set(NULL, TIER_E_NR_CODES, 0, 0), -EINVAL);
	assert_int_equal(tier_map_blocks_for(0), 0);
	assert_int_equal(tier_map_blocks_for(1), 1);
	assert_int_equal(tier_map_blocks_for(254), 1);
	assert_int_equal(tier_map_blocks_for(255), 2);
	assert_int_equal(tier_max_virt_extents(7), (1ULL << 48) - 1);
	assert_int_equal(tier_max_virt_extents(17), (1ULL << 38) - 1);
}

/* ---- layout ------------------------------------------------------------- */

static struct tier_layout_req req1(sector_t size, u32 shift)
{
	struct tier_layout_req r;

	memset(&r, 0, sizeof(r));
	r.nr_tiers = 1;
	r.extent_shift = shift;
	r.dev_sectors[0] = size;
	return r;
}

static void test_layout_one_tier(void **state)
{
	struct tier_layout_req r = req1(10 * GiB_SECTORS, 11);
	struct tier_layout lo;
	struct tier_err err = { 0 };
	u64 raw = 10 * 1024;

	(void)state;
	assert_int_equal(tier_layout_compute(&r, &lo, &err), 0);
	assert_int_equal(lo.nr_tiers, 1);
	assert_int_equal(lo.extent_shift, 11);
	assert_int_equal(lo.meta_ext, 0);
	assert_int_equal(lo.map_blocks, (raw + 253) / 254);
	assert_int_equal(lo.meta_start, 8);
	assert_int_equal(lo.meta_blocks, 2 + 2 * lo.map_blocks);
	assert_int_equal(lo.map_start[0], 8 + 16);
	assert_int_equal(lo.map_start[1], 24 + 8 * lo.map_blocks);
	assert_int_equal(lo.tier[0].data_start, 2048);	/* 1+2+82 blocks */
	assert_int_equal(lo.tier[0].data_start % TIER_DATA_ALIGN, 0);
	assert_true(lo.map_start[1] + 8 * lo.map_blocks <=
		    lo.tier[0].data_start);
	assert_int_equal(lo.tier[0].nr_extents, raw - 1);
	assert_int_equal(lo.virt_extents, raw - 1);
	assert_int_equal(lo.tier[0].dev_sectors, 10 * GiB_SECTORS);
}

static void test_layout_multi_tier(void **state)
{
	struct tier_layout_req r;
	struct tier_layout lo;
	u64 raw;
	u32 i;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.nr_tiers = 3;
	r.extent_shift = 11;
	r.dev_sectors[0] = 100 * GiB_SECTORS;
	r.dev_sectors[1] = 200 * GiB_SECTORS + 5;
	r.dev_sectors[2] = 1000 * GiB_SECTORS;
	assert_int_equal(tier_layout_compute(&r, &lo, NULL), 0);
	raw = (100 + 200 + 1000) * 1024;
	assert_int_equal(lo.map_blocks, (raw + 253) / 254);
	assert_true(lo.tier[0].data_start >= 8 + 8 * lo.meta_blocks);
	assert_int_equal(lo.tier[0].data_start % 2048, 0);
	assert_int_equal(lo.tier[0].nr_extents,
			 (100 * GiB_SECTORS - lo.tier[0].data_start) >> 11);
	for (i = 1; i < 3; i++)
		assert_int_equal(lo.tier[i].data_start, 2048);
	assert_int_equal(lo.tier[1].nr_extents, 200 * 1024 - 1);
	assert_int_equal(lo.tier[2].nr_extents, 1000 * 1024 - 1);
	assert_int_equal(lo.virt_extents, lo.tier[0].nr_extents +
			 lo.tier[1].nr_extents + lo.tier[2].nr_extents);
}

static void test_layout_meta_dev(void **state)
{
	struct tier_layout_req r = req1(GiB_SECTORS, 11);
	struct tier_layout lo;
	struct tier_err err = { 0 };
	int ret;

	(void)state;
	r.meta_dev_sectors = 64 * MiB_SECTORS;
	assert_int_equal(tier_layout_compute(&r, &lo, &err), 0);
	assert_int_equal(lo.meta_ext, 1);
	assert_int_equal(lo.meta_dev_sectors, 64 * MiB_SECTORS);
	assert_int_equal(lo.tier[0].data_start, 2048);
	assert_int_equal(lo.tier[0].nr_extents, 1023);
	assert_int_equal(lo.map_blocks, (1024 + 253) / 254);

	/* Exactly big enough, then one sector short. */
	r.meta_dev_sectors = 8 + 8 * (2 + 2 * lo.map_blocks);
	assert_int_equal(tier_layout_compute(&r, &lo, &err), 0);
	r.meta_dev_sectors--;
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_META_TOO_SMALL, "meta");
	assert_int_equal(err.item, TIER_META_DEV);
}

static void test_layout_extent_sizes(void **state)
{
	struct tier_layout_req r;
	struct tier_layout lo;
	struct tier_err err = { 0 };
	int ret;

	(void)state;
	r = req1(GiB_SECTORS, 7);	/* 64 KiB */
	assert_int_equal(tier_layout_compute(&r, &lo, NULL), 0);
	assert_int_equal(lo.tier[0].nr_extents,
			 (GiB_SECTORS - lo.tier[0].data_start) >> 7);
	r = req1(GiB_SECTORS, 17);	/* 64 MiB */
	assert_int_equal(tier_layout_compute(&r, &lo, NULL), 0);
	assert_int_equal(lo.tier[0].nr_extents, 15);
	assert_int_equal(lo.map_blocks, 1);

	r = req1(GiB_SECTORS, 6);
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_EXTENT_SHIFT, "shift 6");
	r = req1(GiB_SECTORS, 18);
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_EXTENT_SHIFT, "shift 18");
}

static void test_layout_nr_tiers(void **state)
{
	struct tier_layout_req r = req1(GiB_SECTORS, 11);
	struct tier_layout lo;
	struct tier_err err = { 0 };
	u32 i;
	int ret;

	(void)state;
	r.nr_tiers = 0;
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_NR_TIERS, "0 tiers");
	r.nr_tiers = 9;
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_NR_TIERS, "9 tiers");

	r.nr_tiers = 8;
	for (i = 0; i < 8; i++)
		r.dev_sectors[i] = (i + 1) * GiB_SECTORS;
	assert_int_equal(tier_layout_compute(&r, &lo, &err), 0);
	assert_int_equal(lo.map_blocks, (36 * 1024 + 253) / 254);
	for (i = 1; i < 8; i++)
		assert_int_equal(lo.tier[i].nr_extents, (i + 1) * 1024 - 1);
}

static void test_layout_tiny(void **state)
{
	struct tier_layout_req r;
	struct tier_layout lo;
	struct tier_err err = { 0 };
	int ret;

	(void)state;
	/* Tier 0 with metadata: label + 2 slots + 2 x 1 map block, 1 MiB. */
	r = req1(2048 + 2048, 11);
	assert_int_equal(tier_layout_compute(&r, &lo, &err), 0);
	assert_int_equal(lo.map_blocks, 1);
	assert_int_equal(lo.tier[0].nr_extents, 1);
	assert_int_equal(lo.virt_extents, 1);
	r = req1(2048 + 2047, 11);
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_TIER_TOO_SMALL, "tiny");
	assert_int_equal(err.item, 0);
	r = req1(1000, 7);
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_META_TOO_SMALL, "meta");
	assert_int_equal(err.item, 0);
	r = req1(0, 7);
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_META_TOO_SMALL, "empty");

	/* A second tier too small for one extent. */
	r = req1(GiB_SECTORS, 11);
	r.nr_tiers = 2;
	r.dev_sectors[1] = 2048 + 100;
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_TIER_TOO_SMALL, "tier1");
	assert_int_equal(err.item, 1);
	assert_int_equal(err.value, 2148);
	r.dev_sectors[1] = 100;
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_TIER_TOO_SMALL, "tier1b");
}

static void test_layout_virt(void **state)
{
	struct tier_layout_req r = req1(GiB_SECTORS, 11);
	struct tier_layout lo, before;
	struct tier_err err = { 0 };
	int ret;

	(void)state;
	assert_int_equal(tier_layout_compute(&r, &lo, NULL), 0);
	assert_int_equal(lo.virt_extents, 1023);

	r.virt_sectors = 1023ULL << 11;
	assert_int_equal(tier_layout_compute(&r, &lo, NULL), 0);
	assert_int_equal(lo.virt_extents, 1023);
	r.virt_sectors = 100ULL << 11;
	assert_int_equal(tier_layout_compute(&r, &lo, NULL), 0);
	assert_int_equal(lo.virt_extents, 100);
	/* The map is still sized for the whole raw capacity. */
	assert_int_equal(lo.map_blocks, (1024 + 253) / 254);

	before = lo;
	r.virt_sectors = 1024ULL << 11;
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -ENOSPC, &err, TIER_E_LAYOUT_VIRT_TOO_BIG, "virt");
	assert_int_equal(err.value, 1024);
	assert_memory_equal(&lo, &before, sizeof(lo));	/* untouched */
	r.virt_sectors = (100ULL << 11) + 1;
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_VIRT_UNALIGNED, "unal");
	r.virt_sectors = 1ULL << 63;
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -E2BIG, &err, TIER_E_LAYOUT_VIRT_LIMIT, "limit");
}

static void test_layout_huge(void **state)
{
	struct tier_layout_req r;
	struct tier_layout lo;
	struct tier_err err = { 0 };
	u32 i;
	int ret;

	(void)state;
	/* Metadata for 2^48 extents does not fit a 1 GiB tier 0. */
	r = req1(GiB_SECTORS, 7);
	r.nr_tiers = 2;
	r.dev_sectors[1] = 2048 + (1ULL << 55);
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_META_TOO_SMALL, "meta");
	assert_int_equal(err.item, 0);
	/* A tier with more than 2^48 extents. */
	r.meta_dev_sectors = 1ULL << 60;
	r.dev_sectors[1] = 2048 + (1ULL << 55) + (1ULL << 7);
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -E2BIG, &err, TIER_E_LAYOUT_TIER_TOO_BIG, "pexts");
	assert_int_equal(err.item, 1);
	r.dev_sectors[1] = 2048 + (1ULL << 55);	/* exactly 2^48 */
	r.virt_sectors = 1ULL << 40;
	assert_int_equal(tier_layout_compute(&r, &lo, &err), 0);
	assert_int_equal(lo.tier[1].nr_extents, 1ULL << 48);
	/* ... but all of it exceeds what a 64-bit byte size can hold. */
	r.virt_sectors = 0;
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -E2BIG, &err, TIER_E_LAYOUT_VIRT_LIMIT, "sum");

	/* Eight huge tiers at 64 MiB extents: no overflow anywhere. */
	memset(&r, 0, sizeof(r));
	r.nr_tiers = 8;
	r.extent_shift = 17;
	for (i = 0; i < 8; i++)
		r.dev_sectors[i] = U64_MAX;
	ret = tier_layout_compute(&r, &lo, &err);
	expect_err(ret, -E2BIG, &err, TIER_E_LAYOUT_VIRT_LIMIT, "8 huge");
	r.virt_sectors = 1ULL << 50;
	assert_int_equal(tier_layout_compute(&r, &lo, &err), 0);
	assert_int_equal(lo.tier[7].nr_extents, (U64_MAX - 2048) >> 17);
}

static void test_layout_1m_extents(void **state)
{
	struct tier_layout_req r = req1((1ULL << 20) * 2048 + 64 * 2048, 11);
	struct tier_layout lo;

	(void)state;
	r.virt_sectors = (1ULL << 20) << 11;	/* 1 TiB in 1 MiB extents */
	assert_int_equal(tier_layout_compute(&r, &lo, NULL), 0);
	assert_int_equal(lo.virt_extents, 1ULL << 20);
	assert_int_equal(lo.map_blocks, ((1ULL << 20) + 64 + 253) / 254);
	assert_true(lo.tier[0].nr_extents >= 1ULL << 20);
}

/* ---- fresh helpers ------------------------------------------------------ */

static void fresh_setup(struct tier_fresh *f, u32 nr, const sector_t *sizes,
			sector_t meta, u32 shift)
{
	struct tier_layout_req r;
	u32 i;

	memset(&r, 0, sizeof(r));
	r.nr_tiers = nr;
	r.extent_shift = shift;
	for (i = 0; i < nr; i++)
		r.dev_sectors[i] = sizes[i];
	r.meta_dev_sectors = meta;
	memset(f, 0, sizeof(*f));
	assert_int_equal(tier_layout_compute(&r, &f->lo, NULL), 0);
	memset(f->uuid, 0x11, TIER_UUID_LEN);
	for (i = 0; i < TIER_MAX_DEVS; i++)
		memset(f->member_uuid[i], 0x20 + i, TIER_UUID_LEN);
	strcpy(f->name, "fast0");
	for (i = 0; i < nr; i++)
		f->tier_class[i] = i == 0 ? TIER_CLASS_NVME : TIER_CLASS_NVMF;
	f->ctime = 1700000000;
	assert_int_equal(tier_fresh_check(f, NULL), 0);
}

static const sector_t sizes3[] = { 2 * GiB_SECTORS, GiB_SECTORS,
				   4 * GiB_SECTORS };

/* ---- label -------------------------------------------------------------- */

static void label_of(struct tier_label *l, u32 dev, int meta_ext)
{
	struct tier_fresh f;

	fresh_setup(&f, 3, sizes3, meta_ext ? 64 * MiB_SECTORS : 0, 11);
	tier_fresh_label(&f, dev, l);
}

static void test_label_roundtrip(void **state)
{
	struct tier_label l, d;
	struct tier_err err = { 0 };
	int ext;
	u32 dev;

	(void)state;
	for (ext = 0; ext < 2; ext++) {
		for (dev = 0; dev < TIER_MAX_DEVS; dev++) {
			if (dev >= 3 && dev != TIER_META_DEV)
				continue;
			if (dev == TIER_META_DEV && !ext)
				continue;
			label_of(&l, dev, ext);
			tier_label_encode(&l, blk);
			memset(&d, 0xa5, sizeof(d));
			assert_int_equal(tier_label_decode(blk, &d, &err), 0);
			assert_memory_equal(&l, &d, sizeof(l));
		}
	}
	label_of(&l, 0, 0);
	assert_int_equal(l.flags, TIER_LABEL_F_META);
	assert_int_equal(l.meta_start, 8);
	assert_string_equal(l.name, "fast0");
	label_of(&l, 1, 0);
	assert_int_equal(l.flags, 0);
	assert_int_equal(l.meta_blocks, 0);
	label_of(&l, 0, 1);
	assert_int_equal(l.flags, TIER_LABEL_F_META_EXT);
	label_of(&l, TIER_META_DEV, 1);
	assert_int_equal(l.flags, TIER_LABEL_F_META | TIER_LABEL_F_META_EXT);
	assert_int_equal(l.tier_class, TIER_CLASS_META);
	assert_int_equal(l.nr_extents, 0);
	/* Encoded name is NUL padded; magic is the documented one. */
	tier_label_encode(&l, blk);
	assert_memory_equal(blk + 8, "DMTIERLB", 8);
	assert_int_equal(blk[0x38 + 5], 0);
	assert_int_equal(blk[0x38 + 63], 0);
}

/* Flipping any single bit is detected: by the magic check inside the magic
 * field, by the checksum everywhere else. */
static void bitflip_all(int (*decode)(const void *b, struct tier_err *e),
			size_t magic_off, size_t magic_len,
			enum tier_err_code magic_code,
			enum tier_err_code csum_code)
{
	struct tier_err err;
	size_t i;
	int ret;

	for (i = 0; i < TIER_BLOCK_SIZE; i++) {
		bool in_magic = i >= magic_off && i < magic_off + magic_len;

		blk[i] ^= 1 << (i & 7);
		memset(&err, 0, sizeof(err));
		ret = decode(blk, &err);
		if (ret >= 0 ||
		    err.code != (in_magic ? magic_code : csum_code))
			fail_msg("flip at byte %zu: ret %d code %s", i, ret,
				 tier_err_str(err.code));
		blk[i] ^= 1 << (i & 7);
	}
	assert_int_equal(decode(blk, &err), 0);
}

static int decode_label(const void *b, struct tier_err *e)
{
	struct tier_label l;

	return tier_label_decode(b, &l, e);
}

static void test_label_bitflip(void **state)
{
	struct tier_label l;

	(void)state;
	label_of(&l, 0, 0);
	tier_label_encode(&l, blk);
	bitflip_all(decode_label, 8, 8, TIER_E_LABEL_MAGIC, TIER_E_LABEL_CSUM);
}

static void test_label_header(void **state)
{
	struct tier_label_disk *d = (void *)blk;
	struct tier_label l, out;
	struct tier_err err = { 0 };
	int ret;

	(void)state;
	memset(blk, 0, sizeof(blk));
	ret = tier_label_decode(blk, &out, &err);
	expect_err(ret, -ENODATA, &err, TIER_E_LABEL_MAGIC, "zero block");
	assert_int_equal(tier_label_decode(blk, &out, NULL), -ENODATA);

	label_of(&l, 0, 0);
	tier_label_encode(&l, blk);
	d->magic = cpu_to_le64(TIER_SB_MAGIC);
	reseal(blk);
	ret = tier_label_decode(blk, &out, &err);
	expect_err(ret, -ENODATA, &err, TIER_E_LABEL_MAGIC, "sb magic");

	tier_label_encode(&l, blk);
	d->version = cpu_to_le32(2);
	reseal(blk);
	ret = tier_label_decode(blk, &out, &err);
	expect_err(ret, -EPROTO, &err, TIER_E_LABEL_VERSION, "version 2");
	assert_int_equal(err.value, 2);
	d->version = 0;
	reseal(blk);
	ret = tier_label_decode(blk, &out, &err);
	expect_err(ret, -EPROTO, &err, TIER_E_LABEL_VERSION, "version 0");

	tier_label_encode(&l, blk);
	d->flags = cpu_to_le64(TIER_LABEL_F_META | BIT_ULL(7));
	reseal(blk);
	ret = tier_label_decode(blk, &out, &err);
	expect_err(ret, -EOPNOTSUPP, &err, TIER_E_LABEL_FLAGS, "flags");

	/* Name not NUL padded / not terminated. */
	tier_label_encode(&l, blk);
	d->name[10] = 'x';
	reseal(blk);
	ret = tier_label_decode(blk, &out, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_LABEL_NAME, "padding");
	memset(d->name, 'a', TIER_NAME_LEN);
	reseal(blk);
	ret = tier_label_decode(blk, &out, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_LABEL_NAME, "no NUL");
	/* Reserved bytes are ignored. */
	tier_label_encode(&l, blk);
	d->reserved[100] = 1;
	reseal(blk);
	assert_int_equal(tier_label_decode(blk, &out, &err), 0);
}

struct label_case {
	const char *what;
	u32 dev;
	int meta_ext;
	void (*mutate)(struct tier_label *l);
	enum tier_err_code code;
};

#define MUT(name, body) \
	static void name(struct tier_label *l) { body; }
MUT(m_shift_lo, l->extent_shift = 6)
MUT(m_shift_hi, l->extent_shift = 18)
MUT(m_tiers_0, l->nr_tiers = 0)
MUT(m_tiers_9, l->nr_tiers = 9)
MUT(m_index, l->tier_index = 3)
MUT(m_index_7, l->tier_index = 7)
MUT(m_class_99, l->tier_class = 99)
MUT(m_class_mem, l->tier_class = TIER_CLASS_MEM)
MUT(m_class_meta, l->tier_class = TIER_CLASS_META)
MUT(m_class_nvme, l->tier_class = TIER_CLASS_NVME)
MUT(m_name_empty, memset(l->name, 0, sizeof(l->name)))
MUT(m_name_slash, strcpy(l->name, "a/b"))
MUT(m_name_space, strcpy(l->name, "a b"))
MUT(m_name_ctl, strcpy(l->name, "a\tb"))
MUT(m_name_hi, strcpy(l->name, "a\x80"))
MUT(m_flags_none, l->flags = 0)
MUT(m_flags_both, l->flags = TIER_LABEL_F_META | TIER_LABEL_F_META_EXT)
MUT(m_flags_meta, l->flags |= TIER_LABEL_F_META)
MUT(m_flags_noext, l->flags = TIER_LABEL_F_META)
MUT(m_flags_nometa, l->flags = TIER_LABEL_F_META_EXT)
MUT(m_meta_start_0, l->meta_start = 0)
MUT(m_meta_blocks_0, l->meta_blocks = 0)
MUT(m_meta_blocks_big, l->meta_blocks = U64_MAX)
MUT(m_meta_overlap, l->meta_blocks = l->data_start / 8)
MUT(m_meta_past, l->meta_start = l->data_start + 8)
MUT(m_meta_stray, l->meta_start = 8)
MUT(m_meta_stray2, l->meta_blocks = 1)
MUT(m_metadev_small, l->dev_sectors = 8 + 8 * l->meta_blocks - 1)
MUT(m_data_0, l->data_start = 0)
MUT(m_data_4, l->data_start = 4)
MUT(m_data_unal, l->data_start = 2049)
MUT(m_data_end, l->data_start = l->dev_sectors)
MUT(m_data_meta, l->data_start = 2048)
MUT(m_nr_0, l->nr_extents = 0)
MUT(m_nr_fit, l->nr_extents++)
MUT(m_nr_huge, l->nr_extents = TIER_MAX_PEXTS + 1)
MUT(m_nr_meta, l->nr_extents = 1)
MUT(m_virt_0, l->virt_extents = 0)
MUT(m_virt_big, l->virt_extents = 1ULL << 44)

static const struct label_case label_cases[] = {
	{ "shift 6", 1, 0, m_shift_lo, TIER_E_LABEL_EXTENT_SHIFT },
	{ "shift 18", 1, 0, m_shift_hi, TIER_E_LABEL_EXTENT_SHIFT },
	{ "0 tiers", 1, 0, m_tiers_0, TIER_E_LABEL_NR_TIERS },
	{ "9 tiers", 1, 0, m_tiers_9, TIER_E_LABEL_NR_TIERS },
	{ "index 3 of 3", 1, 0, m_index, TIER_E_LABEL_TIER_INDEX },
	{ "index 7 of 3", 1, 0, m_index_7, TIER_E_LABEL_TIER_INDEX },
	{ "class 99", 1, 0, m_class_99, TIER_E_LABEL_CLASS },
	{ "class mem", 1, 0, m_class_mem, TIER_E_LABEL_CLASS },
	{ "tier with class meta", 1, 0, m_class_meta, TIER_E_LABEL_CLASS },
	{ "meta dev with class nvme", TIER_META_DEV, 1, m_class_nvme,
	  TIER_E_LABEL_CLASS },
	{ "empty name", 1, 0, m_name_empty, TIER_E_LABEL_NAME },
	{ "name with /", 1, 0, m_name_slash, TIER_E_LABEL_NAME },
	{ "name with blank", 1, 0, m_name_space, TIER_E_LABEL_NAME },
	{ "name with tab", 1, 0, m_name_ctl, TIER_E_LABEL_NAME },
	{ "name with 8-bit", 1, 0, m_name_hi, TIER_E_LABEL_NAME },
	{ "tier 0 holds nothing", 0, 0, m_flags_none, TIER_E_LABEL_META },
	{ "tier 0 both flags", 0, 0, m_flags_both, TIER_E_LABEL_META },
	{ "tier 1 holds meta", 1, 0, m_flags_meta, TIER_E_LABEL_META },
	{ "meta dev without ext", TIER_META_DEV, 1, m_flags_noext,
	  TIER_E_LABEL_META },
	{ "meta dev without meta", TIER_META_DEV, 1, m_flags_nometa,
	  TIER_E_LABEL_META },
	{ "meta_start 0", 0, 0, m_meta_start_0, TIER_E_LABEL_META },
	{ "meta_blocks 0", 0, 0, m_meta_blocks_0, TIER_E_LABEL_META },
	{ "meta_blocks huge", 0, 0, m_meta_blocks_big, TIER_E_LABEL_META },
	{ "meta overlaps data", 0, 0, m_meta_overlap, TIER_E_LABEL_META },
	{ "meta_start past data", 0, 0, m_meta_past, TIER_E_LABEL_META },
	{ "meta_start on tier 1", 1, 0, m_meta_stray, TIER_E_LABEL_META },
	{ "meta_blocks on tier 1", 1, 0, m_meta_stray2, TIER_E_LABEL_META },
	{ "meta dev too small", TIER_META_DEV, 1, m_metadev_small,
	  TIER_E_LABEL_META },
	{ "data_start 0", 1, 0, m_data_0, TIER_E_LABEL_DATA_START },
	{ "data_start 4", 1, 0, m_data_4, TIER_E_LABEL_DATA_START },
	{ "data_start unaligned", 1, 0, m_data_unal, TIER_E_LABEL_DATA_START },
	{ "data_start at end", 1, 0, m_data_end, TIER_E_LABEL_DATA_START },
	{ "meta dev data_start", TIER_META_DEV, 1, m_data_meta,
	  TIER_E_LABEL_DATA_START },
	{ "nr_extents 0", 1, 0, m_nr_0, TIER_E_LABEL_NR_EXTENTS },
	{ "nr_extents past end", 1, 0, m_nr_fit, TIER_E_LABEL_NR_EXTENTS },
	{ "nr_extents > 2^48", 1, 0, m_nr_huge, TIER_E_LABEL_NR_EXTENTS },
	{ "meta dev nr_extents", TIER_META_DEV, 1, m_nr_meta,
	  TIER_E_LABEL_NR_EXTENTS },
	{ "virt 0", 1, 0, m_virt_0, TIER_E_LABEL_VIRT_EXTENTS },
	{ "virt too big", 1, 0, m_virt_big, TIER_E_LABEL_VIRT_EXTENTS },
};

static void test_label_fields(void **state)
{
	struct tier_label l, out;
	struct tier_err err;
	size_t i;
	int ret;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(label_cases); i++) {
		const struct label_case *c = &label_cases[i];

		label_of(&l, c->dev, c->meta_ext);
		c->mutate(&l);
		tier_label_encode(&l, blk);
		memset(&err, 0, sizeof(err));
		memset(&out, 0x5a, sizeof(out));
		ret = tier_label_decode(blk, &out, &err);
		if (ret != -EUCLEAN || err.code != c->code)
			fail_msg("%s: ret %d code %s, want %s", c->what, ret,
				 tier_err_str(err.code), tier_err_str(c->code));
		if (out.flags != 0x5a5a5a5a5a5a5a5aULL)
			fail_msg("%s: output written on error", c->what);
	}
}

static void test_name_valid(void **state)
{
	char longname[80];

	(void)state;
	assert_true(tier_name_valid("a"));
	assert_true(tier_name_valid("vol-1_fast.x~"));
	assert_false(tier_name_valid(""));
	assert_false(tier_name_valid("a/b"));
	assert_false(tier_name_valid(" a"));
	assert_false(tier_name_valid("a\x7f"));
	memset(longname, 'x', sizeof(longname));
	longname[63] = '\0';
	assert_true(tier_name_valid(longname));
	longname[63] = 'x';
	longname[64] = '\0';
	assert_false(tier_name_valid(longname));
}

/* ---- superblock --------------------------------------------------------- */

static void sb_of(struct tier_sb *sb, int meta_ext)
{
	struct tier_fresh f;

	fresh_setup(&f, 3, sizes3, meta_ext ? 64 * MiB_SECTORS : 0, 11);
	tier_fresh_sb(&f, sb);
}

static void test_sb_roundtrip(void **state)
{
	struct tier_sb sb, out;
	struct tier_err err = { 0 };
	int ext;

	(void)state;
	for (ext = 0; ext < 2; ext++) {
		sb_of(&sb, ext);
		assert_int_equal(sb.generation, 1);
		assert_int_equal(sb.active_copy, 0);
		assert_int_equal(!!(sb.flags & TIER_SB_F_META_EXT), ext);
		tier_sb_encode(&sb, blk);
		memset(&out, 0xa5, sizeof(out));
		assert_int_equal(tier_sb_decode(blk, 1, &out, &err), 0);
		assert_memory_equal(&sb, &out, sizeof(sb));
		/* Next generation goes to the other slot. */
		sb.generation = 2;
		sb.active_copy = 1;
		sb.commit_time = 1700000100;
		sb.tier[2].used_extents = 7;
		sb.tier[1].flags = 0x80;	/* preserved */
		tier_sb_encode(&sb, blk);
		assert_int_equal(tier_sb_decode(blk, 0, &out, &err), 0);
		assert_memory_equal(&sb, &out, sizeof(sb));
		assert_memory_equal(blk + 8, "DMTIERSB", 8);
	}
	assert_int_equal(tier_sb_slot(41), 1);
	assert_int_equal(tier_sb_sector(8, 1), 16);
}

static int decode_sb1(const void *b, struct tier_err *e)
{
	struct tier_sb sb;

	return tier_sb_decode(b, 1, &sb, e);
}

static void test_sb_bitflip(void **state)
{
	struct tier_sb sb;

	(void)state;
	sb_of(&sb, 0);
	tier_sb_encode(&sb, blk);
	bitflip_all(decode_sb1, 8, 8, TIER_E_SB_MAGIC, TIER_E_SB_CSUM);
}

static void test_sb_header(void **state)
{
	struct tier_sb_disk *d = (void *)blk;
	struct tier_sb sb, out;
	struct tier_err err = { 0 };
	int ret;

	(void)state;
	memset(blk, 0, sizeof(blk));
	ret = tier_sb_decode(blk, 0, &out, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_SB_MAGIC, "zero");

	sb_of(&sb, 0);
	tier_sb_encode(&sb, blk);
	ret = tier_sb_decode(blk, 0, &out, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_SB_SLOT, "wrong slot");

	d->version = cpu_to_le32(2);
	reseal(blk);
	ret = tier_sb_decode(blk, 1, &out, &err);
	expect_err(ret, -EPROTO, &err, TIER_E_SB_VERSION, "version 2");

	sb.incompat = BIT_ULL(3);
	tier_sb_encode(&sb, blk);
	ret = tier_sb_decode(blk, 1, &out, &err);
	expect_err(ret, -EOPNOTSUPP, &err, TIER_E_SB_INCOMPAT, "incompat");
	assert_int_equal(err.value, BIT_ULL(3));

	/* Unknown ro_compat: readable, read-only. */
	sb.incompat = 0;
	sb.ro_compat = BIT_ULL(0);
	tier_sb_encode(&sb, blk);
	assert_int_equal(tier_sb_decode(blk, 1, &out, &err), 0);
	assert_true(tier_sb_needs_ro(&out));
	sb.ro_compat = 0;
	assert_false(tier_sb_needs_ro(&sb));

	/* Unknown compat bits are dropped by a v1 writer. */
	sb.compat = BIT_ULL(5);
	tier_sb_encode(&sb, blk);
	assert_int_equal(tier_sb_decode(blk, 1, &out, &err), 0);
	assert_int_equal(out.compat, 0);
	/* Reserved bytes are ignored. */
	d->reserved1[3] = 1;
	d->reserved2[3000] = 1;
	d->tier[0].reserved = 1;
	reseal(blk);
	assert_int_equal(tier_sb_decode(blk, 1, &out, &err), 0);

	/* Parity of the generation disagrees with the slot field. */
	sb.compat = 0;
	tier_sb_encode(&sb, blk);
	d->generation = cpu_to_le64(4);
	reseal(blk);
	ret = tier_sb_decode(blk, 1, &out, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_SB_GENERATION, "parity");
	d->generation = 0;
	d->slot = 0;
	reseal(blk);
	ret = tier_sb_decode(blk, 0, &out, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_SB_GENERATION, "gen 0");
}

struct sb_case {
	const char *what;
	int meta_ext;
	void (*mutate)(struct tier_sb *sb);
	enum tier_err_code code;
};

#define SMUT(name, body) \
	static void name(struct tier_sb *sb) { body; }
SMUT(s_shift, sb->extent_shift = 5)
SMUT(s_tiers_0, sb->nr_tiers = 0)
SMUT(s_tiers_9, sb->nr_tiers = 9)
SMUT(s_copy, sb->active_copy = 2)
SMUT(s_meta_0, sb->meta_start = 0)
SMUT(s_meta_unal, sb->meta_start = 12)
SMUT(s_blocks_0, sb->map_blocks = 0)
SMUT(s_blocks_few, sb->map_blocks = tier_map_blocks_for(sb->virt_extents) - 1)
SMUT(s_blocks_huge, sb->map_blocks = TIER_MAX_PEXTS + 1)
SMUT(s_map0_slots, sb->map_start[0] = sb->meta_start + 8)
SMUT(s_map0_unal, sb->map_start[0] += 1)
SMUT(s_map0_wrap, sb->map_start[0] = U64_MAX - 15)
SMUT(s_map1_overlap, sb->map_start[1] -= 8)
SMUT(s_map1_unal, sb->map_start[1] += 3)
SMUT(s_map1_wrap, sb->map_start[1] = U64_MAX - 7)
SMUT(s_map_data, sb->tier[0].data_start = sb->map_start[1])
SMUT(s_t_nr0, sb->tier[1].nr_extents = 0)
SMUT(s_t_nrbig, sb->tier[1].nr_extents = TIER_MAX_PEXTS + 1)
SMUT(s_t_fit, sb->tier[2].nr_extents++)
SMUT(s_t_data, sb->tier[1].data_start = 0)
SMUT(s_t_past, sb->tier[1].data_start = sb->tier[1].dev_sectors + 8)
static void s_virt_bytes(struct tier_sb *sb)
{
	sb->extent_shift = 17;
	sb->tier[2].dev_sectors = U64_MAX;
	sb->tier[2].nr_extents = 1ULL << 40;
	sb->virt_extents = 1ULL << 39;
	sb->map_blocks = tier_map_blocks_for(sb->virt_extents);
	sb->map_start[1] = sb->map_start[0] + 8 * sb->map_blocks;
	sb->tier[0].data_start = sb->map_start[1] + 8 * sb->map_blocks;
	sb->tier[0].dev_sectors = sb->tier[0].data_start + (1ULL << 17);
	sb->tier[0].nr_extents = 1;
	sb->tier[1].dev_sectors = sb->tier[1].data_start + (1ULL << 17);
	sb->tier[1].nr_extents = 1;
}

SMUT(s_t_used, sb->tier[1].used_extents = sb->tier[1].nr_extents + 1)
SMUT(s_t_class, sb->tier[1].tier_class = 17)
SMUT(s_t_mem, sb->tier[1].tier_class = TIER_CLASS_MEM)
SMUT(s_t_meta, sb->tier[0].tier_class = TIER_CLASS_META)
SMUT(s_t_unused, sb->tier[5].flags = 1)
SMUT(s_virt_0, sb->virt_extents = 0)
SMUT(s_virt_cap, sb->virt_extents = sb->tier[0].nr_extents +
	sb->tier[1].nr_extents + sb->tier[2].nr_extents + 1)

static const struct sb_case sb_cases[] = {
	{ "shift", 0, s_shift, TIER_E_SB_EXTENT_SHIFT },
	{ "0 tiers", 0, s_tiers_0, TIER_E_SB_NR_TIERS },
	{ "9 tiers", 0, s_tiers_9, TIER_E_SB_NR_TIERS },
	{ "active copy 2", 0, s_copy, TIER_E_SB_ACTIVE_COPY },
	{ "meta_start 0", 0, s_meta_0, TIER_E_SB_MAP },
	{ "meta_start unaligned", 0, s_meta_unal, TIER_E_SB_MAP },
	{ "map_blocks 0", 0, s_blocks_0, TIER_E_SB_MAP },
	{ "map_blocks too few", 0, s_blocks_few, TIER_E_SB_MAP },
	{ "map_blocks huge", 0, s_blocks_huge, TIER_E_SB_MAP },
	{ "copy 0 over slots", 0, s_map0_slots, TIER_E_SB_MAP },
	{ "copy 0 unaligned", 0, s_map0_unal, TIER_E_SB_MAP },
	{ "copy 0 wraps", 0, s_map0_wrap, TIER_E_SB_MAP },
	{ "copy 1 over copy 0", 0, s_map1_overlap, TIER_E_SB_MAP },
	{ "copy 1 unaligned", 0, s_map1_unal, TIER_E_SB_MAP },
	{ "copy 1 wraps", 0, s_map1_wrap, TIER_E_SB_MAP },
	{ "map over tier 0 data", 0, s_map_data, TIER_E_SB_MAP },
	{ "tier nr_extents 0", 0, s_t_nr0, TIER_E_SB_TIER },
	{ "tier nr_extents huge", 0, s_t_nrbig, TIER_E_SB_TIER },
	{ "tier extents past end", 0, s_t_fit, TIER_E_SB_TIER },
	{ "tier data_start 0", 0, s_t_data, TIER_E_SB_TIER },
	{ "tier data_start past end", 0, s_t_past, TIER_E_SB_TIER },
	{ "tier used > nr", 0, s_t_used, TIER_E_SB_TIER },
	{ "tier class 17", 0, s_t_class, TIER_E_SB_TIER },
	{ "tier class mem", 0, s_t_mem, TIER_E_SB_TIER },
	{ "tier class meta", 1, s_t_meta, TIER_E_SB_TIER },
	{ "unused tier record", 0, s_t_unused, TIER_E_SB_TIER },
	{ "virt 0", 0, s_virt_0, TIER_E_SB_VIRT_EXTENTS },
	{ "virt > capacity", 0, s_virt_cap, TIER_E_SB_VIRT_EXTENTS },
	{ "virt > 2^64 bytes", 0, s_virt_bytes, TIER_E_SB_VIRT_EXTENTS },
};

static void test_sb_fields(void **state)
{
	struct tier_sb sb, out;
	struct tier_err err;
	size_t i;
	int ret;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(sb_cases); i++) {
		const struct sb_case *c = &sb_cases[i];

		sb_of(&sb, c->meta_ext);
		c->mutate(&sb);
		tier_sb_encode(&sb, blk);
		memset(&err, 0, sizeof(err));
		memset(&out, 0x5a, sizeof(out));
		ret = tier_sb_decode(blk, 1, &out, &err);
		if (ret != -EUCLEAN || err.code != c->code)
			fail_msg("%s: ret %d code %s, want %s", c->what, ret,
				 tier_err_str(err.code), tier_err_str(c->code));
		if (out.generation != 0x5a5a5a5a5a5a5a5aULL)
			fail_msg("%s: output written on error", c->what);
	}
	/* Just under the byte-size limit is fine. */
	sb_of(&sb, 0);
	s_virt_bytes(&sb);
	sb.virt_extents = (1ULL << 38) - 1;
	tier_sb_encode(&sb, blk);
	assert_int_equal(tier_sb_decode(blk, 1, &out, NULL), 0);
	/* With metadata elsewhere, tier 0 data may start right away. */
	sb_of(&sb, 1);
	s_map_data(&sb);
	sb.tier[0].data_start = 8;
	tier_sb_encode(&sb, blk);
	assert_int_equal(tier_sb_decode(blk, 1, &out, NULL), 0);
}

static void test_sb_pick(void **state)
{
	struct tier_sb sb[2];
	struct tier_err err = { 0 };
	int ret[2], r;

	(void)state;
	sb_of(&sb[0], 0);
	sb_of(&sb[1], 0);
	sb[0].generation = 6;
	sb[1].generation = 7;
	ret[0] = ret[1] = 0;
	assert_int_equal(tier_sb_pick(sb, ret, &err), 1);
	sb[0].generation = 8;
	assert_int_equal(tier_sb_pick(sb, ret, &err), 0);

	ret[0] = -EBADMSG;
	assert_int_equal(tier_sb_pick(sb, ret, &err), 1);
	ret[0] = 0;
	ret[1] = -EUCLEAN;
	assert_int_equal(tier_sb_pick(sb, ret, &err), 0);

	ret[0] = -EBADMSG;
	r = tier_sb_pick(sb, ret, &err);
	expect_err(r, -EUCLEAN, &err, TIER_E_SB_NONE_VALID, "both bad");
	ret[1] = -EPROTO;
	r = tier_sb_pick(sb, ret, &err);
	expect_err(r, -EPROTO, &err, TIER_E_SB_NONE_VALID, "newer version");
	ret[0] = -EPROTO;
	ret[1] = -EOPNOTSUPP;
	r = tier_sb_pick(sb, ret, &err);
	expect_err(r, -EPROTO, &err, TIER_E_SB_NONE_VALID, "version wins");
	ret[0] = -EOPNOTSUPP;
	ret[1] = -EBADMSG;
	r = tier_sb_pick(sb, ret, &err);
	expect_err(r, -EOPNOTSUPP, &err, TIER_E_SB_NONE_VALID, "feature");
	ret[0] = -EUCLEAN;
	ret[1] = -EOPNOTSUPP;
	r = tier_sb_pick(sb, ret, &err);
	expect_err(r, -EOPNOTSUPP, &err, TIER_E_SB_NONE_VALID, "feature 1");

	ret[0] = ret[1] = 0;
	sb[1].uuid[15] ^= 1;
	r = tier_sb_pick(sb, ret, &err);
	expect_err(r, -EUCLEAN, &err, TIER_E_SB_UUID_MISMATCH, "uuid");
	/* One valid slot wins alone even if the other's uuid differs. */
	ret[0] = -EBADMSG;
	assert_int_equal(tier_sb_pick(sb, ret, NULL), 1);

	/* A newer writer's slot is never passed over for an older one. */
	ret[0] = -EPROTO;
	ret[1] = 0;
	r = tier_sb_pick(sb, ret, &err);
	expect_err(r, -EPROTO, &err, TIER_E_SB_NONE_VALID, "newer slot 0");
	ret[0] = 0;
	ret[1] = -EOPNOTSUPP;
	r = tier_sb_pick(sb, ret, &err);
	expect_err(r, -EOPNOTSUPP, &err, TIER_E_SB_NONE_VALID, "newer slot 1");
}

static void test_label_check_sb(void **state)
{
	struct tier_fresh f;
	struct tier_label l;
	struct tier_sb sb;
	struct tier_err err = { 0 };
	int ret;
	u32 i;

	(void)state;
	fresh_setup(&f, 3, sizes3, 0, 11);
	tier_fresh_sb(&f, &sb);
	for (i = 0; i < 3; i++) {
		tier_fresh_label(&f, i, &l);
		assert_int_equal(tier_label_check_sb(&l, &sb, i, &err), 0);
	}
	tier_fresh_label(&f, 1, &l);
	ret = tier_label_check_sb(&l, &sb, 2, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_LABEL_SB_MISMATCH, "order");
	assert_int_equal(err.item, 2);
	ret = tier_label_check_sb(&l, &sb, TIER_META_DEV, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_LABEL_SB_MISMATCH, "meta");

#define CHECK_BAD(stmt, idx)						\
	do {								\
		tier_fresh_label(&f, (idx), &l);			\
		stmt;							\
		ret = tier_label_check_sb(&l, &sb, (idx), &err);	\
		expect_err(ret, -EUCLEAN, &err,				\
			   TIER_E_LABEL_SB_MISMATCH, #stmt);		\
	} while (0)
	CHECK_BAD(l.uuid[0] ^= 1, 1);
	CHECK_BAD(l.member_uuid[0] ^= 1, 1);
	CHECK_BAD(l.nr_tiers = 2, 1);
	CHECK_BAD(l.extent_shift = 12, 1);
	CHECK_BAD(l.data_start += 8, 1);
	CHECK_BAD(l.nr_extents--, 1);
	CHECK_BAD(l.flags |= TIER_LABEL_F_META_EXT, 1);
	CHECK_BAD(l.meta_start = 16, 0);
	CHECK_BAD(sb.nr_tiers = 1; l.nr_tiers = 1, 2);
	sb.nr_tiers = 3;

	/* Separate metadata device. */
	fresh_setup(&f, 3, sizes3, 64 * MiB_SECTORS, 11);
	tier_fresh_sb(&f, &sb);
	for (i = 0; i < 3; i++) {
		tier_fresh_label(&f, i, &l);
		assert_int_equal(tier_label_check_sb(&l, &sb, i, &err), 0);
	}
	tier_fresh_label(&f, TIER_META_DEV, &l);
	assert_int_equal(tier_label_check_sb(&l, &sb, TIER_META_DEV, &err), 0);
	CHECK_BAD(l.member_uuid[3] ^= 1, TIER_META_DEV);
	CHECK_BAD(l.meta_start = 16, TIER_META_DEV);
	CHECK_BAD(sb.flags = 0, TIER_META_DEV);
	sb.flags = TIER_SB_F_META_EXT;
	CHECK_BAD(l.flags = 0, 1);
#undef CHECK_BAD
}

/* ---- map blocks --------------------------------------------------------- */

static u64 word(u32 tier, u64 pext)
{
	return TIER_MAPW_MAPPED | ((u64)tier << 56) | pext;
}

static void map_block_of(const struct tier_sb *sb, u32 copy, u64 index)
{
	struct tier_map_entry e = { word(2, 5), 77, 0, 1234 };

	tier_map_block_init(blk, sb, copy, index);
	tier_map_block_set(blk, 0, &e);
	e.word = word(0, sb->tier[0].nr_extents - 1) |
		 ((u64)TIER_EXT_F_PINNED << 48) | (0x80ULL << 48);
	e.heat = 0;
	e.atime = 0;
	tier_map_block_set(blk, 253, &e);
	tier_map_block_seal(blk);
}

static void test_map_block_roundtrip(void **state)
{
	struct tier_map_entry e;
	struct tier_sb sb;
	struct tier_err err = { 0 };

	(void)state;
	sb_of(&sb, 0);
	sb.generation = 9;
	map_block_of(&sb, 1, 2);
	assert_int_equal(tier_map_block_check(blk, &sb, 1, 2, &err), 0);
	tier_map_block_get(blk, 0, &e);
	assert_int_equal(e.word, word(2, 5));
	assert_int_equal(e.heat, 77);
	assert_int_equal(e.atime, 1234);
	tier_map_block_get(blk, 1, &e);
	assert_int_equal(e.word, 0);
	tier_map_block_get(blk, 253, &e);
	assert_int_equal(e.word >> 48, 0x8081);
	assert_memory_equal(blk + 4, "TMAP", 4);
	assert_int_equal(tier_map_block_sector(&sb, 0, 3), sb.map_start[0] + 24);
	assert_int_equal(tier_map_block_sector(&sb, 1, 0), sb.map_start[1]);
}

static struct tier_sb bitflip_sb;

static int decode_map(const void *b, struct tier_err *e)
{
	return tier_map_block_check(b, &bitflip_sb, 1, 2, e);
}

static void test_map_block_bitflip(void **state)
{
	(void)state;
	sb_of(&bitflip_sb, 0);
	map_block_of(&bitflip_sb, 1, 2);
	bitflip_all(decode_map, 4, 4, TIER_E_MAP_MAGIC, TIER_E_MAP_CSUM);
}

static void test_map_block_header(void **state)
{
	struct tier_map_block_disk *d = (void *)blk;
	struct tier_sb sb, other;
	struct tier_err err = { 0 };
	int ret;

	(void)state;
	sb_of(&sb, 0);
	sb.generation = 5;
	memset(blk, 0, sizeof(blk));
	ret = tier_map_block_check(blk, &sb, 0, 0, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_MAP_MAGIC, "zero");
	map_block_of(&sb, 0, 1);
	ret = tier_map_block_check(blk, &sb, 0, 0, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_MAP_INDEX, "misdirected");
	assert_int_equal(err.item, 0);
	assert_int_equal(err.value, 1);
	ret = tier_map_block_check(blk, &sb, 1, 1, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_MAP_COPY, "other copy");
	other = sb;
	other.uuid[0] ^= 1;
	ret = tier_map_block_check(blk, &other, 0, 1, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_MAP_UUID, "uuid");
	/* Generation: equal and older are fine, newer is not. */
	other = sb;
	assert_int_equal(tier_map_block_check(blk, &other, 0, 1, &err), 0);
	other.generation = 100;
	assert_int_equal(tier_map_block_check(blk, &other, 0, 1, &err), 0);
	other.generation = 4;
	ret = tier_map_block_check(blk, &other, 0, 1, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_MAP_GENERATION, "future");
	assert_int_equal(err.value, 5);
	/* Wrong magic with a good checksum. */
	d->magic = cpu_to_le32(0x12345678);
	reseal(blk);
	ret = tier_map_block_check(blk, &sb, 0, 1, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_MAP_MAGIC, "magic");
}

static void test_map_block_entries(void **state)
{
	struct tier_map_entry e;
	struct tier_sb sb;
	struct tier_err err = { 0 };
	u64 last_block;
	int ret;

	(void)state;
	sb_of(&sb, 0);

#define ENTRY_BAD(idx, i, w, h, a, code, want_item)			\
	do {								\
		tier_map_block_init(blk, &sb, 0, (idx));		\
		e.word = (w);						\
		e.heat = (h);						\
		e.flags = 0;						\
		e.atime = (a);						\
		tier_map_block_set(blk, (i), &e);			\
		tier_map_block_seal(blk);				\
		ret = tier_map_block_check(blk, &sb, 0, (idx), &err);	\
		expect_err(ret, -EUCLEAN, &err, (code), #code);	\
		assert_int_equal(err.item, (want_item));		\
	} while (0)

	ENTRY_BAD(3, 10, word(0, 1) | BIT_ULL(60), 0, 0,
		  TIER_E_MAP_ENTRY_RESERVED, 3 * 254 + 10);
	ENTRY_BAD(3, 10, word(0, 1) | BIT_ULL(62), 0, 0,
		  TIER_E_MAP_ENTRY_RESERVED, 3 * 254 + 10);
	ENTRY_BAD(0, 0, 5, 0, 0, TIER_E_MAP_ENTRY_UNMAPPED, 0);
	ENTRY_BAD(0, 1, 0, 3, 0, TIER_E_MAP_ENTRY_UNMAPPED, 1);
	ENTRY_BAD(0, 2, 0, 0, 9, TIER_E_MAP_ENTRY_UNMAPPED, 2);
	ENTRY_BAD(1, 7, word(3, 0), 0, 0, TIER_E_MAP_ENTRY_TIER, 254 + 7);
	assert_int_equal(err.value, 3);
	ENTRY_BAD(1, 7, word(15, 0), 0, 0, TIER_E_MAP_ENTRY_TIER, 254 + 7);
	ENTRY_BAD(2, 253, word(1, sb.tier[1].nr_extents), 0, 0,
		  TIER_E_MAP_ENTRY_PEXT, 2 * 254 + 253);
	assert_int_equal(err.value, sb.tier[1].nr_extents);
	ENTRY_BAD(2, 0, word(1, TIER_MAPW_PEXT_MASK), 0, 0,
		  TIER_E_MAP_ENTRY_PEXT, 2 * 254);

	/* Entries past virt_extents must stay unmapped. */
	last_block = (sb.virt_extents - 1) / 254;
	tier_map_block_init(blk, &sb, 0, last_block);
	e.word = word(1, 0);
	e.heat = e.flags = 0;
	e.atime = 0;
	tier_map_block_set(blk, (sb.virt_extents - 1) % 254, &e);
	tier_map_block_seal(blk);
	assert_int_equal(tier_map_block_check(blk, &sb, 0, last_block, &err),
			 0);
	ENTRY_BAD(last_block, sb.virt_extents % 254, word(1, 0), 0, 0,
		  TIER_E_MAP_ENTRY_BEYOND, sb.virt_extents);
	ENTRY_BAD(last_block + 3, 0, word(1, 0), 0, 0,
		  TIER_E_MAP_ENTRY_BEYOND, (last_block + 3) * 254);
#undef ENTRY_BAD
	tier_map_block_init(blk, &sb, 0, 0);
	e.word = 0;
	e.heat = 0;
	e.flags = 1;
	e.atime = 0;
	tier_map_block_set(blk, 4, &e);
	tier_map_block_seal(blk);
	ret = tier_map_block_check(blk, &sb, 0, 0, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_MAP_ENTRY_UNMAPPED, "flags");
	e.flags = 0;
	/* Last mapped pext of a tier is fine; the reported item is the vext */
	tier_map_block_init(blk, &sb, 0, 0);
	e.word = word(2, sb.tier[2].nr_extents - 1);
	tier_map_block_set(blk, 0, &e);
	tier_map_block_seal(blk);
	assert_int_equal(tier_map_block_check(blk, &sb, 0, 0, NULL), 0);
}

/* ---- fresh metadata: write everything to a fake disk, load it back ------- */

struct fake_blk {
	u32 dev;
	sector_t sector;
	u8 data[TIER_BLOCK_SIZE];
};

struct fake_disk {
	size_t n;
	struct fake_blk *b;
};

static void fake_write(struct fake_disk *fd, const struct tier_blk_loc *loc,
		       const void *data)
{
	size_t i;

	for (i = 0; i < fd->n; i++) {
		if (fd->b[i].dev == loc->dev && fd->b[i].sector == loc->sector)
			fail_msg("block %u:%llu written twice", loc->dev,
				 (unsigned long long)loc->sector);
	}
	fd->b = realloc(fd->b, (fd->n + 1) * sizeof(*fd->b));
	assert_non_null(fd->b);
	fd->b[fd->n].dev = loc->dev;
	fd->b[fd->n].sector = loc->sector;
	memcpy(fd->b[fd->n].data, data, TIER_BLOCK_SIZE);
	fd->n++;
}

static const u8 *fake_read(const struct fake_disk *fd, u32 dev, sector_t s)
{
	size_t i;

	for (i = 0; i < fd->n; i++) {
		if (fd->b[i].dev == dev && fd->b[i].sector == s)
			return fd->b[i].data;
	}
	fail_msg("block %u:%llu never written", dev, (unsigned long long)s);
	return NULL;
}

static void fresh_write_and_load(const sector_t *sizes, u32 nr, sector_t meta,
				 u32 shift)
{
	struct fake_disk fd = { 0, NULL };
	struct tier_alloc alloc[TIER_MAX_TIERS];
	struct tier_blk_loc loc;
	struct tier_label lbl[TIER_MAX_DEVS];
	struct tier_sb sb[2];
	struct tier_fresh f;
	struct tier_map map;
	struct tier_err err = { 0 };
	int ret[2], slot;
	u32 meta_dev, i;
	u64 n, b;

	fresh_setup(&f, nr, sizes, meta, shift);
	meta_dev = meta ? TIER_META_DEV : 0;
	assert_int_equal(tier_fresh_nr_blocks(&f),
			 2 * f.lo.map_blocks + 2 + nr + !!meta);
	for (n = 0; n < tier_fresh_nr_blocks(&f); n++) {
		assert_int_equal(tier_fresh_block(&f, n, &loc, blk), 0);
		/* Labels come last. */
		if (n < tier_fresh_nr_blocks(&f) - nr - !!meta)
			assert_int_not_equal(loc.sector, 0);
		else
			assert_int_equal(loc.sector, 0);
		fake_write(&fd, &loc, blk);
	}
	assert_int_equal(tier_fresh_block(&f, n, &loc, blk), -EINVAL);

	/* Activation: labels, then the metadata device's superblocks. */
	for (i = 0; i < nr; i++) {
		assert_int_equal(tier_label_decode(fake_read(&fd, i, 0),
						   &lbl[i], &err), 0);
		assert_string_equal(lbl[i].name, "fast0");
	}
	if (meta)
		assert_int_equal(tier_label_decode(fake_read(&fd, meta_dev, 0),
						   &lbl[meta_dev], &err), 0);
	assert_true(lbl[meta_dev].flags & TIER_LABEL_F_META);
	for (i = 0; i < 2; i++)
		ret[i] = tier_sb_decode(fake_read(&fd, meta_dev,
				tier_sb_sector(lbl[meta_dev].meta_start, i)),
				i, &sb[i], &err);
	assert_int_equal(ret[0], -EUCLEAN);	/* slot 0 zeroed */
	assert_int_equal(ret[1], 0);
	slot = tier_sb_pick(sb, ret, &err);
	assert_int_equal(slot, 1);
	for (i = 0; i < nr; i++)
		assert_int_equal(tier_label_check_sb(&lbl[i], &sb[1], i,
						     &err), 0);
	if (meta)
		assert_int_equal(tier_label_check_sb(&lbl[meta_dev], &sb[1],
						     TIER_META_DEV, &err), 0);
	assert_int_equal(sb[1].virt_extents, f.lo.virt_extents);

	/* Both map copies are complete and valid. */
	assert_int_equal(tier_map_init(&map, sb[1].virt_extents, 0), 0);
	for (i = 0; i < 2; i++) {
		for (b = 0; b < sb[1].map_blocks; b++)
			assert_int_equal(tier_map_block_check(
				fake_read(&fd, meta_dev,
					  tier_map_block_sector(&sb[1], i, b)),
				&sb[1], i, b, &err), 0);
	}
	for (b = 0; b < map.nr_blocks; b++)
		assert_int_equal(tier_map_load_block(&map, &sb[1],
			sb[1].active_copy, b,
			fake_read(&fd, meta_dev,
				  tier_map_block_sector(&sb[1], 0, b)),
			&err), 0);
	for (i = 0; i < nr; i++)
		assert_int_equal(tier_alloc_init(&alloc[i],
						 sb[1].tier[i].nr_extents), 0);
	assert_int_equal(tier_alloc_load_map(alloc, nr, &map, &err), 0);
	for (i = 0; i < nr; i++) {
		assert_int_equal(alloc[i].nr_used, 0);
		tier_alloc_destroy(&alloc[i]);
	}
	tier_map_destroy(&map);
	free(fd.b);
}

static void test_fresh_roundtrip(void **state)
{
	static const sector_t eight[8] = { GiB_SECTORS, GiB_SECTORS,
		GiB_SECTORS, GiB_SECTORS, GiB_SECTORS, GiB_SECTORS,
		GiB_SECTORS, 3 * GiB_SECTORS };
	static const sector_t tiny[1] = { 4096 };

	(void)state;
	fresh_write_and_load(sizes3, 3, 0, 11);
	fresh_write_and_load(sizes3, 3, 64 * MiB_SECTORS, 11);
	fresh_write_and_load(eight, 8, 0, 17);
	fresh_write_and_load(eight, 8, 0, 13);
	fresh_write_and_load(tiny, 1, 0, 11);
	fresh_write_and_load(tiny, 1, 4096, 7);
}

static void test_fresh_check(void **state)
{
	struct tier_fresh f;
	struct tier_err err = { 0 };
	int ret;

	(void)state;
	fresh_setup(&f, 3, sizes3, 0, 11);
	strcpy(f.name, "bad name");
	ret = tier_fresh_check(&f, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_FRESH_PARAM, "name");
	memset(f.name, 'a', sizeof(f.name));
	ret = tier_fresh_check(&f, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_FRESH_PARAM, "long name");

	fresh_setup(&f, 3, sizes3, 0, 11);
	f.tier_class[2] = TIER_CLASS_MEM;
	ret = tier_fresh_check(&f, &err);
	expect_err(ret, -EOPNOTSUPP, &err, TIER_E_FRESH_PARAM, "mem");
	assert_int_equal(err.item, 2);
	f.tier_class[2] = TIER_CLASS_META;
	ret = tier_fresh_check(&f, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_FRESH_PARAM, "meta class");
	f.tier_class[2] = 42;
	ret = tier_fresh_check(&f, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_FRESH_PARAM, "class 42");
	f.tier_class[2] = TIER_CLASS_PMEM;
	assert_int_equal(tier_fresh_check(&f, &err), 0);
	f.tier_class[2] = TIER_CLASS_UNKNOWN;
	assert_int_equal(tier_fresh_check(&f, &err), 0);

	/* Tampered layouts. */
	f.lo.map_blocks--;
	ret = tier_fresh_check(&f, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_FRESH_PARAM, "map_blocks");
	f.lo.map_blocks++;
	f.lo.tier[1].data_start = 4096;
	ret = tier_fresh_check(&f, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_FRESH_PARAM, "data_start");
	f.lo.tier[1].data_start = 2048;
	f.lo.map_start[1] += 8;
	ret = tier_fresh_check(&f, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_FRESH_PARAM, "map_start");
	f.lo.map_start[1] -= 8;
	f.lo.virt_extents = 1ULL << 60;
	ret = tier_fresh_check(&f, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_FRESH_PARAM, "virt");
	f.lo.virt_extents = 0;
	ret = tier_fresh_check(&f, &err);
	expect_err(ret, -EUCLEAN, &err, TIER_E_FRESH_PARAM, "virt 0");
	f.lo.virt_extents = 10;	/* smaller than capacity is fine */
	assert_int_equal(tier_fresh_check(&f, &err), 0);
	f.lo.nr_tiers = 0;
	ret = tier_fresh_check(&f, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_NR_TIERS, "no tiers");
	f.lo.nr_tiers = 3;
	f.lo.extent_shift = 30;
	ret = tier_fresh_check(&f, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_EXTENT_SHIFT, "shift");

	/* Any single tampered layout field is caught. */
	{
		struct tier_fresh good;
		u64 *fields[] = { &f.lo.map_blocks, &f.lo.meta_start,
				  &f.lo.meta_blocks, &f.lo.map_start[0],
				  &f.lo.tier[0].data_start,
				  &f.lo.tier[2].nr_extents,
				  &f.lo.tier[1].nr_extents,
				  &f.lo.meta_dev_sectors };
		size_t k;

		fresh_setup(&good, 3, sizes3, 0, 11);
		for (k = 0; k < ARRAY_SIZE(fields); k++) {
			f = good;
			*fields[k] += 8;
			assert_int_not_equal(tier_fresh_check(&f, &err), 0);
		}
		f = good;
		f.lo.meta_ext = 1;
		assert_int_not_equal(tier_fresh_check(&f, &err), 0);
		f = good;
		f.lo.extent_shift = 12;
		assert_int_not_equal(tier_fresh_check(&f, &err), 0);
		f = good;
		f.lo.nr_tiers = 2;
		assert_int_not_equal(tier_fresh_check(&f, &err), 0);
	}

	fresh_setup(&f, 3, sizes3, 64 * MiB_SECTORS, 11);
	f.lo.meta_dev_sectors = 8;
	ret = tier_fresh_check(&f, &err);
	expect_err(ret, -EINVAL, &err, TIER_E_LAYOUT_META_TOO_SMALL, "meta");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_csum),
		cmocka_unit_test(test_err_str),
		cmocka_unit_test(test_layout_one_tier),
		cmocka_unit_test(test_layout_multi_tier),
		cmocka_unit_test(test_layout_meta_dev),
		cmocka_unit_test(test_layout_extent_sizes),
		cmocka_unit_test(test_layout_nr_tiers),
		cmocka_unit_test(test_layout_tiny),
		cmocka_unit_test(test_layout_virt),
		cmocka_unit_test(test_layout_huge),
		cmocka_unit_test(test_layout_1m_extents),
		cmocka_unit_test(test_label_roundtrip),
		cmocka_unit_test(test_label_bitflip),
		cmocka_unit_test(test_label_header),
		cmocka_unit_test(test_label_fields),
		cmocka_unit_test(test_name_valid),
		cmocka_unit_test(test_label_check_sb),
		cmocka_unit_test(test_sb_roundtrip),
		cmocka_unit_test(test_sb_bitflip),
		cmocka_unit_test(test_sb_header),
		cmocka_unit_test(test_sb_fields),
		cmocka_unit_test(test_sb_pick),
		cmocka_unit_test(test_map_block_roundtrip),
		cmocka_unit_test(test_map_block_bitflip),
		cmocka_unit_test(test_map_block_header),
		cmocka_unit_test(test_map_block_entries),
		cmocka_unit_test(test_fresh_roundtrip),
		cmocka_unit_test(test_fresh_check),
	};

	return cmocka_run_group_tests_name("format", tests, NULL, NULL);
}
