/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the one place that knows kernel versions.
 *
 * dm-tier builds against Debian 12's 6.1 and bookworm-backports' 6.12. Every
 * block/dm API difference between them is wrapped here. Distribution
 * kernels backport API changes (Debian's 6.1.1xx has 6.9's dm_io() ioprio
 * argument), so differences are detected by feature probes in Kbuild
 * (TIER_HAVE_* macros: each compiles a file of kernel/probes/ against the
 * headers being built for), not by version numbers.
 */
#ifndef DM_TIER_COMPAT_H
#define DM_TIER_COMPAT_H

#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <linux/dm-io.h>
#include <net/genetlink.h>

/* 6.9 (and Debian's 6.1.1xx) added an I/O priority argument to dm_io(). */
static inline int tier_compat_dm_io(struct dm_io_request *req,
				    unsigned int num_regions,
				    struct dm_io_region *where,
				    unsigned long *sync_error_bits)
{
#ifdef TIER_HAVE_DM_IO_IOPRIO
	return dm_io(req, num_regions, where, sync_error_bits, IOPRIO_DEFAULT);
#else
	return dm_io(req, num_regions, where, sync_error_bits);
#endif
}

/*
 * Whether @ti's table was loaded read-write (not "dmsetup create
 * --readonly"): the table's mode is an fmode_t with FMODE_WRITE on 6.1, a
 * blk_mode_t with BLK_OPEN_WRITE since 6.5.
 */
static inline bool tier_compat_table_writable(struct dm_target *ti)
{
#ifdef BLK_OPEN_WRITE
	return !!(dm_table_get_mode(ti->table) & BLK_OPEN_WRITE);
#else
	return !!(dm_table_get_mode(ti->table) & FMODE_WRITE);
#endif
}

/*
 * The discard limit a target sets in io_hints: 6.1 reads
 * max_discard_sectors, 6.10+ derives it from max_hw_discard_sectors. Both
 * exist in both, so set both.
 */
static inline void tier_compat_set_max_discard(struct queue_limits *limits,
					       unsigned int sectors)
{
	limits->max_discard_sectors = sectors;
	limits->max_hw_discard_sectors = sectors;
}

/*
 * The parsed request attributes of a generic netlink dump: 6.1 keeps them
 * in genl_dumpit_info, 6.2+ in the genl_info inside it (genl_info_dump()).
 */
static inline struct nlattr **
tier_compat_dump_attrs(struct netlink_callback *cb)
{
#ifdef TIER_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/*
 * An extack message naming what failed: 6.2+ formats it
 * (NL_SET_ERR_MSG_FMT); 6.1 gets the static @fallback.
 */
#ifdef NL_SET_ERR_MSG_FMT
#define tier_compat_err_fmt(extack, fallback, fmt, ...) \
	NL_SET_ERR_MSG_FMT(extack, fmt, ##__VA_ARGS__)
#else
#define tier_compat_err_fmt(extack, fallback, fmt, ...) \
	NL_SET_ERR_MSG(extack, fallback)
#endif

/*
 * A multicast group only CAP_SYS_ADMIN may join: genl_bind() checks
 * GENL_MCAST_CAP_SYS_ADMIN since 6.7, backported to 6.1.y (Debian's 6.1.1xx
 * and 6.12 have it). An older 6.1 offers a family no way to refuse a join
 * (no mcast_bind); there the group stays open, and its messages carry only
 * the dev layout that dev-get gives anyone.
 */
#ifdef GENL_MCAST_CAP_SYS_ADMIN
#define TIER_COMPAT_MCAST_SYS_ADMIN GENL_MCAST_CAP_SYS_ADMIN
#else
#define TIER_COMPAT_MCAST_SYS_ADMIN 0
#endif

#endif /* DM_TIER_COMPAT_H */
