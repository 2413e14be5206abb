// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* ib_device_ops.reg_user_mr_dmabuf takes a struct ib_dmah * (DMA handle:
 * TPH steering hints) before the uverbs_attr_bundle (7.3). */
#include <rdma/ib_verbs.h>

static struct ib_mr *probe(struct ib_pd *pd, u64 offset, u64 length,
			   u64 virt_addr, int fd, int access,
			   struct ib_dmah *dmah,
			   struct uverbs_attr_bundle *attrs)
{
	return NULL;
}

const struct ib_device_ops vhca_probe_ops = { .reg_user_mr_dmabuf = probe };
