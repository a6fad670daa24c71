/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ckpt.h - checkpoint burst generator and verifier (docs/ckpt.md).
 *
 *   cli.c      command line, text/JSON report, ckpt_main()
 *   engine.c   the io_uring engine: ckpt_run()
 *   pattern.c  block content (pure)
 *   main.c     main() only, so the rest links into unit tests
 */
#ifndef DM_TIER_CKPT_H
#define DM_TIER_CKPT_H

#include <stdbool.h>
#include <stdint.h>

#include "pattern.h"

/* Exit codes, same meaning as tierctl's. */
enum {
	CKPT_EXIT_OK = 0,
	CKPT_EXIT_FAIL = 1,	/* data mismatch or I/O failure */
	CKPT_EXIT_USAGE = 2,	/* bad command line */
};

enum ckpt_op { CKPT_WRITE, CKPT_VERIFY };

#define CKPT_MAX_FILES 1000000u
#define CKPT_MAX_QD 4096u
#define CKPT_MAX_THREADS 256u
#define CKPT_MAX_BS (64u << 20)
#define CKPT_MAX_RING_BYTES (1ULL << 30)	/* qd * bs per thread */
#define CKPT_MAX_REPORT 10u			/* mismatches detailed */

struct ckpt_opts {
	enum ckpt_op op;
	const char *dir;
	uint64_t files;
	uint64_t size;		/* bytes per file */
	uint64_t bs;		/* bytes per I/O */
	unsigned int qd;	/* I/Os in flight per thread */
	unsigned int threads;
	uint64_t seed;
	const char *prefix;
	bool buffered;		/* no O_DIRECT */
	bool json;
};

struct ckpt_mismatch {
	uint64_t file;
	uint64_t offset;
	uint64_t file_size;	/* CKPT_SHORT_FILE: the file's actual size */
	struct ckpt_check check;
};

struct ckpt_result {
	uint64_t files;		/* files completely written / verified */
	uint64_t bytes;		/* bytes transferred */
	double seconds;
	unsigned int threads;	/* threads used (at most one per file) */
	uint64_t errors;	/* I/O failures; the run stops at the first */
	bool direct_refused;	/* the filesystem refused O_DIRECT */
	bool uring_unavailable;	/* io_uring_setup failed */
	uint64_t bad_blocks;	/* verify: 4 KiB blocks that do not match */
	uint64_t bad_files;
	unsigned int nr_mismatches;	/* entries used in @mismatches */
	struct ckpt_mismatch mismatches[CKPT_MAX_REPORT];	/* lowest first */
};

void ckpt_opts_default(struct ckpt_opts *o);

/*
 * Parse "write|verify DIR [options]" (argv[0] is the program name). Returns
 * CKPT_EXIT_OK with @o filled in, CKPT_EXIT_USAGE after printing the
 * problem on stderr, or -1 after printing help on stdout (--help).
 */
int ckpt_parse_args(int argc, char **argv, struct ckpt_opts *o);

/* Parse a count: decimal digits only (hex with 0x for --seed), in
 * [@lo, @hi]. Returns 0, -EINVAL or -ERANGE. */
int ckpt_parse_u64(const char *s, bool allow_hex, uint64_t lo, uint64_t hi,
		   uint64_t *out);

/* File @idx's name under the directory: "<prefix>.<idx, 4 digits min>". */
void ckpt_file_name(const struct ckpt_opts *o, uint64_t idx, char *buf,
		    size_t len);

/* Run the write or verify; errors go to stderr as "ckpt: ...". Returns
 * CKPT_EXIT_OK, or CKPT_EXIT_FAIL on an I/O failure or (verify) any bad
 * block. */
int ckpt_run(const struct ckpt_opts *o, struct ckpt_result *r);

/* The text or JSON report on stdout. */
void ckpt_report(const struct ckpt_opts *o, const struct ckpt_result *r);

/* One line describing a mismatch, e.g. "block of ckpt.0003 offset 4096". */
void ckpt_describe(const struct ckpt_opts *o, const struct ckpt_mismatch *m,
		   char *buf, size_t len);

/* The whole command: parse, run, report; returns the exit code. */
int ckpt_main(int argc, char **argv);

#endif /* DM_TIER_CKPT_H */
