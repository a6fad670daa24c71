// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl --wait: follow the moves of an explicit migrate or pin request
 * until the kernel has none left (migration manual_pending 0), with one
 * progress line on a terminal (stderr) and silence otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tierctl.h"
#include "tl-progress.h"

#define WAIT_POLL_MS 250

static u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000 + (u64)ts.tv_nsec / 1000000;
}

int wait_for_moves(struct tl_nl *nl, const char *cmd, const char *name,
		   u64 total, u64 extent_bytes, u64 errors_before,
		   struct wait_result *res)
{
	struct timespec tick = { 0, WAIT_POLL_MS * 1000000L };
	bool tty = isatty(STDERR_FILENO);
	char line[TL_PROGRESS_LEN];
	struct tl_err err = { "" };
	struct tl_nl_dev *dev;
	u64 start = now_ms();
	int rc;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return fail("out of memory");
	for (;;) {
		rc = tl_nl_dev_get(nl, name, dev, &err);
		if (rc) {
			free(dev);
			if (tty)
				fputc('\n', stderr);
			tl_err_append(&err, "%s: stopped waiting; the moves go on ('tierctl status %s')",
				      cmd, name);
			return report(rc, &err);
		}
		res->moved = dev->migration.manual_pending < total ?
				     total - dev->migration.manual_pending :
				     0;
		if (tty)
			fprintf(stderr, "\r%s: %s\033[K", cmd,
				tl_progress_line(line, "extents", res->moved,
						 total, extent_bytes,
						 now_ms() - start));
		if (!dev->migration.manual_pending)
			break;
		nanosleep(&tick, NULL);
	}
	if (tty)
		fputc('\n', stderr);
	res->moved = total;
	res->elapsed_ms = now_ms() - start;
	res->errors = dev->migration.errors > errors_before ?
			      dev->migration.errors - errors_before :
			      0;
	free(dev);
	return TIERCTL_EXIT_OK;
}
