// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * pd.c - protection domains and parent domains.
 *
 * A parent domain (ibv_alloc_parent_domain, rdma-core's man page of that
 * name) is a protection domain with the application's allocators for the
 * provider's queue buffers.  It stands for its protection domain
 * everywhere a PD is taken: libibverbs' ibv_initialize_parent_domain()
 * copies the protection domain's kernel handle into it, so the kernel
 * commands (CREATE_QP, REG_MR, ...) see that PD.  What the parent domain
 * adds is where the rings live: queues.c asks vhca_queue_buf_alloc() for
 * every ring, and a parent domain with allocators gives the memory (the
 * kernel pins it like any buffer of the process).
 *
 * A thread domain (ibv_alloc_td) is the application's promise that one
 * thread at a time uses the objects created through a parent domain that
 * names it: their queue locks become checks that abort on a second thread
 * (vhca.h struct vhca_lock).  mlx5 also gives each thread domain a
 * doorbell register of its own, to avoid the lock of a shared one; vhca's
 * doorbells are single 64-bit stores to one page, which need no lock, so
 * there is nothing to give.
 *
 * rdma-core 65's provider-aware buffers (ibv_alloc_buf(3)): a parent
 * domain created with IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_-
 * ALLOC asks for memory a confidential-computing (CoCo) guest shares with
 * the device.  As in mlx5 (mlx5_alloc_parent_domain): when the kernel
 * reports IBV_DEVICE_CC_DMA_BOUNCE, ibv_alloc_buf takes that memory from
 * the CoCo shared DMA-buf heap (ibv_dmabuf_heap_cc_shared_init) and
 * ibv_reg_buf_mr registers it by its dma-buf fd; otherwise ordinary
 * memory is already what the device reaches, and the parent domain is an
 * ordinary one.  Linux 7.3 reports the flag for every RDMA device of a
 * guest with encrypted memory (ib_register_device: cc_dma_bounce when
 * cc_platform_has(CC_ATTR_GUEST_MEM_ENCRYPT)), so a vhca guest without
 * SEV or TDX never sees it (man/vhca.7.md).
 */
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vhca.h"
#if IBVERBS_PABI_VERSION >= 65
#include <infiniband/dmabuf_heap.h>
#define VHCA_PD_ATTR_CC IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_ALLOC
#else
#define VHCA_PD_ATTR_CC 0	/* rdma-core 44 has no CoCo parent domains */
#endif

struct ibv_pd *vhca_alloc_pd(struct ibv_context *context)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct vhca_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	err = ibv_cmd_alloc_pd(context, &pd->ibv_pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	return &pd->ibv_pd;
}

#if IBVERBS_PABI_VERSION >= 65
/*
 * The heap a CoCo parent domain allocates from: the CoCo shared DMA-buf
 * heap when the device's DMA bounces (IBV_DEVICE_CC_DMA_BOUNCE: the kernel
 * refuses to pin private memory for it), else none (*heap NULL).  0 or an
 * errno: the heap's absence (ENOENT from its open) fails the parent domain.
 */
static int vhca_cc_heap_open(struct ibv_context *context,
			     struct ibv_dmabuf_heap **heap)
{
	struct ibv_device_attr_ex attr;
	int err;

	*heap = NULL;
	err = ibv_query_device_ex(context, NULL, &attr);
	if (err)
		return err;
	if (!(attr.device_cap_flags_ex & IBV_DEVICE_CC_DMA_BOUNCE))
		return 0;
	*heap = ibv_dmabuf_heap_cc_shared_init();
	return *heap ? 0 : (errno ? errno : ENODEV);
}

static void vhca_cc_heap_close(struct ibv_dmabuf_heap *heap)
{
	if (heap)
		ibv_dmabuf_heap_destroy(heap);
}
#else
static int vhca_cc_heap_open(struct ibv_context *context,
			     struct ibv_dmabuf_heap **heap)
{
	*heap = NULL;
	return 0;
}

static void vhca_cc_heap_close(struct ibv_dmabuf_heap *heap)
{
}
#endif

struct ibv_pd *vhca_alloc_parent_domain(struct ibv_context *context,
					struct ibv_parent_domain_init_attr *attr)
{
	const uint32_t known = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			       IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT |
			       VHCA_PD_ATTR_CC;
	int err;
	struct vhca_pd *parent, *pd;

	if (!attr->pd || attr->pd->context != context ||
	    to_vpd(attr->pd)->protection_domain) {
		errno = EINVAL;		/* a PD of this context, not a parent */
		return NULL;
	}
	if (attr->comp_mask & ~known) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->td && attr->td->context != context) {
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	    (!attr->alloc || !attr->free)) {
		errno = EINVAL;
		return NULL;
	}
	parent = calloc(1, sizeof(*parent));
	if (!parent)
		return NULL;
	if (attr->comp_mask & VHCA_PD_ATTR_CC) {
		err = vhca_cc_heap_open(context, &parent->cc_heap);
		if (err) {
			free(parent);
			errno = err;
			return NULL;
		}
	}
	pd = to_vpd(attr->pd);
	parent->protection_domain = pd;
	atomic_fetch_add(&pd->users, 1);
	ibv_initialize_parent_domain(&parent->ibv_pd, &pd->ibv_pd);
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		parent->alloc = attr->alloc;
		parent->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		parent->pd_context = attr->pd_context;
	if (attr->td) {
		parent->td = to_vtd(attr->td);
		atomic_fetch_add(&parent->td->users, 1);
	}
	return &parent->ibv_pd;
}

bool vhca_pd_single_threaded(struct ibv_pd *pd)
{
	return to_vpd(pd)->td != NULL;
}

struct ibv_td *vhca_alloc_td(struct ibv_context *context,
			     struct ibv_td_init_attr *attr)
{
	struct vhca_td *td;

	if (attr->comp_mask) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td)
		return NULL;
	td->ibv_td.context = context;
	return &td->ibv_td;
}

int vhca_dealloc_td(struct ibv_td *ibtd)
{
	struct vhca_td *td = to_vtd(ibtd);

	if (atomic_load(&td->users))
		return EBUSY;
	free(td);
	return 0;
}

void vhca_lock_violation(void)
{
	fprintf(stderr, "libvhca: two threads used a queue of a thread domain "
		"(or a single-threaded CQ) at once\n");
	abort();
}

/* A PD in use by parent domains, or a parent domain whose allocator gave
 * the rings of live queues, stays (EBUSY), as in mlx5. */
int vhca_dealloc_pd(struct ibv_pd *ibpd)
{
	struct vhca_pd *pd = to_vpd(ibpd);
	int err;

	if (atomic_load(&pd->users))
		return EBUSY;
	if (pd->protection_domain) {
		atomic_fetch_sub(&pd->protection_domain->users, 1);
		if (pd->td)
			atomic_fetch_sub(&pd->td->users, 1);
		vhca_cc_heap_close(pd->cc_heap);
		free(pd);
		return 0;
	}
	err = ibv_cmd_dealloc_pd(ibpd);
	if (!err)
		free(pd);
	return err;
}

/* Gives a queue buffer back to where it came from. */
static void queue_buf_release(struct vhca_pd *owner, void *buf, uint64_t type)
{
	if (!owner) {
		free(buf);
		return;
	}
	owner->free(&owner->ibv_pd, owner->pd_context, buf, type);
	atomic_fetch_sub(&owner->users, 1);
}

/*
 * `len` zeroed bytes, aligned to `align`, for a queue buffer of `type`:
 * from the parent domain's allocator when `ibpd` is a parent domain that
 * has one and does not answer IBV_ALLOCATOR_USE_DEFAULT, else from the
 * heap.  *owner is the parent domain to give the buffer back to
 * (vhca_queue_buf_free), NULL for the heap.
 */
int vhca_queue_buf_alloc(struct ibv_pd *ibpd, size_t len, size_t align,
			 uint64_t type, void **buf, struct vhca_pd **owner)
{
	struct vhca_pd *pd = ibpd ? to_vpd(ibpd) : NULL;

	*owner = NULL;
	*buf = IBV_ALLOCATOR_USE_DEFAULT;
	/* A ring of a bouncing device: the kernel pins rings by address
	 * (uapi/vhca-abi.h), which Linux 7.3 refuses on such a device
	 * (ib_umem_get_va: cc_dma_bounce, -EOPNOTSUPP) wherever the memory
	 * came from; a ring in the heap would need the driver to take it as
	 * a dma-buf (UVERBS_ATTR_CREATE_*_BUF_UMEM), which it does not. */
	if (pd && pd->cc_heap)
		return EOPNOTSUPP;
	if (pd && pd->alloc)
		*buf = pd->alloc(&pd->ibv_pd, pd->pd_context, len, align, type);
	if (*buf == IBV_ALLOCATOR_USE_DEFAULT) {
		if (posix_memalign(buf, align, len)) {
			*buf = NULL;
			return ENOMEM;
		}
	} else if (!*buf) {
		return ENOMEM;
	} else if ((uintptr_t)*buf & (align - 1)) {
		pd->free(&pd->ibv_pd, pd->pd_context, *buf, type);
		*buf = NULL;
		return EINVAL;		/* the allocator broke its contract */
	} else {
		*owner = pd;
		atomic_fetch_add(&pd->users, 1);
	}
	memset(*buf, 0, len);
	/* The device writes these pages: under ibv_fork_init (on a kernel
	 * that does not copy pinned pages at fork) the child must not share
	 * them copy-on-write, as libibverbs does for MRs. */
	if (ibv_dontfork_range(*buf, len)) {
		int err = errno ? errno : ENOMEM;

		queue_buf_release(*owner, *buf, type);
		*buf = NULL;
		*owner = NULL;
		return err;
	}
	return 0;
}

void vhca_queue_buf_free(struct vhca_pd *owner, void *buf, size_t len,
			 uint64_t type)
{
	if (!buf)
		return;
	ibv_dofork_range(buf, len);
	queue_buf_release(owner, buf, type);
}

#if IBVERBS_PABI_VERSION >= 65
/*
 * ibv_alloc_buf(3): page-aligned memory (what libibverbs' default gives),
 * or, from a CoCo parent domain of a bouncing device, a dma-buf of the
 * CoCo shared heap, whole pages, whose fd ibv_reg_buf_mr registers and
 * ibv_export_buf_dmabuf_fd duplicates.  buf->pd is the PD the caller gave:
 * libibverbs checks registration against it.
 */
void *vhca_alloc_buf(struct ibv_pd *ibpd, size_t size, struct ibv_buf **buf)
{
	struct ibv_dmabuf_heap *heap = to_vpd(ibpd)->cc_heap;
	size_t page = sysconf(_SC_PAGESIZE);
	struct ibv_buf *b;
	void *addr;
	int fd, err;

	if (!size || size > SIZE_MAX - page) {
		errno = EINVAL;
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	if (heap) {
		size = (size + page - 1) & ~(page - 1);
		addr = ibv_dmabuf_heap_alloc(heap, size, &fd);
		if (!addr) {
			free(b);
			return NULL;
		}
		ibv_buf_init_dmabuf(b, ibpd, addr, size, fd);
	} else {
		err = posix_memalign(&addr, page, size);
		if (err) {
			free(b);
			errno = err;
			return NULL;
		}
		ibv_buf_init(b, ibpd, addr, size);
	}
	*buf = b;
	return addr;
}

void vhca_free_buf(struct ibv_buf *buf)
{
	if (buf->dmabuf_fd >= 0)
		ibv_dmabuf_heap_free(buf->addr, buf->size, buf->dmabuf_fd);
	else
		free(buf->addr);
	free(buf);
}
#endif
