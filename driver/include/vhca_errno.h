/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_errno.h - the errno values the driver core returns (negated).
 *
 * The core never includes a Linux header, so it names errnos here.  The
 * values are the Linux ABI's (include/uapi/asm-generic/errno*.h); the
 * shim checks each one against <linux/errno.h> at compile time
 * (driver/shim/module.c), so a mismatch cannot build.
 */
#ifndef VHCA_ERRNO_H
#define VHCA_ERRNO_H

#define VHCA_EPERM		1
#define VHCA_ENOENT		2
#define VHCA_EIO		5
#define VHCA_ENOMEM		12
#define VHCA_EFAULT		14
#define VHCA_EBUSY		16
#define VHCA_ENODEV		19
#define VHCA_EINVAL		22
#define VHCA_ENOSPC		28
#define VHCA_EPROTO		71
#define VHCA_EOPNOTSUPP		95
#define VHCA_ETIMEDOUT		110

#endif /* VHCA_ERRNO_H */
