// SPDX-License-Identifier: GPL-2.0
/* libtier: block devices in sysfs (see tl-sysfs.h). */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "tl-sysfs.h"

/* snprintf() without -Wformat-truncation guesses: paths are checked by
 * the open that follows, a truncated one simply does not exist. */
static int pathf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n;
}

/* Read a small sysfs attribute, newline stripped; 0 or -errno. */
static int read_attr(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int tl_parse_devt(const char *s, unsigned int *maj, unsigned int *min)
{
	unsigned long a, b;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	a = strtoul(s, &end, 10);
	if (*end != ':' || errno || a > UINT_MAX)
		return -EINVAL;
	s = end + 1;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	b = strtoul(s, &end, 10);
	if (*end || errno || b > UINT_MAX)
		return -EINVAL;
	*maj = a;
	*min = b;
	return 0;
}

/* DEVNAME= from a uevent file; 0 or -errno. */
static int uevent_devname(const char *dir, char *name, size_t len)
{
	char path[PATH_MAX], line[512];
	int ret = -ENOENT;
	FILE *f;

	pathf(path, sizeof(path), "%s/uevent", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "DEVNAME=", 8))
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line + 8) + 1 > len) {
			ret = -ENAMETOOLONG;
			break;
		}
		strcpy(name, line + 8);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

int tl_sysfs_devname(const char *sysroot, unsigned int maj, unsigned int min,
		     char *path, size_t len)
{
	char dir[PATH_MAX], name[TL_PATH_LEN];
	int ret;

	pathf(dir, sizeof(dir), "%s/dev/block/%u:%u", sysroot, maj, min);
	ret = uevent_devname(dir, name, sizeof(name));
	if (ret)
		return ret;
	if ((size_t)pathf(path, len, "/dev/%s", name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* The sysfs directory of a device, resolved; partitions → their disk. */
static int disk_dir(const char *sysroot, unsigned int maj, unsigned int min,
		    char *out)
{
	char link[PATH_MAX], probe[PATH_MAX + 16];

	pathf(link, sizeof(link), "%s/dev/block/%u:%u", sysroot, maj, min);
	if (!realpath(link, out))
		return -errno;
	pathf(probe, sizeof(probe), "%s/partition", out);
	if (path_exists(probe)) {
		char *slash = strrchr(out, '/');

		if (!slash || slash == out)
			return -ENOENT;
		*slash = '\0';
	}
	return 0;
}

static u32 class_of_transport(const char *t)
{
	if (!strcmp(t, "pcie"))
		return TIER_CLASS_NVME;
	if (!strcmp(t, "tcp") || !strcmp(t, "rdma") || !strcmp(t, "fc") ||
	    !strcmp(t, "loop"))
		return TIER_CLASS_NVMF;
	return TIER_CLASS_UNKNOWN;
}

static u32 nvme_class(const char *dir)
{
	char path[PATH_MAX + 64], t[32];
	struct dirent *de;
	u32 cls = TIER_CLASS_UNKNOWN;
	DIR *d;

	pathf(path, sizeof(path), "%s/device/transport", dir);
	if (!read_attr(path, t, sizeof(t)))
		return class_of_transport(t);
	/* Native multipath: device/ is the subsystem, listing controllers. */
	pathf(path, sizeof(path), "%s/device", dir);
	d = opendir(path);
	if (!d)
		return TIER_CLASS_UNKNOWN;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "nvme", 4) || de->d_name[4] < '0' ||
		    de->d_name[4] > '9')
			continue;
		pathf(path, sizeof(path), "%s/device/%s/transport", dir,
			 de->d_name);
		if (!read_attr(path, t, sizeof(t))) {
			cls = class_of_transport(t);
			break;
		}
	}
	closedir(d);
	return cls;
}

static u32 detect_class(const char *sysroot, unsigned int maj,
			unsigned int min, int depth);

/* Whether a path component of @dir is @prefix followed by a digit. */
static bool has_component(const char *dir, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p;

	for (p = dir; (p = strchr(p, '/')); p++) {
		if (!strncmp(p + 1, prefix, n) && p[1 + n] >= '0' &&
		    p[1 + n] <= '9')
			return true;
	}
	return false;
}

/*
 * A namespace of the nvdimm (libnvdimm) bus: persistent memory, also CXL
 * persistent memory regions, whose sysfs path runs through ndbusN (the
 * bus, e.g. under nvdimm-bridgeN for CXL) or regionN/namespaceN.M.
 */
static bool is_nd_namespace(const char *dir)
{
	return has_component(dir, "ndbus") ||
	       (has_component(dir, "region") && has_component(dir, "namespace"));
}

/* All slaves of a stacked device agree on a class: that class. */
static u32 slaves_class(const char *sysroot, const char *dir, int depth)
{
	char path[PATH_MAX + 300], devt[32];
	unsigned int smaj, smin;
	struct dirent *de;
	u32 cls = TIER_CLASS_UNKNOWN, c;
	bool first = true;
	DIR *d;

	pathf(path, sizeof(path), "%s/slaves", dir);
	d = opendir(path);
	if (!d)
		return TIER_CLASS_UNKNOWN;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		pathf(path, sizeof(path), "%s/slaves/%s/dev", dir,
			 de->d_name);
		if (read_attr(path, devt, sizeof(devt)) ||
		    tl_parse_devt(devt, &smaj, &smin)) {
			cls = TIER_CLASS_UNKNOWN;
			break;
		}
		c = detect_class(sysroot, smaj, smin, depth + 1);
		if (first) {
			cls = c;
			first = false;
		} else if (c != cls) {
			cls = TIER_CLASS_UNKNOWN;
			break;
		}
	}
	closedir(d);
	return cls;
}

static u32 detect_class(const char *sysroot, unsigned int maj,
			unsigned int min, int depth)
{
	char dir[PATH_MAX];
	const char *name;

	if (depth > 8 || disk_dir(sysroot, maj, min, dir))
		return TIER_CLASS_UNKNOWN;
	name = strrchr(dir, '/');
	name = name ? name + 1 : dir;
	if (!strncmp(name, "pmem", 4) || is_nd_namespace(dir))
		return TIER_CLASS_PMEM;
	if (!strncmp(name, "nvme", 4))
		return nvme_class(dir);
	if (!strncmp(name, "dm-", 3) || !strncmp(name, "md", 2))
		return slaves_class(sysroot, dir, depth);
	return TIER_CLASS_UNKNOWN;
}

u32 tl_sysfs_detect_class(const char *sysroot, unsigned int maj,
			  unsigned int min)
{
	return detect_class(sysroot, maj, min, 0);
}

/* Undo the octal escapes (\040 etc.) of /proc/self/mountinfo. */
static void unescape_mount(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (s[1] - '0') * 64 + (s[2] - '0') * 8 +
			       (s[3] - '0');
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

static bool mounted_on(const char *mountinfo, unsigned int maj,
		       unsigned int min, char *where, size_t len)
{
	char line[4096], devt[32], mnt[PATH_MAX];
	bool found = false;
	FILE *f = fopen(mountinfo, "re");

	if (!f)
		return false;
	pathf(devt, sizeof(devt), "%u:%u", maj, min);
	while (fgets(line, sizeof(line), f)) {
		char dev[32];

		/* id parent MAJ:MIN root mountpoint ... */
		if (sscanf(line, "%*s %*s %31s %*s %4095s", dev, mnt) != 2)
			continue;
		if (strcmp(dev, devt))
			continue;
		unescape_mount(mnt);
		pathf(where, len, "%s", mnt);
		found = true;
		break;
	}
	fclose(f);
	return found;
}

/* One device: mounted or held? */
static bool dev_busy(const char *sysroot, const char *mountinfo,
		     const char *dir, unsigned int maj, unsigned int min,
		     char *buf, size_t len)
{
	char who[TL_PATH_LEN], where[PATH_MAX], path[PATH_MAX + 300],
		hname[256];
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (tl_sysfs_devname(sysroot, maj, min, who, sizeof(who)))
		pathf(who, sizeof(who), "device %u:%u", maj, min);
	if (mounted_on(mountinfo, maj, min, where, sizeof(where))) {
		pathf(buf, len, "%s is mounted on %s", who, where);
		return true;
	}
	pathf(path, sizeof(path), "%s/holders", dir);
	d = opendir(path);
	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		pathf(path, sizeof(path), "%s/holders/%s/dm/name", dir,
			 de->d_name);
		if (!read_attr(path, hname, sizeof(hname)))
			pathf(buf, len, "%s is held by /dev/mapper/%s", who,
				 hname);
		else
			pathf(buf, len, "%s is held by %s", who,
				 de->d_name);
		found = true;
		break;
	}
	closedir(d);
	return found;
}

bool tl_sysfs_busy_reason(const char *sysroot, const char *mountinfo,
			  unsigned int maj, unsigned int min, char *buf,
			  size_t len)
{
	char link[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 300], devt[32];
	unsigned int pmaj, pmin;
	struct dirent *de;
	bool found;
	DIR *d;

	pathf(link, sizeof(link), "%s/dev/block/%u:%u", sysroot, maj, min);
	if (!realpath(link, dir))
		return false;
	if (dev_busy(sysroot, mountinfo, dir, maj, min, buf, len))
		return true;
	d = opendir(dir);
	if (!d)
		return false;
	found = false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		pathf(path, sizeof(path), "%s/%s/partition", dir,
			 de->d_name);
		if (!path_exists(path))
			continue;
		pathf(path, sizeof(path), "%s/%s/dev", dir, de->d_name);
		if (read_attr(path, devt, sizeof(devt)) ||
		    tl_parse_devt(devt, &pmaj, &pmin))
			continue;
		pathf(path, sizeof(path), "%s/%s", dir, de->d_name);
		found = dev_busy(sysroot, mountinfo, path, pmaj, pmin, buf,
				 len);
	}
	closedir(d);
	return found;
}

static bool skip_name(const char *name)
{
	static const char *const prefixes[] = { "ram", "zram", "sr", "fd" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t n = strlen(prefixes[i]);

		if (!strncmp(name, prefixes[i], n) && name[n] >= '0' &&
		    name[n] <= '9')
			return true;
	}
	return false;
}

/*
 * Whether another block device (dm-linear, multipath, md...) is stacked on
 * @dir: then the label is also seen through that holder, which is the one
 * to use. A dm-tier device holding it does not count: that is the member
 * in use by its own device.
 */
static bool held_by_other(const char *dir)
{
	char path[PATH_MAX + 600], val[256];
	struct dirent *de;
	bool held = false;
	DIR *d;

	pathf(path, sizeof(path), "%s/holders", dir);
	d = opendir(path);
	if (!d)
		return false;
	while (!held && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		pathf(path, sizeof(path), "%s/holders/%s/dm/uuid", dir,
		      de->d_name);
		held = read_attr(path, val, sizeof(val)) ||
		       !tl_is_tier_dm_uuid(val);
	}
	closedir(d);
	return held;
}

/*
 * Whether this host exports @maj:@min through its own NVMe-oF target
 * (nvmet configfs under @sysroot/kernel/config): the device belongs to the
 * target's clients, which see it as their fabric namespace, and must not
 * also be assembled here (it would be a second copy of the same member).
 */
static bool exported_by_nvmet(const char *sysroot, unsigned int maj,
			      unsigned int min)
{
	char subs[PATH_MAX], nss[PATH_MAX + 300], path[PATH_MAX + 600],
		dev[PATH_MAX];
	struct dirent *s, *n;
	bool found = false;
	struct stat st;
	DIR *ds, *dn;

	pathf(subs, sizeof(subs), "%s/kernel/config/nvmet/subsystems", sysroot);
	ds = opendir(subs);
	if (!ds)
		return false;
	while (!found && (s = readdir(ds))) {
		if (s->d_name[0] == '.')
			continue;
		pathf(nss, sizeof(nss), "%s/%s/namespaces", subs, s->d_name);
		dn = opendir(nss);
		if (!dn)
			continue;
		while (!found && (n = readdir(dn))) {
			if (n->d_name[0] == '.')
				continue;
			pathf(path, sizeof(path), "%s/%s/device_path", nss,
			      n->d_name);
			if (read_attr(path, dev, sizeof(dev)) || !dev[0] ||
			    stat(dev, &st) || !S_ISBLK(st.st_mode))
				continue;
			found = major(st.st_rdev) == maj &&
				minor(st.st_rdev) == min;
		}
		closedir(dn);
	}
	closedir(ds);
	return found;
}

static int cmp_blockdev(const void *a, const void *b)
{
	return strcmp(((const struct tl_blockdev *)a)->name,
		      ((const struct tl_blockdev *)b)->name);
}

int tl_sysfs_scan(const char *sysroot, struct tl_blockdev **out, size_t *n)
{
	char base[PATH_MAX], dir[PATH_MAX + 300], path[PATH_MAX + 400],
		val[256];
	struct tl_blockdev *v = NULL, *nv;
	size_t nr = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	pathf(base, sizeof(base), "%s/class/block", sysroot);
	d = opendir(base);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct tl_blockdev b;
		unsigned long long size;

		if (de->d_name[0] == '.' || skip_name(de->d_name) ||
		    strlen(de->d_name) >= sizeof(b.name))
			continue;
		pathf(dir, sizeof(dir), "%s/%s", base, de->d_name);
		pathf(path, sizeof(path), "%s/partition", dir);
		if (!strncmp(de->d_name, "loop", 4) && !path_exists(path)) {
			pathf(path, sizeof(path), "%s/loop/backing_file",
				 dir);
			if (!path_exists(path))
				continue;
		}
		pathf(path, sizeof(path), "%s/size", dir);
		if (read_attr(path, val, sizeof(val)) ||
		    sscanf(val, "%llu", &size) != 1 || size == 0)
			continue;
		pathf(path, sizeof(path), "%s/dev", dir);
		if (read_attr(path, val, sizeof(val)) ||
		    tl_parse_devt(val, &b.maj, &b.min))
			continue;
		if (held_by_other(dir) ||
		    exported_by_nvmet(sysroot, b.maj, b.min))
			continue;
		if (!strncmp(de->d_name, "dm-", 3)) {
			pathf(path, sizeof(path), "%s/dm/uuid", dir);
			if (!read_attr(path, val, sizeof(val)) &&
			    tl_is_tier_dm_uuid(val))
				continue;
		}
		memset(b.name, 0, sizeof(b.name));
		strcpy(b.name, de->d_name);
		if (uevent_devname(dir, val, sizeof(val)))
			pathf(val, sizeof(val), "%s", de->d_name);
		if ((size_t)pathf(b.path, sizeof(b.path), "/dev/%s", val) >=
		    sizeof(b.path))
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[nr++] = b;
	}
	closedir(d);
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_blockdev);
	*out = v;
	*n = nr;
	return 0;
}

int tl_sysfs_dm_kname(const char *sysroot, const char *dm_name, char *kname,
		      size_t len)
{
	char base[PATH_MAX], path[PATH_MAX + 300], val[256];
	struct dirent *de;
	int ret = -ENOENT;
	DIR *d;

	pathf(base, sizeof(base), "%s/class/block", sysroot);
	d = opendir(base);
	if (!d)
		return -errno;
	while (ret == -ENOENT && (de = readdir(d))) {
		if (strncmp(de->d_name, "dm-", 3))
			continue;
		pathf(path, sizeof(path), "%s/%s/dm/name", base, de->d_name);
		if (read_attr(path, val, sizeof(val)) || strcmp(val, dm_name))
			continue;
		ret = (size_t)snprintf(kname, len, "%s", de->d_name) >= len ?
			      -ENAMETOOLONG :
			      0;
	}
	closedir(d);
	return ret;
}

int tl_sysfs_module_version(const char *sysroot, const char *module,
			    char *buf, size_t len)
{
	char path[PATH_MAX];
	int ret;

	pathf(path, sizeof(path), "%s/module/%s/version", sysroot, module);
	ret = read_attr(path, buf, len);
	if (!ret && !buf[0])
		ret = -ENOENT;
	return ret;
}
