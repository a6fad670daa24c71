// SPDX-License-Identifier: GPL-2.0
/*
 * engine.c - ckpt's I/O: one io_uring per thread, --qd I/Os of --bs bytes in
 * flight, files dealt round-robin to threads. A thread keeps its queue full
 * across file boundaries: when the last I/O of a file completes, write
 * submits an IORING_OP_FSYNC for it (verify just closes it) while the next
 * file's I/Os are already going. The first I/O failure stops every thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>

#include "ckpt.h"

struct shared {
	const struct ckpt_opts *o;
	int dirfd;
	atomic_bool abort;
	pthread_mutex_t lock;	/* errors, direct_refused, stderr lines */
	uint64_t errors;
	bool direct_refused;
};

struct file_state {
	uint64_t idx;
	int fd;
	uint64_t next;		/* next offset to submit */
	uint64_t end;		/* bytes to transfer */
	unsigned int inflight;	/* ring operations of this file */
	bool finishing;		/* fsync submitted or closed */
	bool bad;		/* verify: at least one bad block */
	bool missing;		/* verify: the file does not exist */
};

struct slot {
	struct file_state *f;
	unsigned char *buf;
	uint64_t off;
	uint32_t len, done;
};

struct worker {
	struct shared *sh;
	pthread_t tid;
	bool started;
	struct io_uring ring;
	bool ring_ok;
	unsigned char *mem;
	struct slot *slots;
	unsigned int *free_slots, nr_free;
	struct file_state *files;
	uint64_t nr_files, cur;
	unsigned int inflight;	/* ring operations in flight */
	uint64_t bytes, files_done, bad_blocks, bad_files;
	unsigned int nr_mm;
	struct ckpt_mismatch mm[CKPT_MAX_REPORT];
};

#define FSYNC_TAG 1ULL

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Report a failure of @what on file @f (NULL: the run) and stop the run. */
static void fail_io(struct shared *sh, const struct file_state *f,
		    const char *what, uint64_t off, int err)
{
	const struct ckpt_opts *o = sh->o;
	char name[256] = "";

	if (f)
		ckpt_file_name(o, f->idx, name, sizeof(name));
	pthread_mutex_lock(&sh->lock);
	sh->errors++;
	if (!o->buffered && err == EINVAL) {
		if (!sh->direct_refused)
			fprintf(stderr,
				"ckpt: %s: the filesystem refuses O_DIRECT (%s of %s: %s; tmpfs does that); rerun with --buffered\n",
				o->dir, what, f ? name : o->dir, strerror(err));
		sh->direct_refused = true;
	} else if (f && off != UINT64_MAX) {
		fprintf(stderr, "ckpt: %s/%s: %s at offset %" PRIu64 ": %s\n",
			o->dir, name, what, off, strerror(err));
	} else {
		fprintf(stderr, "ckpt: %s%s%s: %s: %s\n", o->dir, f ? "/" : "",
			name, what, strerror(err));
	}
	pthread_mutex_unlock(&sh->lock);
	atomic_store(&sh->abort, true);
}

/* Keep the @CKPT_MAX_REPORT lowest (file, offset) mismatches, sorted. */
static void record(struct ckpt_mismatch *mm, unsigned int *nr,
		   const struct ckpt_mismatch *m)
{
	unsigned int i = *nr;

	if (i == CKPT_MAX_REPORT) {
		const struct ckpt_mismatch *last = &mm[i - 1];

		if (m->file > last->file ||
		    (m->file == last->file && m->offset >= last->offset))
			return;
		i--;
	} else {
		(*nr)++;
	}
	for (; i > 0; i--) {
		const struct ckpt_mismatch *p = &mm[i - 1];

		if (p->file < m->file ||
		    (p->file == m->file && p->offset < m->offset))
			break;
		mm[i] = *p;
	}
	mm[i] = *m;
}

static struct io_uring_sqe *get_sqe(struct worker *w)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);

	if (!sqe) {
		io_uring_submit(&w->ring);
		sqe = io_uring_get_sqe(&w->ring);
	}
	return sqe;
}

static int open_file(struct worker *w, struct file_state *f)
{
	const struct ckpt_opts *o = w->sh->o;
	int flags = o->buffered ? 0 : O_DIRECT;
	char name[256];
	struct stat st;

	ckpt_file_name(o, f->idx, name, sizeof(name));
	if (o->op == CKPT_WRITE)
		flags |= O_WRONLY | O_CREAT | O_TRUNC;
	else
		flags |= O_RDONLY;
	f->fd = openat(w->sh->dirfd, name, flags | O_CLOEXEC, 0644);
	if (f->fd < 0 && errno == ENOENT && o->op == CKPT_VERIFY) {
		/* A data problem, not an I/O failure: report it, go on. */
		struct ckpt_mismatch m = { .file = f->idx };

		m.check.kind = CKPT_MISSING_FILE;
		record(w->mm, &w->nr_mm, &m);
		w->bad_blocks += o->size / CKPT_BLOCK_SIZE;
		f->bad = f->missing = true;
		f->end = 0;
		return 0;
	}
	if (f->fd < 0) {
		fail_io(w->sh, f, "open", UINT64_MAX, errno);
		return -1;
	}
	f->end = o->size;
	if (o->op == CKPT_VERIFY) {
		if (fstat(f->fd, &st)) {
			fail_io(w->sh, f, "stat", UINT64_MAX, errno);
			return -1;
		}
		if ((uint64_t)st.st_size < o->size) {
			struct ckpt_mismatch m = { .file = f->idx };

			f->end = (uint64_t)st.st_size & ~(uint64_t)(CKPT_BLOCK_SIZE - 1);
			m.offset = f->end;
			m.file_size = st.st_size;
			m.check.kind = CKPT_SHORT_FILE;
			record(w->mm, &w->nr_mm, &m);
			w->bad_blocks += (o->size - f->end) / CKPT_BLOCK_SIZE;
			f->bad = true;
		}
	}
	return 0;
}

static void close_file(struct worker *w, struct file_state *f, bool ok)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (!ok)
		return;
	if (!f->missing)
		w->files_done++;
	if (f->bad)
		w->bad_files++;
}

/* All of @f's I/O has completed: fsync it (write) or close it (verify). */
static void finish_file(struct worker *w, struct file_state *f)
{
	const struct ckpt_opts *o = w->sh->o;
	struct io_uring_sqe *sqe;

	f->finishing = true;
	if (atomic_load(&w->sh->abort)) {
		close_file(w, f, false);
		return;
	}
	if (o->op == CKPT_VERIFY) {
		close_file(w, f, true);
		return;
	}
	sqe = get_sqe(w);
	if (!sqe) {
		fail_io(w->sh, f, "fsync", UINT64_MAX, EBUSY);
		close_file(w, f, false);
		return;
	}
	io_uring_prep_fsync(sqe, f->fd, 0);
	io_uring_sqe_set_data64(sqe, (uintptr_t)f | FSYNC_TAG);
	f->inflight++;
	w->inflight++;
}

static bool submit_io(struct worker *w, struct slot *s)
{
	const struct ckpt_opts *o = w->sh->o;
	struct io_uring_sqe *sqe = get_sqe(w);

	if (!sqe)
		return false;
	if (o->op == CKPT_WRITE)
		io_uring_prep_write(sqe, s->f->fd, s->buf + s->done,
				    s->len - s->done, s->off + s->done);
	else
		io_uring_prep_read(sqe, s->f->fd, s->buf + s->done,
				   s->len - s->done, s->off + s->done);
	io_uring_sqe_set_data64(sqe, (uintptr_t)s);
	return true;
}

/* Queue new I/Os until the queue is full or this thread's files are done. */
static void fill(struct worker *w)
{
	const struct ckpt_opts *o = w->sh->o;

	while (w->cur < w->nr_files && !atomic_load(&w->sh->abort)) {
		struct file_state *f = &w->files[w->cur];
		struct slot *s;

		if (f->fd < 0 && !f->finishing && open_file(w, f))
			return;
		if (f->next >= f->end) {
			if (!f->inflight && !f->finishing)
				finish_file(w, f);
			w->cur++;
			continue;
		}
		if (!w->nr_free)
			return;
		s = &w->slots[w->free_slots[w->nr_free - 1]];
		s->f = f;
		s->off = f->next;
		s->len = (uint32_t)(f->end - f->next < o->bs ? f->end - f->next : o->bs);
		s->done = 0;
		if (o->op == CKPT_WRITE)
			ckpt_fill(s->buf, s->len, o->seed, f->idx, s->off);
		if (!submit_io(w, s)) {
			fail_io(w->sh, f, "queue", s->off, EBUSY);
			return;
		}
		w->nr_free--;
		f->next += s->len;
		f->inflight++;
		w->inflight++;
	}
}

static void check_blocks(struct worker *w, struct slot *s)
{
	const struct ckpt_opts *o = w->sh->o;
	uint32_t i;

	for (i = 0; i < s->len; i += CKPT_BLOCK_SIZE) {
		struct ckpt_mismatch m = { .file = s->f->idx, .offset = s->off + i };

		if (ckpt_check_block(s->buf + i, o->seed, m.file, m.offset,
				     &m.check) == CKPT_OK)
			continue;
		w->bad_blocks++;
		s->f->bad = true;
		record(w->mm, &w->nr_mm, &m);
	}
}

static void complete(struct worker *w, struct io_uring_cqe *cqe)
{
	const struct ckpt_opts *o = w->sh->o;
	uint64_t data = io_uring_cqe_get_data64(cqe);
	struct file_state *f;
	struct slot *s;
	int res = cqe->res;

	w->inflight--;
	if (data & FSYNC_TAG) {
		f = (struct file_state *)(uintptr_t)(data & ~FSYNC_TAG);
		f->inflight--;
		if (res < 0)
			fail_io(w->sh, f, "fsync", UINT64_MAX, -res);
		close_file(w, f, res >= 0);
		return;
	}
	s = (struct slot *)(uintptr_t)data;
	f = s->f;
	if (res < 0) {
		fail_io(w->sh, f, o->op == CKPT_WRITE ? "write" : "read",
			s->off + s->done, -res);
	} else if (res == 0) {
		fail_io(w->sh, f,
			o->op == CKPT_WRITE ? "write (wrote nothing)" :
					      "read (end of file: it shrank?)",
			s->off + s->done, EIO);
	} else {
		s->done += res;
		if (s->done < s->len && !atomic_load(&w->sh->abort)) {
			/* Short transfer: queue the rest. */
			if (submit_io(w, s)) {
				w->inflight++;
				return;
			}
			fail_io(w->sh, f, "queue", s->off + s->done, EBUSY);
		} else if (s->done == s->len) {
			w->bytes += s->len;
			if (o->op == CKPT_VERIFY)
				check_blocks(w, s);
		}
	}
	w->free_slots[w->nr_free++] = s - w->slots;
	f->inflight--;
	if (f->next >= f->end && !f->inflight && !f->finishing)
		finish_file(w, f);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct io_uring_cqe *cqe;
	uint64_t i;
	int ret;

	for (;;) {
		fill(w);
		if (!w->inflight)
			break;
		ret = io_uring_submit_and_wait(&w->ring, 1);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN &&
		    ret != -EBUSY) {
			/* Nothing was queued: what is in flight is lost. */
			fail_io(w->sh, NULL, "io_uring_submit", UINT64_MAX,
				-ret);
			break;
		}
		while (io_uring_peek_cqe(&w->ring, &cqe) == 0) {
			complete(w, cqe);
			io_uring_cqe_seen(&w->ring, cqe);
		}
	}
	for (i = 0; i < w->nr_files; i++)
		if (w->files[i].fd >= 0)
			close_file(w, &w->files[i], false);
	return NULL;
}

/* Returns 0, 1 when out of memory, or io_uring_queue_init()'s -errno. */
static int worker_init(struct worker *w, struct shared *sh, unsigned int id,
		       unsigned int nr_threads)
{
	const struct ckpt_opts *o = sh->o;
	unsigned int i;
	int ret;

	w->sh = sh;
	ret = io_uring_queue_init(2 * o->qd, &w->ring, 0);
	if (ret < 0)
		return ret;
	w->ring_ok = true;
	w->nr_files = (o->files - id + nr_threads - 1) / nr_threads;
	w->files = calloc(w->nr_files, sizeof(*w->files));
	w->slots = calloc(o->qd, sizeof(*w->slots));
	w->free_slots = calloc(o->qd, sizeof(*w->free_slots));
	if (!w->files || !w->slots || !w->free_slots ||
	    posix_memalign((void **)&w->mem, CKPT_BLOCK_SIZE, o->qd * o->bs))
		return 1;
	for (i = 0; i < w->nr_files; i++) {
		w->files[i].idx = id + (uint64_t)i * nr_threads;
		w->files[i].fd = -1;
	}
	for (i = 0; i < o->qd; i++) {
		w->slots[i].buf = w->mem + (size_t)i * o->bs;
		w->free_slots[i] = o->qd - 1 - i;
	}
	w->nr_free = o->qd;
	return 0;
}

static void worker_free(struct worker *w)
{
	if (w->ring_ok)
		io_uring_queue_exit(&w->ring);
	free(w->mem);
	free(w->slots);
	free(w->free_slots);
	free(w->files);
}

static int open_dir(const struct ckpt_opts *o)
{
	int fd;

	if (o->op == CKPT_WRITE && mkdir(o->dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "ckpt: cannot create directory %s: %s\n", o->dir,
			strerror(errno));
		return -1;
	}
	fd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "ckpt: cannot open directory %s: %s\n", o->dir,
			strerror(errno));
	return fd;
}

int ckpt_run(const struct ckpt_opts *o, struct ckpt_result *r)
{
	struct shared sh = { .o = o, .dirfd = -1 };
	struct worker *w = NULL;
	unsigned int t, nr;
	double t0;
	int ret;

	memset(r, 0, sizeof(*r));
	nr = o->threads < o->files ? o->threads : (unsigned int)o->files;
	r->threads = nr;
	atomic_init(&sh.abort, false);
	pthread_mutex_init(&sh.lock, NULL);
	sh.dirfd = open_dir(o);
	if (sh.dirfd < 0) {
		sh.errors++;
		goto out;
	}
	w = calloc(nr, sizeof(*w));
	if (!w) {
		fail_io(&sh, NULL, "allocate", UINT64_MAX, ENOMEM);
		goto out;
	}
	for (t = 0; t < nr; t++) {
		ret = worker_init(&w[t], &sh, t, nr);
		if (ret > 0) {
			fail_io(&sh, NULL, "allocate I/O buffers", UINT64_MAX,
				ENOMEM);
			goto out;
		}
		if (ret < 0) {
			fprintf(stderr,
				"ckpt: io_uring is not available (io_uring_setup: %s); %s\n",
				strerror(-ret),
				ret == -ENOMEM ?
					"raise the locked-memory limit (ulimit -l) or lower --qd" :
					"check /proc/sys/kernel/io_uring_disabled and seccomp/container policy");
			r->uring_unavailable = true;
			sh.errors++;
			goto out;
		}
	}
	t0 = now();
	for (t = 0; t < nr; t++) {
		ret = pthread_create(&w[t].tid, NULL, worker_main, &w[t]);
		if (ret) {
			fail_io(&sh, NULL, "pthread_create", UINT64_MAX, ret);
			break;
		}
		w[t].started = true;
	}
	for (t = 0; t < nr; t++)
		if (w[t].started)
			pthread_join(w[t].tid, NULL);
	if (o->op == CKPT_WRITE && !sh.errors && fsync(sh.dirfd))
		fail_io(&sh, NULL, "fsync of the directory", UINT64_MAX, errno);
	r->seconds = now() - t0;
	for (t = 0; t < nr; t++) {
		unsigned int i;

		r->bytes += w[t].bytes;
		r->files += w[t].files_done;
		r->bad_blocks += w[t].bad_blocks;
		r->bad_files += w[t].bad_files;
		for (i = 0; i < w[t].nr_mm; i++)
			record(r->mismatches, &r->nr_mismatches, &w[t].mm[i]);
	}
out:
	if (w)
		for (t = 0; t < nr; t++)
			worker_free(&w[t]);
	free(w);
	if (sh.dirfd >= 0)
		close(sh.dirfd);
	pthread_mutex_destroy(&sh.lock);
	r->errors = sh.errors;
	r->direct_refused = sh.direct_refused;
	return r->errors || r->bad_blocks ? CKPT_EXIT_FAIL : CKPT_EXIT_OK;
}
