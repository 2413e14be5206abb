// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* IBA 1.5 FLUSH's device capabilities and access flags
 * (IB_DEVICE_FLUSH_GLOBAL/_PERSISTENT, IB_ACCESS_FLUSH_GLOBAL/_PERSISTENT;
 * 6.2 added them: 6.12, 7.3; not 6.1). */
#include <rdma/ib_verbs.h>

unsigned long long vhca_probe_device_flush[] = {
	IB_DEVICE_FLUSH_GLOBAL, IB_DEVICE_FLUSH_PERSISTENT,
	IB_ACCESS_FLUSH_GLOBAL, IB_ACCESS_FLUSH_PERSISTENT,
};
