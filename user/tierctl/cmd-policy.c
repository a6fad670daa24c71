// SPDX-License-Identifier: GPL-2.0
/* tierctl policy: show or change a device's migration settings (netlink). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/dm-tier.h>

#include "tl-print.h"
#include "tierctl.h"
#include "tl-mem.h"
#include "tl-dm.h"

static void valid_keys(char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < TL_NL_POLICY_N && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				tl_nl_policy_keys[i]);
}

static int parse_value(const char *key, const char *s, u32 *v)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || x > U32_MAX)
		return usage_error("policy: %s: invalid value '%s' (a whole number)",
				   key, s);
	*v = (u32)x;
	return TIERCTL_EXIT_OK;
}

/* The settings in @show (a bit mask), from @pol, through one print path. */
static void print_policy(const char *name, const struct tl_nl_policy *pol,
			 u32 show, bool json)
{
	char fmt[64];
	int i;

	print_open(json);
	print_obj_begin(NULL);
	print_str("name", NULL, name);
	for (i = 0; i < TL_NL_POLICY_N; i++) {
		if (!(show & (1U << i)))
			continue;
		if (!(pol->set & (1U << i))) {
			snprintf(fmt, sizeof(fmt), "%s=-\n", tl_nl_policy_keys[i]);
			print_null(tl_nl_policy_keys[i], fmt);
			continue;
		}
		snprintf(fmt, sizeof(fmt), "%s=%%llu\n", tl_nl_policy_keys[i]);
		print_u64(tl_nl_policy_keys[i], fmt, pol->v[i]);
	}
	print_obj_end();
	print_close();
}

#define MEM_KEYS (1U << (DM_TIER_A_POLICY_MEM_PROMOTE_HITS - 1) | \
		  1U << (DM_TIER_A_POLICY_MEM_SIZE_MB - 1))

/*
 * A changed memory tier setting goes to mem.conf too, so that 'tierctl
 * activate' re-creates the memory tier as it is now. Only warns: the
 * change itself is done.
 */
static void record_mem(struct tl_nl *nl, const char *name,
		       const struct tl_nl_policy *got)
{
	const int hits = DM_TIER_A_POLICY_MEM_PROMOTE_HITS - 1,
		  size = DM_TIER_A_POLICY_MEM_SIZE_MB - 1;
	char hex[TL_UUID_HEX_LEN + 1];
	struct tl_err err = { "" };
	struct tl_mem_cfg mem;
	struct tl_nl_dev *dev = calloc(1, sizeof(*dev));
	size_t i, n = 0;

	if (!dev)
		return;
	if (tl_nl_dev_get(nl, name, dev, &err) || !dev->mem.present)
		goto out;
	for (i = 0; dev->uuid[i] && n < TL_UUID_HEX_LEN; i++)
		if (dev->uuid[i] != '-')
			hex[n++] = dev->uuid[i];
	hex[n] = '\0';
	if (n != TL_UUID_HEX_LEN)
		goto out;
	if (tl_mem_record_get(hex, &mem, &err)) {
		memset(&mem, 0, sizeof(mem));
		mem.on = true;
		mem.node = dev->mem.node;
	}
	if (got->set & (1U << size) && got->v[size])
		mem.size_mb = got->v[size];
	if (got->set & (1U << hits) && got->v[hits])
		mem.promote_hits = got->v[hits];
	if (!mem.size_mb)
		goto out;
	if (tl_mem_record_set(hex, &mem, &err))
		warn("%s; 'tierctl activate' will re-create the memory tier with its former settings",
		     err.msg);
out:
	free(dev);
}

int cmd_policy(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "reset", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_nl_policy want = { 0 }, got = { 0 };
	struct tl_err err = { "" };
	u32 show = 0;
	struct tl_nl *nl;
	const char *name;
	bool json = tierctl_json, reset = false;
	int c, i, rc;

	opts_reset();
	while ((c = next_opt("policy", argc, argv, "j", longopts)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'R':
			reset = true;
			break;
		case 'h':
			return TIERCTL_EXIT_OK;
		default:
			return TIERCTL_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error("policy: no device NAME given");
	name = argv[optind++];
	for (i = optind; i < argc; i++) {
		char key[64], keys[512];
		const char *eq = strchr(argv[i], '=');
		size_t klen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		int k = -1;

		if (klen < sizeof(key)) {
			memcpy(key, argv[i], klen);
			key[klen] = '\0';
			k = tl_nl_policy_key(key);
		}
		if (k < 0) {
			valid_keys(keys, sizeof(keys));
			return usage_error("policy: unknown key '%.*s'; valid keys: %s",
					   (int)klen, argv[i], keys);
		}
		show |= 1U << k;
		if (eq) {
			if (parse_value(key, eq + 1, &want.v[k]))
				return TIERCTL_EXIT_USAGE;
			want.set |= 1U << k;
		}
	}
	if (reset && want.set)
		return usage_error("policy: --reset takes no KEY=VALUE (reset first, then set)");
	if (!show)
		show = (1U << TL_NL_POLICY_N) - 1;

	/*
	 * Forget every persisted change: each setting back to its table line
	 * value or default, the superblock's record cleared at the next commit.
	 */
	if (reset && tl_dm_message(name, "reset-settings", &err))
		return report(TIERCTL_EXIT_FAIL, &err);

	rc = nl_open(&nl);
	if (rc)
		return rc;
	/* One request for all the changes: the kernel applies all or none. */
	if (want.set)
		rc = tl_nl_policy_set(nl, name, &want, &got, &err);
	else
		rc = tl_nl_policy_get(nl, name, &got, &err);
	if (!rc && (want.set & MEM_KEYS))
		record_mem(nl, name, &got);
	tl_nl_close(nl);
	if (rc)
		return report(rc, &err);
	print_policy(name, &got, show, json);
	return TIERCTL_EXIT_OK;
}
