// SPDX-License-Identifier: GPL-2.0
/*
 * movq.c - the queue of explicit move requests (movq.h).
 */
#include "movq.h"

void tier_movq_init(struct tier_movq *q)
{
	memset(q, 0, sizeof(*q));
}

struct tier_move *tier_movq_at(struct tier_movq *q, u32 i)
{
	if (i >= q->nr)
		return NULL;
	return &q->q[(q->head + i) % TIER_MOVQ_MAX];
}

struct tier_move *tier_movq_find(struct tier_movq *q, u32 id)
{
	struct tier_move *m;
	u32 i;

	for (i = 0; (m = tier_movq_at(q, i)); i++)
		if (m->id == id)
			return m;
	return NULL;
}

int tier_movq_push(struct tier_movq *q, u32 kind, u64 first, u64 last, u32 tier,
		   u32 *id)
{
	struct tier_move *m;
	u32 n;

	if (kind >= TIER_MOVE_KINDS || last < first)
		return -EINVAL;
	if (q->nr >= TIER_MOVQ_MAX)
		return -EBUSY;
	/* The next id not 0 and not queued (after a wrap). */
	do {
		n = ++q->last_id;
	} while (!n || tier_movq_find(q, n));
	m = &q->q[(q->head + q->nr) % TIER_MOVQ_MAX];
	memset(m, 0, sizeof(*m));
	m->id = n;
	m->kind = kind;
	m->state = TIER_MOVE_QUEUED;
	m->tier = tier;
	m->pref = TIER_MOVE_NO_PREF;
	m->first = first;
	m->last = last;
	m->next = first;
	q->nr++;
	*id = n;
	return 0;
}

u64 tier_move_left(const struct tier_move *m)
{
	u64 left;

	if (m->state == TIER_MOVE_QUEUED)
		return m->last - m->first + 1;
	left = m->inflight;
	if (m->state == TIER_MOVE_RUNNING && !m->err && m->next <= m->last)
		left += m->last - m->next + 1;
	return left;
}

u64 tier_movq_left(struct tier_movq *q)
{
	struct tier_move *m;
	u64 n = 0;
	u32 i;

	for (i = 0; (m = tier_movq_at(q, i)); i++)
		n += tier_move_left(m);
	return n;
}

static void tier_movq_result(struct tier_movq *q, const struct tier_move *m,
			     u32 outcome)
{
	struct tier_move_result *r;

	if (q->res_nr == TIER_MOVQ_RESULTS) {
		/* Nobody took them: the oldest goes. */
		q->res_head = (q->res_head + 1) % TIER_MOVQ_RESULTS;
		q->res_nr--;
		q->res_dropped++;
	}
	r = &q->res[(q->res_head + q->res_nr) % TIER_MOVQ_RESULTS];
	r->id = m->id;
	r->kind = m->kind;
	r->tier = m->tier;
	r->outcome = outcome;
	r->err = outcome == TIER_MOVE_FAILED ? m->err : 0;
	r->moved = m->moved;
	q->res_nr++;
}

/* Take the request at position @i out of the ring, keeping the order. */
static void tier_movq_remove(struct tier_movq *q, u32 i)
{
	for (; i + 1 < q->nr; i++)
		*tier_movq_at(q, i) = *tier_movq_at(q, i + 1);
	q->nr--;
}

int tier_movq_cancel(struct tier_movq *q, u32 id)
{
	struct tier_move *m;
	u32 i;

	for (i = 0; (m = tier_movq_at(q, i)); i++) {
		if (m->id != id)
			continue;
		if (m->inflight) {
			m->state = TIER_MOVE_CANCELLING;
			return 0;
		}
		tier_movq_result(q, m, TIER_MOVE_CANCELLED);
		if (i) {
			tier_movq_remove(q, i);
		} else {
			q->head = (q->head + 1) % TIER_MOVQ_MAX;
			q->nr--;
		}
		return 0;
	}
	return -ENOENT;
}

static bool tier_move_over(const struct tier_move *m)
{
	if (m->inflight)
		return false;
	return m->state == TIER_MOVE_CANCELLING || m->err ||
	       (m->state == TIER_MOVE_RUNNING && m->next > m->last);
}

u32 tier_movq_reap(struct tier_movq *q)
{
	struct tier_move *m;
	u32 n = 0, outcome;

	while ((m = tier_movq_at(q, 0)) && tier_move_over(m)) {
		if (m->state == TIER_MOVE_CANCELLING)
			outcome = TIER_MOVE_CANCELLED;
		else if (m->err)
			outcome = TIER_MOVE_FAILED;
		else
			outcome = TIER_MOVE_DONE;
		tier_movq_result(q, m, outcome);
		q->head = (q->head + 1) % TIER_MOVQ_MAX;
		q->nr--;
		n++;
	}
	return n;
}

u32 tier_movq_cancel_all(struct tier_movq *q)
{
	struct tier_move *m;
	u32 n = 0;

	while ((m = tier_movq_at(q, 0))) {
		tier_movq_result(q, m, TIER_MOVE_CANCELLED);
		q->head = (q->head + 1) % TIER_MOVQ_MAX;
		q->nr--;
		n++;
	}
	return n;
}

bool tier_movq_pop_result(struct tier_movq *q, struct tier_move_result *res)
{
	if (!q->res_nr)
		return false;
	*res = q->res[q->res_head];
	q->res_head = (q->res_head + 1) % TIER_MOVQ_RESULTS;
	q->res_nr--;
	return true;
}

const char *tier_move_kind_name(u32 kind)
{
	switch (kind) {
	case TIER_MOVE_MIGRATE:
		return "migrate";
	case TIER_MOVE_PIN:
		return "pin";
	case TIER_MOVE_EVACUATE:
		return "evacuate";
	default:
		return "unknown";
	}
}

const char *tier_move_state_name(u32 state)
{
	switch (state) {
	case TIER_MOVE_QUEUED:
		return "queued";
	case TIER_MOVE_RUNNING:
		return "running";
	case TIER_MOVE_CANCELLING:
		return "cancelling";
	default:
		return "unknown";
	}
}

const char *tier_move_outcome_name(u32 outcome)
{
	switch (outcome) {
	case TIER_MOVE_DONE:
		return "done";
	case TIER_MOVE_CANCELLED:
		return "cancelled";
	case TIER_MOVE_FAILED:
		return "failed";
	default:
		return "unknown";
	}
}
