// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * errors_remote.c - errors the responder detects (IBA 9.7.5.1.3, 9.9.3):
 * a wrong rkey, a region without the right for the operation, a
 * misaligned atomic, memory of another PD; and the affiliated
 * asynchronous events of the responder QP (IBA 11.6.3.1:
 * IB_EVENT_QP_ACCESS_ERR, IB_EVENT_QP_REQ_ERR, and
 * IB_EVENT_QP_LAST_WQE_REACHED of an SRQ-attached QP that goes to ERR).
 *
 * Each case: a fresh connection, an FRWR region over b.buf2 bound on qb
 * with the case's rights, two receives posted on qb, then one operation
 * from qa followed by two SENDs.  The requester gets the case's status and
 * the SENDs are flushed; the responder goes to ERR, its receives are
 * flushed and it gets the asynchronous event.
 */
#include "vhca_verbs_test.h"

#define LW IB_ACCESS_LOCAL_WRITE
#define RW IB_ACCESS_REMOTE_WRITE
#define RR IB_ACCESS_REMOTE_READ
#define RA IB_ACCESS_REMOTE_ATOMIC

struct remote_case {
	const char *name;
	int access;			/* of the region */
	enum ib_wr_opcode opcode;
	bool bad_key;			/* another key variant */
	u32 offset;			/* into the region */
	enum ib_wc_status status;	/* the requester's */
	enum ib_event_type event;	/* the responder's */
};

static const struct remote_case remote_cases[] = {
	{ "err_rkey_write", LW | RW | RR | RA, IB_WR_RDMA_WRITE, true, 0,
	  IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
	{ "err_rkey_read", LW | RW | RR | RA, IB_WR_RDMA_READ, true, 0,
	  IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
	{ "err_write_readonly", LW | RR, IB_WR_RDMA_WRITE, false, 0,
	  IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
	{ "err_read_noaccess", LW | RW, IB_WR_RDMA_READ, false, 0,
	  IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
	{ "err_atomic_noaccess", LW | RW | RR, IB_WR_ATOMIC_FETCH_AND_ADD,
	  false, 0, IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
	/* IBA 9.4.5: a misaligned atomic is an Invalid Request (NAK). */
	{ "err_atomic_misaligned", LW | RW | RR | RA,
	  IB_WR_ATOMIC_FETCH_AND_ADD, false, 4, IB_WC_REM_INV_REQ_ERR,
	  IB_EVENT_QP_REQ_ERR },
};

/* Posts opcode at (rkey, addr) from p->qa as wr_id 100, then 2 SENDs. */
static int post_remote(const char *name, struct pair *p,
		       enum ib_wr_opcode opcode, u32 rkey, u64 addr)
{
	struct ib_sge sge = { .addr = a.dma2, .length = 64,
			      .lkey = pd->local_dma_lkey };
	struct ib_atomic_wr aw = {};
	struct ib_rdma_wr rw = {};
	struct ib_send_wr *wr;

	if (opcode == IB_WR_ATOMIC_FETCH_AND_ADD) {
		aw.remote_addr = addr;
		aw.rkey = rkey;
		aw.compare_add = 1;
		sge.length = 8;
		wr = &aw.wr;
	} else {
		rw.remote_addr = addr;
		rw.rkey = rkey;
		wr = &rw.wr;
	}
	wr->wr_id = 100;
	wr->opcode = opcode;
	wr->send_flags = IB_SEND_SIGNALED;
	wr->sg_list = &sge;
	wr->num_sge = 1;
	return post_with_tail(name, p->qa, wr, 2);
}

/* The responder side of a refused request: ERR, receives 200 and 201
 * flushed, the event. */
static int expect_responder_error(const char *name, struct pair *p,
				  enum ib_event_type event)
{
	if (expect_flushed(name, p->cqb, 200, 2) ||
	    expect_state(name, p->qb, IB_QPS_ERR) ||
	    expect_empty(name, p->cqb, 0))
		return -EIO;
	return wait_event_bit(name, &p->events_b, event);
}

static void run_remote_case(struct pair *p, const struct remote_case *c)
{
	struct ib_mr *mr;
	u32 rkey;

	mr = frwr_create(c->name, pd, p->qb, p->cqb, b.dma2, BUF_SIZE, c->access);
	if (!mr)
		return;
	rkey = c->bad_key ? (mr->rkey & ~0xffu) | ((mr->rkey + 0x11) & 0xff)
			  : mr->rkey;
	if (!post_recvs(c->name, p->qb, 200, 2, b.dma, BUF_SIZE) &&
	    !post_remote(c->name, p, c->opcode, rkey, mr->iova + c->offset) &&
	    !expect_qp_error(c->name, p->cqa, p->qa, 100, c->status, 2) &&
	    !expect_responder_error(c->name, p, c->event))
		pass(c->name);
	ib_dereg_mr(mr);
}

/* A region of another PD, bound by a UD QP of that PD: its key is refused
 * locally (LOC_PROT_ERR) and remotely (REM_ACCESS_ERR). */
static void test_pd_mismatch(struct pair *p)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 8 };
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	const char *name = "err_pd_mismatch_local";
	struct ib_send_wr wr = { .wr_id = 100, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	struct ib_sge sge = { .length = 64 };
	struct ib_pd *pd2;
	struct ib_cq *cq = NULL;
	struct ib_qp *qp = NULL;
	struct ib_mr *mr = NULL;

	pd2 = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(pd2)) {
		fail(name, "ib_alloc_pd: %ld", PTR_ERR(pd2));
		return;
	}
	cq = ib_create_cq(ibdev, NULL, NULL, NULL, &cq_attr);
	if (IS_ERR(cq)) {
		fail(name, "ib_create_cq: %ld", PTR_ERR(cq));
		cq = NULL;
		goto out;
	}
	init.send_cq = init.recv_cq = cq;
	qp = ib_create_qp(pd2, &init);
	if (IS_ERR(qp)) {
		fail(name, "ib_create_qp: %ld", PTR_ERR(qp));
		qp = NULL;
		goto out;
	}
	if (ud_qp_up(qp, b.port)) {
		fail(name, "UD QP to RTS");
		goto out;
	}
	mr = frwr_create(name, pd2, qp, cq, b.dma2, BUF_SIZE, LW | RW | RR | RA);
	if (!mr)
		goto out;

	sge.addr = mr->iova;
	sge.lkey = mr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (!post_recvs(name, p->qb, 200, 2, b.dma, BUF_SIZE) &&
	    !post_with_tail(name, p->qa, &wr, 2) &&
	    !expect_qp_error(name, p->cqa, p->qa, 100, IB_WC_LOC_PROT_ERR, 2) &&
	    !expect_state(name, p->qb, IB_QPS_RTS))
		pass(name);

	name = "err_pd_mismatch_remote";
	if (pair_reset(p)) {
		fail(name, "reconnect");
		goto out;
	}
	if (!post_recvs(name, p->qb, 200, 2, b.dma, BUF_SIZE) &&
	    !post_remote(name, p, IB_WR_RDMA_WRITE, mr->rkey, mr->iova) &&
	    !expect_qp_error(name, p->cqa, p->qa, 100, IB_WC_REM_ACCESS_ERR, 2) &&
	    !expect_responder_error(name, p, IB_EVENT_QP_ACCESS_ERR))
		pass(name);
out:
	if (mr)
		ib_dereg_mr(mr);
	if (qp)
		ib_destroy_qp(qp);
	if (cq)
		ib_destroy_cq(cq);
	ib_dealloc_pd(pd2);
}

/* An RC QP fed by an SRQ, moved to ERR: IB_EVENT_QP_LAST_WQE_REACHED. */
static void test_last_wqe(void)
{
	const char *name = "event_last_wqe_reached";
	struct ib_srq_init_attr srq_init = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = 8, .max_sge = 1 },
	};
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct pair_opts o = { .type = IB_QPT_RC };
	struct ib_srq *srq;
	struct pair p;
	int err;

	srq = ib_create_srq(pd, &srq_init);
	if (IS_ERR(srq)) {
		fail(name, "ib_create_srq: %ld", PTR_ERR(srq));
		return;
	}
	o.srq_b = srq;
	if (pair_create(&p, &o)) {
		fail(name, "QP pair");
		goto out;
	}
	err = ib_modify_qp(p.qb, &attr, IB_QP_STATE);
	if (err)
		fail(name, "qb to ERR: %d", err);
	else if (!wait_event_bit(name, &p.events_b, IB_EVENT_QP_LAST_WQE_REACHED))
		pass(name);
	pair_destroy(&p);
out:
	ib_destroy_srq(srq);
}

void test_errors_remote(void)
{
	struct pair p;
	int i;

	if (pair_create(&p, NULL)) {
		fail("err_rkey_write", "QP pair");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(remote_cases); i++) {
		if (i && pair_reset(&p)) {
			fail(remote_cases[i].name, "reconnect");
			continue;
		}
		run_remote_case(&p, &remote_cases[i]);
		/* The first case is also the event's own check. */
		if (i == 0 && test_bit(IB_EVENT_QP_ACCESS_ERR, &p.events_b))
			pass("event_qp_access_err");
		else if (i == 0)
			fail("event_qp_access_err", "events of qb: 0x%lx",
			     p.events_b);
	}
	if (!pair_reset(&p))
		test_pd_mismatch(&p);
	pair_destroy(&p);
	test_last_wqe();
}
