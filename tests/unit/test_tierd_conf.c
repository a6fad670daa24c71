// SPDX-License-Identifier: GPL-2.0
/* Unit tests for user/tierd/tl-conf.c: tierd's configuration files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/dm-tier.h>

#include "table.h"
#include "tl-conf.h"

#define HW (DM_TIER_A_POLICY_HIGH_WATERMARK - 1)
#define LW (DM_TIER_A_POLICY_LOW_WATERMARK - 1)
#define DD (DM_TIER_A_POLICY_DRAIN_DEADLINE - 1)
#define MI (DM_TIER_A_POLICY_MIGRATION_INFLIGHT - 1)

/* Parse @text as file "t.conf" plus the cross-file checks; errors in @e. */
static int parse(struct tl_conf *c, struct tl_conf_errors *e, const char *text)
{
	int n;

	tl_conf_init(c);
	memset(e, 0, sizeof(*e));
	n = tl_conf_parse_text(c, "t.conf", text, e);
	return n + tl_conf_finish(c, e);
}

/* @text has exactly one problem, reported as @want. */
static void expect_error(const char *text, const char *want)
{
	struct tl_conf c;
	struct tl_conf_errors e;
	int n = parse(&c, &e, text);

	if (n != 1 || e.nr != 1 || strcmp(e.lines[0], want)) {
		size_t i;

		print_error("for:\n%s\nwant: %s\ngot %d error(s):\n", text, want, n);
		for (i = 0; i < e.nr; i++)
			print_error("  %s\n", e.lines[i]);
		fail();
	}
	tl_conf_errors_free(&e);
	tl_conf_free(&c);
}

static void test_example(void **state)
{
	struct tl_conf c;
	struct tl_conf_errors e;
	const struct tl_conf_dev *d;

	(void)state;
	assert_int_equal(parse(&c, &e,
			       "# tierd\n"
			       "[global]\n"
			       "metrics_textfile = /var/lib/prometheus/node-exporter/dm-tier.prom   # off if unset\n"
			       "metrics_interval = 15\n"
			       "\n"
			       "; another comment\n"
			       "[device ckpt0]\n"
			       "high_watermark = 80\n"
			       "drain_deadline = 600\n"
			       "pin = /mnt/ckpt/model\n"
			       "pin = /mnt/ckpt/tokenizer tier=0\n"
			       "checkpoint_dir = /mnt/ckpt/run1\n"
			       "checkpoint_keep = 2\n"),
			 0);
	assert_int_equal(e.nr, 0);
	assert_string_equal(c.metrics_textfile,
			    "/var/lib/prometheus/node-exporter/dm-tier.prom");
	assert_int_equal(c.metrics_interval, 15);
	assert_int_equal(c.nr_devs, 1);
	d = tl_conf_dev_find(&c, "ckpt0");
	assert_non_null(d);
	assert_null(tl_conf_dev_find(&c, "ckpt1"));
	assert_int_equal(d->policy.set, (1U << HW) | (1U << DD));
	assert_int_equal(d->policy.v[HW], 80);
	assert_int_equal(d->policy.v[DD], 600);
	assert_int_equal(d->policy_at[DD].line, 9);
	assert_int_equal(d->nr_pins, 2);
	assert_string_equal(d->pins[0].path, "/mnt/ckpt/model");
	assert_int_equal(d->pins[0].tier, -1);
	assert_string_equal(d->pins[1].path, "/mnt/ckpt/tokenizer");
	assert_int_equal(d->pins[1].tier, 0);
	assert_int_equal(d->pins[1].at.line, 11);
	assert_string_equal(d->checkpoint_dir, "/mnt/ckpt/run1");
	assert_true(d->has_checkpoint_keep);
	assert_int_equal(d->checkpoint_keep, 2);
	tl_conf_free(&c);

	/* The memory tier: its two settings and pins resident in memory. */
	assert_int_equal(parse(&c, &e,
			       "[device m]\n"
			       "mem_promote_hits = 3\n"
			       "mem-size-mb = 4096\n"
			       "pin = /mnt/ckpt/hot tier=mem\n"),
			 0);
	d = tl_conf_dev_find(&c, "m");
	assert_non_null(d);
	assert_int_equal(d->policy.set,
			 (1U << (DM_TIER_A_POLICY_MEM_PROMOTE_HITS - 1)) |
			 (1U << (DM_TIER_A_POLICY_MEM_SIZE_MB - 1)));
	assert_int_equal(d->policy.v[DM_TIER_A_POLICY_MEM_PROMOTE_HITS - 1], 3);
	assert_int_equal(d->policy.v[DM_TIER_A_POLICY_MEM_SIZE_MB - 1], 4096);
	assert_int_equal(d->nr_pins, 1);
	assert_int_equal(d->pins[0].tier, TL_CONF_TIER_MEM);
	tl_conf_free(&c);

	/* offline_queue_s: a policy key like the others. */
	assert_int_equal(parse(&c, &e, "[device q]\noffline_queue_s = 20\n"),
			 0);
	d = tl_conf_dev_find(&c, "q");
	assert_non_null(d);
	assert_int_equal(d->policy.set,
			 1U << (DM_TIER_A_POLICY_OFFLINE_QUEUE_S - 1));
	assert_int_equal(d->policy.v[DM_TIER_A_POLICY_OFFLINE_QUEUE_S - 1], 20);
	tl_conf_free(&c);
}

static void test_defaults_and_syntax(void **state)
{
	struct tl_conf c;
	struct tl_conf_errors e;
	const struct tl_conf_dev *d;

	(void)state;
	/* CRLF, blanks around '=', '-' spelling, '#' inside a value. */
	assert_int_equal(parse(&c, &e,
			       "[device  a ]\r\n"
			       "  low-watermark=10\r\n"
			       "checkpoint_dir = /mnt/run#1\n"
			       "[device b]"),
			 0);
	assert_null(c.metrics_textfile);
	assert_int_equal(c.metrics_interval, TL_CONF_INTERVAL_DEF);
	d = tl_conf_dev_find(&c, "a");
	assert_non_null(d);
	assert_int_equal(d->policy.set, 1U << LW);
	assert_int_equal(d->policy.v[LW], 10);
	assert_string_equal(d->checkpoint_dir, "/mnt/run#1");
	assert_false(d->has_checkpoint_keep);
	d = tl_conf_dev_find(&c, "b");
	assert_non_null(d);
	assert_int_equal(d->policy.set, 0);
	tl_conf_free(&c);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("[global]\n[frob]\n",
		     "t.conf:2: unknown section [frob] (sections are [global] and [device NAME])");
	expect_error("[devices x]\nhigh_watermark = 70\n",
		     "t.conf:1: unknown section [devices x] (sections are [global] and [device NAME])");
	expect_error("[device x\n",
		     "t.conf:1: malformed section header (write [global] or [device NAME])");
	expect_error("[device x] y\n",
		     "t.conf:1: malformed section header (write [global] or [device NAME])");
	expect_error("[device]\n",
		     "t.conf:1: [device] without a name (write [device NAME], NAME as in dmsetup ls)");
	expect_error("[device a b]\n",
		     "t.conf:1: 'a b' is not a device-mapper name (one word without '/', at most 127 characters)");
	expect_error("high_watermark = 70\n",
		     "t.conf:1: high_watermark outside a section (put it under [global] or [device NAME])");
	expect_error("[device x]\nhigh_watermark 70\n",
		     "t.conf:2: missing '=' in 'high_watermark 70' (write KEY = VALUE)");
	expect_error("[device x]\n= 70\n",
		     "t.conf:2: a value without a key (write KEY = VALUE)");
	expect_error("[device x]\ndrain_deadline =   # later\n",
		     "t.conf:2: drain_deadline has no value (write drain_deadline = VALUE, or remove the line)");
	expect_error("[device x]\nhigh_watermark = 101\n",
		     "t.conf:2: high_watermark = 101: out of range (use 1 to 100)");
	expect_error("[device x]\noffline_queue_s = 601\n",
		     "t.conf:2: offline_queue_s = 601: out of range (use 0 to 600)");
	expect_error("[device x]\nhigh_watermark = 0\n",
		     "t.conf:2: high_watermark = 0: out of range (use 1 to 100)");
	expect_error("[device x]\nmigration_inflight = 99999999999\n",
		     "t.conf:2: migration_inflight = 99999999999: out of range (use 1 to 64)");
	expect_error("[device x]\nhigh_watermark = 8O\n",
		     "t.conf:2: high_watermark = 8O: not a number (write a plain decimal number from 1 to 100)");
	expect_error("[device x]\ndrain_deadline = -5\n",
		     "t.conf:2: drain_deadline = -5: not a number (write a plain decimal number from 0 to 604800)");
	expect_error("[device x]\nhigh_watermrk = 70\n",
		     "t.conf:2: unknown key 'high_watermrk' in [device x] (known: the migration settings auto_migrate ... redirect_writes, mem_promote_hits, mem_size_mb, offline_queue_s, pin, checkpoint_dir, checkpoint_keep, replace_tier; see docs/tierd.md)");
	expect_error("[global]\nmetrics_port = 9\n",
		     "t.conf:2: unknown key 'metrics_port' in [global] (known: metrics_textfile, metrics_interval)");
	expect_error("[global]\nhigh_watermark = 70\n",
		     "t.conf:2: high_watermark belongs in a [device NAME] section, not in [global] (move it)");
	expect_error("[device x]\nmetrics_interval = 5\n",
		     "t.conf:2: metrics_interval belongs in the [global] section, not in [device x] (move it)");
	expect_error("[device x]\nhigh_watermark = 70\nhigh_watermark = 75\n",
		     "t.conf:3: high_watermark is already set on line 2 of this file (keep one of them)");
	expect_error("[global]\nmetrics_interval = 5\nmetrics_interval = 6\n",
		     "t.conf:3: metrics_interval is already set on line 2 of this file (keep one of them)");
	expect_error("[device x]\npin = /a\npin = /a tier=1\n",
		     "t.conf:3: pin of the same path is already set on line 2 of this file (keep one of them)");
	expect_error("[device x]\npin = /a/b tier=fast\n",
		     "t.conf:2: pin /a/b: tier=fast is not a number (write tier=0 for the fastest tier, tier=mem for the memory tier)");
	expect_error("[device x]\npin = /a/b tier=\n",
		     "t.conf:2: pin /a/b: tier= is not a number (write tier=0 for the fastest tier, tier=mem for the memory tier)");
	expect_error("[device x]\npin = /a/b tier=8\n",
		     "t.conf:2: pin /a/b: tier=8 is out of range (tiers are numbered 0 to 7, fastest first)");
	expect_error("[device x]\npin = /a/b tire=1\n",
		     "t.conf:2: pin /a/b: unexpected 'tire=1' after the path (only tier=N or tier=mem may follow; paths cannot contain blanks)");
	expect_error("[device x]\npin = model tier=0\n",
		     "t.conf:2: pin 'model' is not an absolute path (write the full path, starting with '/')");
	expect_error("[device x]\ncheckpoint_dir = run1\n",
		     "t.conf:2: checkpoint_dir 'run1' is not an absolute path (write the full path, starting with '/')");
	expect_error("[device x]\ncheckpoint_keep = 2\n",
		     "t.conf:2: checkpoint_keep without checkpoint_dir for device x (add checkpoint_dir = DIR, or remove checkpoint_keep)");
	expect_error("[device x]\ncheckpoint_dir = /r\ncheckpoint_keep = many\n",
		     "t.conf:3: checkpoint_keep = many: not a number (write how many of the newest checkpoints stay on tier 0, 0 to 10000)");
	expect_error("[device x]\ncheckpoint_dir = /r\ncheckpoint_keep = 10001\n",
		     "t.conf:3: checkpoint_keep = 10001: out of range (use 0 to 10000)");
	expect_error("[global]\nmetrics_textfile = dm-tier.prom\n",
		     "t.conf:2: metrics_textfile 'dm-tier.prom' is not an absolute path (write the full path, starting with '/')");
	expect_error("[global]\nmetrics_interval = 0\n",
		     "t.conf:2: metrics_interval = 0: out of range (use 1 to 86400 seconds)");
	expect_error("[global]\nmetrics_interval = 1m\n",
		     "t.conf:2: metrics_interval = 1m: not a number (write whole seconds, 1 to 86400)");
	expect_error("[device x]\nhigh_watermark = 70\nlow_watermark = 70\n",
		     "t.conf:3: low_watermark 70 is not below high_watermark 70 for device x (lower low_watermark or raise high_watermark)");
	expect_error("[device x]\nlow_watermark = 75\nhigh_watermark = 70\n",
		     "t.conf:3: low_watermark 75 is not below high_watermark 70 for device x (lower low_watermark or raise high_watermark)");
}

/* Every problem is reported, each with its line; keys under a broken
 * header are not reported again. */
static void test_all_errors_reported(void **state)
{
	struct tl_conf c;
	struct tl_conf_errors e;

	(void)state;
	assert_int_equal(parse(&c, &e,
			       "[global]\n"
			       "metrics_interval = 0\n"
			       "[bogus]\n"
			       "whatever = 1\n"
			       "[device x]\n"
			       "high_watermark = 200\n"
			       "promote_window = 0\n"
			       "checkpoint_keep = 3\n"),
			 5);
	assert_int_equal(e.nr, 5);
	assert_true(!strncmp(e.lines[0], "t.conf:2: metrics_interval", 26));
	assert_true(!strncmp(e.lines[1], "t.conf:3: unknown section", 25));
	assert_string_equal(e.lines[2], "t.conf:6: high_watermark = 200: out of range (use 1 to 100)");
	assert_string_equal(e.lines[3], "t.conf:7: promote_window = 0: out of range (use 1 to 604800)");
	assert_string_equal(e.lines[4], "t.conf:8: checkpoint_keep without checkpoint_dir for device x (add checkpoint_dir = DIR, or remove checkpoint_keep)");
	tl_conf_errors_free(&e);
	tl_conf_free(&c);
	/* checkpoint_keep's problem needs every file: tl_conf_finish. */
	tl_conf_init(&c);
	assert_int_equal(tl_conf_parse_text(&c, "u.conf", "[device x]\ncheckpoint_keep = 3\n", &e), 0);
	assert_int_equal(tl_conf_finish(&c, &e), 1);
	assert_string_equal(e.lines[0], "u.conf:2: checkpoint_keep without checkpoint_dir for device x (add checkpoint_dir = DIR, or remove checkpoint_keep)");
	tl_conf_errors_free(&e);
	tl_conf_free(&c);
}

/* A second [device x] in one file adds to the first. */
static void test_duplicate_section_merges(void **state)
{
	struct tl_conf c;
	struct tl_conf_errors e;
	const struct tl_conf_dev *d;

	(void)state;
	assert_int_equal(parse(&c, &e,
			       "[device x]\nhigh_watermark = 90\n"
			       "[device y]\nhigh_watermark = 50\nlow_watermark = 40\n"
			       "[device x]\ndrain_deadline = 30\npin = /p\n"),
			 0);
	assert_int_equal(c.nr_devs, 2);
	d = tl_conf_dev_find(&c, "x");
	assert_int_equal(d->policy.set, (1U << HW) | (1U << DD));
	assert_int_equal(d->policy.v[HW], 90);
	assert_int_equal(d->policy.v[DD], 30);
	assert_int_equal(d->nr_pins, 1);
	d = tl_conf_dev_find(&c, "y");
	assert_int_equal(d->policy.v[HW], 50);
	assert_int_equal(d->policy.v[LW], 40);
	tl_conf_free(&c);
	/* The same key twice in the same device, across the two sections. */
	expect_error("[device x]\nhigh_watermark = 90\n[device x]\nhigh_watermark = 91\n",
		     "t.conf:4: high_watermark is already set on line 2 of this file (keep one of them)");
}

/* Each key's range is the kernel table's, boundary by boundary. */
static void test_policy_ranges(void **state)
{
	struct tier_table t;
	const char *kerr;
	char text[128], v[16];
	struct tl_conf c;
	struct tl_conf_errors e;
	uint32_t min, max;
	int k;

	(void)state;
	for (k = 0; k < TL_NL_POLICY_N; k++) {
		const char *key = tl_conf_policy_names[k];

		assert_int_equal(tl_conf_policy_key(key), k);
		tl_conf_policy_range(k, &min, &max);
		/* The kernel's table takes both ends (other watermark out of
		 * the way) and refuses one past them. */
		tier_table_init(&t);
		t.policy.low_watermark = 0;
		t.policy.high_watermark = 100;
		t.mem_node = 0;	/* mem_size_mb needs a memory tier */
		t.mem_size_mb = 1;
		snprintf(v, sizeof(v), "%u", min);
		assert_int_equal(tier_table_set_opt(&t, key, v, &kerr), 0);
		snprintf(v, sizeof(v), "%u", max);
		assert_int_equal(tier_table_set_opt(&t, key, v, &kerr), 0);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)max + 1);
		assert_int_not_equal(tier_table_set_opt(&t, key, v, &kerr), 0);
		if (min) {
			snprintf(v, sizeof(v), "%u", min - 1);
			assert_int_not_equal(tier_table_set_opt(&t, key, v, &kerr), 0);
		}

		snprintf(text, sizeof(text), "[device d]\n%s = %u\n", key, min);
		assert_int_equal(parse(&c, &e, text), 0);
		assert_int_equal(tl_conf_dev_find(&c, "d")->policy.v[k], min);
		tl_conf_free(&c);
		snprintf(text, sizeof(text), "[device d]\n%s = %u\n", key, max);
		assert_int_equal(parse(&c, &e, text), 0);
		assert_int_equal(tl_conf_dev_find(&c, "d")->policy.v[k], max);
		tl_conf_free(&c);
		snprintf(text, sizeof(text), "[device d]\n%s = %llu\n", key,
			 (unsigned long long)max + 1);
		assert_int_equal(parse(&c, &e, text), 1);
		tl_conf_errors_free(&e);
		tl_conf_free(&c);
		if (min) {
			snprintf(text, sizeof(text), "[device d]\n%s = %u\n", key, min - 1);
			assert_int_equal(parse(&c, &e, text), 1);
			tl_conf_errors_free(&e);
			tl_conf_free(&c);
		}
	}
	assert_int_equal(tl_conf_policy_key("drain-deadline"), DD);
	assert_int_equal(tl_conf_policy_key("metadata_dev"), -1);
	assert_int_equal(tl_conf_policy_key("commit_interval_ms"), -1);
	assert_string_equal(tl_conf_policy_names[MI], "migration_inflight");
}

/* The key of the removed HTTP server: refused, in any section and with any
 * value, with what to do instead; the rest of the file is still checked. */
static void test_listen_removed(void **state)
{
	static const char msg[] =
		"metrics_listen was removed in 0.2: write metrics_textfile = /var/lib/prometheus/node-exporter/dm-tier.prom and let node_exporter's textfile collector serve it";
	struct tl_conf c;
	struct tl_conf_errors e;
	char want[512];

	(void)state;
	snprintf(want, sizeof(want), "t.conf:2: %s", msg);
	expect_error("[global]\nmetrics_listen = 127.0.0.1:9477\n", want);
	expect_error("[device x]\nmetrics_listen = 127.0.0.1:9477\n", want);
	expect_error("[global]\nmetrics_listen =\n", want);
	snprintf(want, sizeof(want), "t.conf:1: %s", msg);
	expect_error("metrics_listen = [::1]:9477\n", want);

	assert_int_equal(parse(&c, &e,
			       "[global]\n"
			       "metrics_textfile = /tmp/dm-tier.prom\n"
			       "metrics_listen = 127.0.0.1:9477\n"
			       "metrics_interval = 99999999\n"),
			 2);
	assert_int_equal(e.nr, 2);
	snprintf(want, sizeof(want), "t.conf:3: %s", msg);
	assert_string_equal(e.lines[0], want);
	assert_string_equal(e.lines[1], "t.conf:4: metrics_interval = 99999999: out of range (use 1 to 86400 seconds)");
	tl_conf_errors_free(&e);
	tl_conf_free(&c);
}

/* ---- files ---- */

static char tmpdir[64];

static void put_file(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int dir_setup(void **state)
{
	char path[256];

	(void)state;
	strcpy(tmpdir, "/tmp/tierd-conf-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/policies.d", tmpdir);
	return mkdir(path, 0755);
}

static int dir_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Main file, then policies.d/[*].conf in name order: later files win,
 * pins accumulate, other names are ignored. */
static void test_merge_order(void **state)
{
	struct tl_conf c;
	struct tl_conf_errors e = { 0 };
	const struct tl_conf_dev *d;
	char want[512];

	(void)state;
	/* Written in reverse order, so that readdir order is not the one. */
	put_file("policies.d/20-b.conf",
		 "[device ck]\nhigh_watermark = 95\npin = /m/a tier=1\npin = /m/c\n");
	put_file("policies.d/10-a.conf",
		 "[device ck]\nhigh_watermark = 85\nlow_watermark = 50\npin = /m/a\npin = /m/b tier=0\n"
		 "[global]\nmetrics_interval = 7\n");
	put_file("policies.d/30-c.conf.disabled", "[device ck]\nhigh_watermark = 1\n");
	put_file("policies.d/.40-hidden.conf", "[device ck]\nhigh_watermark = 2\n");
	put_file("tierd.conf",
		 "[global]\nmetrics_interval = 30\n[device ck]\nhigh_watermark = 70\ndrain_deadline = 60\n");
	tl_conf_init(&c);
	assert_int_equal(tl_conf_load(&c, NULL, tmpdir, &e), 0);
	assert_int_equal(c.nr_files, 3);
	assert_int_equal(c.metrics_interval, 7);
	d = tl_conf_dev_find(&c, "ck");
	assert_non_null(d);
	assert_int_equal(d->policy.v[HW], 95);
	assert_int_equal(d->policy.v[LW], 50);
	assert_int_equal(d->policy.v[DD], 60);
	snprintf(want, sizeof(want), "%s/policies.d/20-b.conf", tmpdir);
	assert_string_equal(d->policy_at[HW].file, want);
	assert_int_equal(d->policy_at[HW].line, 2);
	assert_int_equal(d->nr_pins, 3);
	assert_string_equal(d->pins[0].path, "/m/a");
	assert_int_equal(d->pins[0].tier, 1);
	assert_string_equal(d->pins[1].path, "/m/b");
	assert_int_equal(d->pins[1].tier, 0);
	assert_string_equal(d->pins[2].path, "/m/c");
	assert_int_equal(d->pins[2].tier, -1);
	tl_conf_free(&c);

	/* An error in any file rejects the whole; the message points at the
	 * line that came last and names the other one. */
	put_file("policies.d/15-bad.conf", "[device ck]\nlow_watermark = 96\n");
	tl_conf_init(&c);
	assert_int_equal(tl_conf_load(&c, NULL, tmpdir, &e), 1);
	snprintf(want, sizeof(want),
		 "%s/policies.d/20-b.conf:2: low_watermark 96 is not below high_watermark 95 for device ck (low_watermark is set at %s/policies.d/15-bad.conf:2; lower low_watermark or raise high_watermark)",
		 tmpdir, tmpdir);
	assert_int_equal(e.nr, 1);
	assert_string_equal(e.lines[0], want);
	tl_conf_errors_free(&e);
	tl_conf_free(&c);
	snprintf(want, sizeof(want), "%s/policies.d/15-bad.conf", tmpdir);
	unlink(want);

	/* checkpoint_keep in one file, checkpoint_dir in another: fine. */
	put_file("policies.d/50-keep.conf", "[device ck]\ncheckpoint_keep = 3\n");
	put_file("policies.d/05-dir.conf", "[device ck]\ncheckpoint_dir = /ck\n");
	tl_conf_init(&c);
	assert_int_equal(tl_conf_load(&c, NULL, tmpdir, &e), 0);
	d = tl_conf_dev_find(&c, "ck");
	assert_string_equal(d->checkpoint_dir, "/ck");
	assert_int_equal(d->checkpoint_keep, 3);
	tl_conf_free(&c);
}

/* replace_tier = TIER DEV: tierd runs tierctl replace-tier with them. */
static void test_replace_tier(void **state)
{
	const struct tl_conf_dev *d;
	struct tl_conf_errors e = { 0 };
	struct tl_conf c;

	(void)state;
	assert_int_equal(parse(&c, &e,
			       "[device ckpt]\n"
			       "replace_tier = 1   /dev/disk/by-id/nvme-NEW  # the spare\n"),
			 0);
	d = tl_conf_dev_find(&c, "ckpt");
	assert_non_null(d);
	assert_string_equal(d->replace_dev, "/dev/disk/by-id/nvme-NEW");
	assert_int_equal(d->replace_tier, 1);
	assert_int_equal(d->replace_at.line, 2);
	tl_conf_free(&c);
	/* Not set: nothing to replace. */
	assert_int_equal(parse(&c, &e, "[device ckpt]\nhigh_watermark = 70\n"),
			 0);
	assert_null(tl_conf_dev_find(&c, "ckpt")->replace_dev);
	tl_conf_free(&c);

	expect_error("[device x]\nreplace_tier = 1\n",
		     "t.conf:2: replace_tier = 1: write the tier and the new device, e.g. replace_tier = 1 /dev/disk/by-id/nvme-NEW");
	expect_error("[device x]\nreplace_tier = one /dev/sdc\n",
		     "t.conf:2: replace_tier = one ...: the tier is a number, 0 to 7");
	expect_error("[device x]\nreplace_tier = 8 /dev/sdc\n",
		     "t.conf:2: replace_tier = 8 ...: the tier is a number, 0 to 7");
	expect_error("[device x]\nreplace_tier = 1 sdc\n",
		     "t.conf:2: replace_tier 'sdc' is not an absolute path (write the full path, starting with '/')");
	expect_error("[device x]\nreplace_tier = 1 /dev/sdc /dev/sdd\n",
		     "t.conf:2: replace_tier = 1 /dev/sdc /dev/sdd: one device only (a path without spaces)");
	expect_error("[device x]\nreplace_tier = 1 /dev/sdc\nreplace_tier = 2 /dev/sdd\n",
		     "t.conf:3: replace_tier is already set on line 2 of this file (keep one of them)");
}

static void test_missing_files(void **state)
{
	struct tl_conf c;
	struct tl_conf_errors e = { 0 };
	char main_file[256], want[400];

	(void)state;
	/* No tierd.conf and no policies.d: an empty configuration. */
	tl_conf_init(&c);
	assert_int_equal(tl_conf_load(&c, NULL, "/nonexistent/tierd-test", &e), 0);
	assert_int_equal(c.nr_devs, 0);
	tl_conf_free(&c);
	/* An explicit main file must exist. */
	snprintf(main_file, sizeof(main_file), "%s/nope.conf", tmpdir);
	tl_conf_init(&c);
	assert_int_equal(tl_conf_load(&c, main_file, "/nonexistent/tierd-test", &e), 1);
	snprintf(want, sizeof(want),
		 "%s: cannot open: No such file or directory (check the path and permissions)",
		 main_file);
	assert_string_equal(e.lines[0], want);
	tl_conf_errors_free(&e);
	tl_conf_free(&c);
	/* -c FILE replaces DIR/tierd.conf, policies.d is still read. */
	put_file("other.conf", "[device zz]\nauto_migrate = 0\n");
	snprintf(main_file, sizeof(main_file), "%s/other.conf", tmpdir);
	tl_conf_init(&c);
	assert_int_equal(tl_conf_load(&c, main_file, tmpdir, &e), 0);
	assert_non_null(tl_conf_dev_find(&c, "zz"));
	assert_non_null(tl_conf_dev_find(&c, "ck"));
	tl_conf_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_defaults_and_syntax),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_all_errors_reported),
		cmocka_unit_test(test_duplicate_section_merges),
		cmocka_unit_test(test_policy_ranges),
		cmocka_unit_test(test_listen_removed),
		cmocka_unit_test(test_merge_order),
		cmocka_unit_test(test_missing_files),
		cmocka_unit_test(test_replace_tier),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
