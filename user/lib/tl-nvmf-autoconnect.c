// SPDX-License-Identifier: GPL-2.0
/*
 * dm-tier's NVMe-oF tiers in /etc/nvme/config.json; see the header.
 *
 * The file is libnvme's format: an array of hosts ({"hostnqn", "hostid",
 * "subsystems": [{"nqn", "ports": [{"transport", "traddr", "trsvcid",
 * options...}]}]}). It is edited with json-c rather than through libnvme's
 * tree, which also holds the live topology and writes back what it scanned:
 * entries that are not ours stay exactly as they were. Read, changed and
 * written under the state directory's lock (tl_state_lock(), as nvmf.conf
 * and mem.conf), so two tierctl commands at once do not lose each other's
 * entry. Written to a temporary file with the file's mode and owner (it
 * may hold dhchap_key/tls_key: an admin's 0600 stays 0600), fsync()ed,
 * renamed over it, then the directory fsync()ed, so a crash never leaves
 * half a file or loses the rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <nvme/fabrics.h>

#include "tl-nvmf-autoconnect.h"
#include "tl-state.h"

const char *tl_nvmf_autoconnect_path(void)
{
	const char *p = getenv("TIER_NVME_CONFIG");

	return p && *p ? p : "/etc/nvme/config.json";
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) &&
			       json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) :
		       NULL;
}

static bool jeq(struct json_object *o, const char *key, const char *want)
{
	const char *v = jstr(o, key);

	return v && !strcmp(v, want);
}

/* The array member @key of @o, created empty when missing. */
static struct json_object *jarray(struct json_object *o, const char *key)
{
	struct json_object *a;

	if (json_object_object_get_ex(o, key, &a) &&
	    json_object_is_type(a, json_type_array))
		return a;
	a = json_object_new_array();
	json_object_object_add(o, key, a);
	return a;
}

/* The whole file (an empty array when it does not exist). */
static struct json_object *read_config(const char *path, struct tl_err *err)
{
	struct json_object *root;

	if (access(path, F_OK) && errno == ENOENT)
		return json_object_new_array();
	root = json_object_from_file(path);
	if (!root || !json_object_is_type(root, json_type_array)) {
		tl_fail(err, TL_FAIL,
			"cannot read %s: %s; fix or move it (its NVMe-oF connections are nvme-cli's)",
			path, root ? "not a JSON array of hosts" :
				     json_util_get_last_err());
		json_object_put(root);
		return NULL;
	}
	return root;
}

/*
 * Replace @path with @root: a temporary file in its directory, with the
 * mode and owner of the file it replaces (0644 root's for a new one),
 * fsync()ed, renamed over @path, and the directory fsync()ed.
 */
static int write_config(struct json_object *root, const char *path,
			struct tl_err *err)
{
	char tmp[PATH_MAX], dir[PATH_MAX], *slash;
	bool existed;
	struct stat st;
	int fd, dfd, e;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir) ||
	    snprintf(tmp, sizeof(tmp), "%s.dm-tier.XXXXXX", path) >=
		    (int)sizeof(tmp))
		return tl_fail(err, TL_FAIL, "%s: path too long", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	/* /etc/nvme exists only once nvme-cli is installed. */
	mkdir(dir, 0755);
	existed = !stat(path, &st);
	if (!existed && errno != ENOENT)
		return tl_fail(err, TL_FAIL, "cannot read %s: %s", path,
			       strerror(errno));
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return tl_fail(err, TL_FAIL, "cannot write %s: %s", path,
			       strerror(errno));
	/* Its mode and owner before anything is written into it. */
	if (fchmod(fd, existed ? st.st_mode & 07777 : 0644) ||
	    (existed && (st.st_uid != geteuid() || st.st_gid != getegid()) &&
	     fchown(fd, st.st_uid, st.st_gid)) ||
	    json_object_to_fd(fd, root, JSON_C_TO_STRING_PRETTY |
						JSON_C_TO_STRING_NOSLASHESCAPE) ||
	    fsync(fd)) {
		e = errno;
		close(fd);
		unlink(tmp);
		return tl_fail(err, TL_FAIL, "cannot write %s: %s", path,
			       strerror(e));
	}
	if (close(fd)) {
		e = errno;
		unlink(tmp);
		return tl_fail(err, TL_FAIL, "cannot write %s: %s", path,
			       strerror(e));
	}
	if (rename(tmp, path)) {
		e = errno;
		unlink(tmp);
		return tl_fail(err, TL_FAIL, "cannot replace %s: %s", path,
			       strerror(e));
	}
	/* The rename itself must survive a crash. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd)) {
		e = errno;
		if (dfd >= 0)
			close(dfd);
		return tl_fail(err, TL_FAIL,
			       "%s was replaced, but syncing %s failed: %s; run sync",
			       path, dir, strerror(e));
	}
	close(dfd);
	return TL_OK;
}

static bool same_port(struct json_object *port, const struct tl_nvmf_uri *u)
{
	return jeq(port, "transport", u->transport) &&
	       jeq(port, "traddr", u->traddr) &&
	       jeq(port, "trsvcid", u->trsvcid);
}

/* The host entry of this node's host NQN, created when missing. */
static struct json_object *this_host(struct json_object *root)
{
	char *nqn = nvmf_hostnqn_from_file(), *id = nvmf_hostid_from_file();
	struct json_object *h = NULL;
	size_t i;

	for (i = 0; i < json_object_array_length(root); i++) {
		struct json_object *e = json_object_array_get_idx(root, i);

		if (nqn ? jeq(e, "hostnqn", nqn) : !jstr(e, "hostnqn")) {
			h = e;
			break;
		}
	}
	if (!h) {
		h = json_object_new_object();
		if (nqn)
			json_object_object_add(h, "hostnqn",
					       json_object_new_string(nqn));
		if (id)
			json_object_object_add(h, "hostid",
					       json_object_new_string(id));
		json_object_array_add(root, h);
	}
	free(nqn);
	free(id);
	return h;
}

int tl_nvmf_autoconnect_add(const struct tl_nvmf_uri *u,
			    const struct tl_nvmf_opts *o, struct tl_err *err)
{
	const char *path = tl_nvmf_autoconnect_path();
	struct json_object *root, *subs, *sub = NULL, *ports, *port = NULL;
	size_t i;
	int rc, lock;

	/* Read, change, write: one at a time (tl-state.h's lock). */
	lock = tl_state_lock(err);
	if (lock < 0)
		return TL_FAIL;
	root = read_config(path, err);
	if (!root) {
		close(lock);
		return TL_FAIL;
	}
	subs = jarray(this_host(root), "subsystems");
	for (i = 0; i < json_object_array_length(subs) && !sub; i++)
		if (jeq(json_object_array_get_idx(subs, i), "nqn", u->subsysnqn))
			sub = json_object_array_get_idx(subs, i);
	if (!sub) {
		sub = json_object_new_object();
		json_object_object_add(sub, "nqn",
				       json_object_new_string(u->subsysnqn));
		json_object_array_add(subs, sub);
	}
	ports = jarray(sub, "ports");
	for (i = 0; i < json_object_array_length(ports) && !port; i++)
		if (same_port(json_object_array_get_idx(ports, i), u))
			port = json_object_array_get_idx(ports, i);
	if (!port) {
		port = json_object_new_object();
		json_object_object_add(port, "transport",
				       json_object_new_string(u->transport));
		json_object_object_add(port, "traddr",
				       json_object_new_string(u->traddr));
		json_object_object_add(port, "trsvcid",
				       json_object_new_string(u->trsvcid));
		json_object_array_add(ports, port);
	}
	json_object_object_add(port, "ctrl_loss_tmo",
			       json_object_new_int(o->ctrl_loss_tmo));
	json_object_object_add(port, "reconnect_delay",
			       json_object_new_int(o->reconnect_delay));
	/* libnvme's key; -1 (off) is its default and left out. */
	if (o->fast_io_fail_tmo >= 0)
		json_object_object_add(port, "fast_io_fail_tmo",
				       json_object_new_int(o->fast_io_fail_tmo));
	else
		json_object_object_del(port, "fast_io_fail_tmo");
	rc = write_config(root, path, err);
	json_object_put(root);
	close(lock);
	return rc;
}

int tl_nvmf_autoconnect_del(const struct tl_nvmf_uri *u, struct tl_err *err)
{
	const char *path = tl_nvmf_autoconnect_path();
	struct json_object *root;
	bool changed = false;
	size_t h, s, p;
	int rc = TL_OK, lock;

	lock = tl_state_lock(err);
	if (lock < 0)
		return TL_FAIL;
	root = read_config(path, err);
	if (!root) {
		close(lock);
		return TL_FAIL;
	}
	for (h = 0; h < json_object_array_length(root); h++) {
		struct json_object *subs =
			jarray(json_object_array_get_idx(root, h), "subsystems");

		for (s = json_object_array_length(subs); s-- > 0;) {
			struct json_object *sub = json_object_array_get_idx(subs, s);
			struct json_object *ports;

			if (!jeq(sub, "nqn", u->subsysnqn))
				continue;
			ports = jarray(sub, "ports");
			for (p = json_object_array_length(ports); p-- > 0;) {
				if (!same_port(json_object_array_get_idx(ports, p), u))
					continue;
				json_object_array_del_idx(ports, p, 1);
				changed = true;
			}
			if (!json_object_array_length(ports))
				json_object_array_del_idx(subs, s, 1);
		}
	}
	if (changed)
		rc = write_config(root, path, err);
	json_object_put(root);
	close(lock);
	return rc;
}
