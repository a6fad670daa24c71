// SPDX-License-Identifier: GPL-2.0
/* kernel/core/policy.c under cmocka: the cases of tests/cases/policy_cases.h. */
#include "case-cmocka.h"
#include "../cases/policy_cases.h"

int main(void)
{
	return case_run("policy", policy_cases);
}
