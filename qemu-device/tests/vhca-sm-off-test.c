/*
 * QTest testcase for vhca: the in-process fabric with its embedded SM off
 * (`embedded-sm=off`, Documentation/fabric.md "opensm on one VM").
 *
 * The ports train and wait in INIT with no LID and no event; the switch
 * shows them INIT with PortStateChange.  From port 1's SMI QP the test
 * then does what opensm does (IBA 14.4.4): directed-route Set(PortInfo) of
 * both CA ports (port 1 through the switch and back, path 1,1) and of the
 * switch's port 0 and ports, its LinearForwardingTable and SwitchInfo;
 * the CA ports go ARMED then ACTIVE with PORT_ACTIVE, LID-routed SMPs
 * reach the CA and the switch at the LIDs it gave, and forwarding follows
 * the LFT it wrote (a route changed to the wrong port drops the SMP).
 * SMInfo at the switch's LID is 0x000c: no SM in it.  A link that changes
 * by itself makes the switch send Trap 128 to the SM until TrapRepress, a
 * CA port whose CapabilityMask changes Trap 144.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define SM_OFF          ",embedded-sm=off"
#define LID_CA1         5       /* the SM's own port, as opensm does */
#define LID_CA2         6
#define LID_SWITCH      7

static const uint8_t to_switch[] = { 1 };
static const uint8_t to_ca1[] = { 1, 1 };       /* out and back in */
static const uint8_t to_ca2[] = { 1, 2 };

/* Set attr/mod to the 64 bytes of data by directed route; the status. */
static uint16_t sm_set(SwRig *r, uint16_t attr, uint32_t mod,
                       const uint8_t *path, uint8_t hops, const uint8_t *data)
{
    uint8_t resp[256];

    return sw_set(r, attr, mod, path, hops, 0, data, resp);
}

static void test_sm_off_ports_stay_init(void)
{
    Dp *dp = dp_start_unmanaged(SM_OFF);
    struct vhca_port_attr attr;
    struct vhca_eqe ev[4];
    uint8_t resp[256];
    const uint8_t *d = resp + 64;
    SwRig r;
    int port;

    qtest_clock_step(dp->v->qts, 1000000000);           /* 1 s: no sweep */
    g_assert_cmpint(vhca_collect_port_events(dp->v, ev, 4), ==, 0);
    for (port = 1; port <= 2; port++) {
        g_assert_cmpuint(vhca_query_port(dp->v, port, &attr), ==,
                         VHCA_CMD_OK);
        g_assert_cmpuint(attr.state, ==, VHCA_PORT_INIT);
        g_assert_cmpuint(le16_to_cpu(attr.lid), ==, 0);
    }
    sw_start_on(&r, dp);
    /* directed-route SMPs pass INIT links: the switch, no LID, no SM */
    g_assert_true(sw_get(&r, 0x0015, 0, to_switch, 1, 0, resp));
    g_assert_cmpuint(lduw_be_p(d + 16), ==, 0);
    g_assert_cmphex(ldl_be_p(d + 20) & 0x2, ==, 0);     /* not IsSM */
    g_assert_true(sw_get(&r, 0x0015, 2, to_switch, 1, 0, resp));
    g_assert_cmpuint(d[32] & 0xf, ==, VHCA_PORT_INIT);
    g_assert_true(sw_get(&r, 0x0012, 0, to_switch, 1, 0, resp));
    g_assert_cmphex(d[11] & 0x04, ==, 0x04);            /* PortStateChange */
    g_assert_true(sw_get(&r, 0x0019, 0, to_switch, 1, 0, resp));
    g_assert_cmphex(d[1], ==, 0xff);                    /* LFT empty */
    /* LID 1 is nobody's: no embedded SM answers there */
    g_assert_false(sw_get(&r, 0x0011, 0, NULL, 0, 1, resp));
    dp_stop(dp);
}

/* opensm's sweep in short: LIDs, the switch's tables, ARMED, ACTIVE. */
static void sm_configure(SwRig *r)
{
    uint8_t data[64];
    int port;

    vhca_pi_init(data, LID_CA1, LID_CA1, VHCA_PORT_ARMED);
    g_assert_cmphex(sm_set(r, 0x0015, 0, to_ca1, 2, data), ==, 0);
    vhca_pi_init(data, LID_CA2, LID_CA1, VHCA_PORT_ARMED);
    g_assert_cmphex(sm_set(r, 0x0015, 0, to_ca2, 2, data), ==, 0);
    vhca_pi_init(data, LID_SWITCH, LID_CA1, 0);
    g_assert_cmphex(sm_set(r, 0x0015, 0, to_switch, 1, data), ==, 0);
    memset(data, 0xff, sizeof(data));
    data[LID_CA1] = 1;
    data[LID_CA2] = 2;
    data[LID_SWITCH] = 0;
    g_assert_cmphex(sm_set(r, 0x0019, 0, to_switch, 1, data), ==, 0);
    memset(data, 0, sizeof(data));
    stw_be_p(data + 6, LID_SWITCH);                     /* LinearFDBTop */
    data[11] = 18 << 3 | 0x04;                          /* clear PSC */
    g_assert_cmphex(sm_set(r, 0x0012, 0, to_switch, 1, data), ==, 0);
    for (port = 1; port <= 2; port++) {
        vhca_pi_init(data, 0, 0, VHCA_PORT_ARMED);
        g_assert_cmphex(sm_set(r, 0x0015, port, to_switch, 1, data), ==, 0);
        vhca_pi_init(data, 0, 0, VHCA_PORT_ACTIVE);
        g_assert_cmphex(sm_set(r, 0x0015, port, to_switch, 1, data), ==, 0);
    }
    vhca_pi_init(data, LID_CA1, LID_CA1, VHCA_PORT_ACTIVE);
    g_assert_cmphex(sm_set(r, 0x0015, 0, to_ca1, 2, data), ==, 0);
    vhca_pi_init(data, LID_CA2, LID_CA1, VHCA_PORT_ACTIVE);
    g_assert_cmphex(sm_set(r, 0x0015, 0, to_ca2, 2, data), ==, 0);
}

/*
 * The next trap on port 1's QP0 (a receive posted), from slid: its MAD
 * in trap.  Trap 128: urgent, from a switch; 144: informational, a CA.
 */
static void trap_expect_num(SwRig *r, uint8_t *trap, uint16_t num,
                            uint16_t slid)
{
    struct vhca_cqe cqe;
    const uint8_t *d = trap + 64;

    dp_expect_cqe(r->dp, &r->cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RECV);
    g_assert_cmpuint(le16_to_cpu(cqe.slid), ==, slid);
    g_assert_cmpuint(le32_to_cpu(cqe.src_qp), ==, 0);
    qtest_memread(r->dp->v->qts, r->m.b + 40, trap, 256);
    g_assert_cmphex(trap[1], ==, 0x01);                 /* SubnLID */
    g_assert_cmphex(trap[3], ==, 0x05);                 /* Trap */
    g_assert_cmphex(lduw_be_p(trap + 16), ==, 0x0002);  /* Notice */
    g_assert_cmphex(d[0], ==, num == 128 ? 0x81 : 0x84);
    g_assert_cmphex(ldl_be_p(d) & 0xffffff, ==, num == 128 ? 2 : 1);
    g_assert_cmpuint(lduw_be_p(d + 4), ==, num);
    g_assert_cmpuint(lduw_be_p(d + 6), ==, slid);       /* IssuerLID */
}

/* Trap 128 from the switch: LIDADDR is its LID. */
static void trap_expect(SwRig *r, uint8_t *trap)
{
    trap_expect_num(r, trap, 128, LID_SWITCH);
    g_assert_cmpuint(lduw_be_p(trap + 64 + 10), ==, LID_SWITCH);
}

static void trap_post_recv(SwRig *r)
{
    dp_post_recv(r->dp, &r->smi, 0x300, r->m.b, 40 + 256, r->m.bkey, 0, 0);
}

static void test_sm_off_sm_configures(void)
{
    Dp *dp = dp_start_unmanaged(SM_OFF);
    struct vhca_port_attr attr;
    struct vhca_eqe ev[8];
    uint8_t resp[256], data[64];
    const uint8_t *d = resp + 64;
    SwRig r;
    int n, i, active = 0;

    sw_start_on(&r, dp);
    /* INIT -> ACTIVE at once is not allowed (IBA Table 146) */
    vhca_pi_init(data, LID_CA2, LID_CA1, VHCA_PORT_ACTIVE);
    g_assert_cmphex(sm_set(&r, 0x0015, 0, to_ca2, 2, data), ==, 0x001c);
    sm_configure(&r);
    n = vhca_collect_port_events(dp->v, ev, 8);
    for (i = 0; i < n; i++) {
        active += ev[i].subtype == VHCA_PORT_EV_ACTIVE;
    }
    g_assert_cmpint(active, ==, 2);
    g_assert_cmpuint(vhca_query_port(dp->v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_ACTIVE);
    g_assert_cmpuint(le16_to_cpu(attr.lid), ==, LID_CA2);
    g_assert_cmpuint(le16_to_cpu(attr.sm_lid), ==, LID_CA1);

    /* LID-routed through the LFT: port 2's SMA, the switch at its LID */
    g_assert_true(sw_get(&r, 0x0011, 0, NULL, 0, LID_CA2, resp));
    g_assert_cmpuint(d[2], ==, 1);                      /* a CA */
    g_assert_cmpuint(d[36], ==, 2);                     /* in on port 2 */
    g_assert_true(sw_get(&r, 0x0011, 0, NULL, 0, LID_SWITCH, resp));
    g_assert_cmpuint(d[2], ==, 2);                      /* the switch */
    g_assert_true(sw_get(&r, 0x0020, 0, NULL, 0, LID_SWITCH, resp));
    g_assert_cmphex(lduw_be_p(resp + 4), ==, 0x000c);   /* no SM there */

    /* the switch forwards by the LFT: LID 6 sent to port 1 is lost */
    memset(data, 0xff, sizeof(data));
    data[LID_CA1] = 1;
    data[LID_CA2] = 1;
    data[LID_SWITCH] = 0;
    g_assert_cmphex(sm_set(&r, 0x0019, 0, to_switch, 1, data), ==, 0);
    g_assert_false(sw_get(&r, 0x0011, 0, NULL, 0, LID_CA2, resp));

    /* port 2's cable pulled: the switch sees it (PortStateChange) and
     * tells the SM (Trap 128, into the receive the lost SMP left) */
    qom_set_link(dp->v, "port2-link", false);
    trap_expect(&r, resp);
    g_assert_true(sw_get(&r, 0x0015, 2, to_switch, 1, 0, resp));
    g_assert_cmpuint(d[32] & 0xf, ==, VHCA_PORT_DOWN);
    g_assert_true(sw_get(&r, 0x0012, 0, to_switch, 1, 0, resp));
    g_assert_cmphex(d[11] & 0x04, ==, 0x04);
    n = vhca_collect_port_events(dp->v, ev, 8);
    g_assert_cmpint(n, ==, 1);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_DOWN);
    dp_stop(dp);
}

/*
 * IBA 13.4.9, 14.2.5.1: a link that changes by itself makes the switch
 * send Trap 128 to the master SM's LID (port 0's MasterSMLID), again
 * every second with the same TID until the SM's TrapRepress.
 */
static void test_sm_off_trap_128(void)
{
    Dp *dp = dp_start_unmanaged(SM_OFF);
    struct vhca_eqe ev[8];
    struct vhca_cqe cqe;
    uint8_t trap[256];
    uint64_t tid;
    SwRig r;

    sw_start_on(&r, dp);
    sm_configure(&r);
    vhca_collect_port_events(dp->v, ev, 8);
    trap_post_recv(&r);
    qom_set_link(dp->v, "port2-link", false);
    trap_expect(&r, trap);
    tid = ldq_be_p(trap + 8);
    trap_post_recv(&r);
    qtest_clock_step(dp->v->qts, 500 * 1000 * 1000);
    dp_expect_no_cqe(dp, &r.cq);
    qtest_clock_step(dp->v->qts, 600 * 1000 * 1000);   /* repeated */
    trap_expect(&r, trap);
    g_assert_cmphex(ldq_be_p(trap + 8), ==, tid);

    /* the SM's TrapRepress (same TID, LID-routed to the switch) */
    trap[3] = 0x07;
    qtest_memwrite(dp->v->qts, r.m.a, trap, 256);
    dp_ud_send(dp, &r.smi, 0x400, LID_SWITCH, 0, 0, false, r.m.a, 256,
               r.m.akey);
    dp_expect_cqe(dp, &r.cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_SEND);
    trap_post_recv(&r);
    qtest_clock_step(dp->v->qts, 5000ll * 1000 * 1000);
    dp_expect_no_cqe(dp, &r.cq);

    /* the cable back: a new trap, a new TID */
    qom_set_link(dp->v, "port2-link", true);
    trap_expect(&r, trap);
    g_assert_cmphex(ldq_be_p(trap + 8), !=, tid);
    vhca_collect_port_events(dp->v, ev, 8);
    dp_stop(dp);
}

/*
 * IBA 14.2.5.1: port 2's CapabilityMask changes (IsSM, as an SM opening
 * issm sets it): Trap 144 from its LID to the SM (port 1, LID 5) with the
 * new mask, repeated until TrapRepress; a write that changes nothing
 * sends none.
 */
static void test_sm_off_trap_144(void)
{
    Dp *dp = dp_start_unmanaged(SM_OFF);
    struct vhca_port_attr attr;
    struct vhca_eqe ev[8];
    struct vhca_cqe cqe;
    uint8_t trap[256];
    SwRig r;

    sw_start_on(&r, dp);
    sm_configure(&r);
    vhca_collect_port_events(dp->v, ev, 8);
    trap_post_recv(&r);
    g_assert_cmpuint(dp_set_port_cap(dp, 2, 0x2, 0), ==, VHCA_CMD_OK);
    trap_expect_num(&r, trap, 144, LID_CA2);
    g_assert_cmpuint(vhca_query_port(dp->v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(lduw_be_p(trap + 64 + 12), ==, LID_CA2);
    g_assert_cmphex(ldl_be_p(trap + 64 + 16), ==,
                    le32_to_cpu(attr.port_cap_flags));
    g_assert_cmphex(ldl_be_p(trap + 64 + 16) & 0x2, ==, 0x2);  /* IsSM */

    /* TrapRepress, LID-routed to port 2: no more */
    trap[3] = 0x07;
    qtest_memwrite(dp->v->qts, r.m.a, trap, 256);
    dp_ud_send(dp, &r.smi, 0x400, LID_CA2, 0, 0, false, r.m.a, 256,
               r.m.akey);
    dp_expect_cqe(dp, &r.cq, &cqe, VHCA_WC_SUCCESS);
    trap_post_recv(&r);
    qtest_clock_step(dp->v->qts, 3000ll * 1000 * 1000);
    dp_expect_no_cqe(dp, &r.cq);
    g_assert_cmpuint(dp_set_port_cap(dp, 2, 0x2, 0), ==, VHCA_CMD_OK);
    dp_expect_no_cqe(dp, &r.cq);                        /* no change */
    dp_stop(dp);
}

/* A Get of attr/mod by directed route: its MAD status (data in resp). */
static uint16_t sm_get_status(SwRig *r, uint16_t attr, uint32_t mod,
                              const uint8_t *path, uint8_t hops,
                              uint8_t *resp)
{
    g_assert_true(sw_get(r, attr, mod, path, hops, 0, resp));
    return lduw_be_p(resp + 4) & 0x7fff;
}

/*
 * IBA 14.2.5.8, as opensm's QoS manager programs it (osm_qos.c): a CA
 * port advertises IsSLMappingSupported, so an SM sets its SLtoVL table
 * as a switch port's; each SL goes to VL0 or VL15 (dropped), a table
 * naming another VL is refused (0x001c) and leaves the table as it was.
 * With one data VL there is no VL arbitration: PortInfo's
 * VLArbitrationHigh/LowCap are 0, as opensm expects of a port with VLCap
 * 1 (it sends no VLArbitrationTable then), and the attribute is unknown.
 */
static void test_sm_off_sl_to_vl(void)
{
    Dp *dp = dp_start_unmanaged(SM_OFF);
    uint8_t resp[256], sl2vl[64] = { 0 };
    const uint8_t *d = resp + 64;
    SwRig r;

    sw_start_on(&r, dp);
    g_assert_true(sw_get(&r, 0x0015, 0, to_ca2, 2, 0, resp));
    g_assert_cmphex(ldl_be_p(d + 20) & 0x40, ==, 0x40); /* IsSLMapping */
    g_assert_cmpuint(d[37] >> 4, ==, 1);                /* VLCap: VL0 */
    g_assert_cmpuint(d[39] | d[40], ==, 0);             /* no VLArb */
    g_assert_cmphex(sm_get_status(&r, 0x0018, 1 << 16, to_ca2, 2, resp),
                    ==, 0x000c);

    sl2vl[7] = 0x0f;                                    /* SL15: VL15 */
    g_assert_cmphex(sm_set(&r, 0x0017, 0, to_ca2, 2, sl2vl), ==, 0);
    g_assert_cmphex(sm_get_status(&r, 0x0017, 0, to_ca2, 2, resp), ==, 0);
    g_assert_cmpuint(d[7], ==, 0x0f);
    sl2vl[0] = 0x01;                                    /* SL1: VL1 */
    g_assert_cmphex(sm_set(&r, 0x0017, 0, to_ca2, 2, sl2vl), ==, 0x001c);
    g_assert_cmphex(sm_get_status(&r, 0x0017, 0, to_ca2, 2, resp), ==, 0);
    g_assert_cmpuint(d[0], ==, 0);                      /* unchanged */
    g_assert_cmphex(sm_get_status(&r, 0x0017, 1, to_ca2, 2, resp), ==,
                    0x001c);                            /* a CA: mod 0 */

    /* the switch: one table per output port (in << 8 | out) */
    g_assert_true(sw_get(&r, 0x0015, 0, to_switch, 1, 0, resp));
    g_assert_cmphex(ldl_be_p(d + 20) & 0x40, ==, 0x40); /* IsSLMapping */
    sl2vl[0] = 0;
    g_assert_cmphex(sm_set(&r, 0x0017, 1 << 8 | 2, to_switch, 1, sl2vl),
                    ==, 0);
    g_assert_cmphex(sm_get_status(&r, 0x0017, 2, to_switch, 1, resp), ==, 0);
    g_assert_cmpuint(d[7], ==, 0x0f);
    g_assert_cmphex(sm_get_status(&r, 0x0017, 1, to_switch, 1, resp), ==, 0);
    g_assert_cmpuint(d[7], ==, 0);                      /* port 1's own */
    dp_stop(dp);
}

/* Every device on a fabric has the same embedded-sm: else realize fails. */
static void test_sm_off_must_agree(void)
{
    QTestState *qts = qtest_init("-machine q35 -nodefaults "
                                 "-device vhca,id=a,fabric=f1,"
                                 "embedded-sm=off "
                                 "-device pcie-root-port,id=rp1,chassis=1 "
                                 "-device pcie-root-port,id=rp2,chassis=2");

    g_assert_true(vhca_device_add_refused(qts, NODE_GUID + 0x700, "f1", "rp1",
                                          true, 0));
    g_assert_false(vhca_device_add_refused(qts, NODE_GUID + 0x800, "f1",
                                           "rp2", false, 0));
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/sm-off/ports-stay-init", test_sm_off_ports_stay_init);
    qtest_add_func("/vhca/sm-off/sm-configures", test_sm_off_sm_configures);
    qtest_add_func("/vhca/sm-off/trap-128", test_sm_off_trap_128);
    qtest_add_func("/vhca/sm-off/trap-144", test_sm_off_trap_144);
    qtest_add_func("/vhca/sm-off/must-agree", test_sm_off_must_agree);
    qtest_add_func("/vhca/sm-off/sl-to-vl", test_sm_off_sl_to_vl);
    return g_test_run();
}
