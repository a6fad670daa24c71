// SPDX-License-Identifier: GPL-2.0
/* The dm-log-writes log format: parsing, encoding, iteration, replay (lw.h). */
#include "lw.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

static int lw_err(char *err, size_t errlen, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int lw_err(char *err, size_t errlen, int status, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -status;
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

int lw_super_decode(const void *buf, size_t len, struct lw_super *sb, char *err, size_t errlen)
{
	const uint8_t *p = buf;

	if (len < LW_SUPER_BYTES)
		return lw_err(err, errlen, LW_ETRUNC,
			      "log super block: %zu bytes, needs %d: the log is truncated", len,
			      LW_SUPER_BYTES);
	sb->magic = get_le64(p);
	sb->version = get_le64(p + 8);
	sb->nr_entries = get_le64(p + 16);
	sb->sectorsize = get_le32(p + 24);
	if (sb->magic != LW_MAGIC)
		return lw_err(err, errlen, LW_EFORMAT,
			      "bad magic 0x%016llx (dm-log-writes logs have 0x%016llx): not a dm-log-writes log, or it was never initialised (create the log-writes target over it first)",
			      (unsigned long long)sb->magic, (unsigned long long)LW_MAGIC);
	if (sb->version != LW_VERSION)
		return lw_err(err, errlen, LW_EFORMAT,
			      "log format version %llu, this tool reads version %llu only",
			      (unsigned long long)sb->version, (unsigned long long)LW_VERSION);
	if (sb->sectorsize < 512 || sb->sectorsize > 4096 ||
	    (sb->sectorsize & (sb->sectorsize - 1)))
		return lw_err(err, errlen, LW_EFORMAT,
			      "log sector size %u: must be a power of two from 512 to 4096 (corrupt super block)",
			      sb->sectorsize);
	return 0;
}

void lw_super_encode(const struct lw_super *sb, void *buf, size_t len)
{
	uint8_t *p = buf;

	memset(buf, 0, len);
	put_le64(p, sb->magic);
	put_le64(p + 8, sb->version);
	put_le64(p + 16, sb->nr_entries);
	put_le32(p + 24, sb->sectorsize);
}

int lw_entry_decode(const void *blk, const struct lw_super *sb, uint64_t index,
		    uint64_t log_block, struct lw_entry *e, char *err, size_t errlen)
{
	const uint8_t *p = blk;
	uint64_t bytes_max = sb->sectorsize - LW_ENTRY_BYTES;

	memset(e, 0, sizeof(*e));
	e->index = index;
	e->log_block = log_block;
	e->sector = get_le64(p);
	e->nr_sectors = get_le64(p + 8);
	e->flags = get_le64(p + 16);
	e->data_len = get_le64(p + 24);
	if (e->flags & ~(uint64_t)LW_KNOWN_FLAGS)
		return lw_err(err, errlen, LW_EFORMAT,
			      "entry %llu (log block %llu): unknown flags 0x%llx: corrupt log or a newer format",
			      (unsigned long long)index, (unsigned long long)log_block,
			      (unsigned long long)e->flags);
	if (e->sector + e->nr_sectors < e->sector)
		return lw_err(err, errlen, LW_EFORMAT,
			      "entry %llu (log block %llu): sector %llu + %llu overflows: corrupt log",
			      (unsigned long long)index, (unsigned long long)log_block,
			      (unsigned long long)e->sector, (unsigned long long)e->nr_sectors);
	if (e->flags & LW_MARK) {
		if (e->data_len > bytes_max)
			return lw_err(err, errlen, LW_EFORMAT,
				      "entry %llu (log block %llu): mark of %llu bytes, at most %llu fit its block: corrupt log",
				      (unsigned long long)index, (unsigned long long)log_block,
				      (unsigned long long)e->data_len,
				      (unsigned long long)bytes_max);
		memcpy(e->mark, p + LW_ENTRY_BYTES, e->data_len);
		e->mark[e->data_len] = 0;
		if (strlen(e->mark) != e->data_len)
			return lw_err(err, errlen, LW_EFORMAT,
				      "entry %llu (log block %llu): mark name has a NUL byte inside its %llu bytes: corrupt log",
				      (unsigned long long)index, (unsigned long long)log_block,
				      (unsigned long long)e->data_len);
	} else if (e->data_len &&
		   e->data_len > e->nr_sectors * (uint64_t)sb->sectorsize) {
		/* Inline data (DAX writes) sits in the nr_sectors data blocks. */
		return lw_err(err, errlen, LW_EFORMAT,
			      "entry %llu (log block %llu): %llu bytes of inline data in %llu blocks: corrupt log",
			      (unsigned long long)index, (unsigned long long)log_block,
			      (unsigned long long)e->data_len, (unsigned long long)e->nr_sectors);
	}
	return 0;
}

int lw_entry_encode(const struct lw_entry *e, const char *mark, void *blk, uint32_t sectorsize)
{
	uint8_t *p = blk;
	size_t ml = mark ? strlen(mark) : 0;

	if (ml > sectorsize - LW_ENTRY_BYTES)
		return -LW_EFORMAT;
	memset(blk, 0, sectorsize);
	put_le64(p, e->sector);
	put_le64(p + 8, e->nr_sectors);
	put_le64(p + 16, e->flags | (mark ? LW_MARK : 0));
	put_le64(p + 24, mark ? ml : e->data_len);
	if (ml)
		memcpy(p + LW_ENTRY_BYTES, mark, ml);
	return 0;
}

uint64_t lw_entry_blocks(const struct lw_entry *e)
{
	/* The kernel advances by nr_sectors + 1 unless the entry is a discard. */
	return 1 + ((e->flags & LW_DISCARD) ? 0 : e->nr_sectors);
}

const char *lw_flags_str(uint64_t flags, char *buf, size_t len)
{
	static const char *const names[] = { "FLUSH", "FUA", "DISCARD", "MARK", "METADATA" };
	size_t n = 0;

	buf[0] = 0;
	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(flags & (1ull << i)))
			continue;
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "|" : "",
				      names[i]);
	}
	if (!n)
		snprintf(buf, len, "-");
	return buf;
}

static int fd_size(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, size);
	*size = (uint64_t)st.st_size;
	return 0;
}

static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t r = pread(fd, p, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -1 : -2;
		p += r, len -= (size_t)r, off += (uint64_t)r;
	}
	return 0;
}

static int pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t r = pwrite(fd, p, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r, len -= (size_t)r, off += (uint64_t)r;
	}
	return 0;
}

int lw_open(struct lw_log *log, int fd, char *err, size_t errlen)
{
	uint8_t sbuf[LW_SUPER_BYTES];
	int r;

	memset(log, 0, sizeof(*log));
	log->fd = fd;
	if (fd_size(fd, &log->size))
		return lw_err(err, errlen, LW_EIO, "cannot get the size of the log: %s",
			      strerror(errno));
	if (log->size < LW_SUPER_BYTES)
		return lw_err(err, errlen, LW_ETRUNC,
			      "the log is %llu bytes, shorter than its super block: truncated or not a log",
			      (unsigned long long)log->size);
	r = pread_full(fd, sbuf, sizeof(sbuf), 0);
	if (r)
		return lw_err(err, errlen, LW_EIO, "cannot read the log's super block: %s",
			      r == -1 ? strerror(errno) : "short read");
	r = lw_super_decode(sbuf, sizeof(sbuf), &log->sb, err, errlen);
	if (r)
		return r;
	log->blk = malloc(log->sb.sectorsize);
	if (!log->blk)
		return lw_err(err, errlen, LW_EIO, "out of memory");
	log->next_index = 0;
	log->next_block = 1;
	return 0;
}

void lw_close(struct lw_log *log)
{
	free(log->blk);
	log->blk = NULL;
}

int lw_seek(struct lw_log *log, uint64_t index, uint64_t block, char *err, size_t errlen)
{
	if (index > log->sb.nr_entries || block < 1 || (index == 0 && block != 1))
		return lw_err(err, errlen, LW_EFORMAT,
			      "cannot start at entry %llu at log block %llu: the log has %llu entries starting at block 1",
			      (unsigned long long)index, (unsigned long long)block,
			      (unsigned long long)log->sb.nr_entries);
	log->next_index = index;
	log->next_block = block;
	return 0;
}

int lw_next(struct lw_log *log, struct lw_entry *e, char *err, size_t errlen)
{
	uint64_t ss = log->sb.sectorsize, off, end;
	int r;

	if (log->next_index >= log->sb.nr_entries)
		return 0;
	off = log->next_block * ss;
	if (off / ss != log->next_block || off + ss > log->size)
		return lw_err(err, errlen, LW_ETRUNC,
			      "entry %llu of %llu: its header at log block %llu lies past the end of the log (%llu bytes): the log is truncated",
			      (unsigned long long)log->next_index,
			      (unsigned long long)log->sb.nr_entries,
			      (unsigned long long)log->next_block, (unsigned long long)log->size);
	r = pread_full(log->fd, log->blk, ss, off);
	if (r)
		return lw_err(err, errlen, LW_EIO, "reading entry %llu at log block %llu: %s",
			      (unsigned long long)log->next_index,
			      (unsigned long long)log->next_block,
			      r == -1 ? strerror(errno) : "short read");
	r = lw_entry_decode(log->blk, &log->sb, log->next_index, log->next_block, e, err, errlen);
	if (r)
		return r;
	end = log->next_block + lw_entry_blocks(e);
	if (end < log->next_block || end > log->size / ss)
		return lw_err(err, errlen, LW_ETRUNC,
			      "entry %llu of %llu (log block %llu): its %llu data blocks run past the end of the log (%llu bytes): the log is truncated",
			      (unsigned long long)e->index, (unsigned long long)log->sb.nr_entries,
			      (unsigned long long)e->log_block, (unsigned long long)e->nr_sectors,
			      (unsigned long long)log->size);
	log->next_index++;
	log->next_block = end;
	return 1;
}

#define LW_CHUNK (1u << 20)

static int zero_range(int fd, uint64_t off, uint64_t len)
{
	uint64_t range[2] = { off, len };
	struct stat st;
	static const uint8_t zeros[65536];

	if (!fstat(fd, &st) && S_ISBLK(st.st_mode) && !ioctl(fd, BLKZEROOUT, range))
		return 0;
	if (!fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len))
		return 0;
	while (len) {
		size_t n = len < sizeof(zeros) ? (size_t)len : sizeof(zeros);

		if (pwrite_full(fd, zeros, n, off))
			return -1;
		off += n, len -= n;
	}
	return 0;
}

int lw_apply(struct lw_log *log, const struct lw_entry *e, int target_fd, uint64_t target_size,
	     enum lw_discard_mode dmode, char *err, size_t errlen)
{
	uint64_t ss = log->sb.sectorsize;
	uint64_t off = e->sector * ss, len = e->nr_sectors * ss;
	uint64_t src = (e->log_block + 1) * ss;
	uint8_t *buf;

	if (!e->nr_sectors || (e->flags & LW_MARK))
		return 0;
	if (off / ss != e->sector || len / ss != e->nr_sectors || off + len < off ||
	    off + len > target_size)
		return lw_err(err, errlen, LW_ERANGE,
			      "entry %llu writes blocks %llu+%llu (of %llu bytes) past the end of the target (%llu bytes): replay onto a device at least as large as the logged one",
			      (unsigned long long)e->index, (unsigned long long)e->sector,
			      (unsigned long long)e->nr_sectors, (unsigned long long)ss,
			      (unsigned long long)target_size);
	if (e->flags & LW_DISCARD) {
		if (dmode == LW_DISCARD_SKIP)
			return 0;
		if (zero_range(target_fd, off, len))
			return lw_err(err, errlen, LW_EIO,
				      "entry %llu: zeroing the discarded bytes %llu+%llu of the target: %s",
				      (unsigned long long)e->index, (unsigned long long)off,
				      (unsigned long long)len, strerror(errno));
		return 0;
	}
	buf = malloc(LW_CHUNK);
	if (!buf)
		return lw_err(err, errlen, LW_EIO, "out of memory");
	while (len) {
		size_t n = len < LW_CHUNK ? (size_t)len : LW_CHUNK;
		int r = pread_full(log->fd, buf, n, src);

		if (r) {
			free(buf);
			return lw_err(err, errlen, r == -1 ? LW_EIO : LW_ETRUNC,
				      "entry %llu: reading its data at log byte %llu: %s",
				      (unsigned long long)e->index, (unsigned long long)src,
				      r == -1 ? strerror(errno) : "the log is truncated");
		}
		if (pwrite_full(target_fd, buf, n, off)) {
			free(buf);
			return lw_err(err, errlen, LW_EIO,
				      "entry %llu: writing %zu bytes at target byte %llu: %s",
				      (unsigned long long)e->index, n, (unsigned long long)off,
				      strerror(errno));
		}
		src += n, off += n, len -= n;
	}
	free(buf);
	return 0;
}
