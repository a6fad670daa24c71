// SPDX-License-Identifier: GPL-2.0
/*
 * dm-tier-memtier.c - the volatile memory tier (mechanism): clean copies of
 * extents in pages of one NUMA node (a CXL memory expander is a CPU-less
 * node). The bookkeeping (slots, states, generations, eviction order) is
 * kernel/core/memtier.c; this file allocates the pages, fills copies from
 * the extents' homes, serves reads from them and drops them on writes.
 *
 * A copy is never the only one: the home extent on a durable tier is always
 * written first (writes are never absorbed here), and a copy is dropped
 * when a write to its extent completes (end_io) or the extent is discarded.
 * Migration between durable tiers keeps copies: the data does not change
 * while an extent moves (writes are parked), and fills count themselves in
 * the I/O epoch like remapped bios, so the home they read is not reused
 * before they finish.
 *
 * Locking: mt->lock (spinlock, irq-safe) protects the slot table, the fill
 * ring and the flags below; it is a leaf lock, taken in bio completion (a
 * write to an extent that has a copy or a fill), in map() (a read miss
 * that queues a fill) and under pool->lock (never the other way round).
 * A read hit takes no lock: a reference on its slot (core/memtier.h).
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/delay.h>

#include "dm-tier-memtier.h"
#include "dm-tier-pool.h"
#include "dm-tier-debug.h"
#include "core/memtier.h"

#define TIER_MEM_RING 256 /* fill requests queued at most */
#define TIER_MEM_ADD_BATCH 1024 /* frames added per hold of mt->lock */

#define TIER_MEM_MSG_SHORT \
	"memory tier: NUMA node %u could not supply %u MiB (got %llu MiB); lower mem_size_mb"
#define TIER_MEM_MSG_NODE \
	"memory tier: NUMA node %u is not online or has no memory"
#define TIER_MEM_MSG_RESIDENT \
	"memory tier: %llu resident extents do not fit %u MiB; unpin first"
#define TIER_MEM_GFP \
	(GFP_KERNEL | __GFP_THISNODE | __GFP_NORETRY | __GFP_NOWARN)

struct tier_memtier {
	struct tier_pool *pool;
	u32 node;
	u32 size_mb;
	u32 ppe; /* pages per extent */

	spinlock_t lock; /* see the top of the file */
	struct tier_mem core;
	u64 ring[TIER_MEM_RING]; /* extents to fill */
	u32 ring_head;
	u32 ring_len;
	bool warm; /* the fill work looks for resident extents to fill */
	bool paused; /* suspended or not active yet: no fill I/O */

	struct workqueue_struct *wq;
	struct work_struct fill_work;
};

/*
 * Messages with numbers for ti->error and the "set" message, which only
 * take a pointer: formatted into a static buffer. Two constructors failing
 * at the same moment may see each other's text; the log line (DMERR) of
 * each is exact.
 */
static char tier_mem_errbuf[192];

static const char *tier_mem_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(tier_mem_errbuf, sizeof(tier_mem_errbuf), fmt, ap);
	va_end(ap);
	DMERR("%s", tier_mem_errbuf);
	return tier_mem_errbuf;
}

/* ---- pages --------------------------------------------------------------- */

static void tier_mem_frame_free(struct tier_memtier *mt, struct page **frame)
{
	u32 i;

	if (!frame)
		return;
	for (i = 0; i < mt->ppe; i++)
		if (frame[i])
			__free_page(frame[i]);
	kvfree(frame);
}

/* One extent's pages, all from mt->node; NULL when it cannot supply them. */
static struct page **tier_mem_frame_alloc(struct tier_memtier *mt, u64 *pages)
{
	struct page **frame;
	u32 i;

	frame = kvcalloc(mt->ppe, sizeof(*frame), GFP_KERNEL);
	if (!frame)
		return NULL;
	for (i = 0; i < mt->ppe; i++) {
		/* __GFP_THISNODE: never another node's memory. */
		frame[i] = alloc_pages_node(mt->node, TIER_MEM_GFP, 0);
		if (!frame[i]) {
			tier_mem_frame_free(mt, frame);
			return NULL;
		}
		(*pages)++;
	}
	return frame;
}

/*
 * Add frames until the tier has @target slots with pages. The pages are
 * allocated first, without the lock; they are then given to slots in
 * batches of TIER_MEM_ADD_BATCH per hold of mt->lock (IRQs are off while
 * it is held), each slot found in amortised O(1) by
 * tier_mem_first_absent(), so the whole is linear in @target. Slots
 * added by an earlier batch may already take copies.
 * Return: 0, -ENOMEM (every frame allocated here is freed again), -EINTR.
 */
static int tier_mem_grow(struct tier_memtier *mt, u32 target, const char **err)
{
	struct tier_mem_slot **chunks = NULL;
	struct page ***frames;
	u32 have, need, i, s;
	u64 pages = 0, visits;
	int r = 0, c;

	spin_lock_irq(&mt->lock);
	have = mt->core.nr_present;
	visits = mt->core.absent_visits;
	spin_unlock_irq(&mt->lock);
	if (target <= have)
		return 0;
	need = target - have;
	frames = kvcalloc(need, sizeof(*frames), GFP_KERNEL);
	if (!frames) {
		*err = "memory tier: cannot allocate its page table";
		return -ENOMEM;
	}
	for (i = 0; i < need; i++) {
		frames[i] = tier_mem_frame_alloc(mt, &pages);
		if (!frames[i]) {
			u64 got = ((u64)have * mt->ppe + pages) << PAGE_SHIFT;
			u64 want = ((u64)target * mt->ppe) << PAGE_SHIFT;

			*err = tier_mem_err(TIER_MEM_MSG_SHORT, mt->node,
					    (u32)(want >> 20), got >> 20);
			r = -ENOMEM;
			goto bad;
		}
		if (fatal_signal_pending(current)) {
			*err = "memory tier: interrupted while allocating";
			r = -EINTR;
			i++;
			goto bad;
		}
		cond_resched();
	}
	if (mt->core.nr_slots < target) {
		/* Growth is serialised (tier_pools_mutex): nr_chunks holds. */
		c = tier_mem_chunks_needed(&mt->core, target);
		if (WARN_ON_ONCE(c < 0)) {
			*err = "memory tier: mem_size_mb is above its maximum";
			r = -EINVAL;
			goto bad;
		}
		chunks = tier_mem_chunks_alloc(c);
		if (!chunks) {
			*err = "memory tier: cannot allocate its slot table";
			r = -ENOMEM;
			goto bad;
		}
		/* New chunks only: no slot moves, readers go on meanwhile. */
		spin_lock_irq(&mt->lock);
		tier_mem_extend(&mt->core, target, chunks);
		spin_unlock_irq(&mt->lock);
		tier_free_array(chunks);
	}
	for (i = 0; i < need && !r;) {
		u32 end = min(need, i + TIER_MEM_ADD_BATCH);

		spin_lock_irq(&mt->lock);
		for (; i < end; i++) {
			s = tier_mem_first_absent(&mt->core);
			/* Cannot happen: the slots were counted above. */
			r = tier_mem_add(&mt->core, s, frames[i]);
			if (WARN_ON_ONCE(r))
				break;
			frames[i] = NULL;
		}
		if (i == need)
			visits = mt->core.absent_visits - visits;
		spin_unlock_irq(&mt->lock);
		cond_resched();
	}
	if (r)
		*err = "memory tier: its slot table is inconsistent";
	else
		/* The cost of the slot search, for VM 049 (dynamic debug). */
		DMDEBUG("%s: memory tier gave %u frames to slots in %llu slot visits",
			tier_pool_log_name(mt->pool), need, visits);
	i = need; /* frees what was not added */
bad:
	while (i--)
		tier_mem_frame_free(mt, frames[i]);
	kvfree(frames);
	return r;
}

/* ---- creation ------------------------------------------------------------ */

struct tier_memtier *tier_memtier_create(struct tier_pool *pool, u32 node,
					 u32 size_mb, char **error)
{
	struct tier_memtier *mt;
	const char *err = NULL;
	u32 slots;
	int r;

	if (node >= MAX_NUMNODES || !node_online(node) ||
	    !node_state(node, N_MEMORY)) {
		*error = (char *)tier_mem_err(TIER_MEM_MSG_NODE, node);
		return ERR_PTR(-EINVAL);
	}
	slots = tier_mem_slots_for(size_mb, pool->extent_shift);
	if (!slots) {
		*error = "memory tier: mem_size_mb is smaller than one extent";
		return ERR_PTR(-EINVAL);
	}
	mt = kzalloc(sizeof(*mt), GFP_KERNEL);
	if (!mt) {
		*error = "memory tier: cannot allocate its state";
		return ERR_PTR(-ENOMEM);
	}
	mt->pool = pool;
	mt->node = node;
	mt->size_mb = size_mb;
	mt->ppe = (pool->extent_sectors << SECTOR_SHIFT) >> PAGE_SHIFT;
	mt->paused = true;
	spin_lock_init(&mt->lock);
	INIT_WORK(&mt->fill_work, tier_memtier_fill_work);
	r = tier_mem_init(&mt->core, pool->virt_extents, slots,
			  tier_mem_slots_for(TIER_MEM_SIZE_MB_MAX,
					     pool->extent_shift));
	if (r) {
		*error = "memory tier: cannot allocate its slot table";
		goto bad;
	}
	mt->wq = alloc_workqueue("dm-tier-mem-%s", WQ_MEM_RECLAIM | WQ_UNBOUND,
				 1, pool->tier_name[0]);
	if (!mt->wq) {
		*error = "memory tier: cannot create its workqueue";
		r = -ENOMEM;
		goto bad;
	}
	/* The whole cap up front: what the node cannot give fails now. */
	r = tier_mem_grow(mt, slots, &err);
	if (r) {
		*error = (char *)err;
		goto bad;
	}
	DMINFO("%s: memory tier of %u MiB (%u extents) on NUMA node %u",
	       tier_pool_log_name(pool), size_mb, slots, node);
	return mt;
bad:
	tier_memtier_destroy(mt);
	return ERR_PTR(r);
}

void tier_memtier_destroy(struct tier_memtier *mt)
{
	u32 s;

	if (!mt)
		return;
	if (mt->wq) {
		spin_lock_irq(&mt->lock);
		mt->paused = true;
		spin_unlock_irq(&mt->lock);
		cancel_work_sync(&mt->fill_work);
		destroy_workqueue(mt->wq);
	}
	for (s = 0; s < mt->core.nr_slots; s++)
		tier_mem_frame_free(mt, tier_mem_frame(&mt->core, s));
	tier_mem_destroy(&mt->core);
	kfree(mt);
}

bool tier_memtier_same(const struct tier_memtier *mt, u32 node, u32 size_mb)
{
	if (!mt)
		return node == TIER_MEM_NODE_NONE;
	return mt->node == node && mt->size_mb == size_mb;
}

/* ---- fills --------------------------------------------------------------- */

static void tier_mem_heat_in(struct tier_pool *pool, struct tier_mem_heat *h)
{
	h->words = pool->map.words;
	h->now = tier_clock_now(pool);
	h->window = READ_ONCE(pool->cfg.promote_window);
}

/* Queue a fill of @v. Under mt->lock. */
static void tier_mem_queue_locked(struct tier_memtier *mt, struct tier_vext v,
				  bool resident)
{
	if (mt->ring_len == TIER_MEM_RING) {
		/* Full: a later read asks again; residents come from a scan. */
		if (resident)
			mt->warm = true;
	} else {
		mt->ring[(mt->ring_head + mt->ring_len) % TIER_MEM_RING] = v.v;
		mt->ring_len++;
	}
	if (!mt->paused)
		queue_work(mt->wq, &mt->fill_work);
}

/* Read the home extent @loc into @frame. */
static int tier_mem_read_home(struct tier_memtier *mt, struct page **frame,
			      const struct tier_loc *loc)
{
	struct tier_pool *pool = mt->pool;
	sector_t sector = tier_pext_to_sector(pool->data_start[loc->tier],
					      pool->extent_shift, loc->pext, 0);
	u32 i = 0, k, n;
	int r = 0;

	while (i < mt->ppe && !r) {
		struct bio *bio;

		n = min_t(u32, mt->ppe - i, BIO_MAX_VECS);
		bio = bio_alloc(pool->tier_bdev[loc->tier], n, REQ_OP_READ,
				GFP_NOIO);
		bio->bi_iter.bi_sector =
			sector + ((sector_t)i << (PAGE_SHIFT - SECTOR_SHIFT));
		for (k = 0; k < n; k++)
			__bio_add_page(bio, frame[i + k], PAGE_SIZE, 0);
		r = submit_bio_wait(bio);
		bio_put(bio);
		i += n;
	}
	return r;
}

/*
 * Copy extent @v from its home into a slot. The slot is claimed before the
 * map word is read: a write that completed before the claim is already in
 * the map (end_io runs after its mapping was published or switched), and
 * one that completes after it marks the slot stale, so the publish fails.
 * The read is counted in the I/O epoch (read in the same RCU section as the
 * map word, as map() does), so the home is not reused by another extent
 * until it ends.
 */
static void tier_mem_fill(struct tier_memtier *mt, struct tier_vext v)
{
	struct tier_pool *pool = mt->pool;
	struct page **frame;
	struct tier_mem_heat h;
	struct tier_loc loc;
	unsigned int epoch;
	bool mapped, counted;
	u32 s, gen;
	u64 word;
	int r;

	word = READ_ONCE(pool->map.words[v.v]);
	/*
	 * Not from an offline tier, as map() and migration do not read one:
	 * each try would count an error, and on a hung path (NVMe-oF) the
	 * read would hold its I/O epoch, so every quiesce, until it ends.
	 */
	if (READ_ONCE(pool->mode) == TIER_MODE_FAIL ||
	    !tier_mw_decode(word, &loc) || tier_offline(pool, loc.tier))
		return;
	tier_mem_heat_in(pool, &h);
	spin_lock_irq(&mt->lock);
	s = tier_mem_claim(&mt->core, v, loc.flags & TIER_EXT_F_MEMRES, &h,
			   &gen);
	frame = s != TIER_MEM_NONE ? tier_mem_frame(&mt->core, s) : NULL;
	spin_unlock_irq(&mt->lock);
	if (!frame)
		return;
	/*
	 * The claim (slot_of) before the map word and the home's read: pairs
	 * with the barrier in tier_mem_drop_copy(). Either a write's
	 * completion sees the claim and marks the fill stale, or this fill
	 * reads the home after that write completed.
	 */
	smp_mb();

	rcu_read_lock();
	word = READ_ONCE(pool->map.words[v.v]);
	mapped = tier_mw_decode(word, &loc);
	epoch = READ_ONCE(pool->io_epoch);
	tier_dbg_epoch_window();
	if (mapped) {
		atomic_inc(&pool->inflight[epoch & 1]);
		tier_dbg_check_count(pool, epoch);
	}
	rcu_read_unlock();

	counted = mapped;
	r = mapped ? tier_mem_read_home(mt, frame, &loc) : -ENOENT;
	if (r && counted && r != -ENOMEM)
		tier_note_io_error(pool, loc.tier, errno_to_blk_status(r));
	else if (!r)
		tier_note_io_ok(pool, loc.tier); /* ends a run of errors */

	spin_lock_irq(&mt->lock);
	mapped = READ_ONCE(pool->map.words[v.v]) & TIER_MW_MAPPED;
	tier_mem_publish(&mt->core, s, gen, !r, mapped);
	spin_unlock_irq(&mt->lock);
	if (counted && atomic_dec_and_test(&pool->inflight[epoch & 1]))
		wake_up(&pool->drain_wait);
}

/* Fill every resident extent that has no copy (activation, pin). */
static void tier_mem_warm(struct tier_memtier *mt)
{
	struct tier_pool *pool = mt->pool;
	u64 v, word;

	for (v = 0; v < pool->virt_extents; v++) {
		word = READ_ONCE(pool->map.words[v]);
		if ((word & TIER_MW_MAPPED) &&
		    tier_mw_has_flags(word, TIER_EXT_F_MEMRES) &&
		    READ_ONCE(mt->core.slot_of[v]) == TIER_MEM_NONE)
			tier_mem_fill(mt, tier_vext(v));
		if (!(v & 1023)) {
			if (READ_ONCE(mt->paused))
				return;
			cond_resched();
		}
	}
}

void tier_memtier_fill_work(struct work_struct *ws)
{
	struct tier_memtier *mt =
		container_of(ws, struct tier_memtier, fill_work);
	struct tier_pool *pool = mt->pool;
	struct tier_vext v;

	for (;;) {
		spin_lock_irq(&mt->lock);
		if (mt->paused) {
			spin_unlock_irq(&mt->lock);
			return;
		}
		if (mt->warm) {
			mt->warm = false;
			spin_unlock_irq(&mt->lock);
			tier_mem_warm(mt);
			continue;
		}
		if (!mt->ring_len) {
			spin_unlock_irq(&mt->lock);
			return;
		}
		v = tier_vext(mt->ring[mt->ring_head]);
		mt->ring_head = (mt->ring_head + 1) % TIER_MEM_RING;
		mt->ring_len--;
		spin_unlock_irq(&mt->lock);
		tier_dbg_fill_delay();
		/*
		 * Queued before a shrink (the work was paused across it, the
		 * entries kept): past the new end there is nothing to fill.
		 */
		if (v.v >= READ_ONCE(pool->virt_extents))
			continue;
		if (READ_ONCE(mt->core.slot_of[v.v]) == TIER_MEM_NONE)
			tier_mem_fill(mt, v);
		cond_resched();
	}
}

void tier_memtier_start(struct tier_pool *pool)
{
	struct tier_memtier *mt = pool->mem;

	if (!mt)
		return;
	spin_lock_irq(&mt->lock);
	mt->paused = false;
	mt->warm = true; /* resident pins are copied in again */
	spin_unlock_irq(&mt->lock);
	queue_work(mt->wq, &mt->fill_work);
}

void tier_memtier_stop(struct tier_pool *pool)
{
	struct tier_memtier *mt = pool->mem;

	if (!mt)
		return;
	spin_lock_irq(&mt->lock);
	mt->paused = true;
	spin_unlock_irq(&mt->lock);
	cancel_work_sync(&mt->fill_work);
}

/* ---- the data path ------------------------------------------------------- */

/*
 * A read of a mapped extent: serve it from the copy when there is one.
 *
 * The copy runs here, in map(): it is a memcpy at memory bandwidth (a bio
 * holds at most one extent, map() trims it), never sleeps, and costs less
 * than a hand-off to a workqueue and back, which would add two context
 * switches to every hit. The slot's reference keeps an eviction or a
 * write from reusing the pages mid-copy (the slot is DEAD until put).
 */
bool tier_memtier_read(struct tier_pool *pool, struct bio *bio,
		       struct tier_vext v, sector_t offset)
{
	struct tier_memtier *mt = READ_ONCE(pool->mem);
	struct tier_pcpu_stats *st;
	struct page **frame;
	struct bvec_iter iter;
	struct bio_vec bv;
	size_t pos = (size_t)offset << SECTOR_SHIFT;
	u32 s;

	if (!mt)
		return false;
	/* Lockless: a reference on the slot (core/memtier.h). */
	s = tier_mem_get(&mt->core, v);
	if (s == TIER_MEM_NONE)
		return false;
	frame = tier_mem_frame(&mt->core, s);

	bio_for_each_segment(bv, bio, iter) {
		u32 done = 0;

		while (done < bv.bv_len) {
			u32 soff = offset_in_page(pos);
			u32 n = min_t(u32, bv.bv_len - done, PAGE_SIZE - soff);
			void *src = kmap_local_page(frame[pos >> PAGE_SHIFT]);

			memcpy_to_page(bv.bv_page, bv.bv_offset + done,
				       src + soff, n);
			kunmap_local(src);
			done += n;
			pos += n;
		}
	}

	tier_mem_put(&mt->core, s);
	st = get_cpu_ptr(pool->stats);
	st->mem_hits++;
	put_cpu_ptr(pool->stats);
	return true;
}

void tier_memtier_read_miss(struct tier_pool *pool, struct tier_vext v)
{
	struct tier_memtier *mt = READ_ONCE(pool->mem);
	struct tier_pcpu_stats *st;
	unsigned long flags;

	if (!mt)
		return;
	st = get_cpu_ptr(pool->stats);
	st->mem_misses++;
	put_cpu_ptr(pool->stats);
	/* Heat was just updated by this read (tier_heat_note()). */
	if (!tier_mem_promote_due(&mt->core, v,
				  tier_mw_heat(READ_ONCE(pool->map.words[v.v])),
				  READ_ONCE(pool->cfg.mem_promote_hits)))
		return;
	spin_lock_irqsave(&mt->lock, flags);
	tier_mem_queue_locked(mt, v, false);
	spin_unlock_irqrestore(&mt->lock, flags);
}

/* Drop @v's copy; a resident extent that is still mapped is copied again. */
static void tier_mem_drop_copy(struct tier_pool *pool, struct tier_memtier *mt,
			       struct tier_vext v)
{
	unsigned long flags;
	u64 word;

	/*
	 * Most written extents have no copy: no lock for them. The write
	 * has completed; the barrier orders that before the look at
	 * slot_of, and pairs with the one in tier_mem_fill() after a claim.
	 */
	smp_mb();
	if (READ_ONCE(mt->core.slot_of[v.v]) == TIER_MEM_NONE)
		return;
	spin_lock_irqsave(&mt->lock, flags);
	if (tier_mem_invalidate(&mt->core, v, NULL)) {
		word = READ_ONCE(pool->map.words[v.v]);
		if ((word & TIER_MW_MAPPED) &&
		    tier_mw_has_flags(word, TIER_EXT_F_MEMRES))
			tier_mem_queue_locked(mt, v, true);
	}
	spin_unlock_irqrestore(&mt->lock, flags);
}

void tier_memtier_written(struct tier_pool *pool, struct tier_vext v)
{
	struct tier_memtier *mt = READ_ONCE(pool->mem);

	if (mt && v.v < pool->virt_extents)
		tier_mem_drop_copy(pool, mt, v);
}

void tier_memtier_discard(struct tier_pool *pool, u64 first, u64 last)
{
	struct tier_memtier *mt = READ_ONCE(pool->mem);
	u64 v;

	if (!mt)
		return;
	for (v = first; v <= last && v < pool->virt_extents; v++)
		tier_mem_drop_copy(pool, mt, tier_vext(v));
}

/* ---- settings, pins, stats ----------------------------------------------- */

/* Mark the slots of first..last resident or not, a batch per lock hold. */
static void tier_mem_mark_resident(struct tier_memtier *mt, u64 first, u64 last,
				   bool resident)
{
	u64 v = first, n;

	while (v <= last) {
		spin_lock_irq(&mt->lock);
		for (n = 0; n < 4096 && v <= last; n++, v++)
			tier_mem_set_resident(&mt->core, tier_vext(v),
					      resident);
		spin_unlock_irq(&mt->lock);
		cond_resched();
	}
}

/* Resident (memory-pinned) extents in the map. */
static u64 tier_mem_count_resident(struct tier_pool *pool)
{
	u64 v, n = 0, word;

	for (v = 0; v < pool->virt_extents; v++) {
		word = READ_ONCE(pool->map.words[v]);
		if ((word & TIER_MW_MAPPED) &&
		    tier_mw_has_flags(word, TIER_EXT_F_MEMRES))
			n++;
		if (!(v & 65535))
			cond_resched();
	}
	return n;
}

/* Take pages away until @target slots remain. */
static int tier_mem_shrink(struct tier_memtier *mt, u32 target,
			   const char **err)
{
	struct tier_mem_heat h;
	int tries = 1000;
	void *frame;
	u32 s;

	for (;;) {
		tier_mem_heat_in(mt->pool, &h);
		spin_lock_irq(&mt->lock);
		if (mt->core.nr_present <= target) {
			spin_unlock_irq(&mt->lock);
			return 0;
		}
		s = tier_mem_remove_one(&mt->core, &h, &frame);
		spin_unlock_irq(&mt->lock);
		if (s != TIER_MEM_NONE) {
			tier_mem_frame_free(mt, frame);
			cond_resched();
			continue;
		}
		/* Copies being filled or read: they end shortly. */
		if (!--tries) {
			*err = "memory tier: copies stay busy; try again";
			return -EBUSY;
		}
		usleep_range(1000, 2000);
	}
}

int tier_memtier_resize(struct tier_pool *pool, u32 size_mb, const char **err)
{
	struct tier_memtier *mt = pool->mem;
	u64 res;
	u32 slots;
	int r;

	lockdep_assert_held(&tier_pools_mutex);
	if (!mt) {
		*err = TIER_MSG_NO_MEM;
		return -EINVAL;
	}
	slots = tier_mem_slots_for(size_mb, pool->extent_shift);
	if (!slots) {
		*err = "memory tier: mem_size_mb is smaller than one extent";
		return -EINVAL;
	}
	if (slots >= mt->core.nr_present) {
		r = tier_mem_grow(mt, slots, err);
	} else {
		res = tier_mem_count_resident(pool);
		if (res > slots) {
			*err = tier_mem_err(TIER_MEM_MSG_RESIDENT, res,
					    size_mb);
			return -ENOSPC;
		}
		r = tier_mem_shrink(mt, slots, err);
	}
	if (r)
		return r;
	mt->size_mb = size_mb;
	DMINFO("%s: memory tier resized to %u MiB (%u extents)",
	       tier_pool_log_name(pool), size_mb, slots);
	return 0;
}

int tier_memtier_pin(struct tier_pool *pool, u64 first, u64 last, bool pin,
		     u64 *mapped, const char **err)
{
	struct tier_memtier *mt = pool->mem;
	u64 v, word, adding = 0;

	lockdep_assert_held(&tier_pools_mutex);
	*mapped = 0;
	if (!mt) {
		*err = "the device has no memory tier";
		return -EINVAL;
	}
	for (v = first; v <= last; v++) {
		word = READ_ONCE(pool->map.words[v]);
		if ((word & TIER_MW_MAPPED) &&
		    !tier_mw_has_flags(word, TIER_EXT_F_MEMRES))
			adding++;
		if (!(v & 65535))
			cond_resched();
	}
	if (tier_mem_count_resident(pool) + adding > mt->core.nr_present) {
		*err = "the memory tier is full of resident pins; unpin some or raise mem_size_mb";
		return -ENOSPC;
	}
	if (tier_set_ext_flags(pool, first, last, TIER_EXT_F_MEMRES, 0, mapped))
		tier_request_commit(pool);
	tier_mem_mark_resident(mt, first, last, true);
	spin_lock_irq(&mt->lock);
	mt->warm = true;
	if (!mt->paused)
		queue_work(mt->wq, &mt->fill_work);
	spin_unlock_irq(&mt->lock);
	return 0;
}

void tier_memtier_unpin(struct tier_pool *pool, u64 first, u64 last)
{
	struct tier_memtier *mt = pool->mem;

	if (mt)
		tier_mem_mark_resident(mt, first, last, false);
}

void tier_memtier_stats(struct tier_pool *pool, struct tier_stats *st)
{
	struct tier_memtier *mt = pool->mem;
	u64 ebytes = (u64)pool->extent_sectors << SECTOR_SHIFT;

	lockdep_assert_held(&pool->lock);
	if (!mt)
		return;
	st->mem = true;
	st->mem_node = mt->node;
	st->mem_size_mb = mt->size_mb;
	st->mem_bytes_max = (u64)mt->size_mb << 20;
	spin_lock(&mt->lock);
	st->mem_slots = mt->core.nr_present;
	st->mem_bytes_used = (u64)mt->core.nr_present * ebytes;
	st->mem_copies = mt->core.nr_valid;
	st->mem_fills = mt->core.fills;
	st->mem_evictions = mt->core.evictions;
	st->mem_invalidations = mt->core.invalidations;
	spin_unlock(&mt->lock);
}
