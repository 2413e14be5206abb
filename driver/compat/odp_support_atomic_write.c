// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The ODP capability bits of ATOMIC WRITE (IB_ODP_SUPPORT_ATOMIC_WRITE, 7.3;
 * 6.1 and 6.12 have ATOMIC WRITE but no ODP bit to announce it with). */
#include <rdma/ib_verbs.h>

u32 vhca_probe_odp_cap(void);
u32 vhca_probe_odp_cap(void)
{
	return IB_ODP_SUPPORT_ATOMIC_WRITE;
}
