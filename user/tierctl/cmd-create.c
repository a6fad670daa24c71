// SPDX-License-Identifier: GPL-2.0
/* tierctl create: format devices as a new dm-tier device and activate it,
 * in the stages of cmd-create.h; cmd_create() at the end runs them. */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cmd-create.h"
#include "tierctl.h"
#include "tl-create.h"
#include "tl-disk.h"
#include "tl-dm.h"
#include "tl-group.h"
#include "tl-mem.h"
#include "tl-nvmf-connect.h"
#include "tl-print.h"
#include "tl-progress.h"
#include "tl-status.h"
#include "tl-sysfs.h"

#ifndef BLKGETSIZE64
#define BLKGETSIZE64 _IOR(0x12, 114, size_t)
#endif
#ifndef BLKSSZGET
#define BLKSSZGET _IO(0x12, 104)
#endif

/* stat() the argument: a block device? Fills dev->maj/min and path. */
static int stat_member(struct create_member *m, struct tl_err *err)
{
	struct stat st;

	if (stat(m->arg, &st)) {
		if (errno == ENOENT || errno == ENOTDIR)
			return tl_fail(err, TL_USAGE,
				       "%s: no such device; give a block device such as /dev/nvme0n1",
				       m->arg);
		return tl_fail(err, TL_USAGE, "%s: %s", m->arg,
			       strerror(errno));
	}
	if (!S_ISBLK(st.st_mode))
		return tl_fail(err, TL_USAGE,
			       "%s is not a block device; give a disk or partition such as /dev/nvme0n1",
			       m->arg);
	m->dev->maj = major(st.st_rdev);
	m->dev->min = minor(st.st_rdev);
	if (tl_sysfs_devname(TL_SYSROOT, m->dev->maj, m->dev->min,
			     m->dev->path, sizeof(m->dev->path))) {
		char real[PATH_MAX];
		const char *src = realpath(m->arg, real) ? real : m->arg;

		if (strlen(src) >= sizeof(m->dev->path))
			return tl_fail(err, TL_USAGE, "%s: path too long",
				       m->arg);
		strcpy(m->dev->path, src);
	}
	return TL_OK;
}

/* Open exclusively, size it, look for what is on it. */
static int open_member(struct create_member *m, bool is_meta, struct tl_err *err)
{
	struct tier_label l;
	struct tier_err terr;
	char busy[512], tmp[256];
	u64 bytes;
	int ssz = 0, ret, fd;

	m->excl_fd = open(m->dev->path, O_RDWR | O_EXCL | O_CLOEXEC);
	if (m->excl_fd < 0) {
		if (errno == EBUSY) {
			if (tl_sysfs_busy_reason(TL_SYSROOT, TL_MOUNTINFO,
						 m->dev->maj, m->dev->min,
						 busy, sizeof(busy)))
				return tl_fail(err, TL_FAIL,
					       "%s is in use: %s; unmount or deactivate it first",
					       m->arg, busy);
			return tl_fail(err, TL_FAIL,
				       "%s is in use (opened exclusively by another program or device); stop that user first",
				       m->arg);
		}
		if (errno == EACCES || errno == EPERM)
			return tl_fail(err, TL_FAIL,
				       "%s: permission denied; run tierctl as root",
				       m->arg);
		return tl_fail(err, TL_FAIL, "cannot open %s: %s", m->arg,
			       strerror(errno));
	}
	if (ioctl(m->excl_fd, BLKGETSIZE64, &bytes))
		return tl_fail(err, TL_FAIL, "cannot get the size of %s: %s",
			       m->arg, strerror(errno));
	if (!ioctl(m->excl_fd, BLKSSZGET, &ssz) && ssz > TIER_BLOCK_SIZE)
		return tl_fail(err, TL_USAGE,
			       "%s has %d-byte logical blocks; dm-tier needs %d or less",
			       m->arg, ssz, TIER_BLOCK_SIZE);
	m->dev->sectors = bytes >> TIER_SECTOR_SHIFT;

	/* Ours: a label of this or any other dm-tier device. */
	fd = open(m->dev->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return tl_fail(err, TL_FAIL, "cannot open %s: %s", m->arg,
			       strerror(errno));
	ret = tl_read_label(fd, &l, &terr);
	close(fd);
	if (ret == 0) {
		char hex[TL_UUID_HEX_LEN + 1];

		tl_uuid_hex(l.uuid, hex);
		if (l.tier_index == TIER_META_DEV)
			snprintf(m->found, sizeof(m->found),
				 "a dm-tier label (metadata device of '%s', uuid %s)",
				 l.name, hex);
		else
			snprintf(m->found, sizeof(m->found),
				 "a dm-tier label (tier %u of %u of '%s', uuid %s)",
				 l.tier_index, l.nr_tiers, l.name, hex);
	} else if (ret < 0 && terr.code != TIER_E_NONE) {
		snprintf(m->found, sizeof(m->found),
			 "a damaged dm-tier label (%s)",
			 tier_err_str(terr.code));
	} else if (ret < 0) {
		return tl_fail(err, TL_FAIL, "cannot read %s: %s", m->arg,
			       strerror(-ret));
	}

	/* Theirs: filesystems, partition tables, RAID/LVM, crypto... */
	ret = probe_foreign(m->excl_fd, tmp, sizeof(tmp));
	if (ret < 0)
		return tl_fail(err, TL_FAIL, "cannot probe %s for signatures",
			       m->arg);
	if (ret > 0) {
		size_t pos = strlen(m->found);

		snprintf(m->found + pos, sizeof(m->found) - pos, "%s%s",
			 pos ? ", " : "", tmp);
	}

	if (!is_meta && m->dev->tier_class == TL_CLASS_AUTO)
		m->dev->tier_class = tl_sysfs_detect_class(
			TL_SYSROOT, m->dev->maj, m->dev->min);
	return TL_OK;
}

static void close_members(struct create_member *m, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (m[i].io_fd >= 0)
			close(m[i].io_fd);
		if (m[i].excl_fd >= 0)
			close(m[i].excl_fd);
		m[i].io_fd = m[i].excl_fd = -1;
	}
}

/*
 * Text as before; JSON: name, size_bytes, extent_bytes, uuid, tiers [{index,
 * device, class, capacity_bytes, uri (nvmf:// or null)}], mem ({node,
 * size_bytes} or null), metadata_dev (or null).
 */
static void print_created(bool json, const char *name,
			  const struct tier_fresh *f,
			  const struct create_member *m,
			  const struct tierctl_remote *rt,
			  const struct tl_mem_cfg *mem)
{
	char a[TL_SIZE_STR_LEN], b[TL_SIZE_STR_LEN];
	char hex[TL_UUID_HEX_LEN + 1];
	u32 shift = f->lo.extent_shift + TIER_SECTOR_SHIFT, i;
	u64 size = f->lo.virt_extents << shift;

	tl_uuid_hex(f->uuid, hex);
	print_open(json);
	print_obj_begin(NULL);
	print_str("name", "created /dev/mapper/%s: ", name);
	print_u64_text("size_bytes", "%s, ", size, tl_size_str(size, a));
	print_u64("nr_tiers", "%llu tier", f->lo.nr_tiers);
	print_text("%s, ", f->lo.nr_tiers == 1 ? "" : "s");
	print_u64_text("extent_bytes", "%s extents, ", 1ULL << shift,
		       tl_size_str(1ULL << shift, b));
	print_str("uuid", "uuid %s\n", hex);
	print_arr_begin("tiers", NULL);
	for (i = 0; i < f->lo.nr_tiers; i++) {
		u64 cap = f->lo.tier[i].nr_extents << shift;

		print_obj_begin(NULL);
		print_u64("index", "  tier %llu  ", i);
		print_str("device", "%-20s ", m[i].dev->path);
		print_str("class", "%-8s ", tl_class_name(f->tier_class[i]));
		print_u64_text("capacity_bytes", "%s", cap, tl_size_str(cap, a));
		if (rt[i].is_remote)
			print_str("uri", "  %s", rt[i].uri_text);
		else
			print_null("uri", "");
		print_text("\n");
		print_obj_end();
	}
	print_arr_end();
	if (mem->on) {
		print_obj_begin("mem");
		print_text("  tier %u  %-20s %-8s ", f->lo.nr_tiers, "numa node", "mem");
		print_u64_text("size_bytes", "%s  (not durable: clean copies of hot extents)\n",
			       (u64)mem->size_mb << 20,
			       tl_size_str((u64)mem->size_mb << 20, a));
		print_u64("node", "          node %llu; ", mem->node);
		print_text("recorded in %s for 'tierctl activate'\n",
			   tl_mem_record_path());
		print_obj_end();
	} else {
		print_null("mem", NULL);
	}
	if (f->lo.meta_ext)
		print_str("metadata_dev", "  metadata %s\n",
			  m[f->lo.nr_tiers].dev->path);
	else
		print_null("metadata_dev", NULL);
	print_obj_end();
	print_close();
}

/* --mem-promote-hits: 1..65535. */
static int parse_promote_hits(const char *s, u32 *out, struct tl_err *err)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < 1 ||
	    v > TL_MEM_PROMOTE_HITS_MAX)
		return tl_fail(err, TL_USAGE,
			       "--mem-promote-hits %s: give a number of reads from 1 to %d",
			       s, TL_MEM_PROMOTE_HITS_MAX);
	*out = (u32)v;
	return TL_OK;
}

static void disconnect_new_remote_tiers(struct tierctl_remote *rt,
					int nr_tiers)
{
	int i;

	for (i = 0; i < nr_tiers; i++)
		tierctl_remote_undo(&rt[i]);
}

/* Connect every nvmf:// tier; on failure disconnect what was connected. */
static int connect_remote_tiers(struct tierctl_remote *rt, int nr_tiers,
				const struct tl_nvmf_opts *o,
				struct tl_err *err)
{
	int i, rc;

	for (i = 0; i < nr_tiers; i++) {
		if (!rt[i].is_remote)
			continue;
		rt[i].opts = *o;
		rc = tl_nvmf_connect_ex(&rt[i].uri, o, rt[i].dev,
					sizeof(rt[i].dev), &rt[i].connected_now,
					err);
		if (rc) {
			disconnect_new_remote_tiers(rt, i);
			return rc;
		}
	}
	return TL_OK;
}

/* Only a device that exists is worth reconnecting at the next activate. */
static int record_remote_tiers(const char *name,
			       const struct tierctl_remote *rt, int nr_tiers)
{
	int i, rc = TIERCTL_EXIT_OK;

	for (i = 0; i < nr_tiers; i++)
		if (tierctl_remote_record(NULL, name, &rt[i]))
			rc = TIERCTL_EXIT_FAIL;
	return rc;
}

/* ---- the stages (cmd-create.h) ---- */

int create_parse(struct create_cmd *cc, int argc, char **argv,
		 struct tl_err *err)
{
	static const struct option longopts[] = {
		{ "tier", required_argument, NULL, 't' },
		{ "extent-size", required_argument, NULL, 'e' },
		{ "size", required_argument, NULL, 's' },
		{ "max-size", required_argument, NULL, 'M' },
		{ "class", required_argument, NULL, 'c' },
		{ "metadata-dev", required_argument, NULL, 'm' },
		{ "force", no_argument, NULL, 'f' },
		{ "ctrl-loss-tmo", required_argument, NULL, 'L' },
		{ "reconnect-delay", required_argument, NULL, 'R' },
		{ "fast-io-fail-tmo", required_argument, NULL, 'F' },
		{ "mem-promote-hits", required_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *extent_arg = NULL, *size_arg = NULL, *max_arg = NULL;
	const char *loss_tmo_arg = NULL, *reconnect_arg = NULL, *fail_arg = NULL;
	const char *hits_arg = NULL, *mem_arg = NULL;
	struct tierctl_remote *rt = cc->rt;
	int i, c, rc;

	memset(cc, 0, sizeof(*cc));
	cc->req.extent_shift = TIER_EXTENT_SHIFT_DEF;
	cc->json = tierctl_json;
	opts_reset();
	while ((c = next_opt("create", argc, argv, "t:e:s:c:m:fj",
			     longopts)) != -1) {
		switch (c) {
		case 0:
			return TL_USAGE;
		case 'h':
			return CREATE_HELP_SHOWN;
		case 'j':
			cc->json = true;
			break;
		case 't':
			if (cc->nr_tiers == TIER_MAX_TIERS)
				return tl_fail(err, TL_USAGE,
					       "create: at most %d tiers",
					       TIER_MAX_TIERS);
			cc->tier_args[cc->nr_tiers++] = optarg;
			break;
		case 'c':
			if (cc->nr_classes == TIER_MAX_TIERS)
				return tl_fail(err, TL_USAGE,
					       "create: at most %d --class options",
					       TIER_MAX_TIERS);
			cc->class_args[cc->nr_classes++] = optarg;
			break;
		case 'e':
			extent_arg = optarg;
			break;
		case 's':
			size_arg = optarg;
			break;
		case 'M':
			max_arg = optarg;
			break;
		case 'm':
			cc->meta_arg = optarg;
			break;
		case 'f':
			cc->force = true;
			break;
		case 'L':
			loss_tmo_arg = optarg;
			break;
		case 'R':
			reconnect_arg = optarg;
			break;
		case 'F':
			fail_arg = optarg;
			break;
		case 'P':
			hits_arg = optarg;
			break;
		}
	}
	if (optind >= argc)
		return tl_fail(err, TL_USAGE, "create: no device NAME given");
	if (optind + 1 < argc)
		return tl_fail(err, TL_USAGE,
			       "create: unexpected argument '%s'",
			       argv[optind + 1]);
	cc->name = argv[optind];
	if (!tier_name_valid(cc->name))
		return tl_fail(err, TL_USAGE,
			       "create: invalid device name '%s': use 1 to 63 printable characters without blanks or '/'",
			       cc->name);
	if (!cc->nr_tiers)
		return tl_fail(err, TL_USAGE,
			       "create: no --tier given; a device needs at least one");
	rc = tl_numa_take(cc->tier_args, &cc->nr_tiers, &cc->mem, &mem_arg,
			  err);
	if (rc)
		return rc;
	if (hits_arg && !cc->mem.on)
		return tl_fail(err, TL_USAGE,
			       "create: --mem-promote-hits applies to a memory tier (--tier numa:NODE:SIZE); none is given");
	if (hits_arg) {
		rc = parse_promote_hits(hits_arg, &cc->mem.promote_hits, err);
		if (rc)
			return rc;
	}
	for (i = 0; i < cc->nr_tiers; i++) {
		const char *arg = cc->tier_args[i];
		int j;

		if (!tl_nvmf_is_uri(arg)) {
			rc = tl_check_tier_arg(arg, err);
			if (rc)
				return rc;
			continue;
		}
		rc = tl_nvmf_parse_uri(arg, &rt[i].uri, err);
		if (rc)
			return rc;
		rt[i].is_remote = true;
		tl_nvmf_format_uri(&rt[i].uri, rt[i].uri_text,
				   sizeof(rt[i].uri_text));
		for (j = 0; j < i; j++)
			if (rt[j].is_remote &&
			    tl_nvmf_same_target(&rt[j].uri, &rt[i].uri))
				return tl_fail(err, TL_USAGE,
					       "create: --tier %s and --tier %s are the same NVMe-oF target; give each tier once",
					       cc->tier_args[j], arg);
		cc->nr_remote++;
	}
	tl_nvmf_opts_default(&cc->nvmf_opts);
	if ((loss_tmo_arg || reconnect_arg || fail_arg) && !cc->nr_remote)
		return tl_fail(err, TL_USAGE,
			       "create: --ctrl-loss-tmo, --reconnect-delay and --fast-io-fail-tmo apply to nvmf:// tiers; none is given");
	if (loss_tmo_arg) {
		rc = tl_nvmf_parse_ctrl_loss_tmo(loss_tmo_arg,
						 &cc->nvmf_opts.ctrl_loss_tmo,
						 err);
		if (rc)
			return rc;
	}
	if (reconnect_arg) {
		rc = tl_nvmf_parse_reconnect_delay(reconnect_arg,
						   &cc->nvmf_opts.reconnect_delay,
						   err);
		if (rc)
			return rc;
	}
	if (fail_arg) {
		rc = tl_nvmf_parse_fast_io_fail_tmo(fail_arg,
						    &cc->nvmf_opts.fast_io_fail_tmo,
						    err);
		if (rc)
			return rc;
	}
	if (cc->nr_remote) {
		struct tl_err why = { "" };

		if (tl_nvmf_opts_check(&cc->nvmf_opts, &why))
			return tl_fail(err, TL_USAGE, "create: %s", why.msg);
	}
	if (cc->nr_classes && cc->nr_classes != cc->nr_tiers)
		return tl_fail(err, TL_USAGE,
			       "create: %d --class for %d --tier device%s; give one per device tier (not for numa:), in the same order (auto to detect)",
			       cc->nr_classes, cc->nr_tiers,
			       cc->nr_tiers == 1 ? "" : "s");
	if (extent_arg) {
		rc = tl_parse_extent_size(extent_arg, &cc->req.extent_shift,
					  err);
		if (rc)
			return rc;
	}
	if (size_arg) {
		rc = tl_parse_virt_size(size_arg, cc->req.extent_shift,
					&cc->req.virt_sectors, err);
		if (rc)
			return rc;
	}
	if (max_arg) {
		rc = tl_parse_virt_size(max_arg, cc->req.extent_shift,
					&cc->req.max_sectors, err);
		if (rc)
			return rc;
	}
	return TL_OK;
}

int create_preflight(struct create_cmd *cc, struct tl_err *err)
{
	struct tl_create_req *req = &cc->req;
	struct create_member *m = cc->m;
	int i, n = 0, rc;

	/* The memory tier's node, before anything touches a device. */
	if (cc->mem.on) {
		rc = tl_numa_check(TL_SYSROOT, cc->mem.node,
				   (u64)cc->mem.size_mb << 20,
				   1ULL << (req->extent_shift + TIER_SECTOR_SHIFT),
				   err);
		if (rc)
			return rc;
	}

	req->name = cc->name;
	req->nr_tiers = cc->nr_tiers;
	req->has_meta = cc->meta_arg != NULL;
	for (i = 0; i < cc->nr_tiers; i++) {
		u32 cls = TL_CLASS_AUTO;

		if (cc->nr_classes && tl_class_parse(cc->class_args[i], &cls))
			return tl_fail(err, TL_USAGE,
				       "create: unknown class '%s'; use nvme, nvmf, pmem or auto",
				       cc->class_args[i]);
		/* A tier reached through a URI is remote whatever sysfs says. */
		if (cls == TL_CLASS_AUTO && cc->rt[i].is_remote)
			cls = TIER_CLASS_NVMF;
		req->tier[i].tier_class = cls;
		m[n].dev = &req->tier[i];
		m[n++].arg = cc->tier_args[i];
	}
	if (cc->meta_arg) {
		m[n].dev = &req->meta;
		m[n++].arg = cc->meta_arg;
	}
	for (i = 0; i < n; i++) {
		m[i].excl_fd = m[i].io_fd = -1;
		m[i].found[0] = '\0';
	}
	cc->nr_members = n;
	return TL_OK;
}

int create_connect_remote(struct create_cmd *cc, struct tl_err *err)
{
	int i, rc;

	if (!cc->nr_remote)
		return TL_OK;
	rc = connect_remote_tiers(cc->rt, cc->nr_tiers, &cc->nvmf_opts, err);
	if (rc)
		return rc;
	for (i = 0; i < cc->nr_tiers; i++)
		if (cc->rt[i].is_remote)
			cc->m[i].arg = cc->rt[i].dev;
	return TL_OK;
}

int create_name_clash(const struct create_cmd *cc, const struct tl_groups *gs,
		      struct tl_err *err)
{
	unsigned int maj[TIER_MAX_DEVS], min[TIER_MAX_DEVS];
	char list[TL_MSG_LEN / 2];
	size_t n;
	int i;

	for (i = 0; i < cc->nr_members; i++) {
		maj[i] = cc->m[i].dev->maj;
		min[i] = cc->m[i].dev->min;
	}
	n = tl_groups_name_elsewhere(gs, cc->name, maj, min,
				     (size_t)cc->nr_members, list,
				     sizeof(list));
	if (!n)
		return TL_OK;
	if (cc->force) {
		tl_fail(err, TL_OK,
			"'%s' is also the name of a dm-tier device on %s; creating it anyway (--force): 'tierctl activate' (and activate --all at boot) refuses both devices of that name until those labels are wiped (the first 4 KiB) or those devices disconnected",
			cc->name, list);
		return TL_OK;
	}
	return tl_fail(err, TL_FAIL,
		       "'%s' is already the name of a dm-tier device on other devices: %s; with two devices of that name, 'tierctl activate' (and activate --all at boot) cannot tell which is /dev/mapper/%s and refuses both: choose another name, include %s in this create (with --force), or wipe %s label%s (the first 4 KiB) first; --force creates it anyway",
		       cc->name, list, cc->name,
		       n > 1 ? "those devices" : "that device",
		       n > 1 ? "their" : "its", n > 1 ? "s" : "");
}

/*
 * A name other disks' labels carry: read them as activate does, and
 * decide (create_name_clash()). With --force only a warning.
 */
static int check_name_on_disks(const struct create_cmd *cc, struct tl_err *err)
{
	struct tl_groups gs;
	size_t scanned;
	int rc;

	tl_groups_init(&gs);
	rc = tierctl_scan_labels(&gs, &scanned, true, err);
	if (rc)
		tl_err_append(err,
			      "cannot check whether another dm-tier device is named '%s'; --force creates it without that check",
			      cc->name);
	else
		rc = create_name_clash(cc, &gs, err);
	tl_groups_free(&gs);
	if (rc && !cc->force)
		return rc;
	/* --force: what was found (or not checked) is a warning. */
	if (err->msg[0])
		warn("%s", err->msg);
	err->msg[0] = '\0';
	return TL_OK;
}

int create_preflight_devices(struct create_cmd *cc, struct tl_err *err)
{
	struct create_member *m = cc->m;
	const char *args[TIER_MAX_DEVS] = { NULL };
	int i, n = cc->nr_members, rc;
	bool refused = false;

	for (i = 0; i < n; i++) {
		args[i] = m[i].arg;
		rc = stat_member(&m[i], err);
		if (rc)
			return rc;
	}
	rc = tl_create_check_devs(&cc->req, args, err);
	if (rc)
		return rc;

	for (i = 0; i < n; i++) {
		rc = open_member(&m[i], cc->meta_arg && i == n - 1, err);
		if (rc)
			return rc;
		if (m[i].found[0] && !cc->force) {
			if (!refused)
				err->msg[0] = '\0';
			tl_err_append(err, "%s carries %s", m[i].arg,
				      m[i].found);
			refused = true;
		}
	}
	/* Command-line mistakes (sizes) before what is on the devices. */
	cc->req.ctime = time(NULL);
	if (refused) {
		struct tl_err perr = { "" };

		rc = tl_create_plan(&cc->req, &cc->fresh, &perr);
		if (rc) {
			*err = perr;
			return rc;
		}
		tl_err_append(err,
			      "refusing to overwrite; use --force to destroy what is on %s",
			      n > 1 ? "these devices" : "the device");
		return TL_FAIL;
	}
	rc = tl_create_plan(&cc->req, &cc->fresh, err);
	if (rc)
		return rc;

	if (tl_dm_available()) {
		struct tl_dm_dev d;

		if (!tl_dm_query(cc->name, NULL, false, &d, NULL)) {
			tl_dm_dev_free(&d);
			return tl_fail(err, TL_FAIL,
				       "a device-mapper device named '%s' already exists; choose another name or run 'tierctl remove %s'",
				       cc->name, cc->name);
		}
	}
	return check_name_on_disks(cc, err);
}

/*
 * Formatting progress on a terminal (stderr), once it has taken more than
 * a second: large devices have map copies of many MiB to write.
 */
struct format_progress {
	struct timespec start;
	bool shown;
};

static u64 ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return tl_ms_between(t0, &now);
}

static void format_progress_cb(uint64_t done, uint64_t total, void *arg)
{
	struct format_progress *p = arg;
	char line[TL_PROGRESS_LEN];
	u64 ms = ms_since(&p->start);

	if (ms < 1000 && !p->shown)
		return;
	p->shown = true;
	fprintf(stderr, "\rcreate: formatting: %s\033[K%s",
		tl_progress_line(line, "metadata blocks", done, total,
				 TIER_BLOCK_SIZE, ms),
		done == total ? "\n" : "");
}

int create_format(struct create_cmd *cc, struct tl_err *err)
{
	struct format_progress progress = { .shown = false };
	struct create_member *m = cc->m;
	int i, n = cc->nr_members, rc, fds[TIER_MAX_DEVS];

	for (i = 0; i < n; i++) {
		if (cc->force && m[i].found[0]) {
			rc = wipe_foreign(m[i].excl_fd, m[i].dev->path, err);
			if (rc)
				return rc;
		}
		m[i].io_fd = open(m[i].dev->path,
				  O_RDWR | O_DIRECT | O_SYNC | O_CLOEXEC);
		if (m[i].io_fd < 0)
			return tl_fail(err, TL_FAIL, "cannot open %s: %s",
				       m[i].arg, strerror(errno));
	}
	rc = tl_create_new_ids(&cc->fresh, err);
	if (rc)
		return rc;
	for (i = 0; i < TIER_MAX_DEVS; i++) {
		fds[i] = -1;
		cc->paths[i] = NULL;
	}
	for (i = 0; i < cc->nr_tiers; i++) {
		fds[i] = m[i].io_fd;
		cc->paths[i] = m[i].dev->path;
	}
	if (cc->meta_arg) {
		fds[TIER_META_DEV] = m[n - 1].io_fd;
		cc->paths[TIER_META_DEV] = m[n - 1].dev->path;
	}
	clock_gettime(CLOCK_MONOTONIC, &progress.start);
	rc = tl_create_write_progress(&cc->fresh, fds, cc->paths,
				      isatty(STDERR_FILENO) ?
					      format_progress_cb :
					      NULL,
				      &progress, err);
	if (rc && progress.shown)
		fputc('\n', stderr);
	if (rc)
		return rc;
	/* dm opens the devices exclusively: let go of them. */
	close_members(m, n);
	return TL_OK;
}

int create_activate(struct create_cmd *cc, struct tl_err *err)
{
	const struct tier_fresh *f = &cc->fresh;
	char params[4096], dm_uuid[TL_DM_UUID_LEN + 1];
	char uuid_hex[TL_UUID_HEX_LEN + 1];
	int rc;

	rc = tl_table_build(f->lo.nr_tiers, f->lo.extent_shift, cc->paths,
			    cc->meta_arg ? cc->paths[TIER_META_DEV] : NULL,
			    params, sizeof(params), err);
	if (!rc)
		rc = tl_table_add_mem(params, sizeof(params), f->lo.nr_tiers,
				      &cc->mem, err);
	if (rc)
		return rc;
	/* Recorded before the table is loaded: an 'activate' after a failed
	 * load re-creates the memory tier too. */
	tl_uuid_hex(f->uuid, uuid_hex);
	if (cc->mem.on) {
		struct tl_err rerr = { "" };

		if (tl_mem_record_set(uuid_hex, &cc->mem, &rerr)) {
			char line[256];

			tl_mem_record_format_line(uuid_hex, &cc->mem, line,
						  sizeof(line));
			warn("%s; 'tierctl activate' will not re-create the memory tier: add the line '%s' to %s",
			     rerr.msg, line, tl_mem_record_path());
		}
	}
	tl_dm_uuid(f->uuid, dm_uuid);
	rc = tl_dm_create(cc->name, dm_uuid,
			  f->lo.virt_extents << f->lo.extent_shift,
			  TL_DM_TARGET, params, err);
	if (rc) {
		if (cc->mem.on)
			tl_err_append(err,
				      "a dm-tier module that predates the memory tier refuses mem_node/mem_size_mb ('modinfo dm-tier'); 'tierctl activate' then activates the device without it");
		tl_err_append(err,
			      "the devices were formatted as '%s'; once the problem is fixed, run 'tierctl activate %s'",
			      cc->name, cc->name);
		return rc;
	}
	return TL_OK;
}

void create_undo(struct create_cmd *cc)
{
	close_members(cc->m, cc->nr_members);
	disconnect_new_remote_tiers(cc->rt, cc->nr_tiers);
}

int cmd_create(int argc, char **argv)
{
	struct tl_err err = { "" };
	struct create_cmd cc;
	int rc;

	rc = create_parse(&cc, argc, argv, &err);
	if (rc == CREATE_HELP_SHOWN)
		return TIERCTL_EXIT_OK;
	if (rc)
		return err.msg[0] ? report(rc, &err) : rc;
	rc = create_preflight(&cc, &err);
	if (rc)
		return report(rc, &err);
	rc = create_connect_remote(&cc, &err);
	if (rc)
		return report(rc, &err);
	/* From here on a failure disconnects what was connected. */
	rc = create_preflight_devices(&cc, &err);
	if (!rc)
		rc = create_format(&cc, &err);
	if (!rc)
		rc = create_activate(&cc, &err);
	if (rc) {
		create_undo(&cc);
		return report(rc, &err);
	}
	print_created(cc.json, cc.name, &cc.fresh, cc.m, cc.rt, &cc.mem);
	return record_remote_tiers(cc.name, cc.rt, cc.nr_tiers);
}
