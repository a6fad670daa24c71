/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the one place that knows kernel versions.
 *
 * dm-tier builds against Debian 12's 6.1 and bookworm-backports' 6.12. Every
 * block/dm API difference between them is wrapped here; no other file tests
 * LINUX_VERSION_CODE.
 */
#ifndef DM_TIER_COMPAT_H
#define DM_TIER_COMPAT_H

#include <linux/version.h>

#endif /* DM_TIER_COMPAT_H */
