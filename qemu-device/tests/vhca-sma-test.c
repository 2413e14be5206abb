/*
 * QTest testcase for vhca: the Subnet Management Agent.
 *
 * SMPs sent on port 1's SMI QP to the port itself (LID-routed to its LID,
 * or directed-route with hop count 0) come back as GetResp receive
 * completions on the same QP.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define SMA_TID     0x1122334455667788ull

typedef struct SmaRig {
    Dp *dp;
    DpMem m;
    DpCq cq;
    DpQp smi;
    uint64_t wr_id;
} SmaRig;

static void sma_start(SmaRig *r)
{
    memset(r, 0, sizeof(*r));
    r->dp = dp_start();
    dp_mem(r->dp, &r->m, DP_ALL_ACCESS);
    dp_create_cq(r->dp, &r->cq, DP_CQ_LOG);
    dp_special(r->dp, &r->smi, &r->cq, VHCA_QPT_SMI, 1);
}

/* An SMP at m.a. */
static void sma_req(SmaRig *r, uint8_t mgmt_class, uint8_t method,
                    uint16_t attr, uint32_t mod)
{
    uint8_t req[256] = { 0 };

    req[0] = 1;
    req[1] = mgmt_class;
    req[2] = 1;
    req[3] = method;
    stq_be_p(req + 8, SMA_TID + r->wr_id);
    stw_be_p(req + 16, attr);
    stl_be_p(req + 20, mod);
    stw_be_p(req + 48, 0xffff);         /* DrSLID/DrDLID: permissive */
    stw_be_p(req + 50, 0xffff);
    memset(req + 64, 0x5a, 64);         /* data: must be replaced */
    qtest_memwrite(r->dp->v->qts, r->m.a, req, sizeof(req));
}

/*
 * Send one SMP from port 1's SMI QP to dlid and return the answer in
 * resp (256 bytes), checking both completions.
 */
static void sma_query(SmaRig *r, uint8_t mgmt_class, uint8_t method,
                      uint16_t attr, uint32_t mod, uint16_t dlid,
                      uint8_t *resp)
{
    Dp *dp = r->dp;
    struct vhca_cqe cqe;

    sma_req(r, mgmt_class, method, attr, mod);
    qtest_memset(dp->v->qts, r->m.b, 0xee, 40 + 256);

    dp_post_recv(dp, &r->smi, 0x100 + r->wr_id, r->m.b, 40 + 256, r->m.bkey,
                 0, 0);
    dp_ud_send(dp, &r->smi, 0x200 + r->wr_id, dlid, 0, 0, false, r->m.a,
               256, r->m.akey);
    /* The send completes first, then the answer arrives. */
    dp_expect_cqe(dp, &r->cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x200 + r->wr_id);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_SEND);
    dp_expect_cqe(dp, &r->cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x100 + r->wr_id);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RECV);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, r->smi.h);
    g_assert_cmpuint(le32_to_cpu(cqe.src_qp), ==, 0);
    g_assert_cmpuint(le16_to_cpu(cqe.slid), ==, dp->lid[1]);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 40 + 256);
    g_assert_cmpuint(cqe.flags & VHCA_CQE_F_GRH, ==, 0);
    dp_expect_no_cqe(dp, &r->cq);

    qtest_memread(dp->v->qts, r->m.b + 40, resp, 256);
    g_assert_cmpuint(resp[0], ==, 1);
    g_assert_cmpuint(resp[1], ==, mgmt_class);
    g_assert_cmpuint(resp[2], ==, 1);
    g_assert_cmphex(resp[3], ==, 0x81);                 /* GetResp */
    g_assert_cmphex(ldq_be_p(resp + 8), ==, SMA_TID + r->wr_id);
    g_assert_cmphex(lduw_be_p(resp + 16), ==, attr);
    g_assert_cmphex(ldl_be_p(resp + 20), ==, mod);
    r->wr_id++;
}

static uint16_t sma_status(const uint8_t *resp)
{
    return lduw_be_p(resp + 4);
}

static void test_sma_node_info(void)
{
    struct vhca_port_attr pa;
    uint8_t resp[256];
    const uint8_t *d = resp + 64;
    SmaRig r;

    sma_start(&r);
    g_assert_cmpuint(vhca_query_port(r.dp->v, 1, &pa), ==, VHCA_CMD_OK);
    sma_query(&r, 0x01, 0x01, 0x0011, 0, r.dp->lid[1], resp);
    g_assert_cmphex(sma_status(resp), ==, 0);
    g_assert_cmpuint(d[0], ==, 1);                      /* BaseVersion */
    g_assert_cmpuint(d[1], ==, 1);                      /* ClassVersion */
    g_assert_cmpuint(d[2], ==, 1);                      /* NodeType CA */
    g_assert_cmpuint(d[3], ==, 2);                      /* NumPorts */
    g_assert_cmphex(ldq_be_p(d + 4), ==, NODE_GUID);    /* SystemImageGUID */
    g_assert_cmphex(ldq_be_p(d + 12), ==, NODE_GUID);
    g_assert_cmphex(ldq_be_p(d + 20), ==, le64_to_cpu(pa.port_guid));
    g_assert_cmpuint(lduw_be_p(d + 28), ==, 16);        /* PartitionCap */
    g_assert_cmphex(lduw_be_p(d + 30), ==, VHCA_PCI_DEVICE_ID);
    g_assert_cmphex(ldl_be_p(d + 32), ==, VHCA_PCI_REVISION);
    g_assert_cmpuint(d[36], ==, 1);                     /* LocalPortNum */
    g_assert_cmphex(d[37] << 16 | d[38] << 8 | d[39], ==, 0x525400);
    g_assert_cmpuint(d[40], ==, 0);                     /* rest zeroed */

    /* Directed route, hop count 0: the same, with the D bit. */
    sma_query(&r, 0x81, 0x01, 0x0011, 0, 0xffff, resp);
    g_assert_cmphex(sma_status(resp), ==, 0x8000);
    g_assert_cmphex(ldq_be_p(d + 12), ==, NODE_GUID);
    g_assert_cmphex(lduw_be_p(resp + 48), ==, 0xffff);  /* DrSLID kept */

    /* NodeDescription, GUIDInfo block 0, P_KeyTable block 0. */
    sma_query(&r, 0x01, 0x01, 0x0010, 0, r.dp->lid[1], resp);
    g_assert_cmphex(sma_status(resp), ==, 0);
    sma_query(&r, 0x01, 0x01, 0x0014, 0, r.dp->lid[1], resp);
    g_assert_cmphex(sma_status(resp), ==, 0);
    g_assert_cmphex(ldq_be_p(d), ==, le64_to_cpu(pa.port_guid));
    g_assert_cmphex(ldq_be_p(d + 8), ==, 0);
    sma_query(&r, 0x01, 0x01, 0x0016, 0, r.dp->lid[1], resp);
    g_assert_cmphex(sma_status(resp), ==, 0);
    g_assert_cmphex(lduw_be_p(d), ==, 0xffff);
    g_assert_cmphex(lduw_be_p(d + 2), ==, 0);
    /* Past the tables: invalid attribute modifier. */
    sma_query(&r, 0x01, 0x01, 0x0014, 2, r.dp->lid[1], resp);
    g_assert_cmphex(sma_status(resp), ==, 0x001c);
    sma_query(&r, 0x01, 0x01, 0x0016, 1, r.dp->lid[1], resp);
    g_assert_cmphex(sma_status(resp), ==, 0x001c);
    dp_stop(r.dp);
}

static void test_sma_port_info(void)
{
    struct vhca_port_attr pa;
    uint8_t resp[256];
    const uint8_t *d = resp + 64;
    SmaRig r;
    int port;

    sma_start(&r);
    g_assert_cmpuint(vhca_query_port(r.dp->v, 1, &pa), ==, VHCA_CMD_OK);
    for (port = 0; port <= 2; port++) {
        sma_query(&r, 0x01, 0x01, 0x0015, port, r.dp->lid[1], resp);
        g_assert_cmphex(sma_status(resp), ==, 0);
        g_assert_cmphex(ldq_be_p(d), ==, 0);                    /* M_Key */
        g_assert_cmphex(ldq_be_p(d + 8), ==, 0xfe80000000000000ull);
        g_assert_cmpuint(lduw_be_p(d + 16), ==, r.dp->lid[port ? port : 1]);
        g_assert_cmpuint(lduw_be_p(d + 18), ==, 1);             /* SM LID */
        g_assert_cmphex(ldl_be_p(d + 20), ==,
                        le32_to_cpu(pa.port_cap_flags));
        g_assert_cmpuint(d[28], ==, 1);                         /* local */
        g_assert_cmpuint(d[31], ==, 2);                         /* 4x */
        g_assert_cmpuint(d[32] & 0xf, ==, VHCA_PORT_ACTIVE);
        g_assert_cmpuint(d[33] >> 4, ==, VHCA_PHYS_LINK_UP);
        g_assert_cmpuint(d[34] & 7, ==, 0);                     /* LMC */
        g_assert_cmpuint(d[35] >> 4, ==, 4);                    /* QDR */
        g_assert_cmpuint(d[41] & 0xf, ==, 5);                   /* MTU cap */
    }
    /* No port 3. */
    sma_query(&r, 0x01, 0x01, 0x0015, 3, r.dp->lid[1], resp);
    g_assert_cmphex(sma_status(resp), ==, 0x001c);
    dp_stop(r.dp);
}

static void test_sma_errors(void)
{
    uint8_t resp[256];
    struct vhca_cqe cqe;
    bool recv_first;
    SmaRig r;

    sma_start(&r);
    /* SMInfo is the SM's (IBA 14.4.1): the request goes on to QP0. */
    sma_req(&r, 0x01, 0x01, 0x0020, 0);
    dp_post_recv(r.dp, &r.smi, 0x100, r.m.b, 40 + 256, r.m.bkey, 0, 0);
    dp_ud_send(r.dp, &r.smi, 0x200, r.dp->lid[1], 0, 0, false, r.m.a, 256,
               r.m.akey);
    /* a loopback: the receive may complete before the send */
    dp_expect_cqe(r.dp, &r.cq, &cqe, VHCA_WC_SUCCESS);
    recv_first = cqe.opcode == VHCA_CQE_RECV;
    dp_expect_cqe(r.dp, &r.cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==,
                     recv_first ? VHCA_CQE_SEND : VHCA_CQE_RECV);
    qtest_memread(r.dp->v->qts, r.m.b + 40, resp, 256);
    g_assert_cmphex(resp[3], ==, 0x01);         /* the Get itself */
    g_assert_cmphex(lduw_be_p(resp + 16), ==, 0x0020);
    r.wr_id++;
    /* Set PortInfo: refused, the SM owns it; the current value comes back. */
    sma_query(&r, 0x01, 0x02, 0x0015, 1, r.dp->lid[1], resp);
    g_assert_cmphex(sma_status(resp), ==, 0x000c);
    g_assert_cmpuint(lduw_be_p(resp + 64 + 16), ==, r.dp->lid[1]);
    /* An unknown method; a directed-route one keeps the D bit. */
    sma_query(&r, 0x81, 0x04, 0x0011, 0, 0xffff, resp);
    g_assert_cmphex(sma_status(resp), ==, 0x8008);

    /* An SMP to the other port's LID is an ordinary datagram (no SMI there). */
    sma_req(&r, 0x01, 0x01, 0x0011, 0);
    dp_ud_send(r.dp, &r.smi, 0x300, r.dp->lid[2], 0, 0, false, r.m.a, 256,
               r.m.akey);
    dp_expect_cqe(r.dp, &r.cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x300);
    dp_expect_no_cqe(r.dp, &r.cq);
    /* The SMA's answer without a receive WQE is dropped. */
    dp_ud_send(r.dp, &r.smi, 0x301, r.dp->lid[1], 0, 0, false, r.m.a, 256,
               r.m.akey);
    dp_expect_cqe(r.dp, &r.cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x301);
    dp_expect_no_cqe(r.dp, &r.cq);
    dp_stop(r.dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/sma/node-info", test_sma_node_info);
    qtest_add_func("/vhca/sma/port-info", test_sma_port_info);
    qtest_add_func("/vhca/sma/errors", test_sma_errors);
    return g_test_run();
}
