/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca-abi.h - the user/kernel ABI of vhca: the driver-private data of the
 * uverbs commands (ib_udata in the kernel, the driver part of the
 * ibv_cmd_* buffers in the provider).
 *
 * Shared unchanged by the kernel shim (driver/shim/uverbs*.c) and the
 * libibverbs provider (provider/).  Rules:
 *  - fixed-width fields, every struct a multiple of 8 bytes with a size
 *    check, explicit reserved fields written as 0;
 *  - each request and response starts with comp_mask: a bit per optional
 *    field appended later.  The kernel refuses (-EINVAL) a request with a
 *    comp_mask bit it does not know and one shorter than the struct of
 *    this version; it answers with at most the length the provider gave
 *    (ib_copy_to_udata of min(outlen, sizeof)), so an older provider keeps
 *    working with a newer kernel.
 *  - VHCA_UVERBS_ABI_VERSION is ib_device_ops.uverbs_abi_ver and the
 *    provider's match_{min,max}_abi_version: bump it on any incompatible
 *    change.
 *
 * The data path itself is the device's (vhca_hw_verbs.h): the provider
 * writes WQEs in the device format into rings in its own memory, rings the
 * 64-bit data doorbells of its context's doorbell page, and polls CQEs
 * with the owner bit.  Ring geometry: the provider computes it with the
 * same rules as the driver core (Documentation/driver.md "User verbs")
 * and the kernel refuses a request whose geometry differs.
 */
#ifndef VHCA_ABI_H
#define VHCA_ABI_H

#include "vhca_hw.h"

/* 2: receive doorbell records (rq_dbrec_offset, dbrec_offset of the SRQ) */
#define VHCA_UVERBS_ABI_VERSION		2

/*
 * The driver id the device registers (ib_device_ops.driver_id, reported to
 * libibverbs as RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID) and the provider passes to
 * verbs_init_and_alloc_context: RDMA_DRIVER_VHCA of enum rdma_driver_id
 * (rdma/ib_user_ioctl_verbs.h), the entry after RDMA_DRIVER_IONIC (21)
 * that scripts/rdma-core-patches.sh adds to rdma-core's copy of the enum;
 * the kernel headers this driver builds against do not have it yet.
 */
#define VHCA_RDMA_DRIVER_ID		22

/* Every user ring and the doorbell records live in page-aligned user
 * memory, described to the device in pages of this size. */
#define VHCA_UVERBS_PAGE_SIZE		4096u

/* ---- ucontext (ibv_open_device -> alloc_ucontext) ---- */
struct vhca_alloc_ucontext_req {
	uint64_t	comp_mask;	/* 0 */
};
VHCA_SIZE_CHECK(struct vhca_alloc_ucontext_req, 8);

/* vhca_alloc_ucontext_resp.comp_mask: the fields a kernel fills beyond
 * those of the first version (an older kernel leaves them 0). */
#define VHCA_UCONTEXT_RESP_CLOCK	(1u << 0)	/* hca_core_clock_khz */
/* The device polls send doorbell records (VHCA_DEV_CAP_SQ_POLL): the
 * kernel takes create_qp requests with VHCA_CREATE_QP_REQ_SQ_DBREC. */
#define VHCA_UCONTEXT_RESP_SQ_POLL	(1u << 1)
#define VHCA_UCONTEXT_RESP_DEV_CAPS	(1u << 2)	/* dev_caps */
/* The driver keeps a PTP hardware clock over the device clock: the
 * provider maps its struct vhca_clock_info read-only at
 * clock_info_mmap_offset (one page) and converts CQE timestamps with it. */
#define VHCA_UCONTEXT_RESP_CLOCK_INFO	(1u << 3)

struct vhca_alloc_ucontext_resp {
	uint64_t	comp_mask;	/* VHCA_UCONTEXT_RESP_* */
	uint64_t	db_mmap_offset;	/* mmap() offset of the doorbell page */
	uint32_t	db_page;	/* the context's page in BAR 4 (>= 1) */
	uint32_t	db_page_size;	/* VHCA_DB_PAGE_SIZE */
	uint32_t	max_log_cq;	/* VHCA_MAX_LOG_CQ */
	uint32_t	max_log_wq;	/* VHCA_MAX_LOG_WQ */
	uint32_t	max_sge;	/* device limit (vhca_device_attr.max_sge) */
	uint32_t	max_qp_wr;	/* device limit (max_qp_wr) */
	uint32_t	max_srq_wr;	/* device limit (max_srq_wr) */
	uint32_t	hca_core_clock_khz; /* VHCA_UCONTEXT_RESP_CLOCK: the
					 * device clock's rate, 0: no clock */
	uint32_t	dev_caps;	/* VHCA_UCONTEXT_RESP_DEV_CAPS: the
					 * device's VHCA_DEV_CAP_* (what the
					 * provider may post, e.g. ATOMIC_WRITE) */
	uint32_t	rsvd;
	uint64_t	clock_info_mmap_offset;	/* VHCA_UCONTEXT_RESP_CLOCK_INFO */
};
VHCA_SIZE_CHECK(struct vhca_alloc_ucontext_resp, 64);

/*
 * The PTP hardware clock's conversion of the device clock (VHCA_DB_CLOCK,
 * the CQE timestamps) to its time, the kernel's timecounter
 * (include/linux/timecounter.h) as of its last update: the layout of
 * mlx5's clock info page (struct ib_uverbs_clock_info of rdma-core's
 * ib_user_verbs.h, mlx5dv_get_clock_info).  The driver rewrites it at
 * every settime, adjtime and adjfine of the PHC and at least every
 * overflow_period ns.  The page is read-only to the process; sign is a
 * sequence count: odd while the kernel writes, so a reader copies the
 * fields between two equal even reads of it.  A count c converts as
 *	delta = (c - cycles) & mask;
 *	ns = delta <= mask / 2 ? nsec + ((delta * mult + frac) >> shift)
 *	     : nsec - ((((cycles - c) & mask) * mult - frac) >> shift);
 * (mlx5dv_ts_to_ns: a count before cycles is an earlier timestamp).
 */
#define VHCA_CLOCK_INFO_KERNEL_UPDATING	1u	/* sign: a write in progress */

struct vhca_clock_info {
	uint32_t	sign;
	uint32_t	rsvd;
	uint64_t	nsec;		/* the PHC's time at cycles, ns */
	uint64_t	cycles;		/* the device count of the last update */
	uint64_t	frac;		/* the timecounter's sub-ns remainder */
	uint32_t	mult;		/* ns = count * mult >> shift */
	uint32_t	shift;
	uint64_t	mask;		/* of the count: all 64 bits */
	uint64_t	overflow_period;	/* ns between updates, at most */
};
VHCA_SIZE_CHECK(struct vhca_clock_info, 56);

/* ---- completion queues ----
 * One page-aligned buffer of buf_len bytes: 2^log_size struct vhca_cqe
 * (zeroed: owner 0, so the first pass with owner 1 sees nothing), then the
 * struct vhca_cq_dbrec at dbrec_offset (8-byte aligned, inside the buffer;
 * the provider stores its consumer index there after polling). */
struct vhca_create_cq_req {
	uint64_t	comp_mask;	/* 0 */
	uint64_t	buf_addr;	/* user virtual address, page aligned */
	uint64_t	buf_len;
	uint32_t	dbrec_offset;
	uint8_t		log_size;	/* smallest with 2^log_size - 1 >= cqe */
	uint8_t		rsvd[3];
};
VHCA_SIZE_CHECK(struct vhca_create_cq_req, 32);

struct vhca_create_cq_resp {
	uint64_t	comp_mask;	/* 0 */
	uint32_t	cqn;		/* for the CQ doorbell */
	uint32_t	rsvd;
};
VHCA_SIZE_CHECK(struct vhca_create_cq_resp, 16);

/* ibv_resize_cq: its driver data is a struct vhca_create_cq_req for a new
 * buffer laid out as for create, sized for the new cqe.  The provider
 * holds its poll lock across the command and has stored its consumer
 * index in the old record; the kernel's RESIZE_CQ moves the CQEs past it
 * to index 0 of the new ring, where polling resumes (consumer index 0).
 * On an error the old ring stays the CQ's. */

/* ---- queue pairs (RC, UC, UD) ----
 * The send ring (2^sq_log_size WQEs of 2^sq_wqe_shift bytes) and the
 * receive ring (none with an SRQ) are two page-aligned buffers.  The
 * receive queue's struct vhca_wq_dbrec is in the receive buffer at
 * rq_dbrec_offset (8-byte aligned, after the WQEs): post_recv stores its
 * producer index there and rings no doorbell (vhca_hw_verbs.h "Receive
 * doorbell records"); after a modify to RESET the provider zeroes it.
 *
 * With VHCA_CREATE_QP_REQ_SQ_DBREC (only if the ucontext answered
 * VHCA_UCONTEXT_RESP_SQ_POLL) the send queue's struct vhca_wq_dbrec is in
 * the send buffer at sq_dbrec_offset (8-byte aligned, after the WQEs);
 * if the answer has VHCA_CREATE_QP_RESP_SQ_DBREC, post_send stores its
 * producer index there and rings the SQ doorbell only while the record's
 * device_flags lacks VHCA_WQ_DBREC_F_POLLED (vhca_hw_verbs.h "Send
 * doorbell records").  A request of the first version (48 bytes, without
 * sq_dbrec_offset) is still taken. */
#define VHCA_CREATE_QP_REQ_SQ_DBREC	(1u << 0)	/* sq_dbrec_offset */
#define VHCA_CREATE_QP_REQ_V1_LEN	48

struct vhca_create_qp_req {
	uint64_t	comp_mask;	/* VHCA_CREATE_QP_REQ_* */
	uint64_t	sq_buf_addr;
	uint64_t	sq_buf_len;
	uint64_t	rq_buf_addr;	/* 0 with an SRQ */
	uint64_t	rq_buf_len;
	uint8_t		sq_log_size;
	uint8_t		sq_wqe_shift;
	uint8_t		rq_log_size;
	uint8_t		rq_wqe_shift;
	uint32_t	rq_dbrec_offset;	/* ignored with an SRQ */
	uint32_t	sq_dbrec_offset;	/* VHCA_CREATE_QP_REQ_SQ_DBREC */
	uint32_t	rsvd;
};
VHCA_SIZE_CHECK(struct vhca_create_qp_req, 56);

/* The device polls the send record: post_send may skip the doorbell. */
#define VHCA_CREATE_QP_RESP_SQ_DBREC	(1u << 0)

struct vhca_create_qp_resp {
	uint64_t	comp_mask;	/* VHCA_CREATE_QP_RESP_* */
	uint32_t	qpn;		/* the handle for the SQ/RQ doorbells */
	uint32_t	max_inline;	/* granted inline bytes per send WQE */
};
VHCA_SIZE_CHECK(struct vhca_create_qp_resp, 16);

/* ---- shared receive queues ----
 * One page-aligned buffer: the WQEs, then the struct vhca_wq_dbrec at
 * dbrec_offset (8-byte aligned, after the WQEs), as for a QP's receive
 * queue.  A tag matching SRQ (IBV_SRQT_TM, VHCA_CREATE_SRQ_REQ_TM) has a
 * second page-aligned buffer: its ring of 2^tm_ops_log_size list
 * operations (struct vhca_tm_op, uapi/vhca_hw_tm.h). */
#define VHCA_CREATE_SRQ_REQ_TM		(1u << 0)	/* the tm_* fields */

struct vhca_create_srq_req {
	uint64_t	comp_mask;	/* VHCA_CREATE_SRQ_REQ_* */
	uint64_t	buf_addr;
	uint64_t	buf_len;
	uint8_t		log_size;
	uint8_t		wqe_shift;
	uint8_t		rsvd[2];
	uint32_t	dbrec_offset;
	/* ---- VHCA_CREATE_SRQ_REQ_TM ---- */
	uint64_t	tm_ops_addr;
	uint64_t	tm_ops_len;
	uint8_t		tm_ops_log_size;	/* 0..VHCA_TM_MAX_LOG_OPS */
	uint8_t		rsvd1[7];
};
VHCA_SIZE_CHECK(struct vhca_create_srq_req, 56);
#define VHCA_CREATE_SRQ_REQ_V1_LEN	32

struct vhca_create_srq_resp {
	uint64_t	comp_mask;	/* 0 */
	uint32_t	srqn;		/* for the SRQ doorbell */
	uint32_t	rsvd;
};
VHCA_SIZE_CHECK(struct vhca_create_srq_resp, 16);

/* ibv_modify_srq with IBV_SRQ_MAX_WR (the kernel sets IB_DEVICE_SRQ_RESIZE
 * where the device has VHCA_DEV_CAP_SRQ_RESIZE): its driver data is this
 * request for a new buffer laid out as at create (log_size and wqe_shift
 * the geometry for the new max_wr and the SRQ's max_sge; dbrec_offset
 * after the WQEs).  The provider holds the SRQ's lock across the command
 * and has stored its producer index in the new record as in the old; the
 * device moves the WQEs it has not consumed to the same indexes of the
 * new ring (vhca_hw_verbs.h RESIZE_SRQ), so the provider's counters go
 * on.  On an error the old ring stays the SRQ's.  A modify_srq without
 * this request (a provider before it) and IBV_SRQ_MAX_WR: EOPNOTSUPP. */
struct vhca_modify_srq_req {
	uint64_t	comp_mask;	/* 0 */
	uint64_t	buf_addr;
	uint64_t	buf_len;
	uint8_t		log_size;
	uint8_t		wqe_shift;
	uint8_t		rsvd[2];
	uint32_t	dbrec_offset;
};
VHCA_SIZE_CHECK(struct vhca_modify_srq_req, 32);

/* ---- address handles ----
 * The device has no AH objects: UD send WQEs carry the address vector.
 * create_ah answers with it, ready to copy into struct vhca_wqe_ud.
 * The one exception to 8-byte alignment: this follows the 4-byte
 * struct ib_uverbs_create_ah_resp, so it has only 32-bit fields. */
struct vhca_create_ah_resp {
	uint32_t	comp_mask;	/* 0 */
	uint32_t	rsvd;
	struct vhca_av	av;
};
VHCA_SIZE_CHECK(struct vhca_create_ah_resp, 40);

/* ---- driver ioctl attributes and methods (UVERBS_ID_NS_SHIFT 12) ----
 * Methods that carry no driver data (no UHW attributes) answer with
 * driver attributes, as mlx5's do:
 *  - UVERBS_METHOD_DM_ALLOC: the mmap() offset of the allocation, whose
 *    whole pages (round_up(length, VHCA_DM_PAGE_SIZE) bytes, zeroed) the
 *    provider maps to copy to and from it;
 *  - UVERBS_METHOD_QUERY_CONTEXT (ibv_import_device): the context's
 *    struct vhca_alloc_ucontext_resp, as alloc_ucontext gave it;
 *  - VHCA_IB_METHOD_PD_QUERY on a PD (ibv_import_pd): its PD number;
 *  - VHCA_IB_METHOD_DM_QUERY on a DM (ibv_import_dm): its mmap() offset
 *    and length.
 * Enumerators, not macros: the kernel's method macros paste the names. */
enum vhca_ib_uapi_ids {
	VHCA_IB_ATTR_ALLOC_DM_MMAP_OFFSET = (1u << 12),	/* u64, out */
	VHCA_IB_ATTR_QUERY_CONTEXT_RESP = (1u << 12),	/* struct, out */
	VHCA_IB_METHOD_PD_QUERY = (1u << 12),
	VHCA_IB_ATTR_QUERY_PD_HANDLE = (1u << 12),	/* PD handle, in */
	VHCA_IB_ATTR_QUERY_PD_RESP_PDN,			/* u32, out */
	VHCA_IB_METHOD_DM_QUERY = (1u << 12),
	VHCA_IB_ATTR_QUERY_DM_HANDLE = (1u << 12),	/* DM handle, in */
	VHCA_IB_ATTR_QUERY_DM_RESP_MMAP_OFFSET,		/* u64, out */
	VHCA_IB_ATTR_QUERY_DM_RESP_LENGTH,		/* u64, out */
};

#endif /* VHCA_ABI_H */
