// SPDX-License-Identifier: GPL-2.0
/*
 * tierctl probe DEV: whether DEV is a dm-tier member, from its label. With
 * --export, udev's IMPORT{program} format (dist/61-dm-tier.rules), so that
 * lsblk -f and udev-based tools show members (ID_FS_TYPE=dm_tier_member)
 * and the rule can start the boot activation unit.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "tierctl.h"
#include "tl-disk.h"
#include "tl-print.h"

/* udev's "safe" characters (they need no \xNN in an _ENC value). */
static bool udev_safe(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || strchr("#+-.:=@_", c);
}

/* "0123abcd-..." (8-4-4-4-12), the form blkid gives other members. */
static void uuid_dashed(const u8 *uuid, char *out)
{
	char hex[TL_UUID_HEX_LEN + 1];
	int i, o = 0;

	tl_uuid_hex(uuid, hex);
	for (i = 0; i < TL_UUID_HEX_LEN; i++) {
		if (i == 8 || i == 12 || i == 16 || i == 20)
			out[o++] = '-';
		out[o++] = hex[i];
	}
	out[o] = '\0';
}

void probe_export(const struct tier_label *l, FILE *f)
{
	char uuid[TL_UUID_HEX_LEN + 5], sub[TL_UUID_HEX_LEN + 5];
	char name[TIER_NAME_LEN + 1];
	size_t i;

	snprintf(name, sizeof(name), "%.*s", TIER_NAME_LEN, l->name);
	uuid_dashed(l->uuid, uuid);
	uuid_dashed(l->member_uuid, sub);
	fprintf(f, "ID_FS_TYPE=dm_tier_member\n");
	/* "raid" like LVM2_member and linux_raid_member: members share the
	 * device's uuid, so udev makes no /dev/disk/by-uuid link for them. */
	fprintf(f, "ID_FS_USAGE=raid\n");
	fprintf(f, "ID_FS_VERSION=%u\n", TIER_FORMAT_VERSION);
	fprintf(f, "ID_FS_UUID=%s\nID_FS_UUID_ENC=%s\n", uuid, uuid);
	fprintf(f, "ID_FS_UUID_SUB=%s\nID_FS_UUID_SUB_ENC=%s\n", sub, sub);
	fputs("ID_FS_LABEL=", f);
	for (i = 0; name[i]; i++)
		fputc(udev_safe(name[i]) ? name[i] : '_', f);
	fputs("\nID_FS_LABEL_ENC=", f);
	for (i = 0; name[i]; i++) {
		if (udev_safe(name[i]))
			fputc(name[i], f);
		else
			fprintf(f, "\\x%02x", (unsigned char)name[i]);
	}
	fputc('\n', f);
	if (l->tier_index == TIER_META_DEV)
		fprintf(f, "DM_TIER_MEMBER=meta\n");
	else
		fprintf(f, "DM_TIER_MEMBER=%u\n", l->tier_index);
	fprintf(f, "DM_TIER_NR_TIERS=%u\n", l->nr_tiers);
}

/* The label of @path: 0, 1 when none, or the exit code after printing why. */
static int read_member(const char *path, struct tier_label *l)
{
	struct tier_err terr = { 0 };
	char why[128];
	int fd, ret;

	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0 && errno == EINVAL)	/* a file on tmpfs */
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("cannot open %s: %s%s", path, strerror(errno),
			    errno == EACCES ? " (tierctl probe needs read access to the device)" : "");
	ret = tl_read_label(fd, l, &terr);
	close(fd);
	if (ret < 0 && terr.code != TIER_E_NONE) {
		warn("%s: damaged dm-tier label: %s", path,
		     tl_tier_err_text(&terr, ret, why, sizeof(why)));
		return 1;
	}
	if (ret < 0)
		return fail("%s: %s", path,
			    tl_tier_err_text(&terr, ret, why, sizeof(why)));
	return ret;
}

int cmd_probe(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "export", no_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char hex[TL_UUID_HEX_LEN + 1];
	bool json = tierctl_json, export = false;
	struct tier_label l;
	const char *path;
	int c, ret;

	opts_reset();
	while ((c = next_opt("probe", argc, argv, "ej", longopts)) != -1) {
		switch (c) {
		case 'e':
			export = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			return TIERCTL_EXIT_OK;
		default:
			return TIERCTL_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error("probe: which device? (tierctl probe DEV)");
	if (optind + 1 < argc)
		return usage_error("probe: unexpected argument '%s'",
				   argv[optind + 1]);
	if (export && json)
		return usage_error("probe: --export and --json are different outputs; give one");
	path = argv[optind];
	ret = read_member(path, &l);
	if (export) {
		/* udev: a device that is not a member imports nothing. */
		if (!ret)
			probe_export(&l, stdout);
		return ret == 1 ? TIERCTL_EXIT_OK : ret;
	}
	if (ret > 1)
		return ret;
	print_open(json);
	print_obj_begin(NULL);
	print_str("device", "%s: ", path);
	print_bool("member", NULL, !ret);
	if (ret)
		print_text("no dm-tier label\n");
	if (!ret) {
		char name[TIER_NAME_LEN + 1];

		snprintf(name, sizeof(name), "%.*s", TIER_NAME_LEN, l.name);
		tl_uuid_hex(l.uuid, hex);
		print_str("name", "member of dm-tier device '%s'", name);
		print_str("uuid", " (uuid %s), ", hex);
		if (l.tier_index == TIER_META_DEV)
			print_str("role", "%s device", "metadata");
		else
			print_u64("tier", "tier %llu", l.tier_index);
		print_u64("nr_tiers", " of %llu\n", l.nr_tiers);
	}
	print_obj_end();
	print_close();
	return ret ? TIERCTL_EXIT_FAIL : TIERCTL_EXIT_OK;
}
