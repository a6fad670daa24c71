/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl-nvmf-autoconnect.h - NVMe-oF connections of dm-tier tiers in libnvme's
 * own configuration, /etc/nvme/config.json, which `nvme connect-all` (run
 * at boot by nvme-cli's nvmf-autoconnect.service) connects. Boot then
 * brings remote tiers up with the system's own tools, before dm-tier's
 * activation; tierctl's record (tl-nvmf-record.h) stays the fallback that
 * `tierctl activate` and tierd replay.
 *
 * $TIER_NVME_CONFIG overrides the path (tests). Every change is made under
 * the state directory's lock (tl_state_lock(), $TIER_STATE_DIR), and keeps
 * the file's mode and owner.
 */
#ifndef DM_TIER_TL_NVMF_AUTOCONNECT_H
#define DM_TIER_TL_NVMF_AUTOCONNECT_H

#include "tl-nvmf-uri.h"

/* The configuration file: $TIER_NVME_CONFIG or /etc/nvme/config.json. */
const char *tl_nvmf_autoconnect_path(void);

/*
 * Add @u with @o to the configuration under this node's host NQN (or update
 * its options), keeping every other entry. `nvme connect-all` then reaches
 * the target's discovery controller at that address and connects the
 * subsystem; not "persistent", which would keep the discovery controller
 * connected. TL_OK,
 * or TL_FAIL with @err saying why (the file is left as it was).
 */
int tl_nvmf_autoconnect_add(const struct tl_nvmf_uri *u,
			    const struct tl_nvmf_opts *o, struct tl_err *err);

/* Drop @u (and its subsystem when nothing else is left in it). TL_OK when
 * removed or absent, TL_FAIL with @err. */
int tl_nvmf_autoconnect_del(const struct tl_nvmf_uri *u, struct tl_err *err);

#endif /* DM_TIER_TL_NVMF_AUTOCONNECT_H */
