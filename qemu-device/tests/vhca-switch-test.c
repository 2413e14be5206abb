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
    uint8_t req[256], resp[256];
    const uint8_t *d = resp + 64;
    SwRig r;

    sw_start(&r);
    sw_req(&r, 0x0011, 0, path, 1, req);
    g_assert_true(sw_send(&r, req, 0xffff, resp));
    g_assert_cmphex(lduw_be_p(resp + 4), ==, 0x8000);   /* D bit, ok */
    g_assert_cmpuint(resp[DR_HOP_PTR], ==, 1);
    g_assert_cmpuint(resp[DR_RETURN_PATH + 1], ==, 1);  /* in on port 1 */
    g_assert_cmpuint(d[2], ==, 2);                      /* NodeType */
    g_assert_cmpuint(d[3], ==, 2);                      /* NumPorts */
    g_assert_cmpuint(d[36], ==, 1);                     /* LocalPortNum */
    dp_stop(r.dp);
}

static void test_switch_dr_through_to_port_2(void)
{
    static const uint8_t path[] = { 1, 2 };
    uint8_t req[256], resp[256];
    const uint8_t *d = resp + 64;
    SwRig r;

    sw_start(&r);
    sw_req(&r, 0x0011, 0, path, 2, req);
    g_assert_true(sw_send(&r, req, 0xffff, resp));
    g_assert_cmphex(lduw_be_p(resp + 4), ==, 0x8000);
    g_assert_cmpuint(resp[DR_HOP_PTR], ==, 1);
    g_assert_cmpuint(resp[DR_RETURN_PATH + 1], ==, 1);
    g_assert_cmpuint(resp[DR_RETURN_PATH + 2], ==, 2);  /* CA port 2 */
    g_assert_cmpuint(d[2], ==, 1);                      /* a CA */
    g_assert_cmphex(ldq_be_p(d + 12), ==, NODE_GUID);
    g_assert_cmpuint(d[36], ==, 2);                     /* in on port 2 */
    dp_stop(r.dp);
}

static void test_switch_lid_routed(void)
{
    uint8_t req[256], resp[256];
    const uint8_t *d = resp + 64;
    Dp *dp;
    SwRig r;

    sw_start(&r);
    dp = r.dp;
    sw_req(&r, 0x0011, 0, NULL, 0, req);                /* NodeInfo */
    g_assert_true(sw_send(&r, req, 1, resp));
    g_assert_cmphex(lduw_be_p(resp + 4), ==, 0);
    g_assert_cmpuint(d[2], ==, 2);
    g_assert_cmpuint(d[36], ==, 0);                     /* port 0 */
    sw_req(&r, 0x0020, 0, NULL, 0, req);                /* SMInfo */
    g_assert_true(sw_send(&r, req, 1, resp));
    g_assert_cmpuint(d[20] & 0xf, ==, 3);               /* MASTER */
    sw_req(&r, 0x0012, 0, NULL, 0, req);                /* SwitchInfo */
    g_assert_true(sw_send(&r, req, 1, resp));
    g_assert_cmpuint(lduw_be_p(d + 6), ==, MAX(dp->lid[1], dp->lid[2]));
    sw_req(&r, 0x0019, 0, NULL, 0, req);                /* LFT block 0 */
    g_assert_true(sw_send(&r, req, 1, resp));
    g_assert_cmpuint(d[1], ==, 0);                      /* the SM: port 0 */
    g_assert_cmpuint(d[dp->lid[1]], ==, 1);
    g_assert_cmpuint(d[dp->lid[2]], ==, 2);
    g_assert_cmpuint(d[63], ==, 0xff);                  /* no route */
    sw_req(&r, 0x0015, 2, NULL, 0, req);                /* PortInfo 2 */
    g_assert_true(sw_send(&r, req, 1, resp));
    g_assert_cmpuint(d[32] & 0xf, ==, 4);               /* ACTIVE */
    sw_req(&r, 0x0015, 3, NULL, 0, req);                /* no port 3 */
    g_assert_true(sw_send(&r, req, 1, resp));
    g_assert_cmphex(lduw_be_p(resp + 4), ==, 0x001c);
    dp_stop(dp);
}

/* A route that ends nowhere: the send completes, nothing comes back. */
static void test_switch_dr_nowhere(void)
{
    static const uint8_t to_port_9[] = { 1, 9 };
    static const uint8_t through_ca[] = { 1, 2, 1 };
    uint8_t req[256], resp[256];
    SwRig r;

    sw_start(&r);
    sw_req(&r, 0x0011, 0, to_port_9, 2, req);
    g_assert_false(sw_send(&r, req, 0xffff, resp));
    sw_req(&r, 0x0011, 0, through_ca, 3, req);
    g_assert_false(sw_send(&r, req, 0xffff, resp));
    sw_req(&r, 0x0011, 0, to_port_9, 1, req);
    req[DR_HOP_PTR] = 0;                    /* the SMI did not take hop 1 */
    g_assert_false(sw_send(&r, req, 0xffff, resp));
    sw_req(&r, 0x0011, 0, to_port_9, 1, req);
    stw_be_p(req + DR_DLID, 5);             /* a LID-routed tail */
    g_assert_false(sw_send(&r, req, 0xffff, resp));
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
