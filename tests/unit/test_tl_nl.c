// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/tl-nl.c: messages built with libnl's own nla_put*
 * and genlmsg_put (no kernel) parsed by tl_nl_parse_*, and the request path
 * with the socket calls mocked: the kernel's replies are fed to libnl's real
 * nl_recvmsgs_report() through an overridden receive function, so the
 * callbacks, the extack parsing and the error mapping all run for real.
 *
 * unit-ldflags: -Wl,--wrap=genl_connect,--wrap=genl_ctrl_resolve,--wrap=genl_ctrl_resolve_grp,--wrap=nl_socket_add_membership,--wrap=poll,--wrap=nl_send_auto,--wrap=nl_recvmsgs_report
 */
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include <linux/dm-tier.h>

#include "tl-nl.h"

#define FAMILY 42

/* ---- message building helpers ---- */

static struct nl_msg *genl_msg(uint8_t cmd, uint32_t seq, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, 0, seq, FAMILY, 0, flags, cmd, 1));
	return msg;
}

static void put_tier(struct nl_msg *msg, uint32_t index, const char *device,
		     uint64_t cap, uint64_t used)
{
	struct nlattr *nest = nla_nest_start(msg, DM_TIER_A_DEV_TIERS);

	assert_non_null(nest);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_TIER_INDEX, index), 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_TIER_DEVICE, device), 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_TIER_CLASS, "nvme"), 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_TIER_STATE,
					index ? "degraded" : "ok"), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_CAPACITY_EXTENTS, cap), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_USED_EXTENTS, used), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_MAPPED_EXTENTS, used - 1), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_READ_IOS, 1000 + index), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_WRITE_IOS, 2000 + index), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_IO_ERRORS, index * 3), 0);
	/* Tier 1 evacuating; tier 0 without the attribute (older module). */
	if (index)
		assert_int_equal(nla_put_u32(msg, DM_TIER_A_TIER_EVACUATING, 1), 0);
	nla_nest_end(msg, nest);
}

/* A full dev-get reply: two tiers and the migration part. */
static void put_full_dev(struct nl_msg *msg, const char *name)
{
	struct nlattr *nest;

	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_NAME, name), 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_UUID,
					"0123456789abcdef0123456789abcdef"), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_SIZE_BYTES, 1ULL << 30), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_EXTENT_BYTES, 1 << 20), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_VIRT_EXTENTS, 1024), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_MAPPED_EXTENTS, 300), 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_METADATA_MODE, "rw"), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_COMMITS, 77), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_NOSPC_ERRORS, 2), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_DEV_NR_TIERS, 2), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_OFFLINE_QUEUED, 4), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_OFFLINE_EXPIRED, 6), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_COMMIT_LAST_US, 1500), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_COMMIT_TOTAL_US, 90000), 0);
	put_tier(msg, 0, "nvme0n1", 128, 100);
	put_tier(msg, 1, "nvme1n1", 896, 200);
	nest = nla_nest_start(msg, DM_TIER_A_DEV_MIGRATION);
	assert_non_null(nest);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_MIGRATION_PROMOTIONS, 5), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_MIGRATION_DEMOTIONS, 40), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_MIGRATION_BYTES_MOVED, 45ULL << 20), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_MIGRATION_IN_FLIGHT, 3), 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_MIGRATION_PACE, "full"), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_MIGRATION_ABOVE_HIGH_MS, 4100), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_MIGRATION_ERRORS, 1), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_MIGRATION_MANUAL_PENDING, 9), 0);
	nla_nest_end(msg, nest);
}

static void check_full_dev(const struct tl_nl_dev *dev, const char *name)
{
	assert_string_equal(dev->name, name);
	assert_string_equal(dev->uuid, "0123456789abcdef0123456789abcdef");
	assert_int_equal(dev->size_bytes, 1ULL << 30);
	assert_int_equal(dev->extent_bytes, 1 << 20);
	assert_int_equal(dev->virt_extents, 1024);
	assert_int_equal(dev->mapped_extents, 300);
	assert_string_equal(dev->metadata_mode, "rw");
	assert_int_equal(dev->commits, 77);
	assert_int_equal(dev->nospc_errors, 2);
	assert_true(dev->has_offline);
	assert_int_equal(dev->offline_queued, 4);
	assert_int_equal(dev->offline_expired, 6);
	assert_true(dev->has_commit_time);
	assert_int_equal(dev->commit_last_us, 1500);
	assert_int_equal(dev->commit_total_us, 90000);
	assert_int_equal(dev->nr_tiers, 2);
	assert_int_equal(dev->tiers[0].index, 0);
	assert_string_equal(dev->tiers[0].device, "nvme0n1");
	assert_string_equal(dev->tiers[0].tier_class, "nvme");
	assert_string_equal(dev->tiers[0].state, "ok");
	assert_int_equal(dev->tiers[0].capacity_extents, 128);
	assert_int_equal(dev->tiers[0].used_extents, 100);
	assert_int_equal(dev->tiers[0].mapped_extents, 99);
	assert_int_equal(dev->tiers[0].read_ios, 1000);
	assert_int_equal(dev->tiers[0].write_ios, 2000);
	assert_int_equal(dev->tiers[0].io_errors, 0);
	assert_int_equal(dev->tiers[1].index, 1);
	assert_string_equal(dev->tiers[1].device, "nvme1n1");
	assert_string_equal(dev->tiers[1].state, "degraded");
	assert_int_equal(dev->tiers[1].capacity_extents, 896);
	assert_int_equal(dev->tiers[1].used_extents, 200);
	assert_int_equal(dev->tiers[1].io_errors, 3);
	assert_false(dev->tiers[0].evacuating);
	assert_true(dev->tiers[1].evacuating);
	assert_true(dev->has_migration);
	assert_int_equal(dev->migration.promotions, 5);
	assert_int_equal(dev->migration.demotions, 40);
	assert_int_equal(dev->migration.bytes_moved, 45ULL << 20);
	assert_int_equal(dev->migration.in_flight, 3);
	assert_string_equal(dev->migration.pace, "full");
	assert_int_equal(dev->migration.above_high_ms, 4100);
	assert_int_equal(dev->migration.errors, 1);
	assert_int_equal(dev->migration.manual_pending, 9);
	assert_int_equal(dev->event, 0);
	assert_false(dev->has_event_tier);
}

/* ---- pure parsing ---- */

static void test_parse_dev_full(void **state)
{
	struct nl_msg *msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	struct tl_nl_dev dev;

	(void)state;
	put_full_dev(msg, "t0");
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), 0);
	check_full_dev(&dev, "t0");
	nlmsg_free(msg);
}

/* The memory tier's nest: index nr_tiers, class mem, DURABLE 0. */
static void put_mem_tier(struct nl_msg *msg, uint32_t index)
{
	struct nlattr *nest = nla_nest_start(msg, DM_TIER_A_DEV_TIERS);

	assert_non_null(nest);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_TIER_INDEX, index), 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_TIER_CLASS, "mem"), 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_TIER_STATE, "ok"), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_TIER_DURABLE, 0), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_TIER_NUMA_NODE, 3), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_MEM_BYTES_MAX, 4ULL << 30), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_MEM_BYTES_USED, 1ULL << 30), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_MEM_COPIES, 1024), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_MEM_HITS, 900), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_MEM_MISSES, 100), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_MEM_FILLS, 1500), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_MEM_EVICTIONS, 476), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_MEM_INVALIDATIONS, 12), 0);
	nla_nest_end(msg, nest);
}

static void test_parse_dev_mem(void **state)
{
	struct nl_msg *msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	struct nlattr *tb[DM_TIER_A_DEV_MAX + 1];
	struct tl_nl_dev dev;
	struct tl_status st;

	(void)state;
	put_full_dev(msg, "m0");
	put_mem_tier(msg, 2);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), 0);
	/* The durable tiers as before; the memory tier on its own. */
	check_full_dev(&dev, "m0");
	assert_true(dev.tiers[0].durable);
	assert_true(dev.mem.present);
	assert_int_equal(dev.mem.node, 3);
	assert_int_equal(dev.mem.bytes_max, 4ULL << 30);
	assert_int_equal(dev.mem.bytes_used, 1ULL << 30);
	assert_int_equal(dev.mem.copies, 1024);
	assert_int_equal(dev.mem.hits, 900);
	assert_int_equal(dev.mem.misses, 100);
	assert_int_equal(dev.mem.fills, 1500);
	assert_int_equal(dev.mem.evictions, 476);
	assert_int_equal(dev.mem.invalidations, 12);
	/* Also when the memory nest is the one @tb kept. */
	assert_int_equal(genlmsg_parse(nlmsg_hdr(msg), 0, tb, DM_TIER_A_DEV_MAX, NULL), 0);
	assert_int_equal(tl_nl_parse_dev(tb, &dev), 0);
	assert_int_equal(dev.nr_tiers, 2);
	assert_true(dev.mem.present);

	/* As struct tl_status, for the one printer. */
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), 0);
	tl_nl_dev_to_status(&dev, &st);
	assert_string_equal(st.metadata_mode, "rw");
	assert_int_equal(st.extent_sectors, 2048);
	assert_int_equal(st.virt_extents, 1024);
	assert_int_equal(st.mapped_extents, 300);
	assert_int_equal(st.nr_tiers, 2);
	assert_string_equal(st.tier[0].tier_class, "nvme");
	assert_string_equal(st.tier[1].state, "degraded");
	assert_int_equal(st.tier[1].total_extents, 896);
	assert_int_equal(st.tier[1].used_extents, 200);
	assert_int_equal(st.tier[1].mapped_extents, 199);
	assert_int_equal(st.tier[1].io_errors, 3);
	assert_true(st.has_io_errors);
	assert_true(st.commit_time.present);
	assert_int_equal(st.commit_time.last_us, 1500);
	assert_int_equal(st.commit_time.total_us, 90000);
	assert_true(st.mig.present);
	assert_string_equal(st.mig.pace, "full");
	assert_int_equal(st.mig.moved_bytes, 45ULL << 20);
	assert_int_equal(st.mig.manual_pending, 9);
	assert_int_equal(st.nospc_errors, 2);
	assert_true(st.mem.present);
	assert_int_equal(st.mem.node, 3);
	assert_int_equal(st.mem.hits, 900);
	nlmsg_free(msg);

	/* Without a memory tier (or from an older module): none. */
	msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	put_full_dev(msg, "m1");
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), 0);
	assert_false(dev.mem.present);
	tl_nl_dev_to_status(&dev, &st);
	assert_false(st.mem.present);
	nlmsg_free(msg);

	/* A memory nest with an index past the durable tiers' limit is fine,
	 * one further is not. */
	msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	put_full_dev(msg, "m2");
	put_mem_tier(msg, TIER_MAX_TIERS + 1);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), -EINVAL);
	nlmsg_free(msg);
}

/* Words the kernel leaves out read as "unknown". */
static void test_dev_to_status_defaults(void **state)
{
	struct tl_nl_dev dev;
	struct tl_status st;

	(void)state;
	memset(&dev, 0, sizeof(dev));
	dev.nr_tiers = 1;
	dev.extent_bytes = 1 << 20;
	tl_nl_dev_to_status(&dev, &st);
	assert_string_equal(st.metadata_mode, "unknown");
	assert_string_equal(st.tier[0].state, "unknown");
	assert_string_equal(st.tier[0].tier_class, "");
	assert_string_equal(st.mig.pace, "unknown");
	assert_false(st.mig.present);
	assert_false(st.mem.present);
	/* An older module: no commit durations. */
	assert_false(st.commit_time.present);
}

static void test_parse_dev_tb(void **state)
{
	struct nl_msg *msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	struct nlattr *tb[DM_TIER_A_DEV_MAX + 1];
	struct tl_nl_dev dev;

	(void)state;
	put_full_dev(msg, "t0");
	assert_int_equal(genlmsg_parse(nlmsg_hdr(msg), 0, tb, DM_TIER_A_DEV_MAX, NULL), 0);
	assert_int_equal(tl_nl_parse_dev(tb, &dev), 0);
	/* Scalars and the nests are all there; of the tiers, @tb has the last. */
	assert_string_equal(dev.name, "t0");
	assert_int_equal(dev.nr_tiers, 2);
	assert_int_equal(dev.tiers[1].capacity_extents, 896);
	assert_true(dev.has_migration);
	assert_int_equal(dev.migration.manual_pending, 9);
	nlmsg_free(msg);
}

static void test_parse_dev_notification(void **state)
{
	struct nl_msg *msg = genl_msg(DM_TIER_CMD_DEV_NTF, 0, 0);
	struct tl_nl_dev dev;

	(void)state;
	put_full_dev(msg, "ckpt");
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_DEV_EVENT,
				     DM_TIER_EVENT_WATERMARK_HIGH), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_DEV_EVENT_TIER, 0), 0);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), 0);
	assert_int_equal(dev.event, DM_TIER_EVENT_WATERMARK_HIGH);
	assert_true(dev.has_event_tier);
	assert_int_equal(dev.event_tier, 0);
	assert_string_equal(tl_nl_event_name(dev.event), "watermark-high");
	nlmsg_free(msg);
}

static void put_move(struct nl_msg *msg, uint32_t id, const char *kind,
		     const char *state, uint64_t left)
{
	struct nlattr *nest = nla_nest_start(msg, DM_TIER_A_DEV_MOVES);

	assert_non_null(nest);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_MOVE_ID, id), 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_MOVE_KIND, kind), 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_MOVE_STATE, state), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_MOVE_RANGE_START, 8 << 20), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_MOVE_RANGE_LEN, 16 << 20), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_MOVE_TARGET_TIER, 1), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_MOVE_DONE_EXTENTS, 16 - left), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_MOVE_LEFT_EXTENTS, left), 0);
	nla_nest_end(msg, nest);
}

/* The move queue (every "moves" nest, in order) and a migration-done's
 * outcome. */
static void test_parse_dev_moves(void **state)
{
	struct nl_msg *msg = genl_msg(DM_TIER_CMD_DEV_NTF, 0, 0);
	struct tl_nl_dev dev;

	(void)state;
	put_full_dev(msg, "ckpt");
	put_move(msg, 7, "migrate", "running", 4);
	put_move(msg, 9, "pin", "queued", 16);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_DEV_EVENT,
				     DM_TIER_EVENT_MIGRATION_DONE), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_DEV_MOVE_ID, 6), 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_MOVE_OUTCOME, "failed"), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_DEV_MOVE_ERRNO, ENOSPC), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_DONE_EXTENTS, 3), 0);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), 0);
	assert_int_equal(dev.nr_moves, 2);
	assert_int_equal(dev.moves[0].id, 7);
	assert_string_equal(dev.moves[0].kind, "migrate");
	assert_string_equal(dev.moves[0].state, "running");
	assert_int_equal(dev.moves[0].left_extents, 4);
	assert_int_equal(dev.moves[0].done_extents, 12);
	assert_int_equal(dev.moves[0].range_start, 8 << 20);
	assert_int_equal(dev.moves[0].range_len, 16 << 20);
	assert_int_equal(dev.moves[0].target_tier, 1);
	assert_int_equal(dev.moves[1].id, 9);
	assert_string_equal(dev.moves[1].kind, "pin");
	assert_int_equal(dev.move_id, 6);
	assert_string_equal(dev.move_outcome, "failed");
	assert_int_equal(dev.move_errno, ENOSPC);
	assert_int_equal(dev.done_extents, 3);
	nlmsg_free(msg);

	/* A moves nest without an id is a broken reply. */
	msg = genl_msg(DM_TIER_CMD_DEV_GET, 0, 0);
	put_full_dev(msg, "ckpt");
	{
		struct nlattr *nest = nla_nest_start(msg, DM_TIER_A_DEV_MOVES);

		assert_int_equal(nla_put_string(msg, DM_TIER_A_MOVE_KIND, "pin"), 0);
		nla_nest_end(msg, nest);
	}
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), -EINVAL);
	nlmsg_free(msg);
}

static void test_parse_dev_missing_optional(void **state)
{
	struct nl_msg *msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	struct tl_nl_dev dev;

	(void)state;
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_NAME, "t1"), 0);
	memset(&dev, 0xa5, sizeof(dev));
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), 0);
	assert_string_equal(dev.name, "t1");
	assert_string_equal(dev.uuid, "");
	assert_string_equal(dev.metadata_mode, "");
	assert_int_equal(dev.size_bytes, 0);
	assert_int_equal(dev.nr_tiers, 0);
	assert_false(dev.has_migration);
	assert_false(dev.has_event_tier);
	assert_int_equal(dev.event, 0);
	nlmsg_free(msg);

	/* Without nr-tiers the tiers themselves say how many. */
	msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_NAME, "t1"), 0);
	put_tier(msg, 0, "a", 10, 5);
	put_tier(msg, 1, "b", 10, 5);
	put_tier(msg, 2, "c", 10, 5);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), 0);
	assert_int_equal(dev.nr_tiers, 3);
	assert_string_equal(dev.tiers[2].device, "c");
	nlmsg_free(msg);

	/* A device without a name is no reply at all. */
	msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_SIZE_BYTES, 1), 0);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), -EINVAL);
	nlmsg_free(msg);
}

static void test_parse_dev_strings(void **state)
{
	char name[200];
	struct nl_msg *msg;
	struct tl_nl_dev dev;

	(void)state;
	/* 127 characters fit the 128-byte name; 128 do not, and are refused. */
	memset(name, 'n', sizeof(name));
	name[127] = '\0';
	msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_NAME, name), 0);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), 0);
	assert_int_equal(strlen(dev.name), 127);
	nlmsg_free(msg);

	name[127] = 'n';
	name[128] = '\0';
	msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_NAME, name), 0);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), -EINVAL);
	nlmsg_free(msg);

	/* An oversized tier device name (device[32]). */
	msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_NAME, "t0"), 0);
	name[40] = '\0';
	put_tier(msg, 0, name, 10, 5);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), -EINVAL);
	nlmsg_free(msg);

	/* A string without its NUL (truncated by the sender) still reads. */
	msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	assert_int_equal(nla_put(msg, DM_TIER_A_DEV_NAME, 5, "abcde"), 0);
	assert_int_equal(nla_put(msg, DM_TIER_A_DEV_METADATA_MODE, 2, "ro"), 0);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), 0);
	assert_string_equal(dev.name, "abcde");
	assert_string_equal(dev.metadata_mode, "ro");
	nlmsg_free(msg);

	/* A u64 cut to 4 bytes is refused, not half read. */
	msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_NAME, "t0"), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_DEV_SIZE_BYTES, 7), 0);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), -EINVAL);
	nlmsg_free(msg);
}

static void test_parse_dev_bad_tiers(void **state)
{
	struct nl_msg *msg;
	struct tl_nl_dev dev;

	(void)state;
	/* A tier index past TIER_MAX_TIERS. */
	msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_NAME, "t0"), 0);
	put_tier(msg, TIER_MAX_TIERS, "x", 10, 5);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), -EINVAL);
	nlmsg_free(msg);

	/* nr-tiers past TIER_MAX_TIERS. */
	msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_NAME, "t0"), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_DEV_NR_TIERS, TIER_MAX_TIERS + 1), 0);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), -EINVAL);
	nlmsg_free(msg);

	/* A tier beyond what nr-tiers announced. */
	msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_NAME, "t0"), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_DEV_NR_TIERS, 1), 0);
	put_tier(msg, 0, "a", 10, 5);
	put_tier(msg, 1, "b", 10, 5);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), -EINVAL);
	nlmsg_free(msg);

	/* A tier nest without its index. */
	msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_NAME, "t0"), 0);
	{
		struct nlattr *nest = nla_nest_start(msg, DM_TIER_A_DEV_TIERS);

		assert_int_equal(nla_put_string(msg, DM_TIER_A_TIER_STATE, "ok"), 0);
		nla_nest_end(msg, nest);
	}
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), -EINVAL);
	nlmsg_free(msg);
}

static void test_parse_dev_unknown_attrs(void **state)
{
	struct nl_msg *msg = genl_msg(DM_TIER_CMD_DEV_GET, 1, 0);
	struct nlattr *nest;
	struct tl_nl_dev dev;

	(void)state;
	/* Attributes a later kernel appends are ignored, at every level. */
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_MAX + 7, 123), 0);
	put_full_dev(msg, "t0");
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_MAX + 1, "future"), 0);
	nest = nla_nest_start(msg, DM_TIER_A_DEV_TIERS);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_TIER_INDEX, 1), 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_TIER_DEVICE, "nvme1n1"), 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_TIER_STATE, "degraded"), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_CAPACITY_EXTENTS, 896), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_USED_EXTENTS, 200), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_IO_ERRORS, 3), 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_TIER_CLASS, "nvme"), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_MAPPED_EXTENTS, 199), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_READ_IOS, 1001), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_TIER_WRITE_IOS, 2001), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_TIER_EVACUATING, 1), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_TIER_MAX + 3, 99), 0);
	nla_nest_end(msg, nest);
	assert_int_equal(tl_nl_parse_dev_msg(nlmsg_hdr(msg), &dev), 0);
	check_full_dev(&dev, "t0");
	nlmsg_free(msg);
}

static void test_policy_round_trip(void **state)
{
	struct tl_nl_policy in = { 0 }, out;
	struct nl_msg *msg = genl_msg(DM_TIER_CMD_POLICY_SET, 1, 0);
	struct nlattr *tb[DM_TIER_A_DEV_MAX + 1];

	(void)state;
	in.set = 1U << 1 | 1U << 2 | 1U << 9;
	in.v[1] = 70;
	in.v[2] = 50;
	in.v[9] = 1;
	in.v[4] = 999;	/* not in @set: must not be sent */
	assert_int_equal(tl_nl_put_policy(msg, &in), 0);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(msg), 0, tb, DM_TIER_A_DEV_MAX, NULL), 0);
	assert_non_null(tb[DM_TIER_A_DEV_POLICY]);
	assert_int_equal(tl_nl_parse_policy(tb[DM_TIER_A_DEV_POLICY], &out), 0);
	assert_int_equal(out.set, in.set);
	assert_int_equal(out.v[1], 70);
	assert_int_equal(out.v[2], 50);
	assert_int_equal(out.v[9], 1);
	assert_int_equal(out.v[4], 0);
	nlmsg_free(msg);

	/* Nothing set: libnl drops the empty nest; a missing one is an error. */
	msg = genl_msg(DM_TIER_CMD_POLICY_SET, 1, 0);
	in.set = 0;
	assert_int_equal(tl_nl_put_policy(msg, &in), 0);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(msg), 0, tb, DM_TIER_A_DEV_MAX, NULL), 0);
	assert_null(tb[DM_TIER_A_DEV_POLICY]);
	assert_int_equal(tl_nl_parse_policy(NULL, &out), -EINVAL);
	nlmsg_free(msg);

	/* A nest that holds only attributes of a later kernel reads as nothing set. */
	msg = genl_msg(DM_TIER_CMD_POLICY_GET, 1, 0);
	{
		struct nlattr *nest = nla_nest_start(msg, DM_TIER_A_DEV_POLICY);

		assert_int_equal(nla_put_u32(msg, DM_TIER_A_POLICY_MAX + 1, 5), 0);
		nla_nest_end(msg, nest);
	}
	assert_int_equal(genlmsg_parse(nlmsg_hdr(msg), 0, tb, DM_TIER_A_DEV_MAX, NULL), 0);
	assert_int_equal(tl_nl_parse_policy(tb[DM_TIER_A_DEV_POLICY], &out), 0);
	assert_int_equal(out.set, 0);
	nlmsg_free(msg);

	/* All ten keys. */
	msg = genl_msg(DM_TIER_CMD_POLICY_SET, 1, 0);
	in.set = (1U << TL_NL_POLICY_N) - 1;
	for (int i = 0; i < TL_NL_POLICY_N; i++)
		in.v[i] = 100 + i;
	assert_int_equal(tl_nl_put_policy(msg, &in), 0);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(msg), 0, tb, DM_TIER_A_DEV_MAX, NULL), 0);
	assert_int_equal(tl_nl_parse_policy(tb[DM_TIER_A_DEV_POLICY], &out), 0);
	assert_memory_equal(&in, &out, sizeof(in));
	nlmsg_free(msg);
}

static void test_policy_keys(void **state)
{
	char longkey[100];

	(void)state;
	assert_int_equal(tl_nl_policy_key("auto_migrate"), 0);
	assert_int_equal(tl_nl_policy_key("high_watermark"),
			 DM_TIER_A_POLICY_HIGH_WATERMARK - 1);
	assert_int_equal(tl_nl_policy_key("high-watermark"),
			 DM_TIER_A_POLICY_HIGH_WATERMARK - 1);
	assert_int_equal(tl_nl_policy_key("migration-inflight"),
			 DM_TIER_A_POLICY_MIGRATION_INFLIGHT - 1);
	assert_int_equal(tl_nl_policy_key("redirect_writes"),
			 DM_TIER_A_POLICY_REDIRECT_WRITES - 1);
	assert_int_equal(tl_nl_policy_key("mem_promote_hits"),
			 DM_TIER_A_POLICY_MEM_PROMOTE_HITS - 1);
	assert_int_equal(tl_nl_policy_key("mem-size-mb"),
			 DM_TIER_A_POLICY_MEM_SIZE_MB - 1);
	assert_int_equal(tl_nl_policy_key("offline-queue-s"),
			 DM_TIER_A_POLICY_OFFLINE_QUEUE_S - 1);
	assert_int_equal(tl_nl_policy_key("High_watermark"), -1);
	assert_int_equal(tl_nl_policy_key("high_watermark="), -1);
	assert_int_equal(tl_nl_policy_key("commit_interval_ms"), -1);
	assert_int_equal(tl_nl_policy_key(""), -1);
	assert_int_equal(tl_nl_policy_key(NULL), -1);
	memset(longkey, 'a', sizeof(longkey) - 1);
	longkey[sizeof(longkey) - 1] = '\0';
	assert_int_equal(tl_nl_policy_key(longkey), -1);
	for (int i = 0; i < TL_NL_POLICY_N; i++)
		assert_int_equal(tl_nl_policy_key(tl_nl_policy_keys[i]), i);
}

static void put_extent(struct nl_msg *msg, uint64_t index, uint32_t tier,
		       bool pinned)
{
	struct nlattr *nest = nla_nest_start(msg, DM_TIER_A_DEV_EXTENTS);

	assert_int_equal(nla_put_u64(msg, DM_TIER_A_EXTENT_INDEX, index), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_EXTENT_TIER, tier), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_EXTENT_HEAT, 7), 0);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_EXTENT_ATIME, 1234), 0);
	if (pinned)
		assert_int_equal(nla_put_flag(msg, DM_TIER_A_EXTENT_PINNED), 0);
	nla_nest_end(msg, nest);
}

static void test_parse_extent(void **state)
{
	struct nl_msg *msg = genl_msg(DM_TIER_CMD_EXTENT_DUMP, 1, 0);
	struct nlattr *tb[DM_TIER_A_DEV_MAX + 1], *nest;
	struct tl_nl_extent ext;

	(void)state;
	put_extent(msg, 1ULL << 40, 1, true);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(msg), 0, tb, DM_TIER_A_DEV_MAX, NULL), 0);
	assert_int_equal(tl_nl_parse_extent(tb[DM_TIER_A_DEV_EXTENTS], &ext), 0);
	assert_int_equal(ext.index, 1ULL << 40);
	assert_int_equal(ext.tier, 1);
	assert_int_equal(ext.heat, 7);
	assert_int_equal(ext.atime, 1234);
	assert_true(ext.pinned);
	assert_false(ext.busy);
	nlmsg_free(msg);

	/* Without a tier an extent says nothing. */
	msg = genl_msg(DM_TIER_CMD_EXTENT_DUMP, 1, 0);
	nest = nla_nest_start(msg, DM_TIER_A_DEV_EXTENTS);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_EXTENT_INDEX, 3), 0);
	assert_int_equal(nla_put_flag(msg, DM_TIER_A_EXTENT_BUSY), 0);
	nla_nest_end(msg, nest);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(msg), 0, tb, DM_TIER_A_DEV_MAX, NULL), 0);
	assert_int_equal(tl_nl_parse_extent(tb[DM_TIER_A_DEV_EXTENTS], &ext), -EINVAL);
	assert_int_equal(tl_nl_parse_extent(NULL, &ext), -EINVAL);
	nlmsg_free(msg);
}

static void test_event_names(void **state)
{
	(void)state;
	assert_string_equal(tl_nl_event_name(DM_TIER_EVENT_DEV_NEW), "dev-new");
	assert_string_equal(tl_nl_event_name(DM_TIER_EVENT_MIGRATION_DONE), "migration-done");
	assert_string_equal(tl_nl_event_name(DM_TIER_EVENT_NEAR_FULL), "near-full");
	assert_string_equal(tl_nl_event_name(0), "unknown");
	assert_string_equal(tl_nl_event_name(1000), "unknown");
}

/* ---- the socket calls, mocked ---- */

static int mock_family = FAMILY;
/* The last request sent (a copy) and the replies queued for it. */
static struct nl_msg *sent;
static struct nl_msg *replies[16];
static int nr_replies, next_reply;
/* Hand out all queued replies in one receive buffer (as one datagram may). */
static bool batch;
static int mock_grp = 7;
/* Called with each request to queue its replies. */
static void (*respond)(const struct nlmsghdr *req);

int __wrap_genl_connect(struct nl_sock *sk);
int __wrap_genl_connect(struct nl_sock *sk)
{
	return 0;
}

int __wrap_genl_ctrl_resolve(struct nl_sock *sk, const char *name);
int __wrap_genl_ctrl_resolve(struct nl_sock *sk, const char *name)
{
	assert_string_equal(name, DM_TIER_FAMILY_NAME);
	return mock_family;
}

int __wrap_nl_send_auto(struct nl_sock *sk, struct nl_msg *msg);
int __wrap_nl_send_auto(struct nl_sock *sk, struct nl_msg *msg)
{
	nl_complete_msg(sk, msg);	/* sequence number, flags: as the real one */
	nlmsg_free(sent);
	sent = nlmsg_convert(nlmsg_hdr(msg));
	assert_non_null(sent);
	if (respond)
		respond(nlmsg_hdr(sent));
	return nlmsg_hdr(msg)->nlmsg_len;
}

static void queue(struct nl_msg *msg)
{
	assert_true(nr_replies < (int)ARRAY_SIZE(replies));
	replies[nr_replies++] = msg;
}

/* libnl's receive, replaced: hands out one queued reply per call. */
static int fake_recv(struct nl_sock *sk, struct sockaddr_nl *nla,
		     unsigned char **buf, struct ucred **creds)
{
	struct nlmsghdr *nlh;
	int len;

	if (next_reply >= nr_replies)
		return 0;
	if (batch) {
		int i, off = 0;

		for (len = 0, i = next_reply; i < nr_replies; i++)
			len += NLMSG_ALIGN(nlmsg_hdr(replies[i])->nlmsg_len);
		*buf = calloc(1, len);
		assert_non_null(*buf);
		for (; next_reply < nr_replies; next_reply++) {
			nlh = nlmsg_hdr(replies[next_reply]);
			memcpy(*buf + off, nlh, nlh->nlmsg_len);
			off += NLMSG_ALIGN(nlh->nlmsg_len);
			nlmsg_free(replies[next_reply]);
			replies[next_reply] = NULL;
		}
		memset(nla, 0, sizeof(*nla));
		nla->nl_family = AF_NETLINK;
		return len;
	}
	nlh = nlmsg_hdr(replies[next_reply]);
	len = nlh->nlmsg_len;
	*buf = malloc(len);
	assert_non_null(*buf);
	memcpy(*buf, nlh, len);
	memset(nla, 0, sizeof(*nla));
	nla->nl_family = AF_NETLINK;
	nlmsg_free(replies[next_reply]);
	replies[next_reply++] = NULL;
	return len;
}

int __wrap_genl_ctrl_resolve_grp(struct nl_sock *sk, const char *family,
				  const char *grp);
int __wrap_genl_ctrl_resolve_grp(struct nl_sock *sk, const char *family,
				  const char *grp)
{
	assert_string_equal(family, DM_TIER_FAMILY_NAME);
	assert_string_equal(grp, DM_TIER_MCGRP_MONITOR);
	return mock_grp;
}

int __wrap_nl_socket_add_membership(struct nl_sock *sk, int group);
int __wrap_nl_socket_add_membership(struct nl_sock *sk, int group)
{
	assert_int_equal(group, mock_grp);
	return 0;
}

/* The mocked socket has no fd: readable while replies are queued. */
int __real_poll(struct pollfd *fds, nfds_t n, int timeout);
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout);
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	if (n != 1 || fds[0].fd >= 0)
		return __real_poll(fds, n, timeout);
	fds[0].revents = next_reply < nr_replies ? POLLIN : 0;
	return next_reply < nr_replies;
}

int __real_nl_recvmsgs_report(struct nl_sock *sk, struct nl_cb *cb);
int __wrap_nl_recvmsgs_report(struct nl_sock *sk, struct nl_cb *cb);
int __wrap_nl_recvmsgs_report(struct nl_sock *sk, struct nl_cb *cb)
{
	nl_cb_overwrite_recv(cb, fake_recv);
	return __real_nl_recvmsgs_report(sk, cb);
}

static int mock_setup(void **state)
{
	mock_family = FAMILY;
	mock_grp = 7;
	batch = false;
	respond = NULL;
	nr_replies = next_reply = 0;
	return 0;
}

static int mock_teardown(void **state)
{
	while (next_reply < nr_replies)
		nlmsg_free(replies[next_reply++]);
	nlmsg_free(sent);
	sent = NULL;
	return 0;
}

/* NLMSG_ERROR for @req: @error (0: an ACK) and, if given, an extack message. */
static struct nl_msg *error_reply(const struct nlmsghdr *req, int error,
				  const char *extack)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_ERROR,
						NLM_F_CAPPED | (extack ? NLM_F_ACK_TLVS : 0));
	struct nlmsgerr e = { .error = error, .msg = *req };

	assert_non_null(msg);
	nlmsg_hdr(msg)->nlmsg_seq = req->nlmsg_seq;
	assert_int_equal(nlmsg_append(msg, &e, sizeof(e), NLMSG_ALIGNTO), 0);
	if (extack)
		assert_int_equal(nla_put_string(msg, NLMSGERR_ATTR_MSG, extack), 0);
	return msg;
}

/* NLMSG_DONE ending a dump, with @error and an optional extack. */
static struct nl_msg *done_reply(const struct nlmsghdr *req, int error,
				 const char *extack)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_DONE,
						NLM_F_MULTI | (extack ? NLM_F_ACK_TLVS : 0));

	assert_non_null(msg);
	nlmsg_hdr(msg)->nlmsg_seq = req->nlmsg_seq;
	assert_int_equal(nlmsg_append(msg, &error, sizeof(error), NLMSG_ALIGNTO), 0);
	if (extack)
		assert_int_equal(nla_put_string(msg, NLMSGERR_ATTR_MSG, extack), 0);
	return msg;
}

static struct tl_nl *open_ok(void)
{
	struct tl_err err = { "" };
	struct tl_nl *nl;


	assert_int_equal(tl_nl_open(&nl, &err), TL_OK);
	assert_non_null(nl);
	return nl;
}

static void test_family_missing(void **state)
{
	struct tl_err err = { "" };
	struct tl_nl *nl = (void *)1;

	mock_family = -NLE_OBJ_NOTFOUND;
	assert_int_equal(tl_nl_open(&nl, &err), TL_NOFEATURE);
	assert_null(nl);
	assert_non_null(strstr(err.msg, "the dm-tier module is not loaded or too old for this command: modprobe dm-tier"));

	mock_family = -NLE_NOMEM;
	assert_int_equal(tl_nl_open(&nl, &err), TL_FAIL);
	assert_null(strstr(err.msg, "modprobe"));
}

static const char *extack_text = "high_watermark (40) must be above low_watermark (60)";

static void respond_einval_extack(const struct nlmsghdr *req)
{
	queue(error_reply(req, -EINVAL, extack_text));
}

static void test_extack_reaches_err(void **state)
{
	struct tl_nl_policy in = { .set = 1U << 1, .v = { [1] = 40 } }, out;
	struct nlattr *tb[DM_TIER_A_DEV_MAX + 1];
	struct tl_nl_policy sent_pol;
	struct tl_err err = { "" };
	struct tl_nl *nl = open_ok();

	respond = respond_einval_extack;
	assert_int_equal(tl_nl_policy_set(nl, "t0", &in, &out, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, extack_text));
	assert_non_null(strstr(err.msg, "t0"));
	assert_int_equal(tl_nl_last_error(nl), -EINVAL);

	/* What went out: policy-set for t0 with just high_watermark=40. */
	assert_int_equal(((struct genlmsghdr *)nlmsg_data(nlmsg_hdr(sent)))->cmd,
			 DM_TIER_CMD_POLICY_SET);
	assert_int_equal(nlmsg_hdr(sent)->nlmsg_type, FAMILY);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(sent), 0, tb, DM_TIER_A_DEV_MAX, NULL), 0);
	assert_string_equal(nla_get_string(tb[DM_TIER_A_DEV_NAME]), "t0");
	assert_int_equal(tl_nl_parse_policy(tb[DM_TIER_A_DEV_POLICY], &sent_pol), 0);
	assert_int_equal(sent_pol.set, 1U << 1);
	assert_int_equal(sent_pol.v[1], 40);
	tl_nl_close(nl);
}

/* Uncapped error: the request is echoed before the extack TLVs. */
static void respond_uncapped(const struct nlmsghdr *req)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_ERROR, NLM_F_ACK_TLVS);
	struct nlmsgerr e = { .error = -ERANGE, .msg = *req };

	nlmsg_hdr(msg)->nlmsg_seq = req->nlmsg_seq;
	assert_int_equal(nlmsg_append(msg, &e, sizeof(e), NLMSG_ALIGNTO), 0);
	assert_int_equal(nlmsg_append(msg, (char *)nlmsg_data(req),
				      req->nlmsg_len - NLMSG_HDRLEN, NLMSG_ALIGNTO), 0);
	assert_int_equal(nla_put_string(msg, NLMSGERR_ATTR_MSG, "tier 5 does not exist"), 0);
	queue(msg);
}

static void test_extack_uncapped(void **state)
{
	struct tl_err err = { "" };
	struct tl_nl *nl = open_ok();
	uint64_t done = 99;

	respond = respond_uncapped;
	assert_int_equal(tl_nl_migrate(nl, "t0", 0, 1 << 20, 5, &done, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "tier 5 does not exist"));
	assert_int_equal(done, 99);	/* untouched on failure */
	tl_nl_close(nl);
}

static int reply_errno;

static void respond_errno(const struct nlmsghdr *req)
{
	queue(error_reply(req, -reply_errno, NULL));
}

static void test_error_mapping(void **state)
{
	struct tl_nl_policy pol;
	struct tl_err err = { "" };
	struct tl_nl *nl = open_ok();

	respond = respond_errno;
	reply_errno = ENOENT;
	assert_int_equal(tl_nl_policy_get(nl, "nosuch", &pol, &err), TL_USAGE);
	assert_non_null(strstr(err.msg, "no active dm-tier device named 'nosuch'"));

	reply_errno = EPERM;
	assert_int_equal(tl_nl_policy_set(nl, "t0", &pol, NULL, &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "needs CAP_SYS_ADMIN (run as root)"));
	assert_int_equal(tl_nl_last_error(nl), -EPERM);

	reply_errno = EOPNOTSUPP;
	assert_int_equal(tl_nl_tier_recover(nl, "t0", 1, &err), TL_NOFEATURE);
	assert_non_null(strstr(err.msg, "modprobe dm-tier"));

	reply_errno = EBUSY;
	assert_int_equal(tl_nl_pin(nl, "t0", 0, 4096, 0, NULL, &err), TL_FAIL);
	assert_int_equal(tl_nl_last_error(nl), -EBUSY);
	assert_non_null(strstr(err.msg, "retry"));
	/* A full move queue: the hint names the queue and cancel. */
	assert_non_null(strstr(err.msg, "'tierctl cancel t0 ID'"));
	assert_int_equal(tl_nl_last_move_id(nl), 0);

	/* move-cancel of an id not queued. */
	reply_errno = ENOENT;
	assert_int_equal(tl_nl_move_cancel(nl, "t0", 5, &err), TL_USAGE);
	assert_int_equal(((struct genlmsghdr *)nlmsg_data(nlmsg_hdr(sent)))->cmd,
			 DM_TIER_CMD_MOVE_CANCEL);

	reply_errno = EIO;
	assert_int_equal(tl_nl_unpin(nl, "t0", 0, 4096, NULL, &err), TL_FAIL);
	assert_non_null(strstr(err.msg, strerror(EIO)));

	/* Refused before anything is sent. */
	assert_int_equal(tl_nl_migrate(nl, "t0", 0, 0, 1, NULL, &err), TL_USAGE);
	assert_int_equal(tl_nl_policy_get(nl, "", &pol, &err), TL_USAGE);
	tl_nl_close(nl);
}

static void respond_dev(const struct nlmsghdr *req)
{
	struct nl_msg *msg = genl_msg(DM_TIER_CMD_DEV_GET, req->nlmsg_seq, 0);

	put_full_dev(msg, "t0");
	queue(msg);
	queue(error_reply(req, 0, NULL));
}

static void test_dev_get(void **state)
{
	struct tl_err err = { "" };
	struct tl_nl *nl = open_ok();
	struct tl_nl_dev dev;

	respond = respond_dev;
	assert_int_equal(tl_nl_dev_get(nl, "t0", &dev, &err), TL_OK);
	check_full_dev(&dev, "t0");
	assert_true(nlmsg_hdr(sent)->nlmsg_flags & NLM_F_ACK);
	assert_false(nlmsg_hdr(sent)->nlmsg_flags & NLM_F_DUMP);
	tl_nl_close(nl);
}

static void respond_list(const struct nlmsghdr *req)
{
	struct nl_msg *msg;

	assert_true(req->nlmsg_flags & NLM_F_DUMP);
	msg = genl_msg(DM_TIER_CMD_DEV_GET, req->nlmsg_seq, NLM_F_MULTI);
	put_full_dev(msg, "a");
	queue(msg);
	msg = genl_msg(DM_TIER_CMD_DEV_GET, req->nlmsg_seq, NLM_F_MULTI);
	put_full_dev(msg, "b");
	queue(msg);
	queue(done_reply(req, 0, NULL));
}

static int count_devs(const struct tl_nl_dev *dev, void *arg)
{
	int *n = arg;

	check_full_dev(dev, *n ? "b" : "a");
	(*n)++;
	return 0;
}

static int stop_at_first(const struct tl_nl_dev *dev, void *arg)
{
	(*(int *)arg)++;
	return 7;
}

static void test_dev_list(void **state)
{
	struct tl_err err = { "" };
	struct tl_nl *nl = open_ok();
	struct tl_nl_dev dev;
	int n = 0;

	respond = respond_list;
	assert_int_equal(tl_nl_dev_list(nl, count_devs, &n, &err), TL_OK);
	assert_int_equal(n, 2);

	/* The callback's non-zero return stops it; the socket stays in step. */
	n = 0;
	assert_int_equal(tl_nl_dev_list(nl, stop_at_first, &n, &err), 7);
	assert_int_equal(n, 1);
	respond = respond_dev;
	assert_int_equal(tl_nl_dev_get(nl, "t0", &dev, &err), TL_OK);
	tl_nl_close(nl);
}

static void respond_dump_error(const struct nlmsghdr *req)
{
	queue(done_reply(req, -ENOENT, "no dm-tier device 'gone'"));
}

static void test_dump_error_in_done(void **state)
{
	struct tl_err err = { "" };
	struct tl_nl *nl = open_ok();

	respond = respond_dump_error;
	assert_int_equal(tl_nl_extent_dump(nl, "gone", 0, 0, NULL, NULL, &err),
			 TL_USAGE);
	assert_non_null(strstr(err.msg, "no dm-tier device 'gone'"));
	tl_nl_close(nl);
}

static void respond_done_extents(const struct nlmsghdr *req)
{
	struct nlattr *tb[DM_TIER_A_DEV_MAX + 1];
	struct nl_msg *msg;

	assert_int_equal(genlmsg_parse((struct nlmsghdr *)req, 0, tb,
				       DM_TIER_A_DEV_MAX, NULL), 0);
	assert_non_null(tb[DM_TIER_A_DEV_RANGE_START]);
	assert_non_null(tb[DM_TIER_A_DEV_RANGE_LEN]);
	msg = genl_msg(DM_TIER_CMD_MIGRATE, req->nlmsg_seq, 0);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_NAME, "t0"), 0);
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_DONE_EXTENTS,
				     nla_get_u64(tb[DM_TIER_A_DEV_RANGE_LEN]) >> 20), 0);
	/* A move was queued: its id (the range's length in MiB + 100). */
	if (tb[DM_TIER_A_DEV_TARGET_TIER])
		assert_int_equal(nla_put_u32(msg, DM_TIER_A_DEV_MOVE_ID,
					     100 + (nla_get_u64(tb[DM_TIER_A_DEV_RANGE_LEN]) >> 20)), 0);
	queue(msg);
	queue(error_reply(req, 0, NULL));
}

static void test_range_requests(void **state)
{
	struct nlattr *tb[DM_TIER_A_DEV_MAX + 1];
	struct tl_err err = { "" };
	struct tl_nl *nl = open_ok();
	uint64_t done = 0;

	respond = respond_done_extents;
	assert_int_equal(tl_nl_migrate(nl, "t0", 10 << 20, 64 << 20, 1, &done, &err), TL_OK);
	assert_int_equal(done, 64);
	assert_int_equal(tl_nl_last_move_id(nl), 164);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(sent), 0, tb, DM_TIER_A_DEV_MAX, NULL), 0);
	assert_int_equal(nla_get_u64(tb[DM_TIER_A_DEV_RANGE_START]), 10 << 20);
	assert_int_equal(nla_get_u32(tb[DM_TIER_A_DEV_TARGET_TIER]), 1);

	/* pin without a tier: no target-tier attribute. */
	assert_int_equal(tl_nl_pin(nl, "t0", 0, 2 << 20, -1, &done, &err), TL_OK);
	assert_int_equal(done, 2);
	assert_int_equal(tl_nl_last_move_id(nl), 0);	/* nothing queued */
	assert_int_equal(((struct genlmsghdr *)nlmsg_data(nlmsg_hdr(sent)))->cmd,
			 DM_TIER_CMD_PIN);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(sent), 0, tb, DM_TIER_A_DEV_MAX, NULL), 0);
	assert_null(tb[DM_TIER_A_DEV_TARGET_TIER]);

	assert_int_equal(tl_nl_pin(nl, "t0", 0, 3 << 20, 0, &done, &err), TL_OK);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(sent), 0, tb, DM_TIER_A_DEV_MAX, NULL), 0);
	assert_int_equal(nla_get_u32(tb[DM_TIER_A_DEV_TARGET_TIER]), 0);
	assert_int_equal(tl_nl_last_move_id(nl), 103);

	assert_int_equal(tl_nl_unpin(nl, "t0", 0, 5 << 20, &done, &err), TL_OK);
	assert_int_equal(done, 5);
	tl_nl_close(nl);
}

static void respond_extents(const struct nlmsghdr *req)
{
	struct nl_msg *msg = genl_msg(DM_TIER_CMD_EXTENT_DUMP, req->nlmsg_seq,
				      NLM_F_MULTI);

	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_NAME, "t0"), 0);
	put_extent(msg, 0, 0, true);
	put_extent(msg, 1, 1, false);
	queue(msg);
	msg = genl_msg(DM_TIER_CMD_EXTENT_DUMP, req->nlmsg_seq, NLM_F_MULTI);
	assert_int_equal(nla_put_string(msg, DM_TIER_A_DEV_NAME, "t0"), 0);
	put_extent(msg, 5, 1, false);
	queue(msg);
	queue(done_reply(req, 0, NULL));
}

static int collect_extent(const struct tl_nl_extent *e, void *arg)
{
	struct tl_nl_extent *v = arg;
	int i = 0;

	while (v[i].heat)
		i++;
	v[i] = *e;
	return 0;
}

static void test_extent_dump(void **state)
{
	struct tl_nl_extent v[8] = { { 0 } };
	struct tl_err err = { "" };
	struct tl_nl *nl = open_ok();

	respond = respond_extents;
	assert_int_equal(tl_nl_extent_dump(nl, "t0", 0, 0, collect_extent, v, &err), TL_OK);
	assert_int_equal(v[0].index, 0);
	assert_true(v[0].pinned);
	assert_int_equal(v[1].index, 1);
	assert_int_equal(v[1].tier, 1);
	assert_int_equal(v[2].index, 5);
	assert_int_equal(v[3].heat, 0);
	tl_nl_close(nl);
}

static void respond_bad(const struct nlmsghdr *req)
{
	struct nl_msg *msg = genl_msg(DM_TIER_CMD_DEV_GET, req->nlmsg_seq, 0);

	/* No name: a reply tierctl cannot use. */
	assert_int_equal(nla_put_u64(msg, DM_TIER_A_DEV_SIZE_BYTES, 1), 0);
	queue(msg);
	queue(error_reply(req, 0, NULL));
}

static void test_bad_reply(void **state)
{
	struct tl_err err = { "" };
	struct tl_nl *nl = open_ok();
	struct tl_nl_dev dev;

	respond = respond_bad;
	assert_int_equal(tl_nl_dev_get(nl, "t0", &dev, &err), TL_FAIL);
	assert_non_null(strstr(err.msg, "same version"));
	/* No reply at all: the socket closing is an error, not a hang. */
	respond = NULL;
	assert_int_equal(tl_nl_dev_get(nl, "t0", &dev, &err), TL_FAIL);
	tl_nl_close(nl);
}

static struct nl_msg *notification(const char *name, uint32_t event,
				   int event_tier)
{
	struct nl_msg *msg = genl_msg(DM_TIER_CMD_DEV_NTF, 0, 0);

	put_full_dev(msg, name);
	assert_int_equal(nla_put_u32(msg, DM_TIER_A_DEV_EVENT, event), 0);
	if (event_tier >= 0)
		assert_int_equal(nla_put_u32(msg, DM_TIER_A_DEV_EVENT_TIER, event_tier), 0);
	return msg;
}

static void test_monitor_events(void **state)
{
	struct tl_err err = { "" };
	struct tl_nl *nl = open_ok();
	struct tl_nl_dev ev;

	/* Not joined yet: refused. */
	assert_int_equal(tl_nl_next_event(nl, &ev, 0, &err), TL_FAIL);
	assert_int_equal(tl_nl_monitor(nl, &err), TL_OK);
	queue(notification("t0", DM_TIER_EVENT_WATERMARK_HIGH, 0));
	queue(notification("t1", DM_TIER_EVENT_MODE_CHANGE, -1));
	assert_int_equal(tl_nl_next_event(nl, &ev, 1000, &err), TL_OK);
	assert_string_equal(ev.name, "t0");
	assert_int_equal(ev.nr_tiers, 2);
	assert_int_equal(ev.tiers[1].capacity_extents, 896);
	assert_string_equal(ev.migration.pace, "full");
	assert_int_equal(ev.event, DM_TIER_EVENT_WATERMARK_HIGH);
	assert_true(ev.has_event_tier);
	assert_int_equal(ev.event_tier, 0);
	assert_int_equal(tl_nl_next_event(nl, &ev, 1000, &err), TL_OK);
	assert_string_equal(ev.name, "t1");
	assert_int_equal(ev.event, DM_TIER_EVENT_MODE_CHANGE);
	assert_false(ev.has_event_tier);
	assert_int_equal(tl_nl_next_event(nl, &ev, 10, &err), TL_NL_TIMEOUT);

	/* Several in one datagram: none lost, in order; other commands skipped. */
	batch = true;
	queue(notification("a", DM_TIER_EVENT_DEV_NEW, -1));
	queue(genl_msg(DM_TIER_CMD_DEV_GET, 0, 0));
	for (int i = 0; i < 9; i++)
		queue(notification("b", DM_TIER_EVENT_MIGRATION_DONE, -1));
	queue(notification("c", DM_TIER_EVENT_NEAR_FULL, 1));
	assert_int_equal(tl_nl_next_event(nl, &ev, 1000, &err), TL_OK);
	assert_string_equal(ev.name, "a");
	for (int i = 0; i < 9; i++) {
		assert_int_equal(tl_nl_next_event(nl, &ev, 1000, &err), TL_OK);
		assert_string_equal(ev.name, "b");
	}
	assert_int_equal(tl_nl_next_event(nl, &ev, 1000, &err), TL_OK);
	assert_string_equal(ev.name, "c");
	assert_int_equal(ev.event_tier, 1);
	assert_int_equal(tl_nl_next_event(nl, &ev, 0, &err), TL_NL_TIMEOUT);

	/* A socket that listens is not used for requests. */
	assert_int_equal(tl_nl_dev_get(nl, "t0", &ev, &err), TL_FAIL);
	tl_nl_close(nl);

	nl = open_ok();
	mock_grp = -NLE_OBJ_NOTFOUND;
	assert_int_equal(tl_nl_monitor(nl, &err), TL_NOFEATURE);
	assert_non_null(strstr(err.msg, "modprobe dm-tier"));
	tl_nl_close(nl);
}

#define MOCKED(t) cmocka_unit_test_setup_teardown(t, mock_setup, mock_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_dev_full),
		cmocka_unit_test(test_parse_dev_tb),
		cmocka_unit_test(test_parse_dev_mem),
		cmocka_unit_test(test_dev_to_status_defaults),
		cmocka_unit_test(test_parse_dev_notification),
		cmocka_unit_test(test_parse_dev_missing_optional),
		cmocka_unit_test(test_parse_dev_strings),
		cmocka_unit_test(test_parse_dev_bad_tiers),
		cmocka_unit_test(test_parse_dev_unknown_attrs),
		cmocka_unit_test(test_parse_dev_moves),
		cmocka_unit_test(test_policy_round_trip),
		cmocka_unit_test(test_policy_keys),
		cmocka_unit_test(test_parse_extent),
		cmocka_unit_test(test_event_names),
		MOCKED(test_family_missing),
		MOCKED(test_extack_reaches_err),
		MOCKED(test_extack_uncapped),
		MOCKED(test_error_mapping),
		MOCKED(test_dev_get),
		MOCKED(test_dev_list),
		MOCKED(test_dump_error_in_done),
		MOCKED(test_range_requests),
		MOCKED(test_extent_dump),
		MOCKED(test_bad_reply),
		MOCKED(test_monitor_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
