// SPDX-License-Identifier: GPL-2.0
/* Unit tests for user/lib/tl-nvmf-uri.c, tl-nvmf-record.c and tl-state.c
 * without a fabric: nvmf:// URIs (good ones, every bad part, format round
 * trip), --ctrl-loss-tmo and --reconnect-delay values, and the record file
 * (add, update, delete, malformed lines) in a temporary TIER_STATE_DIR. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tl-nvmf-record.h"

/* ---- URIs ---- */

static void parse_ok(const char *s, const char *transport, const char *traddr,
		     const char *trsvcid, const char *nqn)
{
	struct tl_nvmf_uri u;
	struct tl_err err = { "" };

	if (tl_nvmf_parse_uri(s, &u, &err) != TL_OK)
		fail_msg("'%s' rejected: %s", s, err.msg);
	assert_string_equal(u.transport, transport);
	assert_string_equal(u.traddr, traddr);
	assert_string_equal(u.trsvcid, trsvcid);
	assert_string_equal(u.subsysnqn, nqn);
	assert_string_equal(err.msg, "");
}

static void test_parse_good(void **state)
{
	parse_ok("nvmf://tcp/127.0.0.1:4420/nqn.2024-01.io.dm-tier:cold0",
		 "tcp", "127.0.0.1", "4420", "nqn.2024-01.io.dm-tier:cold0");
	parse_ok("nvmf://rdma/10.0.0.2:4421/nqn.2014-08.org.example:x", "rdma",
		 "10.0.0.2", "4421", "nqn.2014-08.org.example:x");
	/* Scheme and transport in any case; the canonical text is lower. */
	parse_ok("NVMF://TCP/192.0.2.1:1/nqn.a", "tcp", "192.0.2.1", "1",
		 "nqn.a");
	parse_ok("nvmf://tcp/192.0.2.1:65535/nqn.a", "tcp", "192.0.2.1",
		 "65535", "nqn.a");
	/* Leading zeros of the port are dropped. */
	parse_ok("nvmf://tcp/192.0.2.1:04420/nqn.a", "tcp", "192.0.2.1",
		 "4420", "nqn.a");
	/* IPv6 in brackets, canonicalised; with a zone. */
	parse_ok("nvmf://tcp/[::1]:4420/nqn.a", "tcp", "::1", "4420", "nqn.a");
	parse_ok("nvmf://tcp/[2001:DB8:0:0::1]:4420/nqn.a", "tcp", "2001:db8::1",
		 "4420", "nqn.a");
	parse_ok("nvmf://tcp/[fe80::1%eth0]:4420/nqn.a", "tcp", "fe80::1%eth0",
		 "4420", "nqn.a");
	/* Host names. */
	parse_ok("nvmf://tcp/storage-01.example.com:4420/nqn.a", "tcp",
		 "storage-01.example.com", "4420", "nqn.a");
	parse_ok("nvmf://tcp/localhost:4420/nqn.a", "tcp", "localhost", "4420",
		 "nqn.a");
	/* The NQN is everything after the port: colons, slashes, dots. */
	parse_ok("nvmf://tcp/192.0.2.1:4420/nqn.2014-08.org.nvmexpress:uuid:1b4e28ba-2fa1-11d2-883f-0016d3cca427",
		 "tcp", "192.0.2.1", "4420",
		 "nqn.2014-08.org.nvmexpress:uuid:1b4e28ba-2fa1-11d2-883f-0016d3cca427");
	parse_ok("nvmf://tcp/192.0.2.1:4420/nqn.a/b", "tcp", "192.0.2.1", "4420",
		 "nqn.a/b");
}

/* @s is rejected with TL_USAGE, the message quoting @s and containing
 * @what; the URI is left zeroed. */
static void parse_bad(const char *s, const char *what)
{
	struct tl_nvmf_uri u;
	struct tl_err err = { "" };

	memset(&u, 0x5a, sizeof(u));
	if (tl_nvmf_parse_uri(s, &u, &err) != TL_USAGE)
		fail_msg("'%s' accepted", s);
	if (!strstr(err.msg, what))
		fail_msg("'%s': message '%s' does not say '%s'", s, err.msg,
			 what);
	if (*s && !strstr(err.msg, s))
		fail_msg("'%s': message '%s' does not quote the URI", s,
			 err.msg);
	assert_string_equal(u.transport, "");
	assert_string_equal(u.traddr, "");
	assert_string_equal(u.trsvcid, "");
	assert_string_equal(u.subsysnqn, "");
}

static void test_parse_bad(void **state)
{
	char nqn[400], uri[512];

	/* scheme */
	parse_bad("tcp/127.0.0.1:4420/nqn.a", "not an nvmf:// URI");
	parse_bad("nvme://tcp/127.0.0.1:4420/nqn.a", "not an nvmf:// URI");
	/* transport */
	parse_bad("nvmf://", "missing transport");
	parse_bad("nvmf:///127.0.0.1:4420/nqn.a", "missing transport");
	parse_bad("nvmf://udp/127.0.0.1:4420/nqn.a", "unknown transport 'udp'");
	parse_bad("nvmf://fc/127.0.0.1:4420/nqn.a", "unknown transport 'fc'");
	parse_bad("nvmf://tcpfoobarbaz/127.0.0.1:4420/nqn.a",
		  "unknown transport 'tcpfoobarbaz'");
	parse_bad("nvmf://tcp", "missing ADDR:PORT");
	parse_bad("nvmf://tcp/", "missing ADDR:PORT");
	/* address */
	parse_bad("nvmf://tcp/:4420/nqn.a", "missing address");
	parse_bad("nvmf://tcp/1.2.3.256:4420/nqn.a",
		  "address '1.2.3.256' is not an IPv4 address");
	parse_bad("nvmf://tcp/1.2.3:4420/nqn.a", "not an IPv4 address");
	parse_bad("nvmf://tcp/bad_host:4420/nqn.a", "neither an IP address nor a host name");
	parse_bad("nvmf://tcp/-host:4420/nqn.a", "neither an IP address nor a host name");
	parse_bad("nvmf://tcp/a..b:4420/nqn.a", "neither an IP address nor a host name");
	parse_bad("nvmf://tcp/::1:4420/nqn.a", "in brackets");
	parse_bad("nvmf://tcp/[::1:4420/nqn.a", "missing ']'");
	parse_bad("nvmf://tcp/[::g]:4420/nqn.a", "is not an IPv6 address");
	parse_bad("nvmf://tcp/[1.2.3.4]:4420/nqn.a", "is not an IPv6 address");
	parse_bad("nvmf://tcp/[fe80::1%]:4420/nqn.a", "is not an IPv6 address");
	parse_bad("nvmf://tcp/a23456789012345678901234567890123456789012345678901234567890123456789:4420/nqn.a",
		  "too long");
	/* port */
	parse_bad("nvmf://tcp/127.0.0.1/nqn.a", "missing ':PORT'");
	parse_bad("nvmf://tcp/[::1]/nqn.a", "missing ':PORT'");
	parse_bad("nvmf://tcp/127.0.0.1:/nqn.a", "missing port");
	parse_bad("nvmf://tcp/127.0.0.1:0/nqn.a", "port '0' is out of range; use 1 to 65535");
	parse_bad("nvmf://tcp/127.0.0.1:65536/nqn.a", "port '65536' is out of range");
	parse_bad("nvmf://tcp/127.0.0.1:99999999999999999999/nqn.a", "out of range");
	parse_bad("nvmf://tcp/127.0.0.1:-1/nqn.a", "port '-1' is not a number");
	parse_bad("nvmf://tcp/127.0.0.1:44x/nqn.a", "port '44x' is not a number");
	/* NQN */
	parse_bad("nvmf://tcp/127.0.0.1:4420", "missing '/SUBSYSNQN'");
	parse_bad("nvmf://tcp/127.0.0.1:4420/", "missing subsystem NQN");
	parse_bad("nvmf://tcp/127.0.0.1:4420/cold0", "must start with \"nqn.\"");
	parse_bad("nvmf://tcp/127.0.0.1:4420/NQN.a", "must start with \"nqn.\"");
	parse_bad("nvmf://tcp/127.0.0.1:4420/nqn.", "must start with \"nqn.\"");
	parse_bad("nvmf://tcp/127.0.0.1:4420/nqn.a b", "a blank");
	parse_bad("nvmf://tcp/127.0.0.1:4420/nqn.a,b", "','");
	parse_bad("nvmf://tcp/127.0.0.1:4420/nqn.a\tb", "control character");

	/* NQN length: 223 bytes fit (224 with the NUL), 224 do not. */
	memset(nqn, 'x', sizeof(nqn));
	memcpy(nqn, "nqn.", 4);
	nqn[223] = '\0';
	snprintf(uri, sizeof(uri), "nvmf://tcp/127.0.0.1:4420/%s", nqn);
	parse_ok(uri, "tcp", "127.0.0.1", "4420", nqn);
	nqn[223] = 'x';
	nqn[224] = '\0';
	snprintf(uri, sizeof(uri), "nvmf://tcp/127.0.0.1:4420/%s", nqn);
	parse_bad(uri, "subsystem NQN is 224 bytes; NVMe allows at most 223");
}

static void test_is_uri(void **state)
{
	assert_true(tl_nvmf_is_uri("nvmf://tcp/1.2.3.4:1/nqn.a"));
	assert_true(tl_nvmf_is_uri("NVMF://x"));
	assert_false(tl_nvmf_is_uri("/dev/nvme0n1"));
	assert_false(tl_nvmf_is_uri("nvmf:/x"));
	assert_false(tl_nvmf_is_uri(""));
	assert_false(tl_nvmf_is_uri(NULL));
}

static void round_trip(const char *in, const char *canonical)
{
	struct tl_nvmf_uri u, v;
	struct tl_err err = { "" };
	char buf[512];
	int len;

	assert_int_equal(tl_nvmf_parse_uri(in, &u, &err), TL_OK);
	len = tl_nvmf_format_uri(&u, buf, sizeof(buf));
	assert_int_equal(len, (int)strlen(canonical));
	assert_string_equal(buf, canonical);
	assert_int_equal(tl_nvmf_parse_uri(buf, &v, &err), TL_OK);
	assert_memory_equal(&u, &v, sizeof(u));
	assert_true(tl_nvmf_same_target(&u, &v));
}

static void test_format_round_trip(void **state)
{
	struct tl_nvmf_uri u;
	char small[16];

	round_trip("nvmf://tcp/127.0.0.1:4420/nqn.2024-01.io.dm-tier:cold0",
		   "nvmf://tcp/127.0.0.1:4420/nqn.2024-01.io.dm-tier:cold0");
	round_trip("NVMF://RDMA/10.1.2.3:04421/nqn.a",
		   "nvmf://rdma/10.1.2.3:4421/nqn.a");
	round_trip("nvmf://tcp/[0:0::1]:4420/nqn.a", "nvmf://tcp/[::1]:4420/nqn.a");
	round_trip("nvmf://tcp/[fe80::1%eth0]:4420/nqn.a",
		   "nvmf://tcp/[fe80::1%eth0]:4420/nqn.a");
	round_trip("nvmf://tcp/storage.example.com:4420/nqn.a",
		   "nvmf://tcp/storage.example.com:4420/nqn.a");
	/* snprintf-like: the length needed, truncated output. */
	assert_int_equal(tl_nvmf_parse_uri("nvmf://tcp/127.0.0.1:4420/nqn.a",
					   &u, NULL), TL_OK);
	assert_int_equal(tl_nvmf_format_uri(&u, small, sizeof(small)),
			 (int)strlen("nvmf://tcp/127.0.0.1:4420/nqn.a"));
	assert_string_equal(small, "nvmf://tcp/127.");
}

static void test_same_target(void **state)
{
	struct tl_nvmf_uri a, b;

	assert_int_equal(tl_nvmf_parse_uri("nvmf://tcp/127.0.0.1:4420/nqn.a", &a, NULL), TL_OK);
	assert_int_equal(tl_nvmf_parse_uri("nvmf://tcp/127.0.0.1:4420/nqn.a", &b, NULL), TL_OK);
	assert_true(tl_nvmf_same_target(&a, &b));
	assert_int_equal(tl_nvmf_parse_uri("nvmf://tcp/127.0.0.1:4421/nqn.a", &b, NULL), TL_OK);
	assert_false(tl_nvmf_same_target(&a, &b));
	assert_int_equal(tl_nvmf_parse_uri("nvmf://tcp/127.0.0.1:4420/nqn.b", &b, NULL), TL_OK);
	assert_false(tl_nvmf_same_target(&a, &b));
	assert_int_equal(tl_nvmf_parse_uri("nvmf://rdma/127.0.0.1:4420/nqn.a", &b, NULL), TL_OK);
	assert_false(tl_nvmf_same_target(&a, &b));
	assert_int_equal(tl_nvmf_parse_uri("nvmf://tcp/127.0.0.2:4420/nqn.a", &b, NULL), TL_OK);
	assert_false(tl_nvmf_same_target(&a, &b));
	/* The same IPv6 address written two ways. */
	assert_int_equal(tl_nvmf_parse_uri("nvmf://tcp/[::1]:4420/nqn.a", &a, NULL), TL_OK);
	assert_int_equal(tl_nvmf_parse_uri("nvmf://tcp/[0::0:1]:4420/nqn.a", &b, NULL), TL_OK);
	assert_true(tl_nvmf_same_target(&a, &b));
}

/* ---- options ---- */

static void test_opts(void **state)
{
	struct tl_nvmf_opts o;
	struct tl_err err = { "" };
	int v = 42;

	tl_nvmf_opts_default(&o);
	assert_int_equal(o.ctrl_loss_tmo, 600);
	assert_int_equal(o.reconnect_delay, 2);
	assert_int_equal(o.fast_io_fail_tmo, 5);

	assert_int_equal(tl_nvmf_parse_ctrl_loss_tmo("-1", &v, &err), TL_OK);
	assert_int_equal(v, -1);
	assert_int_equal(tl_nvmf_parse_ctrl_loss_tmo("0", &v, &err), TL_OK);
	assert_int_equal(v, 0);
	assert_int_equal(tl_nvmf_parse_ctrl_loss_tmo("3600", &v, &err), TL_OK);
	assert_int_equal(v, 3600);
	assert_int_equal(tl_nvmf_parse_ctrl_loss_tmo("-2", &v, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "--ctrl-loss-tmo '-2'"));
	assert_int_equal(tl_nvmf_parse_ctrl_loss_tmo("10s", &v, &err), TL_USAGE);
	assert_int_equal(tl_nvmf_parse_ctrl_loss_tmo("", &v, &err), TL_USAGE);
	assert_int_equal(tl_nvmf_parse_ctrl_loss_tmo("99999999999", &v, &err), TL_USAGE);
	assert_int_equal(v, 3600);

	assert_int_equal(tl_nvmf_parse_reconnect_delay("1", &v, &err), TL_OK);
	assert_int_equal(v, 1);
	assert_int_equal(tl_nvmf_parse_reconnect_delay("0", &v, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "--reconnect-delay '0'"));
	assert_int_equal(tl_nvmf_parse_reconnect_delay("-1", &v, &err), TL_USAGE);
	assert_int_equal(v, 1);

	assert_int_equal(tl_nvmf_parse_fast_io_fail_tmo("-1", &v, &err), TL_OK);
	assert_int_equal(v, -1);
	assert_int_equal(tl_nvmf_parse_fast_io_fail_tmo("1", &v, &err), TL_OK);
	assert_int_equal(v, 1);
	assert_int_equal(tl_nvmf_parse_fast_io_fail_tmo("30", &v, &err), TL_OK);
	assert_int_equal(v, 30);
	/* libnvme cannot pass 0. */
	assert_int_equal(tl_nvmf_parse_fast_io_fail_tmo("0", &v, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "--fast-io-fail-tmo '0': give whole seconds, 1 or more, or -1 (off)"));
	assert_int_equal(tl_nvmf_parse_fast_io_fail_tmo("-2", &v, &err), TL_USAGE);
	assert_int_equal(tl_nvmf_parse_fast_io_fail_tmo("5s", &v, &err), TL_USAGE);
	assert_int_equal(tl_nvmf_parse_fast_io_fail_tmo(NULL, &v, &err), TL_USAGE);
	assert_int_equal(v, 30);
}

/* The options together, and what reaches libnvme. */
static void test_opts_check(void **state)
{
	struct tl_nvmf_opts o;
	struct tl_err err = { "" };

	(void)state;
	tl_nvmf_opts_default(&o);
	assert_int_equal(tl_nvmf_opts_check(&o, &err), TL_OK);
	assert_int_equal(tl_nvmf_fast_io_fail_arg(&o), 5);
	/* Reconnect forever: any fast_io_fail_tmo. */
	o.ctrl_loss_tmo = -1;
	o.fast_io_fail_tmo = 3600;
	assert_int_equal(tl_nvmf_opts_check(&o, &err), TL_OK);
	assert_int_equal(tl_nvmf_fast_io_fail_arg(&o), 3600);
	/* Off: left out (the kernel's default). */
	o.fast_io_fail_tmo = -1;
	assert_int_equal(tl_nvmf_fast_io_fail_arg(&o), 0);
	o.ctrl_loss_tmo = 5;
	assert_int_equal(tl_nvmf_opts_check(&o, &err), TL_OK);
	/* Not shorter than ctrl_loss_tmo. */
	o.fast_io_fail_tmo = 5;
	assert_int_equal(tl_nvmf_opts_check(&o, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "fast_io_fail_tmo 5 s is not shorter than ctrl_loss_tmo 5 s"));
	assert_int_equal(tl_nvmf_fast_io_fail_arg(&o), 0);
	o.fast_io_fail_tmo = 4;
	assert_int_equal(tl_nvmf_opts_check(&o, &err), TL_OK);
	assert_int_equal(tl_nvmf_fast_io_fail_arg(&o), 4);
	/* The kernel would give up before the first reconnect. */
	o.ctrl_loss_tmo = 1;
	o.reconnect_delay = 2;
	o.fast_io_fail_tmo = -1;
	assert_int_equal(tl_nvmf_opts_check(&o, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "ctrl_loss_tmo 1 s is shorter than reconnect_delay 2 s"));
	/* 0 as well. */
	o.ctrl_loss_tmo = 0;
	assert_int_equal(tl_nvmf_opts_check(&o, &err), TL_USAGE);
}

/* ---- the record ---- */

static char state_dir[256];

static int record_setup(void **state)
{
	snprintf(state_dir, sizeof(state_dir), "/tmp/dmt-nvmf-XXXXXX");
	if (!mkdtemp(state_dir))
		return -1;
	/* A directory that does not exist yet: add creates it. */
	strcat(state_dir, "/state");
	setenv("TIER_STATE_DIR", state_dir, 1);
	return 0;
}

static int record_teardown(void **state)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%.*s'", (int)(strlen(state_dir) - 6),
		 state_dir);
	unsetenv("TIER_STATE_DIR");
	return system(cmd) ? -1 : 0;
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Lines of the record that are not comments, joined by '|'. */
static const char *entries_of(const char *path)
{
	static char out[8192];
	char *text = slurp(path), *line, *save = NULL;

	out[0] = '\0';
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		if (out[0])
			strcat(out, "|");
		strcat(out, line);
	}
	return out;
}

static void test_record_path(void **state)
{
	char want[300];

	snprintf(want, sizeof(want), "%s/nvmf.conf", state_dir);
	assert_string_equal(tl_nvmf_record_path(), want);
	unsetenv("TIER_STATE_DIR");
	assert_string_equal(tl_nvmf_record_path(), "/etc/dm-tier/nvmf.conf");
	setenv("TIER_STATE_DIR", "", 1);
	assert_string_equal(tl_nvmf_record_path(), "/etc/dm-tier/nvmf.conf");
	setenv("TIER_STATE_DIR", state_dir, 1);
}

static void test_record_add_update_del(void **state)
{
	struct tl_nvmf_uri a, b, a_v6;
	struct tl_nvmf_opts o;
	struct tl_nvmf_record rec;
	struct tl_err err = { "" };
	const char *path = tl_nvmf_record_path();
	struct stat st;
	char tmpl[300];

	assert_int_equal(tl_nvmf_parse_uri("nvmf://tcp/127.0.0.1:4420/nqn.2024-01.io.dm-tier:cold0", &a, NULL), TL_OK);
	assert_int_equal(tl_nvmf_parse_uri("nvmf://tcp/[::1]:4421/nqn.2024-01.io.dm-tier:cold1", &b, NULL), TL_OK);

	/* No file: an empty record; deleting from it changes nothing. */
	assert_int_equal(tl_nvmf_record_load(&rec, &err), TL_OK);
	assert_int_equal(rec.nr, 0);
	assert_int_equal(rec.nr_bad, 0);
	tl_nvmf_record_free(&rec);
	assert_int_equal(tl_nvmf_record_del(&a, &err), TL_OK);
	assert_int_equal(stat(path, &st), -1);

	tl_nvmf_opts_default(&o);
	assert_int_equal(tl_nvmf_record_add(&a, &o, &err), TL_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_string_equal(entries_of(path),
			    "nvmf://tcp/127.0.0.1:4420/nqn.2024-01.io.dm-tier:cold0 ctrl_loss_tmo=600 reconnect_delay=2 fast_io_fail_tmo=5");
	/* A header says what the file is. */
	assert_int_equal(slurp(path)[0], '#');

	o.ctrl_loss_tmo = -1;
	o.reconnect_delay = 5;
	assert_int_equal(tl_nvmf_record_add(&b, &o, &err), TL_OK);
	assert_string_equal(entries_of(path),
			    "nvmf://tcp/127.0.0.1:4420/nqn.2024-01.io.dm-tier:cold0 ctrl_loss_tmo=600 reconnect_delay=2 fast_io_fail_tmo=5|"
			    "nvmf://tcp/[::1]:4421/nqn.2024-01.io.dm-tier:cold1 ctrl_loss_tmo=-1 reconnect_delay=5 fast_io_fail_tmo=5");

	/* Adding again updates the options in place: still one line each. */
	o.ctrl_loss_tmo = 30;
	o.reconnect_delay = 1;
	assert_int_equal(tl_nvmf_record_add(&a, &o, &err), TL_OK);
	assert_string_equal(entries_of(path),
			    "nvmf://tcp/127.0.0.1:4420/nqn.2024-01.io.dm-tier:cold0 ctrl_loss_tmo=30 reconnect_delay=1 fast_io_fail_tmo=5|"
			    "nvmf://tcp/[::1]:4421/nqn.2024-01.io.dm-tier:cold1 ctrl_loss_tmo=-1 reconnect_delay=5 fast_io_fail_tmo=5");

	assert_int_equal(tl_nvmf_record_load(&rec, &err), TL_OK);
	assert_int_equal(rec.nr, 2);
	assert_int_equal(rec.nr_bad, 0);
	assert_true(tl_nvmf_same_target(&rec.entry[0].uri, &a));
	assert_int_equal(rec.entry[0].opts.ctrl_loss_tmo, 30);
	assert_int_equal(rec.entry[0].opts.reconnect_delay, 1);
	assert_true(tl_nvmf_same_target(&rec.entry[1].uri, &b));
	assert_int_equal(rec.entry[1].opts.ctrl_loss_tmo, -1);
	assert_int_equal(rec.entry[1].opts.reconnect_delay, 5);
	tl_nvmf_record_free(&rec);

	/* Deleting matches the target, however its address is written. */
	assert_int_equal(tl_nvmf_parse_uri("nvmf://tcp/[0::1]:4421/nqn.2024-01.io.dm-tier:cold1", &a_v6, NULL), TL_OK);
	assert_int_equal(tl_nvmf_record_del(&a_v6, &err), TL_OK);
	assert_string_equal(entries_of(path),
			    "nvmf://tcp/127.0.0.1:4420/nqn.2024-01.io.dm-tier:cold0 ctrl_loss_tmo=30 reconnect_delay=1 fast_io_fail_tmo=5");
	assert_int_equal(tl_nvmf_record_del(&a, &err), TL_OK);
	assert_string_equal(entries_of(path), "");
	assert_string_equal(err.msg, "");

	/* No temporary file left behind. */
	snprintf(tmpl, sizeof(tmpl), "ls %s | grep -qv '^nvmf.conf$'", state_dir);
	assert_int_not_equal(system(tmpl), 0);
}

static void test_record_malformed(void **state)
{
	struct tl_nvmf_record rec;
	struct tl_err err = { "" };
	struct tl_nvmf_uri c;
	struct tl_nvmf_opts o;
	const char *path = tl_nvmf_record_path();
	char want[400];

	mkdir(state_dir, 0755);
	put(path,
	    "# hand-written\n"
	    "\n"
	    "nvmf://tcp/127.0.0.1:4420/nqn.a\n"
	    "nvmf://tcp/127.0.0.1:0/nqn.b ctrl_loss_tmo=5\n"
	    "   nvmf://tcp/127.0.0.1:4420/nqn.c reconnect_delay=3 ctrl_loss_tmo=-1  \n"
	    "nvmf://tcp/127.0.0.1:4420/nqn.d ctrl_loss_tmo=x\n"
	    "nvmf://tcp/127.0.0.1:4420/nqn.e color=blue\n"
	    "nvmf://tcp/127.0.0.1:4420/nqn.f reconnect_delay=1 reconnect_delay=2\n"
	    "nvmf://tcp/127.0.0.1:4420/nqn.g reconnect_delay=0\n"
	    "nvmf://tcp/127.0.0.1:4420/nqn.h fast_io_fail_tmo=-1 ctrl_loss_tmo=20\n"
	    "nvmf://tcp/127.0.0.1:4420/nqn.i fast_io_fail_tmo=0\n");
	assert_int_equal(tl_nvmf_record_load(&rec, &err), TL_OK);
	assert_int_equal(rec.nr, 3);
	assert_int_equal(rec.nr_bad, 6);
	assert_string_equal(rec.entry[0].uri.subsysnqn, "nqn.a");
	assert_int_equal(rec.entry[0].opts.ctrl_loss_tmo, 600);
	assert_int_equal(rec.entry[0].opts.reconnect_delay, 2);
	/* Absent (a record of an older tierctl): the default. */
	assert_int_equal(rec.entry[0].opts.fast_io_fail_tmo, 5);
	assert_string_equal(rec.entry[2].uri.subsysnqn, "nqn.h");
	assert_int_equal(rec.entry[2].opts.fast_io_fail_tmo, -1);
	assert_int_equal(rec.entry[2].opts.ctrl_loss_tmo, 20);
	assert_string_equal(rec.entry[1].uri.subsysnqn, "nqn.c");
	assert_int_equal(rec.entry[1].opts.ctrl_loss_tmo, -1);
	assert_int_equal(rec.entry[1].opts.reconnect_delay, 3);
	tl_nvmf_record_free(&rec);
	/* Each bad line named as FILE:LINE with the reason. */
	snprintf(want, sizeof(want), "%s:4: nvmf://tcp/127.0.0.1:0/nqn.b: port '0'", path);
	assert_non_null(strstr(err.msg, want));
	snprintf(want, sizeof(want), "%s:6: ctrl_loss_tmo 'x'", path);
	assert_non_null(strstr(err.msg, want));
	snprintf(want, sizeof(want), "%s:7: unexpected 'color=blue'", path);
	assert_non_null(strstr(err.msg, want));
	snprintf(want, sizeof(want), "%s:8: unexpected 'reconnect_delay=2'", path);
	assert_non_null(strstr(err.msg, want));
	snprintf(want, sizeof(want), "%s:9: reconnect_delay '0'", path);
	assert_non_null(strstr(err.msg, want));
	snprintf(want, sizeof(want), "%s:11: fast_io_fail_tmo '0'", path);
	assert_non_null(strstr(err.msg, want));

	/* Rewriting keeps what it does not understand, and comments. */
	assert_int_equal(tl_nvmf_parse_uri("nvmf://tcp/127.0.0.1:4420/nqn.c", &c, NULL), TL_OK);
	tl_nvmf_opts_default(&o);
	assert_int_equal(tl_nvmf_record_add(&c, &o, &err), TL_OK);
	assert_string_equal(slurp(path),
			    "# hand-written\n"
			    "\n"
			    "nvmf://tcp/127.0.0.1:4420/nqn.a\n"
			    "nvmf://tcp/127.0.0.1:0/nqn.b ctrl_loss_tmo=5\n"
			    "nvmf://tcp/127.0.0.1:4420/nqn.c ctrl_loss_tmo=600 reconnect_delay=2 fast_io_fail_tmo=5\n"
			    "nvmf://tcp/127.0.0.1:4420/nqn.d ctrl_loss_tmo=x\n"
			    "nvmf://tcp/127.0.0.1:4420/nqn.e color=blue\n"
			    "nvmf://tcp/127.0.0.1:4420/nqn.f reconnect_delay=1 reconnect_delay=2\n"
			    "nvmf://tcp/127.0.0.1:4420/nqn.g reconnect_delay=0\n"
			    "nvmf://tcp/127.0.0.1:4420/nqn.h fast_io_fail_tmo=-1 ctrl_loss_tmo=20\n"
			    "nvmf://tcp/127.0.0.1:4420/nqn.i fast_io_fail_tmo=0\n");
	unlink(path);
}

static void test_record_line(void **state)
{
	struct tl_nvmf_entry e;
	struct tl_err err = { "" };
	char buf[512];

	assert_int_equal(tl_nvmf_record_parse_line("", &e, &err), 1);
	assert_int_equal(tl_nvmf_record_parse_line("   ", &e, &err), 1);
	assert_int_equal(tl_nvmf_record_parse_line("# c", &e, &err), 1);
	assert_int_equal(tl_nvmf_record_parse_line("\t# c", &e, &err), 1);
	assert_int_equal(tl_nvmf_record_parse_line("nvmf://tcp/[::1]:4420/nqn.x reconnect_delay=7",
						   &e, &err), TL_OK);
	assert_int_equal(e.opts.ctrl_loss_tmo, 600);
	assert_int_equal(e.opts.reconnect_delay, 7);
	tl_nvmf_record_format_line(&e, buf, sizeof(buf));
	assert_string_equal(buf, "nvmf://tcp/[::1]:4420/nqn.x ctrl_loss_tmo=600 reconnect_delay=7 fast_io_fail_tmo=5");
	assert_int_equal(tl_nvmf_record_parse_line("nvmf://tcp/[::1]:4420/nqn.x fast_io_fail_tmo=12",
						   &e, &err), TL_OK);
	assert_int_equal(e.opts.fast_io_fail_tmo, 12);
	tl_nvmf_record_format_line(&e, buf, sizeof(buf));
	assert_string_equal(buf, "nvmf://tcp/[::1]:4420/nqn.x ctrl_loss_tmo=600 reconnect_delay=2 fast_io_fail_tmo=12");
	assert_int_equal(tl_nvmf_record_parse_line("/dev/nvme1n1", &e, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "not an nvmf:// URI"));
}

/* A record whose file cannot be read fails; one that only has malformed
 * lines counts them as failures without connecting anything. */
static void test_connect_recorded_bad_lines(void **state)
{
	struct tl_err err = { "" };
	const char *path = tl_nvmf_record_path();

	mkdir(state_dir, 0755);
	put(path, "# nothing but mistakes\nnvmf://tcp/127.0.0.1:4420/cold\nbogus\n");
	assert_int_equal(tl_nvmf_connect_recorded(&err), 2);
	assert_non_null(strstr(err.msg, ":2: "));
	assert_non_null(strstr(err.msg, ":3: "));
	unlink(path);
	err.msg[0] = '\0';
	assert_int_equal(tl_nvmf_connect_recorded(&err), 0);
	assert_string_equal(err.msg, "");
	if (geteuid()) {
		put(path, "nvmf://tcp/127.0.0.1:4420/nqn.a\n");
		chmod(path, 0);
		assert_int_equal(tl_nvmf_connect_recorded(&err), 1);
		assert_non_null(strstr(err.msg, "cannot read"));
		unlink(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_is_uri),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_same_target),
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_opts_check),
		cmocka_unit_test_setup_teardown(test_record_path, record_setup,
						record_teardown),
		cmocka_unit_test_setup_teardown(test_record_add_update_del,
						record_setup, record_teardown),
		cmocka_unit_test_setup_teardown(test_record_malformed,
						record_setup, record_teardown),
		cmocka_unit_test(test_record_line),
		cmocka_unit_test_setup_teardown(test_connect_recorded_bad_lines,
						record_setup, record_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
