// SPDX-License-Identifier: GPL-2.0
/*
 * Applying the configuration to a device: its policy (one policy-set), its
 * pins and checkpoint retention (FIEMAP → pin/unpin/migrate requests; the
 * kernel queues the moves and ends each with a migration-done event that
 * carries its id, which tierd follows), and reconnecting NVMe-oF tiers after
 * a tier error.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tl-nvmf-record.h"
#include "tl-rebind.h"
#include "tl-recover.h"
#include "tierd.h"

/* A request refused with EBUSY (the kernel's move queue is full) is retried
 * every OP_RETRY_MS and given up after OP_MAX_TRIES (about 10 minutes);
 * other failures after OP_MAX_OTHER_TRIES. */
#define OP_RETRY_MS 2000
#define OP_MAX_TRIES 300
#define OP_MAX_OTHER_TRIES 5

struct tierd_dev *tierd_dev_get(struct tierd *td, const char *name)
{
	struct tierd_dev *devs;
	size_t i;

	for (i = 0; i < td->nr_devs; i++) {
		if (!strcmp(td->devs[i].name, name))
			return &td->devs[i];
	}
	devs = realloc(td->devs, (td->nr_devs + 1) * sizeof(*devs));
	if (!devs) {
		log_err("out of memory tracking device %s", name);
		return NULL;
	}
	td->devs = devs;
	memset(&devs[td->nr_devs], 0, sizeof(devs[0]));
	snprintf(devs[td->nr_devs].name, sizeof(devs[0].name), "%s", name);
	snprintf(devs[td->nr_devs].events.device, sizeof(devs[0].events.device),
		 "%s", name);
	return &devs[td->nr_devs++];
}

static void ops_clear(struct tierd_dev *d)
{
	size_t i;

	for (i = 0; i < d->nr_ops; i++)
		free(d->ops[i].place);
	free(d->ops);
	d->ops = NULL;
	d->nr_ops = 0;
	d->next_op_ms = 0;
}

static void moves_clear(struct tierd_dev *d)
{
	size_t i;

	for (i = 0; i < d->nr_moves; i++)
		free(d->moves[i].place);
	free(d->moves);
	d->moves = NULL;
	d->nr_moves = 0;
}

static void places_clear(struct tierd_dev *d)
{
	size_t i;

	for (i = 0; i < d->nr_places; i++)
		free(d->places[i].path);
	free(d->places);
	d->places = NULL;
	d->nr_places = 0;
}

/* The device is gone: what was queued or tracked for it no longer applies.
 * Event counters stay (they are counters). */
void tierd_dev_forget(struct tierd_dev *d)
{
	ops_clear(d);
	moves_clear(d);
	places_clear(d);
	memset(d->recover, 0, sizeof(d->recover));
	d->uuid[0] = '\0';
	d->present = false;
}

static void recover_follow(struct tierd_dev *d, const struct tl_nl_dev *nd);

void tierd_dev_update(struct tierd_dev *d, const struct tl_nl_dev *nd)
{
	if (nd->nr_tiers) {
		d->nr_tiers = nd->nr_tiers;
		d->has_mem = nd->mem.present;
		recover_follow(d, nd);
	}
	if (nd->extent_bytes)
		d->extent_bytes = nd->extent_bytes;
	if (nd->uuid[0])
		snprintf(d->uuid, sizeof(d->uuid), "%s", nd->uuid);
}

/* ---- policy --------------------------------------------------------------- */

static void policy_str(const struct tl_nl_policy *p, char *buf, size_t len)
{
	size_t at = 0;
	int i, n;

	buf[0] = '\0';
	for (i = 0; i < TL_NL_POLICY_N && at < len; i++) {
		if (!(p->set & (1U << i)))
			continue;
		n = snprintf(buf + at, len - at, "%s%s=%u", at ? " " : "",
			     tl_conf_policy_names[i], p->v[i]);
		if (n < 0)
			break;
		at += (size_t)n;
	}
}

static void apply_policy(struct tierd *td, struct tierd_dev *d,
			 const struct tl_conf_dev *cd)
{
	struct tl_err err = { "" };
	char desc[512];
	int rc;

	if (!cd->policy.set)
		return;
	policy_str(&cd->policy, desc, sizeof(desc));
	rc = tl_nl_policy_set(td->nl, d->name, &cd->policy, NULL, &err);
	if (rc == TL_OK) {
		log_notice("%s: policy applied: %s", d->name, desc);
		return;
	}
	d->failed = true;
	log_err("%s: policy not applied (%s): %s", d->name, desc, err.msg);
}

/* ---- placements ----------------------------------------------------------- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t str_sig(const char *s)
{
	return fnv(0xcbf29ce484222325ULL, s, strlen(s)) | 1;
}

static struct tierd_place *place_get(struct tierd_dev *d, const char *path)
{
	struct tierd_place *places;
	size_t i;

	for (i = 0; i < d->nr_places; i++) {
		if (!strcmp(d->places[i].path, path))
			return &d->places[i];
	}
	places = realloc(d->places, (d->nr_places + 1) * sizeof(*places));
	if (!places)
		return NULL;
	d->places = places;
	memset(&places[d->nr_places], 0, sizeof(places[0]));
	places[d->nr_places].path = strdup(path);
	if (!places[d->nr_places].path)
		return NULL;
	return &places[d->nr_places++];
}

static bool op_push(struct tierd_dev *d, enum tierd_op_kind kind,
		    const struct tl_range *r, int tier, const char *place)
{
	struct tierd_op *ops;

	ops = realloc(d->ops, (d->nr_ops + 1) * sizeof(*ops));
	if (!ops)
		return false;
	d->ops = ops;
	ops[d->nr_ops] = (struct tierd_op){ .kind = kind,
					    .start = r->start,
					    .len = r->len,
					    .tier = tier,
					    .place = strdup(place) };
	if (!ops[d->nr_ops].place)
		return false;
	d->nr_ops++;
	return true;
}

enum place_action {
	PLACE_PIN, /* pin, moving to @tier unless it is -1 */
	PLACE_RELEASE, /* unpin and move to @tier */
};

/* @a less @b; both normalized. 0 or -ENOMEM. */
static int ranges_subtract(const struct tl_ranges *a, const struct tl_ranges *b,
			   struct tl_ranges *out)
{
	uint64_t start, end, bend;
	size_t i, j = 0, k;

	for (i = 0; i < a->nr; i++) {
		start = a->r[i].start;
		end = start + a->r[i].len;
		while (j < b->nr && b->r[j].start + b->r[j].len <= start)
			j++;
		for (k = j; start < end; k++) {
			if (k >= b->nr || b->r[k].start >= end) {
				if (tl_ranges_add(out, start, end - start))
					return -ENOMEM;
				break;
			}
			if (b->r[k].start > start &&
			    tl_ranges_add(out, start, b->r[k].start - start))
				return -ENOMEM;
			bend = b->r[k].start + b->r[k].len;
			if (bend > start)
				start = bend;
		}
	}
	return 0;
}

/*
 * Bring @path's extents where they belong: queue the requests when its
 * ranges or the wanted action changed since the last time. Pinned ranges
 * are added to @protect_add; ranges in @protect_sub are left out (an extent
 * shared by an old checkpoint and a kept one stays with the kept one).
 */
static void place_path(struct tierd *td, struct tierd_dev *d, const char *path,
		       enum place_action action, int tier, const char *what,
		       struct tl_ranges *protect_add,
		       const struct tl_ranges *protect_sub)
{
	struct tl_ranges kept = { 0 };
	struct tl_ranges rs = { 0 };
	struct tl_err err = { "" };
	struct tierd_place *pl;
	char node[160];
	struct stat st;
	uint64_t sig, e;
	size_t i;
	int rc;

	pl = place_get(d, path);
	if (!pl) {
		log_err("%s: out of memory tracking %s", d->name, path);
		return;
	}
	pl->seen = true;
	snprintf(node, sizeof(node), "/dev/mapper/%s", d->name);
	errno = 0;
	if (stat(node, &st) || !S_ISBLK(st.st_mode)) {
		rc = TL_FAIL;
		snprintf(err.msg, sizeof(err.msg),
			 "%s is not a block device (%s)", node,
			 strerror(errno ? errno : ENOTBLK));
	} else {
		rc = tl_fiemap_path(path, st.st_rdev, &rs, &err);
	}
	if (rc != TL_OK) {
		/* Usually the filesystem is not mounted yet: retried each
		 * pass, logged when the reason changes. */
		e = str_sig(err.msg);
		if (e != pl->last_err_sig || td->once)
			log_warn("%s: %s %s: %s; retrying every pass", d->name,
				 what, path, err.msg);
		pl->last_err_sig = e;
		if (td->once)
			d->failed = true;
		tl_ranges_free(&rs);
		return;
	}
	pl->last_err_sig = 0;
	tl_ranges_normalize(&rs, d->extent_bytes > 1 ? d->extent_bytes : 1);
	if (protect_sub && protect_sub->nr) {
		if (ranges_subtract(&rs, protect_sub, &kept))
			goto oom;
		tl_ranges_free(&rs);
		rs = kept;
		kept = (struct tl_ranges){ 0 };
	}
	for (i = 0; protect_add && i < rs.nr; i++) {
		if (tl_ranges_add(protect_add, rs.r[i].start, rs.r[i].len))
			goto oom;
	}
	sig = fnv(0xcbf29ce484222325ULL, &action, sizeof(action));
	sig = fnv(sig, &tier, sizeof(tier));
	for (i = 0; i < rs.nr; i++)
		sig = fnv(sig, &rs.r[i], sizeof(rs.r[i]));
	sig |= 1;
	if (sig == pl->applied_sig) {
		tl_ranges_free(&rs);
		return;
	}
	for (i = 0; i < rs.nr; i++) {
		if (action == PLACE_PIN) {
			if (!op_push(d, OP_PIN, &rs.r[i], tier, path))
				goto oom;
		} else if (!op_push(d, OP_UNPIN, &rs.r[i], -1, path) ||
			   (tier >= 0 &&
			    !op_push(d, OP_MIGRATE, &rs.r[i], tier, path))) {
			goto oom;
		}
	}
	if (tier < 0)
		snprintf(node, sizeof(node), "%s",
			 action == PLACE_PIN ? "pin where it is" : "unpin");
	else
		snprintf(node, sizeof(node), "%s to tier %d",
			 action == PLACE_PIN ? "pin" : "unpin and move", tier);
	/* Nothing allocated yet (files not written back): quiet. */
	tierd_log(rs.nr ? LOG_INFO : LOG_DEBUG,
		  "%s: %s %s: %zu range(s), %llu bytes: %s", d->name, what,
		  path, rs.nr, (unsigned long long)tl_ranges_bytes(&rs), node);
	pl->applied_sig = sig;
	d->next_op_ms = 0;
	tl_ranges_free(&rs);
	return;
oom:
	log_err("%s: out of memory queueing requests for %s", d->name, path);
	tl_ranges_free(&kept);
	tl_ranges_free(&rs);
}

struct checkpoint {
	char *path;
	struct timespec mtime;
};

static int checkpoint_newest_first(const void *a, const void *b)
{
	const struct checkpoint *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec > y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec > y->mtime.tv_nsec ? -1 : 1;
	return strcmp(y->path, x->path); /* same time: the later name first */
}

/* Subdirectories of @cd->checkpoint_dir: the newest keep on tier 0, pinned;
 * the others unpinned and moved to the last tier. */
static void checkpoint_retention(struct tierd *td, struct tierd_dev *d,
				 const struct tl_conf_dev *cd,
				 struct tl_ranges *protect)
{
	uint32_t keep = cd->has_checkpoint_keep ? cd->checkpoint_keep :
						  TL_CONF_KEEP_DEF;
	struct checkpoint *cps = NULL, *more;
	int last = d->nr_tiers ? (int)d->nr_tiers - 1 : -1;
	size_t nr = 0, i;
	struct dirent *de;
	struct stat st;
	char *path;
	uint64_t e;
	DIR *dh;

	dh = opendir(cd->checkpoint_dir);
	if (!dh) {
		/* Typically not mounted yet: say so once per reason. */
		e = str_sig(strerror(errno)) ^ str_sig(cd->checkpoint_dir);
		if (e != d->checkpoint_err_sig || td->once)
			log_warn(
				"%s: checkpoint_dir %s: %s (retrying every pass)",
				d->name, cd->checkpoint_dir, strerror(errno));
		d->checkpoint_err_sig = e;
		if (td->once)
			d->failed = true;
		return;
	}
	d->checkpoint_err_sig = 0;
	while ((de = readdir(dh))) {
		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", cd->checkpoint_dir, de->d_name) <
		    0)
			break;
		if (lstat(path, &st) || !S_ISDIR(st.st_mode)) {
			free(path);
			continue;
		}
		more = realloc(cps, (nr + 1) * sizeof(*cps));
		if (!more) {
			free(path);
			break;
		}
		cps = more;
		cps[nr].path = path;
		cps[nr].mtime = st.st_mtim;
		nr++;
	}
	closedir(dh);
	if (nr)
		qsort(cps, nr, sizeof(*cps), checkpoint_newest_first);
	/* Kept ones first: what they occupy is protected from the rest. */
	for (i = 0; i < nr && i < keep; i++)
		place_path(td, d, cps[i].path, PLACE_PIN, 0, "checkpoint",
			   protect, NULL);
	tl_ranges_normalize(protect, d->extent_bytes > 1 ? d->extent_bytes : 1);
	for (i = keep; i < nr; i++)
		place_path(td, d, cps[i].path, PLACE_RELEASE, last,
			   "old checkpoint", NULL, protect);
	for (i = 0; i < nr; i++)
		free(cps[i].path);
	free(cps);
}

void tierd_reconcile(struct tierd *td, struct tierd_dev *d)
{
	const struct tl_conf_dev *cd = tl_conf_dev_find(&td->conf, d->name);
	struct tl_ranges protect = { 0 };
	size_t i, j;

	if (!cd || !d->present || !td->nl)
		return;
	for (i = 0; i < d->nr_places; i++)
		d->places[i].seen = false;
	for (i = 0; i < cd->nr_pins; i++) {
		int tier = cd->pins[i].tier;

		if (tier == TL_CONF_TIER_MEM) {
			/* Resident in the memory tier: target tier nr_tiers. */
			if (!d->has_mem || !d->nr_tiers) {
				log_warn("%s: pin %s tier=mem: the device has no memory tier (create it with --tier numa:NODE:SIZE); skipped",
					 d->name, cd->pins[i].path);
				if (td->once)
					d->failed = true;
				continue;
			}
			tier = (int)d->nr_tiers;
		}
		place_path(td, d, cd->pins[i].path, PLACE_PIN, tier, "pin",
			   &protect, NULL);
	}
	if (cd->checkpoint_dir)
		checkpoint_retention(td, d, cd, &protect);
	tl_ranges_free(&protect);
	/* Forget checkpoints that were deleted (and pins no longer wanted). */
	for (i = j = 0; i < d->nr_places; i++) {
		if (d->places[i].seen)
			d->places[j++] = d->places[i];
		else
			free(d->places[i].path);
	}
	d->nr_places = j;
}

void tierd_apply_device(struct tierd *td, struct tierd_dev *d)
{
	const struct tl_conf_dev *cd = tl_conf_dev_find(&td->conf, d->name);

	if (!cd || !d->present || !td->nl)
		return;
	d->failed = false;
	apply_policy(td, d, cd);
	/* From scratch: the device may be new, or the configuration. */
	ops_clear(d);
	moves_clear(d);
	places_clear(d);
	tierd_reconcile(td, d);
	tierd_run_ops(td, d);
	tierd_replace_start(td, d, cd);
}

/* ---- queued requests ------------------------------------------------------ */

static const char *op_name(enum tierd_op_kind k)
{
	return k == OP_PIN ? "pin" : k == OP_UNPIN ? "unpin" : "migrate";
}

static void op_pop(struct tierd_dev *d)
{
	free(d->ops[0].place);
	memmove(d->ops, d->ops + 1, (d->nr_ops - 1) * sizeof(d->ops[0]));
	d->nr_ops--;
}

/* Forget that @path was applied, so that the next pass tries again. */
static void place_unapply(struct tierd_dev *d, const char *path)
{
	size_t i;

	for (i = 0; i < d->nr_places; i++) {
		if (!strcmp(d->places[i].path, path))
			d->places[i].applied_sig = 0;
	}
}

/* Follow the move the kernel just queued for @op (id from its reply). */
static void move_track(struct tierd_dev *d, const struct tierd_op *op,
		       uint32_t id)
{
	struct tierd_move *m;

	m = realloc(d->moves, (d->nr_moves + 1) * sizeof(*m));
	if (!m)
		return; /* untracked: its outcome is only logged */
	d->moves = m;
	m[d->nr_moves] = (struct tierd_move){ .id = id, .kind = op->kind,
					      .place = strdup(op->place) };
	if (m[d->nr_moves].place)
		d->nr_moves++;
}

void tierd_move_done(struct tierd *td, struct tierd_dev *d,
		     const struct tl_nl_dev *ev)
{
	struct tierd_move m;
	size_t i;

	for (i = 0; i < d->nr_moves; i++) {
		if (d->moves[i].id == ev->move_id)
			break;
	}
	if (!ev->move_id || i == d->nr_moves)
		return; /* someone else's request */
	m = d->moves[i];
	memmove(d->moves + i, d->moves + i + 1,
		(d->nr_moves - i - 1) * sizeof(m));
	d->nr_moves--;
	if (!strcmp(ev->move_outcome, "done")) {
		log_debug("%s: %s %s: request %u done, %llu extents moved",
			  d->name, op_name(m.kind), m.place, m.id,
			  (unsigned long long)ev->done_extents);
	} else {
		/* Not a migration error: a full tier (ENOSPC) or a cancel;
		 * the next pass queues it again. */
		log_notice("%s: %s %s: request %u %s%s%s after %llu extents; retried at the next pass",
			   d->name, op_name(m.kind), m.place, m.id,
			   ev->move_outcome, ev->move_errno ? ": " : "",
			   ev->move_errno ? strerror((int)ev->move_errno) : "",
			   (unsigned long long)ev->done_extents);
		place_unapply(d, m.place);
	}
	free(m.place);
	(void)td;
}

void tierd_run_ops(struct tierd *td, struct tierd_dev *d)
{
	struct tl_err err;
	struct tierd_op *op;
	uint64_t done = 0;
	bool busy;
	int rc;

	while (d->nr_ops && td->nl && tierd_now_ms() >= d->next_op_ms) {
		op = &d->ops[0];
		err.msg[0] = '\0';
		switch (op->kind) {
		case OP_PIN:
			rc = tl_nl_pin(td->nl, d->name, op->start, op->len,
				       op->tier, &done, &err);
			break;
		case OP_UNPIN:
			rc = tl_nl_unpin(td->nl, d->name, op->start, op->len,
					 &done, &err);
			break;
		default:
			rc = tl_nl_migrate(td->nl, d->name, op->start, op->len,
					   (uint32_t)op->tier, &done, &err);
			break;
		}
		if (rc == TL_OK) {
			uint32_t id = tl_nl_last_move_id(td->nl);

			log_debug(
				"%s: %s %s [%llu, +%llu) tier %d: %llu extents, request %u",
				d->name, op_name(op->kind), op->place,
				(unsigned long long)op->start,
				(unsigned long long)op->len, op->tier,
				(unsigned long long)done, id);
			if (id)
				move_track(d, op, id);
			op_pop(d);
			continue;
		}
		/* EBUSY: the kernel's move queue is full; a migration-done
		 * event (or the retry timer) sends this one. Nothing failed:
		 * not logged as an error. Other failures get a few tries: the
		 * kernel may be mid-suspend. */
		if (rc == TL_FAIL && tl_nl_last_error(td->nl) == -ENOSPC) {
			/* Refused: the tier is being evacuated (it takes no
			 * new extents). Not a migration error, as for a
			 * request that ends with ENOSPC: the next pass tries
			 * again. */
			log_notice("%s: %s %s: refused: %s; retried at the next pass",
				   d->name, op_name(op->kind), op->place,
				   err.msg);
			place_unapply(d, op->place);
			op_pop(d);
			continue;
		}
		busy = tl_nl_last_error(td->nl) == -EBUSY;
		if (rc == TL_FAIL &&
		    ++op->tries < (busy ? OP_MAX_TRIES : OP_MAX_OTHER_TRIES)) {
			if (op->tries == 1 || !busy)
				log_debug("%s: %s %s: %s; retrying", d->name,
					  op_name(op->kind), op->place,
					  err.msg);
			d->next_op_ms = tierd_now_ms() + OP_RETRY_MS;
			return;
		}
		log_err("%s: %s of %s (bytes %llu+%llu) failed%s: %s", d->name,
			op_name(op->kind), op->place,
			(unsigned long long)op->start,
			(unsigned long long)op->len,
			rc == TL_FAIL && busy ? " (busy for 10 minutes)" : "",
			err.msg);
		d->failed = true;
		place_unapply(d, op->place);
		op_pop(d);
	}
}

/* ---- NVMe-oF recovery ----------------------------------------------------- */

/*
 * The longest ctrl_loss_tmo of the recorded connections (those tierd
 * connects again), -1 when one reconnects forever; the default when none is
 * recorded or the record cannot be read.
 */
static int recorded_ctrl_loss_tmo(void)
{
	struct tl_nvmf_record rec;
	struct tl_err err = { "" };
	int tmo = -2;
	size_t i;

	if (tl_nvmf_record_load(&rec, &err))
		return TL_RECOVER_DEF_CTRL_LOSS_TMO;
	for (i = 0; i < rec.nr && tmo != -1; i++) {
		if (rec.entry[i].opts.ctrl_loss_tmo < 0)
			tmo = -1;
		else if (rec.entry[i].opts.ctrl_loss_tmo > tmo)
			tmo = rec.entry[i].opts.ctrl_loss_tmo;
	}
	tl_nvmf_record_free(&rec);
	return tmo == -2 ? TL_RECOVER_DEF_CTRL_LOSS_TMO : tmo;
}

/*
 * Start bringing NVMe-oF tier @t of @d back (a no-op while attempts run):
 * the attempts are made by tierd_run_recover(). @nd describes the device's
 * tiers; @why is logged ("tier-error", "found offline").
 */
static bool start_recover(struct tierd_dev *d, const struct tl_nl_dev *nd,
			  uint32_t t, const char *why)
{
	struct tl_recover *r;
	size_t i;

	if (strcmp(nd->tiers[t].tier_class, "nvmf")) {
		log_warn(
			"%s: tier %u (%s, class %s) failed; only NVMe-oF tiers are reconnected by tierd (check the drive: dmesg, then tierctl)",
			d->name, t, nd->tiers[t].device,
			nd->tiers[t].tier_class);
		return false;
	}
	/* Kept by device: a tier renumbered since is the same entry. */
	if (tl_recover_find(d->recover, TIER_MAX_TIERS, nd->tiers[t].device))
		return false;
	for (r = NULL, i = 0; !r && i < TIER_MAX_TIERS; i++)
		if (!d->recover[i].active)
			r = &d->recover[i];
	if (!r)
		return false; /* one per tier: cannot happen */
	r->active = true;
	r->tier = t;
	r->attempt = 0;
	r->first_ms = r->next_ms = tierd_now_ms();
	r->window_ms = tl_recover_window_ms(recorded_ctrl_loss_tmo());
	snprintf(r->device, sizeof(r->device), "%s", nd->tiers[t].device);
	log_notice("%s: tier %u (%s) is NVMe-oF: reconnecting (%s; retrying for up to %lld s)",
		   d->name, t, nd->tiers[t].device, why,
		   (long long)(r->window_ms / 1000));
	return true;
}

void tierd_tier_error(struct tierd *td, struct tierd_dev *d,
		      const struct tl_nl_dev *ev)
{
	bool has_tier = ev->has_event_tier;
	uint32_t t = ev->event_tier;
	struct tl_err err = { "" };
	struct tl_nl_dev *cur = NULL;

	/* The notification carries the device's tiers; should it lack them,
	 * ask for the device. */
	if (has_tier && t >= ev->nr_tiers && td->nl) {
		cur = calloc(1, sizeof(*cur));
		if (cur && tl_nl_dev_get(td->nl, d->name, cur, &err) == TL_OK)
			ev = cur;
		else if (cur)
			log_warn(
				"%s: cannot read the device after a tier error: %s",
				d->name, err.msg);
	}
	if (!has_tier || t >= ev->nr_tiers || t >= TIER_MAX_TIERS) {
		log_warn(
			"%s: tier-error without a valid tier; nothing to reconnect",
			d->name);
		free(cur);
		return;
	}
	if (start_recover(d, ev, t, "tier-error"))
		tierd_run_recover(td, d);
	free(cur);
}

/*
 * Follow tier list @nd (tierd_dev_update()): each recovery goes with its
 * tier's device to its new index; one whose device left the list ends.
 * Then an NVMe-oF tier that is not ok and has no recovery gets one: the
 * tier whose device left may be there under another device (tierctl
 * recover re-bound it by its label, and its probe failed).
 */
static void recover_follow(struct tierd_dev *d, const struct tl_nl_dev *nd)
{
	bool gone = false;
	uint32_t old;
	size_t i;

	for (i = 0; i < TIER_MAX_TIERS; i++) {
		struct tl_recover *r = &d->recover[i];

		old = r->tier;
		switch (tl_recover_rekey(r, nd)) {
		case TL_RECOVER_MOVED:
			log_notice("%s: tier %u (%s) is tier %u now (the tier list changed): reconnecting it there",
				   d->name, old, r->device, r->tier);
			break;
		case TL_RECOVER_GONE:
			log_notice("%s: tier %u (%s) is no longer a tier of the device (removed or replaced): no longer reconnecting it",
				   d->name, old, r->device);
			gone = true;
			break;
		case TL_RECOVER_SAME:
			break;
		}
	}
	if (gone)
		tierd_check_tiers(d, nd);
}

void tierd_check_tiers(struct tierd_dev *d, const struct tl_nl_dev *nd)
{
	char why[48];
	uint32_t t;

	for (t = 0; t < nd->nr_tiers && t < TIER_MAX_TIERS; t++) {
		if (!nd->tiers[t].state[0] || !strcmp(nd->tiers[t].state, "ok"))
			continue;
		if (strcmp(nd->tiers[t].tier_class, "nvmf"))
			continue; /* logged with the tier-error, if seen */
		snprintf(why, sizeof(why), "found %s", nd->tiers[t].state);
		start_recover(d, nd, t, why);
	}
}

/*
 * Whether a controller behind NVMe block device @dev is "live": a connect
 * request succeeds at once when the controller still exists but is
 * reconnecting on its own, and telling the kernel the tier is back then
 * would only bring the next error. Looks at the controller's sysfs state,
 * directly (/sys/block/nvme3n1/device/state) or, for a native multipath
 * head, at each path's controller (/sys/block/nvme3n1/device/nvme*\/state).
 * A device without that sysfs layout counts as live.
 */
static bool nvmf_path_live(const char *dev, char *state, size_t len)
{
	char pattern[PATH_MAX], buf[32];
	bool any = false, live = false;
	glob_t g;
	size_t i;

	snprintf(state, len, "unknown");
	if (!dev[0])
		return true;
	snprintf(pattern, sizeof(pattern),
		 "/sys/block/%s/device/{state,nvme*/state}", dev);
	if (glob(pattern, GLOB_BRACE, NULL, &g))
		return true;
	for (i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");

		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = '\0';
			any = true;
			if (!strcmp(buf, "live"))
				live = true;
			else
				snprintf(state, len, "%s", buf);
		}
		fclose(f);
	}
	globfree(&g);
	return live || !any;
}

/*
 * The namespace came back under a new name (its controller was deleted
 * after ctrl_loss_tmo, then connected again): reload the table with the
 * device that carries the tier's label. Nothing to do while the table's
 * device still exists. 0, or 1 with @err set (retried later).
 */
static int rebind(struct tierd_dev *d, uint32_t t, struct tl_recover *r,
		  struct tl_err *err)
{
	struct tl_rebind rb;
	const char *base;

	if (tl_rebind_tier(d->name, t, &rb, err))
		return 1;
	if (!rb.rebound)
		return 0;
	base = strrchr(rb.to, '/');
	base = base ? base + 1 : rb.to;
	if (strlen(base) < sizeof(r->device))
		memcpy(r->device, base, strlen(base) + 1);
	log_notice("%s: tier %u re-bound by its label from %s to %s (nothing copied)",
		   d->name, t, rb.from, rb.to);
	return 0;
}

/*
 * Before an attempt: where the tier of @r is now. A dev-get re-keys every
 * recovery of @d by its device (tierd_dev_update()); @r may end there
 * (its device left the tier list). 0 to go on with @r->tier, 1 with @err
 * set (a failed attempt: the device could not be read).
 */
static int recover_resolve(struct tierd *td, struct tierd_dev *d,
			   struct tl_err *err)
{
	struct tl_nl_dev *cur = calloc(1, sizeof(*cur));

	if (!cur) {
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return 1;
	}
	if (tl_nl_dev_get(td->nl, d->name, cur, err) != TL_OK) {
		free(cur);
		return 1;
	}
	tierd_dev_update(d, cur);
	free(cur);
	return 0;
}

void tierd_run_recover(struct tierd *td, struct tierd_dev *d)
{
	char state[32], key[sizeof(d->recover[0].device)];
	struct tl_recover *r;
	struct tl_err err;
	int64_t delay;
	uint32_t t;
	size_t i;
	int failed;

	for (i = 0; i < TIER_MAX_TIERS; i++) {
		r = &d->recover[i];
		if (!r->active || tierd_now_ms() < r->next_ms || !td->nl)
			continue;
		err.msg[0] = '\0';
		/* The tier list may have changed since the last attempt. */
		snprintf(key, sizeof(key), "%s", r->device);
		failed = recover_resolve(td, d, &err);
		if (!r->active || strcmp(r->device, key))
			continue; /* its device left the tier list */
		t = r->tier;
		r->attempt++;
		if (!failed)
			failed = tl_nvmf_connect_recorded(&err);
		if (!failed)
			failed = rebind(d, t, r, &err);
		if (!failed && !nvmf_path_live(r->device, state, sizeof(state))) {
			snprintf(err.msg, sizeof(err.msg),
				 "the controller of %s is %s, not live yet",
				 r->device, state);
			failed = 1;
		}
		/* Where it is right now: connecting may have taken a while. */
		if (!failed) {
			snprintf(key, sizeof(key), "%s", r->device);
			failed = recover_resolve(td, d, &err);
			/* Ended, or the entry now serves another device. */
			if (!r->active || strcmp(r->device, key))
				continue;
			t = r->tier;
		}
		if (!failed) {
			err.msg[0] = '\0';
			if (tl_nl_tier_recover(td->nl, d->name, t, &err) ==
			    TL_OK) {
				log_notice(
					"%s: tier %u reconnected and recovered (attempt %u)",
					d->name, t, r->attempt);
				r->active = false;
				continue;
			}
		}
		delay = tl_recover_next_delay_ms(
			r->attempt, tierd_now_ms() - r->first_ms, r->window_ms);
		if (delay < 0) {
			log_err("%s: tier %u still not recovered after %u attempts in %lld s, giving up: %s (reconnect it by hand, e.g. nvme connect, then run tierctl recover %s --tier %u; see docs/tierd.md)",
				d->name, t, r->attempt,
				(long long)((tierd_now_ms() - r->first_ms) /
					    1000),
				err.msg, d->name, t);
			r->active = false;
			continue;
		}
		log_warn("%s: tier %u: attempt %u failed: %s; next in %lld s",
			 d->name, t, r->attempt, err.msg,
			 (long long)(delay / 1000));
		r->next_ms = tierd_now_ms() + delay;
	}
}
