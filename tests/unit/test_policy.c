// SPDX-License-Identifier: GPL-2.0
/* Unit tests for kernel/core/policy.c: migration settings, heat, watermark
 * hysteresis, classification of extents, the candidate heap, pacing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "format.h"
#include "extent_map.h"
#include "policy.h"

#define MIB (1ULL << 20)

/* ---- settings ----------------------------------------------------------- */

static void test_cfg_defaults(void **state)
{
	struct tier_policy_cfg cfg;
	const char *error = NULL;

	(void)state;
	memset(&cfg, 0x5a, sizeof(cfg));
	tier_policy_cfg_init(&cfg);
	assert_int_equal(cfg.auto_migrate, 1);
	assert_int_equal(cfg.high_watermark, 80);
	assert_int_equal(cfg.low_watermark, 60);
	assert_int_equal(cfg.demote_age, 0);
	assert_int_equal(cfg.drain_deadline, 0);
	assert_int_equal(cfg.promote_hits, 4);
	assert_int_equal(cfg.promote_window, 60);
	assert_int_equal(cfg.migration_bandwidth, 0);
	assert_int_equal(cfg.migration_inflight, 4);
	assert_int_equal(cfg.redirect_writes, 1);
	assert_int_equal(tier_policy_cfg_check(&cfg, &error), 0);
	assert_null(error);
}

static void test_cfg_check(void **state)
{
	static const char *const e_wm =
		"low_watermark must be below high_watermark";
	static const char *const e_win = "promote_window must be at least 1";
	static const char *const e_inf =
		"migration_inflight must be from 1 to 64";
	struct tier_policy_cfg cfg;
	const char *error;

	(void)state;
#define CHECK(field, value, msg)                                               \
	do {                                                                   \
		tier_policy_cfg_init(&cfg);                                    \
		cfg.field = (value);                                           \
		error = NULL;                                                  \
		if (msg) {                                                     \
			assert_int_equal(tier_policy_cfg_check(&cfg, &error),  \
					 -EINVAL);                             \
			assert_non_null(error);                                \
			assert_string_equal(error, (const char *)(msg));       \
		} else {                                                       \
			assert_int_equal(tier_policy_cfg_check(&cfg, &error),  \
					 0);                                   \
			assert_null(error);                                    \
		}                                                              \
	} while (0)
	CHECK(low_watermark, 79, NULL);
	CHECK(low_watermark, 80, e_wm);
	CHECK(low_watermark, 99, e_wm);
	CHECK(high_watermark, 61, NULL);
	CHECK(high_watermark, 60, e_wm);
	CHECK(high_watermark, 1, e_wm);
	CHECK(promote_window, 0, e_win);
	CHECK(promote_window, 1, NULL);
	CHECK(migration_inflight, 0, e_inf);
	CHECK(migration_inflight, 1, NULL);
	CHECK(migration_inflight, 64, NULL);
	CHECK(migration_inflight, 65, e_inf);
	CHECK(promote_hits, 0, NULL);
	CHECK(demote_age, TIER_DEMOTE_AGE_MAX, NULL);
#undef CHECK
	tier_policy_cfg_init(&cfg);
	cfg.high_watermark = 1;
	cfg.low_watermark = 0;
	assert_int_equal(tier_policy_cfg_check(&cfg, &error), 0);
	cfg.high_watermark = 100;
	cfg.low_watermark = 99;
	assert_int_equal(tier_policy_cfg_check(&cfg, &error), 0);
}

/* ---- heat --------------------------------------------------------------- */

struct heat_case {
	u16 heat;
	u32 atime, now, window;
	u16 decayed, touched;
};

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

static void test_heat(void **state)
{
	const struct heat_case *c;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(heat_cases); i++) {
		c = &heat_cases[i];
		if (tier_heat_decay(c->heat, c->atime, c->now, c->window) !=
		    c->decayed)
			fail_msg("case %zu: decay %u, want %u", i,
				 tier_heat_decay(c->heat, c->atime, c->now,
						 c->window),
				 c->decayed);
		if (tier_heat_touch(c->heat, c->atime, c->now, c->window) !=
		    c->touched)
			fail_msg("case %zu: touch %u, want %u", i,
				 tier_heat_touch(c->heat, c->atime, c->now,
						 c->window),
				 c->touched);
	}
}

/* ---- watermarks --------------------------------------------------------- */

static struct tier_usage usage(u64 total, u64 used, u64 free, u64 free_all)
{
	return (struct tier_usage){
		.total = total, .used = used, .free = free, .free_all = free_all
	};
}

/* Tier 0 of a 2-tier device goes through @used extents of 100. */
static void step0(const struct tier_policy_cfg *cfg,
		  struct tier_policy_plan *p, u64 used, bool draining, u64 need)
{
	struct tier_usage u[2] = { usage(100, used, 100 - used, 100 - used),
				   usage(1000, 0, 990, 1000) };

	tier_policy_update(cfg, u, p);
	if (p->draining[0] != draining || p->demote_need[0] != need)
		fail_msg("used %llu: draining %d need %llu, want %d %llu",
			 (unsigned long long)used, p->draining[0],
			 (unsigned long long)p->demote_need[0], draining,
			 (unsigned long long)need);
}

static void test_plan_hysteresis(void **state)
{
	struct tier_policy_cfg cfg;
	struct tier_policy_plan p;

	(void)state;
	tier_policy_cfg_init(&cfg);
	memset(&p, 0x5a, sizeof(p));
	tier_policy_plan_init(&p, 2);
	assert_int_equal(p.nr_tiers, 2);
	assert_false(p.draining[0]);
	assert_false(p.draining[1]);

	step0(&cfg, &p, 70, false, 0);
	step0(&cfg, &p, 80, false, 0); /* at high: not above */
	step0(&cfg, &p, 81, true, 21);
	step0(&cfg, &p, 100, true, 40);
	step0(&cfg, &p, 79, true, 19); /* between: keeps draining */
	step0(&cfg, &p, 61, true, 1);
	step0(&cfg, &p, 60, false, 0); /* at low: stops */
	step0(&cfg, &p, 61, false, 0);
	step0(&cfg, &p, 80, false, 0);
	step0(&cfg, &p, 81, true, 21);
	step0(&cfg, &p, 10, false, 0);

	/* During a burst a draining tier 0 keeps draining at low. */
	step0(&cfg, &p, 81, true, 21);
	p.burst = true;
	step0(&cfg, &p, 60, true, 0);
	step0(&cfg, &p, 75, true, 15);
	p.burst = false;
	step0(&cfg, &p, 60, false, 0);

	/* With a drain deadline, tier 0 drains from its low watermark on. */
	cfg.drain_deadline = 30;
	step0(&cfg, &p, 60, false, 0);
	step0(&cfg, &p, 61, true, 1);
	step0(&cfg, &p, 75, true, 15);
	step0(&cfg, &p, 60, false, 0);
	cfg.drain_deadline = 0;

	/* Percentages of a small tier: floor(60% of 7) = 4. */
	{
		struct tier_usage u[2] = { usage(7, 6, 1, 1),
					   usage(100, 0, 100, 100) };

		tier_policy_plan_init(&p, 2);
		tier_policy_update(&cfg, u, &p); /* 600 > 560 */
		assert_true(p.draining[0]);
		assert_int_equal(p.demote_need[0], 2);
		u[0].used = 5; /* 500 > 420 */
		tier_policy_update(&cfg, u, &p);
		assert_true(p.draining[0]);
		assert_int_equal(p.demote_need[0], 1);
		u[0].used = 4; /* 400 <= 420 */
		tier_policy_update(&cfg, u, &p);
		assert_false(p.draining[0]);
		assert_int_equal(p.demote_need[0], 0);
		assert_int_equal(p.accept_promote[0], 0);
		u[0].used = 3;
		tier_policy_update(&cfg, u, &p);
		assert_int_equal(p.accept_promote[0], 1);
	}
}

static void test_plan_accept(void **state)
{
	struct tier_policy_cfg cfg;
	struct tier_policy_plan p;
	struct tier_usage u[3];
	u32 t;

	(void)state;
	tier_policy_cfg_init(&cfg);
	tier_policy_plan_init(&p, 3);
	u[0] = usage(100, 10, 88, 90);
	u[1] = usage(1000, 300, 5, 700);
	u[2] = usage(1000, 1000, 0, 0); /* the last tier never drains */
	tier_policy_update(&cfg, u, &p);
	assert_false(p.draining[0]);
	assert_false(p.draining[1]);
	assert_false(p.draining[2]);
	assert_int_equal(p.demote_need[2], 0);
	assert_int_equal(p.accept_demote[0], 0);
	assert_int_equal(p.accept_demote[1], 700); /* free_all */
	assert_int_equal(p.accept_demote[2], 0);
	assert_int_equal(p.accept_promote[0], 50); /* up to low */
	assert_int_equal(p.accept_promote[1], 5); /* within free */
	assert_int_equal(p.accept_promote[2], 0); /* last */
	for (t = 3; t < TIER_MAX_TIERS; t++) {
		assert_false(p.draining[t]);
		assert_int_equal(p.demote_need[t], 0);
		assert_int_equal(p.accept_demote[t], 0);
		assert_int_equal(p.accept_promote[t], 0);
	}

	/* The reserve is only for demotion. */
	u[1] = usage(1000, 100, 0, 20);
	tier_policy_update(&cfg, u, &p);
	assert_int_equal(p.accept_demote[1], 20);
	assert_int_equal(p.accept_promote[1], 0);

	/* Draining: demotes, accepts no promotion, still takes demotions. */
	u[1] = usage(1000, 900, 80, 100);
	tier_policy_update(&cfg, u, &p);
	assert_true(p.draining[1]);
	assert_int_equal(p.demote_need[1], 300);
	assert_int_equal(p.accept_promote[1], 0);
	assert_int_equal(p.accept_demote[1], 100);

	/* Last tier past its watermark: nothing to drain to. */
	u[2] = usage(1000, 999, 1, 1);
	tier_policy_update(&cfg, u, &p);
	assert_false(p.draining[2]);
	assert_int_equal(p.demote_need[2], 0);
	assert_int_equal(p.accept_demote[2], 1);

	/* A single tier neither drains nor accepts anything. */
	tier_policy_plan_init(&p, 1);
	u[0] = usage(100, 100, 0, 0);
	tier_policy_update(&cfg, u, &p);
	assert_false(p.draining[0]);
	assert_int_equal(p.demote_need[0], 0);
	assert_int_equal(p.accept_demote[0], 0);
	assert_int_equal(p.accept_promote[0], 0);
	u[0] = usage(100, 0, 100, 100);
	tier_policy_update(&cfg, u, &p);
	assert_int_equal(p.accept_promote[0], 0);

	/* Big tiers: no overflow in the percentages. */
	tier_policy_plan_init(&p, 2);
	u[0] = usage(1ULL << 48, (1ULL << 48) - 1, 1, 1);
	u[1] = usage(1ULL << 48, 0, 1ULL << 48, 1ULL << 48);
	tier_policy_update(&cfg, u, &p);
	assert_true(p.draining[0]);
	assert_int_equal(p.demote_need[0],
			 (1ULL << 48) - 1 - (1ULL << 48) / 100 * 60 -
				 ((1ULL << 48) % 100) * 60 / 100);
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
	struct tier_loc loc = { .tier = tier, .flags = flags,
				.pext = tier_pext(3) };

	memset(w, 0x5a, sizeof(*w));
	return tier_policy_classify(cfg, p, tier_vext(77), &loc, heat, atime,
				    now, w);
}

static void expect_work(const struct tier_work *w, u32 kind, u32 from, u32 to)
{
	assert_int_equal(w->kind, kind);
	assert_int_equal(w->vext, 77);
	assert_int_equal(w->from, from);
	assert_int_equal(w->to, to);
}

static void test_classify_demote(void **state)
{
	static const u64 drain0[] = { 90, 0, 0 };
	static const u64 calm[] = { 50, 0, 0 };
	struct tier_policy_cfg cfg;
	struct tier_policy_plan p;
	struct tier_work w;

	(void)state;
	tier_policy_cfg_init(&cfg);

	/* Watermark: tier 0 above high demotes to tier 1. */
	plan_of(&cfg, &p, 3, drain0, NULL);
	assert_int_equal(classify(&cfg, &p, 0, 0, 0, 1000, 1000, &w),
			 TIER_WORK_DEMOTE);
	expect_work(&w, TIER_WORK_DEMOTE, 0, 1);
	assert_int_equal(w.key, 1000);
	assert_int_equal(classify(&cfg, &p, 0, 0, 3, 1000, 1000, &w),
			 TIER_WORK_DEMOTE);
	assert_int_equal(w.key, 3ULL << 32 | 1000);
	/* Tier 1 is not draining: its extents stay. */
	assert_int_equal(classify(&cfg, &p, 1, 0, 0, 0, 1000, &w),
			 TIER_WORK_NONE);
	/* Pinned and auto_migrate 0: never. */
	assert_int_equal(classify(&cfg, &p, 0, TIER_EXT_F_PINNED, 0, 1000,
				  1000, &w),
			 TIER_WORK_NONE);
	cfg.auto_migrate = 0;
	assert_int_equal(classify(&cfg, &p, 0, 0, 0, 1000, 1000, &w),
			 TIER_WORK_NONE);
	cfg.auto_migrate = 1;

	/* Below the watermark nothing moves without demote_age. */
	plan_of(&cfg, &p, 3, calm, NULL);
	assert_int_equal(classify(&cfg, &p, 0, 0, 0, 0, U32_MAX, &w),
			 TIER_WORK_NONE);

	/* Age: demote_age seconds without access. */
	cfg.demote_age = 100;
	assert_int_equal(classify(&cfg, &p, 0, 0, 0, 1000, 1099, &w),
			 TIER_WORK_NONE);
	assert_int_equal(classify(&cfg, &p, 0, 0, 0, 1000, 1100, &w),
			 TIER_WORK_DEMOTE);
	expect_work(&w, TIER_WORK_DEMOTE, 0, 1);
	assert_int_equal(w.key, 1000);
	assert_int_equal(classify(&cfg, &p, 1, 0, 1, 1000, 1100, &w),
			 TIER_WORK_DEMOTE);
	expect_work(&w, TIER_WORK_DEMOTE, 1, 2);
	/* clock went backwards: not old */
	assert_int_equal(classify(&cfg, &p, 0, 0, 0, 5000, 1100, &w),
			 TIER_WORK_NONE);
	/* nowhere below the last tier */
	assert_int_equal(classify(&cfg, &p, 2, 0, 0, 0, 1100, &w),
			 TIER_WORK_NONE);
	assert_int_equal(classify(&cfg, &p, 0, TIER_EXT_F_PINNED, 0, 1000,
				  1100, &w),
			 TIER_WORK_NONE);
	/* Still hot after decay: not demoted by age (it would come back). */
	assert_int_equal(classify(&cfg, &p, 0, 0, 100, 1000, 1100, &w),
			 TIER_WORK_NONE);
	/* ...unless promotion is off, when heat means nothing. */
	cfg.promote_hits = 0;
	assert_int_equal(classify(&cfg, &p, 0, 0, 100, 1000, 1100, &w),
			 TIER_WORK_DEMOTE);
	assert_int_equal(w.key, 50ULL << 32 | 1000); /* decayed by one */
	cfg.promote_hits = TIER_PROMOTE_HITS_DEF;
	cfg.auto_migrate = 0;
	assert_int_equal(classify(&cfg, &p, 0, 0, 0, 1000, 1100, &w),
			 TIER_WORK_NONE);
}

static void test_classify_targets(void **state)
{
	static const u64 drain0[] = { 90, 50, 0 };
	static const s64 full1[] = { -1, 0, -1 };
	static const s64 full12[] = { -1, 0, 0 };
	static const u64 one[] = { 100 };
	struct tier_policy_cfg cfg;
	struct tier_policy_plan p;
	struct tier_work w;

	(void)state;
	tier_policy_cfg_init(&cfg);

	/* Demotion skips a middle tier without room. */
	plan_of(&cfg, &p, 3, drain0, full1);
	assert_int_equal(p.accept_demote[1], 0);
	assert_int_equal(classify(&cfg, &p, 0, 0, 0, 0, 0, &w),
			 TIER_WORK_DEMOTE);
	expect_work(&w, TIER_WORK_DEMOTE, 0, 2);

	/* No tier with room: nothing. */
	plan_of(&cfg, &p, 3, drain0, full12);
	assert_int_equal(classify(&cfg, &p, 0, 0, 0, 0, 0, &w),
			 TIER_WORK_NONE);
	cfg.demote_age = 1;
	assert_int_equal(classify(&cfg, &p, 1, 0, 0, 0, 10, &w),
			 TIER_WORK_NONE);
	cfg.demote_age = 0;

	/* A single tier: never anything. */
	plan_of(&cfg, &p, 1, one, NULL);
	cfg.demote_age = 1;
	assert_int_equal(classify(&cfg, &p, 0, 0, 0, 0, 100, &w),
			 TIER_WORK_NONE);
	assert_int_equal(classify(&cfg, &p, 0, 0, TIER_HEAT_MAX, 100, 100,
				  &w),
			 TIER_WORK_NONE);
	/* An extent on a tier the plan does not have: nothing. */
	assert_int_equal(classify(&cfg, &p, 1, 0, TIER_HEAT_MAX, 100, 100,
				  &w),
			 TIER_WORK_NONE);
	assert_int_equal(classify(&cfg, &p, 7, 0, 0, 0, 100, &w),
			 TIER_WORK_NONE);
}

static void test_classify_promote(void **state)
{
	static const u64 room0[] = { 10, 70, 0 };
	static const u64 room01[] = { 10, 10, 0 };
	static const u64 full0[] = { 60, 10, 0 };
	static const u64 full01[] = { 60, 60, 0 };
	static const u64 drain1[] = { 10, 95, 0 };
	struct tier_policy_cfg cfg;
	struct tier_policy_plan p;
	struct tier_work w;

	(void)state;
	tier_policy_cfg_init(&cfg);

	/* To the fastest tier with room. */
	plan_of(&cfg, &p, 3, room0, NULL);
	assert_int_equal(classify(&cfg, &p, 2, 0, 4, 500, 500, &w),
			 TIER_WORK_PROMOTE);
	expect_work(&w, TIER_WORK_PROMOTE, 2, 0);
	assert_int_equal(w.key,
			 (u64)(TIER_HEAT_MAX - 4) << 32 | (U32_MAX - 500));
	assert_int_equal(classify(&cfg, &p, 1, 0, 4, 500, 500, &w),
			 TIER_WORK_PROMOTE);
	expect_work(&w, TIER_WORK_PROMOTE, 1, 0);
	/* Below promote_hits: nothing. */
	assert_int_equal(classify(&cfg, &p, 2, 0, 3, 500, 500, &w),
			 TIER_WORK_NONE);
	/* Tier 0 cannot go up. */
	assert_int_equal(classify(&cfg, &p, 0, 0, 100, 500, 500, &w),
			 TIER_WORK_NONE);
	/* Heat decays with promote_window. */
	assert_int_equal(classify(&cfg, &p, 2, 0, 8, 500, 560, &w),
			 TIER_WORK_PROMOTE);
	assert_int_equal(w.key,
			 (u64)(TIER_HEAT_MAX - 4) << 32 | (U32_MAX - 500));
	assert_int_equal(classify(&cfg, &p, 2, 0, 8, 500, 620, &w),
			 TIER_WORK_NONE);
	assert_int_equal(classify(&cfg, &p, 2, TIER_EXT_F_PINNED, 100, 500,
				  500, &w),
			 TIER_WORK_NONE);
	cfg.promote_hits = 0;
	assert_int_equal(classify(&cfg, &p, 2, 0, TIER_HEAT_MAX, 500, 500,
				  &w),
			 TIER_WORK_NONE);
	cfg.promote_hits = 4;
	cfg.auto_migrate = 0;
	assert_int_equal(classify(&cfg, &p, 2, 0, 100, 500, 500, &w),
			 TIER_WORK_NONE);
	cfg.auto_migrate = 1;

	/* Both faster tiers have room: the fastest. */
	plan_of(&cfg, &p, 3, room01, NULL);
	assert_int_equal(classify(&cfg, &p, 2, 0, 4, 500, 500, &w),
			 TIER_WORK_PROMOTE);
	expect_work(&w, TIER_WORK_PROMOTE, 2, 0);

	/* Tier 0 at its low watermark: the next one with room. */
	plan_of(&cfg, &p, 3, full0, NULL);
	assert_int_equal(classify(&cfg, &p, 2, 0, 4, 500, 500, &w),
			 TIER_WORK_PROMOTE);
	expect_work(&w, TIER_WORK_PROMOTE, 2, 1);
	assert_int_equal(classify(&cfg, &p, 1, 0, 4, 500, 500, &w),
			 TIER_WORK_NONE);
	plan_of(&cfg, &p, 3, full01, NULL);
	assert_int_equal(classify(&cfg, &p, 2, 0, 4, 500, 500, &w),
			 TIER_WORK_NONE);

	/* Promotion wins over demotion from a draining tier... */
	plan_of(&cfg, &p, 3, drain1, NULL);
	assert_true(p.draining[1]);
	assert_int_equal(classify(&cfg, &p, 1, 0, 10, 500, 500, &w),
			 TIER_WORK_PROMOTE);
	expect_work(&w, TIER_WORK_PROMOTE, 1, 0);
	/* ...and over age. */
	cfg.demote_age = 10;
	assert_int_equal(classify(&cfg, &p, 1, 0, 100, 500, 510, &w),
			 TIER_WORK_PROMOTE);
	/* Cold extents on the draining tier go down. */
	assert_int_equal(classify(&cfg, &p, 1, 0, 3, 500, 500, &w),
			 TIER_WORK_DEMOTE);
	expect_work(&w, TIER_WORK_DEMOTE, 1, 2);
	/* Hot with nowhere to go up: the watermark still demotes it. */
	plan_of(&cfg, &p, 3, (const u64[]){ 60, 95, 0 }, NULL);
	assert_int_equal(classify(&cfg, &p, 1, 0, 100, 500, 500, &w),
			 TIER_WORK_DEMOTE);
	expect_work(&w, TIER_WORK_DEMOTE, 1, 2);
}

/* Demotion: colder first, then older. Promotion: hotter, then newer. */
static void test_classify_keys(void **state)
{
	static const u64 drain0[] = { 90, 10, 0 };
	struct tier_policy_cfg cfg;
	struct tier_policy_plan p;
	struct tier_work a, b;

	(void)state;
	tier_policy_cfg_init(&cfg);
	cfg.promote_hits = 0;
	cfg.promote_window = TIER_PROMOTE_WINDOW_MAX; /* no decay */
	plan_of(&cfg, &p, 3, drain0, NULL);
	classify(&cfg, &p, 0, 0, 1, 900, 1000, &a);
	classify(&cfg, &p, 0, 0, 2, 100, 1000, &b);
	assert_true(a.key < b.key);
	classify(&cfg, &p, 0, 0, 2, 99, 1000, &a);
	assert_true(a.key < b.key);
	classify(&cfg, &p, 0, 0, TIER_HEAT_MAX, U32_MAX, U32_MAX, &a);
	assert_int_equal(a.key, (u64)TIER_HEAT_MAX << 32 | U32_MAX);

	cfg.promote_hits = 1;
	classify(&cfg, &p, 2, 0, 9, 100, 1000, &a);
	classify(&cfg, &p, 2, 0, 8, 900, 1000, &b);
	assert_int_equal(a.kind, TIER_WORK_PROMOTE);
	assert_int_equal(b.kind, TIER_WORK_PROMOTE);
	assert_true(a.key < b.key);
	classify(&cfg, &p, 2, 0, 8, 901, 1000, &a);
	assert_true(a.key < b.key);
	classify(&cfg, &p, 2, 0, TIER_HEAT_MAX, U32_MAX, U32_MAX, &a);
	assert_int_equal(a.key, 0);
}

/* ---- candidate heap ----------------------------------------------------- */

#define HEAP_MAX 64

static u32 lcg(u32 *seed)
{
	*seed = *seed * 1103515245 + 12345;
	return *seed >> 8;
}

static void test_heap(void **state)
{
	struct tier_work store[HEAP_MAX + 1], w;
	u64 ref[HEAP_MAX]; /* the lowest keys so far, ascending */
	struct tier_cand_heap h;
	u32 seed = 7, round, cap, n, i, j, nref, range;
	bool kept, want;

	(void)state;
	for (round = 0; round < 400; round++) {
		cap = 1 + lcg(&seed) % HEAP_MAX;
		n = lcg(&seed) % (3 * HEAP_MAX);
		/* small ranges make duplicate keys */
		range = round % 3 ? 1U << (lcg(&seed) % 24) : 4;
		/* a guard item past @cap catches writes beyond it */
		memset(store, 0xa5, sizeof(store));
		tier_cand_init(&h, store, cap);
		assert_int_equal(h.nr, 0);
		assert_int_equal(h.cap, cap);
		nref = 0;
		for (i = 0; i < n; i++) {
			memset(&w, 0, sizeof(w));
			w.key = (u64)(lcg(&seed) % range) << 20 | i;
			w.key = round & 1 ? w.key >> 20 : w.key;
			w.vext = ~w.key;
			w.from = i;
			want = nref < cap || w.key < ref[nref - 1];
			kept = tier_cand_offer(&h, &w);
			assert_int_equal(kept, want);
			if (!want)
				continue;
			if (nref == cap)
				nref--;
			for (j = nref; j > 0 && ref[j - 1] > w.key; j--)
				ref[j] = ref[j - 1];
			ref[j] = w.key;
			nref++;
		}
		assert_int_equal(h.nr, nref);
		tier_cand_sort(&h);
		for (i = 0; i < nref; i++) {
			assert_int_equal(store[i].key, ref[i]);
			assert_int_equal(store[i].vext, ~store[i].key);
		}
		assert_int_equal(store[cap].key, 0xa5a5a5a5a5a5a5a5ULL);
	}
}

static void test_heap_small(void **state)
{
	static const u64 keys[] = { 5, 3, 9, 1, 7, 3, 0, U64_MAX };
	struct tier_work store[3], w = { 0 };
	struct tier_cand_heap h;
	size_t i;

	(void)state;
	tier_cand_init(&h, store, 3);
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		w.key = keys[i];
		tier_cand_offer(&h, &w);
	}
	tier_cand_sort(&h);
	assert_int_equal(h.nr, 3);
	assert_int_equal(store[0].key, 0);
	assert_int_equal(store[1].key, 1);
	assert_int_equal(store[2].key, 3);

	/* An equal key does not evict. */
	tier_cand_init(&h, store, 1);
	w.key = 4;
	w.vext = 1;
	assert_true(tier_cand_offer(&h, &w));
	w.vext = 2;
	assert_false(tier_cand_offer(&h, &w));
	w.key = 3;
	assert_true(tier_cand_offer(&h, &w));
	tier_cand_sort(&h);
	assert_int_equal(h.nr, 1);
	assert_int_equal(store[0].key, 3);
	assert_int_equal(store[0].vext, 2);

	/* Empty sorts to empty. */
	tier_cand_init(&h, store, 3);
	tier_cand_sort(&h);
	assert_int_equal(h.nr, 0);
}

/* ---- pacing ------------------------------------------------------------- */

static struct tier_pace pace(const struct tier_policy_cfg *cfg, bool work,
			     bool urgent, bool fg_busy, u64 drain_extents,
			     u32 since_burst, u64 extent_bytes)
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
	return out;
}

static void expect_pace(struct tier_pace p, u32 mode, u32 inflight, u64 rate)
{
	if (p.mode != mode || p.max_inflight != inflight || p.rate != rate)
		fail_msg("pace %s/%u/%llu, want %s/%u/%llu",
			 tier_pace_name(p.mode), p.max_inflight,
			 (unsigned long long)p.rate, tier_pace_name(mode),
			 inflight, (unsigned long long)rate);
}

static void test_pace(void **state)
{
	struct tier_policy_cfg cfg;

	(void)state;
	tier_policy_cfg_init(&cfg);
	cfg.migration_inflight = 8;

	/* Idle: no work, whatever else. */
	expect_pace(pace(&cfg, false, true, true, 100, 0, MIB), TIER_PACE_IDLE,
		    0, 0);
	expect_pace(pace(&cfg, false, false, false, 0, 0, MIB),
		    TIER_PACE_IDLE, 0, 0);
	/* Full: urgent, or the foreground idle. */
	expect_pace(pace(&cfg, true, true, true, 100, 0, MIB), TIER_PACE_FULL,
		    8, 0);
	expect_pace(pace(&cfg, true, false, false, 0, 0, MIB), TIER_PACE_FULL,
		    8, 0);
	/* Busy, nothing urgent, no deadline: background. */
	expect_pace(pace(&cfg, true, false, true, 100, 5, MIB),
		    TIER_PACE_BACKGROUND, 1, TIER_BACKGROUND_RATE);

	/* Deadline: 1000 MiB in the 80 s left, plus a quarter. */
	cfg.drain_deadline = 100;
	expect_pace(pace(&cfg, true, false, true, 1000, 20, MIB),
		    TIER_PACE_DEADLINE, 8, 1000 * MIB / 80 * 5 / 4);
	expect_pace(pace(&cfg, true, false, true, 1000, 0, MIB),
		    TIER_PACE_DEADLINE, 8, 1000 * MIB / 100 * 5 / 4);
	expect_pace(pace(&cfg, true, false, true, 3, 99, 4096),
		    TIER_PACE_DEADLINE, 8, 3 * 4096 + 3 * 4096 / 4);
	/* at least 1 byte/s (0 would mean unlimited) */
	expect_pace(pace(&cfg, true, false, true, 1, 0, 1), TIER_PACE_DEADLINE,
		    8, 1);
	/* saturates instead of wrapping */
	expect_pace(pace(&cfg, true, false, true, U64_MAX, 99, 1ULL << 26),
		    TIER_PACE_DEADLINE, 8, U64_MAX);
	/* the deadline passed: full speed */
	expect_pace(pace(&cfg, true, false, true, 1000, 100, MIB),
		    TIER_PACE_FULL, 8, 0);
	expect_pace(pace(&cfg, true, false, true, 1000, U32_MAX, MIB),
		    TIER_PACE_FULL, 8, 0);
	/* nothing to drain: background */
	expect_pace(pace(&cfg, true, false, true, 0, 20, MIB),
		    TIER_PACE_BACKGROUND, 1, TIER_BACKGROUND_RATE);
	/* urgent or idle foreground beats the deadline */
	expect_pace(pace(&cfg, true, true, true, 1000, 20, MIB),
		    TIER_PACE_FULL, 8, 0);
	expect_pace(pace(&cfg, true, false, false, 1000, 20, MIB),
		    TIER_PACE_FULL, 8, 0);
}

static void test_pace_bandwidth(void **state)
{
	struct tier_policy_cfg cfg;

	(void)state;
	tier_policy_cfg_init(&cfg);
	cfg.drain_deadline = 100;
	cfg.migration_bandwidth = 10;
	expect_pace(pace(&cfg, false, true, true, 100, 0, MIB), TIER_PACE_IDLE,
		    0, 0);
	expect_pace(pace(&cfg, true, true, true, 100, 0, MIB), TIER_PACE_FULL,
		    4, 10 * MIB);
	expect_pace(pace(&cfg, true, false, false, 100, 0, MIB),
		    TIER_PACE_FULL, 4, 10 * MIB);
	expect_pace(pace(&cfg, true, false, true, 100, 100, MIB),
		    TIER_PACE_FULL, 4, 10 * MIB);
	expect_pace(pace(&cfg, true, false, true, 0, 0, MIB),
		    TIER_PACE_BACKGROUND, 1, 10 * MIB);
	expect_pace(pace(&cfg, true, false, true, 1000, 20, MIB),
		    TIER_PACE_DEADLINE, 4, 10 * MIB);
	/* A cap above the mode's own rate changes nothing. */
	cfg.migration_bandwidth = 100;
	expect_pace(pace(&cfg, true, false, true, 0, 0, MIB),
		    TIER_PACE_BACKGROUND, 1, TIER_BACKGROUND_RATE);
	expect_pace(pace(&cfg, true, false, true, 1000, 20, MIB),
		    TIER_PACE_DEADLINE, 4, 1000 * MIB / 80 * 5 / 4);
	cfg.migration_bandwidth = TIER_MIG_BANDWIDTH_MAX;
	expect_pace(pace(&cfg, true, true, true, 0, 0, MIB), TIER_PACE_FULL, 4,
		    (u64)TIER_MIG_BANDWIDTH_MAX << 20);
	expect_pace(pace(&cfg, true, false, true, U64_MAX, 0, MIB),
		    TIER_PACE_DEADLINE, 4, (u64)TIER_MIG_BANDWIDTH_MAX << 20);
}

static void test_pace_name(void **state)
{
	(void)state;
	assert_string_equal(tier_pace_name(TIER_PACE_IDLE), "idle");
	assert_string_equal(tier_pace_name(TIER_PACE_FULL), "full");
	assert_string_equal(tier_pace_name(TIER_PACE_DEADLINE), "deadline");
	assert_string_equal(tier_pace_name(TIER_PACE_BACKGROUND),
			    "background");
	assert_string_equal(tier_pace_name(4), "?");
	assert_string_equal(tier_pace_name(U32_MAX), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfg_defaults),
		cmocka_unit_test(test_cfg_check),
		cmocka_unit_test(test_heat),
		cmocka_unit_test(test_plan_hysteresis),
		cmocka_unit_test(test_plan_accept),
		cmocka_unit_test(test_classify_demote),
		cmocka_unit_test(test_classify_targets),
		cmocka_unit_test(test_classify_promote),
		cmocka_unit_test(test_classify_keys),
		cmocka_unit_test(test_heap),
		cmocka_unit_test(test_heap_small),
		cmocka_unit_test(test_pace),
		cmocka_unit_test(test_pace_bandwidth),
		cmocka_unit_test(test_pace_name),
	};

	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
