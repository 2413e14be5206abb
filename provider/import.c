// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * import.c - sharing a context between processes (ibv_import_device,
 * ibv_import_pd, ibv_import_mr and their unimport): a second
 * ibv_context on a duplicate of another context's command fd, rebuilt
 * from the kernel's answer to UVERBS_METHOD_QUERY_CONTEXT (the
 * alloc_ucontext answer, VHCA_IB_ATTR_QUERY_CONTEXT_RESP of vhca-abi.h);
 * PDs checked through VHCA_IB_METHOD_PD_QUERY, regions through the
 * kernel's UVERBS_METHOD_QUERY_MR.  Imported objects belong to the
 * original context: unimport frees the provider's memory only.
 */
#include <errno.h>
#include <stdlib.h>

#include "vhca.h"

struct verbs_context *vhca_import_context(struct ibv_device *ibdev, int cmd_fd)
{
	VHCA_CMD_BUFFER(1) link;
	struct vhca_alloc_ucontext_resp drv = {};
	struct vhca_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   VHCA_RDMA_DRIVER_ID);
	if (!ctx)
		return NULL;
	vhca_cmd_init(&link.cmd, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT,
		      1);
	vhca_cmd_attr(&link.cmd, VHCA_IB_ATTR_QUERY_CONTEXT_RESP, sizeof(drv),
		      (uintptr_t)&drv);
	err = ibv_cmd_query_context(&ctx->ibv_ctx.context, &link.cmd);
	if (!err)
		err = vhca_context_setup(ctx, &drv);
	if (err) {
		verbs_uninit_context(&ctx->ibv_ctx);
		free(ctx);
		errno = err;
		return NULL;
	}
	return &ctx->ibv_ctx;
}

struct ibv_pd *vhca_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	VHCA_CMD_BUFFER(2) query;
	uint32_t pdn;
	struct vhca_pd *pd;
	int err;

	vhca_cmd_init(&query.cmd, UVERBS_OBJECT_PD, VHCA_IB_METHOD_PD_QUERY, 2);
	vhca_cmd_attr(&query.cmd, VHCA_IB_ATTR_QUERY_PD_HANDLE, 0, pd_handle);
	vhca_cmd_attr(&query.cmd, VHCA_IB_ATTR_QUERY_PD_RESP_PDN, sizeof(pdn),
		      (uintptr_t)&pdn);
	/* The kernel refuses a handle that names no PD of this file. */
	err = execute_ioctl(context, &query.cmd);
	if (err) {
		errno = err;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibv_pd.context = context;
	pd->ibv_pd.handle = pd_handle;
	return &pd->ibv_pd;
}

void vhca_unimport_pd(struct ibv_pd *pd)
{
	free(to_vpd(pd));
}

struct ibv_mr *vhca_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	struct verbs_mr *vmr = calloc(1, sizeof(*vmr));
	int err;

	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_query_mr(pd, vmr, mr_handle);
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

void vhca_unimport_mr(struct ibv_mr *mr)
{
	free(container_of(mr, struct verbs_mr, ibv_mr));
}
