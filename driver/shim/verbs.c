// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs.c - the data path ops table, the
 * device attributes it adds, the completion and asynchronous event
 * callbacks, and the address vector conversion shared by QPs and AHs.
 *
 * The ops themselves live in one file per object (verbs_cq.c, verbs_qp.c,
 * verbs_srq.c, verbs_mr.c, verbs_ah.c); each translates ib_verbs types and
 * calls one vhca_core_verbs.h function.  Where an ib_verbs enum and a
 * VHCA_CORE_* / vhca_hw_verbs.h value share numbers, the proof is here.
 */
#include <linux/module.h>
#include <rdma/ib_verbs.h>

#include "vhca_shim.h"
#include "compat.h"

/* ---- the numbers the shim passes through unchanged ---- */
static_assert((int)IB_SEND_FENCE == (int)VHCA_CORE_SEND_FENCE);
static_assert((int)IB_SEND_SIGNALED == (int)VHCA_CORE_SEND_SIGNALED);
static_assert((int)IB_SEND_SOLICITED == (int)VHCA_CORE_SEND_SOLICITED);
static_assert((int)IB_SEND_INLINE == (int)VHCA_CORE_SEND_INLINE);
static_assert((int)IB_CQ_SOLICITED == (int)VHCA_CORE_CQ_SOLICITED);
static_assert((int)IB_CQ_NEXT_COMP == (int)VHCA_CORE_CQ_NEXT_COMP);
static_assert((int)IB_CQ_REPORT_MISSED_EVENTS == (int)VHCA_CORE_CQ_REPORT_MISSED);
static_assert((int)IB_WC_GRH == (int)VHCA_CORE_WC_GRH);
static_assert((int)IB_WC_WITH_IMM == (int)VHCA_CORE_WC_WITH_IMM);
static_assert((int)IB_WC_WITH_INVALIDATE == (int)VHCA_CORE_WC_WITH_INVALIDATE);

static_assert((int)IB_WR_RDMA_WRITE == (int)VHCA_WQE_RDMA_WRITE);
static_assert((int)IB_WR_RDMA_WRITE_WITH_IMM == (int)VHCA_WQE_RDMA_WRITE_WITH_IMM);
static_assert((int)IB_WR_SEND == (int)VHCA_WQE_SEND);
static_assert((int)IB_WR_SEND_WITH_IMM == (int)VHCA_WQE_SEND_WITH_IMM);
static_assert((int)IB_WR_RDMA_READ == (int)VHCA_WQE_RDMA_READ);
static_assert((int)IB_WR_ATOMIC_CMP_AND_SWP == (int)VHCA_WQE_ATOMIC_CMP_AND_SWP);
static_assert((int)IB_WR_ATOMIC_FETCH_AND_ADD == (int)VHCA_WQE_ATOMIC_FETCH_AND_ADD);
static_assert((int)IB_WR_LOCAL_INV == (int)VHCA_WQE_LOCAL_INV);
static_assert((int)IB_WR_SEND_WITH_INV == (int)VHCA_WQE_SEND_WITH_INV);
static_assert((int)IB_WR_REG_MR == (int)VHCA_WQE_REG_MR);

static_assert((int)IB_WC_SEND == (int)VHCA_CQE_SEND);
static_assert((int)IB_WC_RDMA_WRITE == (int)VHCA_CQE_RDMA_WRITE);
static_assert((int)IB_WC_RDMA_READ == (int)VHCA_CQE_RDMA_READ);
static_assert((int)IB_WC_COMP_SWAP == (int)VHCA_CQE_COMP_SWAP);
static_assert((int)IB_WC_FETCH_ADD == (int)VHCA_CQE_FETCH_ADD);
static_assert((int)IB_WC_LOCAL_INV == (int)VHCA_CQE_LOCAL_INV);
static_assert((int)IB_WC_RECV == (int)VHCA_CQE_RECV);
static_assert((int)IB_WC_RECV_RDMA_WITH_IMM == (int)VHCA_CQE_RECV_RDMA_WITH_IMM);

static_assert((int)IB_WC_SUCCESS == (int)VHCA_WC_SUCCESS);
static_assert((int)IB_WC_LOC_LEN_ERR == (int)VHCA_WC_LOC_LEN_ERR);
static_assert((int)IB_WC_LOC_QP_OP_ERR == (int)VHCA_WC_LOC_QP_OP_ERR);
static_assert((int)IB_WC_LOC_PROT_ERR == (int)VHCA_WC_LOC_PROT_ERR);
static_assert((int)IB_WC_WR_FLUSH_ERR == (int)VHCA_WC_WR_FLUSH_ERR);
static_assert((int)IB_WC_BAD_RESP_ERR == (int)VHCA_WC_BAD_RESP_ERR);
static_assert((int)IB_WC_LOC_ACCESS_ERR == (int)VHCA_WC_LOC_ACCESS_ERR);
static_assert((int)IB_WC_REM_INV_REQ_ERR == (int)VHCA_WC_REM_INV_REQ_ERR);
static_assert((int)IB_WC_REM_ACCESS_ERR == (int)VHCA_WC_REM_ACCESS_ERR);
static_assert((int)IB_WC_REM_OP_ERR == (int)VHCA_WC_REM_OP_ERR);
static_assert((int)IB_WC_RETRY_EXC_ERR == (int)VHCA_WC_RETRY_EXC_ERR);
static_assert((int)IB_WC_RNR_RETRY_EXC_ERR == (int)VHCA_WC_RNR_RETRY_EXC_ERR);
static_assert((int)IB_WC_REM_ABORT_ERR == (int)VHCA_WC_REM_ABORT_ERR);
static_assert((int)IB_WC_FATAL_ERR == (int)VHCA_WC_FATAL_ERR);
static_assert((int)IB_WC_GENERAL_ERR == (int)VHCA_WC_GENERAL_ERR);

static_assert((int)IB_QP_STATE == (int)VHCA_QP_ATTR_STATE);
static_assert((int)IB_QP_CUR_STATE == (int)VHCA_QP_ATTR_CUR_STATE);
static_assert((int)IB_QP_EN_SQD_ASYNC_NOTIFY == (int)VHCA_QP_ATTR_EN_SQD_ASYNC_NOTIFY);
static_assert((int)IB_QP_ACCESS_FLAGS == (int)VHCA_QP_ATTR_ACCESS_FLAGS);
static_assert((int)IB_QP_PKEY_INDEX == (int)VHCA_QP_ATTR_PKEY_INDEX);
static_assert((int)IB_QP_PORT == (int)VHCA_QP_ATTR_PORT);
static_assert((int)IB_QP_QKEY == (int)VHCA_QP_ATTR_QKEY);
static_assert((int)IB_QP_AV == (int)VHCA_QP_ATTR_AV);
static_assert((int)IB_QP_PATH_MTU == (int)VHCA_QP_ATTR_PATH_MTU);
static_assert((int)IB_QP_TIMEOUT == (int)VHCA_QP_ATTR_TIMEOUT);
static_assert((int)IB_QP_RETRY_CNT == (int)VHCA_QP_ATTR_RETRY_CNT);
static_assert((int)IB_QP_RNR_RETRY == (int)VHCA_QP_ATTR_RNR_RETRY);
static_assert((int)IB_QP_RQ_PSN == (int)VHCA_QP_ATTR_RQ_PSN);
static_assert((int)IB_QP_MAX_QP_RD_ATOMIC == (int)VHCA_QP_ATTR_MAX_QP_RD_ATOMIC);
static_assert((int)IB_QP_MIN_RNR_TIMER == (int)VHCA_QP_ATTR_MIN_RNR_TIMER);
static_assert((int)IB_QP_SQ_PSN == (int)VHCA_QP_ATTR_SQ_PSN);
static_assert((int)IB_QP_MAX_DEST_RD_ATOMIC == (int)VHCA_QP_ATTR_MAX_DEST_RD_ATOMIC);
static_assert((int)IB_QP_DEST_QPN == (int)VHCA_QP_ATTR_DEST_QPN);

static_assert((int)IB_ACCESS_LOCAL_WRITE == (int)VHCA_ACCESS_LOCAL_WRITE);
static_assert((int)IB_ACCESS_REMOTE_WRITE == (int)VHCA_ACCESS_REMOTE_WRITE);
static_assert((int)IB_ACCESS_REMOTE_READ == (int)VHCA_ACCESS_REMOTE_READ);
static_assert((int)IB_ACCESS_REMOTE_ATOMIC == (int)VHCA_ACCESS_REMOTE_ATOMIC);
#ifdef VHCA_HAVE_IB_DEVICE_FLUSH
static_assert((int)IB_ACCESS_FLUSH_GLOBAL == (int)VHCA_ACCESS_FLUSH_GLOBAL);
static_assert((int)IB_ACCESS_FLUSH_PERSISTENT == (int)VHCA_ACCESS_FLUSH_PERSISTENT);
static_assert((int)IB_FLUSH_GLOBAL == (int)VHCA_FLUSH_GLOBAL);
static_assert((int)IB_FLUSH_PERSISTENT == (int)VHCA_FLUSH_PERSISTENT);
static_assert((int)IB_FLUSH_RANGE == (int)VHCA_FLUSH_RANGE);
static_assert((int)IB_FLUSH_MR == (int)VHCA_FLUSH_MR);
#endif

static_assert(sizeof(struct ib_sge) == sizeof(struct vhca_core_sge));
static_assert(offsetof(struct ib_sge, addr) == offsetof(struct vhca_core_sge, addr));
static_assert(offsetof(struct ib_sge, length) == offsetof(struct vhca_core_sge, length));
static_assert(offsetof(struct ib_sge, lkey) == offsetof(struct vhca_core_sge, lkey));

/* ---- address vectors ---- */
void vhca_verbs_ah_attr(const struct rdma_ah_attr *ah,
			struct vhca_core_ah_attr *av)
{
	memset(av, 0, sizeof(*av));
	av->dlid = rdma_ah_get_dlid(ah);
	av->sl = rdma_ah_get_sl(ah);
	av->src_path_bits = rdma_ah_get_path_bits(ah);
	av->static_rate = rdma_ah_get_static_rate(ah);
	av->port_num = rdma_ah_get_port_num(ah);
	if (rdma_ah_get_ah_flags(ah) & IB_AH_GRH) {
		const struct ib_global_route *grh = rdma_ah_read_grh(ah);

		av->has_grh = 1;
		av->sgid_index = grh->sgid_index;
		av->hop_limit = grh->hop_limit;
		av->traffic_class = grh->traffic_class;
		av->flow_label = grh->flow_label;
		memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	}
}

void vhca_verbs_ib_ah_attr(struct ib_device *ibdev,
			   const struct vhca_core_ah_attr *av,
			   struct rdma_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(ah, av->dlid);
	rdma_ah_set_sl(ah, av->sl);
	rdma_ah_set_path_bits(ah, av->src_path_bits);
	rdma_ah_set_static_rate(ah, av->static_rate);
	rdma_ah_set_port_num(ah, av->port_num);
	if (av->has_grh) {
		union ib_gid dgid;

		memcpy(dgid.raw, av->dgid, sizeof(dgid.raw));
		rdma_ah_set_grh(ah, &dgid, av->flow_label, av->sgid_index,
				av->hop_limit, av->traffic_class);
	}
}

/* ---- events (hard-IRQ context, see vhca_core_verbs.h) ---- */
static void vhca_cq_completion(void *context)
{
	struct ib_cq *ibcq = context;

	if (ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
}

static void vhca_qp_event(struct ib_qp *ibqp, unsigned int subtype)
{
	struct ib_event event = { .device = ibqp->device, .element.qp = ibqp };

	switch (subtype) {
	case VHCA_QP_EV_COMM_EST:
		event.event = IB_EVENT_COMM_EST;
		break;
	case VHCA_QP_EV_SQ_DRAINED:
		event.event = IB_EVENT_SQ_DRAINED;
		break;
	case VHCA_QP_EV_LAST_WQE_REACHED:
		event.event = IB_EVENT_QP_LAST_WQE_REACHED;
		break;
	case VHCA_QP_EV_FATAL:
		event.event = IB_EVENT_QP_FATAL;
		break;
	case VHCA_QP_EV_REQ_ERR:
		event.event = IB_EVENT_QP_REQ_ERR;
		break;
	case VHCA_QP_EV_ACCESS_ERR:
		event.event = IB_EVENT_QP_ACCESS_ERR;
		break;
	default:
		ibdev_warn(ibqp->device, "QP %u: unknown event %u\n",
			   ibqp->qp_num, subtype);
		return;
	}
	if (ibqp->event_handler)
		ibqp->event_handler(&event, ibqp->qp_context);
}

static void vhca_async_event(unsigned int type, unsigned int subtype,
			     void *context)
{
	struct ib_event event = {};

	switch (type) {
	case VHCA_EQE_QP_EVENT:
		vhca_qp_event(context, subtype);
		return;
	case VHCA_EQE_CQ_ERROR: {
		struct ib_cq *ibcq = context;

		event.device = ibcq->device;
		event.element.cq = ibcq;
		event.event = IB_EVENT_CQ_ERR;
		ibdev_warn(ibcq->device, "CQ error\n");
		if (ibcq->event_handler)
			ibcq->event_handler(&event, ibcq->cq_context);
		return;
	}
	case VHCA_EQE_SRQ_EVENT: {
		struct ib_srq *ibsrq = context;

		event.device = ibsrq->device;
		event.element.srq = ibsrq;
		if (subtype == VHCA_SRQ_EV_LIMIT_REACHED)
			event.event = IB_EVENT_SRQ_LIMIT_REACHED;
		else if (subtype == VHCA_SRQ_EV_ERR)
			event.event = IB_EVENT_SRQ_ERR;
		else
			return;
		if (ibsrq->event_handler)
			ibsrq->event_handler(&event, ibsrq->srq_context);
		return;
	}
	}
}

static const struct vhca_core_event_ops vhca_event_ops = {
	.cq_completion = vhca_cq_completion,
	.async_event = vhca_async_event,
};

void vhca_verbs_register(struct vhca_kapi_device *kdev)
{
	vhca_core_set_event_ops(kdev->core, &vhca_event_ops);
	vhca_odp_init(kdev);
	kdev->ibdev.local_dma_lkey = VHCA_LOCAL_DMA_LKEY;
}

/* What query_device adds for the data path (ib.c fills the rest). */
void vhca_verbs_query_device(struct vhca_kapi_device *kdev,
			     struct ib_device_attr *props)
{
	props->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
	vhca_mw_query_device(vhca_core_device_attr(kdev->core), props);
	vhca_xrc_query_device(vhca_core_device_attr(kdev->core), props);
	/* modify_srq(IB_SRQ_MAX_WR): RESIZE_SRQ (verbs_srq.c) */
	if (le32_to_cpu(vhca_core_device_attr(kdev->core)->dev_caps) &
	    VHCA_DEV_CAP_SRQ_RESIZE)
		props->device_cap_flags |= IB_DEVICE_SRQ_RESIZE;
	/* 8-byte atomics, atomic between every QP of the device (the device
	 * serializes them, vhca-responder.c); no masked atomics. */
	props->atomic_cap = IB_ATOMIC_HCA;
	props->masked_atomic_cap = IB_ATOMIC_NONE;
	props->kernel_cap_flags |= IBK_LOCAL_DMA_LKEY;
	/* FRWR page lists: DIRECT up to 512 pages, INDIRECT up to 512^2. */
	props->max_fast_reg_page_list_len =
		VHCA_PBL_ENTRIES_PER_PAGE * VHCA_PBL_ENTRIES_PER_PAGE;
	props->max_pi_fast_reg_page_list_len = 0;
	props->max_qp_init_rd_atom = props->max_qp_rd_atom;
	props->max_res_rd_atom = props->max_qp_rd_atom * props->max_qp;
	vhca_odp_query_device(kdev, props);
}

/* Added to vhca_dev_ops by ib_set_device_ops in vhca_ib_register; the
 * ops whose type differs between kernels are compat.c's vhca_compat_ops. */
const struct ib_device_ops vhca_verbs_ops = {
	.attach_mcast = vhca_ib_attach_mcast,
	.create_ah = vhca_ib_create_ah,
	.create_qp = vhca_ib_create_qp,
	.create_srq = vhca_ib_create_srq,
	.dereg_mr = vhca_ib_dereg_mr,
	.destroy_ah = vhca_ib_destroy_ah,
	.destroy_cq = vhca_ib_destroy_cq,
	.destroy_qp = vhca_ib_destroy_qp,
	.destroy_srq = vhca_ib_destroy_srq,
	.detach_mcast = vhca_ib_detach_mcast,
	.get_dma_mr = vhca_ib_get_dma_mr,
	.map_mr_sg = vhca_ib_map_mr_sg,
	.alloc_mr = vhca_ib_alloc_mr,
	.modify_qp = vhca_ib_modify_qp,
	.modify_srq = vhca_ib_modify_srq,
	.poll_cq = vhca_ib_poll_cq,
	.post_recv = vhca_ib_post_recv,
	.post_send = vhca_ib_post_send,
	.post_srq_recv = vhca_ib_post_srq_recv,
	.query_ah = vhca_ib_query_ah,
	.query_qp = vhca_ib_query_qp,
	.query_srq = vhca_ib_query_srq,
	.rereg_user_mr = vhca_ib_rereg_user_mr,
	.alloc_mw = vhca_ib_alloc_mw,
	.dealloc_mw = vhca_ib_dealloc_mw,
	.alloc_xrcd = vhca_ib_alloc_xrcd,
	.dealloc_xrcd = vhca_ib_dealloc_xrcd,
	.req_notify_cq = vhca_ib_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, vhca_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, vhca_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, vhca_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_qp, vhca_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, vhca_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, vhca_xrcd, ibxrcd),
};
