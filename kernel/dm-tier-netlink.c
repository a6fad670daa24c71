// SPDX-License-Identifier: GPL-2.0
/*
 * dm-tier-netlink.c - the "dm-tier" generic netlink family: device and
 * policy queries, policy changes, migrate/pin/unpin requests (moves are
 * queued; move-cancel cancels one), the heat map
 * (extent-dump), tier recovery and forgetting (a tier lost for good), and
 * monitor notifications.
 *
 * The contract is tools/netlink/dm-tier.yaml (include/uapi/linux/dm-tier.h
 * is generated from it). Every operation looks its device up by dm name
 * under tier_pools_mutex and acts while holding it, so the pool cannot go
 * away meanwhile; it calls the same functions as the dm messages. What may
 * wait on a tier's I/O (tier-recover's probe, tier-forget, evacuate's
 * flag) runs with the pool pinned (tier_pool_pin()) and the mutex dropped.
 * The family has parallel_ops: genl_mutex is not held.
 * Notifications are recorded as pending bits by tier_event() in any
 * context and sent here from process context (pool->ev_work).
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <net/genetlink.h>

#include "dm-tier-netlink.h"
#include "dm-tier-target.h"
#include "dm-tier-memtier.h"
#include "dm-tier-migrate.h"
#include "dm-tier-pool.h"
#include "dm-tier-metadata.h"
#include "compat.h"
#include "core/units.h"

#define TIER_NL_DUMP_EXTENTS 256 /* extents per extent-dump message */
#define TIER_NL_DUMP_SCAN 65536 /* map words per extent-dump callback */
/* TIER_MOVQ_MAX, spelled out for the extack (checked below). */
#define TIER_NL_MSG_BUSY \
	"the move queue is full (32 requests): wait for a migration-done event or cancel a request"
static_assert(TIER_MOVQ_MAX == 32);
#define TIER_NL_MSG_NO_MOVE \
	"no queued move request has that id (it ended already?)"
/* dev-get and dev-ntf: room for the move queue too. */
#define TIER_NL_DEV_MSG_SIZE (NLMSG_GOODSIZE + TIER_MOVQ_MAX * 128)

static struct genl_family tier_nl_family __ro_after_init;
static bool tier_nl_ready; /* registered: events may be sent */

/* ---- attribute policies ------------------------------------------------ */

/* Not const: 6.1's nla_policy points at a mutable range. */

static struct netlink_range_validation tier_nl_demote_age_range = {
	.max = TIER_DEMOTE_AGE_MAX,
};

static struct netlink_range_validation tier_nl_deadline_range = {
	.max = TIER_DRAIN_DEADLINE_MAX,
};

static struct netlink_range_validation tier_nl_hits_range = {
	.max = TIER_PROMOTE_HITS_MAX,
};

static struct netlink_range_validation tier_nl_window_range = {
	.min = 1,
	.max = TIER_PROMOTE_WINDOW_MAX,
};

static struct netlink_range_validation tier_nl_bandwidth_range = {
	.max = TIER_MIG_BANDWIDTH_MAX,
};

static struct netlink_range_validation tier_nl_mem_hits_range = {
	.min = 1,
	.max = TIER_MEM_PROMOTE_HITS_MAX,
};

static struct netlink_range_validation tier_nl_mem_size_range = {
	.min = 1,
	.max = TIER_MEM_SIZE_MB_MAX,
};

/* The table's ranges (kernel/core/table.c); the table check runs too. */
static const struct nla_policy tier_nl_policy_nest[DM_TIER_A_POLICY_MAX + 1] = {
	[DM_TIER_A_POLICY_AUTO_MIGRATE] = NLA_POLICY_MAX(NLA_U32, 1),
	[DM_TIER_A_POLICY_HIGH_WATERMARK] = NLA_POLICY_RANGE(NLA_U32, 1, 100),
	[DM_TIER_A_POLICY_LOW_WATERMARK] = NLA_POLICY_MAX(NLA_U32, 99),
	[DM_TIER_A_POLICY_DEMOTE_AGE] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &tier_nl_demote_age_range),
	[DM_TIER_A_POLICY_DRAIN_DEADLINE] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &tier_nl_deadline_range),
	[DM_TIER_A_POLICY_PROMOTE_HITS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &tier_nl_hits_range),
	[DM_TIER_A_POLICY_PROMOTE_WINDOW] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &tier_nl_window_range),
	[DM_TIER_A_POLICY_MIGRATION_BANDWIDTH] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &tier_nl_bandwidth_range),
	[DM_TIER_A_POLICY_MIGRATION_INFLIGHT] =
		NLA_POLICY_RANGE(NLA_U32, 1, TIER_MIG_INFLIGHT_MAX),
	[DM_TIER_A_POLICY_REDIRECT_WRITES] = NLA_POLICY_MAX(NLA_U32, 1),
	[DM_TIER_A_POLICY_MEM_PROMOTE_HITS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &tier_nl_mem_hits_range),
	[DM_TIER_A_POLICY_MEM_SIZE_MB] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &tier_nl_mem_size_range),
	/* Range checked by the table, whose extack names the bound. */
	[DM_TIER_A_POLICY_OFFLINE_QUEUE_S] = { .type = NLA_U32 },
};

/* Table keys of the policy attributes, in attribute order. */
static const char *const tier_nl_policy_keys[DM_TIER_A_POLICY_MAX + 1] = {
	[DM_TIER_A_POLICY_AUTO_MIGRATE] = "auto_migrate",
	[DM_TIER_A_POLICY_HIGH_WATERMARK] = "high_watermark",
	[DM_TIER_A_POLICY_LOW_WATERMARK] = "low_watermark",
	[DM_TIER_A_POLICY_DEMOTE_AGE] = "demote_age",
	[DM_TIER_A_POLICY_DRAIN_DEADLINE] = "drain_deadline",
	[DM_TIER_A_POLICY_PROMOTE_HITS] = "promote_hits",
	[DM_TIER_A_POLICY_PROMOTE_WINDOW] = "promote_window",
	[DM_TIER_A_POLICY_MIGRATION_BANDWIDTH] = "migration_bandwidth",
	[DM_TIER_A_POLICY_MIGRATION_INFLIGHT] = "migration_inflight",
	[DM_TIER_A_POLICY_REDIRECT_WRITES] = "redirect_writes",
	[DM_TIER_A_POLICY_MEM_PROMOTE_HITS] = "mem_promote_hits",
	[DM_TIER_A_POLICY_MEM_SIZE_MB] = "mem_size_mb",
	[DM_TIER_A_POLICY_OFFLINE_QUEUE_S] = "offline_queue_s",
};

#define TIER_NL_NAME_POLICY                              \
	[DM_TIER_A_DEV_NAME] = { .type = NLA_NUL_STRING, \
				 .len = DM_NAME_LEN - 1 }

/* dev-get, policy-get */
static const struct nla_policy tier_nl_name_policy[DM_TIER_A_DEV_NAME + 1] = {
	TIER_NL_NAME_POLICY,
};

static const struct nla_policy tier_nl_set_policy[DM_TIER_A_DEV_POLICY + 1] = {
	TIER_NL_NAME_POLICY,
	[DM_TIER_A_DEV_POLICY] = NLA_POLICY_NESTED(tier_nl_policy_nest),
};

/* migrate, pin */
static const struct nla_policy tier_nl_move_policy[DM_TIER_A_DEV_TARGET_TIER +
						   1] = {
	TIER_NL_NAME_POLICY,
	[DM_TIER_A_DEV_RANGE_START] = { .type = NLA_U64 },
	[DM_TIER_A_DEV_RANGE_LEN] = { .type = NLA_U64 },
	/* TIER_MAX_TIERS: the memory tier of a device with 8 tiers */
	[DM_TIER_A_DEV_TARGET_TIER] = NLA_POLICY_MAX(NLA_U32, TIER_MAX_TIERS),
};

/* move-cancel */
static const struct nla_policy
	tier_nl_cancel_policy[DM_TIER_A_DEV_MOVE_ID + 1] = {
		TIER_NL_NAME_POLICY,
		[DM_TIER_A_DEV_MOVE_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	};

/* evacuate */
static const struct nla_policy
	tier_nl_evacuate_policy[DM_TIER_A_DEV_EVACUATE_TO + 1] = {
		TIER_NL_NAME_POLICY,
		[DM_TIER_A_DEV_TARGET_TIER] =
			NLA_POLICY_MAX(NLA_U32, TIER_MAX_TIERS - 1),
		[DM_TIER_A_DEV_EVACUATE_STOP] = { .type = NLA_FLAG },
		[DM_TIER_A_DEV_EVACUATE_TO] =
			NLA_POLICY_MAX(NLA_U32, TIER_MAX_TIERS - 1),
	};

/* unpin, extent-dump */
static const struct nla_policy
	tier_nl_range_policy[DM_TIER_A_DEV_RANGE_LEN + 1] = {
		TIER_NL_NAME_POLICY,
		[DM_TIER_A_DEV_RANGE_START] = { .type = NLA_U64 },
		[DM_TIER_A_DEV_RANGE_LEN] = { .type = NLA_U64 },
	};

static const struct nla_policy
	tier_nl_recover_policy[DM_TIER_A_DEV_TARGET_TIER + 1] = {
		TIER_NL_NAME_POLICY,
		[DM_TIER_A_DEV_TARGET_TIER] =
			NLA_POLICY_MAX(NLA_U32, TIER_MAX_TIERS - 1),
	};

/* ---- messages ------------------------------------------------------------ */

static const char *tier_nl_class_name(u32 class)
{
	switch (class) {
	case TIER_CLASS_NVME:
		return "nvme";
	case TIER_CLASS_NVMF:
		return "nvmf";
	case TIER_CLASS_PMEM:
		return "pmem";
	case TIER_CLASS_MEM:
		return "mem";
	default:
		return "unknown";
	}
}

/* Events that concern one tier carry event-tier. */
static bool tier_nl_event_has_tier(u32 event)
{
	return event != DM_TIER_EVENT_DEV_NEW &&
	       event != DM_TIER_EVENT_DEV_DEL &&
	       event != DM_TIER_EVENT_MODE_CHANGE;
}

static int tier_nl_put_u64(struct sk_buff *skb, int type, u64 v, int pad)
{
	return nla_put_u64_64bit(skb, type, v, pad);
}

static int tier_nl_put_tier(struct sk_buff *skb, struct tier_pool *pool,
			    const struct tier_stats *st, u32 i)
{
	const int pad = DM_TIER_A_TIER_PAD;
	char dev[BDEVNAME_SIZE];
	struct nlattr *nest;

	nest = nla_nest_start(skb, DM_TIER_A_DEV_TIERS);
	if (!nest)
		return -EMSGSIZE;
	snprintf(dev, sizeof(dev), "%pg", pool->tier_bdev[i]);
	if (nla_put_u32(skb, DM_TIER_A_TIER_INDEX, i) ||
	    nla_put_string(skb, DM_TIER_A_TIER_DEVICE, dev) ||
	    nla_put_string(skb, DM_TIER_A_TIER_CLASS,
			   tier_nl_class_name(pool->tier_class[i])) ||
	    nla_put_string(skb, DM_TIER_A_TIER_STATE,
			   tier_health_name(st->tier[i].state)) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_CAPACITY_EXTENTS,
			    st->tier[i].total, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_USED_EXTENTS, st->tier[i].used,
			    pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_MAPPED_EXTENTS,
			    st->tier[i].mapped, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_READ_IOS, st->tier[i].reads,
			    pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_WRITE_IOS, st->tier[i].writes,
			    pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_IO_ERRORS,
			    st->tier[i].io_errors, pad) ||
	    nla_put_u32(skb, DM_TIER_A_TIER_DURABLE, 1) ||
	    nla_put_u32(skb, DM_TIER_A_TIER_EVACUATING,
			!!(st->evac & BIT(i)))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* The memory tier: a tiers nest after the durable ones, index nr_tiers. */
static int tier_nl_put_mem_tier(struct sk_buff *skb, struct tier_pool *pool,
				const struct tier_stats *st)
{
	const int pad = DM_TIER_A_TIER_PAD;
	struct nlattr *nest;
	char dev[16];

	nest = nla_nest_start(skb, DM_TIER_A_DEV_TIERS);
	if (!nest)
		return -EMSGSIZE;
	snprintf(dev, sizeof(dev), "node%u", st->mem_node);
	if (nla_put_u32(skb, DM_TIER_A_TIER_INDEX, pool->nr_tiers) ||
	    nla_put_string(skb, DM_TIER_A_TIER_DEVICE, dev) ||
	    nla_put_string(skb, DM_TIER_A_TIER_CLASS,
			   tier_nl_class_name(TIER_CLASS_MEM)) ||
	    nla_put_string(skb, DM_TIER_A_TIER_STATE, "ok") ||
	    nla_put_u32(skb, DM_TIER_A_TIER_DURABLE, 0) ||
	    nla_put_u32(skb, DM_TIER_A_TIER_NUMA_NODE, st->mem_node) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_CAPACITY_EXTENTS, st->mem_slots,
			    pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_USED_EXTENTS, st->mem_copies,
			    pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_MEM_BYTES_MAX,
			    st->mem_bytes_max, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_MEM_BYTES_USED,
			    st->mem_bytes_used, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_MEM_COPIES, st->mem_copies,
			    pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_MEM_HITS, st->mem_hits, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_MEM_MISSES, st->mem_misses,
			    pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_MEM_FILLS, st->mem_fills,
			    pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_MEM_EVICTIONS,
			    st->mem_evictions, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_TIER_MEM_INVALIDATIONS,
			    st->mem_invalidations, pad)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int tier_nl_put_migration(struct sk_buff *skb,
				 const struct tier_stats *st)
{
	const int pad = DM_TIER_A_MIGRATION_PAD;
	struct nlattr *nest;

	nest = nla_nest_start(skb, DM_TIER_A_DEV_MIGRATION);
	if (!nest)
		return -EMSGSIZE;
	if (tier_nl_put_u64(skb, DM_TIER_A_MIGRATION_PROMOTIONS, st->promotions,
			    pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_MIGRATION_DEMOTIONS, st->demotions,
			    pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_MIGRATION_BYTES_MOVED,
			    st->moved_bytes, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_MIGRATION_IN_FLIGHT,
			    st->mig_inflight, pad) ||
	    nla_put_string(skb, DM_TIER_A_MIGRATION_PACE,
			   tier_pace_name(st->pace)) ||
	    tier_nl_put_u64(skb, DM_TIER_A_MIGRATION_ABOVE_HIGH_MS,
			    st->above_high_ms, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_MIGRATION_ERRORS, st->mig_errors,
			    pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_MIGRATION_MANUAL_PENDING,
			    st->man_pending, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_MIGRATION_SWAPS, st->mig_swaps,
			    pad) ||
	    nla_put_u32(skb, DM_TIER_A_MIGRATION_MOVES_QUEUED,
			st->moves_queued)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* One moves nest per queued request, head first. */
static int tier_nl_put_moves(struct sk_buff *skb, struct tier_pool *pool)
{
	const int pad = DM_TIER_A_MOVE_PAD;
	u32 shift = pool->extent_shift + SECTOR_SHIFT;
	struct tier_move *mv;
	struct nlattr *nest;
	u32 n, i;
	int r = 0;

	mv = kmalloc_array(TIER_MOVQ_MAX, sizeof(*mv), GFP_KERNEL);
	if (!mv)
		return -ENOMEM;
	n = tier_mig_moves(pool, mv);
	for (i = 0; i < n && !r; i++) {
		const struct tier_move *m = &mv[i];

		nest = nla_nest_start(skb, DM_TIER_A_DEV_MOVES);
		if (!nest) {
			r = -EMSGSIZE;
			break;
		}
		if (nla_put_u32(skb, DM_TIER_A_MOVE_ID, m->id) ||
		    nla_put_string(skb, DM_TIER_A_MOVE_KIND,
				   tier_move_kind_name(m->kind)) ||
		    nla_put_string(skb, DM_TIER_A_MOVE_STATE,
				   tier_move_state_name(m->state)) ||
		    tier_nl_put_u64(skb, DM_TIER_A_MOVE_RANGE_START,
				    m->first << shift, pad) ||
		    tier_nl_put_u64(skb, DM_TIER_A_MOVE_RANGE_LEN,
				    (m->last - m->first + 1) << shift, pad) ||
		    nla_put_u32(skb, DM_TIER_A_MOVE_TARGET_TIER, m->tier) ||
		    tier_nl_put_u64(skb, DM_TIER_A_MOVE_DONE_EXTENTS, m->moved,
				    pad) ||
		    tier_nl_put_u64(skb, DM_TIER_A_MOVE_LEFT_EXTENTS,
				    tier_mig_move_left(pool, m), pad)) {
			nla_nest_cancel(skb, nest);
			r = -EMSGSIZE;
			break;
		}
		nla_nest_end(skb, nest);
	}
	kfree(mv);
	return r;
}

/* A migration-done notification: which request, how it ended. */
static int tier_nl_put_result(struct sk_buff *skb,
			      const struct tier_move_result *res)
{
	if (nla_put_u32(skb, DM_TIER_A_DEV_MOVE_ID, res->id) ||
	    nla_put_string(skb, DM_TIER_A_DEV_MOVE_OUTCOME,
			   tier_move_outcome_name(res->outcome)) ||
	    nla_put_u32(skb, DM_TIER_A_DEV_MOVE_ERRNO, -res->err) ||
	    nla_put_u64_64bit(skb, DM_TIER_A_DEV_DONE_EXTENTS, res->moved,
			      DM_TIER_A_DEV_PAD))
		return -EMSGSIZE;
	return 0;
}

/*
 * The dev-get layout of @pool (plus @event and, for tier events,
 * @ev_tier when @event is not 0; plus @res, the outcome of a move request,
 * for migration-done) as one message. The counters are those of the status
 * line (tier_stats_get()).
 */
static int tier_nl_fill_dev(struct sk_buff *skb, struct tier_pool *pool, u8 cmd,
			    u32 portid, u32 seq, int flags, u32 event,
			    u32 ev_tier, const struct tier_move_result *res)
{
	const int pad = DM_TIER_A_DEV_PAD;
	u64 ebytes = (u64)pool->extent_sectors << SECTOR_SHIFT;
	struct tier_stats st;
	char uuid[40];
	void *hdr;
	u32 i;

	hdr = genlmsg_put(skb, portid, seq, &tier_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	tier_stats_get(pool, &st);
	snprintf(uuid, sizeof(uuid), "%pUb", pool->uuid);
	if (nla_put_string(skb, DM_TIER_A_DEV_NAME, pool->name) ||
	    nla_put_string(skb, DM_TIER_A_DEV_UUID, uuid) ||
	    tier_nl_put_u64(skb, DM_TIER_A_DEV_SIZE_BYTES,
			    pool->virt_extents * ebytes, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_DEV_EXTENT_BYTES, ebytes, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_DEV_VIRT_EXTENTS, pool->virt_extents,
			    pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_DEV_MAPPED_EXTENTS, st.mapped,
			    pad) ||
	    nla_put_string(skb, DM_TIER_A_DEV_METADATA_MODE,
			   tier_mode_name(st.mode)) ||
	    tier_nl_put_u64(skb, DM_TIER_A_DEV_COMMITS, st.commits, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_DEV_NOSPC_ERRORS, st.nospc_errors,
			    pad) ||
	    nla_put_u32(skb, DM_TIER_A_DEV_NR_TIERS, pool->nr_tiers) ||
	    tier_nl_put_u64(skb, DM_TIER_A_DEV_OFFLINE_QUEUED,
			    st.offline_queued, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_DEV_OFFLINE_EXPIRED,
			    st.offline_expired, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_DEV_COMMIT_LAST_US,
			    st.commit_last_us, pad) ||
	    tier_nl_put_u64(skb, DM_TIER_A_DEV_COMMIT_TOTAL_US,
			    st.commit_total_us, pad))
		goto cancel;
	for (i = 0; i < pool->nr_tiers; i++)
		if (tier_nl_put_tier(skb, pool, &st, i))
			goto cancel;
	if (st.mem && tier_nl_put_mem_tier(skb, pool, &st))
		goto cancel;
	if (tier_nl_put_migration(skb, &st))
		goto cancel;
	if (tier_nl_put_moves(skb, pool))
		goto cancel;
	if (event && nla_put_u32(skb, DM_TIER_A_DEV_EVENT, event))
		goto cancel;
	if (res && tier_nl_put_result(skb, res))
		goto cancel;
	/* An outcome whose tier a tier-list change removed names none. */
	if (event && tier_nl_event_has_tier(event) &&
	    ev_tier != TIER_MOVE_NO_TIER &&
	    nla_put_u32(skb, DM_TIER_A_DEV_EVENT_TIER, ev_tier))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int tier_nl_put_policy(struct sk_buff *skb,
			      const struct tier_policy_cfg *cfg,
			      u32 mem_size_mb, u32 offline_queue_s)
{
	const u32 v[DM_TIER_A_POLICY_MAX + 1] = {
		[DM_TIER_A_POLICY_AUTO_MIGRATE] = cfg->auto_migrate,
		[DM_TIER_A_POLICY_HIGH_WATERMARK] = cfg->high_watermark,
		[DM_TIER_A_POLICY_LOW_WATERMARK] = cfg->low_watermark,
		[DM_TIER_A_POLICY_DEMOTE_AGE] = cfg->demote_age,
		[DM_TIER_A_POLICY_DRAIN_DEADLINE] = cfg->drain_deadline,
		[DM_TIER_A_POLICY_PROMOTE_HITS] = cfg->promote_hits,
		[DM_TIER_A_POLICY_PROMOTE_WINDOW] = cfg->promote_window,
		[DM_TIER_A_POLICY_MIGRATION_BANDWIDTH] =
			cfg->migration_bandwidth,
		[DM_TIER_A_POLICY_MIGRATION_INFLIGHT] = cfg->migration_inflight,
		[DM_TIER_A_POLICY_REDIRECT_WRITES] = cfg->redirect_writes,
		[DM_TIER_A_POLICY_MEM_PROMOTE_HITS] = cfg->mem_promote_hits,
		[DM_TIER_A_POLICY_MEM_SIZE_MB] = mem_size_mb,
		[DM_TIER_A_POLICY_OFFLINE_QUEUE_S] = offline_queue_s,
	};
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(skb, DM_TIER_A_DEV_POLICY);
	if (!nest)
		return -EMSGSIZE;
	for (i = 1; i <= DM_TIER_A_POLICY_MAX; i++) {
		if (nla_put_u32(skb, i, v[i])) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * An extack message that is not a literal: the table parser's messages
 * (static strings, so the pointer outlives the request).
 */
static void tier_nl_err_attr(struct netlink_ext_ack *extack,
			     const struct nlattr *attr, const char *msg)
{
	if (!extack)
		return;
	extack->_msg = msg;
	NL_SET_BAD_ATTR(extack, attr);
}

/* ---- permissions ----------------------------------------------------------- */

/*
 * Changes, and extent-dump's per-extent heat and access times (which parts
 * of which files are read when: an access-pattern side channel), need
 * CAP_SYS_ADMIN, as device-mapper's ioctls and nbd's family do; the core
 * checked CAP_NET_ADMIN (GENL_ADMIN_PERM) before. dev-get and policy-get
 * stay open: see "Netlink protocol" in docs/ARCHITECTURE.md.
 */
static int tier_nl_sys_admin(const struct sk_buff *skb,
			     struct netlink_ext_ack *extack)
{
	if (netlink_capable(skb, CAP_SYS_ADMIN))
		return 0;
	NL_SET_ERR_MSG(extack, "this operation needs CAP_SYS_ADMIN");
	return -EPERM;
}

/* ---- lookup ---------------------------------------------------------------- */

/*
 * The pool of the device named @attr now (device-mapper's name, resolved
 * at request time: a rename counts at once), or NULL with an extack. A
 * device with no live table is not found. Under tier_pools_mutex.
 */
static struct tier_pool *tier_nl_find(struct nlattr *attr,
				      struct netlink_ext_ack *extack)
{
	const char *name = nla_data(attr);
	char cur[DM_NAME_LEN];
	struct tier_pool *pool;

	lockdep_assert_held(&tier_pools_mutex);
	list_for_each_entry(pool, &tier_pools, list)
		if (!tier_pool_dm_name(pool, cur) && !strcmp(cur, name))
			return pool;
	tier_compat_err_fmt(extack, "no dm-tier device of that name",
			    "no dm-tier device %s", name);
	NL_SET_BAD_ATTR(extack, attr);
	return NULL;
}

/*
 * tier_nl_admin_pool() - the start of a change to one device: the caller
 * has CAP_SYS_ADMIN, the request names the device and carries @attr, and
 * the device is found.
 * Context: process; takes tier_pools_mutex.
 * Return: the pool, with tier_pools_mutex held (the caller unlocks), or an
 * ERR_PTR (-EPERM, -EINVAL, -ENOENT, extack set) with it not held.
 */
static struct tier_pool *tier_nl_admin_pool(struct sk_buff *skb,
					    struct genl_info *info, int attr)
{
	struct tier_pool *pool;
	int r;

	r = tier_nl_sys_admin(skb, info->extack);
	if (r)
		return ERR_PTR(r);
	if (GENL_REQ_ATTR_CHECK(info, DM_TIER_A_DEV_NAME) ||
	    GENL_REQ_ATTR_CHECK(info, attr))
		return ERR_PTR(-EINVAL);
	mutex_lock(&tier_pools_mutex);
	pool = tier_nl_find(info->attrs[DM_TIER_A_DEV_NAME], info->extack);
	if (!pool) {
		mutex_unlock(&tier_pools_mutex);
		return ERR_PTR(-ENOENT);
	}
	return pool;
}

/*
 * A reply of @cmd for @pool: the name, then what @fill adds. Under
 * tier_pools_mutex.
 */
static struct sk_buff *tier_nl_reply_start(struct genl_info *info,
					   struct tier_pool *pool, void **hdr)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);

	if (!msg)
		return NULL;
	*hdr = genlmsg_put_reply(msg, info, &tier_nl_family, 0,
				 info->genlhdr->cmd);
	if (!*hdr || nla_put_string(msg, DM_TIER_A_DEV_NAME, pool->name)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Reply name + done-extents (+ move-id when @id is not 0). */
static int tier_nl_reply_done_id(struct genl_info *info, struct tier_pool *pool,
				 u64 done, u32 id)
{
	struct sk_buff *msg;
	void *hdr;

	msg = tier_nl_reply_start(info, pool, &hdr);
	if (!msg)
		return -ENOMEM;
	if (nla_put_u64_64bit(msg, DM_TIER_A_DEV_DONE_EXTENTS, done,
			      DM_TIER_A_DEV_PAD) ||
	    (id && nla_put_u32(msg, DM_TIER_A_DEV_MOVE_ID, id))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int tier_nl_reply_done(struct genl_info *info, struct tier_pool *pool,
			      u64 done)
{
	return tier_nl_reply_done_id(info, pool, done, 0);
}

/* ---- dev-get ------------------------------------------------------------- */

static int tier_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct tier_pool *pool;
	struct sk_buff *msg;
	int r;

	if (GENL_REQ_ATTR_CHECK(info, DM_TIER_A_DEV_NAME))
		return -EINVAL;
	msg = genlmsg_new(TIER_NL_DEV_MSG_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&tier_pools_mutex);
	pool = tier_nl_find(info->attrs[DM_TIER_A_DEV_NAME], info->extack);
	if (!pool) {
		mutex_unlock(&tier_pools_mutex);
		nlmsg_free(msg);
		return -ENOENT;
	}
	r = tier_nl_fill_dev(msg, pool, DM_TIER_CMD_DEV_GET, info->snd_portid,
			     info->snd_seq, 0, 0, 0, NULL);
	mutex_unlock(&tier_pools_mutex);
	if (r) {
		nlmsg_free(msg);
		return r;
	}
	return genlmsg_reply(msg, info);
}

/*
 * Every pool, newest first; cb->args[0] is the id of the last pool sent
 * (ids decrease along the list), so pools created or removed between two
 * callbacks neither repeat nor shift the others.
 */
static int tier_nl_dev_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	u64 last = cb->args[0];
	char cur[DM_NAME_LEN];
	struct tier_pool *pool;
	int r = 0, sent = 0;

	mutex_lock(&tier_pools_mutex);
	list_for_each_entry(pool, &tier_pools, list) {
		if (last && pool->id >= last)
			continue;
		/* No live table: not a device yet (or any more). */
		if (tier_pool_dm_name(pool, cur))
			continue;
		r = tier_nl_fill_dev(skb, pool, DM_TIER_CMD_DEV_GET,
				     NETLINK_CB(cb->skb).portid,
				     cb->nlh->nlmsg_seq, NLM_F_MULTI, 0, 0,
				     NULL);
		if (r)
			break;
		cb->args[0] = pool->id;
		sent++;
	}
	mutex_unlock(&tier_pools_mutex);
	if (r && !sent)
		return r;
	return skb->len;
}

/* ---- policy-get / policy-set ------------------------------------------- */

static int tier_nl_policy_reply(struct genl_info *info, struct tier_pool *pool)
{
	struct tier_policy_cfg cfg;
	struct tier_stats st;
	struct sk_buff *msg;
	void *hdr;

	spin_lock_irq(&pool->lock);
	cfg = pool->cfg;
	spin_unlock_irq(&pool->lock);
	/* 0 without a memory tier. */
	tier_stats_get(pool, &st);
	msg = tier_nl_reply_start(info, pool, &hdr);
	if (!msg)
		return -ENOMEM;
	if (tier_nl_put_policy(msg, &cfg, st.mem_size_mb,
			       READ_ONCE(pool->offline_queue_s))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int tier_nl_policy_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct tier_pool *pool;
	int r;

	if (GENL_REQ_ATTR_CHECK(info, DM_TIER_A_DEV_NAME))
		return -EINVAL;
	mutex_lock(&tier_pools_mutex);
	pool = tier_nl_find(info->attrs[DM_TIER_A_DEV_NAME], info->extack);
	r = pool ? tier_nl_policy_reply(info, pool) : -ENOENT;
	mutex_unlock(&tier_pools_mutex);
	return r;
}

#define TIER_NL_MSG_READ_ONLY \
	"the device is activated read-only: nothing can change (activate it read-write to change it)"

/* A read-only activation refuses every request that changes something. */
static int tier_nl_check_writable(struct genl_info *info,
				  struct tier_pool *pool)
{
	if (!pool->read_only)
		return 0;
	NL_SET_ERR_MSG(info->extack, TIER_NL_MSG_READ_ONLY);
	return -EROFS;
}

/*
 * All or nothing: each attribute is range-checked as the table key of the
 * same name (tier_table_set_u32()), the result cross-checked once
 * (tier_policy_cfg_check()), then stored in the active table and applied,
 * as the "set" message does.
 */
static int tier_nl_policy_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DM_TIER_A_POLICY_MAX + 1];
	struct netlink_ext_ack *extack = info->extack;
	struct tier_pool *pool;
	const char *keys[DM_TIER_A_POLICY_MAX];
	struct tier_table t;
	const char *err;
	unsigned int n;
	u32 old_mb;
	int i, r;

	r = tier_nl_sys_admin(skb, extack);
	if (r)
		return r;
	if (GENL_REQ_ATTR_CHECK(info, DM_TIER_A_DEV_NAME) ||
	    GENL_REQ_ATTR_CHECK(info, DM_TIER_A_DEV_POLICY))
		return -EINVAL;
	r = nla_parse_nested(tb, DM_TIER_A_POLICY_MAX,
			     info->attrs[DM_TIER_A_DEV_POLICY],
			     tier_nl_policy_nest, extack);
	if (r)
		return r;
	mutex_lock(&tier_pools_mutex);
	pool = tier_nl_find(info->attrs[DM_TIER_A_DEV_NAME], extack);
	if (!pool) {
		r = -ENOENT;
		goto out;
	}
	r = tier_nl_check_writable(info, pool);
	if (r)
		goto out;
	r = tier_pool_get_table(pool, &t);
	if (r) {
		NL_SET_ERR_MSG(extack, "the device has no active table");
		goto out;
	}
	old_mb = t.mem_size_mb;
	if (tb[DM_TIER_A_POLICY_MEM_SIZE_MB] && !pool->mem) {
		NL_SET_ERR_MSG_ATTR(extack, tb[DM_TIER_A_POLICY_MEM_SIZE_MB],
				    TIER_MSG_NO_MEM);
		r = -EINVAL;
		goto out;
	}
	for (i = 1; i <= DM_TIER_A_POLICY_MAX; i++) {
		if (!tb[i])
			continue;
		err = NULL;
		r = tier_table_set_u32(&t, tier_nl_policy_keys[i],
				       nla_get_u32(tb[i]), &err);
		if (r) {
			tier_nl_err_attr(extack, tb[i],
					 err ? err : "invalid value");
			r = -EINVAL;
			goto out;
		}
	}
	err = NULL;
	if (tier_policy_cfg_check(&t.policy, &err)) {
		tier_nl_err_attr(extack, info->attrs[DM_TIER_A_DEV_POLICY],
				 err ? err : "inconsistent settings");
		r = -EINVAL;
		goto out;
	}
	/* Last, as it allocates or frees: when it fails nothing changed. */
	if (t.mem_size_mb != old_mb) {
		err = NULL;
		r = tier_memtier_resize(pool, t.mem_size_mb, &err);
		if (r) {
			if (!err)
				err = "cannot resize the memory tier";
			tier_nl_err_attr(extack,
					 tb[DM_TIER_A_POLICY_MEM_SIZE_MB], err);
			goto out;
		}
	}
	r = tier_pool_set_table(pool, &t);
	if (r) {
		NL_SET_ERR_MSG(extack, "the device has no active table");
		goto out;
	}
	/* Persisted by the next commit (not mem_size_mb). */
	for (i = 1, n = 0; i <= DM_TIER_A_POLICY_MAX; i++)
		if (tb[i])
			keys[n++] = tier_nl_policy_keys[i];
	tier_pool_persist(pool, keys, n);
	r = tier_nl_policy_reply(info, pool);
out:
	mutex_unlock(&tier_pools_mutex);
	return r;
}

/* ---- migrate / pin / unpin -------------------------------------------- */

/* The extents of the request's byte range. Under tier_pools_mutex. */
static int tier_nl_range(struct genl_info *info, struct tier_pool *pool,
			 u64 *first, u64 *last)
{
	struct nlattr **a = info->attrs;
	int r;

	r = tier_bytes_to_extents(nla_get_u64(a[DM_TIER_A_DEV_RANGE_START]),
				  nla_get_u64(a[DM_TIER_A_DEV_RANGE_LEN]),
				  pool->extent_shift + SECTOR_SHIFT,
				  pool->virt_extents, first, last);
	if (r == -EINVAL)
		NL_SET_ERR_MSG_ATTR(info->extack, a[DM_TIER_A_DEV_RANGE_LEN],
				    "range-len must not be 0");
	else if (r)
		NL_SET_ERR_MSG_ATTR(info->extack, a[DM_TIER_A_DEV_RANGE_START],
				    "the range is not within the device");
	return r;
}

/* The tier the request names: one the device has. */
static int tier_nl_tier_index(struct genl_info *info, struct tier_pool *pool,
			      u32 *tier)
{
	struct nlattr *attr = info->attrs[DM_TIER_A_DEV_TARGET_TIER];

	*tier = nla_get_u32(attr);
	if (*tier >= pool->nr_tiers) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "the device has no such tier");
		return -EINVAL;
	}
	return 0;
}

/* The tier a move goes to: one the device has, not evacuated or forgotten. */
static int tier_nl_target_tier(struct genl_info *info, struct tier_pool *pool,
			       u32 *tier)
{
	struct nlattr *attr = info->attrs[DM_TIER_A_DEV_TARGET_TIER];
	int r = tier_nl_tier_index(info, pool, tier);

	if (r)
		return r;
	if (READ_ONCE(pool->evac) & BIT(*tier)) {
		/* Like a full tier: no room for new extents there. */
		NL_SET_ERR_MSG_ATTR(info->extack, attr, TIER_MSG_EVACUATING);
		return -ENOSPC;
	}
	if (test_bit(*tier, &pool->forgotten)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, TIER_MSG_FORGOTTEN);
		return -ENOSPC;
	}
	return 0;
}

static int tier_nl_check_rw(struct genl_info *info, struct tier_pool *pool)
{
	int r = tier_nl_check_writable(info, pool);

	if (r)
		return r;
	if (READ_ONCE(pool->mode) == TIER_MODE_WRITE)
		return 0;
	NL_SET_ERR_MSG(info->extack,
		       "metadata is not read-write: nothing can change");
	return -EROFS;
}

static int tier_nl_request(struct genl_info *info, struct tier_pool *pool,
			   u32 kind, u64 first, u64 last, u32 tier, u32 *id)
{
	int r = tier_mig_request(pool, kind, first, last, tier, id);

	if (r == -EBUSY)
		NL_SET_ERR_MSG(info->extack, TIER_NL_MSG_BUSY);
	else if (r == -ENOSPC)
		NL_SET_ERR_MSG(info->extack, TIER_MSG_REMOVING);
	return r;
}

/* migrate, pin (@pin) and unpin (@unpin): one body, three operations. */
static int tier_nl_move(struct genl_info *info, bool pin, bool unpin)
{
	/*
	 * unpin's policy ends before TARGET_TIER, and info->attrs has only
	 * maxattr + 1 slots: reading that slot was out of bounds (KASAN).
	 */
	struct nlattr *tattr = unpin ? NULL :
				       info->attrs[DM_TIER_A_DEV_TARGET_TIER];
	bool move = tattr;
	struct tier_pool *pool;
	u64 first, last, done, mapped;
	bool mem = false;
	u32 tier = 0, id = 0;
	int r;

	if (GENL_REQ_ATTR_CHECK(info, DM_TIER_A_DEV_NAME) ||
	    GENL_REQ_ATTR_CHECK(info, DM_TIER_A_DEV_RANGE_START) ||
	    GENL_REQ_ATTR_CHECK(info, DM_TIER_A_DEV_RANGE_LEN))
		return -EINVAL;
	if (!pin && !unpin &&
	    GENL_REQ_ATTR_CHECK(info, DM_TIER_A_DEV_TARGET_TIER))
		return -EINVAL;
	mutex_lock(&tier_pools_mutex);
	pool = tier_nl_find(info->attrs[DM_TIER_A_DEV_NAME], info->extack);
	if (!pool) {
		r = -ENOENT;
		goto out;
	}
	r = tier_nl_range(info, pool, &first, &last);
	if (!r && move && pool->mem && nla_get_u32(tattr) == pool->nr_tiers) {
		/* The memory tier: pin means "keep a copy resident". */
		mem = true;
		if (!pin) {
			NL_SET_ERR_MSG_ATTR(info->extack, tattr,
					    TIER_MSG_MEM_MIGRATE);
			r = -EINVAL;
		}
	} else if (!r && move) {
		r = tier_nl_target_tier(info, pool, &tier);
	}
	if (!r)
		r = tier_nl_check_rw(info, pool);
	if (!r && mem) {
		const char *err = NULL;

		r = tier_memtier_pin(pool, first, last, true, &done, &err);
		if (r) {
			tier_nl_err_attr(info->extack, tattr,
					 err ? err : "cannot pin to memory");
			goto out;
		}
		r = tier_nl_reply_done(info, pool, done);
		goto out;
	}
	/* The move first: a refused request leaves the pins unchanged. */
	if (!r && move)
		r = tier_nl_request(info, pool,
				    pin ? TIER_MOVE_PIN : TIER_MOVE_MIGRATE,
				    first, last, tier, &id);
	if (r)
		goto out;
	done = last - first + 1;
	if (pin) {
		if (tier_set_pinned(pool, first, last, true, &mapped))
			tier_request_commit(pool);
		done = mapped;
	} else if (unpin) {
		/* Both pins: to a tier and to memory. */
		if (tier_set_ext_flags(pool, first, last, 0,
				       TIER_EXT_F_PINNED | TIER_EXT_F_MEMRES,
				       &mapped))
			tier_request_commit(pool);
		tier_memtier_unpin(pool, first, last);
	}
	r = tier_nl_reply_done_id(info, pool, done, id);
out:
	mutex_unlock(&tier_pools_mutex);
	return r;
}

static int tier_nl_migrate_doit(struct sk_buff *skb, struct genl_info *info)
{
	int r = tier_nl_sys_admin(skb, info->extack);

	return r ?: tier_nl_move(info, false, false);
}

static int tier_nl_pin_doit(struct sk_buff *skb, struct genl_info *info)
{
	int r = tier_nl_sys_admin(skb, info->extack);

	return r ?: tier_nl_move(info, true, false);
}

static int tier_nl_unpin_doit(struct sk_buff *skb, struct genl_info *info)
{
	int r = tier_nl_sys_admin(skb, info->extack);

	return r ?: tier_nl_move(info, false, true);
}

/* ---- move-cancel --------------------------------------------------------- */

static int tier_nl_move_cancel_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct tier_pool *pool;
	struct sk_buff *msg;
	void *hdr;
	u32 id;
	int r;

	pool = tier_nl_admin_pool(skb, info, DM_TIER_A_DEV_MOVE_ID);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	id = nla_get_u32(info->attrs[DM_TIER_A_DEV_MOVE_ID]);
	r = tier_mig_cancel(pool, id);
	if (r) {
		struct nlattr *bad = info->attrs[DM_TIER_A_DEV_MOVE_ID];

		NL_SET_ERR_MSG_ATTR(info->extack, bad, TIER_NL_MSG_NO_MOVE);
		goto out;
	}
	msg = tier_nl_reply_start(info, pool, &hdr);
	if (!msg) {
		r = -ENOMEM;
		goto out;
	}
	if (nla_put_u32(msg, DM_TIER_A_DEV_MOVE_ID, id)) {
		nlmsg_free(msg);
		r = -EMSGSIZE;
		goto out;
	}
	genlmsg_end(msg, hdr);
	r = genlmsg_reply(msg, info);
out:
	mutex_unlock(&tier_pools_mutex);
	return r;
}

/* ---- tier-recover -------------------------------------------------------- */

/*
 * The probe flush waits as long as the tier's path hangs (a suspended dm
 * device, an NVMe-oF controller reconnecting): it runs with the pool
 * pinned and tier_pools_mutex dropped, or every table load, resume and
 * removal of every dm-tier device, and every request of this family,
 * waited behind it, the re-bind that would bring the tier back included.
 */
static int tier_nl_tier_recover_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	const char *err = NULL;
	struct tier_pool *pool;
	dev_t dev;
	u32 tier;
	int r;

	pool = tier_nl_admin_pool(skb, info, DM_TIER_A_DEV_TARGET_TIER);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	/*
	 * Any tier, one being evacuated too: an outage during an evacuation
	 * must not keep it offline (its extents unreadable, the evacuation
	 * stalled) until the evacuation is stopped.
	 */
	r = tier_nl_tier_index(info, pool, &tier);
	if (r) {
		mutex_unlock(&tier_pools_mutex);
		return r;
	}
	/* Checked again under md_lock: a reload may renumber meanwhile. */
	dev = pool->tier_dev_id[tier];
	tier_pool_pin(pool);
	mutex_unlock(&tier_pools_mutex);

	r = tier_tier_recover(pool, tier, dev, tier_mig_tier_recovered, &err);
	if (r)
		tier_nl_err_attr(info->extack, NULL, err);
	else
		tier_request_commit(pool);

	mutex_lock(&tier_pools_mutex);
	tier_pool_unpin(pool);
	mutex_unlock(&tier_pools_mutex);
	return r;
}

/* ---- tier-forget --------------------------------------------------------- */

/*
 * The walk takes md_lock per batch and then waits for a commit: either may
 * wait on a hung tier, so it runs pinned, without tier_pools_mutex, as the
 * probe of tier-recover; tier_forget_tier() checks the tier list itself.
 */
static int tier_nl_tier_forget_doit(struct sk_buff *skb, struct genl_info *info)
{
	const char *err = NULL;
	struct tier_pool *pool;
	u64 done = 0;
	u32 tier;
	int r;

	pool = tier_nl_admin_pool(skb, info, DM_TIER_A_DEV_TARGET_TIER);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	tier = nla_get_u32(info->attrs[DM_TIER_A_DEV_TARGET_TIER]);
	tier_pool_pin(pool);
	mutex_unlock(&tier_pools_mutex);

	r = tier_forget_tier(pool, tier, &done, &err);

	mutex_lock(&tier_pools_mutex);
	if (r) {
		struct nlattr *bad = info->attrs[DM_TIER_A_DEV_TARGET_TIER];

		/* The tier is the bad attribute when it was refused. */
		tier_nl_err_attr(info->extack, r == -EINVAL ? bad : NULL, err);
	} else {
		r = tier_nl_reply_done(info, pool, done);
	}
	tier_pool_unpin(pool); /* last: the pool may go at once */
	mutex_unlock(&tier_pools_mutex);
	return r;
}

/* ---- evacuate ------------------------------------------------------------ */

static int tier_nl_evacuate_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tattr = info->attrs[DM_TIER_A_DEV_TARGET_TIER];
	struct nlattr *toattr = info->attrs[DM_TIER_A_DEV_EVACUATE_TO];
	bool stop = nla_get_flag(info->attrs[DM_TIER_A_DEV_EVACUATE_STOP]);
	u32 pref = toattr ? nla_get_u32(toattr) : TIER_MOVE_NO_PREF;
	struct nlattr *bad = tattr;
	const char *err = NULL;
	struct tier_pool *pool;
	u64 mapped, missing;
	u32 id;
	int r;

	pool = tier_nl_admin_pool(skb, info, DM_TIER_A_DEV_TARGET_TIER);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	r = tier_nl_check_writable(info, pool);
	if (r)
		goto out;
	r = tier_evacuate(pool, nla_get_u32(tattr), stop, pref, &id, &mapped,
			  &missing, &err);
	if (r) {
		/*
		 * EINVAL names the attribute at fault: the destination when
		 * the message is about it ("(to)"), else the tier.
		 */
		if (toattr && err && strstr(err, "(to)"))
			bad = toattr;
		tier_nl_err_attr(info->extack, r == -EINVAL ? bad : NULL, err);
		goto out;
	}
	/*
	 * The flag waits for md_lock, behind a commit that may wait on a
	 * hung tier: pinned, without tier_pools_mutex. It records the
	 * evacuation state of the moment, whatever ran in between.
	 */
	tier_pool_pin(pool);
	mutex_unlock(&tier_pools_mutex);
	tier_evacuate_persist(pool);
	mutex_lock(&tier_pools_mutex);
	r = tier_nl_reply_done_id(info, pool, mapped, id);
	tier_pool_unpin(pool); /* last: the pool may go at once */
out:
	mutex_unlock(&tier_pools_mutex);
	return r;
}

/* ---- extent-dump ------------------------------------------------------- */

/* cb->args of an extent dump. */
enum {
	TIER_NL_DUMP_POOL, /* id of the pool; 0 before the first call */
	TIER_NL_DUMP_NEXT, /* next extent to look at */
	TIER_NL_DUMP_LAST, /* last extent of the range */
};

/* First call: check the request, fix the range. Under tier_pools_mutex. */
static int tier_nl_dump_begin(struct netlink_callback *cb,
			      struct tier_pool *pool, struct nlattr **a)
{
	u64 start = 0, len, first, last;
	int r;

	if (a[DM_TIER_A_DEV_RANGE_START])
		start = nla_get_u64(a[DM_TIER_A_DEV_RANGE_START]);
	if (a[DM_TIER_A_DEV_RANGE_LEN]) {
		len = nla_get_u64(a[DM_TIER_A_DEV_RANGE_LEN]);
	} else {
		u64 size = pool->virt_extents
			   << (pool->extent_shift + SECTOR_SHIFT);

		len = start < size ? size - start : 1;
	}
	r = tier_bytes_to_extents(start, len, pool->extent_shift + SECTOR_SHIFT,
				  pool->virt_extents, &first, &last);
	if (r == -EINVAL) {
		NL_SET_ERR_MSG_ATTR(cb->extack, a[DM_TIER_A_DEV_RANGE_LEN],
				    "range-len must not be 0");
		return r;
	}
	if (r) {
		NL_SET_ERR_MSG(cb->extack,
			       "the range is not within the device");
		return r;
	}
	cb->args[TIER_NL_DUMP_POOL] = pool->id;
	cb->args[TIER_NL_DUMP_NEXT] = first;
	cb->args[TIER_NL_DUMP_LAST] = last;
	return 0;
}

/* One extents nest; lockless reads of the map word, heat and atime. */
static int tier_nl_put_extent(struct sk_buff *skb, struct tier_pool *pool,
			      u64 v, u64 word, const struct tier_loc *loc)
{
	struct nlattr *nest = nla_nest_start(skb, DM_TIER_A_DEV_EXTENTS);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, DM_TIER_A_EXTENT_INDEX, v,
			      DM_TIER_A_EXTENT_PAD) ||
	    nla_put_u32(skb, DM_TIER_A_EXTENT_TIER, loc->tier) ||
	    nla_put_u32(skb, DM_TIER_A_EXTENT_HEAT, tier_mw_heat(word)) ||
	    nla_put_u32(skb, DM_TIER_A_EXTENT_ATIME,
			tier_mw_atime(word, tier_clock_now(pool))) ||
	    ((loc->flags & TIER_EXT_F_PINNED) &&
	     nla_put_flag(skb, DM_TIER_A_EXTENT_PINNED)) ||
	    ((word & TIER_MW_BUSY) &&
	     nla_put_flag(skb, DM_TIER_A_EXTENT_BUSY))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Refused before the dump starts: the caller gets an error, not a DONE. */
static int tier_nl_extent_dump_start(struct netlink_callback *cb)
{
	return tier_nl_sys_admin(cb->skb, cb->extack);
}

/*
 * One message per call: up to TIER_NL_DUMP_EXTENTS mapped extents (fewer
 * when the skb fills), looking at no more than TIER_NL_DUMP_SCAN map words,
 * so each call is bounded; the next call resumes at cb->args.
 */
static int tier_nl_extent_dump_dumpit(struct sk_buff *skb,
				      struct netlink_callback *cb)
{
	struct nlattr **a = tier_compat_dump_attrs(cb);
	u64 v, last, scanned = 0;
	struct tier_pool *pool;
	unsigned int sent = 0;
	struct tier_loc loc;
	void *hdr;
	int r = 0;

	if (!a[DM_TIER_A_DEV_NAME]) {
		NL_SET_ERR_MSG(cb->extack, "missing attribute: name");
		return -EINVAL;
	}
	mutex_lock(&tier_pools_mutex);
	pool = tier_nl_find(a[DM_TIER_A_DEV_NAME], cb->extack);
	if (!pool) {
		r = -ENOENT;
		goto out;
	}
	if (!cb->args[TIER_NL_DUMP_POOL]) {
		r = tier_nl_dump_begin(cb, pool, a);
		if (r)
			goto out;
	} else if (cb->args[TIER_NL_DUMP_POOL] != pool->id) {
		NL_SET_ERR_MSG(cb->extack, "the device was replaced");
		r = -ENODEV;
		goto out;
	}
	v = cb->args[TIER_NL_DUMP_NEXT];
	last = cb->args[TIER_NL_DUMP_LAST];
	/* Done (r = 0 ends the dump); the device may have shrunk since. */
	if (v > last || v >= pool->virt_extents)
		goto out;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &tier_nl_family, NLM_F_MULTI,
			  DM_TIER_CMD_EXTENT_DUMP);
	if (!hdr || nla_put_string(skb, DM_TIER_A_DEV_NAME, pool->name)) {
		if (hdr)
			genlmsg_cancel(skb, hdr);
		r = -EMSGSIZE;
		goto out;
	}
	while (v <= last && v < pool->virt_extents &&
	       sent < TIER_NL_DUMP_EXTENTS && scanned++ < TIER_NL_DUMP_SCAN) {
		u64 word = READ_ONCE(pool->map.words[v]);

		if (tier_mw_decode(word, &loc)) {
			/* skb full: this extent goes in the next message */
			if (tier_nl_put_extent(skb, pool, v, word, &loc))
				break;
			sent++;
		}
		v++;
	}
	cb->args[TIER_NL_DUMP_NEXT] = v;
	genlmsg_end(skb, hdr);
	r = skb->len;
out:
	mutex_unlock(&tier_pools_mutex);
	cond_resched();
	return r;
}

/* ---- notifications ------------------------------------------------------ */

/* One dev-ntf of @pool. Under tier_pools_mutex. */
static void tier_nl_send_one(struct tier_pool *pool, u32 event, u32 ev_tier,
			     const struct tier_move_result *res)
{
	struct sk_buff *msg = genlmsg_new(TIER_NL_DEV_MSG_SIZE, GFP_KERNEL);

	if (!msg)
		return;
	if (tier_nl_fill_dev(msg, pool, DM_TIER_CMD_DEV_NTF, 0, 0, 0, event,
			     ev_tier, res)) {
		nlmsg_free(msg);
		return;
	}
	/* No listener left is not an error. */
	genlmsg_multicast(&tier_nl_family, msg, 0, 0, GFP_KERNEL);
}

/*
 * Both events of a pair pending for one tier (tier-error and
 * tier-recovered, watermark-high and watermark-low), @event the pair's
 * first in event order: each was raised at a change of the tier's state,
 * and the one that matches its state now was raised last. Return the
 * partner when it is to go out first (@event matches the state now), so
 * that a listener that keeps the last one it heard has the state; else 0.
 */
static u32 tier_nl_pair_first(struct tier_pool *pool, const unsigned long *ev,
			      u32 event, u32 tier)
{
	u32 other;

	if (event == DM_TIER_EVENT_TIER_ERROR)
		other = DM_TIER_EVENT_TIER_RECOVERED;
	else if (event == DM_TIER_EVENT_WATERMARK_HIGH)
		other = DM_TIER_EVENT_WATERMARK_LOW;
	else
		return 0;
	if (!test_bit(other * TIER_MAX_TIERS + tier, ev))
		return 0;
	if (event == DM_TIER_EVENT_TIER_ERROR)
		return tier < pool->nr_tiers && !tier_tier_ok(pool, tier) ?
			       other :
			       0;
	return tier_mig_draining(pool, tier) ? other : 0;
}

/*
 * Send the pending events of @pool, oldest kind first, but the pairs of
 * tier_nl_pair_first(). migration-done is one notification per ended move
 * request (its outcome from the migration engine's result ring), never a
 * coalesced bit.
 */
static void tier_nl_send_pending(struct tier_pool *pool)
{
	DECLARE_BITMAP(ev, TIER_EV_BITS);
	struct tier_move_result res;
	char name[DM_NAME_LEN];
	bool listen, results = false;
	unsigned int bit;
	u32 event, tier, first;

	listen = READ_ONCE(tier_nl_ready) &&
		 genl_has_listeners(&tier_nl_family, &init_net, 0);
	if (!listen) {
		/* Nobody hears them: outcomes do not pile up either. */
		tier_events_take(pool, ev);
		while (tier_mig_pop_result(pool, &res))
			;
		return;
	}
	/*
	 * Taken under the mutex a tier-list change holds while it renumbers
	 * them (tier_pool_events_renumber()): each names its tier in the list
	 * it is sent with.
	 */
	mutex_lock(&tier_pools_mutex);
	tier_events_take(pool, ev);
	/* The name now; dev-del (no live table) keeps the last one seen. */
	tier_pool_dm_name(pool, name);
	for_each_set_bit(bit, ev, TIER_EV_BITS) {
		event = bit / TIER_MAX_TIERS;
		tier = bit % TIER_MAX_TIERS;
		if (event != DM_TIER_EVENT_MIGRATION_DONE) {
			first = tier_nl_pair_first(pool, ev, event, tier);
			if (first) {
				/* A later bit: the loop no longer meets it. */
				__clear_bit(first * TIER_MAX_TIERS + tier, ev);
				tier_nl_send_one(pool, first, tier, NULL);
			}
			tier_nl_send_one(pool, event, tier, NULL);
			continue;
		}
		if (results)
			continue;
		results = true;
		while (tier_mig_pop_result(pool, &res))
			tier_nl_send_one(pool, event, res.tier, &res);
	}
	mutex_unlock(&tier_pools_mutex);
}

/*
 * The pool's events are closed (tier_pool_events_close()): what was
 * pending, then dev-del, last. Set with the others, dev-del (event 2) went
 * out before every event but dev-new, which followed the device's end.
 */
static void tier_nl_pool_gone(struct tier_pool *pool)
{
	tier_nl_send_pending(pool);
	if (!pool->announced)
		return;
	set_bit(DM_TIER_EVENT_DEV_DEL * TIER_MAX_TIERS, pool->ev_pending);
	tier_nl_send_pending(pool);
}

static const struct tier_event_ops tier_nl_event_ops = {
	.send = tier_nl_send_pending,
	.gone = tier_nl_pool_gone,
};

/* ---- family ------------------------------------------------------------ */

static const struct genl_ops tier_nl_ops[] = {
	{
		.cmd = DM_TIER_CMD_DEV_GET,
		.doit = tier_nl_dev_get_doit,
		.dumpit = tier_nl_dev_get_dumpit,
		.policy = tier_nl_name_policy,
		.maxattr = ARRAY_SIZE(tier_nl_name_policy) - 1,
	},
	{
		.cmd = DM_TIER_CMD_POLICY_GET,
		.doit = tier_nl_policy_get_doit,
		.policy = tier_nl_name_policy,
		.maxattr = ARRAY_SIZE(tier_nl_name_policy) - 1,
	},
	{
		.cmd = DM_TIER_CMD_POLICY_SET,
		.flags = GENL_ADMIN_PERM,
		.doit = tier_nl_policy_set_doit,
		.policy = tier_nl_set_policy,
		.maxattr = ARRAY_SIZE(tier_nl_set_policy) - 1,
	},
	{
		.cmd = DM_TIER_CMD_MIGRATE,
		.flags = GENL_ADMIN_PERM,
		.doit = tier_nl_migrate_doit,
		.policy = tier_nl_move_policy,
		.maxattr = ARRAY_SIZE(tier_nl_move_policy) - 1,
	},
	{
		.cmd = DM_TIER_CMD_PIN,
		.flags = GENL_ADMIN_PERM,
		.doit = tier_nl_pin_doit,
		.policy = tier_nl_move_policy,
		.maxattr = ARRAY_SIZE(tier_nl_move_policy) - 1,
	},
	{
		.cmd = DM_TIER_CMD_UNPIN,
		.flags = GENL_ADMIN_PERM,
		.doit = tier_nl_unpin_doit,
		.policy = tier_nl_range_policy,
		.maxattr = ARRAY_SIZE(tier_nl_range_policy) - 1,
	},
	{
		.cmd = DM_TIER_CMD_EXTENT_DUMP,
		.flags = GENL_ADMIN_PERM,
		.start = tier_nl_extent_dump_start,
		.dumpit = tier_nl_extent_dump_dumpit,
		.policy = tier_nl_range_policy,
		.maxattr = ARRAY_SIZE(tier_nl_range_policy) - 1,
	},
	{
		.cmd = DM_TIER_CMD_TIER_RECOVER,
		.flags = GENL_ADMIN_PERM,
		.doit = tier_nl_tier_recover_doit,
		.policy = tier_nl_recover_policy,
		.maxattr = ARRAY_SIZE(tier_nl_recover_policy) - 1,
	},
	{
		.cmd = DM_TIER_CMD_TIER_FORGET,
		.flags = GENL_ADMIN_PERM,
		.doit = tier_nl_tier_forget_doit,
		.policy = tier_nl_recover_policy,
		.maxattr = ARRAY_SIZE(tier_nl_recover_policy) - 1,
	},
	{
		.cmd = DM_TIER_CMD_MOVE_CANCEL,
		.flags = GENL_ADMIN_PERM,
		.doit = tier_nl_move_cancel_doit,
		.policy = tier_nl_cancel_policy,
		.maxattr = ARRAY_SIZE(tier_nl_cancel_policy) - 1,
	},
	{
		.cmd = DM_TIER_CMD_EVACUATE,
		.flags = GENL_ADMIN_PERM,
		.doit = tier_nl_evacuate_doit,
		.policy = tier_nl_evacuate_policy,
		.maxattr = ARRAY_SIZE(tier_nl_evacuate_policy) - 1,
	},
};

/* Events tell when devices fill and move data: CAP_SYS_ADMIN to listen. */
static const struct genl_multicast_group tier_nl_mcgrps[] = {
	{ .name = DM_TIER_MCGRP_MONITOR, .flags = TIER_COMPAT_MCAST_SYS_ADMIN },
};

/*
 * resv_start_op 0: every operation validates strictly. parallel_ops: no
 * operation relies on genl_mutex (each takes tier_pools_mutex, dumps keep
 * their place in cb->args), and one that waits on a hung tier (a probe
 * flush) must not hold it: every family without parallel_ops, and the
 * family lookups of every genetlink user on the host, would wait too.
 */
static struct genl_family tier_nl_family __ro_after_init = {
	.name = DM_TIER_FAMILY_NAME,
	.version = DM_TIER_FAMILY_VERSION,
	.module = THIS_MODULE,
	.parallel_ops = true,
	.ops = tier_nl_ops,
	.n_ops = ARRAY_SIZE(tier_nl_ops),
	.mcgrps = tier_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(tier_nl_mcgrps),
};

int __init dm_tier_nl_register(void)
{
	int r = genl_register_family(&tier_nl_family);

	if (!r) {
		WRITE_ONCE(tier_nl_ready, true);
		tier_pool_set_event_ops(&tier_nl_event_ops);
	}
	return r;
}

void dm_tier_nl_unregister(void)
{
	tier_pool_set_event_ops(NULL);
	WRITE_ONCE(tier_nl_ready, false);
	genl_unregister_family(&tier_nl_family);
}

MODULE_ALIAS_GENL_FAMILY(DM_TIER_FAMILY_NAME);
