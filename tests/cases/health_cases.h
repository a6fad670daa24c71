/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cases for kernel/core/health.c: the tier health and metadata mode state
 * machines (docs/ARCHITECTURE.md "Faults"). Run by tests/unit/test_health.c
 * (cmocka) and tests/kunit/health_kunit.c (KUnit); see case.h.
 */
#include "case.h"
#include "health.h"

struct health_case {
	enum tier_health cur;
	enum tier_health_event ev;
	u32 run;
	bool meta;
	enum tier_health next;
};

#define OK TIER_HEALTH_OK
#define DEG TIER_HEALTH_DEGRADED
#define OFF TIER_HEALTH_OFFLINE

static const struct health_case health_cases[] = {
	/* A medium error degrades; errors in a row take a data tier offline. */
	{ OK, TIER_HEV_IO_ERROR, 1, false, DEG },
	{ DEG, TIER_HEV_IO_ERROR, 2, false, DEG },
	{ DEG, TIER_HEV_IO_ERROR, TIER_OFFLINE_ERRORS - 1, false, DEG },
	{ DEG, TIER_HEV_IO_ERROR, TIER_OFFLINE_ERRORS, false, OFF },
	{ OK, TIER_HEV_IO_ERROR, TIER_OFFLINE_ERRORS, false, OFF },
	{ OFF, TIER_HEV_IO_ERROR, 1, false, OFF },
	/* A lost path or a failed flush: offline at once. */
	{ OK, TIER_HEV_PATH_ERROR, 1, false, OFF },
	{ DEG, TIER_HEV_PATH_ERROR, 1, false, OFF },
	{ OK, TIER_HEV_FLUSH_ERROR, 0, false, OFF },
	{ DEG, TIER_HEV_FLUSH_ERROR, 0, false, OFF },
	/* The metadata tier is never offline: the metadata mode handles it. */
	{ OK, TIER_HEV_PATH_ERROR, 1, true, DEG },
	{ OK, TIER_HEV_FLUSH_ERROR, 0, true, DEG },
	{ DEG, TIER_HEV_IO_ERROR, TIER_OFFLINE_ERRORS * 2, true, DEG },
	/* Only a successful probe recovers, always to ok. */
	{ OFF, TIER_HEV_RECOVERED, 0, false, OK },
	{ DEG, TIER_HEV_RECOVERED, 0, false, OK },
	{ OK, TIER_HEV_RECOVERED, 0, false, OK },
	{ DEG, TIER_HEV_RECOVERED, 0, true, OK },
};

static void health_case_desc(const struct health_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s ev %d run %u%s -> %s",
		 tier_health_name(c->cur), (int)c->ev, c->run,
		 c->meta ? " meta" : "", tier_health_name(c->next));
}

CASE_PARAMS(health, health_cases, health_case_desc);

static void tier_health_next_test(CASE_CTX)
{
	const struct health_case *c = CASE_PARAM;

	CASE_EQ(tier_health_next(c->cur, c->ev, c->run, c->meta), c->next);
}

static void tier_health_name_test(CASE_CTX)
{
	CASE_STREQ(tier_health_name(OK), "ok");
	CASE_STREQ(tier_health_name(DEG), "degraded");
	CASE_STREQ(tier_health_name(OFF), "offline");
}

#undef OK
#undef DEG
#undef OFF

struct mode_case {
	enum tier_md_mode cur;
	enum tier_md_event ev;
	u32 fails;
	u32 secs;
	enum tier_md_mode next;
};

#define RW TIER_MODE_WRITE
#define RO TIER_MODE_READ_ONLY
#define FAIL TIER_MODE_FAIL

static const struct mode_case mode_cases[] = {
	{ RW, TIER_MDEV_COMMIT_OK, 0, 0, RW },
	{ RW, TIER_MDEV_COMMIT_FAIL, 1, 0, RO },
	/* A retried commit that succeeds: back to rw. */
	{ RO, TIER_MDEV_COMMIT_OK, 0, 0, RW },
	/* Repeated failures: fail only when many and long. */
	{ RO, TIER_MDEV_COMMIT_FAIL, 2, 1, RO },
	{ RO, TIER_MDEV_COMMIT_FAIL, TIER_MD_FAIL_COMMITS, 1, RO },
	{ RO, TIER_MDEV_COMMIT_FAIL, 1000, TIER_MD_FAIL_SECS - 1, RO },
	{ RO, TIER_MDEV_COMMIT_FAIL, TIER_MD_FAIL_COMMITS - 1, 3600, RO },
	{ RO, TIER_MDEV_COMMIT_FAIL, TIER_MD_FAIL_COMMITS, TIER_MD_FAIL_SECS,
	  FAIL },
	/* Suspend in ro never escalates; in rw it still goes ro. */
	{ RO, TIER_MDEV_COMMIT_FAIL_QUIET, 1000, 3600, RO },
	{ RW, TIER_MDEV_COMMIT_FAIL_QUIET, 1, 0, RO },
	/* fail is kept until a reload. */
	{ FAIL, TIER_MDEV_COMMIT_OK, 0, 0, FAIL },
	{ FAIL, TIER_MDEV_COMMIT_FAIL, 1, 0, FAIL },
};

static void mode_case_desc(const struct mode_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "mode %d ev %d fails %u secs %u -> %d",
		 (int)c->cur, (int)c->ev, c->fails, c->secs, (int)c->next);
}

CASE_PARAMS(mode, mode_cases, mode_case_desc);

static void tier_md_mode_next_test(CASE_CTX)
{
	const struct mode_case *c = CASE_PARAM;

	CASE_EQ(tier_md_mode_next(c->cur, c->ev, c->fails, c->secs), c->next);
}

#undef RW
#undef RO
#undef FAIL

/* offline_queue_s: may a write wait, until when, and what then. */
static void tier_offq_may_park_test(CASE_CTX)
{
	CASE_FALSE(tier_offq_may_park(0, false)); /* default: EIO at once */
	CASE_TRUE(tier_offq_may_park(1, false));
	CASE_TRUE(tier_offq_may_park(TIER_OFFQ_S_MAX, false));
	/* Suspending or going away: never park. */
	CASE_FALSE(tier_offq_may_park(20, true));
	CASE_FALSE(tier_offq_may_park(0, true));
}

static void tier_offq_deadline_test(CASE_CTX)
{
	CASE_EQ(tier_offq_deadline(1000, 3, 250), 1750ULL);
	CASE_EQ(tier_offq_deadline(0, 20, 1000), 20000ULL);
	CASE_EQ(tier_offq_deadline(5, TIER_OFFQ_S_MAX, 1000),
		5ULL + TIER_OFFQ_S_MAX * 1000ULL);
	/* Never 0 ("not parked"), never now. */
	CASE_EQ(tier_offq_deadline(0, 0, 1000), 1ULL);
	/* 64-bit clock: no overflow near 32-bit wrap. */
	CASE_EQ(tier_offq_deadline(0xfffffff0ULL, 600, 1000),
		0xfffffff0ULL + 600000ULL);
}

static void tier_offq_next_test(CASE_CTX)
{
	/* Waiting while offline and before the deadline. */
	CASE_EQ(tier_offq_next(true, false, 100, 200), TIER_OFFQ_WAIT);
	CASE_EQ(tier_offq_next(true, false, 199, 200), TIER_OFFQ_WAIT);
	/* The deadline passed: EIO. */
	CASE_EQ(tier_offq_next(true, false, 200, 200), TIER_OFFQ_FAIL);
	CASE_EQ(tier_offq_next(true, false, 5000, 200), TIER_OFFQ_FAIL);
	/* The tier is back: reissue, even past the deadline or closing. */
	CASE_EQ(tier_offq_next(false, false, 100, 200), TIER_OFFQ_REISSUE);
	CASE_EQ(tier_offq_next(false, false, 300, 200), TIER_OFFQ_REISSUE);
	CASE_EQ(tier_offq_next(false, true, 100, 200), TIER_OFFQ_REISSUE);
	/* Closed (suspend, teardown): no more waiting. */
	CASE_EQ(tier_offq_next(true, true, 100, 200), TIER_OFFQ_FAIL);
}

static void tier_offq_delay_test(CASE_CTX)
{
	CASE_EQ(tier_offq_delay(100, 350), 250ULL);
	CASE_EQ(tier_offq_delay(350, 350), 0ULL);
	CASE_EQ(tier_offq_delay(400, 350), 0ULL);
}

/* Pending events bit: event @e about tier @t. */
#define EVB(e, t) ((t) + TIER_MAX_TIERS * (e))
#define EV_NR 10 /* events 0..9, as the module's (uapi enum dm_tier_event) */
#define EV_GONE 0xff

static bool ev_only(const unsigned long *ev, const u32 *bits, u32 nr)
{
	u32 b, i, n = 0;

	for (b = 0; b < EV_NR * TIER_MAX_TIERS; b++) {
		if (!test_bit(b, ev))
			continue;
		for (i = 0; i < nr && bits[i] != b; i++)
			;
		if (i == nr)
			return false;
		n++;
	}
	return n == nr;
}

/* The bits @set, renumbered through @table, are exactly @want. */
static bool ev_renumbered(const u32 *set, u32 nr_set, u32 per_tier,
			  const u8 *table, const u32 *want, u32 nr_want)
{
	unsigned long ev[BITS_TO_LONGS(EV_NR * TIER_MAX_TIERS)];
	u32 i;

	memset(ev, 0, sizeof(ev));
	for (i = 0; i < nr_set; i++)
		__set_bit(set[i], ev);
	tier_ev_renumber(ev, EV_NR, per_tier, table);
	return ev_only(ev, want, nr_want);
}

/*
 * Events 3, 6, 9 name a tier (watermark, tier error, near full); 2 and 8
 * are device-wide (their bit is tier 0's). Pending events raised before a
 * tier-list change must name the tier's new index; they named the old one.
 */
static void tier_ev_renumber_test(CASE_CTX)
{
	const u32 per_tier = BIT(3) | BIT(6) | BIT(9);
	/* Tier 1 of 3 removed. */
	const u8 rm1[TIER_MAX_TIERS] = { 0,	  EV_GONE, 1,	    EV_GONE,
					 EV_GONE, EV_GONE, EV_GONE, EV_GONE };
	/* A tier inserted at 1 of 2. */
	const u8 ins1[TIER_MAX_TIERS] = { 0,	   2,	    EV_GONE, EV_GONE,
					  EV_GONE, EV_GONE, EV_GONE, EV_GONE };
	/* Tier 0 of 3 removed (replace-tier NAME 0). */
	const u8 rm0[TIER_MAX_TIERS] = { EV_GONE, 0,	   1,	    EV_GONE,
					 EV_GONE, EV_GONE, EV_GONE, EV_GONE };
	const u32 want_rm1[] = { EVB(2, 0), EVB(3, 0), EVB(6, 1), EVB(8, 0) };
	const u32 want_ins1[] = { EVB(6, 0), EVB(6, 2), EVB(9, 2) };
	const u32 want_rm0[] = { EVB(6, 0), EVB(8, 0), EVB(9, 1) };
	const u32 set_rm1[] = { EVB(2, 0), EVB(3, 0), EVB(6, 2), EVB(9, 1),
				EVB(8, 0) };
	const u32 set_ins1[] = { EVB(6, 0), EVB(6, 1), EVB(9, 1) };
	const u32 set_rm0[] = { EVB(6, 0), EVB(6, 1), EVB(8, 0), EVB(9, 2) };

	CASE_TRUE(ev_renumbered(set_rm1, ARRAY_SIZE(set_rm1), per_tier, rm1,
				want_rm1, ARRAY_SIZE(want_rm1)));
	CASE_TRUE(ev_renumbered(set_ins1, ARRAY_SIZE(set_ins1), per_tier, ins1,
				want_ins1, ARRAY_SIZE(want_ins1)));
	CASE_TRUE(ev_renumbered(set_rm0, ARRAY_SIZE(set_rm0), per_tier, rm0,
				want_rm0, ARRAY_SIZE(want_rm0)));
}

static struct case_entry health_cases_all[] = {
	CASE_RUN_PARAMS(tier_health_next_test, health),
	CASE_RUN(tier_health_name_test),
	CASE_RUN_PARAMS(tier_md_mode_next_test, mode),
	CASE_RUN(tier_offq_may_park_test),
	CASE_RUN(tier_offq_deadline_test),
	CASE_RUN(tier_offq_next_test),
	CASE_RUN(tier_offq_delay_test),
	CASE_RUN(tier_ev_renumber_test),
	{}
};
