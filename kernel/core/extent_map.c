// SPDX-License-Identifier: GPL-2.0
/*
 * extent_map.c - in-memory extent map and its map-block encoding (pure).
 */
#include "tier-internal.h"
#include "format.h"
#include "extent_map.h"

int tier_map_init(struct tier_map *m, u64 nr_extents, u32 flags)
{
	u64 longs;

	memset(m, 0, sizeof(*m));
	if (!nr_extents || nr_extents > TIER_MAX_PEXTS)
		return -EINVAL;
	m->nr_extents = nr_extents;
	m->nr_blocks = tier_map_blocks_for(nr_extents);
	longs = BITS_TO_LONGS(m->nr_blocks);

	m->words = tier_zalloc_array(nr_extents, sizeof(*m->words));
	m->dirty[0] = tier_zalloc_array(longs, sizeof(unsigned long));
	m->dirty[1] = tier_zalloc_array(longs, sizeof(unsigned long));
	if (!m->words || !m->dirty[0] || !m->dirty[1])
		goto nomem;
	if (flags & TIER_MAP_F_HEAT) {
		m->heat = tier_zalloc_array(nr_extents, sizeof(*m->heat));
		m->atime = tier_zalloc_array(nr_extents, sizeof(*m->atime));
		if (!m->heat || !m->atime)
			goto nomem;
	}
	return 0;

nomem:
	tier_map_destroy(m);
	return -ENOMEM;
}

void tier_map_destroy(struct tier_map *m)
{
	tier_free_array(m->words);
	tier_free_array(m->heat);
	tier_free_array(m->atime);
	tier_free_array(m->dirty[0]);
	tier_free_array(m->dirty[1]);
	memset(m, 0, sizeof(*m));
}

bool tier_map_lookup(const struct tier_map *m, struct tier_vext v,
		     struct tier_loc *loc)
{
	return tier_map_word_decode(READ_ONCE(m->words[v.v]), loc);
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
	WRITE_ONCE(m->words[v.v], tier_map_word_encode(loc));
	tier_map_mark_dirty(m, v);
}

bool tier_map_set_flags(struct tier_map *m, struct tier_vext v, u32 set,
			u32 clear)
{
	u64 word = m->words[v.v];
	u64 mask = TIER_MAPW_FLAGS_MASK;
	u64 nword;

	if (!(word & TIER_MAPW_MAPPED))
		return false;
	nword = word & ~(((u64)clear << TIER_MAPW_FLAGS_SHIFT) & mask);
	nword |= ((u64)set << TIER_MAPW_FLAGS_SHIFT) & mask;
	if (nword == word)
		return false;
	WRITE_ONCE(m->words[v.v], nword);
	tier_map_mark_dirty(m, v);
	return true;
}

void tier_map_set_busy(struct tier_map *m, struct tier_vext v, bool busy)
{
	u64 word = m->words[v.v];

	if (busy)
		word |= TIER_MAPW_BUSY;
	else
		word &= ~TIER_MAPW_BUSY;
	WRITE_ONCE(m->words[v.v], word);
}

bool tier_map_clear(struct tier_map *m, struct tier_vext v,
		    struct tier_loc *old)
{
	u64 word = m->words[v.v];
	struct tier_loc loc;

	if (!tier_map_word_decode(word, &loc))
		return false;
	WRITE_ONCE(m->words[v.v], 0);
	if (m->heat) {
		m->heat[v.v] = 0;
		m->atime[v.v] = 0;
	}
	tier_map_mark_dirty(m, v);
	if (old)
		*old = loc;
	return true;
}

int tier_map_clear_on_tier(struct tier_map *m, struct tier_vext v, u32 tier,
			   struct tier_loc *old)
{
	u64 word = m->words[v.v];
	struct tier_loc loc;

	if (!tier_map_word_decode(word, &loc) || loc.tier != tier)
		return 0;
	if (word & TIER_MAPW_BUSY)
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
	memset(e, 0, sizeof(*e));
	if (v >= m->nr_extents)
		return;
	e->word = m->words[v] & ~TIER_MAPW_BUSY;
	if (!(e->word & TIER_MAPW_MAPPED)) {
		e->word = 0;
	} else if (m->heat) {
		e->heat = m->heat[v];
		e->atime = m->atime[v];
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
	u64 first = index * TIER_MAP_ENTRIES, v;
	struct tier_map_entry e;
	u32 i;
	int ret;

	if (m->nr_extents != sb->virt_extents || index >= m->nr_blocks)
		return -EINVAL;
	ret = tier_map_block_check(blk, sb, copy, index, err);
	if (ret)
		return ret;
	for (i = 0; i < TIER_MAP_ENTRIES; i++) {
		v = first + i;
		if (v >= m->nr_extents)
			break;
		tier_map_block_get(blk, i, &e);
		m->words[v] = e.word;
		if (m->heat) {
			m->heat[v] = e.heat;
			m->atime[v] = e.atime;
		}
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
		if (!(word & TIER_MAPW_MAPPED))
			continue;
		t = (word & TIER_MAPW_TIER_MASK) >> TIER_MAPW_TIER_SHIFT;
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
		if (!(word & TIER_MAPW_MAPPED))
			continue;
		t = (word & TIER_MAPW_TIER_MASK) >> TIER_MAPW_TIER_SHIFT;
		if (table[t] == t)
			continue;
		word &= ~TIER_MAPW_TIER_MASK;
		word |= ((u64)table[t] << TIER_MAPW_TIER_SHIFT) &
			TIER_MAPW_TIER_MASK;
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
		if (!(READ_ONCE(m->words[v]) & TIER_MAPW_MAPPED))
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

	if (!dst->heat != !src->heat)
		return -EINVAL;
	if (tier_map_mapped_from(src, dst->nr_extents, NULL))
		return -EBUSY;
	memcpy(dst->words, src->words, common * sizeof(*dst->words));
	if (dst->heat) {
		memcpy(dst->heat, src->heat, common * sizeof(*dst->heat));
		memcpy(dst->atime, src->atime, common * sizeof(*dst->atime));
	}
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
