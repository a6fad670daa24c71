/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cases for kernel/core/format.c: on-disk format v1 (labels, superblocks,
 * map blocks), layout computation and fresh metadata. Run by
 * tests/unit/test_format.c (cmocka, with the userspace crc32c and byte
 * order helpers) and tests/kunit/format_kunit.c (KUnit, with the kernel's);
 * see case.h.
 */
#include "case.h"
#include "format.h"
#include "extent_map.h"
#include "alloc.h"

#define MIB_SECTORS 2048ULL
#define GIB_SECTORS (1024 * MIB_SECTORS)

/* A mapped map word: tier @t, physical extent @p. */
#define MAPW(t, p) \
	(TIER_MAPW_MAPPED | ((u64)(t) << TIER_MAPW_TIER_SHIFT) | (u64)(p))

/* ---- helpers ------------------------------------------------------------ */

static u8 *fmt_blk(CASE_CTX)
{
	u8 *b = case_zalloc(TIER_BLOCK_SIZE);

	CASE_ASSERT_NOT_NULL(b);
	return b;
}

static void *fmt_zalloc(CASE_CTX, size_t size)
{
	void *p = case_zalloc(size);

	CASE_ASSERT_NOT_NULL(p);
	return p;
}

static void reseal(void *b)
{
	*(__le32 *)b = cpu_to_le32(tier_block_csum(b));
}

static void expect_err(CASE_CTX, int ret, const struct tier_err *err,
		       int want_ret, enum tier_err_code want_code,
		       const char *what)
{
	CASE_EQ_MSG(ret, want_ret, "%s", what);
	CASE_EQ_MSG(err->code, want_code, "%s: got \"%s\", want \"%s\"", what,
		    tier_err_str(err->code), tier_err_str(want_code));
}

/* Valid parameters for a new device; the layout is computed here. */
static struct tier_fresh *fresh_make(CASE_CTX, u32 nr, const sector_t *sizes,
				     sector_t meta, u32 shift)
{
	struct tier_layout_req req;
	struct tier_fresh *f = fmt_zalloc(test, sizeof(*f));
	u32 i;

	memset(&req, 0, sizeof(req));
	req.nr_tiers = nr;
	req.extent_shift = shift;
	for (i = 0; i < nr; i++)
		req.dev_sectors[i] = sizes[i];
	req.meta_dev_sectors = meta;
	CASE_ASSERT_EQ(tier_layout_compute(&req, &f->lo, NULL), 0);
	memset(f->uuid, 0x11, TIER_UUID_LEN);
	for (i = 0; i < TIER_MAX_DEVS; i++)
		memset(f->member_uuid[i], 0x20 + i, TIER_UUID_LEN);
	strcpy(f->name, "fast0");
	for (i = 0; i < nr; i++)
		f->tier_class[i] = i == 0 ? TIER_CLASS_NVME : TIER_CLASS_NVMF;
	f->ctime = 1700000000;
	CASE_ASSERT_EQ(tier_fresh_check(f, NULL), 0);
	return f;
}

/*
 * The fixture most cases start from: tiers of 2, 1 and 4 GiB with 1 MiB
 * extents, metadata on tier 0 or on a 64 MiB device. Its geometry is pinned
 * by tier_format_fixture_test, so the tables below can use plain numbers.
 */
static const sector_t sizes3[] = { 2 * GIB_SECTORS, GIB_SECTORS,
				   4 * GIB_SECTORS };

static struct tier_fresh *fixture(CASE_CTX, bool meta_ext)
{
	return fresh_make(test, 3, sizes3, meta_ext ? 64 * MIB_SECTORS : 0, 11);
}

static struct tier_sb *sb_fixture(CASE_CTX, bool meta_ext)
{
	struct tier_sb *sb = fmt_zalloc(test, sizeof(*sb));

	tier_fresh_sb(fixture(test, meta_ext), sb);
	return sb;
}

static struct tier_label *label_fixture(CASE_CTX, u32 dev, bool meta_ext)
{
	struct tier_label *l = fmt_zalloc(test, sizeof(*l));

	tier_fresh_label(fixture(test, meta_ext), dev, l);
	return l;
}

/* A map block with a few mapped entries, sealed. */
static void map_block_of(void *blk, const struct tier_sb *sb, u32 copy,
			 u64 index)
{
	struct tier_map_entry e = { MAPW(2, 5), 77, 0, 1234 };

	tier_map_block_init(blk, sb, copy, index);
	tier_map_block_set(blk, 0, &e);
	e.word = MAPW(0, sb->tier[0].nr_extents - 1) |
		 ((u64)TIER_EXT_F_PINNED << TIER_MAPW_FLAGS_SHIFT) |
		 (0x80ULL << TIER_MAPW_FLAGS_SHIFT);
	e.heat = 0;
	e.atime = 0;
	tier_map_block_set(blk, TIER_MAP_ENTRIES - 1, &e);
	tier_map_block_seal(blk);
}

static u32 get_le32(const u8 *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

static u64 get_le64(const u8 *p)
{
	return get_le32(p) | (u64)get_le32(p + 4) << 32;
}

/* ---- generic ------------------------------------------------------------ */

static void tier_format_offsets_test(CASE_CTX)
{
	CASE_EQ(offsetof(struct tier_label_disk, name), 0x38);
	CASE_EQ(offsetof(struct tier_label_disk, tier_index), 0x78);
	CASE_EQ(offsetof(struct tier_label_disk, ctime), 0xb8);
	CASE_EQ(offsetof(struct tier_label_disk, spare_meta_blocks), 0xc0);
	CASE_EQ(offsetof(struct tier_label_disk, reserved), 0xc8);
	CASE_EQ(offsetof(struct tier_sb_disk, generation), 0x20);
	CASE_EQ(offsetof(struct tier_sb_disk, map_start), 0x58);
	CASE_EQ(offsetof(struct tier_sb_disk, meta_uuid), 0x90);
	CASE_EQ(offsetof(struct tier_sb_disk, tier), 0x100);
	CASE_EQ(offsetof(struct tier_sb_disk, settings), 0x300);
	CASE_EQ(offsetof(struct tier_sb_disk, reserved2), 0x400);
	CASE_EQ(offsetof(struct tier_settings_disk, entry), 0x08);
	CASE_EQ(offsetof(struct tier_sb_tier_disk, member_uuid), 0x28);
	CASE_EQ(offsetof(struct tier_map_block_disk, entry), 0x20);
	CASE_EQ(sizeof(struct tier_map_entry_disk), 16);
	CASE_EQ(TIER_MAP_ENTRIES, 254);
}

/* The kernel's crc32c, as the format uses it. */
static void tier_format_csum_test(CASE_CTX)
{
	static const char check[] = "123456789";
	u8 *blk = fmt_blk(test);

	/* The standard CRC-32C check value (with final inversion). */
	CASE_EQ(~tier_crc32c(~0U, check, 9), 0xe3069283U);
	CASE_EQ(tier_block_csum(blk),
		tier_crc32c(~0U, blk + 4, TIER_BLOCK_SIZE - 4));
	/* The csum field itself is excluded. */
	blk[0] = 0xff;
	blk[3] = 0x01;
	CASE_EQ(tier_block_csum(blk),
		tier_crc32c(~0U, blk + 4, TIER_BLOCK_SIZE - 4));
	blk[4] = 1;
	CASE_NE(tier_block_csum(blk),
		tier_crc32c(~0U, blk + 5, TIER_BLOCK_SIZE - 5));
	CASE_EQ(tier_uuid_csum(blk + 4),
		tier_crc32c(~0U, blk + 4, TIER_UUID_LEN));
}

/* Multi-byte fields are little-endian on disk, whatever the CPU. */
static void tier_format_endian_test(CASE_CTX)
{
	struct tier_label *l = label_fixture(test, 2, false);
	struct tier_sb *sb = sb_fixture(test, false);
	u8 *blk = fmt_blk(test);

	l->ctime = 0x0102030405060708ULL;
	tier_label_encode(l, blk);
	CASE_EQ(memcmp(blk + 8, "DMTIERLB", 8), 0);
	CASE_EQ(get_le32(blk), tier_block_csum(blk));
	CASE_EQ(get_le32(blk + 4), TIER_FORMAT_VERSION);
	CASE_EQ(get_le32(blk + 0x78), 2);
	CASE_EQ(get_le64(blk + 0x88), 4 * GIB_SECTORS);
	CASE_EQ(blk[0xb8], 0x08);
	CASE_EQ(blk[0xbf], 0x01);
	CASE_EQ(memcmp(blk + 0x38, "fast0", 6), 0);
	CASE_EQ(blk[0x38 + 63], 0);

	sb->generation = 0x1122334455667789ULL;
	tier_sb_encode(sb, blk);
	CASE_EQ(memcmp(blk + 8, "DMTIERSB", 8), 0);
	CASE_EQ(get_le32(blk), tier_block_csum(blk));
	CASE_EQ(blk[0x20], 0x89);
	CASE_EQ(blk[0x27], 0x11);
	CASE_EQ(get_le32(blk + 0x4c), 1); /* slot */
	CASE_EQ(get_le64(blk + 0x100 + 64 + 0x18), GIB_SECTORS);

	sb->generation = 9;
	map_block_of(blk, sb, 1, 0x0a0b);
	CASE_EQ(memcmp(blk + 4, "TMAP", 4), 0);
	CASE_EQ(get_le64(blk + 8), 0x0a0b);
	CASE_EQ(get_le64(blk + 0x10), 9);
	CASE_EQ(get_le32(blk + 0x18), 1);
	CASE_EQ(get_le32(blk + 0x1c), tier_uuid_csum(sb->uuid));
	CASE_EQ(get_le64(blk + 0x20), MAPW(2, 5));
	CASE_EQ(blk[0x28], 77); /* heat */
	CASE_EQ(get_le32(blk + 0x2c), 1234); /* atime */
}

static void tier_format_err_str_test(CASE_CTX)
{
	struct tier_err err;
	int c, ret;

	for (c = 0; c < TIER_E_NR_CODES; c++) {
		const char *s = tier_err_str(c);

		CASE_ASSERT_NOT_NULL(s);
		CASE_GT(strlen(s), 0);
		CASE_STRNEQ(s, "unknown error");
		ret = tier_err_set(&err, c, 7, 9);
		CASE_EQ(err.code, c);
		CASE_EQ(err.item, 7);
		CASE_EQ(err.value, 9);
		if (c == TIER_E_NONE)
			CASE_EQ(ret, 0);
		else
			CASE_LT_MSG(ret, 0, "%s", s);
	}
	CASE_STREQ(tier_err_str(TIER_E_NR_CODES), "unknown error");
	CASE_STREQ(tier_err_str(-1), "unknown error");
	CASE_EQ(tier_err_set(NULL, TIER_E_LABEL_CSUM, 0, 0), -EBADMSG);
	CASE_EQ(tier_err_set(NULL, TIER_E_NR_CODES, 0, 0), -EINVAL);
	CASE_EQ(tier_map_blocks_for(0), 0);
	CASE_EQ(tier_map_blocks_for(1), 1);
	CASE_EQ(tier_map_blocks_for(254), 1);
	CASE_EQ(tier_map_blocks_for(255), 2);
	CASE_EQ(tier_map_blocks_for(TIER_MAX_PEXTS),
		(TIER_MAX_PEXTS + 253) / 254);
	CASE_EQ(tier_max_virt_extents(7), (1ULL << 48) - 1);
	CASE_EQ(tier_max_virt_extents(11), (1ULL << 44) - 1);
	CASE_EQ(tier_max_virt_extents(17), (1ULL << 38) - 1);
}

/* The numbers the case tables below rely on. */
static void tier_format_fixture_test(CASE_CTX)
{
	struct tier_fresh *f = fixture(test, false);
	const struct tier_layout *lo = &f->lo;

	CASE_EQ(lo->map_blocks, 29);
	CASE_EQ(lo->meta_blocks, 60);
	CASE_EQ(lo->meta_start, 8);
	CASE_EQ(lo->map_start[0], 24);
	CASE_EQ(lo->map_start[1], 256);
	CASE_EQ(lo->tier[0].data_start, 2048);
	CASE_EQ(lo->tier[1].data_start, 2048);
	CASE_EQ(lo->tier[0].nr_extents, 2047);
	CASE_EQ(lo->tier[1].nr_extents, 1023);
	CASE_EQ(lo->tier[2].nr_extents, 4095);
	CASE_EQ(lo->virt_extents, 7165);
	f = fixture(test, true);
	CASE_EQ(f->lo.meta_ext, 1);
	CASE_EQ(f->lo.map_blocks, 29);
	CASE_EQ(f->lo.tier[0].data_start, 2048);
	CASE_EQ(f->lo.tier[0].nr_extents, 2047);
	CASE_EQ(f->lo.meta_dev_sectors, 64 * MIB_SECTORS);
}

/* ---- layout ------------------------------------------------------------- */

struct layout_ok_case {
	const char *desc;
	struct tier_layout_req req;
	u64 virt_extents;
	u64 map_blocks;
	sector_t data_start0;
	u64 nr_extents0;
	u64 nr_extents_last;
};

/* clang-format off */
static const struct layout_ok_case layout_ok_cases[] = {
	{ "1 tier of 10 GiB, 1 MiB extents",
	  { 1, 11, { 10 * GIB_SECTORS } },
	  10239, 41, 2048, 10239, 10239 },
	{ "64 KiB extents",
	  { 1, 7, { GIB_SECTORS } },
	  16368, 65, 2048, 16368, 16368 },
	{ "64 MiB extents",
	  { 1, 17, { GIB_SECTORS } },
	  15, 1, 2048, 15, 15 },
	{ "64 MiB extents, exactly one extent",
	  { 1, 17, { 2048 + (1ULL << 17) } },
	  1, 1, 2048, 1, 1 },
	{ "64 KiB extents, exactly one extent",
	  { 1, 7, { 2048 + 128 } },
	  1, 1, 2048, 1, 1 },
	{ "1 MiB extents, exactly one extent",
	  { 1, 11, { 4096 } },
	  1, 1, 2048, 1, 1 },
	{ "3 tiers, metadata pushes tier 0 data out",
	  { 3, 11, { 100 * GIB_SECTORS, 200 * GIB_SECTORS + 5,
		     1000 * GIB_SECTORS } },
	  1331157, 5241, 83968, 102359, 1023999 },
	{ "8 tiers",
	  { 8, 11, { GIB_SECTORS, 2 * GIB_SECTORS, 3 * GIB_SECTORS,
		     4 * GIB_SECTORS, 5 * GIB_SECTORS, 6 * GIB_SECTORS,
		     7 * GIB_SECTORS, 8 * GIB_SECTORS } },
	  36855, 146, 4096, 1022, 8191 },
	{ "8 tiers, 64 MiB extents, metadata device",
	  { 8, 17, { GIB_SECTORS, GIB_SECTORS, GIB_SECTORS, GIB_SECTORS,
		     GIB_SECTORS, GIB_SECTORS, GIB_SECTORS, GIB_SECTORS },
	    0, 2048 },
	  120, 1, 2048, 15, 15 },
	{ "metadata device",
	  { 1, 11, { GIB_SECTORS }, 0, 64 * MIB_SECTORS },
	  1023, 5, 2048, 1023, 1023 },
	{ "metadata device exactly big enough",
	  { 1, 11, { GIB_SECTORS }, 0, 8 + 8 * (2 + 2 * 5) },
	  1023, 5, 2048, 1023, 1023 },
	{ "requested size below capacity",
	  { 1, 11, { GIB_SECTORS }, 100ULL << 11 },
	  100, 5, 2048, 1023, 1023 },
	{ "requested size equal to capacity",
	  { 1, 11, { GIB_SECTORS }, 1023ULL << 11 },
	  1023, 5, 2048, 1023, 1023 },
	{ "1 TiB in 1 MiB extents",
	  { 1, 11, { (1ULL << 31) + 64 * MIB_SECTORS }, 1ULL << 31 },
	  1ULL << 20, 4129, 67584, 1048607, 1048607 },
	{ "tier of exactly 2^32 extents",
	  { 2, 7, { GIB_SECTORS, 2048 + (1ULL << 39) }, 1ULL << 38,
	    1ULL << 60 },
	  1ULL << 31, 16909385, 2048, 16368, 1ULL << 32 },
	{ "8 tiers of 2^32 extents of 64 MiB",
	  { 8, 17, { 2048 + (1ULL << 49), 2048 + (1ULL << 49),
		     2048 + (1ULL << 49), 2048 + (1ULL << 49),
		     2048 + (1ULL << 49), 2048 + (1ULL << 49),
		     2048 + (1ULL << 49), 2048 + (1ULL << 49) }, 1ULL << 50,
	    1ULL << 60 },
	  1ULL << 33, 135274561, 2048, 1ULL << 32, 1ULL << 32 },
};

/* clang-format on */

static void layout_ok_desc(const struct layout_ok_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(layout_ok, layout_ok_cases, layout_ok_desc);

static void tier_layout_ok_test(CASE_CTX)
{
	const struct layout_ok_case *c = CASE_PARAM;
	const struct tier_layout_req *r = &c->req;
	struct tier_err err = { 0 };
	struct tier_layout lo;
	u64 raw = 0, cap = 0;
	sector_t meta_end;
	u32 i;

	CASE_ASSERT_EQ_MSG(tier_layout_compute(r, &lo, &err), 0, "%s",
			   tier_err_str(err.code));
	CASE_EQ(lo.nr_tiers, r->nr_tiers);
	CASE_EQ(lo.extent_shift, r->extent_shift);
	CASE_EQ(lo.virt_extents, c->virt_extents);
	CASE_EQ(lo.map_blocks, c->map_blocks);
	CASE_EQ(lo.tier[0].data_start, c->data_start0);
	CASE_EQ(lo.tier[0].nr_extents, c->nr_extents0);
	CASE_EQ(lo.tier[r->nr_tiers - 1].nr_extents, c->nr_extents_last);

	/* Invariants of every layout. */
	CASE_EQ(lo.meta_ext, r->meta_dev_sectors ? 1 : 0);
	CASE_EQ(lo.meta_dev_sectors, r->meta_dev_sectors);
	CASE_EQ(lo.meta_start, TIER_META_START);
	CASE_EQ(lo.meta_blocks, 2 + 2 * lo.map_blocks);
	CASE_EQ(lo.map_start[0], lo.meta_start + 16);
	CASE_EQ(lo.map_start[1], lo.map_start[0] + 8 * lo.map_blocks);
	meta_end = lo.map_start[1] + 8 * lo.map_blocks;
	CASE_EQ(meta_end, lo.meta_start + 8 * lo.meta_blocks);
	if (lo.meta_ext)
		CASE_LE(meta_end, lo.meta_dev_sectors);
	else
		CASE_LE(meta_end, lo.tier[0].data_start);
	for (i = 0; i < r->nr_tiers; i++) {
		const struct tier_layout_tier *t = &lo.tier[i];

		raw += r->dev_sectors[i] >> r->extent_shift;
		CASE_EQ(t->dev_sectors, r->dev_sectors[i]);
		CASE_EQ(t->data_start % TIER_DATA_ALIGN, 0);
		if (i > 0 || lo.meta_ext)
			CASE_EQ(t->data_start, TIER_DATA_ALIGN);
		CASE_EQ(t->nr_extents,
			(t->dev_sectors - t->data_start) >> r->extent_shift);
		CASE_GE(t->nr_extents, 1);
		CASE_LE(t->nr_extents, TIER_MAX_TIER_EXTENTS);
		cap += t->nr_extents;
	}
	for (; i < TIER_MAX_TIERS; i++)
		CASE_EQ(lo.tier[i].nr_extents, 0);
	/* The map covers the raw capacity, so growing never moves it. */
	CASE_EQ(lo.map_blocks, tier_map_blocks_for(raw));
	CASE_LE(lo.virt_extents, cap);
	CASE_LE(lo.virt_extents, tier_max_virt_extents(r->extent_shift));
	if (!r->virt_sectors)
		CASE_EQ(lo.virt_extents, cap);
}

/*
 * Every layout the table above accepts yields metadata that the decoders
 * accept too: the superblock, and the label of every device.
 */
static void tier_layout_decodes_test(CASE_CTX)
{
	const struct layout_ok_case *c = CASE_PARAM;
	struct tier_fresh *f = fmt_zalloc(test, sizeof(*f));
	struct tier_label *l = fmt_zalloc(test, 2 * sizeof(*l));
	struct tier_sb *sb = fmt_zalloc(test, 2 * sizeof(*sb));
	struct tier_err err = { 0 };
	u8 *blk = fmt_blk(test);
	u32 dev;
	int ret;

	CASE_ASSERT_EQ(tier_layout_compute(&c->req, &f->lo, NULL), 0);
	memset(f->uuid, 0x11, TIER_UUID_LEN);
	for (dev = 0; dev < TIER_MAX_DEVS; dev++)
		memset(f->member_uuid[dev], 0x20 + dev, TIER_UUID_LEN);
	strcpy(f->name, "edge");
	for (dev = 0; dev < c->req.nr_tiers; dev++)
		f->tier_class[dev] = TIER_CLASS_PMEM;
	ret = tier_fresh_check(f, &err);
	CASE_ASSERT_EQ_MSG(ret, 0, "%s", tier_err_str(err.code));

	tier_fresh_sb(f, &sb[0]);
	tier_sb_encode(&sb[0], blk);
	ret = tier_sb_decode(blk, 1, &sb[1], &err);
	CASE_ASSERT_EQ_MSG(ret, 0, "superblock: %s (item %llu)",
			   tier_err_str(err.code),
			   (unsigned long long)err.item);
	CASE_EQ(memcmp(&sb[0], &sb[1], sizeof(*sb)), 0);
	for (dev = 0; dev < TIER_MAX_DEVS; dev++) {
		if (dev >= c->req.nr_tiers &&
		    !(dev == TIER_META_DEV && f->lo.meta_ext))
			continue;
		tier_fresh_label(f, dev, &l[0]);
		tier_label_encode(&l[0], blk);
		ret = tier_label_decode(blk, &l[1], &err);
		CASE_EQ_MSG(ret, 0, "label %u: %s", dev,
			    tier_err_str(err.code));
		ret = tier_label_check_sb(&l[0], &sb[1], dev, &err);
		CASE_EQ_MSG(ret, 0, "label %u vs superblock", dev);
	}
}

struct layout_err_case {
	const char *desc;
	struct tier_layout_req req;
	int ret;
	enum tier_err_code code;
	u64 item;
};

/* clang-format off */
static const struct layout_err_case layout_err_cases[] = {
	{ "extent shift 6", { 1, 6, { GIB_SECTORS } },
	  -EINVAL, TIER_E_LAYOUT_EXTENT_SHIFT, 0 },
	{ "extent shift 18", { 1, 18, { GIB_SECTORS } },
	  -EINVAL, TIER_E_LAYOUT_EXTENT_SHIFT, 0 },
	{ "0 tiers", { 0, 11, { GIB_SECTORS } },
	  -EINVAL, TIER_E_LAYOUT_NR_TIERS, 0 },
	{ "9 tiers", { 9, 11, { GIB_SECTORS } },
	  -EINVAL, TIER_E_LAYOUT_NR_TIERS, 0 },
	{ "tier 0 one sector short of a 1 MiB extent", { 1, 11, { 4095 } },
	  -EINVAL, TIER_E_LAYOUT_TIER_TOO_SMALL, 0 },
	{ "tier 0 one sector short of a 64 MiB extent",
	  { 1, 17, { 2048 + (1ULL << 17) - 1 } },
	  -EINVAL, TIER_E_LAYOUT_TIER_TOO_SMALL, 0 },
	{ "tier 0 too small for the metadata", { 1, 7, { 1000 } },
	  -EINVAL, TIER_E_LAYOUT_META_TOO_SMALL, 0 },
	{ "empty tier 0", { 1, 7, { 0 } },
	  -EINVAL, TIER_E_LAYOUT_META_TOO_SMALL, 0 },
	{ "tier 1 too small for one extent",
	  { 2, 11, { GIB_SECTORS, 2048 + 100 } },
	  -EINVAL, TIER_E_LAYOUT_TIER_TOO_SMALL, 1 },
	{ "tier 1 smaller than its data start",
	  { 2, 11, { GIB_SECTORS, 100 } },
	  -EINVAL, TIER_E_LAYOUT_TIER_TOO_SMALL, 1 },
	{ "tier 7 of 8 too small",
	  { 8, 11, { GIB_SECTORS, GIB_SECTORS, GIB_SECTORS, GIB_SECTORS,
		     GIB_SECTORS, GIB_SECTORS, GIB_SECTORS, 2048 } },
	  -EINVAL, TIER_E_LAYOUT_TIER_TOO_SMALL, 7 },
	{ "metadata device one sector short",
	  { 1, 11, { GIB_SECTORS }, 0, 8 + 8 * (2 + 2 * 5) - 1 },
	  -EINVAL, TIER_E_LAYOUT_META_TOO_SMALL, TIER_META_DEV },
	{ "requested size one extent over capacity",
	  { 1, 11, { GIB_SECTORS }, 1024ULL << 11 },
	  -ENOSPC, TIER_E_LAYOUT_VIRT_TOO_BIG, 0 },
	{ "requested size over 8 tiers' capacity",
	  { 8, 17, { GIB_SECTORS, GIB_SECTORS, GIB_SECTORS, GIB_SECTORS,
		     GIB_SECTORS, GIB_SECTORS, GIB_SECTORS, GIB_SECTORS },
	    121ULL << 17, 2048 },
	  -ENOSPC, TIER_E_LAYOUT_VIRT_TOO_BIG, 0 },
	{ "requested size not extent aligned",
	  { 1, 11, { GIB_SECTORS }, (100ULL << 11) + 1 },
	  -EINVAL, TIER_E_LAYOUT_VIRT_UNALIGNED, 0 },
	{ "requested size of 2^63 sectors",
	  { 1, 11, { GIB_SECTORS }, 1ULL << 63 },
	  -E2BIG, TIER_E_LAYOUT_VIRT_LIMIT, 0 },
	{ "metadata for 2^48 extents on a 1 GiB tier 0",
	  { 2, 7, { GIB_SECTORS, 2048 + (1ULL << 55) } },
	  -EINVAL, TIER_E_LAYOUT_META_TOO_SMALL, 0 },
	{ "tier of 2^32 + 1 extents (the in-memory map's limit)",
	  { 2, 7, { GIB_SECTORS, 2048 + (1ULL << 39) + 128 }, 0, 1ULL << 60 },
	  -E2BIG, TIER_E_LAYOUT_TIER_TOO_BIG, 1 },
	{ "tier of 2^48 + 1 extents",
	  { 2, 7, { GIB_SECTORS, 2048 + (1ULL << 55) + 128 }, 0, 1ULL << 60 },
	  -E2BIG, TIER_E_LAYOUT_TIER_TOO_BIG, 1 },
	{ "8 tiers of 2^64 - 1 sectors, all of it",
	  { 8, 17, { U64_MAX, U64_MAX, U64_MAX, U64_MAX, U64_MAX, U64_MAX,
		     U64_MAX, U64_MAX } },
	  -E2BIG, TIER_E_LAYOUT_TIER_TOO_BIG, 0 },
};

/* clang-format on */

static void layout_err_desc(const struct layout_err_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(layout_err, layout_err_cases, layout_err_desc);

static void tier_layout_err_test(CASE_CTX)
{
	const struct layout_err_case *c = CASE_PARAM;
	struct tier_layout *lo = fmt_zalloc(test, 2 * sizeof(*lo));
	struct tier_err err = { 0 };
	int ret;

	memset(lo, 0x5a, 2 * sizeof(*lo));
	ret = tier_layout_compute(&c->req, lo, &err);
	expect_err(test, ret, &err, c->ret, c->code, c->desc);
	CASE_EQ(err.item, c->item);
	/* The output is written only on success. */
	CASE_EQ(memcmp(lo, lo + 1, sizeof(*lo)), 0);
	CASE_EQ(tier_layout_compute(&c->req, lo, NULL), c->ret);
}

/*
 * The smallest metadata device: exactly that size is accepted, one sector
 * less refused; it grows with the tiers' raw capacity, not with the
 * virtual size, and equals what the layout then places on the device.
 */
struct meta_min_case {
	const char *desc;
	struct tier_layout_req req;
	sector_t min;
};

/* clang-format off */
static const struct meta_min_case meta_min_cases[] = {
	/* 1 GiB at 1 MiB extents: 1024 extents, 5 map blocks per copy. */
	{ "one 1 GiB tier, 1 MiB extents", { 1, 11, { GIB_SECTORS } },
	  8 + 8 * (2 + 2 * 5) },
	{ "a size request does not shrink it",
	  { 1, 11, { GIB_SECTORS }, 1ULL << 11 }, 8 + 8 * (2 + 2 * 5) },
	/* 2 x 1 GiB + 8 GiB at 64 KiB extents: 163840 extents, 646 blocks. */
	{ "three tiers, 64 KiB extents",
	  { 3, 7, { GIB_SECTORS, GIB_SECTORS, 8 * GIB_SECTORS } },
	  8 + 8 * (2 + 2 * 646) },
	/* 100 TiB at 1 MiB extents: 104857600 extents, 412826 blocks. */
	{ "100 TiB, 1 MiB extents", { 1, 11, { 100 * 1024 * GIB_SECTORS } },
	  8 + 8 * (2 + 2 * 412826ULL) },
	{ "a tier too small for one extent still needs a map block",
	  { 1, 17, { 2048 } }, 8 + 8 * (2 + 2 * 1) },
};

/* clang-format on */

static void meta_min_desc(const struct meta_min_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(meta_min, meta_min_cases, meta_min_desc);

static void tier_layout_meta_min_test(CASE_CTX)
{
	const struct meta_min_case *c = CASE_PARAM;
	struct tier_layout_req req = c->req;
	struct tier_layout *lo = fmt_zalloc(test, sizeof(*lo));
	struct tier_err err = { 0 };

	CASE_EQ(tier_layout_meta_min_sectors(&req), c->min);
	req.meta_dev_sectors = 12345; /* ignored */
	CASE_EQ(tier_layout_meta_min_sectors(&req), c->min);
	if (!tier_layout_compute(&c->req, lo, NULL)) {
		req.meta_dev_sectors = c->min;
		CASE_EQ(tier_layout_compute(&req, lo, &err), 0);
		CASE_EQ(lo->meta_start + 8 * lo->meta_blocks, c->min);
		req.meta_dev_sectors = c->min - 1;
		expect_err(test, tier_layout_compute(&req, lo, &err), &err,
			   -EINVAL, TIER_E_LAYOUT_META_TOO_SMALL, c->desc);
		CASE_EQ(err.item, TIER_META_DEV);
	}
}

/* ---- label -------------------------------------------------------------- */

struct label_rt_case {
	const char *desc;
	u32 dev;
	bool meta_ext;
	u64 flags;
};

/* clang-format off */
static const struct label_rt_case label_rt_cases[] = {
	{ "tier 0 holding the metadata", 0, false, TIER_LABEL_F_META },
	{ "tier 1", 1, false, 0 },
	{ "tier 2", 2, false, 0 },
	{ "tier 0, metadata device", 0, true, TIER_LABEL_F_META_EXT },
	{ "tier 1, metadata device", 1, true, TIER_LABEL_F_META_EXT },
	{ "tier 2, metadata device", 2, true, TIER_LABEL_F_META_EXT },
	{ "metadata device", TIER_META_DEV, true,
	  TIER_LABEL_F_META | TIER_LABEL_F_META_EXT },
};

/* clang-format on */

static void label_rt_desc(const struct label_rt_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(label_rt, label_rt_cases, label_rt_desc);

static void tier_label_roundtrip_test(CASE_CTX)
{
	const struct label_rt_case *c = CASE_PARAM;
	struct tier_label *l = label_fixture(test, c->dev, c->meta_ext);
	struct tier_label *out = fmt_zalloc(test, sizeof(*out));
	struct tier_err err = { 0 };
	u8 *blk = fmt_blk(test), *again = fmt_blk(test);
	bool holds_meta = c->flags & TIER_LABEL_F_META;

	CASE_EQ(l->flags, c->flags);
	CASE_EQ(l->tier_index, c->dev);
	CASE_STREQ(l->name, "fast0");
	CASE_EQ(l->meta_start, holds_meta ? 8 : 0);
	CASE_EQ(l->meta_blocks, holds_meta ? 60 : 0);
	if (c->dev == TIER_META_DEV) {
		CASE_EQ(l->tier_class, TIER_CLASS_META);
		CASE_EQ(l->nr_extents, 0);
		CASE_EQ(l->data_start, 0);
	}

	tier_label_encode(l, blk);
	memset(out, 0xa5, sizeof(*out));
	CASE_ASSERT_EQ_MSG(tier_label_decode(blk, out, &err), 0, "%s",
			   tier_err_str(err.code));
	CASE_EQ(memcmp(l, out, sizeof(*l)), 0);
	/* The decoded label encodes to the same block. */
	memset(again, 0xa5, TIER_BLOCK_SIZE);
	tier_label_encode(out, again);
	CASE_EQ(memcmp(blk, again, TIER_BLOCK_SIZE), 0);
}

static void tier_name_valid_test(CASE_CTX)
{
	char *name = fmt_zalloc(test, 80);

	CASE_TRUE(tier_name_valid("a"));
	CASE_TRUE(tier_name_valid("vol-1_fast.x~"));
	CASE_FALSE(tier_name_valid(""));
	CASE_FALSE(tier_name_valid("a/b"));
	CASE_FALSE(tier_name_valid(" a"));
	CASE_FALSE(tier_name_valid("a\x7f"));
	CASE_FALSE(tier_name_valid("a\x80"));
	memset(name, 'x', 80);
	name[63] = '\0';
	CASE_TRUE(tier_name_valid(name));
	name[63] = 'x';
	name[64] = '\0';
	CASE_FALSE(tier_name_valid(name));
}

/* ---- corrupted headers of all three block kinds ------------------------- */

enum blk_kind { BK_LABEL, BK_SB, BK_MAP };

/*
 * Overwrite @size bytes at @off with little-endian @val (@size 0: zero the
 * whole block), reseal if @reseal, decode. Label: tier 0 of the fixture.
 * Superblock: the fixture's, generation 1, read from slot 1. Map block:
 * index 2 of copy 1 at generation 9, checked against the superblock with
 * generation 9.
 */
struct corrupt_case {
	const char *desc;
	enum blk_kind kind;
	u32 off;
	u32 size;
	u64 val;
	bool reseal;
	int ret;
	enum tier_err_code code;
};

#define DLBL(f, n) .off = offsetof(struct tier_label_disk, f), .size = (n)
#define DSB(f, n) .off = offsetof(struct tier_sb_disk, f), .size = (n)
#define DMAP(f, n) .off = offsetof(struct tier_map_block_disk, f), .size = (n)

/* clang-format off */
static const struct corrupt_case corrupt_cases[] = {
	{ .desc = "label: zero block", .kind = BK_LABEL,
	  .ret = -ENODATA, .code = TIER_E_LABEL_MAGIC },
	{ .desc = "label: superblock magic", .kind = BK_LABEL,
	  DLBL(magic, 8), .val = TIER_SB_MAGIC, .reseal = true,
	  .ret = -ENODATA, .code = TIER_E_LABEL_MAGIC },
	{ .desc = "label: reserved byte changed", .kind = BK_LABEL,
	  DLBL(reserved[100], 1), .val = 1,
	  .ret = -EBADMSG, .code = TIER_E_LABEL_CSUM },
	{ .desc = "label: checksum changed", .kind = BK_LABEL,
	  DLBL(csum, 4), .val = 0x12345678,
	  .ret = -EBADMSG, .code = TIER_E_LABEL_CSUM },
	{ .desc = "label: version 2", .kind = BK_LABEL,
	  DLBL(version, 4), .val = 2, .reseal = true,
	  .ret = -EPROTO, .code = TIER_E_LABEL_VERSION },
	{ .desc = "label: version 0", .kind = BK_LABEL,
	  DLBL(version, 4), .val = 0, .reseal = true,
	  .ret = -EPROTO, .code = TIER_E_LABEL_VERSION },
	{ .desc = "label: unknown flag", .kind = BK_LABEL,
	  DLBL(flags, 8), .val = TIER_LABEL_F_META | BIT_ULL(7), .reseal = true,
	  .ret = -EOPNOTSUPP, .code = TIER_E_LABEL_FLAGS },
	{ .desc = "label: name not NUL padded", .kind = BK_LABEL,
	  DLBL(name[10], 1), .val = 'x', .reseal = true,
	  .ret = -EUCLEAN, .code = TIER_E_LABEL_NAME },
	{ .desc = "label: reserved byte, resealed (ignored)", .kind = BK_LABEL,
	  DLBL(reserved[100], 1), .val = 1, .reseal = true },
	{ .desc = "sb: zero block", .kind = BK_SB,
	  .ret = -EUCLEAN, .code = TIER_E_SB_MAGIC },
	{ .desc = "sb: label magic", .kind = BK_SB,
	  DSB(magic, 8), .val = TIER_LABEL_MAGIC, .reseal = true,
	  .ret = -EUCLEAN, .code = TIER_E_SB_MAGIC },
	{ .desc = "sb: reserved byte changed", .kind = BK_SB,
	  DSB(reserved2[3000], 1), .val = 1,
	  .ret = -EBADMSG, .code = TIER_E_SB_CSUM },
	{ .desc = "sb: version 2", .kind = BK_SB,
	  DSB(version, 4), .val = 2, .reseal = true,
	  .ret = -EPROTO, .code = TIER_E_SB_VERSION },
	{ .desc = "sb: block of slot 0", .kind = BK_SB,
	  DSB(slot, 4), .val = 0, .reseal = true,
	  .ret = -EUCLEAN, .code = TIER_E_SB_SLOT },
	{ .desc = "sb: generation of the other parity", .kind = BK_SB,
	  DSB(generation, 8), .val = 4, .reseal = true,
	  .ret = -EUCLEAN, .code = TIER_E_SB_GENERATION },
	{ .desc = "sb: generation 3", .kind = BK_SB,
	  DSB(generation, 8), .val = 3, .reseal = true },
	{ .desc = "sb: unknown incompat feature", .kind = BK_SB,
	  DSB(incompat, 8), .val = BIT_ULL(3), .reseal = true,
	  .ret = -EOPNOTSUPP, .code = TIER_E_SB_INCOMPAT },
	{ .desc = "sb: unknown ro_compat feature (readable)", .kind = BK_SB,
	  DSB(ro_compat, 8), .val = BIT_ULL(0), .reseal = true },
	{ .desc = "sb: reserved bytes, resealed (ignored)", .kind = BK_SB,
	  DSB(reserved1[3], 1), .val = 1, .reseal = true },
	{ .desc = "sb: tier reserved, resealed (ignored)", .kind = BK_SB,
	  DSB(tier[0].reserved, 8), .val = 1, .reseal = true },
	{ .desc = "map: zero block", .kind = BK_MAP,
	  .ret = -EUCLEAN, .code = TIER_E_MAP_MAGIC },
	{ .desc = "map: bad magic", .kind = BK_MAP,
	  DMAP(magic, 4), .val = 0x12345678, .reseal = true,
	  .ret = -EUCLEAN, .code = TIER_E_MAP_MAGIC },
	{ .desc = "map: entry changed", .kind = BK_MAP,
	  DMAP(entry[0].heat, 2), .val = 78,
	  .ret = -EBADMSG, .code = TIER_E_MAP_CSUM },
	{ .desc = "map: wrong block index", .kind = BK_MAP,
	  DMAP(block_index, 8), .val = 3, .reseal = true,
	  .ret = -EUCLEAN, .code = TIER_E_MAP_INDEX },
	{ .desc = "map: block of the other copy", .kind = BK_MAP,
	  DMAP(copy, 4), .val = 0, .reseal = true,
	  .ret = -EUCLEAN, .code = TIER_E_MAP_COPY },
	{ .desc = "map: block of another device", .kind = BK_MAP,
	  DMAP(uuid_csum, 4), .val = 0, .reseal = true,
	  .ret = -EUCLEAN, .code = TIER_E_MAP_UUID },
	{ .desc = "map: generation newer than the superblock", .kind = BK_MAP,
	  DMAP(generation, 8), .val = 10, .reseal = true,
	  .ret = -EUCLEAN, .code = TIER_E_MAP_GENERATION },
	{ .desc = "map: generation equal to the superblock", .kind = BK_MAP,
	  DMAP(generation, 8), .val = 9, .reseal = true },
	{ .desc = "map: generation older than the superblock", .kind = BK_MAP,
	  DMAP(generation, 8), .val = 1, .reseal = true },
	{ .desc = "map: entry on tier 3 of 3", .kind = BK_MAP,
	  DMAP(entry[1].map, 8), .val = MAPW(3, 0), .reseal = true,
	  .ret = -EUCLEAN, .code = TIER_E_MAP_ENTRY_TIER },
	{ .desc = "map: entry past its tier", .kind = BK_MAP,
	  DMAP(entry[1].map, 8), .val = MAPW(1, 1023), .reseal = true,
	  .ret = -EUCLEAN, .code = TIER_E_MAP_ENTRY_PEXT },
};

/* clang-format on */

static void corrupt_desc(const struct corrupt_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(corrupt, corrupt_cases, corrupt_desc);

static void put_le(u8 *p, u32 size, u64 val)
{
	u32 i;

	for (i = 0; i < size; i++)
		p[i] = val >> (8 * i);
}

static void tier_format_corrupt_test(CASE_CTX)
{
	const struct corrupt_case *c = CASE_PARAM;
	struct tier_sb *sb = sb_fixture(test, false);
	struct tier_label *l = fmt_zalloc(test, 2 * sizeof(*l));
	struct tier_sb *out = fmt_zalloc(test, 2 * sizeof(*out));
	struct tier_err err = { 0 };
	u8 *blk = fmt_blk(test);
	int ret;

	switch (c->kind) {
	case BK_LABEL:
		tier_label_encode(label_fixture(test, 0, false), blk);
		break;
	case BK_SB:
		tier_sb_encode(sb, blk);
		break;
	case BK_MAP:
		sb->generation = 9;
		map_block_of(blk, sb, 1, 2);
		break;
	}
	if (c->size)
		put_le(blk + c->off, c->size, c->val);
	else
		memset(blk, 0, TIER_BLOCK_SIZE);
	if (c->reseal)
		reseal(blk);

	memset(l, 0x5a, 2 * sizeof(*l));
	memset(out, 0x5a, 2 * sizeof(*out));
	switch (c->kind) {
	case BK_LABEL:
		ret = tier_label_decode(blk, l, &err);
		break;
	case BK_SB:
		ret = tier_sb_decode(blk, 1, out, &err);
		break;
	default:
		ret = tier_map_block_check(blk, sb, 1, 2, &err);
		break;
	}
	expect_err(test, ret, &err, c->ret, c->code, c->desc);
	if (ret) {
		/* Nothing written on error. */
		CASE_EQ(memcmp(l, l + 1, sizeof(*l)), 0);
		CASE_EQ(memcmp(out, out + 1, sizeof(*out)), 0);
	}
	if (c->kind == BK_SB && !ret)
		CASE_EQ(tier_sb_needs_ro(out),
			c->off == offsetof(struct tier_sb_disk, ro_compat));
}

/*
 * Every single-bit error anywhere in a block is detected: inside the magic
 * by the magic check, everywhere else (the checksum field included) by the
 * checksum.
 */
struct flip_case {
	const char *desc;
	enum blk_kind kind;
	u32 magic_off;
	u32 magic_len;
	enum tier_err_code magic_code;
	int magic_ret;
	enum tier_err_code csum_code;
};

/* clang-format off */
static const struct flip_case flip_cases[] = {
	{ "label", BK_LABEL, 8, 8, TIER_E_LABEL_MAGIC, -ENODATA,
	  TIER_E_LABEL_CSUM },
	{ "superblock", BK_SB, 8, 8, TIER_E_SB_MAGIC, -EUCLEAN,
	  TIER_E_SB_CSUM },
	{ "map block", BK_MAP, 4, 4, TIER_E_MAP_MAGIC, -EUCLEAN,
	  TIER_E_MAP_CSUM },
};

/* clang-format on */

static void flip_desc(const struct flip_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(flip, flip_cases, flip_desc);

static int flip_decode(const struct flip_case *c, const u8 *blk,
		       const struct tier_sb *sb, void *out,
		       struct tier_err *err)
{
	switch (c->kind) {
	case BK_LABEL:
		return tier_label_decode(blk, out, err);
	case BK_SB:
		return tier_sb_decode(blk, 1, out, err);
	default:
		return tier_map_block_check(blk, sb, 1, 2, err);
	}
}

static void tier_format_bitflip_test(CASE_CTX)
{
	const struct flip_case *c = CASE_PARAM;
	struct tier_sb *sb = sb_fixture(test, false);
	void *out = fmt_zalloc(test, sizeof(struct tier_sb));
	struct tier_err err = { 0 };
	u8 *blk = fmt_blk(test);
	u32 i, bad = 0;
	int bit, ret;

	switch (c->kind) {
	case BK_LABEL:
		tier_label_encode(label_fixture(test, 0, false), blk);
		break;
	case BK_SB:
		tier_sb_encode(sb, blk);
		break;
	case BK_MAP:
		map_block_of(blk, sb, 1, 2);
		break;
	}
	CASE_ASSERT_EQ(flip_decode(c, blk, sb, out, &err), 0);
	for (i = 0; i < TIER_BLOCK_SIZE; i++) {
		bool in_magic = i >= c->magic_off &&
				i < c->magic_off + c->magic_len;
		enum tier_err_code want = in_magic ? c->magic_code :
						     c->csum_code;
		int want_ret = in_magic ? c->magic_ret : -EBADMSG;

		for (bit = 0; bit < 8; bit++) {
			blk[i] ^= 1 << bit;
			err.code = TIER_E_NONE;
			ret = flip_decode(c, blk, sb, out, &err);
			blk[i] ^= 1 << bit;
			if (ret == want_ret && err.code == want)
				continue;
			/* Report the first few only. */
			if (bad++ < 4)
				CASE_FAIL("byte %u bit %d: %d \"%s\"", i, bit,
					  ret, tier_err_str(err.code));
		}
	}
	CASE_EQ(bad, 0);
	CASE_EQ(flip_decode(c, blk, sb, out, &err), 0);
}

/* ---- label fields ------------------------------------------------------- */

/*
 * Set one field of a fixture label (@add: add @val instead), encode,
 * decode. Devices: 0 holds the metadata (meta_start 8, 60 blocks, data at
 * 2048, 2047 extents), 1 is 1 GiB (data at 2048, 1023 extents), the
 * metadata device (with @meta_ext) is 64 MiB. All failures are -EUCLEAN.
 */
struct label_case {
	const char *desc;
	u32 dev;
	bool meta_ext;
	u32 off;
	u32 size;
	u64 val;
	bool add;
	enum tier_err_code code;
};

#define L32(f) .off = offsetof(struct tier_label, f), .size = sizeof(u32)
#define L64(f) .off = offsetof(struct tier_label, f), .size = sizeof(u64)

/* clang-format off */
static const struct label_case label_cases[] = {
	{ .desc = "extent shift 6", .dev = 1, L32(extent_shift), .val = 6,
	  .code = TIER_E_LABEL_EXTENT_SHIFT },
	{ .desc = "extent shift 18", .dev = 1, L32(extent_shift), .val = 18,
	  .code = TIER_E_LABEL_EXTENT_SHIFT },
	{ .desc = "0 tiers", .dev = 1, L32(nr_tiers), .val = 0,
	  .code = TIER_E_LABEL_NR_TIERS },
	{ .desc = "9 tiers", .dev = 1, L32(nr_tiers), .val = 9,
	  .code = TIER_E_LABEL_NR_TIERS },
	{ .desc = "index 3 of 3", .dev = 1, L32(tier_index), .val = 3,
	  .code = TIER_E_LABEL_TIER_INDEX },
	{ .desc = "index 7 of 3", .dev = 1, L32(tier_index), .val = 7,
	  .code = TIER_E_LABEL_TIER_INDEX },
	{ .desc = "class 99", .dev = 1, L32(tier_class), .val = 99,
	  .code = TIER_E_LABEL_CLASS },
	{ .desc = "class mem", .dev = 1, L32(tier_class),
	  .val = TIER_CLASS_MEM, .code = TIER_E_LABEL_CLASS },
	{ .desc = "tier of class meta", .dev = 1, L32(tier_class),
	  .val = TIER_CLASS_META, .code = TIER_E_LABEL_CLASS },
	{ .desc = "metadata device of class nvme", .dev = TIER_META_DEV,
	  .meta_ext = true, L32(tier_class), .val = TIER_CLASS_NVME,
	  .code = TIER_E_LABEL_CLASS },
	{ .desc = "tier 0 holds nothing", .dev = 0, L64(flags), .val = 0,
	  .code = TIER_E_LABEL_META },
	{ .desc = "tier 0 with both flags", .dev = 0, L64(flags),
	  .val = TIER_LABEL_F_META | TIER_LABEL_F_META_EXT,
	  .code = TIER_E_LABEL_META },
	{ .desc = "tier 1 holds the metadata", .dev = 1, L64(flags),
	  .val = TIER_LABEL_F_META, .code = TIER_E_LABEL_META },
	{ .desc = "metadata device without META_EXT", .dev = TIER_META_DEV,
	  .meta_ext = true, L64(flags), .val = TIER_LABEL_F_META,
	  .code = TIER_E_LABEL_META },
	{ .desc = "metadata device without META", .dev = TIER_META_DEV,
	  .meta_ext = true, L64(flags), .val = TIER_LABEL_F_META_EXT,
	  .code = TIER_E_LABEL_META },
	{ .desc = "meta_start 0", .dev = 0, L64(meta_start), .val = 0,
	  .code = TIER_E_LABEL_META },
	{ .desc = "meta_blocks 0", .dev = 0, L64(meta_blocks), .val = 0,
	  .code = TIER_E_LABEL_META },
	{ .desc = "meta_blocks 2^64 - 1", .dev = 0, L64(meta_blocks),
	  .val = U64_MAX, .code = TIER_E_LABEL_META },
	{ .desc = "metadata overlaps the data", .dev = 0, L64(meta_blocks),
	  .val = 256, .code = TIER_E_LABEL_META },
	{ .desc = "meta_start past the data start", .dev = 0, L64(meta_start),
	  .val = 2056, .code = TIER_E_LABEL_META },
	{ .desc = "meta_start on tier 1", .dev = 1, L64(meta_start), .val = 8,
	  .code = TIER_E_LABEL_META },
	{ .desc = "meta_blocks on tier 1", .dev = 1, L64(meta_blocks),
	  .val = 1, .code = TIER_E_LABEL_META },
	{ .desc = "metadata device one sector short", .dev = TIER_META_DEV,
	  .meta_ext = true, L64(dev_sectors), .val = 8 + 8 * 60 - 1,
	  .code = TIER_E_LABEL_META },
	{ .desc = "data_start 0", .dev = 1, L64(data_start), .val = 0,
	  .code = TIER_E_LABEL_DATA_START },
	{ .desc = "data_start 4", .dev = 1, L64(data_start), .val = 4,
	  .code = TIER_E_LABEL_DATA_START },
	{ .desc = "data_start unaligned", .dev = 1, L64(data_start),
	  .val = 2049, .code = TIER_E_LABEL_DATA_START },
	{ .desc = "data_start at the device end", .dev = 1, L64(data_start),
	  .val = GIB_SECTORS, .code = TIER_E_LABEL_DATA_START },
	{ .desc = "data_start on the metadata device", .dev = TIER_META_DEV,
	  .meta_ext = true, L64(data_start), .val = 2048,
	  .code = TIER_E_LABEL_DATA_START },
	{ .desc = "nr_extents 0", .dev = 1, L64(nr_extents), .val = 0,
	  .code = TIER_E_LABEL_NR_EXTENTS },
	{ .desc = "nr_extents one past the end", .dev = 1, L64(nr_extents),
	  .val = 1, .add = true, .code = TIER_E_LABEL_NR_EXTENTS },
	{ .desc = "nr_extents 2^48 + 1", .dev = 1, L64(nr_extents),
	  .val = TIER_MAX_PEXTS + 1, .code = TIER_E_LABEL_NR_EXTENTS },
	{ .desc = "nr_extents on the metadata device", .dev = TIER_META_DEV,
	  .meta_ext = true, L64(nr_extents), .val = 1,
	  .code = TIER_E_LABEL_NR_EXTENTS },
	{ .desc = "virt_extents 0", .dev = 1, L64(virt_extents), .val = 0,
	  .code = TIER_E_LABEL_VIRT_EXTENTS },
	{ .desc = "virt_extents 2^44", .dev = 1, L64(virt_extents),
	  .val = 1ULL << 44, .code = TIER_E_LABEL_VIRT_EXTENTS },
	/* Edges that are fine. */
	{ .desc = "virt_extents 2^44 - 1", .dev = 1, L64(virt_extents),
	  .val = (1ULL << 44) - 1 },
	{ .desc = "class unknown", .dev = 1, L32(tier_class),
	  .val = TIER_CLASS_UNKNOWN },
	{ .desc = "class pmem", .dev = 2, L32(tier_class),
	  .val = TIER_CLASS_PMEM },
	{ .desc = "metadata device exactly big enough", .dev = TIER_META_DEV,
	  .meta_ext = true, L64(dev_sectors), .val = 8 + 8 * 60 },
	{ .desc = "metadata right before the data", .dev = 0,
	  L64(meta_blocks), .val = 255 },
	{ .desc = "tier 1 without META_EXT", .dev = 1, .meta_ext = true,
	  L64(flags), .val = 0 },
};

/* clang-format on */

static void label_desc(const struct label_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(label, label_cases, label_desc);

/* Set (or add to) a u32 or u64 field of a cpu-endian struct. */
static void set_field(CASE_CTX, void *s, u32 off, u32 size, u64 val, bool add)
{
	u32 *p32 = s + off;
	u64 *p64 = s + off;

	switch (size) {
	case sizeof(u32):
		*p32 = add ? *p32 + val : val;
		break;
	case sizeof(u64):
		*p64 = add ? *p64 + val : val;
		break;
	default:
		CASE_FAIL("field of %u bytes", size);
	}
}

static void tier_label_field_test(CASE_CTX)
{
	const struct label_case *c = CASE_PARAM;
	struct tier_label *l = label_fixture(test, c->dev, c->meta_ext);
	struct tier_label *out = fmt_zalloc(test, 2 * sizeof(*out));
	struct tier_err err = { 0 };
	u8 *blk = fmt_blk(test);
	int ret;

	set_field(test, l, c->off, c->size, c->val, c->add);
	tier_label_encode(l, blk);
	memset(out, 0x5a, 2 * sizeof(*out));
	ret = tier_label_decode(blk, out, &err);
	expect_err(test, ret, &err, c->code ? -EUCLEAN : 0, c->code, c->desc);
	if (ret)
		CASE_EQ(memcmp(out, out + 1, sizeof(*out)), 0);
	else
		CASE_EQ(memcmp(out, l, sizeof(*out)), 0);
}

struct name_case {
	const char *desc;
	const char *name;
};

/* clang-format off */
static const struct name_case bad_names[] = {
	{ "empty", "" },
	{ "slash", "a/b" },
	{ "blank", "a b" },
	{ "leading blank", " a" },
	{ "tab", "a\tb" },
	{ "DEL", "a\x7f" },
	{ "8-bit", "a\x80" },
};

/* clang-format on */

static void name_desc(const struct name_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(bad_name, bad_names, name_desc);

static void tier_label_bad_name_test(CASE_CTX)
{
	const struct name_case *c = CASE_PARAM;
	struct tier_label *l = label_fixture(test, 1, false);
	struct tier_label *out = fmt_zalloc(test, sizeof(*out));
	struct tier_err err = { 0 };
	u8 *blk = fmt_blk(test);

	CASE_FALSE(tier_name_valid(c->name));
	memset(l->name, 0, sizeof(l->name));
	snprintf(l->name, sizeof(l->name), "%s", c->name);
	tier_label_encode(l, blk);
	expect_err(test, tier_label_decode(blk, out, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_NAME, c->desc);
}

/* A name filling the whole field has no terminating NUL. */
static void tier_label_long_name_test(CASE_CTX)
{
	struct tier_label_disk *d = (void *)fmt_blk(test);
	struct tier_label *l = label_fixture(test, 1, false);
	struct tier_label *out = fmt_zalloc(test, sizeof(*out));
	struct tier_err err = { 0 };

	memset(l->name, 'a', TIER_NAME_LEN - 1);
	tier_label_encode(l, d);
	CASE_EQ(tier_label_decode(d, out, &err), 0);
	CASE_EQ(strlen(out->name), TIER_NAME_LEN - 1);
	d->name[TIER_NAME_LEN - 1] = 'a';
	reseal(d);
	expect_err(test, tier_label_decode(d, out, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_NAME, "no NUL");
}

/* ---- superblock --------------------------------------------------------- */

static void tier_sb_roundtrip_test(CASE_CTX)
{
	struct tier_sb *out = fmt_zalloc(test, sizeof(*out));
	struct tier_err err = { 0 };
	u8 *blk = fmt_blk(test);
	struct tier_sb *sb;
	int ext;

	for (ext = 0; ext < 2; ext++) {
		sb = sb_fixture(test, ext);
		CASE_EQ(sb->generation, 1);
		CASE_EQ(sb->active_copy, 0);
		CASE_EQ(!!(sb->flags & TIER_SB_F_META_EXT), ext);
		tier_sb_encode(sb, blk);
		memset(out, 0xa5, sizeof(*out));
		CASE_ASSERT_EQ(tier_sb_decode(blk, 1, out, &err), 0);
		CASE_EQ(memcmp(sb, out, sizeof(*sb)), 0);
		/* The next generation goes to the other slot. */
		sb->generation = 2;
		sb->active_copy = 1;
		sb->commit_time = 1700000100;
		sb->tier[2].used_extents = 7;
		sb->tier[1].flags = 0x80; /* preserved */
		sb->flags |= BIT_ULL(40); /* preserved */
		tier_sb_encode(sb, blk);
		CASE_EQ(tier_sb_decode(blk, 1, out, &err), -EUCLEAN);
		CASE_EQ(err.code, TIER_E_SB_SLOT);
		CASE_ASSERT_EQ(tier_sb_decode(blk, 0, out, &err), 0);
		CASE_EQ(memcmp(sb, out, sizeof(*sb)), 0);
		CASE_FALSE(tier_sb_needs_ro(out));
	}
	/* Unknown compat bits are dropped by a v1 writer. */
	sb->compat = BIT_ULL(5);
	tier_sb_encode(sb, blk);
	CASE_ASSERT_EQ(tier_sb_decode(blk, 0, out, &err), 0);
	CASE_EQ(out->compat, 0);
	CASE_EQ(tier_sb_slot(41), 1);
	CASE_EQ(tier_sb_slot(U64_MAX - 1), 0);
	CASE_EQ(tier_sb_sector(8, 0), 8);
	CASE_EQ(tier_sb_sector(8, 1), 16);
}

/* Generation 0 is never valid, not even in slot 0. */
static void tier_sb_generation_zero_test(CASE_CTX)
{
	struct tier_sb *sb = sb_fixture(test, false);
	struct tier_sb *out = fmt_zalloc(test, sizeof(*out));
	struct tier_err err = { 0 };
	u8 *blk = fmt_blk(test);

	sb->generation = 0;
	tier_sb_encode(sb, blk);
	expect_err(test, tier_sb_decode(blk, 0, out, &err), &err, -EUCLEAN,
		   TIER_E_SB_GENERATION, "generation 0");
}

/*
 * Set one field of the fixture superblock (@add: add @val), encode, decode
 * from slot 1. Fixture: map_blocks 29, map_start 24 and 256, tiers of 2047,
 * 1023 and 4095 extents, all with data at 2048, virt_extents 7165. All
 * failures are -EUCLEAN.
 */
struct sb_case {
	const char *desc;
	bool meta_ext;
	u32 off;
	u32 size;
	u64 val;
	bool add;
	enum tier_err_code code;
};

#define S32(f) .off = offsetof(struct tier_sb, f), .size = sizeof(u32)
#define S64(f) .off = offsetof(struct tier_sb, f), .size = sizeof(u64)

/* clang-format off */
static const struct sb_case sb_cases[] = {
	{ .desc = "extent shift 5", S32(extent_shift), .val = 5,
	  .code = TIER_E_SB_EXTENT_SHIFT },
	{ .desc = "0 tiers", S32(nr_tiers), .val = 0,
	  .code = TIER_E_SB_NR_TIERS },
	{ .desc = "9 tiers", S32(nr_tiers), .val = 9,
	  .code = TIER_E_SB_NR_TIERS },
	{ .desc = "active copy 2", S32(active_copy), .val = 2,
	  .code = TIER_E_SB_ACTIVE_COPY },
	{ .desc = "meta_start 0", S64(meta_start), .val = 0,
	  .code = TIER_E_SB_MAP },
	{ .desc = "meta_start unaligned", S64(meta_start), .val = 12,
	  .code = TIER_E_SB_MAP },
	{ .desc = "map_blocks 0", S64(map_blocks), .val = 0,
	  .code = TIER_E_SB_MAP },
	{ .desc = "map_blocks one too few", S64(map_blocks), .val = 28,
	  .code = TIER_E_SB_MAP },
	{ .desc = "map_blocks 2^48 + 1", S64(map_blocks),
	  .val = TIER_MAX_PEXTS + 1, .code = TIER_E_SB_MAP },
	{ .desc = "copy 0 over the slots", S64(map_start[0]), .val = 16,
	  .code = TIER_E_SB_MAP },
	{ .desc = "copy 0 unaligned", S64(map_start[0]), .val = 1,
	  .add = true, .code = TIER_E_SB_MAP },
	{ .desc = "copy 0 wraps", S64(map_start[0]), .val = U64_MAX - 15,
	  .code = TIER_E_SB_MAP },
	/* Slot 1 would wrap to sector 0 and copy 0 follow it (fuzz). */
	{ .desc = "slots wrap", S64(meta_start), .val = U64_MAX - 7,
	  .code = TIER_E_SB_MAP },
	{ .desc = "copy 1 over copy 0", S64(map_start[1]), .val = -8ULL,
	  .add = true, .code = TIER_E_SB_MAP },
	{ .desc = "copy 1 unaligned", S64(map_start[1]), .val = 3,
	  .add = true, .code = TIER_E_SB_MAP },
	{ .desc = "copy 1 wraps", S64(map_start[1]), .val = U64_MAX - 7,
	  .code = TIER_E_SB_MAP },
	{ .desc = "map over tier 0 data", S64(tier[0].data_start), .val = 256,
	  .code = TIER_E_SB_MAP },
	{ .desc = "tier nr_extents 0", S64(tier[1].nr_extents), .val = 0,
	  .code = TIER_E_SB_TIER },
	{ .desc = "tier nr_extents 2^48 + 1", S64(tier[1].nr_extents),
	  .val = TIER_MAX_PEXTS + 1, .code = TIER_E_SB_TIER },
	{ .desc = "tier extents past the end", S64(tier[2].nr_extents),
	  .val = 1, .add = true, .code = TIER_E_SB_TIER },
	{ .desc = "tier data_start 0", S64(tier[1].data_start), .val = 0,
	  .code = TIER_E_SB_TIER },
	{ .desc = "tier data_start past the end", S64(tier[1].data_start),
	  .val = GIB_SECTORS + 8, .code = TIER_E_SB_TIER },
	{ .desc = "tier used > nr", S64(tier[1].used_extents), .val = 1024,
	  .code = TIER_E_SB_TIER },
	{ .desc = "tier class 17", S32(tier[1].tier_class), .val = 17,
	  .code = TIER_E_SB_TIER },
	{ .desc = "tier class mem", S32(tier[1].tier_class),
	  .val = TIER_CLASS_MEM, .code = TIER_E_SB_TIER },
	{ .desc = "tier class meta", .meta_ext = true, S32(tier[0].tier_class),
	  .val = TIER_CLASS_META, .code = TIER_E_SB_TIER },
	{ .desc = "unused tier record not zero", S32(tier[5].flags), .val = 1,
	  .code = TIER_E_SB_TIER },
	{ .desc = "unused tier record with extents", S64(tier[3].nr_extents),
	  .val = 10, .code = TIER_E_SB_TIER },
	{ .desc = "virt_extents 0", S64(virt_extents), .val = 0,
	  .code = TIER_E_SB_VIRT_EXTENTS },
	{ .desc = "virt_extents over capacity", S64(virt_extents),
	  .val = 7166, .code = TIER_E_SB_VIRT_EXTENTS },
	/* Edges that are fine. */
	{ .desc = "tier used == nr", S64(tier[1].used_extents), .val = 1023 },
	{ .desc = "virt_extents 1", S64(virt_extents), .val = 1 },
	{ .desc = "virt_extents below capacity", S64(virt_extents),
	  .val = 100 },
	{ .desc = "unknown superblock flag", S64(flags), .val = BIT_ULL(63) },
	{ .desc = "metadata device: tier 0 data at sector 8", .meta_ext = true,
	  S64(tier[0].data_start), .val = 8 },
};

/* clang-format on */

static void sb_desc(const struct sb_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(sb, sb_cases, sb_desc);

static void tier_sb_field_test(CASE_CTX)
{
	const struct sb_case *c = CASE_PARAM;
	struct tier_sb *sb = sb_fixture(test, c->meta_ext);
	struct tier_sb *out = fmt_zalloc(test, 2 * sizeof(*out));
	struct tier_err err = { 0 };
	u8 *blk = fmt_blk(test);
	int ret;

	set_field(test, sb, c->off, c->size, c->val, c->add);
	tier_sb_encode(sb, blk);
	memset(out, 0x5a, 2 * sizeof(*out));
	ret = tier_sb_decode(blk, 1, out, &err);
	expect_err(test, ret, &err, c->code ? -EUCLEAN : 0, c->code, c->desc);
	if (ret)
		CASE_EQ(memcmp(out, out + 1, sizeof(*out)), 0);
	else
		CASE_EQ(memcmp(out, sb, sizeof(*out)), 0);
}

/* The fixture's superblock reshaped for @virt extents of 64 MiB. */
static void virt_bytes_sb(struct tier_sb *sb, u64 virt)
{
	sb->extent_shift = 17;
	sb->tier[2].dev_sectors = U64_MAX;
	sb->tier[2].nr_extents = 1ULL << 32;
	sb->virt_extents = virt;
	sb->map_blocks = tier_map_blocks_for(sb->virt_extents);
	sb->map_start[1] = sb->map_start[0] + 8 * sb->map_blocks;
	sb->tier[0].data_start = sb->map_start[1] + 8 * sb->map_blocks;
	sb->tier[0].dev_sectors = sb->tier[0].data_start + (1ULL << 17);
	sb->tier[0].nr_extents = 1;
	sb->tier[1].dev_sectors = sb->tier[1].data_start + (1ULL << 17);
	sb->tier[1].nr_extents = 1;
}

/*
 * A virtual size beyond the capacity, or whose byte count does not fit in
 * 64 bits, is refused. Tiers of at most 2^32 extents (the in-memory map)
 * cannot reach 2^64 bytes, so the capacity limit comes first.
 */
static void tier_sb_virt_bytes_test(CASE_CTX)
{
	struct tier_sb *sb = sb_fixture(test, false);
	struct tier_sb *out = fmt_zalloc(test, sizeof(*out));
	struct tier_err err = { 0 };
	u8 *blk = fmt_blk(test);
	u64 cap = (1ULL << 32) + 2;

	virt_bytes_sb(sb, 1ULL << 38);
	tier_sb_encode(sb, blk);
	expect_err(test, tier_sb_decode(blk, 1, out, &err), &err, -EUCLEAN,
		   TIER_E_SB_VIRT_EXTENTS, "2^38 extents of 64 MiB");
	sb->virt_extents = cap + 1;
	tier_sb_encode(sb, blk);
	expect_err(test, tier_sb_decode(blk, 1, out, &err), &err, -EUCLEAN,
		   TIER_E_SB_VIRT_EXTENTS, "one extent over the capacity");
	sb->virt_extents = cap;
	tier_sb_encode(sb, blk);
	CASE_EQ(tier_sb_decode(blk, 1, out, &err), 0);

	/* A map sized for more than the virtual size is fine. */
	sb = sb_fixture(test, false);
	virt_bytes_sb(sb, 1ULL << 39);
	tier_sb_encode(sb, blk);
	expect_err(test, tier_sb_decode(blk, 1, out, &err), &err, -EUCLEAN,
		   TIER_E_SB_VIRT_EXTENTS, "2^39 extents of 64 MiB");
	sb->virt_extents = cap;
	tier_sb_encode(sb, blk);
	CASE_EQ(tier_sb_decode(blk, 1, out, NULL), 0);

	/* A tier record of more than 2^32 extents is refused. */
	sb = sb_fixture(test, false);
	virt_bytes_sb(sb, 3);
	sb->tier[2].nr_extents = (1ULL << 32) + 1;
	tier_sb_encode(sb, blk);
	expect_err(test, tier_sb_decode(blk, 1, out, &err), &err, -EUCLEAN,
		   TIER_E_SB_TIER, "a tier of 2^32 + 1 extents");
}

struct pick_case {
	const char *desc;
	u64 gen[2];
	int ret[2];
	bool uuid_differs;
	int want;
	enum tier_err_code code;
};

/* clang-format off */
static const struct pick_case pick_cases[] = {
	{ "slot 1 newer", { 6, 7 }, { 0, 0 }, false, 1, TIER_E_NONE },
	{ "slot 0 newer", { 8, 7 }, { 0, 0 }, false, 0, TIER_E_NONE },
	{ "slot 0 much newer", { U64_MAX - 1, 3 }, { 0, 0 }, false, 0,
	  TIER_E_NONE },
	{ "only slot 1 valid", { 8, 7 }, { -EBADMSG, 0 }, false, 1,
	  TIER_E_NONE },
	{ "only slot 0 valid", { 8, 7 }, { 0, -EUCLEAN }, false, 0,
	  TIER_E_NONE },
	{ "only slot 1 valid, uuids differ", { 8, 7 }, { -EBADMSG, 0 }, true,
	  1, TIER_E_NONE },
	{ "both valid, uuids differ", { 8, 7 }, { 0, 0 }, true, -EUCLEAN,
	  TIER_E_SB_UUID_MISMATCH },
	{ "none valid", { 8, 7 }, { -EBADMSG, -EUCLEAN }, false, -EUCLEAN,
	  TIER_E_SB_NONE_VALID },
	{ "none valid, one of a newer version", { 8, 7 }, { -EBADMSG, -EPROTO },
	  false, -EPROTO, TIER_E_SB_NONE_VALID },
	{ "none valid, version beats features", { 8, 7 },
	  { -EPROTO, -EOPNOTSUPP }, false, -EPROTO, TIER_E_SB_NONE_VALID },
	{ "none valid, unknown features in slot 0", { 8, 7 },
	  { -EOPNOTSUPP, -EBADMSG }, false, -EOPNOTSUPP,
	  TIER_E_SB_NONE_VALID },
	{ "none valid, unknown features in slot 1", { 8, 7 },
	  { -EUCLEAN, -EOPNOTSUPP }, false, -EOPNOTSUPP,
	  TIER_E_SB_NONE_VALID },
	{ "slot 0 of a newer version, slot 1 valid", { 8, 7 }, { -EPROTO, 0 },
	  false, -EPROTO, TIER_E_SB_NONE_VALID },
	{ "slot 1 with unknown features, slot 0 valid", { 8, 7 },
	  { 0, -EOPNOTSUPP }, false, -EOPNOTSUPP, TIER_E_SB_NONE_VALID },
};

/* clang-format on */

static void pick_desc(const struct pick_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(pick, pick_cases, pick_desc);

static void tier_sb_pick_test(CASE_CTX)
{
	const struct pick_case *c = CASE_PARAM;
	struct tier_sb *sb = fmt_zalloc(test, 2 * sizeof(*sb));
	struct tier_err err = { 0 };
	int ret;

	tier_fresh_sb(fixture(test, false), &sb[0]);
	sb[1] = sb[0];
	sb[0].generation = c->gen[0];
	sb[1].generation = c->gen[1];
	if (c->uuid_differs)
		sb[1].uuid[15] ^= 1;
	ret = tier_sb_pick(sb, c->ret, &err);
	CASE_EQ(ret, c->want);
	if (ret < 0)
		expect_err(test, ret, &err, c->want, c->code, c->desc);
	CASE_EQ(tier_sb_pick(sb, c->ret, NULL), c->want);
}

/* Superblocks decoded from real blocks in both slots, then picked. */
static void tier_sb_pick_decoded_test(CASE_CTX)
{
	struct tier_sb *sb = sb_fixture(test, false);
	struct tier_sb *out = fmt_zalloc(test, 2 * sizeof(*out));
	u8 *slot0 = fmt_blk(test), *slot1 = fmt_blk(test);
	int ret[2];

	sb->generation = 41;
	tier_sb_encode(sb, slot1);
	sb->generation = 42;
	sb->active_copy = 1;
	tier_sb_encode(sb, slot0);
	ret[0] = tier_sb_decode(slot0, 0, &out[0], NULL);
	ret[1] = tier_sb_decode(slot1, 1, &out[1], NULL);
	CASE_EQ(ret[0], 0);
	CASE_EQ(ret[1], 0);
	CASE_EQ(tier_sb_pick(out, ret, NULL), 0);
	/* A torn write of the newer slot: the older one wins. */
	slot0[2000] ^= 0x10;
	ret[0] = tier_sb_decode(slot0, 0, &out[0], NULL);
	CASE_EQ(ret[0], -EBADMSG);
	CASE_EQ(tier_sb_pick(out, ret, NULL), 1);
	CASE_EQ(out[1].generation, 41);
	CASE_EQ(out[1].active_copy, 0);
}

static void tier_label_check_sb_test(CASE_CTX)
{
	struct tier_fresh *f = fixture(test, false);
	struct tier_label *l = fmt_zalloc(test, sizeof(*l));
	struct tier_sb *sb = fmt_zalloc(test, sizeof(*sb));
	struct tier_err err = { 0 };
	u32 i;

	tier_fresh_sb(f, sb);
	for (i = 0; i < 3; i++) {
		tier_fresh_label(f, i, l);
		CASE_EQ(tier_label_check_sb(l, sb, i, &err), 0);
	}
	/* Devices given in the wrong order. */
	tier_fresh_label(f, 1, l);
	expect_err(test, tier_label_check_sb(l, sb, 2, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "order");
	CASE_EQ(err.item, 2);
	expect_err(test, tier_label_check_sb(l, sb, TIER_META_DEV, &err), &err,
		   -EUCLEAN, TIER_E_LABEL_SB_MISMATCH, "as metadata device");

	l->uuid[0] ^= 1;
	expect_err(test, tier_label_check_sb(l, sb, 1, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "uuid");
	tier_fresh_label(f, 1, l);
	l->member_uuid[0] ^= 1;
	expect_err(test, tier_label_check_sb(l, sb, 1, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "member uuid");
	/* Fewer extents: a grown tier's label not yet rewritten (a hint). */
	tier_fresh_label(f, 1, l);
	l->nr_extents--;
	CASE_EQ(tier_label_check_sb(l, sb, 1, &err), 0);
	tier_fresh_label(f, 1, l);
	l->nr_extents++;
	expect_err(test, tier_label_check_sb(l, sb, 1, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "nr_extents");
	tier_fresh_label(f, 1, l);
	l->dev_sectors += 2048;
	expect_err(test, tier_label_check_sb(l, sb, 1, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "dev_sectors");
	tier_fresh_label(f, 1, l);
	l->extent_shift = 12;
	expect_err(test, tier_label_check_sb(l, sb, 1, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "extent shift");
	tier_fresh_label(f, 0, l);
	l->meta_start = 16;
	expect_err(test, tier_label_check_sb(l, sb, 0, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "meta_start");

	/* Separate metadata device. */
	f = fixture(test, true);
	tier_fresh_sb(f, sb);
	tier_fresh_label(f, TIER_META_DEV, l);
	CASE_EQ(tier_label_check_sb(l, sb, TIER_META_DEV, &err), 0);
	l->member_uuid[3] ^= 1;
	expect_err(test, tier_label_check_sb(l, sb, TIER_META_DEV, &err), &err,
		   -EUCLEAN, TIER_E_LABEL_SB_MISMATCH, "metadata member uuid");
	/* Map copies past the label's metadata area (a wrong, checksummed sb). */
	tier_fresh_label(f, TIER_META_DEV, l);
	sb->map_blocks++;
	expect_err(test, tier_label_check_sb(l, sb, TIER_META_DEV, &err), &err,
		   -EUCLEAN, TIER_E_LABEL_SB_MISMATCH, "map past the area");
	CASE_EQ(err.value, sb->map_blocks);
	sb->map_blocks--;
	sb->map_start[1] += TIER_BLOCK_SECTORS;
	expect_err(test, tier_label_check_sb(l, sb, TIER_META_DEV, &err), &err,
		   -EUCLEAN, TIER_E_LABEL_SB_MISMATCH, "copy 1 past the area");
	sb->map_start[1] -= TIER_BLOCK_SECTORS;
	CASE_EQ(tier_label_check_sb(l, sb, TIER_META_DEV, &err), 0);
	tier_fresh_label(f, 1, l);
	CASE_EQ(tier_label_check_sb(l, sb, 1, &err), 0);
	l->flags = 0;
	expect_err(test, tier_label_check_sb(l, sb, 1, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "META_EXT missing");
}

/* Every field the label shares with the superblock is compared. */
static void tier_label_check_sb_fields_test(CASE_CTX)
{
	struct tier_fresh *f = fixture(test, false);
	struct tier_label *l = fmt_zalloc(test, sizeof(*l));
	struct tier_sb *sb = fmt_zalloc(test, sizeof(*sb));
	struct tier_err err = { 0 };
	u32 i;

	tier_fresh_sb(f, sb);
	/* Tier index and count are hints after a tier-list change. */
	tier_fresh_label(f, 1, l);
	l->nr_tiers = 2;
	CASE_EQ(tier_label_check_sb(l, sb, 1, &err), 0);
	l->nr_tiers = 4;
	l->tier_index = 3;
	CASE_EQ(tier_label_check_sb(l, sb, 1, &err), 0);
	CASE_EQ(tier_label_sb_index(l, sb), 1);
	/* ... but a tier is never the metadata device, nor the converse. */
	l->tier_index = TIER_META_DEV;
	expect_err(test, tier_label_check_sb(l, sb, 1, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "metadata index as a tier");
	CASE_EQ(tier_label_sb_index(l, sb), -1);
	tier_fresh_label(f, 1, l);
	l->data_start += 8;
	expect_err(test, tier_label_check_sb(l, sb, 1, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "data_start");
	tier_fresh_label(f, 1, l);
	l->flags |= TIER_LABEL_F_META_EXT;
	expect_err(test, tier_label_check_sb(l, sb, 1, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "META_EXT set");
	tier_fresh_label(f, 2, l);
	sb->nr_tiers = 1;
	l->nr_tiers = 1;
	expect_err(test, tier_label_check_sb(l, sb, 2, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "tier past nr_tiers");

	/* Separate metadata device. */
	f = fixture(test, true);
	tier_fresh_sb(f, sb);
	for (i = 0; i < 3; i++) {
		tier_fresh_label(f, i, l);
		CASE_EQ(tier_label_check_sb(l, sb, i, &err), 0);
	}
	tier_fresh_label(f, TIER_META_DEV, l);
	l->meta_start = 16;
	expect_err(test, tier_label_check_sb(l, sb, TIER_META_DEV, &err), &err,
		   -EUCLEAN, TIER_E_LABEL_SB_MISMATCH, "metadata meta_start");
	tier_fresh_label(f, TIER_META_DEV, l);
	sb->flags = 0;
	expect_err(test, tier_label_check_sb(l, sb, TIER_META_DEV, &err), &err,
		   -EUCLEAN, TIER_E_LABEL_SB_MISMATCH,
		   "superblock without META_EXT");
}

/*
 * Tier-list changes: a new member's label (tierctl add-tier) checked for
 * the append, the superblock's list grown and shrunk, stale labels found.
 */
static void tier_list_change_test(CASE_CTX)
{
	struct tier_fresh *f = fixture(test, false);
	struct tier_label *l = fmt_zalloc(test, sizeof(*l));
	struct tier_label *nl = fmt_zalloc(test, sizeof(*nl));
	struct tier_sb *sb = fmt_zalloc(test, sizeof(*sb));
	struct tier_sb *sb2 = fmt_zalloc(test, sizeof(*sb2));
	struct tier_sb_tier *rec = fmt_zalloc(test, sizeof(*rec));
	struct tier_err err = { 0 };
	sector_t size = 1ULL << 21;
	u32 i;

	tier_fresh_sb(f, sb);
	CASE_ASSERT_EQ(sb->nr_tiers, 3);
	/* A label tierctl add-tier would write for tier 3. */
	tier_fresh_label(f, 2, nl);
	nl->tier_index = 3;
	nl->nr_tiers = 4;
	nl->member_uuid[0] ^= 0x5a;
	nl->dev_sectors = size;
	nl->data_start = TIER_DATA_ALIGN;
	nl->nr_extents = (size - TIER_DATA_ALIGN) >> sb->extent_shift;
	CASE_EQ(tier_label_check_new(nl, sb, 3, size, &err), 0);
	CASE_EQ(tier_label_sb_index(nl, sb), -1);
	/* Wrong position, a device that shrank, a listed member, a foreign one. */
	expect_err(test, tier_label_check_new(nl, sb, 2, size, &err), &err,
		   -EUCLEAN, TIER_E_LABEL_SB_MISMATCH, "new tier not appended");
	expect_err(test, tier_label_check_new(nl, sb, 3, size - 8, &err), &err,
		   -EUCLEAN, TIER_E_LABEL_SB_MISMATCH, "new tier shrank");
	memcpy(l, nl, sizeof(*l));
	memcpy(l->member_uuid, sb->tier[1].member_uuid, TIER_UUID_LEN);
	expect_err(test, tier_label_check_new(l, sb, 3, size, &err), &err,
		   -EUCLEAN, TIER_E_LABEL_SB_MISMATCH, "a listed member again");
	memcpy(l, nl, sizeof(*l));
	l->uuid[0] ^= 1;
	expect_err(test, tier_label_check_new(l, sb, 3, size, &err), &err,
		   -EUCLEAN, TIER_E_LABEL_SB_MISMATCH,
		   "another device's label");
	memcpy(l, nl, sizeof(*l));
	l->nr_extents++;
	expect_err(test, tier_label_check_new(l, sb, 3, size, &err), &err,
		   -EUCLEAN, TIER_E_LABEL_SB_MISMATCH,
		   "data area past the end");
	memcpy(l, nl, sizeof(*l));
	l->flags |= TIER_LABEL_F_META;
	expect_err(test, tier_label_check_new(l, sb, 3, size, &err), &err,
		   -EUCLEAN, TIER_E_LABEL_SB_MISMATCH,
		   "new tier holding metadata");

	/* Grown: the old members match with their old hints, the new one. */
	memcpy(sb2, sb, sizeof(*sb2));
	tier_sb_tier_from_label(nl, rec);
	CASE_EQ(tier_sb_set_tier_count(sb2, 4, rec), 0);
	CASE_EQ(sb2->nr_tiers, 4);
	CASE_EQ(sb2->tier[3].nr_extents, nl->nr_extents);
	CASE_EQ(sb2->tier[3].used_extents, 0);
	for (i = 0; i < 3; i++) {
		tier_fresh_label(f, i, l);
		CASE_EQ(tier_label_check_sb(l, sb2, i, &err), 0);
	}
	CASE_EQ(tier_label_check_sb(nl, sb2, 3, &err), 0);
	CASE_EQ(tier_label_sb_index(nl, sb2), 3);
	/* The encoded superblock decodes to the same list. */
	{
		u8 *blk = fmt_blk(test);
		struct tier_sb *dec = fmt_zalloc(test, sizeof(*dec));

		tier_sb_encode(sb2, blk);
		CASE_EQ(tier_sb_decode(blk, tier_sb_slot(sb2->generation), dec,
				       &err),
			0);
		CASE_EQ(dec->nr_tiers, 4);
		CASE_EQ(memcmp(dec->tier[3].member_uuid, nl->member_uuid,
			       TIER_UUID_LEN),
			0);
	}
	/* Shrunk again: the removed member's label is stale. */
	CASE_EQ(tier_sb_set_tier_count(sb2, 3, NULL), 0);
	CASE_EQ(memcmp(sb2, sb, sizeof(*sb)), 0);
	CASE_EQ(tier_label_sb_index(nl, sb2), -1);
	expect_err(test, tier_label_check_sb(nl, sb2, 3, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "removed tier's label");
	/* Only one step at a time, within 1..TIER_MAX_TIERS. */
	CASE_EQ(tier_sb_set_tier_count(sb2, 5, rec), -EINVAL);
	CASE_EQ(tier_sb_set_tier_count(sb2, 4, NULL), -EINVAL);
	sb2->nr_tiers = 1;
	CASE_EQ(tier_sb_set_tier_count(sb2, 0, NULL), -EINVAL);
	CASE_EQ(sb2->nr_tiers, 1);
}

/*
 * Tier-list changes in the middle: a label for position 1 inserted, the
 * records after it (flags and used counts with them) moving up; tier 1
 * removed, the others moving down; the old members then match at their new
 * positions by member UUID, whatever their labels' hints say.
 */
static void tier_list_middle_test(CASE_CTX)
{
	struct tier_fresh *f = fixture(test, false);
	struct tier_label *l = fmt_zalloc(test, sizeof(*l));
	struct tier_label *nl = fmt_zalloc(test, sizeof(*nl));
	struct tier_sb *sb = fmt_zalloc(test, sizeof(*sb));
	struct tier_sb *sb2 = fmt_zalloc(test, sizeof(*sb2));
	struct tier_sb_tier *rec = fmt_zalloc(test, sizeof(*rec));
	struct tier_err err = { 0 };
	sector_t size = 1ULL << 21;
	u32 i;

	tier_fresh_sb(f, sb);
	CASE_ASSERT_EQ(sb->nr_tiers, 3);
	/* Overprovisioned no more than tier 0 holds: any tier may go. */
	sb->virt_extents = sb->tier[0].nr_extents;
	sb->tier[1].flags = TIER_SB_TIER_F_EVACUATE;
	sb->tier[2].used_extents = 7;
	tier_fresh_label(f, 2, nl);
	nl->tier_index = 1;
	nl->nr_tiers = 4;
	nl->member_uuid[0] ^= 0x5a;
	nl->dev_sectors = size;
	nl->data_start = TIER_DATA_ALIGN;
	nl->nr_extents = (size - TIER_DATA_ALIGN) >> sb->extent_shift;
	CASE_EQ(tier_label_check_new(nl, sb, 1, size, &err), 0);
	/* The hint names the position; tier 0 is never replaced. */
	expect_err(test, tier_label_check_new(nl, sb, 2, size, &err), &err,
		   -EUCLEAN, TIER_E_LABEL_SB_MISMATCH, "hint not 2");
	nl->tier_index = 0;
	expect_err(test, tier_label_check_new(nl, sb, 0, size, &err), &err,
		   -EUCLEAN, TIER_E_LABEL_SB_MISMATCH, "position 0");
	nl->tier_index = 1;

	memcpy(sb2, sb, sizeof(*sb2));
	tier_sb_tier_from_label(nl, rec);
	rec->used_extents = 99;
	CASE_EQ(tier_sb_insert_tier(sb2, 0, rec), -EINVAL);
	CASE_EQ(tier_sb_insert_tier(sb2, 4, rec), -EINVAL);
	CASE_EQ(tier_sb_insert_tier(sb2, 1, NULL), -EINVAL);
	CASE_EQ(memcmp(sb2, sb, sizeof(*sb)), 0);
	CASE_EQ(tier_sb_insert_tier(sb2, 1, rec), 0);
	CASE_EQ(sb2->nr_tiers, 4);
	CASE_EQ(sb2->tier[1].used_extents, 0);
	CASE_EQ(sb2->tier[1].flags, 0);
	CASE_EQ(sb2->tier[2].flags, TIER_SB_TIER_F_EVACUATE);
	CASE_EQ(sb2->tier[3].used_extents, 7);
	CASE_EQ(tier_label_sb_index(nl, sb2), 1);
	CASE_EQ(tier_label_check_sb(nl, sb2, 1, &err), 0);
	for (i = 0; i < 3; i++) {
		tier_fresh_label(f, i, l);
		/* Old hints; found by member UUID at the new position. */
		CASE_EQ(tier_label_sb_index(l, sb2), i ? i + 1 : 0);
		CASE_EQ(tier_label_check_sb(l, sb2, i ? i + 1 : 0, &err), 0);
	}
	/* Removing it again gives the old list back. */
	CASE_EQ(tier_sb_remove_tier(sb2, 4), -EINVAL);
	CASE_EQ(tier_sb_remove_tier(sb2, 1), 0);
	CASE_EQ(memcmp(sb2, sb, sizeof(*sb)), 0);
	/* Removing tier 1 of 3: tier 2 becomes 1. */
	CASE_EQ(tier_sb_remove_tier(sb2, 1), 0);
	CASE_EQ(sb2->nr_tiers, 2);
	CASE_EQ(sb2->tier[1].used_extents, 7);
	CASE_EQ(sb2->tier[1].flags, 0);
	CASE_EQ(sb2->tier[2].nr_extents, 0);
	tier_fresh_label(f, 2, l);
	CASE_EQ(tier_label_sb_index(l, sb2), 1);
	CASE_EQ(tier_label_check_sb(l, sb2, 1, &err), 0);
	tier_fresh_label(f, 1, l);
	CASE_EQ(tier_label_sb_index(l, sb2), -1);
	/* The virtual size must fit what is left (decode checks it). */
	sb2->virt_extents = sb2->tier[0].nr_extents + 1;
	memcpy(sb, sb2, sizeof(*sb));
	CASE_EQ(tier_sb_remove_tier(sb2, 1), -ENOSPC);
	CASE_EQ(memcmp(sb2, sb, sizeof(*sb)), 0);
	sb2->virt_extents = sb2->tier[0].nr_extents;
	CASE_EQ(tier_sb_remove_tier(sb2, 1), 0);
	CASE_EQ(sb2->nr_tiers, 1);
	CASE_EQ(tier_sb_remove_tier(sb2, 1), -EINVAL);
	CASE_EQ(sb2->nr_tiers, 1);
	{
		u8 *blk = fmt_blk(test);
		struct tier_sb *dec = fmt_zalloc(test, sizeof(*dec));

		tier_sb_encode(sb2, blk);
		CASE_EQ(tier_sb_decode(blk, tier_sb_slot(sb2->generation), dec,
				       &err),
			0);
	}
}

/*
 * Replacing tier 0 (tierctl replace-tier NAME 0, docs/FORMAT.md "Replacing
 * tier 0"): the new tier's label reserves a spare metadata area, the
 * superblock loses tier 0 with tier 1 becoming tier 0, and that tier's
 * label with the spare area (not rewritten yet) is accepted as the holder.
 */
static void tier_list_tier0_test(CASE_CTX)
{
	struct tier_fresh *f = fixture(test, false);
	struct tier_label *l = fmt_zalloc(test, sizeof(*l));
	struct tier_label *out = fmt_zalloc(test, sizeof(*out));
	struct tier_sb *sb = fmt_zalloc(test, sizeof(*sb));
	struct tier_sb *sb2 = fmt_zalloc(test, sizeof(*sb2));
	struct tier_sb *dec = fmt_zalloc(test, sizeof(*dec));
	struct tier_sb_tier *rec = fmt_zalloc(test, sizeof(*rec));
	struct tier_err err = { 0 };
	u8 *blk = fmt_blk(test);
	u64 meta_blocks, blocks;
	sector_t size = 1ULL << 21, start, data;

	tier_fresh_sb(f, sb);
	sb->virt_extents = sb->tier[2].nr_extents;
	meta_blocks = 2 + 2 * sb->map_blocks;
	data = (TIER_META_START + meta_blocks * TIER_BLOCK_SECTORS +
		TIER_DATA_ALIGN - 1) /
	       TIER_DATA_ALIGN * TIER_DATA_ALIGN;

	/* The new tier's label: a spare area, the data after it. */
	tier_fresh_label(f, 1, l);
	l->member_uuid[0] ^= 0x3c;
	l->dev_sectors = size;
	l->data_start = data;
	l->nr_extents = (size - data) >> sb->extent_shift;
	l->spare_meta_blocks = meta_blocks;
	l->nr_tiers = 4;
	tier_label_encode(l, blk);
	CASE_EQ(get_le64(blk + 0xc0), meta_blocks);
	CASE_EQ(tier_label_decode(blk, out, &err), 0);
	CASE_EQ(out->spare_meta_blocks, meta_blocks);
	CASE_EQ(tier_label_meta_area(out, &start, &blocks), true);
	CASE_EQ(start, TIER_META_START);
	CASE_EQ(blocks, meta_blocks);
	CASE_EQ(tier_label_check_new(out, sb, 1, size, &err), 0);
	/* Without a spare area a tier holds none; tier 0 its own. */
	tier_fresh_label(f, 2, out);
	CASE_EQ(tier_label_meta_area(out, &start, &blocks), false);
	CASE_EQ(blocks, 0);
	tier_fresh_label(f, 0, out);
	CASE_EQ(tier_label_meta_area(out, &start, &blocks), true);
	CASE_EQ(start, out->meta_start);
	CASE_EQ(blocks, out->meta_blocks);

	/* Refused: the area runs into the data, with META, with META_EXT. */
	l->spare_meta_blocks =
		(data - TIER_META_START) / TIER_BLOCK_SECTORS + 1;
	tier_label_encode(l, blk);
	expect_err(test, tier_label_decode(blk, out, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_META, "spare area into the data");
	l->spare_meta_blocks = meta_blocks;
	l->flags = TIER_LABEL_F_META_EXT;
	tier_label_encode(l, blk);
	expect_err(test, tier_label_decode(blk, out, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_META, "spare area with META_EXT");
	l->flags = 0;

	/* Inserted at 1, then tier 0 removed: the new tier is tier 0. */
	memcpy(sb2, sb, sizeof(*sb2));
	tier_sb_tier_from_label(l, rec);
	CASE_EQ(tier_sb_insert_tier(sb2, 1, rec), 0);
	sb2->tier[0].used_extents = 0;
	CASE_EQ(tier_sb_remove_tier(sb2, 0), 0);
	CASE_EQ(sb2->nr_tiers, 3);
	CASE_EQ(tier_label_sb_index(l, sb2), 0);
	CASE_EQ(sb2->tier[0].data_start, data);
	sb2->generation++;
	tier_sb_encode(sb2, blk);
	CASE_EQ(tier_sb_decode(blk, tier_sb_slot(sb2->generation), dec, &err),
		0);
	/* Its label, with the spare area, is the metadata holder... */
	CASE_EQ(tier_label_check_sb(l, sb2, 0, &err), 0);
	/* ... with the right size of area only, */
	l->spare_meta_blocks = meta_blocks - 2;
	expect_err(test, tier_label_check_sb(l, sb2, 0, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "spare area of another size");
	/* ... and a tier 0 label without any area is not. */
	l->spare_meta_blocks = 0;
	expect_err(test, tier_label_check_sb(l, sb2, 0, &err), &err, -EUCLEAN,
		   TIER_E_LABEL_SB_MISMATCH, "tier 0 without metadata");
	/* The rewritten label (META at 0) matches too. */
	l->flags = TIER_LABEL_F_META;
	l->meta_start = TIER_META_START;
	l->meta_blocks = meta_blocks;
	l->tier_index = 0;
	CASE_EQ(tier_label_check_sb(l, sb2, 0, &err), 0);
	tier_label_encode(l, blk);
	CASE_EQ(tier_label_decode(blk, out, &err), 0);

	/* A tier 1 whose data starts inside the metadata area: refused. */
	memcpy(sb2, sb, sizeof(*sb2));
	sb2->tier[0].used_extents = 0;
	sb2->tier[1].data_start = TIER_META_START;
	memcpy(dec, sb2, sizeof(*dec));
	CASE_EQ(tier_sb_remove_tier(sb2, 0), -EINVAL);
	CASE_EQ(memcmp(sb2, dec, sizeof(*dec)), 0);
	/* With a separate metadata device any tier 1 may become tier 0. */
	sb2->flags |= TIER_SB_F_META_EXT;
	CASE_EQ(tier_sb_remove_tier(sb2, 0), 0);
	CASE_EQ(sb2->nr_tiers, 2);
	/* A single tier is never removed. */
	sb2->nr_tiers = 1;
	CASE_EQ(tier_sb_remove_tier(sb2, 0), -EINVAL);
}

/* The item and value that errors report, beyond their code. */
static void tier_format_err_values_test(CASE_CTX)
{
	struct tier_layout_req req = { 2, 11, { GIB_SECTORS, 2048 + 100 } };
	struct tier_label *l = label_fixture(test, 0, false);
	struct tier_label *out = fmt_zalloc(test, sizeof(*out));
	struct tier_sb *sb = sb_fixture(test, false);
	struct tier_sb *sb_out = fmt_zalloc(test, sizeof(*sb_out));
	struct tier_label_disk *ld = (void *)fmt_blk(test);
	struct tier_layout *lo = fmt_zalloc(test, sizeof(*lo));
	struct tier_err err = { 0 };
	u8 *blk = fmt_blk(test);

	/* Layout: the size of a tier too small, the requested extents. */
	expect_err(test, tier_layout_compute(&req, lo, &err), &err, -EINVAL,
		   TIER_E_LAYOUT_TIER_TOO_SMALL, "tier 1");
	CASE_EQ(err.item, 1);
	CASE_EQ(err.value, 2148);
	req.nr_tiers = 1;
	req.virt_sectors = 1024ULL << 11;
	expect_err(test, tier_layout_compute(&req, lo, &err), &err, -ENOSPC,
		   TIER_E_LAYOUT_VIRT_TOO_BIG, "virt");
	CASE_EQ(err.value, 1024);

	/* Label: the version found; no error report asked for. */
	memset(ld, 0, TIER_BLOCK_SIZE);
	CASE_EQ(tier_label_decode(ld, out, NULL), -ENODATA);
	tier_label_encode(l, ld);
	ld->version = cpu_to_le32(2);
	reseal(ld);
	expect_err(test, tier_label_decode(ld, out, &err), &err, -EPROTO,
		   TIER_E_LABEL_VERSION, "version 2");
	CASE_EQ(err.value, 2);

	/* Superblock: the unknown incompat bits. */
	sb->incompat = BIT_ULL(3);
	tier_sb_encode(sb, blk);
	expect_err(test, tier_sb_decode(blk, 1, sb_out, &err), &err,
		   -EOPNOTSUPP, TIER_E_SB_INCOMPAT, "incompat");
	CASE_EQ(err.value, BIT_ULL(3));
	sb->incompat = 0;

	/* Map block: where it was expected and found, its generation. */
	sb->generation = 5;
	map_block_of(blk, sb, 0, 1);
	expect_err(test, tier_map_block_check(blk, sb, 0, 0, &err), &err,
		   -EUCLEAN, TIER_E_MAP_INDEX, "misdirected");
	CASE_EQ(err.item, 0);
	CASE_EQ(err.value, 1);
	sb->generation = 100;
	CASE_EQ(tier_map_block_check(blk, sb, 0, 1, &err), 0);
	sb->generation = 4;
	expect_err(test, tier_map_block_check(blk, sb, 0, 1, &err), &err,
		   -EUCLEAN, TIER_E_MAP_GENERATION, "future");
	CASE_EQ(err.value, 5);
}

/* ---- map blocks --------------------------------------------------------- */

static void tier_map_block_roundtrip_test(CASE_CTX)
{
	struct tier_sb *sb = sb_fixture(test, false);
	struct tier_err err = { 0 };
	struct tier_map_entry e;
	u8 *blk = fmt_blk(test);
	u32 i;

	sb->generation = 9;
	map_block_of(blk, sb, 1, 2);
	CASE_EQ(tier_map_block_check(blk, sb, 1, 2, &err), 0);
	tier_map_block_get(blk, 0, &e);
	CASE_EQ(e.word, MAPW(2, 5));
	CASE_EQ(e.heat, 77);
	CASE_EQ(e.flags, 0);
	CASE_EQ(e.atime, 1234);
	for (i = 1; i < TIER_MAP_ENTRIES - 1; i++) {
		tier_map_block_get(blk, i, &e);
		CASE_EQ(e.word, 0);
	}
	tier_map_block_get(blk, TIER_MAP_ENTRIES - 1, &e);
	/* Undefined extent flags (bit 55) are kept as they are. */
	CASE_EQ(e.word >> 48, 0x8081);
	CASE_EQ(e.word & TIER_MAPW_PEXT_MASK, 2046);
	/* Every field at its widest. */
	e.word = MAPW(2, 4094) | TIER_MAPW_FLAGS_MASK;
	e.heat = U16_MAX;
	e.flags = 0;
	e.atime = U32_MAX;
	tier_map_block_set(blk, 100, &e);
	tier_map_block_seal(blk);
	CASE_EQ(tier_map_block_check(blk, sb, 1, 2, &err), 0);
	memset(&e, 0, sizeof(e));
	tier_map_block_get(blk, 100, &e);
	CASE_EQ(e.word, MAPW(2, 4094) | TIER_MAPW_FLAGS_MASK);
	CASE_EQ(e.heat, U16_MAX);
	CASE_EQ(e.atime, U32_MAX);
	CASE_EQ(tier_map_block_sector(sb, 0, 3), sb->map_start[0] + 24);
	CASE_EQ(tier_map_block_sector(sb, 1, 0), sb->map_start[1]);
	CASE_EQ(tier_map_block_sector(sb, 1, 28), 256 + 28 * 8);
}

/*
 * One entry of a block of the fixture (virt_extents 7165, so the last
 * block, 28, ends with entry 52), at generation 1, copy 0.
 */
struct entry_case {
	const char *desc;
	u64 index;
	u32 i;
	u64 word;
	u16 heat;
	u16 flags;
	u32 atime;
	enum tier_err_code code;
	u64 item;
	u64 value;
};

/* clang-format off */
static const struct entry_case entry_cases[] = {
	{ "reserved bit 60", 3, 10, MAPW(0, 1) | BIT_ULL(60), 0, 0, 0,
	  TIER_E_MAP_ENTRY_RESERVED, 3 * 254 + 10, MAPW(0, 1) | BIT_ULL(60) },
	{ "reserved bit 62", 3, 10, MAPW(0, 1) | BIT_ULL(62), 0, 0, 0,
	  TIER_E_MAP_ENTRY_RESERVED, 3 * 254 + 10, MAPW(0, 1) | BIT_ULL(62) },
	{ "unmapped with a word", 0, 0, 5, 0, 0, 0, TIER_E_MAP_ENTRY_UNMAPPED,
	  0, 5 },
	{ "unmapped with heat", 0, 1, 0, 3, 0, 0, TIER_E_MAP_ENTRY_UNMAPPED, 1,
	  0 },
	{ "unmapped with atime", 0, 2, 0, 0, 0, 9, TIER_E_MAP_ENTRY_UNMAPPED,
	  2, 0 },
	{ "unmapped with flags", 0, 4, 0, 0, 1, 0, TIER_E_MAP_ENTRY_UNMAPPED,
	  4, 0 },
	{ "tier 3 of 3", 1, 7, MAPW(3, 0), 0, 0, 0, TIER_E_MAP_ENTRY_TIER,
	  254 + 7, 3 },
	{ "tier 15 of 3", 1, 7, MAPW(15, 0), 0, 0, 0, TIER_E_MAP_ENTRY_TIER,
	  254 + 7, 15 },
	{ "pext one past its tier", 2, 253, MAPW(1, 1023), 0, 0, 0,
	  TIER_E_MAP_ENTRY_PEXT, 2 * 254 + 253, 1023 },
	{ "pext 2^48 - 1", 2, 0, MAPW(1, TIER_MAPW_PEXT_MASK), 0, 0, 0,
	  TIER_E_MAP_ENTRY_PEXT, 2 * 254, TIER_MAPW_PEXT_MASK },
	{ "mapped at virt_extents", 28, 53, MAPW(1, 0), 0, 0, 0,
	  TIER_E_MAP_ENTRY_BEYOND, 7165, MAPW(1, 0) },
	{ "mapped in a block past virt_extents", 31, 0, MAPW(1, 0), 0, 0, 0,
	  TIER_E_MAP_ENTRY_BEYOND, 31 * 254, MAPW(1, 0) },
	/* Fine. */
	{ "last virtual extent", 28, 52, MAPW(1, 0), 0, 0, 0, TIER_E_NONE, 0,
	  0 },
	{ "last pext of tier 2", 0, 0, MAPW(2, 4094), 0, 0, 0, TIER_E_NONE, 0,
	  0 },
	{ "mapped with heat, atime and entry flags", 5, 9, MAPW(0, 2046),
	  U16_MAX, U16_MAX, U32_MAX, TIER_E_NONE, 0, 0 },
	{ "mapped with all extent flags", 5, 9,
	  MAPW(0, 7) | TIER_MAPW_FLAGS_MASK, 0, 0, 0, TIER_E_NONE, 0, 0 },
};

/* clang-format on */

static void entry_desc(const struct entry_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(entry, entry_cases, entry_desc);

static void tier_map_entry_test(CASE_CTX)
{
	const struct entry_case *c = CASE_PARAM;
	struct tier_sb *sb = sb_fixture(test, false);
	struct tier_err err = { 0 };
	struct tier_map_entry e = { c->word, c->heat, c->flags, c->atime };
	u8 *blk = fmt_blk(test);
	int ret;

	tier_map_block_init(blk, sb, 0, c->index);
	tier_map_block_set(blk, c->i, &e);
	tier_map_block_seal(blk);
	ret = tier_map_block_check(blk, sb, 0, c->index, &err);
	expect_err(test, ret, &err, c->code ? -EUCLEAN : 0, c->code, c->desc);
	if (ret) {
		CASE_EQ(err.item, c->item);
		CASE_EQ(err.value, c->value);
	}
}

/* ---- fresh metadata: write every block to a fake disk, load it back ----- */

struct fake_blk {
	u32 dev;
	sector_t sector;
	u8 data[TIER_BLOCK_SIZE];
};

static const u8 *fake_read(CASE_CTX, const struct fake_blk *disk, u64 n,
			   u32 dev, sector_t sector)
{
	u64 i;

	for (i = 0; i < n; i++) {
		if (disk[i].dev == dev && disk[i].sector == sector)
			return disk[i].data;
	}
	CASE_FAIL("block %u:%llu never written", dev, sector);
	return NULL;
}

struct fresh_case {
	const char *desc;
	u32 nr;
	sector_t sizes[TIER_MAX_TIERS];
	sector_t meta;
	u32 shift;
};

/* clang-format off */
static const struct fresh_case fresh_cases[] = {
	{ "3 tiers, 1 MiB extents", 3,
	  { 2 * GIB_SECTORS, GIB_SECTORS, 4 * GIB_SECTORS }, 0, 11 },
	{ "3 tiers, metadata device", 3,
	  { 2 * GIB_SECTORS, GIB_SECTORS, 4 * GIB_SECTORS }, 64 * MIB_SECTORS,
	  11 },
	{ "8 tiers, 64 MiB extents", 8,
	  { GIB_SECTORS, GIB_SECTORS, GIB_SECTORS, GIB_SECTORS, GIB_SECTORS,
	    GIB_SECTORS, GIB_SECTORS, 3 * GIB_SECTORS }, 0, 17 },
	{ "8 tiers, 4 MiB extents", 8,
	  { GIB_SECTORS, GIB_SECTORS, GIB_SECTORS, GIB_SECTORS, GIB_SECTORS,
	    GIB_SECTORS, GIB_SECTORS, 3 * GIB_SECTORS }, 0, 13 },
	{ "8 tiers, 64 KiB extents, metadata device", 8,
	  { 64 * MIB_SECTORS, 64 * MIB_SECTORS, 64 * MIB_SECTORS,
	    64 * MIB_SECTORS, 64 * MIB_SECTORS, 64 * MIB_SECTORS,
	    64 * MIB_SECTORS, 64 * MIB_SECTORS }, 4096, 7 },
	{ "one extent", 1, { 4096 }, 0, 11 },
	{ "one tiny tier, 64 KiB extents, metadata device", 1, { 4096 }, 4096,
	  7 },
};

/* clang-format on */

static void fresh_desc(const struct fresh_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(fresh, fresh_cases, fresh_desc);

static void tier_fresh_roundtrip_test(CASE_CTX)
{
	const struct fresh_case *c = CASE_PARAM;
	struct tier_fresh *f =
		fresh_make(test, c->nr, c->sizes, c->meta, c->shift);
	struct tier_label *lbl = fmt_zalloc(test, 2 * sizeof(*lbl));
	struct tier_sb *sb = fmt_zalloc(test, 3 * sizeof(*sb));
	struct tier_alloc *alloc;
	struct tier_err err = { 0 };
	struct tier_blk_loc loc;
	struct tier_map map;
	u32 meta_dev = c->meta ? TIER_META_DEV : 0, dev, i;
	u64 nr_blocks, n, b;
	struct fake_blk *disk;
	int ret[2];

	nr_blocks = tier_fresh_nr_blocks(f);
	CASE_ASSERT_EQ(nr_blocks,
		       2 * f->lo.map_blocks + 2 + c->nr + (c->meta ? 1 : 0));
	disk = case_zalloc((nr_blocks) * (sizeof(*disk)));
	CASE_ASSERT_NOT_NULL(disk);
	for (n = 0; n < nr_blocks; n++) {
		CASE_ASSERT_EQ(tier_fresh_block(f, n, &loc, disk[n].data), 0);
		disk[n].dev = loc.dev;
		disk[n].sector = loc.sector;
		/* Labels come last, metadata device first. */
		if (n < nr_blocks - c->nr - (c->meta ? 1 : 0)) {
			CASE_EQ(loc.dev, meta_dev);
			CASE_GE(loc.sector, f->lo.meta_start);
			CASE_LT(loc.sector,
				f->lo.meta_start + 8 * f->lo.meta_blocks);
		} else {
			CASE_EQ(loc.sector, 0);
		}
		for (b = 0; b < n; b++) {
			bool twice = disk[b].dev == loc.dev &&
				     disk[b].sector == loc.sector;

			CASE_FALSE_MSG(twice, "block %llu written twice",
				       (unsigned long long)n);
		}
	}
	CASE_EQ(tier_fresh_block(f, n, &loc, disk[0].data), -EINVAL);
	CASE_EQ(disk[nr_blocks - c->nr].dev, 0);
	if (c->meta)
		CASE_EQ(disk[nr_blocks - c->nr - 1].dev, TIER_META_DEV);

	/* Activation: every label decodes to what tier_fresh_label() says. */
	for (dev = 0; dev < TIER_MAX_DEVS; dev++) {
		const u8 *blk;

		if (dev >= c->nr && !(dev == TIER_META_DEV && c->meta))
			continue;
		blk = fake_read(test, disk, nr_blocks, dev, 0);
		CASE_ASSERT_NOT_NULL(blk);
		CASE_ASSERT_EQ(tier_label_decode(blk, &lbl[0], &err), 0);
		tier_fresh_label(f, dev, &lbl[1]);
		CASE_EQ(memcmp(&lbl[0], &lbl[1], sizeof(*lbl)), 0);
		CASE_STREQ(lbl[0].name, "fast0");
		CASE_EQ(!!(lbl[0].flags & TIER_LABEL_F_META), dev == meta_dev);
	}

	/* Superblocks: slot 0 is zeroes, slot 1 generation 1. */
	for (i = 0; i < 2; i++) {
		const u8 *blk = fake_read(test, disk, nr_blocks, meta_dev,
					  tier_sb_sector(f->lo.meta_start, i));

		CASE_ASSERT_NOT_NULL(blk);
		ret[i] = tier_sb_decode(blk, i, &sb[i], &err);
	}
	CASE_EQ(ret[0], -EUCLEAN);
	CASE_ASSERT_EQ(ret[1], 0);
	CASE_ASSERT_EQ(tier_sb_pick(sb, ret, &err), 1);
	tier_fresh_sb(f, &sb[2]);
	CASE_EQ(memcmp(&sb[1], &sb[2], sizeof(*sb)), 0);
	CASE_EQ(sb[1].virt_extents, f->lo.virt_extents);
	for (dev = 0; dev < TIER_MAX_DEVS; dev++) {
		if (dev >= c->nr && !(dev == TIER_META_DEV && c->meta))
			continue;
		tier_fresh_label(f, dev, &lbl[0]);
		CASE_EQ(tier_label_check_sb(&lbl[0], &sb[1], dev, &err), 0);
	}

	/* Both map copies are complete and valid; load the active one. */
	for (i = 0; i < 2; i++) {
		for (b = 0; b < sb[1].map_blocks; b++) {
			const u8 *blk =
				fake_read(test, disk, nr_blocks, meta_dev,
					  tier_map_block_sector(&sb[1], i, b));

			CASE_ASSERT_NOT_NULL(blk);
			CASE_EQ(tier_map_block_check(blk, &sb[1], i, b, &err),
				0);
		}
	}
	CASE_ASSERT_EQ(tier_map_init(&map, sb[1].virt_extents, 0), 0);
	for (b = 0; b < map.nr_blocks; b++) {
		sector_t s =
			tier_map_block_sector(&sb[1], sb[1].active_copy, b);
		const u8 *blk = fake_read(test, disk, nr_blocks, meta_dev, s);

		CASE_ASSERT_NOT_NULL(blk);
		CASE_EQ(tier_map_load_block(&map, &sb[1], sb[1].active_copy, b,
					    blk, &err),
			0);
	}
	alloc = case_zalloc((c->nr) * (sizeof(*alloc)));
	CASE_ASSERT_NOT_NULL(alloc);
	for (i = 0; i < c->nr; i++)
		CASE_EQ(tier_alloc_init(&alloc[i], sb[1].tier[i].nr_extents),
			0);
	CASE_EQ(tier_alloc_load_map(alloc, c->nr, &map, &err), 0);
	for (i = 0; i < c->nr; i++) {
		CASE_EQ(alloc[i].nr_used, 0);
		tier_alloc_destroy(&alloc[i]);
	}
	tier_map_destroy(&map);
}

/* Layout fields a change of which tier_fresh_check() must notice. */
static const size_t layout_fields[] = {
	offsetof(struct tier_layout, map_blocks),
	offsetof(struct tier_layout, meta_start),
	offsetof(struct tier_layout, meta_blocks),
	offsetof(struct tier_layout, map_start[0]),
	offsetof(struct tier_layout, map_start[1]),
	offsetof(struct tier_layout, meta_dev_sectors),
	offsetof(struct tier_layout, tier[0].data_start),
	offsetof(struct tier_layout, tier[1].data_start),
	offsetof(struct tier_layout, tier[1].nr_extents),
	offsetof(struct tier_layout, tier[2].nr_extents),
};

static void tier_fresh_check_test(CASE_CTX)
{
	struct tier_fresh *good = fixture(test, false);
	struct tier_fresh *f = fmt_zalloc(test, sizeof(*f));
	struct tier_err err = { 0 };
	size_t k;

	*f = *good;
	strcpy(f->name, "bad name");
	expect_err(test, tier_fresh_check(f, &err), &err, -EINVAL,
		   TIER_E_FRESH_PARAM, "name with a blank");
	memset(f->name, 'a', sizeof(f->name));
	expect_err(test, tier_fresh_check(f, &err), &err, -EINVAL,
		   TIER_E_FRESH_PARAM, "name without NUL");

	*f = *good;
	f->tier_class[2] = TIER_CLASS_MEM;
	expect_err(test, tier_fresh_check(f, &err), &err, -EOPNOTSUPP,
		   TIER_E_FRESH_PARAM, "class mem");
	CASE_EQ(err.item, 2);
	f->tier_class[2] = TIER_CLASS_META;
	expect_err(test, tier_fresh_check(f, &err), &err, -EINVAL,
		   TIER_E_FRESH_PARAM, "class meta");
	f->tier_class[2] = 42;
	expect_err(test, tier_fresh_check(f, &err), &err, -EINVAL,
		   TIER_E_FRESH_PARAM, "class 42");
	f->tier_class[2] = TIER_CLASS_PMEM;
	CASE_EQ(tier_fresh_check(f, &err), 0);
	f->tier_class[2] = TIER_CLASS_UNKNOWN;
	CASE_EQ(tier_fresh_check(f, &err), 0);

	/* Any single tampered layout field is caught. */
	for (k = 0; k < ARRAY_SIZE(layout_fields); k++) {
		*f = *good;
		*(u64 *)((u8 *)&f->lo + layout_fields[k]) += 8;
		CASE_NE_MSG(tier_fresh_check(f, &err), 0, "field %zu", k);
	}
	*f = *good;
	f->lo.map_blocks--;
	expect_err(test, tier_fresh_check(f, &err), &err, -EUCLEAN,
		   TIER_E_FRESH_PARAM, "map_blocks one short");
	*f = *good;
	f->lo.tier[1].data_start = 4096;
	expect_err(test, tier_fresh_check(f, &err), &err, -EUCLEAN,
		   TIER_E_FRESH_PARAM, "tier 1 data_start");
	*f = *good;
	f->lo.map_start[1] += 8;
	expect_err(test, tier_fresh_check(f, &err), &err, -EUCLEAN,
		   TIER_E_FRESH_PARAM, "map_start[1]");
	*f = *good;
	f->lo.extent_shift = 12;
	CASE_NE(tier_fresh_check(f, &err), 0);
	*f = *good;
	f->lo.virt_extents = 0;
	expect_err(test, tier_fresh_check(f, &err), &err, -EUCLEAN,
		   TIER_E_FRESH_PARAM, "virt 0");
	f->lo.virt_extents = 1ULL << 60;
	expect_err(test, tier_fresh_check(f, &err), &err, -EUCLEAN,
		   TIER_E_FRESH_PARAM, "virt 2^60");
	f->lo.virt_extents = 10; /* below capacity is fine */
	CASE_EQ(tier_fresh_check(f, &err), 0);
	f->lo.meta_ext = 1;
	CASE_NE(tier_fresh_check(f, &err), 0);
	*f = *good;
	f->lo.nr_tiers = 0;
	expect_err(test, tier_fresh_check(f, &err), &err, -EINVAL,
		   TIER_E_LAYOUT_NR_TIERS, "no tiers");
	f->lo.nr_tiers = 2;
	CASE_NE(tier_fresh_check(f, &err), 0);
	f->lo.nr_tiers = 3;
	f->lo.extent_shift = 30;
	expect_err(test, tier_fresh_check(f, &err), &err, -EINVAL,
		   TIER_E_LAYOUT_EXTENT_SHIFT, "shift 30");

	*f = *fixture(test, true);
	f->lo.meta_dev_sectors = 8;
	expect_err(test, tier_fresh_check(f, &err), &err, -EINVAL,
		   TIER_E_LAYOUT_META_TOO_SMALL, "metadata device");
}

/* ---- settings record ---------------------------------------------------- */

/* Whether the block is zero from @off to its end. */
static bool bytes_zero(const u8 *blk, u32 off)
{
	for (; off < TIER_BLOCK_SIZE; off++)
		if (blk[off])
			return false;
	return true;
}

static void settings_fill(struct tier_sb *sb)
{
	memset(&sb->settings, 0, sizeof(sb->settings));
	sb->settings.count = 3;
	sb->settings.e[0].id = 5;
	sb->settings.e[0].value = 70;
	sb->settings.e[1].id = 1;
	sb->settings.e[1].value = 250;
	sb->settings.e[2].id = 999; /* a newer module's: kept */
	sb->settings.e[2].value = 0xdeadbeef;
}

/* Encoded at 0x300 with compat bit 0, decoded back as it was. */
static void tier_settings_roundtrip_test(CASE_CTX)
{
	struct tier_sb *sb = sb_fixture(test, false);
	struct tier_sb *out = fmt_zalloc(test, sizeof(*out));
	struct tier_settings s;
	u8 *blk = fmt_blk(test);

	settings_fill(sb);
	tier_sb_encode(sb, blk);
	CASE_EQ(get_le64(blk + 0x68), TIER_FEATURE_COMPAT_SETTINGS);
	CASE_EQ(TIER_FEATURE_COMPAT_SETTINGS, 1ULL);
	CASE_EQ(get_le32(blk + 0x300), 1 | 3 << 16); /* version, count */
	CASE_EQ(get_le32(blk + 0x304), 0);
	CASE_EQ(get_le32(blk + 0x308), 5);
	CASE_EQ(get_le32(blk + 0x30c), 70);
	CASE_EQ(get_le32(blk + 0x310), 1);
	CASE_EQ(get_le32(blk + 0x314), 250);
	CASE_EQ(get_le32(blk + 0x318), 999);
	CASE_EQ(get_le32(blk + 0x31c), 0xdeadbeef);
	CASE_TRUE(bytes_zero(blk, 0x320));
	CASE_ASSERT_EQ(tier_sb_decode(blk, 1, out, NULL), 0);
	CASE_EQ(out->compat, TIER_FEATURE_COMPAT_SETTINGS);
	CASE_EQ(memcmp(&out->settings, &sb->settings, sizeof(s)), 0);
	CASE_EQ(tier_settings_decode(blk, &s), 0);
	CASE_EQ(s.count, 3);

	/* Re-encoding what was decoded keeps the record (repair, restore). */
	tier_sb_encode(out, blk);
	CASE_ASSERT_EQ(tier_sb_decode(blk, 1, out, NULL), 0);
	CASE_EQ(memcmp(&out->settings, &sb->settings, sizeof(s)), 0);

	/* An empty record: no bit, no bytes, as a superblock before it. */
	sb->settings.count = 0;
	sb->compat = TIER_FEATURE_COMPAT_SETTINGS;
	tier_sb_encode(sb, blk);
	CASE_EQ(get_le64(blk + 0x68), 0);
	CASE_TRUE(bytes_zero(blk, 0x300));
	CASE_ASSERT_EQ(tier_sb_decode(blk, 1, out, NULL), 0);
	CASE_EQ(out->settings.count, 0);
}

/* A superblock without the bit gives no settings, whatever 0x300 holds. */
static void tier_settings_old_sb_test(CASE_CTX)
{
	struct tier_sb *sb = sb_fixture(test, false);
	struct tier_sb *out = fmt_zalloc(test, sizeof(*out));
	struct tier_settings s;
	u8 *blk = fmt_blk(test);

	settings_fill(sb);
	tier_sb_encode(sb, blk);
	blk[0x68] = 0; /* as a module without the feature leaves it */
	reseal(blk);
	CASE_ASSERT_EQ(tier_sb_decode(blk, 1, out, NULL), 0);
	CASE_EQ(out->compat, 0);
	CASE_EQ(out->settings.count, 0);
	CASE_EQ(tier_settings_decode(blk, &s), 0);
	CASE_EQ(s.count, 0);
	/* Fresh metadata has none. */
	sb = sb_fixture(test, false);
	CASE_EQ(sb->settings.count, 0);
	tier_sb_encode(sb, blk);
	CASE_EQ(get_le64(blk + 0x68), 0);
}

struct settings_bad_case {
	const char *desc;
	u32 off; /* byte in the superblock block */
	u8 val;
	int ret;
};

/* clang-format off */
static const struct settings_bad_case settings_bad_cases[] = {
	{ "record version 2", 0x300, 2, -EPROTO },
	{ "record version 0", 0x300, 0, -EPROTO },
	{ "count 32", 0x302, 32, -EUCLEAN },
	{ "count 255", 0x302, 255, -EUCLEAN },
	{ "reserved header byte", 0x305, 1, -EUCLEAN },
	{ "id 0", 0x308, 0, -EUCLEAN },
	{ "duplicate id", 0x310, 5, -EUCLEAN },
	{ "entry reserved byte", 0x30a, 1, -EUCLEAN },
	{ "unused entry not zero", 0x320, 1, -EUCLEAN },
	{ "last unused entry not zero", 0x3ff, 1, -EUCLEAN },
};

/* clang-format on */

static void settings_bad_desc(const struct settings_bad_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(settings_bad, settings_bad_cases, settings_bad_desc);

/*
 * A malformed record is refused whole (no entry of it applied), and the
 * superblock stays valid: the feature is compat, the device loads.
 */
static void tier_settings_bad_test(CASE_CTX)
{
	const struct settings_bad_case *c = CASE_PARAM;
	struct tier_sb *sb = sb_fixture(test, false);
	struct tier_sb *out = fmt_zalloc(test, sizeof(*out));
	struct tier_settings s;
	u8 *blk = fmt_blk(test);

	settings_fill(sb);
	tier_sb_encode(sb, blk);
	CASE_EQ(tier_settings_decode(blk, &s), 0);
	blk[c->off] = c->val;
	reseal(blk);
	CASE_EQ(tier_settings_decode(blk, &s), c->ret);
	CASE_EQ(s.count, 0);
	CASE_ASSERT_EQ(tier_sb_decode(blk, 1, out, NULL), 0);
	CASE_EQ(out->settings.count, 0);
}

static void tier_settings_put_get_test(CASE_CTX)
{
	struct tier_settings *s = fmt_zalloc(test, sizeof(*s));
	u32 v = 7, i;

	CASE_EQ(tier_settings_get(s, 5, &v), -ENOENT);
	CASE_EQ(v, 7);
	CASE_EQ(tier_settings_put(s, 0, 1), -EINVAL);
	CASE_EQ(tier_settings_put(s, 5, 70), 0);
	CASE_EQ(tier_settings_put(s, 6, 30), 0);
	CASE_EQ(tier_settings_put(s, 5, 75), 0); /* replaced in place */
	CASE_EQ(s->count, 2);
	CASE_EQ(s->e[0].id, 5);
	CASE_EQ(tier_settings_get(s, 5, &v), 0);
	CASE_EQ(v, 75);
	for (i = 100; s->count < TIER_SETTINGS_MAX; i++)
		CASE_ASSERT_EQ(tier_settings_put(s, i, i), 0);
	CASE_EQ(tier_settings_put(s, 1, 1), -ENOSPC);
	CASE_EQ(tier_settings_put(s, 6, 31), 0); /* full, but present */
	CASE_EQ(s->count, TIER_SETTINGS_MAX);
}

/*
 * Resize (docs/FORMAT.md "Resizing"): a tier's record on a grown device,
 * the bounds of the virtual size (map room, capacity), the superblock the
 * resize commits, labels with the old size as hints, create --max-size.
 */
static void tier_resize_test(CASE_CTX)
{
	struct tier_sb *sb = sb_fixture(test, false);
	struct tier_sb *n = fmt_zalloc(test, sizeof(*n));
	struct tier_sb *dec = fmt_zalloc(test, sizeof(*dec));
	struct tier_sb_tier *recs = fmt_zalloc(test, 8 * sizeof(*recs));
	struct tier_label *l = fmt_zalloc(test, sizeof(*l));
	void *blk = fmt_zalloc(test, TIER_BLOCK_SIZE);
	struct tier_sb_tier rec;
	enum tier_resize_bound bound;
	struct tier_err err = { 0 };
	sector_t huge;
	u32 i;

	/* The fixture: 7165 extents, map room 29 * 254 = 7366. */
	CASE_ASSERT_EQ(sb->map_blocks, 29);
	CASE_EQ(tier_sb_max_virt(sb, &bound), 7165);
	CASE_EQ(bound, TIER_RESIZE_BOUND_CAPACITY);

	/* Same size, less than one extent more: no growth. */
	CASE_EQ(tier_sb_tier_grown(sb, 1, GIB_SECTORS, &rec), 0);
	CASE_MEMEQ(&rec, &sb->tier[1], sizeof(rec));
	CASE_EQ(tier_sb_tier_grown(sb, 1, GIB_SECTORS + 1024, &rec), 0);
	CASE_EQ(rec.nr_extents, 1023);
	/* Grown to 2 GiB: 2047 extents after the first MiB. */
	CASE_EQ(tier_sb_tier_grown(sb, 1, 2 * GIB_SECTORS, &rec), 1);
	CASE_EQ(rec.nr_extents, 2047);
	CASE_EQ(rec.dev_sectors, 2 * GIB_SECTORS);
	CASE_EQ(rec.data_start, sb->tier[1].data_start);
	CASE_MEMEQ(rec.member_uuid, sb->tier[1].member_uuid, TIER_UUID_LEN);
	/* Smaller than recorded: refused, never truncated. */
	CASE_EQ(tier_sb_tier_grown(sb, 1, GIB_SECTORS - 8, &rec), -ENOSPC);
	CASE_EQ(tier_sb_tier_grown(sb, 3, 4 * GIB_SECTORS, &rec), -EINVAL);

	/* The superblock with tier 1 grown: now the map room bounds. */
	for (i = 0; i < sb->nr_tiers; i++)
		recs[i] = sb->tier[i];
	CASE_EQ(tier_sb_tier_grown(sb, 1, 2 * GIB_SECTORS, &recs[1]), 1);
	memcpy(n, sb, sizeof(*n));
	CASE_EQ(tier_sb_resize(n, recs, sb->virt_extents, &err), 0);
	CASE_EQ(n->tier[1].nr_extents, 2047);
	CASE_EQ(n->tier[0].nr_extents, sb->tier[0].nr_extents);
	CASE_EQ(n->virt_extents, 7165);
	CASE_EQ(tier_sb_max_virt(n, &bound), 7366);
	CASE_EQ(bound, TIER_RESIZE_BOUND_MAP);
	/* Beyond the map room: refused with the maximum, nothing changed. */
	memcpy(dec, n, sizeof(*dec));
	expect_err(test, tier_sb_resize(n, NULL, 7367, &err), &err, -ENOSPC,
		   TIER_E_SB_VIRT_EXTENTS, "beyond the map room");
	CASE_EQ(err.value, 7366);
	CASE_MEMEQ(n, dec, sizeof(*n));
	expect_err(test, tier_sb_resize(n, NULL, 0, &err), &err, -EINVAL,
		   TIER_E_SB_VIRT_EXTENTS, "virtual size 0");
	CASE_EQ(tier_sb_resize(n, NULL, 7366, &err), 0);
	CASE_EQ(n->virt_extents, 7366);
	/* It is a valid superblock (what the kernel commits). */
	n->generation++;
	tier_sb_encode(n, blk);
	CASE_EQ(tier_sb_decode(blk, tier_sb_slot(n->generation), dec, &err), 0);
	CASE_EQ(dec->virt_extents, 7366);
	CASE_EQ(dec->tier[1].nr_extents, 2047);
	/* Shrinks to one extent; a record that shrinks is refused. */
	CASE_EQ(tier_sb_resize(n, NULL, 1, &err), 0);
	recs[1].nr_extents = 1000;
	expect_err(test, tier_sb_resize(n, recs, 1, &err), &err, -EINVAL,
		   TIER_E_SB_TIER, "a record that shrinks");
	CASE_EQ(err.item, 1);
	recs[1].nr_extents = 2048; /* past the recorded device end */
	expect_err(test, tier_sb_resize(n, recs, 1, &err), &err, -EINVAL,
		   TIER_E_SB_TIER, "a record past its device");

	/* Labels: the old size is a hint until rewritten; never larger. */
	tier_fresh_label(fixture(test, false), 1, l);
	CASE_EQ(tier_label_check_sb(l, n, 1, &err), 0);
	l->nr_extents = 2047;
	l->dev_sectors = 2 * GIB_SECTORS;
	CASE_EQ(tier_label_check_sb(l, n, 1, &err), 0);
	CASE_EQ(tier_label_check_sb(l, sb, 1, &err), -EUCLEAN);
	l->nr_extents = 1023;
	CASE_EQ(tier_label_check_sb(l, sb, 1, &err), -EUCLEAN);

	/*
	 * Grown past 2^32 extents: the record stops at TIER_MAX_TIER_EXTENTS
	 * (it said 2^48, which tier_sb_resize() and the superblock's decode
	 * refuse: every later reload failed); the resized superblock decodes.
	 */
	for (i = 0; i < sb->nr_tiers; i++)
		recs[i] = sb->tier[i];
	huge = sb->tier[1].data_start +
	       ((TIER_MAX_TIER_EXTENTS + 5) << sb->extent_shift);
	CASE_EQ(tier_sb_tier_grown(sb, 1, huge, &recs[1]), 1);
	CASE_EQ(recs[1].nr_extents, TIER_MAX_TIER_EXTENTS);
	memcpy(n, sb, sizeof(*n));
	CASE_EQ(tier_sb_resize(n, recs, sb->virt_extents, &err), 0);
	CASE_EQ(n->tier[1].nr_extents, TIER_MAX_TIER_EXTENTS);
	n->generation++;
	tier_sb_encode(n, blk);
	CASE_EQ(tier_sb_decode(blk, tier_sb_slot(n->generation), dec, &err), 0);
	CASE_EQ(dec->tier[1].nr_extents, TIER_MAX_TIER_EXTENTS);
	/* At the cap already: a device growing further changes nothing. */
	CASE_EQ(tier_sb_tier_grown(n, 1, huge + (8ULL << 30), &rec), 0);
	CASE_EQ(rec.nr_extents, TIER_MAX_TIER_EXTENTS);
}

/* create --max-size: the map has room for the virtual size asked. */
static void tier_layout_map_room_test(CASE_CTX)
{
	struct tier_layout_req req;
	struct tier_fresh *f = fmt_zalloc(test, sizeof(*f));
	struct tier_fresh *plain = fixture(test, false);
	struct tier_sb *sb = fmt_zalloc(test, sizeof(*sb));
	enum tier_resize_bound bound;
	u32 i;

	memset(&req, 0, sizeof(req));
	req.nr_tiers = 3;
	req.extent_shift = 11;
	for (i = 0; i < 3; i++)
		req.dev_sectors[i] = sizes3[i];
	req.map_extents = 200000;
	CASE_ASSERT_EQ(tier_layout_compute(&req, &f->lo, NULL), 0);
	CASE_EQ(f->lo.map_blocks, 788); /* ceil(200000 / 254) */
	CASE_EQ(f->lo.meta_blocks, 2 + 2 * 788);
	CASE_EQ(f->lo.virt_extents, plain->lo.virt_extents - 6);
	/* Tier 0's data starts after the larger metadata area. */
	CASE_EQ(f->lo.tier[0].data_start, 7 * 2048);
	memcpy(f->uuid, plain->uuid, TIER_UUID_LEN);
	memcpy(f->member_uuid, plain->member_uuid, sizeof(f->member_uuid));
	strcpy(f->name, "fast0");
	memcpy(f->tier_class, plain->tier_class, sizeof(f->tier_class));
	CASE_EQ(tier_fresh_check(f, NULL), 0);
	tier_fresh_sb(f, sb);
	CASE_EQ(tier_sb_max_virt(sb, &bound), f->lo.virt_extents);
	CASE_EQ(bound, TIER_RESIZE_BOUND_CAPACITY);
	/* Less than the raw capacity: the raw capacity, as without it. */
	req.map_extents = 10;
	CASE_ASSERT_EQ(tier_layout_compute(&req, &f->lo, NULL), 0);
	CASE_EQ(f->lo.map_blocks, plain->lo.map_blocks);
	/* More than tier 0 can hold: refused. */
	req.map_extents = 1ULL << 40;
	CASE_EQ(tier_layout_compute(&req, &f->lo, NULL), -EINVAL);
}

static struct case_entry format_cases[] = {
	CASE_RUN(tier_format_offsets_test),
	CASE_RUN(tier_format_csum_test),
	CASE_RUN(tier_format_endian_test),
	CASE_RUN(tier_format_err_str_test),
	CASE_RUN(tier_format_fixture_test),
	CASE_RUN_PARAMS(tier_layout_ok_test, layout_ok),
	CASE_RUN_PARAMS(tier_layout_decodes_test, layout_ok),
	CASE_RUN_PARAMS(tier_layout_err_test, layout_err),
	CASE_RUN_PARAMS(tier_layout_meta_min_test, meta_min),
	CASE_RUN_PARAMS(tier_label_roundtrip_test, label_rt),
	CASE_RUN(tier_name_valid_test),
	CASE_RUN_PARAMS(tier_format_corrupt_test, corrupt),
	CASE_RUN_PARAMS(tier_format_bitflip_test, flip),
	CASE_RUN_PARAMS(tier_label_field_test, label),
	CASE_RUN_PARAMS(tier_label_bad_name_test, bad_name),
	CASE_RUN(tier_label_long_name_test),
	CASE_RUN(tier_sb_roundtrip_test),
	CASE_RUN(tier_sb_generation_zero_test),
	CASE_RUN_PARAMS(tier_sb_field_test, sb),
	CASE_RUN(tier_sb_virt_bytes_test),
	CASE_RUN_PARAMS(tier_sb_pick_test, pick),
	CASE_RUN(tier_sb_pick_decoded_test),
	CASE_RUN(tier_label_check_sb_test),
	CASE_RUN(tier_label_check_sb_fields_test),
	CASE_RUN(tier_list_change_test),
	CASE_RUN(tier_list_middle_test),
	CASE_RUN(tier_list_tier0_test),
	CASE_RUN(tier_resize_test),
	CASE_RUN(tier_layout_map_room_test),
	CASE_RUN(tier_format_err_values_test),
	CASE_RUN(tier_map_block_roundtrip_test),
	CASE_RUN_PARAMS(tier_map_entry_test, entry),
	CASE_RUN_PARAMS(tier_fresh_roundtrip_test, fresh),
	CASE_RUN(tier_fresh_check_test),
	CASE_RUN(tier_settings_roundtrip_test),
	CASE_RUN(tier_settings_old_sb_test),
	CASE_RUN_PARAMS(tier_settings_bad_test, settings_bad),
	CASE_RUN(tier_settings_put_get_test),
	{}
};
