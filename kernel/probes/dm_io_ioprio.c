// SPDX-License-Identifier: GPL-2.0
/*
 * Feature probe (Kbuild: TIER_HAVE_DM_IO_IOPRIO): dm_io() takes an I/O
 * priority, as since 6.9 and in Debian's 6.1.1xx. Compiled, never linked:
 * it compiles only against headers whose dm_io() has that argument.
 */
#include <linux/dm-io.h>
#include <linux/ioprio.h>

int tier_probe(struct dm_io_request *req, struct dm_io_region *where,
	       unsigned long *error_bits);

int tier_probe(struct dm_io_request *req, struct dm_io_region *where,
	       unsigned long *error_bits)
{
	return dm_io(req, 1, where, error_bits, IOPRIO_DEFAULT);
}
