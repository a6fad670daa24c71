// SPDX-License-Identifier: GPL-2.0
/*
 * libtier: the state directory's records, small line files replaced
 * atomically under a lock (see tl-state.h); nvmf.conf and mem.conf use it.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tl-state.h"

#define STATE_DEFAULT_DIR "/etc/dm-tier"

const char *tl_state_dir(void)
{
	const char *dir = getenv("TIER_STATE_DIR");

	return dir && *dir ? dir : STATE_DEFAULT_DIR;
}

int tl_state_read_lines(const char *path, char ***lines, size_t *nr,
			struct tl_err *err)
{
	char *line = NULL, **v = NULL, **nv;
	size_t cap = 0, n = 0;
	ssize_t len;
	FILE *f;

	*lines = NULL;
	*nr = 0;
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return TL_OK;
		return tl_fail(err, TL_FAIL, "cannot read %s: %s", path,
			       strerror(errno));
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[len - 1] = '\0';
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			goto oom;
		v = nv;
		v[n] = strdup(line);
		if (!v[n])
			goto oom;
		n++;
	}
	if (ferror(f)) {
		int e = errno;

		free(line);
		fclose(f);
		while (n)
			free(v[--n]);
		free(v);
		return tl_fail(err, TL_FAIL, "cannot read %s: %s", path,
			       strerror(e));
	}
	free(line);
	fclose(f);
	*lines = v;
	*nr = n;
	return TL_OK;
oom:
	free(line);
	fclose(f);
	while (n)
		free(v[--n]);
	free(v);
	return tl_fail(err, TL_FAIL, "out of memory reading %s", path);
}

void tl_state_free_lines(char **lines, size_t nr)
{
	while (nr)
		free(lines[--nr]);
	free(lines);
}

/* mkdir -p @dir (mode 0755). */
static int make_dirs(const char *dir, struct tl_err *err)
{
	char buf[PATH_MAX], *p, c;

	if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
		return tl_fail(err, TL_FAIL, "%s: path too long", dir);
	for (p = buf + 1;; p++) {
		if (*p && *p != '/')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return tl_fail(err, TL_FAIL,
				       "cannot create %s: %s; run tierctl as root or set TIER_STATE_DIR",
				       buf, strerror(errno));
		*p = c;
		if (!c)
			return TL_OK;
	}
}

/* Replace @path with @lines: a temporary file renamed over it. */
static int write_lines(const char *dir, const char *path, char **lines,
		       size_t nr, struct tl_err *err)
{
	char tmp[PATH_MAX];
	size_t i;
	FILE *f;
	int fd, dfd;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return tl_fail(err, TL_FAIL, "%s: path too long", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return tl_fail(err, TL_FAIL,
			       "cannot write %s: %s; run tierctl as root or set TIER_STATE_DIR",
			       path, strerror(errno));
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return tl_fail(err, TL_FAIL, "cannot write %s: %s", tmp,
			       strerror(errno));
	}
	for (i = 0; i < nr; i++)
		fprintf(f, "%s\n", lines[i]);
	if (fflush(f) || fsync(fileno(f)) || ferror(f)) {
		int e = errno;

		fclose(f);
		unlink(tmp);
		return tl_fail(err, TL_FAIL, "cannot write %s: %s", tmp,
			       strerror(e));
	}
	if (fclose(f)) {
		unlink(tmp);
		return tl_fail(err, TL_FAIL, "cannot write %s: %s", tmp,
			       strerror(errno));
	}
	if (rename(tmp, path)) {
		int e = errno;

		unlink(tmp);
		return tl_fail(err, TL_FAIL, "cannot replace %s: %s", path,
			       strerror(e));
	}
	/* The rename itself must survive a crash. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return TL_OK;
}

int tl_state_write_lines(const char *path, char **lines, size_t nr,
			 struct tl_err *err)
{
	const char *dir = tl_state_dir();
	int ret = make_dirs(dir, err);

	return ret ? ret : write_lines(dir, path, lines, nr, err);
}

int tl_state_update(const char *path, const char *header, const char *line,
		    bool (*match)(const char *line, void *arg), void *arg,
		    struct tl_err *err)
{
	char **lines = NULL, **out = NULL;
	bool placed = false, changed = false;
	size_t nr = 0, nout = 0, i;
	int ret, lock;

	/* Two tierctl commands at once must not lose each other's lines. */
	lock = tl_state_lock(err);
	if (lock < 0)
		return TL_FAIL;
	ret = tl_state_read_lines(path, &lines, &nr, err);
	if (ret)
		goto out;
	out = calloc(nr + 2, sizeof(*out));
	if (!out) {
		ret = tl_fail(err, TL_FAIL, "out of memory");
		goto out;
	}
	if (!nr && line)
		out[nout++] = (char *)header;
	for (i = 0; i < nr; i++) {
		if (!match(lines[i], arg)) {
			out[nout++] = lines[i];
			continue;
		}
		if (line && !placed) {
			changed |= strcmp(lines[i], line) != 0;
			out[nout++] = (char *)line;
			placed = true;
		} else {
			changed = true;
		}
	}
	if (line && !placed) {
		out[nout++] = (char *)line;
		changed = true;
	}
	if (changed)
		ret = tl_state_write_lines(path, out, nout, err);
out:
	free(out);
	tl_state_free_lines(lines, nr);
	close(lock);
	return ret ? TL_FAIL : TL_OK;
}

int tl_state_lock(struct tl_err *err)
{
	const char *dir = tl_state_dir();
	int ret = make_dirs(dir, err), dfd;

	if (ret)
		return -1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		tl_fail(err, TL_FAIL, "cannot open %s: %s", dir, strerror(errno));
		return -1;
	}
	if (flock(dfd, LOCK_EX)) {
		tl_fail(err, TL_FAIL, "cannot lock %s: %s", dir, strerror(errno));
		close(dfd);
		return -1;
	}
	return dfd;
}

