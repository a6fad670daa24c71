/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-metrics.h - dm-tier devices in the Prometheus text exposition format
 * (version 0.0.4), for the textfile tierd writes for node_exporter's textfile
 * collector. Pure: values in, text out.
 */
#ifndef DM_TIER_TL_METRICS_H
#define DM_TIER_TL_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl-nl.h"

/* Events are counted by enum dm_tier_event value, 1..TL_METRICS_MAX_EVENT. */
#define TL_METRICS_MAX_EVENT 9

/* A growable text buffer; @failed once an allocation failed. */
struct tl_strbuf {
	char *buf;
	size_t len;
	size_t cap;
	bool failed;
};

void tl_strbuf_free(struct tl_strbuf *b);
void tl_strbuf_reset(struct tl_strbuf *b);
void tl_strbuf_printf(struct tl_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append @s as a label value: backslash, double quote and newline escaped. */
void tl_strbuf_label(struct tl_strbuf *b, const char *s);

/* Events tierd received for one device, by event value. */
struct tl_metrics_events {
	char device[128];
	uint64_t count[TL_METRICS_MAX_EVENT + 1];
};

/* "dev-new", ... as the netlink spec names events; NULL when unknown. */
const char *tl_metrics_event_name(uint32_t event);

/*
 * What one rendering shows.
 * @devs, @nr_devs:     the devices, in output order.
 * @dm_names:           NULL, or per device its kernel name ("dm-3", the
 *                      device label of node_exporter's node_disk_*); NULL
 *                      or "" for one not found.
 * @events, @nr_events: tierd's event counters.
 * @version:            tierd's version (dm_tier_build_info).
 * @module_version:     the loaded module's, NULL or "" when unknown.
 */
struct tl_metrics_src {
	const struct tl_nl_dev *devs;
	const char *const *dm_names;
	size_t nr_devs;
	const struct tl_metrics_events *events;
	size_t nr_events;
	const char *version;
	const char *module_version;
};

/*
 * Append every metric of @src to @out, each family with its # HELP and
 * # TYPE lines. 0, or -ENOMEM when @out->failed.
 */
int tl_metrics_format(struct tl_strbuf *out, const struct tl_metrics_src *src);

#endif /* DM_TIER_TL_METRICS_H */
