// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl check and repair (user/lib/tl-check.c) over image files: the
 * fixture of tests/cases/format_cases.h (tiers of 2, 1 and 4 GiB, 1 MiB
 * extents) written to sparse files with tl_create_write(), then two commits
 * as the kernel makes them (generation 2 in slot 0 with map copy 1,
 * generation 3 in slot 1 with map copy 0, same extents). Every corruption
 * the format cases make (corrupt_cases, label_cases, sb_cases, entry_cases)
 * is applied to the image in each place it can hit; check must report it
 * with the severity the kernel's load rules give it (computed with the
 * core's own decoders), and repair must leave a clean device, except for
 * what it must not touch (newer versions and features).
 *
 * unit-ldflags: -Wl,--wrap=tl_pread_full,--wrap=tl_pwrite_full,--wrap=fsync
 */
#include "case-cmocka.h"
#include "../cases/format_cases.h"

#include <fcntl.h>
#include <unistd.h>

#include "tl-check.h"
#include "tl-create.h"
#include "tl-disk.h"
#include "tl-print.h"
#include "tl-restore.h"
#include "table.h"

#define NR 3

/*
 * Bad sectors: every tl_pread_full() of fd fail_fd (-1: none) that covers
 * byte fail_off (or fail_off2, U64_MAX: none) fails with EIO, as the
 * kernel's read would, until a write covers it (the disk remaps the
 * sector: an interrupted repair may or may not have written over it).
 */
static int fail_fd = -1;
static u64 fail_off, fail_off2 = U64_MAX;

int __real_tl_pread_full(int fd, void *buf, size_t len, u64 off);
int __wrap_tl_pread_full(int fd, void *buf, size_t len, u64 off);

int __wrap_tl_pread_full(int fd, void *buf, size_t len, u64 off)
{
	if (fd >= 0 && fd == fail_fd &&
	    ((off <= fail_off && fail_off < off + len) ||
	     (off <= fail_off2 && fail_off2 < off + len)))
		return -EIO;
	return __real_tl_pread_full(fd, buf, len, off);
}

static void fail_clear(void *arg)
{
	(void)arg;
	fail_fd = -1;
	fail_off2 = U64_MAX;
}

/*
 * The order of a repair's I/O: while io_log_on, every block written
 * (tl_pwrite_full(), one block at a time) and every fsync(), as they were
 * issued.
 */
struct io_event {
	bool flush;
	int fd;
	u64 sector;
};

static struct io_event io_log[64];
static u32 io_log_n;
static bool io_log_on, io_log_full;

static void io_log_add(bool flush, int fd, u64 off)
{
	if (!io_log_on)
		return;
	if (io_log_n < ARRAY_SIZE(io_log))
		io_log[io_log_n++] = (struct io_event){ flush, fd, off >> 9 };
	else
		io_log_full = true;
}

int __real_tl_pwrite_full(int fd, const void *buf, size_t len, u64 off);
int __wrap_tl_pwrite_full(int fd, const void *buf, size_t len, u64 off);

int __wrap_tl_pwrite_full(int fd, const void *buf, size_t len, u64 off)
{
	io_log_add(false, fd, off);
	if (fd >= 0 && fd == fail_fd && off <= fail_off && fail_off < off + len)
		fail_off = U64_MAX;
	if (fd >= 0 && fd == fail_fd && off <= fail_off2 &&
	    fail_off2 < off + len)
		fail_off2 = U64_MAX;
	return __real_tl_pwrite_full(fd, buf, len, off);
}

/* The crash cases' images are thrown away: no need to wait for the disk. */
static bool fsync_skip;

int __real_fsync(int fd);
int __wrap_fsync(int fd);

int __wrap_fsync(int fd)
{
	io_log_add(true, fd, 0);
	return fsync_skip ? 0 : __real_fsync(fd);
}

static void io_log_stop(void *arg)
{
	(void)arg;
	io_log_on = false;
	fsync_skip = false;
}

struct img {
	char path[NR + 1][64];
	int fd[NR + 1];
	u32 nr;	  /* the tiers, and the metadata device if separate */
	u32 meta; /* the device holding the metadata: 0, or NR if separate */
	struct tier_fresh *f;
	struct tier_sb sb[2]; /* generation 2 (slot 0), 3 (slot 1) */
};

/* The extents of both commits: vext, tier, pext, flags, heat, atime. */
static const struct {
	u64 vext;
	u32 tier;
	u64 pext;
	u32 flags;
	u16 heat;
	u32 atime;
} extents[] = {
	{ 0, 0, 0, 0, 3, 10 },	  { 1, 0, 1, 0, 0, 0 },	  { 2, 0, 2, 0, 1, 5 },
	{ 3, 0, 3, 0, 0, 0 },	  { 253, 0, 4, 0, 0, 0 }, { 254, 1, 0, 0, 7, 50 },
	{ 300, 1, 1, 0, 0, 0 },	  { 301, 1, 2, 0, 0, 0 }, { 600, 2, 7, 1, 0, 0 },
	{ 7164, 2, 4094, 2, 9, 90 },
};

static const u64 used_want[NR] = { 5, 3, 2 };

/* Persisted settings the commits of img_make() record (none by default). */
static struct tier_settings img_settings;

static void img_close(void *arg)
{
	struct img *im = arg;
	u32 i;

	for (i = 0; i < im->nr; i++) {
		if (im->fd[i] >= 0)
			close(im->fd[i]);
		unlink(im->path[i]);
	}
}

static void pw(CASE_CTX, struct img *im, u32 dev, u64 sector, const void *blk)
{
	CASE_ASSERT_EQ(tl_pwrite_full(im->fd[dev], blk, TIER_BLOCK_SIZE,
				      sector << 9),
		       0);
}

static void pr(CASE_CTX, struct img *im, u32 dev, u64 sector, void *blk)
{
	CASE_ASSERT_EQ(tl_pread_full(im->fd[dev], blk, TIER_BLOCK_SIZE,
				     sector << 9),
		       0);
}

/* Entry @idx of map copy @c block @i on @dev set to @e, the block resealed. */
static void map_entry_put(CASE_CTX, struct img *im, u32 dev,
			  const struct tier_sb *sb, u32 c, u64 i, u32 idx,
			  const struct tier_map_entry *e)
{
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);

	pr(test, im, dev, tier_map_block_sector(sb, c, i), blk);
	tier_map_block_set(blk, idx, e);
	tier_map_block_seal(blk);
	pw(test, im, dev, tier_map_block_sector(sb, c, i), blk);
}

/* Byte @off of map copy @c block @i on @dev flipped: its checksum fails. */
static void map_block_rot(CASE_CTX, struct img *im, u32 dev,
			  const struct tier_sb *sb, u32 c, u64 i, u32 off)
{
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);

	pr(test, im, dev, tier_map_block_sector(sb, c, i), blk);
	blk[off] ^= 0xff;
	pw(test, im, dev, tier_map_block_sector(sb, c, i), blk);
}

/* A commit: every block of @copy, then the superblock of @gen. */
static void img_commit(CASE_CTX, struct img *im, u64 gen, u32 copy)
{
	struct tier_sb *sb = &im->sb[tier_sb_slot(gen)];
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	u64 i;
	size_t k;

	tier_fresh_sb(im->f, sb);
	sb->generation = gen;
	sb->active_copy = copy;
	sb->commit_time = sb->ctime + 100;
	for (k = 0; k < NR; k++)
		sb->tier[k].used_extents = used_want[k];
	sb->settings = img_settings;
	for (i = 0; i < sb->map_blocks; i++) {
		tier_map_block_init(blk, sb, copy, i);
		for (k = 0; k < ARRAY_SIZE(extents); k++) {
			struct tier_loc loc = { extents[k].tier,
						extents[k].flags,
						tier_pext(extents[k].pext) };
			struct tier_map_entry e = { tier_map_word_encode(&loc),
						    extents[k].heat, 0,
						    extents[k].atime };

			if (extents[k].vext / TIER_MAP_ENTRIES == i)
				tier_map_block_set(blk,
						   extents[k].vext % TIER_MAP_ENTRIES,
						   &e);
		}
		tier_map_block_seal(blk);
		pw(test, im, im->meta, tier_map_block_sector(sb, copy, i), blk);
	}
	tier_sb_encode(sb, blk);
	pw(test, im, im->meta, tier_sb_sector(sb->meta_start, tier_sb_slot(gen)),
	   blk);
	case_free(blk);
}

/* Image device @i's size (device NR: the metadata device). */
static u64 img_sectors(const struct img *im, u32 i)
{
	return i < NR ? im->f->lo.tier[i].dev_sectors :
			im->f->lo.meta_dev_sectors;
}

/* The fixture's images, with @meta_ext its metadata on a device of its own. */
static struct img *img_make_on(CASE_CTX, bool commits, bool meta_ext)
{
	struct img *im = case_alloc(test, sizeof(*im));
	struct tl_err err = { "" };
	int fds[TIER_MAX_DEVS];
	const char *paths[TIER_MAX_DEVS];
	u32 i, idx;

	im->f = fixture(test, meta_ext);
	im->nr = meta_ext ? NR + 1 : NR;
	im->meta = meta_ext ? NR : 0;
	for (i = 0; i < TIER_MAX_DEVS; i++) {
		fds[i] = -1;
		paths[i] = "?";
	}
	for (i = 0; i < im->nr; i++)
		im->fd[i] = -1;
	case_defer(test, img_close, im);
	for (i = 0; i < im->nr; i++) {
		idx = i < NR ? i : TIER_META_DEV;
		snprintf(im->path[i], sizeof(im->path[i]), "/tmp/tl-check-XXXXXX");
		im->fd[i] = mkstemp(im->path[i]);
		CASE_ASSERT_TRUE(im->fd[i] >= 0);
		CASE_ASSERT_EQ(ftruncate(im->fd[i], img_sectors(im, i) << 9),
			       0);
		fds[idx] = im->fd[i];
		paths[idx] = im->path[i];
	}
	CASE_ASSERT_EQ(tl_create_write(im->f, fds, paths, &err), TL_OK);
	if (commits) {
		img_commit(test, im, 2, 1);
		img_commit(test, im, 3, 0);
	}
	return im;
}

static struct img *img_make(CASE_CTX, bool commits)
{
	return img_make_on(test, commits, false);
}

static void md_free(void *arg)
{
	tl_md_free(arg);
}

static void show(const struct tl_md *md)
{
	u32 i;

	for (i = 0; i < md->nr_problems; i++)
		print_message("# %s: %s %s: %s [%s]\n",
			      md->problems[i].sev ? "error" : "warning",
			      md->problems[i].dev >= 0 ?
				      md->dev[md->problems[i].dev].path :
				      "-",
			      md->problems[i].structure, md->problems[i].what,
			      md->problems[i].fix);
}

static bool has_problem(const struct tl_md *md, const char *text)
{
	u32 i;

	for (i = 0; i < md->nr_problems; i++)
		if (strstr(md->problems[i].what, text))
			return true;
	return false;
}

/* Check the devices @fd (paths @path, sizes @sectors) into a new md. */
static struct tl_md *md_check_fds(CASE_CTX, const char *const *path,
				  const int *fd, const u64 *sectors, u32 nr)
{
	struct tl_md *md = case_alloc(test, sizeof(*md));
	struct tl_err err = { "" };
	u32 i;

	tl_md_init(md);
	case_defer(test, md_free, md);
	for (i = 0; i < nr; i++) {
		md->dev[i].path = path[i];
		md->dev[i].fd = fd[i];
		md->dev[i].sectors = sectors[i];
	}
	md->nr_devs = nr;
	CASE_ASSERT_EQ(tl_md_load(md, &err), TL_OK);
	return md;
}

/* Check the image (devices in @order, NULL: as created) into a new md. */
static struct tl_md *md_check(CASE_CTX, struct img *im, u32 nr,
			      const u32 *order)
{
	const char *path[TIER_MAX_DEVS];
	u64 sectors[TIER_MAX_DEVS];
	int fd[TIER_MAX_DEVS];
	u32 i;

	for (i = 0; i < nr; i++) {
		u32 d = order ? order[i] : i;

		path[i] = im->path[d];
		fd[i] = im->fd[d];
		sectors[i] = img_sectors(im, d);
	}
	return md_check_fds(test, path, fd, sectors, nr);
}

/* @md, a check after a repair: clean, and the fixture's used counts. */
static void expect_clean_md(CASE_CTX, const struct tl_md *md, const char *what)
{
	u32 t;

	if (md->nr_errors || md->nr_warnings)
		show(md);
	CASE_EQ_MSG(md->nr_errors, 0, "%s: errors", what);
	CASE_EQ_MSG(md->nr_warnings, 0, "%s: warnings", what);
	for (t = 0; t < NR; t++)
		CASE_EQ_MSG(md->used[t], used_want[t], "%s: tier %u used", what, t);
}

static void expect_clean(CASE_CTX, struct img *im, const char *what)
{
	expect_clean_md(test, md_check(test, im, im->nr, NULL), what);
}

enum want { W_CLEAN, W_WARN, W_ERROR };

/* Check, expect @want, repair, expect clean (or, @fixable false, damage
 * left); returns the number of extents repair had to give up. */
static u32 check_repair(CASE_CTX, struct img *im, enum want want,
			bool fixable, const char *what)
{
	struct tl_md *md = md_check(test, im, NR, NULL);
	struct tl_md *after;
	struct tl_err err = { "" };
	u32 lost, t;

	if ((want == W_ERROR) != (md->nr_errors > 0) ||
	    (want == W_WARN && !md->nr_warnings) ||
	    (want == W_CLEAN && md->nr_warnings))
		show(md);
	CASE_EQ_MSG(md->nr_errors > 0, want == W_ERROR, "%s: errors %u", what,
		    md->nr_errors);
	if (want == W_WARN)
		CASE_TRUE_MSG(md->nr_warnings > 0, "%s: no warning", what);
	if (want == W_CLEAN)
		CASE_EQ_MSG(md->nr_warnings, 0, "%s: warnings", what);
	for (t = 0; t < md->nr_problems; t++) {
		/* Every problem names a device or says none was found. */
		CASE_TRUE(md->problems[t].what[0]);
	}
	CASE_ASSERT_EQ(tl_md_plan_repair(md, false, &err), TL_OK);
	if (want == W_CLEAN)
		CASE_EQ_MSG(md->nr_writes, 0, "%s: writes on a clean device", what);
	CASE_ASSERT_EQ(tl_md_write(md, &err), TL_OK);
	lost = md->nr_losses;
	after = md_check(test, im, NR, NULL);
	if (fixable && (after->nr_errors || after->nr_warnings))
		show(after);
	if (fixable) {
		CASE_EQ_MSG(after->nr_errors, 0, "%s: errors after repair", what);
		CASE_EQ_MSG(after->nr_warnings, 0, "%s: warnings after repair",
			    what);
	} else {
		CASE_TRUE_MSG(after->nr_errors > 0, "%s: repaired anyway", what);
	}
	return lost;
}

/* ---- the clean cases ------------------------------------------------------ */

static void check_clean_test(CASE_CTX)
{
	struct img *im = img_make(test, true);
	struct tl_md *md;

	expect_clean(test, im, "two commits");
	md = md_check(test, im, NR, NULL);
	CASE_EQ(md->sb.generation, 3);
	CASE_EQ(md->sb_slot, 1);
	CASE_EQ(md->sb.active_copy, 0);
	CASE_TRUE(tl_md_dumpable(md));
	CASE_STREQ(md->name, "fast0");
	/* Devices in any order: the labels say which is which. */
	md = md_check(test, im, NR, (const u32[]){ 2, 0, 1 });
	CASE_EQ(md->nr_errors, 0);
	CASE_EQ(md->devof[0], 1);
	CASE_EQ(md->devof[2], 0);
}

/* As created: slot 0 never written is normal, not a warning. */
static void check_fresh_test(CASE_CTX)
{
	struct img *im = img_make(test, false);
	struct tl_md *md = md_check(test, im, NR, NULL);

	show(md);
	CASE_EQ(md->nr_errors, 0);
	CASE_EQ(md->nr_warnings, 0);
	CASE_EQ(md->sb.generation, 1);
}

/* A member left out is damage that repair cannot fix. */
static void check_missing_test(CASE_CTX)
{
	struct img *im = img_make(test, true);
	struct tl_md *md = md_check(test, im, 2, NULL);
	struct tl_err err = { "" };

	CASE_GT(md->nr_errors, 0);
	CASE_ASSERT_EQ(tl_md_plan_repair(md, false, &err), TL_OK);
	CASE_NOT_NULL(strstr(md->problems[0].what, "no member device"));
	CASE_EQ(md->problems[0].fix[0], '\0');
}

/* ---- the format cases' corruptions ------------------------------------- */

static void corrupt_block(u8 *blk, const struct corrupt_case *c)
{
	if (c->size)
		put_le(blk + c->off, c->size, c->val);
	else
		memset(blk, 0, TIER_BLOCK_SIZE);
	if (c->reseal)
		reseal(blk);
}

/* What the kernel makes of superblock slot @s holding @blk (the other slot
 * good): warning when it passes over it, error when it refuses. */
static enum want sb_want(const u8 *blk, u32 s, bool newest, bool *fixable)
{
	struct tier_sb out;
	int ret = tier_sb_decode(blk, s, &out, NULL);

	*fixable = true;
	if (ret == -EPROTO || ret == -EOPNOTSUPP) {
		*fixable = false;
		return W_ERROR;
	}
	if (ret)
		return W_WARN;
	if (newest && tier_sb_needs_ro(&out)) {
		*fixable = false;
		return W_ERROR;
	}
	return W_CLEAN;
}

static enum want label_want(struct img *im, const u8 *blk, u32 dev,
			    bool *fixable)
{
	struct tier_label l;
	int ret = tier_label_decode(blk, &l, NULL);

	*fixable = ret != -EPROTO && ret != -EOPNOTSUPP;
	if (ret)
		return W_ERROR;
	if (tier_label_check_sb(&l, &im->sb[1], dev, NULL))
		return W_ERROR;
	return W_CLEAN;
}

static void check_corrupt_test(CASE_CTX)
{
	const struct corrupt_case *c = CASE_PARAM;
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	char what[CASE_DESC_SIZE + 32];
	struct img *im;
	bool fixable;
	enum want w;
	u32 t;

	for (t = 0; t < 2; t++) {
		im = img_make(test, true);
		switch (c->kind) {
		case BK_LABEL: /* tier 0 (holds the metadata), tier 1 */
			pr(test, im, t, 0, blk);
			corrupt_block(blk, c);
			pw(test, im, t, 0, blk);
			w = label_want(im, blk, t, &fixable);
			snprintf(what, sizeof(what), "%s, tier %u", c->desc, t);
			break;
		case BK_SB: /* the newest slot (1), the older one (0) */
			pr(test, im, 0, tier_sb_sector(8, 1 - t), blk);
			corrupt_block(blk, c);
			pw(test, im, 0, tier_sb_sector(8, 1 - t), blk);
			w = sb_want(blk, 1 - t, t == 0, &fixable);
			snprintf(what, sizeof(what), "%s, slot %u", c->desc, 1 - t);
			break;
		default: /* block 0 of the active copy (0), of copy 1 */
			pr(test, im, 0, tier_map_block_sector(&im->sb[1], t, 0),
			   blk);
			corrupt_block(blk, c);
			pw(test, im, 0, tier_map_block_sector(&im->sb[1], t, 0),
			   blk);
			fixable = true;
			w = tier_map_block_check(blk, &im->sb[1], t, 0, NULL) ?
				    (t == 0 ? W_ERROR : W_WARN) :
				    W_CLEAN;
			snprintf(what, sizeof(what), "%s, copy %u", c->desc, t);
			break;
		}
		CASE_EQ_MSG(check_repair(test, im, w, fixable, what), 0,
			    "%s: extents lost", what);
		if (fixable)
			expect_clean(test, im, what);
	}
}

static void check_label_field_test(CASE_CTX)
{
	const struct label_case *c = CASE_PARAM;
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	struct tier_label l;
	struct img *im;
	bool fixable;
	enum want w;

	if (c->meta_ext || c->dev >= NR)
		return; /* the image has its metadata on tier 0 */
	im = img_make(test, true);
	pr(test, im, c->dev, 0, blk);
	CASE_ASSERT_EQ(tier_label_decode(blk, &l, NULL), 0);
	set_field(test, &l, c->off, c->size, c->val, c->add);
	tier_label_encode(&l, blk);
	pw(test, im, c->dev, 0, blk);
	w = label_want(im, blk, c->dev, &fixable);
	/* A valid label of another size or class is only a warning. */
	if (w == W_CLEAN && (l.dev_sectors != im->sb[1].tier[c->dev].dev_sectors ||
			     l.nr_extents != im->sb[1].tier[c->dev].nr_extents ||
			     l.tier_class != im->sb[1].tier[c->dev].tier_class))
		w = W_WARN;
	check_repair(test, im, w, fixable, c->desc);
}

static void check_sb_field_test(CASE_CTX)
{
	const struct sb_case *c = CASE_PARAM;
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	struct tier_sb sb;
	struct img *im;
	bool fixable;
	enum want w;

	if (c->meta_ext || !c->code)
		return; /* valid variants change the geometry, not a slot */
	im = img_make(test, true);
	sb = im->sb[1];
	set_field(test, &sb, c->off, c->size, c->val, c->add);
	tier_sb_encode(&sb, blk);
	pw(test, im, 0, tier_sb_sector(8, 1), blk);
	w = sb_want(blk, 1, true, &fixable);
	check_repair(test, im, w, fixable, c->desc);
}

static void check_entry_test(CASE_CTX)
{
	const struct entry_case *c = CASE_PARAM;
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	struct tier_map_entry e = { c->word, c->heat, c->flags, c->atime };
	struct img *im;
	u32 copy;

	for (copy = 0; copy < 2; copy++) {
		enum want w;

		im = img_make(test, true);
		if (c->index >= im->sb[1].map_blocks)
			return;
		pr(test, im, 0, tier_map_block_sector(&im->sb[1], copy, c->index),
		   blk);
		tier_map_block_set(blk, c->i, &e);
		tier_map_block_seal(blk);
		pw(test, im, 0, tier_map_block_sector(&im->sb[1], copy, c->index),
		   blk);
		if (tier_map_block_check(blk, &im->sb[1], copy, c->index, NULL))
			w = copy == 0 ? W_ERROR : W_WARN;
		else
			w = W_CLEAN;
		/* A valid new entry may map a used extent twice, or change
		 * the counts: only say that something is found. */
		if (w == W_CLEAN && copy == 0) {
			struct tl_md *md = md_check(test, im, NR, NULL);

			CASE_TRUE_MSG(md->nr_errors > 0 || md->nr_warnings > 0 ||
					      (c->word & TIER_MAPW_FLAGS_MASK) == 0,
				      "%s: a new mapping went unnoticed", c->desc);
			continue;
		}
		check_repair(test, im, w, true, c->desc);
	}
}

/* ---- what the format cases do not make ---------------------------------- */

/* The used count of the newest slot, resealed: the kernel refuses it. */
static void check_used_count_test(CASE_CTX)
{
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	struct img *im = img_make(test, true);
	struct tier_sb sb = im->sb[1];
	struct tl_md *md;

	sb.tier[1].used_extents = 4;
	tier_sb_encode(&sb, blk);
	pw(test, im, 0, tier_sb_sector(8, 1), blk);
	md = md_check(test, im, NR, NULL);
	CASE_EQ(md->nr_errors, 1);
	CASE_NOT_NULL(strstr(md->problems[0].what, "tier 1 used_extents is 4"));
	CASE_EQ(md->problems[0].sector, 16);
	CASE_EQ(check_repair(test, im, W_ERROR, true, "used count"), 0);
	md = md_check(test, im, NR, NULL);
	CASE_EQ(md->sb.generation, 4);
}

/* Both slots gone: rebuilt from the labels and the newest map copy. */
static void check_both_slots_test(CASE_CTX)
{
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	struct img *im = img_make(test, true);
	struct tl_md *md;

	pw(test, im, 0, 8, blk);
	pw(test, im, 0, 16, blk);
	md = md_check(test, im, NR, NULL);
	CASE_EQ(md->nr_errors, 2);
	CASE_TRUE(md->sb_rebuilt);
	CASE_EQ(md->sb.active_copy, 0);
	CASE_FALSE(tl_md_dumpable(md));
	CASE_EQ(check_repair(test, im, W_ERROR, true, "both slots"), 0);
	expect_clean(test, im, "both slots rebuilt");
}

/*
 * Both slots gone, and tier 0's label (checksum intact) gives a virtual
 * size beyond what its map holds: each label passes its own checks, so the
 * superblock rebuilt from them was used as it was, and every pass over
 * the map (tier_map_blocks_for(virt_extents) blocks) read past the map
 * buffers (map_blocks blocks): a heap overflow. It is refused as damaged
 * labels, and repair writes nothing.
 */
static void check_rebuild_virt_test(CASE_CTX)
{
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	struct img *im = img_make(test, true);
	struct tl_err err = { "" };
	struct tier_label l;
	struct tl_md *md;
	u32 i;

	memset(blk, 0, TIER_BLOCK_SIZE);
	pw(test, im, 0, 8, blk);
	pw(test, im, 0, 16, blk);
	for (i = 0; i < NR; i++) {
		pr(test, im, i, 0, blk);
		CASE_ASSERT_EQ(tier_label_decode(blk, &l, NULL), 0);
		l.virt_extents = im->sb[1].map_blocks * TIER_MAP_ENTRIES * 4;
		tier_label_encode(&l, blk);
		CASE_ASSERT_EQ(tier_label_decode(blk, &l, NULL), 0);
		pw(test, im, i, 0, blk);
	}
	md = md_check(test, im, NR, NULL);
	show(md);
	CASE_GT(md->nr_errors, 0);
	CASE_FALSE(md->sb_rebuilt);
	CASE_TRUE(md->sb_fatal);
	CASE_TRUE(has_problem(md, "the labels needed to rebuild it are missing or damaged"));
	CASE_ASSERT_EQ(tl_md_plan_repair(md, false, &err), TL_OK);
	CASE_EQ(md->nr_writes, 0);
}

/*
 * A superblock slot that cannot be read (either one: slot 1 holds the
 * newest commit, generation 3; slot 0 would hold the next). The kernel
 * refuses the device (tier_md_load_sb() stops at the read error), so check
 * reports an error (it said "the kernel passes over it", a warning, exit
 * 0); and the slot may hold a newer commit than the readable one, which
 * repair would roll back by writing the readable slot's generation + 1
 * there: without --force it plans nothing at all, with --force it writes
 * over the slot.
 */
static void check_sb_unreadable_test(CASE_CTX)
{
	struct tl_err err = { "" };
	struct img *im;
	struct tl_md *md;
	u64 sector, gen;
	u32 bad, i, n;

	case_defer(test, fail_clear, NULL);
	for (bad = 0; bad < 2; bad++) {
		im = img_make(test, true);
		sector = tier_sb_sector(8, bad);
		fail_fd = im->fd[0];
		fail_off = sector << 9;
		md = md_check(test, im, NR, NULL);
		show(md);
		CASE_EQ_MSG(md->nr_errors, 1, "slot %u", bad);
		CASE_EQ(md->sb_slot, 1 - bad);
		gen = md->sb.generation;
		for (i = n = 0; i < md->nr_problems; i++) {
			const struct tl_problem *p = &md->problems[i];

			if (strcmp(p->structure, "superblock"))
				continue;
			n++;
			CASE_EQ(p->sev, TL_SEV_ERROR);
			CASE_EQ(p->slot, bad);
			CASE_EQ(p->sector, sector);
			CASE_NOT_NULL(strstr(p->what, "read error"));
			CASE_NOT_NULL(strstr(p->what, "the kernel refuses"));
			CASE_NOT_NULL(strstr(p->what, "cannot be known"));
			CASE_NOT_NULL(strstr(p->what, "'tierctl repair --force'"));
		}
		CASE_EQ(n, 1);

		/* Without --force: no write at all, the error stays. */
		CASE_ASSERT_EQ(tl_md_plan_repair(md, false, &err), TL_OK);
		for (i = 0; i < md->nr_writes; i++)
			CASE_FALSE_MSG(md->writes[i].dev == 0 &&
					       md->writes[i].sector == sector,
				       "slot %u written over: %s", bad,
				       md->writes[i].what);
		CASE_EQ_MSG(md->nr_writes, 0, "slot %u", bad);
		CASE_NOT_NULL(md->repair_refused);
		for (i = 0; i < md->nr_problems; i++)
			if (md->problems[i].sev == TL_SEV_ERROR)
				CASE_EQ(md->problems[i].fix[0], '\0');

		/* --force: the slot is written over, the device clean. */
		md = md_check(test, im, NR, NULL);
		CASE_ASSERT_EQ(tl_md_plan_repair(md, true, &err), TL_OK);
		for (i = n = 0; i < md->nr_writes; i++)
			n += md->writes[i].dev == 0 &&
			     md->writes[i].sector == sector;
		CASE_EQ(n, 1);
		for (i = 0; i < md->nr_problems; i++)
			if (!strcmp(md->problems[i].structure, "superblock"))
				CASE_NOT_NULL(strstr(md->problems[i].fix,
						     "--force"));
		CASE_ASSERT_EQ(tl_md_write(md, &err), TL_OK);
		fail_fd = -1;
		expect_clean(test, im, bad ? "newest slot forced" :
					     "older slot forced");
		md = md_check(test, im, NR, NULL);
		CASE_EQ(md->sb.generation, gen + 1);
		CASE_EQ(md->sb_slot, bad);
	}
}

/*
 * A bad sector in each map copy, in different blocks: check read the map
 * in batches of 256 blocks and took a failed batch for 256 unreadable
 * blocks, so one bad sector made every block of the fixture's map (29 per
 * copy) an error, and repair, finding "both copies unreadable" everywhere,
 * unmapped every extent. Only the two blocks are bad, and each is rebuilt
 * from the other copy with nothing lost.
 */
static void check_map_bad_sector_test(CASE_CTX)
{
	struct tl_err err = { "" };
	struct img *im = img_make(test, true);
	struct tl_md *md;
	u32 i, t;

	case_defer(test, fail_clear, NULL);
	fail_fd = im->fd[0];
	fail_off = tier_map_block_sector(&im->sb[1], 0, 3) << 9;
	fail_off2 = (tier_map_block_sector(&im->sb[1], 1, 5) << 9) + 512;
	md = md_check(test, im, NR, NULL);
	show(md);
	CASE_GT(md->sb.map_blocks, 6);
	CASE_EQ(md->sb.active_copy, 0);
	CASE_EQ(md->nr_errors, 1);
	CASE_EQ(md->nr_warnings, 1);
	for (i = 0; i < md->nr_problems; i++) {
		const struct tl_problem *p = &md->problems[i];

		CASE_STREQ(p->structure, "map");
		CASE_EQ(p->block, p->slot ? 5 : 3);
		CASE_NOT_NULL(strstr(p->what, "read error"));
	}
	CASE_ASSERT_EQ(tl_md_plan_repair(md, false, &err), TL_OK);
	CASE_EQ(md->nr_losses, 0);
	/* Copy 1's block 5, the superblock naming copy 1, copy 0's block 3. */
	CASE_ASSERT_EQ(md->nr_writes, 3);
	CASE_EQ(md->writes[0].sector, tier_map_block_sector(&im->sb[1], 1, 5));
	CASE_EQ(md->writes[1].sector, tier_sb_sector(8, 0));
	CASE_EQ(md->writes[2].sector, tier_map_block_sector(&im->sb[1], 0, 3));
	CASE_ASSERT_EQ(tl_md_write(md, &err), TL_OK);
	fail_fd = -1;
	expect_clean(test, im, "a bad sector in each copy");
	md = md_check(test, im, NR, NULL);
	CASE_EQ(md->sb.active_copy, 1);
	for (t = 0; t < NR; t++)
		CASE_EQ(md->used[t], used_want[t]);
}

/*
 * A commit cut before its superblock (generation 4 never written) left
 * block 0 of the inactive copy newer than the superblock, mapping a tier
 * the superblock does not have (an add-tier's) and an extent past tier 2
 * (a grow's); then block 0 of the active copy went bad. Repair rebuilt it
 * from the newer block without checking its entries (the core's block
 * check stops at the generation), and its allocator scan indexed its
 * bitmaps with them: a NULL bitmap or a heap overflow. The entries the
 * superblock does not allow are unmapped (counted lost), the rest kept.
 */
static void check_newer_copy_entries_test(CASE_CTX)
{
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	u8 *newer = case_alloc(test, TIER_BLOCK_SIZE);
	struct tier_loc added = { 3, 0, tier_pext(0) };
	struct tier_loc grown = { 2, 0, tier_pext(1 << 20) };
	struct tier_map_entry e;
	struct img *im = img_make(test, true);
	struct tier_sb sb4 = im->sb[1];
	struct tl_err err = { "" };
	struct tl_md *md;
	u32 k;

	pr(test, im, 0, tier_map_block_sector(&im->sb[1], 1, 0), blk);
	sb4.generation = 4;
	tier_map_block_init(newer, &sb4, 1, 0);
	for (k = 0; k < TIER_MAP_ENTRIES; k++) {
		tier_map_block_get(blk, k, &e);
		tier_map_block_set(newer, k, &e);
	}
	e = (struct tier_map_entry){ tier_map_word_encode(&added), 0, 0, 0 };
	tier_map_block_set(newer, 5, &e);
	e = (struct tier_map_entry){ tier_map_word_encode(&grown), 0, 0, 0 };
	tier_map_block_set(newer, 6, &e);
	tier_map_block_seal(newer);
	pw(test, im, 0, tier_map_block_sector(&im->sb[1], 1, 0), newer);
	map_block_rot(test, im, 0, &im->sb[1], 0, 0, 100);

	md = md_check(test, im, NR, NULL);
	show(md);
	CASE_EQ(md->nr_errors, 1);
	CASE_EQ(md->nr_warnings, 1);
	CASE_ASSERT_EQ(tl_md_plan_repair(md, false, &err), TL_OK);
	show(md);
	CASE_EQ(md->nr_losses, 2);
	CASE_ASSERT_EQ(tl_md_write(md, &err), TL_OK);
	expect_clean(test, im, "newer inactive block");
}

/* One physical extent mapped twice (in both copies): one mapping goes. */
static void check_double_use_test(CASE_CTX)
{
	struct img *im = img_make(test, true);
	struct tier_loc loc = { 0, 0, tier_pext(1) };
	struct tier_map_entry e = { tier_map_word_encode(&loc), 0, 0, 0 };
	struct tl_md *md;
	u32 c;

	for (c = 0; c < 2; c++)
		map_entry_put(test, im, 0, &im->sb[1], c, 0, 9, &e);
	md = md_check(test, im, NR, NULL);
	show(md);
	CASE_EQ(md->nr_errors, 1);
	CASE_NOT_NULL(strstr(md->problems[0].what,
			     "tier 0 physical extent 1 is mapped twice: by virtual extents 1 and 9"));
	CASE_EQ(check_repair(test, im, W_ERROR, true, "double use"), 1);
	expect_clean(test, im, "double use");
}

/* Block 0 unreadable in both copies: its extents are given up. */
static void check_both_copies_test(CASE_CTX)
{
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	struct img *im = img_make(test, true);
	struct tl_md *md;

	memset(blk, 0xee, TIER_BLOCK_SIZE);
	pw(test, im, 0, tier_map_block_sector(&im->sb[1], 0, 0), blk);
	pw(test, im, 0, tier_map_block_sector(&im->sb[1], 1, 0), blk);
	/* The block is the error; the used counts, unknowable, are not. */
	md = md_check(test, im, NR, NULL);
	show(md);
	CASE_EQ(md->nr_errors, 1);
	CASE_EQ(md->nr_warnings, 1);
	CASE_EQ(check_repair(test, im, W_ERROR, true, "both copies"),
		TIER_MAP_ENTRIES);
	md = md_check(test, im, NR, NULL);
	CASE_EQ(md->used[0], 0);
	CASE_EQ(md->used[1], 3);
}

/* A label destroyed: found by elimination, rebuilt from the superblock. */
static void check_label_gone_test(CASE_CTX)
{
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	u8 *orig = case_alloc(test, TIER_BLOCK_SIZE);
	struct img *im = img_make(test, true);
	u32 t;

	for (t = 0; t < NR; t++) {
		pr(test, im, t, 0, orig);
		pw(test, im, t, 0, blk);
		check_repair(test, im, W_ERROR, true, "zeroed label");
		pr(test, im, t, 0, blk);
		/* The very same label as create wrote. */
		CASE_EQ_MSG(memcmp(blk, orig, TIER_BLOCK_SIZE), 0, "tier %u", t);
		memset(blk, 0, TIER_BLOCK_SIZE);
	}
}

/*
 * Two labels destroyed (tiers 1 and 2), the devices given in another
 * order than the tiers: they took the missing tiers in the order given, and
 * repair wrote tier 1's label on tier 2's device, which activate would
 * then have used as tier 1. Which is which cannot be told: neither is
 * placed, no label is written on them. One label gone is still rebuilt
 * (check_label_gone_test).
 */
static void check_labels_gone_ambiguous_test(CASE_CTX)
{
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	struct img *im = img_make(test, true);
	struct tl_err err = { "" };
	struct tl_md *md;
	u32 i;

	memset(blk, 0, TIER_BLOCK_SIZE);
	pw(test, im, 1, 0, blk);
	pw(test, im, 2, 0, blk);
	md = md_check(test, im, NR, (const u32[]){ 0, 2, 1 });
	show(md);
	CASE_GT(md->nr_errors, 0);
	CASE_EQ(md->devof[1], -1);
	CASE_EQ(md->devof[2], -1);
	CASE_TRUE(has_problem(md, "which is which cannot be told"));
	CASE_ASSERT_EQ(tl_md_plan_repair(md, false, &err), TL_OK);
	for (i = 0; i < md->nr_writes; i++)
		CASE_FALSE_MSG(md->writes[i].dev != 0 && md->writes[i].sector == 0,
			       "label written on %s: %s",
			       md->dev[md->writes[i].dev].path,
			       md->writes[i].what);
}

static void map_destroy(void *arg)
{
	tier_map_destroy(arg);
}

/*
 * Heat and entry flags the kernel keeps or ignores: a warning, left alone.
 * An undefined extent flag (0x80): tier_map_load_block() refuses the block
 * (-EOPNOTSUPP, MAP_ENTRY_FLAGS), so it is an error (it was a warning: the
 * device checked clean and did not activate), which repair clears, keeping
 * the mapping and the rest.
 */
static void check_heat_flags_test(CASE_CTX)
{
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	struct img *im = img_make(test, true);
	struct tier_map *m = case_alloc(test, sizeof(*m));
	struct tier_err terr = { 0 };
	struct tl_err err = { "" };
	struct tier_map_entry e, got;
	struct tier_loc loc;
	struct tl_md *md;
	u32 i;

	pr(test, im, 0, tier_map_block_sector(&im->sb[1], 0, 0), blk);
	tier_map_block_get(blk, 0, &e);
	e.flags = 1;			/* reserved entry flags */
	e.word |= 0x80ULL << 48;	/* an undefined extent flag */
	e.atime = 10 * 86400;		/* long after the last commit */
	tier_map_block_set(blk, 0, &e);
	tier_map_block_seal(blk);
	pw(test, im, 0, tier_map_block_sector(&im->sb[1], 0, 0), blk);

	/* The kernel's verdict on that block. */
	CASE_ASSERT_EQ(tier_map_init(m, im->sb[1].virt_extents, TIER_MAP_F_HEAT),
		       0);
	case_defer(test, map_destroy, m);
	CASE_EQ(tier_map_block_check(blk, &im->sb[1], 0, 0, &terr), 0);
	CASE_EQ(tier_map_load_block(m, &im->sb[1], 0, 0, blk, &terr),
		-EOPNOTSUPP);
	CASE_EQ(terr.code, TIER_E_MAP_ENTRY_FLAGS);

	md = md_check(test, im, NR, NULL);
	show(md);
	CASE_EQ(md->nr_errors, 1);
	CASE_EQ(md->nr_warnings, 1);
	CASE_ASSERT_EQ(md->nr_problems, 2);
	CASE_EQ(md->problems[0].sev, TL_SEV_ERROR);
	CASE_NOT_NULL(strstr(md->problems[0].what,
			     "1 entries with undefined extent flags (0x80; defined: 0x3): the kernel refuses the map"));
	CASE_EQ(md->problems[0].block, 0);
	CASE_EQ(md->problems[0].slot, 0);
	CASE_EQ(md->problems[0].vext, 0);
	CASE_EQ(md->problems[1].sev, TL_SEV_WARN);
	CASE_NOT_NULL(strstr(md->problems[1].what,
			     "1 entries with reserved entry flags set, 1 accessed after the last commit"));

	/*
	 * Repair clears the undefined bit only: the warning stays. Block 0
	 * goes to copy 1, the superblock makes that copy active, then copy
	 * 0's block 0 follows.
	 */
	CASE_ASSERT_EQ(tl_md_plan_repair(md, false, &err), TL_OK);
	CASE_EQ(md->nr_writes, 3);
	CASE_EQ(md->nr_losses, 0);
	CASE_NOT_NULL(strstr(md->problems[0].fix,
			     "undefined extent flags cleared in 1 entries"));
	CASE_EQ(md->problems[1].fix[0], '\0');
	CASE_ASSERT_EQ(tl_md_write(md, &err), TL_OK);
	md = md_check(test, im, NR, NULL);
	show(md);
	CASE_EQ(md->nr_errors, 0);
	CASE_EQ(md->nr_warnings, 1);
	for (i = 0; i < NR; i++)
		CASE_EQ(md->used[i], used_want[i]);
	tier_map_block_get(md->map[md->sb.active_copy], 0, &got);
	CASE_ASSERT_TRUE(tier_map_word_decode(got.word, &loc));
	CASE_EQ(got.word, e.word & ~(0x80ULL << 48));
	CASE_EQ(got.flags, 1);
	CASE_EQ(got.atime, 10 * 86400);
	CASE_EQ(got.heat, e.heat);
	CASE_EQ(tier_map_load_block(m, &md->sb, md->sb.active_copy, 0,
				    md->map[md->sb.active_copy], &terr),
		0);
}

/* ---- dump and restore ------------------------------------------------------ */

/* tierctl dump --json of @md, as text (malloc'ed). */
static char *dump_json(CASE_CTX, const struct tl_md *md, size_t *len)
{
	char path[] = "/tmp/tl-dump-XXXXXX";
	int fd = mkstemp(path), saved;
	char *buf;
	off_t n;

	CASE_ASSERT_TRUE(fd >= 0);
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	print_open(true);
	tl_md_print_dump(md);
	print_close();
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	n = lseek(fd, 0, SEEK_END);
	buf = case_alloc(test, n + 1);
	CASE_ASSERT_EQ(pread(fd, buf, n, 0), n);
	close(fd);
	unlink(path);
	*len = n;
	return buf;
}

static void dump_free(void *arg)
{
	tl_dump_free(arg);
}

static void restore_into(CASE_CTX, struct tl_dump *d, bool keep,
			 const char *name, struct img *to)
{
	struct tl_err err = { "" };
	struct tier_fresh f;
	int fds[TIER_MAX_DEVS];
	const char *paths[TIER_MAX_DEVS];
	u32 i;

	for (i = 0; i < TIER_MAX_DEVS; i++) {
		fds[i] = i < NR ? to->fd[i] : -1;
		paths[i] = i < NR ? to->path[i] : "?";
	}
	CASE_ASSERT_EQ_MSG(tl_restore_plan(d, keep, name, &f, &err), TL_OK, "%s",
			   err.msg);
	CASE_ASSERT_EQ_MSG(tl_restore_write(d, &f, fds, paths, &err), TL_OK,
			   "%s", err.msg);
}

/* dump -> restore onto other images -> the same map, heat and superblock
 * but for the identity (and the name when asked). */
static void check_dump_restore_test(CASE_CTX)
{
	struct img *im = img_make(test, true), *to = img_make(test, false);
	struct tl_md *md = md_check(test, im, NR, NULL), *md2;
	struct tl_err err = { "" };
	struct tl_dump d;
	size_t len;
	char *text = dump_json(test, md, &len);
	u64 i;
	u32 t;

	CASE_ASSERT_EQ_MSG(tl_dump_parse(text, len, &d, &err), TL_OK, "%s",
			   err.msg);
	case_defer(test, dump_free, &d);
	CASE_EQ(d.nr_ext, ARRAY_SIZE(extents));
	CASE_EQ(d.generation, 3);
	CASE_EQ(d.nr_tiers, NR);
	CASE_STREQ(d.name, "fast0");
	restore_into(test, &d, false, "copy", to);
	md2 = md_check(test, to, NR, NULL);
	show(md2);
	CASE_EQ(md2->nr_errors, 0);
	CASE_EQ(md2->nr_warnings, 0);
	CASE_STREQ(md2->name, "copy");
	CASE_NE(memcmp(md2->uuid, md->uuid, TIER_UUID_LEN), 0);
	CASE_EQ(md2->sb.generation, 3);
	CASE_EQ(md2->sb.ctime, md->sb.ctime);
	CASE_EQ(md2->sb.commit_time, md->sb.commit_time);
	for (t = 0; t < NR; t++)
		CASE_EQ(md2->used[t], used_want[t]);
	for (i = 0; i < md->nr_blocks; i++) {
		struct tier_map_entry a, b;
		u32 k;

		for (k = 0; k < TIER_MAP_ENTRIES; k++) {
			tier_map_block_get(md->map[md->sb.active_copy] +
						   i * TIER_BLOCK_SIZE, k, &a);
			tier_map_block_get(md2->map[md2->sb.active_copy] +
						   i * TIER_BLOCK_SIZE, k, &b);
			CASE_EQ(a.word, b.word);
			CASE_EQ(a.heat, b.heat);
			CASE_EQ(a.atime, b.atime);
		}
	}
	/* --keep-uuid: the very same identity. */
	restore_into(test, &d, true, NULL, to);
	md2 = md_check(test, to, NR, NULL);
	CASE_EQ(md2->nr_errors, 0);
	CASE_EQ(memcmp(md2->uuid, md->uuid, TIER_UUID_LEN), 0);
	CASE_EQ(memcmp(&md2->sb, &md->sb, sizeof(md->sb)), 0);
}

/*
 * A dump of a device whose tier grew since create: its layout is no longer
 * what create makes of its sizes (the map was sized at creation), and it
 * restores as recorded.
 */
static void check_restore_grown_test(CASE_CTX)
{
	struct img *im = img_make(test, true), *to = img_make(test, false);
	struct tl_md *md = md_check(test, im, NR, NULL), *md2;
	struct tl_err err = { "" };
	struct tl_dump d;
	size_t len;
	char *text = dump_json(test, md, &len);
	u64 grow = 4 * TIER_MAP_ENTRIES;

	CASE_ASSERT_EQ_MSG(tl_dump_parse(text, len, &d, &err), TL_OK, "%s",
			   err.msg);
	case_defer(test, dump_free, &d);
	d.tier[NR - 1].dev_sectors += grow << d.extent_shift;
	d.tier[NR - 1].nr_extents += grow;
	CASE_ASSERT_EQ(ftruncate(to->fd[NR - 1],
				 d.tier[NR - 1].dev_sectors << 9),
		       0);
	to->f->lo.tier[NR - 1].dev_sectors = d.tier[NR - 1].dev_sectors;
	restore_into(test, &d, false, "grown", to);
	md2 = md_check(test, to, NR, NULL);
	show(md2);
	CASE_EQ(md2->nr_errors, 0);
	CASE_EQ(md2->sb.map_blocks, md->sb.map_blocks);
	CASE_EQ(md2->sb.tier[NR - 1].nr_extents, d.tier[NR - 1].nr_extents);
	CASE_EQ(md2->used[NR - 1], used_want[NR - 1]);
}

/* Dumps restore refuses. */
static void check_restore_bad_test(CASE_CTX)
{
	struct img *im = img_make(test, true);
	struct tl_md *md = md_check(test, im, NR, NULL);
	struct tl_err err = { "" };
	struct tier_fresh f;
	struct tl_dump d;
	size_t len;
	char *text = dump_json(test, md, &len), *p;

	CASE_EQ(tl_dump_parse("{}", 2, &d, &err), TL_USAGE);
	CASE_NOT_NULL(strstr(err.msg, "not a dm-tier dump"));
	CASE_EQ(tl_dump_parse("[1]", 3, &d, &err), TL_USAGE);
	CASE_EQ(tl_dump_parse(text, len / 2, &d, &err), TL_USAGE);
	/* Two extents on one physical extent. */
	CASE_ASSERT_EQ(tl_dump_parse(text, len, &d, &err), TL_OK);
	case_defer(test, dump_free, &d);
	d.ext[1].tier = d.ext[0].tier;
	d.ext[1].pext = d.ext[0].pext;
	CASE_EQ(tl_restore_plan(&d, false, NULL, &f, &err), TL_USAGE);
	CASE_NOT_NULL(strstr(err.msg, "mapped twice"));
	tl_dump_free(&d);
	d.ext = NULL;
	/*
	 * Undefined extent flags (bits 50..55 of the word): the kernel
	 * refuses the map (restore accepted up to 0xff); the defined ones
	 * restore (the dump has extents with 0x1 and 0x2).
	 */
	CASE_ASSERT_EQ(tl_dump_parse(text, len, &d, &err), TL_OK);
	d.ext[0].flags = 0x80;
	CASE_EQ(tl_restore_plan(&d, false, NULL, &f, &err), TL_USAGE);
	CASE_NOT_NULL(strstr(err.msg, "extent flags 0x80, of which 0x80 are not defined"));
	d.ext[0].flags = TIER_EXT_F_PINNED | 0x04;
	CASE_EQ(tl_restore_plan(&d, false, NULL, &f, &err), TL_USAGE);
	d.ext[0].flags = TIER_EXT_F_PINNED | TIER_EXT_F_MEMRES;
	CASE_EQ_MSG(tl_restore_plan(&d, false, NULL, &f, &err), TL_OK, "%s",
		    err.msg);
	tl_dump_free(&d);
	d.ext = NULL;
	/* A tier with more extents than its device holds. */
	p = strstr(text, "\"nr_extents\":2047");
	CASE_ASSERT_NOT_NULL(p);
	memcpy(p, "\"nr_extents\":9047", 17);
	CASE_ASSERT_EQ(tl_dump_parse(text, len, &d, &err), TL_OK);
	CASE_EQ(tl_restore_plan(&d, false, NULL, &f, &err), TL_USAGE);
	CASE_NOT_NULL(strstr(err.msg, "not one the kernel would load"));
}

static void settings_clear(void *arg)
{
	memset(arg, 0, sizeof(img_settings));
}

/*
 * Persisted settings: dump shows them (keys by name, an id tierctl does not
 * know as "unknown"), restore and repair keep them, and a malformed record
 * is a warning (the kernel ignores it and loads the device).
 */
static void check_settings_test(CASE_CTX)
{
	struct img *im, *to;
	struct tl_md *md, *md2;
	struct tl_err err = { "" };
	struct tl_dump d;
	size_t len;
	char *text;
	u8 *blk;
	u32 c;

	case_defer(test, settings_clear, &img_settings);
	tier_settings_put(&img_settings, tier_table_settings_id("high_watermark"),
			  70);
	tier_settings_put(&img_settings, 999, 5);
	im = img_make(test, true);
	memset(&img_settings, 0, sizeof(img_settings));
	to = img_make(test, false);
	md = md_check(test, im, NR, NULL);
	show(md);
	CASE_EQ(md->nr_errors, 0);
	CASE_EQ(md->nr_warnings, 0);
	CASE_EQ(md->sb.settings.count, 2);
	CASE_EQ(md->sb.compat, TIER_FEATURE_COMPAT_SETTINGS);
	text = dump_json(test, md, &len);
	CASE_NOT_NULL(strstr(text, "\"settings\":[{\"key\":\"high_watermark\",\"value\":70,\"id\":5},{\"key\":\"unknown\",\"value\":5,\"id\":999}]"));
	CASE_ASSERT_EQ_MSG(tl_dump_parse(text, len, &d, &err), TL_OK, "%s",
			   err.msg);
	case_defer(test, dump_free, &d);
	CASE_EQ(d.settings.count, 2);
	restore_into(test, &d, true, NULL, to);
	md2 = md_check(test, to, NR, NULL);
	CASE_EQ(md2->nr_errors, 0);
	CASE_EQ(memcmp(&md2->sb.settings, &md->sb.settings,
		       sizeof(md->sb.settings)), 0);
	CASE_EQ(md2->sb.compat, TIER_FEATURE_COMPAT_SETTINGS);

	/* A repair (of the other slot) writes a superblock that keeps them. */
	blk = case_alloc(test, TIER_BLOCK_SIZE);
	pr(test, im, 0, tier_sb_sector(md->sb.meta_start, 0), blk);
	blk[0x40] ^= 0xff;
	pw(test, im, 0, tier_sb_sector(md->sb.meta_start, 0), blk);
	check_repair(test, im, W_WARN, true, "settings: other slot");
	md2 = md_check(test, im, NR, NULL);
	CASE_EQ(memcmp(&md2->sb.settings, &md->sb.settings,
		       sizeof(md->sb.settings)), 0);

	/* A malformed record in the slot in use: a warning, no settings. */
	c = md2->sb_slot;
	pr(test, im, 0, tier_sb_sector(md->sb.meta_start, c), blk);
	blk[0x302] = 40; /* count */
	c = tier_block_csum(blk);
	memcpy(blk, &c, sizeof(c));
	pw(test, im, 0, tier_sb_sector(md->sb.meta_start, md2->sb_slot), blk);
	md2 = md_check(test, im, NR, NULL);
	show(md2);
	CASE_EQ(md2->nr_errors, 0);
	CASE_EQ(md2->nr_warnings, 1);
	CASE_EQ(md2->sb.settings.count, 0);

	/* A dump with a setting twice is refused. */
	tl_dump_free(&d);
	CASE_NOT_NULL(strstr(text, "\"id\":999"));
	memcpy(strstr(text, "\"id\":999"), "\"id\":5  ", 8);
	CASE_EQ(tl_dump_parse(text, len, &d, &err), TL_USAGE);
	CASE_NOT_NULL(strstr(err.msg, "twice"));
}

static void stale_close(void *arg)
{
	int *fd = arg;

	close(*fd);
}

/*
 * After a tier-list change the labels' tier index and count are hints
 * (here tier 1's count is out of date, as between add-tier's commit and
 * its rewrite of the hints): clean. A label of this device the superblock
 * does not list (a removed tier's, not wiped yet) is a warning naming it.
 */
static void check_tier_list_hints_test(CASE_CTX)
{
	struct img *im = img_make(test, true);
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	char path[64] = "/tmp/tl-check-XXXXXX";
	const char *paths[NR + 1];
	u64 sectors[NR + 1];
	int fds[NR + 1];
	struct tier_label l;
	struct tl_md *md;
	int *fd = case_alloc(test, sizeof(*fd));

	pr(test, im, 1, 0, blk);
	CASE_ASSERT_EQ(tier_label_decode(blk, &l, NULL), 0);
	l.nr_tiers = 2;
	tier_label_encode(&l, blk);
	pw(test, im, 1, 0, blk);
	expect_clean(test, im, "stale tier count hint");

	/* A fourth device with a stale label of tier 3. */
	pr(test, im, 2, 0, blk);
	CASE_ASSERT_EQ(tier_label_decode(blk, &l, NULL), 0);
	l.tier_index = 3;
	l.nr_tiers = 4;
	memset(l.member_uuid, 0x77, TIER_UUID_LEN);
	tier_label_encode(&l, blk);
	*fd = mkstemp(path);
	CASE_ASSERT_TRUE(*fd >= 0);
	unlink(path);
	case_defer(test, stale_close, fd);
	CASE_ASSERT_EQ(ftruncate(*fd, l.dev_sectors << 9), 0);
	CASE_ASSERT_EQ(tl_pwrite_full(*fd, blk, TIER_BLOCK_SIZE, 0), 0);
	for (u32 i = 0; i < NR; i++) {
		paths[i] = im->path[i];
		fds[i] = im->fd[i];
		sectors[i] = im->f->lo.tier[i].dev_sectors;
	}
	paths[NR] = "/dev/stale";
	fds[NR] = *fd;
	sectors[NR] = l.dev_sectors;
	md = md_check_fds(test, paths, fds, sectors, NR + 1);
	show(md);
	CASE_EQ(md->nr_errors, 0);
	CASE_EQ(md->nr_warnings, 1);
	CASE_EQ(md->nr_tiers, NR);
	CASE_EQ(md->devof[3], -1);
	CASE_ASSERT_TRUE(md->nr_problems >= 1);
	CASE_NOT_NULL(strstr(md->problems[0].what,
			     "carries a label of tier 3 of fast0 that the superblock does not list"));
	CASE_EQ(md->problems[0].dev, NR);
}

/*
 * A resize cut between the kernel's commit and the label rewrite: tier 1's
 * label gives the size before the growth (a hint, accepted by the kernel),
 * which check reports as a warning naming the command that rewrites it.
 */
/*
 * Tier 2 with the spare metadata area add-tier gives a tier 0 replacement
 * (docs/FORMAT.md "Replacing tier 0"), its label a resize hint behind:
 * repair rewrote the label from the superblock without the spare area,
 * after which the replacement cannot finish ("tier 1 has no room for tier
 * 0's metadata"). The rewritten label keeps it.
 */
static void check_repair_keeps_spare_test(CASE_CTX)
{
	struct img *im = img_make(test, true);
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	u64 spare = 2 + 2 * im->sb[1].map_blocks;
	struct tier_label l;

	pr(test, im, 2, 0, blk);
	CASE_ASSERT_EQ(tier_label_decode(blk, &l, NULL), 0);
	l.spare_meta_blocks = spare;
	l.nr_extents -= 5;
	l.dev_sectors -= 5 << l.extent_shift;
	tier_label_encode(&l, blk);
	CASE_ASSERT_EQ(tier_label_decode(blk, &l, NULL), 0);
	pw(test, im, 2, 0, blk);
	check_repair(test, im, W_WARN, true, "resize hint with a spare area");
	pr(test, im, 2, 0, blk);
	CASE_ASSERT_EQ(tier_label_decode(blk, &l, NULL), 0);
	CASE_EQ(l.nr_extents, im->sb[1].tier[2].nr_extents);
	CASE_EQ(l.spare_meta_blocks, spare);
}

static void check_resize_hint_test(CASE_CTX)
{
	struct img *im = img_make(test, true);
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	struct tier_label l;
	struct tl_md *md;

	pr(test, im, 1, 0, blk);
	CASE_ASSERT_EQ(tier_label_decode(blk, &l, NULL), 0);
	l.nr_extents -= 5;
	l.dev_sectors -= 5 << l.extent_shift;
	tier_label_encode(&l, blk);
	pw(test, im, 1, 0, blk);
	md = md_check(test, im, NR, NULL);
	show(md);
	CASE_EQ(md->nr_errors, 0);
	CASE_EQ(md->nr_warnings, 1);
	CASE_ASSERT_TRUE(md->nr_problems >= 1);
	CASE_NOT_NULL(strstr(md->problems[0].what,
			     "a resize cut before it rewrote the label"));
	CASE_NOT_NULL(strstr(md->problems[0].what, "'tierctl resize fast0'"));
	/* Larger than the superblock's: the kernel refuses it, an error. */
	l.nr_extents += 10;
	l.dev_sectors += 10 << l.extent_shift;
	tier_label_encode(&l, blk);
	pw(test, im, 1, 0, blk);
	md = md_check(test, im, NR, NULL);
	CASE_EQ(md->nr_errors, 1);
}

/* The fixture with its metadata on a separate 64 MiB device (index NR). */
struct meta_img {
	char path[NR + 1][64];
	const char *paths[NR + 1]; /* path[i], as md_check_fds() takes them */
	u64 sectors[NR + 1]; /* each file's size: a test may shrink one */
	int fd[NR + 1];
	struct tier_fresh *f;
};

static void meta_img_close(void *arg)
{
	struct meta_img *im = arg;
	u32 i;

	for (i = 0; i <= NR; i++) {
		if (im->fd[i] >= 0)
			close(im->fd[i]);
		unlink(im->path[i]);
	}
}

static struct meta_img *meta_img_make(CASE_CTX)
{
	struct meta_img *im = case_alloc(test, sizeof(*im));
	struct tl_err err = { "" };
	int fds[TIER_MAX_DEVS];
	const char *paths[TIER_MAX_DEVS];
	u32 i, idx;

	im->f = fixture(test, true);
	for (i = 0; i < TIER_MAX_DEVS; i++) {
		fds[i] = -1;
		paths[i] = "?";
	}
	for (i = 0; i <= NR; i++)
		im->fd[i] = -1;
	case_defer(test, meta_img_close, im);
	for (i = 0; i <= NR; i++) {
		idx = i < NR ? i : TIER_META_DEV;
		snprintf(im->path[i], sizeof(im->path[i]), "/tmp/tl-check-XXXXXX");
		im->fd[i] = mkstemp(im->path[i]);
		CASE_ASSERT_TRUE(im->fd[i] >= 0);
		im->paths[i] = im->path[i];
		im->sectors[i] = i < NR ? im->f->lo.tier[i].dev_sectors :
					  im->f->lo.meta_dev_sectors;
		CASE_ASSERT_EQ(ftruncate(im->fd[i], im->sectors[i] << 9), 0);
		fds[idx] = im->fd[i];
		paths[idx] = im->path[i];
	}
	CASE_ASSERT_EQ_MSG(tl_create_write(im->f, fds, paths, &err), TL_OK,
			   "%s", err.msg);
	return im;
}

/* Check the fixture's files, at the sizes in im->sectors. */
static struct tl_md *meta_img_check(CASE_CTX, struct meta_img *im)
{
	return md_check_fds(test, im->paths, im->fd, im->sectors, NR + 1);
}

/*
 * A metadata device smaller than its label's dev_sectors, though still
 * holding the metadata area: the kernel refuses it ("The metadata device
 * shrank since its creation"), so check must report an error (it compared
 * the size with the end of the metadata area only, and said clean), which
 * repair leaves alone (a device smaller than at creation).
 */
static void check_meta_dev_shrunk_test(CASE_CTX)
{
	struct meta_img *im = meta_img_make(test);
	struct tl_err err = { "" };
	struct tl_md *md;
	u64 area;

	md = meta_img_check(test, im);
	show(md);
	CASE_EQ(md->nr_errors, 0);
	CASE_EQ(md->nr_warnings, 0);
	CASE_TRUE(md->meta_ext);
	CASE_EQ(md->devof[TIER_META_DEV], NR);

	/* Half the size: the metadata area still fits, the label's not. */
	area = md->sb.meta_start + (2 + 2 * md->sb.map_blocks) * TIER_BLOCK_SECTORS;
	im->sectors[NR] = im->f->lo.meta_dev_sectors / 2;
	CASE_ASSERT_TRUE(im->sectors[NR] > area);
	md = meta_img_check(test, im);
	show(md);
	CASE_EQ(md->nr_errors, 1);
	CASE_ASSERT_TRUE(md->nr_problems >= 1);
	CASE_EQ(md->problems[0].dev, NR);
	CASE_STREQ(md->problems[0].structure, "device");
	CASE_NOT_NULL(strstr(md->problems[0].what, "the device was created with"));
	CASE_ASSERT_EQ(tl_md_plan_repair(md, false, &err), TL_OK);
	CASE_EQ(md->nr_writes, 0);
	CASE_EQ(md->problems[0].fix[0], '\0');
}

/*
 * Crafted sizes. A valid superblock (resealed) whose map copies are 2^40
 * blocks, far past the metadata device: check allocated the map from it
 * before comparing it with the labels ("out of memory for the map", or an
 * allocator abort). A label whose metadata area is 1 block with both slots
 * gone: rebuilding a superblock from it underflowed (meta_blocks - 2) into
 * the same. Both are reported, repair leaves them alone.
 */
static void check_crafted_sizes_test(CASE_CTX)
{
	struct meta_img *mim = meta_img_make(test);
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	struct tl_err err = { "" };
	struct tier_label l;
	struct tier_sb sb;
	struct img *im;
	struct tl_md *md;
	u64 sector;

	md = meta_img_check(test, mim);
	CASE_EQ(md->nr_errors, 0);
	sector = tier_sb_sector(md->sb.meta_start, md->sb_slot);
	CASE_ASSERT_EQ(tl_pread_full(mim->fd[NR], blk, TIER_BLOCK_SIZE,
				     sector << 9), 0);
	CASE_ASSERT_EQ(tier_sb_decode(blk, md->sb_slot, &sb, NULL), 0);
	sb.map_blocks = 1ULL << 40;
	sb.map_start[1] = sb.map_start[0] + sb.map_blocks * TIER_BLOCK_SECTORS;
	tier_sb_encode(&sb, blk);
	CASE_ASSERT_EQ(tier_sb_decode(blk, md->sb_slot, &sb, NULL), 0);
	CASE_ASSERT_EQ(tl_pwrite_full(mim->fd[NR], blk, TIER_BLOCK_SIZE,
				      sector << 9), 0);
	md = meta_img_check(test, mim);
	show(md);
	CASE_GT(md->nr_errors, 0);
	CASE_TRUE(has_problem(md, "gives map copies of 1099511627776 blocks"));
	CASE_TRUE(has_problem(md, "past the end of the device"));
	CASE_TRUE(md->sb_fatal);
	CASE_FALSE(tl_md_dumpable(md));
	CASE_ASSERT_EQ(tl_md_plan_repair(md, false, &err), TL_OK);
	CASE_EQ(md->nr_writes, 0);

	/* Metadata on tier 0: both slots zeroed, its label's area 1 block. */
	im = img_make(test, true);
	memset(blk, 0, TIER_BLOCK_SIZE);
	pw(test, im, 0, 8, blk);
	pw(test, im, 0, 16, blk);
	pr(test, im, 0, 0, blk);
	CASE_ASSERT_EQ(tier_label_decode(blk, &l, NULL), 0);
	l.meta_blocks = 1;
	tier_label_encode(&l, blk);
	CASE_ASSERT_EQ(tier_label_decode(blk, &l, NULL), 0);
	pw(test, im, 0, 0, blk);
	md = md_check(test, im, NR, NULL);
	show(md);
	CASE_GT(md->nr_errors, 0);
	CASE_TRUE(has_problem(md, "the labels needed to rebuild it are missing or damaged"));
	CASE_TRUE(md->sb_fatal);
	CASE_FALSE(md->sb_rebuilt);
	CASE_ASSERT_EQ(tl_md_plan_repair(md, false, &err), TL_OK);
	CASE_EQ(md->nr_writes, 0);
}

/*
 * A power cut in 'replace-tier NAME 0 NEWDEV' after the switch: NEWDEV's
 * label says tier 0 and its superblock is the newest; the old tier 0 still
 * carries a label of tier 0 (another member UUID) and an older superblock.
 * activate takes the newest superblock; check must too, in either order of
 * the devices, and name the old drive a non-member (a warning), not report
 * "tier 0 found twice" (it did). A device given twice is still an error.
 */
static void check_replace_tier0_cut_test(CASE_CTX)
{
	struct img *im = img_make(test, true);
	u64 size = im->f->lo.tier[0].dev_sectors << 9, off;
	u8 *buf = case_alloc(test, 1 << 20);
	char path[64] = "/tmp/tl-check-XXXXXX";
	const char *paths[NR + 1];
	u64 sectors[NR + 1];
	int fds[NR + 1];
	struct tier_label l;
	struct tl_md *md;
	int *fd = case_alloc(test, sizeof(*fd));
	u32 i, order;

	/* The old tier 0: the image as of generation 3, another member. */
	*fd = mkstemp(path);
	CASE_ASSERT_TRUE(*fd >= 0);
	unlink(path);
	case_defer(test, stale_close, fd);
	CASE_ASSERT_EQ(ftruncate(*fd, size), 0);
	for (off = 0; off < size; off += 1 << 20) {
		size_t n = size - off < (1 << 20) ? size - off : 1 << 20;

		CASE_ASSERT_EQ(tl_pread_full(im->fd[0], buf, n, off), 0);
		CASE_ASSERT_EQ(tl_pwrite_full(*fd, buf, n, off), 0);
	}
	pr(test, im, 0, 0, buf);
	CASE_ASSERT_EQ(tier_label_decode(buf, &l, NULL), 0);
	memset(l.member_uuid, 0x5a, TIER_UUID_LEN);
	tier_label_encode(&l, buf);
	CASE_ASSERT_EQ(tl_pwrite_full(*fd, buf, TIER_BLOCK_SIZE, 0), 0);
	/* The new tier 0 committed once more since. */
	img_commit(test, im, 4, 1);

	for (order = 0; order < 2; order++) {
		for (i = 0; i < NR + 1; i++) {
			u32 d = order ? i : (i + NR) % (NR + 1);

			paths[i] = d < NR ? im->path[d] : "/dev/old-tier0";
			fds[i] = d < NR ? im->fd[d] : *fd;
			sectors[i] = im->f->lo.tier[d < NR ? d : 0].dev_sectors;
		}
		md = md_check_fds(test, paths, fds, sectors, NR + 1);
		show(md);
		CASE_EQ_MSG(md->nr_errors, 0, "order %u", order);
		CASE_EQ_MSG(md->nr_warnings, 1, "order %u", order);
		CASE_EQ_MSG(md->sb.generation, 4, "order %u", order);
		CASE_ASSERT_TRUE(md->devof[0] >= 0);
		CASE_EQ_MSG(fds[md->devof[0]], im->fd[0], "order %u", order);
		CASE_ASSERT_TRUE(md->nr_problems >= 1);
		CASE_NOT_NULL(strstr(md->problems[0].what,
				     "carries a label of tier 0 of fast0 that the superblock does not list"));
		CASE_NOT_NULL(strstr(md->problems[0].what, "replace-tier"));
		CASE_STREQ(paths[md->problems[0].dev], "/dev/old-tier0");
		for (i = 0; i < NR; i++)
			CASE_EQ_MSG(md->used[i], used_want[i], "order %u tier %u",
				    order, i);
	}

	/* Tier 1 given twice: that stays an error naming both. */
	for (i = 0; i < NR; i++) {
		paths[i] = im->path[i];
		fds[i] = im->fd[i];
		sectors[i] = im->f->lo.tier[i].dev_sectors;
	}
	paths[NR] = "/dev/tier1-again";
	fds[NR] = im->fd[1];
	sectors[NR] = sectors[1];
	md = md_check_fds(test, paths, fds, sectors, NR + 1);
	show(md);
	CASE_ASSERT_TRUE(md->nr_errors >= 1);
	for (i = 0; i < md->nr_problems; i++)
		if (strstr(md->problems[i].what, "tier 1 found twice"))
			break;
	CASE_TRUE_MSG(i < md->nr_problems, "no 'tier 1 found twice'");
}

/* ---- an interrupted repair ------------------------------------------------ */

/* What crash_img() damages besides the map, and where the metadata is. */
enum {
	CRASH_NO_SB = 1,     /* both superblock slots zeroed */
	CRASH_LABEL = 2,     /* tier 2's label names another device */
	CRASH_META_EXT = 4,  /* the metadata on a device of its own */
	CRASH_SLOT0_EIO = 8, /* slot 0 unreadable: repair --force */
	CRASH_WIDE = 16,     /* copy 1 zeroed from block 3 on */
};

/*
 * Damage that repair fixes by rewriting blocks of the active map copy (0,
 * generation 3 in slot 1): block 0 with a bad checksum, copy 1's good;
 * block 1 readable, but mapping vext 454 to tier 1 pext 0 as vext 254 does
 * (entry 200: in the block's second half, so that a torn write of the
 * block fails its checksum), and copy 1's block 1 torn (a warning); block
 * 2 with a bad checksum, and its only good copy, copy 1's, mapping vext
 * 708 to tier 2 pext 7 as vext 600 does; tier 0's used count wrong. Repair
 * unmaps vexts 454 and 708: the repaired map is the fixture's. With
 * CRASH_NO_SB, both superblock slots are zeroed as well: repair rebuilds
 * the superblock from the labels, naming copy 1 (fewer damaged blocks).
 * CRASH_LABEL gives the labels a phase of their own, CRASH_WIDE the
 * inactive copy's more writes than crash_cut() tries every subset of;
 * CRASH_SLOT0_EIO is armed by crash_arm(), not written.
 */
static struct img *crash_img(CASE_CTX, u32 how)
{
	struct img *im = img_make_on(test, true, how & CRASH_META_EXT);
	u8 *blk = case_alloc(test, TIER_BLOCK_SIZE);
	struct tier_loc twice1 = { 1, 0, tier_pext(0) };
	struct tier_loc twice2 = { 2, 0, tier_pext(7) };
	struct tier_map_entry e = { 0 };
	struct tier_sb sb = im->sb[1];
	struct tier_label l;
	u32 m = im->meta;
	u64 i;

	map_block_rot(test, im, m, &sb, 0, 0, 100);

	e.word = tier_map_word_encode(&twice1);
	map_entry_put(test, im, m, &sb, 0, 1, 200, &e);
	map_block_rot(test, im, m, &sb, 1, 1, 3000);

	e.word = tier_map_word_encode(&twice2);
	map_entry_put(test, im, m, &sb, 1, 2, 200, &e);
	map_block_rot(test, im, m, &sb, 0, 2, 100);

	sb.tier[0].used_extents = 9;
	tier_sb_encode(&sb, blk);
	pw(test, im, m, tier_sb_sector(sb.meta_start, 1), blk);
	if (how & CRASH_NO_SB) {
		memset(blk, 0, TIER_BLOCK_SIZE);
		pw(test, im, m, tier_sb_sector(sb.meta_start, 0), blk);
		pw(test, im, m, tier_sb_sector(sb.meta_start, 1), blk);
	}
	memset(blk, 0, TIER_BLOCK_SIZE);
	for (i = 3; how & CRASH_WIDE && i < sb.map_blocks; i++)
		pw(test, im, m, tier_map_block_sector(&sb, 1, i), blk);
	if (how & CRASH_LABEL) {
		/* Valid still: a superblock can be rebuilt with it. */
		pr(test, im, 2, 0, blk);
		CASE_ASSERT_EQ(tier_label_decode(blk, &l, NULL), 0);
		memset(l.name, 0, sizeof(l.name));
		strcpy(l.name, "other");
		tier_label_encode(&l, blk);
		pw(test, im, 2, 0, blk);
	}
	case_free(blk);
	return im;
}

/* The bad sector of CRASH_SLOT0_EIO (re-armed: a write over it remaps it). */
static void crash_arm(struct img *im, u32 how)
{
	if (!(how & CRASH_SLOT0_EIO))
		return;
	fail_fd = im->fd[im->meta];
	fail_off = tier_sb_sector(im->sb[1].meta_start, 0) << 9;
}

/* Check @im into @md (one the caller reuses: a crash test loads thousands). */
static void md_load_into(CASE_CTX, struct img *im, struct tl_md *md)
{
	struct tl_err err = { "" };
	u32 i;

	tl_md_free(md);
	tl_md_init(md);
	for (i = 0; i < im->nr; i++) {
		md->dev[i].path = im->path[i];
		md->dev[i].fd = im->fd[i];
		md->dev[i].sectors = img_sectors(im, i);
	}
	md->nr_devs = im->nr;
	CASE_ASSERT_EQ(tl_md_load(md, &err), TL_OK);
}

/* @md's active copy maps the fixture's extents, with their heat and times. */
static void expect_fixture_map_md(CASE_CTX, const struct tl_md *md,
				  const char *what)
{
	u32 a = md->sb.active_copy;
	u64 v;
	size_t k;

	CASE_ASSERT_TRUE(md->map[a] != NULL);
	for (v = 0; v < md->sb.virt_extents; v++) {
		struct tier_map_entry got, want = { 0 };

		for (k = 0; k < ARRAY_SIZE(extents); k++) {
			struct tier_loc loc = { extents[k].tier, extents[k].flags,
						tier_pext(extents[k].pext) };

			if (extents[k].vext != v)
				continue;
			want.word = tier_map_word_encode(&loc);
			want.heat = extents[k].heat;
			want.atime = extents[k].atime;
		}
		tier_map_block_get(md->map[a] +
					   v / TIER_MAP_ENTRIES * TIER_BLOCK_SIZE,
				   v % TIER_MAP_ENTRIES, &got);
		CASE_EQ_MSG(got.word, want.word, "%s: vext %llu", what,
			    (unsigned long long)v);
		CASE_EQ_MSG(got.heat, want.heat, "%s: vext %llu", what,
			    (unsigned long long)v);
		CASE_EQ_MSG(got.atime, want.atime, "%s: vext %llu", what,
			    (unsigned long long)v);
	}
}

/* The planned writes, for a failure's report. */
static void show_writes(const struct tl_md *md)
{
	u32 i;

	for (i = 0; i < md->nr_writes; i++)
		print_message("# write %u%s: %s sector %llu: %s\n", i,
			      md->writes[i].flush_first ? " (flush first)" : "",
			      md->dev[md->writes[i].dev].path,
			      (unsigned long long)md->writes[i].sector,
			      md->writes[i].what);
}

/*
 * What a repair may write (each label, the superblock slots and the map
 * copies), saved to put the image back as crash_img() left it: a crash
 * case costs a few writes, not a new image.
 */
struct img_save {
	u8 *blk[NR + 1];
	u64 sectors[NR + 1];
};

static void img_save(CASE_CTX, struct img *im, struct img_save *save)
{
	const struct tier_sb *sb = &im->sb[1];
	u32 i;

	for (i = 0; i < im->nr; i++) {
		save->sectors[i] = i != im->meta ?
					   TIER_BLOCK_SECTORS :
					   sb->map_start[1] +
						   sb->map_blocks * TIER_BLOCK_SECTORS;
		save->blk[i] = case_alloc(test, save->sectors[i] << 9);
		CASE_ASSERT_EQ(tl_pread_full(im->fd[i], save->blk[i],
					     save->sectors[i] << 9, 0), 0);
	}
}

static void img_restore(CASE_CTX, struct img *im, const struct img_save *save)
{
	u32 i;

	for (i = 0; i < im->nr; i++)
		CASE_ASSERT_EQ(tl_pwrite_full(im->fd[i], save->blk[i],
					      save->sectors[i] << 9, 0), 0);
}

/*
 * Crash cases: a disk with a volatile write cache. A write is on the disk
 * once an fsync() of its device, issued after it, has returned; until then
 * it may be there or not, in any combination with the other writes in
 * flight, and one of them may be torn (first half new, second half old).
 * The cut points are just before each fsync() and at the end: a crash
 * anywhere since the previous fsync() leaves a subset of the writes in
 * flight there. Up to CRASH_EXHAUSTIVE writes in flight every subset is
 * tried, whole and with each of its writes torn; beyond, CRASH_SAMPLES
 * subsets and torn writes drawn from CRASH_SEED.
 */
#define CRASH_EXHAUSTIVE 10
#define CRASH_SAMPLES 300
#define CRASH_SEED 0x7e1e5eedULL

struct crash {
	struct img *im;
	u32 how;
	const struct tl_md *plan; /* the repair, its writes as issued */
	u32 errors;		  /* check's before it */
	struct img_save save;
	struct tl_md *md;
	u8 *blk;
	u32 nr_states;
};

/* xorshift64*: the same draws on every run. */
static u64 crash_rand(u64 *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

/*
 * The image as the crash leaves it: the writes of @on on the disk, write
 * @torn (one of them, or -1) only its first half, then check, repair and
 * check again: no more errors than before the repair, a repair that gives
 * up no more extents than the first one, and that repair, run to its end,
 * leaves the fixture's map, clean.
 */
static void crash_case(CASE_CTX, struct crash *c, u32 cut, u64 on, int torn)
{
	const struct tl_md *plan = c->plan;
	struct tl_err err = { "" };
	char what[200];
	int n, len = 0;
	u32 i;

	img_restore(test, c->im, &c->save);
	crash_arm(c->im, c->how);
	n = snprintf(what, sizeof(what), "%s%s%s%s%scut %u, on the disk:",
		     c->how & CRASH_META_EXT ? "metadata device, " : "",
		     c->how & CRASH_NO_SB ? "no superblock, " : "",
		     c->how & CRASH_LABEL ? "a label, " : "",
		     c->how & CRASH_SLOT0_EIO ? "slot 0 unreadable, " : "",
		     c->how & CRASH_WIDE ? "copy 1 zeroed, " : "", cut);
	len = n > 0 && n < (int)sizeof(what) ? n : 0;
	for (i = 0; i < plan->nr_writes; i++) {
		const struct tl_write *w = &plan->writes[i];

		if (!(on & (1ULL << i)))
			continue;
		n = snprintf(what + len, sizeof(what) - len, " %u%s", i,
			     (int)i == torn ? " (torn)" : "");
		if (n > 0 && len + n < (int)sizeof(what))
			len += n;
		if ((int)i != torn) {
			pw(test, c->im, w->dev, w->sector, w->blk);
			continue;
		}
		/* The old half as it is, even under a bad sector. */
		CASE_ASSERT_EQ(__real_tl_pread_full(c->im->fd[w->dev], c->blk,
						    TIER_BLOCK_SIZE,
						    w->sector << 9),
			       0);
		memcpy(c->blk, w->blk, TIER_BLOCK_SIZE / 2);
		pw(test, c->im, w->dev, w->sector, c->blk);
	}
	c->nr_states++;

	md_load_into(test, c->im, c->md);
	if (c->md->nr_errors > c->errors) {
		show_writes(plan);
		show(c->md);
	}
	CASE_LE_MSG(c->md->nr_errors, c->errors, "%s: %u errors, %u before",
		    what, c->md->nr_errors, c->errors);
	CASE_ASSERT_EQ(tl_md_plan_repair(c->md, c->how & CRASH_SLOT0_EIO, &err),
		       TL_OK);
	if (c->md->nr_losses > plan->nr_losses) {
		show_writes(plan);
		show(c->md);
	}
	CASE_LE_MSG(c->md->nr_losses, plan->nr_losses,
		    "%s: repair gives up %u extents, %u before", what,
		    c->md->nr_losses, plan->nr_losses);
	CASE_ASSERT_EQ_MSG(tl_md_write(c->md, &err), TL_OK, "%s: %s", what,
			   err.msg);
	md_load_into(test, c->im, c->md);
	expect_clean_md(test, c->md, what);
	expect_fixture_map_md(test, c->md, what);
}

/* Every crash state of cut @cut: @on flushed, @maybe in flight. */
static void crash_cut(CASE_CTX, struct crash *c, u32 cut, u64 on, u64 maybe,
		      u64 *seed)
{
	u32 m = __builtin_popcountll(maybe), k, i;
	u64 sub, pick;
	int torn;

	if (m > CRASH_EXHAUSTIVE) {
		for (k = 0; k < CRASH_SAMPLES; k++) {
			sub = crash_rand(seed) & maybe;
			/* 0: no write torn, else the pick-th of the subset. */
			pick = crash_rand(seed) % (__builtin_popcountll(sub) + 1);
			torn = -1;
			for (i = 0; pick && i < 64; i++)
				if ((sub & (1ULL << i)) && !--pick)
					torn = i;
			crash_case(test, c, cut, on | sub, torn);
		}
		return;
	}
	sub = maybe;
	do {
		crash_case(test, c, cut, on | sub, -1);
		for (i = 0; i < 64; i++)
			if (sub & (1ULL << i))
				crash_case(test, c, cut, on | sub, i);
		sub = (sub - 1) & maybe;
	} while (sub != maybe);
}

/*
 * A repair cut anywhere, on a disk with a write cache (crash_cut()), leaves
 * a device no worse than before it: no more errors, a repair that gives up
 * no more extents, and that repair, run to its end, gives the same map as
 * the uninterrupted one. Repair rewrote the active copy in place: a write
 * of block 1 torn in the middle left both copies of it damaged, and 254
 * extents lost instead of 2. The cut points are where tl_md_write()
 * fsync()s, as it did (io_log), not where the plan says it would.
 */
static void repair_interrupted(CASE_CTX, u32 how)
{
	struct tl_err err = { "" };
	struct crash c = { .how = how };
	struct tl_md *plan;
	u32 at[ARRAY_SIZE(io_log)], flushed[ARRAY_SIZE(io_log)];
	u32 i, j, w, cut = 0;
	u64 on, maybe, last_on = ~0ULL, last_maybe = 0, seed = CRASH_SEED;

	c.im = crash_img(test, how);
	c.md = case_alloc(test, sizeof(*c.md));
	tl_md_init(c.md);
	case_defer(test, md_free, c.md);
	c.blk = case_alloc(test, TIER_BLOCK_SIZE);
	img_save(test, c.im, &c.save);
	case_defer(test, fail_clear, NULL);
	crash_arm(c.im, how);
	plan = md_check(test, c.im, c.im->nr, NULL);
	c.plan = plan;
	c.errors = plan->nr_errors;
	show(plan);
	CASE_EQ(plan->sb_rebuilt, !!(how & CRASH_NO_SB));
	CASE_EQ(plan->sb.active_copy, !!(how & CRASH_NO_SB));
	CASE_EQ(plan->meta_ext, !!(how & CRASH_META_EXT));
	CASE_EQ(plan->slot_unreadable[0], !!(how & CRASH_SLOT0_EIO));
	CASE_ASSERT_EQ(tl_md_plan_repair(plan, how & CRASH_SLOT0_EIO, &err),
		       TL_OK);
	CASE_EQ(plan->nr_losses, 2);
	CASE_ASSERT_TRUE(plan->nr_writes <= 64);
	show_writes(plan);
	/* The model takes each block for written once. */
	for (i = 0; i < plan->nr_writes; i++)
		for (j = 0; j < i; j++)
			CASE_FALSE(plan->writes[i].dev == plan->writes[j].dev &&
				   plan->writes[i].sector == plan->writes[j].sector);

	case_defer(test, io_log_stop, NULL);
	fsync_skip = true;
	io_log_n = 0;
	io_log_full = false;
	io_log_on = true;
	CASE_ASSERT_EQ(tl_md_write(plan, &err), TL_OK);
	io_log_on = false;
	CASE_FALSE(io_log_full);
	md_load_into(test, c.im, c.md);
	expect_clean_md(test, c.md, "uninterrupted");
	expect_fixture_map_md(test, c.md, "uninterrupted");

	/* Write w: log event at[w], on the disk from event flushed[w] on. */
	for (i = w = 0; i < io_log_n; i++) {
		if (io_log[i].flush)
			continue;
		CASE_ASSERT_TRUE(w < plan->nr_writes);
		CASE_EQ(io_log[i].fd, c.im->fd[plan->writes[w].dev]);
		CASE_EQ(io_log[i].sector, plan->writes[w].sector);
		at[w] = i;
		flushed[w] = io_log_n;
		for (j = i + 1; j < io_log_n; j++) {
			if (io_log[j].flush && io_log[j].fd == io_log[i].fd) {
				flushed[w] = j;
				break;
			}
		}
		w++;
	}
	CASE_ASSERT_EQ(w, plan->nr_writes);

	for (i = 0; i <= io_log_n; i++) {
		if (i < io_log_n && !io_log[i].flush)
			continue;
		on = maybe = 0;
		for (w = 0; w < plan->nr_writes; w++) {
			if (flushed[w] < i)
				on |= 1ULL << w;
			else if (at[w] < i)
				maybe |= 1ULL << w;
		}
		if (on == last_on && maybe == last_maybe)
			continue;
		last_on = on;
		last_maybe = maybe;
		crash_cut(test, &c, cut++, on, maybe, &seed);
	}
	print_message("# %u crash states at %u cuts (sampled with seed %#llx beyond %u writes in flight)\n",
		      c.nr_states, cut, CRASH_SEED, CRASH_EXHAUSTIVE);
}

static void check_repair_interrupted_test(CASE_CTX)
{
	repair_interrupted(test, 0);
	repair_interrupted(test, CRASH_NO_SB);
	repair_interrupted(test, CRASH_NO_SB | CRASH_LABEL);
}

/* The same with the metadata on a device of its own. */
static void check_repair_interrupted_meta_test(CASE_CTX)
{
	repair_interrupted(test, CRASH_META_EXT);
	repair_interrupted(test, CRASH_META_EXT | CRASH_NO_SB | CRASH_LABEL);
}

/*
 * Copy 1 zeroed from block 3 on: 28 writes in one phase, too many for
 * every subset (crash_cut() samples them).
 */
static void check_repair_interrupted_wide_test(CASE_CTX)
{
	repair_interrupted(test, CRASH_WIDE);
}

/*
 * The same with superblock slot 0 unreadable, which repair --force writes
 * over with the new superblock (generation 4): until then the slot stays
 * unreadable, and each repair after the crash needs --force too.
 */
static void check_repair_interrupted_forced_test(CASE_CTX)
{
	repair_interrupted(test, CRASH_SLOT0_EIO);
	repair_interrupted(test, CRASH_SLOT0_EIO | CRASH_LABEL);
}

/* A repair's phases (docs/FORMAT.md "Offline"), in their order. */
enum phase {
	PH_REBUILT,  /* the superblock rebuilt from the labels */
	PH_IN_PLACE, /* a damaged block of the active copy, rebuilt in place */
	PH_COPY_B,   /* the inactive copy, made active by: */
	PH_SB,	     /* the superblock of the next generation */
	PH_COPY_A,   /* the old active copy, made equal */
	PH_LABELS,
	NR_PHASES
};

static const char *const phase_name[NR_PHASES] = {
	"the rebuilt superblock", "an active copy block rebuilt in place",
	"an inactive copy block", "the new superblock",
	"an old active copy block", "a label",
};

/*
 * The flushes of a repair: every phase is on the disk before a write of
 * the next one is issued (between two writes of different phases, the
 * device of the first is flushed), and every device written is flushed at
 * the end. Before the new superblock is on the disk, no block of the copy
 * the old superblock names is written that was readable (a torn write
 * would damage it). tl_md_write() flushed only at the end, after writing
 * the active copy in place; then only around the new superblock was it
 * checked, and the other fences could go unnoticed.
 */
static void repair_flush_order(CASE_CTX, u32 how)
{
	struct tl_err err = { "" };
	struct img *im = crash_img(test, how);
	struct tl_md *before = md_check(test, im, im->nr, NULL);
	struct tl_md *md = md_check(test, im, im->nr, NULL);
	const struct tier_sb *sb = &before->sb;
	u32 a = sb->active_copy, nr[NR_PHASES] = { 0 };
	int fd = im->fd[im->meta];
	u8 ph[ARRAY_SIZE(io_log)];
	u32 i, j, k, sb_at = 0, nr_sb = 0;
	bool flushed;
	u64 s;

	CASE_EQ(before->sb_rebuilt, !!(how & CRASH_NO_SB));
	CASE_ASSERT_EQ(tl_md_plan_repair(md, false, &err), TL_OK);
	case_defer(test, io_log_stop, NULL);
	io_log_n = 0;
	io_log_full = false;
	io_log_on = true;
	CASE_ASSERT_EQ(tl_md_write(md, &err), TL_OK);
	io_log_on = false;
	CASE_FALSE(io_log_full);
	show_writes(md);

	/* The new superblock: active copy blocks before it are rebuilt in place. */
	for (i = 0; i < io_log_n; i++) {
		s = io_log[i].sector;
		if (io_log[i].flush || io_log[i].fd != fd || s == 0 ||
		    s >= sb->map_start[0] ||
		    (before->sb_rebuilt &&
		     s == tier_sb_sector(sb->meta_start,
					 tier_sb_slot(sb->generation))))
			continue;
		sb_at = i;
		nr_sb++;
	}
	CASE_ASSERT_EQ(nr_sb, 1);
	for (i = 0; i < io_log_n; i++) {
		s = io_log[i].sector;
		if (io_log[i].flush)
			continue;
		if (s == 0) {
			ph[i] = PH_LABELS;
		} else {
			CASE_ASSERT_EQ(io_log[i].fd, fd);
			if (s < sb->map_start[0])
				ph[i] = i == sb_at ? PH_SB : PH_REBUILT;
			else if ((s >= sb->map_start[1]) != a)
				ph[i] = PH_COPY_B;
			else
				ph[i] = i < sb_at ? PH_IN_PLACE : PH_COPY_A;
		}
		nr[ph[i]]++;
		if (ph[i] != PH_IN_PLACE)
			continue;
		k = (s - sb->map_start[a]) / TIER_BLOCK_SECTORS;
		CASE_TRUE_MSG(before->blk_ret[a][k] != 0,
			      "readable block %u of the active copy written before the superblock",
			      k);
	}
	/* The fixture has every phase: every fence is checked. */
	CASE_EQ(nr[PH_REBUILT], !!(how & CRASH_NO_SB));
	CASE_GE(nr[PH_IN_PLACE], 1);
	CASE_GE(nr[PH_COPY_B], 1);
	CASE_GE(nr[PH_COPY_A], 1);
	CASE_EQ(nr[PH_LABELS] > 0, !!(how & CRASH_LABEL));

	for (i = 0; i < io_log_n; i++) {
		if (io_log[i].flush)
			continue;
		for (j = i + 1; j <= io_log_n; j++) {
			if (j < io_log_n && (io_log[j].flush || ph[j] == ph[i]))
				continue;
			flushed = false;
			for (k = i + 1; k < j; k++)
				flushed |= io_log[k].flush &&
					   io_log[k].fd == io_log[i].fd;
			if (j == io_log_n) {
				CASE_TRUE_MSG(flushed,
					      "%s (sector %llu) is not flushed at the end",
					      phase_name[ph[i]],
					      (unsigned long long)io_log[i].sector);
				continue;
			}
			CASE_TRUE_MSG(ph[i] < ph[j],
				      "%s (sector %llu) is written after %s (sector %llu)",
				      phase_name[ph[i]],
				      (unsigned long long)io_log[i].sector,
				      phase_name[ph[j]],
				      (unsigned long long)io_log[j].sector);
			CASE_TRUE_MSG(flushed,
				      "%s (sector %llu) is not flushed before %s (sector %llu) is written",
				      phase_name[ph[i]],
				      (unsigned long long)io_log[i].sector,
				      phase_name[ph[j]],
				      (unsigned long long)io_log[j].sector);
		}
	}
	expect_clean(test, im, "flush order");
	md = md_check(test, im, im->nr, NULL);
	CASE_EQ(md->sb.generation, sb->generation + 1);
	CASE_EQ(md->sb.active_copy, a ^ 1);
}

static void check_repair_flush_order_test(CASE_CTX)
{
	repair_flush_order(test, 0);
	repair_flush_order(test, CRASH_NO_SB | CRASH_LABEL);
	repair_flush_order(test, CRASH_META_EXT | CRASH_NO_SB | CRASH_LABEL);
}

static struct case_entry check_cases[] = {
	CASE_RUN(check_clean_test),
	CASE_RUN(check_fresh_test),
	CASE_RUN(check_missing_test),
	CASE_RUN_PARAMS(check_corrupt_test, corrupt),
	CASE_RUN_PARAMS(check_label_field_test, label),
	CASE_RUN_PARAMS(check_sb_field_test, sb),
	CASE_RUN_PARAMS(check_entry_test, entry),
	CASE_RUN(check_used_count_test),
	CASE_RUN(check_both_slots_test),
	CASE_RUN(check_rebuild_virt_test),
	CASE_RUN(check_sb_unreadable_test),
	CASE_RUN(check_map_bad_sector_test),
	CASE_RUN(check_newer_copy_entries_test),
	CASE_RUN(check_double_use_test),
	CASE_RUN(check_both_copies_test),
	CASE_RUN(check_label_gone_test),
	CASE_RUN(check_labels_gone_ambiguous_test),
	CASE_RUN(check_heat_flags_test),
	CASE_RUN(check_dump_restore_test),
	CASE_RUN(check_restore_bad_test),
	CASE_RUN(check_restore_grown_test),
	CASE_RUN(check_settings_test),
	CASE_RUN(check_tier_list_hints_test),
	CASE_RUN(check_resize_hint_test),
	CASE_RUN(check_repair_keeps_spare_test),
	CASE_RUN(check_meta_dev_shrunk_test),
	CASE_RUN(check_crafted_sizes_test),
	CASE_RUN(check_replace_tier0_cut_test),
	CASE_RUN(check_repair_interrupted_test),
	CASE_RUN(check_repair_interrupted_meta_test),
	CASE_RUN(check_repair_interrupted_forced_test),
	CASE_RUN(check_repair_interrupted_wide_test),
	CASE_RUN(check_repair_flush_order_test),
	{}
};

int main(void)
{
	(void)format_cases;
	return case_run("check", check_cases);
}
