// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/core/memtier.c under KUnit (UML by tests/kunit/run, the debug kernel
 * by VM test 009): the cases of tests/cases/memtier_cases.h.
 */
#include "case-kunit.h"
#include "../cases/memtier_cases.h"

static struct kunit_suite dm_tier_memtier_suite = {
	.name = "dm_tier_memtier",
	.test_cases = memtier_cases,
};

kunit_test_suite(dm_tier_memtier_suite);
