// SPDX-License-Identifier: GPL-2.0
/* tierctl watch: the dm-tier monitor group's events, one line each. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tl-print.h"
#include "tierctl.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void print_event(const struct tl_nl_dev *ev, bool json)
{
	char when[64], a[TL_SIZE_STR_LEN];
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + n, sizeof(when) - n, ".%03dZ",
		 (int)(ts.tv_nsec / 1000000) % 1000);

	/* One JSON object per line: print_open/close per event. */
	print_open(json);
	print_obj_begin(NULL);
	print_str("time", "%s ", when);
	print_str("name", "%s ", ev->name);
	print_str("event", "%s", tl_nl_event_name(ev->event));
	if (ev->move_id) {
		/* migration-done: which request, how it ended. */
		print_u64("move_id", " request %llu", ev->move_id);
		print_str("outcome", " %s", ev->move_outcome);
		print_u64("move_errno", ev->move_errno ? " (errno %llu)" : NULL,
			  ev->move_errno);
		print_u64("moved_extents", ", %llu extents moved,",
			  ev->done_extents);
	}
	if (ev->has_event_tier) {
		const struct tl_nl_tier *t = NULL;

		print_u64("event_tier", " tier %llu", ev->event_tier);
		if (ev->event_tier < ev->nr_tiers && ev->event_tier < TIER_MAX_TIERS)
			t = &ev->tiers[ev->event_tier];
		if (t && t->capacity_extents) {
			unsigned int pct = t->used_extents * 100 / t->capacity_extents;

			print_str("state", " %s", t->state[0] ? t->state : "-");
			print_u64("used_extents", " used %llu", t->used_extents);
			print_u64("capacity_extents", "/%llu extents", t->capacity_extents);
			print_text(" (%u%%)", pct);
			print_u64("io_errors", t->io_errors ? ", %llu I/O errors" : NULL,
				  t->io_errors);
		}
	}
	if (ev->metadata_mode[0])
		print_str("metadata_mode", ", metadata %s", ev->metadata_mode);
	print_u64("mapped_extents", ", %llu extents mapped", ev->mapped_extents);
	if (ev->has_migration) {
		const struct tl_nl_migration *m = &ev->migration;

		print_obj_begin("migration");
		print_str("pace", ", pace %s", m->pace[0] ? m->pace : "-");
		print_u64("in_flight", ", %llu in flight", m->in_flight);
		print_u64("manual_pending",
			  m->manual_pending ? ", %llu to migrate" : NULL,
			  m->manual_pending);
		print_u64_text("bytes_moved", ", %s moved", m->bytes_moved,
			       tl_size_str(m->bytes_moved, a));
		print_u64("errors", m->errors ? ", %llu errors" : NULL, m->errors);
		print_obj_end();
	}
	print_text("\n");
	print_obj_end();
	print_close();
	fflush(stdout);
}

static int parse_count(const char *opt, const char *s, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	if (errno || end == s || *end || *v <= 0 || *v > INT_MAX)
		return usage_error("watch: %s: invalid value '%s' (a positive whole number)",
				   opt, s);
	return TIERCTL_EXIT_OK;
}

int cmd_watch(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long count = 0, timeout_s = 0, deadline = 0, seen = 0;
	struct tl_err err = { "" };
	struct tl_nl_dev *ev;
	bool json = tierctl_json;
	const char *name = NULL;
	struct tl_nl *nl;
	int c, rc;

	opts_reset();
	while ((c = next_opt("watch", argc, argv, "c:t:j", longopts)) != -1) {
		switch (c) {
		case 'c':
			if (parse_count("--count", optarg, &count))
				return TIERCTL_EXIT_USAGE;
			break;
		case 't':
			if (parse_count("--timeout", optarg, &timeout_s))
				return TIERCTL_EXIT_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			return TIERCTL_EXIT_OK;
		default:
			return TIERCTL_EXIT_USAGE;
		}
	}
	if (optind < argc)
		name = argv[optind++];
	if (optind < argc)
		return usage_error("watch: unexpected argument '%s'", argv[optind]);

	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return fail("out of memory");
	rc = nl_open(&nl);
	if (rc) {
		free(ev);
		return rc;
	}
	rc = tl_nl_monitor(nl, &err);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	/* Subscribed: a test may start its burst once this line is seen. */
	fprintf(stderr, "tierctl: watching %s\n", name ? name : "all dm-tier devices");
	if (timeout_s)
		deadline = now_ms() + timeout_s * 1000;
	while (!count || seen < count) {
		int wait = -1;

		if (timeout_s) {
			long long left = deadline - now_ms();

			wait = left > 0 ? (int)min(left, (long long)INT_MAX) : 0;
		}
		rc = tl_nl_next_event(nl, ev, wait, &err);
		if (rc == TL_NL_TIMEOUT) {
			rc = fail("watch: %lld event%s within %lld s (wanted %lld)", seen,
				  seen == 1 ? "" : "s", timeout_s, count ? count : seen + 1);
			goto out;
		}
		if (rc) {
			rc = report(rc, &err);
			goto out;
		}
		if (name && strcmp(ev->name, name))
			continue;
		print_event(ev, json);
		seen++;
	}
	rc = TIERCTL_EXIT_OK;
out:
	tl_nl_close(nl);
	free(ev);
	return rc;
}
