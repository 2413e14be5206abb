// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs_xrc.c - XRC domains (IBA A14.2.1): alloc_xrcd and dealloc_xrcd.
 * Sharing a domain between processes (ibv_open_xrcd on the same file,
 * ib_uverbs' inode table) and the XRC target QPs of a domain (created in
 * the kernel by ib_create_qp_user, opened by others with ib_open_qp) are
 * ib_core's; the QPs and SRQs themselves are verbs_qp.c's and
 * verbs_srq.c's (XRC types), the data path the device's.
 */
#include <rdma/ib_verbs.h>

#include "vhca_shim.h"

int vhca_ib_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct vhca_xrcd *xrcd = to_vxrcd(ibxrcd);
	unsigned int xrcdn;
	int err;

	err = vhca_core_alloc_xrcd(to_kdev(ibxrcd->device)->core, &xrcdn);
	if (err)
		return err;
	xrcd->xrcdn = xrcdn;
	return 0;
}

int vhca_ib_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct vhca_xrcd *xrcd = to_vxrcd(ibxrcd);
	int err;

	/* ib_core frees the domain after its last SRQ and target QP are
	 * gone, so the device refuses only on a lost command; like
	 * DEALLOC_PD, the reset at remove drops it then. */
	err = vhca_core_dealloc_xrcd(to_kdev(ibxrcd->device)->core,
				     xrcd->xrcdn);
	if (err)
		ibdev_warn(ibxrcd->device, "DEALLOC_XRCD %u failed: %d\n",
			   xrcd->xrcdn, err);
	return 0;
}

/* query_device: IB_DEVICE_XRC when the device has XRC (QUERY_DEVICE). */
void vhca_xrc_query_device(const struct vhca_device_attr *attr,
			   struct ib_device_attr *props)
{
	if (le32_to_cpu(attr->dev_caps) & VHCA_DEV_CAP_XRC)
		props->device_cap_flags |= IB_DEVICE_XRC;
}
