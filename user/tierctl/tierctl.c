// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl - administer dm-tier devices.
 *
 * Exit codes: 0 success, 1 failure, 2 usage error (see tierctl help).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <linux/dm-tier-version.h>

#include "print.h"
#include "tierctl.h"

static const struct tierctl_cmd commands[] = {
	{ "version", cmd_version, "version [--json]", "print the tierctl version" },
	{ "help", cmd_help, "help", "this list" },
};

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("tierctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nRun 'tierctl help' for usage.\n", stderr);
	return TIERCTL_EXIT_USAGE;
}

int cmd_help(int argc, char **argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	printf("usage: tierctl COMMAND [ARGS] [--json]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  %-40s %s\n", commands[i].usage, commands[i].help);
	printf("\nexit codes: 0 success, 1 failure, 2 usage error\n");
	return TIERCTL_EXIT_OK;
}

int cmd_version(int argc, char **argv)
{
	bool json = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
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

	if (argc < 2)
		return usage_error("no command given");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(argc - 1, argv + 1);
	return usage_error("unknown command '%s'", argv[1]);
}
