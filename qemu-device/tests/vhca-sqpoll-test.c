/*
 * QTest testcase for vhca: send doorbell records polled by the device
 * (sq-poll=on, vhca-sqpoll.c; vhca_hw_verbs.h "Send doorbell records").
 * While the device polls, the record's device_flags says POLLED and a
 * WQE is posted by storing the producer index alone; after the window it
 * sleeps, clears the flag, and only an SQ doorbell wakes it.  Bad record
 * values are ignored; QPs destroyed or reset, and the device reset, while
 * the thread polls leave nothing behind.  QPs without a record, and a
 * device with sq-poll=off, keep working with doorbells.
 *
 * The polling thread runs on real time, not qtest's virtual clock: the
 * tests wait for it with g_usleep, up to WAIT_US.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define WAIT_US         (30 * 1000 * 1000)
#define STEP_US         1000
/* 60 s: the window is wall-clock time, and on a loaded host the test
 * process can sleep longer than a second between two posts; the window
 * must never expire while a test posts by record alone (tests that
 * passed alone failed at load 30 with a 1 s window). */
#define LONG_WINDOW     ",sq-poll=on,sq-poll-window=60000000"
/* 3 s: short enough to wait out, long enough that the test sees the flag
 * set after a doorbell woke the thread (with 1 ms the window could end
 * before a loaded test looked). */
#define SHORT_WINDOW    ",sq-poll=on,sq-poll-window=3000000"

static uint32_t sq_flags(Dp *dp, DpQp *qp)
{
    return qtest_readl(dp->v->qts, qp->sq_dbrec +
                       offsetof(struct vhca_wq_dbrec, device_flags));
}

/* Wait until the device says it polls (or sleeps) this record. */
static void wait_flags(Dp *dp, DpQp *qp, uint32_t want)
{
    int waited;

    for (waited = 0; sq_flags(dp, qp) != want; waited += STEP_US) {
        g_assert_cmpint(waited, <, WAIT_US);
        g_usleep(STEP_US);
    }
}

/* A CQE written by the polling thread: wait for it. */
static void wait_cqe(Dp *dp, DpCq *cq, struct vhca_cqe *cqe, uint8_t status)
{
    int waited;

    for (waited = 0; !dp_poll_cq(dp, cq, cqe); waited += STEP_US) {
        g_assert_cmpint(waited, <, WAIT_US);
        g_usleep(STEP_US);
    }
    g_assert_cmpuint(cqe->status, ==, status);
}

/* Long enough for a polling thread to have seen a record several times. */
static void settle(void)
{
    g_usleep(50 * 1000);
}

/* A WRITE WQE into the ring; the record store announces it (no MMIO). */
static void put_write(Dp *dp, DpQp *qp, DpMem *m, uint64_t wr_id)
{
    DpWqe w;

    dp_wqe(&w, wr_id, VHCA_WQE_RDMA_WRITE, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, m->b, m->bkey);
    dp_wqe_sge(&w, m->a, 64, m->akey);
    dp_put_send(dp, qp, &w);
}

static void post_by_record(Dp *dp, DpQp *qp, DpMem *m, uint64_t wr_id)
{
    put_write(dp, qp, m, wr_id);
    qtest_writel(dp->v->qts, qp->sq_dbrec, qp->sq_pi);
}

static void ring_sq(Dp *dp, DpQp *qp)
{
    dp_db64(dp->v, 0, VHCA_DB_SQ, vhca_db_data_value(qp->h, 0, qp->sq_pi));
}

/* An RC pair whose requester a has a send record. */
static void sq_pair(Dp *dp, DpPair *p, DpMem *m)
{
    dp_mem(dp, m, DP_ALL_ACCESS);
    dp_fill(dp, m->a, 4096, 7);
    dp_create_cq(dp, &p->acq, DP_CQ_LOG);
    dp_create_cq(dp, &p->bcq, DP_CQ_LOG);
    g_assert_cmpuint(dp_create_qp_sq_dbrec(dp, &p->a, VHCA_QPT_RC, &p->acq,
                                           &p->acq, dp_alloc(dp, 64)), ==,
                     VHCA_CMD_OK);
    dp_create_qp(dp, &p->b, VHCA_QPT_RC, &p->bcq, &p->bcq);
    dp_pair_connect(dp, p, DP_ALL_ACCESS, 0);
}

/* sq_pair, a doorbell to wake the thread, and the thread polling a's
 * record. */
static void polled_pair(Dp *dp, DpPair *p, DpMem *m)
{
    sq_pair(dp, p, m);
    ring_sq(dp, &p->a);
    wait_flags(dp, &p->a, VHCA_WQ_DBREC_F_POLLED);
}

/* A WRITE announced by the record (and the doorbell if ring) completes. */
static void expect_write(Dp *dp, DpPair *p, DpMem *m, uint64_t wr_id,
                         bool ring)
{
    struct vhca_cqe cqe;

    post_by_record(dp, &p->a, m, wr_id);
    if (ring) {
        ring_sq(dp, &p->a);
    }
    wait_cqe(dp, &p->acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, wr_id);
}

/* Posting while the device polls: no doorbell at all. */
static void test_sqpoll_no_doorbell(void)
{
    Dp *dp = dp_start_with(LONG_WINDOW);
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    int i;

    g_assert_true(dp_dev_caps(dp) & VHCA_DEV_CAP_SQ_POLL);
    sq_pair(dp, &p, &m);
    /* Asleep: the flag is clear, the driver rings. */
    g_assert_cmpuint(sq_flags(dp, &p.a), ==, 0);
    post_by_record(dp, &p.a, &m, 1);
    ring_sq(dp, &p.a);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    wait_flags(dp, &p.a, VHCA_WQ_DBREC_F_POLLED);
    /* Polling: ten WQEs, each announced by a memory store only. */
    for (i = 0; i < 10; i++) {
        post_by_record(dp, &p.a, &m, 0x10 + i);
        wait_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
        g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x10 + i);
    }
    dp_assert_same(dp, m.a, m.b, 64);
    dp_stop(dp);
}

/* The window ends: flag clear, so the driver rings; the doorbell runs the
 * WQE and wakes the thread again.  (Whether a record store alone is seen
 * right after the flag clears is not asserted: the thread's last look at
 * the records after clearing it exists to catch exactly such a post, and
 * under load it comes late: the test failed once that way.) */
static void test_sqpoll_sleep_wake(void)
{
    Dp *dp = dp_start_with(SHORT_WINDOW);
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    sq_pair(dp, &p, &m);
    post_by_record(dp, &p.a, &m, 1);
    ring_sq(dp, &p.a);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    wait_flags(dp, &p.a, 0);
    post_by_record(dp, &p.a, &m, 2);
    ring_sq(dp, &p.a);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 2);
    wait_flags(dp, &p.a, VHCA_WQ_DBREC_F_POLLED);
    wait_flags(dp, &p.a, 0);
    dp_stop(dp);
}

/* Record values behind the index or more than a ring ahead: ignored. */
static void test_sqpoll_bad_record(void)
{
    Dp *dp = dp_start_with(LONG_WINDOW);
    DpPair p;
    DpMem m;

    polled_pair(dp, &p, &m);
    expect_write(dp, &p, &m, 1, false);
    qtest_writel(dp->v->qts, p.a.sq_dbrec, 1u << 20);
    settle();
    dp_expect_no_cqe(dp, &p.acq);
    qtest_writel(dp->v->qts, p.a.sq_dbrec, 0);      /* behind pi 1 */
    settle();
    dp_expect_no_cqe(dp, &p.acq);
    expect_write(dp, &p, &m, 2, false);
    dp_assert_state(dp, &p.a, VHCA_QPS_RTS);
    dp_stop(dp);
}

/*
 * QPs destroyed and reset while the thread polls their records and runs
 * their WQEs: the freed slots are not touched (records written after the
 * destroy change nothing), a reset QP starts again at index 0.
 */
static void test_sqpoll_destroy_reset(void)
{
    Dp *dp = dp_start_with(LONG_WINDOW);
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    int round, i;

    polled_pair(dp, &p, &m);
    for (round = 0; round < 3; round++) {
        DpCq cq;
        DpQp q;

        dp_create_cq(dp, &cq, DP_CQ_LOG);
        g_assert_cmpuint(dp_create_qp_sq_dbrec(dp, &q, VHCA_QPT_RC, &cq, &cq,
                                               dp_alloc(dp, 64)), ==,
                         VHCA_CMD_OK);
        /* Created while polling: told so at once. */
        g_assert_cmpuint(sq_flags(dp, &q), ==, VHCA_WQ_DBREC_F_POLLED);
        for (i = 0; i < 4; i++) {
            post_by_record(dp, &p.a, &m, 0x100 * round + i);
        }
        g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_QP, q.h, NULL), ==,
                         VHCA_CMD_OK);
        qtest_writel(dp->v->qts, q.sq_dbrec, 3);
        g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_CQ, cq.cqn, NULL), ==,
                         VHCA_CMD_OK);
        for (i = 0; i < 4; i++) {
            wait_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
        }
    }
    /* RESET while polled: indexes back to 0, the driver zeroes the
     * record, and the QP works again (both ends start anew). */
    g_assert_cmpuint(dp_set_state(dp, &p.a, VHCA_QPS_RESET), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_set_state(dp, &p.b, VHCA_QPS_RESET), ==, VHCA_CMD_OK);
    qtest_writel(dp->v->qts, p.a.sq_dbrec, 0);
    p.a.sq_pi = 0;
    p.b.rq_pi = 0;
    settle();
    dp_expect_no_cqe(dp, &p.acq);
    dp_pair_connect(dp, &p, DP_ALL_ACCESS, 0);
    expect_write(dp, &p, &m, 0x999, false);
    dp_stop(dp);
}

/* CONTROL.RESET while the thread polls: all QPs are gone, the thread
 * finds nothing to poll, and the device comes back up. */
static void test_sqpoll_device_reset(void)
{
    Dp *dp = dp_start_with(LONG_WINDOW);
    DpPair p;
    DpMem m;

    polled_pair(dp, &p, &m);
    post_by_record(dp, &p.a, &m, 1);
    wr(dp->v, VHCA_REG_CONTROL, VHCA_CONTROL_RESET);
    g_assert_cmpuint(rd(dp->v, VHCA_REG_STATUS), ==, 0);
    qtest_writel(dp->v->qts, p.a.sq_dbrec, 2);
    settle();
    /* Up again, with a new pair: polling works as before. */
    dp->nevents = 0;
    dp_setup(dp, 2);
    sq_pair(dp, &p, &m);
    expect_write(dp, &p, &m, 7, true);
    dp_stop(dp);
}

/* A QP without a record (an old driver) on a polling device, and a record
 * on a device with sq-poll=off: doorbells, the flag never set. */
static void test_sqpoll_doorbells_still_work(void)
{
    Dp *dp = dp_start_with(LONG_WINDOW);
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 0);
    dp_write(dp, &p.a, 5, m.b, m.bkey, m.a, 64, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_stop(dp);

    dp = dp_start_with(",sq-poll=off");
    g_assert_false(dp_dev_caps(dp) & VHCA_DEV_CAP_SQ_POLL);
    sq_pair(dp, &p, &m);
    post_by_record(dp, &p.a, &m, 1);
    settle();
    dp_expect_no_cqe(dp, &p.acq);
    g_assert_cmpuint(sq_flags(dp, &p.a), ==, 0);
    ring_sq(dp, &p.a);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(sq_flags(dp, &p.a), ==, 0);
    dp_stop(dp);
}

/* CREATE_QP refuses a send record it could not read. */
static void test_sqpoll_bad_addr(void)
{
    Dp *dp = dp_start_with(LONG_WINDOW);
    DpCq cq;
    DpQp qp;

    dp_create_cq(dp, &cq, DP_CQ_LOG);
    g_assert_cmpuint(dp_create_qp_sq_dbrec(dp, &qp, VHCA_QPT_RC, &cq, &cq,
                                           dp_alloc(dp, 64) + 4), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_create_qp_sq_dbrec(dp, &qp, VHCA_QPT_RC, &cq, &cq,
                                           vhca_ram_end(dp->v)), ==,
                     VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(dp_create_qp_sq_dbrec(dp, &qp, VHCA_QPT_RC, &cq, &cq,
                                           dp->v->db.addr), ==,
                     VHCA_CMD_BAD_ADDR);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/dp/sqpoll-no-doorbell", test_sqpoll_no_doorbell);
    qtest_add_func("/vhca/dp/sqpoll-sleep-wake", test_sqpoll_sleep_wake);
    qtest_add_func("/vhca/dp/sqpoll-bad-record", test_sqpoll_bad_record);
    qtest_add_func("/vhca/dp/sqpoll-destroy-reset", test_sqpoll_destroy_reset);
    qtest_add_func("/vhca/dp/sqpoll-device-reset", test_sqpoll_device_reset);
    qtest_add_func("/vhca/dp/sqpoll-doorbells", test_sqpoll_doorbells_still_work);
    qtest_add_func("/vhca/dp/sqpoll-bad-addr", test_sqpoll_bad_addr);
    return g_test_run();
}
