// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz - throw random and malformed requests at the dm-tier generic
 * netlink family and check that every one is answered.
 *
 * Raw AF_NETLINK/NETLINK_GENERIC sockets, no libnl: builds with plain gcc
 * (gcc -O2 -Wall -o nlfuzz nlfuzz.c) on the host or in the guest.
 *
 *   nlfuzz fuzz [-n COUNT] [-s SEED] [-d DEVNAME] [-t TIMEOUT_MS]
 *	COUNT requests (default 5000): random commands (out of range too),
 *	random attribute types and lengths, truncated attributes, bad nesting,
 *	huge lengths, wrong types, random device names and DEVNAME (the real
 *	device), well-formed requests with random values, dumps read whole or
 *	cut short (the socket is closed mid-dump). Every request must get an
 *	answer (NLMSG_ERROR, a reply, or a dump's NLMSG_DONE) within
 *	TIMEOUT_MS (default 3000). Prints counts; exit 0 only if none went
 *	unanswered.
 *   nlfuzz ops DEVNAME MIB
 *	Functional checks as root on a device whose first MIB MiB are written
 *	(1 MiB extents, two tiers): dev-get, policy-set/get (both watermarks
 *	at once, all or nothing; leaves high 70 low 50), pin, extent-dump,
 *	unpin, migrate and its errors, tier-recover.
 *   nlfuzz monitor SECONDS
 *	Join the "monitor" group and print one line per notification
 *	("event=N tier=T name=NAME layout=yes") for SECONDS; exit 0 if any came.
 *   nlfuzz recover DEVNAME TIER
 *	tier-recover; exit 0 when it succeeded.
 *   nlfuzz perm DEVNAME
 *	Run without CAP_SYS_ADMIN (no capabilities, or CAP_NET_ADMIN only):
 *	policy-set, migrate, pin, unpin, tier-recover and the extent-dump dump
 *	must fail with EPERM, and so must joining the monitor group; dev-get
 *	and policy-get must succeed. Exit 0 when they do.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

/* From include/uapi/linux/dm-tier.h, copied so the file stands alone. */
#define FAMILY "dm-tier"
enum {
	CMD_DEV_GET = 1,
	CMD_POLICY_GET,
	CMD_POLICY_SET,
	CMD_MIGRATE,
	CMD_PIN,
	CMD_UNPIN,
	CMD_EXTENT_DUMP,
	CMD_TIER_RECOVER,
	CMD_DEV_NTF,
};

enum {
	A_NAME = 1,
	A_UUID,
	A_SIZE_BYTES,
	A_EXTENT_BYTES,
	A_VIRT_EXTENTS,
	A_MAPPED_EXTENTS,
	A_METADATA_MODE,
	A_COMMITS,
	A_NOSPC_ERRORS,
	A_NR_TIERS,
	A_TIERS,
	A_MIGRATION,
	A_POLICY,
	A_EVENT,
	A_EVENT_TIER,
	A_RANGE_START,
	A_RANGE_LEN,
	A_TARGET_TIER,
	A_EXTENTS,
	A_DONE_EXTENTS,
	A_PAD,
	A_MAX = A_PAD,
};

#define POLICY_MAX 10
#define BUF_SIZE 65536

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static uint32_t rn(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

struct msg {
	unsigned char buf[BUF_SIZE];
	size_t len;
};

static void put(struct msg *m, const void *data, size_t len)
{
	if (m->len + len > sizeof(m->buf))
		return;
	memcpy(m->buf + m->len, data, len);
	m->len += len;
}

static void pad4(struct msg *m)
{
	static const unsigned char zero[4];

	put(m, zero, NLA_ALIGN(m->len) - m->len);
}

/* An attribute; returns its offset (for nests). */
static size_t attr(struct msg *m, uint16_t type, const void *data,
		   uint16_t len)
{
	struct nlattr a = { .nla_len = NLA_HDRLEN + len, .nla_type = type };
	size_t at = m->len;

	put(m, &a, sizeof(a));
	if (len)
		put(m, data, len);
	pad4(m);
	return at;
}

static void attr_u32(struct msg *m, uint16_t type, uint32_t v)
{
	attr(m, type, &v, sizeof(v));
}

static void attr_u64(struct msg *m, uint16_t type, uint64_t v)
{
	attr(m, type, &v, sizeof(v));
}

static void attr_str(struct msg *m, uint16_t type, const char *s)
{
	attr(m, type, s, strlen(s) + 1);
}

static size_t nest_start(struct msg *m, uint16_t type)
{
	return attr(m, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct msg *m, size_t at)
{
	struct nlattr *a = (struct nlattr *)(m->buf + at);

	a->nla_len = m->len - at;
}

static void begin(struct msg *m, uint16_t family, uint8_t cmd, uint16_t flags,
		  uint32_t seq)
{
	struct nlmsghdr h = { .nlmsg_type = family,
			      .nlmsg_flags = flags,
			      .nlmsg_seq = seq };
	struct genlmsghdr g = { .cmd = cmd, .version = 1 };

	m->len = 0;
	put(m, &h, sizeof(h));
	put(m, &g, sizeof(g));
}

static void finish(struct msg *m)
{
	((struct nlmsghdr *)m->buf)->nlmsg_len = m->len;
}

static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd, one = 1, size = 1 << 20;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0) {
		perror("socket");
		exit(2);
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("bind");
		exit(2);
	}
	return fd;
}

static int nl_send(int fd, const struct msg *m)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	return sendto(fd, m->buf, m->len, 0, (struct sockaddr *)&sa,
		      sizeof(sa)) < 0 ?
		       -errno :
		       0;
}

/* What came back for one request. */
struct answer {
	int answered; /* an error/ack, a DONE, or (cut short) any message */
	int error; /* errno of NLMSG_ERROR, 0 for an ack or DONE */
	int replies; /* messages of the family */
	int got_name; /* a reply carried the name attribute */
	unsigned char first[8192]; /* attributes of the first reply */
	int first_len;
	long extents, pinned; /* extent-dump: nests seen, pinned ones */
};

/* The attribute @type at the top level of @buf, or NULL. */
static struct nlattr *find_attr(unsigned char *buf, int len, int type)
{
	struct nlattr *na = (struct nlattr *)buf;

	while (len >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
	       na->nla_len <= len) {
		if ((na->nla_type & NLA_TYPE_MASK) == type)
			return na;
		len -= NLA_ALIGN(na->nla_len);
		na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len));
	}
	return NULL;
}

/* Count extents nests (and pinned ones) of an extent-dump message. */
static void count_extents(unsigned char *buf, int len, struct answer *a)
{
	struct nlattr *na = (struct nlattr *)buf;

	while (len >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
	       na->nla_len <= len) {
		if ((na->nla_type & NLA_TYPE_MASK) == A_EXTENTS) {
			a->extents++;
			if (find_attr((unsigned char *)na + NLA_HDRLEN,
				      na->nla_len - NLA_HDRLEN, 5 /* pinned */))
				a->pinned++;
		}
		len -= NLA_ALIGN(na->nla_len);
		na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len));
	}
}

static unsigned char rbuf[BUF_SIZE];

/*
 * Read until the answer of @seq is complete (error/ack; DONE for a dump),
 * or only the first message when @cut. Return: 0, -ETIMEDOUT.
 */
static int nl_wait(int fd, uint32_t seq, int dump, int cut, int timeout_ms,
		   struct answer *a)
{
	memset(a, 0, sizeof(*a));
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct nlmsghdr *h;
		ssize_t n;

		if (poll(&p, 1, timeout_ms) <= 0)
			return -ETIMEDOUT;
		n = recv(fd, rbuf, sizeof(rbuf), 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			if (errno == ENOBUFS) /* dump overran us: still an answer */
				continue;
			perror("recv");
			return -errno;
		}
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue; /* a late answer to an earlier one */
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				a->answered = 1;
				a->error = -e->error;
				/* An ack of a do ends it; so does any error. */
				if (!dump || e->error)
					return 0;
				continue;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				a->answered = 1;
				return 0;
			}
			a->replies++;
			if (h->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN) +
						    NLA_HDRLEN) {
				unsigned char *at = (unsigned char *)NLMSG_DATA(h) +
						    GENL_HDRLEN;
				int alen = (int)(h->nlmsg_len -
						 NLMSG_LENGTH(GENL_HDRLEN));

				if (find_attr(at, alen, A_NAME))
					a->got_name = 1;
				if (a->replies == 1 && alen > 0 &&
				    alen <= (int)sizeof(a->first)) {
					memcpy(a->first, at, alen);
					a->first_len = alen;
				}
				count_extents(at, alen, a);
			}
			if (cut) {
				a->answered = 1;
				return 0;
			}
		}
	}
}

static int monitor_group = -1; /* "monitor" multicast group id */

/* CTRL_ATTR_MCAST_GROUPS: nests of (name, id); remember "monitor". */
static void parse_groups(struct nlattr *groups)
{
	struct nlattr *g = (struct nlattr *)((char *)groups + NLA_HDRLEN);
	int len = groups->nla_len - NLA_HDRLEN;

	while (len >= NLA_HDRLEN && g->nla_len >= NLA_HDRLEN &&
	       g->nla_len <= len) {
		unsigned char *in = (unsigned char *)g + NLA_HDRLEN;
		int ilen = g->nla_len - NLA_HDRLEN;
		struct nlattr *name = find_attr(in, ilen, CTRL_ATTR_MCAST_GRP_NAME);
		struct nlattr *id = find_attr(in, ilen, CTRL_ATTR_MCAST_GRP_ID);

		if (name && id &&
		    !strcmp((char *)name + NLA_HDRLEN, "monitor"))
			monitor_group = *(uint32_t *)((char *)id + NLA_HDRLEN);
		len -= NLA_ALIGN(g->nla_len);
		g = (struct nlattr *)((char *)g + NLA_ALIGN(g->nla_len));
	}
}

static int resolve_family(int fd)
{
	struct msg *m = calloc(1, sizeof(*m));
	struct nlmsghdr *h;
	int id = -1;
	ssize_t n;

	begin(m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_REQUEST, 1);
	attr_str(m, CTRL_ATTR_FAMILY_NAME, FAMILY);
	finish(m);
	if (nl_send(fd, m) < 0) {
		perror("send");
		exit(2);
	}
	n = recv(fd, rbuf, sizeof(rbuf), 0);
	for (h = (struct nlmsghdr *)rbuf; n > 0 && NLMSG_OK(h, (size_t)n);
	     h = NLMSG_NEXT(h, n)) {
		struct nlattr *na;
		int len;

		if (h->nlmsg_type == NLMSG_ERROR)
			break;
		na = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
		len = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
		while (len >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
		       na->nla_len <= len) {
			if (na->nla_type == CTRL_ATTR_FAMILY_ID)
				id = *(uint16_t *)((char *)na + NLA_HDRLEN);
			if ((na->nla_type & NLA_TYPE_MASK) ==
			    CTRL_ATTR_MCAST_GROUPS)
				parse_groups(na);
			len -= NLA_ALIGN(na->nla_len);
			na = (struct nlattr *)((char *)na +
					       NLA_ALIGN(na->nla_len));
		}
	}
	free(m);
	if (id < 0) {
		fprintf(stderr, "nlfuzz: family %s not found (module loaded?)\n",
			FAMILY);
		exit(2);
	}
	return id;
}

static const char *devname = "tier0";

static void rand_name(char *s, size_t size)
{
	static const char *const names[] = { "", "x", "tier", "../../etc",
					     "dm-0", "%s%s%n" };
	size_t i, n;

	switch (rn(4)) {
	case 0:
		snprintf(s, size, "%s", devname);
		return;
	case 1:
		snprintf(s, size, "%s", names[rn(6)]);
		return;
	case 2: /* longer than the 127 the policy allows */
		n = 100 + rn(60);
		break;
	default:
		n = rn(20);
		break;
	}
	if (n >= size)
		n = size - 1;
	for (i = 0; i < n; i++)
		s[i] = 1 + rn(255);
	s[n] = 0;
}

static uint64_t rand_u64(void)
{
	switch (rn(6)) {
	case 0:
		return 0;
	case 1:
		return UINT64_MAX - rn(4);
	case 2:
		return (uint64_t)rn(64) << 20; /* MiBs into a small device */
	case 3:
		return rn(1 << 20);
	case 4:
		return 1ULL << rn(64);
	default:
		return rnd();
	}
}

static uint32_t rand_u32(void)
{
	switch (rn(5)) {
	case 0:
		return rn(3);
	case 1:
		return rn(120);
	case 2:
		return UINT32_MAX - rn(2);
	case 3:
		return rn(70000);
	default:
		return (uint32_t)rnd();
	}
}

static void rand_policy(struct msg *m)
{
	size_t nest = nest_start(m, A_POLICY);
	int i, n = rn(5);

	for (i = 0; i < n; i++) {
		uint16_t type = rn(8) ? 1 + rn(POLICY_MAX) : rn(40);

		if (rn(10))
			attr_u32(m, type, rand_u32());
		else
			attr_u64(m, type, rand_u64());
	}
	nest_end(m, nest);
}

/* A request that passes the policy most of the time, values random. */
static void well_formed(struct msg *m, uint8_t cmd)
{
	char name[200];

	rand_name(name, sizeof(name));
	if (rn(10))
		attr_str(m, A_NAME, name);
	switch (cmd) {
	case CMD_POLICY_SET:
		if (rn(10))
			rand_policy(m);
		break;
	case CMD_MIGRATE:
	case CMD_PIN:
	case CMD_UNPIN:
	case CMD_EXTENT_DUMP:
		if (rn(8))
			attr_u64(m, A_RANGE_START, rand_u64());
		if (rn(8))
			attr_u64(m, A_RANGE_LEN, rand_u64());
		if (cmd != CMD_UNPIN && cmd != CMD_EXTENT_DUMP && rn(8))
			attr_u32(m, A_TARGET_TIER, rn(10));
		break;
	case CMD_TIER_RECOVER:
		if (rn(8))
			attr_u32(m, A_TARGET_TIER, rn(10));
		break;
	default:
		break;
	}
}

/* Random attributes: types, lengths, contents, nesting, broken headers. */
static void garbage(struct msg *m)
{
	int i, n = 1 + rn(8);
	unsigned char data[512];
	size_t nest;

	for (i = 0; i < n; i++) {
		uint16_t type = rn(4) ? rn(A_MAX + 4) : rnd();
		uint16_t len = rn(4) ? rn(24) : rn(sizeof(data));
		size_t j;

		for (j = 0; j < len; j++)
			data[j] = rnd();
		switch (rn(8)) {
		case 0: { /* truncated: nla_len past the end */
			struct nlattr a = { .nla_len = NLA_HDRLEN + len + 1 +
						       rn(4096),
					    .nla_type = type };

			put(m, &a, sizeof(a));
			put(m, data, len);
			return;
		}
		case 1: { /* nla_len below the header */
			struct nlattr a = { .nla_len = rn(NLA_HDRLEN),
					    .nla_type = type };

			put(m, &a, sizeof(a));
			break;
		}
		case 2: /* a nest holding garbage or a deeper nest */
			nest = nest_start(m, rn(2) ? A_POLICY : type);
			if (rn(2))
				attr(m, rnd(), data, len);
			else
				nest_end(m, nest_start(m, A_POLICY));
			nest_end(m, nest);
			break;
		case 3: { /* huge length */
			struct nlattr a = { .nla_len = 0xffff,
					    .nla_type = type };

			put(m, &a, sizeof(a));
			put(m, data, len);
			return;
		}
		case 4: /* the name without its NUL, or as a number */
			if (rn(2))
				attr(m, A_NAME, devname, strlen(devname));
			else
				attr_u32(m, A_NAME, rnd());
			break;
		case 5: /* u64 attributes of the wrong size */
			attr(m, A_RANGE_START + rn(3), data, rn(12));
			break;
		case 6: /* a trailing half header */
			put(m, data, 1 + rn(3));
			return;
		default:
			attr(m, type, data, len);
			break;
		}
	}
}

struct counts {
	long sent, answered, unanswered, acks, replies, cut, send_err;
	long err[256];
};

static int fuzz(int count, uint64_t seed, int timeout_ms)
{
	static struct msg m;
	struct counts c = { 0 };
	int fd = nl_open(), family = resolve_family(fd);
	uint32_t seq = 100;
	int i;

	rng_state = seed ? seed : 1;
	for (i = 0; i < count; i++) {
		uint8_t cmd = rn(5) ? 1 + rn(CMD_TIER_RECOVER) : rn(256);
		int dump = rn(10) < 3 || cmd == CMD_EXTENT_DUMP;
		int cut = dump && !rn(6);
		uint16_t flags = NLM_F_REQUEST | NLM_F_ACK;
		struct answer a;
		int r;

		if (dump)
			flags |= NLM_F_DUMP;
		begin(&m, family, cmd, flags, ++seq);
		if (!rn(30)) {
			/* Shorter than a genetlink header. */
			m.len = NLMSG_HDRLEN + rn(GENL_HDRLEN);
		} else {
			if (!rn(20))
				((struct genlmsghdr *)(m.buf + NLMSG_HDRLEN))
					->version = rn(256);
			switch (rn(3)) {
			case 0:
				garbage(&m);
				break;
			case 1:
				well_formed(&m, cmd);
				garbage(&m);
				break;
			default:
				well_formed(&m, cmd);
				break;
			}
		}
		finish(&m);
		c.sent++;
		r = nl_send(fd, &m);
		if (r < 0) {
			/* Refused at send: an answer too (EMSGSIZE, ...). */
			c.send_err++;
			c.answered++;
			continue;
		}
		r = nl_wait(fd, seq, dump, cut, timeout_ms, &a);
		if (r || !a.answered) {
			c.unanswered++;
			fprintf(stderr,
				"nlfuzz: request %d (seq %u cmd %u flags 0x%x len %zu) unanswered\n",
				i, seq, cmd, flags, m.len);
			close(fd);
			fd = nl_open();
			continue;
		}
		c.answered++;
		c.replies += a.replies;
		if (cut) {
			/* Close mid-dump: the kernel must clean up. */
			c.cut++;
			close(fd);
			fd = nl_open();
		} else if (a.error) {
			c.err[a.error & 255]++;
		} else {
			c.acks++;
		}
	}
	close(fd);
	printf("nlfuzz: seed %llu: %ld sent, %ld answered, %ld unanswered, %ld ok, %ld replies, %ld dumps cut short, %ld refused at send\n",
	       (unsigned long long)seed, c.sent, c.answered, c.unanswered,
	       c.acks, c.replies, c.cut, c.send_err);
	printf("nlfuzz: errors:");
	for (i = 0; i < 256; i++)
		if (c.err[i])
			printf(" %s=%ld", strerror(i), c.err[i]);
	printf("\n");
	return c.unanswered ? 1 : 0;
}

/* One request as an unprivileged user; its errno (0: success). */
static int perm_one(int fd, int family, uint8_t cmd, uint32_t seq, int *name)
{
	static struct msg m;
	struct answer a;

	int dump = cmd == CMD_EXTENT_DUMP;

	begin(&m, family, cmd,
	      NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0), seq);
	attr_str(&m, A_NAME, devname);
	switch (cmd) {
	case CMD_POLICY_SET: {
		size_t nest = nest_start(&m, A_POLICY);

		attr_u32(&m, 1, 1); /* auto-migrate 1 */
		nest_end(&m, nest);
		break;
	}
	case CMD_MIGRATE:
	case CMD_PIN:
	case CMD_UNPIN:
		attr_u64(&m, A_RANGE_START, 0);
		attr_u64(&m, A_RANGE_LEN, 1);
		if (cmd != CMD_UNPIN)
			attr_u32(&m, A_TARGET_TIER, 0);
		break;
	case CMD_TIER_RECOVER:
		attr_u32(&m, A_TARGET_TIER, 0);
		break;
	default:
		break;
	}
	finish(&m);
	if (nl_send(fd, &m) < 0)
		return errno;
	if (nl_wait(fd, seq, dump, 0, 3000, &a) || !a.answered)
		return ETIMEDOUT;
	*name = a.got_name;
	return a.error;
}

static int perm(void)
{
	static const struct {
		uint8_t cmd;
		const char *what;
		int want;
	} t[] = {
		{ CMD_POLICY_SET, "policy-set", EPERM },
		{ CMD_MIGRATE, "migrate", EPERM },
		{ CMD_PIN, "pin", EPERM },
		{ CMD_UNPIN, "unpin", EPERM },
		{ CMD_TIER_RECOVER, "tier-recover", EPERM },
		{ CMD_EXTENT_DUMP, "extent-dump", EPERM },
		{ CMD_DEV_GET, "dev-get", 0 },
		{ CMD_POLICY_GET, "policy-get", 0 },
	};
	int fd = nl_open(), family = resolve_family(fd);
	int bad = 0, name;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int e;

		name = 0;
		e = perm_one(fd, family, t[i].cmd, 10 + i, &name);
		if (e != t[i].want || (!t[i].want && !name)) {
			printf("nlfuzz: perm: %s: got %s, want %s\n", t[i].what,
			       e ? strerror(e) : "success",
			       t[i].want ? strerror(t[i].want) :
					   "success with a reply");
			bad++;
		} else {
			printf("nlfuzz: perm: %s: %s as expected\n", t[i].what,
			       e ? strerror(e) : "success");
		}
	}
	if (monitor_group < 0) {
		printf("nlfuzz: perm: no monitor group\n");
		bad++;
	} else if (!setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
			       &monitor_group, sizeof(monitor_group))) {
		printf("nlfuzz: perm: joining the monitor group: got success, want %s\n",
		       strerror(EPERM));
		bad++;
	} else if (errno != EPERM) {
		printf("nlfuzz: perm: joining the monitor group: got %s, want %s\n",
		       strerror(errno), strerror(EPERM));
		bad++;
	} else {
		printf("nlfuzz: perm: joining the monitor group: %s as expected\n",
		       strerror(EPERM));
	}
	close(fd);
	return bad ? 1 : 0;
}

/* ---- ops: functional checks as root ---- */

static int ops_fd, ops_family, ops_bad;
static uint32_t ops_seq = 1000;
static struct answer ops_a;

struct oreq {
	uint8_t cmd;
	const char *name;
	int dump;
	int64_t start, len; /* -1: absent */
	int tier; /* -1: absent */
	int high, low; /* policy-set; -1: absent */
};

static int ops_do(const struct oreq *q)
{
	static struct msg m;
	uint16_t flags = NLM_F_REQUEST | NLM_F_ACK;

	if (q->dump)
		flags |= NLM_F_DUMP;
	begin(&m, ops_family, q->cmd, flags, ++ops_seq);
	attr_str(&m, A_NAME, q->name);
	if (q->start >= 0)
		attr_u64(&m, A_RANGE_START, q->start);
	if (q->len >= 0)
		attr_u64(&m, A_RANGE_LEN, q->len);
	if (q->tier >= 0)
		attr_u32(&m, A_TARGET_TIER, q->tier);
	if (q->high >= 0 || q->low >= 0) {
		size_t nest = nest_start(&m, A_POLICY);

		if (q->high >= 0)
			attr_u32(&m, 2, q->high);
		if (q->low >= 0)
			attr_u32(&m, 3, q->low);
		nest_end(&m, nest);
	}
	finish(&m);
	if (nl_send(ops_fd, &m) < 0)
		return errno;
	if (nl_wait(ops_fd, ops_seq, q->dump, 0, 5000, &ops_a) ||
	    !ops_a.answered)
		return ETIMEDOUT;
	return ops_a.error;
}

static void ops_expect(const char *what, int got, int want)
{
	if (got == want) {
		printf("nlfuzz: ops: %s: %s as expected\n", what,
		       got ? strerror(got) : "ok");
		return;
	}
	printf("nlfuzz: ops: %s: got %s, want %s\n", what,
	       got ? strerror(got) : "ok", want ? strerror(want) : "ok");
	ops_bad++;
}

static void ops_expect_num(const char *what, long long got, long long want)
{
	if (got == want) {
		printf("nlfuzz: ops: %s = %lld as expected\n", what, got);
		return;
	}
	printf("nlfuzz: ops: %s = %lld, want %lld\n", what, got, want);
	ops_bad++;
}

static long long ops_u64(int type)
{
	struct nlattr *na = find_attr(ops_a.first, ops_a.first_len, type);

	return na ? (long long)*(uint64_t *)((char *)na + NLA_HDRLEN) : -1;
}

static long long ops_policy(int type)
{
	struct nlattr *p = find_attr(ops_a.first, ops_a.first_len, A_POLICY);
	struct nlattr *na;

	if (!p)
		return -1;
	na = find_attr((unsigned char *)p + NLA_HDRLEN, p->nla_len - NLA_HDRLEN,
		       type);
	return na ? (long long)*(uint32_t *)((char *)na + NLA_HDRLEN) : -1;
}

/*
 * DEV must have its first @mib MiB written (1 MiB extents) and two tiers.
 * Leaves high/low watermarks at 70/50 for the caller to find in the table.
 */
static int ops(const char *dev, int mib)
{
	const int64_t M = 1 << 20;

	ops_fd = nl_open();
	ops_family = resolve_family(ops_fd);
/* Defaults first, the arguments override them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#define Q(...) (&(struct oreq){ .name = dev, .start = -1, .len = -1, \
				.tier = -1, .high = -1, .low = -1,   \
				__VA_ARGS__ })
	ops_expect("dev-get", ops_do(Q(.cmd = CMD_DEV_GET)), 0);
	ops_expect_num("dev-get extent-bytes", ops_u64(A_EXTENT_BYTES), M);
	ops_expect("dev-get unknown name",
		   ops_do(Q(.cmd = CMD_DEV_GET, .name = "nlfuzz-none")),
		   ENOENT);
	ops_expect("dev-get dump", ops_do(Q(.cmd = CMD_DEV_GET, .dump = 1)),
		   0);
	/* Both watermarks down at once: valid only together. */
	ops_expect("policy-set high 30 low 20",
		   ops_do(Q(.cmd = CMD_POLICY_SET, .high = 30, .low = 20)), 0);
	ops_expect_num("policy-set reply high", ops_policy(2), 30);
	ops_expect("policy-set high 70 low 50",
		   ops_do(Q(.cmd = CMD_POLICY_SET, .high = 70, .low = 50)), 0);
	ops_expect("policy-set low 95 (not below high)",
		   ops_do(Q(.cmd = CMD_POLICY_SET, .low = 95)), EINVAL);
	ops_expect("policy-set high 101",
		   ops_do(Q(.cmd = CMD_POLICY_SET, .high = 101)), ERANGE);
	ops_expect("policy-get", ops_do(Q(.cmd = CMD_POLICY_GET)), 0);
	ops_expect_num("policy-get high", ops_policy(2), 70);
	ops_expect_num("policy-get low", ops_policy(3), 50);

	ops_expect("pin",
		   ops_do(Q(.cmd = CMD_PIN, .start = 0, .len = mib * M)), 0);
	ops_expect_num("pin done-extents", ops_u64(A_DONE_EXTENTS), mib);
	ops_expect("extent-dump",
		   ops_do(Q(.cmd = CMD_EXTENT_DUMP, .dump = 1, .start = 0,
			     .len = mib * M)),
		   0);
	ops_expect_num("extent-dump extents", ops_a.extents, mib);
	ops_expect_num("extent-dump pinned", ops_a.pinned, mib);
	ops_expect("unpin (a partial extent rounds out)",
		   ops_do(Q(.cmd = CMD_UNPIN, .start = 1,
			     .len = mib * M - 2)),
		   0);
	ops_expect_num("unpin done-extents", ops_u64(A_DONE_EXTENTS), mib);
	ops_expect("extent-dump whole device",
		   ops_do(Q(.cmd = CMD_EXTENT_DUMP, .dump = 1)), 0);
	ops_expect_num("extent-dump pinned after unpin", ops_a.pinned, 0);

	ops_expect("migrate len 0",
		   ops_do(Q(.cmd = CMD_MIGRATE, .start = 0, .len = 0,
			     .tier = 1)),
		   EINVAL);
	ops_expect("migrate past the end",
		   ops_do(Q(.cmd = CMD_MIGRATE, .start = INT64_MAX, .len = 1,
			     .tier = 1)),
		   ERANGE);
	ops_expect("migrate to tier 5",
		   ops_do(Q(.cmd = CMD_MIGRATE, .start = 0, .len = M,
			     .tier = 5)),
		   EINVAL);
	ops_expect("migrate without target-tier",
		   ops_do(Q(.cmd = CMD_MIGRATE, .start = 0, .len = M)),
		   EINVAL);
	ops_expect("migrate to tier 1",
		   ops_do(Q(.cmd = CMD_MIGRATE, .start = 0, .len = mib * M,
			     .tier = 1)),
		   0);
	ops_expect_num("migrate done-extents", ops_u64(A_DONE_EXTENTS), mib);
	ops_expect("tier-recover tier 1",
		   ops_do(Q(.cmd = CMD_TIER_RECOVER, .tier = 1)), 0);
#undef Q
#pragma GCC diagnostic pop
	close(ops_fd);
	return ops_bad ? 1 : 0;
}

/* ---- monitor: print the events of the monitor group ---- */

static int monitor(int seconds)
{
	int fd = nl_open(), n = 0;
	time_t end = time(NULL) + seconds;

	resolve_family(fd);
	if (monitor_group < 0 ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &monitor_group,
		       sizeof(monitor_group)) < 0) {
		fprintf(stderr, "nlfuzz: cannot join the monitor group\n");
		return 2;
	}
	printf("nlfuzz: monitor: listening\n");
	fflush(stdout);
	while (time(NULL) < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct nlmsghdr *h;
		ssize_t len;

		if (poll(&p, 1, 500) <= 0)
			continue;
		len = recv(fd, rbuf, sizeof(rbuf), 0);
		if (len < 0)
			continue;
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			unsigned char *at = (unsigned char *)NLMSG_DATA(h) +
					    GENL_HDRLEN;
			int alen = (int)(h->nlmsg_len -
					 NLMSG_LENGTH(GENL_HDRLEN));
			struct nlattr *ev, *tier, *name, *tiers;

			if (h->nlmsg_type < NLMSG_MIN_TYPE || alen <= 0)
				continue;
			ev = find_attr(at, alen, A_EVENT);
			tier = find_attr(at, alen, A_EVENT_TIER);
			name = find_attr(at, alen, A_NAME);
			tiers = find_attr(at, alen, A_TIERS);
			printf("event=%u tier=%d name=%s layout=%s\n",
			       ev ? *(uint32_t *)((char *)ev + NLA_HDRLEN) : 0,
			       tier ? (int)*(uint32_t *)((char *)tier +
							 NLA_HDRLEN) :
				      -1,
			       name ? (char *)name + NLA_HDRLEN : "?",
			       tiers ? "yes" : "no");
			fflush(stdout);
			n++;
		}
	}
	close(fd);
	return n ? 0 : 1;
}

/* tier-recover of one tier; its errno (0: success). */
static int recover(const char *dev, int tier)
{
	struct oreq q = { .cmd = CMD_TIER_RECOVER, .name = dev, .start = -1,
			  .len = -1, .tier = tier, .high = -1, .low = -1 };
	int r;

	ops_fd = nl_open();
	ops_family = resolve_family(ops_fd);
	r = ops_do(&q);
	close(ops_fd);
	if (r)
		printf("nlfuzz: tier-recover %s %d: %s\n", dev, tier,
		       strerror(r));
	return r ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nlfuzz fuzz [-n COUNT] [-s SEED] [-d DEVNAME] [-t TIMEOUT_MS]\n"
		"       nlfuzz perm DEVNAME\n"
		"       nlfuzz ops DEVNAME MIB\n"
		"       nlfuzz monitor SECONDS\n"
		"       nlfuzz recover DEVNAME TIER\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int count = 5000, timeout_ms = 3000, opt;
	uint64_t seed = 1;

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "perm")) {
		if (argc != 3)
			usage();
		devname = argv[2];
		return perm();
	}
	if (!strcmp(argv[1], "recover")) {
		if (argc != 4)
			usage();
		return recover(argv[2], atoi(argv[3]));
	}
	if (!strcmp(argv[1], "monitor")) {
		if (argc != 3)
			usage();
		return monitor(atoi(argv[2]));
	}
	if (!strcmp(argv[1], "ops")) {
		if (argc != 4)
			usage();
		return ops(argv[2], atoi(argv[3]));
	}
	if (strcmp(argv[1], "fuzz"))
		usage();
	optind = 2;
	while ((opt = getopt(argc, argv, "n:s:d:t:")) != -1) {
		switch (opt) {
		case 'n':
			count = atoi(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			devname = optarg;
			break;
		case 't':
			timeout_ms = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	return fuzz(count, seed, timeout_ms);
}
