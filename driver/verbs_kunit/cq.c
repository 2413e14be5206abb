// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * cq.c - completion queues: ib_resize_cq (grow and shrink, also while a
 * QP uses the CQ with completions pending: they move to the new ring in
 * order; a size below what waits is -EINVAL and loses nothing; skipped
 * where ib_core resizes only user CQs, see below), a CQ on completion
 * vector 1, and
 * IB_CQ_REPORT_MISSED_EVENTS (Guide 8.3: arming returns > 0 while a
 * completion waits).
 */
#include "verbs_kunit.h"
#include "vhca_compat.h"

static void cq_handler(struct ib_cq *cq, void *ctx)
{
	complete(ctx);
}

#ifdef VHCA_HAVE_RESIZE_USER_CQ
/*
 * From 7.3 (driver/compat/resize_user_cq.c) only uverbs resizes a CQ
 * (ib_device_ops.resize_user_cq, always with udata): ib_resize_cq is gone
 * and a kernel client sizes its CQ when it creates it (or takes one from
 * ib_cq_pool_get), so there is no kernel case: the driver's resize is
 * reached only through libibverbs, test_resize_cq_keeps_completions of
 * selftests/verbs/uverbs.py (make check-uverbs).
 */
#else
/* n signaled 64-byte RDMA WRITEs from p->qa to b.buf2 through mr, posted
 * without polling, then polled: all on the CQ at once. */
static int writes(const char *name, struct pair *p, struct ib_mr *mr, int n,
		  bool poll)
{
	struct ib_rdma_wr rw = {};
	int i, err;

	for (i = 0; i < n; i++) {
		rw.wr.opcode = IB_WR_RDMA_WRITE;
		rw.wr.wr_id = 500 + i;
		rw.wr.send_flags = IB_SEND_SIGNALED;
		rw.remote_addr = mr->iova + 64 * i;
		rw.rkey = mr->rkey;
		err = post_send_qp(p->qa, &rw.wr, a.dma + 64 * i, 64);
		if (err) {
			fail(name, "ib_post_send %d: %d", i, err);
			return err;
		}
	}
	for (i = 0; poll && i < n; i++)
		if (expect_wc(name, p->cqa, 500 + i, IB_WC_RDMA_WRITE, 0))
			return -EIO;
	return 0;
}

/* A pair whose qa uses cq, with a region over b.buf2 for writes. */
static int resize_pair(const char *name, struct pair *p, struct ib_cq *cq,
		       struct ib_mr **mr)
{
	struct pair_opts o = { .type = IB_QPT_RC, .max_send_wr = 64,
			       .cq_a = cq };

	if (pair_create(p, &o)) {
		fail(name, "QP pair");
		return -EIO;
	}
	*mr = frwr_create(name, pd, p->qb, p->cqb, b.dma2, BUF_SIZE,
			  IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	if (!*mr) {
		pair_destroy(p);
		return -EIO;
	}
	return 0;
}

static void resize_cq(struct kunit *test)
{
	const char *name = test->name;
	struct ib_cq_init_attr cq_attr = { .cqe = 8 };
	struct ib_mr *mr;
	struct ib_cq *cq;
	struct pair p;
	int small, err;

	cq = ib_create_cq(ibdev, NULL, NULL, NULL, &cq_attr);
	if (IS_ERR(cq)) {
		fail(name, "ib_create_cq: %ld", PTR_ERR(cq));
		return;
	}
	small = cq->cqe;
	err = ib_resize_cq(cq, 100);
	if (err || cq->cqe < 100) {
		fail(name, "grow from %d: %d, cqe %d", small, err, cq->cqe);
		goto out;
	}
	fill(a.buf, BUF_SIZE, 0x21);
	sync_for_device();
	if (resize_pair(name, &p, cq, &mr))
		goto out;
	/* 40 completions > the old ring: the grown one holds them. */
	err = writes(name, &p, mr, 40, false);
	if (!err) {
		/* In use, 40 completions pending: smaller is refused... */
		err = ib_resize_cq(cq, 20);
		if (err != -EINVAL) {
			fail(name, "resize below the 40 pending: %d, expected -EINVAL",
			     err);
			err = -EIO;
		} else {
			/* ... larger moves them, in order, to the new ring. */
			err = ib_resize_cq(cq, 200);
			if (err || cq->cqe < 200) {
				fail(name, "resize of a CQ in use: %d, cqe %d",
				     err, cq->cqe);
				err = -EIO;
			}
		}
	}
	if (!err) {
		int i;

		for (i = 0; i < 40 && !err; i++)
			err = expect_wc(name, cq, 500 + i, IB_WC_RDMA_WRITE, 0);
	}
	ib_dereg_mr(mr);
	pair_destroy(&p);
	if (err)
		goto out;
	sync_for_cpu();
	if (compare(name, b.buf2, a.buf, 40 * 64))
		goto out;

	err = ib_resize_cq(cq, 20);
	if (err || cq->cqe < 20 || cq->cqe >= 100) {
		fail(name, "shrink: %d, cqe %d", err, cq->cqe);
		goto out;
	}
	if (resize_pair(name, &p, cq, &mr))
		goto out;
	writes(name, &p, mr, 20, true);
	ib_dereg_mr(mr);
	pair_destroy(&p);
out:
	ib_destroy_cq(cq);
}
#endif

/* A SEND a -> b of the pair; b's receive CQ (the caller's) sees it. */
static int one_send(const char *name, struct pair *p)
{
	struct ib_send_wr wr = { .wr_id = 600, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };

	if (post_recvs(name, p->qb, 601, 1, b.dma, BUF_SIZE))
		return -EIO;
	if (post_send_qp(p->qa, &wr, a.dma, 64)) {
		fail(name, "ib_post_send");
		return -EIO;
	}
	return expect_wc(name, p->cqa, 600, IB_WC_SEND, 0);
}

/* A CQ with its handler on vector `vector`, for qb of a new pair. */
static struct ib_cq *event_cq(const char *name, int vector,
			      struct completion *event, struct pair *p)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 16, .comp_vector = vector };
	struct pair_opts o = { .type = IB_QPT_RC };
	struct ib_cq *cq;

	cq = ib_create_cq(ibdev, cq_handler, NULL, event, &cq_attr);
	if (IS_ERR(cq)) {
		fail(name, "ib_create_cq(vector %d): %ld", vector, PTR_ERR(cq));
		return NULL;
	}
	o.cq_b = cq;
	if (pair_create(p, &o)) {
		fail(name, "QP pair");
		ib_destroy_cq(cq);
		return NULL;
	}
	return cq;
}

static void cq_comp_vector(struct kunit *test)
{
	const char *name = test->name;
	struct ib_cq_init_attr bad_attr = { .cqe = 16,
					    .comp_vector = ibdev->num_comp_vectors };
	struct completion event;
	struct ib_cq *cq;
	struct pair p;
	int err;

	if (ibdev->num_comp_vectors < 2) {
		fail(name, "num_comp_vectors %d", ibdev->num_comp_vectors);
		return;
	}
	cq = ib_create_cq(ibdev, NULL, NULL, NULL, &bad_attr);
	if (!IS_ERR(cq)) {
		fail(name, "CQ on vector %d (of %d) created",
		     bad_attr.comp_vector, ibdev->num_comp_vectors);
		ib_destroy_cq(cq);
		return;
	}
	init_completion(&event);
	cq = event_cq(name, 1, &event, &p);
	if (!cq)
		return;
	err = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	if (err)
		fail(name, "ib_req_notify_cq: %d", err);
	else if (one_send(name, &p))
		;
	else if (!wait_for_completion_timeout(&event, msecs_to_jiffies(POLL_MS)))
		fail(name, "no completion event on vector 1");
	else
		expect_wc(name, cq, 601, IB_WC_RECV, 64);
	pair_destroy(&p);
	ib_destroy_cq(cq);
}

static void cq_report_missed(struct kunit *test)
{
	const char *name = test->name;
	const int arm = IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS;
	struct completion event;
	struct ib_cq *cq;
	struct pair p;
	struct ib_wc wc;
	int ret;

	init_completion(&event);
	cq = event_cq(name, 0, &event, &p);
	if (!cq)
		return;
	if (one_send(name, &p))
		goto out;
	/* A completion arrived before the arm: reported. */
	ret = ib_req_notify_cq(cq, arm);
	if (ret <= 0) {
		fail(name, "arm with a completion waiting: %d, expected > 0", ret);
		goto out;
	}
	if (expect_wc(name, cq, 601, IB_WC_RECV, 64))
		goto out;
	/* Nothing waits: 0, and the next completion raises the event. */
	reinit_completion(&event);
	ret = ib_req_notify_cq(cq, arm);
	if (ret != 0) {
		fail(name, "arm of an empty CQ: %d, expected 0", ret);
		goto out;
	}
	if (ib_poll_cq(cq, 1, &wc) != 0) {
		fail(name, "empty CQ polled a completion");
		goto out;
	}
	if (one_send(name, &p))
		goto out;
	if (!wait_for_completion_timeout(&event, msecs_to_jiffies(POLL_MS))) {
		fail(name, "no completion event after the arm");
		goto out;
	}
	expect_wc(name, cq, 601, IB_WC_RECV, 64);
out:
	pair_destroy(&p);
	ib_destroy_cq(cq);
}

static struct kunit_case cq_cases[] = {
#ifndef VHCA_HAVE_RESIZE_USER_CQ
	KUNIT_CASE(resize_cq),
#endif
	KUNIT_CASE(cq_comp_vector),
	KUNIT_CASE(cq_report_missed),
	{}
};

static struct kunit_suite cq_suite = VERBS_SUITE(cq, cq_cases);
kunit_test_suite(cq_suite);
