// SPDX-License-Identifier: GPL-2.0
/* Unit tests for user/lib/tl-sysfs.c on a fake sysfs tree: device names,
 * tier class detection, "why is it busy", and the activate scan. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <ftw.h>
#include <stdio.h>
#include <unistd.h>

#include "tl-sysfs.h"

static char root[256];

static void mkdirs(const char *rel)
{
	char p[1024], *s;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

static void put(const char *rel, const char *content)
{
	char p[1024], dir[1024], *slash;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", rel);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		mkdirs(dir);
	}
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

/* rel link → rel target (made absolute). */
static void link_to(const char *link, const char *target)
{
	char l[1024], t[1024], dir[1024], *slash;

	snprintf(dir, sizeof(dir), "%s", link);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		mkdirs(dir);
	}
	snprintf(l, sizeof(l), "%s/%s", root, link);
	snprintf(t, sizeof(t), "%s/%s", root, target);
	assert_int_equal(symlink(t, l), 0);
}

/* A block device: its directory, dev, size, uevent, /sys/dev/block and
 * /sys/class/block links. */
static void blockdev(const char *dir, const char *name, const char *devt,
		     const char *size, bool partition)
{
	char p[512], v[256];

	mkdirs(dir);
	snprintf(p, sizeof(p), "%s/dev", dir);
	snprintf(v, sizeof(v), "%s\n", devt);
	put(p, v);
	snprintf(p, sizeof(p), "%s/size", dir);
	snprintf(v, sizeof(v), "%s\n", size);
	put(p, v);
	snprintf(p, sizeof(p), "%s/uevent", dir);
	snprintf(v, sizeof(v), "MAJOR=1\nMINOR=2\nDEVNAME=%s\nDEVTYPE=%s\n",
		 name, partition ? "partition" : "disk");
	put(p, v);
	if (partition) {
		snprintf(p, sizeof(p), "%s/partition", dir);
		put(p, "1\n");
	}
	snprintf(p, sizeof(p), "dev/block/%s", devt);
	link_to(p, dir);
	snprintf(p, sizeof(p), "class/block/%s", name);
	link_to(p, dir);
}

#define NVME0 "devices/pci0000:00/0000:00:04.0/nvme/nvme0"
#define NVME1 "devices/virtual/nvme-fabrics/ctl/nvme1"
#define SUBSYS "devices/virtual/nvme-subsystem/nvme-subsys2"
#define NVME2 "devices/virtual/nvme-fabrics/ctl/nvme2"
#define NVME3 "devices/pci0000:00/0000:00:05.0/nvme/nvme3"
#define SDA "devices/pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/sda"
#define SDB "devices/pci0000:00/ata2/host1/target1:0:0/1:0:0:0/block/sdb"
#define VIRT "devices/virtual/block"

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/tl-sysfs-XXXXXX");
	assert_non_null(mkdtemp(root));

	/* PCIe NVMe with a partition. */
	put(NVME0 "/transport", "pcie\n");
	blockdev(NVME0 "/nvme0n1", "nvme0n1", "259:0", "2097152", false);
	link_to(NVME0 "/nvme0n1/device", NVME0);
	blockdev(NVME0 "/nvme0n1/nvme0n1p1", "nvme0n1p1", "259:1", "1024",
		 true);
	/* Second PCIe NVMe. */
	put(NVME3 "/transport", "pcie\n");
	blockdev(NVME3 "/nvme3n1", "nvme3n1", "259:3", "2097152", false);
	link_to(NVME3 "/nvme3n1/device", NVME3);
	/* NVMe/TCP. */
	put(NVME1 "/transport", "tcp\n");
	blockdev(NVME1 "/nvme1n1", "nvme1n1", "259:4", "2097152", false);
	link_to(NVME1 "/nvme1n1/device", NVME1);
	/* Native multipath head over an RDMA controller. */
	put(NVME2 "/transport", "rdma\n");
	link_to(SUBSYS "/nvme2", NVME2);
	put(SUBSYS "/subsysnqn", "nqn.test\n");
	blockdev(SUBSYS "/nvme2n1", "nvme2n1", "259:5", "2097152", false);
	link_to(SUBSYS "/nvme2n1/device", SUBSYS);
	/* pmem. */
	blockdev("devices/platform/ndbus0/region0/namespace0.0/block/pmem0",
		 "pmem0", "259:10", "2097152", false);
	/* SATA disks, one with a mounted partition. */
	blockdev(SDA, "sda", "8:0", "2097152", false);
	mkdirs(SDA "/device");
	blockdev(SDB, "sdb", "8:16", "2097152", false);
	blockdev(SDB "/sdb1", "sdb1", "8:17", "2048", true);
	/* dm-0 over nvme0n1p1 and nvme3n1 (both nvme); dm-1 over nvme3n1 and
	 * sda (mixed); dm-2 is a dm-tier device. */
	blockdev(VIRT "/dm-0", "dm-0", "253:0", "4096", false);
	put(VIRT "/dm-0/dm/name", "vg-lv\n");
	put(VIRT "/dm-0/dm/uuid", "LVM-abc\n");
	link_to(VIRT "/dm-0/slaves/nvme0n1p1", NVME0 "/nvme0n1/nvme0n1p1");
	link_to(VIRT "/dm-0/slaves/nvme3n1", NVME3 "/nvme3n1");
	link_to(NVME0 "/nvme0n1/nvme0n1p1/holders/dm-0", VIRT "/dm-0");
	blockdev(VIRT "/dm-1", "dm-1", "253:1", "4096", false);
	put(VIRT "/dm-1/dm/name", "mixed\n");
	link_to(VIRT "/dm-1/slaves/nvme3n1", NVME3 "/nvme3n1");
	link_to(VIRT "/dm-1/slaves/sda", SDA);
	link_to(SDA "/holders/dm-1", VIRT "/dm-1");
	blockdev(VIRT "/dm-2", "dm-2", "253:2", "4096", false);
	put(VIRT "/dm-2/dm/name", "fast\n");
	put(VIRT "/dm-2/dm/uuid", "DMTIER-00112233445566778899aabbccddeeff\n");
	/* md over pmem0 (one slave). */
	blockdev(VIRT "/md0", "md0", "9:0", "4096", false);
	link_to(VIRT "/md0/slaves/pmem0",
		"devices/platform/ndbus0/region0/namespace0.0/block/pmem0");
	/* Skipped by the scan. */
	blockdev(VIRT "/loop0", "loop0", "7:0", "0", false);
	blockdev(VIRT "/loop1", "loop1", "7:1", "2048", false);
	put(VIRT "/loop1/loop/backing_file", "/tmp/a.img\n");
	blockdev(VIRT "/loop1/loop1p1", "loop1p1", "259:20", "1024", true);
	blockdev(VIRT "/loop2", "loop2", "7:2", "2048", false);	/* no file */
	blockdev(VIRT "/ram0", "ram0", "1:0", "8192", false);
	blockdev(VIRT "/zram0", "zram0", "252:0", "8192", false);
	blockdev(SDA "/../sr0", "sr0", "11:0", "8192", false);
	/* A device whose DEVNAME is in a subdirectory. */
	blockdev(VIRT "/odd0", "odd0", "240:0", "8192", false);
	put(VIRT "/odd0/uevent", "MAJOR=240\nMINOR=0\nDEVNAME=odd/0\n");

	put("mountinfo",
	    "22 1 0:21 / /proc rw - proc proc rw\n"
	    "36 25 8:17 / /mnt/my\\040data rw,relatime shared:1 - ext4 /dev/sdb1 rw\n");
	return 0;
}

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void test_devname(void **state)
{
	char p[TL_PATH_LEN];

	(void)state;
	assert_int_equal(tl_sysfs_devname(root, 259, 0, p, sizeof(p)), 0);
	assert_string_equal(p, "/dev/nvme0n1");
	assert_int_equal(tl_sysfs_devname(root, 259, 1, p, sizeof(p)), 0);
	assert_string_equal(p, "/dev/nvme0n1p1");
	assert_int_equal(tl_sysfs_devname(root, 240, 0, p, sizeof(p)), 0);
	assert_string_equal(p, "/dev/odd/0");
	assert_int_equal(tl_sysfs_devname(root, 1, 99, p, sizeof(p)), -ENOENT);
	assert_int_equal(tl_sysfs_devname(root, 259, 0, p, 8), -ENAMETOOLONG);
}

static void test_parse_devt(void **state)
{
	unsigned int a, b;

	(void)state;
	assert_int_equal(tl_parse_devt("259:12", &a, &b), 0);
	assert_int_equal(a, 259);
	assert_int_equal(b, 12);
	assert_int_equal(tl_parse_devt("259:", &a, &b), -EINVAL);
	assert_int_equal(tl_parse_devt(":1", &a, &b), -EINVAL);
	assert_int_equal(tl_parse_devt("1:2x", &a, &b), -EINVAL);
	assert_int_equal(tl_parse_devt("1-2", &a, &b), -EINVAL);
	assert_int_equal(tl_parse_devt("/dev/sda", &a, &b), -EINVAL);
	assert_int_equal(tl_parse_devt("1:-2", &a, &b), -EINVAL);
	assert_int_equal(tl_parse_devt("99999999999:1", &a, &b), -EINVAL);
}

static void test_class(void **state)
{
	(void)state;
	assert_int_equal(tl_sysfs_detect_class(root, 259, 0), TIER_CLASS_NVME);
	/* A partition is classed like its disk. */
	assert_int_equal(tl_sysfs_detect_class(root, 259, 1), TIER_CLASS_NVME);
	assert_int_equal(tl_sysfs_detect_class(root, 259, 4), TIER_CLASS_NVMF);
	/* Multipath head: the subsystem's controller decides. */
	assert_int_equal(tl_sysfs_detect_class(root, 259, 5), TIER_CLASS_NVMF);
	assert_int_equal(tl_sysfs_detect_class(root, 259, 10), TIER_CLASS_PMEM);
	assert_int_equal(tl_sysfs_detect_class(root, 8, 0), TIER_CLASS_UNKNOWN);
	/* Stacked devices inherit their slaves' class when they agree. */
	assert_int_equal(tl_sysfs_detect_class(root, 253, 0), TIER_CLASS_NVME);
	assert_int_equal(tl_sysfs_detect_class(root, 253, 1),
			 TIER_CLASS_UNKNOWN);
	assert_int_equal(tl_sysfs_detect_class(root, 9, 0), TIER_CLASS_PMEM);
	/* No slaves at all. */
	assert_int_equal(tl_sysfs_detect_class(root, 253, 2),
			 TIER_CLASS_UNKNOWN);
	assert_int_equal(tl_sysfs_detect_class(root, 1, 99),
			 TIER_CLASS_UNKNOWN);
}

/*
 * Persistent memory by its sysfs path rather than its name: a CXL pmem
 * region's namespace (ndbus under nvdimm-bridge), an nd region/namespace,
 * a partition of one; "region" alone is not enough.
 */
#define CXL_NS "devices/platform/ACPI0017:00/root0/nvdimm-bridge0/ndbus1/region1/namespace1.0/block/cxlns0"
static void test_class_pmem_path(void **state)
{
	(void)state;
	blockdev(CXL_NS, "cxlns0", "259:30", "2097152", false);
	blockdev(CXL_NS "/cxlns0p1", "cxlns0p1", "259:31", "1024", true);
	blockdev("devices/platform/nd/region2/namespace2.0/block/blk2", "blk2",
		 "259:32", "2097152", false);
	blockdev("devices/platform/bar/region3/block/xyz0", "xyz0", "259:33",
		 "2097152", false);
	assert_int_equal(tl_sysfs_detect_class(root, 259, 30), TIER_CLASS_PMEM);
	assert_int_equal(tl_sysfs_detect_class(root, 259, 31), TIER_CLASS_PMEM);
	assert_int_equal(tl_sysfs_detect_class(root, 259, 32), TIER_CLASS_PMEM);
	assert_int_equal(tl_sysfs_detect_class(root, 259, 33),
			 TIER_CLASS_UNKNOWN);
	/* NVMe stays nvme, whatever else is on the machine. */
	assert_int_equal(tl_sysfs_detect_class(root, 259, 3), TIER_CLASS_NVME);
}

static void test_busy(void **state)
{
	char mi[512], buf[512];

	(void)state;
	snprintf(mi, sizeof(mi), "%s/mountinfo", root);
	assert_true(tl_sysfs_busy_reason(root, mi, 8, 17, buf, sizeof(buf)));
	assert_string_equal(buf, "/dev/sdb1 is mounted on /mnt/my data");
	/* The whole disk: one of its partitions is mounted. */
	assert_true(tl_sysfs_busy_reason(root, mi, 8, 16, buf, sizeof(buf)));
	assert_string_equal(buf, "/dev/sdb1 is mounted on /mnt/my data");
	assert_true(tl_sysfs_busy_reason(root, mi, 8, 0, buf, sizeof(buf)));
	assert_string_equal(buf, "/dev/sda is held by /dev/mapper/mixed");
	assert_true(tl_sysfs_busy_reason(root, mi, 259, 0, buf, sizeof(buf)));
	assert_string_equal(buf, "/dev/nvme0n1p1 is held by /dev/mapper/vg-lv");
	assert_false(tl_sysfs_busy_reason(root, mi, 259, 4, buf, sizeof(buf)));
	assert_false(tl_sysfs_busy_reason(root, "/nonexistent", 259, 4, buf,
					  sizeof(buf)));
	assert_false(tl_sysfs_busy_reason(root, mi, 1, 99, buf, sizeof(buf)));
}

static void test_scan(void **state)
{
	/*
	 * sda and nvme0n1p1 are left out: device-mapper devices (not
	 * dm-tier) hold them, so their labels are read through the holders.
	 */
	static const char *const want[] = {
		"dm-0",	   "dm-1",    "loop1",	 "loop1p1", "md0",
		"nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1", "odd0",
		"pmem0",   "sdb",     "sdb1",
	};
	struct tl_blockdev *bd;
	char bad[300];
	size_t n, i;

	(void)state;
	assert_int_equal(tl_sysfs_scan(root, &bd, &n), 0);
	for (i = 0; i < n && i < ARRAY_SIZE(want); i++)
		assert_string_equal(bd[i].name, want[i]);
	assert_int_equal(n, ARRAY_SIZE(want));
	assert_string_equal(bd[9].path, "/dev/odd/0");
	assert_string_equal(bd[5].path, "/dev/nvme0n1");
	assert_int_equal(bd[5].maj, 259);
	assert_int_equal(bd[5].min, 0);
	free(bd);
	snprintf(bad, sizeof(bad), "%s/none", root);
	assert_int_equal(tl_sysfs_scan(bad, &bd, &n), -ENOENT);
}

/* dm name -> kernel name, the join key with node_exporter's node_disk_*. */
static void test_dm_kname(void **state)
{
	char k[16], tiny[4];

	(void)state;
	assert_int_equal(tl_sysfs_dm_kname(root, "fast", k, sizeof(k)), 0);
	assert_string_equal(k, "dm-2");
	assert_int_equal(tl_sysfs_dm_kname(root, "vg-lv", k, sizeof(k)), 0);
	assert_string_equal(k, "dm-0");
	/* Whole names only; other devices' dm/ is not looked at. */
	assert_int_equal(tl_sysfs_dm_kname(root, "vg", k, sizeof(k)), -ENOENT);
	assert_int_equal(tl_sysfs_dm_kname(root, "", k, sizeof(k)), -ENOENT);
	assert_int_equal(tl_sysfs_dm_kname(root, "nvme0n1", k, sizeof(k)),
			 -ENOENT);
	assert_int_equal(tl_sysfs_dm_kname(root, "mixed", tiny, sizeof(tiny)),
			 -ENAMETOOLONG);
	assert_int_equal(tl_sysfs_dm_kname("/nonexistent-sysfs", "fast", k,
					   sizeof(k)),
			 -ENOENT);
}

static void test_module_version(void **state)
{
	char v[32];

	(void)state;
	put("module/dm_tier/version", "0.1.0\n");
	mkdirs("module/dm_mod");
	assert_int_equal(tl_sysfs_module_version(root, "dm_tier", v, sizeof(v)),
			 0);
	assert_string_equal(v, "0.1.0");
	/* Loaded without MODULE_VERSION, or not loaded at all. */
	assert_int_equal(tl_sysfs_module_version(root, "dm_mod", v, sizeof(v)),
			 -ENOENT);
	assert_int_equal(tl_sysfs_module_version(root, "nope", v, sizeof(v)),
			 -ENOENT);
	put("module/empty/version", "\n");
	assert_int_equal(tl_sysfs_module_version(root, "empty", v, sizeof(v)),
			 -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devname),
		cmocka_unit_test(test_parse_devt),
		cmocka_unit_test(test_class),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_dm_kname),
		cmocka_unit_test(test_module_version),
		/* Last: adds devices the scan above does not expect. */
		cmocka_unit_test(test_class_pmem_path),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
