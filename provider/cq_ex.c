// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * cq_ex.c - extended CQs (ibv_create_cq_ex): the same ring as ibv_create_cq
 * (queues.c), polled with start_poll/next_poll/end_poll and read field by
 * field with the ibv_wc_read_* accessors instead of whole ibv_wc structs.
 *
 * start_poll takes the CQ's lock and end_poll drops it (libibverbs'
 * contract: between them the application owns the CQ); start_poll that
 * finds nothing returns ENOENT with the lock dropped, and the application
 * does not call end_poll.  The consumer index goes to the device in
 * end_poll, so the CQE being read stays intact until then.
 *
 * Completion timestamps need the device clock, tag matching information
 * the device's tag matching (tm.c); CVLAN and flow tag (Ethernet) are
 * refused with EOPNOTSUPP, as Documentation/verbs.md says.
 */
#include <endian.h>
#include <errno.h>

#include "vhca.h"

#define VHCA_CQ_EX_WC_FLAGS IBV_WC_STANDARD_FLAGS
/* with a device clock (clock.c) */
#define VHCA_CQ_EX_WC_TIMESTAMPS (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP | \
				  IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)

static struct vhca_cq *to_vcq_ex(struct ibv_cq_ex *cq_ex)
{
	return container_of(cq_ex, struct vhca_cq, vcq.cq_ex);
}

static const struct vhca_cqe *current_cqe(struct ibv_cq_ex *cq_ex)
{
	return to_vcq_ex(cq_ex)->current;
}

/* The fields every completion has, in the ibv_cq_ex itself. */
static int take(struct vhca_cq *cq)
{
	const struct vhca_cqe *cqe = vhca_cq_next(cq);

	if (!cqe)
		return ENOENT;
	cq->current = cqe;
	cq->vcq.cq_ex.wr_id = le64toh(cqe->wr_id);
	cq->vcq.cq_ex.status = cqe->status;	/* == enum ibv_wc_status */
	return 0;
}

static int cq_ex_start_poll(struct ibv_cq_ex *cq_ex, struct ibv_poll_cq_attr *attr)
{
	struct vhca_cq *cq = to_vcq_ex(cq_ex);
	int err;

	if (attr->comp_mask)
		return EINVAL;
	vhca_lock(&cq->lock);
	cq->poll_start = cq->ring.ci;
	err = take(cq);
	if (err)
		vhca_unlock(&cq->lock);
	return err;
}

static int cq_ex_next_poll(struct ibv_cq_ex *cq_ex)
{
	return take(to_vcq_ex(cq_ex));
}

static void cq_ex_end_poll(struct ibv_cq_ex *cq_ex)
{
	struct vhca_cq *cq = to_vcq_ex(cq_ex);

	cq->current = NULL;
	vhca_cq_release(cq, cq->poll_start);
	vhca_unlock(&cq->lock);
}

static enum ibv_wc_opcode cq_ex_read_opcode(struct ibv_cq_ex *cq_ex)
{
	return vhca_wc_opcode(current_cqe(cq_ex));
}

static uint32_t cq_ex_read_vendor_err(struct ibv_cq_ex *cq_ex)
{
	return current_cqe(cq_ex)->vendor_err;
}

static uint32_t cq_ex_read_byte_len(struct ibv_cq_ex *cq_ex)
{
	return le32toh(current_cqe(cq_ex)->byte_len);
}

/* Immediate data in wire order; for SEND with Invalidate the rkey in host
 * order (ibv_wc_read_invalidated_rkey reads it through this accessor). */
static __be32 cq_ex_read_imm_data(struct ibv_cq_ex *cq_ex)
{
	const struct vhca_cqe *cqe = current_cqe(cq_ex);

	if (cqe->flags & VHCA_CQE_F_INV)
		return (__be32)le32toh(cqe->imm_inv);
	return (__be32)cqe->imm_inv;
}

static uint32_t cq_ex_read_qp_num(struct ibv_cq_ex *cq_ex)
{
	return le32toh(current_cqe(cq_ex)->qpn);
}

static uint32_t cq_ex_read_src_qp(struct ibv_cq_ex *cq_ex)
{
	return le32toh(current_cqe(cq_ex)->src_qp);
}

static unsigned int cq_ex_read_wc_flags(struct ibv_cq_ex *cq_ex)
{
	const struct vhca_cqe *cqe = current_cqe(cq_ex);
	unsigned int flags = 0;

	if (cqe->status != VHCA_WC_SUCCESS)
		return 0;
	flags = vhca_tm_wc_flags(cqe);
	if (cqe->flags & VHCA_CQE_F_GRH)
		flags |= IBV_WC_GRH;
	if (cqe->flags & VHCA_CQE_F_IMM)
		flags |= IBV_WC_WITH_IMM;
	else if (cqe->flags & VHCA_CQE_F_INV)
		flags |= IBV_WC_WITH_INV;
	return flags;
}

static void cq_ex_read_tm_info(struct ibv_cq_ex *cq_ex,
			       struct ibv_wc_tm_info *tm_info)
{
	vhca_tm_info(current_cqe(cq_ex), tm_info);
}

static uint32_t cq_ex_read_slid(struct ibv_cq_ex *cq_ex)
{
	return le16toh(current_cqe(cq_ex)->slid);
}

static uint8_t cq_ex_read_sl(struct ibv_cq_ex *cq_ex)
{
	return current_cqe(cq_ex)->sl;
}

static uint8_t cq_ex_read_dlid_path_bits(struct ibv_cq_ex *cq_ex)
{
	return current_cqe(cq_ex)->dlid_path_bits;
}

static uint64_t cq_ex_read_completion_ts(struct ibv_cq_ex *cq_ex)
{
	return le64toh(current_cqe(cq_ex)->timestamp);
}

static uint64_t cq_ex_read_completion_wallclock_ns(struct ibv_cq_ex *cq_ex)
{
	return vhca_clock_wallclock_ns(to_vctx(cq_ex->context),
				       le64toh(current_cqe(cq_ex)->timestamp));
}

/* Whether vhca can give what the application asks of an extended CQ. */
static int cq_ex_check(struct ibv_context *context,
		       const struct ibv_cq_init_attr_ex *attr)
{
	const uint32_t known = IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD;

	if (attr->comp_mask & ~known)
		return EOPNOTSUPP;
	/* IBV_CQ_INIT_ATTR_MASK_PD takes a parent domain, not a PD (its
	 * allocators give the ring, pd.c) */
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    (!attr->parent_domain || attr->parent_domain->context != context ||
	     !to_vpd(attr->parent_domain)->protection_domain))
		return EINVAL;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))
		return EOPNOTSUPP;	/* IGNORE_OVERRUN */
	if (attr->wc_flags & ~(uint64_t)(VHCA_CQ_EX_WC_FLAGS | VHCA_CQ_EX_WC_TIMESTAMPS |
					 IBV_WC_EX_WITH_TM_INFO))
		return EOPNOTSUPP;	/* no Ethernet (CVLAN, flow tag) */
	if ((attr->wc_flags & IBV_WC_EX_WITH_TM_INFO) &&
	    !(to_vctx(context)->dev_caps & VHCA_DEV_CAP_TAG_MATCHING))
		return EOPNOTSUPP;
	if ((attr->wc_flags & VHCA_CQ_EX_WC_TIMESTAMPS) && !to_vctx(context)->has_clock)
		return EOPNOTSUPP;
	return 0;
}

static void cq_ex_set_ops(struct ibv_cq_ex *cq_ex)
{
	cq_ex->start_poll = cq_ex_start_poll;
	cq_ex->next_poll = cq_ex_next_poll;
	cq_ex->end_poll = cq_ex_end_poll;
	cq_ex->read_opcode = cq_ex_read_opcode;
	cq_ex->read_vendor_err = cq_ex_read_vendor_err;
	cq_ex->read_byte_len = cq_ex_read_byte_len;
	cq_ex->read_imm_data = cq_ex_read_imm_data;
	cq_ex->read_qp_num = cq_ex_read_qp_num;
	cq_ex->read_src_qp = cq_ex_read_src_qp;
	cq_ex->read_wc_flags = cq_ex_read_wc_flags;
	cq_ex->read_slid = cq_ex_read_slid;
	cq_ex->read_sl = cq_ex_read_sl;
	cq_ex->read_dlid_path_bits = cq_ex_read_dlid_path_bits;
	cq_ex->read_completion_ts = cq_ex_read_completion_ts;
	cq_ex->read_completion_wallclock_ns = cq_ex_read_completion_wallclock_ns;
	cq_ex->read_tm_info = cq_ex_read_tm_info;
}

struct ibv_cq_ex *vhca_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr)
{
	struct vhca_cq *cq;
	int err = cq_ex_check(context, attr);

	if (err) {
		errno = err;
		return NULL;
	}
	cq = vhca_cq_create(context, attr);
	if (!cq)
		return NULL;
	cq_ex_set_ops(&cq->vcq.cq_ex);
	return &cq->vcq.cq_ex;
}
