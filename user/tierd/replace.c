// SPDX-License-Identifier: GPL-2.0
/*
 * tierd: the replace_tier policy line (docs/tierd.md "Replacing a tier").
 * tierd runs "tierctl replace-tier NAME TIER DEV", the command a person
 * would run, in a child process: its steps, its resume logic (the next
 * step read from the superblock) and its refusals are that command's, and
 * it waits for an evacuation that can take minutes without holding up
 * tierd's loop. The child's output is logged when it ends. Started when a
 * configuration is applied to a device (start, a device's arrival, SIGHUP);
 * a finished replacement run again answers "nothing to do".
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tierd.h"

/* The tierctl to run: $TIERD_TIERCTL (tests), else tierctl on $PATH. */
static const char *tierctl_path(void)
{
	const char *p = getenv("TIERD_TIERCTL");

	return p && *p ? p : "tierctl";
}

void tierd_replace_start(struct tierd *td, struct tierd_dev *d,
			 const struct tl_conf_dev *cd)
{
	char tier[16];
	sigset_t none;
	FILE *out;
	pid_t pid;

	if (!cd->replace_dev || d->replace_pid > 0)
		return;
	out = tmpfile();
	if (!out) {
		log_err("%s: replace_tier: no temporary file for its output: %s",
			d->name, strerror(errno));
		d->failed = true;
		return;
	}
	snprintf(tier, sizeof(tier), "%u", cd->replace_tier);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		log_err("%s: replace_tier: fork: %s", d->name, strerror(errno));
		fclose(out);
		d->failed = true;
		return;
	}
	if (!pid) {
		/* tierd blocks the signals it reads from a signalfd. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		dup2(fileno(out), STDOUT_FILENO);
		dup2(fileno(out), STDERR_FILENO);
		execlp(tierctl_path(), tierctl_path(), "replace-tier", d->name,
		       tier, cd->replace_dev, (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", tierctl_path(),
			strerror(errno));
		_exit(127);
	}
	log_notice("%s: replace_tier: replacing tier %u by %s (tierctl replace-tier, pid %d)",
		   d->name, cd->replace_tier, cd->replace_dev, (int)pid);
	d->replace_pid = pid;
	d->replace_out = out;
	(void)td;
}

/* Log what the child wrote, a line each. */
static void log_output(struct tierd_dev *d, int level)
{
	char line[1024];

	rewind(d->replace_out);
	while (fgets(line, sizeof(line), d->replace_out)) {
		line[strcspn(line, "\n")] = '\0';
		/* A progress line rewritten in place: its last state. */
		if (strrchr(line, '\r'))
			memmove(line, strrchr(line, '\r') + 1,
				strlen(strrchr(line, '\r')));
		if (*line)
			tierd_log(level, "%s: replace_tier: %s", d->name, line);
	}
}

bool tierd_replace_reap(struct tierd *td)
{
	bool running = false;
	size_t i;
	int st;

	for (i = 0; i < td->nr_devs; i++) {
		struct tierd_dev *d = &td->devs[i];
		pid_t r;

		if (d->replace_pid <= 0)
			continue;
		r = waitpid(d->replace_pid, &st, WNOHANG);
		if (!r || (r < 0 && errno == EINTR)) {
			running = true;
			continue;
		}
		if (r > 0 && WIFEXITED(st) && !WEXITSTATUS(st)) {
			log_output(d, LOG_INFO);
			log_notice("%s: replace_tier: done", d->name);
		} else {
			log_output(d, LOG_ERR);
			if (r > 0 && WIFEXITED(st))
				log_err("%s: replace_tier: tierctl replace-tier exited %d; it resumes at the next SIGHUP or start",
					d->name, WEXITSTATUS(st));
			else
				log_err("%s: replace_tier: tierctl replace-tier ended abnormally; it resumes at the next SIGHUP or start",
					d->name);
			d->failed = true;
		}
		fclose(d->replace_out);
		d->replace_out = NULL;
		d->replace_pid = 0;
	}
	return running;
}
