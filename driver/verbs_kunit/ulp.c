// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ulp.c - verbs as the storage ULPs combine them on one QP, which the
 * other cases never did:
 * - ulp_frwr_remote_read: the initiator (qa) fast-registers a buffer with
 *   REG_MR and advertises it in a SEND on the same QP (nvme-rdma, iSER,
 *   the NFS client); the target (qb) RDMA READs from it and RDMA WRITEs
 *   into it, then answers with SEND_WITH_INV of the key.  The NFS client
 *   rewrites the upper 32 bits of mr->iova after ib_map_mr_sg (its XID),
 *   so the region must use the iova current when REG_MR is posted.
 *   REG_MR and LOCAL_INV use no PSN: the SENDs after them still arrive.
 * - ulp_zero_length_rdma: ib_srpt's first WR after connecting is a
 *   zero-length RDMA WRITE with no SGE, rkey 0 and address 0, and the
 *   responder must not check that key (IBA C9-88); same for a READ.
 * - ulp_modify_port_cap: ib_srpt sets IsDeviceManagementSupported with
 *   ib_modify_port so that srp_daemon finds it; ib_query_port shows it.
 * - ulp_frwr_first_entry_in_parts: one SG entry longer than an MR's page
 *   list (ib_srp with cmd_sg_entries=255 and 8 MiB commands): ib_map_mr_sg
 *   maps part of it and returns 0 with *sg_offset where it stopped; the ULP
 *   registers that part and maps the rest into the next MR from there.
 */
#include <rdma/ib_mad.h>

#include "verbs_kunit.h"

#define FR_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ | \
		   IB_ACCESS_REMOTE_WRITE)
#define XID_BITS 0x5a5a0000ull

/* qb posts a signaled RDMA READ or WRITE of len bytes at laddr. */
static int post_rdma_b(const char *name, struct pair *p, enum ib_wr_opcode op,
		       u64 raddr, u32 rkey, u64 laddr, u32 len, u64 wr_id)
{
	struct ib_rdma_wr rw = {};

	rw.wr.opcode = op;
	rw.wr.wr_id = wr_id;
	rw.wr.send_flags = IB_SEND_SIGNALED;
	rw.remote_addr = raddr;
	rw.rkey = rkey;
	if (post_send_qp(p->qb, &rw.wr, laddr, len)) {
		fail(name, "ib_post_send(%d)", op);
		return -EIO;
	}
	return 0;
}

/* The same, and its successful completion. */
static int rdma_from_b(const char *name, struct pair *p, enum ib_wr_opcode op,
		       u64 raddr, u32 rkey, u64 laddr, u32 len, u64 wr_id)
{
	if (post_rdma_b(name, p, op, raddr, rkey, laddr, len, wr_id))
		return -EIO;
	/* byte_len is defined for READ completions only (IBA 11.4.2.1). */
	if (op == IB_WR_RDMA_READ)
		return expect_wc(name, p->cqb, wr_id, IB_WC_RDMA_READ, len);
	return expect_wc(name, p->cqb, wr_id, IB_WC_RDMA_WRITE, 0);
}

/* qa: REG_MR of a.buf2 at an iova with the XID bits, then a SEND. */
static struct ib_mr *advertise(const char *name, struct pair *p)
{
	struct ib_reg_wr reg = {};
	struct ib_send_wr send = { .wr_id = 2, .opcode = IB_WR_SEND,
				   .send_flags = IB_SEND_SIGNALED };
	const struct ib_send_wr *bad;
	struct scatterlist sg;
	struct ib_mr *mr;

	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(mr)) {
		fail(name, "ib_alloc_mr: %ld", PTR_ERR(mr));
		return NULL;
	}
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = a.dma2;
	sg_dma_len(&sg) = BUF_SIZE;
	if (ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE) != 1) {
		fail(name, "ib_map_mr_sg");
		goto dereg;
	}
	mr->iova = (mr->iova & 0xffffffffull) | XID_BITS << 32;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_id = 1;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = FR_ACCESS;
	if (ib_post_send(p->qa, &reg.wr, &bad) ||
	    post_recv_qp(p->qb, 10, b.dma, BUF_SIZE) ||
	    post_send_qp(p->qa, &send, a.dma, 64)) {
		fail(name, "posting REG_MR, RECV, SEND");
		goto dereg;
	}
	if (expect_wc(name, p->cqa, 1, IB_WC_REG_MR, 0) ||
	    expect_wc(name, p->cqa, 2, IB_WC_SEND, 0) ||
	    expect_wc(name, p->cqb, 10, IB_WC_RECV, 64))
		goto dereg;
	return mr;
dereg:
	ib_dereg_mr(mr);
	return NULL;
}

/* qb answers with SEND_WITH_INV of rkey; qa's receive reports it. */
static int answer_with_inv(const char *name, struct pair *p, u32 rkey)
{
	struct ib_send_wr wr = { .wr_id = 20, .opcode = IB_WR_SEND_WITH_INV,
				 .send_flags = IB_SEND_SIGNALED,
				 .ex.invalidate_rkey = rkey };
	struct ib_wc wc;

	if (post_recv_qp(p->qa, 21, a.dma, BUF_SIZE) ||
	    post_send_qp(p->qb, &wr, b.dma, 16)) {
		fail(name, "posting SEND_WITH_INV");
		return -EIO;
	}
	if (expect_wc(name, p->cqb, 20, IB_WC_SEND, 0))
		return -EIO;
	if (poll_one(p->cqa, &wc) || wc.status != IB_WC_SUCCESS ||
	    wc.wr_id != 21 || !(wc.wc_flags & IB_WC_WITH_INVALIDATE) ||
	    wc.ex.invalidate_rkey != rkey) {
		fail(name, "qa's receive: status %d wr_id %llu flags 0x%x",
		     wc.status, wc.wr_id, wc.wc_flags);
		return -EIO;
	}
	return 0;
}

static void ulp_frwr_remote_read(struct kunit *test)
{
	const char *name = test->name;
	struct ib_send_wr send = { .wr_id = 30, .opcode = IB_WR_SEND,
				   .send_flags = IB_SEND_SIGNALED };
	struct ib_mr *mr;
	struct pair p;

	if (pair_create(&p, NULL)) {
		fail(name, "QP pair");
		return;
	}
	fill(a.buf2, BUF_SIZE, 0x3c);
	fill(b.buf2, BUF_SIZE, 0x77);
	sync_for_device();
	mr = advertise(name, &p);
	if (!mr)
		goto out;
	/* The target reads 1000 bytes at offset 96, writes 500 at 2048. */
	if (rdma_from_b(name, &p, IB_WR_RDMA_READ, mr->iova + 96, mr->rkey,
			b.dma, 1000, 11) ||
	    rdma_from_b(name, &p, IB_WR_RDMA_WRITE, mr->iova + 2048, mr->rkey,
			b.dma2, 500, 12))
		goto dereg;
	sync_for_cpu();
	if (compare(name, b.buf, a.buf2 + 96, 1000) ||
	    compare(name, a.buf2 + 2048, b.buf2, 500))
		goto dereg;
	if (answer_with_inv(name, &p, mr->rkey))
		goto dereg;
	/* The key is dead; qa's next SEND still has the expected PSN. */
	if (post_recv_qp(p.qb, 31, b.dma, BUF_SIZE) ||
	    post_send_qp(p.qa, &send, a.dma, 32) ||
	    expect_wc(name, p.cqa, 30, IB_WC_SEND, 0) ||
	    expect_wc(name, p.cqb, 31, IB_WC_RECV, 32))
		goto dereg;
	if (!post_rdma_b(name, &p, IB_WR_RDMA_READ, mr->iova, mr->rkey, b.dma,
			 8, 13))
		expect_status(name, p.cqb, 13, IB_WC_REM_ACCESS_ERR);
dereg:
	ib_dereg_mr(mr);
out:
	pair_destroy(&p);
}

/* ib_srpt's zero-length WRITE (no SGE, rkey 0, address 0), then a READ. */
#define PARTS_ORDER	2		/* a 4-page SG entry */
#define PARTS_BYTES	(PAGE_SIZE << PARTS_ORDER)

/* REG_MR of mr on qa with rkey + 1; its completion. */
static int register_on_a(const char *name, struct pair *p, struct ib_mr *mr)
{
	struct ib_reg_wr reg = {};
	const struct ib_send_wr *bad;

	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_id = 40;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = FR_ACCESS;
	if (ib_post_send(p->qa, &reg.wr, &bad)) {
		fail(name, "ib_post_send(REG_MR) of %u bytes", (u32)mr->length);
		return -EIO;
	}
	return expect_wc(name, p->cqa, 40, IB_WC_REG_MR, 0);
}

/* Map the SG entry from *offset into mr (3 pages), register it, READ it. */
static int map_part(const char *name, struct pair *p, struct ib_mr *mr,
		    struct scatterlist *sg, unsigned int *offset, int expect_n,
		    const u8 *data)
{
	unsigned int from = *offset;
	int n = ib_map_mr_sg(mr, sg, 1, offset, PAGE_SIZE);

	if (n != expect_n || mr->length != 2 * PAGE_SIZE ||
	    mr->iova != sg_dma_address(sg) + from) {
		fail(name, "ib_map_mr_sg from %u: %d (want %d), length %llu, "
		     "offset %u", from, n, expect_n, mr->length, *offset);
		return -EIO;
	}
	if (register_on_a(name, p, mr) ||
	    rdma_from_b(name, p, IB_WR_RDMA_READ, mr->iova, mr->rkey, b.dma2,
			BUF_SIZE, 41))
		return -EIO;
	sync_for_cpu();
	return compare(name, b.buf2, data + from, BUF_SIZE);
}

static void ulp_frwr_first_entry_in_parts(struct kunit *test)
{
	const char *name = test->name;
	struct ib_mr *mr1 = NULL, *mr2 = NULL;
	unsigned int offset = 0;
	struct scatterlist sg;
	struct pair p;
	u8 *data;
	u64 dma;

	data = (u8 *)__get_free_pages(GFP_KERNEL, PARTS_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, data);
	fill(data, PARTS_BYTES, 0x2b);
	dma = ib_dma_map_single(ibdev, data, PARTS_BYTES, DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_FALSE(test, ib_dma_mapping_error(ibdev, dma));
	if (pair_create(&p, NULL)) {
		fail(name, "QP pair");
		goto unmap;
	}
	/* Three pages per MR: ib_sg_to_pages keeps the last page it set out
	 * of the length, so each MR covers two pages of the entry. */
	mr1 = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 3);
	mr2 = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 3);
	if (IS_ERR(mr1) || IS_ERR(mr2)) {
		fail(name, "ib_alloc_mr");
		goto out;
	}
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = dma;
	sg_dma_len(&sg) = PARTS_BYTES;
	/* The first half: 0 entries mapped whole, offset two pages in. */
	if (map_part(name, &p, mr1, &sg, &offset, 0, data))
		goto out;
	KUNIT_EXPECT_EQ(test, offset, 2 * PAGE_SIZE);
	/* The second half from there: the entry is done. */
	if (map_part(name, &p, mr2, &sg, &offset, 1, data))
		goto out;
	/* Past the first MR's length: not its memory. */
	if (!post_rdma_b(name, &p, IB_WR_RDMA_READ, mr1->iova + 2 * PAGE_SIZE,
			 mr1->rkey, b.dma2, 8, 42))
		expect_status(name, p.cqb, 42, IB_WC_REM_ACCESS_ERR);
out:
	if (!IS_ERR_OR_NULL(mr1))
		ib_dereg_mr(mr1);
	if (!IS_ERR_OR_NULL(mr2))
		ib_dereg_mr(mr2);
	pair_destroy(&p);
unmap:
	ib_dma_unmap_single(ibdev, dma, PARTS_BYTES, DMA_BIDIRECTIONAL);
	free_pages((unsigned long)data, PARTS_ORDER);
}

static void ulp_zero_length_rdma(struct kunit *test)
{
	const char *name = test->name;
	struct ib_rdma_wr rw = {};
	const struct ib_send_wr *bad;
	struct ib_send_wr send = { .wr_id = 3, .opcode = IB_WR_SEND,
				   .send_flags = IB_SEND_SIGNALED };
	struct pair p;
	int err;

	if (pair_create(&p, NULL)) {
		fail(name, "QP pair");
		return;
	}
	rw.wr.opcode = IB_WR_RDMA_WRITE;
	rw.wr.wr_id = 1;
	rw.wr.send_flags = IB_SEND_SIGNALED;
	err = ib_post_send(p.qb, &rw.wr, &bad);
	if (!err && !expect_wc(name, p.cqb, 1, IB_WC_RDMA_WRITE, 0)) {
		rw.wr.opcode = IB_WR_RDMA_READ;
		rw.wr.wr_id = 2;
		rw.rkey = 0xdead00;
		rw.remote_addr = 0xfff0000000000000ull;
		err = ib_post_send(p.qb, &rw.wr, &bad);
		if (!err && !expect_wc(name, p.cqb, 2, IB_WC_RDMA_READ, 0) &&
		    !post_recv_qp(p.qa, 4, a.dma, BUF_SIZE) &&
		    !post_send_qp(p.qb, &send, b.dma, 16) &&
		    !expect_wc(name, p.cqb, 3, IB_WC_SEND, 0))
			expect_wc(name, p.cqa, 4, IB_WC_RECV, 16);
	}
	if (err)
		fail(name, "ib_post_send: %d", err);
	pair_destroy(&p);
}

/* IsDeviceManagementSupported set and cleared through ib_modify_port; a
 * bit that describes the port itself (IsAutomaticMigrationSupported) is
 * the device's, not software's (uapi VHCA_PORT_CAP_SETTABLE). */
static void ulp_modify_port_cap(struct kunit *test)
{
	const char *name = test->name;
	struct ib_port_modify set = {
		.set_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP };
	struct ib_port_modify clr = {
		.clr_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP };
	struct ib_port_modify bad = { .set_port_cap_mask = IB_PORT_AUTO_MIGR_SUP };
	struct ib_port_attr attr;
	int err;

	err = ib_modify_port(ibdev, b.port, 0, &set);
	if (!err)
		err = ib_query_port(ibdev, b.port, &attr);
	if (err || !(attr.port_cap_flags & IB_PORT_DEVICE_MGMT_SUP) ||
	    !(attr.port_cap_flags & IB_PORT_CM_SUP)) {
		fail(name, "set: err %d cap 0x%x", err, attr.port_cap_flags);
		return;
	}
	err = ib_modify_port(ibdev, b.port, 0, &clr);
	if (!err)
		err = ib_query_port(ibdev, b.port, &attr);
	if (err || (attr.port_cap_flags & IB_PORT_DEVICE_MGMT_SUP)) {
		fail(name, "clear: err %d cap 0x%x", err, attr.port_cap_flags);
		return;
	}
	err = ib_modify_port(ibdev, b.port, 0, &bad);
	if (err != -EINVAL)
		fail(name, "setting IsAutomaticMigrationSupported: %d, expected -EINVAL",
		     err);
}

static struct kunit_case ulp_cases[] = {
	KUNIT_CASE(ulp_frwr_remote_read),
	KUNIT_CASE(ulp_zero_length_rdma),
	KUNIT_CASE(ulp_modify_port_cap),
	KUNIT_CASE(ulp_frwr_first_entry_in_parts),
	{}
};

static struct kunit_suite ulp_suite = VERBS_SUITE(ulp, ulp_cases);
kunit_test_suite(ulp_suite);
