// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * uc.c - Unreliable Connected QPs (IBA 9.8.2): SEND, RDMA WRITE and RDMA
 * WRITE with immediate between a UC pair, data checked byte for byte; a
 * SEND that finds no receive WQE is dropped (no RNR on UC) while the
 * sender completes with success; the RC-only opcodes (SEND_WITH_INV,
 * RDMA READ, atomics) are refused at post time.
 */
#include "verbs_kunit.h"

static void uc_send_body(const char *name, struct pair *p)
{
	struct ib_send_wr wr = { .wr_id = 700, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };

	fill(a.buf, 3000, 0x61);
	memset(b.buf, 0, BUF_SIZE);
	sync_for_device();
	/* No receive yet: dropped. */
	if (post_send_qp(p->qa, &wr, a.dma, 3000) ||
	    expect_wc(name, p->cqa, 700, IB_WC_SEND, 0) ||
	    expect_empty(name, p->cqb, 20))
		return;
	wr.wr_id = 701;
	if (post_recvs(name, p->qb, 710, 1, b.dma, BUF_SIZE) ||
	    post_send_qp(p->qa, &wr, a.dma, 3000) ||
	    expect_wc(name, p->cqa, 701, IB_WC_SEND, 0) ||
	    expect_wc(name, p->cqb, 710, IB_WC_RECV, 3000))
		return;
	sync_for_cpu();
	if (!compare(name, b.buf, a.buf, 3000))
		expect_state(name, p->qa, IB_QPS_RTS);
}

static int uc_write(const char *name, struct pair *p, struct ib_mr *mr,
		    bool imm)
{
	struct ib_rdma_wr rw = {};
	struct ib_wc wc;
	int err;

	fill(a.buf, BUF_SIZE, imm ? 0x17 : 0x71);
	memset(b.buf2, 0, BUF_SIZE);
	sync_for_device();
	if (imm && post_recvs(name, p->qb, 720, 1, b.dma, 16))
		return -EIO;
	rw.wr.opcode = imm ? IB_WR_RDMA_WRITE_WITH_IMM : IB_WR_RDMA_WRITE;
	rw.wr.wr_id = 730;
	rw.wr.send_flags = IB_SEND_SIGNALED;
	rw.wr.ex.imm_data = cpu_to_be32(0xfeedf00d);
	rw.remote_addr = mr->iova + 8;
	rw.rkey = mr->rkey;
	err = post_send_qp(p->qa, &rw.wr, a.dma, 4000);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		return err;
	}
	if (expect_wc(name, p->cqa, 730, IB_WC_RDMA_WRITE, 0))
		return -EIO;
	if (imm) {
		err = poll_one(p->cqb, &wc);
		if (err || wc.status != IB_WC_SUCCESS || wc.wr_id != 720 ||
		    wc.opcode != IB_WC_RECV_RDMA_WITH_IMM ||
		    !(wc.wc_flags & IB_WC_WITH_IMM) ||
		    wc.ex.imm_data != cpu_to_be32(0xfeedf00d) ||
		    wc.byte_len != 4000) {
			fail(name, "recv wc: err %d status %d wr_id %llu opcode %d flags 0x%x len %u",
			     err, wc.status, wc.wr_id, wc.opcode, wc.wc_flags,
			     wc.byte_len);
			return -EIO;
		}
	} else if (expect_empty(name, p->cqb, 0)) {
		return -EIO;
	}
	sync_for_cpu();
	if (compare(name, b.buf2 + 8, a.buf, 4000))
		return -EIO;
	if (memchr_inv(b.buf2, 0, 8) || memchr_inv(b.buf2 + 4008, 0, BUF_SIZE - 4008)) {
		fail(name, "bytes outside the written range changed");
		return -EIO;
	}
	return 0;
}

/* RC-only opcodes (IBA 9.2): refused at post time, the QP unharmed. */
static void uc_rc_only_body(const char *name, struct pair *p)
{
	static const enum ib_wr_opcode ops[] = {
		IB_WR_SEND_WITH_INV, IB_WR_RDMA_READ,
		IB_WR_ATOMIC_CMP_AND_SWP, IB_WR_ATOMIC_FETCH_AND_ADD,
	};
	struct ib_sge sge = { .addr = a.dma2, .length = 8,
			      .lkey = pd->local_dma_lkey };
	const struct ib_send_wr *bad = NULL;
	struct ib_atomic_wr aw = {};
	int i, err;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		memset(&aw, 0, sizeof(aw));
		aw.wr.wr_id = 740 + i;
		aw.wr.opcode = ops[i];
		aw.wr.send_flags = IB_SEND_SIGNALED;
		aw.wr.sg_list = &sge;
		aw.wr.num_sge = 1;
		err = ib_post_send(p->qa, &aw.wr, &bad);
		if (err != -EINVAL || bad != &aw.wr) {
			fail(name, "opcode %d on UC: %d, expected -EINVAL", ops[i], err);
			return;
		}
	}
	if (!expect_empty(name, p->cqa, 0))
		expect_state(name, p->qa, IB_QPS_RTS);
}

/* The UC pair of every case, and the region of the RDMA WRITE cases. */
static void with_uc_pair(const char *name,
			 void (*body)(const char *name, struct pair *p))
{
	struct pair_opts o = { .type = IB_QPT_UC };
	struct pair p;

	if (pair_create(&p, &o))
		return;
	body(name, &p);
	pair_destroy(&p);
}

static void uc_write_body(const char *name, struct pair *p, bool imm)
{
	struct ib_mr *mr;

	mr = frwr_create(name, pd, p->qb, p->cqb, b.dma2, BUF_SIZE,
			 IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	if (!mr)
		return;
	uc_write(name, p, mr, imm);
	ib_dereg_mr(mr);
}

static void uc_rdma_write_body(const char *name, struct pair *p)
{
	uc_write_body(name, p, false);
}

static void uc_rdma_write_imm_body(const char *name, struct pair *p)
{
	uc_write_body(name, p, true);
}

static void uc_send(struct kunit *test)
{
	with_uc_pair(test->name, uc_send_body);
}

static void uc_rc_only_opcodes(struct kunit *test)
{
	with_uc_pair(test->name, uc_rc_only_body);
}

static void uc_rdma_write(struct kunit *test)
{
	with_uc_pair(test->name, uc_rdma_write_body);
}

static void uc_rdma_write_imm(struct kunit *test)
{
	with_uc_pair(test->name, uc_rdma_write_imm_body);
}

static struct kunit_case uc_cases[] = {
	KUNIT_CASE(uc_send),
	KUNIT_CASE(uc_rc_only_opcodes),
	KUNIT_CASE(uc_rdma_write),
	KUNIT_CASE(uc_rdma_write_imm),
	{}
};

static struct kunit_suite uc_suite = VERBS_SUITE(uc, uc_cases);
kunit_test_suite(uc_suite);
