// SPDX-License-Identifier: GPL-2.0
/* libtier: the dm-tier generic netlink family over libnl-3 (see tl-nl.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <linux/dm-tier.h>

#include "tl-nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

static_assert(TL_NL_POLICY_N == DM_TIER_A_POLICY_MAX,
	      "tl_nl_policy has one slot per policy attribute");

#define TL_NL_NOFEATURE_HINT \
	"the dm-tier module is not loaded or too old for this command: modprobe dm-tier"
#define TL_NL_EXTACK_LEN 256

struct tl_nl {
	struct nl_sock *sk;
	int family;
	int last_error;		/* -errno of the last request's answer */
	uint32_t last_move_id;	/* move-id of the last migrate/pin reply */
	bool monitoring;
	/* Notifications received but not yet handed out (one recv may carry several). */
	struct tl_nl_dev *queue;
	size_t queue_head, queue_len, queue_cap;
};

const char *const tl_nl_policy_keys[TL_NL_POLICY_N] = {
	"auto_migrate",	     "high_watermark",	   "low_watermark",
	"demote_age",	     "drain_deadline",	   "promote_hits",
	"promote_window",    "migration_bandwidth", "migration_inflight",
	"redirect_writes",   "mem_promote_hits",  "mem_size_mb",
	"offline_queue_s",
};

int tl_nl_policy_key(const char *key)
{
	char norm[32];
	size_t i, len;

	if (!key)
		return -1;
	len = strlen(key);
	if (len >= sizeof(norm))
		return -1;
	for (i = 0; i <= len; i++)
		norm[i] = key[i] == '-' ? '_' : key[i];
	for (i = 0; i < TL_NL_POLICY_N; i++)
		if (!strcmp(norm, tl_nl_policy_keys[i]))
			return (int)i;
	return -1;
}

const char *tl_nl_event_name(uint32_t event)
{
	static const char *const names[] = {
		[DM_TIER_EVENT_DEV_NEW] = "dev-new",
		[DM_TIER_EVENT_DEV_DEL] = "dev-del",
		[DM_TIER_EVENT_WATERMARK_HIGH] = "watermark-high",
		[DM_TIER_EVENT_WATERMARK_LOW] = "watermark-low",
		[DM_TIER_EVENT_MIGRATION_DONE] = "migration-done",
		[DM_TIER_EVENT_TIER_ERROR] = "tier-error",
		[DM_TIER_EVENT_TIER_RECOVERED] = "tier-recovered",
		[DM_TIER_EVENT_MODE_CHANGE] = "mode-change",
		[DM_TIER_EVENT_NEAR_FULL] = "near-full",
	};

	if (event < ARRAY_SIZE(names) && names[event])
		return names[event];
	return "unknown";
}

/* ---- attribute readers: lengths checked, never trusting the sender ---- */

static int get_u64(const struct nlattr *a, uint64_t *v)
{
	if (nla_len(a) < (int)sizeof(uint64_t))
		return -EINVAL;
	memcpy(v, nla_data(a), sizeof(*v));	/* 64-bit attrs may be 4-aligned */
	return 0;
}

static int get_u32(const struct nlattr *a, uint32_t *v)
{
	if (nla_len(a) < (int)sizeof(uint32_t))
		return -EINVAL;
	memcpy(v, nla_data(a), sizeof(*v));
	return 0;
}

/* A string that does not fit @len (with its NUL) is refused, not cut. */
static int get_str(const struct nlattr *a, char *buf, size_t len)
{
	size_t n = strnlen(nla_data(a), nla_len(a));

	if (n >= len)
		return -EINVAL;
	memcpy(buf, nla_data(a), n);
	buf[n] = '\0';
	return 0;
}

#define OPT_U64(tb, type, dst) \
	((tb)[type] ? get_u64((tb)[type], (dst)) : 0)
#define OPT_U32(tb, type, dst) \
	((tb)[type] ? get_u32((tb)[type], (dst)) : 0)
#define OPT_STR(tb, type, dst) \
	((tb)[type] ? get_str((tb)[type], (dst), sizeof(dst)) : 0)

/* The memory tier's nest: DURABLE 0 (or, failing that, class "mem"). */
static int parse_mem_tier(struct nlattr **tb, struct tl_mem_stats *m)
{
	int ret;

	memset(m, 0, sizeof(*m));
	ret = OPT_U32(tb, DM_TIER_A_TIER_NUMA_NODE, &m->node);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_TIER_MEM_BYTES_MAX, &m->bytes_max);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_TIER_MEM_BYTES_USED, &m->bytes_used);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_TIER_MEM_COPIES, &m->copies);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_TIER_MEM_HITS, &m->hits);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_TIER_MEM_MISSES, &m->misses);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_TIER_MEM_FILLS, &m->fills);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_TIER_MEM_EVICTIONS, &m->evictions);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_TIER_MEM_INVALIDATIONS,
			     &m->invalidations);
	if (ret)
		return ret;
	m->present = true;
	return 0;
}

static int parse_tier(struct nlattr *nest, struct tl_nl_dev *dev)
{
	struct nlattr *tb[DM_TIER_A_TIER_MAX + 1];
	struct tl_nl_tier t = { 0 };
	uint32_t durable = 1, evac = 0;
	int ret;

	if (nla_parse_nested(tb, DM_TIER_A_TIER_MAX, nest, NULL) < 0)
		return -EINVAL;
	if (!tb[DM_TIER_A_TIER_INDEX] ||
	    get_u32(tb[DM_TIER_A_TIER_INDEX], &t.index) ||
	    t.index > TIER_MAX_TIERS)
		return -EINVAL;
	if (OPT_U32(tb, DM_TIER_A_TIER_DURABLE, &durable) ||
	    OPT_STR(tb, DM_TIER_A_TIER_CLASS, t.tier_class))
		return -EINVAL;
	if (!durable || !strcmp(t.tier_class, "mem"))
		return parse_mem_tier(tb, &dev->mem);
	if (t.index >= TIER_MAX_TIERS)
		return -EINVAL;
	t.durable = true;
	ret = OPT_STR(tb, DM_TIER_A_TIER_DEVICE, t.device);
	ret = ret ?: OPT_STR(tb, DM_TIER_A_TIER_STATE, t.state);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_TIER_CAPACITY_EXTENTS, &t.capacity_extents);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_TIER_USED_EXTENTS, &t.used_extents);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_TIER_MAPPED_EXTENTS, &t.mapped_extents);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_TIER_READ_IOS, &t.read_ios);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_TIER_WRITE_IOS, &t.write_ios);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_TIER_IO_ERRORS, &t.io_errors);
	ret = ret ?: OPT_U32(tb, DM_TIER_A_TIER_EVACUATING, &evac);
	if (ret)
		return ret;
	t.evacuating = evac;
	dev->tiers[t.index] = t;
	if (dev->nr_tiers <= t.index)
		dev->nr_tiers = t.index + 1;
	return 0;
}

static int parse_migration(struct nlattr *nest, struct tl_nl_migration *m)
{
	struct nlattr *tb[DM_TIER_A_MIGRATION_MAX + 1];
	int ret;

	memset(m, 0, sizeof(*m));
	if (nla_parse_nested(tb, DM_TIER_A_MIGRATION_MAX, nest, NULL) < 0)
		return -EINVAL;
	ret = OPT_U64(tb, DM_TIER_A_MIGRATION_PROMOTIONS, &m->promotions);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_MIGRATION_DEMOTIONS, &m->demotions);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_MIGRATION_BYTES_MOVED, &m->bytes_moved);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_MIGRATION_IN_FLIGHT, &m->in_flight);
	ret = ret ?: OPT_STR(tb, DM_TIER_A_MIGRATION_PACE, m->pace);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_MIGRATION_ABOVE_HIGH_MS, &m->above_high_ms);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_MIGRATION_ERRORS, &m->errors);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_MIGRATION_MANUAL_PENDING, &m->manual_pending);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_MIGRATION_SWAPS, &m->swaps);
	ret = ret ?: OPT_U32(tb, DM_TIER_A_MIGRATION_MOVES_QUEUED, &m->moves_queued);
	return ret;
}

/* One moves nest, appended to @dev->moves (the rest are counted only). */
static int parse_move(struct nlattr *nest, struct tl_nl_dev *dev)
{
	struct nlattr *tb[DM_TIER_A_MOVE_MAX + 1];
	struct tl_nl_move m = { 0 };
	int ret;

	if (nla_parse_nested(tb, DM_TIER_A_MOVE_MAX, nest, NULL) < 0 ||
	    !tb[DM_TIER_A_MOVE_ID])
		return -EINVAL;
	ret = OPT_U32(tb, DM_TIER_A_MOVE_ID, &m.id);
	ret = ret ?: OPT_STR(tb, DM_TIER_A_MOVE_KIND, m.kind);
	ret = ret ?: OPT_STR(tb, DM_TIER_A_MOVE_STATE, m.state);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_MOVE_RANGE_START, &m.range_start);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_MOVE_RANGE_LEN, &m.range_len);
	ret = ret ?: OPT_U32(tb, DM_TIER_A_MOVE_TARGET_TIER, &m.target_tier);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_MOVE_DONE_EXTENTS, &m.done_extents);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_MOVE_LEFT_EXTENTS, &m.left_extents);
	if (ret)
		return ret;
	if (dev->nr_moves < TL_NL_MOVES_MAX)
		dev->moves[dev->nr_moves++] = m;
	return 0;
}

int tl_nl_parse_dev(struct nlattr **tb, struct tl_nl_dev *dev)
{
	uint32_t nr_tiers = 0;
	int ret;

	memset(dev, 0, sizeof(*dev));
	if (!tb[DM_TIER_A_DEV_NAME])
		return -EINVAL;
	ret = OPT_STR(tb, DM_TIER_A_DEV_NAME, dev->name);
	ret = ret ?: OPT_STR(tb, DM_TIER_A_DEV_UUID, dev->uuid);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_DEV_SIZE_BYTES, &dev->size_bytes);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_DEV_EXTENT_BYTES, &dev->extent_bytes);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_DEV_VIRT_EXTENTS, &dev->virt_extents);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_DEV_MAPPED_EXTENTS, &dev->mapped_extents);
	ret = ret ?: OPT_STR(tb, DM_TIER_A_DEV_METADATA_MODE, dev->metadata_mode);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_DEV_COMMITS, &dev->commits);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_DEV_NOSPC_ERRORS, &dev->nospc_errors);
	ret = ret ?: OPT_U32(tb, DM_TIER_A_DEV_NR_TIERS, &nr_tiers);
	ret = ret ?: OPT_U32(tb, DM_TIER_A_DEV_EVENT, &dev->event);
	ret = ret ?: OPT_U32(tb, DM_TIER_A_DEV_MOVE_ID, &dev->move_id);
	ret = ret ?: OPT_STR(tb, DM_TIER_A_DEV_MOVE_OUTCOME, dev->move_outcome);
	ret = ret ?: OPT_U32(tb, DM_TIER_A_DEV_MOVE_ERRNO, &dev->move_errno);
	ret = ret ?: OPT_U64(tb, DM_TIER_A_DEV_DONE_EXTENTS, &dev->done_extents);
	if (ret)
		return ret;
	if (nr_tiers > TIER_MAX_TIERS)
		return -EINVAL;
	if (tb[DM_TIER_A_DEV_OFFLINE_QUEUED]) {
		if (get_u64(tb[DM_TIER_A_DEV_OFFLINE_QUEUED],
			    &dev->offline_queued) ||
		    OPT_U64(tb, DM_TIER_A_DEV_OFFLINE_EXPIRED,
			    &dev->offline_expired))
			return -EINVAL;
		dev->has_offline = true;
	}
	if (tb[DM_TIER_A_DEV_COMMIT_LAST_US]) {
		if (get_u64(tb[DM_TIER_A_DEV_COMMIT_LAST_US],
			    &dev->commit_last_us) ||
		    OPT_U64(tb, DM_TIER_A_DEV_COMMIT_TOTAL_US,
			    &dev->commit_total_us))
			return -EINVAL;
		dev->has_commit_time = true;
	}
	if (tb[DM_TIER_A_DEV_EVENT_TIER]) {
		if (get_u32(tb[DM_TIER_A_DEV_EVENT_TIER], &dev->event_tier))
			return -EINVAL;
		dev->has_event_tier = true;
	}
	if (tb[DM_TIER_A_DEV_MIGRATION]) {
		if (parse_migration(tb[DM_TIER_A_DEV_MIGRATION], &dev->migration))
			return -EINVAL;
		dev->has_migration = true;
	}
	/*
	 * "tiers" is a repeated attribute and @tb keeps only one of them;
	 * tl_nl_parse_dev_msg() walks the message for all.
	 */
	if (tb[DM_TIER_A_DEV_TIERS] && parse_tier(tb[DM_TIER_A_DEV_TIERS], dev))
		return -EINVAL;
	if (nr_tiers) {
		if (dev->nr_tiers > nr_tiers)
			return -EINVAL;
		dev->nr_tiers = nr_tiers;
	}
	return 0;
}

int tl_nl_parse_dev_attrs(struct nlattr *head, int len, struct tl_nl_dev *dev)
{
	struct nlattr *tb[DM_TIER_A_DEV_MAX + 1];
	struct nlattr *a;
	uint32_t nr_tiers;
	int rem;

	if (nla_parse(tb, DM_TIER_A_DEV_MAX, head, len, NULL) < 0)
		return -EINVAL;
	if (tl_nl_parse_dev(tb, dev))
		return -EINVAL;
	nr_tiers = dev->nr_tiers;
	nla_for_each_attr(a, head, len, rem) {
		if (nla_type(a) == DM_TIER_A_DEV_TIERS && parse_tier(a, dev))
			return -EINVAL;
		if (nla_type(a) == DM_TIER_A_DEV_MOVES && parse_move(a, dev))
			return -EINVAL;
	}
	/* A tier index beyond what nr-tiers announced is a broken reply. */
	if (tb[DM_TIER_A_DEV_NR_TIERS] && dev->nr_tiers > nr_tiers)
		return -EINVAL;
	return 0;
}

int tl_nl_parse_dev_msg(struct nlmsghdr *nlh, struct tl_nl_dev *dev)
{
	struct genlmsghdr *gnlh;

	if (!genlmsg_valid_hdr(nlh, 0))
		return -EINVAL;
	gnlh = nlmsg_data(nlh);
	return tl_nl_parse_dev_attrs(genlmsg_attrdata(gnlh, 0),
				     genlmsg_attrlen(gnlh, 0), dev);
}

int tl_nl_parse_policy(struct nlattr *nest, struct tl_nl_policy *pol)
{
	struct nlattr *tb[DM_TIER_A_POLICY_MAX + 1];
	int i;

	memset(pol, 0, sizeof(*pol));
	if (!nest || nla_parse_nested(tb, DM_TIER_A_POLICY_MAX, nest, NULL) < 0)
		return -EINVAL;
	for (i = 0; i < TL_NL_POLICY_N; i++) {
		if (!tb[i + 1])
			continue;
		if (get_u32(tb[i + 1], &pol->v[i]))
			return -EINVAL;
		pol->set |= 1U << i;
	}
	return 0;
}

/* A kernel word into a status word: "unknown" when missing or too long. */
static void status_word(char *dst, const char *src)
{
	if (!src[0] || strlen(src) >= TL_WORD_LEN)
		src = "unknown";
	snprintf(dst, TL_WORD_LEN, "%s", src);
}

void tl_nl_dev_to_status(const struct tl_nl_dev *dev, struct tl_status *st)
{
	const struct tl_nl_migration *m = &dev->migration;
	uint32_t i;

	memset(st, 0, sizeof(*st));
	status_word(st->metadata_mode, dev->metadata_mode);
	st->commits = dev->commits;
	st->commit_time.present = dev->has_commit_time;
	st->commit_time.last_us = dev->commit_last_us;
	st->commit_time.total_us = dev->commit_total_us;
	st->extent_sectors = dev->extent_bytes >> TIER_SECTOR_SHIFT;
	st->virt_extents = dev->virt_extents;
	st->mapped_extents = dev->mapped_extents;
	st->nr_tiers = min(dev->nr_tiers, (uint32_t)TIER_MAX_TIERS);
	for (i = 0; i < st->nr_tiers; i++) {
		const struct tl_nl_tier *t = &dev->tiers[i];
		struct tl_status_tier *o = &st->tier[i];

		status_word(o->state, t->state);
		if (t->tier_class[0] && strlen(t->tier_class) < TL_WORD_LEN)
			snprintf(o->tier_class, sizeof(o->tier_class), "%s",
				 t->tier_class);
		o->total_extents = t->capacity_extents;
		o->used_extents = t->used_extents;
		o->read_ios = t->read_ios;
		o->write_ios = t->write_ios;
		o->io_errors = t->io_errors;
		o->mapped_extents = t->mapped_extents;
		o->evacuating = t->evacuating;
	}
	st->nospc_errors = dev->nospc_errors;
	st->offline.present = dev->has_offline;
	st->offline.queued = dev->offline_queued;
	st->offline.expired = dev->offline_expired;
	st->has_io_errors = true;
	st->mig.present = dev->has_migration;
	if (dev->has_migration) {
		st->mig.promotions = m->promotions;
		st->mig.demotions = m->demotions;
		st->mig.moved_bytes = m->bytes_moved;
		st->mig.in_flight = m->in_flight;
		st->mig.above_high_ms = m->above_high_ms;
		st->mig.errors = m->errors;
		st->mig.manual_pending = m->manual_pending;
		st->mig.swaps = m->swaps;
	}
	status_word(st->mig.pace, m->pace);
	st->mem = dev->mem;
}

int tl_nl_put_policy(struct nl_msg *msg, const struct tl_nl_policy *pol)
{
	struct nlattr *nest = nla_nest_start(msg, DM_TIER_A_DEV_POLICY);
	int i;

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < TL_NL_POLICY_N; i++) {
		if (!(pol->set & (1U << i)))
			continue;
		if (nla_put_u32(msg, i + 1, pol->v[i]) < 0) {
			nla_nest_cancel(msg, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, nest);
	return 0;
}

int tl_nl_parse_extent(struct nlattr *nest, struct tl_nl_extent *ext)
{
	struct nlattr *tb[DM_TIER_A_EXTENT_MAX + 1];
	int ret;

	memset(ext, 0, sizeof(*ext));
	if (!nest || nla_parse_nested(tb, DM_TIER_A_EXTENT_MAX, nest, NULL) < 0)
		return -EINVAL;
	if (!tb[DM_TIER_A_EXTENT_INDEX] || !tb[DM_TIER_A_EXTENT_TIER])
		return -EINVAL;
	ret = get_u64(tb[DM_TIER_A_EXTENT_INDEX], &ext->index);
	ret = ret ?: get_u32(tb[DM_TIER_A_EXTENT_TIER], &ext->tier);
	ret = ret ?: OPT_U32(tb, DM_TIER_A_EXTENT_HEAT, &ext->heat);
	ret = ret ?: OPT_U32(tb, DM_TIER_A_EXTENT_ATIME, &ext->atime);
	if (ret)
		return ret;
	ext->pinned = tb[DM_TIER_A_EXTENT_PINNED] != NULL;
	ext->busy = tb[DM_TIER_A_EXTENT_BUSY] != NULL;
	return 0;
}

/* ---- requests ---- */

/*
 * One request and its replies. @on_reply sees each reply message; a
 * non-zero return is kept in @cb_rc and later replies are read but not
 * handed out (so that the socket stays in step for the next request). A
 * reply that does not parse sets @bad_reply (and returns non-zero).
 */
struct req {
	const char *op;		/* "dev-get", ... for messages */
	const char *name;	/* device, or NULL */
	int (*on_reply)(struct nlmsghdr *nlh, struct req *r);
	void *arg;
	int cb_rc;
	uint32_t *move_id;	/* done_reply: move-id, when there is one */
	bool done;
	int error;		/* -errno the kernel answered, 0 if none */
	bool bad_reply;
	char extack[TL_NL_EXTACK_LEN];
};

/* The extack message that follows @fixed bytes of @nlh's payload. */
static void read_extack(const struct nlmsghdr *nlh, size_t fixed, char *buf,
			size_t len)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t payload;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || nlh->nlmsg_len < NLMSG_HDRLEN)
		return;
	payload = nlh->nlmsg_len - NLMSG_HDRLEN;
	fixed = NLMSG_ALIGN(fixed);
	if (fixed >= payload)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)NLMSG_DATA(nlh) + fixed),
		      (int)(payload - fixed), NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG] && nla_len(tb[NLMSGERR_ATTR_MSG]) > 0) {
		size_t n = strnlen(nla_data(tb[NLMSGERR_ATTR_MSG]),
				   nla_len(tb[NLMSGERR_ATTR_MSG]));

		n = min(n, len - 1);
		memcpy(buf, nla_data(tb[NLMSGERR_ATTR_MSG]), n);
		buf[n] = '\0';
		/* The kernel's messages carry no trailing newline, but be sure. */
		while (n && buf[n - 1] == '\n')
			buf[--n] = '\0';
	}
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct req *r = arg;
	/* libnl hands out the payload; the header sits right before it. */
	const struct nlmsghdr *nlh =
		(const struct nlmsghdr *)((const char *)e - NLMSG_HDRLEN);
	size_t fixed = sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		fixed += e->msg.nlmsg_len > NLMSG_HDRLEN ?
			 NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN : 0;
	r->error = e->error;
	read_extack(nlh, fixed, r->extack, sizeof(r->extack));
	r->done = true;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct req *r = arg;

	r->done = true;
	return NL_STOP;
}

/* NLMSG_DONE of a dump: may carry the error that ended it (and extack). */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct req *r = arg;
	int error;

	if (nlmsg_datalen(nlh) >= (int)sizeof(int)) {
		memcpy(&error, nlmsg_data(nlh), sizeof(error));
		if (error < 0) {
			r->error = error;
			read_extack(nlh, sizeof(int), r->extack,
				    sizeof(r->extack));
		}
	}
	r->done = true;
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct req *r = arg;
	int ret;

	if (r->cb_rc || !r->on_reply)
		return NL_SKIP;
	ret = r->on_reply(nlmsg_hdr(msg), r);
	if (ret)
		r->cb_rc = ret;
	return NL_SKIP;
}

static int nofeature(struct tl_err *err, const char *what)
{
	tl_fail(err, TL_NOFEATURE, "%s: %s", what, TL_NL_NOFEATURE_HINT);
	return TL_NOFEATURE;
}

/* Turn the kernel's answer into a result and a message that says what to do. */
static int kernel_error(const struct req *r, struct tl_err *err)
{
	int e = -r->error;
	const char *why = r->extack[0] ? r->extack : strerror(e);
	char who[160];

	if (r->name)
		snprintf(who, sizeof(who), "%s %s", r->op, r->name);
	else
		snprintf(who, sizeof(who), "%s", r->op);
	switch (e) {
	case EPERM:
	case EACCES:
		tl_fail(err, TL_FAIL, "%s: needs CAP_SYS_ADMIN (run as root)%s%s",
			who, r->extack[0] ? ": " : "", r->extack);
		return TL_FAIL;
	case EOPNOTSUPP:
		tl_fail(err, TL_NOFEATURE, "%s: %s", who, why);
		tl_err_append(err, "%s", TL_NL_NOFEATURE_HINT);
		return TL_NOFEATURE;
	case ENOENT:
	case ENODEV:
		if (r->extack[0])
			tl_fail(err, TL_USAGE, "%s: %s", who, r->extack);
		else
			tl_fail(err, TL_USAGE, "%s: no active dm-tier device named '%s'",
				r->op, r->name ? r->name : "");
		if (!strcmp(r->op, "move-cancel") && r->extack[0])
			tl_err_append(err, "'tierctl status %s' lists the queued requests",
				      r->name ? r->name : "NAME");
		else
			tl_err_append(err, "'tierctl list' shows the dm-tier devices");
		return TL_USAGE;
	case EINVAL:
	case ERANGE:
		tl_fail(err, TL_USAGE, "%s: %s", who, why);
		return TL_USAGE;
	case EBUSY:
		tl_fail(err, TL_FAIL, "%s: %s", who, why);
		/* The kernel's extack already says what is busy. */
		if (!strcmp(r->op, "migrate") || !strcmp(r->op, "pin"))
			tl_err_append(err, "'tierctl status %s' lists the queued moves, 'tierctl cancel %s ID' cancels one; or retry later",
				      r->name ? r->name : "NAME",
				      r->name ? r->name : "NAME");
		else if (!r->extack[0])
			tl_err_append(err, "the device is busy; retry later");
		return TL_FAIL;
	default:
		tl_fail(err, TL_FAIL, "%s: %s", who, why);
		return TL_FAIL;
	}
}

static struct nl_msg *new_request(struct tl_nl *nl, uint8_t cmd, int flags,
				  const char *name)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, flags,
			 cmd, DM_TIER_FAMILY_VERSION) ||
	    (name && nla_put_string(msg, DM_TIER_A_DEV_NAME, name) < 0)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Send @msg (consumed) and read replies until the ACK, error or DONE. */
static int execute(struct tl_nl *nl, struct nl_msg *msg, struct req *r,
		   struct tl_err *err)
{
	struct nl_cb *cb;
	int ret;

	if (nl->monitoring) {
		nlmsg_free(msg);
		return tl_fail(err, TL_FAIL,
			       "%s: this netlink socket listens for events; use another one for requests",
			       r->op);
	}
	nl->last_error = 0;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return tl_fail(err, TL_FAIL, "%s: out of memory", r->op);
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, r);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, r);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, r);

	ret = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (ret < 0) {
		nl_cb_put(cb);
		return tl_fail(err, TL_FAIL, "%s: sending the request failed: %s",
			       r->op, nl_geterror(ret));
	}
	while (!r->done) {
		ret = nl_recvmsgs_report(nl->sk, cb);
		if (r->done)
			break;
		if (ret <= 0) {
			nl_cb_put(cb);
			return tl_fail(err, TL_FAIL, "%s: reading the kernel's reply failed: %s",
				       r->op, ret ? nl_geterror(ret) : "connection closed");
		}
	}
	nl_cb_put(cb);
	nl->last_error = r->error;
	if (r->error)
		return kernel_error(r, err);
	if (r->bad_reply)
		return tl_fail(err, TL_FAIL,
			       "%s: the kernel's reply does not parse; are tierctl and the dm-tier module of the same version? ('tierctl version', 'modinfo dm-tier')",
			       r->op);
	return r->cb_rc;
}

static int check_name(const char *op, const char *name, struct tl_err *err)
{
	if (!name || !*name || strlen(name) > 127)
		return tl_fail(err, TL_USAGE, "%s: invalid device name '%s'", op,
			       name ? name : "");
	return TL_OK;
}

int tl_nl_open(struct tl_nl **out, struct tl_err *err)
{
	struct tl_nl *nl = calloc(1, sizeof(*nl));
	int one = 1, ret, fd;

	*out = NULL;
	if (!nl)
		return tl_fail(err, TL_FAIL, "out of memory");
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		free(nl);
		return tl_fail(err, TL_FAIL, "out of memory");
	}
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		tl_fail(err, TL_FAIL, "cannot open a generic netlink socket: %s",
			nl_geterror(ret));
		tl_nl_close(nl);
		return TL_FAIL;
	}
	/*
	 * The kernel's reason for refusing a request comes as extack; capped
	 * ACKs keep error replies short. Older kernels lack both: harmless.
	 */
	fd = nl_socket_get_fd(nl->sk);
	if (fd >= 0) {
		setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
		setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	}
	nl->family = genl_ctrl_resolve(nl->sk, DM_TIER_FAMILY_NAME);
	if (nl->family < 0) {
		ret = nl->family;
		tl_nl_close(nl);
		if (ret == -NLE_OBJ_NOTFOUND)
			return nofeature(err, "no dm-tier netlink family");
		return tl_fail(err, TL_FAIL,
			       "cannot look up the dm-tier netlink family: %s",
			       nl_geterror(ret));
	}
	*out = nl;
	return TL_OK;
}

void tl_nl_close(struct tl_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	free(nl->queue);
	free(nl);
}

int tl_nl_last_error(struct tl_nl *nl)
{
	return nl->last_error;
}

int tl_nl_fd(struct tl_nl *nl)
{
	return nl_socket_get_fd(nl->sk);
}

/* ---- dev-get ---- */

struct dev_reply {
	struct tl_nl_dev *dev;	/* do: the one reply */
	bool got;
	int (*cb)(const struct tl_nl_dev *dev, void *arg);	/* dump */
	void *arg;
};

static int bad_reply(struct req *r)
{
	r->bad_reply = true;
	return -EINVAL;
}

static int dev_reply(struct nlmsghdr *nlh, struct req *r)
{
	struct dev_reply *d = r->arg;

	if (tl_nl_parse_dev_msg(nlh, d->dev))
		return bad_reply(r);
	d->got = true;
	return d->cb ? d->cb(d->dev, d->arg) : 0;
}

int tl_nl_dev_get(struct tl_nl *nl, const char *name, struct tl_nl_dev *dev,
		  struct tl_err *err)
{
	struct dev_reply d = { .dev = dev };
	struct req r = { .op = "dev-get", .name = name, .on_reply = dev_reply,
			 .arg = &d };
	struct nl_msg *msg;
	int rc;

	if (check_name(r.op, name, err))
		return TL_USAGE;
	msg = new_request(nl, DM_TIER_CMD_DEV_GET, 0, name);
	if (!msg)
		return tl_fail(err, TL_FAIL, "out of memory");
	rc = execute(nl, msg, &r, err);
	if (rc)
		return rc;
	if (!d.got)
		return tl_fail(err, TL_FAIL, "dev-get %s: the kernel sent no device", name);
	return TL_OK;
}

int tl_nl_dev_list(struct tl_nl *nl,
		   int (*cb)(const struct tl_nl_dev *dev, void *arg), void *arg,
		   struct tl_err *err)
{
	struct tl_nl_dev *dev = malloc(sizeof(*dev));
	struct dev_reply d = { .dev = dev, .cb = cb, .arg = arg };
	struct req r = { .op = "dev-get", .on_reply = dev_reply, .arg = &d };
	struct nl_msg *msg;
	int rc;

	if (!dev)
		return tl_fail(err, TL_FAIL, "out of memory");
	msg = new_request(nl, DM_TIER_CMD_DEV_GET, NLM_F_DUMP, NULL);
	if (!msg) {
		free(dev);
		return tl_fail(err, TL_FAIL, "out of memory");
	}
	rc = execute(nl, msg, &r, err);
	free(dev);
	return rc;
}

/* ---- policy ---- */

static int policy_reply(struct nlmsghdr *nlh, struct req *r)
{
	struct nlattr *tb[DM_TIER_A_DEV_MAX + 1];

	if (genlmsg_parse(nlh, 0, tb, DM_TIER_A_DEV_MAX, NULL) < 0 ||
	    tl_nl_parse_policy(tb[DM_TIER_A_DEV_POLICY], r->arg))
		return bad_reply(r);
	return 0;
}

int tl_nl_policy_get(struct tl_nl *nl, const char *name,
		     struct tl_nl_policy *pol, struct tl_err *err)
{
	struct req r = { .op = "policy-get", .name = name,
			 .on_reply = policy_reply, .arg = pol };
	struct nl_msg *msg;

	if (check_name(r.op, name, err))
		return TL_USAGE;
	memset(pol, 0, sizeof(*pol));
	msg = new_request(nl, DM_TIER_CMD_POLICY_GET, 0, name);
	if (!msg)
		return tl_fail(err, TL_FAIL, "out of memory");
	return execute(nl, msg, &r, err);
}

int tl_nl_policy_set(struct tl_nl *nl, const char *name,
		     const struct tl_nl_policy *in, struct tl_nl_policy *out,
		     struct tl_err *err)
{
	struct tl_nl_policy after = { 0 };
	struct req r = { .op = "policy-set", .name = name,
			 .on_reply = policy_reply, .arg = &after };
	struct nl_msg *msg;
	int rc;

	if (check_name(r.op, name, err))
		return TL_USAGE;
	msg = new_request(nl, DM_TIER_CMD_POLICY_SET, 0, name);
	if (!msg || tl_nl_put_policy(msg, in)) {
		nlmsg_free(msg);
		return tl_fail(err, TL_FAIL, "out of memory");
	}
	rc = execute(nl, msg, &r, err);
	if (!rc && out)
		*out = after;
	return rc;
}

/* ---- migrate, pin, unpin, tier-recover, tier-forget ---- */

static int done_reply(struct nlmsghdr *nlh, struct req *r)
{
	struct nlattr *tb[DM_TIER_A_DEV_MAX + 1];

	if (genlmsg_parse(nlh, 0, tb, DM_TIER_A_DEV_MAX, NULL) < 0)
		return bad_reply(r);
	if (tb[DM_TIER_A_DEV_DONE_EXTENTS] &&
	    get_u64(tb[DM_TIER_A_DEV_DONE_EXTENTS], r->arg))
		return bad_reply(r);
	if (tb[DM_TIER_A_DEV_MOVE_ID] && r->move_id &&
	    get_u32(tb[DM_TIER_A_DEV_MOVE_ID], r->move_id))
		return bad_reply(r);
	return 0;
}

static int range_request(struct tl_nl *nl, uint8_t cmd, const char *op,
			 const char *name, uint64_t start, uint64_t len,
			 int64_t tier, uint64_t *done, struct tl_err *err)
{
	uint64_t covered = 0;
	uint32_t id = 0;
	struct req r = { .op = op, .name = name, .on_reply = done_reply,
			 .arg = &covered, .move_id = &id };
	struct nl_msg *msg;
	int rc;

	nl->last_move_id = 0;
	if (check_name(op, name, err))
		return TL_USAGE;
	if (!len)
		return tl_fail(err, TL_USAGE, "%s %s: empty range", op, name);
	msg = new_request(nl, cmd, 0, name);
	if (!msg || nla_put_u64(msg, DM_TIER_A_DEV_RANGE_START, start) < 0 ||
	    nla_put_u64(msg, DM_TIER_A_DEV_RANGE_LEN, len) < 0 ||
	    (tier >= 0 &&
	     nla_put_u32(msg, DM_TIER_A_DEV_TARGET_TIER, (uint32_t)tier) < 0)) {
		nlmsg_free(msg);
		return tl_fail(err, TL_FAIL, "out of memory");
	}
	rc = execute(nl, msg, &r, err);
	if (!rc && done)
		*done = covered;
	if (!rc)
		nl->last_move_id = id;
	return rc;
}

uint32_t tl_nl_last_move_id(struct tl_nl *nl)
{
	return nl->last_move_id;
}

int tl_nl_move_cancel(struct tl_nl *nl, const char *name, uint32_t id,
		      struct tl_err *err)
{
	struct req r = { .op = "move-cancel", .name = name };
	struct nl_msg *msg;

	if (check_name(r.op, name, err))
		return TL_USAGE;
	msg = new_request(nl, DM_TIER_CMD_MOVE_CANCEL, 0, name);
	if (!msg || nla_put_u32(msg, DM_TIER_A_DEV_MOVE_ID, id) < 0) {
		nlmsg_free(msg);
		return tl_fail(err, TL_FAIL, "out of memory");
	}
	return execute(nl, msg, &r, err);
}

int tl_nl_migrate(struct tl_nl *nl, const char *name, uint64_t start,
		  uint64_t len, uint32_t tier, uint64_t *done,
		  struct tl_err *err)
{
	return range_request(nl, DM_TIER_CMD_MIGRATE, "migrate", name, start,
			     len, tier, done, err);
}

int tl_nl_pin(struct tl_nl *nl, const char *name, uint64_t start,
	      uint64_t len, int tier, uint64_t *done, struct tl_err *err)
{
	return range_request(nl, DM_TIER_CMD_PIN, "pin", name, start, len,
			     tier < 0 ? -1 : tier, done, err);
}

int tl_nl_unpin(struct tl_nl *nl, const char *name, uint64_t start,
		uint64_t len, uint64_t *done, struct tl_err *err)
{
	return range_request(nl, DM_TIER_CMD_UNPIN, "unpin", name, start, len,
			     -1, done, err);
}

int tl_nl_tier_recover(struct tl_nl *nl, const char *name, uint32_t tier,
		       struct tl_err *err)
{
	struct req r = { .op = "tier-recover", .name = name };
	struct nl_msg *msg;

	if (check_name(r.op, name, err))
		return TL_USAGE;
	msg = new_request(nl, DM_TIER_CMD_TIER_RECOVER, 0, name);
	if (!msg || nla_put_u32(msg, DM_TIER_A_DEV_TARGET_TIER, tier) < 0) {
		nlmsg_free(msg);
		return tl_fail(err, TL_FAIL, "out of memory");
	}
	return execute(nl, msg, &r, err);
}

int tl_nl_tier_forget(struct tl_nl *nl, const char *name, uint32_t tier,
		      uint64_t *done, struct tl_err *err)
{
	uint64_t forgotten = 0;
	struct req r = { .op = "tier-forget", .name = name,
			 .on_reply = done_reply, .arg = &forgotten };
	struct nl_msg *msg;
	int rc;

	if (check_name(r.op, name, err))
		return TL_USAGE;
	msg = new_request(nl, DM_TIER_CMD_TIER_FORGET, 0, name);
	if (!msg || nla_put_u32(msg, DM_TIER_A_DEV_TARGET_TIER, tier) < 0) {
		nlmsg_free(msg);
		return tl_fail(err, TL_FAIL, "out of memory");
	}
	rc = execute(nl, msg, &r, err);
	if (!rc && done)
		*done = forgotten;
	return rc;
}

int tl_nl_evacuate(struct tl_nl *nl, const char *name, uint32_t tier,
		   bool stop, uint32_t to, uint64_t *mapped, struct tl_err *err)
{
	uint64_t n = 0;
	uint32_t id = 0;
	struct req r = { .op = "evacuate", .name = name,
			 .on_reply = done_reply, .arg = &n, .move_id = &id };
	struct nl_msg *msg;
	int rc;

	nl->last_move_id = 0;
	if (check_name(r.op, name, err))
		return TL_USAGE;
	msg = new_request(nl, DM_TIER_CMD_EVACUATE, 0, name);
	if (!msg || nla_put_u32(msg, DM_TIER_A_DEV_TARGET_TIER, tier) < 0 ||
	    (stop && nla_put_flag(msg, DM_TIER_A_DEV_EVACUATE_STOP) < 0) ||
	    (to != TL_NL_NO_TIER &&
	     nla_put_u32(msg, DM_TIER_A_DEV_EVACUATE_TO, to) < 0)) {
		nlmsg_free(msg);
		return tl_fail(err, TL_FAIL, "out of memory");
	}
	rc = execute(nl, msg, &r, err);
	if (!rc && mapped)
		*mapped = n;
	if (!rc)
		nl->last_move_id = id;
	return rc;
}

/* ---- extent-dump ---- */

struct extent_reply {
	int (*cb)(const struct tl_nl_extent *ext, void *arg);
	void *arg;
};

static int extent_reply(struct nlmsghdr *nlh, struct req *r)
{
	struct extent_reply *x = r->arg;
	struct genlmsghdr *gnlh;
	struct tl_nl_extent ext;
	struct nlattr *a;
	int rem, ret;

	if (!genlmsg_valid_hdr(nlh, 0))
		return bad_reply(r);
	gnlh = nlmsg_data(nlh);
	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0), genlmsg_attrlen(gnlh, 0),
			  rem) {
		if (nla_type(a) != DM_TIER_A_DEV_EXTENTS)
			continue;
		if (tl_nl_parse_extent(a, &ext))
			return bad_reply(r);
		ret = x->cb(&ext, x->arg);
		if (ret)
			return ret;
	}
	return 0;
}

int tl_nl_extent_dump(struct tl_nl *nl, const char *name, uint64_t start,
		      uint64_t len,
		      int (*cb)(const struct tl_nl_extent *ext, void *arg),
		      void *arg, struct tl_err *err)
{
	struct extent_reply x = { .cb = cb, .arg = arg };
	struct req r = { .op = "extent-dump", .name = name,
			 .on_reply = extent_reply, .arg = &x };
	struct nl_msg *msg;

	if (check_name(r.op, name, err))
		return TL_USAGE;
	msg = new_request(nl, DM_TIER_CMD_EXTENT_DUMP, NLM_F_DUMP, name);
	if (!msg || (len && (nla_put_u64(msg, DM_TIER_A_DEV_RANGE_START, start) < 0 ||
			     nla_put_u64(msg, DM_TIER_A_DEV_RANGE_LEN, len) < 0))) {
		nlmsg_free(msg);
		return tl_fail(err, TL_FAIL, "out of memory");
	}
	return execute(nl, msg, &r, err);
}

/* ---- monitor ---- */

int tl_nl_monitor(struct tl_nl *nl, struct tl_err *err)
{
	int grp, ret;

	grp = genl_ctrl_resolve_grp(nl->sk, DM_TIER_FAMILY_NAME,
				    DM_TIER_MCGRP_MONITOR);
	if (grp == -NLE_OBJ_NOTFOUND)
		return nofeature(err, "no dm-tier monitor group");
	if (grp < 0)
		return tl_fail(err, TL_FAIL, "cannot look up the dm-tier monitor group: %s",
			       nl_geterror(grp));
	ret = nl_socket_add_membership(nl->sk, grp);
	if (ret == -NLE_PERM)
		return tl_fail(err, TL_FAIL,
			       "joining the dm-tier monitor group needs CAP_SYS_ADMIN (run as root)");
	if (ret < 0)
		return tl_fail(err, TL_FAIL, "cannot join the dm-tier monitor group: %s",
			       nl_geterror(ret));
	/* Bursts of events: a bigger receive buffer loses fewer. */
	nl_socket_set_buffer_size(nl->sk, 1 << 20, 0);
	nl->monitoring = true;
	return TL_OK;
}

static int queue_event(struct nl_msg *msg, void *arg)
{
	struct tl_nl *nl = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gnlh;
	struct tl_nl_dev *q;

	if (!genlmsg_valid_hdr(nlh, 0))
		return NL_SKIP;
	gnlh = nlmsg_data(nlh);
	if (gnlh->cmd != DM_TIER_CMD_DEV_NTF)
		return NL_SKIP;
	if (nl->queue_len == nl->queue_cap) {
		size_t cap = nl->queue_cap ? 2 * nl->queue_cap : 4;

		if (nl->queue_head) {	/* reuse the room already handed out */
			memmove(nl->queue, nl->queue + nl->queue_head,
				(nl->queue_len - nl->queue_head) * sizeof(*q));
			nl->queue_len -= nl->queue_head;
			nl->queue_head = 0;
		} else {
			q = realloc(nl->queue, cap * sizeof(*q));
			if (!q)
				return NL_SKIP;
			nl->queue = q;
			nl->queue_cap = cap;
		}
	}
	/* A notification that does not parse is dropped, not fatal. */
	if (!tl_nl_parse_dev_msg(nlh, &nl->queue[nl->queue_len]))
		nl->queue_len++;
	return NL_SKIP;
}

/* Notifications carry sequence number 0: nothing to match. */
static int any_seq(struct nl_msg *msg, void *arg)
{
	return NL_OK;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int tl_nl_next_event(struct tl_nl *nl, struct tl_nl_dev *ev, int timeout_ms,
		     struct tl_err *err)
{
	long long deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : 0;
	struct pollfd pfd = { .fd = tl_nl_fd(nl), .events = POLLIN };
	struct nl_cb *cb;
	int ret, wait;

	if (!nl->monitoring)
		return tl_fail(err, TL_FAIL, "not monitoring: call tl_nl_monitor() first");
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return tl_fail(err, TL_FAIL, "out of memory");
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, queue_event, nl);
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, any_seq, NULL);
	while (nl->queue_head == nl->queue_len) {
		nl->queue_head = nl->queue_len = 0;
		wait = -1;
		if (timeout_ms >= 0) {
			long long left = deadline - now_ms();

			wait = left > 0 ? (int)min(left, (long long)INT_MAX) : 0;
		}
		ret = poll(&pfd, 1, wait);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			nl_cb_put(cb);
			return tl_fail(err, TL_FAIL, "waiting for events: %s",
				       strerror(errno));
		}
		if (ret == 0) {
			nl_cb_put(cb);
			tl_fail(err, TL_NL_TIMEOUT, "no event within %d ms", timeout_ms);
			return TL_NL_TIMEOUT;
		}
		ret = nl_recvmsgs_report(nl->sk, cb);
		if (ret == -NLE_NOMEM) {
			nl_cb_put(cb);
			return tl_fail(err, TL_FAIL,
				       "events were lost (the receive buffer overflowed); restart the watch and re-read the state with 'tierctl status'");
		}
		if (ret < 0) {
			nl_cb_put(cb);
			return tl_fail(err, TL_FAIL, "reading events failed: %s",
				       nl_geterror(ret));
		}
	}
	nl_cb_put(cb);
	*ev = nl->queue[nl->queue_head++];
	return TL_OK;
}

int tl_nl_family_version(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct genl_family *family;
	struct nl_cache *cache;
	int ver;

	if (!sk)
		return -ENOMEM;
	if (genl_connect(sk) || genl_ctrl_alloc_cache(sk, &cache)) {
		nl_socket_free(sk);
		return -EIO;
	}
	family = genl_ctrl_search_by_name(cache, DM_TIER_FAMILY_NAME);
	if (family) {
		ver = (int)genl_family_get_version(family);
		genl_family_put(family);
	} else {
		ver = -ENOENT;
	}
	nl_cache_free(cache);
	nl_socket_free(sk);
	return ver;
}
