// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * uverbs_uapi.c - the driver's ioctl namespace (vhca-abi.h "driver ioctl
 * attributes and methods"), ib_device.driver_def: what importing a
 * context and its objects needs (ibv_import_device, ibv_import_pd; the
 * regions are the kernel's own UVERBS_METHOD_QUERY_MR), chained with the
 * device memory ones of uverbs_dm.c.
 */
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#define UVERBS_MODULE_NAME vhca_ib
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>

#include "vhca_shim.h"

extern const struct uapi_definition vhca_dm_uapi_defs[];

/* UVERBS_METHOD_QUERY_CONTEXT: what alloc_ucontext answered. */
int vhca_ib_query_ucontext(struct ib_ucontext *ibuc,
			   struct uverbs_attr_bundle *attrs)
{
	struct vhca_alloc_ucontext_resp resp;

	vhca_ucontext_resp(ibuc, &resp);
	return uverbs_copy_to_struct_or_zero(attrs,
					     VHCA_IB_ATTR_QUERY_CONTEXT_RESP,
					     &resp, sizeof(resp));
}

ADD_UVERBS_ATTRIBUTES_SIMPLE(
	vhca_ib_query_context, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT,
	UVERBS_ATTR_PTR_OUT(VHCA_IB_ATTR_QUERY_CONTEXT_RESP,
			    UVERBS_ATTR_STRUCT(struct vhca_alloc_ucontext_resp,
					       max_srq_wr),
			    UA_MANDATORY));

/* ibv_import_pd: the PD number behind a handle of this context's file. */
static int UVERBS_HANDLER(VHCA_IB_METHOD_PD_QUERY)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *pd = uverbs_attr_get_obj(attrs,
					       VHCA_IB_ATTR_QUERY_PD_HANDLE);
	u32 pdn = to_vpd(pd)->pdn;

	return uverbs_copy_to(attrs, VHCA_IB_ATTR_QUERY_PD_RESP_PDN, &pdn,
			      sizeof(pdn));
}

DECLARE_UVERBS_NAMED_METHOD(
	VHCA_IB_METHOD_PD_QUERY,
	UVERBS_ATTR_IDR(VHCA_IB_ATTR_QUERY_PD_HANDLE, UVERBS_OBJECT_PD,
			UVERBS_ACCESS_READ, UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(VHCA_IB_ATTR_QUERY_PD_RESP_PDN,
			    UVERBS_ATTR_TYPE(u32), UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_PD,
			      &UVERBS_METHOD(VHCA_IB_METHOD_PD_QUERY));

static const struct uapi_definition vhca_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &vhca_ib_query_context),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_PD),
	UAPI_DEF_CHAIN(vhca_dm_uapi_defs),
	{},
};

/* At registration: the namespace, and the DM verbs when BAR 3 exists
 * (without alloc_dm ib_core leaves the DM object, and ours, out). */
void vhca_uapi_register(struct vhca_kapi_device *kdev)
{
	const struct vhca_device_attr *attr = vhca_core_device_attr(kdev->core);

	kdev->ibdev.driver_def = vhca_uapi_defs;
	if (le32_to_cpu(attr->dev_caps) & VHCA_DEV_CAP_DM) {
		vhca_dm_p2pdma_init(kdev);
		ib_set_device_ops(&kdev->ibdev, &vhca_dm_ops);
	}
}
