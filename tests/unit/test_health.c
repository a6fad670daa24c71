// SPDX-License-Identifier: GPL-2.0
/* kernel/core/health.c under cmocka: the cases of tests/cases/health_cases.h. */
#include "case-cmocka.h"
#include "../cases/health_cases.h"

int main(void)
{
	return case_run("health", health_cases_all);
}
