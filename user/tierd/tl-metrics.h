/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-metrics.h - dm-tier devices in the Prometheus text exposition format
 * (version 0.0.4), for tierd's textfile and its GET /metrics. Pure: values
 * in, text out.
 */
#ifndef DM_TIER_TL_METRICS_H
#define DM_TIER_TL_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl-nl.h"

/* The Content-Type of the format. */
#define TL_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

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
 * Append every metric of @devs (in that order) and the event counters of
 * @events to @out, each family with its # HELP and # TYPE lines. 0, or
 * -ENOMEM when @out->failed.
 */
int tl_metrics_format(struct tl_strbuf *out, const struct tl_nl_dev *devs,
		      size_t nr_devs, const struct tl_metrics_events *events,
		      size_t nr_events);

#endif /* DM_TIER_TL_METRICS_H */
