// SPDX-License-Identifier: GPL-2.0
/* kernel/core/table.c under cmocka: the cases of tests/cases/table_cases.h. */
#include "case-cmocka.h"
#include "../cases/table_cases.h"

int main(void)
{
	return case_run("table", table_cases);
}
