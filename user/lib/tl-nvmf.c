// SPDX-License-Identifier: GPL-2.0
/*
 * libtier: NVMe-oF tiers (see tl-nvmf.h): nvmf:// URIs, connecting and
 * disconnecting with libnvme's fabrics API, and the record of connections
 * that `tierctl activate` replays.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <libnvme.h>

#include "tl-nvmf.h"

#define NVMF_SCHEME "nvmf://"
#define NVMF_SCHEME_LEN (sizeof(NVMF_SCHEME) - 1)
#define NVMF_URI_SHAPE "nvmf://TRANSPORT/ADDR:PORT/SUBSYSNQN"
#define NVMF_DEFAULT_STATE_DIR "/etc/dm-tier"
#define NVMF_RECORD_NAME "nvmf.conf"
#define NVMF_NS_WAIT_MS 10000
#define NVMF_POLL_MS 100
/* A numeric address with a zone ("fe80::1%eth0"). */
#define ADDR_TEXT_LEN (INET6_ADDRSTRLEN + 32)

/* ---- URIs ---- */

int tl_nvmf_is_uri(const char *s)
{
	return s && !strncasecmp(s, NVMF_SCHEME, NVMF_SCHEME_LEN);
}

static bool is_ipv4(const char *s)
{
	struct in_addr a;

	return inet_pton(AF_INET, s, &a) == 1;
}

/* An IPv6 address, optionally with a %zone: the canonical text in @out. */
static bool canon_ipv6(const char *s, size_t len, char *out, size_t outlen)
{
	char buf[INET6_ADDRSTRLEN + 1], text[INET6_ADDRSTRLEN];
	const char *zone = memchr(s, '%', len);
	size_t alen = zone ? (size_t)(zone - s) : len;
	struct in6_addr a;
	size_t i;

	if (!alen || alen >= sizeof(buf))
		return false;
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	if (inet_pton(AF_INET6, buf, &a) != 1 ||
	    !inet_ntop(AF_INET6, &a, text, sizeof(text)))
		return false;
	if (zone) {
		/* An interface name (or index) after '%'. */
		if (zone + 1 == s + len)
			return false;
		for (i = 1; zone + i < s + len; i++)
			if (!isalnum((unsigned char)zone[i]) &&
			    !strchr("_.-", zone[i]))
				return false;
	}
	return snprintf(out, outlen, "%s%.*s", text,
			zone ? (int)(s + len - zone) : 0, zone ? zone : "") <
	       (int)outlen;
}

/* RFC 1123 host name: dot-separated labels of letters, digits, hyphens. */
static bool is_host_name(const char *s)
{
	size_t label = 0, total = strlen(s);
	const char *p;

	if (!total || total > 253)
		return false;
	for (p = s; *p; p++) {
		if (*p == '.') {
			if (!label || p[-1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '-')
			return false;
		if (*p == '-' && !label)
			return false;
		if (++label > 63)
			return false;
	}
	return label && p[-1] != '-';
}

static int uri_fail(struct tl_err *err, const char *uri, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int uri_fail(struct tl_err *err, const char *uri, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return tl_fail(err, TL_USAGE, "%s: %s (form: " NVMF_URI_SHAPE ")", uri,
		       why);
}

static int parse_addr(const char *uri, const char *p, size_t len,
		      struct tl_nvmf_uri *u, struct tl_err *err)
{
	char buf[256];

	if (!len)
		return uri_fail(err, uri, "missing address before ':PORT'");
	if (*p == '[') {
		if (p[len - 1] != ']')
			return uri_fail(err, uri,
					"address '%.*s': missing ']' after the IPv6 address",
					(int)len, p);
		if (!canon_ipv6(p + 1, len - 2, u->traddr, sizeof(u->traddr)))
			return uri_fail(err, uri,
					"address '%.*s' is not an IPv6 address",
					(int)len, p);
		return TL_OK;
	}
	if (memchr(p, ':', len))
		return uri_fail(err, uri,
				"address '%.*s': write an IPv6 address in brackets, [ADDR]:PORT",
				(int)len, p);
	if (len >= sizeof(buf) || len >= sizeof(u->traddr))
		return uri_fail(err, uri, "address '%.*s' is too long (at most %zu characters)",
				(int)len, p, sizeof(u->traddr) - 1);
	memcpy(buf, p, len);
	buf[len] = '\0';
	if (strspn(buf, "0123456789.") == len) {
		/* Only digits and dots: meant as IPv4, never as a name. */
		if (!is_ipv4(buf))
			return uri_fail(err, uri,
					"address '%s' is not an IPv4 address",
					buf);
	} else if (!is_host_name(buf)) {
		return uri_fail(err, uri,
				"address '%s' is neither an IP address nor a host name",
				buf);
	}
	strcpy(u->traddr, buf);
	return TL_OK;
}

static int parse_port(const char *uri, const char *p, size_t len,
		      struct tl_nvmf_uri *u, struct tl_err *err)
{
	unsigned long port = 0;
	size_t i;

	if (!len)
		return uri_fail(err, uri, "missing port after ':'; NVMe/TCP targets usually listen on 4420");
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)p[i]))
			return uri_fail(err, uri,
					"port '%.*s' is not a number; use 1 to 65535",
					(int)len, p);
		if (port <= 65535)
			port = port * 10 + (unsigned long)(p[i] - '0');
	}
	if (port < 1 || port > 65535)
		return uri_fail(err, uri, "port '%.*s' is out of range; use 1 to 65535",
				(int)len, p);
	snprintf(u->trsvcid, sizeof(u->trsvcid), "%lu", port);
	return TL_OK;
}

static int parse_nqn(const char *uri, const char *p, struct tl_nvmf_uri *u,
		     struct tl_err *err)
{
	size_t len = strlen(p), i;

	if (!len)
		return uri_fail(err, uri, "missing subsystem NQN after 'ADDR:PORT/'");
	if (strncmp(p, "nqn.", 4) || len == 4)
		return uri_fail(err, uri,
				"subsystem NQN '%s' must start with \"nqn.\" (e.g. nqn.2024-01.io.example:cold0)",
				p);
	if (len >= sizeof(u->subsysnqn))
		return uri_fail(err, uri,
				"subsystem NQN is %zu bytes; NVMe allows at most %zu",
				len, sizeof(u->subsysnqn) - 1);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		/* The kernel's connect string is comma-separated, the
		 * record blank-separated. */
		if (c <= ' ' || c == 0x7f || c == ',')
			return uri_fail(err, uri,
					"subsystem NQN contains '%s' at byte %zu; blanks, control characters and ',' are not allowed",
					c == ',' ? "," : c == ' ' ? "a blank" : "a control character",
					i + 1);
	}
	memcpy(u->subsysnqn, p, len + 1);
	return TL_OK;
}

static int parse_uri(const char *s, struct tl_nvmf_uri *u, struct tl_err *err)
{
	const char *p, *slash, *auth, *colon;
	size_t tlen, i;

	if (!tl_nvmf_is_uri(s))
		return uri_fail(err, s ? s : "", "not an nvmf:// URI");
	p = s + NVMF_SCHEME_LEN;
	slash = strchr(p, '/');
	tlen = slash ? (size_t)(slash - p) : strlen(p);
	if (!tlen)
		return uri_fail(err, s, "missing transport after nvmf://; use tcp or rdma");
	if (tlen < sizeof(u->transport)) {
		for (i = 0; i < tlen; i++)
			u->transport[i] = (char)tolower((unsigned char)p[i]);
	}
	if (tlen >= sizeof(u->transport) ||
	    (strcmp(u->transport, "tcp") && strcmp(u->transport, "rdma"))) {
		return uri_fail(err, s, "unknown transport '%.*s'; use tcp or rdma",
				(int)tlen, p);
	}
	if (!slash)
		return uri_fail(err, s, "missing ADDR:PORT after the transport");

	/* ADDR:PORT runs to the next '/'; the NQN is everything after it. */
	auth = slash + 1;
	slash = strchr(auth, '/');
	if (!slash)
		slash = auth + strlen(auth);
	if (*auth == '[') {
		const char *close = memchr(auth, ']', (size_t)(slash - auth));

		if (!close)
			return uri_fail(err, s, "address '%.*s': missing ']' after the IPv6 address",
					(int)(slash - auth), auth);
		colon = close + 1;
		if (colon == slash || *colon != ':')
			return uri_fail(err, s, "missing ':PORT' after '%.*s'",
					(int)(colon - auth), auth);
	} else {
		colon = NULL;
		for (p = auth; p < slash; p++)
			if (*p == ':')
				colon = p;
		if (slash == auth)
			return uri_fail(err, s, "missing ADDR:PORT after the transport");
		if (!colon)
			return uri_fail(err, s, "missing ':PORT' after address '%.*s'",
					(int)(slash - auth), auth);
		/* An unbracketed IPv6 address has several colons. */
		if (memchr(auth, ':', (size_t)(colon - auth)))
			return uri_fail(err, s,
					"address '%.*s': write an IPv6 address in brackets, [ADDR]:PORT",
					(int)(slash - auth), auth);
	}
	if (parse_addr(s, auth, (size_t)(colon - auth), u, err) ||
	    parse_port(s, colon + 1, (size_t)(slash - colon - 1), u, err))
		return TL_USAGE;
	if (!*slash)
		return uri_fail(err, s, "missing '/SUBSYSNQN' after the port");
	return parse_nqn(s, slash + 1, u, err);
}

int tl_nvmf_parse_uri(const char *s, struct tl_nvmf_uri *u, struct tl_err *err)
{
	int ret;

	memset(u, 0, sizeof(*u));
	ret = parse_uri(s, u, err);
	if (ret)
		memset(u, 0, sizeof(*u));
	return ret;
}

int tl_nvmf_format_uri(const struct tl_nvmf_uri *u, char *buf, size_t len)
{
	bool v6 = strchr(u->traddr, ':') != NULL;

	return snprintf(buf, len, NVMF_SCHEME "%s/%s%s%s:%s/%s", u->transport,
			v6 ? "[" : "", u->traddr, v6 ? "]" : "", u->trsvcid,
			u->subsysnqn);
}

void tl_nvmf_opts_default(struct tl_nvmf_opts *o)
{
	o->ctrl_loss_tmo = 600;
	o->reconnect_delay = 2;
}

static int parse_seconds(const char *what, const char *s, long min, int *out,
			 struct tl_err *err)
{
	char *end;
	long v;

	errno = 0;
	v = s && *s ? strtol(s, &end, 10) : 0;
	if (!s || !*s || *end || errno || v < min || v > INT_MAX)
		return tl_fail(err, TL_USAGE,
			       "%s '%s': give whole seconds, %ld%s or more",
			       what, s ? s : "", min,
			       min < 0 ? " (reconnect forever)" : "");
	*out = (int)v;
	return TL_OK;
}

int tl_nvmf_parse_ctrl_loss_tmo(const char *s, int *out, struct tl_err *err)
{
	return parse_seconds("--ctrl-loss-tmo", s, -1, out, err);
}

int tl_nvmf_parse_reconnect_delay(const char *s, int *out, struct tl_err *err)
{
	return parse_seconds("--reconnect-delay", s, 1, out, err);
}

/* ---- addresses ---- */

/* Binary form of a numeric address (zone dropped); family or 0. */
static int addr_bytes(const char *s, unsigned char out[16])
{
	char buf[INET6_ADDRSTRLEN + 1];
	size_t len = strcspn(s, "%");

	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	memset(out, 0, 16);
	if (inet_pton(AF_INET, buf, out) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, buf, out) == 1)
		return AF_INET6;
	return 0;
}

/* The numeric address for @traddr (itself, or a host name resolved). */
static int resolve_addr(const char *traddr, char *out, size_t len,
			struct tl_err *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	unsigned char bytes[16];
	const void *a;
	int ret;

	if (addr_bytes(traddr, bytes)) {
		snprintf(out, len, "%s", traddr);
		return TL_OK;
	}
	ret = getaddrinfo(traddr, NULL, &hints, &res);
	if (ret)
		return tl_fail(err, TL_FAIL,
			       "cannot resolve host name '%s': %s; give an IP address or fix name resolution",
			       traddr, gai_strerror(ret));
	if (res->ai_family == AF_INET6)
		a = &((struct sockaddr_in6 *)res->ai_addr)->sin6_addr;
	else
		a = &((struct sockaddr_in *)res->ai_addr)->sin_addr;
	if (!inet_ntop(res->ai_family, a, out, (socklen_t)len)) {
		freeaddrinfo(res);
		return tl_fail(err, TL_FAIL, "cannot resolve host name '%s'",
			       traddr);
	}
	freeaddrinfo(res);
	return TL_OK;
}

/* Whether address texts @a and @b name the same address. */
static bool addr_equal(const char *a, const char *b)
{
	unsigned char ba[16], bb[16];
	char ra[ADDR_TEXT_LEN], rb[sizeof(ra)];
	int fa, fb;

	if (!strcasecmp(a, b))
		return true;
	fa = addr_bytes(a, ba);
	fb = addr_bytes(b, bb);
	if (fa && fb)
		return fa == fb && !memcmp(ba, bb, 16);
	/* A host name on one side: compare what it resolves to. */
	if (resolve_addr(a, ra, sizeof(ra), NULL) ||
	    resolve_addr(b, rb, sizeof(rb), NULL))
		return false;
	fa = addr_bytes(ra, ba);
	fb = addr_bytes(rb, bb);
	return fa && fa == fb && !memcmp(ba, bb, 16);
}

int tl_nvmf_same_target(const struct tl_nvmf_uri *a,
			const struct tl_nvmf_uri *b)
{
	return !strcmp(a->transport, b->transport) &&
	       atoi(a->trsvcid) == atoi(b->trsvcid) &&
	       !strcmp(a->subsysnqn, b->subsysnqn) &&
	       addr_equal(a->traddr, b->traddr);
}

/* ---- libnvme ---- */

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
	fa = addr_bytes(addr, ba);
	fb = addr_bytes(traddr, bb);
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
	char uri[512], addr[ADDR_TEXT_LEN];
	char ctrl_name[64], ns[64], why[256];
	long long deadline = now_ms() + NVMF_NS_WAIT_MS;
	nvme_root_t r;
	nvme_ctrl_t c;
	nvme_host_t h;
	int ret;

	*connected_now = false;
	tl_nvmf_format_uri(u, uri, sizeof(uri));
	ret = resolve_addr(u->traddr, addr, sizeof(addr), err);
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
	char uri[512], addr[ADDR_TEXT_LEN];
	nvme_root_t r;
	nvme_host_t h;
	nvme_subsystem_t s;
	nvme_ctrl_t c;
	int ret = TL_OK;

	tl_nvmf_format_uri(u, uri, sizeof(uri));
	if (resolve_addr(u->traddr, addr, sizeof(addr), err))
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

/* ---- the record ---- */

static const char *state_dir(void)
{
	const char *dir = getenv("TIER_STATE_DIR");

	return dir && *dir ? dir : NVMF_DEFAULT_STATE_DIR;
}

const char *tl_nvmf_record_path(void)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" NVMF_RECORD_NAME, state_dir());
	return path;
}

int tl_nvmf_record_format_line(const struct tl_nvmf_entry *e, char *buf,
			       size_t len)
{
	char uri[512];

	tl_nvmf_format_uri(&e->uri, uri, sizeof(uri));
	return snprintf(buf, len, "%s ctrl_loss_tmo=%d reconnect_delay=%d",
			uri, e->opts.ctrl_loss_tmo, e->opts.reconnect_delay);
}

int tl_nvmf_record_parse_line(const char *line, struct tl_nvmf_entry *e,
			      struct tl_err *err)
{
	char *copy, *word, *save = NULL;
	bool have_uri = false, seen_tmo = false, seen_delay = false;
	int ret = TL_OK;

	memset(e, 0, sizeof(*e));
	tl_nvmf_opts_default(&e->opts);
	line += strspn(line, " \t");
	if (!*line || *line == '#' || *line == '\n')
		return 1;
	copy = strdup(line);
	if (!copy)
		return tl_fail(err, TL_FAIL, "out of memory");
	for (word = strtok_r(copy, " \t\r\n", &save); word && !ret;
	     word = strtok_r(NULL, " \t\r\n", &save)) {
		if (!have_uri) {
			ret = tl_nvmf_parse_uri(word, &e->uri, err);
			have_uri = true;
		} else if (!strncmp(word, "ctrl_loss_tmo=", 14) && !seen_tmo) {
			ret = parse_seconds("ctrl_loss_tmo", word + 14, -1,
					    &e->opts.ctrl_loss_tmo, err);
			seen_tmo = true;
		} else if (!strncmp(word, "reconnect_delay=", 16) && !seen_delay) {
			ret = parse_seconds("reconnect_delay", word + 16, 1,
					    &e->opts.reconnect_delay, err);
			seen_delay = true;
		} else {
			ret = tl_fail(err, TL_USAGE,
				      "unexpected '%s'; a line is 'URI [ctrl_loss_tmo=N] [reconnect_delay=N]', each option once",
				      word);
		}
	}
	free(copy);
	return ret ? TL_USAGE : TL_OK;
}

/* The record's lines as read (without newlines); a missing file has none. */
static int read_lines(const char *path, char ***lines, size_t *nr,
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

static void free_lines(char **lines, size_t nr)
{
	while (nr)
		free(lines[--nr]);
	free(lines);
}

int tl_nvmf_record_load(struct tl_nvmf_record *rec, struct tl_err *err)
{
	const char *path = tl_nvmf_record_path();
	struct tl_nvmf_entry e, *ne;
	char **lines;
	size_t nr, i;
	int ret;

	memset(rec, 0, sizeof(*rec));
	ret = read_lines(path, &lines, &nr, err);
	if (ret)
		return ret;
	for (i = 0; i < nr; i++) {
		struct tl_err why = { "" };

		ret = tl_nvmf_record_parse_line(lines[i], &e, &why);
		if (ret == 1)
			continue;
		if (ret) {
			rec->nr_bad++;
			tl_err_append(err, "%s:%zu: %s", path, i + 1, why.msg);
			continue;
		}
		ne = realloc(rec->entry, (rec->nr + 1) * sizeof(*ne));
		if (!ne) {
			free_lines(lines, nr);
			tl_nvmf_record_free(rec);
			return tl_fail(err, TL_FAIL, "out of memory reading %s", path);
		}
		rec->entry = ne;
		rec->entry[rec->nr++] = e;
	}
	free_lines(lines, nr);
	return TL_OK;
}

void tl_nvmf_record_free(struct tl_nvmf_record *rec)
{
	free(rec->entry);
	memset(rec, 0, sizeof(*rec));
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

/* Replace the record with @lines: a temporary file renamed over it. */
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

#define RECORD_HEADER \
	"# dm-tier NVMe-oF connections, connected again by 'tierctl activate'.\n" \
	"# One per line: nvmf://TRANSPORT/ADDR:PORT/SUBSYSNQN [ctrl_loss_tmo=N] [reconnect_delay=N]"

/*
 * Read the record under a lock, drop the lines for @u's target, add
 * @add (if not NULL) where the first of them was (or at the end), write it
 * back atomically. Comments and malformed lines are kept as they are.
 */
/* A record line names @arg's target (tl_state_update()'s match). */
static bool record_line_is_target(const char *line, void *arg)
{
	struct tl_nvmf_entry e;

	return tl_nvmf_record_parse_line(line, &e, NULL) == TL_OK &&
	       tl_nvmf_same_target(&e.uri, arg);
}

static int record_update(const struct tl_nvmf_uri *u,
			 const struct tl_nvmf_entry *add, struct tl_err *err)
{
	char newline[1024];

	if (add)
		tl_nvmf_record_format_line(add, newline, sizeof(newline));
	return tl_state_update(tl_nvmf_record_path(), RECORD_HEADER,
			       add ? newline : NULL, record_line_is_target,
			       (void *)u, err);
}

int tl_nvmf_record_add(const struct tl_nvmf_uri *u,
		       const struct tl_nvmf_opts *o, struct tl_err *err)
{
	struct tl_nvmf_entry e = { .uri = *u, .opts = *o };

	return record_update(u, &e, err);
}

int tl_nvmf_record_del(const struct tl_nvmf_uri *u, struct tl_err *err)
{
	return record_update(u, NULL, err);
}

int tl_nvmf_connect_recorded(struct tl_err *err)
{
	struct tl_nvmf_record rec;
	char dev[64];
	size_t i;
	int failed;

	if (tl_nvmf_record_load(&rec, err))
		return 1;
	failed = rec.nr_bad;
	for (i = 0; i < rec.nr; i++) {
		struct tl_err why = { "" };

		if (tl_nvmf_connect(&rec.entry[i].uri, &rec.entry[i].opts, dev,
				    sizeof(dev), &why)) {
			/* The reasons already name the URI. */
			tl_err_append(err, "%s", why.msg);
			failed++;
		}
	}
	tl_nvmf_record_free(&rec);
	return failed;
}

/* ---- the state directory, shared with the memory tier record ---- */

const char *tl_state_dir(void)
{
	return state_dir();
}

int tl_state_read_lines(const char *path, char ***lines, size_t *nr,
			struct tl_err *err)
{
	return read_lines(path, lines, nr, err);
}

void tl_state_free_lines(char **lines, size_t nr)
{
	free_lines(lines, nr);
}

int tl_state_write_lines(const char *path, char **lines, size_t nr,
			 struct tl_err *err)
{
	const char *dir = state_dir();
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
	ret = read_lines(path, &lines, &nr, err);
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
	free_lines(lines, nr);
	close(lock);
	return ret ? TL_FAIL : TL_OK;
}

int tl_state_lock(struct tl_err *err)
{
	const char *dir = state_dir();
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
