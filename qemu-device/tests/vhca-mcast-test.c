/*
 * QTest testcase for vhca: multicast.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define DP_MLID     0xc001

static uint8_t dp_mcast(Dp *dp, uint16_t opcode, uint32_t qp, uint16_t mlid)
{
    struct vhca_cmd_mcast_in *in;
    struct vhca_cmd cmd;

    cmd_init(dp->v, &cmd, opcode);
    in = (void *)cmd.in.raw;
    in->qpn = cpu_to_le32(qp);
    in->mlid = cpu_to_le16(mlid);
    in->mgid[0] = 0xff;
    return dp_exec(dp, &cmd, NULL);
}

static void dp_ud_qp(Dp *dp, DpQp *qp, DpCq *cq, uint8_t port)
{
    dp_create_qp(dp, qp, VHCA_QPT_UD, cq, cq);
    g_assert_cmpuint(dp_to_init(dp, qp, port, 0), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dp, qp, 0, 0, 0), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dp, qp, 0), ==, VHCA_CMD_OK);
}

static void test_dp_mcast(void)
{
    Dp *dp = dp_start();
    DpQp snd, r1, r2, r3, rc;
    DpCq cs, c1, c2, c3;
    struct vhca_cqe cqe;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 512, 33);
    dp_create_cq(dp, &cs, DP_CQ_LOG);
    dp_create_cq(dp, &c1, DP_CQ_LOG);
    dp_create_cq(dp, &c2, DP_CQ_LOG);
    dp_create_cq(dp, &c3, DP_CQ_LOG);
    dp_ud_qp(dp, &snd, &cs, 1);
    dp_ud_qp(dp, &r1, &c1, 1);
    dp_ud_qp(dp, &r2, &c2, 2);
    dp_ud_qp(dp, &r3, &c3, 2);
    dp_create_qp(dp, &rc, VHCA_QPT_RC, &cs, &cs);

    /* Commands. */
    g_assert_cmpuint(dp_mcast(dp, VHCA_CMD_ATTACH_MCAST, r1.h, 0xbfff), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_mcast(dp, VHCA_CMD_ATTACH_MCAST, r1.h, 0xffff), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_mcast(dp, VHCA_CMD_ATTACH_MCAST, rc.h, DP_MLID), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_mcast(dp, VHCA_CMD_ATTACH_MCAST, 0x4321, DP_MLID), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_mcast(dp, VHCA_CMD_DETACH_MCAST, r1.h, DP_MLID), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_mcast(dp, VHCA_CMD_ATTACH_MCAST, r1.h, DP_MLID), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_mcast(dp, VHCA_CMD_ATTACH_MCAST, r1.h, DP_MLID), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_mcast(dp, VHCA_CMD_ATTACH_MCAST, r2.h, DP_MLID), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_mcast(dp, VHCA_CMD_ATTACH_MCAST, r3.h, DP_MLID), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_mcast(dp, VHCA_CMD_ATTACH_MCAST, snd.h, DP_MLID), ==,
                     VHCA_CMD_OK);

    /* One send, a copy for every attached QP on both ports but the sender. */
    dp_post_recv(dp, &r1, 1, m.b, 40 + 512, m.bkey, 0, 0);
    dp_post_recv(dp, &r2, 2, m.b + 4096, 40 + 512, m.bkey, 0, 0);
    dp_post_recv(dp, &r3, 3, m.b + 8192, 40 + 512, m.bkey, 0, 0);
    dp_post_recv(dp, &snd, 4, m.b + 12288, 40 + 512, m.bkey, 0, 0);
    dp_ud_send(dp, &snd, 9, DP_MLID, 0xffffff, DP_QKEY, true, m.a, 512,
               m.akey);
    dp_expect_cqe(dp, &cs, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 9);
    dp_expect_no_cqe(dp, &cs);
    dp_expect_cqe(dp, &c1, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.flags & VHCA_CQE_F_GRH, ==, VHCA_CQE_F_GRH);
    g_assert_cmphex(le32_to_cpu(cqe.src_qp), ==, snd.h);
    dp_expect_cqe(dp, &c2, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &c3, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.a, m.b + 40, 512);
    dp_assert_same(dp, m.a, m.b + 4096 + 40, 512);
    dp_assert_same(dp, m.a, m.b + 8192 + 40, 512);

    /* Detached, or destroyed: no copy. */
    g_assert_cmpuint(dp_mcast(dp, VHCA_CMD_DETACH_MCAST, r2.h, DP_MLID), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_QP, r3.h, NULL), ==,
                     VHCA_CMD_OK);
    dp_post_recv(dp, &r1, 5, m.b, 40 + 512, m.bkey, 0, 0);
    dp_post_recv(dp, &r2, 6, m.b + 4096, 40 + 512, m.bkey, 0, 0);
    dp_ud_send(dp, &snd, 10, DP_MLID, 0xffffff, DP_QKEY, true, m.a, 64,
               m.akey);
    dp_expect_cqe(dp, &cs, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &c1, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 5);
    dp_expect_no_cqe(dp, &c2);
    dp_expect_no_cqe(dp, &c3);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/dp/multicast", test_dp_mcast);
    return g_test_run();
}
