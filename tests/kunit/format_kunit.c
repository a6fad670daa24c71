// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/core/format.c under KUnit (UML by tests/kunit/run, the debug kernel
 * by VM test 009), where u64, the byte order helpers and crc32c are the
 * kernel's own: the cases of tests/cases/format_cases.h.
 */
#include "case-kunit.h"
#include "../cases/format_cases.h"

static struct kunit_suite dm_tier_format_suite = {
	.name = "dm_tier_format",
	.test_cases = format_cases,
};

kunit_test_suite(dm_tier_format_suite);
