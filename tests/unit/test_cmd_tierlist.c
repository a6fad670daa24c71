// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for how "tierctl add-tier" (and so replace-tier's add step)
 * takes the new device (tierctl_claim_open/wipe/release,
 * user/tierctl/cmd-tierlist.c), on image files standing in for block
 * devices: a device carrying a filesystem or a swap signature (libblkid,
 * as create's check) is refused with a message that names it and says
 * --force erases it; with --force it is held and erased before the label
 * is written; a blank one is taken; the descriptor stays open until
 * released. The table reload around it: VM tests 069 and 075.
 */
/* tierctl.h before cmocka.h: cmocka defines a fail() macro. */
#include "tierctl.h"
#include "live.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IMG_BYTES (16 << 20)

static char img[] = "/tmp/test_cmd_tierlist.XXXXXX";

/* A blank image file of IMG_BYTES. */
static int img_setup(void **state)
{
	int fd;

	(void)state;
	strcpy(img, "/tmp/test_cmd_tierlist.XXXXXX");
	fd = mkstemp(img);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, IMG_BYTES), 0);
	close(fd);
	return 0;
}

static int img_teardown(void **state)
{
	(void)state;
	unlink(img);
	return 0;
}

/* Run "TOOL ARGS IMG" quietly; skip the test when the tool is missing. */
static void run_tool(const char *tool, const char *args)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	if (system(cmd)) {
		print_message("%s not found (e2fsprogs, util-linux)\n", tool);
		skip();
	}
	snprintf(cmd, sizeof(cmd), "%s %s %s >/dev/null 2>&1", tool, args,
		 img);
	assert_int_equal(system(cmd), 0);
}

/* What libblkid finds on the image now (a fresh descriptor). */
static int probe_img(char *what, size_t len)
{
	int fd = open(img, O_RDONLY | O_CLOEXEC), ret;

	assert_true(fd >= 0);
	ret = probe_foreign(fd, what, len);
	close(fd);
	return ret;
}

/* A filesystem: refused, named, --force suggested; nothing held or erased. */
static void test_refuses_filesystem(void **state)
{
	struct tierctl_claim c = { .fd = -1 };
	struct tl_err err = { "" };
	char what[256];

	(void)state;
	run_tool("mkfs.ext4", "-q -F");
	assert_int_equal(tierctl_claim_open("add-tier", img, false, &c, &err),
			 TL_FAIL);
	assert_non_null(strstr(err.msg, "add-tier: "));
	assert_non_null(strstr(err.msg, img));
	assert_non_null(strstr(err.msg, "carries a filesystem (ext4)"));
	assert_non_null(strstr(err.msg, "refusing to overwrite it"));
	assert_non_null(strstr(err.msg, "--force to erase it"));
	assert_int_equal(c.fd, -1);
	/* Still there. */
	assert_int_equal(probe_img(what, sizeof(what)), 1);
	assert_non_null(strstr(what, "ext4"));
}

/* Swap (any signature libblkid knows) is refused the same way. */
static void test_refuses_swap(void **state)
{
	struct tierctl_claim c = { .fd = -1 };
	struct tl_err err = { "" };

	(void)state;
	run_tool("mkswap", "-f");
	assert_int_equal(tierctl_claim_open("add-tier", img, false, &c, &err),
			 TL_FAIL);
	assert_non_null(strstr(err.msg, "swap"));
	assert_non_null(strstr(err.msg, "--force"));
	assert_int_equal(c.fd, -1);
}

/* --force: held with what was found; the wipe erases it, as create's. */
static void test_force_wipes(void **state)
{
	struct tierctl_claim c = { .fd = -1 };
	struct tl_err err = { "" };
	char what[256];

	(void)state;
	run_tool("mkfs.ext4", "-q -F");
	assert_int_equal(tierctl_claim_open("add-tier", img, true, &c, &err),
			 TL_OK);
	assert_true(c.fd >= 0);
	assert_non_null(strstr(c.found, "a filesystem (ext4)"));
	/* Not erased before the caller says so (the label checks come first). */
	assert_int_equal(probe_img(what, sizeof(what)), 1);
	assert_int_equal(tierctl_claim_wipe(&c, img, &err), TL_OK);
	assert_int_equal(probe_img(what, sizeof(what)), 0);
	assert_string_equal(what, "");
	tierctl_claim_release(&c);
	assert_int_equal(c.fd, -1);
	tierctl_claim_release(&c);	/* again: nothing */
}

/* A blank device is taken, and held until released. */
static void test_blank_held(void **state)
{
	struct tierctl_claim c = { .fd = -1 };
	struct tl_err err = { "" };
	int fd;

	(void)state;
	assert_int_equal(tierctl_claim_open("add-tier", img, false, &c, &err),
			 TL_OK);
	assert_string_equal(err.msg, "");
	assert_string_equal(c.found, "");
	assert_true(c.fd >= 0);
	fd = c.fd;
	assert_true(fcntl(fd, F_GETFD) >= 0);
	/* Nothing found: the wipe writes nothing. */
	assert_int_equal(tierctl_claim_wipe(&c, img, &err), TL_OK);
	tierctl_claim_release(&c);
	assert_int_equal(c.fd, -1);
	assert_int_equal(fcntl(fd, F_GETFD), -1);
}

static void test_missing_device(void **state)
{
	struct tierctl_claim c = { .fd = -1 };
	struct tl_err err = { "" };

	(void)state;
	assert_int_equal(tierctl_claim_open("add-tier", "/nonexistent/dm-tier-test",
					    true, &c, &err),
			 TL_FAIL);
	assert_non_null(strstr(err.msg, "cannot open /nonexistent/dm-tier-test"));
	assert_int_equal(c.fd, -1);
}

/* replace-tier --force reaches the add step. */
static void test_replace_parse_force(void **state)
{
	char *argv[] = { "replace-tier", "ckpt", "1", "/dev/sdc", "--force",
			 NULL };
	char *argv2[] = { "replace-tier", "ckpt", "1", "/dev/sdc", NULL };
	struct replace_opts o;

	(void)state;
	assert_int_equal(replace_parse(5, argv, &o), TIERCTL_EXIT_OK);
	assert_true(o.force);
	assert_int_equal(replace_parse(4, argv2, &o), TIERCTL_EXIT_OK);
	assert_false(o.force);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refuses_filesystem,
						img_setup, img_teardown),
		cmocka_unit_test_setup_teardown(test_refuses_swap, img_setup,
						img_teardown),
		cmocka_unit_test_setup_teardown(test_force_wipes, img_setup,
						img_teardown),
		cmocka_unit_test_setup_teardown(test_blank_held, img_setup,
						img_teardown),
		cmocka_unit_test(test_missing_device),
		cmocka_unit_test(test_replace_parse_force),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
