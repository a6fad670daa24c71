/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-recover.h - when tierd tries again to bring an NVMe-oF tier back after
 * a tier error, and when it gives up (docs/tierd.md "Events and NVMe-oF
 * recovery"). Pure: numbers in, numbers out.
 *
 * The attempts are 2, 4, 8, 16, 32 s apart, then every 60 s, for a window
 * that outlasts the kernel's own reconnecting: until the controllers'
 * ctrl_loss_tmo has run out (then the kernel deletes the controller, and
 * only tierd's connect, and the re-bind by label, bring the namespace back)
 * plus TL_RECOVER_MARGIN_S, at most TL_RECOVER_MAX_WINDOW_S.
 */
#ifndef DM_TIER_TL_RECOVER_H
#define DM_TIER_TL_RECOVER_H

#include <stdint.h>

#define TL_RECOVER_FIRST_DELAY_MS 2000
#define TL_RECOVER_MAX_DELAY_MS 60000
#define TL_RECOVER_MARGIN_S 300
#define TL_RECOVER_MAX_WINDOW_S 3600
/* The kernel's and tierctl's default ctrl_loss_tmo. */
#define TL_RECOVER_DEF_CTRL_LOSS_TMO 600

/*
 * How long, in ms from the first attempt, tierd keeps trying for a tier
 * whose controllers were connected with @ctrl_loss_tmo (seconds; -1 or
 * anything negative: the kernel reconnects forever). Returns
 * min(@ctrl_loss_tmo + TL_RECOVER_MARGIN_S, TL_RECOVER_MAX_WINDOW_S) s.
 */
int64_t tl_recover_window_ms(int ctrl_loss_tmo);

/*
 * The delay before the next attempt, after @failed failed attempts (1 for
 * the first), @elapsed_ms after the first attempt, in a window of
 * @window_ms: 2 s << (@failed - 1), at most TL_RECOVER_MAX_DELAY_MS; -1 when
 * the window is over (give up).
 */
int64_t tl_recover_next_delay_ms(unsigned int failed, int64_t elapsed_ms,
				 int64_t window_ms);

#endif /* DM_TIER_TL_RECOVER_H */
