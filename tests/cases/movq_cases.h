/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cases for kernel/core/movq.c: the queue of explicit move requests (FIFO
 * order, the bound, id allocation, cancel, progress, outcomes, renumbering
 * at a tier-list change). Run by
 * tests/unit/test_movq.c (cmocka) and tests/kunit/movq_kunit.c (KUnit).
 */
#include "case.h"
#include "movq.h"

static struct tier_movq *movq_new(CASE_CTX)
{
	struct tier_movq *q = case_alloc(test, sizeof(*q));

	tier_movq_init(q);
	return q;
}

/* Requests run in order; ids are distinct, increasing, never 0. */
static void movq_fifo_test(CASE_CTX)
{
	struct tier_movq *q = movq_new(test);
	struct tier_move_result r;
	struct tier_move *m;
	u32 id[3], i;

	for (i = 0; i < 3; i++)
		CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, i * 10,
					      i * 10 + 3, 1, &id[i]),
			       0);
	CASE_NE(id[0], 0U);
	CASE_LT(id[0], id[1]);
	CASE_LT(id[1], id[2]);
	for (i = 0; i < 3; i++) {
		m = tier_movq_at(q, 0);
		CASE_ASSERT_NOT_NULL(m);
		CASE_EQ(m->id, id[i]);
		CASE_EQ(m->first, (u64)i * 10);
		/* No destination preference unless the caller sets one. */
		CASE_EQ(m->pref, TIER_MOVE_NO_PREF);
		/* Not started: nothing ends it. */
		CASE_EQ(tier_movq_reap(q), 0U);
		m->state = TIER_MOVE_RUNNING;
		m->next = m->last + 1;
		CASE_EQ(tier_movq_reap(q), 1U);
		CASE_TRUE(tier_movq_pop_result(q, &r));
		CASE_EQ(r.id, id[i]);
		CASE_EQ(r.outcome, (u32)TIER_MOVE_DONE);
		CASE_FALSE(tier_movq_pop_result(q, &r));
	}
	CASE_NULL(tier_movq_at(q, 0));
}

/* EBUSY only when TIER_MOVQ_MAX are queued; a slot frees one. */
static void movq_bound_test(CASE_CTX)
{
	struct tier_movq *q = movq_new(test);
	u32 id, first = 0, i;

	for (i = 0; i < TIER_MOVQ_MAX; i++) {
		CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_PIN, i, i, 0, &id),
			       0);
		if (!i)
			first = id;
	}
	CASE_EQ(tier_movq_push(q, TIER_MOVE_PIN, 0, 0, 0, &id), -EBUSY);
	CASE_EQ(tier_movq_cancel(q, first), 0);
	CASE_EQ(tier_movq_push(q, TIER_MOVE_PIN, 0, 0, 0, &id), 0);
	CASE_EQ(tier_movq_push(q, TIER_MOVE_PIN, 0, 0, 0, &id), -EBUSY);
	CASE_EQ(tier_movq_push(q, TIER_MOVE_KINDS, 0, 0, 0, &id), -EINVAL);
	CASE_EQ(tier_movq_push(q, TIER_MOVE_PIN, 5, 4, 0, &id), -EINVAL);
}

/* Ids wrap past U32_MAX, skipping 0 and ids still queued. */
static void movq_id_wrap_test(CASE_CTX)
{
	struct tier_movq *q = movq_new(test);
	u32 a, b, c;

	q->last_id = U32_MAX - 1;
	CASE_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, 0, 0, 1, &a), 0);
	CASE_EQ(a, U32_MAX);
	CASE_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, 0, 0, 1, &b), 0);
	CASE_EQ(b, 1U);
	q->last_id = U32_MAX - 1;
	CASE_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, 0, 0, 1, &c), 0);
	CASE_EQ(c, 2U);
}

/* A queued request cancelled leaves the others in order. */
static void movq_cancel_queued_test(CASE_CTX)
{
	struct tier_movq *q = movq_new(test);
	struct tier_move_result r;
	u32 id[4], i;

	for (i = 0; i < 4; i++)
		CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, i, i, 1,
					      &id[i]),
			       0);
	CASE_EQ(tier_movq_cancel(q, id[2]), 0);
	CASE_EQ(tier_movq_cancel(q, id[2]), -ENOENT);
	CASE_EQ(tier_movq_cancel(q, 12345), -ENOENT);
	CASE_EQ(q->nr, 3U);
	CASE_EQ(tier_movq_at(q, 0)->id, id[0]);
	CASE_EQ(tier_movq_at(q, 1)->id, id[1]);
	CASE_EQ(tier_movq_at(q, 2)->id, id[3]);
	CASE_NULL(tier_movq_find(q, id[2]));
	CASE_TRUE(tier_movq_pop_result(q, &r));
	CASE_EQ(r.id, id[2]);
	CASE_EQ(r.outcome, (u32)TIER_MOVE_CANCELLED);
	CASE_EQ(r.moved, 0ULL);
	CASE_FALSE(tier_movq_pop_result(q, &r));
}

/* The running request with copies in flight ends when they do, once. */
static void movq_cancel_running_test(CASE_CTX)
{
	struct tier_movq *q = movq_new(test);
	struct tier_move_result r;
	struct tier_move *m;
	u32 id, id2;

	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, 0, 99, 1, &id), 0);
	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, 0, 9, 0, &id2), 0);
	m = tier_movq_at(q, 0);
	m->state = TIER_MOVE_RUNNING;
	m->next = 10;
	m->inflight = 2;
	m->moved = 8;
	CASE_EQ(tier_move_left(m), 92ULL);
	CASE_EQ(tier_movq_cancel(q, id), 0);
	CASE_EQ(m->state, (u8)TIER_MOVE_CANCELLING);
	CASE_EQ(tier_movq_cancel(q, id), 0);
	CASE_EQ(tier_move_left(m), 2ULL);
	CASE_FALSE(tier_movq_pop_result(q, &r));
	CASE_EQ(tier_movq_reap(q), 0U);
	m->inflight--;
	m->moved++;
	CASE_EQ(tier_movq_reap(q), 0U);
	m->inflight--;
	CASE_EQ(tier_movq_reap(q), 1U);
	CASE_TRUE(tier_movq_pop_result(q, &r));
	CASE_EQ(r.id, id);
	CASE_EQ(r.outcome, (u32)TIER_MOVE_CANCELLED);
	CASE_EQ(r.moved, 9ULL);
	CASE_FALSE(tier_movq_pop_result(q, &r));
	/* The next is the head now, still queued. */
	CASE_EQ(tier_movq_at(q, 0)->id, id2);
	CASE_EQ(tier_movq_at(q, 0)->state, (u8)TIER_MOVE_QUEUED);
}

/* Progress: the whole range while queued, then what is left. */
static void movq_progress_test(CASE_CTX)
{
	struct tier_movq *q = movq_new(test);
	struct tier_move *m;
	u32 id;

	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_PIN, 100, 163, 0, &id), 0);
	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_PIN, 0, 15, 0, &id), 0);
	CASE_EQ(tier_movq_left(q), 80ULL);
	m = tier_movq_at(q, 0);
	m->state = TIER_MOVE_RUNNING;
	m->next = 164;
	m->inflight = 3;
	CASE_EQ(tier_move_left(m), 3ULL);
	CASE_EQ(tier_movq_left(q), 19ULL);
	CASE_EQ(tier_movq_reap(q), 0U);
	m->inflight = 0;
	CASE_EQ(tier_movq_reap(q), 1U);
	CASE_EQ(tier_movq_left(q), 16ULL);
}

/* One request of @kind over [@first, @last] to @tier, started: the head. */
static struct tier_move *movq_one_running(CASE_CTX, struct tier_movq *q,
					  u32 kind, u64 first, u64 last,
					  u32 tier)
{
	struct tier_move *m;
	u32 id;

	CASE_ASSERT_EQ(tier_movq_push(q, kind, first, last, tier, &id), 0);
	m = tier_movq_at(q, 0);
	m->state = TIER_MOVE_RUNNING;
	return m;
}

/* A request stopped by an error ends failed, with the errno. */
static void movq_failed_test(CASE_CTX)
{
	struct tier_movq *q = movq_new(test);
	struct tier_move_result r;
	struct tier_move *m;

	m = movq_one_running(test, q, TIER_MOVE_PIN, 0, 99, 0);
	m->next = 40;
	m->moved = 40;
	m->err = -ENOSPC;
	CASE_EQ(tier_move_left(m), 0ULL);
	CASE_EQ(tier_movq_reap(q), 1U);
	CASE_TRUE(tier_movq_pop_result(q, &r));
	CASE_EQ(r.outcome, (u32)TIER_MOVE_FAILED);
	CASE_EQ(r.err, -ENOSPC);
	CASE_EQ(r.kind, (u32)TIER_MOVE_PIN);
	CASE_EQ(r.moved, 40ULL);
}

/*
 * A copy that failed reading its source does not stop the request: the
 * rest of its range is still walked, and it ends failed (-EIO) once
 * walked, counting the copies that moved.
 */
static void movq_copy_error_test(CASE_CTX)
{
	struct tier_movq *q = movq_new(test);
	struct tier_move_result r;
	struct tier_move *m;

	m = movq_one_running(test, q, TIER_MOVE_MIGRATE, 0, 15, 1);
	m->next = 4;
	m->moved = 3;
	m->copy_errors = 1;
	/* Not over: the cursor has 12 extents left to walk. */
	CASE_EQ(tier_move_left(m), 12ULL);
	CASE_EQ(tier_movq_reap(q), 0U);
	m->next = 16;
	m->moved = 14;
	CASE_EQ(tier_movq_reap(q), 1U);
	CASE_TRUE(tier_movq_pop_result(q, &r));
	CASE_EQ(r.outcome, (u32)TIER_MOVE_FAILED);
	CASE_EQ(r.err, -EIO);
	CASE_EQ(r.moved, 14ULL);
}

/* Teardown ends every request once, as cancelled, in order. */
static void movq_cancel_all_test(CASE_CTX)
{
	struct tier_movq *q = movq_new(test);
	struct tier_move_result r;
	u32 id[TIER_MOVQ_MAX], i;

	for (i = 0; i < TIER_MOVQ_MAX; i++)
		CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, i, i, 1,
					      &id[i]),
			       0);
	tier_movq_at(q, 0)->state = TIER_MOVE_RUNNING;
	tier_movq_at(q, 0)->inflight = 1;
	CASE_EQ(tier_movq_cancel_all(q), (u32)TIER_MOVQ_MAX);
	CASE_EQ(q->nr, 0U);
	for (i = 0; i < TIER_MOVQ_MAX; i++) {
		CASE_ASSERT_TRUE(tier_movq_pop_result(q, &r));
		CASE_EQ(r.id, id[i]);
		CASE_EQ(r.outcome, (u32)TIER_MOVE_CANCELLED);
	}
	CASE_FALSE(tier_movq_pop_result(q, &r));
}

/* Unsent outcomes past the ring's size drop the oldest, counted. */
static void movq_results_full_test(CASE_CTX)
{
	struct tier_movq *q = movq_new(test);
	struct tier_move_result r;
	u32 id, i, first = 0;

	for (i = 0; i < TIER_MOVQ_RESULTS + 3; i++) {
		int r = tier_movq_push(q, TIER_MOVE_MIGRATE, 0, 0, 1, &id);

		CASE_ASSERT_EQ(r, 0);
		if (i == 3)
			first = id;
		CASE_ASSERT_EQ(tier_movq_cancel(q, id), 0);
	}
	CASE_EQ(q->res_dropped, 3ULL);
	CASE_TRUE(tier_movq_pop_result(q, &r));
	CASE_EQ(r.id, first);
}

/*
 * A tier inserted at 1 of 3: every request's tier and preference, and the
 * outcomes not yet sent, follow the map's table; ids, order, cursors stay.
 */
static void movq_renumber_insert_test(CASE_CTX)
{
	struct tier_movq *q = movq_new(test);
	struct tier_move_result r;
	u8 t[TIER_MAX_TIERS];
	struct tier_move *m;
	u32 id[5], i;

	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, 0, 9, 1, &id[0]),
		       0);
	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_PIN, 10, 19, 2, &id[1]), 0);
	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_EVACUATE, 0, 99, 2, &id[2]),
		       0);
	tier_movq_find(q, id[2])->pref = 1;
	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, 20, 29, 0, &id[3]),
		       0);
	/* One that ended, its outcome not sent yet. */
	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, 5, 5, 2, &id[4]),
		       0);
	CASE_ASSERT_EQ(tier_movq_cancel(q, id[4]), 0);
	m = tier_movq_at(q, 0);
	m->state = TIER_MOVE_RUNNING;
	m->next = 4;
	m->moved = 3;

	CASE_ASSERT_EQ(tier_map_renumber_table(3, true, 1, t), 0);
	CASE_EQ(tier_movq_renumber(q, t, 3, NULL), 0);
	CASE_EQ(q->nr, 4U);
	for (i = 0; i < 4; i++)
		CASE_EQ(tier_movq_at(q, i)->id, id[i]);
	m = tier_movq_at(q, 0);
	CASE_EQ(m->tier, 2U);
	CASE_EQ(m->state, (u8)TIER_MOVE_RUNNING);
	CASE_EQ(m->next, 4ULL);
	CASE_EQ(m->moved, 3ULL);
	CASE_EQ(tier_movq_at(q, 1)->tier, 3U);
	CASE_EQ(tier_movq_at(q, 2)->tier, 3U);
	CASE_EQ(tier_movq_at(q, 2)->pref, 2U);
	CASE_EQ(tier_movq_at(q, 3)->tier, 0U);
	CASE_EQ(tier_movq_at(q, 3)->pref, TIER_MOVE_NO_PREF);
	CASE_ASSERT_TRUE(tier_movq_pop_result(q, &r));
	CASE_EQ(r.id, id[4]);
	CASE_EQ(r.tier, 3U);
	CASE_FALSE(tier_movq_pop_result(q, &r));

	/* Appending renumbers nothing. */
	CASE_ASSERT_EQ(tier_map_renumber_table(4, true, 4, t), 0);
	CASE_EQ(tier_movq_renumber(q, t, 4, NULL), 0);
	CASE_EQ(tier_movq_at(q, 0)->tier, 2U);
	CASE_EQ(tier_movq_at(q, 1)->tier, 3U);
	CASE_EQ(q->nr, 4U);
}

/*
 * Tier 1 of 4 removed: the tiers after it move down; an evacuation of it
 * ends done (the tier is empty), a preference for it is dropped, and an
 * unsent outcome that named it names no tier.
 */
static void movq_renumber_remove_test(CASE_CTX)
{
	struct tier_movq *q = movq_new(test);
	struct tier_move_result r;
	u8 t[TIER_MAX_TIERS];
	u32 id[5];

	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, 0, 9, 3, &id[0]),
		       0);
	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_EVACUATE, 0, 99, 1, &id[1]),
		       0);
	tier_movq_find(q, id[1])->pref = 2;
	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_EVACUATE, 0, 99, 2, &id[2]),
		       0);
	tier_movq_find(q, id[2])->pref = 1;
	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_PIN, 30, 39, 0, &id[3]), 0);
	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, 5, 5, 1, &id[4]),
		       0);
	CASE_ASSERT_EQ(tier_movq_cancel(q, id[4]), 0);
	tier_movq_at(q, 1)->moved = 7;

	CASE_ASSERT_EQ(tier_map_renumber_table(4, false, 1, t), 0);
	CASE_EQ(tier_movq_renumber(q, t, 4, NULL), 0);
	CASE_ASSERT_EQ(q->nr, 3U);
	CASE_EQ(tier_movq_at(q, 0)->id, id[0]);
	CASE_EQ(tier_movq_at(q, 0)->tier, 2U);
	CASE_EQ(tier_movq_at(q, 1)->id, id[2]);
	CASE_EQ(tier_movq_at(q, 1)->tier, 1U);
	CASE_EQ(tier_movq_at(q, 1)->pref, TIER_MOVE_NO_PREF);
	CASE_EQ(tier_movq_at(q, 2)->id, id[3]);
	CASE_EQ(tier_movq_at(q, 2)->tier, 0U);
	/* The cancelled migrate's outcome, then the evacuation's. */
	CASE_ASSERT_TRUE(tier_movq_pop_result(q, &r));
	CASE_EQ(r.id, id[4]);
	CASE_EQ(r.outcome, (u32)TIER_MOVE_CANCELLED);
	CASE_EQ(r.tier, TIER_MOVE_NO_TIER);
	CASE_ASSERT_TRUE(tier_movq_pop_result(q, &r));
	CASE_EQ(r.id, id[1]);
	CASE_EQ(r.kind, (u32)TIER_MOVE_EVACUATE);
	CASE_EQ(r.outcome, (u32)TIER_MOVE_DONE);
	CASE_EQ(r.moved, 7ULL);
	CASE_EQ(r.tier, TIER_MOVE_NO_TIER);
	CASE_FALSE(tier_movq_pop_result(q, &r));
	/* Later outcomes name the new numbers. */
	CASE_ASSERT_EQ(tier_movq_cancel(q, id[0]), 0);
	CASE_ASSERT_TRUE(tier_movq_pop_result(q, &r));
	CASE_EQ(r.tier, 2U);
}

/*
 * A migrate or pin to the tier being removed cannot be renumbered: the
 * change is refused, naming it, and nothing changes; once it is cancelled
 * the change goes through.
 */
static void movq_renumber_blocked_test(CASE_CTX)
{
	struct tier_movq *q = movq_new(test);
	struct tier_movq *before = case_alloc(test, sizeof(*before));
	const struct tier_move *b;
	u8 t[TIER_MAX_TIERS];
	u32 id[3], got = 0;

	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, 0, 9, 3, &id[0]),
		       0);
	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_PIN, 0, 9, 2, &id[1]), 0);
	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, 0, 9, 2, &id[2]),
		       0);
	CASE_ASSERT_EQ(tier_map_renumber_table(4, false, 2, t), 0);
	b = tier_movq_renumber_blocker(q, t, 4);
	CASE_ASSERT_NOT_NULL(b);
	CASE_EQ(b->id, id[1]);
	memcpy(before, q, sizeof(*q));
	CASE_EQ(tier_movq_renumber(q, t, 4, &got), -EBUSY);
	CASE_EQ(got, id[1]);
	CASE_MEMEQ(q, before, sizeof(*q));

	CASE_ASSERT_EQ(tier_movq_cancel(q, id[1]), 0);
	b = tier_movq_renumber_blocker(q, t, 4);
	CASE_ASSERT_NOT_NULL(b);
	CASE_EQ(b->id, id[2]);
	CASE_ASSERT_EQ(tier_movq_cancel(q, id[2]), 0);
	CASE_NULL(tier_movq_renumber_blocker(q, t, 4));
	CASE_EQ(tier_movq_renumber(q, t, 4, NULL), 0);
	CASE_EQ(tier_movq_at(q, 0)->tier, 2U);

	/* An insertion never blocks. */
	CASE_ASSERT_EQ(tier_map_renumber_table(3, true, 1, t), 0);
	CASE_NULL(tier_movq_renumber_blocker(q, t, 3));
}

/* Copies in flight, or a tier outside the old list: refused, unchanged. */
static void movq_renumber_invalid_test(CASE_CTX)
{
	struct tier_movq *q = movq_new(test);
	u8 t[TIER_MAX_TIERS];
	struct tier_move *m;
	u32 id;

	CASE_ASSERT_EQ(tier_movq_push(q, TIER_MOVE_MIGRATE, 0, 9, 1, &id), 0);
	m = tier_movq_at(q, 0);
	m->state = TIER_MOVE_RUNNING;
	m->inflight = 1;
	CASE_ASSERT_EQ(tier_map_renumber_table(2, true, 1, t), 0);
	CASE_EQ(tier_movq_renumber(q, t, 2, NULL), -EINVAL);
	CASE_EQ(m->tier, 1U);
	m->inflight = 0;
	m->tier = 2;
	CASE_EQ(tier_movq_renumber(q, t, 2, NULL), -EINVAL);
	CASE_EQ(m->tier, 2U);
	m->tier = 1;
	CASE_EQ(tier_movq_renumber(q, t, 2, NULL), 0);
	CASE_EQ(m->tier, 2U);
}

static void movq_names_test(CASE_CTX)
{
	CASE_STREQ(tier_move_kind_name(TIER_MOVE_MIGRATE), "migrate");
	CASE_STREQ(tier_move_kind_name(TIER_MOVE_PIN), "pin");
	CASE_STREQ(tier_move_kind_name(TIER_MOVE_EVACUATE), "evacuate");
	CASE_STREQ(tier_move_state_name(TIER_MOVE_QUEUED), "queued");
	CASE_STREQ(tier_move_state_name(TIER_MOVE_RUNNING), "running");
	CASE_STREQ(tier_move_state_name(TIER_MOVE_CANCELLING), "cancelling");
	CASE_STREQ(tier_move_outcome_name(TIER_MOVE_DONE), "done");
	CASE_STREQ(tier_move_outcome_name(TIER_MOVE_CANCELLED), "cancelled");
	CASE_STREQ(tier_move_outcome_name(TIER_MOVE_FAILED), "failed");
}

/* clang-format off */
static struct case_entry movq_cases_all[] = {
	CASE_RUN(movq_fifo_test),
	CASE_RUN(movq_bound_test),
	CASE_RUN(movq_id_wrap_test),
	CASE_RUN(movq_cancel_queued_test),
	CASE_RUN(movq_cancel_running_test),
	CASE_RUN(movq_progress_test),
	CASE_RUN(movq_failed_test),
	CASE_RUN(movq_copy_error_test),
	CASE_RUN(movq_cancel_all_test),
	CASE_RUN(movq_results_full_test),
	CASE_RUN(movq_renumber_insert_test),
	CASE_RUN(movq_renumber_remove_test),
	CASE_RUN(movq_renumber_blocked_test),
	CASE_RUN(movq_renumber_invalid_test),
	CASE_RUN(movq_names_test),
	{}
};

/* clang-format on */
