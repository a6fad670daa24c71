/* SPDX-License-Identifier: GPL-2.0 */
/*
 * case.h - one test case, two harnesses.
 *
 * The cases of the pure core (kernel/core/) are written once, in
 * tests/cases/<part>_cases.h, against the CASE_* checks below. Two thin shims
 * run them: tests/unit/test_<part>.c under cmocka in userspace (ASan, UBSan,
 * allocation fault injection) and tests/kunit/<part>_kunit.c under KUnit in
 * a kernel (UML, and the KASAN debug kernel of VM test 009). Each shim first
 * includes its harness's mapping of the checks, tests/unit/case-cmocka.h or
 * tests/kunit/case-kunit.h, then the cases; nothing in tests/cases/ tests
 * which harness it runs in.
 *
 * A case is "static void name(CASE_CTX)". The context is called test in both
 * harnesses; a helper that checks takes it as its first argument, as
 * "CASE_CTX" in its definition and "test" in calls.
 *
 *	CASE_EQ(a, b) CASE_NE CASE_LT CASE_LE CASE_GT CASE_GE
 *	CASE_TRUE(c) CASE_FALSE CASE_NULL(p) CASE_NOT_NULL CASE_PTR_EQ(a, b)
 *	CASE_STREQ(a, b) CASE_STRNEQ CASE_MEMEQ(a, b, n)
 *	CASE_EQ_MSG(a, b, fmt, ...) and _MSG of NE LT LE TRUE FALSE
 *	CASE_FAIL(fmt, ...) CASE_INFO(fmt, ...)
 *
 * continue after a failure under KUnit (KUNIT_EXPECT_*); CASE_ASSERT_<check>
 * ends the case there (KUNIT_ASSERT_*). cmocka ends the case on any failure.
 *
 *	case_zalloc(size), case_free(p)   zeroed memory, freed when the case
 *	                                  ends if not before
 *	case_alloc(test, size)            the same, or the case ends
 *	case_defer(test, fn, arg)         fn(arg) when the case ends (last
 *	                                  first, memory included); at once,
 *	                                  and -ENOMEM, if it cannot be queued
 *	CASE_WARN_OK                      1 where the core may hit a
 *	                                  WARN_ON (a simulated bug) and go
 *	                                  on; 0 in a kernel, where the
 *	                                  warning fails the run
 *	case_yield()                      a point where the kernel may
 *	                                  schedule, in long loops
 *	CASE_FAULT_INJECTION              1 where allocations can be made to
 *	case_fail_alloc(n)                fail: the Nth from now (1 = next)
 *	case_fail_alloc_left()            fails; 0 when nothing is pending
 *
 * A table case runs once per element of an array, and each element counts
 * as one case in both harnesses (as KUnit's parameterised cases do):
 *
 *	CASE_PARAMS(name, array, desc);   desc(elem, buf) names an element in
 *	                                  at most CASE_DESC_SIZE bytes
 *	static struct case_entry part_cases[] = {
 *		CASE_RUN(plain_case),
 *		CASE_RUN_PARAMS(table_case, name),   CASE_PARAM: the element
 *		{}
 *	};
 *
 * The KUnit shim points its suite's test_cases at part_cases; the cmocka
 * shim's main() returns case_run("part", part_cases).
 */
#ifndef DM_TIER_TEST_CASE_H
#define DM_TIER_TEST_CASE_H

#ifndef CASE_CTX
#error "include tests/unit/case-cmocka.h or tests/kunit/case-kunit.h first"
#endif

/* Zeroed memory freed when the case ends, or the case ends now. */
static inline void *case_alloc(CASE_CTX, size_t size)
{
	void *p = case_zalloc(size);

	CASE_ASSERT_NOT_NULL(p);
	return p;
}

#endif /* DM_TIER_TEST_CASE_H */
