// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * datapath.c - the kernel-bypass data path: WQEs in the device format
 * (uapi/vhca_hw_verbs.h "Send WQEs", "Receive WQEs") written into our
 * rings, one 64-bit doorbell per post_send call on the context's doorbell
 * page, receives handed over through the ring's doorbell record without
 * an MMIO access (vhca_hw_verbs.h "Receive doorbell records"), CQEs read
 * with the owner-bit rule and the consumer index stored into the CQ's
 * doorbell record, CQs armed through the CQ doorbell.  The
 * same encoding as the kernel's driver/core/wqe_builder.cpp and
 * completion_queue.cpp.  The ordering against the device is rdma-core's
 * (util/udma_barrier.h): udma_to_device_barrier before an index or
 * doorbell that hands WQEs over, udma_from_device_barrier after a CQE's
 * owner bit says the CQE is ours.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "vhca.h"

#define VHCA_STALE_QPN 0xffffffffu

static inline void *ring_entry(const struct vhca_ring *ring, uint32_t index)
{
	return (char *)ring->buf +
	       ((size_t)(index & ((1u << ring->log_size) - 1)) << ring->shift);
}

static inline bool ring_full(const struct vhca_ring *ring)
{
	return ring->pi - __atomic_load_n(&ring->ci, __ATOMIC_ACQUIRE) >=
	       (1u << ring->log_size);
}

/* ---- send ---- */

/*
 * ibv_wr_opcode -> vhca_wqe_opcode: the same numbers for what we carry.
 * Whether the QP type may post it and the segment that follows the control
 * segment are the device's rules (uapi/vhca_hw_wqe_rules.h).
 */
static int wqe_opcode(const struct vhca_qp *qp, enum ibv_wr_opcode opcode,
		      uint32_t *segment)
{
	_Static_assert((int)IBV_WR_RDMA_WRITE == (int)VHCA_WQE_RDMA_WRITE &&
		       (int)IBV_WR_RDMA_WRITE_WITH_IMM == (int)VHCA_WQE_RDMA_WRITE_WITH_IMM &&
		       (int)IBV_WR_SEND == (int)VHCA_WQE_SEND &&
		       (int)IBV_WR_SEND_WITH_IMM == (int)VHCA_WQE_SEND_WITH_IMM &&
		       (int)IBV_WR_RDMA_READ == (int)VHCA_WQE_RDMA_READ &&
		       (int)IBV_WR_ATOMIC_CMP_AND_SWP == (int)VHCA_WQE_ATOMIC_CMP_AND_SWP &&
		       (int)IBV_WR_ATOMIC_FETCH_AND_ADD == (int)VHCA_WQE_ATOMIC_FETCH_AND_ADD &&
		       (int)IBV_WR_SEND_WITH_INV == (int)VHCA_WQE_SEND_WITH_INV &&
		       (int)IBV_WR_LOCAL_INV == (int)VHCA_WQE_LOCAL_INV &&
		       (int)IBV_WR_BIND_MW == (int)VHCA_WQE_BIND_MW,
		       "ibv_wr_opcode and vhca_wqe_opcode differ");
	/* TSO and the driver's opcodes are not in the device; REG_MR is the
	 * kernel's (no ibv_wr_opcode names it). */
	if ((unsigned int)opcode > 0xff ||
	    vhca_wqe_opcode_has((uint8_t)opcode, VHCA_WQE_OPF_KERNEL))
		return EINVAL;
	if (!vhca_wqe_opcode_allowed(opcode, qp->type))
		return EINVAL;
	*segment = vhca_wqe_segment_size(opcode, qp->type);
	return 0;
}

static uint8_t wqe_flags(unsigned int send_flags)
{
	uint8_t flags = 0;

	if (send_flags & IBV_SEND_SIGNALED)
		flags |= VHCA_WQE_F_SIGNALED;
	if (send_flags & IBV_SEND_SOLICITED)
		flags |= VHCA_WQE_F_SOLICITED;
	if (send_flags & IBV_SEND_FENCE)
		flags |= VHCA_WQE_F_FENCE;
	return flags;
}

/* The RDMA, atomic or bind segment (after the control segment). */
static int write_segment(const struct ibv_send_wr *wr, char *at)
{
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ: {
		struct vhca_wqe_raddr *seg = (void *)at;

		seg->remote_addr = htole64(wr->wr.rdma.remote_addr);
		seg->rkey = htole32(wr->wr.rdma.rkey);
		break;
	}
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD: {
		struct vhca_wqe_atomic *seg = (void *)at;

		seg->remote_addr = htole64(wr->wr.atomic.remote_addr);
		seg->rkey = htole32(wr->wr.atomic.rkey);
		seg->compare_add = htole64(wr->wr.atomic.compare_add);
		if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP)
			seg->swap = htole64(wr->wr.atomic.swap);
		break;
	}
	case IBV_WR_ATOMIC_WRITE: {
		struct vhca_wqe_atomic *seg = (void *)at;

		seg->remote_addr = htole64(wr->wr.atomic.remote_addr);
		seg->rkey = htole32(wr->wr.atomic.rkey);
		/* the bytes as the caller gave them (qp_ex.c), not a number */
		memcpy(&seg->swap, &wr->wr.atomic.swap, sizeof(seg->swap));
		break;
	}
#if IBVERBS_PABI_VERSION >= 65
	case IBV_WR_FLUSH: {
		struct vhca_wqe_flush *seg = (void *)at;

		/* length, type and level: ibv_wr_flush (qp_ex.c) */
		seg->remote_addr = htole64(wr->wr.rdma.remote_addr);
		seg->rkey = htole32(wr->wr.rdma.rkey);
		break;
	}
#endif
	case IBV_WR_BIND_MW:
		return vhca_bind_segment(wr->bind_mw.rkey, &wr->bind_mw.bind_info,
					 (void *)at);
	default:	/* SENDs: the UD segment comes from vhca_wqe_set_ud */
		break;
	}
	return 0;
}

void vhca_wqe_set_ud(struct vhca_send_wqe *w, struct ibv_ah *ah,
		     uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct vhca_wqe_ud *seg = (void *)(w->wqe + sizeof(struct vhca_wqe_ctrl));

	seg->av = to_vah(ah)->av;
	seg->remote_qpn = htole32(remote_qpn & VHCA_DB_OBJ_MASK);
	seg->remote_qkey = htole32(remote_qkey);
}

int vhca_wqe_begin(const struct vhca_qp *qp, const struct ibv_send_wr *wr,
		   char *wqe, struct vhca_send_wqe *w)
{
	struct vhca_wqe_ctrl *ctrl = (void *)wqe;
	uint32_t segment;
	int err;

	err = wqe_opcode(qp, wr->opcode, &segment);
	if (err)
		return err;
	if (wr->send_flags & ~(IBV_SEND_FENCE | IBV_SEND_SIGNALED |
			       IBV_SEND_SOLICITED | IBV_SEND_INLINE))
		return EINVAL;
	w->wqe = wqe;
	w->offset = sizeof(*ctrl) + segment;
	w->data_len = 0;
	memset(wqe, 0, 1u << qp->sq.shift);
	ctrl->wr_id = htole64(wr->wr_id);
	ctrl->opcode = wr->opcode;
	ctrl->flags = wqe_flags(wr->send_flags);
	if (qp->type == VHCA_QPT_XRC_INI)	/* the XRCETH, IBA A14.3.1 */
		ctrl->xrc_srqn = htole32(wr->qp_type.xrc.remote_srqn &
					 VHCA_DB_OBJ_MASK);
	if (wr->opcode == IBV_WR_SEND_WITH_IMM ||
	    wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		ctrl->imm_inv = wr->imm_data;	/* wire order, as given */
	else if (wr->opcode == IBV_WR_SEND_WITH_INV ||
		 wr->opcode == IBV_WR_LOCAL_INV)
		ctrl->imm_inv = htole32(wr->invalidate_rkey);
	return segment ? write_segment(wr, wqe + sizeof(*ctrl)) : 0;
}

int vhca_wqe_add_inline(const struct vhca_qp *qp, struct vhca_send_wqe *w,
			const void *addr, size_t length)
{
	struct vhca_wqe_ctrl *ctrl = (void *)w->wqe;

	if (!vhca_wqe_may_inline(ctrl->opcode) || ctrl->num_sge ||
	    length > qp->max_inline - w->data_len ||
	    w->offset + w->data_len + length > (1u << qp->sq.shift))
		return EINVAL;
	memcpy(w->wqe + w->offset + w->data_len, addr, length);
	w->data_len += length;
	ctrl->flags |= VHCA_WQE_F_INLINE;
	ctrl->inline_len = htole32(w->data_len);
	return 0;
}

int vhca_wqe_set_sges(const struct vhca_qp *qp, struct vhca_send_wqe *w,
		      const struct ibv_sge *sg_list, size_t num_sge)
{
	struct vhca_wqe_ctrl *ctrl = (void *)w->wqe;
	size_t i;

	if (num_sge > qp->max_send_sge || (ctrl->flags & VHCA_WQE_F_INLINE) ||
	    w->offset + num_sge * sizeof(struct vhca_sge) > (1u << qp->sq.shift))
		return EINVAL;
	for (i = 0; i < num_sge; i++) {
		struct vhca_sge *sge = (void *)(w->wqe + w->offset + i * sizeof(*sge));

		sge->addr = htole64(sg_list[i].addr);
		sge->length = htole32(sg_list[i].length);
		sge->lkey = htole32(sg_list[i].lkey);
	}
	ctrl->num_sge = (uint8_t)num_sge;
	return 0;
}

static int build_send_wqe(const struct vhca_qp *qp, const struct ibv_send_wr *wr,
			  char *wqe)
{
	struct vhca_send_wqe w;
	int err, i;

	if (qp->type == VHCA_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	/* ibv_send_wr has no field for ATOMIC_WRITE's bytes nor for FLUSH's
	 * length, placement type and selectivity: they are posted with
	 * ibv_wr_atomic_write and ibv_wr_flush (libibverbs offers them
	 * nowhere else) */
	if (wr->opcode == IBV_WR_ATOMIC_WRITE || (int)wr->opcode == (int)VHCA_WQE_FLUSH)
		return EINVAL;
	if (wr->num_sge < 0)
		return EINVAL;
	err = vhca_wqe_begin(qp, wr, wqe, &w);
	if (err)
		return err;
	if (qp->type == VHCA_QPT_UD)
		vhca_wqe_set_ud(&w, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				wr->wr.ud.remote_qkey);
	if (!vhca_wqe_carries_data(wr->opcode))
		return wr->num_sge ? EINVAL : 0;
	if (!(wr->send_flags & IBV_SEND_INLINE))
		return vhca_wqe_set_sges(qp, &w, wr->sg_list, (size_t)wr->num_sge);
	for (i = 0; i < wr->num_sge && !err; i++)
		err = vhca_wqe_add_inline(qp, &w, (void *)(uintptr_t)wr->sg_list[i].addr,
					  wr->sg_list[i].length);
	return err;
}

int vhca_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct vhca_qp *qp = to_vqp(ibqp);
	uint32_t start;
	int err = 0;

	/* an XRC receive QP has no send queue (IBA A14.2.2) */
	if (!vhca_qp_may_send(ibqp) || qp->type == VHCA_QPT_XRC_TGT) {
		*bad_wr = wr;
		return EINVAL;
	}
	vhca_lock(&qp->sq_lock);
	start = qp->sq.pi;
	for (; wr; wr = wr->next) {
		if (ring_full(&qp->sq))
			err = ENOMEM;
		else
			err = build_send_wqe(qp, wr, ring_entry(&qp->sq, qp->sq.pi));
		if (err) {
			*bad_wr = wr;
			break;
		}
		qp->sq.pi++;
	}
	if (qp->sq.pi != start)
		vhca_sq_kick(to_vctx(ibqp->context), qp);
	vhca_unlock(&qp->sq_lock);
	return err;
}

/* ---- receive (QP receive queues and SRQs) ---- */

static int build_recv_wqe(const struct vhca_ring *ring, uint32_t max_sge,
			  const struct ibv_recv_wr *wr, char *wqe)
{
	const uint32_t stride = 1u << ring->shift;
	struct vhca_rwqe_hdr *hdr = (void *)wqe;
	uint32_t i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge ||
	    sizeof(*hdr) + wr->num_sge * sizeof(struct vhca_sge) > stride)
		return EINVAL;
	memset(wqe, 0, stride);
	hdr->wr_id = htole64(wr->wr_id);
	hdr->num_sge = wr->num_sge;
	for (i = 0; i < (uint32_t)wr->num_sge; i++) {
		struct vhca_sge *sge = (void *)(wqe + sizeof(*hdr) + i * sizeof(*sge));

		sge->addr = htole64(wr->sg_list[i].addr);
		sge->length = htole32(wr->sg_list[i].length);
		sge->lkey = htole32(wr->sg_list[i].lkey);
	}
	return 0;
}

/*
 * Posts a chain into ring under lock, then hands it over with one store of
 * the producer index into the ring's doorbell record, without an MMIO
 * access (vhca_hw_verbs.h "Receive doorbell records"); db_offset >= 0
 * also rings that doorbell (a QP in ERR: the device flushes the WQEs when
 * a doorbell tells it).
 */
static int post_recv_ring(struct vhca_context *ctx, struct vhca_ring *ring,
			  struct vhca_lock *lock, uint32_t max_sge,
			  int db_offset, uint32_t obj,
			  struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	uint32_t start;
	int err = 0;

	vhca_lock(lock);
	start = ring->pi;
	for (; wr; wr = wr->next) {
		if (ring_full(ring))
			err = ENOMEM;
		else
			err = build_recv_wqe(ring, max_sge, wr,
					     ring_entry(ring, ring->pi));
		if (err) {
			*bad_wr = wr;
			break;
		}
		ring->pi++;
	}
	if (ring->pi != start) {
		/* the WQEs before the index that hands them over (the
		 * kernel's dma_wmb) */
		udma_to_device_barrier();
		vhca_dbrec_store(&ring->dbrec->producer_index, ring->pi);
		if (db_offset >= 0)
			vhca_ring_doorbell(ctx, (uint32_t)db_offset,
					   vhca_db_data_value(obj, 0, ring->pi));
	}
	vhca_unlock(lock);
	return err;
}

int vhca_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct vhca_qp *qp = to_vqp(ibqp);

	/* receives go to the SRQ; a QP in Reset takes none (IBA 11.4.1.2) */
	if (qp->srq || vhca_qpt_is_xrc(qp->type) || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	return post_recv_ring(to_vctx(ibqp->context), &qp->rq, &qp->rq_lock,
			      qp->max_recv_sge,
			      ibqp->state == IBV_QPS_ERR ? VHCA_DB_RQ : -1,
			      qp->qpn, wr, bad_wr);
}

int vhca_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct vhca_srq *srq = to_vsrq(ibsrq);

	/* an SRQ has no ERR state: the record alone */
	return post_recv_ring(to_vctx(ibsrq->context), &srq->ring, &srq->lock,
			      srq->max_sge, -1, srq->srqn, wr, bad_wr);
}

/* ---- completions ---- */

static inline bool cqe_valid(const struct vhca_cq *cq, uint32_t index)
{
	const struct vhca_cqe *cqe = ring_entry(&cq->ring, index);
	uint8_t owner = *(const volatile uint8_t *)&cqe->owner;

	if ((owner & VHCA_EQE_OWNER_BIT) !=
	    vhca_eqe_owner(index, cq->ring.log_size))
		return false;
	/* the CQE's other fields are read after its owner bit */
	udma_from_device_barrier();
	return true;
}

/* A CQE for the WQE whose index has these low 16 bits: it and every
 * earlier one are done (unsignaled sends complete silently before it). */
static void ring_completed_through(struct vhca_ring *ring, uint16_t wqe_index)
{
	uint32_t done = ring->ci + (uint16_t)(wqe_index - (uint16_t)ring->ci);

	if (done - ring->ci < ring->pi - ring->ci)
		__atomic_store_n(&ring->ci, done + 1, __ATOMIC_RELEASE);
}

static void free_wqes(struct vhca_qp *qp, const struct vhca_cqe *cqe)
{
	const uint16_t wqe_index = le16toh(cqe->wqe_index);

	if (cqe->opcode == VHCA_CQE_TM_RECV && qp->srq)
		vhca_tm_recv_done(qp->srq, cqe);
	else if (!(cqe->opcode & VHCA_CQE_RECV))
		ring_completed_through(&qp->sq, wqe_index);
	else if (qp->srq)	/* the device takes SRQ WQEs in ring order */
		__atomic_add_fetch(&qp->srq->ring.ci, 1, __ATOMIC_RELEASE);
	else
		ring_completed_through(&qp->rq, wqe_index);
}

static void decode_cqe(const struct vhca_cqe *cqe, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = le64toh(cqe->wr_id);
	wc->status = cqe->status;	/* enum vhca_wc_status == ibv_wc_status */
	wc->vendor_err = cqe->vendor_err;
	wc->qp_num = le32toh(cqe->qpn);
	wc->opcode = vhca_wc_opcode(cqe);
	if (cqe->status != VHCA_WC_SUCCESS)
		return;
	wc->byte_len = le32toh(cqe->byte_len);
	wc->src_qp = le32toh(cqe->src_qp);
	wc->slid = le16toh(cqe->slid);
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
	wc->pkey_index = le16toh(cqe->pkey_index);
	wc->wc_flags = vhca_tm_wc_flags(cqe);
	if (cqe->flags & VHCA_CQE_F_GRH)
		wc->wc_flags |= IBV_WC_GRH;
	if (cqe->flags & VHCA_CQE_F_IMM) {
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = cqe->imm_inv;	/* wire order */
	} else if (cqe->flags & VHCA_CQE_F_INV) {
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = le32toh(cqe->imm_inv);
	}
}

/* The next completion for the application, its send or receive WQEs
 * freed, or NULL; the caller holds cq->lock.  Skips the CQEs of destroyed
 * QPs.  The CQE stays ours until vhca_cq_release() stores the consumer
 * index. */
const struct vhca_cqe *vhca_cq_next(struct vhca_cq *cq)
{
	struct vhca_context *ctx = to_vctx(cq->vcq.cq.context);

	while (cqe_valid(cq, cq->ring.ci)) {
		const struct vhca_cqe *cqe = ring_entry(&cq->ring, cq->ring.ci);
		uint32_t qpn = le32toh(cqe->qpn);
		struct vhca_srq *srq;
		struct vhca_qp *qp;

		cq->ring.ci++;
		if (vhca_cqe_is_tm_op(cqe)) {
			if (vhca_tm_op_done(ctx, cqe))
				return cqe;
			continue;	/* not signaled: ours */
		}
		if (qpn == VHCA_STALE_QPN)
			continue;
		if (cqe->flags & VHCA_CQE_F_XRC) {
			/* the device takes an SRQ's WQEs in ring order */
			srq = vhca_xrc_srq_find(ctx, le32toh(cqe->srqn));
			if (srq)
				__atomic_add_fetch(&srq->ring.ci, 1, __ATOMIC_RELEASE);
			return cqe;
		}
		qp = vhca_find_qp(ctx, qpn);
		if (qp)
			free_wqes(qp, cqe);
		return cqe;
	}
	return NULL;
}

/* Gives the CQEs consumed since `start` back to the device. */
void vhca_cq_release(struct vhca_cq *cq, uint32_t start)
{
	if (cq->ring.ci == start)
		return;
	/* Our reads of the CQEs before the store that frees them (an
	 * order of reads before a write, which udma_to_device_barrier
	 * does not promise on every architecture). */
	atomic_thread_fence(memory_order_release);
	vhca_dbrec_store(&cq->dbrec->consumer_index, cq->ring.ci);
}

int vhca_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct vhca_cq *cq = to_vcq(ibcq);
	const struct vhca_cqe *cqe;
	uint32_t start;
	int polled = 0;

	vhca_lock(&cq->lock);
	start = cq->ring.ci;
	while (polled < num_entries && (cqe = vhca_cq_next(cq)))
		decode_cqe(cqe, &wc[polled++]);
	vhca_cq_release(cq, start);
	vhca_unlock(&cq->lock);
	return polled;
}

int vhca_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct vhca_cq *cq = to_vcq(ibcq);

	vhca_lock(&cq->lock);
	vhca_ring_doorbell(to_vctx(ibcq->context), VHCA_DB_CQ,
			   vhca_db_data_value(cq->cqn,
					      solicited_only ? VHCA_DB_CQ_ARM_SOLICITED
							     : VHCA_DB_CQ_ARM_NEXT,
					      cq->ring.ci));
	vhca_unlock(&cq->lock);
	return 0;
}

void vhca_cq_clean(struct vhca_cq *cq, uint32_t qpn)
{
	uint32_t index;

	vhca_lock(&cq->lock);
	for (index = cq->ring.ci;
	     index - cq->ring.ci < (1u << cq->ring.log_size) && cqe_valid(cq, index);
	     index++) {
		struct vhca_cqe *cqe = ring_entry(&cq->ring, index);

		if (le32toh(cqe->qpn) == qpn)
			cqe->qpn = htole32(VHCA_STALE_QPN);
	}
	vhca_unlock(&cq->lock);
}
