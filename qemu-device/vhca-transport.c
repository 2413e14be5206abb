/*
 * vhca - the requester side of the data path: send queue processing.
 *
 * A send queue doorbell executes WQEs at once, in the thread that rang it
 * (a vCPU thread, with the BQL held), up to VHCA_WQE_BATCH of them; the
 * rest is left to the transport bottom half (Documentation/device-qemu.md
 * "Threading model" explains why).  Each WQE is fetched with DMA, decoded
 * and validated (vhca-wqe.c), its local buffers are protection-checked
 * (vhca-mr.c), and the message is handed to the responder QP found by
 * routing the DLID on the fabric (vhca-responder.c).  The whole message
 * moves in one step, one WQE at a time, so fences are always satisfied.
 * RC reliability around that step is vhca-rc.c: the request carries its
 * PSN, the responder detects sequence errors and duplicates, and a
 * request nobody answers (no peer, or lost on a lossy fabric) is resent
 * after the local ACK timeout, retry_cnt times, before the WQE completes
 * with RETRY_EXC_ERR.  sq_psn advances when a WQE that went on the wire
 * completes (LOCAL_INV and REG_MR use no PSN).
 *
 * RNR (IBA 9.7.5.2.8): an RC SEND or WRITE_WITH_IMM to a QP with no
 * receive WQE is retried after the responder's min_rnr_timer (virtual
 * clock), rnr_retry times (7: for ever), then completes with
 * RNR_RETRY_EXC_ERR.  The RNR wait and the local ACK timeout share the
 * QP's send queue timer (sq_timer, sq_wait says which one runs).
 *
 * ODP (uapi/vhca_hw_odp.h): a local SGE on an absent page stops the send
 * queue (odp_stopped) with the WQE at its head until ODP_RESUME; a
 * responder's page fault comes back as an RNR NAK.
 *
 * Errors (IBA 10.3.1, 11.6.2): an error completion moves an RC QP to ERR
 * and a UC/UD/SMI/GSI QP to SQE; both flush the rest of the send queue.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "vhca-link.h"
#include "vhca-port-fault-rules.h"
#include "trace.h"

#define VHCA_UD_MAX_PAYLOAD     4096    /* the port's MTU */
#define VHCA_SMI_MAX_PAYLOAD    256     /* IBA 13.4.2: MADs */

/* IBA 9.7.5.2.8 table 45: RNR timer encodings, in units of 10 us. */
static const uint32_t vhca_rnr_timer_10us[32] = {
    65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
    256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
    16384, 24576, 32768, 49152,
};

bool vhca_qp_receives(const VhcaQp *qp)
{
    return qp->state == VHCA_QPS_RTR || qp->state == VHCA_QPS_RTS ||
           qp->state == VHCA_QPS_SQD || qp->state == VHCA_QPS_SQE;
}

static bool vhca_qp_connected(const VhcaQp *qp)
{
    return qp->type == VHCA_QPT_UC || vhca_qpt_is_reliable(qp->type);
}

uint32_t vhca_qp_packets(const VhcaQp *qp, uint64_t len)
{
    uint64_t mtu = 128u << MIN(MAX(qp->path_mtu, 1), 5);

    return len ? DIV_ROUND_UP(len, mtu) : 1;
}

/*
 * The PSNs a WQE uses (IBA 9.7.1): one per packet of the message (of the
 * READ response for an RDMA READ), none for LOCAL_INV, REG_MR and
 * BIND_MW, which are executed by the local device and never reach the wire.
 */
static uint32_t vhca_wqe_psns(const VhcaQp *qp, const VhcaSendWqe *wqe)
{
    if (vhca_wqe_is_local(wqe->opcode)) {
        return 0;
    }
    return vhca_qp_packets(qp, wqe->length);
}

/*
 * Retire the WQE at sq.ci.  Success completes only when signaled; an
 * error always completes and stops the send queue.
 */
void vhca_sq_complete(VhcaState *s, VhcaQp *qp, const VhcaSendWqe *wqe,
                      uint8_t status, uint8_t verr, uint32_t byte_len)
{
    bool signaled = (wqe->flags & VHCA_WQE_F_SIGNALED) ||
                    (qp->flags & VHCA_QP_F_SQ_SIG_ALL);
    struct vhca_cqe cqe;

    trace_vhca_wqe_done(qp->handle, qp->sq.ci, wqe->opcode, status, verr);
    qp->wqe_started = false;
    qp->retry_exhausted = false;
    qp->sq_psn = (qp->sq_psn + vhca_wqe_psns(qp, wqe)) & VHCA_DB_OBJ_MASK;
    if (status == VHCA_WC_SUCCESS && !signaled) {
        qp->sq.ci++;
        return;
    }
    memset(&cqe, 0, sizeof(cqe));
    cqe.wr_id = cpu_to_le64(wqe->wr_id);
    cqe.byte_len = cpu_to_le32(byte_len);
    cqe.qpn = cpu_to_le32(qp->handle);
    cqe.opcode = vhca_wqe_cqe_opcode(wqe->opcode);
    cqe.status = status;
    cqe.vendor_err = verr;
    cqe.wqe_index = cpu_to_le16(qp->sq.ci);
    qp->sq.ci++;
    vhca_cq_post(s, qp->send_cqn, &cqe, false);
    if (status != VHCA_WC_SUCCESS) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x send WQE failed with "
                      "status %u (vendor error %u)\n", qp->handle, status,
                      verr);
        if (vhca_qpt_is_reliable(qp->type)) {
            vhca_qp_to_error(s, qp);
        } else {
            qp->state = VHCA_QPS_SQE;
            vhca_qp_flush(s, qp);
        }
    }
}

static uint8_t vhca_status_of_ack(VhcaAck ack)
{
    switch (ack) {
    case VHCA_ACK:
        return VHCA_WC_SUCCESS;
    case VHCA_NAK_INV_REQ:
        return VHCA_WC_REM_INV_REQ_ERR;
    case VHCA_NAK_REM_ACCESS:
        return VHCA_WC_REM_ACCESS_ERR;
    case VHCA_NAK_REM_OP:
        return VHCA_WC_REM_OP_ERR;
    case VHCA_NAK_RNR:
        return VHCA_WC_RNR_RETRY_EXC_ERR;
    case VHCA_NAK_SEQ:
    case VHCA_NO_PEER:
    default:
        return VHCA_WC_RETRY_EXC_ERR;
    }
}

/*
 * The completion of a WQE the responder answered with ack: its status and
 * vendor error (the one mapping of answers to completions).
 */
void vhca_sq_complete_ack(VhcaState *s, VhcaQp *qp, const VhcaSendWqe *wqe,
                          VhcaAck ack)
{
    uint8_t verr = ack == VHCA_ACK ? VHCA_VERR_NONE :
                   ack == VHCA_NAK_SEQ || ack == VHCA_NO_PEER ?
                   VHCA_VERR_NO_PEER :
                   ack == VHCA_NAK_RNR ? VHCA_VERR_RNR :
                   ack == VHCA_NAK_REM_ACCESS ? VHCA_VERR_ACCESS_RIGHTS :
                   ack == VHCA_NAK_INV_REQ ? VHCA_VERR_LENGTH :
                   VHCA_VERR_BAD_WQE;

    vhca_sq_complete(s, qp, wqe, vhca_status_of_ack(ack), verr,
                     ack == VHCA_ACK && vhca_wqe_returns_data(wqe->opcode) ?
                     wqe->length : 0);
}

/* IBA 9.7.5.2.8 table 45: the wait an RNR NAK's timer field asks for. */
int64_t vhca_rnr_delay_ns(uint8_t rnr_timer)
{
    return (int64_t)vhca_rnr_timer_10us[rnr_timer & 31] * 10000;
}

/* RNR NAK: wait and retry the same WQE, or give up. */
static bool vhca_sq_rnr(VhcaState *s, VhcaQp *qp, const VhcaSendWqe *wqe,
                        uint8_t rnr_timer)
{
    int64_t delay_ns = vhca_rnr_delay_ns(rnr_timer);

    if (qp->rnr_retry != 7) {
        if (qp->rnr_left == 0) {
            vhca_sq_complete(s, qp, wqe, VHCA_WC_RNR_RETRY_EXC_ERR,
                             VHCA_VERR_RNR, 0);
            return false;
        }
        qp->rnr_left--;
    }
    trace_vhca_wqe_rnr(qp->handle, qp->sq.ci, qp->rnr_left);
    qp->sq_wait = VHCA_SQ_WAIT_RNR;
    qp->sq_waiting = true;
    timer_mod(qp->sq_timer,
              qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + delay_ns);
    return false;
}

VhcaPort *vhca_qp_route(VhcaState *s, VhcaQp *qp, const struct vhca_av *av)
{
    if (qp->port < 1 || qp->port > s->num_ports) {
        return NULL;
    }
    return vhca_fabric_route(&s->ports[qp->port - 1], le16_to_cpu(av->dlid));
}

/* RC/UC: one message to the connected QP (RC reliability: vhca-rc.c). */
static bool vhca_sq_connected(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    VhcaAck ack;
    VhcaSgl orig;
    uint64_t orig_le;
    uint8_t verr;

    if (qp->retry_exhausted) {
        /* IBA 9.7.6.1.4: the (retry_cnt + 1)th local ACK timeout. */
        vhca_sq_complete(s, qp, wqe, VHCA_WC_RETRY_EXC_ERR, VHCA_VERR_NO_PEER,
                         0);
        return false;
    }
    ack = vhca_rc_transmit(s, qp, pkt);
    if (!vhca_is_enabled(s) || !qp->valid || qp->state != VHCA_QPS_RTS) {
        return false;       /* reset by a DMA, or a loopback to itself */
    }
    if (ack == VHCA_NO_PEER) {
        vhca_rc_wait_ack(qp);
        return false;
    }
    if (ack == VHCA_NAK_RNR) {
        return vhca_sq_rnr(s, qp, wqe, pkt->rnr_timer);
    }
    if (ack == VHCA_ACK && (wqe->opcode == VHCA_WQE_ATOMIC_CMP_AND_SWP ||
                            wqe->opcode == VHCA_WQE_ATOMIC_FETCH_AND_ADD)) {
        orig_le = cpu_to_le64(pkt->atomic_orig);
        vhca_sgl_host(s, (const uint8_t *)&orig_le, 8, &orig);
        verr = vhca_sgl_copy(pkt->local, 0, &orig, 8);
        if (verr != VHCA_VERR_NONE) {
            vhca_sq_complete(s, qp, wqe, VHCA_WC_LOC_PROT_ERR, verr, 0);
            return false;
        }
    }
    vhca_sq_complete_ack(s, qp, wqe, ack);
    return ack == VHCA_ACK;
}

static bool vhca_datagram_types_match(const VhcaQp *src, const VhcaQp *dst)
{
    if (src->type == VHCA_QPT_SMI || dst->type == VHCA_QPT_SMI) {
        return src->type == dst->type;
    }
    return true;    /* UD and GSI talk to each other (IBA 13.5.1) */
}

static void vhca_mcast_deliver_qp(VhcaState *ds, VhcaQp *dqp, void *opaque)
{
    VhcaPacket *pkt = opaque;

    if (dqp != pkt->src_qp && vhca_qp_receives(dqp)) {
        vhca_deliver_datagram(ds, dqp, pkt);
    }
}

/* The switch copies a multicast datagram to every ACTIVE port. */
static void vhca_mcast_deliver_port(VhcaPort *port, void *opaque)
{
    VhcaPacket *pkt = opaque;

    pkt->dst_port = port;
    vhca_port_count_datagram(port, true, pkt->wqe->length, true);
    vhca_mcast_foreach(port->dev, port->num, le16_to_cpu(pkt->wqe->av.dlid),
                       vhca_mcast_deliver_qp, pkt);
}

static bool vhca_dlid_multicast(uint16_t dlid)
{
    return dlid >= VHCA_MIN_MLID && dlid <= VHCA_MAX_MLID;
}

/*
 * SMI: an SMP taken by the port's own SMA (vhca-sma.c) completes, then its
 * answer arrives on the same QP.
 */
static bool vhca_sq_sma(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt,
                        VhcaSmaAction act, const uint8_t *resp, uint16_t slid)
{
    if (!vhca_is_enabled(s) || !qp->valid || qp->state != VHCA_QPS_RTS) {
        return false;
    }
    vhca_sq_complete(s, qp, pkt->wqe, VHCA_WC_SUCCESS, VHCA_VERR_NONE, 0);
    if (act == VHCA_SMA_REPLY) {
        vhca_mad_reply(s, qp, resp, slid, 0);
    }
    return vhca_is_enabled(s) && qp->valid && qp->state == VHCA_QPS_RTS;
}

/*
 * GSI: a message taken by the fabric's SA (vhca-sa-hook.c) completes, then
 * the SA's answers arrive on the same QP.
 */
static bool vhca_sq_sa(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt,
                       VhcaSaReply *reply)
{
    bool ok = vhca_is_enabled(s) && qp->valid && qp->state == VHCA_QPS_RTS;

    if (ok) {
        vhca_port_count_datagram(&s->ports[qp->port - 1], false,
                                 pkt->wqe->length, false);
        vhca_sq_complete(s, qp, pkt->wqe, VHCA_WC_SUCCESS, VHCA_VERR_NONE, 0);
        vhca_sa_reply(s, qp, reply);
    }
    g_free(reply);
    return ok && vhca_is_enabled(s) && qp->valid &&
           qp->state == VHCA_QPS_RTS;
}

/*
 * A PerfMgt request to QPN 1 of an in-process port, taken by that device's
 * PMA (vhca-pma-hook.c): the send completes, then the PMA's answer arrives
 * on the same QP from the port's LID and QPN 1.
 */
static bool vhca_sq_pma(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt,
                        const uint8_t *resp)
{
    if (!vhca_is_enabled(s) || !qp->valid || qp->state != VHCA_QPS_RTS) {
        return false;
    }
    vhca_sq_complete(s, qp, pkt->wqe, VHCA_WC_SUCCESS, VHCA_VERR_NONE, 0);
    vhca_port_count_datagram(pkt->dst_port, false, VHCA_MAD_SIZE, false);
    vhca_port_count_datagram(pkt->src_port, true, VHCA_MAD_SIZE, false);
    vhca_mad_reply(s, qp, resp, pkt->dst_port->lid, VHCA_GSI_QPN);
    return vhca_is_enabled(s) && qp->valid && qp->state == VHCA_QPS_RTS;
}

/*
 * The fault rules' verdict on a datagram to dqp on the in-process
 * fabric: true when it is lost; *dup when it comes twice.  A datagram to
 * QP0/QP1 is a MAD: its class and attribute (IBA 13.4.2) are matched.
 */
static bool vhca_datagram_fault(VhcaQp *dqp, VhcaPacket *pkt, bool *dup)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    VhcaFaultPkt fp = {
        .slid = pkt->src_port->lid,
        .dlid = le16_to_cpu(wqe->av.dlid),
        .qpn = dqp->handle,
        .length = wqe->length,
        .op = VHCA_FAULT_OP_SEND,
    };
    uint8_t mad[VHCA_MAD(attr_id) + 2];     /* up to the attribute */
    uint32_t arg;
    VhcaFaultAction act;

    if (dqp->type == VHCA_QPT_SMI || dqp->type == VHCA_QPT_GSI) {
        fp.qpn = dqp->type == VHCA_QPT_SMI ? 0 : 1;
        vhca_fault_pkt_set_mad(&fp, mad,
                               vhca_sgl_read(pkt->local, mad, sizeof(mad)) ==
                               VHCA_VERR_NONE ? sizeof(mad) : 0);
    }
    act = vhca_fault_judge_path(pkt->src_port, pkt->dst_port, &fp, &arg);
    *dup = act == VHCA_FAULT_DUP;
    return act == VHCA_FAULT_DROP || act == VHCA_FAULT_CORRUPT ||
           act == VHCA_FAULT_FLAP;
}

/* UD/SMI/GSI: deliver or drop; the sender completes either way. */
static bool vhca_sq_datagram(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    uint32_t max = qp->type == VHCA_QPT_SMI ? VHCA_SMI_MAX_PAYLOAD
                                            : VHCA_UD_MAX_PAYLOAD;
    uint8_t resp[VHCA_MAD_SIZE];
    VhcaSaReply *reply;
    VhcaSmaAction act;
    VhcaQp *dqp = NULL;
    uint16_t slid;
    bool dup = false;

    if (wqe->length > max) {
        vhca_sq_complete(s, qp, wqe, VHCA_WC_LOC_LEN_ERR, VHCA_VERR_LENGTH, 0);
        return false;
    }
    if (qp->type == VHCA_QPT_SMI) {
        slid = s->ports[qp->port - 1].lid;
        act = vhca_sma_send(s, qp, pkt, resp);
        if (act == VHCA_SMA_NOT_MINE) {
            act = vhca_fabric_smp(s, qp, pkt, resp, &slid);
        }
        if (act != VHCA_SMA_NOT_MINE) {
            return vhca_sq_sma(s, qp, pkt, act, resp, slid);
        }
    }
    if (qp->type == VHCA_QPT_GSI) {
        reply = vhca_sa_send(s, qp, pkt);
        if (reply) {
            return vhca_sq_sa(s, qp, pkt, reply);
        }
    }
    if (qp->type == VHCA_QPT_UD &&
        vhca_dlid_multicast(le16_to_cpu(wqe->av.dlid))) {
        if (!vhca_link_cabled(pkt->src_port)) {
            vhca_port_count_datagram(pkt->src_port, false, wqe->length, true);
            vhca_fabric_foreach_mcast(pkt->src_port,
                                      le16_to_cpu(wqe->av.dlid),
                                      vhca_mcast_deliver_port, pkt);
            goto done;
        }
        /*
         * The switch sends a multicast packet out of every member port but
         * the one it came in on: the other QPs of the sending port get it
         * from the HCA itself (loopback), as a hardware HCA does.
         */
        pkt->dst_port = pkt->src_port;
        vhca_mcast_foreach(s, qp->port, le16_to_cpu(wqe->av.dlid),
                           vhca_mcast_deliver_qp, pkt);
        vhca_link_send_datagram(s, qp, pkt);
        goto done;
    }
    pkt->dst_port = vhca_qp_route(s, qp, &wqe->av);
    if (!pkt->dst_port && vhca_link_send_datagram(s, qp, pkt)) {
        goto done;                  /* another process's port, or lost */
    }
    if (pkt->dst_port) {
        vhca_port_count_datagram(pkt->src_port, false, wqe->length, false);
        vhca_port_count_datagram(pkt->dst_port, true, wqe->length, false);
        if (vhca_pma_take(pkt->dst_port, pkt, resp)) {
            return vhca_sq_pma(s, qp, pkt, resp);
        }
        dqp = vhca_qp_by_qpn(pkt->dst_port->dev, pkt->dst_port->num,
                             wqe->remote_qpn & VHCA_DB_OBJ_MASK);
    }
    if (dqp && vhca_datagram_types_match(qp, dqp) && vhca_qp_receives(dqp)) {
        if (unlikely(vhca_fault_rules_on(pkt->src_port, pkt->dst_port)) &&
            vhca_datagram_fault(dqp, pkt, &dup)) {
            goto done;                  /* lost on the way */
        }
        vhca_deliver_datagram(pkt->dst_port->dev, dqp, pkt);
        if (dup && vhca_qp_receives(dqp)) {
            vhca_deliver_datagram(pkt->dst_port->dev, dqp, pkt);
        }
    } else {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x datagram to DLID %u "
                      "QPN 0x%x has no receiver, dropped\n", qp->handle,
                      le16_to_cpu(wqe->av.dlid), wqe->remote_qpn);
        trace_vhca_datagram_drop(wqe->remote_qpn, "no receiver");
    }
done:
    if (!vhca_is_enabled(s) || !qp->valid || qp->state != VHCA_QPS_RTS) {
        return false;
    }
    vhca_sq_complete(s, qp, wqe, VHCA_WC_SUCCESS, VHCA_VERR_NONE, 0);
    return true;
}

/* The completion status of a failed memory operation (IBA 11.6.2). */
static uint8_t vhca_memory_op_status(uint8_t opcode, uint8_t verr)
{
    if (verr == VHCA_VERR_BAD_WQE) {
        return VHCA_WC_LOC_QP_OP_ERR;
    }
    return opcode == VHCA_WQE_BIND_MW ? VHCA_WC_MW_BIND_ERR
                                      : VHCA_WC_LOC_PROT_ERR;
}

/* LOCAL_INV, REG_MR and BIND_MW: memory operations of the local device. */
bool vhca_sq_memory_op(VhcaState *s, VhcaQp *qp, const VhcaSendWqe *wqe)
{
    uint8_t verr;

    if (wqe->opcode == VHCA_WQE_LOCAL_INV) {
        verr = vhca_mr_local_inv(s, le32_to_cpu(wqe->imm_inv), qp->pdn,
                                 qp->handle);
    } else if (wqe->opcode == VHCA_WQE_BIND_MW) {
        verr = vhca_mw_bind(s, qp, &wqe->bind_mw);
    } else {
        verr = vhca_mr_fast_reg(s, qp->pdn, &wqe->reg_mr);
    }
    if (verr != VHCA_VERR_NONE) {
        vhca_sq_complete(s, qp, wqe, vhca_memory_op_status(wqe->opcode, verr),
                         verr, 0);
        return false;
    }
    vhca_sq_complete(s, qp, wqe, VHCA_WC_SUCCESS, VHCA_VERR_NONE, 0);
    return true;
}

static void vhca_sq_run(VhcaState *s, VhcaQp *qp, uint32_t budget);

/*
 * Fetch the send WQE at index idx, decode it and protection-check its
 * local buffers.  f->status says how a WQE that fails completes.  Returns
 * false when the device or the QP went away during the DMA.
 */
bool vhca_sq_fetch(VhcaState *s, VhcaQp *qp, uint32_t idx, VhcaSqFetch *f)
{
    uint32_t stride = 1u << qp->sq.wqe_shift;
    uint64_t off = (uint64_t)(idx & ((1u << qp->sq.log_size) - 1)) * stride;
    const char *why = NULL;
    bool reads;

    memset(&f->wqe, 0, sizeof(f->wqe));
    f->status = VHCA_WC_SUCCESS;
    if (vhca_dma_read(s, vhca_buf_addr(&qp->sq.buf, off), f->buf, stride)
            != MEMTX_OK) {
        why = "WQE unreadable";
        f->verr = VHCA_VERR_DMA_FAULT;
    } else if (!vhca_is_enabled(s) || !qp->valid) {
        return false;
    } else {
        f->verr = vhca_wqe_decode_send(f->buf, stride, qp->type,
                                       qp->max_inline, &f->wqe, &why);
    }
    if (f->verr != VHCA_VERR_NONE) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x send WQE %u: %s\n",
                      qp->handle, idx, why);
        trace_vhca_wqe_reject(qp->handle, idx, why);
        f->status = f->verr == VHCA_VERR_LENGTH ? VHCA_WC_LOC_LEN_ERR
                                                : VHCA_WC_LOC_QP_OP_ERR;
        return true;
    }
    if (vhca_wqe_is_local(f->wqe.opcode)) {
        return true;
    }
    if (f->wqe.inline_data) {       /* ATOMIC_WRITE's 8 bytes too */
        vhca_sgl_host(s, f->wqe.inline_data, f->wqe.inline_len, &f->local);
        return true;
    }
    reads = vhca_wqe_returns_data(f->wqe.opcode);
    f->verr = vhca_sgl_from_sges(s, qp->pdn, qp->db_page == 0, f->wqe.sge,
                                 f->wqe.num_sge,
                                 reads ? VHCA_ACCESS_LOCAL_WRITE : 0,
                                 &f->local);
    if (f->verr != VHCA_VERR_NONE) {
        f->status = VHCA_WC_LOC_PROT_ERR;
    }
    return true;
}

/*
 * The WQE at sq.ci failed its fetch (f->status): it completes with its
 * error, or an ODP page fault stops the send queue with the WQE at its head
 * until ODP_RESUME (vhca_hw_odp.h), unless that resume said the pages
 * cannot be mapped.
 */
void vhca_sq_fetch_failed(VhcaState *s, VhcaQp *qp, const VhcaSqFetch *f)
{
    if (f->verr == VHCA_VERR_ODP_FAULT && vhca_odp_fault_failed(qp)) {
        vhca_sq_complete(s, qp, &f->wqe, VHCA_WC_LOC_PROT_ERR,
                         VHCA_VERR_DMA_FAULT, 0);
    } else if (f->verr == VHCA_VERR_ODP_FAULT) {
        qp->odp_stopped = true;
        vhca_odp_fault_event(s, qp, VHCA_PF_REQUESTER);
    } else {
        vhca_sq_complete(s, qp, &f->wqe, f->status, f->verr, 0);
    }
}

/* Execute the WQE at sq.ci.  Returns whether the queue may go on. */
static bool vhca_sq_execute(VhcaState *s, VhcaQp *qp)
{
    VhcaSqFetch fetch, *f = &fetch;
    VhcaPacket pkt = { 0 };

    if (!vhca_sq_fetch(s, qp, qp->sq.ci, f)) {
        return false;
    }
    if (f->status != VHCA_WC_SUCCESS) {
        vhca_sq_fetch_failed(s, qp, f);
        return false;
    }
    trace_vhca_wqe_start(qp->handle, qp->sq.ci, f->wqe.opcode,
                         f->wqe.length);
    if (!qp->wqe_started) {
        qp->wqe_started = true;
        qp->rnr_left = qp->rnr_retry;
        qp->retry_left = qp->retry_cnt;
    }
    if (vhca_wqe_is_local(f->wqe.opcode)) {
        return vhca_sq_memory_op(s, qp, &f->wqe);
    }
    pkt.src_qp = qp;
    pkt.src_port = &s->ports[MAX(qp->port, 1) - 1];
    pkt.wqe = &f->wqe;
    pkt.local = &f->local;
    pkt.packets = vhca_qp_packets(qp, f->wqe.length);
    if (vhca_qp_connected(qp)) {
        return vhca_sq_connected(s, qp, &pkt);
    }
    return vhca_sq_datagram(s, qp, &pkt);
}

/*
 * Nesting depth of send queue processing in this process.  A DMA of one
 * device may hit another vhca's doorbell BAR; such a doorbell must not
 * run a send queue inside the first one's WQE, so it defers to the bottom
 * half.
 */
static unsigned vhca_sq_depth;

/*
 * Responder work that runs outside any send queue (a request or datagram
 * from another process, vhca-link.c) nests the same way: a doorbell rung by
 * its DMA defers to the bottom half.
 */
void vhca_sq_nest_enter(void)
{
    vhca_sq_depth++;
}

void vhca_sq_nest_leave(void)
{
    vhca_sq_depth--;
}

/* Run the send queue: at most budget WQEs, then the bottom half goes on. */
void vhca_sq_process(VhcaState *s, VhcaQp *qp, uint32_t budget)
{
    if (vhca_sq_depth) {
        qemu_bh_schedule(s->transport_bh);
        return;
    }
    vhca_sq_depth++;
    vhca_sq_run(s, qp, budget);
    vhca_sq_depth--;
}

static void vhca_sq_run(VhcaState *s, VhcaQp *qp, uint32_t budget)
{
    if (vhca_rc_windowed(s, qp)) {
        vhca_rc_window_run(s, qp, budget);
        return;
    }
    while (qp->valid && qp->state == VHCA_QPS_RTS && !qp->sq_waiting &&
           !qp->odp_stopped &&
           qp->sq.ci != qp->sq.pi && vhca_is_enabled(s)) {
        if (budget-- == 0) {
            qemu_bh_schedule(s->transport_bh);
            return;
        }
        if (!vhca_sq_execute(s, qp)) {
            return;
        }
    }
}

/* Send queues left over by a doorbell's batch, or made ready by RTS. */
void vhca_transport_bh(void *opaque)
{
    VhcaState *s = opaque;
    uint32_t i;

    if (!vhca_is_enabled(s)) {
        return;
    }
    for (i = 0; i < VHCA_QP_SLOTS; i++) {
        if (s->qps[i].valid) {
            vhca_sq_process(s, &s->qps[i], VHCA_WQE_BATCH);
        }
    }
}
