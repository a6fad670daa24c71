// SPDX-License-Identifier: GPL-2.0
/* Unit tests for "tierctl activate" without a kernel: its command line
 * (activate_parse, user/tierctl/cmd-activate.c) and the device-mapper
 * request it builds (tl_dm_create_mode, user/lib/tl-dm.c), with
 * libdevmapper's calls replaced by recorders: --readonly must load the
 * table read-only (dm_task_set_ro) before the request runs. Activation on
 * real devices: VM tests 011 and 060.
 *
 * unit-ldflags: -Wl,--wrap=dm_task_create,--wrap=dm_task_set_name,--wrap=dm_task_set_uuid,--wrap=dm_task_set_ro,--wrap=dm_task_add_target,--wrap=dm_task_set_cookie,--wrap=dm_task_run,--wrap=dm_udev_wait,--wrap=dm_task_destroy
 */
/* tierctl.h before cmocka.h: cmocka defines a fail() macro. */
#include "tierctl.h"
#include "tl-dm.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_name),
		cmocka_unit_test(test_parse_readonly),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test_setup(test_create_readonly, reset),
		cmocka_unit_test_setup(test_create_readwrite, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
