/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm-tier-netlink.h - the "dm-tier" generic netlink family
 * (dm-tier-netlink.c): device and policy queries, policy changes,
 * migrate/pin/unpin, the heat map, tier recovery and monitor events.
 *
 * Layer: the top, beside the module init: it calls the target
 * (dm-tier-target.h) and everything below; nothing calls it but
 * dm-tier-main.c. Events reach it through the pool's event sink
 * (tier_pool_set_event_ops()), which it sets at registration.
 *
 * Locking: every operation holds tier_pools_mutex while it acts on a pool,
 * except what may wait on a tier's I/O (tier-recover's probe flush,
 * tier-forget, evacuate's superblock flag): that runs with the pool pinned
 * (tier_pool_pin()) and the mutex dropped. The family has parallel_ops:
 * genl_mutex is not held either.
 * Not built without CONFIG_NET (the UML KUnit kernel): events are then
 * dropped, since nobody sets the sink.
 */
#ifndef DM_TIER_NETLINK_H
#define DM_TIER_NETLINK_H

/**
 * dm_tier_nl_register() - register the "dm-tier" generic netlink family.
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int dm_tier_nl_register(void);

/**
 * dm_tier_nl_unregister() - unregister it.
 *
 * Context: module exit, after the target (no pool is left).
 */
void dm_tier_nl_unregister(void);

#endif /* DM_TIER_NETLINK_H */
