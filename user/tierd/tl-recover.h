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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl-nl.h"

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

/*
 * Bringing one NVMe-oF tier back. Tier indices change under tierd: add-tier
 * --position, remove-tier and replace-tier renumber the tiers (the kernel
 * renumbers its map and move queue, and every notification and dev-get
 * after carries the new list). So the attempts are kept by the tier's
 * block device, as dev-get names it ("nvme3n1": one block device at a
 * time; a re-bind by label gives the tier another, which tierd's own
 * re-bind records), and @tier is only where that device was last seen.
 * Before 2026-12-07 they were kept by index: after a renumbering tier-recover
 * went to the old index, the kernel probed a healthy tier there, answered
 * success, and tierd stopped while the real tier stayed offline.
 */
struct tl_recover {
	bool active;
	uint32_t tier;		/* its index in the last tier list seen */
	unsigned int attempt;	/* attempts made */
	int64_t first_ms;	/* when the first was due */
	int64_t window_ms;	/* give up this long after it */
	int64_t next_ms;
	char device[64];	/* the key: the tier's block device (nvme3n1) */
};

/* The active entry of @r (@n of them) recovering @device, or NULL. */
struct tl_recover *tl_recover_find(struct tl_recover *r, size_t n,
				   const char *device);

/*
 * The index of the tier of @nd (a dev-get reply or notification) whose
 * block device is @device, or -1 when none is.
 */
int tl_recover_tier_of(const struct tl_nl_dev *nd, const char *device);

enum tl_recover_rekey {
	TL_RECOVER_SAME,	/* the tier is still at @r->tier */
	TL_RECOVER_MOVED,	/* renumbered: @r->tier is its new index */
	TL_RECOVER_GONE,	/* its device is no tier any more: dropped */
};

/*
 * tl_recover_rekey() - follow tier list @nd (dev-get before each attempt,
 * and every notification and listing): @r->tier becomes the index of
 * @r->device in @nd. A device that is no tier of @nd any more (the tier
 * was removed, or replaced by another device) ends @r (active false):
 * nothing of this device is left to bring back there. @nd without a tier
 * list, an inactive @r, or one without a device, changes nothing.
 */
enum tl_recover_rekey tl_recover_rekey(struct tl_recover *r,
				       const struct tl_nl_dev *nd);

#endif /* DM_TIER_TL_RECOVER_H */
