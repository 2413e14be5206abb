// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * vhca_verbs_test.ko - kernel verbs smoke test of a vhca device (loaded
 * after `vhca.ko verbs=1`, see selftests/verbs/kverbs.py and
 * `make check-verbs`).  Uses only ib_core's kernel verbs API, as a ULP
 * would: one PD, an RC QP on port 1 connected to an RC QP on port 2 of
 * the same device, memory addressed with the PD's local_dma_lkey, and a
 * fast-registration region (IB_WR_REG_MR) for the remote side of RDMA.
 *
 * Runs at module load and prints one line per case:
 *   vhca_verbs_test: PASS <case>      or    vhca_verbs_test: FAIL <case>: why
 * and at the end
 *   vhca_verbs_test: done pass=N fail=M
 * The module stays loaded (rmmod it afterwards); init always returns 0 so
 * the log is the verdict.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

static char *device = "vhca0";
module_param(device, charp, 0444);
MODULE_PARM_DESC(device, "ib_device to test (two ports, both ACTIVE)");

#define TAG "vhca_verbs_test: "
#define BUF_SIZE PAGE_SIZE
#define MSG_LEN 1000
#define POLL_MS 5000

struct side {
	u32 port;
	u16 lid;
	enum ib_mtu mtu;
	struct ib_cq *cq;	/* send and receive */
	struct ib_qp *qp;
	void *buf;		/* one page each: send/recv, rdma target */
	u64 dma;
	void *buf2;
	u64 dma2;
};

static struct ib_device *ibdev;
static struct ib_pd *pd;
static struct side a = { .port = 1 }, b = { .port = 2 };
static int passed, failed;
static struct completion cq_event;
static atomic_t cq_events;

#define pass(name) do { passed++; pr_info(TAG "PASS %s\n", name); } while (0)
#define fail(name, fmt, ...) do { failed++; \
	pr_err(TAG "FAIL %s: " fmt "\n", name, ##__VA_ARGS__); } while (0)

static void comp_handler(struct ib_cq *cq, void *ctx)
{
	atomic_inc(&cq_events);
	complete(&cq_event);
}

/* Polls cq for one completion (POLL_MS at most). */
static int poll_one(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(POLL_MS);
	int n;

	do {
		n = ib_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? n : 0;
		usleep_range(100, 200);
	} while (time_before(jiffies, end));
	return -ETIMEDOUT;
}

static int expect_wc(const char *name, struct ib_cq *cq, u64 wr_id,
		     enum ib_wc_opcode opcode, u32 byte_len)
{
	struct ib_wc wc;
	int err = poll_one(cq, &wc);

	if (err) {
		fail(name, "no completion for wr_id %llu: %d", wr_id, err);
		return -EIO;
	}
	if (wc.status != IB_WC_SUCCESS) {
		fail(name, "wr_id %llu: status %d (%s) vendor_err %u", wc.wr_id,
		     wc.status, ib_wc_status_msg(wc.status), wc.vendor_err);
		return -EIO;
	}
	if (wc.wr_id != wr_id || wc.opcode != opcode ||
	    (byte_len && wc.byte_len != byte_len)) {
		fail(name, "wc wr_id %llu opcode %d byte_len %u, expected %llu %d %u",
		     wc.wr_id, wc.opcode, wc.byte_len, wr_id, opcode, byte_len);
		return -EIO;
	}
	return 0;
}

static int setup_side(struct side *s)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 64 };
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_port_attr pattr;
	int err, tries;

	for (tries = 0; tries < 100; tries++) {
		err = ib_query_port(ibdev, s->port, &pattr);
		if (err)
			return err;
		if (pattr.state == IB_PORT_ACTIVE && pattr.lid)
			break;
		msleep(100);
	}
	if (pattr.state != IB_PORT_ACTIVE) {
		pr_err(TAG "port %u not ACTIVE (%d)\n", s->port, pattr.state);
		return -ENETDOWN;
	}
	s->lid = pattr.lid;
	s->mtu = pattr.active_mtu;

	s->cq = ib_create_cq(ibdev, comp_handler, NULL, s, &cq_attr);
	if (IS_ERR(s->cq)) {
		err = PTR_ERR(s->cq);
		s->cq = NULL;
		return err;
	}
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = ib_create_qp(pd, &init);
	if (IS_ERR(s->qp)) {
		err = PTR_ERR(s->qp);
		s->qp = NULL;
		return err;
	}
	s->buf = (void *)__get_free_page(GFP_KERNEL | __GFP_ZERO);
	s->buf2 = (void *)__get_free_page(GFP_KERNEL | __GFP_ZERO);
	if (!s->buf || !s->buf2)
		return -ENOMEM;
	s->dma = ib_dma_map_single(ibdev, s->buf, BUF_SIZE, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, s->dma)) {
		s->dma = 0;
		return -ENOMEM;
	}
	s->dma2 = ib_dma_map_single(ibdev, s->buf2, BUF_SIZE, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, s->dma2)) {
		s->dma2 = 0;
		return -ENOMEM;
	}
	pr_info(TAG "port %u: lid %u mtu %d qpn %u\n", s->port, s->lid,
		ib_mtu_enum_to_int(s->mtu), s->qp->qp_num);
	return 0;
}

static void teardown_side(struct side *s)
{
	if (s->qp)
		ib_destroy_qp(s->qp);
	if (s->cq)
		ib_destroy_cq(s->cq);
	if (s->dma)
		ib_dma_unmap_single(ibdev, s->dma, BUF_SIZE, DMA_BIDIRECTIONAL);
	if (s->dma2)
		ib_dma_unmap_single(ibdev, s->dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	free_page((unsigned long)s->buf);
	free_page((unsigned long)s->buf2);
}

/* RESET -> INIT -> RTR -> RTS towards peer. */
static int connect_qp(struct side *s, struct side *peer)
{
	struct ib_qp_attr attr = {};
	int err;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = s->port;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			       IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
	err = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err) {
		pr_err(TAG "qp %u -> INIT: %d\n", s->qp->qp_num, err);
		return err;
	}

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = min(s->mtu, peer->mtu);
	attr.dest_qp_num = peer->qp->qp_num;
	attr.rq_psn = 0x1000 + peer->port;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&attr.ah_attr, peer->lid);
	rdma_ah_set_sl(&attr.ah_attr, 0);
	rdma_ah_set_port_num(&attr.ah_attr, s->port);
	err = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err) {
		pr_err(TAG "qp %u -> RTR: %d\n", s->qp->qp_num, err);
		return err;
	}

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = 0x1000 + s->port;
	attr.max_rd_atomic = 1;
	err = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			   IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			   IB_QP_MAX_QP_RD_ATOMIC);
	if (err) {
		pr_err(TAG "qp %u -> RTS: %d\n", s->qp->qp_num, err);
		return err;
	}
	return 0;
}

static void fill(void *buf, size_t len, u8 seed)
{
	u8 *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 7 + (i >> 8));
}

static int compare(const char *name, const void *got, const void *want,
		   size_t len)
{
	const u8 *g = got, *w = want;
	size_t i;

	for (i = 0; i < len; i++) {
		if (g[i] != w[i]) {
			fail(name, "byte %zu: 0x%02x, expected 0x%02x", i, g[i], w[i]);
			return -EIO;
		}
	}
	return 0;
}

static int post_recv(struct side *s, u64 wr_id, u64 addr, u32 len)
{
	struct ib_sge sge = { .addr = addr, .length = len,
			      .lkey = pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;

	return ib_post_recv(s->qp, &wr, &bad);
}

static int post_send(struct side *s, struct ib_send_wr *wr, u64 addr, u32 len)
{
	struct ib_sge sge = { .addr = addr, .length = len,
			      .lkey = pd->local_dma_lkey };
	const struct ib_send_wr *bad;

	wr->sg_list = &sge;
	wr->num_sge = 1;
	return ib_post_send(s->qp, wr, &bad);
}

/* SEND a -> b, RECV on b; the receive CQ is armed first and must raise
 * a completion event. */
static void test_send_recv(void)
{
	const char *name = "send_recv";
	struct ib_send_wr wr = { .wr_id = 11, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	int err;

	fill(a.buf, MSG_LEN, 0x31);
	memset(b.buf, 0, BUF_SIZE);
	ib_dma_sync_single_for_device(ibdev, a.dma, BUF_SIZE, DMA_BIDIRECTIONAL);
	ib_dma_sync_single_for_device(ibdev, b.dma, BUF_SIZE, DMA_BIDIRECTIONAL);

	err = post_recv(&b, 21, b.dma, BUF_SIZE);
	if (err) {
		fail(name, "ib_post_recv: %d", err);
		return;
	}
	reinit_completion(&cq_event);
	atomic_set(&cq_events, 0);
	err = ib_req_notify_cq(b.cq, IB_CQ_NEXT_COMP);
	if (err < 0) {
		fail(name, "ib_req_notify_cq: %d", err);
		return;
	}
	err = post_send(&a, &wr, a.dma, MSG_LEN);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		return;
	}
	if (expect_wc(name, a.cq, 11, IB_WC_SEND, 0))
		return;
	if (!wait_for_completion_timeout(&cq_event, msecs_to_jiffies(POLL_MS))) {
		fail(name, "no completion event on the armed receive CQ");
		return;
	}
	if (expect_wc(name, b.cq, 21, IB_WC_RECV, MSG_LEN))
		return;
	ib_dma_sync_single_for_cpu(ibdev, b.dma, BUF_SIZE, DMA_BIDIRECTIONAL);
	if (compare(name, b.buf, a.buf, MSG_LEN))
		return;
	pass(name);
}

/* Several SENDs in one post call (one doorbell), unsignaled but the last,
 * both directions. */
static void test_send_batch(void)
{
	const char *name = "send_batch";
	struct ib_sge sge[4];
	struct ib_send_wr wr[4] = {};
	const struct ib_send_wr *bad;
	int i, err;

	fill(b.buf, BUF_SIZE, 0x52);
	memset(a.buf, 0, BUF_SIZE);
	ib_dma_sync_single_for_device(ibdev, a.dma, BUF_SIZE, DMA_BIDIRECTIONAL);
	ib_dma_sync_single_for_device(ibdev, b.dma, BUF_SIZE, DMA_BIDIRECTIONAL);
	for (i = 0; i < 4; i++) {
		err = post_recv(&a, 40 + i, a.dma + i * 1024, 1024);
		if (err) {
			fail(name, "ib_post_recv %d: %d", i, err);
			return;
		}
	}
	for (i = 0; i < 4; i++) {
		sge[i].addr = b.dma + i * 1024;
		sge[i].length = 1024 - i;
		sge[i].lkey = pd->local_dma_lkey;
		wr[i].wr_id = 30 + i;
		wr[i].opcode = IB_WR_SEND;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i < 3 ? &wr[i + 1] : NULL;
	}
	wr[3].send_flags = IB_SEND_SIGNALED;
	err = ib_post_send(b.qp, wr, &bad);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		return;
	}
	if (expect_wc(name, b.cq, 33, IB_WC_SEND, 0))
		return;
	for (i = 0; i < 4; i++)
		if (expect_wc(name, a.cq, 40 + i, IB_WC_RECV, 1024 - i))
			return;
	ib_dma_sync_single_for_cpu(ibdev, a.dma, BUF_SIZE, DMA_BIDIRECTIONAL);
	for (i = 0; i < 4; i++)
		if (compare(name, a.buf + i * 1024, b.buf + i * 1024, 1024 - i))
			return;
	pass(name);
}

/* FRWR region over b.buf2 (REG_MR on b), then RDMA WRITE and READ from a. */
static void test_rdma(void)
{
	const char *name = "frwr_reg_mr";
	struct scatterlist sg;
	struct ib_mr *mr;
	struct ib_reg_wr reg = {};
	struct ib_rdma_wr rw = {};
	const struct ib_send_wr *bad;
	int n, err;

	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(mr)) {
		fail(name, "ib_alloc_mr: %ld", PTR_ERR(mr));
		return;
	}
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = b.dma2;
	sg_dma_len(&sg) = BUF_SIZE;
	n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	if (n != 1) {
		fail(name, "ib_map_mr_sg: %d", n);
		goto out;
	}
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_id = 50;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		     IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
	err = ib_post_send(b.qp, &reg.wr, &bad);
	if (err) {
		fail(name, "ib_post_send(REG_MR): %d", err);
		goto out;
	}
	if (expect_wc(name, b.cq, 50, IB_WC_REG_MR, 0))
		goto out;
	pass(name);

	/* RDMA WRITE a.buf -> b.buf2 at offset 100. */
	name = "rdma_write";
	fill(a.buf, BUF_SIZE, 0x77);
	memset(b.buf2, 0, BUF_SIZE);
	ib_dma_sync_single_for_device(ibdev, a.dma, BUF_SIZE, DMA_BIDIRECTIONAL);
	ib_dma_sync_single_for_device(ibdev, b.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	rw.wr.opcode = IB_WR_RDMA_WRITE;
	rw.wr.wr_id = 60;
	rw.wr.send_flags = IB_SEND_SIGNALED;
	rw.remote_addr = mr->iova + 100;
	rw.rkey = mr->rkey;
	err = post_send(&a, &rw.wr, a.dma, 3000);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		goto out;
	}
	if (expect_wc(name, a.cq, 60, IB_WC_RDMA_WRITE, 0))
		goto out;
	ib_dma_sync_single_for_cpu(ibdev, b.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	if (compare(name, b.buf2 + 100, a.buf, 3000))
		goto out;
	if (memchr_inv(b.buf2, 0, 100) || memchr_inv(b.buf2 + 3100, 0, BUF_SIZE - 3100)) {
		fail(name, "bytes outside the written range changed");
		goto out;
	}
	pass(name);

	/* RDMA READ b.buf2 -> a.buf2. */
	name = "rdma_read";
	fill(b.buf2, BUF_SIZE, 0x99);
	memset(a.buf2, 0, BUF_SIZE);
	ib_dma_sync_single_for_device(ibdev, b.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	ib_dma_sync_single_for_device(ibdev, a.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	memset(&rw, 0, sizeof(rw));
	rw.wr.opcode = IB_WR_RDMA_READ;
	rw.wr.wr_id = 70;
	rw.wr.send_flags = IB_SEND_SIGNALED;
	rw.remote_addr = mr->iova;
	rw.rkey = mr->rkey;
	err = post_send(&a, &rw.wr, a.dma2, BUF_SIZE);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		goto out;
	}
	if (expect_wc(name, a.cq, 70, IB_WC_RDMA_READ, BUF_SIZE))
		goto out;
	ib_dma_sync_single_for_cpu(ibdev, a.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	if (compare(name, a.buf2, b.buf2, BUF_SIZE))
		goto out;
	pass(name);

	/* RDMA WRITE with immediate: consumes a receive on b. */
	name = "rdma_write_imm";
	fill(a.buf, BUF_SIZE, 0x13);
	memset(b.buf2, 0, BUF_SIZE);
	ib_dma_sync_single_for_device(ibdev, a.dma, BUF_SIZE, DMA_BIDIRECTIONAL);
	ib_dma_sync_single_for_device(ibdev, b.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	err = post_recv(&b, 81, b.dma, 16);
	if (err) {
		fail(name, "ib_post_recv: %d", err);
		goto out;
	}
	memset(&rw, 0, sizeof(rw));
	rw.wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
	rw.wr.wr_id = 80;
	rw.wr.send_flags = IB_SEND_SIGNALED;
	rw.wr.ex.imm_data = cpu_to_be32(0x12345678);
	rw.remote_addr = mr->iova;
	rw.rkey = mr->rkey;
	err = post_send(&a, &rw.wr, a.dma, 2048);
	if (err) {
		fail(name, "ib_post_send: %d", err);
		goto out;
	}
	if (expect_wc(name, a.cq, 80, IB_WC_RDMA_WRITE, 0))
		goto out;
	{
		struct ib_wc wc;

		err = poll_one(b.cq, &wc);
		if (err || wc.status != IB_WC_SUCCESS || wc.wr_id != 81 ||
		    wc.opcode != IB_WC_RECV_RDMA_WITH_IMM ||
		    !(wc.wc_flags & IB_WC_WITH_IMM) ||
		    wc.ex.imm_data != cpu_to_be32(0x12345678) ||
		    wc.byte_len != 2048) {
			fail(name, "recv wc: err %d status %d wr_id %llu opcode %d flags 0x%x imm 0x%x len %u",
			     err, wc.status, wc.wr_id, wc.opcode, wc.wc_flags,
			     be32_to_cpu(wc.ex.imm_data), wc.byte_len);
			goto out;
		}
	}
	ib_dma_sync_single_for_cpu(ibdev, b.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	if (compare(name, b.buf2, a.buf, 2048))
		goto out;
	pass(name);

	/* Atomics on the first 8 bytes of b.buf2 (not advertised yet:
	 * atomic_cap is IB_ATOMIC_NONE; this checks the device anyway). */
	name = "atomic_fetch_add";
	*(u64 *)b.buf2 = 1000;
	ib_dma_sync_single_for_device(ibdev, b.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	memset(a.buf2, 0xee, 8);
	ib_dma_sync_single_for_device(ibdev, a.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
	{
		struct ib_atomic_wr aw = {};

		aw.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
		aw.wr.wr_id = 90;
		aw.wr.send_flags = IB_SEND_SIGNALED;
		aw.remote_addr = mr->iova;
		aw.rkey = mr->rkey;
		aw.compare_add = 23;
		err = post_send(&a, &aw.wr, a.dma2, 8);
		if (err) {
			fail(name, "ib_post_send: %d", err);
			goto out;
		}
		if (expect_wc(name, a.cq, 90, IB_WC_FETCH_ADD, 0))
			goto out;
		ib_dma_sync_single_for_cpu(ibdev, a.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
		ib_dma_sync_single_for_cpu(ibdev, b.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
		if (*(u64 *)a.buf2 != 1000 || *(u64 *)b.buf2 != 1023) {
			fail(name, "old %llu new %llu, expected 1000 1023",
			     *(u64 *)a.buf2, *(u64 *)b.buf2);
			goto out;
		}
		pass(name);

		name = "atomic_cmp_swap";
		memset(&aw, 0, sizeof(aw));
		aw.wr.opcode = IB_WR_ATOMIC_CMP_AND_SWP;
		aw.wr.wr_id = 91;
		aw.wr.send_flags = IB_SEND_SIGNALED;
		aw.remote_addr = mr->iova;
		aw.rkey = mr->rkey;
		aw.compare_add = 1023;
		aw.swap = 0x1122334455667788ull;
		err = post_send(&a, &aw.wr, a.dma2, 8);
		if (err) {
			fail(name, "ib_post_send: %d", err);
			goto out;
		}
		if (expect_wc(name, a.cq, 91, IB_WC_COMP_SWAP, 0))
			goto out;
		ib_dma_sync_single_for_cpu(ibdev, a.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
		ib_dma_sync_single_for_cpu(ibdev, b.dma2, BUF_SIZE, DMA_BIDIRECTIONAL);
		if (*(u64 *)a.buf2 != 1023 ||
		    *(u64 *)b.buf2 != 0x1122334455667788ull) {
			fail(name, "old %llu new 0x%llx", *(u64 *)a.buf2,
			     *(u64 *)b.buf2);
			goto out;
		}
		pass(name);
	}
out:
	err = ib_dereg_mr(mr);
	if (err)
		fail("dereg_mr", "%d", err);
}

/* UD between the ports: an AH, SEND_WITH_IMM into a QP whose receives
 * come from an SRQ; then the same to a multicast group it joined. */
#define UD_QKEY 0x11111111
#define GRH_LEN 40

static int ud_qp_up(struct ib_qp *qp, u32 port)
{
	struct ib_qp_attr attr = {};
	int err;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = port;
	attr.qkey = UD_QKEY;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

static int ud_send(const char *name, struct ib_qp *src, struct ib_cq *scq,
		   struct ib_srq *srq, struct ib_cq *rcq, struct ib_ah *ah,
		   u32 remote_qpn, u64 wr_id, bool grh)
{
	struct ib_sge rsge = { .addr = b.dma, .length = BUF_SIZE,
			       .lkey = pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .wr_id = wr_id + 1, .sg_list = &rsge,
				  .num_sge = 1 };
	const struct ib_recv_wr *rbad;
	struct ib_ud_wr uw = {};
	struct ib_wc wc;
	int err;

	fill(a.buf, 256, (u8)wr_id);
	memset(b.buf, 0, BUF_SIZE);
	ib_dma_sync_single_for_device(ibdev, a.dma, BUF_SIZE, DMA_BIDIRECTIONAL);
	ib_dma_sync_single_for_device(ibdev, b.dma, BUF_SIZE, DMA_BIDIRECTIONAL);
	err = ib_post_srq_recv(srq, &rwr, &rbad);
	if (err) {
		fail(name, "ib_post_srq_recv: %d", err);
		return err;
	}
	uw.wr.opcode = IB_WR_SEND_WITH_IMM;
	uw.wr.wr_id = wr_id;
	uw.wr.send_flags = IB_SEND_SIGNALED;
	uw.wr.ex.imm_data = cpu_to_be32(0xcafe0000 | (u32)wr_id);
	uw.ah = ah;
	uw.remote_qpn = remote_qpn;
	uw.remote_qkey = UD_QKEY;
	{
		struct ib_sge sge = { .addr = a.dma, .length = 256,
				      .lkey = pd->local_dma_lkey };
		const struct ib_send_wr *bad;

		uw.wr.sg_list = &sge;
		uw.wr.num_sge = 1;
		err = ib_post_send(src, &uw.wr, &bad);
	}
	if (err) {
		fail(name, "ib_post_send: %d", err);
		return err;
	}
	if (expect_wc(name, scq, wr_id, IB_WC_SEND, 0))
		return -EIO;
	err = poll_one(rcq, &wc);
	if (err || wc.status != IB_WC_SUCCESS || wc.wr_id != wr_id + 1 ||
	    wc.opcode != IB_WC_RECV || wc.byte_len != 256 + GRH_LEN ||
	    wc.src_qp != src->qp_num || wc.slid != a.lid ||
	    !(wc.wc_flags & IB_WC_WITH_IMM) ||
	    wc.ex.imm_data != cpu_to_be32(0xcafe0000 | (u32)wr_id) ||
	    !!(wc.wc_flags & IB_WC_GRH) != grh) {
		fail(name, "recv wc: err %d status %d wr_id %llu opcode %d len %u src_qp %u slid %u flags 0x%x",
		     err, wc.status, wc.wr_id, wc.opcode, wc.byte_len,
		     wc.src_qp, wc.slid, wc.wc_flags);
		return -EIO;
	}
	ib_dma_sync_single_for_cpu(ibdev, b.dma, BUF_SIZE, DMA_BIDIRECTIONAL);
	return compare(name, b.buf + GRH_LEN, a.buf, 256);
}

static struct completion srq_limit_event;

static void srq_event(struct ib_event *event, void *ctx)
{
	if (event->event == IB_EVENT_SRQ_LIMIT_REACHED)
		complete(&srq_limit_event);
}

static void test_ud_srq(void)
{
	const char *name = "ud_srq_ah";
	struct ib_cq_init_attr cq_attr = { .cqe = 16 };
	struct ib_srq_init_attr srq_init = {
		.srq_type = IB_SRQT_BASIC,
		.event_handler = srq_event,
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_ah_attr ah_attr = {};
	struct ib_srq_attr sattr = {};
	struct ib_cq *cq = NULL, *cq2 = NULL;
	struct ib_srq *srq = NULL;
	struct ib_qp *qa = NULL, *qb = NULL;
	struct ib_ah *ah = NULL, *mah = NULL;
	union ib_gid mgid = { .raw = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
				       0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef } };
	const u16 mlid = 0xc077;
	bool attached = false;
	int err;

	cq = ib_create_cq(ibdev, NULL, NULL, NULL, &cq_attr);
	if (IS_ERR(cq)) {
		fail(name, "ib_create_cq: %ld", PTR_ERR(cq));
		cq = NULL;
		goto out;
	}
	cq2 = ib_create_cq(ibdev, NULL, NULL, NULL, &cq_attr);
	if (IS_ERR(cq2)) {
		fail(name, "ib_create_cq: %ld", PTR_ERR(cq2));
		cq2 = NULL;
		goto out;
	}
	srq = ib_create_srq(pd, &srq_init);
	if (IS_ERR(srq)) {
		fail(name, "ib_create_srq: %ld", PTR_ERR(srq));
		srq = NULL;
		goto out;
	}
	init.send_cq = cq;
	init.recv_cq = cq;
	qa = ib_create_qp(pd, &init);
	if (IS_ERR(qa)) {
		fail(name, "ib_create_qp(UD): %ld", PTR_ERR(qa));
		qa = NULL;
		goto out;
	}
	init.srq = srq;
	init.send_cq = cq2;
	init.recv_cq = cq2;
	init.cap.max_recv_wr = 0;
	init.cap.max_recv_sge = 0;
	qb = ib_create_qp(pd, &init);
	if (IS_ERR(qb)) {
		fail(name, "ib_create_qp(UD, SRQ): %ld", PTR_ERR(qb));
		qb = NULL;
		goto out;
	}
	err = ud_qp_up(qa, a.port);
	if (!err)
		err = ud_qp_up(qb, b.port);
	if (err) {
		fail(name, "UD QP to RTS: %d", err);
		goto out;
	}
	ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&ah_attr, b.lid);
	rdma_ah_set_port_num(&ah_attr, a.port);
	ah = rdma_create_ah(pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		fail(name, "rdma_create_ah: %ld", PTR_ERR(ah));
		ah = NULL;
		goto out;
	}
	if (ud_send(name, qa, cq, srq, cq2, ah, qb->qp_num, 100, false))
		goto out;
	pass(name);

	name = "ud_multicast";
	err = ib_attach_mcast(qb, &mgid, mlid);
	if (err) {
		fail(name, "ib_attach_mcast: %d", err);
		goto out;
	}
	attached = true;
	memset(&ah_attr, 0, sizeof(ah_attr));
	ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&ah_attr, mlid);
	rdma_ah_set_port_num(&ah_attr, a.port);
	rdma_ah_set_grh(&ah_attr, &mgid, 0, 0, 1, 0);
	mah = rdma_create_ah(pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(mah)) {
		fail(name, "rdma_create_ah(mcast): %ld", PTR_ERR(mah));
		mah = NULL;
		goto out;
	}
	if (ud_send(name, qa, cq, srq, cq2, mah, 0xffffff, 110, true))
		goto out;
	pass(name);

	/* The SRQ is empty now: arming a limit fires LIMIT_REACHED at once
	 * and disarms it (IBA 11.2.3.2); with 8 WQEs posted it stays armed. */
	name = "srq_limit";
	init_completion(&srq_limit_event);
	sattr.srq_limit = 4;
	err = ib_modify_srq(srq, &sattr, IB_SRQ_LIMIT);
	if (err) {
		fail(name, "ib_modify_srq: %d", err);
		goto out;
	}
	if (!wait_for_completion_timeout(&srq_limit_event,
					 msecs_to_jiffies(POLL_MS))) {
		fail(name, "no IB_EVENT_SRQ_LIMIT_REACHED");
		goto out;
	}
	memset(&sattr, 0, sizeof(sattr));
	err = ib_query_srq(srq, &sattr);
	if (err || sattr.srq_limit != 0 || sattr.max_wr < 16) {
		fail(name, "after the event: err %d limit %u max_wr %u", err,
		     sattr.srq_limit, sattr.max_wr);
		goto out;
	}
	{
		struct ib_sge sge = { .addr = b.dma2, .length = 64,
				      .lkey = pd->local_dma_lkey };
		struct ib_recv_wr rwr[8] = {};
		const struct ib_recv_wr *rbad;
		int i;

		for (i = 0; i < 8; i++) {
			rwr[i].wr_id = 200 + i;
			rwr[i].sg_list = &sge;
			rwr[i].num_sge = 1;
			rwr[i].next = i < 7 ? &rwr[i + 1] : NULL;
		}
		err = ib_post_srq_recv(srq, rwr, &rbad);
		if (err) {
			fail(name, "ib_post_srq_recv x8: %d", err);
			goto out;
		}
	}
	sattr.srq_limit = 4;
	err = ib_modify_srq(srq, &sattr, IB_SRQ_LIMIT);
	memset(&sattr, 0, sizeof(sattr));
	if (!err)
		err = ib_query_srq(srq, &sattr);
	if (err || sattr.srq_limit != 4) {
		fail(name, "armed: err %d limit %u", err, sattr.srq_limit);
		goto out;
	}
	pass(name);
out:
	if (attached) {
		err = ib_detach_mcast(qb, &mgid, mlid);
		if (err)
			fail("detach_mcast", "%d", err);
	}
	if (mah)
		rdma_destroy_ah(mah, RDMA_DESTROY_AH_SLEEPABLE);
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (qa)
		ib_destroy_qp(qa);
	if (qb)
		ib_destroy_qp(qb);
	if (srq)
		ib_destroy_srq(srq);
	if (cq)
		ib_destroy_cq(cq);
	if (cq2)
		ib_destroy_cq(cq2);
}

static void test_query_qp(void)
{
	const char *name = "query_qp";
	struct ib_qp_attr attr;
	struct ib_qp_init_attr init;
	int err;

	err = ib_query_qp(a.qp, &attr, IB_QP_STATE | IB_QP_DEST_QPN, &init);
	if (err) {
		fail(name, "ib_query_qp: %d", err);
		return;
	}
	if (attr.qp_state != IB_QPS_RTS || attr.dest_qp_num != b.qp->qp_num) {
		fail(name, "state %d dest_qp %u, expected %d %u", attr.qp_state,
		     attr.dest_qp_num, IB_QPS_RTS, b.qp->qp_num);
		return;
	}
	pass(name);
}

static int __init vhca_verbs_test_init(void)
{
	int err;

	init_completion(&cq_event);
	ibdev = ib_device_get_by_name(device, RDMA_DRIVER_UNKNOWN);
	if (!ibdev) {
		fail("setup", "no ib_device %s", device);
		goto done;
	}
	pr_info(TAG "%s: kverbs_provider=%d local_dma_lkey=0x%x max_qp=%d max_cq=%d mem_mgt_ext=%d\n",
		device, ibdev->kverbs_provider, ibdev->local_dma_lkey,
		ibdev->attrs.max_qp, ibdev->attrs.max_cq,
		!!(ibdev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS));
	pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(pd)) {
		fail("setup", "ib_alloc_pd: %ld", PTR_ERR(pd));
		pd = NULL;
		goto done;
	}
	err = setup_side(&a);
	if (!err)
		err = setup_side(&b);
	if (err) {
		fail("setup", "create CQ/QP/buffers: %d", err);
		goto done;
	}
	pass("create_cq_qp");
	err = connect_qp(&a, &b);
	if (!err)
		err = connect_qp(&b, &a);
	if (err) {
		fail("connect", "modify to RTS: %d", err);
		goto done;
	}
	pass("connect");
	test_query_qp();
	test_send_recv();
	test_send_batch();
	test_rdma();
	test_ud_srq();
done:
	teardown_side(&a);
	teardown_side(&b);
	if (pd)
		ib_dealloc_pd(pd);
	if (ibdev)
		ib_device_put(ibdev);
	pr_info(TAG "done pass=%d fail=%d\n", passed, failed);
	return 0;
}

static void __exit vhca_verbs_test_exit(void)
{
}

module_init(vhca_verbs_test_init);
module_exit(vhca_verbs_test_exit);

MODULE_DESCRIPTION("vhca kernel verbs smoke test");
MODULE_LICENSE("Dual BSD/GPL");
