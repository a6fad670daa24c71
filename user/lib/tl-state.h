/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-state.h - the state directory ($TIER_STATE_DIR, default /etc/dm-tier)
 * and its records (nvmf.conf, mem.conf): small line files that two tierctl
 * commands may update at once, so each update happens under a lock on the
 * directory and replaces the file atomically (a temporary file fsync()ed
 * and renamed over it).
 */
#ifndef DM_TIER_TL_STATE_H
#define DM_TIER_TL_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "tl.h"

/* The state directory's path. */
const char *tl_state_dir(void);
/* @path's lines, without newlines (a missing file has none). TL_OK or
 * TL_FAIL; free them with tl_state_free_lines(). */
int tl_state_read_lines(const char *path, char ***lines, size_t *nr,
			struct tl_err *err);
void tl_state_free_lines(char **lines, size_t nr);
/* Replace @path with @lines atomically (the state directory is created). */
int tl_state_write_lines(const char *path, char **lines, size_t nr,
			 struct tl_err *err);
/* An exclusive lock on the state directory (created if need be): the fd to
 * close(), or -1 with @err set. */
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

#endif /* DM_TIER_TL_STATE_H */
