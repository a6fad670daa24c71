// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/tl-nvmf-autoconnect.c: dm-tier's NVMe-oF tiers in
 * libnvme's config.json (a temporary file through $TIER_NVME_CONFIG).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tl-nvmf-autoconnect.h"

static char path[64];

static char *slurp(void)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* Without blanks: the checks do not depend on the pretty-printing. */
	for (char *r = buf, *w = buf;; r++) {
		if (*r != ' ' && *r != '\n')
			*w++ = *r;
		if (!*r)
			break;
	}
	return buf;
}

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/dmt-nvme-config-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(path); /* start without a file, as on a fresh node */
	setenv("TIER_NVME_CONFIG", path, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static const struct tl_nvmf_uri a = { "tcp", "10.0.0.5", "4420",
				      "nqn.2026-01.io.example:cap0" };
static const struct tl_nvmf_uri b = { "tcp", "10.0.0.6", "4420",
				      "nqn.2026-01.io.example:cap1" };

static void test_add_update_del(void **state)
{
	struct tl_nvmf_opts o = { .ctrl_loss_tmo = 60, .reconnect_delay = 3,
				  .fast_io_fail_tmo = 5 };
	struct tl_err err = { "" };
	char *s;

	(void)state;
	assert_string_equal(tl_nvmf_autoconnect_path(), path);
	assert_int_equal(tl_nvmf_autoconnect_add(&a, &o, &err), TL_OK);
	assert_int_equal(tl_nvmf_autoconnect_add(&b, &o, &err), TL_OK);
	s = slurp();
	assert_non_null(s);
	assert_non_null(strstr(s, "\"nqn\":\"nqn.2026-01.io.example:cap0\""));
	assert_non_null(strstr(s, "\"traddr\":\"10.0.0.5\""));
	assert_non_null(strstr(s, "\"nqn\":\"nqn.2026-01.io.example:cap1\""));
	assert_non_null(strstr(s, "\"ctrl_loss_tmo\":60"));
	assert_non_null(strstr(s, "\"reconnect_delay\":3"));
	assert_non_null(strstr(s, "\"fast_io_fail_tmo\":5"));

	/* Adding it again updates the options; one entry, not two. */
	o.ctrl_loss_tmo = 120;
	o.fast_io_fail_tmo = -1;
	assert_int_equal(tl_nvmf_autoconnect_add(&a, &o, &err), TL_OK);
	s = slurp();
	assert_non_null(strstr(s, "\"ctrl_loss_tmo\":120"));
	/* cap1 keeps its 5; cap0's is off now, so only one is left. */
	assert_null(strstr(strstr(s, "fast_io_fail_tmo") + 1, "fast_io_fail_tmo"));
	assert_null(strstr(strstr(s, "10.0.0.5") + 1, "10.0.0.5"));

	/* Removing one keeps the other. */
	assert_int_equal(tl_nvmf_autoconnect_del(&a, &err), TL_OK);
	s = slurp();
	assert_null(strstr(s, "cap0"));
	assert_non_null(strstr(s, "cap1"));
	/* Removing what is not there is fine. */
	assert_int_equal(tl_nvmf_autoconnect_del(&a, &err), TL_OK);
	assert_int_equal(tl_nvmf_autoconnect_del(&b, &err), TL_OK);
	s = slurp();
	assert_true(!s || !strstr(s, "cap1"));
}

static void test_keeps_others(void **state)
{
	struct tl_nvmf_opts o = { .ctrl_loss_tmo = 60, .reconnect_delay = 3 };
	struct tl_err err = { "" };
	FILE *f = fopen(path, "w");
	char *s;

	(void)state;
	assert_non_null(f);
	fputs("[{\"hostnqn\":\"nqn.2014-08.org.nvmexpress:uuid:other\","
	      "\"subsystems\":[{\"nqn\":\"nqn.other:db\",\"ports\":"
	      "[{\"transport\":\"rdma\",\"traddr\":\"192.168.1.9\","
	      "\"trsvcid\":\"4420\",\"nr_io_queues\":8}]}]}]\n", f);
	fclose(f);
	assert_int_equal(tl_nvmf_autoconnect_add(&a, &o, &err), TL_OK);
	assert_int_equal(tl_nvmf_autoconnect_del(&a, &err), TL_OK);
	s = slurp();
	assert_non_null(strstr(s, "\"nqn\":\"nqn.other:db\""));
	assert_non_null(strstr(s, "\"nr_io_queues\":8"));
	assert_non_null(strstr(s, "uuid:other"));
	assert_null(strstr(s, "cap0"));
	/* A file that is not libnvme's format is refused, not overwritten. */
	f = fopen(path, "w");
	fputs("{\"not\": \"an array\"}\n", f);
	fclose(f);
	assert_int_equal(tl_nvmf_autoconnect_add(&a, &o, &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "not a JSON array"));
	assert_non_null(strstr(slurp(), "\"not\":\"anarray\""));
}

static void test_unreadable(void **state)
{
	struct tl_nvmf_opts o = { .ctrl_loss_tmo = 60, .reconnect_delay = 3 };
	struct tl_err err = { "" };

	(void)state;
	setenv("TIER_NVME_CONFIG", "/proc/version/x/config.json", 1);
	assert_int_equal(tl_nvmf_autoconnect_add(&a, &o, &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "/proc/version/x/config.json"));
	setenv("TIER_NVME_CONFIG", path, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_update_del, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keeps_others, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
