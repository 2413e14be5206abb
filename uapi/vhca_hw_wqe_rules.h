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
 * The send opcode table, rxe_opcode.c's way: one row per opcode states
 * every rule about it, and the driver core, the provider and the device
 * read the row; nothing else spells an opcode rule.
 *
 * qp_types: the QP types that may post it (IBA 9.2, the OpCode table: UC
 *   has SEND and RDMA WRITE (with immediate), not RDMA READ, atomics or
 *   SEND with Invalidate; UD only SEND (with immediate)).  LOCAL_INV and
 *   REG_MR are local operations on the send queue of any QP type (IBA
 *   10.6.5); windows are bound on connected QPs (IBA 10.6.7.2: their
 *   rkeys are used by the peer of an RC or UC connection).  The XRC
 *   initiator posts what RC posts (IBA A14.3.2), each WQE naming the
 *   remote XRC SRQ; the XRC target posts nothing.
 * segment: what follows the control segment (enum vhca_wqe_segment).
 * cqe: the opcode of the requester's completion (IBA 11.4.2.1).
 * flags (VHCA_WQE_OPF_*):
 *   SGL     the WQE has SGEs (or inline data): the payload, or the local
 *           buffer a READ or atomic answer lands in.  Not the local
 *           operations, nor ATOMIC_WRITE: its 8 bytes are in its segment,
 *           so that a QP without inline space posts it (rdma-core's
 *           ibv_wr_atomic_write takes the bytes, not an SGE), and they
 *           travel as the request's payload.
 *   INLINE  inline data may replace the gather list of the outgoing
 *           payload; READ and atomics have their data come back, so they
 *           cannot (IBA 11.4.1.1).
 *   RETURNS the responder's answer carries the data (RDMA READ, atomics:
 *           IBA 9.4.3, 9.4.5), so the request itself carries none; it
 *           is one packet, holds a responder resource (max_rd_atomic)
 *           and waits behind a fence.  FLUSH too (IBA 1.5 A19.4.1): its
 *           answer is an RDMA READ response without payload.
 *   LOCAL   an operation on local objects that puts nothing on the wire
 *           and consumes no PSN (IBA 10.6.5 fast registration and local
 *           invalidation, 10.6.7.2 type 2 window binding).
 *   RWQE    the responder consumes a receive WQE (IBA 9.7.5.1.1: SENDs,
 *           and RDMA WRITE with immediate for its immediate data).
 *   IMM     ctrl.imm_inv is immediate data, in wire order.
 *   INV     ctrl.imm_inv is an rkey to invalidate (SEND_WITH_INV: the
 *           responder's; LOCAL_INV: ours), a little-endian number.
 *   KERNEL  posted by kernel consumers only: no ibv_wr_opcode names it
 *           (fast registration, ib_reg_wr).
 */
enum vhca_wqe_segment {
	VHCA_WQE_SEG_NONE,
	VHCA_WQE_SEG_AV,	/* vhca_wqe_ud on datagram QPs, none on the others */
	VHCA_WQE_SEG_RADDR,	/* vhca_wqe_raddr */
	VHCA_WQE_SEG_ATOMIC,	/* vhca_wqe_atomic */
	VHCA_WQE_SEG_REG_MR,	/* vhca_wqe_reg_mr */
	VHCA_WQE_SEG_BIND_MW,	/* vhca_wqe_bind_mw */
	VHCA_WQE_SEG_FLUSH,	/* vhca_wqe_flush */
};

#define VHCA_WQE_OPF_SGL	(1u << 0)
#define VHCA_WQE_OPF_INLINE	(1u << 1)
#define VHCA_WQE_OPF_RETURNS	(1u << 2)
#define VHCA_WQE_OPF_LOCAL	(1u << 3)
#define VHCA_WQE_OPF_RWQE	(1u << 4)
#define VHCA_WQE_OPF_IMM	(1u << 5)
#define VHCA_WQE_OPF_INV	(1u << 6)
#define VHCA_WQE_OPF_KERNEL	(1u << 7)

/* The table.  ROW(opcode, qp_types, segment, cqe, flags), without the
 * VHCA_WQE_, VHCA_QPT_, VHCA_WQE_SEG_, VHCA_CQE_ and VHCA_WQE_OPF_
 * prefixes; flags are OR'ed, F0 is none. */
#define VHCA_WQE_OPCODE_TABLE(ROW)						\
	ROW(RDMA_WRITE,		  CONNECTED, RADDR,   RDMA_WRITE,   F(SGL) | F(INLINE))		\
	ROW(RDMA_WRITE_WITH_IMM,  CONNECTED, RADDR,   RDMA_WRITE,   F(SGL) | F(INLINE) | F(RWQE) | F(IMM)) \
	ROW(SEND,		  ANY,	     AV,      SEND,	    F(SGL) | F(INLINE) | F(RWQE))	\
	ROW(SEND_WITH_IMM,	  ANY,	     AV,      SEND,	    F(SGL) | F(INLINE) | F(RWQE) | F(IMM)) \
	ROW(SEND_WITH_INV,	  RELIABLE,  AV,      SEND,	    F(SGL) | F(INLINE) | F(RWQE) | F(INV)) \
	ROW(RDMA_READ,		  RELIABLE,  RADDR,   RDMA_READ,    F(SGL) | F(RETURNS))		\
	ROW(ATOMIC_CMP_AND_SWP,	  RELIABLE,  ATOMIC,  COMP_SWAP,    F(SGL) | F(RETURNS))		\
	ROW(ATOMIC_FETCH_AND_ADD, RELIABLE,  ATOMIC,  FETCH_ADD,    F(SGL) | F(RETURNS))		\
	ROW(ATOMIC_WRITE,	  RELIABLE,  ATOMIC,  ATOMIC_WRITE, F0)				\
	ROW(FLUSH,		  RELIABLE,  FLUSH,   FLUSH,	    F(RETURNS))			\
	ROW(LOCAL_INV,		  ANY,	     NONE,    LOCAL_INV,    F(LOCAL) | F(INV))		\
	ROW(REG_MR,		  ANY,	     REG_MR,  REG_MR,	    F(LOCAL) | F(KERNEL))		\
	ROW(BIND_MW,		  CONNECTED, BIND_MW, BIND_MW,	    F(LOCAL))

struct vhca_wqe_opcode_info {
	const char	*name;
	uint32_t	qp_types;	/* VHCA_QPT_BIT mask; 0: not an opcode */
	uint8_t		segment;	/* enum vhca_wqe_segment */
	uint8_t		cqe_opcode;	/* enum vhca_cqe_opcode */
	uint16_t	flags;		/* VHCA_WQE_OPF_* */
};

/* The row of `opcode`; an opcode the device does not know has the row of
 * qp_types 0 (no QP type may post it) and name NULL. */
static inline const struct vhca_wqe_opcode_info *vhca_wqe_opcode_row(uint8_t opcode)
{
#define F(flag) VHCA_WQE_OPF_##flag
#define F0 0
#define VHCA_WQE_OPCODE_ROW(op, types, seg, cqe, fl)				\
	case VHCA_WQE_##op: {							\
		static const struct vhca_wqe_opcode_info row = {		\
			#op, VHCA_QPT_##types, VHCA_WQE_SEG_##seg,		\
			VHCA_CQE_##cqe, (uint16_t)(fl) };			\
		return &row;							\
	}
	static const struct vhca_wqe_opcode_info unknown = { 0, 0, 0, 0, 0 };

	switch (opcode) {
	VHCA_WQE_OPCODE_TABLE(VHCA_WQE_OPCODE_ROW)
	default:
		return &unknown;
	}
#undef VHCA_WQE_OPCODE_ROW
#undef F0
#undef F
}

static inline int vhca_wqe_opcode_has(uint8_t opcode, uint32_t flag)
{
	return (vhca_wqe_opcode_row(opcode)->flags & flag) != 0;
}

/* The QP types that may post `opcode` (VHCA_QPT_BIT mask; 0 for an opcode
 * the device does not know). */
static inline uint32_t vhca_wqe_qp_types(uint8_t opcode)
{
	return vhca_wqe_opcode_row(opcode)->qp_types;
}

static inline int vhca_wqe_opcode_allowed(uint8_t opcode, uint8_t qp_type)
{
	return qp_type < 32 && (vhca_wqe_qp_types(opcode) & VHCA_QPT_BIT(qp_type)) != 0;
}

/* Bytes of the segment between the control segment and the data, for an
 * opcode the QP type may post. */
static inline uint32_t vhca_wqe_segment_size(uint8_t opcode, uint8_t qp_type)
{
	switch (vhca_wqe_opcode_row(opcode)->segment) {
	case VHCA_WQE_SEG_AV:
		return vhca_qpt_is_datagram(qp_type) ? sizeof(struct vhca_wqe_ud) : 0;
	case VHCA_WQE_SEG_RADDR:
		return sizeof(struct vhca_wqe_raddr);
	case VHCA_WQE_SEG_ATOMIC:
		return sizeof(struct vhca_wqe_atomic);
	case VHCA_WQE_SEG_REG_MR:
		return sizeof(struct vhca_wqe_reg_mr);
	case VHCA_WQE_SEG_BIND_MW:
		return sizeof(struct vhca_wqe_bind_mw);
	case VHCA_WQE_SEG_FLUSH:
		return sizeof(struct vhca_wqe_flush);
	default:
		return 0;
	}
}

static inline uint8_t vhca_wqe_cqe_opcode(uint8_t opcode)
{
	return vhca_wqe_opcode_row(opcode)->cqe_opcode;
}

static inline int vhca_wqe_is_local(uint8_t opcode)
{
	return vhca_wqe_opcode_has(opcode, VHCA_WQE_OPF_LOCAL);
}

/* Whether a request of this opcode may go on the wire: a known opcode
 * that is not a local operation (the wire's own check of a frame). */
static inline int vhca_wqe_goes_on_wire(uint8_t opcode)
{
	return vhca_wqe_qp_types(opcode) && !vhca_wqe_is_local(opcode);
}

static inline int vhca_wqe_carries_data(uint8_t opcode)
{
	return vhca_wqe_opcode_has(opcode, VHCA_WQE_OPF_SGL);
}

static inline int vhca_wqe_returns_data(uint8_t opcode)
{
	return vhca_wqe_opcode_has(opcode, VHCA_WQE_OPF_RETURNS);
}

static inline int vhca_wqe_may_inline(uint8_t opcode)
{
	return vhca_wqe_opcode_has(opcode, VHCA_WQE_OPF_INLINE);
}

#endif /* VHCA_HW_WQE_RULES_H */
