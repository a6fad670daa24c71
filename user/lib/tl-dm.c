// SPDX-License-Identifier: GPL-2.0
/* libtier: libdevmapper wrappers (see tl-dm.h). */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <stdarg.h>
#include <stdio.h>

#include <libdevmapper.h>

#include "tl-dm.h"

static char last_error[512];

static void tl_dm_log(int level, const char *file, int line,
		      int dm_errno_or_class, const char *f, ...)
{
	va_list ap;

	(void)file;
	(void)line;
	(void)dm_errno_or_class;
	/* libdevmapper's levels: 2 fatal, 3 error, 4 warning... in the low
	 * bits, flags above. */
	if ((level & 0xf) > 3)
		return;
	va_start(ap, f);
	vsnprintf(last_error, sizeof(last_error), f, ap);
	va_end(ap);
}

void tl_dm_init(void)
{
	dm_log_with_errno_init(tl_dm_log);
	dm_udev_set_sync_support(1);
}

const char *tl_dm_last_error(void)
{
	return last_error;
}

bool tl_dm_available(void)
{
	char v[64];

	return dm_driver_version(v, sizeof(v)) != 0;
}

bool tl_dm_target_loaded(const char *type)
{
	uint32_t ver[3];

	return tl_dm_target_version(type, ver);
}

bool tl_dm_target_version(const char *type, uint32_t ver[3])
{
	struct dm_versions *t, *last;
	struct dm_task *dmt = dm_task_create(DM_DEVICE_LIST_VERSIONS);
	bool found = false;

	if (!dmt)
		return false;
	if (!dm_task_run(dmt))
		goto out;
	t = dm_task_get_versions(dmt);
	do {
		last = t;
		if (!strcmp(t->name, type)) {
			memcpy(ver, t->version, 3 * sizeof(uint32_t));
			found = true;
			break;
		}
		t = (struct dm_versions *)((char *)t + t->next);
	} while (last != t);
out:
	dm_task_destroy(dmt);
	return found;
}

/* dm_task_create() fails when /dev/mapper/control cannot be opened. */
static int no_task(struct tl_err *err)
{
	if (!tl_dm_available())
		return tl_fail(err, TL_FAIL,
			       "device-mapper is not available (run 'modprobe dm-mod' and 'modprobe dm-tier')");
	return tl_fail(err, TL_FAIL, "cannot start a device-mapper request%s%s",
		       *last_error ? ": " : "", last_error);
}

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

int tl_dm_query(const char *name, const char *uuid, bool status,
		struct tl_dm_dev *d, struct tl_err *err)
{
	struct dm_task *dmt;
	struct dm_info info;
	uint64_t start, length;
	char *type = NULL, *params = NULL;
	void *next = NULL;
	int ret = -EIO;

	memset(d, 0, sizeof(*d));
	last_error[0] = '\0';
	dmt = dm_task_create(status ? DM_DEVICE_STATUS : DM_DEVICE_TABLE);
	if (!dmt) {
		no_task(err);
		return -EIO;
	}
	if ((name && !dm_task_set_name(dmt, name)) ||
	    (!name && !dm_task_set_uuid(dmt, uuid))) {
		tl_fail(err, TL_FAIL, "invalid device name '%s'",
			name ? name : uuid);
		goto out;
	}
	if (!dm_task_run(dmt)) {
		if (dm_task_get_errno(dmt) == ENXIO) {
			ret = -ENXIO;
			goto out;
		}
		tl_fail(err, TL_FAIL,
			"cannot query device-mapper device '%s'%s%s",
			name ? name : uuid, *last_error ? ": " : "",
			last_error);
		goto out;
	}
	if (!dm_task_get_info(dmt, &info)) {
		tl_fail(err, TL_FAIL, "cannot get device-mapper info");
		goto out;
	}
	if (!info.exists) {
		ret = -ENXIO;
		goto out;
	}
	copy_str(d->name, sizeof(d->name), dm_task_get_name(dmt));
	copy_str(d->uuid, sizeof(d->uuid), dm_task_get_uuid(dmt));
	d->maj = info.major;
	d->min = info.minor;
	d->open_count = info.open_count;
	d->suspended = info.suspended;
	d->read_only = info.read_only;
	do {
		next = dm_get_next_target(dmt, next, &start, &length, &type,
					  &params);
		if (!type)
			break;
		if (d->nr_targets++ == 0) {
			d->start = start;
			d->length = length;
			copy_str(d->type, sizeof(d->type), type);
			d->params = strdup(params ? params : "");
			if (!d->params) {
				tl_fail(err, TL_FAIL, "out of memory");
				goto out;
			}
		}
	} while (next);
	ret = 0;
out:
	if (ret)
		tl_dm_dev_free(d);
	dm_task_destroy(dmt);
	return ret;
}

void tl_dm_dev_free(struct tl_dm_dev *d)
{
	free(d->params);
	d->params = NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tl_dm_list_names(char ***names, size_t *n, struct tl_err *err)
{
	struct dm_task *dmt = dm_task_create(DM_DEVICE_LIST);
	struct dm_names *nm;
	unsigned int next = 0;
	char **v = NULL, **nv;
	size_t nr = 0;
	int ret = -EIO;

	*names = NULL;
	*n = 0;
	last_error[0] = '\0';
	if (!dmt)
		return no_task(err), -EIO;
	if (!dm_task_run(dmt)) {
		tl_fail(err, TL_FAIL, "cannot list device-mapper devices%s%s",
			*last_error ? ": " : "", last_error);
		goto out;
	}
	nm = dm_task_get_names(dmt);
	if (nm && nm->dev) {
		do {
			nm = (struct dm_names *)((char *)nm + next);
			nv = realloc(v, (nr + 1) * sizeof(*v));
			if (!nv || !(nv[nr] = strdup(nm->name))) {
				v = nv ? nv : v;
				tl_dm_names_free(v, nr);
				v = NULL;
				nr = 0;
				tl_fail(err, TL_FAIL, "out of memory");
				goto out;
			}
			v = nv;
			nr++;
			next = nm->next;
		} while (next);
	}
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_str);
	*names = v;
	*n = nr;
	ret = 0;
out:
	dm_task_destroy(dmt);
	return ret;
}

void tl_dm_names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int tl_dm_create(const char *name, const char *dm_uuid, u64 sectors,
		 const char *type, const char *params, struct tl_err *err)
{
	return tl_dm_create_mode(name, dm_uuid, sectors, type, params, false,
				 err);
}

int tl_dm_create_mode(const char *name, const char *dm_uuid, u64 sectors,
		      const char *type, const char *params, bool read_only,
		      struct tl_err *err)
{
	struct dm_task *dmt;
	uint32_t cookie = 0;
	int ok = 0;

	last_error[0] = '\0';
	dmt = dm_task_create(DM_DEVICE_CREATE);
	if (!dmt)
		return no_task(err);
	if (!dm_task_set_name(dmt, name) ||
	    (dm_uuid && !dm_task_set_uuid(dmt, dm_uuid)) ||
	    (read_only && !dm_task_set_ro(dmt)) ||
	    !dm_task_add_target(dmt, 0, sectors, type, params) ||
	    !dm_task_set_cookie(dmt, &cookie, 0)) {
		dm_task_destroy(dmt);
		return tl_fail(err, TL_FAIL,
			       "cannot prepare the device-mapper request%s%s",
			       *last_error ? ": " : "", last_error);
	}
	ok = dm_task_run(dmt);
	(void)dm_udev_wait(cookie);
	dm_task_destroy(dmt);
	if (ok)
		return TL_OK;
	if (!tl_dm_available())
		return tl_fail(err, TL_FAIL,
			       "device-mapper is not available (run 'modprobe dm-mod' and 'modprobe dm-tier')");
	if (!tl_dm_target_loaded(type)) {
		tl_fail(err, TL_FAIL,
			"device-mapper rejected the table; see dmesg");
		tl_err_append(err,
			      "the dm-%s target is not loaded: run 'modprobe dm-%s'",
			      type, type);
		return TL_FAIL;
	}
	tl_fail(err, TL_FAIL, "device-mapper rejected the table; see dmesg");
	if (*last_error)
		tl_err_append(err, "(libdevmapper: %s)", last_error);
	return TL_FAIL;
}

/* One simple task on @name (suspend, resume, clear); true when it ran. */
static bool simple_task(int type, const char *name, bool udev)
{
	struct dm_task *dmt = dm_task_create(type);
	uint32_t cookie = 0;
	bool ok;

	if (!dmt)
		return false;
	ok = dm_task_set_name(dmt, name) &&
	     (!udev || dm_task_set_cookie(dmt, &cookie, 0)) &&
	     dm_task_run(dmt);
	if (udev && cookie)
		(void)dm_udev_wait(cookie);
	dm_task_destroy(dmt);
	return ok;
}

int tl_dm_reload(const char *name, u64 start, u64 sectors, const char *type,
		 const char *params, struct tl_err *err)
{
	struct dm_task *dmt;
	bool ok;

	last_error[0] = '\0';
	dmt = dm_task_create(DM_DEVICE_RELOAD);
	if (!dmt)
		return no_task(err);
	ok = dm_task_set_name(dmt, name) &&
	     dm_task_add_target(dmt, start, sectors, type, params) &&
	     dm_task_run(dmt);
	dm_task_destroy(dmt);
	if (!ok) {
		tl_fail(err, TL_FAIL,
			"device-mapper refused the new table of %s; see dmesg",
			name);
		if (*last_error)
			tl_err_append(err, "(libdevmapper: %s)", last_error);
		return TL_FAIL;
	}
	if (!simple_task(DM_DEVICE_SUSPEND, name, false)) {
		(void)simple_task(DM_DEVICE_CLEAR, name, false);
		(void)simple_task(DM_DEVICE_RESUME, name, true);
		return tl_fail(err, TL_FAIL, "cannot suspend %s%s%s", name,
			       *last_error ? ": " : "", last_error);
	}
	if (!simple_task(DM_DEVICE_RESUME, name, true))
		return tl_fail(err, TL_FAIL,
			       "cannot resume %s with its new table%s%s; 'dmsetup resume %s' once the cause is fixed",
			       name, *last_error ? ": " : "", last_error, name);
	return TL_OK;
}

int tl_dm_remove(const char *name, struct tl_err *err)
{
	struct dm_task *dmt;
	uint32_t cookie = 0;
	int ok, e;

	last_error[0] = '\0';
	dmt = dm_task_create(DM_DEVICE_REMOVE);
	if (!dmt)
		return no_task(err);
	if (!dm_task_set_name(dmt, name) || !dm_task_retry_remove(dmt) ||
	    !dm_task_set_cookie(dmt, &cookie, 0)) {
		dm_task_destroy(dmt);
		return tl_fail(err, TL_FAIL,
			       "cannot prepare the device-mapper request%s%s",
			       *last_error ? ": " : "", last_error);
	}
	ok = dm_task_run(dmt);
	e = dm_task_get_errno(dmt);
	(void)dm_udev_wait(cookie);
	dm_task_destroy(dmt);
	if (ok)
		return TL_OK;
	if (e == EBUSY)
		return tl_fail(err, TL_FAIL,
			       "%s is busy (mounted, open, or used by another device); unmount or close it and retry",
			       name);
	if (e == ENXIO)
		return tl_fail(err, TL_FAIL, "no device-mapper device named '%s'",
			       name);
	return tl_fail(err, TL_FAIL, "cannot remove %s%s%s", name,
		       *last_error ? ": " : "", last_error);
}

int tl_dm_message(const char *name, const char *msg, struct tl_err *err)
{
	struct dm_task *dmt;
	int ok, e;

	last_error[0] = '\0';
	dmt = dm_task_create(DM_DEVICE_TARGET_MSG);
	if (!dmt)
		return no_task(err);
	ok = dm_task_set_name(dmt, name) && dm_task_set_sector(dmt, 0) &&
	     dm_task_set_message(dmt, msg) && dm_task_run(dmt);
	e = dm_task_get_errno(dmt);
	dm_task_destroy(dmt);
	if (ok)
		return TL_OK;
	if (e == ENXIO)
		return tl_fail(err, TL_FAIL, "no device-mapper device named '%s'",
			       name);
	if (e == EROFS)
		return tl_fail(err, TL_FAIL,
			       "%s is activated read-only: nothing can change (activate it read-write to change it)",
			       name);
	return tl_fail(err, TL_FAIL, "%s refused the message '%s'%s%s; see dmesg",
		       name, msg, *last_error ? ": " : "", last_error);
}
