// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * uverbs_queues.c - the user (udata) halves of create_cq, create_qp,
 * create_srq and create_ah, and of the resizes of CQs and SRQs: the
 * request of uapi/vhca-abi.h, the pinned rings handed to the core
 * (vhca_core_user.h), the response.  The
 * verbs_*.c ops call these when udata is set; destroy releases the rings
 * there, after the device let go of them.
 */
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "vhca_shim.h"

static struct vhca_ucontext *vhca_udata_context(struct ib_udata *udata)
{
	return rdma_udata_to_drv_context(udata, struct vhca_ucontext, ibuc);
}

int vhca_uverbs_create_cq(struct vhca_cq *cq, const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata)
{
	struct ib_cq *ibcq = &cq->ibcq;
	struct vhca_kapi_device *kdev = to_kdev(ibcq->device);
	struct vhca_create_cq_resp resp = {};
	struct vhca_create_cq_req req;
	struct vhca_core_ubuf *buf;
	unsigned int cqn;
	int err;

	err = vhca_udata_request(udata, &req, sizeof(req));
	if (err)
		return err;
	/* The provider sized the ring for attr->cqe (vhca-abi.h). */
	if (req.log_size < VHCA_MIN_LOG_CQ || req.log_size > VHCA_MAX_LOG_CQ ||
	    (1u << req.log_size) - 1 < attr->cqe)
		return -EINVAL;
	err = vhca_uring_pin(ibcq->device, req.buf_addr, req.buf_len,
			     &cq->uring, &buf);
	if (err)
		return err;
	err = vhca_core_create_user_cq(kdev->core, buf, req.log_size,
				       req.dbrec_offset, attr->comp_vector,
				       vhca_udata_context(udata)->db_page, ibcq,
				       &cq->core, &cqn);
	if (err)
		goto release;
	ibcq->cqe = (1u << req.log_size) - 1;
	resp.cqn = cqn;
	err = vhca_udata_response(udata, &resp, sizeof(resp));
	if (err)
		goto destroy;
	return 0;

destroy:
	if (vhca_core_destroy_cq(cq->core))
		return err;	/* the device may still use the ring: keep it */
release:
	vhca_uring_release(&cq->uring);
	return err;
}

int vhca_uverbs_resize_cq(struct vhca_cq *cq, int cqe, struct ib_udata *udata)
{
	struct ib_cq *ibcq = &cq->ibcq;
	struct vhca_create_cq_req req;
	struct vhca_uring next = {};
	struct vhca_core_ubuf *buf;
	int err;

	err = vhca_udata_request(udata, &req, sizeof(req));
	if (err)
		return err;
	if (cqe <= 0 || req.log_size < VHCA_MIN_LOG_CQ ||
	    req.log_size > VHCA_MAX_LOG_CQ || (1u << req.log_size) - 1 < cqe)
		return -EINVAL;
	err = vhca_uring_pin(ibcq->device, req.buf_addr, req.buf_len, &next, &buf);
	if (err)
		return err;
	err = vhca_core_resize_user_cq(cq->core, buf, req.log_size,
				       req.dbrec_offset);
	if (err == -ETIMEDOUT || err == -EIO) {
		/* No answer: the device may use the new ring until destroy. */
		vhca_uring_release(&cq->orphan_uring);
		cq->orphan_uring = next;
		return err;
	}
	if (err) {
		vhca_uring_release(&next);
		return err;
	}
	vhca_uring_release(&cq->uring);	/* the device left it */
	cq->uring = next;
	ibcq->cqe = (1u << req.log_size) - 1;
	return 0;
}

int vhca_uverbs_create_qp(struct vhca_qp *qp, struct vhca_core_qp_init *init,
			  struct ib_udata *udata)
{
	struct ib_qp *ibqp = &qp->ibqp;
	struct vhca_kapi_device *kdev = to_kdev(ibqp->device);
	struct vhca_core_user_qp_rings rings = {};
	struct vhca_create_qp_resp resp = {};
	struct vhca_create_qp_req req;
	int err;

	err = vhca_udata_request_ext(udata, &req, sizeof(req),
				     VHCA_CREATE_QP_REQ_V1_LEN,
				     VHCA_CREATE_QP_REQ_SQ_DBREC);
	if (err)
		return err;
	if (init->type != VHCA_QPT_RC && init->type != VHCA_QPT_UC &&
	    init->type != VHCA_QPT_UD && init->type != VHCA_QPT_XRC_INI)
		return -EOPNOTSUPP;
	err = vhca_uring_pin(ibqp->device, req.sq_buf_addr, req.sq_buf_len,
			     &qp->sq_uring, &rings.sq);
	if (err)
		return err;
	/* Receives come from the SRQ; an XRC initiator has none. */
	if (!init->srq && init->type != VHCA_QPT_XRC_INI) {
		err = vhca_uring_pin(ibqp->device, req.rq_buf_addr,
				     req.rq_buf_len, &qp->rq_uring, &rings.rq);
		if (err) {
			vhca_core_ubuf_destroy(rings.sq);
			goto release;
		}
	}
	rings.sq_log_size = req.sq_log_size;
	rings.sq_wqe_shift = req.sq_wqe_shift;
	rings.rq_log_size = req.rq_log_size;
	rings.rq_wqe_shift = req.rq_wqe_shift;
	rings.rq_dbrec_offset = req.rq_dbrec_offset;
	rings.sq_dbrec = !!(req.comp_mask & VHCA_CREATE_QP_REQ_SQ_DBREC);
	rings.sq_dbrec_offset = req.sq_dbrec_offset;
	rings.db_page = vhca_udata_context(udata)->db_page;
	err = vhca_core_create_user_qp(kdev->core, init, &rings, &qp->core);
	if (err)
		goto release;
	resp.qpn = vhca_core_qp_num(qp->core);
	resp.max_inline = vhca_core_qp_max_inline(qp->core);
	if (vhca_core_qp_sq_dbrec(qp->core))
		resp.comp_mask |= VHCA_CREATE_QP_RESP_SQ_DBREC;
	err = vhca_udata_response(udata, &resp, sizeof(resp));
	if (err)
		goto destroy;
	return 0;

destroy:
	if (vhca_core_destroy_qp(qp->core))
		return err;
release:
	vhca_uring_release(&qp->sq_uring);
	vhca_uring_release(&qp->rq_uring);
	return err;
}

/* IB_SRQT_TM: the ring of list operations, a second buffer. */
static int vhca_uverbs_srq_tm(struct vhca_srq *srq,
			      const struct ib_srq_init_attr *init,
			      const struct vhca_create_srq_req *req,
			      struct vhca_core_srq_tm *tm)
{
	if (!(req->comp_mask & VHCA_CREATE_SRQ_REQ_TM))
		return -EINVAL;
	tm->cq = to_vcq(init->ext.cq)->core;
	tm->max_num_tags = init->ext.tag_matching.max_num_tags;
	tm->ops_log_size = req->tm_ops_log_size;
	return vhca_uring_pin(srq->ibsrq.device, req->tm_ops_addr,
			      req->tm_ops_len, &srq->tm_uring, &tm->ops);
}

static int vhca_uverbs_srq_core(struct vhca_srq *srq,
				struct ib_srq_init_attr *init,
				struct ib_udata *udata,
				const struct vhca_create_srq_req *req,
				struct vhca_core_ubuf *buf,
				const struct vhca_core_srq_tm *tm,
				unsigned int *srqn)
{
	struct ib_srq *ibsrq = &srq->ibsrq;
	struct vhca_kapi_device *kdev = to_kdev(ibsrq->device);
	struct vhca_core_user_srq_init uinit = {
		.pdn = to_vpd(ibsrq->pd)->pdn,
		.max_wr = init->attr.max_wr,
		.max_sge = init->attr.max_sge,
		.limit = init->attr.srq_limit,
		.buf = buf,
		.log_size = req->log_size,
		.wqe_shift = req->wqe_shift,
		.dbrec_offset = req->dbrec_offset,
		.db_page = vhca_udata_context(udata)->db_page,
		.srq_context = ibsrq,
	};
	struct vhca_core_srq_xrc xrc = {};
	int err;

	if (init->srq_type == IB_SRQT_TM) {
		err = vhca_core_create_user_tm_srq(kdev->core, &uinit, tm,
						   &srq->core);
	} else {
		if (init->srq_type == IB_SRQT_XRC) {
			xrc.xrcdn = to_vxrcd(init->ext.xrc.xrcd)->xrcdn;
			xrc.cq = to_vcq(init->ext.cq)->core;
		}
		err = vhca_core_create_user_srq(kdev->core, &uinit,
				init->srq_type == IB_SRQT_XRC ? &xrc : NULL,
				&srq->core);
	}
	if (err)
		return err;
	*srqn = uinit.srqn;
	vhca_srq_set_granted(srq, init, uinit.max_wr, uinit.max_sge);
	return 0;
}

int vhca_uverbs_create_srq(struct vhca_srq *srq, struct ib_srq_init_attr *init,
			   struct ib_udata *udata)
{
	struct ib_srq *ibsrq = &srq->ibsrq;
	struct vhca_create_srq_resp resp = {};
	struct vhca_core_srq_tm tm = {};
	struct vhca_create_srq_req req;
	struct vhca_core_ubuf *buf;
	unsigned int srqn;
	int err;

	err = vhca_udata_request_ext(udata, &req, sizeof(req),
				     VHCA_CREATE_SRQ_REQ_V1_LEN,
				     VHCA_CREATE_SRQ_REQ_TM);
	if (err)
		return err;
	if (init->srq_type == IB_SRQT_TM) {
		err = vhca_uverbs_srq_tm(srq, init, &req, &tm);
		if (err)
			return err;
	}
	err = vhca_uring_pin(ibsrq->device, req.buf_addr, req.buf_len,
			     &srq->uring, &buf);
	if (err) {
		if (tm.ops)
			vhca_core_ubuf_destroy(tm.ops);
		goto release;
	}
	/* takes buf and tm.ops */
	err = vhca_uverbs_srq_core(srq, init, udata, &req, buf, &tm, &srqn);
	if (err)
		goto release;
	/* ib_uverbs answers ibv_create_srq_ex with it (ibv_get_srq_num) */
	if (init->srq_type == IB_SRQT_XRC)
		ibsrq->ext.xrc.srq_num = srqn;
	resp.srqn = srqn;
	err = vhca_udata_response(udata, &resp, sizeof(resp));
	if (err)
		goto destroy;
	return 0;

destroy:
	if (vhca_core_destroy_srq(srq->core))
		return err;
release:
	vhca_uring_release(&srq->uring);
	vhca_uring_release(&srq->tm_uring);
	return err;
}

int vhca_uverbs_resize_srq(struct vhca_srq *srq, unsigned int max_wr,
			   struct ib_udata *udata)
{
	struct vhca_modify_srq_req req;
	struct vhca_uring next = {};
	struct vhca_core_ubuf *buf;
	unsigned int granted;
	int err;

	/* A provider that sends no request does not resize (vhca-abi.h). */
	if (!udata || !udata->inlen)
		return -EOPNOTSUPP;
	err = vhca_udata_request(udata, &req, sizeof(req));
	if (err)
		return err;
	err = vhca_uring_pin(srq->ibsrq.device, req.buf_addr, req.buf_len,
			     &next, &buf);
	if (err)
		return err;
	err = vhca_core_resize_user_srq(srq->core, buf, max_wr, req.log_size,
					req.wqe_shift, req.dbrec_offset,
					&granted);
	if (err == -ETIMEDOUT || err == -EIO) {
		/* No answer: the device may use the new ring until destroy. */
		vhca_uring_release(&srq->orphan_uring);
		srq->orphan_uring = next;
		return err;
	}
	if (err) {
		vhca_uring_release(&next);
		return err;
	}
	vhca_uring_release(&srq->uring);	/* the device left it */
	srq->uring = next;
	srq->max_wr = granted;
	return 0;
}

int vhca_uverbs_create_ah(struct vhca_ah *ah, struct ib_udata *udata)
{
	struct vhca_create_ah_resp resp = {};

	/* create_ah carries no driver request: nothing to read. */
	vhca_core_make_av(&ah->av, &resp.av);
	return vhca_udata_response(udata, &resp, sizeof(resp));
}
