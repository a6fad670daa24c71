// SPDX-License-Identifier: GPL-2.0
/*
 * randfill - pseudo-random test data, fast under TCG and a debug kernel.
 *
 *   randfill [SIZE]            SIZE bytes on stdout (endless without SIZE)
 *   randfill SIZE FILE...      SIZE bytes into each FILE (created/truncated)
 *
 * SIZE: bytes, or with a K, M or G suffix (binary). The VM tests used
 * `head -c N /dev/urandom`; on the KASAN kernel under TCG the kernel's
 * ChaCha20 runs at about 1.6 MB/s, which made random data a fifth of some
 * tests' time. Test data only has to differ from extent to extent and run
 * to run: splitmix64 seeded from getrandom() in user space does that at
 * user-space speed. Not for anything that needs real randomness.
 * Exit codes: 0 done, 1 a write failed, 2 usage; killed by SIGPIPE when
 * the reader of stdout goes away (`dd if=<(randfill) count=N` stops it).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define BUF_BYTES (1 << 20)

static uint64_t state;

static uint64_t next64(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end == 'K' || *end == 'M' || *end == 'G') {
		v <<= *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
		end++;
	}
	return *end ? -1 : (*out = v, 0);
}

/* Write @size bytes (all of them when @endless) to @fd. */
static int fill(int fd, unsigned long long size, int endless, uint64_t *buf)
{
	size_t i, n;
	ssize_t w;
	char *p;

	while (endless || size) {
		n = endless || size > BUF_BYTES ? BUF_BYTES : size;
		for (i = 0; i < (n + 7) / 8; i++)
			buf[i] = next64();
		for (p = (char *)buf; n; p += w, n -= w, size -= w) {
			w = write(fd, p, n);
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w <= 0)
				return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long size = 0;
	uint64_t *buf;
	int i, fd, rc = 0;

	if (argc > 1 && parse_size(argv[1], &size)) {
		fprintf(stderr, "randfill: '%s' is not a size (bytes, or N[KMG])\n", argv[1]);
		return 2;
	}
	if (getrandom(&state, sizeof(state), 0) != sizeof(state)) {
		fprintf(stderr, "randfill: getrandom: %s\n", strerror(errno));
		return 1;
	}
	buf = malloc(BUF_BYTES);
	if (!buf)
		return 1;
	if (argc <= 2) {
		/* A reader that stops early (dd count=) is not an error. */
		signal(SIGPIPE, SIG_DFL);
		return fill(STDOUT_FILENO, size, argc < 2, buf) ? 1 : 0;
	}
	for (i = 2; i < argc; i++) {
		fd = open(argv[i], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || fill(fd, size, 0, buf) || close(fd)) {
			fprintf(stderr, "randfill: %s: %s\n", argv[i], strerror(errno));
			rc = 1;
			if (fd >= 0)
				close(fd);
			break;
		}
	}
	free(buf);
	return rc;
}
