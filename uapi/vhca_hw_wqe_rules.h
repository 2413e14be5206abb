/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_hw_wqe_rules.h - the one statement of the send work-request rules:
 * which QP type may post which opcode, the segment that follows the
 * control segment, which opcodes carry data and which may carry it
 * inline.  Used unchanged by the driver core (wqe_builder.cpp), the
 * provider (datapath.c) and the device (vhca-wqe.c), so that a work
 * request the driver or provider accepts is one the device executes
 * (unit/wqe_rules_test.cpp checks the table against IBA 9.2).
 *
 * Included by vhca_hw_verbs.h; include vhca_hw.h, not this file.
 */
#ifndef VHCA_HW_WQE_RULES_H
#define VHCA_HW_WQE_RULES_H

#ifndef VHCA_HW_VERBS_H
#error "include vhca_hw.h instead"
#endif

#define VHCA_QPT_BIT(type)	(1u << (type))
#define VHCA_QPT_DATAGRAM	(VHCA_QPT_BIT(VHCA_QPT_UD) | VHCA_QPT_BIT(VHCA_QPT_SMI) | \
				 VHCA_QPT_BIT(VHCA_QPT_GSI))
/* The QP types with RC's transport: RC and the XRC initiator (IBA A14.3:
 * XRC requests are RC requests with an XRCETH).  The XRC target has no
 * send queue, so it posts nothing and is in none of these masks. */
#define VHCA_QPT_RELIABLE	(VHCA_QPT_BIT(VHCA_QPT_RC) | VHCA_QPT_BIT(VHCA_QPT_XRC_INI))
#define VHCA_QPT_CONNECTED	(VHCA_QPT_RELIABLE | VHCA_QPT_BIT(VHCA_QPT_UC))
#define VHCA_QPT_ANY		(VHCA_QPT_CONNECTED | VHCA_QPT_DATAGRAM)

static inline int vhca_qpt_is_xrc(uint8_t qp_type)
{
	return qp_type == VHCA_QPT_XRC_INI || qp_type == VHCA_QPT_XRC_TGT;
}

/* Whether a QP of this type runs RC's transport (PSNs, ACK/NAK, retries,
 * RDMA READ and atomics): RC, and both XRC halves (IBA A14.3). */
static inline int vhca_qpt_is_reliable(uint8_t qp_type)
{
	return qp_type == VHCA_QPT_RC || vhca_qpt_is_xrc(qp_type);
}

/* The QP type a connected QP of type qp_type talks to: itself, except the
 * XRC halves, which talk to each other (IBA A14.2.2). */
static inline uint8_t vhca_qpt_peer(uint8_t qp_type)
{
	if (qp_type == VHCA_QPT_XRC_INI)
		return VHCA_QPT_XRC_TGT;
	if (qp_type == VHCA_QPT_XRC_TGT)
		return VHCA_QPT_XRC_INI;
	return qp_type;
}

static inline int vhca_qpt_is_datagram(uint8_t qp_type)
{
	return qp_type < 32 && (VHCA_QPT_DATAGRAM & VHCA_QPT_BIT(qp_type)) != 0;
}

/*
 * The QP types that may post `opcode` (VHCA_QPT_BIT mask; 0 for an opcode
 * the device does not know).  IBA 9.2 (the OpCode table): UC has SEND and
 * RDMA WRITE (with immediate), not RDMA READ, atomics or SEND with
 * Invalidate; UD only SEND (with immediate).  LOCAL_INV and REG_MR are
 * local operations on the send queue of any QP type (IBA 10.6.5); windows
 * are bound on connected QPs (IBA 10.6.7.2: their rkeys are used by the
 * peer of an RC or UC connection).  The XRC initiator posts what RC
 * posts (IBA A14.3.2), each WQE naming the remote XRC SRQ; the XRC
 * target posts nothing.
 */
static inline uint32_t vhca_wqe_qp_types(uint8_t opcode)
{
	switch (opcode) {
	case VHCA_WQE_SEND:
	case VHCA_WQE_SEND_WITH_IMM:
	case VHCA_WQE_LOCAL_INV:
	case VHCA_WQE_REG_MR:
		return VHCA_QPT_ANY;
	case VHCA_WQE_RDMA_WRITE:
	case VHCA_WQE_RDMA_WRITE_WITH_IMM:
	case VHCA_WQE_BIND_MW:
		return VHCA_QPT_CONNECTED;
	case VHCA_WQE_SEND_WITH_INV:
	case VHCA_WQE_RDMA_READ:
	case VHCA_WQE_ATOMIC_CMP_AND_SWP:
	case VHCA_WQE_ATOMIC_FETCH_AND_ADD:
	case VHCA_WQE_ATOMIC_WRITE:
		return VHCA_QPT_RELIABLE;
	default:
		return 0;
	}
}

static inline int vhca_wqe_opcode_allowed(uint8_t opcode, uint8_t qp_type)
{
	return qp_type < 32 && (vhca_wqe_qp_types(opcode) & VHCA_QPT_BIT(qp_type)) != 0;
}

/* Bytes of the segment between the control segment and the data, for an
 * opcode the QP type may post (the table above vhca_wqe_opcode). */
static inline uint32_t vhca_wqe_segment_size(uint8_t opcode, uint8_t qp_type)
{
	switch (opcode) {
	case VHCA_WQE_RDMA_WRITE:
	case VHCA_WQE_RDMA_WRITE_WITH_IMM:
	case VHCA_WQE_RDMA_READ:
		return sizeof(struct vhca_wqe_raddr);
	case VHCA_WQE_ATOMIC_CMP_AND_SWP:
	case VHCA_WQE_ATOMIC_FETCH_AND_ADD:
	case VHCA_WQE_ATOMIC_WRITE:
		return sizeof(struct vhca_wqe_atomic);
	case VHCA_WQE_REG_MR:
		return sizeof(struct vhca_wqe_reg_mr);
	case VHCA_WQE_BIND_MW:
		return sizeof(struct vhca_wqe_bind_mw);
	case VHCA_WQE_LOCAL_INV:
		return 0;
	default:	/* the SENDs: an address vector on datagram QPs */
		return vhca_qpt_is_datagram(qp_type) ? sizeof(struct vhca_wqe_ud) : 0;
	}
}

/* Whether the WQE is an operation on local objects that puts nothing on
 * the wire (IBA 10.6.5 fast registration and local invalidation, 10.6.7.2
 * type 2 window binding). */
static inline int vhca_wqe_is_local(uint8_t opcode)
{
	return opcode == VHCA_WQE_LOCAL_INV || opcode == VHCA_WQE_REG_MR ||
	       opcode == VHCA_WQE_BIND_MW;
}

/* Whether the WQE has SGEs or inline data.  The local operations have
 * none; nor has ATOMIC_WRITE: its 8 bytes are in its segment, so that a
 * QP without inline space posts it (rdma-core's ibv_wr_atomic_write takes
 * the bytes, not an SGE), and they travel as the request's payload. */
static inline int vhca_wqe_carries_data(uint8_t opcode)
{
	return !vhca_wqe_is_local(opcode) && opcode != VHCA_WQE_ATOMIC_WRITE;
}

/* Whether the responder's answer carries the data (RDMA READ, atomics:
 * IBA 9.4.3, 9.4.5), so the request itself carries none. */
static inline int vhca_wqe_returns_data(uint8_t opcode)
{
	return opcode == VHCA_WQE_RDMA_READ ||
	       opcode == VHCA_WQE_ATOMIC_CMP_AND_SWP ||
	       opcode == VHCA_WQE_ATOMIC_FETCH_AND_ADD;
}

/* Inline data replaces the gather list of an outgoing payload; READ and
 * atomics have their data come back, so they cannot (IBA 11.4.1.1). */
static inline int vhca_wqe_may_inline(uint8_t opcode)
{
	return opcode == VHCA_WQE_SEND || opcode == VHCA_WQE_SEND_WITH_IMM ||
	       opcode == VHCA_WQE_SEND_WITH_INV || opcode == VHCA_WQE_RDMA_WRITE ||
	       opcode == VHCA_WQE_RDMA_WRITE_WITH_IMM;
}

#endif /* VHCA_HW_WQE_RULES_H */
