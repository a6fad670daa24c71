// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe-oF members (remote.h): an nvmf:// DEV of create, add-tier or
 * replace-tier is connected, recorded once it is a member (so that activate and boot
 * connect it again), and disconnected again when the command fails before
 * it joined; remove --disconnect, remove-tier --disconnect and
 * replace-tier --disconnect disconnect a member that left and forget its
 * target (docs/tierctl.md "NVMe-oF tiers").
 */
#include <stdio.h>
#include <string.h>

#include "tierctl.h"
#include "remote.h"
#include "tl-nvmf-autoconnect.h"
#include "tl-nvmf-connect.h"
#include "tl-nvmf-record.h"
#include "tl-print.h"

int tierctl_remote_parse(const char *cmd, const char *arg,
			 const char *loss_tmo_arg, const char *reconnect_arg,
			 const char *fail_arg, struct tierctl_remote *r)
{
	struct tl_err err = { "" };
	int rc;

	memset(r, 0, sizeof(*r));
	tl_nvmf_opts_default(&r->opts);
	if (!tl_nvmf_is_uri(arg)) {
		if (loss_tmo_arg || reconnect_arg || fail_arg)
			return usage_error("%s: --ctrl-loss-tmo, --reconnect-delay and --fast-io-fail-tmo apply to an nvmf:// device; %s is not one",
					   cmd, arg);
		snprintf(r->dev, sizeof(r->dev), "%s", arg);
		return TIERCTL_EXIT_OK;
	}
	rc = tl_nvmf_parse_uri(arg, &r->uri, &err);
	if (!rc && loss_tmo_arg)
		rc = tl_nvmf_parse_ctrl_loss_tmo(loss_tmo_arg,
						 &r->opts.ctrl_loss_tmo, &err);
	if (!rc && reconnect_arg)
		rc = tl_nvmf_parse_reconnect_delay(reconnect_arg,
						   &r->opts.reconnect_delay,
						   &err);
	if (!rc && fail_arg)
		rc = tl_nvmf_parse_fast_io_fail_tmo(fail_arg,
						    &r->opts.fast_io_fail_tmo,
						    &err);
	if (!rc && tl_nvmf_opts_check(&r->opts, &err))
		rc = TL_USAGE;
	if (rc)
		return usage_error("%s: %s", cmd, err.msg);
	r->is_remote = true;
	tl_nvmf_format_uri(&r->uri, r->uri_text, sizeof(r->uri_text));
	return TIERCTL_EXIT_OK;
}

int tierctl_remote_connect(const char *cmd, struct tierctl_remote *r)
{
	struct tl_err err = { "" };

	if (!r->is_remote)
		return TIERCTL_EXIT_OK;
	if (tl_nvmf_connect_ex(&r->uri, &r->opts, r->dev, sizeof(r->dev),
			       &r->connected_now, &err))
		return fail("%s: %s", cmd, err.msg);
	return TIERCTL_EXIT_OK;
}

void tierctl_remote_undo(struct tierctl_remote *r)
{
	struct tl_err err = { "" };

	if (!r->is_remote || !r->connected_now)
		return;
	if (tl_nvmf_disconnect(&r->uri, &err))
		warn("%s: %s; disconnect it with 'nvme disconnect -n %s'",
		     r->uri_text, err.msg, r->uri.subsysnqn);
	r->connected_now = false;
}

int tierctl_remote_record(const char *cmd, const char *name,
			  const struct tierctl_remote *r)
{
	struct tl_err err = { "" };
	struct tl_nvmf_entry e;
	char line[1024];

	if (!r->is_remote)
		return TIERCTL_EXIT_OK;
	/* nvme-cli's autoconnect first; tierctl's record is the fallback. */
	if (tl_nvmf_autoconnect_add(&r->uri, &r->opts, &err)) {
		warn("%s; at boot only 'tierctl activate' will connect %s (dm-tier-activate-nvmf.service)",
		     err.msg, r->uri_text);
		err.msg[0] = '\0';
	}
	if (!tl_nvmf_record_add(&r->uri, &r->opts, &err))
		return TIERCTL_EXIT_OK;
	e.uri = r->uri;
	e.opts = r->opts;
	tl_nvmf_record_format_line(&e, line, sizeof(line));
	return fail("%s%s%s; /dev/mapper/%s works, but 'tierctl activate' will not reconnect %s: add the line '%s' to %s",
		    cmd ? cmd : "", cmd ? ": " : "", err.msg, name,
		    r->uri_text, line, tl_nvmf_record_path());
}

int tierctl_remote_forget(const char *cmd, unsigned int maj, unsigned int min)
{
	struct tl_err err = { "" };
	struct tl_nvmf_uri uris[8];
	char text[512];
	int j, n, rc = TIERCTL_EXIT_OK;

	n = tl_nvmf_disconnect_blockdev(maj, min, uris, 8, &err);
	if (n < 0)
		return fail("%s: %s", cmd, err.msg);
	for (j = 0; j < n; j++) {
		tl_nvmf_format_uri(&uris[j], text, sizeof(text));
		print_str(NULL, "disconnected %s\n", text);
		if (tl_nvmf_autoconnect_del(&uris[j], &err)) {
			rc = fail("%s: %s; nvme-cli will connect %s again at boot: remove it from %s",
				  cmd, err.msg, text,
				  tl_nvmf_autoconnect_path());
			err.msg[0] = '\0';
		}
		if (tl_nvmf_record_del(&uris[j], &err)) {
			rc = fail("%s: %s; 'tierctl activate' will connect %s again: remove its line from %s",
				  cmd, err.msg, text, tl_nvmf_record_path());
			err.msg[0] = '\0';
		}
	}
	return rc;
}
