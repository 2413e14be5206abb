// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ud.c - UD between the ports: an AH, SEND_WITH_IMM into a QP whose
 * receives come from an SRQ; the same to a multicast group it joined;
 * the SRQ limit event and resize; a datagram to a QPN nobody has, one with a wrong
 * Q_Key, one longer than the MTU.  Each case gets its own UD QPs, SRQ and
 * AH (struct ud, the suite's per-case init).
 */
#include "verbs_kunit.h"

static int ud_send(const char *name, struct ib_qp *src, struct ib_cq *scq,
		   struct ib_srq *srq, struct ib_cq *rcq, struct ib_ah *ah,
		   u32 remote_qpn, u64 wr_id, bool grh)
{
	struct ib_sge rsge = { .addr = b.dma, .length = BUF_SIZE,
			       .lkey = pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .wr_id = wr_id + 1, .sg_list = &rsge,
				  .num_sge = 1 };
	const struct ib_recv_wr *rbad;
	struct ib_ud_wr uw = {};
	struct ib_wc wc;
	int err;

	fill(a.buf, 256, (u8)wr_id);
	memset(b.buf, 0, BUF_SIZE);
	sync_for_device();
	err = ib_post_srq_recv(srq, &rwr, &rbad);
	if (err) {
		fail(name, "ib_post_srq_recv: %d", err);
		return err;
	}
	uw.wr.opcode = IB_WR_SEND_WITH_IMM;
	uw.wr.wr_id = wr_id;
	uw.wr.send_flags = IB_SEND_SIGNALED;
	uw.wr.ex.imm_data = cpu_to_be32(0xcafe0000 | (u32)wr_id);
	uw.ah = ah;
	uw.remote_qpn = remote_qpn;
	uw.remote_qkey = UD_QKEY;
	err = post_send_qp(src, &uw.wr, a.dma, 256);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		return err;
	}
	if (expect_wc(name, scq, wr_id, IB_WC_SEND, 0))
		return -EIO;
	err = poll_one(rcq, &wc);
	if (err || wc.status != IB_WC_SUCCESS || wc.wr_id != wr_id + 1 ||
	    wc.opcode != IB_WC_RECV || wc.byte_len != 256 + GRH_LEN ||
	    wc.src_qp != src->qp_num || wc.slid != a.lid ||
	    !(wc.wc_flags & IB_WC_WITH_IMM) ||
	    wc.ex.imm_data != cpu_to_be32(0xcafe0000 | (u32)wr_id) ||
	    !!(wc.wc_flags & IB_WC_GRH) != grh) {
		fail(name, "recv wc: err %d status %d wr_id %llu opcode %d len %u src_qp %u slid %u flags 0x%x",
		     err, wc.status, wc.wr_id, wc.opcode, wc.byte_len,
		     wc.src_qp, wc.slid, wc.wc_flags);
		return -EIO;
	}
	sync_for_cpu();
	return compare(name, b.buf + GRH_LEN, a.buf, 256);
}

/* A signaled UD SEND of 64 bytes of a.buf that completes with success. */
static int ud_send_only(const char *name, struct ib_qp *src,
			struct ib_cq *scq, struct ib_ah *ah, u32 remote_qpn,
			u32 qkey, u64 wr_id)
{
	struct ib_ud_wr uw = {};
	int err;

	uw.wr.opcode = IB_WR_SEND;
	uw.wr.wr_id = wr_id;
	uw.wr.send_flags = IB_SEND_SIGNALED;
	uw.ah = ah;
	uw.remote_qpn = remote_qpn;
	uw.remote_qkey = qkey;
	err = post_send_qp(src, &uw.wr, a.dma, 64);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		return err;
	}
	return expect_wc(name, scq, wr_id, IB_WC_SEND, 0);
}

/*
 * A UD SEND longer than the path MTU (4096 + 1 bytes, two SGEs):
 * IB_WC_LOC_LEN_ERR, the next SEND flushed and the QP in SQE, not ERR
 * (IBA 10.3.1: a UD send error); SQE -> RTS recovers it.
 */
static int ud_too_long(const char *name, struct ib_qp *src, struct ib_cq *scq,
		       struct ib_ah *ah, u32 remote_qpn)
{
	struct ib_sge sge[2] = {
		{ .addr = a.dma, .length = BUF_SIZE, .lkey = pd->local_dma_lkey },
		{ .addr = a.dma2, .length = 4097 - BUF_SIZE,
		  .lkey = pd->local_dma_lkey },
	};
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTS,
				   .cur_qp_state = IB_QPS_SQE };
	struct ib_ud_wr uw[2] = {};
	const struct ib_send_wr *bad;
	int i, err;

	for (i = 0; i < 2; i++) {
		uw[i].wr.opcode = IB_WR_SEND;
		uw[i].wr.wr_id = 130 + i;
		uw[i].wr.send_flags = IB_SEND_SIGNALED;
		uw[i].wr.sg_list = sge;
		uw[i].wr.num_sge = 2 - i;	/* the second: 4096 bytes */
		uw[i].ah = ah;
		uw[i].remote_qpn = remote_qpn;
		uw[i].remote_qkey = UD_QKEY;
	}
	uw[0].wr.next = &uw[1].wr;
	err = ib_post_send(src, &uw[0].wr, &bad);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		return err;
	}
	if (expect_status(name, scq, 130, IB_WC_LOC_LEN_ERR) ||
	    expect_flushed(name, scq, 131, 1) ||
	    expect_state(name, src, IB_QPS_SQE))
		return -EIO;
	err = ib_modify_qp(src, &attr, IB_QP_STATE | IB_QP_CUR_STATE);
	if (err) {
		fail(name, "SQE -> RTS: %d", err);
		return err;
	}
	return ud_send_only(name, src, scq, ah, 0xfffff0, UD_QKEY, 132);
}

static struct completion srq_limit_event;

static void srq_event(struct ib_event *event, void *ctx)
{
	if (event->event == IB_EVENT_SRQ_LIMIT_REACHED)
		complete(&srq_limit_event);
}

/* qa (port 1, CQ cq) sends through ah to qb (port 2, CQ cq2, receives
 * from srq). */
struct ud {
	struct ib_cq *cq, *cq2;
	struct ib_srq *srq;
	struct ib_qp *qa, *qb;
	struct ib_ah *ah;
};

static void ud_destroy(struct ud *u)
{
	if (u->ah)
		rdma_destroy_ah(u->ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (u->qa)
		ib_destroy_qp(u->qa);
	if (u->qb)
		ib_destroy_qp(u->qb);
	if (u->srq)
		ib_destroy_srq(u->srq);
	if (u->cq)
		ib_destroy_cq(u->cq);
	if (u->cq2)
		ib_destroy_cq(u->cq2);
}

static int ud_create_queues(struct ud *u)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 16 };
	struct ib_srq_init_attr srq_init = {
		.srq_type = IB_SRQT_BASIC,
		.event_handler = srq_event,
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 2, .max_recv_sge = 1 },
	};
	void *obj;

	obj = u->cq = ib_create_cq(ibdev, NULL, NULL, NULL, &cq_attr);
	if (IS_ERR(obj))
		goto error;
	obj = u->cq2 = ib_create_cq(ibdev, NULL, NULL, NULL, &cq_attr);
	if (IS_ERR(obj))
		goto error;
	obj = u->srq = ib_create_srq(pd, &srq_init);
	if (IS_ERR(obj))
		goto error;
	init.send_cq = init.recv_cq = u->cq;
	obj = u->qa = ib_create_qp(pd, &init);
	if (IS_ERR(obj))
		goto error;
	init.srq = u->srq;
	init.send_cq = init.recv_cq = u->cq2;
	init.cap.max_recv_wr = 0;
	init.cap.max_recv_sge = 0;
	obj = u->qb = ib_create_qp(pd, &init);
	if (IS_ERR(obj))
		goto error;
	return 0;
error:
	/* The failed one is an ERR_PTR: ud_destroy() must skip it. */
	if (obj == u->cq)
		u->cq = NULL;
	else if (obj == u->cq2)
		u->cq2 = NULL;
	else if (obj == u->srq)
		u->srq = NULL;
	else if (obj == u->qa)
		u->qa = NULL;
	else
		u->qb = NULL;
	fail("ud", "creating the CQs, SRQ and UD QPs: %ld", PTR_ERR(obj));
	return PTR_ERR(obj);
}

/* The AH from port 1 to port 2's LID, no GRH. */
static int ud_create_ah(struct ud *u)
{
	struct rdma_ah_attr ah_attr = {};

	ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&ah_attr, b.lid);
	rdma_ah_set_port_num(&ah_attr, a.port);
	u->ah = rdma_create_ah(pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(u->ah)) {
		fail("ud", "rdma_create_ah: %ld", PTR_ERR(u->ah));
		u->ah = NULL;
		return -EIO;
	}
	return 0;
}

static int ud_init(struct kunit *test)
{
	struct ud *u;

	verbs_test_init(test);
	u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	if (!u)
		return -ENOMEM;
	test->priv = u;
	if (ud_create_queues(u) || ud_qp_up(u->qa, a.port) ||
	    ud_qp_up(u->qb, b.port) || ud_create_ah(u))
		return -EIO;
	return 0;
}

static void ud_exit(struct kunit *test)
{
	if (test->priv)
		ud_destroy(test->priv);
	verbs_test_exit(test);
}

static void ud_srq_ah(struct kunit *test)
{
	const char *name = test->name;
	struct rdma_ah_attr ah_attr = {};
	struct ud *u = test->priv;
	int err;

	err = rdma_query_ah(u->ah, &ah_attr);
	if (err || rdma_ah_get_dlid(&ah_attr) != b.lid ||
	    rdma_ah_get_port_num(&ah_attr) != a.port ||
	    (rdma_ah_get_ah_flags(&ah_attr) & IB_AH_GRH)) {
		fail(name, "rdma_query_ah: %d dlid %u port %u flags 0x%x", err,
		     rdma_ah_get_dlid(&ah_attr), rdma_ah_get_port_num(&ah_attr),
		     rdma_ah_get_ah_flags(&ah_attr));
		return;
	}
	ud_send(name, u->qa, u->cq, u->srq, u->cq2, u->ah, u->qb->qp_num, 100,
		false);
}

static void ud_multicast(struct kunit *test)
{
	union ib_gid mgid = { .raw = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
				       0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef } };
	const char *name = test->name;
	struct rdma_ah_attr ah_attr = {};
	struct ud *u = test->priv;
	const u16 mlid = 0xc077;
	struct ib_ah *mah;
	int err;

	err = ib_attach_mcast(u->qb, &mgid, mlid);
	if (err) {
		fail(name, "ib_attach_mcast: %d", err);
		return;
	}
	ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&ah_attr, mlid);
	rdma_ah_set_port_num(&ah_attr, a.port);
	rdma_ah_set_grh(&ah_attr, &mgid, 0, 0, 1, 0);
	mah = rdma_create_ah(pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(mah)) {
		fail(name, "rdma_create_ah(mcast): %ld", PTR_ERR(mah));
	} else {
		ud_send(name, u->qa, u->cq, u->srq, u->cq2, mah, 0xffffff, 110,
			true);
		rdma_destroy_ah(mah, RDMA_DESTROY_AH_SLEEPABLE);
	}
	err = ib_detach_mcast(u->qb, &mgid, mlid);
	if (err)
		fail(name, "ib_detach_mcast: %d", err);
}

/* Eight receives of 64 bytes of b.buf2 on the SRQ. */
static int post_srq_recvs(const char *name, struct ib_srq *srq)
{
	struct ib_sge sge = { .addr = b.dma2, .length = 64,
			      .lkey = pd->local_dma_lkey };
	struct ib_recv_wr rwr[8] = {};
	const struct ib_recv_wr *rbad;
	int i, err;

	for (i = 0; i < 8; i++) {
		rwr[i].wr_id = 200 + i;
		rwr[i].sg_list = &sge;
		rwr[i].num_sge = 1;
		rwr[i].next = i < 7 ? &rwr[i + 1] : NULL;
	}
	err = ib_post_srq_recv(srq, rwr, &rbad);
	if (err)
		fail(name, "ib_post_srq_recv x8: %d", err);
	return err;
}

/* The SRQ is empty: arming a limit fires LIMIT_REACHED at once and
 * disarms it (IBA 11.2.3.2); with 8 WQEs posted it stays armed. */
static void srq_limit(struct kunit *test)
{
	const char *name = test->name;
	struct ib_srq_attr sattr = { .srq_limit = 4 };
	struct ud *u = test->priv;
	int err;

	init_completion(&srq_limit_event);
	err = ib_modify_srq(u->srq, &sattr, IB_SRQ_LIMIT);
	if (err) {
		fail(name, "ib_modify_srq: %d", err);
		return;
	}
	if (!wait_for_completion_timeout(&srq_limit_event,
					 msecs_to_jiffies(POLL_MS))) {
		fail(name, "no IB_EVENT_SRQ_LIMIT_REACHED");
		return;
	}
	memset(&sattr, 0, sizeof(sattr));
	err = ib_query_srq(u->srq, &sattr);
	if (err || sattr.srq_limit != 0 || sattr.max_wr < 16) {
		fail(name, "after the event: err %d limit %u max_wr %u", err,
		     sattr.srq_limit, sattr.max_wr);
		return;
	}
	if (post_srq_recvs(name, u->srq))
		return;
	sattr.srq_limit = 4;
	err = ib_modify_srq(u->srq, &sattr, IB_SRQ_LIMIT);
	memset(&sattr, 0, sizeof(sattr));
	if (!err)
		err = ib_query_srq(u->srq, &sattr);
	if (err || sattr.srq_limit != 4)
		fail(name, "armed: err %d limit %u", err, sattr.srq_limit);
}

/* Receives first..last-1 (wr_id = index) on srq, each room for the GRH
 * and 64 bytes in b.buf2. */
static int post_srq_range(const char *name, struct ib_srq *srq, u64 first,
			  u64 last)
{
	struct ib_sge sge = { .addr = b.dma2, .length = 64 + GRH_LEN,
			      .lkey = pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *rbad;
	int err;

	for (rwr.wr_id = first; rwr.wr_id < last; rwr.wr_id++) {
		err = ib_post_srq_recv(srq, &rwr, &rbad);
		if (err) {
			fail(name, "ib_post_srq_recv %llu: %d", rwr.wr_id, err);
			return err;
		}
	}
	return 0;
}

/* SENDs that take receives first..last-1 of the SRQ, in that order. */
static int srq_consume(const char *name, struct ud *u, u64 first, u64 last)
{
	struct ib_wc wc;
	u64 i;
	int err;

	for (i = first; i < last; i++) {
		if (ud_send_only(name, u->qa, u->cq, u->ah, u->qb->qp_num,
				 UD_QKEY, 500 + i))
			return -EIO;
		err = poll_one(u->cq2, &wc);
		if (err || wc.status != IB_WC_SUCCESS || wc.wr_id != i ||
		    wc.byte_len != 64 + GRH_LEN) {
			fail(name, "receive %llu: err %d status %d wr_id %llu len %u",
			     i, err, wc.status, wc.wr_id, wc.byte_len);
			return -EIO;
		}
	}
	return 0;
}

/*
 * ib_modify_srq(IB_SRQ_MAX_WR) of an SRQ in use (IBA 11.2.3.3): 10 posted
 * into 16, 2 consumed; a shrink below the 8 waiting is -EINVAL; grown to
 * 64, 20 more posted (28 waiting: more than the old ring held); every
 * receive is then consumed once, in posting order.
 */
static void srq_resize(struct kunit *test)
{
	const char *name = test->name;
	struct ib_srq_attr sattr = { .max_wr = 4 };
	struct ud *u = test->priv;
	int err;

	if (post_srq_range(name, u->srq, 0, 10) || srq_consume(name, u, 0, 2))
		return;
	err = ib_modify_srq(u->srq, &sattr, IB_SRQ_MAX_WR);
	if (err != -EINVAL) {
		fail(name, "shrink below the 8 waiting: %d, expected -EINVAL", err);
		return;
	}
	sattr.max_wr = 64;
	err = ib_modify_srq(u->srq, &sattr, IB_SRQ_MAX_WR);
	memset(&sattr, 0, sizeof(sattr));
	if (!err)
		err = ib_query_srq(u->srq, &sattr);
	if (err || sattr.max_wr < 64) {
		fail(name, "resize to 64: err %d max_wr %u", err, sattr.max_wr);
		return;
	}
	if (!post_srq_range(name, u->srq, 10, 30) &&
	    !srq_consume(name, u, 2, 30))
		expect_empty(name, u->cq2, 0);
}

/* A datagram to a QPN that does not exist: the sender completes with
 * success (IBA 9.6.2: UD is unreliable), nothing arrives. */
static void ud_missing_qpn(struct kunit *test)
{
	struct ud *u = test->priv;

	if (!ud_send_only(test->name, u->qa, u->cq, u->ah, 0xfffff0, UD_QKEY, 120) &&
	    !expect_empty(test->name, u->cq, 0))
		expect_empty(test->name, u->cq2, 200);
}

/* A Q_Key that is not the receiver's: dropped (IBA 10.2.5). */
static void ud_qkey_mismatch(struct kunit *test)
{
	struct ud *u = test->priv;

	if (!post_srq_recvs(test->name, u->srq) &&
	    !ud_send_only(test->name, u->qa, u->cq, u->ah, u->qb->qp_num,
			  UD_QKEY + 1, 121) &&
	    !expect_empty(test->name, u->cq, 0))
		expect_empty(test->name, u->cq2, 200);
}

static void err_ud_too_long(struct kunit *test)
{
	struct ud *u = test->priv;

	ud_too_long(test->name, u->qa, u->cq, u->ah, u->qb->qp_num);
}

static struct kunit_case ud_cases[] = {
	KUNIT_CASE(ud_srq_ah),
	KUNIT_CASE(ud_multicast),
	KUNIT_CASE(srq_limit),
	KUNIT_CASE(srq_resize),
	KUNIT_CASE(ud_missing_qpn),
	KUNIT_CASE(ud_qkey_mismatch),
	KUNIT_CASE(err_ud_too_long),
	{}
};

static struct kunit_suite ud_suite = {
	.name = "vhca_verbs_ud",
	.suite_init = verbs_suite_init,
	.suite_exit = verbs_suite_exit,
	.init = ud_init,
	.exit = ud_exit,
	.test_cases = ud_cases,
};
kunit_test_suite(ud_suite);
