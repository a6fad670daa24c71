/* SPDX-License-Identifier: GPL-2.0 */
/*
 * case-kunit.h - tests/cases/case.h's checks as KUnit's: the KUnit shims
 * (tests/kunit/<part>_kunit.c) include it before their cases.
 */
#ifndef DM_TIER_CASE_KUNIT_H
#define DM_TIER_CASE_KUNIT_H

#include <kunit/test.h>
#include <kunit/resource.h>

#define CASE_CTX struct kunit *test
#define CASE_PARAM (test->param_value)
#define CASE_DESC_SIZE KUNIT_PARAM_DESC_SIZE

#define CASE_EQ(a, b) KUNIT_EXPECT_EQ(test, a, b)
#define CASE_NE(a, b) KUNIT_EXPECT_NE(test, a, b)
#define CASE_LT(a, b) KUNIT_EXPECT_LT(test, a, b)
#define CASE_LE(a, b) KUNIT_EXPECT_LE(test, a, b)
#define CASE_GT(a, b) KUNIT_EXPECT_GT(test, a, b)
#define CASE_GE(a, b) KUNIT_EXPECT_GE(test, a, b)
#define CASE_TRUE(c) KUNIT_EXPECT_TRUE(test, c)
#define CASE_FALSE(c) KUNIT_EXPECT_FALSE(test, c)
#define CASE_NULL(p) KUNIT_EXPECT_NULL(test, p)
#define CASE_NOT_NULL(p) KUNIT_EXPECT_NOT_NULL(test, p)
#define CASE_PTR_EQ(a, b) KUNIT_EXPECT_PTR_EQ(test, a, b)
#define CASE_STREQ(a, b) KUNIT_EXPECT_STREQ(test, a, b)
#define CASE_STRNEQ(a, b) KUNIT_EXPECT_STRNEQ(test, a, b)
/* 6.1 has no KUNIT_EXPECT_MEMEQ. */
#define CASE_MEMEQ(a, b, n) KUNIT_EXPECT_EQ(test, memcmp(a, b, n), 0)
#define CASE_EQ_MSG(a, b, ...) KUNIT_EXPECT_EQ_MSG(test, a, b, __VA_ARGS__)
#define CASE_NE_MSG(a, b, ...) KUNIT_EXPECT_NE_MSG(test, a, b, __VA_ARGS__)
#define CASE_LT_MSG(a, b, ...) KUNIT_EXPECT_LT_MSG(test, a, b, __VA_ARGS__)
#define CASE_LE_MSG(a, b, ...) KUNIT_EXPECT_LE_MSG(test, a, b, __VA_ARGS__)
#define CASE_TRUE_MSG(c, ...) KUNIT_EXPECT_TRUE_MSG(test, c, __VA_ARGS__)
#define CASE_FALSE_MSG(c, ...) KUNIT_EXPECT_FALSE_MSG(test, c, __VA_ARGS__)
#define CASE_FAIL(...) KUNIT_FAIL(test, __VA_ARGS__)
#define CASE_INFO(...) kunit_info(test, __VA_ARGS__)

#define CASE_ASSERT_EQ(a, b) KUNIT_ASSERT_EQ(test, a, b)
#define CASE_ASSERT_NE(a, b) KUNIT_ASSERT_NE(test, a, b)
#define CASE_ASSERT_LT(a, b) KUNIT_ASSERT_LT(test, a, b)
#define CASE_ASSERT_GT(a, b) KUNIT_ASSERT_GT(test, a, b)
#define CASE_ASSERT_GE(a, b) KUNIT_ASSERT_GE(test, a, b)
#define CASE_ASSERT_TRUE(c) KUNIT_ASSERT_TRUE(test, c)
#define CASE_ASSERT_NOT_NULL(p) KUNIT_ASSERT_NOT_NULL(test, p)
#define CASE_ASSERT_STREQ(a, b) KUNIT_ASSERT_STREQ(test, a, b)
#define CASE_ASSERT_EQ_MSG(a, b, ...) \
	KUNIT_ASSERT_EQ_MSG(test, a, b, __VA_ARGS__)

/* Zeroed memory owned by the case: KUnit frees it when the case ends. */
#define case_zalloc(size) kunit_kzalloc(test, size, GFP_KERNEL)
#define case_free(p) kunit_kfree(test, p)

/* fn(arg) when the case ends, as a KUnit resource (6.1 has no actions). */
struct case_deferred {
	void (*fn)(void *arg);
	void *arg;
};

static inline int case_deferred_init(struct kunit_resource *res, void *ctx)
{
	res->data = kmemdup(ctx, sizeof(struct case_deferred), GFP_KERNEL);
	return res->data ? 0 : -ENOMEM;
}

static inline void case_deferred_run(struct kunit_resource *res)
{
	struct case_deferred *d = res->data;

	d->fn(d->arg);
	kfree(d);
}

static inline int case_defer(struct kunit *test, void (*fn)(void *arg),
			     void *arg)
{
	struct case_deferred d = { fn, arg };

	if (kunit_alloc_resource(test, case_deferred_init, case_deferred_run,
				 GFP_KERNEL, &d))
		return 0;
	fn(arg);
	return -ENOMEM;
}

/* Let the kernel run something else during a long case. */
#define case_yield() cond_resched()

/*
 * A case may not take the core down a WARN_ON path: a warning taints the
 * kernel, and the VM bench (test 009) fails the run on it.
 */
#define CASE_WARN_OK 0

/* The kernel's allocator takes no injected faults from the cases. */
#define CASE_FAULT_INJECTION 0
#define case_fail_alloc(n) ((void)(n))
#define case_fail_alloc_left() 0

#define case_entry kunit_case
#define CASE_PARAMS(name, array, desc) KUNIT_ARRAY_PARAM(name, array, desc)
#define CASE_RUN(fn) KUNIT_CASE(fn)
#define CASE_RUN_PARAMS(fn, name) KUNIT_CASE_PARAM(fn, name##_gen_params)

#include "../cases/case.h"

#endif /* DM_TIER_CASE_KUNIT_H */
