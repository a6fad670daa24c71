/* SPDX-License-Identifier: GPL-2.0 */
/*
 * health.h - the two fault state machines as pure functions: a tier's
 * health (ok -> degraded -> offline and back) and the metadata mode
 * (rw -> ro -> fail, ro -> rw). The pool (dm-tier-pool.c) feeds them the
 * events it sees; docs/ARCHITECTURE.md "Faults" has both as tables.
 */
#ifndef DM_TIER_CORE_HEALTH_H
#define DM_TIER_CORE_HEALTH_H

#include "tier-internal.h"
#include "format.h" /* TIER_MAX_TIERS */

/* A tier's health; the order is the severity. */
enum tier_health {
	TIER_HEALTH_OK,
	TIER_HEALTH_DEGRADED, /* I/O errors seen; still used */
	TIER_HEALTH_OFFLINE, /* path lost or too many errors: not used */
};

/* What the pool saw happen to a tier. */
enum tier_health_event {
	TIER_HEV_IO_ERROR, /* a read or write failed (medium, unknown) */
	TIER_HEV_PATH_ERROR, /* failed with a path error (transport, offline) */
	TIER_HEV_FLUSH_ERROR, /* a cache flush of the tier failed */
	TIER_HEV_RECOVERED, /* a probe flush succeeded after tier-recover */
};

/* Consecutive I/O errors (no success between them) that take a tier offline. */
#define TIER_OFFLINE_ERRORS 16

/**
 * tier_health_next() - a tier's health after an event.
 * @cur:     its health now.
 * @ev:      the event.
 * @err_run: consecutive I/O errors, this one included (TIER_HEV_IO_ERROR).
 * @meta:    the tier holds the metadata: it is never taken offline (its
 *           failures are the metadata mode's business), only degraded.
 *
 * Rules: any error makes an ok tier degraded; a path error, a failed flush
 * or TIER_OFFLINE_ERRORS consecutive errors make a data tier offline;
 * only a successful probe (TIER_HEV_RECOVERED) brings it back, to ok.
 *
 * Context: any; pure.
 * Return: the new health; a change up is a tier-error event, down a
 * tier-recovered one.
 */
enum tier_health tier_health_next(enum tier_health cur,
				  enum tier_health_event ev, u32 err_run,
				  bool meta);

/**
 * tier_health_name() - "ok", "degraded" or "offline" (status, netlink).
 * @h: the health.
 *
 * Context: any; pure.
 * Return: a static string.
 */
const char *tier_health_name(enum tier_health h);

/* Metadata health (dm status, netlink "metadata-mode"). */
enum tier_md_mode {
	TIER_MODE_WRITE, /* normal */
	TIER_MODE_READ_ONLY, /* a commit failed: no new extents; retried */
	TIER_MODE_FAIL, /* commits keep failing: writes fail, reads work */
};

/* What a commit of the metadata did. */
enum tier_md_event {
	TIER_MDEV_COMMIT_OK,
	TIER_MDEV_COMMIT_FAIL, /* the metadata device failed a commit */
	TIER_MDEV_COMMIT_FAIL_QUIET, /* the same during a suspend: no escalation */
};

/* ro becomes fail after this many failed commits in a row ... */
#define TIER_MD_FAIL_COMMITS 8
/* ... spread over at least this many seconds. */
#define TIER_MD_FAIL_SECS 30

/**
 * tier_md_mode_next() - the metadata mode after a commit.
 * @cur:   the mode now.
 * @ev:    what the commit did.
 * @fails: failed commits in a row, this one included (COMMIT_FAIL).
 * @secs:  seconds since the first of them.
 *
 * rw -> ro on a failed commit; ro -> rw when a retried commit succeeds;
 * ro -> fail only after TIER_MD_FAIL_COMMITS failures over at least
 * TIER_MD_FAIL_SECS seconds, never for a quiet (suspend) failure; fail is
 * kept until the table is reloaded.
 *
 * Context: any; pure.
 * Return: the new mode.
 */
enum tier_md_mode tier_md_mode_next(enum tier_md_mode cur,
				    enum tier_md_event ev, u32 fails, u32 secs);

/* offline_queue_s: the longest a write to an offline tier may wait (s). */
#define TIER_OFFQ_S_DEF 0 /* fail at once with EIO */
#define TIER_OFFQ_S_MAX 600

/* What becomes of a write parked for an offline tier (tier_offq_next()). */
enum tier_offq_action {
	TIER_OFFQ_WAIT, /* keep it parked */
	TIER_OFFQ_REISSUE, /* its tier is back: issue it again */
	TIER_OFFQ_FAIL, /* its deadline passed, or the queue closed: EIO */
};

/**
 * tier_offq_may_park() - whether a write to an extent of an offline tier,
 * which cannot be redirected (a partial write, or no room elsewhere), may
 * wait for the tier instead of failing with EIO at once.
 * @queue_s: the offline_queue_s setting; 0 means fail fast.
 * @closed:  the queue is closed: the device is suspending or going away.
 *
 * Context: any; pure.
 * Return: true to park it (with tier_offq_deadline()), false to fail it.
 */
bool tier_offq_may_park(u32 queue_s, bool closed);

/**
 * tier_offq_deadline() - when a write parked at @now must fail.
 * @now:     the clock (jiffies, 64 bits: never wraps).
 * @queue_s: offline_queue_s, at most TIER_OFFQ_S_MAX.
 * @hz:      clock ticks per second.
 *
 * Context: any; pure.
 * Return: @now + @queue_s seconds, never before @now + 1 (so a deadline is
 * never 0, which means "not parked yet").
 */
u64 tier_offq_deadline(u64 now, u32 queue_s, u32 hz);

/**
 * tier_offq_next() - what to do with a parked write now.
 * @offline:  its extent's tier is still offline.
 * @closed:   the queue is closed (suspend, teardown).
 * @now:      the clock.
 * @deadline: its deadline (tier_offq_deadline()).
 *
 * A tier that is back wins over an expired deadline (the write can succeed
 * now); a closed queue fails everything still waiting.
 *
 * Context: any; pure.
 * Return: the action.
 */
enum tier_offq_action tier_offq_next(bool offline, bool closed, u64 now,
				     u64 deadline);

/**
 * tier_offq_delay() - ticks until the earliest deadline, for the timer.
 * @now:      the clock.
 * @deadline: the earliest deadline of the parked writes.
 *
 * Context: any; pure.
 * Return: 0 when it has passed, else @deadline - @now.
 */
u64 tier_offq_delay(u64 now, u64 deadline);

/**
 * tier_ev_renumber() - the pending monitor events after a tier-list change
 * (docs/ARCHITECTURE.md "Tier list changes"): an event that names a tier
 * follows it to its new index, one of a removed tier is dropped, and a
 * device-wide event (it uses tier 0) stays as it is.
 * @ev:        bitmap, bit (event * TIER_MAX_TIERS + tier) per pending
 *             (event, tier); @nr_events events.
 * @nr_events: events @ev covers, at most 32.
 * @per_tier:  bit e set: event e names a tier.
 * @table:     [old tier] = new tier; TIER_MAX_TIERS or more: removed
 *             (tier_map_renumber_table()).
 *
 * Context: any; pure (the caller snapshots the pending bits).
 */
void tier_ev_renumber(unsigned long *ev, u32 nr_events, u32 per_tier,
		      const u8 *table);

#endif /* DM_TIER_CORE_HEALTH_H */
