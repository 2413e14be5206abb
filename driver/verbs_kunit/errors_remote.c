// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * errors_remote.c - errors the responder detects (IBA 9.7.5.1.3, 9.9.3):
 * a wrong rkey, a region without the right for the operation, a
 * misaligned atomic, memory of another PD; and the affiliated
 * asynchronous events of the responder QP (IBA 11.6.3.1:
 * IB_EVENT_QP_ACCESS_ERR, IB_EVENT_QP_REQ_ERR, and
 * IB_EVENT_QP_LAST_WQE_REACHED of an SRQ-attached QP that goes to ERR).
 *
 * Each case: a new pair, an FRWR region over b.buf2 bound on qb
 * with the case's rights, two receives posted on qb, then one operation
 * from qa followed by two SENDs.  The requester gets the case's status and
 * the SENDs are flushed; the responder goes to ERR, its receives are
 * flushed and it gets the asynchronous event.
 */
#include "verbs_kunit.h"

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

static void run_on_pair(struct pair *p, const struct remote_case *c)
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
	    !expect_qp_error(c->name, p->cqa, p->qa, 100, c->status, 2))
		expect_responder_error(c->name, p, c->event);
	ib_dereg_mr(mr);
}

/* The case of remote_cases named like the running case, on a new pair. */
static void remote_case(struct kunit *test)
{
	const struct remote_case *c = NULL;
	struct pair p;
	int i;

	for (i = 0; i < ARRAY_SIZE(remote_cases); i++)
		if (!strcmp(remote_cases[i].name, test->name))
			c = &remote_cases[i];
	KUNIT_ASSERT_NOT_NULL(test, c);
	if (pair_create(&p, NULL))
		return;
	run_on_pair(&p, c);
	pair_destroy(&p);
}

/* err_rkey_write again, for the responder's affiliated event itself. */
static void event_qp_access_err(struct kunit *test)
{
	struct pair p;

	if (pair_create(&p, NULL))
		return;
	run_on_pair(&p, &remote_cases[0]);
	KUNIT_EXPECT_TRUE_MSG(test, test_bit(IB_EVENT_QP_ACCESS_ERR, &p.events_b),
			      "events of qb: 0x%lx", p.events_b);
	pair_destroy(&p);
}

/* A region of another PD (PD2), bound by a UD QP of that PD. */
struct other_pd {
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_mr *mr;
};

static void other_pd_destroy(struct other_pd *o)
{
	if (o->mr)
		ib_dereg_mr(o->mr);
	if (o->qp)
		ib_destroy_qp(o->qp);
	if (o->cq)
		ib_destroy_cq(o->cq);
	if (o->pd)
		ib_dealloc_pd(o->pd);
}

static int other_pd_create(const char *name, struct other_pd *o)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 8 };
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	memset(o, 0, sizeof(*o));
	o->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(o->pd)) {
		fail(name, "ib_alloc_pd: %ld", PTR_ERR(o->pd));
		o->pd = NULL;
		return -EIO;
	}
	o->cq = ib_create_cq(ibdev, NULL, NULL, NULL, &cq_attr);
	if (IS_ERR(o->cq)) {
		fail(name, "ib_create_cq: %ld", PTR_ERR(o->cq));
		o->cq = NULL;
		return -EIO;
	}
	init.send_cq = init.recv_cq = o->cq;
	o->qp = ib_create_qp(o->pd, &init);
	if (IS_ERR(o->qp)) {
		fail(name, "ib_create_qp: %ld", PTR_ERR(o->qp));
		o->qp = NULL;
		return -EIO;
	}
	if (ud_qp_up(o->qp, b.port))
		return -EIO;
	o->mr = frwr_create(name, o->pd, o->qp, o->cq, b.dma2, BUF_SIZE,
			    LW | RW | RR | RA);
	return o->mr ? 0 : -EIO;
}

/* PD2's key as the lkey of a SEND: LOC_PROT_ERR, the responder untouched. */
static void pd_mismatch_local(const char *name, struct pair *p,
			      struct ib_mr *mr)
{
	struct ib_sge sge = { .addr = mr->iova, .length = 64, .lkey = mr->lkey };
	struct ib_send_wr wr = { .wr_id = 100, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED,
				 .sg_list = &sge, .num_sge = 1 };

	if (!post_recvs(name, p->qb, 200, 2, b.dma, BUF_SIZE) &&
	    !post_with_tail(name, p->qa, &wr, 2) &&
	    !expect_qp_error(name, p->cqa, p->qa, 100, IB_WC_LOC_PROT_ERR, 2))
		expect_state(name, p->qb, IB_QPS_RTS);
}

/* PD2's key as the rkey of an RDMA WRITE: REM_ACCESS_ERR, responder ERR. */
static void pd_mismatch_remote(const char *name, struct pair *p,
			       struct ib_mr *mr)
{
	if (!post_recvs(name, p->qb, 200, 2, b.dma, BUF_SIZE) &&
	    !post_remote(name, p, IB_WR_RDMA_WRITE, mr->rkey, mr->iova) &&
	    !expect_qp_error(name, p->cqa, p->qa, 100, IB_WC_REM_ACCESS_ERR, 2))
		expect_responder_error(name, p, IB_EVENT_QP_ACCESS_ERR);
}

static void on_other_pd(const char *name,
			void (*body)(const char *name, struct pair *p,
				     struct ib_mr *mr))
{
	struct other_pd o;
	struct pair p;

	if (!other_pd_create(name, &o) && !pair_create(&p, NULL)) {
		body(name, &p, o.mr);
		pair_destroy(&p);
	}
	other_pd_destroy(&o);
}

static void err_pd_mismatch_local(struct kunit *test)
{
	on_other_pd(test->name, pd_mismatch_local);
}

static void err_pd_mismatch_remote(struct kunit *test)
{
	on_other_pd(test->name, pd_mismatch_remote);
}

/* An RC QP fed by an SRQ, moved to ERR: IB_EVENT_QP_LAST_WQE_REACHED. */
static void event_last_wqe_reached(struct kunit *test)
{
	const char *name = test->name;
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
	else
		wait_event_bit(name, &p.events_b, IB_EVENT_QP_LAST_WQE_REACHED);
	pair_destroy(&p);
out:
	ib_destroy_srq(srq);
}

#define REMOTE_CASE(_name) VERBS_CASE(remote_case, _name)

static struct kunit_case errors_remote_cases[] = {
	REMOTE_CASE("err_rkey_write"),
	KUNIT_CASE(event_qp_access_err),
	REMOTE_CASE("err_rkey_read"),
	REMOTE_CASE("err_write_readonly"),
	REMOTE_CASE("err_read_noaccess"),
	REMOTE_CASE("err_atomic_noaccess"),
	REMOTE_CASE("err_atomic_misaligned"),
	KUNIT_CASE(err_pd_mismatch_local),
	KUNIT_CASE(err_pd_mismatch_remote),
	KUNIT_CASE(event_last_wqe_reached),
	{}
};

static struct kunit_suite errors_remote_suite =
	VERBS_SUITE(errors_remote, errors_remote_cases);
kunit_test_suite(errors_remote_suite);
