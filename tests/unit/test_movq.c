// SPDX-License-Identifier: GPL-2.0
/* kernel/core/movq.c under cmocka: the cases of tests/cases/movq_cases.h. */
#include "case-cmocka.h"
#include "../cases/movq_cases.h"

int main(void)
{
	return case_run("movq", movq_cases_all);
}
