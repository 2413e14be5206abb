// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * uverbs_odp_prefetch.c - ibv_advise_mr (rdma-core's man page of that
 * name; the kernel's UVERBS_METHOD_ADVISE_MR): make ranges of ODP regions
 * present before the device touches them, as mlx5's odp.c does, so that
 * the first access does not wait for a page-fault event.
 *
 *  - PREFETCH_WRITE: the pages are faulted in writable and given to the
 *    device (ODP_MAP), as a write page fault would.
 *  - PREFETCH: the same.  mlx5 faults read-only here; the device's
 *    translation has no per-page write right (vhca_hw_odp.h), so a page
 *    of a writable region only goes to the device writable.
 *  - PREFETCH_NO_FAULT: only the pages the process has mapped already
 *    (and writable, for a writable region) go to the device; nothing is
 *    faulted in (ib_umem_odp_map_dma_and_lock with fault false).
 *
 * Every SGE is checked first, under the xarray's lock (dereg_mr's
 * xa_erase waits for it, so the region stays while it is read), whatever
 * the flags (an error comes back to the caller): its lkey names an ODP
 * region of this PD, its range is inside the region, and PREFETCH_WRITE
 * needs a writable region.  The prefetch itself is a work item on the
 * device's ODP work queue, which names the regions by key and looks them
 * up again: dereg_mr removes a region from kdev->odp_mrs and flushes that
 * work queue before the region goes, as for a page fault's work.  With
 * IB_UVERBS_ADVISE_MR_FLAG_FLUSH the call waits for the work item and
 * returns its first error; without it the call returns at once and the
 * work's errors are dropped (the advice is a hint: what is not present
 * faults at its first use).
 */
#include <linux/slab.h>
#include <linux/overflow.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>

#include "vhca_shim.h"

struct vhca_prefetch_work {
	struct work_struct work;
	struct vhca_kapi_device *kdev;
	bool fault;
	bool flush;		/* the caller waits: stop at the first error */
	int err;
	u32 num_sge;
	struct ib_sge sge[];
};

/*
 * The ODP region an SGE names, if its range is inside; NULL when there is
 * none (a region destroyed meanwhile, in the work item).  Under the
 * xarray's lock, or in a work item of kdev->odp_wq (see above).
 */
static struct vhca_mr *vhca_prefetch_region(struct vhca_kapi_device *kdev,
					    const struct ib_sge *sge)
{
	struct vhca_mr *mr = xa_load(&kdev->odp_mrs, sge->lkey >> 8);

	if (!mr || vhca_core_mr_key(mr->core) != sge->lkey)
		return NULL;
	if (mr->odp_implicit)	/* every address; the resolve checks it */
		return mr;
	if (sge->addr < mr->odp_iova ||
	    sge->addr - mr->odp_iova > mr->umem->length ||
	    sge->length > mr->umem->length - (sge->addr - mr->odp_iova))
		return NULL;
	return mr;
}

static int vhca_prefetch_check(struct ib_pd *ibpd,
			       enum ib_uverbs_advise_mr_advice advice,
			       const struct ib_sge *sge)
{
	struct vhca_kapi_device *kdev = to_kdev(ibpd->device);
	struct vhca_mr *mr;
	int err = 0;

	xa_lock(&kdev->odp_mrs);
	mr = vhca_prefetch_region(kdev, sge);
	if (!mr)
		err = -ENOENT;	/* as mlx5: no ODP region with that lkey */
	else if (mr->ibmr.pd != ibpd)
		err = -EPERM;
	else if (advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
		 !mr->umem->writable)
		err = -EPERM;
	xa_unlock(&kdev->odp_mrs);
	return err;
}

/* One SGE's range to the device; 0 when done (or nothing to do). */
static int vhca_prefetch_sge(struct vhca_kapi_device *kdev,
			     const struct ib_sge *sge, bool fault)
{
	struct vhca_mr *mr = vhca_prefetch_region(kdev, sge);

	if (!mr)
		return -ENOENT;
	if (!sge->length)
		return 0;
	return vhca_odp_resolve(mr, mr->umem->address +
				(sge->addr - mr->odp_iova), sge->length, fault);
}

static void vhca_prefetch_work_fn(struct work_struct *work)
{
	struct vhca_prefetch_work *w = container_of(work,
						    struct vhca_prefetch_work,
						    work);
	u32 i;

	for (i = 0; i < w->num_sge && !w->err; i++) {
		w->err = vhca_prefetch_sge(w->kdev, &w->sge[i], w->fault);
		if (!w->flush)
			w->err = 0;
	}
	if (!w->flush)
		kfree(w);
}

static int vhca_prefetch(struct vhca_kapi_device *kdev, bool fault,
			 bool flush, const struct ib_sge *sg_list, u32 num_sge)
{
	struct vhca_prefetch_work *w;
	int err = 0;

	w = kzalloc(struct_size(w, sge, num_sge), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	INIT_WORK(&w->work, vhca_prefetch_work_fn);
	w->kdev = kdev;
	w->fault = fault;
	w->flush = flush;
	w->num_sge = num_sge;
	memcpy(w->sge, sg_list, flex_array_size(w, sge, num_sge));
	queue_work(kdev->odp_wq, &w->work);
	if (flush) {
		flush_work(&w->work);
		err = w->err;
		kfree(w);
	}
	return err;
}

int vhca_ib_advise_mr(struct ib_pd *ibpd,
		      enum ib_uverbs_advise_mr_advice advice, u32 flags,
		      struct ib_sge *sg_list, u32 num_sge,
		      struct uverbs_attr_bundle *attrs)
{
	struct vhca_kapi_device *kdev = to_kdev(ibpd->device);
	bool fault = advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
	u32 i;
	int err;

	if (!vhca_odp_enabled(kdev))
		return -EOPNOTSUPP;
	switch (advice) {
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH:
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE:
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		break;
	default:
		return -EOPNOTSUPP;
	}
	for (i = 0; i < num_sge; i++) {
		err = vhca_prefetch_check(ibpd, advice, &sg_list[i]);
		if (err)
			return err;
	}
	/* ib_core accepts IB_UVERBS_ADVISE_MR_FLAG_FLUSH only. */
	return vhca_prefetch(kdev, fault, flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH,
			     sg_list, num_sge);
}
