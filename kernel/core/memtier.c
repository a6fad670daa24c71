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

int tier_mem_init(struct tier_mem *m, u64 nr_extents, u32 nr_slots,
		  u32 max_slots)
{
	struct tier_mem_slot **chunks = NULL;
	u64 v;
	int n;

	memset(m, 0, sizeof(*m));
	if (!nr_extents || !nr_slots || nr_slots == TIER_MEM_NONE ||
	    max_slots < nr_slots || max_slots == TIER_MEM_NONE)
		return -EINVAL;
	m->max_slots = max_slots;
	m->max_chunks = DIV_ROUND_UP(max_slots, TIER_MEM_CHUNK);
	m->free_head = TIER_MEM_NONE;
	m->dead_head = TIER_MEM_NONE;
	m->slot_of = tier_zalloc_array(nr_extents, sizeof(*m->slot_of));
	m->chunks = tier_zalloc_array(m->max_chunks, sizeof(*m->chunks));
	n = tier_mem_chunks_needed(m, nr_slots);
	if (m->slot_of && m->chunks)
		chunks = tier_mem_chunks_alloc(n);
	if (!chunks) {
		tier_free_array(m->slot_of);
		tier_free_array(m->chunks);
		memset(m, 0, sizeof(*m));
		return -ENOMEM;
	}
	for (v = 0; v < nr_extents; v++)
		m->slot_of[v] = TIER_MEM_NONE;
	m->nr_extents = nr_extents;
	tier_mem_extend(m, nr_slots, chunks);
	tier_free_array(chunks);
	return 0;
}

void tier_mem_destroy(struct tier_mem *m)
{
	u32 i;

	for (i = 0; m->chunks && i < m->nr_chunks; i++)
		tier_free_array(m->chunks[i]);
	tier_free_array(m->chunks);
	tier_free_array(m->slot_of);
	memset(m, 0, sizeof(*m));
}

int tier_mem_chunks_needed(const struct tier_mem *m, u32 n)
{
	if (n < m->nr_slots || n > m->max_slots)
		return -EINVAL;
	return DIV_ROUND_UP(n, TIER_MEM_CHUNK) - m->nr_chunks;
}

static struct tier_mem_slot *tier_mem_chunk_alloc(void)
{
	struct tier_mem_slot *c;
	u32 i;

	c = tier_zalloc_array(TIER_MEM_CHUNK, sizeof(*c));
	if (!c)
		return NULL;
	for (i = 0; i < TIER_MEM_CHUNK; i++)
		c[i].next_free = TIER_MEM_NONE;
	return c;
}

struct tier_mem_slot **tier_mem_chunks_alloc(u32 n)
{
	struct tier_mem_slot **chunks;
	u32 i;

	chunks = tier_zalloc_array(max(n, 1U), sizeof(*chunks));
	if (!chunks)
		return NULL;
	for (i = 0; i < n; i++) {
		chunks[i] = tier_mem_chunk_alloc();
		if (!chunks[i]) {
			while (i--)
				tier_free_array(chunks[i]);
			tier_free_array(chunks);
			return NULL;
		}
	}
	return chunks;
}

void tier_mem_extend(struct tier_mem *m, u32 n, struct tier_mem_slot **chunks)
{
	u32 i = 0;

	while (m->nr_chunks < DIV_ROUND_UP(n, TIER_MEM_CHUNK)) {
		/*
		 * Release: a reader that finds a slot of this chunk in slot_of
		 * (acquire) sees the chunk's pointer and its initialised slots.
		 */
		smp_store_release(&m->chunks[m->nr_chunks++], chunks[i++]);
	}
	m->nr_slots = n;
}

static void tier_mem_push_free(struct tier_mem *m, u32 s)
{
	struct tier_mem_slot *sl = tier_mem_slot(m, s);

	sl->state = TIER_MEM_FREE;
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
	m->free_head = tier_mem_slot(m, s)->next_free;
	tier_mem_slot(m, s)->next_free = TIER_MEM_NONE;
	m->nr_free--;
	return s;
}

int tier_mem_add(struct tier_mem *m, u32 s, void *frame)
{
	if (s >= m->nr_slots || !frame ||
	    tier_mem_slot(m, s)->state != TIER_MEM_ABSENT)
		return -EINVAL;
	tier_mem_slot(m, s)->frame = frame;
	m->nr_present++;
	tier_mem_push_free(m, s);
	return 0;
}

u32 tier_mem_first_absent(struct tier_mem *m)
{
	u32 s;

	for (s = m->absent_hint; s < m->nr_slots; s++) {
		m->absent_visits++;
		if (tier_mem_slot(m, s)->state == TIER_MEM_ABSENT)
			break;
	}
	m->absent_hint = s;
	return s < m->nr_slots ? s : TIER_MEM_NONE;
}

u32 tier_mem_get(const struct tier_mem *m, struct tier_vext v)
{
	/* Acquire: pairs with the release of the claim and of the chunk. */
	return tier_mem_get_slot(m, smp_load_acquire(&m->slot_of[v.v]), v);
}

u32 tier_mem_get_slot(const struct tier_mem *m, u32 s, struct tier_vext v)
{
	struct tier_mem_slot *sl;
	int ref;

	if (s == TIER_MEM_NONE)
		return s;
	sl = tier_mem_slot(m, s);
	ref = atomic_read(&sl->ref);
	do {
		if (!(ref & TIER_MEM_OPEN))
			return TIER_MEM_NONE;
	} while (!atomic_try_cmpxchg(&sl->ref, &ref, ref + 1));
	/*
	 * The slot may have been dropped and given to another extent since
	 * slot_of was read: the reference keeps it, but it is not @v's. (A
	 * full barrier orders this read after the reference.)
	 */
	if (READ_ONCE(sl->vext) != v.v) {
		tier_mem_put(m, s);
		return TIER_MEM_NONE;
	}
	return s;
}

void tier_mem_put(const struct tier_mem *m, u32 s)
{
	/* Release: the reader's copy is done before a reaper can see 0. */
	int ref = atomic_dec_return_release(&tier_mem_slot(m, s)->ref);

	WARN_ON_ONCE(ref < 0);
}

u32 tier_mem_reap(struct tier_mem *m)
{
	u32 s = m->dead_head, prev = TIER_MEM_NONE, next, n = 0;
	struct tier_mem_slot *sl;

	while (s != TIER_MEM_NONE) {
		sl = tier_mem_slot(m, s);
		next = sl->next_free;
		if (atomic_read_acquire(&sl->ref)) {
			prev = s;
		} else {
			if (prev == TIER_MEM_NONE)
				m->dead_head = next;
			else
				tier_mem_slot(m, prev)->next_free = next;
			m->nr_dead--;
			tier_mem_push_free(m, s);
			n++;
		}
		s = next;
	}
	return n;
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

/* VALID, not resident, no reader now. */
static bool tier_mem_evictable(const struct tier_mem_slot *sl)
{
	return sl->state == TIER_MEM_VALID && !sl->resident &&
	       atomic_read(&sl->ref) == TIER_MEM_OPEN;
}

u32 tier_mem_victim(struct tier_mem *m, const struct tier_mem_heat *h)
{
	u32 i, s = m->victim_hand, seen = 0, best = TIER_MEM_NONE;
	u64 key, best_key = U64_MAX;

	if (s >= m->nr_slots)
		s = 0;
	for (i = 0; i < m->nr_slots && seen < TIER_MEM_VICTIM_SAMPLE; i++) {
		const struct tier_mem_slot *sl = tier_mem_slot(m, s);
		u32 here = s;

		m->victim_visits++;
		if (++s == m->nr_slots)
			s = 0;
		if (!tier_mem_evictable(sl))
			continue;
		seen++;
		key = tier_mem_cold_key(h, sl->vext);
		if (best == TIER_MEM_NONE || key < best_key) {
			best = here;
			best_key = key;
		}
	}
	m->victim_hand = s;
	return best;
}

/* Unlink a VALID slot from its extent (readers are shut out already). */
static void tier_mem_unlink(struct tier_mem *m, struct tier_mem_slot *sl)
{
	WRITE_ONCE(m->slot_of[sl->vext], TIER_MEM_NONE);
	m->nr_valid--;
	if (sl->resident)
		m->nr_resident--;
	sl->resident = false;
	sl->gen++;
}

/* Drop a VALID slot's copy (a write or discard): FREE, or DEAD while read. */
static void tier_mem_drop(struct tier_mem *m, u32 s)
{
	struct tier_mem_slot *sl = tier_mem_slot(m, s);

	/* Full barrier: a reader that got in before is counted in the result. */
	if (atomic_fetch_andnot(TIER_MEM_OPEN, &sl->ref) & ~TIER_MEM_OPEN) {
		tier_mem_unlink(m, sl);
		sl->state = TIER_MEM_DEAD;
		sl->next_free = m->dead_head;
		m->dead_head = s;
		m->nr_dead++;
		return;
	}
	tier_mem_unlink(m, sl);
	tier_mem_push_free(m, s);
}

/*
 * Evict slot @s, the victim: close it only if no reader holds it (one got
 * in since tier_mem_victim() looked: give up, it is not cold). It is FREE.
 */
static bool tier_mem_evict(struct tier_mem *m, u32 s)
{
	struct tier_mem_slot *sl = tier_mem_slot(m, s);

	if (atomic_cmpxchg(&sl->ref, TIER_MEM_OPEN, 0) != TIER_MEM_OPEN)
		return false;
	tier_mem_unlink(m, sl);
	tier_mem_push_free(m, s);
	m->evictions++;
	return true;
}

/* A FREE slot: the free list, else a reaped DEAD one, else an eviction. */
static u32 tier_mem_take(struct tier_mem *m, const struct tier_mem_heat *h)
{
	u32 s = tier_mem_pop_free(m);

	if (s != TIER_MEM_NONE)
		return s;
	if (m->nr_dead && tier_mem_reap(m))
		return tier_mem_pop_free(m);
	s = tier_mem_victim(m, h);
	if (s == TIER_MEM_NONE || !tier_mem_evict(m, s))
		return TIER_MEM_NONE;
	return tier_mem_pop_free(m);
}

u32 tier_mem_claim(struct tier_mem *m, struct tier_vext v, bool resident,
		   const struct tier_mem_heat *h, u32 *gen)
{
	struct tier_mem_slot *sl;
	u32 s;

	if (m->slot_of[v.v] != TIER_MEM_NONE)
		return TIER_MEM_NONE;
	s = tier_mem_take(m, h);
	if (s == TIER_MEM_NONE)
		return s;
	sl = tier_mem_slot(m, s);
	sl->state = TIER_MEM_FILLING;
	WRITE_ONCE(sl->vext, v.v);
	sl->resident = resident;
	sl->stale = false;
	sl->gen++;
	if (resident)
		m->nr_resident++;
	/* Release: a reader that finds @s here finds its chunk. */
	smp_store_release(&m->slot_of[v.v], s);
	*gen = sl->gen;
	return s;
}

bool tier_mem_publish(struct tier_mem *m, u32 s, u32 gen, bool ok, bool mapped)
{
	struct tier_mem_slot *sl = tier_mem_slot(m, s);

	if (WARN_ON_ONCE(sl->state != TIER_MEM_FILLING))
		return false;
	if (ok && mapped && !sl->stale && sl->gen == gen &&
	    m->slot_of[sl->vext] == s) {
		sl->state = TIER_MEM_VALID;
		m->nr_valid++;
		m->fills++;
		/*
		 * No reader holds a slot that is not OPEN once FREE, so @ref
		 * is 0. Release: a reader let in sees the copied pages and
		 * @vext. One that looked this slot up for another extent,
		 * long ago, may take a reference now: it checks @vext.
		 */
		atomic_set_release(&sl->ref, TIER_MEM_OPEN);
		return true;
	}
	if (!sl->stale && m->slot_of[sl->vext] == s) {
		/* Failed read or unmapped home: still registered, unlink. */
		WRITE_ONCE(m->slot_of[sl->vext], TIER_MEM_NONE);
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
	sl = tier_mem_slot(m, s);
	if (resident)
		*resident = sl->resident;
	m->invalidations++;
	if (sl->state == TIER_MEM_FILLING) {
		/* The fill still owns the pages; its publish frees them. */
		WRITE_ONCE(m->slot_of[v.v], TIER_MEM_NONE);
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
	sl = tier_mem_slot(m, s);
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
	u32 s = tier_mem_take(m, h);
	struct tier_mem_slot *sl;

	if (s == TIER_MEM_NONE)
		return s;
	sl = tier_mem_slot(m, s);
	*frame = sl->frame;
	sl->frame = NULL;
	sl->state = TIER_MEM_ABSENT;
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
	u32 nr_dead = 0;
	u64 v;

	for (v = 0; v < m->nr_extents; v++) {
		const struct tier_mem_slot *sl;

		s = m->slot_of[v];
		if (s == TIER_MEM_NONE)
			continue;
		if (s >= m->nr_slots)
			return -EUCLEAN;
		sl = tier_mem_slot(m, s);
		if (sl->vext != v)
			return -EUCLEAN;
		if (sl->state != TIER_MEM_VALID &&
		    sl->state != TIER_MEM_FILLING)
			return -EUCLEAN;
		if (words && !(words[v] & TIER_MW_MAPPED) &&
		    sl->state == TIER_MEM_VALID)
			return -EUCLEAN; /* the only copy */
	}
	for (s = m->dead_head; s != TIER_MEM_NONE;
	     s = tier_mem_slot(m, s)->next_free) {
		if (s >= m->nr_slots || ++nr_dead > m->nr_dead ||
		    tier_mem_slot(m, s)->state != TIER_MEM_DEAD)
			return -EUCLEAN;
	}
	nr_dead = 0;
	for (s = 0; s < m->nr_slots; s++) {
		const struct tier_mem_slot *sl = tier_mem_slot(m, s);
		bool open = atomic_read(&sl->ref) & TIER_MEM_OPEN;
		bool valid = sl->state == TIER_MEM_VALID;

		if (sl->state != TIER_MEM_ABSENT)
			nr_present++;
		else if (s < m->absent_hint)
			return -EUCLEAN;
		/* Readers get in exactly while the slot is VALID. */
		if (open != valid)
			return -EUCLEAN;
		if (sl->state == TIER_MEM_FREE)
			nr_free++;
		if (sl->state == TIER_MEM_DEAD)
			nr_dead++;
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
	}
	if (nr_free != m->nr_free || nr_valid != m->nr_valid ||
	    nr_res != m->nr_resident || nr_present != m->nr_present ||
	    nr_dead != m->nr_dead)
		return -EUCLEAN;
	return 0;
}

u32 tier_mem_slots_for(u32 size_mb, u32 extent_shift)
{
	u32 shift = extent_shift + 9; /* log2(extent bytes) */
	u64 n = ((u64)size_mb << 20) >> shift;

	return n >= TIER_MEM_NONE ? TIER_MEM_NONE - 1 : (u32)n;
}
