// SPDX-License-Identifier: GPL-2.0
/* tierd's log: stderr in the foreground (with journald's <N> level prefix
 * when stderr is the journal), syslog otherwise. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tierd.h"

static bool log_to_stderr = true;
static bool log_journal_prefix;
static int log_max_level = LOG_INFO;

static const char *const level_names[] = {
	[LOG_ERR] = "error", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

int tierd_log_level(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (level_names[i] && !strcmp(name, level_names[i]))
			return (int)i;
	}
	return -1;
}

void tierd_log_open(bool foreground, int max_level)
{
	log_max_level = max_level;
	log_to_stderr = foreground;
	/* systemd sets JOURNAL_STREAM when stderr goes to the journal, which
	 * then takes "<N>" as the priority of the line. */
	log_journal_prefix = foreground && getenv("JOURNAL_STREAM");
	if (!foreground) {
		openlog("tierd", LOG_PID, LOG_DAEMON);
		setlogmask(LOG_UPTO(max_level));
	}
}

void tierd_log(int level, const char *fmt, ...)
{
	char msg[2048], *p;
	va_list ap;

	if (level > log_max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* One record per call: library messages may span lines. */
	for (p = msg; (p = strchr(p, '\n'));)
		*p = ' ';
	if (!log_to_stderr) {
		syslog(level, "%s", msg);
		return;
	}
	if (log_journal_prefix)
		fprintf(stderr, "<%d>%s\n", level, msg);
	else
		fprintf(stderr, "tierd: %s: %s\n", level_names[level], msg);
}

int64_t tierd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
