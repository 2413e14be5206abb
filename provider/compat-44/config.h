/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * compat-44/config.h - for the out-of-tree build only: what rdma-core's
 * util/mmio.h reads from the config.h its CMake build writes
 * (buildlib/config.h.in).  The out-of-tree build is x86-64 only.
 */
#ifndef VHCA_COMPAT_44_CONFIG_H
#define VHCA_COMPAT_44_CONFIG_H
#define SIZEOF_LONG 8
#endif
