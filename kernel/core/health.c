// SPDX-License-Identifier: GPL-2.0
/*
 * health.c - the tier health and metadata mode state machines (health.h).
 */
#include "health.h"

enum tier_health tier_health_next(enum tier_health cur,
				  enum tier_health_event ev, u32 err_run,
				  bool meta)
{
	enum tier_health worst = meta ? TIER_HEALTH_DEGRADED :
					TIER_HEALTH_OFFLINE;
	enum tier_health next = cur;

	switch (ev) {
	case TIER_HEV_RECOVERED:
		return TIER_HEALTH_OK;
	case TIER_HEV_IO_ERROR:
		next = err_run >= TIER_OFFLINE_ERRORS ? TIER_HEALTH_OFFLINE :
							TIER_HEALTH_DEGRADED;
		break;
	case TIER_HEV_PATH_ERROR:
	case TIER_HEV_FLUSH_ERROR:
		next = TIER_HEALTH_OFFLINE;
		break;
	default:
		return cur;
	}
	if (next > worst)
		next = worst;
	return next > cur ? next : cur;
}

const char *tier_health_name(enum tier_health h)
{
	switch (h) {
	case TIER_HEALTH_OK:
		return "ok";
	case TIER_HEALTH_DEGRADED:
		return "degraded";
	default:
		return "offline";
	}
}

enum tier_md_mode tier_md_mode_next(enum tier_md_mode cur,
				    enum tier_md_event ev, u32 fails, u32 secs)
{
	if (cur == TIER_MODE_FAIL)
		return TIER_MODE_FAIL;
	switch (ev) {
	case TIER_MDEV_COMMIT_OK:
		return TIER_MODE_WRITE;
	case TIER_MDEV_COMMIT_FAIL:
		if (cur == TIER_MODE_READ_ONLY &&
		    fails >= TIER_MD_FAIL_COMMITS && secs >= TIER_MD_FAIL_SECS)
			return TIER_MODE_FAIL;
		return TIER_MODE_READ_ONLY;
	case TIER_MDEV_COMMIT_FAIL_QUIET:
		return TIER_MODE_READ_ONLY;
	default:
		return cur;
	}
}

bool tier_offq_may_park(u32 queue_s, bool closed)
{
	return queue_s && !closed;
}

u64 tier_offq_deadline(u64 now, u32 queue_s, u32 hz)
{
	u64 d = (u64)queue_s * hz;

	return now + (d ? d : 1);
}

enum tier_offq_action tier_offq_next(bool offline, bool closed, u64 now,
				     u64 deadline)
{
	if (!offline)
		return TIER_OFFQ_REISSUE;
	if (closed || now >= deadline)
		return TIER_OFFQ_FAIL;
	return TIER_OFFQ_WAIT;
}

u64 tier_offq_delay(u64 now, u64 deadline)
{
	return deadline > now ? deadline - now : 0;
}

void tier_ev_renumber(unsigned long *ev, u32 nr_events, u32 per_tier,
		      const u8 *table)
{
	u32 e, t, base, moved;

	for (e = 0; e < nr_events && e < 32; e++) {
		if (!(per_tier & BIT(e)))
			continue;
		base = e * TIER_MAX_TIERS;
		moved = 0;
		/* Collect first: a tier's new index may be another's old. */
		for (t = 0; t < TIER_MAX_TIERS; t++) {
			if (!test_bit(base + t, ev))
				continue;
			__clear_bit(base + t, ev);
			if (table[t] < TIER_MAX_TIERS)
				moved |= BIT(table[t]);
		}
		for (t = 0; t < TIER_MAX_TIERS; t++)
			if (moved & BIT(t))
				__set_bit(base + t, ev);
	}
}
