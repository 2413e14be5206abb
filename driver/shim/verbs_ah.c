// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs_ah.c - address handles: no device object, the AH keeps its
 * address vector, which post_send copies into each UD WR.  Never sleeps
 * (create_ah may be called without RDMA_CREATE_AH_SLEEPABLE).
 */
#include <rdma/ib_verbs.h>

#include "vhca_shim.h"

int vhca_ib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		      struct ib_udata *udata)
{
	struct rdma_ah_attr *attr = init->ah_attr;

	if (attr->type != RDMA_AH_ATTR_TYPE_IB)
		return -EINVAL;
	vhca_verbs_ah_attr(attr, &to_vah(ibah)->av);
	/* User AHs: the provider builds UD WQEs with the AV itself. */
	return udata ? vhca_uverbs_create_ah(to_vah(ibah), udata) : 0;
}

int vhca_ib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr)
{
	vhca_verbs_ib_ah_attr(ibah->device, &to_vah(ibah)->av, ah_attr);
	return 0;
}

int vhca_ib_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}
