// SPDX-License-Identifier: GPL-2.0
/* Unit tests for user/tierd/tl-metrics.c: the Prometheus text format. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tl-metrics.h"

/* Families in the output, with or without samples. */
#define NR_FAMILIES 36

static void sample_dev(struct tl_nl_dev *d, const char *name)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	strcpy(d->uuid, "00112233-4455-6677-8899-aabbccddeeff");
	d->size_bytes = 1ULL << 30;
	d->extent_bytes = 1 << 20;
	d->mapped_extents = 48;
	strcpy(d->metadata_mode, "rw");
	d->commits = 321;
	d->has_commit_time = true;
	d->commit_last_us = 2500;
	d->commit_total_us = 1234000056;
	d->nospc_errors = 2;
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
		.demotions = 12, .swaps = 3, .bytes_moved = 19 << 20, .in_flight = 3,
		.pace = "deadline", .above_high_ms = 1234, .errors = 1,
		.manual_pending = 17 };
}

/* The whole output for one device, byte for byte. */
static const char sample_text[] =
	"# HELP dm_tier_build_info Always 1: the version of tierd, and of the dm-tier module when it is loaded.\n"
	"# TYPE dm_tier_build_info gauge\n"
	"dm_tier_build_info{version=\"0.2.0\",module_version=\"0.2.0\"} 1\n"
	"# HELP dm_tier_device_info Always 1: the device's kernel name (dm, as node_exporter's node_disk_* device label) and uuid.\n"
	"# TYPE dm_tier_device_info gauge\n"
	"dm_tier_device_info{device=\"ckpt0\",dm=\"dm-3\",uuid=\"00112233-4455-6677-8899-aabbccddeeff\"} 1\n"
	"# HELP dm_tier_device_size_bytes Virtual size of the dm-tier device.\n"
	"# TYPE dm_tier_device_size_bytes gauge\n"
	"dm_tier_device_size_bytes{device=\"ckpt0\"} 1073741824\n"
	"# HELP dm_tier_device_mapped_bytes Bytes of the device mapped to a tier (the rest reads as zeroes).\n"
	"# TYPE dm_tier_device_mapped_bytes gauge\n"
	"dm_tier_device_mapped_bytes{device=\"ckpt0\"} 50331648\n"
	"# HELP dm_tier_extent_bytes Extent size of the device: the unit of mapping and migration.\n"
	"# TYPE dm_tier_extent_bytes gauge\n"
	"dm_tier_extent_bytes{device=\"ckpt0\"} 1048576\n"
	"# HELP dm_tier_commits_total Metadata commits since activation.\n"
	"# TYPE dm_tier_commits_total counter\n"
	"dm_tier_commits_total{device=\"ckpt0\"} 321\n"
	"# HELP dm_tier_commit_seconds_total Time metadata commits took since activation (each from its flushes of the data tiers to its superblock write).\n"
	"# TYPE dm_tier_commit_seconds_total counter\n"
	"dm_tier_commit_seconds_total{device=\"ckpt0\"} 1234.000056\n"
	"# HELP dm_tier_commit_last_seconds Time the last metadata commit took (0 before the first).\n"
	"# TYPE dm_tier_commit_last_seconds gauge\n"
	"dm_tier_commit_last_seconds{device=\"ckpt0\"} 0.002500\n"
	"# HELP dm_tier_nospc_errors_total Writes that needed a new extent and failed with ENOSPC because every tier was full, since activation.\n"
	"# TYPE dm_tier_nospc_errors_total counter\n"
	"dm_tier_nospc_errors_total{device=\"ckpt0\"} 2\n"
	"# HELP dm_tier_metadata_mode Metadata mode of the device (rw, ro, fail): 1 for the current one.\n"
	"# TYPE dm_tier_metadata_mode gauge\n"
	"dm_tier_metadata_mode{device=\"ckpt0\",mode=\"rw\"} 1\n"
	"dm_tier_metadata_mode{device=\"ckpt0\",mode=\"ro\"} 0\n"
	"dm_tier_metadata_mode{device=\"ckpt0\",mode=\"fail\"} 0\n"
	"# HELP dm_tier_capacity_bytes Data capacity of the tier.\n"
	"# TYPE dm_tier_capacity_bytes gauge\n"
	"dm_tier_capacity_bytes{device=\"ckpt0\",tier=\"0\",class=\"nvme\"} 62914560\n"
	"dm_tier_capacity_bytes{device=\"ckpt0\",tier=\"1\",class=\"nvmf\"} 524288000\n"
	"# HELP dm_tier_used_bytes Bytes of the tier in use (mapped, being prepared or awaiting a commit to be freed).\n"
	"# TYPE dm_tier_used_bytes gauge\n"
	"dm_tier_used_bytes{device=\"ckpt0\",tier=\"0\",class=\"nvme\"} 41943040\n"
	"dm_tier_used_bytes{device=\"ckpt0\",tier=\"1\",class=\"nvmf\"} 10485760\n"
	"# HELP dm_tier_mapped_bytes Bytes of the device mapped to the tier.\n"
	"# TYPE dm_tier_mapped_bytes gauge\n"
	"dm_tier_mapped_bytes{device=\"ckpt0\",tier=\"0\",class=\"nvme\"} 39845888\n"
	"dm_tier_mapped_bytes{device=\"ckpt0\",tier=\"1\",class=\"nvmf\"} 10485760\n"
	"# HELP dm_tier_read_ios_total Reads remapped to the tier since activation.\n"
	"# TYPE dm_tier_read_ios_total counter\n"
	"dm_tier_read_ios_total{device=\"ckpt0\",tier=\"0\",class=\"nvme\"} 100\n"
	"dm_tier_read_ios_total{device=\"ckpt0\",tier=\"1\",class=\"nvmf\"} 5\n"
	"# HELP dm_tier_write_ios_total Writes remapped to the tier since activation.\n"
	"# TYPE dm_tier_write_ios_total counter\n"
	"dm_tier_write_ios_total{device=\"ckpt0\",tier=\"0\",class=\"nvme\"} 200\n"
	"dm_tier_write_ios_total{device=\"ckpt0\",tier=\"1\",class=\"nvmf\"} 6\n"
	"# HELP dm_tier_io_errors_total I/O errors of the tier since activation.\n"
	"# TYPE dm_tier_io_errors_total counter\n"
	"dm_tier_io_errors_total{device=\"ckpt0\",tier=\"0\",class=\"nvme\"} 0\n"
	"dm_tier_io_errors_total{device=\"ckpt0\",tier=\"1\",class=\"nvmf\"} 3\n"
	"# HELP dm_tier_degraded 1 when the tier is not in state ok (see dm_tier_state).\n"
	"# TYPE dm_tier_degraded gauge\n"
	"dm_tier_degraded{device=\"ckpt0\",tier=\"0\",class=\"nvme\"} 0\n"
	"dm_tier_degraded{device=\"ckpt0\",tier=\"1\",class=\"nvmf\"} 1\n"
	"# HELP dm_tier_state State of the tier (ok, degraded, offline): 1 for the current one.\n"
	"# TYPE dm_tier_state gauge\n"
	"dm_tier_state{device=\"ckpt0\",tier=\"0\",class=\"nvme\",state=\"ok\"} 1\n"
	"dm_tier_state{device=\"ckpt0\",tier=\"0\",class=\"nvme\",state=\"degraded\"} 0\n"
	"dm_tier_state{device=\"ckpt0\",tier=\"0\",class=\"nvme\",state=\"offline\"} 0\n"
	"dm_tier_state{device=\"ckpt0\",tier=\"1\",class=\"nvmf\",state=\"ok\"} 0\n"
	"dm_tier_state{device=\"ckpt0\",tier=\"1\",class=\"nvmf\",state=\"degraded\"} 1\n"
	"dm_tier_state{device=\"ckpt0\",tier=\"1\",class=\"nvmf\",state=\"offline\"} 0\n"
	"# HELP dm_tier_promotions_total Extents moved to a faster tier since activation.\n"
	"# TYPE dm_tier_promotions_total counter\n"
	"dm_tier_promotions_total{device=\"ckpt0\"} 7\n"
	"# HELP dm_tier_demotions_total Extents moved to a slower tier since activation.\n"
	"# TYPE dm_tier_demotions_total counter\n"
	"dm_tier_demotions_total{device=\"ckpt0\"} 12\n"
	"# HELP dm_tier_swaps_total Promotions that displaced a cold tier-0 extent since activation.\n"
	"# TYPE dm_tier_swaps_total counter\n"
	"dm_tier_swaps_total{device=\"ckpt0\"} 3\n"
	"# HELP dm_tier_migrated_bytes_total Bytes copied by migrations since activation.\n"
	"# TYPE dm_tier_migrated_bytes_total counter\n"
	"dm_tier_migrated_bytes_total{device=\"ckpt0\"} 19922944\n"
	"# HELP dm_tier_migration_errors_total Migration copies that failed since activation.\n"
	"# TYPE dm_tier_migration_errors_total counter\n"
	"dm_tier_migration_errors_total{device=\"ckpt0\"} 1\n"
	"# HELP dm_tier_migrations_in_flight Migration copies in flight now.\n"
	"# TYPE dm_tier_migrations_in_flight gauge\n"
	"dm_tier_migrations_in_flight{device=\"ckpt0\"} 3\n"
	"# HELP dm_tier_manual_pending_extents Extents a migrate or pin request still has to examine or copy.\n"
	"# TYPE dm_tier_manual_pending_extents gauge\n"
	"dm_tier_manual_pending_extents{device=\"ckpt0\"} 17\n"
	"# HELP dm_tier_above_high_seconds_total Time tier 0 spent above its high watermark since activation.\n"
	"# TYPE dm_tier_above_high_seconds_total counter\n"
	"dm_tier_above_high_seconds_total{device=\"ckpt0\"} 1.234\n"
	"# HELP dm_tier_migration_pace Pace of automatic migration (idle, full, deadline, background): 1 for the current one.\n"
	"# TYPE dm_tier_migration_pace gauge\n"
	"dm_tier_migration_pace{device=\"ckpt0\",pace=\"idle\"} 0\n"
	"dm_tier_migration_pace{device=\"ckpt0\",pace=\"full\"} 0\n"
	"dm_tier_migration_pace{device=\"ckpt0\",pace=\"deadline\"} 1\n"
	"dm_tier_migration_pace{device=\"ckpt0\",pace=\"background\"} 0\n"
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
	"# HELP dm_tier_events_total Netlink monitor events tierd received, by device and event.\n"
	"# TYPE dm_tier_events_total counter\n"
	"dm_tier_events_total{device=\"ckpt0\",event=\"dev-new\"} 1\n"
	"dm_tier_events_total{device=\"ckpt0\",event=\"watermark-high\"} 2\n"
	;

/* tierd's way: versions, dm names beside the devices. */
static int format(struct tl_strbuf *b, const struct tl_nl_dev *devs,
		  const char *const *dm, size_t nr,
		  const struct tl_metrics_events *ev, size_t nr_ev)
{
	const struct tl_metrics_src src = {
		.devs = devs, .dm_names = dm, .nr_devs = nr, .events = ev,
		.nr_events = nr_ev, .version = "0.2.0",
		.module_version = "0.2.0" };

	return tl_metrics_format(b, &src);
}

static void test_sample_device(void **state)
{
	static const char *const dm[] = { "dm-3" };
	struct tl_metrics_events ev = { .device = "ckpt0" };
	struct tl_strbuf b = { 0 };
	struct tl_nl_dev d;

	(void)state;
	sample_dev(&d, "ckpt0");
	ev.count[1] = 1; /* dev-new */
	ev.count[3] = 2; /* watermark-high */
	assert_int_equal(format(&b, &d, dm, 1, &ev, 1), 0);
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
	assert_int_equal(format(&b, &d, NULL, 1, &ev, 1), 0);
	assert_non_null(strstr(b.buf,
		"\ndm_tier_device_size_bytes{device=\"q\\\"uote\"} 1073741824\n"));
	assert_non_null(strstr(b.buf,
		"\ndm_tier_used_bytes{device=\"q\\\"uote\",tier=\"0\",class=\"new\\nline\"} 41943040\n"));
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
	d[1].has_commit_time = false; /* an older module */
	ev[1].count[2] = 1; /* dev-del of a device no longer listed */
	assert_int_equal(format(&b, d, NULL, 2, ev, 2), 0);
	assert_int_equal(count(b.buf, "# TYPE dm_tier_capacity_bytes gauge\n"), 1);
	assert_int_equal(count(b.buf, "# HELP "), NR_FAMILIES);
	assert_int_equal(count(b.buf, "# TYPE "), NR_FAMILIES);
	assert_int_equal(count(b.buf, "\ndm_tier_capacity_bytes{"), 3);
	assert_int_equal(count(b.buf, "\ndm_tier_state{"), 3 * 3);
	assert_int_equal(count(b.buf, "\ndm_tier_device_info{"), 2);
	assert_int_equal(count(b.buf, "\ndm_tier_commits_total{"), 2);
	/* The commit durations: device a only. */
	assert_int_equal(count(b.buf, "\ndm_tier_commit_seconds_total{"), 1);
	assert_int_equal(count(b.buf, "\ndm_tier_commit_last_seconds{"), 1);
	assert_null(strstr(b.buf, "dm_tier_commit_last_seconds{device=\"b\"}"));
	assert_int_equal(count(b.buf, "\ndm_tier_build_info{"), 1);
	/* The migration families: device a only. */
	assert_int_equal(count(b.buf, "\ndm_tier_promotions_total{"), 1);
	assert_int_equal(count(b.buf, "\ndm_tier_above_high_seconds_total{"), 1);
	assert_int_equal(count(b.buf, "\ndm_tier_migrations_in_flight{"), 1);
	assert_int_equal(count(b.buf, "\ndm_tier_manual_pending_extents{"), 1);
	assert_int_equal(count(b.buf, "\ndm_tier_migration_pace{"), 4);
	assert_null(strstr(b.buf, "dm_tier_promotions_total{device=\"b\"}"));
	assert_null(strstr(b.buf, "dm_tier_migration_pace{device=\"b\""));
	assert_non_null(strstr(b.buf, "dm_tier_metadata_mode{device=\"b\",mode=\"ro\"} 1\n"));
	assert_non_null(strstr(b.buf, "dm_tier_events_total{device=\"gone\",event=\"dev-del\"} 1\n"));
	assert_null(strstr(b.buf, "dm_tier_events_total{device=\"a\""));
	/* Samples of one family are contiguous: a's tiers, then b's. */
	p = strstr(b.buf, "dm_tier_used_bytes{device=\"a\",tier=\"1\"");
	q = strstr(b.buf, "dm_tier_used_bytes{device=\"b\",tier=\"0\"");
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
	assert_int_equal(format(&b, d, NULL, 2, NULL, 0), 0);
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
	assert_int_equal(format(&b, NULL, NULL, 0, NULL, 0), 0);
	assert_int_equal(count(b.buf, "# TYPE "), NR_FAMILIES);
	/* Only the build, which has no device. */
	assert_int_equal(count(b.buf, "{"), 1);
	assert_non_null(strstr(b.buf, "\ndm_tier_build_info{version=\"0.2.0\",module_version=\"0.2.0\"} 1\n"));
	tl_strbuf_free(&b);
	assert_string_equal(tl_metrics_event_name(9), "near-full");
	assert_null(tl_metrics_event_name(0));
	assert_null(tl_metrics_event_name(10));
}

/*
 * The state sets (per-tier state, migration pace) as the metadata mode:
 * every known word 0 or 1, a word this tierd does not know added with 1,
 * nothing added for a word the kernel did not report.
 */
static void test_state_sets(void **state)
{
	struct tl_strbuf b = { 0 };
	struct tl_nl_dev d;

	(void)state;
	sample_dev(&d, "s");
	strcpy(d.tiers[0].state, "offline");
	strcpy(d.tiers[1].state, "resyncing");
	strcpy(d.migration.pace, "turbo");
	d.metadata_mode[0] = '\0';
	assert_int_equal(format(&b, &d, NULL, 1, NULL, 0), 0);
	assert_non_null(strstr(b.buf,
		"\ndm_tier_state{device=\"s\",tier=\"0\",class=\"nvme\",state=\"ok\"} 0\n"
		"dm_tier_state{device=\"s\",tier=\"0\",class=\"nvme\",state=\"degraded\"} 0\n"
		"dm_tier_state{device=\"s\",tier=\"0\",class=\"nvme\",state=\"offline\"} 1\n"
		"dm_tier_state{device=\"s\",tier=\"1\",class=\"nvmf\",state=\"ok\"} 0\n"
		"dm_tier_state{device=\"s\",tier=\"1\",class=\"nvmf\",state=\"degraded\"} 0\n"
		"dm_tier_state{device=\"s\",tier=\"1\",class=\"nvmf\",state=\"offline\"} 0\n"
		"dm_tier_state{device=\"s\",tier=\"1\",class=\"nvmf\",state=\"resyncing\"} 1\n"
		"# HELP "));
	/* Not ok is degraded, whatever the word. */
	assert_non_null(strstr(b.buf,
		"\ndm_tier_degraded{device=\"s\",tier=\"0\",class=\"nvme\"} 1\n"
		"dm_tier_degraded{device=\"s\",tier=\"1\",class=\"nvmf\"} 1\n"));
	assert_non_null(strstr(b.buf,
		"\ndm_tier_migration_pace{device=\"s\",pace=\"idle\"} 0\n"
		"dm_tier_migration_pace{device=\"s\",pace=\"full\"} 0\n"
		"dm_tier_migration_pace{device=\"s\",pace=\"deadline\"} 0\n"
		"dm_tier_migration_pace{device=\"s\",pace=\"background\"} 0\n"
		"dm_tier_migration_pace{device=\"s\",pace=\"turbo\"} 1\n"
		"# HELP "));
	assert_non_null(strstr(b.buf,
		"\ndm_tier_metadata_mode{device=\"s\",mode=\"fail\"} 0\n# HELP "));
	assert_null(strstr(b.buf, "mode=\"\""));
	tl_strbuf_free(&b);
}

/* device_info without a dm name (not found in sysfs), build_info without a
 * module: the labels are there, empty. */
static void test_info_unknown(void **state)
{
	static const char *const dm[] = { NULL, "dm-12" };
	const struct tl_metrics_src src = { .version = "0.2.0" };
	struct tl_strbuf b = { 0 };
	struct tl_nl_dev d[2];

	(void)state;
	sample_dev(&d[0], "a");
	sample_dev(&d[1], "b");
	d[1].uuid[0] = '\0';
	assert_int_equal(format(&b, d, dm, 2, NULL, 0), 0);
	assert_non_null(strstr(b.buf,
		"\ndm_tier_device_info{device=\"a\",dm=\"\",uuid=\"00112233-4455-6677-8899-aabbccddeeff\"} 1\n"
		"dm_tier_device_info{device=\"b\",dm=\"dm-12\",uuid=\"\"} 1\n"));
	tl_strbuf_free(&b);
	assert_int_equal(tl_metrics_format(&b, &src), 0);
	assert_non_null(strstr(b.buf,
		"\ndm_tier_build_info{version=\"0.2.0\",module_version=\"\"} 1\n"));
	tl_strbuf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_device),
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_memory_tier),
		cmocka_unit_test(test_multiple_devices),
		cmocka_unit_test(test_no_devices),
		cmocka_unit_test(test_state_sets),
		cmocka_unit_test(test_info_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
