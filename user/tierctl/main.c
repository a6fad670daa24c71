// SPDX-License-Identifier: GPL-2.0
/* tierctl's main(): global options, then the command (tierctl.c). */
#include <stdbool.h>
#include <string.h>

#include "tierctl.h"
#include "tl-dm.h"

int main(int argc, char **argv)
{
	const struct tierctl_cmd *cmd;

	while (argc > 1) {
		if (!strcmp(argv[1], "--json") || !strcmp(argv[1], "-j"))
			tierctl_json = true;
		else if (!strcmp(argv[1], "-H") || !strcmp(argv[1], "--human"))
			tierctl_human = true;
		else
			break;
		argc--;
		argv++;
	}
	if (argc < 2)
		return usage_error("no command given");
	tl_dm_init();
	cmd = find_cmd(argv[1]);
	if (cmd)
		return cmd->fn(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv + 1);
	if (!strcmp(argv[1], "--version"))
		return cmd_version(1, argv + 1);
	return usage_error("unknown command '%s'", argv[1]);
}
