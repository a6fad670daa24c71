// SPDX-License-Identifier: GPL-2.0
/* tierd's configuration files: parsing, merging, checks (see tl-conf.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <linux/dm-tier.h>

#include "format.h"
#include "health.h"
#include "policy.h"
#include "table.h"
#include "tl-conf.h"

#define CONF_FILE_MAX (1 << 20) /* a policy file is a few lines */

const char *const tl_conf_policy_names[TL_NL_POLICY_N] = {
	[DM_TIER_A_POLICY_AUTO_MIGRATE - 1] = "auto_migrate",
	[DM_TIER_A_POLICY_HIGH_WATERMARK - 1] = "high_watermark",
	[DM_TIER_A_POLICY_LOW_WATERMARK - 1] = "low_watermark",
	[DM_TIER_A_POLICY_DEMOTE_AGE - 1] = "demote_age",
	[DM_TIER_A_POLICY_DRAIN_DEADLINE - 1] = "drain_deadline",
	[DM_TIER_A_POLICY_PROMOTE_HITS - 1] = "promote_hits",
	[DM_TIER_A_POLICY_PROMOTE_WINDOW - 1] = "promote_window",
	[DM_TIER_A_POLICY_MIGRATION_BANDWIDTH - 1] = "migration_bandwidth",
	[DM_TIER_A_POLICY_MIGRATION_INFLIGHT - 1] = "migration_inflight",
	[DM_TIER_A_POLICY_REDIRECT_WRITES - 1] = "redirect_writes",
	[DM_TIER_A_POLICY_MEM_PROMOTE_HITS - 1] = "mem_promote_hits",
	[DM_TIER_A_POLICY_MEM_SIZE_MB - 1] = "mem_size_mb",
	[DM_TIER_A_POLICY_OFFLINE_QUEUE_S - 1] = "offline_queue_s",
};
static_assert(DM_TIER_A_POLICY_MAX == TL_NL_POLICY_N,
	      "a policy attribute without a config key");

/*
 * The ranges of kernel/core/table.c's key table, for messages; the value
 * itself is also run through tier_table_set_opt() so that the two can never
 * disagree silently (test_tierd_conf checks every boundary).
 */
static const uint32_t policy_range[TL_NL_POLICY_N][2] = {
	[DM_TIER_A_POLICY_AUTO_MIGRATE - 1] = { 0, 1 },
	[DM_TIER_A_POLICY_HIGH_WATERMARK - 1] = { 1, 100 },
	[DM_TIER_A_POLICY_LOW_WATERMARK - 1] = { 0, 99 },
	[DM_TIER_A_POLICY_DEMOTE_AGE - 1] = { 0, TIER_DEMOTE_AGE_MAX },
	[DM_TIER_A_POLICY_DRAIN_DEADLINE - 1] = { 0, TIER_DRAIN_DEADLINE_MAX },
	[DM_TIER_A_POLICY_PROMOTE_HITS - 1] = { 0, TIER_PROMOTE_HITS_MAX },
	[DM_TIER_A_POLICY_PROMOTE_WINDOW - 1] = { 1, TIER_PROMOTE_WINDOW_MAX },
	[DM_TIER_A_POLICY_MIGRATION_BANDWIDTH - 1] = { 0,
						       TIER_MIG_BANDWIDTH_MAX },
	[DM_TIER_A_POLICY_MIGRATION_INFLIGHT - 1] = { 1,
						      TIER_MIG_INFLIGHT_MAX },
	[DM_TIER_A_POLICY_REDIRECT_WRITES - 1] = { 0, 1 },
	[DM_TIER_A_POLICY_MEM_PROMOTE_HITS - 1] = { 1, TL_MEM_PROMOTE_HITS_MAX },
	[DM_TIER_A_POLICY_MEM_SIZE_MB - 1] = { 1, TL_MEM_SIZE_MB_MAX },
	[DM_TIER_A_POLICY_OFFLINE_QUEUE_S - 1] = { 0, TIER_OFFQ_S_MAX },
};

/* The memory tier keys: judged by the kernel against the live table (a
 * device without a memory tier refuses them), not by tier_table_set_opt(). */
static bool policy_key_is_mem(int idx)
{
	return idx == DM_TIER_A_POLICY_MEM_PROMOTE_HITS - 1 ||
	       idx == DM_TIER_A_POLICY_MEM_SIZE_MB - 1;
}

#define POLICY_IDX(attr) ((attr)-1)

void tl_conf_policy_range(int idx, uint32_t *min, uint32_t *max)
{
	*min = policy_range[idx][0];
	*max = policy_range[idx][1];
}

int tl_conf_policy_key(const char *key)
{
	char norm[64];
	size_t i;
	int k;

	if (strlen(key) >= sizeof(norm))
		return -1;
	for (i = 0; key[i]; i++)
		norm[i] = key[i] == '-' ? '_' : key[i];
	norm[i] = '\0';
	for (k = 0; k < TL_NL_POLICY_N; k++) {
		if (!strcmp(norm, tl_conf_policy_names[k]))
			return k;
	}
	return -1;
}

/* ---- errors --------------------------------------------------------------- */

static void conf_add_error(struct tl_conf_errors *e, char *line)
{
	char **lines;

	if (!line)
		goto oom;
	lines = realloc(e->lines, (e->nr + 1) * sizeof(*lines));
	if (!lines) {
		free(line);
		goto oom;
	}
	e->lines = lines;
	e->lines[e->nr++] = line;
	return;
oom:
	/* Still count it: a config is only used with zero errors. */
	lines = realloc(e->lines, (e->nr + 1) * sizeof(*lines));
	if (lines) {
		e->lines = lines;
		e->lines[e->nr++] = NULL;
	}
}

/* "FILE:LINE: message" (LINE 0: "FILE: message"). */
__attribute__((format(printf, 4, 5))) static int
conf_error(struct tl_conf_errors *e, const char *file, unsigned int line,
	   const char *fmt, ...)
{
	char *msg = NULL, *out = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (msg) {
		if ((line ? asprintf(&out, "%s:%u: %s", file, line, msg) :
			    asprintf(&out, "%s: %s", file, msg)) < 0)
			out = NULL;
		free(msg);
	}
	conf_add_error(e, out);
	return 1;
}

void tl_conf_errors_free(struct tl_conf_errors *e)
{
	size_t i;

	for (i = 0; i < e->nr; i++)
		free(e->lines[i]);
	free(e->lines);
	e->lines = NULL;
	e->nr = 0;
}

/* ---- the structure -------------------------------------------------------- */

void tl_conf_init(struct tl_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->metrics_interval = TL_CONF_INTERVAL_DEF;
}

static void conf_dev_free(struct tl_conf_dev *d)
{
	size_t i;

	for (i = 0; i < d->nr_pins; i++)
		free(d->pins[i].path);
	free(d->pins);
	free(d->checkpoint_dir);
	free(d->replace_dev);
}

void tl_conf_free(struct tl_conf *c)
{
	size_t i;

	for (i = 0; i < c->nr_devs; i++)
		conf_dev_free(&c->devs[i]);
	free(c->devs);
	for (i = 0; i < c->nr_files; i++)
		free(c->files[i]);
	free(c->files);
	free(c->metrics_textfile);
	tl_conf_init(c);
}

const struct tl_conf_dev *tl_conf_dev_find(const struct tl_conf *c,
					   const char *name)
{
	size_t i;

	for (i = 0; i < c->nr_devs; i++) {
		if (!strcmp(c->devs[i].name, name))
			return &c->devs[i];
	}
	return NULL;
}

/* The device section @name, created on first use; NULL without memory. */
static struct tl_conf_dev *conf_dev_get(struct tl_conf *c, const char *name)
{
	struct tl_conf_dev *devs;
	size_t i;

	for (i = 0; i < c->nr_devs; i++) {
		if (!strcmp(c->devs[i].name, name))
			return &c->devs[i];
	}
	devs = realloc(c->devs, (c->nr_devs + 1) * sizeof(*devs));
	if (!devs)
		return NULL;
	c->devs = devs;
	memset(&devs[c->nr_devs], 0, sizeof(devs[0]));
	snprintf(devs[c->nr_devs].name, sizeof(devs[0].name), "%s", name);
	return &devs[c->nr_devs++];
}

static const char *conf_intern_file(struct tl_conf *c, const char *file)
{
	char **files, *copy;
	size_t i;

	for (i = 0; i < c->nr_files; i++) {
		if (!strcmp(c->files[i], file))
			return c->files[i];
	}
	copy = strdup(file);
	files = realloc(c->files, (c->nr_files + 1) * sizeof(*files));
	if (!copy || !files) {
		free(copy);
		if (files)
			c->files = files;
		return NULL;
	}
	c->files = files;
	c->files[c->nr_files++] = copy;
	return copy;
}

/* ---- values --------------------------------------------------------------- */

/* Plain decimal u32 as the kernel's table takes it: digits only. */
static int parse_u32(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -ERANGE;
	}
	*out = (uint32_t)v;
	return 0;
}

static bool has_blank(const char *s)
{
	for (; *s; s++) {
		if (isspace((unsigned char)*s))
			return true;
	}
	return false;
}

/* ---- the parser ----------------------------------------------------------- */

enum conf_section { SEC_NONE, SEC_BAD, SEC_GLOBAL, SEC_DEVICE };

struct conf_parse {
	struct tl_conf *c;
	struct tl_conf_errors *errs;
	const char *file;
	unsigned int line;
	unsigned int text;
	enum conf_section sec;
	size_t dev; /* index into c->devs in SEC_DEVICE */
	int nerr;
	/* Global keys set by this text, for duplicate detection. */
	unsigned int textfile_line, interval_line;
};

__attribute__((format(printf, 2, 3))) static void perr(struct conf_parse *p,
						       const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	conf_error(p->errs, p->file, p->line, "%s",
		   msg ? msg : "(out of memory formatting the message)");
	free(msg);
	p->nerr++;
}

static struct tl_conf_origin porigin(const struct conf_parse *p)
{
	return (struct tl_conf_origin){ p->file, p->line, p->text };
}

/* A key set twice in one file is most likely a mistake; across files it is
 * the documented override. */
static bool dup_in_text(struct conf_parse *p, const char *key,
			const struct tl_conf_origin *prev)
{
	if (prev->line && prev->text == p->text) {
		perr(p,
		     "%s is already set on line %u of this file (keep one of them)",
		     key, prev->line);
		return true;
	}
	return false;
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static void parse_section(struct conf_parse *p, char *s)
{
	char *end = strchr(s, ']'), *body, *word, *name;
	struct tl_conf_dev *d;

	p->sec = SEC_BAD; /* keys under a bad header are not reported again */
	if (!end || *trim(end + 1)) {
		perr(p,
		     "malformed section header (write [global] or [device NAME])");
		return;
	}
	*end = '\0';
	body = trim(s + 1);
	if (!strcmp(body, "global")) {
		p->sec = SEC_GLOBAL;
		return;
	}
	word = body;
	while (*body && !isspace((unsigned char)*body))
		body++;
	if (*body)
		*body++ = '\0';
	name = trim(body);
	if (strcmp(word, "device")) {
		perr(p,
		     "unknown section [%s%s%s] (sections are [global] and [device NAME])",
		     word, *name ? " " : "", name);
		return;
	}
	if (!*name) {
		perr(p,
		     "[device] without a name (write [device NAME], NAME as in dmsetup ls)");
		return;
	}
	if (has_blank(name) || strchr(name, '/') ||
	    strlen(name) > TL_CONF_NAME_MAX) {
		perr(p,
		     "'%s' is not a device-mapper name (one word without '/', at most %d characters)",
		     name, TL_CONF_NAME_MAX);
		return;
	}
	d = conf_dev_get(p->c, name);
	if (!d) {
		perr(p, "out of memory");
		return;
	}
	p->sec = SEC_DEVICE;
	p->dev = (size_t)(d - p->c->devs);
}

static bool is_device_key(const char *key)
{
	return tl_conf_policy_key(key) >= 0 || !strcmp(key, "pin") ||
	       !strcmp(key, "checkpoint_dir") ||
	       !strcmp(key, "checkpoint_keep") || !strcmp(key, "replace_tier");
}

static bool is_global_key(const char *key)
{
	return !strcmp(key, "metrics_textfile") ||
	       !strcmp(key, "metrics_interval");
}

static bool check_abs_path(struct conf_parse *p, const char *key, const char *v)
{
	if (v[0] != '/') {
		perr(p,
		     "%s '%s' is not an absolute path (write the full path, starting with '/')",
		     key, v);
		return false;
	}
	return true;
}

static void set_global_line(struct conf_parse *p, unsigned int *line,
			    const char *key, bool *dup)
{
	*dup = false;
	if (*line) {
		perr(p,
		     "%s is already set on line %u of this file (keep one of them)",
		     key, *line);
		*dup = true;
		return;
	}
	*line = p->line;
}

static void parse_global_kv(struct conf_parse *p, const char *key,
			    const char *v)
{
	struct tl_conf *c = p->c;
	uint32_t n;
	bool dup;
	int ret;

	if (!strcmp(key, "metrics_textfile")) {
		set_global_line(p, &p->textfile_line, key, &dup);
		if (dup || !check_abs_path(p, key, v))
			return;
		free(c->metrics_textfile);
		c->metrics_textfile = strdup(v);
		if (!c->metrics_textfile)
			perr(p, "out of memory");
	} else if (!strcmp(key, "metrics_interval")) {
		set_global_line(p, &p->interval_line, key, &dup);
		if (dup)
			return;
		ret = parse_u32(v, &n);
		if (ret == -EINVAL)
			perr(p,
			     "metrics_interval = %s: not a number (write whole seconds, 1 to %u)",
			     v, TL_CONF_INTERVAL_MAX);
		else if (ret || n < 1 || n > TL_CONF_INTERVAL_MAX)
			perr(p,
			     "metrics_interval = %s: out of range (use 1 to %u seconds)",
			     v, TL_CONF_INTERVAL_MAX);
		else
			c->metrics_interval = n;
	} else if (is_device_key(key)) {
		perr(p,
		     "%s belongs in a [device NAME] section, not in [global] (move it)",
		     key);
	} else {
		perr(p,
		     "unknown key '%s' in [global] (known: metrics_textfile, metrics_interval)",
		     key);
	}
}

static void parse_policy_kv(struct conf_parse *p, struct tl_conf_dev *d,
			    int idx, const char *v)
{
	const char *key = tl_conf_policy_names[idx], *kerr = NULL;
	struct tier_table t;
	uint32_t n, min, max;
	int ret;

	if (dup_in_text(p, key, &d->policy_at[idx]))
		return;
	tl_conf_policy_range(idx, &min, &max);
	ret = parse_u32(v, &n);
	if (ret == -EINVAL) {
		perr(p,
		     "%s = %s: not a number (write a plain decimal number from %u to %u)",
		     key, v, min, max);
		return;
	}
	if (ret || n < min || n > max) {
		perr(p, "%s = %s: out of range (use %u to %u)", key, v, min,
		     max);
		return;
	}
	/* The kernel's own check, on a table whose other watermark leaves
	 * room, so that only this value's range is judged here; the
	 * cross-check waits for tl_conf_finish() and the kernel. */
	tier_table_init(&t);
	t.policy.low_watermark = 0;
	t.policy.high_watermark = 100;
	if (!policy_key_is_mem(idx) && tier_table_set_opt(&t, key, v, &kerr)) {
		perr(p,
		     "%s = %s: refused by the table rules: %s (see docs/ARCHITECTURE.md, the table line)",
		     key, v, kerr ? kerr : "?");
		return;
	}
	d->policy.set |= 1U << idx;
	d->policy.v[idx] = n;
	d->policy_at[idx] = porigin(p);
}

static void parse_pin(struct conf_parse *p, struct tl_conf_dev *d, char *v)
{
	char *path = v, *word, *save = NULL;
	struct tl_conf_pin *pins, *pin = NULL;
	uint32_t tier;
	int target = -1;
	size_t i;

	path = strtok_r(v, " \t", &save);
	if (!path || !check_abs_path(p, "pin", path))
		return;
	while ((word = strtok_r(NULL, " \t", &save))) {
		if (strncmp(word, "tier=", 5)) {
			perr(p,
			     "pin %s: unexpected '%s' after the path (only tier=N or tier=mem may follow; paths cannot contain blanks)",
			     path, word);
			return;
		}
		if (!strcmp(word + 5, "mem")) {
			target = TL_CONF_TIER_MEM;
			continue;
		}
		if (parse_u32(word + 5, &tier)) {
			perr(p,
			     "pin %s: %s is not a number (write tier=0 for the fastest tier, tier=mem for the memory tier)",
			     path, word);
			return;
		}
		if (tier >= TIER_MAX_TIERS) {
			perr(p,
			     "pin %s: %s is out of range (tiers are numbered 0 to %d, fastest first)",
			     path, word, TIER_MAX_TIERS - 1);
			return;
		}
		target = (int)tier;
	}
	for (i = 0; i < d->nr_pins; i++) {
		if (strcmp(d->pins[i].path, path))
			continue;
		if (dup_in_text(p, "pin of the same path", &d->pins[i].at))
			return;
		pin = &d->pins[i]; /* a later file changes the tier */
		break;
	}
	if (!pin) {
		pins = realloc(d->pins, (d->nr_pins + 1) * sizeof(*pins));
		if (!pins) {
			perr(p, "out of memory");
			return;
		}
		d->pins = pins;
		pin = &pins[d->nr_pins];
		pin->path = strdup(path);
		if (!pin->path) {
			perr(p, "out of memory");
			return;
		}
		d->nr_pins++;
	}
	pin->tier = target;
	pin->at = porigin(p);
}

/* "replace_tier = TIER /abs/dev": one per device. */
static void parse_replace(struct conf_parse *p, struct tl_conf_dev *d, char *v)
{
	char *sp = v + strcspn(v, " \t"), *dev;
	uint32_t n;

	if (dup_in_text(p, "replace_tier", &d->replace_at))
		return;
	dev = sp + strspn(sp, " \t");
	if (!*sp || !*dev) {
		perr(p,
		     "replace_tier = %s: write the tier and the new device, e.g. replace_tier = 1 /dev/disk/by-id/nvme-NEW",
		     v);
		return;
	}
	*sp = '\0';
	if (parse_u32(v, &n) || n >= TIER_MAX_TIERS) {
		perr(p, "replace_tier = %s ...: the tier is a number, 0 to %d",
		     v, TIER_MAX_TIERS - 1);
		return;
	}
	if (dev[strcspn(dev, " \t")]) {
		perr(p,
		     "replace_tier = %s %s: one device only (a path without spaces)",
		     v, dev);
		return;
	}
	if (!check_abs_path(p, "replace_tier", dev))
		return;
	free(d->replace_dev);
	d->replace_dev = strdup(dev);
	if (!d->replace_dev) {
		perr(p, "out of memory");
		return;
	}
	d->replace_tier = n;
	d->replace_at = porigin(p);
}

static void parse_device_kv(struct conf_parse *p, const char *key, char *v)
{
	struct tl_conf_dev *d = &p->c->devs[p->dev];
	uint32_t n;
	int idx = tl_conf_policy_key(key), ret;

	if (idx >= 0) {
		parse_policy_kv(p, d, idx, v);
	} else if (!strcmp(key, "pin")) {
		parse_pin(p, d, v);
	} else if (!strcmp(key, "checkpoint_dir")) {
		if (dup_in_text(p, key, &d->checkpoint_dir_at) ||
		    !check_abs_path(p, key, v))
			return;
		free(d->checkpoint_dir);
		d->checkpoint_dir = strdup(v);
		if (!d->checkpoint_dir) {
			perr(p, "out of memory");
			return;
		}
		d->checkpoint_dir_at = porigin(p);
	} else if (!strcmp(key, "checkpoint_keep")) {
		if (dup_in_text(p, key, &d->checkpoint_keep_at))
			return;
		ret = parse_u32(v, &n);
		if (ret == -EINVAL) {
			perr(p,
			     "checkpoint_keep = %s: not a number (write how many of the newest checkpoints stay on tier 0, 0 to %u)",
			     v, TL_CONF_KEEP_MAX);
			return;
		}
		if (ret || n > TL_CONF_KEEP_MAX) {
			perr(p,
			     "checkpoint_keep = %s: out of range (use 0 to %u)",
			     v, TL_CONF_KEEP_MAX);
			return;
		}
		d->checkpoint_keep = n;
		d->has_checkpoint_keep = true;
		d->checkpoint_keep_at = porigin(p);
	} else if (!strcmp(key, "replace_tier")) {
		parse_replace(p, d, v);
	} else if (is_global_key(key)) {
		perr(p,
		     "%s belongs in the [global] section, not in [device %s] (move it)",
		     key, d->name);
	} else {
		perr(p,
		     "unknown key '%s' in [device %s] (known: the migration settings auto_migrate ... redirect_writes, mem_promote_hits, mem_size_mb, offline_queue_s, pin, checkpoint_dir, checkpoint_keep, replace_tier; see docs/tierd.md)",
		     key, d->name);
	}
}

static void parse_line(struct conf_parse *p, char *raw)
{
	char *s = raw, *eq, *key, *v, *hash;

	/* A '#' or ';' starts a comment at the start of a line; '#' also
	 * after a blank, so that values may contain '#' otherwise. */
	s = trim(s);
	if (!*s || *s == '#' || *s == ';')
		return;
	for (hash = s + 1; (hash = strchr(hash, '#')); hash++) {
		if (isspace((unsigned char)hash[-1])) {
			*hash = '\0';
			s = trim(s);
			break;
		}
	}
	if (*s == '[') {
		parse_section(p, s);
		return;
	}
	eq = strchr(s, '=');
	if (!eq) {
		perr(p, "missing '=' in '%s' (write KEY = VALUE)", s);
		return;
	}
	*eq = '\0';
	key = trim(s);
	v = trim(eq + 1);
	if (!*key) {
		perr(p, "a value without a key (write KEY = VALUE)");
		return;
	}
	/* Whatever its value or section: say what replaces it. */
	if (!strcmp(key, "metrics_listen")) {
		perr(p, "%s", TL_CONF_LISTEN_REMOVED);
		return;
	}
	if (!*v) {
		perr(p,
		     "%s has no value (write %s = VALUE, or remove the line)",
		     key, key);
		return;
	}
	switch (p->sec) {
	case SEC_NONE:
		perr(p,
		     "%s outside a section (put it under [global] or [device NAME])",
		     key);
		break;
	case SEC_BAD:
		break;
	case SEC_GLOBAL:
		parse_global_kv(p, key, v);
		break;
	case SEC_DEVICE:
		parse_device_kv(p, key, v);
		break;
	}
}

int tl_conf_parse_text(struct tl_conf *c, const char *file, const char *text,
		       struct tl_conf_errors *errs)
{
	struct conf_parse p = { .c = c, .errs = errs, .sec = SEC_NONE };
	const char *s = text, *nl;
	char *line;
	size_t len;

	p.file = conf_intern_file(c, file);
	if (!p.file)
		return conf_error(errs, file, 0, "out of memory");
	p.text = ++c->nr_texts;
	while (*s) {
		p.line++;
		nl = strchr(s, '\n');
		len = nl ? (size_t)(nl - s) : strlen(s);
		line = strndup(s, len);
		if (!line) {
			perr(&p, "out of memory");
			break;
		}
		if (len && line[len - 1] == '\r')
			line[len - 1] = '\0';
		parse_line(&p, line);
		free(line);
		if (!nl)
			break;
		s = nl + 1;
	}
	return p.nerr;
}

int tl_conf_finish(struct tl_conf *c, struct tl_conf_errors *errs)
{
	const int hi = POLICY_IDX(DM_TIER_A_POLICY_HIGH_WATERMARK);
	const int lo = POLICY_IDX(DM_TIER_A_POLICY_LOW_WATERMARK);
	const struct tl_conf_origin *at, *other;
	char elsewhere[512];
	struct tl_conf_dev *d;
	int nerr = 0;
	size_t i;

	for (i = 0; i < c->nr_devs; i++) {
		d = &c->devs[i];
		if (d->has_checkpoint_keep && !d->checkpoint_dir) {
			at = &d->checkpoint_keep_at;
			nerr += conf_error(
				errs, at->file, at->line,
				"checkpoint_keep without checkpoint_dir for device %s (add checkpoint_dir = DIR, or remove checkpoint_keep)",
				d->name);
		}
		if ((d->policy.set & (1U << hi)) &&
		    (d->policy.set & (1U << lo)) &&
		    d->policy.v[lo] >= d->policy.v[hi]) {
			/* Point at whichever line came last (that one broke
			 * it) and name the other when it is in another file. */
			at = &d->policy_at[lo];
			other = &d->policy_at[hi];
			if (other->text > at->text ||
			    (other->text == at->text &&
			     other->line > at->line)) {
				at = &d->policy_at[hi];
				other = &d->policy_at[lo];
			}
			if (other->file != at->file)
				snprintf(elsewhere, sizeof(elsewhere),
					 "%s is set at %s:%u; ",
					 at == &d->policy_at[hi] ?
						 "low_watermark" :
						 "high_watermark",
					 other->file, other->line);
			else
				elsewhere[0] = '\0';
			nerr += conf_error(
				errs, at->file, at->line,
				"low_watermark %u is not below high_watermark %u for device %s (%slower low_watermark or raise high_watermark)",
				d->policy.v[lo], d->policy.v[hi], d->name,
				elsewhere);
		}
	}
	return nerr;
}

/* ---- files ---------------------------------------------------------------- */

/* Parse one file; a missing file is fine when !@must_exist. */
static int conf_load_file(struct tl_conf *c, const char *path, bool must_exist,
			  struct tl_conf_errors *errs)
{
	char *text;
	size_t len = 0;
	FILE *f;
	int nerr;

	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT && !must_exist)
			return 0;
		return conf_error(
			errs, path, 0,
			"cannot open: %s (check the path and permissions)",
			strerror(errno));
	}
	text = malloc(CONF_FILE_MAX + 1);
	if (!text) {
		fclose(f);
		return conf_error(errs, path, 0, "out of memory");
	}
	len = fread(text, 1, CONF_FILE_MAX + 1, f);
	if (ferror(f)) {
		nerr = conf_error(errs, path, 0, "read error: %s",
				  strerror(errno));
		goto out;
	}
	if (len > CONF_FILE_MAX) {
		nerr = conf_error(
			errs, path, 0,
			"larger than %d bytes (is this really a policy file?)",
			CONF_FILE_MAX);
		goto out;
	}
	text[len] = '\0';
	if (strlen(text) != len) {
		nerr = conf_error(
			errs, path, 0,
			"contains NUL bytes (is this really a policy file?)");
		goto out;
	}
	nerr = tl_conf_parse_text(c, path, text, errs);
out:
	free(text);
	fclose(f);
	return nerr;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_conf_name(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 5 && !strcmp(name + len - 5, ".conf");
}

int tl_conf_load(struct tl_conf *c, const char *main_file, const char *dir,
		 struct tl_conf_errors *errs)
{
	char *path = NULL, *pdir = NULL, **names = NULL, **more;
	size_t nr = 0, i;
	struct dirent *de;
	struct stat st;
	int nerr = 0;
	DIR *dh;

	if (!dir)
		dir = TL_CONF_DEFAULT_DIR;
	if (main_file) {
		nerr += conf_load_file(c, main_file, true, errs);
	} else {
		if (asprintf(&path, "%s/%s", dir, TL_CONF_MAIN_NAME) < 0)
			return conf_error(errs, dir, 0, "out of memory");
		nerr += conf_load_file(c, path, false, errs);
		free(path);
	}
	if (asprintf(&pdir, "%s/%s", dir, TL_CONF_POLICY_SUBDIR) < 0)
		return nerr + conf_error(errs, dir, 0, "out of memory");
	dh = opendir(pdir);
	if (!dh) {
		if (errno != ENOENT)
			nerr += conf_error(
				errs, pdir, 0,
				"cannot read the directory: %s (check its permissions)",
				strerror(errno));
		goto finish;
	}
	while ((de = readdir(dh))) {
		if (!is_conf_name(de->d_name))
			continue;
		if (asprintf(&path, "%s/%s", pdir, de->d_name) < 0) {
			nerr += conf_error(errs, pdir, 0, "out of memory");
			break;
		}
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		more = realloc(names, (nr + 1) * sizeof(*names));
		if (!more) {
			free(path);
			nerr += conf_error(errs, pdir, 0, "out of memory");
			break;
		}
		names = more;
		names[nr++] = path;
	}
	closedir(dh);
	if (nr)
		qsort(names, nr, sizeof(*names), cmp_str);
	for (i = 0; i < nr; i++) {
		nerr += conf_load_file(c, names[i], true, errs);
		free(names[i]);
	}
	free(names);
finish:
	free(pdir);
	return nerr + tl_conf_finish(c, errs);
}
