// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * drain.c - ib_drain_qp on an RC QP with outstanding work: SENDs waiting
 * for an RNR retry (the peer has no receive, rnr_retry 7 = for ever, a
 * 491 ms RNR timer) and posted receives.  ib_drain_qp moves the QP to
 * ERR, posts its own send and receive WRs and waits for them; every
 * outstanding WR must have completed with IB_WC_WR_FLUSH_ERR before it
 * returns.  The CQ is polled by ib_core (IB_POLL_DIRECT), so every WR
 * carries a struct ib_cqe.
 */
#include "verbs_kunit.h"

#define OUTSTANDING 3

struct drain_count {
	struct ib_cqe cqe;
	int flushed, other;
};

static void drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct drain_count *c = container_of(wc->wr_cqe, struct drain_count, cqe);

	if (wc->status == IB_WC_WR_FLUSH_ERR)
		c->flushed++;
	else
		c->other++;
}

static void drain_qp(struct kunit *test)
{
	const char *name = test->name;
	struct pair_opts o = { .type = IB_QPT_RC, .min_rnr_timer = 31 };
	struct drain_count sends = { .cqe.done = drain_done };
	struct drain_count recvs = { .cqe.done = drain_done };
	struct ib_sge sge = { .addr = a.dma, .length = 64,
			      .lkey = pd->local_dma_lkey };
	struct ib_send_wr wr = { .opcode = IB_WR_SEND, .wr_cqe = &sends.cqe,
				 .send_flags = IB_SEND_SIGNALED,
				 .sg_list = &sge, .num_sge = 1 };
	struct ib_recv_wr rwr = { .wr_cqe = &recvs.cqe, .sg_list = &sge,
				  .num_sge = 1 };
	const struct ib_send_wr *bad;
	const struct ib_recv_wr *rbad;
	struct ib_cq *cq;
	struct pair p;
	int i, err = 0;

	cq = ib_alloc_cq(ibdev, NULL, 32, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq)) {
		fail(name, "ib_alloc_cq: %ld", PTR_ERR(cq));
		return;
	}
	o.cq_a = cq;
	if (pair_create(&p, &o)) {
		fail(name, "QP pair");
		goto out;
	}
	for (i = 0; i < OUTSTANDING && !err; i++)
		err = ib_post_recv(p.qa, &rwr, &rbad);
	for (i = 0; i < OUTSTANDING && !err; i++)
		err = ib_post_send(p.qa, &wr, &bad);
	if (err) {
		fail(name, "post: %d", err);
		goto destroy;
	}
	/* The first SEND waits for an RNR retry: nothing completed yet. */
	if (ib_process_cq_direct(cq, -1) != 0 || sends.flushed || sends.other) {
		fail(name, "completions before the drain");
		goto destroy;
	}
	ib_drain_qp(p.qa);
	if (sends.flushed != OUTSTANDING || recvs.flushed != OUTSTANDING ||
	    sends.other || recvs.other) {
		fail(name, "after the drain: sends %d flushed %d other, receives %d flushed %d other",
		     sends.flushed, sends.other, recvs.flushed, recvs.other);
		goto destroy;
	}
	if (!expect_state(name, p.qa, IB_QPS_ERR))
		KUNIT_EXPECT_EQ_MSG(test, ib_process_cq_direct(cq, -1), 0,
				    "completions after the drain");
destroy:
	pair_destroy(&p);
out:
	ib_free_cq(cq);
}

static struct kunit_case drain_cases[] = {
	KUNIT_CASE(drain_qp),
	{}
};

static struct kunit_suite drain_suite = VERBS_SUITE(drain, drain_cases);
kunit_test_suite(drain_suite);
