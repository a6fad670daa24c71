// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics: the textfile for node_exporter's textfile collector, written
 * atomically. tierd serves no HTTP itself (docs/tierd.md, "Metrics").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tierd.h"
#include "tl-sysfs.h"

#include <linux/dm-tier-version.h>

/* ---- metrics -------------------------------------------------------------- */

struct dev_list {
	struct tl_nl_dev *devs;
	size_t nr;
};

static int collect_dev(const struct tl_nl_dev *dev, void *arg)
{
	struct dev_list *l = arg;
	struct tl_nl_dev *more;

	more = realloc(l->devs, (l->nr + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	l->devs = more;
	l->devs[l->nr++] = *dev;
	return 0;
}

/* The current metrics into @out; 0 or -errno (logged). */
static int metrics_render(struct tierd *td, struct tl_strbuf *out)
{
	struct tl_metrics_src src = { .version = DM_TIER_VERSION_STRING };
	struct tl_metrics_events *ev = NULL;
	char (*dm)[32] = NULL, module[64];
	const char **dm_names = NULL;
	struct dev_list l = { 0 };
	struct tl_err err = { "" };
	struct tierd_dev *d;
	size_t i, k, nr_ev = 0;
	int ret;

	/* Without the family (module not loaded) there is no device: the
	 * families are written without samples, event counters still are. */
	ret = td->nl ? tl_nl_dev_list(td->nl, collect_dev, &l, &err) : TL_OK;
	if (ret != TL_OK) {
		log_warn("metrics: listing devices failed: %s", err.msg);
		free(l.devs);
		return -EIO;
	}
	ev = calloc(td->nr_devs ? td->nr_devs : 1, sizeof(*ev));
	dm = calloc(l.nr ? l.nr : 1, sizeof(*dm));
	dm_names = calloc(l.nr ? l.nr : 1, sizeof(*dm_names));
	if (!ev || !dm || !dm_names) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < td->nr_devs; i++)
		ev[nr_ev++] = td->devs[i].events;
	/* Device geometry is refreshed by the listing too (devices tierd
	 * has not seen yet are left to the scan and dev-new). */
	for (i = 0; i < l.nr; i++) {
		for (k = 0; k < td->nr_devs; k++) {
			d = &td->devs[k];
			if (d->present && !strcmp(d->name, l.devs[i].name))
				tierd_dev_update(d, &l.devs[i]);
		}
	}
	/* A device not found in sysfs (yet) gets dm="". */
	for (i = 0; i < l.nr; i++) {
		if (!tl_sysfs_dm_kname(TL_SYSROOT, l.devs[i].name, dm[i],
				       sizeof(dm[i])))
			dm_names[i] = dm[i];
	}
	if (!tl_sysfs_module_version(TL_SYSROOT, "dm_tier", module,
				     sizeof(module)))
		src.module_version = module;
	src.devs = l.devs;
	src.dm_names = dm_names;
	src.nr_devs = l.nr;
	src.events = ev;
	src.nr_events = nr_ev;
	ret = tl_metrics_format(out, &src);
out:
	free(dm_names);
	free(dm);
	free(ev);
	free(l.devs);
	if (ret)
		log_err("metrics: out of memory");
	return ret;
}

int tierd_metrics_write_textfile(struct tierd *td, const char *path)
{
	struct tl_strbuf b = { 0 };
	char *tmp = NULL;
	size_t off = 0;
	ssize_t n;
	int fd = -1, ret;

	ret = metrics_render(td, &b);
	if (ret)
		goto out;
	/* Same directory, so rename() is atomic: node_exporter never reads a
	 * half-written file. */
	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0) {
		tmp = NULL;
		ret = -ENOMEM;
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		log_warn(
			"metrics: cannot create %s: %s (check that the directory exists and is writable)",
			tmp, strerror(errno));
		goto out;
	}
	while (off < b.len) {
		n = write(fd, b.buf + off, b.len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			log_warn("metrics: writing %s: %s", tmp,
				 strerror(errno));
			goto out;
		}
		off += (size_t)n;
	}
	if (fchmod(fd, 0644) || close(fd)) {
		fd = -1;
		ret = -errno;
		log_warn("metrics: closing %s: %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path)) {
		ret = -errno;
		log_warn("metrics: rename %s to %s: %s", tmp, path,
			 strerror(errno));
		goto out;
	}
	log_debug("metrics: wrote %zu bytes to %s", b.len, path);
out:
	if (fd >= 0)
		close(fd);
	if (ret && tmp)
		unlink(tmp);
	free(tmp);
	tl_strbuf_free(&b);
	return ret;
}
