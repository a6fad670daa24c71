/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-sys.h - include first in libtier/tierctl files that need system headers
 * pulling in <linux/types.h> (<sys/stat.h> with _GNU_SOURCE via statx,
 * <libdevmapper.h>, <linux/fs.h>).
 *
 * The force-included tests/unit/tier-internal-user.h typedefs __le16/32/64
 * as uintN_t; <linux/types.h> typedefs them as __uN, and for 64 bits the two
 * differ (unsigned long vs unsigned long long), which is a compile error.
 * This header provides what <linux/types.h> would, minus those typedefs, and
 * takes its include guard so that the real one is skipped.
 */
#ifndef DM_TIER_TL_SYS_H
#define DM_TIER_TL_SYS_H

#include <asm/types.h>
#include <linux/posix_types.h>

#ifndef _LINUX_TYPES_H
#define _LINUX_TYPES_H
#ifndef __bitwise
#define __bitwise
#endif
#define __bitwise__ __bitwise
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u64 __be64;
typedef __u16 __sum16;
typedef __u32 __wsum;
#define __aligned_u64 __u64 __attribute__((aligned(8)))
#define __aligned_s64 __s64 __attribute__((aligned(8)))
#define __aligned_be64 __be64 __attribute__((aligned(8)))
#define __aligned_le64 __le64 __attribute__((aligned(8)))
typedef unsigned __poll_t;
#endif

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#endif /* DM_TIER_TL_SYS_H */
