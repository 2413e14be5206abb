/*
 * qtest helpers: SubnAdm MADs sent from the GSI QPs of ports 1 and 2 to
 * the fabric SM's SA (LID 1, QPN 1) and their answers, for the tests of
 * the SA and of the SMs (vhca-sa-test.c, vhca-sm-arb-test.c).  Declared
 * with the data path helpers in vhca-qtest-dp.h (SaRig).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define SA_TID          0x0102030405060000ull
#define SA_QP1_QKEY     0x80010000u

/* GSI QPs on ports 1 and 2 of dp, and buffers. */
void sa_start_on(SaRig *r, Dp *dp)
{
    memset(r, 0, sizeof(*r));
    r->dp = dp;
    dp_mem(r->dp, &r->m, DP_ALL_ACCESS);
    dp_create_cq(r->dp, &r->cq, DP_CQ_LOG);
    dp_special(r->dp, &r->gsi[1], &r->cq, VHCA_QPT_GSI, 1);
    dp_special(r->dp, &r->gsi[2], &r->cq, VHCA_QPT_GSI, 2);
    r->tid = SA_TID;
}

void sa_start(SaRig *r)
{
    sa_start_on(r, dp_start());
}

/* A SubnAdm MAD at m.a: header, then rec (reclen bytes) at offset 56. */
void sa_mad(SaRig *r, uint8_t method, uint16_t attr, uint64_t mask,
            const uint8_t *rec, size_t reclen, uint8_t *mad)
{
    memset(mad, 0, 256);
    mad[0] = 1;
    mad[1] = 0x03;
    mad[2] = 2;
    mad[3] = method;
    stq_be_p(mad + 8, ++r->tid);
    stw_be_p(mad + 16, attr);
    stq_be_p(mad + 48, mask);
    if (rec) {
        memcpy(mad + 56, rec, reclen);
    }
}

/* Send the 256 bytes at mad from port's GSI QP to the SA; the send is ok. */
void sa_send(SaRig *r, int port, const uint8_t *mad, uint32_t len)
{
    Dp *dp = r->dp;
    struct vhca_cqe cqe;

    qtest_memwrite(dp->v->qts, r->m.a, mad, 256);
    dp_ud_send(dp, &r->gsi[port], 0x200 + r->wr_id, 1, 1, SA_QP1_QKEY,
               false, r->m.a, len, r->m.akey);
    dp_expect_cqe(dp, &r->cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x200 + r->wr_id);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_SEND);
    r->wr_id++;
}

void sa_post_recvs(SaRig *r, int port, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        dp_post_recv(r->dp, &r->gsi[port], 0x100 + i,
                     r->m.b + i * SA_RECV_SLOT, 40 + 256, r->m.bkey, 0, 0);
    }
}

/* The next answer on port's GSI QP (receive slot i), from SLID 1, QPN 1. */
void sa_answer(SaRig *r, int port, int i, uint8_t *resp)
{
    Dp *dp = r->dp;
    struct vhca_cqe cqe;

    dp_expect_cqe(dp, &r->cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x100 + i);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RECV);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, r->gsi[port].h);
    g_assert_cmpuint(le32_to_cpu(cqe.src_qp), ==, 1);
    g_assert_cmpuint(le16_to_cpu(cqe.slid), ==, 1);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 40 + 256);
    qtest_memread(dp->v->qts, r->m.b + i * SA_RECV_SLOT + 40, resp, 256);
    g_assert_cmpuint(resp[0], ==, 1);
    g_assert_cmpuint(resp[1], ==, 0x03);
}

/* One request from port 1, one answer: its status. */
uint16_t sa_query(SaRig *r, uint8_t method, uint16_t attr, uint64_t mask,
                  const uint8_t *rec, size_t reclen, uint8_t *resp)
{
    uint8_t mad[256];

    sa_mad(r, method, attr, mask, rec, reclen, mad);
    sa_post_recvs(r, 1, 1);
    sa_send(r, 1, mad, 256);
    sa_answer(r, 1, 0, resp);
    dp_expect_no_cqe(r->dp, &r->cq);
    g_assert_cmpuint(resp[2], ==, 2);
    g_assert_cmphex(ldq_be_p(resp + 8), ==, r->tid);
    g_assert_cmphex(lduw_be_p(resp + 16), ==, attr);
    return lduw_be_p(resp + 4);
}

void sa_port_gid(SaRig *r, int port, uint8_t *gid)
{
    struct vhca_port_attr pa;

    g_assert_cmpuint(vhca_query_port(r->dp->v, port, &pa), ==, VHCA_CMD_OK);
    stq_be_p(gid, 0xfe80000000000000ull);
    stq_be_p(gid + 8, le64_to_cpu(pa.port_guid));
}
