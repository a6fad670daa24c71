// SPDX-License-Identifier: GPL-2.0
/* kernel/core/units.c under cmocka: the cases of tests/cases/units_cases.h. */
#include "case-cmocka.h"
#include "../cases/units_cases.h"

int main(void)
{
	return case_run("units", units_cases);
}
