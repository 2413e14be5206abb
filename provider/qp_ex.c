// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * qp_ex.c - extended QPs (ibv_create_qp_ex with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
 * and the ibv_wr_* posting API on them.
 *
 * ibv_wr_start takes the send queue's lock; each opcode call (ibv_wr_send,
 * ibv_wr_rdma_write, ...) opens the next WQE in the ring, written in place
 * by the same code as post_send (datapath.c: the opcode rules of
 * uapi/vhca_hw_wqe_rules.h, the control, RDMA/atomic and UD segments, SGEs,
 * inline data copied at the call, so the caller may reuse its buffer at
 * once); the setters fill the open WQE in any order.  ibv_wr_complete rings
 * one doorbell for all of them and drops the lock; the first error of the
 * batch (a full ring, an opcode not in send_ops_flags, too many SGEs, too
 * much inline data, a UD WQE without ibv_wr_set_ud_addr, a QP before RTS)
 * makes it post
 * nothing and return that error, as ibv_wr_abort does (ibv_wr_post(3)).
 *
 * ibv_wr_bind_mw and ibv_wr_local_inv open a complete WQE (no data), and
 * so does ibv_wr_atomic_write: its 8 bytes go into the WQE's atomic
 * segment (IBA 1.5 9.4.6; offered when the device has
 * VHCA_DEV_CAP_ATOMIC_WRITE), and so does ibv_wr_flush: its range,
 * placement type and selectivity go into the WQE's FLUSH segment (IBA 1.5
 * A19.4.1; offered when the device has VHCA_DEV_CAP_FLUSH_GLOBAL or
 * _PERSISTENT, from rdma-core 65's headers: 44's have no ibv_wr_flush).
 * Not offered: TSO: send_ops_flags naming it fail ibv_create_qp_ex with
 * EOPNOTSUPP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vhca.h"

/* The opcodes we post: IBV_QP_EX_WITH_x is 1 << IBV_WR_x for each. */
#define VHCA_SEND_OPS                                                          \
	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |      \
	 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |                  \
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |        \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_SEND_WITH_INV |   \
	 IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW)

_Static_assert(IBV_QP_EX_WITH_SEND == 1u << IBV_WR_SEND &&
	       IBV_QP_EX_WITH_SEND_WITH_INV == 1u << IBV_WR_SEND_WITH_INV &&
	       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD == 1u << IBV_WR_ATOMIC_FETCH_AND_ADD,
	       "IBV_QP_EX_WITH_x is 1 << IBV_WR_x");
_Static_assert((int)IBV_WR_ATOMIC_WRITE == (int)VHCA_WQE_ATOMIC_WRITE &&
	       (int)IBV_WC_ATOMIC_WRITE == (int)VHCA_CQE_ATOMIC_WRITE,
	       "the device's ATOMIC_WRITE opcodes are libibverbs' numbers");

#if IBVERBS_PABI_VERSION >= 65
_Static_assert((int)IBV_WR_FLUSH == (int)VHCA_WQE_FLUSH &&
	       (int)IBV_FLUSH_GLOBAL == (int)VHCA_FLUSH_GLOBAL &&
	       (int)IBV_FLUSH_PERSISTENT == (int)VHCA_FLUSH_PERSISTENT &&
	       (int)IBV_FLUSH_RANGE == (int)VHCA_FLUSH_RANGE &&
	       (int)IBV_FLUSH_MR == (int)VHCA_FLUSH_MR,
	       "the device's FLUSH numbers are libibverbs' numbers");
#endif

/* The send_ops_flags bit of an opcode: 1 << opcode, except ATOMIC_WRITE
 * (opcode 15, flag 1 << 12: libibverbs skipped IBV_WR_DRIVER1's bit) and
 * FLUSH (opcode 14, flag 1 << 11). */
static uint64_t send_ops_flag(unsigned int opcode)
{
#if IBVERBS_PABI_VERSION >= 65
	if (opcode == IBV_WR_FLUSH)
		return IBV_QP_EX_WITH_FLUSH;
#endif
	return opcode == IBV_WR_ATOMIC_WRITE ? IBV_QP_EX_WITH_ATOMIC_WRITE
					     : 1ull << opcode;
}

/* The opcode of a send_ops_flags bit (the inverse of send_ops_flag). */
static unsigned int send_ops_opcode(unsigned int bit)
{
#if IBVERBS_PABI_VERSION >= 65
	if ((1ull << bit) == IBV_QP_EX_WITH_FLUSH)
		return IBV_WR_FLUSH;
#endif
	return (1ull << bit) == IBV_QP_EX_WITH_ATOMIC_WRITE ? IBV_WR_ATOMIC_WRITE
							  : bit;
}

static struct vhca_qp *to_vqp_ex(struct ibv_qp_ex *qp_ex)
{
	return container_of(qp_ex, struct vhca_qp, vqp.qp_ex);
}

/* Whether every opcode of send_ops_flags is one we post and the QP type
 * may post it (the device's rules). */
int vhca_qp_ex_check_ops(const struct vhca_context *ctx, uint64_t send_ops_flags,
			 uint8_t qp_type)
{
	uint64_t offered = VHCA_SEND_OPS;
	unsigned int bit;

	if (ctx->dev_caps & VHCA_DEV_CAP_ATOMIC_WRITE)
		offered |= IBV_QP_EX_WITH_ATOMIC_WRITE;
#if IBVERBS_PABI_VERSION >= 65
	if (ctx->dev_caps & (VHCA_DEV_CAP_FLUSH_GLOBAL | VHCA_DEV_CAP_FLUSH_PERSISTENT))
		offered |= IBV_QP_EX_WITH_FLUSH;
#endif
	if (send_ops_flags & ~offered)
		return EOPNOTSUPP;
	for (bit = 0; bit < 32; bit++)
		if ((send_ops_flags & (1ull << bit)) &&
		    !vhca_wqe_opcode_allowed(send_ops_opcode(bit), qp_type))
			return EOPNOTSUPP;
	return 0;
}

static void fail(struct vhca_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
	qp->wr_open = false;
}

/* A UD WQE needs its address before the next one opens or the batch ends. */
static void close_wqe(struct vhca_qp *qp)
{
	if (qp->wr_open && qp->wr_need_ud)
		fail(qp, EINVAL);
	qp->wr_open = false;
}

/* Opens the next WQE of the batch with `wr`'s opcode and segment. */
static void open_wqe(struct vhca_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_qp_ex *qp_ex = &qp->vqp.qp_ex;
	int err;

	close_wqe(qp);
	if (qp->wr_err)
		return;
	if (!(qp->send_ops & send_ops_flag(wr->opcode))) {
		fail(qp, EINVAL);
		return;
	}
	if (qp->sq.pi - __atomic_load_n(&qp->sq.ci, __ATOMIC_ACQUIRE) >=
	    (1u << qp->sq.log_size)) {
		fail(qp, ENOMEM);
		return;
	}
	wr->wr_id = qp_ex->wr_id;
	wr->send_flags = qp_ex->wr_flags & ~(unsigned int)IBV_SEND_INLINE;
	err = vhca_wqe_begin(qp, wr, vhca_sq_entry(qp, qp->sq.pi), &qp->wr_wqe);
	if (err) {
		fail(qp, err);
		return;
	}
	qp->sq.pi++;
	qp->wr_open = true;
	qp->wr_need_ud = qp->type == VHCA_QPT_UD;
}

static void wr_send(struct ibv_qp_ex *qp_ex)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND };

	open_wqe(to_vqp_ex(qp_ex), &wr);
}

static void wr_send_imm(struct ibv_qp_ex *qp_ex, __be32 imm_data)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND_WITH_IMM, .imm_data = imm_data };

	open_wqe(to_vqp_ex(qp_ex), &wr);
}

static void wr_send_inv(struct ibv_qp_ex *qp_ex, uint32_t invalidate_rkey)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND_WITH_INV,
				  .invalidate_rkey = invalidate_rkey };

	open_wqe(to_vqp_ex(qp_ex), &wr);
}

static void open_rdma(struct ibv_qp_ex *qp_ex, enum ibv_wr_opcode opcode,
		      uint32_t rkey, uint64_t remote_addr, __be32 imm_data)
{
	struct ibv_send_wr wr = { .opcode = opcode, .imm_data = imm_data };

	wr.wr.rdma.rkey = rkey;
	wr.wr.rdma.remote_addr = remote_addr;
	open_wqe(to_vqp_ex(qp_ex), &wr);
}

static void wr_rdma_write(struct ibv_qp_ex *qp_ex, uint32_t rkey, uint64_t remote_addr)
{
	open_rdma(qp_ex, IBV_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *qp_ex, uint32_t rkey,
			      uint64_t remote_addr, __be32 imm_data)
{
	open_rdma(qp_ex, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr, imm_data);
}

static void wr_rdma_read(struct ibv_qp_ex *qp_ex, uint32_t rkey, uint64_t remote_addr)
{
	open_rdma(qp_ex, IBV_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void open_atomic(struct ibv_qp_ex *qp_ex, enum ibv_wr_opcode opcode,
			uint32_t rkey, uint64_t remote_addr, uint64_t compare_add,
			uint64_t swap)
{
	struct ibv_send_wr wr = { .opcode = opcode };

	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.remote_addr = remote_addr;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	open_wqe(to_vqp_ex(qp_ex), &wr);
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *qp_ex, uint32_t rkey,
			      uint64_t remote_addr, uint64_t compare, uint64_t swap)
{
	open_atomic(qp_ex, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr, compare, swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *qp_ex, uint32_t rkey,
				uint64_t remote_addr, uint64_t add)
{
	open_atomic(qp_ex, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add, 0);
}

/* IBA 1.5 9.4.6: the 8 bytes at atomic_wr stored at remote_addr as one
 * write.  They are copied into the WQE now, as inline data is. */
static void wr_atomic_write(struct ibv_qp_ex *qp_ex, uint32_t rkey,
			    uint64_t remote_addr, const void *atomic_wr)
{
	struct vhca_qp *qp = to_vqp_ex(qp_ex);
	struct ibv_send_wr wr = { .opcode = IBV_WR_ATOMIC_WRITE };

	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.remote_addr = remote_addr;
	memcpy(&wr.wr.atomic.swap, atomic_wr, sizeof(wr.wr.atomic.swap));
	open_wqe(qp, &wr);
}

#if IBVERBS_PABI_VERSION >= 65
/* The placement types the device makes: a FLUSH may name any of them. */
static uint8_t flush_types(const struct vhca_context *ctx)
{
	return ((ctx->dev_caps & VHCA_DEV_CAP_FLUSH_GLOBAL) ? VHCA_FLUSH_GLOBAL : 0) |
	       ((ctx->dev_caps & VHCA_DEV_CAP_FLUSH_PERSISTENT) ?
		VHCA_FLUSH_PERSISTENT : 0);
}

/* IBA 1.5 A19.4.1: the WRITEs before it placed (globally visible,
 * persistent) in [remote_addr, remote_addr + len) of rkey's region, or in
 * all of it (IBV_FLUSH_MR); no data either way.  A placement type the
 * device lacks, none, or a selectivity it does not know: EINVAL at
 * ibv_wr_complete. */
static void wr_flush(struct ibv_qp_ex *qp_ex, uint32_t rkey, uint64_t remote_addr,
		     size_t len, uint8_t type, uint8_t level)
{
	struct vhca_qp *qp = to_vqp_ex(qp_ex);
	struct ibv_send_wr wr = { .opcode = IBV_WR_FLUSH };
	struct vhca_wqe_flush *seg;

	if (!type || (type & ~flush_types(to_vctx(qp_ex->qp_base.context))) ||
	    level > IBV_FLUSH_MR || len > UINT32_MAX) {
		close_wqe(qp);
		fail(qp, EINVAL);
		return;
	}
	wr.wr.rdma.rkey = rkey;
	wr.wr.rdma.remote_addr = remote_addr;
	open_wqe(qp, &wr);
	if (!qp->wr_open)
		return;
	seg = (void *)(qp->wr_wqe.wqe + sizeof(struct vhca_wqe_ctrl));
	seg->length = htole32((uint32_t)len);
	seg->type = type;
	seg->level = level;
}
#endif

/* A type 2 window bound to this QP, with the key the caller chose
 * (ibv_inc_rkey of the current one); mw.c writes the segment. */
static void wr_bind_mw(struct ibv_qp_ex *qp_ex, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *bind_info)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_BIND_MW };

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info = *bind_info;
	open_wqe(to_vqp_ex(qp_ex), &wr);
}

static void wr_local_inv(struct ibv_qp_ex *qp_ex, uint32_t invalidate_rkey)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_LOCAL_INV,
				  .invalidate_rkey = invalidate_rkey };

	open_wqe(to_vqp_ex(qp_ex), &wr);
}

static void wr_set_ud_addr(struct ibv_qp_ex *qp_ex, struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct vhca_qp *qp = to_vqp_ex(qp_ex);

	if (!qp->wr_open)
		return;
	if (qp->type != VHCA_QPT_UD || !ah) {
		fail(qp, EINVAL);
		return;
	}
	vhca_wqe_set_ud(&qp->wr_wqe, ah, remote_qpn, remote_qkey);
	qp->wr_need_ud = false;
}

/* The remote XRC SRQ of the open WQE (the XRCETH, IBA A14.3.1). */
static void wr_set_xrc_srqn(struct ibv_qp_ex *qp_ex, uint32_t remote_srqn)
{
	struct vhca_qp *qp = to_vqp_ex(qp_ex);
	struct vhca_wqe_ctrl *ctrl;

	if (!qp->wr_open)
		return;
	if (qp->type != VHCA_QPT_XRC_INI) {
		fail(qp, EINVAL);
		return;
	}
	ctrl = (void *)qp->wr_wqe.wqe;
	ctrl->xrc_srqn = htole32(remote_srqn & VHCA_DB_OBJ_MASK);
}

static void wr_set_sge_list(struct ibv_qp_ex *qp_ex, size_t num_sge,
			    const struct ibv_sge *sg_list)
{
	struct vhca_qp *qp = to_vqp_ex(qp_ex);
	int err;

	if (!qp->wr_open)
		return;
	err = vhca_wqe_set_sges(qp, &qp->wr_wqe, sg_list, num_sge);
	if (err)
		fail(qp, err);
}

static void wr_set_sge(struct ibv_qp_ex *qp_ex, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	wr_set_sge_list(qp_ex, 1, &sge);
}

static void wr_set_inline_data_list(struct ibv_qp_ex *qp_ex, size_t num_buf,
				    const struct ibv_data_buf *buf_list)
{
	struct vhca_qp *qp = to_vqp_ex(qp_ex);
	size_t i;
	int err = 0;

	if (!qp->wr_open)
		return;
	for (i = 0; i < num_buf && !err; i++)
		err = vhca_wqe_add_inline(qp, &qp->wr_wqe, buf_list[i].addr,
					  buf_list[i].length);
	if (err)
		fail(qp, err);
}

static void wr_set_inline_data(struct ibv_qp_ex *qp_ex, void *addr, size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	wr_set_inline_data_list(qp_ex, 1, &buf);
}

static void wr_start(struct ibv_qp_ex *qp_ex)
{
	struct vhca_qp *qp = to_vqp_ex(qp_ex);

	vhca_lock(&qp->sq_lock);
	qp->wr_start_pi = qp->sq.pi;
	qp->wr_err = vhca_qp_may_send(&qp_ex->qp_base) ? 0 : EINVAL;
	qp->wr_open = false;
}

static void wr_abort(struct ibv_qp_ex *qp_ex)
{
	struct vhca_qp *qp = to_vqp_ex(qp_ex);

	qp->sq.pi = qp->wr_start_pi;
	qp->wr_open = false;
	vhca_unlock(&qp->sq_lock);
}

static int wr_complete(struct ibv_qp_ex *qp_ex)
{
	struct vhca_qp *qp = to_vqp_ex(qp_ex);
	int err;

	close_wqe(qp);
	err = qp->wr_err;
	if (err) {
		wr_abort(qp_ex);
		return err;
	}
	if (qp->sq.pi != qp->wr_start_pi)
		vhca_sq_kick(to_vctx(qp_ex->qp_base.context), qp);
	vhca_unlock(&qp->sq_lock);
	return 0;
}

void vhca_qp_ex_set_ops(struct vhca_qp *qp, uint64_t send_ops_flags)
{
	struct ibv_qp_ex *qp_ex = &qp->vqp.qp_ex;

	qp->send_ops = send_ops_flags;
	qp->vqp.comp_mask |= VERBS_QP_EX;
	qp_ex->wr_send = wr_send;
	qp_ex->wr_send_imm = wr_send_imm;
	qp_ex->wr_send_inv = wr_send_inv;
	qp_ex->wr_rdma_write = wr_rdma_write;
	qp_ex->wr_rdma_write_imm = wr_rdma_write_imm;
	qp_ex->wr_rdma_read = wr_rdma_read;
	qp_ex->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	qp_ex->wr_atomic_fetch_add = wr_atomic_fetch_add;
	qp_ex->wr_atomic_write = wr_atomic_write;
#if IBVERBS_PABI_VERSION >= 65
	qp_ex->wr_flush = wr_flush;
#endif
	qp_ex->wr_bind_mw = wr_bind_mw;
	qp_ex->wr_local_inv = wr_local_inv;
	qp_ex->wr_set_ud_addr = wr_set_ud_addr;
	qp_ex->wr_set_xrc_srqn = wr_set_xrc_srqn;
	qp_ex->wr_set_sge = wr_set_sge;
	qp_ex->wr_set_sge_list = wr_set_sge_list;
	qp_ex->wr_set_inline_data = wr_set_inline_data;
	qp_ex->wr_set_inline_data_list = wr_set_inline_data_list;
	qp_ex->wr_start = wr_start;
	qp_ex->wr_complete = wr_complete;
	qp_ex->wr_abort = wr_abort;
}
