/*
 * QTest testcase for vhca: RC reliability (vhca-rc.c) between QPs on the
 * two ports of one device.
 *
 * The local ACK timeout and retry_cnt on the virtual clock (a peer that
 * never answers, one that comes up in time, timeout 0), sequence error
 * NAKs, and streams of every RC opcode over a lossy fabric
 * (rc-drop-request/rc-drop-response): each message arrives exactly once,
 * with the right data and atomic results, and both PSNs agree.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define RC_TIMEOUT      10      /* 4.096 us * 2^10 */
#define RC_TIMEOUT_NS   (4096ll << RC_TIMEOUT)
#define RC_PSN          0x100   /* dp_to_rtr()'s rq_psn and sq_psn */
#define RC_SECOND_NS    1000000000ll

/* B on port 2 in INIT (no receiving yet), A on port 1 in RTS towards it. */
static void rc_half_pair(Dp *dp, DpPair *p, uint8_t timeout,
                         uint8_t retry_cnt)
{
    dp_create_cq(dp, &p->acq, DP_CQ_LOG);
    dp_create_cq(dp, &p->bcq, DP_CQ_LOG);
    dp_create_qp(dp, &p->a, VHCA_QPT_RC, &p->acq, &p->acq);
    dp_create_qp(dp, &p->b, VHCA_QPT_RC, &p->bcq, &p->bcq);
    g_assert_cmpuint(dp_to_init(dp, &p->a, 1, DP_ALL_ACCESS), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_init(dp, &p->b, 2, DP_ALL_ACCESS), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dp, &p->a, dp->lid[2], p->b.h, 1), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts_timers(dp, &p->a, 7, timeout, retry_cnt), ==,
                     VHCA_CMD_OK);
}

/* Both QPs in RTS, A with the timers given. */
static void rc_pair(Dp *dp, DpPair *p, uint8_t timeout, uint8_t retry_cnt)
{
    rc_half_pair(dp, p, timeout, retry_cnt);
    g_assert_cmpuint(dp_to_rtr(dp, &p->b, dp->lid[1], p->a.h, 1), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dp, &p->b, 7), ==, VHCA_CMD_OK);
}

static void rc_assert_psns(Dp *dp, DpPair *p, uint32_t packets)
{
    struct vhca_qp_context ctx;

    g_assert_cmpuint(dp_query_qp(dp, p->a.h, &ctx), ==, VHCA_CMD_OK);
    g_assert_cmphex(le32_to_cpu(ctx.sq_psn), ==, RC_PSN + packets);
    g_assert_cmpuint(dp_query_qp(dp, p->b.h, &ctx), ==, VHCA_CMD_OK);
    g_assert_cmphex(le32_to_cpu(ctx.rq_psn), ==, RC_PSN + packets);
}

/* Port events of link changes: expected, not checked here. */
static void rc_drop_port_events(Dp *dp)
{
    int i;

    dp_poll_events(dp);
    for (i = 0; i < dp->nevents; i++) {
        g_assert_cmpuint(dp->events[i].type, ==, VHCA_EQE_PORT_EVENT);
    }
    dp->nevents = 0;
}

/*
 * A peer that never answers: RETRY_EXC_ERR exactly (retry_cnt + 1) local
 * ACK timeouts after the send, then the QP is in ERR and the rest flushed.
 */
static void test_rc_retry_exhausted(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    uint8_t retry_cnt;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    for (retry_cnt = 0; retry_cnt <= 7; retry_cnt += 3) {
        rc_half_pair(dp, &p, RC_TIMEOUT, retry_cnt);
        dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8,
                m.akey);
        dp_send(dp, &p.a, 2, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8,
                m.akey);
        dp_expect_no_cqe(dp, &p.acq);
        qtest_clock_step(dp->v->qts, (retry_cnt + 1) * RC_TIMEOUT_NS - 1);
        dp_expect_no_cqe(dp, &p.acq);
        dp_assert_state(dp, &p.a, VHCA_QPS_RTS);
        qtest_clock_step(dp->v->qts, 1);
        dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_RETRY_EXC_ERR);
        g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 1);
        g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_NO_PEER);
        dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_WR_FLUSH_ERR);
        g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 2);
        dp_assert_state(dp, &p.a, VHCA_QPS_ERR);
        dp_expect_no_cqe(dp, &p.bcq);
    }

    /* A peer QP in RESET (not receiving) on a port that is up. */
    rc_half_pair(dp, &p, RC_TIMEOUT, 1);
    g_assert_cmpuint(dp_set_state(dp, &p.b, VHCA_QPS_RESET), ==, VHCA_CMD_OK);
    dp_send(dp, &p.a, 3, VHCA_WQE_RDMA_WRITE, VHCA_WQE_F_SIGNALED, m.a, 8,
            m.akey);
    qtest_clock_step(dp->v->qts, 2 * RC_TIMEOUT_NS - 1);
    dp_expect_no_cqe(dp, &p.acq);
    qtest_clock_step(dp->v->qts, 1);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_RETRY_EXC_ERR);
    dp_stop(dp);
}

/*
 * The peer QP reaches RTR after two timeouts (two retries went unanswered):
 * the last retry, at the third timeout, succeeds.
 */
static void test_rc_peer_comes_up(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 4096, 3);
    rc_half_pair(dp, &p, RC_TIMEOUT, 3);
    dp_post_recv(dp, &p.b, 0xb1, m.b, 4096, m.bkey, 0, 0);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 3000,
            m.akey);
    qtest_clock_step(dp->v->qts, 2 * RC_TIMEOUT_NS);
    dp_expect_no_cqe(dp, &p.acq);
    dp_expect_no_cqe(dp, &p.bcq);
    g_assert_cmpuint(dp_to_rtr(dp, &p.b, dp->lid[1], p.a.h, 1), ==,
                     VHCA_CMD_OK);
    dp_expect_no_cqe(dp, &p.acq);       /* nothing before the timer */
    qtest_clock_step(dp->v->qts, RC_TIMEOUT_NS);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 3000);
    dp_assert_same(dp, m.a, m.b, 3000);
    dp_expect_no_cqe(dp, &p.bcq);
    rc_assert_psns(dp, &p, 3);          /* MTU 1024 */
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_COMM_EST,
                                p.b.h));

    /* The peer's port is down, and back up before the retries run out. */
    rc_pair(dp, &p, RC_TIMEOUT, 7);
    qom_set_link(dp->v, "port2-link", false);
    dp_write(dp, &p.a, 2, m.b + 8192, m.bkey, m.a + 100, 200, m.akey);
    qtest_clock_step(dp->v->qts, 3 * RC_TIMEOUT_NS);
    dp_expect_no_cqe(dp, &p.acq);
    qom_set_link(dp->v, "port2-link", true);
    qtest_clock_step(dp->v->qts, SM_SETTLE_NS);
    qtest_clock_step(dp->v->qts, RC_TIMEOUT_NS);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.a + 100, m.b + 8192, 200);
    rc_drop_port_events(dp);
    dp_stop(dp);
}

/*
 * timeout 0 (IBA: no timer): the WQE never fails; the device resends about
 * once a second, so a peer that comes up even much later gets it.
 */
static void test_rc_timeout_infinite(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    rc_half_pair(dp, &p, 0, 0);
    dp_post_recv(dp, &p.b, 0xb1, m.b, 64, m.bkey, 0, 0);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    qtest_clock_step(dp->v->qts, 100 * RC_SECOND_NS);
    dp_expect_no_cqe(dp, &p.acq);
    g_assert_cmpuint(dp_to_rtr(dp, &p.b, dp->lid[1], p.a.h, 1), ==,
                     VHCA_CMD_OK);
    qtest_clock_step(dp->v->qts, 2 * RC_SECOND_NS);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_COMM_EST,
                                p.b.h));

    /* Blocked until the QP is moved to ERR: then flushed. */
    rc_half_pair(dp, &p, 0, 0);
    dp_send(dp, &p.a, 2, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    qtest_clock_step(dp->v->qts, 100 * RC_SECOND_NS);
    dp_expect_no_cqe(dp, &p.acq);
    g_assert_cmpuint(dp_set_state(dp, &p.a, VHCA_QPS_ERR), ==, VHCA_CMD_OK);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_WR_FLUSH_ERR);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 2);
    qtest_clock_step(dp->v->qts, 10 * RC_SECOND_NS);
    dp_expect_no_cqe(dp, &p.acq);
    dp_stop(dp);
}

/*
 * Every second request lost: a lost multi-packet SEND's later packets
 * draw a sequence error NAK and are resent at once (one retry, no timer);
 * with retry_cnt 0 that ends the WQE at once.  A lost one-packet request
 * waits a timeout.
 */
static void test_rc_sequence_error(void)
{
    Dp *dp = dp_start_with(",rc-drop-request=2");
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 8192, 9);
    rc_pair(dp, &p, RC_TIMEOUT, 1);
    dp_post_recv(dp, &p.b, 0xb1, m.b, 4096, m.bkey, 0, 0);
    dp_post_recv(dp, &p.b, 0xb2, m.b + 4096, 4096, m.bkey, 0, 0);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 100,
            m.akey);                    /* request 1: arrives */
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_send(dp, &p.a, 2, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a + 100,
            4000, m.akey);              /* 2: first packet lost, 3: again */
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb1);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb2);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 4000);
    dp_assert_same(dp, m.a + 100, m.b + 4096, 4000);
    dp_expect_no_cqe(dp, &p.bcq);
    rc_assert_psns(dp, &p, 1 + 4);

    /* 4: lost, one-packet: the timer resends it (5). */
    dp_write(dp, &p.a, 3, m.b + 100, m.bkey, m.a + 5000, 64, m.akey);
    dp_expect_no_cqe(dp, &p.acq);
    qtest_clock_step(dp->v->qts, RC_TIMEOUT_NS);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.a + 5000, m.b + 100, 64);
    rc_assert_psns(dp, &p, 1 + 4 + 1);

    /* retry_cnt 0: 6 lost, the sequence error NAK ends the WQE at once. */
    rc_pair(dp, &p, RC_TIMEOUT, 0);
    dp_post_recv(dp, &p.b, 0xb3, m.b, 4096, m.bkey, 0, 0);
    dp_send(dp, &p.a, 4, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 2000,
            m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_RETRY_EXC_ERR);
    dp_expect_no_cqe(dp, &p.bcq);
    dp_assert_state(dp, &p.a, VHCA_QPS_ERR);
    dp_stop(dp);
}

/*
 * rc-drop-request set and cleared on the running device (qom-set): a clean
 * WRITE, then every second request lost (the second WRITE waits a
 * timeout), then clean again; rc-dropped counts the one loss.
 */
static void test_rc_drop_at_run_time(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 4096, 5);
    rc_pair(dp, &p, RC_TIMEOUT, 1);
    dp_write(dp, &p.a, 1, m.b, m.bkey, m.a, 64, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);

    dp_qom_set_uint(dp, "rc-drop-request", 2);
    g_assert_cmpuint(dp_qom_get_uint(dp, "rc-drop-request"), ==, 2);
    dp_write(dp, &p.a, 2, m.b + 64, m.bkey, m.a + 64, 64, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_write(dp, &p.a, 3, m.b + 128, m.bkey, m.a + 128, 64, m.akey);
    dp_expect_no_cqe(dp, &p.acq);               /* lost: the timer resends */
    qtest_clock_step(dp->v->qts, RC_TIMEOUT_NS);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(dp_qom_get_uint(dp, "rc-dropped"), ==, 1);

    dp_qom_set_uint(dp, "rc-drop-request", 0);
    dp_write(dp, &p.a, 4, m.b + 192, m.bkey, m.a + 192, 64, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.a, m.b, 256);
    g_assert_cmpuint(dp_qom_get_uint(dp, "rc-dropped"), ==, 1);
    dp_stop(dp);
}

/* The WQE's CQE, stepping the clock one timeout at a time for it. */
static void rc_wait_cqe(Dp *dp, DpCq *cq, struct vhca_cqe *cqe,
                        uint64_t wr_id)
{
    dp_step_cqe(dp, cq, cqe, RC_TIMEOUT_NS, DP_RETRY_CNT + 1,
                VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe->wr_id), ==, wr_id);
}

#define RC_STREAM       24      /* messages of each kind */

/*
 * Lossy fabric: every 3rd request and every 4th answer lost.  SENDs and
 * WRITE_WITH_IMMs consume exactly one receive WQE each, WRITEs and READs
 * move the right bytes, FETCH_ADD and CMP_SWAP chains see every original
 * value once (a replayed atomic is not executed again).
 */
static void test_rc_lossy_stream(void)
{
    Dp *dp = dp_start_with(",rc-drop-request=3,rc-drop-response=4");
    uint32_t len, n, packets = 0;
    uint64_t orig;
    struct vhca_cqe cqe;
    uint64_t wr = 0;
    DpPair p;
    DpMem m;
    DpWqe w;
    int i;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    orig = m.a + DP_BUF_SIZE / 2 - 64;         /* atomic results */
    dp_fill(dp, m.a, DP_BUF_SIZE / 2, 1);
    dp_fill(dp, m.b + DP_BUF_SIZE / 2, DP_BUF_SIZE / 2, 2);
    qtest_writeq(dp->v->qts, m.b, 1000);        /* FETCH_ADD counter */
    qtest_writeq(dp->v->qts, m.b + 8, 0);       /* CMP_SWAP counter */
    rc_pair(dp, &p, RC_TIMEOUT, DP_RETRY_CNT);
    for (i = 0; i < RC_STREAM; i++) {
        /* 1..3 packets of data, different bytes each time. */
        len = 100 + i * 113;
        n = DIV_ROUND_UP(len, 1024);

        /* SEND into its own receive buffer. */
        dp_post_recv(dp, &p.b, 0xb000 + i, m.b + 4096, 4096, m.bkey, 0, 0);
        dp_send(dp, &p.a, ++wr, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED,
                m.a + i * 64, len, m.akey);
        rc_wait_cqe(dp, &p.acq, &cqe, wr);
        dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
        g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb000 + i);
        g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, len);
        dp_expect_no_cqe(dp, &p.bcq);
        dp_assert_same(dp, m.a + i * 64, m.b + 4096, len);
        packets += n;

        /* WRITE_WITH_IMM: one receive WQE, once. */
        dp_post_recv(dp, &p.b, 0xc000 + i, m.b + 4096, 64, m.bkey, 0, 0);
        dp_wqe(&w, ++wr, VHCA_WQE_RDMA_WRITE_WITH_IMM, VHCA_WQE_F_SIGNALED);
        ((struct vhca_wqe_ctrl *)w.b)->imm_inv = cpu_to_le32(i);
        dp_wqe_raddr(&w, m.b + 8192 + i * 256, m.bkey);
        dp_wqe_sge(&w, m.a + 4096 + i * 32, len, m.akey);
        dp_post_send(dp, &p.a, &w);
        rc_wait_cqe(dp, &p.acq, &cqe, wr);
        dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
        g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xc000 + i);
        g_assert_cmpuint(le32_to_cpu(cqe.imm_inv), ==, i);
        dp_expect_no_cqe(dp, &p.bcq);
        dp_assert_same(dp, m.a + 4096 + i * 32, m.b + 8192 + i * 256, len);
        packets += n;

        /* RDMA READ of B's second half. */
        dp_wqe(&w, ++wr, VHCA_WQE_RDMA_READ, VHCA_WQE_F_SIGNALED);
        dp_wqe_raddr(&w, m.b + DP_BUF_SIZE / 2 + i * 128, m.bkey);
        dp_wqe_sge(&w, m.a + DP_BUF_SIZE / 2, len, m.akey);
        dp_post_send(dp, &p.a, &w);
        rc_wait_cqe(dp, &p.acq, &cqe, wr);
        g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, len);
        dp_assert_same(dp, m.a + DP_BUF_SIZE / 2,
                       m.b + DP_BUF_SIZE / 2 + i * 128, len);
        packets += n;

        /* FETCH_ADD +3: the original values step by 3. */
        dp_atomic(dp, &p.a, ++wr, VHCA_WQE_ATOMIC_FETCH_AND_ADD, m.b, m.bkey,
                  3, 0, orig, m.akey);
        rc_wait_cqe(dp, &p.acq, &cqe, wr);
        g_assert_cmpuint(qtest_readq(dp->v->qts, orig), ==,
                         1000 + 3 * i);
        packets++;

        /* CMP_SWAP i -> i + 1: succeeds every time, exactly once. */
        dp_atomic(dp, &p.a, ++wr, VHCA_WQE_ATOMIC_CMP_AND_SWP, m.b + 8,
                  m.bkey, i, i + 1, orig + 8, m.akey);
        rc_wait_cqe(dp, &p.acq, &cqe, wr);
        g_assert_cmpuint(qtest_readq(dp->v->qts, orig + 8), ==, i);
        packets++;
    }
    g_assert_cmpuint(qtest_readq(dp->v->qts, m.b), ==, 1000 + 3 * RC_STREAM);
    g_assert_cmpuint(qtest_readq(dp->v->qts, m.b + 8), ==, RC_STREAM);
    dp_expect_no_cqe(dp, &p.acq);
    dp_expect_no_cqe(dp, &p.bcq);
    rc_assert_psns(dp, &p, packets);
    dp_stop(dp);
}

/*
 * A batch posted at once over the lossy fabric: the send queue stalls on
 * each loss and resumes; every receive WQE is used once, in order.
 */
static void test_rc_lossy_batch(void)
{
    Dp *dp = dp_start_with(",rc-drop-request=2,rc-drop-response=3");
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    DpWqe w;
    int i, got = 0, steps;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 16 * 1024, 5);
    rc_pair(dp, &p, RC_TIMEOUT, DP_RETRY_CNT);
    for (i = 0; i < 12; i++) {
        dp_post_recv(dp, &p.b, 0xb0 + i, m.b + i * 2048, 2048, m.bkey, 0, 0);
    }
    for (i = 0; i < 12; i++) {
        dp_wqe(&w, i, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED);
        dp_wqe_sge(&w, m.a + i * 1024, 1500, m.akey);
        dp_put_send(dp, &p.a, &w);
    }
    dp_db64(dp->v, 0, VHCA_DB_SQ, vhca_db_data_value(p.a.h, 0, p.a.sq_pi));
    for (steps = 0; got < 12 && steps < 12 * (DP_RETRY_CNT + 1); steps++) {
        while (dp_poll_cq(dp, &p.acq, &cqe)) {
            g_assert_cmpuint(cqe.status, ==, VHCA_WC_SUCCESS);
            g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, got);
            got++;
        }
        qtest_clock_step(dp->v->qts, RC_TIMEOUT_NS);
    }
    g_assert_cmpint(got, ==, 12);
    g_assert_cmpint(steps, >, 1);       /* losses did cost timeouts */
    for (i = 0; i < 12; i++) {
        dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
        g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb0 + i);
        g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 1500);
        dp_assert_same(dp, m.a + i * 1024, m.b + i * 2048, 1500);
    }
    dp_expect_no_cqe(dp, &p.bcq);
    rc_assert_psns(dp, &p, 12 * 2);
    dp_stop(dp);
}

/*
 * What storage ULPs post on one RC QP (nvme-rdma, iSER, ib_srpt): REG_MR,
 * a SEND advertising the region, the peer's RDMA READ through it,
 * LOCAL_INV, zero-length RDMA WRITE and READ with key 0 (ib_srpt right
 * after connecting), then another SEND.  REG_MR and LOCAL_INV put nothing
 * on the wire and use no PSN (IBA 9.7.1), and a zero-length RDMA
 * operation's R_Key is not validated (IBA C9-88): every message is taken
 * at once, and both ends agree on the 4 PSNs used.
 */
static void test_rc_ulp_sequence(void)
{
    Dp *dp = dp_start();
    uint32_t access = VHCA_ACCESS_LOCAL_WRITE | VHCA_ACCESS_REMOTE_READ;
    uint64_t pages[2], iova = 0x7000000;
    struct vhca_wqe_ctrl *c;
    struct vhca_cqe cqe;
    uint32_t key;
    DpPair p;
    DpMem m;
    DpWqe w;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    pages[0] = dp_alloc(dp, 4096);
    pages[1] = dp_alloc(dp, 4096);
    dp_fill(dp, pages[1], 4096, 21);
    key = (dp_alloc_mr(dp, 0x20) & ~0xffu) | 0x21;
    rc_pair(dp, &p, RC_TIMEOUT, 1);
    dp_post_recv(dp, &p.b, 0xb1, m.b, 4096, m.bkey, 0, 0);
    dp_post_recv(dp, &p.b, 0xb2, m.b + 4096, 4096, m.bkey, 0, 0);

    dp_reg_mr(dp, &p.a, 1, key, iova, pages, access);
    dp_send(dp, &p.a, 2, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 64, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_REG_MR);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 2);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb1);

    /* B reads A's registered pages (the first of them is pages[1]). */
    dp_wqe(&w, 3, VHCA_WQE_RDMA_READ, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, iova + 100, key);
    dp_wqe_sge(&w, m.b + 5000, 300, m.bkey);
    dp_post_send(dp, &p.b, &w);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, pages[1] + 100, m.b + 5000, 300);

    dp_wqe(&w, 4, VHCA_WQE_LOCAL_INV, VHCA_WQE_F_SIGNALED);
    c = (void *)w.b;
    c->imm_inv = cpu_to_le32(key);
    dp_post_send(dp, &p.a, &w);
    dp_wqe(&w, 5, VHCA_WQE_RDMA_WRITE, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, 0, 0);
    dp_post_send(dp, &p.a, &w);
    dp_wqe(&w, 6, VHCA_WQE_RDMA_READ, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, 0xdead0000, 0x7fffff00);
    dp_post_send(dp, &p.a, &w);
    dp_send(dp, &p.a, 7, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a + 64, 32,
            m.akey);
    for (int i = 4; i <= 7; i++) {
        dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
        g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, i);
    }
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb2);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 32);
    dp_assert_same(dp, m.a + 64, m.b + 4096, 32);
    dp_expect_no_cqe(dp, &p.bcq);
    g_assert_cmpint(dp->nevents, ==, 0);
    rc_assert_psns(dp, &p, 4);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/rc/retry-exhausted", test_rc_retry_exhausted);
    qtest_add_func("/vhca/rc/peer-comes-up", test_rc_peer_comes_up);
    qtest_add_func("/vhca/rc/timeout-infinite", test_rc_timeout_infinite);
    qtest_add_func("/vhca/rc/sequence-error", test_rc_sequence_error);
    qtest_add_func("/vhca/rc/drop-at-run-time", test_rc_drop_at_run_time);
    qtest_add_func("/vhca/rc/ulp-sequence", test_rc_ulp_sequence);
    qtest_add_func("/vhca/rc/lossy-stream", test_rc_lossy_stream);
    qtest_add_func("/vhca/rc/lossy-batch", test_rc_lossy_batch);
    return g_test_run();
}
