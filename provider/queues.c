// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * queues.c - CQs, QPs and SRQs whose rings live in this process: page
 * aligned, zeroed buffers that the kernel pins and describes to the
 * device (uapi/vhca-abi.h).  The rings' geometry comes from
 * uapi/vhca_hw_qp_layout.h (vhca_wq_compute_geometry for QPs and SRQs,
 * vhca_cq_log_size for CQs), the code the driver core runs too; the kernel
 * refuses any other.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vhca.h"

static size_t page_round(size_t bytes)
{
	return (bytes + VHCA_UVERBS_PAGE_SIZE - 1) & ~(size_t)(VHCA_UVERBS_PAGE_SIZE - 1);
}

/* A zeroed, page-aligned buffer for a ring of 2^(log_size + shift) bytes
 * plus `extra`, from pd's allocator when pd is a parent domain with one
 * (pd.c). */
int vhca_ring_alloc(struct vhca_ring *ring, struct ibv_pd *pd, uint64_t type,
		      uint32_t log_size, uint32_t shift, size_t extra)
{
	ring->log_size = log_size;
	ring->shift = shift;
	ring->pi = ring->ci = 0;
	ring->res_type = type;
	ring->buf_len = page_round(((size_t)1 << (log_size + shift)) + extra);
	return vhca_queue_buf_alloc(pd, ring->buf_len, VHCA_UVERBS_PAGE_SIZE,
				    type, &ring->buf, &ring->owner);
}

/* A ring with a doorbell record after the WQEs (QP RQ, SRQ; an SQ the
 * device polls), at producer index 0 and no device flags (a parent
 * domain's allocator need not zero). */
static int dbrec_ring_alloc(struct vhca_ring *ring, struct ibv_pd *pd,
			    uint64_t type, uint32_t log_size, uint32_t shift)
{
	int err = vhca_ring_alloc(ring, pd, type, log_size, shift,
			     sizeof(struct vhca_wq_dbrec));

	if (!err) {
		ring->dbrec = (struct vhca_wq_dbrec *)((char *)ring->buf +
						       ((size_t)1 << (log_size + shift)));
		ring->dbrec->producer_index = 0;
		ring->dbrec->device_flags = 0;
	}
	return err;
}

static uint32_t dbrec_offset(const struct vhca_ring *ring)
{
	return (uint32_t)((char *)ring->dbrec - (char *)ring->buf);
}

void vhca_ring_free(struct vhca_ring *ring)
{
	vhca_queue_buf_free(ring->owner, ring->buf, ring->buf_len, ring->res_type);
	ring->buf = NULL;
}

/* ---- completion queues ---- */

/* uapi's vhca_cq_log_size, as the kernel driver sizes a CQ; more than
 * INT32_MAX (ibv_create_cq's int cqe) is refused. */
static uint32_t cq_log_size(uint32_t cqe)
{
	return cqe > INT32_MAX ? 0 : vhca_cq_log_size(cqe);
}

/* A zeroed ring of 2^log_size CQEs, the doorbell record right after. */
static int cq_ring_alloc(struct vhca_ring *ring, struct ibv_pd *pd,
			 struct vhca_cq_dbrec **dbrec, uint32_t log_size)
{
	int err = vhca_ring_alloc(ring, pd, VHCA_RES_TYPE_CQ, log_size, 6,
			     sizeof(struct vhca_cq_dbrec));

	if (!err)
		*dbrec = (struct vhca_cq_dbrec *)((char *)ring->buf +
						  (sizeof(struct vhca_cqe) << log_size));
	return err;
}

/* The kernel's CREATE_CQ, the driver's data right after the command. */
static int cq_cmd(struct ibv_context *context, const struct ibv_cq_init_attr_ex *attr,
		  struct vhca_cq *cq, const struct vhca_create_cq_req *req)
{
	struct {
		struct ibv_create_cq ibv_cmd;
		struct vhca_create_cq_req drv;
	} cmd = { .drv = *req };
	struct {
		struct ib_uverbs_create_cq_resp ibv_resp;
		struct vhca_create_cq_resp drv;
	} resp = {};
	int err;

	err = ibv_cmd_create_cq(context, attr->cqe, attr->channel, attr->comp_vector,
				&cq->vcq.cq, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	cq->cqn = resp.drv.cqn;
	return err;
}

/* The same through the extended command, for ibv_create_cq_ex. */
static int cq_cmd_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr,
		     struct vhca_cq *cq, const struct vhca_create_cq_req *req)
{
	struct {
		struct ibv_create_cq_ex ibv_cmd;
		struct vhca_create_cq_req drv;
	} cmd = { .drv = *req };
	struct {
		struct ib_uverbs_ex_create_cq_resp ibv_resp;
		struct vhca_create_cq_resp drv;
	} resp = {};
	int err;

	err = ibv_cmd_create_cq_ex(context, attr, NULL, &cq->vcq, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp), 0);
	cq->cqn = resp.drv.cqn;
	return err;
}

/*
 * A CQ of at least attr->cqe entries, its ring in our memory; through the
 * extended command (ibv_cmd_create_cq_ex) for ibv_create_cq_ex, whose
 * caller checked the extended attributes (cq_ex.c).
 */
/* The parent domain whose allocator an extended CQ's ring comes from
 * (IBV_CQ_INIT_ATTR_MASK_PD; cq_ex.c checked it), NULL for the heap. */
static struct ibv_pd *vhca_cq_parent_domain(const struct ibv_cq_init_attr_ex *attr)
{
	return (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) ? attr->parent_domain : NULL;
}

/* IBV_CREATE_CQ_ATTR_SINGLE_THREADED, or a parent domain with a thread
 * domain: one thread polls, no lock (vhca.h struct vhca_lock). */
static bool cq_single_threaded(const struct ibv_cq_init_attr_ex *attr)
{
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED))
		return true;
	return vhca_cq_parent_domain(attr) &&
	       vhca_pd_single_threaded(vhca_cq_parent_domain(attr));
}

static struct vhca_cq *cq_create(struct ibv_context *context,
				 struct ibv_cq_init_attr_ex *attr, bool ex)
{
	struct vhca_create_cq_req req = {};
	struct vhca_cq *cq;
	uint32_t log_size;
	int err;

	log_size = cq_log_size(attr->cqe);
	if (!log_size) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	cq->parent_domain = vhca_cq_parent_domain(attr);
	err = cq_ring_alloc(&cq->ring, cq->parent_domain, &cq->dbrec, log_size);
	if (err)
		goto free_cq;
	vhca_lock_init(&cq->lock, cq_single_threaded(attr));

	req.buf_addr = (uintptr_t)cq->ring.buf;
	req.buf_len = cq->ring.buf_len;
	req.dbrec_offset = (uint32_t)((char *)cq->dbrec - (char *)cq->ring.buf);
	req.log_size = log_size;
	err = ex ? cq_cmd_ex(context, attr, cq, &req) : cq_cmd(context, attr, cq, &req);
	if (err)
		goto free_ring;
	return cq;

free_ring:
	vhca_ring_free(&cq->ring);
free_cq:
	free(cq);
	errno = err;
	return NULL;
}

struct ibv_cq *vhca_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel, int comp_vector)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = cqe > 0 ? (uint32_t)cqe : 0,
		.channel = channel,
		.comp_vector = (uint32_t)comp_vector,
	};
	struct vhca_cq *cq = cq_create(context, &attr, false);

	return cq ? &cq->vcq.cq : NULL;
}

struct vhca_cq *vhca_cq_create(struct ibv_context *context,
			       struct ibv_cq_init_attr_ex *attr)
{
	return cq_create(context, attr, true);
}

int vhca_destroy_cq(struct ibv_cq *ibcq)
{
	struct vhca_cq *cq = to_vcq(ibcq);
	int err = ibv_cmd_destroy_cq(ibcq);

	if (err)
		return err;
	vhca_ring_free(&cq->ring);
	vhca_lock_destroy(&cq->lock);
	free(cq);
	return 0;
}

/*
 * ibv_resize_cq: a new ring for the kernel's RESIZE_CQ, which moves the
 * CQEs past the consumer index in our old record (poll_cq stored it) to
 * index 0 of the new ring.  The CQ's lock is held throughout, so nobody
 * polls the old ring while the device moves it (Documentation/device.md
 * "Completion queues"); arming carries over in the device.
 */
int vhca_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct vhca_cq *cq = to_vcq(ibcq);
	struct {
		struct ibv_resize_cq ibv_cmd;
		struct vhca_create_cq_req drv;
	} cmd = {};
	struct ib_uverbs_resize_cq_resp resp = {};
	struct vhca_cq_dbrec *dbrec;
	struct vhca_ring ring;
	uint32_t log_size = cq_log_size(cqe > 0 ? (uint32_t)cqe : 0);
	int err;

	if (!log_size)
		return EINVAL;
	/* from the parent domain the CQ was created with */
	err = cq_ring_alloc(&ring, cq->parent_domain, &dbrec, log_size);
	if (err)
		return err;
	cmd.drv.buf_addr = (uintptr_t)ring.buf;
	cmd.drv.buf_len = ring.buf_len;
	cmd.drv.dbrec_offset = (uint32_t)((char *)dbrec - (char *)ring.buf);
	cmd.drv.log_size = log_size;

	vhca_lock(&cq->lock);
	err = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd), &resp,
				sizeof(resp));
	if (!err) {
		struct vhca_ring old = cq->ring;

		cq->ring = ring;	/* ci 0: where the moved CQEs start */
		cq->dbrec = dbrec;
		ring = old;
	}
	vhca_unlock(&cq->lock);
	vhca_ring_free(&ring);	/* the old one, or the refused new one */
	return err;
}

/* ---- the QPN table: CQEs name their QP by QPN ---- */

static void qp_table_add(struct vhca_context *ctx, struct vhca_qp *qp)
{
	struct vhca_qp **head = &ctx->qp_table[qp->qpn % VHCA_QP_TABLE_SIZE];

	pthread_mutex_lock(&ctx->qp_table_lock);
	qp->next = *head;
	*head = qp;
	pthread_mutex_unlock(&ctx->qp_table_lock);
}

static void qp_table_remove(struct vhca_context *ctx, struct vhca_qp *qp)
{
	struct vhca_qp **link = &ctx->qp_table[qp->qpn % VHCA_QP_TABLE_SIZE];

	pthread_mutex_lock(&ctx->qp_table_lock);
	while (*link && *link != qp)
		link = &(*link)->next;
	if (*link)
		*link = qp->next;
	pthread_mutex_unlock(&ctx->qp_table_lock);
}

/* From poll_cq; the application does not destroy a QP while polling its
 * CQs (rdma-core's usual rule), so no lock. */
struct vhca_qp *vhca_find_qp(struct vhca_context *ctx, uint32_t qpn)
{
	struct vhca_qp *qp = ctx->qp_table[qpn % VHCA_QP_TABLE_SIZE];

	while (qp && qp->qpn != qpn)
		qp = qp->next;
	return qp;
}

/* ---- queue pairs ---- */

static int qp_type(enum ibv_qp_type type, uint8_t *out)
{
	switch (type) {
	case IBV_QPT_RC:
		*out = VHCA_QPT_RC;
		return 0;
	case IBV_QPT_UC:
		*out = VHCA_QPT_UC;
		return 0;
	case IBV_QPT_UD:
		*out = VHCA_QPT_UD;
		return 0;
	case IBV_QPT_XRC_SEND:
		*out = VHCA_QPT_XRC_INI;
		return 0;
	default:
		return EOPNOTSUPP;
	}
}

/* The rings' geometry: uapi's vhca_wq_compute_geometry, as the kernel
 * driver's core computes it (the kernel checks the request against the same). */
static int qp_layout(struct vhca_context *ctx, const struct ibv_qp_cap *cap,
		     bool has_srq, struct vhca_create_qp_req *req)
{
	const struct vhca_wq_caps asked = {
		.max_send_wr = cap->max_send_wr, .max_recv_wr = cap->max_recv_wr,
		.max_send_sge = cap->max_send_sge, .max_recv_sge = cap->max_recv_sge,
		.max_inline_data = cap->max_inline_data,
	};
	struct vhca_wq_geometry g;

	if (vhca_wq_compute_geometry(&asked, has_srq, ctx->max_qp_wr, ctx->max_sge, &g))
		return EINVAL;
	req->sq_wqe_shift = g.sq_wqe_shift;
	req->sq_log_size = g.sq_log_size;
	req->rq_wqe_shift = g.rq_wqe_shift;
	req->rq_log_size = g.rq_log_size;
	return 0;
}

/* The kernel's CREATE_QP with the ring addresses; the library puts the
 * granted caps into attr->cap. */
static int qp_cmd(struct ibv_pd *pd, struct vhca_qp *qp, struct ibv_qp_init_attr_ex *attr,
		  bool ex, const struct vhca_create_qp_req *req)
{
	struct {
		struct ibv_create_qp ibv_cmd;
		struct vhca_create_qp_req drv;
	} cmd = { .drv = *req };
	struct {
		struct ib_uverbs_create_qp_resp ibv_resp;
		struct vhca_create_qp_resp drv;
	} resp = {};
	int err;

	if (ex) {
		/* what the kernel sees; send_ops_flags stay in the provider */
		struct ibv_qp_init_attr_ex kattr = *attr;

		kattr.comp_mask = IBV_QP_INIT_ATTR_PD;
		err = ibv_cmd_create_qp_ex(pd->context, &qp->vqp, &kattr, &cmd.ibv_cmd,
					   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
		attr->cap = kattr.cap;
	} else {
		err = ibv_cmd_create_qp(pd, &qp->vqp.qp, (struct ibv_qp_init_attr *)attr,
					&cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
					sizeof(resp));
	}
	/* With the ioctl interface resp.ibv_resp stays empty; the driver
	 * data is filled either way. */
	qp->qpn = resp.drv.qpn;
	qp->max_inline = resp.drv.max_inline;
	/* A kernel or device that does not poll the record: doorbells. */
	if (!(resp.drv.comp_mask & VHCA_CREATE_QP_RESP_SQ_DBREC))
		qp->sq.dbrec = NULL;
	return err;
}

/* A QP with its rings in our memory; `ex`: through ibv_create_qp_ex, whose
 * attributes vhca_create_qp_ex checked. */
static struct vhca_qp *qp_create(struct ibv_pd *pd, struct ibv_qp_init_attr_ex *attr,
				 bool ex)
{
	struct vhca_context *ctx = to_vctx(pd->context);
	struct vhca_create_qp_req req = {};
	struct vhca_qp *qp;
	int err;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	err = qp_type(attr->qp_type, &qp->type);
	/* IBA A14.2.2: an XRC send QP has no receive queue, as with an SRQ */
	if (!err)
		err = qp_layout(ctx, &attr->cap,
				attr->srq != NULL || qp->type == VHCA_QPT_XRC_INI, &req);
	if (err)
		goto free_qp;
	if (ctx->sq_poll) {
		err = dbrec_ring_alloc(&qp->sq, pd, VHCA_RES_TYPE_SQ,
				       req.sq_log_size, req.sq_wqe_shift);
		req.comp_mask |= VHCA_CREATE_QP_REQ_SQ_DBREC;
		req.sq_dbrec_offset = err ? 0 : dbrec_offset(&qp->sq);
	} else {
		err = vhca_ring_alloc(&qp->sq, pd, VHCA_RES_TYPE_SQ, req.sq_log_size,
				 req.sq_wqe_shift, 0);
	}
	if (err)
		goto free_qp;
	if (!attr->srq && qp->type != VHCA_QPT_XRC_INI) {
		err = dbrec_ring_alloc(&qp->rq, pd, VHCA_RES_TYPE_RQ, req.rq_log_size,
				       req.rq_wqe_shift);
		if (err)
			goto free_sq;
		req.rq_buf_addr = (uintptr_t)qp->rq.buf;
		req.rq_buf_len = qp->rq.buf_len;
		req.rq_dbrec_offset = dbrec_offset(&qp->rq);
	} else {
		qp->srq = to_vsrq(attr->srq);
	}
	req.sq_buf_addr = (uintptr_t)qp->sq.buf;
	req.sq_buf_len = qp->sq.buf_len;
	vhca_lock_init(&qp->sq_lock, vhca_pd_single_threaded(pd));
	vhca_lock_init(&qp->rq_lock, vhca_pd_single_threaded(pd));

	err = qp_cmd(pd, qp, attr, ex, &req);
	if (err)
		goto free_rq;
	qp->max_send_sge = attr->cap.max_send_sge;
	qp->max_recv_sge = attr->cap.max_recv_sge;
	qp_table_add(ctx, qp);
	return qp;

free_rq:
	vhca_ring_free(&qp->rq);
free_sq:
	vhca_ring_free(&qp->sq);
free_qp:
	free(qp);
	errno = err;
	return NULL;
}

struct ibv_qp *vhca_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {};
	struct vhca_qp *qp;

	memcpy(&attr_ex, attr, sizeof(*attr));
	qp = qp_create(pd, &attr_ex, false);
	if (!qp)
		return NULL;
	attr->cap = attr_ex.cap;
	return &qp->vqp.qp;
}

/* ibv_create_qp_ex: a PD (an XRC domain for XRC_RECV, xrc.c), and
 * send_ops_flags for the ibv_wr_* API (qp_ex.c); create flags (the mask
 * with flags 0 is fine), TSO and RSS are not offered. */
struct ibv_qp *vhca_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr)
{
	const uint32_t supported = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
				   IBV_QP_INIT_ATTR_CREATE_FLAGS;
	struct vhca_qp *qp;
	uint8_t type;
	int err = 0;

	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		if (attr->comp_mask & ~(supported | IBV_QP_INIT_ATTR_XRCD)) {
			errno = EOPNOTSUPP;
			return NULL;
		}
		qp = vhca_create_xrc_recv_qp(context, attr);
		return qp ? &qp->vqp.qp : NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != context)
		err = EINVAL;
	else if ((attr->comp_mask & ~supported) ||
		 ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags))
		err = EOPNOTSUPP;	/* no create flag is offered */
	else
		err = qp_type(attr->qp_type, &type);
	if (!err && (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		err = vhca_qp_ex_check_ops(to_vctx(context), attr->send_ops_flags,
					   type);
	if (err) {
		errno = err;
		return NULL;
	}
	qp = qp_create(attr->pd, attr, true);
	if (!qp)
		return NULL;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		vhca_qp_ex_set_ops(qp, attr->send_ops_flags);
	return &qp->vqp.qp;
}

/* Completions of qp still in its CQs are dropped (RESET, destroy). */
static void qp_clean_cqs(struct vhca_qp *qp)
{
	struct ibv_cq *send_cq = qp->vqp.qp.send_cq;
	struct ibv_cq *recv_cq = qp->vqp.qp.recv_cq;

	/* XRC: a send QP has no recv CQ, a receive QP no CQ at all (its
	 * completions go to the SRQs' CQs and are not cleaned) */
	if (send_cq)
		vhca_cq_clean(to_vcq(send_cq), qp->qpn);
	if (recv_cq && recv_cq != send_cq)
		vhca_cq_clean(to_vcq(recv_cq), qp->qpn);
}

int vhca_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct vhca_qp *qp = to_vqp(ibqp);
	struct ibv_modify_qp cmd;
	int err;

	err = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (err)
		return err;
	if ((attr_mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET) {
		/* The device starts the rings again at index 0 (IBA 10.3.1). */
		qp_clean_cqs(qp);
		vhca_lock(&qp->sq_lock);
		qp->sq.pi = qp->sq.ci = 0;
		if (qp->sq.dbrec)
			vhca_dbrec_store(&qp->sq.dbrec->producer_index, 0);
		vhca_unlock(&qp->sq_lock);
		vhca_lock(&qp->rq_lock);
		qp->rq.pi = qp->rq.ci = 0;
		/* else the device would take the old value for new WQEs */
		if (qp->rq.dbrec)
			vhca_dbrec_store(&qp->rq.dbrec->producer_index, 0);
		vhca_unlock(&qp->rq_lock);
	}
	return 0;
}

int vhca_destroy_qp(struct ibv_qp *ibqp)
{
	struct vhca_qp *qp = to_vqp(ibqp);
	int err;

	err = ibv_cmd_destroy_qp(ibqp);
	if (err)
		return err;
	qp_clean_cqs(qp);
	qp_table_remove(to_vctx(ibqp->context), qp);
	vhca_ring_free(&qp->sq);
	vhca_ring_free(&qp->rq);
	vhca_lock_destroy(&qp->sq_lock);
	vhca_lock_destroy(&qp->rq_lock);
	free(qp);
	return 0;
}

/* ---- shared receive queues ---- */

/* The kernel's CREATE_SRQ (ex: CREATE_XSRQ) with the ring. */
static int srq_cmd(struct ibv_pd *pd, struct vhca_srq *srq,
		   struct ibv_srq_init_attr_ex *attr, bool ex,
		   const struct vhca_create_srq_req *req)
{
	struct {
		struct ibv_create_srq ibv_cmd;
		struct vhca_create_srq_req drv;
	} cmd = { .drv = *req };
	struct {
		struct ibv_create_xsrq ibv_cmd;
		struct vhca_create_srq_req drv;
	} xcmd = { .drv = *req };
	struct {
		struct ib_uverbs_create_srq_resp ibv_resp;
		struct vhca_create_srq_resp drv;
	} resp = {};
	int err;

	if (ex)
		err = ibv_cmd_create_srq_ex(pd->context, &srq->vsrq, attr,
					    &xcmd.ibv_cmd, sizeof(xcmd),
					    &resp.ibv_resp, sizeof(resp));
	else	/* ibv_srq_init_attr is the start of the _ex one */
		err = ibv_cmd_create_srq(pd, &srq->vsrq.srq,
					 (struct ibv_srq_init_attr *)attr,
					 &cmd.ibv_cmd, sizeof(cmd),
					 &resp.ibv_resp, sizeof(resp));
	srq->srqn = resp.drv.srqn;
	return err;
}

struct ibv_srq *vhca_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex attr_ex = {
		.srq_context = attr->srq_context,
		.attr = attr->attr,
	};
	struct vhca_srq *srq = vhca_srq_create(pd, &attr_ex, false);

	if (!srq)
		return NULL;
	attr->attr = attr_ex.attr;
	return &srq->vsrq.srq;
}

struct vhca_srq *vhca_srq_create(struct ibv_pd *pd,
				 struct ibv_srq_init_attr_ex *attr, bool ex)
{
	struct vhca_context *ctx = to_vctx(pd->context);
	struct vhca_create_srq_req req = {};
	struct vhca_create_qp_req layout = {};
	struct ibv_qp_cap cap = {
		.max_recv_wr = attr->attr.max_wr,
		.max_recv_sge = attr->attr.max_sge,
	};
	struct vhca_srq *srq;
	int err;

	/* The receive half of a QP layout, against the SRQ limits. */
	if (!attr->attr.max_wr || attr->attr.max_wr > ctx->max_srq_wr) {
		errno = EINVAL;
		return NULL;
	}
	err = qp_layout(ctx, &cap, false, &layout);
	if (err) {
		errno = err;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	err = dbrec_ring_alloc(&srq->ring, pd, VHCA_RES_TYPE_SRQ, layout.rq_log_size,
			       layout.rq_wqe_shift);
	if (err)
		goto free_srq;
	vhca_lock_init(&srq->lock, vhca_pd_single_threaded(pd));
	req.buf_addr = (uintptr_t)srq->ring.buf;
	req.buf_len = srq->ring.buf_len;
	req.log_size = layout.rq_log_size;
	req.wqe_shift = layout.rq_wqe_shift;
	req.dbrec_offset = dbrec_offset(&srq->ring);
	if (ex && (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	    attr->srq_type == IBV_SRQT_TM) {
		err = vhca_tm_init(srq, pd, attr, &req);
		if (err)
			goto free_ring;
	}
	err = srq_cmd(pd, srq, attr, ex, &req);
	if (err)
		goto free_ring;
	srq->max_sge = attr->attr.max_sge;	/* granted, set by the library */
	return srq;

free_ring:
	vhca_tm_free(srq);
	vhca_ring_free(&srq->ring);
free_srq:
	free(srq);
	errno = err;
	return NULL;
}

/* The new ring's record says what the old one says: the device takes
 * its producer index from the old record and goes on from there. */
static void srq_resize_req(const struct vhca_srq *srq,
			   const struct vhca_ring *ring,
			   struct vhca_modify_srq_req *req)
{
	ring->dbrec->producer_index = htole32(srq->ring.pi);
	req->buf_addr = (uintptr_t)ring->buf;
	req->buf_len = ring->buf_len;
	req->log_size = ring->log_size;
	req->wqe_shift = ring->shift;
	req->dbrec_offset = dbrec_offset(ring);
}

/* The SRQ goes on in ring; its counters stay (pollers advance ci without
 * the lock), ring gets the old buffer to free. */
static void srq_swap_ring(struct vhca_srq *srq, struct vhca_ring *ring)
{
	struct vhca_ring old = srq->ring;

	srq->ring.buf = ring->buf;
	srq->ring.buf_len = ring->buf_len;
	srq->ring.owner = ring->owner;
	srq->ring.res_type = ring->res_type;
	srq->ring.log_size = ring->log_size;
	srq->ring.dbrec = ring->dbrec;
	*ring = old;
}

/*
 * ibv_modify_srq with IBV_SRQ_MAX_WR (IBA 11.2.3.3): a new ring, laid out
 * as at create for max_wr and the SRQ's max_sge, for the kernel's
 * RESIZE_SRQ, which moves the WQEs the device has not consumed to the
 * same indexes there (uapi/vhca-abi.h struct vhca_modify_srq_req).  The
 * SRQ's lock is held throughout, so nothing is posted to the old ring
 * while the device moves it; the free-running indexes go on.  More WQEs
 * posted and not completed than max_wr: EINVAL.
 */
static int srq_resize(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		      int attr_mask)
{
	struct vhca_context *ctx = to_vctx(ibsrq->context);
	struct vhca_srq *srq = to_vsrq(ibsrq);
	struct {
		struct ibv_modify_srq ibv_cmd;
		struct vhca_modify_srq_req drv;
	} cmd = {};
	struct ibv_qp_cap cap = {
		.max_recv_wr = attr->max_wr,
		.max_recv_sge = srq->max_sge,
	};
	struct vhca_create_qp_req layout = {};
	struct vhca_ring ring;
	int err;

	if (srq->tm)
		return EOPNOTSUPP;	/* the device moves no tag list */
	if (!attr->max_wr || attr->max_wr > ctx->max_srq_wr ||
	    qp_layout(ctx, &cap, false, &layout) ||
	    layout.rq_wqe_shift != srq->ring.shift)
		return EINVAL;
	err = dbrec_ring_alloc(&ring, ibsrq->pd, VHCA_RES_TYPE_SRQ,
			       layout.rq_log_size, layout.rq_wqe_shift);
	if (err)
		return err;
	vhca_lock(&srq->lock);
	if (srq->ring.pi - __atomic_load_n(&srq->ring.ci, __ATOMIC_ACQUIRE) >
	    (1u << ring.log_size)) {
		err = EINVAL;
	} else {
		srq_resize_req(srq, &ring, &cmd.drv);
		err = ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
					 sizeof(cmd));
		if (!err)
			srq_swap_ring(srq, &ring);
	}
	vhca_unlock(&srq->lock);
	vhca_ring_free(&ring);	/* the old one, or the refused new one */
	return err;
}

int vhca_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask)
{
	struct ibv_modify_srq cmd;

	if (attr_mask & IBV_SRQ_MAX_WR)
		return srq_resize(ibsrq, attr, attr_mask);
	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int vhca_destroy_srq(struct ibv_srq *ibsrq)
{
	struct vhca_srq *srq = to_vsrq(ibsrq);
	int err = ibv_cmd_destroy_srq(ibsrq);

	if (err)
		return err;
	if (srq->xrc || srq->tm)
		vhca_xrc_srq_remove(to_vctx(ibsrq->context), srq);
	vhca_tm_free(srq);
	vhca_ring_free(&srq->ring);
	vhca_lock_destroy(&srq->lock);
	free(srq);
	return 0;
}
