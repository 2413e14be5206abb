/*
 * QTest testcase for vhca: ATOMIC WRITE (IBA 1.5 9.4.6, VHCA_WQE_ATOMIC_
 * WRITE).  The 8 bytes of the WQE's atomic segment are stored unchanged
 * at an 8-byte aligned remote address with RDMA WRITE's rights; the
 * requester completes with VHCA_CQE_ATOMIC_WRITE and the responder
 * consumes no receive WQE.  Refused: a misaligned address (NAK invalid
 * request), a QP or region without remote write (NAK remote access), a
 * WQE with SGEs or inline data and the opcode on UC (local QP operation
 * errors: malformed WQEs).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

static const uint8_t kBytes[8] = { 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04 };

/* An ATOMIC_WRITE WQE storing kBytes at addr through rkey. */
static void aw_wqe(DpWqe *w, uint64_t wr_id, uint64_t addr, uint32_t rkey)
{
    dp_wqe(w, wr_id, VHCA_WQE_ATOMIC_WRITE, VHCA_WQE_F_SIGNALED);
    dp_wqe_atomic(w, addr, rkey, 0, ldq_le_p(kBytes));
}

static void aw_assert_bytes(Dp *dp, uint64_t addr, const uint8_t *want)
{
    uint8_t got[8];

    qtest_memread(dp->v->qts, addr, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), want, 8);
}

static void test_atomic_write_cap(void)
{
    Dp *dp = dp_start();
    struct vhca_device_attr attr;

    dp_query_device(dp, &attr);
    g_assert_true(le32_to_cpu(attr.dev_caps) & VHCA_DEV_CAP_ATOMIC_WRITE);
    dp_stop(dp);
}

static void test_atomic_write_stores(void)
{
    Dp *dp = dp_start();
    const uint8_t zero[8] = { 0 };
    uint64_t pages[4], iova = 0x7000000000ull;
    struct vhca_cqe cqe;
    uint32_t rkey;
    DpPair p;
    DpMem m;
    DpWqe w;

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    qtest_writeq(dp->v->qts, m.b + 64, 0);
    qtest_writeq(dp->v->qts, m.b + 72, 0x5555555555555555ull);

    aw_wqe(&w, 1, m.b + 64, m.bkey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_ATOMIC_WRITE);
    g_assert_cmpuint(le64_to_cpu(cqe.wr_id), ==, 1);
    dp_expect_no_cqe(dp, &p.bcq);
    aw_assert_bytes(dp, m.b + 64, kBytes);
    /* exactly 8 bytes: the next word is untouched */
    g_assert_cmphex(qtest_readq(dp->v->qts, m.b + 72), ==,
                    0x5555555555555555ull);

    /* through a page-list region at an iova, on its last word */
    rkey = dp_mr_pages(dp, iova, pages, DP_ALL_ACCESS);
    qtest_memwrite(dp->v->qts, pages[0] + 4088, zero, sizeof(zero));
    aw_wqe(&w, 2, iova + 4 * 4096 - 8, rkey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    aw_assert_bytes(dp, pages[0] + 4088, kBytes);
    dp_stop(dp);
}

/* IBA 1.5 9.4.6: an ATOMIC WRITE not at an 8-byte boundary is the
 * responder's invalid request, and nothing is written. */
static void test_atomic_write_misaligned(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    DpWqe w;

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    qtest_writeq(dp->v->qts, m.b + 64, 7);
    aw_wqe(&w, 1, m.b + 68, m.bkey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_invalid_request(dp, &p, &cqe);
    g_assert_cmphex(qtest_readq(dp->v->qts, m.b + 64), ==, 7);
    g_assert_cmphex(qtest_readq(dp->v->qts, m.b + 72), ==, 0);
    dp_stop(dp);
}

/* RDMA WRITE's rights, not the atomics': the responder QP needs remote
 * write (a QP with only remote atomic refuses), and so does the region. */
static void test_atomic_write_access(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    uint32_t key;
    DpPair p, q;
    DpMem m;
    DpWqe w;

    dp_pair(dp, &p, VHCA_QPT_RC, VHCA_ACCESS_LOCAL_WRITE |
            VHCA_ACCESS_REMOTE_ATOMIC, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    aw_wqe(&w, 1, m.b + 64, m.bkey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_REM_ACCESS_ERR);
    g_assert_cmphex(qtest_readq(dp->v->qts, m.b + 64), ==, 0);
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_ACCESS_ERR,
                                p.b.h));

    dp_pair(dp, &q, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    key = dp_mr_phys(dp, dp->pd, m.b, 4096, VHCA_ACCESS_LOCAL_WRITE |
                     VHCA_ACCESS_REMOTE_ATOMIC | VHCA_ACCESS_REMOTE_READ);
    aw_wqe(&w, 2, m.b + 128, key);
    dp_post_send(dp, &q.a, &w);
    dp_expect_cqe(dp, &q.acq, &cqe, VHCA_WC_REM_ACCESS_ERR);
    g_assert_cmphex(qtest_readq(dp->v->qts, m.b + 128), ==, 0);
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_ACCESS_ERR,
                                q.b.h));
    dp_stop(dp);
}

/* Malformed: the bytes are the segment's; an SGE, inline data or a UC
 * QP make it a local QP operation error (vhca_hw_wqe_rules.h). */
static void test_atomic_write_malformed(void)
{
    Dp *dp = dp_start();
    struct vhca_wqe_ctrl *c;
    struct vhca_cqe cqe;
    DpPair p, u;
    DpMem m;
    DpWqe w;

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    aw_wqe(&w, 1, m.b + 64, m.bkey);
    dp_wqe_sge(&w, m.a, 8, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_LOC_QP_OP_ERR);
    g_assert_cmphex(qtest_readq(dp->v->qts, m.b + 64), ==, 0);

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    aw_wqe(&w, 2, m.b + 64, m.bkey);
    c = (void *)w.b;
    c->flags |= VHCA_WQE_F_INLINE;
    c->inline_len = cpu_to_le32(8);
    w.off += 8;
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_LOC_QP_OP_ERR);

    dp_pair(dp, &u, VHCA_QPT_UC, DP_ALL_ACCESS, 7);
    aw_wqe(&w, 3, m.b + 64, m.bkey);
    dp_post_send(dp, &u.a, &w);
    dp_expect_cqe(dp, &u.acq, &cqe, VHCA_WC_LOC_QP_OP_ERR);
    g_assert_cmphex(qtest_readq(dp->v->qts, m.b + 64), ==, 0);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/atomic-write/cap", test_atomic_write_cap);
    qtest_add_func("/vhca/atomic-write/stores", test_atomic_write_stores);
    qtest_add_func("/vhca/atomic-write/misaligned",
                   test_atomic_write_misaligned);
    qtest_add_func("/vhca/atomic-write/access", test_atomic_write_access);
    qtest_add_func("/vhca/atomic-write/malformed",
                   test_atomic_write_malformed);
    return g_test_run();
}
