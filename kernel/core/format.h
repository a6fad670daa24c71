/* SPDX-License-Identifier: GPL-2.0 */
/*
 * format.h - dm-tier on-disk format version 1 (see docs/FORMAT.md).
 *
 * Every on-disk block is TIER_BLOCK_SIZE bytes, little-endian, and starts
 * with a 4-byte checksum: crc32c(~0, block + 4, TIER_BLOCK_SIZE - 4), stored
 * as computed (not inverted). The *_disk structs are the exact byte layout;
 * code works on the cpu-endian structs and converts with the encode/decode
 * helpers below, which also validate. Pure logic: no I/O, no locks.
 */
#ifndef DM_TIER_CORE_FORMAT_H
#define DM_TIER_CORE_FORMAT_H

#include "tier-internal.h"

/*
 * The on-disk layout below is a table: aligned constants and byte offsets
 * matter more than the formatter's taste.
 */
/* clang-format off */

#define TIER_FORMAT_VERSION	1
#define TIER_BLOCK_SIZE		4096
#define TIER_SECTOR_SHIFT	9		/* 512-byte sectors */
#define TIER_BLOCK_SECTORS	8		/* sectors per block */
#define TIER_MAX_TIERS		8
#define TIER_META_DEV		TIER_MAX_TIERS	/* device index: metadata dev */
#define TIER_MAX_DEVS		(TIER_MAX_TIERS + 1)
#define TIER_EXTENT_SHIFT_MIN	7		/* 64 KiB extents */
#define TIER_EXTENT_SHIFT_MAX	17		/* 64 MiB extents */
#define TIER_EXTENT_SHIFT_DEF	11		/* 1 MiB extents */
#define TIER_DATA_ALIGN		2048		/* sectors (1 MiB) */
#define TIER_META_START		8		/* sector after the label */
#define TIER_NAME_LEN		64
#define TIER_UUID_LEN		16
#define TIER_PEXT_BITS		48
#define TIER_MAX_PEXTS		BIT_ULL(TIER_PEXT_BITS)	/* virtual extents */
/*
 * Physical extents per tier: the in-memory map word keeps 32 bits of them
 * (docs/ARCHITECTURE.md "Memory"); the on-disk word has room for 48.
 */
#define TIER_MAX_TIER_EXTENTS	BIT_ULL(32)

#define TIER_LABEL_MAGIC	0x424c524549544d44ULL	/* "DMTIERLB" */
#define TIER_SB_MAGIC		0x4253524549544d44ULL	/* "DMTIERSB" */
#define TIER_MAP_MAGIC		0x50414d54U		/* "TMAP" */

/* Persisted settings record (superblock 0x300..0x3ff). */
#define TIER_SETTINGS_VERSION	1
#define TIER_SETTINGS_MAX	31	/* (id, value) pairs that fit */

/* Map word (on disk and in memory): see docs/FORMAT.md "Map word". */
#define TIER_MAPW_MAPPED	BIT_ULL(63)
#define TIER_MAPW_RSVD_MASK	(0x7ULL << 60)	/* must be zero in v1 */
#define TIER_MAPW_TIER_SHIFT	56
#define TIER_MAPW_TIER_MASK	(0xfULL << TIER_MAPW_TIER_SHIFT)
#define TIER_MAPW_FLAGS_SHIFT	48
#define TIER_MAPW_FLAGS_MASK	(0xffULL << TIER_MAPW_FLAGS_SHIFT)
#define TIER_MAPW_PEXT_MASK	(TIER_MAX_PEXTS - 1)

/*
 * Extent flags (map word bits 48..55); a map entry with an undefined bit is
 * refused at load (TIER_E_MAP_ENTRY_FLAGS, tier_map_load_block()).
 */
#define TIER_EXT_F_PINNED	0x01	/* migration must not move it */
#define TIER_EXT_F_MEMRES	0x02	/* keep a copy resident in the memory tier */

/* Label flags; an unknown bit makes the label unusable (-EOPNOTSUPP). */
#define TIER_LABEL_F_META	BIT(0)	/* this device holds the metadata */
#define TIER_LABEL_F_META_EXT	BIT(1)	/* metadata is on a separate device */
#define TIER_LABEL_F_KNOWN	(TIER_LABEL_F_META | TIER_LABEL_F_META_EXT)

/* Superblock flags (v1 knows these; others are preserved). */
#define TIER_SB_F_META_EXT	BIT(0)	/* metadata is on a separate device */

/*
 * Per-tier record flags (struct tier_sb_tier.flags); bits a module does not
 * know are preserved and ignored.
 */
#define TIER_SB_TIER_F_EVACUATE	BIT(0)	/* evacuated: takes no new extents */

/*
 * Compat feature bits. An old writer drops them, and their data with them
 * (docs/FORMAT.md "Versioning").
 */
#define TIER_FEATURE_COMPAT_SETTINGS	BIT_ULL(0)	/* settings record */

/* Feature masks this code supports (see docs/FORMAT.md "Versioning"). */
#define TIER_FEATURE_COMPAT_SUPP	TIER_FEATURE_COMPAT_SETTINGS
#define TIER_FEATURE_INCOMPAT_SUPP	0ULL
#define TIER_FEATURE_RO_COMPAT_SUPP	0ULL

/**
 * enum tier_class - what kind of storage a device is.
 * @TIER_CLASS_UNKNOWN: not said.
 * @TIER_CLASS_NVME:    local NVMe / SSD.
 * @TIER_CLASS_NVMF:    NVMe over Fabrics (may disappear and reconnect).
 * @TIER_CLASS_PMEM:    CXL / persistent memory block device.
 * @TIER_CLASS_MEM:     volatile memory; reserved, rejected by v1.
 * @TIER_CLASS_META:    separate metadata device, holds no data.
 * @TIER_CLASS_MAX:     highest defined value.
 */
enum tier_class {
	TIER_CLASS_UNKNOWN = 0,
	TIER_CLASS_NVME = 1,
	TIER_CLASS_NVMF = 2,
	TIER_CLASS_PMEM = 3,
	TIER_CLASS_MEM = 4,
	TIER_CLASS_META = 5,
	TIER_CLASS_MAX = TIER_CLASS_META,
};

/* ---- on-disk structures ------------------------------------------------ */

/**
 * struct tier_label_disk - block 0 of every member device.
 * @csum:         block checksum (tier_block_csum()).
 * @version:      TIER_FORMAT_VERSION.
 * @magic:        TIER_LABEL_MAGIC.
 * @flags:        TIER_LABEL_F_*.
 * @uuid:         virtual device UUID.
 * @member_uuid:  this member's UUID.
 * @name:         device name, NUL-padded.
 * @tier_index:   tier position, or TIER_META_DEV.
 * @nr_tiers:     number of tiers.
 * @tier_class:   enum tier_class.
 * @extent_shift: log2(extent sectors).
 * @dev_sectors:  device size at creation.
 * @data_start:   sector of physical extent 0.
 * @nr_extents:   physical extents on this tier.
 * @meta_start:   metadata area start.
 * @meta_blocks:  metadata area length in blocks.
 * @virt_extents: virtual size at creation.
 * @ctime:        creation time.
 * @spare_meta_blocks: length of a metadata area reserved (not used yet)
 *                at TIER_META_START on a tier that is to become tier 0;
 *                0 for none (reserved space of v1: older code ignores it).
 * @reserved:     zero.
 *
 * Field meanings: see struct tier_label and docs/FORMAT.md.
 */
struct tier_label_disk {
	__le32 csum;			/* 0x000 */
	__le32 version;			/* 0x004 */
	__le64 magic;			/* 0x008 */
	__le64 flags;			/* 0x010 */
	u8 uuid[TIER_UUID_LEN];		/* 0x018 */
	u8 member_uuid[TIER_UUID_LEN];	/* 0x028 */
	char name[TIER_NAME_LEN];	/* 0x038 */
	__le32 tier_index;		/* 0x078 */
	__le32 nr_tiers;		/* 0x07c */
	__le32 tier_class;		/* 0x080 */
	__le32 extent_shift;		/* 0x084 */
	__le64 dev_sectors;		/* 0x088 */
	__le64 data_start;		/* 0x090 */
	__le64 nr_extents;		/* 0x098 */
	__le64 meta_start;		/* 0x0a0 */
	__le64 meta_blocks;		/* 0x0a8 */
	__le64 virt_extents;		/* 0x0b0 */
	__le64 ctime;			/* 0x0b8 */
	__le64 spare_meta_blocks;	/* 0x0c0 */
	u8 reserved[3896];		/* 0x0c8 */
} __packed;
static_assert(sizeof(struct tier_label_disk) == TIER_BLOCK_SIZE);

/**
 * struct tier_sb_tier_disk - per-tier record inside the superblock.
 * @nr_extents:   physical extents.
 * @used_extents: extents mapped at the commit.
 * @data_start:   sector of physical extent 0.
 * @dev_sectors:  device size at creation.
 * @flags:        tier state.
 * @tier_class:   enum tier_class.
 * @member_uuid:  member UUID of the tier's device.
 * @reserved:     zero.
 *
 * Field meanings: see struct tier_sb_tier.
 */
struct tier_sb_tier_disk {
	__le64 nr_extents;		/* 0x00 */
	__le64 used_extents;		/* 0x08 */
	__le64 data_start;		/* 0x10 */
	__le64 dev_sectors;		/* 0x18 */
	__le32 flags;			/* 0x20 */
	__le32 tier_class;		/* 0x24 */
	u8 member_uuid[TIER_UUID_LEN];	/* 0x28 */
	__le64 reserved;		/* 0x38 */
} __packed;
static_assert(sizeof(struct tier_sb_tier_disk) == 64);

/**
 * struct tier_setting_disk - one persisted setting.
 * @id:       setting id (the key table's persist id, table.c), >= 1.
 * @reserved: zero.
 * @value:    its value.
 */
struct tier_setting_disk {
	__le16 id;			/* 0x0 */
	__le16 reserved;		/* 0x2 */
	__le32 value;			/* 0x4 */
} __packed;
static_assert(sizeof(struct tier_setting_disk) == 8);

/**
 * struct tier_settings_disk - the settings record, valid only with
 * TIER_FEATURE_COMPAT_SETTINGS in the superblock's compat mask.
 * @version:  TIER_SETTINGS_VERSION.
 * @count:    entries used, 0..TIER_SETTINGS_MAX.
 * @reserved: zero.
 * @entry:    @count entries, distinct ids; the rest zero.
 */
struct tier_settings_disk {
	__le16 version;			/* 0x00 */
	__le16 count;			/* 0x02 */
	__le32 reserved;		/* 0x04 */
	struct tier_setting_disk entry[TIER_SETTINGS_MAX];	/* 0x08 */
} __packed;
static_assert(sizeof(struct tier_settings_disk) == 256);

/**
 * struct tier_sb_disk - one of the two superblock slots.
 * @csum:         block checksum (tier_block_csum()).
 * @version:      TIER_FORMAT_VERSION.
 * @magic:        TIER_SB_MAGIC.
 * @uuid:         virtual device UUID.
 * @generation:   commit count.
 * @commit_time:  time of the commit.
 * @ctime:        creation time.
 * @virt_extents: virtual size in extents.
 * @extent_shift: log2(extent sectors).
 * @nr_tiers:     number of tiers.
 * @active_copy:  map copy this commit describes.
 * @slot:         generation % 2.
 * @map_blocks:   blocks per map copy.
 * @map_start:    first sector of each map copy.
 * @compat:       compatible features.
 * @incompat:     incompatible features.
 * @ro_compat:    read-only compatible features.
 * @flags:        TIER_SB_F_*.
 * @meta_start:   sector of slot 0.
 * @meta_uuid:    member UUID of a separate metadata device.
 * @reserved1:    zero.
 * @tier:         per-tier records.
 * @settings:     persisted settings (TIER_FEATURE_COMPAT_SETTINGS), else
 *                zero.
 * @reserved2:    zero.
 *
 * Field meanings: see struct tier_sb and docs/FORMAT.md.
 */
struct tier_sb_disk {
	__le32 csum;			/* 0x000 */
	__le32 version;			/* 0x004 */
	__le64 magic;			/* 0x008 */
	u8 uuid[TIER_UUID_LEN];		/* 0x010 */
	__le64 generation;		/* 0x020 */
	__le64 commit_time;		/* 0x028 */
	__le64 ctime;			/* 0x030 */
	__le64 virt_extents;		/* 0x038 */
	__le32 extent_shift;		/* 0x040 */
	__le32 nr_tiers;		/* 0x044 */
	__le32 active_copy;		/* 0x048 */
	__le32 slot;			/* 0x04c */
	__le64 map_blocks;		/* 0x050 */
	__le64 map_start[2];		/* 0x058 */
	__le64 compat;			/* 0x068 */
	__le64 incompat;		/* 0x070 */
	__le64 ro_compat;		/* 0x078 */
	__le64 flags;			/* 0x080 */
	__le64 meta_start;		/* 0x088 */
	u8 meta_uuid[TIER_UUID_LEN];	/* 0x090 */
	u8 reserved1[96];		/* 0x0a0 */
	struct tier_sb_tier_disk tier[TIER_MAX_TIERS];	/* 0x100 */
	struct tier_settings_disk settings;	/* 0x300 */
	u8 reserved2[3072];		/* 0x400 */
} __packed;
static_assert(sizeof(struct tier_sb_disk) == TIER_BLOCK_SIZE);

/**
 * struct tier_map_entry_disk - one virtual extent in a map block.
 * @map:   map word (TIER_MAPW_*).
 * @heat:  access heat.
 * @flags: reserved, zero in v1.
 * @atime: last access, seconds since the superblock's ctime.
 */
struct tier_map_entry_disk {
	__le64 map;			/* 0x0: map word */
	__le16 heat;			/* 0x8 */
	__le16 flags;			/* 0xa: reserved, zero in v1 */
	__le32 atime;			/* 0xc: seconds since ctime */
} __packed;
static_assert(sizeof(struct tier_map_entry_disk) == 16);

#define TIER_MAP_HDR_SIZE	32
#define TIER_MAP_ENTRIES \
	((TIER_BLOCK_SIZE - TIER_MAP_HDR_SIZE) / \
	 sizeof(struct tier_map_entry_disk))

/**
 * struct tier_map_block_disk - one block of a map copy.
 * @csum:        block checksum (tier_block_csum()).
 * @magic:       TIER_MAP_MAGIC.
 * @block_index: index of the block within its copy.
 * @generation:  generation of the commit that wrote it.
 * @copy:        the copy (0/1) it belongs to.
 * @uuid_csum:   tier_uuid_csum() of the device UUID.
 * @entry:       TIER_MAP_ENTRIES entries, for virtual extents from
 *               @block_index * TIER_MAP_ENTRIES on.
 */
struct tier_map_block_disk {
	__le32 csum;			/* 0x00 */
	__le32 magic;			/* 0x04 */
	__le64 block_index;		/* 0x08 */
	__le64 generation;		/* 0x10 */
	__le32 copy;			/* 0x18 */
	__le32 uuid_csum;		/* 0x1c */
	struct tier_map_entry_disk entry[TIER_MAP_ENTRIES];	/* 0x20 */
} __packed;
static_assert(sizeof(struct tier_map_block_disk) == TIER_BLOCK_SIZE);
static_assert(TIER_MAP_ENTRIES == 254);

/* ---- validation errors ------------------------------------------------- */

/**
 * enum tier_err_code - which check failed; tier_err_str() names it.
 * @TIER_E_NONE: no error.
 * @TIER_E_LABEL_MAGIC: label: not a dm-tier device.
 * @TIER_E_LABEL_CSUM: label: bad checksum.
 * @TIER_E_LABEL_VERSION: label: unsupported version.
 * @TIER_E_LABEL_FLAGS: label: unknown flags.
 * @TIER_E_LABEL_NAME: label: bad device name.
 * @TIER_E_LABEL_EXTENT_SHIFT: label: bad extent size.
 * @TIER_E_LABEL_NR_TIERS: label: bad tier count.
 * @TIER_E_LABEL_TIER_INDEX: label: bad tier index.
 * @TIER_E_LABEL_CLASS: label: bad tier class.
 * @TIER_E_LABEL_DATA_START: label: bad data start.
 * @TIER_E_LABEL_NR_EXTENTS: label: extents do not fit device.
 * @TIER_E_LABEL_META: label: bad metadata area.
 * @TIER_E_LABEL_VIRT_EXTENTS: label: bad virtual size.
 * @TIER_E_LABEL_SB_MISMATCH: label does not match superblock.
 * @TIER_E_SB_MAGIC: superblock: bad magic.
 * @TIER_E_SB_CSUM: superblock: bad checksum.
 * @TIER_E_SB_VERSION: superblock: unsupported version.
 * @TIER_E_SB_INCOMPAT: superblock: unknown incompat features.
 * @TIER_E_SB_SLOT: superblock: in the wrong slot.
 * @TIER_E_SB_GENERATION: superblock: bad generation.
 * @TIER_E_SB_EXTENT_SHIFT: superblock: bad extent size.
 * @TIER_E_SB_NR_TIERS: superblock: bad tier count.
 * @TIER_E_SB_ACTIVE_COPY: superblock: bad active copy.
 * @TIER_E_SB_MAP: superblock: bad map location.
 * @TIER_E_SB_VIRT_EXTENTS: superblock: bad virtual size.
 * @TIER_E_SB_TIER: superblock: bad tier record.
 * @TIER_E_SB_NONE_VALID: superblock: no valid slot.
 * @TIER_E_SB_UUID_MISMATCH: superblock: slots disagree on UUID.
 * @TIER_E_MAP_MAGIC: map block: bad magic.
 * @TIER_E_MAP_CSUM: map block: bad checksum.
 * @TIER_E_MAP_INDEX: map block: wrong block index.
 * @TIER_E_MAP_COPY: map block: wrong copy.
 * @TIER_E_MAP_UUID: map block: of another device.
 * @TIER_E_MAP_GENERATION: map block: newer than superblock.
 * @TIER_E_MAP_ENTRY_RESERVED: map entry: reserved bits set.
 * @TIER_E_MAP_ENTRY_UNMAPPED: map entry: unmapped but not zero.
 * @TIER_E_MAP_ENTRY_TIER: map entry: tier out of range.
 * @TIER_E_MAP_ENTRY_PEXT: map entry: physical extent out of range.
 * @TIER_E_MAP_ENTRY_BEYOND: map entry: mapped beyond device end.
 * @TIER_E_MAP_DOUBLE_USE: map: physical extent mapped twice.
 * @TIER_E_LAYOUT_EXTENT_SHIFT: bad extent size.
 * @TIER_E_LAYOUT_NR_TIERS: bad number of tiers.
 * @TIER_E_LAYOUT_TIER_TOO_SMALL: tier too small for one extent.
 * @TIER_E_LAYOUT_TIER_TOO_BIG: tier has too many extents.
 * @TIER_E_LAYOUT_META_TOO_SMALL: metadata device too small.
 * @TIER_E_LAYOUT_VIRT_UNALIGNED: size not extent aligned.
 * @TIER_E_LAYOUT_VIRT_TOO_BIG: size exceeds tier capacity.
 * @TIER_E_LAYOUT_VIRT_LIMIT: size too large.
 * @TIER_E_FRESH_PARAM: bad creation parameter.
 * @TIER_E_MAP_ENTRY_FLAGS: map entry: extent flags this module cannot keep
 *     in memory (written by a newer module).
 * @TIER_E_NR_CODES: number of codes (not a code).
 */
enum tier_err_code {
	TIER_E_NONE = 0,
	TIER_E_LABEL_MAGIC,
	TIER_E_LABEL_CSUM,
	TIER_E_LABEL_VERSION,
	TIER_E_LABEL_FLAGS,
	TIER_E_LABEL_NAME,
	TIER_E_LABEL_EXTENT_SHIFT,
	TIER_E_LABEL_NR_TIERS,
	TIER_E_LABEL_TIER_INDEX,
	TIER_E_LABEL_CLASS,
	TIER_E_LABEL_DATA_START,
	TIER_E_LABEL_NR_EXTENTS,
	TIER_E_LABEL_META,
	TIER_E_LABEL_VIRT_EXTENTS,
	TIER_E_LABEL_SB_MISMATCH,
	TIER_E_SB_MAGIC,
	TIER_E_SB_CSUM,
	TIER_E_SB_VERSION,
	TIER_E_SB_INCOMPAT,
	TIER_E_SB_SLOT,
	TIER_E_SB_GENERATION,
	TIER_E_SB_EXTENT_SHIFT,
	TIER_E_SB_NR_TIERS,
	TIER_E_SB_ACTIVE_COPY,
	TIER_E_SB_MAP,
	TIER_E_SB_VIRT_EXTENTS,
	TIER_E_SB_TIER,
	TIER_E_SB_NONE_VALID,
	TIER_E_SB_UUID_MISMATCH,
	TIER_E_MAP_MAGIC,
	TIER_E_MAP_CSUM,
	TIER_E_MAP_INDEX,
	TIER_E_MAP_COPY,
	TIER_E_MAP_UUID,
	TIER_E_MAP_GENERATION,
	TIER_E_MAP_ENTRY_RESERVED,
	TIER_E_MAP_ENTRY_UNMAPPED,
	TIER_E_MAP_ENTRY_TIER,
	TIER_E_MAP_ENTRY_PEXT,
	TIER_E_MAP_ENTRY_BEYOND,
	TIER_E_MAP_DOUBLE_USE,
	TIER_E_LAYOUT_EXTENT_SHIFT,
	TIER_E_LAYOUT_NR_TIERS,
	TIER_E_LAYOUT_TIER_TOO_SMALL,
	TIER_E_LAYOUT_TIER_TOO_BIG,
	TIER_E_LAYOUT_META_TOO_SMALL,
	TIER_E_LAYOUT_VIRT_UNALIGNED,
	TIER_E_LAYOUT_VIRT_TOO_BIG,
	TIER_E_LAYOUT_VIRT_LIMIT,
	TIER_E_FRESH_PARAM,
	TIER_E_MAP_ENTRY_FLAGS,
	TIER_E_NR_CODES
};

/**
 * struct tier_err - details of a failed check, for log messages.
 * @code:  which check failed.
 * @item:  what it concerns: tier or device index, map entry's virtual
 *         extent number, slot; 0 when not applicable.
 * @value: the offending value (0 when not applicable).
 */
struct tier_err {
	enum tier_err_code code;
	u64 item;
	u64 value;
};

/**
 * tier_err_str() - static description of a check, e.g. "label: bad checksum".
 * @code: the code; out-of-range values give "unknown error".
 *
 * Context: any.
 * Return: a static string.
 */
const char *tier_err_str(enum tier_err_code code);

/**
 * tier_err_set() - record a failed check in @err.
 * @err:   out, optional (NULL: nothing recorded).
 * @code:  the check (< TIER_E_NR_CODES).
 * @item:  see struct tier_err.
 * @value: see struct tier_err.
 *
 * Context: any.
 * Return: the negative errno that goes with @code.
 */
int tier_err_set(struct tier_err *err, enum tier_err_code code, u64 item,
		 u64 value);

/**
 * tier_block_csum() - the checksum of a metadata block.
 * @blk: TIER_BLOCK_SIZE bytes.
 *
 * crc32c seeded with ~0 over bytes 4..4095 (the csum field excluded), not
 * inverted.
 *
 * Context: any.
 * Return: the checksum in cpu order.
 */
u32 tier_block_csum(const void *blk);

/* ---- layout ------------------------------------------------------------ */

/**
 * struct tier_layout_req - what tierctl asks for when creating a device.
 * @nr_tiers:         1..TIER_MAX_TIERS.
 * @extent_shift:     log2(extent size in sectors), 7..17.
 * @dev_sectors:      size of each tier device.
 * @virt_sectors:     virtual device size; 0 = all tier capacity. Must be a
 *                    multiple of the extent size.
 * @meta_dev_sectors: size of a separate metadata device; 0 = metadata on
 *                    tier 0.
 * @map_extents:      reserve map room for a virtual size of this many
 *                    extents (tierctl create --max-size); 0 or less than
 *                    the tiers' raw capacity: the raw capacity.
 */
struct tier_layout_req {
	u32 nr_tiers;
	u32 extent_shift;
	sector_t dev_sectors[TIER_MAX_TIERS];
	sector_t virt_sectors;
	sector_t meta_dev_sectors;
	u64 map_extents;
};

/**
 * struct tier_layout_tier - where data lives on one tier.
 * @dev_sectors: device size at creation.
 * @data_start:  first sector of physical extent 0 (TIER_DATA_ALIGN aligned).
 * @nr_extents:  physical extents on the tier.
 */
struct tier_layout_tier {
	sector_t dev_sectors;
	sector_t data_start;
	u64 nr_extents;
};

/**
 * struct tier_layout - result of tier_layout_compute().
 * @nr_tiers:     number of tiers.
 * @extent_shift: log2(extent sectors).
 * @meta_ext:     1 when metadata is on a separate device, else 0 (tier 0).
 * @virt_extents: virtual device size in extents.
 * @map_blocks:   blocks per map copy, sized for the sum of the tiers' raw
 *                capacity so that growing virt_extents never moves it.
 * @meta_dev_sectors: separate metadata device size (0 when on tier 0).
 * @meta_start:   first sector of the metadata area (superblock slot 0) on
 *                the metadata device.
 * @meta_blocks:  blocks in the metadata area (2 slots + 2 map copies).
 * @map_start:    first sector of each map copy.
 * @tier:         per tier data placement.
 */
struct tier_layout {
	u32 nr_tiers;
	u32 extent_shift;
	u32 meta_ext;
	u64 virt_extents;
	u64 map_blocks;
	sector_t meta_dev_sectors;
	sector_t meta_start;
	u64 meta_blocks;
	sector_t map_start[2];
	struct tier_layout_tier tier[TIER_MAX_TIERS];
};

/**
 * tier_layout_compute() - place metadata and data on new devices.
 * @req: sizes and options.
 * @lo:  out; written only on success.
 * @err: out, optional; which check failed.
 *
 * Metadata area (on tier 0 or the metadata device) at TIER_META_START:
 * superblock slot 0, slot 1, map copy 0, map copy 1. Data starts at the
 * first TIER_DATA_ALIGN boundary after it (tier 0) or at TIER_DATA_ALIGN.
 *
 * Context: any; pure.
 * Return: 0; -EINVAL for a bad extent shift or tier count, a tier too small
 * for one extent, a metadata device too small, or a virtual size that is not
 * a multiple of the extent size; -E2BIG when a tier has more than
 * TIER_MAX_PEXTS extents or the virtual size exceeds what sectors can
 * address; -ENOSPC when the requested virtual size exceeds the capacity.
 */
int tier_layout_compute(const struct tier_layout_req *req,
			struct tier_layout *lo, struct tier_err *err);

/**
 * tier_layout_meta_min_sectors() - the smallest separate metadata device
 * that can hold the metadata of @req's tiers: the label, both superblock
 * slots and both map copies (map sized for the tiers' raw capacity).
 * @req: the tiers and extent size; @req->meta_dev_sectors is ignored.
 *
 * tier_layout_compute() refuses a metadata device below this size
 * (TIER_E_LAYOUT_META_TOO_SMALL, item TIER_META_DEV). An extent shift
 * outside 7..17 is clamped into it (the layout refuses it anyway).
 *
 * Context: any; pure.
 * Return: the size in sectors.
 */
sector_t tier_layout_meta_min_sectors(const struct tier_layout_req *req);

/**
 * tier_max_virt_extents() - largest virtual size, in extents, whose byte
 * size still fits in 64 bits (and at most TIER_MAX_PEXTS).
 * @extent_shift: log2(extent sectors).
 *
 * Context: any.
 * Return: the limit.
 */
u64 tier_max_virt_extents(u32 extent_shift);

/**
 * tier_map_blocks_for() - map blocks needed to describe @nr_extents.
 * @nr_extents: virtual extents.
 *
 * Context: any.
 * Return: DIV_ROUND_UP(nr_extents, TIER_MAP_ENTRIES).
 */
u64 tier_map_blocks_for(u64 nr_extents);

/* ---- label ------------------------------------------------------------- */

/**
 * struct tier_label - decoded label.
 * @uuid:         the virtual device's UUID (same on every member).
 * @member_uuid:  this member's UUID.
 * @name:         device name for "tierctl activate", NUL-terminated.
 * @flags:        TIER_LABEL_F_*.
 * @tier_index:   position in the tier order, or TIER_META_DEV.
 * @nr_tiers:     number of tiers in the device.
 * @tier_class:   enum tier_class.
 * @extent_shift: log2(extent sectors).
 * @dev_sectors:  device size at creation; the device must not be smaller.
 * @data_start:   sector of physical extent 0 (0 on a metadata device).
 * @nr_extents:   physical extents on this tier (0 on a metadata device).
 * @meta_start:   metadata area start (0 unless TIER_LABEL_F_META).
 * @meta_blocks:  metadata area length (0 unless TIER_LABEL_F_META).
 * @virt_extents: virtual size at creation (the superblock is authoritative).
 * @ctime:        creation time, seconds since the epoch.
 * @spare_meta_blocks: a metadata area of that many blocks is reserved at
 *                TIER_META_START, before @data_start, but not used yet:
 *                the tier was added to take over the metadata from tier 0
 *                (tierctl replace-tier NAME 0). 0 for none; never with
 *                TIER_LABEL_F_META or TIER_LABEL_F_META_EXT.
 */
struct tier_label {
	u8 uuid[TIER_UUID_LEN];
	u8 member_uuid[TIER_UUID_LEN];
	char name[TIER_NAME_LEN];
	u64 flags;
	u32 tier_index;
	u32 nr_tiers;
	u32 tier_class;
	u32 extent_shift;
	sector_t dev_sectors;
	sector_t data_start;
	u64 nr_extents;
	sector_t meta_start;
	u64 meta_blocks;
	u64 virt_extents;
	u64 ctime;
	u64 spare_meta_blocks;
};

/**
 * tier_name_valid() - whether @name is usable as a device name: 1..63
 * printable ASCII characters, no blank and no '/'.
 * @name: NUL-terminated string.
 *
 * Context: any.
 * Return: true when valid.
 */
bool tier_name_valid(const char *name);

/**
 * tier_label_encode() - build a label block, checksum included.
 * @l:   the label; @l->name is copied NUL-padded.
 * @blk: out; TIER_BLOCK_SIZE bytes.
 *
 * Context: any.
 */
void tier_label_encode(const struct tier_label *l, void *blk);

/**
 * tier_label_decode() - validate and decode a label block.
 * @blk: TIER_BLOCK_SIZE bytes read from sector 0.
 * @l:   out; written only on success.
 * @err: out, optional.
 *
 * Checks, in order: magic, checksum, version, flags, name, extent shift,
 * tier count and index, class, data area, metadata area, virtual size.
 *
 * Context: any.
 * Return: 0; -ENODATA when this is not a dm-tier label (bad magic),
 * -EBADMSG on checksum mismatch, -EPROTO for an unknown format version,
 * -EOPNOTSUPP for unknown flags, -EUCLEAN for insane fields.
 */
int tier_label_decode(const void *blk, struct tier_label *l,
		      struct tier_err *err);

/* ---- superblock -------------------------------------------------------- */

/**
 * struct tier_sb_tier - per-tier record of the superblock.
 * @nr_extents:   physical extents.
 * @used_extents: extents mapped at the commit (informational).
 * @data_start:   sector of physical extent 0.
 * @dev_sectors:  device size at creation.
 * @flags:        tier state, TIER_SB_TIER_F_*; unknown bits preserved.
 * @tier_class:   enum tier_class.
 * @member_uuid:  the label's member UUID of this tier's device.
 */
struct tier_sb_tier {
	u64 nr_extents;
	u64 used_extents;
	sector_t data_start;
	sector_t dev_sectors;
	u32 flags;
	u32 tier_class;
	u8 member_uuid[TIER_UUID_LEN];
};

/**
 * struct tier_setting - one persisted setting.
 * @id:    persist id of a key table row (table.c); ids this code does not
 *         know (a newer module's) are kept, not applied.
 * @value: its value, range-checked only when applied.
 */
struct tier_setting {
	u16 id;
	u32 value;
};

/**
 * struct tier_settings - the settings set at runtime ("set" message,
 * netlink policy-set), persisted in the superblock.
 * @count: entries used, 0..TIER_SETTINGS_MAX; 0: none (no feature bit).
 * @e:     the entries, distinct ids, in the order first set.
 */
struct tier_settings {
	u32 count;
	struct tier_setting e[TIER_SETTINGS_MAX];
};

/**
 * struct tier_sb - decoded superblock.
 * @uuid:         virtual device UUID.
 * @generation:   commit count; slot = generation % 2; >= 1.
 * @commit_time:  seconds since the epoch.
 * @ctime:        creation time (map entry atimes count from it).
 * @virt_extents: virtual device size in extents.
 * @extent_shift: log2(extent sectors).
 * @nr_tiers:     number of tiers.
 * @active_copy:  map copy (0/1) this commit describes.
 * @map_blocks:   blocks per map copy.
 * @map_start:    first sector of each map copy on the metadata device.
 * @compat:       features an old writer may drop (cleared when encoding
 *                bits not in TIER_FEATURE_COMPAT_SUPP).
 * @incompat:     features an old reader must refuse.
 * @ro_compat:    features an old reader may only read.
 * @flags:        TIER_SB_F_*.
 * @meta_start:   sector of slot 0 on the metadata device.
 * @meta_uuid:    member UUID of the metadata device (zero when on tier 0).
 * @tier:         per tier records, [0, nr_tiers) used, the rest zero.
 * @settings:     persisted settings; encoded with the compat bit
 *                TIER_FEATURE_COMPAT_SETTINGS when @settings.count > 0.
 *                Decoded as empty without the bit or when the record is
 *                malformed (tier_settings_decode()): a compat feature
 *                never makes the superblock invalid.
 */
struct tier_sb {
	u8 uuid[TIER_UUID_LEN];
	u64 generation;
	u64 commit_time;
	u64 ctime;
	u64 virt_extents;
	u32 extent_shift;
	u32 nr_tiers;
	u32 active_copy;
	u64 map_blocks;
	sector_t map_start[2];
	u64 compat;
	u64 incompat;
	u64 ro_compat;
	u64 flags;
	sector_t meta_start;
	u8 meta_uuid[TIER_UUID_LEN];
	struct tier_sb_tier tier[TIER_MAX_TIERS];
	struct tier_settings settings;
};

/**
 * tier_sb_slot() - the slot a superblock of @generation is written to.
 * @generation: commit generation.
 *
 * Context: any.
 * Return: 0 or 1.
 */
static inline u32 tier_sb_slot(u64 generation)
{
	return generation & 1;
}

/**
 * tier_sb_sector() - sector of superblock slot @slot.
 * @meta_start: metadata area start (label or superblock field).
 * @slot:       0 or 1.
 *
 * Context: any.
 * Return: the sector on the metadata device.
 */
static inline sector_t tier_sb_sector(sector_t meta_start, u32 slot)
{
	return meta_start + (sector_t)slot * TIER_BLOCK_SECTORS;
}

/**
 * tier_sb_encode() - build superblock slot tier_sb_slot(@sb->generation).
 * @sb:  the superblock.
 * @blk: out; TIER_BLOCK_SIZE bytes, checksum included.
 *
 * Context: any.
 */
void tier_sb_encode(const struct tier_sb *sb, void *blk);

/**
 * tier_sb_decode() - validate and decode one superblock slot.
 * @blk:  TIER_BLOCK_SIZE bytes read from tier_sb_sector(meta_start, @slot).
 * @slot: the slot it was read from; a block of the other slot is rejected.
 * @sb:   out; written only on success.
 * @err:  out, optional.
 *
 * Context: any.
 * Return: 0; -EBADMSG on checksum mismatch, -EPROTO for an unknown version,
 * -EOPNOTSUPP for unknown incompat features, -EUCLEAN for a bad magic or
 * insane fields. Unknown ro_compat features are not an error: see
 * tier_sb_needs_ro().
 */
int tier_sb_decode(const void *blk, u32 slot, struct tier_sb *sb,
		   struct tier_err *err);

/**
 * tier_settings_decode() - decode the settings record of a superblock
 * block (called by tier_sb_decode(); for tools that report it).
 * @blk: TIER_BLOCK_SIZE bytes of a superblock slot (checksum not checked).
 * @s:   out; always written: empty unless the record is valid.
 *
 * Without TIER_FEATURE_COMPAT_SETTINGS in the compat mask the record is
 * absent (written by a module that does not know it, or nothing set): @s is
 * empty and the bytes are ignored.
 *
 * Context: any.
 * Return: 0 (also when absent); -EPROTO for a record version this code does
 * not know; -EUCLEAN for a count above TIER_SETTINGS_MAX, an id 0, a
 * duplicate id, or non-zero reserved bytes or unused entries. On error the
 * whole record is dropped (@s empty). Values are not checked here: see
 * tier_table_settings_apply().
 */
int tier_settings_decode(const void *blk, struct tier_settings *s);

/**
 * tier_settings_get() - the value of setting @id.
 * @s:     the settings.
 * @id:    setting id.
 * @value: out; written only when found.
 *
 * Context: any.
 * Return: 0, or -ENOENT when @s has no such entry.
 */
int tier_settings_get(const struct tier_settings *s, u16 id, u32 *value);

/**
 * tier_settings_put() - set setting @id to @value: replaced in place, or
 * appended.
 * @s:     the settings.
 * @id:    setting id, >= 1.
 * @value: its value.
 *
 * Context: any.
 * Return: 0; -EINVAL for id 0; -ENOSPC when @s is full (@s unchanged).
 */
int tier_settings_put(struct tier_settings *s, u16 id, u32 value);

/**
 * tier_sb_pick() - choose the superblock to use after reading both slots.
 * @sb:  the two slots as decoded.
 * @ret: what tier_sb_decode() returned for each.
 * @err: out, optional.
 *
 * The valid slot with the higher generation wins; a single valid slot
 * wins alone if the other is unreadable (bad magic or checksum), never if
 * the other is of a newer version or has unknown incompat features.
 *
 * Context: any.
 * Return: the slot (0 or 1); -EPROTO or -EOPNOTSUPP when a slot said so;
 * -EUCLEAN when neither is valid or both are valid but their UUIDs differ.
 */
int tier_sb_pick(const struct tier_sb sb[2], const int ret[2],
		 struct tier_err *err);

/**
 * tier_sb_needs_ro() - whether unknown ro_compat features forbid writing.
 * @sb: decoded superblock.
 *
 * Context: any.
 * Return: true when the device may only be activated read-only.
 */
bool tier_sb_needs_ro(const struct tier_sb *sb);

/**
 * tier_label_check_sb() - check a member's label against the superblock.
 * @l:   decoded label of the device the table names as tier @l->tier_index
 *       (or the metadata device).
 * @sb:  chosen superblock.
 * @expect_index: the position the table gives the device (TIER_META_DEV for
 *       the metadata device).
 * @err: out, optional; @err->item is the device index.
 *
 * Context: any.
 * Return: 0, or -EUCLEAN when the device UUID, the member UUID at
 * @expect_index, the extent size or the data geometry disagree (the
 * label's tier index and tier count are hints; only a metadata device's
 * index is checked).
 */
int tier_label_check_sb(const struct tier_label *l, const struct tier_sb *sb,
			u32 expect_index, struct tier_err *err);

/**
 * tier_label_meta_area() - where a label's device holds (or may hold) a
 * metadata area: its own (TIER_LABEL_F_META), or the spare one of a tier
 * that is taking over the metadata from tier 0 (@l->spare_meta_blocks).
 * @l:      decoded label.
 * @start:  out, optional: first sector of the area (superblock slot 0).
 * @blocks: out, optional: length in blocks.
 *
 * Context: any.
 * Return: true when the device has such an area.
 */
bool tier_label_meta_area(const struct tier_label *l, sector_t *start,
			  u64 *blocks);

/**
 * tier_label_sb_index() - the position the superblock lists a tier's
 * label at (by device and member UUID), whatever the label's own tier index
 * (a hint, docs/FORMAT.md "Tier list changes").
 * @l:  decoded label.
 * @sb: chosen superblock.
 *
 * Context: any.
 * Return: the tier index, or -1 when the superblock does not list it (a
 * label of another device, the metadata device's, or a stale one left by
 * an interrupted add-tier or remove-tier).
 */
int tier_label_sb_index(const struct tier_label *l, const struct tier_sb *sb);

/**
 * tier_label_check_new() - whether a labelled device may join the tier
 * list as tier @index (tierctl add-tier wrote its label): appended, or
 * inserted with the tiers from @index on moving up by one.
 * @l:           its decoded label (its tier index hint must be @index).
 * @sb:          the current superblock.
 * @index:       the new position: 1..@sb->nr_tiers (tier 0 identifies
 *               the device and may hold the metadata: never replaced).
 * @dev_sectors: the device's size now.
 * @err:         out, optional.
 *
 * Context: any.
 * Return: 0, or -EUCLEAN when the label is of another device or extent
 * size, names another position, holds metadata, has a member UUID the
 * superblock already lists, or a data area that does not fit.
 */
int tier_label_check_new(const struct tier_label *l, const struct tier_sb *sb,
			 u32 index, sector_t dev_sectors, struct tier_err *err);

/**
 * tier_sb_tier_from_label() - the superblock's record of a new tier.
 * @l: its label (checked with tier_label_check_new()).
 * @t: out; no extent used, no flags.
 *
 * Context: any.
 */
void tier_sb_tier_from_label(const struct tier_label *l, struct tier_sb_tier *t);

/**
 * tier_sb_set_tier_count() - the tier list one longer (@added appended)
 * or one shorter (the last record cleared).
 * @sb:       superblock to change.
 * @nr_tiers: @sb->nr_tiers + 1 or - 1, within 1..TIER_MAX_TIERS.
 * @added:    the new record when growing.
 *
 * Context: any.
 * Return: 0 or -EINVAL (@sb unchanged).
 */
int tier_sb_set_tier_count(struct tier_sb *sb, u32 nr_tiers,
			   const struct tier_sb_tier *added);

/**
 * tier_sb_insert_tier() - the tier list with @added inserted at @pos; the
 * records from @pos on (with their flags and used counts) move up by one.
 * @sb:    superblock to change.
 * @pos:   1..@sb->nr_tiers (@sb->nr_tiers appends).
 * @added: the new record; its used count is set to 0.
 *
 * Context: any.
 * Return: 0 or -EINVAL (@sb unchanged: bad @pos, or the list is full).
 */
int tier_sb_insert_tier(struct tier_sb *sb, u32 pos,
			const struct tier_sb_tier *added);

/**
 * tier_sb_remove_tier() - the tier list without tier @pos; the records
 * after it move down by one, the last slot is cleared.
 * @sb:  superblock to change.
 * @pos: 0..@sb->nr_tiers - 1. Tier 0 only when tier 1 becomes the new
 *       tier 0 (tierctl replace-tier NAME 0): without a separate metadata
 *       device its data must start after the metadata area, which moves
 *       to it in the same commit.
 *
 * Context: any.
 * Return: 0; -EINVAL (bad @pos, or tier 1 has no room for the metadata
 * area); -ENOSPC when the other tiers' extents
 * are fewer than the virtual size (tier_sb_decode() would reject the
 * result). @sb is unchanged on error.
 */
int tier_sb_remove_tier(struct tier_sb *sb, u32 pos);

/* ---- resize (docs/FORMAT.md "Resizing") -------------------------------- */

/**
 * enum tier_resize_bound - what limits a virtual size.
 * @TIER_RESIZE_BOUND_MAP:      the map copies' room (map_blocks * 254):
 *                              fixed when the device was created.
 * @TIER_RESIZE_BOUND_CAPACITY: the tiers' extents (sum of nr_extents).
 * @TIER_RESIZE_BOUND_BYTES:    the byte size would not fit 64 bits.
 */
enum tier_resize_bound {
	TIER_RESIZE_BOUND_MAP,
	TIER_RESIZE_BOUND_CAPACITY,
	TIER_RESIZE_BOUND_BYTES,
};

/**
 * tier_sb_max_virt() - the largest virtual size @sb's layout allows.
 * @sb:    a valid superblock (its tier records as they would be committed).
 * @bound: out, optional: which limit it is (the first of map, capacity,
 *         bytes when several are equal).
 *
 * Context: any.
 * Return: min(map_blocks * TIER_MAP_ENTRIES, sum of the tiers' nr_extents,
 * tier_max_virt_extents()), in extents.
 */
u64 tier_sb_max_virt(const struct tier_sb *sb, enum tier_resize_bound *bound);

/**
 * tier_sb_tier_grown() - tier @tier's record on a device of @dev_sectors.
 * @sb:          the current superblock.
 * @tier:        < @sb->nr_tiers.
 * @dev_sectors: the device's size now.
 * @rec:         out: @sb's record with nr_extents and dev_sectors of the
 *               grown device when it has room for at least one more
 *               extent (at most TIER_MAX_TIER_EXTENTS, what
 *               tier_sb_resize() and the kernel's load accept: a larger
 *               device keeps the rest unused); else the record as is.
 *
 * The data area never moves and never shrinks: a device smaller than the
 * recorded dev_sectors is refused, not truncated.
 *
 * Context: any.
 * Return: 1 when the tier grows, 0 when it stays, -ENOSPC when the device
 * is smaller than recorded (@rec unchanged copy), -EINVAL for a bad @tier.
 */
int tier_sb_tier_grown(const struct tier_sb *sb, u32 tier,
		       sector_t dev_sectors, struct tier_sb_tier *rec);

/**
 * tier_sb_resize() - @sb with grown tier records and a new virtual size.
 * @sb:   superblock to change (on error unchanged).
 * @recs: nr_tiers records from tier_sb_tier_grown() (NULL: tiers as
 *        they are); only nr_extents and dev_sectors are taken, and only
 *        when not smaller than @sb's.
 * @virt: the new virtual size in extents.
 * @err:  out, optional; TIER_E_SB_TIER (item: tier) for a record that
 *        shrinks or does not fit, TIER_E_SB_VIRT_EXTENTS (value: the
 *        maximum) for @virt 0 or above tier_sb_max_virt() of the result.
 *
 * Context: any.
 * Return: 0, -EINVAL (a shrinking or bad record, @virt 0) or -ENOSPC
 * (@virt above the maximum).
 */
int tier_sb_resize(struct tier_sb *sb, const struct tier_sb_tier *recs,
		   u64 virt, struct tier_err *err);

/* ---- map blocks -------------------------------------------------------- */

/**
 * struct tier_map_entry - decoded map entry.
 * @word:  map word (TIER_MAPW_*).
 * @heat:  access heat (meaning defined by the migration feature).
 * @flags: reserved, zero in v1.
 * @atime: last access, seconds since the superblock's ctime.
 */
struct tier_map_entry {
	u64 word;
	u16 heat;
	u16 flags;
	u32 atime;
};

/**
 * tier_uuid_csum() - the short UUID tag stored in every map block.
 * @uuid: TIER_UUID_LEN bytes.
 *
 * Context: any.
 * Return: crc32c(~0, uuid, 16).
 */
u32 tier_uuid_csum(const u8 *uuid);

/**
 * tier_map_block_sector() - where map block @index of copy @copy lives.
 * @sb:    superblock (map_start).
 * @copy:  0 or 1.
 * @index: block index < @sb->map_blocks.
 *
 * Context: any.
 * Return: the sector on the metadata device.
 */
sector_t tier_map_block_sector(const struct tier_sb *sb, u32 copy, u64 index);

/**
 * tier_map_block_init() - start a map block: header, all entries unmapped.
 * @blk:   out; TIER_BLOCK_SIZE bytes.
 * @sb:    the superblock of the commit that writes it (generation, uuid).
 * @copy:  map copy the block is written to.
 * @index: block index.
 *
 * Fill entries with tier_map_block_set(), then tier_map_block_seal().
 *
 * Context: any.
 */
void tier_map_block_init(void *blk, const struct tier_sb *sb, u32 copy,
			 u64 index);

/**
 * tier_map_block_set() - store entry @i (< TIER_MAP_ENTRIES).
 * @blk: block started by tier_map_block_init().
 * @i:   entry index within the block.
 * @e:   the entry.
 *
 * Context: any.
 */
void tier_map_block_set(void *blk, u32 i, const struct tier_map_entry *e);

/**
 * tier_map_block_get() - read entry @i (< TIER_MAP_ENTRIES), unchecked.
 * @blk: a block that passed tier_map_block_check().
 * @i:   entry index within the block.
 * @e:   out.
 *
 * Context: any.
 */
void tier_map_block_get(const void *blk, u32 i, struct tier_map_entry *e);

/**
 * tier_map_block_seal() - compute and store the checksum.
 * @blk: the finished block.
 *
 * Context: any.
 */
void tier_map_block_seal(void *blk);

/**
 * tier_map_block_check() - validate a map block read from disk.
 * @blk:   TIER_BLOCK_SIZE bytes.
 * @sb:    the chosen superblock.
 * @copy:  the copy it was read from.
 * @index: the block index it was read from.
 * @err:   out, optional; entry errors give the virtual extent in @err->item.
 *
 * Checks magic, checksum, block index, copy, UUID tag, generation (not newer
 * than @sb), then every entry: reserved word bits clear, unmapped entries
 * all zero, tier < nr_tiers, pext < that tier's nr_extents, no mapped entry
 * at or beyond @sb->virt_extents.
 *
 * Context: any.
 * Return: 0; -EBADMSG on checksum mismatch; -EUCLEAN otherwise.
 */
int tier_map_block_check(const void *blk, const struct tier_sb *sb, u32 copy,
			 u64 index, struct tier_err *err);

/* ---- fresh metadata (tierctl create) ----------------------------------- */

/**
 * struct tier_fresh - everything needed to write a new device.
 * @lo:          computed layout.
 * @uuid:        new virtual device UUID (random, caller supplied).
 * @member_uuid: per device UUID, [TIER_META_DEV] for the metadata device.
 * @name:        device name (tier_name_valid()).
 * @tier_class:  class of each tier (not MEM or META).
 * @ctime:       creation time, seconds since the epoch.
 */
struct tier_fresh {
	struct tier_layout lo;
	u8 uuid[TIER_UUID_LEN];
	u8 member_uuid[TIER_MAX_DEVS][TIER_UUID_LEN];
	char name[TIER_NAME_LEN];
	u32 tier_class[TIER_MAX_TIERS];
	u64 ctime;
};

/**
 * struct tier_blk_loc - where a block goes.
 * @dev:    tier index, or TIER_META_DEV.
 * @sector: sector on that device.
 */
struct tier_blk_loc {
	u32 dev;
	sector_t sector;
};

/**
 * tier_fresh_check() - validate @f before writing anything.
 * @f:   parameters.
 * @err: out, optional.
 *
 * Context: any.
 * Return: 0; -EINVAL for a bad name or class, -EOPNOTSUPP for the MEM
 * class, -EUCLEAN when @f->lo is inconsistent.
 */
int tier_fresh_check(const struct tier_fresh *f, struct tier_err *err);

/**
 * tier_fresh_sb() - the superblock a fresh device starts with.
 * @f:  checked parameters.
 * @sb: out; generation 1, active copy 0, empty map.
 *
 * Context: any.
 */
void tier_fresh_sb(const struct tier_fresh *f, struct tier_sb *sb);

/**
 * tier_fresh_label() - the label of device @dev of a fresh device.
 * @f:   checked parameters.
 * @dev: tier index, or TIER_META_DEV when @f->lo.meta_ext.
 * @l:   out.
 *
 * Context: any.
 */
void tier_fresh_label(const struct tier_fresh *f, u32 dev,
		      struct tier_label *l);

/**
 * tier_fresh_nr_blocks() - how many blocks creating the device writes.
 * @f: checked parameters.
 *
 * Context: any.
 * Return: 2 * map_blocks + 2 + number of devices.
 */
u64 tier_fresh_nr_blocks(const struct tier_fresh *f);

/**
 * tier_fresh_block() - the @n-th block to write when creating the device.
 * @f:   checked parameters.
 * @n:   0 .. tier_fresh_nr_blocks() - 1; write them in this order, flush.
 * @loc: out; device and sector.
 * @blk: out; TIER_BLOCK_SIZE bytes.
 *
 * Order: map copy 0, map copy 1 (all entries unmapped, generation 1),
 * superblock slot 0 (zeroed: invalid), slot 1 (generation 1), then the
 * labels (metadata device first, then tiers 0..n-1), so a crash before the
 * end leaves devices without a valid label.
 *
 * Context: any.
 * Return: 0, or -EINVAL when @n is out of range.
 */
int tier_fresh_block(const struct tier_fresh *f, u64 n,
		     struct tier_blk_loc *loc, void *blk);

/* clang-format on */

#endif /* DM_TIER_CORE_FORMAT_H */
