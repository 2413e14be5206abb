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
 */
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vhca.h"

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

struct ibv_pd *vhca_alloc_parent_domain(struct ibv_context *context,
					struct ibv_parent_domain_init_attr *attr)
{
	const uint32_t known = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			       IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
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
