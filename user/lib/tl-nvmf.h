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

#include <stdbool.h>
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

/* ---- additions beyond the fixed contract ---- */

/* The same target: transport, port and NQN equal, addresses equal (as text,
 * or after resolving a host name). */
int tl_nvmf_same_target(const struct tl_nvmf_uri *a,
			const struct tl_nvmf_uri *b);

/* --ctrl-loss-tmo: seconds, -1 (reconnect forever) or more. TL_OK/TL_USAGE. */
int tl_nvmf_parse_ctrl_loss_tmo(const char *s, int *out, struct tl_err *err);
/* --reconnect-delay: seconds, 1 or more. TL_OK/TL_USAGE. */
int tl_nvmf_parse_reconnect_delay(const char *s, int *out,
				  struct tl_err *err);

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

/* One line of the record. */
struct tl_nvmf_entry {
	struct tl_nvmf_uri uri;
	struct tl_nvmf_opts opts;
};

/*
 * Parse one record line ("URI [ctrl_loss_tmo=N] [reconnect_delay=N]", any
 * order, missing options at their defaults). TL_OK, 1 for a blank or
 * comment ('#') line, TL_USAGE with the reason for a malformed one.
 */
int tl_nvmf_record_parse_line(const char *line, struct tl_nvmf_entry *e,
			      struct tl_err *err);
/* The record line for @e, without newline; snprintf-like return. */
int tl_nvmf_record_format_line(const struct tl_nvmf_entry *e, char *buf,
			       size_t len);

/**
 * struct tl_nvmf_record - the record as read.
 * @entry:  the well-formed lines.
 * @nr:     their number.
 * @nr_bad: malformed lines (each described in the error, as PATH:LINE: why).
 */
struct tl_nvmf_record {
	struct tl_nvmf_entry *entry;
	size_t nr;
	int nr_bad;
};

/* Read the record (a missing file is an empty record). TL_OK, or TL_FAIL
 * when it cannot be read. Malformed lines count in @rec->nr_bad and are
 * appended to @err, but do not fail the call. */
int tl_nvmf_record_load(struct tl_nvmf_record *rec, struct tl_err *err);
void tl_nvmf_record_free(struct tl_nvmf_record *rec);

/*
 * The state directory ($TIER_STATE_DIR, default /etc/dm-tier) for other
 * records (mem.conf): its path; a file's lines (a missing file has none);
 * replacing a file atomically (the directory is created); an exclusive lock
 * on the directory (returns the fd to close(), or -1 with @err set).
 */
const char *tl_state_dir(void);
int tl_state_read_lines(const char *path, char ***lines, size_t *nr,
			struct tl_err *err);
void tl_state_free_lines(char **lines, size_t nr);
int tl_state_write_lines(const char *path, char **lines, size_t nr,
			 struct tl_err *err);
int tl_state_lock(struct tl_err *err);
/*
 * Rewrite the record @path under the lock: the lines @match()es are
 * dropped, @line (if not NULL) takes the place of the first of them (or
 * goes at the end; @header first in a new file); comments and other lines
 * stay. Written atomically, and only when something changed.
 * Return: TL_OK or TL_FAIL (@err set).
 */
int tl_state_update(const char *path, const char *header, const char *line,
		    bool (*match)(const char *line, void *arg), void *arg,
		    struct tl_err *err);

#endif /* DM_TIER_TL_NVMF_H */
