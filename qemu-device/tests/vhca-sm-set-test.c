/*
 * QTest testcase for vhca: an SM configures a cabled port by Set(PortInfo)
 * (IBA 14.2.5.6, 7.2), as opensm does when the switch has no SM of its
 * own (Documentation/fabric.md "opensm manages the fabric").
 *
 * Port 2 is cabled out through `-netdev stream` to a unix socket this test
 * listens on: the test is the switch.  The port trains (HELLO) and waits
 * in INIT; directed-route SMPs that end at the port (hop pointer = hop
 * count) then set its LID, SM LID and state: INIT -> ARMED (LID_CHANGE,
 * SM_CHANGE) -> ACTIVE with PORT_ACTIVE, a new LID with LID_CHANGE, a new
 * SM LID with SM_CHANGE, a
 * transition IBA does not allow refused with 0x001c and nothing changed,
 * Down taking the link down (PORT_ERR) and back to INIT with a new HELLO.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-cable.h"

#define SMP_DATA        CABLE_SMP_DATA
#define PI_LID          (SMP_DATA + 16)
#define PI_SM_LID       (SMP_DATA + 18)
#define PI_STATE        (SMP_DATA + 32)
#define PI_NEIGHBOR_MTU (SMP_DATA + 36)
#define PI_SUBNET_TO    (SMP_DATA + 51)

/*
 * A directed-route Set(PortInfo) that ends at the port, with pi's 64
 * bytes; the GetResp's data back in pi, its status returned.
 */
static uint16_t rig_set_port_info(VhcaCable *r, uint8_t *pi)
{
    uint8_t frame[sizeof(struct vhca_wire_hdr) + 4096];
    struct vhca_wire_hdr *h = (struct vhca_wire_hdr *)frame;
    uint8_t *smp = frame + sizeof(*h);
    uint64_t tid = ++r->tid;

    cable_send_dr_smp(r, 0x02, 0x0015, tid, pi);    /* Set(PortInfo) */

    cable_expect(r, VHCA_WIRE_DATAGRAM, frame);
    g_assert_cmpuint(h->qp_type, ==, VHCA_QPT_SMI);
    g_assert_cmphex(lduw_le_p(&h->dlid), ==, 0xffff);
    g_assert_cmphex(smp[3], ==, 0x81);                  /* GetResp */
    g_assert_cmphex(ldq_be_p(smp + 8), ==, tid);
    g_assert_cmpuint(smp[192 + 1], ==, 2);              /* return path */
    memcpy(pi, smp + SMP_DATA, 64);
    g_assert_cmphex(lduw_be_p(smp + 4) & 0x8000, ==, 0x8000);   /* D bit */
    return lduw_be_p(smp + 4) & 0x7fff;
}

/* Port 2's events only (port 1 is on the in-process fabric). */
static int port2_events(Vhca *v, struct vhca_eqe *out, int max)
{
    struct vhca_eqe ev[8];
    int n = vhca_collect_port_events(v, ev, 8), i, m = 0;

    for (i = 0; i < n; i++) {
        if (ev[i].data.port.port == 2 && m < max) {
            out[m++] = ev[i];
        }
    }
    return m;
}

static void test_sm_set_port_info(void)
{
    uint8_t frame[sizeof(struct vhca_wire_hdr) + 4096], pi[64];
    struct vhca_port_attr attr;
    struct vhca_eqe ev[4];
    VhcaCable r;

    cable_start(&r);
    vhca_bringup(r.v);
    /* The link trains: a HELLO, and the port waits in INIT with no LID. */
    cable_wait_hello(&r, frame);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 0);   /* port 1's pass */
    g_assert_cmpuint(vhca_query_port(r.v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_INIT);
    g_assert_cmpuint(le16_to_cpu(attr.lid), ==, 0);

    /* INIT -> ACTIVE directly is not a transition IBA allows. */
    vhca_pi_init(pi, 0x22, 0x21, VHCA_PORT_ACTIVE);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0x001c);
    g_assert_cmpuint(lduw_be_p(pi + 16), ==, 0);        /* nothing written */
    g_assert_cmpuint(pi[32] & 0xf, ==, VHCA_PORT_INIT);

    /* LID, SM LID and ARMED in one Set; the answer shows them. */
    vhca_pi_init(pi, 0x22, 0x21, VHCA_PORT_ARMED);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0);
    g_assert_cmpuint(lduw_be_p(pi + 16), ==, 0x22);
    g_assert_cmpuint(lduw_be_p(pi + 18), ==, 0x21);
    g_assert_cmpuint(pi[32] & 0xf, ==, VHCA_PORT_ARMED);
    g_assert_cmpuint(pi[36] >> 4, ==, 4);               /* stored */
    g_assert_cmpuint(pi[51] & 0x1f, ==, 17);
    /* not ACTIVE yet, but ib_core's cache follows the LID and SM LID */
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 2);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_LID_CHANGE);
    g_assert_cmpuint(ev[0].data.port.state, ==, VHCA_PORT_ARMED);
    g_assert_cmpuint(ev[1].subtype, ==, VHCA_PORT_EV_SM_CHANGE);
    g_assert_cmpuint(vhca_query_port(r.v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_ARMED);
    g_assert_cmpuint(le16_to_cpu(attr.lid), ==, 0x22);
    g_assert_cmpuint(le16_to_cpu(attr.sm_lid), ==, 0x21);
    g_assert_cmpuint(attr.subnet_timeout, ==, 17);

    /* ARMED -> ACTIVE: PORT_ACTIVE, as a real HCA raises it. */
    vhca_pi_init(pi, 0x22, 0x21, VHCA_PORT_ACTIVE);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 1);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_ACTIVE);
    g_assert_cmpuint(le16_to_cpu(ev[0].data.port.lid), ==, 0x22);

    /* ACTIVE -> ARMED is refused, and nothing else is written. */
    vhca_pi_init(pi, 0x30, 0x21, VHCA_PORT_ARMED);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0x001c);
    g_assert_cmpuint(lduw_be_p(pi + 16), ==, 0x22);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 0);

    /* A new LID, then a new SM: LID_CHANGE, SM_CHANGE. */
    vhca_pi_init(pi, 0x30, 0x21, 0);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 1);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_LID_CHANGE);
    g_assert_cmpuint(le16_to_cpu(ev[0].data.port.lid), ==, 0x30);
    vhca_pi_init(pi, 0x30, 0x31, 0);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 1);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_SM_CHANGE);

    /* Down: PORT_ERR, the link trains again (HELLO), INIT with no LID. */
    vhca_pi_init(pi, 0x30, 0x31, VHCA_PORT_DOWN);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 1);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_DOWN);
    cable_expect(&r, VHCA_WIRE_HELLO, frame);
    g_assert_cmpuint(vhca_query_port(r.v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_INIT);
    g_assert_cmpuint(le16_to_cpu(attr.lid), ==, 0);
    cable_stop(&r);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/sm-set/port-info", test_sm_set_port_info);
    return g_test_run();
}
