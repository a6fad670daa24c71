/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmd-create.h - the stages of `tierctl create`, each callable (and
 * unit-tested) on its own:
 *
 *   create_parse()            the command line, checked as text
 *   create_preflight()        what it asks for, checked against this host
 *                             before any device is touched (NUMA node,
 *                             classes)
 *   create_connect_remote()   connect the nvmf:// tiers
 *   create_preflight_devices() the member devices: block devices, each
 *                             given once, not in use, nothing on them
 *                             (unless --force), large enough, name free
 *                             (no dm device; no label of that name on
 *                             other devices, unless --force)
 *   create_format()           wipe (--force), write labels and metadata
 *   create_activate()         load the table: /dev/mapper/NAME
 *
 * Each stage takes the struct create_cmd the previous ones filled and
 * returns TL_OK, or an exit code with @err saying why. After
 * create_connect_remote(), a failure calls create_undo() to disconnect what
 * the command connected. cmd_create() runs them in order.
 */
#ifndef DM_TIER_CMD_CREATE_H
#define DM_TIER_CMD_CREATE_H

#include <stdbool.h>

#include "tl-create.h"
#include "tl-mem.h"
#include "tl-nvmf-uri.h"
#include "remote.h"

/* create_parse(): -h/--help printed the usage; the command exits 0. */
#define CREATE_HELP_SHOWN (-1)

/* One device of the new tier device, while it is being prepared. */
struct create_member {
	const char *arg;		/* as given on the command line */
	struct tl_create_dev *dev;	/* in the request */
	int excl_fd;			/* O_EXCL: keeps others away */
	int io_fd;			/* O_DIRECT | O_SYNC writes */
	char found[512];		/* signatures found, "" when none */
};


/**
 * struct create_cmd - one `tierctl create`, filled stage by stage.
 * @name:       the new device's name.
 * @tier_args:  --tier arguments, the numa: one taken out (@nr_tiers).
 * @class_args: --class arguments (@nr_classes: 0, or one per tier).
 * @meta_arg:   --metadata-dev, or NULL.
 * @force:      --force: destroy what is on the devices.
 * @mem:        the memory tier (numa:NODE:SIZE), @mem.on when given.
 * @rt:         per tier: its nvmf:// URI, if it is one (@nr_remote of them).
 * @nvmf_opts:  --ctrl-loss-tmo, --reconnect-delay, --fast-io-fail-tmo.
 * @req:        the request for tl_create_plan(): name, extent size, size;
 *              the devices from create_preflight*().
 * @m:          the member devices (@nr_members): tiers, then metadata.
 * @fresh:      the planned device (create_preflight_devices(), then its
 *              UUIDs in create_format()).
 * @paths:      the devices' paths by index (TIER_META_DEV: metadata), for
 *              the table.
 */
struct create_cmd {
	const char *name;
	const char *tier_args[TIER_MAX_TIERS + 1];
	int nr_tiers;
	const char *class_args[TIER_MAX_TIERS];
	int nr_classes;
	const char *meta_arg;
	bool force;
	bool json;	/* --json (or the global one): JSON result on stdout */
	struct tl_mem_cfg mem;
	struct tierctl_remote rt[TIER_MAX_TIERS]; /* nvmf:// tiers, connected first */
	int nr_remote;
	struct tl_nvmf_opts nvmf_opts;
	struct tl_create_req req;
	struct create_member m[TIER_MAX_DEVS];
	int nr_members;
	struct tier_fresh fresh;
	const char *paths[TIER_MAX_DEVS];
};

/*
 * Fill @cc from the command line; nothing outside it is looked at. Return:
 * TL_OK; TL_USAGE with @err set, or with @err empty when getopt's message is
 * already printed; CREATE_HELP_SHOWN.
 */
int create_parse(struct create_cmd *cc, int argc, char **argv,
		 struct tl_err *err);
/* The NUMA node (sysfs) and the classes; sets up @cc->m. TL_OK, TL_USAGE,
 * TL_FAIL. */
int create_preflight(struct create_cmd *cc, struct tl_err *err);
/* Connect each nvmf:// tier (all or none stay connected); the member
 * becomes its namespace's block device. TL_OK or TL_FAIL. */
int create_connect_remote(struct create_cmd *cc, struct tl_err *err);
/* Stat, open exclusively, probe and plan; refuse foreign signatures
 * without --force, a device-mapper name in use, and (without --force) a
 * name that labels on other devices carry (create_name_clash()). */
int create_preflight_devices(struct create_cmd *cc, struct tl_err *err);
struct tl_groups;
/*
 * create_name_clash() - whether @gs (the labels found on this host's block
 * devices, tierctl_scan_labels()) has members labelled with @cc's name
 * other than @cc's own devices (after create_preflight_devices()' stat):
 * another dm-tier device of that name, active or not, which 'activate'
 * (at boot: activate --all) could not tell from the new one, and so would
 * refuse both. Return: TL_OK when there is none; TL_FAIL with @err naming
 * those devices and what to do; with --force, TL_OK with @err naming them
 * (the caller warns).
 */
int create_name_clash(const struct create_cmd *cc, const struct tl_groups *gs,
		      struct tl_err *err);
/* Wipe (--force), new UUIDs, labels and metadata written; the devices are
 * closed again for dm to open. */
int create_format(struct create_cmd *cc, struct tl_err *err);
/* Build the table, record the memory tier, create /dev/mapper/NAME. */
int create_activate(struct create_cmd *cc, struct tl_err *err);
/* After a failed stage: close the members, disconnect what was connected. */
void create_undo(struct create_cmd *cc);

#endif /* DM_TIER_CMD_CREATE_H */
