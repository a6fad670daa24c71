/* SPDX-License-Identifier: GPL-2.0 */
/*
 * remote.h - NVMe-oF members of tierctl's commands (remote.c): connect an
 * nvmf:// DEV, record it once it is a member, undo a connection of a
 * command that failed, forget a member that left. Without tierctl.h, so
 * that the cmocka tests that include cmocka.h first can include it.
 */
#ifndef DM_TIER_TIERCTL_REMOTE_H
#define DM_TIER_TIERCTL_REMOTE_H

#include <stdbool.h>

#include "tl-nvmf-uri.h"
#include "tl-sysfs.h"

/*
 * An NVMe-oF member given as an nvmf:// URI (create, add-tier,
 * replace-tier).
 * @is_remote: DEV was a URI; @dev: the block device (DEV itself, or the
 * namespace once connected); @connected_now: this command connected it.
 */
struct tierctl_remote {
	bool is_remote;
	bool connected_now;
	struct tl_nvmf_uri uri;
	struct tl_nvmf_opts opts;
	char uri_text[512];
	char dev[TL_PATH_LEN];
};

/*
 * tierctl_remote_parse() - DEV @arg of @cmd and the connection options
 * (NULL: not given; only with a URI). Connects nothing.
 * Return: TIERCTL_EXIT_OK, or TIERCTL_EXIT_USAGE after printing why.
 */
int tierctl_remote_parse(const char *cmd, const char *arg,
			 const char *loss_tmo_arg, const char *reconnect_arg,
			 const char *fail_arg, struct tierctl_remote *r);
/*
 * tierctl_remote_connect() - connect a URI (or reuse its connection) and
 * set @r->dev to its namespace, as create does; nothing for a local DEV.
 * Return: TIERCTL_EXIT_OK, or TIERCTL_EXIT_FAIL after printing why.
 */
int tierctl_remote_connect(const char *cmd, struct tierctl_remote *r);
/* Disconnect what this command connected (it failed); else nothing. */
void tierctl_remote_undo(struct tierctl_remote *r);
/*
 * tierctl_remote_record() - @r joined @name: record its target for
 * activate and nvme-cli's autoconnect; @cmd (or NULL) prefixes the
 * messages. Nothing for a local device. Return: TIERCTL_EXIT_OK, or
 * TIERCTL_EXIT_FAIL after printing the line to add by hand.
 */
int tierctl_remote_record(const char *cmd, const char *name,
			  const struct tierctl_remote *r);
/*
 * tierctl_remote_forget() - block device @maj:@min left a device: when it
 * is an NVMe-oF namespace, disconnect its controller (unless another of
 * its namespaces is in use), print "disconnected URI" as an element of the
 * open array, and drop the target from the record and from autoconnect.
 * @cmd prefixes the errors. Return: TIERCTL_EXIT_OK (also for a local
 * device) or TIERCTL_EXIT_FAIL after printing why.
 */
int tierctl_remote_forget(const char *cmd, unsigned int maj, unsigned int min);

#endif /* DM_TIER_TIERCTL_REMOTE_H */
