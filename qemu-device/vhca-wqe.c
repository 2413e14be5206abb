/*
 * vhca - WQE decoding and validation (see vhca-wqe.h).
 *
 * Layout (vhca_hw_verbs.h "Send WQEs"): a control segment, the opcode's
 * segment, then num_sge SGEs or inline_len bytes, all inside the stride.
 * Which opcodes a QP type may post follows IBA 10.7.2 / 11.4.1.1 (e.g.
 * RDMA and atomics only on connected QPs, RDMA READ and atomics only on
 * RC).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "vhca-wqe.h"

#define VHCA_WQE_KNOWN_FLAGS (VHCA_WQE_F_SIGNALED | VHCA_WQE_F_SOLICITED | \
                              VHCA_WQE_F_FENCE | VHCA_WQE_F_INLINE)

/*
 * Which QP type may post which opcode, its segment, SGEs and inline: the
 * opcode table of uapi/vhca_hw_wqe_rules.h, shared with the driver and
 * provider.
 */

static void vhca_wqe_decode_segment(const uint8_t *seg, uint8_t qp_type,
                                    VhcaSendWqe *wqe)
{
    const struct vhca_wqe_raddr *raddr = (const void *)seg;
    const struct vhca_wqe_atomic *atomic = (const void *)seg;
    const struct vhca_wqe_ud *ud = (const void *)seg;
    const struct vhca_wqe_flush *flush = (const void *)seg;

    switch (vhca_wqe_opcode_row(wqe->opcode)->segment) {
    case VHCA_WQE_SEG_RADDR:
        wqe->remote_addr = ldq_le_p(&raddr->remote_addr);
        wqe->rkey = ldl_le_p(&raddr->rkey);
        break;
    case VHCA_WQE_SEG_ATOMIC:
        wqe->remote_addr = ldq_le_p(&atomic->remote_addr);
        wqe->rkey = ldl_le_p(&atomic->rkey);
        if (!vhca_wqe_carries_data(wqe->opcode)) {
            /* ATOMIC_WRITE: the 8 bytes travel as the request's payload,
             * like an inline RDMA WRITE's, straight from the WQE
             * (vhca_wqe_decode_send). */
            wqe->inline_data = (const uint8_t *)&atomic->swap;
            wqe->inline_len = sizeof(atomic->swap);
            wqe->length = sizeof(atomic->swap);
            break;
        }
        wqe->compare_add = ldq_le_p(&atomic->compare_add);
        wqe->swap = ldq_le_p(&atomic->swap);
        break;
    case VHCA_WQE_SEG_FLUSH:
        /* no payload either way (IBA 1.5 oA19-2): length stays 0 */
        wqe->remote_addr = ldq_le_p(&flush->remote_addr);
        wqe->rkey = ldl_le_p(&flush->rkey);
        wqe->compare_add = ldl_le_p(&flush->length);
        wqe->swap = VHCA_FETH(flush->type, flush->level);
        break;
    case VHCA_WQE_SEG_REG_MR:
        memcpy(&wqe->reg_mr, seg, sizeof(wqe->reg_mr));
        break;
    case VHCA_WQE_SEG_BIND_MW:
        memcpy(&wqe->bind_mw, seg, sizeof(wqe->bind_mw));
        break;
    case VHCA_WQE_SEG_AV:
        if (vhca_qpt_is_datagram(qp_type)) {
            memcpy(&wqe->av, &ud->av, sizeof(wqe->av));
            wqe->remote_qpn = ldl_le_p(&ud->remote_qpn);
            wqe->remote_qkey = ldl_le_p(&ud->remote_qkey);
            wqe->pkey_index = lduw_le_p(&ud->pkey_index);
        }
        break;
    default:
        break;
    }
}

/* num_sge SGEs at sges, summing their lengths. */
static void vhca_wqe_decode_sges(const uint8_t *sges, uint32_t num_sge,
                                 VhcaSge *out, uint64_t *length)
{
    const struct vhca_sge *raw = (const void *)sges;
    uint32_t i;

    *length = 0;
    for (i = 0; i < num_sge; i++) {
        out[i].addr = ldq_le_p(&raw[i].addr);
        out[i].length = ldl_le_p(&raw[i].length);
        out[i].lkey = ldl_le_p(&raw[i].lkey);
        *length += out[i].length;
    }
}

uint8_t vhca_wqe_decode_send(const uint8_t *buf, uint32_t stride,
                             uint8_t qp_type, uint32_t max_inline,
                             VhcaSendWqe *wqe, const char **why)
{
    const struct vhca_wqe_ctrl *ctrl = (const void *)buf;
    uint32_t seg_size, data_off;

    memset(wqe, 0, sizeof(*wqe));
    wqe->wr_id = ldq_le_p(&ctrl->wr_id);
    wqe->opcode = ctrl->opcode;
    wqe->flags = ctrl->flags;
    wqe->imm_inv = ldl_he_p(&ctrl->imm_inv);
    wqe->xrc_srqn = ldl_le_p(&ctrl->xrc_srqn) & VHCA_DB_OBJ_MASK;
    if (wqe->flags & ~VHCA_WQE_KNOWN_FLAGS) {
        *why = "unknown WQE flags";
        return VHCA_VERR_BAD_WQE;
    }
    if (!vhca_wqe_opcode_allowed(wqe->opcode, qp_type)) {
        *why = "opcode unknown or not allowed on this QP type";
        return VHCA_VERR_BAD_WQE;
    }
    seg_size = vhca_wqe_segment_size(wqe->opcode, qp_type);
    data_off = sizeof(*ctrl) + seg_size;
    if (data_off > stride) {
        *why = "segments do not fit the WQE stride";
        return VHCA_VERR_BAD_WQE;
    }
    vhca_wqe_decode_segment(buf + sizeof(*ctrl), qp_type, wqe);
    if (!vhca_wqe_carries_data(wqe->opcode)) {
        if (ctrl->num_sge || (wqe->flags & VHCA_WQE_F_INLINE)) {
            *why = "SGEs or inline data on an opcode that carries none";
            return VHCA_VERR_BAD_WQE;
        }
        return VHCA_VERR_NONE;
    }
    if (wqe->flags & VHCA_WQE_F_INLINE) {
        wqe->inline_len = ldl_le_p(&ctrl->inline_len);
        if (!vhca_wqe_may_inline(wqe->opcode) ||
            wqe->inline_len > max_inline ||
            wqe->inline_len > stride - data_off) {
            *why = "inline data not allowed, above max_inline or outside "
                   "the stride";
            return VHCA_VERR_BAD_WQE;
        }
        wqe->inline_data = buf + data_off;
        wqe->length = wqe->inline_len;
    } else {
        wqe->num_sge = ctrl->num_sge;
        if (wqe->num_sge > VHCA_WQE_MAX_SGE ||
            wqe->num_sge * sizeof(struct vhca_sge) > stride - data_off) {
            *why = "num_sge too big or SGEs outside the stride";
            return VHCA_VERR_BAD_WQE;
        }
        vhca_wqe_decode_sges(buf + data_off, wqe->num_sge, wqe->sge,
                             &wqe->length);
    }
    if (vhca_wqe_opcode_row(wqe->opcode)->segment == VHCA_WQE_SEG_ATOMIC) {
        /* CMP_AND_SWP, FETCH_AND_ADD (ATOMIC_WRITE has no SGL and
         * returned above).  The remote address's alignment is the
         * responder's to check (IBA 9.4.5: NAK Invalid Request), not a
         * malformed WQE. */
        if (wqe->length != 8) {
            *why = "atomic needs an 8-byte local buffer";
            return VHCA_VERR_BAD_WQE;
        }
    }
    if (wqe->length > VHCA_MAX_MSG_BYTES) {
        *why = "message longer than max_msg_sz";
        return VHCA_VERR_LENGTH;
    }
    return VHCA_VERR_NONE;
}

uint8_t vhca_wqe_decode_recv(const uint8_t *buf, uint32_t stride,
                             VhcaRecvWqe *wqe, const char **why)
{
    const struct vhca_rwqe_hdr *hdr = (const void *)buf;

    memset(wqe, 0, sizeof(*wqe));
    wqe->wr_id = ldq_le_p(&hdr->wr_id);
    wqe->num_sge = hdr->num_sge;
    if (wqe->num_sge > VHCA_WQE_MAX_SGE ||
        sizeof(*hdr) + wqe->num_sge * sizeof(struct vhca_sge) > stride) {
        *why = "num_sge too big or SGEs outside the stride";
        return VHCA_VERR_BAD_WQE;
    }
    vhca_wqe_decode_sges(buf + sizeof(*hdr), wqe->num_sge, wqe->sge,
                         &wqe->length);
    return VHCA_VERR_NONE;
}
