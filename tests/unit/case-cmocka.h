/* SPDX-License-Identifier: GPL-2.0 */
/*
 * case-cmocka.h - tests/cases/case.h's checks as cmocka's: the cmocka shims
 * of the core (tests/unit/test_<part>.c) include it before their cases.
 */
#ifndef DM_TIER_CASE_CMOCKA_H
#define DM_TIER_CASE_CMOCKA_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

/*
 * The cases' tables use partial positional initializers, as kernel code
 * may (the kernel builds with -Wno-missing-field-initializers).
 */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define CASE_CTX void **test
#define CASE_PARAM (*test)
#define CASE_DESC_SIZE 128

/* cmocka ends the case on any failed check. */
#define CASE_EQ(a, b) assert_int_equal(a, b)
#define CASE_NE(a, b) assert_int_not_equal(a, b)
#define CASE_LT(a, b) assert_true((a) < (b))
#define CASE_LE(a, b) assert_true((a) <= (b))
#define CASE_GT(a, b) assert_true((a) > (b))
#define CASE_GE(a, b) assert_true((a) >= (b))
#define CASE_TRUE(c) assert_true(c)
#define CASE_FALSE(c) assert_false(c)
#define CASE_NULL(p) assert_null(p)
#define CASE_NOT_NULL(p) assert_non_null(p)
#define CASE_PTR_EQ(a, b) assert_ptr_equal(a, b)
#define CASE_STREQ(a, b) assert_string_equal(a, b)
#define CASE_STRNEQ(a, b) assert_string_not_equal(a, b)
#define CASE_MEMEQ(a, b, n) assert_memory_equal(a, b, n)
#define CASE_EQ_MSG(a, b, ...)                             \
	case_msg(cast_to_largest_integral_type(a) ==       \
			 cast_to_largest_integral_type(b), \
		 #a " == " #b, __FILE__, __LINE__, __VA_ARGS__)
#define CASE_NE_MSG(a, b, ...) CASE_TRUE_MSG((a) != (b), __VA_ARGS__)
#define CASE_LT_MSG(a, b, ...) CASE_TRUE_MSG((a) < (b), __VA_ARGS__)
#define CASE_LE_MSG(a, b, ...) CASE_TRUE_MSG((a) <= (b), __VA_ARGS__)
#define CASE_TRUE_MSG(c, ...) \
	case_msg(!!(c), #c, __FILE__, __LINE__, __VA_ARGS__)
#define CASE_FALSE_MSG(c, ...) \
	case_msg(!(c), "!(" #c ")", __FILE__, __LINE__, __VA_ARGS__)
#define CASE_FAIL(...) fail_msg(__VA_ARGS__)
/* A line of its own, as kunit_info() prints. */
#define CASE_INFO(...)                      \
	do {                                \
		print_message(__VA_ARGS__); \
		print_message("\n");        \
	} while (0)

#define CASE_ASSERT_EQ(a, b) CASE_EQ(a, b)
#define CASE_ASSERT_NE(a, b) CASE_NE(a, b)
#define CASE_ASSERT_LT(a, b) CASE_LT(a, b)
#define CASE_ASSERT_GT(a, b) CASE_GT(a, b)
#define CASE_ASSERT_GE(a, b) CASE_GE(a, b)
#define CASE_ASSERT_TRUE(c) CASE_TRUE(c)
#define CASE_ASSERT_NOT_NULL(p) CASE_NOT_NULL(p)
#define CASE_ASSERT_STREQ(a, b) CASE_STREQ(a, b)
#define CASE_ASSERT_EQ_MSG(a, b, ...) CASE_EQ_MSG(a, b, __VA_ARGS__)

/* A check with a message: on failure, the message, then cmocka's report. */
static inline void __attribute__((format(printf, 5, 6)))
case_msg(int ok, const char *expr, const char *file, int line, const char *fmt,
	 ...)
{
	va_list ap;

	if (ok)
		return;
	va_start(ap, fmt);
	vprint_message(fmt, ap);
	va_end(ap);
	print_message("\n");
	_assert_true(0, expr, file, line);
}

/*
 * What the case owns, freed or run when it ends (last first), as KUnit's
 * resources are, so that a failed check leaks nothing: zeroed memory
 * (case_zalloc, never subject to case_fail_alloc()) and deferred calls
 * (case_defer).
 */
struct case_res {
	struct case_res *next;
	void (*fn)(void *arg);
	void *arg;
	max_align_t data[];
};

static struct case_res *case_res_list;

static inline struct case_res *case_res_add(size_t size)
{
	struct case_res *r = calloc(1, sizeof(*r) + size);

	if (r) {
		r->next = case_res_list;
		case_res_list = r;
	}
	return r;
}

static inline void *case_zalloc(size_t size)
{
	struct case_res *r = case_res_add(size);

	return r ? r->data : NULL;
}

static inline void case_free(void *p)
{
	struct case_res **pr, *r;

	for (pr = &case_res_list; (r = *pr); pr = &r->next) {
		if (!r->fn && r->data == p) {
			*pr = r->next;
			free(r);
			return;
		}
	}
}

static inline int case_defer(void **test, void (*fn)(void *arg), void *arg)
{
	struct case_res *r = case_res_add(0);

	if (!r) {
		fn(arg);
		return -ENOMEM;
	}
	r->fn = fn;
	r->arg = arg;
	return 0;
}

static inline int case_teardown(void **state)
{
	struct case_res *r;

	while ((r = case_res_list)) {
		case_res_list = r->next;
		if (r->fn)
			r->fn(r->arg);
		free(r);
	}
	return 0;
}

/* Nothing else to run. */
#define case_yield() ((void)0)

/* WARN_ON in the core only prints (tier-internal-user.h): cases may. */
#define CASE_WARN_OK 1

/* The test allocator (tests/unit/tier-test-hooks.h) fails the Nth allocation from now. */
#define CASE_FAULT_INJECTION 1
#define case_fail_alloc(n) (tier_test_fail_alloc = (n))
#define case_fail_alloc_left() tier_test_fail_alloc

struct case_params {
	const void *array;
	size_t nr, size;
	void (*desc)(const void *elem, char *desc);
};

struct case_entry {
	const char *name;
	void (*fn)(void **test);
	const struct case_params *params;
};

/* Like KUNIT_ARRAY_PARAM: name##_params describes @array. */
#define CASE_PARAMS(name, array, get_desc)                                     \
	static void name##_params_desc(const void *elem, char *desc)           \
	{                                                                      \
		void (*__get_desc)(const typeof((array)[0]) *, char *) =       \
			get_desc;                                              \
		if (__get_desc)                                                \
			__get_desc(elem, desc);                                \
	}                                                                      \
	static const struct case_params name##_params = {                      \
		array, sizeof(array) / sizeof((array)[0]), sizeof((array)[0]), \
		name##_params_desc                                             \
	}
#define CASE_RUN(fn)          \
	{                     \
#fn, fn, NULL \
	}
#define CASE_RUN_PARAMS(fn, name)       \
	{                               \
#fn, fn, &name##_params \
	}

/*
 * Run a table as one cmocka group: each element of a table case is a case
 * of its own, named "case desc" (KUnit's "param-N" when desc is empty).
 */
static inline int case_run(const char *group, const struct case_entry *cases)
{
	const struct case_entry *c;
	struct CMUnitTest *tests;
	size_t n = 0, i, k;
	char desc[CASE_DESC_SIZE];
	int ret = 1;

	for (c = cases; c->fn; c++)
		n += c->params ? c->params->nr : 1;
	tests = calloc(n, sizeof(*tests));
	if (!tests)
		return 1;
	for (c = cases, i = 0; c->fn; c++) {
		for (k = 0; k < (c->params ? c->params->nr : 1); k++, i++) {
			tests[i].test_func = c->fn;
			tests[i].teardown_func = case_teardown;
			if (!c->params) {
				tests[i].name = strdup(c->name);
				if (!tests[i].name)
					goto out;
				continue;
			}
			tests[i].initial_state =
				(char *)c->params->array + k * c->params->size;
			desc[0] = 0;
			c->params->desc(tests[i].initial_state, desc);
			if (!desc[0])
				snprintf(desc, sizeof(desc), "param-%zu", k);
			if (asprintf((char **)&tests[i].name, "%s %s", c->name,
				     desc) < 0) {
				tests[i].name = NULL;
				goto out;
			}
		}
	}
	ret = _cmocka_run_group_tests(group, tests, n, NULL, NULL);
out:
	for (i = 0; i < n; i++)
		free((char *)tests[i].name);
	free(tests);
	return ret;
}

#include "../cases/case.h"

#endif /* DM_TIER_CASE_CMOCKA_H */
