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
	r->err = 0;
	if (outcome == TIER_MOVE_FAILED)
		r->err = m->err ? m->err : -EIO;
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

/* How @m ends now that it is over. */
static u32 tier_move_outcome(const struct tier_move *m)
{
	if (m->state == TIER_MOVE_CANCELLING)
		return TIER_MOVE_CANCELLED;
	return m->err || m->copy_errors ? TIER_MOVE_FAILED : TIER_MOVE_DONE;
}

u32 tier_movq_reap(struct tier_movq *q)
{
	struct tier_move *m;
	u32 n = 0;

	while ((m = tier_movq_at(q, 0)) && tier_move_over(m)) {
		tier_movq_result(q, m, tier_move_outcome(m));
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

/* @t through @table: 0 kept, 1 removed, -EINVAL for a bad tier or entry. */
static int tier_movq_map(const u8 *table, u32 nr_old, u32 t, u32 *out)
{
	if (t >= nr_old || nr_old > TIER_MAX_TIERS)
		return -EINVAL;
	if (table[t] == TIER_RENUM_GONE)
		return 1;
	if (table[t] >= TIER_MAX_TIERS)
		return -EINVAL;
	*out = table[t];
	return 0;
}

/* Whether @m blocks the change: a migrate or pin to a removed tier. */
static bool tier_move_blocks(const struct tier_move *m, const u8 *table,
			     u32 nr_old)
{
	u32 t;

	return m->kind != TIER_MOVE_EVACUATE &&
	       tier_movq_map(table, nr_old, m->tier, &t) == 1;
}

const struct tier_move *tier_movq_renumber_blocker(struct tier_movq *q,
						   const u8 *table, u32 nr_old)
{
	struct tier_move *m;
	u32 i;

	for (i = 0; (m = tier_movq_at(q, i)); i++)
		if (tier_move_blocks(m, table, nr_old))
			return m;
	return NULL;
}

int tier_movq_renumber(struct tier_movq *q, const u8 *table, u32 nr_old,
		       u32 *id)
{
	struct tier_move_result *r;
	struct tier_move *m;
	u32 i, t;
	int ret;

	/* Check first: a refusal leaves the queue as it was. */
	for (i = 0; (m = tier_movq_at(q, i)); i++) {
		if (tier_move_blocks(m, table, nr_old)) {
			if (id)
				*id = m->id;
			return -EBUSY;
		}
		if (m->inflight ||
		    tier_movq_map(table, nr_old, m->tier, &t) < 0)
			return -EINVAL;
	}
	/*
	 * An evacuation of a removed tier is over (done, unless it had
	 * failed or was being cancelled): it ends with the old numbers.
	 */
	i = 0;
	while ((m = tier_movq_at(q, i))) {
		if (tier_movq_map(table, nr_old, m->tier, &t) != 1) {
			i++;
			continue;
		}
		tier_movq_result(q, m, tier_move_outcome(m));
		if (i) {
			tier_movq_remove(q, i);
		} else {
			q->head = (q->head + 1) % TIER_MOVQ_MAX;
			q->nr--;
		}
	}
	for (i = 0; (m = tier_movq_at(q, i)); i++) {
		tier_movq_map(table, nr_old, m->tier, &m->tier);
		if (m->pref == TIER_MOVE_NO_PREF)
			continue;
		/* Only a preference: a removed one lets the usual choice pick. */
		ret = tier_movq_map(table, nr_old, m->pref, &t);
		m->pref = ret ? TIER_MOVE_NO_PREF : t;
	}
	for (i = 0; i < q->res_nr; i++) {
		r = &q->res[(q->res_head + i) % TIER_MOVQ_RESULTS];
		/* Removed (or no tier already): nothing to name. */
		ret = tier_movq_map(table, nr_old, r->tier, &t);
		r->tier = ret ? TIER_MOVE_NO_TIER : t;
	}
	return 0;
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
