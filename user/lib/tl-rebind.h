/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-rebind.h - re-binding a tier by its label: when the block device that
 * carries the label of tier N of a running device is not the one its table
 * names (an NVMe-oF namespace that came back under a new /dev name), the
 * table is reloaded with it (load, suspend, resume). Nothing is copied: the
 * kernel checks the label and swaps the device in at resume. Used by
 * `tierctl recover` and tierd.
 */
#ifndef DM_TIER_TL_REBIND_H
#define DM_TIER_TL_REBIND_H

#include <stdbool.h>

#include "tl.h"
#include "tl-sysfs.h"

/* What tl_rebind_tier() did. @from and @to are "/dev/..." (or MAJ:MIN). */
struct tl_rebind {
	bool rebound;
	char from[TL_PATH_LEN];
	char to[TL_PATH_LEN];
};

/*
 * The table parameters @params (`dmsetup table` form: "<extent_sectors>
 * <nr_tiers> <dev>... [<#opts> <opts>...]") with tier @tier's device
 * replaced by @dev, into @out. Pure. TL_OK, or TL_FAIL when @params has no
 * such tier or @out is too small.
 */
int tl_table_replace_tier(const char *params, u32 tier, const char *dev,
			  char *out, size_t len, struct tl_err *err);

/*
 * Re-bind tier @tier (not 0) of the dm-tier device @name. When the block
 * device its table names still exists (in sysfs), nothing is done: TL_OK,
 * @rb->rebound false. Otherwise (the namespace was deleted; the table
 * holds a dead device) find the block device whose label is that tier's
 * (tier 0's device UUID, that tier index) and reload the table with it.
 * TL_FAIL when no device (or more than one) carries the label, or the
 * reload failed (@err says why).
 */
int tl_rebind_tier(const char *name, u32 tier, struct tl_rebind *rb,
		   struct tl_err *err);

#endif /* DM_TIER_TL_REBIND_H */
