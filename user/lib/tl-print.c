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

static void json_string(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
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
