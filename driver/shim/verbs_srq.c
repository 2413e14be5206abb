// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs_srq.c - shared receive queues.
 */
#include <rdma/ib_verbs.h>

#include "vhca_shim.h"

void vhca_srq_set_granted(struct vhca_srq *srq, struct ib_srq_init_attr *init,
			  unsigned int max_wr, unsigned int max_sge)
{
	srq->max_wr = max_wr;
	srq->max_sge = max_sge;
	init->attr.max_wr = max_wr;
	init->attr.max_sge = max_sge;
}

int vhca_ib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		       struct ib_udata *udata)
{
	struct vhca_srq *srq = to_vsrq(ibsrq);
	unsigned int wr, sge;
	int err;

	/* XRC SRQs (IBA A14.2.3) and tag matching SRQs for user processes;
	 * ib_core's kernel XRC API has no users and the core polls no XRC
	 * completions, and tag matching has no kernel verbs. */
	if (init->srq_type != IB_SRQT_BASIC && !udata)
		return -EOPNOTSUPP;
	if (udata)
		return vhca_uverbs_create_srq(srq, init, udata);
	err = vhca_core_create_srq(to_kdev(ibsrq->device)->core,
				   to_vpd(ibsrq->pd)->pdn, init->attr.max_wr,
				   init->attr.max_sge, init->attr.srq_limit,
				   ibsrq, &srq->core, &wr, &sge);
	if (err)
		return err;
	vhca_srq_set_granted(srq, init, wr, sge);
	return 0;
}

/* IB_SRQ_MAX_WR (IBA 11.2.3.3): a new ring, the outstanding WRs kept; the
 * granted size (at least max_wr) goes back in attr->max_wr. */
static int vhca_srq_resize(struct vhca_srq *srq, struct ib_srq_attr *attr,
			   struct ib_udata *udata)
{
	unsigned int granted;
	int err;

	if (udata)
		return vhca_uverbs_resize_srq(srq, attr->max_wr, udata);
	err = vhca_core_resize_srq(srq->core, attr->max_wr, &granted);
	if (!err)
		srq->max_wr = granted;
	return err;
}

int vhca_ib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct vhca_srq *srq = to_vsrq(ibsrq);
	int err;

	if (mask & ~(IB_SRQ_LIMIT | IB_SRQ_MAX_WR))
		return -EOPNOTSUPP;
	/* Both: the limit must fit the new size, checked before resizing. */
	if ((mask & IB_SRQ_LIMIT) && (mask & IB_SRQ_MAX_WR) &&
	    attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR) {
		err = vhca_srq_resize(srq, attr, udata);
		if (err)
			return err;
		attr->max_wr = srq->max_wr;
	}
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	return vhca_core_modify_srq(srq->core, attr->srq_limit);
}

int vhca_ib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct vhca_srq *srq = to_vsrq(ibsrq);
	unsigned int limit;
	int err;

	err = vhca_core_query_srq(srq->core, &limit);
	if (err)
		return err;
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = limit;
	return 0;
}

int vhca_ib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct vhca_srq *srq = to_vsrq(ibsrq);
	int err;

	err = vhca_core_destroy_srq(srq->core);
	if (!err) {
		vhca_uring_release(&srq->uring);	/* user SRQs */
		vhca_uring_release(&srq->tm_uring);
		vhca_uring_release(&srq->orphan_uring);
	}
	return err;
}

int vhca_ib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	const void *item = wr;
	int err;

	err = vhca_core_post_srq_recv_chain(to_vsrq(ibsrq)->core, &item,
					    vhca_recv_wr_next);
	if (err)
		*bad_wr = item;
	return err;
}
