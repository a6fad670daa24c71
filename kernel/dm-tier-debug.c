// SPDX-License-Identifier: GPL-2.0
/*
 * dm-tier-debug.c - debug-only knobs (see dm-tier-debug.h); compiled only
 * with DM_TIER_DEBUG=1.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/module.h>

#include "dm-tier-debug.h"
#include "dm-tier-pool.h"

static unsigned int dbg_epoch_delay_us;
module_param(dbg_epoch_delay_us, uint, 0644);
MODULE_PARM_DESC(dbg_epoch_delay_us,
		 "debug: epoch readers wait for a running quiesce (us)");

static unsigned int dbg_quiesce_delay_ms;
module_param(dbg_quiesce_delay_ms, uint, 0644);
MODULE_PARM_DESC(dbg_quiesce_delay_ms,
		 "debug: quiesce sleep after its first grace period (ms)");

static unsigned int dbg_job_fail_every;
module_param(dbg_job_fail_every, uint, 0644);
MODULE_PARM_DESC(dbg_job_fail_every,
		 "debug: every Nth slab allocation of a job fails (1: all)");

static unsigned int dbg_init_delay_ms;
module_param(dbg_init_delay_ms, uint, 0444);
MODULE_PARM_DESC(dbg_init_delay_ms,
		 "debug: module init sleeps between its registrations (ms)");

static bool dbg_init_fail_second;
module_param(dbg_init_fail_second, bool, 0444);
MODULE_PARM_DESC(dbg_init_fail_second,
		 "debug: module init fails its second registration");

static unsigned int dbg_event_delay_ms;
module_param(dbg_event_delay_ms, uint, 0644);
MODULE_PARM_DESC(dbg_event_delay_ms,
		 "debug: the event work sleeps before it sends (ms)");

static unsigned int dbg_event_hold;
module_param(dbg_event_hold, uint, 0644);
MODULE_PARM_DESC(dbg_event_hold,
		 "debug: events wait, unsent, for the next one or teardown");

static unsigned int dbg_worker_delay_ms;
module_param(dbg_worker_delay_ms, uint, 0644);
MODULE_PARM_DESC(dbg_worker_delay_ms,
		 "debug: each worker pass sleeps first (ms): bios share a pass");

static unsigned int dbg_fill_delay_ms;
module_param(dbg_fill_delay_ms, uint, 0644);
MODULE_PARM_DESC(dbg_fill_delay_ms,
		 "debug: the fill work sleeps after each entry it takes (ms)");

static unsigned int dbg_parks;
module_param(dbg_parks, uint, 0644);
MODULE_PARM_DESC(dbg_parks,
		 "debug: bios parked behind a job so far (write 0 to reset)");

static unsigned int dbg_zero_refuse;
module_param(dbg_zero_refuse, uint, 0644);
MODULE_PARM_DESC(dbg_zero_refuse,
		 "debug: the next N zeroings sent as WRITE ZEROES end refused");

static unsigned int dbg_probe_wait_s;
module_param(dbg_probe_wait_s, uint, 0644);
MODULE_PARM_DESC(dbg_probe_wait_s,
		 "debug: tier-recover waits this long for its probe flush (s)");

static unsigned int dbg_commit_delay_ms;
module_param(dbg_commit_delay_ms, uint, 0644);
MODULE_PARM_DESC(dbg_commit_delay_ms,
		 "debug: a commit sleeps between used counts and map copy");

static unsigned int dbg_commit_delays;
module_param(dbg_commit_delays, uint, 0644);
MODULE_PARM_DESC(dbg_commit_delays,
		 "debug: commits that began that sleep (writable, to reset)");

static unsigned int dbg_forget_delay_ms;
module_param(dbg_forget_delay_ms, uint, 0644);
MODULE_PARM_DESC(dbg_forget_delay_ms,
		 "debug: forget-tier sleeps after its walk, before its commit");

static atomic_t tier_dbg_quiescing = ATOMIC_INIT(0);
static atomic_t tier_dbg_job_calls = ATOMIC_INIT(0);

/* Sleep as long as the knob at @ms says (0: not at all). */
static void tier_dbg_sleep(const unsigned int *ms)
{
	unsigned int n = READ_ONCE(*ms);

	if (n)
		msleep(n);
}

void tier_dbg_epoch_window(void)
{
	unsigned int us = READ_ONCE(dbg_epoch_delay_us);
	ktime_t end;

	if (!us || !atomic_read(&tier_dbg_quiescing))
		return;
	end = ktime_add_us(ktime_get(), us);
	while (atomic_read(&tier_dbg_quiescing) &&
	       ktime_before(ktime_get(), end))
		cpu_relax();
}

void tier_dbg_quiesce_begin(void)
{
	atomic_inc(&tier_dbg_quiescing);
}

void tier_dbg_quiesce_gap(void)
{
	tier_dbg_sleep(&dbg_quiesce_delay_ms);
}

void tier_dbg_quiesce_end(struct tier_pool *pool, unsigned int old)
{
	/* Before readers held in the window are let go. */
	smp_store_release(&pool->io_drained, old + 1);
	atomic_dec(&tier_dbg_quiescing);
}

void tier_dbg_check_count(struct tier_pool *pool, unsigned int epoch)
{
	/* Pairs with the release in tier_dbg_quiesce_end(). */
	int late = (int)(smp_load_acquire(&pool->io_drained) - epoch);

	WARN_ONCE(late > 0, "dm-tier: %s: bio counted in epoch %u too late\n",
		  pool->tier_name[0], epoch);
}

bool tier_dbg_job_alloc_fail(void)
{
	unsigned int n = READ_ONCE(dbg_job_fail_every);

	return n && !((unsigned int)atomic_inc_return(&tier_dbg_job_calls) % n);
}

void tier_dbg_check_submit(struct tier_pool *pool, struct bio *bio, u32 tier)
{
	sector_t s = bio->bi_iter.bi_sector;
	const struct tier_alloc *a = &pool->alloc[tier];
	unsigned long flags;
	bool used, pending, committing;
	const char *what;
	u64 p;

	if (WARN_ON_ONCE(tier >= pool->nr_tiers || s < pool->data_start[tier]))
		return;
	p = (s - pool->data_start[tier]) >> pool->extent_shift;
	if (WARN_ON_ONCE(p >= a->nr_extents))
		return;
	spin_lock_irqsave(&pool->lock, flags);
	used = test_bit(p, a->used);
	pending = test_bit(p, a->pending);
	committing = test_bit(p, a->committing);
	spin_unlock_irqrestore(&pool->lock, flags);
	if (used && !pending && !committing)
		return;
	what = !used ? "free" : pending ? "pending free" : "being freed";
	WARN_ONCE(1, "dm-tier: %s: bio sent to tier %u extent %llu (%s)\n",
		  pool->tier_name[0], tier, p, what);
}

int tier_dbg_init_between(void)
{
	tier_dbg_sleep(&dbg_init_delay_ms);
	return dbg_init_fail_second ? -ENOMEM : 0;
}

void tier_dbg_event_delay(void)
{
	tier_dbg_sleep(&dbg_event_delay_ms);
}

void tier_dbg_worker_delay(void)
{
	tier_dbg_sleep(&dbg_worker_delay_ms);
}

void tier_dbg_fill_delay(void)
{
	tier_dbg_sleep(&dbg_fill_delay_ms);
}

unsigned int tier_dbg_probe_wait_s(unsigned int dflt)
{
	unsigned int s = READ_ONCE(dbg_probe_wait_s);

	return s ? s : dflt;
}

void tier_dbg_commit_delay(void)
{
	/* Told before the sleep: a test waits for it to act in the window. */
	if (READ_ONCE(dbg_commit_delay_ms))
		WRITE_ONCE(dbg_commit_delays, READ_ONCE(dbg_commit_delays) + 1);
	tier_dbg_sleep(&dbg_commit_delay_ms);
}

void tier_dbg_forget_delay(void)
{
	tier_dbg_sleep(&dbg_forget_delay_ms);
}

void tier_dbg_parked(void)
{
	/* Racy across pools: a count for tests, which use one. */
	WRITE_ONCE(dbg_parks, READ_ONCE(dbg_parks) + 1);
}

bool tier_dbg_event_hold(void)
{
	return READ_ONCE(dbg_event_hold);
}

bool tier_dbg_zero_refused(void)
{
	unsigned int n = READ_ONCE(dbg_zero_refuse);

	/* Racy between zeroings that end at once: tests send one. */
	if (!n)
		return false;
	WRITE_ONCE(dbg_zero_refuse, n - 1);
	return true;
}
