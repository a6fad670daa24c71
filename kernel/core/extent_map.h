/* SPDX-License-Identifier: GPL-2.0 */
/*
 * extent_map.h - in-memory map: virtual extent -> (tier, physical extent).
 *
 * One u64 word per virtual extent (TIER_MW_*): where the extent lives, its
 * flags, its heat and its last access, packed so the whole map costs 8 bytes
 * per extent (docs/ARCHITECTURE.md "Memory"). It is not the on-disk word
 * (TIER_MAPW_* in format.h): tier_map_fill_block() and tier_map_load_block()
 * convert. Virtual and physical extent numbers have distinct wrapper types so
 * the compiler rejects mixing them. Each map block has one dirty bit per map
 * copy for the two-copy commit (docs/FORMAT.md).
 * Pure logic: the caller serialises updates; lookups use READ_ONCE; heat is
 * updated without the lock by compare-and-exchange (tier_map_touch()).
 */
#ifndef DM_TIER_CORE_EXTENT_MAP_H
#define DM_TIER_CORE_EXTENT_MAP_H

#include "tier-internal.h"
#include "format.h"

/**
 * struct tier_vext - a virtual extent number (position in the dm device).
 * @v: the number.
 */
struct tier_vext {
	u64 v;
};

/**
 * struct tier_pext - a physical extent number (position on one tier).
 * @p: the number.
 */
struct tier_pext {
	u64 p;
};

static inline struct tier_vext tier_vext(u64 v)
{
	return (struct tier_vext){ .v = v };
}

static inline struct tier_pext tier_pext(u64 p)
{
	return (struct tier_pext){ .p = p };
}

/**
 * struct tier_loc - where a virtual extent lives.
 * @tier:  tier index (< TIER_MAX_TIERS).
 * @flags: extent flags, TIER_EXT_F_*.
 * @pext:  physical extent on that tier (< TIER_MAX_TIER_EXTENTS).
 */
struct tier_loc {
	u32 tier;
	u32 flags;
	struct tier_pext pext;
};

/**
 * tier_map_word_encode() - the on-disk map word of a mapped extent.
 * @loc: location; out-of-range fields are truncated to their bit widths.
 *
 * Context: any.
 * Return: TIER_MAPW_MAPPED | tier << 56 | flags << 48 | pext.
 */
static inline u64 tier_map_word_encode(const struct tier_loc *loc)
{
	return TIER_MAPW_MAPPED |
	       (((u64)loc->tier << TIER_MAPW_TIER_SHIFT) &
		TIER_MAPW_TIER_MASK) |
	       (((u64)loc->flags << TIER_MAPW_FLAGS_SHIFT) &
		TIER_MAPW_FLAGS_MASK) |
	       (loc->pext.p & TIER_MAPW_PEXT_MASK);
}

/**
 * tier_map_word_decode() - split an on-disk map word.
 * @word: map word.
 * @loc:  out; written only when mapped.
 *
 * Context: any.
 * Return: true when @word is mapped.
 */
static inline bool tier_map_word_decode(u64 word, struct tier_loc *loc)
{
	if (!(word & TIER_MAPW_MAPPED))
		return false;
	loc->tier = (word & TIER_MAPW_TIER_MASK) >> TIER_MAPW_TIER_SHIFT;
	loc->flags = (word & TIER_MAPW_FLAGS_MASK) >> TIER_MAPW_FLAGS_SHIFT;
	loc->pext = tier_pext(word & TIER_MAPW_PEXT_MASK);
	return true;
}

/*
 * The in-memory map word:
 *   63     mapped
 *   62     busy: being migrated or redirected (reads go to the mapped
 *          location, writes wait for the worker); never on disk
 *   59-61  tier
 *   57-58  extent flags (TIER_MW_EXT_FLAGS)
 *   56     the access time is coarse (TIER_ATIME_COARSE_SHIFT units)
 *   40-55  access time, modulo 2^16 of its unit (tier_mw_atime())
 *   32-39  heat, an 8-bit float (tier_heat_unpack())
 *   0-31   physical extent (TIER_MAX_TIER_EXTENTS)
 * An unmapped word is 0.
 */
#define TIER_MW_MAPPED BIT_ULL(63)
#define TIER_MW_BUSY BIT_ULL(62)
#define TIER_MW_TIER_SHIFT 59
#define TIER_MW_TIER_MASK (0x7ULL << TIER_MW_TIER_SHIFT)
#define TIER_MW_FLAGS_SHIFT 57
#define TIER_MW_FLAGS_MASK (0x3ULL << TIER_MW_FLAGS_SHIFT)
#define TIER_MW_COARSE BIT_ULL(56)
#define TIER_MW_AGE_SHIFT 40
#define TIER_MW_AGE_MASK (0xffffULL << TIER_MW_AGE_SHIFT)
#define TIER_MW_HEAT_SHIFT 32
#define TIER_MW_HEAT_MASK (0xffULL << TIER_MW_HEAT_SHIFT)
#define TIER_MW_PEXT_MASK (TIER_MAX_TIER_EXTENTS - 1)
/* The heat and access time of a word: kept across moves and flag changes. */
#define TIER_MW_ACCESS_MASK \
	(TIER_MW_COARSE | TIER_MW_AGE_MASK | TIER_MW_HEAT_MASK)

/*
 * Heat 0 and access time 0 (the heat clock's start): coarse unit 0 reads as
 * 0 for 2^30 s, and tier_map_age_sweep() leaves it alone that long.
 */
#define TIER_MW_ACCESS_NONE TIER_MW_COARSE

/* The extent flags a word can hold; a map entry with others is refused. */
#define TIER_MW_EXT_FLAGS (TIER_EXT_F_PINNED | TIER_EXT_F_MEMRES)
static_assert(TIER_MW_FLAGS_MASK >> TIER_MW_FLAGS_SHIFT == TIER_MW_EXT_FLAGS);

/*
 * Access times, in seconds of the heat clock. A word keeps the low 16 bits
 * of a recent one (fine: exact while it is younger than 2^16 s) or of an
 * older one in units of 2^14 s (coarse, rounded to the nearest unit: within
 * 2.3 hours). tier_map_age_sweep() turns fine times older than
 * TIER_ATIME_FINE_AGE coarse and holds coarse ones at TIER_ATIME_OLDEST, so
 * it must visit every word within TIER_ATIME_SWEEP_MAX seconds. A fine time
 * up to TIER_ATIME_SLACK seconds ahead of the clock a reader uses reads as
 * that far in the future, not as 18 hours old.
 */
#define TIER_ATIME_FINE_AGE BIT(15) /* 9.1 h */
#define TIER_ATIME_SLACK BIT(14) /* 4.5 h */
#define TIER_ATIME_SWEEP_MAX BIT(14)
#define TIER_ATIME_COARSE_SHIFT 14 /* 4.55 h units */
#define TIER_ATIME_OLDEST BIT(29) /* 17 years */

/* Heat codes: 0..15 exact, then 16 steps per power of two; see below. */
#define TIER_HEAT_CODE_MAX 0xd0 /* TIER_HEAT_MAX (65535) */

/**
 * tier_heat_unpack() - the heat an 8-bit heat code stands for.
 * @code: 0..255; codes from TIER_HEAT_CODE_MAX on stand for TIER_HEAT_MAX.
 *
 * Codes below 16 are the heat itself; code (e << 4 | m), e >= 1, is
 * (16 + m) << (e - 1): exact up to 31, then within 1/16.
 *
 * Context: any.
 * Return: the heat, 0..TIER_HEAT_MAX.
 */
static inline u16 tier_heat_unpack(u32 code)
{
	if (code < 16)
		return code;
	if (code >= TIER_HEAT_CODE_MAX)
		return 0xffff;
	return (16 + (code & 15)) << ((code >> 4) - 1);
}

/**
 * tier_heat_pack() - the code of the largest heat not above @heat.
 * @heat: the heat.
 *
 * Context: any.
 * Return: 0..TIER_HEAT_CODE_MAX.
 */
static inline u32 tier_heat_pack(u32 heat)
{
	u32 e;

	if (heat < 16)
		return heat;
	if (heat >= 0xffff)
		return TIER_HEAT_CODE_MAX;
	e = ilog2(heat) - 3;
	return e << 4 | ((heat >> (e - 1)) - 16);
}

/**
 * tier_mw_decode() - split an in-memory map word.
 * @word: map word (TIER_MW_*).
 * @loc:  out; written only when mapped.
 *
 * Context: any.
 * Return: true when @word is mapped.
 */
static inline bool tier_mw_decode(u64 word, struct tier_loc *loc)
{
	if (!(word & TIER_MW_MAPPED))
		return false;
	loc->tier = (word & TIER_MW_TIER_MASK) >> TIER_MW_TIER_SHIFT;
	loc->flags = (word & TIER_MW_FLAGS_MASK) >> TIER_MW_FLAGS_SHIFT;
	loc->pext = tier_pext(word & TIER_MW_PEXT_MASK);
	return true;
}

/**
 * tier_mw_encode() - the in-memory word of a location, with heat 0 and
 * access time 0.
 * @loc: location; flags outside TIER_MW_EXT_FLAGS and bits of tier and pext
 *       beyond their widths are dropped (callers keep them in range).
 *
 * Context: any.
 * Return: TIER_MW_MAPPED | tier | flags | pext | TIER_MW_ACCESS_NONE.
 */
static inline u64 tier_mw_encode(const struct tier_loc *loc)
{
	return TIER_MW_MAPPED | TIER_MW_ACCESS_NONE |
	       (((u64)loc->tier << TIER_MW_TIER_SHIFT) & TIER_MW_TIER_MASK) |
	       (((u64)loc->flags << TIER_MW_FLAGS_SHIFT) & TIER_MW_FLAGS_MASK) |
	       (loc->pext.p & TIER_MW_PEXT_MASK);
}

/**
 * tier_mw_has_flags() - whether a word carries every extent flag of @flags.
 * @word:  map word.
 * @flags: TIER_EXT_F_* bits (within TIER_MW_EXT_FLAGS).
 *
 * Context: any.
 * Return: true when all of them are set (mapped or not: the caller checks).
 */
static inline bool tier_mw_has_flags(u64 word, u32 flags)
{
	u64 bits = ((u64)flags << TIER_MW_FLAGS_SHIFT) & TIER_MW_FLAGS_MASK;

	return (word & bits) == bits;
}

/**
 * tier_mw_heat() - the heat a word holds (not decayed).
 * @word: map word.
 *
 * Context: any.
 * Return: 0..TIER_HEAT_MAX.
 */
static inline u16 tier_mw_heat(u64 word)
{
	return tier_heat_unpack((word & TIER_MW_HEAT_MASK) >>
				TIER_MW_HEAT_SHIFT);
}

/**
 * tier_mw_atime() - the access time a word holds, as of the heat clock @now.
 * @word: map word.
 * @now:  heat clock; at most TIER_ATIME_SLACK behind the newest access
 *        stored, and the word visited by tier_map_age_sweep() in time.
 *
 * Context: any.
 * Return: the access time in seconds (0 for a word with none); exact when
 * fine, within 2^13 s when coarse; may lie ahead of @now (the caller's
 * clock was read before another CPU's access).
 */
u32 tier_mw_atime(u64 word, u32 now);

/**
 * tier_mw_with_access() - @word with its heat and access time replaced.
 * @word:  map word.
 * @heat:  heat, stored rounded down (tier_heat_pack()).
 * @atime: access time; one more than TIER_ATIME_SLACK ahead of @now is
 *         taken as @now, one older than TIER_ATIME_OLDEST as that old.
 * @now:   heat clock.
 *
 * Context: any.
 * Return: the new word.
 */
u64 tier_mw_with_access(u64 word, u32 heat, u32 atime, u32 now);

/**
 * tier_sector_to_vext() - the virtual extent containing a device sector.
 * @sector: sector of the virtual device.
 * @shift:  log2(extent sectors).
 * @offset: out, optional; sector offset within the extent.
 *
 * Context: any.
 * Return: the virtual extent.
 */
static inline struct tier_vext tier_sector_to_vext(sector_t sector, u32 shift,
						   sector_t *offset)
{
	if (offset)
		*offset = sector & ((1ULL << shift) - 1);
	return tier_vext(sector >> shift);
}

/**
 * tier_vext_to_sector() - first sector of a virtual extent.
 * @v:     virtual extent.
 * @shift: log2(extent sectors).
 *
 * Context: any.
 * Return: the sector of the virtual device.
 */
static inline sector_t tier_vext_to_sector(struct tier_vext v, u32 shift)
{
	return v.v << shift;
}

/**
 * tier_pext_to_sector() - sector on a tier device.
 * @data_start: the tier's data_start.
 * @shift:      log2(extent sectors).
 * @p:          physical extent.
 * @offset:     offset within the extent, < 1 << @shift.
 *
 * Context: any.
 * Return: data_start + (p << shift) + offset.
 */
static inline sector_t tier_pext_to_sector(sector_t data_start, u32 shift,
					   struct tier_pext p, sector_t offset)
{
	return data_start + (p.p << shift) + offset;
}

/**
 * tier_map_block_of() - map block holding a virtual extent's entry.
 * @v: virtual extent.
 *
 * Context: any.
 * Return: v / TIER_MAP_ENTRIES.
 */
static inline u64 tier_map_block_of(struct tier_vext v)
{
	return div_u64(v.v, TIER_MAP_ENTRIES);
}

/* tier_map_init() flags */
#define TIER_MAP_F_HEAT 0x1 /* load and commit heat and access times */

/**
 * struct tier_map - the in-memory map.
 * @nr_extents: virtual extents (the superblock's virt_extents).
 * @nr_blocks:  map blocks covering them (tier_map_blocks_for()).
 * @flags:      TIER_MAP_F_* given to tier_map_init().
 * @clock:      the heat clock that loads and commits convert access times
 *              with (tier_map_set_clock()).
 * @words:      map word per virtual extent (TIER_MW_*).
 * @dirty:      per map copy, one bit per block that copy must rewrite.
 * @nr_dirty:   bits set in each @dirty bitmap.
 */
struct tier_map {
	u64 nr_extents;
	u64 nr_blocks;
	u32 flags;
	u32 clock;
	u64 *words;
	unsigned long *dirty[2];
	u64 nr_dirty[2];
};

/**
 * tier_map_init() - allocate an all-unmapped map, nothing dirty.
 * @m:          the map; fully initialised on success, zeroed on failure.
 * @nr_extents: virtual extents, 1..TIER_MAX_PEXTS.
 * @flags:      TIER_MAP_F_*.
 *
 * Memory: 8 bytes per extent and 2 bits per map block
 * (tier_map_mem_bytes()); heat and access times live in the words.
 *
 * Context: process; may sleep (tier_zalloc_array()).
 * Return: 0, -EINVAL for a bad size, -ENOMEM.
 */
int tier_map_init(struct tier_map *m, u64 nr_extents, u32 flags);

/**
 * tier_map_destroy() - free what tier_map_init() allocated.
 * @m: the map; may be zeroed or already destroyed.
 *
 * Context: process.
 */
void tier_map_destroy(struct tier_map *m);

/**
 * tier_map_lookup() - where a virtual extent lives.
 * @m:   the map.
 * @v:   virtual extent, < @m->nr_extents.
 * @loc: out; written only when mapped.
 *
 * Context: any; lockless (READ_ONCE of one word).
 * Return: true when mapped.
 */
bool tier_map_lookup(const struct tier_map *m, struct tier_vext v,
		     struct tier_loc *loc);

/**
 * tier_map_set() - map a virtual extent; marks its block dirty in both
 * copies.
 * @m:   the map.
 * @v:   virtual extent, < @m->nr_extents.
 * @loc: new location.
 *
 * Context: any; caller serialises writers.
 */
void tier_map_set(struct tier_map *m, struct tier_vext v,
		  const struct tier_loc *loc);

/**
 * tier_map_set_busy() - set or clear TIER_MW_BUSY of a mapped extent;
 * the block is not dirtied (the bit never reaches the disk).
 * @m:    the map.
 * @v:    virtual extent, < @m->nr_extents, mapped.
 * @busy: the new state.
 *
 * Context: any; caller serialises writers.
 */
void tier_map_set_busy(struct tier_map *m, struct tier_vext v, bool busy);

/**
 * tier_map_set_flags() - change the TIER_EXT_F_* flags of a mapped extent
 * in place (pin/unpin), keeping its location and TIER_MW_BUSY; marks its
 * block dirty in both copies when the word changed.
 * @m:     the map.
 * @v:     virtual extent, < @m->nr_extents.
 * @set:   flags to set.
 * @clear: flags to clear (applied before @set).
 *
 * Context: any; caller serialises writers.
 * Return: true when the extent is mapped and its word changed.
 */
bool tier_map_set_flags(struct tier_map *m, struct tier_vext v, u32 set,
			u32 clear);

/**
 * tier_map_clear() - unmap a virtual extent (discard); marks its block dirty
 * in both copies and resets its heat.
 * @m:   the map.
 * @v:   virtual extent, < @m->nr_extents.
 * @old: out, optional; the previous location when it was mapped, so the
 *       caller can tier_alloc_free_deferred() it.
 *
 * Context: any; caller serialises writers.
 * Return: true when it was mapped.
 */
bool tier_map_clear(struct tier_map *m, struct tier_vext v,
		    struct tier_loc *old);

/**
 * tier_map_clear_on_tier() - unmap a virtual extent when it lives on @tier
 * and is not busy (forget-tier: the tier is lost); like tier_map_clear().
 * @m:    the map.
 * @v:    virtual extent, < @m->nr_extents.
 * @tier: the lost tier.
 * @old:  out; the previous location when it was unmapped, so the caller
 *        can tier_alloc_free_deferred() it.
 *
 * An extent being migrated or redirected (TIER_MW_BUSY) is left alone:
 * its job still owns the word; the caller retries after the job ended.
 *
 * Context: any; caller serialises writers.
 * Return: 1 when it was unmapped, 0 when it is not mapped on @tier,
 * -EBUSY when it is mapped on @tier but busy.
 */
int tier_map_clear_on_tier(struct tier_map *m, struct tier_vext v, u32 tier,
			   struct tier_loc *old);

/**
 * tier_map_mark_dirty() - mark @v's block dirty in both copies (e.g. after
 * changing its heat).
 * @m: the map.
 * @v: virtual extent, < @m->nr_extents.
 *
 * Context: any; caller serialises writers.
 */
void tier_map_mark_dirty(struct tier_map *m, struct tier_vext v);

/**
 * tier_map_mark_all_dirty() - make copy @copy rewrite every block.
 * @m:    the map.
 * @copy: 0 or 1.
 *
 * Call after a failed commit for the copy it was writing, and before
 * comparing a freshly loaded map's inactive copy with
 * tier_map_block_current().
 *
 * Context: any; caller serialises writers.
 */
void tier_map_mark_all_dirty(struct tier_map *m, u32 copy);

/**
 * tier_map_commit_next() - the commit plan of a copy: next dirty block.
 * @m:    the map.
 * @copy: the copy being written (the inactive one).
 * @from: first block index to consider.
 *
 * Iterate: for (i = tier_map_commit_next(m, c, 0); i < m->nr_blocks;
 * i = tier_map_commit_next(m, c, i + 1)).
 *
 * Context: any.
 * Return: the first block >= @from dirty for @copy, or @m->nr_blocks.
 */
u64 tier_map_commit_next(const struct tier_map *m, u32 copy, u64 from);

/**
 * tier_map_fill_block() - encode map block @index for writing to @copy, and
 * clear its dirty bit for @copy.
 * @m:     the map.
 * @sb:    the superblock the commit will write (generation, uuid).
 * @copy:  destination copy.
 * @index: block index; blocks at or beyond @m->nr_blocks encode empty.
 * @blk:   out; TIER_BLOCK_SIZE bytes, sealed.
 *
 * The bit is cleared when the block is captured, under the caller's lock,
 * so a change made while the write is in flight dirties it again. If the
 * commit fails, call tier_map_mark_all_dirty(m, copy).
 *
 * Context: any; caller serialises writers.
 */
void tier_map_fill_block(struct tier_map *m, const struct tier_sb *sb, u32 copy,
			 u64 index, void *blk);

/**
 * tier_map_load_block() - validate block @index of @copy and store its
 * entries in the map; dirty bits are not touched.
 * @m:     the map, sized @sb->virt_extents.
 * @sb:    chosen superblock.
 * @copy:  the copy read (@sb->active_copy).
 * @index: block index, < @m->nr_blocks.
 * @blk:   TIER_BLOCK_SIZE bytes.
 * @err:   out, optional.
 *
 * Context: any.
 * Return: 0; -EINVAL when @index or the map size does not fit @sb;
 * otherwise what tier_map_block_check() returns (map unchanged).
 */
int tier_map_load_block(struct tier_map *m, const struct tier_sb *sb, u32 copy,
			u64 index, const void *blk, struct tier_err *err);

/**
 * tier_map_block_current() - whether block @index of @copy, as read from
 * disk, already holds what tier_map_fill_block() would write there; if so,
 * clear its dirty bit for @copy.
 * @m:     the map, loaded from the other copy.
 * @sb:    chosen superblock.
 * @copy:  the copy @blk was read from (the inactive one).
 * @index: block index, < @m->nr_blocks.
 * @blk:   TIER_BLOCK_SIZE bytes.
 *
 * After loading, the inactive copy is behind by what the last commit wrote
 * (or torn, or rotten). Comparing each of its blocks with the map lets the
 * first commit write only the blocks that differ instead of the whole copy
 * (docs/FORMAT.md "Two copies"). A block that fails tier_map_block_check()
 * does not match and stays dirty, so the first commit also heals it.
 *
 * Context: any; caller serialises writers.
 * Return: true when the block matched (its dirty bit for @copy is clear).
 */
bool tier_map_block_current(struct tier_map *m, const struct tier_sb *sb,
			    u32 copy, u64 index, const void *blk);

/**
 * tier_map_set_clock() - the heat clock loads and commits convert access
 * times with.
 * @m:   the map.
 * @now: heat clock now.
 *
 * Set it before tier_map_load_block(), tier_map_fill_block() and
 * tier_map_block_current(); it may lag the clock map() reads by up to
 * TIER_ATIME_SLACK.
 *
 * Context: any; caller serialises writers.
 */
static inline void tier_map_set_clock(struct tier_map *m, u32 now)
{
	WRITE_ONCE(m->clock, now);
}

/**
 * tier_map_touch() - store an access: @heat and @now into @v's word, if the
 * word is still @seen.
 * @m:    the map.
 * @v:    virtual extent, < @m->nr_extents.
 * @seen: the word as the caller read it (READ_ONCE), mapped.
 * @heat: the new heat (tier_heat_touch() of what @seen holds).
 * @now:  heat clock now, the new access time.
 * @rnd:  a random number. Above 31 a heat code stands for 2^k heats; @heat
 *        is rounded up with the probability of the part it lies above its
 *        code, so on average each access adds one.
 *
 * One compare-and-exchange, no retry: an access that races with another,
 * or with a writer under the caller's lock, may not count.
 *
 * Context: any; lockless.
 * Return: true when the word changed (the caller marks its block so the
 * next commit persists the heat).
 */
bool tier_map_touch(struct tier_map *m, struct tier_vext v, u64 seen, u32 heat,
		    u32 now, u32 rnd);

/**
 * tier_map_heat_reset() - set a mapped extent's heat to 0, keeping its
 * access time (a demoted extent earns its way back up).
 * @m: the map.
 * @v: virtual extent, < @m->nr_extents.
 *
 * Context: any; caller serialises writers.
 */
void tier_map_heat_reset(struct tier_map *m, struct tier_vext v);

/**
 * tier_map_age_sweep() - keep access times readable: make fine ones older
 * than TIER_ATIME_FINE_AGE coarse, hold coarse ones at TIER_ATIME_OLDEST.
 * @m:    the map.
 * @from: first virtual extent.
 * @nr:   how many to visit.
 * @now:  heat clock now.
 *
 * Every word must be visited within TIER_ATIME_SWEEP_MAX seconds. The
 * decoded access times move by at most half a coarse unit; nothing is
 * dirtied (the disk keeps the exact time until the block is written).
 *
 * Context: any; caller serialises writers (tier_map_touch() may run).
 * Return: the next extent to visit, @m->nr_extents when the pass is over.
 */
u64 tier_map_age_sweep(struct tier_map *m, u64 from, u64 nr, u32 now);

/**
 * tier_map_mem_bytes() - memory a map of @nr_extents extents allocates.
 * @nr_extents: virtual extents.
 *
 * tier_map_init() allocates exactly these arrays.
 *
 * Context: any.
 * Return: bytes: 8 per extent and 2 bits per map block, in longs.
 */
u64 tier_map_mem_bytes(u64 nr_extents);

/* tier_map_renumber() table entry: the tier is removed from the list. */
#define TIER_RENUM_GONE 0xff

/**
 * tier_map_renumber_table() - the old -> new tier index table of a tier
 * list change by one tier (docs/ARCHITECTURE.md "Tier list changes").
 * @old_n:  tiers before the change, 1..TIER_MAX_TIERS.
 * @insert: true: a tier is inserted at @pos (tiers @pos.. move up by
 *          one); false: tier @pos is removed (tiers after it move down).
 * @pos:    insert: 0..@old_n (@old_n appends); remove: 0..@old_n - 1.
 * @table:  out; TIER_MAX_TIERS entries, [i] = new index of old tier i,
 *          TIER_RENUM_GONE for the removed tier and for i >= @old_n.
 *
 * Context: any.
 * Return: 0, or -EINVAL when @pos or the resulting count is out of range.
 */
int tier_map_renumber_table(u32 old_n, bool insert, u32 pos, u8 *table);

/**
 * tier_map_renumber() - rewrite the tier field of every mapped word through
 * @table and mark each map block with a changed word dirty in both copies,
 * so that every later commit, whichever copy it writes, writes the new
 * numbers (neither copy keeps an old number a later commit could expose).
 * @m:       the map.
 * @table:   [old tier] = new tier, TIER_RENUM_GONE: that tier must hold
 *           no mapped word (tier_map_renumber_table()).
 * @nr_old:  entries of @table that are valid (tiers before the change).
 * @changed: out, optional; words rewritten.
 *
 * All or nothing: when a mapped word is on a removed tier or a tier at or
 * above @nr_old, nothing changes. Flags, pext and TIER_MW_BUSY are
 * kept; heat and atime are per extent, not per tier, and stay. Applying
 * the inverse table undoes it (a commit that failed).
 *
 * Context: any; caller serialises writers (no lookup may act on a word
 * while the list changes: the device is suspended). Linear in the map.
 * Return: 0; -EBUSY when a mapped word is on a removed tier (@changed is
 * the virtual extent of the first such word); -EINVAL for a tier at or
 * above @nr_old, or a table entry at or above TIER_MAX_TIERS.
 */
int tier_map_renumber(struct tier_map *m, const u8 *table, u32 nr_old,
		      u64 *changed);

/**
 * tier_map_renumber_inverse() - the table that undoes @table.
 * @table:  as for tier_map_renumber().
 * @nr_old: its valid entries.
 * @inv:    out; TIER_MAX_TIERS entries, TIER_RENUM_GONE where no old tier
 *          maps (the inserted tier).
 *
 * Context: any.
 */
void tier_map_renumber_inverse(const u8 *table, u32 nr_old, u8 *inv);

/**
 * tier_map_resize_copy() - carry a map into one of another virtual size.
 * @dst: from tier_map_init() with the new size and @src's flags.
 * @src: the current map.
 *
 * Copies the words (busy bits included), heat and atime of the extents
 * both have, ORs @src's dirty bits into @dst's, then marks dirty in both
 * copies every block from the one holding the smaller map's last extent
 * to @dst's end: blocks beyond the old end may hold anything on disk (a
 * map shrunk earlier), and the boundary block's entries past the new end
 * must be written unmapped. Calling it again after more changes to @src
 * picks them up. Allocates nothing (caller may hold a spinlock).
 *
 * Context: any; caller serialises writers of both.
 * Return: 0; -EBUSY when @src maps an extent at or beyond @dst's size
 * (@dst then unchanged); -EINVAL when heat tracking differs.
 */
int tier_map_resize_copy(struct tier_map *dst, const struct tier_map *src);

/**
 * tier_map_mapped_from() - count the mapped extents at or beyond @from.
 * @m:     the map.
 * @from:  first virtual extent to look at.
 * @first: out, optional: the first of them (U64_MAX when none).
 *
 * Context: any; reads words with READ_ONCE().
 * Return: how many extents in [@from, @m->nr_extents) are mapped.
 */
u64 tier_map_mapped_from(const struct tier_map *m, u64 from, u64 *first);

#endif /* DM_TIER_CORE_EXTENT_MAP_H */
