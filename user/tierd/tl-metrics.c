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

/*
 * A family gives a number per device or tier (dev_u64 / tier_u64), or is a
 * state set (states): one sample per known state, 1 for the current one
 * and 0 for the others, plus the current one with 1 when it is not a known
 * state (a newer module), so that an alert can test state="ok" == 0.
 */
struct family {
	const char *name;
	const char *type;
	const char *help;
	enum family_scope scope;
	bool needs_migration; /* only devices whose module reports it */
	bool needs_commit_time; /* the same for the commit durations */
	/* The value is in 10^-digits s (3: ms, 6: us), shown in seconds. */
	unsigned int second_digits;
	uint64_t (*dev_u64)(const struct tl_nl_dev *d);
	uint64_t (*tier_u64)(const struct tl_nl_dev *d,
			     const struct tl_nl_tier *t);
	const char *state_label;
	const char *const *states; /* NULL-terminated */
	const char *(*dev_state)(const struct tl_nl_dev *d);
	const char *(*tier_state)(const struct tl_nl_tier *t);
};

static uint64_t size_bytes(const struct tl_nl_dev *d)
{
	return d->size_bytes;
}
static uint64_t dev_mapped(const struct tl_nl_dev *d)
{
	return d->mapped_extents * d->extent_bytes;
}
static uint64_t extent_bytes(const struct tl_nl_dev *d)
{
	return d->extent_bytes;
}
static uint64_t commits(const struct tl_nl_dev *d)
{
	return d->commits;
}
static uint64_t commit_last_us(const struct tl_nl_dev *d)
{
	return d->commit_last_us;
}
static uint64_t commit_total_us(const struct tl_nl_dev *d)
{
	return d->commit_total_us;
}
static uint64_t nospc(const struct tl_nl_dev *d)
{
	return d->nospc_errors;
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
static uint64_t swaps(const struct tl_nl_dev *d)
{
	return d->migration.swaps;
}
static uint64_t in_flight(const struct tl_nl_dev *d)
{
	return d->migration.in_flight;
}
static uint64_t manual_pending(const struct tl_nl_dev *d)
{
	return d->migration.manual_pending;
}
static uint64_t above_high_ms(const struct tl_nl_dev *d)
{
	return d->migration.above_high_ms;
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

static const char *metadata_mode(const struct tl_nl_dev *d)
{
	return d->metadata_mode;
}
static const char *pace(const struct tl_nl_dev *d)
{
	return d->migration.pace;
}
static const char *tier_state(const struct tl_nl_tier *t)
{
	return t->state;
}

static const char *const known_modes[] = { "rw", "ro", "fail", NULL };
static const char *const known_tier_states[] = { "ok", "degraded", "offline",
						 NULL };
static const char *const known_paces[] = { "idle", "full", "deadline",
					   "background", NULL };

#define DEV(n, ty, h, fn) { .name = n, .type = ty, .help = h, \
			    .scope = PER_DEVICE, .dev_u64 = fn }
#define TIER(n, ty, h, fn) { .name = n, .type = ty, .help = h, \
			     .scope = PER_TIER, .tier_u64 = fn }
#define MIG(n, ty, h, fn) { .name = n, .type = ty, .help = h, \
			    .scope = PER_DEVICE, .needs_migration = true, \
			    .dev_u64 = fn }
#define MEM(n, ty, h, fn) { .name = n, .type = ty, .help = h, \
			    .scope = PER_MEM, .dev_u64 = fn }

static const struct family families[] = {
	DEV("dm_tier_device_size_bytes", "gauge",
	    "Virtual size of the dm-tier device.", size_bytes),
	DEV("dm_tier_device_mapped_bytes", "gauge",
	    "Bytes of the device mapped to a tier (the rest reads as zeroes).",
	    dev_mapped),
	DEV("dm_tier_extent_bytes", "gauge",
	    "Extent size of the device: the unit of mapping and migration.",
	    extent_bytes),
	DEV("dm_tier_commits_total", "counter",
	    "Metadata commits since activation.", commits),
	/* Microseconds in the kernel. */
	{ .name = "dm_tier_commit_seconds_total", .type = "counter",
	  .help = "Time metadata commits took since activation (each from its flushes of the data tiers to its superblock write).",
	  .scope = PER_DEVICE, .needs_commit_time = true, .second_digits = 6,
	  .dev_u64 = commit_total_us },
	{ .name = "dm_tier_commit_last_seconds", .type = "gauge",
	  .help = "Time the last metadata commit took (0 before the first).",
	  .scope = PER_DEVICE, .needs_commit_time = true, .second_digits = 6,
	  .dev_u64 = commit_last_us },
	DEV("dm_tier_nospc_errors_total", "counter",
	    "Writes that needed a new extent and failed with ENOSPC because every tier was full, since activation.",
	    nospc),
	{ .name = "dm_tier_metadata_mode", .type = "gauge",
	  .help = "Metadata mode of the device (rw, ro, fail): 1 for the current one.",
	  .scope = PER_DEVICE, .state_label = "mode", .states = known_modes,
	  .dev_state = metadata_mode },
	TIER("dm_tier_capacity_bytes", "gauge", "Data capacity of the tier.",
	     capacity),
	TIER("dm_tier_used_bytes", "gauge",
	     "Bytes of the tier in use (mapped, being prepared or awaiting a commit to be freed).",
	     used),
	TIER("dm_tier_mapped_bytes", "gauge",
	     "Bytes of the device mapped to the tier.", mapped),
	TIER("dm_tier_read_ios_total", "counter",
	     "Reads remapped to the tier since activation.", reads),
	TIER("dm_tier_write_ios_total", "counter",
	     "Writes remapped to the tier since activation.", writes),
	TIER("dm_tier_io_errors_total", "counter",
	     "I/O errors of the tier since activation.", io_errors),
	TIER("dm_tier_degraded", "gauge",
	     "1 when the tier is not in state ok (see dm_tier_state).",
	     degraded),
	{ .name = "dm_tier_state", .type = "gauge",
	  .help = "State of the tier (ok, degraded, offline): 1 for the current one.",
	  .scope = PER_TIER, .state_label = "state",
	  .states = known_tier_states, .tier_state = tier_state },
	MIG("dm_tier_promotions_total", "counter",
	    "Extents moved to a faster tier since activation.", promotions),
	MIG("dm_tier_demotions_total", "counter",
	    "Extents moved to a slower tier since activation.", demotions),
	MIG("dm_tier_swaps_total", "counter",
	    "Promotions that displaced a cold tier-0 extent since activation.",
	    swaps),
	MIG("dm_tier_migrated_bytes_total", "counter",
	    "Bytes copied by migrations since activation.", moved),
	MIG("dm_tier_migration_errors_total", "counter",
	    "Migration copies that failed since activation.", mig_errors),
	MIG("dm_tier_migrations_in_flight", "gauge",
	    "Migration copies in flight now.", in_flight),
	MIG("dm_tier_manual_pending_extents", "gauge",
	    "Extents a migrate or pin request still has to examine or copy.",
	    manual_pending),
	/* Milliseconds in the kernel; Prometheus wants base units. */
	{ .name = "dm_tier_above_high_seconds_total", .type = "counter",
	  .help = "Time tier 0 spent above its high watermark since activation.",
	  .scope = PER_DEVICE, .needs_migration = true, .second_digits = 3,
	  .dev_u64 = above_high_ms },
	{ .name = "dm_tier_migration_pace", .type = "gauge",
	  .help = "Pace of automatic migration (idle, full, deadline, background): 1 for the current one.",
	  .scope = PER_DEVICE, .needs_migration = true, .state_label = "pace",
	  .states = known_paces, .dev_state = pace },
	MEM("dm_tier_mem_capacity_bytes", "gauge",
	    "Size cap of the memory tier (mem_size_mb).", mem_max),
	MEM("dm_tier_mem_used_bytes", "gauge",
	    "Node memory the memory tier holds.", mem_used),
	MEM("dm_tier_mem_copies", "gauge",
	    "Extents with a clean copy in the memory tier.", mem_copies),
	MEM("dm_tier_mem_hits_total", "counter",
	    "Reads served from the memory tier since activation.", mem_hits),
	MEM("dm_tier_mem_misses_total", "counter",
	    "Reads of mapped extents not served from the memory tier since activation.",
	    mem_misses),
	MEM("dm_tier_mem_fills_total", "counter",
	    "Copies made in the memory tier since activation.", mem_fills),
	MEM("dm_tier_mem_evictions_total", "counter",
	    "Copies dropped for room since activation.", mem_evictions),
	MEM("dm_tier_mem_invalidations_total", "counter",
	    "Copies dropped or rewritten by writes and discards since activation.",
	    mem_invalidations),
};

static void head(struct tl_strbuf *b, const char *name, const char *type,
		 const char *help)
{
	tl_strbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
			 type);
}

/* NAME{device="...", left open for more labels. */
static void dev_label(struct tl_strbuf *b, const char *name,
		      const struct tl_nl_dev *d)
{
	tl_strbuf_printf(b, "%s{device=\"", name);
	tl_strbuf_label(b, d->name);
	tl_strbuf_printf(b, "\"");
}

/* The labels of one sample point, up to the family's own ones. */
static void point_labels(struct tl_strbuf *b, const struct family *f,
			 const struct tl_nl_dev *d, const struct tl_nl_tier *t)
{
	dev_label(b, f->name, d);
	if (f->scope == PER_MEM) {
		tl_strbuf_printf(b, ",node=\"%u\"", d->mem.node);
	} else if (t) {
		tl_strbuf_printf(b, ",tier=\"%u\",class=\"", t->index);
		tl_strbuf_label(b, t->tier_class);
		tl_strbuf_printf(b, "\"");
	}
}

static void state_sample(struct tl_strbuf *b, const struct family *f,
			 const struct tl_nl_dev *d, const struct tl_nl_tier *t,
			 const char *state, int value)
{
	point_labels(b, f, d, t);
	tl_strbuf_printf(b, ",%s=\"", f->state_label);
	tl_strbuf_label(b, state);
	tl_strbuf_printf(b, "\"} %d\n", value);
}

/* One device or tier: a value, or a state set. */
static void point(struct tl_strbuf *b, const struct family *f,
		  const struct tl_nl_dev *d, const struct tl_nl_tier *t)
{
	const char *cur;
	bool known = false;
	uint64_t v;
	size_t i;

	if (f->states) {
		cur = t ? f->tier_state(t) : f->dev_state(d);
		for (i = 0; f->states[i]; i++) {
			known |= !strcmp(cur, f->states[i]);
			state_sample(b, f, d, t, f->states[i],
				     !strcmp(cur, f->states[i]));
		}
		/* An empty word is one the kernel did not report. */
		if (!known && cur[0])
			state_sample(b, f, d, t, cur, 1);
		return;
	}
	v = t ? f->tier_u64(d, t) : f->dev_u64(d);
	point_labels(b, f, d, t);
	if (f->second_digits) {
		uint64_t unit = 1;
		unsigned int i;

		for (i = 0; i < f->second_digits; i++)
			unit *= 10;
		tl_strbuf_printf(b, "} %llu.%0*llu\n",
				 (unsigned long long)(v / unit),
				 (int)f->second_digits,
				 (unsigned long long)(v % unit));
	} else {
		tl_strbuf_printf(b, "} %llu\n", (unsigned long long)v);
	}
}

static void family_samples(struct tl_strbuf *b, const struct family *f,
			   const struct tl_nl_dev *devs, size_t nr)
{
	const struct tl_nl_dev *d;
	size_t i;
	uint32_t k;

	head(b, f->name, f->type, f->help);
	for (i = 0; i < nr; i++) {
		d = &devs[i];
		if (f->needs_migration && !d->has_migration)
			continue;
		if (f->needs_commit_time && !d->has_commit_time)
			continue;
		if (f->scope == PER_MEM && !d->mem.present)
			continue;
		if (f->scope != PER_TIER) {
			point(b, f, d, NULL);
			continue;
		}
		for (k = 0; k < d->nr_tiers && k < TIER_MAX_TIERS; k++)
			point(b, f, d, &d->tiers[k]);
	}
}

static void build_info(struct tl_strbuf *b, const struct tl_metrics_src *src)
{
	head(b, "dm_tier_build_info", "gauge",
	     "Always 1: the version of tierd, and of the dm-tier module when it is loaded.");
	tl_strbuf_printf(b, "dm_tier_build_info{version=\"");
	tl_strbuf_label(b, src->version ? src->version : "");
	tl_strbuf_printf(b, "\",module_version=\"");
	tl_strbuf_label(b, src->module_version ? src->module_version : "");
	tl_strbuf_printf(b, "\"} 1\n");
}

/* For joins with node_exporter's node_disk_*{device="dm-3"} (docs/tierd.md
 * has the PromQL). */
static void device_info(struct tl_strbuf *b, const struct tl_metrics_src *src)
{
	const char *dm;
	size_t i;

	head(b, "dm_tier_device_info", "gauge",
	     "Always 1: the device's kernel name (dm, as node_exporter's node_disk_* device label) and uuid.");
	for (i = 0; i < src->nr_devs; i++) {
		dm = src->dm_names ? src->dm_names[i] : NULL;
		dev_label(b, "dm_tier_device_info", &src->devs[i]);
		tl_strbuf_printf(b, ",dm=\"");
		tl_strbuf_label(b, dm ? dm : "");
		tl_strbuf_printf(b, "\",uuid=\"");
		tl_strbuf_label(b, src->devs[i].uuid);
		tl_strbuf_printf(b, "\"} 1\n");
	}
}

int tl_metrics_format(struct tl_strbuf *out, const struct tl_metrics_src *src)
{
	const struct tl_metrics_events *ev;
	size_t i;
	uint32_t e;

	if (!out->buf && !strbuf_reserve(out, 0))
		return -ENOMEM;
	build_info(out, src);
	device_info(out, src);
	for (i = 0; i < ARRAY_SIZE(families); i++)
		family_samples(out, &families[i], src->devs, src->nr_devs);

	head(out, "dm_tier_events_total", "counter",
	     "Netlink monitor events tierd received, by device and event.");
	for (i = 0; i < src->nr_events; i++) {
		ev = &src->events[i];
		for (e = 1; e <= TL_METRICS_MAX_EVENT; e++) {
			if (!ev->count[e])
				continue;
			tl_strbuf_printf(out, "dm_tier_events_total{device=\"");
			tl_strbuf_label(out, ev->device);
			tl_strbuf_printf(out, "\",event=\"%s\"} %llu\n",
					 tl_metrics_event_name(e),
					 (unsigned long long)ev->count[e]);
		}
	}
	return out->failed ? -ENOMEM : 0;
}
