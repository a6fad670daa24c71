/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-json.h - a small pull reader for JSON text (tierctl restore reads the
 * JSON that tierctl dump prints). Tokens come one at a time; ':' and ','
 * are checked only as separators, so it reads every valid JSON document and
 * a few invalid ones. Strings are unescaped (\uXXXX below U+0080 only),
 * numbers are returned as their text.
 */
#ifndef DM_TIER_TL_JSON_H
#define DM_TIER_TL_JSON_H

#include "tl.h"

enum tl_jtok {
	TJ_ERR,
	TJ_EOF,
	TJ_OBJ,		/* { */
	TJ_OBJ_END,	/* } */
	TJ_ARR,		/* [ */
	TJ_ARR_END,	/* ] */
	TJ_STR,
	TJ_NUM,
	TJ_TRUE,
	TJ_FALSE,
	TJ_NULL,
};

struct tl_json {
	const char *p, *end;
	u32 line;
};

void tl_json_init(struct tl_json *j, const char *text, size_t len);

/* The next token; TJ_STR and TJ_NUM put their text in @buf (truncated to
 * @len - 1 bytes: TJ_ERR when it does not fit). */
enum tl_jtok tl_json_next(struct tl_json *j, char *buf, size_t len);

/* Skip one value whose first token @tok was already read. 0 or -EINVAL. */
int tl_json_skip(struct tl_json *j, enum tl_jtok tok);

/* An unsigned decimal integer token text; 0 or -EINVAL. */
int tl_json_u64(const char *num, u64 *v);

#endif /* DM_TIER_TL_JSON_H */
