/*
 * vhca - queue pairs: CREATE/QUERY/DESTROY_QP, work queue doorbells,
 * flushing, QP events (Guide 7, IBA 10.3).  MODIFY_QP and its state table
 * are in vhca-qp-modify.c, WQE execution in vhca-transport.c.
 *
 * QPNs 2..VHCA_MAX_QP+1 are RC/UC/UD QPs (handle = QPN).  Each port has
 * its own SMI (QPN 0) and GSI (QPN 1) QP, whose handle is
 * VHCA_SPECIAL_QP_HANDLE(port, qpn).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "vhca.h"
#include "vhca-wqe.h"
#include "vhca-link.h"
#include "trace.h"

void vhca_qp_init(VhcaState *s)
{
    uint32_t i;

    s->qps = g_new0(VhcaQp, VHCA_QP_SLOTS);
    for (i = 0; i < VHCA_QP_SLOTS; i++) {
        s->qps[i].dev = s;
        s->qps[i].sq_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                          vhca_qp_sq_timer, &s->qps[i]);
    }
}

static void vhca_qp_free(VhcaState *s, VhcaQp *qp)
{
    QEMUTimer *timer = qp->sq_timer;
    VhcaState *dev = qp->dev;
    VhcaSrq *srq;
    VhcaCq *cq;

    timer_del(timer);
    if (qp->valid && qp->type == VHCA_QPT_XRC_TGT) {
        /* No CQ or SRQ of its own: those of its requests are borrowed. */
        vhca_link_forget(qp);
        vhca_xrcd_release(s, qp->xrcdn);
    } else if (qp->valid) {
        vhca_link_forget(qp);
        cq = vhca_cq_get(s, qp->send_cqn);
        if (cq && cq->users) {
            cq->users--;
        }
        cq = qp->type != VHCA_QPT_XRC_INI ? vhca_cq_get(s, qp->recv_cqn)
                                           : NULL;
        if (cq && cq->users) {
            cq->users--;
        }
        srq = (qp->flags & VHCA_QP_F_HAS_SRQ) ? vhca_srq_get(s, qp->srqn)
                                               : NULL;
        if (srq && srq->users) {
            srq->users--;
        }
    }
    if (qp->valid) {
        vhca_mcast_detach_qp(s, qp->handle);
    }
    vhca_sqpoll_remove(s, qp - s->qps);
    vhca_buf_free(&qp->sq.buf);
    vhca_buf_free(&qp->rq.buf);
    memset(qp, 0, sizeof(*qp));
    qp->sq_timer = timer;
    qp->dev = dev;
}

void vhca_qp_reset(VhcaState *s)
{
    uint32_t i;

    for (i = 0; i < VHCA_QP_SLOTS; i++) {
        vhca_qp_free(s, &s->qps[i]);
    }
}

void vhca_qp_unrealize(VhcaState *s)
{
    uint32_t i;

    if (!s->qps) {
        return;
    }
    vhca_qp_reset(s);
    for (i = 0; i < VHCA_QP_SLOTS; i++) {
        timer_free(s->qps[i].sq_timer);
    }
    g_free(s->qps);
    s->qps = NULL;
}

static VhcaQp *vhca_qp_slot(VhcaState *s, uint8_t port, uint32_t qpn)
{
    if (qpn < VHCA_FIRST_QPN) {
        if (port < 1 || port > s->num_ports) {
            return NULL;
        }
        return &s->qps[VHCA_MAX_QP + (port - 1) * 2 + qpn];
    }
    if (qpn >= VHCA_FIRST_QPN + VHCA_MAX_QP) {
        return NULL;
    }
    return &s->qps[qpn - VHCA_FIRST_QPN];
}

VhcaQp *vhca_qp_get(VhcaState *s, uint32_t handle)
{
    VhcaQp *qp;

    if (handle == VHCA_SPECIAL_QP_HANDLE(2, 0) ||
        handle == VHCA_SPECIAL_QP_HANDLE(2, 1)) {
        qp = vhca_qp_slot(s, 2, handle & 1);
    } else if (handle < VHCA_FIRST_QPN) {
        qp = vhca_qp_slot(s, 1, handle);
    } else {
        qp = vhca_qp_slot(s, 0, handle);
    }
    return qp && qp->valid ? qp : NULL;
}

/* The QP a packet arriving at port for qpn is delivered to, if any. */
VhcaQp *vhca_qp_by_qpn(VhcaState *s, uint8_t port, uint32_t qpn)
{
    VhcaQp *qp = vhca_qp_slot(s, port, qpn);

    if (!qp || !qp->valid || qp->port != port) {
        return NULL;
    }
    return qp;
}

static uint8_t vhca_qp_reject(uint8_t status, const char *why, uint32_t val)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP command: %s (0x%x)\n", why, val);
    trace_vhca_qp_reject(why, val);
    return status;
}

static uint8_t vhca_wq_load(VhcaState *s, VhcaWq *wq,
                            const struct vhca_buf_desc *desc, uint8_t log_size,
                            uint8_t wqe_shift, uint8_t min_shift)
{
    const char *why = NULL;
    uint8_t status;

    if (log_size > VHCA_MAX_LOG_WQ) {
        return vhca_qp_reject(VHCA_CMD_BAD_PARAM, "log_size too big",
                              log_size);
    }
    if (wqe_shift < min_shift || wqe_shift > VHCA_MAX_WQE_SHIFT) {
        return vhca_qp_reject(VHCA_CMD_BAD_PARAM, "wqe_shift out of range",
                              wqe_shift);
    }
    wq->log_size = log_size;
    wq->wqe_shift = wqe_shift;
    status = vhca_buf_load(s, desc, 1ull << (log_size + wqe_shift),
                           vhca_ring_max_pages(1ull << (log_size + wqe_shift)),
                           &wq->buf, &why);
    if (status != VHCA_CMD_OK) {
        return vhca_qp_reject(status, why, le32_to_cpu(desc->npages));
    }
    return VHCA_CMD_OK;
}

/* Static checks of a CREATE_QP input; returns the slot to use or NULL. */
static uint8_t vhca_qp_check_create(VhcaState *s,
                                    const struct vhca_cmd_create_qp *in,
                                    VhcaQp **slot)
{
    bool special = in->type == VHCA_QPT_SMI || in->type == VHCA_QPT_GSI;
    uint32_t i;

    if (in->type < VHCA_QPT_RC || in->type > VHCA_QPT_XRC_TGT) {
        return vhca_qp_reject(VHCA_CMD_BAD_PARAM, "unknown type", in->type);
    }
    if (vhca_qpt_is_xrc(in->type) &&
        ((in->flags & VHCA_QP_F_HAS_SRQ) || in->rq_log_size != 0)) {
        /* IBA A14.2.2: neither XRC half has a receive queue. */
        return vhca_qp_reject(VHCA_CMD_BAD_PARAM, "XRC QP with a receive "
                              "queue or SRQ", in->flags);
    }
    if (in->flags & ~(VHCA_QP_F_SQ_SIG_ALL | VHCA_QP_F_HAS_SRQ)) {
        return vhca_qp_reject(VHCA_CMD_BAD_PARAM, "unknown flags", in->flags);
    }
    if ((in->flags & VHCA_QP_F_HAS_SRQ) &&
        (in->rq_log_size != 0 || special)) {
        return vhca_qp_reject(VHCA_CMD_BAD_PARAM, "SRQ with a receive queue "
                              "or on an SMI/GSI QP", in->rq_log_size);
    }
    if (le32_to_cpu(in->max_inline) > VHCA_MAX_INLINE) {
        return vhca_qp_reject(VHCA_CMD_BAD_PARAM, "max_inline too big",
                              le32_to_cpu(in->max_inline));
    }
    if (le32_to_cpu(in->db_page) >= s->db_pages) {
        return vhca_qp_reject(VHCA_CMD_BAD_PARAM, "no such doorbell page",
                              le32_to_cpu(in->db_page));
    }
    if (special) {
        if (in->port < 1 || in->port > s->num_ports) {
            return vhca_qp_reject(VHCA_CMD_BAD_PARAM, "no such port",
                                  in->port);
        }
        *slot = vhca_qp_slot(s, in->port, in->type == VHCA_QPT_GSI);
        if ((*slot)->valid) {
            return vhca_qp_reject(VHCA_CMD_BUSY, "special QP exists",
                                  in->port);
        }
        return VHCA_CMD_OK;
    }
    if (in->port != 0) {
        return vhca_qp_reject(VHCA_CMD_BAD_PARAM, "port given for a non-"
                              "special QP", in->port);
    }
    for (i = 0; i < VHCA_MAX_QP; i++) {
        if (!s->qps[i].valid) {
            *slot = &s->qps[i];
            return VHCA_CMD_OK;
        }
    }
    return VHCA_CMD_NO_RESOURCES;
}

/* A checked QP into its slot: its QPN (handle), state RESET. */
static void vhca_qp_install(VhcaState *s, VhcaQp *slot, VhcaQp *qp,
                            uint8_t port, uint32_t result[2])
{
    if (qp->type == VHCA_QPT_SMI || qp->type == VHCA_QPT_GSI) {
        qp->special_port = port;
        qp->qpn = qp->type == VHCA_QPT_GSI;
        qp->handle = VHCA_SPECIAL_QP_HANDLE(port, qp->qpn);
    } else {
        qp->qpn = VHCA_FIRST_QPN + (slot - s->qps);
        qp->handle = qp->qpn;
    }
    qp->path_mtu = VHCA_MTU_4096;
    qp->state = VHCA_QPS_RESET;
    qp->valid = true;
    qp->sq_timer = slot->sq_timer;
    qp->dev = s;
    *slot = *qp;
    if (slot->sq.dbrec) {
        vhca_sqpoll_add(s, slot - s->qps);
    }
    result[0] = qp->handle;
    trace_vhca_qp_create(qp->handle, qp->type, qp->pdn, qp->send_cqn,
                         qp->recv_cqn);
}

/*
 * An XRC target QP (IBA A14.2.2): no rings, CQs or PD, only its domain;
 * it receives through the XRC SRQ each request names (vhca-xrc.c).
 */
static uint8_t vhca_qp_create_xrc_tgt(VhcaState *s,
                                      const struct vhca_cmd_create_qp *in,
                                      VhcaQp *slot, uint32_t result[2])
{
    VhcaQp qp = { 0 };

    qp.type = VHCA_QPT_XRC_TGT;
    qp.xrcdn = le32_to_cpu(in->xrcdn);
    qp.flags = VHCA_QP_F_HAS_SRQ;
    qp.srqn = UINT32_MAX;           /* none until the first request */
    qp.db_page = le32_to_cpu(in->db_page);
    if (!vhca_xrcd_hold(s, qp.xrcdn)) {
        return vhca_qp_reject(VHCA_CMD_BAD_HANDLE, "no such XRC domain",
                              qp.xrcdn);
    }
    vhca_qp_install(s, slot, &qp, 0, result);
    return VHCA_CMD_OK;
}

/* in_len VHCA_CMD_CREATE_QP_V0_LEN (a driver of ABI minor 0): no record. */
uint8_t vhca_cmd_create_qp(VhcaState *s, uint64_t in_addr, uint32_t in_len,
                           uint32_t result[2])
{
    struct vhca_cmd_create_qp in;
    const char *why = NULL;
    VhcaQp *slot = NULL;
    VhcaQp qp = { 0 };
    VhcaSrq *srq = NULL;
    VhcaCq *scq, *rcq;
    bool xrc_ini;
    uint8_t status;

    memset(&in, 0, sizeof(in));
    if (vhca_dma_read(s, in_addr, &in, MIN(in_len, sizeof(in))) != MEMTX_OK) {
        return VHCA_CMD_BAD_ADDR;
    }
    status = vhca_qp_check_create(s, &in, &slot);
    if (status != VHCA_CMD_OK) {
        return status;
    }
    if (in.type == VHCA_QPT_XRC_TGT) {
        return vhca_qp_create_xrc_tgt(s, &in, slot, result);
    }
    xrc_ini = in.type == VHCA_QPT_XRC_INI;
    if (!(in.flags & VHCA_QP_F_HAS_SRQ) && !xrc_ini) {
        qp.rq.dbrec = le64_to_cpu(in.rq_dbrec_addr);
        status = vhca_wq_dbrec_check(s, qp.rq.dbrec, &why);
        if (status != VHCA_CMD_OK) {
            return vhca_qp_reject(status, why, (uint32_t)qp.rq.dbrec);
        }
    }
    qp.sq.dbrec = le64_to_cpu(in.sq_dbrec_addr);
    status = vhca_wq_dbrec_check(s, qp.sq.dbrec, &why);
    if (status != VHCA_CMD_OK) {
        return vhca_qp_reject(status, why, (uint32_t)qp.sq.dbrec);
    }
    qp.pdn = le32_to_cpu(in.pdn);
    qp.send_cqn = le32_to_cpu(in.send_cqn);
    qp.recv_cqn = le32_to_cpu(in.recv_cqn);
    scq = vhca_cq_get(s, qp.send_cqn);
    /* IBA A14.2.2: an XRC initiator receives nothing, has no recv CQ. */
    rcq = xrc_ini ? NULL : vhca_cq_get(s, qp.recv_cqn);
    if (!vhca_pd_valid(s, qp.pdn) || !scq || (!rcq && !xrc_ini)) {
        return vhca_qp_reject(VHCA_CMD_BAD_HANDLE, "no such PD or CQ",
                              qp.pdn);
    }
    if (in.flags & VHCA_QP_F_HAS_SRQ) {
        qp.srqn = le32_to_cpu(in.srqn);
        srq = vhca_srq_get(s, qp.srqn);
        if (!srq) {
            return vhca_qp_reject(VHCA_CMD_BAD_HANDLE, "no such SRQ",
                                  qp.srqn);
        }
    }
    status = vhca_wq_load(s, &qp.sq, &in.sq_buf, in.sq_log_size,
                          in.sq_wqe_shift, VHCA_MIN_SQ_WQE_SHIFT);
    if (status == VHCA_CMD_OK && !srq && !xrc_ini) {
        status = vhca_wq_load(s, &qp.rq, &in.rq_buf, in.rq_log_size,
                              in.rq_wqe_shift, VHCA_MIN_RQ_WQE_SHIFT);
    }
    if (status != VHCA_CMD_OK) {
        vhca_buf_free(&qp.sq.buf);
        return status;
    }
    qp.type = in.type;
    qp.flags = in.flags;
    qp.db_page = le32_to_cpu(in.db_page);
    qp.max_inline = le32_to_cpu(in.max_inline);
    vhca_qp_install(s, slot, &qp, in.port, result);
    scq->users++;
    if (rcq) {
        rcq->users++;
    }
    if (srq) {
        srq->users++;
    }
    return VHCA_CMD_OK;
}

uint8_t vhca_cmd_query_qp(VhcaState *s, uint32_t handle, uint64_t out_addr)
{
    VhcaQp *qp = vhca_qp_get(s, handle);
    struct vhca_qp_context ctx;

    if (!qp) {
        return vhca_qp_reject(VHCA_CMD_BAD_HANDLE, "no such QP", handle);
    }
    memset(&ctx, 0, sizeof(ctx));
    ctx.state = qp->state;
    ctx.cur_state = qp->state;
    ctx.path_mtu = qp->path_mtu;
    ctx.port = qp->port;
    ctx.qkey = cpu_to_le32(qp->qkey);
    ctx.rq_psn = cpu_to_le32(qp->rq_psn);
    ctx.sq_psn = cpu_to_le32(qp->sq_psn);
    ctx.dest_qpn = cpu_to_le32(qp->dest_qpn);
    ctx.access_flags = cpu_to_le32(qp->access_flags);
    ctx.pkey_index = cpu_to_le16(qp->pkey_index);
    ctx.max_rd_atomic = qp->max_rd_atomic;
    ctx.max_dest_rd_atomic = qp->max_dest_rd_atomic;
    ctx.min_rnr_timer = qp->min_rnr_timer;
    ctx.timeout = qp->timeout;
    ctx.retry_cnt = qp->retry_cnt;
    ctx.rnr_retry = qp->rnr_retry;
    ctx.sq_draining = 0;
    ctx.en_sqd_async_notify = qp->en_sqd_async_notify;
    ctx.av = qp->av;
    if (vhca_dma_write(s, out_addr, &ctx, sizeof(ctx)) != MEMTX_OK) {
        return VHCA_CMD_BAD_ADDR;
    }
    return VHCA_CMD_OK;
}

uint8_t vhca_cmd_destroy_qp(VhcaState *s, uint32_t handle)
{
    VhcaQp *qp = vhca_qp_get(s, handle);

    if (!qp) {
        return vhca_qp_reject(VHCA_CMD_BAD_HANDLE, "no such QP", handle);
    }
    trace_vhca_qp_destroy(handle);
    vhca_qp_free(s, qp);
    return VHCA_CMD_OK;
}

/* An affiliated asynchronous event (IBA 11.6.3) on EQ 0. */
void vhca_qp_event(VhcaState *s, VhcaQp *qp, uint8_t subtype)
{
    struct vhca_eqe eqe;

    memset(&eqe, 0, sizeof(eqe));
    eqe.type = VHCA_EQE_QP_EVENT;
    eqe.subtype = subtype;
    eqe.data.object.handle = cpu_to_le32(qp->handle);
    trace_vhca_qp_event(qp->handle, subtype);
    vhca_eq0_post(s, &eqe);
}

static void vhca_flush_cqe(VhcaState *s, VhcaQp *qp, uint32_t cqn,
                           uint64_t wr_id, uint8_t opcode, uint32_t index)
{
    struct vhca_cqe cqe;

    memset(&cqe, 0, sizeof(cqe));
    cqe.wr_id = cpu_to_le64(wr_id);
    cqe.qpn = cpu_to_le32(qp->handle);
    cqe.opcode = opcode;
    cqe.status = VHCA_WC_WR_FLUSH_ERR;
    cqe.vendor_err = VHCA_VERR_QP_STATE;
    cqe.wqe_index = cpu_to_le16(index);
    vhca_cq_post(s, cqn, &cqe, false);
}

/* Every posted send WQE completes with WR_FLUSH_ERR (IBA 10.3.1 Error). */
static void vhca_flush_sq(VhcaState *s, VhcaQp *qp)
{
    struct vhca_wqe_ctrl ctrl;
    uint32_t size = 1u << qp->sq.log_size;

    timer_del(qp->sq_timer);
    qp->sq_waiting = false;
    qp->odp_stopped = false;
    qp->odp_error = false;
    while (qp->sq.ci != qp->sq.pi && qp->sq.pi - qp->sq.ci <= size) {
        uint64_t off = (uint64_t)(qp->sq.ci & (size - 1)) << qp->sq.wqe_shift;

        memset(&ctrl, 0, sizeof(ctrl));
        vhca_dma_read(s, vhca_buf_addr(&qp->sq.buf, off), &ctrl, sizeof(ctrl));
        vhca_flush_cqe(s, qp, qp->send_cqn, le64_to_cpu(ctrl.wr_id),
                       vhca_wqe_cqe_opcode(ctrl.opcode), qp->sq.ci);
        qp->sq.ci++;
    }
}

static void vhca_flush_rq(VhcaState *s, VhcaQp *qp)
{
    struct vhca_rwqe_hdr hdr;
    uint32_t size = 1u << qp->rq.log_size;

    if (qp->flags & VHCA_QP_F_HAS_SRQ) {
        return;     /* the SRQ's WQEs stay for its other QPs */
    }
    vhca_wq_read_dbrec(s, &qp->rq, "rq", qp->handle);
    while (qp->rq.ci != qp->rq.pi && qp->rq.pi - qp->rq.ci <= size) {
        uint64_t off = (uint64_t)(qp->rq.ci & (size - 1)) << qp->rq.wqe_shift;

        memset(&hdr, 0, sizeof(hdr));
        vhca_dma_read(s, vhca_buf_addr(&qp->rq.buf, off), &hdr, sizeof(hdr));
        vhca_flush_cqe(s, qp, qp->recv_cqn, le64_to_cpu(hdr.wr_id),
                       VHCA_CQE_RECV, qp->rq.ci);
        qp->rq.ci++;
    }
}

void vhca_qp_flush(VhcaState *s, VhcaQp *qp)
{
    if (qp->state == VHCA_QPS_ERR || qp->state == VHCA_QPS_SQE) {
        vhca_flush_sq(s, qp);
    }
    if (qp->state == VHCA_QPS_ERR) {
        vhca_flush_rq(s, qp);
    }
}

void vhca_qp_to_error(VhcaState *s, VhcaQp *qp)
{
    trace_vhca_qp_modify(qp->handle, qp->state, VHCA_QPS_ERR, 0);
    qp->state = VHCA_QPS_ERR;
    vhca_qp_flush(s, qp);
    if ((qp->flags & VHCA_QP_F_HAS_SRQ) && qp->type != VHCA_QPT_XRC_TGT) {
        /* IBA 11.6.3.1: no more SRQ WQEs will be consumed by this QP (an
         * XRC target is attached to no SRQ, only borrows them). */
        vhca_qp_event(s, qp, VHCA_QP_EV_LAST_WQE_REACHED);
    }
}

/*
 * VHCA_DB_SQ / VHCA_DB_RQ: [23:0] QP handle, [63:32] producer index.  The
 * send queue runs at once, in the doorbell's own thread, for up to
 * VHCA_WQE_BATCH WQEs (Documentation/device-qemu.md "Threading model").  A
 * receive queue with a doorbell record needs no RQ doorbell; its driver
 * rings one only to have WQEs posted in ERR flushed.
 */
void vhca_wq_doorbell(VhcaState *s, uint32_t page, hwaddr offset,
                      uint64_t value)
{
    uint32_t handle = value & VHCA_DB_OBJ_MASK;
    uint32_t pi = value >> 32;
    VhcaQp *qp = vhca_qp_get(s, handle);
    bool send = offset == VHCA_DB_SQ;
    VhcaWq *wq;

    if (!qp || qp->db_page != page || qp->state == VHCA_QPS_RESET ||
        (!send && (qp->flags & VHCA_QP_F_HAS_SRQ)) ||
        (!send && vhca_qpt_is_xrc(qp->type)) ||
        (send && qp->type == VHCA_QPT_XRC_TGT)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: %s doorbell for QP 0x%x on "
                      "page %u ignored (no such QP there, in RESET, or an "
                      "SRQ's)\n",
                      send ? "SQ" : "RQ", handle, page);
        trace_vhca_reject("wq-db", value);
        return;
    }
    wq = send ? &qp->sq : &qp->rq;
    if (pi - wq->ci > (1u << wq->log_size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x %s producer index %u "
                      "more than the ring ahead of %u, ignored\n", handle,
                      send ? "SQ" : "RQ", pi, wq->ci);
        trace_vhca_reject("wq-db-pi", value);
        return;
    }
    wq->pi = pi;
    trace_vhca_wq_doorbell(handle, send, pi);
    if (send) {
        /* A doorbell: the driver saw the poller asleep (or has no send
         * record); the poller watches this QP's record again. */
        vhca_sqpoll_kick(s);
        vhca_sq_produced(s, qp);
    } else if (qp->state == VHCA_QPS_ERR) {
        vhca_qp_flush(s, qp);
    }
}

/* New send WQEs up to qp->sq.pi, from a doorbell or the send record. */
void vhca_sq_produced(VhcaState *s, VhcaQp *qp)
{
    if (qp->state == VHCA_QPS_ERR || qp->state == VHCA_QPS_SQE) {
        vhca_qp_flush(s, qp);
    } else if (qp->state == VHCA_QPS_RTS && !qp->sq_waiting) {
        vhca_sq_process(s, qp, VHCA_WQE_BATCH);
    }
}
