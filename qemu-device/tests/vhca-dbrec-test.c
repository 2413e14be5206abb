/*
 * QTest testcase for vhca: receive doorbell records (vhca_hw_verbs.h
 * "Receive doorbell records").  Receives are posted by storing the
 * producer index in guest memory, without an RQ doorbell; the device
 * reads the record when it needs a receive WQE, and before an RNR NAK,
 * a flush, or an SRQ limit event (vhca-srq-test.c).  CREATE_QP refuses a
 * record it cannot read; a record value that cannot be true is ignored.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

/* An RC pair whose responder b posts receives through a record. */
static void dbrec_pair(Dp *dp, DpPair *p, uint8_t rnr_retry)
{
    dp_create_cq(dp, &p->acq, DP_CQ_LOG);
    dp_create_cq(dp, &p->bcq, DP_CQ_LOG);
    dp_create_qp(dp, &p->a, VHCA_QPT_RC, &p->acq, &p->acq);
    g_assert_cmpuint(dp_create_qp_dbrec(dp, &p->b, VHCA_QPT_RC, &p->bcq,
                                        &p->bcq, dp_alloc(dp, 64)), ==,
                     VHCA_CMD_OK);
    dp_pair_connect(dp, p, DP_ALL_ACCESS, rnr_retry);
}

/* SENDs find receives posted through the record alone. */
static void test_dbrec_send(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    int i;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 4096, 31);
    dbrec_pair(dp, &p, 0);
    dp_post_recv(dp, &p.b, 0xb0, m.b, 1024, m.bkey, 0, 0);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 100, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb0);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 100);
    dp_assert_same(dp, m.a, m.b, 100);

    /* Three at once: one record store announces them all. */
    for (i = 0; i < 3; i++) {
        dp_post_recv(dp, &p.b, 0xc0 + i, m.b + 1024 * (i + 1), 1024, m.bkey,
                     0, 0);
    }
    for (i = 0; i < 3; i++) {
        dp_send(dp, &p.a, 2 + i, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED,
                m.a + 200 * i, 200, m.akey);
    }
    for (i = 0; i < 3; i++) {
        dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
        dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
        g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xc0 + i);
        dp_assert_same(dp, m.a + 200 * i, m.b + 1024 * (i + 1), 200);
    }

    /* Nothing announced: RNR NAK, and with rnr_retry 0 the sender's
     * error, exactly as without a record. */
    dp_send(dp, &p.a, 9, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_RNR_RETRY_EXC_ERR);
    g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_RNR);
    dp_expect_no_cqe(dp, &p.bcq);
    dp_stop(dp);
}

/* A receive posted through the record while the sender waits on RNR is
 * found by the retry; an impossible record value is ignored. */
static void test_dbrec_rnr(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dbrec_pair(dp, &p, 7);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    qtest_clock_step(dp->v->qts, 1000000);
    dp_expect_no_cqe(dp, &p.acq);
    /* More than the ring (16) ahead of the consumer index: ignored. */
    qtest_writel(dp->v->qts, p.b.rq_dbrec, 1u << 20);
    qtest_clock_step(dp->v->qts, 100000);
    dp_expect_no_cqe(dp, &p.acq);
    dp_expect_no_cqe(dp, &p.bcq);
    dp_post_recv(dp, &p.b, 0xb1, m.b, 64, m.bkey, 0, 0);
    qtest_clock_step(dp->v->qts, 20000);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb1);
    dp_stop(dp);
}

/* ERR flushes what the record announces; a WQE posted in ERR is flushed
 * at the next RQ doorbell (what the drivers ring when they post in ERR). */
static void test_dbrec_flush(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    int i;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dbrec_pair(dp, &p, 7);
    for (i = 0; i < 2; i++) {
        dp_post_recv(dp, &p.b, 0xb0 + i, m.b, 64, m.bkey, 0, 0);
    }
    g_assert_cmpuint(dp_set_state(dp, &p.b, VHCA_QPS_ERR), ==, VHCA_CMD_OK);
    for (i = 0; i < 2; i++) {
        dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_WR_FLUSH_ERR);
        g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb0 + i);
    }
    dp_post_recv(dp, &p.b, 0xb9, m.b, 64, m.bkey, 0, 0);
    dp_expect_no_cqe(dp, &p.bcq);
    dp_db64(dp->v, 0, VHCA_DB_RQ, vhca_db_data_value(p.b.h, 0, p.b.rq_pi));
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_WR_FLUSH_ERR);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb9);
    dp_stop(dp);
}

/* CREATE_QP with a record the device cannot read, and without one. */
static void test_dbrec_bad_addr(void)
{
    Dp *dp = dp_start();
    uint64_t ram_end = vhca_ram_end(dp->v);
    struct vhca_cmd_create_qp in;
    uint32_t result[2];
    DpCq cq;
    DpQp qp;

    dp_create_cq(dp, &cq, DP_CQ_LOG);
    g_assert_cmpuint(dp_create_qp_dbrec(dp, &qp, VHCA_QPT_RC, &cq, &cq,
                                        dp_alloc(dp, 64) + 4), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_create_qp_dbrec(dp, &qp, VHCA_QPT_RC, &cq, &cq,
                                        ram_end), ==, VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(dp_create_qp_dbrec(dp, &qp, VHCA_QPT_RC, &cq, &cq,
                                        dp->v->db.addr), ==,
                     VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(dp_create_qp_dbrec(dp, &qp, VHCA_QPT_RC, &cq, &cq,
                                        dp->v->reg.addr), ==,
                     VHCA_CMD_BAD_ADDR);
    /* A driver of ABI minor 0 gives 64 bytes: no record, doorbells. */
    memset(&in, 0, sizeof(in));
    in.type = VHCA_QPT_RC;
    in.sq_wqe_shift = DP_SQ_SHIFT;
    in.rq_wqe_shift = DP_RQ_SHIFT;
    in.pdn = cpu_to_le32(dp->pd);
    in.send_cqn = cpu_to_le32(cq.cqn);
    in.recv_cqn = cpu_to_le32(cq.cqn);
    dp_buf_contig(&in.sq_buf, dp_alloc(dp, 4096), 1u << DP_SQ_SHIFT);
    dp_buf_contig(&in.rq_buf, dp_alloc(dp, 4096), 1u << DP_RQ_SHIFT);
    in.rq_dbrec_addr = cpu_to_le64(1);     /* beyond in_len: not read */
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_CREATE_QP, 0, &in,
                                VHCA_CMD_CREATE_QP_V0_LEN, result), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_CREATE_QP, 0, &in,
                                VHCA_CMD_CREATE_QP_V0_LEN - 1, result), ==,
                     VHCA_CMD_BAD_SIZE);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/dp/dbrec-send", test_dbrec_send);
    qtest_add_func("/vhca/dp/dbrec-rnr", test_dbrec_rnr);
    qtest_add_func("/vhca/dp/dbrec-flush", test_dbrec_flush);
    qtest_add_func("/vhca/dp/dbrec-bad-addr", test_dbrec_bad_addr);
    return g_test_run();
}
