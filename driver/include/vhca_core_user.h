/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_core_user.h - the driver core's part of user verbs (uverbs): the
 * doorbell pages of user contexts and CQs, QPs and SRQs whose rings are
 * in pinned user memory.  driver/shim/uverbs*.c pin the memory (ib_umem),
 * hand its DMA page addresses to the core in a vhca_core_ubuf and call
 * these; the objects they create are vhca_core_verbs.h objects, destroyed,
 * modified and queried with the same functions as kernel ones.  The
 * provider (provider/) posts, rings and polls them; the core's
 * post/poll/arm functions do nothing for them (Documentation/driver.md
 * "User verbs").
 *
 * Same rules as vhca_core_verbs.h.  Create functions may sleep.
 */
#ifndef VHCA_CORE_USER_H
#define VHCA_CORE_USER_H

#include "vhca_core_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- doorbell pages (BAR 4 pages 1..VHCA_REG_DB_PAGES-1) ---- */
/* -ENOSPC when every page has a context. */
int vhca_core_alloc_db_page(struct vhca_core_device *dev, unsigned int *page);
void vhca_core_free_db_page(struct vhca_core_device *dev, unsigned int page);

/* ---- pinned user buffers: DMA addresses of 4 KiB pages ---- */
struct vhca_core_ubuf;
int vhca_core_ubuf_create(struct vhca_core_device *dev, unsigned int npages,
			  struct vhca_core_ubuf **out);
void vhca_core_ubuf_set_page(struct vhca_core_ubuf *buf, unsigned int index,
			     unsigned long long dma_addr);
/* Only for a buffer not handed to a create function below. */
void vhca_core_ubuf_destroy(struct vhca_core_ubuf *buf);

/* Each create function takes its buffers over, on success and failure. */

/* 2^log_size CQEs at the start of buf, the doorbell record at byte
 * dbrec_offset; *cqn for the CQ doorbell; ib_cq.cqe = 2^log_size - 1. */
int vhca_core_create_user_cq(struct vhca_core_device *dev,
			     struct vhca_core_ubuf *buf, unsigned int log_size,
			     unsigned int dbrec_offset,
			     unsigned int comp_vector, unsigned int db_page,
			     void *cq_context, struct vhca_core_cq **out,
			     unsigned int *cqn);

/* ibv_resize_cq: the CQ moves to the ring in buf, laid out as for
 * create (same doorbell page); the CQEs not yet consumed (per the old
 * doorbell record) move to its index 0.  Takes buf over; on success the
 * old ring is no longer the device's (ib_cq.cqe = 2^log_size - 1), on
 * -ETIMEDOUT/-EIO neither ring may be unpinned before destroy. */
int vhca_core_resize_user_cq(struct vhca_core_cq *cq,
			     struct vhca_core_ubuf *buf, unsigned int log_size,
			     unsigned int dbrec_offset);

/* Memory windows (ibv_alloc_mw): type 1 or 2 (IB_MW_TYPE_*, the device's
 * numbering), -EOPNOTSUPP when the device has no such windows.  The
 * provider binds them with BIND_MW WQEs; the key is the one ALLOC_MW
 * gave (binds change its variant).  Dealloc: as a destroy. */
struct vhca_core_mw;
int vhca_core_alloc_mw(struct vhca_core_device *dev, unsigned int pdn,
		       unsigned int type, struct vhca_core_mw **out);
unsigned int vhca_core_mw_key(const struct vhca_core_mw *mw);
int vhca_core_dealloc_mw(struct vhca_core_mw *mw);

/* Device memory (ibv_alloc_dm, vhca_hw_verbs.h "Device memory"): whole
 * 4 KiB pages of BAR 3 at *offset, *size bytes (length rounded up), for
 * the shim to map into the process; -EOPNOTSUPP without device memory,
 * -EINVAL for a length of 0 or above max_dm_size or log_align above
 * VHCA_DM_MAX_LOG_ALIGN, -ENOMEM when no range is free.  Free: as a
 * destroy (-EBUSY while regions use it). */
struct vhca_core_dm;
int vhca_core_alloc_dm(struct vhca_core_device *dev, unsigned long long length,
		       unsigned int log_align, struct vhca_core_dm **out,
		       unsigned int *offset, unsigned long long *size);
int vhca_core_free_dm(struct vhca_core_dm *dm);
/* reg_dm_mr: a zero-based region over [dm_offset, dm_offset + length) of
 * BAR 3 (an allocation's offset plus the offset into it), access as
 * vhca_core_mr_register's.  Destroy with vhca_core_destroy_mr. */
int vhca_core_reg_dm_mr(struct vhca_core_device *dev, unsigned int pdn,
			unsigned int access, unsigned int dm_offset,
			unsigned long long length, struct vhca_core_mr **out);

struct vhca_core_user_qp_rings {
	struct vhca_core_ubuf *sq;
	struct vhca_core_ubuf *rq;	/* NULL with an SRQ */
	unsigned int sq_log_size;
	unsigned int sq_wqe_shift;
	unsigned int rq_log_size;
	unsigned int rq_wqe_shift;
	unsigned int rq_dbrec_offset;	/* struct vhca_wq_dbrec in rq, after the WQEs */
	unsigned int sq_dbrec;		/* 1: a send record at sq_dbrec_offset */
	unsigned int sq_dbrec_offset;	/* struct vhca_wq_dbrec in sq, after the WQEs */
	unsigned int db_page;
};
/* RC, UC, UD on user CQs (and SRQ).  The geometry must be the one the
 * core computes for init->cap (-EINVAL otherwise); init->cap gets what
 * was granted.  vhca_core_qp_num() is the QPN, also the doorbell handle. */
int vhca_core_create_user_qp(struct vhca_core_device *dev,
			     struct vhca_core_qp_init *init,
			     struct vhca_core_user_qp_rings *rings,
			     struct vhca_core_qp **out);
/* The granted max_inline_data of a QP. */
unsigned int vhca_core_qp_max_inline(const struct vhca_core_qp *qp);
/* 1: the device was given the provider's send record and polls it. */
int vhca_core_qp_sq_dbrec(const struct vhca_core_qp *qp);

/* ibv_create_srq of a user context: a ring of 2^log_size WQEs of
 * 2^wqe_shift bytes (the geometry the core computes for max_wr/max_sge,
 * -EINVAL otherwise) at the start of buf, its struct vhca_wq_dbrec at
 * byte dbrec_offset after them, on doorbell page db_page. */
struct vhca_core_user_srq_init {
	unsigned int pdn;
	unsigned int max_wr;		/* in: requested; out: granted */
	unsigned int max_sge;		/* in: requested; out: granted */
	unsigned int limit;		/* the limit event's (IBA 11.2.3.2), 0: none */
	struct vhca_core_ubuf *buf;	/* taken over, on success and failure */
	unsigned int log_size;
	unsigned int wqe_shift;
	unsigned int dbrec_offset;
	unsigned int db_page;
	void *srq_context;		/* returned with the SRQ's events */
	unsigned int srqn;		/* out: the SRQN, also the doorbell handle */
};
/* xrc NULL: a basic SRQ; else an XRC SRQ (IBA A14.2.3, -EOPNOTSUPP
 * without VHCA_DEV_CAP_XRC) in XRC domain xrcdn, completing into cq. */
struct vhca_core_srq_xrc {
	unsigned int xrcdn;
	struct vhca_core_cq *cq;
};
int vhca_core_create_user_srq(struct vhca_core_device *dev,
			      struct vhca_core_user_srq_init *init,
			      const struct vhca_core_srq_xrc *xrc,
			      struct vhca_core_srq **out);
/* ibv_modify_srq with IBV_SRQ_MAX_WR: the SRQ moves to the ring in buf,
 * laid out as at create for max_wr (log_size and wqe_shift the core's
 * geometry, else -EINVAL); the device moves the WQEs not consumed.  Takes buf over; on
 * success the old ring is no longer the device's (*actual_wr the granted
 * size), on -ETIMEDOUT/-EIO neither ring may be unpinned before destroy. */
int vhca_core_resize_user_srq(struct vhca_core_srq *srq,
			      struct vhca_core_ubuf *buf, unsigned int max_wr,
			      unsigned int log_size, unsigned int wqe_shift,
			      unsigned int dbrec_offset,
			      unsigned int *actual_wr);
/* A tag matching SRQ (IB_SRQT_TM, uapi/vhca_hw_tm.h): its CQ takes the
 * list operations' completions, ops the ring of 2^ops_log_size of them
 * (owned by the SRQ from the call on, as init->buf). */
struct vhca_core_srq_tm {
	struct vhca_core_cq *cq;
	unsigned int max_num_tags;
	struct vhca_core_ubuf *ops;
	unsigned int ops_log_size;
};
int vhca_core_create_user_tm_srq(struct vhca_core_device *dev,
				 struct vhca_core_user_srq_init *init,
				 const struct vhca_core_srq_tm *tm,
				 struct vhca_core_srq **out);

/* ---- address vectors: UD WQEs carry them, user AHs hand them out ---- */
struct vhca_av;
void vhca_core_make_av(const struct vhca_core_ah_attr *ah, struct vhca_av *av);

#ifdef __cplusplus
}
#endif

#endif /* VHCA_CORE_USER_H */
