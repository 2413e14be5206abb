// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * vhca.c - the vhca libibverbs provider: device matching (PCI ID of
 * uapi/vhca_hw.h), the context (ibv_open_device: the kernel's
 * alloc_ucontext, then mmap of the context's doorbell page), and the
 * verbs that only the kernel can do (PD, MR, AH, queries, modify) through
 * ibv_cmd_*.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "vhca.h"

static const struct verbs_match_ent vhca_match_table[] = {
	VERBS_PCI_MATCH(VHCA_PCI_VENDOR_ID, VHCA_PCI_DEVICE_ID, NULL),
	{},
};

static int vhca_query_device_ex(struct ibv_context *context,
				const struct ibv_query_device_ex_input *input,
				struct ibv_device_attr_ex *attr,
				size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int err;

	err = ibv_cmd_query_device_any(context, input, attr, attr_size, &resp,
				       &resp_size);
	if (err)
		return err;
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 VHCA_FW_VERSION_FMT, VHCA_FW_VERSION_ARGS(fw));
	return 0;
}

static int vhca_query_port(struct ibv_context *context, uint8_t port,
			   struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(context, port, attr, &cmd, sizeof(cmd));
}

#if IBVERBS_PABI_VERSION >= 65
/* ibv_query_port_speed (rdma-core 65; not in 44's verbs_context_ops):
 * the kernel answers from the port's width and speed. */
static int vhca_query_port_speed(struct ibv_context *context,
				 uint32_t port_num, uint64_t *speed)
{
	return ibv_cmd_query_port_speed(context, port_num, speed);
}
#endif

static struct ibv_mr *vhca_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				  uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	err = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/* ibv_reg_dmabuf_mr: the kernel pins the dma-buf's pages for the
 * region's life (driver.md "User verbs"); no driver data. */
static struct ibv_mr *vhca_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
					 size_t length, uint64_t iova, int fd,
					 int access)
{
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	err = ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr,
				    NULL);
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/* ibv_rereg_mr: the kernel registers the region again on the same handle
 * (driver.md "User verbs"); libibverbs checked the flags and takes the
 * new lkey and rkey from the answer. */
static int vhca_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			 void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;
	int err;

	err = ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr, access,
			       pd, &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (err)
		errno = err;
	return err;
}

/* ibv_advise_mr: prefetch into ODP regions, done by the kernel
 * (driver.md "On-demand paging"); the answer is an errno value. */
static int vhca_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			  uint32_t flags, struct ibv_sge *sg_list,
			  uint32_t num_sge)
{
	return ibv_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);
}

static int vhca_dereg_mr(struct verbs_mr *vmr)
{
	int err = ibv_cmd_dereg_mr(vmr);

	if (!err)
		free(vmr);
	return err;
}

static struct ibv_ah *vhca_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct {
		struct ib_uverbs_create_ah_resp ibv_resp;
		struct vhca_create_ah_resp drv;
	} resp = {};
	struct vhca_ah *ah;
	int err;

	_Static_assert(offsetof(__typeof__(resp), drv) ==
		       sizeof(struct ib_uverbs_create_ah_resp),
		       "the driver data follows the 4-byte response");
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	err = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		free(ah);
		errno = err;
		return NULL;
	}
	/* the kernel header carries the device's address vector as bytes */
	_Static_assert(sizeof(resp.drv.av) == sizeof(ah->av), "struct vhca_av");
	memcpy(&ah->av, &resp.drv.av, sizeof(ah->av));
	return &ah->ibv_ah;
}

static int vhca_destroy_ah(struct ibv_ah *ah)
{
	int err = ibv_cmd_destroy_ah(ah);

	if (!err)
		free(to_vah(ah));
	return err;
}

static int vhca_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd;

	return ibv_cmd_query_qp(qp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

static int vhca_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

static void vhca_free_context(struct ibv_context *ibctx)
{
	struct vhca_context *ctx = to_vctx(ibctx);

	vhca_clock_cleanup(ctx);
	if (ctx->db)
		munmap((void *)ctx->db, VHCA_DB_PAGE_SIZE);
	free(ctx->qp_table);
	free(ctx->xrc_srq_table);
	pthread_mutex_destroy(&ctx->qp_table_lock);
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static const struct verbs_context_ops vhca_ctx_ops = {
	.advise_mr = vhca_advise_mr,
#if IBVERBS_PABI_VERSION >= 65
	.alloc_buf = vhca_alloc_buf,
#endif
	.alloc_dm = vhca_alloc_dm,
	.alloc_mw = vhca_alloc_mw,
	.alloc_parent_domain = vhca_alloc_parent_domain,
	.alloc_pd = vhca_alloc_pd,
	.alloc_td = vhca_alloc_td,
	.attach_mcast = ibv_cmd_attach_mcast,
	.bind_mw = vhca_bind_mw,
	.close_xrcd = vhca_close_xrcd,
	.create_ah = vhca_create_ah,
	.create_cq = vhca_create_cq,
	.create_cq_ex = vhca_create_cq_ex,
	.create_qp = vhca_create_qp,
	.create_qp_ex = vhca_create_qp_ex,
	.create_srq = vhca_create_srq,
	.create_srq_ex = vhca_create_srq_ex,
	.dealloc_mw = vhca_dealloc_mw,
	.dealloc_pd = vhca_dealloc_pd,
	.dealloc_td = vhca_dealloc_td,
	.dereg_mr = vhca_dereg_mr,
	.destroy_ah = vhca_destroy_ah,
	.destroy_cq = vhca_destroy_cq,
	.destroy_qp = vhca_destroy_qp,
	.destroy_srq = vhca_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
#if IBVERBS_PABI_VERSION >= 65
	.dm_export_dmabuf_fd = vhca_dm_export_dmabuf_fd,
#endif
	.free_context = vhca_free_context,
#if IBVERBS_PABI_VERSION >= 65
	.free_buf = vhca_free_buf,
#endif
	.free_dm = vhca_free_dm,
	.get_srq_num = vhca_get_srq_num,
	.import_dm = vhca_import_dm,
	.import_mr = vhca_import_mr,
	.import_pd = vhca_import_pd,
	.modify_qp = vhca_modify_qp,
	.modify_srq = vhca_modify_srq,
	.open_qp = vhca_open_qp,
	.open_xrcd = vhca_open_xrcd,
	.poll_cq = vhca_poll_cq,
	.post_recv = vhca_post_recv,
	.post_send = vhca_post_send,
	.post_srq_recv = vhca_post_srq_recv,
	.post_srq_ops = vhca_post_srq_ops,
	.query_device_ex = vhca_query_device_ex,
	.query_port = vhca_query_port,
#if IBVERBS_PABI_VERSION >= 65
	.query_port_speed = vhca_query_port_speed,
#endif
	.query_qp = vhca_query_qp,
	.query_rt_values = vhca_query_rt_values,
	.query_srq = vhca_query_srq,
	.reg_dm_mr = vhca_reg_dm_mr,
	.reg_dmabuf_mr = vhca_reg_dmabuf_mr,
	.reg_mr = vhca_reg_mr,
	.req_notify_cq = vhca_req_notify_cq,
	.rereg_mr = vhca_rereg_mr,
	.resize_cq = vhca_resize_cq,
	.unimport_dm = vhca_unimport_dm,
	.unimport_mr = vhca_unimport_mr,
	.unimport_pd = vhca_unimport_pd,
};

/* What a new or imported context needs from the kernel's answer: its
 * doorbell page mapped, the limits, the QP table, the clock. */
int vhca_context_setup(struct vhca_context *ctx,
		       const struct vhca_alloc_ucontext_resp *drv)
{
	void *db;

	if (drv->db_page_size != VHCA_DB_PAGE_SIZE)
		return EPROTO;
	/* written (doorbells) and read (the device clock, clock.c) */
	db = mmap(NULL, VHCA_DB_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		  ctx->ibv_ctx.context.cmd_fd, drv->db_mmap_offset);
	if (db == MAP_FAILED)
		return errno;
	ctx->qp_table = calloc(VHCA_QP_TABLE_SIZE, sizeof(*ctx->qp_table));
	ctx->xrc_srq_table = calloc(VHCA_QP_TABLE_SIZE,
				    sizeof(*ctx->xrc_srq_table));
	if (!ctx->qp_table || !ctx->xrc_srq_table) {
		free(ctx->qp_table);
		free(ctx->xrc_srq_table);
		munmap(db, VHCA_DB_PAGE_SIZE);
		return ENOMEM;
	}
	ctx->db = db;
	ctx->db_page = drv->db_page;
	ctx->max_sge = drv->max_sge;
	ctx->max_qp_wr = drv->max_qp_wr;
	ctx->max_srq_wr = drv->max_srq_wr;
	if (drv->comp_mask & VHCA_UCONTEXT_RESP_DEV_CAPS)
		ctx->dev_caps = drv->dev_caps;
	ctx->sq_poll = drv->comp_mask & VHCA_UCONTEXT_RESP_SQ_POLL;
	pthread_mutex_init(&ctx->qp_table_lock, NULL);
	verbs_set_ops(&ctx->ibv_ctx, &vhca_ctx_ops);
	vhca_clock_init(ctx, drv);
	return 0;
}

static struct verbs_context *vhca_alloc_context(struct ibv_device *ibdev,
						int cmd_fd, void *private_data)
{
	struct {
		struct ibv_get_context ibv_cmd;
		struct vhca_alloc_ucontext_req drv;
	} cmd = {};
	struct {
		struct ib_uverbs_get_context_resp ibv_resp;
		struct vhca_alloc_ucontext_resp drv;
	} resp = {};
	struct vhca_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   VHCA_RDMA_DRIVER_ID);
	if (!ctx)
		return NULL;
	if (ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
				NULL, &resp.ibv_resp, sizeof(resp)))
		goto uninit;
	err = vhca_context_setup(ctx, &resp.drv);
	if (err) {
		errno = err;
		goto uninit;
	}
	return &ctx->ibv_ctx;

uninit:
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	return NULL;
}

static struct verbs_device *vhca_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	return calloc(1, sizeof(struct verbs_device));
}

static void vhca_uninit_device(struct verbs_device *vdev)
{
	free(vdev);
}

static const struct verbs_device_ops vhca_dev_ops = {
	.name = "vhca",
	.match_min_abi_version = VHCA_UVERBS_ABI_VERSION,
	.match_max_abi_version = VHCA_UVERBS_ABI_VERSION,
	.match_table = vhca_match_table,
	.alloc_device = vhca_alloc_device,
	.uninit_device = vhca_uninit_device,
	.alloc_context = vhca_alloc_context,
	.import_context = vhca_import_context,
};
PROVIDER_DRIVER(vhca, vhca_dev_ops);
