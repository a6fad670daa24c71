// SPDX-License-Identifier: GPL-2.0
/* Unit tests for the stages of "tierctl create" (user/tierctl/cmd-create.c)
 * that run without a kernel or a block device: the command line
 * (create_parse), the checks against the host (create_preflight), no remote
 * tier to connect, and the member devices' first checks
 * (create_preflight_devices on paths that are not block devices), and the
 * name check against the labels on other devices (create_name_clash).
 * Formatting and activation need devices and the module: VM tests 011 and
 * 043. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd-create.h"
#include "tl-group.h"

#define MAX_ARGS 40

/* create_parse() on "create ARG...", the list ending with NULL. The strings
 * are literals, so @cc's pointers into them stay valid. */
static int parse(struct create_cmd *cc, struct tl_err *err, ...)
{
	static char *argv[MAX_ARGS + 2];
	int argc = 0;
	va_list ap;
	char *a;

	argv[argc++] = "create";
	va_start(ap, err);
	while ((a = va_arg(ap, char *)) && argc <= MAX_ARGS)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	memset(err, 0, sizeof(*err));
	return create_parse(cc, argc, argv, err);
}

static void test_parse_minimal(void **state)
{
	struct tl_err err;
	struct create_cmd cc;

	assert_int_equal(parse(&cc, &err, "fast", "--tier", "/dev/a", NULL),
			 TL_OK);
	assert_string_equal(cc.name, "fast");
	assert_int_equal(cc.nr_tiers, 1);
	assert_string_equal(cc.tier_args[0], "/dev/a");
	assert_int_equal(cc.nr_classes, 0);
	assert_null(cc.meta_arg);
	assert_false(cc.force);
	assert_false(cc.mem.on);
	assert_int_equal(cc.nr_remote, 0);
	assert_false(cc.rt[0].is_remote);
	assert_int_equal(cc.req.extent_shift, TIER_EXTENT_SHIFT_DEF);
	assert_int_equal(cc.req.virt_sectors, 0);
	assert_int_equal(cc.nvmf_opts.ctrl_loss_tmo, 600);
	assert_int_equal(cc.nvmf_opts.reconnect_delay, 2);
	assert_int_equal(cc.nvmf_opts.fast_io_fail_tmo, 5);
}

static void test_parse_every_option(void **state)
{
	struct tl_err err;
	struct create_cmd cc;

	assert_int_equal(parse(&cc, &err, "--tier", "/dev/a", "-t",
			       "nvmf://tcp/10.0.0.1:4420/nqn.2024-01.io.x:c",
			       "--tier", "numa:0:64M", "--class", "nvme",
			       "-c", "auto", "--extent-size", "1M", "--size",
			       "10G", "--metadata-dev", "/dev/m", "--force",
			       "--ctrl-loss-tmo", "-1", "--reconnect-delay",
			       "5", "--fast-io-fail-tmo", "3",
			       "--mem-promote-hits", "4", "big", NULL),
			 TL_OK);
	assert_string_equal(cc.name, "big");
	/* The numa: tier is taken out of the durable tiers. */
	assert_int_equal(cc.nr_tiers, 2);
	assert_string_equal(cc.tier_args[0], "/dev/a");
	assert_true(cc.mem.on);
	assert_int_equal(cc.mem.node, 0);
	assert_int_equal(cc.mem.size_mb, 64);
	assert_int_equal(cc.mem.promote_hits, 4);
	assert_int_equal(cc.nr_classes, 2);
	assert_string_equal(cc.meta_arg, "/dev/m");
	assert_true(cc.force);
	assert_int_equal(cc.nr_remote, 1);
	assert_false(cc.rt[0].is_remote);
	assert_true(cc.rt[1].is_remote);
	assert_string_equal(cc.rt[1].uri.traddr, "10.0.0.1");
	assert_string_equal(cc.rt[1].uri_text,
			    "nvmf://tcp/10.0.0.1:4420/nqn.2024-01.io.x:c");
	assert_int_equal(cc.nvmf_opts.ctrl_loss_tmo, -1);
	assert_int_equal(cc.nvmf_opts.reconnect_delay, 5);
	assert_int_equal(cc.nvmf_opts.fast_io_fail_tmo, 3);
	assert_int_equal(cc.req.extent_shift, 11);	/* 1 MiB in sectors */
	assert_int_equal(cc.req.virt_sectors, 10ULL << 21);
}

/* Each command-line mistake: TL_USAGE, and a message that names it. */
static void test_parse_usage_errors(void **state)
{
	static const struct {
		const char *argv[24];
		const char *says;
	} cases[] = {
		{ { NULL }, "no device NAME given" },
		{ { "x", "y", "--tier", "/dev/a" }, "unexpected argument 'y'" },
		{ { "a/b", "--tier", "/dev/a" }, "invalid device name 'a/b'" },
		{ { "x" }, "no --tier given" },
		{ { "x", "-t", "a", "-t", "b", "-t", "c", "-t", "d", "-t", "e",
		    "-t", "f", "-t", "g", "-t", "h", "-t", "i" },
		  "at most 8 tiers" },
		{ { "x", "--tier", "numa:0:64M" },
		  "the first tier must be a block device" },
		{ { "x", "--tier", "/dev/a", "--mem-promote-hits", "3" },
		  "--mem-promote-hits applies to a memory tier" },
		{ { "x", "--tier", "/dev/a", "--tier", "numa:0:64M",
		    "--mem-promote-hits", "0" },
		  "give a number of reads from 1 to" },
		{ { "x", "--tier", "/dev/a", "--ctrl-loss-tmo", "5" },
		  "apply to nvmf:// tiers; none is given" },
		{ { "x", "--tier", "nvmf://tcp/1.2.3.4:4420/nqn.x",
		    "--reconnect-delay", "0" },
		  "--reconnect-delay '0'" },
		{ { "x", "--tier", "/dev/a", "--fast-io-fail-tmo", "5" },
		  "--fast-io-fail-tmo apply to nvmf:// tiers; none is given" },
		{ { "x", "--tier", "nvmf://tcp/1.2.3.4:4420/nqn.x",
		    "--fast-io-fail-tmo", "0" },
		  "--fast-io-fail-tmo '0'" },
		{ { "x", "--tier", "nvmf://tcp/1.2.3.4:4420/nqn.x",
		    "--ctrl-loss-tmo", "5" },
		  "create: fast_io_fail_tmo 5 s is not shorter than ctrl_loss_tmo 5 s" },
		{ { "x", "--tier", "nvmf://tcp/1.2.3.4:4420/nqn.x",
		    "--ctrl-loss-tmo", "1", "--fast-io-fail-tmo", "-1" },
		  "ctrl_loss_tmo 1 s is shorter than reconnect_delay 2 s" },
		{ { "x", "--tier", "nvmf://tcp/1.2.3.4:4420/nqn.x", "--tier",
		    "nvmf://tcp/1.2.3.4:4420/nqn.x" },
		  "are the same NVMe-oF target" },
		{ { "x", "--tier", "nvmf://tcp/1.2.3.4/nqn.x" },
		  "missing ':PORT'" },
		{ { "x", "--tier", "/dev/a", "--tier", "/dev/b", "--class",
		    "nvme" },
		  "1 --class for 2 --tier devices" },
		{ { "x", "--tier", "/dev/a", "--extent-size", "3K" },
		  "extent size '3K'" },
		{ { "x", "--tier", "/dev/a", "--size", "1Q" },
		  "invalid size '1Q'" },
		{ { "x", "--tier", "" }, "--tier needs a block device" },
	};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *argv[26] = { "create" };
		struct tl_err err = { "" };
		struct create_cmd cc;

		for (j = 0; cases[i].argv[j]; j++)
			argv[j + 1] = (char *)cases[i].argv[j];
		if (create_parse(&cc, (int)j + 1, argv, &err) != TL_USAGE ||
		    !strstr(err.msg, cases[i].says))
			fail_msg("case %zu: want '%s', got '%s'", i,
				 cases[i].says, err.msg);
	}
}

/* getopt's own complaints are printed by next_opt(): nothing in @err. */
static void test_parse_getopt_errors(void **state)
{
	struct tl_err err;
	struct create_cmd cc;

	assert_int_equal(parse(&cc, &err, "x", "--bogus", NULL), TL_USAGE);
	assert_string_equal(err.msg, "");
	assert_int_equal(parse(&cc, &err, "x", "--tier", NULL), TL_USAGE);
	assert_string_equal(err.msg, "");
}

static void test_parse_help(void **state)
{
	struct tl_err err;
	struct create_cmd cc;

	assert_int_equal(parse(&cc, &err, "--help", NULL), CREATE_HELP_SHOWN);
	assert_int_equal(parse(&cc, &err, "x", "-h", NULL), CREATE_HELP_SHOWN);
}

static void test_preflight_members(void **state)
{
	struct tl_err err;
	struct create_cmd cc;
	int i;

	assert_int_equal(parse(&cc, &err, "x", "--tier", "/dev/a", "--tier",
			       "nvmf://tcp/10.0.0.1:4420/nqn.x", "--tier",
			       "/dev/c", "--class", "pmem", "--class", "auto",
			       "--class", "auto", "--metadata-dev", "/dev/m",
			       NULL),
			 TL_OK);
	assert_int_equal(create_preflight(&cc, &err), TL_OK);
	assert_int_equal(cc.nr_members, 4);
	assert_string_equal(cc.m[0].arg, "/dev/a");
	assert_string_equal(cc.m[2].arg, "/dev/c");
	assert_string_equal(cc.m[3].arg, "/dev/m");
	assert_ptr_equal(cc.m[3].dev, &cc.req.meta);
	assert_true(cc.req.has_meta);
	assert_int_equal(cc.req.nr_tiers, 3);
	assert_string_equal(cc.req.name, "x");
	assert_int_equal(cc.req.tier[0].tier_class, TIER_CLASS_PMEM);
	/* A tier reached through a URI is remote whatever sysfs says. */
	assert_int_equal(cc.req.tier[1].tier_class, TIER_CLASS_NVMF);
	assert_int_equal(cc.req.tier[2].tier_class, TL_CLASS_AUTO);
	for (i = 0; i < cc.nr_members; i++) {
		assert_ptr_equal(cc.m[i].dev,
				 i < 3 ? &cc.req.tier[i] : &cc.req.meta);
		assert_int_equal(cc.m[i].excl_fd, -1);
		assert_int_equal(cc.m[i].io_fd, -1);
		assert_string_equal(cc.m[i].found, "");
	}
	/* Nothing was opened or connected: undoing is harmless. */
	create_undo(&cc);
}

static void test_preflight_errors(void **state)
{
	struct tl_err err;
	struct create_cmd cc;

	assert_int_equal(parse(&cc, &err, "x", "--tier", "/dev/a", "--class",
			       "fast", NULL),
			 TL_OK);
	assert_int_equal(create_preflight(&cc, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "unknown class 'fast'"));

	/* No machine has NUMA node 999 (the message lists those it has). */
	assert_int_equal(parse(&cc, &err, "x", "--tier", "/dev/a", "--tier",
			       "numa:999:64M", NULL),
			 TL_OK);
	assert_int_not_equal(create_preflight(&cc, &err), TL_OK);
	assert_non_null(strstr(err.msg, "999"));
}

static void test_connect_no_remote_tier(void **state)
{
	struct tl_err err;
	struct create_cmd cc;

	assert_int_equal(parse(&cc, &err, "x", "--tier", "/dev/a", NULL),
			 TL_OK);
	assert_int_equal(create_preflight(&cc, &err), TL_OK);
	assert_int_equal(create_connect_remote(&cc, &err), TL_OK);
	assert_string_equal(cc.m[0].arg, "/dev/a");
	assert_false(cc.rt[0].connected_now);
}

/* Member devices that are not block devices: refused by name, before any
 * is opened; the metadata device is checked after the tiers. */
static void test_preflight_devices_not_block(void **state)
{
	char file[] = "/tmp/test_cmd_create.XXXXXX";
	struct tl_err err;
	struct create_cmd cc;
	int fd = mkstemp(file);

	assert_true(fd >= 0);
	close(fd);

	assert_int_equal(parse(&cc, &err, "x", "--tier",
			       "/nonexistent/dm-tier-test", NULL),
			 TL_OK);
	assert_int_equal(create_preflight(&cc, &err), TL_OK);
	assert_int_equal(create_preflight_devices(&cc, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "/nonexistent/dm-tier-test: no such device"));
	create_undo(&cc);

	assert_int_equal(parse(&cc, &err, "x", "--tier", file, NULL), TL_OK);
	assert_int_equal(create_preflight(&cc, &err), TL_OK);
	assert_int_equal(create_preflight_devices(&cc, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "is not a block device"));
	assert_non_null(strstr(err.msg, file));
	create_undo(&cc);

	assert_int_equal(parse(&cc, &err, "x", "--tier", "/dev/null",
			       "--metadata-dev", file, NULL),
			 TL_OK);
	assert_int_equal(create_preflight(&cc, &err), TL_OK);
	assert_int_equal(create_preflight_devices(&cc, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "/dev/null is not a block device"));
	create_undo(&cc);

	unlink(file);
}

/* A member of device @name (uuid bytes @u), tier @idx of 2, at @path, 8:@min. */
static void add_label(struct tl_groups *gs, const char *name, u8 u, u32 idx,
		      const char *path, unsigned int min)
{
	static u8 blk[TIER_BLOCK_SIZE];
	struct tl_create_req req;
	struct tier_fresh f;
	struct tl_member m;
	struct tier_label l;

	memset(&req, 0, sizeof(req));
	req.name = name;
	req.nr_tiers = 2;
	req.extent_shift = TIER_EXTENT_SHIFT_DEF;
	req.tier[0].sectors = req.tier[1].sectors = 64 * 2048;
	req.ctime = 1700000000;
	assert_int_equal(tl_create_plan(&req, &f, NULL), TL_OK);
	memset(f.uuid, u, TIER_UUID_LEN);
	tier_fresh_label(&f, idx, &l);
	tier_label_encode(&l, blk);
	memset(&m, 0, sizeof(m));
	assert_int_equal(tier_label_decode(blk, &m.label, NULL), 0);
	snprintf(m.path, sizeof(m.path), "%s", path);
	m.maj = 8;
	m.min = min;
	assert_int_equal(tl_groups_add(gs, &m), 0);
}

/*
 * "create ckpt" on sda and sdb while sdc carries a label of another
 * device called ckpt (not active: an old disk, or one moved from another
 * host): activate could not tell the two apart, so create refuses and
 * names sdc; --force creates it with a warning. Labels on the create's own
 * devices, and of other names, are no clash.
 */
static void test_name_clash(void **state)
{
	struct tl_groups gs;
	struct tl_err err;
	struct create_cmd cc;

	(void)state;
	assert_int_equal(parse(&cc, &err, "ckpt", "--tier", "/dev/sda",
			       "--tier", "/dev/sdb", NULL),
			 TL_OK);
	assert_int_equal(create_preflight(&cc, &err), TL_OK);
	cc.m[0].dev->maj = cc.m[1].dev->maj = 8;
	cc.m[0].dev->min = 0;
	cc.m[1].dev->min = 16;
	tl_groups_init(&gs);

	/* Nothing else named ckpt: the old ckpt on sda itself, another name. */
	add_label(&gs, "ckpt", 0x11, 0, "/dev/sda", 0);
	add_label(&gs, "scratch", 0x22, 0, "/dev/sdd", 48);
	assert_int_equal(create_name_clash(&cc, &gs, &err), TL_OK);
	assert_string_equal(err.msg, "");

	/* Tier 1 of that old ckpt is still on sdc. */
	add_label(&gs, "ckpt", 0x11, 1, "/dev/sdc", 32);
	assert_int_equal(create_name_clash(&cc, &gs, &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "'ckpt' is already the name of a dm-tier device on other devices: /dev/sdc (tier 1, uuid 11111111111111111111111111111111)"));
	assert_non_null(strstr(err.msg, "cannot tell which is /dev/mapper/ckpt and refuses both"));
	assert_non_null(strstr(err.msg, "include that device in this create"));
	assert_non_null(strstr(err.msg, "--force creates it anyway"));
	assert_null(strstr(err.msg, "/dev/sda"));

	/* --force: created, and warned about. */
	err.msg[0] = '\0';
	cc.force = true;
	assert_int_equal(create_name_clash(&cc, &gs, &err), TL_OK);
	assert_non_null(strstr(err.msg, "'ckpt' is also the name of a dm-tier device on /dev/sdc"));
	assert_non_null(strstr(err.msg, "refuses both devices of that name"));
	tl_groups_free(&gs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_minimal),
		cmocka_unit_test(test_parse_every_option),
		cmocka_unit_test(test_parse_usage_errors),
		cmocka_unit_test(test_parse_getopt_errors),
		cmocka_unit_test(test_parse_help),
		cmocka_unit_test(test_preflight_members),
		cmocka_unit_test(test_preflight_errors),
		cmocka_unit_test(test_connect_no_remote_tier),
		cmocka_unit_test(test_preflight_devices_not_block),
		cmocka_unit_test(test_name_clash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
