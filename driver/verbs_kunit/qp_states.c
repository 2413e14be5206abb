// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * qp_states.c - QP states and their events (IBA 10.3.1, 11.6.3): SQD
 * with en_sqd_async_notify raises IB_EVENT_SQ_DRAINED, holds the SENDs
 * posted meanwhile and runs them on the way back to RTS; a responder
 * still in RTR that receives its first message raises IB_EVENT_COMM_EST
 * (IBA 11.6.3.1) and delivers it.
 */
#include "verbs_kunit.h"

/* A SEND of len bytes a.buf -> b.buf on p (receive posted first);
 * completes unless hold, then the caller runs it with finish_send(). */
static int start_send(const char *name, struct pair *p, u32 len)
{
	struct ib_send_wr wr = { .wr_id = 1000, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };

	fill(a.buf, len, (u8)len);
	memset(b.buf, 0, BUF_SIZE);
	sync_for_device();
	if (post_recvs(name, p->qb, 1001, 1, b.dma, BUF_SIZE))
		return -EIO;
	if (post_send_qp(p->qa, &wr, a.dma, len)) {
		fail(name, "ib_post_send");
		return -EIO;
	}
	return 0;
}

static int finish_send(const char *name, struct pair *p, u32 len)
{
	if (expect_wc(name, p->cqa, 1000, IB_WC_SEND, 0) ||
	    expect_wc(name, p->cqb, 1001, IB_WC_RECV, len))
		return -EIO;
	sync_for_cpu();
	return compare(name, b.buf, a.buf, len);
}

static void qp_sqd_drained(struct kunit *test)
{
	const char *name = test->name;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_SQD,
				   .en_sqd_async_notify = 1 };
	struct ib_qp_init_attr init;
	struct pair p;
	int err;

	if (pair_create(&p, NULL)) {
		fail(name, "QP pair");
		return;
	}
	err = ib_modify_qp(p.qa, &attr, IB_QP_STATE | IB_QP_EN_SQD_ASYNC_NOTIFY);
	if (err) {
		fail(name, "RTS -> SQD: %d", err);
		goto out;
	}
	if (wait_event_bit(name, &p.events_a, IB_EVENT_SQ_DRAINED))
		goto out;
	err = ib_query_qp(p.qa, &attr, IB_QP_STATE, &init);
	if (err || attr.qp_state != IB_QPS_SQD || attr.sq_draining) {
		fail(name, "query: %d state %d draining %d", err, attr.qp_state,
		     attr.sq_draining);
		goto out;
	}
	/* Posted in SQD: waits for RTS. */
	if (start_send(name, &p, 300) || expect_empty(name, p.cqa, 50) ||
	    expect_empty(name, p.cqb, 0))
		goto out;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	err = ib_modify_qp(p.qa, &attr, IB_QP_STATE);
	if (err) {
		fail(name, "SQD -> RTS: %d", err);
		goto out;
	}
	if (!finish_send(name, &p, 300))
		expect_state(name, p.qa, IB_QPS_RTS);
out:
	pair_destroy(&p);
}

static void event_comm_est(struct kunit *test)
{
	const char *name = test->name;
	struct pair_opts o = { .type = IB_QPT_RC, .no_connect = true };
	struct pair p;

	if (pair_create(&p, &o)) {
		fail(name, "QP pair");
		return;
	}
	p.o.rtr_only = true;
	if (connect_qp(p.qb, b.port, p.qa->qp_num, &p.o)) {
		fail(name, "qb to RTR");
		goto out;
	}
	p.o.rtr_only = false;
	if (connect_qp(p.qa, a.port, p.qb->qp_num, &p.o)) {
		fail(name, "qa to RTS");
		goto out;
	}
	if (!start_send(name, &p, 200) && !finish_send(name, &p, 200) &&
	    !wait_event_bit(name, &p.events_b, IB_EVENT_COMM_EST))
		expect_state(name, p.qb, IB_QPS_RTR);
out:
	pair_destroy(&p);
}

static struct kunit_case qp_states_cases[] = {
	KUNIT_CASE(qp_sqd_drained),
	KUNIT_CASE(event_comm_est),
	{}
};

static struct kunit_suite qp_states_suite =
	VERBS_SUITE(qp_states, qp_states_cases);
kunit_test_suite(qp_states_suite);
