// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* ib_device_ops.pgoff_to_mmap_entry and .mmap_get_pfns, which ib_uverbs'
 * UVERBS_METHOD_DMABUF_ALLOC (ibv_dm_export_dmabuf_fd) needs, and the
 * p2pdma provider of a BAR they answer with (7.3). */
#include <linux/pci-p2pdma.h>
#include <rdma/ib_verbs.h>

static struct rdma_user_mmap_entry *to_entry(struct ib_ucontext *uc,
					     off_t pg_off)
{
	return rdma_user_mmap_entry_get_pgoff(uc, pg_off);
}

static int get_pfns(struct rdma_user_mmap_entry *entry,
		    struct phys_vec *phys_vec,
		    struct p2pdma_provider **provider)
{
	*provider = pcim_p2pdma_provider(NULL, 0);
	return pcim_p2pdma_init(NULL);
}

const struct ib_device_ops vhca_probe_ops = {
	.pgoff_to_mmap_entry = to_entry,
	.mmap_get_pfns = get_pfns,
};
