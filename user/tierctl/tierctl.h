/* SPDX-License-Identifier: GPL-2.0 */
#ifndef DM_TIER_TIERCTL_H
#define DM_TIER_TIERCTL_H

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>

#include "tl.h"

enum {
	TIERCTL_EXIT_OK = TL_OK,
	TIERCTL_EXIT_FAIL = TL_FAIL,	/* the operation failed; stderr says why */
	TIERCTL_EXIT_USAGE = TL_USAGE,	/* bad command line */
};

struct tierctl_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *help;
};

/* Set by a global --json / -j before the command. */
extern bool tierctl_json;

/* Print "tierctl: <message>" and a hint on stderr; returns TIERCTL_EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "tierctl: <message>" on stderr; returns TIERCTL_EXIT_FAIL. */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print a warning ("tierctl: warning: ...") on stderr. */
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print @err's lines as "tierctl: <line>" on stderr (with the usage hint
 * when @rc is TIERCTL_EXIT_USAGE); returns @rc. */
int report(int rc, const struct tl_err *err);

/* The usage line of command @name ("create NAME --tier DEV ..."). */
const char *cmd_usage(const char *name);

/*
 * getopt_long() driver shared by the commands: @optstring without leading
 * ':'. Returns the option, -1 at the end, or 0 after printing a usage error
 * (unknown option, missing argument) — the command then returns
 * TIERCTL_EXIT_USAGE. "-h"/"--help" print the command's usage and return
 * 'h'.
 */
int next_opt(const char *cmd, int argc, char **argv, const char *optstring,
	     const struct option *longopts);
/* Reset getopt before a command parses its arguments. */
void opts_reset(void);

int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_create(int argc, char **argv);
int cmd_remove(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_activate(int argc, char **argv);

/* ---- block devices (probe.c) ---- */

/*
 * What foreign signatures libblkid finds on @fd (superblocks: filesystems,
 * RAID/LVM members, crypto, swap...; partition tables), as a phrase for
 * messages: "a filesystem (xfs)", "a partition table (gpt)", several joined
 * with ", ".
 * Return: 1 when something was found, 0 when nothing, -errno on error.
 */
int probe_foreign(int fd, char *what, size_t len);

/* Erase every signature probe_foreign() finds (like wipefs -a). */
int wipe_foreign(int fd, const char *path, struct tl_err *err);

#endif /* DM_TIER_TIERCTL_H */
