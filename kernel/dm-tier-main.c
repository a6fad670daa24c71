// SPDX-License-Identifier: GPL-2.0
/*
 * dm-tier - device-mapper target presenting one block device over tiers.
 *
 * Module entry points.
 */
#include <linux/module.h>
#include <linux/device-mapper.h>

#include <uapi/linux/dm-tier-version.h>

#include "dm-tier.h"
#include "dm-tier-debug.h"
#include "dm-tier-netlink.h"
#include "dm-tier-target.h"

/*
 * The netlink family first: once the target is registered, a table can be
 * loaded and a device created at once, so nothing may fail after it (a
 * failed init would free the module under that table). Exit in reverse:
 * no table can exist then (each holds a module reference).
 */
static int __init dm_tier_init(void)
{
	int r;

	r = dm_tier_nl_register();
	if (r) {
		DMERR("cannot register the dm-tier netlink family: %d", r);
		return r;
	}
	r = tier_dbg_init_between();
	if (!r)
		r = dm_tier_target_register();
	if (r) {
		DMERR("cannot register the tier target: %d", r);
		dm_tier_nl_unregister();
		return r;
	}
	DMINFO("version %s loaded", DM_TIER_VERSION_STRING);
	return 0;
}

static void __exit dm_tier_exit(void)
{
	dm_tier_target_unregister();
	dm_tier_nl_unregister();
	DMINFO("unloaded");
}

module_init(dm_tier_init);
module_exit(dm_tier_exit);

MODULE_DESCRIPTION(DM_NAME
		   " tiering target (hot NVMe, CXL memory, NVMe-oF capacity)");
MODULE_LICENSE("GPL");
MODULE_VERSION(DM_TIER_VERSION_STRING);
