// SPDX-License-Identifier: GPL-2.0
/* The state behind tier-test-hooks.h, linked into every unit test. */
#include "tier-internal.h"

int tier_test_fail_alloc;
