// SPDX-License-Identifier: GPL-2.0
/*
 * format.c - dm-tier on-disk format v1: encode, decode, validate, layout and
 * fresh metadata (pure; shared with tierctl).
 */
#include "tier-internal.h"
#include "format.h"

struct tier_err_desc {
	int errno_val;
	const char *msg;
};

static const struct tier_err_desc tier_err_table[TIER_E_NR_CODES] = {
	[TIER_E_NONE] = { 0, "no error" },
	[TIER_E_LABEL_MAGIC] = { ENODATA, "label: not a dm-tier device" },
	[TIER_E_LABEL_CSUM] = { EBADMSG, "label: bad checksum" },
	[TIER_E_LABEL_VERSION] = { EPROTO, "label: unsupported version" },
	[TIER_E_LABEL_FLAGS] = { EOPNOTSUPP, "label: unknown flags" },
	[TIER_E_LABEL_NAME] = { EUCLEAN, "label: bad device name" },
	[TIER_E_LABEL_EXTENT_SHIFT] = { EUCLEAN, "label: bad extent size" },
	[TIER_E_LABEL_NR_TIERS] = { EUCLEAN, "label: bad tier count" },
	[TIER_E_LABEL_TIER_INDEX] = { EUCLEAN, "label: bad tier index" },
	[TIER_E_LABEL_CLASS] = { EUCLEAN, "label: bad tier class" },
	[TIER_E_LABEL_DATA_START] = { EUCLEAN, "label: bad data start" },
	[TIER_E_LABEL_NR_EXTENTS] = { EUCLEAN,
				      "label: extents do not fit device" },
	[TIER_E_LABEL_META] = { EUCLEAN, "label: bad metadata area" },
	[TIER_E_LABEL_VIRT_EXTENTS] = { EUCLEAN, "label: bad virtual size" },
	[TIER_E_LABEL_SB_MISMATCH] = { EUCLEAN,
				       "label does not match superblock" },
	[TIER_E_SB_MAGIC] = { EUCLEAN, "superblock: bad magic" },
	[TIER_E_SB_CSUM] = { EBADMSG, "superblock: bad checksum" },
	[TIER_E_SB_VERSION] = { EPROTO, "superblock: unsupported version" },
	[TIER_E_SB_INCOMPAT] = { EOPNOTSUPP,
				 "superblock: unknown incompat features" },
	[TIER_E_SB_SLOT] = { EUCLEAN, "superblock: in the wrong slot" },
	[TIER_E_SB_GENERATION] = { EUCLEAN, "superblock: bad generation" },
	[TIER_E_SB_EXTENT_SHIFT] = { EUCLEAN, "superblock: bad extent size" },
	[TIER_E_SB_NR_TIERS] = { EUCLEAN, "superblock: bad tier count" },
	[TIER_E_SB_ACTIVE_COPY] = { EUCLEAN, "superblock: bad active copy" },
	[TIER_E_SB_MAP] = { EUCLEAN, "superblock: bad map location" },
	[TIER_E_SB_VIRT_EXTENTS] = { EUCLEAN, "superblock: bad virtual size" },
	[TIER_E_SB_TIER] = { EUCLEAN, "superblock: bad tier record" },
	[TIER_E_SB_NONE_VALID] = { EUCLEAN, "superblock: no valid slot" },
	[TIER_E_SB_UUID_MISMATCH] = { EUCLEAN,
				      "superblock: slots disagree on UUID" },
	[TIER_E_MAP_MAGIC] = { EUCLEAN, "map block: bad magic" },
	[TIER_E_MAP_CSUM] = { EBADMSG, "map block: bad checksum" },
	[TIER_E_MAP_INDEX] = { EUCLEAN, "map block: wrong block index" },
	[TIER_E_MAP_COPY] = { EUCLEAN, "map block: wrong copy" },
	[TIER_E_MAP_UUID] = { EUCLEAN, "map block: of another device" },
	[TIER_E_MAP_GENERATION] = { EUCLEAN,
				    "map block: newer than superblock" },
	[TIER_E_MAP_ENTRY_RESERVED] = { EUCLEAN,
					"map entry: reserved bits set" },
	[TIER_E_MAP_ENTRY_UNMAPPED] = { EUCLEAN,
					"map entry: unmapped but not zero" },
	[TIER_E_MAP_ENTRY_TIER] = { EUCLEAN, "map entry: tier out of range" },
	[TIER_E_MAP_ENTRY_PEXT] = { EUCLEAN,
				    "map entry: physical extent out of range" },
	[TIER_E_MAP_ENTRY_BEYOND] = { EUCLEAN,
				      "map entry: mapped beyond device end" },
	[TIER_E_MAP_DOUBLE_USE] = { EUCLEAN,
				    "map: physical extent mapped twice" },
	[TIER_E_LAYOUT_EXTENT_SHIFT] = { EINVAL, "bad extent size" },
	[TIER_E_LAYOUT_NR_TIERS] = { EINVAL, "bad number of tiers" },
	[TIER_E_LAYOUT_TIER_TOO_SMALL] = { EINVAL,
					   "tier too small for one extent" },
	[TIER_E_LAYOUT_TIER_TOO_BIG] = { E2BIG, "tier has too many extents" },
	[TIER_E_LAYOUT_META_TOO_SMALL] = { EINVAL,
					   "metadata device too small" },
	[TIER_E_LAYOUT_VIRT_UNALIGNED] = { EINVAL, "size not extent aligned" },
	[TIER_E_LAYOUT_VIRT_TOO_BIG] = { ENOSPC, "size exceeds tier capacity" },
	[TIER_E_LAYOUT_VIRT_LIMIT] = { E2BIG, "size too large" },
	[TIER_E_FRESH_PARAM] = { EINVAL, "bad creation parameter" },
	[TIER_E_MAP_ENTRY_FLAGS] = { EOPNOTSUPP,
				     "map entry: extent flags unknown here" },
};

const char *tier_err_str(enum tier_err_code code)
{
	if ((unsigned int)code >= TIER_E_NR_CODES)
		return "unknown error";
	return tier_err_table[code].msg;
}

int tier_err_set(struct tier_err *err, enum tier_err_code code, u64 item,
		 u64 value)
{
	if (err) {
		err->code = code;
		err->item = item;
		err->value = value;
	}
	if ((unsigned int)code >= TIER_E_NR_CODES)
		return -EINVAL;
	return -tier_err_table[code].errno_val;
}

static int tier_fail_errno(struct tier_err *err, enum tier_err_code code,
			   int errno_val, u64 item, u64 value)
{
	tier_err_set(err, code, item, value);
	return errno_val;
}

u32 tier_block_csum(const void *blk)
{
	return tier_crc32c(~0U, (const u8 *)blk + sizeof(__le32),
			   TIER_BLOCK_SIZE - sizeof(__le32));
}

static bool tier_block_csum_ok(const void *blk)
{
	const __le32 *csum = blk;

	return le32_to_cpu(*csum) == tier_block_csum(blk);
}

static void tier_block_seal(void *blk)
{
	__le32 *csum = blk;

	*csum = cpu_to_le32(tier_block_csum(blk));
}

u32 tier_uuid_csum(const u8 *uuid)
{
	return tier_crc32c(~0U, uuid, TIER_UUID_LEN);
}

static bool tier_shift_ok(u32 shift)
{
	return shift >= TIER_EXTENT_SHIFT_MIN && shift <= TIER_EXTENT_SHIFT_MAX;
}

u64 tier_max_virt_extents(u32 extent_shift)
{
	u64 limit = U64_MAX >> (TIER_SECTOR_SHIFT + extent_shift);

	return min_t(u64, limit, TIER_MAX_PEXTS);
}

u64 tier_map_blocks_for(u64 nr_extents)
{
	u32 rem;
	u64 blocks = div_u64_rem(nr_extents, TIER_MAP_ENTRIES, &rem);

	return blocks + (rem ? 1 : 0);
}

/* True when [start, start + nr << shift) fits in dev_sectors. */
static bool tier_extents_fit(sector_t start, u64 nr, u32 shift,
			     sector_t dev_sectors)
{
	if (start > dev_sectors)
		return false;
	return nr <= ((dev_sectors - start) >> shift);
}

/* ---- layout ------------------------------------------------------------ */

/* Blocks per map copy for the raw capacity of @req's tiers (>= 1). */
static u64 tier_layout_map_blocks(const struct tier_layout_req *req, u32 shift)
{
	u64 raw = 0, room;
	u32 i;

	for (i = 0; i < req->nr_tiers && i < TIER_MAX_TIERS; i++)
		raw += req->dev_sectors[i] >> shift; /* < 2^60 */
	/* Room reserved for growth (capped: the virtual size is anyway). */
	room = min_t(u64, req->map_extents, tier_max_virt_extents(shift));
	return max_t(u64, tier_map_blocks_for(max_t(u64, raw, room)), 1);
}

sector_t tier_layout_meta_min_sectors(const struct tier_layout_req *req)
{
	u32 shift = min_t(u32,
			  max_t(u32, req->extent_shift, TIER_EXTENT_SHIFT_MIN),
			  TIER_EXTENT_SHIFT_MAX);

	return TIER_META_START + (2 + 2 * tier_layout_map_blocks(req, shift)) *
					 TIER_BLOCK_SECTORS;
}

int tier_layout_compute(const struct tier_layout_req *req,
			struct tier_layout *lo, struct tier_err *err)
{
	u32 shift = req->extent_shift, i;
	u64 cap = 0, virt, meta_sectors, max_virt;
	struct tier_layout out;

	if (!tier_shift_ok(shift))
		return tier_err_set(err, TIER_E_LAYOUT_EXTENT_SHIFT, 0, shift);
	if (req->nr_tiers < 1 || req->nr_tiers > TIER_MAX_TIERS)
		return tier_err_set(err, TIER_E_LAYOUT_NR_TIERS, 0,
				    req->nr_tiers);

	memset(&out, 0, sizeof(out));
	out.nr_tiers = req->nr_tiers;
	out.extent_shift = shift;
	out.map_blocks = tier_layout_map_blocks(req, shift);
	out.meta_blocks = 2 + 2 * out.map_blocks;
	meta_sectors = out.meta_blocks * TIER_BLOCK_SECTORS;
	out.meta_start = TIER_META_START;
	out.map_start[0] = out.meta_start + 2 * TIER_BLOCK_SECTORS;
	out.map_start[1] =
		out.map_start[0] + out.map_blocks * TIER_BLOCK_SECTORS;

	if (req->meta_dev_sectors) {
		out.meta_ext = 1;
		out.meta_dev_sectors = req->meta_dev_sectors;
		if (req->meta_dev_sectors < tier_layout_meta_min_sectors(req))
			return tier_err_set(err, TIER_E_LAYOUT_META_TOO_SMALL,
					    TIER_META_DEV,
					    req->meta_dev_sectors);
	}

	for (i = 0; i < req->nr_tiers; i++) {
		struct tier_layout_tier *t = &out.tier[i];

		t->dev_sectors = req->dev_sectors[i];
		if (i == 0 && !out.meta_ext)
			t->data_start = ALIGN(out.meta_start + meta_sectors,
					      (u64)TIER_DATA_ALIGN);
		else
			t->data_start = TIER_DATA_ALIGN;
		if (i == 0 && !out.meta_ext && t->dev_sectors < t->data_start)
			return tier_err_set(err, TIER_E_LAYOUT_META_TOO_SMALL,
					    0, t->dev_sectors);
		if (t->dev_sectors < t->data_start ||
		    ((t->dev_sectors - t->data_start) >> shift) == 0)
			return tier_err_set(err, TIER_E_LAYOUT_TIER_TOO_SMALL,
					    i, t->dev_sectors);
		t->nr_extents = (t->dev_sectors - t->data_start) >> shift;
		if (t->nr_extents > TIER_MAX_TIER_EXTENTS)
			return tier_err_set(err, TIER_E_LAYOUT_TIER_TOO_BIG, i,
					    t->nr_extents);
		cap += t->nr_extents;
	}

	max_virt = tier_max_virt_extents(shift);
	if (req->virt_sectors) {
		if (req->virt_sectors & ((1ULL << shift) - 1))
			return tier_err_set(err, TIER_E_LAYOUT_VIRT_UNALIGNED,
					    0, req->virt_sectors);
		virt = req->virt_sectors >> shift;
		if (virt > max_virt)
			return tier_err_set(err, TIER_E_LAYOUT_VIRT_LIMIT, 0,
					    virt);
		if (virt > cap)
			return tier_err_set(err, TIER_E_LAYOUT_VIRT_TOO_BIG, 0,
					    virt);
	} else {
		virt = cap;
		if (virt > max_virt)
			return tier_err_set(err, TIER_E_LAYOUT_VIRT_LIMIT, 0,
					    virt);
	}
	out.virt_extents = virt;
	*lo = out;
	return 0;
}

/* ---- label ------------------------------------------------------------- */

bool tier_name_valid(const char *name)
{
	size_t len = strnlen(name, TIER_NAME_LEN);
	size_t i;

	if (len == 0 || len == TIER_NAME_LEN)
		return false;
	for (i = 0; i < len; i++) {
		if (name[i] <= ' ' || name[i] > '~' || name[i] == '/')
			return false;
	}
	return true;
}

void tier_label_encode(const struct tier_label *l, void *blk)
{
	struct tier_label_disk *d = blk;

	memset(d, 0, sizeof(*d));
	d->version = cpu_to_le32(TIER_FORMAT_VERSION);
	d->magic = cpu_to_le64(TIER_LABEL_MAGIC);
	d->flags = cpu_to_le64(l->flags);
	memcpy(d->uuid, l->uuid, TIER_UUID_LEN);
	memcpy(d->member_uuid, l->member_uuid, TIER_UUID_LEN);
	memcpy(d->name, l->name, strnlen(l->name, TIER_NAME_LEN - 1));
	d->tier_index = cpu_to_le32(l->tier_index);
	d->nr_tiers = cpu_to_le32(l->nr_tiers);
	d->tier_class = cpu_to_le32(l->tier_class);
	d->extent_shift = cpu_to_le32(l->extent_shift);
	d->dev_sectors = cpu_to_le64(l->dev_sectors);
	d->data_start = cpu_to_le64(l->data_start);
	d->nr_extents = cpu_to_le64(l->nr_extents);
	d->meta_start = cpu_to_le64(l->meta_start);
	d->meta_blocks = cpu_to_le64(l->meta_blocks);
	d->virt_extents = cpu_to_le64(l->virt_extents);
	d->ctime = cpu_to_le64(l->ctime);
	d->spare_meta_blocks = cpu_to_le64(l->spare_meta_blocks);
	tier_block_seal(d);
}

/* The name must be valid and NUL-padded to the end of the field. */
static bool tier_label_name_ok(const char *name)
{
	size_t len = strnlen(name, TIER_NAME_LEN), i;

	if (len == TIER_NAME_LEN || !tier_name_valid(name))
		return false;
	for (i = len; i < TIER_NAME_LEN; i++) {
		if (name[i])
			return false;
	}
	return true;
}

/* Geometry checks shared by labels of tiers and of the metadata device. */
static int tier_label_check_fields(const struct tier_label *l,
				   struct tier_err *err)
{
	bool meta_dev = l->tier_index == TIER_META_DEV;
	bool holds_meta = l->flags & TIER_LABEL_F_META;
	bool meta_ext = l->flags & TIER_LABEL_F_META_EXT;
	bool meta_class = l->tier_class == TIER_CLASS_META;
	u32 idx = l->tier_index;

	if (!tier_shift_ok(l->extent_shift))
		return tier_err_set(err, TIER_E_LABEL_EXTENT_SHIFT, idx,
				    l->extent_shift);
	if (l->nr_tiers < 1 || l->nr_tiers > TIER_MAX_TIERS)
		return tier_err_set(err, TIER_E_LABEL_NR_TIERS, idx,
				    l->nr_tiers);
	if (l->tier_index >= l->nr_tiers && !meta_dev)
		return tier_err_set(err, TIER_E_LABEL_TIER_INDEX, idx, idx);
	if (l->tier_class > TIER_CLASS_MAX || l->tier_class == TIER_CLASS_MEM ||
	    meta_class != meta_dev)
		return tier_err_set(err, TIER_E_LABEL_CLASS, idx,
				    l->tier_class);

	/* Exactly one place holds the metadata: tier 0 or a metadata dev. */
	if ((meta_dev && (!holds_meta || !meta_ext)) ||
	    (!meta_dev && idx == 0 && holds_meta == meta_ext) ||
	    (!meta_dev && idx > 0 && holds_meta))
		return tier_err_set(err, TIER_E_LABEL_META, idx, l->flags);
	if (holds_meta) {
		if (l->meta_start < TIER_META_START || !l->meta_blocks ||
		    l->meta_blocks > (U64_MAX >> 3) ||
		    !tier_extents_fit(l->meta_start, l->meta_blocks, 3,
				      meta_dev ? l->dev_sectors :
						 l->data_start))
			return tier_err_set(err, TIER_E_LABEL_META, idx,
					    l->meta_blocks);
	} else if (l->meta_start || l->meta_blocks) {
		return tier_err_set(err, TIER_E_LABEL_META, idx, l->meta_start);
	}
	/* A spare area: on a tier, metadata on the tiers, before the data. */
	if (l->spare_meta_blocks &&
	    (meta_dev || holds_meta || meta_ext ||
	     l->spare_meta_blocks > (U64_MAX >> 3) ||
	     !tier_extents_fit(TIER_META_START, l->spare_meta_blocks, 3,
			       l->data_start)))
		return tier_err_set(err, TIER_E_LABEL_META, idx,
				    l->spare_meta_blocks);

	if (meta_dev) {
		if (l->data_start)
			return tier_err_set(err, TIER_E_LABEL_DATA_START, idx,
					    l->data_start);
		if (l->nr_extents)
			return tier_err_set(err, TIER_E_LABEL_NR_EXTENTS, idx,
					    l->nr_extents);
	} else {
		if (l->data_start < TIER_META_START ||
		    l->data_start % TIER_BLOCK_SECTORS ||
		    l->data_start >= l->dev_sectors)
			return tier_err_set(err, TIER_E_LABEL_DATA_START, idx,
					    l->data_start);
		if (!l->nr_extents || l->nr_extents > TIER_MAX_TIER_EXTENTS ||
		    !tier_extents_fit(l->data_start, l->nr_extents,
				      l->extent_shift, l->dev_sectors))
			return tier_err_set(err, TIER_E_LABEL_NR_EXTENTS, idx,
					    l->nr_extents);
	}
	if (!l->virt_extents ||
	    l->virt_extents > tier_max_virt_extents(l->extent_shift))
		return tier_err_set(err, TIER_E_LABEL_VIRT_EXTENTS, idx,
				    l->virt_extents);
	return 0;
}

int tier_label_decode(const void *blk, struct tier_label *l,
		      struct tier_err *err)
{
	const struct tier_label_disk *d = blk;
	struct tier_label out;
	u32 version;
	int ret;

	if (le64_to_cpu(d->magic) != TIER_LABEL_MAGIC)
		return tier_err_set(err, TIER_E_LABEL_MAGIC, 0,
				    le64_to_cpu(d->magic));
	if (!tier_block_csum_ok(blk))
		return tier_err_set(err, TIER_E_LABEL_CSUM, 0,
				    le32_to_cpu(d->csum));
	version = le32_to_cpu(d->version);
	if (version != TIER_FORMAT_VERSION)
		return tier_err_set(err, TIER_E_LABEL_VERSION, 0, version);

	memset(&out, 0, sizeof(out));
	out.flags = le64_to_cpu(d->flags);
	memcpy(out.uuid, d->uuid, TIER_UUID_LEN);
	memcpy(out.member_uuid, d->member_uuid, TIER_UUID_LEN);
	memcpy(out.name, d->name, TIER_NAME_LEN);
	out.tier_index = le32_to_cpu(d->tier_index);
	out.nr_tiers = le32_to_cpu(d->nr_tiers);
	out.tier_class = le32_to_cpu(d->tier_class);
	out.extent_shift = le32_to_cpu(d->extent_shift);
	out.dev_sectors = le64_to_cpu(d->dev_sectors);
	out.data_start = le64_to_cpu(d->data_start);
	out.nr_extents = le64_to_cpu(d->nr_extents);
	out.meta_start = le64_to_cpu(d->meta_start);
	out.meta_blocks = le64_to_cpu(d->meta_blocks);
	out.virt_extents = le64_to_cpu(d->virt_extents);
	out.ctime = le64_to_cpu(d->ctime);
	out.spare_meta_blocks = le64_to_cpu(d->spare_meta_blocks);

	if (out.flags & ~(u64)TIER_LABEL_F_KNOWN)
		return tier_err_set(err, TIER_E_LABEL_FLAGS, out.tier_index,
				    out.flags);
	if (!tier_label_name_ok(out.name))
		return tier_err_set(err, TIER_E_LABEL_NAME, out.tier_index, 0);
	ret = tier_label_check_fields(&out, err);
	if (ret)
		return ret;
	*l = out;
	return 0;
}

/* ---- superblock -------------------------------------------------------- */

void tier_sb_encode(const struct tier_sb *sb, void *blk)
{
	struct tier_sb_disk *d = blk;
	u32 i;

	memset(d, 0, sizeof(*d));
	d->version = cpu_to_le32(TIER_FORMAT_VERSION);
	d->magic = cpu_to_le64(TIER_SB_MAGIC);
	memcpy(d->uuid, sb->uuid, TIER_UUID_LEN);
	d->generation = cpu_to_le64(sb->generation);
	d->commit_time = cpu_to_le64(sb->commit_time);
	d->ctime = cpu_to_le64(sb->ctime);
	d->virt_extents = cpu_to_le64(sb->virt_extents);
	d->extent_shift = cpu_to_le32(sb->extent_shift);
	d->nr_tiers = cpu_to_le32(sb->nr_tiers);
	d->active_copy = cpu_to_le32(sb->active_copy);
	d->slot = cpu_to_le32(tier_sb_slot(sb->generation));
	d->map_blocks = cpu_to_le64(sb->map_blocks);
	d->map_start[0] = cpu_to_le64(sb->map_start[0]);
	d->map_start[1] = cpu_to_le64(sb->map_start[1]);
	d->compat = cpu_to_le64(sb->compat & TIER_FEATURE_COMPAT_SUPP &
				~TIER_FEATURE_COMPAT_SETTINGS);
	if (sb->settings.count && sb->settings.count <= TIER_SETTINGS_MAX) {
		d->compat |= cpu_to_le64(TIER_FEATURE_COMPAT_SETTINGS);
		d->settings.version = cpu_to_le16(TIER_SETTINGS_VERSION);
		d->settings.count = cpu_to_le16(sb->settings.count);
		for (i = 0; i < sb->settings.count; i++) {
			d->settings.entry[i].id =
				cpu_to_le16(sb->settings.e[i].id);
			d->settings.entry[i].value =
				cpu_to_le32(sb->settings.e[i].value);
		}
	}
	d->incompat = cpu_to_le64(sb->incompat);
	d->ro_compat = cpu_to_le64(sb->ro_compat);
	d->flags = cpu_to_le64(sb->flags);
	d->meta_start = cpu_to_le64(sb->meta_start);
	memcpy(d->meta_uuid, sb->meta_uuid, TIER_UUID_LEN);
	for (i = 0; i < TIER_MAX_TIERS; i++) {
		const struct tier_sb_tier *t = &sb->tier[i];
		struct tier_sb_tier_disk *td = &d->tier[i];

		td->nr_extents = cpu_to_le64(t->nr_extents);
		td->used_extents = cpu_to_le64(t->used_extents);
		td->data_start = cpu_to_le64(t->data_start);
		td->dev_sectors = cpu_to_le64(t->dev_sectors);
		td->flags = cpu_to_le32(t->flags);
		td->tier_class = cpu_to_le32(t->tier_class);
		memcpy(td->member_uuid, t->member_uuid, TIER_UUID_LEN);
	}
	tier_block_seal(d);
}

static bool tier_mem_is_zero(const void *p, size_t len)
{
	const u8 *b = p;

	while (len--) {
		if (*b++)
			return false;
	}
	return true;
}

static int tier_sb_check_tiers(const struct tier_sb *sb, struct tier_err *err)
{
	u64 cap = 0;
	u32 i;

	for (i = 0; i < TIER_MAX_TIERS; i++) {
		const struct tier_sb_tier *t = &sb->tier[i];

		if (i >= sb->nr_tiers) {
			if (!tier_mem_is_zero(t, sizeof(*t)))
				return tier_err_set(err, TIER_E_SB_TIER, i, 0);
			continue;
		}
		if (!t->nr_extents || t->nr_extents > TIER_MAX_TIER_EXTENTS ||
		    t->data_start < TIER_META_START ||
		    !tier_extents_fit(t->data_start, t->nr_extents,
				      sb->extent_shift, t->dev_sectors))
			return tier_err_set(err, TIER_E_SB_TIER, i,
					    t->nr_extents);
		if (t->used_extents > t->nr_extents)
			return tier_err_set(err, TIER_E_SB_TIER, i,
					    t->used_extents);
		if (t->tier_class > TIER_CLASS_MAX ||
		    t->tier_class == TIER_CLASS_MEM ||
		    t->tier_class == TIER_CLASS_META)
			return tier_err_set(err, TIER_E_SB_TIER, i,
					    t->tier_class);
		cap += t->nr_extents;
	}
	if (!sb->virt_extents || sb->virt_extents > cap ||
	    sb->virt_extents > tier_max_virt_extents(sb->extent_shift))
		return tier_err_set(err, TIER_E_SB_VIRT_EXTENTS, 0,
				    sb->virt_extents);
	return 0;
}

static int tier_sb_check_fields(const struct tier_sb *sb, u32 slot,
				struct tier_err *err)
{
	u64 len;
	int ret;

	if (!sb->generation || tier_sb_slot(sb->generation) != slot)
		return tier_err_set(err, TIER_E_SB_GENERATION, slot,
				    sb->generation);
	if (!tier_shift_ok(sb->extent_shift))
		return tier_err_set(err, TIER_E_SB_EXTENT_SHIFT, slot,
				    sb->extent_shift);
	if (sb->nr_tiers < 1 || sb->nr_tiers > TIER_MAX_TIERS)
		return tier_err_set(err, TIER_E_SB_NR_TIERS, slot,
				    sb->nr_tiers);
	if (sb->active_copy > 1)
		return tier_err_set(err, TIER_E_SB_ACTIVE_COPY, slot,
				    sb->active_copy);

	/*
	 * Slots, then copy 0, then copy 1; no overlap, no overflow (the
	 * slots' end, tier_sb_sector(meta_start, 2), must not wrap).
	 */
	if (sb->meta_start < TIER_META_START ||
	    sb->meta_start % TIER_BLOCK_SECTORS ||
	    sb->meta_start > U64_MAX - 2 * TIER_BLOCK_SECTORS)
		return tier_err_set(err, TIER_E_SB_MAP, slot, sb->meta_start);
	if (!sb->map_blocks || sb->map_blocks > TIER_MAX_PEXTS ||
	    sb->map_blocks < tier_map_blocks_for(sb->virt_extents))
		return tier_err_set(err, TIER_E_SB_MAP, slot, sb->map_blocks);
	len = sb->map_blocks * TIER_BLOCK_SECTORS;
	if (sb->map_start[0] < tier_sb_sector(sb->meta_start, 2) ||
	    sb->map_start[0] % TIER_BLOCK_SECTORS ||
	    sb->map_start[0] > U64_MAX - 2 * len)
		return tier_err_set(err, TIER_E_SB_MAP, slot, sb->map_start[0]);
	if (sb->map_start[1] < sb->map_start[0] + len ||
	    sb->map_start[1] % TIER_BLOCK_SECTORS ||
	    sb->map_start[1] > U64_MAX - len)
		return tier_err_set(err, TIER_E_SB_MAP, slot, sb->map_start[1]);
	ret = tier_sb_check_tiers(sb, err);
	if (ret)
		return ret;
	/* On tier 0 the metadata area ends before the data. */
	if (!(sb->flags & TIER_SB_F_META_EXT) &&
	    sb->map_start[1] + len > sb->tier[0].data_start)
		return tier_err_set(err, TIER_E_SB_MAP, slot,
				    sb->tier[0].data_start);
	return 0;
}

int tier_sb_decode(const void *blk, u32 slot, struct tier_sb *sb,
		   struct tier_err *err)
{
	const struct tier_sb_disk *d = blk;
	struct tier_sb out;
	u32 version, i;
	int ret;

	if (le64_to_cpu(d->magic) != TIER_SB_MAGIC)
		return tier_err_set(err, TIER_E_SB_MAGIC, slot,
				    le64_to_cpu(d->magic));
	if (!tier_block_csum_ok(blk))
		return tier_err_set(err, TIER_E_SB_CSUM, slot,
				    le32_to_cpu(d->csum));
	version = le32_to_cpu(d->version);
	if (version != TIER_FORMAT_VERSION)
		return tier_err_set(err, TIER_E_SB_VERSION, slot, version);
	if (le32_to_cpu(d->slot) != slot)
		return tier_err_set(err, TIER_E_SB_SLOT, slot,
				    le32_to_cpu(d->slot));

	memset(&out, 0, sizeof(out));
	memcpy(out.uuid, d->uuid, TIER_UUID_LEN);
	out.generation = le64_to_cpu(d->generation);
	out.commit_time = le64_to_cpu(d->commit_time);
	out.ctime = le64_to_cpu(d->ctime);
	out.virt_extents = le64_to_cpu(d->virt_extents);
	out.extent_shift = le32_to_cpu(d->extent_shift);
	out.nr_tiers = le32_to_cpu(d->nr_tiers);
	out.active_copy = le32_to_cpu(d->active_copy);
	out.map_blocks = le64_to_cpu(d->map_blocks);
	out.map_start[0] = le64_to_cpu(d->map_start[0]);
	out.map_start[1] = le64_to_cpu(d->map_start[1]);
	out.compat = le64_to_cpu(d->compat);
	out.incompat = le64_to_cpu(d->incompat);
	out.ro_compat = le64_to_cpu(d->ro_compat);
	out.flags = le64_to_cpu(d->flags);
	out.meta_start = le64_to_cpu(d->meta_start);
	memcpy(out.meta_uuid, d->meta_uuid, TIER_UUID_LEN);
	for (i = 0; i < TIER_MAX_TIERS; i++) {
		const struct tier_sb_tier_disk *td = &d->tier[i];
		struct tier_sb_tier *t = &out.tier[i];

		t->nr_extents = le64_to_cpu(td->nr_extents);
		t->used_extents = le64_to_cpu(td->used_extents);
		t->data_start = le64_to_cpu(td->data_start);
		t->dev_sectors = le64_to_cpu(td->dev_sectors);
		t->flags = le32_to_cpu(td->flags);
		t->tier_class = le32_to_cpu(td->tier_class);
		memcpy(t->member_uuid, td->member_uuid, TIER_UUID_LEN);
	}
	/* A malformed record is dropped, the superblock stays valid. */
	tier_settings_decode(blk, &out.settings);

	if (out.incompat & ~TIER_FEATURE_INCOMPAT_SUPP)
		return tier_err_set(err, TIER_E_SB_INCOMPAT, slot,
				    out.incompat);
	ret = tier_sb_check_fields(&out, slot, err);
	if (ret)
		return ret;
	*sb = out;
	return 0;
}

int tier_settings_decode(const void *blk, struct tier_settings *s)
{
	const struct tier_sb_disk *d = blk;
	const struct tier_settings_disk *r = &d->settings;
	struct tier_settings out;
	u32 count, i, j;

	memset(s, 0, sizeof(*s));
	if (!(le64_to_cpu(d->compat) & TIER_FEATURE_COMPAT_SETTINGS))
		return 0;
	if (le16_to_cpu(r->version) != TIER_SETTINGS_VERSION)
		return -EPROTO;
	count = le16_to_cpu(r->count);
	if (count > TIER_SETTINGS_MAX || r->reserved)
		return -EUCLEAN;
	memset(&out, 0, sizeof(out));
	for (i = 0; i < TIER_SETTINGS_MAX; i++) {
		const struct tier_setting_disk *e = &r->entry[i];

		if (i >= count) {
			if (!tier_mem_is_zero(e, sizeof(*e)))
				return -EUCLEAN;
			continue;
		}
		if (!e->id || e->reserved)
			return -EUCLEAN;
		out.e[i].id = le16_to_cpu(e->id);
		out.e[i].value = le32_to_cpu(e->value);
		for (j = 0; j < i; j++)
			if (out.e[j].id == out.e[i].id)
				return -EUCLEAN;
	}
	out.count = count;
	*s = out;
	return 0;
}

int tier_settings_get(const struct tier_settings *s, u16 id, u32 *value)
{
	u32 i;

	for (i = 0; i < s->count && i < TIER_SETTINGS_MAX; i++) {
		if (s->e[i].id == id) {
			*value = s->e[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

int tier_settings_put(struct tier_settings *s, u16 id, u32 value)
{
	u32 i;

	if (!id)
		return -EINVAL;
	for (i = 0; i < s->count && i < TIER_SETTINGS_MAX; i++) {
		if (s->e[i].id == id) {
			s->e[i].value = value;
			return 0;
		}
	}
	if (s->count >= TIER_SETTINGS_MAX)
		return -ENOSPC;
	s->e[s->count].id = id;
	s->e[s->count].value = value;
	s->count++;
	return 0;
}

int tier_sb_pick(const struct tier_sb sb[2], const int ret[2],
		 struct tier_err *err)
{
	int e = 0;

	/*
	 * A slot of a newer version or with unknown incompat features was
	 * written by newer code, most likely after the other slot: falling
	 * back to the older slot would roll the device back and then
	 * overwrite the newer superblock. Only a slot that is unreadable
	 * (never written, torn: bad magic or checksum) may be passed over.
	 */
	if (ret[0] == -EPROTO || ret[1] == -EPROTO)
		e = -EPROTO;
	else if (ret[0] == -EOPNOTSUPP || ret[1] == -EOPNOTSUPP)
		e = -EOPNOTSUPP;
	else if (ret[0] && ret[1])
		e = -EUCLEAN;
	if (e)
		return tier_fail_errno(err, TIER_E_SB_NONE_VALID, e, 0, 0);
	if (ret[0])
		return 1;
	if (ret[1])
		return 0;
	if (memcmp(sb[0].uuid, sb[1].uuid, TIER_UUID_LEN))
		return tier_err_set(err, TIER_E_SB_UUID_MISMATCH, 0, 0);
	/* Equal generations are impossible: each slot holds one parity. */
	return sb[1].generation > sb[0].generation ? 1 : 0;
}

bool tier_sb_needs_ro(const struct tier_sb *sb)
{
	return (sb->ro_compat & ~TIER_FEATURE_RO_COMPAT_SUPP) != 0;
}

int tier_label_check_sb(const struct tier_label *l, const struct tier_sb *sb,
			u32 expect_index, struct tier_err *err)
{
	bool expect_meta = expect_index == TIER_META_DEV;
	bool label_meta = l->tier_index == TIER_META_DEV;
	const struct tier_sb_tier *t;
	u32 idx = expect_index;

	/*
	 * The superblock is authoritative for the tier list: a tier's label
	 * matches by member UUID and geometry at its position; its tier index
	 * and tier count are hints (docs/FORMAT.md "Tier list changes").
	 */
	if (memcmp(l->uuid, sb->uuid, TIER_UUID_LEN) ||
	    l->extent_shift != sb->extent_shift)
		return tier_err_set(err, TIER_E_LABEL_SB_MISMATCH, idx,
				    l->tier_index);
	if (expect_meta != label_meta)
		return tier_err_set(err, TIER_E_LABEL_SB_MISMATCH, idx,
				    l->tier_index);
	if (expect_index == TIER_META_DEV) {
		if (!(sb->flags & TIER_SB_F_META_EXT) ||
		    memcmp(l->member_uuid, sb->meta_uuid, TIER_UUID_LEN) ||
		    l->meta_start != sb->meta_start)
			return tier_err_set(err, TIER_E_LABEL_SB_MISMATCH, idx,
					    0);
		/*
		 * The map copies inside the label's area, which the label
		 * check keeps within the device (on tier 0 the superblock's
		 * own check keeps them before the data).
		 */
		if (sb->map_start[1] + sb->map_blocks * TIER_BLOCK_SECTORS >
		    l->meta_start + l->meta_blocks * TIER_BLOCK_SECTORS)
			return tier_err_set(err, TIER_E_LABEL_SB_MISMATCH, idx,
					    sb->map_blocks);
		return 0;
	}
	if (expect_index >= sb->nr_tiers)
		return tier_err_set(err, TIER_E_LABEL_SB_MISMATCH, idx, idx);
	t = &sb->tier[expect_index];
	/*
	 * A grown tier's label is rewritten after the commit that grew it
	 * (docs/FORMAT.md "Resizing"): until then it says fewer extents on a
	 * smaller device, never more.
	 */
	if (memcmp(l->member_uuid, t->member_uuid, TIER_UUID_LEN) ||
	    l->data_start != t->data_start || l->nr_extents > t->nr_extents ||
	    l->dev_sectors > t->dev_sectors ||
	    !!(l->flags & TIER_LABEL_F_META_EXT) !=
		    !!(sb->flags & TIER_SB_F_META_EXT))
		return tier_err_set(err, TIER_E_LABEL_SB_MISMATCH, idx,
				    l->nr_extents);
	if ((l->flags & TIER_LABEL_F_META) && l->meta_start != sb->meta_start)
		return tier_err_set(err, TIER_E_LABEL_SB_MISMATCH, idx,
				    l->meta_start);
	/*
	 * Tier 0 holds the metadata without a metadata device: by its label,
	 * or, right after replace-tier moved the metadata to it and before
	 * tierctl rewrote its label, in its spare area (docs/FORMAT.md
	 * "Replacing tier 0").
	 */
	if (!expect_index && !(sb->flags & TIER_SB_F_META_EXT) &&
	    !(l->flags & TIER_LABEL_F_META) &&
	    (l->spare_meta_blocks != 2 + 2 * sb->map_blocks ||
	     sb->meta_start != TIER_META_START))
		return tier_err_set(err, TIER_E_LABEL_SB_MISMATCH, idx,
				    l->spare_meta_blocks);
	return 0;
}

bool tier_label_meta_area(const struct tier_label *l, sector_t *start,
			  u64 *blocks)
{
	sector_t s = 0;
	u64 b = 0;

	if (l->flags & TIER_LABEL_F_META) {
		s = l->meta_start;
		b = l->meta_blocks;
	} else if (l->spare_meta_blocks) {
		s = TIER_META_START;
		b = l->spare_meta_blocks;
	}
	if (start)
		*start = s;
	if (blocks)
		*blocks = b;
	return b != 0;
}

int tier_label_sb_index(const struct tier_label *l, const struct tier_sb *sb)
{
	u32 i;

	if (memcmp(l->uuid, sb->uuid, TIER_UUID_LEN) ||
	    l->tier_index == TIER_META_DEV)
		return -1;
	for (i = 0; i < sb->nr_tiers && i < TIER_MAX_TIERS; i++)
		if (!memcmp(l->member_uuid, sb->tier[i].member_uuid,
			    TIER_UUID_LEN))
			return i;
	return -1;
}

int tier_label_check_new(const struct tier_label *l, const struct tier_sb *sb,
			 u32 index, sector_t dev_sectors, struct tier_err *err)
{
	if (memcmp(l->uuid, sb->uuid, TIER_UUID_LEN) ||
	    l->extent_shift != sb->extent_shift ||
	    l->tier_index == TIER_META_DEV)
		return tier_err_set(err, TIER_E_LABEL_SB_MISMATCH, index,
				    l->tier_index);
	/* Appended or inserted; tier 0 is never replaced. */
	if (!index || index > sb->nr_tiers || sb->nr_tiers >= TIER_MAX_TIERS ||
	    l->tier_index != index)
		return tier_err_set(err, TIER_E_LABEL_SB_MISMATCH, index,
				    l->tier_index);
	if ((l->flags & TIER_LABEL_F_META) ||
	    !!(l->flags & TIER_LABEL_F_META_EXT) !=
		    !!(sb->flags & TIER_SB_F_META_EXT) ||
	    tier_label_sb_index(l, sb) >= 0 ||
	    !memcmp(l->member_uuid, sb->meta_uuid, TIER_UUID_LEN))
		return tier_err_set(err, TIER_E_LABEL_SB_MISMATCH, index,
				    l->flags);
	if (!l->nr_extents || l->data_start < TIER_DATA_ALIGN ||
	    l->dev_sectors > dev_sectors ||
	    !tier_extents_fit(l->data_start, l->nr_extents, l->extent_shift,
			      l->dev_sectors))
		return tier_err_set(err, TIER_E_LABEL_SB_MISMATCH, index,
				    l->nr_extents);
	return 0;
}

void tier_sb_tier_from_label(const struct tier_label *l, struct tier_sb_tier *t)
{
	memset(t, 0, sizeof(*t));
	t->nr_extents = l->nr_extents;
	t->data_start = l->data_start;
	t->dev_sectors = l->dev_sectors;
	t->tier_class = l->tier_class;
	memcpy(t->member_uuid, l->member_uuid, TIER_UUID_LEN);
}

int tier_sb_set_tier_count(struct tier_sb *sb, u32 nr_tiers,
			   const struct tier_sb_tier *added)
{
	if (nr_tiers < 1 || nr_tiers > TIER_MAX_TIERS)
		return -EINVAL;
	if (nr_tiers == sb->nr_tiers + 1) {
		if (!added)
			return -EINVAL;
		sb->tier[sb->nr_tiers] = *added;
		sb->tier[sb->nr_tiers].used_extents = 0;
	} else if (nr_tiers + 1 == sb->nr_tiers) {
		memset(&sb->tier[nr_tiers], 0, sizeof(sb->tier[nr_tiers]));
	} else {
		return -EINVAL;
	}
	sb->nr_tiers = nr_tiers;
	return 0;
}

int tier_sb_insert_tier(struct tier_sb *sb, u32 pos,
			const struct tier_sb_tier *added)
{
	u32 i;

	if (!added || !pos || pos > sb->nr_tiers ||
	    sb->nr_tiers >= TIER_MAX_TIERS)
		return -EINVAL;
	for (i = sb->nr_tiers; i > pos; i--)
		sb->tier[i] = sb->tier[i - 1];
	sb->tier[pos] = *added;
	sb->tier[pos].used_extents = 0;
	sb->nr_tiers++;
	return 0;
}

int tier_sb_remove_tier(struct tier_sb *sb, u32 pos)
{
	u64 cap = 0;
	u32 i;

	if (pos >= sb->nr_tiers || sb->nr_tiers > TIER_MAX_TIERS ||
	    sb->nr_tiers < 2)
		return -EINVAL;
	/* Tier 1 becomes tier 0: on the tiers, the metadata precedes its data. */
	if (!pos && !(sb->flags & TIER_SB_F_META_EXT) &&
	    sb->tier[1].data_start <
		    sb->map_start[1] + sb->map_blocks * TIER_BLOCK_SECTORS)
		return -EINVAL;
	/* The superblock's check: the virtual size fits the capacity. */
	for (i = 0; i < sb->nr_tiers; i++)
		if (i != pos)
			cap += sb->tier[i].nr_extents;
	if (cap < sb->virt_extents)
		return -ENOSPC;
	for (i = pos; i + 1 < sb->nr_tiers; i++)
		sb->tier[i] = sb->tier[i + 1];
	sb->nr_tiers--;
	memset(&sb->tier[sb->nr_tiers], 0, sizeof(sb->tier[sb->nr_tiers]));
	return 0;
}

/* ---- resize ------------------------------------------------------------ */

u64 tier_sb_max_virt(const struct tier_sb *sb, enum tier_resize_bound *bound)
{
	u64 room = sb->map_blocks * TIER_MAP_ENTRIES, cap = 0, limit, max;
	enum tier_resize_bound b = TIER_RESIZE_BOUND_MAP;
	u32 i;

	for (i = 0; i < sb->nr_tiers && i < TIER_MAX_TIERS; i++)
		cap += sb->tier[i].nr_extents; /* each <= 2^32 */
	limit = tier_max_virt_extents(sb->extent_shift);
	max = room;
	if (cap < max) {
		max = cap;
		b = TIER_RESIZE_BOUND_CAPACITY;
	}
	if (limit < max) {
		max = limit;
		b = TIER_RESIZE_BOUND_BYTES;
	}
	if (bound)
		*bound = b;
	return max;
}

int tier_sb_tier_grown(const struct tier_sb *sb, u32 tier, sector_t dev_sectors,
		       struct tier_sb_tier *rec)
{
	const struct tier_sb_tier *t;
	u64 nr;

	if (tier >= sb->nr_tiers || tier >= TIER_MAX_TIERS ||
	    !tier_shift_ok(sb->extent_shift))
		return -EINVAL;
	t = &sb->tier[tier];
	*rec = *t;
	if (dev_sectors < t->dev_sectors)
		return -ENOSPC;
	if (dev_sectors < t->data_start)
		return -EINVAL;
	/* A tier holds at most 2^32 extents; the rest of the device idles. */
	nr = min_t(u64, (dev_sectors - t->data_start) >> sb->extent_shift,
		   TIER_MAX_TIER_EXTENTS);
	if (nr <= t->nr_extents)
		return 0;
	rec->nr_extents = nr;
	rec->dev_sectors = dev_sectors;
	return 1;
}

int tier_sb_resize(struct tier_sb *sb, const struct tier_sb_tier *recs,
		   u64 virt, struct tier_err *err)
{
	struct tier_sb n = *sb;
	u64 max;
	u32 i;

	for (i = 0; recs && i < n.nr_tiers && i < TIER_MAX_TIERS; i++) {
		const struct tier_sb_tier *r = &recs[i];
		struct tier_sb_tier *t = &n.tier[i];

		/* Only growth: the data area never moves or shrinks. */
		if (r->nr_extents < t->nr_extents ||
		    r->dev_sectors < t->dev_sectors ||
		    r->nr_extents > TIER_MAX_TIER_EXTENTS ||
		    !tier_shift_ok(n.extent_shift) ||
		    !tier_extents_fit(t->data_start, r->nr_extents,
				      n.extent_shift, r->dev_sectors))
			return tier_fail_errno(err, TIER_E_SB_TIER, -EINVAL, i,
					       r->nr_extents);
		t->nr_extents = r->nr_extents;
		t->dev_sectors = r->dev_sectors;
	}
	max = tier_sb_max_virt(&n, NULL);
	if (!virt)
		return tier_fail_errno(err, TIER_E_SB_VIRT_EXTENTS, -EINVAL, 0,
				       0);
	if (virt > max)
		return tier_fail_errno(err, TIER_E_SB_VIRT_EXTENTS, -ENOSPC, 0,
				       max);
	n.virt_extents = virt;
	*sb = n;
	return 0;
}

/* ---- map blocks -------------------------------------------------------- */

sector_t tier_map_block_sector(const struct tier_sb *sb, u32 copy, u64 index)
{
	return sb->map_start[copy & 1] + index * TIER_BLOCK_SECTORS;
}

void tier_map_block_init(void *blk, const struct tier_sb *sb, u32 copy,
			 u64 index)
{
	struct tier_map_block_disk *d = blk;

	memset(d, 0, sizeof(*d));
	d->magic = cpu_to_le32(TIER_MAP_MAGIC);
	d->block_index = cpu_to_le64(index);
	d->generation = cpu_to_le64(sb->generation);
	d->copy = cpu_to_le32(copy);
	d->uuid_csum = cpu_to_le32(tier_uuid_csum(sb->uuid));
}

void tier_map_block_set(void *blk, u32 i, const struct tier_map_entry *e)
{
	struct tier_map_entry_disk *d =
		&((struct tier_map_block_disk *)blk)->entry[i];

	d->map = cpu_to_le64(e->word);
	d->heat = cpu_to_le16(e->heat);
	d->flags = cpu_to_le16(e->flags);
	d->atime = cpu_to_le32(e->atime);
}

void tier_map_block_get(const void *blk, u32 i, struct tier_map_entry *e)
{
	const struct tier_map_entry_disk *d =
		&((const struct tier_map_block_disk *)blk)->entry[i];

	e->word = le64_to_cpu(d->map);
	e->heat = le16_to_cpu(d->heat);
	e->flags = le16_to_cpu(d->flags);
	e->atime = le32_to_cpu(d->atime);
}

void tier_map_block_seal(void *blk)
{
	tier_block_seal(blk);
}

static int tier_map_check_entry(const struct tier_map_entry *e,
				const struct tier_sb *sb, u64 vext,
				struct tier_err *err)
{
	u32 tier;
	u64 pext;

	if (!(e->word & TIER_MAPW_MAPPED)) {
		if (e->word || e->heat || e->flags || e->atime)
			return tier_err_set(err, TIER_E_MAP_ENTRY_UNMAPPED,
					    vext, e->word);
		return 0;
	}
	if (e->word & TIER_MAPW_RSVD_MASK)
		return tier_err_set(err, TIER_E_MAP_ENTRY_RESERVED, vext,
				    e->word);
	if (vext >= sb->virt_extents)
		return tier_err_set(err, TIER_E_MAP_ENTRY_BEYOND, vext,
				    e->word);
	tier = (e->word & TIER_MAPW_TIER_MASK) >> TIER_MAPW_TIER_SHIFT;
	if (tier >= sb->nr_tiers)
		return tier_err_set(err, TIER_E_MAP_ENTRY_TIER, vext, tier);
	pext = e->word & TIER_MAPW_PEXT_MASK;
	if (pext >= sb->tier[tier].nr_extents)
		return tier_err_set(err, TIER_E_MAP_ENTRY_PEXT, vext, pext);
	return 0;
}

int tier_map_block_check(const void *blk, const struct tier_sb *sb, u32 copy,
			 u64 index, struct tier_err *err)
{
	const struct tier_map_block_disk *d = blk;
	struct tier_map_entry e;
	u64 vext = index * TIER_MAP_ENTRIES;
	u32 i;
	int ret;

	if (le32_to_cpu(d->magic) != TIER_MAP_MAGIC)
		return tier_err_set(err, TIER_E_MAP_MAGIC, index,
				    le32_to_cpu(d->magic));
	if (!tier_block_csum_ok(blk))
		return tier_err_set(err, TIER_E_MAP_CSUM, index,
				    le32_to_cpu(d->csum));
	if (le64_to_cpu(d->block_index) != index)
		return tier_err_set(err, TIER_E_MAP_INDEX, index,
				    le64_to_cpu(d->block_index));
	if (le32_to_cpu(d->copy) != copy)
		return tier_err_set(err, TIER_E_MAP_COPY, index,
				    le32_to_cpu(d->copy));
	if (le32_to_cpu(d->uuid_csum) != tier_uuid_csum(sb->uuid))
		return tier_err_set(err, TIER_E_MAP_UUID, index,
				    le32_to_cpu(d->uuid_csum));
	if (le64_to_cpu(d->generation) > sb->generation)
		return tier_err_set(err, TIER_E_MAP_GENERATION, index,
				    le64_to_cpu(d->generation));
	for (i = 0; i < TIER_MAP_ENTRIES; i++) {
		tier_map_block_get(blk, i, &e);
		ret = tier_map_check_entry(&e, sb, vext + i, err);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- fresh metadata ---------------------------------------------------- */

static bool tier_layout_equal(const struct tier_layout *a,
			      const struct tier_layout *b)
{
	u32 i;

	if (a->nr_tiers != b->nr_tiers || a->extent_shift != b->extent_shift ||
	    a->meta_ext != b->meta_ext || a->virt_extents != b->virt_extents ||
	    a->map_blocks != b->map_blocks ||
	    a->meta_dev_sectors != b->meta_dev_sectors ||
	    a->meta_start != b->meta_start ||
	    a->meta_blocks != b->meta_blocks ||
	    a->map_start[0] != b->map_start[0] ||
	    a->map_start[1] != b->map_start[1])
		return false;
	for (i = 0; i < a->nr_tiers; i++) {
		if (a->tier[i].dev_sectors != b->tier[i].dev_sectors ||
		    a->tier[i].data_start != b->tier[i].data_start ||
		    a->tier[i].nr_extents != b->tier[i].nr_extents)
			return false;
	}
	return true;
}

static int tier_fresh_check_layout(const struct tier_layout *lo,
				   struct tier_err *err)
{
	struct tier_layout_req req;
	struct tier_layout again;
	u32 i;
	int ret;

	/* A layout is consistent when recomputing it gives it back. */
	memset(&req, 0, sizeof(req));
	req.nr_tiers = lo->nr_tiers;
	req.extent_shift = lo->extent_shift;
	for (i = 0; i < lo->nr_tiers && i < TIER_MAX_TIERS; i++)
		req.dev_sectors[i] = lo->tier[i].dev_sectors;
	if (lo->extent_shift <= TIER_EXTENT_SHIFT_MAX &&
	    lo->virt_extents <= (U64_MAX >> lo->extent_shift))
		req.virt_sectors = lo->virt_extents << lo->extent_shift;
	req.meta_dev_sectors = lo->meta_ext ? lo->meta_dev_sectors : 0;
	/* Map room reserved beyond the raw capacity (create --max-size). */
	if (lo->map_blocks <= TIER_MAX_PEXTS)
		req.map_extents = lo->map_blocks * TIER_MAP_ENTRIES;
	ret = tier_layout_compute(&req, &again, err);
	if (ret)
		return ret;
	if (!tier_layout_equal(&again, lo))
		return tier_fail_errno(err, TIER_E_FRESH_PARAM, -EUCLEAN, 0, 0);
	return 0;
}

int tier_fresh_check(const struct tier_fresh *f, struct tier_err *err)
{
	u32 i, class;

	if (strnlen(f->name, TIER_NAME_LEN) == TIER_NAME_LEN ||
	    !tier_name_valid(f->name))
		return tier_err_set(err, TIER_E_FRESH_PARAM, 0, 0);
	for (i = 0; i < f->lo.nr_tiers && i < TIER_MAX_TIERS; i++) {
		class = f->tier_class[i];
		if (class == TIER_CLASS_MEM)
			return tier_fail_errno(err, TIER_E_FRESH_PARAM,
					       -EOPNOTSUPP, i, class);
		if (class > TIER_CLASS_MAX || class == TIER_CLASS_META)
			return tier_err_set(err, TIER_E_FRESH_PARAM, i, class);
	}
	return tier_fresh_check_layout(&f->lo, err);
}

void tier_fresh_sb(const struct tier_fresh *f, struct tier_sb *sb)
{
	const struct tier_layout *lo = &f->lo;
	u32 i;

	memset(sb, 0, sizeof(*sb));
	memcpy(sb->uuid, f->uuid, TIER_UUID_LEN);
	sb->generation = 1;
	sb->commit_time = f->ctime;
	sb->ctime = f->ctime;
	sb->virt_extents = lo->virt_extents;
	sb->extent_shift = lo->extent_shift;
	sb->nr_tiers = lo->nr_tiers;
	sb->active_copy = 0;
	sb->map_blocks = lo->map_blocks;
	sb->map_start[0] = lo->map_start[0];
	sb->map_start[1] = lo->map_start[1];
	sb->meta_start = lo->meta_start;
	if (lo->meta_ext) {
		sb->flags |= TIER_SB_F_META_EXT;
		memcpy(sb->meta_uuid, f->member_uuid[TIER_META_DEV],
		       TIER_UUID_LEN);
	}
	for (i = 0; i < lo->nr_tiers; i++) {
		struct tier_sb_tier *t = &sb->tier[i];

		t->nr_extents = lo->tier[i].nr_extents;
		t->data_start = lo->tier[i].data_start;
		t->dev_sectors = lo->tier[i].dev_sectors;
		t->tier_class = f->tier_class[i];
		memcpy(t->member_uuid, f->member_uuid[i], TIER_UUID_LEN);
	}
}

void tier_fresh_label(const struct tier_fresh *f, u32 dev, struct tier_label *l)
{
	const struct tier_layout *lo = &f->lo;
	bool holds_meta = lo->meta_ext ? dev == TIER_META_DEV : dev == 0;

	memset(l, 0, sizeof(*l));
	memcpy(l->uuid, f->uuid, TIER_UUID_LEN);
	memcpy(l->member_uuid, f->member_uuid[dev], TIER_UUID_LEN);
	memcpy(l->name, f->name, strnlen(f->name, TIER_NAME_LEN - 1));
	l->tier_index = dev;
	l->nr_tiers = lo->nr_tiers;
	l->extent_shift = lo->extent_shift;
	l->virt_extents = lo->virt_extents;
	l->ctime = f->ctime;
	if (lo->meta_ext)
		l->flags |= TIER_LABEL_F_META_EXT;
	if (holds_meta) {
		l->flags |= TIER_LABEL_F_META;
		l->meta_start = lo->meta_start;
		l->meta_blocks = lo->meta_blocks;
	}
	if (dev == TIER_META_DEV) {
		l->tier_class = TIER_CLASS_META;
		l->dev_sectors = lo->meta_dev_sectors;
		return;
	}
	l->tier_class = f->tier_class[dev];
	l->dev_sectors = lo->tier[dev].dev_sectors;
	l->data_start = lo->tier[dev].data_start;
	l->nr_extents = lo->tier[dev].nr_extents;
}

u64 tier_fresh_nr_blocks(const struct tier_fresh *f)
{
	return 2 * f->lo.map_blocks + 2 + f->lo.nr_tiers + f->lo.meta_ext;
}

int tier_fresh_block(const struct tier_fresh *f, u64 n,
		     struct tier_blk_loc *loc, void *blk)
{
	const struct tier_layout *lo = &f->lo;
	u32 meta_dev = lo->meta_ext ? TIER_META_DEV : 0;
	struct tier_label l;
	struct tier_sb sb;
	u32 copy;

	if (n >= tier_fresh_nr_blocks(f))
		return -EINVAL;
	tier_fresh_sb(f, &sb);
	if (n < 2 * lo->map_blocks) {
		copy = n >= lo->map_blocks;
		n -= copy * lo->map_blocks;
		tier_map_block_init(blk, &sb, copy, n);
		tier_map_block_seal(blk);
		loc->dev = meta_dev;
		loc->sector = tier_map_block_sector(&sb, copy, n);
		return 0;
	}
	n -= 2 * lo->map_blocks;
	if (n < 2) {
		loc->dev = meta_dev;
		loc->sector = tier_sb_sector(lo->meta_start, n);
		if (n == tier_sb_slot(sb.generation))
			tier_sb_encode(&sb, blk);
		else
			memset(blk, 0, TIER_BLOCK_SIZE);
		return 0;
	}
	n -= 2;
	if (lo->meta_ext) {
		if (n == 0) {
			loc->dev = TIER_META_DEV;
			loc->sector = 0;
			tier_fresh_label(f, TIER_META_DEV, &l);
			tier_label_encode(&l, blk);
			return 0;
		}
		n--;
	}
	loc->dev = n;
	loc->sector = 0;
	tier_fresh_label(f, n, &l);
	tier_label_encode(&l, blk);
	return 0;
}
