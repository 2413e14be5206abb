/*
 * QTest testcase for vhca: FLUSH (IBA 1.5 A19.4.1, the memory placement
 * extensions; VHCA_WQE_FLUSH).  A FLUSH after RDMA WRITEs completes with
 * VHCA_CQE_FLUSH once they are placed, for each placement type (global
 * visibility, persistence) and selectivity (a range, the whole region);
 * the responder consumes no receive WQE.  Refused: a QP or region without
 * the VHCA_ACCESS_FLUSH_* right of the placement type asked for, and a
 * range outside the region (NAK remote access); a placement type 0 (NAK
 * invalid request); the opcode on UC and UD, and a WQE with SGEs (local
 * QP operation errors: malformed WQEs).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define FLUSH_ACCESS (DP_ALL_ACCESS | VHCA_ACCESS_FLUSH)

/* A signaled FLUSH WQE: its segment, no SGEs. */
static void flush_wqe(DpWqe *w, uint64_t wr_id, uint64_t addr,
                      uint32_t rkey, uint32_t len, uint8_t type,
                      uint8_t level)
{
    dp_wqe(w, wr_id, VHCA_WQE_FLUSH, VHCA_WQE_F_SIGNALED);
    dp_wqe_flush(w, addr, rkey, len, type, level);
}

static void test_flush_cap(void)
{
    Dp *dp = dp_start();
    uint32_t caps = dp_dev_caps(dp);

    g_assert_true(caps & VHCA_DEV_CAP_FLUSH_GLOBAL);
    g_assert_true(caps & VHCA_DEV_CAP_FLUSH_PERSISTENT);
    dp_stop(dp);
}

/* WRITE, then FLUSH of every placement type and selectivity: each FLUSH
 * completes after the WRITE before it, whose bytes are in place. */
static void test_flush_after_write(void)
{
    static const struct {
        uint8_t type, level;
    } kinds[] = {
        { VHCA_FLUSH_GLOBAL, VHCA_FLUSH_RANGE },
        { VHCA_FLUSH_PERSISTENT, VHCA_FLUSH_RANGE },
        { VHCA_FLUSH_GLOBAL | VHCA_FLUSH_PERSISTENT, VHCA_FLUSH_RANGE },
        { VHCA_FLUSH_GLOBAL, VHCA_FLUSH_MR },
        { VHCA_FLUSH_PERSISTENT, VHCA_FLUSH_MR },
    };
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    DpWqe w;
    unsigned i;

    dp_pair(dp, &p, VHCA_QPT_RC, FLUSH_ACCESS, 7);
    dp_mem(dp, &m, FLUSH_ACCESS);
    for (i = 0; i < G_N_ELEMENTS(kinds); i++) {
        uint64_t off = 512 * i;

        dp_fill(dp, m.a + off, 512, 0x30 + i);
        dp_write(dp, &p.a, 10 + i, m.b + off, m.bkey, m.a + off, 512, m.akey);
        dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
        /* MR selectivity ignores the range: one past the region is fine */
        flush_wqe(&w, 20 + i, kinds[i].level == VHCA_FLUSH_MR ?
                  m.b + (1ull << 40) : m.b + off, m.bkey,
                  kinds[i].level == VHCA_FLUSH_MR ? 0xffffffffu : 512,
                  kinds[i].type, kinds[i].level);
        dp_post_send(dp, &p.a, &w);
        dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
        g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_FLUSH);
        g_assert_cmpuint(le64_to_cpu(cqe.wr_id), ==, 20 + i);
        g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 0);
        dp_assert_same(dp, m.a + off, m.b + off, 512);
    }
    /* a range of 0 bytes names nothing to check */
    flush_wqe(&w, 30, m.b, m.bkey, 0, VHCA_FLUSH_GLOBAL, VHCA_FLUSH_RANGE);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_no_cqe(dp, &p.bcq);
    dp_stop(dp);
}

/* FLUSH of a placement type the region or the QP lacks, or of a range
 * outside the region: NAK remote access error, the responder QP to ERR
 * with an access error event. */
static void test_flush_access(void)
{
    static const struct {
        uint32_t qp_access, mr_access;
        uint8_t type;
        uint32_t len;
    } cases[] = {
        /* rdma-core's test_qp_ex_rc_flush_type_violate */
        { FLUSH_ACCESS, DP_ALL_ACCESS | VHCA_ACCESS_FLUSH_GLOBAL,
          VHCA_FLUSH_PERSISTENT, 64 },
        { FLUSH_ACCESS, DP_ALL_ACCESS | VHCA_ACCESS_FLUSH_PERSISTENT,
          VHCA_FLUSH_GLOBAL | VHCA_FLUSH_PERSISTENT, 64 },
        { FLUSH_ACCESS, DP_ALL_ACCESS, VHCA_FLUSH_GLOBAL, 64 },
        { DP_ALL_ACCESS, FLUSH_ACCESS, VHCA_FLUSH_GLOBAL, 64 },
        { FLUSH_ACCESS, FLUSH_ACCESS, VHCA_FLUSH_GLOBAL, 4097 },
    };
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    uint64_t buf = dp_alloc(dp, 4096);
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(cases); i++) {
        uint32_t key = dp_mr_phys(dp, dp->pd, buf, 4096, cases[i].mr_access);
        DpPair p;
        DpWqe w;

        dp_pair(dp, &p, VHCA_QPT_RC, cases[i].qp_access, 7);
        flush_wqe(&w, i, buf, key, cases[i].len, cases[i].type,
                  VHCA_FLUSH_RANGE);
        dp_post_send(dp, &p.a, &w);
        dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_REM_ACCESS_ERR);
        g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT,
                                    VHCA_QP_EV_ACCESS_ERR, p.b.h));
    }
    dp_stop(dp);
}

/* A FETH without a placement type is the responder's invalid request. */
static void test_flush_no_type(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    DpWqe w;

    dp_pair(dp, &p, VHCA_QPT_RC, FLUSH_ACCESS, 7);
    dp_mem(dp, &m, FLUSH_ACCESS);
    flush_wqe(&w, 1, m.b, m.bkey, 64, 0, VHCA_FLUSH_RANGE);
    dp_post_send(dp, &p.a, &w);
    dp_expect_invalid_request(dp, &p, &cqe);
    dp_stop(dp);
}

/* RC and XRC only (IBA 1.5 A19.4.1): on UC and UD, and with an SGE, the
 * WQE is malformed (local QP operation error). */
static void test_flush_refused(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p, u, d;
    DpMem m;
    DpWqe w;

    dp_mem(dp, &m, FLUSH_ACCESS);
    dp_pair(dp, &u, VHCA_QPT_UC, FLUSH_ACCESS, 7);
    flush_wqe(&w, 1, m.b, m.bkey, 64, VHCA_FLUSH_GLOBAL, VHCA_FLUSH_RANGE);
    dp_post_send(dp, &u.a, &w);
    dp_expect_cqe(dp, &u.acq, &cqe, VHCA_WC_LOC_QP_OP_ERR);

    dp_create_cq(dp, &d.acq, DP_CQ_LOG);
    dp_create_qp(dp, &d.a, VHCA_QPT_UD, &d.acq, &d.acq);
    g_assert_cmpuint(dp_to_init(dp, &d.a, 1, 0), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dp, &d.a, 0, 0, 0), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dp, &d.a, 0), ==, VHCA_CMD_OK);
    flush_wqe(&w, 2, m.b, m.bkey, 64, VHCA_FLUSH_GLOBAL, VHCA_FLUSH_RANGE);
    dp_post_send(dp, &d.a, &w);
    dp_expect_cqe(dp, &d.acq, &cqe, VHCA_WC_LOC_QP_OP_ERR);
    g_assert_cmpuint(le64_to_cpu(cqe.wr_id), ==, 2);

    dp_pair(dp, &p, VHCA_QPT_RC, FLUSH_ACCESS, 7);
    flush_wqe(&w, 3, m.b, m.bkey, 64, VHCA_FLUSH_GLOBAL, VHCA_FLUSH_RANGE);
    dp_wqe_sge(&w, m.a, 8, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_LOC_QP_OP_ERR);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/flush/cap", test_flush_cap);
    qtest_add_func("/vhca/flush/after-write", test_flush_after_write);
    qtest_add_func("/vhca/flush/access", test_flush_access);
    qtest_add_func("/vhca/flush/no-type", test_flush_no_type);
    qtest_add_func("/vhca/flush/refused", test_flush_refused);
    return g_test_run();
}
