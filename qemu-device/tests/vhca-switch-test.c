/*
 * QTest testcase for vhca: the fabric's switch as SMPs see it.
 *
 * From port 1's SMI QP: directed-route SMPs to the switch (hop 1) and
 * through it to port 2's SMA (hop 2), as the guest's SMI sends them (hop
 * pointer already 1, IBA C14-9:1), answered with the D bit, hop pointer 1
 * and the return path filled; LID-routed SMPs to the SM's LID 1 answered
 * by the switch (NodeInfo, SwitchInfo, SMInfo, LinearForwardingTable);
 * routes that go nowhere get no answer.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"


static void test_switch_dr_node_info(void)
{
    static const uint8_t path[] = { 1 };
    uint8_t req[VHCA_MAD_SIZE], resp[VHCA_MAD_SIZE];
    const uint8_t *d = resp + VHCA_SMP_DATA_OFF;
    SwRig r;

    sw_start(&r);
    sw_req(&r, VHCA_SMP_ATTR_NODE_INFO, 0, path, 1, req);
    g_assert_true(sw_send(&r, req, VHCA_LID_PERMISSIVE, resp));
    g_assert_cmphex(vhca_mad_status(resp), ==, VHCA_SMP_DIRECTION);  /* ok */
    g_assert_cmpuint(resp[VHCA_SMP(hop_ptr)], ==, 1);
    /* in on port 1 */
    g_assert_cmpuint(resp[VHCA_SMP(return_path) + 1], ==, 1);
    g_assert_cmpuint(d[VHCA_NI(node_type)], ==, VHCA_NODE_TYPE_SWITCH);
    g_assert_cmpuint(d[VHCA_NI(num_ports)], ==, 2);
    g_assert_cmpuint(d[VHCA_NI(local_port)], ==, 1);
    dp_stop(r.dp);
}

static void test_switch_dr_through_to_port_2(void)
{
    static const uint8_t path[] = { 1, 2 };
    uint8_t req[VHCA_MAD_SIZE], resp[VHCA_MAD_SIZE];
    const uint8_t *d = resp + VHCA_SMP_DATA_OFF;
    SwRig r;

    sw_start(&r);
    sw_req(&r, VHCA_SMP_ATTR_NODE_INFO, 0, path, 2, req);
    g_assert_true(sw_send(&r, req, VHCA_LID_PERMISSIVE, resp));
    g_assert_cmphex(vhca_mad_status(resp), ==, VHCA_SMP_DIRECTION);
    g_assert_cmpuint(resp[VHCA_SMP(hop_ptr)], ==, 1);
    g_assert_cmpuint(resp[VHCA_SMP(return_path) + 1], ==, 1);
    g_assert_cmpuint(resp[VHCA_SMP(return_path) + 2], ==, 2);  /* CA 2 */
    g_assert_cmpuint(d[VHCA_NI(node_type)], ==, VHCA_NODE_TYPE_CA);
    g_assert_cmphex(ldq_be_p(d + VHCA_NI(node_guid)), ==, NODE_GUID);
    g_assert_cmpuint(d[VHCA_NI(local_port)], ==, 2);    /* in on port 2 */
    dp_stop(r.dp);
}

static void test_switch_lid_routed(void)
{
    uint8_t req[VHCA_MAD_SIZE], resp[VHCA_MAD_SIZE];
    const uint8_t *d = resp + VHCA_SMP_DATA_OFF;
    Dp *dp;
    SwRig r;

    sw_start(&r);
    dp = r.dp;
    sw_req(&r, VHCA_SMP_ATTR_NODE_INFO, 0, NULL, 0, req);
    g_assert_true(sw_send(&r, req, VHCA_WIRE_SM_LID, resp));
    g_assert_cmphex(vhca_mad_status(resp), ==, 0);
    g_assert_cmpuint(d[VHCA_NI(node_type)], ==, VHCA_NODE_TYPE_SWITCH);
    g_assert_cmpuint(d[VHCA_NI(local_port)], ==, 0);    /* port 0 */
    sw_req(&r, VHCA_SMP_ATTR_SM_INFO, 0, NULL, 0, req);
    g_assert_true(sw_send(&r, req, VHCA_WIRE_SM_LID, resp));
    g_assert_cmpuint(d[VHCA_SMI(priority_state)] & 0xf, ==,
                     VHCA_SM_STATE_MASTER);
    sw_req(&r, VHCA_SMP_ATTR_SWITCH_INFO, 0, NULL, 0, req);
    g_assert_true(sw_send(&r, req, VHCA_WIRE_SM_LID, resp));
    g_assert_cmpuint(lduw_be_p(d + VHCA_SWI(lft_top)), ==,
                     MAX(dp->lid[1], dp->lid[2]));
    sw_req(&r, VHCA_SMP_ATTR_LFT, 0, NULL, 0, req);     /* block 0 */
    g_assert_true(sw_send(&r, req, VHCA_WIRE_SM_LID, resp));
    g_assert_cmpuint(d[VHCA_WIRE_SM_LID], ==, 0);                 /* the SM: port 0 */
    g_assert_cmpuint(d[dp->lid[1]], ==, 1);
    g_assert_cmpuint(d[dp->lid[2]], ==, 2);
    g_assert_cmpuint(d[VHCA_SMP_DATA_SIZE - 1], ==, VHCA_SWITCH_NO_ROUTE);
    sw_req(&r, VHCA_SMP_ATTR_PORT_INFO, 2, NULL, 0, req);
    g_assert_true(sw_send(&r, req, VHCA_WIRE_SM_LID, resp));
    g_assert_cmpuint(d[VHCA_PI(speed_supported_state)] & 0xf, ==,
                     VHCA_PORT_ACTIVE);
    sw_req(&r, VHCA_SMP_ATTR_PORT_INFO, 3, NULL, 0, req);   /* no port 3 */
    g_assert_true(sw_send(&r, req, VHCA_WIRE_SM_LID, resp));
    g_assert_cmphex(vhca_mad_status(resp), ==,
                    VHCA_MAD_STATUS_INVALID_ATTR_VALUE);
    dp_stop(dp);
}

/* A route that ends nowhere: the send completes, nothing comes back. */
static void test_switch_dr_nowhere(void)
{
    static const uint8_t to_port_9[] = { 1, 9 };
    static const uint8_t through_ca[] = { 1, 2, 1 };
    uint8_t req[VHCA_MAD_SIZE], resp[VHCA_MAD_SIZE];
    SwRig r;

    sw_start(&r);
    sw_req(&r, VHCA_SMP_ATTR_NODE_INFO, 0, to_port_9, 2, req);
    g_assert_false(sw_send(&r, req, VHCA_LID_PERMISSIVE, resp));
    sw_req(&r, VHCA_SMP_ATTR_NODE_INFO, 0, through_ca, 3, req);
    g_assert_false(sw_send(&r, req, VHCA_LID_PERMISSIVE, resp));
    sw_req(&r, VHCA_SMP_ATTR_NODE_INFO, 0, to_port_9, 1, req);
    req[VHCA_SMP(hop_ptr)] = 0;         /* the SMI did not take hop 1 */
    g_assert_false(sw_send(&r, req, VHCA_LID_PERMISSIVE, resp));
    sw_req(&r, VHCA_SMP_ATTR_NODE_INFO, 0, to_port_9, 1, req);
    stw_be_p(req + VHCA_SMP(dr_dlid), 5);             /* a LID-routed tail */
    g_assert_false(sw_send(&r, req, VHCA_LID_PERMISSIVE, resp));
    dp_stop(r.dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/switch/dr-node-info", test_switch_dr_node_info);
    qtest_add_func("/vhca/switch/dr-through-to-port-2",
                   test_switch_dr_through_to_port_2);
    qtest_add_func("/vhca/switch/lid-routed", test_switch_lid_routed);
    qtest_add_func("/vhca/switch/dr-nowhere", test_switch_dr_nowhere);
    return g_test_run();
}
