// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/core/extent_map.c under KUnit (UML by tests/kunit/run, the debug
 * kernel by VM test 009): the cases of tests/cases/extent_map_cases.h.
 */
#include "case-kunit.h"
#include "../cases/extent_map_cases.h"

static struct kunit_suite dm_tier_extent_map_suite = {
	.name = "dm_tier_extent_map",
	.test_cases = extent_map_cases,
};

kunit_test_suite(dm_tier_extent_map_suite);
