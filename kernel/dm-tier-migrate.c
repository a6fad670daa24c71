// SPDX-License-Identifier: GPL-2.0
/*
 * dm-tier-migrate.c - the migration engine (mechanism).
 *
 * A tick on the pool's ordered workqueue (so it never races the worker, the
 * only other writer of map words) samples tier usage and foreground
 * activity, asks the policy (kernel/core/policy.c) what to move and how
 * fast, and starts copies with the copier (dm-tier-copy.c):
 *
 *   1. under pool->lock: allocate the destination (the reserve may be
 *      used), set TIER_MW_BUSY on the extent: map() keeps sending reads to
 *      the source and hands writes to the worker, which parks them;
 *   2. tier_quiesce_old_io(): writes remapped before the busy mark finish;
 *   3. the copier copies source -> destination;
 *   4. the worker switches the map word to the destination (new writes go
 *      there), frees the source deferred: it is reused only after the commit
 *      that records the switch, which flushes the destination first. A crash
 *      before that commit finds the old mapping and intact source data.
 *
 * A failed copy returns the destination and clears the busy mark.
 */
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "dm-tier-copy.h"
#include "dm-tier-migrate.h"
#include "dm-tier-pool.h"

#define TIER_MIG_TICK_MS 100 /* tick while there is work */
#define TIER_MIG_IDLE_MS 1000 /* tick while idle */
#define TIER_MIG_SCAN_URGENT_MS 1000 /* rescan period while draining */
#define TIER_MIG_SCAN_IDLE_MS 5000 /* rescan period otherwise */
#define TIER_MIG_CAND 512 /* candidates kept per kind and scan */
/*
 * Extents a scan looks at per tick. The tick shares the pool's ordered
 * workqueue with the I/O worker (first writes, flushes, commits): a whole
 * pass over 100 M extents would hold that worker for seconds. A scan in
 * progress re-arms the tick at once, so the worker runs between chunks.
 */
#define TIER_MIG_SCAN_CHUNK 65536
/*
 * Displacement (tier_policy_displace()): candidates kept per role and
 * scan, and swaps planned per scan at most. Scans come every 5 s when
 * nothing drains (never while tier 0 drains), so this also caps the swap
 * rate: a hot set larger than tier 0 cannot make extents thrash.
 */
#define TIER_MIG_SWAP_CAND 16
#define TIER_MIG_SWAPS 8
/*
 * Copy buffers of 512 KiB (dm-tier-copy.h): the default 8 copies of 1 MiB
 * extents in flight, two chunks each. 512 KiB stay allocated while idle.
 */
#define TIER_MIG_COPY_BUFS 16
#define TIER_MIG_SKIPS 65536 /* extents a request skips per lock hold */
#define TIER_MIG_EVAC_PASSES 4 /* map walks of an evacuation, at most */
#define TIER_MIG_FG_WINDOW_MS 250 /* foreground I/O this recent: busy */
#define TIER_MIG_BURST_QUIET_S 2 /* tier 0 not grown this long: burst over */
#define TIER_MIG_UNREADABLE 32 /* extents no automatic move tries again */

/* An extent whose copy could not read its source, and where it was. */
struct tier_mig_unreadable {
	u64 vext;
	u64 pext;
	u32 tier;
};

/*
 * Migration state, one per pool (pool->mig); fields under pool->lock unless
 * noted. The settings are the pool's (pool->cfg).
 */
struct tier_mig {
	struct tier_pool *pool;
	struct tier_policy_plan plan; /* tick only */
	struct tier_policy_cfg tick_cfg; /* tick only: cfg of the last tick */
	/*
	 * Tiers offline at the start of this tick, a bit each; moves from
	 * or to them pause (tier_policy_move_allowed()). Tick only.
	 */
	u32 offline;
	/*
	 * Tiers that take no new extents though online at the start of this
	 * tick (tier_pool_noalloc_mask(): evacuating, held by a loaded table
	 * without them, forgotten): no move to them.
	 */
	u32 noalloc;
	/*
	 * A request stopped because its tier takes no new extents: said by
	 * the tick once it dropped pool->lock, not under it. Tick only.
	 */
	bool evac_stopped;
	u64 evac_stop_vext;
	u32 evac_stop_tier;
	struct tier_copier *copier;
	struct delayed_work tick; /* on pool->wq */
	/*
	 * A batch the tick claimed, handed to copy_work (on pool->qwq), which
	 * quiesces, starts the copies and sets batch_n back to 0; the tick
	 * claims no new batch before.
	 */
	struct work_struct copy_work;
	struct tier_job *batch[TIER_MIG_INFLIGHT_MAX];
	unsigned int batch_n;
	enum tier_copy_mode batch_mode;
	bool running; /* tick armed (resume..postsuspend); pool->lock */
	wait_queue_head_t idle_wait; /* inflight reached 0 */

	/* Candidates of the last scan, sorted; tick only. */
	struct tier_work *cand;
	u32 nr_cand;
	u32 cand_pos;
	unsigned long scan_j;
	/*
	 * The scan in progress, a chunk per tick (tier_mig_scan()): the next
	 * extent to look at, and its four heaps in @cand (nr_cand is 0 while
	 * it runs, so nothing reads them). Tick only; scan_next also under
	 * pool->lock where tier_mig_tiers_changed() and the start reset it.
	 */
	bool scanning;
	u64 scan_next;
	u32 scan_chunks; /* of the pass in progress, for the debug line */
	u64 scan_max_ns; /* its longest chunk */
	struct tier_cand_heap scan_down, scan_up, scan_hot, scan_cold;

	/*
	 * Swaps of the last scan: pairs (demotion of a cold tier-0 extent,
	 * promotion of the hot one that displaces it); tick only. A pair
	 * whose demotion cannot go ahead is dropped whole.
	 */
	struct tier_work *swap;
	u32 nr_swap;
	u32 swap_pos;

	u32 inflight; /* copies in flight */
	u64 out[TIER_MAX_TIERS]; /* copies in flight away from each tier */

	/*
	 * Explicit requests (migrate, pin --tier), FIFO; the head runs
	 * (kernel/core/movq.c). Copies of a manual job are the head's.
	 */
	struct tier_movq movq;

	/* Pacing; tick only. */
	struct tier_pace pace;
	s64 tokens; /* bytes the bandwidth cap allows now */
	unsigned long tick_j;
	u64 fg_ios; /* foreground I/O count at the last tick */
	unsigned long fg_seen_j; /* when that count last changed */
	bool fg_busy;

	/*
	 * Extents whose copy could not read its source: no automatic move
	 * tries them again (each try is one more error against the tier, and
	 * errors in a row take it offline; the policy would pick the same
	 * extent at every scan) while they stay where they were (an entry
	 * whose extent moved or was written elsewhere no longer matches),
	 * until a move of the extent succeeds (a manual one still tries), the
	 * source tier is recovered or renumbered, or the device is activated
	 * again. When full, a new one replaces an old one, round robin: that
	 * one may be tried again.
	 */
	struct tier_mig_unreadable unreadable[TIER_MIG_UNREADABLE];
	u32 nr_unreadable;
	u32 unreadable_next; /* the slot a new one takes when full */

	/* Counters since activation. */
	u64 promotions;
	u64 demotions;
	u64 moved_bytes;
	u64 errors;
	u64 above_high_ms;
	u64 swaps; /* promotions that displaced a tier-0 extent */
};

static void tier_mig_tick(struct work_struct *ws);
static void tier_mig_copy_work(struct work_struct *ws);

/*
 * Run the tick after @delay if it is armed (between resume and
 * postsuspend). mg->running is read and the tick queued under pool->lock,
 * so once tier_mig_stop() cleared it nothing re-arms the tick.
 */
static void tier_mig_kick(struct tier_pool *pool, unsigned long delay)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	if (pool->mig->running)
		mod_delayed_work(pool->wq, &pool->mig->tick, delay);
	spin_unlock_irqrestore(&pool->lock, flags);
}

/* ---- settings and state ---------------------------------------------- */

int tier_mig_init(struct tier_pool *pool, char **error)
{
	struct tier_mig *mg;

	mg = kzalloc(sizeof(*mg), GFP_KERNEL);
	if (!mg) {
		*error = "Cannot allocate the migration state";
		return -ENOMEM;
	}
	pool->mig = mg;
	mg->pool = pool;
	tier_movq_init(&mg->movq);
	tier_policy_plan_init(&mg->plan, pool->nr_tiers);
	init_waitqueue_head(&mg->idle_wait);
	INIT_DELAYED_WORK(&mg->tick, tier_mig_tick);
	INIT_WORK(&mg->copy_work, tier_mig_copy_work);
	/* The two candidate lists, the displacement ones, the swaps. */
	mg->cand = kvcalloc(2 * TIER_MIG_CAND + 2 * TIER_MIG_SWAP_CAND +
				    2 * TIER_MIG_SWAPS,
			    sizeof(*mg->cand), GFP_KERNEL);
	if (!mg->cand) {
		*error = "Cannot allocate the migration state";
		return -ENOMEM;
	}
	mg->copier = tier_copier_create(TIER_MIG_COPY_BUFS);
	if (IS_ERR(mg->copier)) {
		int r = PTR_ERR(mg->copier);

		mg->copier = NULL;
		*error = "Cannot create the copier for migrations";
		return r;
	}
	mg->swap = mg->cand + 2 * TIER_MIG_CAND + 2 * TIER_MIG_SWAP_CAND;
	mg->tick_j = jiffies;
	mg->fg_seen_j = jiffies - HZ;
	return 0;
}

void tier_mig_teardown(struct tier_pool *pool)
{
	struct tier_mig *mg = pool->mig;

	/*
	 * The copier is the last thing tier_mig_init() makes: without it the
	 * pool was never complete, never resumed, the tick never armed.
	 */
	if (!mg || !mg->copier)
		return;
	spin_lock_irq(&pool->lock);
	mg->running = false;
	spin_unlock_irq(&pool->lock);
	cancel_delayed_work_sync(&mg->tick);
	/* A claimed batch starts its copies first. */
	flush_work(&mg->copy_work);
	/* Waits for copies in flight; their completions queue the worker. */
	tier_copier_destroy(mg->copier);
	mg->copier = NULL;
	/*
	 * The device goes: what is queued ends as cancelled, one event each
	 * (sent before dev-del). Late completions find no head.
	 */
	spin_lock_irq(&pool->lock);
	if (tier_movq_cancel_all(&mg->movq))
		tier_event(pool, DM_TIER_EVENT_MIGRATION_DONE, 0);
	spin_unlock_irq(&pool->lock);
}

void tier_mig_destroy(struct tier_pool *pool)
{
	struct tier_mig *mg = pool->mig;

	if (!mg)
		return;
	kvfree(mg->cand);
	kfree(mg);
	pool->mig = NULL;
}

void tier_mig_set_cfg(struct tier_pool *pool, const struct tier_policy_cfg *cfg)
{
	/* The tick notices the change and drops its candidates. */
	spin_lock_irq(&pool->lock);
	pool->cfg = *cfg;
	spin_unlock_irq(&pool->lock);
	tier_mig_kick(pool, 0);
}

int tier_mig_request(struct tier_pool *pool, u32 kind, u64 first, u64 last,
		     u32 tier, u32 *id)
{
	struct tier_mig *mg = pool->mig;
	int r;

	if (pool->read_only)
		return -EROFS;
	spin_lock_irq(&pool->lock);
	/*
	 * Here, not only in the caller: the numbers must be those of the
	 * list the request is queued in, and a held tier leaves at the next
	 * resume (no request may name it then: tier_mig_tiers_renumber()).
	 */
	if (tier >= pool->nr_tiers)
		r = -EINVAL;
	else if (test_bit(tier, &pool->noalloc_hold))
		r = -ENOSPC;
	else
		r = tier_movq_push(&mg->movq, kind, first, last, tier, id);
	spin_unlock_irq(&pool->lock);
	if (!r)
		tier_mig_kick(pool, 0);
	return r;
}

/* The queued evacuation of @tier, not being cancelled, or NULL. Under lock. */
static struct tier_move *tier_mig_find_evac(struct tier_movq *q, u32 tier)
{
	struct tier_move *m;
	u32 i;

	for (i = 0; (m = tier_movq_at(q, i)); i++)
		if (m->kind == TIER_MOVE_EVACUATE && m->tier == tier &&
		    m->state != TIER_MOVE_CANCELLING)
			return m;
	return NULL;
}

int tier_mig_evacuate(struct tier_pool *pool, u32 tier, u32 pref, u32 *id,
		      u64 *missing)
{
	struct tier_mig *mg = pool->mig;
	u64 free[TIER_MAX_TIERS];
	struct tier_move *m;
	u32 i, blocked;
	int r;

	*missing = 0;
	if (pool->read_only)
		return -EROFS;
	spin_lock_irq(&pool->lock);
	/* The list may have changed since the caller checked (a message). */
	if (tier >= pool->nr_tiers) {
		spin_unlock_irq(&pool->lock);
		return -EINVAL;
	}
	if (pref >= pool->nr_tiers)
		pref = TIER_MOVE_NO_PREF;
	m = tier_mig_find_evac(&mg->movq, tier);
	if (m) {
		/* Asked again with a destination: the next extents go there. */
		if (pref != TIER_MOVE_NO_PREF)
			m->pref = pref;
		*id = m->id;
		spin_unlock_irq(&pool->lock);
		return 0;
	}
	/*
	 * Nor do held or forgotten tiers take anything: their room is no
	 * room (the claims would fail until the request ends).
	 */
	blocked = tier_pool_offline_mask(pool) | tier_pool_noalloc_mask(pool);
	for (i = 0; i < pool->nr_tiers; i++) {
		const struct tier_alloc *a = &pool->alloc[i];
		/* Extents freed but awaiting a commit are room too. */
		u64 n = tier_alloc_free_count(a) + a->nr_pending +
			a->nr_committing;

		free[i] = n > a->reserve ? n - a->reserve : 0;
	}
	r = tier_policy_evac_room(pool->nr_tiers, tier, blocked, free,
				  pool->mapped[tier], missing);
	if (!r)
		r = tier_movq_push(&mg->movq, TIER_MOVE_EVACUATE, 0,
				   pool->virt_extents - 1, tier, id);
	if (!r) {
		tier_movq_find(&mg->movq, *id)->pref = pref;
		pool->evac |= BIT(tier);
		tier_pool_sync_noalloc(pool);
	}
	spin_unlock_irq(&pool->lock);
	if (!r)
		tier_mig_kick(pool, 0);
	return r;
}

u32 tier_mig_evacuate_stop(struct tier_pool *pool, u32 tier)
{
	struct tier_mig *mg = pool->mig;
	struct tier_move *m;
	u32 n = 0, before;

	spin_lock_irq(&pool->lock);
	before = mg->movq.res_nr;
	while ((m = tier_mig_find_evac(&mg->movq, tier))) {
		tier_movq_cancel(&mg->movq, m->id);
		n++;
	}
	if (mg->movq.res_nr != before)
		tier_event(pool, DM_TIER_EVENT_MIGRATION_DONE, 0);
	pool->evac &= ~BIT(tier);
	tier_pool_sync_noalloc(pool);
	spin_unlock_irq(&pool->lock);
	if (n)
		tier_mig_kick(pool, 0);
	return n;
}

/*
 * End the head request while it is over (its range looked at, stopped or
 * cancelled, no copy in flight): one migration-done event per request,
 * whose outcome the event sender takes from the result ring. Under lock.
 */
static void tier_mig_manual_check(struct tier_pool *pool)
{
	if (tier_movq_reap(&pool->mig->movq))
		tier_event(pool, DM_TIER_EVENT_MIGRATION_DONE, 0);
}

int tier_mig_cancel(struct tier_pool *pool, u32 id)
{
	struct tier_mig *mg = pool->mig;
	u32 before;
	int r;

	spin_lock_irq(&pool->lock);
	before = mg->movq.res_nr;
	r = tier_movq_cancel(&mg->movq, id);
	if (!r && mg->movq.res_nr != before)
		tier_event(pool, DM_TIER_EVENT_MIGRATION_DONE, 0);
	spin_unlock_irq(&pool->lock);
	if (!r)
		tier_mig_kick(pool, 0);
	return r;
}

u32 tier_mig_queued(struct tier_pool *pool)
{
	lockdep_assert_held(&pool->lock);
	return pool->mig->movq.nr;
}

bool tier_mig_copies_held(struct tier_pool *pool)
{
	lockdep_assert_held(&pool->lock);
	return pool->mig->inflight;
}

bool tier_mig_list_blocker(struct tier_pool *pool, u32 pos,
			   struct tier_move *out)
{
	const struct tier_move *m;
	u8 table[TIER_MAX_TIERS];

	lockdep_assert_held(&pool->lock);
	if (tier_map_renumber_table(pool->nr_tiers, false, pos, table))
		return false;
	m = tier_movq_renumber_blocker(&pool->mig->movq, table, pool->nr_tiers);
	if (m)
		*out = *m;
	return m;
}

void tier_mig_tiers_renumber(struct tier_pool *pool, bool insert, u32 pos,
			     u32 old_n)
{
	struct tier_mig *mg = pool->mig;
	u8 table[TIER_MAX_TIERS];
	/* Outcomes added, dropped ones too (a full ring drops the oldest). */
	u64 before = mg->movq.res_nr + mg->movq.res_dropped;
	u32 id = 0;
	int r;

	lockdep_assert_held(&pool->lock);
	/* postsuspend waited for every copy: no job holds an old number. */
	WARN_ON_ONCE(mg->inflight);
	/* Its tier numbers are the old ones: tried again from now on. */
	mg->nr_unreadable = 0;
	mg->unreadable_next = 0;
	r = tier_map_renumber_table(old_n, insert, pos, table);
	if (!r)
		r = tier_movq_renumber(&mg->movq, table, old_n, &id);
	if (WARN_ON_ONCE(r)) {
		/* Never run a request with numbers of the old list. */
		DMERR("%s: moves cannot follow the tier list (%d, move %u): cancelled",
		      tier_pool_log_name(pool), r, id);
		tier_movq_cancel_all(&mg->movq);
	}
	if (mg->movq.res_nr + mg->movq.res_dropped != before)
		tier_event(pool, DM_TIER_EVENT_MIGRATION_DONE, 0);
}

void tier_mig_tiers_changed(struct tier_pool *pool)
{
	struct tier_mig *mg = pool->mig;

	spin_lock_irq(&pool->lock);
	tier_policy_plan_init(&mg->plan, pool->nr_tiers);
	mg->nr_cand = 0;
	mg->cand_pos = 0;
	mg->scanning = false;
	mg->nr_swap = 0;
	mg->swap_pos = 0;
	memset(mg->out, 0, sizeof(mg->out));
	spin_unlock_irq(&pool->lock);
}

u32 tier_mig_moves(struct tier_pool *pool, struct tier_move *out)
{
	struct tier_mig *mg = pool->mig;
	struct tier_move *m;
	u32 n;

	spin_lock_irq(&pool->lock);
	for (n = 0; (m = tier_movq_at(&mg->movq, n)); n++)
		out[n] = *m;
	spin_unlock_irq(&pool->lock);
	return n;
}

u64 tier_mig_move_left(struct tier_pool *pool, const struct tier_move *m)
{
	/* An evacuation has left what is still mapped on its tier. */
	if (m->kind == TIER_MOVE_EVACUATE && m->tier < pool->nr_tiers)
		return READ_ONCE(pool->mapped[m->tier]);
	return tier_move_left(m);
}

bool tier_mig_pop_result(struct tier_pool *pool, struct tier_move_result *res)
{
	bool r;

	spin_lock_irq(&pool->lock);
	r = tier_movq_pop_result(&pool->mig->movq, res);
	spin_unlock_irq(&pool->lock);
	return r;
}

/* ---- copies -------------------------------------------------------- */

/* @v carries a pin now. Under lock. */
static bool tier_mig_pinned(struct tier_pool *pool, struct tier_vext v)
{
	struct tier_loc cur;

	return tier_map_lookup(&pool->map, v, &cur) &&
	       (cur.flags & TIER_EXT_F_PINNED);
}

/* The slot of @v in the unreadable set, or nr_unreadable. Under lock. */
static u32 tier_mig_unreadable_slot(const struct tier_mig *mg, u64 v)
{
	u32 i;

	for (i = 0; i < mg->nr_unreadable; i++)
		if (mg->unreadable[i].vext == v)
			break;
	return i;
}

/* Drop slot @i of the unreadable set. Under lock. */
static void tier_mig_unreadable_drop(struct tier_mig *mg, u32 i)
{
	mg->unreadable[i] = mg->unreadable[--mg->nr_unreadable];
	if (mg->unreadable_next >= mg->nr_unreadable)
		mg->unreadable_next = 0;
}

/*
 * Whether automatic moves leave @v alone: its copy failed reading it where
 * it still is (@loc, its current location). Under lock.
 */
static bool tier_mig_unreadable(const struct tier_mig *mg, u64 v,
				const struct tier_loc *loc)
{
	u32 i = tier_mig_unreadable_slot(mg, v);

	return i < mg->nr_unreadable && mg->unreadable[i].tier == loc->tier &&
	       mg->unreadable[i].pext == loc->pext.p;
}

/*
 * @v's copy failed reading its source @src (@src set) or @v moved (@src
 * NULL). Under lock.
 */
static void tier_mig_note_unreadable(struct tier_mig *mg, u64 v,
				     const struct tier_loc *src)
{
	u32 i = tier_mig_unreadable_slot(mg, v);

	if (!src) {
		if (i < mg->nr_unreadable)
			tier_mig_unreadable_drop(mg, i);
		return;
	}
	if (i == mg->nr_unreadable) {
		if (mg->nr_unreadable < TIER_MIG_UNREADABLE) {
			mg->nr_unreadable++;
		} else {
			i = mg->unreadable_next;
			mg->unreadable_next = (i + 1) % TIER_MIG_UNREADABLE;
		}
	}
	mg->unreadable[i].vext = v;
	mg->unreadable[i].pext = src->pext.p;
	mg->unreadable[i].tier = src->tier;
}

void tier_mig_tier_recovered(struct tier_pool *pool, u32 tier)
{
	struct tier_mig *mg = pool->mig;
	u32 i = 0;

	spin_lock_irq(&pool->lock);
	while (i < mg->nr_unreadable) {
		if (mg->unreadable[i].tier == tier)
			tier_mig_unreadable_drop(mg, i);
		else
			i++;
	}
	spin_unlock_irq(&pool->lock);
}

bool tier_mig_draining(struct tier_pool *pool, u32 tier)
{
	struct tier_mig *mg = pool->mig;

	return mg && tier < TIER_MAX_TIERS &&
	       READ_ONCE(mg->plan.draining[tier]);
}

void tier_mig_done(struct tier_pool *pool, struct tier_job *job)
{
	struct tier_mig *mg = pool->mig;
	bool failed = job->status != BLK_STS_OK;
	bool idle, refill, nospc;

	spin_lock_irq(&pool->lock);
	mg->inflight--;
	mg->out[job->src.tier]--;
	/* A mapping switched now could not be committed: keep the source. */
	if (!failed && pool->mode != TIER_MODE_WRITE)
		failed = true;
	/*
	 * Pinned while this automatic copy was in flight (a pin sets the flag
	 * after it queued its request): the pin decides where the extent
	 * lives, so the copy is dropped (not an error) and the extent stays
	 * where the pin's request found it.
	 */
	if (!failed && !job->manual && tier_mig_pinned(pool, job->vext))
		failed = true;
	/*
	 * Into a tier that stopped taking extents while the copy was in
	 * flight (an evacuation began, a table without it was loaded, it was
	 * forgotten): switching now would put the extent where nothing may
	 * go, behind an evacuation's walk. Dropped; the source stays.
	 */
	nospc = !failed && (tier_pool_noalloc_mask(pool) & BIT(job->loc.tier));
	if (nospc)
		failed = true;
	if (job->manual) {
		/* None after teardown emptied the queue. */
		struct tier_move *m = tier_movq_at(&mg->movq, 0);

		if (m && m->inflight) {
			m->inflight--;
			if (!failed)
				m->moved++;
			else if (job->src_unreadable)
				m->copy_errors++; /* the rest is still tried */
			else if (job->status && !m->err)
				m->err = -EIO; /* the destination fails: stop */
			else if (nospc && !m->err)
				m->err = -ENOSPC; /* not "done": not moved */
		}
		tier_mig_manual_check(pool);
	}
	if (failed) {
		tier_alloc_unget(&pool->alloc[job->loc.tier], job->loc.pext);
		tier_map_set_busy(&pool->map, job->vext, false);
		tier_job_end(pool, job);
		if (job->status)
			mg->errors++;
		if (job->src_unreadable)
			tier_mig_note_unreadable(mg, job->vext.v, &job->src);
	} else {
		if (mg->nr_unreadable)
			tier_mig_note_unreadable(mg, job->vext.v, NULL);
		tier_switch_extent(pool, job);
		if (job->loc.tier < job->src.tier)
			mg->promotions++;
		else
			mg->demotions++;
		mg->moved_bytes += pool->extent_sectors << SECTOR_SHIFT;
	}
	idle = !mg->inflight;
	/* Refill in batches: each batch costs one quiesce. */
	refill = mg->inflight <= mg->pace.max_inflight / 2;
	spin_unlock_irq(&pool->lock);
	if (failed && job->status)
		DMERR_LIMIT("%s: extent %llu stays on tier %u: copy failed",
			    tier_pool_log_name(pool), job->vext.v,
			    job->src.tier);
	tier_job_free(pool, job);
	if (idle)
		wake_up(&mg->idle_wait);
	/* More can start now. */
	if (refill)
		tier_mig_kick(pool, 0);
}

/* The copier's completion: hand the job to the worker. */
static void tier_mig_copied(int read_err, unsigned long write_err,
			    void *context)
{
	struct tier_job *job = context;
	struct tier_pool *pool = job->pool;
	unsigned long flags;

	job->status = (read_err || write_err) ? BLK_STS_IOERR : BLK_STS_OK;
	job->src_unreadable = read_err && !write_err;
	/* A copy's I/O counts as any other: a success ends a run of errors. */
	if (read_err)
		tier_note_io_error(pool, job->src.tier, BLK_STS_IOERR);
	else
		tier_note_io_ok(pool, job->src.tier);
	if (write_err)
		tier_note_io_error(pool, job->loc.tier, BLK_STS_IOERR);
	else if (!read_err)
		tier_note_io_ok(pool, job->loc.tier);
	/* Before the switch: the commit flushes the destination first. */
	tier_mark_written(pool, job->loc.tier);
	spin_lock_irqsave(&pool->lock, flags);
	list_move_tail(&job->list, &pool->done);
	spin_unlock_irqrestore(&pool->lock, flags);
	tier_wake_worker(pool);
}

static void tier_mig_copy(struct tier_pool *pool, struct tier_job *job,
			  enum tier_copy_mode mode)
{
	struct dm_io_region from = {
		.bdev = pool->tier_bdev[job->src.tier],
		.sector = tier_pext_to_sector(pool->data_start[job->src.tier],
					      pool->extent_shift, job->src.pext,
					      0),
		.count = pool->extent_sectors,
	};
	struct dm_io_region to = {
		.bdev = pool->tier_bdev[job->loc.tier],
		.sector = tier_pext_to_sector(pool->data_start[job->loc.tier],
					      pool->extent_shift, job->loc.pext,
					      0),
		.count = pool->extent_sectors,
	};

	tier_copy(pool->mig->copier, &job->copy, &from, &to, mode,
		  tier_mig_copied, job);
}

/* ---- choosing work --------------------------------------------------- */

/* Policy view of the allocators: counts as they will be once copies and
 * pending frees settle, so that a drain does not overshoot. Under lock.
 */
static void tier_mig_usage(struct tier_pool *pool, struct tier_usage *u)
{
	u32 i;

	for (i = 0; i < pool->nr_tiers; i++) {
		const struct tier_alloc *a = &pool->alloc[i];
		u64 settling =
			a->nr_pending + a->nr_committing + pool->mig->out[i];

		u[i].total = a->nr_extents;
		u[i].used = a->nr_used > settling ? a->nr_used - settling : 0;
		u[i].free_all = tier_alloc_free_count(a);
		u[i].free = u[i].free_all > a->reserve ?
				    u[i].free_all - a->reserve :
				    0;
	}
}

/*
 * One chunk of a pass over the map (TIER_MIG_SCAN_CHUNK extents), keeping
 * the best candidates of each kind; the first chunk starts the pass, the
 * last publishes its candidates and swaps. Chunks see the map as it is
 * when they run: whatever changed behind the cursor is re-checked when a
 * candidate is used (tier_mig_next_auto(), tier_mig_swap_valid()).
 * Tick only. Return: true when the pass is complete.
 */
static bool tier_mig_scan(struct tier_pool *pool,
			  const struct tier_policy_cfg *cfg)
{
	struct tier_mig *mg = pool->mig;
	u32 now = tier_clock_now(pool);
	struct tier_work *sw = mg->cand + 2 * TIER_MIG_CAND;
	struct tier_work w;
	struct tier_loc loc;
	u64 v, end, word, t0 = ktime_get_ns();
	u16 heat;
	u32 atime;

	if (!mg->scanning) {
		tier_cand_init(&mg->scan_down, mg->cand, TIER_MIG_CAND);
		tier_cand_init(&mg->scan_up, mg->cand + TIER_MIG_CAND,
			       TIER_MIG_CAND);
		tier_cand_init(&mg->scan_hot, sw, TIER_MIG_SWAP_CAND);
		tier_cand_init(&mg->scan_cold, sw + TIER_MIG_SWAP_CAND,
			       TIER_MIG_SWAP_CAND);
		mg->nr_cand = 0;
		mg->cand_pos = 0;
		mg->scan_next = 0;
		mg->scan_chunks = 0;
		mg->scan_max_ns = 0;
		mg->scanning = true;
	}
	/* The map's size changes only while the tick is stopped. */
	end = min_t(u64, pool->virt_extents,
		    mg->scan_next + TIER_MIG_SCAN_CHUNK);
	for (v = mg->scan_next; v < end; v++) {
		word = READ_ONCE(pool->map.words[v]);
		if (!tier_mw_decode(word, &loc) || (word & TIER_MW_BUSY))
			continue;
		heat = tier_mw_heat(word);
		atime = tier_mw_atime(word, now);
		switch (tier_policy_classify(cfg, &mg->plan, tier_vext(v), &loc,
					     heat, atime, now, &w)) {
		case TIER_WORK_DEMOTE:
			if (tier_policy_move_allowed(mg->offline, mg->noalloc,
						     w.from, w.to))
				tier_cand_offer(&mg->scan_down, &w);
			break;
		case TIER_WORK_PROMOTE:
			if (tier_policy_move_allowed(mg->offline, mg->noalloc,
						     w.from, w.to))
				tier_cand_offer(&mg->scan_up, &w);
			break;
		default:
			/* Nothing plain to do: maybe a swap. */
			switch (tier_policy_displace(cfg, &mg->plan,
						     tier_vext(v), &loc, heat,
						     atime, now, &w)) {
			case TIER_WORK_PROMOTE:
				tier_cand_offer(&mg->scan_hot, &w);
				break;
			case TIER_WORK_DEMOTE:
				tier_cand_offer(&mg->scan_cold, &w);
				break;
			default:
				break;
			}
			break;
		}
		if (!(v & 8191))
			cond_resched();
	}
	mg->scan_next = end;
	mg->scan_chunks++;
	mg->scan_max_ns = max(mg->scan_max_ns, ktime_get_ns() - t0);
	if (end < pool->virt_extents)
		return false;
	mg->scanning = false;
	/* For VM 014: the pass was cut into chunks, and what each cost. */
	DMDEBUG("%s: map scan of %llu extents in %u chunks, longest %llu us",
		tier_pool_log_name(pool), end, mg->scan_chunks,
		div_u64(mg->scan_max_ns, NSEC_PER_USEC));
	tier_cand_sort(&mg->scan_down);
	tier_cand_sort(&mg->scan_up);
	/* Demotions first: they make room, promotions consume it. */
	memmove(mg->cand + mg->scan_down.nr, mg->scan_up.w,
		mg->scan_up.nr * sizeof(*mg->cand));
	mg->nr_cand = mg->scan_down.nr + mg->scan_up.nr;
	mg->cand_pos = 0;
	tier_cand_sort(&mg->scan_hot);
	tier_cand_sort(&mg->scan_cold);
	mg->nr_swap =
		2 * tier_policy_pair_swaps(mg->scan_hot.w, mg->scan_hot.nr,
					   mg->scan_cold.w, mg->scan_cold.nr,
					   TIER_MIG_SWAPS, mg->swap);
	mg->swap_pos = 0;
	mg->scan_j = jiffies;
	return true;
}

/*
 * @w (a swap item) still applies: its extent is where it was, idle, unpinned
 * and not known unreadable.
 */
static bool tier_mig_swap_valid(struct tier_pool *pool,
				const struct tier_work *w)
{
	u64 word = READ_ONCE(pool->map.words[w->vext]);
	struct tier_loc loc;

	return tier_mw_decode(word, &loc) && !(word & TIER_MW_BUSY) &&
	       !(loc.flags & TIER_EXT_F_PINNED) && loc.tier == w->from &&
	       !tier_mig_unreadable(pool->mig, w->vext, &loc) &&
	       tier_policy_move_allowed(pool->mig->offline, pool->mig->noalloc,
					w->from, w->to);
}

/*
 * The next half of a planned swap, or false. A pair starts only when both
 * of its extents are still as planned; its promotion follows only when its
 * demotion was claimed (@drop_pair: the tick could not claim it). Tick
 * only, under lock.
 */
static bool tier_mig_next_swap(struct tier_pool *pool, bool drop_pair,
			       struct tier_work *w)
{
	struct tier_mig *mg = pool->mig;

	if (drop_pair && mg->swap_pos & 1)
		mg->swap_pos++;
	while (mg->swap_pos < mg->nr_swap) {
		const struct tier_work *s = &mg->swap[mg->swap_pos];

		if (!(mg->swap_pos & 1) &&
		    (!tier_mig_swap_valid(pool, &s[0]) ||
		     !tier_mig_swap_valid(pool, &s[1]))) {
			mg->swap_pos += 2;
			continue;
		}
		if ((mg->swap_pos & 1) && !tier_mig_swap_valid(pool, s)) {
			mg->swap_pos++;
			continue;
		}
		*w = *s;
		mg->swap_pos++;
		return true;
	}
	return false;
}

/*
 * The next extent of the running evacuation @m (the head) and where it
 * goes (tier_policy_evac_dest()), or false. When no allowed tier has room
 * the item names the fastest allowed one, whose claim fails: the tick then
 * waits for a commit's frees or ends the request with ENOSPC. With no
 * allowed tier at all (offline), it pauses. Tick only, under lock.
 */
static bool tier_mig_next_evac(struct tier_pool *pool, struct tier_move *m,
			       struct tier_work *w)
{
	struct tier_mig *mg = pool->mig;
	u32 skips = TIER_MIG_SKIPS, i, full = 0;
	u32 blocked = mg->offline | mg->noalloc;
	u64 free[TIER_MAX_TIERS];
	struct tier_loc loc;
	u64 word;
	int to;

	while (m->state == TIER_MOVE_RUNNING && !m->err && m->next <= m->last) {
		word = READ_ONCE(pool->map.words[m->next]);
		if (!tier_mw_decode(word, &loc) || loc.tier != m->tier) {
			m->next++;
			if (!--skips)
				return false;
			continue;
		}
		if (word & TIER_MW_BUSY)
			return false; /* being written or moved: next tick */
		if (mg->offline & BIT(m->tier))
			return false; /* cannot read it: paused */
		for (i = 0; i < pool->nr_tiers; i++) {
			const struct tier_alloc *a = &pool->alloc[i];
			u64 n = tier_alloc_free_count(a);

			free[i] = n > a->reserve ? n - a->reserve : 0;
		}
		to = tier_policy_evac_dest(pool->nr_tiers, m->tier, blocked,
					   free, m->pref, &full);
		if (to == -ENOENT)
			return false; /* every other tier offline: paused */
		if (to < 0)
			to = full; /* its claim fails: commit or ENOSPC */
		w->vext = m->next;
		w->from = loc.tier;
		w->to = to;
		w->kind = w->to < w->from ? TIER_WORK_PROMOTE :
					    TIER_WORK_DEMOTE;
		w->key = 0;
		return true;
	}
	/*
	 * Walked: an automatic copy to the tier that was in flight when the
	 * evacuation began may have landed behind the cursor. Extents left
	 * that no copy is taking away: walk again (a few times at most). Not
	 * after a copy failed reading one: each walk would read it again,
	 * and errors in a row take the tier offline, which pauses the
	 * request for good; it ends failed, what could be read moved.
	 */
	if (m->state == TIER_MOVE_RUNNING && !m->err && !m->copy_errors &&
	    m->passes < TIER_MIG_EVAC_PASSES &&
	    pool->mapped[m->tier] > mg->out[m->tier]) {
		m->passes++;
		m->next = m->first;
		return false;
	}
	tier_mig_manual_check(pool);
	return false;
}

/* Why a request to a tier taking no new extents stopped (log). */
#define TIER_MSG_NOALLOC "takes no new extents (evacuated, or forgotten)"

/*
 * The next item of the head request, or false; a queued head starts here,
 * and one that is over ends (the next starts at the next call). One request
 * runs at a time. Tick only, under lock.
 */
static bool tier_mig_next_manual(struct tier_pool *pool, struct tier_work *w)
{
	struct tier_mig *mg = pool->mig;
	u32 skips = TIER_MIG_SKIPS;
	struct tier_move *m;
	struct tier_loc loc;
	bool mapped;
	u64 word;

	tier_mig_manual_check(pool);
	m = tier_movq_at(&mg->movq, 0);
	if (!m)
		return false;
	if (m->state == TIER_MOVE_QUEUED)
		m->state = TIER_MOVE_RUNNING;
	/*
	 * Never past the map: a shrink's resume swaps in a shorter one, and
	 * a request queued over the old size (refused while suspended, and
	 * a shrink waits for the queue, yet not trusted here) ends at the
	 * new end.
	 */
	if (m->last >= pool->virt_extents)
		m->last = pool->virt_extents - 1;
	if (m->kind == TIER_MOVE_EVACUATE)
		return tier_mig_next_evac(pool, m, w);
	while (m->state == TIER_MOVE_RUNNING && !m->err && m->next <= m->last) {
		word = READ_ONCE(pool->map.words[m->next]);
		/*
		 * Busy before "already there": an extent on the target that
		 * an automatic copy is taking away would otherwise be passed
		 * and land elsewhere behind the cursor.
		 */
		mapped = tier_mw_decode(word, &loc);
		if (mapped && (word & TIER_MW_BUSY))
			return false; /* being written or moved: next tick */
		if (!mapped || loc.tier == m->tier) {
			m->next++;
			/* Bound the time under the lock on sparse ranges. */
			if (!--skips)
				return false;
			continue;
		}
		/*
		 * To a tier being evacuated: it takes nothing until its
		 * evacuation, queued behind this request, has run, so
		 * waiting would block the queue for ever. The request ends
		 * as if the tier were full (ENOSPC: "try later" to tierd).
		 * So does one to a forgotten tier.
		 */
		if (mg->noalloc & BIT(m->tier)) {
			m->err = -ENOSPC;
			tier_mig_manual_check(pool);
			mg->evac_stopped = true;
			mg->evac_stop_vext = m->next;
			mg->evac_stop_tier = m->tier;
			return false;
		}
		/* From or to an offline tier: paused until it is back. */
		if (!tier_policy_move_allowed(mg->offline, mg->noalloc,
					      loc.tier, m->tier))
			return false;
		w->vext = m->next;
		w->from = loc.tier;
		w->to = m->tier;
		w->kind = w->to < w->from ? TIER_WORK_PROMOTE :
					    TIER_WORK_DEMOTE;
		w->key = 0;
		return true;
	}
	tier_mig_manual_check(pool);
	return false;
}

/*
 * The next automatic candidate that still applies, re-checked against the
 * current map and plan. Tick only, under lock.
 */
static bool tier_mig_next_auto(struct tier_pool *pool,
			       const struct tier_policy_cfg *cfg,
			       struct tier_work *w)
{
	struct tier_mig *mg = pool->mig;
	u32 now = tier_clock_now(pool);
	struct tier_loc loc;
	u64 word;

	while (mg->cand_pos < mg->nr_cand) {
		u64 v = mg->cand[mg->cand_pos++].vext;

		word = READ_ONCE(pool->map.words[v]);
		if (!tier_mw_decode(word, &loc) || (word & TIER_MW_BUSY) ||
		    tier_mig_unreadable(mg, v, &loc))
			continue;
		if (tier_policy_classify(cfg, &mg->plan, tier_vext(v), &loc,
					 tier_mw_heat(word),
					 tier_mw_atime(word, now), now,
					 w) != TIER_WORK_NONE &&
		    tier_policy_move_allowed(mg->offline, mg->noalloc, w->from,
					     w->to))
			return true;
	}
	return false;
}

/* What this item does to the plan, so the next ones see it. */
static void tier_mig_account(struct tier_policy_plan *plan,
			     const struct tier_work *w)
{
	if (w->kind == TIER_WORK_DEMOTE) {
		if (plan->demote_need[w->from])
			plan->demote_need[w->from]--;
		if (plan->accept_demote[w->to])
			plan->accept_demote[w->to]--;
	} else {
		if (plan->accept_promote[w->to])
			plan->accept_promote[w->to]--;
	}
}

/*
 * Mark @w's extent busy and take its destination. Under lock.
 * Return: the job, NULL when the destination tier is full (-ENOSPC in *r).
 */
static struct tier_job *tier_mig_claim(struct tier_pool *pool,
				       const struct tier_work *w,
				       struct tier_job *job, bool manual,
				       int *r)
{
	struct tier_mig *mg = pool->mig;
	struct tier_pext p;

	*r = tier_alloc_get(&pool->alloc[w->to], true, &p);
	if (*r)
		return NULL;
	job->pool = pool;
	job->kind = TIER_JOB_MIGRATE;
	job->vext = tier_vext(w->vext);
	tier_map_lookup(&pool->map, job->vext, &job->src);
	job->loc.tier = w->to;
	job->loc.flags = job->src.flags;
	job->loc.pext = p;
	job->manual = manual;
	job->status = BLK_STS_OK;
	job->src_unreadable = false;
	tier_map_set_busy(&pool->map, job->vext, true);
	tier_job_start(pool, job);
	mg->inflight++;
	mg->out[w->from]++;
	if (manual)
		tier_movq_at(&mg->movq, 0)->inflight++;
	return job;
}

/* ---- the tick -------------------------------------------------------- */

static u64 tier_fg_ios(struct tier_pool *pool)
{
	u64 n = 0;
	int cpu;
	u32 i;

	for_each_possible_cpu(cpu) {
		struct tier_pcpu_stats *st = per_cpu_ptr(pool->stats, cpu);

		for (i = 0; i < pool->nr_tiers; i++)
			n += READ_ONCE(st->reads[i]) + READ_ONCE(st->writes[i]);
	}
	return n;
}

static bool tier_mig_scan_due(struct tier_pool *pool, bool urgent)
{
	struct tier_mig *mg = pool->mig;
	u32 ms = urgent ? TIER_MIG_SCAN_URGENT_MS : TIER_MIG_SCAN_IDLE_MS;

	return mg->scanning ||
	       (mg->cand_pos >= mg->nr_cand &&
		time_after_eq(jiffies, mg->scan_j + msecs_to_jiffies(ms)));
}

#define TIER_NEAR_FULL_PCT 95

/*
 * Monitor events of the tiers' usage, once per crossing: watermark-high and
 * watermark-low when a tier starts and stops draining (the plan's
 * hysteresis), near-full above 95% (again after it went back to 95% or
 * below). Tick only.
 */
static void tier_mig_usage_events(struct tier_pool *pool,
				  const struct tier_usage *u,
				  const bool *was_draining)
{
	struct tier_mig *mg = pool->mig;
	u32 i;

	for (i = 0; i < pool->nr_tiers; i++) {
		bool full = u[i].used * 100 > TIER_NEAR_FULL_PCT * u[i].total;

		if (mg->plan.draining[i] && !was_draining[i])
			tier_event(pool, DM_TIER_EVENT_WATERMARK_HIGH, i);
		else if (!mg->plan.draining[i] && was_draining[i])
			tier_event(pool, DM_TIER_EVENT_WATERMARK_LOW, i);
		if (full && !test_and_set_bit(i, &pool->near_full))
			tier_event(pool, DM_TIER_EVENT_NEAR_FULL, i);
		else if (!full)
			clear_bit(i, &pool->near_full);
	}
}

/* Sample usage and activity, update the plan and the pace. Tick only. */
static void tier_mig_sample(struct tier_pool *pool, struct tier_policy_cfg *cfg,
			    bool *urgent)
{
	struct tier_mig *mg = pool->mig;
	struct tier_usage u[TIER_MAX_TIERS];
	struct tier_pace_in in = {};
	unsigned long now = jiffies, window;
	u32 dt_ms = jiffies_to_msecs(now - mg->tick_j);
	bool above_high = false, manual;
	bool was_draining[TIER_MAX_TIERS];
	u64 ios = tier_fg_ios(pool);
	u32 i;

	/*
	 * Busy means foreground I/O within a fixed window, not since the
	 * last tick: a copy completion runs a tick a few ms after the
	 * previous one, and an idle gap that short says nothing.
	 */
	mg->tick_j = now;
	if (ios != mg->fg_ios) {
		mg->fg_ios = ios;
		mg->fg_seen_j = now;
	}
	window = msecs_to_jiffies(TIER_MIG_FG_WINDOW_MS);
	mg->fg_busy = time_before(now, mg->fg_seen_j + window);

	spin_lock_irq(&pool->lock);
	*cfg = pool->cfg;
	tier_mig_usage(pool, u);
	manual = mg->movq.nr;
	in.since_burst = jiffies_to_msecs(now - pool->fg_alloc_j) / 1000;
	spin_unlock_irq(&pool->lock);

	if (memcmp(cfg, &mg->tick_cfg, sizeof(*cfg))) {
		/* New thresholds: the old candidates may no longer apply. */
		mg->tick_cfg = *cfg;
		mg->nr_cand = 0;
		mg->cand_pos = 0;
		mg->scanning = false;
		mg->scan_j = now - msecs_to_jiffies(TIER_MIG_SCAN_IDLE_MS);
	}
	mg->plan.burst = in.since_burst < TIER_MIG_BURST_QUIET_S;
	memcpy(was_draining, mg->plan.draining, sizeof(was_draining));
	tier_policy_update(cfg, u, &mg->plan);
	tier_mig_usage_events(pool, u, was_draining);
	for (i = 0; i + 1 < pool->nr_tiers; i++)
		if (u[i].used * 100 > (u64)cfg->high_watermark * u[i].total)
			above_high = true;
	if (pool->nr_tiers > 1 &&
	    u[0].used * 100 > (u64)cfg->high_watermark * u[0].total)
		mg->above_high_ms += dt_ms;

	/*
	 * An explicit request is not urgent: like a drain, it yields to
	 * foreground I/O unless a tier is above its high watermark.
	 */
	in.urgent = above_high;
	in.fg_busy = mg->fg_busy;
	in.drain_extents = mg->plan.demote_need[0];
	in.extent_bytes = pool->extent_sectors << SECTOR_SHIFT;
	in.work = manual || mg->cand_pos < mg->nr_cand || mg->inflight;
	for (i = 0; i < pool->nr_tiers; i++)
		if (mg->plan.demote_need[i])
			in.work = true;
	/* Promotion and age demotion only show up in a scan. */
	if (cfg->auto_migrate && tier_mig_scan_due(pool, false))
		in.work = true;
	tier_policy_pace(cfg, &in, &mg->pace);

	/* Token bucket for the bandwidth cap: at most a fifth of a second. */
	if (mg->pace.rate) {
		s64 cap = max_t(s64, mg->pace.rate / 5, in.extent_bytes);

		mg->tokens += div_u64(mg->pace.rate * dt_ms, 1000);
		if (mg->tokens > cap)
			mg->tokens = cap;
	} else {
		mg->tokens = 0;
	}
	/* Rescan sooner while a tier drains. */
	*urgent = in.urgent || in.drain_extents;
}

static void tier_mig_tick(struct work_struct *ws)
{
	struct tier_mig *mg =
		container_of(to_delayed_work(ws), struct tier_mig, tick);
	struct tier_pool *pool = mg->pool;
	struct tier_job **batch = mg->batch;
	u64 extent_bytes = pool->extent_sectors << SECTOR_SHIFT;
	struct tier_policy_cfg cfg;
	unsigned int n = 0;
	bool urgent, scanned = false;
	struct tier_job *job;
	struct tier_work w;
	bool swap_failed = false;
	int r;

	if (!READ_ONCE(mg->running))
		return;
	tier_mig_sample(pool, &cfg, &urgent);
	/*
	 * Nothing moves in read-only metadata mode or activation; moves from
	 * or to an offline tier pause, the others go on.
	 */
	if (READ_ONCE(pool->mode) != TIER_MODE_WRITE || pool->read_only)
		goto out;
	/* The last batch still waits for its quiesce: claim nothing yet. */
	if (smp_load_acquire(&mg->batch_n))
		goto out;
	mg->offline = tier_pool_offline_mask(pool);
	mg->noalloc = tier_pool_noalloc_mask(pool);

	/* tier_mig_claim() counts each copy in mg->inflight. */
	while (mg->inflight < mg->pace.max_inflight &&
	       n < ARRAY_SIZE(mg->batch) &&
	       (!mg->pace.rate || mg->tokens > 0)) {
		bool manual, swap = false;

		/* No job now (memory pressure): the next tick tries again. */
		job = tier_job_alloc(pool);
		if (!job)
			break;
		spin_lock_irq(&pool->lock);
		manual = tier_mig_next_manual(pool, &w);
		if (!manual && cfg.auto_migrate) {
			swap = tier_mig_next_swap(pool, swap_failed, &w);
			swap_failed = false;
		}
		if (!manual && !swap && cfg.auto_migrate &&
		    !tier_mig_next_auto(pool, &cfg, &w)) {
			if (!scanned && tier_mig_scan_due(pool, urgent)) {
				spin_unlock_irq(&pool->lock);
				tier_job_free(pool, job);
				scanned = true;
				/* Candidates once the pass is complete. */
				if (tier_mig_scan(pool, &cfg))
					continue;
				break;
			}
			spin_unlock_irq(&pool->lock);
			tier_job_free(pool, job);
			break;
		}
		if (!manual && !cfg.auto_migrate) {
			spin_unlock_irq(&pool->lock);
			tier_job_free(pool, job);
			break;
		}
		if (!tier_mig_claim(pool, &w, job, manual, &r)) {
			const struct tier_alloc *a = &pool->alloc[w.to];
			bool settling = a->nr_pending || a->nr_committing;

			if (manual && settling) {
				/*
				 * Full only until the next commit returns the
				 * extents freed meanwhile: ask for it, retry.
				 */
				pool->commit_requested = true;
				spin_unlock_irq(&pool->lock);
				tier_job_free(pool, job);
				tier_wake_worker(pool);
				break;
			}
			if (manual) {
				/*
				 * Destination full: the request ends here,
				 * failed with ENOSPC in its event; no copy
				 * failed, so no migration error.
				 */
				tier_movq_at(&mg->movq, 0)->err = -ENOSPC;
				tier_mig_manual_check(pool);
			}
			/* No room for the cold half: no swap. */
			swap_failed = swap && w.kind == TIER_WORK_DEMOTE;
			spin_unlock_irq(&pool->lock);
			tier_job_free(pool, job);
			if (manual)
				DMWARN("%s: migrate stopped at extent %llu: tier %u is full",
				       tier_pool_log_name(pool), w.vext, w.to);
			continue;
		}
		if (manual)
			tier_movq_at(&mg->movq, 0)->next++;
		else if (swap && w.kind == TIER_WORK_PROMOTE)
			mg->swaps++;
		else if (!swap)
			tier_mig_account(&mg->plan, &w);
		spin_unlock_irq(&pool->lock);
		batch[n++] = job;
		mg->tokens -= extent_bytes;
	}
	if (n) {
		/*
		 * At the background pace, foreground I/O is running: copy in
		 * small pieces that it does not queue long behind.
		 */
		mg->batch_mode = mg->pace.mode == TIER_PACE_BACKGROUND ?
					 TIER_COPY_GENTLE :
					 TIER_COPY_FAST;
		mg->batch_n = n;
		queue_work(pool->qwq, &mg->copy_work);
	}
out:
	spin_lock_irq(&pool->lock);
	if (mg->running) {
		bool busy = mg->inflight || mg->movq.nr ||
			    mg->cand_pos < mg->nr_cand ||
			    mg->swap_pos < mg->nr_swap ||
			    mg->pace.mode != TIER_PACE_IDLE;

		unsigned long delay = msecs_to_jiffies(busy ? TIER_MIG_TICK_MS :
							      TIER_MIG_IDLE_MS);

		/*
		 * A scan that advanced goes on at once, behind what the
		 * worker has queued meanwhile; one held back by the pace
		 * waits for the next tick like the copies.
		 */
		queue_delayed_work(pool->wq, &mg->tick,
				   scanned && mg->scanning ? 0 : delay);
	}
	spin_unlock_irq(&pool->lock);
	if (mg->evac_stopped) {
		mg->evac_stopped = false;
		DMWARN("%s: migrate stopped at extent %llu: tier %u " TIER_MSG_NOALLOC,
		       tier_pool_log_name(pool), mg->evac_stop_vext,
		       mg->evac_stop_tier);
	}
}

/*
 * The second half of a tick that claimed copies, on pool->qwq: writes
 * remapped before the busy marks land before the copy. Not in the tick:
 * the wait lasts as long as the slowest bio of the old epoch (a slow tier's
 * read), and the tick shares pool->wq with the worker and the flushes.
 */
static void tier_mig_copy_work(struct work_struct *ws)
{
	struct tier_mig *mg = container_of(ws, struct tier_mig, copy_work);
	struct tier_pool *pool = mg->pool;
	unsigned int i, n = mg->batch_n;

	/*
	 * At the full pace, expedited: a grace period per batch would
	 * otherwise bound the drain rate (dm_sync_table() makes the same
	 * choice). At the background pace foreground I/O runs, and an
	 * expedited grace period interrupts every CPU, its reader's too;
	 * the normal one holds nothing but this batch, off the worker.
	 */
	tier_quiesce_old_io(pool, mg->batch_mode == TIER_COPY_FAST);
	for (i = 0; i < n; i++)
		tier_mig_copy(pool, mg->batch[i], mg->batch_mode);
	/* Pairs with the tick's acquire: it may fill the batch again. */
	smp_store_release(&mg->batch_n, 0);
}

void tier_mig_start(struct tier_pool *pool)
{
	struct tier_mig *mg = pool->mig;

	/* Activated read-only: nothing ever moves (status: pace idle). */
	if (pool->read_only)
		return;
	mg->tick_j = jiffies;
	spin_lock_irq(&pool->lock);
	/* The map may have grown or shrunk while stopped: pass again. */
	mg->scanning = false;
	mg->running = true;
	queue_delayed_work(pool->wq, &mg->tick,
			   msecs_to_jiffies(TIER_MIG_TICK_MS));
	spin_unlock_irq(&pool->lock);
}

void tier_mig_stop(struct tier_pool *pool)
{
	struct tier_mig *mg = pool->mig;

	spin_lock_irq(&pool->lock);
	mg->running = false;
	spin_unlock_irq(&pool->lock);
	cancel_delayed_work_sync(&mg->tick);
	/* A claimed batch starts its copies (pool->qwq runs on). */
	flush_work(&mg->copy_work);
	/* Copies in flight end in the worker, which switches or drops them. */
	wait_event(mg->idle_wait, !READ_ONCE(mg->inflight));
	flush_workqueue(pool->wq);
	/* A completion may have re-armed the tick meanwhile. */
	cancel_delayed_work_sync(&mg->tick);
}

void tier_mig_stats(struct tier_pool *pool, struct tier_stats *st)
{
	struct tier_mig *mg = pool->mig;
	struct tier_move *m;
	u32 i;

	lockdep_assert_held(&pool->lock);
	st->promotions = mg->promotions;
	st->demotions = mg->demotions;
	st->moved_bytes = mg->moved_bytes;
	st->mig_inflight = mg->inflight;
	st->mig_errors = mg->errors;
	st->mig_swaps = mg->swaps;
	st->man_pending = 0;
	for (i = 0; (m = tier_movq_at(&mg->movq, i)); i++)
		st->man_pending += tier_mig_move_left(pool, m);
	st->moves_queued = mg->movq.nr;
	st->pace = READ_ONCE(mg->pace.mode);
	st->above_high_ms = READ_ONCE(mg->above_high_ms);
}
