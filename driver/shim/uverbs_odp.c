// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * uverbs_odp.c - on-demand paging (uapi/vhca_hw_odp.h, Documentation/
 * driver.md "On-demand paging"), modelled on mlx5's odp.c:
 *  - reg_user_mr with IB_ACCESS_ON_DEMAND: ib_umem_odp_get (no pinning,
 *    an mmu_interval_notifier over the range) and an ODP region on the
 *    device with every page absent;
 *  - a page-fault event (EQ 0 interrupt) queues a work item that faults
 *    the pages in with ib_umem_odp_map_dma_and_lock (hmm_range_fault),
 *    writes their DMA addresses with ODP_MAP under umem_mutex, and sends
 *    ODP_RESUME (with the error flag when the range cannot be mapped);
 *  - the notifier's invalidate takes umem_mutex, sends ODP_INVALIDATE
 *    (the device no longer uses the pages when it returns) and then
 *    unmaps them (ib_umem_odp_unmap_dma_pages).
 * umem_mutex orders a fault's ODP_MAP against an invalidation: a page is
 * never given to the device after the notifier took it away.  The
 * regions are found by key index in kdev->odp_mrs; dereg_mr removes the
 * region from it and flushes the work queue before DESTROY_MR, so no
 * fault work uses a freed region.
 * dereg_mr makes every page absent on the device and detaches the region
 * from the notifier (umem->private NULL, under umem_mutex) before
 * DESTROY_MR frees the core region, so an invalidation never uses it.
 * On whenever the device has VHCA_DEV_CAP_ODP.  ibv_advise_mr (prefetch)
 * is uverbs_odp_prefetch.c, implicit regions uverbs_odp_implicit.c.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>

#include "vhca_shim.h"
#include "compat.h"

#define VHCA_ODP_CHUNK	64	/* pages per ODP_MAP (one mailbox half) */
/* Pages are the umem's: 4 KiB, or the huge page size with
 * IB_ACCESS_HUGETLB (ib_umem_odp_get picks umem->page_shift). */

struct vhca_odp_fault {
	struct work_struct work;
	struct vhca_kapi_device *kdev;
	unsigned int subtype;
	unsigned int qp_handle;
	unsigned int key;
	u64 addr;
	u32 len;
};

bool vhca_odp_enabled(struct vhca_kapi_device *kdev)
{
	return kdev->odp_wq != NULL;
}

/*
 * The device's page index of the umem's first page: 0 for an explicit
 * region (its translation starts at the umem), the page's address for a
 * child of an implicit region (whose translation is the address space).
 */
static u64 vhca_odp_device_base(struct vhca_mr *mr, struct ib_umem_odp *umem)
{
	return mr->odp_implicit ? ib_umem_start(umem) >> umem->page_shift : 0;
}

/*
 * The umem's pages [first, first + n) <- their DMA addresses on the
 * device, one ODP_MAP per run of usable entries (at most VHCA_ODP_CHUNK
 * pages each).
 */
static int vhca_odp_map_pages(struct vhca_mr *mr, struct ib_umem_odp *umem,
			      unsigned long first, unsigned long n)
{
	u64 base = vhca_odp_device_base(mr, umem);
	unsigned long long dma[VHCA_ODP_CHUNK];
	unsigned long i, run = first, count = 0;
	dma_addr_t page_dma;
	int usable, err;

	lockdep_assert_held(&umem->umem_mutex);
	for (i = first; i <= first + n; i++) {
		/* A page only readable (a snapshot of a read-only mapping:
		 * the zero page, a page shared copy-on-write) is left absent
		 * for a writable region: its first write faults it in
		 * writable (compat.h vhca_odp_page_dma). */
		usable = i < first + n ? vhca_odp_page_dma(umem, i, &page_dma) : 0;
		if (usable < 0)
			return usable;
		if (usable) {
			if (!count)
				run = i;
			dma[count++] = page_dma;
		}
		if (count && (!usable || count == VHCA_ODP_CHUNK)) {
			err = vhca_core_odp_map(mr->core, base + run, count,
						dma);
			if (err)
				return err;
			count = 0;
		}
	}
	return 0;
}

/*
 * [va, va + len) of umem (the region's, or a child of an implicit
 * region, inside it) to the device; 0 when done.  fault: make the pages
 * present (writable when the umem is); without it, only the pages the
 * process has mapped already go to the device
 * (IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT).
 */
int vhca_odp_resolve_umem(struct vhca_mr *mr, struct ib_umem_odp *umem,
			  u64 va, u64 len, bool fault)
{
	u64 access = VHCA_ODP_ACCESS_READ;
	unsigned long first;
	int npages, err;

	if (umem->umem.writable)
		access |= VHCA_ODP_ACCESS_WRITE;
	npages = ib_umem_odp_map_dma_and_lock(umem, va, len, access, fault);
	if (npages < 0)
		return npages;
	first = (ALIGN_DOWN(va, 1UL << umem->page_shift) - ib_umem_start(umem)) >>
		umem->page_shift;
	err = vhca_odp_map_pages(mr, umem, first, npages);
	mutex_unlock(&umem->umem_mutex);
	return err;
}

/* [va, va + len) of the process's range to the device; 0 when done. */
int vhca_odp_resolve(struct vhca_mr *mr, u64 va, u64 len, bool fault)
{
	if (mr->odp_implicit)
		return vhca_odp_implicit_resolve(mr, va, len, fault);
	return vhca_odp_resolve_umem(mr, to_ib_umem_odp(mr->umem), va, len,
				     fault);
}

/* A fault's [addr, addr + len), in the region's address space. */
static int vhca_odp_fault_resolve(struct vhca_mr *mr, u64 addr, u32 len)
{
	u64 off = addr - mr->odp_iova;

	if (mr->odp_implicit)	/* the address space is the process's */
		return vhca_odp_resolve(mr, addr, len, true);
	if (addr < mr->odp_iova || off >= mr->umem->length)
		return -ENOENT;
	return vhca_odp_resolve(mr, mr->umem->address + off,
				min_t(u64, len, mr->umem->length - off), true);
}

static void vhca_odp_fault_work(struct work_struct *work)
{
	struct vhca_odp_fault *f = container_of(work, struct vhca_odp_fault,
						work);
	struct vhca_kapi_device *kdev = f->kdev;
	struct vhca_mr *mr = xa_load(&kdev->odp_mrs, f->key >> 8);
	int err = -ENOENT;

	if (mr && vhca_core_mr_key(mr->core) == f->key)
		err = vhca_odp_fault_resolve(mr, f->addr, f->len);
	if (err)
		ibdev_warn_ratelimited(&kdev->ibdev,
				       "ODP fault key 0x%x addr 0x%llx len %u: %d\n",
				       f->key, f->addr, f->len, err);
	/* A region destroyed meanwhile: the retried access fails by key.
	 * A failed ODP_RESUME is logged by the core (its command log). */
	vhca_core_odp_resume(kdev->core, f->qp_handle, err && err != -ENOENT);
	kfree(f);
}

/* EQ 0 interrupt (hard IRQ): the work item does the rest. */
static void vhca_odp_page_fault(void *context, unsigned int subtype,
				unsigned int qp_handle, unsigned int key,
				unsigned long long addr, unsigned int len,
				unsigned int flags)
{
	struct vhca_kapi_device *kdev = context;
	struct vhca_odp_fault *f = kzalloc(sizeof(*f), GFP_ATOMIC);

	if (!f) {
		ibdev_err_ratelimited(&kdev->ibdev,
				      "ODP fault on QP 0x%x lost: no memory\n",
				      qp_handle);
		return;
	}
	INIT_WORK(&f->work, vhca_odp_fault_work);
	f->kdev = kdev;
	f->subtype = subtype;
	f->qp_handle = qp_handle;
	f->key = key;
	f->addr = addr;
	f->len = len;
	queue_work(kdev->odp_wq, &f->work);
}

static bool vhca_odp_invalidate(struct mmu_interval_notifier *mni,
				const struct mmu_notifier_range *range,
				unsigned long cur_seq)
{
	struct ib_umem_odp *umem = container_of(mni, struct ib_umem_odp,
						notifier);
	struct vhca_mr *mr = umem->private;
	unsigned long start, end;
	int err;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&umem->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max_t(u64, ib_umem_start(umem), range->start);
	end = min_t(u64, ib_umem_end(umem), range->end);
	if (mr && start < end) {
		/* every umem page (4 KiB, or huge with IB_ACCESS_HUGETLB) the
		 * range touches */
		unsigned long first = (start - ib_umem_start(umem)) >>
				      umem->page_shift;
		unsigned long last = (end - 1 - ib_umem_start(umem)) >>
				     umem->page_shift;

		err = vhca_core_odp_invalidate(mr->core,
					       vhca_odp_device_base(mr, umem) +
					       first, last - first + 1);
		/* A failed command means a dead device: it is reset. */
		if (err)
			ibdev_warn_ratelimited(mr->ibmr.device,
					       "ODP_INVALIDATE: %d\n", err);
	}
	ib_umem_odp_unmap_dma_pages(umem, start, end);
	mutex_unlock(&umem->umem_mutex);
	return true;
}

const struct mmu_interval_notifier_ops vhca_odp_mn_ops = {
	.invalidate = vhca_odp_invalidate,
};

/*
 * dereg_mr, before DESTROY_MR: every page of umem absent on the device
 * and the umem's notifier no longer names the region (mr NULL), or named
 * again (mr) when DESTROY_MR failed.
 */
void vhca_odp_detach_umem(struct ib_umem_odp *umem, struct vhca_mr *mr)
{
	struct vhca_mr *old;
	int err;

	mutex_lock(&umem->umem_mutex);
	old = umem->private;
	if (old && !mr) {
		err = vhca_core_odp_invalidate(old->core,
					       vhca_odp_device_base(old, umem),
					       ib_umem_odp_num_pages(umem));
		if (err)	/* a dead device: it is reset */
			ibdev_warn_ratelimited(old->ibmr.device,
					       "ODP_INVALIDATE: %d\n", err);
	}
	umem->private = mr;
	mutex_unlock(&umem->umem_mutex);
}

struct ib_mr *vhca_odp_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				   u64 virt_addr, int access)
{
	struct vhca_kapi_device *kdev = to_kdev(ibpd->device);
	struct ib_umem_odp *umem;
	struct vhca_mr *mr;
	int err;

	if (!vhca_odp_enabled(kdev))
		return ERR_PTR(-EOPNOTSUPP);
	/* Implicit ODP: the whole address space, as mlx5 (iova 0). */
	if (!start && length == U64_MAX)
		return virt_addr ? ERR_PTR(-EINVAL) :
				   vhca_odp_reg_implicit(ibpd, access);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	umem = ib_umem_odp_get(ibpd->device, start, length, access,
			       &vhca_odp_mn_ops);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto free;
	}
	if (!vhca_odp_umem_supported(umem)) {	/* compat.h: huge pages */
		err = -EOPNOTSUPP;
		goto release;
	}
	mr->umem = &umem->umem;
	mr->odp_iova = virt_addr;
	err = vhca_core_create_odp_mr(kdev->core, to_vpd(ibpd)->pdn, virt_addr,
				      length, start - ib_umem_start(umem),
				      ib_umem_odp_num_pages(umem),
				      umem->page_shift,
				      access & ~(IB_ACCESS_ON_DEMAND |
						 IB_ACCESS_HUGETLB),
				      &mr->core);
	if (err)
		goto release;
	mutex_lock(&umem->umem_mutex);
	umem->private = mr;
	mutex_unlock(&umem->umem_mutex);
	return vhca_odp_publish(kdev, mr, access);

release:
	ib_umem_odp_release(umem);
free:
	kfree(mr);
	return ERR_PTR(err);
}

/*
 * A region just created on the device goes in kdev->odp_mrs (faults and
 * prefetches find it there) and gets its keys; if it cannot, it is
 * destroyed again, umems and all.
 */
struct ib_mr *vhca_odp_publish(struct vhca_kapi_device *kdev,
			       struct vhca_mr *mr, int access)
{
	int err = xa_err(xa_store(&kdev->odp_mrs,
				  vhca_core_mr_key(mr->core) >> 8, mr,
				  GFP_KERNEL));

	if (err) {
		vhca_odp_dereg_mr(mr);
		return ERR_PTR(err);
	}
	mr->access = access;
	mr->ibmr.lkey = vhca_core_mr_key(mr->core);
	mr->ibmr.rkey = mr->ibmr.lkey;
	return &mr->ibmr;
}

/* dereg_mr of an ODP region: no fault work, then no page on the device
 * and no notifier naming the region, then DESTROY_MR, then the umems
 * (their release unmaps what is still mapped). */
int vhca_odp_dereg_mr(struct vhca_mr *mr)
{
	struct vhca_kapi_device *kdev = to_kdev(mr->ibmr.device);
	struct ib_umem_odp *umem = to_ib_umem_odp(mr->umem);
	int err;

	xa_erase(&kdev->odp_mrs, vhca_core_mr_key(mr->core) >> 8);
	flush_workqueue(kdev->odp_wq);
	if (mr->odp_implicit)
		vhca_odp_implicit_detach(mr, NULL);
	else
		vhca_odp_detach_umem(umem, NULL);
	err = vhca_core_destroy_mr(mr->core);
	if (err) {
		if (mr->odp_implicit)
			vhca_odp_implicit_detach(mr, mr);
		else
			vhca_odp_detach_umem(umem, mr);
		xa_store(&kdev->odp_mrs, vhca_core_mr_key(mr->core) >> 8, mr,
			 GFP_KERNEL);
		return err;
	}
	if (mr->odp_implicit)
		vhca_odp_implicit_release(mr);
	ib_umem_odp_release(umem);
	kfree(mr);
	return 0;
}

/*
 * What query_device reports: every access that waits for the driver
 * (vhca_hw_odp.h): a requester's SGEs on any QP type, an RC or XRC
 * responder's target or receive buffer (RNR NAK, the request is sent
 * again), SRQ receives included.  UD receives (RQ and SRQ): the datagram
 * whose buffer faults is dropped while the driver maps the page, which
 * UD allows (IBA 9.8.1: no delivery guarantee); mlx5 reports UD SEND and
 * SRQ_RECV with the same behaviour (mlx5_ib_internal_fill_odp_caps).
 * Not UC: a UC message whose buffer faults would be lost with no error
 * anywhere, on every first touch of a page, and mlx5 reports no UC caps.
 * ATOMIC WRITE (IBA 1.5 9.4.6) on a device that has it: its target is
 * checked as an RDMA WRITE's, so an absent page is the same responder
 * fault and RNR NAK, and its 8 bytes come from the WQE (no local SGE to
 * fault); 7.3 has the bit to say so (compat.h).
 */
void vhca_odp_query_device(struct vhca_kapi_device *kdev,
			   struct ib_device_attr *props)
{
	const struct vhca_device_attr *attr = vhca_core_device_attr(kdev->core);
	u32 connected = IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
			IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
			IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV;

	if (!vhca_odp_enabled(kdev))
		return;
	props->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	props->odp_caps.general_caps = IB_ODP_SUPPORT;
	if (le32_to_cpu(attr->dev_caps) & VHCA_DEV_CAP_ODP_IMPLICIT)
		props->odp_caps.general_caps |= IB_ODP_SUPPORT_IMPLICIT;
	if (le32_to_cpu(attr->dev_caps) & VHCA_DEV_CAP_ATOMIC_WRITE)
		connected |= VHCA_ODP_SUPPORT_ATOMIC_WRITE;
	/* a FLUSH's range faults in as a READ's does (rxe faults it too) */
	if (le32_to_cpu(attr->dev_caps) & (VHCA_DEV_CAP_FLUSH_GLOBAL |
					   VHCA_DEV_CAP_FLUSH_PERSISTENT))
		connected |= VHCA_ODP_SUPPORT_FLUSH;
	props->odp_caps.per_transport_caps.rc_odp_caps = connected;
	props->odp_caps.per_transport_caps.ud_odp_caps = IB_ODP_SUPPORT_SEND |
		IB_ODP_SUPPORT_RECV | IB_ODP_SUPPORT_SRQ_RECV;
	if (le32_to_cpu(attr->dev_caps) & VHCA_DEV_CAP_XRC)
		props->odp_caps.per_transport_caps.xrc_odp_caps = connected;
}

void vhca_odp_init(struct vhca_kapi_device *kdev)
{
	const struct vhca_device_attr *attr = vhca_core_device_attr(kdev->core);

	xa_init(&kdev->odp_mrs);
	if (!(le32_to_cpu(attr->dev_caps) & VHCA_DEV_CAP_ODP))
		return;
	kdev->odp_wq = alloc_ordered_workqueue("vhca_odp", WQ_MEM_RECLAIM);
	if (!kdev->odp_wq)
		return;
	vhca_core_set_page_fault_handler(kdev->core, vhca_odp_page_fault, kdev);
}

void vhca_odp_cleanup(struct vhca_kapi_device *kdev)
{
	if (kdev->odp_wq)
		destroy_workqueue(kdev->odp_wq);
	kdev->odp_wq = NULL;
	xa_destroy(&kdev->odp_mrs);
}
