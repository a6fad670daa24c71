// SPDX-License-Identifier: GPL-2.0
/* kernel/core/memtier.c under cmocka: the cases of tests/cases/memtier_cases.h. */
#include "case-cmocka.h"
#include "../cases/memtier_cases.h"

int main(void)
{
	return case_run("memtier", memtier_cases);
}
