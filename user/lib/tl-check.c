// SPDX-License-Identifier: GPL-2.0
/* libtier: offline check, dump and repair of dm-tier metadata (tl-check.h). */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "table.h"
#include "tl-check.h"
#include "tl-disk.h"
#include "tl-print.h"

#define BATCH 256 /* blocks per read */

void tl_md_init(struct tl_md *md)
{
	u32 i;

	memset(md, 0, sizeof(*md));
	for (i = 0; i < TIER_MAX_DEVS; i++)
		md->devof[i] = -1;
	for (i = 0; i < TL_CHK_MAX_DEVS; i++)
		md->dev[i].fd = -1;
	md->meta_dev = -1;
	md->sb_slot = -1;
}

void tl_md_free(struct tl_md *md)
{
	u32 i;

	for (i = 0; i < 2; i++) {
		free(md->map[i]);
		free(md->blk_ret[i]);
		free(md->blk_err[i]);
		md->map[i] = NULL;
		md->blk_ret[i] = NULL;
		md->blk_err[i] = NULL;
	}
	for (i = 0; i < md->nr_writes; i++)
		free(md->writes[i].blk);
	free(md->writes);
	free(md->problems);
	md->writes = NULL;
	md->problems = NULL;
	md->nr_writes = 0;
	md->nr_problems = 0;
}

const char *tl_md_role(const struct tl_md *md, int dev, char *buf, size_t len)
{
	int idx = dev >= 0 ? md->dev[dev].index : -1;

	if (idx == TIER_META_DEV)
		snprintf(buf, len, "metadata device");
	else if (idx >= 0)
		snprintf(buf, len, "tier %d", idx);
	else
		snprintf(buf, len, "unidentified");
	return buf;
}

static struct tl_problem *problem(struct tl_md *md, int sev, int dev,
				  const char *structure, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static struct tl_problem *problem(struct tl_md *md, int sev, int dev,
				  const char *structure, const char *fmt, ...)
{
	static struct tl_problem spare;
	struct tl_problem *p, *n;
	va_list ap;

	if (sev == TL_SEV_ERROR)
		md->nr_errors++;
	else
		md->nr_warnings++;
	n = realloc(md->problems, (md->nr_problems + 1) * sizeof(*n));
	if (n) {
		md->problems = n;
		p = &n[md->nr_problems++];
	} else {
		p = &spare; /* counted, not listed */
	}
	memset(p, 0, sizeof(*p));
	p->sev = sev;
	p->dev = dev;
	p->structure = structure;
	p->slot = -1;
	p->block = -1;
	p->sector = -1;
	p->vext = -1;
	va_start(ap, fmt);
	vsnprintf(p->what, sizeof(p->what), fmt, ap);
	va_end(ap);
	return p;
}

static void set_fix(struct tl_problem *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_fix(struct tl_problem *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->fix, sizeof(p->fix), fmt, ap);
	va_end(ap);
}

static const char *err_text(const struct tier_err *e, int ret, char *buf,
			    size_t len)
{
	if (e->code == TIER_E_NONE && ret < 0)
		snprintf(buf, len, "read error: %s", strerror(-ret));
	else
		snprintf(buf, len, "%s (item %llu, value %llu)",
			 tier_err_str(e->code), (unsigned long long)e->item,
			 (unsigned long long)e->value);
	return buf;
}

static bool all_zero(const u8 *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static int read_blocks(int fd, void *buf, u64 nblocks, u64 sector)
{
	return tl_pread_full(fd, buf, nblocks * TIER_BLOCK_SIZE,
			     sector << TIER_SECTOR_SHIFT);
}

/* ---- labels and the group ---------------------------------------------- */

static void load_labels(struct tl_md *md)
{
	u32 i, j, best = 0, votes, best_votes = 0;
	int ref = -1;
	void *blk = tl_block_alloc(1);
	char why[160];

	for (i = 0; i < md->nr_devs; i++) {
		struct tl_chk_dev *d = &md->dev[i];

		d->index = -1;
		memset(&d->label_err, 0, sizeof(d->label_err));
		d->label_ret = blk ? read_blocks(d->fd, blk, 1, 0) : -ENOMEM;
		if (!d->label_ret)
			d->label_ret = tier_label_decode(blk, &d->label,
							 &d->label_err);
	}
	free(blk);
	/* The device: the UUID most valid labels carry. */
	for (i = 0; i < md->nr_devs; i++) {
		if (md->dev[i].label_ret)
			continue;
		votes = 0;
		for (j = 0; j < md->nr_devs; j++)
			votes += !md->dev[j].label_ret &&
				 !memcmp(md->dev[j].label.uuid,
					 md->dev[i].label.uuid, TIER_UUID_LEN);
		if (votes > best_votes) {
			best_votes = votes;
			best = i;
		}
	}
	if (best_votes) {
		md->have_group = true;
		memcpy(md->uuid, md->dev[best].label.uuid, TIER_UUID_LEN);
		/* Its defining label: the metadata holder's, else the first. */
		for (i = 0; i < md->nr_devs; i++) {
			const struct tier_label *l = &md->dev[i].label;

			if (md->dev[i].label_ret ||
			    memcmp(l->uuid, md->uuid, TIER_UUID_LEN))
				continue;
			if (ref < 0 || (l->flags & TIER_LABEL_F_META))
				ref = i;
		}
		md->nr_tiers = md->dev[ref].label.nr_tiers;
		md->extent_shift = md->dev[ref].label.extent_shift;
		md->meta_ext = md->dev[ref].label.flags & TIER_LABEL_F_META_EXT;
		memcpy(md->name, md->dev[ref].label.name, TIER_NAME_LEN);
	}

	for (i = 0; i < md->nr_devs; i++) {
		struct tl_chk_dev *d = &md->dev[i];
		const struct tier_label *l = &d->label;
		struct tl_problem *p;
		u32 idx;

		if (d->label_ret) {
			p = problem(md, TL_SEV_ERROR, i, "label", "%s",
				    d->label_ret == 1 || d->label_ret == -ENODATA ?
					    "no dm-tier label (not a dm-tier device, or the label is destroyed)" :
					    err_text(&d->label_err, d->label_ret,
						     why, sizeof(why)));
			p->sector = 0;
			continue;
		}
		if (memcmp(l->uuid, md->uuid, TIER_UUID_LEN)) {
			char hex[TL_UUID_HEX_LEN + 1];

			tl_uuid_hex(l->uuid, hex);
			problem(md, TL_SEV_ERROR, i, "label",
				"belongs to another dm-tier device ('%s', uuid %s); give the members of one device only",
				l->name, hex);
			continue;
		}
		idx = l->tier_index;
		/*
		 * The tier index and count are hints (the superblock has the
		 * list, apply_sb_list()); the index only places the device
		 * until the superblock is read.
		 */
		if (l->extent_shift != md->extent_shift ||
		    !!(l->flags & TIER_LABEL_F_META_EXT) != md->meta_ext ||
		    (idx != TIER_META_DEV && idx >= TIER_MAX_TIERS) ||
		    (idx == TIER_META_DEV && !md->meta_ext)) {
			p = problem(md, TL_SEV_ERROR, i, "label",
				    "disagrees with the other labels (tier %u of %u, extent shift %u)",
				    idx, l->nr_tiers, l->extent_shift);
			p->sector = 0;
			continue;
		}
		if (md->devof[idx] >= 0) {
			/* The superblock decides (apply_sb_list()). */
			d->dup = true;
			continue;
		}
		md->devof[idx] = i;
		d->index = idx;
		if (strncmp(l->name, md->name, TIER_NAME_LEN)) {
			p = problem(md, TL_SEV_ERROR, i, "label",
				    "names the device '%s', the others '%s' (tierctl activate refuses conflicting labels)",
				    l->name, md->name);
			p->sector = 0;
		}
	}
}

/* The metadata holder; an unidentified device may be it (damaged label). */
static void find_meta_holder(struct tl_md *md, sector_t *meta_start)
{
	u32 midx = md->meta_ext ? TIER_META_DEV : 0, i, s;
	void *blk = tl_block_alloc(1);
	sector_t best_start = 0;
	u64 best_gen = 0;
	struct tier_sb sb;
	int best = -1;

	*meta_start = TIER_META_START;
	/*
	 * On the tiers, a crash in a tier 0 replacement may leave two labels
	 * with a metadata area: the valid superblock of the highest
	 * generation is the device's, as for activate (tl_meta_pick()).
	 */
	for (i = 0; blk && !md->meta_ext && i < md->nr_devs; i++) {
		const struct tier_label *l = &md->dev[i].label;
		struct tier_sb slots[2];
		sector_t start;
		int ret[2], pick;

		if (md->dev[i].label_ret ||
		    (md->dev[i].index < 0 && !md->dev[i].dup) ||
		    memcmp(l->uuid, md->uuid, TIER_UUID_LEN) ||
		    !tier_label_meta_area(l, &start, NULL))
			continue;
		for (s = 0; s < 2; s++) {
			ret[s] = read_blocks(md->dev[i].fd, blk, 1,
					     tier_sb_sector(start, s));
			if (!ret[s])
				ret[s] = tier_sb_decode(blk, s, &slots[s], NULL);
		}
		pick = tier_sb_pick(slots, ret, NULL);
		if (pick < 0 || (best >= 0 && slots[pick].generation <= best_gen))
			continue;
		best = (int)i;
		best_gen = slots[pick].generation;
		best_start = start;
	}
	if (best >= 0) {
		md->meta_dev = best;
		*meta_start = best_start;
		free(blk);
		return;
	}
	if (md->devof[midx] >= 0) {
		md->meta_dev = md->devof[midx];
		*meta_start = md->dev[md->meta_dev].label.meta_start;
		free(blk);
		return;
	}
	for (i = 0; blk && i < md->nr_devs && md->meta_dev < 0; i++) {
		if (md->dev[i].index >= 0 || !md->dev[i].label_ret ||
		    md->dev[i].label_ret == -EIO)
			continue;
		for (s = 0; s < 2; s++) {
			if (read_blocks(md->dev[i].fd, blk, 1,
					tier_sb_sector(TIER_META_START, s)) ||
			    tier_sb_decode(blk, s, &sb, NULL) ||
			    memcmp(sb.uuid, md->uuid, TIER_UUID_LEN))
				continue;
			md->meta_dev = i;
			md->devof[midx] = i;
			md->dev[i].index = midx;
			break;
		}
	}
	free(blk);
}

/*
 * An unidentified device (damaged label) takes the missing tier when it is
 * the only such device and one tier is missing. With more of either,
 * which is which cannot be told from the disks: placing them in the order
 * given would have repair write each a label of a tier it may not be (and
 * the kernel then use it as that tier), so none is placed.
 */
static void assign_rest(struct tl_md *md)
{
	u32 i, t, nr_unplaced = 0, nr_missing = 0;
	int dev = -1, tier = -1;

	for (i = 0; i < md->nr_devs; i++) {
		if (md->dev[i].index >= 0 || !md->dev[i].label_ret)
			continue;
		nr_unplaced++;
		dev = i;
	}
	for (t = 0; t < md->nr_tiers; t++) {
		if (md->devof[t] >= 0)
			continue;
		nr_missing++;
		tier = t;
	}
	if (!nr_unplaced || !nr_missing)
		return;
	if (nr_unplaced == 1 && nr_missing == 1) {
		md->devof[tier] = dev;
		md->dev[dev].index = tier;
		return;
	}
	problem(md, TL_SEV_ERROR, -1, "device",
		"%u devices without a valid label for %u tiers without a member: which is which cannot be told, so none is placed and repair writes no label on them (a device without a label takes the missing tier only when it is the only one and one tier is missing; leave out any that is not a member)",
		nr_unplaced, nr_missing);
}

/* ---- superblock -------------------------------------------------------- */

static const struct tier_label *ref_label(const struct tl_md *md)
{
	u32 i;

	for (i = 0; i < TIER_MAX_DEVS; i++) {
		int d = md->devof[i];

		if (d >= 0 && !md->dev[d].label_ret &&
		    !memcmp(md->dev[d].label.uuid, md->uuid, TIER_UUID_LEN))
			return &md->dev[d].label;
	}
	return NULL;
}

/* A superblock from the labels alone (generation and copy set later). */
static bool rebuild_sb(struct tl_md *md, struct tier_sb *sb)
{
	const struct tier_label *ml, *ref = ref_label(md);
	struct tier_sb back;
	void *blk;
	bool ok;
	u32 i;

	if (md->meta_dev < 0 || md->dev[md->meta_dev].label_ret || !ref)
		return false;
	ml = &md->dev[md->meta_dev].label;
	/* Two slots and two copies of at least one block (or it underflows). */
	if (ml->meta_blocks < 4)
		return false;
	memset(sb, 0, sizeof(*sb));
	memcpy(sb->uuid, md->uuid, TIER_UUID_LEN);
	sb->generation = 1;
	sb->commit_time = time(NULL);
	sb->ctime = ref->ctime;
	sb->virt_extents = ref->virt_extents;
	sb->extent_shift = md->extent_shift;
	sb->nr_tiers = md->nr_tiers;
	sb->meta_start = ml->meta_start;
	sb->map_blocks = (ml->meta_blocks - 2) / 2;
	sb->map_start[0] = ml->meta_start + 2 * TIER_BLOCK_SECTORS;
	sb->map_start[1] = sb->map_start[0] + sb->map_blocks * TIER_BLOCK_SECTORS;
	if (md->meta_ext) {
		sb->flags = TIER_SB_F_META_EXT;
		memcpy(sb->meta_uuid, ml->member_uuid, TIER_UUID_LEN);
	}
	for (i = 0; i < md->nr_tiers; i++) {
		int d = md->devof[i];
		const struct tier_label *l;

		if (d < 0 || md->dev[d].label_ret)
			return false;
		l = &md->dev[d].label;
		sb->tier[i].nr_extents = l->nr_extents;
		sb->tier[i].data_start = l->data_start;
		sb->tier[i].dev_sectors = l->dev_sectors;
		sb->tier[i].tier_class = l->tier_class;
		memcpy(sb->tier[i].member_uuid, l->member_uuid, TIER_UUID_LEN);
	}
	/*
	 * Each label passed its own checks, not the checks across them (the
	 * virtual size within the map and the capacity, the map before tier
	 * 0's data): the kernel's superblock check judges the whole, before
	 * anything is sized from it.
	 */
	blk = tl_block_alloc(1);
	if (!blk)
		return false;
	tier_sb_encode(sb, blk);
	ok = !tier_sb_decode(blk, tier_sb_slot(sb->generation), &back, NULL);
	free(blk);
	return ok;
}

/*
 * A superblock slot that cannot be read: the kernel refuses the device
 * (tier_md_load_sb() stops at the first read error), and the slot may hold
 * the newest commit, which the other slot's generation + 1, what repair
 * writes there, would roll back.
 */
#define SLOT_UNREADABLE \
	"the kernel refuses a device with an unreadable superblock slot, and whether it held the newer commit cannot be known; copy the device (ddrescue) and check the copy, or 'tierctl repair --force' writes over the slot (losing that commit if it was one)"

static void load_sb(struct tl_md *md, sector_t meta_start)
{
	void *blk = tl_block_alloc(1);
	struct tier_err perr = { 0 };
	struct tl_problem *p;
	char why[160];
	int pick, s;

	if (!blk || md->meta_dev < 0)
		goto out;
	for (s = 0; s < 2; s++) {
		memset(&md->slot_err[s], 0, sizeof(md->slot_err[s]));
		md->slot_ret[s] = read_blocks(md->dev[md->meta_dev].fd, blk, 1,
					      tier_sb_sector(meta_start, s));
		md->slot_zero[s] = false;
		md->slot_unreadable[s] = md->slot_ret[s] != 0;
		if (!md->slot_ret[s]) {
			md->slot_zero[s] = all_zero(blk, TIER_BLOCK_SIZE);
			md->slot_ret[s] = tier_sb_decode(blk, s, &md->slot_sb[s],
							 &md->slot_err[s]);
		}
		md->slot_settings_ret[s] = 0;
		if (!md->slot_ret[s]) {
			struct tier_settings st;

			md->slot_settings_ret[s] = tier_settings_decode(blk, &st);
		}
	}
	pick = tier_sb_pick(md->slot_sb, md->slot_ret, &perr);
	if (pick == -EUCLEAN && perr.code == TIER_E_SB_UUID_MISMATCH) {
		/* Both valid, different devices: the labels' one counts. */
		pick = memcmp(md->slot_sb[0].uuid, md->uuid, TIER_UUID_LEN) ? 1 : 0;
		p = problem(md, TL_SEV_ERROR, md->meta_dev, "superblock",
			    "slot %d belongs to another device (the slots disagree on the UUID; the kernel refuses them)",
			    1 - pick);
		p->slot = 1 - pick;
		p->sector = tier_sb_sector(meta_start, 1 - pick);
		md->slot_ret[1 - pick] = -EUCLEAN;
		md->slot_err[1 - pick].code = TIER_E_SB_UUID_MISMATCH;
		md->slot_zero[1 - pick] = false;
	}
	if (pick >= 0) {
		md->sb_slot = pick;
		md->sb = md->slot_sb[pick];
		s = 1 - pick;
		if (md->slot_unreadable[s]) {
			/* tier_md_load_sb() stops at the first read error. */
			p = problem(md, TL_SEV_ERROR, md->meta_dev, "superblock",
				    "slot %d: %s; %s", s,
				    err_text(&md->slot_err[s], md->slot_ret[s],
					     why, sizeof(why)),
				    SLOT_UNREADABLE);
			p->slot = s;
			p->sector = tier_sb_sector(meta_start, s);
		} else if (md->slot_ret[s] &&
			   md->slot_err[s].code != TIER_E_SB_UUID_MISMATCH &&
			   !(md->slot_zero[s] && md->sb.generation == 1)) {
			p = problem(md, TL_SEV_WARN, md->meta_dev, "superblock",
				    "slot %d: %s; the kernel passes over it and uses slot %d (generation %llu)",
				    s, err_text(&md->slot_err[s], md->slot_ret[s],
						why, sizeof(why)),
				    pick, (unsigned long long)md->sb.generation);
			p->slot = s;
			p->sector = tier_sb_sector(meta_start, s);
		}
		if (md->slot_settings_ret[pick]) {
			p = problem(md, TL_SEV_WARN, md->meta_dev, "superblock",
				    "slot %d: the persisted settings record is %s: the kernel ignores it (every setting at its table line or default value); 'tierctl policy NAME --reset' on the active device clears it",
				    pick, md->slot_settings_ret[pick] == -EPROTO ?
				    "of an unknown version" : "malformed");
			p->slot = pick;
			p->sector = tier_sb_sector(meta_start, pick);
		}
		if (tier_sb_needs_ro(&md->sb)) {
			problem(md, TL_SEV_ERROR, md->meta_dev, "superblock",
				"slot %d has read-only-compatible features this version does not know (ro_compat %#llx): the kernel loads it read-only only (dmsetup create --readonly, tierctl activate --readonly), repair leaves it alone",
				pick, (unsigned long long)md->sb.ro_compat);
			md->sb_fatal = true;
		}
		goto out;
	}
	for (s = 0; s < 2; s++) {
		if (!md->slot_ret[s])
			continue;
		p = problem(md, TL_SEV_ERROR, md->meta_dev, "superblock",
			    "slot %d: %s%s%s", s,
			    err_text(&md->slot_err[s], md->slot_ret[s], why,
				     sizeof(why)),
			    md->slot_unreadable[s] ? "; " : "",
			    md->slot_unreadable[s] ? SLOT_UNREADABLE : "");
		p->slot = s;
		p->sector = tier_sb_sector(meta_start, s);
	}
	if (pick == -EPROTO || pick == -EOPNOTSUPP) {
		problem(md, TL_SEV_ERROR, md->meta_dev, "superblock",
			"a slot of a newer format version or with unknown incompat features: the kernel refuses the device; use a newer tierctl (repair leaves it alone)");
		md->sb_fatal = true;
		goto out;
	}
	if (!rebuild_sb(md, &md->sb)) {
		problem(md, TL_SEV_ERROR, md->meta_dev, "superblock",
			"no valid slot, and the labels needed to rebuild it are missing or damaged");
		md->sb_fatal = true;
		goto out;
	}
	md->sb_rebuilt = true;
out:
	free(blk);
}

/* ---- labels against the superblock ------------------------------------- */

/* Device @i is member @idx, which device devof[idx] is already. */
static void dup_problem(struct tl_md *md, u32 i, u32 idx)
{
	problem(md, TL_SEV_ERROR, i, "label",
		"%s %u found twice: %s and %s; give each member once",
		idx == TIER_META_DEV ? "device" : "tier", idx,
		md->devof[idx] >= 0 ? md->dev[md->devof[idx]].path : "?",
		md->dev[i].path);
}

/*
 * The superblock is authoritative for the tier list: members with a valid
 * label go to the position the superblock lists their member UUID at; a
 * label of this device it does not list is stale (an interrupted add-tier,
 * remove-tier or replace-tier), reported and left out; a device whose
 * label hint another took (load_labels()) is placed here too.
 */
static void apply_sb_list(struct tl_md *md)
{
	bool moved[TL_CHK_MAX_DEVS];
	u32 i;
	int pos;

	md->nr_tiers = md->sb.nr_tiers;
	/* Unplace every moved label first: its new place may be another's. */
	for (i = 0; i < md->nr_devs; i++) {
		struct tl_chk_dev *d = &md->dev[i];
		const struct tier_label *l = &d->label;

		moved[i] = d->dup;
		if (d->label_ret || d->index < 0 || d->index == TIER_META_DEV ||
		    memcmp(l->uuid, md->uuid, TIER_UUID_LEN))
			continue;
		if (tier_label_sb_index(l, &md->sb) == d->index)
			continue;
		if (md->devof[d->index] == (int)i)
			md->devof[d->index] = -1;
		d->index = -1;
		moved[i] = true;
	}
	for (i = 0; i < md->nr_devs; i++) {
		struct tl_chk_dev *d = &md->dev[i];
		const struct tier_label *l = &d->label;

		if (!moved[i])
			continue;
		pos = tier_label_sb_index(l, &md->sb);
		if (pos < 0) {
			problem(md, TL_SEV_WARN, i, "label",
				"carries a label of tier %u of %s that the superblock does not list (an interrupted add-tier, remove-tier or replace-tier?): not a member; 'tierctl remove-tier %s %u', or the interrupted replace-tier run again, wipes it",
				l->tier_index, md->name, md->name,
				md->sb.nr_tiers);
			continue;
		}
		if (md->devof[pos] < 0) {
			md->devof[pos] = i;
			d->index = pos;
			continue;
		}
		dup_problem(md, i, pos);
	}
}

/* Without a superblock to place them, devices whose hint was taken. */
static void report_dups(struct tl_md *md)
{
	u32 i;

	for (i = 0; i < md->nr_devs; i++)
		if (md->dev[i].dup && md->dev[i].index < 0)
			dup_problem(md, i, md->dev[i].label.tier_index);
}

static void check_labels_sb(struct tl_md *md)
{
	struct tier_err e = { 0 };
	struct tl_problem *p;
	u32 idx;

	for (idx = 0; idx < TIER_MAX_DEVS; idx++) {
		int d = md->devof[idx];
		const struct tier_label *l;
		u64 need;

		if (idx >= md->nr_tiers && !(idx == TIER_META_DEV && md->meta_ext))
			continue;
		if (d < 0) {
			problem(md, TL_SEV_ERROR, -1, "device",
				"%s %u: no member device found with its label; give all member devices (tierctl check DEV...), the damaged one included",
				idx == TIER_META_DEV ? "metadata device" : "tier",
				idx);
			continue;
		}
		/*
		 * The kernel compares a metadata device with its label's
		 * dev_sectors (tier_md_load_meta_label()), not with the end
		 * of the metadata area: it must hold both.
		 */
		need = idx == TIER_META_DEV ?
			       md->sb.meta_start +
				       (2 + 2 * md->sb.map_blocks) * TIER_BLOCK_SECTORS :
			       md->sb.tier[idx].dev_sectors;
		if (idx == TIER_META_DEV && !md->dev[d].label_ret &&
		    md->dev[d].label.dev_sectors > need)
			need = md->dev[d].label.dev_sectors;
		if (md->dev[d].sectors < need) {
			problem(md, TL_SEV_ERROR, d, "device",
				"%llu sectors, but the device was created with %llu (it shrank, or it is the wrong device)",
				(unsigned long long)md->dev[d].sectors,
				(unsigned long long)need);
			continue;
		}
		if (md->dev[d].label_ret)
			continue; /* reported with load_labels() */
		l = &md->dev[d].label;
		if (tier_label_check_sb(l, &md->sb, idx, &e)) {
			p = problem(md, TL_SEV_ERROR, d, "label",
				    "does not match the superblock: %s (value %llu)",
				    tier_err_str(e.code),
				    (unsigned long long)e.value);
			p->sector = 0;
			continue;
		}
		if (idx != TIER_META_DEV &&
		    (l->dev_sectors < md->sb.tier[idx].dev_sectors ||
		     l->nr_extents < md->sb.tier[idx].nr_extents))
			problem(md, TL_SEV_WARN, d, "label",
				"gives %llu extents, the superblock %llu: a resize cut before it rewrote the label (a hint; 'tierctl resize %s' rewrites it)",
				(unsigned long long)l->nr_extents,
				(unsigned long long)md->sb.tier[idx].nr_extents,
				md->name);
		else if (idx != TIER_META_DEV &&
			 (l->dev_sectors != md->sb.tier[idx].dev_sectors ||
			  l->tier_class != md->sb.tier[idx].tier_class))
			problem(md, TL_SEV_WARN, d, "label",
				"size or class differs from the superblock's tier record (not checked by the kernel)");
	}
}

/* ---- map ----------------------------------------------------------------- */

static u8 *map_blk(const struct tl_md *md, u32 copy, u64 i)
{
	return md->map[copy] + i * TIER_BLOCK_SIZE;
}

static int read_map(struct tl_md *md, struct tl_err *err)
{
	u64 mb = md->sb.map_blocks, i, n, k;
	u32 c;
	int r;

	for (c = 0; c < 2; c++) {
		md->map[c] = tl_block_alloc(mb);
		md->blk_ret[c] = calloc(mb, sizeof(int));
		md->blk_err[c] = calloc(mb, sizeof(struct tier_err));
		if (!md->map[c] || !md->blk_ret[c] || !md->blk_err[c])
			return tl_fail(err, TL_FAIL,
				       "out of memory for the map (%llu blocks)",
				       (unsigned long long)mb);
		for (i = 0; i < mb; i += n) {
			n = mb - i < BATCH ? mb - i : BATCH;
			r = read_blocks(md->dev[md->meta_dev].fd, map_blk(md, c, i),
					n, tier_map_block_sector(&md->sb, c, i));
			if (!r)
				continue;
			/*
			 * One bad sector must not make the whole batch
			 * unreadable: repair rebuilds an unreadable block from
			 * the older copy, or unmaps it when that fails too.
			 */
			for (k = 0; k < n; k++)
				md->blk_ret[c][i + k] =
					read_blocks(md->dev[md->meta_dev].fd,
						    map_blk(md, c, i + k), 1,
						    tier_map_block_sector(&md->sb,
									  c, i + k));
		}
	}
	return TL_OK;
}

/*
 * Whether both map copies lie on the metadata holder as it is now: a
 * crafted or foreign superblock (or label) may give any map size, which
 * read_map() would allocate before the labels are compared with it.
 * Reports the error when not.
 */
static bool map_on_device(struct tl_md *md)
{
	u64 len = md->sb.map_blocks * TIER_BLOCK_SECTORS;
	u64 sectors = md->dev[md->meta_dev].sectors;
	struct tl_problem *p;

	if (md->sb.map_blocks <= sectors / TIER_BLOCK_SECTORS &&
	    md->sb.map_start[0] <= sectors - len &&
	    md->sb.map_start[1] <= sectors - len)
		return true;
	p = problem(md, TL_SEV_ERROR, md->meta_dev, "superblock",
		    "%s gives map copies of %llu blocks at sectors %llu and %llu, past the end of the device (%llu sectors): the kernel refuses it (it is not this device's metadata, or the device shrank); repair leaves it alone",
		    md->sb_rebuilt ? "the label" : "the superblock",
		    (unsigned long long)md->sb.map_blocks,
		    (unsigned long long)md->sb.map_start[0],
		    (unsigned long long)md->sb.map_start[1],
		    (unsigned long long)sectors);
	if (!md->sb_rebuilt) {
		p->slot = md->sb_slot;
		p->sector = tier_sb_sector(md->sb.meta_start, md->sb_slot);
	}
	return false;
}

static void check_blocks(struct tl_md *md)
{
	u64 i;
	u32 c;

	for (c = 0; c < 2; c++) {
		for (i = 0; i < md->sb.map_blocks; i++) {
			if (md->blk_ret[c][i] < 0 &&
			    md->blk_err[c][i].code == TIER_E_NONE)
				continue; /* a read error stays */
			memset(&md->blk_err[c][i], 0, sizeof(struct tier_err));
			md->blk_ret[c][i] =
				tier_map_block_check(map_blk(md, c, i), &md->sb,
						     c, i, &md->blk_err[c][i]);
		}
	}
}

/* Generation of a block whose header is readable, else 0. */
static u64 blk_gen(const u8 *blk)
{
	const struct tier_map_block_disk *d = (const void *)blk;

	return le64_to_cpu(d->generation);
}

/* The rebuilt superblock's active copy and generation, from the map. */
static void rebuild_pick_copy(struct tl_md *md)
{
	u64 valid[2] = { 0, 0 }, maxgen[2] = { 0, 0 }, i;
	u32 c, best;

	md->sb.generation = U64_MAX - 1;
	md->nr_blocks = tier_map_blocks_for(md->sb.virt_extents);
	for (c = 0; c < 2; c++) {
		md->sb.active_copy = c;
		for (i = 0; i < md->nr_blocks; i++) {
			if (tier_map_block_check(map_blk(md, c, i), &md->sb, c,
						 i, NULL))
				continue;
			valid[c]++;
			if (blk_gen(map_blk(md, c, i)) > maxgen[c])
				maxgen[c] = blk_gen(map_blk(md, c, i));
		}
	}
	if (valid[0] != valid[1])
		best = valid[1] > valid[0];
	else
		best = maxgen[1] > maxgen[0];
	md->sb.active_copy = best;
	md->sb.generation =
		(maxgen[0] > maxgen[1] ? maxgen[0] : maxgen[1]) + 1;
}

static void report_blocks(struct tl_md *md)
{
	u32 a = md->sb.active_copy, c;
	struct tl_problem *p;
	char why[160];
	u64 i;

	for (c = 0; c < 2; c++) {
		for (i = 0; i < md->sb.map_blocks; i++) {
			int r = md->blk_ret[c][i];
			bool used = c == a && i < md->nr_blocks;

			if (!r)
				continue;
			p = problem(md, used ? TL_SEV_ERROR : TL_SEV_WARN,
				    md->meta_dev, "map", "map copy %u block %llu: %s%s",
				    c, (unsigned long long)i,
				    err_text(&md->blk_err[c][i], r, why,
					     sizeof(why)),
				    c != a ? "; the kernel does not read the inactive copy and rewrites it at its first commit" :
				    !used ? "; beyond the virtual size: the kernel does not read it" :
					    "");
			p->slot = c;
			p->block = i;
			p->sector = tier_map_block_sector(&md->sb, c, i);
			if (md->blk_err[c][i].code >= TIER_E_MAP_ENTRY_RESERVED &&
			    md->blk_err[c][i].code <= TIER_E_MAP_ENTRY_BEYOND)
				p->vext = md->blk_err[c][i].item;
		}
	}
}

/* ---- allocator and extents --------------------------------------------- */

struct owner {
	u32 tier;
	u64 pext, vext;
};

/* Used counts and double use over the active copy's valid blocks; with
 * @report, each finding is a problem. Returns the doubled extents' owners
 * (malloc'ed, *@n of them) when @owners. */
static int scan_alloc(struct tl_md *md, bool report, struct owner **owners,
		      u64 *n)
{
	unsigned long *seen[TIER_MAX_TIERS] = { NULL }, *dup[TIER_MAX_TIERS] = { NULL };
	u32 a = md->sb.active_copy, t, k;
	struct owner *own = NULL;
	u64 i, nown = 0, ndup = 0;
	int ret = 0;

	for (t = 0; t < md->sb.nr_tiers; t++) {
		u64 words = BITS_TO_LONGS(md->sb.tier[t].nr_extents);

		seen[t] = calloc(words, sizeof(long));
		dup[t] = calloc(words, sizeof(long));
		if (!seen[t] || !dup[t]) {
			ret = -ENOMEM;
			goto out;
		}
		md->used[t] = 0;
	}
	for (i = 0; i < md->nr_blocks; i++) {
		if (md->blk_ret[a][i])
			continue;
		for (k = 0; k < TIER_MAP_ENTRIES; k++) {
			struct tier_map_entry e;
			struct tier_loc loc;

			tier_map_block_get(map_blk(md, a, i), k, &e);
			if (!tier_map_word_decode(e.word, &loc))
				continue;
			if (test_bit(loc.pext.p, seen[loc.tier])) {
				if (!test_bit(loc.pext.p, dup[loc.tier]))
					ndup++;
				__set_bit(loc.pext.p, dup[loc.tier]);
				continue;
			}
			__set_bit(loc.pext.p, seen[loc.tier]);
			md->used[loc.tier]++;
		}
	}
	md->nr_doubles = ndup;
	if (!ndup)
		goto out;
	for (i = 0; i < md->nr_blocks; i++) {
		if (md->blk_ret[a][i])
			continue;
		for (k = 0; k < TIER_MAP_ENTRIES; k++) {
			struct tier_map_entry e;
			struct tier_loc loc;
			struct owner *no;

			tier_map_block_get(map_blk(md, a, i), k, &e);
			if (!tier_map_word_decode(e.word, &loc) ||
			    !test_bit(loc.pext.p, dup[loc.tier]))
				continue;
			no = realloc(own, (nown + 1) * sizeof(*own));
			if (!no) {
				ret = -ENOMEM;
				goto out;
			}
			own = no;
			own[nown].tier = loc.tier;
			own[nown].pext = loc.pext.p;
			own[nown].vext = i * TIER_MAP_ENTRIES + k;
			nown++;
		}
	}
	if (report) {
		for (i = 0; i < nown; i++) {
			u64 j;
			struct tl_problem *p;

			for (j = 0; j < i; j++)
				if (own[j].tier == own[i].tier &&
				    own[j].pext == own[i].pext)
					break;
			if (j == i)
				continue; /* the first owner */
			p = problem(md, TL_SEV_ERROR, md->meta_dev, "allocator",
				    "tier %u physical extent %llu is mapped twice: by virtual extents %llu and %llu (the kernel refuses the map)",
				    own[i].tier, (unsigned long long)own[i].pext,
				    (unsigned long long)own[j].vext,
				    (unsigned long long)own[i].vext);
			p->slot = a;
			p->vext = own[i].vext;
			p->block = own[i].vext / TIER_MAP_ENTRIES;
			p->sector = tier_map_block_sector(&md->sb, a, p->block);
		}
	}
out:
	for (t = 0; t < TIER_MAX_TIERS; t++) {
		free(seen[t]);
		free(dup[t]);
	}
	if (owners && !ret) {
		*owners = own;
		*n = nown;
	} else {
		free(own);
	}
	return ret;
}

static void check_used(struct tl_md *md)
{
	struct tl_problem *p;
	u64 i;
	u32 t;

	/* With blocks of the active copy unreadable the counts mean
	 * nothing: those blocks are the error. */
	for (i = 0; i < md->nr_blocks; i++)
		if (md->blk_ret[md->sb.active_copy][i])
			return;

	for (t = 0; t < md->sb.nr_tiers; t++) {
		if (md->sb_rebuilt || md->used[t] == md->sb.tier[t].used_extents)
			continue;
		p = problem(md, TL_SEV_ERROR, md->meta_dev, "superblock",
			    "slot %d: tier %u used_extents is %llu, the map maps %llu of its extents (the kernel refuses the device)",
			    md->sb_slot, t,
			    (unsigned long long)md->sb.tier[t].used_extents,
			    (unsigned long long)md->used[t]);
		p->slot = md->sb_slot;
		p->sector = tier_sb_sector(md->sb.meta_start, md->sb_slot);
	}
}

static void check_heat(struct tl_md *md)
{
	u32 a = md->sb.active_copy, k;
	u64 i, age = md->sb.commit_time > md->sb.ctime ?
			     md->sb.commit_time - md->sb.ctime : 0;
	struct tl_problem *p;

	for (i = 0; i < md->nr_blocks; i++) {
		u32 eflags = 0, undef = 0, future = 0, bits = 0;
		s64 first = -1;

		if (md->blk_ret[a][i])
			continue;
		for (k = 0; k < TIER_MAP_ENTRIES; k++) {
			struct tier_map_entry e;
			struct tier_loc loc;

			tier_map_block_get(map_blk(md, a, i), k, &e);
			if (!tier_map_word_decode(e.word, &loc))
				continue;
			eflags += e.flags != 0;
			future += e.atime > age + 86400;
			/* What tier_map_load_block() refuses. */
			if (!(loc.flags & ~TIER_MW_EXT_FLAGS))
				continue;
			if (first < 0)
				first = i * TIER_MAP_ENTRIES + k;
			bits |= loc.flags & ~TIER_MW_EXT_FLAGS;
			undef++;
		}
		if (undef) {
			p = problem(md, TL_SEV_ERROR, md->meta_dev, "extent",
				    "map copy %u block %llu: %u entries with undefined extent flags (%#x; defined: %#x): the kernel refuses the map",
				    a, (unsigned long long)i, undef, bits,
				    (u32)TIER_MW_EXT_FLAGS);
			p->slot = a;
			p->block = i;
			p->vext = first;
			p->sector = tier_map_block_sector(&md->sb, a, i);
		}
		if (!eflags && !future)
			continue;
		p = problem(md, TL_SEV_WARN, md->meta_dev, "extent",
			    "map copy %u block %llu: %u entries with reserved entry flags set, %u accessed after the last commit (the kernel ignores or keeps these)",
			    a, (unsigned long long)i, eflags, future);
		p->slot = a;
		p->block = i;
		p->sector = tier_map_block_sector(&md->sb, a, i);
	}
}

int tl_md_load(struct tl_md *md, struct tl_err *err)
{
	sector_t meta_start;
	int rc;

	load_labels(md);
	if (!md->have_group) {
		problem(md, TL_SEV_ERROR, -1, "label",
			"no valid dm-tier label on any device given: nothing to check the devices against");
		return TL_OK;
	}
	find_meta_holder(md, &meta_start);
	assign_rest(md);
	if (md->meta_dev < 0) {
		report_dups(md);
		problem(md, TL_SEV_ERROR, -1, "superblock",
			"the device holding the metadata (%s) was not found",
			md->meta_ext ? "metadata device" : "tier 0");
		return TL_OK;
	}
	load_sb(md, meta_start);
	if (md->sb_fatal) {
		report_dups(md);
		return TL_OK;
	}
	if (!map_on_device(md)) {
		/* The labels against it still say what is wrong. */
		if (md->sb_rebuilt)
			report_dups(md);
		else
			apply_sb_list(md);
		check_labels_sb(md);
		md->sb_fatal = true;
		return TL_OK;
	}
	rc = read_map(md, err);
	if (rc)
		return rc;
	if (md->sb_rebuilt) {
		rebuild_pick_copy(md);
		report_dups(md);
	} else {
		apply_sb_list(md);
	}
	md->nr_blocks = tier_map_blocks_for(md->sb.virt_extents);
	check_labels_sb(md);
	check_blocks(md);
	report_blocks(md);
	if (scan_alloc(md, true, NULL, NULL))
		return tl_fail(err, TL_FAIL, "out of memory");
	check_used(md);
	check_heat(md);
	return TL_OK;
}

bool tl_md_dumpable(const struct tl_md *md)
{
	return md->have_group && !md->sb_fatal && md->map[0] && !md->sb_rebuilt;
}

/* ---- repair ------------------------------------------------------------- */

static int add_write(struct tl_md *md, int dev, u64 sector, const void *blk,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int add_write(struct tl_md *md, int dev, u64 sector, const void *blk,
		     const char *fmt, ...)
{
	struct tl_write *n = realloc(md->writes, (md->nr_writes + 1) * sizeof(*n));
	va_list ap;

	if (!n)
		return -ENOMEM;
	md->writes = n;
	n = &n[md->nr_writes];
	n->blk = tl_block_alloc(1);
	if (!n->blk)
		return -ENOMEM;
	memcpy(n->blk, blk, TIER_BLOCK_SIZE);
	n->flush_first = false;
	n->dev = dev;
	n->sector = sector;
	va_start(ap, fmt);
	vsnprintf(n->what, sizeof(n->what), fmt, ap);
	va_end(ap);
	md->nr_writes++;
	return 0;
}

/* Re-encode @src's entries as block @i of @copy, generation @gen. */
static void reencode(const struct tl_md *md, u8 *dst, const u8 *src, u32 copy,
		     u64 i, u64 gen)
{
	struct tier_sb sb = md->sb;
	struct tier_map_entry e[TIER_MAP_ENTRIES];
	u32 k;

	for (k = 0; k < TIER_MAP_ENTRIES; k++)
		tier_map_block_get(src, k, &e[k]);
	sb.generation = gen;
	tier_map_block_init(dst, &sb, copy, i);
	for (k = 0; k < TIER_MAP_ENTRIES; k++)
		tier_map_block_set(dst, k, &e[k]);
	tier_map_block_seal(dst);
}

/* Unmap the entries of block @i of copy @c that fail the entry checks; the
 * number unmapped. */
static u32 clear_bad_entries(struct tl_md *md, u32 c, u64 i, u8 *tmp)
{
	u8 *blk = map_blk(md, c, i);
	struct tier_map_entry e, zero = { 0 };
	u32 k, n = 0;

	for (k = 0; k < TIER_MAP_ENTRIES; k++) {
		tier_map_block_get(blk, k, &e);
		/* One entry alone in a block: the core's verdict on it. */
		tier_map_block_init(tmp, &md->sb, c, i);
		tier_map_block_set(tmp, k, &e);
		tier_map_block_seal(tmp);
		if (!tier_map_block_check(tmp, &md->sb, c, i, NULL))
			continue;
		tier_map_block_set(blk, k, &zero);
		n++;
	}
	return n;
}

static u32 count_mapped(const u8 *blk)
{
	struct tier_map_entry e;
	u32 k, n = 0;

	for (k = 0; k < TIER_MAP_ENTRIES; k++) {
		tier_map_block_get(blk, k, &e);
		n += (e.word & TIER_MAPW_MAPPED) != 0;
	}
	return n;
}

static bool header_ok(const struct tl_md *md, u32 c, u64 i)
{
	enum tier_err_code code = md->blk_err[c][i].code;

	return md->blk_ret[c][i] == -EUCLEAN &&
	       code >= TIER_E_MAP_ENTRY_RESERVED &&
	       code <= TIER_E_MAP_ENTRY_BEYOND;
}

/* @cur: the member's current label when it decodes, else NULL. */
static void label_for(const struct tl_md *md, u32 idx,
		      const struct tier_label *ref,
		      const struct tier_label *cur, struct tier_label *l)
{
	const struct tier_sb *sb = &md->sb;
	bool holds = md->meta_ext ? idx == TIER_META_DEV : idx == 0;

	memset(l, 0, sizeof(*l));
	memcpy(l->uuid, sb->uuid, TIER_UUID_LEN);
	memcpy(l->name, md->name, TIER_NAME_LEN);
	l->tier_index = idx;
	l->nr_tiers = sb->nr_tiers;
	l->extent_shift = sb->extent_shift;
	l->virt_extents = ref->virt_extents;
	l->ctime = ref->ctime;
	if (md->meta_ext)
		l->flags |= TIER_LABEL_F_META_EXT;
	if (holds) {
		l->flags |= TIER_LABEL_F_META;
		l->meta_start = sb->meta_start;
		l->meta_blocks = 2 + 2 * sb->map_blocks;
	}
	if (idx == TIER_META_DEV) {
		memcpy(l->member_uuid, sb->meta_uuid, TIER_UUID_LEN);
		l->tier_class = TIER_CLASS_META;
		l->dev_sectors = md->dev[md->devof[idx]].sectors;
		return;
	}
	memcpy(l->member_uuid, sb->tier[idx].member_uuid, TIER_UUID_LEN);
	l->tier_class = sb->tier[idx].tier_class;
	l->dev_sectors = sb->tier[idx].dev_sectors;
	l->data_start = sb->tier[idx].data_start;
	l->nr_extents = sb->tier[idx].nr_extents;
	/*
	 * The spare metadata area add-tier reserved for a replace-tier of
	 * tier 0 is in the label only: a valid label being rewritten keeps
	 * it, or the replacement could not finish.
	 */
	if (!holds && cur)
		l->spare_meta_blocks = cur->spare_meta_blocks;
}

static void fix_problems(struct tl_md *md, const char *structure, int dev,
			 int slot, s64 block, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Attach @fmt as the fix of every matching problem. */
static void fix_problems(struct tl_md *md, const char *structure, int dev,
			 int slot, s64 block, const char *fmt, ...)
{
	char fix[160];
	va_list ap;
	u32 i;

	va_start(ap, fmt);
	vsnprintf(fix, sizeof(fix), fmt, ap);
	va_end(ap);
	for (i = 0; i < md->nr_problems; i++) {
		struct tl_problem *p = &md->problems[i];

		if (strcmp(p->structure, structure) || (dev != -2 && p->dev != dev) ||
		    (slot != -2 && p->slot != slot) ||
		    (block != -2 && p->block != block))
			continue;
		if (!p->fix[0])
			set_fix(p, "%s", fix);
	}
}

/* Clear the extent flags of @blk's entries that tier_map_load_block()
 * refuses; the number of entries changed. */
static u32 clear_undef_flags(u8 *blk)
{
	struct tier_map_entry e;
	struct tier_loc loc;
	u32 k, n = 0;

	for (k = 0; k < TIER_MAP_ENTRIES; k++) {
		tier_map_block_get(blk, k, &e);
		if (!tier_map_word_decode(e.word, &loc) ||
		    !(loc.flags & ~TIER_MW_EXT_FLAGS))
			continue;
		loc.flags &= TIER_MW_EXT_FLAGS;
		e.word = tier_map_word_encode(&loc);
		tier_map_block_set(blk, k, &e);
		n++;
	}
	return n;
}

/* The fix of check_heat()'s error for block @i of copy @c (its warning
 * about entry flags and access times stays: the kernel tolerates those). */
static void fix_undef_flags(struct tl_md *md, u32 c, u64 i, u32 n)
{
	u32 j;

	for (j = 0; j < md->nr_problems; j++) {
		struct tl_problem *p = &md->problems[j];

		if (p->sev != TL_SEV_ERROR || strcmp(p->structure, "extent") ||
		    p->slot != (int)c || p->block != (s64)i || p->fix[0])
			continue;
		set_fix(p, "undefined extent flags cleared in %u entries (the mappings kept)",
			n);
	}
}

/*
 * The repaired map, in the active copy's buffers, each block it changes
 * re-encoded as a block of that copy and generation: damaged blocks
 * rebuilt, double use and undefined extent flags cleared. Nothing is
 * planned yet (plan_commit(), plan_tidy()).
 * @changed:    block i differs from what the active copy holds on the disk.
 * @from_other: block i is damaged there and rebuilt from the other copy's.
 */
static int repair_active(struct tl_md *md, bool *changed, bool *from_other,
			 u8 *tmp)
{
	u32 a = md->sb.active_copy, b = a ^ 1;
	u64 i, nown = 0, j;
	struct owner *own = NULL;
	int r;

	for (i = 0; i < md->nr_blocks; i++) {
		u32 n;

		if (!md->blk_ret[a][i])
			continue;
		changed[i] = true;
		if (!md->blk_ret[b][i] ||
		    (md->blk_ret[b][i] == -EUCLEAN &&
		     md->blk_err[b][i].code == TIER_E_MAP_GENERATION)) {
			/* The other copy: one commit older at worst. */
			from_other[i] = true;
			reencode(md, map_blk(md, a, i), map_blk(md, b, i), a, i,
				 md->sb.generation);
			/*
			 * A block newer than the superblock (a commit cut
			 * before its superblock) had its entries never
			 * checked: one may map a tier or an extent this
			 * superblock does not have (an add-tier, a grown
			 * tier), which the kernel refuses and the allocator
			 * scan would index past its bitmaps with.
			 */
			n = clear_bad_entries(md, a, i, tmp);
			md->nr_losses += n;
			if (n)
				fix_problems(md, "map", -2, a, i,
					     "rebuilt from map copy %u block %llu (newer than the superblock); its %u entries outside this superblock's tiers or size are unmapped (their data is lost)",
					     b, (unsigned long long)i, n);
			else
				fix_problems(md, "map", -2, a, i,
					     "rebuilt from map copy %u block %llu (it may be one commit older)",
					     b, (unsigned long long)i);
		} else if (header_ok(md, a, i)) {
			n = clear_bad_entries(md, a, i, tmp);
			md->nr_losses += n;
			fix_problems(md, "map", -2, a, i,
				     "the other copy is damaged too: its %u bad entries are unmapped (their data is lost)",
				     n);
		} else {
			memset(map_blk(md, a, i), 0, TIER_BLOCK_SIZE);
			md->nr_losses += TIER_MAP_ENTRIES;
			fix_problems(md, "map", -2, a, i,
				     "both copies unreadable: virtual extents %llu..%llu become unmapped (what they mapped is lost)",
				     (unsigned long long)i * TIER_MAP_ENTRIES,
				     (unsigned long long)(i + 1) * TIER_MAP_ENTRIES - 1);
		}
		md->blk_ret[a][i] = 0;
	}
	/* Double use left: the lowest virtual extent keeps the extent. */
	r = scan_alloc(md, false, &own, &nown);
	if (r)
		return r;
	for (i = 0; i < nown; i++) {
		struct tier_map_entry zero = { 0 };
		u64 blk;

		for (j = 0; j < i; j++)
			if (own[j].tier == own[i].tier && own[j].pext == own[i].pext)
				break;
		if (j == i)
			continue;
		blk = own[i].vext / TIER_MAP_ENTRIES;
		tier_map_block_set(map_blk(md, a, blk),
				   own[i].vext % TIER_MAP_ENTRIES, &zero);
		changed[blk] = true;
		md->nr_losses++;
	}
	free(own);
	if (nown)
		fix_problems(md, "allocator", -2, -2, -2,
			     "the higher virtual extent is unmapped (its data is lost)");
	r = scan_alloc(md, false, NULL, NULL);
	if (r)
		return r;
	/*
	 * Undefined extent flags, which the kernel refuses: a flag a newer
	 * module defines comes with a ro_compat or incompat bit (docs/
	 * FORMAT.md), and with an unknown one set nothing is repaired
	 * (sb_fatal), so these are noise: cleared, the mappings kept.
	 */
	for (i = 0; i < md->nr_blocks; i++) {
		u32 n = clear_undef_flags(map_blk(md, a, i));

		if (!n)
			continue;
		changed[i] = true;
		fix_undef_flags(md, a, i, n);
	}
	for (i = 0; i < md->nr_blocks; i++) {
		if (!changed[i])
			continue;
		reencode(md, tmp, map_blk(md, a, i), a, i, md->sb.generation);
		memcpy(map_blk(md, a, i), tmp, TIER_BLOCK_SIZE);
	}
	return 0;
}

/* Whether block @i of copy @c was read (a read error leaves no content). */
static bool blk_was_read(const struct tl_md *md, u32 c, u64 i)
{
	return md->blk_ret[c][i] >= 0 || md->blk_err[c][i].code != TIER_E_NONE;
}

/*
 * Whether block @i of copy @c, as read, passes the checks of @sb and holds
 * the entries of @want (NULL: none): then the repair need not write it, as
 * tier_map_block_current() spares it a kernel commit.
 */
static bool blk_holds(const struct tl_md *md, const struct tier_sb *sb, u32 c,
		      u64 i, const u8 *want)
{
	const struct tier_map_block_disk *have =
		(const void *)map_blk(md, c, i);
	const struct tier_map_block_disk *w = (const void *)want;

	if (!blk_was_read(md, c, i) ||
	    tier_map_block_check(have, sb, c, i, NULL))
		return false;
	if (!w)
		return all_zero((const u8 *)have->entry, sizeof(have->entry));
	return !memcmp(have->entry, w->entry, sizeof(have->entry));
}

/* Writes from @first on start a phase: the ones before are flushed first. */
static void flush_before(struct tl_md *md, u32 first)
{
	if (first > 0 && first < md->nr_writes)
		md->writes[first].flush_first = true;
}

/*
 * Whether the repair must commit: write a superblock of the next generation,
 * which names the other map copy (plan_commit()).
 */
static bool needs_commit(const struct tl_md *md, const bool *changed)
{
	bool need = md->sb_rebuilt;
	u64 i;
	u32 t, s;

	for (t = 0; t < md->sb.nr_tiers; t++)
		need |= md->used[t] != md->sb.tier[t].used_extents;
	for (s = 0; s < 2; s++)
		need |= md->slot_ret[s] &&
			!(md->slot_zero[s] && md->sb.generation == 1);
	for (i = 0; i < md->nr_blocks; i++)
		need |= changed[i];
	return need;
}

/*
 * Block @i of the active copy @a must be rebuilt in place before the other
 * copy's is rewritten: it is damaged, and that block, its source, is the
 * only good copy of its extents, which a torn write there would lose.
 * Written in place it was damaged already, so a torn write loses nothing.
 */
static bool rebuild_first(const struct tl_md *md, const struct tier_sb *n,
			  const bool *from_other, u32 a, u64 i)
{
	return from_other[i] && !blk_holds(md, n, a ^ 1, i, map_blk(md, a, i));
}

/* A block that fails under the old superblock only (newer than it). */
#define KEPT_VALID "kept: it is what the new superblock below needs there, and valid under it"

/*
 * The repair as a kernel commit (docs/FORMAT.md "Commit protocol", and
 * "Offline"), so that a crash at any point leaves the device as it was or
 * repaired: the repaired map into the inactive copy b, flush; the
 * superblock of the next generation naming b, flush; then copy a, the
 * one the old superblock names, made equal to b, flush. A readable block
 * of copy a is never written before the new superblock is on the disk; a
 * damaged one whose only good copy is b's, which the first step rewrites,
 * is rebuilt in place before it (rebuild_first()). With no valid slot, the superblock rebuilt from the labels, naming copy
 * a as it is, goes first: a crash later must not leave a half-written
 * copy b for the next rebuild to pick.
 */
static int plan_commit(struct tl_md *md, const bool *changed,
		       const bool *from_other, const u64 *used_before, u8 *tmp)
{
	u32 a = md->sb.active_copy, b = a ^ 1, t, s, first;
	struct tier_sb n = md->sb, back;
	u64 i;
	int r;

	n.generation++;
	n.active_copy = b;
	n.commit_time = time(NULL);
	for (t = 0; t < md->sb.nr_tiers; t++)
		n.tier[t].used_extents = md->used[t];
	tier_sb_encode(&n, tmp);
	if (tier_sb_decode(tmp, tier_sb_slot(n.generation), &back, NULL))
		return -EUCLEAN;

	if (md->sb_rebuilt) {
		struct tier_sb rb = md->sb;

		/* Copy a as it is: the counts check found in it. */
		for (t = 0; t < md->sb.nr_tiers; t++)
			rb.tier[t].used_extents = used_before[t];
		rb.commit_time = n.commit_time;
		tier_sb_encode(&rb, tmp);
		r = add_write(md, md->meta_dev,
			      tier_sb_sector(rb.meta_start,
					     tier_sb_slot(rb.generation)),
			      tmp, "superblock slot %u: rebuilt from the labels and map copy %u, generation %llu",
			      tier_sb_slot(rb.generation), rb.active_copy,
			      (unsigned long long)rb.generation);
		if (r)
			return r;
	}

	first = md->nr_writes;
	for (i = 0; i < md->nr_blocks; i++) {
		if (!rebuild_first(md, &n, from_other, a, i))
			continue;
		r = add_write(md, md->meta_dev, tier_map_block_sector(&md->sb, a, i),
			      map_blk(md, a, i),
			      "map copy %u block %llu (%u extents mapped): damaged, rebuilt in place before its source in copy %u is rewritten",
			      a, (unsigned long long)i,
			      count_mapped(map_blk(md, a, i)), b);
		if (r)
			return r;
	}
	flush_before(md, first);

	first = md->nr_writes;
	for (i = 0; i < md->sb.map_blocks; i++) {
		const u8 *want = i < md->nr_blocks ? map_blk(md, a, i) : NULL;

		if (blk_holds(md, &n, b, i, want)) {
			fix_problems(md, "map", -2, b, i, KEPT_VALID);
			continue;
		}
		if (want) {
			reencode(md, tmp, want, b, i, n.generation);
			fix_problems(md, "map", -2, b, i,
				     "rewritten from the repaired map: the copy the new superblock makes active");
		} else {
			tier_map_block_init(tmp, &n, b, i);
			tier_map_block_seal(tmp);
			fix_problems(md, "map", -2, b, i, "rewritten empty");
		}
		r = add_write(md, md->meta_dev, tier_map_block_sector(&md->sb, b, i),
			      tmp, "map copy %u block %llu (%u extents mapped), made active below",
			      b, (unsigned long long)i, count_mapped(tmp));
		if (r)
			return r;
	}
	flush_before(md, first);

	first = md->nr_writes;
	for (s = 0; s < 2; s++)
		if (md->slot_unreadable[s])
			fix_problems(md, "superblock", -2, s, -2,
				     "written over (--force) with the superblock below: a newer commit it held, if any, is lost");
	if (md->sb_rebuilt)
		fix_problems(md, "superblock", -2, -2, -2,
			     "superblock rebuilt from the labels: generation %llu in slot %u, then generation %llu in slot %u, map copy %u active",
			     (unsigned long long)md->sb.generation,
			     tier_sb_slot(md->sb.generation),
			     (unsigned long long)n.generation,
			     tier_sb_slot(n.generation), b);
	else
		fix_problems(md, "superblock", -2, -2, -2,
			     "superblock rewritten: generation %llu in slot %u, used counts of the map, map copy %u active",
			     (unsigned long long)n.generation,
			     tier_sb_slot(n.generation), b);
	tier_sb_encode(&n, tmp);
	r = add_write(md, md->meta_dev,
		      tier_sb_sector(n.meta_start, tier_sb_slot(n.generation)),
		      tmp, "superblock slot %u: generation %llu, map copy %u, used %llu/%llu/...",
		      tier_sb_slot(n.generation), (unsigned long long)n.generation,
		      n.active_copy, (unsigned long long)n.tier[0].used_extents,
		      (unsigned long long)(n.nr_tiers > 1 ? n.tier[1].used_extents : 0));
	if (r)
		return r;
	flush_before(md, first);

	/* Copy a, inactive from now on, as the kernel's next commit would. */
	first = md->nr_writes;
	for (i = 0; i < md->sb.map_blocks; i++) {
		if (i < md->nr_blocks) {
			if (!changed[i] || rebuild_first(md, &n, from_other, a, i))
				continue;
			memcpy(tmp, map_blk(md, a, i), TIER_BLOCK_SIZE);
		} else {
			if (blk_holds(md, &n, a, i, NULL)) {
				fix_problems(md, "map", -2, a, i, KEPT_VALID);
				continue;
			}
			tier_map_block_init(tmp, &md->sb, a, i);
			tier_map_block_seal(tmp);
			fix_problems(md, "map", -2, a, i, "rewritten empty");
		}
		r = add_write(md, md->meta_dev, tier_map_block_sector(&md->sb, a, i),
			      tmp, "map copy %u block %llu (%u extents mapped), as copy %u",
			      a, (unsigned long long)i, count_mapped(tmp), b);
		if (r)
			return r;
	}
	flush_before(md, first);
	return 0;
}

/*
 * Nothing the kernel reads changes: only blocks it does not read, beyond
 * the virtual size and of the inactive copy, are rewritten, in place.
 */
static int plan_tidy(struct tl_md *md, u8 *tmp)
{
	u32 a = md->sb.active_copy, b = a ^ 1;
	u64 i;
	int r;

	for (i = md->nr_blocks; i < md->sb.map_blocks; i++) {
		if (!md->blk_ret[a][i])
			continue;
		tier_map_block_init(tmp, &md->sb, a, i);
		tier_map_block_seal(tmp);
		fix_problems(md, "map", -2, a, i, "rewritten empty");
		r = add_write(md, md->meta_dev, tier_map_block_sector(&md->sb, a, i),
			      tmp, "map copy %u block %llu (empty)", a,
			      (unsigned long long)i);
		if (r)
			return r;
	}
	for (i = 0; i < md->sb.map_blocks; i++) {
		if (!md->blk_ret[b][i])
			continue;
		if (i < md->nr_blocks) {
			reencode(md, tmp, map_blk(md, a, i), b, i, md->sb.generation);
		} else {
			tier_map_block_init(tmp, &md->sb, b, i);
			tier_map_block_seal(tmp);
		}
		fix_problems(md, "map", -2, b, i, "rewritten from map copy %u", a);
		r = add_write(md, md->meta_dev, tier_map_block_sector(&md->sb, b, i),
			      tmp, "map copy %u block %llu (from copy %u)", b,
			      (unsigned long long)i, a);
		if (r)
			return r;
	}
	return 0;
}

static int plan_labels(struct tl_md *md, u8 *tmp)
{
	const struct tier_label *ref = ref_label(md);
	struct tier_label l, back;
	u32 idx;
	int r;

	if (!ref)
		return 0;
	for (idx = 0; idx < TIER_MAX_DEVS; idx++) {
		int d = md->devof[idx];
		const struct tier_label *cur;

		if (d < 0 || (idx >= md->nr_tiers && idx != TIER_META_DEV))
			continue;
		cur = &md->dev[d].label;
		if (!md->dev[d].label_ret &&
		    !tier_label_check_sb(cur, &md->sb, idx, NULL) &&
		    !strncmp(cur->name, md->name, TIER_NAME_LEN) &&
		    (idx == TIER_META_DEV ||
		     (cur->dev_sectors == md->sb.tier[idx].dev_sectors &&
		      cur->tier_class == md->sb.tier[idx].tier_class)))
			continue;
		/* A valid label of another member is not ours to rewrite. */
		if (!md->dev[d].label_ret &&
		    (memcmp(cur->uuid, md->sb.uuid, TIER_UUID_LEN) ||
		     memcmp(cur->member_uuid,
			    idx == TIER_META_DEV ? md->sb.meta_uuid :
						   md->sb.tier[idx].member_uuid,
			    TIER_UUID_LEN)))
			continue;
		/* Newer versions and features are not ours either. */
		if (md->dev[d].label_ret == -EPROTO ||
		    md->dev[d].label_ret == -EOPNOTSUPP)
			continue;
		if (md->dev[d].sectors < (idx == TIER_META_DEV ? 0 :
					  md->sb.tier[idx].dev_sectors))
			continue;
		label_for(md, idx, ref, md->dev[d].label_ret ? NULL : cur, &l);
		tier_label_encode(&l, tmp);
		if (tier_label_decode(tmp, &back, NULL) ||
		    tier_label_check_sb(&back, &md->sb, idx, NULL))
			continue;
		fix_problems(md, "label", d, -2, -2,
			     "label rewritten from the superblock (as %s %u)%s",
			     idx == TIER_META_DEV ? "metadata device" : "tier", idx,
			     md->dev[d].label_ret == -ENODATA ?
				     "; the device has no dm-tier label at all: it is taken for the missing member because it was given, make sure it is" :
				     "");
		if (idx == TIER_META_DEV)
			r = add_write(md, d, 0, tmp,
				      "label of the metadata device ('%s')",
				      md->name);
		else
			r = add_write(md, d, 0, tmp, "label of tier %u ('%s')",
				      idx, md->name);
		if (r)
			return r;
	}
	return 0;
}

int tl_md_plan_repair(struct tl_md *md, bool force, struct tl_err *err)
{
	bool *changed = NULL, *from_other = NULL;
	u64 used_before[TIER_MAX_TIERS];
	u8 *tmp = tl_block_alloc(1);
	u32 first;
	int r = 0;

	if (!md->have_group || md->sb_fatal || !md->map[0])
		goto out;
	/*
	 * Nothing at all, not only no superblock: if the unreadable slot held
	 * the newest commit, the copy it made active is the one check calls
	 * inactive (its blocks newer than the superblock), which the repair
	 * would rewrite from the older copy.
	 */
	if (!force && (md->slot_unreadable[0] || md->slot_unreadable[1])) {
		md->repair_refused =
			"a superblock slot is unreadable: repair writes over it only with --force";
		goto out;
	}
	changed = calloc(md->nr_blocks ? md->nr_blocks : 1, sizeof(bool));
	from_other = calloc(md->nr_blocks ? md->nr_blocks : 1, sizeof(bool));
	if (!tmp || !changed || !from_other) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(used_before, md->used, sizeof(used_before));
	r = repair_active(md, changed, from_other, tmp);
	if (!r)
		r = needs_commit(md, changed) ?
			    plan_commit(md, changed, from_other, used_before, tmp) :
			    plan_tidy(md, tmp);
	first = md->nr_writes;
	if (!r)
		r = plan_labels(md, tmp);
	/* Labels last: an interrupted repair leaves none naming new metadata. */
	flush_before(md, first);
out:
	free(tmp);
	free(changed);
	free(from_other);
	if (r == -ENOMEM)
		return tl_fail(err, TL_FAIL, "out of memory");
	if (r)
		return tl_fail(err, TL_FAIL,
			       "internal error: the rebuilt superblock does not validate");
	return TL_OK;
}

/* Flush every device writes @from .. @to - 1 went to. */
static int flush_written(struct tl_md *md, u32 from, u32 to,
			 struct tl_err *err)
{
	bool synced[TL_CHK_MAX_DEVS] = { false };
	u32 i;

	for (i = from; i < to; i++) {
		int d = md->writes[i].dev;

		if (synced[d])
			continue;
		synced[d] = true;
		if (fsync(md->dev[d].fd))
			return tl_fail(err, TL_FAIL,
				       "flushing %s failed: %s; %u of %u blocks were written, the rest not (they must follow what is on the disk): run 'tierctl check' again before anything else",
				       md->dev[d].path, strerror(errno), to,
				       md->nr_writes);
	}
	return TL_OK;
}

int tl_md_write(struct tl_md *md, struct tl_err *err)
{
	struct tl_err ignored;
	u32 i, flushed = 0;
	int r;

	md->nr_written = 0;
	for (i = 0; i < md->nr_writes; i++) {
		const struct tl_write *w = &md->writes[i];

		/* A phase starts once the one before is on the disks. */
		if (w->flush_first) {
			r = flush_written(md, flushed, i, err);
			if (r)
				return r;
			flushed = i;
		}
		r = tl_pwrite_full(md->dev[w->dev].fd, w->blk, TIER_BLOCK_SIZE,
				   w->sector << TIER_SECTOR_SHIFT);
		if (r) {
			/* What was written is on the disks, as reported. */
			flush_written(md, flushed, i, &ignored);
			return tl_fail(err, TL_FAIL,
				       "writing %s at sector %llu (%s) failed: %s; %u of %u blocks were written: run 'tierctl check' again before anything else",
				       md->dev[w->dev].path,
				       (unsigned long long)w->sector, w->what,
				       strerror(-r), i, md->nr_writes);
		}
		md->nr_written = i + 1;
	}
	return flush_written(md, flushed, md->nr_writes, err);
}

/* ---- output ------------------------------------------------------------- */

static void print_header(const struct tl_md *md)
{
	char hex[TL_UUID_HEX_LEN + 1];

	tl_uuid_hex(md->uuid, hex);
	print_str("name", "%s:", md->have_group ? md->name : "?");
	print_str("uuid", " uuid %s", md->have_group ? hex : "");
	print_u64("nr_tiers", ", %llu tiers", md->nr_tiers);
	if (md->sb_slot >= 0 && !md->sb_fatal) {
		print_u64("generation", ", generation %llu", md->sb.generation);
		print_s64("slot", " (slot %lld)", md->sb_slot);
		print_u64("active_copy", ", map copy %llu", md->sb.active_copy);
	}
	print_text("\n");
}

static void print_problem(const struct tl_md *md, const struct tl_problem *p)
{
	char role[32];

	print_obj_begin(NULL);
	print_str("severity", "%s: ", p->sev ? "error" : "warning");
	print_str("device", "%s", p->dev >= 0 ? md->dev[p->dev].path : "-");
	print_str("role", " (%s)", tl_md_role(md, p->dev, role, sizeof(role)));
	print_str("structure", " %s", p->structure);
	if (p->slot >= 0)
		print_s64(!strcmp(p->structure, "superblock") ? "slot" : "copy",
			  NULL, p->slot);
	if (p->block >= 0)
		print_s64("block", NULL, p->block);
	if (p->vext >= 0)
		print_s64("vext", NULL, p->vext);
	if (p->sector >= 0)
		print_s64("sector", " at sector %lld", p->sector);
	print_str("what", ": %s", p->what);
	if (p->fix[0])
		print_str("repair", "\n    repair: %s", p->fix);
	print_text("\n");
	print_obj_end();
}

void tl_md_print_check(const struct tl_md *md)
{
	u32 i;

	print_obj_begin(NULL);
	print_header(md);
	print_arr_begin("problems", NULL);
	for (i = 0; i < md->nr_problems; i++)
		print_problem(md, &md->problems[i]);
	print_arr_end();
	print_u64("errors", NULL, md->nr_errors);
	print_u64("warnings", NULL, md->nr_warnings);
	print_text("%s: ", md->have_group ? md->name : "?");
	print_str("status", "%s",
		  md->nr_errors ? "damaged" :
		  md->nr_warnings ? "clean, with warnings the kernel tolerates" :
				    "clean");
	print_text(" (%u errors, %u warnings)\n", md->nr_errors,
		   md->nr_warnings);
	print_obj_end();
}

void tl_md_print_plan(const struct tl_md *md, bool written,
		      const struct tl_md *after)
{
	u32 i, left = 0;
	char role[32];

	for (i = 0; i < md->nr_problems; i++)
		left += md->problems[i].sev && !md->problems[i].fix[0];
	print_obj_begin(NULL);
	print_header(md);
	print_arr_begin("problems", NULL);
	for (i = 0; i < md->nr_problems; i++)
		print_problem(md, &md->problems[i]);
	print_arr_end();
	print_text("%s %u block%s:\n", written ? "wrote" : "would write",
		   md->nr_writes, md->nr_writes == 1 ? "" : "s");
	print_arr_begin("writes", NULL);
	for (i = 0; i < md->nr_writes; i++) {
		const struct tl_write *w = &md->writes[i];

		print_obj_begin(NULL);
		print_str("device", "  %s", md->dev[w->dev].path);
		print_str("role", " (%s)", tl_md_role(md, w->dev, role, sizeof(role)));
		print_u64("sector", " sector %llu", w->sector);
		print_str("what", ": %s\n", w->what);
		print_obj_end();
	}
	print_arr_end();
	print_u64("extents_lost", NULL, md->nr_losses);
	if (md->nr_losses)
		print_text("up to %u extent mapping%s cannot be recovered (their data is lost)\n",
			   md->nr_losses, md->nr_losses == 1 ? "" : "s");
	if (md->repair_refused)
		print_str("refused", "nothing planned: %s\n", md->repair_refused);
	print_u64("unrepairable", NULL, left);
	if (left)
		print_text("%u error%s cannot be repaired (no repair line above)\n",
			   left, left == 1 ? "" : "s");
	print_bool("written", NULL, written);
	print_u64("blocks_written", NULL, md->nr_written);
	if (!written && md->nr_written)
		print_text("a write failed after %u of the %u blocks: the device is partly repaired; check it again\n",
			   md->nr_written, md->nr_writes);
	else if (!written && md->nr_writes)
		print_text("nothing written; run again with --yes to write\n");
	if (after) {
		print_obj_begin("after");
		print_text("after repair, %s: ", md->name);
		print_str("status", "%s",
			  after->nr_errors ? "damaged" :
			  after->nr_warnings ? "clean, with warnings" : "clean");
		print_u64("errors", " (%llu errors", after->nr_errors);
		print_u64("warnings", ", %llu warnings)\n", after->nr_warnings);
		print_obj_end();
	}
	print_obj_end();
}

/*
 * The persisted settings, "setting KEY=VALUE (id N)" a line; an id this
 * tierctl does not know (a newer module's) shows as key "unknown". restore
 * reads id and value back.
 */
static void print_settings(const struct tier_settings *st)
{
	const char *key;
	u32 i;

	print_arr_begin("settings", NULL);
	for (i = 0; i < st->count && i < TIER_SETTINGS_MAX; i++) {
		key = tier_table_settings_key(st->e[i].id);
		print_obj_begin(NULL);
		print_str("key", "setting       %s", key ? key : "unknown");
		print_u64("value", "=%llu", st->e[i].value);
		print_u64("id", " (id %llu)\n", st->e[i].id);
		print_obj_end();
	}
	print_arr_end();
}

void tl_md_print_dump(const struct tl_md *md)
{
	const struct tier_sb *sb = &md->sb;
	char hex[TL_UUID_HEX_LEN + 1];
	u32 a = sb->active_copy, t, k;
	u64 i;

	print_obj_begin(NULL);
	print_str("format", "# %s", "dm-tier-dump");
	print_u64("version", " version %llu\n", 1);
	print_str("name", "name          %s\n", md->name);
	tl_uuid_hex(sb->uuid, hex);
	print_str("uuid", "uuid          %s\n", hex);
	print_u64("generation", "generation    %llu\n", sb->generation);
	print_u64("commit_time", "commit_time   %llu\n", sb->commit_time);
	print_u64("ctime", "ctime         %llu\n", sb->ctime);
	print_u64("extent_shift", "extent_shift  %llu\n", sb->extent_shift);
	print_u64("virt_extents", "virt_extents  %llu\n", sb->virt_extents);
	print_u64("active_copy", "active_copy   %llu\n", sb->active_copy);
	print_u64("map_blocks", "map_blocks    %llu\n", sb->map_blocks);
	print_u64("meta_start", "meta_start    %llu\n", sb->meta_start);
	print_u64("flags", "flags         %#llx\n", sb->flags);
	print_u64("compat", "compat        %#llx\n", sb->compat);
	print_u64("incompat", "incompat      %#llx\n", sb->incompat);
	print_u64("ro_compat", "ro_compat     %#llx\n", sb->ro_compat);
	print_settings(&sb->settings);
	if (md->meta_ext) {
		int d = md->devof[TIER_META_DEV];

		print_obj_begin("metadata_device");
		tl_uuid_hex(sb->meta_uuid, hex);
		print_str("path", "metadata device %s", d >= 0 ? md->dev[d].path : "?");
		print_str("member_uuid", " member %s", hex);
		/*
		 * Its label's size, which restore writes back; a device
		 * found by its superblock (label damaged): its size, as
		 * repair's label gets it, not 0, which restore refuses.
		 */
		print_u64("dev_sectors", " sectors %llu\n",
			  d < 0 ? 0 :
			  !md->dev[d].label_ret ? md->dev[d].label.dev_sectors :
						  md->dev[d].sectors);
		print_obj_end();
	}
	print_arr_begin("tiers", NULL);
	for (t = 0; t < sb->nr_tiers; t++) {
		const struct tier_sb_tier *r = &sb->tier[t];
		int d = md->devof[t];

		print_obj_begin(NULL);
		print_u64("index", "tier %llu", t);
		print_str("path", " %s", d >= 0 ? md->dev[d].path : "?");
		print_str("class", " class %s", tl_class_name(r->tier_class));
		tl_uuid_hex(r->member_uuid, hex);
		print_str("member_uuid", " member %s", hex);
		print_u64("dev_sectors", " sectors %llu", r->dev_sectors);
		print_u64("data_start", " data_start %llu", r->data_start);
		print_u64("nr_extents", " extents %llu", r->nr_extents);
		print_u64("used_extents", " used %llu", r->used_extents);
		print_u64("flags", " flags %#llx\n", r->flags);
		print_obj_end();
	}
	print_arr_end();
	print_text("extents (vext -> tier:pext flags heat atime):\n");
	print_arr_begin("extents", NULL);
	for (i = 0; i < md->nr_blocks; i++) {
		if (md->blk_ret[a][i])
			continue;
		for (k = 0; k < TIER_MAP_ENTRIES; k++) {
			struct tier_map_entry e;
			struct tier_loc loc;

			tier_map_block_get(map_blk(md, a, i), k, &e);
			if (!tier_map_word_decode(e.word, &loc))
				continue;
			print_obj_begin(NULL);
			print_u64("vext", "  %llu", i * TIER_MAP_ENTRIES + k);
			print_u64("tier", " -> %llu", loc.tier);
			print_u64("pext", ":%llu", loc.pext.p);
			print_u64("flags", " %#llx", loc.flags);
			print_u64("heat", " %llu", e.heat);
			print_u64("atime", " %llu\n", e.atime);
			print_obj_end();
		}
	}
	print_arr_end();
	print_obj_end();
}
