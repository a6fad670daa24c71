/* SPDX-License-Identifier: GPL-2.0 */
/*
 * units.h - size parsing and formatting shared by the table parser and tierctl.
 */
#ifndef DM_TIER_CORE_UNITS_H
#define DM_TIER_CORE_UNITS_H

#include "tier-internal.h"

/**
 * tier_parse_size() - parse a size such as "4096", "64K", "1MiB", "2g", "8s".
 * @str:   NUL-terminated string; no leading or trailing blanks allowed.
 * @bytes: out; set only on success.
 *
 * Suffixes (case-insensitive, binary multiples): none or B = bytes,
 * S = 512-byte sectors, K/KiB, M/MiB, G/GiB, T/TiB, P/PiB, E/EiB. Decimal
 * spellings such as "KB" or "MB" are rejected rather than guessed.
 *
 * Context: any; pure.
 * Return: 0, -EINVAL on malformed input, -ERANGE when it overflows 64 bits.
 */
int tier_parse_size(const char *str, u64 *bytes);

/**
 * tier_format_size() - human-readable size: the largest binary unit that
 * keeps one decimal, e.g. "1 MiB", "1.5 GiB", "512 B".
 * @bytes: value to format.
 * @buf:   output buffer.
 * @len:   its size; 16 bytes always suffice.
 *
 * Context: any; pure.
 * Return: @buf, always NUL-terminated.
 */
char *tier_format_size(u64 bytes, char *buf, size_t len);

/**
 * tier_bytes_to_extents() - the extents a byte range touches (rounded out
 * to whole extents).
 * @start:        first byte.
 * @len:          bytes, not 0.
 * @extent_shift: log2(extent size in bytes).
 * @nr_extents:   extents of the device.
 * @first:        out; first extent, set only on success.
 * @last:         out; last extent (inclusive), set only on success.
 *
 * Context: any; pure.
 * Return: 0, -EINVAL when @len is 0, -ERANGE when the range does not lie
 * within the device.
 */
int tier_bytes_to_extents(u64 start, u64 len, u32 extent_shift, u64 nr_extents,
			  u64 *first, u64 *last);

#endif /* DM_TIER_CORE_UNITS_H */
