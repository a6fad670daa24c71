// SPDX-License-Identifier: GPL-2.0
/*
 * tierd - the dm-tier policy daemon (docs/tierd.md): applies per-device
 * policies, pins and checkpoint retention from /etc/dm-tier, reacts to the
 * netlink monitor's events, reconnects NVMe-oF tiers, writes a metrics
 * textfile. One thread, one poll() over the monitor socket and a signalfd.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <linux/dm-tier.h>

#include "tierd.h"
#include "tl-events.h"

#define NL_RETRY_MS 5000 /* module not loaded yet: try again */
#define RECONCILE_DEF_MS 30000 /* pins and checkpoints without metrics */
#define ONCE_LIMIT_MS (10 * 60 * 1000) /* --once waits this long for moves */
#define MAX_POLLFDS 16

static const char usage_text[] =
	"usage: tierd [-f|--foreground] [-c FILE] [--config-dir DIR] [--once]\n"
	"             [--check] [--log-level LEVEL]\n"
	"\n"
	"The dm-tier policy daemon: applies the migration settings, pins and\n"
	"checkpoint retention of /etc/dm-tier/tierd.conf and\n"
	"/etc/dm-tier/policies.d/*.conf to dm-tier devices as they appear,\n"
	"reconnects NVMe-oF tiers after a tier error and writes Prometheus\n"
	"metrics to metrics_textfile for node_exporter's textfile collector.\n"
	"\n"
	"  -f, --foreground    log to stderr instead of syslog\n"
	"  -c, --config FILE   main file instead of DIR/tierd.conf (must exist)\n"
	"      --config-dir DIR  read DIR/tierd.conf and DIR/policies.d/*.conf\n"
	"                      instead of /etc/dm-tier\n"
	"      --once          apply the policies to the devices present, wait for\n"
	"                      the moves they ask for, and exit\n"
	"      --check         check the configuration and exit\n"
	"      --log-level L   error, warning, notice, info (default) or debug\n"
	"  -h, --help          this text\n"
	"\n"
	"Signals: SIGHUP reloads the configuration (a bad one is refused as a\n"
	"whole and the previous one stays); SIGTERM and SIGINT stop.\n"
	"\n"
	"Exit codes: 0 success; 1 --once: a device could not be configured, or\n"
	"a runtime failure; 2 bad configuration or command line.\n"
	"See docs/tierd.md.\n";

static struct tierd_dev *dev_by_name(struct tierd *td, const char *name)
{
	return tierd_dev_get(td, name);
}

#define MSG_STALE_DEV_DEL \
	"%s: event dev-del of an earlier device of that name (uuid %s; renamed since), not of the one it names now (uuid %s): that one stays"

/* The device tracked with @uuid, under any name, or NULL. */
static struct tierd_dev *dev_by_uuid(struct tierd *td, const char *uuid)
{
	size_t i;

	for (i = 0; uuid[0] && i < td->nr_devs; i++) {
		if (!strcmp(td->devs[i].uuid, uuid))
			return &td->devs[i];
	}
	return NULL;
}

/* ---- configuration -------------------------------------------------------- */

/* Load into @c; every problem logged. Returns the number of problems. */
static int load_config(struct tierd *td, struct tl_conf *c)
{
	struct tl_conf_errors errs = { 0 };
	size_t i;
	int n;

	tl_conf_init(c);
	n = tl_conf_load(c, td->conf_main, td->conf_dir, &errs);
	for (i = 0; i < errs.nr; i++)
		log_err("%s", errs.lines[i] ? errs.lines[i] : "out of memory");
	tl_conf_errors_free(&errs);
	if (n)
		tl_conf_free(c);
	return n;
}

static void log_config(const struct tl_conf *c)
{
	log_info("configuration: %zu file(s), %zu device section(s)%s%s",
		 c->nr_files, c->nr_devs,
		 c->metrics_textfile ? ", metrics to " : "",
		 c->metrics_textfile ? c->metrics_textfile : "");
}

static void reload(struct tierd *td)
{
	struct tl_conf c;
	size_t i;
	int n;

	log_notice("SIGHUP: reloading the configuration");
	n = load_config(td, &c);
	if (n) {
		log_err("configuration NOT reloaded: %d problem(s) above; the previous configuration stays in force (fix the files and send SIGHUP again)",
			n);
		return;
	}
	tl_conf_free(&td->conf);
	td->conf = c;
	log_config(&td->conf);
	for (i = 0; i < td->nr_devs; i++)
		tierd_apply_device(td, &td->devs[i]);
}

/* ---- netlink -------------------------------------------------------------- */

static void nl_close(struct tierd *td)
{
	if (td->nl)
		tl_nl_close(td->nl);
	if (td->mon)
		tl_nl_close(td->mon);
	td->nl = td->mon = NULL;
}

struct list_ctx {
	struct tierd *td;
	char (*names)[128];
	size_t nr;
};

static int list_cb(const struct tl_nl_dev *nd, void *arg)
{
	struct list_ctx *lc = arg;
	struct tierd_dev *d = dev_by_name(lc->td, nd->name);
	char(*more)[128];

	if (!d)
		return -ENOMEM;
	d->present = true;
	tierd_dev_update(d, nd);
	/* --once configures and exits: it reconnects nothing. */
	if (!lc->td->once)
		tierd_check_tiers(d, nd);
	more = realloc(lc->names, (lc->nr + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	lc->names = more;
	snprintf(lc->names[lc->nr++], sizeof(lc->names[0]), "%s", nd->name);
	return 0;
}

/* Every device the kernel has now; apply the policy to configured ones. */
static int scan_devices(struct tierd *td)
{
	struct list_ctx lc = { .td = td };
	struct tl_err err = { "" };
	struct tierd_dev *d;
	size_t i;
	int rc;

	for (i = 0; i < td->nr_devs; i++)
		td->devs[i].present = false;
	rc = tl_nl_dev_list(td->nl, list_cb, &lc, &err);
	if (rc != TL_OK) {
		log_err("listing dm-tier devices failed: %s", err.msg);
		free(lc.names);
		return rc;
	}
	for (i = 0; i < td->nr_devs; i++) {
		if (!td->devs[i].present)
			tierd_dev_forget(&td->devs[i]);
	}
	for (i = 0; i < lc.nr; i++) {
		d = dev_by_name(td, lc.names[i]);
		if (!d)
			continue;
		if (tl_conf_dev_find(&td->conf, d->name)) {
			log_info("%s: present, applying its configuration",
				 d->name);
			tierd_apply_device(td, d);
		} else {
			log_info(
				"%s: present, no [device %s] section: leaving it alone",
				d->name, d->name);
		}
	}
	free(lc.names);
	return TL_OK;
}

/*
 * Open the request and monitor sockets; a missing family (module not loaded)
 * is retried later by the loop. Joining the monitor before listing means no
 * device can appear unseen in between.
 */
static int nl_connect(struct tierd *td)
{
	struct tl_err err = { "" };
	int rc;

	rc = tl_nl_open(&td->mon, &err);
	if (rc == TL_OK)
		rc = tl_nl_monitor(td->mon, &err);
	if (rc == TL_OK)
		rc = tl_nl_open(&td->nl, &err);
	if (rc != TL_OK) {
		if (!td->nl_missing_logged || td->once)
			log_warn("netlink: %s%s", err.msg,
				 td->once ? "" : " (retrying every 5 s)");
		td->nl_missing_logged = true;
		nl_close(td);
		td->next_nl_open_ms = tierd_now_ms() + NL_RETRY_MS;
		return rc;
	}
	td->nl_missing_logged = false;
	log_info("netlink: connected to the dm-tier family, monitoring events");
	rc = scan_devices(td);
	if (rc != TL_OK) {
		nl_close(td);
		td->next_nl_open_ms = tierd_now_ms() + NL_RETRY_MS;
	}
	return rc;
}

static void handle_event(struct tierd *td, const struct tl_nl_dev *ev)
{
	const char *name = tl_nl_event_name(ev->event);
	const char *mode = ev->event == DM_TIER_EVENT_MODE_CHANGE ?
				   ev->metadata_mode :
				   NULL;
	char tier[24] = "", req[48] = "";
	struct tierd_dev *d;
	int level = LOG_INFO, t;

	d = dev_by_name(td, ev->name);
	if (!d)
		return;
	/*
	 * dev-del names the device as the kernel last saw it: renamed since
	 * (and another device created under the old name), it is not the
	 * device tierd tracks under that name, which lives on. The device
	 * went: forget it under the name it has here, if any.
	 */
	if (ev->event == DM_TIER_EVENT_DEV_DEL &&
	    !tl_ev_same_device(d->uuid, ev)) {
		log_info(MSG_STALE_DEV_DEL, ev->name, ev->uuid, d->uuid);
		d = dev_by_uuid(td, ev->uuid);
		if (d)
			tierd_dev_forget(d);
		return;
	}
	if (ev->event <= TL_METRICS_MAX_EVENT)
		d->events.count[ev->event]++;
	if (ev->event == DM_TIER_EVENT_TIER_ERROR ||
	    ev->event == DM_TIER_EVENT_MODE_CHANGE ||
	    ev->event == DM_TIER_EVENT_NEAR_FULL)
		level = LOG_WARNING;
	if (ev->has_event_tier)
		snprintf(tier, sizeof(tier), ", tier %u", ev->event_tier);
	if (ev->move_id)
		snprintf(req, sizeof(req), ", request %u %s", ev->move_id,
			 ev->move_outcome);
	tierd_log(level, "%s: event %s%s%s%s%s", ev->name, name, tier, req,
		  mode ? ", metadata mode " : "", mode ? mode : "");

	if (ev->event != DM_TIER_EVENT_DEV_DEL)
		tierd_dev_update(d, ev);
	switch (ev->event) {
	case DM_TIER_EVENT_DEV_NEW:
		d->present = true;
		if (tl_conf_dev_find(&td->conf, d->name))
			tierd_apply_device(td, d);
		break;
	case DM_TIER_EVENT_DEV_DEL:
		tierd_dev_forget(d);
		break;
	case DM_TIER_EVENT_MIGRATION_DONE:
		tierd_move_done(td, d, ev);
		d->next_op_ms = 0; /* room in the kernel's queue: send more */
		tierd_run_ops(td, d);
		break;
	case DM_TIER_EVENT_TIER_ERROR:
		tierd_tier_error(td, d, ev);
		break;
	case DM_TIER_EVENT_TIER_RECOVERED:
		/* Not when it failed again since: the attempts go on. */
		t = tl_ev_recovered_tier(ev);
		if (t >= 0) {
			/* By its device: the index is the event's list's. */
			struct tl_recover *r = tl_recover_find(
				d->recover, TIER_MAX_TIERS,
				ev->tiers[t].device);

			if (r)
				r->active = false;
		}
		break;
	default:
		break;
	}
}

/* Everything the monitor socket has; on a socket error, reconnect and
 * rescan (events may have been lost, e.g. ENOBUFS). */
static void drain_events(struct tierd *td)
{
	struct tl_err err = { "" };
	struct tl_nl_dev *ev;
	int rc, n;

	ev = malloc(sizeof(*ev));
	if (!ev)
		return;
	for (n = 0; n < 256 && td->mon; n++) {
		memset(ev, 0, sizeof(*ev));
		rc = tl_nl_next_event(td->mon, ev, 0, &err);
		if (rc == TL_NL_TIMEOUT)
			break;
		if (rc != TL_OK) {
			log_warn(
				"netlink monitor: %s; reconnecting and rescanning",
				err.msg);
			nl_close(td);
			td->next_nl_open_ms = tierd_now_ms();
			break;
		}
		if (ev->event)
			handle_event(td, ev);
	}
	free(ev);
}

/* ---- the loop ------------------------------------------------------------- */

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static bool ops_pending(const struct tierd *td)
{
	size_t i;

	for (i = 0; i < td->nr_devs; i++) {
		if (td->devs[i].present && td->devs[i].nr_ops)
			return true;
	}
	return false;
}

static int once_result(struct tierd *td)
{
	int failed = 0;
	size_t i;

	for (i = 0; i < td->nr_devs; i++) {
		if (!td->devs[i].present)
			continue;
		if (td->devs[i].nr_ops) {
			log_err("%s: %zu request(s) still waiting after %d s",
				td->devs[i].name, td->devs[i].nr_ops,
				ONCE_LIMIT_MS / 1000);
			td->devs[i].failed = true;
		}
		if (td->devs[i].replace_pid > 0) {
			log_err("%s: replace_tier: tierctl replace-tier (pid %d) still running after %d s; it goes on alone ('tierctl status %s' shows the evacuation)",
				td->devs[i].name, td->devs[i].replace_pid,
				ONCE_LIMIT_MS / 1000, td->devs[i].name);
			td->devs[i].failed = true;
		}
		failed += td->devs[i].failed;
	}
	for (i = 0; i < td->conf.nr_devs; i++) {
		struct tierd_dev *d = NULL;
		size_t k;

		for (k = 0; k < td->nr_devs; k++) {
			if (!strcmp(td->devs[k].name, td->conf.devs[i].name))
				d = &td->devs[k];
		}
		if (!d || !d->present)
			log_info(
				"%s: configured but not active: nothing applied",
				td->conf.devs[i].name);
	}
	if (failed)
		log_err("--once: %d device(s) could not be configured fully",
			failed);
	else
		log_info("--once: done");
	return failed ? TIERD_EXIT_FAIL : TIERD_EXIT_OK;
}

static int run(struct tierd *td, int sfd)
{
	struct pollfd pfd[MAX_POLLFDS];
	struct signalfd_siginfo si;
	int64_t now, next_reconcile, next_metrics, deadline, once_end;
	int64_t reconcile_ms, metrics_ms;
	int n, mon_at, i, timeout;
	bool replacing;
	size_t k;

	now = tierd_now_ms();
	once_end = now + ONCE_LIMIT_MS;
	next_reconcile = next_metrics = now;
	for (;;) {
		now = tierd_now_ms();
		metrics_ms = (int64_t)td->conf.metrics_interval * 1000;
		reconcile_ms = td->conf.metrics_textfile ? metrics_ms :
							   RECONCILE_DEF_MS;
		if (!td->nl && now >= td->next_nl_open_ms) {
			if (nl_connect(td) != TL_OK && td->once)
				return TIERD_EXIT_FAIL;
			next_reconcile = now + reconcile_ms;
		}
		for (k = 0; k < td->nr_devs; k++) {
			tierd_run_ops(td, &td->devs[k]);
			tierd_run_recover(td, &td->devs[k]);
		}
		replacing = tierd_replace_reap(td);
		if (td->once) {
			if (!ops_pending(td) && !replacing)
				return once_result(td);
			if (now >= once_end)
				return once_result(td);
		}
		if (!td->once && now >= next_reconcile) {
			for (k = 0; k < td->nr_devs; k++)
				tierd_reconcile(td, &td->devs[k]);
			next_reconcile = now + reconcile_ms;
		}
		if (!td->once && td->conf.metrics_textfile &&
		    now >= next_metrics) {
			tierd_metrics_write_textfile(td,
						     td->conf.metrics_textfile);
			next_metrics = now + metrics_ms;
		}

		deadline = min64(next_reconcile, td->conf.metrics_textfile ?
							 next_metrics :
							 INT64_MAX);
		if (td->once)
			deadline = min64(now + 1000, once_end);
		/* A replace-tier child: look for its end every second. */
		if (replacing)
			deadline = min64(deadline, now + 1000);
		if (!td->nl)
			deadline = min64(deadline, td->next_nl_open_ms);
		/* Requests and reconnects wait for the netlink socket. */
		for (k = 0; td->nl && k < td->nr_devs; k++) {
			if (td->devs[k].nr_ops)
				deadline =
					min64(deadline, td->devs[k].next_op_ms);
			for (i = 0; i < TIER_MAX_TIERS; i++) {
				if (td->devs[k].recover[i].active)
					deadline = min64(
						deadline,
						td->devs[k].recover[i].next_ms);
			}
		}
		timeout = deadline <= now	 ? 0 :
			  deadline - now > 60000 ? 60000 :
						   (int)(deadline - now);

		n = 0;
		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		mon_at = -1;
		if (td->mon) {
			mon_at = n;
			pfd[n++] = (struct pollfd){ .fd = tl_nl_fd(td->mon),
						    .events = POLLIN };
		}
		if (poll(pfd, (nfds_t)n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			log_err("poll: %s", strerror(errno));
			return TIERD_EXIT_FAIL;
		}
		if (pfd[0].revents & POLLIN) {
			if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGHUP) {
					if (td->once)
						log_info(
							"SIGHUP ignored with --once");
					else
						reload(td);
				} else {
					log_notice(
						"%s: exiting",
						strsignal((int)si.ssi_signo));
					return td->once ? TIERD_EXIT_FAIL :
							  TIERD_EXIT_OK;
				}
			}
		}
		if (mon_at >= 0 && pfd[mon_at].revents)
			drain_events(td);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "config", required_argument, NULL, 'c' },
		{ "config-dir", required_argument, NULL, 'D' },
		{ "once", no_argument, NULL, 'o' },
		{ "check", no_argument, NULL, 'k' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct tierd td = { 0 };
	bool foreground = false, check = false;
	int level = LOG_INFO, opt, sfd, ret, n;
	sigset_t mask;
	size_t i;

	while ((opt = getopt_long(argc, argv, "fc:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			foreground = true;
			break;
		case 'c':
			td.conf_main = optarg;
			break;
		case 'D':
			td.conf_dir = optarg;
			break;
		case 'o':
			td.once = true;
			break;
		case 'k':
			check = true;
			break;
		case 'l':
			level = tierd_log_level(optarg);
			if (level < 0) {
				fprintf(stderr,
					"tierd: --log-level %s: use error, warning, notice, info or debug\n",
					optarg);
				return TIERD_EXIT_CONFIG;
			}
			break;
		case 'h':
			fputs(usage_text, stdout);
			return TIERD_EXIT_OK;
		default:
			fputs(usage_text, stderr);
			return TIERD_EXIT_CONFIG;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tierd: unexpected argument '%s'\n%s",
			argv[optind], usage_text);
		return TIERD_EXIT_CONFIG;
	}
	/* --once and --check are run by hand or from cron: answer on stderr. */
	tierd_log_open(foreground || td.once || check, level);

	n = load_config(&td, &td.conf);
	if (n) {
		log_err("configuration refused: %d problem(s) (fix them; tierd --check tells when it is right)",
			n);
		return TIERD_EXIT_CONFIG;
	}
	if (check) {
		log_config(&td.conf);
		tl_conf_free(&td.conf);
		return TIERD_EXIT_OK;
	}
	log_config(&td.conf);

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		log_err("signalfd: %s", strerror(errno));
		return TIERD_EXIT_FAIL;
	}
	signal(SIGPIPE, SIG_IGN);

	ret = run(&td, sfd);

	nl_close(&td);
	close(sfd);
	for (i = 0; i < td.nr_devs; i++)
		tierd_dev_forget(&td.devs[i]);
	free(td.devs);
	tl_conf_free(&td.conf);
	return ret;
}
