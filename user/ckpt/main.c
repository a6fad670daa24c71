// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt - checkpoint burst generator and verifier (docs/ckpt.md).
 * Exit codes: 0 ok, 1 data mismatch or I/O failure, 2 usage error.
 */
#include "ckpt.h"

int main(int argc, char **argv)
{
	return ckpt_main(argc, argv);
}
