/*
 * vhca - the rendezvous protocol of tag matching SRQs (uapi/vhca_hw_tm.h):
 * a RNDV message that matched a tag entry names the sender's buffer (RVH:
 * va, rkey, len); the device reads it into the entry's buffer with an RDMA
 * READ of the receiving QP, completes the entry (TM_F_DATA_VALID), and
 * tells the sender with a FIN message (a 16-byte TMH).
 *
 * The READ runs after the RNDV SEND was acknowledged, from a bottom half,
 * as a request of the device that is not a WQE of the QP's send queue: it
 * takes the QP's next PSNs, so the send queue must be idle (no WQE in
 * flight), and it is one attempt, answered at once by a QP of this process
 * (vhca-rc.c).  Anything else (the send queue busy, the sender behind a
 * link to another process, a lost or refused request) completes the entry
 * with TM_RNDV_INCOMPLETE, which tells software to do the rendezvous
 * itself, as mlx5 reports when its hardware READ fails.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "vhca-tm.h"
#include "trace.h"

/* The first CQE (TM_F_MATCH); the entry waits for the bottom half. */
VhcaAck vhca_tm_rndv(VhcaState *s, VhcaQp *qp, VhcaSrq *srq, VhcaPacket *pkt,
                     uint32_t handle, const VhcaTmh *h)
{
    VhcaTmEntry *e = &srq->tm->entries[handle];
    VhcaRecvDone d = { .tm_flags = VHCA_CQE_TM_F_MATCH };

    e->valid = false;
    e->rndv = true;
    e->rndv_qp = qp->handle;
    e->rndv_hdr = *h;
    vhca_tm_complete(s, qp, pkt, e, handle, h, &d);
    qemu_bh_schedule(srq->tm->bh);
    return VHCA_ACK;
}

/* Whether qp may send a request of the device now (see above). */
static bool vhca_tm_can_request(VhcaState *s, VhcaQp *qp)
{
    VhcaPort *dst;

    if (!qp->valid || qp->state != VHCA_QPS_RTS || qp->sq.ci != qp->sq.pi ||
        qp->wqe_started || qp->sq_waiting) {
        return false;
    }
    dst = vhca_qp_route(s, qp, &qp->av);
    return dst && vhca_qp_by_qpn(dst->dev, dst->num, qp->dest_qpn);
}

/* One request of the device on qp, with the QP's next PSNs. */
static VhcaAck vhca_tm_request(VhcaState *s, VhcaQp *qp, VhcaSendWqe *wqe,
                               VhcaSgl *local)
{
    VhcaPacket pkt = { 0 };
    uint8_t retry_left = qp->retry_left;
    VhcaAck ack;

    pkt.src_qp = qp;
    pkt.src_port = &s->ports[MAX(qp->port, 1) - 1];
    pkt.wqe = wqe;
    pkt.local = local;
    pkt.packets = vhca_qp_packets(qp, wqe->length);
    qp->retry_left = 0;     /* a sequence error NAK ends the attempt */
    vhca_sq_nest_enter();
    ack = vhca_rc_transmit(s, qp, &pkt);
    vhca_sq_nest_leave();
    qp->retry_left = retry_left;
    if (ack == VHCA_ACK && qp->valid) {
        qp->sq_psn = (qp->sq_psn + pkt.packets) & VHCA_DB_OBJ_MASK;
    }
    return ack;
}

/* RDMA READ of the sender's buffer into the entry's. */
static uint8_t vhca_tm_read(VhcaState *s, VhcaQp *qp, VhcaSrq *srq,
                            const VhcaTmEntry *e, uint32_t *len)
{
    VhcaSendWqe wqe = { .opcode = VHCA_WQE_RDMA_READ };
    VhcaSgl local;
    uint8_t verr;

    verr = vhca_sgl_from_sges(s, srq->pdn, srq->db_page == 0, &e->sge,
                              e->num_sge, VHCA_ACCESS_LOCAL_WRITE, &local);
    if (verr != VHCA_VERR_NONE) {
        return verr;
    }
    if (e->rndv_hdr.len > local.length) {
        return VHCA_VERR_LENGTH;
    }
    if (!vhca_tm_can_request(s, qp)) {
        return VHCA_VERR_NO_PEER;
    }
    wqe.length = e->rndv_hdr.len;
    wqe.remote_addr = e->rndv_hdr.va;
    wqe.rkey = e->rndv_hdr.rkey;
    *len = e->rndv_hdr.len;
    return vhca_tm_request(s, qp, &wqe, &local) == VHCA_ACK ?
           VHCA_VERR_NONE : VHCA_VERR_NO_PEER;
}

/* The FIN message: the sender's buffer may be reused. */
static void vhca_tm_fin(VhcaState *s, VhcaQp *qp, const VhcaTmh *h)
{
    VhcaSendWqe wqe = { .opcode = VHCA_WQE_SEND, .length = VHCA_TM_TMH_LEN };
    uint8_t fin[VHCA_TM_TMH_LEN] = { VHCA_TMH_FIN };
    VhcaSgl local;
    VhcaAck ack;

    memcpy(fin + 4, &h->app_ctx, 4);
    stq_be_p(fin + 8, h->tag);
    vhca_sgl_host(s, fin, sizeof(fin), &local);
    ack = vhca_tm_can_request(s, qp) ? vhca_tm_request(s, qp, &wqe, &local)
                                     : VHCA_NO_PEER;
    if (ack != VHCA_ACK) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x rendezvous FIN not "
                      "delivered (%d)\n", qp->handle, ack);
        trace_vhca_tm_rndv(qp->handle, h->tag, "FIN not delivered");
    }
}

/* The second CQE of the entry: data valid, or TM_RNDV_INCOMPLETE. */
static void vhca_tm_rndv_one(VhcaState *s, VhcaSrq *srq, uint32_t handle)
{
    VhcaTmEntry e = srq->tm->entries[handle];
    VhcaQp *qp = vhca_qp_get(s, e.rndv_qp);
    VhcaRecvDone d = { .tm_flags = VHCA_CQE_TM_F_FREED };
    VhcaPacket pkt = { 0 };
    VhcaQp peer = { 0 };
    uint32_t len = 0;
    uint8_t verr;

    srq->tm->entries[handle].rndv = false;
    if (!qp || vhca_tm_srq_of(s, qp) != srq) {
        trace_vhca_tm_rndv(e.rndv_qp, e.rndv_hdr.tag, "QP gone");
        return;
    }
    verr = vhca_tm_read(s, qp, srq, &e, &len);
    if (!vhca_is_enabled(s) || !qp->valid || !srq->valid) {
        return;
    }
    if (verr == VHCA_VERR_NONE) {
        d.tm_flags |= VHCA_CQE_TM_F_DATA_VALID;
        d.byte_len = len;
    } else {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x rendezvous READ of "
                      "tag 0x%" PRIx64 " failed (%u)\n", qp->handle,
                      e.rndv_hdr.tag, verr);
        trace_vhca_tm_rndv(qp->handle, e.rndv_hdr.tag, "READ failed");
        d.status = VHCA_WC_TM_RNDV_INCOMPLETE;
        d.verr = verr;
    }
    /* the CQE's source fields: the connected peer */
    peer.qpn = qp->dest_qpn;
    peer.av = qp->av;
    pkt.src_qp = &peer;
    pkt.src_port = &s->ports[MAX(qp->port, 1) - 1];
    pkt.wqe = &(VhcaSendWqe) { .opcode = VHCA_WQE_SEND };
    vhca_tm_complete(s, qp, &pkt, &e, handle, &e.rndv_hdr, &d);
    if (verr == VHCA_VERR_NONE) {
        vhca_tm_fin(s, qp, &e.rndv_hdr);
    }
}

void vhca_tm_rndv_bh(void *opaque)
{
    VhcaTm *tm = opaque;
    VhcaState *s = tm->dev;
    VhcaSrq *srq = tm->srq;
    uint32_t i;

    /* a DMA of the READ may reset the device, which frees tm */
    for (i = 0; srq && srq->valid && srq->tm == tm && vhca_is_enabled(s) &&
                i < tm->max_tags; i++) {
        if (tm->entries[i].rndv) {
            vhca_tm_rndv_one(s, srq, i);
        }
    }
}
