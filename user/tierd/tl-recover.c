// SPDX-License-Identifier: GPL-2.0
/*
 * tierd: the schedule of NVMe-oF tier recovery attempts, and which tier
 * they are for (see tl-recover.h).
 */
#include <string.h>

#include "tl-recover.h"

int64_t tl_recover_window_ms(int ctrl_loss_tmo)
{
	int64_t s = TL_RECOVER_MAX_WINDOW_S;

	if (ctrl_loss_tmo >= 0 &&
	    (int64_t)ctrl_loss_tmo + TL_RECOVER_MARGIN_S < s)
		s = (int64_t)ctrl_loss_tmo + TL_RECOVER_MARGIN_S;
	return s * 1000;
}

int64_t tl_recover_next_delay_ms(unsigned int failed, int64_t elapsed_ms,
				 int64_t window_ms)
{
	int64_t delay = TL_RECOVER_MAX_DELAY_MS;

	if (elapsed_ms >= window_ms)
		return -1;
	if (failed < 1)
		failed = 1;
	if (failed <= 6)
		delay = (int64_t)TL_RECOVER_FIRST_DELAY_MS << (failed - 1);
	if (delay > TL_RECOVER_MAX_DELAY_MS)
		delay = TL_RECOVER_MAX_DELAY_MS;
	return delay;
}

struct tl_recover *tl_recover_find(struct tl_recover *r, size_t n,
				   const char *device)
{
	size_t i;

	for (i = 0; device[0] && i < n; i++)
		if (r[i].active && !strcmp(r[i].device, device))
			return &r[i];
	return NULL;
}

int tl_recover_tier_of(const struct tl_nl_dev *nd, const char *device)
{
	uint32_t t;

	for (t = 0; device[0] && t < nd->nr_tiers && t < TIER_MAX_TIERS; t++)
		if (!strcmp(nd->tiers[t].device, device))
			return (int)t;
	return -1;
}

enum tl_recover_rekey tl_recover_rekey(struct tl_recover *r,
				       const struct tl_nl_dev *nd)
{
	int t;

	if (!r->active || !r->device[0] || !nd->nr_tiers)
		return TL_RECOVER_SAME;
	t = tl_recover_tier_of(nd, r->device);
	if (t < 0) {
		r->active = false;
		return TL_RECOVER_GONE;
	}
	if ((uint32_t)t == r->tier)
		return TL_RECOVER_SAME;
	r->tier = (uint32_t)t;
	return TL_RECOVER_MOVED;
}
