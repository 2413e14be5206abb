// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * uverbs_mr.c - reg_user_mr: pin the user range (ib_umem), pick the
 * largest page size the device and the range allow, list the pages in
 * the core's paged region and register it with the IB access flags
 * (local write, remote read/write/atomic).  dereg_mr (verbs_mr.c) releases
 * the umem after DESTROY_MR.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>
#include <rdma/ib_verbs.h>

#include "vhca_shim.h"

struct ib_mr *vhca_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access,
				  struct ib_udata *udata)
{
	struct vhca_kapi_device *kdev = to_kdev(ibpd->device);
	const struct vhca_device_attr *attr = vhca_core_device_attr(kdev->core);
	struct ib_block_iter biter;
	unsigned long page_size;
	unsigned int npages, i = 0;
	struct vhca_mr *mr;
	int err;

	if (!udata)
		return ERR_PTR(-EOPNOTSUPP);	/* kernel ULPs: FRWR */
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EOPNOTSUPP);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto free;
	}
	/* Blocks aligned like virt_addr, no bigger than the device takes
	 * (page_size_cap: bit n = 2^n bytes; VHCA_MAX_PAGE_SHIFT at most). */
	page_size = ib_umem_find_best_pgsz(mr->umem,
					   le64_to_cpu(attr->page_size_cap) &
					   GENMASK_ULL(VHCA_MAX_PAGE_SHIFT,
						       VHCA_MIN_PAGE_SHIFT),
					   virt_addr);
	if (!page_size) {
		err = -EINVAL;
		goto release;
	}
	npages = ib_umem_num_dma_blocks(mr->umem, page_size);
	err = vhca_core_create_paged_mr(kdev->core, npages, &mr->core);
	if (err)
		goto release;
	rdma_umem_for_each_dma_block(mr->umem, &biter, page_size)
		vhca_core_mr_set_page(mr->core, i++,
				      rdma_block_iter_dma_address(&biter));
	err = vhca_core_mr_register(mr->core, to_vpd(ibpd)->pdn, virt_addr,
				    length, ilog2(page_size), access);
	if (err)
		goto destroy;
	mr->ibmr.lkey = vhca_core_mr_key(mr->core);
	mr->ibmr.rkey = mr->ibmr.lkey;
	return &mr->ibmr;

destroy:
	/* Not registered (or refused): nothing on the device to undo, unless
	 * the command was lost, and then the core keeps the region. */
	if (vhca_core_destroy_mr(mr->core))
		goto free;
release:
	ib_umem_release(mr->umem);
free:
	kfree(mr);
	return ERR_PTR(err);
}
