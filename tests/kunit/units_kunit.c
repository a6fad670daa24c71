// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/core/units.c under KUnit (UML by tests/kunit/run, the debug kernel
 * by VM test 009): the cases of tests/cases/units_cases.h.
 */
#include "case-kunit.h"
#include "../cases/units_cases.h"

static struct kunit_suite dm_tier_units_suite = {
	.name = "dm_tier_units",
	.test_cases = units_cases,
};

kunit_test_suite(dm_tier_units_suite);
