/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-progress.h - one line of progress for a long operation (moves of
 * `migrate --wait` and `pin --tier --wait`, formatting in `create`): done
 * and total units, bytes, rate and ETA. Pure: numbers in, text out.
 */
#ifndef DM_TIER_TL_PROGRESS_H
#define DM_TIER_TL_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define TL_PROGRESS_LEN 128

/**
 * tl_progress_line() - "12/40 extents (12 MiB of 40 MiB), 3.0 MiB/s, ETA 9 s".
 * @buf:        TL_PROGRESS_LEN bytes.
 * @what:       the unit's name, plural ("extents").
 * @done:       units done so far (clamped to @total).
 * @total:      units in all; 0 prints "done" counts only.
 * @unit_bytes: bytes per unit (for the byte counts and the rate).
 * @elapsed_ms: time since the start; the rate and ETA need more than 0.
 *
 * The ETA is left out until something is done; it is rounded up to whole
 * seconds and shown as minutes past 120 s.
 *
 * Return: @buf.
 */
const char *tl_progress_line(char *buf, const char *what, uint64_t done,
			     uint64_t total, uint64_t unit_bytes,
			     uint64_t elapsed_ms);

/**
 * tl_move_progress_line() - the progress of a queued move request:
 * "30/40 extents looked at, 12 moved (12 MiB), 3 MiB/s, ETA 5 s".
 * @buf:        TL_PROGRESS_LEN bytes.
 * @passed:     extents of the range the request has passed (clamped to
 *              @total); unmapped ones and those already on the target
 *              count, so this is the position, not the work.
 * @total:      extents in the range.
 * @moved:      extents it copied; the rate counts these only (counting
 *              @passed overstated it wherever the range was already in
 *              place).
 * @unit_bytes: bytes per extent.
 * @elapsed_ms: time since the start; the rate and ETA need more than 0.
 *
 * The ETA scales the time @passed took to the rest of the range.
 *
 * Return: @buf.
 */
const char *tl_move_progress_line(char *buf, uint64_t passed, uint64_t total,
				  uint64_t moved, uint64_t unit_bytes,
				  uint64_t elapsed_ms);

/**
 * tl_ms_between() - milliseconds from @t0 to @t1 (CLOCK_MONOTONIC times).
 * @t0: the start.
 * @t1: the end.
 *
 * Return: the whole milliseconds elapsed, 0 when @t1 is not after @t0.
 */
uint64_t tl_ms_between(const struct timespec *t0, const struct timespec *t1);

#endif /* DM_TIER_TL_PROGRESS_H */
