// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * module.c - module init/exit.  Also the compile-time proof that the
 * errno values the core uses (vhca_errno.h) are the kernel's.
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "vhca_errno.h"
#include "vhca_shim.h"

static_assert(VHCA_EPERM == EPERM);
static_assert(VHCA_ENOENT == ENOENT);
static_assert(VHCA_EIO == EIO);
static_assert(VHCA_ENOMEM == ENOMEM);
static_assert(VHCA_EFAULT == EFAULT);
static_assert(VHCA_EBUSY == EBUSY);
static_assert(VHCA_ENODEV == ENODEV);
static_assert(VHCA_EINVAL == EINVAL);
static_assert(VHCA_ENOSPC == ENOSPC);
static_assert(VHCA_EPROTO == EPROTO);
static_assert(VHCA_EOPNOTSUPP == EOPNOTSUPP);
static_assert(VHCA_ETIMEDOUT == ETIMEDOUT);

static int __init vhca_init(void)
{
	return vhca_pci_register();
}

static void __exit vhca_exit(void)
{
	vhca_pci_unregister();
}

module_init(vhca_init);
module_exit(vhca_exit);

MODULE_DESCRIPTION("vhca virtual InfiniBand HCA driver");
MODULE_LICENSE("Dual BSD/GPL");
