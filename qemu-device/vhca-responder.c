/*
 * vhca - the responder side of the data path (the copy it uses is
 * vhca-sgl.c).
 *
 * The requester (vhca-transport.c) hands a whole message to the
 * responder QP's device here, for RC after vhca-rc.c found its PSN to be
 * the expected one (duplicates and sequence errors are answered there;
 * rq_psn advances here, by the PSNs of the message, when it is ACKed;
 * UC resynchronizes on the message's PSN).  The responder checks it as
 * IBA 9.7.5.1 and 9.9.3 say (receive WQE present, lengths, rkey, PD and
 * access rights of the target region and of the QP), moves the data with
 * DMA, completes receive WQEs, and answers with an ACK or a NAK code.
 * Responder errors on RC put the responder QP in ERR, with an affiliated
 * event when no receive completion reports them (IBA 11.6.3.1).
 * Datagrams (UD, SMI, GSI) are delivered or silently dropped (IBA 9.6.2:
 * bad Q_Key, no receive WQE).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "vhca-transport.h"
#include "trace.h"

/* ---- receive WQEs -------------------------------------------------------- */

/* Receive WQEs come from the QP's receive queue or from its SRQ; with
 * no WQE left by the producer index the device has, it reads the doorbell
 * record (if any) before deciding (RNR NAK, a dropped datagram). */
static bool vhca_rq_empty(VhcaState *s, VhcaQp *qp)
{
    VhcaWq *wq = vhca_qp_recv_wq_fresh(s, qp);

    return !wq || wq->ci == wq->pi;
}

/* Receive buffers are checked against the PD of the queue they come from. */
static uint32_t vhca_rq_pdn(VhcaState *s, VhcaQp *qp)
{
    VhcaSrq *srq = (qp->flags & VHCA_QP_F_HAS_SRQ) ? vhca_srq_get(s, qp->srqn)
                                                    : NULL;

    return srq ? srq->pdn : qp->pdn;
}

/* The caller checked !vhca_rq_empty(). */
static uint8_t vhca_rq_fetch(VhcaState *s, VhcaQp *qp, VhcaRecvWqe *rwqe)
{
    VhcaWq *wq = vhca_qp_recv_wq(s, qp);
    uint32_t stride = 1u << wq->wqe_shift;
    uint64_t off = (uint64_t)(wq->ci & ((1u << wq->log_size) - 1)) * stride;
    uint8_t buf[1u << VHCA_MAX_WQE_SHIFT];
    const char *why = NULL;
    uint8_t verr;

    memset(rwqe, 0, sizeof(*rwqe));
    if (vhca_dma_read(s, vhca_buf_addr(&wq->buf, off), buf, stride)
            != MEMTX_OK) {
        return VHCA_VERR_DMA_FAULT;
    }
    verr = vhca_wqe_decode_recv(buf, stride, rwqe, &why);
    if (verr != VHCA_VERR_NONE) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x receive WQE %u: %s\n",
                      qp->handle, wq->ci, why);
        trace_vhca_wqe_reject(qp->handle, wq->ci, why);
    }
    return verr;
}

void vhca_rq_complete(VhcaState *s, VhcaQp *qp, uint64_t wr_id,
                      const VhcaPacket *pkt, const VhcaRecvDone *d)
{
    struct vhca_cqe cqe;
    VhcaWq *wq;

    memset(&cqe, 0, sizeof(cqe));
    cqe.wr_id = cpu_to_le64(wr_id);
    cqe.byte_len = cpu_to_le32(d->byte_len);
    cqe.qpn = cpu_to_le32(qp->handle);
    cqe.src_qp = cpu_to_le32(pkt->from_agent ? pkt->agent_qpn
                                             : pkt->src_qp->qpn);
    cqe.imm_inv = d->imm_inv;
    cqe.opcode = d->opcode;
    cqe.status = d->status;
    cqe.flags = d->flags;
    cqe.sl = vhca_qpt_is_datagram(pkt->src_qp->type) ? pkt->wqe->av.sl
                                                     : pkt->src_qp->av.sl;
    cqe.slid = cpu_to_le16(pkt->from_agent ? pkt->agent_slid
                                           : pkt->src_port->lid);
    cqe.vendor_err = d->verr;
    cqe.pkey_index = cpu_to_le16(qp->pkey_index);
    cqe.tm_flags = d->tm_flags;
    cqe.tm_handle = cpu_to_le16(d->tm_handle);
    cqe.tm_tag_lo = cpu_to_le32((uint32_t)d->tm_tag);
    cqe.tm_tag_hi = cpu_to_le32((uint32_t)(d->tm_tag >> 32));
    wq = d->tm_entry ? NULL : vhca_qp_recv_wq(s, qp);
    if (wq) {
        cqe.wqe_index = cpu_to_le16(wq->ci);
        wq->ci++;
    }
    if (qp->type == VHCA_QPT_XRC_TGT) {
        cqe.flags |= VHCA_CQE_F_XRC;
        cqe.srqn = cpu_to_le32(qp->srqn);
    }
    if (qp->flags & VHCA_QP_F_HAS_SRQ) {
        vhca_srq_check_limit(s, qp->srqn);
    }
    vhca_cq_post(s, qp->recv_cqn, &cqe,
                 pkt->wqe->flags & VHCA_WQE_F_SOLICITED);
}

/* A responder-side error on a connected QP (IBA 9.9.3.1.2, 10.3.1). */
VhcaAck vhca_responder_fail(VhcaState *s, VhcaQp *qp, VhcaAck ack,
                            uint8_t event)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: responder QP 0x%x refuses a "
                  "request (NAK %d), QP to ERR\n", qp->handle, ack);
    trace_vhca_responder_nak(qp->handle, ack);
    if (qp->type == VHCA_QPT_UC) {
        return VHCA_ACK;    /* UC: the packet is dropped, nobody is told */
    }
    if (event) {
        vhca_qp_event(s, qp, event);
    }
    vhca_qp_to_error(s, qp);
    return ack;
}

/* A receive WQE that failed: error completion, QP to ERR (connected). */
static VhcaAck vhca_recv_fail(VhcaState *s, VhcaQp *qp, uint64_t wr_id,
                              const VhcaPacket *pkt, uint8_t status,
                              uint8_t verr, VhcaAck ack)
{
    VhcaRecvDone d = { .status = status, .verr = verr,
                       .opcode = VHCA_CQE_RECV };

    vhca_rq_complete(s, qp, wr_id, pkt, &d);
    return vhca_responder_fail(s, qp, ack, 0);
}

static uint8_t vhca_status_of_verr(uint8_t verr)
{
    return verr == VHCA_VERR_LENGTH ? VHCA_WC_LOC_LEN_ERR :
           verr == VHCA_VERR_BAD_WQE ? VHCA_WC_LOC_QP_OP_ERR :
           VHCA_WC_LOC_PROT_ERR;
}

/* ---- connected responder (RC, UC) ---------------------------------------- */

/*
 * A page of the target or of the receive buffer is absent (vhca_hw_odp.h):
 * the page-fault event, then an RNR NAK, as mlx5 answers (RC and XRC
 * targets, IBA 9.7.5.2.8 and A14: the requester sends the request again
 * after min_rnr_timer; nothing was written, the receive WQE stays); UC,
 * which has no NAKs, drops the message.
 */
static VhcaAck vhca_respond_odp_fault(VhcaState *s, VhcaQp *qp,
                                      VhcaPacket *pkt)
{
    if (vhca_odp_fault_failed(qp)) {
        return vhca_responder_fail(s, qp, VHCA_NAK_REM_ACCESS,
                                   VHCA_QP_EV_ACCESS_ERR);
    }
    vhca_odp_fault_event(s, qp, VHCA_PF_RESPONDER);
    pkt->rnr_timer = qp->min_rnr_timer;
    return qp->type == VHCA_QPT_UC ? VHCA_ACK : VHCA_NAK_RNR;
}

/*
 * The RDMA or atomic target did not pass vhca_remote_target(): an absent
 * ODP page is a page fault and an RNR NAK; anything else (rights, key,
 * bounds) is a NAK remote access error.
 */
static VhcaAck vhca_remote_refused(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt,
                                   uint8_t verr)
{
    if (verr == VHCA_VERR_ODP_FAULT) {
        return vhca_respond_odp_fault(s, qp, pkt);
    }
    return vhca_responder_fail(s, qp, VHCA_NAK_REM_ACCESS,
                               VHCA_QP_EV_ACCESS_ERR);
}

/* An ordinary receive; a TM SRQ's (vhca-tm.c) gives its CQE's opcode and
 * tm_flags in tm, else NULL. */
VhcaAck vhca_respond_send(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt,
                          const VhcaRecvDone *tm)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    VhcaRecvDone d = { .opcode = VHCA_CQE_RECV };
    VhcaRecvWqe rwqe;
    VhcaSgl rsgl;
    uint8_t verr;

    verr = vhca_rq_fetch(s, qp, &rwqe);
    if (verr == VHCA_VERR_NONE) {
        verr = vhca_sgl_from_sges(s, vhca_rq_pdn(s, qp), qp->db_page == 0,
                                  rwqe.sge, rwqe.num_sge,
                                  VHCA_ACCESS_LOCAL_WRITE, &rsgl);
    }
    if (verr == VHCA_VERR_ODP_FAULT) {
        return vhca_respond_odp_fault(s, qp, pkt);
    }
    if (verr != VHCA_VERR_NONE) {
        return vhca_recv_fail(s, qp, rwqe.wr_id, pkt,
                              vhca_status_of_verr(verr), verr,
                              VHCA_NAK_REM_OP);
    }
    if (wqe->length > rsgl.length) {
        return vhca_recv_fail(s, qp, rwqe.wr_id, pkt, VHCA_WC_LOC_LEN_ERR,
                              VHCA_VERR_LENGTH, VHCA_NAK_INV_REQ);
    }
    verr = vhca_sgl_copy(&rsgl, 0, pkt->local, wqe->length);
    if (verr != VHCA_VERR_NONE) {
        if (!vhca_is_enabled(s)) {
            return VHCA_NO_PEER;
        }
        return vhca_recv_fail(s, qp, rwqe.wr_id, pkt, VHCA_WC_LOC_PROT_ERR,
                              verr, VHCA_NAK_REM_OP);
    }
    if (wqe->opcode == VHCA_WQE_SEND_WITH_IMM) {
        d.flags = VHCA_CQE_F_IMM;
        d.imm_inv = wqe->imm_inv;
    } else if (wqe->opcode == VHCA_WQE_SEND_WITH_INV) {
        verr = vhca_mr_local_inv(s, le32_to_cpu(wqe->imm_inv), qp->pdn,
                                 qp->handle);
        if (verr != VHCA_VERR_NONE) {
            return vhca_recv_fail(s, qp, rwqe.wr_id, pkt,
                                  VHCA_WC_LOC_PROT_ERR, verr,
                                  VHCA_NAK_REM_OP);
        }
        d.flags = VHCA_CQE_F_INV;
        d.imm_inv = wqe->imm_inv;
    }
    d.byte_len = wqe->length;
    if (tm) {
        d.opcode = tm->opcode;
        d.tm_flags = tm->tm_flags;
    }
    vhca_rq_complete(s, qp, rwqe.wr_id, pkt, &d);
    return VHCA_ACK;
}

/*
 * The target of an RDMA or atomic: QP-level right, then the rkey's.  A
 * zero-length RDMA READ or WRITE names no memory: its R_Key and address
 * are not validated (IBA C9-88), and it targets an empty list.
 */
static uint8_t vhca_remote_target(VhcaState *s, VhcaQp *qp,
                                  const VhcaSendWqe *wqe, uint64_t len,
                                  uint32_t access, VhcaSgl *remote)
{
    if ((qp->access_flags & access) != access) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x does not allow remote "
                      "access 0x%x\n", qp->handle, access);
        return VHCA_VERR_ACCESS_RIGHTS;
    }
    if (len == 0) {
        memset(remote, 0, sizeof(*remote));
        remote->dev = s;
        return VHCA_VERR_NONE;
    }
    return vhca_sgl_remote(s, qp->pdn, qp->handle, wqe->rkey,
                           wqe->remote_addr, len, access, remote);
}

static VhcaAck vhca_respond_write(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    bool imm = wqe->opcode == VHCA_WQE_RDMA_WRITE_WITH_IMM;
    VhcaRecvDone d = {
        .opcode = VHCA_CQE_RECV_RDMA_WITH_IMM,
        .flags = VHCA_CQE_F_IMM,
        .byte_len = wqe->length,
        .imm_inv = wqe->imm_inv,
    };
    VhcaRecvWqe rwqe;
    VhcaSgl remote;
    uint8_t verr;

    verr = vhca_remote_target(s, qp, wqe, wqe->length,
                              VHCA_ACCESS_REMOTE_WRITE, &remote);
    if (verr != VHCA_VERR_NONE) {
        return vhca_remote_refused(s, qp, pkt, verr);
    }
    if (imm) {
        verr = vhca_rq_fetch(s, qp, &rwqe);
        if (verr != VHCA_VERR_NONE) {
            return vhca_recv_fail(s, qp, rwqe.wr_id, pkt,
                                  vhca_status_of_verr(verr), verr,
                                  VHCA_NAK_REM_OP);
        }
    }
    verr = vhca_sgl_copy(&remote, 0, pkt->local, wqe->length);
    if (verr != VHCA_VERR_NONE) {
        return vhca_is_enabled(s) ?
               vhca_responder_fail(s, qp, VHCA_NAK_REM_OP, VHCA_QP_EV_FATAL) :
               VHCA_NO_PEER;
    }
    if (imm) {
        vhca_rq_complete(s, qp, rwqe.wr_id, pkt, &d);
    }
    return VHCA_ACK;
}

/* Also a duplicate READ's second execution (vhca-rc.c). */
VhcaAck vhca_respond_read(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    VhcaSgl remote;
    uint8_t verr;

    verr = vhca_remote_target(s, qp, wqe, wqe->length,
                              VHCA_ACCESS_REMOTE_READ, &remote);
    if (verr != VHCA_VERR_NONE) {
        return vhca_remote_refused(s, qp, pkt, verr);
    }
    /* The requester's local errors are its own: see vhca-transport.c. */
    if (vhca_sgl_copy(pkt->local, 0, &remote, wqe->length)
            != VHCA_VERR_NONE) {
        return VHCA_NAK_REM_OP;
    }
    return VHCA_ACK;
}

/*
 * Atomics (IBA 9.4.5): read, modify and write the 8 bytes with the BQL
 * held, so they are atomic against every other access of
 * the devices of this process (not against the guest's CPUs, as on real
 * HCAs).
 */
static VhcaAck vhca_respond_atomic(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    VhcaDmaPiece piece;
    VhcaSgl remote;
    uint64_t orig, next;
    uint8_t verr;

    if (wqe->remote_addr & 7) {
        /* IBA 9.4.5: a misaligned atomic is an invalid request. */
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x atomic at misaligned "
                      "address 0x%" PRIx64 "\n", qp->handle, wqe->remote_addr);
        return vhca_responder_fail(s, qp, VHCA_NAK_INV_REQ,
                                   VHCA_QP_EV_REQ_ERR);
    }
    verr = vhca_remote_target(s, qp, wqe, 8, VHCA_ACCESS_REMOTE_ATOMIC,
                              &remote);
    if (verr != VHCA_VERR_NONE) {
        return vhca_remote_refused(s, qp, pkt, verr);
    }
    /* 8-byte aligned: one piece. */
    vhca_mr_piece(remote.seg[0].mr, wqe->remote_addr, 8, &piece);
    if (vhca_piece_read(s, &piece, &orig, 8) != MEMTX_OK) {
        return vhca_responder_fail(s, qp, VHCA_NAK_REM_OP, VHCA_QP_EV_FATAL);
    }
    orig = le64_to_cpu(orig);
    if (wqe->opcode == VHCA_WQE_ATOMIC_CMP_AND_SWP) {
        next = orig == wqe->compare_add ? wqe->swap : orig;
    } else {
        next = orig + wqe->compare_add;
    }
    if (vhca_piece_write_u64(s, &piece, cpu_to_le64(next)) != MEMTX_OK) {
        return vhca_responder_fail(s, qp, VHCA_NAK_REM_OP, VHCA_QP_EV_FATAL);
    }
    pkt->atomic_orig = orig;
    return VHCA_ACK;
}

/*
 * ATOMIC WRITE (IBA 1.5 9.4.6): the request's 8 bytes stored at an 8-byte
 * aligned address as one write under the BQL
 * (atomic against the other accesses of this process's devices, as the
 * atomics above), with RDMA WRITE's access rights: the QP's and the
 * region's remote write.
 */
static VhcaAck vhca_respond_atomic_write(VhcaState *s, VhcaQp *qp,
                                         VhcaPacket *pkt)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    VhcaDmaPiece piece;
    VhcaSgl remote;
    uint64_t value;
    uint8_t verr;

    if (wqe->length != sizeof(value) || (wqe->remote_addr & 7)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x atomic write of %"
                      PRIu64 " bytes at 0x%" PRIx64 ": not 8 aligned bytes\n",
                      qp->handle, wqe->length, wqe->remote_addr);
        return vhca_responder_fail(s, qp, VHCA_NAK_INV_REQ,
                                   VHCA_QP_EV_REQ_ERR);
    }
    verr = vhca_remote_target(s, qp, wqe, sizeof(value),
                              VHCA_ACCESS_REMOTE_WRITE, &remote);
    if (verr != VHCA_VERR_NONE) {
        return vhca_remote_refused(s, qp, pkt, verr);
    }
    if (vhca_sgl_read(pkt->local, (uint8_t *)&value, sizeof(value))
            != VHCA_VERR_NONE) {
        return VHCA_NAK_REM_OP;
    }
    vhca_mr_piece(remote.seg[0].mr, wqe->remote_addr, sizeof(value), &piece);
    if (vhca_piece_write_u64(s, &piece, value) != MEMTX_OK) {
        return vhca_responder_fail(s, qp, VHCA_NAK_REM_OP, VHCA_QP_EV_FATAL);
    }
    return VHCA_ACK;
}

/*
 * FLUSH (IBA 1.5 A19.4.1): the FETH names the placement types (global
 * visibility, persistence) and the selectivity (the RETH's range, or the
 * whole region of the R_Key).  The QP and the region must grant the
 * VHCA_ACCESS_FLUSH_* right of every type asked for (rxe's
 * check_qp_attr_access and check_rkey do the same), else NAK remote
 * access error; a range must lie in the region.  There is nothing to
 * write back: the region is guest RAM, which holds no data a DMA write
 * has not placed, and the responder executes the requests of a QP in PSN
 * order, each WRITE's DMA finished before the next request is taken.  So
 * the placement FLUSH guarantees holds when it gets here; the barrier
 * orders the responder's stores before the answer that lets the
 * requester complete the FLUSH, as the A19 ordering rule asks (a FLUSH
 * completes only after the WRITEs before it are placed).  A duplicate
 * FLUSH is answered again without executing it (vhca-rc.c): its
 * placement already holds.
 */
static VhcaAck vhca_respond_flush(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    uint32_t type = VHCA_FETH_PLT(wqe->swap);
    uint32_t level = VHCA_FETH_SEL(wqe->swap);
    uint32_t access = 0;
    bool range = level == VHCA_FLUSH_RANGE;
    const VhcaMr *mr;
    uint8_t verr;

    if (!type || (type & ~(VHCA_FLUSH_GLOBAL | VHCA_FLUSH_PERSISTENT)) ||
        level > VHCA_FLUSH_MR) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x FLUSH of placement "
                      "type 0x%x selectivity %u\n", qp->handle, type, level);
        return vhca_responder_fail(s, qp, VHCA_NAK_INV_REQ,
                                   VHCA_QP_EV_REQ_ERR);
    }
    if (type & VHCA_FLUSH_GLOBAL) {
        access |= VHCA_ACCESS_FLUSH_GLOBAL;
    }
    if (type & VHCA_FLUSH_PERSISTENT) {
        access |= VHCA_ACCESS_FLUSH_PERSISTENT;
    }
    if ((qp->access_flags & access) != access) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x does not allow FLUSH "
                      "0x%x\n", qp->handle, access);
        verr = VHCA_VERR_ACCESS_RIGHTS;
    } else {
        /* MR selectivity: the key, PD and rights, not the range */
        verr = vhca_mr_translate(s, wqe->rkey, qp->pdn, access, false,
                                 qp->handle, wqe->remote_addr,
                                 range ? wqe->compare_add : 0, &mr);
    }
    if (verr != VHCA_VERR_NONE) {
        return vhca_remote_refused(s, qp, pkt, verr);
    }
    smp_mb();
    return VHCA_ACK;
}

/* IBA 9.7.5.2.8: no receive WQE, RNR NAK (RC; UC drops the message). */
bool vhca_respond_no_rwqe(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt,
                          VhcaAck *ack)
{
    if (!vhca_rq_empty(s, qp)) {
        return false;
    }
    pkt->rnr_timer = qp->min_rnr_timer;
    trace_vhca_responder_nak(qp->handle, VHCA_NAK_RNR);
    *ack = vhca_qpt_is_reliable(qp->type) ? VHCA_NAK_RNR : VHCA_ACK;
    return true;
}

/* A request for a connected QP that the caller found in a receive state. */
VhcaAck vhca_respond(VhcaState *ds, VhcaQp *dqp, VhcaPacket *pkt)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    /* a TM SRQ's SEND may go to a tag entry: vhca-tm.c decides */
    bool tm = wqe->opcode == VHCA_WQE_SEND && vhca_tm_srq_of(ds, dqp);
    /* ... and then not to an ordinary receive WQE. */
    bool needs_rwqe = vhca_wqe_opcode_has(wqe->opcode, VHCA_WQE_OPF_RWQE) && !tm;
    VhcaAck ack;

    if (needs_rwqe && vhca_respond_no_rwqe(ds, dqp, pkt, &ack)) {
        return ack;
    }
    if (dqp->state == VHCA_QPS_RTR && !dqp->comm_est_sent) {
        dqp->comm_est_sent = true;
        vhca_qp_event(ds, dqp, VHCA_QP_EV_COMM_EST);
    }
    switch (wqe->opcode) {
    case VHCA_WQE_RDMA_WRITE:
    case VHCA_WQE_RDMA_WRITE_WITH_IMM:
        ack = vhca_respond_write(ds, dqp, pkt);
        break;
    case VHCA_WQE_RDMA_READ:
        ack = vhca_respond_read(ds, dqp, pkt);
        break;
    case VHCA_WQE_ATOMIC_CMP_AND_SWP:
    case VHCA_WQE_ATOMIC_FETCH_AND_ADD:
        ack = vhca_respond_atomic(ds, dqp, pkt);
        break;
    case VHCA_WQE_ATOMIC_WRITE:
        ack = vhca_respond_atomic_write(ds, dqp, pkt);
        break;
    case VHCA_WQE_FLUSH:
        ack = vhca_respond_flush(ds, dqp, pkt);
        break;
    default:
        ack = tm ? vhca_tm_respond(ds, dqp, pkt)
                 : vhca_respond_send(ds, dqp, pkt, NULL);
        break;
    }
    if (ack == VHCA_ACK && dqp->valid) {
        /* RC: psn was the expected PSN; UC resynchronizes on it. */
        dqp->rq_psn = (pkt->psn + pkt->packets) & VHCA_DB_OBJ_MASK;
    }
    return ack;
}

/* ---- datagrams (UD, SMI, GSI) -------------------------------------------- */

/* IBA 8.3.1 GRH, as the sender's port would have built it. */
static void vhca_build_grh(const VhcaPacket *pkt, uint8_t grh[VHCA_GRH_BYTES])
{
    const struct vhca_av *av = &pkt->wqe->av;
    uint32_t flow = le32_to_cpu(av->flow_label) & 0xfffff;
    struct vhca_gid sgid;

    vhca_port_gid(pkt->src_port, av->sgid_index, &sgid);
    stl_be_p(grh, 6u << 28 | (uint32_t)av->traffic_class << 20 | flow);
    /* Payload: BTH 12 + DETH 8 + data + ICRC 4 */
    stw_be_p(grh + 4, (uint16_t)(pkt->wqe->length + 24));
    grh[6] = 0x1b;                  /* next header: IBA transport */
    grh[7] = av->hop_limit;
    memcpy(grh + 8, sgid.raw, 16);
    memcpy(grh + 24, av->dgid, 16);
}

static void vhca_datagram_drop(VhcaQp *dqp, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: datagram to QP 0x%x dropped: %s\n",
                  dqp->handle, why);
    trace_vhca_datagram_drop(dqp->handle, why);
}

void vhca_deliver_datagram(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    VhcaRecvDone d = { .opcode = VHCA_CQE_RECV };
    uint8_t grh[VHCA_GRH_BYTES];
    uint32_t qkey = wqe->remote_qkey & 0x80000000u ? pkt->src_qp->qkey
                                                   : wqe->remote_qkey;
    VhcaRecvWqe rwqe;
    VhcaSgl rsgl, hsgl;
    uint8_t verr;

    if (qp->type != VHCA_QPT_SMI && qp->qkey != qkey) {
        vhca_datagram_drop(qp, "Q_Key mismatch");
        return;
    }
    if (vhca_rq_empty(s, qp)) {
        vhca_datagram_drop(qp, "no receive WQE");
        return;
    }
    verr = vhca_rq_fetch(s, qp, &rwqe);
    if (verr == VHCA_VERR_NONE) {
        verr = vhca_sgl_from_sges(s, vhca_rq_pdn(s, qp), qp->db_page == 0,
                                  rwqe.sge, rwqe.num_sge,
                                  VHCA_ACCESS_LOCAL_WRITE, &rsgl);
    }
    if (verr == VHCA_VERR_ODP_FAULT && vhca_odp_fault_failed(qp)) {
        /* the driver could not map the buffer: the WQE fails, as a
         * buffer outside any region does (LOC_PROT_ERR) */
        verr = VHCA_VERR_DMA_FAULT;
    } else if (verr == VHCA_VERR_ODP_FAULT) {
        /* vhca_hw_odp.h: dropped, the receive WQE stays for the next one
         * (UD is unreliable, IBA 9.8.1; mlx5 drops it too) */
        vhca_odp_fault_event(s, qp, VHCA_PF_RESPONDER);
        vhca_datagram_drop(qp, "receive buffer page absent (ODP)");
        return;
    }
    if (verr == VHCA_VERR_NONE && wqe->length + VHCA_GRH_BYTES > rsgl.length) {
        verr = VHCA_VERR_LENGTH;
    }
    if (verr == VHCA_VERR_NONE && (wqe->av.flags & VHCA_AV_F_GRH)) {
        vhca_build_grh(pkt, grh);
        vhca_sgl_host(s, grh, sizeof(grh), &hsgl);
        verr = vhca_sgl_copy(&rsgl, 0, &hsgl, sizeof(grh));
        d.flags |= VHCA_CQE_F_GRH;
    }
    if (verr == VHCA_VERR_NONE) {
        verr = vhca_sgl_copy(&rsgl, VHCA_GRH_BYTES, pkt->local, wqe->length);
    }
    if (!vhca_is_enabled(s) || !qp->valid) {
        return;
    }
    if (wqe->opcode == VHCA_WQE_SEND_WITH_IMM) {
        d.flags |= VHCA_CQE_F_IMM;
        d.imm_inv = wqe->imm_inv;
    }
    d.status = verr == VHCA_VERR_NONE ? VHCA_WC_SUCCESS
                                      : vhca_status_of_verr(verr);
    d.verr = verr;
    d.byte_len = verr == VHCA_VERR_NONE ? wqe->length + VHCA_GRH_BYTES : 0;
    vhca_rq_complete(s, qp, rwqe.wr_id, pkt, &d);
}
