// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl --wait: follow one queued move request (migrate, pin --tier) by
 * its id until its migration-done event, with one progress line on a
 * terminal (stderr) and silence otherwise. Requests queued before it run
 * first; their progress does not count as its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/dm-tier.h>

#include "tierctl.h"
#include "tl-progress.h"

#define WAIT_POLL_MS 250
/* Left the queue but no event seen: how long to wait for it still. */
#define WAIT_EVENT_GRACE_MS 2000

static u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000 + (u64)ts.tv_nsec / 1000000;
}

struct tl_nl *wait_open_monitor(void)
{
	struct tl_err err = { "" };
	struct tl_nl *mon = NULL;

	if (tl_nl_open(&mon, &err))
		return NULL;
	if (tl_nl_monitor(mon, &err)) {
		tl_nl_close(mon);
		return NULL;
	}
	return mon;
}

/*
 * Events on @mon for up to @ms: true when request @id's migration-done came
 * (@res filled). A broken monitor socket (events lost: ENOBUFS) is closed
 * (*@mon NULL) and the reason kept in @res->why: polling goes on without
 * it, but its outcome can no longer be seen.
 */
static bool wait_event(struct tl_nl **mon, const char *name, u32 id, int ms,
		       struct wait_result *res, struct tl_nl_dev *ev)
{
	struct tl_err err = { "" };
	u64 until = now_ms() + (u64)ms;
	int rc, left;

	while (*mon) {
		left = (int)(until > now_ms() ? until - now_ms() : 0);
		rc = tl_nl_next_event(*mon, ev, left, &err);
		if (rc == TL_NL_TIMEOUT)
			return false;
		if (rc) {
			/* The message's advice is watch's; keep the reason. */
			err.msg[strcspn(err.msg, ";")] = '\0';
			snprintf(res->why, sizeof(res->why),
				 "the event monitor failed: %.120s", err.msg);
			tl_nl_close(*mon);
			*mon = NULL;
			return false;
		}
		if (ev->event != DM_TIER_EVENT_MIGRATION_DONE ||
		    ev->move_id != id || strcmp(ev->name, name))
			continue;
		snprintf(res->outcome, sizeof(res->outcome), "%s",
			 ev->move_outcome);
		res->err = ev->move_errno;
		res->moved = ev->done_extents;
		return true;
	}
	return false;
}

/* Appends @pace to @res->paces unless it is there (or does not fit). */
static void note_pace(struct wait_result *res, const char *pace)
{
	size_t have = strlen(res->paces), n = strlen(pace);
	const char *p = res->paces;

	if (!n)
		return;
	while ((p = strstr(p, pace))) {
		if ((p == res->paces || p[-1] == ' ') &&
		    (p[n] == ' ' || !p[n]))
			return;
		p += n;
	}
	if (have + !!have + n >= sizeof(res->paces))
		return;
	snprintf(res->paces + have, sizeof(res->paces) - have, "%s%s",
		 have ? " " : "", pace);
}

/* The progress line, over the previous one (stderr is a terminal). */
static void show_progress(const char *cmd, u32 id, u64 looked, u64 total,
			  u64 moved, u64 extent_bytes, u64 elapsed_ms)
{
	char line[TL_PROGRESS_LEN];

	fprintf(stderr, "\r%s: %s, request %u\033[K", cmd,
		tl_move_progress_line(line, looked, total, moved, extent_bytes,
				      elapsed_ms),
		id);
}

int wait_for_move(struct tl_nl *nl, struct tl_nl **mon, const char *cmd,
		  const char *name, u32 id, u64 total, u64 extent_bytes,
		  struct wait_result *res)
{
	struct timespec tick = { 0, WAIT_POLL_MS * 1000000L };
	bool tty = isatty(STDERR_FILENO), seen = false, queued, had_mon;
	struct tl_err err = { "" };
	struct tl_nl_dev *dev, *ev;
	u64 start = now_ms(), left, looked = 0;
	u32 i;
	int rc;

	memset(res, 0, sizeof(*res));
	had_mon = *mon != NULL;
	dev = calloc(1, sizeof(*dev));
	ev = calloc(1, sizeof(*ev));
	if (!dev || !ev) {
		free(dev);
		free(ev);
		return fail("out of memory");
	}
	for (;;) {
		if (*mon && wait_event(mon, name, id, 0, res, ev)) {
			seen = true;
			break;
		}
		rc = tl_nl_dev_get(nl, name, dev, &err);
		if (rc) {
			free(dev);
			free(ev);
			if (tty)
				fputc('\n', stderr);
			tl_err_append(&err, "%s: stopped waiting; request %u goes on ('tierctl status %s')",
				      cmd, id, name);
			return report(rc, &err);
		}
		if (dev->has_migration)
			note_pace(res, dev->migration.pace);
		queued = false;
		left = 0;
		for (i = 0; i < dev->nr_moves; i++) {
			if (dev->moves[i].id != id)
				continue;
			queued = true;
			left = dev->moves[i].left_extents;
			res->moved = dev->moves[i].done_extents;
		}
		if (!queued)
			break;
		looked = left < total ? total - left : 0;
		if (tty)
			show_progress(cmd, id, looked, total, res->moved,
				      extent_bytes, now_ms() - start);
		if (*mon) {
			if (wait_event(mon, name, id, WAIT_POLL_MS, res, ev)) {
				seen = true;
				break;
			}
		} else {
			nanosleep(&tick, NULL);
		}
	}
	/* Out of the queue: its event follows at once (sent from a work). */
	if (!seen && *mon)
		seen = wait_event(mon, name, id, WAIT_EVENT_GRACE_MS, res, ev);
	/*
	 * Gone from the queue without its event: done, cancelled or failed
	 * (ENOSPC, EIO) alike. Leaving the queue says nothing about how it
	 * ended, so the outcome is unknown, never "done".
	 */
	if (!seen) {
		snprintf(res->outcome, sizeof(res->outcome), "unknown");
		if (!had_mon)
			snprintf(res->why, sizeof(res->why),
				 "the event monitor could not be joined");
		else if (*mon)
			snprintf(res->why, sizeof(res->why),
				 "its migration-done event did not come within %d ms of it leaving the queue",
				 WAIT_EVENT_GRACE_MS);
	}
	/*
	 * The last line shows where the request ended, also when it ended
	 * before the first poll: a terminal always sees one.
	 */
	if (seen && !strcmp(res->outcome, "done"))
		looked = total;
	if (tty) {
		show_progress(cmd, id, looked, total, res->moved, extent_bytes,
			      now_ms() - start);
		fputc('\n', stderr);
	}
	/*
	 * Without its event (outcome unknown) the count is the last one
	 * polled: at least that many moved.
	 */
	if (!strcmp(res->outcome, "failed"))
		res->errors = res->moved < total ? total - res->moved : 1;
	res->elapsed_ms = now_ms() - start;
	free(dev);
	free(ev);
	return TIERCTL_EXIT_OK;
}

int wait_unknown(const char *cmd, const char *name, u32 id,
		 const struct wait_result *res, const char *check)
{
	return fail("%s: the outcome of request %u is unknown (%s): it left the queue, but whether it ended done, failed (ENOSPC, EIO) or cancelled was not seen; check 'tierctl status %s'%s%s",
		    cmd, id, res->why[0] ? res->why : "its event was not seen",
		    name, check && *check ? " and " : "", check ? check : "");
}
