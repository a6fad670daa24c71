// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl - administer dm-tier devices.
 *
 * Exit codes: 0 success, 1 failure, 2 usage error (see tierctl help).
 * docs/tierctl.md describes every command.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <linux/dm-tier-version.h>

#include "print.h"
#include "tierctl.h"
#include "tl-dm.h"

bool tierctl_json;

static const struct tierctl_cmd commands[] = {
	{ "create", cmd_create,
	  "create NAME --tier DEV [--tier DEV...] [--extent-size SIZE]\n"
	  "         [--size SIZE] [--class CLASS...] [--metadata-dev DEV] [--force]",
	  "format devices as a new dm-tier device and activate it" },
	{ "activate", cmd_activate, "activate [NAME | --all]",
	  "find member devices by their labels and activate the device(s)" },
	{ "remove", cmd_remove, "remove NAME",
	  "deactivate a dm-tier device (the data stays on the tiers)" },
	{ "list", cmd_list, "list [--json]", "list the active dm-tier devices" },
	{ "status", cmd_status, "status NAME [--json]",
	  "show a device's tiers, usage and counters" },
	{ "version", cmd_version, "version [--json]", "print the tierctl version" },
	{ "help", cmd_help, "help [COMMAND]", "this list, or one command's usage" },
};

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "tierctl: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	fputs("Run 'tierctl help' for usage.\n", stderr);
	return TIERCTL_EXIT_USAGE;
}

int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	return TIERCTL_EXIT_FAIL;
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

int report(int rc, const struct tl_err *err)
{
	const char *p = err->msg, *nl;

	if (!*p)
		p = "unknown error";
	for (; p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		fprintf(stderr, "tierctl: %.*s\n",
			(int)(nl ? (size_t)(nl - p) : strlen(p)), p);
	}
	if (rc == TIERCTL_EXIT_USAGE)
		fputs("Run 'tierctl help' for usage.\n", stderr);
	return rc;
}

const char *cmd_usage(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return commands[i].usage;
	return name;
}

void opts_reset(void)
{
	optind = 0;	/* 0: full re-initialisation of GNU getopt */
	opterr = 0;
}

int next_opt(const char *cmd, int argc, char **argv, const char *optstring,
	     const struct option *longopts)
{
	char fullopts[64];
	int c;

	snprintf(fullopts, sizeof(fullopts), ":%sh", optstring);
	c = getopt_long(argc, argv, fullopts, longopts, NULL);
	switch (c) {
	case '?':
		if (optopt)
			usage_error("%s: unknown option '-%c'", cmd, optopt);
		else
			usage_error("%s: unknown option '%s'", cmd,
				    argv[optind - 1]);
		return 0;
	case ':':
		usage_error("%s: option '%s' needs a value", cmd,
			    argv[optind - 1]);
		return 0;
	case 'h':
		printf("usage: tierctl %s\n", cmd_usage(cmd));
		return 'h';
	default:
		return c;
	}
}

static void print_usage_list(FILE *f)
{
	size_t i;

	fprintf(f, "usage: tierctl [--json] COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %s\n      %s\n", commands[i].usage,
			commands[i].help);
	fprintf(f,
		"\nSIZE: bytes or with a binary suffix: 64K, 1M, 1MiB, 10G, 2T, 8s (sectors).\n"
		"CLASS: nvme, nvmf, pmem or auto (one --class per --tier, in order).\n"
		"Every command accepts -h / --help. See docs/tierctl.md.\n"
		"\nexit codes: 0 success, 1 failure, 2 usage error\n");
}

int cmd_help(int argc, char **argv)
{
	size_t i;

	if (argc > 2)
		return usage_error("help: too many arguments");
	if (argc == 2) {
		for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
			if (strcmp(argv[1], commands[i].name))
				continue;
			printf("usage: tierctl %s\n  %s\n", commands[i].usage,
			       commands[i].help);
			return TIERCTL_EXIT_OK;
		}
		return usage_error("help: unknown command '%s'", argv[1]);
	}
	print_usage_list(stdout);
	return TIERCTL_EXIT_OK;
}

int cmd_version(int argc, char **argv)
{
	bool json = tierctl_json;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			json = true;
		else
			return usage_error("version: unexpected argument '%s'", argv[i]);
	}
	print_open(json);
	print_obj_begin(NULL);
	print_str("version", "tierctl %s\n", DM_TIER_VERSION_STRING);
	print_obj_end();
	print_close();
	return TIERCTL_EXIT_OK;
}

int main(int argc, char **argv)
{
	size_t i;

	while (argc > 1 && (!strcmp(argv[1], "--json") || !strcmp(argv[1], "-j"))) {
		tierctl_json = true;
		argc--;
		argv++;
	}
	if (argc < 2)
		return usage_error("no command given");
	tl_dm_init();
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv + 1);
	if (!strcmp(argv[1], "--version"))
		return cmd_version(1, argv + 1);
	return usage_error("unknown command '%s'", argv[1]);
}
