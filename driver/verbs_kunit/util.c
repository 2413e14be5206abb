// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * util.c - helpers of every case: data patterns, completion checks,
 * posting with the local DMA lkey, connected QP pairs between the two
 * ports, and fast-registration regions.
 */
#include <linux/delay.h>
#include <linux/scatterlist.h>

#include "verbs_kunit.h"

void fill(void *buf, size_t len, u8 seed)
{
	u8 *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 7 + (i >> 8));
}

int compare(const char *name, const void *got, const void *want, size_t len)
{
	const u8 *g = got, *w = want;
	size_t i;

	for (i = 0; i < len; i++) {
		if (g[i] != w[i]) {
			fail(name, "byte %zu: 0x%02x, expected 0x%02x", i, g[i], w[i]);
			return -EIO;
		}
	}
	return 0;
}

static void sync_side(struct side *s, bool for_device)
{
	if (for_device) {
		ib_dma_sync_single_for_device(ibdev, s->dma, BUF_SIZE, DMA_BIDIRECTIONAL);
		ib_dma_sync_single_for_device(ibdev, s->dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	} else {
		ib_dma_sync_single_for_cpu(ibdev, s->dma, BUF_SIZE, DMA_BIDIRECTIONAL);
		ib_dma_sync_single_for_cpu(ibdev, s->dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	}
}

void sync_for_device(void)
{
	sync_side(&a, true);
	sync_side(&b, true);
}

void sync_for_cpu(void)
{
	sync_side(&a, false);
	sync_side(&b, false);
}

int poll_one(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(POLL_MS);
	int n;

	do {
		n = ib_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? n : 0;
		usleep_range(100, 200);
	} while (time_before(jiffies, end));
	return -ETIMEDOUT;
}

int expect_wc(const char *name, struct ib_cq *cq, u64 wr_id,
	      enum ib_wc_opcode opcode, u32 byte_len)
{
	struct ib_wc wc;
	int err = poll_one(cq, &wc);

	if (err) {
		fail(name, "no completion for wr_id %llu: %d", wr_id, err);
		return -EIO;
	}
	if (wc.status != IB_WC_SUCCESS) {
		fail(name, "wr_id %llu: status %d (%s) vendor_err %u", wc.wr_id,
		     wc.status, ib_wc_status_msg(wc.status), wc.vendor_err);
		return -EIO;
	}
	if (wc.wr_id != wr_id || wc.opcode != opcode ||
	    (byte_len && wc.byte_len != byte_len)) {
		fail(name, "wc wr_id %llu opcode %d byte_len %u, expected %llu %d %u",
		     wc.wr_id, wc.opcode, wc.byte_len, wr_id, opcode, byte_len);
		return -EIO;
	}
	return 0;
}

int expect_status(const char *name, struct ib_cq *cq, u64 wr_id,
		  enum ib_wc_status status)
{
	struct ib_wc wc;
	int err = poll_one(cq, &wc);

	if (err) {
		fail(name, "no completion for wr_id %llu (expected %s): %d",
		     wr_id, ib_wc_status_msg(status), err);
		return -EIO;
	}
	if (wc.wr_id != wr_id || wc.status != status) {
		fail(name, "wc wr_id %llu status %d (%s) vendor_err %u, expected wr_id %llu %s",
		     wc.wr_id, wc.status, ib_wc_status_msg(wc.status),
		     wc.vendor_err, wr_id, ib_wc_status_msg(status));
		return -EIO;
	}
	return 0;
}

int expect_flushed(const char *name, struct ib_cq *cq, u64 wr_id, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (expect_status(name, cq, wr_id + i, IB_WC_WR_FLUSH_ERR))
			return -EIO;
	return 0;
}

int expect_empty(const char *name, struct ib_cq *cq, unsigned int ms)
{
	struct ib_wc wc;
	int n;

	msleep(ms);
	n = ib_poll_cq(cq, 1, &wc);
	if (n) {
		fail(name, "unexpected completion (%d): wr_id %llu status %s opcode %d",
		     n, wc.wr_id, ib_wc_status_msg(wc.status), wc.opcode);
		return -EIO;
	}
	return 0;
}

int expect_state(const char *name, struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	int err;

	err = ib_query_qp(qp, &attr, IB_QP_STATE, &init);
	if (err) {
		fail(name, "ib_query_qp(%u): %d", qp->qp_num, err);
		return err;
	}
	if (attr.qp_state != state) {
		fail(name, "QP %u in state %d, expected %d", qp->qp_num,
		     attr.qp_state, state);
		return -EIO;
	}
	return 0;
}

int post_recv_qp(struct ib_qp *qp, u64 wr_id, u64 addr, u32 len)
{
	struct ib_sge sge = { .addr = addr, .length = len,
			      .lkey = pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;
	int err = ib_post_recv(qp, &wr, &bad);

	if (err)
		fail("ib_post_recv", "QP %u: %d", qp->qp_num, err);
	return err;
}

int post_send_qp(struct ib_qp *qp, struct ib_send_wr *wr, u64 addr, u32 len)
{
	struct ib_sge sge = { .addr = addr, .length = len,
			      .lkey = pd->local_dma_lkey };
	const struct ib_send_wr *bad;
	int err;

	wr->sg_list = &sge;
	wr->num_sge = 1;
	err = ib_post_send(qp, wr, &bad);
	wr->sg_list = NULL;
	if (err)
		fail("ib_post_send", "QP %u: %d", qp->qp_num, err);
	return err;
}

int post_recv(struct side *s, u64 wr_id, u64 addr, u32 len)
{
	return post_recv_qp(s->qp, wr_id, addr, len);
}

int post_send(struct side *s, struct ib_send_wr *wr, u64 addr, u32 len)
{
	return post_send_qp(s->qp, wr, addr, len);
}

/* ---- connected pairs ---- */

#define ALL_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

static struct side *side_of(u32 port)
{
	return port == a.port ? &a : &b;
}

int connect_qp(struct ib_qp *qp, u32 port, u32 dest_qpn,
	       const struct pair_opts *o)
{
	struct side *s = side_of(port), *peer = port == a.port ? &b : &a;
	bool rc = o->type != IB_QPT_UC;
	struct ib_qp_attr attr = {};
	int mask, err;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = port;
	attr.qp_access_flags = o->access ? o->access :
			       rc ? ALL_ACCESS :
			       IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err) {
		fail("connect_qp", "QP %u -> INIT: %d", qp->qp_num, err);
		return err;
	}

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = min(s->mtu, peer->mtu);
	attr.dest_qp_num = dest_qpn;
	attr.rq_psn = 0x1000 + peer->port;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&attr.ah_attr, peer->lid);
	rdma_ah_set_sl(&attr.ah_attr, 0);
	rdma_ah_set_port_num(&attr.ah_attr, port);
	mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
	       IB_QP_RQ_PSN;
	if (rc) {
		attr.max_dest_rd_atomic = 1;
		attr.min_rnr_timer = o->min_rnr_timer ? o->min_rnr_timer : 12;
		mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	}
	err = ib_modify_qp(qp, &attr, mask);
	if (err) {
		fail("connect_qp", "QP %u -> RTR: %d", qp->qp_num, err);
		return err;
	}
	if (o->rtr_only)
		return 0;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0x1000 + port;
	mask = IB_QP_STATE | IB_QP_SQ_PSN;
	if (rc) {
		attr.timeout = 14;
		attr.retry_cnt = 7;
		attr.rnr_retry = o->rnr_set ? o->rnr_retry : 7;
		attr.max_rd_atomic = 1;
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
	}
	err = ib_modify_qp(qp, &attr, mask);
	if (err) {
		fail("connect_qp", "QP %u -> RTS: %d", qp->qp_num, err);
		return err;
	}
	return 0;
}

static void pair_event(struct ib_event *event, void *ctx)
{
	struct pair *p = ctx;

	if (event->event >= BITS_PER_LONG)
		return;
	set_bit(event->event, event->element.qp == p->qa ? &p->events_a
							  : &p->events_b);
}

int wait_event_bit(const char *name, unsigned long *events,
		   enum ib_event_type event)
{
	unsigned long end = jiffies + msecs_to_jiffies(POLL_MS);

	while (!test_bit(event, events)) {
		if (time_after(jiffies, end)) {
			fail(name, "no asynchronous event %d (%s), seen 0x%lx",
			     event, ib_event_msg(event), *events);
			return -ETIMEDOUT;
		}
		msleep(5);
	}
	return 0;
}

static struct ib_qp *pair_qp(struct pair *p, struct ib_cq *cq,
			     struct ib_srq *srq)
{
	const struct pair_opts *o = &p->o;
	struct ib_qp_init_attr init = {
		.event_handler = pair_event,
		.qp_context = p,
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = o->type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = o->max_send_wr ? o->max_send_wr : 16,
			.max_recv_wr = srq ? 0 : o->max_recv_wr ? o->max_recv_wr : 16,
			.max_send_sge = o->max_send_sge ? o->max_send_sge : 1,
			.max_recv_sge = srq ? 0 : o->max_recv_sge ? o->max_recv_sge : 1,
			.max_inline_data = o->max_inline_data,
		},
	};

	return ib_create_qp(pd, &init);
}

static int pair_connect(struct pair *p)
{
	int err = connect_qp(p->qa, a.port, p->qb->qp_num, &p->o);

	return err ? err : connect_qp(p->qb, b.port, p->qa->qp_num, &p->o);
}

int pair_create(struct pair *p, const struct pair_opts *o)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 64,
					   .comp_vector = o ? o->comp_vector : 0 };
	int err;

	memset(p, 0, sizeof(*p));
	if (o)
		p->o = *o;
	if (!p->o.type)
		p->o.type = IB_QPT_RC;
	p->cqa = p->o.cq_a ? p->o.cq_a :
		 ib_create_cq(ibdev, NULL, NULL, p, &cq_attr);
	if (IS_ERR(p->cqa))
		goto cq_error;
	p->cqb = p->o.cq_b ? p->o.cq_b :
		 ib_create_cq(ibdev, NULL, NULL, p, &cq_attr);
	if (IS_ERR(p->cqb))
		goto cq_error;
	p->qa = pair_qp(p, p->cqa, NULL);
	if (IS_ERR(p->qa)) {
		err = PTR_ERR(p->qa);
		p->qa = NULL;
		goto error;
	}
	p->qb = pair_qp(p, p->cqb, p->o.srq_b);
	if (IS_ERR(p->qb)) {
		err = PTR_ERR(p->qb);
		p->qb = NULL;
		goto error;
	}
	if (p->o.no_connect)
		return 0;
	err = pair_connect(p);
	if (err)
		goto error;
	return 0;

cq_error:
	err = IS_ERR(p->cqa) ? PTR_ERR(p->cqa) : PTR_ERR(p->cqb);
	if (IS_ERR(p->cqa))
		p->cqa = NULL;
	else
		p->cqb = NULL;
error:
	fail("pair_create", "type %d: %d", p->o.type, err);
	pair_destroy(p);
	return err;
}

void pair_destroy(struct pair *p)
{
	if (p->qa)
		ib_destroy_qp(p->qa);
	if (p->qb)
		ib_destroy_qp(p->qb);
	if (p->cqa && p->cqa != p->o.cq_a)
		ib_destroy_cq(p->cqa);
	if (p->cqb && p->cqb != p->o.cq_b)
		ib_destroy_cq(p->cqb);
	p->qa = p->qb = NULL;
	p->cqa = p->cqb = NULL;
}

int pair_reset(struct pair *p)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };
	int err;

	err = ib_modify_qp(p->qa, &attr, IB_QP_STATE);
	if (!err)
		err = ib_modify_qp(p->qb, &attr, IB_QP_STATE);
	if (!err)
		err = pair_connect(p);
	if (err)
		fail("pair_reset", "QPs %u/%u: %d", p->qa->qp_num,
		     p->qb->qp_num, err);
	p->events_a = p->events_b = 0;
	return err;
}

/* ---- fast-registration regions ---- */

static int post_reg_mr(const char *name, struct ib_mr *mr, struct ib_qp *qp,
		       struct ib_cq *cq, int access)
{
	struct ib_reg_wr reg = {};
	const struct ib_send_wr *bad;
	int err;

	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_id = 0xf00d;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = access;
	err = ib_post_send(qp, &reg.wr, &bad);
	if (err) {
		fail(name, "ib_post_send(REG_MR): %d", err);
		return err;
	}
	return expect_wc(name, cq, 0xf00d, IB_WC_REG_MR, 0);
}

int frwr_rebind(const char *name, struct ib_mr *mr, struct ib_qp *qp,
		struct ib_cq *cq, int access)
{
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	return post_reg_mr(name, mr, qp, cq, access);
}

struct ib_mr *frwr_create(const char *name, struct ib_pd *mpd,
			  struct ib_qp *qp, struct ib_cq *cq, u64 dma,
			  u32 len, int access)
{
	struct scatterlist sg;
	struct ib_mr *mr;
	int n;

	mr = ib_alloc_mr(mpd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(mr)) {
		fail(name, "ib_alloc_mr: %ld", PTR_ERR(mr));
		return NULL;
	}
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = dma;
	sg_dma_len(&sg) = len;
	n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	if (n != 1) {
		fail(name, "ib_map_mr_sg: %d", n);
		ib_dereg_mr(mr);
		return NULL;
	}
	if (frwr_rebind(name, mr, qp, cq, access)) {
		ib_dereg_mr(mr);
		return NULL;
	}
	return mr;
}

static int ud_qp_modify(struct ib_qp *qp, u32 port)
{
	struct ib_qp_attr attr = {};
	int err;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = port;
	attr.qkey = UD_QKEY;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

int ud_qp_up(struct ib_qp *qp, u32 port)
{
	int err = ud_qp_modify(qp, port);

	if (err)
		fail("ud_qp_up", "UD QP %u on port %u to RTS: %d", qp->qp_num,
		     port, err);
	return err;
}

/* ---- error completions ---- */

/* RC and UC QPs: the tail is plain ib_send_wr, not ib_ud_wr. */
int post_with_tail(const char *name, struct ib_qp *qp, struct ib_send_wr *wr,
		   int tails)
{
	struct ib_sge sge = { .addr = a.dma, .length = 16,
			      .lkey = pd->local_dma_lkey };
	struct ib_send_wr tail[TAIL_MAX] = {};
	const struct ib_send_wr *bad;
	int i, err;

	for (i = 0; i < tails && i < TAIL_MAX; i++) {
		tail[i].wr_id = wr->wr_id + 1 + i;
		tail[i].opcode = IB_WR_SEND;
		tail[i].send_flags = IB_SEND_SIGNALED;
		tail[i].sg_list = &sge;
		tail[i].num_sge = 1;
		tail[i].next = i + 1 < tails ? &tail[i + 1] : NULL;
	}
	wr->next = tails ? tail : NULL;
	err = ib_post_send(qp, wr, &bad);
	wr->next = NULL;
	if (err)
		fail(name, "ib_post_send: %d", err);
	return err;
}

int expect_qp_error(const char *name, struct ib_cq *cq, struct ib_qp *qp,
		    u64 wr_id, enum ib_wc_status status, int flushed)
{
	if (expect_status(name, cq, wr_id, status) ||
	    expect_flushed(name, cq, wr_id + 1, flushed) ||
	    expect_state(name, qp, IB_QPS_ERR))
		return -EIO;
	return expect_empty(name, cq, 0);
}

int post_recvs(const char *name, struct ib_qp *qp, u64 wr_id, int n,
	       u64 addr, u32 len)
{
	int i, err;

	for (i = 0; i < n; i++) {
		err = post_recv_qp(qp, wr_id + i, addr, len);
		if (err) {
			fail(name, "ib_post_recv: %d", err);
			return err;
		}
	}
	return 0;
}
