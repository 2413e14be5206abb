/*
 * QTest testcase for vhca: dp-lockless=on, SQ doorbells that run the send
 * queue without the BQL (vhca-dp-lock.c).  qtest drives the device from
 * one thread, so no two send queues run at once here; what is checked is
 * that the lockless path runs (the dp-lockless-runs counter) and does
 * what the BQL path does, that what it must not do falls back or faults,
 * that MSI-X still arrives, and that a reset or destroy right after a
 * doorbell (its leftover WQEs in the transport bottom half) is excluded.
 * Every other qtest program runs with the property too:
 * VHCA_QTEST_DEVICE=,dp-lockless=on make check-qtest (testing.md).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define LOCKLESS        ",dp-lockless=on"
#define ROM_ADDR        0xfffff000ull   /* the BIOS's last page */

/* SEND, RDMA WRITE, RDMA READ and an atomic, each by one doorbell. */
static void lockless_ops(Dp *dp, uint8_t type)
{
    struct vhca_cqe cqe;
    uint64_t orig;
    DpWqe w;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 4096, 7);
    dp_pair(dp, &p, type, DP_ALL_ACCESS, 7);
    dp_post_recv(dp, &p.b, 0xb0, m.b, 1024, m.bkey, 0, 0);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 100,
            m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 100);
    dp_assert_same(dp, m.a, m.b, 100);

    dp_write(dp, &p.a, 2, m.b + 2048, m.bkey, m.a + 100, 1000, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.a + 100, m.b + 2048, 1000);
    if (type != VHCA_QPT_RC) {
        return;
    }
    dp_wqe(&w, 3, VHCA_WQE_RDMA_READ, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, m.b + 2048, m.bkey);
    dp_wqe_sge(&w, m.a + 8192, 1000, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.a + 8192, m.b + 2048, 1000);

    qtest_writeq(dp->v->qts, m.b + 4096, 40);
    dp_atomic(dp, &p.a, 4, VHCA_WQE_ATOMIC_FETCH_AND_ADD, m.b + 4096, m.bkey,
              2, 0, m.a + 12288, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(qtest_readq(dp->v->qts, m.b + 4096), ==, 42);
    orig = qtest_readq(dp->v->qts, m.a + 12288);
    g_assert_cmpuint(orig, ==, 40);
}

/* RC and UC run lockless, with the same results as the BQL path. */
static void test_lockless_ops(void)
{
    Dp *dp = dp_start_with(LOCKLESS);

    lockless_ops(dp, VHCA_QPT_RC);
    g_assert_cmpuint(dp_qom_get_uint(dp, "dp-lockless-runs"), ==, 4);
    lockless_ops(dp, VHCA_QPT_UC);
    g_assert_cmpuint(dp_qom_get_uint(dp, "dp-lockless-runs"), ==, 6);
    g_assert_cmpuint(dp_qom_get_uint(dp, "dp-lockless-fallbacks"), ==, 0);
    dp_stop(dp);
}

/* Off (the default), or with loss injection: the BQL path, same results. */
static void test_lockless_fallback(void)
{
    Dp *dp = dp_start_with(",dp-lockless=off");   /* after VHCA_QTEST_DEVICE */

    lockless_ops(dp, VHCA_QPT_RC);
    g_assert_cmpuint(dp_qom_get_uint(dp, "dp-lockless-runs"), ==, 0);
    g_assert_cmpuint(dp_qom_get_uint(dp, "dp-lockless-fallbacks"), ==, 0);
    dp_stop(dp);

    dp = dp_start_with(LOCKLESS ",rc-drop-request=1000");
    lockless_ops(dp, VHCA_QPT_RC);
    g_assert_cmpuint(dp_qom_get_uint(dp, "dp-lockless-runs"), ==, 0);
    g_assert_cmpuint(dp_qom_get_uint(dp, "dp-lockless-fallbacks"), ==, 4);
    dp_stop(dp);
}

/* A completion event raised without the BQL: EQE and MSI-X message. */
static void test_lockless_msix(void)
{
    Dp *dp = dp_start_with(LOCKLESS);
    struct vhca_cqe cqe;
    uint64_t word;
    DpPair p;
    DpMem m;

    qpci_msix_enable(dp->v->dev);
    word = msix_route_to_ram(dp->v, 1);
    db_write(dp->v, VHCA_DB_EQ, vhca_db_eq_value(dp->eqn, 0, 1));
    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_db64(dp->v, 0, VHCA_DB_CQ,
            vhca_db_data_value(p.acq.cqn, VHCA_DB_CQ_ARM_NEXT, p.acq.ci));
    g_assert_false(msix_fired(dp->v, word));
    dp_post_recv(dp, &p.b, 0xb0, m.b, 64, m.bkey, 0, 0);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    g_assert_true(msix_fired(dp->v, word));
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(dp_qom_get_uint(dp, "dp-lockless-runs"), ==, 1);
    dp_stop(dp);
}

/*
 * DMA that is not plain RAM would take the BQL inside the memory API: the
 * lockless path refuses it (ROM as a SEND's source, which the BQL path
 * reads), the WQE fails as any DMA fault does, and the QP's next doorbell
 * (in ERR) is flushed on the BQL path.
 */
static void test_lockless_not_ram(void)
{
    Dp *dp = dp_start_with(LOCKLESS);
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_post_recv(dp, &p.b, 0xb0, m.b, 4096, m.bkey, 0, 0);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, ROM_ADDR, 4096,
            VHCA_LOCAL_DMA_LKEY);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_REM_OP_ERR);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_LOC_PROT_ERR);
    g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_DMA_FAULT);
    g_assert_cmpuint(dp_qom_get_uint(dp, "dp-lockless-runs"), ==, 1);
    dp_send(dp, &p.a, 2, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_WR_FLUSH_ERR);
    g_assert_cmpuint(dp_qom_get_uint(dp, "dp-lockless-fallbacks"), ==, 1);
    dp_stop(dp);
}

/*
 * A SEND without a receive waits for an RNR retry: the lockless path arms
 * the QP's timer.  DESTROY_QP before it fires: nothing of the old QP runs
 * after (no CQE when the clock passes the retry).  Then 15 WRITEs behind
 * one doorbell of a fresh pair, and CONTROL.RESET right after: the device
 * comes back and runs lockless again.
 */
static void test_lockless_destroy_reset(void)
{
    Dp *dp = dp_start_with(LOCKLESS);
    struct vhca_cqe cqe;
    DpWqe w;
    DpPair p;
    DpMem m;
    int i;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    g_assert_cmpuint(dp_qom_get_uint(dp, "dp-lockless-runs"), ==, 1);
    dp_expect_no_cqe(dp, &p.acq);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_QP, p.a.h, NULL), ==,
                     VHCA_CMD_OK);
    dp_post_recv(dp, &p.b, 0xb0, m.b, 64, m.bkey, 0, 0);
    qtest_clock_step(dp->v->qts, 1000000000);
    dp_expect_no_cqe(dp, &p.acq);
    dp_expect_no_cqe(dp, &p.bcq);

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    for (i = 0; i < 14; i++) {
        dp_wqe(&w, i, VHCA_WQE_RDMA_WRITE, 0);
        dp_wqe_raddr(&w, m.b, m.bkey);
        dp_wqe_sge(&w, m.a, 64, m.akey);
        dp_put_send(dp, &p.a, &w);
    }
    dp_write(dp, &p.a, 14, m.b, m.bkey, m.a, 64, m.akey);  /* 1 doorbell */
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 14);
    g_assert_cmpuint(dp_qom_get_uint(dp, "dp-lockless-runs"), ==, 2);
    dp_write(dp, &p.a, 15, m.b, m.bkey, m.a, 64, m.akey);
    wr(dp->v, VHCA_REG_CONTROL, VHCA_CONTROL_RESET);
    g_assert_cmphex(rd(dp->v, VHCA_REG_STATUS), ==, 0);
    dp->eq_ci = 0;
    dp->nevents = 0;
    dp_setup(dp, 2);
    lockless_ops(dp, VHCA_QPT_RC);
    g_assert_cmpuint(dp_qom_get_uint(dp, "dp-lockless-runs"), ==, 7);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/dp-lockless/ops", test_lockless_ops);
    qtest_add_func("/vhca/dp-lockless/fallback", test_lockless_fallback);
    qtest_add_func("/vhca/dp-lockless/msix", test_lockless_msix);
    qtest_add_func("/vhca/dp-lockless/not-ram", test_lockless_not_ram);
    qtest_add_func("/vhca/dp-lockless/destroy-reset",
                   test_lockless_destroy_reset);
    return g_test_run();
}
