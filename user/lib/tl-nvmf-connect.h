/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-nvmf-connect.h - connecting NVMe-oF tiers with libnvme, and
 * disconnecting them.
 */
#ifndef DM_TIER_TL_NVMF_CONNECT_H
#define DM_TIER_TL_NVMF_CONNECT_H

#include <stdbool.h>
#include <stddef.h>

#include "tl-nvmf-uri.h"

/*
 * Connect (or find the existing connection to) @u and return the block
 * device of its first namespace in @dev ("/dev/nvme1n1"), waiting up to 10 s
 * for it to appear. TL_OK or TL_FAIL.
 */
int tl_nvmf_connect(const struct tl_nvmf_uri *u, const struct tl_nvmf_opts *o,
		    char *dev, size_t devlen, struct tl_err *err);

/*
 * tl_nvmf_connect() that also says whether this call made the connection
 * (*@connected_now true) or found it already there (false): a command that
 * fails later disconnects only what it connected.
 */
int tl_nvmf_connect_ex(const struct tl_nvmf_uri *u,
		       const struct tl_nvmf_opts *o, char *dev, size_t devlen,
		       bool *connected_now, struct tl_err *err);

/* Disconnect the controller(s) connected to @u. TL_OK (also when none is
 * connected) or TL_FAIL. */
int tl_nvmf_disconnect(const struct tl_nvmf_uri *u, struct tl_err *err);

/*
 * Disconnect the NVMe-oF controllers behind block device @maj:@min (a
 * namespace, or a multipath namespace head) unless another of their
 * namespaces is in use. Fills @uris with what was disconnected (up to @max)
 * and returns how many; 0 when @maj:@min is not an NVMe-oF namespace; -1 on
 * failure (@err says why).
 */
int tl_nvmf_disconnect_blockdev(unsigned int maj, unsigned int min,
				struct tl_nvmf_uri *uris, int max,
				struct tl_err *err);

#endif /* DM_TIER_TL_NVMF_CONNECT_H */
