/*
 * vhca - tag matching SRQs (uapi/vhca_hw_tm.h), mlx5's TM SRQ in spirit:
 * the tag list the device owns, the list operations software posts to the
 * SRQ's operation ring, and the matching of incoming SENDs' tag matching
 * headers against the list (eager data to the entry's buffer, rendezvous
 * by an RDMA READ of the device, unexpected and untagged messages to the
 * SRQ's ordinary receive WQEs).  Phase synchronization: ADD is refused
 * while software has not handled every unexpected message.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "vhca-tm.h"
#include "trace.h"

static uint8_t vhca_tm_refuse(const char **why, const char *what)
{
    *why = what;
    return VHCA_CMD_BAD_PARAM;
}

uint8_t vhca_tm_create(VhcaState *s, uint64_t in_addr, uint32_t in_len,
                       VhcaSrq *srq, const char **why)
{
    struct vhca_cmd_create_srq_tm in;
    VhcaTm *tm;
    uint64_t bytes;
    uint8_t status;

    if (!s->tag_matching) {
        return vhca_tm_refuse(why, "tag matching is off (tag-matching=off)");
    }
    if (in_len < VHCA_CMD_CREATE_SRQ_TM_LEN) {
        *why = "TM SRQ: in_len below 128";
        return VHCA_CMD_BAD_SIZE;
    }
    if (vhca_dma_read(s, in_addr + sizeof(struct vhca_cmd_create_srq), &in,
                      sizeof(in)) != MEMTX_OK) {
        *why = "TM SRQ input unreadable";
        return VHCA_CMD_BAD_ADDR;
    }
    if (le32_to_cpu(in.max_num_tags) == 0 ||
        le32_to_cpu(in.max_num_tags) > VHCA_TM_MAX_TAGS ||
        in.ops_log_size > VHCA_TM_MAX_LOG_OPS) {
        return vhca_tm_refuse(why, "max_num_tags or ops_log_size out of range");
    }
    tm = g_new0(VhcaTm, 1);
    tm->max_tags = le32_to_cpu(in.max_num_tags);
    tm->ops.log_size = in.ops_log_size;
    tm->ops.wqe_shift = VHCA_TM_OP_SHIFT;
    bytes = 1ull << (in.ops_log_size + VHCA_TM_OP_SHIFT);
    status = vhca_buf_load(s, &in.ops_buf, bytes, vhca_ring_max_pages(bytes),
                           &tm->ops.buf, why);
    if (status != VHCA_CMD_OK) {
        g_free(tm);
        return status;
    }
    tm->entries = g_new0(VhcaTmEntry, tm->max_tags);
    tm->dev = s;
    tm->bh = qemu_bh_new(vhca_tm_rndv_bh, tm);
    srq->tm = tm;
    return VHCA_CMD_OK;
}

void vhca_tm_created(VhcaSrq *srq, uint32_t srqn)
{
    if (srq->tm) {
        srq->tm->srq = srq;
        srq->tm->srqn = srqn;
    }
}

void vhca_tm_free(VhcaSrq *srq)
{
    if (srq->tm) {
        qemu_bh_delete(srq->tm->bh);
        vhca_buf_free(&srq->tm->ops.buf);
        g_free(srq->tm->entries);
        g_free(srq->tm);
        srq->tm = NULL;
    }
}

VhcaSrq *vhca_tm_srq_of(VhcaState *s, VhcaQp *qp)
{
    VhcaSrq *srq;

    if (!(qp->flags & VHCA_QP_F_HAS_SRQ) || qp->type != VHCA_QPT_RC) {
        return NULL;
    }
    srq = vhca_srq_get(s, qp->srqn);
    return srq && srq->tm ? srq : NULL;
}

/* ---- list operations ----------------------------------------------------- */

typedef struct VhcaTmOpDone {
    uint8_t status;
    uint8_t verr;
    uint8_t tm_flags;
} VhcaTmOpDone;

static void vhca_tm_op_complete(VhcaState *s, uint32_t srqn, VhcaSrq *srq,
                                const struct vhca_tm_op *op, uint32_t index,
                                uint8_t opcode, const VhcaTmOpDone *d)
{
    VhcaTm *tm = srq->tm;
    struct vhca_cqe cqe;

    memset(&cqe, 0, sizeof(cqe));
    cqe.wr_id = op->wr_id;              /* little-endian as given */
    cqe.opcode = opcode;
    cqe.status = d->status;
    cqe.vendor_err = d->verr;
    cqe.srqn = cpu_to_le32(srqn);
    cqe.wqe_index = cpu_to_le16(index);
    cqe.tm_handle = cpu_to_le16(le32_to_cpu(op->handle));
    cqe.tm_flags = d->tm_flags;
    if (op->flags & VHCA_TM_OP_F_SIGNALED) {
        cqe.tm_flags |= VHCA_CQE_TM_F_SIGNALED;
    }
    if (tm->sw_unexp != tm->hw_unexp) {
        cqe.tm_flags |= VHCA_CQE_TM_F_SYNC_REQ;
    }
    trace_vhca_tm_op(srqn, index, opcode, le32_to_cpu(op->handle), d->status);
    vhca_cq_post(s, srq->cqn, &cqe, false);
}

static uint8_t vhca_tm_op_reject(uint32_t srqn, const char *why, uint32_t val,
                                 VhcaTmOpDone *d)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: TM SRQ %u operation refused: %s "
                  "(0x%x)\n", srqn, why, val);
    trace_vhca_tm_op_reject(srqn, why, val);
    d->status = VHCA_WC_TM_ERR;
    return d->status;
}

/* ADD: the entry must be free, its buffer writable by the SRQ's PD, and
 * software in phase with the device (vhca_hw_tm.h). */
static void vhca_tm_add(VhcaState *s, uint32_t srqn, VhcaSrq *srq,
                        const struct vhca_tm_op *op, VhcaTmOpDone *d)
{
    VhcaTm *tm = srq->tm;
    uint32_t handle = le32_to_cpu(op->handle);
    VhcaTmEntry *e = &tm->entries[handle];
    VhcaSgl sgl;

    d->tm_flags = VHCA_CQE_TM_F_FREED;      /* unless it is taken below */
    if (e->valid || e->rndv) {
        d->tm_flags = 0;
        vhca_tm_op_reject(srqn, "ADD of an entry in use", handle, d);
        return;
    }
    if (op->num_sge > VHCA_TM_MAX_SGE) {
        vhca_tm_op_reject(srqn, "ADD with too many SGEs", op->num_sge, d);
        d->verr = VHCA_VERR_BAD_WQE;
        return;
    }
    if (tm->sw_unexp != tm->hw_unexp) {
        trace_vhca_tm_out_of_phase(srqn, tm->sw_unexp, tm->hw_unexp);
        d->status = VHCA_WC_TM_ERR;
        return;
    }
    memset(e, 0, sizeof(*e));
    e->num_sge = op->num_sge;
    e->sge.addr = le64_to_cpu(op->sge.addr);
    e->sge.length = le32_to_cpu(op->sge.length);
    e->sge.lkey = le32_to_cpu(op->sge.lkey);
    d->verr = vhca_sgl_from_sges(s, srq->pdn, srq->db_page == 0, &e->sge,
                                 e->num_sge, VHCA_ACCESS_LOCAL_WRITE, &sgl);
    if (d->verr != VHCA_VERR_NONE) {
        vhca_tm_op_reject(srqn, "ADD buffer not writable by the SRQ's PD",
                          e->sge.lkey, d);
        d->status = VHCA_WC_LOC_PROT_ERR;
        return;
    }
    e->valid = true;
    e->seq = tm->next_seq++;
    e->tag = le64_to_cpu(op->tag);
    e->mask = le64_to_cpu(op->mask);
    e->recv_wr_id = le64_to_cpu(op->recv_wr_id);
    d->tm_flags = 0;
}

/* DEL: fails (TM_ERR) when a message took the entry first. */
static void vhca_tm_del(VhcaTm *tm, uint32_t handle, VhcaTmOpDone *d)
{
    if (!tm->entries[handle].valid) {
        /* already matched (or a READ runs into its buffer) */
        d->status = VHCA_WC_TM_ERR;
        return;
    }
    tm->entries[handle].valid = false;
    d->tm_flags = VHCA_CQE_TM_F_FREED;
}

static void vhca_tm_op_execute(VhcaState *s, uint32_t srqn, VhcaSrq *srq,
                               const struct vhca_tm_op *op, uint32_t index)
{
    VhcaTm *tm = srq->tm;
    uint32_t handle = le32_to_cpu(op->handle);
    VhcaTmOpDone d = { .status = VHCA_WC_SUCCESS };
    uint8_t opcode = op->opcode == VHCA_TM_OP_ADD ? VHCA_CQE_TM_ADD :
                     op->opcode == VHCA_TM_OP_DEL ? VHCA_CQE_TM_DEL :
                     VHCA_CQE_TM_SYNC;

    if (op->opcode < VHCA_TM_OP_ADD || op->opcode > VHCA_TM_OP_SYNC) {
        vhca_tm_op_reject(srqn, "unknown opcode", op->opcode, &d);
        d.verr = VHCA_VERR_BAD_WQE;
    } else if (op->opcode != VHCA_TM_OP_SYNC && handle >= tm->max_tags) {
        vhca_tm_op_reject(srqn, "tag handle out of range", handle, &d);
        d.verr = VHCA_VERR_BAD_WQE;
    } else {
        if (op->flags & VHCA_TM_OP_F_SYNC) {
            tm->sw_unexp = le32_to_cpu(op->unexpected_cnt);
        }
        if (op->opcode == VHCA_TM_OP_ADD) {
            vhca_tm_add(s, srqn, srq, op, &d);
        } else if (op->opcode == VHCA_TM_OP_DEL) {
            vhca_tm_del(tm, handle, &d);
        }
    }
    vhca_tm_op_complete(s, srqn, srq, op, index, opcode, &d);
}

/* VHCA_DB_SRQ with VHCA_DB_SRQ_TM_OPS: run the operations up to pi. */
void vhca_tm_doorbell(VhcaState *s, uint32_t srqn, uint32_t pi)
{
    VhcaSrq *srq = vhca_srq_get(s, srqn);
    VhcaTm *tm = srq ? srq->tm : NULL;
    struct vhca_tm_op op;
    uint32_t index;
    uint64_t off;

    if (!tm || pi - tm->ops.ci > (1u << tm->ops.log_size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: TM operation doorbell for SRQ "
                      "%u with producer index %u ignored\n", srqn, pi);
        trace_vhca_tm_op_reject(srqn, tm ? "producer index impossible"
                                         : "not a TM SRQ", pi);
        return;
    }
    tm->ops.pi = pi;
    while (tm->ops.ci != tm->ops.pi) {
        index = tm->ops.ci;
        off = (uint64_t)(index & ((1u << tm->ops.log_size) - 1))
              << VHCA_TM_OP_SHIFT;
        if (vhca_dma_read(s, vhca_buf_addr(&tm->ops.buf, off), &op,
                          sizeof(op)) != MEMTX_OK) {
            qemu_log_mask(LOG_GUEST_ERROR, "vhca: TM SRQ %u operation %u "
                          "unreadable\n", srqn, index);
            trace_vhca_tm_op_reject(srqn, "operation unreadable", index);
            return;
        }
        tm->ops.ci++;
        vhca_tm_op_execute(s, srqn, srq, &op, index);
        /* the CQE's DMA may have reset the device, which frees tm */
        if (!vhca_is_enabled(s) || !srq->valid || srq->tm != tm) {
            return;
        }
    }
}

/* ---- matching ------------------------------------------------------------ */

/* The headers at the start of the message; false: too short for them. */
static bool vhca_tm_parse(VhcaPacket *pkt, VhcaTmh *h)
{
    uint8_t raw[VHCA_TM_TMH_LEN + VHCA_TM_RVH_LEN];
    uint64_t n = MIN(pkt->wqe->length, sizeof(raw));

    if (n < VHCA_TM_TMH_LEN ||
        vhca_sgl_read(pkt->local, raw, n) != VHCA_VERR_NONE) {
        return false;
    }
    h->opcode = raw[0];
    memcpy(&h->app_ctx, raw + 4, 4);
    h->tag = ldq_be_p(raw + 8);
    if (h->opcode == VHCA_TMH_RNDV) {
        if (n < sizeof(raw)) {
            return false;
        }
        h->va = ldq_be_p(raw + 16);
        h->rkey = ldl_be_p(raw + 24);
        h->len = ldl_be_p(raw + 28);
    }
    return true;
}

/* The earliest added entry the tag matches (IBA has no TM: MPI's rule). */
static int vhca_tm_match(VhcaTm *tm, uint64_t tag)
{
    int best = -1;
    uint32_t i;

    for (i = 0; i < tm->max_tags; i++) {
        VhcaTmEntry *e = &tm->entries[i];

        if (e->valid && (tag & e->mask) == (e->tag & e->mask) &&
            (best < 0 || e->seq < tm->entries[best].seq)) {
            best = i;
        }
    }
    return best;
}

void vhca_tm_complete(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt,
                      const VhcaTmEntry *e, uint32_t handle,
                      const VhcaTmh *h, VhcaRecvDone *d)
{
    d->opcode = VHCA_CQE_TM_RECV;
    d->tm_entry = true;
    d->tm_handle = handle;
    if (d->tm_flags & VHCA_CQE_TM_F_MATCH) {
        /* the header's: a rendezvous's final CQE has none, as mlx5's */
        d->tm_tag = h->tag;
        d->imm_inv = h->app_ctx;
    }
    vhca_rq_complete(s, qp, e->recv_wr_id, pkt, d);
}

/* EAGER matched: the data after the TMH into the entry's buffer. */
static VhcaAck vhca_tm_eager(VhcaState *s, VhcaQp *qp, VhcaSrq *srq,
                             VhcaPacket *pkt, uint32_t handle,
                             const VhcaTmh *h)
{
    VhcaTmEntry e = srq->tm->entries[handle];
    uint64_t len = pkt->wqe->length - VHCA_TM_TMH_LEN;
    VhcaRecvDone d = { .tm_flags = VHCA_CQE_TM_F_MATCH | VHCA_CQE_TM_F_FREED };
    VhcaSgl dst, src = *pkt->local;
    uint8_t verr;

    srq->tm->entries[handle].valid = false;
    verr = vhca_sgl_from_sges(s, srq->pdn, srq->db_page == 0, &e.sge,
                              e.num_sge, VHCA_ACCESS_LOCAL_WRITE, &dst);
    if (verr == VHCA_VERR_NONE && len > dst.length) {
        verr = VHCA_VERR_LENGTH;
    }
    if (verr == VHCA_VERR_NONE) {
        vhca_sgl_skip(&src, VHCA_TM_TMH_LEN);
        verr = vhca_sgl_copy(&dst, 0, &src, len);
    }
    if (!vhca_is_enabled(s) || !qp->valid) {
        return VHCA_NO_PEER;
    }
    if (verr != VHCA_VERR_NONE) {
        d.status = verr == VHCA_VERR_LENGTH ? VHCA_WC_LOC_LEN_ERR
                                            : VHCA_WC_LOC_PROT_ERR;
        d.verr = verr;
        vhca_tm_complete(s, qp, pkt, &e, handle, h, &d);
        return vhca_responder_fail(s, qp, verr == VHCA_VERR_LENGTH ?
                                   VHCA_NAK_INV_REQ : VHCA_NAK_REM_OP, 0);
    }
    d.tm_flags |= VHCA_CQE_TM_F_DATA_VALID;
    d.byte_len = len;
    vhca_tm_complete(s, qp, pkt, &e, handle, h, &d);
    return VHCA_ACK;
}

/* Unmatched or untagged: the whole message to an ordinary receive WQE. */
static VhcaAck vhca_tm_ordinary(VhcaState *s, VhcaQp *qp, VhcaSrq *srq,
                                VhcaPacket *pkt, bool unexpected)
{
    VhcaRecvDone tm = {
        .opcode = VHCA_CQE_TM_RECV,
        .tm_flags = unexpected ? 0 : VHCA_CQE_TM_F_NO_TAG,
    };
    VhcaAck ack;

    if (vhca_respond_no_rwqe(s, qp, pkt, &ack)) {
        return ack;
    }
    ack = vhca_respond_send(s, qp, pkt, &tm);
    if (ack == VHCA_ACK && unexpected && srq->valid && srq->tm) {
        srq->tm->hw_unexp++;
    }
    return ack;
}

VhcaAck vhca_tm_respond(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt)
{
    VhcaSrq *srq = vhca_tm_srq_of(s, qp);
    VhcaTmh h;
    int handle;

    if (!vhca_tm_parse(pkt, &h) ||
        (h.opcode != VHCA_TMH_EAGER && h.opcode != VHCA_TMH_RNDV)) {
        return vhca_tm_ordinary(s, qp, srq, pkt, false);
    }
    handle = vhca_tm_match(srq->tm, h.tag);
    trace_vhca_tm_message(qp->handle, h.opcode, h.tag, handle);
    if (handle < 0) {
        return vhca_tm_ordinary(s, qp, srq, pkt, true);
    }
    if (h.opcode == VHCA_TMH_RNDV) {
        return vhca_tm_rndv(s, qp, srq, pkt, handle, &h);
    }
    return vhca_tm_eager(s, qp, srq, pkt, handle, &h);
}
