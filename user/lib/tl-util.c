// SPDX-License-Identifier: GPL-2.0
/* libtier: errors, UUIDs, tier classes, command-line values (see tl.h). */
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>
#include <sys/random.h>

#include "tl.h"
#include "tl-mem.h"
#include "units.h"

int tl_fail(struct tl_err *err, int rc, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return rc;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return rc;
}

void tl_err_append(struct tl_err *err, const char *fmt, ...)
{
	size_t len;
	va_list ap;

	if (!err)
		return;
	len = strnlen(err->msg, sizeof(err->msg));
	if (len + 2 >= sizeof(err->msg))
		return;
	if (len)
		err->msg[len++] = '\n';
	va_start(ap, fmt);
	vsnprintf(err->msg + len, sizeof(err->msg) - len, fmt, ap);
	va_end(ap);
}

void tl_uuid_hex(const u8 *uuid, char *out)
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < TIER_UUID_LEN; i++) {
		out[2 * i] = hex[uuid[i] >> 4];
		out[2 * i + 1] = hex[uuid[i] & 15];
	}
	out[TL_UUID_HEX_LEN] = '\0';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int tl_uuid_parse_hex(const char *s, u8 *uuid)
{
	u8 out[TIER_UUID_LEN];
	int i, hi, lo;

	if (!s || strlen(s) != TL_UUID_HEX_LEN)
		return -EINVAL;
	for (i = 0; i < TIER_UUID_LEN; i++) {
		hi = hexval(s[2 * i]);
		lo = hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = hi << 4 | lo;
	}
	memcpy(uuid, out, sizeof(out));
	return 0;
}

void tl_dm_uuid(const u8 *uuid, char *out)
{
	memcpy(out, TL_DM_UUID_PREFIX, sizeof(TL_DM_UUID_PREFIX) - 1);
	tl_uuid_hex(uuid, out + sizeof(TL_DM_UUID_PREFIX) - 1);
}

bool tl_is_tier_dm_uuid(const char *dm_uuid)
{
	return dm_uuid && !strncmp(dm_uuid, TL_DM_UUID_PREFIX,
				   sizeof(TL_DM_UUID_PREFIX) - 1);
}

int tl_uuid_random(u8 *uuid)
{
	ssize_t n;

	do {
		n = getrandom(uuid, TIER_UUID_LEN, 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != TIER_UUID_LEN)
		return -EIO;
	uuid[6] = (uuid[6] & 0x0f) | 0x40;	/* version 4 */
	uuid[8] = (uuid[8] & 0x3f) | 0x80;	/* RFC 4122 variant */
	return 0;
}

static const char *const class_names[] = {
	[TIER_CLASS_UNKNOWN] = "unknown", [TIER_CLASS_NVME] = "nvme",
	[TIER_CLASS_NVMF] = "nvmf",	  [TIER_CLASS_PMEM] = "pmem",
	[TIER_CLASS_MEM] = "mem",	  [TIER_CLASS_META] = "meta",
};

const char *tl_class_name(u32 tier_class)
{
	if (tier_class < ARRAY_SIZE(class_names) && class_names[tier_class])
		return class_names[tier_class];
	return "?";
}

int tl_class_parse(const char *s, u32 *tier_class)
{
	static const u32 allowed[] = { TIER_CLASS_NVME, TIER_CLASS_NVMF,
				       TIER_CLASS_PMEM };
	size_t i;

	if (!s)
		return -EINVAL;
	if (!strcasecmp(s, "auto")) {
		*tier_class = TL_CLASS_AUTO;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(allowed); i++) {
		if (!strcasecmp(s, class_names[allowed[i]])) {
			*tier_class = allowed[i];
			return 0;
		}
	}
	return -EINVAL;
}

const char *tl_size_str(u64 bytes, char *buf)
{
	return tier_format_size(bytes, buf, TL_SIZE_STR_LEN);
}

int tl_parse_extent_size(const char *s, u32 *shift, struct tl_err *err)
{
	u64 bytes;
	int ret = tier_parse_size(s, &bytes);

	if (ret)
		return tl_fail(err, TL_USAGE,
			       "invalid extent size '%s' (use e.g. 1M or 4MiB)",
			       s);
	if (!is_power_of_2(bytes) ||
	    bytes < (1ULL << (TIER_EXTENT_SHIFT_MIN + TIER_SECTOR_SHIFT)) ||
	    bytes > (1ULL << (TIER_EXTENT_SHIFT_MAX + TIER_SECTOR_SHIFT)))
		return tl_fail(err, TL_USAGE,
			       "extent size '%s' must be a power of two from 64K to 64M",
			       s);
	*shift = ilog2(bytes) - TIER_SECTOR_SHIFT;
	return TL_OK;
}

int tl_parse_virt_size(const char *s, u32 extent_shift, u64 *sectors,
		       struct tl_err *err)
{
	u64 bytes, extent = 1ULL << (extent_shift + TIER_SECTOR_SHIFT);
	char ebuf[TL_SIZE_STR_LEN];
	int ret = tier_parse_size(s, &bytes);

	if (ret == -ERANGE)
		return tl_fail(err, TL_USAGE, "size '%s' is too large", s);
	if (ret)
		return tl_fail(err, TL_USAGE,
			       "invalid size '%s' (use e.g. 100G or 1TiB)", s);
	if (!bytes)
		return tl_fail(err, TL_USAGE, "size must not be zero");
	if (bytes & (extent - 1))
		return tl_fail(err, TL_USAGE,
			       "size '%s' is not a multiple of the extent size (%s)",
			       s, tl_size_str(extent, ebuf));
	*sectors = bytes >> TIER_SECTOR_SHIFT;
	return TL_OK;
}

int tl_check_tier_arg(const char *arg, struct tl_err *err)
{
	u32 node;
	u64 bytes;

	if (tl_numa_is_spec(arg))
		return tl_numa_parse(arg, &node, &bytes, err);
	if (!*arg)
		return tl_fail(err, TL_USAGE, "--tier needs a block device");
	return TL_OK;
}
