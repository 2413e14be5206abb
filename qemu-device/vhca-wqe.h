/*
 * vhca - WQE decoding and validation.
 *
 * Pure functions over vhca_hw.h: no device state, no guest memory access.
 * They see one WQE exactly as the guest wrote it (its whole stride, read
 * by the caller) and turn it into host-order structures, or say why it is
 * malformed.  Kept apart so that they can be built into a host fuzzing
 * harness on their own (like vhca-cmd-check.c for commands).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_WQE_H
#define HW_INFINIBAND_VHCA_WQE_H

#include "vhca_hw.h"

/* SGEs a WQE may have: what the device decodes is what QUERY_DEVICE
 * reports as max_sge (uapi's VHCA_MAX_SGE_PER_WQE is the ABI's ceiling). */
#define VHCA_WQE_MAX_SGE        32
#define VHCA_MAX_MSG_BYTES      0x80000000ull   /* port max_msg_sz */

typedef struct VhcaSge {
    uint64_t addr;
    uint32_t length;
    uint32_t lkey;
} VhcaSge;

typedef struct VhcaSendWqe {
    uint64_t wr_id;
    uint8_t opcode;             /* enum vhca_wqe_opcode */
    uint8_t flags;              /* VHCA_WQE_F_* */
    uint32_t imm_inv;           /* as the guest wrote it (wire order) */
    uint32_t xrc_srqn;          /* XRC_INI: the remote XRC SRQ */
    uint32_t num_sge;
    VhcaSge sge[VHCA_WQE_MAX_SGE];
    const uint8_t *inline_data; /* into the caller's WQE buffer */
    uint32_t inline_len;
    uint64_t length;            /* message length */
    uint64_t remote_addr;       /* RDMA and atomics */
    uint32_t rkey;
    uint64_t compare_add;       /* FLUSH: the RETH's length of the range */
    uint64_t swap;              /* FLUSH: the FETH (VHCA_FETH), so that the
                                 * wire carries both as it carries an
                                 * atomic's operands (vhca_hw_wire.h) */
    struct vhca_av av;          /* UD/SMI/GSI, little-endian as given */
    uint32_t remote_qpn;
    uint32_t remote_qkey;
    uint16_t pkey_index;
    struct vhca_wqe_reg_mr reg_mr;  /* little-endian as given */
    struct vhca_wqe_bind_mw bind_mw; /* little-endian as given */
} VhcaSendWqe;

typedef struct VhcaRecvWqe {
    uint64_t wr_id;
    uint32_t num_sge;
    VhcaSge sge[VHCA_WQE_MAX_SGE];
    uint64_t length;            /* room in all SGEs */
} VhcaRecvWqe;

/*
 * Decode a send WQE of a QP of qp_type, stride bytes at buf.  Returns
 * VHCA_VERR_NONE, VHCA_VERR_BAD_WQE (malformed: LOC_QP_OP_ERR) or
 * VHCA_VERR_LENGTH (too long: LOC_LEN_ERR); *why says what was wrong.
 */
uint8_t vhca_wqe_decode_send(const uint8_t *buf, uint32_t stride,
                             uint8_t qp_type, uint32_t max_inline,
                             VhcaSendWqe *wqe, const char **why);
uint8_t vhca_wqe_decode_recv(const uint8_t *buf, uint32_t stride,
                             VhcaRecvWqe *wqe, const char **why);
/* The CQE opcode that completes a send WQE opcode: vhca_wqe_cqe_opcode(),
 * a column of uapi/vhca_hw_wqe_rules.h's opcode table. */

#endif /* HW_INFINIBAND_VHCA_WQE_H */
