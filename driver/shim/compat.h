/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * compat.h - what differs between the kernels vhca builds for (6.1,
 * 6.12, 7.3), decided by the feature probes of driver/compat (their
 * results: the generated vhca_compat.h of the build directory,
 * scripts/compat-probes.sh), never by a kernel version.  The one place
 * the shims test a VHCA_HAVE_* macro, with compat.c (the op adapters),
 * restrack.c and ib.c (ops set only where they exist).
 * Documentation/driver-build.md "Kernel compatibility" lists each point.
 */
#ifndef VHCA_SHIM_COMPAT_H
#define VHCA_SHIM_COMPAT_H

#include <linux/hmm.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>

#include "vhca_compat.h"
#include "vhca_hw.h"

/*
 * IBA 1.5's FLUSH and ATOMIC WRITE work requests (6.2 added them).  The
 * device executes both, for user space (the provider's ibv_wr_flush and
 * ibv_wr_atomic_write).  A kernel consumer cannot say what they need:
 * struct ib_send_wr and its ib_rdma_wr/ib_atomic_wr carry no FETH
 * (placement type, selectivity) and no place for ATOMIC WRITE's 8 bytes
 * (the kernel's ib_flush_wr was dropped from the series that added the
 * opcodes; rxe posts them with those fields zero), and no ULP posts them.
 * So post_send refuses both with -EOPNOTSUPP rather than as unknown
 * opcodes, until the kernel's API can carry them.
 */
static inline bool vhca_wr_opcode_is_iba15(enum ib_wr_opcode opcode)
{
#ifdef VHCA_HAVE_IB_WR_FLUSH
	return opcode == IB_WR_FLUSH || opcode == IB_WR_ATOMIC_WRITE;
#else
	return false;
#endif
}

/*
 * FLUSH's capabilities (IB_DEVICE_FLUSH_*, 6.2): what ib_check_mr_access
 * checks IB_ACCESS_FLUSH_* regions against and ibv_query_device_ex
 * reports.  6.1 has neither, and its core refuses the access flags.
 */
static inline u64 vhca_flush_cap_flags(u32 dev_caps)
{
	u64 flags = 0;

#ifdef VHCA_HAVE_IB_DEVICE_FLUSH
	if (dev_caps & VHCA_DEV_CAP_FLUSH_GLOBAL)
		flags |= IB_DEVICE_FLUSH_GLOBAL;
	if (dev_caps & VHCA_DEV_CAP_FLUSH_PERSISTENT)
		flags |= IB_DEVICE_FLUSH_PERSISTENT;
#endif
	return flags;
}

/*
 * The device's capabilities as the provider sees them (the ucontext
 * response): without IB_DEVICE_FLUSH_* (6.1) the core refuses
 * IB_ACCESS_FLUSH_* regions, so a FLUSH could name no region and the
 * provider must not offer ibv_wr_flush.
 */
static inline u32 vhca_user_dev_caps(u32 dev_caps)
{
#ifndef VHCA_HAVE_IB_DEVICE_FLUSH
	dev_caps &= ~(VHCA_DEV_CAP_FLUSH_GLOBAL | VHCA_DEV_CAP_FLUSH_PERSISTENT);
#endif
	return dev_caps;
}

/* Pin a user range: ib_umem_get_va from 7.3, ib_umem_get before. */
static inline struct ib_umem *vhca_umem_get(struct ib_device *ibdev,
					    unsigned long addr, size_t len,
					    int access)
{
#ifdef VHCA_HAVE_IB_UMEM_GET_VA
	return ib_umem_get_va(ibdev, addr, len, access);
#else
	return ib_umem_get(ibdev, addr, len, access);
#endif
}

/*
 * ODP: the access mask ib_umem_odp_map_dma_and_lock takes, and what it
 * left for page i of the umem.  Up to 6.12 dma_list[i] holds the DMA
 * address with ODP_READ_ALLOWED_BIT/ODP_WRITE_ALLOWED_BIT in its low
 * bits; from 7.3 the page is map.pfn_list[i] with HMM_PFN_VALID/
 * HMM_PFN_WRITE and its DMA address comes from hmm_dma_map_pfn (which
 * returns the mapping ib_umem_odp_map_dma_and_lock made, as mlx5 does).
 * pfn_list is indexed in PAGE_SIZE pages whatever the umem's page_shift,
 * and hmm_dma_map_pfn maps a whole page of 1 << page_shift bytes from its
 * first PAGE_SIZE entry (dma_entry_size), so page i of a huge-page umem
 * (IB_ACCESS_HUGETLB) is entry i << (page_shift - PAGE_SHIFT).  Behind
 * an IOMMU (dma_use_iova) 7.3 places entry n at n * dma_entry_size in an
 * IOVA range of PAGE_SIZE per entry, past its end for huge pages: such a
 * umem is refused (vhca_odp_umem_supported; -EOPNOTSUPP).
 */
#ifdef VHCA_HAVE_ODP_HMM_DMA_MAP
#define VHCA_ODP_ACCESS_READ	0
#define VHCA_ODP_ACCESS_WRITE	HMM_PFN_WRITE
#else
#define VHCA_ODP_ACCESS_READ	ODP_READ_ALLOWED_BIT
#define VHCA_ODP_ACCESS_WRITE	ODP_WRITE_ALLOWED_BIT
#endif

static inline bool vhca_odp_umem_supported(struct ib_umem_odp *umem)
{
#ifdef VHCA_HAVE_ODP_HMM_DMA_MAP
	return umem->page_shift == PAGE_SHIFT || !dma_use_iova(&umem->map.state);
#else
	return true;
#endif
}

/*
 * Page i of a umem after ib_umem_odp_map_dma_and_lock (umem_mutex held):
 * 1 and its DMA address in *dma when the device may use it (mapped, and
 * writable when the region is: the device's translation has no per-page
 * write right), 0 when not, -EFAULT when it cannot be DMA mapped.
 */
static inline int vhca_odp_page_dma(struct ib_umem_odp *umem, unsigned long i,
				    dma_addr_t *dma)
{
#ifdef VHCA_HAVE_ODP_HMM_DMA_MAP
	size_t entry = i << (umem->page_shift - PAGE_SHIFT);
	unsigned long pfn = umem->map.pfn_list[entry];

	if (!(pfn & HMM_PFN_VALID) ||
	    (umem->umem.writable && !(pfn & HMM_PFN_WRITE)))
		return 0;
	*dma = hmm_dma_map_pfn(umem->umem.ibdev->dma_device, &umem->map, entry,
			       NULL);
	return dma_mapping_error(umem->umem.ibdev->dma_device, *dma) ?
	       -EFAULT : 1;
#else
	dma_addr_t entry = umem->dma_list[i];

	if (!(entry & ODP_READ_ALLOWED_BIT) ||
	    (umem->umem.writable && !(entry & ODP_WRITE_ALLOWED_BIT)))
		return 0;
	*dma = entry & ODP_DMA_ADDR_MASK;
	return 1;
#endif
}

/* The ODP capability bit of ATOMIC WRITE: 7.3; none to set before. */
#ifdef VHCA_HAVE_ODP_SUPPORT_ATOMIC_WRITE
#define VHCA_ODP_SUPPORT_ATOMIC_WRITE	IB_ODP_SUPPORT_ATOMIC_WRITE
#else
#define VHCA_ODP_SUPPORT_ATOMIC_WRITE	0
#endif

/* The ODP capability bit of FLUSH: 7.3; none to set before. */
#ifdef VHCA_HAVE_ODP_SUPPORT_FLUSH
#define VHCA_ODP_SUPPORT_FLUSH		IB_ODP_SUPPORT_FLUSH
#else
#define VHCA_ODP_SUPPORT_FLUSH		0
#endif

/* The argument of a cyclecounter's read callback (ptp.c): a pointer to
 * const up to 6.12, to a mutable struct cyclecounter in 7.3. */
#ifdef VHCA_HAVE_CYCLECOUNTER_READ_MUTABLE
#define VHCA_CYCLECOUNTER_ARG	struct cyclecounter *
#else
#define VHCA_CYCLECOUNTER_ARG	const struct cyclecounter *
#endif

/* A read-only mapping that mprotect may not make writable (uverbs.c, the
 * clock info page): vm_flags is written through vm_flags_clear from 6.3,
 * directly before. */
static inline void vhca_vma_clear_maywrite(struct vm_area_struct *vma)
{
#ifdef VHCA_HAVE_VM_FLAGS_CLEAR
	vm_flags_clear(vma, VM_MAYWRITE);
#else
	vma->vm_flags &= ~VM_MAYWRITE;
#endif
}

/*
 * The ops whose C type differs between kernels (compat.c adapts them to
 * the shims' one signature): create_cq (uverbs_attr_bundle from 6.12; a
 * separate create_user_cq from 7.3), resize_cq (resize_user_cq from 7.3,
 * user CQs only), reg_user_mr (a struct ib_dmah * from 7.3),
 * reg_user_mr_dmabuf (the attribute bundle from 6.12, a struct ib_dmah *
 * from 7.3).
 */
extern const struct ib_device_ops vhca_compat_ops;

#endif /* VHCA_SHIM_COMPAT_H */
