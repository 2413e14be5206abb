/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_hw_verbs.h - the data path half of the vhca device description:
 * completion queues, queue pairs, shared receive queues, memory keys and
 * multicast; the work queue entry (WQE) and completion queue entry (CQE)
 * formats; the data doorbells.
 *
 * Included by vhca_hw.h (the same rules apply: little-endian fixed-width
 * fields, a size check on every struct, reserved fields written as 0).
 * Include vhca_hw.h, not this file.
 *
 * A device that does not implement these objects reports 0 in the
 * matching vhca_device_attr limit (max_cq, max_qp, ...) and answers their
 * opcodes with VHCA_CMD_BAD_OPCODE; the driver then leaves the matching
 * verbs out of its ib_device_ops.
 *
 * IBA references are to the InfiniBand Architecture Specification vol. 1;
 * "Guide" is the HCA Verb Implementer's Guide (shared/seeds/).
 */
#ifndef VHCA_HW_VERBS_H
#define VHCA_HW_VERBS_H

#ifndef VHCA_HW_H
#error "include vhca_hw.h instead"
#endif

/* ------------------------------------------------------------------------
 * Command opcodes of the data path objects (enum vhca_cmd_opcode values),
 * one row each as VHCA_CMD_BASE_OPCODES of vhca_hw.h.
 */
#define VHCA_CMD_VERBS_OPCODES(X) \
	X(VHCA_CMD_CREATE_CQ,		0x0030)	/* in_addr: vhca_cmd_create_cq; result[0]: cqn */ \
	X(VHCA_CMD_DESTROY_CQ,		0x0031)	/* in: handle = cqn */ \
	X(VHCA_CMD_RESIZE_CQ,		0x0032)	/* in: handle = cqn; in_addr: vhca_cmd_create_cq (buf, log_size, dbrec) */ \
	X(VHCA_CMD_CREATE_QP,		0x0040)	/* in_addr: vhca_cmd_create_qp (in_len 128, or 64); result[0]: qpn */ \
	X(VHCA_CMD_MODIFY_QP,		0x0041)	/* in: handle = qpn; in_addr: vhca_qp_context */ \
	X(VHCA_CMD_QUERY_QP,		0x0042)	/* in: handle = qpn; out: vhca_qp_context */ \
	X(VHCA_CMD_DESTROY_QP,		0x0043)	/* in: handle = qpn */ \
	X(VHCA_CMD_CREATE_SRQ,		0x0050)	/* in_addr: vhca_cmd_create_srq; result[0]: srqn */ \
	X(VHCA_CMD_MODIFY_SRQ,		0x0051)	/* in: vhca_cmd_srq_limit_in */ \
	X(VHCA_CMD_QUERY_SRQ,		0x0052)	/* in: handle = srqn; result[0]: limit */ \
	X(VHCA_CMD_DESTROY_SRQ,		0x0053)	/* in: handle = srqn */ \
	X(VHCA_CMD_RESIZE_SRQ,		0x0054)	/* in: handle = srqn; in_addr: vhca_cmd_create_srq (buf, log_size, dbrec); result[0]: producer index taken (VHCA_DEV_CAP_SRQ_RESIZE) */ \
	X(VHCA_CMD_CREATE_MR,		0x0060)	/* in_addr: vhca_cmd_create_mr; result[0]: key */ \
	X(VHCA_CMD_ALLOC_MR,		0x0061)	/* in: vhca_cmd_alloc_mr_in; result[0]: key (FREE state) */ \
	X(VHCA_CMD_DESTROY_MR,		0x0062)	/* in: handle = key */ \
	X(VHCA_CMD_ALLOC_MW,		0x0063)	/* in: vhca_cmd_alloc_mw_in; result[0]: key (free) */ \
	X(VHCA_CMD_DEALLOC_MW,		0x0064)	/* in: handle = key */ \
	X(VHCA_CMD_REREG_MR,		0x0065)	/* in: handle = key; in_addr: vhca_cmd_create_mr (key kept) */ \
	X(VHCA_CMD_ODP_MAP,		0x0066)	/* in: vhca_cmd_odp_range_in; in_addr: le64 pages */ \
	X(VHCA_CMD_ODP_INVALIDATE,	0x0067)	/* in: vhca_cmd_odp_range_in */ \
	X(VHCA_CMD_ODP_RESUME,		0x0068)	/* in: vhca_cmd_odp_resume_in */ \
	X(VHCA_CMD_ALLOC_XRCD,		0x0070)	/* result[0]: xrcdn (VHCA_DEV_CAP_XRC) */ \
	X(VHCA_CMD_DEALLOC_XRCD,	0x0071)	/* in: handle = xrcdn */ \
	X(VHCA_CMD_ATTACH_MCAST,	0x0080)	/* in: vhca_cmd_mcast_in */ \
	X(VHCA_CMD_DETACH_MCAST,	0x0081)	/* in: vhca_cmd_mcast_in */ \
	X(VHCA_CMD_ALLOC_DM,		0x0090)	/* in: vhca_cmd_alloc_dm_in; result[0]: BAR 3 offset */ \
	X(VHCA_CMD_FREE_DM,		0x0091)	/* in: handle = BAR 3 offset */ \
	X(VHCA_CMD_REG_DM_MR,		0x0092)	/* in: vhca_cmd_reg_dm_mr_in; result[0]: key */

enum vhca_verbs_cmd_opcode {
	VHCA_CMD_VERBS_OPCODES(VHCA_ENUM_ROW)
};

/* ------------------------------------------------------------------------
 * Buffer descriptors.  Every ring (CQ, SQ, RQ, SRQ) and every memory
 * region is described by one; user-space rings and regions are not
 * physically contiguous, kernel rings usually are.  The device copies the
 * page list when the command executes: later changes to the list are not
 * seen.  Page addresses must be aligned to the page size.
 */
enum vhca_buf_mode {
	VHCA_BUF_CONTIG			= 0,	/* addr: first byte of a contiguous buffer */
	VHCA_BUF_DIRECT			= 1,	/* addr: le64 array of npages page addresses */
	VHCA_BUF_INDIRECT		= 2,	/* addr: le64 array of addresses of pages of
						 * VHCA_PBL_PAGE_SIZE bytes, each holding
						 * VHCA_PBL_ENTRIES_PER_PAGE le64 page addresses */
};

#define VHCA_MIN_PAGE_SHIFT		12
#define VHCA_MAX_PAGE_SHIFT		30
#define VHCA_PBL_ENTRIES_PER_PAGE	512
#define VHCA_PBL_PAGE_SIZE		(VHCA_PBL_ENTRIES_PER_PAGE * 8)	/* 4 KiB */

struct vhca_buf_desc {
	vhca_le64	addr;		/* see enum vhca_buf_mode */
	vhca_le32	npages;		/* pages of 2^page_shift bytes in the buffer */
	uint8_t		page_shift;	/* VHCA_MIN_PAGE_SHIFT..VHCA_MAX_PAGE_SHIFT */
	uint8_t		mode;		/* enum vhca_buf_mode */
	vhca_le16	rsvd;
};
VHCA_SIZE_CHECK(struct vhca_buf_desc, 16);

/* ------------------------------------------------------------------------
 * Completion queues (Guide 8).  A ring of 2^log_size struct vhca_cqe with
 * the same owner-bit rule as event queues.  The driver keeps its consumer
 * index in a doorbell record (vhca_cq_dbrec) that the device reads before
 * declaring the CQ full, and passes it with every arm doorbell.
 */
#define VHCA_MIN_LOG_CQ			1
/*
 * 2^22 - 1 CQEs at most, as mlx5 devices report: libfabric's ofi_rxm sizes
 * its CQ as (tx + rx size) * universe size, 65536 entries by default.
 */
#define VHCA_MAX_LOG_CQ			22

struct vhca_cmd_create_cq {
	struct vhca_buf_desc buf;	/* 2^log_size * sizeof(struct vhca_cqe) bytes */
	vhca_le64	dbrec_addr;	/* 8-byte aligned struct vhca_cq_dbrec */
	vhca_le32	eqn;		/* completion EQ, >= 1 */
	vhca_le32	db_page;	/* doorbell page allowed to ring it (0: kernel) */
	uint8_t		log_size;
	uint8_t		rsvd[31];
};
VHCA_SIZE_CHECK(struct vhca_cmd_create_cq, 64);

struct vhca_cq_dbrec {
	vhca_le32	consumer_index;	/* free running */
	vhca_le32	rsvd;
};
VHCA_SIZE_CHECK(struct vhca_cq_dbrec, 8);

/* Work completion status: IBA 11.4.2.1 and the ib_wc_status numbering. */
enum vhca_wc_status {
	VHCA_WC_SUCCESS			= 0,
	VHCA_WC_LOC_LEN_ERR		= 1,
	VHCA_WC_LOC_QP_OP_ERR		= 2,
	VHCA_WC_LOC_PROT_ERR		= 4,
	VHCA_WC_WR_FLUSH_ERR		= 5,
	VHCA_WC_MW_BIND_ERR		= 6,
	VHCA_WC_BAD_RESP_ERR		= 7,
	VHCA_WC_LOC_ACCESS_ERR		= 8,
	VHCA_WC_REM_INV_REQ_ERR		= 9,
	VHCA_WC_REM_ACCESS_ERR		= 10,
	VHCA_WC_REM_OP_ERR		= 11,
	VHCA_WC_RETRY_EXC_ERR		= 12,
	VHCA_WC_RNR_RETRY_EXC_ERR	= 13,
	VHCA_WC_REM_ABORT_ERR		= 16,
	VHCA_WC_FATAL_ERR		= 19,
	VHCA_WC_GENERAL_ERR		= 21,
	VHCA_WC_TM_ERR			= 22,	/* a tag list operation failed (vhca_hw_tm.h) */
	VHCA_WC_TM_RNDV_INCOMPLETE	= 23,	/* a rendezvous READ did not land */
};

/* Why an error completion happened (vhca_cqe.vendor_err), for debugging:
 * ibv_poll_cq shows it as vendor_err. */
enum vhca_vendor_err {
	VHCA_VERR_NONE			= 0,
	VHCA_VERR_BAD_KEY		= 1,	/* key names no valid region */
	VHCA_VERR_PD_MISMATCH		= 2,
	VHCA_VERR_ACCESS_RIGHTS		= 3,	/* region lacks the right */
	VHCA_VERR_BOUNDS		= 4,	/* access outside the region */
	VHCA_VERR_DMA_FAULT		= 5,	/* guest memory not accessible */
	VHCA_VERR_LENGTH		= 6,	/* message longer than the buffers */
	VHCA_VERR_BAD_WQE		= 7,	/* malformed work request */
	VHCA_VERR_RNR		= 8,	/* receiver not ready, retries exhausted */
	VHCA_VERR_NO_PEER		= 9,	/* no QP answers at the destination */
	VHCA_VERR_QP_STATE		= 10,	/* QP left RTS (flush) */
};

enum vhca_cqe_opcode {
	VHCA_CQE_SEND			= 0x00,
	VHCA_CQE_RDMA_WRITE		= 0x01,
	VHCA_CQE_RDMA_READ		= 0x02,
	VHCA_CQE_COMP_SWAP		= 0x03,
	VHCA_CQE_FETCH_ADD		= 0x04,
	VHCA_CQE_BIND_MW		= 0x05,
	VHCA_CQE_LOCAL_INV		= 0x06,
	VHCA_CQE_REG_MR			= 0x08,
	VHCA_CQE_ATOMIC_WRITE		= 0x09,	/* IBV_WC_ATOMIC_WRITE */
	VHCA_CQE_FLUSH			= 0x0e,	/* IBV_WC_FLUSH (8, the number of
						 * the device's REG_MR) */
	/* tag matching SRQs (vhca_hw_tm.h): the list operations, and every
	 * receive of a TM SRQ's message that carries a tag matching header */
	VHCA_CQE_TM_ADD			= 0x0a,	/* IBV_WC_TM_ADD */
	VHCA_CQE_TM_DEL			= 0x0b,	/* IBV_WC_TM_DEL */
	VHCA_CQE_TM_SYNC		= 0x0c,	/* IBV_WC_TM_SYNC */
	VHCA_CQE_TM_RECV		= 0x0d,	/* IBV_WC_TM_RECV, or IBV_WC_TM_NO_TAG
						 * with VHCA_CQE_TM_F_NO_TAG */
	VHCA_CQE_RECV			= 0x80,
	VHCA_CQE_RECV_RDMA_WITH_IMM	= 0x81,
};

#define VHCA_CQE_F_GRH			(1u << 0)	/* a GRH precedes the UD payload */
#define VHCA_CQE_F_IMM			(1u << 1)	/* imm_inv holds immediate data */
#define VHCA_CQE_F_INV			(1u << 2)	/* imm_inv holds the invalidated rkey */
#define VHCA_CQE_F_XRC			(1u << 3)	/* a receive of an XRC SRQ: srqn names it */

struct vhca_cqe {
	vhca_le64	wr_id;
	vhca_le32	byte_len;	/* receives and RDMA READ: bytes placed */
	vhca_le32	qpn;		/* the local QP */
	vhca_le32	src_qp;		/* UD/GSI receives: the sender's QPN */
	vhca_le32	imm_inv;	/* immediate data as on the wire, or an rkey */
	uint8_t		opcode;		/* enum vhca_cqe_opcode */
	uint8_t		status;		/* enum vhca_wc_status */
	uint8_t		flags;		/* VHCA_CQE_F_* */
	uint8_t		sl;
	vhca_le16	slid;
	uint8_t		dlid_path_bits;
	uint8_t		vendor_err;	/* enum vhca_vendor_err */
	vhca_le16	pkey_index;
	vhca_le16	wqe_index;	/* low 16 bits of the completed WQE's index:
					 * frees every earlier unsignaled send WQE */
	uint8_t		rsvd0[2];
	vhca_le64	timestamp;	/* the device clock (VHCA_DB_CLOCK) when the
					 * CQE was written, in ns */
	vhca_le32	srqn;		/* VHCA_CQE_F_XRC: the XRC SRQ whose WQE
					 * completed (qpn: the XRC target QP);
					 * TM list operations: the TM SRQ */
	vhca_le32	tm_tag_lo;	/* VHCA_CQE_TM_RECV with TM_F_MATCH: the */
	vhca_le32	tm_tag_hi;	/*  tag of the message's header */
	vhca_le16	tm_handle;	/* TM CQEs: the tag entry (vhca_tm_op.handle) */
	uint8_t		tm_flags;	/* TM CQEs: VHCA_CQE_TM_F_* (vhca_hw_tm.h) */
	uint8_t		owner;		/* same rule as vhca_eqe.owner */
};
VHCA_SIZE_CHECK(struct vhca_cqe, 64);

/* ------------------------------------------------------------------------
 * Address vectors (IBA 10.2.3): carried in UD send WQEs and QP contexts;
 * the device has no address handle objects.
 */
#define VHCA_AV_F_GRH			(1u << 0)

struct vhca_av {
	vhca_le16	dlid;
	uint8_t		sl;
	uint8_t		src_path_bits;
	uint8_t		static_rate;	/* IB rate code, 0 = port rate */
	uint8_t		port;		/* 1..num_ports */
	uint8_t		flags;		/* VHCA_AV_F_GRH */
	uint8_t		sgid_index;
	uint8_t		hop_limit;
	uint8_t		traffic_class;
	vhca_le16	rsvd0;
	vhca_le32	flow_label;	/* [19:0] */
	uint8_t		dgid[16];	/* network byte order */
};
VHCA_SIZE_CHECK(struct vhca_av, 32);

/* ------------------------------------------------------------------------
 * Queue pairs (Guide 7, IBA 10.3).  QPN 0 and 1 of each port are its SMI
 * and GSI QPs (created with type SMI/GSI and the port); other QPNs are
 * allocated by the device from 2 up, 24 bits.
 */
/* The device handle of a QP (CREATE_QP's result[0], the QP commands, the
 * SQ/RQ doorbells, vhca_cqe.qpn) is its QPN, except for SMI/GSI QPs: every
 * port has its own QPN 0 and 1, so their handle names the port too. */
#define VHCA_SPECIAL_QP_HANDLE(port, qpn) \
	((((uint32_t)(port) - 1u) << 23) | (uint32_t)(qpn))	/* port 1: 0/1; port 2: 0x800000/1 */

enum vhca_qp_type {
	VHCA_QPT_RC			= 1,
	VHCA_QPT_UC			= 2,
	VHCA_QPT_UD			= 3,
	VHCA_QPT_SMI			= 4,
	VHCA_QPT_GSI			= 5,
	/* XRC (IBA A14, VHCA_DEV_CAP_XRC): the initiator has a send queue
	 * only and connects like RC; the target has no queues of its own and
	 * belongs to an XRC domain: each request names an XRC SRQ of that
	 * domain, which gives the receive WQE, the CQ and the PD. */
	VHCA_QPT_XRC_INI		= 6,
	VHCA_QPT_XRC_TGT		= 7,
};

/* IBA 10.3.1 QP states, ib_qp_state numbering. */
enum vhca_qp_state {
	VHCA_QPS_RESET			= 0,
	VHCA_QPS_INIT			= 1,
	VHCA_QPS_RTR			= 2,
	VHCA_QPS_RTS			= 3,
	VHCA_QPS_SQD			= 4,
	VHCA_QPS_SQE			= 5,
	VHCA_QPS_ERR			= 6,
};

#define VHCA_MAX_LOG_WQ			15
#define VHCA_MIN_SQ_WQE_SHIFT		6	/* 64-byte send WQEs at least */
#define VHCA_MIN_RQ_WQE_SHIFT		5
#define VHCA_MAX_WQE_SHIFT		10	/* 1 KiB */
/* CREATE_QP refuses a larger max_inline (device.md "CREATE_QP"). */
#define VHCA_MAX_INLINE			512
/* The most SGEs one WQE can name: vhca_wqe_ctrl.num_sge is 8 bits. */
#define VHCA_MAX_SGE_PER_WQE		255

#define VHCA_QP_F_SQ_SIG_ALL		(1u << 0)	/* every send WQE completes */
#define VHCA_QP_F_HAS_SRQ		(1u << 1)	/* receives come from srqn */

struct vhca_cmd_create_qp {
	uint8_t		type;		/* enum vhca_qp_type */
	uint8_t		port;		/* SMI/GSI: the port; others: 0 */
	uint8_t		sq_log_size;	/* WQEs, 0..VHCA_MAX_LOG_WQ */
	uint8_t		rq_log_size;	/* 0 with VHCA_QP_F_HAS_SRQ, XRC */
	uint8_t		sq_wqe_shift;	/* log2 bytes per send WQE */
	uint8_t		rq_wqe_shift;	/* log2 bytes per receive WQE */
	uint8_t		flags;		/* VHCA_QP_F_* */
	uint8_t		rsvd0;
	vhca_le32	pdn;
	vhca_le32	send_cqn;
	vhca_le32	recv_cqn;
	vhca_le32	srqn;		/* with VHCA_QP_F_HAS_SRQ */
	vhca_le32	db_page;	/* doorbell page allowed to ring it (0: kernel) */
	vhca_le32	max_inline;	/* bytes of inline data a send WQE may carry */
	struct vhca_buf_desc sq_buf;
	struct vhca_buf_desc rq_buf;
	/* ---- ABI minor 1; a device of minor 0 reads the 64 bytes above ---- */
	vhca_le64	rq_dbrec_addr;	/* 8-byte aligned struct vhca_wq_dbrec of the
					 * receive queue; 0: none, RQ doorbells only.
					 * Ignored with VHCA_QP_F_HAS_SRQ. */
	vhca_le32	xrcdn;		/* XRC_TGT: its XRC domain.  An XRC_TGT
					 * QP has no rings, CQs or PD: sizes,
					 * buffers, pdn and cqns are ignored;
					 * an XRC_INI QP has no receive queue */
	vhca_le32	rsvd2;
	/* ---- ABI minor 2 ---- */
	vhca_le64	sq_dbrec_addr;	/* 8-byte aligned struct vhca_wq_dbrec of the
					 * send queue; 0: none, SQ doorbells only.
					 * Ignored by XRC_TGT (no send queue). */
	uint8_t		rsvd1[40];
};
VHCA_SIZE_CHECK(struct vhca_cmd_create_qp, 128);
/* in_len of CREATE_QP without rq_dbrec_addr (a driver for minor 0). */
#define VHCA_CMD_CREATE_QP_V0_LEN	64

/*
 * Receive doorbell records (as mlx5's): the driver posts receive WQEs
 * with memory writes only.  It writes the WQEs, then (dma_wmb) the new
 * free-running producer index into the record; no MMIO access.  The
 * device reads the record (DMA, like every guest read) when it needs a
 * receive WQE and finds the queue empty by the producer index it has, and
 * before it flushes the queue or decides an SRQ limit event.  A record
 * value behind the device's producer index or more than the ring size
 * ahead of its consumer index is ignored (guest error, trace event).  The
 * RQ/SRQ doorbells still work and set the same producer index; a driver
 * uses one or the other.  A QP moved to RESET starts again at index 0: the
 * driver zeroes the record before it moves the QP out of RESET.
 *
 * Send doorbell records (ABI minor 2, VHCA_DEV_CAP_SQ_POLL): the same
 * record for a send queue (CREATE_QP's sq_dbrec_addr).  The device polls
 * the records of its QPs for a while after activity (property sq-poll,
 * Documentation/device.md "Send doorbell records and SQ polling") and
 * says so in device_flags: VHCA_WQ_DBREC_F_POLLED set, the device will
 * see the new producer index without a doorbell; clear, it sleeps and
 * the driver rings the SQ doorbell.  The driver writes the WQEs, dma_wmb,
 * the producer index, then a full barrier (smp_mb: store then load)
 * before it reads device_flags; the device clears the flag, full
 * barrier, then reads every record once more before it sleeps (virtio's
 * VRING_USED_F_NO_NOTIFY protocol), so a WQE is never left unseen.  The
 * record value is checked as a receive record's; the device writes
 * device_flags only, the driver producer_index only (zeroed at create
 * and after RESET, as a receive record).
 */
#define VHCA_WQ_DBREC_F_POLLED		(1u << 0)	/* send records: no doorbell needed */

struct vhca_wq_dbrec {
	vhca_le32	producer_index;	/* free running, as in the doorbell */
	vhca_le32	device_flags;	/* send records: VHCA_WQ_DBREC_F_*; written
					 * by the device; receive records: 0 */
};
VHCA_SIZE_CHECK(struct vhca_wq_dbrec, 8);

/* MODIFY_QP attribute mask: the IB_QP_* bit values of ib_verbs.h. */
enum vhca_qp_attr {
	VHCA_QP_ATTR_STATE		= 1u << 0,
	VHCA_QP_ATTR_CUR_STATE		= 1u << 1,
	VHCA_QP_ATTR_EN_SQD_ASYNC_NOTIFY = 1u << 2,
	VHCA_QP_ATTR_ACCESS_FLAGS	= 1u << 3,
	VHCA_QP_ATTR_PKEY_INDEX		= 1u << 4,
	VHCA_QP_ATTR_PORT		= 1u << 5,
	VHCA_QP_ATTR_QKEY		= 1u << 6,
	VHCA_QP_ATTR_AV			= 1u << 7,
	VHCA_QP_ATTR_PATH_MTU		= 1u << 8,
	VHCA_QP_ATTR_TIMEOUT		= 1u << 9,
	VHCA_QP_ATTR_RETRY_CNT		= 1u << 10,
	VHCA_QP_ATTR_RNR_RETRY		= 1u << 11,
	VHCA_QP_ATTR_RQ_PSN		= 1u << 12,
	VHCA_QP_ATTR_MAX_QP_RD_ATOMIC	= 1u << 13,
	VHCA_QP_ATTR_MIN_RNR_TIMER	= 1u << 15,
	VHCA_QP_ATTR_SQ_PSN		= 1u << 16,
	VHCA_QP_ATTR_MAX_DEST_RD_ATOMIC	= 1u << 17,
	VHCA_QP_ATTR_DEST_QPN		= 1u << 20,
};

/* Access rights of QPs (remote) and memory regions: IB_ACCESS_* values. */
#define VHCA_ACCESS_LOCAL_WRITE		(1u << 0)
#define VHCA_ACCESS_REMOTE_WRITE	(1u << 1)
#define VHCA_ACCESS_REMOTE_READ		(1u << 2)
#define VHCA_ACCESS_REMOTE_ATOMIC	(1u << 3)
#define VHCA_ACCESS_MW_BIND		(1u << 4)	/* regions: windows may be bound */
/* IBA 1.5 A19 memory placement: the FLUSH placement types a QP and a
 * region accept (IB_ACCESS_FLUSH_GLOBAL, IB_ACCESS_FLUSH_PERSISTENT) */
#define VHCA_ACCESS_FLUSH_GLOBAL	(1u << 8)
#define VHCA_ACCESS_FLUSH_PERSISTENT	(1u << 9)
#define VHCA_ACCESS_FLUSH		(VHCA_ACCESS_FLUSH_GLOBAL | \
					 VHCA_ACCESS_FLUSH_PERSISTENT)

/* QP attributes, written by MODIFY_QP (fields named by attr_mask) and read
 * by QUERY_QP (all fields, attr_mask 0).  The device checks every state
 * transition and its required/optional attributes (IBA 11.2.4.2 table 91)
 * itself. */
struct vhca_qp_context {
	vhca_le32	attr_mask;	/* enum vhca_qp_attr bits */
	uint8_t		state;		/* enum vhca_qp_state */
	uint8_t		cur_state;
	uint8_t		path_mtu;	/* IB MTU code */
	uint8_t		port;
	vhca_le32	qkey;
	vhca_le32	rq_psn;		/* [23:0] */
	vhca_le32	sq_psn;		/* [23:0] */
	vhca_le32	dest_qpn;	/* [23:0] */
	vhca_le32	access_flags;	/* VHCA_ACCESS_REMOTE_* */
	vhca_le16	pkey_index;
	uint8_t		max_rd_atomic;
	uint8_t		max_dest_rd_atomic;
	uint8_t		min_rnr_timer;	/* IBA 9.7.5.2.8 encoding */
	uint8_t		timeout;	/* 4.096 us * 2^timeout; 0 = infinite */
	uint8_t		retry_cnt;	/* 0..7 */
	uint8_t		rnr_retry;	/* 0..7, 7 = infinite */
	uint8_t		sq_draining;	/* QUERY_QP in SQD: 1 while WQEs are in flight */
	uint8_t		en_sqd_async_notify;
	uint8_t		rsvd0[2];
	struct vhca_av	av;		/* primary path */
	uint8_t		rsvd[56];
};
VHCA_SIZE_CHECK(struct vhca_qp_context, 128);

/* ------------------------------------------------------------------------
 * Shared receive queues (IBA 10.2.9).  Receive WQEs as for QPs.
 */
/* XRC SRQs (IBA A14.2.3): in an XRC domain, with their own CQ; XRC
 * target QPs of the domain take WQEs from them, and every completion goes
 * to this CQ (VHCA_CQE_F_XRC).  No QP is created with such an SRQ. */
#define VHCA_SRQ_F_XRC			(1u << 0)

struct vhca_cmd_create_srq {
	struct vhca_buf_desc buf;
	vhca_le32	pdn;
	vhca_le32	db_page;
	vhca_le32	limit;		/* SRQ limit event threshold, 0 = disarmed */
	uint8_t		log_size;	/* WQEs */
	uint8_t		wqe_shift;	/* log2 bytes per receive WQE */
	uint8_t		flags;		/* VHCA_SRQ_F_* */
	uint8_t		rsvd0;
	vhca_le64	dbrec_addr;	/* ABI minor 1: 8-byte aligned struct
					 * vhca_wq_dbrec; 0: none, SRQ doorbells only */
	vhca_le32	xrcdn;		/* VHCA_SRQ_F_XRC: its XRC domain */
	vhca_le32	cqn;		/* VHCA_SRQ_F_XRC: its CQ */
	uint8_t		rsvd[16];
};
VHCA_SIZE_CHECK(struct vhca_cmd_create_srq, 64);

struct vhca_cmd_srq_limit_in {		/* MODIFY_SRQ */
	vhca_le32	srqn;
	vhca_le32	limit;		/* arms the SRQ limit event (IBA 11.2.3.2) */
	uint8_t		rsvd[24];
};
VHCA_SIZE_CHECK(struct vhca_cmd_srq_limit_in, 32);

/*
 * RESIZE_SRQ (VHCA_DEV_CAP_SRQ_RESIZE; ibv_modify_srq with IBV_SRQ_MAX_WR,
 * IBA 11.2.3.3): the SRQ moves to a new ring.  in_addr holds a struct
 * vhca_cmd_create_srq: buf, log_size and dbrec_addr describe the new ring
 * and its doorbell record; wqe_shift, pdn, db_page, flags, xrcdn and cqn
 * must be the SRQ's, limit 0 (MODIFY_SRQ arms the limit) and rsvd zero.
 * The device first takes the producer index of the old record, then
 * copies the WQEs it has not consumed, index i of the old ring to index
 * i of the new one (slot i mod the new size): the free-running producer
 * and consumer indexes go on unchanged, so the WQEs posted before the
 * resize are consumed in order and the poster keeps its counters.
 * result[0] is that producer index: a poster that did not hold its lock
 * across the command (a kernel SRQ) copies the WQEs it posted after it
 * to the new ring itself and stores its producer index in the new record.
 * BAD_PARAM: another wqe_shift, PD, page, flags, a nonzero limit, a
 * tag matching SRQ, or more unconsumed WQEs than the new ring holds; the
 * old ring stays the SRQ's.
 */

/* ------------------------------------------------------------------------
 * Memory regions (Guide 6, IBA 10.6).  A key is index << 8 | variant; the
 * lkey and rkey of a region are the same key.  The device checks, on every
 * access: the key names a valid region, the region's PD is the QP's PD,
 * the region has the access right, and the access lies inside
 * [iova, iova + length).
 */
#define VHCA_KEY_INDEX(key)		((key) >> 8)
#define VHCA_KEY_VARIANT(key)		((key) & 0xff)
/* The reserved local DMA lkey (ib_device_attr.local_dma_lkey): addresses
 * are DMA addresses; accepted only from kernel QPs (db_page 0). */
#define VHCA_LOCAL_DMA_LKEY		0x00000000u

#define VHCA_MR_F_PHYSICAL		(1u << 0)	/* iova is the DMA address, no page list */

struct vhca_cmd_create_mr {
	vhca_le64	iova;		/* first byte's address in the region's space */
	vhca_le64	length;
	struct vhca_buf_desc pages;	/* ignored with VHCA_MR_F_PHYSICAL */
	vhca_le32	pdn;
	vhca_le32	access;		/* VHCA_ACCESS_* */
	vhca_le32	first_byte_offset; /* of iova within the first page */
	uint8_t		flags;		/* VHCA_MR_F_* */
	uint8_t		key_variant;
	uint8_t		rsvd[18];
};
VHCA_SIZE_CHECK(struct vhca_cmd_create_mr, 64);

struct vhca_cmd_alloc_mr_in {		/* ALLOC_MR: a fast-registration region */
	vhca_le32	pdn;
	vhca_le32	max_pages;	/* largest page list a REG_MR WQE may give */
	uint8_t		key_variant;
	uint8_t		rsvd[23];
};
VHCA_SIZE_CHECK(struct vhca_cmd_alloc_mr_in, 32);

/* ------------------------------------------------------------------------
 * Device memory (as mlx5's MEMIC): BAR 3 is max_dm_size bytes of memory in
 * the device that the CPU reads and writes directly (a guest kernel maps
 * an allocation's pages into the process that owns it) and that the data
 * path reaches through regions made by REG_DM_MR.  ALLOC_DM takes
 * round_up(length, VHCA_DM_PAGE_SIZE) bytes, aligned to
 * max(VHCA_DM_PAGE_SIZE, 2^log_align), and answers with their offset in
 * BAR 3, which FREE_DM names; FREE_DM is BUSY while regions use the
 * allocation.  ALLOC_DM clears the pages it gives (no data crosses from
 * one owner to the next); a reset frees every allocation and clears BAR 3.
 */
#define VHCA_DM_PAGE_SIZE		0x1000
#define VHCA_DM_MAX_LOG_ALIGN		20

struct vhca_cmd_alloc_dm_in {		/* ALLOC_DM */
	vhca_le64	length;		/* 1..max_dm_size bytes */
	uint8_t		log_align;	/* 0..VHCA_DM_MAX_LOG_ALIGN */
	uint8_t		rsvd[23];
};
VHCA_SIZE_CHECK(struct vhca_cmd_alloc_dm_in, 32);

/*
 * REG_DM_MR: a region whose addresses are zero-based (IBV_ACCESS_ZERO_BASED):
 * address a of the region is byte dm_offset + a of BAR 3, and
 * [dm_offset, dm_offset + length) must lie inside one allocation.  The
 * region is otherwise a CREATE_MR region (keys, PD, access, windows);
 * REREG_MR refuses it.
 */
struct vhca_cmd_reg_dm_mr_in {
	vhca_le32	dm_offset;	/* BAR 3 offset of the region's address 0 */
	vhca_le32	pdn;
	vhca_le64	length;
	vhca_le32	access;		/* VHCA_ACCESS_* */
	uint8_t		key_variant;
	uint8_t		rsvd[11];
};
VHCA_SIZE_CHECK(struct vhca_cmd_reg_dm_mr_in, 32);

/* ------------------------------------------------------------------------
 * Memory windows (IBA 10.6.7): a key in the regions' key space that grants
 * remote access to a range of a region once bound by a BIND_MW WQE.  Type
 * 1 windows are bound and unbound (length 0) by BIND_MW on any QP of their
 * PD; type 2 (2B) windows are bound only when free, to the QP that posted
 * the BIND_MW, which alone may use and invalidate them (LOCAL_INV, or
 * SEND_WITH_INV arriving on it).  Each bind gives the window a new key
 * variant (the mw_key of the WQE), so DEALLOC_MW names the window by the
 * index of its key alone.  A region with bound windows cannot be
 * destroyed (BUSY).
 */
enum vhca_mw_type {
	VHCA_MW_TYPE_1			= 1,
	VHCA_MW_TYPE_2			= 2,
};

struct vhca_cmd_alloc_mw_in {		/* ALLOC_MW: a free window */
	vhca_le32	pdn;
	uint8_t		type;		/* enum vhca_mw_type */
	uint8_t		key_variant;
	uint8_t		rsvd[26];
};
VHCA_SIZE_CHECK(struct vhca_cmd_alloc_mw_in, 32);

/* ------------------------------------------------------------------------
 * Multicast (IBA 10.5): a UD QP attached to a group receives every packet
 * sent to its MLID on the fabric.
 */
struct vhca_cmd_mcast_in {		/* ATTACH_MCAST, DETACH_MCAST */
	vhca_le32	qpn;
	vhca_le16	mlid;		/* 0xc000..0xfffe */
	uint8_t		rsvd0[2];
	uint8_t		mgid[16];	/* network byte order */
	uint8_t		rsvd[8];
};
VHCA_SIZE_CHECK(struct vhca_cmd_mcast_in, 32);

/* ------------------------------------------------------------------------
 * Send WQEs.  2^sq_wqe_shift bytes each: a control segment, then the
 * opcode's segment (if any), then num_sge scatter/gather entries or
 * inline_len bytes of inline data.  The device rejects a WQE whose
 * segments do not fit its stride (VHCA_WC_LOC_QP_OP_ERR, BAD_WQE).  Which
 * segment an opcode has, and every other rule about it, is its row of the
 * opcode table (vhca_hw_wqe_rules.h).
 */
enum vhca_wqe_opcode {
	VHCA_WQE_RDMA_WRITE		= 0x00,
	VHCA_WQE_RDMA_WRITE_WITH_IMM	= 0x01,
	VHCA_WQE_SEND			= 0x02,
	VHCA_WQE_SEND_WITH_IMM		= 0x03,
	VHCA_WQE_RDMA_READ		= 0x04,
	VHCA_WQE_ATOMIC_CMP_AND_SWP	= 0x05,
	VHCA_WQE_ATOMIC_FETCH_AND_ADD	= 0x06,
	VHCA_WQE_LOCAL_INV		= 0x07,
	VHCA_WQE_BIND_MW		= 0x08,
	VHCA_WQE_SEND_WITH_INV		= 0x09,
	VHCA_WQE_FLUSH			= 0x0e,	/* IBA 1.5 A19.4.1 (VHCA_DEV_CAP_FLUSH_*) */
	VHCA_WQE_ATOMIC_WRITE		= 0x0f,	/* IBA 1.5 9.4.6 (VHCA_DEV_CAP_ATOMIC_WRITE) */
	VHCA_WQE_REG_MR			= 0x20,
};

#define VHCA_WQE_F_SIGNALED		(1u << 0)	/* write a CQE on success */
#define VHCA_WQE_F_SOLICITED		(1u << 1)	/* solicited event at the responder */
#define VHCA_WQE_F_FENCE		(1u << 2)	/* wait for earlier READs/atomics */
#define VHCA_WQE_F_INLINE		(1u << 3)	/* data follows inline, no SGEs */

struct vhca_wqe_ctrl {
	vhca_le64	wr_id;
	uint8_t		opcode;		/* enum vhca_wqe_opcode */
	uint8_t		flags;		/* VHCA_WQE_F_* */
	uint8_t		num_sge;
	uint8_t		rsvd0;
	vhca_le32	imm_inv;	/* immediate data (wire order) or rkey */
	vhca_le32	inline_len;
	vhca_le32	xrc_srqn;	/* XRC_INI: [23:0] the remote XRC SRQ
					 * (the XRCETH of IBA A14.3.1); else 0 */
	uint8_t		rsvd[8];
};
VHCA_SIZE_CHECK(struct vhca_wqe_ctrl, 32);

struct vhca_wqe_raddr {
	vhca_le64	remote_addr;
	vhca_le32	rkey;
	vhca_le32	rsvd;
};
VHCA_SIZE_CHECK(struct vhca_wqe_raddr, 16);

struct vhca_wqe_atomic {
	vhca_le64	remote_addr;	/* 8-byte aligned */
	vhca_le32	rkey;
	vhca_le32	rsvd;
	vhca_le64	compare_add;	/* compare value, or the addend */
	vhca_le64	swap;		/* swap value (CMP_AND_SWP); ATOMIC_WRITE:
					 * the 8 bytes to store, in memory
					 * order (loaded and stored as le64,
					 * so they arrive unchanged) */
};
VHCA_SIZE_CHECK(struct vhca_wqe_atomic, 32);

/*
 * FLUSH (IBA 1.5 A19.4.1, memory placement extensions): makes the data of
 * the RDMA WRITEs, atomics and ATOMIC WRITEs before it globally visible
 * and/or persistent in [remote_addr, remote_addr + length) of the region
 * of rkey, or in the whole region.  On the wire a RETH (address, key,
 * length) and a FETH (placement type, selectivity level); the answer is an
 * RDMA READ response without payload.  The placement types are
 * IB_FLUSH_GLOBAL / IB_FLUSH_PERSISTENT (bits, both may be set); the
 * selectivity IB_FLUSH_RANGE / IB_FLUSH_MR.
 */
#define VHCA_FLUSH_GLOBAL		(1u << 0)	/* FETH PLT: global visibility */
#define VHCA_FLUSH_PERSISTENT		(1u << 1)	/* FETH PLT: persistence */
#define VHCA_FLUSH_RANGE		0		/* FETH SEL: the range */
#define VHCA_FLUSH_MR			1		/* FETH SEL: the whole region */
/* The FETH's 32 bits: SEL in bits 5:4, PLT in bits 3:0 (rxe_hdr.h). */
#define VHCA_FETH(type, level)		(((uint32_t)(type) & 0xf) | \
					 (((uint32_t)(level) & 3) << 4))
#define VHCA_FETH_PLT(feth)		((feth) & 0xf)
#define VHCA_FETH_SEL(feth)		(((feth) >> 4) & 3)

struct vhca_wqe_flush {
	vhca_le64	remote_addr;	/* VHCA_FLUSH_RANGE: the range's start */
	vhca_le32	rkey;
	vhca_le32	length;		/* VHCA_FLUSH_RANGE: its bytes (0: none) */
	uint8_t		type;		/* VHCA_FLUSH_GLOBAL | VHCA_FLUSH_PERSISTENT */
	uint8_t		level;		/* VHCA_FLUSH_RANGE or VHCA_FLUSH_MR */
	uint8_t		rsvd[14];
};
VHCA_SIZE_CHECK(struct vhca_wqe_flush, 32);

struct vhca_wqe_ud {
	struct vhca_av	av;
	vhca_le32	remote_qpn;
	vhca_le32	remote_qkey;	/* high bit set: use the QP's own qkey (IBA 10.2.5) */
	vhca_le16	pkey_index;	/* GSI: the P_Key to send with */
	uint8_t		rsvd[6];
};
VHCA_SIZE_CHECK(struct vhca_wqe_ud, 48);

struct vhca_wqe_reg_mr {		/* IB_WR_REG_MR: (re)binds a FRWR region */
	vhca_le32	key;		/* the ALLOC_MR key with the new variant */
	vhca_le32	access;		/* VHCA_ACCESS_* */
	vhca_le64	iova;
	vhca_le64	length;
	struct vhca_buf_desc pages;	/* npages <= the region's max_pages */
	vhca_le32	first_byte_offset;
	uint8_t		rsvd[4];
};
VHCA_SIZE_CHECK(struct vhca_wqe_reg_mr, 48);

struct vhca_wqe_bind_mw {		/* binds (length 0: unbinds) a window */
	vhca_le32	mw_key;		/* the window's key with the new variant */
	vhca_le32	mr_key;		/* the region the window lies in */
	vhca_le64	addr;		/* in the region's address space */
	vhca_le64	length;
	vhca_le32	access;		/* VHCA_ACCESS_REMOTE_* */
	uint8_t		rsvd[4];
};
VHCA_SIZE_CHECK(struct vhca_wqe_bind_mw, 32);

struct vhca_sge {
	vhca_le64	addr;
	vhca_le32	length;
	vhca_le32	lkey;
};
VHCA_SIZE_CHECK(struct vhca_sge, 16);

/* Receive WQEs (QP receive queues and SRQs): this header, then num_sge
 * struct vhca_sge, in 2^rq_wqe_shift bytes. */
struct vhca_rwqe_hdr {
	vhca_le64	wr_id;
	uint8_t		num_sge;
	uint8_t		rsvd[7];
};
VHCA_SIZE_CHECK(struct vhca_rwqe_hdr, 16);

/* ------------------------------------------------------------------------
 * Data doorbells: 64-bit writes at these offsets of a doorbell page (the
 * kernel's page 0 or a user context's page).  The device ignores (with a
 * guest-error log) a doorbell naming an object that belongs to another
 * page.  Producer and consumer indexes are free-running 32-bit counts.
 */
enum vhca_db_data {
	VHCA_DB_SQ			= 0x010,	/* [23:0] qpn, [63:32] SQ producer index */
	VHCA_DB_RQ			= 0x018,	/* [23:0] qpn, [63:32] RQ producer index */
	VHCA_DB_SRQ			= 0x020,	/* [23:0] srqn, [63:32] producer index */
	VHCA_DB_CQ			= 0x028,	/* [23:0] cqn, [25:24] arm, [63:32] consumer index */
};

/*
 * Read-only, at this offset of every doorbell page: the device's clock, a
 * free-running 64-bit count of nanoseconds of the VM's virtual time
 * (QEMU_CLOCK_VIRTUAL: it stops while the VM is stopped), the clock of
 * vhca_cqe.timestamp; QUERY_DEVICE's hca_core_clock_khz is its rate.  One
 * 64-bit read; the provider's ibv_query_rt_values_ex.
 */
#define VHCA_DB_CLOCK			0x800
#define VHCA_CORE_CLOCK_KHZ		1000000u	/* it counts ns */

#define VHCA_DB_OBJ_MASK		0x00ffffffu
#define VHCA_DB_CQ_ARM_NEXT		(1u << 24)	/* event on the next CQE */
#define VHCA_DB_CQ_ARM_SOLICITED	(1u << 25)	/* event on a solicited or error CQE */

static inline uint64_t vhca_db_data_value(uint32_t obj, uint32_t flags, uint32_t index)
{
	return ((uint64_t)index << 32) | (obj & VHCA_DB_OBJ_MASK) | flags;
}

/* ------------------------------------------------------------------------
 * Asynchronous events of data path objects (more enum vhca_eqe_type
 * values), delivered on EQ 0 with struct vhca_eqe_object (vhca_hw.h).
 */
enum vhca_verbs_eqe_type {
	VHCA_EQE_QP_EVENT		= 0x04,	/* subtype: enum vhca_qp_event */
	VHCA_EQE_CQ_ERROR		= 0x05,	/* CQ overrun or access error: IB_EVENT_CQ_ERR */
	VHCA_EQE_SRQ_EVENT		= 0x06,	/* subtype: enum vhca_srq_event */
	VHCA_EQE_PAGE_FAULT		= 0x07,	/* vhca_eqe_page_fault (vhca_hw_odp.h) */
};

enum vhca_qp_event {
	VHCA_QP_EV_COMM_EST		= 0x01,	/* IB_EVENT_COMM_EST */
	VHCA_QP_EV_SQ_DRAINED		= 0x02,	/* IB_EVENT_SQ_DRAINED */
	VHCA_QP_EV_LAST_WQE_REACHED	= 0x03,	/* IB_EVENT_QP_LAST_WQE_REACHED */
	VHCA_QP_EV_FATAL		= 0x04,	/* IB_EVENT_QP_FATAL */
	VHCA_QP_EV_REQ_ERR		= 0x05,	/* IB_EVENT_QP_REQ_ERR */
	VHCA_QP_EV_ACCESS_ERR		= 0x06,	/* IB_EVENT_QP_ACCESS_ERR */
};

enum vhca_srq_event {
	VHCA_SRQ_EV_LIMIT_REACHED	= 0x01,	/* IB_EVENT_SRQ_LIMIT_REACHED */
	VHCA_SRQ_EV_ERR			= 0x02,	/* IB_EVENT_SRQ_ERR */
};

/* Which QP type may post which opcode, segment sizes, inline. */
#include "vhca_hw_wqe_rules.h"

/* The geometry of a QP's rings for the capabilities asked. */
#include "vhca_hw_qp_layout.h"

/* On-demand paging: absent pages, page faults, ODP_MAP/INVALIDATE/RESUME. */
#include "vhca_hw_odp.h"

/* Tag matching SRQs: the tag list, its operations, TM completions. */
#include "vhca_hw_tm.h"

#endif /* VHCA_HW_VERBS_H */
