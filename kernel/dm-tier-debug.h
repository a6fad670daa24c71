/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm-tier-debug.h - debug-only knobs that widen race windows and check
 * invariants, for the VM tests of races (tests/vm/05x). Built only with
 * `make modules DM_TIER_DEBUG=1` (Kbuild defines DM_TIER_DEBUG and adds
 * dm-tier-debug.c); production builds and DKMS never set it, and then
 * every helper below is an empty inline function.
 *
 * Module parameters (/sys/module/dm_tier/parameters/), all 0 = off:
 *  - dbg_epoch_delay_us: a reader of the I/O epoch (map(), tier_submit(),
 *    the memory tier's fill) that finds a quiesce in progress waits, between
 *    its read of the epoch and its increment of the epoch's counter, until
 *    that quiesce is over or this many microseconds passed.
 *  - dbg_quiesce_delay_ms: tier_quiesce_old_io() sleeps this long after its
 *    first grace period, before it advances the epoch.
 *  - dbg_job_fail_every: every Nth slab allocation behind the job mempool
 *    fails (1: all of them), as under memory pressure; the mempool's
 *    reserve is then all there is. Set it after the device is created (the
 *    mempool's initial fill would fail too).
 *  - dbg_init_delay_ms, dbg_init_fail_second (read at insmod): module init
 *    sleeps this long between its two registrations, and then fails the
 *    second one as if it could not register, so a test can act in the
 *    window and watch the unwind.
 *  - dbg_event_delay_ms: the work that sends a pool's monitor events sleeps
 *    this long before it takes the pending ones, so a test can change the
 *    tier list while an event waits.
 *  - dbg_event_hold: while not 0, tier_event() records events without
 *    queueing the work that sends them: they wait for the next event
 *    raised after it is 0 again, or for the device's teardown, which
 *    sends what is pending (VM test 086).
 *  - dbg_probe_wait_s: tier-recover waits this many seconds for its probe
 *    flush instead of TIER_PROBE_WAIT_S, so a test has time to show what
 *    goes on meanwhile (VM test 086).
 *  - tier_submit() always checks (WARN_ON_ONCE) that the physical extent a
 *    bio goes to is allocated and not awaiting a commit to be freed.
 *  - Every reader checks (WARN_ONCE) that it counted itself before the
 *    quiesce of the epoch it read finished waiting: a bio counted later is
 *    one no quiesce waits for (the hole of issue 13, defect 1).
 */
#ifndef DM_TIER_DEBUG_H
#define DM_TIER_DEBUG_H

struct tier_pool;
struct bio;

#ifdef DM_TIER_DEBUG

/**
 * tier_dbg_epoch_window() - the debug delay between a reader's read of the
 * I/O epoch and its increment of the epoch's counter.
 *
 * Context: any; busy-waits (never sleeps), at most dbg_epoch_delay_us.
 */
void tier_dbg_epoch_window(void);

/**
 * tier_dbg_quiesce_begin() - a quiesce starts: readers of the epoch may
 * wait in tier_dbg_epoch_window() until tier_dbg_quiesce_end().
 *
 * Context: any.
 */
void tier_dbg_quiesce_begin(void);

/**
 * tier_dbg_quiesce_gap() - sleep dbg_quiesce_delay_ms; called after the
 * quiesce's first grace period, before it advances the epoch.
 *
 * Context: process, may sleep.
 */
void tier_dbg_quiesce_gap(void);

/**
 * tier_dbg_quiesce_end() - the quiesce of epoch @old returns: its bios
 * have drained.
 * @pool: the pool.
 * @old:  the epoch it waited for.
 *
 * Context: any.
 */
void tier_dbg_quiesce_end(struct tier_pool *pool, unsigned int old);

/**
 * tier_dbg_check_count() - WARN when a reader that read epoch @epoch
 * counted its bio only after that epoch's quiesce had finished waiting.
 * @pool:  the pool.
 * @epoch: the epoch the reader read (the whole value, not its parity).
 *
 * Context: any; call right after the increment, in the same RCU read
 * section as the epoch read.
 */
void tier_dbg_check_count(struct tier_pool *pool, unsigned int epoch);

/**
 * tier_dbg_job_alloc_fail() - whether this slab allocation of a job fails.
 *
 * Context: any.
 * Return: true every dbg_job_fail_every-th call.
 */
bool tier_dbg_job_alloc_fail(void);

/**
 * tier_dbg_check_submit() - WARN when @bio, remapped to tier @tier, goes to
 * a physical extent that is free or awaiting a commit to be freed.
 * @pool: the pool.
 * @bio:  the remapped bio (its sector is on the tier).
 * @tier: its tier.
 *
 * Context: any but hard irq; takes pool->lock.
 */
void tier_dbg_check_submit(struct tier_pool *pool, struct bio *bio, u32 tier);

/**
 * tier_dbg_init_between() - module init's debug window between its two
 * registrations (dbg_init_delay_ms), and its forced failure of the second
 * (dbg_init_fail_second).
 *
 * Context: module init, may sleep.
 * Return: 0, or -ENOMEM when the second registration is to fail.
 */
int tier_dbg_init_between(void);

/**
 * tier_dbg_event_delay() - sleep dbg_event_delay_ms before the event work
 * takes the pending events.
 *
 * Context: process (the event work), may sleep.
 */
void tier_dbg_event_delay(void);

/**
 * tier_dbg_worker_delay() - sleep dbg_worker_delay_ms at the start of a
 * worker pass: the bios queued meanwhile are handled in that one pass.
 *
 * Context: process (the worker), may sleep.
 */
void tier_dbg_worker_delay(void);

/**
 * tier_dbg_fill_delay() - sleep dbg_fill_delay_ms after the memory tier's
 * fill work took an entry from its queue: entries stay queued long enough
 * for a suspend to find them (VM test 084).
 *
 * Context: process (the fill work), may sleep.
 */
void tier_dbg_fill_delay(void);

/**
 * tier_dbg_probe_wait_s() - how long tier-recover waits for its probe flush.
 * @dflt: the production wait (TIER_PROBE_WAIT_S).
 *
 * Context: any.
 * Return: dbg_probe_wait_s when set, else @dflt.
 */
unsigned int tier_dbg_probe_wait_s(unsigned int dflt);

/**
 * tier_dbg_commit_delay() - sleep dbg_commit_delay_ms in a commit after it
 * read the used counts and before it writes the map blocks: a change of
 * the map that is not serialised with commits (pool->md_lock) lands in
 * that window (VM test 085). Counts each such sleep in dbg_commit_delays
 * as it begins.
 *
 * Context: process, pool->md_lock held, may sleep.
 */
void tier_dbg_commit_delay(void);

/**
 * tier_dbg_forget_delay() - sleep dbg_forget_delay_ms in forget-tier after
 * its walk unmapped the tier's extents, before its commit (no lock held):
 * a first write and a read of an unmapped extent land there (VM test 085
 * memcopy).
 *
 * Context: process, may sleep.
 */
void tier_dbg_forget_delay(void);

/**
 * tier_dbg_parked() - a bio was parked behind a job: count it in dbg_parks.
 *
 * Context: under a pool's lock.
 */
void tier_dbg_parked(void);

/**
 * tier_dbg_zero_refused() - whether a zeroing sent as WRITE ZEROES is to
 * end as refused (BLK_STS_NOTSUPP), as a tier that advertises WRITE ZEROES
 * and rejects it would; counts dbg_zero_refuse down.
 *
 * Context: any (bio completion).
 * Return: true to refuse this one.
 */
bool tier_dbg_zero_refused(void);

/**
 * tier_dbg_event_hold() - whether tier_event() is to leave the event work
 * unqueued (dbg_event_hold): the events stay pending.
 *
 * Context: any; never sleeps.
 */
bool tier_dbg_event_hold(void);

#else /* !DM_TIER_DEBUG */

static inline void tier_dbg_epoch_window(void)
{
}

static inline void tier_dbg_quiesce_begin(void)
{
}

static inline void tier_dbg_quiesce_gap(void)
{
}

static inline void tier_dbg_quiesce_end(struct tier_pool *pool,
					unsigned int old)
{
}

static inline void tier_dbg_check_count(struct tier_pool *pool,
					unsigned int epoch)
{
}

static inline bool tier_dbg_job_alloc_fail(void)
{
	return false;
}

static inline void tier_dbg_check_submit(struct tier_pool *pool,
					 struct bio *bio, u32 tier)
{
}

static inline int tier_dbg_init_between(void)
{
	return 0;
}

static inline void tier_dbg_event_delay(void)
{
}

static inline void tier_dbg_worker_delay(void)
{
}

static inline unsigned int tier_dbg_probe_wait_s(unsigned int dflt)
{
	return dflt;
}

static inline void tier_dbg_commit_delay(void)
{
}

static inline void tier_dbg_forget_delay(void)
{
}

static inline void tier_dbg_fill_delay(void)
{
}

static inline void tier_dbg_parked(void)
{
}

static inline bool tier_dbg_zero_refused(void)
{
	return false;
}

static inline bool tier_dbg_event_hold(void)
{
	return false;
}

#endif /* DM_TIER_DEBUG */
#endif /* DM_TIER_DEBUG_H */
