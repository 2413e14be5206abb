// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * mw.c - memory windows (IBA 10.6.7, vhca_hw_verbs.h "Memory windows"):
 * ibv_alloc_mw/ibv_dealloc_mw through the kernel, ibv_bind_mw (type 1)
 * and IBV_WR_BIND_MW (type 2) as BIND_MW WQEs on the QP's send ring.  The
 * device checks the bind (region's MW_BIND right and PD, range, rights)
 * and completes it with IBV_WC_MW_BIND_ERR when it refuses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vhca.h"

/* Rights a window may grant: remote ones only (IBA 10.6.7.1); local
 * write, which applications often pass along, grants nothing here. */
#define VHCA_MW_REMOTE (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			IBV_ACCESS_REMOTE_ATOMIC)

_Static_assert((int)IBV_ACCESS_REMOTE_WRITE == (int)VHCA_ACCESS_REMOTE_WRITE &&
	       (int)IBV_ACCESS_REMOTE_READ == (int)VHCA_ACCESS_REMOTE_READ &&
	       (int)IBV_ACCESS_REMOTE_ATOMIC == (int)VHCA_ACCESS_REMOTE_ATOMIC &&
	       (int)IBV_MW_TYPE_1 == (int)VHCA_MW_TYPE_1 &&
	       (int)IBV_MW_TYPE_2 == (int)VHCA_MW_TYPE_2,
	       "ibverbs and vhca window numbering differ");

int vhca_bind_segment(uint32_t rkey, const struct ibv_mw_bind_info *info,
		      struct vhca_wqe_bind_mw *seg)
{
	if (info->mw_access_flags & ~(VHCA_MW_REMOTE | IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;	/* zero-based windows: not in the device */
	if (!info->mr && info->length)
		return EINVAL;
	seg->mw_key = htole32(rkey);
	seg->mr_key = htole32(info->mr ? info->mr->lkey : 0);
	seg->addr = htole64(info->addr);
	seg->length = htole64(info->length);
	seg->access = htole32(info->mw_access_flags & VHCA_MW_REMOTE);
	return 0;
}

struct ibv_mw *vhca_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int err;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	err = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}
	return mw;
}

int vhca_dealloc_mw(struct ibv_mw *mw)
{
	int err = ibv_cmd_dealloc_mw(mw);

	if (!err)
		free(mw);
	return err;
}

/* ibv_bind_mw (type 1; libibverbs checked the type and the PDs): a
 * BIND_MW WQE with the next key variant, which the window takes once the
 * WQE is posted (the device applies it in order with the QP's work). */
int vhca_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
{
	struct ibv_send_wr wr = {
		.wr_id = bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = bind->send_flags,
	};
	struct ibv_send_wr *bad;
	int err;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = bind->bind_info;
	err = vhca_post_send(qp, &wr, &bad);
	if (err)
		return err;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}
