/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_hw_qp_layout.h - the one computation of a queue's geometry:
 * the WQE strides and log sizes of a QP's (or an SRQ's) rings for the
 * capabilities a consumer asks, and the capabilities that geometry grants
 * (IBA 11.2.4.1: a QP may get more than it asked, never less).  Compiled
 * unchanged by the driver core (qp_attributes.cpp ComputeQpLayout) and the
 * provider (queues.c), so that a ring the provider allocates is the ring
 * the kernel driver checks and the device reads.  Also a CQ's size.
 *
 * Included by vhca_hw_verbs.h; include vhca_hw.h, not this file.
 */
#ifndef VHCA_HW_QP_LAYOUT_H
#define VHCA_HW_QP_LAYOUT_H

#ifndef VHCA_HW_VERBS_H
#error "include vhca_hw.h instead"
#endif

/*
 * A send WQE: the control segment, room for the largest opcode segment
 * (RC/UC: raddr 16, atomic 32, reg_mr 48; datagram: ud 48), then the SGEs
 * or the inline data.  The same for every QP type, so that the reported
 * limits hold for every opcode.
 */
#define VHCA_SEND_WQE_HEAD_BYTES \
	(sizeof(struct vhca_wqe_ctrl) + sizeof(struct vhca_wqe_reg_mr))
VHCA_SIZE_CHECK(struct vhca_wqe_ud, sizeof(struct vhca_wqe_reg_mr));

/* What a consumer asks of a work queue, and what it is granted. */
struct vhca_wq_caps {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

struct vhca_wq_geometry {
	uint32_t sq_log_size;
	uint32_t sq_wqe_shift;
	uint32_t rq_log_size;		/* 0 with an SRQ: no receive ring */
	uint32_t rq_wqe_shift;
	struct vhca_wq_caps granted;
};

/* Smallest log with 2^log >= value (value >= 1). */
static inline uint32_t vhca_ceil_log2(uint32_t value)
{
	uint32_t log = 0;

	while ((1ull << log) < value)
		log++;
	return log;
}

static inline uint32_t vhca_min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static inline uint32_t vhca_max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/*
 * The geometry for `cap` on a device reporting device_max_wr and
 * device_max_sge (vhca_device_attr).  Returns 0, or -1 when the request
 * exceeds the device's or this ABI's limits (the callers' -EINVAL).
 */
static inline int vhca_wq_compute_geometry(const struct vhca_wq_caps *cap,
					   int has_srq, uint32_t device_max_wr,
					   uint32_t device_max_sge,
					   struct vhca_wq_geometry *g)
{
	const uint32_t max_wr = vhca_min_u32(device_max_wr, 1u << VHCA_MAX_LOG_WQ);
	const uint32_t max_sge = vhca_min_u32(device_max_sge, VHCA_MAX_SGE_PER_WQE);
	const uint32_t head = (uint32_t)VHCA_SEND_WQE_HEAD_BYTES;
	const uint32_t rhead = (uint32_t)sizeof(struct vhca_rwqe_hdr);
	const uint32_t sge = (uint32_t)sizeof(struct vhca_sge);
	uint32_t send_data, sq_room;

	if (cap->max_send_wr > max_wr || cap->max_send_sge > max_sge ||
	    cap->max_recv_sge > max_sge || cap->max_inline_data > VHCA_MAX_INLINE ||
	    (!has_srq && cap->max_recv_wr > max_wr))
		return -1;
	send_data = vhca_max_u32(cap->max_send_sge * sge, cap->max_inline_data);
	g->sq_wqe_shift = vhca_max_u32(vhca_ceil_log2(head + send_data),
				       VHCA_MIN_SQ_WQE_SHIFT);
	g->sq_log_size = vhca_ceil_log2(vhca_max_u32(cap->max_send_wr, 1));
	g->rq_wqe_shift = vhca_max_u32(vhca_ceil_log2(rhead + cap->max_recv_sge * sge),
				       VHCA_MIN_RQ_WQE_SHIFT);
	g->rq_log_size = has_srq ? 0 : vhca_ceil_log2(vhca_max_u32(cap->max_recv_wr, 1));
	if (g->sq_wqe_shift > VHCA_MAX_WQE_SHIFT || g->rq_wqe_shift > VHCA_MAX_WQE_SHIFT)
		return -1;

	sq_room = (1u << g->sq_wqe_shift) - head;
	g->granted.max_send_wr = 1u << g->sq_log_size;
	g->granted.max_send_sge = vhca_min_u32(sq_room / sge, max_sge);
	g->granted.max_inline_data = vhca_min_u32(sq_room, VHCA_MAX_INLINE);
	g->granted.max_recv_wr = has_srq ? 0 : 1u << g->rq_log_size;
	g->granted.max_recv_sge = has_srq ? 0 :
		vhca_min_u32(((1u << g->rq_wqe_shift) - rhead) / sge, max_sge);
	return 0;
}

/*
 * A CQ's log size for `entries` completions: one slot stays free (a full
 * ring would look empty), so 2^log - 1 >= entries.  0 when entries is 0 or
 * more than the largest CQ holds.
 */
static inline uint32_t vhca_cq_log_size(uint32_t entries)
{
	uint32_t log_size = VHCA_MIN_LOG_CQ;

	if (entries == 0)
		return 0;
	while (log_size <= VHCA_MAX_LOG_CQ && (1u << log_size) - 1 < entries)
		log_size++;
	return log_size <= VHCA_MAX_LOG_CQ ? log_size : 0;
}

#endif /* VHCA_HW_QP_LAYOUT_H */
