/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-mem.h - the memory tier from userspace: "numa:NODE:SIZE" tier
 * arguments, checking a NUMA node in sysfs, and the record that lets
 * `tierctl activate` re-create the memory tier.
 *
 * The memory tier holds only clean copies of extents that live on the
 * durable tiers, so nothing about it is on the devices: its table keys
 * (mem_node, mem_size_mb, mem_promote_hits) are recorded per device UUID in
 * $TIER_STATE_DIR/mem.conf (default /etc/dm-tier/mem.conf), one line each:
 *
 *   <32 hex digits of the device uuid> node=N size_mb=M [promote_hits=H]
 *
 * '#' starts a comment line. `tierctl create` adds the line; `tierctl
 * policy NAME mem_size_mb=..` updates it; nothing removes it (`tierctl
 * remove` keeps the device's data and configuration).
 */
#ifndef DM_TIER_TL_MEM_H
#define DM_TIER_TL_MEM_H

#include "tl.h"
#include "tl-status.h"

#define TL_NUMA_PREFIX "numa:"
#define TL_NODE_DIR "devices/system/node"

/* Whether a --tier argument names a memory tier ("numa:..."). */
bool tl_numa_is_spec(const char *arg);

/**
 * tl_numa_parse() - "numa:NODE:SIZE": NODE 0..TL_MEM_NODE_MAX, SIZE a size
 * (binary suffixes, tier_parse_size()) that is a whole number of MiB, from
 * 1 MiB to TL_MEM_SIZE_MB_MAX MiB.
 * Return: TL_OK with *@node and *@bytes set, or TL_USAGE saying what to
 * write instead.
 */
int tl_numa_parse(const char *arg, u32 *node, u64 *bytes, struct tl_err *err);

/**
 * tl_numa_check() - whether NUMA node @node can hold a memory tier of
 * @bytes: <sysroot>/devices/system/node/node<N> exists, @bytes is at least
 * one extent (@extent_bytes), and the node's MemFree
 * (<sysroot>/devices/system/node/node<N>/meminfo) is at least @bytes.
 * Return: TL_OK; TL_USAGE naming the nodes there are, the extent size, or
 * how much the node has free and to lower SIZE; TL_FAIL when sysfs cannot
 * be read.
 */
int tl_numa_check(const char *sysroot, u32 node, u64 bytes, u64 extent_bytes,
		  struct tl_err *err);

/**
 * tl_numa_take() - take the memory tier out of create's --tier arguments.
 * @tier_args: the arguments in order; the numa: one is removed.
 * @nr_tiers:  in: their number; out: the block devices' (durable tiers).
 * @mem:       out; @mem->on when there was one (promote_hits at default).
 * @mem_arg:   out; that argument, or NULL.
 * At most one, not the first (tier 0 holds the metadata).
 * Return: TL_OK or TL_USAGE.
 */
int tl_numa_take(const char **tier_args, int *nr_tiers, struct tl_mem_cfg *mem,
		 const char **mem_arg, struct tl_err *err);

/* MemFree of node @node in bytes; 0 or -errno (-ENOENT: no such node). */
int tl_numa_mem_free(const char *sysroot, u32 node, u64 *bytes);

/* ---- the record ---- */

/* $TIER_STATE_DIR/mem.conf (or /etc/dm-tier/mem.conf). */
const char *tl_mem_record_path(void);

/*
 * One line: TL_OK with @uuid_hex (33 bytes) and @cfg filled (@cfg->on set),
 * 1 for a blank or comment line, TL_USAGE with the reason.
 */
int tl_mem_record_parse_line(const char *line, char *uuid_hex,
			     struct tl_mem_cfg *cfg, struct tl_err *err);
/* The line for @uuid_hex and @cfg, without newline; snprintf-like. */
int tl_mem_record_format_line(const char *uuid_hex,
			      const struct tl_mem_cfg *cfg, char *buf,
			      size_t len);
/* tl_mem_record_get(): the device has no record. */
#define TL_MEM_NO_RECORD 4
/*
 * The recorded configuration of device @uuid_hex: TL_OK (@cfg set),
 * TL_MEM_NO_RECORD when there is none (also without a file), TL_FAIL (@err
 * set) when the file cannot be read. Malformed lines are skipped.
 */
int tl_mem_record_get(const char *uuid_hex, struct tl_mem_cfg *cfg,
		      struct tl_err *err);
/* Record @cfg for @uuid_hex (replacing its line), or drop the line when
 * @cfg is NULL or off. TL_OK or TL_FAIL (what to do in the message). */
int tl_mem_record_set(const char *uuid_hex, const struct tl_mem_cfg *cfg,
		      struct tl_err *err);

#endif /* DM_TIER_TL_MEM_H */
