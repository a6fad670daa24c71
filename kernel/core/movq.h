/* SPDX-License-Identifier: GPL-2.0 */
/*
 * movq.h - the queue of explicit move requests (migrate, pin --tier) as
 * pure logic: a bounded FIFO ring with id allocation, cancel, progress
 * accounting, and the ring of outcomes that the migration-done events
 * carry. The migration engine (dm-tier-migrate.c) keeps one of each under
 * pool->lock and runs the head request; docs/ARCHITECTURE.md "Move queue".
 */
#ifndef DM_TIER_CORE_MOVQ_H
#define DM_TIER_CORE_MOVQ_H

#include "tier-internal.h"
#include "extent_map.h"

/*
 * tier_move.pref of a request without a preferred destination; the same
 * value as TIER_EVAC_NO_PREF (policy.h), which the evacuation passes on.
 */
#define TIER_MOVE_NO_PREF 0xffffffffU
/*
 * tier_move_result.tier of an outcome whose tier a tier-list change removed
 * before the outcome was sent (tier_movq_renumber()): no tier to name.
 */
#define TIER_MOVE_NO_TIER 0xffffffffU

/* Requests queued at once (the running one included); one more: EBUSY. */
#define TIER_MOVQ_MAX 32
/* Outcomes kept until the event sender takes them; more drop the oldest. */
#define TIER_MOVQ_RESULTS 64

/* What a request does. */
enum tier_move_kind {
	TIER_MOVE_MIGRATE, /* move a range's extents to a tier */
	TIER_MOVE_PIN, /* pin --tier: the range was pinned, move it */
	/*
	 * Move every extent off @tier (the source): each goes to the tier
	 * tier_policy_evac_dest() picks when its turn comes.
	 */
	TIER_MOVE_EVACUATE,
	TIER_MOVE_KINDS,
};

enum tier_move_state {
	TIER_MOVE_QUEUED, /* waiting for the ones before it */
	TIER_MOVE_RUNNING, /* the head: its extents are being moved */
	TIER_MOVE_CANCELLING, /* cancelled while copies were in flight */
};

enum tier_move_outcome {
	TIER_MOVE_DONE, /* every extent looked at; moved or already there */
	TIER_MOVE_CANCELLED, /* cancelled (or the device was removed) */
	TIER_MOVE_FAILED, /* stopped: err says why (-ENOSPC, -EIO) */
};

/*
 * One request: extents @first..@last to @tier; for TIER_MOVE_EVACUATE,
 * those of @first..@last on @tier away from it.
 */
struct tier_move {
	u32 id; /* never 0 */
	u8 kind; /* enum tier_move_kind */
	u8 state; /* enum tier_move_state */
	u32 tier;
	/*
	 * TIER_MOVE_EVACUATE: the preferred destination (evacuate --to),
	 * else TIER_MOVE_NO_PREF; set by the caller after the push.
	 */
	u32 pref;
	u64 first;
	u64 last;
	u64 next; /* cursor: the next extent to look at */
	u64 moved; /* copies switched */
	u32 inflight; /* copies in flight */
	u32 passes; /* walks of the range restarted (evacuate) */
	/*
	 * Copies that failed reading their source: the extent stays where
	 * it was, the walk goes on, and the request ends failed, -EIO. (A
	 * copy that failed writing its destination stops it: err.)
	 */
	u32 copy_errors;
	int err; /* 0, or why it stops (negative errno) */
};

/* How a request ended: what its migration-done event carries. */
struct tier_move_result {
	u32 id;
	u32 kind;
	u32 tier;
	u32 outcome; /* enum tier_move_outcome */
	int err; /* negative errno for TIER_MOVE_FAILED, else 0 */
	u64 moved;
};

struct tier_movq {
	struct tier_move q[TIER_MOVQ_MAX];
	u32 head; /* index of the oldest */
	u32 nr;
	u32 last_id;
	/* Outcomes not yet sent, oldest first. */
	struct tier_move_result res[TIER_MOVQ_RESULTS];
	u32 res_head;
	u32 res_nr;
	u64 res_dropped; /* outcomes lost to a full ring */
};

/**
 * tier_movq_init() - an empty queue; ids start at 1.
 * @q: the queue.
 *
 * Context: any; pure.
 */
void tier_movq_init(struct tier_movq *q);

/**
 * tier_movq_push() - queue a request at the tail.
 * @q:     the queue.
 * @kind:  enum tier_move_kind.
 * @first: first virtual extent.
 * @last:  last virtual extent, >= @first.
 * @tier:  destination tier (the source for TIER_MOVE_EVACUATE).
 * @id:    out: the request's id (never 0; wraps past U32_MAX skipping ids
 *         still queued).
 *
 * Context: any; pure.
 * Return: 0, -EBUSY when TIER_MOVQ_MAX requests are queued, -EINVAL for a
 * bad kind or range.
 */
int tier_movq_push(struct tier_movq *q, u32 kind, u64 first, u64 last, u32 tier,
		   u32 *id);

/**
 * tier_movq_at() - the @i-th request in FIFO order (0: the head).
 * @q: the queue.
 * @i: position.
 *
 * Context: any; pure.
 * Return: the request, NULL past the end.
 */
struct tier_move *tier_movq_at(struct tier_movq *q, u32 i);

/**
 * tier_movq_find() - the request with id @id.
 * @q:  the queue.
 * @id: its id.
 *
 * Context: any; pure.
 * Return: the request or NULL.
 */
struct tier_move *tier_movq_find(struct tier_movq *q, u32 id);

/**
 * tier_move_left() - extents a request has yet to look at or finish: the
 * whole range while queued, the part past the cursor plus the copies in
 * flight once it runs (an upper bound: unmapped extents and those already
 * on the tier count until the cursor passes them).
 * @m: the request.
 *
 * Context: any; pure.
 * Return: the count.
 */
u64 tier_move_left(const struct tier_move *m);

/**
 * tier_movq_cancel() - cancel request @id. One with no copy in flight ends
 * now (outcome cancelled, in the result ring); the running one with copies
 * in flight becomes TIER_MOVE_CANCELLING and ends when they do
 * (tier_movq_reap()). Cancelling it again changes nothing.
 * @q:  the queue.
 * @id: its id.
 *
 * Context: any; pure.
 * Return: 0, or -ENOENT when no queued request has that id (it ended).
 */
int tier_movq_cancel(struct tier_movq *q, u32 id);

/**
 * tier_movq_reap() - end the head while it is over: cursor past its range,
 * stopped by an error or cancelled, and no copy in flight; its outcome goes
 * to the result ring. The next request becomes the head but stays queued
 * until the engine starts it.
 * @q: the queue.
 *
 * Context: any; pure.
 * Return: how many requests ended (0 or more).
 */
u32 tier_movq_reap(struct tier_movq *q);

/**
 * tier_movq_cancel_all() - end every request as cancelled (teardown),
 * copies in flight or not.
 * @q: the queue.
 *
 * Context: any; pure.
 * Return: how many ended.
 */
u32 tier_movq_cancel_all(struct tier_movq *q);

/**
 * tier_movq_left() - the sum of tier_move_left() over the queue.
 * @q: the queue.
 *
 * Context: any; pure.
 * Return: extents.
 */
u64 tier_movq_left(struct tier_movq *q);

/**
 * tier_movq_pop_result() - the oldest outcome not yet sent.
 * @q:   the queue.
 * @res: out.
 *
 * Context: any; pure.
 * Return: true when there was one.
 */
bool tier_movq_pop_result(struct tier_movq *q, struct tier_move_result *res);

/**
 * tier_movq_renumber_blocker() - the first request a tier-list change
 * through @table cannot follow: a migrate or pin whose target tier the
 * change removes (docs/ARCHITECTURE.md "Move queue").
 * @q:      the queue.
 * @table:  [old tier] = new tier, TIER_RENUM_GONE for the removed tier
 *          (tier_map_renumber_table()).
 * @nr_old: tiers before the change (valid entries of @table).
 *
 * An evacuation of the removed tier never blocks (see
 * tier_movq_renumber()), nor does a removed preferred destination.
 *
 * Context: any; pure.
 * Return: the request, or NULL.
 */
const struct tier_move *tier_movq_renumber_blocker(struct tier_movq *q,
						   const u8 *table, u32 nr_old);

/**
 * tier_movq_renumber() - the queue follows a tier-list change, with the
 * table that renumbers the map (tier_map_renumber()):
 *  - every request's tier and preferred destination go through @table; a
 *    removed (or invalid) preferred destination becomes TIER_MOVE_NO_PREF;
 *  - an evacuation of the removed tier ends done (outcome in the result
 *    ring): the removed tier holds no extent (the change is refused
 *    otherwise), so it has nothing left to move;
 *  - every outcome not yet sent names its tier in the new list too, so the
 *    event that carries it matches the tier list it is sent with; one whose
 *    tier is removed (or was not a tier of the old list) gets
 *    TIER_MOVE_NO_TIER.
 * All or nothing: a blocker (tier_movq_renumber_blocker()) refuses it.
 * @q:      the queue; no request may have copies in flight (suspended).
 * @table:  as for tier_movq_renumber_blocker().
 * @nr_old: tiers before the change.
 * @id:     out, optional: the blocker's id on -EBUSY.
 *
 * Context: any; pure.
 * Return: 0; -EBUSY for a blocker; -EINVAL for a request naming a tier at
 * or above @nr_old (through a table entry at or above TIER_MAX_TIERS but
 * TIER_RENUM_GONE) or with copies in flight; nothing changes on an error.
 */
int tier_movq_renumber(struct tier_movq *q, const u8 *table, u32 nr_old,
		       u32 *id);

/**
 * tier_move_kind_name() - "migrate", "pin" or "evacuate".
 * @kind: enum tier_move_kind.
 *
 * Context: any; pure.
 * Return: a static string.
 */
const char *tier_move_kind_name(u32 kind);

/**
 * tier_move_state_name() - "queued", "running" or "cancelling".
 * @state: enum tier_move_state.
 *
 * Context: any; pure.
 * Return: a static string.
 */
const char *tier_move_state_name(u32 state);

/**
 * tier_move_outcome_name() - "done", "cancelled" or "failed".
 * @outcome: enum tier_move_outcome.
 *
 * Context: any; pure.
 * Return: a static string.
 */
const char *tier_move_outcome_name(u32 outcome);

#endif /* DM_TIER_CORE_MOVQ_H */
