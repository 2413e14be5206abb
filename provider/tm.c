// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * tm.c - tag matching SRQs (ibv_create_srq_ex with IBV_SRQT_TM,
 * ibv_post_srq_ops, the TM completions; uapi/vhca_hw_tm.h).  The SRQ has
 * a second ring in our memory, of list operations (struct vhca_tm_op),
 * announced by the SRQ doorbell with VHCA_DB_SRQ_TM_OPS.  Handles of tag
 * entries are ours to give: one is taken by an ADD and given back when a
 * CQE says the device freed the entry (VHCA_CQE_TM_F_FREED: the message
 * that consumed it, the DEL that removed it, the ADD the device refused).
 * Every operation completes with a CQE on the SRQ's CQ; those of
 * operations posted without IBV_OPS_SIGNALED are consumed here (they free
 * the ring and handles), as mlx5 does with its command QP's.
 */
#include <errno.h>
#include <stdlib.h>

#include "vhca.h"

struct vhca_tm {
	struct vhca_lock lock;		/* ops ring and handles (post_srq_ops) */
	struct vhca_ring ops;		/* 2^log_size struct vhca_tm_op */
	uint32_t max_tags;
	uint32_t nfree;
	uint32_t *free;			/* stack of free handles */
};

static uint32_t ops_log_size(uint32_t max_ops)
{
	uint32_t log = 0;

	while ((1u << log) < max_ops)
		log++;
	return log;
}

/* Whether ibv_create_srq_ex's attr asks for a TM SRQ we can make. */
int vhca_tm_check(struct ibv_context *context,
		  const struct ibv_srq_init_attr_ex *attr)
{
	if (!(to_vctx(context)->dev_caps & VHCA_DEV_CAP_TAG_MATCHING))
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_TM) ||
	    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq ||
	    !attr->tm_cap.max_num_tags ||
	    attr->tm_cap.max_num_tags > VHCA_TM_MAX_TAGS ||
	    !attr->tm_cap.max_ops ||
	    attr->tm_cap.max_ops > 1u << VHCA_TM_MAX_LOG_OPS)
		return EINVAL;
	return 0;
}

/* The TM half of a new SRQ and of its CREATE_SRQ request. */
int vhca_tm_init(struct vhca_srq *srq, struct ibv_pd *pd,
		 const struct ibv_srq_init_attr_ex *attr,
		 struct vhca_create_srq_req *req)
{
	struct vhca_tm *tm = calloc(1, sizeof(*tm));
	uint32_t i;
	int err;

	if (!tm)
		return ENOMEM;
	tm->max_tags = attr->tm_cap.max_num_tags;
	tm->free = calloc(tm->max_tags, sizeof(*tm->free));
	err = tm->free ? vhca_ring_alloc(&tm->ops, pd, VHCA_RES_TYPE_SRQ,
					 ops_log_size(attr->tm_cap.max_ops),
					 VHCA_TM_OP_SHIFT, 0) : ENOMEM;
	if (err) {
		free(tm->free);
		free(tm);
		return err;
	}
	for (i = 0; i < tm->max_tags; i++)
		tm->free[i] = tm->max_tags - 1 - i;
	tm->nfree = tm->max_tags;
	vhca_lock_init(&tm->lock, vhca_pd_single_threaded(pd));
	req->comp_mask |= VHCA_CREATE_SRQ_REQ_TM;
	req->tm_ops_addr = (uintptr_t)tm->ops.buf;
	req->tm_ops_len = tm->ops.buf_len;
	req->tm_ops_log_size = tm->ops.log_size;
	srq->tm = tm;
	return 0;
}

void vhca_tm_free(struct vhca_srq *srq)
{
	struct vhca_tm *tm = srq->tm;

	if (!tm)
		return;
	vhca_ring_free(&tm->ops);
	vhca_lock_destroy(&tm->lock);
	free(tm->free);
	free(tm);
	srq->tm = NULL;
}

/* ---- ibv_post_srq_ops ---- */

static int tm_op_fill(struct vhca_tm *tm, struct ibv_ops_wr *wr,
		      struct vhca_tm_op *op)
{
	memset(op, 0, sizeof(*op));
	op->wr_id = htole64(wr->wr_id);
	op->flags = ((wr->flags & IBV_OPS_SIGNALED) ? VHCA_TM_OP_F_SIGNALED : 0) |
		    ((wr->flags & IBV_OPS_TM_SYNC) ? VHCA_TM_OP_F_SYNC : 0);
	op->unexpected_cnt = htole32(wr->tm.unexpected_cnt);
	switch (wr->opcode) {
	case IBV_WR_TAG_ADD:
		if (wr->tm.add.num_sge < 0 ||
		    wr->tm.add.num_sge > VHCA_TM_MAX_SGE)
			return EINVAL;
		if (!tm->nfree)
			return ENOMEM;
		wr->tm.handle = tm->free[--tm->nfree];
		op->opcode = VHCA_TM_OP_ADD;
		op->num_sge = (uint8_t)wr->tm.add.num_sge;
		op->recv_wr_id = htole64(wr->tm.add.recv_wr_id);
		op->tag = htole64(wr->tm.add.tag);
		op->mask = htole64(wr->tm.add.mask);
		if (op->num_sge) {
			op->sge.addr = htole64(wr->tm.add.sg_list[0].addr);
			op->sge.length = htole32(wr->tm.add.sg_list[0].length);
			op->sge.lkey = htole32(wr->tm.add.sg_list[0].lkey);
		}
		break;
	case IBV_WR_TAG_DEL:
		if (wr->tm.handle >= tm->max_tags)
			return EINVAL;
		op->opcode = VHCA_TM_OP_DEL;
		break;
	case IBV_WR_TAG_SYNC:
		op->opcode = VHCA_TM_OP_SYNC;
		break;
	default:
		return EINVAL;
	}
	op->handle = htole32(wr->tm.handle);
	return 0;
}

int vhca_post_srq_ops(struct ibv_srq *ibsrq, struct ibv_ops_wr *wr,
		      struct ibv_ops_wr **bad_wr)
{
	struct vhca_srq *srq = to_vsrq(ibsrq);
	struct vhca_tm *tm = srq->tm;
	struct vhca_ring *ring;
	uint32_t start;
	int err = 0;

	if (!tm) {
		*bad_wr = wr;
		return EINVAL;
	}
	ring = &tm->ops;
	vhca_lock(&tm->lock);
	start = ring->pi;
	for (; wr; wr = wr->next) {
		struct vhca_tm_op *op = (struct vhca_tm_op *)((char *)ring->buf +
			((size_t)(ring->pi & ((1u << ring->log_size) - 1)) <<
			 VHCA_TM_OP_SHIFT));

		if (ring->pi - __atomic_load_n(&ring->ci, __ATOMIC_ACQUIRE) >=
		    1u << ring->log_size)
			err = ENOMEM;
		else
			err = tm_op_fill(tm, wr, op);
		if (err) {
			*bad_wr = wr;
			break;
		}
		ring->pi++;
	}
	if (ring->pi != start)
		vhca_ring_doorbell(to_vctx(ibsrq->context), VHCA_DB_SRQ,
				   vhca_db_data_value(srq->srqn, VHCA_DB_SRQ_TM_OPS,
						      ring->pi));
	vhca_unlock(&tm->lock);
	return err;
}

/* ---- completions (poll_cq, under the CQ's lock) ---- */

static void tm_handle_freed(struct vhca_tm *tm, const struct vhca_cqe *cqe)
{
	uint16_t handle = le16toh(cqe->tm_handle);

	if (!(cqe->tm_flags & VHCA_CQE_TM_F_FREED) || handle >= tm->max_tags)
		return;
	vhca_lock(&tm->lock);
	if (tm->nfree < tm->max_tags)
		tm->free[tm->nfree++] = handle;
	vhca_unlock(&tm->lock);
}

bool vhca_cqe_is_tm_op(const struct vhca_cqe *cqe)
{
	return cqe->opcode == VHCA_CQE_TM_ADD || cqe->opcode == VHCA_CQE_TM_DEL ||
	       cqe->opcode == VHCA_CQE_TM_SYNC;
}

/* A list operation's CQE: ring slots and handles back; false when the
 * application did not ask for it (skipped). */
bool vhca_tm_op_done(struct vhca_context *ctx, const struct vhca_cqe *cqe)
{
	struct vhca_srq *srq = vhca_xrc_srq_find(ctx, le32toh(cqe->srqn));
	struct vhca_ring *ring;
	uint32_t done;

	if (srq && srq->tm) {
		ring = &srq->tm->ops;
		done = ring->ci + (uint16_t)(le16toh(cqe->wqe_index) -
					     (uint16_t)ring->ci);
		__atomic_store_n(&ring->ci, done + 1, __ATOMIC_RELEASE);
		tm_handle_freed(srq->tm, cqe);
	}
	return cqe->status != VHCA_WC_SUCCESS ||
	       (cqe->tm_flags & VHCA_CQE_TM_F_SIGNALED);
}

/* A receive of a TM SRQ: matched ones used no SRQ WQE. */
void vhca_tm_recv_done(struct vhca_srq *srq, const struct vhca_cqe *cqe)
{
	if (!(cqe->tm_flags & VHCA_CQE_TM_F_MATCH) &&
	    !(cqe->tm_flags & VHCA_CQE_TM_F_DATA_VALID) &&
	    !(cqe->tm_flags & VHCA_CQE_TM_F_FREED))
		__atomic_add_fetch(&srq->ring.ci, 1, __ATOMIC_RELEASE);
	if (srq->tm)
		tm_handle_freed(srq->tm, cqe);
}

/* The ibv_wc opcode of a CQE (vhca_cqe_opcode values are ibv_wc_opcode's
 * but for tag matching). */
enum ibv_wc_opcode vhca_wc_opcode(const struct vhca_cqe *cqe)
{
	switch (cqe->opcode) {
	case VHCA_CQE_TM_ADD:
		return IBV_WC_TM_ADD;
	case VHCA_CQE_TM_DEL:
		return IBV_WC_TM_DEL;
	case VHCA_CQE_TM_SYNC:
		return IBV_WC_TM_SYNC;
	case VHCA_CQE_TM_RECV:
		return (cqe->tm_flags & VHCA_CQE_TM_F_NO_TAG) ? IBV_WC_TM_NO_TAG
							      : IBV_WC_TM_RECV;
#if IBVERBS_PABI_VERSION >= 65
	case VHCA_CQE_FLUSH:	/* IBV_WC_FLUSH is 8, the device's REG_MR */
		return IBV_WC_FLUSH;
#endif
	default:
		return cqe->opcode;
	}
}

unsigned int vhca_tm_wc_flags(const struct vhca_cqe *cqe)
{
	unsigned int flags = 0;

	if (cqe->tm_flags & VHCA_CQE_TM_F_MATCH)
		flags |= IBV_WC_TM_MATCH;
	if (cqe->tm_flags & VHCA_CQE_TM_F_DATA_VALID)
		flags |= IBV_WC_TM_DATA_VALID;
	if (cqe->tm_flags & VHCA_CQE_TM_F_SYNC_REQ)
		flags |= IBV_WC_TM_SYNC_REQ;
	return flags;
}

/* ibv_wc_read_tm_info: the tag and app_ctx of a matched message's header
 * (the CQE with IBV_WC_TM_MATCH; a rendezvous's final one has none). */
void vhca_tm_info(const struct vhca_cqe *cqe, struct ibv_wc_tm_info *info)
{
	bool tagged = cqe->opcode == VHCA_CQE_TM_RECV &&
		      (cqe->tm_flags & VHCA_CQE_TM_F_MATCH);

	info->tag = tagged ? (uint64_t)le32toh(cqe->tm_tag_hi) << 32 |
			     le32toh(cqe->tm_tag_lo) : 0;
	info->priv = tagged ? be32toh(cqe->imm_inv) : 0;
}
