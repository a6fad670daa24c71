/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tier-internal.h - the only header kernel/core/ files include.
 *
 * Core files hold pure logic (no I/O, no locks, no sleeping) that is built
 * unchanged into dm-tier.ko and into the userspace unit tests. This file maps
 * what they need onto kernel headers; user/lib/tier-internal-user.h is
 * force-included by the userspace build, defines the same include guard with
 * libc equivalents, and so substitutes this file wholesale (the
 * mm/vma_internal.h + tools/testing/vma pattern).
 */
#ifndef DM_TIER_CORE_INTERNAL_H
#define DM_TIER_CORE_INTERNAL_H

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/limits.h>
#include <linux/bitops.h>
#include <linux/bitmap.h>
#include <linux/align.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/build_bug.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/crc32c.h>
#include <linux/atomic.h>
#include <asm/byteorder.h>

/* Allocation of large arrays (extent maps); may sleep. */
#define tier_zalloc_array(n, size) kvcalloc((n), (size), GFP_KERNEL)
#define tier_free_array(p) kvfree(p)

#define tier_crc32c(seed, buf, len) crc32c((seed), (buf), (len))

/* Compare-and-exchange of a u64 (map words); returns the old value. */
#define tier_cmpxchg64(ptr, old, new) cmpxchg64((ptr), (old), (new))

#endif /* DM_TIER_CORE_INTERNAL_H */
