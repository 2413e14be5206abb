/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_hw_tm.h - tag matching SRQs (VHCA_DEV_CAP_TAG_MATCHING), the
 * offload of MPI's tag matching that mlx5's TM SRQ does and libibverbs
 * exposes (ibv_create_srq_ex with IBV_SRQT_TM, ibv_post_srq_ops,
 * ibv_wc_read_tm_info).  Included by vhca_hw_verbs.h.
 *
 * A TM SRQ (CREATE_SRQ with VHCA_SRQ_F_TM and vhca_cmd_create_srq_tm after
 * the 64 bytes of vhca_cmd_create_srq, in_len 128) is an SRQ with, in the
 * device, a list of up to max_num_tags tag entries (tag, mask, the wr_id
 * of the receive, one SGE), and a ring of list operations (vhca_tm_op) in
 * guest memory that the driver fills and announces with an SRQ doorbell
 * carrying VHCA_DB_SRQ_TM_OPS.  Every operation completes with a CQE on the
 * SRQ's CQ (cqn): opcode VHCA_CQE_TM_ADD/DEL/SYNC, srqn the SRQ, wqe_index
 * the operation's ring index (it frees the slot and every earlier one),
 * tm_handle the entry, and VHCA_CQE_TM_F_SIGNALED when the operation asked
 * for one (the provider gives only those to the application, as mlx5's
 * does with its command QP's completions).
 *
 * A SEND (not with immediate or invalidate) arriving on an RC QP of the
 * SRQ starts with a tag matching header (TMH, 16 bytes, network order:
 * opcode, 3 reserved, app_ctx, tag); EAGER and RNDV messages are matched
 * against the list: an entry matches when (TMH.tag & mask) == (tag & mask),
 * and the earliest added entry that matches is taken (MPI's order).
 *  - EAGER matched: the payload after the TMH goes to the entry's buffer;
 *    CQE TM_RECV with TM_F_MATCH | TM_F_DATA_VALID | TM_F_FREED, wr_id the
 *    entry's, tm_tag and imm_inv (the TMH app_ctx, wire order) set.
 *  - RNDV matched: the TMH is followed by a rendezvous header (RVH: va,
 *    rkey, len, network order).  CQE TM_RECV with TM_F_MATCH; the device
 *    then reads len bytes from va/rkey of the sender with an RDMA READ of
 *    the QP (its next PSNs) into the entry's buffer, completes TM_RECV with
 *    TM_F_DATA_VALID | TM_F_FREED (byte_len the bytes read; only TM_F_MATCH
 *    CQEs carry the tag), and sends the
 *    sender a 16-byte TMH with opcode FIN and the tag (an ordinary receive
 *    there).  A READ that does not land (refused, no answer, the QP's send
 *    queue busy, a sender in another process) completes with status
 *    TM_RNDV_INCOMPLETE: software does the rendezvous itself.
 *  - EAGER/RNDV unmatched ("unexpected"): an ordinary SRQ receive of the
 *    whole message, header included; CQE TM_RECV without TM_F_MATCH, and
 *    the SRQ's unexpected count grows by one.
 *  - NO_TAG (or another opcode, or a message shorter than a TMH): an
 *    ordinary SRQ receive, CQE TM_RECV with TM_F_NO_TAG.
 *
 * Phase synchronization (ibv_post_srq_ops(3)): software reports how many
 * unexpected messages it has handled in an operation with
 * VHCA_TM_OP_F_SYNC.  While that count differs from the device's, software
 * may not yet know of a message a new tag should have matched, so ADD is
 * refused (TM_ERR, TM_F_SYNC_REQ): entries already in the list still
 * match.  An operation CQE has TM_F_SYNC_REQ while the counts differ.
 */
#ifndef VHCA_HW_TM_H
#define VHCA_HW_TM_H

#ifndef VHCA_HW_H
#error "include vhca_hw.h instead"
#endif

/* Limits of this ABI version (ibv_tm_caps). */
#define VHCA_TM_MAX_TAGS		64	/* max_num_tags */
#define VHCA_TM_MAX_LOG_OPS		10	/* operation ring: max_ops 1024 */
#define VHCA_TM_MAX_SGE			1	/* SGEs of a tag entry */
#define VHCA_TM_MAX_RNDV_HDR		64	/* max_rndv_hdr_size: TMH + RVH + data */
#define VHCA_TM_TMH_LEN			16	/* struct ibv_tmh */
#define VHCA_TM_RVH_LEN			16	/* struct ibv_rvh */

/* TMH opcodes (enum ibv_tmh_op). */
enum vhca_tmh_op {
	VHCA_TMH_NO_TAG			= 0,
	VHCA_TMH_RNDV			= 1,
	VHCA_TMH_FIN			= 2,
	VHCA_TMH_EAGER			= 3,
};

#define VHCA_SRQ_F_TM			(1u << 1)	/* vhca_cmd_create_srq.flags */

/* CREATE_SRQ's second 64 bytes with VHCA_SRQ_F_TM (cqn is the CQ of the
 * operation completions, and must be given). */
struct vhca_cmd_create_srq_tm {
	struct vhca_buf_desc ops_buf;	/* 2^ops_log_size * 64 bytes */
	vhca_le32	max_num_tags;	/* 1..VHCA_TM_MAX_TAGS */
	uint8_t		ops_log_size;	/* 0..VHCA_TM_MAX_LOG_OPS */
	uint8_t		rsvd[43];
};
VHCA_SIZE_CHECK(struct vhca_cmd_create_srq_tm, 64);

/* The whole CREATE_SRQ input of a TM SRQ. */
struct vhca_cmd_create_tm_srq {
	struct vhca_cmd_create_srq	srq;	/* flags VHCA_SRQ_F_TM, cqn */
	struct vhca_cmd_create_srq_tm	tm;
};
VHCA_SIZE_CHECK(struct vhca_cmd_create_tm_srq, 128);
#define VHCA_CMD_CREATE_SRQ_TM_LEN	128

/* VHCA_DB_SRQ with this bit: [63:32] is the operation ring's producer
 * index (free running), not the receive ring's. */
#define VHCA_DB_SRQ_TM_OPS		(1u << 24)

enum vhca_tm_op_opcode {
	VHCA_TM_OP_ADD			= 1,	/* IBV_WR_TAG_ADD */
	VHCA_TM_OP_DEL			= 2,	/* IBV_WR_TAG_DEL */
	VHCA_TM_OP_SYNC			= 3,	/* IBV_WR_TAG_SYNC */
};

#define VHCA_TM_OP_F_SIGNALED		(1u << 0)	/* IBV_OPS_SIGNALED */
#define VHCA_TM_OP_F_SYNC		(1u << 1)	/* IBV_OPS_TM_SYNC: unexpected_cnt */

/* One list operation, 64 bytes in the operation ring. */
struct vhca_tm_op {
	vhca_le64	wr_id;		/* the operation's CQE */
	uint8_t		opcode;		/* enum vhca_tm_op_opcode */
	uint8_t		flags;		/* VHCA_TM_OP_F_* */
	uint8_t		num_sge;	/* ADD: 0..VHCA_TM_MAX_SGE */
	uint8_t		rsvd0;
	vhca_le32	unexpected_cnt;	/* with VHCA_TM_OP_F_SYNC */
	vhca_le32	handle;		/* ADD, DEL: the entry, < max_num_tags */
	vhca_le32	rsvd1;
	vhca_le64	recv_wr_id;	/* ADD: wr_id of the entry's TM_RECV CQEs */
	vhca_le64	tag;		/* ADD */
	vhca_le64	mask;		/* ADD */
	struct vhca_sge	sge;		/* ADD: the entry's buffer (LOCAL_WRITE) */
};
VHCA_SIZE_CHECK(struct vhca_tm_op, 64);
#define VHCA_TM_OP_SHIFT		6

/* vhca_cqe.tm_flags */
#define VHCA_CQE_TM_F_MATCH		(1u << 0)	/* IBV_WC_TM_MATCH */
#define VHCA_CQE_TM_F_DATA_VALID	(1u << 1)	/* IBV_WC_TM_DATA_VALID */
#define VHCA_CQE_TM_F_SYNC_REQ		(1u << 2)	/* IBV_WC_TM_SYNC_REQ */
#define VHCA_CQE_TM_F_NO_TAG		(1u << 3)	/* IBV_WC_TM_NO_TAG receive */
#define VHCA_CQE_TM_F_SIGNALED		(1u << 4)	/* the operation asked for it */
#define VHCA_CQE_TM_F_FREED		(1u << 5)	/* tm_handle is free again */

#endif /* VHCA_HW_TM_H */
