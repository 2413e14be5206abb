/*
 * QTest testcase for vhca: traffic between QPs on the two ports of one
 * device.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"


/* Two 64 KiB buffers with physical regions, one per side. */

static void test_dp_rc_send(void)
{
    Dp *dp = dp_start();
    struct vhca_qp_context ctx;
    struct vhca_wqe_ctrl *c;
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    DpWqe w;

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 8192, 1);

    /* Three gather SGEs into two scatter SGEs. */
    dp_post_recv(dp, &p.b, 0xb1, m.b, 1000, m.bkey, m.b + 2000, 3000);
    dp_wqe(&w, 0xa1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED);
    dp_wqe_sge(&w, m.a, 1500, m.akey);
    dp_wqe_sge(&w, m.a + 1500, 0, m.akey);
    dp_wqe_sge(&w, m.a + 1500, 2000, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xa1);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_SEND);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, p.a.h);
    g_assert_cmpuint(le16_to_cpu(cqe.wqe_index), ==, 0);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb1);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RECV);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 3500);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, p.b.h);
    g_assert_cmpuint(le16_to_cpu(cqe.slid), ==, dp->lid[1]);
    g_assert_cmpuint(cqe.flags, ==, 0);
    dp_assert_same(dp, m.a, m.b, 1000);
    dp_assert_same(dp, m.a + 1000, m.b + 2000, 2500);
    g_assert_cmpuint(qtest_readb(dp->v->qts, m.b + 1000), ==, 0);

    /* SEND_WITH_IMM. */
    dp_post_recv(dp, &p.b, 0xb2, m.b + 8192, 4096, m.bkey, 0, 0);
    dp_wqe(&w, 0xa2, VHCA_WQE_SEND_WITH_IMM, VHCA_WQE_F_SIGNALED);
    c = (void *)w.b;
    c->imm_inv = 0x78563412;
    dp_wqe_sge(&w, m.a + 100, 64, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.flags, ==, VHCA_CQE_F_IMM);
    g_assert_cmphex(cqe.imm_inv, ==, 0x78563412);
    dp_assert_same(dp, m.a + 100, m.b + 8192, 64);

    /* Inline data. */
    dp_post_recv(dp, &p.b, 0xb3, m.b + 12288, 4096, m.bkey, 0, 0);
    dp_wqe(&w, 0xa3, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED | VHCA_WQE_F_INLINE);
    c = (void *)w.b;
    c->inline_len = cpu_to_le32(100);
    memcpy(w.b + sizeof(*c), "inline data, byte for byte", 26);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 100);
    {
        char got[26];

        qtest_memread(dp->v->qts, m.b + 12288, got, 26);
        g_assert_cmpint(memcmp(got, "inline data, byte for byte", 26), ==, 0);
    }

    /* Unsignaled: no send CQE; the next signaled one names its index. */
    dp_post_recv(dp, &p.b, 0xb4, m.b, 4096, m.bkey, 0, 0);
    dp_post_recv(dp, &p.b, 0xb5, m.b, 4096, m.bkey, 0, 0);
    dp_send(dp, &p.a, 0xa4, VHCA_WQE_SEND, 0, m.a, 10, m.akey);
    dp_expect_no_cqe(dp, &p.acq);
    dp_send(dp, &p.a, 0xa5, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 10,
            m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xa5);
    g_assert_cmpuint(le16_to_cpu(cqe.wqe_index), ==, 4);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb5);
    dp_expect_no_cqe(dp, &p.bcq);

    /* PSNs count packets (MTU 1024: the 3500-byte send used 4). */
    g_assert_cmpuint(dp_query_qp(dp, p.a.h, &ctx), ==, VHCA_CMD_OK);
    g_assert_cmphex(le32_to_cpu(ctx.sq_psn), ==, 0x100 + 4 + 1 + 1 + 1 + 1);
    g_assert_cmpuint(dp_query_qp(dp, p.b.h, &ctx), ==, VHCA_CMD_OK);
    g_assert_cmphex(le32_to_cpu(ctx.rq_psn), ==, 0x100 + 8);
    dp_stop(dp);
}

static void test_dp_rc_rdma(void)
{
    Dp *dp = dp_start();
    uint64_t pages[4], iova = 0x7000000000ull, val;
    struct vhca_wqe_ctrl *c;
    struct vhca_cqe cqe;
    uint32_t rkey;
    DpPair p;
    DpMem m;
    DpWqe w;

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    rkey = dp_mr_pages(dp, iova, pages, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 16384, 3);

    /* RDMA WRITE of 6000 bytes at iova + 1000: pages 3, 2 of the list. */
    dp_wqe(&w, 1, VHCA_WQE_RDMA_WRITE, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, iova + 1000, rkey);
    dp_wqe_sge(&w, m.a, 6000, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RDMA_WRITE);
    dp_expect_no_cqe(dp, &p.bcq);
    dp_assert_same(dp, m.a, pages[3] + 1000, 4096 - 1000);
    dp_assert_same(dp, m.a + 3096, pages[2], 6000 - 3096);

    /* RDMA WRITE_WITH_IMM consumes a receive WQE. */
    dp_post_recv(dp, &p.b, 0xb0, m.b, 16, m.bkey, 0, 0);
    dp_wqe(&w, 2, VHCA_WQE_RDMA_WRITE_WITH_IMM, VHCA_WQE_F_SIGNALED);
    c = (void *)w.b;
    c->imm_inv = 0x11223344;
    dp_wqe_raddr(&w, iova + 3 * 4096, rkey);
    dp_wqe_sge(&w, m.a + 8000, 4096, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RECV_RDMA_WITH_IMM);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 4096);
    g_assert_cmphex(cqe.imm_inv, ==, 0x11223344);
    dp_assert_same(dp, m.a + 8000, pages[0], 4096);

    /* RDMA READ of the whole region into A at an offset. */
    dp_wqe(&w, 3, VHCA_WQE_RDMA_READ, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, iova, rkey);
    dp_wqe_sge(&w, m.a + 20000, 8192, m.akey);
    dp_wqe_sge(&w, m.a + 40000, 8192, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RDMA_READ);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 16384);
    dp_assert_same(dp, m.a + 20000, pages[3], 4096);
    dp_assert_same(dp, m.a + 24096, pages[2], 4096);
    dp_assert_same(dp, m.a + 40000, pages[1], 4096);
    dp_assert_same(dp, m.a + 44096, pages[0], 4096);

    /* Atomics on B's memory. */
    qtest_writeq(dp->v->qts, m.b + 64, 5);
    dp_atomic(dp, &p.a, 4, VHCA_WQE_ATOMIC_CMP_AND_SWP, m.b + 64, m.bkey, 5,
              0x900000009ull, m.a + 256, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_COMP_SWAP);
    g_assert_cmphex(qtest_readq(dp->v->qts, m.b + 64), ==, 0x900000009ull);
    g_assert_cmphex(qtest_readq(dp->v->qts, m.a + 256), ==, 5);
    dp_atomic(dp, &p.a, 5, VHCA_WQE_ATOMIC_FETCH_AND_ADD, m.b + 64, m.bkey,
              0x100000001ull, 0, m.a + 264, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_FETCH_ADD);
    val = qtest_readq(dp->v->qts, m.b + 64);
    g_assert_cmphex(val, ==, 0xa0000000aull);
    g_assert_cmphex(qtest_readq(dp->v->qts, m.a + 264), ==, 0x900000009ull);

    /* IBA 9.4.5: a misaligned atomic is the responder's invalid request. */
    dp_atomic(dp, &p.a, 6, VHCA_WQE_ATOMIC_FETCH_AND_ADD, m.b + 68, m.bkey, 1,
              0, m.a + 272, m.akey);
    dp_expect_invalid_request(dp, &p, &cqe);
    g_assert_cmphex(qtest_readq(dp->v->qts, m.b + 64), ==, val);
    dp_assert_state(dp, &p.a, VHCA_QPS_ERR);
    dp_stop(dp);
}

static void test_dp_ud(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    uint8_t grh[40];
    DpPair p;
    DpMem m;

    dp_create_cq(dp, &p.acq, DP_CQ_LOG);
    dp_create_cq(dp, &p.bcq, DP_CQ_LOG);
    dp_create_qp(dp, &p.a, VHCA_QPT_UD, &p.acq, &p.acq);
    dp_create_qp(dp, &p.b, VHCA_QPT_UD, &p.bcq, &p.bcq);
    g_assert_cmpuint(dp_to_init(dp, &p.a, 1, 0), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_init(dp, &p.b, 2, 0), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dp, &p.a, 0, 0, 0), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dp, &p.b, 0, 0, 0), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dp, &p.a, 0), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dp, &p.b, 0), ==, VHCA_CMD_OK);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 4096, 9);

    /* Without a GRH: data after the 40 bytes reserved for one. */
    dp_post_recv(dp, &p.b, 0xb1, m.b, 40 + 2048, m.bkey, 0, 0);
    dp_ud_send(dp, &p.a, 1, dp->lid[2], p.b.h, DP_QKEY, false, m.a, 2048,
               m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 40 + 2048);
    g_assert_cmphex(le32_to_cpu(cqe.src_qp), ==, p.a.h);
    g_assert_cmpuint(le16_to_cpu(cqe.slid), ==, dp->lid[1]);
    g_assert_cmpuint(cqe.flags & VHCA_CQE_F_GRH, ==, 0);
    dp_assert_same(dp, m.a, m.b + 40, 2048);

    /* With a GRH, and the QP's own Q_Key (high bit). */
    dp_post_recv(dp, &p.b, 0xb2, m.b + 8192, 40, m.bkey, m.b + 16384, 100);
    dp_ud_send(dp, &p.a, 2, dp->lid[2], p.b.h, 0x80000000u, true, m.a + 7,
               100, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.flags & VHCA_CQE_F_GRH, ==, VHCA_CQE_F_GRH);
    qtest_memread(dp->v->qts, m.b + 8192, grh, sizeof(grh));
    g_assert_cmphex(grh[0] >> 4, ==, 6);
    g_assert_cmphex(grh[6], ==, 0x1b);
    g_assert_cmphex(grh[8], ==, 0xfe);
    g_assert_cmphex(ldq_be_p(grh + 16), ==, NODE_GUID + 1);
    g_assert_cmphex(grh[24], ==, 0xdd);
    dp_assert_same(dp, m.a + 7, m.b + 16384, 100);

    /* Wrong Q_Key, missing QPN, unknown LID: the sender completes, the
     * datagram is gone (IBA 9.6.2), the receive WQE stays posted. */
    dp_post_recv(dp, &p.b, 0xb3, m.b, 4096, m.bkey, 0, 0);
    dp_ud_send(dp, &p.a, 3, dp->lid[2], p.b.h, DP_QKEY + 1, false, m.a, 8,
               m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_ud_send(dp, &p.a, 4, dp->lid[2], 0x7777, DP_QKEY, false, m.a, 8,
               m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_ud_send(dp, &p.a, 5, 0x99, p.b.h, DP_QKEY, false, m.a, 8, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_no_cqe(dp, &p.bcq);
    dp_ud_send(dp, &p.a, 6, dp->lid[2], p.b.h, DP_QKEY, false, m.a, 8,
               m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb3);

    /* Longer than the MTU: local length error, the QP goes to SQE. */
    dp_ud_send(dp, &p.a, 7, dp->lid[2], p.b.h, DP_QKEY, false, m.a, 5000,
               m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_LOC_LEN_ERR);
    dp_stop(dp);
}

/* UC: SEND and WRITE work; what the responder cannot take is lost. */
static void test_dp_uc(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    DpWqe w;

    dp_pair(dp, &p, VHCA_QPT_UC, DP_ALL_ACCESS, 0);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 8192, 41);
    dp_post_recv(dp, &p.b, 0xb1, m.b, 4096, m.bkey, 0, 0);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 3000,
            m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.a, m.b, 3000);
    dp_wqe(&w, 2, VHCA_WQE_RDMA_WRITE, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, m.b + 8192, m.bkey);
    dp_wqe_sge(&w, m.a + 100, 5000, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.a + 100, m.b + 8192, 5000);
    /* No receive WQE, a bad rkey: the sender completes, nothing arrives. */
    dp_send(dp, &p.a, 3, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_no_cqe(dp, &p.bcq);
    dp_wqe(&w, 4, VHCA_WQE_RDMA_WRITE, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, m.b, m.bkey ^ 1);
    dp_wqe_sge(&w, m.a, 8, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_state(dp, &p.b, VHCA_QPS_RTS);
    /* RDMA READ is RC only: a local QP operation error, the QP to SQE. */
    dp_wqe(&w, 5, VHCA_WQE_RDMA_READ, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, m.b, m.bkey);
    dp_wqe_sge(&w, m.a, 8, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_LOC_QP_OP_ERR);
    dp_assert_state(dp, &p.a, VHCA_QPS_SQE);
    dp_stop(dp);
}

/* ---- error completions --------------------------------------------------- */

static void test_dp_err_local(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    uint32_t result[2], other_key;
    DpPair p;
    DpMem m;

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    /* A region of another PD. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_ALLOC_PD, 0, result), ==,
                     VHCA_CMD_OK);
    other_key = dp_mr_phys(dp, result[0], m.a, 4096, DP_ALL_ACCESS);

    /* The local DMA lkey works on a kernel QP. */
    dp_post_recv(dp, &p.b, 0xb1, m.b, 4096, m.bkey, 0, 0);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 64,
            VHCA_LOCAL_DMA_LKEY);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);

    /* PD mismatch: local protection error, the QP to ERR, the rest
     * flushed (unsignaled WQEs too). */
    dp_send(dp, &p.a, 2, VHCA_WQE_SEND, 0, m.a, 64, other_key);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_LOC_PROT_ERR);
    g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_PD_MISMATCH);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 2);
    dp_assert_state(dp, &p.a, VHCA_QPS_ERR);
    dp_send(dp, &p.a, 3, VHCA_WQE_SEND, 0, m.a, 64, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_WR_FLUSH_ERR);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 3);

    /* Bad lkey on a fresh pair. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_send(dp, &p.a, 4, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 64,
            0xdead00);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_LOC_PROT_ERR);
    g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_BAD_KEY);
    /* Out of the region's bounds. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_send(dp, &p.a, 5, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED,
            m.a + DP_BUF_SIZE - 8, 16, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_LOC_PROT_ERR);
    g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_BOUNDS);
    /* A malformed WQE: local QP operation error. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_send(dp, &p.a, 6, 0x1f, VHCA_WQE_F_SIGNALED, m.a, 16, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_LOC_QP_OP_ERR);
    g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_BAD_WQE);
    dp_stop(dp);
}

static void test_dp_err_remote(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    uint32_t ro_key;
    DpPair p;
    DpMem m;
    DpWqe w;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    ro_key = dp_mr_phys(dp, dp->pd, m.b, 4096,
                        VHCA_ACCESS_LOCAL_WRITE | VHCA_ACCESS_REMOTE_READ);

    /* Wrong rkey (variant): remote access error; B to ERR with an event. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_wqe(&w, 1, VHCA_WQE_RDMA_WRITE, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, m.b, m.bkey ^ 1);
    dp_wqe_sge(&w, m.a, 64, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_REM_ACCESS_ERR);
    dp_assert_state(dp, &p.a, VHCA_QPS_ERR);
    dp_assert_state(dp, &p.b, VHCA_QPS_ERR);
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_ACCESS_ERR,
                                p.b.h));

    /* A read-only region written. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_wqe(&w, 2, VHCA_WQE_RDMA_WRITE, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, m.b, ro_key);
    dp_wqe_sge(&w, m.a, 64, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_REM_ACCESS_ERR);
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_ACCESS_ERR,
                                p.b.h));
    /* ... but it can be read; a QP without remote read cannot be. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_wqe(&w, 3, VHCA_WQE_RDMA_READ, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, m.b, ro_key);
    dp_wqe_sge(&w, m.a, 64, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_pair(dp, &p, VHCA_QPT_RC, VHCA_ACCESS_REMOTE_WRITE, 7);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_REM_ACCESS_ERR);
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_ACCESS_ERR,
                                p.b.h));

    /* Message longer than the receive buffers: remote invalid request at
     * the requester, local length error at the responder. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_post_recv(dp, &p.b, 0xb1, m.b, 1000, m.bkey, 0, 0);
    dp_send(dp, &p.a, 4, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 2000,
            m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_REM_INV_REQ_ERR);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_LOC_LEN_ERR);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb1);
    dp_assert_state(dp, &p.b, VHCA_QPS_ERR);

    /* An RC peer that does not exist: transport retries exhausted after
     * retry_cnt + 1 local ACK timeouts (vhca-rc-test has more). */
    dp_create_cq(dp, &p.acq, DP_CQ_LOG);
    dp_create_qp(dp, &p.a, VHCA_QPT_RC, &p.acq, &p.acq);
    g_assert_cmpuint(dp_to_init(dp, &p.a, 1, 0), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dp, &p.a, dp->lid[2], 0x4444, 0), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dp, &p.a, 7), ==, VHCA_CMD_OK);
    dp_send(dp, &p.a, 5, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_expect_no_cqe(dp, &p.acq);
    qtest_clock_step(dp->v->qts, (DP_RETRY_CNT + 1) * DP_ACK_TIMEOUT_NS);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_RETRY_EXC_ERR);
    g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_NO_PEER);
    dp_stop(dp);
}

static void test_dp_rnr(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    /* rnr_retry 2: three tries 10 us apart (min_rnr_timer 1), then error. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 2);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_send(dp, &p.a, 2, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_expect_no_cqe(dp, &p.acq);
    qtest_clock_step(dp->v->qts, 15000);
    dp_expect_no_cqe(dp, &p.acq);
    qtest_clock_step(dp->v->qts, 15000);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_RNR_RETRY_EXC_ERR);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 1);
    g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_RNR);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_WR_FLUSH_ERR);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 2);

    /* rnr_retry 7 retries for ever: a receive posted later is used. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_send(dp, &p.a, 3, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    qtest_clock_step(dp->v->qts, 1000000);
    dp_expect_no_cqe(dp, &p.acq);
    dp_post_recv(dp, &p.b, 0xb1, m.b, 64, m.bkey, 0, 0);
    qtest_clock_step(dp->v->qts, 20000);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    dp_stop(dp);
}

/* Moving to ERR flushes posted receives; later posts are flushed at once. */
static void test_dp_flush(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    int i;

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    for (i = 0; i < 3; i++) {
        dp_post_recv(dp, &p.b, 0xb0 + i, m.b, 64, m.bkey, 0, 0);
    }
    dp_expect_no_cqe(dp, &p.bcq);
    g_assert_cmpuint(dp_set_state(dp, &p.b, VHCA_QPS_ERR), ==, VHCA_CMD_OK);
    for (i = 0; i < 3; i++) {
        dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_WR_FLUSH_ERR);
        g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb0 + i);
        g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RECV);
    }
    dp_post_recv(dp, &p.b, 0xb9, m.b, 64, m.bkey, 0, 0);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_WR_FLUSH_ERR);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb9);
    /* The sender now finds no receiving peer. */
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    qtest_clock_step(dp->v->qts, (DP_RETRY_CNT + 1) * DP_ACK_TIMEOUT_NS);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_RETRY_EXC_ERR);
    /* ERR -> RESET -> INIT: the queues start again empty. */
    g_assert_cmpuint(dp_set_state(dp, &p.b, VHCA_QPS_RESET), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_init(dp, &p.b, 2, 0), ==, VHCA_CMD_OK);
    dp_expect_no_cqe(dp, &p.bcq);

    /* A send WQE waiting out an RNR is flushed by ERR. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_send(dp, &p.a, 20, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_expect_no_cqe(dp, &p.acq);
    g_assert_cmpuint(dp_set_state(dp, &p.a, VHCA_QPS_ERR), ==, VHCA_CMD_OK);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_WR_FLUSH_ERR);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 20);
    qtest_clock_step(dp->v->qts, 1000000);
    dp_expect_no_cqe(dp, &p.acq);

    /* Send WQEs posted in RTR wait, and run once the QP reaches RTS. */
    dp_pair_create(dp, &p, VHCA_QPT_RC);
    dp_qps_to_rtr(dp, &p.a, 0, &p.b, 0);
    dp_post_recv(dp, &p.b, 0xb1, m.b, 64, m.bkey, 0, 0);
    dp_send(dp, &p.a, 21, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_expect_no_cqe(dp, &p.acq);
    g_assert_cmpuint(dp_to_rts(dp, &p.a, 7), ==, VHCA_CMD_OK);
    for (i = 0; !dp_poll_cq(dp, &p.acq, &cqe); i++) {
        g_assert_cmpint(i, <, POLL_LIMIT);
    }
    g_assert_cmpuint(cqe.status, ==, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 21);
    /* B was in RTR: its first message raised COMM_EST. */
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_COMM_EST,
                                p.b.h));
    dp_stop(dp);
}

/* ---- CQ owner bit, arming, completion EQ and MSI-X ---------------------- */

/* Next entry of the completion EQ, if any. */
static bool dp_comp_eqe(Dp *dp, struct vhca_eqe *eqe)
{
    uint64_t slot = dp->eq_ring + (uint64_t)(dp->eq_ci & 127) * sizeof(*eqe);

    qtest_memread(dp->v->qts, slot, eqe, sizeof(*eqe));
    if ((eqe->owner & 1) != vhca_eqe_owner(dp->eq_ci, 7)) {
        return false;
    }
    dp->eq_ci++;
    db_write(dp->v, VHCA_DB_EQ, vhca_db_eq_value(dp->eqn, dp->eq_ci, 1));
    return true;
}

static void dp_arm_cq(Dp *dp, DpCq *cq, uint32_t how)
{
    dp_db64(dp->v, 0, VHCA_DB_CQ, vhca_db_data_value(cq->cqn, how, cq->ci));
}

static void test_dp_cq_arm(void)
{
    Dp *dp = dp_start();
    struct vhca_eqe eqe;
    struct vhca_cqe cqe;
    uint64_t word;
    DpPair p;
    DpMem m;
    int i;

    qpci_msix_enable(dp->v->dev);
    word = msix_route_to_ram(dp->v, 1);
    db_write(dp->v, VHCA_DB_EQ, vhca_db_eq_value(dp->eqn, 0, 1));
    dp_create_cq(dp, &p.acq, 2);        /* 4 CQEs: the owner bit wraps */
    dp_create_cq(dp, &p.bcq, DP_CQ_LOG);
    dp_create_qp(dp, &p.a, VHCA_QPT_RC, &p.acq, &p.acq);
    dp_create_qp(dp, &p.b, VHCA_QPT_RC, &p.bcq, &p.bcq);
    dp_qps_to_rtr(dp, &p.a, 0, &p.b, 0);
    dp_qps_to_rts(dp, &p.a, &p.b, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);

    /* Ten completions through a 4-entry CQ: owner 1,1,1,1,0,0,0,0,1,1. */
    for (i = 0; i < 10; i++) {
        dp_post_recv(dp, &p.b, i, m.b, 64, m.bkey, 0, 0);
        dp_send(dp, &p.a, i, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8,
                m.akey);
        dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
        g_assert_cmpuint(cqe.owner, ==, ((i >> 2) & 1) ^ 1);
        g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, i);
        dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    }
    g_assert_false(dp_comp_eqe(dp, &eqe));
    g_assert_false(msix_fired(dp->v, word));

    /* Armed for the next CQE: one COMPLETION EQE, one MSI-X message. */
    dp_arm_cq(dp, &p.acq, VHCA_DB_CQ_ARM_NEXT);
    dp_post_recv(dp, &p.b, 20, m.b, 64, m.bkey, 0, 0);
    dp_send(dp, &p.a, 20, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    g_assert_true(dp_comp_eqe(dp, &eqe));
    g_assert_cmpuint(eqe.type, ==, VHCA_EQE_COMPLETION);
    g_assert_cmpuint(le32_to_cpu(eqe.data.completion.cqn), ==, p.acq.cqn);
    g_assert_true(msix_fired(dp->v, word));
    /* Disarmed now: the next CQE raises nothing. */
    dp_post_recv(dp, &p.b, 21, m.b, 64, m.bkey, 0, 0);
    dp_send(dp, &p.a, 21, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    g_assert_false(dp_comp_eqe(dp, &eqe));
    g_assert_false(msix_fired(dp->v, word));
    /* Arming with unconsumed CQEs past the consumer index fires at once. */
    dp_arm_cq(dp, &p.acq, VHCA_DB_CQ_ARM_NEXT);
    g_assert_true(dp_comp_eqe(dp, &eqe));
    g_assert_true(msix_fired(dp->v, word));
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    for (i = 20; i < 22; i++) {
        dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    }

    /* Solicited arming on B: an unsolicited receive does not wake it. */
    dp_arm_cq(dp, &p.bcq, VHCA_DB_CQ_ARM_SOLICITED);
    dp_post_recv(dp, &p.b, 30, m.b, 64, m.bkey, 0, 0);
    dp_post_recv(dp, &p.b, 31, m.b, 64, m.bkey, 0, 0);
    dp_send(dp, &p.a, 30, VHCA_WQE_SEND, 0, m.a, 8, m.akey);
    g_assert_false(dp_comp_eqe(dp, &eqe));
    dp_send(dp, &p.a, 31, VHCA_WQE_SEND, VHCA_WQE_F_SOLICITED, m.a, 8,
            m.akey);
    g_assert_true(dp_comp_eqe(dp, &eqe));
    g_assert_cmpuint(le32_to_cpu(eqe.data.completion.cqn), ==, p.bcq.cqn);
    g_assert_true(msix_fired(dp->v, word));
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);

    /* Overrun: 4 unconsumed CQEs, a fifth is lost and CQ_ERROR reported. */
    for (i = 0; i < 5; i++) {
        dp_post_recv(dp, &p.b, 40 + i, m.b, 64, m.bkey, 0, 0);
        dp_send(dp, &p.a, 40 + i, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8,
                m.akey);
    }
    g_assert_true(dp_take_event(dp, VHCA_EQE_CQ_ERROR, 0, p.acq.cqn));
    for (i = 0; i < 5; i++) {
        dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    }
    dp_stop(dp);
}

/* Data doorbells: the wrong page, the wrong size, nonsense indexes. */
static void test_dp_bad_doorbells(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_post_recv(dp, &p.b, 1, m.b, 64, m.bkey, 0, 0);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    /* Another page, a 32-bit write, a producer index far ahead, unknown
     * QPs and the SRQ doorbell: all ignored. */
    dp_db64(dp->v, 1, VHCA_DB_SQ, vhca_db_data_value(p.a.h, 0, 2));
    qpci_io_writel(dp->v->dev, dp->v->db, VHCA_DB_SQ, p.a.h);
    dp_db64(dp->v, 0, VHCA_DB_SQ, vhca_db_data_value(p.a.h, 0, 1000));
    dp_db64(dp->v, 0, VHCA_DB_SQ, vhca_db_data_value(0x5555, 0, 1));
    dp_db64(dp->v, 0, VHCA_DB_RQ, vhca_db_data_value(0xffffff, 0, 1));
    dp_db64(dp->v, 0, VHCA_DB_SRQ, vhca_db_data_value(0, 0, 1));
    dp_db64(dp->v, 0, 0x100, 0);
    dp_expect_no_cqe(dp, &p.acq);
    /* Still working. */
    dp_post_recv(dp, &p.b, 2, m.b, 64, m.bkey, 0, 0);
    dp_send(dp, &p.a, 2, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 2);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    dp_stop(dp);
}

/* A reset in the middle of everything forgets every object. */
static void test_dp_reset(void)
{
    Dp *dp = dp_start();
    DpPair p;

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    wr(dp->v, VHCA_REG_CONTROL, VHCA_CONTROL_RESET);
    vhca_bringup(dp->v);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_QP, p.a.h, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_CQ, p.acq.cqn, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/dp/rc-send", test_dp_rc_send);
    qtest_add_func("/vhca/dp/rc-rdma-atomic", test_dp_rc_rdma);
    qtest_add_func("/vhca/dp/ud", test_dp_ud);
    qtest_add_func("/vhca/dp/uc", test_dp_uc);
    qtest_add_func("/vhca/dp/err-local", test_dp_err_local);
    qtest_add_func("/vhca/dp/err-remote", test_dp_err_remote);
    qtest_add_func("/vhca/dp/rnr", test_dp_rnr);
    qtest_add_func("/vhca/dp/flush", test_dp_flush);
    qtest_add_func("/vhca/dp/cq-arm-wrap-overrun", test_dp_cq_arm);
    qtest_add_func("/vhca/dp/bad-doorbells", test_dp_bad_doorbells);
    qtest_add_func("/vhca/dp/reset", test_dp_reset);
    return g_test_run();
}
