// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs_qp.c - queue pairs: create/modify/query/destroy, post_send and
 * post_recv (one doorbell per call), multicast attach/detach.
 */
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "vhca_shim.h"

/* The ib_qp_attr_mask bits the device knows (enum vhca_qp_attr). */
#define VHCA_QP_ATTR_SUPPORTED                                                \
	(IB_QP_STATE | IB_QP_CUR_STATE | IB_QP_EN_SQD_ASYNC_NOTIFY |          \
	 IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY |    \
	 IB_QP_AV | IB_QP_PATH_MTU | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |        \
	 IB_QP_RNR_RETRY | IB_QP_RQ_PSN | IB_QP_MAX_QP_RD_ATOMIC |            \
	 IB_QP_MIN_RNR_TIMER | IB_QP_SQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |      \
	 IB_QP_DEST_QPN)

#define VHCA_SEND_FLAGS_SUPPORTED                                             \
	(IB_SEND_FENCE | IB_SEND_SIGNALED | IB_SEND_SOLICITED | IB_SEND_INLINE)

static int vhca_qp_type(enum ib_qp_type type, unsigned int *out)
{
	switch (type) {
	case IB_QPT_SMI:
		*out = VHCA_QPT_SMI;
		return 0;
	case IB_QPT_GSI:
		*out = VHCA_QPT_GSI;
		return 0;
	case IB_QPT_RC:
		*out = VHCA_QPT_RC;
		return 0;
	case IB_QPT_UC:
		*out = VHCA_QPT_UC;
		return 0;
	case IB_QPT_UD:
		*out = VHCA_QPT_UD;
		return 0;
	case IB_QPT_XRC_INI:
		*out = VHCA_QPT_XRC_INI;
		return 0;
	case IB_QPT_XRC_TGT:
		*out = VHCA_QPT_XRC_TGT;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

int vhca_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		      struct ib_udata *udata)
{
	struct vhca_qp *qp = to_vqp(ibqp);
	struct vhca_core_qp_init ci = {};
	int err;

	if (init->create_flags)
		return -EOPNOTSUPP;
	err = vhca_qp_type(init->qp_type, &ci.type);
	if (err)
		return err;
	if (init->qp_type == IB_QPT_SMI || init->qp_type == IB_QPT_GSI)
		ci.port = init->port_num;
	/* The kernel has no XRC send verb (ib_send_wr names no SRQ): XRC
	 * initiators are the provider's only.  XRC targets are created here
	 * for user processes too (ib_create_qp_user passes no udata), with
	 * an XRC domain and no PD or CQs. */
	if (init->qp_type == IB_QPT_XRC_INI && !udata)
		return -EOPNOTSUPP;
	if (init->qp_type == IB_QPT_XRC_TGT) {
		ci.xrcdn = to_vxrcd(init->xrcd)->xrcdn;
		goto create;
	}
	ci.pdn = to_vpd(ibqp->pd)->pdn;
	ci.send_cq = to_vcq(init->send_cq)->core;
	ci.recv_cq = init->recv_cq ? to_vcq(init->recv_cq)->core : NULL;
	ci.srq = init->srq ? to_vsrq(init->srq)->core : NULL;
	ci.sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	ci.cap.max_send_wr = init->cap.max_send_wr;
	ci.cap.max_recv_wr = init->cap.max_recv_wr;
	ci.cap.max_send_sge = init->cap.max_send_sge;
	ci.cap.max_recv_sge = init->cap.max_recv_sge;
	ci.cap.max_inline_data = init->cap.max_inline_data;
create:
	ci.qp_context = ibqp;

	if (udata)
		err = vhca_uverbs_create_qp(qp, &ci, udata);
	else
		err = vhca_core_create_qp(to_kdev(ibqp->device)->core, &ci,
					  &qp->core);
	if (err)
		return err;
	qp->state = IB_QPS_RESET;
	qp->cap = ci.cap;
	qp->sq_sig_all = ci.sq_sig_all;
	init->cap.max_send_wr = ci.cap.max_send_wr;
	init->cap.max_recv_wr = ci.cap.max_recv_wr;
	init->cap.max_send_sge = ci.cap.max_send_sge;
	init->cap.max_recv_sge = ci.cap.max_recv_sge;
	init->cap.max_inline_data = ci.cap.max_inline_data;
	ibqp->qp_num = vhca_core_qp_num(qp->core);
	return 0;
}

int vhca_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_udata *udata)
{
	struct vhca_qp *qp = to_vqp(ibqp);
	struct vhca_core_qp_attr ca = {};
	enum ib_qp_state cur, next;
	int err;

	if (udata && udata->inlen)
		return -EOPNOTSUPP;
	if (mask & ~VHCA_QP_ATTR_SUPPORTED)
		return -EOPNOTSUPP;

	/* Like efa: ib_core does not serialize modify_qp calls on one QP, and
	 * no ULP issues them concurrently; the device checks the transition
	 * again (BAD_STATE). */
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask)) {
		ibdev_dbg(ibqp->device,
			  "QP %u: bad modify %d -> %d mask 0x%x\n",
			  ibqp->qp_num, cur, next, mask);
		return -EINVAL;
	}

	ca.qp_state = attr->qp_state;
	ca.cur_qp_state = attr->cur_qp_state;
	ca.path_mtu = attr->path_mtu;
	ca.qkey = attr->qkey;
	ca.rq_psn = attr->rq_psn;
	ca.sq_psn = attr->sq_psn;
	ca.dest_qp_num = attr->dest_qp_num;
	ca.qp_access_flags = attr->qp_access_flags;
	ca.pkey_index = attr->pkey_index;
	ca.port_num = attr->port_num;
	ca.max_rd_atomic = attr->max_rd_atomic;
	ca.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	ca.min_rnr_timer = attr->min_rnr_timer;
	ca.timeout = attr->timeout;
	ca.retry_cnt = attr->retry_cnt;
	ca.rnr_retry = attr->rnr_retry;
	ca.en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & IB_QP_AV)
		vhca_verbs_ah_attr(&attr->ah_attr, &ca.ah_attr);

	err = vhca_core_modify_qp(qp->core, &ca, mask);
	if (!err)
		qp->state = next;
	return err;
}

int vhca_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_qp_init_attr *init)
{
	struct vhca_qp *qp = to_vqp(ibqp);
	struct vhca_core_qp_attr ca = {};
	int err;

	err = vhca_core_query_qp(qp->core, &ca);
	if (err)
		return err;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = ca.qp_state;
	attr->cur_qp_state = ca.qp_state;
	attr->path_mtu = ca.path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = ca.qkey;
	attr->rq_psn = ca.rq_psn;
	attr->sq_psn = ca.sq_psn;
	attr->dest_qp_num = ca.dest_qp_num;
	attr->qp_access_flags = ca.qp_access_flags;
	attr->pkey_index = ca.pkey_index;
	attr->port_num = ca.port_num;
	attr->max_rd_atomic = ca.max_rd_atomic;
	attr->max_dest_rd_atomic = ca.max_dest_rd_atomic;
	attr->min_rnr_timer = ca.min_rnr_timer;
	attr->timeout = ca.timeout;
	attr->retry_cnt = ca.retry_cnt;
	attr->rnr_retry = ca.rnr_retry;
	attr->en_sqd_async_notify = ca.en_sqd_async_notify;
	attr->sq_draining = ca.sq_draining;
	if (ibqp->qp_type == IB_QPT_RC || ibqp->qp_type == IB_QPT_UC ||
	    ibqp->qp_type == IB_QPT_XRC_INI || ibqp->qp_type == IB_QPT_XRC_TGT)
		vhca_verbs_ib_ah_attr(ibqp->device, &ca.ah_attr, &attr->ah_attr);
	attr->cap.max_send_wr = qp->cap.max_send_wr;
	attr->cap.max_recv_wr = qp->cap.max_recv_wr;
	attr->cap.max_send_sge = qp->cap.max_send_sge;
	attr->cap.max_recv_sge = qp->cap.max_recv_sge;
	attr->cap.max_inline_data = qp->cap.max_inline_data;

	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->xrcd = ibqp->xrcd;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = ibqp->port;
	return 0;
}

int vhca_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct vhca_qp *qp = to_vqp(ibqp);
	int err;

	err = vhca_core_destroy_qp(qp->core);
	if (!err) {	/* user QPs: the rings, after DESTROY_QP */
		vhca_uring_release(&qp->sq_uring);
		vhca_uring_release(&qp->rq_uring);
	}
	return err;
}

/* ib_send_wr (and its container) -> vhca_core_send_wr. */
static int vhca_send_wr(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			struct vhca_core_send_wr *out)
{
	/* IB_SEND_IP_CSUM and the rest: no offloads (Documentation/verbs.md). */
	if (wr->send_flags & ~VHCA_SEND_FLAGS_SUPPORTED)
		return -EOPNOTSUPP;
	memset(out, 0, sizeof(*out));
	out->wr_id = wr->wr_id;
	out->opcode = wr->opcode;
	out->flags = wr->send_flags;
	out->num_sge = wr->num_sge;
	out->sg_list = to_core_sges(wr->sg_list);

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
		out->imm_inv = (__force u32)wr->ex.imm_data;
		fallthrough;
	case IB_WR_SEND:
		if (ibqp->qp_type == IB_QPT_UD || ibqp->qp_type == IB_QPT_GSI ||
		    ibqp->qp_type == IB_QPT_SMI) {
			const struct ib_ud_wr *ud = ud_wr(wr);

			if (!ud->ah)
				return -EINVAL;
			out->ud.ah = to_vah(ud->ah)->av;
			out->ud.remote_qpn = ud->remote_qpn;
			out->ud.remote_qkey = ud->remote_qkey;
			out->ud.pkey_index = ud->pkey_index;
		}
		return 0;
	case IB_WR_SEND_WITH_INV:
		out->imm_inv = wr->ex.invalidate_rkey;
		return 0;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		out->imm_inv = (__force u32)wr->ex.imm_data;
		fallthrough;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_READ:
		out->rdma.remote_addr = rdma_wr(wr)->remote_addr;
		out->rdma.rkey = rdma_wr(wr)->rkey;
		return 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		out->atomic.remote_addr = atomic_wr(wr)->remote_addr;
		out->atomic.compare_add = atomic_wr(wr)->compare_add;
		out->atomic.swap = atomic_wr(wr)->swap;
		out->atomic.rkey = atomic_wr(wr)->rkey;
		return 0;
	case IB_WR_LOCAL_INV:
		out->imm_inv = wr->ex.invalidate_rkey;
		return 0;
	case IB_WR_REG_MR:
		out->reg.mr = to_vmr(reg_wr(wr)->mr)->core;
		out->reg.key = reg_wr(wr)->key;
		out->reg.access = reg_wr(wr)->access;
		out->reg.iova = reg_wr(wr)->mr->iova;
		out->reg.length = reg_wr(wr)->mr->length;
		return 0;
	case IB_WR_LSO:
	case IB_WR_MASKED_ATOMIC_CMP_AND_SWP:
	case IB_WR_MASKED_ATOMIC_FETCH_AND_ADD:
	case IB_WR_REG_MR_INTEGRITY:
	case IB_WR_RDMA_READ_WITH_INV:
		return -EOPNOTSUPP;	/* IBA opcodes the device lacks */
	default:
		return vhca_wr_opcode_is_iba15(wr->opcode) ? -EOPNOTSUPP : -EINVAL;
	}
}

/* vhca_core_send_wr_convert: one ib_send_wr of the chain (ctx: the QP). */
static int vhca_send_wr_next(void *ctx, const void *item,
			     struct vhca_core_send_wr *out, const void **next)
{
	const struct ib_send_wr *wr = item;

	*next = wr->next;
	return vhca_send_wr(ctx, wr, out);
}

/* The core takes the send queue lock once and rings one doorbell. */
int vhca_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr)
{
	const void *item = wr;
	int err;

	err = vhca_core_post_send_chain(to_vqp(ibqp)->core, &item,
					vhca_send_wr_next, ibqp);
	if (err)
		*bad_wr = item;
	return err;
}

int vhca_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	const void *item = wr;
	int err;

	err = vhca_core_post_recv_chain(to_vqp(ibqp)->core, &item,
					vhca_recv_wr_next);
	if (err)
		*bad_wr = item;
	return err;
}

int vhca_ib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return vhca_core_attach_mcast(to_vqp(ibqp)->core, lid, gid->raw);
}

int vhca_ib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return vhca_core_detach_mcast(to_vqp(ibqp)->core, lid, gid->raw);
}
