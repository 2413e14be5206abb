/*
 * QTest testcase for vhca: shared receive queues, posted through the SRQ
 * doorbell or through a doorbell record (vhca_hw_verbs.h "Receive
 * doorbell records").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

static uint8_t dp_create_qp_srq(Dp *dp, DpQp *qp, DpCq *cq, uint32_t srqn,
                                uint8_t rq_log)
{
    struct vhca_cmd_create_qp in;
    uint32_t result[2];
    uint8_t status;

    memset(qp, 0, sizeof(*qp));
    qp->type = VHCA_QPT_RC;
    qp->scq = qp->rcq = cq;
    qp->sq_log = DP_WQ_LOG;
    qp->sq = dp_alloc(dp, 1u << (DP_WQ_LOG + DP_SQ_SHIFT));
    memset(&in, 0, sizeof(in));
    in.type = VHCA_QPT_RC;
    in.sq_log_size = DP_WQ_LOG;
    in.rq_log_size = rq_log;
    in.sq_wqe_shift = DP_SQ_SHIFT;
    in.rq_wqe_shift = DP_RQ_SHIFT;
    in.flags = VHCA_QP_F_HAS_SRQ;
    in.pdn = cpu_to_le32(dp->pd);
    in.send_cqn = cpu_to_le32(cq->cqn);
    in.recv_cqn = cpu_to_le32(cq->cqn);
    in.srqn = cpu_to_le32(srqn);
    dp_buf_contig(&in.sq_buf, qp->sq, 1u << (DP_WQ_LOG + DP_SQ_SHIFT));
    status = dp_exec_in(dp, VHCA_CMD_CREATE_QP, 0, &in, sizeof(in), result);
    qp->h = result[0];
    return status;
}

static void dp_connect(Dp *dp, DpQp *a, DpQp *b)
{
    dp_qps_to_rtr(dp, a, DP_ALL_ACCESS, b, DP_ALL_ACCESS);
    dp_qps_to_rts(dp, a, b, 7);
}

static uint8_t dp_srq_limit(Dp *dp, uint32_t srqn, uint32_t limit)
{
    struct vhca_cmd_srq_limit_in *in;
    struct vhca_cmd cmd;

    cmd_init(dp->v, &cmd, VHCA_CMD_MODIFY_SRQ);
    in = (void *)cmd.in.raw;
    in->srqn = cpu_to_le32(srqn);
    in->limit = cpu_to_le32(limit);
    return dp_exec(dp, &cmd, NULL);
}

static void test_dp_srq(void)
{
    Dp *dp = dp_start();
    DpQp a1, a2, b1, b2, bad;
    uint32_t result[2];
    struct vhca_cqe cqe;
    DpCq acq, bcq;
    DpSrq srq, srq2;
    DpMem m;
    int i;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 4096, 17);
    /* Commands. */
    g_assert_cmpuint(dp_create_srq(dp, &srq2, dp->pd + 1, DP_RQ_SHIFT, 0), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_create_srq(dp, &srq2, dp->pd, 4, 0), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_create_srq(dp, &srq2, dp->pd, DP_RQ_SHIFT, 17), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_create_srq(dp, &srq, dp->pd, DP_RQ_SHIFT, 0), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_srq_limit(dp, srq.srqn, 17), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_srq_limit(dp, srq.srqn + 1, 1), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_QUERY_SRQ, 77, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);

    dp_create_cq(dp, &acq, DP_CQ_LOG);
    dp_create_cq(dp, &bcq, DP_CQ_LOG);
    g_assert_cmpuint(dp_create_qp_srq(dp, &bad, &bcq, srq.srqn, 1), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_create_qp_srq(dp, &bad, &bcq, srq.srqn + 5, 0), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_create_qp_srq(dp, &b1, &bcq, srq.srqn, 0), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_create_qp_srq(dp, &b2, &bcq, srq.srqn, 0), ==,
                     VHCA_CMD_OK);
    dp_create_qp(dp, &a1, VHCA_QPT_RC, &acq, &acq);
    dp_create_qp(dp, &a2, VHCA_QPT_RC, &acq, &acq);
    dp_connect(dp, &a1, &b1);
    dp_connect(dp, &a2, &b2);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_SRQ, srq.srqn, NULL), ==,
                     VHCA_CMD_BUSY);

    /* Three WQEs, limit 2 armed: no event until fewer than 2 remain. */
    for (i = 0; i < 3; i++) {
        dp_srq_post(dp, &srq, 0x50 + i, m.b + i * 1024, 1024, m.bkey);
    }
    g_assert_cmpuint(dp_srq_limit(dp, srq.srqn, 2), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_QUERY_SRQ, srq.srqn, result), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(result[0], ==, 2);
    dp_send(dp, &a1, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 100, m.akey);
    dp_expect_cqe(dp, &acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x50);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, b1.h);
    g_assert_false(dp_take_event(dp, VHCA_EQE_SRQ_EVENT,
                                 VHCA_SRQ_EV_LIMIT_REACHED, srq.srqn));
    dp_send(dp, &a2, 2, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a + 100, 200,
            m.akey);
    dp_expect_cqe(dp, &acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x51);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, b2.h);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 200);
    dp_assert_same(dp, m.a + 100, m.b + 1024, 200);
    g_assert_true(dp_take_event(dp, VHCA_EQE_SRQ_EVENT,
                                VHCA_SRQ_EV_LIMIT_REACHED, srq.srqn));
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_QUERY_SRQ, srq.srqn, result), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(result[0], ==, 0);

    /* RQ doorbells of an SRQ QP are ignored; ERR flushes nothing of the
     * SRQ and reports the last WQE reached. */
    dp_db64(dp->v, 0, VHCA_DB_RQ, vhca_db_data_value(b1.h, 0, 1));
    g_assert_cmpuint(dp_set_state(dp, &b1, VHCA_QPS_ERR), ==, VHCA_CMD_OK);
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT,
                                VHCA_QP_EV_LAST_WQE_REACHED, b1.h));
    dp_expect_no_cqe(dp, &bcq);
    dp_send(dp, &a2, 3, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_expect_cqe(dp, &acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x52);

    /* Destroy once no QP uses it. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_QP, b1.h, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_QP, b2.h, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_SRQ, srq.srqn, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_SRQ, srq.srqn, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    dp_stop(dp);
}

/*
 * An SRQ whose WQEs are announced by its doorbell record only: receives
 * find them, and the limit event counts them (the device reads the record
 * before it decides that fewer than the limit are posted).
 */
static void test_dp_srq_dbrec(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpCq acq, bcq;
    DpSrq srq;
    DpQp a, b;
    DpMem m;
    int i;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 4096, 5);
    g_assert_cmpuint(dp_create_srq_rec(dp, &srq, dp->pd, DP_RQ_SHIFT, 0,
                                       dp_alloc(dp, 64) + 2), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_create_srq_rec(dp, &srq, dp->pd, DP_RQ_SHIFT, 0,
                                       vhca_ram_end(dp->v)), ==,
                     VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(dp_create_srq_rec(dp, &srq, dp->pd, DP_RQ_SHIFT, 0,
                                       dp->v->db.addr + 8), ==,
                     VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(dp_create_srq_rec(dp, &srq, dp->pd, DP_RQ_SHIFT, 0,
                                       dp_alloc(dp, 64)), ==, VHCA_CMD_OK);
    dp_create_cq(dp, &acq, DP_CQ_LOG);
    dp_create_cq(dp, &bcq, DP_CQ_LOG);
    g_assert_cmpuint(dp_create_qp_srq(dp, &b, &bcq, srq.srqn, 0), ==,
                     VHCA_CMD_OK);
    dp_create_qp(dp, &a, VHCA_QPT_RC, &acq, &acq);
    dp_connect(dp, &a, &b);

    for (i = 0; i < 3; i++) {
        dp_srq_post(dp, &srq, 0x70 + i, m.b + i * 1024, 1024, m.bkey);
    }
    /* Three announced, limit 2: no event. */
    g_assert_cmpuint(dp_srq_limit(dp, srq.srqn, 2), ==, VHCA_CMD_OK);
    g_assert_false(dp_take_event(dp, VHCA_EQE_SRQ_EVENT,
                                 VHCA_SRQ_EV_LIMIT_REACHED, srq.srqn));
    dp_send(dp, &a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 300, m.akey);
    dp_expect_cqe(dp, &acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x70);
    dp_assert_same(dp, m.a, m.b, 300);
    g_assert_false(dp_take_event(dp, VHCA_EQE_SRQ_EVENT,
                                 VHCA_SRQ_EV_LIMIT_REACHED, srq.srqn));
    /* A fourth posted before the second SEND: still two left after it. */
    dp_srq_post(dp, &srq, 0x73, m.b + 3 * 1024, 1024, m.bkey);
    dp_send(dp, &a, 2, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_expect_cqe(dp, &acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x71);
    g_assert_false(dp_take_event(dp, VHCA_EQE_SRQ_EVENT,
                                 VHCA_SRQ_EV_LIMIT_REACHED, srq.srqn));
    dp_send(dp, &a, 3, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_expect_cqe(dp, &acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_true(dp_take_event(dp, VHCA_EQE_SRQ_EVENT,
                                VHCA_SRQ_EV_LIMIT_REACHED, srq.srqn));
    dp_stop(dp);
}

/* RESIZE_SRQ to a ring of 2^log WQEs with a record: its status, result[0]
 * the producer index the device took. */
static uint8_t dp_srq_resize(Dp *dp, DpSrq *srq, struct vhca_cmd_create_srq *in,
                             uint8_t log, uint32_t *pi)
{
    uint32_t result[2] = { 0 };
    uint64_t bytes = 1ull << (log + DP_RQ_SHIFT);
    uint64_t ring = dp_alloc(dp, bytes);
    uint64_t dbrec = dp_alloc(dp, 64);
    uint8_t status;

    dp_buf_contig(&in->buf, ring, bytes);
    in->log_size = log;
    in->dbrec_addr = cpu_to_le64(dbrec);
    /* The poster's index in the new record before the command. */
    qtest_writel(dp->v->qts, dbrec, srq->pi);
    status = dp_exec_in(dp, VHCA_CMD_RESIZE_SRQ, srq->srqn, in, sizeof(*in),
                        result);
    if (status == VHCA_CMD_OK) {
        srq->ring = ring;
        srq->dbrec = dbrec;
        srq->log_size = log;
        *pi = result[0];
    }
    return status;
}

static void dp_srq_expect(Dp *dp, DpQp *a, DpCq *acq, DpCq *bcq, DpMem *m,
                          uint64_t wr_id, uint32_t len)
{
    struct vhca_cqe cqe;

    dp_send(dp, a, wr_id, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m->a, len,
            m->akey);
    dp_expect_cqe(dp, acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, wr_id);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, len);
}

/*
 * RESIZE_SRQ of an SRQ in use: refused for every field that is not the
 * new ring's and for a ring smaller than the WQEs not consumed (the old
 * ring kept, its WQEs still taken); then grown with three WQEs waiting,
 * which are consumed first and in order, and more posted across the old
 * ring's size into the new one.
 */
static void test_dp_srq_resize(void)
{
    Dp *dp = dp_start();
    struct vhca_cmd_create_srq in, bad;
    DpCq acq, bcq;
    DpSrq srq;
    DpQp a, b;
    uint32_t pi = 0, i;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 4096, 9);
    dp_srq_in(dp, &srq, &in, dp->pd, DP_RQ_SHIFT);
    in.dbrec_addr = cpu_to_le64(dp_alloc(dp, 64));
    g_assert_cmpuint(dp_srq_exec(dp, &srq, &in), ==, VHCA_CMD_OK);
    dp_create_cq(dp, &acq, DP_CQ_LOG);
    dp_create_cq(dp, &bcq, DP_CQ_LOG);
    g_assert_cmpuint(dp_create_qp_srq(dp, &b, &bcq, srq.srqn, 0), ==,
                     VHCA_CMD_OK);
    dp_create_qp(dp, &a, VHCA_QPT_RC, &acq, &acq);
    dp_connect(dp, &a, &b);
    /* Four posted (each WQE's wr_id is its index), the first consumed. */
    for (i = 0; i < 4; i++) {
        dp_srq_post(dp, &srq, i, m.b + i * 64, 64, m.bkey);
    }
    dp_srq_expect(dp, &a, &acq, &bcq, &m, 0, 10);

    bad = in;
    g_assert_cmpuint(dp_srq_resize(dp, &srq, &bad, 1, &pi), ==,
                     VHCA_CMD_BAD_PARAM);       /* 3 waiting, room for 2 */
    bad = in;
    bad.wqe_shift = DP_RQ_SHIFT + 1;
    g_assert_cmpuint(dp_srq_resize(dp, &srq, &bad, 6, &pi), ==,
                     VHCA_CMD_BAD_PARAM);
    bad = in;
    bad.limit = cpu_to_le32(1);
    g_assert_cmpuint(dp_srq_resize(dp, &srq, &bad, 6, &pi), ==,
                     VHCA_CMD_BAD_PARAM);
    bad = in;
    bad.pdn = cpu_to_le32(dp->pd + 1);
    g_assert_cmpuint(dp_srq_resize(dp, &srq, &bad, 6, &pi), ==,
                     VHCA_CMD_BAD_PARAM);
    bad = in;
    bad.rsvd[3] = 1;
    g_assert_cmpuint(dp_srq_resize(dp, &srq, &bad, 6, &pi), ==,
                     VHCA_CMD_BAD_PARAM);
    bad = in;
    bad.log_size = VHCA_MAX_LOG_WQ + 1;
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_RESIZE_SRQ, srq.srqn, &bad,
                                sizeof(bad), NULL), ==, VHCA_CMD_BAD_PARAM);
    bad = in;
    bad.dbrec_addr = cpu_to_le64(4);
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_RESIZE_SRQ, srq.srqn, &bad,
                                sizeof(bad), NULL), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_RESIZE_SRQ, srq.srqn + 9, &in,
                                sizeof(in), NULL), ==, VHCA_CMD_BAD_HANDLE);
    /* Refused: the old ring is still the SRQ's. */
    dp_srq_expect(dp, &a, &acq, &bcq, &m, 1, 20);

    /* Grown from 16 to 64 with 2 waiting: they move, and 40 more fit. */
    g_assert_cmpuint(dp_srq_resize(dp, &srq, &in, 6, &pi), ==, VHCA_CMD_OK);
    g_assert_cmpuint(pi, ==, 4);
    for (i = 4; i < 44; i++) {
        dp_srq_post(dp, &srq, i, m.b + (i % 32) * 64, 64, m.bkey);
    }
    for (i = 2; i < 44; i++) {
        dp_srq_expect(dp, &a, &acq, &bcq, &m, i, 8 + i);
    }
    dp_assert_same(dp, m.a, m.b + 11 * 64, 8 + 43);
    dp_expect_no_cqe(dp, &bcq);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/dp/srq", test_dp_srq);
    qtest_add_func("/vhca/dp/srq-dbrec", test_dp_srq_dbrec);
    qtest_add_func("/vhca/dp/srq-resize", test_dp_srq_resize);
    return g_test_run();
}
