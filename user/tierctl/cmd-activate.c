// SPDX-License-Identifier: GPL-2.0
/* tierctl activate: assemble dm-tier devices from the labels on disks. */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tierctl.h"
#include "tl-print.h"
#include "tl-disk.h"
#include "tl-dm.h"
#include "tl-group.h"
#include "tl-mem.h"
#include "tl-nvmf-record.h"
#include "tl-status.h"
#include "tl-sysfs.h"

int tierctl_scan_labels(struct tl_groups *gs, size_t *nr_scanned, bool quiet,
			struct tl_err *err)
{
	struct tl_blockdev *bd;
	size_t n, i;
	int ret, fd, denied = 0;
	char denied_path[TL_PATH_LEN] = "";

	ret = tl_sysfs_scan(TL_SYSROOT, &bd, &n);
	if (ret)
		return tl_fail(err, TL_FAIL,
			       "cannot list block devices in %s/class/block: %s",
			       TL_SYSROOT, strerror(-ret));
	for (i = 0; i < n; i++) {
		struct tl_member m;
		struct tier_err terr;
		char why[128];

		fd = open(bd[i].path, O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (fd < 0) {
			/* Gone, no medium...: not ours to report. */
			if (errno == EACCES || errno == EPERM) {
				if (!denied++)
					snprintf(denied_path, sizeof(denied_path),
						 "%s", bd[i].path);
			}
			continue;
		}
		memset(&m, 0, sizeof(m));
		ret = tl_read_label(fd, &m.label, &terr);
		close(fd);
		if (ret == 1 || (ret < 0 && terr.code == TIER_E_NONE))
			continue;
		if (ret < 0) {
			if (!quiet)
				warn("%s: skipped: %s", bd[i].path,
				     tl_tier_err_text(&terr, ret, why,
						      sizeof(why)));
			continue;
		}
		snprintf(m.path, sizeof(m.path), "%s", bd[i].path);
		m.maj = bd[i].maj;
		m.min = bd[i].min;
		if (tl_groups_add(gs, &m)) {
			free(bd);
			return tl_fail(err, TL_FAIL, "out of memory");
		}
	}
	free(bd);
	*nr_scanned = n;
	if (denied && !gs->nr_members)
		return tl_fail(err, TL_FAIL,
			       "permission denied opening %s%s%.0d%s; tierctl needs root (CAP_SYS_ADMIN) to read labels",
			       denied_path, denied > 1 ? " and " : "",
			       denied > 1 ? denied - 1 : 0,
			       denied > 1 ? " other devices" : "");
	return TL_OK;
}

/*
 * The superblock, from the metadata holder the labels name: of the labels
 * with a metadata area (two after a crash in a tier 0 replacement), the
 * valid superblock of the highest generation (tl_meta_pick()).
 */
static int read_group_sb(const struct tl_groups *gs, const struct tl_group *g,
			 struct tier_sb *sb, struct tl_err *err)
{
	struct tier_sb sbs[TIER_MAX_DEVS];
	int mi[TIER_MAX_DEVS], ret[TIER_MAX_DEVS], pick;
	struct tier_err terr[TIER_MAX_DEVS];
	const struct tl_member *mm;
	sector_t start;
	char why[128];
	u32 n, i;
	int fd;

	n = tl_group_meta_candidates(gs, g, mi, TIER_MAX_DEVS);
	if (!n)
		return tl_fail(err, TL_FAIL, "device '%s': metadata device not found",
			       g->name);
	for (i = 0; i < n; i++) {
		mm = &gs->member[mi[i]];
		memset(&terr[i], 0, sizeof(terr[i]));
		fd = open(mm->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (fd < 0) {
			ret[i] = -errno;
			continue;
		}
		tier_label_meta_area(&mm->label, &start, NULL);
		ret[i] = tl_read_sb(fd, start, &sbs[i], &terr[i]);
		close(fd);
	}
	pick = tl_meta_pick(sbs, ret, n);
	if (pick < 0) {
		mm = &gs->member[mi[0]];
		return tl_fail(err, TL_FAIL,
			       "device '%s': cannot use the superblock on %s: %s",
			       g->name, mm->path,
			       tl_tier_err_text(&terr[0], ret[0], why,
						sizeof(why)));
	}
	*sb = sbs[pick];
	return TL_OK;
}

/* Every member checked against the superblock (after tl_group_apply_sb()). */
static int check_group_sb(const struct tl_groups *gs, const struct tl_group *g,
			  const struct tier_sb *sb, struct tl_err *err)
{
	struct tier_err terr;
	u32 i, idx;

	for (i = 0; i < g->nr_stale; i++) {
		const struct tl_member *m = &gs->member[g->stale[i]];

		warn("device %s carries a label of tier %u of %s that the superblock does not list (an interrupted add-tier or remove-tier?); it is not used: run the command again, or wipe the label with 'tierctl remove-tier %s %u'",
		     m->path, m->label.tier_index, g->name, g->name,
		     sb->nr_tiers);
	}
	for (i = 0; i < g->nr_tiers + (g->meta_ext ? 1 : 0); i++) {
		const struct tl_member *m;

		idx = i < g->nr_tiers ? i : TIER_META_DEV;
		m = &gs->member[g->slot[idx]];
		memset(&terr, 0, sizeof(terr));
		if (tier_label_check_sb(&m->label, sb, idx, &terr))
			return tl_fail(err, TL_FAIL,
				       "device '%s': %s does not match the superblock: %s",
				       g->name, m->path,
				       tier_err_str(terr.code));
	}
	return TL_OK;
}

/*
 * The memory tier `tierctl create` recorded for @g (mem.conf, by uuid),
 * added to @params when its NUMA node can still supply it; otherwise a
 * warning, and the device is activated without it (it holds only copies).
 */
static void add_mem_tier(const struct tl_group *g, char *params, size_t len,
			 struct tl_mem_cfg *mem)
{
	char hex[TL_UUID_HEX_LEN + 1];
	struct tl_err err = { "" };
	int rc;

	tl_uuid_hex(g->uuid, hex);
	rc = tl_mem_record_get(hex, mem, &err);
	if (rc) {
		if (rc == TL_FAIL)
			warn("%s: %s; activating without a memory tier", g->name,
			     err.msg);
		mem->on = false;
		return;
	}
	rc = tl_numa_check(TL_SYSROOT, mem->node, (u64)mem->size_mb << 20,
			   1ULL << (g->extent_shift + TIER_SECTOR_SHIFT), &err);
	if (!rc)
		rc = tl_table_add_mem(params, len, g->nr_tiers, mem, &err);
	if (rc) {
		warn("%s: memory tier of %u MiB on NUMA node %u not re-created: %s; activating without it (the data is all on the durable tiers; fix %s to change it)",
		     g->name, mem->size_mb, mem->node, err.msg,
		     tl_mem_record_path());
		mem->on = false;
	}
}

static int activate_group(const struct tl_groups *gs, struct tl_group *g,
			  bool read_only)
{
	char dm_uuid[TL_DM_UUID_LEN + 1], params[4096], size[TL_SIZE_STR_LEN];
	char base[sizeof(params)];
	struct tl_mem_cfg mem;
	struct tl_err err = { "" };
	struct tl_dm_dev d;
	struct tier_sb sb;
	u64 sectors;
	int ret, mi;

	tl_dm_uuid(g->uuid, dm_uuid);
	ret = tl_dm_query(NULL, dm_uuid, false, &d, &err);
	if (!ret && d.read_only != read_only) {
		/* The kernel would refuse it too: one mode at a time. */
		ret = fail("cannot activate '%s' %s: it is active %s as /dev/mapper/%s; 'tierctl remove %s' first",
			   g->name, read_only ? "read-only" : "read-write",
			   d.read_only ? "read-only" : "read-write", d.name,
			   d.name);
		tl_dm_dev_free(&d);
		return ret;
	}
	if (!ret) {
		print_obj_begin(NULL);
		print_str("name", "%s: ", g->name);
		print_str("state", NULL, "already-active");
		print_bool("read_only", NULL, d.read_only);
		print_text("already active%s as ", d.read_only ? " read-only" : "");
		print_str("dm_name", "/dev/mapper/%s\n", d.name);
		print_obj_end();
		tl_dm_dev_free(&d);
		return TIERCTL_EXIT_OK;
	}
	/* Without device-mapper, still check what is on disk: the create
	 * below then says what is missing. */
	if (ret != -ENXIO && tl_dm_available())
		return report(TIERCTL_EXIT_FAIL, &err);
	/* The superblock, from the metadata holder the labels name. */
	if (!tl_group_meta_candidates(gs, g, &mi, 1) &&
	    tl_group_check(gs, g, &err))
		return report(TIERCTL_EXIT_FAIL, &err);
	if (read_group_sb(gs, g, &sb, &err))
		return report(TIERCTL_EXIT_FAIL, &err);
	tl_group_apply_sb(gs, g, &sb);
	if (tl_group_check(gs, g, &err) || check_group_sb(gs, g, &sb, &err))
		return report(TIERCTL_EXIT_FAIL, &err);
	if (!tl_dm_query(g->name, NULL, false, &d, NULL)) {
		ret = fail("cannot activate '%s': another device-mapper device (uuid '%s') already has that name",
			   g->name, d.uuid);
		tl_dm_dev_free(&d);
		return ret;
	}
	if (tl_group_table(gs, g, sb.virt_extents, params, sizeof(params),
			   &sectors, &err))
		return report(TIERCTL_EXIT_FAIL, &err);
	memcpy(base, params, sizeof(base));
	add_mem_tier(g, params, sizeof(params), &mem);
	if (tl_dm_create_mode(g->name, dm_uuid, sectors, TL_DM_TARGET, params,
			      read_only, &err)) {
		if (!mem.on)
			return report(TIERCTL_EXIT_FAIL, &err);
		/* A module without the memory tier refuses its keys: the
		 * device itself does not need it. */
		warn("%s: the table with the memory tier was refused (%s); activating without it (the data is all on the durable tiers)",
		     g->name, err.msg);
		mem.on = false;
		err.msg[0] = '\0';
		if (tl_dm_create_mode(g->name, dm_uuid, sectors, TL_DM_TARGET,
				      base, read_only, &err))
			return report(TIERCTL_EXIT_FAIL, &err);
	}
	print_obj_begin(NULL);
	print_str("name", "activated /dev/mapper/%s", g->name);
	print_str("state", NULL, "activated");
	print_str("dm_name", NULL, g->name);
	print_bool("read_only", NULL, read_only);
	print_text("%s: ", read_only ? " read-only" : "");
	print_u64_text("size_bytes", "%s, ", sectors << TIER_SECTOR_SHIFT,
		       tl_size_str(sectors << TIER_SECTOR_SHIFT, size));
	print_u64("nr_tiers", "%llu tier", g->nr_tiers);
	print_text("%s", g->nr_tiers == 1 ? "" : "s");
	if (mem.on) {
		print_obj_begin("mem");
		print_u64_text("size_bytes", " + a memory tier of %s",
			       (u64)mem.size_mb << 20,
			       tl_size_str((u64)mem.size_mb << 20, size));
		print_u64("node", " on NUMA node %llu", mem.node);
		print_obj_end();
	} else {
		print_null("mem", NULL);
	}
	print_text("\n");
	print_obj_end();
	return TIERCTL_EXIT_OK;
}

/*
 * Reconnect the NVMe-oF targets `tierctl create` recorded, so that their
 * namespaces (and labels) are there for the scan. One that fails is only a
 * warning: the devices that do not need it still activate, and one that
 * does fails with the missing member named.
 */
static void connect_recorded_remote_tiers(void)
{
	struct tl_err err = { "" };
	char *line, *next;

	if (!tl_nvmf_connect_recorded(&err))
		return;
	for (line = err.msg; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		warn("%s", line);
	}
}

int activate_parse(int argc, char **argv, struct activate_opts *o)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "readonly", no_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->json = tierctl_json;
	opts_reset();
	while ((c = next_opt("activate", argc, argv, "arj", longopts)) != -1) {
		switch (c) {
		case 'a':
			o->all = true;
			break;
		case 'r':
			o->read_only = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			o->help = true;
			return TIERCTL_EXIT_OK;
		default:
			return TIERCTL_EXIT_USAGE;
		}
	}
	if (optind < argc)
		o->name = argv[optind];
	if (optind + 1 < argc)
		return usage_error("activate: unexpected argument '%s'",
				   argv[optind + 1]);
	if (o->name && o->all)
		return usage_error("activate: give a NAME or --all, not both");
	return TIERCTL_EXIT_OK;
}

int activate_pick(const struct tl_groups *gs, const char *name,
		  size_t scanned, bool *go, struct tl_err *err)
{
	struct tl_err why = { "" };
	int rc = TIERCTL_EXIT_OK, idx;
	size_t i, j;

	for (i = 0; i < gs->nr_groups; i++)
		go[i] = false;
	if (name) {
		idx = tl_groups_find_name(gs, name);
		if (idx == -1)
			return tl_fail(err, TIERCTL_EXIT_FAIL,
				       "no dm-tier device named '%s' found on %zu block device%s; check that its devices are connected",
				       name, scanned, scanned == 1 ? "" : "s");
		if (idx == -2) {
			tl_groups_name_shared(gs, name, err);
			return TIERCTL_EXIT_FAIL;
		}
		go[idx] = true;
		return TIERCTL_EXIT_OK;
	}
	/*
	 * Which of two devices of one name would be /dev/mapper/NAME depends
	 * on the order of the scan (kernel names): neither, said once.
	 */
	for (i = 0; i < gs->nr_groups; i++) {
		const char *gname = gs->group[i].name;

		if (tl_groups_find_name(gs, gname) != -2) {
			go[i] = true;
			continue;
		}
		for (j = 0; j < i; j++)
			if (!strncmp(gs->group[j].name, gname, TIER_NAME_LEN))
				break;
		if (j < i)
			continue;
		why.msg[0] = '\0';
		tl_groups_name_shared(gs, gname, &why);
		if (rc == TIERCTL_EXIT_OK)
			err->msg[0] = '\0';
		tl_err_append(err, "%s", why.msg);
		rc = TIERCTL_EXIT_FAIL;
	}
	return rc;
}

int cmd_activate(int argc, char **argv)
{
	struct tl_err err = { "" };
	struct activate_opts o;
	struct tl_groups gs;
	bool *go = NULL;
	size_t i, scanned = 0;
	int rc;

	rc = activate_parse(argc, argv, &o);
	if (rc || o.help)
		return rc;
	connect_recorded_remote_tiers();
	tl_groups_init(&gs);
	rc = tierctl_scan_labels(&gs, &scanned, false, &err);
	if (rc) {
		rc = report(rc, &err);
		goto out;
	}
	go = calloc(gs.nr_groups + 1, sizeof(*go));
	if (!go) {
		rc = fail("out of memory");
		goto out;
	}
	/* JSON: {"devices": [{name, state, dm_name, read_only, ...}],
	 * "scanned": N}; a device that fails is reported on stderr (exit 1)
	 * and not listed. */
	print_open(o.json);
	print_obj_begin(NULL);
	print_arr_begin("devices", NULL);
	rc = activate_pick(&gs, o.name, scanned, go, &err);
	if (rc)
		report(rc, &err);
	for (i = 0; i < gs.nr_groups; i++) {
		if (go[i] && activate_group(&gs, &gs.group[i], o.read_only))
			rc = TIERCTL_EXIT_FAIL;
	}
	if (!o.name && !gs.nr_groups)
		print_text("no dm-tier devices found on %zu block device%s\n",
			   scanned, scanned == 1 ? "" : "s");
	print_arr_end();
	print_u64("scanned", NULL, scanned);
	print_obj_end();
	print_close();
out:
	free(go);
	tl_groups_free(&gs);
	return rc;
}
