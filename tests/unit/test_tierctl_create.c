// SPDX-License-Identifier: GPL-2.0
/* Unit tests for user/lib/tl-create.c and tl-disk.c: planning a new device,
 * writing its metadata to (sparse) files standing in for block devices,
 * and reading it back the way "tierctl activate" does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "tl-create.h"
#include "tl-disk.h"
#include "tl-group.h"
#include "tl-status.h"

#define MiB_SECTORS 2048ULL
#define GiB_SECTORS (1ULL << 21)

static void req_init(struct tl_create_req *req, u32 nr, const u64 *sectors)
{
	u32 i;

	memset(req, 0, sizeof(*req));
	req->name = "fast";
	req->nr_tiers = nr;
	req->extent_shift = TIER_EXTENT_SHIFT_DEF;
	req->ctime = 1700000000;
	for (i = 0; i < nr; i++) {
		snprintf(req->tier[i].path, sizeof(req->tier[i].path),
			 "/dev/t%u", i);
		req->tier[i].maj = 259;
		req->tier[i].min = i;
		req->tier[i].sectors = sectors[i];
		req->tier[i].tier_class = TIER_CLASS_NVME;
	}
}

static void test_check_devs(void **state)
{
	static const u64 sz[] = { GiB_SECTORS, GiB_SECTORS, GiB_SECTORS };
	const char *args[] = { "/dev/a", "/dev/by-id/x", "/dev/c", "/dev/m" };
	struct tl_create_req req;
	struct tl_err err = { "" };

	(void)state;
	req_init(&req, 3, sz);
	assert_int_equal(tl_create_check_devs(&req, args, &err), TL_OK);
	req.tier[2].min = 0;	/* /dev/c is /dev/a */
	assert_int_equal(tl_create_check_devs(&req, args, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "/dev/a and /dev/c are the same device (259:0)"));
	req.tier[2].min = 2;
	req.has_meta = true;
	req.meta.maj = 259;
	req.meta.min = 1;
	assert_int_equal(tl_create_check_devs(&req, args, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "/dev/by-id/x and /dev/m"));
}

static void test_plan(void **state)
{
	static const u64 sz[] = { GiB_SECTORS, 4 * GiB_SECTORS };
	struct tl_create_req req;
	struct tier_fresh f;
	struct tl_err err = { "" };
	u64 cap;

	(void)state;
	req_init(&req, 2, sz);
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_OK);
	assert_string_equal(f.name, "fast");
	assert_int_equal(f.lo.nr_tiers, 2);
	assert_int_equal(f.tier_class[1], TIER_CLASS_NVME);
	assert_true(f.ctime == 1700000000);
	cap = f.lo.tier[0].nr_extents + f.lo.tier[1].nr_extents;
	assert_true(f.lo.virt_extents == cap);

	/* --size: exactly the capacity is fine, one extent more is not. */
	req.virt_sectors = cap << 11;
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_OK);
	req.virt_sectors = (cap + 1) << 11;
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "exceeds the tiers' capacity"));
	req.virt_sectors = 10 * GiB_SECTORS;
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "size 10 GiB exceeds the tiers' capacity 4.9 GiB"));
	req.virt_sectors = GiB_SECTORS;
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_OK);
	assert_int_equal(f.lo.virt_extents, 1024);

	req.name = "bad name";
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "invalid device name"));
}

static void test_plan_too_small(void **state)
{
	static const u64 sz[] = { GiB_SECTORS, MiB_SECTORS + 200 };
	static const u64 tiny[] = { MiB_SECTORS };
	struct tl_create_req req;
	struct tier_fresh f;
	struct tl_err err = { "" };

	(void)state;
	req_init(&req, 2, sz);
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "/dev/t1"));
	assert_non_null(strstr(err.msg, "too small"));
	/* With 64K extents it fits. */
	req.extent_shift = 7;
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_OK);

	req_init(&req, 1, tiny);
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "/dev/t0"));

	/* A metadata device too small for the map. */
	req_init(&req, 1, sz);
	req.has_meta = true;
	snprintf(req.meta.path, sizeof(req.meta.path), "/dev/m");
	req.meta.sectors = 16;
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "/dev/m"));
	assert_non_null(strstr(err.msg, "metadata"));
	/* The message says the minimum, and exactly that much is enough. */
	{
		struct tier_layout_req lr = { .nr_tiers = 1,
					      .extent_shift = req.extent_shift };
		char want[64], size[TL_SIZE_STR_LEN];
		u64 min;

		lr.dev_sectors[0] = sz[0];
		min = tier_layout_meta_min_sectors(&lr);
		snprintf(want, sizeof(want), "needs at least %s",
			 tl_size_str(min << TIER_SECTOR_SHIFT, size));
		assert_non_null(strstr(err.msg, want));
		req.meta.sectors = min - 1;
		assert_int_equal(tl_create_plan(&req, &f, &err), TL_USAGE);
		assert_non_null(strstr(err.msg, want));
		req.meta.sectors = min;
		assert_int_equal(tl_create_plan(&req, &f, &err), TL_OK);
		assert_int_equal(f.lo.meta_ext, 1);
		assert_int_equal(f.lo.tier[0].data_start, MiB_SECTORS);
	}
}

static void test_plan_classes(void **state)
{
	static const u64 sz[] = { GiB_SECTORS };
	struct tl_create_req req;
	struct tier_fresh f;
	struct tl_err err = { "" };

	(void)state;
	req_init(&req, 1, sz);
	req.tier[0].tier_class = TIER_CLASS_MEM;
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_USAGE);
	req.tier[0].tier_class = TIER_CLASS_META;
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_FAIL);
	req.tier[0].tier_class = TIER_CLASS_UNKNOWN;
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_OK);
	req.nr_tiers = 0;
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_USAGE);
}

/* ---- writing to files and reading back ----------------------------------- */

struct files {
	char path[TIER_MAX_DEVS][64];
	int fd[TIER_MAX_DEVS];
	const char *p[TIER_MAX_DEVS];
};

static void files_open(struct files *fs, const struct tier_fresh *f)
{
	u32 i;

	for (i = 0; i < TIER_MAX_DEVS; i++) {
		u64 sectors;

		fs->fd[i] = -1;
		fs->p[i] = NULL;
		if (i < f->lo.nr_tiers)
			sectors = f->lo.tier[i].dev_sectors;
		else if (i == TIER_META_DEV && f->lo.meta_ext)
			sectors = f->lo.meta_dev_sectors;
		else
			continue;
		snprintf(fs->path[i], sizeof(fs->path[i]),
			 "/tmp/tl-create-XXXXXX");
		fs->fd[i] = mkstemp(fs->path[i]);
		assert_true(fs->fd[i] >= 0);
		assert_int_equal(ftruncate(fs->fd[i], sectors << 9), 0);
		fs->p[i] = fs->path[i];
	}
}

static void files_close(struct files *fs)
{
	u32 i;

	for (i = 0; i < TIER_MAX_DEVS; i++) {
		if (fs->fd[i] < 0)
			continue;
		close(fs->fd[i]);
		unlink(fs->path[i]);
	}
}

/* Everything tier_fresh_block() wrote is where it belongs and valid. */
static void verify(const struct tier_fresh *f, struct files *fs)
{
	struct tier_label l;
	struct tier_err terr;
	struct tier_sb sb;
	u32 meta = f->lo.meta_ext ? TIER_META_DEV : 0, i, copy;
	void *blk = tl_block_alloc(1);
	u64 b;

	assert_non_null(blk);
	assert_int_equal(tl_read_sb(fs->fd[meta], f->lo.meta_start, &sb, &terr),
			 0);
	assert_memory_equal(sb.uuid, f->uuid, TIER_UUID_LEN);
	assert_true(sb.generation == 1);
	assert_true(sb.virt_extents == f->lo.virt_extents);
	for (i = 0; i < TIER_MAX_DEVS; i++) {
		if (fs->fd[i] < 0)
			continue;
		assert_int_equal(tl_read_label(fs->fd[i], &l, &terr), 0);
		assert_int_equal(l.tier_index, i);
		assert_string_equal(l.name, f->name);
		assert_memory_equal(l.member_uuid, f->member_uuid[i],
				    TIER_UUID_LEN);
		assert_int_equal(tier_label_check_sb(&l, &sb, i, &terr), 0);
	}
	for (copy = 0; copy < 2; copy++) {
		for (b = 0; b < sb.map_blocks; b++) {
			assert_int_equal(tl_pread_full(fs->fd[meta], blk,
						       TIER_BLOCK_SIZE,
						       tier_map_block_sector(&sb, copy, b) << 9),
					 0);
			assert_int_equal(tier_map_block_check(blk, &sb, copy, b,
							      &terr),
					 0);
		}
	}
	free(blk);
}

static void write_and_verify(const u64 *sizes, u32 nr, u64 meta_sectors,
			     u32 shift)
{
	struct tl_create_req req;
	struct tier_fresh f;
	struct tl_err err = { "" };
	struct files fs;

	req_init(&req, nr, sizes);
	req.extent_shift = shift;
	if (meta_sectors) {
		req.has_meta = true;
		req.meta.sectors = meta_sectors;
	}
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_OK);
	assert_int_equal(tl_create_new_ids(&f, &err), TL_OK);
	files_open(&fs, &f);
	assert_int_equal(tl_create_write(&f, fs.fd, fs.p, &err), TL_OK);
	verify(&f, &fs);
	files_close(&fs);
}

static void test_write_small(void **state)
{
	static const u64 sz[] = { 64 * MiB_SECTORS, 256 * MiB_SECTORS };

	(void)state;
	write_and_verify(sz, 2, 0, TIER_EXTENT_SHIFT_DEF);
}

static void test_write_batches(void **state)
{
	/* 64K extents over 5 GiB: map copies of ~330 blocks, more than one
	 * write batch each. */
	static const u64 sz[] = { GiB_SECTORS, 4 * GiB_SECTORS };

	(void)state;
	write_and_verify(sz, 2, 0, TIER_EXTENT_SHIFT_MIN);
}

/* What the progress callback saw. */
struct progress_seen {
	u64 calls, last_done, last_total;
	bool backwards;
};

static void progress_cb(uint64_t done, uint64_t total, void *arg)
{
	struct progress_seen *p = arg;

	if (done < p->last_done || done > total)
		p->backwards = true;
	p->calls++;
	p->last_done = done;
	p->last_total = total;
}

static void test_write_progress(void **state)
{
	static const u64 sz[] = { GiB_SECTORS, 4 * GiB_SECTORS };
	struct progress_seen seen = { 0 };
	struct tl_create_req req;
	struct tier_fresh f;
	struct tl_err err = { "" };
	struct files fs;

	(void)state;
	req_init(&req, 2, sz);
	req.extent_shift = TIER_EXTENT_SHIFT_MIN;
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_OK);
	assert_int_equal(tl_create_new_ids(&f, &err), TL_OK);
	files_open(&fs, &f);
	assert_int_equal(tl_create_write_progress(&f, fs.fd, fs.p, progress_cb,
						  &seen, &err),
			 TL_OK);
	verify(&f, &fs);
	files_close(&fs);
	/* Several batches: called more than once, never backwards, and
	 * last with everything written. */
	assert_true(seen.calls > 2);
	assert_false(seen.backwards);
	assert_int_equal(seen.last_done, tier_fresh_nr_blocks(&f));
	assert_int_equal(seen.last_total, tier_fresh_nr_blocks(&f));
}

static void test_write_meta_dev(void **state)
{
	static const u64 sz[] = { 64 * MiB_SECTORS, 64 * MiB_SECTORS,
				  128 * MiB_SECTORS };

	(void)state;
	write_and_verify(sz, 3, 8 * MiB_SECTORS, TIER_EXTENT_SHIFT_DEF);
}

/* A label written by create, then found and grouped like activate does. */
static void test_write_then_group(void **state)
{
	static const u64 sz[] = { 64 * MiB_SECTORS, 64 * MiB_SECTORS };
	struct tl_create_req req;
	struct tier_fresh f;
	struct tl_err err = { "" };
	struct tl_groups gs;
	struct files fs;
	struct tier_err terr;
	struct tier_sb sb;
	char params[512], want[512];
	u64 sectors;
	u32 i;

	(void)state;
	req_init(&req, 2, sz);
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_OK);
	assert_int_equal(tl_create_new_ids(&f, &err), TL_OK);
	files_open(&fs, &f);
	assert_int_equal(tl_create_write(&f, fs.fd, fs.p, &err), TL_OK);
	tl_groups_init(&gs);
	for (i = 2; i-- > 0;) {
		struct tl_member m;

		memset(&m, 0, sizeof(m));
		assert_int_equal(tl_read_label(fs.fd[i], &m.label, &terr), 0);
		snprintf(m.path, sizeof(m.path), "%s", fs.path[i]);
		assert_int_equal(tl_groups_add(&gs, &m), 0);
	}
	assert_int_equal(gs.nr_groups, 1);
	assert_int_equal(tl_read_sb(fs.fd[0],
				    tl_group_meta_member(&gs, &gs.group[0])->label.meta_start,
				    &sb, &terr),
			 0);
	assert_int_equal(tl_group_table(&gs, &gs.group[0], sb.virt_extents,
					params, sizeof(params), &sectors, &err),
			 TL_OK);
	snprintf(want, sizeof(want), "2048 2 %s %s", fs.path[0], fs.path[1]);
	assert_string_equal(params, want);
	assert_true(sectors == f.lo.virt_extents << 11);
	tl_groups_free(&gs);
	files_close(&fs);
}

static void test_read_errors(void **state)
{
	char path[] = "/tmp/tl-create-XXXXXX";
	struct tier_label l;
	struct tier_err terr;
	struct tier_sb sb;
	char why[128];
	void *blk = tl_block_alloc(1);
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_non_null(blk);
	/* Empty file: read error (end of device), not a decode error. */
	assert_int_equal(tl_read_label(fd, &l, &terr), -EIO);
	assert_int_equal(terr.code, TIER_E_NONE);
	assert_string_equal(tl_tier_err_text(&terr, -EIO, why, sizeof(why)),
			    "read error: Input/output error");
	/* Zeroes: not a dm-tier label. */
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	assert_int_equal(tl_read_label(fd, &l, &terr), 1);
	/* A label with a bad checksum. */
	memset(&l, 0, sizeof(l));
	memcpy(l.name, "x", 2);
	l.nr_tiers = 1;
	l.extent_shift = 11;
	tier_label_encode(&l, blk);
	((u8 *)blk)[200] ^= 1;
	assert_int_equal(tl_pwrite_full(fd, blk, TIER_BLOCK_SIZE, 0), 0);
	assert_int_equal(tl_read_label(fd, &l, &terr), -EBADMSG);
	assert_string_equal(tl_tier_err_text(&terr, -EBADMSG, why, sizeof(why)),
			    "label: bad checksum");
	/* No valid superblock. */
	assert_true(tl_read_sb(fd, TIER_META_START, &sb, &terr) < 0);
	assert_int_not_equal(terr.code, TIER_E_NONE);
	free(blk);
	close(fd);
	unlink(path);
}

static void test_write_error(void **state)
{
	static const u64 sz[] = { 64 * MiB_SECTORS };
	struct tl_create_req req;
	struct tier_fresh f;
	struct tl_err err = { "" };
	char path[] = "/tmp/tl-create-XXXXXX";
	const char *paths[TIER_MAX_DEVS] = { "/dev/ro" };
	int fds[TIER_MAX_DEVS], fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	fds[0] = open(path, O_RDONLY);
	assert_true(fds[0] >= 0);
	req_init(&req, 1, sz);
	assert_int_equal(tl_create_plan(&req, &f, &err), TL_OK);
	assert_int_equal(tl_create_write(&f, fds, paths, &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "writing /dev/ro at sector"));
	close(fds[0]);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_devs),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_too_small),
		cmocka_unit_test(test_plan_classes),
		cmocka_unit_test(test_write_small),
		cmocka_unit_test(test_write_batches),
		cmocka_unit_test(test_write_progress),
		cmocka_unit_test(test_write_meta_dev),
		cmocka_unit_test(test_write_then_group),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
