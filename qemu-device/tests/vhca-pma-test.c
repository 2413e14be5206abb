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
#define PMA_DETH_SIZE       8       /* IBA 9.3: a UD packet's DETH */
#define PMA_MAD_OCTETS      (VHCA_MAD_SIZE + PMA_DETH_SIZE + VHCA_LRH_SIZE + \
                             VHCA_BTH_SIZE + VHCA_ICRC_SIZE + VHCA_VCRC_SIZE)
#define PMA_WORDS(n)        ((n) * PMA_MAD_OCTETS / 4)

#define ATTR_CLASS_PORT_INFO    VHCA_PMA_ATTR_CLASS_PORT_INFO
#define ATTR_PORT_COUNTERS      VHCA_PMA_ATTR_PORT_COUNTERS
#define ATTR_PORT_COUNTERS_EXT  VHCA_PMA_ATTR_PORT_COUNTERS_EXT
#define GET                     VHCA_MGMT_METHOD_GET
#define PMA_DATA                VHCA_MAD_OFF(vhca_pma_mad, data)
#define SET                     VHCA_MGMT_METHOD_SET

/* The SA tests' rig (GSI QPs on ports 1 and 2), with the PMA's TIDs. */
static void pma_start(SaRig *r)
{
    sa_start(r);
    r->tid = PMA_TID;
    /* Port 2's GSI QP has a receive posted: a PMA request must not use it. */
    dp_post_recv(r->dp, &r->gsi[2], 0x900, r->m.b + 7 * PMA_RECV_SLOT,
                 VHCA_GRH_SIZE + VHCA_MAD_SIZE, r->m.bkey, 0, 0);
}

/* A PerfMgt MAD: PortSelect and CounterSelect as PortCounters has them. */
static void pma_mad(SaRig *r, uint8_t class_version, uint8_t method,
                    uint16_t attr, uint8_t port_select, uint16_t select,
                    uint8_t *mad)
{
    uint8_t *d = mad + PMA_DATA;

    vhca_mad_init(mad, VHCA_MGMT_CLASS_PERF_MGMT, class_version, method,
                  ++r->tid, attr);
    d[VHCA_PC(port_select)] = port_select;
    stw_be_p(d + VHCA_PC(counter_select), select);
}

/* Send mad from port 1 to port 2's QPN 1; the PMA's answer, its status. */
static uint16_t pma_ask(SaRig *r, const uint8_t *mad, uint8_t *resp)
{
    Dp *dp = r->dp;
    struct vhca_cqe cqe;

    dp_post_recv(dp, &r->gsi[1], 0x100, r->m.b, VHCA_GRH_SIZE + VHCA_MAD_SIZE,
                 r->m.bkey, 0, 0);
    qtest_memwrite(dp->v->qts, r->m.a, mad, VHCA_MAD_SIZE);
    dp_ud_send(dp, &r->gsi[1], 0x200, dp->lid[2], VHCA_GSI_QPN, PMA_QP1_QKEY,
               false, r->m.a, VHCA_MAD_SIZE, r->m.akey);
    dp_expect_cqe(dp, &r->cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_SEND);
    dp_expect_cqe(dp, &r->cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RECV);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, r->gsi[1].h);
    g_assert_cmpuint(le32_to_cpu(cqe.src_qp), ==, VHCA_GSI_QPN);
    g_assert_cmpuint(le16_to_cpu(cqe.slid), ==, dp->lid[2]);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==,
                     VHCA_GRH_SIZE + VHCA_MAD_SIZE);
    dp_expect_no_cqe(dp, &r->cq);   /* port 2's GSI QP got nothing */
    qtest_memread(dp->v->qts, r->m.b + VHCA_GRH_SIZE, resp, VHCA_MAD_SIZE);
    g_assert_cmpuint(vhca_mad_class(resp), ==, VHCA_MGMT_CLASS_PERF_MGMT);
    g_assert_cmpuint(vhca_mad_method(resp), ==, VHCA_MGMT_METHOD_GET_RESP);
    g_assert_cmphex(vhca_mad_tid(resp), ==, r->tid);
    g_assert_cmphex(vhca_mad_attr(resp), ==, vhca_mad_attr(mad));
    return vhca_mad_status(resp);
}

static uint16_t pma_query(SaRig *r, uint8_t method, uint16_t attr,
                          uint8_t port_select, uint16_t select,
                          uint8_t *resp)
{
    uint8_t mad[VHCA_MAD_SIZE];

    pma_mad(r, 1, method, attr, port_select, select, mad);
    return pma_ask(r, mad, resp);
}

static void test_pma_class_port_info(void)
{
    SaRig r;
    uint8_t resp[VHCA_MAD_SIZE];
    const uint8_t *d = resp + PMA_DATA;

    pma_start(&r);
    g_assert_cmphex(pma_query(&r, GET, ATTR_CLASS_PORT_INFO, 0, 0, resp),
                    ==, 0);
    g_assert_cmpuint(d[VHCA_CPI(base_version)], ==, 1);
    g_assert_cmpuint(d[VHCA_CPI(class_version)], ==, 1);
    g_assert_cmphex(lduw_be_p(d + VHCA_CPI(cap_mask)), ==,
                    VHCA_PMA_CAP_EXT_WIDTH);            /* ext. counters */
    dp_stop(r.dp);
}

/*
 * Port 2 is cleared, then read twice.  Each exchange is one MAD in (the
 * request, counted before the PMA reads) and one out (the answer, after).
 */
static void test_pma_counters_count_each_mad(void)
{
    SaRig r;
    uint8_t resp[VHCA_MAD_SIZE];
    const uint8_t *d = resp + PMA_DATA;

    pma_start(&r);
    g_assert_cmphex(pma_query(&r, SET, ATTR_PORT_COUNTERS, 2, 0xffff, resp),
                    ==, 0);
    g_assert_cmpuint(ldl_be_p(d + VHCA_PC(port_xmit_data)), ==, 0);
    g_assert_cmpuint(ldl_be_p(d + VHCA_PC(port_rcv_packets)), ==, 0);
    g_assert_cmphex(pma_query(&r, GET, ATTR_PORT_COUNTERS, 0, 0, resp),
                    ==, 0);
    g_assert_cmpuint(d[VHCA_PC(port_select)], ==, 0);
    g_assert_cmpuint(ldl_be_p(d + VHCA_PC(port_xmit_data)), ==, PMA_WORDS(1));
    g_assert_cmpuint(ldl_be_p(d + VHCA_PC(port_rcv_data)), ==, PMA_WORDS(1));
    g_assert_cmpuint(ldl_be_p(d + VHCA_PC(port_xmit_packets)), ==, 1);
    g_assert_cmpuint(ldl_be_p(d + VHCA_PC(port_rcv_packets)), ==, 1);
    g_assert_cmphex(pma_query(&r, GET, ATTR_PORT_COUNTERS_EXT, 2, 0, resp),
                    ==, 0);
    g_assert_cmpuint(ldq_be_p(d + VHCA_PCX(port_xmit_packets)), ==, 2);
    g_assert_cmpuint(ldq_be_p(d + VHCA_PCX(port_rcv_packets)), ==, 2);
    g_assert_cmpuint(ldq_be_p(d + VHCA_PCX(port_unicast_xmit_packets)), ==,
                     2);
    g_assert_cmpuint(ldq_be_p(d + VHCA_PCX(port_multicast_xmit_packets)), ==,
                     0);
    g_assert_cmpuint(ldq_be_p(d + VHCA_PCX(port_rcv_data)), ==, PMA_WORDS(2));
    /* Port 1 (the requester) counted its side: read through port 2. */
    g_assert_cmphex(pma_query(&r, GET, ATTR_PORT_COUNTERS_EXT, 1, 0, resp),
                    ==, 0);
    g_assert_cmpuint(ldq_be_p(d + VHCA_PCX(port_xmit_packets)), >=, 4);
    g_assert_cmpuint(ldq_be_p(d + VHCA_PCX(port_rcv_packets)), >=, 3);
    dp_stop(r.dp);
}

static void test_pma_errors(void)
{
    SaRig r;
    uint8_t mad[VHCA_MAD_SIZE], resp[VHCA_MAD_SIZE];

    pma_start(&r);
    g_assert_cmphex(pma_query(&r, GET, ATTR_PORT_COUNTERS, 3, 0, resp),
                    ==, VHCA_MAD_STATUS_INVALID_ATTR_VALUE);    /* no port 3 */
    g_assert_cmphex(pma_query(&r, SET, ATTR_CLASS_PORT_INFO, 0, 0, resp),
                    ==, VHCA_MAD_STATUS_UNSUP_METHOD_ATTR);
    g_assert_cmphex(pma_query(&r, GET, 0x0010, 0, 0, resp), ==,
                    VHCA_MAD_STATUS_UNSUP_METHOD_ATTR); /* not an attribute */
    g_assert_cmphex(pma_query(&r, 0x06, ATTR_PORT_COUNTERS, 0, 0, resp),
                    ==, VHCA_MAD_STATUS_UNSUP_METHOD);  /* not a method */
    pma_mad(&r, 2, GET, ATTR_PORT_COUNTERS, 0, 0, mad);
    g_assert_cmphex(pma_ask(&r, mad, resp), ==, VHCA_MAD_STATUS_BAD_VERSION);
    dp_stop(r.dp);
}

/* A PerfMgt response is the guest's: port 2's GSI QP receives it. */
static void test_pma_response_goes_to_the_guest(void)
{
    SaRig r;
    Dp *dp;
    uint8_t mad[VHCA_MAD_SIZE];
    struct vhca_cqe cqe;

    pma_start(&r);
    dp = r.dp;
    pma_mad(&r, 1, VHCA_MGMT_METHOD_GET_RESP, ATTR_PORT_COUNTERS, 0, 0, mad);
    qtest_memwrite(dp->v->qts, r.m.a, mad, VHCA_MAD_SIZE);
    dp_ud_send(dp, &r.gsi[1], 0x200, dp->lid[2], VHCA_GSI_QPN, PMA_QP1_QKEY,
               false, r.m.a, VHCA_MAD_SIZE, r.m.akey);
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
