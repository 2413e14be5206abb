/*
 * QTest testcase for vhca: the Performance Management Agent.
 *
 * PerfMgt MADs (class 0x04) sent from port 1's GSI QP to port 2's LID,
 * QPN 1, are answered by the device (never by port 2's GSI QP) from
 * port 2's LID and QPN 1; the port counters count every MAD on the link
 * exactly: one packet of 256 + 8 (DETH) + 26 (LRH, BTH, ICRC, VCRC)
 * octets, reported in 4-octet words (IBA 16.1.3.5).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define PMA_TID             0x0a0b0c0d00000000ull
#define PMA_QP1_QKEY        0x80010000u
#define PMA_RECV_SLOT       512     /* GRH + MAD, rounded */
#define PMA_MAD_OCTETS      (256 + 8 + 26)
#define PMA_WORDS(n)        ((n) * PMA_MAD_OCTETS / 4)

#define ATTR_CLASS_PORT_INFO    0x0001
#define ATTR_PORT_COUNTERS      0x0012
#define ATTR_PORT_COUNTERS_EXT  0x001d

/* The SA tests' rig (GSI QPs on ports 1 and 2), with the PMA's TIDs. */
static void pma_start(SaRig *r)
{
    sa_start(r);
    r->tid = PMA_TID;
    /* Port 2's GSI QP has a receive posted: a PMA request must not use it. */
    dp_post_recv(r->dp, &r->gsi[2], 0x900, r->m.b + 7 * PMA_RECV_SLOT,
                 40 + 256, r->m.bkey, 0, 0);
}

/* A PerfMgt MAD: PortSelect and CounterSelect at data bytes 1 and 2. */
static void pma_mad(SaRig *r, uint8_t class_version, uint8_t method,
                    uint16_t attr, uint8_t port_select, uint16_t select,
                    uint8_t *mad)
{
    memset(mad, 0, 256);
    mad[0] = 1;
    mad[1] = 0x04;
    mad[2] = class_version;
    mad[3] = method;
    stq_be_p(mad + 8, ++r->tid);
    stw_be_p(mad + 16, attr);
    mad[64 + 1] = port_select;
    stw_be_p(mad + 64 + 2, select);
}

/* Send mad from port 1 to port 2's QPN 1; the PMA's answer, its status. */
static uint16_t pma_ask(SaRig *r, const uint8_t *mad, uint8_t *resp)
{
    Dp *dp = r->dp;
    struct vhca_cqe cqe;

    dp_post_recv(dp, &r->gsi[1], 0x100, r->m.b, 40 + 256, r->m.bkey, 0, 0);
    qtest_memwrite(dp->v->qts, r->m.a, mad, 256);
    dp_ud_send(dp, &r->gsi[1], 0x200, dp->lid[2], 1, PMA_QP1_QKEY, false,
               r->m.a, 256, r->m.akey);
    dp_expect_cqe(dp, &r->cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_SEND);
    dp_expect_cqe(dp, &r->cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RECV);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, r->gsi[1].h);
    g_assert_cmpuint(le32_to_cpu(cqe.src_qp), ==, 1);
    g_assert_cmpuint(le16_to_cpu(cqe.slid), ==, dp->lid[2]);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 40 + 256);
    dp_expect_no_cqe(dp, &r->cq);   /* port 2's GSI QP got nothing */
    qtest_memread(dp->v->qts, r->m.b + 40, resp, 256);
    g_assert_cmpuint(resp[1], ==, 0x04);
    g_assert_cmpuint(resp[3], ==, 0x81);                /* GetResp */
    g_assert_cmphex(ldq_be_p(resp + 8), ==, r->tid);
    g_assert_cmphex(lduw_be_p(resp + 16), ==, lduw_be_p(mad + 16));
    return lduw_be_p(resp + 4);
}

static uint16_t pma_query(SaRig *r, uint8_t method, uint16_t attr,
                          uint8_t port_select, uint16_t select,
                          uint8_t *resp)
{
    uint8_t mad[256];

    pma_mad(r, 1, method, attr, port_select, select, mad);
    return pma_ask(r, mad, resp);
}

static void test_pma_class_port_info(void)
{
    SaRig r;
    uint8_t resp[256];

    pma_start(&r);
    g_assert_cmphex(pma_query(&r, 0x01, ATTR_CLASS_PORT_INFO, 0, 0, resp),
                    ==, 0);
    g_assert_cmpuint(resp[64], ==, 1);                  /* BaseVersion */
    g_assert_cmpuint(resp[65], ==, 1);                  /* ClassVersion */
    g_assert_cmphex(lduw_be_p(resp + 66), ==, 0x0200);  /* ext. counters */
    dp_stop(r.dp);
}

/*
 * Port 2 is cleared, then read twice.  Each exchange is one MAD in (the
 * request, counted before the PMA reads) and one out (the answer, after).
 */
static void test_pma_counters_count_each_mad(void)
{
    SaRig r;
    uint8_t resp[256];
    const uint8_t *d = resp + 64;

    pma_start(&r);
    g_assert_cmphex(pma_query(&r, 0x02, ATTR_PORT_COUNTERS, 2, 0xffff, resp),
                    ==, 0);
    g_assert_cmpuint(ldl_be_p(d + 24), ==, 0);          /* PortXmitData */
    g_assert_cmpuint(ldl_be_p(d + 36), ==, 0);          /* PortRcvPkts */
    g_assert_cmphex(pma_query(&r, 0x01, ATTR_PORT_COUNTERS, 0, 0, resp),
                    ==, 0);
    g_assert_cmpuint(d[1], ==, 0);                      /* PortSelect */
    g_assert_cmpuint(ldl_be_p(d + 24), ==, PMA_WORDS(1));
    g_assert_cmpuint(ldl_be_p(d + 28), ==, PMA_WORDS(1));
    g_assert_cmpuint(ldl_be_p(d + 32), ==, 1);          /* PortXmitPkts */
    g_assert_cmpuint(ldl_be_p(d + 36), ==, 1);
    g_assert_cmphex(pma_query(&r, 0x01, ATTR_PORT_COUNTERS_EXT, 2, 0, resp),
                    ==, 0);
    g_assert_cmpuint(ldq_be_p(d + 24), ==, 2);          /* PortXmitPkts */
    g_assert_cmpuint(ldq_be_p(d + 32), ==, 2);          /* PortRcvPkts */
    g_assert_cmpuint(ldq_be_p(d + 40), ==, 2);          /* unicast xmit */
    g_assert_cmpuint(ldq_be_p(d + 56), ==, 0);          /* multicast xmit */
    g_assert_cmpuint(ldq_be_p(d + 16), ==, PMA_WORDS(2));
    /* Port 1 (the requester) counted its side: read through port 2. */
    g_assert_cmphex(pma_query(&r, 0x01, ATTR_PORT_COUNTERS_EXT, 1, 0, resp),
                    ==, 0);
    g_assert_cmpuint(ldq_be_p(d + 24), >=, 4);
    g_assert_cmpuint(ldq_be_p(d + 32), >=, 3);
    dp_stop(r.dp);
}

static void test_pma_errors(void)
{
    SaRig r;
    uint8_t mad[256], resp[256];

    pma_start(&r);
    g_assert_cmphex(pma_query(&r, 0x01, ATTR_PORT_COUNTERS, 3, 0, resp),
                    ==, 0x001c);                        /* no port 3 */
    g_assert_cmphex(pma_query(&r, 0x02, ATTR_CLASS_PORT_INFO, 0, 0, resp),
                    ==, 0x000c);
    g_assert_cmphex(pma_query(&r, 0x01, 0x0010, 0, 0, resp), ==, 0x000c);
    g_assert_cmphex(pma_query(&r, 0x06, ATTR_PORT_COUNTERS, 0, 0, resp),
                    ==, 0x0008);
    pma_mad(&r, 2, 0x01, ATTR_PORT_COUNTERS, 0, 0, mad);
    g_assert_cmphex(pma_ask(&r, mad, resp), ==, 0x0004);
    dp_stop(r.dp);
}

/* A PerfMgt response is the guest's: port 2's GSI QP receives it. */
static void test_pma_response_goes_to_the_guest(void)
{
    SaRig r;
    Dp *dp;
    uint8_t mad[256];
    struct vhca_cqe cqe;

    pma_start(&r);
    dp = r.dp;
    pma_mad(&r, 1, 0x81, ATTR_PORT_COUNTERS, 0, 0, mad);
    qtest_memwrite(dp->v->qts, r.m.a, mad, 256);
    dp_ud_send(dp, &r.gsi[1], 0x200, dp->lid[2], 1, PMA_QP1_QKEY, false,
               r.m.a, 256, r.m.akey);
    /* Delivered as any datagram: the receive completes before the send. */
    dp_expect_cqe(dp, &r.cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RECV);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x900);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, r.gsi[2].h);
    dp_expect_cqe(dp, &r.cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_SEND);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/pma/class-port-info", test_pma_class_port_info);
    qtest_add_func("/vhca/pma/counters-count-each-mad",
                   test_pma_counters_count_each_mad);
    qtest_add_func("/vhca/pma/errors", test_pma_errors);
    qtest_add_func("/vhca/pma/response-goes-to-the-guest",
                   test_pma_response_goes_to_the_guest);
    return g_test_run();
}
