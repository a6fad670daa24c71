// SPDX-License-Identifier: GPL-2.0
/* Text/JSON printer shared by tierctl and tierd; see tl-print.h. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "tl-print.h"

#define PRINT_MAX_DEPTH 16

static bool json_mode;
static int depth;
static bool need_comma[PRINT_MAX_DEPTH];

void print_open(bool json)
{
	json_mode = json;
	depth = 0;
	need_comma[0] = false;
}

bool print_is_json(void)
{
	return json_mode;
}

void print_close(void)
{
	if (json_mode)
		putchar('\n');
	fflush(stdout);
}

/*
 * Length of the well-formed UTF-8 sequence at @s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0.
 */
static int utf8_len(const unsigned char *s)
{
	int n, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* the terminating NUL included */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/*
 * JSON text must be UTF-8 (RFC 8259), and a file name, a device's model or
 * a label's text may be any bytes: a byte that does not start a
 * well-formed sequence is written as U+FFFD, so consumers (jq, Python)
 * always parse the output. The text output prints the bytes as they are.
 */
static void json_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putchar('"');
	while (p && *p) {
		int n = utf8_len(p);

		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else if (n)
			fwrite(p, 1, n, stdout);
		else
			fputs("\\ufffd", stdout);
		p += n ? n : 1;
	}
	putchar('"');
}

/* Separator and key for the next JSON member or element. */
static void json_member(const char *key)
{
	if (need_comma[depth])
		putchar(',');
	need_comma[depth] = true;
	if (key) {
		json_string(key);
		putchar(':');
	}
}

static void open_container(const char *key, char brace)
{
	if (!json_mode)
		return;
	json_member(key);
	putchar(brace);
	if (depth + 1 < PRINT_MAX_DEPTH)
		depth++;
	need_comma[depth] = false;
}

static void close_container(char brace)
{
	if (!json_mode)
		return;
	if (depth > 0)
		depth--;
	putchar(brace);
}

void print_obj_begin(const char *key)
{
	open_container(key, '{');
}

void print_obj_end(void)
{
	close_container('}');
}

void print_arr_begin(const char *key, const char *text)
{
	if (!json_mode && text)
		fputs(text, stdout);
	open_container(key, '[');
}

void print_arr_end(void)
{
	close_container(']');
}

void print_str(const char *key, const char *text_fmt, const char *value)
{
	if (json_mode) {
		json_member(key);
		if (value)
			json_string(value);
		else
			fputs("null", stdout);
	} else if (text_fmt) {
		printf(text_fmt, value ? value : "-");
	}
}

void print_u64(const char *key, const char *text_fmt, uint64_t value)
{
	if (json_mode) {
		json_member(key);
		printf("%" PRIu64, value);
	} else if (text_fmt) {
		printf(text_fmt, (unsigned long long)value);
	}
}

void print_s64(const char *key, const char *text_fmt, int64_t value)
{
	if (json_mode) {
		json_member(key);
		printf("%" PRId64, value);
	} else if (text_fmt) {
		printf(text_fmt, (long long)value);
	}
}

void print_double(const char *key, const char *text_fmt, double value)
{
	if (json_mode) {
		json_member(key);
		if (isfinite(value))
			printf("%.6f", value);
		else
			fputs("null", stdout);
	} else if (text_fmt) {
		printf(text_fmt, value);
	}
}

void print_bool(const char *key, const char *text_fmt, bool value)
{
	if (json_mode) {
		json_member(key);
		fputs(value ? "true" : "false", stdout);
	} else if (text_fmt) {
		printf(text_fmt, value ? "yes" : "no");
	}
}

void print_u64_text(const char *key, const char *text_fmt, uint64_t value,
		    const char *text)
{
	if (json_mode) {
		json_member(key);
		printf("%" PRIu64, value);
	} else if (text_fmt) {
		printf(text_fmt, text ? text : "-");
	}
}

void print_null(const char *key, const char *text_fmt)
{
	if (json_mode) {
		json_member(key);
		fputs("null", stdout);
	} else if (text_fmt) {
		fputs(text_fmt, stdout);
	}
}

void print_text(const char *fmt, ...)
{
	va_list ap;

	if (json_mode)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}
