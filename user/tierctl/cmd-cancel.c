// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl cancel: cancel a queued move request (migrate, pin --tier) by the
 * id that request printed, or that 'tierctl status' lists (move-cancel).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tl-print.h"
#include "tierctl.h"

int cmd_cancel(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_err err = { "" };
	bool json = tierctl_json;
	const char *name;
	struct tl_nl *nl;
	unsigned long v;
	char *end;
	int c, rc;

	opts_reset();
	while ((c = next_opt("cancel", argc, argv, "j", longopts)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			return TIERCTL_EXIT_OK;
		default:
			return TIERCTL_EXIT_USAGE;
		}
	}
	if (argc - optind != 2)
		return usage_error("cancel: give the device NAME and the request ID ('tierctl status NAME' lists them)");
	name = argv[optind];
	errno = 0;
	v = strtoul(argv[optind + 1], &end, 10);
	if (errno || end == argv[optind + 1] || *end ||
	    argv[optind + 1][0] == '-' || !v || v > UINT32_MAX)
		return usage_error("cancel: invalid request id '%s' (the number a migrate or pin printed)",
				   argv[optind + 1]);

	rc = tl_nl_open(&nl, &err);
	if (rc)
		return report(rc, &err);
	rc = tl_nl_move_cancel(nl, name, (u32)v, &err);
	tl_nl_close(nl);
	if (rc)
		return report(rc, &err);
	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "%s: ", name);
	print_u64("move_id", "request %llu cancelled", v);
	print_text(" (extents it moved already stay moved; its migration-done event says \"cancelled\")\n");
	print_obj_end();
	print_close();
	return TIERCTL_EXIT_OK;
}
