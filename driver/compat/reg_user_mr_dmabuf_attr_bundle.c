// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* ib_device_ops.reg_user_mr_dmabuf takes the uverbs_attr_bundle instead of
 * the udata (6.12; 6.1 passes a struct ib_udata *). */
#include <rdma/ib_verbs.h>

static struct ib_mr *probe(struct ib_pd *pd, u64 offset, u64 length,
			   u64 virt_addr, int fd, int access,
			   struct uverbs_attr_bundle *attrs)
{
	return NULL;
}

const struct ib_device_ops vhca_probe_ops = { .reg_user_mr_dmabuf = probe };
