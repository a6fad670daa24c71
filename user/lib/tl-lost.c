// SPDX-License-Identifier: GPL-2.0
/*
 * tl-lost.c - the byte ranges of a device on tiers that are not ok. See
 * tl-lost.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl-lost.h"
#include "tl-print.h"

bool tl_tier_state_lost(const char *state)
{
	return !state || strcmp(state, "ok") != 0;
}

void tl_lost_init(struct tl_lost *l, const struct tl_nl_dev *dev)
{
	uint32_t t;

	memset(l, 0, sizeof(*l));
	l->extent_bytes = dev->extent_bytes;
	l->size_bytes = dev->size_bytes;
	for (t = 0; t < dev->nr_tiers && t < TIER_MAX_TIERS; t++)
		if (tl_tier_state_lost(dev->tiers[t].state))
			l->tier_lost |= 1u << t;
}

int tl_lost_add(struct tl_lost *l, uint64_t index, uint32_t tier)
{
	uint64_t start, len;
	struct tl_lost_range *last;

	if (tier >= TIER_MAX_TIERS || !(l->tier_lost & (1u << tier)) ||
	    !l->extent_bytes)
		return 0;
	start = index * l->extent_bytes;
	if (l->size_bytes && start >= l->size_bytes)
		return 0;
	len = l->extent_bytes;
	if (l->size_bytes && len > l->size_bytes - start)
		len = l->size_bytes - start;
	l->bytes[tier] += len;
	l->bytes_total += len;
	last = l->nr ? &l->r[l->nr - 1] : NULL;
	if (last && last->tier == tier && last->start + last->len == start) {
		last->len += len;
		return 0;
	}
	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct tl_lost_range *r = realloc(l->r, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		l->r = r;
		l->cap = cap;
	}
	l->r[l->nr++] = (struct tl_lost_range){ start, len, tier };
	return 0;
}

void tl_lost_free(struct tl_lost *l)
{
	free(l->r);
	l->r = NULL;
	l->nr = l->cap = 0;
}

void tl_lost_keep_tier(struct tl_lost *l, uint32_t tier)
{
	uint64_t bytes = tier < TIER_MAX_TIERS ? l->bytes[tier] : 0;
	size_t i, n = 0;

	/* Two ranges of @tier apart stay apart: another range was between. */
	for (i = 0; i < l->nr; i++)
		if (l->r[i].tier == tier)
			l->r[n++] = l->r[i];
	l->nr = n;
	l->tier_lost &= tier < TIER_MAX_TIERS ? 1u << tier : 0;
	memset(l->bytes, 0, sizeof(l->bytes));
	if (tier < TIER_MAX_TIERS)
		l->bytes[tier] = bytes;
	l->bytes_total = bytes;
}

struct scan {
	struct tl_lost *l;
	struct tl_err *err;
};

static int on_extent(const struct tl_nl_extent *e, void *arg)
{
	struct scan *s = arg;

	if (tl_lost_add(s->l, e->index, e->tier))
		return tl_fail(s->err, TL_FAIL, "out of memory");
	return 0;
}

int tl_lost_scan(struct tl_nl *nl, const char *name,
		 const struct tl_nl_dev *dev, struct tl_lost *l,
		 struct tl_err *err)
{
	struct scan s = { l, err };

	tl_lost_init(l, dev);
	if (!l->tier_lost)
		return TL_OK;
	return tl_nl_extent_dump(nl, name, 0, 0, on_extent, &s, err);
}

static const char *bytes_str(uint64_t bytes, bool human, char *buf)
{
	if (human)
		return tl_size_str(bytes, buf);
	snprintf(buf, TL_SIZE_STR_LEN, "%llu", (unsigned long long)bytes);
	return buf;
}

void tl_print_lost(const struct tl_lost *l, const struct tl_nl_dev *dev,
		   size_t max_text, bool human)
{
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN];
	size_t i, shown = 0;
	uint32_t t;

	print_arr_begin("lost_tiers", NULL);
	for (t = 0; t < dev->nr_tiers && t < TIER_MAX_TIERS; t++) {
		if (!(l->tier_lost & (1u << t)))
			continue;
		print_obj_begin(NULL);
		print_u64("tier", "  tier %llu", t);
		print_str("state", " is %s", dev->tiers[t].state);
		print_u64_text("bytes", ": %s bytes of the device live on it\n",
			       l->bytes[t], bytes_str(l->bytes[t], human, a));
		print_obj_end();
	}
	print_arr_end();
	print_u64_text("lost_bytes", "  lost:  %s bytes", l->bytes_total,
		       bytes_str(l->bytes_total, human, a));
	print_text(" in %zu range%s%s", l->nr, l->nr == 1 ? "" : "s",
		   l->nr ? ":\n    device offset    length           tier\n" :
			   "\n");
	print_arr_begin("lost_ranges", NULL);
	for (i = 0; i < l->nr; i++) {
		bool text = !max_text || shown < max_text;

		if (!text && !print_is_json())
			break;
		print_obj_begin(NULL);
		print_u64_text("device_offset", text ? "    %-16s " : NULL,
			       l->r[i].start, bytes_str(l->r[i].start, human, a));
		print_u64_text("length", text ? "%-16s " : NULL, l->r[i].len,
			       bytes_str(l->r[i].len, human, b));
		print_u64("tier", text ? "%llu\n" : NULL, l->r[i].tier);
		print_obj_end();
		shown++;
	}
	print_arr_end();
	if (shown < l->nr)
		print_text("    ... %zu more ('tierctl where --lost %s' lists all)\n",
			   l->nr - shown, dev->name);
}
