/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_shim.h - state shared by the shim files (kernel C only).
 *
 * struct vhca_kapi_device is the per-PCI-function state.  The core sees it
 * only as an opaque pointer it passes back to the vhca_kapi_* services.
 * It embeds the ib_device first, so ib_alloc_device() allocates it and
 * ib_dealloc_device() frees it.
 */
#ifndef VHCA_SHIM_H
#define VHCA_SHIM_H

#include <linux/interrupt.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/pci.h>
#include <rdma/ib_verbs.h>

#include "vhca-abi.h"
#include "vhca_core.h"
#include "vhca_core_user.h"
#include "vhca_core_verbs.h"

#define VHCA_DRV_NAME "vhca"

struct vhca_irq {
	struct vhca_kapi_device *kdev;
	unsigned int vector;
	bool requested;
	char name[32];
};

struct vhca_kapi_device {
	struct ib_device ibdev;		/* must be first (ib_alloc_device) */
	struct pci_dev *pdev;
	void __iomem *regs;		/* BAR 0 */
	void __iomem *db;		/* BAR 4, doorbell page 0 */
	struct vhca_core_device *core;
	unsigned int num_vectors;	/* MSI-X vectors allocated */
	struct vhca_irq irqs[VHCA_MAX_VECTORS];
	bool events_enabled;		/* ib_dispatch_event allowed */
	struct workqueue_struct *odp_wq;	/* ODP faults (uverbs_odp.c) */
	struct xarray odp_mrs;		/* ODP regions by key index */
	struct vhca_ptp *ptp;		/* the PHC (ptp.c), NULL: none */
};

struct vhca_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

/* A user context (uverbs.c): its doorbell page and the mmap entry of it. */
struct vhca_ucontext {
	struct ib_ucontext ibuc;
	unsigned int db_page;
	struct rdma_user_mmap_entry *db_entry;
	struct rdma_user_mmap_entry *clock_entry;	/* NULL: no PHC */
};

/* An rdma_user_mmap entry (uverbs.c): a context's doorbell page, the
 * PHC's clock info page (ptp.c), or a device memory allocation
 * (uverbs_dm.c), which the device frees only when the last mapping of it
 * is gone (mmap_free). */
struct vhca_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	phys_addr_t address;		/* in BAR 4 or BAR 3 */
	struct page *clock_info;	/* the clock info page, else NULL */
	struct vhca_core_dm *dm;	/* device memory, else NULL */
	struct vhca_kapi_device *kdev;	/* device memory: whose */
	unsigned int dm_offset;		/* device memory: in BAR 3 */
};

/* ibv_alloc_dm: the ib_dm and its mapping (which outlives it). */
struct vhca_dm {
	struct ib_dm ibdm;
	struct vhca_mmap_entry *entry;
};

/* A ring in pinned user memory (uverbs_queues.c); umem NULL for kernel
 * objects. */
struct vhca_uring {
	struct ib_umem *umem;
};

/* The data path objects (verbs_*.c): the ib object first, then the core's. */
struct vhca_cq {
	struct ib_cq ibcq;
	struct vhca_core_cq *core;
	struct vhca_uring uring;	/* user CQs: CQEs and doorbell record */
	struct vhca_uring orphan_uring;	/* a resize the device never answered */
};

struct vhca_qp {
	struct ib_qp ibqp;
	struct vhca_core_qp *core;
	enum ib_qp_state state;		/* for ib_modify_qp_is_ok */
	struct vhca_core_qp_cap cap;	/* granted */
	bool sq_sig_all;
	struct vhca_uring sq_uring;	/* user QPs */
	struct vhca_uring rq_uring;
};

struct vhca_xrcd {
	struct ib_xrcd ibxrcd;
	u32 xrcdn;
};

struct vhca_srq {
	struct ib_srq ibsrq;
	struct vhca_core_srq *core;
	unsigned int max_wr;		/* granted */
	unsigned int max_sge;
	struct vhca_uring uring;	/* user SRQs */
	struct vhca_uring tm_uring;	/* IB_SRQT_TM: the list operations */
	struct vhca_uring orphan_uring;	/* a resize the device never answered */
};

struct vhca_mr {
	struct ib_mr ibmr;
	struct vhca_core_mr *core;
	unsigned int npages;		/* map_mr_sg: pages set so far */
	unsigned int max_pages;
	struct ib_umem *umem;		/* reg_user_mr */
	int access;			/* reg_user_mr: for rereg_user_mr */
	u64 odp_iova;			/* ODP regions: the device's iova */
	bool odp_implicit;		/* the whole address space */
	struct xarray odp_children;	/* implicit: child umems by VA
					 * (uverbs_odp_implicit.c) */
};

struct vhca_mw {
	struct ib_mw ibmw;
	struct vhca_core_mw *core;
};

struct vhca_ah {
	struct ib_ah ibah;
	struct vhca_core_ah_attr av;	/* no device object: copied into UD WRs */
};

#define to_vcq(x) container_of(x, struct vhca_cq, ibcq)
#define to_vqp(x) container_of(x, struct vhca_qp, ibqp)
#define to_vmw(x) container_of(x, struct vhca_mw, ibmw)
#define to_vsrq(x) container_of(x, struct vhca_srq, ibsrq)
#define to_vxrcd(x) container_of(x, struct vhca_xrcd, ibxrcd)
#define to_vmr(x) container_of(x, struct vhca_mr, ibmr)
#define to_vah(x) container_of(x, struct vhca_ah, ibah)
#define to_vpd(x) container_of(x, struct vhca_pd, ibpd)
#define to_vuc(x) container_of(x, struct vhca_ucontext, ibuc)

static inline struct vhca_kapi_device *to_kdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct vhca_kapi_device, ibdev);
}

/* An ib_sge array seen as the core's: verbs.c asserts the layouts match. */
static inline const struct vhca_core_sge *to_core_sges(const struct ib_sge *sges)
{
	return (const struct vhca_core_sge *)sges;
}

/*
 * vhca_core_recv_wr_convert: one ib_recv_wr of a chain as the core takes
 * it (QP receive queues, SRQs).
 */
static inline int vhca_recv_wr_next(const void *item,
				    struct vhca_core_recv_wr *out,
				    const void **next)
{
	const struct ib_recv_wr *wr = item;

	*out = (struct vhca_core_recv_wr){
		.wr_id = wr->wr_id,
		.num_sge = wr->num_sge,
		.sg_list = to_core_sges(wr->sg_list),
	};
	*next = wr->next;
	return 0;
}

/* pci.c */
int vhca_pci_register(void);
void vhca_pci_unregister(void);

/* ptp.c: the PTP hardware clock over the device clock. */
struct vhca_ptp;
void vhca_ptp_init(struct vhca_kapi_device *kdev);
void vhca_ptp_cleanup(struct vhca_kapi_device *kdev);
struct page *vhca_ptp_clock_info_page(struct vhca_kapi_device *kdev);

/* irq.c */
int vhca_irq_setup(struct vhca_kapi_device *kdev);
void vhca_irq_teardown(struct vhca_kapi_device *kdev);

/* stats.c: the ports' hardware counters, read from the device's PMA. */
extern const struct ib_device_ops vhca_stats_ops;
/* restrack.c: the driver attributes of `rdma -dd resource show ...`. */
extern const struct ib_device_ops vhca_restrack_ops;

/* verbs.c: the data path ops, device attributes and events. */
extern const struct ib_device_ops vhca_verbs_ops;
void vhca_verbs_query_device(struct vhca_kapi_device *kdev,
			     struct ib_device_attr *props);
void vhca_verbs_register(struct vhca_kapi_device *kdev);
void vhca_verbs_ah_attr(const struct rdma_ah_attr *ah,
			struct vhca_core_ah_attr *av);
void vhca_verbs_ib_ah_attr(struct ib_device *ibdev,
			   const struct vhca_core_ah_attr *av,
			   struct rdma_ah_attr *ah);

/* verbs_cq.c, verbs_qp.c, verbs_srq.c, verbs_mr.c, verbs_ah.c */
int vhca_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata);
int vhca_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int vhca_ib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int vhca_ib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int vhca_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

int vhca_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		      struct ib_udata *udata);
int vhca_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_udata *udata);
int vhca_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_qp_init_attr *init);
int vhca_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int vhca_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr);
int vhca_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
int vhca_ib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int vhca_ib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

int vhca_ib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		       struct ib_udata *udata);
int vhca_ib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask mask, struct ib_udata *udata);
int vhca_ib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int vhca_ib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int vhca_ib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr);
/* A created SRQ's granted capabilities: kept for query_srq, returned to
 * ib_core in init->attr (kernel and user SRQs). */
void vhca_srq_set_granted(struct vhca_srq *srq, struct ib_srq_init_attr *init,
			  unsigned int max_wr, unsigned int max_sge);

struct ib_mr *vhca_ib_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *vhca_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access,
				  struct ib_udata *udata);
struct ib_mr *vhca_ib_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					 u64 length, u64 virt_addr, int fd,
					 int access, struct ib_udata *udata);
struct ib_mr *vhca_ib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				    u64 length, u64 virt_addr, int access,
				    struct ib_pd *ibpd, struct ib_udata *udata);
struct ib_mr *vhca_ib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg);
int vhca_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		      unsigned int *sg_offset);
int vhca_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
/* uverbs_odp.c */
struct ib_umem_odp;
struct mmu_interval_notifier_ops;
bool vhca_odp_enabled(struct vhca_kapi_device *kdev);
struct ib_mr *vhca_odp_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				   u64 virt_addr, int access);
int vhca_odp_dereg_mr(struct vhca_mr *mr);
int vhca_odp_resolve(struct vhca_mr *mr, u64 va, u64 len, bool fault);
int vhca_odp_resolve_umem(struct vhca_mr *mr, struct ib_umem_odp *umem,
			  u64 va, u64 len, bool fault);
void vhca_odp_detach_umem(struct ib_umem_odp *umem, struct vhca_mr *mr);
struct ib_mr *vhca_odp_publish(struct vhca_kapi_device *kdev,
			       struct vhca_mr *mr, int access);
extern const struct mmu_interval_notifier_ops vhca_odp_mn_ops;
/* uverbs_odp_implicit.c */
struct ib_mr *vhca_odp_reg_implicit(struct ib_pd *ibpd, int access);
int vhca_odp_implicit_resolve(struct vhca_mr *mr, u64 va, u64 len,
			      bool fault);
void vhca_odp_implicit_detach(struct vhca_mr *implicit, struct vhca_mr *mr);
void vhca_odp_implicit_release(struct vhca_mr *mr);
void vhca_odp_query_device(struct vhca_kapi_device *kdev,
			   struct ib_device_attr *props);
void vhca_odp_init(struct vhca_kapi_device *kdev);
void vhca_odp_cleanup(struct vhca_kapi_device *kdev);
/* uverbs_odp_prefetch.c */
int vhca_ib_advise_mr(struct ib_pd *ibpd,
		      enum ib_uverbs_advise_mr_advice advice, u32 flags,
		      struct ib_sge *sg_list, u32 num_sge,
		      struct uverbs_attr_bundle *attrs);

int vhca_ib_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int vhca_ib_dealloc_mw(struct ib_mw *ibmw);
void vhca_mw_query_device(const struct vhca_device_attr *attr,
			  struct ib_device_attr *props);

int vhca_ib_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int vhca_ib_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
void vhca_xrc_query_device(const struct vhca_device_attr *attr,
			   struct ib_device_attr *props);

int vhca_ib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		      struct ib_udata *udata);
int vhca_ib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr);
int vhca_ib_destroy_ah(struct ib_ah *ibah, u32 flags);

/* uverbs.c: user contexts, udata and user rings */
extern const struct ib_device_ops vhca_uverbs_ops;
/* The request of this ABI version: -EINVAL when shorter, -EOPNOTSUPP for
 * unknown trailing bytes or comp_mask bits. */
int vhca_udata_request(struct ib_udata *udata, void *req, size_t size);
int vhca_udata_request_ext(struct ib_udata *udata, void *req, size_t size,
			   size_t min_size, u64 known);
int vhca_udata_response(struct ib_udata *udata, void *resp, size_t size);
/* Pins [addr, addr + len) (page aligned) and lists its pages in *buf. */
int vhca_uring_pin(struct ib_device *ibdev, u64 addr, u64 len,
		   struct vhca_uring *ring, struct vhca_core_ubuf **buf);
void vhca_uring_release(struct vhca_uring *ring);

/* uverbs_queues.c: the udata halves of create_cq/qp/srq/ah */
int vhca_uverbs_create_cq(struct vhca_cq *cq, const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata);
int vhca_uverbs_resize_cq(struct vhca_cq *cq, int cqe, struct ib_udata *udata);
int vhca_uverbs_create_qp(struct vhca_qp *qp, struct vhca_core_qp_init *init,
			  struct ib_udata *udata);
int vhca_uverbs_create_srq(struct vhca_srq *srq, struct ib_srq_init_attr *init,
			   struct ib_udata *udata);
int vhca_uverbs_resize_srq(struct vhca_srq *srq, unsigned int max_wr,
			   struct ib_udata *udata);
int vhca_uverbs_create_ah(struct vhca_ah *ah, struct ib_udata *udata);

/* uverbs_dm.c: device memory (with VHCA_DEV_CAP_DM) */
void vhca_dm_mmap_free(struct vhca_mmap_entry *entry);
void vhca_dm_p2pdma_init(struct vhca_kapi_device *kdev);
extern const struct ib_device_ops vhca_dm_ops;

/* uverbs_uapi.c: the driver's ioctl attributes and methods (vhca-abi.h) */
struct uverbs_attr_bundle;
void vhca_uapi_register(struct vhca_kapi_device *kdev);
int vhca_ib_query_ucontext(struct ib_ucontext *ibuc,
			   struct uverbs_attr_bundle *attrs);
void vhca_ucontext_resp(struct ib_ucontext *ibuc,
			struct vhca_alloc_ucontext_resp *resp);

/* ib.c */
int vhca_ib_register(struct vhca_kapi_device *kdev);
void vhca_ib_unregister(struct vhca_kapi_device *kdev);

#endif /* VHCA_SHIM_H */
