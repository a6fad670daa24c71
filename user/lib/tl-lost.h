/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-lost.h - which byte ranges of a device live on tiers that are not ok
 * (tierctl where --lost, status, evacuate-lost): the extent-dump of the
 * whole device, kept for the tiers whose state is not "ok", merged into
 * ranges. The state test and the merge are pure (unit-tested); the scan
 * asks the kernel.
 */
#ifndef DM_TIER_TL_LOST_H
#define DM_TIER_TL_LOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl.h"
#include "tl-nl.h"

/*
 * Whether a tier state means "its data may be unreadable": every state but
 * "ok" (degraded today; offline and later states count without a change
 * here). An empty or unknown state counts as not ok too.
 */
bool tl_tier_state_lost(const char *state);

/* One byte range of the device whose extents are on one lost tier. */
struct tl_lost_range {
	uint64_t start, len;
	uint32_t tier;
};

/*
 * The lost ranges of a device, in device order. @tier_lost has bit i when
 * tier i is not ok; @bytes[i] counts the bytes on tier i; @bytes_total
 * their sum.
 */
struct tl_lost {
	uint64_t extent_bytes, size_bytes;
	uint32_t tier_lost;
	struct tl_lost_range *r;
	size_t nr, cap;
	uint64_t bytes[TIER_MAX_TIERS];
	uint64_t bytes_total;
};

/* Start: which tiers of @dev are lost (nothing allocated yet). */
void tl_lost_init(struct tl_lost *l, const struct tl_nl_dev *dev);

/*
 * Add mapped extent @index on @tier (increasing @index, as extent-dump
 * sends them); ignored unless @tier is lost. Merged with the previous
 * range when adjacent and on the same tier; the last extent is cut at the
 * device size. 0 or -ENOMEM.
 */
int tl_lost_add(struct tl_lost *l, uint64_t index, uint32_t tier);

void tl_lost_free(struct tl_lost *l);

/*
 * Keep only what lives on @tier (evacuate-lost forgets one tier): the
 * other tiers' ranges are dropped, @l->tier_lost and @l->bytes name only
 * @tier, @l->nr and @l->bytes_total count only its ranges and bytes.
 */
void tl_lost_keep_tier(struct tl_lost *l, uint32_t tier);

/*
 * Fill @l for device @name (@dev from dev-get) with an extent-dump of the
 * whole device; nothing is dumped when every tier is ok. TL_OK or the
 * netlink call's result (CAP_SYS_ADMIN needed).
 */
int tl_lost_scan(struct tl_nl *nl, const char *name,
		 const struct tl_nl_dev *dev, struct tl_lost *l,
		 struct tl_err *err);

/*
 * Print the ranges (JSON: "lost_tiers" [{tier, state}], "lost_bytes",
 * "lost_ranges" [{device_offset, length, tier}]; all of them); text shows
 * at most @max_text ranges (0: all) and then how many more there are;
 * byte counts as plain numbers, or as "1.5 GiB" with @human.
 */
void tl_print_lost(const struct tl_lost *l, const struct tl_nl_dev *dev,
		   size_t max_text, bool human);

#endif /* DM_TIER_TL_LOST_H */
