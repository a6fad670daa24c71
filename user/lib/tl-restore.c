// SPDX-License-Identifier: GPL-2.0
/* libtier: tierctl restore (see tl-restore.h). */
#include <stdio.h>
#include <unistd.h>

#include "extent_map.h"
#include "tl-disk.h"
#include "tl-json.h"
#include "tl-restore.h"

#define TOK_LEN 256

struct rd {
	struct tl_json j;
	char tok[TOK_LEN];
	struct tl_err *err;
};

static int bad(struct rd *r, const char *what, const char *key)
{
	return tl_fail(r->err, TL_USAGE, "dump, line %u: %s%s%s%s", r->j.line,
		       what, key ? " ('" : "", key ? key : "", key ? "')" : "");
}

static int get_u64(struct rd *r, const char *key, u64 *v)
{
	if (tl_json_next(&r->j, r->tok, sizeof(r->tok)) != TJ_NUM ||
	    tl_json_u64(r->tok, v))
		return bad(r, "expected an unsigned integer", key);
	return 0;
}

static int get_u32(struct rd *r, const char *key, u32 *v)
{
	u64 x;

	if (get_u64(r, key, &x))
		return TL_USAGE;
	if (x > U32_MAX)
		return bad(r, "value too large", key);
	*v = x;
	return 0;
}

static int get_str(struct rd *r, const char *key, char *buf, size_t len)
{
	if (tl_json_next(&r->j, r->tok, sizeof(r->tok)) != TJ_STR ||
	    strlen(r->tok) >= len)
		return bad(r, "expected a string", key);
	memset(buf, 0, len);
	memcpy(buf, r->tok, strlen(r->tok));
	return 0;
}

static int get_uuid(struct rd *r, const char *key, u8 *uuid)
{
	char hex[TL_UUID_HEX_LEN + 1];

	if (get_str(r, key, hex, sizeof(hex)) || tl_uuid_parse_hex(hex, uuid))
		return bad(r, "expected 32 hex digits", key);
	return 0;
}

static int get_class(struct rd *r, const char *key, u32 *c)
{
	char s[32];

	if (get_str(r, key, s, sizeof(s)))
		return TL_USAGE;
	for (*c = 0; *c <= TIER_CLASS_MAX; (*c)++)
		if (!strcmp(tl_class_name(*c), s))
			return 0;
	return bad(r, "unknown tier class", s);
}

/* The next key of an object, or NULL at its end (@end set). */
static const char *next_key(struct rd *r, bool *end)
{
	enum tl_jtok t = tl_json_next(&r->j, r->tok, sizeof(r->tok));

	*end = t == TJ_OBJ_END;
	return t == TJ_STR ? r->tok : NULL;
}

static int skip_value(struct rd *r, const char *key)
{
	if (tl_json_skip(&r->j, tl_json_next(&r->j, r->tok, sizeof(r->tok))))
		return bad(r, "malformed value", key);
	return 0;
}

static int expect(struct rd *r, enum tl_jtok want, const char *what)
{
	if (tl_json_next(&r->j, r->tok, sizeof(r->tok)) != want)
		return bad(r, what, NULL);
	return 0;
}

static int parse_meta(struct rd *r, struct tl_dump *d)
{
	char key[TOK_LEN];
	const char *k;
	bool end;
	int rc;

	if (expect(r, TJ_OBJ, "expected an object for metadata_device"))
		return TL_USAGE;
	d->meta_ext = true;
	while ((k = next_key(r, &end))) {
		snprintf(key, sizeof(key), "%s", k);
		if (!strcmp(key, "member_uuid"))
			rc = get_uuid(r, key, d->meta_uuid);
		else if (!strcmp(key, "dev_sectors"))
			rc = get_u64(r, key, &d->meta_dev_sectors);
		else
			rc = skip_value(r, key);
		if (rc)
			return rc;
	}
	return end ? 0 : bad(r, "expected a key", NULL);
}

static int parse_tier(struct rd *r, struct tl_dump *d)
{
	char key[TOK_LEN];
	const char *k;
	bool end;
	u32 t = d->nr_tiers;
	int rc;

	if (t >= TIER_MAX_TIERS)
		return bad(r, "more than 8 tiers", NULL);
	while ((k = next_key(r, &end))) {
		snprintf(key, sizeof(key), "%s", k);
		if (!strcmp(key, "index")) {
			u32 idx = 0;

			rc = get_u32(r, key, &idx);
			if (!rc && idx != t)
				rc = bad(r, "tiers out of order", key);
		} else if (!strcmp(key, "class")) {
			rc = get_class(r, key, &d->tier[t].tier_class);
		} else if (!strcmp(key, "member_uuid")) {
			rc = get_uuid(r, key, d->tier[t].member_uuid);
		} else if (!strcmp(key, "dev_sectors")) {
			rc = get_u64(r, key, &d->tier[t].dev_sectors);
		} else if (!strcmp(key, "data_start")) {
			rc = get_u64(r, key, &d->tier[t].data_start);
		} else if (!strcmp(key, "nr_extents")) {
			rc = get_u64(r, key, &d->tier[t].nr_extents);
		} else if (!strcmp(key, "used_extents")) {
			rc = get_u64(r, key, &d->tier[t].used_extents);
		} else if (!strcmp(key, "flags")) {
			rc = get_u64(r, key, &d->tier[t].flags);
		} else {
			rc = skip_value(r, key);
		}
		if (rc)
			return rc;
	}
	if (!end)
		return bad(r, "expected a key", NULL);
	d->nr_tiers++;
	return 0;
}

static int parse_ext(struct rd *r, struct tl_dump *d, u64 *cap)
{
	struct tl_dump_ext *e;
	char key[TOK_LEN];
	const char *k;
	bool end;
	int rc;

	if (d->nr_ext == *cap) {
		u64 ncap = *cap ? 2 * *cap : 1024;

		e = realloc(d->ext, ncap * sizeof(*e));
		if (!e)
			return tl_fail(r->err, TL_FAIL, "out of memory");
		d->ext = e;
		*cap = ncap;
	}
	e = &d->ext[d->nr_ext];
	memset(e, 0, sizeof(*e));
	while ((k = next_key(r, &end))) {
		snprintf(key, sizeof(key), "%s", k);
		if (!strcmp(key, "vext"))
			rc = get_u64(r, key, &e->vext);
		else if (!strcmp(key, "tier"))
			rc = get_u32(r, key, &e->tier);
		else if (!strcmp(key, "pext"))
			rc = get_u64(r, key, &e->pext);
		else if (!strcmp(key, "flags"))
			rc = get_u32(r, key, &e->flags);
		else if (!strcmp(key, "heat"))
			rc = get_u32(r, key, &e->heat);
		else if (!strcmp(key, "atime"))
			rc = get_u64(r, key, &e->atime);
		else
			rc = skip_value(r, key);
		if (rc)
			return rc;
	}
	if (!end)
		return bad(r, "expected a key", NULL);
	d->nr_ext++;
	return 0;
}

/* One persisted setting: its id and value (the key is for readers). */
static int parse_setting(struct rd *r, struct tl_dump *d)
{
	char key[TOK_LEN];
	const char *k;
	bool end, have_id = false;
	u32 id = 0, value = 0, old;
	int rc;

	while ((k = next_key(r, &end))) {
		snprintf(key, sizeof(key), "%s", k);
		if (!strcmp(key, "id")) {
			rc = get_u32(r, key, &id);
			have_id = true;
		} else if (!strcmp(key, "value")) {
			rc = get_u32(r, key, &value);
		} else {
			rc = skip_value(r, key);
		}
		if (rc)
			return rc;
	}
	if (!end)
		return bad(r, "expected a key", NULL);
	if (!have_id || !id || id > U16_MAX)
		return bad(r, "a setting needs an id of 1..65535", "id");
	if (!tier_settings_get(&d->settings, id, &old))
		return bad(r, "a setting given twice", "id");
	if (tier_settings_put(&d->settings, id, value))
		return bad(r, "more settings than the record holds", "settings");
	return 0;
}

static int parse_settings(struct rd *r, struct tl_dump *d)
{
	enum tl_jtok t;
	int rc;

	if (expect(r, TJ_ARR, "expected an array"))
		return TL_USAGE;
	while ((t = tl_json_next(&r->j, r->tok, sizeof(r->tok))) == TJ_OBJ) {
		rc = parse_setting(r, d);
		if (rc)
			return rc;
	}
	return t == TJ_ARR_END ? 0 : bad(r, "expected an object", NULL);
}

static int parse_array(struct rd *r, struct tl_dump *d, bool tiers)
{
	enum tl_jtok t;
	u64 cap = 0;
	int rc;

	if (expect(r, TJ_ARR, "expected an array"))
		return TL_USAGE;
	while ((t = tl_json_next(&r->j, r->tok, sizeof(r->tok))) == TJ_OBJ) {
		rc = tiers ? parse_tier(r, d) : parse_ext(r, d, &cap);
		if (rc)
			return rc;
	}
	return t == TJ_ARR_END ? 0 : bad(r, "expected an object", NULL);
}

int tl_dump_parse(const char *text, size_t len, struct tl_dump *d,
		  struct tl_err *err)
{
	static const struct {
		const char *key;
		size_t off;
	} nums[] = {
#define N(f) { #f, offsetof(struct tl_dump, f) }
		N(generation), N(commit_time), N(ctime), N(extent_shift),
		N(virt_extents), N(active_copy), N(map_blocks), N(meta_start),
		N(flags), N(compat), N(incompat), N(ro_compat),
#undef N
	};
	struct rd r = { .err = err };
	char key[TOK_LEN], fmt[32] = "";
	bool end, seen_uuid = false;
	const char *k;
	u64 version = 0;
	size_t i;
	int rc;

	memset(d, 0, sizeof(*d));
	tl_json_init(&r.j, text, len);
	if (expect(&r, TJ_OBJ, "expected a JSON object (tierctl dump --json)"))
		return TL_USAGE;
	while ((k = next_key(&r, &end))) {
		snprintf(key, sizeof(key), "%s", k);
		rc = -1;
		for (i = 0; i < ARRAY_SIZE(nums); i++)
			if (!strcmp(key, nums[i].key))
				rc = get_u64(&r, key, (u64 *)((char *)d + nums[i].off));
		if (rc == -1) {
			if (!strcmp(key, "format"))
				rc = get_str(&r, key, fmt, sizeof(fmt));
			else if (!strcmp(key, "version"))
				rc = get_u64(&r, key, &version);
			else if (!strcmp(key, "name"))
				rc = get_str(&r, key, d->name, sizeof(d->name));
			else if (!strcmp(key, "uuid") && (seen_uuid = true))
				rc = get_uuid(&r, key, d->uuid);
			else if (!strcmp(key, "metadata_device"))
				rc = parse_meta(&r, d);
			else if (!strcmp(key, "tiers"))
				rc = parse_array(&r, d, true);
			else if (!strcmp(key, "extents"))
				rc = parse_array(&r, d, false);
			else if (!strcmp(key, "settings"))
				rc = parse_settings(&r, d);
			else
				rc = skip_value(&r, key);
		}
		if (rc) {
			tl_dump_free(d);
			return rc;
		}
	}
	rc = TL_OK;
	if (!end)
		rc = bad(&r, "expected a key", NULL);
	else if (strcmp(fmt, "dm-tier-dump") || version != 1)
		rc = tl_fail(err, TL_USAGE,
			     "not a dm-tier dump of version 1 (format '%s', version %llu): give the output of 'tierctl dump --json'",
			     fmt, (unsigned long long)version);
	else if (!seen_uuid || !d->nr_tiers || !d->name[0])
		rc = tl_fail(err, TL_USAGE,
			     "the dump lacks its uuid, name or tiers");
	if (rc)
		tl_dump_free(d);
	return rc;
}

void tl_dump_free(struct tl_dump *d)
{
	free(d->ext);
	d->ext = NULL;
	d->nr_ext = 0;
}

static int cmp_vext(const void *a, const void *b)
{
	const struct tl_dump_ext *x = a, *y = b;

	return x->vext < y->vext ? -1 : x->vext > y->vext;
}

/* @lo, as create lays it out for the dump's sizes, is the dump's layout. */
static bool layout_is_dumps(const struct tier_layout *lo,
			    const struct tl_dump *d)
{
	u32 t;

	if (lo->map_blocks != d->map_blocks || lo->meta_start != d->meta_start)
		return false;
	for (t = 0; t < d->nr_tiers; t++)
		if (lo->tier[t].data_start != d->tier[t].data_start ||
		    lo->tier[t].nr_extents != d->tier[t].nr_extents)
			return false;
	return true;
}

/*
 * The layout the dump records, for a device whose layout is no longer what
 * create makes of its sizes: a tier was added or removed, or a tier grew
 * (the map room stays as created; see FORMAT.md "Resizing"). It is taken
 * as recorded when the kernel would load it: the superblock it makes must
 * pass the superblock's own checks (tier_sb_decode()), and a separate
 * metadata device must hold the metadata area.
 */
static int layout_from_dump(const struct tl_dump *d, struct tier_fresh *f,
			    struct tl_err *err)
{
	struct tier_layout *lo = &f->lo;
	struct tier_err e = { 0 };
	struct tier_sb sb;
	u8 *blk;
	u32 t;
	int r;

	lo->nr_tiers = d->nr_tiers;
	lo->extent_shift = d->extent_shift;
	lo->meta_ext = d->meta_ext;
	lo->virt_extents = d->virt_extents;
	lo->map_blocks = d->map_blocks;
	lo->meta_dev_sectors = d->meta_ext ? d->meta_dev_sectors : 0;
	lo->meta_start = d->meta_start;
	if (d->map_blocks > TIER_MAX_PEXTS || d->meta_start > TIER_MAX_PEXTS)
		return tl_fail(err, TL_USAGE,
			       "dump: its map of %llu blocks at sector %llu is out of range",
			       (unsigned long long)d->map_blocks,
			       (unsigned long long)d->meta_start);
	lo->meta_blocks = 2 + 2 * d->map_blocks;
	lo->map_start[0] = d->meta_start + 2 * TIER_BLOCK_SECTORS;
	lo->map_start[1] = lo->map_start[0] + d->map_blocks * TIER_BLOCK_SECTORS;
	for (t = 0; t < d->nr_tiers; t++) {
		lo->tier[t].dev_sectors = d->tier[t].dev_sectors;
		lo->tier[t].data_start = d->tier[t].data_start;
		lo->tier[t].nr_extents = d->tier[t].nr_extents;
		f->tier_class[t] = d->tier[t].tier_class;
	}
	if (lo->meta_ext &&
	    lo->meta_dev_sectors < lo->meta_start + lo->meta_blocks * TIER_BLOCK_SECTORS)
		return tl_fail(err, TL_USAGE,
			       "dump: its metadata device of %llu sectors cannot hold the metadata area (%llu blocks at sector %llu)",
			       (unsigned long long)lo->meta_dev_sectors,
			       (unsigned long long)lo->meta_blocks,
			       (unsigned long long)lo->meta_start);
	blk = tl_block_alloc(1);
	if (!blk)
		return tl_fail(err, TL_FAIL, "out of memory");
	tier_fresh_sb(f, &sb);
	tier_sb_encode(&sb, blk);
	r = tier_sb_decode(blk, tier_sb_slot(sb.generation), &sb, &e);
	free(blk);
	if (r)
		return tl_fail(err, TL_USAGE,
			       "dump: its layout is not one the kernel would load: %s (item %llu)",
			       tier_err_str(e.code), (unsigned long long)e.item);
	return TL_OK;
}

int tl_restore_plan(const struct tl_dump *d, bool keep_ids, const char *name,
		    struct tier_fresh *f, struct tl_err *err)
{
	struct tier_layout_req req;
	struct tier_err e = { 0 };
	unsigned long *used[TIER_MAX_TIERS] = { NULL };
	bool as_created;
	u64 i;
	u32 t;
	int rc = TL_OK;

	if (d->extent_shift < TIER_EXTENT_SHIFT_MIN ||
	    d->extent_shift > TIER_EXTENT_SHIFT_MAX || d->nr_tiers > TIER_MAX_TIERS)
		return tl_fail(err, TL_USAGE, "dump: bad extent shift or tier count");
	if (d->incompat || d->ro_compat || (d->compat & ~TIER_FEATURE_COMPAT_SUPP))
		return tl_fail(err, TL_USAGE,
			       "dump: feature bits this tierctl does not know (compat %#llx, incompat %#llx, ro_compat %#llx)",
			       (unsigned long long)d->compat,
			       (unsigned long long)d->incompat,
			       (unsigned long long)d->ro_compat);
	if (!d->generation || d->active_copy > 1)
		return tl_fail(err, TL_USAGE, "dump: bad generation or active copy");
	memset(&req, 0, sizeof(req));
	req.nr_tiers = d->nr_tiers;
	req.extent_shift = d->extent_shift;
	for (t = 0; t < d->nr_tiers; t++)
		req.dev_sectors[t] = d->tier[t].dev_sectors;
	req.meta_dev_sectors = d->meta_ext ? d->meta_dev_sectors : 0;
	/* Map room reserved at creation (create --max-size) is kept. */
	if (d->map_blocks <= TIER_MAX_PEXTS)
		req.map_extents = d->map_blocks * TIER_MAP_ENTRIES;
	if (d->virt_extents > (U64_MAX >> (d->extent_shift + TIER_SECTOR_SHIFT)))
		return tl_fail(err, TL_USAGE, "dump: virtual size too large");
	req.virt_sectors = d->virt_extents << d->extent_shift;
	memset(f, 0, sizeof(*f));
	as_created = !tier_layout_compute(&req, &f->lo, &e) &&
		     layout_is_dumps(&f->lo, d);
	if (!as_created) {
		rc = layout_from_dump(d, f, err);
		if (rc)
			return rc;
	}
	for (t = 0; t < d->nr_tiers; t++)
		f->tier_class[t] = d->tier[t].tier_class;
	name = name ? name : d->name;
	if (!tier_name_valid(name))
		return tl_fail(err, TL_USAGE, "invalid device name '%s'", name);
	memcpy(f->name, name, strlen(name));
	f->ctime = d->ctime;
	if (keep_ids) {
		memcpy(f->uuid, d->uuid, TIER_UUID_LEN);
		for (t = 0; t < d->nr_tiers; t++)
			memcpy(f->member_uuid[t], d->tier[t].member_uuid,
			       TIER_UUID_LEN);
		memcpy(f->member_uuid[TIER_META_DEV], d->meta_uuid, TIER_UUID_LEN);
	} else {
		rc = tl_uuid_random(f->uuid);
		for (t = 0; !rc && t < TIER_MAX_DEVS; t++)
			rc = tl_uuid_random(f->member_uuid[t]);
		if (rc)
			return tl_fail(err, TL_FAIL, "cannot get random numbers");
	}
	/* A recorded layout was checked as a superblock: its classes too. */
	if (as_created && tier_fresh_check(f, &e))
		return tl_fail(err, TL_USAGE, "dump: %s (item %llu)",
			       tier_err_str(e.code), (unsigned long long)e.item);

	/* Every extent inside the device, each vext and pext once. */
	if (d->nr_ext)
		qsort(d->ext, d->nr_ext, sizeof(*d->ext), cmp_vext);
	for (t = 0; t < d->nr_tiers; t++) {
		used[t] = calloc(BITS_TO_LONGS(d->tier[t].nr_extents), sizeof(long));
		if (!used[t]) {
			rc = tl_fail(err, TL_FAIL, "out of memory");
			goto out;
		}
	}
	for (i = 0; i < d->nr_ext; i++) {
		const struct tl_dump_ext *x = &d->ext[i];

		/* What tier_map_load_block() refuses (MAP_ENTRY_FLAGS). */
		if (x->flags & ~TIER_MW_EXT_FLAGS) {
			rc = tl_fail(err, TL_USAGE,
				     "dump: extent %llu has extent flags %#x, of which %#x are not defined (defined: %#x): the kernel refuses such a map; clear them in the dump",
				     (unsigned long long)x->vext, x->flags,
				     x->flags & ~TIER_MW_EXT_FLAGS,
				     (u32)TIER_MW_EXT_FLAGS);
			goto out;
		}
		if (x->vext >= d->virt_extents || x->tier >= d->nr_tiers ||
		    x->pext >= d->tier[x->tier].nr_extents ||
		    x->heat > U16_MAX || x->atime > U32_MAX ||
		    (i && d->ext[i - 1].vext == x->vext) ||
		    test_bit(x->pext, used[x->tier])) {
			rc = tl_fail(err, TL_USAGE,
				     "dump: extent %llu -> %u:%llu is outside the device, mapped twice, or has a field out of range",
				     (unsigned long long)x->vext, x->tier,
				     (unsigned long long)x->pext);
			goto out;
		}
		__set_bit(x->pext, used[x->tier]);
	}
out:
	for (t = 0; t < TIER_MAX_TIERS; t++)
		free(used[t]);
	return rc;
}

static int put(const int *fds, const char *const *paths, u32 dev, u64 sector,
	       const void *blk, struct tl_err *err)
{
	int r = tl_pwrite_full(fds[dev], blk, TIER_BLOCK_SIZE,
			       sector << TIER_SECTOR_SHIFT);

	if (r)
		return tl_fail(err, TL_FAIL,
			       "writing %s at sector %llu failed: %s; run restore again",
			       paths[dev], (unsigned long long)sector,
			       strerror(-r));
	return TL_OK;
}

int tl_restore_write(const struct tl_dump *d, const struct tier_fresh *f,
		     const int *fds, const char *const *paths,
		     struct tl_err *err)
{
	u32 meta = f->lo.meta_ext ? TIER_META_DEV : 0, c, t, dev;
	u8 *blk = tl_block_alloc(1);
	struct tier_label l;
	struct tier_sb sb, prev;
	u64 i, k = 0, b;
	int rc = TL_OK;

	if (!blk)
		return tl_fail(err, TL_FAIL, "out of memory");
	tier_fresh_sb(f, &sb);
	sb.generation = d->generation;
	sb.commit_time = d->commit_time;
	sb.active_copy = d->active_copy;
	sb.flags |= d->flags & ~(u64)TIER_SB_F_META_EXT;
	for (i = 0; i < d->nr_ext; i++)
		sb.tier[d->ext[i].tier].used_extents++;
	for (t = 0; t < f->lo.nr_tiers; t++)
		sb.tier[t].flags = d->tier[t].flags;
	/* prev (below) is a copy: both slots keep the settings. */
	sb.settings = d->settings;
	/*
	 * Both copies, every block (d->ext is sorted by vext), at the
	 * generation before the dump's: the superblock of that generation
	 * goes to the other slot too, so that both slots are valid, as after
	 * two commits.
	 */
	prev = sb;
	if (prev.generation > 1)
		prev.generation--;
	for (c = 0; c < 2 && !rc; c++) {
		for (b = 0, k = 0; b < sb.map_blocks && !rc; b++) {
			tier_map_block_init(blk, &prev, c, b);
			for (; k < d->nr_ext && d->ext[k].vext / TIER_MAP_ENTRIES == b;
			     k++) {
				const struct tl_dump_ext *x = &d->ext[k];
				struct tier_loc loc = { x->tier, x->flags,
							tier_pext(x->pext) };
				struct tier_map_entry e = {
					tier_map_word_encode(&loc), x->heat, 0,
					x->atime
				};

				tier_map_block_set(blk, x->vext % TIER_MAP_ENTRIES,
						   &e);
			}
			tier_map_block_seal(blk);
			rc = put(fds, paths, meta, tier_map_block_sector(&sb, c, b),
				 blk, err);
		}
	}
	for (c = 0; c < 2 && !rc; c++) {
		if (c == tier_sb_slot(sb.generation))
			tier_sb_encode(&sb, blk);
		else if (prev.generation != sb.generation)
			tier_sb_encode(&prev, blk);
		else
			memset(blk, 0, TIER_BLOCK_SIZE);
		rc = put(fds, paths, meta, tier_sb_sector(sb.meta_start, c), blk, err);
	}
	for (dev = 0; dev < TIER_MAX_DEVS && !rc; dev++) {
		if (dev >= f->lo.nr_tiers && !(dev == TIER_META_DEV && f->lo.meta_ext))
			continue;
		tier_fresh_label(f, dev, &l);
		tier_label_encode(&l, blk);
		rc = put(fds, paths, dev, 0, blk, err);
	}
	for (dev = 0; dev < TIER_MAX_DEVS && !rc; dev++) {
		if (dev >= f->lo.nr_tiers && !(dev == TIER_META_DEV && f->lo.meta_ext))
			continue;
		if (fsync(fds[dev]))
			rc = tl_fail(err, TL_FAIL, "flushing %s failed: %s",
				     paths[dev], strerror(errno));
	}
	free(blk);
	return rc;
}
