/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-dm.h - the device-mapper ioctls tierctl needs, through libdevmapper,
 * with udev synchronisation so that /dev/mapper/NAME exists (or is gone)
 * when a call returns. libdevmapper's own log messages are captured, not
 * printed: tl_dm_last_error() returns the last one.
 */
#ifndef DM_TIER_TL_DM_H
#define DM_TIER_TL_DM_H

#include "tl.h"

#define TL_DM_TARGET "tier"
#define TL_DM_NAME_LEN 128
#define TL_DM_UUID_MAX 129

/**
 * struct tl_dm_dev - a dm device and its (first) target.
 * @name, @uuid:   DM name and uuid ("" when none).
 * @maj, @min:     device number.
 * @open_count:    openers.
 * @suspended, @read_only: flags.
 * @nr_targets:    targets in the live table.
 * @start, @length: first target's placement, in sectors.
 * @type:          first target's type ("" when no table).
 * @params:        first target's table or status params (malloc'ed).
 */
struct tl_dm_dev {
	char name[TL_DM_NAME_LEN];
	char uuid[TL_DM_UUID_MAX];
	unsigned int maj, min;
	int open_count;
	bool suspended, read_only;
	u32 nr_targets;
	u64 start, length;
	char type[32];
	char *params;
};

/* Call once before anything else: log capture, udev sync. */
void tl_dm_init(void);
/* The last error libdevmapper logged, "" when none. */
const char *tl_dm_last_error(void);
/* Whether the kernel's device-mapper can be reached at all. */
bool tl_dm_available(void);
/* Whether the kernel has registered target @type (e.g. "tier"). */
bool tl_dm_target_loaded(const char *type);
/* The version of target @type into @ver; false when it is not registered. */
bool tl_dm_target_version(const char *type, uint32_t ver[3]);

/**
 * tl_dm_query() - info plus the first target's table (@status false) or
 * status (@status true) line of the device called @name, or with DM uuid
 * @uuid when @name is NULL.
 * @d: out; tl_dm_dev_free() it after success.
 * Return: 0, -ENXIO when there is no such device, -EIO on other failures
 * (@err says which).
 */
int tl_dm_query(const char *name, const char *uuid, bool status,
		struct tl_dm_dev *d, struct tl_err *err);
void tl_dm_dev_free(struct tl_dm_dev *d);

/* Names of all dm devices (malloc'ed array of malloc'ed strings, sorted);
 * 0 or -EIO. tl_dm_names_free() it. */
int tl_dm_list_names(char ***names, size_t *n, struct tl_err *err);
void tl_dm_names_free(char **names, size_t n);

/**
 * tl_dm_create() - create and resume @name with one target, waiting for
 * udev. On failure nothing is left behind.
 * Return: TL_OK or TL_FAIL (@err: what to do).
 */
int tl_dm_create(const char *name, const char *dm_uuid, u64 sectors,
		 const char *type, const char *params, struct tl_err *err);

/**
 * tl_dm_create_mode() - tl_dm_create(), with the table loaded read-only
 * when @read_only (dm_task_set_ro(), as "dmsetup create --readonly"): the
 * device refuses writes, and the tier target then writes nothing to its
 * members.
 * Return: TL_OK or TL_FAIL (@err: what to do).
 */
int tl_dm_create_mode(const char *name, const char *dm_uuid, u64 sectors,
		      const char *type, const char *params, bool read_only,
		      struct tl_err *err);

/**
 * tl_dm_reload() - replace the live table of @name by one target (load the
 * new table, suspend, resume: the new table goes live), waiting for udev.
 * When the load or the suspend fails, the device keeps its table (and is
 * resumed again after a failed suspend).
 * Return: TL_OK or TL_FAIL (@err: what the kernel refused; see dmesg).
 */
int tl_dm_reload(const char *name, u64 start, u64 sectors, const char *type,
		 const char *params, struct tl_err *err);

/**
 * tl_dm_remove() - remove @name, waiting for udev.
 * Return: TL_OK, or TL_FAIL (busy: says so).
 */
int tl_dm_remove(const char *name, struct tl_err *err);

/**
 * tl_dm_message() - send the target message @msg (words separated by
 * blanks, as 'dmsetup message NAME 0 MSG') to @name's target at sector 0.
 * Return: TL_OK, or TL_FAIL (no such device, read-only activation, or
 * the target refused it: see dmesg).
 */
int tl_dm_message(const char *name, const char *msg, struct tl_err *err);

#endif /* DM_TIER_TL_DM_H */
