/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl.h - libtier: the userspace plumbing behind tierctl, tierd and ckpt.
 *
 * Everything here is usable from unit tests: functions that touch the system
 * take the sysfs root or file descriptors as parameters, and failures are
 * described in a struct tl_err (one sentence that says what to do) together
 * with an exit-code-like result (enum tl_rc). This header holds that
 * convention and tl-util.c's helpers; docs/ARCHITECTURE.md ("Userspace")
 * lists the other tl-*.c files.
 */
#ifndef DM_TIER_TL_H
#define DM_TIER_TL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format.h"

/* Results; equal to tierctl's exit codes. */
enum tl_rc {
	TL_OK = 0,
	TL_FAIL = 1,	/* the operation failed */
	TL_USAGE = 2,	/* the request itself is wrong */
};

#define TL_MSG_LEN 1024

/**
 * struct tl_err - why something failed.
 * @msg: one or more lines for stderr, without the "tierctl: " prefix and
 *       without a trailing newline; empty when nothing failed.
 */
struct tl_err {
	char msg[TL_MSG_LEN];
};

/* Set @err->msg (if @err) and return @rc. */
int tl_fail(struct tl_err *err, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Append "\n<text>" to @err->msg. */
void tl_err_append(struct tl_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- UUIDs ---- */
#define TL_UUID_HEX_LEN (2 * TIER_UUID_LEN)	/* without the NUL */
#define TL_DM_UUID_PREFIX "DMTIER-"
#define TL_DM_UUID_LEN (sizeof(TL_DM_UUID_PREFIX) - 1 + TL_UUID_HEX_LEN)

/* 32 lowercase hex digits and a NUL into @out (TL_UUID_HEX_LEN + 1). */
void tl_uuid_hex(const u8 *uuid, char *out);
/* Exactly 32 hex digits (either case) → @uuid; 0 or -EINVAL. */
int tl_uuid_parse_hex(const char *s, u8 *uuid);
/* "DMTIER-<hex>" into @out (TL_DM_UUID_LEN + 1). */
void tl_dm_uuid(const u8 *uuid, char *out);
/* Whether a DM uuid belongs to dm-tier. */
bool tl_is_tier_dm_uuid(const char *dm_uuid);
/* Random (RFC 4122 version 4) UUID from getrandom(); 0 or -errno. */
int tl_uuid_random(u8 *uuid);

/* ---- tier classes ---- */
/* "unknown", "nvme", "nvmf", "pmem", "mem", "meta", or "?" */
const char *tl_class_name(u32 tier_class);
/*
 * Parse a --class value: "nvme", "nvmf", "pmem" (case-insensitive), or
 * "auto" (detect: *tier_class = TL_CLASS_AUTO). 0 or -EINVAL.
 */
#define TL_CLASS_AUTO 0xffffffffU
int tl_class_parse(const char *s, u32 *tier_class);

/* ---- command-line values ---- */
/*
 * --extent-size: a size (tier_parse_size) that is a power of two from 64 KiB
 * to 64 MiB; *shift = log2(extent sectors). TL_OK or TL_USAGE.
 */
int tl_parse_extent_size(const char *s, u32 *shift, struct tl_err *err);
/*
 * --size: a size that is a non-zero multiple of the extent size (given as
 * shift); *sectors set. TL_OK or TL_USAGE.
 */
int tl_parse_virt_size(const char *s, u32 extent_shift, u64 *sectors,
		       struct tl_err *err);
/*
 * A --tier argument: a memory tier "numa:NODE:SIZE" must be well formed
 * (tl_numa_parse()), anything else must not be empty. TL_OK or TL_USAGE
 * with the message.
 */
int tl_check_tier_arg(const char *arg, struct tl_err *err);

/* "1 MiB" style, in a static-per-call-site-free way: caller's buffer. */
#define TL_SIZE_STR_LEN 32
const char *tl_size_str(u64 bytes, char *buf);

#endif /* DM_TIER_TL_H */
