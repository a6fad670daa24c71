/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/* dm-tier release; read by the Makefile, dkms.conf and both sides of the code. */
#ifndef _UAPI_LINUX_DM_TIER_VERSION_H
#define _UAPI_LINUX_DM_TIER_VERSION_H

#define DM_TIER_VERSION_STRING "0.1.0"

#endif /* _UAPI_LINUX_DM_TIER_VERSION_H */
