/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-nvmf.h - NVMe-oF tiers: nvmf:// URIs, connecting with libnvme, and the
 * record of connections that `tierctl activate` (and tierd, after a tier
 * error) replays.
 *
 * URI: nvmf://TRANSPORT/ADDR:PORT/SUBSYSNQN, TRANSPORT "tcp" (or "rdma"),
 * ADDR an IPv4 address, a host name or [IPv6]. Example:
 *   nvmf://tcp/127.0.0.1:4420/nqn.2024-01.io.dm-tier:cold0
 *
 * The record is one URI per line with its options
 * ("URI ctrl_loss_tmo=N reconnect_delay=N") in
 * $TIER_STATE_DIR/nvmf.conf, default /etc/dm-tier/nvmf.conf.
 */
#ifndef DM_TIER_TL_NVMF_H
#define DM_TIER_TL_NVMF_H

#include <stddef.h>

#include "tl.h"

struct tl_nvmf_uri {
	char transport[8];
	char traddr[64];
	char trsvcid[8];
	char subsysnqn[224];
};

struct tl_nvmf_opts {
	int ctrl_loss_tmo;	/* seconds, -1 forever; default 600 */
	int reconnect_delay;	/* seconds; default 2 */
};

/* Whether @s starts with "nvmf://". */
int tl_nvmf_is_uri(const char *s);
/* TL_OK or TL_USAGE with a message naming the bad part. */
int tl_nvmf_parse_uri(const char *s, struct tl_nvmf_uri *u, struct tl_err *err);
/* The canonical URI text; snprintf-like return. */
int tl_nvmf_format_uri(const struct tl_nvmf_uri *u, char *buf, size_t len);
void tl_nvmf_opts_default(struct tl_nvmf_opts *o);

/*
 * Connect (or find the existing connection to) @u and return the block
 * device of its first namespace in @dev ("/dev/nvme1n1"), waiting up to 10 s
 * for it to appear. TL_OK or TL_FAIL.
 */
int tl_nvmf_connect(const struct tl_nvmf_uri *u, const struct tl_nvmf_opts *o,
		    char *dev, size_t devlen, struct tl_err *err);

/* The record file path ($TIER_STATE_DIR/nvmf.conf or the default). */
const char *tl_nvmf_record_path(void);
/* Add (or update the options of) @u in the record. */
int tl_nvmf_record_add(const struct tl_nvmf_uri *u,
		       const struct tl_nvmf_opts *o, struct tl_err *err);
/* Drop @u from the record (tierctl remove --disconnect). */
int tl_nvmf_record_del(const struct tl_nvmf_uri *u, struct tl_err *err);
/*
 * Connect every recorded URI that is not connected yet. Returns the number
 * that failed (each also appended to @err), so 0 means all are up.
 */
int tl_nvmf_connect_recorded(struct tl_err *err);

#endif /* DM_TIER_TL_NVMF_H */
