// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * uverbs_odp_implicit.c - implicit on-demand paging: ibv_reg_mr(pd, NULL,
 * SIZE_MAX, IBV_ACCESS_ON_DEMAND), a region over the whole address space
 * of the process (lkey and rkey valid at every address), as mlx5's
 * implicit MR (drivers/infiniband/hw/mlx5/odp.c).
 *
 *  - The device region (VHCA_MR_F_ODP_IMPLICIT, uapi/vhca_hw_odp.h) has a
 *    sparse translation: page i is the page at address i << PAGE_SHIFT.
 *  - The kernel side is an implicit umem (ib_umem_odp_alloc_implicit: no
 *    range, no page lists) and child umems of VHCA_ODP_CHILD_SIZE aligned
 *    bytes (ib_umem_odp_alloc_child), made when a fault or a prefetch
 *    first touches their range, each with its own interval notifier
 *    (vhca_odp_mn_ops of uverbs_odp.c, which maps a child's page to the
 *    device page of its address).  mlx5's children are 1 GiB; a child's
 *    page lists cost 16 bytes per 4 KiB page, and 128 MiB keeps them at
 *    512 KiB in the small guests vhca runs in.
 *  - Children are made and looked up only in work items of the device's
 *    ordered ODP work queue (faults and prefetches), so mr->odp_children
 *    needs no lock of its own; dereg_mr flushes that queue first.  A
 *    child made for a range the process has not mapped (the fault or the
 *    prefetch fails with nothing mapped) is released at once, so children
 *    exist only where the device had pages.  A child whose pages the
 *    process unmaps later stays until dereg_mr (mlx5 frees such children
 *    from its notifier; not done here).
 */
#include <linux/mm_types.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>

#include "vhca_shim.h"

#define VHCA_ODP_CHILD_SHIFT	27	/* 128 MiB */
#define VHCA_ODP_CHILD_SIZE	(1UL << VHCA_ODP_CHILD_SHIFT)

struct ib_mr *vhca_odp_reg_implicit(struct ib_pd *ibpd, int access)
{
	struct vhca_kapi_device *kdev = to_kdev(ibpd->device);
	struct ib_umem_odp *root;
	struct vhca_mr *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	xa_init(&mr->odp_children);
	mr->odp_implicit = true;
	root = ib_umem_odp_alloc_implicit(ibpd->device, access);
	if (IS_ERR(root)) {
		err = PTR_ERR(root);
		goto free;
	}
	mr->umem = &root->umem;
	err = vhca_core_create_implicit_odp_mr(kdev->core, to_vpd(ibpd)->pdn,
					       PAGE_SHIFT,
					       access & ~(IB_ACCESS_ON_DEMAND |
							  IB_ACCESS_HUGETLB),
					       &mr->core);
	if (err)
		goto release;
	return vhca_odp_publish(kdev, mr, access);

release:
	ib_umem_odp_release(root);
free:
	kfree(mr);
	return ERR_PTR(err);
}

/* The child umem over va's VHCA_ODP_CHILD_SIZE bytes, made if missing. */
static struct ib_umem_odp *vhca_odp_child(struct vhca_mr *mr, u64 va,
					  bool *made)
{
	unsigned long index = va >> VHCA_ODP_CHILD_SHIFT;
	struct ib_umem_odp *child = xa_load(&mr->odp_children, index);
	int err;

	*made = false;
	if (child)
		return child;
	child = ib_umem_odp_alloc_child(to_ib_umem_odp(mr->umem),
					index << VHCA_ODP_CHILD_SHIFT,
					VHCA_ODP_CHILD_SIZE, &vhca_odp_mn_ops);
	if (IS_ERR(child))
		return child;
	mutex_lock(&child->umem_mutex);
	child->private = mr;
	mutex_unlock(&child->umem_mutex);
	err = xa_err(xa_store(&mr->odp_children, index, child, GFP_KERNEL));
	if (err) {
		ib_umem_odp_release(child);
		return ERR_PTR(err);
	}
	*made = true;
	return child;
}

/* A child just made for a fault that mapped nothing goes again. */
static void vhca_odp_child_drop_unused(struct vhca_mr *mr,
				       struct ib_umem_odp *child)
{
	bool unused;

	mutex_lock(&child->umem_mutex);
	unused = !child->npages;
	mutex_unlock(&child->umem_mutex);
	if (!unused)
		return;
	xa_erase(&mr->odp_children, ib_umem_start(child) >>
		 VHCA_ODP_CHILD_SHIFT);
	ib_umem_odp_release(child);
}

/*
 * [va, va + len) of an implicit region to the device, child by child;
 * 0 when done.  Addresses outside the process's address space are
 * -EFAULT, as an unmapped range is.  Runs on kdev->odp_wq only.
 */
int vhca_odp_implicit_resolve(struct vhca_mr *mr, u64 va, u64 len,
			      bool fault)
{
	u64 task_size = mr->umem->owning_mm->task_size;
	struct ib_umem_odp *child;
	u64 end, piece;
	bool made;
	int err;

	if (!len)
		return 0;
	if (va >= task_size || len > task_size - va)
		return -EFAULT;
	for (end = va + len; va < end; va += piece) {
		child = vhca_odp_child(mr, va, &made);
		if (IS_ERR(child))
			return PTR_ERR(child);
		piece = min_t(u64, end, ib_umem_end(child)) - va;
		err = vhca_odp_resolve_umem(mr, child, va, piece, fault);
		if (err && made)
			vhca_odp_child_drop_unused(mr, child);
		if (err)
			return err;
	}
	return 0;
}

/* dereg_mr: every child detached (mr NULL) or attached again (mr). */
void vhca_odp_implicit_detach(struct vhca_mr *implicit, struct vhca_mr *mr)
{
	struct ib_umem_odp *child;
	unsigned long index;

	xa_for_each(&implicit->odp_children, index, child)
		vhca_odp_detach_umem(child, mr);
}

/* dereg_mr, after DESTROY_MR: every child released. */
void vhca_odp_implicit_release(struct vhca_mr *mr)
{
	struct ib_umem_odp *child;
	unsigned long index;

	xa_for_each(&mr->odp_children, index, child) {
		xa_erase(&mr->odp_children, index);
		ib_umem_odp_release(child);
	}
	xa_destroy(&mr->odp_children);
}
