// SPDX-License-Identifier: GPL-2.0
/* Unit tests for kernel/core/extent_map.c: in-memory map, dirty tracking for
 * the two-copy commit, and encoding to / decoding from map blocks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "format.h"
#include "extent_map.h"

static u8 blk[TIER_BLOCK_SIZE] __attribute__((aligned(8)));

/* A consistent superblock for a map of @virt extents over @nr tiers. */
static void sb_make(struct tier_sb *sb, u64 virt, u32 nr, u64 per_tier)
{
	u32 i;

	memset(sb, 0, sizeof(*sb));
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
}

static struct tier_loc loc_of(u32 tier, u64 pext, u32 flags)
{
	struct tier_loc l = { .tier = tier, .flags = flags,
			      .pext = tier_pext(pext) };
	return l;
}

/* ---- words and sector arithmetic --------------------------------------- */

static void test_word(void **state)
{
	struct tier_loc l = loc_of(15, TIER_MAPW_PEXT_MASK, 0xff), out;
	u64 w;

	(void)state;
	w = tier_map_word_encode(&l);
	assert_int_equal(w, 0x8fffffffffffffffULL);
	assert_true(tier_map_word_decode(w, &out));
	assert_int_equal(out.tier, 15);
	assert_int_equal(out.flags, 0xff);
	assert_int_equal(out.pext.p, TIER_MAPW_PEXT_MASK);

	l = loc_of(2, 12345, TIER_EXT_F_PINNED);
	w = tier_map_word_encode(&l);
	assert_int_equal(w, TIER_MAPW_MAPPED | (2ULL << 56) | (1ULL << 48) |
			 12345);
	assert_true(tier_map_word_decode(w, &out));
	assert_memory_equal(&l, &out, sizeof(l));
	/* Oversized fields are truncated, never spill into other fields. */
	l = loc_of(16, 1ULL << 48, 0x100);
	assert_int_equal(tier_map_word_encode(&l), TIER_MAPW_MAPPED);

	out.tier = 99;
	assert_false(tier_map_word_decode(0, &out));
	assert_false(tier_map_word_decode(0x7fffffffffffffffULL, &out));
	assert_int_equal(out.tier, 99);
	assert_int_equal(tier_vext(5).v, 5);
	assert_int_equal(tier_pext(6).p, 6);
}

static void test_sectors(void **state)
{
	sector_t off = 99;
	struct tier_vext v;

	(void)state;
	v = tier_sector_to_vext(0, 11, &off);
	assert_int_equal(v.v, 0);
	assert_int_equal(off, 0);
	v = tier_sector_to_vext(2048 * 7 + 5, 11, &off);
	assert_int_equal(v.v, 7);
	assert_int_equal(off, 5);
	v = tier_sector_to_vext(U64_MAX, 17, NULL);
	assert_int_equal(v.v, U64_MAX >> 17);
	v = tier_sector_to_vext(U64_MAX, 7, &off);
	assert_int_equal(off, 127);
	assert_int_equal(tier_vext_to_sector(tier_vext(7), 11), 7 * 2048);
	assert_int_equal(tier_pext_to_sector(4096, 11, tier_pext(3), 17),
			 4096 + 3 * 2048 + 17);
	assert_int_equal(tier_pext_to_sector(2048, 17, tier_pext(0), 0), 2048);
	assert_int_equal(tier_map_block_of(tier_vext(253)), 0);
	assert_int_equal(tier_map_block_of(tier_vext(254)), 1);
	assert_int_equal(tier_map_block_of(tier_vext(254 * 1000 + 3)), 1000);
}

/* ---- lifetime ------------------------------------------------------------ */

static void test_init_errors(void **state)
{
	struct tier_map m;
	int i;

	(void)state;
	assert_int_equal(tier_map_init(&m, 0, 0), -EINVAL);
	assert_null(m.words);
	assert_int_equal(tier_map_init(&m, TIER_MAX_PEXTS + 1, 0), -EINVAL);
	/* Each allocation failing in turn: no leak, map zeroed. */
	for (i = 1; i <= 3; i++) {
		tier_test_fail_alloc = i;
		assert_int_equal(tier_map_init(&m, 1000, 0), -ENOMEM);
		assert_null(m.words);
		assert_null(m.dirty[0]);
		assert_int_equal(m.nr_extents, 0);
	}
	for (i = 1; i <= 5; i++) {
		tier_test_fail_alloc = i;
		assert_int_equal(tier_map_init(&m, 1000, TIER_MAP_F_HEAT),
				 -ENOMEM);
		assert_null(m.heat);
		assert_null(m.atime);
	}
	tier_test_fail_alloc = 0;
	/* Destroying twice, or a zeroed map, is harmless. */
	assert_int_equal(tier_map_init(&m, 1000, TIER_MAP_F_HEAT), 0);
	assert_non_null(m.heat);
	tier_map_destroy(&m);
	tier_map_destroy(&m);
	assert_int_equal(tier_map_init(&m, 1, 0), 0);
	assert_int_equal(m.nr_blocks, 1);
	assert_null(m.heat);
	tier_map_destroy(&m);
}

static void test_set_lookup_clear(void **state)
{
	struct tier_loc l = loc_of(3, 77, 0), out, old;
	struct tier_map m;

	(void)state;
	assert_int_equal(tier_map_init(&m, 600, 0), 0);
	assert_int_equal(m.nr_blocks, 3);
	assert_false(tier_map_lookup(&m, tier_vext(5), &out));
	assert_int_equal(m.nr_dirty[0] + m.nr_dirty[1], 0);

	tier_map_set(&m, tier_vext(5), &l);
	assert_true(tier_map_lookup(&m, tier_vext(5), &out));
	assert_memory_equal(&l, &out, sizeof(l));
	assert_false(tier_map_lookup(&m, tier_vext(4), &out));
	assert_int_equal(m.nr_dirty[0], 1);
	assert_int_equal(m.nr_dirty[1], 1);
	/* Same block again: counted once. */
	tier_map_set(&m, tier_vext(253), &l);
	assert_int_equal(m.nr_dirty[0], 1);
	tier_map_set(&m, tier_vext(599), &l);
	assert_int_equal(m.nr_dirty[0], 2);
	assert_int_equal(m.nr_dirty[1], 2);

	assert_false(tier_map_clear(&m, tier_vext(6), &old));
	assert_true(tier_map_clear(&m, tier_vext(5), &old));
	assert_memory_equal(&l, &old, sizeof(l));
	assert_false(tier_map_lookup(&m, tier_vext(5), &out));
	assert_false(tier_map_clear(&m, tier_vext(5), NULL));
	assert_true(tier_map_clear(&m, tier_vext(599), NULL));
	assert_int_equal(m.words[599], 0);

	/* Remap moves the extent (migration) and keeps the flags given. */
	l = loc_of(0, 1, TIER_EXT_F_PINNED);
	tier_map_set(&m, tier_vext(253), &l);
	assert_true(tier_map_lookup(&m, tier_vext(253), &out));
	assert_int_equal(out.flags, TIER_EXT_F_PINNED);
	tier_map_destroy(&m);
}

/* The in-memory busy bit: lookups ignore it, no block is dirtied, and it
 * never reaches the disk (bit 62 is reserved there). */
static void test_busy(void **state)
{
	struct tier_loc l = loc_of(2, 42, TIER_EXT_F_PINNED), out;
	struct tier_err err = { 0 };
	struct tier_map_entry e;
	struct tier_map m;
	struct tier_sb sb;

	(void)state;
	sb_make(&sb, 300, 3, 1000);
	assert_int_equal(tier_map_init(&m, 300, 0), 0);
	tier_map_set(&m, tier_vext(7), &l);
	tier_map_fill_block(&m, &sb, 0, 0, blk);
	tier_map_fill_block(&m, &sb, 1, 0, blk);
	assert_int_equal(m.nr_dirty[0] + m.nr_dirty[1], 0);

	tier_map_set_busy(&m, tier_vext(7), true);
	assert_true(m.words[7] & TIER_MAPW_BUSY);
	assert_int_equal(m.nr_dirty[0] + m.nr_dirty[1], 0);
	assert_true(tier_map_lookup(&m, tier_vext(7), &out));
	assert_memory_equal(&l, &out, sizeof(l));

	tier_map_fill_block(&m, &sb, 0, 0, blk);
	assert_int_equal(tier_map_block_check(blk, &sb, 0, 0, &err), 0);
	tier_map_block_get(blk, 7, &e);
	assert_int_equal(e.word, tier_map_word_encode(&l));

	tier_map_set_busy(&m, tier_vext(7), false);
	assert_int_equal(m.words[7], tier_map_word_encode(&l));
	/* Switching the mapping (tier_map_set) clears it too. */
	tier_map_set_busy(&m, tier_vext(7), true);
	l.tier = 0;
	tier_map_set(&m, tier_vext(7), &l);
	assert_int_equal(m.words[7], tier_map_word_encode(&l));
	tier_map_destroy(&m);
}

/* Pin/unpin in place: location and busy bit kept, block dirtied. */
static void test_set_flags(void **state)
{
	struct tier_loc l = loc_of(1, 42, 0), out;
	struct tier_sb sb;
	struct tier_map m;

	(void)state;
	sb_make(&sb, 300, 3, 1000);
	assert_int_equal(tier_map_init(&m, 300, 0), 0);
	assert_false(tier_map_set_flags(&m, tier_vext(5), TIER_EXT_F_PINNED, 0));
	assert_int_equal(m.words[5], 0);
	tier_map_set(&m, tier_vext(7), &l);
	tier_map_fill_block(&m, &sb, 0, 0, blk);
	tier_map_fill_block(&m, &sb, 1, 0, blk);
	tier_map_set_busy(&m, tier_vext(7), true);
	assert_true(tier_map_set_flags(&m, tier_vext(7), TIER_EXT_F_PINNED, 0));
	assert_int_equal(m.nr_dirty[0], 1);
	assert_int_equal(m.nr_dirty[1], 1);
	assert_true(m.words[7] & TIER_MAPW_BUSY);
	assert_true(tier_map_lookup(&m, tier_vext(7), &out));
	assert_int_equal(out.tier, 1);
	assert_int_equal(out.pext.p, 42);
	assert_int_equal(out.flags, TIER_EXT_F_PINNED);
	/* Already pinned: no change. */
	assert_false(tier_map_set_flags(&m, tier_vext(7), TIER_EXT_F_PINNED, 0));
	assert_true(tier_map_set_flags(&m, tier_vext(7), 0, TIER_EXT_F_PINNED));
	tier_map_set_busy(&m, tier_vext(7), false);
	assert_int_equal(m.words[7], tier_map_word_encode(&l));
	tier_map_destroy(&m);
}

static void test_dirty_plan(void **state)
{
	struct tier_loc l = loc_of(0, 1, 0);
	struct tier_map m;
	struct tier_sb sb;
	u64 got[8], n = 0, b;

	(void)state;
	sb_make(&sb, 254 * 10, 1, 100000);
	assert_int_equal(tier_map_init(&m, 254 * 10, 0), 0);
	assert_int_equal(tier_map_commit_next(&m, 0, 0), m.nr_blocks);
	tier_map_set(&m, tier_vext(254 * 7 + 1), &l);
	tier_map_set(&m, tier_vext(0), &l);
	tier_map_mark_dirty(&m, tier_vext(254 * 5));
	for (b = tier_map_commit_next(&m, 1, 0); b < m.nr_blocks;
	     b = tier_map_commit_next(&m, 1, b + 1)) {
		got[n++] = b;
		tier_map_fill_block(&m, &sb, 1, b, blk);
	}
	assert_int_equal(n, 3);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 5);
	assert_int_equal(got[2], 7);
	/* Filling cleared copy 1 only. */
	assert_int_equal(m.nr_dirty[1], 0);
	assert_int_equal(tier_map_commit_next(&m, 1, 0), m.nr_blocks);
	assert_int_equal(m.nr_dirty[0], 3);
	assert_int_equal(tier_map_commit_next(&m, 0, 1), 5);

	/* A change after capture (write in flight) dirties it again. */
	tier_map_fill_block(&m, &sb, 0, 5, blk);
	assert_int_equal(m.nr_dirty[0], 2);
	tier_map_set(&m, tier_vext(254 * 5 + 2), &l);
	assert_int_equal(m.nr_dirty[0], 3);
	assert_int_equal(m.nr_dirty[1], 1);

	tier_map_mark_all_dirty(&m, 1);
	assert_int_equal(m.nr_dirty[1], 10);
	assert_int_equal(tier_map_commit_next(&m, 1, 9), 9);
	/* Filling a clean block or one past the map changes no counter. */
	tier_map_fill_block(&m, &sb, 1, 3, blk);
	tier_map_fill_block(&m, &sb, 1, 3, blk);
	assert_int_equal(m.nr_dirty[1], 9);
	tier_map_fill_block(&m, &sb, 1, 12, blk);
	assert_int_equal(m.nr_dirty[1], 9);
	tier_map_destroy(&m);
}

/* ---- encode / decode ----------------------------------------------------- */

static void test_fill_load(void **state)
{
	struct tier_map m, m2;
	struct tier_sb sb;
	struct tier_err err = { 0 };
	struct tier_map_entry e;
	u64 v;

	(void)state;
	sb_make(&sb, 300, 2, 1000);	/* 2 blocks, the second partial */
	assert_int_equal(tier_map_init(&m, 300, TIER_MAP_F_HEAT), 0);
	assert_int_equal(tier_map_init(&m2, 300, TIER_MAP_F_HEAT), 0);
	for (v = 0; v < 300; v += 3) {
		struct tier_loc l = loc_of(v & 1, v, v % 7 ? 0 : 1);

		tier_map_set(&m, tier_vext(v), &l);
		m.heat[v] = v + 1;
		m.atime[v] = v * 1000;
	}
	/* Heat of an unmapped extent is not written. */
	m.heat[1] = 5;
	for (v = 0; v < m.nr_blocks; v++) {
		tier_map_fill_block(&m, &sb, 0, v, blk);
		assert_int_equal(tier_map_block_check(blk, &sb, 0, v, &err), 0);
		assert_int_equal(tier_map_load_block(&m2, &sb, 0, v, blk,
						     &err), 0);
	}
	tier_map_block_get(blk, 299 - 254, &e);
	assert_int_equal(e.word, 0);
	tier_map_block_get(blk, 297 - 254, &e);
	assert_int_equal(e.heat, 298);
	assert_int_equal(e.atime, 297000);
	assert_memory_equal(m.words, m2.words, 300 * sizeof(u64));
	assert_int_equal(m2.heat[0], 1);
	assert_int_equal(m2.heat[1], 0);
	assert_int_equal(m2.heat[297], 298);
	assert_int_equal(m2.atime[297], 297000);
	/* Loading does not dirty. */
	assert_int_equal(m2.nr_dirty[0] + m2.nr_dirty[1], 0);

	/* Clearing resets heat; a map without heat writes zero heat. */
	assert_true(tier_map_clear(&m, tier_vext(3), NULL));
	assert_int_equal(m.heat[3], 0);
	tier_map_destroy(&m2);
	assert_int_equal(tier_map_init(&m2, 300, 0), 0);
	for (v = 0; v < m.nr_blocks; v++) {
		tier_map_fill_block(&m, &sb, 1, v, blk);
		assert_int_equal(tier_map_load_block(&m2, &sb, 1, v, blk,
						     &err), 0);
	}
	assert_memory_equal(m.words, m2.words, 300 * sizeof(u64));
	tier_map_fill_block(&m2, &sb, 1, 0, blk);
	tier_map_block_get(blk, 6, &e);
	assert_int_equal(e.word, m.words[6]);
	assert_int_equal(e.heat, 0);
	assert_int_equal(e.atime, 0);

	/* Blocks past the map (map sized for more capacity) encode empty. */
	tier_map_fill_block(&m, &sb, 0, 5, blk);
	sb.virt_extents = 254 * 6;
	assert_int_equal(tier_map_block_check(blk, &sb, 0, 5, &err), 0);
	tier_map_destroy(&m);
	tier_map_destroy(&m2);
}

static void test_load_errors(void **state)
{
	struct tier_map m;
	struct tier_sb sb, other;
	struct tier_err err = { 0 };
	struct tier_loc l = loc_of(0, 3, 0);
	u64 before[254];

	(void)state;
	sb_make(&sb, 500, 1, 1000);
	assert_int_equal(tier_map_init(&m, 500, 0), 0);
	tier_map_set(&m, tier_vext(2), &l);
	tier_map_fill_block(&m, &sb, 0, 0, blk);
	assert_int_equal(tier_map_load_block(&m, &sb, 0, 2, blk, &err),
			 -EINVAL);
	other = sb;
	other.virt_extents = 501;
	assert_int_equal(tier_map_load_block(&m, &other, 0, 0, blk, &err),
			 -EINVAL);

	memcpy(before, m.words, sizeof(before));
	blk[100] ^= 4;
	m.words[2] = 0;
	memcpy(before, m.words, sizeof(before));
	assert_int_equal(tier_map_load_block(&m, &sb, 0, 0, blk, &err),
			 -EBADMSG);
	assert_int_equal(err.code, TIER_E_MAP_CSUM);
	assert_memory_equal(before, m.words, sizeof(before));	/* unchanged */
	blk[100] ^= 4;
	assert_int_equal(tier_map_load_block(&m, &sb, 1, 0, blk, &err),
			 -EUCLEAN);
	assert_int_equal(err.code, TIER_E_MAP_COPY);
	assert_int_equal(tier_map_load_block(&m, &sb, 0, 0, blk, &err), 0);
	assert_true(tier_map_lookup(&m, tier_vext(2), &l));
	tier_map_destroy(&m);
}

/* 1M extents through map blocks and back (no timing assertion). */
static void test_million(void **state)
{
	const u64 n = 1ULL << 20;
	struct tier_map m, m2;
	struct tier_sb sb;
	struct tier_err err = { 0 };
	u8 *disk;
	u64 v, b;

	(void)state;
	sb_make(&sb, n, 4, n / 4);
	assert_int_equal(tier_map_init(&m, n, 0), 0);
	assert_int_equal(tier_map_init(&m2, n, 0), 0);
	assert_int_equal(m.nr_blocks, (n + 253) / 254);
	for (v = 0; v < n; v++) {
		struct tier_loc l = loc_of(v & 3, v >> 2, 0);

		if (v % 5)
			tier_map_set(&m, tier_vext(v), &l);
	}
	assert_int_equal(m.nr_dirty[0], m.nr_blocks);
	disk = malloc(m.nr_blocks * TIER_BLOCK_SIZE);
	assert_non_null(disk);
	for (b = tier_map_commit_next(&m, 0, 0); b < m.nr_blocks;
	     b = tier_map_commit_next(&m, 0, b + 1))
		tier_map_fill_block(&m, &sb, 0, b,
				    disk + b * TIER_BLOCK_SIZE);
	assert_int_equal(m.nr_dirty[0], 0);
	for (b = 0; b < m2.nr_blocks; b++)
		assert_int_equal(tier_map_load_block(&m2, &sb, 0, b,
				disk + b * TIER_BLOCK_SIZE, &err), 0);
	assert_memory_equal(m.words, m2.words, n * sizeof(u64));
	free(disk);
	tier_map_destroy(&m);
	tier_map_destroy(&m2);
}

/* ---- the two-copy commit protocol, with crashes ------------------------- */

struct sim {
	struct tier_sb sb;		/* last committed */
	struct tier_map m;		/* live */
	u64 *committed;			/* map words at the last commit */
	u8 *copy[2];			/* on-disk map copies */
	u8 slot[2][TIER_BLOCK_SIZE];	/* on-disk superblock slots */
	u64 nr;
	u32 seed;
};

static u32 rnd(struct sim *s)
{
	s->seed = s->seed * 1103515245 + 12345;
	return s->seed >> 8;
}

static u8 *disk_blk(struct sim *s, u32 copy, u64 b)
{
	return s->copy[copy] + b * TIER_BLOCK_SIZE;
}

/* Writes a commit; stops after @crash_after map blocks (or never when
 * negative), or fails the superblock write when @fail_sb. */
static bool sim_commit(struct sim *s, int crash_after, bool fail_sb)
{
	struct tier_sb next = s->sb;
	u32 c;
	u64 b;
	int written = 0;

	next.generation++;
	next.active_copy ^= 1;
	c = next.active_copy;
	for (b = tier_map_commit_next(&s->m, c, 0); b < s->m.nr_blocks;
	     b = tier_map_commit_next(&s->m, c, b + 1)) {
		if (crash_after >= 0 && written == crash_after)
			return false;
		tier_map_fill_block(&s->m, &next, c, b, disk_blk(s, c, b));
		written++;
	}
	if (crash_after >= 0 || fail_sb) {
		tier_map_mark_all_dirty(&s->m, c);
		return false;
	}
	/* (flush) then the superblock with FUA */
	tier_sb_encode(&next, s->slot[tier_sb_slot(next.generation)]);
	s->sb = next;
	memcpy(s->committed, s->m.words, s->nr * sizeof(u64));
	return true;
}

/* Reboot: read both slots, pick, load the active copy. */
static void sim_reload(struct sim *s)
{
	struct tier_sb sb[2];
	struct tier_err err = { 0 };
	int ret[2], slot;
	u64 b;
	u32 i;

	for (i = 0; i < 2; i++)
		ret[i] = tier_sb_decode(s->slot[i], i, &sb[i], &err);
	slot = tier_sb_pick(sb, ret, &err);
	assert_true(slot >= 0);
	assert_int_equal(sb[slot].generation, s->sb.generation);
	tier_map_destroy(&s->m);
	assert_int_equal(tier_map_init(&s->m, s->nr, 0), 0);
	for (b = 0; b < s->m.nr_blocks; b++)
		assert_int_equal(tier_map_load_block(&s->m, &sb[slot],
				sb[slot].active_copy, b,
				disk_blk(s, sb[slot].active_copy, b), &err), 0);
	assert_memory_equal(s->m.words, s->committed, s->nr * sizeof(u64));
	s->sb = sb[slot];
	/* The inactive copy may be torn or a commit behind. */
	tier_map_mark_all_dirty(&s->m, sb[slot].active_copy ^ 1);
}

static void sim_mutate(struct sim *s, int count)
{
	struct tier_loc l;

	while (count--) {
		u64 v = rnd(s) % s->nr;

		if (rnd(s) % 4 == 0) {
			tier_map_clear(&s->m, tier_vext(v), NULL);
			continue;
		}
		l = loc_of(rnd(s) % 3, rnd(s) % 5000, 0);
		tier_map_set(&s->m, tier_vext(v), &l);
	}
}

static void test_commit_protocol(void **state)
{
	struct sim s;
	u64 b;
	int round;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.nr = 254 * 40 + 17;
	s.seed = 1;
	sb_make(&s.sb, s.nr, 3, 5000);
	s.committed = calloc(s.nr, sizeof(u64));
	s.copy[0] = malloc(s.sb.map_blocks * TIER_BLOCK_SIZE);
	s.copy[1] = malloc(s.sb.map_blocks * TIER_BLOCK_SIZE);
	assert_non_null(s.copy[1]);
	assert_int_equal(tier_map_init(&s.m, s.nr, 0), 0);
	/* Fresh: both copies empty, slot 1 = generation 1, slot 0 zero. */
	for (b = 0; b < s.m.nr_blocks; b++) {
		tier_map_fill_block(&s.m, &s.sb, 0, b, disk_blk(&s, 0, b));
		tier_map_fill_block(&s.m, &s.sb, 1, b, disk_blk(&s, 1, b));
	}
	tier_sb_encode(&s.sb, s.slot[1]);
	sim_reload(&s);

	for (round = 0; round < 60; round++) {
		sim_mutate(&s, 1 + rnd(&s) % 50);
		switch (round % 6) {
		case 2:		/* crash in the middle of the map writes */
			sim_commit(&s, rnd(&s) % 4, false);
			sim_reload(&s);
			break;
		case 4:		/* superblock write fails, device lives on */
			assert_false(sim_commit(&s, -1, true));
			sim_mutate(&s, 5);
			assert_true(sim_commit(&s, -1, false));
			sim_reload(&s);
			break;
		default:
			assert_true(sim_commit(&s, -1, false));
			if (round % 3 == 0)
				sim_reload(&s);
		}
	}
	/* Only blocks dirtied in the last two intervals get written. */
	assert_true(sim_commit(&s, -1, false));
	assert_true(sim_commit(&s, -1, false));
	assert_int_equal(s.m.nr_dirty[s.sb.active_copy ^ 1], 0);
	tier_map_set(&s.m, tier_vext(3), &(struct tier_loc){ 0, 0, { 1 } });
	assert_int_equal(s.m.nr_dirty[0], 1);
	assert_int_equal(s.m.nr_dirty[1], 1);
	assert_true(sim_commit(&s, -1, false));
	assert_int_equal(s.m.nr_dirty[s.sb.active_copy], 0);
	assert_int_equal(s.m.nr_dirty[s.sb.active_copy ^ 1], 1);
	assert_true(sim_commit(&s, -1, false));
	assert_int_equal(s.m.nr_dirty[0] + s.m.nr_dirty[1], 0);
	sim_reload(&s);

	tier_map_destroy(&s.m);
	free(s.committed);
	free(s.copy[0]);
	free(s.copy[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_word),
		cmocka_unit_test(test_sectors),
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_set_lookup_clear),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_set_flags),
		cmocka_unit_test(test_dirty_plan),
		cmocka_unit_test(test_fill_load),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_million),
		cmocka_unit_test(test_commit_protocol),
	};

	return cmocka_run_group_tests_name("extent_map", tests, NULL, NULL);
}
