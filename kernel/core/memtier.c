// SPDX-License-Identifier: GPL-2.0
/*
 * memtier.c - slot bookkeeping of the volatile memory tier (pure; see
 * memtier.h).
 */
#include "tier-internal.h"
#include "format.h"
#include "extent_map.h"
#include "policy.h"
#include "memtier.h"

int tier_mem_init(struct tier_mem *m, u64 nr_extents, u32 nr_slots)
{
	u64 v;
	u32 s;

	memset(m, 0, sizeof(*m));
	if (!nr_extents || !nr_slots || nr_slots == TIER_MEM_NONE)
		return -EINVAL;
	m->slot_of = tier_zalloc_array(nr_extents, sizeof(*m->slot_of));
	m->slots = tier_zalloc_array(nr_slots, sizeof(*m->slots));
	if (!m->slot_of || !m->slots) {
		tier_free_array(m->slot_of);
		tier_free_array(m->slots);
		memset(m, 0, sizeof(*m));
		return -ENOMEM;
	}
	for (v = 0; v < nr_extents; v++)
		m->slot_of[v] = TIER_MEM_NONE;
	for (s = 0; s < nr_slots; s++)
		m->slots[s].next_free = TIER_MEM_NONE;
	m->nr_extents = nr_extents;
	m->nr_slots = nr_slots;
	m->free_head = TIER_MEM_NONE;
	return 0;
}

void tier_mem_destroy(struct tier_mem *m)
{
	tier_free_array(m->slot_of);
	tier_free_array(m->slots);
	memset(m, 0, sizeof(*m));
}

static void tier_mem_push_free(struct tier_mem *m, u32 s)
{
	struct tier_mem_slot *sl = &m->slots[s];

	sl->state = TIER_MEM_FREE;
	sl->users = 0;
	sl->resident = false;
	sl->stale = false;
	sl->next_free = m->free_head;
	m->free_head = s;
	m->nr_free++;
}

static u32 tier_mem_pop_free(struct tier_mem *m)
{
	u32 s = m->free_head;

	if (s == TIER_MEM_NONE)
		return s;
	m->free_head = m->slots[s].next_free;
	m->slots[s].next_free = TIER_MEM_NONE;
	m->nr_free--;
	return s;
}

int tier_mem_add(struct tier_mem *m, u32 s, void *frame)
{
	if (s >= m->nr_slots || !frame || m->slots[s].state != TIER_MEM_ABSENT)
		return -EINVAL;
	m->slots[s].frame = frame;
	m->nr_present++;
	tier_mem_push_free(m, s);
	return 0;
}

u32 tier_mem_first_absent(struct tier_mem *m)
{
	u32 s;

	for (s = m->absent_hint; s < m->nr_slots; s++) {
		m->absent_visits++;
		if (m->slots[s].state == TIER_MEM_ABSENT)
			break;
	}
	m->absent_hint = s;
	return s < m->nr_slots ? s : TIER_MEM_NONE;
}

struct tier_mem_slot *tier_mem_swap_slots(struct tier_mem *m,
					  struct tier_mem_slot *slots, u32 n)
{
	struct tier_mem_slot *old = m->slots;
	u32 s;

	if (n < m->nr_slots || n == TIER_MEM_NONE)
		return NULL;
	memcpy(slots, old, m->nr_slots * sizeof(*slots));
	for (s = m->nr_slots; s < n; s++) {
		memset(&slots[s], 0, sizeof(slots[s]));
		slots[s].next_free = TIER_MEM_NONE;
	}
	m->slots = slots;
	m->nr_slots = n;
	return old;
}

u32 tier_mem_get(struct tier_mem *m, struct tier_vext v)
{
	u32 s = m->slot_of[v.v];

	if (s == TIER_MEM_NONE || m->slots[s].state != TIER_MEM_VALID)
		return TIER_MEM_NONE;
	m->slots[s].users++;
	return s;
}

void tier_mem_put(struct tier_mem *m, u32 s)
{
	struct tier_mem_slot *sl = &m->slots[s];

	if (WARN_ON_ONCE(!sl->users))
		return;
	if (--sl->users == 0 && sl->state == TIER_MEM_DEAD)
		tier_mem_push_free(m, s);
}

/* Heat of a slot's extent as of now: the eviction key, lower goes first. */
static u64 tier_mem_cold_key(const struct tier_mem_heat *h, u64 v)
{
	u64 word = READ_ONCE(h->words[v]);
	u32 atime = tier_mw_atime(word, h->now);
	u16 heat =
		tier_heat_decay(tier_mw_heat(word), atime, h->now, h->window);

	return (u64)heat << 32 | atime;
}

u32 tier_mem_victim(struct tier_mem *m, const struct tier_mem_heat *h)
{
	u32 i, s = m->victim_hand, seen = 0, best = TIER_MEM_NONE;
	u64 key, best_key = U64_MAX;

	if (s >= m->nr_slots)
		s = 0;
	for (i = 0; i < m->nr_slots && seen < TIER_MEM_VICTIM_SAMPLE; i++) {
		const struct tier_mem_slot *sl = &m->slots[s];

		m->victim_visits++;
		if (++s == m->nr_slots)
			s = 0;
		if (sl->state != TIER_MEM_VALID || sl->resident || sl->users)
			continue;
		seen++;
		key = tier_mem_cold_key(h, sl->vext);
		if (best == TIER_MEM_NONE || key < best_key) {
			best = sl - m->slots;
			best_key = key;
		}
	}
	m->victim_hand = s;
	return best;
}

/* Drop a VALID slot's copy; it is FREE (or DEAD while read). */
static void tier_mem_drop(struct tier_mem *m, u32 s)
{
	struct tier_mem_slot *sl = &m->slots[s];

	m->slot_of[sl->vext] = TIER_MEM_NONE;
	m->nr_valid--;
	if (sl->resident)
		m->nr_resident--;
	sl->resident = false;
	sl->gen++;
	if (sl->users)
		sl->state = TIER_MEM_DEAD;
	else
		tier_mem_push_free(m, s);
}

u32 tier_mem_claim(struct tier_mem *m, struct tier_vext v, bool resident,
		   const struct tier_mem_heat *h, u32 *gen)
{
	struct tier_mem_slot *sl;
	u32 s;

	if (m->slot_of[v.v] != TIER_MEM_NONE)
		return TIER_MEM_NONE;
	s = tier_mem_pop_free(m);
	if (s == TIER_MEM_NONE) {
		s = tier_mem_victim(m, h);
		if (s == TIER_MEM_NONE)
			return s;
		tier_mem_drop(m, s); /* not read: FREE */
		m->evictions++;
		s = tier_mem_pop_free(m);
		if (WARN_ON_ONCE(s == TIER_MEM_NONE))
			return s;
	}
	sl = &m->slots[s];
	sl->state = TIER_MEM_FILLING;
	sl->vext = v.v;
	sl->resident = resident;
	sl->stale = false;
	sl->users = 0;
	sl->gen++;
	if (resident)
		m->nr_resident++;
	m->slot_of[v.v] = s;
	*gen = sl->gen;
	return s;
}

bool tier_mem_publish(struct tier_mem *m, u32 s, u32 gen, bool ok, bool mapped)
{
	struct tier_mem_slot *sl = &m->slots[s];

	if (WARN_ON_ONCE(sl->state != TIER_MEM_FILLING))
		return false;
	if (ok && mapped && !sl->stale && sl->gen == gen &&
	    m->slot_of[sl->vext] == s) {
		sl->state = TIER_MEM_VALID;
		m->nr_valid++;
		m->fills++;
		return true;
	}
	if (!sl->stale && m->slot_of[sl->vext] == s) {
		/* Failed read or unmapped home: still registered, unlink. */
		m->slot_of[sl->vext] = TIER_MEM_NONE;
		if (sl->resident)
			m->nr_resident--;
	}
	sl->gen++;
	tier_mem_push_free(m, s);
	return false;
}

bool tier_mem_invalidate(struct tier_mem *m, struct tier_vext v, bool *resident)
{
	u32 s = m->slot_of[v.v];
	struct tier_mem_slot *sl;

	if (resident)
		*resident = false;
	if (s == TIER_MEM_NONE)
		return false;
	sl = &m->slots[s];
	if (resident)
		*resident = sl->resident;
	m->invalidations++;
	if (sl->state == TIER_MEM_FILLING) {
		/* The fill still owns the pages; its publish frees them. */
		m->slot_of[v.v] = TIER_MEM_NONE;
		if (sl->resident)
			m->nr_resident--;
		sl->resident = false;
		sl->stale = true;
		sl->gen++;
		return true;
	}
	tier_mem_drop(m, s);
	return true;
}

void tier_mem_set_resident(struct tier_mem *m, struct tier_vext v,
			   bool resident)
{
	u32 s = m->slot_of[v.v];
	struct tier_mem_slot *sl;

	if (s == TIER_MEM_NONE)
		return;
	sl = &m->slots[s];
	if (sl->resident == resident)
		return;
	sl->resident = resident;
	if (resident)
		m->nr_resident++;
	else
		m->nr_resident--;
}

u32 tier_mem_remove_one(struct tier_mem *m, const struct tier_mem_heat *h,
			void **frame)
{
	u32 s = tier_mem_pop_free(m);

	if (s == TIER_MEM_NONE) {
		s = tier_mem_victim(m, h);
		if (s == TIER_MEM_NONE)
			return s;
		tier_mem_drop(m, s);
		m->evictions++;
		s = tier_mem_pop_free(m);
		if (WARN_ON_ONCE(s == TIER_MEM_NONE))
			return s;
	}
	*frame = m->slots[s].frame;
	m->slots[s].frame = NULL;
	m->slots[s].state = TIER_MEM_ABSENT;
	m->nr_present--;
	m->absent_hint = min(m->absent_hint, s);
	return s;
}

bool tier_mem_promote_due(const struct tier_mem *m, struct tier_vext v,
			  u16 heat, u32 hits)
{
	return m->nr_present && hits && heat >= hits &&
	       READ_ONCE(m->slot_of[v.v]) == TIER_MEM_NONE;
}

int tier_mem_check(const struct tier_mem *m, const u64 *words)
{
	u32 s, nr_free = 0, nr_valid = 0, nr_res = 0, nr_present = 0;
	u64 v;

	for (v = 0; v < m->nr_extents; v++) {
		s = m->slot_of[v];
		if (s == TIER_MEM_NONE)
			continue;
		if (s >= m->nr_slots || m->slots[s].vext != v)
			return -EUCLEAN;
		if (m->slots[s].state != TIER_MEM_VALID &&
		    m->slots[s].state != TIER_MEM_FILLING)
			return -EUCLEAN;
		if (words && !(words[v] & TIER_MW_MAPPED) &&
		    m->slots[s].state == TIER_MEM_VALID)
			return -EUCLEAN; /* the only copy */
	}
	for (s = 0; s < m->nr_slots; s++) {
		const struct tier_mem_slot *sl = &m->slots[s];

		if (sl->state != TIER_MEM_ABSENT)
			nr_present++;
		else if (s < m->absent_hint)
			return -EUCLEAN;
		if (sl->state == TIER_MEM_FREE)
			nr_free++;
		if (sl->state == TIER_MEM_VALID) {
			nr_valid++;
			if (m->slot_of[sl->vext] != s)
				return -EUCLEAN;
		}
		if ((sl->state == TIER_MEM_VALID ||
		     (sl->state == TIER_MEM_FILLING && !sl->stale)) &&
		    sl->resident)
			nr_res++;
		if (sl->state == TIER_MEM_FILLING && !sl->stale &&
		    m->slot_of[sl->vext] != s)
			return -EUCLEAN;
		if (sl->state == TIER_MEM_DEAD && !sl->users)
			return -EUCLEAN;
	}
	if (nr_free != m->nr_free || nr_valid != m->nr_valid ||
	    nr_res != m->nr_resident || nr_present != m->nr_present)
		return -EUCLEAN;
	return 0;
}

u32 tier_mem_slots_for(u32 size_mb, u32 extent_shift)
{
	u32 shift = extent_shift + 9; /* log2(extent bytes) */
	u64 n = ((u64)size_mb << 20) >> shift;

	return n >= TIER_MEM_NONE ? TIER_MEM_NONE - 1 : (u32)n;
}
