/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memtier.h - bookkeeping of the volatile memory tier (pure: no pages, no
 * I/O, no locks).
 *
 * The memory tier holds clean copies of extents whose home is on a durable
 * tier; it never holds the only copy. It is a table of slots, each able to
 * hold one extent's copy (the mechanism, kernel/dm-tier-memtier.c, keeps the
 * pages of a slot in its opaque @frame). A slot is:
 *
 *   ABSENT   no pages behind it (the tier is smaller than the array);
 *   FREE     pages, no extent; on the free list;
 *   FILLING  claimed for an extent whose data is being read from its home;
 *   VALID    holds a copy identical to the home's data; readers may take
 *            a reference (@users) and copy from it;
 *   DEAD     dropped (write, discard, eviction) while readers still copy
 *            from it; becomes FREE when the last reader puts it.
 *
 * Races between a fill and a write are settled at publish time: a write
 * (or discard) that completes while a fill is in flight marks the FILLING
 * slot stale and bumps its generation; tier_mem_publish() then refuses to
 * make it VALID, so data read before the write is never served.
 *
 * The caller serialises every call on one struct tier_mem (the mechanism
 * holds its memory-tier spinlock).
 */
#ifndef DM_TIER_CORE_MEMTIER_H
#define DM_TIER_CORE_MEMTIER_H

#include "tier-internal.h"
#include "format.h"
#include "extent_map.h"
#include "policy.h"

#define TIER_MEM_NONE U32_MAX /* no slot */

/* Settings (table keys mem_node, mem_size_mb, mem_promote_hits). */
#define TIER_MEM_NODE_NONE U32_MAX /* no memory tier */
#define TIER_MEM_NODE_MAX 1023
#define TIER_MEM_SIZE_MB_MAX 1048576 /* 1 TiB */
/* TIER_MEM_PROMOTE_HITS_DEF/_MAX are in policy.h (a policy setting). */

/* enum tier_mem_state - see the top of this file. */
enum tier_mem_state {
	TIER_MEM_ABSENT = 0,
	TIER_MEM_FREE,
	TIER_MEM_FILLING,
	TIER_MEM_VALID,
	TIER_MEM_DEAD,
};

/**
 * struct tier_mem_slot - one slot.
 * @vext:      the extent (FILLING, VALID, DEAD).
 * @frame:     the mechanism's pages; NULL while ABSENT.
 * @gen:       bumped at every claim and invalidation; a fill publishes only
 *             if it is unchanged since its claim.
 * @users:     readers copying from the slot (VALID, DEAD).
 * @next_free: next FREE slot, or TIER_MEM_NONE.
 * @state:     enum tier_mem_state.
 * @resident:  the extent is pinned to memory: never evicted.
 * @stale:     FILLING: a write or discard overtook the fill.
 */
struct tier_mem_slot {
	u64 vext;
	void *frame;
	u32 gen;
	u32 users;
	u32 next_free;
	u8 state;
	bool resident;
	bool stale;
};

/**
 * struct tier_mem - the slot table.
 * @nr_extents:    virtual extents of the device.
 * @slot_of:       per virtual extent, its FILLING or VALID slot or
 *                 TIER_MEM_NONE.
 * @slots:         the slots.
 * @nr_slots:      entries in @slots.
 * @nr_present:    slots that are not ABSENT (the tier's capacity).
 * @free_head:     first FREE slot, or TIER_MEM_NONE.
 * @nr_free:       FREE slots.
 * @nr_valid:      VALID slots (copies).
 * @nr_resident:   FILLING or VALID slots of resident extents.
 * @fills:         copies published.
 * @evictions:     copies dropped for room.
 * @invalidations: copies (or fills in flight) dropped by writes/discards.
 * @absent_hint:   every slot below it has pages (not ABSENT): where
 *                 tier_mem_first_absent() starts looking.
 * @absent_visits: slots tier_mem_first_absent() looked at, ever (its cost,
 *                 for tests).
 * @victim_hand:   where tier_mem_victim() looks next.
 * @victim_visits: slots tier_mem_victim() looked at, ever (for tests).
 */
struct tier_mem {
	u64 nr_extents;
	u32 *slot_of;
	struct tier_mem_slot *slots;
	u32 nr_slots;
	u32 nr_present;
	u32 free_head;
	u32 nr_free;
	u32 nr_valid;
	u32 nr_resident;
	u32 absent_hint;
	u64 fills;
	u64 evictions;
	u64 invalidations;
	u64 absent_visits;
	u32 victim_hand;
	u64 victim_visits;
};

/**
 * struct tier_mem_heat - what eviction order depends on: the map words
 * (heat and access time, TIER_MW_*) and the heat clock.
 * @words:  the map's words, per virtual extent.
 * @now:    heat clock now.
 * @window: promote_window (heat half-life).
 */
struct tier_mem_heat {
	const u64 *words;
	u32 now;
	u32 window;
};

/**
 * tier_mem_init() - an empty table of @nr_slots ABSENT slots.
 * @m:          out; zeroed on failure.
 * @nr_extents: virtual extents, >= 1.
 * @nr_slots:   slots, >= 1.
 *
 * Context: process, may sleep (allocates 4 bytes per extent).
 * Return: 0, -EINVAL, -ENOMEM.
 */
int tier_mem_init(struct tier_mem *m, u64 nr_extents, u32 nr_slots);

/**
 * tier_mem_destroy() - free the table (not the frames).
 * @m: the table; may be zeroed.
 *
 * Context: process.
 */
void tier_mem_destroy(struct tier_mem *m);

/**
 * tier_mem_add() - give an ABSENT slot its pages; it becomes FREE.
 * @m:     the table.
 * @s:     an ABSENT slot.
 * @frame: its pages, not NULL.
 *
 * Context: any; caller serialises.
 * Return: 0, -EINVAL when @s is not ABSENT or @frame is NULL.
 */
int tier_mem_add(struct tier_mem *m, u32 s, void *frame);

/**
 * tier_mem_first_absent() - the lowest ABSENT slot, for tier_mem_add().
 * @m: the table.
 *
 * The search starts at @m->absent_hint and leaves it at the slot found, so
 * giving n slots their pages in a row (tier_mem_first_absent(), then
 * tier_mem_add()) visits O(n + slots) slots in all, not O(n * slots).
 *
 * Context: any; caller serialises.
 * Return: the slot, or TIER_MEM_NONE when every slot has pages.
 */
u32 tier_mem_first_absent(struct tier_mem *m);

/**
 * tier_mem_swap_slots() - move the slots into a larger array.
 * @m:     the table.
 * @slots: zeroed array of @n entries (tier_zalloc_array()).
 * @n:     its length, >= @m->nr_slots.
 *
 * Context: any; caller serialises.
 * Return: the old array for the caller to free (tier_free_array()), or
 * NULL (@slots untouched and not taken) when @n is too small.
 */
struct tier_mem_slot *tier_mem_swap_slots(struct tier_mem *m,
					  struct tier_mem_slot *slots, u32 n);

/**
 * tier_mem_get() - take a reader's reference on @v's copy.
 * @m: the table.
 * @v: virtual extent, < @m->nr_extents.
 *
 * Context: any; caller serialises.
 * Return: the VALID slot (put it with tier_mem_put()), or TIER_MEM_NONE.
 */
u32 tier_mem_get(struct tier_mem *m, struct tier_vext v);

/**
 * tier_mem_put() - drop a reader's reference; a DEAD slot whose last reader
 * left becomes FREE.
 * @m: the table.
 * @s: a slot from tier_mem_get().
 *
 * Context: any; caller serialises.
 */
void tier_mem_put(struct tier_mem *m, u32 s);

/*
 * Candidates tier_mem_victim() compares per eviction. The caller holds a
 * lock with interrupts off; a scan of every slot would cost O(slots) per
 * fill (a million slots for 1 TiB of 1 MiB extents).
 */
#define TIER_MEM_VICTIM_SAMPLE 32

/**
 * tier_mem_victim() - the copy eviction would drop: of the next
 * TIER_MEM_VICTIM_SAMPLE evictable slots (VALID, neither resident nor
 * being read) from a hand that goes round the table, the coldest (lowest
 * heat decayed to now, then oldest access). The hand stops after them, so
 * successive evictions sample the whole table in turn (a sampled CLOCK);
 * with no more evictable slots than the sample, it is the coldest of all.
 * @m: the table; its hand moves.
 * @h: heat inputs.
 *
 * Context: any; caller serialises. About TIER_MEM_VICTIM_SAMPLE slot
 * visits while most slots are evictable; O(slots) at worst, when nearly
 * none are (every one resident or being read).
 * Return: the slot, or TIER_MEM_NONE when no slot is evictable.
 */
u32 tier_mem_victim(struct tier_mem *m, const struct tier_mem_heat *h);

/**
 * tier_mem_claim() - take a slot to fill with @v's data: a FREE one, else
 * the victim's (an eviction). Only for an extent whose home is mapped
 * (never the only copy; tier_mem_publish() checks again).
 * @m:        the table.
 * @v:        virtual extent, < @m->nr_extents.
 * @resident: @v is pinned to memory.
 * @h:        heat inputs (for eviction).
 * @gen:      out; the slot's generation, for tier_mem_publish().
 *
 * Context: any; caller serialises.
 * Return: the FILLING slot, or TIER_MEM_NONE when @v already has a slot or
 * nothing can be evicted (every copy resident or being read).
 */
u32 tier_mem_claim(struct tier_mem *m, struct tier_vext v, bool resident,
		   const struct tier_mem_heat *h, u32 *gen);

/**
 * tier_mem_publish() - end a fill: the slot becomes VALID only when the
 * read succeeded, the home is still mapped, and no write or discard
 * overtook the fill (same generation, not stale); otherwise it is freed.
 * @m:      the table.
 * @s:      the FILLING slot.
 * @gen:    generation from tier_mem_claim().
 * @ok:     the read of the home succeeded.
 * @mapped: the extent's home is mapped now (a copy never is the only one).
 *
 * Context: any; caller serialises.
 * Return: true when published.
 */
bool tier_mem_publish(struct tier_mem *m, u32 s, u32 gen, bool ok, bool mapped);

/**
 * tier_mem_invalidate() - @v was written or discarded: drop its copy, or
 * mark its fill in flight stale.
 * @m:        the table.
 * @v:        virtual extent, < @m->nr_extents.
 * @resident: out, optional; the dropped slot was resident (the caller fills
 *            it again).
 *
 * Context: any; caller serialises.
 * Return: true when a copy or a fill was dropped (counted).
 */
bool tier_mem_invalidate(struct tier_mem *m, struct tier_vext v,
			 bool *resident);

/**
 * tier_mem_set_resident() - change the resident mark of @v's slot, if any.
 * @m:        the table.
 * @v:        virtual extent, < @m->nr_extents.
 * @resident: new mark.
 *
 * Context: any; caller serialises.
 */
void tier_mem_set_resident(struct tier_mem *m, struct tier_vext v,
			   bool resident);

/**
 * tier_mem_remove_one() - take the pages of one slot away (shrinking): a
 * FREE slot, else the victim's (an eviction). The slot becomes ABSENT.
 * @m:     the table.
 * @h:     heat inputs.
 * @frame: out; the pages to free.
 *
 * Context: any; caller serialises.
 * Return: the slot, or TIER_MEM_NONE when none can go now (resident,
 * filling or being read).
 */
u32 tier_mem_remove_one(struct tier_mem *m, const struct tier_mem_heat *h,
			void **frame);

/**
 * tier_mem_promote_due() - whether a read of @v should give it a copy.
 * @m:    the table.
 * @v:    a mapped virtual extent, < @m->nr_extents.
 * @heat: its heat after this access.
 * @hits: mem_promote_hits.
 *
 * Context: any; lockless callers may see a stale answer (harmless: the
 * claim re-checks).
 * Return: true when @v has no slot and @heat >= @hits.
 */
bool tier_mem_promote_due(const struct tier_mem *m, struct tier_vext v,
			  u16 heat, u32 hits);

/**
 * tier_mem_check() - consistency of the table against the map: slot_of
 * and slots agree, counts match, and every FILLING (not stale) or VALID
 * slot belongs to a mapped extent (never the only copy).
 * @m:     the table.
 * @words: the map words, @m->nr_extents of them, or NULL to skip that part.
 *
 * Context: any; caller serialises. O(extents + slots).
 * Return: 0 or -EUCLEAN.
 */
int tier_mem_check(const struct tier_mem *m, const u64 *words);

/**
 * tier_mem_slots_for() - slots a cap of @size_mb MiB gives.
 * @size_mb:      mem_size_mb.
 * @extent_shift: log2(extent sectors).
 *
 * Context: any.
 * Return: whole extents that fit, capped at U32_MAX - 1.
 */
u32 tier_mem_slots_for(u32 size_mb, u32 extent_shift);

#endif /* DM_TIER_CORE_MEMTIER_H */
