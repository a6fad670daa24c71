// SPDX-License-Identifier: GPL-2.0
/* Prometheus text format of dm-tier devices (see tl-metrics.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/dm-tier.h>

#include "tl-metrics.h"

/* ---- buffer --------------------------------------------------------------- */

void tl_strbuf_free(struct tl_strbuf *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

void tl_strbuf_reset(struct tl_strbuf *b)
{
	b->len = 0;
	b->failed = false;
	if (b->buf)
		b->buf[0] = '\0';
}

static bool strbuf_reserve(struct tl_strbuf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *buf;

	if (b->failed)
		return false;
	while (cap < b->len + more + 1)
		cap *= 2;
	if (cap == b->cap)
		return true;
	buf = realloc(b->buf, cap);
	if (!buf) {
		b->failed = true;
		return false;
	}
	b->buf = buf;
	b->cap = cap;
	return true;
}

void tl_strbuf_printf(struct tl_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !strbuf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void tl_strbuf_label(struct tl_strbuf *b, const char *s)
{
	for (; *s; s++) {
		if (!strbuf_reserve(b, 2))
			return;
		switch (*s) {
		case '\\':
			b->buf[b->len++] = '\\';
			b->buf[b->len++] = '\\';
			break;
		case '"':
			b->buf[b->len++] = '\\';
			b->buf[b->len++] = '"';
			break;
		case '\n':
			b->buf[b->len++] = '\\';
			b->buf[b->len++] = 'n';
			break;
		default:
			b->buf[b->len++] = *s;
		}
	}
	b->buf[b->len] = '\0';
}

/* ---- events --------------------------------------------------------------- */

/* The names come from tl-nl.c, so the metric labels and `tierctl watch` agree. */
const char *tl_metrics_event_name(uint32_t event)
{
	if (!event || event > TL_METRICS_MAX_EVENT)
		return NULL;
	return tl_nl_event_name(event);
}

/* ---- families ------------------------------------------------------------- */

/* PER_MEM: devices with a memory tier, labelled with its NUMA node. */
enum family_scope { PER_DEVICE, PER_TIER, PER_MEM };

struct family {
	const char *name;
	const char *type;
	const char *help;
	enum family_scope scope;
	bool needs_migration; /* only devices whose module reports it */
	/* Exactly one of these gives the value. */
	uint64_t (*dev_u64)(const struct tl_nl_dev *d);
	uint64_t (*tier_u64)(const struct tl_nl_dev *d,
			     const struct tl_nl_tier *t);
};

static uint64_t size_bytes(const struct tl_nl_dev *d)
{
	return d->size_bytes;
}
static uint64_t promotions(const struct tl_nl_dev *d)
{
	return d->migration.promotions;
}
static uint64_t demotions(const struct tl_nl_dev *d)
{
	return d->migration.demotions;
}
static uint64_t moved(const struct tl_nl_dev *d)
{
	return d->migration.bytes_moved;
}
static uint64_t mig_errors(const struct tl_nl_dev *d)
{
	return d->migration.errors;
}

static uint64_t capacity(const struct tl_nl_dev *d, const struct tl_nl_tier *t)
{
	return t->capacity_extents * d->extent_bytes;
}

static uint64_t used(const struct tl_nl_dev *d, const struct tl_nl_tier *t)
{
	return t->used_extents * d->extent_bytes;
}

static uint64_t mapped(const struct tl_nl_dev *d, const struct tl_nl_tier *t)
{
	return t->mapped_extents * d->extent_bytes;
}

static uint64_t reads(const struct tl_nl_dev *d, const struct tl_nl_tier *t)
{
	return t->read_ios;
}
static uint64_t writes(const struct tl_nl_dev *d, const struct tl_nl_tier *t)
{
	return t->write_ios;
}
static uint64_t io_errors(const struct tl_nl_dev *d, const struct tl_nl_tier *t)
{
	return t->io_errors;
}

static uint64_t degraded(const struct tl_nl_dev *d, const struct tl_nl_tier *t)
{
	return strcmp(t->state, "ok") != 0;
}

static uint64_t mem_max(const struct tl_nl_dev *d)
{
	return d->mem.bytes_max;
}
static uint64_t mem_used(const struct tl_nl_dev *d)
{
	return d->mem.bytes_used;
}
static uint64_t mem_copies(const struct tl_nl_dev *d)
{
	return d->mem.copies;
}
static uint64_t mem_hits(const struct tl_nl_dev *d)
{
	return d->mem.hits;
}
static uint64_t mem_misses(const struct tl_nl_dev *d)
{
	return d->mem.misses;
}
static uint64_t mem_fills(const struct tl_nl_dev *d)
{
	return d->mem.fills;
}
static uint64_t mem_evictions(const struct tl_nl_dev *d)
{
	return d->mem.evictions;
}
static uint64_t mem_invalidations(const struct tl_nl_dev *d)
{
	return d->mem.invalidations;
}

static const struct family families_before_mode[] = {
	{ "dm_tier_device_size_bytes", "gauge",
	  "Virtual size of the dm-tier device.", PER_DEVICE, false, size_bytes,
	  NULL },
	{ "dm_tier_tier_capacity_bytes", "gauge", "Data capacity of the tier.",
	  PER_TIER, false, NULL, capacity },
	{ "dm_tier_tier_used_bytes", "gauge",
	  "Bytes of the tier in use (mapped, being prepared or awaiting a commit to be freed).",
	  PER_TIER, false, NULL, used },
	{ "dm_tier_tier_mapped_bytes", "gauge",
	  "Bytes of the device mapped to the tier.", PER_TIER, false, NULL,
	  mapped },
	{ "dm_tier_tier_read_ios_total", "counter",
	  "Reads remapped to the tier since activation.", PER_TIER, false, NULL,
	  reads },
	{ "dm_tier_tier_write_ios_total", "counter",
	  "Writes remapped to the tier since activation.", PER_TIER, false,
	  NULL, writes },
	{ "dm_tier_tier_io_errors_total", "counter",
	  "I/O errors of the tier since activation.", PER_TIER, false, NULL,
	  io_errors },
	{ "dm_tier_tier_degraded", "gauge",
	  "1 when the tier is not in state ok.", PER_TIER, false, NULL,
	  degraded },
	{ "dm_tier_promotions_total", "counter",
	  "Extents moved to a faster tier since activation.", PER_DEVICE, true,
	  promotions, NULL },
	{ "dm_tier_demotions_total", "counter",
	  "Extents moved to a slower tier since activation.", PER_DEVICE, true,
	  demotions, NULL },
	{ "dm_tier_migrated_bytes_total", "counter",
	  "Bytes copied by migrations since activation.", PER_DEVICE, true,
	  moved, NULL },
	{ "dm_tier_migration_errors_total", "counter",
	  "Migration copies that failed since activation.", PER_DEVICE, true,
	  mig_errors, NULL },
	{ "dm_tier_mem_capacity_bytes", "gauge",
	  "Size cap of the memory tier (mem_size_mb).", PER_MEM, false,
	  mem_max, NULL },
	{ "dm_tier_mem_used_bytes", "gauge",
	  "Node memory the memory tier holds.", PER_MEM, false, mem_used,
	  NULL },
	{ "dm_tier_mem_copies", "gauge",
	  "Extents with a clean copy in the memory tier.", PER_MEM, false,
	  mem_copies, NULL },
	{ "dm_tier_mem_hits_total", "counter",
	  "Reads served from the memory tier since activation.", PER_MEM,
	  false, mem_hits, NULL },
	{ "dm_tier_mem_misses_total", "counter",
	  "Reads of mapped extents not served from the memory tier since activation.",
	  PER_MEM, false, mem_misses, NULL },
	{ "dm_tier_mem_fills_total", "counter",
	  "Copies made in the memory tier since activation.", PER_MEM, false,
	  mem_fills, NULL },
	{ "dm_tier_mem_evictions_total", "counter",
	  "Copies dropped for room since activation.", PER_MEM, false,
	  mem_evictions, NULL },
	{ "dm_tier_mem_invalidations_total", "counter",
	  "Copies dropped or rewritten by writes and discards since activation.",
	  PER_MEM, false, mem_invalidations, NULL },
};

static void head(struct tl_strbuf *b, const char *name, const char *type,
		 const char *help)
{
	tl_strbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
			 type);
}

static void dev_label(struct tl_strbuf *b, const char *name,
		      const struct tl_nl_dev *d)
{
	tl_strbuf_printf(b, "%s{device=\"", name);
	tl_strbuf_label(b, d->name);
	tl_strbuf_printf(b, "\"");
}

static void family_samples(struct tl_strbuf *b, const struct family *f,
			   const struct tl_nl_dev *devs, size_t nr)
{
	const struct tl_nl_dev *d;
	const struct tl_nl_tier *t;
	size_t i;
	uint32_t k;

	head(b, f->name, f->type, f->help);
	for (i = 0; i < nr; i++) {
		d = &devs[i];
		if (f->needs_migration && !d->has_migration)
			continue;
		if (f->scope == PER_MEM) {
			if (!d->mem.present)
				continue;
			dev_label(b, f->name, d);
			tl_strbuf_printf(b, ",node=\"%u\"} %llu\n", d->mem.node,
					 (unsigned long long)f->dev_u64(d));
			continue;
		}
		if (f->scope == PER_DEVICE) {
			dev_label(b, f->name, d);
			tl_strbuf_printf(b, "} %llu\n",
					 (unsigned long long)f->dev_u64(d));
			continue;
		}
		for (k = 0; k < d->nr_tiers && k < TIER_MAX_TIERS; k++) {
			t = &d->tiers[k];
			dev_label(b, f->name, d);
			tl_strbuf_printf(b, ",tier=\"%u\",class=\"", t->index);
			tl_strbuf_label(b, t->tier_class);
			tl_strbuf_printf(b, "\"} %llu\n",
					 (unsigned long long)f->tier_u64(d, t));
		}
	}
}

static const char *const known_modes[] = { "rw", "ro", "fail" };

static void mode_sample(struct tl_strbuf *b, const struct tl_nl_dev *d,
			const char *mode, int value)
{
	dev_label(b, "dm_tier_metadata_mode", d);
	tl_strbuf_printf(b, ",mode=\"");
	tl_strbuf_label(b, mode);
	tl_strbuf_printf(b, "\"} %d\n", value);
}

int tl_metrics_format(struct tl_strbuf *out, const struct tl_nl_dev *devs,
		      size_t nr_devs, const struct tl_metrics_events *events,
		      size_t nr_events)
{
	const struct tl_nl_dev *d;
	bool known;
	size_t i, m;
	uint32_t e;

	if (!out->buf && !strbuf_reserve(out, 0))
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(families_before_mode); i++)
		family_samples(out, &families_before_mode[i], devs, nr_devs);

	/* Milliseconds in the kernel; Prometheus wants base units. */
	head(out, "dm_tier_above_high_seconds_total", "counter",
	     "Time tier 0 spent above its high watermark since activation.");
	for (i = 0; i < nr_devs; i++) {
		d = &devs[i];
		if (!d->has_migration)
			continue;
		dev_label(out, "dm_tier_above_high_seconds_total", d);
		tl_strbuf_printf(
			out, "} %llu.%03u\n",
			(unsigned long long)(d->migration.above_high_ms / 1000),
			(unsigned int)(d->migration.above_high_ms % 1000));
	}

	/* A state set: every known mode, 1 for the current one, so that an
	 * alert can test mode="rw" == 0. */
	head(out, "dm_tier_metadata_mode", "gauge",
	     "Metadata mode of the device (rw, ro, fail): 1 for the current one.");
	for (i = 0; i < nr_devs; i++) {
		d = &devs[i];
		known = false;
		for (m = 0; m < ARRAY_SIZE(known_modes); m++) {
			known |= !strcmp(d->metadata_mode, known_modes[m]);
			mode_sample(out, d, known_modes[m],
				    !strcmp(d->metadata_mode, known_modes[m]));
		}
		if (!known)
			mode_sample(out, d, d->metadata_mode, 1);
	}

	head(out, "dm_tier_events_total", "counter",
	     "Netlink monitor events tierd received, by device and event.");
	for (i = 0; i < nr_events; i++) {
		for (e = 1; e <= TL_METRICS_MAX_EVENT; e++) {
			if (!events[i].count[e])
				continue;
			tl_strbuf_printf(out, "dm_tier_events_total{device=\"");
			tl_strbuf_label(out, events[i].device);
			tl_strbuf_printf(
				out, "\",event=\"%s\"} %llu\n",
				tl_metrics_event_name(e),
				(unsigned long long)events[i].count[e]);
		}
	}
	return out->failed ? -ENOMEM : 0;
}
