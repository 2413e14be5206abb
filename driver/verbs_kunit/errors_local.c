// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * errors_local.c - error completions of local buffers and of the
 * transport: a bad lkey (IBA 10.6.3), a receive buffer too small
 * (LOC_LEN_ERR at the responder, NAK Invalid Request, IBA 9.9.3.1.2), a
 * receive WQE with a bad lkey (LOC_PROT_ERR at the responder, NAK Remote
 * Operational Error), RNR retries exhausted or satisfied in time (IBA
 * 9.7.5.2.8), and a connected peer that is in RESET or does not exist
 * (transport retries exhausted).  Each error moves the RC QP to ERR and
 * flushes the rest of its send queue (IBA 10.3.1, 11.6.2).
 * unsupported_wr_opcode: a work request the driver does not carry out is
 * refused at ib_post_send with -EOPNOTSUPP, and nothing else happens;
 * flush_caps: FLUSH is the device's, from user space.
 */
#include "verbs_kunit.h"
#include "vhca_compat.h"

/* A 100-byte SEND from p->qa (wr_id 100) followed by two more. */
static int send_100(const char *name, struct pair *p, u32 lkey)
{
	struct ib_sge sge = { .addr = a.dma, .length = 100, .lkey = lkey };
	struct ib_send_wr wr = { .wr_id = 100, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED,
				 .sg_list = &sge, .num_sge = 1 };

	return post_with_tail(name, p->qa, &wr, 2);
}

static void err_bad_lkey_body(const char *name, struct pair *p)
{

	if (post_recvs(name, p->qb, 200, 2, b.dma, BUF_SIZE) ||
	    send_100(name, p, 0x12345600) ||
	    expect_qp_error(name, p->cqa, p->qa, 100, IB_WC_LOC_PROT_ERR, 2))
		return;
	/* The responder saw nothing: RTS, receives still posted. */
	if (expect_state(name, p->qb, IB_QPS_RTS) ||
	    expect_empty(name, p->cqb, 20))
		return;
}

static void err_loc_len_body(const char *name, struct pair *p)
{

	if (post_recvs(name, p->qb, 200, 1, b.dma, 16) ||
	    post_recvs(name, p->qb, 201, 1, b.dma, BUF_SIZE) ||
	    send_100(name, p, pd->local_dma_lkey))
		return;
	if (expect_qp_error(name, p->cqa, p->qa, 100, IB_WC_REM_INV_REQ_ERR, 2) ||
	    expect_qp_error(name, p->cqb, p->qb, 200, IB_WC_LOC_LEN_ERR, 1))
		return;
}

/* The responder's receive WQE names a bad lkey: its completion says
 * IB_WC_LOC_PROT_ERR, the requester gets NAK Remote Operational Error. */
static void err_recv_bad_lkey_body(const char *name, struct pair *p)
{
	struct ib_sge sge = { .addr = b.dma, .length = BUF_SIZE,
			      .lkey = 0x12345600 };
	struct ib_recv_wr wr = { .wr_id = 200, .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;
	int err;

	err = ib_post_recv(p->qb, &wr, &bad);
	if (err) {
		fail(name, "ib_post_recv: %d", err);
		return;
	}
	if (post_recvs(name, p->qb, 201, 1, b.dma, BUF_SIZE) ||
	    send_100(name, p, pd->local_dma_lkey))
		return;
	if (expect_qp_error(name, p->cqa, p->qa, 100, IB_WC_REM_OP_ERR, 2) ||
	    expect_qp_error(name, p->cqb, p->qb, 200, IB_WC_LOC_PROT_ERR, 1))
		return;
}

static void err_rnr_retry_exc_body(const char *name, struct pair *p)
{

	if (send_100(name, p, pd->local_dma_lkey) ||
	    expect_qp_error(name, p->cqa, p->qa, 100, IB_WC_RNR_RETRY_EXC_ERR, 2) ||
	    expect_state(name, p->qb, IB_QPS_RTS))
		return;
}

/* rnr_retry 1 and a 491 ms RNR timer: the receive posted after the first
 * RNR NAK is there for the retry. */
static void rnr_retry_ok_body(const char *name, struct pair *p)
{
	struct ib_send_wr wr = { .wr_id = 100, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };

	fill(a.buf, MSG_LEN, 0x3c);
	memset(b.buf, 0, BUF_SIZE);
	sync_for_device();
	if (post_send_qp(p->qa, &wr, a.dma, MSG_LEN)) {
		fail(name, "ib_post_send");
		return;
	}
	if (expect_empty(name, p->cqa, 20) ||
	    post_recvs(name, p->qb, 200, 1, b.dma, BUF_SIZE) ||
	    expect_wc(name, p->cqa, 100, IB_WC_SEND, 0) ||
	    expect_wc(name, p->cqb, 200, IB_WC_RECV, MSG_LEN))
		return;
	sync_for_cpu();
	if (compare(name, b.buf, a.buf, MSG_LEN))
		return;
}

static void err_retry_exc_reset_body(const char *name, struct pair *p)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };
	int err;

	err = ib_modify_qp(p->qb, &attr, IB_QP_STATE);
	if (err) {
		fail(name, "qb to RESET: %d", err);
		return;
	}
	if (send_100(name, p, pd->local_dma_lkey) ||
	    expect_qp_error(name, p->cqa, p->qa, 100, IB_WC_RETRY_EXC_ERR, 2) ||
	    expect_state(name, p->qb, IB_QPS_RESET))
		return;
}

static void err_retry_exc_noqp_body(const char *name, struct pair *p)
{

	if (send_100(name, p, pd->local_dma_lkey) ||
	    expect_qp_error(name, p->cqa, p->qa, 100, IB_WC_RETRY_EXC_ERR, 2))
		return;
}

/* Each opcode is refused by ib_post_send (bad_wr: it), and the QP stays
 * in RTS with nothing completed: LSO (UD only, and the device has no
 * offloads), and from 6.2 FLUSH and ATOMIC WRITE (user space only: the
 * kernel's ib_send_wr has no field for FLUSH's placement type and
 * selectivity nor for ATOMIC WRITE's bytes, Documentation/verbs.md). */
static void unsupported_wr_opcode_body(const char *name, struct pair *p)
{
	static const enum ib_wr_opcode opcodes[] = {
		IB_WR_LSO,
#ifdef VHCA_HAVE_IB_WR_FLUSH
		IB_WR_FLUSH, IB_WR_ATOMIC_WRITE,
#endif
	};
	struct ib_sge sge = { .addr = a.dma, .length = 8,
			      .lkey = pd->local_dma_lkey };
	struct ib_rdma_wr wr = { .wr = { .wr_id = 100, .sg_list = &sge,
					 .num_sge = 1,
					 .send_flags = IB_SEND_SIGNALED },
				 .remote_addr = b.dma2 };	/* never sent */
	const struct ib_send_wr *bad;
	int i, err;

	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		wr.wr.opcode = opcodes[i];
		bad = NULL;
		err = ib_post_send(p->qa, &wr.wr, &bad);
		if (err != -EOPNOTSUPP || bad != &wr.wr) {
			fail(name, "opcode %d: ib_post_send %d (bad_wr %s), want -EOPNOTSUPP",
			     opcodes[i], err, bad == &wr.wr ? "it" : "not it");
			return;
		}
	}
	if (expect_state(name, p->qa, IB_QPS_RTS) ||
	    expect_empty(name, p->cqa, 20) || expect_empty(name, p->cqb, 20))
		return;
}

/* body on a new pair with options o (NULL: RC, the defaults). */
static void on_pair(const char *name, const struct pair_opts *o,
		    void (*body)(const char *name, struct pair *p))
{
	struct pair p;

	if (pair_create(&p, o))
		return;
	body(name, &p);
	pair_destroy(&p);
}

static void unsupported_wr_opcode(struct kunit *test)
{
	on_pair(test->name, NULL, unsupported_wr_opcode_body);
}

#ifdef VHCA_HAVE_IB_DEVICE_FLUSH
/* The device executes FLUSH of both placement types (IBA 1.5 A19.4.1):
 * device_cap_flags says so, and so ib_core accepts regions with the FLUSH
 * access flags (ib_check_mr_access, the check of every reg_mr). */
static void flush_caps(struct kunit *test)
{
	struct ib_device *dev = pd->device;
	u64 flags = dev->attrs.device_cap_flags;

	if (!(flags & IB_DEVICE_FLUSH_GLOBAL) ||
	    !(flags & IB_DEVICE_FLUSH_PERSISTENT))
		fail(test->name, "device_cap_flags 0x%llx without FLUSH", flags);
	else if (ib_check_mr_access(dev, IB_ACCESS_LOCAL_WRITE |
				    IB_ACCESS_FLUSH_GLOBAL |
				    IB_ACCESS_FLUSH_PERSISTENT))
		fail(test->name, "ib_check_mr_access refuses the FLUSH access flags");
}
#endif

static void err_bad_lkey(struct kunit *test)
{
	on_pair(test->name, NULL, err_bad_lkey_body);
}

static void err_loc_len(struct kunit *test)
{
	on_pair(test->name, NULL, err_loc_len_body);
}

static void err_recv_bad_lkey(struct kunit *test)
{
	on_pair(test->name, NULL, err_recv_bad_lkey_body);
}

static void err_retry_exc_reset(struct kunit *test)
{
	on_pair(test->name, NULL, err_retry_exc_reset_body);
}

static void err_rnr_retry_exc(struct kunit *test)
{
	static const struct pair_opts o = { .type = IB_QPT_RC,
					    .rnr_set = true, .rnr_retry = 0 };

	on_pair(test->name, &o, err_rnr_retry_exc_body);
}

static void rnr_retry_ok(struct kunit *test)
{
	static const struct pair_opts o = { .type = IB_QPT_RC, .rnr_set = true,
					    .rnr_retry = 1, .min_rnr_timer = 31 };

	on_pair(test->name, &o, rnr_retry_ok_body);
}

/* qa connected to a QPN nobody has. */
static void err_retry_exc_noqp(struct kunit *test)
{
	static const struct pair_opts o = { .type = IB_QPT_RC,
					    .no_connect = true };
	struct pair p;

	if (pair_create(&p, &o))
		return;
	if (!connect_qp(p.qa, a.port, 0xfffff0, &p.o))
		err_retry_exc_noqp_body(test->name, &p);
	pair_destroy(&p);
}

static struct kunit_case errors_local_cases[] = {
	KUNIT_CASE(err_bad_lkey),
	KUNIT_CASE(err_loc_len),
	KUNIT_CASE(err_recv_bad_lkey),
	KUNIT_CASE(err_retry_exc_reset),
	KUNIT_CASE(err_rnr_retry_exc),
	KUNIT_CASE(rnr_retry_ok),
	KUNIT_CASE(err_retry_exc_noqp),
	KUNIT_CASE(unsupported_wr_opcode),
#ifdef VHCA_HAVE_IB_DEVICE_FLUSH
	KUNIT_CASE(flush_caps),
#endif
	{}
};

static struct kunit_suite errors_local_suite =
	VERBS_SUITE(errors_local, errors_local_cases);
kunit_test_suite(errors_local_suite);
