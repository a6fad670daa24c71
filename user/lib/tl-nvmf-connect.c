// SPDX-License-Identifier: GPL-2.0
/*
 * libtier: connecting and disconnecting NVMe-oF tiers with libnvme's fabrics
 * API (see tl-nvmf-connect.h).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <libnvme.h>

#include "tl-nvmf-connect.h"

#define NVMF_NS_WAIT_MS 10000
#define NVMF_POLL_MS 100

/*
 * The NVMe topology as it is now. libnvme's own messages are silenced: the
 * callers word errors for tierctl's users.
 */
static nvme_root_t scan_tree(void)
{
	nvme_root_t r = nvme_create_root(NULL, LOG_CRIT);

	if (!r)
		return NULL;
	/* Fails only when nvme-core is not loaded: then nothing is
	 * connected, and the empty tree is still good for connecting. */
	nvme_scan_topology(r, NULL, NULL);
	return r;
}

static bool ctrl_is_fabrics(nvme_ctrl_t c)
{
	const char *t = nvme_ctrl_get_transport(c);

	return t && strcmp(t, "pcie") && strcmp(t, "apple-nvme");
}

/* A controller that is, or will again be, usable (not being deleted). */
static bool ctrl_is_live(nvme_ctrl_t c)
{
	const char *state = nvme_ctrl_get_state(c);

	return !state || (strncmp(state, "deleting", 8) && strcmp(state, "dead"));
}

/* Whether @c is connected to @u; @addr is @u's address resolved. */
static bool ctrl_matches(nvme_ctrl_t c, const struct tl_nvmf_uri *u,
			 const char *addr)
{
	const char *transport = nvme_ctrl_get_transport(c);
	const char *traddr = nvme_ctrl_get_traddr(c);
	const char *trsvcid = nvme_ctrl_get_trsvcid(c);
	const char *nqn = nvme_ctrl_get_subsysnqn(c);
	unsigned char ba[16], bb[16];
	int fa, fb;

	if (!transport || !traddr || !trsvcid || !nqn)
		return false;
	if (strcmp(transport, u->transport) || strcmp(nqn, u->subsysnqn) ||
	    atoi(trsvcid) != atoi(u->trsvcid))
		return false;
	fa = tl_nvmf_addr_bytes(addr, ba);
	fb = tl_nvmf_addr_bytes(traddr, bb);
	return fa ? fa == fb && !memcmp(ba, bb, 16) : !strcasecmp(addr, traddr);
}

static nvme_ctrl_t find_ctrl(nvme_root_t r, const struct tl_nvmf_uri *u,
			     const char *addr)
{
	nvme_host_t h;
	nvme_subsystem_t s;
	nvme_ctrl_t c;

	nvme_for_each_host(r, h)
		nvme_for_each_subsystem(h, s)
			nvme_subsystem_for_each_ctrl(s, c)
				if (ctrl_is_live(c) && ctrl_matches(c, u, addr))
					return c;
	return NULL;
}

static nvme_ctrl_t find_ctrl_by_name(nvme_root_t r, const char *name)
{
	nvme_host_t h;
	nvme_subsystem_t s;
	nvme_ctrl_t c;

	nvme_for_each_host(r, h)
		nvme_for_each_subsystem(h, s)
			nvme_subsystem_for_each_ctrl(s, c) {
				const char *n = nvme_ctrl_get_name(c);

				if (n && !strcmp(n, name))
					return c;
			}
	return NULL;
}

/* nsid of a path, from its sysfs attribute; 0 when unknown. */
static unsigned int path_nsid(nvme_path_t p)
{
	char *v = nvme_get_path_attr(p, "nsid");
	unsigned int nsid = v ? (unsigned int)strtoul(v, NULL, 10) : 0;

	free(v);
	return nsid;
}

/*
 * The block device name of @c's namespace with the lowest nsid ("nvme2n1"),
 * "" when none is there yet. Without native multipath the namespaces hang
 * off the controller; with it the controller has paths ("nvme2c2n1") to the
 * subsystem's namespace heads ("nvme2n1"), and the head is what users open.
 */
static void ctrl_first_ns(nvme_ctrl_t c, char *name, size_t len)
{
	unsigned int best = UINT_MAX, nsid;
	nvme_ns_t n;
	nvme_path_t p;
	int subsys, ctrl, head;

	name[0] = '\0';
	nvme_ctrl_for_each_ns(c, n) {
		nsid = (unsigned int)nvme_ns_get_nsid(n);
		if (nvme_ns_get_name(n) && nsid < best) {
			best = nsid;
			snprintf(name, len, "%s", nvme_ns_get_name(n));
		}
	}
	nvme_ctrl_for_each_path(c, p) {
		const char *pname = nvme_path_get_name(p);

		nsid = path_nsid(p);
		if (!pname || nsid >= best)
			continue;
		n = nvme_path_get_ns(p);
		if (n && nvme_ns_get_name(n)) {
			snprintf(name, len, "%s", nvme_ns_get_name(n));
		} else if (sscanf(pname, "nvme%dc%dn%d", &subsys, &ctrl,
				  &head) == 3) {
			snprintf(name, len, "nvme%dn%d", subsys, head);
		} else {
			continue;
		}
		best = nsid;
	}
}

static bool is_block_device(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISBLK(st.st_mode);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static const char *connect_error_text(int e, const struct tl_nvmf_uri *u,
				      char *buf, size_t len)
{
	switch (e) {
	case ENVME_CONNECT_OPEN:
		if (!access("/dev/nvme-fabrics", F_OK))
			snprintf(buf, len,
				 "cannot open /dev/nvme-fabrics; run tierctl as root");
		else
			snprintf(buf, len,
				 "no /dev/nvme-fabrics; load the NVMe-oF transport with 'modprobe nvme-%s'",
				 u->transport);
		break;
	case ENVME_CONNECT_CONNREFUSED:
		snprintf(buf, len,
			 "connection refused; check that the target is up and listens on %s port %s",
			 u->traddr, u->trsvcid);
		break;
	case ENVME_CONNECT_INVAL:
		snprintf(buf, len,
			 "the kernel rejected the connection (see dmesg): unknown NQN on the target, this host not allowed, or transport module nvme-%s missing",
			 u->transport);
		break;
	case ENVME_CONNECT_ADDRINUSE:
		snprintf(buf, len,
			 "this host NQN is already in use on the target (see dmesg)");
		break;
	case ENVME_CONNECT_TRADDR:
		snprintf(buf, len, "cannot resolve the address '%s'",
			 u->traddr);
		break;
	default:
		snprintf(buf, len, "%s (dmesg may say more)",
			 e >= ENVME_CONNECT_RESOLVE ? nvme_errno_to_string(e) :
						      strerror(e));
		break;
	}
	return buf;
}

/* Write the kernel's delete_controller attribute of @c. */
static int delete_ctrl(nvme_ctrl_t c, struct tl_err *err)
{
	const char *name = nvme_ctrl_get_name(c);

	if (nvme_disconnect_ctrl(c))
		return tl_fail(err, TL_FAIL, "cannot disconnect %s: %s",
			       name ? name : "the controller",
			       strerror(errno));
	return TL_OK;
}

int tl_nvmf_connect_ex(const struct tl_nvmf_uri *u,
		       const struct tl_nvmf_opts *o, char *dev, size_t devlen,
		       bool *connected_now, struct tl_err *err)
{
	char uri[512], addr[TL_NVMF_ADDR_TEXT_LEN];
	char ctrl_name[64], ns[64], why[256];
	long long deadline = now_ms() + NVMF_NS_WAIT_MS;
	nvme_root_t r;
	nvme_ctrl_t c;
	nvme_host_t h;
	int ret;

	*connected_now = false;
	tl_nvmf_format_uri(u, uri, sizeof(uri));
	ret = tl_nvmf_resolve_addr(u->traddr, addr, sizeof(addr), err);
	if (ret)
		return ret;
	r = scan_tree();
	if (!r)
		return tl_fail(err, TL_FAIL, "%s: out of memory", uri);

	c = find_ctrl(r, u, addr);
	if (!c) {
		struct nvme_fabrics_config cfg;

		h = nvme_default_host(r);
		if (!h) {
			nvme_free_tree(r);
			return tl_fail(err, TL_FAIL,
				       "%s: cannot determine this host's NQN; create /etc/nvme/hostnqn (nvme gen-hostnqn > /etc/nvme/hostnqn)",
				       uri);
		}
		c = nvme_create_ctrl(r, u->subsysnqn, u->transport, addr, NULL,
				     NULL, u->trsvcid);
		if (!c) {
			nvme_free_tree(r);
			return tl_fail(err, TL_FAIL, "%s: out of memory", uri);
		}
		nvmf_default_config(&cfg);
		cfg.ctrl_loss_tmo = o->ctrl_loss_tmo;
		cfg.reconnect_delay = o->reconnect_delay;
		cfg.fast_io_fail_tmo = tl_nvmf_fast_io_fail_arg(o);
		if (nvmf_add_ctrl(h, c, &cfg)) {
			int e = errno;

			nvme_free_ctrl(c);
			c = NULL;
			if (e == ENVME_CONNECT_ALREADY) {
				/* Someone connected it meanwhile: use theirs. */
				nvme_free_tree(r);
				r = scan_tree();
				c = r ? find_ctrl(r, u, addr) : NULL;
			}
			if (!c) {
				if (r)
					nvme_free_tree(r);
				return tl_fail(err, TL_FAIL, "cannot connect %s: %s",
					       uri, connect_error_text(e, u, why, sizeof(why)));
			}
		} else {
			*connected_now = true;
		}
	}
	snprintf(ctrl_name, sizeof(ctrl_name), "%s",
		 nvme_ctrl_get_name(c) ? nvme_ctrl_get_name(c) : "");
	nvme_free_tree(r);

	/* The kernel scans namespaces after connecting, udev makes nodes. */
	for (;;) {
		ns[0] = '\0';
		r = scan_tree();
		c = r ? find_ctrl_by_name(r, ctrl_name) : NULL;
		if (c)
			ctrl_first_ns(c, ns, sizeof(ns));
		if (r)
			nvme_free_tree(r);
		if (ns[0]) {
			snprintf(dev, devlen, "/dev/%s", ns);
			if (is_block_device(dev))
				return TL_OK;
		}
		if (now_ms() >= deadline)
			break;
		usleep(NVMF_POLL_MS * 1000);
	}
	if (ns[0])
		ret = tl_fail(err, TL_FAIL,
			      "%s: connected as %s, but %s did not appear within %d s; check that udev runs",
			      uri, ctrl_name, dev, NVMF_NS_WAIT_MS / 1000);
	else
		ret = tl_fail(err, TL_FAIL,
			      "%s: connected as %s, but no namespace appeared within %d s; check that the subsystem exports an enabled namespace to this host",
			      uri, ctrl_name[0] ? ctrl_name : "a controller",
			      NVMF_NS_WAIT_MS / 1000);
	if (*connected_now) {
		/* Nothing usable came of it: do not leave it behind. */
		tl_nvmf_disconnect(u, NULL);
		*connected_now = false;
	}
	return ret;
}

int tl_nvmf_connect(const struct tl_nvmf_uri *u, const struct tl_nvmf_opts *o,
		    char *dev, size_t devlen, struct tl_err *err)
{
	bool connected_now;

	return tl_nvmf_connect_ex(u, o, dev, devlen, &connected_now, err);
}

int tl_nvmf_disconnect(const struct tl_nvmf_uri *u, struct tl_err *err)
{
	char uri[512], addr[TL_NVMF_ADDR_TEXT_LEN];
	nvme_root_t r;
	nvme_host_t h;
	nvme_subsystem_t s;
	nvme_ctrl_t c;
	int ret = TL_OK;

	tl_nvmf_format_uri(u, uri, sizeof(uri));
	if (tl_nvmf_resolve_addr(u->traddr, addr, sizeof(addr), err))
		return TL_FAIL;
	r = scan_tree();
	if (!r)
		return tl_fail(err, TL_FAIL, "%s: out of memory", uri);
	nvme_for_each_host(r, h)
		nvme_for_each_subsystem(h, s)
			nvme_subsystem_for_each_ctrl(s, c)
				if (ctrl_is_live(c) && ctrl_matches(c, u, addr) &&
				    delete_ctrl(c, err))
					ret = TL_FAIL;
	nvme_free_tree(r);
	return ret;
}

/* The kernel name of block device @maj:@min ("nvme2n1"), from sysfs. */
static int blockdev_name(unsigned int maj, unsigned int min, char *name,
			 size_t len)
{
	char link[64], target[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", maj, min);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	strcpy(name, base);
	return 0;
}

/* Whether block device /dev/@name is in use (mounted, held, O_EXCL). */
static bool ns_in_use(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		return errno == EBUSY;
	close(fd);
	return false;
}

/* Whether controller @c serves a namespace named @name (directly or as
 * the head its paths lead to); *@busy set when one of its namespaces other
 * than that one is in use. */
static bool ctrl_serves(nvme_ctrl_t c, const char *name, bool *busy)
{
	bool found = false;
	nvme_ns_t n;
	nvme_path_t p;
	char head[64];
	int subsys, ctrl, hn;

	nvme_ctrl_for_each_ns(c, n) {
		const char *nn = nvme_ns_get_name(n);

		if (!nn)
			continue;
		if (!strcmp(nn, name))
			found = true;
		else if (ns_in_use(nn))
			*busy = true;
	}
	nvme_ctrl_for_each_path(c, p) {
		const char *pn = nvme_path_get_name(p);

		if (!pn || sscanf(pn, "nvme%dc%dn%d", &subsys, &ctrl, &hn) != 3)
			continue;
		snprintf(head, sizeof(head), "nvme%dn%d", subsys, hn);
		if (!strcmp(head, name))
			found = true;
		else if (ns_in_use(head))
			*busy = true;
	}
	return found;
}

int tl_nvmf_disconnect_blockdev(unsigned int maj, unsigned int min,
				struct tl_nvmf_uri *uris, int max,
				struct tl_err *err)
{
	char name[64];
	nvme_root_t r;
	nvme_host_t h;
	nvme_subsystem_t s;
	nvme_ctrl_t c;
	int nr = 0, ret;

	ret = blockdev_name(maj, min, name, sizeof(name));
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		tl_fail(err, TL_FAIL, "cannot look up block device %u:%u: %s",
			maj, min, strerror(-ret));
		return -1;
	}
	if (strncmp(name, "nvme", 4))
		return 0;
	r = scan_tree();
	if (!r) {
		tl_fail(err, TL_FAIL, "out of memory");
		return -1;
	}
	nvme_for_each_host(r, h)
		nvme_for_each_subsystem(h, s)
			nvme_subsystem_for_each_ctrl(s, c) {
				bool busy = false;
				const char *v;

				if (!ctrl_is_fabrics(c) || !ctrl_is_live(c) ||
				    !ctrl_serves(c, name, &busy))
					continue;
				if (busy) {
					tl_fail(err, TL_FAIL,
						"not disconnecting %s: another namespace of it is in use",
						nvme_ctrl_get_name(c));
					nr = -1;
					goto out;
				}
				if (nr >= 0 && nr < max) {
					struct tl_nvmf_uri *u = &uris[nr];

					memset(u, 0, sizeof(*u));
					v = nvme_ctrl_get_transport(c);
					snprintf(u->transport, sizeof(u->transport), "%s", v ? v : "");
					v = nvme_ctrl_get_traddr(c);
					snprintf(u->traddr, sizeof(u->traddr), "%s", v ? v : "");
					v = nvme_ctrl_get_trsvcid(c);
					snprintf(u->trsvcid, sizeof(u->trsvcid), "%s", v ? v : "");
					v = nvme_ctrl_get_subsysnqn(c);
					snprintf(u->subsysnqn, sizeof(u->subsysnqn), "%s", v ? v : "");
				}
				if (delete_ctrl(c, err)) {
					nr = -1;
					goto out;
				}
				if (nr < max)
					nr++;
			}
out:
	nvme_free_tree(r);
	return nr;
}
