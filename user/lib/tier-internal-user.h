/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace substitute for kernel/core/tier-internal.h: force-included
 * (-include) before any core file, it defines the same include guard so the
 * kernel variant is skipped, and supplies libc equivalents. libtier.a and
 * the shipped tools are built with it; the unit tests force-include
 * tests/unit/tier-test-hooks.h instead, which includes this file and then
 * puts its fault injection in place, so that no test hook ships.
 */
#ifndef DM_TIER_CORE_INTERNAL_H
#define DM_TIER_CORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <limits.h>
#include <endian.h>
#include <stdio.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;
/* The kernel's own definitions, so that system headers that include
 * <linux/types.h> (<sys/stat.h>, <libdevmapper.h>) agree with the core. */
#include <linux/types.h>
typedef u64 sector_t;

#define __packed __attribute__((packed))
#define __always_unused __attribute__((unused))
#define __must_check __attribute__((warn_unused_result))
#ifndef U64_MAX
#define U64_MAX UINT64_MAX
#endif
#ifndef U32_MAX
#define U32_MAX UINT32_MAX
#endif

#define cpu_to_le16(x) htole16(x)
#define cpu_to_le32(x) htole32(x)
#define cpu_to_le64(x) htole64(x)
#define le16_to_cpu(x) le16toh(x)
#define le32_to_cpu(x) le32toh(x)
#define le64_to_cpu(x) le64toh(x)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define BIT(n) (1UL << (n))
#define BITS_PER_LONG 64
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define is_power_of_2(n) ((n) != 0 && (((n) & ((n) - 1)) == 0))
#define ilog2(n) ((int)(63 - __builtin_clzll((unsigned long long)(n))))
#define check_add_overflow(a, b, d) __builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d) __builtin_mul_overflow(a, b, d)
#define check_shl_overflow(a, s, d)                                            \
	({                                                                     \
		typeof(a) _a = (a);                                            \
		typeof(s) _s = (s);                                            \
		typeof(d) _d = (d);                                            \
		*_d = _a << _s;                                                \
		_s >= 8 * sizeof(*_d) || (*_d >> _s) != _a;                    \
	})
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define READ_ONCE(x) (*(volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile typeof(x) *)&(x) = (v))
#define div_u64(a, b) ((u64)(a) / (u32)(b))
#define div64_u64(a, b) ((u64)(a) / (u64)(b))

/* Large arrays (extent maps). The unit tests' tier-test-hooks.h redefines
 * tier_zalloc_array() to inject failures. */
#define tier_zalloc_array(n, size) calloc((n), (size))
#define tier_free_array(p) free(p)

/* tl-core-glue.c: the kernel's crc32c(), which libc lacks. */
u32 tier_user_crc32c(u32 seed, const void *buf, size_t len);
#define tier_crc32c(seed, buf, len) tier_user_crc32c((seed), (buf), (len))

/* The kernel's cmpxchg64(): returns the old value. */
#define tier_cmpxchg64(ptr, old, new) \
	__sync_val_compare_and_swap((ptr), (old), (new))

#include <assert.h>
#undef static_assert
#define static_assert(expr, ...) __static_assert(expr, ##__VA_ARGS__, #expr)
#define __static_assert(expr, msg, ...) _Static_assert(expr, msg)

#ifndef U8_MAX
#define U8_MAX UINT8_MAX
#endif
#ifndef U16_MAX
#define U16_MAX UINT16_MAX
#endif
#define BIT_ULL(n) (1ULL << (n))
#define ALIGN(x, a) (((x) + ((typeof(x))(a) - 1)) & ~((typeof(x))(a) - 1))
#define BITS_TO_LONGS(n) DIV_ROUND_UP((n), BITS_PER_LONG)

static inline void __set_bit(unsigned long nr, unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}

static inline void __clear_bit(unsigned long nr, unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] &= ~(1UL << (nr % BITS_PER_LONG));
}

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return (addr[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}

/* Like the kernel's: index of the next set (or clear) bit >= offset, or size. */
static inline unsigned long tier_user_find_bit(const unsigned long *addr,
					       unsigned long size,
					       unsigned long offset,
					       unsigned long invert)
{
	unsigned long word;

	if (offset >= size)
		return size;
	word = (addr[offset / BITS_PER_LONG] ^ invert) &
	       (~0UL << (offset % BITS_PER_LONG));
	offset -= offset % BITS_PER_LONG;
	while (!word) {
		offset += BITS_PER_LONG;
		if (offset >= size)
			return size;
		word = addr[offset / BITS_PER_LONG] ^ invert;
	}
	offset += __builtin_ctzl(word);
	return offset < size ? offset : size;
}
#define find_next_bit(addr, size, off) tier_user_find_bit((addr), (size), (off), 0)
#define find_next_zero_bit(addr, size, off)                                    \
	tier_user_find_bit((addr), (size), (off), ~0UL)

#define WARN_ON_ONCE(cond)                                                     \
	({                                                                     \
		int __w = !!(cond);                                            \
		if (__w)                                                       \
			fprintf(stderr, "WARNING: %s:%d: %s\n", __FILE__,      \
				__LINE__, #cond);                              \
		__w;                                                           \
	})

/*
 * The kernel's atomic_t and barriers, on the compiler's __atomic builtins
 * with the same orderings (the memory tier's lockless readers; the unit
 * tests run them from several threads).
 */
typedef struct {
	int counter;
} atomic_t;

#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)

static inline int atomic_read(const atomic_t *a)
{
	return __atomic_load_n(&a->counter, __ATOMIC_RELAXED);
}

static inline int atomic_read_acquire(const atomic_t *a)
{
	return __atomic_load_n(&a->counter, __ATOMIC_ACQUIRE);
}

static inline void atomic_set(atomic_t *a, int v)
{
	__atomic_store_n(&a->counter, v, __ATOMIC_RELAXED);
}

static inline void atomic_set_release(atomic_t *a, int v)
{
	__atomic_store_n(&a->counter, v, __ATOMIC_RELEASE);
}

/* Fully ordered, as the kernel's value-returning atomics are. */
static inline bool atomic_try_cmpxchg(atomic_t *a, int *old, int new)
{
	return __atomic_compare_exchange_n(&a->counter, old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

static inline int atomic_cmpxchg(atomic_t *a, int old, int new)
{
	__atomic_compare_exchange_n(&a->counter, &old, new, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
	return old;
}

static inline int atomic_fetch_andnot(int mask, atomic_t *a)
{
	return __atomic_fetch_and(&a->counter, ~mask, __ATOMIC_SEQ_CST);
}

static inline int atomic_dec_return_release(atomic_t *a)
{
	return __atomic_sub_fetch(&a->counter, 1, __ATOMIC_RELEASE);
}

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

#endif /* DM_TIER_CORE_INTERNAL_H */
