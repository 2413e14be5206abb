/*
 * vhca - shared receive queues (IBA 10.2.9, 11.2.3; Guide 7).
 *
 * An SRQ is a receive work queue in guest memory that QPs created with
 * VHCA_QP_F_HAS_SRQ (and the same PD) take their receive WQEs from; their
 * receive completions still go to each QP's receive CQ.  The limit event
 * (IBA 11.2.3.2): when MODIFY_SRQ armed a limit and the number of posted
 * WQEs falls below it, SRQ_EVENT LIMIT_REACHED goes to EQ 0 and the limit
 * is disarmed (0) until armed again.  RESIZE_SRQ moves an SRQ, in use or
 * not, to a new ring with the WQEs not yet consumed.
 *
 * Also here: the receive doorbell records of SRQs and QP receive queues
 * (vhca_hw_verbs.h "Receive doorbell records"), read when a receive queue
 * looks empty.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "vhca.h"
#include "trace.h"

void vhca_srq_init(VhcaState *s)
{
    s->srqs = g_new0(VhcaSrq, VHCA_MAX_SRQ);
}

void vhca_srq_reset(VhcaState *s)
{
    uint32_t i;

    for (i = 0; i < VHCA_MAX_SRQ; i++) {
        vhca_buf_free(&s->srqs[i].wq.buf);
        vhca_tm_free(&s->srqs[i]);
        memset(&s->srqs[i], 0, sizeof(s->srqs[i]));
    }
}

VhcaSrq *vhca_srq_get(VhcaState *s, uint32_t srqn)
{
    if (srqn >= VHCA_MAX_SRQ || !s->srqs[srqn].valid) {
        return NULL;
    }
    return &s->srqs[srqn];
}

static uint8_t vhca_srq_reject(uint8_t status, const char *why, uint32_t val)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: SRQ command: %s (0x%x)\n", why,
                  val);
    trace_vhca_srq_reject(why, val);
    return status;
}

/* VHCA_SRQ_F_XRC (IBA A14.2.3): the domain and the CQ must exist;
 * VHCA_SRQ_F_TM: the CQ of its list operations must. */
static uint8_t vhca_srq_check_xrc(VhcaState *s,
                                  const struct vhca_cmd_create_srq *in,
                                  VhcaSrq *srq)
{
    if ((in->flags & ~(VHCA_SRQ_F_XRC | VHCA_SRQ_F_TM)) ||
        (in->flags & VHCA_SRQ_F_XRC && in->flags & VHCA_SRQ_F_TM)) {
        return vhca_srq_reject(VHCA_CMD_BAD_PARAM, "unknown flags", in->flags);
    }
    if (in->flags & VHCA_SRQ_F_TM) {
        srq->cqn = le32_to_cpu(in->cqn);
        return vhca_cq_get(s, srq->cqn) ? VHCA_CMD_OK :
               vhca_srq_reject(VHCA_CMD_BAD_HANDLE, "no such CQ", srq->cqn);
    }
    if (!(in->flags & VHCA_SRQ_F_XRC)) {
        return VHCA_CMD_OK;
    }
    srq->xrc = true;
    srq->xrcdn = le32_to_cpu(in->xrcdn);
    srq->cqn = le32_to_cpu(in->cqn);
    if (!vhca_xrcd_valid(s, srq->xrcdn)) {
        return vhca_srq_reject(VHCA_CMD_BAD_HANDLE, "no such XRC domain",
                               srq->xrcdn);
    }
    if (!vhca_cq_get(s, srq->cqn)) {
        return vhca_srq_reject(VHCA_CMD_BAD_HANDLE, "no such CQ", srq->cqn);
    }
    return VHCA_CMD_OK;
}

uint8_t vhca_cmd_create_srq(VhcaState *s, uint64_t in_addr, uint32_t in_len,
                            uint32_t result[2])
{
    struct vhca_cmd_create_srq in;
    VhcaSrq srq = { 0 };
    const char *why = NULL;
    uint64_t bytes;
    uint8_t status;
    uint32_t srqn;

    if (vhca_dma_read(s, in_addr, &in, sizeof(in)) != MEMTX_OK) {
        return VHCA_CMD_BAD_ADDR;
    }
    srq.pdn = le32_to_cpu(in.pdn);
    srq.db_page = le32_to_cpu(in.db_page);
    srq.limit = le32_to_cpu(in.limit);
    srq.wq.log_size = in.log_size;
    srq.wq.wqe_shift = in.wqe_shift;
    srq.wq.dbrec = le64_to_cpu(in.dbrec_addr);
    if (in.log_size > VHCA_MAX_LOG_WQ || in.wqe_shift < VHCA_MIN_RQ_WQE_SHIFT ||
        in.wqe_shift > VHCA_MAX_WQE_SHIFT) {
        return vhca_srq_reject(VHCA_CMD_BAD_PARAM, "log_size or wqe_shift "
                               "out of range", in.log_size);
    }
    if (srq.db_page >= s->db_pages || srq.limit > (1u << in.log_size)) {
        return vhca_srq_reject(VHCA_CMD_BAD_PARAM, "db_page or limit out of "
                               "range", srq.limit);
    }
    if (!vhca_pd_valid(s, srq.pdn)) {
        return vhca_srq_reject(VHCA_CMD_BAD_HANDLE, "no such PD", srq.pdn);
    }
    status = vhca_srq_check_xrc(s, &in, &srq);
    if (status != VHCA_CMD_OK) {
        return status;
    }
    status = vhca_wq_dbrec_check(s, srq.wq.dbrec, &why);
    if (status != VHCA_CMD_OK) {
        return vhca_srq_reject(status, why, (uint32_t)srq.wq.dbrec);
    }
    bytes = 1ull << (in.log_size + in.wqe_shift);
    status = vhca_buf_load(s, &in.buf, bytes, vhca_ring_max_pages(bytes),
                           &srq.wq.buf, &why);
    if (status != VHCA_CMD_OK) {
        return vhca_srq_reject(status, why, le32_to_cpu(in.buf.npages));
    }
    if (in.flags & VHCA_SRQ_F_TM) {
        status = vhca_tm_create(s, in_addr, in_len, &srq, &why);
        if (status != VHCA_CMD_OK) {
            vhca_buf_free(&srq.wq.buf);
            return vhca_srq_reject(status, why, in_len);
        }
    }
    for (srqn = 0; srqn < VHCA_MAX_SRQ; srqn++) {
        if (!s->srqs[srqn].valid) {
            if (srq.xrc) {
                vhca_xrcd_hold(s, srq.xrcdn);
            }
            if (srq.xrc || srq.tm) {
                vhca_cq_get(s, srq.cqn)->users++;
            }
            srq.valid = true;
            s->srqs[srqn] = srq;
            vhca_tm_created(&s->srqs[srqn], srqn);
            result[0] = srqn;
            trace_vhca_srq_create(srqn, in.log_size, srq.pdn);
            return VHCA_CMD_OK;
        }
    }
    vhca_buf_free(&srq.wq.buf);
    vhca_tm_free(&srq);
    return VHCA_CMD_NO_RESOURCES;
}

uint8_t vhca_cmd_modify_srq(VhcaState *s,
                            const struct vhca_cmd_srq_limit_in *in)
{
    uint32_t srqn = le32_to_cpu(in->srqn);
    uint32_t limit = le32_to_cpu(in->limit);
    VhcaSrq *srq = vhca_srq_get(s, srqn);

    if (!srq) {
        return vhca_srq_reject(VHCA_CMD_BAD_HANDLE, "no such SRQ", srqn);
    }
    if (limit > (1u << srq->wq.log_size)) {
        return vhca_srq_reject(VHCA_CMD_BAD_PARAM, "limit above the size",
                               limit);
    }
    srq->limit = limit;
    vhca_srq_check_limit(s, srqn);
    return VHCA_CMD_OK;
}

/* RESIZE_SRQ: everything but the new ring must be the SRQ's (vhca_hw_verbs.h). */
static uint8_t vhca_srq_check_resize(VhcaState *s, const VhcaSrq *srq,
                                     const struct vhca_cmd_create_srq *in)
{
    static const uint8_t zero[sizeof(in->rsvd)];
    uint8_t flags = (srq->xrc ? VHCA_SRQ_F_XRC : 0);
    const char *why = NULL;
    uint8_t status;

    if (srq->tm) {
        return vhca_srq_reject(VHCA_CMD_BAD_PARAM, "resize of a tag matching "
                               "SRQ", 0);
    }
    if (in->log_size > VHCA_MAX_LOG_WQ || in->wqe_shift != srq->wq.wqe_shift) {
        return vhca_srq_reject(VHCA_CMD_BAD_PARAM, "resize: log_size out of "
                               "range or another wqe_shift", in->log_size);
    }
    if (le32_to_cpu(in->pdn) != srq->pdn ||
        le32_to_cpu(in->db_page) != srq->db_page || in->flags != flags ||
        (srq->xrc && (le32_to_cpu(in->xrcdn) != srq->xrcdn ||
                      le32_to_cpu(in->cqn) != srq->cqn))) {
        return vhca_srq_reject(VHCA_CMD_BAD_PARAM, "resize: PD, doorbell page, "
                               "flags or XRC fields not the SRQ's",
                               le32_to_cpu(in->pdn));
    }
    if (in->limit || in->rsvd0 || memcmp(in->rsvd, zero, sizeof(zero)) ||
        (!srq->xrc && (in->xrcdn || in->cqn))) {
        return vhca_srq_reject(VHCA_CMD_BAD_PARAM, "resize: limit or reserved "
                               "field not zero", le32_to_cpu(in->limit));
    }
    status = vhca_wq_dbrec_check(s, le64_to_cpu(in->dbrec_addr), &why);
    if (status != VHCA_CMD_OK) {
        return vhca_srq_reject(status, why, (uint32_t)in->dbrec_addr);
    }
    return VHCA_CMD_OK;
}

/*
 * The WQEs not yet consumed, [ci, pi), to the same indexes of the new ring
 * (index i in slot i mod its size): the counters go on unchanged, so they
 * are consumed in the order they were posted (IBA 11.2.3.3: a resize
 * keeps the outstanding WRs).  An armed limit stays below the new size:
 * it is at most the WQEs waiting, or the event would have fired.
 */
static uint8_t vhca_srq_copy_wqes(VhcaState *s, uint32_t srqn,
                                  const VhcaWq *old, VhcaWq *next)
{
    uint32_t old_mask = (1u << old->log_size) - 1;
    uint32_t new_mask = (1u << next->log_size) - 1;
    uint32_t stride = 1u << old->wqe_shift;
    g_autofree uint8_t *wqe = g_malloc(stride);
    uint32_t i;

    if (old->pi - old->ci > (1u << next->log_size)) {
        return vhca_srq_reject(VHCA_CMD_BAD_PARAM, "resize: new ring smaller "
                               "than the WQEs not yet consumed",
                               old->pi - old->ci);
    }
    for (i = old->ci; i != old->pi; i++) {
        uint64_t from = vhca_buf_addr(&old->buf, (uint64_t)(i & old_mask)
                                      << old->wqe_shift);
        uint64_t to = vhca_buf_addr(&next->buf, (uint64_t)(i & new_mask)
                                    << old->wqe_shift);

        if (vhca_dma_read(s, from, wqe, stride) != MEMTX_OK) {
            return vhca_srq_reject(VHCA_CMD_BAD_ADDR, "resize: old ring "
                                   "unreadable", srqn);
        }
        if (vhca_dma_write(s, to, wqe, stride) != MEMTX_OK) {
            return vhca_srq_reject(VHCA_CMD_BAD_ADDR, "resize: new ring "
                                   "unwritable", srqn);
        }
    }
    next->pi = old->pi;
    next->ci = old->ci;
    return VHCA_CMD_OK;
}

/*
 * A record value behind the producer index just taken is the poster's
 * before it published what it posted during the command (a kernel SRQ
 * copies those WQEs after it): not an error to log.
 */
static void vhca_srq_note_stale_record(VhcaState *s, VhcaWq *wq)
{
    struct vhca_wq_dbrec rec;
    uint32_t pi;

    if (!wq->dbrec ||
        vhca_dma_read(s, wq->dbrec, &rec, sizeof(rec)) != MEMTX_OK) {
        return;
    }
    pi = le32_to_cpu(rec.producer_index);
    if (pi != wq->pi && wq->pi - pi <= (1u << wq->log_size)) {
        wq->dbrec_bad = true;
        wq->dbrec_bad_pi = pi;
    }
}

uint8_t vhca_cmd_resize_srq(VhcaState *s, uint32_t srqn, uint64_t in_addr,
                            uint32_t result[2])
{
    VhcaSrq *srq = vhca_srq_get(s, srqn);
    struct vhca_cmd_create_srq in;
    VhcaWq next = { 0 };
    const char *why = NULL;
    uint64_t bytes;
    uint8_t status;

    if (!srq) {
        return vhca_srq_reject(VHCA_CMD_BAD_HANDLE, "no such SRQ", srqn);
    }
    if (vhca_dma_read(s, in_addr, &in, sizeof(in)) != MEMTX_OK) {
        return VHCA_CMD_BAD_ADDR;
    }
    status = vhca_srq_check_resize(s, srq, &in);
    if (status != VHCA_CMD_OK) {
        return status;
    }
    next.log_size = in.log_size;
    next.wqe_shift = in.wqe_shift;
    next.dbrec = le64_to_cpu(in.dbrec_addr);
    bytes = 1ull << (in.log_size + in.wqe_shift);
    status = vhca_buf_load(s, &in.buf, bytes, vhca_ring_max_pages(bytes),
                           &next.buf, &why);
    if (status != VHCA_CMD_OK) {
        return vhca_srq_reject(status, why, le32_to_cpu(in.buf.npages));
    }
    /* Every WQE the old record announces moves. */
    vhca_wq_read_dbrec(s, &srq->wq, "srq", srqn);
    status = vhca_srq_copy_wqes(s, srqn, &srq->wq, &next);
    if (status != VHCA_CMD_OK) {
        vhca_buf_free(&next.buf);
        return status;
    }
    vhca_srq_note_stale_record(s, &next);
    vhca_buf_free(&srq->wq.buf);
    srq->wq = next;
    result[0] = next.pi;
    trace_vhca_srq_resize(srqn, next.log_size, next.pi - next.ci);
    return VHCA_CMD_OK;
}

uint8_t vhca_cmd_query_srq(VhcaState *s, uint32_t srqn, uint32_t result[2])
{
    VhcaSrq *srq = vhca_srq_get(s, srqn);

    if (!srq) {
        return vhca_srq_reject(VHCA_CMD_BAD_HANDLE, "no such SRQ", srqn);
    }
    result[0] = srq->limit;
    return VHCA_CMD_OK;
}

uint8_t vhca_cmd_destroy_srq(VhcaState *s, uint32_t srqn)
{
    VhcaSrq *srq = vhca_srq_get(s, srqn);

    if (!srq) {
        return vhca_srq_reject(VHCA_CMD_BAD_HANDLE, "no such SRQ", srqn);
    }
    if (srq->users) {
        return vhca_srq_reject(VHCA_CMD_BUSY, "SRQ in use by a QP", srqn);
    }
    if (srq->xrc || srq->tm) {
        VhcaCq *cq = vhca_cq_get(s, srq->cqn);

        if (cq && cq->users) {
            cq->users--;
        }
    }
    if (srq->xrc) {
        vhca_xrcd_release(s, srq->xrcdn);
    }
    vhca_buf_free(&srq->wq.buf);
    vhca_tm_free(srq);
    memset(srq, 0, sizeof(*srq));
    trace_vhca_srq_destroy(srqn);
    return VHCA_CMD_OK;
}

/* IBA 11.2.3.2: fewer WQEs than the armed limit -> one event, disarm. */
void vhca_srq_check_limit(VhcaState *s, uint32_t srqn)
{
    VhcaSrq *srq = &s->srqs[srqn];
    struct vhca_eqe eqe;

    if (!srq->limit || srq->wq.pi - srq->wq.ci >= srq->limit) {
        return;
    }
    /* Posted WQEs the record announces count too. */
    vhca_wq_read_dbrec(s, &srq->wq, "srq", srqn);
    if (srq->wq.pi - srq->wq.ci >= srq->limit) {
        return;
    }
    srq->limit = 0;
    memset(&eqe, 0, sizeof(eqe));
    eqe.type = VHCA_EQE_SRQ_EVENT;
    eqe.subtype = VHCA_SRQ_EV_LIMIT_REACHED;
    eqe.data.object.handle = cpu_to_le32(srqn);
    trace_vhca_srq_limit(srqn);
    vhca_eq0_post(s, &eqe);
}

/* VHCA_DB_SRQ: [23:0] srqn, [63:32] producer index (of the operation
 * ring of a TM SRQ with VHCA_DB_SRQ_TM_OPS). */
void vhca_srq_doorbell(VhcaState *s, uint32_t page, uint64_t value)
{
    uint32_t srqn = value & VHCA_DB_OBJ_MASK;
    uint32_t pi = value >> 32;
    VhcaSrq *srq = vhca_srq_get(s, srqn);

    if (srq && srq->db_page == page && (value & VHCA_DB_SRQ_TM_OPS)) {
        vhca_tm_doorbell(s, srqn, pi);
        return;
    }
    if (!srq || srq->db_page != page ||
        pi - srq->wq.ci > (1u << srq->wq.log_size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: SRQ doorbell for SRQ %u on "
                      "page %u with producer index %u ignored\n", srqn, page,
                      pi);
        trace_vhca_reject("srq-db", value);
        return;
    }
    srq->wq.pi = pi;
}

/* The queue a QP takes receive WQEs from: its own, or its SRQ's. */
VhcaWq *vhca_qp_recv_wq(VhcaState *s, VhcaQp *qp)
{
    VhcaSrq *srq;

    if (!(qp->flags & VHCA_QP_F_HAS_SRQ)) {
        return &qp->rq;
    }
    srq = vhca_srq_get(s, qp->srqn);
    return srq ? &srq->wq : NULL;
}

/* CREATE_QP/CREATE_SRQ: a record is optional (0); if given, 8-byte
 * aligned and in guest memory, as the CQ's. */
uint8_t vhca_wq_dbrec_check(VhcaState *s, uint64_t addr, const char **why)
{
    if (addr == 0) {
        return VHCA_CMD_OK;
    }
    if (addr & 7) {
        *why = "doorbell record not 8-byte aligned";
        return VHCA_CMD_BAD_PARAM;
    }
    if (!vhca_dma_range_valid(s, addr, sizeof(struct vhca_wq_dbrec))) {
        *why = "doorbell record not in memory";
        return VHCA_CMD_BAD_ADDR;
    }
    return VHCA_CMD_OK;
}

/*
 * Take the producer index the driver stored in the record, when it is
 * possible: not behind the one the device has (a stale record, e.g. not
 * zeroed after RESET) and at most the ring size ahead of the consumer
 * index.  Otherwise it is ignored, as a bad doorbell is.  The DMA read
 * is ordered before the reads of the WQEs it announces: every
 * pci_dma_read starts with a full barrier (dma_barrier() in QEMU 7.2),
 * the pair of the driver's dma_wmb() between its WQE and record writes.
 */
void vhca_wq_read_dbrec(VhcaState *s, VhcaWq *wq, const char *kind,
                        uint32_t handle)
{
    struct vhca_wq_dbrec rec;
    uint32_t pi;

    if (!wq->dbrec) {
        return;
    }
    if (vhca_dma_read(s, wq->dbrec, &rec, sizeof(rec)) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: %s 0x%x doorbell record at "
                      "0x%" PRIx64 " not readable\n", kind, handle,
                      wq->dbrec);
        trace_vhca_wq_dbrec_reject(kind, handle, "record not readable", 0);
        return;
    }
    pi = le32_to_cpu(rec.producer_index);
    /* A value already refused is not logged again: a polled send record
     * is read thousands of times a second (vhca-sqpoll.c). */
    if (pi == wq->pi || (wq->dbrec_bad && pi == wq->dbrec_bad_pi)) {
        return;
    }
    if (pi - wq->ci > (1u << wq->log_size) || pi - wq->ci < wq->pi - wq->ci) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: %s 0x%x doorbell record "
                      "producer index %u impossible (pi %u ci %u), "
                      "ignored\n", kind, handle, pi, wq->pi, wq->ci);
        trace_vhca_wq_dbrec_reject(kind, handle, "producer index impossible",
                                   pi);
        wq->dbrec_bad = true;
        wq->dbrec_bad_pi = pi;
        return;
    }
    wq->pi = pi;
    trace_vhca_wq_dbrec(kind, handle, pi);
}

VhcaWq *vhca_qp_recv_wq_fresh(VhcaState *s, VhcaQp *qp)
{
    VhcaWq *wq = vhca_qp_recv_wq(s, qp);

    if (wq && wq->ci == wq->pi) {
        if (qp->flags & VHCA_QP_F_HAS_SRQ) {
            vhca_wq_read_dbrec(s, wq, "srq", qp->srqn);
        } else {
            vhca_wq_read_dbrec(s, wq, "rq", qp->handle);
        }
    }
    return wq;
}
