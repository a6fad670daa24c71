// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/core/table.c under KUnit (UML by tests/kunit/run, the debug kernel
 * by VM test 009): the cases of tests/cases/table_cases.h.
 */
#include "case-kunit.h"
#include "../cases/table_cases.h"

static struct kunit_suite dm_tier_table_suite = {
	.name = "dm_tier_table",
	.test_cases = table_cases,
};

kunit_test_suite(dm_tier_table_suite);
