// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * uverbs_dm.c - device memory (ibv_alloc_dm, vhca_hw_verbs.h "Device
 * memory"): alloc_dm reserves whole pages of BAR 3 (ALLOC_DM) and answers
 * with their mmap offset in a driver attribute of UVERBS_METHOD_DM_ALLOC
 * (vhca-abi.h), reg_dm_mr makes a zero-based region on them (REG_DM_MR).
 *
 * Lifetime, as mlx5's MEMIC: dealloc_dm only removes the mmap entry; the
 * pages go back to the device (FREE_DM) in mmap_free, once no process
 * maps them any more, so that they are never another context's while
 * this one can still reach them.  Documentation/driver.md "User verbs".
 *
 * On 7.3 an allocation can also be exported as a dma-buf
 * (ibv_dm_export_dmabuf_fd): BAR 3 is the p2pdma provider.
 */
#include <linux/pci-p2pdma.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#define UVERBS_MODULE_NAME vhca_ib
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>

#include "vhca_shim.h"
#include "compat.h"

static_assert(PAGE_SIZE == VHCA_DM_PAGE_SIZE);

static struct ib_dm *vhca_ib_alloc_dm(struct ib_device *ibdev,
				      struct ib_ucontext *ibuc,
				      struct ib_dm_alloc_attr *attr,
				      struct uverbs_attr_bundle *attrs)
{
	struct vhca_kapi_device *kdev = to_kdev(ibdev);
	struct vhca_mmap_entry *entry;
	unsigned long long size;
	struct vhca_dm *dm;
	u64 offset;
	int err;

	dm = kzalloc(sizeof(*dm), GFP_KERNEL);
	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!dm || !entry) {
		err = -ENOMEM;
		goto free;
	}
	err = vhca_core_alloc_dm(kdev->core, attr->length, attr->alignment,
				 &entry->dm, &entry->dm_offset, &size);
	if (err)
		goto free;
	entry->kdev = kdev;
	entry->address = pci_resource_start(kdev->pdev, VHCA_DM_BAR) +
			 entry->dm_offset;
	err = rdma_user_mmap_entry_insert(ibuc, &entry->rdma_entry, size);
	if (err) {
		WARN_ON(vhca_core_free_dm(entry->dm));
		goto free;
	}
	dm->entry = entry;
	offset = rdma_user_mmap_get_offset(&entry->rdma_entry);
	err = uverbs_copy_to(attrs, VHCA_IB_ATTR_ALLOC_DM_MMAP_OFFSET, &offset,
			     sizeof(offset));
	if (err) {
		rdma_user_mmap_entry_remove(&entry->rdma_entry);  /* frees */
		kfree(dm);
		return ERR_PTR(err);
	}
	return &dm->ibdm;

free:
	kfree(entry);
	kfree(dm);
	return ERR_PTR(err);
}

static int vhca_ib_dealloc_dm(struct ib_dm *ibdm,
			      struct uverbs_attr_bundle *attrs)
{
	struct vhca_dm *dm = container_of(ibdm, struct vhca_dm, ibdm);

	/* FREE_DM follows in vhca_dm_mmap_free, after the last unmap. */
	rdma_user_mmap_entry_remove(&dm->entry->rdma_entry);
	kfree(dm);
	return 0;
}

/* mmap_free of a device memory entry: nothing maps its pages any more. */
void vhca_dm_mmap_free(struct vhca_mmap_entry *entry)
{
	int err = vhca_core_free_dm(entry->dm);

	/* Regions hold the ib_dm (usecnt), so the device is never BUSY
	 * here; a dead device has nothing left to free. */
	if (err)
		ibdev_warn(&entry->kdev->ibdev, "FREE_DM 0x%x: %d\n",
			   entry->dm_offset, err);
}

static struct ib_mr *vhca_ib_reg_dm_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
				       struct ib_dm_mr_attr *attr,
				       struct uverbs_attr_bundle *attrs)
{
	struct vhca_dm *dm = container_of(ibdm, struct vhca_dm, ibdm);
	struct vhca_mr *mr;
	int err;

	/* ib_uverbs checked IB_ZERO_BASED and the range against the ib_dm:
	 * the region's address 0 is byte attr->offset of the allocation. */
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = vhca_core_reg_dm_mr(to_kdev(ibpd->device)->core, to_vpd(ibpd)->pdn,
				  attr->access_flags & ~IB_ZERO_BASED,
				  dm->entry->dm_offset + attr->offset,
				  attr->length, &mr->core);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->ibmr.lkey = vhca_core_mr_key(mr->core);
	mr->ibmr.rkey = mr->ibmr.lkey;
	mr->ibmr.iova = 0;
	mr->ibmr.length = attr->length;
	return &mr->ibmr;
}

/* ibv_import_dm: the mmap offset and length of an allocation. */
static int UVERBS_HANDLER(VHCA_IB_METHOD_DM_QUERY)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_dm *ibdm = uverbs_attr_get_obj(attrs,
						 VHCA_IB_ATTR_QUERY_DM_HANDLE);
	struct vhca_dm *dm = container_of(ibdm, struct vhca_dm, ibdm);
	u64 offset = rdma_user_mmap_get_offset(&dm->entry->rdma_entry);
	u64 length = ibdm->length;
	int err;

	err = uverbs_copy_to(attrs, VHCA_IB_ATTR_QUERY_DM_RESP_MMAP_OFFSET,
			     &offset, sizeof(offset));
	if (err)
		return err;
	return uverbs_copy_to(attrs, VHCA_IB_ATTR_QUERY_DM_RESP_LENGTH, &length,
			      sizeof(length));
}

DECLARE_UVERBS_NAMED_METHOD(
	VHCA_IB_METHOD_DM_QUERY,
	UVERBS_ATTR_IDR(VHCA_IB_ATTR_QUERY_DM_HANDLE, UVERBS_OBJECT_DM,
			UVERBS_ACCESS_READ, UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(VHCA_IB_ATTR_QUERY_DM_RESP_MMAP_OFFSET,
			    UVERBS_ATTR_TYPE(u64), UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(VHCA_IB_ATTR_QUERY_DM_RESP_LENGTH,
			    UVERBS_ATTR_TYPE(u64), UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_DM,
			      &UVERBS_METHOD(VHCA_IB_METHOD_DM_QUERY));

ADD_UVERBS_ATTRIBUTES_SIMPLE(
	vhca_ib_dm, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC,
	UVERBS_ATTR_PTR_OUT(VHCA_IB_ATTR_ALLOC_DM_MMAP_OFFSET,
			    UVERBS_ATTR_TYPE(u64), UA_MANDATORY));

/* Chained into ib_device.driver_def by uverbs_uapi.c. */
const struct uapi_definition vhca_dm_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DM, &vhca_ib_dm),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_DM),
	{},
};

#ifdef VHCA_HAVE_MMAP_GET_PFNS
/*
 * ibv_dm_export_dmabuf_fd: ib_uverbs' UVERBS_METHOD_DMABUF_ALLOC (7.3)
 * finds the mmap entry by the offset the provider was given (a byte
 * offset, as mlx5's), asks for its physical range and exports it as a
 * dma-buf for peer-to-peer importers; removing the entry (dealloc_dm)
 * revokes such dma-bufs (ib_core_uverbs.c), as it zaps mappings.
 */
static struct rdma_user_mmap_entry *
vhca_ib_pgoff_to_mmap_entry(struct ib_ucontext *ibuc, off_t pg_off)
{
	return rdma_user_mmap_entry_get_pgoff(ibuc, pg_off >> PAGE_SHIFT);
}

/* Device memory only: a doorbell page is no buffer to share. */
static int vhca_ib_mmap_get_pfns(struct rdma_user_mmap_entry *rdma_entry,
				 struct phys_vec *phys_vec,
				 struct p2pdma_provider **provider)
{
	struct vhca_mmap_entry *entry =
		container_of(rdma_entry, struct vhca_mmap_entry, rdma_entry);

	if (!entry->dm)
		return -EINVAL;
	phys_vec->paddr = entry->address;
	phys_vec->len = rdma_entry->npages * PAGE_SIZE;
	/* NULL: no CONFIG_PCI_P2PDMA, or vhca_dm_p2pdma_init failed */
	*provider = pcim_p2pdma_provider(entry->kdev->pdev, VHCA_DM_BAR);
	return *provider ? 0 : -EOPNOTSUPP;
}

/* BAR 3 as a p2pdma provider (device-managed: released at unbind). */
void vhca_dm_p2pdma_init(struct vhca_kapi_device *kdev)
{
	int err = pcim_p2pdma_init(kdev->pdev);

	if (err)
		dev_warn(&kdev->pdev->dev,
			 "no dma-buf export of device memory: p2pdma %d\n", err);
}
#else
void vhca_dm_p2pdma_init(struct vhca_kapi_device *kdev)
{
}
#endif

/* Added by vhca_uapi_register when the device has VHCA_DEV_CAP_DM. */
const struct ib_device_ops vhca_dm_ops = {
	.alloc_dm = vhca_ib_alloc_dm,
	.dealloc_dm = vhca_ib_dealloc_dm,
#ifdef VHCA_HAVE_MMAP_GET_PFNS
	.mmap_get_pfns = vhca_ib_mmap_get_pfns,		/* 7.3 */
	.pgoff_to_mmap_entry = vhca_ib_pgoff_to_mmap_entry,
#endif
	.reg_dm_mr = vhca_ib_reg_dm_mr,
};
