/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-conf.h - tierd's configuration (docs/tierd.md): parsing and merging,
 * pure apart from reading the files.
 *
 * Files are read in order (the main file, then the *.conf files of
 * policies.d sorted by name);
 * a later file overrides keys an earlier one set, pins accumulate. Every
 * problem is collected as one line "FILE:LINE: what is wrong (what to do)";
 * a configuration with any problem must be rejected as a whole.
 *
 *   [global]
 *   metrics_textfile = /var/lib/prometheus/node-exporter/dm-tier.prom
 *   metrics_interval = 15
 *   [device NAME]
 *   <policy key> = <value>            (the 12 policy settings)
 *   pin = /abs/path [tier=N|tier=mem]
 *   checkpoint_dir = /abs/path
 *   checkpoint_keep = N
 *   replace_tier = TIER /abs/dev       (tierctl replace-tier NAME TIER DEV)
 */
#ifndef DM_TIER_TL_CONF_H
#define DM_TIER_TL_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl-nl.h"

#define TL_CONF_DEFAULT_DIR "/etc/dm-tier"
#define TL_CONF_MAIN_NAME "tierd.conf"
#define TL_CONF_POLICY_SUBDIR "policies.d"

#define TL_CONF_INTERVAL_DEF 15 /* metrics_interval, seconds */
#define TL_CONF_INTERVAL_MAX 86400
#define TL_CONF_KEEP_DEF 1 /* checkpoint_keep */
#define TL_CONF_KEEP_MAX 10000
#define TL_CONF_NAME_MAX 127 /* dm names, as DM_TIER_A_DEV_NAME */

/* The message for the key tierd's HTTP server had (docs/tierd.md, Metrics). */
#define TL_CONF_LISTEN_REMOVED                                               \
	"metrics_listen was removed in 0.2: write metrics_textfile = "       \
	"/var/lib/prometheus/node-exporter/dm-tier.prom and let "            \
	"node_exporter's textfile collector serve it"

/* Where a value came from, for messages that point at it. */
struct tl_conf_origin {
	const char *file; /* owned by struct tl_conf's file list */
	unsigned int line;
	unsigned int text; /* which tl_conf_parse_text() call, from 1 */
};

/* tl_conf_pin.tier of "tier=mem": the memory tier (index nr_tiers). */
#define TL_CONF_TIER_MEM (-2)

struct tl_conf_pin {
	char *path;
	int tier; /* -1: pin where the data is; TL_CONF_TIER_MEM */
	struct tl_conf_origin at;
};

struct tl_conf_dev {
	char name[TL_CONF_NAME_MAX + 1];
	struct tl_nl_policy policy; /* only the keys the files set */
	struct tl_conf_origin policy_at[TL_NL_POLICY_N];
	struct tl_conf_pin *pins;
	size_t nr_pins;
	char *checkpoint_dir; /* NULL: no retention */
	struct tl_conf_origin checkpoint_dir_at;
	uint32_t checkpoint_keep;
	bool has_checkpoint_keep;
	struct tl_conf_origin checkpoint_keep_at;
	/* replace_tier: NULL, or the device to put in place of tier
	 * replace_tier (tierd runs tierctl replace-tier until it is done). */
	char *replace_dev;
	uint32_t replace_tier;
	struct tl_conf_origin replace_at;
};

struct tl_conf {
	char *metrics_textfile; /* NULL: off */
	uint32_t metrics_interval;
	struct tl_conf_dev *devs;
	size_t nr_devs;
	char **files; /* the files read, for origins */
	size_t nr_files;
	unsigned int nr_texts; /* tl_conf_parse_text() calls so far */
};

/* Every problem found, one "FILE:LINE: ..." line each. */
struct tl_conf_errors {
	char **lines;
	size_t nr;
};

void tl_conf_init(struct tl_conf *c);
void tl_conf_free(struct tl_conf *c);
void tl_conf_errors_free(struct tl_conf_errors *e);

/*
 * Merge the text of one file into @c; @file names it in messages. Problems
 * are appended to @errs; returns how many this text had (0: fine).
 */
int tl_conf_parse_text(struct tl_conf *c, const char *file, const char *text,
		       struct tl_conf_errors *errs);

/*
 * Checks that need every file: checkpoint_keep without checkpoint_dir,
 * low_watermark not below high_watermark. Returns the number of problems.
 */
int tl_conf_finish(struct tl_conf *c, struct tl_conf_errors *errs);

/*
 * Read the configuration: @main_file (NULL: @dir/tierd.conf, which may be
 * missing) then @dir/policies.d/[*].conf in name order (@dir NULL: /etc/dm-tier;
 * a missing policies.d is fine), then tl_conf_finish(). An explicit
 * @main_file must exist. Returns the number of problems (0: @c is usable).
 */
int tl_conf_load(struct tl_conf *c, const char *main_file, const char *dir,
		 struct tl_conf_errors *errs);

/* The device section NAME, or NULL. */
const struct tl_conf_dev *tl_conf_dev_find(const struct tl_conf *c,
					   const char *name);

/* Index of a policy key (table spelling, '-' accepted for '_'), or -1. */
int tl_conf_policy_key(const char *key);
/* Key names in DM_TIER_A_POLICY_* order (same as tl_nl_policy_keys). */
extern const char *const tl_conf_policy_names[TL_NL_POLICY_N];
/* Range of a policy key, as the kernel's table accepts it. */
void tl_conf_policy_range(int idx, uint32_t *min, uint32_t *max);

#endif /* DM_TIER_TL_CONF_H */
