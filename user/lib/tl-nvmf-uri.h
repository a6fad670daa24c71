/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-nvmf-uri.h - NVMe-oF tiers as the command line and the record name
 * them: nvmf:// URIs, the connection options, whether two URIs are the same
 * target.
 *
 * URI: nvmf://TRANSPORT/ADDR:PORT/SUBSYSNQN, TRANSPORT "tcp" (or "rdma"),
 * ADDR an IPv4 address, a host name or [IPv6]. Example:
 *   nvmf://tcp/127.0.0.1:4420/nqn.2024-01.io.dm-tier:cold0
 */
#ifndef DM_TIER_TL_NVMF_URI_H
#define DM_TIER_TL_NVMF_URI_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#include "tl.h"

struct tl_nvmf_uri {
	char transport[8];
	char traddr[64];
	char trsvcid[8];
	char subsysnqn[224];
};

/*
 * Connection options. fast_io_fail_tmo bounds how long I/O waits for a
 * lost path: after it, I/O fails (the tier turns degraded) while the
 * controller keeps reconnecting until ctrl_loss_tmo, when the kernel
 * deletes it (tierd then connects again and re-binds the tier by label).
 */
struct tl_nvmf_opts {
	int ctrl_loss_tmo;	/* seconds, -1 forever; default 600 */
	int reconnect_delay;	/* seconds; default 2 */
	int fast_io_fail_tmo;	/* seconds, -1 off; default 5 */
};

#define TL_NVMF_FAST_IO_FAIL_TMO_DEF 5

/* Whether @s starts with "nvmf://". */
int tl_nvmf_is_uri(const char *s);
/* TL_OK or TL_USAGE with a message naming the bad part. */
int tl_nvmf_parse_uri(const char *s, struct tl_nvmf_uri *u, struct tl_err *err);
/* The canonical URI text; snprintf-like return. */
int tl_nvmf_format_uri(const struct tl_nvmf_uri *u, char *buf, size_t len);
void tl_nvmf_opts_default(struct tl_nvmf_opts *o);

/* The same target: transport, port and NQN equal, addresses equal (as text,
 * or after resolving a host name). */
int tl_nvmf_same_target(const struct tl_nvmf_uri *a,
			const struct tl_nvmf_uri *b);

/* --ctrl-loss-tmo: seconds, -1 (reconnect forever) or more. TL_OK/TL_USAGE. */
int tl_nvmf_parse_ctrl_loss_tmo(const char *s, int *out, struct tl_err *err);
/* --reconnect-delay: seconds, 1 or more. TL_OK/TL_USAGE. */
int tl_nvmf_parse_reconnect_delay(const char *s, int *out,
				  struct tl_err *err);
/* --fast-io-fail-tmo: seconds, 1 or more, or -1 (off: I/O waits for the
 * path until ctrl_loss_tmo). TL_OK/TL_USAGE. */
int tl_nvmf_parse_fast_io_fail_tmo(const char *s, int *out,
				   struct tl_err *err);
/* The same for option @what (named in the message; the record's). */
int tl_nvmf_parse_fail_seconds(const char *what, const char *s, int *out,
				struct tl_err *err);
/*
 * The options together: fast_io_fail_tmo (when on) shorter than
 * ctrl_loss_tmo (when not forever), and ctrl_loss_tmo (when not forever)
 * at least reconnect_delay, else the kernel gives up before the first
 * retry. TL_OK/TL_USAGE with a message naming both.
 */
int tl_nvmf_opts_check(const struct tl_nvmf_opts *o, struct tl_err *err);
/*
 * The fast_io_fail_tmo to hand libnvme: 0 (left out: the kernel's default,
 * off) when off, or when not shorter than a finite ctrl_loss_tmo (a record
 * written by hand: I/O fails at ctrl_loss_tmo anyway).
 */
int tl_nvmf_fast_io_fail_arg(const struct tl_nvmf_opts *o);
/* Whole seconds, @min or more, for option @what (named in the message).
 * TL_OK/TL_USAGE. The two above, and the record's options, use it. */
int tl_nvmf_parse_seconds(const char *what, const char *s, long min, int *out,
			  struct tl_err *err);

/* ---- addresses, for tl-nvmf-connect.c too ---- */

/* A numeric address with a zone ("fe80::1%eth0"). */
#define TL_NVMF_ADDR_TEXT_LEN (INET6_ADDRSTRLEN + 32)
/* Binary form of a numeric address (zone dropped); AF_INET, AF_INET6 or 0. */
int tl_nvmf_addr_bytes(const char *s, unsigned char out[16]);
/* The numeric address for @traddr (itself, or a host name resolved) in
 * @out. TL_OK or TL_FAIL (@err may be NULL). */
int tl_nvmf_resolve_addr(const char *traddr, char *out, size_t len,
			 struct tl_err *err);

#endif /* DM_TIER_TL_NVMF_URI_H */
