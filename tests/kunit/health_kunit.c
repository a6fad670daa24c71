// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/core/health.c under KUnit (UML by tests/kunit/run, the debug kernel
 * by VM test 009): the cases of tests/cases/health_cases.h.
 */
#include "case-kunit.h"
#include "../cases/health_cases.h"

static struct kunit_suite dm_tier_health_suite = {
	.name = "dm_tier_health",
	.test_cases = health_cases_all,
};

kunit_test_suite(dm_tier_health_suite);
