// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * xrc.c - XRC (IBA A14): XRC domains (ibv_open_xrcd: shared between
 * processes through a file, the kernel's), XRC SRQs (ibv_create_srq_ex
 * IBV_SRQT_XRC: a receive ring like any SRQ's, with its own CQ), XRC
 * receive QPs (IBV_QPT_XRC_RECV: created by the kernel, no rings here)
 * and ibv_open_qp.  XRC send QPs are queues.c's RC-like QPs without a
 * receive queue; their WQEs carry the remote SRQ number (datapath.c,
 * qp_ex.c's wr_set_xrc_srqn).  A receive completion of an XRC SRQ names
 * the SRQ (VHCA_CQE_F_XRC), whose ring poll_cq frees by it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vhca.h"

struct ibv_xrcd *vhca_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct ibv_open_xrcd cmd = {};
	struct verbs_xrcd *xrcd;
	int err;

	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd)
		return NULL;
	err = ibv_cmd_open_xrcd(context, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(xrcd);
		errno = err;
		return NULL;
	}
	return &xrcd->xrcd;
}

int vhca_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = container_of(ibxrcd, struct verbs_xrcd, xrcd);
	int err = ibv_cmd_close_xrcd(xrcd);

	if (!err)
		free(xrcd);
	return err;
}

/* ---- XRC SRQs ---- */

static void xrc_srq_add(struct vhca_context *ctx, struct vhca_srq *srq)
{
	struct vhca_srq **head = &ctx->xrc_srq_table[srq->srqn % VHCA_QP_TABLE_SIZE];

	pthread_mutex_lock(&ctx->qp_table_lock);
	srq->next = *head;
	*head = srq;
	pthread_mutex_unlock(&ctx->qp_table_lock);
}

void vhca_xrc_srq_remove(struct vhca_context *ctx, struct vhca_srq *srq)
{
	struct vhca_srq **link = &ctx->xrc_srq_table[srq->srqn % VHCA_QP_TABLE_SIZE];

	pthread_mutex_lock(&ctx->qp_table_lock);
	while (*link && *link != srq)
		link = &(*link)->next;
	if (*link)
		*link = srq->next;
	pthread_mutex_unlock(&ctx->qp_table_lock);
}

/* From poll_cq, as vhca_find_qp: no SRQ is destroyed while its CQ polls. */
struct vhca_srq *vhca_xrc_srq_find(struct vhca_context *ctx, uint32_t srqn)
{
	struct vhca_srq *srq = ctx->xrc_srq_table[srqn % VHCA_QP_TABLE_SIZE];

	while (srq && srq->srqn != srqn)
		srq = srq->next;
	return srq;
}

/* A basic SRQ (a PD), an XRC SRQ (a PD, an XRC domain and a CQ), or a
 * tag matching SRQ (a PD, a CQ and the TM capabilities: tm.c). */
struct ibv_srq *vhca_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr)
{
	const uint32_t supported = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
				   IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ |
				   IBV_SRQ_INIT_ATTR_TM;
	bool typed = attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE;
	bool xrc = typed && attr->srq_type == IBV_SRQT_XRC;
	bool tm = typed && attr->srq_type == IBV_SRQT_TM;
	struct vhca_srq *srq;
	int err;

	if ((attr->comp_mask & ~supported) ||
	    (typed && attr->srq_type != IBV_SRQT_BASIC && !xrc && !tm)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	err = tm ? vhca_tm_check(context, attr) : 0;
	if (err) {
		errno = err;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != context ||
	    (xrc && (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd ||
		     !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq))) {
		errno = EINVAL;
		return NULL;
	}
	srq = vhca_srq_create(attr->pd, attr, true);
	if (!srq)
		return NULL;
	srq->xrc = xrc;
	if (xrc || tm)		/* their operation CQEs name the SRQ */
		xrc_srq_add(to_vctx(context), srq);
	return &srq->vsrq.srq;
}

int vhca_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	*srq_num = to_vsrq(srq)->srqn;
	return 0;
}

/* ---- XRC receive QPs ---- */

/* A QP without rings: the kernel creates it (ib_core's XRC target QPs
 * live as long as a process has them open); modify, query and destroy
 * are the usual ones. */
static struct vhca_qp *xrc_tgt_alloc(void)
{
	struct vhca_qp *qp = calloc(1, sizeof(*qp));

	if (!qp)
		return NULL;
	qp->type = VHCA_QPT_XRC_TGT;
	vhca_lock_init(&qp->sq_lock, false);
	vhca_lock_init(&qp->rq_lock, false);
	return qp;
}

struct vhca_qp *vhca_create_xrc_recv_qp(struct ibv_context *context,
					struct ibv_qp_init_attr_ex *attr)
{
	struct {
		struct ibv_create_qp ibv_cmd;
		struct vhca_create_qp_req drv;	/* unused: no rings */
	} cmd = {};
	struct {
		struct ib_uverbs_create_qp_resp ibv_resp;
		struct vhca_create_qp_resp drv;
	} resp = {};
	struct ibv_qp_init_attr_ex kattr = *attr;
	struct vhca_qp *qp;
	int err;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd) {
		errno = EINVAL;
		return NULL;
	}
	qp = xrc_tgt_alloc();
	if (!qp)
		return NULL;
	kattr.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	err = ibv_cmd_create_qp_ex(context, &qp->vqp, &kattr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	attr->cap = kattr.cap;
	qp->qpn = qp->vqp.qp.qp_num;
	return qp;
}

/* ibv_open_qp: an XRC target QP another process (or this one) created
 * in an XRC domain this process opened. */
struct ibv_qp *vhca_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp = {};
	struct ibv_open_qp cmd = {};
	struct vhca_qp *qp;
	int err;

	qp = xrc_tgt_alloc();
	if (!qp)
		return NULL;
	err = ibv_cmd_open_qp(context, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	qp->qpn = qp->vqp.qp.qp_num;
	return &qp->vqp.qp;
}
