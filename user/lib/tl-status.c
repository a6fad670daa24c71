// SPDX-License-Identifier: GPL-2.0
/* libtier: status line and table line (see tl-status.h). */
#include <ctype.h>
#include <stdio.h>

#include "tl-status.h"

/* Splits @s in place on blanks; returns the word count or -E2BIG. */
static int split_words(char *s, char **argv, int max)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			*s++ = '\0';
		if (!*s)
			return n;
		if (n == max)
			return -E2BIG;
		argv[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n')
			s++;
	}
}

static bool parse_u64(const char *s, u64 *out)
{
	u64 v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (check_mul_overflow(v, (u64)10, &v) ||
		    check_add_overflow(v, (u64)(*s - '0'), &v))
			return false;
	}
	*out = v;
	return true;
}

static bool parse_word(const char *s, char *out)
{
	size_t i;

	if (!(*s >= 'a' && *s <= 'z'))
		return false;
	for (i = 0; s[i]; i++) {
		if (i + 1 >= TL_WORD_LEN)
			return false;
		if (!islower((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return false;
	}
	memcpy(out, s, i + 1);
	return true;
}

#define TL_STATUS_HEAD 6
#define TL_STATUS_PER_TIER 5
#define TL_STATUS_MIG 8
#define TL_STATUS_MAX_WORDS 256

/*
 * The migration part after <nospc_errors>: none at all (an older module),
 * or all of it. @argc/@argv are the words after <nospc_errors>; words after
 * the last mapped_i belong to a later kernel and are ignored.
 */
static int parse_migration(int argc, char **argv, struct tl_status *out,
			   struct tl_err *err)
{
	static const char *const names[TL_STATUS_MIG] = {
		"promotion count", "demotion count",
		"moved bytes",	   "in-flight copies",
		"pace",		   "time above high watermark",
		"migration error count", "pending migrate extents",
	};
	struct tl_status_migration *m = &out->mig;
	u64 *nums[TL_STATUS_MIG] = {
		&m->promotions,	   &m->demotions, &m->moved_bytes,
		&m->in_flight,	   NULL,	  &m->above_high_ms,
		&m->errors,	   &m->manual_pending,
	};
	int need = TL_STATUS_MIG + out->nr_tiers, i;

	memset(m, 0, sizeof(*m));
	snprintf(m->pace, sizeof(m->pace), "unknown");
	if (argc == 0)
		return TL_OK;
	if (argc < need)
		return tl_fail(err, TL_FAIL,
			       "status line: migration fields cut short: %d after the nospc error count, expected %d for %u tiers",
			       argc, need, out->nr_tiers);
	for (i = 0; i < TL_STATUS_MIG; i++) {
		bool ok = nums[i] ? parse_u64(argv[i], nums[i]) :
				    parse_word(argv[i], m->pace);

		if (!ok)
			return tl_fail(err, TL_FAIL,
				       "status line: bad migration %s '%s'",
				       names[i], argv[i]);
	}
	for (i = 0; i < (int)out->nr_tiers; i++) {
		struct tl_status_tier *t = &out->tier[i];
		const char *w = argv[TL_STATUS_MIG + i];

		if (!parse_u64(w, &t->mapped_extents))
			return tl_fail(err, TL_FAIL,
				       "status line: tier %d: bad mapped extent count '%s'",
				       i, w);
		if (t->mapped_extents > t->total_extents)
			return tl_fail(err, TL_FAIL,
				       "status line: tier %d: %llu mapped extents exceed %llu total",
				       i, (unsigned long long)t->mapped_extents,
				       (unsigned long long)t->total_extents);
	}
	m->present = true;
	return TL_OK;
}

#define TL_STATUS_MEM 9

/*
 * The memory tier part after the last mapped_i: none (a module without it,
 * reported as no memory tier) or all 9 fields; later fields are ignored.
 */
static int parse_mem(int argc, char **argv, struct tl_mem_stats *m,
		     struct tl_err *err)
{
	static const char *const names[TL_STATUS_MEM] = {
		"NUMA node",	  "size",	   "bytes used",
		"copy count",	  "hit count",	   "miss count",
		"fill count",	  "eviction count", "invalidation count",
	};
	u64 *nums[TL_STATUS_MEM] = {
		NULL,	     &m->bytes_max, &m->bytes_used,
		&m->copies,  &m->hits,	    &m->misses,
		&m->fills,   &m->evictions, &m->invalidations,
	};
	u64 node = 0;
	int i;

	memset(m, 0, sizeof(*m));
	if (argc == 0)
		return TL_OK;
	if (argc < TL_STATUS_MEM)
		return tl_fail(err, TL_FAIL,
			       "status line: memory tier fields cut short: %d after the per-tier mapped counts, expected %d",
			       argc, TL_STATUS_MEM);
	for (i = 1; i < TL_STATUS_MEM; i++) {
		if (!parse_u64(argv[i], nums[i]))
			return tl_fail(err, TL_FAIL,
				       "status line: bad memory tier %s '%s'",
				       names[i], argv[i]);
	}
	if (!strcmp(argv[0], "-")) {
		memset(m, 0, sizeof(*m));
		return TL_OK;
	}
	if (!parse_u64(argv[0], &node) || node > U32_MAX)
		return tl_fail(err, TL_FAIL,
			       "status line: bad memory tier %s '%s'", names[0],
			       argv[0]);
	m->node = (u32)node;
	m->present = true;
	return TL_OK;
}

/*
 * The metadata device part after <activation>: <meta_used_blocks>
 * <meta_total_blocks> from a module that reports it. Words that are not
 * that (an older module's line, or another kernel's appended fields) leave
 * it absent, as any appended field is ignored.
 */
static void parse_meta(int argc, char **argv, struct tl_status_meta *m)
{
	memset(m, 0, sizeof(*m));
	if (argc < 2 || !parse_u64(argv[0], &m->used_blocks) ||
	    !parse_u64(argv[1], &m->total_blocks) ||
	    m->used_blocks > m->total_blocks) {
		memset(m, 0, sizeof(*m));
		return;
	}
	m->present = true;
}

int tl_mem_hit_permille(const struct tl_mem_stats *m)
{
	double reads = (double)m->hits + (double)m->misses;

	if (!m->hits && !m->misses)
		return -1;
	/* Rounded down, so that 100.0% means no miss at all. */
	return m->misses ? (int)min(999.0, (double)m->hits * 1000.0 / reads) :
			   1000;
}

int tl_status_parse(const char *line, struct tl_status *st,
		    struct tl_err *err)
{
	static const char *const head_names[TL_STATUS_HEAD] = {
		"metadata mode", "commits",	   "extent size",
		"virtual extents", "mapped extents", "tier count",
	};
	static const char *const tier_names[TL_STATUS_PER_TIER] = {
		"state", "total extents", "used extents", "read I/Os",
		"write I/Os",
	};
	char *copy, *argv[TL_STATUS_MAX_WORDS];
	struct tl_status out;
	u64 v[TL_STATUS_HEAD], evac;
	int argc, i, k, need, rc = TL_FAIL;

	if (!line)
		return tl_fail(err, TL_FAIL, "empty status line");
	copy = strdup(line);
	if (!copy)
		return tl_fail(err, TL_FAIL, "out of memory");
	memset(&out, 0, sizeof(out));
	argc = split_words(copy, argv, TL_STATUS_MAX_WORDS);
	if (argc < 0) {
		tl_fail(err, TL_FAIL, "status line has too many fields");
		goto out;
	}
	if (argc < TL_STATUS_HEAD) {
		tl_fail(err, TL_FAIL,
			"status line has %d fields, expected at least %d", argc,
			TL_STATUS_HEAD + TL_STATUS_PER_TIER + 1);
		goto out;
	}
	if (!parse_word(argv[0], out.metadata_mode)) {
		tl_fail(err, TL_FAIL, "status line: bad %s '%s'", head_names[0],
			argv[0]);
		goto out;
	}
	for (i = 1; i < TL_STATUS_HEAD; i++) {
		if (!parse_u64(argv[i], &v[i])) {
			tl_fail(err, TL_FAIL, "status line: bad %s '%s'",
				head_names[i], argv[i]);
			goto out;
		}
	}
	out.commits = v[1];
	out.extent_sectors = v[2];
	out.virt_extents = v[3];
	out.mapped_extents = v[4];
	if (!is_power_of_2(out.extent_sectors) ||
	    out.extent_sectors < TIER_TABLE_EXTENT_MIN ||
	    out.extent_sectors > TIER_TABLE_EXTENT_MAX) {
		tl_fail(err, TL_FAIL, "status line: bad %s '%s'",
			head_names[2], argv[2]);
		goto out;
	}
	if (out.mapped_extents > out.virt_extents) {
		tl_fail(err, TL_FAIL,
			"status line: %llu mapped extents exceed %llu virtual extents",
			(unsigned long long)out.mapped_extents,
			(unsigned long long)out.virt_extents);
		goto out;
	}
	if (v[5] < 1 || v[5] > TIER_MAX_TIERS) {
		tl_fail(err, TL_FAIL, "status line: bad %s '%s'",
			head_names[5], argv[5]);
		goto out;
	}
	out.nr_tiers = v[5];
	need = TL_STATUS_HEAD + out.nr_tiers * TL_STATUS_PER_TIER + 1;
	if (argc < need) {
		tl_fail(err, TL_FAIL,
			"status line has %d fields, expected %d for %u tiers",
			argc, need, out.nr_tiers);
		goto out;
	}
	for (i = 0; i < (int)out.nr_tiers; i++) {
		struct tl_status_tier *t = &out.tier[i];
		char **w = argv + TL_STATUS_HEAD + i * TL_STATUS_PER_TIER;
		u64 *nums[TL_STATUS_PER_TIER] = { NULL, &t->total_extents,
						  &t->used_extents,
						  &t->read_ios, &t->write_ios };

		if (!parse_word(w[0], t->state)) {
			tl_fail(err, TL_FAIL,
				"status line: tier %d: bad %s '%s'", i,
				tier_names[0], w[0]);
			goto out;
		}
		for (k = 1; k < TL_STATUS_PER_TIER; k++) {
			if (!parse_u64(w[k], nums[k])) {
				tl_fail(err, TL_FAIL,
					"status line: tier %d: bad %s '%s'", i,
					tier_names[k], w[k]);
				goto out;
			}
		}
		if (t->used_extents > t->total_extents) {
			tl_fail(err, TL_FAIL,
				"status line: tier %d: %llu used extents exceed %llu total",
				i, (unsigned long long)t->used_extents,
				(unsigned long long)t->total_extents);
			goto out;
		}
	}
	if (!parse_u64(argv[need - 1], &out.nospc_errors)) {
		tl_fail(err, TL_FAIL, "status line: bad nospc error count '%s'",
			argv[need - 1]);
		goto out;
	}
	if (parse_migration(argc - need, argv + need, &out, err))
		goto out;
	if (out.mig.present) {
		int used = need + TL_STATUS_MIG + (int)out.nr_tiers;

		if (parse_mem(argc - used, argv + used, &out.mem, err))
			goto out;
		/* After the memory part, <swaps> and <activation>. */
		used += TL_STATUS_MEM + 2;
		parse_meta(argc - used, argv + used, &out.meta);
		/* <meta_used> <meta_total> <offline_queued> <offline_expired>,
		 * then <evacuating> (a bit per tier; absent from older modules). */
		used += 2;
		if (out.meta.present && argc >= used + 2 &&
		    parse_u64(argv[used], &out.offline.queued) &&
		    parse_u64(argv[used + 1], &out.offline.expired))
			out.offline.present = true;
		else
			memset(&out.offline, 0, sizeof(out.offline));
		used += 2;
		if (argc > used && parse_u64(argv[used], &evac))
			for (i = 0; i < (int)out.nr_tiers; i++)
				out.tier[i].evacuating = evac & (1ULL << i);
	}
	*st = out;
	rc = TL_OK;
out:
	free(copy);
	return rc;
}

#define TL_TABLE_MAX_WORDS 64

static const struct {
	const char *key;
	u32 min, max;
} mem_keys[] = {
	{ "mem_node", 0, TL_MEM_NODE_MAX },
	{ "mem_size_mb", 1, TL_MEM_SIZE_MB_MAX },
	{ "mem_promote_hits", 1, TL_MEM_PROMOTE_HITS_MAX },
};

/*
 * Take the memory tier keys out of the optional arguments of @argv (into
 * @mem), so that the table parses whether or not kernel/core's parser
 * knows them; @cnt holds the new count word. Returns the new word count or
 * -1 with @why set. Anything malformed is left for tier_table_parse().
 */
static int take_mem_keys(int argc, char **argv, struct tl_mem_cfg *mem,
			 char *cnt, size_t cnt_len, const char **why)
{
	u64 nr_tiers, count, v;
	u32 seen = 0, vals[ARRAY_SIZE(mem_keys)] = { 0 };
	int base, i, w, k;

	memset(mem, 0, sizeof(*mem));
	if (argc < 2 || !parse_u64(argv[1], &nr_tiers) ||
	    nr_tiers > TIER_MAX_TIERS || argc <= 2 + (int)nr_tiers)
		return argc;
	base = 2 + (int)nr_tiers;
	if (!parse_u64(argv[base], &count) || count != (u64)(argc - base - 1) ||
	    count % 2)
		return argc;
	for (i = w = base + 1; i < argc; i += 2) {
		for (k = 0; k < (int)ARRAY_SIZE(mem_keys); k++)
			if (!strcmp(argv[i], mem_keys[k].key))
				break;
		if (k == (int)ARRAY_SIZE(mem_keys)) {
			argv[w++] = argv[i];
			argv[w++] = argv[i + 1];
			continue;
		}
		if (seen & (1U << k)) {
			*why = "memory tier key given twice";
			return -1;
		}
		if (!parse_u64(argv[i + 1], &v) || v < mem_keys[k].min ||
		    v > mem_keys[k].max) {
			*why = k == 0 ? "mem_node out of range (0..1023)" :
			       k == 1 ? "mem_size_mb out of range (1..1048576)" :
					"mem_promote_hits out of range (1..65535)";
			return -1;
		}
		seen |= 1U << k;
		vals[k] = (u32)v;
	}
	if (!(seen & 1) != !(seen & 2)) {
		*why = "mem_node and mem_size_mb go together";
		return -1;
	}
	if ((seen & 4) && !(seen & 1)) {
		*why = "mem_promote_hits without a memory tier (mem_node)";
		return -1;
	}
	mem->on = seen & 1;
	mem->node = vals[0];
	mem->size_mb = vals[1];
	mem->promote_hits = seen & 4 ? vals[2] : TL_MEM_PROMOTE_HITS_DEF;
	if (w == base + 1)
		return base;	/* no option left: no count word either */
	snprintf(cnt, cnt_len, "%d", w - base - 1);
	argv[base] = cnt;
	return w;
}

int tl_table_parse_line(const char *line, struct tl_table *tt,
			struct tl_err *err)
{
	char *argv[TL_TABLE_MAX_WORDS], cnt[16];
	const char *why = NULL;
	int argc;

	memset(tt, 0, sizeof(*tt));
	if (!line)
		return tl_fail(err, TL_FAIL, "empty table line");
	tt->words = strdup(line);
	if (!tt->words)
		return tl_fail(err, TL_FAIL, "out of memory");
	argc = split_words(tt->words, argv, TL_TABLE_MAX_WORDS);
	if (argc < 0)
		return tl_fail(err, TL_FAIL, "table line has too many words");
	argc = take_mem_keys(argc, argv, &tt->mem, cnt, sizeof(cnt), &why);
	if (argc < 0 || tier_table_parse(argc, argv, &tt->t, &why))
		return tl_fail(err, TL_FAIL, "table line '%s': %s", line,
			       why ? why : "invalid");
	return TL_OK;
}

void tl_table_free(struct tl_table *tt)
{
	free(tt->words);
	tt->words = NULL;
}

static bool dev_word_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (isspace((unsigned char)*s))
			return false;
	}
	return true;
}

int tl_table_build(u32 nr_tiers, u32 extent_shift, const char *const *tier_dev,
		   const char *metadata_dev, char *buf, size_t len,
		   struct tl_err *err)
{
	struct tier_table t;
	u32 i;

	if (nr_tiers < 1 || nr_tiers > TIER_MAX_TIERS)
		return tl_fail(err, TL_FAIL, "bad tier count %u", nr_tiers);
	tier_table_init(&t);
	t.extent_shift = extent_shift;
	t.extent_sectors = 1U << extent_shift;
	t.nr_tiers = nr_tiers;
	for (i = 0; i < nr_tiers; i++) {
		if (!dev_word_ok(tier_dev[i]))
			return tl_fail(err, TL_FAIL,
				       "device path '%s' cannot be used in a table",
				       tier_dev[i] ? tier_dev[i] : "");
		t.tier_dev[i] = tier_dev[i];
	}
	if (metadata_dev) {
		if (!dev_word_ok(metadata_dev))
			return tl_fail(err, TL_FAIL,
				       "device path '%s' cannot be used in a table",
				       metadata_dev);
		t.metadata_dev = metadata_dev;
	}
	if (tier_table_format(&t, buf, len) < 0)
		return tl_fail(err, TL_FAIL, "table line too long");
	return TL_OK;
}

int tl_table_add_mem(char *buf, size_t len, u32 nr_tiers,
		     const struct tl_mem_cfg *mem, struct tl_err *err)
{
	char *argv[TL_TABLE_MAX_WORDS], *copy, extra[128];
	u64 count = 0;
	size_t used = 0;
	int argc, base = 2 + (int)nr_tiers, i, n, added;

	if (!mem || !mem->on)
		return TL_OK;
	if (mem->node > TL_MEM_NODE_MAX || !mem->size_mb ||
	    mem->size_mb > TL_MEM_SIZE_MB_MAX ||
	    mem->promote_hits > TL_MEM_PROMOTE_HITS_MAX)
		return tl_fail(err, TL_FAIL,
			       "memory tier settings out of range (node %u, %u MiB, promote hits %u)",
			       mem->node, mem->size_mb, mem->promote_hits);
	copy = strdup(buf);
	if (!copy)
		return tl_fail(err, TL_FAIL, "out of memory");
	argc = split_words(copy, argv, TL_TABLE_MAX_WORDS);
	if (argc < base || (argc > base && !parse_u64(argv[base], &count))) {
		free(copy);
		return tl_fail(err, TL_FAIL, "table line '%s' is malformed", buf);
	}
	added = 4;
	n = snprintf(extra, sizeof(extra), "mem_node %u mem_size_mb %u",
		     mem->node, mem->size_mb);
	if (mem->promote_hits && mem->promote_hits != TL_MEM_PROMOTE_HITS_DEF) {
		n += snprintf(extra + n, sizeof(extra) - n,
			      " mem_promote_hits %u", mem->promote_hits);
		added += 2;
	}
	buf[0] = '\0';
	for (i = 0; i <= argc; i++) {
		char num[24];
		const char *word;

		if (i == base) {
			snprintf(num, sizeof(num), "%llu",
				 (unsigned long long)count + added);
			word = num;
		} else if (i == argc) {
			word = extra;	/* after the last option */
		} else {
			word = argv[i];
		}
		n = snprintf(buf + used, len - used, "%s%s", used ? " " : "",
			     word);
		if (n < 0 || (size_t)n >= len - used)
			goto too_long;
		used += n;
		if (i == argc && i == base) {	/* no option before: count, then keys */
			n = snprintf(buf + used, len - used, " %s", extra);
			if (n < 0 || (size_t)n >= len - used)
				goto too_long;
			used += n;
		}
	}
	free(copy);
	return TL_OK;
too_long:
	free(copy);
	return tl_fail(err, TL_FAIL, "table line too long");
}
