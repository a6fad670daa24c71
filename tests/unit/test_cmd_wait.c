// SPDX-License-Identifier: GPL-2.0
/* Unit tests for tierctl's --wait (wait_for_move(), user/tierctl/wait.c)
 * without a kernel: the device polls and the monitor's events are scripted.
 * On a terminal the last progress line shows where the request ended, also
 * when its event came before the first poll (CI once saw a bare newline);
 * off a terminal nothing is printed; the paces the polls saw are kept once
 * each, in order. A request that leaves the queue without its event seen
 * (no monitor, events lost, the event late) ends "unknown", with the
 * reason, never "done". The kernel side: VM test 040.
 * unit-ldflags: -Wl,--wrap=tl_nl_dev_get,--wrap=tl_nl_next_event,--wrap=tl_nl_close,--wrap=isatty
 */
/* tierctl.h before cmocka.h: cmocka defines a fail() macro. */
#include "tierctl.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/dm-tier.h>

#define MOVE_ID 7
#define TOTAL 4
#define MIB (1024ULL * 1024)
#define STEPS 8

/* One poll's answer: the request still queued (left, done) and the pace. */
struct poll_step {
	bool queued;
	u64 left, done;
	const char *pace;
};

/* The script: what each tl_nl_dev_get() and tl_nl_next_event() returns. */
static struct {
	struct poll_step polls[STEPS];
	unsigned int nr_polls, polled;
	/* Per tl_nl_next_event() call: 1 the request's event, 0 timeout,
	 * -1 the socket's error (events lost: ENOBUFS). */
	int events[STEPS];
	unsigned int nr_events, evented;
	u64 event_done;
	bool tty;
	unsigned int closed;
} sc;

static void script_reset(bool tty)
{
	memset(&sc, 0, sizeof(sc));
	sc.tty = tty;
}

int __wrap_isatty(int fd);
int __wrap_isatty(int fd)
{
	return fd == STDERR_FILENO && sc.tty;
}

int __wrap_tl_nl_dev_get(struct tl_nl *nl, const char *name,
			 struct tl_nl_dev *dev, struct tl_err *err);
int __wrap_tl_nl_dev_get(struct tl_nl *nl, const char *name,
			 struct tl_nl_dev *dev, struct tl_err *err)
{
	const struct poll_step *p;

	(void)nl;
	(void)err;
	assert_string_equal(name, "ckpt");
	assert_true(sc.polled < sc.nr_polls);
	p = &sc.polls[sc.polled++];
	memset(dev, 0, sizeof(*dev));
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	if (p->pace) {
		dev->has_migration = true;
		snprintf(dev->migration.pace, sizeof(dev->migration.pace),
			 "%s", p->pace);
	}
	/* Another request ahead of it: its progress is not this one's. */
	dev->moves[dev->nr_moves].id = MOVE_ID + 1;
	dev->moves[dev->nr_moves++].left_extents = 99;
	if (p->queued) {
		dev->moves[dev->nr_moves].id = MOVE_ID;
		dev->moves[dev->nr_moves].left_extents = p->left;
		dev->moves[dev->nr_moves++].done_extents = p->done;
	}
	return TL_OK;
}

int __wrap_tl_nl_next_event(struct tl_nl *nl, struct tl_nl_dev *ev,
			    int timeout_ms, struct tl_err *err);
int __wrap_tl_nl_next_event(struct tl_nl *nl, struct tl_nl_dev *ev,
			    int timeout_ms, struct tl_err *err)
{
	(void)nl;
	(void)timeout_ms;
	if (sc.evented < sc.nr_events && sc.events[sc.evented] < 0) {
		sc.evented++;
		return tl_fail(err, TL_FAIL,
			       "events were lost (the receive buffer overflowed); restart the watch and re-read the state with 'tierctl status'");
	}
	if (sc.evented >= sc.nr_events || !sc.events[sc.evented++])
		return TL_NL_TIMEOUT;
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "ckpt");
	ev->event = DM_TIER_EVENT_MIGRATION_DONE;
	ev->move_id = MOVE_ID;
	snprintf(ev->move_outcome, sizeof(ev->move_outcome), "done");
	ev->done_extents = sc.event_done;
	return TL_OK;
}

void __wrap_tl_nl_close(struct tl_nl *nl);
void __wrap_tl_nl_close(struct tl_nl *nl)
{
	(void)nl;
	sc.closed++;
}

/* wait_for_move() with stderr captured into @out (@len bytes). */
static int run_wait(bool monitor, struct wait_result *res, char *out,
		    size_t len)
{
	struct tl_nl *mon = monitor ? (struct tl_nl *)&sc : NULL;
	FILE *cap = tmpfile();
	int saved, rc;
	size_t n;

	assert_non_null(cap);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(cap), STDERR_FILENO) >= 0);
	rc = wait_for_move((struct tl_nl *)&sc, &mon, "migrate", "ckpt",
			   MOVE_ID, TOTAL, MIB, res);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(cap);
	n = fread(out, 1, len - 1, cap);
	out[n] = '\0';
	fclose(cap);
	return rc;
}

/* The event came before the first poll: the terminal still gets a line. */
static void test_event_before_first_poll(void **state)
{
	struct wait_result res;
	char out[1024];

	(void)state;
	script_reset(true);
	sc.events[sc.nr_events++] = 1;
	sc.event_done = TOTAL;
	assert_int_equal(run_wait(true, &res, out, sizeof(out)),
			 TIERCTL_EXIT_OK);
	assert_int_equal(sc.polled, 0);
	assert_string_equal(res.outcome, "done");
	assert_int_equal(res.moved, TOTAL);
	assert_int_equal(res.errors, 0);
	assert_non_null(strstr(out, "migrate: 4/4 extents looked at, 4 moved ("));
	assert_non_null(strstr(out, ", request 7"));
	assert_int_equal(out[strlen(out) - 1], '\n');
}

/* Polls while it runs, then its event: each poll's line, then the end's. */
static void test_progress_then_event(void **state)
{
	struct wait_result res;
	char out[2048];
	const char *first, *last;

	(void)state;
	script_reset(true);
	/* Each turn looks before its poll and waits after it. */
	sc.events[0] = 0;
	sc.events[1] = 0;
	sc.events[2] = 0;
	sc.events[3] = 1; /* after the second poll */
	sc.nr_events = 4;
	sc.polls[0] = (struct poll_step){ true, 3, 1, "full" };
	sc.polls[1] = (struct poll_step){ true, 1, 2, "background" };
	sc.nr_polls = 2;
	sc.event_done = 3;
	assert_int_equal(run_wait(true, &res, out, sizeof(out)),
			 TIERCTL_EXIT_OK);
	assert_int_equal(sc.polled, 2);
	first = strstr(out, "migrate: 1/4 extents looked at, 1 moved (");
	assert_non_null(first);
	assert_non_null(strstr(out, "migrate: 3/4 extents looked at, 2 moved ("));
	last = strstr(out, "migrate: 4/4 extents looked at, 3 moved (");
	assert_non_null(last);
	assert_true(last > first);
	assert_int_equal(res.moved, 3);
	assert_string_equal(res.paces, "full background");
}

/* Off a terminal: silent, the same result. */
static void test_silent_off_terminal(void **state)
{
	struct wait_result res;
	char out[1024];

	(void)state;
	script_reset(false);
	sc.events[0] = 0;
	sc.events[1] = 1;
	sc.nr_events = 2;
	sc.polls[0] = (struct poll_step){ true, 2, 2, "full" };
	sc.nr_polls = 1;
	sc.event_done = TOTAL;
	assert_int_equal(run_wait(true, &res, out, sizeof(out)),
			 TIERCTL_EXIT_OK);
	assert_string_equal(out, "");
	assert_string_equal(res.outcome, "done");
	assert_int_equal(res.moved, TOTAL);
}

/*
 * Without a monitor: polls until the request leaves the queue. No event
 * says how it ended, so the last line keeps the last position polled, the
 * count is the last one polled, and the outcome is "unknown" (it was ""
 * before, which migrate and evacuate printed as "done", exit 0).
 */
static void test_polls_only(void **state)
{
	struct wait_result res;
	char out[2048];

	(void)state;
	script_reset(true);
	sc.polls[0] = (struct poll_step){ true, 2, 1, "full" };
	sc.polls[1] = (struct poll_step){ true, 1, 3, "full" };
	sc.polls[2] = (struct poll_step){ false, 0, 0, "idle" };
	sc.nr_polls = 3;
	assert_int_equal(run_wait(false, &res, out, sizeof(out)),
			 TIERCTL_EXIT_OK);
	assert_int_equal(sc.polled, 3);
	assert_string_equal(res.outcome, "unknown");
	assert_string_equal(res.why, "the event monitor could not be joined");
	assert_int_equal(res.errors, 0);
	assert_int_equal(res.moved, 3);
	assert_non_null(strstr(out, "migrate: 3/4 extents looked at, 3 moved ("));
	assert_null(strstr(out, "4/4"));
	/* Each pace once, in the order seen. */
	assert_string_equal(res.paces, "full idle");
	assert_int_equal(sc.closed, 0);
}

/*
 * The monitor socket fails (ENOBUFS: events lost) while the request runs:
 * polling goes on, the socket is closed, and the outcome is unknown with
 * that reason.
 */
static void test_monitor_lost_unknown(void **state)
{
	struct wait_result res;
	char out[1024];

	(void)state;
	script_reset(false);
	sc.events[0] = 0;
	sc.events[1] = -1;
	sc.nr_events = 2;
	sc.polls[0] = (struct poll_step){ true, 2, 2, "full" };
	sc.polls[1] = (struct poll_step){ false, 0, 0, "idle" };
	sc.nr_polls = 2;
	assert_int_equal(run_wait(true, &res, out, sizeof(out)),
			 TIERCTL_EXIT_OK);
	assert_int_equal(sc.closed, 1);
	assert_string_equal(res.outcome, "unknown");
	assert_string_equal(res.why,
			    "the event monitor failed: events were lost (the receive buffer overflowed)");
	assert_int_equal(res.moved, 2);
}

/* The monitor works but the event does not come within the grace period
 * after the request left the queue: unknown, not done. */
static void test_event_late_unknown(void **state)
{
	struct wait_result res;
	char out[1024];

	(void)state;
	script_reset(false);
	sc.polls[0] = (struct poll_step){ true, 1, 3, "full" };
	sc.polls[1] = (struct poll_step){ false, 0, 0, "idle" };
	sc.nr_polls = 2;
	assert_int_equal(run_wait(true, &res, out, sizeof(out)),
			 TIERCTL_EXIT_OK);
	assert_int_equal(sc.closed, 0);
	assert_string_equal(res.outcome, "unknown");
	assert_non_null(strstr(res.why, "migration-done event did not come within 2000 ms"));
	assert_int_equal(res.moved, 3);
}

/* Paces: each once, a name inside another ("full" in "fullish") is not it. */
static void test_paces_once_each(void **state)
{
	struct wait_result res;
	char out[4096];

	(void)state;
	script_reset(false);
	sc.polls[0] = (struct poll_step){ true, 4, 0, "fullish" };
	sc.polls[1] = (struct poll_step){ true, 4, 0, "full" };
	sc.polls[2] = (struct poll_step){ true, 3, 1, "fullish" };
	sc.polls[3] = (struct poll_step){ true, 2, 2, "" };
	sc.polls[4] = (struct poll_step){ true, 1, 3, "full" };
	sc.polls[5] = (struct poll_step){ false, 0, 0, NULL };
	sc.nr_polls = 6;
	assert_int_equal(run_wait(false, &res, out, sizeof(out)),
			 TIERCTL_EXIT_OK);
	assert_string_equal(res.paces, "fullish full");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_before_first_poll),
		cmocka_unit_test(test_progress_then_event),
		cmocka_unit_test(test_silent_off_terminal),
		cmocka_unit_test(test_polls_only),
		cmocka_unit_test(test_monitor_lost_unknown),
		cmocka_unit_test(test_event_late_unknown),
		cmocka_unit_test(test_paces_once_each),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
