// SPDX-License-Identifier: GPL-2.0
/* Unit tests for "tierctl activate" without a kernel: its command line
 * (activate_parse, user/tierctl/cmd-activate.c) and the device-mapper
 * request it builds (tl_dm_create_mode, user/lib/tl-dm.c), with
 * libdevmapper's calls replaced by recorders: --readonly must load the
 * table read-only (dm_task_set_ro) before the request runs. Which devices
 * it activates (activate_pick): two devices of one name are refused, by
 * name and with --all alike. Activation on real devices: VM tests 011 and
 * 060.
 *
 * unit-ldflags: -Wl,--wrap=dm_task_create,--wrap=dm_task_set_name,--wrap=dm_task_set_uuid,--wrap=dm_task_set_ro,--wrap=dm_task_add_target,--wrap=dm_task_set_cookie,--wrap=dm_task_run,--wrap=dm_udev_wait,--wrap=dm_task_destroy
 */
/* tierctl.h before cmocka.h: cmocka defines a fail() macro. */
#include "tierctl.h"
#include "tl-create.h"
#include "tl-dm.h"
#include "tl-group.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <libdevmapper.h>

#define MAX_ARGS 8

/* activate_parse() on "activate ARG...", the list ending with NULL. */
static int parse(struct activate_opts *o, ...)
{
	static char *argv[MAX_ARGS + 2];
	int argc = 0;
	va_list ap;
	char *a;

	argv[argc++] = "activate";
	va_start(ap, o);
	while ((a = va_arg(ap, char *)) && argc <= MAX_ARGS)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return activate_parse(argc, argv, o);
}

static void test_parse_name(void **state)
{
	struct activate_opts o;

	(void)state;
	assert_int_equal(parse(&o, "ckpt", NULL), TIERCTL_EXIT_OK);
	assert_string_equal(o.name, "ckpt");
	assert_false(o.all);
	assert_false(o.read_only);
	assert_false(o.help);
}

static void test_parse_readonly(void **state)
{
	struct activate_opts o;

	(void)state;
	assert_int_equal(parse(&o, "--readonly", "ckpt", NULL),
			 TIERCTL_EXIT_OK);
	assert_string_equal(o.name, "ckpt");
	assert_true(o.read_only);
	/* After the name too, and the short form with --all. */
	assert_int_equal(parse(&o, "ckpt", "--readonly", NULL),
			 TIERCTL_EXIT_OK);
	assert_true(o.read_only);
	assert_int_equal(parse(&o, "-r", "--all", NULL), TIERCTL_EXIT_OK);
	assert_null(o.name);
	assert_true(o.all);
	assert_true(o.read_only);
	/* Nothing: every device, read-write. */
	assert_int_equal(parse(&o, NULL), TIERCTL_EXIT_OK);
	assert_null(o.name);
	assert_false(o.all);
	assert_false(o.read_only);
}

static void test_parse_errors(void **state)
{
	struct activate_opts o;

	(void)state;
	assert_int_equal(parse(&o, "ckpt", "--all", NULL), TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "a", "b", NULL), TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "--read-only", "ckpt", NULL),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "--readonly=1", "ckpt", NULL),
			 TIERCTL_EXIT_USAGE);
	assert_int_equal(parse(&o, "--help", NULL), TIERCTL_EXIT_OK);
	assert_true(o.help);
}

/* ---- libdevmapper, recorded ---- */

static char calls[256];	/* the calls, in order, as "create name ro ..." */
static int fake_task;	/* what dm_task_create() returns the address of */
static int run_result = 1;

static void note(const char *what)
{
	strncat(calls, what, sizeof(calls) - strlen(calls) - 2);
	strcat(calls, " ");
}

struct dm_task *__wrap_dm_task_create(int type);
struct dm_task *__wrap_dm_task_create(int type)
{
	assert_int_equal(type, DM_DEVICE_CREATE);
	note("create");
	return (struct dm_task *)&fake_task;
}

int __wrap_dm_task_set_name(struct dm_task *dmt, const char *name);
int __wrap_dm_task_set_name(struct dm_task *dmt, const char *name)
{
	assert_ptr_equal(dmt, &fake_task);
	assert_string_equal(name, "ckpt");
	note("name");
	return 1;
}

int __wrap_dm_task_set_uuid(struct dm_task *dmt, const char *uuid);
int __wrap_dm_task_set_uuid(struct dm_task *dmt, const char *uuid)
{
	assert_ptr_equal(dmt, &fake_task);
	note("uuid");
	return 1;
}

int __wrap_dm_task_set_ro(struct dm_task *dmt);
int __wrap_dm_task_set_ro(struct dm_task *dmt)
{
	assert_ptr_equal(dmt, &fake_task);
	note("ro");
	return 1;
}

int __wrap_dm_task_add_target(struct dm_task *dmt, uint64_t start,
			      uint64_t size, const char *ttype,
			      const char *params);
int __wrap_dm_task_add_target(struct dm_task *dmt, uint64_t start,
			      uint64_t size, const char *ttype,
			      const char *params)
{
	assert_ptr_equal(dmt, &fake_task);
	assert_int_equal(start, 0);
	assert_int_equal(size, 4096);
	assert_string_equal(ttype, "tier");
	assert_string_equal(params, "2048 2 259:0 259:1");
	note("target");
	return 1;
}

int __wrap_dm_task_set_cookie(struct dm_task *dmt, uint32_t *cookie,
			      uint16_t udev_flags);
int __wrap_dm_task_set_cookie(struct dm_task *dmt, uint32_t *cookie,
			      uint16_t udev_flags)
{
	note("cookie");
	return 1;
}

int __wrap_dm_task_run(struct dm_task *dmt);
int __wrap_dm_task_run(struct dm_task *dmt)
{
	assert_ptr_equal(dmt, &fake_task);
	note("run");
	return run_result;
}

int __wrap_dm_udev_wait(uint32_t cookie);
int __wrap_dm_udev_wait(uint32_t cookie)
{
	return 1;
}

void __wrap_dm_task_destroy(struct dm_task *dmt);
void __wrap_dm_task_destroy(struct dm_task *dmt)
{
	assert_ptr_equal(dmt, &fake_task);
	note("destroy");
}

static int reset(void **state)
{
	(void)state;
	calls[0] = '\0';
	run_result = 1;
	return 0;
}

static void test_create_readonly(void **state)
{
	struct tl_err err = { "" };

	(void)state;
	assert_int_equal(tl_dm_create_mode("ckpt", "DMTIER-x", 4096, "tier",
					   "2048 2 259:0 259:1", true, &err),
			 TL_OK);
	/* Read-only is part of the request that creates the device. */
	assert_string_equal(calls,
			    "create name uuid ro target cookie run destroy ");
}

static void test_create_readwrite(void **state)
{
	struct tl_err err = { "" };

	(void)state;
	assert_int_equal(tl_dm_create_mode("ckpt", "DMTIER-x", 4096, "tier",
					   "2048 2 259:0 259:1", false, &err),
			 TL_OK);
	assert_string_equal(calls, "create name uuid target cookie run destroy ");
	calls[0] = '\0';
	assert_int_equal(tl_dm_create("ckpt", "DMTIER-x", 4096, "tier",
				      "2048 2 259:0 259:1", &err),
			 TL_OK);
	assert_string_equal(calls, "create name uuid target cookie run destroy ");
}

/* ---- which devices: activate_pick() ---- */

/* A member of a one-tier device called @name (uuid bytes @u) at @path. */
static void add_member(struct tl_groups *gs, const char *name, u8 u,
		       const char *path)
{
	static u8 blk[TIER_BLOCK_SIZE];
	struct tl_create_req req;
	struct tier_fresh f;
	struct tl_member m;
	struct tier_label l;

	memset(&req, 0, sizeof(req));
	req.name = name;
	req.nr_tiers = 1;
	req.extent_shift = TIER_EXTENT_SHIFT_DEF;
	req.tier[0].sectors = 64 * 2048;
	req.tier[0].tier_class = TIER_CLASS_NVME;
	req.ctime = 1700000000;
	assert_int_equal(tl_create_plan(&req, &f, NULL), TL_OK);
	memset(f.uuid, u, TIER_UUID_LEN);
	memset(f.member_uuid[0], u + 1, TIER_UUID_LEN);
	tier_fresh_label(&f, 0, &l);
	tier_label_encode(&l, blk);
	memset(&m, 0, sizeof(m));
	assert_int_equal(tier_label_decode(blk, &m.label, NULL), 0);
	snprintf(m.path, sizeof(m.path), "%s", path);
	assert_int_equal(tl_groups_add(gs, &m), 0);
}

/*
 * --all: a name two devices (different uuids) share activates neither,
 * said once, exit 1; the others are activated. By name: refused too.
 */
static void test_pick_shared_name(void **state)
{
	struct tl_err err = { "" };
	struct tl_groups gs;
	bool go[4];

	(void)state;
	tl_groups_init(&gs);
	add_member(&gs, "ckpt", 0x10, "/dev/nvme0n1");
	add_member(&gs, "scratch", 0x20, "/dev/nvme1n1");
	add_member(&gs, "ckpt", 0x30, "/dev/sdb");	/* an old disk back */
	assert_int_equal(gs.nr_groups, 3);

	assert_int_equal(activate_pick(&gs, NULL, 5, go, &err),
			 TIERCTL_EXIT_FAIL);
	assert_false(go[0]);
	assert_true(go[1]);
	assert_false(go[2]);
	assert_non_null(strstr(err.msg, "2 dm-tier devices are named 'ckpt' (uuid 10101010101010101010101010101010 on /dev/nvme0n1; uuid 30303030303030303030303030303030 on /dev/sdb): none of them is activated"));
	/* Once, not once per device. */
	assert_null(strchr(err.msg, '\n'));

	err.msg[0] = '\0';
	assert_int_equal(activate_pick(&gs, "ckpt", 5, go, &err),
			 TIERCTL_EXIT_FAIL);
	assert_false(go[0] || go[1] || go[2]);
	assert_non_null(strstr(err.msg, "2 dm-tier devices are named 'ckpt'"));

	err.msg[0] = '\0';
	assert_int_equal(activate_pick(&gs, "scratch", 5, go, &err),
			 TIERCTL_EXIT_OK);
	assert_true(go[1]);
	assert_false(go[0] || go[2]);

	assert_int_equal(activate_pick(&gs, "nosuch", 5, go, &err),
			 TIERCTL_EXIT_FAIL);
	assert_non_null(strstr(err.msg, "no dm-tier device named 'nosuch' found on 5 block devices"));

	/* Two names shared: each said once, on its own line. */
	add_member(&gs, "scratch", 0x40, "/dev/sdc");
	err.msg[0] = '\0';
	assert_int_equal(activate_pick(&gs, NULL, 5, go, &err),
			 TIERCTL_EXIT_FAIL);
	assert_false(go[0] || go[1] || go[2] || go[3]);
	assert_non_null(strstr(err.msg, "named 'ckpt'"));
	assert_non_null(strstr(err.msg, "\n2 dm-tier devices are named 'scratch'"));
	tl_groups_free(&gs);
}

/* Every name once: --all picks every device, exit 0. */
static void test_pick_all(void **state)
{
	struct tl_err err = { "" };
	struct tl_groups gs;
	bool go[2];

	(void)state;
	tl_groups_init(&gs);
	assert_int_equal(activate_pick(&gs, NULL, 0, go, &err),
			 TIERCTL_EXIT_OK);
	add_member(&gs, "a", 0x50, "/dev/sda");
	add_member(&gs, "b", 0x60, "/dev/sdb");
	add_member(&gs, "a", 0x50, "/dev/sdc");	/* same device: one group */
	assert_int_equal(gs.nr_groups, 2);
	assert_int_equal(activate_pick(&gs, NULL, 3, go, &err),
			 TIERCTL_EXIT_OK);
	assert_true(go[0] && go[1]);
	assert_string_equal(err.msg, "");
	tl_groups_free(&gs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_name),
		cmocka_unit_test(test_parse_readonly),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test_setup(test_create_readonly, reset),
		cmocka_unit_test_setup(test_create_readwrite, reset),
		cmocka_unit_test(test_pick_shared_name),
		cmocka_unit_test(test_pick_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
