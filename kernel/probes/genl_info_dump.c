// SPDX-License-Identifier: GPL-2.0
/*
 * Feature probe (Kbuild: TIER_HAVE_GENL_INFO_DUMP): a generic netlink dump
 * finds its parsed attributes through genl_info_dump() (6.2+). Compiled,
 * never linked: it compiles only against headers that have it.
 */
#include <net/genetlink.h>

struct nlattr **tier_probe(struct netlink_callback *cb);

struct nlattr **tier_probe(struct netlink_callback *cb)
{
	return genl_info_dump(cb)->attrs;
}
