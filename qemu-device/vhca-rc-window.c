/*
 * vhca - the RC requester towards a QP of another process: the only one
 * an RC or XRC initiator QP on a cabled port has, with up to rc-window
 * requests in flight (Documentation/fabric.md "RC over the wire").
 *
 * Within one process the responder runs inline and RC is synchronous
 * (vhca-rc.c).  Across the wire a round trip takes two QEMU main loops and
 * the switch, so the send queue may run ahead of its answers as an HCA's
 * does (IBA 9.7: the requester need not wait for one answer to send on).
 * The device property rc-window (1..VHCA_RC_WINDOW) says how far: at 1
 * one request at a time leaves and waits for its answer, with the same
 * local ACK timeout, retries and RNR waits as at any depth.
 *
 * - The WQEs sq.ci .. sq_sent - 1 are on the wire, each with its first
 *   PSN in qp->flight[].  New requests leave while fewer than
 *   rc-window are in flight, their bytes stay under
 *   VHCA_RC_WINDOW_BYTES, and READ/atomic requests under the QP's
 *   max_rd_atomic (its initiator depth: the READs/atomics it may have
 *   outstanding, IBA 11.2.4.2 Modify QP).
 * - A WQE that puts nothing on the wire (LOCAL_INV, REG_MR, BIND_MW), one
 *   that fails its local checks, and one with FENCE wait until the window
 *   is empty and then run as the only WQE: completions stay in order.
 * - Answers (IBA 9.7.5.1): an ACK for a request acknowledges every SEND/
 *   WRITE before it (coalesced ACKs); a READ response or atomic ACK
 *   answers its own request, and its data is written at once.  WQEs
 *   complete in order from sq.ci as soon as they are answered: the CQE of
 *   a WQE never comes before its answer.
 * - A sequence error NAK (IBA 9.7.5.1) acknowledges what is before the
 *   PSN it names and sends again from there (go-back-N), using a retry,
 *   and the local ACK timer starts again for the resend;
 *   an RNR NAK likewise, after the responder's RNR timer (IBA 9.7.5.2.8);
 *   an error NAK completes that WQE with its error and the QP goes to ERR.
 * - One local ACK timer per QP (IBA 9.7.6.1.3) runs while anything is in
 *   flight and restarts when a WQE completes; when it expires the requests
 *   are sent again from the oldest unanswered one (IBA 9.7.6.1.1), using a
 *   retry, and with none left that WQE completes with RETRY_EXC_ERR.
 *
 * Retry and RNR counters start afresh when a WQE completes (vhca_sq_
 * complete clears wqe_started).  All of it runs with the BQL held.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "vhca-link.h"
#include "trace.h"

/* Message bytes in flight per QP (a longer message goes alone). */
#define VHCA_RC_WINDOW_BYTES    (4u << 20)

/* Whether qp's requests go out of the process: RC/XRC on a cabled port. */
bool vhca_rc_windowed(VhcaState *s, const VhcaQp *qp)
{
    return (qp->type == VHCA_QPT_RC || qp->type == VHCA_QPT_XRC_INI) &&
           qp->port >= 1 && qp->port <= s->num_ports &&
           vhca_link_cabled(&s->ports[qp->port - 1]);
}

static uint32_t vhca_rc_in_flight(const VhcaQp *qp)
{
    return qp->sq_sent - qp->sq.ci;
}

static VhcaRcFlight *vhca_rc_flight(VhcaQp *qp, uint32_t idx)
{
    return &qp->flight[idx % VHCA_RC_WINDOW];
}

/*
 * sq_sent stays within sq.ci .. sq.pi (a flush or a memory operation moves
 * sq.ci past it); an empty window sends from sq_psn, the PSN of sq.ci.
 */
static void vhca_rc_window_sync(VhcaQp *qp)
{
    if (vhca_rc_in_flight(qp) > qp->sq.pi - qp->sq.ci) {
        qp->sq_sent = qp->sq.ci;
    }
    if (qp->sq_sent == qp->sq.ci) {
        qp->sq_send_psn = qp->sq_psn;
    }
}

/* RESET: nothing in flight; the send queue starts again at index 0. */
void vhca_rc_window_reset(VhcaQp *qp)
{
    qp->sq_sent = 0;
    qp->sq_sent_high = 0;
    qp->sq_drained_due = false;
    qp->sq_send_psn = qp->sq_psn;
    memset(qp->flight, 0, sizeof(qp->flight));
}

/* The WQE at sq.ci is being worked on: its retry counters start. */
static void vhca_rc_window_start(VhcaQp *qp)
{
    if (!qp->wqe_started) {
        qp->wqe_started = true;
        qp->rnr_left = qp->rnr_retry;
        qp->retry_left = qp->retry_cnt;
    }
}

/* IBA 9.7.6.1.3: the local ACK timer starts (again). */
static void vhca_rc_window_arm(VhcaQp *qp)
{
    qp->sq_wait = VHCA_SQ_WAIT_ACK;
    timer_mod(qp->sq_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                            vhca_rc_timeout_ns(qp->timeout));
}

/*
 * A diagnostic, not a cure: requests in flight with neither the local ACK
 * timer nor an RNR wait running would never be resent if their answers
 * were lost (a "stuck window").  Traced where a window leaves its work.
 */
static void vhca_rc_window_watch(VhcaState *s, VhcaQp *qp, const char *where)
{
    if (qp->valid && vhca_is_enabled(s) && qp->sq.ci != qp->sq_sent &&
        qp->sq_sent - qp->sq.ci <= VHCA_RC_WINDOW &&
        !timer_pending(qp->sq_timer)) {
        trace_vhca_rc_window_stuck(qp->handle, qp->sq.ci, qp->sq_sent,
                                   qp->sq.pi, qp->state, where);
    }
}

/* Go back to the request of WQE idx: it and those after it leave again. */
static void vhca_rc_window_rewind(VhcaQp *qp, uint32_t idx, const char *why)
{
    qp->sq_sent = idx;
    qp->sq_send_psn = vhca_rc_flight(qp, idx)->psn;
    trace_vhca_rc_window_rewind(qp->handle, idx, qp->sq_send_psn, why);
}

/* ---- sending ------------------------------------------------------------ */

/* Why wqe may not join the requests in flight now, or NULL. */
static const char *vhca_rc_window_full(VhcaQp *qp, const VhcaSendWqe *wqe)
{
    uint32_t reads = 0, i;
    uint64_t bytes = 0;

    if (vhca_rc_in_flight(qp) >= qp->dev->rc_window) {
        return "window full";
    }
    if (wqe->flags & VHCA_WQE_F_FENCE) {
        return "fence";     /* fenced: after the READs/atomics before it */
    }
    for (i = qp->sq.ci; i != qp->sq_sent; i++) {
        VhcaRcFlight *e = vhca_rc_flight(qp, i);

        reads += vhca_wqe_returns_data(e->opcode);
        bytes += e->length;
    }
    if (vhca_wqe_returns_data(wqe->opcode) &&
        reads >= MAX(qp->max_rd_atomic, 1)) {
        return "max_rd_atomic";
    }
    return bytes + wqe->length > VHCA_RC_WINDOW_BYTES ? "bytes" : NULL;
}

/*
 * The WQE at sq.ci alone, with nothing in flight: a local failure or a
 * memory operation completes here.
 */
static bool vhca_rc_window_alone(VhcaState *s, VhcaQp *qp,
                                 const VhcaSqFetch *f)
{
    if (f->status != VHCA_WC_SUCCESS) {
        vhca_sq_fetch_failed(s, qp, f);     /* or an ODP fault stops it */
        return false;
    }
    return vhca_sq_memory_op(s, qp, &f->wqe);
}

/* The request of the WQE at sq_sent leaves.  Returns whether to go on. */
static bool vhca_rc_window_send(VhcaState *s, VhcaQp *qp)
{
    uint32_t idx = qp->sq_sent;
    bool alone = idx == qp->sq.ci;
    VhcaPacket pkt = { 0 };
    VhcaRcFlight *e;
    VhcaSqFetch f;
    const char *why;
    VhcaAck ack;

    if (!vhca_sq_fetch(s, qp, idx, &f)) {
        return false;
    }
    why = f.status != VHCA_WC_SUCCESS ? "local error" :
          vhca_wqe_is_local(f.wqe.opcode) ? "local operation" :
          alone ? NULL : vhca_rc_window_full(qp, &f.wqe);
    if (why && !alone) {
        trace_vhca_rc_window_hold(qp->handle, idx, why);
        return false;
    }
    vhca_rc_window_start(qp);
    if (why) {
        return vhca_rc_window_alone(s, qp, &f);
    }
    trace_vhca_wqe_start(qp->handle, idx, f.wqe.opcode, f.wqe.length);
    pkt.src_qp = qp;
    pkt.src_port = &s->ports[qp->port - 1];
    pkt.wqe = &f.wqe;
    pkt.local = &f.local;
    pkt.packets = vhca_qp_packets(qp, f.wqe.length);
    pkt.psn = qp->sq_send_psn;
    if (pkt.src_port->state == VHCA_PORT_ACTIVE &&
        !vhca_link_send_request(qp, &pkt, &ack)) {
        if (alone) {
            vhca_sq_complete_ack(s, qp, &f.wqe, ack);
        }
        return false;   /* later, alone, it completes with that error */
    }
    /* Port not ACTIVE: the request is lost, the timer sends it again. */
    e = vhca_rc_flight(qp, idx);
    *e = (VhcaRcFlight) {
        .psn = pkt.psn,
        .packets = pkt.packets,
        .length = f.wqe.length,
        .wr_id = f.wqe.wr_id,
        .opcode = f.wqe.opcode,
        .flags = f.wqe.flags,
    };
    qp->sq_sent++;
    if ((int32_t)(qp->sq_sent - qp->sq_sent_high) > 0) {
        qp->sq_sent_high = qp->sq_sent;
    }
    qp->sq_send_psn = (pkt.psn + pkt.packets) & VHCA_DB_OBJ_MASK;
    trace_vhca_rc_window_send(qp->handle, idx, pkt.psn,
                              vhca_rc_in_flight(qp));
    if (!timer_pending(qp->sq_timer)) {
        vhca_rc_window_arm(qp);
    }
    return true;
}

/*
 * RTS sends; SQD (IBA 10.3.1 SQ Drain) only sends again what it sent
 * before: a request resent after a NAK or a timeout.
 */
static bool vhca_rc_window_may_send(const VhcaQp *qp)
{
    return qp->state == VHCA_QPS_RTS ||
           (qp->state == VHCA_QPS_SQD &&
            (int32_t)(qp->sq_sent_high - qp->sq_sent) > 0);
}

void vhca_rc_window_run(VhcaState *s, VhcaQp *qp, uint32_t budget)
{
    for (;;) {
        vhca_rc_window_sync(qp);
        if (!qp->valid || !vhca_rc_window_may_send(qp) || qp->sq_waiting ||
            qp->odp_stopped || qp->sq_sent == qp->sq.pi ||
            !vhca_is_enabled(s)) {
            vhca_rc_window_watch(s, qp, "run");
            return;
        }
        if (budget-- == 0) {
            qemu_bh_schedule(s->transport_bh);
            return;
        }
        if (!vhca_rc_window_send(s, qp)) {
            vhca_rc_window_watch(s, qp, "run");
            return;
        }
    }
}

/* ---- answers ------------------------------------------------------------ */

static bool vhca_rc_window_live(VhcaState *s, VhcaQp *qp)
{
    return vhca_is_enabled(s) && qp->valid &&
           (qp->state == VHCA_QPS_RTS || qp->state == VHCA_QPS_SQD);
}

/* IBA 11.6.3 SQ Drained: the event once nothing is in flight in SQD. */
static void vhca_rc_window_drained(VhcaState *s, VhcaQp *qp)
{
    if (qp->state == VHCA_QPS_SQD && qp->sq_drained_due) {
        qp->sq_drained_due = false;
        vhca_qp_event(s, qp, VHCA_QP_EV_SQ_DRAINED);
    }
}

/*
 * The QP went to SQD: whether requests are in flight, so that its
 * SQ_DRAINED event waits for their answers.
 */
bool vhca_rc_window_sqd(VhcaState *s, VhcaQp *qp)
{
    vhca_rc_window_sync(qp);
    qp->sq_drained_due = vhca_rc_windowed(s, qp) && qp->sq.ci != qp->sq_sent;
    return qp->sq_drained_due;
}

/* Complete the answered WQEs from sq.ci on, in order. */
static void vhca_rc_window_retire(VhcaState *s, VhcaQp *qp)
{
    bool progress = false;

    while (qp->sq.ci != qp->sq_sent && vhca_rc_window_live(s, qp)) {
        VhcaRcFlight *e = vhca_rc_flight(qp, qp->sq.ci);
        VhcaSendWqe wqe = {
            .wr_id = e->wr_id,
            .opcode = e->opcode,
            .flags = e->flags,
            .length = e->length,
        };

        if (!e->answered) {
            break;
        }
        vhca_sq_complete_ack(s, qp, &wqe, e->ack);
        progress = true;
    }
    if (!progress || !vhca_rc_window_live(s, qp) || qp->sq_waiting) {
        return;
    }
    if (qp->sq.ci == qp->sq_sent) {
        timer_del(qp->sq_timer);
        vhca_rc_window_drained(s, qp);
    } else {
        vhca_rc_window_arm(qp);     /* the oldest gets a full timeout */
    }
}

/* The WQE in flight whose request has first PSN psn, if unanswered. */
static bool vhca_rc_window_find(VhcaQp *qp, uint32_t psn, uint32_t *idx)
{
    uint32_t i;

    for (i = qp->sq.ci; i != qp->sq_sent; i++) {
        VhcaRcFlight *e = vhca_rc_flight(qp, i);

        if (e->psn == psn && !e->answered) {
            *idx = i;
            return true;
        }
    }
    return false;
}

/*
 * IBA 9.7.5.1: an answer for the request of WQE idx means the responder
 * executed every request before it: their SEND/WRITEs are acknowledged.
 * A READ/atomic before it still needs its own answer.
 */
static void vhca_rc_window_ack_before(VhcaQp *qp, uint32_t idx)
{
    uint32_t i;

    for (i = qp->sq.ci; i != idx; i++) {
        VhcaRcFlight *e = vhca_rc_flight(qp, i);

        if (!e->answered && !vhca_wqe_returns_data(e->opcode)) {
            e->answered = true;
            e->ack = VHCA_ACK;
        }
    }
}

/* A READ response's data or an atomic's original value, into the WQE's
 * local buffer (a FLUSH's answer has none: IBA 1.5 oA19-2).  Returns the
 * answer the WQE completes with. */
static VhcaAck vhca_rc_window_data(VhcaState *s, VhcaQp *qp, uint32_t idx,
                                   const VhcaRcAnswer *a)
{
    VhcaRcFlight *e = vhca_rc_flight(qp, idx);
    uint64_t orig_le = cpu_to_le64(a->atomic_orig);
    VhcaSgl data;
    VhcaSqFetch f;

    if (!vhca_sq_fetch(s, qp, idx, &f) || f.status != VHCA_WC_SUCCESS ||
        f.wqe.opcode != e->opcode || f.wqe.length != e->length) {
        return VHCA_NAK_REM_OP;     /* the WQE changed under the device */
    }
    if (e->opcode == VHCA_WQE_FLUSH) {
        return a->len == 0 ? VHCA_ACK : VHCA_NAK_REM_OP;
    }
    if (e->opcode == VHCA_WQE_RDMA_READ) {
        if (a->len != e->length) {
            return VHCA_NAK_REM_OP;
        }
        vhca_sgl_host(s, a->data, a->len, &data);
    } else {
        vhca_sgl_host(s, (const uint8_t *)&orig_le, 8, &data);
    }
    return vhca_sgl_copy(&f.local, 0, &data, data.length) == VHCA_VERR_NONE
           ? VHCA_ACK : VHCA_NAK_REM_OP;
}

/* Go back to WQE idx after a NAK, using one of counter; false: none left. */
static bool vhca_rc_window_retry(VhcaQp *qp, uint32_t idx, uint8_t *left,
                                 bool forever, const char *why)
{
    vhca_rc_window_start(qp);
    if (!forever) {
        if (*left == 0) {
            return false;
        }
        (*left)--;
    }
    trace_vhca_rc_resend(qp->handle, idx, vhca_rc_flight(qp, idx)->psn,
                         *left);
    vhca_rc_window_rewind(qp, idx, why);
    return true;
}

/* WQE idx is done with ack (an error completes it and ends the QP). */
static void vhca_rc_window_answered(VhcaQp *qp, uint32_t idx, VhcaAck ack)
{
    VhcaRcFlight *e = vhca_rc_flight(qp, idx);

    e->answered = true;
    e->ack = ack;
}

static void vhca_rc_window_nak_seq(VhcaQp *qp, const VhcaRcAnswer *a)
{
    uint32_t idx;

    if (!vhca_rc_window_find(qp, a->nak_psn, &idx)) {
        trace_vhca_rc_ghost_nak(qp->handle, qp->sq_psn, a->nak_psn);
        return;             /* not a request in flight: the timer runs */
    }
    vhca_rc_window_ack_before(qp, idx);
    if (!vhca_rc_window_retry(qp, idx, &qp->retry_left, false,
                              "sequence error NAK")) {
        vhca_rc_window_answered(qp, idx, VHCA_NAK_SEQ);
    } else if (!qp->sq_waiting) {
        /*
         * The responder answered: the resend gets a whole local ACK
         * timeout (IBA 9.7.6.1.3), as the first transmission did.  An RNR
         * wait keeps its timer: the resend leaves when it ends.
         */
        vhca_rc_window_arm(qp);
    }
}

static void vhca_rc_window_nak_rnr(VhcaQp *qp, uint32_t idx,
                                   const VhcaRcAnswer *a)
{
    vhca_rc_window_ack_before(qp, idx);
    if (!vhca_rc_window_retry(qp, idx, &qp->rnr_left, qp->rnr_retry == 7,
                              "RNR NAK")) {
        vhca_rc_window_answered(qp, idx, VHCA_NAK_RNR);
        return;
    }
    trace_vhca_wqe_rnr(qp->handle, idx, qp->rnr_left);
    qp->sq_wait = VHCA_SQ_WAIT_RNR;
    qp->sq_waiting = true;
    timer_mod(qp->sq_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                            vhca_rnr_delay_ns(a->rnr_timer));
}

void vhca_rc_window_answer(VhcaState *s, VhcaQp *qp, const VhcaRcAnswer *a)
{
    uint32_t idx;
    bool reads;

    trace_vhca_rc_window_answer(qp->handle, a->psn, a->ack, a->nak_psn);
    vhca_rc_window_sync(qp);
    if (a->ack == VHCA_NAK_SEQ) {
        vhca_rc_window_nak_seq(qp, a);
    } else if (!vhca_rc_window_find(qp, a->psn, &idx)) {
        /* An answer to a request answered or sent again since. */
        trace_vhca_rc_window_stale(qp->handle, a->psn, qp->sq_psn);
        return;
    } else if (a->ack == VHCA_NAK_RNR) {
        vhca_rc_window_nak_rnr(qp, idx, a);
    } else {
        vhca_rc_window_ack_before(qp, idx);
        reads = vhca_wqe_returns_data(vhca_rc_flight(qp, idx)->opcode);
        vhca_rc_window_answered(qp, idx, a->ack == VHCA_ACK && reads ?
                                vhca_rc_window_data(s, qp, idx, a) : a->ack);
    }
    vhca_rc_window_retire(s, qp);
    vhca_rc_window_watch(s, qp, "answer");
}

/* ---- the local ACK timer ------------------------------------------------ */

/* The RNR wait is over, or the local ACK timeout expired. */
void vhca_rc_window_timer(VhcaState *s, VhcaQp *qp)
{
    bool rnr = qp->sq_waiting && qp->sq_wait == VHCA_SQ_WAIT_RNR;
    VhcaRcFlight *e;

    qp->sq_waiting = false;
    vhca_rc_window_sync(qp);
    if (rnr && qp->sq.ci != qp->sq_sent) {
        /*
         * Requests before the RNR NAK'd one are still in flight (READ/
         * atomics wait for their own answers): the local ACK timer runs
         * for them again (IBA 9.7.6.1.3), even if the resend must wait.
         */
        vhca_rc_window_arm(qp);
    }
    if (!rnr && qp->sq.ci != qp->sq_sent && vhca_rc_window_live(s, qp)) {
        vhca_rc_window_start(qp);
        e = vhca_rc_flight(qp, qp->sq.ci);
        if (qp->timeout != 0 && qp->retry_left == 0) {
            /* IBA 9.7.6.1.4: the (retry_cnt + 1)th timeout ends it. */
            trace_vhca_rc_timeout(qp->handle, qp->sq.ci, 0, true);
            e->answered = true;
            e->ack = VHCA_NO_PEER;
            vhca_rc_window_retire(s, qp);
            return;
        }
        if (qp->timeout != 0) {
            qp->retry_left--;
        }
        trace_vhca_rc_timeout(qp->handle, qp->sq.ci, qp->retry_left, false);
        vhca_rc_window_rewind(qp, qp->sq.ci, "local ACK timeout");
    }
    if (qp->valid && vhca_is_enabled(s)) {
        vhca_sq_process(s, qp, VHCA_WQE_BATCH);
    }
}
