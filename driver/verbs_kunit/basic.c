// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * basic.c - RC QPs: a pair created (RESET) and connected (RTS); on the
 * fixture's main RC pair: QUERY_QP, SEND/RECV with a completion event, a
 * batch of SENDs in one post call, SEND_WITH_IMM with a solicited event.
 */
#include "verbs_kunit.h"

/* An RC QP on port 1 and one on port 2, each with its CQ: both RESET. */
static void create_cq_qp(struct kunit *test)
{
	struct pair_opts o = { .type = IB_QPT_RC, .no_connect = true };
	struct pair p;

	if (pair_create(&p, &o))
		return;
	KUNIT_EXPECT_NE(test, p.qa->qp_num, p.qb->qp_num);
	KUNIT_EXPECT_PTR_NE(test, p.cqa, p.cqb);
	if (!expect_state(test->name, p.qa, IB_QPS_RESET))
		expect_state(test->name, p.qb, IB_QPS_RESET);
	pair_destroy(&p);
}

/* RESET -> INIT -> RTR -> RTS of both QPs towards each other. */
static void connect(struct kunit *test)
{
	struct pair p;

	if (pair_create(&p, NULL))
		return;
	if (!expect_state(test->name, p.qa, IB_QPS_RTS))
		expect_state(test->name, p.qb, IB_QPS_RTS);
	pair_destroy(&p);
}

/* QUERY_QP of the main RC QP: what connect_qp() (util.c) set. */
static void query_qp(struct kunit *test)
{
	const char *name = test->name;
	struct ib_qp_attr attr;
	struct ib_qp_init_attr init;
	int err;

	err = ib_query_qp(a.qp, &attr, IB_QP_STATE | IB_QP_DEST_QPN, &init);
	if (err) {
		fail(name, "ib_query_qp: %d", err);
		return;
	}
	if (attr.qp_state != IB_QPS_RTS || attr.dest_qp_num != b.qp->qp_num ||
	    attr.path_mtu != min(a.mtu, b.mtu) || attr.port_num != a.port ||
	    attr.sq_psn != 0x1000 + a.port || attr.rq_psn != 0x1000 + b.port ||
	    /* QP access flags are remote rights (IBA 11.2.4.2): the local
	     * write of connect_qp() is not kept. */
	    (attr.qp_access_flags & ~IB_ACCESS_LOCAL_WRITE) !=
		(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
		 IB_ACCESS_REMOTE_ATOMIC) ||
	    attr.timeout != 14 || attr.retry_cnt != 7 || attr.rnr_retry != 7 ||
	    attr.min_rnr_timer != 12 || attr.max_rd_atomic != 1 ||
	    attr.max_dest_rd_atomic != 1 ||
	    rdma_ah_get_dlid(&attr.ah_attr) != b.lid ||
	    rdma_ah_get_port_num(&attr.ah_attr) != a.port) {
		fail(name, "state %d dest_qp %u mtu %d port %u psn %u/%u access 0x%x timeout %u retry %u rnr %u/%u rd_atomic %u/%u dlid %u",
		     attr.qp_state, attr.dest_qp_num, attr.path_mtu,
		     attr.port_num, attr.sq_psn, attr.rq_psn,
		     attr.qp_access_flags, attr.timeout, attr.retry_cnt,
		     attr.rnr_retry, attr.min_rnr_timer, attr.max_rd_atomic,
		     attr.max_dest_rd_atomic, rdma_ah_get_dlid(&attr.ah_attr));
		return;
	}
	if (init.qp_type != IB_QPT_RC || init.send_cq != a.cq ||
	    init.cap.max_send_wr < 16 || init.cap.max_recv_wr < 16 ||
	    init.sq_sig_type != IB_SIGNAL_REQ_WR) {
		fail(name, "init attributes: type %d wr %u/%u sig %d",
		     init.qp_type, init.cap.max_send_wr, init.cap.max_recv_wr,
		     init.sq_sig_type);
	}
}

/* A SEND a -> b with the receive CQ armed (flags); the CQ must raise a
 * completion event.  opcode SEND or SEND_WITH_IMM. */
static int send_with_event(const char *name, enum ib_wr_opcode opcode,
			   int send_flags, enum ib_cq_notify_flags arm)
{
	struct ib_send_wr wr = { .wr_id = 11, .opcode = opcode,
				 .send_flags = IB_SEND_SIGNALED | send_flags };
	bool imm = opcode == IB_WR_SEND_WITH_IMM;
	struct ib_wc wc;
	int err;

	fill(a.buf, MSG_LEN, imm ? 0x44 : 0x31);
	memset(b.buf, 0, BUF_SIZE);
	sync_for_device();
	err = post_recv(&b, 21, b.dma, BUF_SIZE);
	if (err) {
		fail(name, "ib_post_recv: %d", err);
		return err;
	}
	reinit_completion(&cq_event);
	atomic_set(&cq_events, 0);
	err = ib_req_notify_cq(b.cq, arm);
	if (err < 0) {
		fail(name, "ib_req_notify_cq: %d", err);
		return err;
	}
	wr.ex.imm_data = cpu_to_be32(0xa1b2c3d4);
	err = post_send(&a, &wr, a.dma, MSG_LEN);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		return err;
	}
	if (expect_wc(name, a.cq, 11, IB_WC_SEND, 0))
		return -EIO;
	if (!wait_for_completion_timeout(&cq_event, msecs_to_jiffies(POLL_MS))) {
		fail(name, "no completion event on the armed receive CQ");
		return -EIO;
	}
	err = poll_one(b.cq, &wc);
	if (err || wc.status != IB_WC_SUCCESS || wc.wr_id != 21 ||
	    wc.opcode != IB_WC_RECV || wc.byte_len != MSG_LEN ||
	    !!(wc.wc_flags & IB_WC_WITH_IMM) != imm ||
	    (imm && wc.ex.imm_data != cpu_to_be32(0xa1b2c3d4)) ||
	    wc.src_qp != a.qp->qp_num || wc.slid != a.lid) {
		fail(name, "recv wc: err %d status %d wr_id %llu opcode %d len %u flags 0x%x imm 0x%x src_qp %u slid %u",
		     err, wc.status, wc.wr_id, wc.opcode, wc.byte_len,
		     wc.wc_flags, be32_to_cpu(wc.ex.imm_data), wc.src_qp,
		     wc.slid);
		return -EIO;
	}
	sync_for_cpu();
	return compare(name, b.buf, a.buf, MSG_LEN);
}

/* Several SENDs in one post call (one doorbell), unsignaled but the last,
 * b -> a. */
static void send_batch(struct kunit *test)
{
	const char *name = test->name;
	struct ib_sge sge[4];
	struct ib_send_wr wr[4] = {};
	const struct ib_send_wr *bad;
	int i, err;

	fill(b.buf, BUF_SIZE, 0x52);
	memset(a.buf, 0, BUF_SIZE);
	sync_for_device();
	for (i = 0; i < 4; i++) {
		err = post_recv(&a, 40 + i, a.dma + i * 1024, 1024);
		if (err) {
			fail(name, "ib_post_recv %d: %d", i, err);
			return;
		}
	}
	for (i = 0; i < 4; i++) {
		sge[i].addr = b.dma + i * 1024;
		sge[i].length = 1024 - i;
		sge[i].lkey = pd->local_dma_lkey;
		wr[i].wr_id = 30 + i;
		wr[i].opcode = IB_WR_SEND;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i < 3 ? &wr[i + 1] : NULL;
	}
	wr[3].send_flags = IB_SEND_SIGNALED;
	err = ib_post_send(b.qp, wr, &bad);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		return;
	}
	if (expect_wc(name, b.cq, 33, IB_WC_SEND, 0))
		return;
	for (i = 0; i < 4; i++)
		if (expect_wc(name, a.cq, 40 + i, IB_WC_RECV, 1024 - i))
			return;
	sync_for_cpu();
	for (i = 0; i < 4; i++)
		if (compare(name, a.buf + i * 1024, b.buf + i * 1024, 1024 - i))
			return;
}

static void send_recv(struct kunit *test)
{
	send_with_event(test->name, IB_WR_SEND, 0, IB_CQ_NEXT_COMP);
}

/* Solicited: an ARM_SOLICITED CQ wakes for it (IBA 11.4.2.2). */
static void send_imm_solicited(struct kunit *test)
{
	send_with_event(test->name, IB_WR_SEND_WITH_IMM, IB_SEND_SOLICITED,
			IB_CQ_SOLICITED);
}

static struct kunit_case basic_cases[] = {
	KUNIT_CASE(create_cq_qp),
	KUNIT_CASE(connect),
	KUNIT_CASE(query_qp),
	KUNIT_CASE(send_recv),
	KUNIT_CASE(send_batch),
	KUNIT_CASE(send_imm_solicited),
	{}
};

static struct kunit_suite basic_suite = VERBS_SUITE(basic, basic_cases);
kunit_test_suite(basic_suite);
