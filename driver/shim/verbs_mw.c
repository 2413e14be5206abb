// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs_mw.c - memory windows (IBA 10.6.7): alloc_mw and dealloc_mw for
 * user contexts.  Binding is the provider's: BIND_MW WQEs on its own send
 * rings (the kernel has no bind verb in 6.1), checked by the device;
 * kernel ULPs do not use windows.  ib_mw.type is IB_MW_TYPE_1/2, the
 * device's numbering (vhca_hw_verbs.h "Memory windows").
 */
#include <rdma/ib_verbs.h>

#include "vhca_shim.h"

static_assert((int)IB_MW_TYPE_1 == (int)VHCA_MW_TYPE_1);
static_assert((int)IB_MW_TYPE_2 == (int)VHCA_MW_TYPE_2);

int vhca_ib_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct vhca_mw *mw = to_vmw(ibmw);
	int err;

	if (!udata)
		return -EOPNOTSUPP;
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	err = vhca_core_alloc_mw(to_kdev(ibmw->device)->core,
				 to_vpd(ibmw->pd)->pdn, ibmw->type, &mw->core);
	if (err)
		return err;
	ibmw->rkey = vhca_core_mw_key(mw->core);
	return 0;
}

int vhca_ib_dealloc_mw(struct ib_mw *ibmw)
{
	return vhca_core_dealloc_mw(to_vmw(ibmw)->core);
}

/* query_device: the window types the device reports (QUERY_DEVICE). */
void vhca_mw_query_device(const struct vhca_device_attr *attr,
			  struct ib_device_attr *props)
{
	u32 caps = le32_to_cpu(attr->dev_caps);

	if (caps & VHCA_DEV_CAP_MW_TYPE_1)
		props->device_cap_flags |= IB_DEVICE_MEM_WINDOW;
	if (caps & VHCA_DEV_CAP_MW_TYPE_2)
		props->device_cap_flags |= IB_DEVICE_MEM_WINDOW_TYPE_2B;
	if (caps & (VHCA_DEV_CAP_MW_TYPE_1 | VHCA_DEV_CAP_MW_TYPE_2))
		props->max_mw = le32_to_cpu(attr->max_mw);
}
