// SPDX-License-Identifier: GPL-2.0
/* kernel/core/alloc.c under cmocka: the cases of tests/cases/alloc_cases.h. */
#include "case-cmocka.h"
#include "../cases/alloc_cases.h"

int main(void)
{
	return case_run("alloc", alloc_cases);
}
