// SPDX-License-Identifier: GPL-2.0
/*
 * dmt-logreplay: read a dm-log-writes log, list its entries and marks, and
 * replay it onto a device up to a chosen entry (docs/TESTING.md, VM test 032).
 */
#include "lw.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#define EXIT_NOTFOUND 1
#define EXIT_USAGE 2

static const char usage[] =
	"usage: dmt-logreplay info LOG\n"
	"       dmt-logreplay list LOG [--flush] [--marks]\n"
	"       dmt-logreplay find LOG --mark NAME\n"
	"       dmt-logreplay replay LOG TARGET --to N [--from INDEX@BLOCK] [--discard zero|skip]\n"
	"\n"
	"LOG is a dm-log-writes log device (or a copy of it). Entries are numbered from 0.\n"
	"  info    the super block: version, entries, sector size\n"
	"  list    one line per entry: INDEX LOG_BLOCK FLAGS SECTOR NR_SECTORS [MARK];\n"
	"          --flush: only FLUSH/FUA entries, --marks: only marks (both: either)\n"
	"  find    INDEX@LOG_BLOCK of the first mark named NAME\n"
	"  replay  write entries onto TARGET (as large as the logged device) from the\n"
	"          start, or from INDEX@LOG_BLOCK (as printed by an earlier replay), up\n"
	"          to and including entry N; prints \"next INDEX@LOG_BLOCK\". Discarded\n"
	"          ranges are zeroed (--discard zero, default) or left alone (skip).\n"
	"Exit: 0 ok, 1 mark not found, 2 usage, 3 not a log or corrupt, 4 truncated log,\n"
	"      5 I/O error, 6 an entry lies past the end of TARGET.\n";

static int die_usage(const char *msg)
{
	fprintf(stderr, "dmt-logreplay: %s\n%s", msg, usage);
	return EXIT_USAGE;
}

static int open_log(const char *path, struct lw_log *log)
{
	char err[512];
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0) {
		fprintf(stderr, "dmt-logreplay: cannot open the log %s: %s\n", path,
			strerror(errno));
		return -LW_EIO;
	}
	r = lw_open(log, fd, err, sizeof(err));
	if (r) {
		fprintf(stderr, "dmt-logreplay: %s: %s\n", path, err);
		close(fd);
		return r;
	}
	return 0;
}

static void close_log(struct lw_log *log)
{
	close(log->fd);
	lw_close(log);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!*s || *s == '-')
		return -1;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int parse_pos(const char *s, uint64_t *index, uint64_t *block)
{
	char buf[64], *at;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	at = strchr(buf, '@');
	if (!at)
		return -1;
	*at = 0;
	return parse_u64(buf, index) || parse_u64(at + 1, block) ? -1 : 0;
}

static int cmd_info(int argc, char **argv)
{
	struct lw_log log;
	int r;

	if (argc != 2)
		return die_usage("info takes one argument, the log");
	r = open_log(argv[1], &log);
	if (r)
		return -r;
	printf("version %" PRIu64 " entries %" PRIu64 " sectorsize %u\n", log.sb.version,
	       log.sb.nr_entries, log.sb.sectorsize);
	close_log(&log);
	return 0;
}

static int cmd_list(int argc, char **argv, const char *mark)
{
	static const struct option opts[] = {
		{ "flush", no_argument, NULL, 'f' },
		{ "marks", no_argument, NULL, 'm' },
		{ "mark", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	bool flush = false, marks = false, find = mark != NULL;
	struct lw_log log;
	struct lw_entry e;
	char err[512], fl[64];
	const char *log_path = NULL;
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			flush = true;
			break;
		case 'm':
			marks = true;
			break;
		case 'M':
			if (!find)
				return die_usage("--mark belongs to find");
			mark = optarg;
			break;
		default:
			return die_usage("unknown option");
		}
	}
	if (optind + 1 != argc)
		return die_usage("expected exactly one log");
	if (find && !*mark)
		return die_usage("find needs --mark NAME");
	log_path = argv[optind];
	r = open_log(log_path, &log);
	if (r)
		return -r;
	while ((r = lw_next(&log, &e, err, sizeof(err))) == 1) {
		if (find) {
			if ((e.flags & LW_MARK) && !strcmp(e.mark, mark)) {
				printf("%" PRIu64 "@%" PRIu64 "\n", e.index, e.log_block);
				close_log(&log);
				return 0;
			}
			continue;
		}
		if ((flush || marks) && !(flush && (e.flags & (LW_FLUSH | LW_FUA))) &&
		    !(marks && (e.flags & LW_MARK)))
			continue;
		printf("%" PRIu64 " %" PRIu64 " %s %" PRIu64 " %" PRIu64 "%s%s\n", e.index,
		       e.log_block, lw_flags_str(e.flags, fl, sizeof(fl)), e.sector, e.nr_sectors,
		       e.mark[0] ? " " : "", e.mark);
	}
	close_log(&log);
	if (r < 0) {
		fprintf(stderr, "dmt-logreplay: %s: %s\n", log_path, err);
		return -r;
	}
	if (find) {
		fprintf(stderr, "dmt-logreplay: %s: no mark named '%s' among its %" PRIu64
			" entries (list them with: dmt-logreplay list %s --marks)\n",
			log_path, mark, log.sb.nr_entries, log_path);
		return EXIT_NOTFOUND;
	}
	return 0;
}

static int cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "from", required_argument, NULL, 'f' },
		{ "discard", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t to = 0, from_index = 0, from_block = 1, tsize;
	bool have_to = false;
	enum lw_discard_mode dmode = LW_DISCARD_ZERO;
	struct lw_log log;
	struct lw_entry e;
	struct stat st;
	char err[512];
	int c, r, tfd;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_u64(optarg, &to))
				return die_usage("--to takes an entry number");
			have_to = true;
			break;
		case 'f':
			if (parse_pos(optarg, &from_index, &from_block))
				return die_usage("--from takes INDEX@LOG_BLOCK, e.g. 120@4711");
			break;
		case 'd':
			if (!strcmp(optarg, "zero"))
				dmode = LW_DISCARD_ZERO;
			else if (!strcmp(optarg, "skip"))
				dmode = LW_DISCARD_SKIP;
			else
				return die_usage("--discard takes zero or skip");
			break;
		default:
			return die_usage("unknown option");
		}
	}
	if (optind + 2 != argc)
		return die_usage("replay takes a log and a target");
	if (!have_to)
		return die_usage("replay needs --to N (the last entry to apply)");
	if (to < from_index)
		return die_usage("--to is before --from: nothing to replay");
	r = open_log(argv[optind], &log);
	if (r)
		return -r;
	if (to >= log.sb.nr_entries) {
		fprintf(stderr, "dmt-logreplay: %s has %" PRIu64 " entries (0..%" PRIu64
			"), --to %" PRIu64 " is past its end\n", argv[optind],
			log.sb.nr_entries, log.sb.nr_entries ? log.sb.nr_entries - 1 : 0, to);
		close_log(&log);
		return EXIT_USAGE;
	}
	if (lw_seek(&log, from_index, from_block, err, sizeof(err))) {
		fprintf(stderr, "dmt-logreplay: %s: %s\n", argv[optind], err);
		close_log(&log);
		return EXIT_USAGE;
	}
	tfd = open(argv[optind + 1], O_RDWR | O_CLOEXEC);
	if (tfd < 0 || fstat(tfd, &st) ||
	    (S_ISBLK(st.st_mode) ? ioctl(tfd, BLKGETSIZE64, &tsize) : (tsize = (uint64_t)st.st_size, 0))) {
		fprintf(stderr, "dmt-logreplay: cannot open the target %s read-write: %s\n",
			argv[optind + 1], strerror(errno));
		close_log(&log);
		return LW_EIO;
	}
	r = 0;
	while (log.next_index <= to && (r = lw_next(&log, &e, err, sizeof(err))) == 1) {
		r = lw_apply(&log, &e, tfd, tsize, dmode, err, sizeof(err));
		if (r)
			break;
	}
	if (!r && fsync(tfd)) {
		snprintf(err, sizeof(err), "fsync of the target: %s", strerror(errno));
		r = -LW_EIO;
	}
	close(tfd);
	close_log(&log);
	if (r < 0) {
		fprintf(stderr, "dmt-logreplay: replaying %s onto %s: %s\n", argv[optind],
			argv[optind + 1], err);
		return -r;
	}
	printf("next %" PRIu64 "@%" PRIu64 "\n", log.next_index, log.next_block);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return die_usage("no command");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "info"))
		return cmd_info(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1, NULL);
	if (!strcmp(argv[1], "find"))
		return cmd_list(argc - 1, argv + 1, "");
	if (!strcmp(argv[1], "replay"))
		return cmd_replay(argc - 1, argv + 1);
	return die_usage("unknown command");
}
