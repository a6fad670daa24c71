/* SPDX-License-Identifier: GPL-2.0 */
#ifndef DM_TIER_TIERCTL_H
#define DM_TIER_TIERCTL_H

#include <stdarg.h>

enum {
	TIERCTL_EXIT_OK = 0,
	TIERCTL_EXIT_FAIL = 1,	/* the operation failed; stderr says why */
	TIERCTL_EXIT_USAGE = 2, /* bad command line */
};

struct tierctl_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *help;
};

/* Print "tierctl: <message>" and a hint on stderr; returns TIERCTL_EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);

#endif /* DM_TIER_TIERCTL_H */
