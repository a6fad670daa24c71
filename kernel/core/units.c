// SPDX-License-Identifier: GPL-2.0
/*
 * units.c - size parsing and formatting (pure; shared with userspace).
 */
#include "tier-internal.h"
#include "units.h"

static char to_lower_ascii(char c)
{
	return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/* Returns the power-of-two shift of a suffix, or -1 when it is not one. */
static int suffix_shift(const char *s)
{
	static const char units[] = "kmgtpe";
	char c = to_lower_ascii(s[0]);
	int i;

	if (c == '\0' || (c == 'b' && s[1] == '\0'))
		return 0;
	if (c == 's' && s[1] == '\0')
		return 9;
	for (i = 0; units[i]; i++) {
		if (c != units[i])
			continue;
		if (s[1] == '\0')
			return 10 * (i + 1);
		if (to_lower_ascii(s[1]) == 'i' &&
		    to_lower_ascii(s[2]) == 'b' && s[3] == '\0')
			return 10 * (i + 1);
		return -1;
	}
	return -1;
}

int tier_parse_size(const char *str, u64 *bytes)
{
	u64 value = 0;
	const char *p = str;
	int shift;

	if (!str || *str < '0' || *str > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (check_mul_overflow(value, (u64)10, &value) ||
		    check_add_overflow(value, (u64)(*p - '0'), &value))
			return -ERANGE;
	}
	shift = suffix_shift(p);
	if (shift < 0)
		return -EINVAL;
	if (shift && value > (U64_MAX >> shift))
		return -ERANGE;
	*bytes = value << shift;
	return 0;
}

char *tier_format_size(u64 bytes, char *buf, size_t len)
{
	static const char *const names[] = { "B",   "KiB", "MiB", "GiB",
					     "TiB", "PiB", "EiB" };
	unsigned int unit = 0;
	u64 whole = bytes, tenths = 0;

	while (unit + 1 < ARRAY_SIZE(names) && whole >= 1024) {
		tenths = ((whole % 1024) * 10) / 1024;
		whole /= 1024;
		unit++;
	}
	if (tenths)
		snprintf(buf, len, "%llu.%llu %s", (unsigned long long)whole,
			 (unsigned long long)tenths, names[unit]);
	else
		snprintf(buf, len, "%llu %s", (unsigned long long)whole,
			 names[unit]);
	return buf;
}

int tier_bytes_to_extents(u64 start, u64 len, u32 extent_shift, u64 nr_extents,
			  u64 *first, u64 *last)
{
	u64 size;

	if (!len)
		return -EINVAL;
	if (extent_shift >= 64 || nr_extents > (U64_MAX >> extent_shift))
		return -ERANGE;
	size = nr_extents << extent_shift;
	if (start >= size || len > size - start)
		return -ERANGE;
	*first = start >> extent_shift;
	*last = (start + len - 1) >> extent_shift;
	return 0;
}
