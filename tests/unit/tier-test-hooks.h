/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unit tests' substitute for kernel/core/tier-internal.h: the shipped
 * one (user/lib/tier-internal-user.h) plus fault injection. tests/unit/run
 * force-includes this file instead of that one, so the hooks reach the core
 * and libtier only in test builds; tests/unit/test_shipped_symbols.sh checks
 * that no tier_test_ symbol is in the shipped tools.
 */
#ifndef DM_TIER_TEST_HOOKS_H
#define DM_TIER_TEST_HOOKS_H

#include "tier-internal-user.h"

/*
 * Fault injection: tests set tier_test_fail_alloc to make the Nth following
 * allocation fail (1 = next one), like tools/testing/vma injects faults.
 * Defined in tier-test-hooks.c.
 */
extern int tier_test_fail_alloc;
static inline void *tier_test_zalloc(size_t n, size_t size)
{
	if (tier_test_fail_alloc > 0 && --tier_test_fail_alloc == 0)
		return NULL;
	return calloc(n, size);
}
#undef tier_zalloc_array
#define tier_zalloc_array(n, size) tier_test_zalloc((n), (size))

#endif /* DM_TIER_TEST_HOOKS_H */
