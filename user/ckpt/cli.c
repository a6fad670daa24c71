// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - ckpt's command line and report (docs/ckpt.md).
 * Errors go to stderr as "ckpt: ..." and say what to do; exit codes 0 ok,
 * 1 data mismatch or I/O failure, 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ckpt.h"
#include "tl-print.h"
#include "units.h"

static const char usage_text[] =
	"usage: ckpt write DIR [OPTIONS]    write the files, fsync, print bandwidth\n"
	"       ckpt verify DIR [OPTIONS]   read them back and check every 4 KiB block\n"
	"\n"
	"options (verify needs the geometry and seed the files were written with):\n"
	"  --files N      number of files (default 4)\n"
	"  --size SIZE    bytes per file, a multiple of 4 KiB (default 64M)\n"
	"  --bs SIZE      bytes per I/O, a multiple of 4 KiB up to 64M (default 1M)\n"
	"  --qd N         I/Os in flight per thread, 1-4096 (default 8)\n"
	"  --threads N    threads, each with its own io_uring; files are dealt\n"
	"                 round-robin (default 1, at most one per file)\n"
	"  --seed N       data seed, decimal or 0x-hex (default 1)\n"
	"  --prefix NAME  file names NAME.0000, NAME.0001, ... (default ckpt)\n"
	"  --buffered     page-cache I/O instead of O_DIRECT (tmpfs needs it)\n"
	"  --json, -j     one JSON object on stdout\n"
	"\n"
	"SIZE: bytes or with a binary suffix: 4096, 64K, 1M, 1MiB, 2G.\n"
	"exit codes: 0 ok, 1 data mismatch or I/O failure, 2 usage error\n";

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ckpt: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nRun 'ckpt --help' for usage.\n", stderr);
	return CKPT_EXIT_USAGE;
}

void ckpt_opts_default(struct ckpt_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->files = 4;
	o->size = 64ULL << 20;
	o->bs = 1ULL << 20;
	o->qd = 8;
	o->threads = 1;
	o->seed = 1;
	o->prefix = "ckpt";
}

int ckpt_parse_u64(const char *s, bool allow_hex, uint64_t lo, uint64_t hi,
		   uint64_t *out)
{
	unsigned int base = 10;
	uint64_t v = 0;
	const char *p;

	if (!s || !*s)
		return -EINVAL;
	if (allow_hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s[2]) {
		base = 16;
		s += 2;
	}
	for (p = s; *p; p++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return -EINVAL;
		if (__builtin_mul_overflow(v, base, &v) ||
		    __builtin_add_overflow(v, d, &v))
			return -ERANGE;
	}
	if (v < lo || v > hi)
		return -ERANGE;
	*out = v;
	return 0;
}

static int count_opt(const char *opt, const char *val, bool hex, uint64_t lo,
		     uint64_t hi, uint64_t *out)
{
	int ret = ckpt_parse_u64(val, hex, lo, hi, out);

	if (ret == -EINVAL)
		return usage_error("%s: '%s' is not a number", opt, val);
	if (ret)
		return usage_error("%s: '%s' is out of range (%" PRIu64
				   "-%" PRIu64 ")",
				   opt, val, lo, hi);
	return 0;
}

/* A size that is a non-zero multiple of 4 KiB, at most @hi. */
static int size_opt(const char *opt, const char *val, uint64_t hi,
		    uint64_t *out)
{
	u64 v;
	int ret = tier_parse_size(val, &v);

	if (ret == -EINVAL)
		return usage_error("%s: '%s' is not a size (use e.g. 4096, 64K, 1M, 2G)",
				   opt, val);
	if (ret || v > hi)
		return usage_error("%s: '%s' is too large", opt, val);
	if (v == 0 || v % CKPT_BLOCK_SIZE)
		return usage_error("%s: '%s' must be a non-zero multiple of 4 KiB",
				   opt, val);
	*out = v;
	return 0;
}

enum { OPT_FILES = 256, OPT_SIZE, OPT_BS, OPT_QD, OPT_THREADS, OPT_SEED,
       OPT_PREFIX, OPT_BUFFERED };

static const struct option long_opts[] = {
	{ "files", required_argument, NULL, OPT_FILES },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "bs", required_argument, NULL, OPT_BS },
	{ "qd", required_argument, NULL, OPT_QD },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "prefix", required_argument, NULL, OPT_PREFIX },
	{ "buffered", no_argument, NULL, OPT_BUFFERED },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_opts(int argc, char **argv, struct ckpt_opts *o)
{
	const char *cmd = argv[0];
	uint64_t v;
	int c, ret;

	optind = 0; /* 0: full re-initialisation of GNU getopt */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", long_opts, NULL)) != -1) {
		ret = 0;
		switch (c) {
		case OPT_FILES:
			ret = count_opt("--files", optarg, false, 1,
					CKPT_MAX_FILES, &o->files);
			break;
		case OPT_SIZE:
			ret = size_opt("--size", optarg, UINT64_MAX, &o->size);
			break;
		case OPT_BS:
			ret = size_opt("--bs", optarg, CKPT_MAX_BS, &o->bs);
			break;
		case OPT_QD:
			ret = count_opt("--qd", optarg, false, 1, CKPT_MAX_QD,
					&v);
			o->qd = v;
			break;
		case OPT_THREADS:
			ret = count_opt("--threads", optarg, false, 1,
					CKPT_MAX_THREADS, &v);
			o->threads = v;
			break;
		case OPT_SEED:
			ret = count_opt("--seed", optarg, true, 0, UINT64_MAX,
					&o->seed);
			break;
		case OPT_PREFIX:
			o->prefix = optarg;
			break;
		case OPT_BUFFERED:
			o->buffered = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		case ':':
			return usage_error("%s: option '%s' needs a value", cmd,
					   argv[optind - 1]);
		default:
			if (optopt)
				return usage_error("%s: unknown option '-%c'",
						   cmd, optopt);
			return usage_error("%s: unknown option '%s'", cmd,
					   argv[optind - 1]);
		}
		if (ret)
			return ret;
	}
	if (optind >= argc)
		return usage_error("%s: no directory given", cmd);
	if (optind + 1 < argc)
		return usage_error("%s: unexpected argument '%s'", cmd,
				   argv[optind + 1]);
	o->dir = argv[optind];
	return 0;
}

int ckpt_parse_args(int argc, char **argv, struct ckpt_opts *o)
{
	uint64_t total;
	int ret;

	ckpt_opts_default(o);
	if (argc < 2)
		return usage_error("no command given (write or verify)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage_text, stdout);
		return -1;
	}
	if (!strcmp(argv[1], "write"))
		o->op = CKPT_WRITE;
	else if (!strcmp(argv[1], "verify"))
		o->op = CKPT_VERIFY;
	else
		return usage_error("unknown command '%s' (write or verify)",
				   argv[1]);
	ret = parse_opts(argc - 1, argv + 1, o);
	if (ret)
		return ret;
	if (!*o->prefix || strchr(o->prefix, '/') || strlen(o->prefix) > 200)
		return usage_error("--prefix: '%s' must be a file name of 1-200 characters without '/'",
				   o->prefix);
	if (__builtin_mul_overflow(o->files, o->size, &total))
		return usage_error("--files x --size overflows 64 bits");
	if ((uint64_t)o->qd * o->bs > CKPT_MAX_RING_BYTES)
		return usage_error("--qd x --bs is over 1 GiB of buffers per thread; lower --qd or --bs");
	return 0;
}

void ckpt_file_name(const struct ckpt_opts *o, uint64_t idx, char *buf,
		    size_t len)
{
	snprintf(buf, len, "%s.%04" PRIu64, o->prefix, idx);
}

void ckpt_describe(const struct ckpt_opts *o, const struct ckpt_mismatch *m,
		   char *buf, size_t len)
{
	const struct ckpt_check *c = &m->check;
	char name[256];

	switch (c->kind) {
	case CKPT_WRONG_DATA:
		if (c->zero_tail)
			snprintf(buf, len, "zeroes from byte %u of the block on",
				 c->byte);
		else
			snprintf(buf, len, "wrong data from byte %u of the block%s",
				 c->byte,
				 c->byte < CKPT_HDR_SIZE ? " (in its header)" : "");
		break;
	case CKPT_MISPLACED:
		ckpt_file_name(o, c->found.file, name, sizeof(name));
		snprintf(buf, len, "holds the block of %s offset %" PRIu64,
			 name, c->found.offset);
		break;
	case CKPT_OTHER_SEED:
		ckpt_file_name(o, c->found.file, name, sizeof(name));
		snprintf(buf, len,
			 "holds a block written with seed %" PRIu64
			 " (%s offset %" PRIu64 ")",
			 c->found.seed, name, c->found.offset);
		break;
	case CKPT_ZEROES:
		snprintf(buf, len, "zeroes");
		break;
	case CKPT_SHORT_FILE:
		snprintf(buf, len, "file is %" PRIu64 " bytes, expected %" PRIu64,
			 m->file_size, o->size);
		break;
	case CKPT_MISSING_FILE:
		snprintf(buf, len, "file does not exist");
		break;
	default:
		snprintf(buf, len, "%s", ckpt_kind_name(c->kind));
		break;
	}
}

void ckpt_report(const struct ckpt_opts *o, const struct ckpt_result *r)
{
	bool verify = o->op == CKPT_VERIFY;
	double mibs = r->seconds > 0 ? r->bytes / r->seconds / 1048576.0 : 0;
	char sz[16], bs[16], tot[16], line[512], name[256];
	unsigned int i;

	tier_format_size(o->size, sz, sizeof(sz));
	tier_format_size(o->bs, bs, sizeof(bs));
	tier_format_size(r->bytes, tot, sizeof(tot));
	print_open(o->json);
	print_obj_begin(NULL);
	print_text("ckpt %s %s: %" PRIu64 " files x %s, bs %s, qd %u, %u thread%s, %s, seed %" PRIu64 "\n",
		   verify ? "verify" : "write", o->dir, o->files, sz, bs, o->qd,
		   r->threads, r->threads == 1 ? "" : "s",
		   o->buffered ? "buffered" : "O_DIRECT", o->seed);
	print_str("op", NULL, verify ? "verify" : "write");
	print_str("dir", NULL, o->dir);
	print_str("prefix", NULL, o->prefix);
	print_u64("files", "files: %llu\n", r->files);
	print_u64("size", NULL, o->size);
	snprintf(line, sizeof(line), "%" PRIu64 " (%s)", r->bytes, tot);
	print_u64_text("bytes", "bytes: %s\n", r->bytes, line);
	print_double("seconds", "seconds: %.3f\n", r->seconds);
	print_double("mib_per_s", "bandwidth: %.1f MiB/s\n", mibs);
	print_u64("threads", NULL, r->threads);
	print_u64("qd", NULL, o->qd);
	print_u64("bs", NULL, o->bs);
	print_u64("seed", NULL, o->seed);
	print_bool("direct", NULL, !o->buffered);
	print_u64("errors", "errors: %llu\n", r->errors);
	print_u64("bad_blocks", NULL, r->bad_blocks);
	print_u64("bad_files", NULL, r->bad_files);
	if (verify)
		print_text("bad blocks: %" PRIu64 " in %" PRIu64 " file%s\n",
			   r->bad_blocks, r->bad_files,
			   r->bad_files == 1 ? "" : "s");
	print_arr_begin("mismatches",
			r->nr_mismatches ? "mismatches (first 10, by file and offset):\n" :
					   NULL);
	for (i = 0; i < r->nr_mismatches; i++) {
		const struct ckpt_mismatch *m = &r->mismatches[i];

		ckpt_file_name(o, m->file, name, sizeof(name));
		ckpt_describe(o, m, line, sizeof(line));
		print_obj_begin(NULL);
		print_str("path", "  %s", name);
		print_u64("file", NULL, m->file);
		print_u64("offset", " offset %llu", m->offset);
		print_str("kind", ": %s", ckpt_kind_name(m->check.kind));
		print_str("detail", ": %s\n", line);
		if (m->check.kind == CKPT_MISPLACED ||
		    m->check.kind == CKPT_OTHER_SEED) {
			print_u64("found_seed", NULL, m->check.found.seed);
			print_u64("found_file", NULL, m->check.found.file);
			print_u64("found_offset", NULL, m->check.found.offset);
		}
		print_obj_end();
	}
	print_arr_end();
	print_bool("ok", NULL, !r->errors && !r->bad_blocks);
	if (verify)
		print_text("verify: %s\n",
			   r->errors ? "FAILED (I/O error)" :
			   r->bad_blocks ? "FAILED (data mismatch)" : "passed");
	print_obj_end();
	print_close();
}

int ckpt_main(int argc, char **argv)
{
	struct ckpt_opts o;
	struct ckpt_result r;
	int rc;

	rc = ckpt_parse_args(argc, argv, &o);
	if (rc < 0)
		return CKPT_EXIT_OK;
	if (rc)
		return rc;
	rc = ckpt_run(&o, &r);
	ckpt_report(&o, &r);
	return rc;
}
