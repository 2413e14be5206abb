// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* ib_device_ops.resize_cq became resize_user_cq (7.3): only uverbs
 * resizes a CQ, ib_resize_cq is no longer exported. */
#include <rdma/ib_verbs.h>

static int probe(struct ib_cq *cq, unsigned int cqe, struct ib_udata *udata)
{
	return 0;
}

const struct ib_device_ops vhca_probe_ops = { .resize_user_cq = probe };
