/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm-tier-copy.h - the extent copier (dm-tier-copy.c): copies one region
 * of a tier to another through buffers it keeps, in chunks read and
 * written with dm-io.
 *
 * Why not dm-kcopyd: kcopyd allocates the pages of every sub-job beyond a
 * 512 KiB reserve and frees them after it, and with init_on_alloc (Debian's
 * default) the allocator zeroes each of them: one memset per byte copied.
 * Measured under TCG, a drain of 256 MiB spent 43% of its busy CPU time in
 * clear_page and took twice as long as with init_on_alloc=0. The copier
 * allocates its buffers once (one at creation, so it always makes
 * progress, more as copies need them) and reuses them; those beyond the
 * first are freed after TIER_COPY_IDLE_MS without copies.
 *
 * Layer: below the migration engine, which is its only user; knows nothing
 * of pools. Locking: its own spinlock (irq-safe: dm-io completes in
 * interrupt context), taken by no other code, never held across a call
 * out.
 */
#ifndef DM_TIER_COPY_H
#define DM_TIER_COPY_H

#include <linux/dm-io.h>
#include <linux/list.h>

struct tier_copier;

/*
 * tier_copy_fn - a copy's completion, called once per copy from the
 * copier's workqueue (process context), as kcopyd's: @read_err is non-zero
 * when a chunk could not be read (that chunk was not written), @write_err
 * holds dm-io's error bits of failed writes.
 */
typedef void (*tier_copy_fn)(int read_err, unsigned long write_err,
			     void *context);

/*
 * How a copy shares the drives with foreground I/O: TIER_COPY_FAST in
 * chunks of 512 KiB, as many at once as there are buffers;
 * TIER_COPY_GENTLE in chunks of 64 KiB, one at a time, so that a
 * foreground request queued behind the copy on either drive waits for at
 * most 64 KiB (the migration's background pace).
 */
enum tier_copy_mode {
	TIER_COPY_FAST,
	TIER_COPY_GENTLE,
};

/*
 * struct tier_copy_job - one copy; owned by the caller, who must keep it
 * until its tier_copy_fn has been called. Fields are the copier's.
 */
struct tier_copy_job {
	struct list_head list; /* the copier's queue, then its done list */
	struct dm_io_region from, to;
	sector_t next; /* first sector not yet given a chunk */
	sector_t chunk_sectors;
	unsigned int max_chunks; /* at once */
	unsigned int chunks; /* chunks started and not ended */
	int read_err;
	unsigned long write_err;
	tier_copy_fn fn;
	void *context;
};

/**
 * tier_copy_init() - create the buffers' slab cache (module init).
 *
 * Context: process, may sleep.
 * Return: 0 or -ENOMEM.
 */
int tier_copy_init(void);

/**
 * tier_copy_exit() - destroy it (module exit, no copier left).
 *
 * Context: process, may sleep.
 */
void tier_copy_exit(void);

/**
 * tier_copier_create() - make a copier.
 * @max_bufs: buffers (of TIER_COPY_CHUNK_SECTORS each) it may keep at
 *            most; chunks in flight are bounded by it. At least 1.
 *
 * Context: process, may sleep (allocates the first buffer, the dm-io
 * client and the workqueue).
 * Return: the copier, or an ERR_PTR.
 */
struct tier_copier *tier_copier_create(unsigned int max_bufs);

/**
 * tier_copier_destroy() - wait for every copy started to complete (its
 * tier_copy_fn called), then free the copier.
 * @c: the copier, or NULL.
 *
 * Context: process, may sleep; not from a tier_copy_fn.
 */
void tier_copier_destroy(struct tier_copier *c);

/**
 * tier_copy() - copy @from to @to (same length) in the background.
 * @c:       the copier.
 * @job:     the caller's job, kept until @fn has been called.
 * @from:    source region.
 * @to:      destination region; from->count sectors are written.
 * @mode:    TIER_COPY_FAST or TIER_COPY_GENTLE.
 * @fn:      completion.
 * @context: passed to @fn.
 *
 * Never fails: the copy waits for a free buffer if all are in use.
 * Context: any; allocates nothing.
 */
void tier_copy(struct tier_copier *c, struct tier_copy_job *job,
	       const struct dm_io_region *from, const struct dm_io_region *to,
	       enum tier_copy_mode mode, tier_copy_fn fn, void *context);

#endif /* DM_TIER_COPY_H */
