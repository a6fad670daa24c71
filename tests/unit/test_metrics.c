// SPDX-License-Identifier: GPL-2.0
/* Unit tests for user/tierd/tl-metrics.c: the Prometheus text format. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tl-metrics.h"

static void sample_dev(struct tl_nl_dev *d, const char *name)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->size_bytes = 1ULL << 30;
	d->extent_bytes = 1 << 20;
	strcpy(d->metadata_mode, "rw");
	d->nr_tiers = 2;
	d->tiers[0] = (struct tl_nl_tier){ .index = 0, .device = "nvme0n1",
		.tier_class = "nvme", .state = "ok", .capacity_extents = 60,
		.used_extents = 40, .mapped_extents = 38, .read_ios = 100,
		.write_ios = 200, .io_errors = 0 };
	d->tiers[1] = (struct tl_nl_tier){ .index = 1, .device = "nvme1n1",
		.tier_class = "nvmf", .state = "degraded",
		.capacity_extents = 500, .used_extents = 10,
		.mapped_extents = 10, .read_ios = 5, .write_ios = 6,
		.io_errors = 3 };
	d->has_migration = true;
	d->migration = (struct tl_nl_migration){ .promotions = 7,
		.demotions = 12, .bytes_moved = 19 << 20, .pace = "idle",
		.above_high_ms = 1234, .errors = 1 };
}

/* The whole output for one device, byte for byte. */
static const char sample_text[] =
	"# HELP dm_tier_device_size_bytes Virtual size of the dm-tier device.\n"
	"# TYPE dm_tier_device_size_bytes gauge\n"
	"dm_tier_device_size_bytes{device=\"ckpt0\"} 1073741824\n"
	"# HELP dm_tier_tier_capacity_bytes Data capacity of the tier.\n"
	"# TYPE dm_tier_tier_capacity_bytes gauge\n"
	"dm_tier_tier_capacity_bytes{device=\"ckpt0\",tier=\"0\",class=\"nvme\"} 62914560\n"
	"dm_tier_tier_capacity_bytes{device=\"ckpt0\",tier=\"1\",class=\"nvmf\"} 524288000\n"
	"# HELP dm_tier_tier_used_bytes Bytes of the tier in use (mapped, being prepared or awaiting a commit to be freed).\n"
	"# TYPE dm_tier_tier_used_bytes gauge\n"
	"dm_tier_tier_used_bytes{device=\"ckpt0\",tier=\"0\",class=\"nvme\"} 41943040\n"
	"dm_tier_tier_used_bytes{device=\"ckpt0\",tier=\"1\",class=\"nvmf\"} 10485760\n"
	"# HELP dm_tier_tier_mapped_bytes Bytes of the device mapped to the tier.\n"
	"# TYPE dm_tier_tier_mapped_bytes gauge\n"
	"dm_tier_tier_mapped_bytes{device=\"ckpt0\",tier=\"0\",class=\"nvme\"} 39845888\n"
	"dm_tier_tier_mapped_bytes{device=\"ckpt0\",tier=\"1\",class=\"nvmf\"} 10485760\n"
	"# HELP dm_tier_tier_read_ios_total Reads remapped to the tier since activation.\n"
	"# TYPE dm_tier_tier_read_ios_total counter\n"
	"dm_tier_tier_read_ios_total{device=\"ckpt0\",tier=\"0\",class=\"nvme\"} 100\n"
	"dm_tier_tier_read_ios_total{device=\"ckpt0\",tier=\"1\",class=\"nvmf\"} 5\n"
	"# HELP dm_tier_tier_write_ios_total Writes remapped to the tier since activation.\n"
	"# TYPE dm_tier_tier_write_ios_total counter\n"
	"dm_tier_tier_write_ios_total{device=\"ckpt0\",tier=\"0\",class=\"nvme\"} 200\n"
	"dm_tier_tier_write_ios_total{device=\"ckpt0\",tier=\"1\",class=\"nvmf\"} 6\n"
	"# HELP dm_tier_tier_io_errors_total I/O errors of the tier since activation.\n"
	"# TYPE dm_tier_tier_io_errors_total counter\n"
	"dm_tier_tier_io_errors_total{device=\"ckpt0\",tier=\"0\",class=\"nvme\"} 0\n"
	"dm_tier_tier_io_errors_total{device=\"ckpt0\",tier=\"1\",class=\"nvmf\"} 3\n"
	"# HELP dm_tier_tier_degraded 1 when the tier is not in state ok.\n"
	"# TYPE dm_tier_tier_degraded gauge\n"
	"dm_tier_tier_degraded{device=\"ckpt0\",tier=\"0\",class=\"nvme\"} 0\n"
	"dm_tier_tier_degraded{device=\"ckpt0\",tier=\"1\",class=\"nvmf\"} 1\n"
	"# HELP dm_tier_promotions_total Extents moved to a faster tier since activation.\n"
	"# TYPE dm_tier_promotions_total counter\n"
	"dm_tier_promotions_total{device=\"ckpt0\"} 7\n"
	"# HELP dm_tier_demotions_total Extents moved to a slower tier since activation.\n"
	"# TYPE dm_tier_demotions_total counter\n"
	"dm_tier_demotions_total{device=\"ckpt0\"} 12\n"
	"# HELP dm_tier_migrated_bytes_total Bytes copied by migrations since activation.\n"
	"# TYPE dm_tier_migrated_bytes_total counter\n"
	"dm_tier_migrated_bytes_total{device=\"ckpt0\"} 19922944\n"
	"# HELP dm_tier_migration_errors_total Migration copies that failed since activation.\n"
	"# TYPE dm_tier_migration_errors_total counter\n"
	"dm_tier_migration_errors_total{device=\"ckpt0\"} 1\n"
	/* no memory tier: the mem families have no samples */
	"# HELP dm_tier_mem_capacity_bytes Size cap of the memory tier (mem_size_mb).\n"
	"# TYPE dm_tier_mem_capacity_bytes gauge\n"
	"# HELP dm_tier_mem_used_bytes Node memory the memory tier holds.\n"
	"# TYPE dm_tier_mem_used_bytes gauge\n"
	"# HELP dm_tier_mem_copies Extents with a clean copy in the memory tier.\n"
	"# TYPE dm_tier_mem_copies gauge\n"
	"# HELP dm_tier_mem_hits_total Reads served from the memory tier since activation.\n"
	"# TYPE dm_tier_mem_hits_total counter\n"
	"# HELP dm_tier_mem_misses_total Reads of mapped extents not served from the memory tier since activation.\n"
	"# TYPE dm_tier_mem_misses_total counter\n"
	"# HELP dm_tier_mem_fills_total Copies made in the memory tier since activation.\n"
	"# TYPE dm_tier_mem_fills_total counter\n"
	"# HELP dm_tier_mem_evictions_total Copies dropped for room since activation.\n"
	"# TYPE dm_tier_mem_evictions_total counter\n"
	"# HELP dm_tier_mem_invalidations_total Copies dropped or rewritten by writes and discards since activation.\n"
	"# TYPE dm_tier_mem_invalidations_total counter\n"
	"# HELP dm_tier_above_high_seconds_total Time tier 0 spent above its high watermark since activation.\n"
	"# TYPE dm_tier_above_high_seconds_total counter\n"
	"dm_tier_above_high_seconds_total{device=\"ckpt0\"} 1.234\n"
	"# HELP dm_tier_metadata_mode Metadata mode of the device (rw, ro, fail): 1 for the current one.\n"
	"# TYPE dm_tier_metadata_mode gauge\n"
	"dm_tier_metadata_mode{device=\"ckpt0\",mode=\"rw\"} 1\n"
	"dm_tier_metadata_mode{device=\"ckpt0\",mode=\"ro\"} 0\n"
	"dm_tier_metadata_mode{device=\"ckpt0\",mode=\"fail\"} 0\n"
	"# HELP dm_tier_events_total Netlink monitor events tierd received, by device and event.\n"
	"# TYPE dm_tier_events_total counter\n"
	"dm_tier_events_total{device=\"ckpt0\",event=\"dev-new\"} 1\n"
	"dm_tier_events_total{device=\"ckpt0\",event=\"watermark-high\"} 2\n"
	;

static void test_sample_device(void **state)
{
	struct tl_metrics_events ev = { .device = "ckpt0" };
	struct tl_strbuf b = { 0 };
	struct tl_nl_dev d;

	(void)state;
	sample_dev(&d, "ckpt0");
	ev.count[1] = 1; /* dev-new */
	ev.count[3] = 2; /* watermark-high */
	assert_int_equal(tl_metrics_format(&b, &d, 1, &ev, 1), 0);
	assert_string_equal(b.buf, sample_text);
	assert_int_equal(b.len, strlen(sample_text));
	tl_strbuf_free(&b);
}

static void test_label_escaping(void **state)
{
	struct tl_metrics_events ev = { .device = "x\\y" };
	struct tl_strbuf b = { 0 };
	struct tl_nl_dev d;

	(void)state;
	tl_strbuf_label(&b, "a\"b\\c\nd");
	assert_string_equal(b.buf, "a\\\"b\\\\c\\nd");
	tl_strbuf_reset(&b);
	assert_int_equal(b.len, 0);

	sample_dev(&d, "q\"uote");
	strcpy(d.tiers[0].tier_class, "new\nline");
	strcpy(d.metadata_mode, "we\"ird");
	ev.count[6] = 4; /* tier-error */
	assert_int_equal(tl_metrics_format(&b, &d, 1, &ev, 1), 0);
	assert_non_null(strstr(b.buf,
		"\ndm_tier_device_size_bytes{device=\"q\\\"uote\"} 1073741824\n"));
	assert_non_null(strstr(b.buf,
		"\ndm_tier_tier_used_bytes{device=\"q\\\"uote\",tier=\"0\",class=\"new\\nline\"} 41943040\n"));
	/* An unknown mode: every known one 0, and it 1. */
	assert_non_null(strstr(b.buf,
		"\ndm_tier_metadata_mode{device=\"q\\\"uote\",mode=\"rw\"} 0\n"
		"dm_tier_metadata_mode{device=\"q\\\"uote\",mode=\"ro\"} 0\n"
		"dm_tier_metadata_mode{device=\"q\\\"uote\",mode=\"fail\"} 0\n"
		"dm_tier_metadata_mode{device=\"q\\\"uote\",mode=\"we\\\"ird\"} 1\n"));
	assert_non_null(strstr(b.buf,
		"\ndm_tier_events_total{device=\"x\\\\y\",event=\"tier-error\"} 4\n"));
	/* No raw newline inside any sample line. */
	assert_null(strstr(b.buf, "new\nline"));
	tl_strbuf_free(&b);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* Two devices: each family once, its samples together, devices in order;
 * a module without migration counters leaves those families out. */
static void test_multiple_devices(void **state)
{
	struct tl_metrics_events ev[2] = { { .device = "a" }, { .device = "gone" } };
	struct tl_strbuf b = { 0 };
	struct tl_nl_dev d[2];
	const char *p, *q;

	(void)state;
	sample_dev(&d[0], "a");
	sample_dev(&d[1], "b");
	d[1].has_migration = false;
	d[1].nr_tiers = 1;
	strcpy(d[1].metadata_mode, "ro");
	d[1].migration.above_high_ms = 5; /* not reported without has_migration */
	ev[1].count[2] = 1; /* dev-del of a device no longer listed */
	assert_int_equal(tl_metrics_format(&b, d, 2, ev, 2), 0);
	assert_int_equal(count(b.buf, "# TYPE dm_tier_tier_capacity_bytes gauge\n"), 1);
	assert_int_equal(count(b.buf, "# HELP "), 23);
	assert_int_equal(count(b.buf, "# TYPE "), 23);
	assert_int_equal(count(b.buf, "\ndm_tier_tier_capacity_bytes{"), 3);
	assert_int_equal(count(b.buf, "\ndm_tier_promotions_total{"), 1);
	assert_int_equal(count(b.buf, "\ndm_tier_above_high_seconds_total{"), 1);
	assert_null(strstr(b.buf, "dm_tier_promotions_total{device=\"b\"}"));
	assert_non_null(strstr(b.buf, "dm_tier_metadata_mode{device=\"b\",mode=\"ro\"} 1\n"));
	assert_non_null(strstr(b.buf, "dm_tier_events_total{device=\"gone\",event=\"dev-del\"} 1\n"));
	assert_null(strstr(b.buf, "dm_tier_events_total{device=\"a\""));
	/* Samples of one family are contiguous: a's tiers, then b's. */
	p = strstr(b.buf, "dm_tier_tier_used_bytes{device=\"a\",tier=\"1\"");
	q = strstr(b.buf, "dm_tier_tier_used_bytes{device=\"b\",tier=\"0\"");
	assert_non_null(p);
	assert_non_null(q);
	assert_true(q > p);
	assert_ptr_equal(strchr(p, '\n') + 1, q);
	/* Every line is a comment or "name{labels} value". */
	for (p = b.buf; *p; p = strchr(p, '\n') + 1) {
		assert_true(*p == '#' || !strncmp(p, "dm_tier_", 8));
		assert_non_null(strchr(p, '\n'));
	}
	tl_strbuf_free(&b);
}

/* A memory tier: its families get one sample each, labelled with the node;
 * devices without one get none. */
static void test_memory_tier(void **state)
{
	struct tl_strbuf b = { 0 };
	struct tl_nl_dev d[2];

	(void)state;
	sample_dev(&d[0], "m");
	sample_dev(&d[1], "plain");
	d[0].mem = (struct tl_mem_stats){ .present = true, .node = 1,
		.bytes_max = 64 << 20, .bytes_used = 8 << 20, .copies = 8,
		.hits = 90, .misses = 10, .fills = 9, .evictions = 1,
		.invalidations = 2 };
	assert_int_equal(tl_metrics_format(&b, d, 2, NULL, 0), 0);
	assert_non_null(strstr(b.buf, "dm_tier_mem_capacity_bytes{device=\"m\",node=\"1\"} 67108864\n"));
	assert_non_null(strstr(b.buf, "dm_tier_mem_used_bytes{device=\"m\",node=\"1\"} 8388608\n"));
	assert_non_null(strstr(b.buf, "dm_tier_mem_copies{device=\"m\",node=\"1\"} 8\n"));
	assert_non_null(strstr(b.buf, "dm_tier_mem_hits_total{device=\"m\",node=\"1\"} 90\n"));
	assert_non_null(strstr(b.buf, "dm_tier_mem_misses_total{device=\"m\",node=\"1\"} 10\n"));
	assert_non_null(strstr(b.buf, "dm_tier_mem_fills_total{device=\"m\",node=\"1\"} 9\n"));
	assert_non_null(strstr(b.buf, "dm_tier_mem_evictions_total{device=\"m\",node=\"1\"} 1\n"));
	assert_non_null(strstr(b.buf, "dm_tier_mem_invalidations_total{device=\"m\",node=\"1\"} 2\n"));
	assert_int_equal(count(b.buf, "\ndm_tier_mem_"), 8);
	assert_null(strstr(b.buf, "dm_tier_mem_copies{device=\"plain\""));
	tl_strbuf_free(&b);
}

static void test_no_devices(void **state)
{
	struct tl_strbuf b = { 0 };

	(void)state;
	assert_int_equal(tl_metrics_format(&b, NULL, 0, NULL, 0), 0);
	assert_int_equal(count(b.buf, "# TYPE "), 23);
	assert_null(strstr(b.buf, "{"));
	tl_strbuf_free(&b);
	assert_string_equal(tl_metrics_event_name(9), "near-full");
	assert_null(tl_metrics_event_name(0));
	assert_null(tl_metrics_event_name(10));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_device),
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_memory_tier),
		cmocka_unit_test(test_multiple_devices),
		cmocka_unit_test(test_no_devices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
