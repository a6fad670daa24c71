// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl where: on which tier each extent of some files (or of a byte range
 * of the device) lives: FIEMAP for the files' places on the device, then an
 * extent-dump over those places for the tiers. Answers "is my checkpoint on
 * the capacity tier yet?".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl-print.h"
#include "tierctl.h"
#include "tl-fiemap.h"
#include "tl-lost.h"

struct where_file {
	char *path;		/* NULL for a --range */
	size_t first, nr;	/* its extents in where.ext[] */
};

struct where {
	struct where_file *file;
	size_t nr_files, cap_files;
	struct tl_file_extent *ext;
	size_t nr_ext, cap_ext;
	struct tl_nl_extent *map;	/* extent-dump, sorted by index */
	size_t nr_map, cap_map;
	struct tl_err *err;
};

static int grow(void **v, size_t *cap, size_t nr, size_t size)
{
	void *p;

	if (nr < *cap)
		return 0;
	p = realloc(*v, (*cap ? 2 * *cap : 16) * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = *cap ? 2 * *cap : 16;
	return 0;
}

static int add_file(struct where *w, const char *path)
{
	struct where_file *f;

	if (grow((void **)&w->file, &w->cap_files, w->nr_files, sizeof(*f)))
		return -ENOMEM;
	f = &w->file[w->nr_files];
	f->path = path ? strdup(path) : NULL;
	if (path && !f->path)
		return -ENOMEM;
	f->first = w->nr_ext;
	f->nr = 0;
	w->nr_files++;
	return 0;
}

static int add_ext(struct where *w, const struct tl_file_extent *e)
{
	if (grow((void **)&w->ext, &w->cap_ext, w->nr_ext, sizeof(*e)))
		return -ENOMEM;
	w->ext[w->nr_ext++] = *e;
	w->file[w->nr_files - 1].nr++;
	return 0;
}

static int on_file_extent(const char *file, const struct tl_file_extent *ext,
			  void *arg)
{
	struct where *w = arg;

	if (ext ? add_ext(w, ext) : add_file(w, file))
		return tl_fail(w->err, TL_FAIL, "out of memory");
	return 0;
}

static int on_map_extent(const struct tl_nl_extent *e, void *arg)
{
	struct where *w = arg;

	if (grow((void **)&w->map, &w->cap_map, w->nr_map, sizeof(*e)))
		return tl_fail(w->err, TL_FAIL, "out of memory");
	w->map[w->nr_map++] = *e;
	return 0;
}

static int map_cmp(const void *a, const void *b)
{
	const struct tl_nl_extent *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static const struct tl_nl_extent *lookup(const struct where *w, u64 index)
{
	struct tl_nl_extent key = { .index = index };

	return bsearch(&key, w->map, w->nr_map, sizeof(key), map_cmp);
}

static void where_free(struct where *w)
{
	size_t i;

	for (i = 0; i < w->nr_files; i++)
		free(w->file[i].path);
	free(w->file);
	free(w->ext);
	free(w->map);
}

/* A piece of a file extent whose device extents agree on where they are. */
struct piece {
	u64 file_off, dev_off, len;
	const struct tl_nl_extent *at;	/* NULL: unmapped */
};

static bool same_place(const struct tl_nl_extent *a, const struct tl_nl_extent *b)
{
	if (!a || !b)
		return a == b;
	return a->tier == b->tier && a->pinned == b->pinned && a->busy == b->busy;
}

static void print_piece(const struct piece *p, bool with_file_off,
			u64 *tier_bytes, u64 *unmapped)
{
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN], c[TL_SIZE_STR_LEN];

	print_obj_begin(NULL);
	if (with_file_off)
		print_u64_text("file_offset", "  %-16s ", p->file_off,
			       bytes_text(p->file_off, a));
	else
		print_text("  ");
	print_u64_text("device_offset", "%-16s ", p->dev_off,
		       bytes_text(p->dev_off, b));
	print_u64_text("length", "%-16s ", p->len, bytes_text(p->len, c));
	if (p->at) {
		print_u64("tier", "%llu", p->at->tier);
		print_bool("pinned", p->at->pinned ? " pinned" : NULL, p->at->pinned);
		print_bool("busy", p->at->busy ? " moving" : NULL, p->at->busy);
		if (p->at->tier < TIER_MAX_TIERS)
			tier_bytes[p->at->tier] += p->len;
	} else {
		print_null("tier", "unmapped");
		*unmapped += p->len;
	}
	print_text("\n");
	print_obj_end();
}

/* One file extent, split where the tier (or pin state) changes. */
static void print_extent(const struct where *w, const struct tl_file_extent *e,
			 u64 eb, bool with_file_off, u64 *tier_bytes,
			 u64 *unmapped)
{
	struct piece cur = { 0 };
	u64 off = 0;

	while (off < e->len) {
		u64 dev = e->physical + off;
		u64 ext_end = (dev / eb + 1) * eb;
		u64 n = min(e->len - off, ext_end - dev);
		const struct tl_nl_extent *at = lookup(w, dev / eb);

		if (cur.len && same_place(cur.at, at)) {
			cur.len += n;
		} else {
			if (cur.len)
				print_piece(&cur, with_file_off, tier_bytes, unmapped);
			cur.file_off = e->logical + off;
			cur.dev_off = dev;
			cur.len = n;
			cur.at = at;
		}
		off += n;
	}
	if (cur.len)
		print_piece(&cur, with_file_off, tier_bytes, unmapped);
}

static void print_where(const struct where *w, const struct tl_nl_dev *dev)
{
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN], range[80];
	u64 tier_bytes[TIER_MAX_TIERS] = { 0 }, unmapped = 0;
	size_t i, j;
	u32 t;

	print_obj_begin(NULL);
	print_str("name", NULL, dev->name);
	print_u64("extent_bytes", NULL, dev->extent_bytes);
	print_arr_begin("files", NULL);
	for (i = 0; i < w->nr_files; i++) {
		const struct where_file *f = &w->file[i];
		bool is_file = f->path != NULL;

		print_obj_begin(NULL);
		if (is_file) {
			print_str("path", "%s\n", f->path);
		} else {
			const struct tl_file_extent *e = &w->ext[f->first];

			snprintf(range, sizeof(range), "range %s:%s\n",
				 bytes_text(e->physical, a), bytes_text(e->len, b));
			print_null("path", range);
		}
		print_arr_begin("extents", !f->nr ? "  (no data)\n" :
				is_file ? "  file offset      device offset    length           tier\n" :
					  "  device offset    length           tier\n");
		for (j = 0; j < f->nr; j++)
			print_extent(w, &w->ext[f->first + j], dev->extent_bytes,
				     is_file, tier_bytes, &unmapped);
		print_arr_end();
		print_obj_end();
	}
	print_arr_end();
	print_arr_begin("tiers", "summary:");
	for (t = 0; t < dev->nr_tiers && t < TIER_MAX_TIERS; t++) {
		print_obj_begin(NULL);
		print_u64("tier", " tier %llu", t);
		print_u64_text("bytes", " %s", tier_bytes[t],
			       bytes_text(tier_bytes[t], a));
		print_obj_end();
		if (t + 1 < dev->nr_tiers)
			print_text(",");
	}
	print_arr_end();
	print_u64_text("unmapped_bytes", ", unmapped %s\n", unmapped,
		       bytes_text(unmapped, a));
	print_obj_end();
}

/*
 * where --lost: the byte ranges of the device on tiers that are not ok
 * (what evacuate-lost would turn into zeroes).
 */
static int where_lost(const char *name, bool json)
{
	struct tl_err err = { "" };
	struct tl_lost l = { 0 };
	struct tl_nl_dev *dev;
	struct tl_nl *nl;
	int rc;

	rc = nl_open_dev("where", name, NULL, &nl, &dev);
	if (rc)
		return rc;
	rc = tl_lost_scan(nl, name, dev, &l, &err);
	tl_nl_close(nl);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "%s: ", dev->name);
	print_u64("extent_bytes", NULL, dev->extent_bytes);
	print_text("%s\n", l.tier_lost ? "data on tiers that are not ok" :
					  "every tier is ok, nothing is lost");
	tl_print_lost(&l, dev, 0, tierctl_human);
	print_obj_end();
	print_close();
out:
	tl_lost_free(&l);
	free(dev);
	return rc;
}

int cmd_where(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "range", required_argument, NULL, 'r' },
		{ "lost", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "human", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_err err = { "" };
	struct where w = { .err = &err };
	struct tl_ranges rs = { 0 };
	struct tl_nl_dev *dev = NULL;
	struct tl_nl *nl = NULL;
	bool json = tierctl_json, have_range = false, lost = false;
	u64 start = 0, len = 0;
	const char *name;
	dev_t devt = 0;
	int c, i, rc;
	size_t k;

	opts_reset();
	while ((c = next_opt("where", argc, argv, "r:ljH", longopts)) != -1) {
		switch (c) {
		case 'l':
			lost = true;
			break;
		case 'r':
			if (parse_range("where", optarg, false, &start, &len))
				return TIERCTL_EXIT_USAGE;
			have_range = true;
			break;
		case 'j':
			json = true;
			break;
		case 'H':
			tierctl_human = true;
			break;
		case 'h':
			return TIERCTL_EXIT_OK;
		default:
			return TIERCTL_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error("where: no device NAME given");
	name = argv[optind++];
	if (lost) {
		if (have_range || optind < argc)
			return usage_error("where: --lost takes only the device NAME");
		return where_lost(name, json);
	}
	if (optind >= argc && !have_range)
		return usage_error("where: give the files (PATH...) or --range START:LEN");
	if (optind < argc && have_range)
		return usage_error("where: give either PATH... or --range, not both");
	if (optind < argc) {
		rc = mapper_devt(name, &devt);
		for (i = optind; !rc && i < argc; i++)
			rc = check_on_device(argv[i], name, devt);
		if (rc)
			return rc;
	}

	rc = nl_open_dev("where", name, NULL, &nl, &dev);
	if (rc)
		goto out;
	if (!dev->extent_bytes)
		rc = tl_fail(&err, TL_FAIL, "where: the kernel reported no extent size for %s",
			     name);
	if (!rc && have_range) {
		struct tl_file_extent e = { start, start, len };

		if (add_file(&w, NULL) || add_ext(&w, &e))
			rc = tl_fail(&err, TL_FAIL, "out of memory");
	}
	for (i = optind; !rc && i < argc; i++)
		rc = tl_fiemap_walk(argv[i], devt, on_file_extent, &w, &err);
	/* The map of just the extents the files (or the range) touch. */
	for (k = 0; !rc && k < w.nr_ext; k++)
		if (tl_ranges_add(&rs, w.ext[k].physical, w.ext[k].len))
			rc = tl_fail(&err, TL_FAIL, "out of memory");
	if (!rc)
		tl_ranges_normalize(&rs, dev->extent_bytes);
	for (k = 0; !rc && k < rs.nr; k++)
		rc = tl_nl_extent_dump(nl, name, rs.r[k].start, rs.r[k].len,
				       on_map_extent, &w, &err);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	qsort(w.map, w.nr_map, sizeof(*w.map), map_cmp);
	print_open(json);
	print_where(&w, dev);
	print_close();
out:
	tl_nl_close(nl);
	tl_ranges_free(&rs);
	where_free(&w);
	free(dev);
	return rc;
}
