/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tierd.h - the dm-tier policy daemon (docs/tierd.md): shared state of
 * main.c (loop, signals, events), apply.c (policies, pins, checkpoints,
 * NVMe-oF recovery), metrics.c (the metrics textfile), log.c.
 * tl-conf.c (configuration files) and tl-metrics.c (Prometheus text) are
 * library-style modules, unit-tested alone, that only tierd uses.
 */
#ifndef DM_TIER_TIERD_H
#define DM_TIER_TIERD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <syslog.h>

#include "tl-conf.h"
#include "tl-fiemap.h"
#include "tl-metrics.h"
#include "tl-nl.h"
#include "tl-recover.h"

/* Exit codes (docs/tierd.md, --help). */
enum tierd_exit {
	TIERD_EXIT_OK = 0,
	TIERD_EXIT_FAIL = 1, /* --once: some device failed; runtime error */
	TIERD_EXIT_CONFIG = 2, /* bad configuration or command line */
};

/* ---- log.c ---- */
void tierd_log_open(bool foreground, int max_level);
/* "error", "warning", "notice", "info", "debug" → LOG_*, or -1. */
int tierd_log_level(const char *name);
void tierd_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define log_err(...) tierd_log(LOG_ERR, __VA_ARGS__)
#define log_warn(...) tierd_log(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) tierd_log(LOG_NOTICE, __VA_ARGS__)
#define log_info(...) tierd_log(LOG_INFO, __VA_ARGS__)
#define log_debug(...) tierd_log(LOG_DEBUG, __VA_ARGS__)

/* Milliseconds on CLOCK_MONOTONIC. */
int64_t tierd_now_ms(void);

/* ---- apply.c ---- */
enum tierd_op_kind { OP_PIN, OP_UNPIN, OP_MIGRATE };

/* One pin/unpin/migrate request waiting to be sent (the kernel queues
 * moves, up to 32, and answers EBUSY only when its queue is full). */
struct tierd_op {
	enum tierd_op_kind kind;
	uint64_t start; /* bytes */
	uint64_t len;
	int tier; /* OP_PIN: -1 in place; OP_MIGRATE: target */
	unsigned int tries;
	char *place; /* the path it is for, for logs and retries */
};

/* A move the kernel queued for tierd: followed to its migration-done
 * event by id, so a failed or cancelled one is tried again. */
struct tierd_move {
	uint32_t id;
	enum tierd_op_kind kind;
	char *place;
};

/* A file, directory or checkpoint whose placement tierd maintains. */
struct tierd_place {
	char *path;
	uint64_t applied_sig; /* hash of ranges + action; 0: not applied */
	uint64_t last_err_sig; /* to log a repeated failure once */
	bool seen; /* still wanted in this pass */
};

struct tierd_dev {
	char name[128];
	/*
	 * The device's uuid, from its last dev-new, listing or notification
	 * ("" before one): a dev-del under this name with another uuid is of
	 * an earlier device of that name, renamed since (tl_ev_same_device()).
	 */
	char uuid[40];
	bool present; /* the kernel has it */
	bool failed; /* something could not be applied */
	uint32_t nr_tiers;
	bool has_mem; /* a memory tier (index nr_tiers) */
	uint64_t extent_bytes;
	struct tl_metrics_events events;
	struct tierd_op *ops;
	size_t nr_ops;
	struct tierd_move *moves; /* queued in the kernel, not yet done */
	size_t nr_moves;
	int64_t next_op_ms;
	struct tierd_place *places;
	size_t nr_places;
	/*
	 * Tiers being brought back (apply.c), one entry each, kept by the
	 * tier's block device, not by index (tl-recover.h): not indexed by
	 * tier; each entry's tier is where its device was last seen.
	 */
	struct tl_recover recover[TIER_MAX_TIERS];
	uint64_t checkpoint_err_sig; /* to log a missing checkpoint_dir once */
	int replace_pid; /* replace_tier: the running tierctl, else 0 */
	FILE *replace_out; /* its stdout and stderr */
};

struct tierd {
	bool once;
	struct tl_conf conf; /* the last good configuration */
	const char *conf_main; /* -c */
	const char *conf_dir; /* --config-dir */
	struct tl_nl *nl; /* requests */
	struct tl_nl *mon; /* monitor notifications */
	int64_t next_nl_open_ms;
	bool nl_missing_logged;
	struct tierd_dev *devs;
	size_t nr_devs;
};

/* ---- replace.c ---- */
/*
 * replace_tier of @cd: start "tierctl replace-tier NAME TIER DEV" in a
 * child unless one runs for @d; a failure to start sets @d->failed.
 */
void tierd_replace_start(struct tierd *td, struct tierd_dev *d,
			 const struct tl_conf_dev *cd);
/*
 * Reap the replace-tier children that ended, logging their output (a
 * failure sets the device's failed). Return: whether one still runs.
 */
bool tierd_replace_reap(struct tierd *td);

struct tierd_dev *tierd_dev_get(struct tierd *td, const char *name);
void tierd_dev_forget(struct tierd_dev *d);
/*
 * Note geometry and uuid of a dev-get reply or notification, and follow
 * its tier list: recovery attempts go with their tier's device
 * (tl_recover_rekey()); those whose device left the list end, and an
 * NVMe-oF tier that is not ok then gets attempts of its own (a re-bind
 * made by someone else gave it another device).
 */
void tierd_dev_update(struct tierd_dev *d, const struct tl_nl_dev *nd);
/* Policy, then pins and checkpoints from scratch (start, dev-new, reload). */
void tierd_apply_device(struct tierd *td, struct tierd_dev *d);
/* Pins and checkpoint retention, sending only what changed. */
void tierd_reconcile(struct tierd *td, struct tierd_dev *d);
/* Send queued requests that are due; earliest retry in *next_ms. */
void tierd_run_ops(struct tierd *td, struct tierd_dev *d);
/* A migration-done event: the outcome of one of tierd's moves (by id). */
void tierd_move_done(struct tierd *td, struct tierd_dev *d,
		     const struct tl_nl_dev *ev);
/* A tier-error event: start reconnecting an nvmf tier. */
void tierd_tier_error(struct tierd *td, struct tierd_dev *d,
		      const struct tl_nl_dev *ev);
/* A device listed (start, rescan): start recovering each NVMe-oF tier
 * that is not ok (its tier-error came before tierd, or was lost). The
 * attempts are made later, by tierd_run_recover(). */
void tierd_check_tiers(struct tierd_dev *d, const struct tl_nl_dev *nd);
/* Reconnect attempts that are due. */
void tierd_run_recover(struct tierd *td, struct tierd_dev *d);

/* ---- metrics.c ---- */
/* Write the textfile atomically (tmp + rename). */
int tierd_metrics_write_textfile(struct tierd *td, const char *path);

#endif /* DM_TIER_TIERD_H */
