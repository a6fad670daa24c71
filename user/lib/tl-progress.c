// SPDX-License-Identifier: GPL-2.0
/* Progress lines of long operations; see tl-progress.h. */
#include <stdio.h>

#include "tl.h"
#include "tl-progress.h"

/* ", ETA ..." at @buf + @n: the time @done units took, scaled to the rest. */
static void put_eta(char *buf, int n, uint64_t done, uint64_t total,
		    uint64_t elapsed_ms)
{
	uint64_t left_ms = (total - done) * elapsed_ms / done;

	if (left_ms > 120000)
		snprintf(buf + n, TL_PROGRESS_LEN - n, ", ETA %llu min",
			 (unsigned long long)((left_ms + 59999) / 60000));
	else
		snprintf(buf + n, TL_PROGRESS_LEN - n, ", ETA %llu s",
			 (unsigned long long)((left_ms + 999) / 1000));
}

const char *tl_progress_line(char *buf, const char *what, uint64_t done,
			     uint64_t total, uint64_t unit_bytes,
			     uint64_t elapsed_ms)
{
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN], r[TL_SIZE_STR_LEN];
	uint64_t rate;
	int n;

	if (total && done > total)
		done = total;
	if (total)
		n = snprintf(buf, TL_PROGRESS_LEN, "%llu/%llu %s (%s of %s)",
			     (unsigned long long)done, (unsigned long long)total,
			     what, tl_size_str(done * unit_bytes, a),
			     tl_size_str(total * unit_bytes, b));
	else
		n = snprintf(buf, TL_PROGRESS_LEN, "%llu %s (%s)",
			     (unsigned long long)done, what,
			     tl_size_str(done * unit_bytes, a));
	if (n < 0 || n >= TL_PROGRESS_LEN || !elapsed_ms || !done)
		return buf;
	rate = done * unit_bytes * 1000 / elapsed_ms;
	n += snprintf(buf + n, TL_PROGRESS_LEN - n, ", %s/s",
		      tl_size_str(rate, r));
	if (!total || done == total || n >= TL_PROGRESS_LEN)
		return buf;
	put_eta(buf, n, done, total, elapsed_ms);
	return buf;
}

const char *tl_move_progress_line(char *buf, uint64_t passed, uint64_t total,
				  uint64_t moved, uint64_t unit_bytes,
				  uint64_t elapsed_ms)
{
	char a[TL_SIZE_STR_LEN], r[TL_SIZE_STR_LEN];
	uint64_t rate;
	int n;

	if (passed > total)
		passed = total;
	n = snprintf(buf, TL_PROGRESS_LEN, "%llu/%llu extents looked at, %llu moved (%s)",
		     (unsigned long long)passed, (unsigned long long)total,
		     (unsigned long long)moved, tl_size_str(moved * unit_bytes, a));
	if (n < 0 || n >= TL_PROGRESS_LEN || !elapsed_ms)
		return buf;
	if (moved) {
		rate = moved * unit_bytes * 1000 / elapsed_ms;
		n += snprintf(buf + n, TL_PROGRESS_LEN - n, ", %s/s",
			      tl_size_str(rate, r));
	}
	if (passed && passed < total && n < TL_PROGRESS_LEN)
		put_eta(buf, n, passed, total, elapsed_ms);
	return buf;
}

uint64_t tl_ms_between(const struct timespec *t0, const struct timespec *t1)
{
	/* Signed: t1's nanoseconds may be below t0's. */
	int64_t ms = (int64_t)(t1->tv_sec - t0->tv_sec) * 1000 +
		     (t1->tv_nsec - t0->tv_nsec) / 1000000;

	return ms > 0 ? (uint64_t)ms : 0;
}
