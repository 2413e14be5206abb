// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * uverbs.c - user contexts: alloc/dealloc_ucontext with one
 * doorbell page of BAR 4 per context, mapped into the process with
 * rdma_user_mmap entries (uncached), and the PHC's clock info page
 * (ptp.c, read-only); the udata helpers and the pinning of
 * user rings shared by uverbs_queues.c.  The ABI is uapi/vhca-abi.h;
 * Documentation/driver.md "User verbs".
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "vhca_shim.h"
#include "compat.h"

/* One kernel page per doorbell page, and user rings in kernel pages. */
static_assert(PAGE_SIZE == VHCA_DB_PAGE_SIZE);
static_assert(PAGE_SIZE == VHCA_UVERBS_PAGE_SIZE);

/* A request of at least min_size bytes (an older provider's: the rest
 * reads 0) whose comp_mask has only bits of known. */
int vhca_udata_request_ext(struct ib_udata *udata, void *req, size_t size,
			   size_t min_size, u64 known)
{
	size_t len = min_t(size_t, udata->inlen, size);
	u64 comp_mask;

	if (udata->inlen < min_size)
		return -EINVAL;
	if (udata->inlen > size &&
	    !ib_is_udata_cleared(udata, size, udata->inlen - size))
		return -EOPNOTSUPP;
	memset(req, 0, size);
	if (ib_copy_from_udata(req, udata, len))
		return -EFAULT;
	/* Every request starts with its comp_mask. */
	memcpy(&comp_mask, req, sizeof(comp_mask));
	return comp_mask & ~known ? -EOPNOTSUPP : 0;
}

int vhca_udata_request(struct ib_udata *udata, void *req, size_t size)
{
	return vhca_udata_request_ext(udata, req, size, size, 0);
}

int vhca_udata_response(struct ib_udata *udata, void *resp, size_t size)
{
	return ib_copy_to_udata(udata, resp, min(udata->outlen, size));
}

void vhca_uring_release(struct vhca_uring *ring)
{
	ib_umem_release(ring->umem);
	ring->umem = NULL;
}

int vhca_uring_pin(struct ib_device *ibdev, u64 addr, u64 len,
		   struct vhca_uring *ring, struct vhca_core_ubuf **buf)
{
	struct vhca_kapi_device *kdev = to_kdev(ibdev);
	struct ib_block_iter biter;
	unsigned int npages, i = 0;
	int err;

	/* Rings start at a page boundary (their first CQE/WQE is byte 0). */
	if (!len || (addr & ~PAGE_MASK) || len > U32_MAX)
		return -EINVAL;
	ring->umem = vhca_umem_get(ibdev, addr, len, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(ring->umem)) {
		err = PTR_ERR(ring->umem);
		ring->umem = NULL;
		return err;
	}
	npages = ib_umem_num_dma_blocks(ring->umem, PAGE_SIZE);
	err = vhca_core_ubuf_create(kdev->core, npages, buf);
	if (err) {
		vhca_uring_release(ring);
		return err;
	}
	rdma_umem_for_each_dma_block(ring->umem, &biter, PAGE_SIZE)
		vhca_core_ubuf_set_page(*buf, i++,
					rdma_block_iter_dma_address(&biter));
	return 0;
}

/* What alloc_ucontext answers, and query_ucontext again (import). */
void vhca_ucontext_resp(struct ib_ucontext *ibuc,
			struct vhca_alloc_ucontext_resp *resp)
{
	struct vhca_ucontext *uc = to_vuc(ibuc);
	const struct vhca_device_attr *attr =
		vhca_core_device_attr(to_kdev(ibuc->device)->core);

	memset(resp, 0, sizeof(*resp));
	resp->db_mmap_offset = rdma_user_mmap_get_offset(uc->db_entry);
	resp->db_page = uc->db_page;
	resp->db_page_size = VHCA_DB_PAGE_SIZE;
	resp->max_log_cq = VHCA_MAX_LOG_CQ;
	resp->max_log_wq = VHCA_MAX_LOG_WQ;
	resp->max_sge = le32_to_cpu(attr->max_sge);
	resp->max_qp_wr = le32_to_cpu(attr->max_qp_wr);
	resp->max_srq_wr = le32_to_cpu(attr->max_srq_wr);
	/* The clock that provider/clock.c would otherwise ask
	 * ibv_query_device_ex for at every open. */
	resp->comp_mask = VHCA_UCONTEXT_RESP_CLOCK | VHCA_UCONTEXT_RESP_DEV_CAPS;
	resp->dev_caps = vhca_user_dev_caps(le32_to_cpu(attr->dev_caps));
	if (le32_to_cpu(attr->dev_caps) & VHCA_DEV_CAP_SQ_POLL)
		resp->comp_mask |= VHCA_UCONTEXT_RESP_SQ_POLL;
	if (le32_to_cpu(attr->dev_caps) & VHCA_DEV_CAP_CQE_TIMESTAMP)
		resp->hca_core_clock_khz = le32_to_cpu(attr->hca_core_clock_khz);
	if (uc->clock_entry) {
		resp->comp_mask |= VHCA_UCONTEXT_RESP_CLOCK_INFO;
		resp->clock_info_mmap_offset =
			rdma_user_mmap_get_offset(uc->clock_entry);
	}
}

/* The PHC's clock info page (ptp.c), when there is a PHC: an mmap entry
 * of this context for the device's one page. */
static int vhca_ucontext_clock_entry(struct vhca_ucontext *uc)
{
	struct page *page = vhca_ptp_clock_info_page(to_kdev(uc->ibuc.device));
	struct vhca_mmap_entry *entry;
	int err;

	if (!page)
		return 0;
	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->clock_info = page;
	err = rdma_user_mmap_entry_insert(&uc->ibuc, &entry->rdma_entry,
					  PAGE_SIZE);
	if (err) {
		kfree(entry);
		return err;
	}
	uc->clock_entry = &entry->rdma_entry;
	return 0;
}

static int vhca_ib_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct vhca_ucontext *uc = to_vuc(ibuc);
	struct vhca_kapi_device *kdev = to_kdev(ibuc->device);
	struct vhca_alloc_ucontext_resp resp;
	struct vhca_alloc_ucontext_req req;
	struct vhca_mmap_entry *entry;
	int err;

	err = vhca_udata_request(udata, &req, sizeof(req));
	if (err)
		return err;
	err = vhca_core_alloc_db_page(kdev->core, &uc->db_page);
	if (err)
		return err == -ENOSPC ? -ENOMEM : err;
	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry) {
		err = -ENOMEM;
		goto free_page;
	}
	entry->address = pci_resource_start(kdev->pdev, VHCA_DB_BAR) +
			 (phys_addr_t)uc->db_page * VHCA_DB_PAGE_SIZE;
	err = rdma_user_mmap_entry_insert(ibuc, &entry->rdma_entry, PAGE_SIZE);
	if (err) {
		kfree(entry);
		goto free_page;
	}
	uc->db_entry = &entry->rdma_entry;
	err = vhca_ucontext_clock_entry(uc);
	if (err)
		goto remove_entry;

	vhca_ucontext_resp(ibuc, &resp);
	err = vhca_udata_response(udata, &resp, sizeof(resp));
	if (err)
		goto remove_clock;
	return 0;

remove_clock:
	if (uc->clock_entry)
		rdma_user_mmap_entry_remove(uc->clock_entry);
remove_entry:
	rdma_user_mmap_entry_remove(uc->db_entry);
free_page:
	vhca_core_free_db_page(kdev->core, uc->db_page);
	return err;
}

static void vhca_ib_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct vhca_ucontext *uc = to_vuc(ibuc);

	/* Every object of the context is gone, and so is every mapping of
	 * its page (a VMA holds the uverbs file, and disassociation zaps
	 * them), so the page may go to the next context. */
	if (uc->clock_entry)
		rdma_user_mmap_entry_remove(uc->clock_entry);
	rdma_user_mmap_entry_remove(uc->db_entry);
	vhca_core_free_db_page(to_kdev(ibuc->device)->core, uc->db_page);
}

/*
 * The clock info page: kernel memory, read-only to the process (mlx5's
 * mlx5_ib_mmap_clock_info_page).  vm_insert_page holds a reference on the
 * page, so a mapping outlives the PHC harmlessly (it stops changing);
 * rdma_user_mmap_io would want I/O memory.
 */
static int vhca_mmap_clock_info(struct vm_area_struct *vma,
				struct vhca_mmap_entry *entry)
{
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vhca_vma_clear_maywrite(vma);
	return vm_insert_page(vma, vma->vm_start, entry->clock_info);
}

static int vhca_ib_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct vhca_mmap_entry *entry;
	int err;

	/* Doorbells are written, never read or executed. */
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	rdma_entry = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rdma_entry)
		return -EINVAL;
	entry = container_of(rdma_entry, struct vhca_mmap_entry, rdma_entry);
	if (entry->clock_info) {
		err = vhca_mmap_clock_info(vma, entry);
		rdma_user_mmap_entry_put(rdma_entry);
		return err;
	}
	/* Device memory is memory (BAR 3 is RAM in the device): write
	 * combining, the provider fences its copies; doorbells uncached.
	 * rdma_user_mmap_io wants the whole entry mapped. */
	err = rdma_user_mmap_io(ibuc, vma, PHYS_PFN(entry->address),
				rdma_entry->npages * PAGE_SIZE,
				entry->dm ? pgprot_writecombine(vma->vm_page_prot)
					  : pgprot_noncached(vma->vm_page_prot),
				rdma_entry);
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

static void vhca_ib_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct vhca_mmap_entry *entry =
		container_of(rdma_entry, struct vhca_mmap_entry, rdma_entry);

	if (entry->dm)
		vhca_dm_mmap_free(entry);
	kfree(entry);
}

/*
 * Device removal (unbind, rmmod) while processes hold contexts.  With this
 * op present ib_uverbs does not wait for the processes to exit: it
 * destroys their objects through our destroy verbs (the device stops
 * using their rings, which are then unpinned), zaps the doorbell mappings
 * (rdma_user_mmap_io: a later doorbell write lands in a dummy page, never
 * in the BAR), raises IB_EVENT_DEVICE_FATAL on their async fds, wakes their
 * completion channels and fails every later command with EIO.  Nothing else
 * of a context outlives its objects, so there is nothing more to release
 * here (mlx5 does the same).
 */
static void vhca_ib_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

/* Added to the ops table by vhca_ib_register (ib.c). */
const struct ib_device_ops vhca_uverbs_ops = {
	.uverbs_abi_ver = VHCA_UVERBS_ABI_VERSION,
	.advise_mr = vhca_ib_advise_mr,			/* uverbs_odp_prefetch.c */
	.alloc_ucontext = vhca_ib_alloc_ucontext,
	/* verbs_ah.c's create_ah: with udata it answers with the AV. */
	.create_user_ah = vhca_ib_create_ah,
	.dealloc_ucontext = vhca_ib_dealloc_ucontext,
	.disassociate_ucontext = vhca_ib_disassociate_ucontext,
	.mmap = vhca_ib_mmap,
	.mmap_free = vhca_ib_mmap_free,
	.query_ucontext = vhca_ib_query_ucontext,	/* uverbs_uapi.c */

	INIT_RDMA_OBJ_SIZE(ib_ucontext, vhca_ucontext, ibuc),
};
