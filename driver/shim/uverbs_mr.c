// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * uverbs_mr.c - reg_user_mr and rereg_user_mr: pin the user range
 * (ib_umem), pick the largest page size the device and the range allow,
 * list the pages in the core's paged region and register it with the IB
 * access flags (local write, remote read/write/atomic); reg_user_mr_dmabuf
 * the same over a dma-buf's pages.  dereg_mr (verbs_mr.c) releases the
 * umem after DESTROY_MR.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>
#include <rdma/ib_verbs.h>

#include "vhca_shim.h"
#include "compat.h"

/* A paged core region listing umem's pages, as large as the device and
 * virt_addr's alignment allow (page_size_cap: bit n = 2^n bytes), not yet
 * registered; *page_shift its page size. */
static int vhca_umem_pages(struct ib_device *ibdev, struct ib_umem *umem,
			   u64 virt_addr, struct vhca_core_mr **out,
			   unsigned int *page_shift)
{
	struct vhca_kapi_device *kdev = to_kdev(ibdev);
	const struct vhca_device_attr *attr = vhca_core_device_attr(kdev->core);
	struct ib_block_iter biter;
	unsigned long page_size;
	unsigned int i = 0;
	int err;

	page_size = ib_umem_find_best_pgsz(umem,
					   le64_to_cpu(attr->page_size_cap) &
					   GENMASK_ULL(VHCA_MAX_PAGE_SHIFT,
						       VHCA_MIN_PAGE_SHIFT),
					   virt_addr);
	if (!page_size)
		return -EINVAL;
	err = vhca_core_create_paged_mr(kdev->core,
					ib_umem_num_dma_blocks(umem, page_size), out);
	if (err)
		return err;
	rdma_umem_for_each_dma_block(umem, &biter, page_size)
		vhca_core_mr_set_page(*out, i++, rdma_block_iter_dma_address(&biter));
	*page_shift = ilog2(page_size);
	return 0;
}

static bool vhca_udata_empty(struct ib_udata *udata)
{
	return !udata->inlen || ib_is_udata_cleared(udata, 0, udata->inlen);
}

/*
 * Register mr->umem, pinned by the caller, as a region of length bytes at
 * virt_addr; on failure the umem is released and mr freed.
 */
static struct ib_mr *vhca_register_umem(struct ib_pd *ibpd,
					struct vhca_mr *mr, u64 length,
					u64 virt_addr, int access)
{
	unsigned int page_shift;
	int err;

	err = vhca_umem_pages(ibpd->device, mr->umem, virt_addr, &mr->core,
			      &page_shift);
	if (err)
		goto release;
	err = vhca_core_mr_register(mr->core, to_vpd(ibpd)->pdn, virt_addr,
				    length, page_shift, access);
	if (err)
		goto destroy;
	mr->access = access;
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

struct ib_mr *vhca_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access,
				  struct ib_udata *udata)
{
	struct vhca_mr *mr;
	int err;

	if (!udata)
		return ERR_PTR(-EOPNOTSUPP);	/* kernel ULPs: FRWR */
	if (!vhca_udata_empty(udata))
		return ERR_PTR(-EOPNOTSUPP);
	if (access & IB_ACCESS_ON_DEMAND)
		return vhca_odp_reg_user_mr(ibpd, start, length, virt_addr,
					    access);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = vhca_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		kfree(mr);
		return ERR_PTR(err);
	}
	return vhca_register_umem(ibpd, mr, length, virt_addr, access);
}

/*
 * IBV_REG_DMABUF_MR: a region over length bytes at offset of the dma-buf
 * fd, the exporter's pages mapped for the device and pinned for the
 * region's life (ib_umem_dmabuf_get_pinned, as efa and irdma do): the
 * translation is written once, like a pinned user region's, so the
 * exporter may not move the buffer (a pinned attachment).  The dynamic,
 * revocable kind (move_notify, ODP-like invalidation) is not provided:
 * ib_uverbs passes no IB_ACCESS_ON_DEMAND here (not a REG_DMABUF_MR
 * access flag), and it would be -EOPNOTSUPP.  dereg_mr releases the
 * attachment through ib_umem_release.
 */
struct ib_mr *vhca_ib_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					 u64 length, u64 virt_addr, int fd,
					 int access, struct ib_udata *udata)
{
	struct ib_umem_dmabuf *umem_dmabuf;
	struct vhca_mr *mr;

	if (!udata || !vhca_udata_empty(udata) ||
	    (access & IB_ACCESS_ON_DEMAND))
		return ERR_PTR(-EOPNOTSUPP);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	umem_dmabuf = ib_umem_dmabuf_get_pinned(ibpd->device, offset, length,
						fd, access);
	if (IS_ERR(umem_dmabuf)) {
		kfree(mr);
		return ERR_CAST(umem_dmabuf);
	}
	mr->umem = &umem_dmabuf->umem;
	return vhca_register_umem(ibpd, mr, length, virt_addr, access);
}

/*
 * IBV_REREG_MR: IBA 11.2.8 (Reregister Memory Region) on the same MR
 * handle and keys: REREG_MR gives the region the new translation, PD and
 * access at once, and a refusal leaves it as it was.  Without
 * IB_MR_REREG_TRANS the pinned pages are listed again (pinned anew only
 * when the new access needs them writable); a replaced umem is released
 * once the device has the new page list.  Returns NULL: ib_uverbs keeps
 * this ib_mr and updates its pd, iova and length.
 */
struct ib_mr *vhca_ib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				    u64 length, u64 virt_addr, int access,
				    struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct vhca_mr *mr = to_vmr(ibmr);
	struct ib_pd *pd = (flags & IB_MR_REREG_PD) ? ibpd : ibmr->pd;
	struct ib_umem *umem = mr->umem;
	struct vhca_core_mr *staged;
	unsigned int page_shift;
	int err;

	/* A dma-buf region's pages are the exporter's: no new translation. */
	if (!udata || !mr->umem || mr->umem->is_odp || mr->umem->is_dmabuf ||
	    (access & IB_ACCESS_ON_DEMAND) || !vhca_udata_empty(udata))
		return ERR_PTR(-EOPNOTSUPP);
	if (flags & ~(IB_MR_REREG_TRANS | IB_MR_REREG_PD | IB_MR_REREG_ACCESS))
		return ERR_PTR(-EOPNOTSUPP);
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->umem->address;
		length = ibmr->length;
		virt_addr = ibmr->iova;
	}
	if ((flags & IB_MR_REREG_TRANS) ||
	    (ib_access_writable(access) && !mr->umem->writable)) {
		umem = vhca_umem_get(ibmr->device, start, length, access);
		if (IS_ERR(umem))
			return ERR_CAST(umem);
	}
	err = vhca_umem_pages(ibmr->device, umem, virt_addr, &staged, &page_shift);
	if (!err) {
		err = vhca_core_mr_reregister(mr->core, staged, to_vpd(pd)->pdn,
					      virt_addr, length, page_shift,
					      access);
		vhca_core_destroy_mr(staged);	/* never registered: no command */
	}
	if (err) {
		/* A lost command: the device may use the new pages. */
		if (umem != mr->umem && err != -ETIMEDOUT && err != -EIO)
			ib_umem_release(umem);
		return ERR_PTR(err);
	}
	if (umem != mr->umem) {
		ib_umem_release(mr->umem);
		mr->umem = umem;
	}
	mr->access = access;
	return NULL;
}
