/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cases for kernel/core/policy.c: migration settings, heat, watermark
 * hysteresis, classification of extents, the candidate heap, pacing. Run by
 * tests/unit/test_policy.c (cmocka) and tests/kunit/policy_kunit.c (KUnit);
 * see case.h.
 */
#include "case.h"
#include "format.h"
#include "extent_map.h"
#include "policy.h"

#define MIB BIT_ULL(20)

/* ---- settings ----------------------------------------------------------- */

static void tier_policy_cfg_defaults_test(CASE_CTX)
{
	struct tier_policy_cfg cfg;
	const char *error = NULL;

	memset(&cfg, 0x5a, sizeof(cfg));
	tier_policy_cfg_init(&cfg);
	CASE_EQ(cfg.auto_migrate, 1);
	CASE_EQ(cfg.high_watermark, 80);
	CASE_EQ(cfg.low_watermark, 60);
	CASE_EQ(cfg.demote_age, 0);
	CASE_EQ(cfg.drain_deadline, 0);
	CASE_EQ(cfg.promote_hits, 4);
	CASE_EQ(cfg.promote_window, 60);
	CASE_EQ(cfg.migration_bandwidth, 0);
	CASE_EQ(cfg.migration_inflight, 8);
	CASE_EQ(cfg.redirect_writes, 1);
	CASE_EQ(tier_policy_cfg_check(&cfg, &error), 0);
	CASE_NULL(error);

	/* The extremes of keys the check does not restrict further. */
	cfg.promote_hits = 0;
	CASE_EQ(tier_policy_cfg_check(&cfg, &error), 0);
	CASE_NULL(error);
	tier_policy_cfg_init(&cfg);
	cfg.demote_age = TIER_DEMOTE_AGE_MAX;
	CASE_EQ(tier_policy_cfg_check(&cfg, &error), 0);
	CASE_NULL(error);
}

#define E_WM "low_watermark must be below high_watermark"
#define E_WIN "promote_window must be at least 1"
#define E_INF "migration_inflight must be from 1 to 64"

struct check_case {
	const char *name;
	u32 high, low, window, inflight;
	const char *error; /* NULL: valid */
};

/* clang-format off */
static const struct check_case check_cases[] = {
	{ "defaults", 80, 60, 60, 4, NULL },
	{ "low just below high", 80, 79, 60, 4, NULL },
	{ "low at high", 80, 80, 60, 4, E_WM },
	{ "low above high", 80, 99, 60, 4, E_WM },
	{ "high 61", 61, 60, 60, 4, NULL },
	{ "high at low", 60, 60, 60, 4, E_WM },
	{ "high 1 low 60", 1, 60, 60, 4, E_WM },
	{ "high 1 low 0", 1, 0, 60, 4, NULL },
	{ "high 100 low 99", 100, 99, 60, 4, NULL },
	{ "window 0", 80, 60, 0, 4, E_WIN },
	{ "window 1", 80, 60, 1, 4, NULL },
	{ "inflight 0", 80, 60, 60, 0, E_INF },
	{ "inflight 1", 80, 60, 60, 1, NULL },
	{ "inflight 64", 80, 60, 60, 64, NULL },
	{ "inflight 65", 80, 60, 60, 65, E_INF },
};

/* clang-format on */

static void check_desc(const struct check_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%s", c->name);
}

CASE_PARAMS(check, check_cases, check_desc);

static void tier_policy_cfg_check_test(CASE_CTX)
{
	const struct check_case *c = CASE_PARAM;
	struct tier_policy_cfg cfg;
	const char *error = NULL;

	tier_policy_cfg_init(&cfg);
	cfg.high_watermark = c->high;
	cfg.low_watermark = c->low;
	cfg.promote_window = c->window;
	cfg.migration_inflight = c->inflight;
	if (!c->error) {
		CASE_EQ(tier_policy_cfg_check(&cfg, &error), 0);
		CASE_NULL(error);
		return;
	}
	CASE_EQ(tier_policy_cfg_check(&cfg, &error), -EINVAL);
	CASE_ASSERT_NOT_NULL(error);
	CASE_STREQ(error, c->error);
}

/* ---- heat --------------------------------------------------------------- */

struct heat_case {
	u16 heat;
	u32 atime, now, window;
	u16 decayed, touched;
};

/* clang-format off */
static const struct heat_case heat_cases[] = {
	{ 100, 10, 10, 60, 100, 101 },
	{ 100, 10, 69, 60, 100, 101 },
	{ 100, 10, 70, 60, 50, 51 },
	{ 100, 10, 130, 60, 25, 26 },
	{ 100, 0, 60 * 7, 60, 0, 1 },
	/* the clock went backwards: no decay */
	{ 100, 200, 10, 60, 100, 101 },
	{ 5, U32_MAX, 0, 1, 5, 6 },
	/* window 0 is window 1 */
	{ 0x8000, 0, 3, 0, 0x1000, 0x1001 },
	{ 0x8000, 0, 3, 1, 0x1000, 0x1001 },
	/* 15 halvings leave the top bit; 16 or more leave nothing */
	{ 0xffff, 0, 15, 1, 1, 2 },
	{ 0xffff, 0, 16, 1, 0, 1 },
	{ 0xffff, 0, 17, 1, 0, 1 },
	{ 0xffff, 0, U32_MAX, 1, 0, 1 },
	{ 0xffff, 0, U32_MAX, 0, 0, 1 },
	{ 0xffff, 1000, 1000 + 16 * 60 - 1, 60, 1, 2 },
	{ 0xffff, 1000, 1000 + 16 * 60, 60, 0, 1 },
	{ 8, 0, U32_MAX, U32_MAX, 4, 5 },
	/* saturation */
	{ TIER_HEAT_MAX, 5, 5, 60, TIER_HEAT_MAX, TIER_HEAT_MAX },
	{ TIER_HEAT_MAX - 1, 5, 5, 60, TIER_HEAT_MAX - 1, TIER_HEAT_MAX },
	{ TIER_HEAT_MAX, 5, 65, 60, TIER_HEAT_MAX / 2, TIER_HEAT_MAX / 2 + 1 },
	{ 0, 0, 0, 60, 0, 1 },
};

/* clang-format on */

static void heat_desc(const struct heat_case *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "heat %u atime %u now %u win %u",
		 c->heat, c->atime, c->now, c->window);
}

CASE_PARAMS(heat, heat_cases, heat_desc);

static void tier_heat_test(CASE_CTX)
{
	const struct heat_case *c = CASE_PARAM;

	CASE_EQ(tier_heat_decay(c->heat, c->atime, c->now, c->window),
		c->decayed);
	CASE_EQ(tier_heat_touch(c->heat, c->atime, c->now, c->window),
		c->touched);
}

/* ---- watermarks --------------------------------------------------------- */

static struct tier_usage usage(u64 total, u64 used, u64 free, u64 free_all)
{
	return (struct tier_usage){
		.total = total, .used = used, .free = free, .free_all = free_all
	};
}

/* Tier 0 of a 2-tier device goes through @used extents of 100. */
static void step0(CASE_CTX, const struct tier_policy_cfg *cfg,
		  struct tier_policy_plan *p, u64 used, bool draining, u64 need)
{
	struct tier_usage u[2] = { usage(100, used, 100 - used, 100 - used),
				   usage(1000, 0, 990, 1000) };

	tier_policy_update(cfg, u, p);
	CASE_EQ_MSG(p->draining[0], draining, "used %llu",
		    (unsigned long long)used);
	CASE_EQ_MSG(p->demote_need[0], need, "used %llu",
		    (unsigned long long)used);
}

static void tier_policy_hysteresis_test(CASE_CTX)
{
	struct tier_policy_cfg cfg;
	struct tier_policy_plan p;
	struct tier_usage u[2];

	tier_policy_cfg_init(&cfg);
	memset(&p, 0x5a, sizeof(p));
	tier_policy_plan_init(&p, 2);
	CASE_EQ(p.nr_tiers, 2);
	CASE_FALSE(p.draining[0]);
	CASE_FALSE(p.draining[1]);

	step0(test, &cfg, &p, 70, false, 0);
	step0(test, &cfg, &p, 80, false, 0); /* at high: not above */
	step0(test, &cfg, &p, 81, true, 21);
	step0(test, &cfg, &p, 100, true, 40);
	step0(test, &cfg, &p, 79, true, 19); /* between: keeps draining */
	step0(test, &cfg, &p, 61, true, 1);
	step0(test, &cfg, &p, 60, false, 0); /* at low: stops */
	step0(test, &cfg, &p, 61, false, 0);
	step0(test, &cfg, &p, 80, false, 0);
	step0(test, &cfg, &p, 81, true, 21);
	step0(test, &cfg, &p, 10, false, 0);

	/* During a burst a draining tier 0 keeps draining at low. */
	step0(test, &cfg, &p, 81, true, 21);
	p.burst = true;
	step0(test, &cfg, &p, 60, true, 0);
	step0(test, &cfg, &p, 75, true, 15);
	p.burst = false;
	step0(test, &cfg, &p, 60, false, 0);

	/* With a drain deadline, tier 0 drains from its low watermark on. */
	cfg.drain_deadline = 30;
	step0(test, &cfg, &p, 60, false, 0);
	step0(test, &cfg, &p, 61, true, 1);
	step0(test, &cfg, &p, 75, true, 15);
	step0(test, &cfg, &p, 60, false, 0);
	cfg.drain_deadline = 0;

	/* Percentages of a small tier: floor(60% of 7) = 4. */
	u[0] = usage(7, 6, 1, 1);
	u[1] = usage(100, 0, 100, 100);
	tier_policy_plan_init(&p, 2);
	tier_policy_update(&cfg, u, &p); /* 600 > 560 */
	CASE_TRUE(p.draining[0]);
	CASE_EQ(p.demote_need[0], 2);
	u[0].used = 5; /* 500 > 420 */
	tier_policy_update(&cfg, u, &p);
	CASE_TRUE(p.draining[0]);
	CASE_EQ(p.demote_need[0], 1);
	u[0].used = 4; /* 400 <= 420 */
	tier_policy_update(&cfg, u, &p);
	CASE_FALSE(p.draining[0]);
	CASE_EQ(p.demote_need[0], 0);
	CASE_EQ(p.accept_promote[0], 0);
	u[0].used = 3;
	tier_policy_update(&cfg, u, &p);
	CASE_EQ(p.accept_promote[0], 1);
}

static void tier_policy_accept_test(CASE_CTX)
{
	struct tier_policy_cfg cfg;
	struct tier_policy_plan p;
	struct tier_usage u[3];
	u64 big = 1ULL << 48;
	u32 t;

	tier_policy_cfg_init(&cfg);
	tier_policy_plan_init(&p, 3);
	u[0] = usage(100, 10, 88, 90);
	u[1] = usage(1000, 300, 5, 700);
	u[2] = usage(1000, 1000, 0, 0); /* the last tier never drains */
	tier_policy_update(&cfg, u, &p);
	CASE_FALSE(p.draining[0]);
	CASE_FALSE(p.draining[1]);
	CASE_FALSE(p.draining[2]);
	CASE_EQ(p.demote_need[2], 0);
	CASE_EQ(p.accept_demote[0], 0);
	CASE_EQ(p.accept_demote[1], 700); /* free_all */
	CASE_EQ(p.accept_demote[2], 0);
	CASE_EQ(p.accept_promote[0], 50); /* up to low */
	CASE_EQ(p.accept_promote[1], 5); /* within free */
	CASE_EQ(p.accept_promote[2], 0); /* last */
	for (t = 3; t < TIER_MAX_TIERS; t++) {
		CASE_FALSE(p.draining[t]);
		CASE_EQ(p.demote_need[t], 0);
		CASE_EQ(p.accept_demote[t], 0);
		CASE_EQ(p.accept_promote[t], 0);
	}

	/* The reserve is only for demotion. */
	u[1] = usage(1000, 100, 0, 20);
	tier_policy_update(&cfg, u, &p);
	CASE_EQ(p.accept_demote[1], 20);
	CASE_EQ(p.accept_promote[1], 0);

	/* Draining: demotes, accepts no promotion, still takes demotions. */
	u[1] = usage(1000, 900, 80, 100);
	tier_policy_update(&cfg, u, &p);
	CASE_TRUE(p.draining[1]);
	CASE_EQ(p.demote_need[1], 300);
	CASE_EQ(p.accept_promote[1], 0);
	CASE_EQ(p.accept_demote[1], 100);

	/* Last tier past its watermark: nothing to drain to. */
	u[2] = usage(1000, 999, 1, 1);
	tier_policy_update(&cfg, u, &p);
	CASE_FALSE(p.draining[2]);
	CASE_EQ(p.demote_need[2], 0);
	CASE_EQ(p.accept_demote[2], 1);

	/* A single tier neither drains nor accepts anything. */
	tier_policy_plan_init(&p, 1);
	u[0] = usage(100, 100, 0, 0);
	tier_policy_update(&cfg, u, &p);
	CASE_FALSE(p.draining[0]);
	CASE_EQ(p.demote_need[0], 0);
	CASE_EQ(p.accept_demote[0], 0);
	CASE_EQ(p.accept_promote[0], 0);
	u[0] = usage(100, 0, 100, 100);
	tier_policy_update(&cfg, u, &p);
	CASE_EQ(p.accept_promote[0], 0);

	/* Big tiers: no overflow in the percentages. */
	tier_policy_plan_init(&p, 2);
	u[0] = usage(big, big - 1, 1, 1);
	u[1] = usage(big, 0, big, big);
	tier_policy_update(&cfg, u, &p);
	CASE_TRUE(p.draining[0]);
	CASE_EQ(p.demote_need[0],
		big - 1 - div_u64(big, 100) * 60 -
			div_u64((big - div_u64(big, 100) * 100) * 60, 100));
}

/* ---- classification ----------------------------------------------------- */

/*
 * Plan for @nr tiers of 100 extents: tier t has used[t] of them, all of the
 * rest free (reserve 0) unless free_all[t] says otherwise (-1: the rest).
 */
static void plan_of(const struct tier_policy_cfg *cfg,
		    struct tier_policy_plan *p, u32 nr, const u64 *used,
		    const s64 *free_all)
{
	struct tier_usage u[TIER_MAX_TIERS];
	u32 t;

	for (t = 0; t < nr; t++) {
		u[t] = usage(100, used[t], 100 - used[t], 100 - used[t]);
		if (free_all && free_all[t] >= 0) {
			u[t].free_all = free_all[t];
			u[t].free = min(u[t].free, u[t].free_all);
		}
	}
	tier_policy_plan_init(p, nr);
	tier_policy_update(cfg, u, p);
}

static u32 classify(const struct tier_policy_cfg *cfg,
		    const struct tier_policy_plan *p, u32 tier, u32 flags,
		    u16 heat, u32 atime, u32 now, struct tier_work *w)
{
	struct tier_loc loc = { .tier = tier,
				.flags = flags,
				.pext = tier_pext(3) };

	memset(w, 0x5a, sizeof(*w));
	return tier_policy_classify(cfg, p, tier_vext(77), &loc, heat, atime,
				    now, w);
}

static void expect_work(CASE_CTX, const struct tier_work *w, u32 kind, u32 from,
			u32 to)
{
	CASE_EQ(w->kind, kind);
	CASE_EQ(w->vext, 77);
	CASE_EQ(w->from, from);
	CASE_EQ(w->to, to);
}

#define NONE TIER_WORK_NONE
#define DEMOTE TIER_WORK_DEMOTE
#define PROMOTE TIER_WORK_PROMOTE
#define PINNED TIER_EXT_F_PINNED

static void tier_policy_demote_test(CASE_CTX)
{
	static const u64 drain0[] = { 90, 0, 0 };
	static const u64 calm[] = { 50, 0, 0 };
	struct tier_policy_cfg cfg;
	struct tier_policy_plan p;
	struct tier_work w;

	tier_policy_cfg_init(&cfg);

	/* Watermark: tier 0 above high demotes to tier 1. */
	plan_of(&cfg, &p, 3, drain0, NULL);
	CASE_EQ(classify(&cfg, &p, 0, 0, 0, 1000, 1000, &w), DEMOTE);
	expect_work(test, &w, DEMOTE, 0, 1);
	CASE_EQ(w.key, 1000);
	CASE_EQ(classify(&cfg, &p, 0, 0, 3, 1000, 1000, &w), DEMOTE);
	CASE_EQ(w.key, 3ULL << 32 | 1000);
	/* Tier 1 is not draining: its extents stay. */
	CASE_EQ(classify(&cfg, &p, 1, 0, 0, 0, 1000, &w), NONE);
	/* Pinned and auto_migrate 0: never. */
	CASE_EQ(classify(&cfg, &p, 0, PINNED, 0, 1000, 1000, &w), NONE);
	cfg.auto_migrate = 0;
	CASE_EQ(classify(&cfg, &p, 0, 0, 0, 1000, 1000, &w), NONE);
	cfg.auto_migrate = 1;

	/* Below the watermark nothing moves without demote_age. */
	plan_of(&cfg, &p, 3, calm, NULL);
	CASE_EQ(classify(&cfg, &p, 0, 0, 0, 0, U32_MAX, &w), NONE);

	/* Age: demote_age seconds without access. */
	cfg.demote_age = 100;
	CASE_EQ(classify(&cfg, &p, 0, 0, 0, 1000, 1099, &w), NONE);
	CASE_EQ(classify(&cfg, &p, 0, 0, 0, 1000, 1100, &w), DEMOTE);
	expect_work(test, &w, DEMOTE, 0, 1);
	CASE_EQ(w.key, 1000);
	CASE_EQ(classify(&cfg, &p, 1, 0, 1, 1000, 1100, &w), DEMOTE);
	expect_work(test, &w, DEMOTE, 1, 2);
	/* clock went backwards: not old */
	CASE_EQ(classify(&cfg, &p, 0, 0, 0, 5000, 1100, &w), NONE);
	/* nowhere below the last tier */
	CASE_EQ(classify(&cfg, &p, 2, 0, 0, 0, 1100, &w), NONE);
	CASE_EQ(classify(&cfg, &p, 0, PINNED, 0, 1000, 1100, &w), NONE);
	/* Still hot after decay: not demoted by age (it would come back). */
	CASE_EQ(classify(&cfg, &p, 0, 0, 100, 1000, 1100, &w), NONE);
	/* ...unless promotion is off, when heat means nothing. */
	cfg.promote_hits = 0;
	CASE_EQ(classify(&cfg, &p, 0, 0, 100, 1000, 1100, &w), DEMOTE);
	CASE_EQ(w.key, 50ULL << 32 | 1000); /* decayed once */
	cfg.promote_hits = TIER_PROMOTE_HITS_DEF;
	cfg.auto_migrate = 0;
	CASE_EQ(classify(&cfg, &p, 0, 0, 0, 1000, 1100, &w), NONE);
}

static void tier_policy_targets_test(CASE_CTX)
{
	static const u64 drain0[] = { 90, 50, 0 };
	static const s64 full1[] = { -1, 0, -1 };
	static const s64 full12[] = { -1, 0, 0 };
	static const u64 one[] = { 100 };
	struct tier_policy_cfg cfg;
	struct tier_policy_plan p;
	struct tier_work w;

	tier_policy_cfg_init(&cfg);

	/* Demotion skips a middle tier without room. */
	plan_of(&cfg, &p, 3, drain0, full1);
	CASE_EQ(p.accept_demote[1], 0);
	CASE_EQ(classify(&cfg, &p, 0, 0, 0, 0, 0, &w), DEMOTE);
	expect_work(test, &w, DEMOTE, 0, 2);

	/* No tier with room: nothing. */
	plan_of(&cfg, &p, 3, drain0, full12);
	CASE_EQ(classify(&cfg, &p, 0, 0, 0, 0, 0, &w), NONE);
	cfg.demote_age = 1;
	CASE_EQ(classify(&cfg, &p, 1, 0, 0, 0, 10, &w), NONE);
	cfg.demote_age = 0;

	/* A single tier: never anything. */
	plan_of(&cfg, &p, 1, one, NULL);
	cfg.demote_age = 1;
	CASE_EQ(classify(&cfg, &p, 0, 0, 0, 0, 100, &w), NONE);
	CASE_EQ(classify(&cfg, &p, 0, 0, TIER_HEAT_MAX, 100, 100, &w), NONE);
	/* An extent on a tier the plan does not have: nothing. */
	CASE_EQ(classify(&cfg, &p, 1, 0, TIER_HEAT_MAX, 100, 100, &w), NONE);
	CASE_EQ(classify(&cfg, &p, 7, 0, 0, 0, 100, &w), NONE);
}

static void tier_policy_promote_test(CASE_CTX)
{
	static const u64 room0[] = { 10, 70, 0 };
	static const u64 room01[] = { 10, 10, 0 };
	static const u64 full0[] = { 60, 10, 0 };
	static const u64 full01[] = { 60, 60, 0 };
	static const u64 drain1[] = { 10, 95, 0 };
	static const u64 full0_drain1[] = { 60, 95, 0 };
	struct tier_policy_cfg cfg;
	struct tier_policy_plan p;
	struct tier_work w;

	tier_policy_cfg_init(&cfg);

	/* To the fastest tier with room. */
	plan_of(&cfg, &p, 3, room0, NULL);
	CASE_EQ(classify(&cfg, &p, 2, 0, 4, 500, 500, &w), PROMOTE);
	expect_work(test, &w, PROMOTE, 2, 0);
	CASE_EQ(w.key, (u64)(TIER_HEAT_MAX - 4) << 32 | (U32_MAX - 500));
	CASE_EQ(classify(&cfg, &p, 1, 0, 4, 500, 500, &w), PROMOTE);
	expect_work(test, &w, PROMOTE, 1, 0);
	/* Below promote_hits: nothing. */
	CASE_EQ(classify(&cfg, &p, 2, 0, 3, 500, 500, &w), NONE);
	/* Tier 0 cannot go up. */
	CASE_EQ(classify(&cfg, &p, 0, 0, 100, 500, 500, &w), NONE);
	/* Heat decays with promote_window. */
	CASE_EQ(classify(&cfg, &p, 2, 0, 8, 500, 560, &w), PROMOTE);
	CASE_EQ(w.key, (u64)(TIER_HEAT_MAX - 4) << 32 | (U32_MAX - 500));
	CASE_EQ(classify(&cfg, &p, 2, 0, 8, 500, 620, &w), NONE);
	CASE_EQ(classify(&cfg, &p, 2, PINNED, 100, 500, 500, &w), NONE);
	cfg.promote_hits = 0;
	CASE_EQ(classify(&cfg, &p, 2, 0, TIER_HEAT_MAX, 500, 500, &w), NONE);
	cfg.promote_hits = 4;
	cfg.auto_migrate = 0;
	CASE_EQ(classify(&cfg, &p, 2, 0, 100, 500, 500, &w), NONE);
	cfg.auto_migrate = 1;

	/* Both faster tiers have room: the fastest. */
	plan_of(&cfg, &p, 3, room01, NULL);
	CASE_EQ(classify(&cfg, &p, 2, 0, 4, 500, 500, &w), PROMOTE);
	expect_work(test, &w, PROMOTE, 2, 0);

	/* Tier 0 at its low watermark: the next one with room. */
	plan_of(&cfg, &p, 3, full0, NULL);
	CASE_EQ(classify(&cfg, &p, 2, 0, 4, 500, 500, &w), PROMOTE);
	expect_work(test, &w, PROMOTE, 2, 1);
	CASE_EQ(classify(&cfg, &p, 1, 0, 4, 500, 500, &w), NONE);
	plan_of(&cfg, &p, 3, full01, NULL);
	CASE_EQ(classify(&cfg, &p, 2, 0, 4, 500, 500, &w), NONE);

	/* Promotion wins over demotion from a draining tier... */
	plan_of(&cfg, &p, 3, drain1, NULL);
	CASE_TRUE(p.draining[1]);
	CASE_EQ(classify(&cfg, &p, 1, 0, 10, 500, 500, &w), PROMOTE);
	expect_work(test, &w, PROMOTE, 1, 0);
	/* ...and over age. */
	cfg.demote_age = 10;
	CASE_EQ(classify(&cfg, &p, 1, 0, 100, 500, 510, &w), PROMOTE);
	/* Cold extents on the draining tier go down. */
	CASE_EQ(classify(&cfg, &p, 1, 0, 3, 500, 500, &w), DEMOTE);
	expect_work(test, &w, DEMOTE, 1, 2);
	/* Hot with nowhere to go up: the watermark still demotes it. */
	plan_of(&cfg, &p, 3, full0_drain1, NULL);
	CASE_EQ(classify(&cfg, &p, 1, 0, 100, 500, 500, &w), DEMOTE);
	expect_work(test, &w, DEMOTE, 1, 2);
}

static u32 displace(const struct tier_policy_cfg *cfg,
		    const struct tier_policy_plan *p, u32 tier, u32 flags,
		    u16 heat, u32 atime, u32 now, struct tier_work *w)
{
	struct tier_loc loc = { .tier = tier,
				.flags = flags,
				.pext = tier_pext(3) };

	memset(w, 0x5a, sizeof(*w));
	return tier_policy_displace(cfg, p, tier_vext(77), &loc, heat, atime,
				    now, w);
}

/* Who takes part in a displacement (a swap with a cold tier-0 extent). */
static void tier_policy_displace_test(CASE_CTX)
{
	static const u64 low0[] = { 60, 10, 0 }; /* tier 0 at its low wm */
	static const u64 room0[] = { 10, 70, 0 };
	static const u64 high0[] = { 90, 10, 0 }; /* tier 0 draining */
	struct tier_policy_cfg cfg;
	struct tier_policy_plan p;
	struct tier_work w;

	tier_policy_cfg_init(&cfg);
	plan_of(&cfg, &p, 2, low0, NULL);
	/* Hot on tier 1, tier 0 accepts no promotion: displaces. */
	CASE_EQ(displace(&cfg, &p, 1, 0, 4, 500, 500, &w), PROMOTE);
	expect_work(test, &w, PROMOTE, 1, 0);
	CASE_EQ(w.key, (u64)(TIER_HEAT_MAX - 4) << 32 | (U32_MAX - 500));
	/* Not hot enough, or pinned: no. */
	CASE_EQ(displace(&cfg, &p, 1, 0, 3, 500, 500, &w), NONE);
	CASE_EQ(displace(&cfg, &p, 1, PINNED, 100, 500, 500, &w), NONE);
	/*
	 * A tier-0 extent untouched for promote_window: a victim, coldest
	 * (then least recently used) first; touched within it: not.
	 */
	CASE_EQ(displace(&cfg, &p, 0, 0, 2, 400, 460, &w), DEMOTE);
	CASE_EQ(w.from, 0);
	CASE_EQ(w.key, (u64)1 << 32 | 400); /* heat 2 halved once */
	CASE_EQ(displace(&cfg, &p, 0, 0, 2, 401, 460, &w), NONE);
	CASE_EQ(displace(&cfg, &p, 0, PINNED, 0, 0, 460, &w), NONE);
	/* Plain promotion has room: no displacement. */
	plan_of(&cfg, &p, 3, room0, NULL);
	CASE_EQ(displace(&cfg, &p, 1, 0, 4, 500, 500, &w), NONE);
	/* Tier 0 draining, promotion off, auto_migrate off, one tier: no. */
	plan_of(&cfg, &p, 2, high0, NULL);
	CASE_TRUE(p.draining[0]);
	CASE_EQ(displace(&cfg, &p, 1, 0, 100, 500, 500, &w), NONE);
	CASE_EQ(displace(&cfg, &p, 0, 0, 0, 0, 500, &w), NONE);
	plan_of(&cfg, &p, 2, low0, NULL);
	cfg.promote_hits = 0;
	CASE_EQ(displace(&cfg, &p, 1, 0, 100, 500, 500, &w), NONE);
	cfg.promote_hits = 4;
	cfg.auto_migrate = 0;
	CASE_EQ(displace(&cfg, &p, 1, 0, 100, 500, 500, &w), NONE);
	cfg.auto_migrate = 1;
	plan_of(&cfg, &p, 1, low0, NULL);
	CASE_EQ(displace(&cfg, &p, 0, 0, 0, 0, 500, &w), NONE);
}

static struct tier_work dwork(u64 vext, u32 from, u32 kind, u16 heat)
{
	struct tier_work w = {
		.vext = vext, .from = from, .to = 0, .kind = kind
	};

	w.key = kind == TIER_WORK_PROMOTE ? (u64)(TIER_HEAT_MAX - heat) << 32 :
					    (u64)heat << 32;
	return w;
}

/* Pairs: hottest with coldest while hot > 2 x cold; capped at @max. */
static void tier_policy_pair_swaps_test(CASE_CTX)
{
	struct tier_work hot[3], cold[3], out[6];

	hot[0] = dwork(10, 1, TIER_WORK_PROMOTE, 20);
	hot[1] = dwork(11, 2, TIER_WORK_PROMOTE, 9);
	hot[2] = dwork(12, 1, TIER_WORK_PROMOTE, 6);
	cold[0] = dwork(1, 0, TIER_WORK_DEMOTE, 0);
	cold[1] = dwork(2, 0, TIER_WORK_DEMOTE, 4);
	cold[2] = dwork(3, 0, TIER_WORK_DEMOTE, 5);
	/* 20 > 0, 9 > 8, 6 <= 10: two swaps. */
	CASE_EQ(tier_policy_pair_swaps(hot, 3, cold, 3, 3, out), 2);
	CASE_EQ(out[0].vext, 1);
	CASE_EQ(out[0].kind, TIER_WORK_DEMOTE);
	CASE_EQ(out[0].to, 1); /* to where the hot one comes from */
	CASE_EQ(out[1].vext, 10);
	CASE_EQ(out[1].kind, TIER_WORK_PROMOTE);
	CASE_EQ(out[1].to, 0);
	CASE_EQ(out[2].vext, 2);
	CASE_EQ(out[2].to, 2);
	CASE_EQ(out[3].vext, 11);
	/* The cap, and nothing to pair with. */
	CASE_EQ(tier_policy_pair_swaps(hot, 3, cold, 3, 1, out), 1);
	CASE_EQ(tier_policy_pair_swaps(hot, 3, cold, 0, 3, out), 0);
	CASE_EQ(tier_policy_pair_swaps(hot, 0, cold, 3, 3, out), 0);
	/* Equal heat never swaps (no ping-pong of look-alikes). */
	hot[0] = dwork(10, 1, TIER_WORK_PROMOTE, 4);
	cold[0] = dwork(1, 0, TIER_WORK_DEMOTE, 2);
	CASE_EQ(tier_policy_pair_swaps(hot, 1, cold, 1, 3, out), 0);
}

/* Demotion: colder first, then older. Promotion: hotter, then newer. */
static void tier_policy_keys_test(CASE_CTX)
{
	static const u64 drain0[] = { 90, 10, 0 };
	struct tier_policy_cfg cfg;
	struct tier_policy_plan p;
	struct tier_work a, b;

	tier_policy_cfg_init(&cfg);
	cfg.promote_hits = 0;
	cfg.promote_window = TIER_PROMOTE_WINDOW_MAX; /* no decay */
	plan_of(&cfg, &p, 3, drain0, NULL);
	classify(&cfg, &p, 0, 0, 1, 900, 1000, &a);
	classify(&cfg, &p, 0, 0, 2, 100, 1000, &b);
	CASE_LT(a.key, b.key);
	classify(&cfg, &p, 0, 0, 2, 99, 1000, &a);
	CASE_LT(a.key, b.key);
	classify(&cfg, &p, 0, 0, TIER_HEAT_MAX, U32_MAX, U32_MAX, &a);
	CASE_EQ(a.key, (u64)TIER_HEAT_MAX << 32 | U32_MAX);

	cfg.promote_hits = 1;
	classify(&cfg, &p, 2, 0, 9, 100, 1000, &a);
	classify(&cfg, &p, 2, 0, 8, 900, 1000, &b);
	CASE_EQ(a.kind, PROMOTE);
	CASE_EQ(b.kind, PROMOTE);
	CASE_LT(a.key, b.key);
	classify(&cfg, &p, 2, 0, 8, 901, 1000, &a);
	CASE_LT(a.key, b.key);
	classify(&cfg, &p, 2, 0, TIER_HEAT_MAX, U32_MAX, U32_MAX, &a);
	CASE_EQ(a.key, 0);
}

/* ---- candidate heap ----------------------------------------------------- */

#define HEAP_MAX 64

static u32 lcg(u32 *seed)
{
	*seed = *seed * 1103515245 + 12345;
	return *seed >> 8;
}

/* The heap keeps the lowest keys and sorts them like a reference does. */
static void tier_cand_model_test(CASE_CTX)
{
	struct tier_work *store, w;
	u64 ref[HEAP_MAX]; /* the lowest keys so far, ascending */
	struct tier_cand_heap h;
	u32 seed = 7, round, cap, n, i, j, nref, range;
	bool want;

	store = case_zalloc((HEAP_MAX + 1) * (sizeof(*store)));
	CASE_ASSERT_NOT_NULL(store);
	for (round = 0; round < 400; round++) {
		cap = 1 + lcg(&seed) % HEAP_MAX;
		n = lcg(&seed) % (3 * HEAP_MAX);
		/* small ranges make duplicate keys */
		range = round % 3 ? 1U << (lcg(&seed) % 24) : 4;
		/* a guard item past @cap catches writes beyond it */
		memset(store, 0xa5, (HEAP_MAX + 1) * sizeof(*store));
		tier_cand_init(&h, store, cap);
		CASE_ASSERT_EQ(h.nr, 0);
		CASE_ASSERT_EQ(h.cap, cap);
		nref = 0;
		for (i = 0; i < n; i++) {
			memset(&w, 0, sizeof(w));
			w.key = (u64)(lcg(&seed) % range) << 20 | i;
			w.key = round & 1 ? w.key >> 20 : w.key;
			w.vext = ~w.key;
			w.from = i;
			want = nref < cap || w.key < ref[nref - 1];
			CASE_ASSERT_EQ(tier_cand_offer(&h, &w), want);
			if (!want)
				continue;
			if (nref == cap)
				nref--;
			for (j = nref; j > 0 && ref[j - 1] > w.key; j--)
				ref[j] = ref[j - 1];
			ref[j] = w.key;
			nref++;
		}
		CASE_ASSERT_EQ(h.nr, nref);
		tier_cand_sort(&h);
		for (i = 0; i < nref; i++) {
			CASE_ASSERT_EQ(store[i].key, ref[i]);
			CASE_ASSERT_EQ(store[i].vext, ~store[i].key);
		}
		CASE_ASSERT_EQ(store[cap].key, 0xa5a5a5a5a5a5a5a5ULL);
	}
}

static void tier_cand_small_test(CASE_CTX)
{
	static const u64 keys[] = { 5, 3, 9, 1, 7, 3, 0, U64_MAX };
	struct tier_work store[3], w = { 0 };
	struct tier_cand_heap h;
	size_t i;

	tier_cand_init(&h, store, 3);
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		w.key = keys[i];
		tier_cand_offer(&h, &w);
	}
	tier_cand_sort(&h);
	CASE_EQ(h.nr, 3);
	CASE_EQ(store[0].key, 0);
	CASE_EQ(store[1].key, 1);
	CASE_EQ(store[2].key, 3);

	/* An equal key does not evict. */
	tier_cand_init(&h, store, 1);
	w.key = 4;
	w.vext = 1;
	CASE_TRUE(tier_cand_offer(&h, &w));
	w.vext = 2;
	CASE_FALSE(tier_cand_offer(&h, &w));
	w.key = 3;
	CASE_TRUE(tier_cand_offer(&h, &w));
	tier_cand_sort(&h);
	CASE_EQ(h.nr, 1);
	CASE_EQ(store[0].key, 3);
	CASE_EQ(store[0].vext, 2);

	/* Empty sorts to empty. */
	tier_cand_init(&h, store, 3);
	tier_cand_sort(&h);
	CASE_EQ(h.nr, 0);
}

/* ---- pacing ------------------------------------------------------------- */

static void expect_pace(CASE_CTX, const struct tier_policy_cfg *cfg, bool work,
			bool urgent, bool fg_busy, u64 drain_extents,
			u32 since_burst, u64 extent_bytes, u32 mode,
			u32 inflight, u64 rate)
{
	struct tier_pace_in in = {
		.work = work,
		.urgent = urgent,
		.fg_busy = fg_busy,
		.drain_extents = drain_extents,
		.since_burst = since_burst,
		.extent_bytes = extent_bytes,
	};
	struct tier_pace out;

	memset(&out, 0x5a, sizeof(out));
	tier_policy_pace(cfg, &in, &out);
	CASE_EQ(out.mode, mode);
	CASE_STREQ(tier_pace_name(out.mode), tier_pace_name(mode));
	CASE_EQ(out.max_inflight, inflight);
	CASE_EQ(out.rate, rate);
}

#define IDLE TIER_PACE_IDLE
#define FULL TIER_PACE_FULL
#define DEADLINE TIER_PACE_DEADLINE
#define BACKGROUND TIER_PACE_BACKGROUND

static void tier_policy_pace_test(CASE_CTX)
{
	struct tier_policy_cfg cfg;

	tier_policy_cfg_init(&cfg);
	cfg.migration_inflight = 8;

	/* Idle: no work, whatever else. */
	expect_pace(test, &cfg, false, true, true, 100, 0, MIB, IDLE, 0, 0);
	expect_pace(test, &cfg, false, false, false, 0, 0, MIB, IDLE, 0, 0);
	/* Full: urgent, or the foreground idle. */
	expect_pace(test, &cfg, true, true, true, 100, 0, MIB, FULL, 8, 0);
	expect_pace(test, &cfg, true, false, false, 0, 0, MIB, FULL, 8, 0);
	/* Busy, nothing urgent, no deadline: background. */
	expect_pace(test, &cfg, true, false, true, 100, 5, MIB, BACKGROUND, 1,
		    TIER_BACKGROUND_RATE);

	/* Deadline: 1000 MiB in the 80 s left, plus a quarter. */
	cfg.drain_deadline = 100;
	expect_pace(test, &cfg, true, false, true, 1000, 20, MIB, DEADLINE, 8,
		    1000 * MIB / 80 * 5 / 4);
	expect_pace(test, &cfg, true, false, true, 1000, 0, MIB, DEADLINE, 8,
		    1000 * MIB / 100 * 5 / 4);
	expect_pace(test, &cfg, true, false, true, 3, 99, 4096, DEADLINE, 8,
		    3 * 4096 + 3 * 4096 / 4);
	/* at least 1 byte/s (0 would mean unlimited) */
	expect_pace(test, &cfg, true, false, true, 1, 0, 1, DEADLINE, 8, 1);
	/* saturates instead of wrapping */
	expect_pace(test, &cfg, true, false, true, U64_MAX, 99, 1ULL << 26,
		    DEADLINE, 8, U64_MAX);
	/* the deadline passed: full speed */
	expect_pace(test, &cfg, true, false, true, 1000, 100, MIB, FULL, 8, 0);
	expect_pace(test, &cfg, true, false, true, 1000, U32_MAX, MIB, FULL, 8,
		    0);
	/* nothing to drain: background */
	expect_pace(test, &cfg, true, false, true, 0, 20, MIB, BACKGROUND, 1,
		    TIER_BACKGROUND_RATE);
	/* urgent or idle foreground beats the deadline */
	expect_pace(test, &cfg, true, true, true, 1000, 20, MIB, FULL, 8, 0);
	expect_pace(test, &cfg, true, false, false, 1000, 20, MIB, FULL, 8, 0);
}

static void tier_policy_pace_bandwidth_test(CASE_CTX)
{
	struct tier_policy_cfg cfg;
	u64 max = (u64)TIER_MIG_BANDWIDTH_MAX << 20;
	/* Copies in flight: the default (the background pace allows 1). */
	const u32 inf = TIER_MIG_INFLIGHT_DEF;

	tier_policy_cfg_init(&cfg);
	cfg.drain_deadline = 100;
	cfg.migration_bandwidth = 10;
	expect_pace(test, &cfg, false, true, true, 100, 0, MIB, IDLE, 0, 0);
	expect_pace(test, &cfg, true, true, true, 100, 0, MIB, FULL, inf,
		    10 * MIB);
	expect_pace(test, &cfg, true, false, false, 100, 0, MIB, FULL, inf,
		    10 * MIB);
	expect_pace(test, &cfg, true, false, true, 100, 100, MIB, FULL, inf,
		    10 * MIB);
	expect_pace(test, &cfg, true, false, true, 0, 0, MIB, BACKGROUND, 1,
		    10 * MIB);
	expect_pace(test, &cfg, true, false, true, 1000, 20, MIB, DEADLINE, inf,
		    10 * MIB);
	/* A cap above the mode's own rate changes nothing. */
	cfg.migration_bandwidth = 100;
	expect_pace(test, &cfg, true, false, true, 0, 0, MIB, BACKGROUND, 1,
		    TIER_BACKGROUND_RATE);
	expect_pace(test, &cfg, true, false, true, 1000, 20, MIB, DEADLINE, inf,
		    1000 * MIB / 80 * 5 / 4);
	cfg.migration_bandwidth = TIER_MIG_BANDWIDTH_MAX;
	expect_pace(test, &cfg, true, true, true, 0, 0, MIB, FULL, inf, max);
	expect_pace(test, &cfg, true, false, true, U64_MAX, 0, MIB, DEADLINE,
		    inf, max);
}

static void tier_pace_name_test(CASE_CTX)
{
	CASE_STREQ(tier_pace_name(TIER_PACE_IDLE), "idle");
	CASE_STREQ(tier_pace_name(TIER_PACE_FULL), "full");
	CASE_STREQ(tier_pace_name(TIER_PACE_DEADLINE), "deadline");
	CASE_STREQ(tier_pace_name(TIER_PACE_BACKGROUND), "background");
	CASE_STREQ(tier_pace_name(4), "?");
	CASE_STREQ(tier_pace_name(U32_MAX), "?");
}

/* Only moves from or to an offline tier pause (docs "Tier states"). */
static void tier_policy_move_allowed_test(CASE_CTX)
{
	/* Nothing offline: everything moves. */
	CASE_TRUE(tier_policy_move_allowed(0, 0, 0, 1));
	CASE_TRUE(tier_policy_move_allowed(0, 0, 2, 0));
	/* Tier 2 offline: 0 <-> 1 goes on, 0/1 <-> 2 pauses. */
	CASE_TRUE(tier_policy_move_allowed(1U << 2, 0, 0, 1));
	CASE_TRUE(tier_policy_move_allowed(1U << 2, 0, 1, 0));
	CASE_FALSE(tier_policy_move_allowed(1U << 2, 0, 0, 2));
	CASE_FALSE(tier_policy_move_allowed(1U << 2, 0, 2, 0));
	CASE_FALSE(tier_policy_move_allowed(1U << 2, 0, 2, 1));
	CASE_FALSE(tier_policy_move_allowed(1U << 2, 0, 1, 2));
	/* Tier 1 offline: 0 <-> 2 goes on. */
	CASE_TRUE(tier_policy_move_allowed(1U << 1, 0, 0, 2));
	CASE_TRUE(tier_policy_move_allowed(1U << 1, 0, 2, 0));
	CASE_FALSE(tier_policy_move_allowed(1U << 1, 0, 1, 2));
	/* The last of eight tiers; out of range is refused. */
	CASE_FALSE(tier_policy_move_allowed(1U << 7, 0, 7, 0));
	CASE_TRUE(tier_policy_move_allowed(1U << 7, 0, 6, 0));
	CASE_FALSE(tier_policy_move_allowed(0, 0, 32, 0));
	CASE_FALSE(tier_policy_move_allowed(0, 0, 0, 32));
	/* Tier 1 evacuating: nothing moves to it, its extents move away. */
	CASE_FALSE(tier_policy_move_allowed(0, 1U << 1, 0, 1));
	CASE_FALSE(tier_policy_move_allowed(0, 1U << 1, 2, 1));
	CASE_TRUE(tier_policy_move_allowed(0, 1U << 1, 1, 0));
	CASE_TRUE(tier_policy_move_allowed(0, 1U << 1, 1, 2));
	CASE_TRUE(tier_policy_move_allowed(0, 1U << 1, 0, 2));
	/* Evacuating and offline at once: nothing from or to it. */
	CASE_FALSE(tier_policy_move_allowed(1U << 1, 1U << 1, 1, 0));
}

/* Evacuation: faster tiers with room first, never a blocked one (docs). */
struct evac_dest_params {
	u32 nr_tiers;
	u32 src;
	u32 blocked;
	u64 free[4];
	int dest; /* or -ENOSPC / -ENOENT */
	u32 full_tier; /* with -ENOSPC */
	u32 pref; /* evacuate --to, when has_pref */
	bool has_pref; /* false: TIER_EVAC_NO_PREF */
};

/* clang-format off */
static const struct evac_dest_params evac_dest_cases[] = {
	/* Tier 1 of three: tier 0 has room, it goes up. */
	{ 3, 1, 0, { 5, 0, 9 }, 0, 0 },
	/* Tier 0 full: down to tier 2. */
	{ 3, 1, 0, { 0, 0, 9 }, 2, 0 },
	/* Tier 0 offline: down to tier 2 though tier 0 has room. */
	{ 3, 1, 1U << 0, { 5, 0, 9 }, 2, 0 },
	/* Tier 2 evacuating too: only tier 0. */
	{ 3, 1, 1U << 2, { 5, 0, 9 }, 0, 0 },
	/* Tier 0 (a separate metadata device): tier 1 first. */
	{ 3, 0, 0, { 0, 4, 9 }, 1, 0 },
	/* The source's own free extents never count. */
	{ 2, 1, 0, { 0, 7 }, -ENOSPC, 0 },
	/* Both others full: ENOSPC names the fastest allowed one. */
	{ 3, 0, 1U << 1, { 9, 0, 0 }, -ENOSPC, 2 },
	/* Every other tier blocked: nowhere at all. */
	{ 3, 1, (1U << 0) | (1U << 2), { 5, 0, 9 }, -ENOENT, 0 },
	/* One tier: nowhere. */
	{ 1, 0, 0, { 5 }, -ENOENT, 0 },
	/* --to 2: tier 2 first although tier 0 is faster and has room. */
	{ 4, 1, 0, { 5, 0, 9, 3 }, 2, 0, 2, true },
	/* --to 3, full: the usual choice (fastest with room), not a stop. */
	{ 4, 1, 0, { 5, 0, 9, 0 }, 0, 0, 3, true },
	/* --to 3 offline (blocked): the usual choice. */
	{ 4, 1, 1U << 3, { 0, 0, 9, 4 }, 2, 0, 3, true },
	/* --to the source itself: no preference. */
	{ 3, 1, 0, { 0, 8, 9 }, 2, 0, 1, true },
	/* --to past the tier count: no preference. */
	{ 3, 1, 0, { 5, 0, 9 }, 0, 0, 7, true },
	/* --to 0 (tier 0 is a valid preference: separate metadata device). */
	{ 3, 2, 0, { 5, 9, 0 }, 0, 0, 0, true },
	/* --to 2, everything full: ENOSPC names the fastest, not the preferred. */
	{ 3, 1, 0, { 0, 0, 0 }, -ENOSPC, 0, 2, true },
};

/* clang-format on */

static void evac_dest_desc(const struct evac_dest_params *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%u tiers src %u blocked 0x%x pref %d",
		 c->nr_tiers, c->src, c->blocked,
		 c->has_pref ? (int)c->pref : -1);
}

CASE_PARAMS(evac_dest, evac_dest_cases, evac_dest_desc);

static void tier_policy_evac_dest_test(CASE_CTX)
{
	const struct evac_dest_params *p = CASE_PARAM;
	u32 full = 99;
	int r = tier_policy_evac_dest(p->nr_tiers, p->src, p->blocked, p->free,
				      p->has_pref ? p->pref : TIER_EVAC_NO_PREF,
				      &full);

	CASE_EQ(r, p->dest);
	if (r == -ENOSPC)
		CASE_EQ(full, p->full_tier);
}

struct evac_room_params {
	u32 nr_tiers;
	u32 src;
	u32 blocked;
	u64 free[4];
	u64 mapped;
	u64 missing;
};

/* clang-format off */
static const struct evac_room_params evac_room_cases[] = {
	/* Fits exactly over two tiers. */
	{ 3, 1, 0, { 4, 0, 6 }, 10, 0 },
	/* One extent short. */
	{ 3, 1, 0, { 4, 0, 5 }, 10, 1 },
	/* An offline tier's room does not count. */
	{ 3, 1, 1U << 2, { 4, 0, 6 }, 10, 6 },
	/* Nothing mapped: always fits, even with nowhere to go. */
	{ 2, 1, 1U << 0, { 0, 0 }, 0, 0 },
	/* The source's own room never counts. */
	{ 2, 1, 0, { 2, 100 }, 3, 1 },
	/* Large counts do not overflow. */
	{ 3, 2, 0, { 1ULL << 47, 1ULL << 47, 0 }, 1ULL << 48, 0 },
};

/* clang-format on */

static void evac_room_desc(const struct evac_room_params *c, char *desc)
{
	snprintf(desc, CASE_DESC_SIZE, "%u tiers src %u mapped %llu",
		 c->nr_tiers, c->src, (unsigned long long)c->mapped);
}

CASE_PARAMS(evac_room, evac_room_cases, evac_room_desc);

static void tier_policy_evac_room_test(CASE_CTX)
{
	const struct evac_room_params *p = CASE_PARAM;
	u64 missing = 99;
	int r = tier_policy_evac_room(p->nr_tiers, p->src, p->blocked, p->free,
				      p->mapped, &missing);

	CASE_EQ(missing, p->missing);
	CASE_EQ(r, p->missing ? -ENOSPC : 0);
}

static struct case_entry policy_cases[] = {
	CASE_RUN(tier_policy_cfg_defaults_test),
	CASE_RUN_PARAMS(tier_policy_cfg_check_test, check),
	CASE_RUN_PARAMS(tier_heat_test, heat),
	CASE_RUN(tier_policy_hysteresis_test),
	CASE_RUN(tier_policy_accept_test),
	CASE_RUN(tier_policy_demote_test),
	CASE_RUN(tier_policy_targets_test),
	CASE_RUN(tier_policy_promote_test),
	CASE_RUN(tier_policy_displace_test),
	CASE_RUN(tier_policy_pair_swaps_test),
	CASE_RUN(tier_policy_keys_test),
	CASE_RUN(tier_cand_model_test),
	CASE_RUN(tier_cand_small_test),
	CASE_RUN(tier_policy_pace_test),
	CASE_RUN(tier_policy_pace_bandwidth_test),
	CASE_RUN(tier_pace_name_test),
	CASE_RUN(tier_policy_move_allowed_test),
	CASE_RUN_PARAMS(tier_policy_evac_dest_test, evac_dest),
	CASE_RUN_PARAMS(tier_policy_evac_room_test, evac_room),
	{}
};
