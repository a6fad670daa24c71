/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-print.h - one print call serves text and JSON output (the iproute2 way),
 * so the two can never drift apart.
 *
 *   print_open(json);                     once, from main()
 *   print_obj_begin(NULL);                 top-level object
 *   print_str("name", "name: %s\n", s);    text uses fmt, JSON uses key
 *   print_u64("size_bytes", "size: %llu\n", n);
 *   print_arr_begin("tiers", "tiers:\n"); print_obj_begin(NULL) ... end
 *   print_obj_end(); print_close();
 */
#ifndef DM_TIER_TL_PRINT_H
#define DM_TIER_TL_PRINT_H

#include <stdbool.h>
#include <stdint.h>

void print_open(bool json);
bool print_is_json(void);
void print_close(void);

/* Begin/end a JSON object or array; @key is NULL inside arrays/at top. */
void print_obj_begin(const char *key);
void print_obj_end(void);
void print_arr_begin(const char *key, const char *text);
void print_arr_end(void);

/* @text_fmt is a printf format with one conversion for the value, or NULL
 * to print nothing in text mode. */
void print_str(const char *key, const char *text_fmt, const char *value);
void print_u64(const char *key, const char *text_fmt, uint64_t value);
void print_s64(const char *key, const char *text_fmt, int64_t value);
/* A JSON number with 6 decimals (null when not finite); text uses @text_fmt
 * (e.g. "%.1f MiB/s\n"). */
void print_double(const char *key, const char *text_fmt, double value);
void print_bool(const char *key, const char *text_fmt, bool value);
/* A number in JSON, its human form in text: JSON prints @value under @key,
 * text prints @text_fmt with @text (e.g. "1.5 GiB" for a byte count). */
void print_u64_text(const char *key, const char *text_fmt, uint64_t value,
		    const char *text);
/* JSON null under @key; text prints @text_fmt as is (no conversion). */
void print_null(const char *key, const char *text_fmt);
/* Text-only output (headings, blank lines); nothing in JSON mode. */
void print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* DM_TIER_TL_PRINT_H */
