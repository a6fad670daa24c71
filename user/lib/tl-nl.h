/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-nl.h - the dm-tier generic netlink family (include/uapi/linux/dm-tier.h,
 * spec tools/netlink/dm-tier.yaml) from userspace, over libnl-3. Used by
 * tierctl and tierd.
 *
 * Every call returns TL_OK, TL_FAIL, TL_USAGE (the kernel refused the
 * request itself: EINVAL, ERANGE, ENOENT for an unknown device) or
 * TL_NOFEATURE (no dm-tier family: module not loaded or too old), with
 * @err->msg holding the kernel's extack message when it sent one, else
 * strerror, plus what to do. -EPERM is TL_FAIL with "needs CAP_SYS_ADMIN".
 *
 * Message building and parsing are split from the socket calls
 * (tl_nl_build_* / tl_nl_parse_*) so cmocka can test them without a kernel.
 */
#ifndef DM_TIER_TL_NL_H
#define DM_TIER_TL_NL_H

#include <stdbool.h>
#include <stdint.h>

#include "tl.h"
#include "tl-status.h"

#define TL_NOFEATURE 3 /* tierctl exit code 3: the kernel lacks the feature */

struct tl_nl; /* an open generic netlink socket bound to the family */
struct nl_msg;
struct nlattr;

/* ---- values as the family reports them ---- */
struct tl_nl_tier {
	uint32_t index;
	char device[32];
	char tier_class[16];
	char state[16];
	uint64_t capacity_extents;
	uint64_t used_extents;
	uint64_t mapped_extents;
	uint64_t read_ios;
	uint64_t write_ios;
	uint64_t io_errors;
	bool durable;		/* DURABLE attribute, 1 when absent */
	bool evacuating;	/* EVACUATING: takes no new extents */
};

struct tl_nl_migration {
	uint64_t promotions;
	uint64_t demotions;
	uint64_t bytes_moved;
	uint64_t in_flight;
	char pace[16];
	uint64_t above_high_ms;
	uint64_t errors;
	uint64_t manual_pending;
	uint64_t swaps;		/* promotions that displaced a tier-0 extent */
	uint32_t moves_queued;	/* explicit move requests queued */
};

/* One queued move request (dev-get "moves"), head first. */
#define TL_NL_MOVES_MAX 32
struct tl_nl_move {
	uint32_t id;
	char kind[16];		/* "migrate", "pin" */
	char state[16];		/* "queued", "running", "cancelling" */
	uint64_t range_start;	/* bytes */
	uint64_t range_len;
	uint32_t target_tier;
	uint64_t done_extents;
	uint64_t left_extents;
};

/* Settings; index = DM_TIER_A_POLICY_* - 1. @set has bit i when v[i] is present. */
#define TL_NL_POLICY_N 13
struct tl_nl_policy {
	uint32_t set;
	uint32_t v[TL_NL_POLICY_N];
};
/* "auto_migrate", ... in DM_TIER_A_POLICY_* order (table key names). */
extern const char *const tl_nl_policy_keys[TL_NL_POLICY_N];
/* Index of a key ("high_watermark" or "high-watermark"), or -1. */
int tl_nl_policy_key(const char *key);

/* A device (dev-get reply) or a monitor notification (event != 0). */
struct tl_nl_dev {
	char name[128];
	char uuid[40];
	uint64_t size_bytes;
	uint64_t extent_bytes;
	uint64_t virt_extents;
	uint64_t mapped_extents;
	char metadata_mode[16];
	uint64_t commits;
	/* The last commit's duration and the sum over @commits (us);
	 * @has_commit_time: the module reports them. */
	bool has_commit_time;
	uint64_t commit_last_us;
	uint64_t commit_total_us;
	uint64_t nospc_errors;
	/* Writes parked for an offline tier now / failed at their deadline;
	 * @has_offline: the module reports them. */
	bool has_offline;
	uint64_t offline_queued;
	uint64_t offline_expired;
	uint32_t nr_tiers;
	struct tl_nl_tier tiers[TIER_MAX_TIERS];
	bool has_migration;
	struct tl_nl_migration migration;
	/* The memory tier: the tier nest with DURABLE 0 (index nr_tiers),
	 * not counted in @nr_tiers nor stored in @tiers. */
	struct tl_mem_stats mem;
	uint32_t event;		/* enum dm_tier_event, 0 if none */
	bool has_event_tier;
	uint32_t event_tier;
	/* The move queue (dev-get, notifications). */
	uint32_t nr_moves;
	struct tl_nl_move moves[TL_NL_MOVES_MAX];
	/* migration-done: the request that ended and how. */
	uint32_t move_id;	/* 0 when absent */
	char move_outcome[16];	/* "done", "cancelled", "failed" */
	uint32_t move_errno;	/* positive errno of a failed request */
	uint64_t done_extents;	/* extents it moved */
};

struct tl_nl_extent {
	uint64_t index;
	uint32_t tier;
	uint32_t heat;
	uint32_t atime;
	bool pinned;
	bool busy;
};

/* "dev-new", "watermark-high", ...; "unknown" otherwise. */
const char *tl_nl_event_name(uint32_t event);

/* ---- socket ---- */
int tl_nl_open(struct tl_nl **nl, struct tl_err *err);
void tl_nl_close(struct tl_nl *nl);

int tl_nl_dev_get(struct tl_nl *nl, const char *name, struct tl_nl_dev *dev,
		  struct tl_err *err);
/* Calls @cb for each device; a non-zero return from @cb stops and is returned. */
int tl_nl_dev_list(struct tl_nl *nl,
		   int (*cb)(const struct tl_nl_dev *dev, void *arg), void *arg,
		   struct tl_err *err);
int tl_nl_policy_get(struct tl_nl *nl, const char *name,
		     struct tl_nl_policy *pol, struct tl_err *err);
/* Sets the fields in @in->set; @out (optional) gets all settings after. */
int tl_nl_policy_set(struct tl_nl *nl, const char *name,
		     const struct tl_nl_policy *in, struct tl_nl_policy *out,
		     struct tl_err *err);
int tl_nl_migrate(struct tl_nl *nl, const char *name, uint64_t start,
		  uint64_t len, uint32_t tier, uint64_t *done,
		  struct tl_err *err);
/* @tier < 0: pin where the extents are. */
int tl_nl_pin(struct tl_nl *nl, const char *name, uint64_t start,
	      uint64_t len, int tier, uint64_t *done, struct tl_err *err);
int tl_nl_unpin(struct tl_nl *nl, const char *name, uint64_t start,
		uint64_t len, uint64_t *done, struct tl_err *err);
/* The move-id of the last successful migrate/pin that queued a move, or 0
 * (none queued: pin in place, unpin, memory tier). */
uint32_t tl_nl_last_move_id(struct tl_nl *nl);
/* Cancel queued move request @id (move-cancel). */
int tl_nl_move_cancel(struct tl_nl *nl, const char *name, uint32_t id,
		      struct tl_err *err);
/* Mapped extents within [start, start+len) (len 0: the whole device). */
int tl_nl_extent_dump(struct tl_nl *nl, const char *name, uint64_t start,
		      uint64_t len,
		      int (*cb)(const struct tl_nl_extent *ext, void *arg),
		      void *arg, struct tl_err *err);
/*
 * The version the kernel's dm-tier family reports (its DM_TIER_FAMILY_VERSION),
 * or a negative errno (-ENOENT: no such family, the module is not loaded).
 * Opens its own socket; needs no privilege.
 */
int tl_nl_family_version(void);
/* The -errno the kernel answered the last request with (0: none), e.g. to
 * retry after -EBUSY. */
int tl_nl_last_error(struct tl_nl *nl);
int tl_nl_tier_recover(struct tl_nl *nl, const char *name, uint32_t tier,
		       struct tl_err *err);
/* Unmap every extent of a tier that is not ok (lost for good), then the
 * kernel commits; *@done (optional) gets the number of extents unmapped. */
int tl_nl_tier_forget(struct tl_nl *nl, const char *name, uint32_t tier,
		      uint64_t *done, struct tl_err *err);

/* tl_nl_evacuate() @to: no preferred destination. */
#define TL_NL_NO_TIER UINT32_MAX

/*
 * Evacuate tier @tier (queue a request: tl_nl_last_move_id()), or with
 * @stop cancel that and let the tier take extents again. @to: the
 * preferred destination tier (evacuate-to; for a tier already being
 * evacuated, its request takes it), or TL_NL_NO_TIER. *@mapped (optional)
 * gets the extents mapped on the tier.
 */
int tl_nl_evacuate(struct tl_nl *nl, const char *name, uint32_t tier,
		   bool stop, uint32_t to, uint64_t *mapped, struct tl_err *err);

/* Join the "monitor" group; then poll tl_nl_fd() and call tl_nl_next_event. */
int tl_nl_monitor(struct tl_nl *nl, struct tl_err *err);
int tl_nl_fd(struct tl_nl *nl);
/* Wait up to @timeout_ms (-1: forever): TL_OK with @ev filled, or 4 on timeout. */
#define TL_NL_TIMEOUT 4
int tl_nl_next_event(struct tl_nl *nl, struct tl_nl_dev *ev, int timeout_ms,
		     struct tl_err *err);

/* ---- pure parts (unit-tested) ---- */
/* Parse a dev-get reply / notification's top-level attributes. 0 or -EINVAL. */
int tl_nl_parse_dev(struct nlattr **tb, struct tl_nl_dev *dev);
/*
 * @tb keeps one of the repeated "tiers" attributes only (nla_parse keeps the
 * last); these read every tier: from a whole genl message, or from its
 * top-level attribute stream. 0 or -EINVAL.
 */
struct nlmsghdr;
int tl_nl_parse_dev_msg(struct nlmsghdr *nlh, struct tl_nl_dev *dev);
int tl_nl_parse_dev_attrs(struct nlattr *head, int len, struct tl_nl_dev *dev);
int tl_nl_parse_policy(struct nlattr *nest, struct tl_nl_policy *pol);
int tl_nl_parse_extent(struct nlattr *nest, struct tl_nl_extent *ext);
/*
 * The dev-get reply as struct tl_status, the form tl_print_status() prints
 * (the status line's parse is the other source): io errors reported, the
 * kernel's class per tier, "unknown" for words the kernel left out.
 */
void tl_nl_dev_to_status(const struct tl_nl_dev *dev, struct tl_status *st);
/* Append DM_TIER_A_DEV_POLICY with the fields in @pol->set. 0 or -EMSGSIZE. */
int tl_nl_put_policy(struct nl_msg *msg, const struct tl_nl_policy *pol);

#endif /* DM_TIER_TL_NL_H */
