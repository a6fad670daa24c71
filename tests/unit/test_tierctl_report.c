// SPDX-License-Identifier: GPL-2.0
/* Unit tests for user/lib/tl-report.c and tl-print.c: "tierctl list" and
 * "tierctl status" output, text and JSON (checked to be valid JSON with the
 * documented fields). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <unistd.h>
#include <wchar.h>

#include "tl-lost.h"
#include "tl-nl.h"
#include "tl-print.h"
#include "tl-report.h"

static char out[16384];

typedef void (*print_fn)(const void *arg);

/* Run @fn with stdout going to a file; its output lands in out[]. */
static void capture(bool json, print_fn fn, const void *arg)
{
	char path[] = "/tmp/tl-report-XXXXXX";
	int fd = mkstemp(path), saved;
	ssize_t n;

	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	print_open(json);
	fn(arg);
	print_close();
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	n = pread(fd, out, sizeof(out) - 1, 0);
	close(fd);
	unlink(path);
	assert_true(n >= 0);
	out[n] = '\0';
}

/* ---- a small strict JSON checker ---------------------------------------- */

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *value(const char *p);

/*
 * A raw byte at or above 0x80 must start well-formed UTF-8 (RFC 8259):
 * glibc's decoder (C.UTF-8) refuses overlong forms and surrogates.
 */
static const char *utf8_char(const char *p)
{
	mbstate_t st = { 0 };
	wchar_t wc;
	size_t n;

	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		fail_msg("no C.UTF-8 locale to check UTF-8 with");
	n = mbrtowc(&wc, p, MB_LEN_MAX, &st);
	setlocale(LC_CTYPE, "C");
	if (n == (size_t)-1 || n == (size_t)-2 || !n)
		return NULL;
	return p + n - 1;
}

static const char *string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if ((unsigned char)*p >= 0x80) {
			p = utf8_char(p);
			if (!p)
				return NULL;
		}
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF",
						    p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *number(const char *p)
{
	const char *s = p;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.') {		/* a fraction: at least one digit */
		if (p[1] < '0' || p[1] > '9')
			return NULL;
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	}
	return p > s ? p : NULL;
}

static const char *container(const char *p, char close, bool keys)
{
	p = ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (keys) {
			p = string(ws(p));
			if (!p)
				return NULL;
			p = ws(p);
			if (*p++ != ':')
				return NULL;
		}
		p = value(p);
		if (!p)
			return NULL;
		p = ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *value(const char *p)
{
	p = ws(p);
	switch (*p) {
	case '{':
		return container(p, '}', true);
	case '[':
		return container(p, ']', false);
	case '"':
		return string(p);
	case 't':
		return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f':
		return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n':
		return strncmp(p, "null", 4) ? NULL : p + 4;
	default:
		return number(p);
	}
}

static void assert_json(const char *s)
{
	const char *end = value(s);

	if (!end || *ws(end))
		fail_msg("not valid JSON: %s", s);
}

static void test_json_checker(void **state)
{
	(void)state;
	assert_non_null(value("{\"a\":[1,2,{\"b\":null}],\"c\":\"x\\\"y\"}"));
	assert_null(value("{\"a\":1,}"));
	assert_null(value("[1 2]"));
	assert_null(value("{\"a\" 1}"));
	assert_non_null(value("[0.5,12.25]"));
	assert_null(value("[1.]"));
	assert_non_null(value("[\"\xc3\xa9\xf0\x9f\x98\x80\"]"));
	assert_null(value("[\"\xff\"]"));
	assert_null(value("[\"\xc0\xaf\"]"));	/* overlong '/' */
	assert_null(value("[\"\xed\xa0\x80\"]"));	/* a surrogate */
	assert_null(value("[\"\xe2\x82\"]"));	/* cut short */
}

static void do_path(const void *arg)
{
	print_obj_begin(NULL);
	print_str("path", "%s\n", arg);
	print_obj_end();
}

/*
 * A file name in another encoding: --json must still be JSON (UTF-8), each
 * byte that starts no well-formed sequence a U+FFFD; the text output
 * keeps the bytes. Before 2026-12-07 (sixth session) they were copied.
 */
static void test_json_not_utf8(void **state)
{
	static const char name[] = "ok/\xc3\xa9t\xc3\xa9/\xff\xfe/\xed\xa0\x80/"
				   "\xc0\xaf/\xf0\x9f\x98\x80/\xf4\x90\x80\x80/end\xe2\x82";

	(void)state;
	capture(true, do_path, name);
	assert_json(out);
	assert_string_equal(out,
			    "{\"path\":\"ok/\xc3\xa9t\xc3\xa9/\\ufffd\\ufffd/"
			    "\\ufffd\\ufffd\\ufffd/\\ufffd\\ufffd/\xf0\x9f\x98\x80/"
			    "\\ufffd\\ufffd\\ufffd\\ufffd/end\\ufffd\\ufffd\"}\n");
	capture(false, do_path, name);
	assert_int_equal(strlen(out), strlen(name) + 1);
	assert_memory_equal(out, name, strlen(name));
}

/* ---- list ----------------------------------------------------------------- */

static const struct tl_list_entry entries[] = {
	{ "fast", "DMTIER-00112233445566778899aabbccddeeff", 10ULL << 30, 2,
	  true, 1, 4ULL << 30 },
	{ "we\"ird\\", "DMTIER-ffeeddccbbaa99887766554433221100", 1536ULL << 20,
	  1, false, 0, 0 },
};

static void do_list(const void *arg)
{
	tl_print_list(entries, *(const size_t *)arg);
}

static void test_list(void **state)
{
	size_t n = 2;

	(void)state;
	capture(true, do_list, &n);
	assert_json(out);
	assert_string_equal(out,
			    "[{\"name\":\"fast\",\"size_bytes\":10737418240,\"nr_tiers\":2,"
			    "\"mem_node\":1,\"mem_bytes_max\":4294967296,"
			    "\"uuid\":\"DMTIER-00112233445566778899aabbccddeeff\"},"
			    "{\"name\":\"we\\\"ird\\\\\",\"size_bytes\":1610612736,\"nr_tiers\":1,"
			    "\"mem_node\":null,\"mem_bytes_max\":null,"
			    "\"uuid\":\"DMTIER-ffeeddccbbaa99887766554433221100\"}]\n");
	capture(false, do_list, &n);
	assert_non_null(strstr(out, "NAME"));
	assert_non_null(strstr(out, "MEMORY TIER"));
	assert_non_null(strstr(out, "fast                 10 GiB      2      4 GiB on node 1      DMTIER-0011"));
	assert_non_null(strstr(out, "1      -                    DMTIER-ffee"));
	assert_non_null(strstr(out, "1.5 GiB"));
	n = 0;
	capture(true, do_list, &n);
	assert_string_equal(out, "[]\n");
	capture(false, do_list, &n);
	assert_string_equal(out, "no dm-tier devices\n");
}

/* ---- status --------------------------------------------------------------- */

struct status_case {
	struct tl_status st;
	struct tl_table tt;
	struct tl_status_view v;
};

static void status_case(struct status_case *c, const char *status,
			const char *table)
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(tl_status_parse(status, &c->st, NULL), TL_OK);
	assert_int_equal(tl_table_parse_line(table, &c->tt, NULL), TL_OK);
	c->v.name = "fast";
	c->v.uuid = "DMTIER-00112233445566778899aabbccddeeff";
	c->v.size_bytes = c->st.virt_extents * c->st.extent_sectors * 512;
	c->v.st = &c->st;
	c->v.tt = &c->tt;
	c->v.tier_path[0] = "/dev/nvme0n1";
	c->v.tier_path[1] = "/dev/sdb";
	c->v.tier_class[0] = TIER_CLASS_NVME;
	c->v.tier_class[1] = TIER_CLASS_NVMF;
}

static void do_status(const void *arg)
{
	tl_print_status(arg);
}

static void test_status_json(void **state)
{
	static const char *const keys[] = {
		"\"name\":\"fast\"",
		"\"uuid\":\"DMTIER-00112233445566778899aabbccddeeff\"",
		"\"dm_device\":\"/dev/mapper/fast\"",
		"\"size_bytes\":1048576000",
		"\"extent_bytes\":1048576",
		"\"virt_extents\":1000",
		"\"nr_tiers\":2",
		"\"metadata_mode\":\"rw\"",
		"\"commits\":42,\"commit_last_us\":null,\"commit_total_us\":null,"
		"\"metadata_device\":null",
		"\"suspended\":false,\"read_only\":false",
		"\"mapped_extents\":300",
		"\"mapped_bytes\":314572800",
		"\"commit_interval_ms\":1000",
		"\"reserve_pct\":2",
		"\"discard_passdown\":true",
		"\"migration\":null",
		"\"tiers\":[{\"index\":0,\"device\":\"/dev/nvme0n1\",\"class\":\"nvme\","
		"\"durable\":true,\"state\":\"ok\","
		"\"capacity_extents\":200,\"used_extents\":150,\"free_extents\":50,"
		"\"used_bytes\":157286400,\"capacity_bytes\":209715200,"
		"\"free_bytes\":52428800,\"mapped_extents\":null,"
		"\"read_ios\":11,\"write_ios\":12,\"io_errors\":null,\"evacuation\":null},"
		"{\"index\":1,\"device\":\"/dev/sdb\",\"class\":\"nvmf\","
		"\"durable\":true,\"state\":\"degraded\"",
		"\"nospc_errors\":3,\"lost\":null}",
	};
	struct status_case c;
	size_t i;

	(void)state;
	status_case(&c, "rw 42 2048 1000 300 2 ok 200 150 11 12 degraded 900 150 13 14 3",
		    "2048 2 259:0 8:16");
	capture(true, do_status, &c.v);
	assert_json(out);
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strstr(out, keys[i]))
			fail_msg("JSON lacks %s: %s", keys[i], out);
	tl_table_free(&c.tt);
}

/* Commit durations (netlink only): text in ms, JSON in us. */
static void test_status_commit_time(void **state)
{
	struct status_case c;

	(void)state;
	status_case(&c, "rw 42 2048 1000 300 2 ok 200 150 11 12 ok 900 150 13 14 0",
		    "2048 2 259:0 8:16");
	c.st.commit_time.present = true;
	c.st.commit_time.last_us = 2500;
	c.st.commit_time.total_us = 84000;
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "metadata:  rw, 42 commits (last 2.5 ms, mean 2.0 ms), on tier 0"));
	capture(true, do_status, &c.v);
	assert_json(out);
	assert_non_null(strstr(out, "\"commits\":42,\"commit_last_us\":2500,\"commit_total_us\":84000,"));
	/* None yet: the mean of nothing is 0. */
	c.st.commits = 0;
	c.st.commit_time.last_us = 0;
	c.st.commit_time.total_us = 0;
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "metadata:  rw, 0 commits (last 0.0 ms, mean 0.0 ms), on tier 0"));
	tl_table_free(&c.tt);
}

/* The same device as reported by a module with the migration engine. */
static void test_status_json_migration(void **state)
{
	static const char *const keys[] = {
		"\"mapped_extents\":300,\"mapped_bytes\":314572800",
		"\"discard_passdown\":true",
		"\"migration\":{\"pace\":\"full\",\"in_flight\":3,"
		"\"promotions\":12,\"swaps\":0,\"demotions\":40,\"bytes_moved\":1610612736,"
		"\"above_high_ms\":4100,\"errors\":0,\"manual_pending\":0}",
		"\"free_bytes\":52428800,\"mapped_extents\":140,\"read_ios\":11",
		"\"state\":\"degraded\"",
		"\"mapped_extents\":160,\"read_ios\":13,\"write_ios\":14,\"io_errors\":null,\"evacuation\":null}]",
		"\"nospc_errors\":3,\"lost\":null}",
	};
	struct status_case c;
	size_t i;

	(void)state;
	status_case(&c, "rw 42 2048 1000 300 2 ok 200 150 11 12 degraded 900 150 13 14 3 "
		    "12 40 1610612736 3 full 4100 0 0 140 160",
		    "2048 2 259:0 8:16");
	capture(true, do_status, &c.v);
	assert_json(out);
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strstr(out, keys[i]))
			fail_msg("JSON lacks %s: %s", keys[i], out);
	assert_null(strstr(out, "\"migration\":null"));
	assert_null(strstr(out, "\"mapped_extents\":null"));
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "  migration: pace full, 3 in flight, 12 up, 40 down, "
				    "1.5 GiB moved, 4.1 s above high watermark, 0 errors\n"));
	assert_non_null(strstr(out, " mapped "));
	assert_non_null(strstr(out, "50 MiB      140        11           12           -\n"));
	assert_non_null(strstr(out, "750 MiB     160        13"));
	assert_null(strstr(out, "mem "));
	tl_table_free(&c.tt);

	/* A migrate message still working shows what it has left. */
	status_case(&c, "rw 42 2048 1000 300 1 ok 1000 300 11 12 0 "
		    "0 5 5242880 2 background 0 1 27 300",
		    "2048 1 259:0");
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "  migration: pace background, 2 in flight, 0 up, 5 down, "
				    "5 MiB moved, 0.0 s above high watermark, 1 errors, "
				    "27 extents left to migrate\n"));
	capture(true, do_status, &c.v);
	assert_json(out);
	assert_non_null(strstr(out, "\"errors\":1,\"manual_pending\":27}"));
	tl_table_free(&c.tt);
}

static void test_status_text(void **state)
{
	struct status_case c;

	(void)state;
	status_case(&c, "ro 7 2048 1000 300 2 ok 200 150 11 12 ok 900 150 13 14 0",
		    "2048 2 259:0 8:16 4 metadata_dev 259:9 reserve_pct 5");
	c.v.meta_path = "/dev/pmem0";
	c.v.suspended = true;
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "fast: 1000 MiB, 1 MiB extents, 2 tiers\n"));
	assert_non_null(strstr(out, "metadata:  ro, 7 commits, on /dev/pmem0, SUSPENDED\n"));
	assert_non_null(strstr(out, "mapped:    300 extents (300 MiB) of 1000, 30.0%\n"));
	assert_non_null(strstr(out, "5% reserve"));
	assert_non_null(strstr(out, "/dev/nvme0n1"));
	assert_non_null(strstr(out, "150 MiB / 200 MiB"));
	assert_non_null(strstr(out, "( 75.0%)"));
	assert_non_null(strstr(out, "nospc errors: 0\n"));
	assert_non_null(strstr(out, "  migration: not reported (the dm-tier module predates migration)\n"));
	assert_non_null(strstr(out, "50 MiB      -          11"));
	assert_null(strstr(out, "{"));
	capture(true, do_status, &c.v);
	assert_json(out);
	assert_non_null(strstr(out, "\"metadata_device\":\"/dev/pmem0\""));
	assert_non_null(strstr(out, "\"suspended\":true"));
	assert_non_null(strstr(out, "\"reserve_pct\":5"));
	tl_table_free(&c.tt);
}

/* A separate metadata device: its use and size, text and JSON. */
static void test_status_meta_use(void **state)
{
	struct status_case c;

	(void)state;
	status_case(&c, "rw 7 2048 1000 300 2 ok 200 150 11 12 ok 900 150 13 14 0 "
			"0 0 0 0 idle 0 0 0 150 150 - 0 0 0 0 0 0 0 0 0 rw 256 4096",
		    "2048 2 259:0 8:16 2 metadata_dev 259:9");
	c.v.meta_path = "/dev/nvme2n1";
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "metadata:  rw, 7 commits, on /dev/nvme2n1, 1 MiB used of 16 MiB (6.2%)\n"));
	capture(true, do_status, &c.v);
	assert_json(out);
	assert_non_null(strstr(out, "\"metadata_device\":\"/dev/nvme2n1\","
				    "\"metadata_used_bytes\":1048576,"
				    "\"metadata_size_bytes\":16777216"));
	tl_table_free(&c.tt);

	/* Not reported: null. */
	status_case(&c, "rw 7 2048 1000 300 2 ok 200 150 11 12 ok 900 150 13 14 0",
		    "2048 2 259:0 8:16");
	capture(true, do_status, &c.v);
	assert_json(out);
	assert_non_null(strstr(out, "\"metadata_used_bytes\":null,\"metadata_size_bytes\":null"));
	tl_table_free(&c.tt);
}

/* The status line's last field, the evacuating tiers: tier 1 with extents
 * left and no request ("stopped"), then with none ("empty"); an older
 * line without the field: no evacuation. */
static void test_status_evacuation(void **state)
{
	static const char *const head =
		"rw 7 2048 1000 300 2 ok 200 150 11 12 ok 900 150 13 14 0 "
		"0 0 0 0 idle 0 0 0 150 %u - 0 0 0 0 0 0 0 0 0 rw 256 4096 0 0%s";
	struct status_case c;
	char line[256];

	(void)state;
	snprintf(line, sizeof(line), head, 150u, " 2");
	status_case(&c, line, "2048 2 259:0 8:16");
	assert_false(c.st.tier[0].evacuating);
	assert_true(c.st.tier[1].evacuating);
	capture(true, do_status, &c.v);
	assert_json(out);
	assert_non_null(strstr(out, "\"write_ios\":12,\"io_errors\":null,\"evacuation\":null}"));
	assert_non_null(strstr(out, "\"write_ios\":14,\"io_errors\":null,\"evacuation\":\"stopped\"}"));
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "  tier 1:    stopped (150 extents left; 'tierctl evacuate fast 1' resumes, --cancel undoes)\n"));
	tl_table_free(&c.tt);

	snprintf(line, sizeof(line), head, 0u, " 2");
	status_case(&c, line, "2048 2 259:0 8:16");
	capture(true, do_status, &c.v);
	assert_json(out);
	assert_non_null(strstr(out, "\"evacuation\":\"empty\"}"));
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "  tier 1:    empty (takes no new extents; 'tierctl evacuate fast 1 --cancel' undoes)\n"));
	tl_table_free(&c.tt);

	/* An older module: no field, no evacuation. */
	snprintf(line, sizeof(line), head, 0u, "");
	status_case(&c, line, "2048 2 259:0 8:16");
	assert_false(c.st.tier[1].evacuating);
	capture(false, do_status, &c.v);
	assert_null(strstr(out, "tier 1:  "));
	tl_table_free(&c.tt);
}

/* The move queue's table: "evacuate", the longest kind, keeps its columns
 * aligned with the others. */
static void test_status_moves(void **state)
{
	static struct tl_nl_dev nd;
	struct status_case c;
	const char *a, *b;

	(void)state;
	status_case(&c, "rw 7 2048 1000 300 2 ok 200 150 11 12 ok 900 150 13 14 0",
		    "2048 2 259:0 8:16");
	memset(&nd, 0, sizeof(nd));
	nd.nr_moves = 2;
	nd.moves[0].id = 4;
	snprintf(nd.moves[0].kind, sizeof(nd.moves[0].kind), "evacuate");
	snprintf(nd.moves[0].state, sizeof(nd.moves[0].state), "running");
	nd.moves[0].target_tier = 1;
	nd.moves[1].id = 5;
	snprintf(nd.moves[1].kind, sizeof(nd.moves[1].kind), "migrate");
	snprintf(nd.moves[1].state, sizeof(nd.moves[1].state), "queued");
	c.v.nd = &nd;
	capture(false, do_status, &c.v);
	a = strstr(out, "     4  evacuate  running ");
	b = strstr(out, "     5  migrate   queued  ");
	assert_non_null(a);
	assert_non_null(b);
	/* The header's "state" sits over the states. */
	assert_non_null(strstr(out, "    id  kind      state "));
	capture(true, do_status, &c.v);
	assert_json(out);
	assert_non_null(strstr(out, "\"kind\":\"evacuate\""));
	tl_table_free(&c.tt);
}

/* The offline queue's counters after <meta_total>: text only when either is
 * not 0, JSON always (null from an older module's line). */
static void test_status_offline_queue(void **state)
{
	static const char *const head =
		"rw 7 2048 1000 300 2 ok 200 150 11 12 offline 900 150 13 14 0 "
		"0 0 0 0 idle 0 0 0 150 150 - 0 0 0 0 0 0 0 0 0 rw%s";
	struct status_case c;
	char line[256];

	(void)state;
	snprintf(line, sizeof(line), head, " 256 4096 3 5 0");
	status_case(&c, line, "2048 2 259:0 8:16");
	assert_true(c.st.offline.present);
	assert_int_equal(c.st.offline.queued, 3);
	assert_int_equal(c.st.offline.expired, 5);
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "  offline queue: 3 writes waiting for an offline tier, 5 failed at their deadline\n"));
	capture(true, do_status, &c.v);
	assert_json(out);
	assert_non_null(strstr(out, "\"offline_queued\":3,\"offline_expired\":5"));
	tl_table_free(&c.tt);

	snprintf(line, sizeof(line), head, " 256 4096 0 0 0");
	status_case(&c, line, "2048 2 259:0 8:16");
	capture(false, do_status, &c.v);
	assert_null(strstr(out, "offline queue"));
	capture(true, do_status, &c.v);
	assert_non_null(strstr(out, "\"offline_queued\":0,\"offline_expired\":0"));
	tl_table_free(&c.tt);

	/* An older module: not reported. */
	snprintf(line, sizeof(line), head, " 256 4096");
	status_case(&c, line, "2048 2 259:0 8:16");
	assert_false(c.st.offline.present);
	capture(true, do_status, &c.v);
	assert_json(out);
	assert_non_null(strstr(out, "\"offline_queued\":null,\"offline_expired\":null"));
	tl_table_free(&c.tt);
}

/* A read-only activation: said on the metadata line and in JSON; the
 * status line's appended <activation> field does not upset the parser. */
static void test_status_read_only(void **state)
{
	struct status_case c;

	(void)state;
	status_case(&c, "rw 0 2048 1000 300 1 ok 1000 300 11 0 0 "
		    "0 0 0 0 idle 0 0 0 300 - 0 0 0 0 0 0 0 0 0 ro",
		    "2048 1 259:0");
	c.v.read_only = true;
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "metadata:  rw, 0 commits, on tier 0, READ-ONLY (nothing is written)\n"));
	capture(true, do_status, &c.v);
	assert_json(out);
	assert_non_null(strstr(out, "\"suspended\":false,\"read_only\":true"));
	c.v.read_only = false;
	capture(false, do_status, &c.v);
	assert_null(strstr(out, "READ-ONLY"));
	tl_table_free(&c.tt);
}

/*
 * A tier that is not ok: the "lost" object lists every range in JSON, at
 * most 16 in text, then how many more (where --lost lists them all).
 */
static void test_status_lost(void **state)
{
	static struct tl_nl_dev nd;
	struct tl_lost lost;
	struct status_case c;
	u64 i;

	(void)state;
	status_case(&c, "rw 42 2048 1000 300 2 ok 200 150 11 12 degraded 900 150 13 14 3",
		    "2048 2 259:0 8:16");
	memset(&nd, 0, sizeof(nd));
	snprintf(nd.name, sizeof(nd.name), "fast");
	nd.nr_tiers = 2;
	nd.extent_bytes = 1 << 20;
	nd.size_bytes = 1000ULL << 20;
	snprintf(nd.tiers[0].state, sizeof(nd.tiers[0].state), "ok");
	snprintf(nd.tiers[1].state, sizeof(nd.tiers[1].state), "degraded");
	tl_lost_init(&lost, &nd);
	/* 20 ranges of 2 extents: 0-1, 4-5, ... on tier 1; tier 0 ignored. */
	for (i = 0; i < 80; i++)
		assert_int_equal(tl_lost_add(&lost, i, i % 4 < 2 ? 1 : 0), 0);
	assert_int_equal(lost.nr, 20);
	c.v.nd = &nd;
	c.v.lost = &lost;
	capture(true, do_status, &c.v);
	assert_json(out);
	assert_non_null(strstr(out, "\"nospc_errors\":3,\"lost\":{\"lost_tiers\":[{\"tier\":1,"
				    "\"state\":\"degraded\",\"bytes\":41943040}],"
				    "\"lost_bytes\":41943040,\"lost_ranges\":["
				    "{\"device_offset\":0,\"length\":2097152,\"tier\":1},"
				    "{\"device_offset\":4194304,\"length\":2097152,\"tier\":1},"));
	/* All 20 in JSON. */
	assert_non_null(strstr(out, "{\"device_offset\":79691776,\"length\":2097152,\"tier\":1}]}}"));
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "  tier 1 is degraded: 41943040 bytes of the device live on it\n"));
	assert_non_null(strstr(out, "  lost:  41943040 bytes in 20 ranges:\n"));
	assert_non_null(strstr(out, "    0                2097152          1\n"));
	assert_non_null(strstr(out, "    62914560         2097152          1\n"));	/* the 16th */
	assert_null(strstr(out, "    67108864 "));					/* the 17th */
	assert_non_null(strstr(out, "    ... 4 more ('tierctl where --lost fast' lists all)\n"));
	/* Unknown (not root): null, and a note in text. */
	c.v.lost = NULL;
	c.v.lost_note = "a tier is not ok; run as root to see which ranges live on it";
	capture(true, do_status, &c.v);
	assert_non_null(strstr(out, "\"lost\":null}"));
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "  lost:  a tier is not ok; run as root"));
	tl_lost_free(&lost);
	tl_table_free(&c.tt);
}

/* A memory tier: one more "tiers" element and one more row, the same
 * printer for the status line and for netlink. */
static void test_status_mem(void **state)
{
	static const char *const keys[] = {
		"\"nr_tiers\":2",
		"{\"index\":2,\"device\":null,\"class\":\"mem\",\"durable\":false,"
		"\"state\":\"ok\",\"numa_node\":1,\"capacity_extents\":4096,"
		"\"used_extents\":1024,\"copies_bytes\":1073741824,"
		"\"mem_bytes_max\":4294967296,\"mem_bytes_used\":1073741824,"
		"\"mem_copies\":1024,"
		"\"hit_ratio\":0.900000,\"mem_hits\":900,\"mem_misses\":100,"
		"\"mem_fills\":1500,\"mem_evictions\":476,"
		"\"mem_invalidations\":12}]",
		"\"class\":\"nvme\",\"durable\":true",
		"\"nospc_errors\":3,\"lost\":null}",
	};
	struct status_case c;
	size_t i;

	(void)state;
	status_case(&c, "rw 42 2048 1000 300 2 ok 200 150 11 12 degraded 900 150 13 14 3 "
		    "12 40 1610612736 3 full 4100 0 0 140 160 "
		    "1 4294967296 1073741824 1024 900 100 1500 476 12",
		    "2048 2 259:0 8:16 4 mem_node 1 mem_size_mb 4096");
	assert_true(c.tt.mem.on);
	capture(true, do_status, &c.v);
	assert_json(out);
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strstr(out, keys[i]))
			fail_msg("JSON lacks %s: %s", keys[i], out);
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "fast: 1000 MiB, 1 MiB extents, 2 tiers + a memory tier on NUMA node 1\n"));
	assert_non_null(strstr(out, " durable "));
	assert_non_null(strstr(out, "  0     /dev/nvme0n1         nvme     yes     ok "));
	assert_non_null(strstr(out, "  2     numa node 1          mem      no      ok            1 GiB / 4 GiB     ( 25.0%)  "
				    "1024 copies, hit ratio 90.0% (900 hits, 100 misses), 1500 fills, "
				    "476 evictions, 12 invalidations\n"));

	/* No read yet: no ratio. */
	c.st.mem.hits = c.st.mem.misses = 0;
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "1024 copies, hit ratio - (0 hits, 0 misses)"));
	capture(true, do_status, &c.v);
	assert_json(out);
	assert_non_null(strstr(out, "\"hit_ratio\":null,"));

	/* As netlink reports it: the kernel's classes, io errors. */
	c.st.has_io_errors = true;
	c.st.tier[1].io_errors = 7;
	snprintf(c.st.tier[1].tier_class, sizeof(c.st.tier[1].tier_class), "pmem");
	capture(true, do_status, &c.v);
	assert_json(out);
	assert_non_null(strstr(out, "\"write_ios\":12,\"io_errors\":0,\"evacuation\":null}"));
	assert_non_null(strstr(out, "\"class\":\"pmem\",\"durable\":true,\"state\":\"degraded\""));
	assert_non_null(strstr(out, "\"write_ios\":14,\"io_errors\":7,\"evacuation\":null}"));
	capture(false, do_status, &c.v);
	assert_non_null(strstr(out, "  1     /dev/sdb             pmem     yes     degraded"));
	assert_non_null(strstr(out, " 14           7\n"));
	tl_table_free(&c.tt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_checker),
		cmocka_unit_test(test_json_not_utf8),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_status_json),
		cmocka_unit_test(test_status_commit_time),
		cmocka_unit_test(test_status_json_migration),
		cmocka_unit_test(test_status_text),
		cmocka_unit_test(test_status_meta_use),
		cmocka_unit_test(test_status_evacuation),
		cmocka_unit_test(test_status_offline_queue),
		cmocka_unit_test(test_status_moves),
		cmocka_unit_test(test_status_read_only),
		cmocka_unit_test(test_status_mem),
		cmocka_unit_test(test_status_lost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
