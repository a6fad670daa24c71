/* SPDX-License-Identifier: GPL-2.0 */
/* Fixture for tools/lint-contracts: issue 13's tier_set_mode() at c0455db. */
struct tier_pool;

/**
 * tier_set_mode() - degrade the metadata mode and tell userspace.
 * @pool: the pool.
 *
 * Context: any; takes pool->lock.
 */
void tier_set_mode(struct tier_pool *pool);
