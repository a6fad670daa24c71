// SPDX-License-Identifier: GPL-2.0
/* libtier: list and status output (see tl-report.h). */
#include <stdio.h>

#include "tl-lost.h"
#include "tl-print.h"
#include "tl-report.h"

void tl_print_list(const struct tl_list_entry *v, size_t n)
{
	char size[TL_SIZE_STR_LEN];
	size_t i;

	print_arr_begin(NULL, n ? "NAME                 SIZE        TIERS  MEMORY TIER          UUID\n" :
				  "no dm-tier devices\n");
	for (i = 0; i < n; i++) {
		char mem[64];

		print_obj_begin(NULL);
		print_str("name", "%-20s ", v[i].name);
		print_u64_text("size_bytes", "%-11s ", v[i].size_bytes,
			       tl_size_str(v[i].size_bytes, size));
		print_u64("nr_tiers", "%-6llu ", v[i].nr_tiers);
		if (v[i].has_mem) {
			snprintf(mem, sizeof(mem), "%s on node %u",
				 tl_size_str(v[i].mem_bytes_max, size),
				 v[i].mem_node);
			print_u64("mem_node", NULL, v[i].mem_node);
			print_u64_text("mem_bytes_max", "%-20s ",
				       v[i].mem_bytes_max, mem);
		} else {
			print_null("mem_node", NULL);
			print_null("mem_bytes_max", "-                    ");
		}
		print_str("uuid", "%s\n", v[i].uuid);
		print_obj_end();
	}
	print_arr_end();
}

/* part / whole in tenths of a percent, without overflow. */
static unsigned int permille(u64 part, u64 whole)
{
	if (!whole)
		return 0;
	if (part > U64_MAX / 1000)
		return part / (whole / 1000 ? whole / 1000 : 1);
	return part * 1000 / whole;
}

const char *tl_tier_evacuation(const struct tl_status *st,
			       const struct tl_nl_dev *nd, u32 i,
			       const struct tl_nl_move **req)
{
	u32 k;

	if (req)
		*req = NULL;
	if (i >= st->nr_tiers || !st->tier[i].evacuating)
		return NULL;
	for (k = 0; nd && k < nd->nr_moves; k++) {
		if (strcmp(nd->moves[k].kind, "evacuate") ||
		    nd->moves[k].target_tier != i)
			continue;
		if (req)
			*req = &nd->moves[k];
		return "evacuating";
	}
	return st->tier[i].mapped_extents ? "stopped" : "empty";
}

/* One line per tier that takes no new extents, after the tier table. */
static void print_evacuations(const struct tl_status_view *v, u64 ext)
{
	const struct tl_nl_move *m;
	char a[TL_SIZE_STR_LEN];
	const char *e;
	u32 i;

	for (i = 0; i < v->st->nr_tiers; i++) {
		u64 left = v->st->tier[i].mapped_extents;

		e = tl_tier_evacuation(v->st, v->nd, i, &m);
		if (!e)
			continue;
		print_text("  tier %u:    %s", i, e);
		if (m)
			print_text(" (request %u: %llu extents moved, %llu left, %s)",
				   m->id, (unsigned long long)m->done_extents,
				   (unsigned long long)left,
				   tl_size_str(left * ext, a));
		else if (left)
			print_text(" (%llu extents left; 'tierctl evacuate %s %u' resumes, --cancel undoes)",
				   (unsigned long long)left, v->name, i);
		else
			print_text(" (takes no new extents; 'tierctl evacuate %s %u --cancel' undoes)",
				   v->name, i);
		print_text("\n");
	}
}

static void print_tier(const struct tl_status_view *v, u32 i, u64 ext)
{
	const char *evac = tl_tier_evacuation(v->st, v->nd, i, NULL);
	const struct tl_status *st = v->st;
	const struct tl_status_tier *t = &st->tier[i];
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN], c[TL_SIZE_STR_LEN];
	u64 free_ext = t->total_extents > t->used_extents ?
		       t->total_extents - t->used_extents : 0;
	unsigned int pm = permille(t->used_extents, t->total_extents);
	const char *cls = t->tier_class[0] ? t->tier_class :
					     tl_class_name(v->tier_class[i]);

	print_obj_begin(NULL);
	print_u64("index", "  %-5llu ", i);
	print_str("device", "%-20s ", v->tier_path[i] ? v->tier_path[i] : "-");
	print_str("class", "%-8s ", cls);
	print_bool("durable", "%-7s ", true);
	print_str("state", "%-9s ", t->state);
	print_u64("capacity_extents", NULL, t->total_extents);
	print_u64("used_extents", NULL, t->used_extents);
	print_u64("free_extents", NULL, free_ext);
	print_u64_text("used_bytes", "%9s", t->used_extents * ext,
		       tl_size_str(t->used_extents * ext, a));
	print_u64_text("capacity_bytes", " / %-9s", t->total_extents * ext,
		       tl_size_str(t->total_extents * ext, b));
	print_text(" (%3u.%u%%) ", pm / 10, pm % 10);
	print_u64_text("free_bytes", " %-11s", free_ext * ext,
		       tl_size_str(free_ext * ext, c));
	if (st->mig.present)
		print_u64("mapped_extents", " %-10llu", t->mapped_extents);
	else
		print_null("mapped_extents", " -         ");
	print_u64("read_ios", " %-12llu", t->read_ios);
	print_u64("write_ios", " %-12llu", t->write_ios);
	if (st->has_io_errors)
		print_u64("io_errors", " %llu\n", t->io_errors);
	else
		print_null("io_errors", " -\n");
	if (evac)
		print_str("evacuation", NULL, evac);
	else
		print_null("evacuation", NULL);
	print_obj_end();
}

/*
 * The memory tier: one more element of "tiers" (index nr_tiers, class mem,
 * not durable) with its own numbers, one line in text.
 */
static void print_mem_tier(const struct tl_status *st)
{
	const struct tl_mem_stats *m = &st->mem;
	u64 ext = st->extent_sectors * 512;
	u64 slots = ext ? m->bytes_max / ext : 0;
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN], node[32];
	unsigned int pm = permille(m->copies, slots);
	int hit = tl_mem_hit_permille(m);

	snprintf(node, sizeof(node), "numa node %u", m->node);
	print_obj_begin(NULL);
	print_u64("index", "  %-5llu ", st->nr_tiers);
	print_null("device", NULL);
	print_text("%-20s ", node);
	print_str("class", "%-8s ", "mem");
	print_bool("durable", "%-7s ", false);
	print_str("state", "%-9s ", "ok");
	print_u64("numa_node", NULL, m->node);
	/* Capacity in extents like the durable tiers; "used" is the copies
	 * (the node memory itself is taken in full at activation). */
	print_u64("capacity_extents", NULL, slots);
	print_u64("used_extents", NULL, m->copies);
	print_u64_text("copies_bytes", "%9s", m->copies * ext,
		       tl_size_str(m->copies * ext, a));
	print_u64_text("mem_bytes_max", " / %-9s", m->bytes_max,
		       tl_size_str(m->bytes_max, b));
	print_text(" (%3u.%u%%) ", pm / 10, pm % 10);
	print_u64("mem_bytes_used", NULL, m->bytes_used);
	print_u64("mem_copies", " %llu copies", m->copies);
	if (hit < 0) {
		print_null("hit_ratio", ", hit ratio -");
	} else {
		print_double("hit_ratio", NULL,
			     (double)m->hits / ((double)m->hits + (double)m->misses));
		print_text(", hit ratio %d.%d%%", hit / 10, hit % 10);
	}
	print_u64("mem_hits", " (%llu hits", m->hits);
	print_u64("mem_misses", ", %llu misses)", m->misses);
	print_u64("mem_fills", ", %llu fills", m->fills);
	print_u64("mem_evictions", ", %llu evictions", m->evictions);
	print_u64("mem_invalidations", ", %llu invalidations\n",
		  m->invalidations);
	print_obj_end();
}

/* "4.1 s" for 4100 ms. */
static const char *ms_str(u64 ms, char *buf, size_t len)
{
	snprintf(buf, len, "%llu.%llu s", (unsigned long long)(ms / 1000),
		 (unsigned long long)(ms % 1000 / 100));
	return buf;
}

static void print_migration(const struct tl_status_migration *m)
{
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN];

	if (!m->present) {
		print_null("migration",
			   "  migration: not reported (the dm-tier module predates migration)\n");
		return;
	}
	print_obj_begin("migration");
	print_str("pace", "  migration: pace %s", m->pace);
	print_u64("in_flight", ", %llu in flight", m->in_flight);
	print_u64("promotions", ", %llu up", m->promotions);
	print_u64("swaps", m->swaps ? " (%llu by displacing)" : NULL, m->swaps);
	print_u64("demotions", ", %llu down", m->demotions);
	print_u64_text("bytes_moved", ", %s moved", m->moved_bytes,
		       tl_size_str(m->moved_bytes, a));
	print_u64_text("above_high_ms", ", %s above high watermark",
		       m->above_high_ms, ms_str(m->above_high_ms, b, sizeof(b)));
	print_u64("errors", ", %llu errors", m->errors);
	print_u64("manual_pending",
		  m->manual_pending ? ", %llu extents left to migrate" : NULL,
		  m->manual_pending);
	print_text("\n");
	print_obj_end();
}

/* The move queue (netlink only): null when not looked up. */
static void print_moves(const struct tl_nl_dev *nd)
{
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN];
	u32 i;

	if (!nd) {
		print_null("moves", NULL);
		return;
	}
	print_text("  moves:     %u queued (at most %u)\n", nd->nr_moves,
		   TL_NL_MOVES_MAX);
	print_arr_begin("moves", nd->nr_moves ?
			"    id  kind      state              start +length          tier  done / left extents\n" :
			NULL);
	for (i = 0; i < nd->nr_moves; i++) {
		const struct tl_nl_move *m = &nd->moves[i];

		print_obj_begin(NULL);
		print_u64("id", "  %4llu", m->id);
		print_str("kind", "  %-8s", m->kind);
		print_str("state", "  %-10s", m->state);
		print_u64_text("range_start", "  %10s", m->range_start,
			       tl_size_str(m->range_start, a));
		print_u64_text("range_len", " +%-13s", m->range_len,
			       tl_size_str(m->range_len, b));
		print_u64("target_tier", "  %4llu", m->target_tier);
		print_u64("done_extents", "  %llu", m->done_extents);
		print_u64("left_extents", " / %llu\n", m->left_extents);
		print_obj_end();
	}
	print_arr_end();
}

void tl_print_status(const struct tl_status_view *v)
{
	const struct tl_status *st = v->st;
	const struct tier_table *t = &v->tt->t;
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN], dm[160];
	u64 ext = st->extent_sectors << TIER_SECTOR_SHIFT;
	unsigned int pm = permille(st->mapped_extents, st->virt_extents);
	u32 i;

	snprintf(dm, sizeof(dm), "/dev/mapper/%s", v->name);
	print_obj_begin(NULL);
	print_str("name", "%s:", v->name);
	print_str("uuid", NULL, v->uuid);
	print_str("dm_device", NULL, dm);
	print_u64_text("size_bytes", " %s", v->size_bytes,
		       tl_size_str(v->size_bytes, a));
	print_u64_text("extent_bytes", ", %s extents", ext,
		       tl_size_str(ext, b));
	print_u64("virt_extents", NULL, st->virt_extents);
	print_u64("nr_tiers", ", %llu tier", st->nr_tiers);
	print_text("%s", st->nr_tiers == 1 ? "" : "s");
	if (st->mem.present)
		print_text(" + a memory tier on NUMA node %u", st->mem.node);
	print_text("\n");
	print_str("metadata_mode", "  metadata:  %s", st->metadata_mode);
	print_u64("commits", ", %llu commits", st->commits);
	if (st->commit_time.present) {
		char last[32], mean[32];

		snprintf(last, sizeof(last), "%.1f ms",
			 st->commit_time.last_us / 1000.0);
		snprintf(mean, sizeof(mean), "%.1f ms",
			 st->commits ? st->commit_time.total_us / 1000.0 /
					       st->commits :
				       0.0);
		print_u64_text("commit_last_us", " (last %s", st->commit_time.last_us,
			       last);
		print_u64_text("commit_total_us", ", mean %s)",
			       st->commit_time.total_us, mean);
	} else {
		print_null("commit_last_us", NULL);
		print_null("commit_total_us", NULL);
	}
	if (v->meta_path)
		print_str("metadata_device", ", on %s", v->meta_path);
	else
		print_null("metadata_device", ", on tier 0");
	if (st->meta.present) {
		u64 used = st->meta.used_blocks * TIER_BLOCK_SIZE;
		u64 size = st->meta.total_blocks * TIER_BLOCK_SIZE;
		unsigned int mpm = permille(used, size);

		print_u64_text("metadata_used_bytes", ", %s", used,
			       tl_size_str(used, a));
		print_u64_text("metadata_size_bytes", " used of %s", size,
			       tl_size_str(size, b));
		print_text(" (%u.%u%%)", mpm / 10, mpm % 10);
	} else {
		print_null("metadata_used_bytes", NULL);
		print_null("metadata_size_bytes", NULL);
	}
	print_bool("suspended", v->suspended ? ", SUSPENDED" : NULL,
		   v->suspended);
	print_bool("read_only",
		   v->read_only ? ", READ-ONLY (nothing is written)" : NULL,
		   v->read_only);
	print_text("\n");
	print_u64("mapped_extents", "  mapped:    %llu", st->mapped_extents);
	print_u64_text("mapped_bytes", " extents (%s)", st->mapped_extents * ext,
		       tl_size_str(st->mapped_extents * ext, a));
	print_text(" of %llu, %u.%u%%\n", (unsigned long long)st->virt_extents,
		   pm / 10, pm % 10);
	print_u64("commit_interval_ms", "  options:   commit every %llu ms",
		  t->commit_interval_ms);
	print_u64("reserve_pct", ", %llu%% reserve", t->reserve_pct);
	print_bool("discard_passdown", ", discard passdown %s\n",
		   t->discard_passdown);
	print_migration(&st->mig);
	print_moves(v->nd);
	print_arr_begin("tiers", "  tier  device               class    durable state          used / capacity            free        mapped     reads        writes       io errors\n");
	for (i = 0; i < st->nr_tiers; i++)
		print_tier(v, i, ext);
	if (st->mem.present)
		print_mem_tier(st);
	print_arr_end();
	print_evacuations(v, ext);
	if (st->offline.present) {
		/* Text only when something waits or waited: it is rare. */
		bool any = st->offline.queued || st->offline.expired;

		print_u64("offline_queued",
			  any ? "  offline queue: %llu writes waiting for an offline tier" :
				NULL,
			  st->offline.queued);
		print_u64("offline_expired",
			  any ? ", %llu failed at their deadline\n" : NULL,
			  st->offline.expired);
	} else {
		print_null("offline_queued", NULL);
		print_null("offline_expired", NULL);
	}
	print_u64("nospc_errors", "  nospc errors: %llu\n", st->nospc_errors);
	if (v->lost && v->nd && v->lost->tier_lost) {
		/* At most 16 ranges in text; `where --lost` lists all. */
		print_obj_begin("lost");
		tl_print_lost(v->lost, v->nd, 16, false);
		print_obj_end();
	} else {
		print_null("lost", NULL);
		if (v->lost_note)
			print_text("  lost:  %s\n", v->lost_note);
	}
	print_obj_end();
}
