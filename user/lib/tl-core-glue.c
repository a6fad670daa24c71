// SPDX-License-Identifier: GPL-2.0
/* What kernel/core needs in userspace beyond tier-internal-user.h's macros:
 * crc32c (Castagnoli, reflected 0x82F63B78) matching the kernel's
 * crc32c(seed, buf, len): no pre/post inversion, the caller passes the seed.
 * Bitwise: the core checksums 4 KiB blocks, rarely, in tools and tests. */
#include "tier-internal.h"

u32 tier_user_crc32c(u32 crc, const void *buf, size_t len)
{
	const u8 *p = buf;
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
	}
	return crc;
}
