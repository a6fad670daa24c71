// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic mutation fuzzing of what the kernel decodes from disk and
 * from the table line (kernel/core/format.c, extent_map.c, alloc.c,
 * table.c), under ASan+UBSan.
 *
 * tests/cases/format_cases.h corrupts blocks without resealing them (the
 * checksum catches everything) and tries single fields. Here each block
 * starts from a valid encoded fixture, gets several random mutations
 * (fields set to boundary values, random bytes, one field copied into
 * another), is RESEALED so the checksum passes, and is decoded: the
 * decoders' semantic checks see garbage with a valid checksum. Whatever a
 * decoder accepts is checked against the invariants the rest of the code
 * relies on (geometry inside the device, no overlap, no overflow, a
 * re-encode decoding to the same thing). The table parser gets random
 * argv built from its real keys, boundary numbers and garbage.
 *
 * Deterministic: a fixed seed; iteration N of a test draws from its own
 * generator seeded by (seed, test, N), so a failure names the seed and
 * the iteration, and
 *   FUZZ_SEED=0x... FUZZ_ONLY=N build/unit/test_fuzz_core
 * replays that one iteration. FUZZ_ITERS=P runs P percent of every
 * test's count (default: tens of thousands per decoder, a few seconds
 * under ASan).
 */
/* unit-ldflags: -Wl,--wrap=tier_user_crc32c */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <inttypes.h>
#include <time.h>
#include <cmocka.h>

#include "format.h"
#include "extent_map.h"
#include "alloc.h"
#include "table.h"
#include "policy.h"
#include "memtier.h"
#include "health.h"

typedef unsigned __int128 u128;

#define FUZZ_SEED_DEF 0x7469657266757a7aULL /* "tierfuzz" */

static u64 fuzz_seed = FUZZ_SEED_DEF;
static long fuzz_only = -1;
static u32 fuzz_scale_num = 1, fuzz_scale_den = 1;

/* The iteration being run, for failure messages. */
static const char *cur_test;
static u32 cur_iter;

/* ---- PRNG: splitmix64 ---------------------------------------------------- */

struct rng {
	u64 s;
};

static u64 rng_next(struct rng *r)
{
	u64 z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u32 rng_below(struct rng *r, u32 n)
{
	return n ? (u32)(rng_next(r) % n) : 0;
}

static bool rng_chance(struct rng *r, u32 pct)
{
	return rng_below(r, 100) < pct;
}

static void rng_seed(struct rng *r, u32 test_id, u32 iter)
{
	r->s = fuzz_seed ^ ((u64)test_id << 48) ^
	       ((u64)iter * 0xd1b54a32d192ed03ULL);
	rng_next(r);
}

/*
 * The block checksum, table-driven: user/lib's bitwise crc32c costs ~70 us
 * a block under ASan, and every iteration seals and checks a few blocks.
 * Checked against the real one at start (main()).
 */
u32 __real_tier_user_crc32c(u32 crc, const void *buf, size_t len);
u32 __wrap_tier_user_crc32c(u32 crc, const void *buf, size_t len);

static u32 crc_table[8][256];

static void crc_table_init(void)
{
	u32 i, k, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
		crc_table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			crc_table[k][i] = (crc_table[k - 1][i] >> 8) ^
					  crc_table[0][crc_table[k - 1][i] & 0xff];
}

u32 __wrap_tier_user_crc32c(u32 crc, const void *buf, size_t len)
{
	const u8 *p = buf;
	u64 w;

	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&w, p, 8);
		w = le64toh(w) ^ crc;
		crc = crc_table[7][w & 0xff] ^ crc_table[6][(w >> 8) & 0xff] ^
		      crc_table[5][(w >> 16) & 0xff] ^
		      crc_table[4][(w >> 24) & 0xff] ^
		      crc_table[3][(w >> 32) & 0xff] ^
		      crc_table[2][(w >> 40) & 0xff] ^
		      crc_table[1][(w >> 48) & 0xff] ^ crc_table[0][w >> 56];
	}
	while (len--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
	return crc;
}

/* ---- failure reporting --------------------------------------------------- */

static void __attribute__((format(printf, 3, 4)))
fuzz_fail(const char *expr, int line, const char *fmt, ...)
{
	va_list ap;

	print_message("FUZZ FAILURE in %s: seed 0x%016" PRIx64
		      " iteration %u (replay: FUZZ_SEED=0x%016" PRIx64
		      " FUZZ_ONLY=%u build/unit/test_fuzz_core)\n",
		      cur_test, fuzz_seed, cur_iter, fuzz_seed, cur_iter);
	print_message("  line %d: check failed: %s\n  ", line, expr);
	va_start(ap, fmt);
	vprint_message(fmt, ap);
	va_end(ap);
	print_message("\n");
	fail();
}

#define FZ(cond, ...)                                          \
	do {                                                   \
		if (!(cond))                                   \
			fuzz_fail(#cond, __LINE__, __VA_ARGS__); \
	} while (0)

static u32 iters(u32 n)
{
	u64 v = (u64)n * fuzz_scale_num / fuzz_scale_den;

	return v ? (u32)v : 1;
}

/* Run body(r, iter) for each iteration (or only FUZZ_ONLY). */
#define FUZZ_LOOP(name, id, n, r)                                          \
	for (cur_test = (name), cur_iter = fuzz_only >= 0 ? (u32)fuzz_only : 0; \
	     cur_iter < (fuzz_only >= 0 ? (u32)fuzz_only + 1 : iters(n));   \
	     cur_iter++)                                                    \
		if ((rng_seed(&(r), (id), cur_iter), 1))

/* ---- little-endian field access ------------------------------------------ */

static u64 get_le(const u8 *p, u32 size)
{
	u64 v = 0;
	u32 i;

	for (i = 0; i < size; i++)
		v |= (u64)p[i] << (8 * i);
	return v;
}

static void put_le(u8 *p, u32 size, u64 v)
{
	u32 i;

	for (i = 0; i < size; i++)
		p[i] = (u8)(v >> (8 * i));
}

static void reseal(void *blk)
{
	*(__le32 *)blk = cpu_to_le32(tier_block_csum(blk));
}

/* A field of an on-disk struct: offset and size (1, 2, 4, 8; 16: bytes). */
struct field {
	const char *name;
	u16 off;
	u8 size;
};

#define FLD(type, f) { #f, offsetof(type, f), sizeof(((type *)0)->f) }

static const struct field label_fields[] = {
	FLD(struct tier_label_disk, version),
	FLD(struct tier_label_disk, magic),
	FLD(struct tier_label_disk, flags),
	FLD(struct tier_label_disk, uuid),
	FLD(struct tier_label_disk, member_uuid),
	FLD(struct tier_label_disk, name),
	FLD(struct tier_label_disk, tier_index),
	FLD(struct tier_label_disk, nr_tiers),
	FLD(struct tier_label_disk, tier_class),
	FLD(struct tier_label_disk, extent_shift),
	FLD(struct tier_label_disk, dev_sectors),
	FLD(struct tier_label_disk, data_start),
	FLD(struct tier_label_disk, nr_extents),
	FLD(struct tier_label_disk, meta_start),
	FLD(struct tier_label_disk, meta_blocks),
	FLD(struct tier_label_disk, virt_extents),
	FLD(struct tier_label_disk, ctime),
	FLD(struct tier_label_disk, spare_meta_blocks),
};

#define SBT(i)                                            \
	FLD(struct tier_sb_disk, tier[i].nr_extents),     \
	FLD(struct tier_sb_disk, tier[i].used_extents),   \
	FLD(struct tier_sb_disk, tier[i].data_start),     \
	FLD(struct tier_sb_disk, tier[i].dev_sectors),    \
	FLD(struct tier_sb_disk, tier[i].flags),          \
	FLD(struct tier_sb_disk, tier[i].tier_class),     \
	FLD(struct tier_sb_disk, tier[i].member_uuid),    \
	FLD(struct tier_sb_disk, tier[i].reserved)
#define SBS(i)                                                \
	FLD(struct tier_sb_disk, settings.entry[i].id),       \
	FLD(struct tier_sb_disk, settings.entry[i].reserved), \
	FLD(struct tier_sb_disk, settings.entry[i].value)

static const struct field sb_fields[] = {
	FLD(struct tier_sb_disk, version),
	FLD(struct tier_sb_disk, magic),
	FLD(struct tier_sb_disk, uuid),
	FLD(struct tier_sb_disk, generation),
	FLD(struct tier_sb_disk, commit_time),
	FLD(struct tier_sb_disk, ctime),
	FLD(struct tier_sb_disk, virt_extents),
	FLD(struct tier_sb_disk, extent_shift),
	FLD(struct tier_sb_disk, nr_tiers),
	FLD(struct tier_sb_disk, active_copy),
	FLD(struct tier_sb_disk, slot),
	FLD(struct tier_sb_disk, map_blocks),
	FLD(struct tier_sb_disk, map_start[0]),
	FLD(struct tier_sb_disk, map_start[1]),
	FLD(struct tier_sb_disk, compat),
	FLD(struct tier_sb_disk, incompat),
	FLD(struct tier_sb_disk, ro_compat),
	FLD(struct tier_sb_disk, flags),
	FLD(struct tier_sb_disk, meta_start),
	FLD(struct tier_sb_disk, meta_uuid),
	SBT(0), SBT(1), SBT(2), SBT(3), SBT(4), SBT(5), SBT(6), SBT(7),
	FLD(struct tier_sb_disk, settings.version),
	FLD(struct tier_sb_disk, settings.count),
	FLD(struct tier_sb_disk, settings.reserved),
	SBS(0), SBS(1), SBS(2), SBS(3), SBS(30),
};

static const struct field map_hdr_fields[] = {
	FLD(struct tier_map_block_disk, magic),
	FLD(struct tier_map_block_disk, block_index),
	FLD(struct tier_map_block_disk, generation),
	FLD(struct tier_map_block_disk, copy),
	FLD(struct tier_map_block_disk, uuid_csum),
};

/* ---- boundary values ----------------------------------------------------- */

/* Values that mean something to the format: limits, sizes, alignments. */
static const u64 magic_vals[] = {
	7, 8, 9, 11, 16, 17, 18, 31, 32, 63, 64,
	TIER_MAX_TIERS, TIER_META_DEV, TIER_MAX_DEVS, TIER_CLASS_MAX,
	TIER_CLASS_MEM, TIER_CLASS_META, 2048, 2047, 2049, 4096,
	TIER_MAP_ENTRIES, TIER_MAP_ENTRIES + 1, 2 * TIER_MAP_ENTRIES,
	BIT_ULL(32), BIT_ULL(32) - 1, BIT_ULL(32) + 1,
	BIT_ULL(48), BIT_ULL(48) - 1, BIT_ULL(48) + 1,
	U64_MAX >> 3, (U64_MAX >> 3) + 1, U64_MAX >> 9, U64_MAX >> 16,
	U64_MAX >> 26, (U64_MAX >> 26) + 1, U64_MAX >> 20, U64_MAX - 7,
	U64_MAX - 15, U64_MAX - 8, U64_MAX - 2047, BIT_ULL(63),
	TIER_LABEL_MAGIC, TIER_SB_MAGIC, TIER_MAP_MAGIC,
	TIER_LABEL_F_KNOWN, TIER_SB_F_META_EXT, TIER_FEATURE_COMPAT_SETTINGS,
};

/*
 * A value for a field of @size bytes holding @cur, with @ref a value of
 * another field of the same block (geometry that may line up).
 */
static u64 interesting(struct rng *r, u32 size, u64 cur, u64 ref)
{
	u32 bits = size >= 8 ? 64 : 8 * size;
	u64 max = bits == 64 ? U64_MAX : BIT_ULL(bits) - 1;
	u32 k = rng_below(r, bits);
	u64 v;

	switch (rng_below(r, 14)) {
	case 0:
		v = rng_below(r, 4); /* 0..3 */
		break;
	case 1:
		v = max - rng_below(r, 2);
		break;
	case 2:
		v = BIT_ULL(k);
		break;
	case 3:
		v = BIT_ULL(k) - 1 + rng_below(r, 3); /* 2^k - 1 .. 2^k + 1 */
		break;
	case 4:
	case 5:
		v = magic_vals[rng_below(r, ARRAY_SIZE(magic_vals))];
		break;
	case 6:
		v = cur + rng_below(r, 17) - 8;
		break;
	case 7:
		v = ref + rng_below(r, 17) - 8;
		break;
	case 8:
		v = ref;
		break;
	case 9:
		v = rng_chance(r, 50) ? cur << rng_below(r, 18) :
					cur >> rng_below(r, 18);
		break;
	case 10: /* aligned, near a sector limit */
		v = (max - rng_below(r, 1U << 12)) & ~7ULL;
		break;
	case 11:
		v = ref + (cur & ~7ULL) * rng_below(r, 3);
		break;
	case 12:
		v = cur ^ BIT_ULL(k);
		break;
	default:
		v = rng_next(r);
		break;
	}
	return v & max;
}

/* One random mutation of @blk (never the checksum field). */
static void mutate(struct rng *r, u8 *blk, const struct field *f, u32 nf,
		   u32 hot_end)
{
	const struct field *a = &f[rng_below(r, nf)];
	const struct field *b = &f[rng_below(r, nf)];
	u32 pick = rng_below(r, 100), i, n;

	if (pick < 70) {
		/* A field to a boundary value; bytes fields: a byte of it. */
		u64 ref = b->size <= 8 ? get_le(blk + b->off, b->size) : 0;

		if (a->size > 8) {
			i = a->off + rng_below(r, a->size);
			blk[i] = (u8)interesting(r, 1, blk[i], ref);
			return;
		}
		put_le(blk + a->off, a->size,
		       interesting(r, a->size, get_le(blk + a->off, a->size),
				   ref));
	} else if (pick < 85) {
		/* Random bytes, mostly in the fields' area. */
		n = 1 + rng_below(r, 4);
		while (n--) {
			i = rng_chance(r, 80) ? 4 + rng_below(r, hot_end - 4) :
						4 + rng_below(r, TIER_BLOCK_SIZE - 4);
			blk[i] = (u8)rng_next(r);
		}
	} else {
		/* One field's value into another (sizes permitting). */
		u32 sz = min_t(u32, min_t(u32, a->size, b->size), 8);

		memmove(blk + a->off, blk + b->off, sz);
	}
}

static void mutate_n(struct rng *r, u8 *blk, const struct field *f, u32 nf,
		     u32 hot_end)
{
	u32 n = 1 + rng_below(r, 4);

	while (n--)
		mutate(r, blk, f, nf, hot_end);
	if (rng_chance(r, 97))
		reseal(blk);
}

/* ---- fixtures ------------------------------------------------------------ */

#define MIB 2048ULL
#define GIB (1024 * MIB)

struct fixture {
	const char *name;
	u32 nr;
	u32 shift;
	sector_t meta; /* 0: metadata on tier 0 */
	sector_t sizes[TIER_MAX_TIERS];
	struct tier_fresh f;
	struct tier_sb sb;
};

#define FIXTURE(n, t, sh, m, ...) \
	{ .name = (n), .nr = (t), .shift = (sh), .meta = (m), .sizes = __VA_ARGS__ }

static struct fixture fixtures[] = {
	FIXTURE("3 tiers, meta on tier 0", 3, 11, 0, { 2 * GIB, GIB, 4 * GIB }),
	FIXTURE("3 tiers, meta device", 3, 11, 64 * MIB,
		{ 2 * GIB, GIB, 4 * GIB }),
	FIXTURE("1 tier, 64 KiB extents", 1, 7, 0, { 64 * MIB }),
	FIXTURE("8 tiers, 64 MiB extents", 8, 17, 0,
		{ 64 * GIB, 80 * GIB, 96 * GIB, 64 * GIB, 200 * GIB, 64 * GIB,
		  72 * GIB, 1024 * GIB }),
	/* A tier of exactly 2^32 extents, the most a tier may hold. */
	FIXTURE("2^32 extents", 2, 7, 140 * GIB,
		{ (BIT_ULL(32) << 7) + 2048, 8 * GIB }),
};

static void fixtures_init(void)
{
	struct tier_layout_req req;
	struct fixture *x;
	u32 i, k;

	for (k = 0; k < ARRAY_SIZE(fixtures); k++) {
		x = &fixtures[k];
		memset(&req, 0, sizeof(req));
		req.nr_tiers = x->nr;
		req.extent_shift = x->shift;
		for (i = 0; i < x->nr; i++)
			req.dev_sectors[i] = x->sizes[i];
		req.meta_dev_sectors = x->meta;
		assert_int_equal(tier_layout_compute(&req, &x->f.lo, NULL), 0);
		memset(x->f.uuid, 0x11 + k, TIER_UUID_LEN);
		for (i = 0; i < TIER_MAX_DEVS; i++)
			memset(x->f.member_uuid[i], 0x20 + i, TIER_UUID_LEN);
		snprintf(x->f.name, sizeof(x->f.name), "fuzz%u", k);
		for (i = 0; i < x->nr; i++)
			x->f.tier_class[i] = 1 + i % 3;
		x->f.ctime = 1700000000;
		assert_int_equal(tier_fresh_check(&x->f, NULL), 0);
		tier_fresh_sb(&x->f, &x->sb);
	}
}

/* The label of device @dev (a tier, or TIER_META_DEV) of @x. */
static void fixture_label(const struct fixture *x, u32 dev,
			  struct tier_label *l)
{
	tier_fresh_label(&x->f, dev, l);
}

/* A random device of @x: a tier, or its metadata device. */
static u32 fixture_dev(struct rng *r, const struct fixture *x)
{
	if (x->f.lo.meta_ext && rng_chance(r, 25))
		return TIER_META_DEV;
	return rng_below(r, x->nr);
}

/*
 * A label of @x as it may be on disk: the creation label, or one that
 * tierctl writes later (a tier added to take over the metadata from
 * tier 0 carries a spare area).
 */
static void fixture_label_any(struct rng *r, const struct fixture *x, u32 dev,
			      struct tier_label *l)
{
	fixture_label(x, dev, l);
	if (dev != TIER_META_DEV && dev > 0 && !x->f.lo.meta_ext &&
	    rng_chance(r, 30) &&
	    TIER_META_START + (2 + 2 * x->sb.map_blocks) * TIER_BLOCK_SECTORS <=
		    l->data_start)
		l->spare_meta_blocks = 2 + 2 * x->sb.map_blocks;
}

/* ---- overflow-safe geometry helpers --------------------------------------- */

/* [start, start + (nr << shift)) fits in [0, limit). */
static bool fits(u64 start, u64 nr, u32 shift, u64 limit)
{
	return (u128)start + ((u128)nr << shift) <= limit;
}

/* ---- label invariants ----------------------------------------------------- */

static void check_label_invariants(const struct tier_label *l)
{
	bool meta_dev = l->tier_index == TIER_META_DEV;
	bool holds = l->flags & TIER_LABEL_F_META;
	bool ext = l->flags & TIER_LABEL_F_META_EXT;
	static u8 blk[TIER_BLOCK_SIZE];
	struct tier_label again;
	sector_t ms;
	u64 mb;
	size_t len;
	u32 i;

	FZ(!(l->flags & ~(u64)TIER_LABEL_F_KNOWN), "flags 0x%" PRIx64,
	   l->flags);
	len = strnlen(l->name, TIER_NAME_LEN);
	FZ(len > 0 && len < TIER_NAME_LEN && tier_name_valid(l->name),
	   "name length %zu", len);
	for (i = len; i < TIER_NAME_LEN; i++)
		FZ(!l->name[i], "name not NUL-padded at %u", i);
	FZ(l->extent_shift >= TIER_EXTENT_SHIFT_MIN &&
		   l->extent_shift <= TIER_EXTENT_SHIFT_MAX,
	   "extent_shift %u", l->extent_shift);
	FZ(l->nr_tiers >= 1 && l->nr_tiers <= TIER_MAX_TIERS, "nr_tiers %u",
	   l->nr_tiers);
	FZ(meta_dev || l->tier_index < l->nr_tiers, "tier_index %u of %u",
	   l->tier_index, l->nr_tiers);
	FZ(l->tier_class <= TIER_CLASS_MAX && l->tier_class != TIER_CLASS_MEM &&
		   (l->tier_class == TIER_CLASS_META) == meta_dev,
	   "class %u, index %u", l->tier_class, l->tier_index);
	/* Exactly one place holds the metadata. */
	if (meta_dev)
		FZ(holds && ext, "metadata device flags 0x%" PRIx64, l->flags);
	else if (l->tier_index == 0)
		FZ(holds != ext, "tier 0 flags 0x%" PRIx64, l->flags);
	else
		FZ(!holds, "tier %u holds metadata", l->tier_index);
	if (holds) {
		FZ(l->meta_start >= TIER_META_START && l->meta_blocks,
		   "meta area %" PRIu64 "+%" PRIu64, l->meta_start,
		   l->meta_blocks);
		FZ(fits(l->meta_start, l->meta_blocks, 3,
			meta_dev ? l->dev_sectors : l->data_start),
		   "meta area %" PRIu64 "+%" PRIu64 " beyond %" PRIu64,
		   l->meta_start, l->meta_blocks,
		   meta_dev ? l->dev_sectors : l->data_start);
	} else {
		FZ(!l->meta_start && !l->meta_blocks, "meta area without flag");
	}
	if (l->spare_meta_blocks) {
		FZ(!meta_dev && !holds && !ext, "spare area on %u, flags 0x%" PRIx64,
		   l->tier_index, l->flags);
		FZ(fits(TIER_META_START, l->spare_meta_blocks, 3,
			l->data_start),
		   "spare area %" PRIu64 " beyond data %" PRIu64,
		   l->spare_meta_blocks, l->data_start);
	}
	if (meta_dev) {
		FZ(!l->data_start && !l->nr_extents, "data on metadata device");
	} else {
		FZ(l->data_start >= TIER_META_START &&
			   !(l->data_start % TIER_BLOCK_SECTORS) &&
			   l->data_start < l->dev_sectors,
		   "data_start %" PRIu64 " dev %" PRIu64, l->data_start,
		   l->dev_sectors);
		FZ(l->nr_extents >= 1 && l->nr_extents <= TIER_MAX_TIER_EXTENTS,
		   "nr_extents %" PRIu64, l->nr_extents);
		FZ(fits(l->data_start, l->nr_extents, l->extent_shift,
			l->dev_sectors),
		   "extents %" PRIu64 "<<%u from %" PRIu64 " beyond %" PRIu64,
		   l->nr_extents, l->extent_shift, l->data_start,
		   l->dev_sectors);
	}
	FZ(l->virt_extents >= 1 && l->virt_extents <= TIER_MAX_PEXTS &&
		   ((u128)l->virt_extents
		    << (l->extent_shift + TIER_SECTOR_SHIFT)) <= U64_MAX,
	   "virt_extents %" PRIu64, l->virt_extents);

	/* The metadata area a label gives is inside its device, before data. */
	if (tier_label_meta_area(l, &ms, &mb))
		FZ(ms >= TIER_META_START && mb &&
			   fits(ms, mb, 3,
				meta_dev ? l->dev_sectors : l->data_start),
		   "meta area %" PRIu64 "+%" PRIu64, ms, mb);

	/* Re-encoding what was accepted gives it back. */
	tier_label_encode(l, blk);
	memset(&again, 0, sizeof(again));
	FZ(tier_label_decode(blk, &again, NULL) == 0, "re-encode rejected");
	FZ(!memcmp(&again, l, sizeof(again)), "re-encode differs");
}

/* ---- superblock invariants ------------------------------------------------ */

static void check_settings(const struct tier_settings *s)
{
	u32 i, j;

	FZ(s->count <= TIER_SETTINGS_MAX, "settings count %u", s->count);
	for (i = 0; i < s->count; i++) {
		FZ(s->e[i].id, "setting %u id 0", i);
		for (j = 0; j < i; j++)
			FZ(s->e[i].id != s->e[j].id, "setting id %u twice",
			   s->e[i].id);
	}
}

static bool sb_equal(const struct tier_sb *a, const struct tier_sb *b,
		     u64 b_compat)
{
	u32 i;

	if (memcmp(a->uuid, b->uuid, TIER_UUID_LEN) ||
	    a->generation != b->generation ||
	    a->commit_time != b->commit_time || a->ctime != b->ctime ||
	    a->virt_extents != b->virt_extents ||
	    a->extent_shift != b->extent_shift || a->nr_tiers != b->nr_tiers ||
	    a->active_copy != b->active_copy ||
	    a->map_blocks != b->map_blocks ||
	    a->map_start[0] != b->map_start[0] ||
	    a->map_start[1] != b->map_start[1] || a->compat != b_compat ||
	    a->incompat != b->incompat || a->ro_compat != b->ro_compat ||
	    a->flags != b->flags || a->meta_start != b->meta_start ||
	    memcmp(a->meta_uuid, b->meta_uuid, TIER_UUID_LEN) ||
	    a->settings.count != b->settings.count)
		return false;
	for (i = 0; i < TIER_MAX_TIERS; i++) {
		const struct tier_sb_tier *x = &a->tier[i], *y = &b->tier[i];

		if (x->nr_extents != y->nr_extents ||
		    x->used_extents != y->used_extents ||
		    x->data_start != y->data_start ||
		    x->dev_sectors != y->dev_sectors || x->flags != y->flags ||
		    x->tier_class != y->tier_class ||
		    memcmp(x->member_uuid, y->member_uuid, TIER_UUID_LEN))
			return false;
	}
	for (i = 0; i < a->settings.count && i < TIER_SETTINGS_MAX; i++)
		if (a->settings.e[i].id != b->settings.e[i].id ||
		    a->settings.e[i].value != b->settings.e[i].value)
			return false;
	return true;
}

static void check_table_invariants(const struct tier_table *t, bool full);

static void check_sb_invariants(const struct tier_sb *sb, u32 slot)
{
	u64 len = sb->map_blocks * TIER_BLOCK_SECTORS, cap = 0, compat;
	static const u8 zero[sizeof(struct tier_sb_tier)];
	static u8 blk[TIER_BLOCK_SIZE];
	struct tier_sb again;
	struct tier_table t, t0;
	const char *error;
	u32 i, refused;
	int ret;

	FZ(sb->generation >= 1 && tier_sb_slot(sb->generation) == slot,
	   "generation %" PRIu64 " in slot %u", sb->generation, slot);
	FZ(sb->extent_shift >= TIER_EXTENT_SHIFT_MIN &&
		   sb->extent_shift <= TIER_EXTENT_SHIFT_MAX,
	   "extent_shift %u", sb->extent_shift);
	FZ(sb->nr_tiers >= 1 && sb->nr_tiers <= TIER_MAX_TIERS, "nr_tiers %u",
	   sb->nr_tiers);
	FZ(sb->active_copy <= 1, "active_copy %u", sb->active_copy);
	FZ(!(sb->incompat & ~TIER_FEATURE_INCOMPAT_SUPP),
	   "incompat 0x%" PRIx64, sb->incompat);
	FZ(tier_sb_needs_ro(sb) ==
		   !!(sb->ro_compat & ~TIER_FEATURE_RO_COMPAT_SUPP),
	   "needs_ro");
	/* Slots, copy 0, copy 1 in this order, aligned, no wrap. */
	FZ(sb->meta_start >= TIER_META_START &&
		   !(sb->meta_start % TIER_BLOCK_SECTORS),
	   "meta_start %" PRIu64, sb->meta_start);
	FZ(sb->map_blocks >= 1 && sb->map_blocks <= TIER_MAX_PEXTS,
	   "map_blocks %" PRIu64, sb->map_blocks);
	FZ((u128)sb->map_blocks * TIER_MAP_ENTRIES >= sb->virt_extents,
	   "map_blocks %" PRIu64 " for %" PRIu64 " extents", sb->map_blocks,
	   sb->virt_extents);
	FZ(!(sb->map_start[0] % TIER_BLOCK_SECTORS) &&
		   !(sb->map_start[1] % TIER_BLOCK_SECTORS),
	   "map_start unaligned");
	FZ((u128)sb->meta_start + 2 * TIER_BLOCK_SECTORS <= sb->map_start[0],
	   "slots at %" PRIu64 " overlap or wrap past copy 0 at %" PRIu64,
	   sb->meta_start, sb->map_start[0]);
	FZ((u128)sb->map_start[0] + len <= sb->map_start[1],
	   "copy 0 overlaps copy 1");
	FZ((u128)sb->map_start[1] + len <= U64_MAX, "copy 1 wraps");
	for (i = 0; i < TIER_MAX_TIERS; i++) {
		const struct tier_sb_tier *t = &sb->tier[i];

		if (i >= sb->nr_tiers) {
			FZ(!memcmp(t, zero, sizeof(*t)), "unused tier %u set", i);
			continue;
		}
		FZ(t->nr_extents >= 1 && t->nr_extents <= TIER_MAX_TIER_EXTENTS,
		   "tier %u nr_extents %" PRIu64, i, t->nr_extents);
		FZ(t->data_start >= TIER_META_START,
		   "tier %u data_start %" PRIu64, i, t->data_start);
		FZ(fits(t->data_start, t->nr_extents, sb->extent_shift,
			t->dev_sectors),
		   "tier %u extents beyond device", i);
		FZ(t->used_extents <= t->nr_extents, "tier %u used %" PRIu64,
		   i, t->used_extents);
		FZ(t->tier_class <= TIER_CLASS_MAX &&
			   t->tier_class != TIER_CLASS_MEM &&
			   t->tier_class != TIER_CLASS_META,
		   "tier %u class %u", i, t->tier_class);
		cap += t->nr_extents;
	}
	FZ(sb->virt_extents >= 1 && sb->virt_extents <= cap &&
		   sb->virt_extents <= tier_max_virt_extents(sb->extent_shift) &&
		   ((u128)sb->virt_extents
		    << (sb->extent_shift + TIER_SECTOR_SHIFT)) <= U64_MAX,
	   "virt_extents %" PRIu64 " cap %" PRIu64, sb->virt_extents, cap);
	if (!(sb->flags & TIER_SB_F_META_EXT))
		FZ((u128)sb->map_start[1] + len <= sb->tier[0].data_start,
		   "map on tier 0 runs into its data");
	FZ(tier_sb_max_virt(sb, NULL) >= sb->virt_extents, "max_virt below");
	check_settings(&sb->settings);
	if (sb->settings.count)
		FZ(sb->compat & TIER_FEATURE_COMPAT_SETTINGS,
		   "settings without the feature bit");

	/* Re-encode: the same superblock, less compat bits it cannot keep. */
	tier_sb_encode(sb, blk);
	memset(&again, 0, sizeof(again));
	FZ(tier_sb_decode(blk, slot, &again, NULL) == 0, "re-encode rejected");
	compat = (sb->compat & TIER_FEATURE_COMPAT_SUPP &
		  ~TIER_FEATURE_COMPAT_SETTINGS) |
		 (sb->settings.count ? TIER_FEATURE_COMPAT_SETTINGS : 0);
	FZ(sb_equal(&again, sb, compat), "re-encode differs");

	/* Persisted settings applied to a table: ranges and cross-checks. */
	tier_table_init(&t);
	t.extent_sectors = 1U << sb->extent_shift;
	t.extent_shift = sb->extent_shift;
	t.nr_tiers = 1;
	t.tier_dev[0] = "dev0";
	t0 = t;
	ret = tier_table_settings_apply(&t, &sb->settings, &refused, &error);
	if (ret < 0)
		FZ(!memcmp(&t, &t0, sizeof(t)), "failed apply changed the table");
	else
		check_table_invariants(&t, false);
}

/* ---- label ------------------------------------------------------------- */

static void fuzz_label_decode(void **state)
{
	struct tier_label l, out;
	const struct fixture *x;
	struct tier_err err;
	static u8 blk[TIER_BLOCK_SIZE];
	struct rng r;
	u32 accepted = 0, n = 0;
	int ret;

	FUZZ_LOOP("label decode", 1, 50000, r)
	{
		x = &fixtures[rng_below(&r, ARRAY_SIZE(fixtures))];
		fixture_label_any(&r, x, fixture_dev(&r, x), &l);
		tier_label_encode(&l, blk);
		FZ(tier_label_decode(blk, &out, NULL) == 0, "fixture rejected");
		mutate_n(&r, blk, label_fields, ARRAY_SIZE(label_fields),
			 sizeof(struct tier_label_disk) - 3896);
		memset(&out, 0xa5, sizeof(out));
		memset(&err, 0, sizeof(err));
		ret = tier_label_decode(blk, &out, &err);
		n++;
		if (ret) {
			FZ(ret < 0 && err.code != TIER_E_NONE &&
				   err.code < TIER_E_NR_CODES,
			   "ret %d code %d", ret, err.code);
			FZ(ret == tier_err_set(NULL, err.code, 0, 0),
			   "ret %d does not match %s", ret,
			   tier_err_str(err.code));
			continue;
		}
		accepted++;
		check_label_invariants(&out);
	}
	print_message("# label decode: %u iterations, %u accepted\n", n,
		      accepted);
}

/* ---- superblock -------------------------------------------------------- */

static void fuzz_sb_decode(void **state)
{
	struct tier_sb sb[2], *s;
	const struct fixture *x;
	struct tier_err err[2], perr;
	int ret[2], slot;
	static u8 blk[TIER_BLOCK_SIZE];
	struct rng r;
	u32 accepted = 0, n = 0, k, i;

	FUZZ_LOOP("superblock decode", 2, 40000, r)
	{
		x = &fixtures[rng_below(&r, ARRAY_SIZE(fixtures))];
		for (k = 0; k < 2; k++) {
			s = &sb[k];
			*s = x->sb;
			s->generation = 2 + rng_below(&r, 1000);
			if (rng_chance(&r, 50)) /* some settings */
				for (i = rng_below(&r, 5); i; i--)
					tier_settings_put(&s->settings,
							  1 + rng_below(&r, 20),
							  (u32)interesting(&r, 4, 0, 100));
			else if (rng_chance(&r, 20)) /* a full record */
				for (i = 0; i < TIER_SETTINGS_MAX; i++)
					tier_settings_put(&s->settings, 1 + i,
							  (u32)interesting(&r, 4, 0, 100));
			tier_sb_encode(s, blk);
			FZ(tier_sb_decode(blk, tier_sb_slot(s->generation), s,
					  NULL) == 0,
			   "fixture rejected");
			if (k == 1 || rng_chance(&r, 80))
				mutate_n(&r, blk, sb_fields,
					 ARRAY_SIZE(sb_fields),
					 offsetof(struct tier_sb_disk,
						  reserved2));
			slot = rng_chance(&r, 90) ? tier_sb_slot(s->generation) :
						    rng_below(&r, 3);
			memset(s, 0x5a, sizeof(*s));
			memset(&err[k], 0, sizeof(err[k]));
			ret[k] = tier_sb_decode(blk, slot, s, &err[k]);
			n++;
			if (ret[k]) {
				FZ(ret[k] < 0 && err[k].code != TIER_E_NONE,
				   "ret %d code %d", ret[k], err[k].code);
				continue;
			}
			accepted++;
			FZ(slot < 2, "accepted from slot %d", slot);
			check_sb_invariants(s, slot);
		}
		/* Choose between the two as activation does. */
		if ((!ret[0] && !ret[1] &&
		     sb[0].generation == sb[1].generation))
			continue; /* impossible on disk: one parity a slot */
		memset(&perr, 0, sizeof(perr));
		slot = tier_sb_pick(sb, ret, &perr);
		if (slot >= 0) {
			FZ(slot <= 1 && !ret[slot], "picked slot %d (ret %d)",
			   slot, ret[slot]);
			if (!ret[0] && !ret[1])
				FZ(sb[slot].generation >= sb[!slot].generation,
				   "picked the older slot");
		} else {
			FZ(ret[0] || ret[1] || perr.code == TIER_E_SB_UUID_MISMATCH,
			   "refused two valid slots");
		}
	}
	print_message("# superblock decode: %u decodes, %u accepted\n", n,
		      accepted);
}

/* ---- map blocks --------------------------------------------------------- */

/* Setting a map entry's word to something near the valid range. */
static u64 map_word(struct rng *r, const struct tier_sb *sb)
{
	bool wild = rng_chance(r, 8);
	u32 tier = !wild ? rng_below(r, sb->nr_tiers) : rng_below(r, 16);
	u64 nr = tier < TIER_MAX_TIERS ? sb->tier[tier].nr_extents : 1;
	u64 pext, w;
	u32 flags = !wild ? rng_below(r, 4) : (u32)interesting(r, 1, 0, 3);

	switch (!wild ? 3 + rng_below(r, 3) : rng_below(r, 6)) {
	case 0:
		pext = nr - 1;
		break;
	case 1:
		pext = nr;
		break;
	case 2:
		pext = interesting(r, 8, nr, nr) & TIER_MAPW_PEXT_MASK;
		break;
	default:
		pext = rng_next(r) % (nr ? nr : 1);
		break;
	}
	w = TIER_MAPW_MAPPED | ((u64)tier << TIER_MAPW_TIER_SHIFT) |
	    ((u64)flags << TIER_MAPW_FLAGS_SHIFT) | (pext & TIER_MAPW_PEXT_MASK);
	if (wild && rng_chance(r, 30))
		w |= BIT_ULL(60 + rng_below(r, 3)); /* reserved */
	if (wild && rng_chance(r, 30))
		w &= ~TIER_MAPW_MAPPED;
	return w;
}

/* A superblock to check map blocks against: a fixture, maybe mutated. */
static void map_sb(struct rng *r, struct tier_sb *sb, u8 *blk)
{
	const struct fixture *x = &fixtures[rng_below(r, 3)];
	struct tier_sb m;

	*sb = x->sb;
	sb->generation = 5 + rng_below(r, 10);
	if (!rng_chance(r, 30))
		return;
	tier_sb_encode(sb, blk);
	mutate_n(r, blk, sb_fields, ARRAY_SIZE(sb_fields), 0x300);
	if (!tier_sb_decode(blk, tier_sb_slot(sb->generation), &m, NULL) &&
	    m.virt_extents <= (1U << 16)) {
		for (u32 i = 0; i < m.nr_tiers; i++)
			if (m.tier[i].nr_extents > (1U << 20))
				return;
		*sb = m;
	}
}

static void check_map_block_invariants(const u8 *blk, const struct tier_sb *sb,
				       u32 copy, u64 index)
{
	const struct tier_map_block_disk *d = (const void *)blk;
	struct tier_map_entry e;
	u64 v, pext;
	u32 i, tier;

	FZ(le64_to_cpu(d->block_index) == index && le32_to_cpu(d->copy) == copy,
	   "wrong block accepted");
	FZ(le32_to_cpu(d->uuid_csum) == tier_uuid_csum(sb->uuid),
	   "other device's block accepted");
	FZ(le64_to_cpu(d->generation) <= sb->generation, "newer block accepted");
	for (i = 0; i < TIER_MAP_ENTRIES; i++) {
		v = index * TIER_MAP_ENTRIES + i;
		tier_map_block_get(blk, i, &e);
		if (!(e.word & TIER_MAPW_MAPPED)) {
			FZ(!e.word && !e.heat && !e.flags && !e.atime,
			   "entry %u: unmapped, not zero", i);
			continue;
		}
		FZ(!(e.word & TIER_MAPW_RSVD_MASK), "entry %u reserved bits", i);
		FZ(v < sb->virt_extents, "entry %u beyond the device", i);
		tier = (e.word & TIER_MAPW_TIER_MASK) >> TIER_MAPW_TIER_SHIFT;
		FZ(tier < sb->nr_tiers, "entry %u tier %u", i, tier);
		pext = e.word & TIER_MAPW_PEXT_MASK;
		FZ(pext < sb->tier[tier].nr_extents,
		   "entry %u pext %" PRIu64 " of %" PRIu64, i, pext,
		   sb->tier[tier].nr_extents);
	}
}

static void fuzz_map_block(void **state)
{
	struct tier_alloc alloc[TIER_MAX_TIERS];
	struct tier_map_entry e;
	struct tier_sb sb;
	struct tier_map map;
	struct tier_loc loc;
	struct tier_err err;
	static u8 blk[TIER_BLOCK_SIZE], tmp[TIER_BLOCK_SIZE];
	struct rng r;
	u32 accepted = 0, loaded = 0, copy, i, n, k;
	u64 index, nr_blocks, v;
	int ret;

	FUZZ_LOOP("map block check/load", 3, 20000, r)
	{
		map_sb(&r, &sb, tmp);
		nr_blocks = tier_map_blocks_for(sb.virt_extents);
		index = rng_chance(&r, 50) ? nr_blocks - 1 :
					     rng_below(&r, (u32)nr_blocks);
		copy = rng_below(&r, 2);
		tier_map_block_init(blk, &sb, copy, index);
		for (n = rng_below(&r, 16); n; n--) {
			memset(&e, 0, sizeof(e));
			e.word = map_word(&r, &sb);
			if ((e.word & TIER_MAPW_MAPPED) || rng_chance(&r, 5)) {
				e.heat = (u16)interesting(&r, 2, 0, 1);
				e.atime = (u32)interesting(&r, 4, 0, 1000);
			}
			tier_map_block_set(blk, rng_below(&r, TIER_MAP_ENTRIES),
					   &e);
		}
		tier_map_block_seal(blk);
		if (rng_chance(&r, 25)) {
			k = 1 + rng_below(&r, 3);
			while (k--)
				mutate(&r, blk, map_hdr_fields,
				       ARRAY_SIZE(map_hdr_fields),
				       TIER_MAP_HDR_SIZE);
			reseal(blk);
		}
		memset(&err, 0, sizeof(err));
		ret = tier_map_block_check(blk, &sb, copy, index, &err);
		if (ret) {
			FZ(ret < 0 && err.code != TIER_E_NONE, "ret %d", ret);
			continue;
		}
		accepted++;
		check_map_block_invariants(blk, &sb, copy, index);

		/* Load it as activation does, then the allocators. */
		assert_int_equal(tier_map_init(&map, sb.virt_extents,
					       TIER_MAP_F_HEAT), 0);
		tier_map_set_clock(&map, (u32)interesting(&r, 4, 0, 1000));
		ret = tier_map_load_block(&map, &sb, copy, index, blk, &err);
		FZ(!ret || err.code == TIER_E_MAP_ENTRY_FLAGS,
		   "checked block refused by load: %d %s", ret,
		   tier_err_str(err.code));
		if (!ret) {
			loaded++;
			for (v = 0; v < map.nr_extents; v++) {
				if (!tier_map_lookup(&map, tier_vext(v), &loc))
					continue;
				FZ(v / TIER_MAP_ENTRIES == index,
				   "extent %" PRIu64 " outside the block", v);
				FZ(loc.tier < sb.nr_tiers &&
					   loc.pext.p < sb.tier[loc.tier].nr_extents &&
					   !(loc.flags & ~TIER_MW_EXT_FLAGS),
				   "loaded word of %" PRIu64 ": tier %u pext %" PRIu64
				   " flags 0x%x", v, loc.tier, loc.pext.p,
				   loc.flags);
			}
			memset(alloc, 0, sizeof(alloc));
			for (i = 0; i < sb.nr_tiers; i++)
				assert_int_equal(tier_alloc_init(&alloc[i],
								 sb.tier[i].nr_extents),
						 0);
			memset(&err, 0, sizeof(err));
			ret = tier_alloc_load_map(alloc, sb.nr_tiers, &map, &err);
			FZ(!ret || err.code == TIER_E_MAP_DOUBLE_USE,
			   "loaded map refused by the allocators: %s",
			   tier_err_str(err.code));
			for (i = 0; i < sb.nr_tiers; i++)
				tier_alloc_destroy(&alloc[i]);
			/* The inactive-copy comparison on the same block. */
			tier_map_mark_all_dirty(&map, copy);
			tier_map_block_current(&map, &sb, copy, index, blk);
		}
		tier_map_destroy(&map);
	}
	print_message("# map block: %u iterations, %u accepted, %u loaded\n",
		      iters(20000), accepted, loaded);
}

/* ---- label against superblock ------------------------------------------- */

/*
 * The same value into a label field and the superblock field it must
 * agree with, so that mutated pairs get past the first comparisons.
 */
struct coupled {
	u16 loff, soff;
	u8 size;
};

static void couple(struct rng *r, u8 *lblk, u8 *sblk, u32 tier)
{
	const struct coupled c[] = {
		{ offsetof(struct tier_label_disk, extent_shift),
		  offsetof(struct tier_sb_disk, extent_shift), 4 },
		{ offsetof(struct tier_label_disk, data_start),
		  offsetof(struct tier_sb_disk, tier[tier].data_start), 8 },
		{ offsetof(struct tier_label_disk, dev_sectors),
		  offsetof(struct tier_sb_disk, tier[tier].dev_sectors), 8 },
		{ offsetof(struct tier_label_disk, nr_extents),
		  offsetof(struct tier_sb_disk, tier[tier].nr_extents), 8 },
		{ offsetof(struct tier_label_disk, meta_start),
		  offsetof(struct tier_sb_disk, meta_start), 8 },
		{ offsetof(struct tier_label_disk, nr_tiers),
		  offsetof(struct tier_sb_disk, nr_tiers), 4 },
		{ offsetof(struct tier_label_disk, meta_blocks),
		  offsetof(struct tier_sb_disk, map_blocks), 8 },
		{ offsetof(struct tier_label_disk, spare_meta_blocks),
		  offsetof(struct tier_sb_disk, map_blocks), 8 },
		{ offsetof(struct tier_label_disk, dev_sectors),
		  offsetof(struct tier_sb_disk, map_start[1]), 8 },
		{ offsetof(struct tier_label_disk, data_start),
		  offsetof(struct tier_sb_disk, map_start[1]), 8 },
	};
	const struct coupled *p = &c[rng_below(r, ARRAY_SIZE(c))];
	u64 v = interesting(r, p->size, get_le(lblk + p->loff, p->size),
			    get_le(sblk + p->soff, p->size));

	put_le(lblk + p->loff, p->size, v);
	put_le(sblk + p->soff, p->size, v);
}

static void check_label_sb_invariants(const struct tier_label *l,
				      const struct tier_sb *sb, u32 idx)
{
	u64 len = sb->map_blocks * TIER_BLOCK_SECTORS;
	const struct tier_sb_tier *t;
	sector_t ms;
	u64 mb;

	FZ(!memcmp(l->uuid, sb->uuid, TIER_UUID_LEN) &&
		   l->extent_shift == sb->extent_shift,
	   "label of another device or extent size accepted");
	FZ((idx == TIER_META_DEV) == (l->tier_index == TIER_META_DEV),
	   "metadata device at a tier position");
	if (idx == TIER_META_DEV) {
		FZ(sb->flags & TIER_SB_F_META_EXT, "metadata device unexpected");
		FZ(!memcmp(l->member_uuid, sb->meta_uuid, TIER_UUID_LEN),
		   "other metadata device");
		/* Slots and map copies inside the label's area and device. */
		FZ(l->meta_start == sb->meta_start, "meta_start differs");
		FZ((u128)sb->map_start[1] + len <=
			   (u128)l->meta_start + l->meta_blocks * 8 &&
			   (u128)l->meta_start + l->meta_blocks * 8 <=
				   l->dev_sectors,
		   "map copies beyond the metadata device");
		return;
	}
	FZ(idx < sb->nr_tiers, "tier %u of %u", idx, sb->nr_tiers);
	t = &sb->tier[idx];
	FZ(!memcmp(l->member_uuid, t->member_uuid, TIER_UUID_LEN),
	   "other member");
	FZ(l->data_start == t->data_start && l->nr_extents <= t->nr_extents &&
		   l->dev_sectors <= t->dev_sectors,
	   "label geometry beyond the superblock's");
	FZ(!(l->flags & TIER_LABEL_F_META_EXT) ==
		   !(sb->flags & TIER_SB_F_META_EXT),
	   "metadata place differs");
	/* Tier 0 with the metadata: the area the kernel reads holds it. */
	if (!idx && !(sb->flags & TIER_SB_F_META_EXT)) {
		FZ(tier_label_meta_area(l, &ms, &mb), "tier 0 without area");
		FZ(ms == sb->meta_start, "slots at %" PRIu64 ", sb says %" PRIu64,
		   ms, sb->meta_start);
		FZ((u128)sb->map_start[1] + len <= l->data_start,
		   "map into tier 0's data");
	}
}

static void fuzz_label_sb(void **state)
{
	struct tier_label l, ln;
	struct tier_sb sb, sb2;
	struct tier_sb_tier rec;
	const struct fixture *x;
	struct tier_err err;
	static u8 lblk[TIER_BLOCK_SIZE], sblk[TIER_BLOCK_SIZE];
	struct rng r;
	u32 dev, idx, k, ok = 0, ok_new = 0, tries = 0;
	sector_t size;
	int ret, pos;

	FUZZ_LOOP("label vs superblock", 4, 40000, r)
	{
		x = &fixtures[rng_below(&r, ARRAY_SIZE(fixtures))];
		dev = fixture_dev(&r, x);
		fixture_label_any(&r, x, dev, &l);
		sb = x->sb;
		sb.generation = 3;
		/* A tier added later, not yet in the list: check_new's case. */
		if (rng_chance(&r, 20) && x->nr < TIER_MAX_TIERS) {
			idx = 1 + rng_below(&r, x->nr);
			l.tier_index = idx;
			l.nr_tiers = x->nr + 1;
			l.flags &= ~(u64)TIER_LABEL_F_META;
			l.meta_start = 0;
			l.meta_blocks = 0;
			l.data_start = TIER_DATA_ALIGN;
			l.dev_sectors = 4 * GIB;
			l.nr_extents = (l.dev_sectors - l.data_start) >>
				       x->shift;
			l.tier_class = TIER_CLASS_NVMF;
			memset(l.member_uuid, 0x77, TIER_UUID_LEN);
		}
		tier_label_encode(&l, lblk);
		tier_sb_encode(&sb, sblk);
		for (k = rng_below(&r, 3); k; k--)
			couple(&r, lblk, sblk, rng_below(&r, TIER_MAX_TIERS));
		if (rng_chance(&r, 25))
			mutate_n(&r, lblk, label_fields,
				 ARRAY_SIZE(label_fields), 0xc8);
		if (rng_chance(&r, 25))
			mutate_n(&r, sblk, sb_fields, ARRAY_SIZE(sb_fields),
				 0x300);
		reseal(lblk);
		reseal(sblk);
		if (tier_label_decode(lblk, &l, NULL) ||
		    tier_sb_decode(sblk, 1, &sb, NULL))
			continue;
		tries++;
		idx = rng_chance(&r, 70) ? l.tier_index :
		      rng_chance(&r, 80) ? rng_below(&r, TIER_MAX_TIERS) :
					   TIER_META_DEV;
		memset(&err, 0, sizeof(err));
		ret = tier_label_check_sb(&l, &sb, idx, &err);
		if (!ret) {
			ok++;
			check_label_sb_invariants(&l, &sb, idx);
		} else {
			FZ(ret == -EUCLEAN && err.code == TIER_E_LABEL_SB_MISMATCH,
			   "ret %d code %d", ret, err.code);
		}
		pos = tier_label_sb_index(&l, &sb);
		FZ(pos == -1 || ((u32)pos < sb.nr_tiers &&
				 !memcmp(sb.tier[pos].member_uuid,
					 l.member_uuid, TIER_UUID_LEN)),
		   "sb_index %d", pos);

		/* add-tier: an accepted new tier gives a valid superblock. */
		size = rng_chance(&r, 50) ? l.dev_sectors :
					    interesting(&r, 8, l.dev_sectors,
							l.dev_sectors);
		idx = rng_chance(&r, 80) ? l.tier_index :
					   rng_below(&r, TIER_MAX_TIERS + 2);
		if (tier_label_check_new(&l, &sb, idx, size, NULL))
			continue;
		ok_new++;
		FZ(idx >= 1 && idx <= sb.nr_tiers && sb.nr_tiers < TIER_MAX_TIERS &&
			   l.dev_sectors <= size &&
			   !(l.flags & TIER_LABEL_F_META),
		   "new tier %u accepted", idx);
		tier_sb_tier_from_label(&l, &rec);
		sb2 = sb;
		FZ(tier_sb_insert_tier(&sb2, idx, &rec) == 0, "insert refused");
		sb2.generation++;
		tier_sb_encode(&sb2, sblk);
		memset(&err, 0, sizeof(err));
		ret = tier_sb_decode(sblk, tier_sb_slot(sb2.generation), &sb2,
				     &err);
		FZ(!ret, "superblock with new tier %u invalid: %s", idx,
		   tier_err_str(err.code));
		check_sb_invariants(&sb2, tier_sb_slot(sb2.generation));
		/* The label now matches its position. */
		ln = l;
		FZ(!tier_label_check_sb(&ln, &sb2, idx, &err),
		   "new tier's label refused at %u: %s", idx,
		   tier_err_str(err.code));
	}
	print_message("# label vs superblock: %u pairs decoded, %u accepted, %u new tiers\n",
		      tries, ok, ok_new);
}

/* ---- table line ---------------------------------------------------------- */

struct opt_row {
	const char *name;
	size_t off;
	u32 min, max, def;
	bool persist;
};

#define ROW(n, f, mn, mx, d, p) \
	{ n, offsetof(struct tier_table, f), mn, mx, d, p }

/* The key table as table.h documents it. */
static const struct opt_row opt_rows[] = {
	ROW("commit_interval_ms", commit_interval_ms, 1, TIER_COMMIT_INTERVAL_MAX,
	    TIER_COMMIT_INTERVAL_DEF, true),
	ROW("reserve_pct", reserve_pct, 0, TIER_RESERVE_PCT_MAX,
	    TIER_RESERVE_PCT_DEF, true),
	ROW("discard_passdown", discard_passdown, 0, 1, 1, true),
	ROW("auto_migrate", policy.auto_migrate, 0, 1, TIER_AUTO_MIGRATE_DEF,
	    true),
	ROW("high_watermark", policy.high_watermark, 1, 100, TIER_HIGH_WM_DEF,
	    true),
	ROW("low_watermark", policy.low_watermark, 0, 99, TIER_LOW_WM_DEF,
	    true),
	ROW("demote_age", policy.demote_age, 0, TIER_DEMOTE_AGE_MAX,
	    TIER_DEMOTE_AGE_DEF, true),
	ROW("drain_deadline", policy.drain_deadline, 0, TIER_DRAIN_DEADLINE_MAX,
	    TIER_DRAIN_DEADLINE_DEF, true),
	ROW("promote_hits", policy.promote_hits, 0, TIER_PROMOTE_HITS_MAX,
	    TIER_PROMOTE_HITS_DEF, true),
	ROW("promote_window", policy.promote_window, 1, TIER_PROMOTE_WINDOW_MAX,
	    TIER_PROMOTE_WINDOW_DEF, true),
	ROW("migration_bandwidth", policy.migration_bandwidth, 0,
	    TIER_MIG_BANDWIDTH_MAX, TIER_MIG_BANDWIDTH_DEF, true),
	ROW("migration_inflight", policy.migration_inflight, 1,
	    TIER_MIG_INFLIGHT_MAX, TIER_MIG_INFLIGHT_DEF, true),
	ROW("redirect_writes", policy.redirect_writes, 0, 1,
	    TIER_REDIRECT_WRITES_DEF, true),
	ROW("mem_node", mem_node, 0, TIER_MEM_NODE_MAX, TIER_MEM_NODE_NONE,
	    false),
	ROW("mem_size_mb", mem_size_mb, 1, TIER_MEM_SIZE_MB_MAX, 0, false),
	ROW("mem_promote_hits", policy.mem_promote_hits, 1,
	    TIER_MEM_PROMOTE_HITS_MAX, TIER_MEM_PROMOTE_HITS_DEF, true),
	ROW("offline_queue_s", offline_queue_s, 0, TIER_OFFQ_S_MAX,
	    TIER_OFFQ_S_DEF, true),
};

static u32 row_val(const struct tier_table *t, const struct opt_row *o)
{
	return *(const u32 *)((const char *)t + o->off);
}

static void check_table_invariants(const struct tier_table *t, bool full)
{
	const char *devs[TIER_MAX_DEVS], *error;
	u32 i, j, n = 0, v;

	if (full) {
		FZ(t->extent_sectors >= TIER_TABLE_EXTENT_MIN &&
			   t->extent_sectors <= TIER_TABLE_EXTENT_MAX &&
			   is_power_of_2(t->extent_sectors) &&
			   t->extent_sectors == 1U << t->extent_shift,
		   "extent %u shift %u", t->extent_sectors, t->extent_shift);
		FZ(t->nr_tiers >= 1 && t->nr_tiers <= TIER_MAX_TIERS,
		   "nr_tiers %u", t->nr_tiers);
		for (i = 0; i < t->nr_tiers; i++) {
			FZ(t->tier_dev[i] && *t->tier_dev[i], "tier_dev %u", i);
			devs[n++] = t->tier_dev[i];
		}
		for (; i < TIER_MAX_TIERS; i++)
			FZ(!t->tier_dev[i], "tier_dev %u beyond nr_tiers", i);
		if (t->metadata_dev) {
			FZ(*t->metadata_dev, "empty metadata_dev");
			devs[n++] = t->metadata_dev;
		}
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				FZ(strcmp(devs[i], devs[j]), "device %s twice",
				   devs[i]);
	}
	for (i = 0; i < ARRAY_SIZE(opt_rows); i++) {
		v = row_val(t, &opt_rows[i]);
		if (v == opt_rows[i].def)
			continue;
		FZ(v >= opt_rows[i].min && v <= opt_rows[i].max, "%s = %u",
		   opt_rows[i].name, v);
	}
	FZ(!tier_policy_cfg_check(&t->policy, &error), "policy: %s", error);
	FZ((t->mem_node == TIER_MEM_NODE_NONE) == !t->mem_size_mb,
	   "mem_node %u mem_size_mb %u", t->mem_node, t->mem_size_mb);
}

static const char *const garbage[] = {
	"", "-1", "+1", " 1", "1 ", "0x10", "1e3", "１", "\xff", "01",
	"00000000000000000000001", "4294967295", "4294967296",
	"18446744073709551616", "99999999999999999999999999", "abc", "1k",
	"metadata_dev", "commit_interval_ms", "=", "-", "/dev/sda",
};

/* A number for a table word: boundaries of the key ranges. */
static void table_num(struct rng *r, char *buf, size_t len)
{
	static const u64 v[] = {
		0, 1, 2, 49, 50, 51, 59, 60, 64, 65, 99, 100, 101, 127, 128,
		129, 255, 256, 600, 601, 1023, 1024, 2048, 60000, 60001, 65535,
		65536, 131072, 131073, 262144, 604800, 604801, 1048576, 1048577,
		315360000, 315360001, 2147483648ULL, 4294967295ULL,
		4294967296ULL,
	};

	if (rng_chance(r, 80))
		snprintf(buf, len, "%" PRIu64, v[rng_below(r, ARRAY_SIZE(v))]);
	else if (rng_chance(r, 50))
		snprintf(buf, len, "%u", (u32)rng_next(r));
	else
		snprintf(buf, len, "%u", 1U << rng_below(r, 32));
}

#define TW_MAX 64
#define TW_LEN 40

struct words {
	u32 argc;
	char *argv[TW_MAX];
	char buf[TW_MAX][TW_LEN];
};

static void word_add(struct words *w, const char *s)
{
	if (w->argc >= TW_MAX)
		return;
	snprintf(w->buf[w->argc], TW_LEN, "%s", s);
	w->argv[w->argc] = w->buf[w->argc];
	w->argc++;
}

static const char *const devnames[] = {
	"/dev/nvme0n1", "/dev/nvme1n1", "253:0", "253:1", "/dev/sdb",
	"8:16", "/dev/pmem0",
};

static void table_words(struct rng *r, struct words *w)
{
	u32 nr, i, nopt, count_at, k;
	char b[TW_LEN];

	w->argc = 0;
	/* Extent size. */
	if (rng_chance(r, 70))
		snprintf(b, sizeof(b), "%u", 1U << (7 + rng_below(r, 11)));
	else
		table_num(r, b, sizeof(b));
	word_add(w, b);
	/* Tier count and devices. */
	nr = rng_chance(r, 85) ? 1 + rng_below(r, 8) : rng_below(r, 12);
	if (rng_chance(r, 90))
		snprintf(b, sizeof(b), "%u", nr);
	else
		table_num(r, b, sizeof(b));
	word_add(w, b);
	k = rng_chance(r, 85) ? nr : rng_below(r, nr + 2);
	for (i = 0; i < k; i++)
		word_add(w, rng_chance(r, 95) ?
				    devnames[(i + rng_below(r, 2)) %
					     ARRAY_SIZE(devnames)] :
				    garbage[rng_below(r, ARRAY_SIZE(garbage))]);
	if (rng_chance(r, 20))
		return;
	/* Optional arguments: count, then key value pairs. */
	count_at = w->argc;
	word_add(w, "0");
	nopt = rng_below(r, 6);
	for (i = 0; i < nopt; i++) {
		u32 pick = rng_below(r, 100);

		if (pick < 85) {
			const struct opt_row *o =
				&opt_rows[rng_below(r, ARRAY_SIZE(opt_rows))];

			word_add(w, o->name);
			if (rng_chance(r, 60))
				snprintf(b, sizeof(b), "%u",
					 rng_chance(r, 50) ? o->min : o->max);
			else if (rng_chance(r, 50))
				snprintf(b, sizeof(b), "%u",
					 rng_chance(r, 50) ? o->min - 1 :
							     o->max + 1);
			else
				table_num(r, b, sizeof(b));
			if (rng_chance(r, 95))
				word_add(w, b);
		} else if (pick < 92) {
			word_add(w, "metadata_dev");
			word_add(w, devnames[rng_below(r, ARRAY_SIZE(devnames))]);
		} else {
			word_add(w, garbage[rng_below(r, ARRAY_SIZE(garbage))]);
		}
	}
	k = w->argc - count_at - 1;
	if (rng_chance(r, 85))
		snprintf(w->buf[count_at], TW_LEN, "%u", k);
	else if (rng_chance(r, 60))
		snprintf(w->buf[count_at], TW_LEN, "%u", k + rng_below(r, 3) - 1);
	else
		snprintf(w->buf[count_at], TW_LEN, "%s",
			 garbage[rng_below(r, ARRAY_SIZE(garbage))]);
}

/* Split @line at blanks into @w (tier_table_format()'s output). */
static void split_line(char *line, struct words *w)
{
	char *save, *tok;

	w->argc = 0;
	for (tok = strtok_r(line, " ", &save); tok && w->argc < TW_MAX;
	     tok = strtok_r(NULL, " ", &save))
		w->argv[w->argc++] = tok;
}

static bool table_same(const struct tier_table *a, const struct tier_table *b)
{
	u32 i;

	if (a->extent_sectors != b->extent_sectors ||
	    a->extent_shift != b->extent_shift || a->nr_tiers != b->nr_tiers ||
	    !a->metadata_dev != !b->metadata_dev ||
	    (a->metadata_dev && strcmp(a->metadata_dev, b->metadata_dev)) ||
	    a->commit_interval_ms != b->commit_interval_ms ||
	    a->reserve_pct != b->reserve_pct ||
	    a->discard_passdown != b->discard_passdown ||
	    memcmp(&a->policy, &b->policy, sizeof(a->policy)) ||
	    a->mem_node != b->mem_node || a->mem_size_mb != b->mem_size_mb ||
	    a->offline_queue_s != b->offline_queue_s)
		return false;
	for (i = 0; i < a->nr_tiers && i < TIER_MAX_TIERS; i++)
		if (strcmp(a->tier_dev[i], b->tier_dev[i]))
			return false;
	return true;
}

static void fuzz_table_parse(void **state)
{
	struct tier_table t, t2, before;
	struct tier_settings s;
	const char *error;
	static char line[1024], shown[1024];
	static struct words w_buf, w2_buf;
	struct words *w = &w_buf, *w2 = &w2_buf;
	struct rng r;
	u32 ok = 0, i, refused;
	int ret, len;
	char b[TW_LEN];

	FUZZ_LOOP("table parse", 5, 150000, r)
	{
		table_words(&r, w);
		error = NULL;
		memset(&t, 0x3c, sizeof(t));
		before = t;
		ret = tier_table_parse(w->argc, w->argv, &t, &error);
		if (ret) {
			FZ(ret == -EINVAL && error && *error, "ret %d", ret);
			FZ(!memcmp(&t, &before, sizeof(t)),
			   "failed parse wrote the table");
			continue;
		}
		ok++;
		check_table_invariants(&t, true);
		for (i = 0; i < t.nr_tiers; i++)
			FZ(t.tier_dev[i] == w->argv[2 + i], "tier_dev %u", i);

		/*
		 * Formatting and parsing again gives the table back (the
		 * kernel formats major:minor names: no blank in a word).
		 */
		len = tier_table_format(&t, line, sizeof(line));
		for (i = 0; i < w->argc; i++)
			if (strchr(w->argv[i], ' '))
				break;
		if (i < w->argc)
			continue;
		FZ(len > 0 && (size_t)len == strlen(line), "format %d", len);
		snprintf(shown, sizeof(shown), "%s", line);
		split_line(line, w2);
		FZ(!tier_table_parse(w2->argc, w2->argv, &t2, &error),
		   "formatted line refused: %s: %s", shown, error);
		FZ(table_same(&t, &t2), "formatted line differs: %s", shown);
		FZ(!(t2.given & ~t.given), "given 0x%x vs 0x%x", t2.given,
		   t.given);
		/* A short buffer: -ENOSPC, truncated, NUL-terminated. */
		i = rng_below(&r, (u32)len + 1);
		line[0] = 'x';
		ret = tier_table_format(&t, line, i);
		FZ(ret == -ENOSPC && (!i || strlen(line) < i),
		   "format into %u: %d", i, ret);

		/* "set KEY VALUE" at runtime. */
		for (i = 0; i < 3; i++) {
			const struct opt_row *o =
				&opt_rows[rng_below(&r, ARRAY_SIZE(opt_rows))];

			table_num(&r, b, sizeof(b));
			before = t;
			ret = tier_table_set_opt(&t, rng_chance(&r, 95) ? o->name :
						 garbage[rng_below(&r, ARRAY_SIZE(garbage))],
						 b, &error);
			if (ret)
				FZ(!memcmp(&t, &before, sizeof(t)),
				   "failed set changed the table");
			check_table_invariants(&t, true);
		}

		/* Persisted settings from a superblock (any ids, any values). */
		memset(&s, 0, sizeof(s));
		for (i = rng_below(&r, 8); i; i--)
			tier_settings_put(&s, (u16)(1 + rng_below(&r, 20)),
					  (u32)interesting(&r, 4, 0, 60));
		before = t;
		ret = tier_table_settings_apply(&t, &s, &refused, &error);
		if (ret < 0)
			FZ(!memcmp(&t, &before, sizeof(t)),
			   "failed apply changed the table");
		else
			FZ((u32)ret + refused <= s.count, "applied %d", ret);
		check_table_invariants(&t, true);
	}
	print_message("# table parse: %u lines, %u accepted\n", iters(150000),
		      ok);
}

/* ---- main ---------------------------------------------------------------- */

static struct timespec t_begin;

static int time_start(void **state)
{
	clock_gettime(CLOCK_MONOTONIC, &t_begin);
	return 0;
}

static int time_end(void **state)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	print_message("# %s: %.2f s\n", cur_test,
		      (t.tv_sec - t_begin.tv_sec) +
			      (t.tv_nsec - t_begin.tv_nsec) / 1e9);
	return 0;
}

#define FUZZ_TEST(f) cmocka_unit_test_setup_teardown(f, time_start, time_end)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FUZZ_TEST(fuzz_label_decode),
		FUZZ_TEST(fuzz_sb_decode),
		FUZZ_TEST(fuzz_map_block),
		FUZZ_TEST(fuzz_label_sb),
		FUZZ_TEST(fuzz_table_parse),
	};
	const char *e;

	e = getenv("FUZZ_SEED");
	if (e && *e)
		fuzz_seed = strtoull(e, NULL, 0);
	e = getenv("FUZZ_ONLY");
	if (e && *e)
		fuzz_only = strtol(e, NULL, 0);
	e = getenv("FUZZ_ITERS"); /* percent of the default counts */
	if (e && *e) {
		fuzz_scale_num = (u32)strtoul(e, NULL, 0);
		fuzz_scale_den = 100;
	}
	print_message("# fuzz seed 0x%016" PRIx64 "\n", fuzz_seed);
	crc_table_init();
	{
		static u8 b[TIER_BLOCK_SIZE];
		struct rng r = { 1 };
		u32 i, k;

		for (k = 0; k < 4; k++) {
			for (i = 0; i < TIER_BLOCK_SIZE; i++)
				b[i] = (u8)rng_next(&r);
			if (__wrap_tier_user_crc32c(~0U, b + k, 4000 + k) !=
			    __real_tier_user_crc32c(~0U, b + k, 4000 + k)) {
				print_message("table crc32c differs\n");
				return 1;
			}
		}
	}
	fixtures_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
