/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cases for kernel/core/extent_map.c: in-memory map, dirty tracking for the
 * two-copy commit, map block encoding. Run by tests/unit/test_extent_map.c
 * (cmocka) and tests/kunit/extent_map_kunit.c (KUnit); see case.h.
 */
#include "case.h"
#include "format.h"
#include "extent_map.h"

/* ---- helpers ------------------------------------------------------------ */

static void map_destroy(void *m)
{
	tier_map_destroy(m);
}

/* The heat clock of test maps: access times near it are exact (fine). */
#define EM_CLOCK 100000

/* A map destroyed when the case ends, however it ends. */
static struct tier_map *test_map(CASE_CTX, u64 nr_extents, u32 flags)
{
	struct tier_map *m = case_alloc(test, sizeof(*m));

	CASE_ASSERT_EQ(tier_map_init(m, nr_extents, flags), 0);
	CASE_ASSERT_EQ(case_defer(test, map_destroy, m), 0);
	tier_map_set_clock(m, EM_CLOCK);
	return m;
}

/* Heat and access time of a mapped word, as the map's clock reads them. */
static u32 em_heat(const struct tier_map *m, u64 v)
{
	return tier_mw_heat(m->words[v]);
}

static u32 em_atime(const struct tier_map *m, u64 v)
{
	return tier_mw_atime(m->words[v], m->clock);
}

static void em_set_access(struct tier_map *m, u64 v, u32 heat, u32 atime)
{
	if (m->words[v] & TIER_MW_MAPPED)
		m->words[v] =
			tier_mw_with_access(m->words[v], heat, atime, m->clock);
}

static void em_set_heat(struct tier_map *m, u64 v, u32 heat)
{
	em_set_access(m, v, heat, em_atime(m, v));
}

static void em_set_atime(struct tier_map *m, u64 v, u32 atime)
{
	em_set_access(m, v, em_heat(m, v), atime);
}

static void *em_zalloc(CASE_CTX, size_t size)
{
	return case_alloc(test, size);
}

/* A consistent superblock for a map of @virt extents over @nr tiers. */
static struct tier_sb *sb_make(CASE_CTX, u64 virt, u32 nr, u64 per_tier)
{
	struct tier_sb *sb = em_zalloc(test, sizeof(*sb));
	u32 i;

	memset(sb->uuid, 0x42, TIER_UUID_LEN);
	sb->generation = 1;
	sb->virt_extents = virt;
	sb->extent_shift = 11;
	sb->nr_tiers = nr;
	sb->map_blocks = tier_map_blocks_for(virt);
	sb->meta_start = 8;
	sb->map_start[0] = 24;
	sb->map_start[1] = 24 + 8 * sb->map_blocks;
	for (i = 0; i < nr; i++) {
		sb->tier[i].nr_extents = per_tier;
		sb->tier[i].data_start = 2048;
		sb->tier[i].dev_sectors = 2048 + (per_tier << 11);
	}
	return sb;
}

static struct tier_loc loc_of(u32 tier, u64 pext, u32 flags)
{
	struct tier_loc l = { .tier = tier,
			      .flags = flags,
			      .pext = tier_pext(pext) };

	return l;
}

static void expect_loc(CASE_CTX, const struct tier_loc *got,
		       const struct tier_loc *want)
{
	CASE_EQ(got->tier, want->tier);
	CASE_EQ(got->flags, want->flags);
	CASE_EQ(got->pext.p, want->pext.p);
}

/* ---- words and sector arithmetic ---------------------------------------- */

struct word_case {
	const char *desc;
	u32 tier;
	u32 flags;
	u64 pext;
	u64 word;
};

/* clang-format off */
static const struct word_case word_cases[] = {
	{ "tier 0, pext 0", 0, 0, 0, TIER_MAPW_MAPPED },
	{ "pinned", 2, TIER_EXT_F_PINNED, 12345,
	  TIER_MAPW_MAPPED | (2ULL << 56) | (1ULL << 48) | 12345 },
	{ "every field at its widest", 15, 0xff, TIER_MAPW_PEXT_MASK,
	  0x8fffffffffffffffULL },
	{ "undefined extent flags", 7, 0x80, 1, 0x8780000000000001ULL },
	{ "oversized fields are truncated", 16, 0x100, 1ULL << 48,
	  TIER_MAPW_MAPPED },
	{ "oversized fields keep their low bits", 17, 0x1ff,
	  (1ULL << 48) | 5, 0x81ff000000000005ULL },
};

/* clang-format on */

static void word_desc(const struct word_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(word, word_cases, word_desc);

static void tier_map_word_test(CASE_CTX)
{
	const struct word_case *c = CASE_PARAM;
	struct tier_loc l = loc_of(c->tier, c->pext, c->flags), out;
	u64 w = tier_map_word_encode(&l);

	CASE_EQ(w, c->word);
	CASE_EQ(w & TIER_MAPW_RSVD_MASK, 0);
	CASE_ASSERT_TRUE(tier_map_word_decode(w, &out));
	CASE_EQ(out.tier, c->tier & 0xf);
	CASE_EQ(out.flags, c->flags & 0xff);
	CASE_EQ(out.pext.p, c->pext & TIER_MAPW_PEXT_MASK);
}

static void tier_map_word_unmapped_test(CASE_CTX)
{
	struct tier_loc out = loc_of(99, 98, 97), want = out;

	CASE_FALSE(tier_map_word_decode(0, &out));
	CASE_FALSE(tier_map_word_decode(0x7fffffffffffffffULL, &out));
	expect_loc(test, &out, &want); /* untouched */
	CASE_EQ(tier_vext(5).v, 5);
	CASE_EQ(tier_pext(6).p, 6);
}

static void tier_map_sectors_test(CASE_CTX)
{
	sector_t off = 99;
	struct tier_vext v;

	v = tier_sector_to_vext(0, 11, &off);
	CASE_EQ(v.v, 0);
	CASE_EQ(off, 0);
	v = tier_sector_to_vext(2048 * 7 + 5, 11, &off);
	CASE_EQ(v.v, 7);
	CASE_EQ(off, 5);
	v = tier_sector_to_vext(U64_MAX, 17, NULL);
	CASE_EQ(v.v, U64_MAX >> 17);
	v = tier_sector_to_vext(U64_MAX, 7, &off);
	CASE_EQ(off, 127);
	CASE_EQ(tier_vext_to_sector(tier_vext(7), 11), 7 * 2048);
	CASE_EQ(tier_vext_to_sector(tier_vext(3), 17), 3ULL << 17);
	CASE_EQ(tier_pext_to_sector(4096, 11, tier_pext(3), 17),
		4096 + 3 * 2048 + 17);
	CASE_EQ(tier_pext_to_sector(2048, 17, tier_pext(0), 0), 2048);
	CASE_EQ(tier_map_block_of(tier_vext(0)), 0);
	CASE_EQ(tier_map_block_of(tier_vext(253)), 0);
	CASE_EQ(tier_map_block_of(tier_vext(254)), 1);
	CASE_EQ(tier_map_block_of(tier_vext(254 * 1000 + 3)), 1000);
	CASE_EQ(tier_map_block_of(tier_vext(TIER_MAX_PEXTS - 1)),
		(TIER_MAX_PEXTS - 1) / 254);
}

/* ---- lifetime ----------------------------------------------------------- */

static void tier_map_init_test(CASE_CTX)
{
	struct tier_map m;
	int i;

	memset(&m, 0x5a, sizeof(m));
	CASE_EQ(tier_map_init(&m, 0, 0), -EINVAL);
	CASE_NULL(m.words);
	CASE_NULL(m.dirty[0]);
	CASE_EQ(m.nr_extents, 0);
	CASE_EQ(tier_map_init(&m, TIER_MAX_PEXTS + 1, 0), -EINVAL);
	CASE_NULL(m.words);
	/* Each allocation failing in turn: no leak, the map zeroed. */
	for (i = 1; CASE_FAULT_INJECTION && i <= 3; i++) {
		case_fail_alloc(i);
		CASE_EQ(tier_map_init(&m, 1000, 0), -ENOMEM);
		CASE_NULL(m.words);
		CASE_NULL(m.dirty[0]);
		CASE_EQ(m.nr_extents, 0);
	}
	for (i = 1; CASE_FAULT_INJECTION && i <= 3; i++) {
		case_fail_alloc(i);
		CASE_EQ(tier_map_init(&m, 1000, TIER_MAP_F_HEAT), -ENOMEM);
		CASE_NULL(m.words);
	}
	case_fail_alloc(0);

	CASE_ASSERT_EQ(tier_map_init(&m, 1000, TIER_MAP_F_HEAT), 0);
	CASE_EQ(m.nr_extents, 1000);
	CASE_EQ(m.nr_blocks, 4);
	CASE_EQ(m.flags, TIER_MAP_F_HEAT);
	CASE_EQ(m.nr_dirty[0] + m.nr_dirty[1], 0);
	/* Destroying twice is harmless. */
	tier_map_destroy(&m);
	tier_map_destroy(&m);
	CASE_NULL(m.words);

	CASE_ASSERT_EQ(tier_map_init(&m, 1, 0), 0);
	CASE_EQ(m.nr_blocks, 1);
	CASE_EQ(m.flags, 0);
	tier_map_destroy(&m);
	CASE_ASSERT_EQ(tier_map_init(&m, 254, 0), 0);
	CASE_EQ(m.nr_blocks, 1);
	tier_map_destroy(&m);
	CASE_ASSERT_EQ(tier_map_init(&m, 255, 0), 0);
	CASE_EQ(m.nr_blocks, 2);
	tier_map_destroy(&m);
}

/* ---- set, lookup, clear ------------------------------------------------- */

static void tier_map_set_lookup_clear_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 600, 0);
	struct tier_loc l = loc_of(3, 77, 0), out, old;

	CASE_EQ(m->nr_blocks, 3);
	CASE_FALSE(tier_map_lookup(m, tier_vext(5), &out));
	CASE_EQ(m->nr_dirty[0] + m->nr_dirty[1], 0);

	tier_map_set(m, tier_vext(5), &l);
	CASE_ASSERT_TRUE(tier_map_lookup(m, tier_vext(5), &out));
	expect_loc(test, &out, &l);
	CASE_MEMEQ(&l, &out, sizeof(l));
	CASE_FALSE(tier_map_lookup(m, tier_vext(4), &out));
	CASE_FALSE(tier_map_lookup(m, tier_vext(6), &out));
	CASE_EQ(m->words[5], tier_mw_encode(&l));
	CASE_EQ(m->nr_dirty[0], 1);
	CASE_EQ(m->nr_dirty[1], 1);
	/* Same block again: counted once. */
	tier_map_set(m, tier_vext(253), &l);
	CASE_EQ(m->nr_dirty[0], 1);

	/* First and last extent. */
	tier_map_set(m, tier_vext(0), &l);
	tier_map_set(m, tier_vext(599), &l);
	CASE_EQ(m->nr_dirty[0], 2);
	CASE_EQ(m->nr_dirty[1], 2);
	CASE_TRUE(tier_map_lookup(m, tier_vext(0), &out));
	CASE_TRUE(tier_map_lookup(m, tier_vext(599), &out));

	CASE_FALSE(tier_map_clear(m, tier_vext(6), &old));
	old = loc_of(9, 9, 9);
	CASE_TRUE(tier_map_clear(m, tier_vext(5), &old));
	expect_loc(test, &old, &l);
	CASE_FALSE(tier_map_lookup(m, tier_vext(5), &out));
	CASE_FALSE(tier_map_clear(m, tier_vext(5), NULL));
	CASE_TRUE(tier_map_clear(m, tier_vext(599), NULL));
	CASE_EQ(m->words[599], 0);

	/* Remapping moves the extent (migration) and keeps the flags. */
	l = loc_of(0, 1, TIER_EXT_F_PINNED);
	tier_map_set(m, tier_vext(0), &l);
	CASE_ASSERT_TRUE(tier_map_lookup(m, tier_vext(0), &out));
	expect_loc(test, &out, &l);
	tier_map_set(m, tier_vext(253), &l);
	CASE_ASSERT_TRUE(tier_map_lookup(m, tier_vext(253), &out));
	CASE_EQ(out.flags, TIER_EXT_F_PINNED);
}

/* Clearing resets heat and atime; setting keeps them. */
static void tier_map_clear_heat_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 300, TIER_MAP_F_HEAT);
	struct tier_loc l = loc_of(1, 2, 0);

	tier_map_set(m, tier_vext(10), &l);
	em_set_heat(m, 10, 480);
	em_set_atime(m, 10, 98765);
	l.pext = tier_pext(3);
	tier_map_set(m, tier_vext(10), &l);
	CASE_EQ(em_heat(m, 10), 480);
	CASE_EQ(em_atime(m, 10), 98765);
	CASE_TRUE(tier_map_clear(m, tier_vext(10), NULL));
	CASE_EQ(em_heat(m, 10), 0);
	CASE_EQ(em_atime(m, 10), 0);
}

/*
 * forget-tier: only extents mapped on the lost tier are unmapped (heat
 * reset, block dirtied, old location returned); other tiers, unmapped
 * extents and busy extents (a job owns them) are left alone.
 */
static void tier_map_clear_on_tier_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 600, TIER_MAP_F_HEAT);
	struct tier_loc l1 = loc_of(1, 7, TIER_EXT_F_PINNED);
	struct tier_loc l0 = loc_of(0, 3, 0), old, out;

	tier_map_set(m, tier_vext(2), &l0);
	tier_map_set(m, tier_vext(300), &l1);
	tier_map_set(m, tier_vext(301), &l1);
	tier_map_set_busy(m, tier_vext(301), true);
	em_set_heat(m, 300, 9);
	/* Start with nothing dirty (600 extents: one bitmap word). */
	m->dirty[0][0] = 0;
	m->dirty[1][0] = 0;
	m->nr_dirty[0] = 0;
	m->nr_dirty[1] = 0;

	/* Unmapped, and mapped on another tier: nothing changes. */
	CASE_EQ(tier_map_clear_on_tier(m, tier_vext(1), 1, &old), 0);
	CASE_EQ(tier_map_clear_on_tier(m, tier_vext(2), 1, &old), 0);
	CASE_TRUE(tier_map_lookup(m, tier_vext(2), &out));
	expect_loc(test, &out, &l0);
	/* Busy on the lost tier: refused, still mapped. */
	CASE_EQ(tier_map_clear_on_tier(m, tier_vext(301), 1, &old), -EBUSY);
	CASE_TRUE(tier_map_lookup(m, tier_vext(301), &out));
	CASE_EQ(m->nr_dirty[0] + m->nr_dirty[1], 0);

	/* On the lost tier: unmapped, old location out, heat reset. */
	old = loc_of(9, 9, 9);
	CASE_EQ(tier_map_clear_on_tier(m, tier_vext(300), 1, &old), 1);
	expect_loc(test, &old, &l1);
	CASE_FALSE(tier_map_lookup(m, tier_vext(300), &out));
	CASE_EQ(em_heat(m, 300), 0);
	CASE_EQ(m->nr_dirty[0], 1);
	CASE_EQ(m->nr_dirty[1], 1);
	/* Again: already gone. */
	CASE_EQ(tier_map_clear_on_tier(m, tier_vext(300), 1, &old), 0);

	/* The job ended: now it goes. */
	tier_map_set_busy(m, tier_vext(301), false);
	CASE_EQ(tier_map_clear_on_tier(m, tier_vext(301), 1, &old), 1);
	CASE_EQ(m->words[301], 0);
}

/*
 * The in-memory busy bit: lookups ignore it, no block is dirtied, and it
 * never reaches the disk (bit 62 is reserved there).
 */
static void tier_map_busy_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 300, 0);
	struct tier_sb *sb = sb_make(test, 300, 3, 1000);
	u8 *blk = em_zalloc(test, TIER_BLOCK_SIZE);
	struct tier_loc l = loc_of(2, 42, TIER_EXT_F_PINNED), out;
	struct tier_err err = { 0 };
	struct tier_map_entry e;

	tier_map_set(m, tier_vext(7), &l);
	tier_map_fill_block(m, sb, 0, 0, blk);
	tier_map_fill_block(m, sb, 1, 0, blk);
	CASE_EQ(m->nr_dirty[0] + m->nr_dirty[1], 0);

	tier_map_set_busy(m, tier_vext(7), true);
	CASE_TRUE(m->words[7] & TIER_MW_BUSY);
	CASE_EQ(m->nr_dirty[0] + m->nr_dirty[1], 0);
	CASE_ASSERT_TRUE(tier_map_lookup(m, tier_vext(7), &out));
	expect_loc(test, &out, &l);

	tier_map_fill_block(m, sb, 0, 0, blk);
	CASE_EQ(tier_map_block_check(blk, sb, 0, 0, &err), 0);
	tier_map_block_get(blk, 7, &e);
	CASE_EQ(e.word, tier_map_word_encode(&l));

	tier_map_set_busy(m, tier_vext(7), false);
	CASE_EQ(m->words[7], tier_mw_encode(&l));
	/* Switching the mapping (tier_map_set) clears it too. */
	tier_map_set_busy(m, tier_vext(7), true);
	l.tier = 0;
	tier_map_set(m, tier_vext(7), &l);
	CASE_EQ(m->words[7], tier_mw_encode(&l));
}

/* Pin/unpin in place: location and busy bit kept, block dirtied. */
static void tier_map_set_flags_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 300, 0);
	struct tier_sb *sb = sb_make(test, 300, 3, 1000);
	u8 *blk = em_zalloc(test, TIER_BLOCK_SIZE);
	struct tier_loc l = loc_of(1, 42, 0), want = l, out;

	CASE_FALSE(tier_map_set_flags(m, tier_vext(5), TIER_EXT_F_PINNED, 0));
	CASE_EQ(m->words[5], 0);
	tier_map_set(m, tier_vext(7), &l);
	tier_map_fill_block(m, sb, 0, 0, blk);
	tier_map_fill_block(m, sb, 1, 0, blk);
	tier_map_set_busy(m, tier_vext(7), true);
	CASE_TRUE(tier_map_set_flags(m, tier_vext(7), TIER_EXT_F_PINNED, 0));
	CASE_EQ(m->nr_dirty[0], 1);
	CASE_EQ(m->nr_dirty[1], 1);
	CASE_TRUE(m->words[7] & TIER_MW_BUSY);
	CASE_ASSERT_TRUE(tier_map_lookup(m, tier_vext(7), &out));
	want.flags = TIER_EXT_F_PINNED;
	expect_loc(test, &out, &want);
	CASE_FALSE(tier_map_set_flags(m, tier_vext(7), TIER_EXT_F_PINNED, 0));
	CASE_TRUE(tier_map_set_flags(m, tier_vext(7), 0, TIER_EXT_F_PINNED));
	tier_map_set_busy(m, tier_vext(7), false);
	CASE_EQ(m->words[7], tier_mw_encode(&l));
}

/* tier_mw_has_flags(): every flag asked for, whatever else the word holds. */
static void tier_map_has_flags_test(CASE_CTX)
{
	struct tier_loc l = loc_of(2, 42, TIER_EXT_F_MEMRES);
	u64 w = tier_mw_with_access(tier_mw_encode(&l), 300, 5, 10);

	CASE_TRUE(tier_mw_has_flags(w, TIER_EXT_F_MEMRES));
	CASE_FALSE(tier_mw_has_flags(w, TIER_EXT_F_PINNED));
	CASE_FALSE(tier_mw_has_flags(w, TIER_EXT_F_PINNED | TIER_EXT_F_MEMRES));
	CASE_TRUE(tier_mw_has_flags(w | TIER_MW_BUSY, TIER_EXT_F_MEMRES));
	l.flags = TIER_EXT_F_PINNED | TIER_EXT_F_MEMRES;
	w = tier_mw_encode(&l);
	CASE_TRUE(tier_mw_has_flags(w, TIER_EXT_F_PINNED | TIER_EXT_F_MEMRES));
	CASE_TRUE(tier_mw_has_flags(w, TIER_EXT_F_PINNED));
	/* Heat, access time and pext bits are never taken for flags. */
	l.flags = 0;
	l.pext = tier_pext(0xffffffffULL);
	w = tier_mw_with_access(tier_mw_encode(&l), 0xffff, 1000, 1000);
	CASE_FALSE(tier_mw_has_flags(w, TIER_EXT_F_PINNED));
	CASE_FALSE(tier_mw_has_flags(w, TIER_EXT_F_MEMRES));
	CASE_TRUE(tier_mw_has_flags(w, 0));
}

/* ---- tier-list renumbering ---------------------------------------------- */

/* The old -> new tables of one tier inserted or removed. */
static void tier_map_renumber_table_test(CASE_CTX)
{
	u8 t[TIER_MAX_TIERS], inv[TIER_MAX_TIERS];
	u32 i;

	/* Insert at 1 of 3: 0 stays, 1 -> 2, 2 -> 3. */
	CASE_ASSERT_EQ(tier_map_renumber_table(3, true, 1, t), 0);
	CASE_EQ(t[0], 0);
	CASE_EQ(t[1], 2);
	CASE_EQ(t[2], 3);
	for (i = 3; i < TIER_MAX_TIERS; i++)
		CASE_EQ(t[i], TIER_RENUM_GONE);
	tier_map_renumber_inverse(t, 3, inv);
	CASE_EQ(inv[0], 0);
	CASE_EQ(inv[1], TIER_RENUM_GONE);
	CASE_EQ(inv[2], 1);
	CASE_EQ(inv[3], 2);
	/* Appending is the identity. */
	CASE_ASSERT_EQ(tier_map_renumber_table(3, true, 3, t), 0);
	for (i = 0; i < 3; i++)
		CASE_EQ(t[i], i);
	/* Remove 1 of 3: 1 gone, 2 -> 1. */
	CASE_ASSERT_EQ(tier_map_renumber_table(3, false, 1, t), 0);
	CASE_EQ(t[0], 0);
	CASE_EQ(t[1], TIER_RENUM_GONE);
	CASE_EQ(t[2], 1);
	tier_map_renumber_inverse(t, 3, inv);
	CASE_EQ(inv[0], 0);
	CASE_EQ(inv[1], 2);
	CASE_EQ(inv[2], TIER_RENUM_GONE);
	/* Out of range. */
	CASE_EQ(tier_map_renumber_table(3, true, 4, t), -EINVAL);
	CASE_EQ(tier_map_renumber_table(3, false, 3, t), -EINVAL);
	CASE_EQ(tier_map_renumber_table(1, false, 0, t), -EINVAL);
	CASE_EQ(tier_map_renumber_table(TIER_MAX_TIERS, true, 1, t), -EINVAL);
	CASE_EQ(tier_map_renumber_table(0, true, 0, t), -EINVAL);
	CASE_EQ(tier_map_renumber_table(TIER_MAX_TIERS + 1, false, 1, t),
		-EINVAL);
}

/* Start a test map with nothing dirty in either copy. */
static void em_clean(struct tier_map *m)
{
	u64 b;

	for (b = 0; b < m->nr_blocks; b++) {
		__clear_bit(b, m->dirty[0]);
		__clear_bit(b, m->dirty[1]);
	}
	m->nr_dirty[0] = 0;
	m->nr_dirty[1] = 0;
}

/*
 * Insert and remove: every mapped word's tier goes through the table,
 * flags, pext, busy bit and heat stay, exactly the blocks with a changed
 * word are dirtied in both copies; undone by the inverse table.
 */
static void tier_map_renumber_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 254 * 4, TIER_MAP_F_HEAT);
	struct tier_loc a = loc_of(0, 5, 0), b = loc_of(1, 6, 0);
	struct tier_loc c = loc_of(2, 7, TIER_EXT_F_PINNED), out, want;
	u8 t[TIER_MAX_TIERS], inv[TIER_MAX_TIERS];
	u64 n = 0, w0;

	tier_map_set(m, tier_vext(3), &a); /* block 0: tier 0 only */
	tier_map_set(m, tier_vext(254 + 1), &b); /* block 1 */
	tier_map_set(m, tier_vext(254 * 3 + 9), &c); /* block 3 */
	tier_map_set_busy(m, tier_vext(254 * 3 + 9), true);
	em_set_heat(m, 254 + 1, 76);
	em_set_atime(m, 254 + 1, 99234);
	em_clean(m);
	w0 = m->words[3];

	/* Insert at 1: tiers 1 and 2 move up. */
	CASE_ASSERT_EQ(tier_map_renumber_table(3, true, 1, t), 0);
	CASE_EQ(tier_map_renumber(m, t, 3, &n), 0);
	CASE_EQ(n, 2);
	CASE_EQ(m->words[3], w0);
	CASE_ASSERT_TRUE(tier_map_lookup(m, tier_vext(254 + 1), &out));
	want = loc_of(2, 6, 0);
	expect_loc(test, &out, &want);
	CASE_EQ(em_heat(m, 254 + 1), 76);
	CASE_EQ(em_atime(m, 254 + 1), 99234);
	CASE_ASSERT_TRUE(tier_map_lookup(m, tier_vext(254 * 3 + 9), &out));
	want = loc_of(3, 7, TIER_EXT_F_PINNED);
	expect_loc(test, &out, &want);
	CASE_TRUE(m->words[254 * 3 + 9] & TIER_MW_BUSY);
	/* Blocks 1 and 3, in both copies; block 0 (tier 0) untouched. */
	CASE_EQ(m->nr_dirty[0], 2);
	CASE_EQ(m->nr_dirty[1], 2);
	CASE_FALSE(test_bit(0, m->dirty[0]));
	CASE_TRUE(test_bit(1, m->dirty[0]));
	CASE_TRUE(test_bit(1, m->dirty[1]));
	CASE_FALSE(test_bit(2, m->dirty[1]));
	CASE_TRUE(test_bit(3, m->dirty[0]));
	CASE_TRUE(test_bit(3, m->dirty[1]));
	CASE_EQ(tier_map_commit_next(m, 0, 0), 1);

	/* The inverse undoes it. */
	tier_map_renumber_inverse(t, 3, inv);
	CASE_EQ(tier_map_renumber(m, inv, 4, &n), 0);
	CASE_EQ(n, 2);
	CASE_ASSERT_TRUE(tier_map_lookup(m, tier_vext(254 + 1), &out));
	expect_loc(test, &out, &b);
	tier_map_set_busy(m, tier_vext(254 * 3 + 9), false);
	CASE_EQ(m->words[254 * 3 + 9], tier_mw_encode(&c));

	/* Remove tier 1 once it holds nothing: tier 2 becomes 1. */
	tier_map_set(m, tier_vext(254 + 1), &a);
	em_clean(m);
	CASE_ASSERT_EQ(tier_map_renumber_table(3, false, 1, t), 0);
	CASE_EQ(tier_map_renumber(m, t, 3, NULL), 0);
	CASE_ASSERT_TRUE(tier_map_lookup(m, tier_vext(254 * 3 + 9), &out));
	want = loc_of(1, 7, TIER_EXT_F_PINNED);
	expect_loc(test, &out, &want);
	CASE_EQ(m->nr_dirty[0], 1);
	CASE_EQ(m->nr_dirty[1], 1);
	CASE_TRUE(test_bit(3, m->dirty[1]));
}

/* The identity table changes nothing and dirties nothing. */
static void tier_map_renumber_identity_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 600, 0);
	struct tier_loc a = loc_of(0, 5, 0), c = loc_of(2, 7, 0);
	u8 t[TIER_MAX_TIERS];
	u64 n = 99;

	tier_map_set(m, tier_vext(3), &a);
	tier_map_set(m, tier_vext(500), &c);
	em_clean(m);
	/* Appending: no word moves. */
	CASE_ASSERT_EQ(tier_map_renumber_table(3, true, 3, t), 0);
	CASE_EQ(tier_map_renumber(m, t, 3, &n), 0);
	CASE_EQ(n, 0);
	CASE_EQ(m->nr_dirty[0] + m->nr_dirty[1], 0);
	/* Removing the last tier, empty: no word moves either. */
	CASE_ASSERT_EQ(tier_map_renumber_table(4, false, 3, t), 0);
	CASE_EQ(tier_map_renumber(m, t, 4, &n), 0);
	CASE_EQ(n, 0);
	CASE_EQ(m->nr_dirty[0] + m->nr_dirty[1], 0);
	CASE_EQ(m->words[500], tier_mw_encode(&c));
}

/*
 * A removed tier still mapped, or a word on a tier beyond the old list:
 * refused with nothing changed (even words checked before the bad one).
 */
static void tier_map_renumber_refused_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 600, 0);
	struct tier_loc c = loc_of(2, 7, 0), b = loc_of(1, 6, 0);
	u8 t[TIER_MAX_TIERS];
	u64 n = 0, w2, w1;

	tier_map_set(m, tier_vext(10), &c);
	tier_map_set(m, tier_vext(400), &b);
	em_clean(m);
	w2 = m->words[10];
	w1 = m->words[400];
	CASE_ASSERT_EQ(tier_map_renumber_table(3, false, 1, t), 0);
	CASE_EQ(tier_map_renumber(m, t, 3, &n), -EBUSY);
	CASE_EQ(n, 400);
	CASE_EQ(m->words[10], w2);
	CASE_EQ(m->words[400], w1);
	CASE_EQ(m->nr_dirty[0] + m->nr_dirty[1], 0);
	/* Tier 2 mapped, but the table says there were only 2 tiers. */
	tier_map_clear(m, tier_vext(400), NULL);
	em_clean(m);
	CASE_ASSERT_EQ(tier_map_renumber_table(2, true, 1, t), 0);
	CASE_EQ(tier_map_renumber(m, t, 2, NULL), -EINVAL);
	CASE_EQ(m->words[10], w2);
	CASE_EQ(m->nr_dirty[0] + m->nr_dirty[1], 0);
	CASE_EQ(tier_map_renumber(m, t, TIER_MAX_TIERS + 1, NULL), -EINVAL);
}

/*
 * The two-copy commit after a renumber: the commit writes the inactive
 * copy with the new numbers; the next commit writes the other copy, whose
 * blocks are still dirty for it, so it never keeps an old number.
 */
static void tier_map_renumber_commit_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 254 * 2, 0);
	struct tier_sb *sb = sb_make(test, 254 * 2, 4, 1000);
	u8 *blk = em_zalloc(test, TIER_BLOCK_SIZE);
	struct tier_loc c = loc_of(2, 7, 0);
	struct tier_map_entry e;
	u8 t[TIER_MAX_TIERS];
	u32 copy;

	tier_map_set(m, tier_vext(300), &c);
	/* Both copies written once: clean. */
	tier_map_fill_block(m, sb, 0, 1, blk);
	tier_map_fill_block(m, sb, 1, 1, blk);
	tier_map_fill_block(m, sb, 0, 0, blk);
	tier_map_fill_block(m, sb, 1, 0, blk);
	CASE_EQ(m->nr_dirty[0] + m->nr_dirty[1], 0);
	CASE_ASSERT_EQ(tier_map_renumber_table(3, true, 1, t), 0);
	CASE_ASSERT_EQ(tier_map_renumber(m, t, 3, NULL), 0);
	for (copy = 0; copy < 2; copy++) {
		CASE_EQ(tier_map_commit_next(m, copy, 0), 1);
		tier_map_fill_block(m, sb, copy, 1, blk);
		tier_map_block_get(blk, 300 - 254, &e);
		CASE_EQ((e.word & TIER_MAPW_TIER_MASK) >> TIER_MAPW_TIER_SHIFT,
			3);
		CASE_EQ(tier_map_commit_next(m, copy, 0), m->nr_blocks);
	}
}

/* ---- dirty bits per copy ------------------------------------------------ */

static void tier_map_dirty_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 254 * 10, 0);
	struct tier_sb *sb = sb_make(test, 254 * 10, 1, 100000);
	struct tier_loc l = loc_of(0, 1, 0);
	u8 *blk = em_zalloc(test, TIER_BLOCK_SIZE);

	CASE_EQ(m->nr_dirty[0] + m->nr_dirty[1], 0);
	/* A change dirties its block in both copies, once. */
	tier_map_set(m, tier_vext(5), &l);
	CASE_EQ(m->nr_dirty[0], 1);
	CASE_EQ(m->nr_dirty[1], 1);
	tier_map_set(m, tier_vext(253), &l);
	CASE_EQ(m->nr_dirty[0], 1);
	CASE_EQ(m->nr_dirty[1], 1);
	tier_map_set(m, tier_vext(254), &l);
	CASE_EQ(m->nr_dirty[0], 2);
	tier_map_mark_dirty(m, tier_vext(254 * 9 + 1));
	CASE_EQ(m->nr_dirty[0], 3);
	CASE_EQ(m->nr_dirty[1], 3);
	/* Clearing an unmapped extent changes nothing. */
	CASE_FALSE(tier_map_clear(m, tier_vext(254 * 4), NULL));
	CASE_EQ(m->nr_dirty[0], 3);
	CASE_TRUE(test_bit(0, m->dirty[0]));
	CASE_TRUE(test_bit(1, m->dirty[1]));
	CASE_FALSE(test_bit(4, m->dirty[0]));

	/* Capturing a block for copy 1 cleans it in copy 1 only. */
	tier_map_fill_block(m, sb, 1, 0, blk);
	CASE_EQ(m->nr_dirty[1], 2);
	CASE_FALSE(test_bit(0, m->dirty[1]));
	CASE_EQ(m->nr_dirty[0], 3);
	CASE_TRUE(test_bit(0, m->dirty[0]));
	/* A change after capture (write in flight) dirties it again. */
	tier_map_set(m, tier_vext(2), &l);
	CASE_EQ(m->nr_dirty[1], 3);
	CASE_EQ(m->nr_dirty[0], 3);
	/* Capturing a clean block or one past the map changes no counter. */
	tier_map_fill_block(m, sb, 1, 3, blk);
	CASE_EQ(m->nr_dirty[1], 3);
	tier_map_fill_block(m, sb, 1, 12, blk);
	CASE_EQ(m->nr_dirty[1], 3);

	/* A failed commit rewrites its copy in full. */
	tier_map_mark_all_dirty(m, 1);
	CASE_EQ(m->nr_dirty[1], 10);
	CASE_EQ(m->nr_dirty[0], 3);
	CASE_EQ(tier_map_commit_next(m, 1, 9), 9);
	tier_map_mark_all_dirty(m, 1);
	CASE_EQ(m->nr_dirty[1], 10);
}

/* ---- the commit plan ---------------------------------------------------- */

/* Planning and filling each copy, marking, a change during the write. */
static void tier_map_dirty_plan_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 254 * 10, 0);
	struct tier_sb *sb = sb_make(test, 254 * 10, 1, 100000);
	u8 *blk = em_zalloc(test, TIER_BLOCK_SIZE);
	struct tier_loc l = loc_of(0, 1, 0);
	u64 got[8], n = 0, b;

	CASE_EQ(tier_map_commit_next(m, 0, 0), m->nr_blocks);
	tier_map_set(m, tier_vext(254 * 7 + 1), &l);
	tier_map_set(m, tier_vext(0), &l);
	tier_map_mark_dirty(m, tier_vext(254 * 5));
	for (b = tier_map_commit_next(m, 1, 0); b < m->nr_blocks;
	     b = tier_map_commit_next(m, 1, b + 1)) {
		CASE_ASSERT_LT(n, ARRAY_SIZE(got));
		got[n++] = b;
		tier_map_fill_block(m, sb, 1, b, blk);
	}
	CASE_ASSERT_EQ(n, 3);
	CASE_EQ(got[0], 0);
	CASE_EQ(got[1], 5);
	CASE_EQ(got[2], 7);
	/* Filling cleared copy 1 only. */
	CASE_EQ(m->nr_dirty[1], 0);
	CASE_EQ(tier_map_commit_next(m, 1, 0), m->nr_blocks);
	CASE_EQ(m->nr_dirty[0], 3);
	CASE_EQ(tier_map_commit_next(m, 0, 1), 5);

	/* A change after capture (write in flight) dirties it again. */
	tier_map_fill_block(m, sb, 0, 5, blk);
	CASE_EQ(m->nr_dirty[0], 2);
	tier_map_set(m, tier_vext(254 * 5 + 2), &l);
	CASE_EQ(m->nr_dirty[0], 3);
	CASE_EQ(m->nr_dirty[1], 1);

	tier_map_mark_all_dirty(m, 1);
	CASE_EQ(m->nr_dirty[1], 10);
	CASE_EQ(tier_map_commit_next(m, 1, 9), 9);
	/* Filling a clean block or one past the map changes no counter. */
	tier_map_fill_block(m, sb, 1, 3, blk);
	tier_map_fill_block(m, sb, 1, 3, blk);
	CASE_EQ(m->nr_dirty[1], 9);
	tier_map_fill_block(m, sb, 1, 12, blk);
	CASE_EQ(m->nr_dirty[1], 9);
}

struct plan_case {
	const char *desc;
	u64 nr_extents;
	u32 nr_set;
	u64 vext[4];
	u32 nr_blocks;
	u64 block[4];
};

/* clang-format off */
static const struct plan_case plan_cases[] = {
	{ "nothing dirty", 600, 0, { }, 0, { } },
	{ "one extent", 600, 1, { 5 }, 1, { 0 } },
	{ "one block twice", 600, 2, { 0, 253 }, 1, { 0 } },
	{ "a block boundary", 600, 2, { 253, 254 }, 2, { 0, 1 } },
	{ "last extent of a partial block", 600, 1, { 599 }, 1, { 2 } },
	{ "scattered, out of order", 254 * 10, 3,
	  { 254 * 7 + 1, 0, 254 * 5 }, 3, { 0, 5, 7 } },
	{ "across bitmap words", 254 * 200, 4,
	  { 254 * 199 + 1, 254 * 64, 254 * 63 + 253, 254 * 128 }, 4,
	  { 63, 64, 128, 199 } },
	{ "a single block map", 1, 1, { 0 }, 1, { 0 } },
};

/* clang-format on */

static void plan_desc(const struct plan_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->desc);
}

CASE_PARAMS(plan, plan_cases, plan_desc);

static void tier_map_commit_plan_test(CASE_CTX)
{
	const struct plan_case *c = CASE_PARAM;
	struct tier_map *m = test_map(test, c->nr_extents, 0);
	struct tier_sb *sb = sb_make(test, c->nr_extents, 1, 100000);
	struct tier_loc l = loc_of(0, 1, 0);
	u8 *blk = em_zalloc(test, TIER_BLOCK_SIZE);
	u32 copy, n, i;
	u64 b;

	for (i = 0; i < c->nr_set; i++)
		tier_map_set(m, tier_vext(c->vext[i]), &l);
	for (copy = 0; copy < 2; copy++) {
		CASE_EQ(m->nr_dirty[copy], c->nr_blocks);
		n = 0;
		for (b = tier_map_commit_next(m, copy, 0); b < m->nr_blocks;
		     b = tier_map_commit_next(m, copy, b + 1)) {
			CASE_ASSERT_LT(n, c->nr_blocks);
			CASE_EQ(b, c->block[n]);
			n++;
		}
		CASE_EQ(n, c->nr_blocks);
		CASE_EQ(b, m->nr_blocks);
		/* Starting at a dirty block finds it. */
		for (i = 0; i < c->nr_blocks; i++)
			CASE_EQ(tier_map_commit_next(m, copy, c->block[i]),
				c->block[i]);
		CASE_EQ(tier_map_commit_next(m, copy, m->nr_blocks),
			m->nr_blocks);
	}

	/* Writing copy 0's plan empties it; copy 1's is unchanged. */
	for (b = tier_map_commit_next(m, 0, 0); b < m->nr_blocks;
	     b = tier_map_commit_next(m, 0, b + 1))
		tier_map_fill_block(m, sb, 0, b, blk);
	CASE_EQ(m->nr_dirty[0], 0);
	CASE_EQ(tier_map_commit_next(m, 0, 0), m->nr_blocks);
	CASE_EQ(m->nr_dirty[1], c->nr_blocks);
	if (c->nr_blocks)
		CASE_EQ(tier_map_commit_next(m, 1, 0), c->block[0]);
}

/* ---- encode / decode ---------------------------------------------------- */

static void tier_map_fill_load_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 300, TIER_MAP_F_HEAT);
	struct tier_map *m2 = test_map(test, 300, TIER_MAP_F_HEAT);
	struct tier_map *m3 = test_map(test, 300, 0);
	struct tier_sb *sb = sb_make(test, 300, 2, 1000);
	u8 *blk = em_zalloc(test, TIER_BLOCK_SIZE);
	struct tier_err err = { 0 };
	struct tier_map_entry e;
	struct tier_loc l6;
	u64 v;
	int ret;

	CASE_ASSERT_EQ(m->nr_blocks, 2); /* the second one partial */
	for (v = 0; v < 300; v += 3) {
		struct tier_loc l = loc_of(v & 1, v, v % 7 ? 0 : 1);

		tier_map_set(m, tier_vext(v), &l);
		em_set_heat(m, v, v % 31 + 1);
		em_set_atime(m, v, 90000 + v * 10);
	}
	/* Heat of an unmapped extent is not written. */
	em_set_heat(m, 1, 5);
	for (v = 0; v < m->nr_blocks; v++) {
		tier_map_fill_block(m, sb, 0, v, blk);
		CASE_EQ(tier_map_block_check(blk, sb, 0, v, &err), 0);
		ret = tier_map_load_block(m2, sb, 0, v, blk, &err);
		CASE_EQ(ret, 0);
	}
	tier_map_block_get(blk, 299 - 254, &e);
	CASE_EQ(e.word, 0);
	tier_map_block_get(blk, 297 - 254, &e);
	CASE_EQ(e.heat, 19);
	CASE_EQ(e.atime, 92970);
	CASE_EQ(e.flags, 0);
	CASE_EQ(memcmp(m->words, m2->words, 300 * sizeof(u64)), 0);
	CASE_EQ(em_heat(m2, 0), 1);
	CASE_EQ(em_heat(m2, 1), 0);
	CASE_EQ(em_heat(m2, 297), 19);
	CASE_EQ(em_atime(m2, 297), 92970);
	/* Loading does not dirty. */
	CASE_EQ(m2->nr_dirty[0] + m2->nr_dirty[1], 0);

	/* Clearing resets heat; a map without heat writes zero heat. */
	CASE_TRUE(tier_map_clear(m, tier_vext(3), NULL));
	CASE_EQ(em_heat(m, 3), 0);
	for (v = 0; v < m->nr_blocks; v++) {
		tier_map_fill_block(m, sb, 1, v, blk);
		ret = tier_map_load_block(m3, sb, 1, v, blk, &err);
		CASE_EQ(ret, 0);
	}
	for (v = 0; v < 300; v++) {
		struct tier_loc a, b;
		bool mapped = tier_map_lookup(m, tier_vext(v), &a);

		CASE_ASSERT_EQ(tier_map_lookup(m3, tier_vext(v), &b), mapped);
		if (mapped)
			expect_loc(test, &b, &a);
		CASE_EQ(em_heat(m3, v), 0);
		CASE_EQ(em_atime(m3, v), 0);
	}
	tier_map_fill_block(m3, sb, 1, 0, blk);
	tier_map_block_get(blk, 6, &e);
	CASE_ASSERT_TRUE(tier_map_lookup(m, tier_vext(6), &l6));
	CASE_EQ(e.word, tier_map_word_encode(&l6));
	CASE_EQ(e.heat, 0);
	CASE_EQ(e.atime, 0);

	/* Blocks past the map (sized for more capacity) encode empty. */
	tier_map_fill_block(m, sb, 0, 5, blk);
	sb->virt_extents = 254 * 6;
	CASE_EQ(tier_map_block_check(blk, sb, 0, 5, &err), 0);
	for (v = 0; v < TIER_MAP_ENTRIES; v++) {
		tier_map_block_get(blk, v, &e);
		CASE_EQ(e.word, 0);
	}
}

/* Loading a block over a map replaces every entry it covers. */
static void tier_map_load_overwrites_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 500, TIER_MAP_F_HEAT);
	struct tier_map *empty = test_map(test, 500, 0);
	struct tier_sb *sb = sb_make(test, 500, 1, 1000);
	u8 *blk = em_zalloc(test, TIER_BLOCK_SIZE);
	struct tier_loc l = loc_of(0, 7, 0), out;

	tier_map_set(m, tier_vext(10), &l);
	tier_map_set(m, tier_vext(300), &l);
	em_set_heat(m, 10, 9);
	tier_map_fill_block(empty, sb, 0, 0, blk);
	CASE_EQ(tier_map_load_block(m, sb, 0, 0, blk, NULL), 0);
	CASE_FALSE(tier_map_lookup(m, tier_vext(10), &out));
	CASE_EQ(em_heat(m, 10), 0);
	/* Block 1 untouched. */
	CASE_TRUE(tier_map_lookup(m, tier_vext(300), &out));
}

static void tier_map_load_errors_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 500, 0);
	struct tier_sb *sb = sb_make(test, 500, 1, 1000);
	struct tier_sb *other = em_zalloc(test, sizeof(*other));
	u8 *blk = em_zalloc(test, TIER_BLOCK_SIZE);
	u64 *before = em_zalloc(test, 500 * sizeof(u64));
	struct tier_err err = { 0 };
	struct tier_loc l = loc_of(0, 3, 0);

	tier_map_set(m, tier_vext(2), &l);
	tier_map_fill_block(m, sb, 0, 0, blk);
	/* Index past the map, or a map not sized for the superblock. */
	CASE_EQ(tier_map_load_block(m, sb, 0, 2, blk, &err), -EINVAL);
	*other = *sb;
	other->virt_extents = 501;
	CASE_EQ(tier_map_load_block(m, other, 0, 0, blk, &err), -EINVAL);

	/* A bad block leaves the map unchanged. */
	m->words[2] = 0;
	memcpy(before, m->words, 500 * sizeof(u64));
	blk[100] ^= 4;
	CASE_EQ(tier_map_load_block(m, sb, 0, 0, blk, &err), -EBADMSG);
	CASE_EQ(err.code, TIER_E_MAP_CSUM);
	CASE_EQ(memcmp(before, m->words, 500 * sizeof(u64)), 0);
	blk[100] ^= 4;
	CASE_EQ(tier_map_load_block(m, sb, 1, 0, blk, &err), -EUCLEAN);
	CASE_EQ(err.code, TIER_E_MAP_COPY);
	CASE_EQ(tier_map_load_block(m, sb, 0, 1, blk, &err), -EUCLEAN);
	CASE_EQ(err.code, TIER_E_MAP_INDEX);
	CASE_EQ(memcmp(before, m->words, 500 * sizeof(u64)), 0);
	CASE_EQ(tier_map_load_block(m, sb, 0, 0, blk, &err), 0);
	CASE_TRUE(tier_map_lookup(m, tier_vext(2), &l));
}

/* 2^20 extents through map blocks and back, one block at a time. */
static void tier_map_million_test(CASE_CTX)
{
	const u64 n = 1ULL << 20;
	struct tier_map *m = test_map(test, n, 0);
	struct tier_map *m2 = test_map(test, n, 0);
	struct tier_sb *sb = sb_make(test, n, 4, n / 4);
	u8 *blk = em_zalloc(test, TIER_BLOCK_SIZE);
	struct tier_err err = { 0 };
	u64 v, b, written = 0;
	int bad = 0;

	CASE_ASSERT_EQ(m->nr_blocks, (n + 253) / 254);
	for (v = 0; v < n; v++) {
		struct tier_loc l = loc_of(v & 3, v >> 2, 0);

		if (v % 5)
			tier_map_set(m, tier_vext(v), &l);
	}
	CASE_EQ(m->nr_dirty[0], m->nr_blocks);
	for (b = tier_map_commit_next(m, 0, 0); b < m->nr_blocks;
	     b = tier_map_commit_next(m, 0, b + 1)) {
		tier_map_fill_block(m, sb, 0, b, blk);
		if (tier_map_load_block(m2, sb, 0, b, blk, &err) && !bad++)
			CASE_FAIL("block %llu: %s", b, tier_err_str(err.code));
		written++;
	}
	CASE_EQ(bad, 0);
	CASE_EQ(written, m->nr_blocks);
	CASE_EQ(m->nr_dirty[0], 0);
	CASE_EQ(m->nr_dirty[1], m->nr_blocks);
	CASE_EQ(memcmp(m->words, m2->words, n * sizeof(u64)), 0);
}

/* ---- the two-copy commit protocol, with crashes ------------------------- */

struct sim {
	CASE_CTX; /* the case: sim_reload checks */
	struct tier_sb sb; /* last committed */
	struct tier_map *m; /* live */
	u64 *committed; /* map words at the last commit */
	u8 *copy[2]; /* on-disk map copies */
	u8 slot[2][TIER_BLOCK_SIZE]; /* on-disk superblock slots */
	u64 nr;
	u32 seed;
};

static u32 sim_rnd(struct sim *s)
{
	s->seed = s->seed * 1103515245 + 12345;
	return s->seed >> 8;
}

static u8 *sim_blk(struct sim *s, u32 copy, u64 b)
{
	return s->copy[copy] + b * TIER_BLOCK_SIZE;
}

/*
 * Write a commit; stop after @crash_after map blocks (never when negative),
 * or fail the superblock write when @fail_sb.
 */
static bool sim_commit(struct sim *s, int crash_after, bool fail_sb)
{
	struct tier_sb next = s->sb;
	int written = 0;
	u32 c;
	u64 b;

	next.generation++;
	next.active_copy ^= 1;
	c = next.active_copy;
	for (b = tier_map_commit_next(s->m, c, 0); b < s->m->nr_blocks;
	     b = tier_map_commit_next(s->m, c, b + 1)) {
		if (crash_after >= 0 && written == crash_after)
			return false;
		tier_map_fill_block(s->m, &next, c, b, sim_blk(s, c, b));
		written++;
	}
	if (crash_after >= 0 || fail_sb) {
		tier_map_mark_all_dirty(s->m, c);
		return false;
	}
	/* (flush) then the superblock with FUA */
	tier_sb_encode(&next, s->slot[tier_sb_slot(next.generation)]);
	s->sb = next;
	memcpy(s->committed, s->m->words, s->nr * sizeof(u64));
	return true;
}

/* Reboot: read both slots, pick, load the active copy. */
static void sim_reload(struct sim *s)
{
	CASE_CTX = s->test;
	struct tier_sb *sb = em_zalloc(test, 2 * sizeof(*sb));
	struct tier_err err = { 0 };
	int ret[2], slot, r;
	u32 i, copy;
	u64 b;

	for (i = 0; i < 2; i++)
		ret[i] = tier_sb_decode(s->slot[i], i, &sb[i], &err);
	slot = tier_sb_pick(sb, ret, &err);
	CASE_ASSERT_GE(slot, 0);
	CASE_ASSERT_EQ(sb[slot].generation, s->sb.generation);
	s->m = test_map(test, s->nr, 0);
	copy = sb[slot].active_copy;
	for (b = 0; b < s->m->nr_blocks; b++) {
		r = tier_map_load_block(s->m, &sb[slot], copy, b,
					sim_blk(s, copy, b), &err);
		CASE_ASSERT_EQ(r, 0);
	}
	CASE_ASSERT_EQ(memcmp(s->m->words, s->committed, s->nr * sizeof(u64)),
		       0);
	s->sb = sb[slot];
	/* The inactive copy may be torn or a commit behind. */
	tier_map_mark_all_dirty(s->m, copy ^ 1);
}

static void sim_mutate(struct sim *s, int count)
{
	struct tier_loc l;
	u64 v;

	while (count--) {
		v = sim_rnd(s) % s->nr;
		if (sim_rnd(s) % 4 == 0) {
			tier_map_clear(s->m, tier_vext(v), NULL);
			continue;
		}
		l = loc_of(sim_rnd(s) % 3, sim_rnd(s) % 5000, 0);
		tier_map_set(s->m, tier_vext(v), &l);
	}
}

static void tier_map_commit_protocol_test(CASE_CTX)
{
	struct sim *s = em_zalloc(test, sizeof(*s));
	struct tier_loc l = loc_of(0, 1, 0);
	int round;
	u64 b;

	s->test = test;
	s->nr = 254 * 40 + 17;
	s->seed = 1;
	s->sb = *sb_make(test, s->nr, 3, 5000);
	s->committed = em_zalloc(test, s->nr * sizeof(u64));
	s->copy[0] = em_zalloc(test, s->sb.map_blocks * TIER_BLOCK_SIZE);
	s->copy[1] = em_zalloc(test, s->sb.map_blocks * TIER_BLOCK_SIZE);
	s->m = test_map(test, s->nr, 0);
	/* Fresh: both copies empty, slot 1 generation 1, slot 0 zero. */
	for (b = 0; b < s->m->nr_blocks; b++) {
		tier_map_fill_block(s->m, &s->sb, 0, b, sim_blk(s, 0, b));
		tier_map_fill_block(s->m, &s->sb, 1, b, sim_blk(s, 1, b));
	}
	tier_sb_encode(&s->sb, s->slot[1]);
	sim_reload(s);

	for (round = 0; round < 60; round++) {
		sim_mutate(s, 1 + sim_rnd(s) % 50);
		switch (round % 6) {
		case 2: /* crash in the middle of the map writes */
			sim_commit(s, sim_rnd(s) % 4, false);
			sim_reload(s);
			break;
		case 4: /* superblock write fails, the device lives on */
			CASE_FALSE(sim_commit(s, -1, true));
			sim_mutate(s, 5);
			CASE_TRUE(sim_commit(s, -1, false));
			sim_reload(s);
			break;
		default:
			CASE_TRUE(sim_commit(s, -1, false));
			if (round % 3 == 0)
				sim_reload(s);
		}
	}
	/* Only blocks dirtied in the last two intervals get written. */
	CASE_TRUE(sim_commit(s, -1, false));
	CASE_TRUE(sim_commit(s, -1, false));
	CASE_EQ(s->m->nr_dirty[s->sb.active_copy ^ 1], 0);
	tier_map_set(s->m, tier_vext(3), &l);
	CASE_EQ(s->m->nr_dirty[0], 1);
	CASE_EQ(s->m->nr_dirty[1], 1);
	CASE_TRUE(sim_commit(s, -1, false));
	CASE_EQ(s->m->nr_dirty[s->sb.active_copy], 0);
	CASE_EQ(s->m->nr_dirty[s->sb.active_copy ^ 1], 1);
	CASE_TRUE(sim_commit(s, -1, false));
	CASE_EQ(s->m->nr_dirty[0] + s->m->nr_dirty[1], 0);
	sim_reload(s);
}

/* Another virtual size: words, heat and dirty blocks carried over. */
static void tier_map_resize_copy_test(CASE_CTX)
{
	struct tier_map *src = test_map(test, 600, TIER_MAP_F_HEAT);
	struct tier_map *big = test_map(test, 1000, TIER_MAP_F_HEAT);
	struct tier_map *small = test_map(test, 300, TIER_MAP_F_HEAT);
	struct tier_map *plain = test_map(test, 700, 0);
	struct tier_loc l = loc_of(1, 9, 0), old;
	u64 first, b;
	u32 c;

	tier_map_set(src, tier_vext(0), &l);
	tier_map_set(src, tier_vext(599), &l);
	em_set_heat(src, 599, 34);
	em_set_atime(src, 599, 99944);
	CASE_EQ(tier_map_resize_copy(plain, src), -EINVAL);
	/* Grow: blocks 2 (the old last) and 3 (new) dirty, 1 not. */
	CASE_EQ(tier_map_resize_copy(big, src), 0);
	CASE_EQ(big->words[0], src->words[0]);
	CASE_EQ(big->words[599], src->words[599]);
	CASE_EQ(em_heat(big, 599), 34);
	CASE_EQ(em_atime(big, 599), 99944);
	for (b = 600; b < 1000; b++)
		CASE_EQ(big->words[b], 0);
	for (c = 0; c < 2; c++) {
		CASE_TRUE(test_bit(0, big->dirty[c]));
		CASE_FALSE(test_bit(1, big->dirty[c]));
		CASE_TRUE(test_bit(2, big->dirty[c]));
		CASE_TRUE(test_bit(3, big->dirty[c]));
		CASE_EQ(big->nr_dirty[c], 3);
	}
	/* Shrink: refused while 599 is mapped; counted from the new end. */
	CASE_EQ(tier_map_mapped_from(src, 300, &first), 1);
	CASE_EQ(first, 599);
	CASE_EQ(tier_map_mapped_from(src, 0, &first), 2);
	CASE_EQ(first, 0);
	CASE_EQ(tier_map_resize_copy(small, src), -EBUSY);
	CASE_EQ(small->words[0], 0);
	CASE_TRUE(tier_map_clear(src, tier_vext(599), &old));
	CASE_EQ(tier_map_mapped_from(src, 300, &first), 0);
	CASE_EQ(first, U64_MAX);
	CASE_EQ(tier_map_resize_copy(small, src), 0);
	CASE_EQ(small->words[0], src->words[0]);
	/* Block 1 holds the new end: written with its tail unmapped. */
	for (c = 0; c < 2; c++) {
		CASE_TRUE(test_bit(1, small->dirty[c]));
		CASE_EQ(small->nr_dirty[c], 2);
	}
}

/*
 * After loading, a block of the inactive copy that already holds what the map
 * would write is not rewritten by the first commit; any difference (a word,
 * heat, an access time, a torn or foreign block) keeps it dirty.
 */
static void tier_map_block_current_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 300, TIER_MAP_F_HEAT);
	struct tier_sb *sb = sb_make(test, 300, 2, 1000);
	u8 *blk0 = em_zalloc(test, TIER_BLOCK_SIZE);
	u8 *blk1 = em_zalloc(test, TIER_BLOCK_SIZE);
	u8 *bad = em_zalloc(test, TIER_BLOCK_SIZE);
	struct tier_loc l = loc_of(1, 42, 0), old;

	tier_map_set(m, tier_vext(7), &l);
	em_set_heat(m, 7, 3);
	em_set_atime(m, 7, 99977);
	tier_map_set(m, tier_vext(280), &l);
	tier_map_set_busy(m, tier_vext(280), true);
	tier_map_fill_block(m, sb, 1, 0, blk0);
	tier_map_fill_block(m, sb, 1, 1, blk1);
	tier_map_mark_all_dirty(m, 1);
	CASE_EQ(m->nr_dirty[1], 2);

	/* The wrong copy or index never matches. */
	CASE_FALSE(tier_map_block_current(m, sb, 0, 0, blk0));
	CASE_FALSE(tier_map_block_current(m, sb, 1, 1, blk0));
	CASE_FALSE(tier_map_block_current(m, sb, 1, 2, blk1));
	/* A torn block: dirty. */
	memcpy(bad, blk0, TIER_BLOCK_SIZE);
	bad[100] ^= 1;
	CASE_FALSE(tier_map_block_current(m, sb, 1, 0, bad));
	CASE_EQ(m->nr_dirty[1], 2);

	/* Same content (the busy bit is in memory only): clean. */
	CASE_TRUE(tier_map_block_current(m, sb, 1, 0, blk0));
	CASE_TRUE(tier_map_block_current(m, sb, 1, 1, blk1));
	CASE_EQ(m->nr_dirty[1], 0);
	CASE_EQ(m->nr_dirty[0], 2); /* the other copy is left alone */
	CASE_EQ(tier_map_commit_next(m, 1, 0), m->nr_blocks);

	/* Heat, access time, flags and mappings each count. */
	tier_map_mark_all_dirty(m, 1);
	em_set_heat(m, 7, 4);
	CASE_FALSE(tier_map_block_current(m, sb, 1, 0, blk0));
	em_set_heat(m, 7, 3);
	em_set_atime(m, 7, 99978);
	CASE_FALSE(tier_map_block_current(m, sb, 1, 0, blk0));
	em_set_atime(m, 7, 99977);
	CASE_TRUE(tier_map_set_flags(m, tier_vext(7), TIER_EXT_F_PINNED, 0));
	CASE_FALSE(tier_map_block_current(m, sb, 1, 0, blk0));
	CASE_TRUE(tier_map_set_flags(m, tier_vext(7), 0, TIER_EXT_F_PINNED));
	CASE_TRUE(tier_map_block_current(m, sb, 1, 0, blk0));
	CASE_TRUE(tier_map_clear(m, tier_vext(280), &old));
	CASE_FALSE(tier_map_block_current(m, sb, 1, 1, blk1));
	CASE_EQ(m->nr_dirty[1], 1);
	CASE_EQ(tier_map_commit_next(m, 1, 0), 1);
	/* A block from a newer generation than the superblock: dirty. */
	sb->generation = 0;
	tier_map_mark_all_dirty(m, 1);
	CASE_FALSE(tier_map_block_current(m, sb, 1, 0, blk0));
}

/* ---- the packed word: heat, access times, memory ------------------------ */

/* Heat codes: exact to 31, then within 1/16, rounded down, saturating. */
static void tier_map_heat_code_test(CASE_CTX)
{
	u32 h, c, prev = 0;

	for (h = 0; h < 32; h++)
		CASE_EQ(tier_heat_unpack(tier_heat_pack(h)), h);
	for (h = 32; h <= 0xffff; h += 7) {
		u32 got = tier_heat_unpack(tier_heat_pack(h));

		CASE_ASSERT_TRUE(got <= h);
		CASE_ASSERT_TRUE(got * 17 >= h * 16);
	}
	CASE_EQ(tier_heat_pack(0xffff), TIER_HEAT_CODE_MAX);
	CASE_EQ(tier_heat_unpack(TIER_HEAT_CODE_MAX), 0xffff);
	CASE_EQ(tier_heat_unpack(0xff), 0xffff);
	/* Codes are ordered like the heats they stand for. */
	for (c = 1; c <= TIER_HEAT_CODE_MAX; c++) {
		CASE_ASSERT_TRUE(tier_heat_unpack(c) > prev);
		prev = tier_heat_unpack(c);
		CASE_EQ(tier_heat_pack(prev), c);
	}
}

/*
 * Access times: exact when younger than TIER_ATIME_FINE_AGE, within half a
 * coarse unit when older, held at TIER_ATIME_OLDEST; a time a little ahead
 * of the reader's clock reads ahead, far ahead is taken as now; 0 is 0.
 */
static void tier_map_atime_test(CASE_CTX)
{
	struct tier_loc l = loc_of(5, 0xfffffffeULL, TIER_EXT_F_MEMRES), out;
	u64 base = tier_mw_encode(&l), w;
	u32 now = 3000000000U, a, got;

	for (a = now - TIER_ATIME_FINE_AGE + 1; a <= now; a += 997) {
		w = tier_mw_with_access(base, 7, a, now);
		CASE_ASSERT_TRUE(!(w & TIER_MW_COARSE));
		CASE_EQ(tier_mw_atime(w, now), a);
		/* Read later: still exact up to the sweep's limit. */
		CASE_EQ(tier_mw_atime(w, now + TIER_ATIME_SWEEP_MAX), a);
		CASE_EQ(tier_mw_heat(w), 7);
		CASE_ASSERT_TRUE(tier_mw_decode(w, &out));
		expect_loc(test, &out, &l);
	}
	for (a = 1; a < now - TIER_ATIME_FINE_AGE; a += 123457) {
		w = tier_mw_with_access(base, 7, a, now);
		got = tier_mw_atime(w, now);
		if (now - a > TIER_ATIME_OLDEST)
			a = now - TIER_ATIME_OLDEST;
		CASE_ASSERT_TRUE(w & TIER_MW_COARSE);
		CASE_ASSERT_TRUE(got + (1U << 13) >= a &&
				 got <= a + (1U << 13));
		/* Stable: what a commit writes loads back the same. */
		CASE_EQ(tier_mw_with_access(base, 7, got, now), w);
		/* Read ten years on, it is the same time. */
		CASE_EQ(tier_mw_atime(w, now + 315360000U), got);
	}
	/* Ahead of the clock (another CPU read it later). */
	w = tier_mw_with_access(base, 1, now + 5, now);
	CASE_EQ(tier_mw_atime(w, now), now + 5);
	w = tier_mw_with_access(base, 1, now + TIER_ATIME_SLACK + 1, now);
	CASE_EQ(tier_mw_atime(w, now), now);
	/* Never accessed: 0, whatever the clock, and the encode's form. */
	CASE_EQ(tier_mw_with_access(base, 0, 0, 5), base);
	CASE_EQ(tier_mw_with_access(base, 0, 0, now), base);
	CASE_EQ(tier_mw_atime(base, 5), 0);
	CASE_EQ(tier_mw_atime(base, 1U << 29), 0);
	CASE_EQ(tier_mw_atime(0, now), 0);
}

/* The sweep turns old fine times coarse before they wrap, nothing else. */
static void tier_map_age_sweep_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 600, TIER_MAP_F_HEAT);
	struct tier_loc l = loc_of(1, 9, 0);
	u32 now = EM_CLOCK, later = now + TIER_ATIME_FINE_AGE + 100;
	u64 w2, w4;

	tier_map_set(m, tier_vext(2), &l);
	tier_map_set(m, tier_vext(3), &l);
	tier_map_set(m, tier_vext(4), &l);
	tier_map_set(m, tier_vext(500), &l);
	em_set_access(m, 2, 5, now - 10);
	m->words[3] = tier_mw_with_access(m->words[3], 6, later - 5, later);
	em_set_access(m, 500, 8, now - 20);
	em_clean(m);
	w4 = m->words[4];
	/* A partial pass ends where it was told to. */
	CASE_EQ(tier_map_age_sweep(m, 0, 100, later), 100);
	CASE_TRUE(m->words[2] & TIER_MW_COARSE);
	CASE_FALSE(m->words[500] & TIER_MW_COARSE);
	CASE_EQ(tier_map_age_sweep(m, 100, 1000, later), 600);
	CASE_TRUE(m->words[500] & TIER_MW_COARSE);
	/* Young and never-accessed words are left alone. */
	CASE_FALSE(m->words[3] & TIER_MW_COARSE);
	CASE_EQ(tier_mw_atime(m->words[3], later), later - 5);
	CASE_EQ(m->words[4], w4);
	/* Location, flags and heat stay; the time moves by half a unit. */
	w2 = m->words[2];
	CASE_EQ(tier_mw_heat(w2), 5);
	CASE_TRUE(tier_mw_atime(w2, later) + (1U << 13) >= now - 10);
	CASE_TRUE(tier_mw_atime(w2, later) <= now - 10 + (1U << 13));
	/* A day on it still reads right (a fine time would have wrapped). */
	CASE_TRUE(tier_mw_atime(w2, later + 86400) + (1U << 13) >= now - 10);
	CASE_TRUE(tier_mw_atime(w2, later + 86400) <= now - 10 + (1U << 13));
	CASE_EQ(m->nr_dirty[0] + m->nr_dirty[1], 0);
	/* Far ages are held at the oldest (0, "never", stays 0). */
	m->words[2] = tier_mw_with_access(m->words[2], 5, 1U << 22,
					  (1U << 22) + TIER_ATIME_FINE_AGE);
	later = (1U << 22) + TIER_ATIME_OLDEST + (1U << 20);
	CASE_EQ(tier_map_age_sweep(m, 0, 600, later), 600);
	w2 = tier_mw_atime(m->words[2], later);
	CASE_TRUE(w2 + (1U << 13) >= (1U << 22) + (1U << 20));
	CASE_TRUE(w2 <= (1U << 22) + (1U << 20) + (1U << 13));
	CASE_EQ(tier_mw_heat(m->words[2]), 5);
	CASE_EQ(m->words[4], w4);
}

/*
 * tier_map_touch(): stores the heat and time only over the word it was
 * computed from; rounds heats above 31 up with the right probability.
 */
static void tier_map_touch_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 300, TIER_MAP_F_HEAT);
	struct tier_loc l = loc_of(2, 11, TIER_EXT_F_PINNED), moved, out;
	u64 seen;
	u32 r, ups = 0;

	CASE_FALSE(tier_map_touch(m, tier_vext(5), 0, 1, EM_CLOCK, 0));
	CASE_EQ(m->words[5], 0);
	tier_map_set(m, tier_vext(5), &l);
	seen = m->words[5];
	CASE_TRUE(tier_map_touch(m, tier_vext(5), seen, 1, EM_CLOCK, 0));
	CASE_EQ(em_heat(m, 5), 1);
	CASE_EQ(em_atime(m, 5), EM_CLOCK);
	CASE_ASSERT_TRUE(tier_map_lookup(m, tier_vext(5), &out));
	expect_loc(test, &out, &l);
	/* Nothing new: no store. */
	seen = m->words[5];
	CASE_FALSE(tier_map_touch(m, tier_vext(5), seen, 1, EM_CLOCK, 0));
	/* The word moved meanwhile (a migration switched it): no store. */
	moved = loc_of(0, 12, TIER_EXT_F_PINNED);
	tier_map_set(m, tier_vext(5), &moved);
	CASE_FALSE(tier_map_touch(m, tier_vext(5), seen, 9, EM_CLOCK, 0));
	CASE_ASSERT_TRUE(tier_map_lookup(m, tier_vext(5), &out));
	expect_loc(test, &out, &moved);
	CASE_EQ(em_heat(m, 5), 1);
	/* 33 lies between codes 32 and 34: up for half the random numbers. */
	for (r = 0; r < 64; r++) {
		em_set_access(m, 5, 32, EM_CLOCK);
		CASE_TRUE(tier_map_touch(m, tier_vext(5), m->words[5], 33,
					 EM_CLOCK + 1, r));
		ups += em_heat(m, 5) == 34;
		CASE_ASSERT_TRUE(em_heat(m, 5) == 32 || em_heat(m, 5) == 34);
	}
	CASE_EQ(ups, 32);
	/* Heat reset keeps location and time. */
	tier_map_heat_reset(m, tier_vext(5));
	CASE_EQ(em_heat(m, 5), 0);
	CASE_EQ(em_atime(m, 5), EM_CLOCK + 1);
	CASE_ASSERT_TRUE(tier_map_lookup(m, tier_vext(5), &out));
	expect_loc(test, &out, &moved);
}

/*
 * P10: 8 bytes per extent, plus 2 bits per 254-extent map block; exactly
 * what tier_map_init() allocates (the counting allocator checks that in
 * the cmocka build).
 */
static void tier_map_mem_bytes_test(CASE_CTX)
{
	u64 n;

	for (n = 1; n <= (1ULL << 40); n = n * 3 + 1)
		CASE_ASSERT_TRUE(tier_map_mem_bytes(n) * 1000 <=
				 n * 8002 + 16 * 1000);
	/* 100 TiB of 1 MiB extents: 800 MiB plus 0.2 MiB of bitmaps. */
	n = 100ULL << 20;
	CASE_EQ(tier_map_mem_bytes(n),
		n * 8 + 2 * DIV_ROUND_UP(DIV_ROUND_UP(n, 254), 64) * 8);
}

/* An on-disk entry this module's words cannot hold is refused at load. */
static void tier_map_load_foreign_flags_test(CASE_CTX)
{
	struct tier_map *m = test_map(test, 300, TIER_MAP_F_HEAT);
	struct tier_sb *sb = sb_make(test, 300, 2, 1000);
	u8 *blk = em_zalloc(test, TIER_BLOCK_SIZE);
	struct tier_loc l = loc_of(1, 5, 0x04), out;
	struct tier_map_entry e = { 0 };
	struct tier_err err = { 0 };

	tier_map_block_init(blk, sb, 0, 0);
	e.word = tier_map_word_encode(&l);
	tier_map_block_set(blk, 9, &e);
	tier_map_block_seal(blk);
	CASE_EQ(tier_map_block_check(blk, sb, 0, 0, &err), 0);
	CASE_EQ(tier_map_load_block(m, sb, 0, 0, blk, &err), -EOPNOTSUPP);
	CASE_EQ(err.code, TIER_E_MAP_ENTRY_FLAGS);
	CASE_EQ(err.item, 9);
	CASE_FALSE(tier_map_lookup(m, tier_vext(9), &out));
	/* The flags it knows load. */
	l.flags = TIER_EXT_F_PINNED | TIER_EXT_F_MEMRES;
	e.word = tier_map_word_encode(&l);
	e.heat = 40;
	e.atime = EM_CLOCK - 3;
	tier_map_block_init(blk, sb, 0, 0);
	tier_map_block_set(blk, 9, &e);
	tier_map_block_seal(blk);
	CASE_EQ(tier_map_load_block(m, sb, 0, 0, blk, &err), 0);
	CASE_ASSERT_TRUE(tier_map_lookup(m, tier_vext(9), &out));
	expect_loc(test, &out, &l);
	CASE_EQ(em_heat(m, 9), 40);
	CASE_EQ(em_atime(m, 9), EM_CLOCK - 3);
}

static struct case_entry extent_map_cases[] = {
	CASE_RUN_PARAMS(tier_map_word_test, word),
	CASE_RUN(tier_map_word_unmapped_test),
	CASE_RUN(tier_map_sectors_test),
	CASE_RUN(tier_map_init_test),
	CASE_RUN(tier_map_set_lookup_clear_test),
	CASE_RUN(tier_map_clear_heat_test),
	CASE_RUN(tier_map_clear_on_tier_test),
	CASE_RUN(tier_map_busy_test),
	CASE_RUN(tier_map_set_flags_test),
	CASE_RUN(tier_map_has_flags_test),
	CASE_RUN(tier_map_renumber_table_test),
	CASE_RUN(tier_map_renumber_test),
	CASE_RUN(tier_map_renumber_identity_test),
	CASE_RUN(tier_map_renumber_refused_test),
	CASE_RUN(tier_map_renumber_commit_test),
	CASE_RUN(tier_map_dirty_test),
	CASE_RUN(tier_map_dirty_plan_test),
	CASE_RUN_PARAMS(tier_map_commit_plan_test, plan),
	CASE_RUN(tier_map_fill_load_test),
	CASE_RUN(tier_map_block_current_test),
	CASE_RUN(tier_map_heat_code_test),
	CASE_RUN(tier_map_atime_test),
	CASE_RUN(tier_map_age_sweep_test),
	CASE_RUN(tier_map_touch_test),
	CASE_RUN(tier_map_mem_bytes_test),
	CASE_RUN(tier_map_load_foreign_flags_test),
	CASE_RUN(tier_map_load_overwrites_test),
	CASE_RUN(tier_map_load_errors_test),
	CASE_RUN(tier_map_million_test),
	CASE_RUN(tier_map_commit_protocol_test),
	CASE_RUN(tier_map_resize_copy_test),
	{}
};
