// SPDX-License-Identifier: GPL-2.0
/* libtier: memory tier arguments, NUMA nodes, mem.conf (see tl-mem.h). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>

#include "tl-mem.h"
#include "tl-state.h"
#include "units.h"

#define MEM_RECORD_NAME "mem.conf"
#define MIB (1ULL << 20)

bool tl_numa_is_spec(const char *arg)
{
	return arg && !strncmp(arg, TL_NUMA_PREFIX, strlen(TL_NUMA_PREFIX));
}

/* Plain decimal u32 (digits only, no overflow); 0 or -EINVAL. */
static int parse_dec(const char *s, size_t n, u32 *out)
{
	u64 v = 0;
	size_t i;

	if (!n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (u64)(s[i] - '0');
		if (v > U32_MAX)
			return -EINVAL;
	}
	*out = (u32)v;
	return 0;
}

int tl_numa_parse(const char *arg, u32 *node, u64 *bytes, struct tl_err *err)
{
	const char *p, *colon;
	char max[TL_SIZE_STR_LEN];
	u64 b;
	u32 n;
	int ret;

	if (!tl_numa_is_spec(arg))
		return tl_fail(err, TL_USAGE,
			       "--tier %s: not a memory tier; write numa:NODE:SIZE, e.g. numa:1:16G",
			       arg ? arg : "");
	p = arg + strlen(TL_NUMA_PREFIX);
	colon = strchr(p, ':');
	if (!colon)
		return tl_fail(err, TL_USAGE,
			       "--tier %s: give the size too: numa:NODE:SIZE, e.g. numa:1:16G",
			       arg);
	if (parse_dec(p, colon - p, &n) || n > TL_MEM_NODE_MAX)
		return tl_fail(err, TL_USAGE,
			       "--tier %s: NODE must be a NUMA node number from 0 to %d",
			       arg, TL_MEM_NODE_MAX);
	ret = tier_parse_size(colon + 1, &b);
	if (ret || !b)
		return tl_fail(err, TL_USAGE,
			       "--tier %s: invalid SIZE '%s' (use e.g. 512M or 16G)",
			       arg, colon + 1);
	if (b % MIB)
		return tl_fail(err, TL_USAGE,
			       "--tier %s: SIZE must be a whole number of MiB (e.g. 512M, 16G)",
			       arg);
	if (b / MIB > TL_MEM_SIZE_MB_MAX)
		return tl_fail(err, TL_USAGE, "--tier %s: SIZE is above the %s a memory tier may have",
			       arg, tl_size_str((u64)TL_MEM_SIZE_MB_MAX * MIB, max));
	*node = n;
	*bytes = b;
	return TL_OK;
}

/* See tl-mem.h. */
int tl_numa_take(const char **tier_args, int *nr_tiers,
			 struct tl_mem_cfg *mem, const char **mem_arg,
			 struct tl_err *err)
{
	int i, j;
	u64 bytes;

	memset(mem, 0, sizeof(*mem));
	*mem_arg = NULL;
	for (i = j = 0; i < *nr_tiers; i++) {
		if (!tl_numa_is_spec(tier_args[i])) {
			tier_args[j++] = tier_args[i];
			continue;
		}
		if (i == 0)
			return tl_fail(err, TL_USAGE,
				       "--tier %s: the first tier must be a block device (tier 0 holds the metadata and every extent must live on a durable tier); give the memory tier after the devices",
				       tier_args[i]);
		if (mem->on)
			return tl_fail(err, TL_USAGE,
				       "--tier %s and --tier %s: a device has at most one memory tier",
				       *mem_arg, tier_args[i]);
		if (tl_numa_parse(tier_args[i], &mem->node, &bytes, err))
			return TL_USAGE;
		mem->on = true;
		mem->size_mb = (u32)(bytes >> 20);
		mem->promote_hits = TL_MEM_PROMOTE_HITS_DEF;
		*mem_arg = tier_args[i];
	}
	*nr_tiers = j;
	return TL_OK;
}

int tl_numa_mem_free(const char *sysroot, u32 node, u64 *bytes)
{
	char path[PATH_MAX], line[256];
	unsigned long long kb;
	int ret = -ENODATA;
	unsigned int n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/" TL_NODE_DIR "/node%u/meminfo",
		 sysroot, node);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* "Node 1 MemFree:        16252928 kB" */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %u MemFree: %llu kB", &n, &kb) == 2) {
			*bytes = kb > U64_MAX / 1024 ? U64_MAX : kb * 1024;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* "0-1,3" style list of the node directories present, for messages. */
static void list_nodes(const char *sysroot, char *buf, size_t len)
{
	char path[PATH_MAX];
	struct dirent *de;
	size_t off = 0;
	DIR *d;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/" TL_NODE_DIR, sysroot);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && off < len) {
		u32 n;

		if (strncmp(de->d_name, "node", 4) ||
		    parse_dec(de->d_name + 4, strlen(de->d_name + 4), &n))
			continue;
		off += snprintf(buf + off, len - off, "%s%u", off ? ", " : "",
				n);
	}
	closedir(d);
}

int tl_numa_check(const char *sysroot, u32 node, u64 bytes, u64 extent_bytes,
		  struct tl_err *err)
{
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN], nodes[256], path[PATH_MAX];
	u64 free_bytes;
	int ret;

	snprintf(path, sizeof(path), "%s/" TL_NODE_DIR "/node%u", sysroot, node);
	if (access(path, F_OK)) {
		list_nodes(sysroot, nodes, sizeof(nodes));
		if (nodes[0])
			return tl_fail(err, TL_USAGE,
				       "NUMA node %u does not exist (this machine has node%s %s; 'numactl -H' lists them); give one of them in numa:NODE:SIZE",
				       node, strchr(nodes, ',') ? "s" : "", nodes);
		return tl_fail(err, TL_USAGE,
			       "NUMA node %u does not exist (%s/" TL_NODE_DIR " lists no node: the kernel lacks NUMA support)",
			       node, sysroot);
	}
	if (bytes < extent_bytes)
		return tl_fail(err, TL_USAGE,
			       "a memory tier of %s is smaller than one extent (%s); give a SIZE of at least %s",
			       tl_size_str(bytes, a), tl_size_str(extent_bytes, b),
			       b);
	ret = tl_numa_mem_free(sysroot, node, &free_bytes);
	if (ret)
		return tl_fail(err, TL_FAIL,
			       "cannot read the free memory of NUMA node %u from %s/meminfo: %s",
			       node, path, strerror(-ret));
	if (free_bytes < bytes)
		return tl_fail(err, TL_USAGE,
			       "NUMA node %u has %s free, less than the %s asked for; lower SIZE in numa:%u:SIZE (or free memory on the node)",
			       node, tl_size_str(free_bytes, a),
			       tl_size_str(bytes, b), node);
	return TL_OK;
}

/* ---- the record ---- */

const char *tl_mem_record_path(void)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" MEM_RECORD_NAME, tl_state_dir());
	return path;
}

static int record_opt(const char *word, const char *key, u32 min, u32 max,
		      u32 *out, bool *seen, struct tl_err *err)
{
	size_t n = strlen(key);
	u32 v;

	if (strncmp(word, key, n) || word[n] != '=')
		return 1;
	if (*seen)
		return tl_fail(err, TL_USAGE, "%s given twice", key);
	if (parse_dec(word + n + 1, strlen(word + n + 1), &v) || v < min ||
	    v > max)
		return tl_fail(err, TL_USAGE, "%s: '%s' is not a number from %u to %u",
			       key, word + n + 1, min, max);
	*out = v;
	*seen = true;
	return TL_OK;
}

int tl_mem_record_parse_line(const char *line, char *uuid_hex,
			     struct tl_mem_cfg *cfg, struct tl_err *err)
{
	bool seen_node = false, seen_size = false, seen_hits = false;
	char *copy, *word, *save = NULL;
	u8 uuid[TIER_UUID_LEN];
	int ret = TL_OK;

	memset(cfg, 0, sizeof(*cfg));
	cfg->promote_hits = TL_MEM_PROMOTE_HITS_DEF;
	line += strspn(line, " \t");
	if (!*line || *line == '#' || *line == '\n')
		return 1;
	copy = strdup(line);
	if (!copy)
		return tl_fail(err, TL_FAIL, "out of memory");
	word = strtok_r(copy, " \t\r\n", &save);
	if (!word || tl_uuid_parse_hex(word, uuid)) {
		ret = tl_fail(err, TL_USAGE,
			      "'%s' is not a device uuid (32 hex digits, as 'tierctl list' shows after DMTIER-)",
			      word ? word : "");
		goto out;
	}
	tl_uuid_hex(uuid, uuid_hex);
	while (!ret && (word = strtok_r(NULL, " \t\r\n", &save))) {
		ret = record_opt(word, "node", 0, TL_MEM_NODE_MAX, &cfg->node,
				 &seen_node, err);
		if (ret == 1)
			ret = record_opt(word, "size_mb", 1, TL_MEM_SIZE_MB_MAX,
					 &cfg->size_mb, &seen_size, err);
		if (ret == 1)
			ret = record_opt(word, "promote_hits", 1,
					 TL_MEM_PROMOTE_HITS_MAX,
					 &cfg->promote_hits, &seen_hits, err);
		if (ret == 1)
			ret = tl_fail(err, TL_USAGE,
				      "unexpected '%s'; a line is 'UUID node=N size_mb=M [promote_hits=H]'",
				      word);
	}
	if (!ret && (!seen_node || !seen_size))
		ret = tl_fail(err, TL_USAGE, "node= and size_mb= are both needed");
out:
	free(copy);
	if (ret)
		return TL_USAGE;
	cfg->on = true;
	return TL_OK;
}

int tl_mem_record_format_line(const char *uuid_hex,
			      const struct tl_mem_cfg *cfg, char *buf,
			      size_t len)
{
	if (cfg->promote_hits && cfg->promote_hits != TL_MEM_PROMOTE_HITS_DEF)
		return snprintf(buf, len, "%s node=%u size_mb=%u promote_hits=%u",
				uuid_hex, cfg->node, cfg->size_mb,
				cfg->promote_hits);
	return snprintf(buf, len, "%s node=%u size_mb=%u", uuid_hex, cfg->node,
			cfg->size_mb);
}

int tl_mem_record_get(const char *uuid_hex, struct tl_mem_cfg *cfg,
		      struct tl_err *err)
{
	char **lines, hex[TL_UUID_HEX_LEN + 1];
	struct tl_mem_cfg c;
	size_t nr, i;
	int ret, found = TL_MEM_NO_RECORD;

	ret = tl_state_read_lines(tl_mem_record_path(), &lines, &nr, err);
	if (ret)
		return TL_FAIL;
	for (i = 0; i < nr; i++) {
		if (tl_mem_record_parse_line(lines[i], hex, &c, NULL) ||
		    strcasecmp(hex, uuid_hex))
			continue;
		*cfg = c;	/* the last line wins */
		found = TL_OK;
	}
	tl_state_free_lines(lines, nr);
	return found;
}

#define MEM_RECORD_HEADER \
	"# dm-tier memory tiers, re-created by 'tierctl activate' (see docs/tierctl.md).\n" \
	"# One per line: DEVICE-UUID node=N size_mb=M [promote_hits=H]"

/* A record line of device @arg (a UUID in hex; tl_state_update()'s match). */
static bool mem_line_is_device(const char *line, void *arg)
{
	char hex[TL_UUID_HEX_LEN + 1];
	struct tl_mem_cfg c;

	return !tl_mem_record_parse_line(line, hex, &c, NULL) &&
	       !strcasecmp(hex, arg);
}

int tl_mem_record_set(const char *uuid_hex, const struct tl_mem_cfg *cfg,
		      struct tl_err *err)
{
	char newline[256];
	bool add = cfg && cfg->on;

	if (add)
		tl_mem_record_format_line(uuid_hex, cfg, newline, sizeof(newline));
	return tl_state_update(tl_mem_record_path(), MEM_RECORD_HEADER,
			       add ? newline : NULL, mem_line_is_device,
			       (void *)uuid_hex, err);
}
