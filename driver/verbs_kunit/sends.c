// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * sends.c - send work request options: IB_SEND_INLINE up to the QP's
 * max_inline_data (one byte more is refused at post time), the QP's
 * max_sge on both the gather (send) and scatter (receive) side,
 * unsignaled sends freed by a final signaled one (more of them than the
 * send queue holds), and IB_SEND_FENCE on a SEND after an RDMA READ
 * whose data it carries.
 */
#include <linux/slab.h>

#include "verbs_kunit.h"

static void inline_send(struct kunit *test)
{
	const char *name = test->name;
	struct pair_opts o = { .type = IB_QPT_RC, .max_inline_data = 512 };
	struct ib_send_wr wr = { .wr_id = 800, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE };
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	struct ib_sge sge[2];
	const struct ib_send_wr *bad;
	struct pair p;
	u32 max, half;
	u8 *data;
	int err;

	if (pair_create(&p, &o)) {
		fail(name, "QP pair");
		return;
	}
	err = ib_query_qp(p.qa, &attr, IB_QP_CAP, &init);
	max = init.cap.max_inline_data;
	if (err || max < 512 || max > BUF_SIZE) {
		fail(name, "query: %d, max_inline_data %u (asked 512)", err, max);
		goto out;
	}
	/* Inline data is copied at post time from kernel virtual addresses
	 * (no lkey): change the source right after posting. */
	data = kmalloc(max + 1, GFP_KERNEL);
	if (!data) {
		fail(name, "kmalloc");
		goto out;
	}
	fill(data, max + 1, 0x4d);
	memset(b.buf, 0, BUF_SIZE);
	sync_for_device();
	half = max / 2;
	sge[0] = (struct ib_sge){ .addr = (uintptr_t)data, .length = half };
	sge[1] = (struct ib_sge){ .addr = (uintptr_t)data + half,
				  .length = max - half };
	wr.sg_list = sge;
	wr.num_sge = 2;
	if (post_recvs(name, p.qb, 810, 1, b.dma, BUF_SIZE))
		goto free;
	err = ib_post_send(p.qa, &wr, &bad);
	if (err) {
		fail(name, "ib_post_send(%u inline bytes): %d", max, err);
		goto free;
	}
	memset(data, 0, max);
	fill(a.buf, max, 0x4d);
	if (expect_wc(name, p.cqa, 800, IB_WC_SEND, 0) ||
	    expect_wc(name, p.cqb, 810, IB_WC_RECV, max))
		goto free;
	sync_for_cpu();
	if (compare(name, b.buf, a.buf, max))
		goto free;
	sge[1].length++;
	err = ib_post_send(p.qa, &wr, &bad);
	if (err != -EINVAL)
		fail(name, "%u inline bytes (max %u) posted: %d, expected -EINVAL",
		     max + 1, max, err);
free:
	kfree(data);
out:
	pair_destroy(&p);
}

/* max_sge SGEs on both sides, of unequal lengths, so that pieces cross
 * SGE boundaries; the send gathers from a.buf back to front. */
static void max_sge(struct kunit *test)
{
	const char *name = test->name;
	u32 n = min_t(u32, ibdev->attrs.max_send_sge, ibdev->attrs.max_recv_sge);
	struct pair_opts o = { .type = IB_QPT_RC };
	struct ib_send_wr wr = { .wr_id = 820, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	struct ib_recv_wr rwr = { .wr_id = 821 };
	const struct ib_send_wr *bad;
	const struct ib_recv_wr *rbad;
	struct ib_sge *ssge = NULL, *rsge = NULL;
	u8 *want = NULL;
	struct pair p;
	u32 i, off, len, total = 0;
	int err;

	if (n < 2 || n > 64) {
		fail(name, "max_send_sge %d max_recv_sge %d",
		     ibdev->attrs.max_send_sge, ibdev->attrs.max_recv_sge);
		return;
	}
	o.max_send_sge = o.max_recv_sge = n;
	if (pair_create(&p, &o)) {
		fail(name, "QP pair with %u SGEs", n);
		return;
	}
	ssge = kcalloc(n, sizeof(*ssge), GFP_KERNEL);
	rsge = kcalloc(n, sizeof(*rsge), GFP_KERNEL);
	want = kzalloc(BUF_SIZE, GFP_KERNEL);
	if (!ssge || !rsge || !want) {
		fail(name, "kcalloc");
		goto out;
	}
	fill(a.buf, BUF_SIZE, 0x2f);
	memset(b.buf, 0, BUF_SIZE);
	sync_for_device();
	/* Send: SGE i is (17 + 3i) bytes at the i-th slot from the end of
	 * a.buf (slots of 64 bytes). */
	for (i = 0; i < n; i++) {
		len = 17 + 3 * i;
		off = BUF_SIZE - 64 * (i + 1);
		ssge[i] = (struct ib_sge){ .addr = a.dma + off, .length = len,
					   .lkey = pd->local_dma_lkey };
		memcpy(want + total, a.buf + off, len);
		total += len;
	}
	/* Receive: SGE i is (total / n) bytes (the last gets the rest and
	 * 8 spare) at 96-byte slots of b.buf, leaving holes. */
	for (i = 0; i < n; i++) {
		len = i + 1 < n ? total / n : total - (n - 1) * (total / n) + 8;
		rsge[i] = (struct ib_sge){ .addr = b.dma + 96 * i, .length = len,
					   .lkey = pd->local_dma_lkey };
	}
	rwr.sg_list = rsge;
	rwr.num_sge = n;
	err = ib_post_recv(p.qb, &rwr, &rbad);
	if (err) {
		fail(name, "ib_post_recv(%u SGEs): %d", n, err);
		goto out;
	}
	wr.sg_list = ssge;
	wr.num_sge = n;
	err = ib_post_send(p.qa, &wr, &bad);
	if (err) {
		fail(name, "ib_post_send(%u SGEs): %d", n, err);
		goto out;
	}
	if (expect_wc(name, p.cqa, 820, IB_WC_SEND, 0) ||
	    expect_wc(name, p.cqb, 821, IB_WC_RECV, total))
		goto out;
	sync_for_cpu();
	for (i = 0, off = 0; i < n; i++) {
		len = min_t(u32, rsge[i].length, total - off);
		if (compare(name, b.buf + 96 * i, want + off, len))
			goto out;
		if (memchr_inv(b.buf + 96 * i + len, 0, 96 - min_t(u32, 96, len)))
			break;
		off += len;
	}
	if (i < n)
		fail(name, "bytes after receive SGE %u changed", i);
out:
	kfree(ssge);
	kfree(rsge);
	kfree(want);
	pair_destroy(&p);
}

/* Rounds of SQ_DEPTH - 1 unsignaled SENDs and a signaled one, each round
 * polled once: three rounds only fit if the signaled completion frees the
 * unsignaled WQEs before it. */
#define SQ_DEPTH 8
static void unsignaled(struct kunit *test)
{
	const char *name = test->name;
	struct pair_opts o = { .type = IB_QPT_RC, .max_send_wr = SQ_DEPTH,
			       .max_recv_wr = 4 * SQ_DEPTH };
	struct ib_send_wr wr = { .opcode = IB_WR_SEND };
	struct pair p;
	int round, i;

	if (pair_create(&p, &o)) {
		fail(name, "QP pair");
		return;
	}
	fill(a.buf, BUF_SIZE, 0x0b);
	memset(b.buf, 0, BUF_SIZE);
	sync_for_device();
	if (post_recvs(name, p.qb, 900, 3 * SQ_DEPTH, b.dma, BUF_SIZE))
		goto out;
	for (round = 0; round < 3; round++) {
		for (i = 0; i < SQ_DEPTH; i++) {
			wr.wr_id = 850 + round * SQ_DEPTH + i;
			wr.send_flags = i == SQ_DEPTH - 1 ? IB_SEND_SIGNALED : 0;
			if (post_send_qp(p.qa, &wr, a.dma + 100 * i, 100 + i)) {
				fail(name, "ib_post_send round %d WR %d", round, i);
				goto out;
			}
		}
		/* Only the signaled one completes. */
		if (expect_wc(name, p.cqa, 850 + round * SQ_DEPTH + SQ_DEPTH - 1,
			      IB_WC_SEND, 0) ||
		    expect_empty(name, p.cqa, 0))
			goto out;
		for (i = 0; i < SQ_DEPTH; i++)
			if (expect_wc(name, p.cqb, 900 + round * SQ_DEPTH + i,
				      IB_WC_RECV, 100 + i))
				goto out;
	}
	sync_for_cpu();
	/* The last receive got the last SEND. */
	compare(name, b.buf, a.buf + 100 * (SQ_DEPTH - 1), 100 + SQ_DEPTH - 1);
out:
	pair_destroy(&p);
}

/* RDMA READ b.buf2 -> a.buf2, then a fenced SEND of a.buf2: the SEND
 * must carry what the READ brought (IBA 10.8.3.3). */
static void fence_read_send(struct kunit *test)
{
	const char *name = test->name;
	struct ib_sge rsge = { .addr = a.dma2, .length = 2048,
			       .lkey = pd->local_dma_lkey };
	struct ib_rdma_wr rw = {};
	struct ib_send_wr send = { .wr_id = 951, .opcode = IB_WR_SEND,
				   .send_flags = IB_SEND_SIGNALED | IB_SEND_FENCE,
				   .sg_list = &rsge, .num_sge = 1 };
	const struct ib_send_wr *bad;
	struct ib_mr *mr;
	struct pair p;
	int err;

	if (pair_create(&p, NULL)) {
		fail(name, "QP pair");
		return;
	}
	mr = frwr_create(name, pd, p.qb, p.cqb, b.dma2, BUF_SIZE,
			 IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ);
	if (!mr)
		goto out;
	fill(b.buf2, BUF_SIZE, 0xd3);
	memset(a.buf2, 0, BUF_SIZE);
	memset(b.buf, 0, BUF_SIZE);
	sync_for_device();
	if (post_recvs(name, p.qb, 960, 1, b.dma, BUF_SIZE))
		goto dereg;
	rw.wr.opcode = IB_WR_RDMA_READ;
	rw.wr.wr_id = 950;
	rw.wr.sg_list = &rsge;
	rw.wr.num_sge = 1;
	rw.wr.next = &send;
	rw.remote_addr = mr->iova + 1000;
	rw.rkey = mr->rkey;
	/* The READ unsignaled: the SEND's completion covers it. */
	err = ib_post_send(p.qa, &rw.wr, &bad);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		goto dereg;
	}
	if (expect_wc(name, p.cqa, 951, IB_WC_SEND, 0) ||
	    expect_wc(name, p.cqb, 960, IB_WC_RECV, 2048))
		goto dereg;
	sync_for_cpu();
	if (!compare(name, a.buf2, b.buf2 + 1000, 2048))
		compare(name, b.buf, b.buf2 + 1000, 2048);
dereg:
	ib_dereg_mr(mr);
out:
	pair_destroy(&p);
}

static struct kunit_case sends_cases[] = {
	KUNIT_CASE(inline_send),
	KUNIT_CASE(max_sge),
	KUNIT_CASE(unsignaled),
	KUNIT_CASE(fence_read_send),
	{}
};

static struct kunit_suite sends_suite = VERBS_SUITE(sends, sends_cases);
kunit_test_suite(sends_suite);
