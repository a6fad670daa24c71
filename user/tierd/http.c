// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics: the textfile (for node_exporter's textfile collector), written
 * atomically, and a tiny HTTP/1.0 server for GET /metrics on a loopback
 * address, non-blocking, driven by the daemon's poll() loop.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tierd.h"

#define HTTP_MAX_CLIENTS 8
#define HTTP_REQ_MAX 4096
#define HTTP_TIMEOUT_MS 5000

struct http_client {
	int fd; /* -1: free slot */
	char req[HTTP_REQ_MAX + 1];
	size_t req_len;
	struct tl_strbuf resp;
	size_t sent;
	bool writing;
	int64_t deadline_ms;
};

struct tierd_http {
	int listen_fd;
	struct http_client c[HTTP_MAX_CLIENTS];
};

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

int tierd_metrics_render(struct tierd *td, struct tl_strbuf *out)
{
	struct tl_metrics_events *ev = NULL;
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
	if (!ev) {
		free(l.devs);
		return -ENOMEM;
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
	ret = tl_metrics_format(out, l.devs, l.nr, ev, nr_ev);
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

	ret = tierd_metrics_render(td, &b);
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

/* ---- HTTP ----------------------------------------------------------------- */

struct tierd_http *tierd_http_open(const struct tl_conf_listen *l)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	struct tierd_http *h;
	socklen_t slen;
	int one = 1, fd, i;

	if (l->family == AF_INET) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(l->port);
		inet_pton(AF_INET, l->addr, &in4->sin_addr);
		slen = sizeof(*in4);
	} else {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(l->port);
		inet_pton(AF_INET6, l->addr, &in6->sin6_addr);
		slen = sizeof(*in6);
	}
	fd = socket(l->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		log_err("metrics_listen: socket: %s", strerror(errno));
		return NULL;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, slen) || listen(fd, 16)) {
		log_err("metrics_listen: cannot listen on %s port %u: %s (pick a free port)",
			l->addr, l->port, strerror(errno));
		close(fd);
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		close(fd);
		return NULL;
	}
	h->listen_fd = fd;
	for (i = 0; i < HTTP_MAX_CLIENTS; i++)
		h->c[i].fd = -1;
	log_info("metrics: serving http://%s%s%s:%u/metrics",
		 l->family == AF_INET6 ? "[" : "", l->addr,
		 l->family == AF_INET6 ? "]" : "", l->port);
	return h;
}

static void client_close(struct http_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	tl_strbuf_free(&c->resp);
}

void tierd_http_close(struct tierd_http *h)
{
	int i;

	if (!h)
		return;
	for (i = 0; i < HTTP_MAX_CLIENTS; i++)
		client_close(&h->c[i]);
	close(h->listen_fd);
	free(h);
}

int tierd_http_pollfds(struct tierd_http *h, struct pollfd *pfd, int max)
{
	int i, n = 0;

	if (!h || max < 1)
		return 0;
	pfd[n++] = (struct pollfd){ .fd = h->listen_fd, .events = POLLIN };
	for (i = 0; i < HTTP_MAX_CLIENTS && n < max; i++) {
		if (h->c[i].fd < 0)
			continue;
		pfd[n++] = (struct pollfd){ .fd = h->c[i].fd,
					    .events = h->c[i].writing ?
							      POLLOUT :
							      POLLIN };
	}
	return n;
}

int64_t tierd_http_deadline(struct tierd_http *h)
{
	int64_t t = INT64_MAX;
	int i;

	if (!h)
		return t;
	for (i = 0; i < HTTP_MAX_CLIENTS; i++) {
		if (h->c[i].fd >= 0 && h->c[i].deadline_ms < t)
			t = h->c[i].deadline_ms;
	}
	return t;
}

/* HEAD gets the headers GET would, without the body. */
static void respond(struct http_client *c, const char *status, const char *type,
		    const char *body, size_t len, bool head_only)
{
	tl_strbuf_reset(&c->resp);
	tl_strbuf_printf(
		&c->resp,
		"HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
		status, type, len);
	if (!head_only)
		tl_strbuf_printf(&c->resp, "%.*s", (int)len, body);
	c->sent = 0;
	c->writing = true;
}

/* The request line is all we look at; headers are read and ignored. */
static void handle_request(struct tierd *td, struct http_client *c)
{
	struct tl_strbuf body = { 0 };
	char method[16], target[256];
	const char *msg;
	bool head;

	if (sscanf(c->req, "%15s %255s", method, target) != 2) {
		msg = "bad request\n";
		respond(c, "400 Bad Request", "text/plain", msg, strlen(msg),
			false);
		return;
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		msg = "only GET /metrics\n";
		respond(c, "405 Method Not Allowed", "text/plain", msg,
			strlen(msg), false);
		return;
	}
	head = !strcmp(method, "HEAD");
	if (strcmp(target, "/metrics") && strncmp(target, "/metrics?", 9)) {
		msg = "not found: try /metrics\n";
		respond(c, "404 Not Found", "text/plain", msg, strlen(msg),
			head);
		return;
	}
	if (tierd_metrics_render(td, &body)) {
		msg = "cannot read dm-tier devices (see tierd's log)\n";
		respond(c, "503 Service Unavailable", "text/plain", msg,
			strlen(msg), head);
	} else {
		respond(c, "200 OK", TL_METRICS_CONTENT_TYPE, body.buf,
			body.len, head);
	}
	tl_strbuf_free(&body);
}

static void accept_clients(struct tierd_http *h)
{
	struct http_client *c;
	int fd, i;

	for (;;) {
		fd = accept4(h->listen_fd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		for (i = 0; i < HTTP_MAX_CLIENTS && h->c[i].fd >= 0; i++)
			;
		if (i == HTTP_MAX_CLIENTS) {
			close(fd); /* a scraper retries; never block the loop */
			continue;
		}
		c = &h->c[i];
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		c->deadline_ms = tierd_now_ms() + HTTP_TIMEOUT_MS;
	}
}

static void client_io(struct tierd *td, struct http_client *c)
{
	ssize_t n;

	if (!c->writing) {
		n = recv(c->fd, c->req + c->req_len, HTTP_REQ_MAX - c->req_len,
			 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			client_close(c);
			return;
		}
		c->req_len += (size_t)n;
		c->req[c->req_len] = '\0';
		if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n"))
			handle_request(td, c);
		else if (c->req_len == HTTP_REQ_MAX)
			respond(c, "431 Request Header Fields Too Large",
				"text/plain", "", 0, false);
		if (!c->writing)
			return;
	}
	if (c->resp.failed) {
		client_close(c);
		return;
	}
	while (c->sent < c->resp.len) {
		n = send(c->fd, c->resp.buf + c->sent, c->resp.len - c->sent,
			 MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0)
			break;
		c->sent += (size_t)n;
	}
	client_close(c);
}

void tierd_http_serve(struct tierd *td, struct tierd_http *h,
		      const struct pollfd *pfd, int n)
{
	int64_t now = tierd_now_ms();
	int i, k;

	if (!h)
		return;
	for (k = 0; k < n; k++) {
		if (!pfd[k].revents)
			continue;
		if (pfd[k].fd == h->listen_fd) {
			accept_clients(h);
			continue;
		}
		for (i = 0; i < HTTP_MAX_CLIENTS; i++) {
			if (h->c[i].fd == pfd[k].fd) {
				client_io(td, &h->c[i]);
				break;
			}
		}
	}
	for (i = 0; i < HTTP_MAX_CLIENTS; i++) {
		if (h->c[i].fd >= 0 && now >= h->c[i].deadline_ms)
			client_close(&h->c[i]);
	}
}
