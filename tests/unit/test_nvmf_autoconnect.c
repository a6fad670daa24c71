// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/tl-nvmf-autoconnect.c: dm-tier's NVMe-oF tiers in
 * libnvme's config.json (a temporary file through $TIER_NVME_CONFIG; the
 * state directory, whose lock every change takes, a temporary one through
 * $TIER_STATE_DIR). A change keeps the file's mode and owner, and waits for
 * the lock another tierctl holds instead of losing that one's entry.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tl-nvmf-autoconnect.h"
#include "tl-state.h"

static char path[64];
static char state_dir[64];

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
	snprintf(state_dir, sizeof(state_dir), "/tmp/dmt-state-XXXXXX");
	if (!mkdtemp(state_dir))
		return -1;
	setenv("TIER_STATE_DIR", state_dir, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(state_dir);
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

/*
 * A file an admin made 0600 (it may hold dhchap_key/tls_key) and gave to
 * another owner keeps both through an add and a del (before: 0644, root's).
 */
static void test_keeps_mode_owner(void **state)
{
	struct tl_nvmf_opts o = { .ctrl_loss_tmo = 60, .reconnect_delay = 3 };
	struct tl_err err = { "" };
	FILE *f = fopen(path, "w");
	struct stat st;

	(void)state;
	assert_non_null(f);
	fputs("[]\n", f);
	fclose(f);
	assert_int_equal(chmod(path, 0600), 0);
	/* As root (the unit tests' usual case) it can hand the file over. */
	if (!geteuid())
		assert_int_equal(chown(path, 4321, 4322), 0);
	assert_int_equal(tl_nvmf_autoconnect_add(&a, &o, &err), TL_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	if (!geteuid()) {
		assert_int_equal(st.st_uid, 4321);
		assert_int_equal(st.st_gid, 4322);
	}
	assert_non_null(strstr(slurp(), "cap0"));
	assert_int_equal(tl_nvmf_autoconnect_del(&a, &err), TL_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	if (!geteuid())
		assert_int_equal(st.st_uid, 4321);
	assert_null(strstr(slurp(), "cap0"));
	/* A new file: 0644, whatever the umask. */
	unlink(path);
	umask(077);
	assert_int_equal(tl_nvmf_autoconnect_add(&b, &o, &err), TL_OK);
	umask(022);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
}

/*
 * Two tierctl runs at once: while another holds the state lock (here the
 * test, which then writes its own entry, cap0, as that run would), an add
 * of cap1 waits for it and then adds to what that run wrote. Before, the
 * add wrote at once and the other run's write lost cap1.
 */
static void test_waits_for_lock(void **state)
{
	struct tl_err err = { "" };
	struct timespec pause = { 0, 300 * 1000000L };
	struct stat st;
	int lock, status;
	pid_t pid;
	FILE *f;
	char *s;

	(void)state;
	lock = tl_state_lock(&err);
	assert_true(lock >= 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct tl_nvmf_opts o = { .ctrl_loss_tmo = 60,
					  .reconnect_delay = 3 };
		struct tl_err cerr = { "" };

		close(lock);
		_exit(tl_nvmf_autoconnect_add(&b, &o, &cerr) == TL_OK ? 0 : 1);
	}
	nanosleep(&pause, NULL);
	/* Nothing written while the lock is held. */
	assert_int_equal(stat(path, &st), -1);
	/* The other run's write, a read-modify-write under its lock. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("[{\"subsystems\":[{\"nqn\":\"nqn.2026-01.io.example:cap0\","
	      "\"ports\":[{\"transport\":\"tcp\",\"traddr\":\"10.0.0.5\","
	      "\"trsvcid\":\"4420\"}]}]}]\n", f);
	fclose(f);
	close(lock);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	s = slurp();
	assert_non_null(s);
	assert_non_null(strstr(s, "cap0"));
	assert_non_null(strstr(s, "cap1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_update_del, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keeps_others, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keeps_mode_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waits_for_lock, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
