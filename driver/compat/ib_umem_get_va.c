// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Pinning a user range is ib_umem_get_va (7.3); ib_umem_get is gone. */
#include <rdma/ib_umem.h>

static __used struct ib_umem *vhca_probe(struct ib_device *device)
{
	return ib_umem_get_va(device, 0, 0, 0);
}
