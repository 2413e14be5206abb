/*
 * vhca - RC reliability (IBA 9.7): PSNs, ACK/NAK, the local ACK timeout,
 * transport retries, duplicate detection, and the lossy fabric of tests.
 *
 * A message still moves in one step (vhca-transport.c): the responder
 * either takes all of it or none.  What makes the transport reliable is
 * modelled around that step:
 *
 * - Requester within this process (IBA 9.7.4, 9.7.6; an RC QP on a
 *   cabled port sends through vhca-rc-window.c, by the same rules): a
 *   message is sent with its first PSN, sq_psn, which only advances
 *   when the WQE completes.  A request that gets no answer (no route, no
 *   QP, a QP not in a receive state, a lost request or a lost answer)
 *   waits the QP's local ACK timeout, 4.096 us * 2^timeout on the virtual
 *   clock (IBA 9.7.6.1.3), and is sent again, up to retry_cnt times;
 *   the (retry_cnt + 1)th timeout completes it with RETRY_EXC_ERR (IBA
 *   9.7.6.1.4, 10.8.3.2).  timeout 0 means no timer
 *   (IBA: infinite): the device then resends every 4.096 us * 2^18 (about
 *   1 s) for ever, without counting, and the send queue stays blocked
 *   until the QP is modified to ERR/RESET or destroyed.  A sequence error
 *   NAK naming the message's PSN resends it at once; one naming another
 *   PSN is a ghost and ignored (the timer runs).  Both kinds of resend
 *   count against retry_cnt.
 *
 * - Responder (IBA 9.7.5.1): rq_psn is the expected PSN (ePSN).  A request
 *   whose PSN is ePSN is new: vhca_respond() executes it and ePSN advances
 *   by the PSNs it uses.  A PSN ahead of ePSN (within 2^23, IBA 9.7) is
 *   a sequence error: NAK naming ePSN.  A PSN behind it is a duplicate
 *   (IBA 9.7.5.1.2): SEND/WRITE are ACKed again without consuming another
 *   receive WQE or writing again; an RDMA READ is executed again; an
 *   atomic gets the original value saved when it was executed (IBA
 *   9.7.5.2.4).  READs and atomics are remembered in the QP's responder
 *   resources, a ring of max(max_dest_rd_atomic, 1) entries; a duplicate
 *   READ/atomic that is not there any more is dropped (the requester
 *   times out).
 *
 * - Lossy fabric: the device properties rc-drop-request=N and
 *   rc-drop-response=N lose every Nth RC request this device sends, and
 *   every Nth answer (ACK, NAK, READ response, atomic ACK) it would get
 *   back; set on -device or at run time (qom-set vhca0 rc-drop-request 7,
 *   0 to stop), so one guest can run a workload clean and then lossy.
 *   A lost single-packet request never reaches the responder; of a
 *   multi-packet SEND/WRITE the first packet is lost, so the responder
 *   sees the next one ahead of ePSN and NAKs a sequence error.
 *
 * UC has PSNs but no answers: a UC responder takes every message and
 * resynchronizes its ePSN on it (IBA 9.8); nothing here is lost on UC.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "vhca-link.h"
#include "vhca-port-fault-rules.h"
#include "trace.h"

#define VHCA_ACK_TIMEOUT_UNIT_NS    4096    /* IBA 9.7.6.1.3: 4.096 us */
#define VHCA_NO_TIMER_RESEND        18      /* timeout 0: ~1.07 s */

/*
 * rc-drop-request and rc-drop-response, plain uint32 QOM properties rather
 * than qdev ones so that qom-set may change them on a running device.  The
 * send path reads them with the BQL held, and a new rate takes effect at
 * the next request.
 */
void vhca_rc_drop_props_init(Object *obj)
{
    VhcaState *s = VHCA(obj);

    object_property_add_uint32_ptr(obj, "rc-drop-request", &s->rc_drop_request,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_set_description(obj, "rc-drop-request",
        "lose every Nth RC request this device sends (0: none)");
    object_property_add_uint32_ptr(obj, "rc-drop-response", &s->rc_drop_response,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_set_description(obj, "rc-drop-response",
        "lose every Nth answer to this device's RC requests (0: none)");
    object_property_add_uint64_ptr(obj, "rc-dropped", &s->rc_dropped,
                                   OBJ_PROP_FLAG_READ);
    object_property_set_description(obj, "rc-dropped",
        "RC requests and answers lost by rc-drop-* since the device was created");
}

/* a - b in the 24-bit PSN space: > 0 ahead, < 0 behind. */
static int32_t vhca_psn_diff(uint32_t a, uint32_t b)
{
    return (int32_t)((a - b) << 8) >> 8;
}

/* Request packets on the wire: a READ or atomic request is one. */
uint32_t vhca_rc_request_packets(const VhcaPacket *pkt)
{
    return vhca_wqe_returns_data(pkt->wqe->opcode) ? 1 : pkt->packets;
}

/* ---- responder -------------------------------------------------------- */

/* The responder resource a READ/atomic duplicate at psn belongs to. */
static VhcaRdRes *vhca_rc_resource(VhcaQp *qp, uint32_t psn, uint8_t opcode)
{
    uint32_t i;

    for (i = 0; i < VHCA_MAX_RD_ATOM; i++) {
        VhcaRdRes *r = &qp->rd_res[i];
        int32_t d = vhca_psn_diff(psn, r->psn);

        if (r->valid && r->opcode == opcode && d >= 0 &&
            (uint32_t)d < r->packets) {
            return r;
        }
    }
    return NULL;
}

static void vhca_rc_remember(VhcaQp *qp, const VhcaPacket *pkt)
{
    uint8_t n = MAX(qp->max_dest_rd_atomic, 1);
    VhcaRdRes *r;

    if (qp->rd_res_next >= n) {
        qp->rd_res_next = 0;
    }
    r = &qp->rd_res[qp->rd_res_next++];
    r->valid = true;
    r->opcode = pkt->wqe->opcode;
    r->psn = pkt->psn;
    r->packets = pkt->packets;
    r->atomic_orig = pkt->atomic_orig;
}

/* IBA 9.7.5.1.2: a request the responder has executed already. */
static VhcaAck vhca_rc_duplicate(VhcaState *ds, VhcaQp *dqp, VhcaPacket *pkt)
{
    uint8_t opcode = pkt->wqe->opcode;
    VhcaRdRes *res;

    trace_vhca_rc_duplicate(dqp->handle, pkt->psn, dqp->rq_psn, opcode);
    if (!vhca_wqe_returns_data(opcode)) {
        return VHCA_ACK;    /* SEND/WRITE: ACKed again, nothing else */
    }
    res = vhca_rc_resource(dqp, pkt->psn, opcode);
    if (!res) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x: duplicate READ/atomic "
                      "PSN 0x%x not in the responder resources, dropped\n",
                      dqp->handle, pkt->psn);
        return VHCA_NO_PEER;
    }
    if (opcode == VHCA_WQE_RDMA_READ) {
        return vhca_respond_read(ds, dqp, pkt);
    }
    /* IBA 9.7.5.2.4: an atomic not again; a FLUSH's placement holds */
    pkt->atomic_orig = res->atomic_orig;
    return VHCA_ACK;
}

/* An RC request (or its packets after a lost first one) at the responder. */
VhcaAck vhca_rc_receive(VhcaState *ds, VhcaQp *dqp, VhcaPacket *pkt)
{
    int32_t d = vhca_psn_diff(pkt->psn, dqp->rq_psn);
    VhcaAck ack;

    if (dqp->type == VHCA_QPT_XRC_TGT &&
        !vhca_xrc_bind(ds, dqp, pkt->wqe->xrc_srqn)) {
        /* IBA A14.4.1.1: an XRC SRQ not of the target's domain. */
        return vhca_responder_fail(ds, dqp, VHCA_NAK_INV_REQ,
                                   VHCA_QP_EV_REQ_ERR);
    }
    if (d > 0) {
        /*
         * IBA 9.7.5.1: sequence error, NAK naming the expected PSN, once
         * per error: the requests behind the lost one that are already
         * on the way are dropped silently until the resend comes.
         */
        if (dqp->rc_nak_seq_sent) {
            trace_vhca_rc_seq_drop(dqp->handle, pkt->psn, dqp->rq_psn);
            return VHCA_NO_PEER;
        }
        trace_vhca_rc_nak_seq(dqp->handle, pkt->psn, dqp->rq_psn);
        dqp->rc_nak_seq_sent = true;
        pkt->nak_psn = dqp->rq_psn;
        return VHCA_NAK_SEQ;
    }
    if (d < 0) {
        return vhca_rc_duplicate(ds, dqp, pkt);
    }
    dqp->rc_nak_seq_sent = false;
    if (pkt->first_lost) {
        /* A middle packet where a first one is due: invalid request. */
        return vhca_responder_fail(ds, dqp, VHCA_NAK_INV_REQ,
                                   VHCA_QP_EV_REQ_ERR);
    }
    ack = vhca_respond(ds, dqp, pkt);
    if (ack == VHCA_ACK && dqp->valid && vhca_wqe_returns_data(pkt->wqe->opcode)) {
        vhca_rc_remember(dqp, pkt);
    }
    return ack;
}

/* ---- requester -------------------------------------------------------- */

/* Deterministic loss: true on every Nth call (every 0: never). */
static bool vhca_rc_lost(VhcaState *s, uint32_t every, uint32_t *count)
{
    if (!every || ++*count < every) {
        return false;
    }
    *count = 0;
    s->rc_dropped++;
    return true;
}

/* The connected QP that receives a request sent now, if any. */
static VhcaQp *vhca_rc_peer(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt)
{
    VhcaQp *dqp;

    pkt->dst_port = vhca_qp_route(s, qp, &qp->av);
    if (!pkt->dst_port) {
        return NULL;
    }
    dqp = vhca_qp_by_qpn(pkt->dst_port->dev, pkt->dst_port->num,
                         qp->dest_qpn);
    return dqp && dqp->type == vhca_qpt_peer(qp->type) &&
           vhca_qp_receives(dqp) ? dqp : NULL;
}

/* The payload octets of a request (vhca-pma-hook.c counts the headers). */
static uint64_t vhca_rc_request_payload(const VhcaPacket *pkt)
{
    return vhca_wqe_returns_data(pkt->wqe->opcode) ? 0 : pkt->wqe->length;
}

/* The answer's packets and payload: READ response data, AtomicAckETH. */
static void vhca_rc_count_answer(VhcaPacket *pkt, VhcaAck ack, bool lost)
{
    uint8_t opcode = pkt->wqe->opcode;
    bool read = ack == VHCA_ACK && opcode == VHCA_WQE_RDMA_READ;
    uint32_t packets = read ? MAX(pkt->packets, 1) : 1;
    /* FLUSH: a READ response without payload (IBA 1.5 oA19-2) */
    uint64_t payload = read ? pkt->wqe->length :
                       ack == VHCA_ACK && vhca_wqe_returns_data(opcode) &&
                       opcode != VHCA_WQE_FLUSH ? 8 : 0;

    vhca_port_count_tx(pkt->dst_port, packets, payload, false);
    if (!lost) {
        vhca_port_count_rx(pkt->src_port, packets, payload, false);
    }
}

/* The summary fault rules see of a request (answer: false) or its answer. */
static void vhca_rc_fault_pkt(VhcaQp *qp, const VhcaPacket *pkt, bool answer,
                              VhcaAck ack, VhcaFaultPkt *fp)
{
    VhcaFaultOp op = vhca_fault_op_of_wqe(pkt->wqe->opcode);

    memset(fp, 0, sizeof(*fp));
    fp->slid = answer ? pkt->dst_port->lid : pkt->src_port->lid;
    fp->dlid = answer ? pkt->src_port->lid : pkt->dst_port->lid;
    fp->qpn = answer ? qp->handle : qp->dest_qpn;
    fp->psn = pkt->psn;
    fp->length = pkt->wqe->length;
    fp->op = !answer ? op : op == VHCA_FAULT_OP_READ_REQ && ack == VHCA_ACK
                            ? VHCA_FAULT_OP_READ_RESP : VHCA_FAULT_OP_ACK;
}

/*
 * The fault rules' verdict on a request about to reach dqp: true when it
 * is lost; a duplicate is delivered once more after it (*dup).
 */
static bool vhca_rc_fault_request(VhcaQp *qp, VhcaPacket *pkt, bool *dup)
{
    VhcaFaultPkt fp;
    uint32_t arg;
    VhcaFaultAction act;

    vhca_rc_fault_pkt(qp, pkt, false, VHCA_ACK, &fp);
    act = vhca_fault_judge_path(pkt->src_port, pkt->dst_port, &fp, &arg);
    *dup = act == VHCA_FAULT_DUP;
    return act == VHCA_FAULT_DROP || act == VHCA_FAULT_CORRUPT ||
           act == VHCA_FAULT_FLAP;
}

/* ... on the answer: lost (VHCA_NO_PEER), made a NAK, or as it was. */
static VhcaAck vhca_rc_fault_answer(VhcaQp *qp, VhcaQp *dqp, VhcaPacket *pkt,
                                    VhcaAck ack)
{
    static const VhcaAck naks[] = {
        [VHCA_WIRE_NAK_RNR] = VHCA_NAK_RNR,
        [VHCA_WIRE_NAK_SEQ] = VHCA_NAK_SEQ,
        [VHCA_WIRE_NAK_REM_ACCESS] = VHCA_NAK_REM_ACCESS,
    };
    VhcaFaultPkt fp;
    uint32_t arg = 0;

    vhca_rc_fault_pkt(qp, pkt, true, ack, &fp);
    switch (vhca_fault_judge_path(pkt->dst_port, pkt->src_port, &fp, &arg)) {
    case VHCA_FAULT_DROP:
    case VHCA_FAULT_CORRUPT:
    case VHCA_FAULT_FLAP:
        return VHCA_NO_PEER;
    case VHCA_FAULT_NAK:
        /* IBA 9.7.5.2.8: an RNR NAK carries the responder's timer */
        pkt->rnr_timer = dqp->min_rnr_timer;
        pkt->nak_psn = qp->sq_psn;      /* sequence error: resend this */
        return naks[arg];
    default:
        return ack;     /* a duplicate answer: the requester ignores it */
    }
}

/*
 * One transmission of an RC request within this process, and what comes
 * back of it (a QP on a cabled port sends through vhca-rc-window.c).
 */
static VhcaAck vhca_rc_attempt(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt)
{
    VhcaQp *dqp = vhca_rc_peer(s, qp, pkt);
    uint32_t packets = vhca_rc_request_packets(pkt);
    VhcaAck ack;
    bool lost, dup = false;

    pkt->psn = qp->sq_psn;
    pkt->first_lost = false;
    vhca_port_count_tx(pkt->src_port, packets, vhca_rc_request_payload(pkt),
                       false);
    if (vhca_rc_lost(s, s->rc_drop_request, &s->rc_requests_sent)) {
        trace_vhca_rc_lost(qp->handle, pkt->psn, "request");
        if (packets == 1) {
            return VHCA_NO_PEER;
        }
        pkt->first_lost = true;
        pkt->psn = (pkt->psn + 1) & VHCA_DB_OBJ_MASK;
    }
    if (dqp && unlikely(vhca_fault_rules_on(pkt->src_port, pkt->dst_port)) &&
        vhca_rc_fault_request(qp, pkt, &dup)) {
        return VHCA_NO_PEER;
    }
    if (pkt->dst_port) {
        vhca_port_count_rx(pkt->dst_port, packets - pkt->first_lost,
                           vhca_rc_request_payload(pkt), false);
    }
    ack = dqp ? vhca_rc_receive(pkt->dst_port->dev, dqp, pkt) : VHCA_NO_PEER;
    if (dup && ack != VHCA_NO_PEER && dqp->valid) {
        /* the copy comes behind it: the responder's duplicate (9.7.5.1.2) */
        vhca_rc_receive(pkt->dst_port->dev, dqp, pkt);
    }
    if (ack == VHCA_NO_PEER) {
        return ack;
    }
    if (unlikely(vhca_fault_rules_on(pkt->src_port, pkt->dst_port))) {
        ack = vhca_rc_fault_answer(qp, dqp, pkt, ack);
        if (ack == VHCA_NO_PEER) {
            vhca_rc_count_answer(pkt, VHCA_ACK, true);
            return ack;
        }
    }
    lost = vhca_rc_lost(s, s->rc_drop_response, &s->rc_responses_seen);
    vhca_rc_count_answer(pkt, ack, lost);
    if (lost) {
        trace_vhca_rc_lost(qp->handle, qp->sq_psn, "response");
        return VHCA_NO_PEER;
    }
    return ack;
}

/*
 * Send the request of the WQE at sq.ci to the connected QP.  RC: resent at
 * once on sequence error NAKs for its PSN while retries last (then
 * VHCA_NAK_SEQ); VHCA_NO_PEER when nothing came back.
 */
VhcaAck vhca_rc_transmit(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt)
{
    VhcaQp *dqp;
    VhcaAck ack;

    if (qp->type == VHCA_QPT_UC) {
        dqp = vhca_rc_peer(s, qp, pkt);
        pkt->psn = qp->sq_psn;
        if (!dqp && vhca_link_cabled(pkt->src_port)) {
            vhca_link_uc_send(s, qp, pkt);
            return VHCA_ACK;
        }
        /* UC: no answers; with nobody there the message is lost. */
        vhca_port_count_tx(pkt->src_port, pkt->packets, pkt->wqe->length,
                           false);
        if (pkt->dst_port) {
            vhca_port_count_rx(pkt->dst_port, pkt->packets, pkt->wqe->length,
                               false);
        }
        return dqp ? vhca_respond(pkt->dst_port->dev, dqp, pkt) : VHCA_ACK;
    }
    for (;;) {
        ack = vhca_rc_attempt(s, qp, pkt);
        if (ack != VHCA_NAK_SEQ || !vhca_is_enabled(s) || !qp->valid ||
            qp->state != VHCA_QPS_RTS) {
            return ack;
        }
        if (pkt->nak_psn != qp->sq_psn) {
            trace_vhca_rc_ghost_nak(qp->handle, qp->sq_psn, pkt->nak_psn);
            return VHCA_NO_PEER;    /* not ours: the timer will resend */
        }
        if (qp->retry_left == 0) {
            return VHCA_NAK_SEQ;
        }
        qp->retry_left--;
        trace_vhca_rc_resend(qp->handle, qp->sq.ci, qp->sq_psn,
                             qp->retry_left);
    }
}

/* IBA 9.7.6.1.3: the local ACK timeout, 4.096 us * 2^timeout. */
int64_t vhca_rc_timeout_ns(uint8_t timeout)
{
    return (int64_t)VHCA_ACK_TIMEOUT_UNIT_NS <<
           (timeout ? MIN(timeout, 31) : VHCA_NO_TIMER_RESEND);
}

/* Nothing answered the request of the WQE at sq.ci: wait, then resend. */
void vhca_rc_wait_ack(VhcaQp *qp)
{
    trace_vhca_rc_timer(qp->handle, qp->sq.ci, qp->sq_psn, qp->retry_left);
    qp->sq_wait = VHCA_SQ_WAIT_ACK;
    qp->sq_waiting = true;
    timer_mod(qp->sq_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                            vhca_rc_timeout_ns(qp->timeout));
}

/* The send queue's timer: an RNR wait or a local ACK timeout is over. */
void vhca_qp_sq_timer(void *opaque)
{
    VhcaQp *qp = opaque;
    VhcaState *s = qp->dev;

    if (vhca_rc_windowed(s, qp)) {
        vhca_rc_window_timer(s, qp);    /* requests on the wire */
        return;
    }
    qp->sq_waiting = false;
    if (qp->sq_wait == VHCA_SQ_WAIT_ACK && qp->timeout != 0) {
        /* IBA 9.7.6.1.4: a timeout uses up one retry, or ends the WQE. */
        if (qp->retry_left == 0) {
            qp->retry_exhausted = true;
        } else {
            qp->retry_left--;
        }
        trace_vhca_rc_timeout(qp->handle, qp->sq.ci, qp->retry_left,
                              qp->retry_exhausted);
    }
    if (qp->valid && vhca_is_enabled(s)) {
        vhca_sq_process(s, qp, VHCA_WQE_BATCH);
    }
}

/* RESET: no WQE in progress, no timer, no responder resources. */
void vhca_rc_reset_qp(VhcaQp *qp)
{
    timer_del(qp->sq_timer);
    qp->sq_waiting = false;
    qp->wqe_started = false;
    qp->retry_exhausted = false;
    qp->odp_stopped = false;
    qp->odp_resp_fault = false;
    qp->odp_error = false;
    memset(qp->rd_res, 0, sizeof(qp->rd_res));
    qp->rd_res_next = 0;
    qp->rc_nak_seq_sent = false;
    vhca_rc_window_reset(qp);
    vhca_link_forget(qp);
}
