/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-events.h - what tierd makes of a monitor notification about a device
 * it tracks (docs/tierd.md "Events and NVMe-oF recovery"). Pure: the
 * notification in, a decision out.
 */
#ifndef DM_TIER_TL_EVENTS_H
#define DM_TIER_TL_EVENTS_H

#include "tl-nl.h"

/*
 * The tier whose reconnection attempts the tier-recovered notification @ev
 * ends, or -1: the tier it names, when that tier is "ok" in the layout @ev
 * carries (its state when the kernel sent it). A tier that recovered and
 * failed again before the kernel sent the two events is announced
 * recovered while it is degraded or offline again: tierd goes on trying.
 * -1 for any other event, a missing or out-of-range tier, or no state.
 */
int tl_ev_recovered_tier(const struct tl_nl_dev *ev);

/*
 * Whether notification @ev is about the device tierd tracks with @uuid
 * (the uuid its last dev-new, listing or notification carried; "" when
 * none did). tierd tracks devices by name, and a dev-del carries the name
 * the kernel last saw, which a `dmsetup rename` since may have given to
 * another device: rename data to old, create a new data, remove old, and
 * the dev-del says "data". Different uuids: not this device. Without a
 * uuid on either side, the name decides (true).
 */
bool tl_ev_same_device(const char *uuid, const struct tl_nl_dev *ev);

#endif /* DM_TIER_TL_EVENTS_H */
