// SPDX-License-Identifier: GPL-2.0
/* Unit tests for the ckpt tool (user/ckpt): the block pattern, header
 * encode/decode, verify's classification, option parsing, and an end-to-end
 * write + verify + corrupt + verify in a temporary directory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <liburing.h>

#include "ckpt.h"
#include "pattern.h"

#define BLK CKPT_BLOCK_SIZE

static unsigned char *block(void)
{
	unsigned char *b = malloc(BLK);

	assert_non_null(b);
	return b;
}

/* ---- pattern ------------------------------------------------------------ */

static void test_pattern_deterministic(void **state)
{
	unsigned char *a = block(), *b = block();

	(void)state;
	ckpt_fill_block(a, 7, 3, 8192);
	ckpt_fill_block(b, 7, 3, 8192);
	assert_memory_equal(a, b, BLK);
	ckpt_fill_block(b, 8, 3, 8192);
	assert_memory_not_equal(a + CKPT_HDR_SIZE, b + CKPT_HDR_SIZE,
				BLK - CKPT_HDR_SIZE);
	ckpt_fill_block(b, 7, 4, 8192);
	assert_memory_not_equal(a + CKPT_HDR_SIZE, b + CKPT_HDR_SIZE,
				BLK - CKPT_HDR_SIZE);
	ckpt_fill_block(b, 7, 3, 12288);
	assert_memory_not_equal(a + CKPT_HDR_SIZE, b + CKPT_HDR_SIZE,
				BLK - CKPT_HDR_SIZE);
	assert_int_not_equal(ckpt_block_key(1, 0, 0), ckpt_block_key(0, 1, 0));
	assert_int_not_equal(ckpt_block_key(1, 0, 0), ckpt_block_key(0, 0, 1));
	free(a);
	free(b);
}

/* The on-disk pattern is a format: files written by one build must verify
 * with the next. These bytes pin it (docs/ckpt.md). */
static void test_pattern_known_answer(void **state)
{
	static const unsigned char head[48] = {
		0x64, 0x6d, 0x74, 0x43, 0x4b, 0x50, 0x54, 0x31, /* dmtCKPT1 */
		0x01, 0, 0, 0, 0, 0, 0, 0,			/* seed 1 */
		0, 0, 0, 0, 0, 0, 0, 0,				/* file 0 */
		0, 0, 0, 0, 0, 0, 0, 0,				/* offset 0 */
		0x59, 0x04, 0xba, 0xb0, 0xe3, 0x4f, 0x8f, 0x91, /* check */
		0xfa, 0x52, 0xee, 0xf1, 0x52, 0x56, 0xaf, 0xb2, /* word 0 */
	};
	unsigned char *b = block();
	unsigned long long h = 0;
	unsigned int i;

	(void)state;
	ckpt_fill_block(b, 1, 0, 0);
	assert_memory_equal(b, head, sizeof(head));
	ckpt_fill_block(b, 42, 3, 8192);
	for (i = 0; i < BLK; i++)
		h = h * 31 + b[i];
	assert_int_equal(h, 0x55872964829dd891ULL);
	free(b);
}

static void test_fill_matches_blocks(void **state)
{
	unsigned char *buf = malloc(4 * BLK), *b = block();
	unsigned int i;

	(void)state;
	assert_non_null(buf);
	ckpt_fill(buf, 4 * BLK, 5, 2, 65536);
	for (i = 0; i < 4; i++) {
		ckpt_fill_block(b, 5, 2, 65536 + (uint64_t)i * BLK);
		assert_memory_equal(buf + i * BLK, b, BLK);
	}
	free(buf);
	free(b);
}

/* ---- header ------------------------------------------------------------- */

static void test_header_roundtrip(void **state)
{
	unsigned char *b = block();
	struct ckpt_hdr h, d;

	(void)state;
	memset(b, 0xaa, BLK);
	ckpt_hdr_make(&h, UINT64_MAX, 123456789, 1ULL << 40);
	ckpt_hdr_encode(&h, b);
	assert_true(ckpt_hdr_decode(b, &d));
	assert_int_equal(d.magic, CKPT_MAGIC);
	assert_int_equal(d.seed, UINT64_MAX);
	assert_int_equal(d.file, 123456789);
	assert_int_equal(d.offset, 1ULL << 40);
	assert_int_equal(d.check, h.check);
	assert_int_equal(b[CKPT_HDR_SIZE], 0xaa); /* header only */
	/* Little-endian fields. */
	assert_int_equal(b[16], 123456789 & 0xff);
	assert_int_equal(b[29], 1); /* 1 << 40: byte 5 of the offset */
	free(b);
}

static void test_header_rejects(void **state)
{
	unsigned char *b = block();
	struct ckpt_hdr h, d;
	unsigned int i;

	(void)state;
	ckpt_hdr_make(&h, 9, 1, 4096);
	for (i = 0; i < CKPT_HDR_SIZE; i++) {
		ckpt_hdr_encode(&h, b);
		b[i] ^= 0x10;
		if (ckpt_hdr_decode(b, &d))
			fail_msg("header with byte %u flipped decodes", i);
	}
	memset(b, 0, BLK);
	assert_false(ckpt_hdr_decode(b, &d));
	free(b);
}

/* ---- classification ----------------------------------------------------- */

static void test_check_good(void **state)
{
	unsigned char *b = block();
	struct ckpt_check c;

	(void)state;
	ckpt_fill_block(b, 3, 1, 8192);
	assert_int_equal(ckpt_check_block(b, 3, 1, 8192, &c), CKPT_OK);
	assert_int_equal(c.kind, CKPT_OK);
	free(b);
}

static void test_check_wrong_data(void **state)
{
	unsigned char *b = block();
	struct ckpt_check c;
	unsigned int i;

	(void)state;
	/* Every single-byte change of the payload is found, at its byte. */
	for (i = CKPT_HDR_SIZE; i < BLK; i += 97) {
		ckpt_fill_block(b, 3, 1, 8192);
		b[i] ^= 1;
		assert_int_equal(ckpt_check_block(b, 3, 1, 8192, &c),
				 CKPT_WRONG_DATA);
		assert_int_equal(c.byte, i);
		assert_false(c.zero_tail);
	}
	/* Last byte. */
	ckpt_fill_block(b, 3, 1, 8192);
	b[BLK - 1] ^= 0x80;
	assert_int_equal(ckpt_check_block(b, 3, 1, 8192, &c), CKPT_WRONG_DATA);
	assert_int_equal(c.byte, BLK - 1);
	/* A damaged header is damage, not a misplaced block. */
	ckpt_fill_block(b, 3, 1, 8192);
	b[17] ^= 0x01; /* file index 1 -> 257 */
	assert_int_equal(ckpt_check_block(b, 3, 1, 8192, &c), CKPT_WRONG_DATA);
	assert_int_equal(c.byte, 17);
	/* Garbage. */
	memset(b, 0xff, BLK);
	assert_int_equal(ckpt_check_block(b, 3, 1, 8192, &c), CKPT_WRONG_DATA);
	assert_int_equal(c.byte, 0);
	free(b);
}

static void test_check_torn(void **state)
{
	unsigned char *b = block();
	struct ckpt_check c;

	(void)state;
	ckpt_fill_block(b, 3, 1, 8192);
	memset(b + 2048, 0, BLK - 2048);
	assert_int_equal(ckpt_check_block(b, 3, 1, 8192, &c), CKPT_WRONG_DATA);
	assert_int_equal(c.byte, 2048);
	assert_true(c.zero_tail);
	free(b);
}

static void test_check_misplaced(void **state)
{
	unsigned char *b = block();
	struct ckpt_check c;

	(void)state;
	/* Block of file 2 offset 8192 where file 0 offset 0 belongs. */
	ckpt_fill_block(b, 3, 2, 8192);
	assert_int_equal(ckpt_check_block(b, 3, 0, 0, &c), CKPT_MISPLACED);
	assert_int_equal(c.found.seed, 3);
	assert_int_equal(c.found.file, 2);
	assert_int_equal(c.found.offset, 8192);
	/* Right file, wrong offset. */
	ckpt_fill_block(b, 3, 0, 4096);
	assert_int_equal(ckpt_check_block(b, 3, 0, 0, &c), CKPT_MISPLACED);
	assert_int_equal(c.found.file, 0);
	assert_int_equal(c.found.offset, 4096);
	/* Right place, another run's seed. */
	ckpt_fill_block(b, 4, 0, 0);
	assert_int_equal(ckpt_check_block(b, 3, 0, 0, &c), CKPT_OTHER_SEED);
	assert_int_equal(c.found.seed, 4);
	free(b);
}

static void test_check_zeroes(void **state)
{
	unsigned char *b = block();
	struct ckpt_check c;

	(void)state;
	memset(b, 0, BLK);
	assert_int_equal(ckpt_check_block(b, 3, 0, 0, &c), CKPT_ZEROES);
	/* Zeroes but one byte: damage, not a hole. */
	b[BLK - 1] = 1;
	assert_int_equal(ckpt_check_block(b, 3, 0, 0, &c), CKPT_WRONG_DATA);
	free(b);
}

static void test_kind_names(void **state)
{
	(void)state;
	assert_string_equal(ckpt_kind_name(CKPT_OK), "ok");
	assert_string_equal(ckpt_kind_name(CKPT_WRONG_DATA), "wrong-data");
	assert_string_equal(ckpt_kind_name(CKPT_MISPLACED), "misplaced");
	assert_string_equal(ckpt_kind_name(CKPT_OTHER_SEED), "other-seed");
	assert_string_equal(ckpt_kind_name(CKPT_ZEROES), "zeroes");
	assert_string_equal(ckpt_kind_name(CKPT_SHORT_FILE), "short-file");
	assert_string_equal(ckpt_kind_name(CKPT_MISSING_FILE), "missing-file");
}

/* ---- option parsing ----------------------------------------------------- */

static void test_parse_u64(void **state)
{
	uint64_t v = 77;

	(void)state;
	assert_int_equal(ckpt_parse_u64("0", false, 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(ckpt_parse_u64("18446744073709551615", false, 0,
					UINT64_MAX, &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(ckpt_parse_u64("0xff", true, 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 255);
	v = 77;
	assert_int_equal(ckpt_parse_u64("18446744073709551616", false, 0,
					UINT64_MAX, &v), -ERANGE);
	assert_int_equal(ckpt_parse_u64("0xff", false, 0, UINT64_MAX, &v),
			 -EINVAL);
	assert_int_equal(ckpt_parse_u64("0x", true, 0, UINT64_MAX, &v),
			 -EINVAL);
	assert_int_equal(ckpt_parse_u64("", false, 0, 10, &v), -EINVAL);
	assert_int_equal(ckpt_parse_u64(NULL, false, 0, 10, &v), -EINVAL);
	assert_int_equal(ckpt_parse_u64("-1", false, 0, 10, &v), -EINVAL);
	assert_int_equal(ckpt_parse_u64(" 1", false, 0, 10, &v), -EINVAL);
	assert_int_equal(ckpt_parse_u64("1 ", false, 0, 10, &v), -EINVAL);
	assert_int_equal(ckpt_parse_u64("11", false, 0, 10, &v), -ERANGE);
	assert_int_equal(ckpt_parse_u64("0", false, 1, 10, &v), -ERANGE);
	assert_int_equal(v, 77); /* untouched on error */
}

#define ARGV(...) ((char *[]){ "ckpt", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "ckpt", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, ...) ckpt_parse_args(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (o))

static void test_parse_defaults(void **state)
{
	struct ckpt_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "write", "/mnt/x"), 0);
	assert_int_equal(o.op, CKPT_WRITE);
	assert_string_equal(o.dir, "/mnt/x");
	assert_int_equal(o.files, 4);
	assert_int_equal(o.size, 64 << 20);
	assert_int_equal(o.bs, 1 << 20);
	assert_int_equal(o.qd, 8);
	assert_int_equal(o.threads, 1);
	assert_int_equal(o.seed, 1);
	assert_string_equal(o.prefix, "ckpt");
	assert_false(o.buffered);
	assert_false(o.json);
}

static void test_parse_all(void **state)
{
	struct ckpt_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "verify", "--files", "16", "--size", "1G",
			       "--bs", "128KiB", "--qd", "32", "--threads", "4",
			       "--seed", "0xdeadbeef", "--prefix", "shard",
			       "--buffered", "--json", "/data"), 0);
	assert_int_equal(o.op, CKPT_VERIFY);
	assert_string_equal(o.dir, "/data");
	assert_int_equal(o.files, 16);
	assert_int_equal(o.size, 1ULL << 30);
	assert_int_equal(o.bs, 128 << 10);
	assert_int_equal(o.qd, 32);
	assert_int_equal(o.threads, 4);
	assert_int_equal(o.seed, 0xdeadbeef);
	assert_string_equal(o.prefix, "shard");
	assert_true(o.buffered);
	assert_true(o.json);
	/* Limits are accepted. */
	assert_int_equal(PARSE(&o, "write", "d", "--size", "4K", "--bs", "64M",
			       "--qd", "16", "--threads", "256", "--files",
			       "1000000"), 0);
	assert_int_equal(PARSE(&o, "write", "d", "--size", "8s", "--bs", "4096",
			       "--qd", "4096", "-j"), 0);
	assert_int_equal(o.size, 4096);
	assert_true(o.json);
}

static void test_parse_errors(void **state)
{
	struct ckpt_opts o;

	(void)state;
	assert_int_equal(ckpt_parse_args(1, ARGV(NULL), &o), CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "frob", "d"), CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write"), CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "a", "b"), CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--bogus"), CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "-x"), CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--qd"), CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--size", "1000"),
			 CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--size", "0"),
			 CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--size", "1MB"),
			 CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--size", "16E"),
			 CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--bs", "2K"),
			 CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--bs", "128M"),
			 CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--qd", "0"), CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--qd", "4097"),
			 CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--threads", "0"),
			 CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--threads", "257"),
			 CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--files", "0"),
			 CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--files", "-1"),
			 CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--files", "1e3"),
			 CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--seed", "-5"),
			 CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--prefix", "a/b"),
			 CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--prefix", ""),
			 CKPT_EXIT_USAGE);
	/* files x size overflows; qd x bs over 1 GiB of buffers. */
	assert_int_equal(PARSE(&o, "write", "d", "--files", "1000000", "--size",
			       "8E"), CKPT_EXIT_USAGE);
	assert_int_equal(PARSE(&o, "write", "d", "--qd", "32", "--bs", "64M"),
			 CKPT_EXIT_USAGE);
}

static void test_parse_help(void **state)
{
	struct ckpt_opts o;
	int saved = dup(1), devnull = open("/dev/null", O_WRONLY);

	(void)state;
	fflush(stdout);
	dup2(devnull, 1);
	assert_int_equal(PARSE(&o, "--help"), -1);
	assert_int_equal(PARSE(&o, "write", "-h"), -1);
	assert_int_equal(PARSE(&o, "verify", "d", "--help"), -1);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(devnull);
}

/* ---- end to end --------------------------------------------------------- */

static char tmpdir[] = "/tmp/ckpt-test-XXXXXX";
static bool e2e_ready;	/* io_uring works and tmpdir exists */
static bool use_buffered;
static char out[16384];

static int e2e_setup(void **state)
{
	struct io_uring ring;

	(void)state;
	if (io_uring_queue_init(4, &ring, 0) < 0)
		return 0; /* tests skip */
	io_uring_queue_exit(&ring);
	if (!mkdtemp(tmpdir))
		return -1;
	e2e_ready = true;
	return 0;
}

static int e2e_teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (!e2e_ready)
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) ? -1 : 0;
}

static void e2e_opts(struct ckpt_opts *o, enum ckpt_op op)
{
	ckpt_opts_default(o);
	o->op = op;
	o->dir = tmpdir;
	o->files = 3;
	o->size = 64 << 10;
	o->bs = 16 << 10;
	o->qd = 4;
	o->threads = 2;
	o->seed = 99;
	o->buffered = use_buffered;
}

/* Run ckpt_main() with stdout in out[]; returns its exit code. */
static int run_main(int argc, char **argv)
{
	char path[] = "/tmp/ckpt-out-XXXXXX";
	int fd = mkstemp(path), saved, rc;
	ssize_t n;

	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	rc = ckpt_main(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	n = pread(fd, out, sizeof(out) - 1, 0);
	close(fd);
	unlink(path);
	assert_true(n >= 0);
	out[n] = '\0';
	return rc;
}

static void corrupt(const char *name, off_t off, const void *data, size_t len)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, data, len, off), (ssize_t)len);
	assert_int_equal(fsync(fd), 0);
	close(fd);
}

static void test_e2e_write_verify(void **state)
{
	struct ckpt_opts o;
	struct ckpt_result r;
	int rc;

	(void)state;
	if (!e2e_ready)
		skip(); /* no io_uring here */
	e2e_opts(&o, CKPT_WRITE);
	rc = ckpt_run(&o, &r);
	if (rc && r.direct_refused) {
		/* tmpfs before 6.6 refuses O_DIRECT. */
		use_buffered = o.buffered = true;
		rc = ckpt_run(&o, &r);
	}
	assert_int_equal(rc, CKPT_EXIT_OK);
	assert_int_equal(r.files, 3);
	assert_int_equal(r.bytes, 3 * (64 << 10));
	assert_int_equal(r.threads, 2);
	assert_int_equal(r.errors, 0);

	e2e_opts(&o, CKPT_VERIFY);
	assert_int_equal(ckpt_run(&o, &r), CKPT_EXIT_OK);
	assert_int_equal(r.files, 3);
	assert_int_equal(r.bytes, 3 * (64 << 10));
	assert_int_equal(r.bad_blocks, 0);
	assert_int_equal(r.nr_mismatches, 0);

	/* Other geometry: 1 thread, qd 1, bs of one block, all files. */
	o.threads = 1;
	o.qd = 1;
	o.bs = BLK;
	assert_int_equal(ckpt_run(&o, &r), CKPT_EXIT_OK);
	/* The wrong seed: every block is another run's. */
	o.seed = 98;
	assert_int_equal(ckpt_run(&o, &r), CKPT_EXIT_FAIL);
	assert_int_equal(r.bad_blocks, 3 * 16);
	assert_int_equal(r.nr_mismatches, CKPT_MAX_REPORT);
	assert_int_equal(r.mismatches[0].check.kind, CKPT_OTHER_SEED);
	assert_int_equal(r.mismatches[0].check.found.seed, 99);
}

static void test_e2e_corrupt_byte(void **state)
{
	char *argv[24] = { "ckpt", "verify", tmpdir, "--files", "3", "--size",
			   "64K", "--bs", "16K", "--qd", "4", "--threads", "2",
			   "--seed", "99" };
	int argc = 15;
	const unsigned char x = 0x5a;
	struct ckpt_opts o;
	struct ckpt_result r;

	(void)state;
	if (!e2e_ready)
		skip();
	if (use_buffered)
		argv[argc++] = "--buffered";
	corrupt("ckpt.0001", 20000, &x, 1);
	e2e_opts(&o, CKPT_VERIFY);
	assert_int_equal(ckpt_run(&o, &r), CKPT_EXIT_FAIL);
	assert_int_equal(r.errors, 0);
	assert_int_equal(r.bad_blocks, 1);
	assert_int_equal(r.bad_files, 1);
	assert_int_equal(r.nr_mismatches, 1);
	assert_int_equal(r.mismatches[0].file, 1);
	assert_int_equal(r.mismatches[0].offset, 16384);
	assert_int_equal(r.mismatches[0].check.kind, CKPT_WRONG_DATA);
	assert_int_equal(r.mismatches[0].check.byte, 20000 - 16384);

	/* The command names the file and offset, in text and JSON. */
	assert_int_equal(run_main(argc, argv), CKPT_EXIT_FAIL);
	assert_non_null(strstr(out, "ckpt.0001 offset 16384: wrong-data: wrong data from byte 3616 of the block\n"));
	assert_non_null(strstr(out, "verify: FAILED (data mismatch)\n"));
	argv[argc++] = "--json";
	argv[argc] = NULL;
	assert_int_equal(run_main(argc, argv), CKPT_EXIT_FAIL);
	assert_non_null(strstr(out, "\"op\":\"verify\""));
	assert_non_null(strstr(out, "\"bad_blocks\":1,"));
	assert_non_null(strstr(out, "\"mismatches\":[{\"path\":\"ckpt.0001\",\"file\":1,\"offset\":16384,\"kind\":\"wrong-data\""));
	assert_non_null(strstr(out, "\"ok\":false}"));
}

static void test_e2e_misplaced_zeroes_missing(void **state)
{
	unsigned char *b = block();
	struct ckpt_opts o;
	struct ckpt_result r;
	char path[256];

	(void)state;
	if (!e2e_ready) {
		free(b);
		skip();
	}
	/* Rewrite a clean set, then: file 0 block 2 gets file 2's block 0,
	 * file 2 block 3 is zeroed, file 1 is cut short, file 3 missing. */
	e2e_opts(&o, CKPT_WRITE);
	assert_int_equal(ckpt_run(&o, &r), CKPT_EXIT_OK);
	ckpt_fill_block(b, 99, 2, 0);
	corrupt("ckpt.0000", 2 * BLK, b, BLK);
	memset(b, 0, BLK);
	corrupt("ckpt.0002", 3 * BLK, b, BLK);
	snprintf(path, sizeof(path), "%s/ckpt.0001", tmpdir);
	assert_int_equal(truncate(path, 40000), 0);

	e2e_opts(&o, CKPT_VERIFY);
	o.files = 4;
	assert_int_equal(ckpt_run(&o, &r), CKPT_EXIT_FAIL);
	assert_int_equal(r.errors, 0);
	assert_int_equal(r.files, 3);
	assert_int_equal(r.bad_files, 4);
	/* 1 + (16 - 9) past 36864 + 1 + 16 */
	assert_int_equal(r.bad_blocks, 1 + 7 + 1 + 16);
	assert_int_equal(r.nr_mismatches, 4);
	assert_int_equal(r.mismatches[0].file, 0);
	assert_int_equal(r.mismatches[0].offset, 2 * BLK);
	assert_int_equal(r.mismatches[0].check.kind, CKPT_MISPLACED);
	assert_int_equal(r.mismatches[0].check.found.file, 2);
	assert_int_equal(r.mismatches[0].check.found.offset, 0);
	assert_int_equal(r.mismatches[1].file, 1);
	assert_int_equal(r.mismatches[1].offset, 9 * BLK);
	assert_int_equal(r.mismatches[1].check.kind, CKPT_SHORT_FILE);
	assert_int_equal(r.mismatches[1].file_size, 40000);
	assert_int_equal(r.mismatches[2].file, 2);
	assert_int_equal(r.mismatches[2].offset, 3 * BLK);
	assert_int_equal(r.mismatches[2].check.kind, CKPT_ZEROES);
	assert_int_equal(r.mismatches[3].file, 3);
	assert_int_equal(r.mismatches[3].check.kind, CKPT_MISSING_FILE);
	free(b);
}

static void test_e2e_errors(void **state)
{
	struct ckpt_opts o;
	struct ckpt_result r;
	char path[256];

	(void)state;
	if (!e2e_ready)
		skip();
	/* Directory that cannot exist: an I/O failure, exit 1. */
	e2e_opts(&o, CKPT_VERIFY);
	snprintf(path, sizeof(path), "%s/none/deeper", tmpdir);
	o.dir = path;
	assert_int_equal(ckpt_run(&o, &r), CKPT_EXIT_FAIL);
	assert_int_equal(r.errors, 1);
	/* write creates a missing directory (one level). */
	e2e_opts(&o, CKPT_WRITE);
	snprintf(path, sizeof(path), "%s/new", tmpdir);
	o.dir = path;
	o.files = 1;
	o.threads = 4; /* more threads than files: one is used */
	assert_int_equal(ckpt_run(&o, &r), CKPT_EXIT_OK);
	assert_int_equal(r.threads, 1);
	assert_int_equal(r.files, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pattern_deterministic),
		cmocka_unit_test(test_pattern_known_answer),
		cmocka_unit_test(test_fill_matches_blocks),
		cmocka_unit_test(test_header_roundtrip),
		cmocka_unit_test(test_header_rejects),
		cmocka_unit_test(test_check_good),
		cmocka_unit_test(test_check_wrong_data),
		cmocka_unit_test(test_check_torn),
		cmocka_unit_test(test_check_misplaced),
		cmocka_unit_test(test_check_zeroes),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_defaults),
		cmocka_unit_test(test_parse_all),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_help),
	};
	const struct CMUnitTest e2e[] = {
		cmocka_unit_test(test_e2e_write_verify),
		cmocka_unit_test(test_e2e_corrupt_byte),
		cmocka_unit_test(test_e2e_misplaced_zeroes_missing),
		cmocka_unit_test(test_e2e_errors),
	};
	int failed;

	failed = cmocka_run_group_tests_name("ckpt_pattern", tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("ckpt_e2e", e2e, e2e_setup,
					      e2e_teardown);
	return failed;
}
