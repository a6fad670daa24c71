// SPDX-License-Identifier: GPL-2.0
/* kernel/core/extent_map.c under cmocka: tests/cases/extent_map_cases.h. */
#include "case-cmocka.h"
#include "../cases/extent_map_cases.h"

int main(void)
{
	return case_run("extent_map", extent_map_cases);
}
