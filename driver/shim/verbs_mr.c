// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs_mr.c - memory regions: fast registration (alloc_mr, map_mr_sg,
 * IB_WR_REG_MR), dereg_mr.
 *
 * get_dma_mr is in the table only because ib_device_check_mandatory()
 * requires it of a kernel-verbs provider; it fails with -EOPNOTSUPP
 * (Documentation/driver.md "Data path API").  reg_user_mr is in
 * uverbs_mr.c.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "vhca_shim.h"

struct ib_mr *vhca_ib_get_dma_mr(struct ib_pd *ibpd, int access)
{
	/* The device cannot describe "all memory"; ULPs use local_dma_lkey
	 * (IBK_LOCAL_DMA_LKEY, so ib_alloc_pd never calls this). */
	return ERR_PTR(-EOPNOTSUPP);
}

struct ib_mr *vhca_ib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg)
{
	struct vhca_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = vhca_core_alloc_frwr_mr(to_kdev(ibpd->device)->core,
				      to_vpd(ibpd)->pdn, max_num_sg, &mr->core);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->max_pages = max_num_sg;
	mr->ibmr.lkey = vhca_core_mr_key(mr->core);
	mr->ibmr.rkey = mr->ibmr.lkey;
	return &mr->ibmr;
}

static int vhca_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct vhca_mr *mr = to_vmr(ibmr);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	vhca_core_mr_set_page(mr->core, mr->npages++, addr);
	return 0;
}

int vhca_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		      unsigned int *sg_offset)
{
	struct vhca_mr *mr = to_vmr(ibmr);
	int n, err;

	mr->npages = 0;
	vhca_core_mr_map_begin(mr->core);
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, vhca_set_page);
	/*
	 * n counts the SG entries mapped whole.  0 with pages set is the
	 * first entry mapped in part (the page list is full; *sg_offset says
	 * where the ULP continues, as ib_srp does with large entries): that
	 * part is this MR's mapping all the same.
	 */
	if (n < 0 || !mr->npages)
		return n;
	err = vhca_core_mr_map_end(mr->core, mr->npages, ibmr->iova,
				   ibmr->length, ilog2(ibmr->page_size));
	return err ? err : n;
}

int vhca_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct vhca_mr *mr = to_vmr(ibmr);
	int err;

	if (mr->umem && mr->umem->is_odp)
		return vhca_odp_dereg_mr(mr);
	err = vhca_core_destroy_mr(mr->core);
	if (err)
		return err;
	ib_umem_release(mr->umem);	/* reg_user_mr's, after DESTROY_MR */
	kfree(mr);
	return 0;
}
