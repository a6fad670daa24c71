// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/core/policy.c under KUnit (UML by tests/kunit/run, the debug kernel
 * by VM test 009): the cases of tests/cases/policy_cases.h.
 */
#include "case-kunit.h"
#include "../cases/policy_cases.h"

static struct kunit_suite dm_tier_policy_suite = {
	.name = "dm_tier_policy",
	.test_cases = policy_cases,
};

kunit_test_suite(dm_tier_policy_suite);
