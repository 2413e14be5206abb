// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * rdma.c - the main RC pair with an FRWR region over b.buf2 (IB_WR_REG_MR
 * on b, a new region per case): RDMA WRITE, READ, WRITE with immediate,
 * fetch-and-add and compare-and-swap from a.
 */
#include "verbs_kunit.h"

#define ALL_REMOTE (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

/* RDMA WRITE a.buf -> b.buf2 at offset 100; nothing else changes. */
static int rdma_write_to(const char *name, struct ib_mr *mr)
{
	struct ib_rdma_wr rw = {};
	int err;

	fill(a.buf, BUF_SIZE, 0x77);
	memset(b.buf2, 0, BUF_SIZE);
	sync_for_device();
	rw.wr.opcode = IB_WR_RDMA_WRITE;
	rw.wr.wr_id = 60;
	rw.wr.send_flags = IB_SEND_SIGNALED;
	rw.remote_addr = mr->iova + 100;
	rw.rkey = mr->rkey;
	err = post_send(&a, &rw.wr, a.dma, 3000);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		return err;
	}
	if (expect_wc(name, a.cq, 60, IB_WC_RDMA_WRITE, 0))
		return -EIO;
	sync_for_cpu();
	if (compare(name, b.buf2 + 100, a.buf, 3000))
		return -EIO;
	if (memchr_inv(b.buf2, 0, 100) || memchr_inv(b.buf2 + 3100, 0, BUF_SIZE - 3100)) {
		fail(name, "bytes outside the written range changed");
		return -EIO;
	}
	return 0;
}

/* RDMA READ b.buf2 -> a.buf2. */
static int rdma_read_from(const char *name, struct ib_mr *mr)
{
	struct ib_rdma_wr rw = {};
	int err;

	fill(b.buf2, BUF_SIZE, 0x99);
	memset(a.buf2, 0, BUF_SIZE);
	sync_for_device();
	rw.wr.opcode = IB_WR_RDMA_READ;
	rw.wr.wr_id = 70;
	rw.wr.send_flags = IB_SEND_SIGNALED;
	rw.remote_addr = mr->iova;
	rw.rkey = mr->rkey;
	err = post_send(&a, &rw.wr, a.dma2, BUF_SIZE);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		return err;
	}
	if (expect_wc(name, a.cq, 70, IB_WC_RDMA_READ, BUF_SIZE))
		return -EIO;
	sync_for_cpu();
	return compare(name, a.buf2, b.buf2, BUF_SIZE);
}

/* RDMA WRITE with immediate: consumes a receive on b. */
static int rdma_write_imm_to(const char *name, struct ib_mr *mr)
{
	struct ib_rdma_wr rw = {};
	struct ib_wc wc;
	int err;

	fill(a.buf, BUF_SIZE, 0x13);
	memset(b.buf2, 0, BUF_SIZE);
	sync_for_device();
	err = post_recv(&b, 81, b.dma, 16);
	if (err) {
		fail(name, "ib_post_recv: %d", err);
		return err;
	}
	rw.wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
	rw.wr.wr_id = 80;
	rw.wr.send_flags = IB_SEND_SIGNALED;
	rw.wr.ex.imm_data = cpu_to_be32(0x12345678);
	rw.remote_addr = mr->iova;
	rw.rkey = mr->rkey;
	err = post_send(&a, &rw.wr, a.dma, 2048);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		return err;
	}
	if (expect_wc(name, a.cq, 80, IB_WC_RDMA_WRITE, 0))
		return -EIO;
	err = poll_one(b.cq, &wc);
	if (err || wc.status != IB_WC_SUCCESS || wc.wr_id != 81 ||
	    wc.opcode != IB_WC_RECV_RDMA_WITH_IMM ||
	    !(wc.wc_flags & IB_WC_WITH_IMM) ||
	    wc.ex.imm_data != cpu_to_be32(0x12345678) || wc.byte_len != 2048) {
		fail(name, "recv wc: err %d status %d wr_id %llu opcode %d flags 0x%x imm 0x%x len %u",
		     err, wc.status, wc.wr_id, wc.opcode, wc.wc_flags,
		     be32_to_cpu(wc.ex.imm_data), wc.byte_len);
		return -EIO;
	}
	sync_for_cpu();
	return compare(name, b.buf2, a.buf, 2048);
}

/* One atomic on the first 8 bytes of b.buf2 (the MR's iova); the
 * original value lands in a.buf2. */
static int atomic_op(const char *name, struct ib_mr *mr,
		     enum ib_wr_opcode opcode, u64 before, u64 compare_add,
		     u64 swap, u64 after)
{
	struct ib_atomic_wr aw = {};
	int err;

	*(u64 *)b.buf2 = before;
	memset(a.buf2, 0xee, 8);
	sync_for_device();
	aw.wr.opcode = opcode;
	aw.wr.wr_id = 90;
	aw.wr.send_flags = IB_SEND_SIGNALED;
	aw.remote_addr = mr->iova;
	aw.rkey = mr->rkey;
	aw.compare_add = compare_add;
	aw.swap = swap;
	err = post_send(&a, &aw.wr, a.dma2, 8);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		return err;
	}
	if (expect_wc(name, a.cq, 90, opcode == IB_WR_ATOMIC_FETCH_AND_ADD ?
		      IB_WC_FETCH_ADD : IB_WC_COMP_SWAP, 0))
		return -EIO;
	sync_for_cpu();
	if (*(u64 *)a.buf2 != before || *(u64 *)b.buf2 != after) {
		fail(name, "old 0x%llx new 0x%llx, expected 0x%llx 0x%llx",
		     *(u64 *)a.buf2, *(u64 *)b.buf2, before, after);
		return -EIO;
	}
	return 0;
}

/* The FRWR region over b.buf2 that every case of the suite targets. */
static struct ib_mr *region(const char *name)
{
	return frwr_create(name, pd, b.qp, b.cq, b.dma2, BUF_SIZE, ALL_REMOTE);
}

static void dereg(struct ib_mr *mr)
{
	int err = ib_dereg_mr(mr);

	if (err)
		fail("ib_dereg_mr", "%d", err);
}

/* ib_alloc_mr, ib_map_mr_sg and IB_WR_REG_MR (util.c: frwr_create()). */
static void frwr_reg_mr(struct kunit *test)
{
	struct ib_mr *mr = region(test->name);

	if (!mr)
		return;
	KUNIT_EXPECT_EQ(test, mr->iova, b.dma2);
	KUNIT_EXPECT_EQ(test, mr->length, (u64)BUF_SIZE);
	KUNIT_EXPECT_NE(test, mr->rkey, 0u);
	dereg(mr);
}

/* One case per operation on a new region: <case>_case() runs _call.
 * (atomic_fetch_add is also the kernel's, hence the suffix.) */
#define RDMA_CASE(_fn, _call)					\
static void _fn##_case(struct kunit *test)			\
{								\
	const char *name = test->name;				\
	struct ib_mr *mr = region(name);			\
								\
	if (!mr)						\
		return;						\
	(void)(_call);						\
	dereg(mr);						\
}

RDMA_CASE(rdma_write, rdma_write_to(name, mr))
RDMA_CASE(rdma_read, rdma_read_from(name, mr))
RDMA_CASE(rdma_write_imm, rdma_write_imm_to(name, mr))
RDMA_CASE(atomic_fetch_add,
	  atomic_op(name, mr, IB_WR_ATOMIC_FETCH_AND_ADD, 1000, 23, 0, 1023))
/* A swap that happens, then one whose compare fails. */
RDMA_CASE(atomic_cmp_swap,
	  atomic_op(name, mr, IB_WR_ATOMIC_CMP_AND_SWP, 1023, 1023,
		    0x1122334455667788ull, 0x1122334455667788ull) ||
	  atomic_op(name, mr, IB_WR_ATOMIC_CMP_AND_SWP, 1023, 1024,
		    0x1122334455667788ull, 1023))

static struct kunit_case rdma_cases[] = {
	KUNIT_CASE(frwr_reg_mr),
	VERBS_CASE(rdma_write_case, "rdma_write"),
	VERBS_CASE(rdma_read_case, "rdma_read"),
	VERBS_CASE(rdma_write_imm_case, "rdma_write_imm"),
	VERBS_CASE(atomic_fetch_add_case, "atomic_fetch_add"),
	VERBS_CASE(atomic_cmp_swap_case, "atomic_cmp_swap"),
	{}
};

static struct kunit_suite rdma_suite = VERBS_SUITE(rdma, rdma_cases);
kunit_test_suite(rdma_suite);
