// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The ODP capability bit of FLUSH (IB_ODP_SUPPORT_FLUSH, 7.3; 6.12 has
 * FLUSH but no ODP bit to announce it with). */
#include <rdma/ib_verbs.h>

u32 vhca_probe_odp_flush(void);
u32 vhca_probe_odp_flush(void)
{
	return IB_ODP_SUPPORT_FLUSH;
}
