// SPDX-License-Identifier: GPL-2.0
/*
 * tierd: decisions on monitor notifications (see tl-events.h).
 */
#include <string.h>

#include <linux/dm-tier.h>

#include "tl-events.h"

int tl_ev_recovered_tier(const struct tl_nl_dev *ev)
{
	uint32_t t = ev->event_tier;

	if (ev->event != DM_TIER_EVENT_TIER_RECOVERED || !ev->has_event_tier ||
	    t >= ev->nr_tiers || t >= TIER_MAX_TIERS)
		return -1;
	return strcmp(ev->tiers[t].state, "ok") ? -1 : (int)t;
}

bool tl_ev_same_device(const char *uuid, const struct tl_nl_dev *ev)
{
	return !uuid[0] || !ev->uuid[0] || !strcmp(uuid, ev->uuid);
}
