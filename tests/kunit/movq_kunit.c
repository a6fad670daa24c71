// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/core/movq.c under KUnit (UML by tests/kunit/run, the debug kernel
 * by VM test 009): the cases of tests/cases/movq_cases.h.
 */
#include "case-kunit.h"
#include "../cases/movq_cases.h"

static struct kunit_suite dm_tier_movq_suite = {
	.name = "dm_tier_movq",
	.test_cases = movq_cases_all,
};

kunit_test_suite(dm_tier_movq_suite);
