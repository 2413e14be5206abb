/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca.h - the vhca libibverbs provider's objects.  vhca.c: device,
 * context and the verbs that go through the kernel (ibv_cmd_*); queues.c:
 * CQ/QP/SRQ creation with rings in our memory; datapath.c: post_send,
 * post_recv, post_srq_recv, poll_cq and req_notify_cq on the rings and the
 * doorbell page, without a system call; xrc.c: XRC domains, XRC SRQs
 * and the XRC QPs.
 */
#ifndef VHCA_PROVIDER_H
#define VHCA_PROVIDER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <endian.h>
#include <stdint.h>
#include <string.h>

/*
 * rdma-core's provider interface and its helpers.  In rdma-core's tree
 * these are its own; out of tree (scripts/build-provider.sh, against
 * Debian 12's rdma-core 44) infiniband/driver.h is compat-44/'s and util/
 * comes from the pristine rdma-core 65.0 source (provider/README.md).
 */
#include <infiniband/driver.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <util/mmio.h>
#include <util/udma_barrier.h>

#include <rdma/vhca-abi.h>
#include "vhca_hw.h"

struct ibv_dmabuf_heap;		/* rdma-core 65's infiniband/dmabuf_heap.h */

struct vhca_context {
	struct verbs_context ibv_ctx;
	volatile void *db;		/* the mmap'd doorbell page */
	uint32_t db_page;
	uint32_t max_sge;
	uint32_t max_qp_wr;
	uint32_t max_srq_wr;
	uint32_t dev_caps;		/* VHCA_DEV_CAP_*; 0 from an older kernel */
	bool has_clock;			/* clock.c: CQE timestamps, VHCA_DB_CLOCK */
	bool sq_poll;			/* the kernel takes send records */
	uint64_t realtime_offset_ns;	/* CLOCK_REALTIME - device clock */
	/* clock.c: the PHC's conversion (mapped read-only), NULL: none */
	const volatile struct vhca_clock_info *clock_info;
	pthread_mutex_t qp_table_lock;	/* also of xrc_srq_table */
	struct vhca_qp **qp_table;	/* by qpn & (kQpTableSize - 1), chained */
	/* XRC SRQs by srqn, chained: their CQEs name the SRQ (VHCA_CQE_F_XRC)
	 * and a target QP this process may not know */
	struct vhca_srq **xrc_srq_table;
};

/*
 * The lock of a queue (a CQ, a QP's send or receive queue, an SRQ).  An
 * object of a thread domain, or a CQ created IBV_CREATE_CQ_ATTR_SINGLE_-
 * THREADED, is promised to one thread at a time: it takes no lock, and
 * in_use catches a second thread that breaks the promise (abort, as
 * mlx5's single-threaded locks do).  The doorbells are single 64-bit
 * stores, so nothing else needs the lock.
 */
struct vhca_lock {
	pthread_spinlock_t spin;
	bool single_threaded;
	bool in_use;
};

void vhca_lock_violation(void) __attribute__((noreturn));

static inline void vhca_lock_init(struct vhca_lock *lock, bool single_threaded)
{
	lock->single_threaded = single_threaded;
	lock->in_use = false;
	pthread_spin_init(&lock->spin, PTHREAD_PROCESS_PRIVATE);
}

static inline void vhca_lock_destroy(struct vhca_lock *lock)
{
	pthread_spin_destroy(&lock->spin);
}

static inline void vhca_lock(struct vhca_lock *lock)
{
	if (!lock->single_threaded) {
		pthread_spin_lock(&lock->spin);
		return;
	}
	if (__atomic_exchange_n(&lock->in_use, true, __ATOMIC_ACQUIRE))
		vhca_lock_violation();
}

static inline void vhca_unlock(struct vhca_lock *lock)
{
	if (!lock->single_threaded)
		pthread_spin_unlock(&lock->spin);
	else
		__atomic_store_n(&lock->in_use, false, __ATOMIC_RELEASE);
}

/* A thread domain (pd.c): users counts the parent domains that name it. */
struct vhca_td {
	struct ibv_td ibv_td;
	atomic_uint users;
};

/*
 * A protection domain, or a parent domain (pd.c): protection_domain is
 * NULL for a PD, the PD a parent domain stands for otherwise.  users: the
 * parent domains of a PD, the queue buffers a parent domain's allocator
 * gave; either keeps the domain from being freed.
 */
struct vhca_pd {
	struct ibv_pd ibv_pd;
	struct vhca_pd *protection_domain;
	struct vhca_td *td;		/* a parent domain's thread domain, or NULL */
	atomic_uint users;
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
	/* a parent domain of IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_-
	 * ALLOC on a device whose DMA bounces: the CoCo shared DMA-buf heap
	 * that ibv_alloc_buf takes its memory from (pd.c); else NULL */
	struct ibv_dmabuf_heap *cc_heap;
};

/*
 * The resource_type a parent domain's allocator is given, one per ring
 * (rdma-core leaves the values to the provider, as mlx5dv's
 * MLX5DV_RES_TYPE_*; the high half tells providers apart); applications
 * see them in man/vhca.7.md.
 */
#define VHCA_RES_TYPE_BASE ((uint64_t)0x76686361 << 32)	/* "vhca" */
enum {
	VHCA_RES_TYPE_CQ = VHCA_RES_TYPE_BASE + 1,	/* CQEs + doorbell record */
	VHCA_RES_TYPE_SQ = VHCA_RES_TYPE_BASE + 2,	/* a QP's send queue */
	VHCA_RES_TYPE_RQ = VHCA_RES_TYPE_BASE + 3,	/* a QP's receive queue */
	VHCA_RES_TYPE_SRQ = VHCA_RES_TYPE_BASE + 4,
};

/* A ring in our memory: 2^log_size entries of 2^shift bytes. */
struct vhca_ring {
	void *buf;
	size_t buf_len;
	struct vhca_pd *owner;		/* whose allocator gave buf; NULL: heap */
	uint64_t res_type;		/* VHCA_RES_TYPE_* */
	uint32_t log_size;
	uint32_t shift;
	uint32_t pi;			/* free running, the poster's */
	uint32_t ci;			/* free running, advanced by poll_cq */
	/* receive rings, and send rings of a device that polls them: the
	 * doorbell record in buf after the WQEs, where post_recv/post_send
	 * store pi (vhca_hw_verbs.h "Receive doorbell records", "Send
	 * doorbell records"); NULL: none */
	struct vhca_wq_dbrec *dbrec;
};

struct vhca_cq {
	struct verbs_cq vcq;
	struct vhca_lock lock;
	struct vhca_ring ring;		/* the CQEs; shift 6 */
	struct vhca_cq_dbrec *dbrec;	/* in ring.buf after the CQEs */
	struct ibv_pd *parent_domain;	/* its rings' allocator, or NULL */
	uint32_t cqn;
	/* extended CQs (cq_ex.c): the CQE being read, ring.ci at start_poll */
	const struct vhca_cqe *current;
	uint32_t poll_start;
};

struct vhca_srq {
	struct verbs_srq vsrq;
	struct vhca_srq *next;		/* xrc_srq_table chain */
	struct vhca_lock lock;
	struct vhca_ring ring;
	uint32_t srqn;
	uint32_t max_sge;
	bool xrc;			/* IBV_SRQT_XRC */
	struct vhca_tm *tm;		/* IBV_SRQT_TM (tm.c), else NULL */
};

/* A send WQE being written into the ring (post_send and the ibv_wr_* API):
 * its data (SGEs or inline bytes) starts at `offset`. */
struct vhca_send_wqe {
	char *wqe;
	uint32_t offset;
	uint32_t data_len;	/* inline bytes so far */
};

struct vhca_qp {
	struct verbs_qp vqp;
	struct vhca_qp *next;		/* qp_table chain */
	struct vhca_lock sq_lock;
	struct vhca_lock rq_lock;
	struct vhca_ring sq;
	struct vhca_ring rq;		/* unused with an SRQ, and XRC */
	struct vhca_srq *srq;
	uint32_t qpn;
	uint8_t type;			/* enum vhca_qp_type */
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline;
	/* the ibv_wr_* API (qp_ex.c), under sq_lock from wr_start to
	 * wr_complete/wr_abort */
	uint64_t send_ops;		/* IBV_QP_EX_WITH_*; 0: no ibv_wr_* */
	struct vhca_send_wqe wr_wqe;	/* the open WQE */
	uint32_t wr_start_pi;
	int wr_err;			/* first error of the batch */
	bool wr_open;
	bool wr_need_ud;		/* UD WQE still without its address */
};

struct vhca_ah {
	struct ibv_ah ibv_ah;
	struct vhca_av av;		/* from the kernel, into UD WQEs */
};

#define VHCA_QP_TABLE_SIZE 256

static inline struct vhca_context *to_vctx(struct ibv_context *ctx)
{
	return container_of(ctx, struct vhca_context, ibv_ctx.context);
}
static inline struct vhca_pd *to_vpd(struct ibv_pd *pd)
{
	return container_of(pd, struct vhca_pd, ibv_pd);
}
static inline struct vhca_td *to_vtd(struct ibv_td *td)
{
	return container_of(td, struct vhca_td, ibv_td);
}
static inline struct vhca_cq *to_vcq(struct ibv_cq *cq)
{
	return container_of(cq, struct vhca_cq, vcq.cq);
}
static inline struct vhca_qp *to_vqp(struct ibv_qp *qp)
{
	return container_of(qp, struct vhca_qp, vqp.qp);
}
static inline struct vhca_srq *to_vsrq(struct ibv_srq *srq)
{
	return container_of(srq, struct vhca_srq, vsrq.srq);
}
static inline struct vhca_ah *to_vah(struct ibv_ah *ah)
{
	return container_of(ah, struct vhca_ah, ibv_ah);
}

/* One 64-bit doorbell write (vhca_hw_verbs.h "Data doorbells"), after
 * the ring writes it announces. */
static inline void vhca_ring_doorbell(struct vhca_context *ctx,
				      uint32_t offset, uint64_t value)
{
	udma_to_device_barrier();
	mmio_write64_le((void *)((uintptr_t)ctx->db + offset), htole64(value));
}

/* An index the device reads from a doorbell record (little-endian); the
 * caller orders it after what it announces. */
static inline void vhca_dbrec_store(vhca_le32 *field, uint32_t value)
{
	*(volatile vhca_le32 *)field = htole32(value);
}

/*
 * Hand the send WQEs up to qp->sq.pi to the device (sq_lock held).  With
 * a send record (vhca_hw_verbs.h "Send doorbell records"): the index
 * into the record (release: after the WQEs), a full fence (store then
 * load, paired with the device's clear-then-read before it sleeps), and
 * the doorbell only if the device does not poll the record now.
 */
static inline void vhca_sq_kick(struct vhca_context *ctx, struct vhca_qp *qp)
{
	struct vhca_wq_dbrec *rec = qp->sq.dbrec;

	if (rec) {
		udma_to_device_barrier();
		vhca_dbrec_store(&rec->producer_index, qp->sq.pi);
		atomic_thread_fence(memory_order_seq_cst);
		if (le32toh(*(volatile vhca_le32 *)&rec->device_flags) &
		    VHCA_WQ_DBREC_F_POLLED)
			return;
	}
	vhca_ring_doorbell(ctx, VHCA_DB_SQ,
			   vhca_db_data_value(qp->qpn, 0, qp->sq.pi));
}

/* pd.c */
struct ibv_pd *vhca_alloc_pd(struct ibv_context *context);
struct ibv_pd *vhca_alloc_parent_domain(struct ibv_context *context,
					struct ibv_parent_domain_init_attr *attr);
int vhca_dealloc_pd(struct ibv_pd *pd);
struct ibv_td *vhca_alloc_td(struct ibv_context *context,
			     struct ibv_td_init_attr *attr);
int vhca_dealloc_td(struct ibv_td *td);
/* Whether the objects created through pd are promised to one thread. */
bool vhca_pd_single_threaded(struct ibv_pd *pd);
int vhca_queue_buf_alloc(struct ibv_pd *pd, size_t len, size_t align,
			 uint64_t type, void **buf, struct vhca_pd **owner);
void vhca_queue_buf_free(struct vhca_pd *owner, void *buf, size_t len,
			 uint64_t type);
#if IBVERBS_PABI_VERSION >= 65
void *vhca_alloc_buf(struct ibv_pd *pd, size_t size, struct ibv_buf **buf);
void vhca_free_buf(struct ibv_buf *buf);
#endif

/* clock.c */
uint64_t vhca_read_clock(struct vhca_context *ctx);
void vhca_clock_init(struct vhca_context *ctx,
		     const struct vhca_alloc_ucontext_resp *drv);
void vhca_clock_cleanup(struct vhca_context *ctx);
uint64_t vhca_clock_wallclock_ns(struct vhca_context *ctx, uint64_t count);
int vhca_query_rt_values(struct ibv_context *context, struct ibv_values_ex *values);

/* queues.c */
struct ibv_cq *vhca_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel, int comp_vector);
int vhca_destroy_cq(struct ibv_cq *cq);
int vhca_resize_cq(struct ibv_cq *cq, int cqe);
/* An extended CQ whose attributes cq_ex.c checked (the extended command). */
struct vhca_cq *vhca_cq_create(struct ibv_context *context,
			       struct ibv_cq_init_attr_ex *attr);
struct ibv_qp *vhca_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
struct ibv_qp *vhca_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr);
int vhca_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
int vhca_destroy_qp(struct ibv_qp *qp);
struct ibv_srq *vhca_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr);
/* ex: through ibv_cmd_create_srq_ex (attr's type, XRC domain and CQ). */
struct vhca_srq *vhca_srq_create(struct ibv_pd *pd,
				 struct ibv_srq_init_attr_ex *attr, bool ex);
int vhca_destroy_srq(struct ibv_srq *srq);
/* IBV_SRQ_LIMIT, and IBV_SRQ_MAX_WR: a resize to a new ring. */
int vhca_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		    int attr_mask);
struct vhca_qp *vhca_find_qp(struct vhca_context *ctx, uint32_t qpn);

/* datapath.c */
/* The control segment and the RDMA/atomic segment, after the opcode rules
 * (uapi/vhca_hw_wqe_rules.h); then the UD segment, SGEs or inline data. */
int vhca_wqe_begin(const struct vhca_qp *qp, const struct ibv_send_wr *wr,
		   char *wqe, struct vhca_send_wqe *w);
void vhca_wqe_set_ud(struct vhca_send_wqe *w, struct ibv_ah *ah,
		     uint32_t remote_qpn, uint32_t remote_qkey);
int vhca_wqe_set_sges(const struct vhca_qp *qp, struct vhca_send_wqe *w,
		      const struct ibv_sge *sg_list, size_t num_sge);
int vhca_wqe_add_inline(const struct vhca_qp *qp, struct vhca_send_wqe *w,
			const void *addr, size_t length);
int vhca_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
int vhca_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);
int vhca_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);
int vhca_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int vhca_req_notify_cq(struct ibv_cq *cq, int solicited_only);
const struct vhca_cqe *vhca_cq_next(struct vhca_cq *cq);
void vhca_cq_release(struct vhca_cq *cq, uint32_t start);

/* A send queue takes work requests from RTS on (IBA 11.4.1.1: Reset,
 * Init and RTR answer with an immediate error).  ibv_qp.state is the
 * state libibverbs' ibv_modify_qp last set. */
static inline bool vhca_qp_may_send(const struct ibv_qp *qp)
{
	return qp->state != IBV_QPS_RESET && qp->state != IBV_QPS_INIT &&
	       qp->state != IBV_QPS_RTR;
}

/* qp_ex.c */
/* An ioctl command with room for n attributes (cmd_ioctl.h's
 * DECLARE_COMMAND_BUFFER), set up by vhca_cmd_init. */
#define VHCA_CMD_BUFFER(n)						\
	struct {							\
		struct ibv_command_buffer cmd;				\
		struct ib_uverbs_attr attrs[n];				\
	}

static inline void vhca_cmd_init(struct ibv_command_buffer *cmd,
				 uint16_t object, uint16_t method,
				 unsigned int n)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.object_id = object;
	cmd->hdr.method_id = method;
	cmd->uhw_in_idx = _UHW_NO_INDEX;
	cmd->uhw_out_idx = _UHW_NO_INDEX;
	cmd->next_attr = cmd->hdr.attrs;
	cmd->last_attr = cmd->hdr.attrs + n;
}

/* One more attribute of an ioctl command (cmd_ioctl.h's fill_attr_*). */
static inline void vhca_cmd_attr(struct ibv_command_buffer *cmd, uint16_t id,
				 uint16_t len, uint64_t data)
{
	*cmd->next_attr++ = (struct ib_uverbs_attr){
		.attr_id = id,
		.len = len,
		.flags = UVERBS_ATTR_F_MANDATORY,
		.data = data,
	};
}

/* import.c */
struct verbs_context *vhca_import_context(struct ibv_device *ibdev, int cmd_fd);
struct ibv_pd *vhca_import_pd(struct ibv_context *context, uint32_t pd_handle);
void vhca_unimport_pd(struct ibv_pd *pd);
struct ibv_mr *vhca_import_mr(struct ibv_pd *pd, uint32_t mr_handle);
void vhca_unimport_mr(struct ibv_mr *mr);
/* vhca.c: the context set up from the kernel's answer (0 or an errno) */
int vhca_context_setup(struct vhca_context *ctx,
		       const struct vhca_alloc_ucontext_resp *drv);

/* dm.c */
struct ibv_dm *vhca_alloc_dm(struct ibv_context *context,
			     struct ibv_alloc_dm_attr *attr);
int vhca_free_dm(struct ibv_dm *dm);
#if IBVERBS_PABI_VERSION >= 65
int vhca_dm_export_dmabuf_fd(struct ibv_dm *dm);
#endif
struct ibv_dm *vhca_import_dm(struct ibv_context *context, uint32_t dm_handle);
void vhca_unimport_dm(struct ibv_dm *dm);
struct ibv_mr *vhca_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm,
			      uint64_t dm_offset, size_t length,
			      unsigned int access);

int vhca_qp_ex_check_ops(const struct vhca_context *ctx, uint64_t send_ops_flags,
			 uint8_t qp_type);
void vhca_qp_ex_set_ops(struct vhca_qp *qp, uint64_t send_ops_flags);

static inline void *vhca_sq_entry(const struct vhca_qp *qp, uint32_t index)
{
	return (char *)qp->sq.buf +
	       ((size_t)(index & ((1u << qp->sq.log_size) - 1)) << qp->sq.shift);
}

/* mw.c */
struct ibv_mw *vhca_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int vhca_dealloc_mw(struct ibv_mw *mw);
int vhca_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind);
/* The BIND_MW segment of a work request (EINVAL for what the device
 * cannot do). */
int vhca_bind_segment(uint32_t rkey, const struct ibv_mw_bind_info *info,
		      struct vhca_wqe_bind_mw *seg);

/* xrc.c */
struct ibv_xrcd *vhca_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr);
int vhca_close_xrcd(struct ibv_xrcd *xrcd);
struct ibv_srq *vhca_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr);
int vhca_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);
void vhca_xrc_srq_remove(struct vhca_context *ctx, struct vhca_srq *srq);
struct vhca_srq *vhca_xrc_srq_find(struct vhca_context *ctx, uint32_t srqn);
struct vhca_qp *vhca_create_xrc_recv_qp(struct ibv_context *context,
					struct ibv_qp_init_attr_ex *attr);
struct ibv_qp *vhca_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr);

/* tm.c */
int vhca_ring_alloc(struct vhca_ring *ring, struct ibv_pd *pd, uint64_t type,
		    uint32_t log_size, uint32_t shift, size_t extra);
void vhca_ring_free(struct vhca_ring *ring);
int vhca_tm_check(struct ibv_context *context,
		  const struct ibv_srq_init_attr_ex *attr);
int vhca_tm_init(struct vhca_srq *srq, struct ibv_pd *pd,
		 const struct ibv_srq_init_attr_ex *attr,
		 struct vhca_create_srq_req *req);
void vhca_tm_free(struct vhca_srq *srq);
int vhca_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *wr,
		      struct ibv_ops_wr **bad_wr);
bool vhca_cqe_is_tm_op(const struct vhca_cqe *cqe);
bool vhca_tm_op_done(struct vhca_context *ctx, const struct vhca_cqe *cqe);
void vhca_tm_recv_done(struct vhca_srq *srq, const struct vhca_cqe *cqe);
enum ibv_wc_opcode vhca_wc_opcode(const struct vhca_cqe *cqe);
unsigned int vhca_tm_wc_flags(const struct vhca_cqe *cqe);
void vhca_tm_info(const struct vhca_cqe *cqe, struct ibv_wc_tm_info *info);

/* cq_ex.c */
struct ibv_cq_ex *vhca_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr);
/* Marks the unpolled CQEs of qpn stale (the QP is being destroyed). */
void vhca_cq_clean(struct vhca_cq *cq, uint32_t qpn);

#endif /* VHCA_PROVIDER_H */
