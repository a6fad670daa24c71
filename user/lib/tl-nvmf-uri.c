// SPDX-License-Identifier: GPL-2.0
/*
 * libtier: nvmf:// URIs, the connection options, and comparing targets'
 * addresses (see tl-nvmf-uri.h). No libnvme here: tierctl checks a URI
 * before it connects anything.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <limits.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/socket.h>

#include "tl-nvmf-uri.h"

#define NVMF_SCHEME "nvmf://"
#define NVMF_SCHEME_LEN (sizeof(NVMF_SCHEME) - 1)
#define NVMF_URI_SHAPE "nvmf://TRANSPORT/ADDR:PORT/SUBSYSNQN"

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
	o->fast_io_fail_tmo = TL_NVMF_FAST_IO_FAIL_TMO_DEF;
}

int tl_nvmf_parse_seconds(const char *what, const char *s, long min, int *out,
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
	return tl_nvmf_parse_seconds("--ctrl-loss-tmo", s, -1, out, err);
}

int tl_nvmf_parse_reconnect_delay(const char *s, int *out, struct tl_err *err)
{
	return tl_nvmf_parse_seconds("--reconnect-delay", s, 1, out, err);
}

int tl_nvmf_parse_fail_seconds(const char *what, const char *s, int *out,
				struct tl_err *err)
{
	/* libnvme cannot pass 0 (it leaves the option out when 0). */
	if (s && !strcmp(s, "-1")) {
		*out = -1;
		return TL_OK;
	}
	if (tl_nvmf_parse_seconds(what, s, 1, out, NULL))
		return tl_fail(err, TL_USAGE,
			       "%s '%s': give whole seconds, 1 or more, or -1 (off)",
			       what, s ? s : "");
	return TL_OK;
}

int tl_nvmf_parse_fast_io_fail_tmo(const char *s, int *out,
				   struct tl_err *err)
{
	return tl_nvmf_parse_fail_seconds("--fast-io-fail-tmo", s, out, err);
}

int tl_nvmf_fast_io_fail_arg(const struct tl_nvmf_opts *o)
{
	if (o->fast_io_fail_tmo <= 0)
		return 0;
	if (o->ctrl_loss_tmo >= 0 && o->fast_io_fail_tmo >= o->ctrl_loss_tmo)
		return 0;
	return o->fast_io_fail_tmo;
}

int tl_nvmf_opts_check(const struct tl_nvmf_opts *o, struct tl_err *err)
{
	if (o->ctrl_loss_tmo >= 0 && o->fast_io_fail_tmo >= 0 &&
	    o->fast_io_fail_tmo >= o->ctrl_loss_tmo)
		return tl_fail(err, TL_USAGE,
			       "fast_io_fail_tmo %d s is not shorter than ctrl_loss_tmo %d s: I/O would wait for the whole reconnect window; lower --fast-io-fail-tmo or raise --ctrl-loss-tmo",
			       o->fast_io_fail_tmo, o->ctrl_loss_tmo);
	if (o->ctrl_loss_tmo >= 0 && o->ctrl_loss_tmo < o->reconnect_delay)
		return tl_fail(err, TL_USAGE,
			       "ctrl_loss_tmo %d s is shorter than reconnect_delay %d s: the kernel would give up before the first reconnect; raise --ctrl-loss-tmo",
			       o->ctrl_loss_tmo, o->reconnect_delay);
	return TL_OK;
}

/* ---- addresses ---- */

int tl_nvmf_addr_bytes(const char *s, unsigned char out[16])
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

int tl_nvmf_resolve_addr(const char *traddr, char *out, size_t len,
			 struct tl_err *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	unsigned char bytes[16];
	const void *a;
	int ret;

	if (tl_nvmf_addr_bytes(traddr, bytes)) {
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
	char ra[TL_NVMF_ADDR_TEXT_LEN], rb[sizeof(ra)];
	int fa, fb;

	if (!strcasecmp(a, b))
		return true;
	fa = tl_nvmf_addr_bytes(a, ba);
	fb = tl_nvmf_addr_bytes(b, bb);
	if (fa && fb)
		return fa == fb && !memcmp(ba, bb, 16);
	/* A host name on one side: compare what it resolves to. */
	if (tl_nvmf_resolve_addr(a, ra, sizeof(ra), NULL) ||
	    tl_nvmf_resolve_addr(b, rb, sizeof(rb), NULL))
		return false;
	fa = tl_nvmf_addr_bytes(ra, ba);
	fb = tl_nvmf_addr_bytes(rb, bb);
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
