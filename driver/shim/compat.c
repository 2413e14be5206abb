// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * compat.c - the ib_device_ops whose C type differs between kernels
 * (compat.h), each an adapter to the shims' one implementation.  Added
 * to the device's ops by vhca_ib_register after vhca_verbs_ops.
 */
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "vhca_shim.h"
#include "compat.h"

#ifdef VHCA_HAVE_CREATE_CQ_ATTR_BUNDLE
/* attrs is NULL for a kernel CQ (ib_alloc_cq, ib_create_cq). */
static int vhca_compat_create_cq(struct ib_cq *ibcq,
				 const struct ib_cq_init_attr *attr,
				 struct uverbs_attr_bundle *attrs)
{
	return vhca_ib_create_cq(ibcq, attr, attrs ? &attrs->driver_udata : NULL);
}
#else
#define vhca_compat_create_cq vhca_ib_create_cq
#endif

#ifdef VHCA_HAVE_RESIZE_USER_CQ
/* Only uverbs resizes a CQ (ib_resize_cq is gone), always with udata. */
static int vhca_compat_resize_user_cq(struct ib_cq *ibcq, unsigned int cqe,
				      struct ib_udata *udata)
{
	if (cqe > INT_MAX)
		return -EINVAL;
	return vhca_ib_resize_cq(ibcq, cqe, udata);
}
#endif

#ifdef VHCA_HAVE_REG_USER_MR_DMAH
/*
 * A DMA handle (steering tags, PCIe TPH) is a hint the device has no use
 * for, but a caller who made one asks for placement vhca cannot give:
 * -EOPNOTSUPP, as drivers without TPH support answer.
 */
static struct ib_mr *vhca_compat_reg_user_mr(struct ib_pd *ibpd, u64 start,
					     u64 length, u64 virt_addr,
					     int access, struct ib_dmah *dmah,
					     struct ib_udata *udata)
{
	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);
	return vhca_ib_reg_user_mr(ibpd, start, length, virt_addr, access,
				   udata);
}
#else
#define vhca_compat_reg_user_mr vhca_ib_reg_user_mr
#endif

/* IBV_REG_DMABUF_MR: the udata alone (6.1), in the attribute bundle
 * (6.12), and after a DMA handle (7.3), refused as for reg_user_mr. */
#if defined(VHCA_HAVE_REG_USER_MR_DMABUF_DMAH)
static struct ib_mr *
vhca_compat_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset, u64 length,
			       u64 virt_addr, int fd, int access,
			       struct ib_dmah *dmah,
			       struct uverbs_attr_bundle *attrs)
{
	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);
	return vhca_ib_reg_user_mr_dmabuf(ibpd, offset, length, virt_addr, fd,
					  access, &attrs->driver_udata);
}
#elif defined(VHCA_HAVE_REG_USER_MR_DMABUF_ATTR_BUNDLE)
static struct ib_mr *
vhca_compat_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset, u64 length,
			       u64 virt_addr, int fd, int access,
			       struct uverbs_attr_bundle *attrs)
{
	return vhca_ib_reg_user_mr_dmabuf(ibpd, offset, length, virt_addr, fd,
					  access, &attrs->driver_udata);
}
#else
#define vhca_compat_reg_user_mr_dmabuf vhca_ib_reg_user_mr_dmabuf
#endif

const struct ib_device_ops vhca_compat_ops = {
	.create_cq = vhca_compat_create_cq,
#ifdef VHCA_HAVE_CREATE_USER_CQ
	/* uverbs calls create_user_cq for user CQs (and may no longer fall
	 * back to create_cq): the same adapter serves both. */
	.create_user_cq = vhca_compat_create_cq,
#endif
#ifdef VHCA_HAVE_RESIZE_USER_CQ
	.resize_user_cq = vhca_compat_resize_user_cq,
#else
	.resize_cq = vhca_ib_resize_cq,
#endif
	.reg_user_mr = vhca_compat_reg_user_mr,
	.reg_user_mr_dmabuf = vhca_compat_reg_user_mr_dmabuf,
};
