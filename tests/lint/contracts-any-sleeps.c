// SPDX-License-Identifier: GPL-2.0
/* Fixture for tools/lint-contracts: documented "any", calls a sleeper. */
#include "contracts-any-sleeps.h"

void tier_set_mode(struct tier_pool *pool)
{
	if (pool->ti)
		dm_table_event(pool->ti->table);
}
