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
#define LID         VHCA_MGMT_CLASS_SUBN_LID
#define DR          VHCA_MGMT_CLASS_SUBN_DR
#define GET         VHCA_MGMT_METHOD_GET

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
    uint8_t req[VHCA_MAD_SIZE];

    vhca_mad_init(req, mgmt_class, 1, method, SMA_TID + r->wr_id, attr);
    stl_be_p(req + VHCA_SMP(attr_mod), mod);
    if (mgmt_class == VHCA_MGMT_CLASS_SUBN_DR) {
        stw_be_p(req + VHCA_SMP(dr_slid), VHCA_LID_PERMISSIVE);
        stw_be_p(req + VHCA_SMP(dr_dlid), VHCA_LID_PERMISSIVE);
    }
    /* data: must be replaced */
    memset(req + VHCA_SMP_DATA_OFF, 0x5a, VHCA_SMP_DATA_SIZE);
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
    qtest_memset(dp->v->qts, r->m.b, 0xee, VHCA_GRH_SIZE + VHCA_MAD_SIZE);

    dp_post_recv(dp, &r->smi, 0x100 + r->wr_id, r->m.b,
                 VHCA_GRH_SIZE + VHCA_MAD_SIZE, r->m.bkey, 0, 0);
    dp_ud_send(dp, &r->smi, 0x200 + r->wr_id, dlid, 0, 0, false, r->m.a,
               VHCA_MAD_SIZE, r->m.akey);
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
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==,
                     VHCA_GRH_SIZE + VHCA_MAD_SIZE);
    g_assert_cmpuint(cqe.flags & VHCA_CQE_F_GRH, ==, 0);
    dp_expect_no_cqe(dp, &r->cq);

    qtest_memread(dp->v->qts, r->m.b + VHCA_GRH_SIZE, resp, VHCA_MAD_SIZE);
    g_assert_cmpuint(resp[VHCA_SMP(base_version)], ==, 1);
    g_assert_cmpuint(vhca_mad_class(resp), ==, mgmt_class);
    g_assert_cmpuint(resp[VHCA_SMP(class_version)], ==, 1);
    g_assert_cmphex(vhca_mad_method(resp), ==, VHCA_MGMT_METHOD_GET_RESP);
    g_assert_cmphex(vhca_mad_tid(resp), ==, SMA_TID + r->wr_id);
    g_assert_cmphex(vhca_mad_attr(resp), ==, attr);
    g_assert_cmphex(vhca_mad_attr_mod(resp), ==, mod);
    r->wr_id++;
}


static void test_sma_node_info(void)
{
    struct vhca_port_attr pa;
    uint8_t resp[VHCA_MAD_SIZE];
    const uint8_t *d = resp + VHCA_SMP_DATA_OFF;
    SmaRig r;

    sma_start(&r);
    g_assert_cmpuint(vhca_query_port(r.dp->v, 1, &pa), ==, VHCA_CMD_OK);
    sma_query(&r, LID, GET, VHCA_SMP_ATTR_NODE_INFO, 0, r.dp->lid[1], resp);
    g_assert_cmphex(vhca_mad_status(resp), ==, 0);
    g_assert_cmpuint(d[VHCA_NI(base_version)], ==, 1);
    g_assert_cmpuint(d[VHCA_NI(class_version)], ==, 1);
    g_assert_cmpuint(d[VHCA_NI(node_type)], ==, VHCA_NODE_TYPE_CA);
    g_assert_cmpuint(d[VHCA_NI(num_ports)], ==, 2);
    g_assert_cmphex(ldq_be_p(d + VHCA_NI(sys_image_guid)), ==, NODE_GUID);
    g_assert_cmphex(ldq_be_p(d + VHCA_NI(node_guid)), ==, NODE_GUID);
    g_assert_cmphex(ldq_be_p(d + VHCA_NI(port_guid)), ==,
                    le64_to_cpu(pa.port_guid));
    g_assert_cmpuint(lduw_be_p(d + VHCA_NI(partition_cap)), ==, 16);
    g_assert_cmphex(lduw_be_p(d + VHCA_NI(device_id)), ==, VHCA_PCI_DEVICE_ID);
    g_assert_cmphex(ldl_be_p(d + VHCA_NI(revision)), ==, VHCA_PCI_REVISION);
    g_assert_cmpuint(d[VHCA_NI(local_port)], ==, 1);
    g_assert_cmphex(ldl_be_p(d + VHCA_NI(vendor_id) - 1) & 0xffffff, ==,
                    0x525400);                          /* VendorID */
    g_assert_cmpuint(d[VHCA_NI(rsvd)], ==, 0);          /* rest zeroed */

    /* Directed route, hop count 0: the same, with the D bit. */
    sma_query(&r, DR, GET, VHCA_SMP_ATTR_NODE_INFO, 0, VHCA_LID_PERMISSIVE,
              resp);
    g_assert_cmphex(vhca_mad_status(resp), ==, VHCA_SMP_DIRECTION);
    g_assert_cmphex(ldq_be_p(d + VHCA_NI(node_guid)), ==, NODE_GUID);
    g_assert_cmphex(lduw_be_p(resp + VHCA_SMP(dr_slid)), ==,
                    VHCA_LID_PERMISSIVE);               /* DrSLID kept */

    /* NodeDescription, GUIDInfo block 0, P_KeyTable block 0. */
    sma_query(&r, LID, GET, VHCA_SMP_ATTR_NODE_DESC, 0, r.dp->lid[1], resp);
    g_assert_cmphex(vhca_mad_status(resp), ==, 0);
    sma_query(&r, LID, GET, VHCA_SMP_ATTR_GUID_INFO, 0, r.dp->lid[1], resp);
    g_assert_cmphex(vhca_mad_status(resp), ==, 0);
    g_assert_cmphex(ldq_be_p(d), ==, le64_to_cpu(pa.port_guid));  /* GUID 0 */
    g_assert_cmphex(ldq_be_p(d + sizeof(uint64_t)), ==, 0);
    sma_query(&r, LID, GET, VHCA_SMP_ATTR_PKEY_TABLE, 0, r.dp->lid[1], resp);
    g_assert_cmphex(vhca_mad_status(resp), ==, 0);
    g_assert_cmphex(lduw_be_p(d), ==, VHCA_DEFAULT_PKEY);         /* P_Key 0 */
    g_assert_cmphex(lduw_be_p(d + sizeof(uint16_t)), ==, 0);
    /* Past the tables: invalid attribute modifier. */
    sma_query(&r, LID, GET, VHCA_SMP_ATTR_GUID_INFO, 2, r.dp->lid[1], resp);
    g_assert_cmphex(vhca_mad_status(resp), ==,
                    VHCA_MAD_STATUS_INVALID_ATTR_VALUE);
    sma_query(&r, LID, GET, VHCA_SMP_ATTR_PKEY_TABLE, 1, r.dp->lid[1], resp);
    g_assert_cmphex(vhca_mad_status(resp), ==,
                    VHCA_MAD_STATUS_INVALID_ATTR_VALUE);
    dp_stop(r.dp);
}

static void test_sma_port_info(void)
{
    struct vhca_port_attr pa;
    uint8_t resp[VHCA_MAD_SIZE];
    const uint8_t *d = resp + VHCA_SMP_DATA_OFF;
    SmaRig r;
    int port;

    sma_start(&r);
    g_assert_cmpuint(vhca_query_port(r.dp->v, 1, &pa), ==, VHCA_CMD_OK);
    for (port = 0; port <= 2; port++) {
        sma_query(&r, LID, GET, VHCA_SMP_ATTR_PORT_INFO, port, r.dp->lid[1],
                  resp);
        g_assert_cmphex(vhca_mad_status(resp), ==, 0);
        g_assert_cmphex(ldq_be_p(d + VHCA_PI(mkey)), ==, 0);
        g_assert_cmphex(ldq_be_p(d + VHCA_PI(gid_prefix)), ==,
                        VHCA_GID_PREFIX_DEFAULT);
        g_assert_cmpuint(lduw_be_p(d + VHCA_PI(lid)), ==,
                         r.dp->lid[port ? port : 1]);
        g_assert_cmpuint(lduw_be_p(d + VHCA_PI(master_sm_lid)), ==, 1);
        g_assert_cmphex(ldl_be_p(d + VHCA_PI(cap_mask)), ==,
                        le32_to_cpu(pa.port_cap_flags));
        g_assert_cmpuint(d[VHCA_PI(local_port)], ==, 1);
        g_assert_cmpuint(d[VHCA_PI(link_width_active)], ==, 2);     /* 4x */
        g_assert_cmpuint(d[VHCA_PI(speed_supported_state)] & 0xf, ==,
                         VHCA_PORT_ACTIVE);
        g_assert_cmpuint(d[VHCA_PI(phys_state_down_default)] >> 4, ==,
                         VHCA_PHYS_LINK_UP);
        g_assert_cmpuint(d[VHCA_PI(mkey_protect_lmc)] & 7, ==, 0);  /* LMC */
        g_assert_cmpuint(d[VHCA_PI(speed_active_enabled)] >> 4, ==,
                         4);                                        /* QDR */
        g_assert_cmpuint(d[VHCA_PI(init_type_reply_mtu_cap)] & 0xf, ==,
                         VHCA_MTU_4096);
    }
    /* No port 3. */
    sma_query(&r, LID, GET, VHCA_SMP_ATTR_PORT_INFO, 3, r.dp->lid[1], resp);
    g_assert_cmphex(vhca_mad_status(resp), ==,
                    VHCA_MAD_STATUS_INVALID_ATTR_VALUE);
    dp_stop(r.dp);
}

static void test_sma_errors(void)
{
    uint8_t resp[VHCA_MAD_SIZE];
    struct vhca_cqe cqe;
    bool recv_first;
    SmaRig r;

    sma_start(&r);
    /* SMInfo is the SM's (IBA 14.4.1): the request goes on to QP0. */
    sma_req(&r, LID, GET, VHCA_SMP_ATTR_SM_INFO, 0);
    dp_post_recv(r.dp, &r.smi, 0x100, r.m.b, VHCA_GRH_SIZE + VHCA_MAD_SIZE,
                 r.m.bkey, 0, 0);
    dp_ud_send(r.dp, &r.smi, 0x200, r.dp->lid[1], 0, 0, false, r.m.a,
               VHCA_MAD_SIZE, r.m.akey);
    /* a loopback: the receive may complete before the send */
    dp_expect_cqe(r.dp, &r.cq, &cqe, VHCA_WC_SUCCESS);
    recv_first = cqe.opcode == VHCA_CQE_RECV;
    dp_expect_cqe(r.dp, &r.cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==,
                     recv_first ? VHCA_CQE_SEND : VHCA_CQE_RECV);
    qtest_memread(r.dp->v->qts, r.m.b + VHCA_GRH_SIZE, resp, VHCA_MAD_SIZE);
    g_assert_cmphex(vhca_mad_method(resp), ==, GET);    /* the Get itself */
    g_assert_cmphex(vhca_mad_attr(resp), ==, VHCA_SMP_ATTR_SM_INFO);
    r.wr_id++;
    /* Set PortInfo: refused, the SM owns it; the current value comes back. */
    sma_query(&r, LID, VHCA_MGMT_METHOD_SET, VHCA_SMP_ATTR_PORT_INFO, 1,
              r.dp->lid[1], resp);
    g_assert_cmphex(vhca_mad_status(resp), ==,
                    VHCA_MAD_STATUS_UNSUP_METHOD_ATTR);
    g_assert_cmpuint(lduw_be_p(resp + VHCA_SMP_DATA_OFF + VHCA_PI(lid)), ==,
                     r.dp->lid[1]);
    /* An unknown method (0x04); a directed-route one keeps the D bit. */
    sma_query(&r, DR, 0x04, VHCA_SMP_ATTR_NODE_INFO, 0, VHCA_LID_PERMISSIVE,
              resp);
    g_assert_cmphex(vhca_mad_status(resp), ==,
                    VHCA_SMP_DIRECTION | VHCA_MAD_STATUS_UNSUP_METHOD);

    /* An SMP to the other port's LID is an ordinary datagram (no SMI there). */
    sma_req(&r, LID, GET, VHCA_SMP_ATTR_NODE_INFO, 0);
    dp_ud_send(r.dp, &r.smi, 0x300, r.dp->lid[2], 0, 0, false, r.m.a,
               VHCA_MAD_SIZE, r.m.akey);
    dp_expect_cqe(r.dp, &r.cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x300);
    dp_expect_no_cqe(r.dp, &r.cq);
    /* The SMA's answer without a receive WQE is dropped. */
    dp_ud_send(r.dp, &r.smi, 0x301, r.dp->lid[1], 0, 0, false, r.m.a,
               VHCA_MAD_SIZE, r.m.akey);
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
