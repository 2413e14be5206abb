// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs_cq.c - completion queues: create/destroy/resize, poll, arm.
 */
#include <rdma/ib_verbs.h>

#include "vhca_shim.h"

/* The CQ flags the device can honour: it timestamps every CQE when it has
 * a clock (IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION, user CQs). */
static u32 vhca_cq_flags(struct ib_device *ibdev)
{
	return ibdev->attrs.timestamp_mask ? IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION : 0;
}

int vhca_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata)
{
	struct vhca_cq *cq = to_vcq(ibcq);
	unsigned int actual;
	int err;

	if ((attr->flags & ~vhca_cq_flags(ibcq->device)) || attr->cqe <= 0)
		return -EINVAL;
	if (udata)
		return vhca_uverbs_create_cq(cq, attr, udata);
	err = vhca_core_create_cq(to_kdev(ibcq->device)->core, attr->cqe,
				  attr->comp_vector, ibcq, &cq->core, &actual);
	if (err)
		return err;
	ibcq->cqe = actual;
	return 0;
}

int vhca_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct vhca_cq *cq = to_vcq(ibcq);
	int err;

	err = vhca_core_destroy_cq(cq->core);
	if (!err) {
		vhca_uring_release(&cq->uring);	/* user CQs */
		vhca_uring_release(&cq->orphan_uring);
	}
	return err;
}

int vhca_ib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	unsigned int actual;
	int err;

	if (udata)
		return vhca_uverbs_resize_cq(to_vcq(ibcq), cqe, udata);
	if (cqe <= 0)
		return -EINVAL;
	err = vhca_core_resize_cq(to_vcq(ibcq)->core, cqe, &actual);
	if (err)
		return err;
	ibcq->cqe = actual;
	return 0;
}

/*
 * The CQE opcode (uapi/vhca_hw_verbs.h, the device's and the provider's
 * ABI) as an ib_wc_opcode.  The same values (verbs.c asserts them) but
 * IB_WC_REG_MR: 8 up to 6.1, moved up by IB_WC_ATOMIC_WRITE (= 9, its
 * uverbs value) from 6.2, so it is named, not cast.
 */
static enum ib_wc_opcode vhca_ib_wc_opcode(unsigned int opcode)
{
	return opcode == VHCA_CQE_REG_MR ? IB_WC_REG_MR : opcode;
}

/*
 * The core's converter (vhca_core_wc_convert): completion `index` of this
 * poll straight into the caller's ib_wc array, under the CQ's lock.
 */
static void vhca_ib_wc_convert(void *ctx, int index,
			       const struct vhca_core_wc *c)
{
	struct ib_wc *w = (struct ib_wc *)ctx + index;

	memset(w, 0, sizeof(*w));
	w->wr_id = c->wr_id;
	w->status = c->status;
	w->vendor_err = c->vendor_err;
	w->qp = c->qp_context;
	if (c->status != IB_WC_SUCCESS)
		return;	/* error CQEs: wr_id, status, qp */
	w->opcode = vhca_ib_wc_opcode(c->opcode);
	w->byte_len = c->byte_len;
	w->src_qp = c->src_qp;
	w->wc_flags = c->wc_flags;
	if (c->wc_flags & IB_WC_WITH_IMM)
		w->ex.imm_data = (__force __be32)c->imm_inv;
	else if (c->wc_flags & IB_WC_WITH_INVALIDATE)
		w->ex.invalidate_rkey = c->imm_inv;
	w->slid = c->slid;
	w->sl = c->sl;
	w->dlid_path_bits = c->dlid_path_bits;
	w->pkey_index = c->pkey_index;
}

int vhca_ib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	return vhca_core_poll_cq(to_vcq(ibcq)->core, num_entries,
				 vhca_ib_wc_convert, wc);
}

int vhca_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	return vhca_core_arm_cq(to_vcq(ibcq)->core, flags);
}
