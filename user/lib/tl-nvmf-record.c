// SPDX-License-Identifier: GPL-2.0
/*
 * libtier: the record of NVMe-oF connections, nvmf.conf in the state
 * directory, that `tierctl activate` replays (see tl-nvmf-record.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "tl-nvmf-connect.h"
#include "tl-nvmf-record.h"
#include "tl-state.h"

#define NVMF_RECORD_NAME "nvmf.conf"

const char *tl_nvmf_record_path(void)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" NVMF_RECORD_NAME, tl_state_dir());
	return path;
}

int tl_nvmf_record_format_line(const struct tl_nvmf_entry *e, char *buf,
			       size_t len)
{
	char uri[512];

	tl_nvmf_format_uri(&e->uri, uri, sizeof(uri));
	return snprintf(buf, len,
			"%s ctrl_loss_tmo=%d reconnect_delay=%d fast_io_fail_tmo=%d",
			uri, e->opts.ctrl_loss_tmo, e->opts.reconnect_delay,
			e->opts.fast_io_fail_tmo);
}

int tl_nvmf_record_parse_line(const char *line, struct tl_nvmf_entry *e,
			      struct tl_err *err)
{
	char *copy, *word, *save = NULL;
	bool have_uri = false, seen_tmo = false, seen_delay = false;
	bool seen_fail = false;
	int ret = TL_OK;

	memset(e, 0, sizeof(*e));
	tl_nvmf_opts_default(&e->opts);
	line += strspn(line, " \t");
	if (!*line || *line == '#' || *line == '\n')
		return 1;
	copy = strdup(line);
	if (!copy)
		return tl_fail(err, TL_FAIL, "out of memory");
	for (word = strtok_r(copy, " \t\r\n", &save); word && !ret;
	     word = strtok_r(NULL, " \t\r\n", &save)) {
		if (!have_uri) {
			ret = tl_nvmf_parse_uri(word, &e->uri, err);
			have_uri = true;
		} else if (!strncmp(word, "ctrl_loss_tmo=", 14) && !seen_tmo) {
			ret = tl_nvmf_parse_seconds("ctrl_loss_tmo", word + 14, -1,
					    &e->opts.ctrl_loss_tmo, err);
			seen_tmo = true;
		} else if (!strncmp(word, "reconnect_delay=", 16) && !seen_delay) {
			ret = tl_nvmf_parse_seconds("reconnect_delay", word + 16, 1,
					    &e->opts.reconnect_delay, err);
			seen_delay = true;
		} else if (!strncmp(word, "fast_io_fail_tmo=", 17) && !seen_fail) {
			/* Absent in older records: the default (5 s). */
			ret = tl_nvmf_parse_fail_seconds("fast_io_fail_tmo",
							 word + 17,
							 &e->opts.fast_io_fail_tmo,
							 err);
			seen_fail = true;
		} else {
			ret = tl_fail(err, TL_USAGE,
				      "unexpected '%s'; a line is 'URI [ctrl_loss_tmo=N] [reconnect_delay=N] [fast_io_fail_tmo=N]', each option once",
				      word);
		}
	}
	free(copy);
	return ret ? TL_USAGE : TL_OK;
}

int tl_nvmf_record_load(struct tl_nvmf_record *rec, struct tl_err *err)
{
	const char *path = tl_nvmf_record_path();
	struct tl_nvmf_entry e, *ne;
	char **lines;
	size_t nr, i;
	int ret;

	memset(rec, 0, sizeof(*rec));
	ret = tl_state_read_lines(path, &lines, &nr, err);
	if (ret)
		return ret;
	for (i = 0; i < nr; i++) {
		struct tl_err why = { "" };

		ret = tl_nvmf_record_parse_line(lines[i], &e, &why);
		if (ret == 1)
			continue;
		if (ret) {
			rec->nr_bad++;
			tl_err_append(err, "%s:%zu: %s", path, i + 1, why.msg);
			continue;
		}
		ne = realloc(rec->entry, (rec->nr + 1) * sizeof(*ne));
		if (!ne) {
			tl_state_free_lines(lines, nr);
			tl_nvmf_record_free(rec);
			return tl_fail(err, TL_FAIL, "out of memory reading %s", path);
		}
		rec->entry = ne;
		rec->entry[rec->nr++] = e;
	}
	tl_state_free_lines(lines, nr);
	return TL_OK;
}

void tl_nvmf_record_free(struct tl_nvmf_record *rec)
{
	free(rec->entry);
	memset(rec, 0, sizeof(*rec));
}

#define RECORD_HEADER \
	"# dm-tier NVMe-oF connections, connected again by 'tierctl activate'.\n" \
	"# One per line: nvmf://TRANSPORT/ADDR:PORT/SUBSYSNQN [ctrl_loss_tmo=N] [reconnect_delay=N] [fast_io_fail_tmo=N]"

/* A record line names @arg's target (tl_state_update()'s match). */
static bool record_line_is_target(const char *line, void *arg)
{
	struct tl_nvmf_entry e;

	return tl_nvmf_record_parse_line(line, &e, NULL) == TL_OK &&
	       tl_nvmf_same_target(&e.uri, arg);
}

/*
 * Read the record under a lock, drop the lines for @u's target, add
 * @add (if not NULL) where the first of them was (or at the end), write it
 * back atomically. Comments and malformed lines are kept as they are.
 */
static int record_update(const struct tl_nvmf_uri *u,
			 const struct tl_nvmf_entry *add, struct tl_err *err)
{
	char newline[1024];

	if (add)
		tl_nvmf_record_format_line(add, newline, sizeof(newline));
	return tl_state_update(tl_nvmf_record_path(), RECORD_HEADER,
			       add ? newline : NULL, record_line_is_target,
			       (void *)u, err);
}

int tl_nvmf_record_add(const struct tl_nvmf_uri *u,
		       const struct tl_nvmf_opts *o, struct tl_err *err)
{
	struct tl_nvmf_entry e = { .uri = *u, .opts = *o };

	return record_update(u, &e, err);
}

int tl_nvmf_record_del(const struct tl_nvmf_uri *u, struct tl_err *err)
{
	return record_update(u, NULL, err);
}

int tl_nvmf_connect_recorded(struct tl_err *err)
{
	struct tl_nvmf_record rec;
	char dev[64];
	size_t i;
	int failed;

	if (tl_nvmf_record_load(&rec, err))
		return 1;
	failed = rec.nr_bad;
	for (i = 0; i < rec.nr; i++) {
		struct tl_err why = { "" };

		if (tl_nvmf_connect(&rec.entry[i].uri, &rec.entry[i].opts, dev,
				    sizeof(dev), &why)) {
			/* The reasons already name the URI. */
			tl_err_append(err, "%s", why.msg);
			failed++;
		}
	}
	tl_nvmf_record_free(&rec);
	return failed;
}
