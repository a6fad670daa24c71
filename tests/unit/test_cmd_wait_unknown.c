// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for what "tierctl migrate|evacuate|pin --wait" report when
 * their request left the queue without its migration-done event seen (the
 * monitor group could not be joined, events were lost, the event came too
 * late): before, wait_for_move() left the outcome empty and the commands
 * printed "done" and exited 0, also for a request that failed (ENOSPC) or
 * was cancelled. Now the outcome is "unknown" (text and JSON), the exit
 * status 1 with a message saying what to check; evacuate first confirms
 * from the tier's state (dev-get: still flagged, nothing mapped = done).
 * The kernel is scripted: dev-get, the monitor, the requests, the table.
 * unit-ldflags: -Wl,--wrap=tl_nl_open,--wrap=tl_nl_monitor,--wrap=tl_nl_close,--wrap=tl_nl_dev_get,--wrap=tl_nl_next_event,--wrap=tl_nl_migrate,--wrap=tl_nl_pin,--wrap=tl_nl_evacuate,--wrap=tl_nl_last_move_id,--wrap=tl_dm_query,--wrap=isatty
 */
/* tierctl.h before cmocka.h: cmocka defines a fail() macro. */
#include "tierctl.h"
#include "tl-dm.h"

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
#define MIB (1024ULL * 1024)

/* The script. */
static struct {
	bool monitor_ok;	/* tl_nl_monitor() succeeds */
	int event;		/* 0: none comes; 1: migration-done "done" */
	unsigned int queued_polls; /* dev-gets after the request showing it queued */
	unsigned int gets;	/* dev-gets so far (the first is nl_open_dev's) */
	u64 mapped_after;	/* tier 1's mapped extents once it left the queue */
	bool evacuating_after;	/* tier 1 still flagged once it left */
	const char *kind;	/* the request's kind in the queue */
	int opens;
} sc;

static int fake_sock;

static void script_reset(bool monitor_ok, int event)
{
	memset(&sc, 0, sizeof(sc));
	sc.monitor_ok = monitor_ok;
	sc.event = event;
	sc.queued_polls = 1;
	sc.kind = "migrate";
}

int __wrap_isatty(int fd);
int __wrap_isatty(int fd)
{
	(void)fd;
	return 0;
}

int __wrap_tl_nl_open(struct tl_nl **nl, struct tl_err *err);
int __wrap_tl_nl_open(struct tl_nl **nl, struct tl_err *err)
{
	(void)err;
	sc.opens++;
	*nl = (struct tl_nl *)&fake_sock;
	return TL_OK;
}

int __wrap_tl_nl_monitor(struct tl_nl *nl, struct tl_err *err);
int __wrap_tl_nl_monitor(struct tl_nl *nl, struct tl_err *err)
{
	(void)nl;
	if (sc.monitor_ok)
		return TL_OK;
	return tl_fail(err, TL_FAIL, "cannot join the dm-tier monitor group: Operation not permitted");
}

void __wrap_tl_nl_close(struct tl_nl *nl);
void __wrap_tl_nl_close(struct tl_nl *nl)
{
	(void)nl;
}

int __wrap_tl_nl_dev_get(struct tl_nl *nl, const char *name,
			 struct tl_nl_dev *dev, struct tl_err *err);
int __wrap_tl_nl_dev_get(struct tl_nl *nl, const char *name,
			 struct tl_nl_dev *dev, struct tl_err *err)
{
	unsigned int get = sc.gets++;
	bool queued = get >= 1 && get <= sc.queued_polls;
	bool after = get > sc.queued_polls;
	u32 t;

	(void)nl;
	(void)err;
	assert_string_equal(name, "ckpt");
	memset(dev, 0, sizeof(*dev));
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->extent_bytes = MIB;
	dev->size_bytes = 64 * MIB;
	dev->nr_tiers = 2;
	dev->has_migration = true;
	snprintf(dev->migration.pace, sizeof(dev->migration.pace), "full");
	for (t = 0; t < 2; t++) {
		dev->tiers[t].index = t;
		snprintf(dev->tiers[t].state, sizeof(dev->tiers[t].state), "ok");
		snprintf(dev->tiers[t].tier_class,
			 sizeof(dev->tiers[t].tier_class), "nvme");
		dev->tiers[t].capacity_extents = 64;
		dev->tiers[t].durable = true;
	}
	dev->tiers[1].mapped_extents = after ? sc.mapped_after : 4;
	dev->tiers[1].evacuating = after ? sc.evacuating_after : queued;
	if (queued) {
		dev->nr_moves = 1;
		dev->moves[0].id = MOVE_ID;
		snprintf(dev->moves[0].kind, sizeof(dev->moves[0].kind), "%s",
			 sc.kind);
		dev->moves[0].target_tier = 1;
		dev->moves[0].left_extents = 2;
		dev->moves[0].done_extents = 2;
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
	(void)err;
	/* The event comes once the request left the queue. */
	if (!sc.event || sc.gets <= sc.queued_polls + 1)
		return TL_NL_TIMEOUT;
	sc.event = 0;
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "ckpt");
	ev->event = DM_TIER_EVENT_MIGRATION_DONE;
	ev->move_id = MOVE_ID;
	snprintf(ev->move_outcome, sizeof(ev->move_outcome), "done");
	ev->done_extents = 4;
	return TL_OK;
}

int __wrap_tl_nl_migrate(struct tl_nl *nl, const char *name, uint64_t start,
			 uint64_t len, uint32_t tier, uint64_t *done,
			 struct tl_err *err);
int __wrap_tl_nl_migrate(struct tl_nl *nl, const char *name, uint64_t start,
			 uint64_t len, uint32_t tier, uint64_t *done,
			 struct tl_err *err)
{
	(void)nl;
	(void)name;
	(void)start;
	(void)len;
	(void)tier;
	(void)err;
	*done = 4;
	return TL_OK;
}

int __wrap_tl_nl_pin(struct tl_nl *nl, const char *name, uint64_t start,
		     uint64_t len, int tier, uint64_t *done, struct tl_err *err);
int __wrap_tl_nl_pin(struct tl_nl *nl, const char *name, uint64_t start,
		     uint64_t len, int tier, uint64_t *done, struct tl_err *err)
{
	(void)nl;
	(void)name;
	(void)start;
	(void)len;
	(void)tier;
	(void)err;
	*done = 4;
	return TL_OK;
}

int __wrap_tl_nl_evacuate(struct tl_nl *nl, const char *name, uint32_t tier,
			  bool stop, uint32_t to, uint64_t *mapped,
			  struct tl_err *err);
int __wrap_tl_nl_evacuate(struct tl_nl *nl, const char *name, uint32_t tier,
			  bool stop, uint32_t to, uint64_t *mapped,
			  struct tl_err *err)
{
	(void)nl;
	(void)name;
	(void)tier;
	(void)stop;
	(void)to;
	(void)err;
	*mapped = 4;
	return TL_OK;
}

uint32_t __wrap_tl_nl_last_move_id(struct tl_nl *nl);
uint32_t __wrap_tl_nl_last_move_id(struct tl_nl *nl)
{
	(void)nl;
	return MOVE_ID;
}

/* The table: a metadata device, so tier 1's evacuation needs no label. */
int __wrap_tl_dm_query(const char *name, const char *uuid, bool want_status,
		       struct tl_dm_dev *d, struct tl_err *err);
int __wrap_tl_dm_query(const char *name, const char *uuid, bool want_status,
		       struct tl_dm_dev *d, struct tl_err *err)
{
	(void)uuid;
	(void)want_status;
	(void)err;
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->type, sizeof(d->type), "tier");
	d->params = strdup("2048 2 259:0 259:1 2 metadata_dev 7:1");
	assert_non_null(d->params);
	return TL_OK;
}

/* Run @fn(argc, argv) with stdout and stderr captured. */
static int run(int (*fn)(int, char **), char **argv, char *out, size_t olen,
	       char *errout, size_t elen)
{
	FILE *co = tmpfile(), *ce = tmpfile();
	int so, se, rc, argc = 0;
	size_t n;

	while (argv[argc])
		argc++;
	assert_non_null(co);
	assert_non_null(ce);
	fflush(stdout);
	fflush(stderr);
	so = dup(STDOUT_FILENO);
	se = dup(STDERR_FILENO);
	assert_true(dup2(fileno(co), STDOUT_FILENO) >= 0);
	assert_true(dup2(fileno(ce), STDERR_FILENO) >= 0);
	rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	assert_true(dup2(so, STDOUT_FILENO) >= 0);
	assert_true(dup2(se, STDERR_FILENO) >= 0);
	close(so);
	close(se);
	rewind(co);
	n = fread(out, 1, olen - 1, co);
	out[n] = '\0';
	rewind(ce);
	n = fread(errout, 1, elen - 1, ce);
	errout[n] = '\0';
	fclose(co);
	fclose(ce);
	return rc;
}

/* migrate --wait without the monitor group: unknown, exit 1, what to check. */
static void test_migrate_no_monitor(void **state)
{
	char *argv[] = { "migrate", "ckpt", "--range", "0:4M", "--tier", "1",
			 "--wait", NULL };
	char out[2048], err[2048];

	(void)state;
	script_reset(false, 0);
	assert_int_equal(run(cmd_migrate, argv, out, sizeof(out), err,
			     sizeof(err)),
			 TIERCTL_EXIT_FAIL);
	assert_null(strstr(out, ": done"));
	assert_non_null(strstr(out, "to tier 1: unknown, at least 2 extents moved"));
	assert_non_null(strstr(err, "the outcome of request 7 is unknown (the event monitor could not be joined)"));
	assert_non_null(strstr(err, "'tierctl status ckpt'"));
	assert_non_null(strstr(err, "'tierctl where ckpt --range 0:4194304'"));
}

/* The same in JSON: "outcome": "unknown", errors null. */
static void test_migrate_no_monitor_json(void **state)
{
	char *argv[] = { "migrate", "ckpt", "--range", "0:4M", "--tier", "1",
			 "--wait", "--json", NULL };
	char out[2048], err[2048];

	(void)state;
	script_reset(false, 0);
	assert_int_equal(run(cmd_migrate, argv, out, sizeof(out), err,
			     sizeof(err)),
			 TIERCTL_EXIT_FAIL);
	assert_non_null(strstr(out, "\"outcome\":\"unknown\""));
	assert_non_null(strstr(out, "\"errors\":null"));
}

/* The monitor joined, the event came: done, exit 0, as before. */
static void test_migrate_event_done(void **state)
{
	char *argv[] = { "migrate", "ckpt", "--range", "0:4M", "--tier", "1",
			 "--wait", NULL };
	char out[2048], err[2048];

	(void)state;
	script_reset(true, 1);
	assert_int_equal(run(cmd_migrate, argv, out, sizeof(out), err,
			     sizeof(err)),
			 TIERCTL_EXIT_OK);
	assert_non_null(strstr(out, "to tier 1: done, 4 extents moved"));
	assert_string_equal(err, "");
}

/* The monitor joined but the event never came: unknown too. */
static void test_migrate_event_missing(void **state)
{
	char *argv[] = { "migrate", "ckpt", "--range", "0:4M", "--tier", "1",
			 "--wait", NULL };
	char out[2048], err[2048];

	(void)state;
	script_reset(true, 0);
	assert_int_equal(run(cmd_migrate, argv, out, sizeof(out), err,
			     sizeof(err)),
			 TIERCTL_EXIT_FAIL);
	assert_non_null(strstr(out, ": unknown"));
	assert_non_null(strstr(err, "did not come within"));
}

/*
 * evacuate --wait without the monitor, extents left on the tier: the
 * state cannot say done (failed or cancelled): unknown, exit 1.
 */
static void test_evacuate_unknown_extents_left(void **state)
{
	char *argv[] = { "evacuate", "ckpt", "1", "--wait", NULL };
	char out[2048], err[2048];

	(void)state;
	script_reset(false, 0);
	sc.kind = "evacuate";
	sc.mapped_after = 3;
	sc.evacuating_after = true;
	assert_int_equal(run(cmd_evacuate, argv, out, sizeof(out), err,
			     sizeof(err)),
			 TIERCTL_EXIT_FAIL);
	assert_non_null(strstr(out, ": unknown, at least 2 extents moved"));
	assert_non_null(strstr(err, "the outcome of request 7 is unknown"));
	assert_non_null(strstr(err, "'tierctl status ckpt'"));
}

/* evacuate --wait without the monitor, the tier empty and still flagged:
 * confirmed from the state, done, exit 0. */
static void test_evacuate_confirmed_empty(void **state)
{
	char *argv[] = { "evacuate", "ckpt", "1", "--wait", "--json", NULL };
	char out[2048], err[2048];

	(void)state;
	script_reset(false, 0);
	sc.kind = "evacuate";
	sc.mapped_after = 0;
	sc.evacuating_after = true;
	assert_int_equal(run(cmd_evacuate, argv, out, sizeof(out), err,
			     sizeof(err)),
			 TIERCTL_EXIT_OK);
	assert_non_null(strstr(out, "\"outcome\":\"done\""));
}

/* evacuate_confirm() alone: only an unknown outcome, only an empty tier
 * still flagged with no evacuation of it queued again. */
static void test_evacuate_confirm(void **state)
{
	struct wait_result res = { 0 };
	struct tl_nl_dev *dev = calloc(1, sizeof(*dev));

	(void)state;
	assert_non_null(dev);
	dev->nr_tiers = 2;
	dev->has_migration = true;
	dev->tiers[1].evacuating = true;
	snprintf(res.outcome, sizeof(res.outcome), "failed");
	assert_false(evacuate_confirm(dev, 1, &res));
	assert_string_equal(res.outcome, "failed");
	snprintf(res.outcome, sizeof(res.outcome), "unknown");
	assert_true(evacuate_confirm(dev, 1, &res));
	assert_string_equal(res.outcome, "done");
	snprintf(res.outcome, sizeof(res.outcome), "unknown");
	dev->tiers[1].mapped_extents = 1;
	assert_false(evacuate_confirm(dev, 1, &res));
	dev->tiers[1].mapped_extents = 0;
	dev->tiers[1].evacuating = false; /* --cancel'ed meanwhile */
	assert_false(evacuate_confirm(dev, 1, &res));
	dev->tiers[1].evacuating = true;
	dev->nr_moves = 1;
	snprintf(dev->moves[0].kind, sizeof(dev->moves[0].kind), "evacuate");
	dev->moves[0].target_tier = 1;
	assert_false(evacuate_confirm(dev, 1, &res));
	dev->nr_moves = 0;
	dev->has_migration = false; /* no mapped counts to trust */
	assert_false(evacuate_confirm(dev, 1, &res));
	assert_false(evacuate_confirm(dev, 2, &res));
	assert_string_equal(res.outcome, "unknown");
	free(dev);
}

/* pin --tier --wait: an unknown outcome counts, and fails the command. */
static void test_pin_unknown(void **state)
{
	char *argv[] = { "pin", "ckpt", "--range", "0:4M", "--tier", "1",
			 "--wait", "--json", NULL };
	char out[2048], err[2048];

	(void)state;
	script_reset(false, 0);
	sc.kind = "pin";
	assert_int_equal(run(cmd_pin, argv, out, sizeof(out), err,
			     sizeof(err)),
			 TIERCTL_EXIT_FAIL);
	assert_non_null(strstr(out, "\"unknown_requests\":1"));
	assert_non_null(strstr(err, "is unknown"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrate_no_monitor),
		cmocka_unit_test(test_migrate_no_monitor_json),
		cmocka_unit_test(test_migrate_event_done),
		cmocka_unit_test(test_migrate_event_missing),
		cmocka_unit_test(test_evacuate_unknown_extents_left),
		cmocka_unit_test(test_evacuate_confirmed_empty),
		cmocka_unit_test(test_evacuate_confirm),
		cmocka_unit_test(test_pin_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
