/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-nvmf-record.h - the record of NVMe-oF connections that
 * `tierctl activate` (and tierd, after a tier error) replays.
 *
 * The record is one URI per line with its options
 * ("URI ctrl_loss_tmo=N reconnect_delay=N") in
 * $TIER_STATE_DIR/nvmf.conf, default /etc/dm-tier/nvmf.conf, kept with
 * tl-state.h's atomic updates.
 */
#ifndef DM_TIER_TL_NVMF_RECORD_H
#define DM_TIER_TL_NVMF_RECORD_H

#include <stddef.h>

#include "tl-nvmf-uri.h"

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

#endif /* DM_TIER_TL_NVMF_RECORD_H */
