/*
 * vhca - completion queues (Guide 8, IBA 11.4.2).
 *
 * A CQ is a ring of 2^log_size struct vhca_cqe in guest memory (contiguous
 * or a page list) with the owner-bit rule of event queues.  The device
 * writes each CQE's 63 leading bytes, then its owner byte.  Before it
 * declares the ring full it reads the driver's consumer index from the
 * doorbell record; a CQ that is still full overflows: the CQE is lost, the
 * CQ stops (error) and a CQ_ERROR event goes to EQ 0 (IBA 11.6.3.1, CQ
 * overrun is an affiliated asynchronous error).
 *
 * Arming (VHCA_DB_CQ with ARM_NEXT or ARM_SOLICITED, IBA 11.4.2.2): the
 * next matching CQE posts a COMPLETION EQE on the CQ's EQ and disarms.
 * Arming while a matching CQE lies past the doorbell's consumer index
 * fires at once, so the poll-then-arm loop of Guide 8.4 cannot lose one.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "vhca.h"
#include "trace.h"

#define VHCA_CQE_OWNER_OFFSET   offsetof(struct vhca_cqe, owner)

void vhca_cq_init(VhcaState *s)
{
    s->cqs = g_new0(VhcaCq, VHCA_MAX_CQ);
}

void vhca_cq_reset(VhcaState *s)
{
    uint32_t i;

    for (i = 0; i < VHCA_MAX_CQ; i++) {
        vhca_buf_free(&s->cqs[i].buf);
        memset(&s->cqs[i], 0, sizeof(s->cqs[i]));
    }
}

/* Whether a CQ reports to this EQ (DESTROY_EQ is then BUSY). */
bool vhca_cq_uses_eq(VhcaState *s, uint32_t eqn)
{
    uint32_t i;

    for (i = 0; i < VHCA_MAX_CQ; i++) {
        if (s->cqs[i].valid && s->cqs[i].eqn == eqn) {
            return true;
        }
    }
    return false;
}

VhcaCq *vhca_cq_get(VhcaState *s, uint32_t cqn)
{
    if (cqn >= VHCA_MAX_CQ || !s->cqs[cqn].valid) {
        return NULL;
    }
    return &s->cqs[cqn];
}

static uint8_t vhca_cq_reject(uint8_t status, const char *why, uint32_t val)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: CQ command: %s (0x%x)\n", why, val);
    trace_vhca_cq_reject(why, val);
    return status;
}

/* Read and check a create/resize input; fills ring geometry of *cq. */
static uint8_t vhca_cq_load(VhcaState *s, uint64_t in_addr, VhcaCq *cq)
{
    struct vhca_cmd_create_cq in;
    const char *why = NULL;
    uint8_t status;

    if (vhca_dma_read(s, in_addr, &in, sizeof(in)) != MEMTX_OK) {
        return VHCA_CMD_BAD_ADDR;
    }
    cq->log_size = in.log_size;
    cq->eqn = le32_to_cpu(in.eqn);
    cq->db_page = le32_to_cpu(in.db_page);
    cq->dbrec = le64_to_cpu(in.dbrec_addr);
    if (cq->log_size < VHCA_MIN_LOG_CQ || cq->log_size > VHCA_MAX_LOG_CQ) {
        return vhca_cq_reject(VHCA_CMD_BAD_PARAM, "log_size out of range",
                              cq->log_size);
    }
    if (cq->db_page >= s->db_pages) {
        return vhca_cq_reject(VHCA_CMD_BAD_PARAM, "no such doorbell page",
                              cq->db_page);
    }
    if (cq->dbrec == 0 || (cq->dbrec & 7)) {
        return vhca_cq_reject(VHCA_CMD_BAD_PARAM,
                              "dbrec_addr zero or not 8-byte aligned",
                              (uint32_t)cq->dbrec);
    }
    if (!vhca_dma_range_valid(s, cq->dbrec, sizeof(struct vhca_cq_dbrec))) {
        return vhca_cq_reject(VHCA_CMD_BAD_ADDR, "dbrec not in memory",
                              (uint32_t)cq->dbrec);
    }
    if (cq->eqn == 0 || cq->eqn >= VHCA_MAX_EQS || !s->eqs[cq->eqn].valid) {
        return vhca_cq_reject(VHCA_CMD_BAD_HANDLE, "no such completion EQ",
                              cq->eqn);
    }
    status = vhca_buf_load(s, &in.buf,
                           (uint64_t)sizeof(struct vhca_cqe) << cq->log_size,
                           vhca_ring_max_pages(sizeof(struct vhca_cqe)
                                               << cq->log_size),
                           &cq->buf, &why);
    if (status != VHCA_CMD_OK) {
        return vhca_cq_reject(status, why, le32_to_cpu(in.buf.npages));
    }
    return VHCA_CMD_OK;
}

uint8_t vhca_cmd_create_cq(VhcaState *s, uint64_t in_addr, uint32_t result[2])
{
    VhcaCq cq = { 0 };
    uint32_t cqn;
    uint8_t status;

    status = vhca_cq_load(s, in_addr, &cq);
    if (status != VHCA_CMD_OK) {
        return status;
    }
    for (cqn = 0; cqn < VHCA_MAX_CQ; cqn++) {
        if (!s->cqs[cqn].valid) {
            cq.valid = true;
            s->cqs[cqn] = cq;
            result[0] = cqn;
            trace_vhca_cq_create(cqn, cq.log_size, cq.eqn);
            return VHCA_CMD_OK;
        }
    }
    vhca_buf_free(&cq.buf);
    return VHCA_CMD_NO_RESOURCES;
}

/*
 * Take the consumer index of the doorbell record when it is possible with
 * the producer index (a driver's store; a bad one is ignored).
 */
static void vhca_cq_read_dbrec(VhcaState *s, VhcaCq *cq)
{
    struct vhca_cq_dbrec rec;
    uint32_t ci;

    if (vhca_dma_read(s, cq->dbrec, &rec, sizeof(rec)) != MEMTX_OK) {
        return;
    }
    ci = le32_to_cpu(rec.consumer_index);
    if (cq->pi - ci <= (1u << cq->log_size)) {
        cq->ci = ci;
    }
}

/*
 * The CQEs the driver has not consumed (from the consumer index in the old
 * doorbell record to the producer index) move, in order, to the start of
 * the new ring, each with the owner bit of its new slot (Guide 8.2.6: a
 * resize keeps the outstanding completions).
 */
static uint8_t vhca_cq_migrate(VhcaState *s, uint32_t cqn, VhcaCq *old,
                               VhcaCq *next)
{
    uint32_t old_mask = (1u << old->log_size) - 1;
    struct vhca_cqe cqe;
    uint32_t ci, pending, i;
    uint64_t from, to;

    vhca_cq_read_dbrec(s, old);
    ci = old->ci;
    pending = old->pi - ci;
    if (next->db_page != old->db_page) {
        return vhca_cq_reject(VHCA_CMD_BAD_PARAM, "resize to another "
                              "doorbell page", next->db_page);
    }
    if (pending > (1u << next->log_size)) {
        return vhca_cq_reject(VHCA_CMD_BAD_PARAM, "new ring smaller than the "
                              "CQEs not yet consumed", cqn);
    }
    for (i = 0; i < pending; i++) {
        from = vhca_buf_addr(&old->buf, (uint64_t)((ci + i) & old_mask) *
                             sizeof(cqe));
        to = vhca_buf_addr(&next->buf, (uint64_t)i * sizeof(cqe));
        if (vhca_dma_read(s, from, &cqe, sizeof(cqe)) != MEMTX_OK) {
            return vhca_cq_reject(VHCA_CMD_BAD_ADDR, "old ring unreadable",
                                  cqn);
        }
        cqe.owner = vhca_eqe_owner(i, next->log_size);
        if (vhca_dma_write(s, to, &cqe, VHCA_CQE_OWNER_OFFSET) != MEMTX_OK ||
            vhca_dma_write(s, to + VHCA_CQE_OWNER_OFFSET, &cqe.owner, 1)
                != MEMTX_OK) {
            return vhca_cq_reject(VHCA_CMD_BAD_ADDR, "new ring unwritable",
                                  cqn);
        }
    }
    next->pi = pending;
    next->ci = 0;
    next->last_solicited = (int32_t)(old->last_solicited - ci) > 0
                           ? old->last_solicited - ci : 0;
    next->arm = old->arm;
    next->users = old->users;
    next->error = old->error;
    return VHCA_CMD_OK;
}

/*
 * RESIZE_CQ: a new ring (and doorbell record, EQ) for a CQ, in use or not.
 * The driver stops polling the old ring before the command and starts at
 * index 0 of the new one after it (Documentation/device-datapath.md).
 */
uint8_t vhca_cmd_resize_cq(VhcaState *s, uint32_t cqn, uint64_t in_addr)
{
    VhcaCq *cq = vhca_cq_get(s, cqn);
    VhcaCq next = { 0 };
    uint8_t status;

    if (!cq) {
        return vhca_cq_reject(VHCA_CMD_BAD_HANDLE, "no such CQ", cqn);
    }
    status = vhca_cq_load(s, in_addr, &next);
    if (status == VHCA_CMD_OK) {
        status = vhca_cq_migrate(s, cqn, cq, &next);
    }
    if (status != VHCA_CMD_OK) {
        vhca_buf_free(&next.buf);
        return status;
    }
    vhca_buf_free(&cq->buf);
    next.valid = true;
    *cq = next;
    trace_vhca_cq_create(cqn, cq->log_size, cq->eqn);
    return VHCA_CMD_OK;
}

uint8_t vhca_cmd_destroy_cq(VhcaState *s, uint32_t cqn)
{
    VhcaCq *cq = vhca_cq_get(s, cqn);

    if (!cq) {
        return vhca_cq_reject(VHCA_CMD_BAD_HANDLE, "no such CQ", cqn);
    }
    if (cq->users) {
        return vhca_cq_reject(VHCA_CMD_BUSY, "CQ in use by a QP", cqn);
    }
    vhca_buf_free(&cq->buf);
    memset(cq, 0, sizeof(*cq));
    trace_vhca_cq_destroy(cqn);
    return VHCA_CMD_OK;
}

static void vhca_cq_event(VhcaState *s, uint32_t cqn)
{
    VhcaCq *cq = &s->cqs[cqn];
    struct vhca_eqe eqe;

    cq->arm = VHCA_CQ_ARM_NONE;
    memset(&eqe, 0, sizeof(eqe));
    eqe.type = VHCA_EQE_COMPLETION;
    eqe.data.completion.cqn = cpu_to_le32(cqn);
    trace_vhca_cq_event(cqn, cq->eqn);
    if (vhca_eq_post(s, cq->eqn, &eqe) != VHCA_EQ_POSTED) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: completion event of CQ %u lost "
                      "on EQ %u\n", cqn, cq->eqn);
    }
}

/* The CQ stops; IB_EVENT_CQ_ERR on EQ 0. */
static void vhca_cq_fail(VhcaState *s, uint32_t cqn, const char *why)
{
    struct vhca_eqe eqe;

    qemu_log_mask(LOG_GUEST_ERROR, "vhca: CQ %u error: %s\n", cqn, why);
    trace_vhca_cq_reject(why, cqn);
    s->cqs[cqn].error = true;
    memset(&eqe, 0, sizeof(eqe));
    eqe.type = VHCA_EQE_CQ_ERROR;
    eqe.data.object.handle = cpu_to_le32(cqn);
    vhca_eq0_post(s, &eqe);
}

/* Full unless the doorbell record says the driver has consumed more. */
static bool vhca_cq_full(VhcaState *s, VhcaCq *cq)
{
    uint32_t size = 1u << cq->log_size;

    if (cq->pi - cq->ci < size) {
        return false;
    }
    vhca_cq_read_dbrec(s, cq);
    return cq->pi - cq->ci >= size;
}

/*
 * Write one CQE (the caller fills everything but the owner byte).  A
 * solicited CQE, or an error CQE, also satisfies an ARM_SOLICITED.
 */
void vhca_cq_post(VhcaState *s, uint32_t cqn, struct vhca_cqe *cqe,
                  bool solicited)
{
    VhcaCq *cq = vhca_cq_get(s, cqn);
    uint64_t addr;
    bool wakes;

    if (!cq || cq->error) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: CQE for CQ %u dropped (CQ "
                      "missing or in error)\n", cqn);
        trace_vhca_cq_reject("cqe-dropped", cqn);
        return;
    }
    if (vhca_cq_full(s, cq)) {
        vhca_cq_fail(s, cqn, "overrun");
        return;
    }
    solicited = solicited || cqe->status != VHCA_WC_SUCCESS;
    cqe->timestamp = cpu_to_le64(vhca_clock_ns());
    cqe->owner = vhca_eqe_owner(cq->pi, cq->log_size);
    addr = vhca_buf_addr(&cq->buf, (uint64_t)(cq->pi &
                         ((1u << cq->log_size) - 1)) * sizeof(*cqe));
    if (vhca_dma_write(s, addr, cqe, VHCA_CQE_OWNER_OFFSET) != MEMTX_OK ||
        vhca_dma_write(s, addr + VHCA_CQE_OWNER_OFFSET, &cqe->owner, 1)
            != MEMTX_OK) {
        vhca_cq_fail(s, cqn, "ring not writable");
        return;
    }
    trace_vhca_cq_post(cqn, cq->pi, cqe->opcode, cqe->status,
                       le32_to_cpu(cqe->qpn));
    cq->pi++;
    if (solicited) {
        cq->last_solicited = cq->pi;
    }
    wakes = cq->arm == VHCA_CQ_ARM_NEXT ||
            (cq->arm == VHCA_CQ_ARM_SOLICITED && solicited);
    if (wakes) {
        vhca_cq_event(s, cqn);
    }
}

/* VHCA_DB_CQ: [23:0] cqn, [25:24] arm, [63:32] consumer index. */
void vhca_cq_doorbell(VhcaState *s, uint32_t page, uint64_t value)
{
    uint32_t cqn = value & VHCA_DB_OBJ_MASK;
    uint32_t ci = value >> 32;
    VhcaCq *cq = vhca_cq_get(s, cqn);
    uint32_t size;

    if (!cq || cq->db_page != page) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: CQ doorbell for CQ %u on page "
                      "%u ignored (no such CQ on that page)\n", cqn, page);
        trace_vhca_reject("cq-db", value);
        return;
    }
    size = 1u << cq->log_size;
    if (cq->pi - ci > size) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: CQ %u consumer index %u "
                      "impossible with producer index %u\n", cqn, ci, cq->pi);
        trace_vhca_reject("cq-db-ci", value);
        return;
    }
    cq->ci = ci;
    trace_vhca_cq_doorbell(cqn, ci, (value >> 24) & 3);
    if (value & VHCA_DB_CQ_ARM_NEXT) {
        if (cq->pi != ci) {
            vhca_cq_event(s, cqn);
        } else {
            cq->arm = VHCA_CQ_ARM_NEXT;
        }
    } else if (value & VHCA_DB_CQ_ARM_SOLICITED) {
        if ((int32_t)(cq->last_solicited - ci) > 0) {
            vhca_cq_event(s, cqn);
        } else {
            cq->arm = VHCA_CQ_ARM_SOLICITED;
        }
    }
}
