/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_core_verbs.h - the driver core's data path (CQ, QP, SRQ, MR,
 * multicast): the types and entry points the ib_device_ops of
 * driver/shim/ib.c call.  Documentation/driver.md "Data path API" maps
 * each ib_device_ops member to these functions.
 *
 * Same rules as vhca_core.h: 0 or a negative errno, no <stdint.h> names in
 * prototypes or here (64-bit values are unsigned long long).  Where a
 * value is an ib_verbs enum, the VHCA_CORE_* constants below carry the
 * same numbers and the shim static_asserts them, so it passes the ib_*
 * fields through.
 *
 * Context: create/destroy/modify/query/attach may sleep (commands);
 * post_*, poll_cq and arm_cq are callable from any context and never
 * sleep.
 */
#ifndef VHCA_CORE_VERBS_H
#define VHCA_CORE_VERBS_H

#include "vhca_core.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vhca_core_cq;
struct vhca_core_qp;
struct vhca_core_srq;
struct vhca_core_mr;

/* ---- scatter/gather: the layout of struct ib_sge ---- */
struct vhca_core_sge {
	unsigned long long addr;	/* DMA address; kernel virtual for inline */
	unsigned int length;
	unsigned int lkey;
};

/* ---- address vectors: rdma_ah_attr of an IB port ---- */
struct vhca_core_ah_attr {
	unsigned short dlid;
	unsigned char sl;
	unsigned char src_path_bits;
	unsigned char static_rate;	/* IB rate code, 0 = port rate */
	unsigned char port_num;
	unsigned char has_grh;		/* the GRH fields below are valid */
	unsigned char sgid_index;
	unsigned char hop_limit;
	unsigned char traffic_class;
	unsigned int flow_label;
	unsigned char dgid[16];		/* network byte order */
};

/* ---- work completions (the shim's converter writes them into ib_wc) ---- */
/* opcode: enum vhca_cqe_opcode == enum ib_wc_opcode values. */
#define VHCA_CORE_WC_GRH		(1u << 0)	/* IB_WC_GRH */
#define VHCA_CORE_WC_WITH_IMM		(1u << 1)	/* IB_WC_WITH_IMM */
#define VHCA_CORE_WC_WITH_INVALIDATE	(1u << 2)	/* IB_WC_WITH_INVALIDATE */

struct vhca_core_wc {
	unsigned long long wr_id;
	void *qp_context;		/* the QP's context from vhca_core_create_qp
					 * (the shim's ib_qp) */
	unsigned int status;		/* enum vhca_wc_status == ib_wc_status */
	unsigned int opcode;		/* enum vhca_cqe_opcode == ib_wc_opcode */
	unsigned int vendor_err;	/* enum vhca_vendor_err */
	unsigned int byte_len;
	unsigned int qp_num;		/* IBA QPN (0/1 for SMI/GSI) */
	unsigned int src_qp;
	unsigned int imm_inv;		/* immediate data (wire order) or rkey */
	unsigned int wc_flags;		/* VHCA_CORE_WC_* */
	unsigned short slid;
	unsigned short pkey_index;
	unsigned char sl;
	unsigned char dlid_path_bits;
};

/* ---- send work requests (struct ib_send_wr and its containers) ---- */
/* flags: the IB_SEND_* values. */
#define VHCA_CORE_SEND_FENCE		(1u << 0)	/* IB_SEND_FENCE */
#define VHCA_CORE_SEND_SIGNALED		(1u << 1)	/* IB_SEND_SIGNALED */
#define VHCA_CORE_SEND_SOLICITED	(1u << 2)	/* IB_SEND_SOLICITED */
#define VHCA_CORE_SEND_INLINE		(1u << 3)	/* IB_SEND_INLINE */

struct vhca_core_send_wr {
	unsigned long long wr_id;
	unsigned int opcode;		/* enum vhca_wqe_opcode == ib_wr_opcode */
	unsigned int flags;		/* VHCA_CORE_SEND_* */
	unsigned int imm_inv;		/* ex.imm_data (wire order) or invalidate_rkey */
	unsigned int num_sge;
	const struct vhca_core_sge *sg_list;
	union {
		struct {		/* RDMA_WRITE(_WITH_IMM), RDMA_READ */
			unsigned long long remote_addr;
			unsigned int rkey;
		} rdma;
		struct {		/* ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD,
					 * ATOMIC_WRITE (swap: the bytes to store) */
			unsigned long long remote_addr;
			unsigned long long compare_add;
			unsigned long long swap;
			unsigned int rkey;
		} atomic;
		struct {		/* SEND* on UD, GSI, SMI QPs */
			struct vhca_core_ah_attr ah;
			unsigned int remote_qpn;
			unsigned int remote_qkey;
			unsigned short pkey_index;
		} ud;
		struct {		/* REG_MR (ib_reg_wr) */
			struct vhca_core_mr *mr;
			unsigned int key;
			unsigned int access;	/* IB_ACCESS_* (VHCA_ACCESS_*) */
			/* The ib_mr's iova and length when the WR is posted:
			 * ULPs may rewrite iova after map_mr_sg (the NFS
			 * client puts its XID in the top bits). */
			unsigned long long iova;
			unsigned long long length;
		} reg;
	};
};

struct vhca_core_recv_wr {
	unsigned long long wr_id;
	unsigned int num_sge;
	const struct vhca_core_sge *sg_list;
};

/* ---- events ----
 * Handlers for the events that name data path objects, called from the
 * interrupt handler of the EQ (hard-IRQ context) with the context given
 * at creation (the shim's ib_cq / ib_qp / ib_srq).  After the object's
 * destroy returns, no handler runs for it any more.
 *   cq_completion: a COMPLETION event of an armed CQ (ib_cq.comp_handler).
 *   async_event: type is VHCA_EQE_QP_EVENT (subtype enum vhca_qp_event),
 *     VHCA_EQE_CQ_ERROR, or VHCA_EQE_SRQ_EVENT (subtype enum
 *     vhca_srq_event): the shim makes the ib_event. */
struct vhca_core_event_ops {
	void (*cq_completion)(void *cq_context);
	void (*async_event)(unsigned int type, unsigned int subtype,
			    void *context);
};
void vhca_core_set_event_ops(struct vhca_core_device *dev,
			     const struct vhca_core_event_ops *ops);

/* ---- completion queues ---- */
/* vhca_core_arm_cq flags: the IB_CQ_* values. */
#define VHCA_CORE_CQ_SOLICITED		(1u << 0)	/* IB_CQ_SOLICITED */
#define VHCA_CORE_CQ_NEXT_COMP		(1u << 1)	/* IB_CQ_NEXT_COMP */
#define VHCA_CORE_CQ_REPORT_MISSED	(1u << 2)	/* IB_CQ_REPORT_MISSED_EVENTS */

/* entries: at least this many CQEs (rounded up to a power of two, and one
 * more so a full ring is never ambiguous); *actual_entries gets the usable
 * count for ib_cq.cqe.  comp_vector: 0..num_comp_vectors-1. */
int vhca_core_create_cq(struct vhca_core_device *dev, unsigned int entries,
			unsigned int comp_vector, void *cq_context,
			struct vhca_core_cq **out, unsigned int *actual_entries);
int vhca_core_destroy_cq(struct vhca_core_cq *cq);
int vhca_core_resize_cq(struct vhca_core_cq *cq, unsigned int entries,
			unsigned int *actual_entries);
/*
 * A snapshot for restrack's fill_res_cq_entry (`rdma -dd resource show
 * cq`), taken under the CQ's lock: the device's CQN, the ring's
 * 2^log_size CQEs and, for a kernel CQ, the consumer index the core
 * polls at (a user CQ's is the provider's: user 1, consumer_index 0).
 */
struct vhca_core_cq_res {
	unsigned int cqn;
	unsigned int log_size;
	unsigned int consumer_index;
	unsigned int user;
};
void vhca_core_cq_snapshot(struct vhca_core_cq *cq, struct vhca_core_cq_res *res);
/*
 * poll_cq: up to num completions, each decoded once and handed to the
 * shim's converter as completion number index (0..num-1), which writes it
 * into the caller's array (ib_wc[index]); returns how many.  The converter
 * runs under the CQ's lock: it must not sleep, take locks or call back
 * into the core.
 */
typedef void (*vhca_core_wc_convert)(void *ctx, int index,
				     const struct vhca_core_wc *wc);
int vhca_core_poll_cq(struct vhca_core_cq *cq, int num,
		      vhca_core_wc_convert convert, void *ctx);
/* 0, or 1 with VHCA_CORE_CQ_REPORT_MISSED when a CQE was already waiting. */
int vhca_core_arm_cq(struct vhca_core_cq *cq, unsigned int flags);

/* ---- queue pairs ---- */
/* ib_qp_cap */
struct vhca_core_qp_cap {
	unsigned int max_send_wr;
	unsigned int max_recv_wr;
	unsigned int max_send_sge;
	unsigned int max_recv_sge;
	unsigned int max_inline_data;
};

struct vhca_core_qp_init {
	unsigned int type;		/* enum vhca_qp_type */
	unsigned int port;		/* SMI/GSI: 1..num_ports; else 0 */
	unsigned int pdn;		/* not for XRC_TGT */
	unsigned int xrcdn;		/* XRC_TGT: its XRC domain (no CQs, PD, caps) */
	struct vhca_core_cq *send_cq;	/* XRC_INI: no recv_cq */
	struct vhca_core_cq *recv_cq;
	struct vhca_core_srq *srq;	/* or NULL */
	unsigned int sq_sig_all;	/* IB_SIGNAL_ALL_WR */
	struct vhca_core_qp_cap cap;	/* in: requested; out: granted */
	void *qp_context;		/* returned in vhca_core_wc.qp_context */
};

/* ib_qp_attr; attr_mask is IB_QP_* (== enum vhca_qp_attr values). */
struct vhca_core_qp_attr {
	unsigned int qp_state;
	unsigned int cur_qp_state;
	unsigned int path_mtu;
	unsigned int qkey;
	unsigned int rq_psn;
	unsigned int sq_psn;
	unsigned int dest_qp_num;
	unsigned int qp_access_flags;
	unsigned short pkey_index;
	unsigned char port_num;
	unsigned char max_rd_atomic;
	unsigned char max_dest_rd_atomic;
	unsigned char min_rnr_timer;
	unsigned char timeout;
	unsigned char retry_cnt;
	unsigned char rnr_retry;
	unsigned char en_sqd_async_notify;
	unsigned char sq_draining;
	struct vhca_core_ah_attr ah_attr;
};

int vhca_core_create_qp(struct vhca_core_device *dev,
			struct vhca_core_qp_init *init,
			struct vhca_core_qp **out);
/* The QPN of IBA for ib_qp.qp_num (0/1 for SMI/GSI). */
unsigned int vhca_core_qp_num(const struct vhca_core_qp *qp);
/*
 * A snapshot for restrack's fill_res_qp_entry (`rdma -dd resource show
 * qp`): the device's handle (the QPN; SMI/GSI's names the port too) and,
 * for a kernel QP, its rings' 2^log_size WQEs and producer and consumer
 * indexes, each read under its ring's lock (a user QP's rings are the
 * provider's: user 1, the rest 0).  has_rq 0: an SRQ or XRC, no RQ.
 */
struct vhca_core_qp_res {
	unsigned int handle;
	unsigned int user;
	unsigned int sq_log_size;
	unsigned int sq_producer;
	unsigned int sq_consumer;
	unsigned int has_rq;
	unsigned int rq_log_size;
	unsigned int rq_producer;
	unsigned int rq_consumer;
};
void vhca_core_qp_snapshot(struct vhca_core_qp *qp, struct vhca_core_qp_res *res);
int vhca_core_modify_qp(struct vhca_core_qp *qp,
			const struct vhca_core_qp_attr *attr,
			unsigned int attr_mask);
int vhca_core_query_qp(struct vhca_core_qp *qp, struct vhca_core_qp_attr *attr);
int vhca_core_destroy_qp(struct vhca_core_qp *qp);
/*
 * post_send / post_recv / post_srq_recv of a whole chain (ib_send_wr's
 * next pointers): the queue's lock is taken once, every WR is converted by
 * the shim's callback (item -> *wr, and the next item or NULL) and written
 * into the ring, and one doorbell covers all of them.  On an error *item
 * is the WR that failed (the caller's bad_wr); those before it are posted.
 * Errors: the converter's, -EINVAL (a WR the queue cannot take: too many
 * SGEs, too much inline data, an opcode the QP type does not allow; or a
 * user queue, which the provider posts to), -ENOMEM (the ring is full).
 */
typedef int (*vhca_core_send_wr_convert)(void *ctx, const void *item,
					 struct vhca_core_send_wr *wr,
					 const void **next);
typedef int (*vhca_core_recv_wr_convert)(const void *item,
					 struct vhca_core_recv_wr *wr,
					 const void **next);
int vhca_core_post_send_chain(struct vhca_core_qp *qp, const void **item,
			      vhca_core_send_wr_convert convert, void *ctx);
int vhca_core_post_recv_chain(struct vhca_core_qp *qp, const void **item,
			      vhca_core_recv_wr_convert convert);
int vhca_core_attach_mcast(struct vhca_core_qp *qp, unsigned short mlid,
			   const unsigned char mgid[16]);
int vhca_core_detach_mcast(struct vhca_core_qp *qp, unsigned short mlid,
			   const unsigned char mgid[16]);

/* ---- shared receive queues ---- */
int vhca_core_create_srq(struct vhca_core_device *dev, unsigned int pdn,
			 unsigned int max_wr, unsigned int max_sge,
			 unsigned int limit, void *srq_context,
			 struct vhca_core_srq **out,
			 unsigned int *actual_wr, unsigned int *actual_sge);
int vhca_core_modify_srq(struct vhca_core_srq *srq, unsigned int limit);
int vhca_core_query_srq(struct vhca_core_srq *srq, unsigned int *limit);
/* IB_SRQ_MAX_WR of a kernel SRQ (IBA 11.2.3.3): a new ring for max_wr,
 * the WQEs posted and not completed kept in order; *actual_wr the
 * granted size.  -EINVAL: more of them than max_wr; -EOPNOTSUPP: a
 * device without VHCA_DEV_CAP_SRQ_RESIZE. */
int vhca_core_resize_srq(struct vhca_core_srq *srq, unsigned int max_wr,
			 unsigned int *actual_wr);
int vhca_core_destroy_srq(struct vhca_core_srq *srq);
/* post_srq_recv of a chain: as vhca_core_post_recv_chain. */
int vhca_core_post_srq_recv_chain(struct vhca_core_srq *srq, const void **item,
				  vhca_core_recv_wr_convert convert);

/* ---- memory regions ---- */
/* A physical region (VHCA_MR_F_PHYSICAL): addresses are DMA addresses in
 * [dma_addr, dma_addr + length), length <= max_mr_size, all of it memory
 * the device can reach.  Not ib_get_dma_mr: the device cannot describe
 * "all memory" (Documentation/driver.md), so get_dma_mr stays absent. */
int vhca_core_create_dma_mr(struct vhca_core_device *dev, unsigned int pdn,
			    unsigned int access, unsigned long long dma_addr,
			    unsigned long long length,
			    struct vhca_core_mr **out);
/* reg_user_mr: a page list of npages, filled with vhca_core_mr_set_page
 * (ib_umem_for_each_dma_block), then vhca_core_mr_register. */
int vhca_core_create_paged_mr(struct vhca_core_device *dev,
			      unsigned int npages, struct vhca_core_mr **out);
void vhca_core_mr_set_page(struct vhca_core_mr *mr, unsigned int index,
			   unsigned long long page_addr);
int vhca_core_mr_register(struct vhca_core_mr *mr, unsigned int pdn,
			  unsigned long long iova, unsigned long long length,
			  unsigned int page_shift, unsigned int access);
/* rereg_user_mr: a registered paged region takes the translation of
 * `staged` (a paged region filled but not registered), the PD and the
 * access, and keeps its key (REREG_MR).  On success `staged` holds the old
 * pages: destroy it (no command).  On an error nothing changed. */
int vhca_core_mr_reregister(struct vhca_core_mr *mr, struct vhca_core_mr *staged,
			    unsigned int pdn, unsigned long long iova,
			    unsigned long long length, unsigned int page_shift,
			    unsigned int access);
/* alloc_mr (IB_MR_TYPE_MEM_REG): a fast-registration region. */
int vhca_core_alloc_frwr_mr(struct vhca_core_device *dev, unsigned int pdn,
			    unsigned int max_pages, struct vhca_core_mr **out);
/* map_mr_sg: ib_sg_to_pages with a set_page that calls
 * vhca_core_mr_set_page(mr, n++, addr), after vhca_core_mr_map_begin;
 * then vhca_core_mr_map_end with the ib_mr's iova/length/page_size. */
void vhca_core_mr_map_begin(struct vhca_core_mr *mr);
int vhca_core_mr_map_end(struct vhca_core_mr *mr, unsigned int npages,
			 unsigned long long iova, unsigned long long length,
			 unsigned int page_shift);
unsigned int vhca_core_mr_key(const struct vhca_core_mr *mr);

/* ---- on-demand paging (vhca_hw_odp.h, driver.md "On-demand paging") ----
 * reg_user_mr with IB_ACCESS_ON_DEMAND: an ODP region of npages absent
 * pages of 2^page_shift bytes; destroyed with vhca_core_destroy_mr.
 * create_implicit_odp_mr: the whole address space (addr 0, length
 * U64_MAX), page i at address i << page_shift, -EOPNOTSUPP without
 * VHCA_DEV_CAP_ODP_IMPLICIT.
 * odp_map makes pages [first_page, +npages) present at dma[] (sleeps:
 * one ODP_MAP command per 64 pages); odp_invalidate makes them absent and
 * returns when the device no longer uses them; odp_resume restarts the
 * QP (device handle) after a page fault, error != 0: the fault could not
 * be resolved (the QP's work fails). */
int vhca_core_create_odp_mr(struct vhca_core_device *dev, unsigned int pdn,
			    unsigned long long iova, unsigned long long length,
			    unsigned int first_byte_offset, unsigned int npages,
			    unsigned int page_shift, unsigned int access,
			    struct vhca_core_mr **out);
int vhca_core_create_implicit_odp_mr(struct vhca_core_device *dev,
				     unsigned int pdn, unsigned int page_shift,
				     unsigned int access,
				     struct vhca_core_mr **out);
int vhca_core_odp_map(struct vhca_core_mr *mr, unsigned long long first_page,
		      unsigned int npages, const unsigned long long *dma);
int vhca_core_odp_invalidate(struct vhca_core_mr *mr,
			     unsigned long long first_page,
			     unsigned int npages);
int vhca_core_odp_resume(struct vhca_core_device *dev, unsigned int qp_handle,
			 int error);
/* Page-fault events, called from the EQ 0 interrupt handler (hard IRQ):
 * subtype enum vhca_page_fault_subtype, the QP's device handle, the
 * region's key, the access [addr, addr + len) in the region's address
 * space, flags VHCA_PF_F_*. */
typedef void (*vhca_core_page_fault_fn)(void *context, unsigned int subtype,
					unsigned int qp_handle, unsigned int key,
					unsigned long long addr,
					unsigned int len, unsigned int flags);
void vhca_core_set_page_fault_handler(struct vhca_core_device *dev,
				      vhca_core_page_fault_fn fn,
				      void *context);
int vhca_core_destroy_mr(struct vhca_core_mr *mr);

#ifdef __cplusplus
}
#endif

#endif /* VHCA_CORE_VERBS_H */
