// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * dm.c - device memory (ibv_alloc_dm; vhca_hw_verbs.h "Device memory"):
 * the kernel reserves whole pages of the device's BAR 3 and answers with
 * their mmap offset (VHCA_IB_ATTR_ALLOC_DM_MMAP_OFFSET, vhca-abi.h); the
 * pages are mapped write-combining, so ibv_memcpy_to_dm/from_dm are plain
 * CPU copies through the mapping.  ibv_reg_dm_mr: a zero-based region on
 * the allocation, used by the data path like any other lkey/rkey.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "vhca.h"

struct vhca_dm {
	struct verbs_dm vdm;
	volatile uint32_t *map;		/* the allocation's pages */
	size_t map_len;
	uint64_t length;		/* as asked: the copies' bound */
	uint64_t mmap_offset;		/* the kernel's name for the pages */
};

static struct vhca_dm *to_vdm(struct ibv_dm *dm)
{
	return container_of(dm, struct vhca_dm, vdm.dm);
}

/*
 * As mlx5's MEMIC: the device memory takes 4-byte accesses, so offsets
 * and lengths of copies are multiples of 4 (EINVAL), inside the
 * allocation (EFAULT).
 */
static int vhca_dm_range(const struct vhca_dm *dm, uint64_t offset,
			 size_t length)
{
	if ((offset | length) & 3)
		return EINVAL;
	if (offset > dm->length || length > dm->length - offset)
		return EFAULT;
	return 0;
}

static int vhca_memcpy_to_dm(struct ibv_dm *ibdm, uint64_t dm_offset,
			     const void *host_addr, size_t length)
{
	struct vhca_dm *dm = to_vdm(ibdm);
	volatile uint32_t *dst = dm->map + dm_offset / 4;
	const uint8_t *src = host_addr;
	int err = vhca_dm_range(dm, dm_offset, length);
	uint32_t word;
	size_t i;

	if (err)
		return err;
	for (i = 0; i < length / 4; i++) {
		memcpy(&word, src + 4 * i, 4);
		dst[i] = word;
	}
	/* The stores to the device memory before the doorbell of a WQE
	 * that reads them. */
	mmio_flush_writes();
	return 0;
}

static int vhca_memcpy_from_dm(void *host_addr, struct ibv_dm *ibdm,
			       uint64_t dm_offset, size_t length)
{
	struct vhca_dm *dm = to_vdm(ibdm);
	const volatile uint32_t *src = dm->map + dm_offset / 4;
	uint8_t *dst = host_addr;
	int err = vhca_dm_range(dm, dm_offset, length);
	uint32_t word;
	size_t i;

	if (err)
		return err;
	/* Loads after the completion that said the device wrote the bytes
	 * (ibv_poll_cq's acquire): uncached reads of WC memory see them. */
	for (i = 0; i < length / 4; i++) {
		word = src[i];
		memcpy(dst + 4 * i, &word, 4);
	}
	return 0;
}

/* Maps the allocation's pages (mmap_offset from the kernel) into dm. */
static int vhca_dm_map(struct ibv_context *context, struct vhca_dm *dm,
		       uint64_t mmap_offset, uint64_t length)
{
	void *map;

	dm->length = length;
	dm->mmap_offset = mmap_offset;
	dm->map_len = (length + VHCA_DM_PAGE_SIZE - 1) &
		      ~(size_t)(VHCA_DM_PAGE_SIZE - 1);
	map = mmap(NULL, dm->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   context->cmd_fd, mmap_offset);
	if (map == MAP_FAILED)
		return errno;
	dm->map = map;
	dm->vdm.dm.context = context;
	dm->vdm.dm.memcpy_to_dm = vhca_memcpy_to_dm;
	dm->vdm.dm.memcpy_from_dm = vhca_memcpy_from_dm;
	return 0;
}

struct ibv_dm *vhca_alloc_dm(struct ibv_context *context,
			     struct ibv_alloc_dm_attr *attr)
{
	VHCA_CMD_BUFFER(1) link;
	uint64_t mmap_offset = 0;
	struct vhca_dm *dm;
	int err;

	if (attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	dm = calloc(1, sizeof(*dm));
	if (!dm) {
		errno = ENOMEM;
		return NULL;
	}
	vhca_cmd_init(&link.cmd, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 1);
	vhca_cmd_attr(&link.cmd, VHCA_IB_ATTR_ALLOC_DM_MMAP_OFFSET,
		      sizeof(mmap_offset), (uintptr_t)&mmap_offset);
	err = ibv_cmd_alloc_dm(context, attr, &dm->vdm, &link.cmd);
	if (err)
		goto free;
	err = vhca_dm_map(context, dm, mmap_offset, attr->length);
	if (err) {
		ibv_cmd_free_dm(&dm->vdm);
		goto free;
	}
	return &dm->vdm.dm;

free:
	free(dm);
	errno = err;
	return NULL;
}

#if IBVERBS_PABI_VERSION >= 65
/*
 * ibv_dm_export_dmabuf_fd (rdma-core 65): a dma-buf of the allocation's
 * BAR 3 pages, made by the kernel from the mmap entry the offset names
 * (UVERBS_METHOD_DMABUF_ALLOC, with the driver's pgoff_to_mmap_entry
 * and mmap_get_pfns: Linux 7.3 has them; EOPNOTSUPP on a kernel without).
 * Importers must be peer-to-peer capable (ib_uverbs refuses others).
 */
int vhca_dm_export_dmabuf_fd(struct ibv_dm *ibdm)
{
	int fd = ibv_cmd_export_dmabuf_fd(ibdm->context,
					  to_vdm(ibdm)->mmap_offset);

	/* A kernel without the method has no DMABUF object at all. */
	if (fd < 0 && errno == EPROTONOSUPPORT)
		errno = EOPNOTSUPP;
	return fd;
}
#endif

int vhca_free_dm(struct ibv_dm *ibdm)
{
	struct vhca_dm *dm = to_vdm(ibdm);
	int err = ibv_cmd_free_dm(&dm->vdm);

	/* The kernel gives the pages back to the device once unmapped. */
	if (err)
		return err;
	munmap((void *)dm->map, dm->map_len);
	free(dm);
	return 0;
}

/* ibv_import_dm: another context's allocation, mapped here too. */
struct ibv_dm *vhca_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	VHCA_CMD_BUFFER(3) query;
	uint64_t mmap_offset = 0, length = 0;
	struct vhca_dm *dm;
	int err;

	vhca_cmd_init(&query.cmd, UVERBS_OBJECT_DM, VHCA_IB_METHOD_DM_QUERY, 3);
	vhca_cmd_attr(&query.cmd, VHCA_IB_ATTR_QUERY_DM_HANDLE, 0, dm_handle);
	vhca_cmd_attr(&query.cmd, VHCA_IB_ATTR_QUERY_DM_RESP_MMAP_OFFSET,
		      sizeof(mmap_offset), (uintptr_t)&mmap_offset);
	vhca_cmd_attr(&query.cmd, VHCA_IB_ATTR_QUERY_DM_RESP_LENGTH,
		      sizeof(length), (uintptr_t)&length);
	err = execute_ioctl(context, &query.cmd);
	if (err) {
		errno = err;
		return NULL;
	}
	dm = calloc(1, sizeof(*dm));
	if (!dm) {
		errno = ENOMEM;
		return NULL;
	}
	err = vhca_dm_map(context, dm, mmap_offset, length);
	if (err) {
		free(dm);
		errno = err;
		return NULL;
	}
	dm->vdm.handle = dm_handle;
	return &dm->vdm.dm;
}

void vhca_unimport_dm(struct ibv_dm *ibdm)
{
	struct vhca_dm *dm = to_vdm(ibdm);

	munmap((void *)dm->map, dm->map_len);
	free(dm);
}

struct ibv_mr *vhca_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *ibdm,
			      uint64_t dm_offset, size_t length,
			      unsigned int access)
{
	struct vhca_dm *dm = to_vdm(ibdm);
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_reg_dm_mr(pd, &dm->vdm, dm_offset, length, access, vmr,
				NULL);
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}
