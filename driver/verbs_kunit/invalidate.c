// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * invalidate.c - the life of an FRWR key (IBA 10.6.4, 10.7.4.3): local
 * invalidation (IB_WR_LOCAL_INV), re-registration with the next key
 * variant (ib_inc_rkey + IB_WR_REG_MR), and remote invalidation
 * (IB_WR_SEND_WITH_INV: the receiver's completion has
 * IB_WC_WITH_INVALIDATE and the key).  After each, an RDMA WRITE with
 * the dead key is refused (IB_WC_REM_ACCESS_ERR) and one with the live
 * key lands.
 */
#include "verbs_kunit.h"

#define ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE)

/* RDMA WRITE of 512 bytes of a.buf to the region's start, from p->qa. */
static int write_with(const char *name, struct pair *p, struct ib_mr *mr,
		      u32 rkey, enum ib_wc_status status)
{
	struct ib_rdma_wr rw = {};
	int err;

	fill(a.buf, 512, (u8)rkey);
	memset(b.buf2, 0, BUF_SIZE);
	sync_for_device();
	rw.wr.opcode = IB_WR_RDMA_WRITE;
	rw.wr.wr_id = 100;
	rw.wr.send_flags = IB_SEND_SIGNALED;
	rw.remote_addr = mr->iova;
	rw.rkey = rkey;
	err = post_send_qp(p->qa, &rw.wr, a.dma, 512);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		return err;
	}
	if (status != IB_WC_SUCCESS)
		return expect_qp_error(name, p->cqa, p->qa, 100, status, 0);
	if (expect_wc(name, p->cqa, 100, IB_WC_RDMA_WRITE, 0))
		return -EIO;
	sync_for_cpu();
	return compare(name, b.buf2, a.buf, 512);
}

static int local_inv_post(const char *name, struct pair *p, u32 key)
{
	struct ib_send_wr wr = { .wr_id = 300, .opcode = IB_WR_LOCAL_INV,
				 .send_flags = IB_SEND_SIGNALED,
				 .ex.invalidate_rkey = key };
	const struct ib_send_wr *bad;
	int err;

	err = ib_post_send(p->qb, &wr, &bad);
	if (err) {
		fail(name, "ib_post_send(LOCAL_INV): %d", err);
		return err;
	}
	return expect_wc(name, p->cqb, 300, IB_WC_LOCAL_INV, 0);
}

/* SEND_WITH_INV of key from qa; the receive on qb reports it. */
static int send_with_inv_post(const char *name, struct pair *p, u32 key)
{
	struct ib_send_wr wr = { .wr_id = 400, .opcode = IB_WR_SEND_WITH_INV,
				 .send_flags = IB_SEND_SIGNALED,
				 .ex.invalidate_rkey = key };
	struct ib_wc wc;
	int err;

	fill(a.buf, 200, 0x5e);
	memset(b.buf, 0, BUF_SIZE);
	sync_for_device();
	if (post_recvs(name, p->qb, 401, 1, b.dma, BUF_SIZE))
		return -EIO;
	err = post_send_qp(p->qa, &wr, a.dma, 200);
	if (err) {
		fail(name, "ib_post_send(SEND_WITH_INV): %d", err);
		return err;
	}
	if (expect_wc(name, p->cqa, 400, IB_WC_SEND, 0))
		return -EIO;
	err = poll_one(p->cqb, &wc);
	if (err || wc.status != IB_WC_SUCCESS || wc.wr_id != 401 ||
	    wc.opcode != IB_WC_RECV || wc.byte_len != 200 ||
	    !(wc.wc_flags & IB_WC_WITH_INVALIDATE) ||
	    wc.ex.invalidate_rkey != key) {
		fail(name, "recv wc: err %d status %d wr_id %llu opcode %d len %u flags 0x%x rkey 0x%x (expected 0x%x)",
		     err, wc.status, wc.wr_id, wc.opcode, wc.byte_len,
		     wc.wc_flags, wc.ex.invalidate_rkey, key);
		return -EIO;
	}
	sync_for_cpu();
	return compare(name, b.buf, a.buf, 200);
}

/* A pair and a region over b.buf2 bound on its qb; false after fail(). */
static bool inv_setup(const char *name, struct pair *p, struct ib_mr **mr)
{
	if (pair_create(p, NULL))
		return false;
	*mr = frwr_create(name, pd, p->qb, p->cqb, b.dma2, BUF_SIZE, ACCESS);
	if (!*mr) {
		pair_destroy(p);
		return false;
	}
	return true;
}

static void inv_teardown(struct pair *p, struct ib_mr *mr)
{
	ib_dereg_mr(mr);
	pair_destroy(p);
}

/* A WRITE with the region's key lands; kill() invalidates the key; the
 * same WRITE is refused. */
static void kill_key(const char *name,
		     int (*kill)(const char *name, struct pair *p, u32 key))
{
	struct ib_mr *mr;
	struct pair p;

	if (!inv_setup(name, &p, &mr))
		return;
	if (!write_with(name, &p, mr, mr->rkey, IB_WC_SUCCESS) &&
	    !kill(name, &p, mr->rkey))
		write_with(name, &p, mr, mr->rkey, IB_WC_REM_ACCESS_ERR);
	inv_teardown(&p, mr);
}

static void local_inv(struct kunit *test)
{
	kill_key(test->name, local_inv_post);
}

/* LOCAL_INV, then REG_MR under the next key: the old key stays dead. */
static void rereg_mr(struct kunit *test)
{
	const char *name = test->name;
	struct ib_mr *mr;
	struct pair p;
	u32 old;

	if (!inv_setup(name, &p, &mr))
		return;
	old = mr->rkey;
	/* Only a Free region (invalidated) takes a new registration. */
	if (local_inv_post(name, &p, old) ||
	    frwr_rebind(name, mr, p.qb, p.cqb, ACCESS))
		goto out;
	if (mr->rkey == old || (mr->rkey & ~0xffu) != (old & ~0xffu)) {
		fail(name, "key 0x%x after 0x%x: not the next variant", mr->rkey, old);
		goto out;
	}
	if (!write_with(name, &p, mr, mr->rkey, IB_WC_SUCCESS))
		write_with(name, &p, mr, old, IB_WC_REM_ACCESS_ERR);
out:
	inv_teardown(&p, mr);
}

static void send_with_inv(struct kunit *test)
{
	kill_key(test->name, send_with_inv_post);
}

static struct kunit_case invalidate_cases[] = {
	KUNIT_CASE(local_inv),
	KUNIT_CASE(rereg_mr),
	KUNIT_CASE(send_with_inv),
	{}
};

static struct kunit_suite invalidate_suite =
	VERBS_SUITE(invalidate, invalidate_cases);
kunit_test_suite(invalidate_suite);
