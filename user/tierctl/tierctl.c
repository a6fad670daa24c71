// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl - administer dm-tier devices: the command table and what the
 * commands share (messages, option parsing, netlink, arguments). main() is
 * in main.c, so that unit tests can link the commands.
 *
 * Exit codes: 0 success, 1 failure, 2 usage error, 3 the kernel lacks the
 * feature (see tierctl help).
 * docs/tierctl.md describes every command.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <linux/dm-tier-version.h>
#include <linux/dm-tier.h>

#include "tl-print.h"
#include "tierctl.h"
#include "tl-dm.h"
#include "tl-nl.h"
#include "tl-sysfs.h"
#include "units.h"

bool tierctl_json;
bool tierctl_human;

static const struct tierctl_cmd commands[] = {
	{ "create", cmd_create,
	  "create NAME --tier DEV|nvmf://TRANSPORT/ADDR:PORT/NQN [--tier ...]\n"
	  "         [--tier numa:NODE:SIZE] [--extent-size SIZE] [--size SIZE] [--max-size SIZE]\n"
	  "         [--class CLASS...] [--metadata-dev DEV] [--force]\n"
	  "         [--ctrl-loss-tmo SEC] [--reconnect-delay SEC] [--fast-io-fail-tmo SEC]\n"
	  "         [--mem-promote-hits N] [--json]",
	  "format devices as a new dm-tier device and activate it" },
	{ "activate", cmd_activate, "activate [NAME | --all] [--readonly] [--json]",
	  "find member devices by their labels and activate the device(s)" },
	{ "probe", cmd_probe, "probe DEV [--export | --json]",
	  "whether DEV is a dm-tier member (label); --export prints udev\n"
	  "      properties (ID_FS_TYPE=dm_tier_member...) for IMPORT{program}" },
	{ "remove", cmd_remove, "remove NAME [--disconnect] [--json]",
	  "deactivate a dm-tier device (the data stays on the tiers);\n"
	  "      --disconnect also drops its NVMe-oF connections" },
	{ "list", cmd_list, "list [--json]", "list the active dm-tier devices" },
	{ "status", cmd_status, "status NAME [--json]",
	  "show a device's tiers, usage and counters" },
	{ "policy", cmd_policy, "policy NAME [KEY[=VALUE]...] [--reset] [--json]",
	  "show or change the migration settings (all changes at once)" },
	{ "migrate", cmd_migrate,
	  "migrate NAME --range START:LEN|all --tier N [--wait] [--json] [-H]",
	  "move the mapped extents of the range to tier N; --wait follows\n"
	  "      the moves to their end (progress on a terminal)" },
	{ "pin", cmd_pin,
	  "pin NAME PATH... | --range START:LEN... [--tier N|mem [--wait]] [--json] [-H]",
	  "keep files' extents where they are (or move them to tier N,\n"
	  "      or keep copies resident in the memory tier)" },
	{ "cancel", cmd_cancel, "cancel NAME ID [--json]",
	  "cancel queued move request ID (a migrate, or a pin to a tier;\n"
	  "      'status' lists them): queued, it never runs; running, it stops" },
	{ "unpin", cmd_unpin,
	  "unpin NAME PATH... | --range START:LEN... [--json] [-H]",
	  "let automatic migration move files' extents again" },
	{ "where", cmd_where,
	  "where NAME PATH... | --range START:LEN | --lost [--json] [-H]",
	  "on which tier each extent of the files (or range) lives;\n"
	  "      --lost: the ranges on tiers that are not ok" },
	{ "recover", cmd_recover, "recover NAME --tier N [--json]",
	  "clear a tier's degraded state after repairing or reconnecting it" },
	{ "evacuate", cmd_evacuate,
	  "evacuate NAME TIER [--to T] [--wait | --cancel] [--json]",
	  "move every extent off a tier (to tier T while it has room, else to\n"
	  "      faster tiers first) and keep it empty; --cancel stops that and\n"
	  "      lets it take extents again" },
	{ "add-tier", cmd_add_tier,
	  "add-tier NAME DEV|nvmf://... [--class CLASS] [--position N] [--force]\n"
	  "      [--ctrl-loss-tmo S] [--reconnect-delay S] [--fast-io-fail-tmo S] [--json]",
	  "label DEV and add it to the device's tiers, last or as tier N\n"
	  "      (--position N >= 1; online: a table reload, nothing copied);\n"
	  "      an nvmf:// URI is connected and recorded as create does;\n"
	  "      a DEV carrying a filesystem, partition table... needs --force" },
	{ "remove-tier", cmd_remove_tier,
	  "remove-tier NAME TIER [--disconnect] [--json]",
	  "drop an empty tier (1 or later; the tiers after it move down)\n"
	  "      from the device (online) and wipe its label; --disconnect:\n"
	  "      an NVMe-oF tier's controller too, and forget its target" },
	{ "replace-tier", cmd_replace_tier,
	  "replace-tier NAME TIER NEWDEV|nvmf://... [--class CLASS] [--disconnect]\n"
	  "      [--force] [--ctrl-loss-tmo S] [--reconnect-delay S] [--fast-io-fail-tmo S]\n"
	  "      [--json]",
	  "put NEWDEV in place of tier TIER online: add-tier after it,\n"
	  "      evacuate TIER onto it (waiting), remove-tier TIER; run again to\n"
	  "      resume after a crash or Ctrl-C; --disconnect as remove-tier's" },
	{ "resize", cmd_resize, "resize NAME [--size SIZE] [--yes] [--json]",
	  "pick up tier devices that grew (online: a table reload), and\n"
	  "      with --size grow or shrink the virtual size (shrinking an\n"
	  "      open device: shrink its filesystem first, then --yes)" },
	{ "evacuate-lost", cmd_evacuate_lost,
	  "evacuate-lost NAME --tier N [--yes] [--json] [-H]",
	  "a tier that is not ok is lost for good: its ranges become\n"
	  "      unmapped and read as zeroes (asks first, unless --yes)" },
	{ "watch", cmd_watch,
	  "watch [NAME] [--json] [--count N] [--timeout SEC]",
	  "print the kernel's events (watermarks, errors, migrations) as they come" },
	{ "check", cmd_check, "check NAME|DEV... [--strict] [--json]",
	  "check the metadata of an inactive device (exit 1: damaged)" },
	{ "dump", cmd_dump, "dump NAME|DEV... [--json]",
	  "print the metadata of an inactive device: superblock, tiers, extents" },
	{ "restore", cmd_restore,
	  "restore FILE DEV... [--metadata-dev DEV] [--keep-uuid] [--name NAME]\n"
	  "         [--force] [--json]",
	  "write a dump (tierctl dump --json) as fresh metadata to member devices" },
	{ "repair", cmd_repair, "repair NAME|DEV... [--yes] [--force] [--json]",
	  "rebuild damaged metadata of an inactive device from the valid\n"
	  "      copies and the labels; without --yes only shows what it would write" },
	{ "version", cmd_version, "version [--json]",
	  "print the versions of tierctl, the module, its netlink family\n"
	  "      and the on-disk format" },
	{ "completion", cmd_completion, "completion bash",
	  "print a bash completion script for tierctl" },
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

const struct tierctl_cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

const char *cmd_usage(const char *name)
{
	const struct tierctl_cmd *cmd = find_cmd(name);

	return cmd ? cmd->usage : name;
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
		"CLASS: nvme, nvmf, pmem or auto (one --class per device --tier, in order).\n"
		"numa:NODE:SIZE: a memory tier of SIZE (whole MiB) on NUMA node NODE, holding\n"
		"     clean copies of hot extents; not the first tier; at most one.\n"
		"RANGE: START:LEN in bytes of the device, with sizes (0:1G, 10M:64M).\n"
		"KEY: auto_migrate, high_watermark, low_watermark, demote_age, drain_deadline,\n"
		"     promote_hits, promote_window, migration_bandwidth, migration_inflight,\n"
		"     redirect_writes, mem_promote_hits, mem_size_mb, offline_queue_s\n"
		"     ('-' works for '_').\n"
		"-H (before or after the command): sizes in text as 1.5 GiB instead of bytes.\n"
		"Every command accepts -h / --help. See docs/tierctl.md.\n"
		"\nexit codes: 0 success, 1 failure, 2 usage error,\n"
		"            3 the kernel lacks the feature (dm-tier module not loaded or too old)\n");
}

/* --json given (globally or to the command) where there is no JSON output. */
static bool json_refused(const char *cmd, int argc, char **argv, int *rc)
{
	int i;
	bool asked = tierctl_json;

	for (i = 1; i < argc; i++)
		asked |= !strcmp(argv[i], "--json") || !strcmp(argv[i], "-j");
	if (asked)
		*rc = usage_error("%s: --json does not apply (it prints %s)", cmd,
				  !strcmp(cmd, "help") ? "usage text" : "a shell script");
	return asked;
}

int cmd_help(int argc, char **argv)
{
	size_t i;
	int rc;

	if (json_refused("help", argc, argv, &rc))
		return rc;
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
	char module[64], target[48];
	bool json = tierctl_json;
	bool have_target;
	uint32_t tv[3];
	int i, family;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			json = true;
		else
			return usage_error("version: unexpected argument '%s'", argv[i]);
	}
	/* What is missing is reported as such, not as an error: version
	 * must work on a node where the module is not loaded yet. */
	if (tl_sysfs_module_version("/sys", "dm_tier", module, sizeof(module)))
		module[0] = '\0';
	have_target = tl_dm_target_version("tier", tv);
	snprintf(target, sizeof(target), "%u.%u.%u", tv[0], tv[1], tv[2]);
	family = tl_nl_family_version();

	print_open(json);
	print_obj_begin(NULL);
	print_str("version", "tierctl         %s\n", DM_TIER_VERSION_STRING);
	if (module[0])
		print_str("module", "module          %s\n", module);
	else
		print_null("module", "module          not loaded (modprobe dm-tier)\n");
	if (have_target)
		print_str("target_version", "target tier     %s\n", target);
	else
		print_null("target_version", "target tier     not registered\n");
	if (family >= 0)
		print_u64("netlink_family_version", "netlink family  dm-tier version %llu",
			  (uint64_t)family);
	else
		print_null("netlink_family_version", "netlink family  dm-tier not available");
	print_u64("netlink_family_version_tierctl", " (tierctl speaks %llu)\n",
		  DM_TIER_FAMILY_VERSION);
	print_u64("format_version", "on-disk format  %llu\n", TIER_FORMAT_VERSION);
	print_obj_end();
	print_close();
	return TIERCTL_EXIT_OK;
}

/*
 * The options a usage string names: "--tier", "-H"... Tokens of two dashes
 * and a word, or one dash and one letter, up to a '=', ']', '|' or blank.
 */
static void print_usage_options(const char *usage)
{
	char seen[512] = " ", word[64];
	const char *p = usage;
	size_t n;

	while ((p = strchr(p, '-'))) {
		bool start = p == usage || strchr(" [|", p[-1]);

		n = strspn(p, "-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
		if (start && n < sizeof(word) - 2 &&
		    ((n > 2 && p[1] == '-') || (n == 2 && p[1] != '-'))) {
			snprintf(word, sizeof(word), " %.*s ", (int)n, p);
			if (!strstr(seen, word) &&
			    strlen(seen) + strlen(word) < sizeof(seen)) {
				strcat(seen, word + 1);
				printf(" %.*s", (int)n, p);
			}
		}
		p += n ? n : 1;
	}
}

/*
 * Generated from the command table, so that a new command or option is
 * completed without anyone editing a script (tests/unit/test_completion.sh
 * checks that every command and option is there).
 */
int cmd_completion(int argc, char **argv)
{
	size_t i;
	int rc;

	if (json_refused("completion", argc, argv, &rc))
		return rc;
	if (argc != 2 || strcmp(argv[1], "bash"))
		return usage_error("completion: give the shell: tierctl completion bash");
	printf("# bash completion for tierctl, generated by 'tierctl completion bash'\n"
	       "# from tierctl %s's command table.\n"
	       "_tierctl() {\n"
	       "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	       "\tlocal i cmd= opts=\n"
	       "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	       "\t\tcase ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac\n"
	       "\tdone\n"
	       "\tif [ -z \"$cmd\" ]; then\n"
	       "\t\tCOMPREPLY=($(compgen -W '--json -j -H --human --help --version",
	       DM_TIER_VERSION_STRING);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf(" %s", commands[i].name);
	printf("' -- \"$cur\"))\n"
	       "\t\treturn\n"
	       "\tfi\n"
	       "\tcase $cmd in\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		printf("\t%s) opts='--help", commands[i].name);
		print_usage_options(commands[i].usage);
		printf("' ;;\n");
	}
	printf("\tesac\n"
	       "\tcase $prev in\n"
	       "\t--tier | --metadata-dev)\n"
	       "\t\tCOMPREPLY=($(compgen -f -- \"${cur:-/dev/}\"))\n"
	       "\t\treturn ;;\n"
	       "\thelp)\n"
	       "\t\tCOMPREPLY=($(compgen -W '");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("%s%s", i ? " " : "", commands[i].name);
	printf("' -- \"$cur\"))\n"
	       "\t\treturn ;;\n"
	       "\tesac\n"
	       "\tif [[ $cur == -* ]]; then\n"
	       "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	       "\telif [ \"$prev\" = \"$cmd\" ] && [ \"$cmd\" != create ]; then\n"
	       "\t\t# The device name: the active dm-tier devices.\n"
	       "\t\tCOMPREPLY=($(compgen -W \"$(dmsetup ls --target tier 2>/dev/null |\n"
	       "\t\t\tcut -f1 | grep -v '^No devices')\" -- \"$cur\"))\n"
	       "\telse\n"
	       "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	       "\tfi\n"
	       "}\n"
	       "complete -F _tierctl tierctl\n");
	return TIERCTL_EXIT_OK;
}

bool parse_json_opt(const char *cmd, int argc, char **argv,
			   bool *json, int *rc)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*json = tierctl_json;
	opts_reset();
	while ((c = next_opt(cmd, argc, argv, "j", longopts)) != -1) {
		switch (c) {
		case 'j':
			*json = true;
			break;
		case 'h':
			*rc = TIERCTL_EXIT_OK;
			return false;
		default:
			*rc = TIERCTL_EXIT_USAGE;
			return false;
		}
	}
	return true;
}

int nl_open(struct tl_nl **nl)
{
	struct tl_err err = { "" };
	int rc = tl_nl_open(nl, &err);

	return rc ? report(rc, &err) : TIERCTL_EXIT_OK;
}

int nl_open_dev(const char *cmd, const char *name, const u32 *tier,
		struct tl_nl **nl, struct tl_nl_dev **dev)
{
	struct tl_err err = { "" };
	int rc;

	*dev = calloc(1, sizeof(**dev));
	if (!*dev)
		return fail("out of memory");
	rc = nl_open(nl);
	if (rc)
		goto fail_free;
	rc = tl_nl_dev_get(*nl, name, *dev, &err);
	if (!rc && tier && *tier >= (*dev)->nr_tiers)
		rc = tl_fail(&err, TL_USAGE, "%s: %s has tiers 0 to %u, not %u",
			     cmd, name, (*dev)->nr_tiers - 1, *tier);
	if (!rc)
		return TIERCTL_EXIT_OK;
	tl_nl_close(*nl);
	*nl = NULL;
	rc = report(rc, &err);
fail_free:
	free(*dev);
	*dev = NULL;
	return rc;
}

int parse_range(const char *cmd, const char *arg, bool all_ok, u64 *start,
		u64 *len)
{
	const char *colon = strchr(arg, ':');
	char first[64];

	if (all_ok && !strcmp(arg, "all")) {
		*start = 0;
		*len = 0;
		return TIERCTL_EXIT_OK;
	}
	if (!colon || (size_t)(colon - arg) >= sizeof(first))
		return usage_error("%s: invalid range '%s' (use START:LEN, e.g. 0:1G or 10M:64M%s)",
				   cmd, arg, all_ok ? ", or all" : "");
	memcpy(first, arg, colon - arg);
	first[colon - arg] = '\0';
	if (tier_parse_size(first, start) || tier_parse_size(colon + 1, len))
		return usage_error("%s: invalid range '%s' (use START:LEN, e.g. 0:1G or 10M:64M)",
				   cmd, arg);
	if (!*len)
		return usage_error("%s: range '%s' is empty", cmd, arg);
	if (*start + *len < *start)
		return usage_error("%s: range '%s' runs past 2^64 bytes", cmd, arg);
	return TIERCTL_EXIT_OK;
}

int parse_name_tier(const char *cmd, int argc, char **argv,
		    const char *tier_opt, const char **name, u32 *tier)
{
	int left = argc - optind;

	/* NAME, then the tier: --tier T (the spelling every command shares) or
	 * positional (tierctl 0.1). */
	if (left < 1)
		return usage_error("%s: no device NAME given", cmd);
	*name = argv[optind];
	if (tier_opt) {
		if (left > 1)
			return usage_error("%s: unexpected argument '%s'", cmd,
					   argv[optind + 1]);
		return parse_tier_arg(cmd, tier_opt, tier);
	}
	if (left < 2)
		return usage_error("%s: no --tier TIER given", cmd);
	if (left > 2)
		return usage_error("%s: unexpected argument '%s'", cmd,
				   argv[optind + 2]);
	return parse_tier_arg(cmd, argv[optind + 1], tier);
}

int parse_tier_arg(const char *cmd, const char *arg, u32 *tier)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v >= TIER_MAX_TIERS)
		return usage_error("%s: invalid tier '%s' (a tier index, 0 is the fastest)",
				   cmd, arg);
	*tier = v;
	return TIERCTL_EXIT_OK;
}

int mapper_devt(const char *name, dev_t *devt)
{
	char path[TL_DM_NAME_LEN + 16];
	struct stat st;

	snprintf(path, sizeof(path), "/dev/mapper/%s", name);
	if (stat(path, &st) < 0)
		return fail("%s: %s ('tierctl list' shows the dm-tier devices)", path,
			    strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return fail("%s is not a block device", path);
	*devt = st.st_rdev;
	return TIERCTL_EXIT_OK;
}

int check_on_device(const char *path, const char *name, dev_t devt)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return usage_error("%s: %s", path, strerror(errno));
	if (st.st_dev != devt)
		return usage_error("%s is not on a filesystem on /dev/mapper/%s",
				   path, name);
	return TIERCTL_EXIT_OK;
}

const char *bytes_text(u64 bytes, char *buf)
{
	if (tierctl_human)
		return tl_size_str(bytes, buf);
	snprintf(buf, TL_SIZE_STR_LEN, "%llu", (unsigned long long)bytes);
	return buf;
}
