// SPDX-License-Identifier: GPL-2.0
/*
 * extent_map.c - in-memory extent map and its map-block encoding (pure).
 */
#include "tier-internal.h"
#include "format.h"
#include "extent_map.h"

/* One definition of the sizes tier_map_init() allocates. */
static u64 tier_map_dirty_longs(u64 nr_extents)
{
	return BITS_TO_LONGS(tier_map_blocks_for(nr_extents));
}

u64 tier_map_mem_bytes(u64 nr_extents)
{
	return nr_extents * sizeof(u64) +
	       2 * tier_map_dirty_longs(nr_extents) * sizeof(unsigned long);
}

int tier_map_init(struct tier_map *m, u64 nr_extents, u32 flags)
{
	u64 longs;

	memset(m, 0, sizeof(*m));
	if (!nr_extents || nr_extents > TIER_MAX_PEXTS)
		return -EINVAL;
	m->nr_extents = nr_extents;
	m->nr_blocks = tier_map_blocks_for(nr_extents);
	m->flags = flags;
	longs = tier_map_dirty_longs(nr_extents);

	m->words = tier_zalloc_array(nr_extents, sizeof(*m->words));
	m->dirty[0] = tier_zalloc_array(longs, sizeof(unsigned long));
	m->dirty[1] = tier_zalloc_array(longs, sizeof(unsigned long));
	if (!m->words || !m->dirty[0] || !m->dirty[1]) {
		tier_map_destroy(m);
		return -ENOMEM;
	}
	return 0;
}

void tier_map_destroy(struct tier_map *m)
{
	tier_free_array(m->words);
	tier_free_array(m->dirty[0]);
	tier_free_array(m->dirty[1]);
	memset(m, 0, sizeof(*m));
}

/* ---- access times and heat ---------------------------------------------- */

u32 tier_mw_atime(u64 word, u32 now)
{
	u32 field = (word & TIER_MW_AGE_MASK) >> TIER_MW_AGE_SHIFT;
	u32 d, nc;
	u64 c;

	if (!(word & TIER_MW_MAPPED))
		return 0;
	if (!(word & TIER_MW_COARSE)) {
		d = (u16)(now - field);
		if (d >= 0x10000 - TIER_ATIME_SLACK) { /* ahead of @now */
			d = 0x10000 - d;
			return now > U32_MAX - d ? U32_MAX : now + d;
		}
		return d > now ? 0 : now - d;
	}
	nc = now >> TIER_ATIME_COARSE_SHIFT;
	d = (u16)(nc - field);
	c = d > nc ? 0 : nc - d;
	return min_t(u64, c << TIER_ATIME_COARSE_SHIFT, U32_MAX);
}

u64 tier_mw_with_access(u64 word, u32 heat, u32 atime, u32 now)
{
	u64 age = 0, field;

	word &= ~TIER_MW_ACCESS_MASK;
	word |= (u64)tier_heat_pack(heat) << TIER_MW_HEAT_SHIFT;
	if (!atime) /* one form for "never": what tier_mw_encode() gives */
		return word | TIER_MW_ACCESS_NONE;
	if (atime > now && atime - now > TIER_ATIME_SLACK)
		atime = now;
	if (atime < now)
		age = now - atime;
	if (age < TIER_ATIME_FINE_AGE)
		return word | ((u64)(atime & 0xffff) << TIER_MW_AGE_SHIFT);
	if (age > TIER_ATIME_OLDEST)
		atime = now - TIER_ATIME_OLDEST;
	/* Nearest unit: a coarse time is within half a unit. */
	field = ((u64)atime + (1U << (TIER_ATIME_COARSE_SHIFT - 1))) >>
		TIER_ATIME_COARSE_SHIFT;
	return word | TIER_MW_COARSE | ((field & 0xffff) << TIER_MW_AGE_SHIFT);
}

bool tier_map_touch(struct tier_map *m, struct tier_vext v, u64 seen, u32 heat,
		    u32 now, u32 rnd)
{
	u32 code = tier_heat_pack(heat), base, step;
	u64 nword;

	if (!(seen & TIER_MW_MAPPED))
		return false;
	base = tier_heat_unpack(code);
	if (heat > base && code < TIER_HEAT_CODE_MAX) {
		step = tier_heat_unpack(code + 1) - base;
		if (rnd % step < heat - base)
			heat = tier_heat_unpack(code + 1);
	}
	nword = tier_mw_with_access(seen, heat, now, now);
	if (nword == seen)
		return false;
	return tier_cmpxchg64(&m->words[v.v], seen, nword) == seen;
}

void tier_map_heat_reset(struct tier_map *m, struct tier_vext v)
{
	u64 word = READ_ONCE(m->words[v.v]);

	if (word & TIER_MW_MAPPED)
		WRITE_ONCE(m->words[v.v], word & ~TIER_MW_HEAT_MASK);
}

u64 tier_map_age_sweep(struct tier_map *m, u64 from, u64 nr, u32 now)
{
	u64 end = min(m->nr_extents, from + nr), v, word, nword;
	u32 atime;

	for (v = from; v < end; v++) {
		word = READ_ONCE(m->words[v]);
		if (!(word & TIER_MW_MAPPED))
			continue;
		atime = tier_mw_atime(word, now);
		if (word & TIER_MW_COARSE) {
			if (atime > now || now - atime <= TIER_ATIME_OLDEST)
				continue;
		} else if (atime > now || now - atime < TIER_ATIME_FINE_AGE) {
			continue;
		}
		nword = tier_mw_with_access(word, tier_mw_heat(word), atime,
					    now);
		/* A racing tier_map_touch() wins: its time is fresh. */
		tier_cmpxchg64(&m->words[v], word, nword);
	}
	return end;
}

/* ---- locations ----------------------------------------------------------- */

bool tier_map_lookup(const struct tier_map *m, struct tier_vext v,
		     struct tier_loc *loc)
{
	return tier_mw_decode(READ_ONCE(m->words[v.v]), loc);
}

static void tier_map_dirty_block(struct tier_map *m, u64 block)
{
	u32 copy;

	for (copy = 0; copy < 2; copy++) {
		if (!test_bit(block, m->dirty[copy])) {
			__set_bit(block, m->dirty[copy]);
			m->nr_dirty[copy]++;
		}
	}
}

void tier_map_mark_dirty(struct tier_map *m, struct tier_vext v)
{
	tier_map_dirty_block(m, tier_map_block_of(v));
}

void tier_map_set(struct tier_map *m, struct tier_vext v,
		  const struct tier_loc *loc)
{
	u64 word = READ_ONCE(m->words[v.v]);
	u64 nword = tier_mw_encode(loc);

	/* A move keeps the heat and access time; a new mapping has none. */
	if (word & TIER_MW_MAPPED)
		nword = (nword & ~TIER_MW_ACCESS_MASK) |
			(word & TIER_MW_ACCESS_MASK);
	WRITE_ONCE(m->words[v.v], nword);
	tier_map_mark_dirty(m, v);
}

bool tier_map_set_flags(struct tier_map *m, struct tier_vext v, u32 set,
			u32 clear)
{
	u64 word = READ_ONCE(m->words[v.v]);
	u64 mask = TIER_MW_FLAGS_MASK;
	u64 nword;

	if (!(word & TIER_MW_MAPPED))
		return false;
	nword = word & ~(((u64)clear << TIER_MW_FLAGS_SHIFT) & mask);
	nword |= ((u64)set << TIER_MW_FLAGS_SHIFT) & mask;
	if (nword == word)
		return false;
	WRITE_ONCE(m->words[v.v], nword);
	tier_map_mark_dirty(m, v);
	return true;
}

void tier_map_set_busy(struct tier_map *m, struct tier_vext v, bool busy)
{
	u64 word = READ_ONCE(m->words[v.v]);

	if (busy)
		word |= TIER_MW_BUSY;
	else
		word &= ~TIER_MW_BUSY;
	WRITE_ONCE(m->words[v.v], word);
}

bool tier_map_clear(struct tier_map *m, struct tier_vext v,
		    struct tier_loc *old)
{
	u64 word = READ_ONCE(m->words[v.v]);
	struct tier_loc loc;

	if (!tier_mw_decode(word, &loc))
		return false;
	WRITE_ONCE(m->words[v.v], 0);
	tier_map_mark_dirty(m, v);
	if (old)
		*old = loc;
	return true;
}

int tier_map_clear_on_tier(struct tier_map *m, struct tier_vext v, u32 tier,
			   struct tier_loc *old)
{
	u64 word = READ_ONCE(m->words[v.v]);
	struct tier_loc loc;

	if (!tier_mw_decode(word, &loc) || loc.tier != tier)
		return 0;
	if (word & TIER_MW_BUSY)
		return -EBUSY;
	return tier_map_clear(m, v, old) ? 1 : 0;
}

void tier_map_mark_all_dirty(struct tier_map *m, u32 copy)
{
	u64 b;

	for (b = 0; b < m->nr_blocks; b++)
		__set_bit(b, m->dirty[copy]);
	m->nr_dirty[copy] = m->nr_blocks;
}

u64 tier_map_commit_next(const struct tier_map *m, u32 copy, u64 from)
{
	return find_next_bit(m->dirty[copy], m->nr_blocks, from);
}

/*
 * The entry a commit writes for virtual extent @v: all zero when unmapped
 * or beyond the map (the busy bit is in memory only). tier_map_fill_block()
 * writes it and tier_map_block_current() compares with it: one definition.
 */
static void tier_map_entry_of(const struct tier_map *m, u64 v,
			      struct tier_map_entry *e)
{
	struct tier_loc loc;
	u64 word;

	memset(e, 0, sizeof(*e));
	if (v >= m->nr_extents)
		return;
	word = READ_ONCE(m->words[v]);
	if (!tier_mw_decode(word, &loc))
		return;
	e->word = tier_map_word_encode(&loc);
	if (m->flags & TIER_MAP_F_HEAT) {
		e->heat = tier_mw_heat(word);
		e->atime = tier_mw_atime(word, READ_ONCE(m->clock));
	}
}

static void tier_map_clear_dirty(struct tier_map *m, u32 copy, u64 index)
{
	if (index < m->nr_blocks && test_bit(index, m->dirty[copy])) {
		__clear_bit(index, m->dirty[copy]);
		m->nr_dirty[copy]--;
	}
}

void tier_map_fill_block(struct tier_map *m, const struct tier_sb *sb, u32 copy,
			 u64 index, void *blk)
{
	u64 first = index * TIER_MAP_ENTRIES;
	struct tier_map_entry e;
	u32 i;

	tier_map_block_init(blk, sb, copy, index);
	for (i = 0; i < TIER_MAP_ENTRIES && index < m->nr_blocks; i++) {
		tier_map_entry_of(m, first + i, &e);
		if (e.word)
			tier_map_block_set(blk, i, &e);
	}
	tier_map_block_seal(blk);
	tier_map_clear_dirty(m, copy, index);
}

int tier_map_load_block(struct tier_map *m, const struct tier_sb *sb, u32 copy,
			u64 index, const void *blk, struct tier_err *err)
{
	u64 first = index * TIER_MAP_ENTRIES, v, word;
	struct tier_map_entry e;
	struct tier_loc loc;
	u32 i;
	int ret;

	if (m->nr_extents != sb->virt_extents || index >= m->nr_blocks)
		return -EINVAL;
	ret = tier_map_block_check(blk, sb, copy, index, err);
	if (ret)
		return ret;
	/*
	 * Check first: a refusal leaves the map as it was. The pext fits the
	 * word: tier_map_block_check() holds it below the tier's extents,
	 * which the superblock holds to TIER_MAX_TIER_EXTENTS.
	 */
	for (i = 0; i < TIER_MAP_ENTRIES && first + i < m->nr_extents; i++) {
		tier_map_block_get(blk, i, &e);
		if (tier_map_word_decode(e.word, &loc) &&
		    (loc.flags & ~TIER_MW_EXT_FLAGS))
			return tier_err_set(err, TIER_E_MAP_ENTRY_FLAGS,
					    first + i, e.word);
	}
	for (i = 0; i < TIER_MAP_ENTRIES; i++) {
		v = first + i;
		if (v >= m->nr_extents)
			break;
		tier_map_block_get(blk, i, &e);
		word = 0;
		if (tier_map_word_decode(e.word, &loc)) {
			word = tier_mw_encode(&loc);
			if (m->flags & TIER_MAP_F_HEAT)
				word = tier_mw_with_access(word, e.heat,
							   e.atime, m->clock);
		}
		m->words[v] = word;
	}
	return 0;
}

bool tier_map_block_current(struct tier_map *m, const struct tier_sb *sb,
			    u32 copy, u64 index, const void *blk)
{
	u64 first = index * TIER_MAP_ENTRIES;
	struct tier_map_entry want, got;
	u32 i;

	if (index >= m->nr_blocks || m->nr_extents != sb->virt_extents ||
	    tier_map_block_check(blk, sb, copy, index, NULL))
		return false;
	for (i = 0; i < TIER_MAP_ENTRIES; i++) {
		tier_map_entry_of(m, first + i, &want);
		tier_map_block_get(blk, i, &got);
		if (got.word != want.word || got.heat != want.heat ||
		    got.flags != want.flags || got.atime != want.atime)
			return false;
	}
	tier_map_clear_dirty(m, copy, index);
	return true;
}

int tier_map_renumber_table(u32 old_n, bool insert, u32 pos, u8 *table)
{
	u32 i;

	if (!old_n || old_n > TIER_MAX_TIERS)
		return -EINVAL;
	if (insert ? pos > old_n || old_n == TIER_MAX_TIERS :
		     pos >= old_n || old_n == 1)
		return -EINVAL;
	for (i = 0; i < TIER_MAX_TIERS; i++) {
		if (i >= old_n)
			table[i] = TIER_RENUM_GONE;
		else if (i < pos)
			table[i] = i;
		else if (insert)
			table[i] = i + 1;
		else
			table[i] = i == pos ? TIER_RENUM_GONE : i - 1;
	}
	return 0;
}

void tier_map_renumber_inverse(const u8 *table, u32 nr_old, u8 *inv)
{
	u32 i;

	for (i = 0; i < TIER_MAX_TIERS; i++)
		inv[i] = TIER_RENUM_GONE;
	for (i = 0; i < nr_old && i < TIER_MAX_TIERS; i++)
		if (table[i] < TIER_MAX_TIERS)
			inv[table[i]] = i;
}

int tier_map_renumber(struct tier_map *m, const u8 *table, u32 nr_old,
		      u64 *changed)
{
	u64 v, word, n = 0;
	u32 t;

	if (nr_old > TIER_MAX_TIERS)
		return -EINVAL;
	/* Check first: a refusal leaves the map as it was. */
	for (v = 0; v < m->nr_extents; v++) {
		word = m->words[v];
		if (!(word & TIER_MW_MAPPED))
			continue;
		t = (word & TIER_MW_TIER_MASK) >> TIER_MW_TIER_SHIFT;
		if (t >= nr_old)
			return -EINVAL;
		if (table[t] == TIER_RENUM_GONE) {
			if (changed)
				*changed = v;
			return -EBUSY;
		}
		if (table[t] >= TIER_MAX_TIERS)
			return -EINVAL;
	}
	for (v = 0; v < m->nr_extents; v++) {
		word = m->words[v];
		if (!(word & TIER_MW_MAPPED))
			continue;
		t = (word & TIER_MW_TIER_MASK) >> TIER_MW_TIER_SHIFT;
		if (table[t] == t)
			continue;
		word &= ~TIER_MW_TIER_MASK;
		word |= ((u64)table[t] << TIER_MW_TIER_SHIFT) &
			TIER_MW_TIER_MASK;
		WRITE_ONCE(m->words[v], word);
		tier_map_mark_dirty(m, tier_vext(v));
		n++;
	}
	if (changed)
		*changed = n;
	return 0;
}

u64 tier_map_mapped_from(const struct tier_map *m, u64 from, u64 *first)
{
	u64 v, n = 0;

	if (first)
		*first = U64_MAX;
	for (v = from; v < m->nr_extents; v++) {
		if (!(READ_ONCE(m->words[v]) & TIER_MW_MAPPED))
			continue;
		if (!n && first)
			*first = v;
		n++;
	}
	return n;
}

int tier_map_resize_copy(struct tier_map *dst, const struct tier_map *src)
{
	u64 common = min(dst->nr_extents, src->nr_extents), b, nb;
	u32 copy;

	if ((dst->flags ^ src->flags) & TIER_MAP_F_HEAT)
		return -EINVAL;
	if (tier_map_mapped_from(src, dst->nr_extents, NULL))
		return -EBUSY;
	memcpy(dst->words, src->words, common * sizeof(*dst->words));
	dst->clock = src->clock;
	nb = min(dst->nr_blocks, src->nr_blocks);
	for (copy = 0; copy < 2; copy++) {
		dst->nr_dirty[copy] = 0;
		for (b = 0; b < dst->nr_blocks; b++) {
			/* The boundary block and everything after it. */
			if ((b < nb && test_bit(b, src->dirty[copy])) ||
			    b >= tier_map_block_of(tier_vext(common - 1)))
				__set_bit(b, dst->dirty[copy]);
			if (test_bit(b, dst->dirty[copy]))
				dst->nr_dirty[copy]++;
		}
	}
	return 0;
}
