/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dm-log-writes on-disk log (kernel drivers/md/dm-log-writes.c,
 * Documentation/admin-guide/device-mapper/log-writes.rst), read and written
 * without the kernel: parsing and encoding here are pure, the rest works on a
 * file descriptor with pread/pwrite, so the unit tests run it on a memfd.
 *
 * Layout, all little-endian, in units of the logged device's logical block
 * size S (the super's sectorsize, 512 or 4096):
 *   block 0:  super   { u64 magic, u64 version, u64 nr_entries, u32 sectorsize }
 *   block 1…: per entry one header block
 *             { u64 sector, u64 nr_sectors, u64 flags, u64 data_len }
 *             (a MARK's name, data_len bytes, follows the 32 bytes of the
 *             header in the same block), then nr_sectors blocks of the data
 *             written, except for DISCARD entries, which carry no data.
 * sector and nr_sectors count blocks of S on the logged device.
 * nr_entries is rewritten after every FUA or MARK entry and at teardown; the
 * log holds exactly that many trustworthy entries.
 */
#ifndef DMT_LW_H
#define DMT_LW_H

#include <stddef.h>
#include <stdint.h>

#define LW_MAGIC 0x6a736677736872ULL
#define LW_VERSION 1ULL

#define LW_FLUSH (1u << 0)
#define LW_FUA (1u << 1)
#define LW_DISCARD (1u << 2)
#define LW_MARK (1u << 3)
#define LW_METADATA (1u << 4)
#define LW_KNOWN_FLAGS (LW_FLUSH | LW_FUA | LW_DISCARD | LW_MARK | LW_METADATA)

#define LW_SUPER_BYTES 28
#define LW_ENTRY_BYTES 32
/* The longest mark: a 4 KiB header block less the entry header. */
#define LW_MARK_MAX (4096 - LW_ENTRY_BYTES)

/* Error codes of the library (negative returns), also the tool's exit codes. */
enum lw_status {
	LW_OK = 0,
	LW_EFORMAT = 3,	/* not a log, or a corrupt one */
	LW_ETRUNC = 4,	/* the log ends inside an entry it promises */
	LW_EIO = 5,	/* read/write error on the log or the target */
	LW_ERANGE = 6,	/* an entry lies past the end of the target */
};

struct lw_super {
	uint64_t magic;
	uint64_t version;
	uint64_t nr_entries;
	uint32_t sectorsize;
};

struct lw_entry {
	uint64_t index;		/* 0-based position in the log */
	uint64_t log_block;	/* block (of sectorsize) of its header in the log */
	uint64_t sector;	/* first block written on the logged device */
	uint64_t nr_sectors;	/* blocks written or discarded */
	uint64_t flags;
	uint64_t data_len;	/* bytes of mark name (MARK) or inline data */
	char mark[LW_MARK_MAX + 1]; /* NUL-terminated mark name, "" if none */
};

/* Parse/encode (pure). err gets a human-readable reason on failure. */
int lw_super_decode(const void *buf, size_t len, struct lw_super *sb, char *err, size_t errlen);
void lw_super_encode(const struct lw_super *sb, void *buf, size_t len);
int lw_entry_decode(const void *blk, const struct lw_super *sb, uint64_t index,
		    uint64_t log_block, struct lw_entry *e, char *err, size_t errlen);
/* Header block (sectorsize bytes, zero-padded) of an entry; mark may be NULL. */
int lw_entry_encode(const struct lw_entry *e, const char *mark, void *blk, uint32_t sectorsize);
/* Blocks the entry occupies in the log, header included. */
uint64_t lw_entry_blocks(const struct lw_entry *e);
/* "FLUSH|FUA", "DISCARD", "MARK", "-" ... into buf. */
const char *lw_flags_str(uint64_t flags, char *buf, size_t len);

/* A log open for reading: fd is not owned. */
struct lw_log {
	int fd;
	uint64_t size;		/* bytes readable */
	struct lw_super sb;
	uint8_t *blk;		/* one block buffer */
	/* iteration state */
	uint64_t next_index;
	uint64_t next_block;
};

int lw_open(struct lw_log *log, int fd, char *err, size_t errlen);
void lw_close(struct lw_log *log);
/* Continue iterating at entry INDEX whose header is at log block BLOCK. */
int lw_seek(struct lw_log *log, uint64_t index, uint64_t block, char *err, size_t errlen);
/* 1: *e is the next entry; 0: the end (nr_entries read); <0: -lw_status. */
int lw_next(struct lw_log *log, struct lw_entry *e, char *err, size_t errlen);

enum lw_discard_mode { LW_DISCARD_ZERO, LW_DISCARD_SKIP };

/*
 * Apply one entry (just returned by lw_next) to the target fd of target_size
 * bytes: data entries are copied, DISCARD ranges zeroed (or skipped), flush
 * and mark entries write nothing. 0 or -lw_status.
 */
int lw_apply(struct lw_log *log, const struct lw_entry *e, int target_fd, uint64_t target_size,
	     enum lw_discard_mode dmode, char *err, size_t errlen);

#endif
