// SPDX-License-Identifier: GPL-2.0
/* libtier: a small pull reader for JSON text (see tl-json.h). */
#include <ctype.h>
#include <stdio.h>

#include "tl-json.h"

void tl_json_init(struct tl_json *j, const char *text, size_t len)
{
	j->p = text;
	j->end = text + len;
	j->line = 1;
}

static void skip_space(struct tl_json *j)
{
	while (j->p < j->end &&
	       (isspace((unsigned char)*j->p) || *j->p == ',' || *j->p == ':')) {
		if (*j->p == '\n')
			j->line++;
		j->p++;
	}
}

static bool word(struct tl_json *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return false;
	j->p += n;
	return true;
}

static enum tl_jtok string(struct tl_json *j, char *buf, size_t len)
{
	size_t n = 0;
	char c;

	j->p++; /* the quote */
	while (j->p < j->end && *j->p != '"') {
		c = *j->p++;
		if ((unsigned char)c < 0x20)
			return TJ_ERR;
		if (c == '\\') {
			if (j->p >= j->end)
				return TJ_ERR;
			c = *j->p++;
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'u': {
				unsigned int u;

				if (j->end - j->p < 4 ||
				    sscanf(j->p, "%4x", &u) != 1 || u >= 0x80)
					return TJ_ERR;
				j->p += 4;
				c = (char)u;
				break;
			}
			case '"':
			case '\\':
			case '/':
				break;
			default:
				return TJ_ERR;
			}
		}
		if (n + 1 >= len)
			return TJ_ERR;
		buf[n++] = c;
	}
	if (j->p >= j->end)
		return TJ_ERR;
	j->p++;
	buf[n] = '\0';
	return TJ_STR;
}

enum tl_jtok tl_json_next(struct tl_json *j, char *buf, size_t len)
{
	size_t n = 0;

	skip_space(j);
	if (j->p >= j->end)
		return TJ_EOF;
	switch (*j->p) {
	case '{':
		j->p++;
		return TJ_OBJ;
	case '}':
		j->p++;
		return TJ_OBJ_END;
	case '[':
		j->p++;
		return TJ_ARR;
	case ']':
		j->p++;
		return TJ_ARR_END;
	case '"':
		return string(j, buf, len);
	default:
		break;
	}
	if (word(j, "true"))
		return TJ_TRUE;
	if (word(j, "false"))
		return TJ_FALSE;
	if (word(j, "null"))
		return TJ_NULL;
	while (j->p < j->end && strchr("+-0123456789.eE", *j->p)) {
		if (n + 1 >= len)
			return TJ_ERR;
		buf[n++] = *j->p++;
	}
	if (!n)
		return TJ_ERR;
	buf[n] = '\0';
	return TJ_NUM;
}

int tl_json_skip(struct tl_json *j, enum tl_jtok tok)
{
	char buf[256];
	int depth = 0;

	for (;;) {
		switch (tok) {
		case TJ_OBJ:
		case TJ_ARR:
			depth++;
			break;
		case TJ_OBJ_END:
		case TJ_ARR_END:
			if (--depth < 0)
				return -EINVAL;
			break;
		case TJ_ERR:
		case TJ_EOF:
			return -EINVAL;
		default:
			break;
		}
		if (!depth)
			return 0;
		tok = tl_json_next(j, buf, sizeof(buf));
	}
}

int tl_json_u64(const char *num, u64 *v)
{
	char *end;

	if (!isdigit((unsigned char)num[0]))
		return -EINVAL;
	errno = 0;
	*v = strtoull(num, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}
