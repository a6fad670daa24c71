/* SPDX-License-Identifier: GPL-2.0 */
#ifndef DM_TIER_TIERCTL_H
#define DM_TIER_TIERCTL_H

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/types.h>

#include "tl.h"
#include "tl-nl.h"

enum {
	TIERCTL_EXIT_OK = TL_OK,
	TIERCTL_EXIT_FAIL = TL_FAIL,	/* the operation failed; stderr says why */
	TIERCTL_EXIT_USAGE = TL_USAGE,	/* bad command line */
	TIERCTL_EXIT_NOFEATURE = TL_NOFEATURE,	/* the kernel lacks the feature */
};

struct tierctl_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *help;
};

/* Set by a global --json / -j before the command. */
extern bool tierctl_json;
/* Set by a global -H / --human: sizes as "1.5 GiB" instead of bytes in text. */
extern bool tierctl_human;

/* Print "tierctl: <message>" and a hint on stderr; returns TIERCTL_EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "tierctl: <message>" on stderr; returns TIERCTL_EXIT_FAIL. */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print a warning ("tierctl: warning: ...") on stderr. */
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print @err's lines as "tierctl: <line>" on stderr (with the usage hint
 * when @rc is TIERCTL_EXIT_USAGE); returns @rc. */
int report(int rc, const struct tl_err *err);

/* The command called @name, or NULL. */
const struct tierctl_cmd *find_cmd(const char *name);

/* The usage line of command @name ("create NAME --tier DEV ..."). */
const char *cmd_usage(const char *name);

/*
 * getopt_long() driver shared by the commands: @optstring without leading
 * ':'. Returns the option, -1 at the end, or 0 after printing a usage error
 * (unknown option, missing argument) — the command then returns
 * TIERCTL_EXIT_USAGE. "-h"/"--help" print the command's usage and return
 * 'h'.
 */
int next_opt(const char *cmd, int argc, char **argv, const char *optstring,
	     const struct option *longopts);
/* Reset getopt before a command parses its arguments. */
void opts_reset(void);
/*
 * The options of a command that takes only --json (list, status): true to
 * go on, with *@json set (also by a global --json); false when the command
 * must return *@rc (after --help, or a usage error already printed).
 */
bool parse_json_opt(const char *cmd, int argc, char **argv, bool *json,
		    int *rc);

int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_completion(int argc, char **argv);

/* What wait_for_move() saw. */
struct wait_result {
	u64 moved;	/* extents it copied: its event's count, else the last polled */
	u64 errors;	/* extents not moved when it failed, else 0 */
	u64 elapsed_ms;
	/*
	 * "done", "cancelled", "failed" (its migration-done event), or
	 * "unknown": it left the queue and its event was not seen (no
	 * monitor, events lost, or too late); @why then says which.
	 */
	char outcome[16];
	char why[160];
	u32 err;	/* errno of a failed request */
	/*
	 * The migration paces the waits' polls saw, each once, in order
	 * ("full background"): how the module ran the request, without a
	 * status poller of the caller's own beside it.
	 */
	char paces[64];
};

/*
 * wait_open_monitor() - a monitor socket for wait_for_move(), opened before
 * the request is sent so that its migration-done event cannot be missed;
 * NULL when it cannot be opened (wait_for_move() then polls only).
 */
struct tl_nl *wait_open_monitor(void);

/*
 * wait_for_move() - follow queued move request @id of device @name until it
 * ends: its migration-done event on *@mon (or, without one, its leaving the
 * queue; a broken *@mon is closed and set to NULL), showing "@cmd: 3/40 extents ..., ETA" on stderr when it is a
 * terminal. @total: the extents the request covered.
 * Returns TIERCTL_EXIT_OK with @res filled (@res->outcome "unknown" when
 * the request ended unseen: the caller must not report it as done), or an
 * exit code after a message.
 */
int wait_for_move(struct tl_nl *nl, struct tl_nl **mon, const char *cmd,
		  const char *name, u32 id, u64 total, u64 extent_bytes,
		  struct wait_result *res);

/*
 * wait_unknown() - print that request @id of @name ended with an unknown
 * outcome (@res->why says why), and what to check: 'tierctl status NAME'
 * and, when not NULL, @check (e.g. "'tierctl where NAME --range 0:1G'").
 * Returns TIERCTL_EXIT_FAIL.
 */
int wait_unknown(const char *cmd, const char *name, u32 id,
		 const struct wait_result *res, const char *check);
int cmd_cancel(int argc, char **argv);
int cmd_create(int argc, char **argv);
int cmd_remove(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_activate(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_migrate(int argc, char **argv);
int cmd_pin(int argc, char **argv);
int cmd_unpin(int argc, char **argv);
int cmd_where(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_add_tier(int argc, char **argv);
int cmd_replace_tier(int argc, char **argv);

/**
 * struct replace_opts - the command line of "tierctl replace-tier".
 * @name:       the device.
 * @tier:       the tier to replace.
 * @dev:        NEWDEV, the block device that becomes tier @tier.
 * @class_arg:  --class as given, or NULL (the class of tier @tier).
 * @tier_class: --class parsed (TL_CLASS_AUTO without).
 * @disconnect: --disconnect: the replaced member, when it is an NVMe-oF
 *              namespace, is disconnected and forgotten once removed.
 * @force:      --force: NEWDEV's foreign signatures (a filesystem, a
 *              partition table...) or another device's label are erased
 *              by the add step instead of refused.
 * @loss_tmo_arg, @reconnect_arg, @fail_arg: --ctrl-loss-tmo,
 *              --reconnect-delay, --fast-io-fail-tmo for an nvmf:// NEWDEV.
 * @json:       --json (or the global one).
 * @help:       --help printed the usage; nothing else to do.
 */
struct replace_opts {
	const char *name;
	u32 tier;
	const char *dev;
	const char *class_arg;
	u32 tier_class;
	bool disconnect;
	bool force;
	const char *loss_tmo_arg;
	const char *reconnect_arg;
	const char *fail_arg;
	bool json;
	bool help;
};

/*
 * Parse "replace-tier NAME TIER NEWDEV [--class CLASS] [--disconnect]
 * [--force] [--ctrl-loss-tmo S] [--reconnect-delay S]
 * [--fast-io-fail-tmo S] [--json]" into @o (NEWDEV may be an nvmf:// URI).
 * Return: TIERCTL_EXIT_OK, or TIERCTL_EXIT_USAGE after printing why.
 */
int replace_parse(int argc, char **argv, struct replace_opts *o);

/*
 * The add-tier and remove-tier operations after argument parsing (other
 * commands build on them, e.g. replace-tier). tierctl_add_tier(): @dev
 * joins @name at tier @position (1..count; -1 appends; 0 is refused),
 * class @tier_class (TL_CLASS_AUTO detects it), with a spare metadata area
 * when @spare_meta (replace-tier NAME 0 without a metadata device: the
 * tier at 1 takes the metadata over later). @dev is held exclusively
 * until its label is written (tierctl_claim_open(), live.h); a foreign
 * signature on it, or another dm-tier device's label, is refused unless
 * @force, which erases (overwrites) it. tierctl_remove_tier(): the
 * empty tier @tier (0..count - 1; 0 only when tier 1 can take its place:
 * a spare metadata area, or the metadata on a metadata device) leaves
 * @name. Each prints its result (or
 * errors on stderr) and returns a TIERCTL_EXIT_* code; re-running either
 * after a crash completes the label work (docs/tierctl.md).
 */
int tierctl_add_tier(const char *name, const char *dev, u32 tier_class,
		     int position, bool spare_meta, bool force, bool json);
int tierctl_remove_tier(const char *name, u32 tier, bool disconnect,
			bool json);

int cmd_remove_tier(int argc, char **argv);
int cmd_resize(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_evacuate_lost(int argc, char **argv);
int cmd_evacuate(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_repair(int argc, char **argv);
int cmd_restore(int argc, char **argv);

/* ---- activate (cmd-activate.c) ---- */

/**
 * struct activate_opts - the command line of "tierctl activate".
 * @name:      the device to activate; NULL: every device found.
 * @all:       --all was given.
 * @read_only: --readonly: load the table read-only (the device refuses
 *             writes, and the kernel writes nothing to its members).
 * @help:      --help printed the usage; nothing else to do.
 * @json:      --json (or the global one): the result as JSON.
 */
struct activate_opts {
	const char *name;
	bool all;
	bool read_only;
	bool help;
	bool json;
};

/*
 * Parse "activate [NAME | --all] [--readonly]" into @o.
 * Return: TIERCTL_EXIT_OK, or TIERCTL_EXIT_USAGE after printing why.
 */
int activate_parse(int argc, char **argv, struct activate_opts *o);

struct tl_groups;

/*
 * tierctl_scan_labels() - read the label of every candidate block device
 * (tl_sysfs_scan()) into @gs, as activate does; *@nr_scanned: the devices
 * read. A damaged label is skipped, with a warning unless @quiet.
 * Return: TL_OK, or TL_FAIL with @err (no sysfs, out of memory, or
 * permission denied on every device).
 */
int tierctl_scan_labels(struct tl_groups *gs, size_t *nr_scanned, bool quiet,
			struct tl_err *err);

/*
 * activate_pick() - which groups of @gs "activate [NAME]" activates:
 * @go[i] (one per group) set for each. With @name, the group of that
 * name; without, every group. A name that two groups (different uuids)
 * share picks neither, with @name as without: which would be
 * /dev/mapper/NAME would depend on the order of the scan.
 * Return: TIERCTL_EXIT_OK; TIERCTL_EXIT_FAIL with a line of @err per
 * refusal (no such name, on @scanned devices; a name shared), the other
 * groups still picked.
 */
int activate_pick(const struct tl_groups *gs, const char *name,
		  size_t scanned, bool *go, struct tl_err *err);

/**
 * struct evacuate_opts - the command line of "tierctl evacuate".
 * @name:   the device.
 * @tier:   the tier to empty.
 * @cancel: --cancel: stop the evacuation, the tier takes extents again.
 * @to:     --to T: the preferred destination tier, or TL_NL_NO_TIER.
 * @wait:   --wait: follow the request to its end, with a progress line.
 * @json:   --json (or the global one).
 * @help:   --help printed the usage; nothing else to do.
 */
struct evacuate_opts {
	const char *name;
	u32 tier;
	u32 to;
	bool cancel;
	bool wait;
	bool json;
	bool help;
};

/*
 * Parse "evacuate NAME TIER [--to T] [--wait | --cancel] [--json]" (the
 * tier also as --tier N) into @o.
 * Return: TIERCTL_EXIT_OK, or TIERCTL_EXIT_USAGE after printing why.
 */
int evacuate_parse(int argc, char **argv, struct evacuate_opts *o);

/*
 * Whether tier @tier of @dev can be evacuated, checked before asking the
 * kernel (which checks again): not the only tier, not tier 0 holding the
 * metadata (@meta_on_tier0), not offline, and room on the other tiers
 * (online, not evacuating, above their @reserve_pct reserve) for the
 * extents mapped on it. A tier already evacuating passes (the request is
 * resumed). Return: 0, or an exit code with the reason in @why (and, for
 * a lack of room, the bytes missing in *@missing_bytes).
 */
/*
 * Whether tier @to may be the preferred destination of the evacuation of
 * @tier (--to): a tier of @dev, not @tier, online and not evacuating (the
 * kernel checks again). Return: 0, or TIERCTL_EXIT_USAGE /
 * TIERCTL_EXIT_FAIL with the reason in @why.
 */
int evacuate_check_to(const struct tl_nl_dev *dev, u32 tier, u32 to, char *why,
		      size_t len);

int evacuate_precheck(const struct tl_nl_dev *dev, u32 tier, bool meta_on_tier0,
		      u32 reserve_pct, u64 *missing_bytes, char *why,
		      size_t len);

/*
 * evacuate --wait saw its request leave the queue without its event
 * (@res->outcome "unknown"): confirm the outcome from @dev, a dev-get read
 * after. When tier @tier is still flagged evacuating, holds no mapped
 * extent and no evacuation of it is queued again, the request did its
 * work: @res->outcome becomes "done" (true). Otherwise (extents left:
 * failed or cancelled, which the state does not tell apart) it stays
 * "unknown" (false).
 */
bool evacuate_confirm(const struct tl_nl_dev *dev, u32 tier,
		      struct wait_result *res);

/* ---- netlink commands (tierctl.c) ---- */

/* Open the dm-tier netlink family; on failure print why and return the exit
 * code (TIERCTL_EXIT_NOFEATURE when the module lacks it). */
int nl_open(struct tl_nl **nl);

/*
 * nl_open() and dev-get of device @name into a new *@dev (free() it, and
 * tl_nl_close() *@nl); with @tier, also check that *@tier is one of its
 * durable tiers. On failure print why and return the exit code (nothing
 * left open).
 */
int nl_open_dev(const char *cmd, const char *name, const u32 *tier,
		struct tl_nl **nl, struct tl_nl_dev **dev);

/*
 * A RANGE argument: "START:LEN" with sizes (0:1G, 10M:64M), or "all" when
 * @all_ok (then *start = 0 and *len = 0, meaning the whole device).
 * TIERCTL_EXIT_OK, or TIERCTL_EXIT_USAGE after printing why.
 */
int parse_range(const char *cmd, const char *arg, bool all_ok, u64 *start,
		u64 *len);

/* A tier number argument (0..TIER_MAX_TIERS-1); usage error otherwise. */
int parse_tier_arg(const char *cmd, const char *arg, u32 *tier);
/*
 * After the options: NAME and the tier, from --tier (@tier_opt, NULL when
 * not given) or as a second word. TIERCTL_EXIT_OK, or a usage error printed.
 */
int parse_name_tier(const char *cmd, int argc, char **argv,
		    const char *tier_opt, const char **name, u32 *tier);

/*
 * The device number of /dev/mapper/@name, for checking that files live on
 * it. TIERCTL_EXIT_OK, or the exit code after printing why.
 */
int mapper_devt(const char *name, dev_t *devt);

/* Check that @path is on a filesystem on /dev/mapper/@name (dev @devt);
 * prints the error and returns TIERCTL_EXIT_USAGE when not. */
int check_on_device(const char *path, const char *name, dev_t devt);

/* @bytes as text: plain bytes, or "1.5 GiB" with -H. */
const char *bytes_text(u64 bytes, char *buf);

/* ---- block devices (probe.c) ---- */

/*
 * What foreign signatures libblkid finds on @fd (superblocks: filesystems,
 * RAID/LVM members, crypto, swap...; partition tables), as a phrase for
 * messages: "a filesystem (xfs)", "a partition table (gpt)", several joined
 * with ", ".
 * Return: 1 when something was found, 0 when nothing, -errno on error.
 */
int probe_foreign(int fd, char *what, size_t len);

/* Erase every signature probe_foreign() finds (like wipefs -a). */
int wipe_foreign(int fd, const char *path, struct tl_err *err);

/* ---- tierctl probe (cmd-probe.c) ---- */

/*
 * The udev properties of a member with label @l, one KEY=VALUE a line, for
 * IMPORT{program}: ID_FS_TYPE=dm_tier_member, ID_FS_USAGE=raid,
 * ID_FS_VERSION, ID_FS_UUID[_ENC] (the device's), ID_FS_UUID_SUB[_ENC] (the
 * member's), ID_FS_LABEL[_ENC] (the device name), DM_TIER_MEMBER (tier
 * index or "meta"), DM_TIER_NR_TIERS.
 */
void probe_export(const struct tier_label *l, FILE *f);

#endif /* DM_TIER_TIERCTL_H */
