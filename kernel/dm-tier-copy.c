// SPDX-License-Identifier: GPL-2.0
/*
 * dm-tier-copy.c - the extent copier (see dm-tier-copy.h for why it
 * exists).
 *
 * A copy is cut into chunks of TIER_COPY_CHUNK_SECTORS. Each chunk takes a
 * buffer, is read into it, then written from it, and gives the buffer
 * back; chunks of one copy and of several copies run in parallel, as many
 * as there are buffers. One work item does everything that may sleep
 * (starting I/O, calling completions); dm-io's completions, in interrupt
 * context, only move chunks between lists and queue it.
 */
#include <linux/gfp.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "dm-tier-copy.h"

#define TIER_COPY_CHUNK_SECTORS 1024 /* 512 KiB, kcopyd's sub-job size */
#define TIER_COPY_GENTLE_SECTORS 128 /* 64 KiB */
#define TIER_COPY_CHUNK_PAGES (TIER_COPY_CHUNK_SECTORS >> (PAGE_SHIFT - 9))
#define TIER_COPY_IDLE_MS 10000 /* then free the buffers but one */

/* A buffer, and the chunk it carries while in use. */
struct tier_copy_buf {
	struct list_head list; /* c->free_bufs, or c->read once read */
	struct tier_copier *c;
	struct tier_copy_job *job; /* NULL while free */
	sector_t offset; /* of the chunk in the job's regions */
	sector_t count;
	struct page_list pages[TIER_COPY_CHUNK_PAGES]; /* a chain */
};

struct tier_copier {
	spinlock_t lock; /* everything below but the constants */
	struct list_head queue; /* jobs with sectors not yet given a chunk */
	struct list_head read; /* buffers read, to write (or end on error) */
	struct list_head done; /* jobs whose chunks all ended */
	struct list_head free_bufs;
	unsigned int nr_bufs; /* allocated, free or not */
	unsigned int max_bufs;
	unsigned int active; /* jobs given and not yet completed */
	wait_queue_head_t idle_wait; /* active reached 0 */
	struct dm_io_client *io;
	struct workqueue_struct *wq;
	struct work_struct work;
	struct delayed_work shrink;
};

/* Its own cache: failslab's cache-filter can aim at it (VM test 054). */
static struct kmem_cache *tier_copy_buf_cache;

int tier_copy_init(void)
{
	tier_copy_buf_cache = KMEM_CACHE(tier_copy_buf, 0);
	return tier_copy_buf_cache ? 0 : -ENOMEM;
}

void tier_copy_exit(void)
{
	kmem_cache_destroy(tier_copy_buf_cache);
}

static void tier_copy_buf_free(struct tier_copy_buf *b)
{
	unsigned int i;

	for (i = 0; i < TIER_COPY_CHUNK_PAGES; i++)
		if (b->pages[i].page)
			__free_page(b->pages[i].page);
	kmem_cache_free(tier_copy_buf_cache, b);
}

static struct tier_copy_buf *tier_copy_buf_alloc(struct tier_copier *c,
						 gfp_t gfp)
{
	struct tier_copy_buf *b = kmem_cache_zalloc(tier_copy_buf_cache, gfp);
	unsigned int i;

	if (!b)
		return NULL;
	b->c = c;
	for (i = 0; i < TIER_COPY_CHUNK_PAGES; i++) {
		b->pages[i].page = alloc_page(gfp);
		if (!b->pages[i].page) {
			tier_copy_buf_free(b);
			return NULL;
		}
		b->pages[i].next =
			i + 1 < TIER_COPY_CHUNK_PAGES ? &b->pages[i + 1] : NULL;
	}
	return b;
}

static void tier_copy_work(struct work_struct *ws);
static void tier_copy_shrink(struct work_struct *ws);

struct tier_copier *tier_copier_create(unsigned int max_bufs)
{
	struct tier_copy_buf *b;
	struct tier_copier *c;
	int r;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->queue);
	INIT_LIST_HEAD(&c->read);
	INIT_LIST_HEAD(&c->done);
	INIT_LIST_HEAD(&c->free_bufs);
	init_waitqueue_head(&c->idle_wait);
	INIT_WORK(&c->work, tier_copy_work);
	INIT_DELAYED_WORK(&c->shrink, tier_copy_shrink);
	c->max_bufs = max(max_bufs, 1U);
	r = -ENOMEM;
	b = tier_copy_buf_alloc(c, GFP_KERNEL);
	if (!b)
		goto fail_free;
	list_add(&b->list, &c->free_bufs);
	c->nr_bufs = 1;
	c->io = dm_io_client_create();
	if (IS_ERR(c->io)) {
		r = PTR_ERR(c->io);
		goto fail_buf;
	}
	/* Copies must progress under memory pressure: writeback needs them. */
	c->wq = alloc_workqueue("dm-tier-copy", WQ_MEM_RECLAIM | WQ_UNBOUND, 1);
	if (!c->wq)
		goto fail_io;
	return c;

fail_io:
	dm_io_client_destroy(c->io);
fail_buf:
	tier_copy_buf_free(b);
fail_free:
	kfree(c);
	return ERR_PTR(r);
}

void tier_copier_destroy(struct tier_copier *c)
{
	struct tier_copy_buf *b, *tmp;

	if (!c)
		return;
	wait_event(c->idle_wait, !READ_ONCE(c->active));
	/* The work that called the last completion may still run. */
	flush_work(&c->work);
	cancel_delayed_work_sync(&c->shrink);
	destroy_workqueue(c->wq);
	list_for_each_entry_safe(b, tmp, &c->free_bufs, list)
		tier_copy_buf_free(b);
	dm_io_client_destroy(c->io);
	kfree(c);
}

void tier_copy(struct tier_copier *c, struct tier_copy_job *job,
	       const struct dm_io_region *from, const struct dm_io_region *to,
	       enum tier_copy_mode mode, tier_copy_fn fn, void *context)
{
	unsigned long flags;

	job->from = *from;
	job->to = *to;
	job->next = 0;
	if (mode == TIER_COPY_GENTLE) {
		job->chunk_sectors = TIER_COPY_GENTLE_SECTORS;
		job->max_chunks = 1;
	} else {
		job->chunk_sectors = TIER_COPY_CHUNK_SECTORS;
		job->max_chunks = UINT_MAX;
	}
	job->chunks = 0;
	job->read_err = 0;
	job->write_err = 0;
	job->fn = fn;
	job->context = context;
	spin_lock_irqsave(&c->lock, flags);
	c->active++;
	/* Nothing to copy: complete it all the same, from the work. */
	list_add_tail(&job->list, from->count ? &c->queue : &c->done);
	spin_unlock_irqrestore(&c->lock, flags);
	queue_work(c->wq, &c->work);
}

/*
 * A chunk ended (written, or its read or write failed): give the buffer
 * back; the job's last chunk, once every sector was given out, moves the
 * job to the done list. Context: any.
 */
static void tier_copy_chunk_end(struct tier_copy_buf *b, int read_err,
				unsigned long write_err)
{
	struct tier_copier *c = b->c;
	struct tier_copy_job *job = b->job;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (read_err)
		job->read_err = read_err;
	job->write_err |= write_err;
	b->job = NULL;
	list_add(&b->list, &c->free_bufs);
	if (!--job->chunks && job->next == job->from.count)
		list_add_tail(&job->list, &c->done);
	spin_unlock_irqrestore(&c->lock, flags);
	queue_work(c->wq, &c->work);
}

/* dm-io's completion of a chunk's write; interrupt context. */
static void tier_copy_written(unsigned long error, void *context)
{
	tier_copy_chunk_end(context, 0, error);
}

/* dm-io's completion of a chunk's read; interrupt context. */
static void tier_copy_read(unsigned long error, void *context)
{
	struct tier_copy_buf *b = context;
	struct tier_copier *c = b->c;
	unsigned long flags;

	if (error) {
		/* As kcopyd: a chunk not read is not written. */
		tier_copy_chunk_end(b, -EIO, 0);
		return;
	}
	spin_lock_irqsave(&c->lock, flags);
	list_add_tail(&b->list, &c->read);
	spin_unlock_irqrestore(&c->lock, flags);
	queue_work(c->wq, &c->work);
}

/* Start one chunk's read or write with dm-io; its completion follows. */
static void tier_copy_io(struct tier_copy_buf *b, bool write)
{
	struct tier_copy_job *job = b->job;
	const struct dm_io_region *base = write ? &job->to : &job->from;
	struct dm_io_region where = {
		.bdev = base->bdev,
		.sector = base->sector + b->offset,
		.count = b->count,
	};
	struct dm_io_request req = {
		.bi_opf = write ? REQ_OP_WRITE : REQ_OP_READ,
		.mem.type = DM_IO_PAGE_LIST,
		.mem.ptr.pl = b->pages,
		.mem.offset = 0,
		.notify.fn = write ? tier_copy_written : tier_copy_read,
		.notify.context = b,
		.client = b->c->io,
	};
	int r;

	/* Asynchronous: dm-io reports errors through the notify function. */
	r = tier_compat_dm_io(&req, 1, &where, NULL);
	if (r)
		tier_copy_chunk_end(b, write ? 0 : r, write ? 1 : 0);
}

/*
 * A free buffer, allocating one more while under max_bufs; NULL when none
 * can be had now (a chunk in flight will free one). Under c->lock, which
 * it drops to allocate.
 */
static struct tier_copy_buf *tier_copy_get_buf(struct tier_copier *c)
	__must_hold(&c->lock)
{
	struct tier_copy_buf *b;

	b = list_first_entry_or_null(&c->free_bufs, struct tier_copy_buf, list);
	if (b) {
		list_del(&b->list);
		return b;
	}
	if (c->nr_bufs >= c->max_bufs)
		return NULL;
	c->nr_bufs++;
	spin_unlock_irq(&c->lock);
	/* No reclaim for a buffer we can do without: GFP_NOIO, no retries. */
	b = tier_copy_buf_alloc(c, GFP_NOIO | __GFP_NORETRY | __GFP_NOWARN);
	spin_lock_irq(&c->lock);
	if (!b)
		c->nr_bufs--;
	return b;
}

static void tier_copy_work(struct work_struct *ws)
{
	struct tier_copier *c = container_of(ws, struct tier_copier, work);
	struct tier_copy_job *job, *jtmp;
	struct tier_copy_buf *b, *btmp;
	LIST_HEAD(done);
	LIST_HEAD(read);
	unsigned int ended = 0;

	spin_lock_irq(&c->lock);
	list_splice_init(&c->done, &done);
	list_splice_init(&c->read, &read);
	spin_unlock_irq(&c->lock);

	/* Writes first: they free buffers for the reads below. */
	list_for_each_entry_safe(b, btmp, &read, list) {
		list_del_init(&b->list);
		tier_copy_io(b, true);
	}

	spin_lock_irq(&c->lock);
	/* The head job at its limit of chunks at once holds the others. */
	while ((job = list_first_entry_or_null(&c->queue, struct tier_copy_job,
					       list)) &&
	       job->chunks < job->max_chunks) {
		/*
		 * It may drop the lock; the head stays: only this work takes
		 * jobs off the queue.
		 */
		b = tier_copy_get_buf(c);
		if (!b)
			break;
		b->job = job;
		b->offset = job->next;
		b->count = min_t(sector_t, job->from.count - job->next,
				 job->chunk_sectors);
		job->next += b->count;
		job->chunks++;
		if (job->next == job->from.count)
			list_del(&job->list); /* all given out */
		spin_unlock_irq(&c->lock);
		tier_copy_io(b, false);
		spin_lock_irq(&c->lock);
	}
	spin_unlock_irq(&c->lock);

	list_for_each_entry_safe(job, jtmp, &done, list) {
		list_del(&job->list);
		/* The job may be freed by its completion. */
		job->fn(job->read_err, job->write_err, job->context);
		ended++;
	}
	if (ended) {
		bool idle;

		spin_lock_irq(&c->lock);
		c->active -= ended;
		idle = !c->active;
		spin_unlock_irq(&c->lock);
		if (idle) {
			wake_up(&c->idle_wait);
			mod_delayed_work(c->wq, &c->shrink,
					 msecs_to_jiffies(TIER_COPY_IDLE_MS));
		}
	}
}

/* No copy for TIER_COPY_IDLE_MS: keep one buffer, free the others. */
static void tier_copy_shrink(struct work_struct *ws)
{
	struct tier_copier *c =
		container_of(to_delayed_work(ws), struct tier_copier, shrink);
	struct tier_copy_buf *b, *tmp;
	LIST_HEAD(spare);

	spin_lock_irq(&c->lock);
	if (c->active) {
		spin_unlock_irq(&c->lock);
		return;
	}
	list_for_each_entry_safe(b, tmp, &c->free_bufs, list) {
		if (c->nr_bufs == 1)
			break;
		list_move(&b->list, &spare);
		c->nr_bufs--;
	}
	spin_unlock_irq(&c->lock);
	list_for_each_entry_safe(b, tmp, &spare, list)
		tier_copy_buf_free(b);
}
