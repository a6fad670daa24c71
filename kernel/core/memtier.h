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
 * Readers take no lock. Each slot has a reference word, @ref: the OPEN bit
 * (set exactly while the slot is VALID) and the count of readers copying
 * from it. tier_mem_get() adds a reader only while OPEN is set (a
 * compare-and-exchange), then checks that the slot still holds the extent
 * it looked up; tier_mem_put() is one atomic decrement. Whoever drops a
 * copy clears OPEN; a copy dropped while read becomes DEAD and is reaped
 * (made FREE) by a later claim or shrink once its readers are gone, so a
 * reader never needs the lock. Eviction closes a slot only if it has no
 * reader (compare-and-exchange of OPEN to 0), so a reader's pages are
 * never handed to another extent.
 *
 * The slots live in chunks of TIER_MEM_CHUNK that never move: growing the
 * table adds chunks, so a lockless reader's slot stays where it looked it
 * up, and growing costs no copy under the lock. The chunk pointers sit in
 * an array sized at init for the largest table the tier may grow to.
 *
 * Every other call is serialised by the caller on one struct tier_mem (the
 * mechanism holds its memory-tier spinlock).
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
 * @ref:       TIER_MEM_OPEN (while VALID) | readers copying from the slot.
 * @gen:       bumped at every claim and invalidation; a fill publishes only
 *             if it is unchanged since its claim.
 * @next_free: next FREE slot (or next DEAD one), or TIER_MEM_NONE.
 * @state:     enum tier_mem_state.
 * @resident:  the extent is pinned to memory: never evicted.
 * @stale:     FILLING: a write or discard overtook the fill.
 */
struct tier_mem_slot {
	u64 vext;
	void *frame;
	atomic_t ref;
	u32 gen;
	u32 next_free;
	u8 state;
	bool resident;
	bool stale;
};

/* @ref's bit that lets readers in: the slot is VALID (an int, as @ref). */
#define TIER_MEM_OPEN ((int)BIT(30))

/* Slots per chunk (a chunk never moves once allocated). */
#define TIER_MEM_CHUNK_SHIFT 10
#define TIER_MEM_CHUNK ((u32)BIT(TIER_MEM_CHUNK_SHIFT))

/**
 * struct tier_mem - the slot table.
 * @nr_extents:    virtual extents of the device.
 * @slot_of:       per virtual extent, its FILLING or VALID slot or
 *                 TIER_MEM_NONE.
 * @chunks:        @max_chunks pointers to chunks of TIER_MEM_CHUNK slots;
 *                 the first @nr_chunks are allocated.
 * @max_slots:     the most slots the table may grow to.
 * @max_chunks:    chunks @max_slots need.
 * @nr_chunks:     chunks allocated.
 * @nr_slots:      slots in the table (those of the chunks, or fewer).
 * @nr_present:    slots that are not ABSENT (the tier's capacity).
 * @free_head:     first FREE slot, or TIER_MEM_NONE.
 * @nr_free:       FREE slots.
 * @dead_head:     first DEAD slot (dropped while read), or TIER_MEM_NONE.
 * @nr_dead:       DEAD slots.
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
	struct tier_mem_slot **chunks;
	u32 max_slots;
	u32 max_chunks;
	u32 nr_chunks;
	u32 nr_slots;
	u32 nr_present;
	u32 free_head;
	u32 nr_free;
	u32 dead_head;
	u32 nr_dead;
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
 * @max_slots:  the most slots the table may grow to (tier_mem_extend()),
 *              >= @nr_slots; sizes the chunk pointers (8 bytes per
 *              TIER_MEM_CHUNK slots).
 *
 * Context: process, may sleep (allocates 4 bytes per extent).
 * Return: 0, -EINVAL, -ENOMEM.
 */
int tier_mem_init(struct tier_mem *m, u64 nr_extents, u32 nr_slots,
		  u32 max_slots);

/**
 * tier_mem_slot() - slot @s.
 * @m: the table.
 * @s: a slot, < @m->nr_slots (from the table: slot_of, a claim, a get).
 *
 * Context: any; lockless readers too (chunks never move).
 * Return: the slot.
 */
static inline struct tier_mem_slot *tier_mem_slot(const struct tier_mem *m,
						  u32 s)
{
	struct tier_mem_slot *chunk =
		READ_ONCE(m->chunks[s >> TIER_MEM_CHUNK_SHIFT]);

	return &chunk[s & (TIER_MEM_CHUNK - 1)];
}

/**
 * tier_mem_frame() - the pages of slot @s.
 * @m: the table.
 * @s: a slot the caller holds (a reference from tier_mem_get(), or FILLING
 *     from its claim).
 *
 * Context: any.
 * Return: the mechanism's frame.
 */
static inline void *tier_mem_frame(const struct tier_mem *m, u32 s)
{
	return tier_mem_slot(m, s)->frame;
}

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
 * tier_mem_chunks_needed() - chunks to allocate before the table can hold
 * @n slots.
 * @m: the table.
 * @n: slots wanted.
 *
 * Context: any; the caller serialises growth (nr_chunks is stable).
 * Return: how many chunks (tier_mem_chunks_alloc()) tier_mem_extend() takes,
 * or -EINVAL when @n is above init's @max_slots or below @m->nr_slots.
 */
int tier_mem_chunks_needed(const struct tier_mem *m, u32 n);

/**
 * tier_mem_chunks_alloc() - @n chunks of TIER_MEM_CHUNK ABSENT slots, for
 * tier_mem_extend().
 * @n: chunks (tier_mem_chunks_needed()); 0 gives an empty array.
 *
 * Context: process, may sleep.
 * Return: an array of @n chunks (free the array with tier_free_array()
 * once tier_mem_extend() took them), or NULL with nothing allocated.
 */
struct tier_mem_slot **tier_mem_chunks_alloc(u32 n);

/**
 * tier_mem_extend() - grow the table to @n slots; the new ones are ABSENT.
 * @m:      the table.
 * @n:      slots, as given to tier_mem_chunks_needed().
 * @chunks: the chunks it asked for, all taken (installed in order).
 *
 * Context: any; caller serialises. O(new chunks): no slot moves.
 */
void tier_mem_extend(struct tier_mem *m, u32 n, struct tier_mem_slot **chunks);

/**
 * tier_mem_get() - take a reader's reference on @v's copy.
 * @m: the table.
 * @v: virtual extent, < @m->nr_extents.
 *
 * Context: any, no lock needed (lockless against every other call).
 * Return: the VALID slot, its pages stable until tier_mem_put(), or
 * TIER_MEM_NONE (no copy, or it is being dropped or filled).
 */
u32 tier_mem_get(const struct tier_mem *m, struct tier_vext v);

/**
 * tier_mem_get_slot() - tier_mem_get() after its look-up: take a reference
 * on slot @s if it is VALID and holds @v (it may have been dropped and
 * given to another extent since @s was read from slot_of).
 * @m: the table.
 * @s: what slot_of held for @v (acquire), possibly TIER_MEM_NONE.
 * @v: virtual extent.
 *
 * Context: any, no lock needed.
 * Return: @s with a reference, or TIER_MEM_NONE.
 */
u32 tier_mem_get_slot(const struct tier_mem *m, u32 s, struct tier_vext v);

/**
 * tier_mem_put() - drop a reader's reference. A copy dropped meanwhile
 * (DEAD) is reaped once its readers are gone, by a later claim or shrink.
 * @m: the table.
 * @s: a slot from tier_mem_get().
 *
 * Context: any, no lock needed.
 */
void tier_mem_put(const struct tier_mem *m, u32 s);

/**
 * tier_mem_reap() - make FREE every DEAD slot that no reader holds now.
 * @m: the table.
 *
 * Context: any; caller serialises. O(DEAD slots).
 * Return: slots made FREE.
 */
u32 tier_mem_reap(struct tier_mem *m);

/*
 * Candidates tier_mem_victim() compares per eviction. The caller holds a
 * lock with interrupts off; a scan of every slot would cost O(slots) per
 * fill (a million slots for 1 TiB of 1 MiB extents).
 */
#define TIER_MEM_VICTIM_SAMPLE 32

/**
 * tier_mem_victim() - the copy eviction would drop: of the next
 * TIER_MEM_VICTIM_SAMPLE evictable slots (VALID, neither resident nor
 * being read; a reader may still come before tier_mem_claim() or
 * tier_mem_remove_one() closes it, which then gives up) from a hand
 * that goes round the table, the coldest (lowest
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
 * nothing can be evicted (every copy resident or being read, or the victim
 * got a reader before it could be closed).
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
