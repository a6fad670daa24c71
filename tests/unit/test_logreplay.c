// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/logreplay/lw.c, the dm-log-writes reader of
 * dmt-logreplay, on synthetic logs built in a memfd: the super block, bad
 * magic/version/sector size, iterating entries, data, discard and mark
 * entries, replay onto a target, truncated and corrupt logs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lw.h"

/* A log under construction in a memfd. */
struct synth {
	int fd;
	uint32_t ss;
	uint64_t next_block;
	uint64_t nr;
};

static void synth_init(struct synth *s, uint32_t ss)
{
	s->fd = memfd_create("lwlog", 0);
	assert_true(s->fd >= 0);
	s->ss = ss;
	s->next_block = 1;
	s->nr = 0;
}

static void put(struct synth *s, const void *buf, size_t len, uint64_t off)
{
	assert_int_equal(pwrite(s->fd, buf, len, (off_t)off), (ssize_t)len);
}

/* Write the super block with nr_entries (default: what was added). */
static void synth_super(struct synth *s, uint64_t magic, uint64_t version, uint64_t nr)
{
	struct lw_super sb = { magic, version, nr, s->ss };
	uint8_t *blk = calloc(1, s->ss);

	lw_super_encode(&sb, blk, s->ss);
	put(s, blk, s->ss, 0);
	free(blk);
}

/* Add an entry; data blocks are filled with the byte FILL. */
static uint64_t synth_add(struct synth *s, uint64_t sector, uint64_t nr, uint64_t flags,
			  const char *mark, uint8_t fill)
{
	struct lw_entry e = { .sector = sector, .nr_sectors = nr, .flags = flags };
	uint8_t *blk = calloc(1, s->ss);
	uint64_t at = s->next_block;

	assert_int_equal(lw_entry_encode(&e, mark, blk, s->ss), 0);
	put(s, blk, s->ss, at * s->ss);
	e.flags |= mark ? LW_MARK : 0;
	if (!(flags & LW_DISCARD) && nr) {
		uint8_t *data = malloc(nr * s->ss);

		memset(data, fill, nr * s->ss);
		put(s, data, nr * s->ss, (at + 1) * s->ss);
		free(data);
	}
	s->next_block += lw_entry_blocks(&e);
	s->nr++;
	free(blk);
	return at;
}

/* A typical log: write, write, flush, mark, discard, FUA write, flush. */
static void synth_typical(struct synth *s, uint32_t ss)
{
	synth_init(s, ss);
	synth_add(s, 0, 2, 0, NULL, 0xa1);
	synth_add(s, 8, 1, 0, NULL, 0xb2);
	synth_add(s, 0, 0, LW_FLUSH, NULL, 0);
	synth_add(s, 0, 0, 0, "ok_c1", 0);
	synth_add(s, 1, 2, LW_DISCARD, NULL, 0);
	synth_add(s, 4, 1, LW_FUA, NULL, 0xc3);
	synth_add(s, 0, 0, LW_FLUSH, NULL, 0);
	synth_super(s, LW_MAGIC, LW_VERSION, s->nr);
}

static void test_super_roundtrip(void **state)
{
	struct lw_super in = { LW_MAGIC, LW_VERSION, 12345, 4096 }, out;
	uint8_t buf[LW_SUPER_BYTES];
	char err[256];

	(void)state;
	lw_super_encode(&in, buf, sizeof(buf));
	/* little-endian magic, as the kernel writes it */
	assert_int_equal(buf[0], 0x72);
	assert_int_equal(buf[6], 0x6a);
	assert_int_equal(lw_super_decode(buf, sizeof(buf), &out, err, sizeof(err)), 0);
	assert_int_equal(out.nr_entries, 12345);
	assert_int_equal(out.sectorsize, 4096);
	assert_int_equal(out.version, 1);
}

static void test_super_bad_magic(void **state)
{
	struct lw_super in = { 0x1234, LW_VERSION, 1, 512 }, out;
	uint8_t buf[LW_SUPER_BYTES];
	char err[256] = "";

	(void)state;
	lw_super_encode(&in, buf, sizeof(buf));
	assert_int_equal(lw_super_decode(buf, sizeof(buf), &out, err, sizeof(err)), -LW_EFORMAT);
	assert_non_null(strstr(err, "bad magic"));
	assert_non_null(strstr(err, "not a dm-log-writes log"));
}

static void test_super_bad_version_and_sectorsize(void **state)
{
	struct lw_super in = { LW_MAGIC, 2, 1, 512 }, out;
	uint8_t buf[LW_SUPER_BYTES];
	char err[256] = "";

	(void)state;
	lw_super_encode(&in, buf, sizeof(buf));
	assert_int_equal(lw_super_decode(buf, sizeof(buf), &out, err, sizeof(err)), -LW_EFORMAT);
	assert_non_null(strstr(err, "version 2"));
	in.version = LW_VERSION;
	in.sectorsize = 1000;
	lw_super_encode(&in, buf, sizeof(buf));
	assert_int_equal(lw_super_decode(buf, sizeof(buf), &out, err, sizeof(err)), -LW_EFORMAT);
	assert_non_null(strstr(err, "sector size 1000"));
	assert_int_equal(lw_super_decode(buf, 10, &out, err, sizeof(err)), -LW_ETRUNC);
}

static void test_open_rejects_bad_magic(void **state)
{
	struct synth s;
	struct lw_log log;
	char err[256] = "";

	(void)state;
	synth_init(&s, 512);
	synth_add(&s, 0, 1, 0, NULL, 1);
	synth_super(&s, 0, LW_VERSION, s.nr); /* a zeroed log device */
	assert_int_equal(lw_open(&log, s.fd, err, sizeof(err)), -LW_EFORMAT);
	assert_non_null(strstr(err, "bad magic 0x0000000000000000"));
	close(s.fd);

	synth_init(&s, 512);
	assert_int_equal(lw_open(&log, s.fd, err, sizeof(err)), -LW_ETRUNC); /* empty file */
	assert_non_null(strstr(err, "truncated"));
	close(s.fd);
}

static void check_typical(uint32_t ss)
{
	struct synth s;
	struct lw_log log;
	struct lw_entry e;
	char err[256] = "";
	static const struct {
		uint64_t sector, nr, flags, block;
		const char *mark;
	} want[] = {
		{ 0, 2, 0, 1, "" },
		{ 8, 1, 0, 4, "" },
		{ 0, 0, LW_FLUSH, 6, "" },
		{ 0, 0, LW_MARK, 7, "ok_c1" },
		{ 1, 2, LW_DISCARD, 8, "" },  /* no data blocks */
		{ 4, 1, LW_FUA, 9, "" },
		{ 0, 0, LW_FLUSH, 11, "" },
	};

	synth_typical(&s, ss);
	assert_int_equal(lw_open(&log, s.fd, err, sizeof(err)), 0);
	assert_int_equal(log.sb.nr_entries, 7);
	assert_int_equal(log.sb.sectorsize, ss);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(lw_next(&log, &e, err, sizeof(err)), 1);
		assert_int_equal(e.index, i);
		assert_int_equal(e.sector, want[i].sector);
		assert_int_equal(e.nr_sectors, want[i].nr);
		assert_int_equal(e.flags, want[i].flags);
		assert_int_equal(e.log_block, want[i].block);
		assert_string_equal(e.mark, want[i].mark);
	}
	assert_int_equal(lw_next(&log, &e, err, sizeof(err)), 0);
	assert_int_equal(lw_next(&log, &e, err, sizeof(err)), 0);
	lw_close(&log);
	close(s.fd);
}

static void test_iterate_512(void **state)
{
	(void)state;
	check_typical(512);
}

static void test_iterate_4096(void **state)
{
	(void)state;
	check_typical(4096);
}

/* nr_entries bounds the log: entries past it (stale or unflushed) are not read. */
static void test_nr_entries_bounds(void **state)
{
	struct synth s;
	struct lw_log log;
	struct lw_entry e;
	char err[256];

	(void)state;
	synth_typical(&s, 512);
	synth_super(&s, LW_MAGIC, LW_VERSION, 3);
	assert_int_equal(lw_open(&log, s.fd, err, sizeof(err)), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(lw_next(&log, &e, err, sizeof(err)), 1);
	assert_int_equal(lw_next(&log, &e, err, sizeof(err)), 0);
	lw_close(&log);
	close(s.fd);
}

static void test_truncated(void **state)
{
	struct synth s;
	struct lw_log log;
	struct lw_entry e;
	char err[256] = "";

	(void)state;
	/* The data of the last entry is cut short. */
	synth_init(&s, 512);
	synth_add(&s, 0, 1, 0, NULL, 1);
	synth_add(&s, 2, 4, 0, NULL, 2);
	synth_super(&s, LW_MAGIC, LW_VERSION, s.nr);
	assert_int_equal(ftruncate(s.fd, 512 * 5), 0);
	assert_int_equal(lw_open(&log, s.fd, err, sizeof(err)), 0);
	assert_int_equal(lw_next(&log, &e, err, sizeof(err)), 1);
	assert_int_equal(lw_next(&log, &e, err, sizeof(err)), -LW_ETRUNC);
	assert_non_null(strstr(err, "entry 1 of 2"));
	assert_non_null(strstr(err, "truncated"));
	lw_close(&log);
	close(s.fd);

	/* The super promises more entries than there are blocks. */
	synth_init(&s, 512);
	synth_add(&s, 0, 1, 0, NULL, 1);
	synth_super(&s, LW_MAGIC, LW_VERSION, 5);
	assert_int_equal(lw_open(&log, s.fd, err, sizeof(err)), 0);
	assert_int_equal(lw_next(&log, &e, err, sizeof(err)), 1);
	assert_int_equal(lw_next(&log, &e, err, sizeof(err)), -LW_ETRUNC);
	assert_non_null(strstr(err, "header at log block 3"));
	lw_close(&log);
	close(s.fd);
}

static void test_corrupt_entries(void **state)
{
	uint8_t blk[512];
	struct lw_super sb = { LW_MAGIC, LW_VERSION, 1, 512 };
	struct lw_entry e = { .sector = 1, .nr_sectors = 1, .flags = 1u << 7 };
	char err[256] = "";

	(void)state;
	assert_int_equal(lw_entry_encode(&e, NULL, blk, 512), 0);
	assert_int_equal(lw_entry_decode(blk, &sb, 0, 1, &e, err, sizeof(err)), -LW_EFORMAT);
	assert_non_null(strstr(err, "unknown flags 0x80"));

	/* A mark longer than its block. */
	e = (struct lw_entry){ .flags = LW_MARK };
	assert_int_equal(lw_entry_encode(&e, "m", blk, 512), 0);
	blk[24] = 0xff; /* data_len 255 | ... */
	blk[25] = 0x01; /* 511 bytes */
	assert_int_equal(lw_entry_decode(blk, &sb, 3, 9, &e, err, sizeof(err)), -LW_EFORMAT);
	assert_non_null(strstr(err, "mark of 511 bytes"));

	/* A mark too long to encode. */
	char longmark[600];

	memset(longmark, 'x', sizeof(longmark) - 1);
	longmark[sizeof(longmark) - 1] = 0;
	assert_int_equal(lw_entry_encode(&e, longmark, blk, 512), -LW_EFORMAT);

	/* sector + nr_sectors overflows */
	e = (struct lw_entry){ .sector = UINT64_MAX - 1, .nr_sectors = 4 };
	assert_int_equal(lw_entry_encode(&e, NULL, blk, 512), 0);
	assert_int_equal(lw_entry_decode(blk, &sb, 0, 1, &e, err, sizeof(err)), -LW_EFORMAT);
	assert_non_null(strstr(err, "overflows"));
}

static void test_flags_str(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(lw_flags_str(0, buf, sizeof(buf)), "-");
	assert_string_equal(lw_flags_str(LW_FLUSH | LW_FUA, buf, sizeof(buf)), "FLUSH|FUA");
	assert_string_equal(lw_flags_str(LW_DISCARD, buf, sizeof(buf)), "DISCARD");
	assert_string_equal(lw_flags_str(LW_MARK, buf, sizeof(buf)), "MARK");
}

static uint8_t byte_at(int fd, uint64_t off)
{
	uint8_t b;

	assert_int_equal(pread(fd, &b, 1, (off_t)off), 1);
	return b;
}

/* Replay up to each entry, the second time from where the first stopped. */
static void test_replay(void **state)
{
	struct synth s;
	struct lw_log log;
	struct lw_entry e;
	char err[256] = "";
	int t = memfd_create("target", 0);
	uint64_t tsize = 16 * 512, idx, blk;
	uint8_t *ones = malloc(tsize);
	int r;

	(void)state;
	memset(ones, 0xee, tsize);
	assert_int_equal(pwrite(t, ones, tsize, 0), (ssize_t)tsize);
	free(ones);
	synth_typical(&s, 512);
	assert_int_equal(lw_open(&log, s.fd, err, sizeof(err)), 0);
	/* Entries 0..3: two writes, a flush, a mark. */
	while (log.next_index <= 3 && (r = lw_next(&log, &e, err, sizeof(err))) == 1)
		assert_int_equal(lw_apply(&log, &e, t, tsize, LW_DISCARD_ZERO, err, sizeof(err)), 0);
	assert_int_equal(byte_at(t, 0), 0xa1);
	assert_int_equal(byte_at(t, 1023), 0xa1);
	assert_int_equal(byte_at(t, 1024), 0xee); /* untouched */
	assert_int_equal(byte_at(t, 8 * 512), 0xb2);
	assert_int_equal(byte_at(t, 4 * 512), 0xee);
	idx = log.next_index;
	blk = log.next_block;
	lw_close(&log);

	/* Resume at entry 4: the discard zeroes blocks 1-2, the FUA writes block 4. */
	assert_int_equal(lw_open(&log, s.fd, err, sizeof(err)), 0);
	assert_int_equal(lw_seek(&log, idx, blk, err, sizeof(err)), 0);
	assert_int_equal(lw_next(&log, &e, err, sizeof(err)), 1);
	assert_int_equal(e.index, 4);
	assert_true(e.flags & LW_DISCARD);
	assert_int_equal(lw_apply(&log, &e, t, tsize, LW_DISCARD_ZERO, err, sizeof(err)), 0);
	assert_int_equal(byte_at(t, 0), 0xa1);
	assert_int_equal(byte_at(t, 512), 0);
	assert_int_equal(byte_at(t, 3 * 512 - 1), 0);
	assert_int_equal(byte_at(t, 3 * 512), 0xee);
	assert_int_equal(lw_next(&log, &e, err, sizeof(err)), 1);
	assert_int_equal(lw_apply(&log, &e, t, tsize, LW_DISCARD_ZERO, err, sizeof(err)), 0);
	assert_int_equal(byte_at(t, 4 * 512), 0xc3);
	lw_close(&log);

	/* A seek that does not start at block 1 for entry 0 is refused. */
	assert_int_equal(lw_open(&log, s.fd, err, sizeof(err)), 0);
	assert_int_equal(lw_seek(&log, 0, 5, err, sizeof(err)), -LW_EFORMAT);
	assert_int_equal(lw_seek(&log, 99, 5, err, sizeof(err)), -LW_EFORMAT);
	lw_close(&log);
	close(s.fd);
	close(t);
}

static void test_replay_skip_discard_and_range(void **state)
{
	struct synth s;
	struct lw_log log;
	struct lw_entry e;
	char err[256] = "";
	int t = memfd_create("target", 0);
	uint8_t one = 0x55;

	(void)state;
	synth_init(&s, 512);
	synth_add(&s, 0, 2, LW_DISCARD, NULL, 0);
	synth_add(&s, 30, 4, 0, NULL, 7); /* past the end of an 16-block target */
	synth_super(&s, LW_MAGIC, LW_VERSION, s.nr);
	assert_int_equal(ftruncate(t, 16 * 512), 0);
	assert_int_equal(pwrite(t, &one, 1, 0), 1);
	assert_int_equal(lw_open(&log, s.fd, err, sizeof(err)), 0);
	assert_int_equal(lw_next(&log, &e, err, sizeof(err)), 1);
	assert_int_equal(lw_apply(&log, &e, t, 16 * 512, LW_DISCARD_SKIP, err, sizeof(err)), 0);
	assert_int_equal(byte_at(t, 0), 0x55);
	assert_int_equal(lw_next(&log, &e, err, sizeof(err)), 1);
	assert_int_equal(lw_apply(&log, &e, t, 16 * 512, LW_DISCARD_ZERO, err, sizeof(err)),
			 -LW_ERANGE);
	assert_non_null(strstr(err, "past the end of the target"));
	lw_close(&log);
	close(s.fd);
	close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_super_roundtrip),
		cmocka_unit_test(test_super_bad_magic),
		cmocka_unit_test(test_super_bad_version_and_sectorsize),
		cmocka_unit_test(test_open_rejects_bad_magic),
		cmocka_unit_test(test_iterate_512),
		cmocka_unit_test(test_iterate_4096),
		cmocka_unit_test(test_nr_entries_bounds),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt_entries),
		cmocka_unit_test(test_flags_str),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_replay_skip_discard_and_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
