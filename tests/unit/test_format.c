// SPDX-License-Identifier: GPL-2.0
/* kernel/core/format.c under cmocka: the cases of tests/cases/format_cases.h. */
#include "case-cmocka.h"
#include "../cases/format_cases.h"

int main(void)
{
	return case_run("format", format_cases);
}
