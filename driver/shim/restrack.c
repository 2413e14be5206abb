// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * restrack.c - the driver's attributes of `rdma -dd resource show
 * qp|cq|mr` (and srq where the kernel has the op): restrack's
 * fill_res_*_entry ops, each adding RDMA_NLDEV_ATTR_DRIVER entries to the
 * object's netlink record.  What ib_core prints already (QPN, state,
 * PD, CQE count, keys) is not repeated: these are the device's own
 * numbers and the rings' state, a snapshot taken under the rings' locks
 * (vhca_core_qp_snapshot, vhca_core_cq_snapshot).  A user object's indexes are the
 * provider's, not the kernel's: only its sizes are shown.
 */
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

#include "vhca_shim.h"
#include "compat.h"

static const char *vhca_rings(unsigned int user)
{
	return user ? "user" : "kernel";
}

/*
 * The driver's entries go into one RDMA_NLDEV_ATTR_DRIVER nest (as
 * mlx5's and hns' do; iproute2 prints its table with `rdma -dd`): fill
 * adds them, and a record without room loses the whole nest.
 */
#define VHCA_RES_ENTRY(name, type)					\
static int vhca_ib_fill_res_##name##_entry(struct sk_buff *msg,	\
					   type *obj)			\
{									\
	struct nlattr *table = nla_nest_start_noflag(msg,		\
						RDMA_NLDEV_ATTR_DRIVER);	\
	int err;							\
									\
	if (!table)							\
		return -EMSGSIZE;					\
	err = vhca_fill_res_##name(msg, obj);				\
	if (err) {							\
		nla_nest_cancel(msg, table);				\
		return err;						\
	}								\
	nla_nest_end(msg, table);					\
	return 0;							\
}

static int vhca_fill_res_qp(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct vhca_qp *qp = to_vqp(ibqp);
	struct vhca_core_qp_res res;

	vhca_core_qp_snapshot(qp->core, &res);
	/* The device's handle: the QPN, or for SMI/GSI one that names the
	 * port too (vhca_hw.h VHCA_SPECIAL_QP_HANDLE). */
	if (rdma_nl_put_driver_u32_hex(msg, "qp_handle", res.handle) ||
	    rdma_nl_put_driver_string(msg, "rings", vhca_rings(res.user)) ||
	    rdma_nl_put_driver_u32(msg, "max_send_wr", qp->cap.max_send_wr) ||
	    rdma_nl_put_driver_u32(msg, "max_recv_wr", qp->cap.max_recv_wr) ||
	    rdma_nl_put_driver_u32(msg, "max_send_sge", qp->cap.max_send_sge) ||
	    rdma_nl_put_driver_u32(msg, "max_inline", qp->cap.max_inline_data))
		return -EMSGSIZE;
	if (res.user)
		return 0;
	if (rdma_nl_put_driver_u32(msg, "sq_wqe_cnt", 1u << res.sq_log_size) ||
	    rdma_nl_put_driver_u32(msg, "sq_pi", res.sq_producer) ||
	    rdma_nl_put_driver_u32(msg, "sq_ci", res.sq_consumer))
		return -EMSGSIZE;
	if (res.has_rq &&
	    (rdma_nl_put_driver_u32(msg, "rq_wqe_cnt", 1u << res.rq_log_size) ||
	     rdma_nl_put_driver_u32(msg, "rq_pi", res.rq_producer) ||
	     rdma_nl_put_driver_u32(msg, "rq_ci", res.rq_consumer)))
		return -EMSGSIZE;
	return 0;
}

static int vhca_fill_res_cq(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct vhca_core_cq_res res;

	vhca_core_cq_snapshot(to_vcq(ibcq)->core, &res);
	if (rdma_nl_put_driver_u32_hex(msg, "cqn", res.cqn) ||
	    rdma_nl_put_driver_string(msg, "rings", vhca_rings(res.user)) ||
	    rdma_nl_put_driver_u32(msg, "cqe_cnt", 1u << res.log_size))
		return -EMSGSIZE;
	if (!res.user && rdma_nl_put_driver_u32(msg, "ci", res.consumer_index))
		return -EMSGSIZE;
	return 0;
}

static int vhca_fill_res_mr(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct vhca_mr *mr = to_vmr(ibmr);

	if (mr->max_pages &&
	    (rdma_nl_put_driver_u32(msg, "max_pages", mr->max_pages) ||
	     rdma_nl_put_driver_u32(msg, "npages", mr->npages)))
		return -EMSGSIZE;
	if (mr->odp_implicit)
		return rdma_nl_put_driver_string(msg, "odp", "implicit") ?
		       -EMSGSIZE : 0;
	if (!mr->umem)
		return 0;
	if (rdma_nl_put_driver_u64(msg, "umem_pages",
				   ib_umem_num_pages(mr->umem)))
		return -EMSGSIZE;
	if (mr->umem->is_odp &&
	    rdma_nl_put_driver_string(msg, "odp", "explicit"))
		return -EMSGSIZE;
	return 0;
}

#ifdef VHCA_HAVE_FILL_RES_SRQ_ENTRY
static int vhca_fill_res_srq(struct sk_buff *msg, struct ib_srq *ibsrq)
{
	struct vhca_srq *srq = to_vsrq(ibsrq);

	if (rdma_nl_put_driver_u32(msg, "max_wr", srq->max_wr) ||
	    rdma_nl_put_driver_u32(msg, "max_sge", srq->max_sge))
		return -EMSGSIZE;
	return 0;
}
VHCA_RES_ENTRY(srq, struct ib_srq)
#endif
VHCA_RES_ENTRY(qp, struct ib_qp)
VHCA_RES_ENTRY(cq, struct ib_cq)
VHCA_RES_ENTRY(mr, struct ib_mr)

const struct ib_device_ops vhca_restrack_ops = {
	.fill_res_cq_entry = vhca_ib_fill_res_cq_entry,
	.fill_res_mr_entry = vhca_ib_fill_res_mr_entry,
	.fill_res_qp_entry = vhca_ib_fill_res_qp_entry,
#ifdef VHCA_HAVE_FILL_RES_SRQ_ENTRY
	/* 6.12 and 7.3 (not 6.1): `rdma -dd resource show srq` */
	.fill_res_srq_entry = vhca_ib_fill_res_srq_entry,
#endif
};
