/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-sysfs.h - block devices as sysfs describes them.
 *
 * Every function takes the sysfs mount point (@sysroot, normally "/sys") so
 * that unit tests can run on a fake tree.
 */
#ifndef DM_TIER_TL_SYSFS_H
#define DM_TIER_TL_SYSFS_H

#include "tl.h"

#define TL_SYSROOT "/sys"
#define TL_MOUNTINFO "/proc/self/mountinfo"
#define TL_PATH_LEN 256

/**
 * tl_sysfs_devname() - "/dev/<DEVNAME>" of a block device number, from
 * <sysroot>/dev/block/MAJ:MIN/uevent.
 * Return: 0, -ENOENT when there is no such device, -ENAMETOOLONG.
 */
int tl_sysfs_devname(const char *sysroot, unsigned int maj, unsigned int min,
		     char *path, size_t len);

/**
 * tl_sysfs_detect_class() - the tier class sysfs suggests.
 *
 * pmem*, or a device whose sysfs path runs through an nvdimm bus (ndbusN,
 * or regionN/namespaceN.M: persistent memory and CXL pmem regions) → pmem;
 * nvme* → by the controller's transport: pcie → nvme, tcp,
 * rdma, fc, loop → nvmf (for a native multipath disk the first controller
 * of the subsystem decides); a partition is classed like its disk; dm-* and
 * md* inherit the class of their slaves when all of them agree; anything
 * else → unknown.
 * Return: the class (TIER_CLASS_UNKNOWN when undecided).
 */
u32 tl_sysfs_detect_class(const char *sysroot, unsigned int maj,
			  unsigned int min);

/**
 * tl_sysfs_busy_reason() - why a block device may be in use: mounted (from
 * @mountinfo), held by a dm/md device (holders/), or either of these for one
 * of its partitions.
 * @buf: out, e.g. "/dev/sdb1 is mounted on /mnt".
 * Return: true when a reason was found.
 */
bool tl_sysfs_busy_reason(const char *sysroot, const char *mountinfo,
			  unsigned int maj, unsigned int min, char *buf,
			  size_t len);

/**
 * struct tl_blockdev - one candidate device found by tl_sysfs_scan().
 * @name: kernel name ("nvme0n1", "sdb1").
 * @path: "/dev/<DEVNAME>".
 * @maj, @min: device number.
 */
struct tl_blockdev {
	char name[64];
	char path[TL_PATH_LEN];
	unsigned int maj, min;
};

/**
 * tl_sysfs_scan() - block devices that may carry a dm-tier label: every
 * entry of <sysroot>/class/block (disks and partitions) except ram*, zram*,
 * sr*, fd*, loop devices without a backing file, empty devices (size 0) and
 * dm devices whose DM uuid starts with "DMTIER-" (dm-tier's own).
 * @out: out; malloc'ed array sorted by name, free() it.
 * @n:   out; its length.
 * Return: 0 or -errno.
 */
int tl_sysfs_scan(const char *sysroot, struct tl_blockdev **out, size_t *n);

/**
 * tl_sysfs_dm_kname() - the kernel name ("dm-3") of the device-mapper device
 * named @dm_name, found by reading <sysroot>/class/block/dm-[*]/dm/name; the
 * name node_exporter's node_disk_* metrics label it with.
 * Return: 0, -ENOENT when no dm device has that name, -ENAMETOOLONG when
 * @len is too small, or the -errno of opening the directory.
 */
int tl_sysfs_dm_kname(const char *sysroot, const char *dm_name, char *kname,
		      size_t len);

/**
 * tl_sysfs_module_version() - a loaded module's MODULE_VERSION, from
 * <sysroot>/module/<module>/version ("dm_tier"), without its newline.
 * Return: 0, -ENOENT when the module is not loaded or has no version, or
 * the -errno of reading it.
 */
int tl_sysfs_module_version(const char *sysroot, const char *module,
			    char *buf, size_t len);

/* Parse "MAJ:MIN" (as in sysfs "dev" files and tables); 0 or -EINVAL. */
int tl_parse_devt(const char *s, unsigned int *maj, unsigned int *min);

#endif /* DM_TIER_TL_SYSFS_H */
