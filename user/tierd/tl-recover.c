// SPDX-License-Identifier: GPL-2.0
/*
 * tierd: the schedule of NVMe-oF tier recovery attempts (see tl-recover.h).
 */
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
