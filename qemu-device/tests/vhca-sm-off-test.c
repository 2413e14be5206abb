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

#define PORT_INFO       VHCA_SMP_ATTR_PORT_INFO
#define SWITCH_INFO     VHCA_SMP_ATTR_SWITCH_INFO
#define LFT             VHCA_SMP_ATTR_LFT
#define SL2VL           VHCA_SMP_ATTR_SL2VL
#define BAD_VALUE       VHCA_MAD_STATUS_INVALID_ATTR_VALUE
#define UNSUP_METHOD_ATTR VHCA_MAD_STATUS_UNSUP_METHOD_ATTR
/* SwitchInfo's LifeTimeValue (4.096 us * 2^18), as opensm sets it. */
#define LIFE_TIME_18    (18 << 3)
/* A trap's DataDetails in its SMP; trap 144's fields there. */
#define TRAP_DETAILS    (VHCA_SMP_DATA_OFF + VHCA_NOTICE(details))
#define T144(field)     VHCA_MAD_OFF(vhca_trap144_details, field)

static const uint8_t to_switch[] = { 1 };
static const uint8_t to_ca1[] = { 1, 1 };       /* out and back in */
static const uint8_t to_ca2[] = { 1, 2 };

/* Set attr/mod to the 64 bytes of data by directed route; the status. */
static uint16_t sm_set(SwRig *r, uint16_t attr, uint32_t mod,
                       const uint8_t *path, uint8_t hops, const uint8_t *data)
{
    uint8_t resp[VHCA_MAD_SIZE];

    return sw_set(r, attr, mod, path, hops, 0, data, resp);
}

/* The switch's port 2 is in state, and SwitchInfo says a port changed. */
static void switch_port2_changed(SwRig *r, uint8_t state)
{
    uint8_t resp[VHCA_MAD_SIZE];
    const uint8_t *d = resp + VHCA_SMP_DATA_OFF;

    g_assert_true(sw_get(r, PORT_INFO, 2, to_switch, 1, 0, resp));
    g_assert_cmpuint(d[VHCA_PI(speed_supported_state)] & 0xf, ==, state);
    g_assert_true(sw_get(r, SWITCH_INFO, 0, to_switch, 1, 0, resp));
    g_assert_cmphex(d[VHCA_SWI(life_time_psc)] & VHCA_SWI_PSC, ==,
                    VHCA_SWI_PSC);              /* PortStateChange */
}

static void test_sm_off_ports_stay_init(void)
{
    Dp *dp = dp_start_unmanaged(SM_OFF);
    struct vhca_port_attr attr;
    struct vhca_eqe ev[4];
    uint8_t resp[VHCA_MAD_SIZE];
    const uint8_t *d = resp + VHCA_SMP_DATA_OFF;
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
    g_assert_true(sw_get(&r, PORT_INFO, 0, to_switch, 1, 0, resp));
    g_assert_cmpuint(lduw_be_p(d + VHCA_PI(lid)), ==, 0);
    g_assert_cmphex(ldl_be_p(d + VHCA_PI(cap_mask)) & VHCA_PORT_CAP_SM, ==,
                    0);                                 /* not IsSM */
    switch_port2_changed(&r, VHCA_PORT_INIT);
    g_assert_true(sw_get(&r, LFT, 0, to_switch, 1, 0, resp));
    g_assert_cmphex(d[1], ==, VHCA_SWITCH_NO_ROUTE);    /* LFT empty */
    /* LID 1 is nobody's: no embedded SM answers there */
    g_assert_false(sw_get(&r, VHCA_SMP_ATTR_NODE_INFO, 0, NULL, 0, 1, resp));
    dp_stop(dp);
}

/* opensm's sweep in short: LIDs, the switch's tables, ARMED, ACTIVE. */
static void sm_configure(SwRig *r)
{
    uint8_t data[VHCA_SMP_DATA_SIZE];
    int port;

    vhca_pi_init(data, LID_CA1, LID_CA1, VHCA_PORT_ARMED);
    g_assert_cmphex(sm_set(r, PORT_INFO, 0, to_ca1, 2, data), ==, 0);
    vhca_pi_init(data, LID_CA2, LID_CA1, VHCA_PORT_ARMED);
    g_assert_cmphex(sm_set(r, PORT_INFO, 0, to_ca2, 2, data), ==, 0);
    vhca_pi_init(data, LID_SWITCH, LID_CA1, 0);
    g_assert_cmphex(sm_set(r, PORT_INFO, 0, to_switch, 1, data), ==, 0);
    memset(data, 0xff, sizeof(data));
    data[LID_CA1] = 1;
    data[LID_CA2] = 2;
    data[LID_SWITCH] = 0;
    g_assert_cmphex(sm_set(r, LFT, 0, to_switch, 1, data), ==, 0);
    memset(data, 0, sizeof(data));
    stw_be_p(data + VHCA_SWI(lft_top), LID_SWITCH);
    data[VHCA_SWI(life_time_psc)] = LIFE_TIME_18 | VHCA_SWI_PSC; /* clear */
    g_assert_cmphex(sm_set(r, SWITCH_INFO, 0, to_switch, 1, data), ==, 0);
    for (port = 1; port <= 2; port++) {
        vhca_pi_init(data, 0, 0, VHCA_PORT_ARMED);
        g_assert_cmphex(sm_set(r, PORT_INFO, port, to_switch, 1, data), ==, 0);
        vhca_pi_init(data, 0, 0, VHCA_PORT_ACTIVE);
        g_assert_cmphex(sm_set(r, PORT_INFO, port, to_switch, 1, data), ==, 0);
    }
    vhca_pi_init(data, LID_CA1, LID_CA1, VHCA_PORT_ACTIVE);
    g_assert_cmphex(sm_set(r, PORT_INFO, 0, to_ca1, 2, data), ==, 0);
    vhca_pi_init(data, LID_CA2, LID_CA1, VHCA_PORT_ACTIVE);
    g_assert_cmphex(sm_set(r, PORT_INFO, 0, to_ca2, 2, data), ==, 0);
}

/*
 * The next trap on port 1's QP0 (a receive posted), from slid: its MAD
 * in trap.  Trap 128: urgent, from a switch; 144: informational, a CA.
 */
static void trap_expect_num(SwRig *r, uint8_t *trap, uint16_t num,
                            uint16_t slid)
{
    struct vhca_cqe cqe;
    const uint8_t *d = trap + VHCA_SMP_DATA_OFF;
    bool link = num == VHCA_TRAP_LINK_STATE;

    dp_expect_cqe(r->dp, &r->cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RECV);
    g_assert_cmpuint(le16_to_cpu(cqe.slid), ==, slid);
    g_assert_cmpuint(le32_to_cpu(cqe.src_qp), ==, 0);
    qtest_memread(r->dp->v->qts, r->m.b + VHCA_GRH_SIZE, trap, VHCA_MAD_SIZE);
    g_assert_cmphex(vhca_mad_class(trap), ==, VHCA_MGMT_CLASS_SUBN_LID);
    g_assert_cmphex(vhca_mad_method(trap), ==, VHCA_MGMT_METHOD_TRAP);
    g_assert_cmphex(vhca_mad_attr(trap), ==, VHCA_SMP_ATTR_NOTICE);
    g_assert_cmphex(d[VHCA_NOTICE(generic_type)], ==, VHCA_NOTICE_GENERIC |
                    (link ? VHCA_TRAP_TYPE_URGENT : VHCA_TRAP_TYPE_INFO));
    g_assert_cmphex(ldl_be_p(d + VHCA_NOTICE(generic_type)) & 0xffffff, ==,
                    link ? VHCA_TRAP_PRODUCER_SWITCH : VHCA_TRAP_PRODUCER_CA);
    g_assert_cmpuint(vhca_smp_trap_number(trap), ==, num);
    g_assert_cmpuint(lduw_be_p(d + VHCA_NOTICE(issuer_lid)), ==, slid);
}

/* Trap 128 from the switch: LIDADDR is its LID. */
static void trap_expect(SwRig *r, uint8_t *trap)
{
    trap_expect_num(r, trap, VHCA_TRAP_LINK_STATE, LID_SWITCH);
    g_assert_cmpuint(lduw_be_p(trap + TRAP_DETAILS +
                               VHCA_MAD_OFF(vhca_trap128_details, lidaddr)),
                     ==, LID_SWITCH);
}

static void trap_post_recv(SwRig *r)
{
    dp_post_recv(r->dp, &r->smi, 0x300, r->m.b, VHCA_GRH_SIZE + VHCA_MAD_SIZE,
                 r->m.bkey, 0, 0);
}

static void test_sm_off_sm_configures(void)
{
    Dp *dp = dp_start_unmanaged(SM_OFF);
    struct vhca_port_attr attr;
    struct vhca_eqe ev[8];
    uint8_t resp[VHCA_MAD_SIZE], data[VHCA_SMP_DATA_SIZE];
    const uint8_t *d = resp + VHCA_SMP_DATA_OFF;
    SwRig r;
    int n, i, active = 0;

    sw_start_on(&r, dp);
    /* INIT -> ACTIVE at once is not allowed (IBA Table 146) */
    vhca_pi_init(data, LID_CA2, LID_CA1, VHCA_PORT_ACTIVE);
    g_assert_cmphex(sm_set(&r, PORT_INFO, 0, to_ca2, 2, data), ==, BAD_VALUE);
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
    g_assert_true(sw_get(&r, VHCA_SMP_ATTR_NODE_INFO, 0, NULL, 0, LID_CA2,
                         resp));
    g_assert_cmpuint(d[VHCA_NI(node_type)], ==, VHCA_NODE_TYPE_CA);
    g_assert_cmpuint(d[VHCA_NI(local_port)], ==, 2);    /* in on port 2 */
    g_assert_true(sw_get(&r, VHCA_SMP_ATTR_NODE_INFO, 0, NULL, 0, LID_SWITCH,
                         resp));
    g_assert_cmpuint(d[VHCA_NI(node_type)], ==, VHCA_NODE_TYPE_SWITCH);
    g_assert_true(sw_get(&r, VHCA_SMP_ATTR_SM_INFO, 0, NULL, 0, LID_SWITCH,
                         resp));
    g_assert_cmphex(vhca_mad_status(resp), ==,
                    UNSUP_METHOD_ATTR);                 /* no SM there */

    /* the switch forwards by the LFT: LID 6 sent to port 1 is lost */
    memset(data, 0xff, sizeof(data));
    data[LID_CA1] = 1;
    data[LID_CA2] = 1;
    data[LID_SWITCH] = 0;
    g_assert_cmphex(sm_set(&r, LFT, 0, to_switch, 1, data), ==, 0);
    g_assert_false(sw_get(&r, VHCA_SMP_ATTR_NODE_INFO, 0, NULL, 0, LID_CA2,
                          resp));

    /* port 2's cable pulled: the switch sees it (PortStateChange) and
     * tells the SM (Trap 128, into the receive the lost SMP left) */
    qom_set_link(dp->v, "port2-link", false);
    trap_expect(&r, resp);
    switch_port2_changed(&r, VHCA_PORT_DOWN);
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
    uint8_t trap[VHCA_MAD_SIZE];
    uint64_t tid;
    SwRig r;

    sw_start_on(&r, dp);
    sm_configure(&r);
    vhca_collect_port_events(dp->v, ev, 8);
    trap_post_recv(&r);
    qom_set_link(dp->v, "port2-link", false);
    trap_expect(&r, trap);
    tid = vhca_mad_tid(trap);
    trap_post_recv(&r);
    qtest_clock_step(dp->v->qts, 500 * 1000 * 1000);
    dp_expect_no_cqe(dp, &r.cq);
    qtest_clock_step(dp->v->qts, 600 * 1000 * 1000);   /* repeated */
    trap_expect(&r, trap);
    g_assert_cmphex(vhca_mad_tid(trap), ==, tid);

    /* the SM's TrapRepress (same TID, LID-routed to the switch) */
    trap[VHCA_SMP(method)] = VHCA_MGMT_METHOD_TRAP_REPRESS;
    qtest_memwrite(dp->v->qts, r.m.a, trap, VHCA_MAD_SIZE);
    dp_ud_send(dp, &r.smi, 0x400, LID_SWITCH, 0, 0, false, r.m.a,
               VHCA_MAD_SIZE, r.m.akey);
    dp_expect_cqe(dp, &r.cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_SEND);
    trap_post_recv(&r);
    qtest_clock_step(dp->v->qts, 5000ll * 1000 * 1000);
    dp_expect_no_cqe(dp, &r.cq);

    /* the cable back: a new trap, a new TID */
    qom_set_link(dp->v, "port2-link", true);
    trap_expect(&r, trap);
    g_assert_cmphex(vhca_mad_tid(trap), !=, tid);
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
    uint8_t trap[VHCA_MAD_SIZE];
    SwRig r;

    sw_start_on(&r, dp);
    sm_configure(&r);
    vhca_collect_port_events(dp->v, ev, 8);
    trap_post_recv(&r);
    g_assert_cmpuint(dp_set_port_cap(dp, 2, VHCA_PORT_CAP_SM, 0), ==,
                     VHCA_CMD_OK);
    trap_expect_num(&r, trap, VHCA_TRAP_CAP_MASK, LID_CA2);
    g_assert_cmpuint(vhca_query_port(dp->v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(lduw_be_p(trap + TRAP_DETAILS + T144(lidaddr)), ==,
                     LID_CA2);
    g_assert_cmphex(ldl_be_p(trap + TRAP_DETAILS + T144(cap_mask)), ==,
                    le32_to_cpu(attr.port_cap_flags));
    g_assert_cmphex(ldl_be_p(trap + TRAP_DETAILS + T144(cap_mask)) &
                    VHCA_PORT_CAP_SM, ==, VHCA_PORT_CAP_SM);

    /* TrapRepress, LID-routed to port 2: no more */
    trap[VHCA_SMP(method)] = VHCA_MGMT_METHOD_TRAP_REPRESS;
    qtest_memwrite(dp->v->qts, r.m.a, trap, VHCA_MAD_SIZE);
    dp_ud_send(dp, &r.smi, 0x400, LID_CA2, 0, 0, false, r.m.a,
               VHCA_MAD_SIZE, r.m.akey);
    dp_expect_cqe(dp, &r.cq, &cqe, VHCA_WC_SUCCESS);
    trap_post_recv(&r);
    qtest_clock_step(dp->v->qts, 3000ll * 1000 * 1000);
    dp_expect_no_cqe(dp, &r.cq);
    g_assert_cmpuint(dp_set_port_cap(dp, 2, VHCA_PORT_CAP_SM, 0), ==,
                     VHCA_CMD_OK);
    dp_expect_no_cqe(dp, &r.cq);                        /* no change */
    dp_stop(dp);
}

/* A Get of attr/mod by directed route: its MAD status (data in resp). */
static uint16_t sm_get_status(SwRig *r, uint16_t attr, uint32_t mod,
                              const uint8_t *path, uint8_t hops,
                              uint8_t *resp)
{
    g_assert_true(sw_get(r, attr, mod, path, hops, 0, resp));
    return vhca_mad_status(resp) & ~VHCA_SMP_DIRECTION;
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
    uint8_t resp[VHCA_MAD_SIZE], sl2vl[VHCA_SMP_DATA_SIZE] = { 0 };
    const uint8_t *d = resp + VHCA_SMP_DATA_OFF;
    SwRig r;

    sw_start_on(&r, dp);
    g_assert_true(sw_get(&r, PORT_INFO, 0, to_ca2, 2, 0, resp));
    g_assert_cmphex(ldl_be_p(d + VHCA_PI(cap_mask)) & VHCA_PORT_CAP_SL_MAP,
                    ==, VHCA_PORT_CAP_SL_MAP);
    g_assert_cmpuint(d[VHCA_PI(vl_cap_init_type)] >> 4, ==, 1);  /* VL0 */
    g_assert_cmpuint(d[VHCA_PI(vl_arb_high_cap)] | d[VHCA_PI(vl_arb_low_cap)],
                     ==, 0);                            /* no VLArb */
    g_assert_cmphex(sm_get_status(&r, VHCA_SMP_ATTR_VL_ARB, 1 << 16, to_ca2,
                                  2, resp), ==, UNSUP_METHOD_ATTR);

    sl2vl[7] = 0x0f;                                    /* SL15: VL15 */
    g_assert_cmphex(sm_set(&r, SL2VL, 0, to_ca2, 2, sl2vl), ==, 0);
    g_assert_cmphex(sm_get_status(&r, SL2VL, 0, to_ca2, 2, resp), ==, 0);
    g_assert_cmpuint(d[7], ==, 0x0f);
    sl2vl[0] = 0x01;                                    /* SL1: VL1 */
    g_assert_cmphex(sm_set(&r, SL2VL, 0, to_ca2, 2, sl2vl), ==, BAD_VALUE);
    g_assert_cmphex(sm_get_status(&r, SL2VL, 0, to_ca2, 2, resp), ==, 0);
    g_assert_cmpuint(d[0], ==, 0);                      /* unchanged */
    g_assert_cmphex(sm_get_status(&r, SL2VL, 1, to_ca2, 2, resp), ==,
                    BAD_VALUE);                         /* a CA: mod 0 */

    /* the switch: one table per output port (in << 8 | out) */
    g_assert_true(sw_get(&r, PORT_INFO, 0, to_switch, 1, 0, resp));
    g_assert_cmphex(ldl_be_p(d + VHCA_PI(cap_mask)) & VHCA_PORT_CAP_SL_MAP,
                    ==, VHCA_PORT_CAP_SL_MAP);
    sl2vl[0] = 0;
    g_assert_cmphex(sm_set(&r, SL2VL, 1 << 8 | 2, to_switch, 1, sl2vl),
                    ==, 0);
    g_assert_cmphex(sm_get_status(&r, SL2VL, 2, to_switch, 1, resp), ==, 0);
    g_assert_cmpuint(d[7], ==, 0x0f);
    g_assert_cmphex(sm_get_status(&r, SL2VL, 1, to_switch, 1, resp), ==, 0);
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
