/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/* Do not edit: generated from tools/netlink/dm-tier.yaml by
 * tools/netlink/gen-uapi (`make uapi`). */
#ifndef _UAPI_LINUX_DM_TIER_H
#define _UAPI_LINUX_DM_TIER_H

/* Control and monitoring of dm-tier devices (device-mapper target "tier"). */
#define DM_TIER_FAMILY_NAME "dm-tier"
#define DM_TIER_FAMILY_VERSION 1

#define DM_TIER_MCGRP_MONITOR "monitor"

/* What a monitor notification reports (attribute "event"). */
enum dm_tier_event {
	/* A device was activated (first resume of a new pool). */
	DM_TIER_EVENT_DEV_NEW = 1,
	/* A device was removed (its last table was destroyed). */
	DM_TIER_EVENT_DEV_DEL = 2,
	/* Tier "event-tier" went above its high watermark. */
	DM_TIER_EVENT_WATERMARK_HIGH = 3,
	/* Tier "event-tier" is back at or below its low watermark. */
	DM_TIER_EVENT_WATERMARK_LOW = 4,
	/*
	 * An explicit move request (migrate, pin with target-tier) ended: one
	 * notification per request, with its move-id, move-outcome, move-errno
	 * and done-extents; event-tier is its target tier in the tier list the
	 * notification carries (absent when a tier-list change removed that tier
	 * before it was sent).
	 */
	DM_TIER_EVENT_MIGRATION_DONE = 5,
	/*
	 * Tier "event-tier" got worse: degraded (I/O errors) or offline (a lost
	 * path, a failed flush or errors in a row).
	 */
	DM_TIER_EVENT_TIER_ERROR = 6,
	/* Tier "event-tier" is ok again (tier-recover's probe flush succeeded). */
	DM_TIER_EVENT_TIER_RECOVERED = 7,
	/*
	 * The metadata mode changed: rw to ro or fail, or ro back to rw
	 * ("metadata-mode" has the new one).
	 */
	DM_TIER_EVENT_MODE_CHANGE = 8,
	/* Tier "event-tier" is above 95% used, or a write failed for space. */
	DM_TIER_EVENT_NEAR_FULL = 9,
};

/* A device; the top-level set of every message. */
enum {
	DM_TIER_A_DEV_UNSPEC,
	/* Device-mapper name of the device (request key). */
	DM_TIER_A_DEV_NAME, /* string, at most 127 bytes */
	/* Virtual device UUID (from the superblock), text form. */
	DM_TIER_A_DEV_UUID, /* string */
	DM_TIER_A_DEV_SIZE_BYTES, /* u64 */
	DM_TIER_A_DEV_EXTENT_BYTES, /* u64 */
	DM_TIER_A_DEV_VIRT_EXTENTS, /* u64 */
	DM_TIER_A_DEV_MAPPED_EXTENTS, /* u64 */
	/* "rw", "ro" or "fail". */
	DM_TIER_A_DEV_METADATA_MODE, /* string */
	DM_TIER_A_DEV_COMMITS, /* u64 */
	DM_TIER_A_DEV_NOSPC_ERRORS, /* u64 */
	DM_TIER_A_DEV_NR_TIERS, /* u32 */
	/* One per tier, in tier order. */
	DM_TIER_A_DEV_TIERS, /* nest, set "tier", repeated */
	DM_TIER_A_DEV_MIGRATION, /* nest, set "migration" */
	DM_TIER_A_DEV_POLICY, /* nest, set "policy" */
	DM_TIER_A_DEV_EVENT, /* u32, enum event */
	DM_TIER_A_DEV_EVENT_TIER, /* u32 */
	/* Byte offset into the device; rounded down to an extent. */
	DM_TIER_A_DEV_RANGE_START, /* u64 */
	/* Bytes; the range is rounded out to whole extents. Not 0. */
	DM_TIER_A_DEV_RANGE_LEN, /* u64 */
	DM_TIER_A_DEV_TARGET_TIER, /* u32 */
	/* extent-dump replies; one per mapped extent. */
	DM_TIER_A_DEV_EXTENTS, /* nest, set "extent", repeated */
	/* How many extents a pin/unpin/migrate request covered. */
	DM_TIER_A_DEV_DONE_EXTENTS, /* u64 */
	/* Padding for 64-bit attributes (nla_put_u64_64bit). */
	DM_TIER_A_DEV_PAD, /* pad */
	/* Writes waiting for an offline tier now (offline_queue_s). */
	DM_TIER_A_DEV_OFFLINE_QUEUED, /* u64 */
	/*
	 * Writes that waited offline_queue_s for an offline tier and failed with
	 * EIO, since activation.
	 */
	DM_TIER_A_DEV_OFFLINE_EXPIRED, /* u64 */
	/*
	 * Id of a queued move request: in the reply of a migrate or pin that
	 * queued one, the key of move-cancel, and in its migration-done
	 * notification.
	 */
	DM_TIER_A_DEV_MOVE_ID, /* u32 */
	/* The move queue, oldest (running) first. */
	DM_TIER_A_DEV_MOVES, /* nest, set "move", repeated */
	/* migration-done only; "done", "cancelled" or "failed". */
	DM_TIER_A_DEV_MOVE_OUTCOME, /* string */
	/*
	 * migration-done only; why a failed request stopped (ENOSPC, EIO), else
	 * 0.
	 */
	DM_TIER_A_DEV_MOVE_ERRNO, /* u32 */
	/*
	 * evacuate only: instead of starting, cancel the tier's evacuation and
	 * let it take new extents again.
	 */
	DM_TIER_A_DEV_EVACUATE_STOP, /* flag */
	/*
	 * evacuate only: the preferred destination tier (tierctl evacuate --to,
	 * replace-tier). Extents go there while it has a free extent above its
	 * reserve, then to the usual choice (the fastest other tier with room):
	 * the evacuation never stops for a full preferred tier. Given for a tier
	 * already being evacuated, its request takes it for the extents still to
	 * move. EINVAL when it is not a tier, is the tier evacuated, or is
	 * offline or being evacuated.
	 */
	DM_TIER_A_DEV_EVACUATE_TO, /* u32 */
	/*
	 * How long the last metadata commit took, from its flushes of the data
	 * tiers to its superblock write, in microseconds; 0 before the first.
	 */
	DM_TIER_A_DEV_COMMIT_LAST_US, /* u64 */
	/* The sum of the commits' durations since activation, in microseconds. */
	DM_TIER_A_DEV_COMMIT_TOTAL_US, /* u64 */

	__DM_TIER_A_DEV_MAX,
	DM_TIER_A_DEV_MAX = (__DM_TIER_A_DEV_MAX - 1)
};

/* Attribute set "tier". */
enum {
	DM_TIER_A_TIER_UNSPEC,
	DM_TIER_A_TIER_INDEX, /* u32 */
	/* Kernel name of the member block device (nvme0n1, ...). */
	DM_TIER_A_TIER_DEVICE, /* string */
	/* "nvme", "nvmf", "pmem", "mem" or "unknown". */
	DM_TIER_A_TIER_CLASS, /* string */
	/* "ok", "degraded" or "offline" (a tier that is not ok can be forgotten). */
	DM_TIER_A_TIER_STATE, /* string */
	DM_TIER_A_TIER_CAPACITY_EXTENTS, /* u64 */
	DM_TIER_A_TIER_USED_EXTENTS, /* u64 */
	DM_TIER_A_TIER_MAPPED_EXTENTS, /* u64 */
	DM_TIER_A_TIER_READ_IOS, /* u64 */
	DM_TIER_A_TIER_WRITE_IOS, /* u64 */
	DM_TIER_A_TIER_IO_ERRORS, /* u64 */
	/* Padding for 64-bit attributes (nla_put_u64_64bit). */
	DM_TIER_A_TIER_PAD, /* pad */
	/*
	 * 1 when the tier holds data that survives power loss; 0 for a memory
	 * tier of clean copies.
	 */
	DM_TIER_A_TIER_DURABLE, /* u32 */
	/* NUMA node a memory tier allocates its pages from (memory tiers only). */
	DM_TIER_A_TIER_NUMA_NODE, /* u32 */
	/* Memory tier size cap (mem_size_mb). */
	DM_TIER_A_TIER_MEM_BYTES_MAX, /* u64 */
	/* Bytes of node memory the memory tier holds now. */
	DM_TIER_A_TIER_MEM_BYTES_USED, /* u64 */
	/* Extents with a valid copy in the memory tier. */
	DM_TIER_A_TIER_MEM_COPIES, /* u64 */
	/* Read bios served from the memory tier since activation. */
	DM_TIER_A_TIER_MEM_HITS, /* u64 */
	/* Read bios of mapped extents not served from the memory tier. */
	DM_TIER_A_TIER_MEM_MISSES, /* u64 */
	/* Copies made (promotions into the memory tier). */
	DM_TIER_A_TIER_MEM_FILLS, /* u64 */
	/* Copies dropped to make room (coldest first). */
	DM_TIER_A_TIER_MEM_EVICTIONS, /* u64 */
	/*
	 * Copies dropped or rewritten because the extent was written or
	 * discarded.
	 */
	DM_TIER_A_TIER_MEM_INVALIDATIONS, /* u64 */
	/*
	 * 1 when the tier is being evacuated or was (superblock flag): it takes
	 * no new extents; "empty" once mapped-extents is 0. 0 otherwise.
	 */
	DM_TIER_A_TIER_EVACUATING, /* u32 */

	__DM_TIER_A_TIER_MAX,
	DM_TIER_A_TIER_MAX = (__DM_TIER_A_TIER_MAX - 1)
};

/* Attribute set "migration". */
enum {
	DM_TIER_A_MIGRATION_UNSPEC,
	DM_TIER_A_MIGRATION_PROMOTIONS, /* u64 */
	DM_TIER_A_MIGRATION_DEMOTIONS, /* u64 */
	DM_TIER_A_MIGRATION_BYTES_MOVED, /* u64 */
	DM_TIER_A_MIGRATION_IN_FLIGHT, /* u64 */
	DM_TIER_A_MIGRATION_PACE, /* string */
	DM_TIER_A_MIGRATION_ABOVE_HIGH_MS, /* u64 */
	DM_TIER_A_MIGRATION_ERRORS, /* u64 */
	DM_TIER_A_MIGRATION_MANUAL_PENDING, /* u64 */
	/* Padding for 64-bit attributes (nla_put_u64_64bit). */
	DM_TIER_A_MIGRATION_PAD, /* pad */
	/*
	 * Promotions that displaced a cold tier-0 extent (a swap) since
	 * activation.
	 */
	DM_TIER_A_MIGRATION_SWAPS, /* u64 */
	/* Explicit move requests queued, the running one included (at most 32). */
	DM_TIER_A_MIGRATION_MOVES_QUEUED, /* u32 */

	__DM_TIER_A_MIGRATION_MAX,
	DM_TIER_A_MIGRATION_MAX = (__DM_TIER_A_MIGRATION_MAX - 1)
};

/* One queued move request. */
enum {
	DM_TIER_A_MOVE_UNSPEC,
	DM_TIER_A_MOVE_ID, /* u32 */
	/* "migrate", "pin" or "evacuate" (target-tier is then the tier emptied). */
	DM_TIER_A_MOVE_KIND, /* string */
	/* "queued", "running" or "cancelling". */
	DM_TIER_A_MOVE_STATE, /* string */
	/* Bytes, extent-aligned. */
	DM_TIER_A_MOVE_RANGE_START, /* u64 */
	DM_TIER_A_MOVE_RANGE_LEN, /* u64 */
	DM_TIER_A_MOVE_TARGET_TIER, /* u32 */
	/* Extents moved so far. */
	DM_TIER_A_MOVE_DONE_EXTENTS, /* u64 */
	/*
	 * Extents still to look at or being copied (an upper bound: unmapped ones
	 * and those already on the target tier count until passed); for evacuate,
	 * the extents still mapped on its tier.
	 */
	DM_TIER_A_MOVE_LEFT_EXTENTS, /* u64 */
	DM_TIER_A_MOVE_PAD, /* pad */

	__DM_TIER_A_MOVE_MAX,
	DM_TIER_A_MOVE_MAX = (__DM_TIER_A_MOVE_MAX - 1)
};

/*
 * The migration settings; names and ranges are the table keys'
 * (docs/ARCHITECTURE.md).
 */
enum {
	DM_TIER_A_POLICY_UNSPEC,
	DM_TIER_A_POLICY_AUTO_MIGRATE, /* u32 */
	DM_TIER_A_POLICY_HIGH_WATERMARK, /* u32 */
	DM_TIER_A_POLICY_LOW_WATERMARK, /* u32 */
	DM_TIER_A_POLICY_DEMOTE_AGE, /* u32 */
	DM_TIER_A_POLICY_DRAIN_DEADLINE, /* u32 */
	DM_TIER_A_POLICY_PROMOTE_HITS, /* u32 */
	DM_TIER_A_POLICY_PROMOTE_WINDOW, /* u32 */
	DM_TIER_A_POLICY_MIGRATION_BANDWIDTH, /* u32 */
	DM_TIER_A_POLICY_MIGRATION_INFLIGHT, /* u32 */
	DM_TIER_A_POLICY_REDIRECT_WRITES, /* u32 */
	/*
	 * Reads within promote-window before an extent gets a memory-tier copy
	 * (table key mem_promote_hits).
	 */
	DM_TIER_A_POLICY_MEM_PROMOTE_HITS, /* u32 */
	/*
	 * Memory tier size cap in MiB (table key mem_size_mb); 0 when there is no
	 * memory tier.
	 */
	DM_TIER_A_POLICY_MEM_SIZE_MB, /* u32 */
	/*
	 * Seconds a write to an extent of an offline tier that cannot be
	 * redirected waits for the tier before failing with EIO (table key
	 * offline_queue_s, 0..600); 0 fails it at once.
	 */
	DM_TIER_A_POLICY_OFFLINE_QUEUE_S, /* u32 */

	__DM_TIER_A_POLICY_MAX,
	DM_TIER_A_POLICY_MAX = (__DM_TIER_A_POLICY_MAX - 1)
};

/* Attribute set "extent". */
enum {
	DM_TIER_A_EXTENT_UNSPEC,
	/* Virtual extent number (byte offset / extent-bytes). */
	DM_TIER_A_EXTENT_INDEX, /* u64 */
	DM_TIER_A_EXTENT_TIER, /* u32 */
	DM_TIER_A_EXTENT_HEAT, /* u32 */
	/* Seconds since the device was created, at the last access. */
	DM_TIER_A_EXTENT_ATIME, /* u32 */
	DM_TIER_A_EXTENT_PINNED, /* flag */
	/* Being migrated right now. */
	DM_TIER_A_EXTENT_BUSY, /* flag */
	/* Padding for 64-bit attributes (nla_put_u64_64bit). */
	DM_TIER_A_EXTENT_PAD, /* pad */

	__DM_TIER_A_EXTENT_MAX,
	DM_TIER_A_EXTENT_MAX = (__DM_TIER_A_EXTENT_MAX - 1)
};

/* Commands; see the spec for each one's request and reply. */
enum {
	DM_TIER_CMD_UNSPEC,
	/* One device (do, by name) or all of them (dump). */
	DM_TIER_CMD_DEV_GET, /* do/dump */
	/* The migration settings of one device. */
	DM_TIER_CMD_POLICY_GET, /* do */
	/* Change some settings; the others keep their values. All or nothing. */
	DM_TIER_CMD_POLICY_SET, /* do, admin-perm */
	/*
	 * Move the mapped extents of a range to a tier, asynchronously: the
	 * request is queued (FIFO, one runs at a time) and its move-id returned;
	 * EBUSY only when 32 requests are queued. The memory tier's index
	 * (nr-tiers) is refused with EINVAL: it holds copies only; use pin. A
	 * target-tier being evacuated is refused with ENOSPC (it takes no new
	 * extents); so is pin's.
	 */
	DM_TIER_CMD_MIGRATE, /* do, admin-perm */
	/*
	 * Pin the mapped extents of a range (persistent; automatic migration
	 * leaves them alone) and, with target-tier, queue a move there (as
	 * migrate: move-id in the reply, EBUSY when the queue is full). With
	 * target-tier equal to nr-tiers on a device with a memory tier, keep a
	 * copy of them resident in the memory tier instead (persistent; copied in
	 * at once and after every activation, never evicted; ENOSPC when they
	 * would not fit).
	 */
	DM_TIER_CMD_PIN, /* do, admin-perm */
	/* Clear both pins (to a tier and to the memory tier) of a range. */
	DM_TIER_CMD_UNPIN, /* do, admin-perm */
	/*
	 * The heat map; mapped extents only, optionally within a range.
	 * Resumable.
	 */
	DM_TIER_CMD_EXTENT_DUMP, /* dump */
	/*
	 * Probe a degraded or offline tier with a flush and, when it succeeds,
	 * declare it ok again (after tierd reconnected it).
	 */
	DM_TIER_CMD_TIER_RECOVER, /* do, admin-perm */
	/* Monitor notification; the dev-get layout plus event and event-tier. */
	DM_TIER_CMD_DEV_NTF, /* notify */
	/*
	 * A tier is lost for good: unmap every extent mapped on it, so that those
	 * ranges read as zeroes and the rest of the device returns to normal,
	 * then commit. Refused (EROFS) on a read-only activation, (EINVAL) for
	 * tier 0 and for a tier whose state is ok; EBUSY when some of its extents
	 * were being moved (the others are forgotten: try again).
	 */
	DM_TIER_CMD_TIER_FORGET, /* do, admin-perm */
	/*
	 * Cancel queued move request move-id: one not started ends at once, the
	 * running one when its copies in flight end (what moved stays moved). Its
	 * migration-done notification says "cancelled". ENOENT when no queued
	 * request has that id.
	 */
	DM_TIER_CMD_MOVE_CANCEL, /* do, admin-perm */
	/*
	 * Stop allocation on tier target-tier (persistent: superblock tier flag)
	 * and queue a request (kind "evacuate", move-id in the reply) that moves
	 * every extent off it, each to the fastest other tier with room above its
	 * reserve; done-extents is the count mapped on it now. A tier already
	 * being evacuated returns its request. EINVAL for tier 0 when it holds
	 * the metadata, for the only tier and for an offline tier; ENOSPC when
	 * the other tiers lack room. With evacuate-stop: cancel its evacuation
	 * and let the tier take new extents again. With evacuate-to: a preferred
	 * destination tier.
	 */
	DM_TIER_CMD_EVACUATE, /* do, admin-perm */

	__DM_TIER_CMD_MAX,
	DM_TIER_CMD_MAX = (__DM_TIER_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_DM_TIER_H */
