// SPDX-License-Identifier: GPL-2.0
/* libtier: grouping labels into devices (see tl-group.h). */
#include <stdio.h>

#include "tl-group.h"
#include "tl-status.h"

void tl_groups_init(struct tl_groups *gs)
{
	memset(gs, 0, sizeof(*gs));
}

void tl_groups_free(struct tl_groups *gs)
{
	free(gs->member);
	free(gs->group);
	tl_groups_init(gs);
}

static bool label_matches(const struct tl_group *g, const struct tier_label *l)
{
	/* The tier count is a hint: the superblock has the list. */
	return !strncmp(g->name, l->name, TIER_NAME_LEN) &&
	       g->extent_shift == l->extent_shift &&
	       g->meta_ext == !!(l->flags & TIER_LABEL_F_META_EXT);
}

static void group_start(struct tl_group *g, const struct tier_label *l)
{
	int i;

	memset(g, 0, sizeof(*g));
	memcpy(g->uuid, l->uuid, TIER_UUID_LEN);
	memcpy(g->name, l->name, TIER_NAME_LEN);
	g->name[TIER_NAME_LEN - 1] = '\0';
	g->nr_tiers = l->nr_tiers;
	g->extent_shift = l->extent_shift;
	g->meta_ext = l->flags & TIER_LABEL_F_META_EXT;
	for (i = 0; i < TIER_MAX_DEVS; i++) {
		g->slot[i] = -1;
		g->dup[i] = -1;
	}
	g->conflict = -1;
}

int tl_groups_add(struct tl_groups *gs, const struct tl_member *m)
{
	struct tl_member *nm;
	struct tl_group *g = NULL, *ng;
	u32 idx = m->label.tier_index;
	int mi;
	size_t i;

	if (idx >= TIER_MAX_DEVS)
		return -EINVAL;
	nm = realloc(gs->member, (gs->nr_members + 1) * sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	gs->member = nm;
	mi = gs->nr_members;
	gs->member[gs->nr_members++] = *m;

	for (i = 0; i < gs->nr_groups; i++) {
		if (!memcmp(gs->group[i].uuid, m->label.uuid, TIER_UUID_LEN)) {
			g = &gs->group[i];
			break;
		}
	}
	if (!g) {
		ng = realloc(gs->group, (gs->nr_groups + 1) * sizeof(*ng));
		if (!ng) {
			gs->nr_members--;
			return -ENOMEM;
		}
		gs->group = ng;
		g = &gs->group[gs->nr_groups++];
		group_start(g, &m->label);
	}
	if (!label_matches(g, &m->label)) {
		if (g->conflict < 0)
			g->conflict = mi;
		return 0;
	}
	g->count[idx]++;
	if (g->slot[idx] < 0)
		g->slot[idx] = mi;
	else if (g->dup[idx] < 0)
		g->dup[idx] = mi;
	return 0;
}

void tl_group_apply_sb(const struct tl_groups *gs, struct tl_group *g,
		       const struct tier_sb *sb)
{
	size_t mi;
	u32 i;
	int pos;

	for (i = 0; i < TIER_MAX_TIERS; i++) {
		g->slot[i] = -1;
		g->dup[i] = -1;
		g->count[i] = 0;
	}
	g->nr_stale = 0;
	g->nr_tiers = sb->nr_tiers;
	for (mi = 0; mi < gs->nr_members; mi++) {
		const struct tier_label *l = &gs->member[mi].label;

		if (memcmp(l->uuid, g->uuid, TIER_UUID_LEN) ||
		    l->tier_index == TIER_META_DEV)
			continue;
		pos = tier_label_sb_index(l, sb);
		if (pos < 0) {
			if (g->nr_stale < TIER_MAX_DEVS)
				g->stale[g->nr_stale++] = mi;
			continue;
		}
		g->count[pos]++;
		if (g->slot[pos] < 0)
			g->slot[pos] = mi;
		else if (g->dup[pos] < 0)
			g->dup[pos] = mi;
	}
}

static void dev_index_name(u32 idx, char *buf, size_t len)
{
	if (idx == TIER_META_DEV)
		snprintf(buf, len, "the metadata device");
	else
		snprintf(buf, len, "tier %u", idx);
}

int tl_group_check(const struct tl_groups *gs, const struct tl_group *g,
		   struct tl_err *err)
{
	char missing[256] = "", what[32], hex[TL_UUID_HEX_LEN + 1];
	size_t pos = 0;
	u32 i, nr_missing = 0;
	u32 idx[TIER_MAX_DEVS], n = 0;

	tl_uuid_hex(g->uuid, hex);
	if (g->conflict >= 0) {
		const struct tl_member *c = &gs->member[g->conflict];

		return tl_fail(err, TL_FAIL,
			       "device '%s' (uuid %s): the label on %s does not match the other members (name '%.63s', %u tiers, extent shift %u); run 'tierctl activate' after removing the stale device or wiping its label",
			       g->name, hex, c->path, c->label.name,
			       c->label.nr_tiers, c->label.extent_shift);
	}
	for (i = 0; i < g->nr_tiers; i++)
		idx[n++] = i;
	if (g->meta_ext)
		idx[n++] = TIER_META_DEV;
	for (i = 0; i < n; i++) {
		const struct tl_member *a, *b;

		if (g->count[idx[i]] <= 1)
			continue;
		a = &gs->member[g->slot[idx[i]]];
		b = &gs->member[g->dup[idx[i]]];
		dev_index_name(idx[i], what, sizeof(what));
		return tl_fail(err, TL_FAIL,
			       "device '%s' (uuid %s): %s was found %u times (%s, %s%s); disconnect or wipe the copies that are not members",
			       g->name, hex, what, g->count[idx[i]], a->path,
			       b->path, g->count[idx[i]] > 2 ? ", ..." : "");
	}
	for (i = 0; i < n; i++) {
		int w;

		if (g->count[idx[i]])
			continue;
		dev_index_name(idx[i], what, sizeof(what));
		w = snprintf(missing + pos, sizeof(missing) - pos, "%s%s",
			     nr_missing ? ", " : "", what);
		if (w > 0 && (size_t)w < sizeof(missing) - pos)
			pos += w;
		nr_missing++;
	}
	if (nr_missing)
		return tl_fail(err, TL_FAIL,
			       "device '%s' (uuid %s) is incomplete: missing %s (it has %u tier%s%s); connect the missing device%s and run 'tierctl activate %s' again",
			       g->name, hex, missing, g->nr_tiers,
			       g->nr_tiers == 1 ? "" : "s",
			       g->meta_ext ? " and a metadata device" : "",
			       nr_missing == 1 ? "" : "s", g->name);
	return TL_OK;
}

u32 tl_group_meta_candidates(const struct tl_groups *gs,
			     const struct tl_group *g, int *mi, u32 max)
{
	size_t i;
	u32 n = 0;

	for (i = 0; i < gs->nr_members && n < max; i++) {
		const struct tier_label *l = &gs->member[i].label;

		if (memcmp(l->uuid, g->uuid, TIER_UUID_LEN) ||
		    !label_matches(g, l))
			continue;
		if (g->meta_ext ? l->tier_index == TIER_META_DEV :
				  tier_label_meta_area(l, NULL, NULL))
			mi[n++] = (int)i;
	}
	return n;
}

int tl_meta_pick(const struct tier_sb *sb, const int *ret, u32 n)
{
	int best = -1;
	u32 i;

	for (i = 0; i < n; i++)
		if (!ret[i] &&
		    (best < 0 || sb[i].generation > sb[best].generation))
			best = (int)i;
	return best;
}

const struct tl_member *tl_group_meta_member(const struct tl_groups *gs,
					     const struct tl_group *g)
{
	int mi = g->slot[g->meta_ext ? TIER_META_DEV : 0];

	return mi < 0 ? NULL : &gs->member[mi];
}

int tl_group_table(const struct tl_groups *gs, const struct tl_group *g,
		   u64 virt_extents, char *params, size_t len, u64 *sectors,
		   struct tl_err *err)
{
	const char *devs[TIER_MAX_TIERS];
	const char *meta = NULL;
	u32 i;
	int rc;

	rc = tl_group_check(gs, g, err);
	if (rc)
		return rc;
	if (!virt_extents || virt_extents > tier_max_virt_extents(g->extent_shift))
		return tl_fail(err, TL_FAIL,
			       "device '%s': bad virtual size of %llu extents",
			       g->name, (unsigned long long)virt_extents);
	for (i = 0; i < g->nr_tiers; i++)
		devs[i] = gs->member[g->slot[i]].path;
	if (g->meta_ext)
		meta = gs->member[g->slot[TIER_META_DEV]].path;
	rc = tl_table_build(g->nr_tiers, g->extent_shift, devs, meta, params,
			    len, err);
	if (rc)
		return rc;
	*sectors = virt_extents << g->extent_shift;
	return TL_OK;
}

int tl_groups_find_name(const struct tl_groups *gs, const char *name)
{
	int found = -1;
	size_t i;

	for (i = 0; i < gs->nr_groups; i++) {
		if (strncmp(gs->group[i].name, name, TIER_NAME_LEN))
			continue;
		if (found >= 0)
			return -2;
		found = i;
	}
	return found;
}

/* ", "-joined append to @buf, cut at @len. */
static void join_append(char *buf, size_t len, const char *text)
{
	size_t pos = strnlen(buf, len);

	if (pos + 1 < len)
		snprintf(buf + pos, len - pos, "%s%s", pos ? ", " : "", text);
}

int tl_groups_name_shared(const struct tl_groups *gs, const char *name,
			  struct tl_err *err)
{
	char hex[TL_UUID_HEX_LEN + 1], list[TL_MSG_LEN / 2] = "";
	char one[TL_PATH_LEN + 64];
	size_t gi, mi, nr = 0;

	if (tl_groups_find_name(gs, name) != -2)
		return TL_OK;
	for (gi = 0; gi < gs->nr_groups; gi++) {
		const struct tl_group *g = &gs->group[gi];
		size_t pos, k = 0;

		if (strncmp(g->name, name, TIER_NAME_LEN))
			continue;
		tl_uuid_hex(g->uuid, hex);
		pos = strlen(list);
		snprintf(list + pos, sizeof(list) - pos, "%suuid %s on ",
			 nr++ ? "; " : "", hex);
		for (mi = 0; mi < gs->nr_members; mi++) {
			const struct tl_member *m = &gs->member[mi];

			if (memcmp(m->label.uuid, g->uuid, TIER_UUID_LEN))
				continue;
			snprintf(one, sizeof(one), "%s%s", k++ ? ", " : "",
				 m->path);
			pos = strlen(list);
			snprintf(list + pos, sizeof(list) - pos, "%s", one);
		}
	}
	return tl_fail(err, TL_FAIL,
		       "%zu dm-tier devices are named '%.63s' (%s): none of them is activated, since which one became /dev/mapper/%.63s would depend on the order the disks were found in; disconnect the devices of the one that is not wanted, or wipe their labels (their first 4 KiB), then activate again",
		       nr, name, list, name);
}

size_t tl_groups_name_elsewhere(const struct tl_groups *gs, const char *name,
				const unsigned int *maj,
				const unsigned int *min, size_t n, char *list,
				size_t len)
{
	char hex[TL_UUID_HEX_LEN + 1], one[TL_PATH_LEN + 80];
	size_t mi, i, found = 0;

	if (len)
		list[0] = '\0';
	for (mi = 0; mi < gs->nr_members; mi++) {
		const struct tl_member *m = &gs->member[mi];

		if (strncmp(m->label.name, name, TIER_NAME_LEN))
			continue;
		for (i = 0; i < n; i++)
			if (m->maj == maj[i] && m->min == min[i])
				break;
		if (i < n)
			continue;
		tl_uuid_hex(m->label.uuid, hex);
		if (m->label.tier_index == TIER_META_DEV)
			snprintf(one, sizeof(one), "%s (metadata device, uuid %s)",
				 m->path, hex);
		else
			snprintf(one, sizeof(one), "%s (tier %u, uuid %s)",
				 m->path, m->label.tier_index, hex);
		join_append(list, len, one);
		found++;
	}
	return found;
}
