// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/core/alloc.c under KUnit (UML by tests/kunit/run, the debug kernel
 * by VM test 009): the cases of tests/cases/alloc_cases.h.
 */
#include "case-kunit.h"
#include "../cases/alloc_cases.h"

static struct kunit_suite dm_tier_alloc_suite = {
	.name = "dm_tier_alloc",
	.test_cases = alloc_cases,
};

kunit_test_suite(dm_tier_alloc_suite);
