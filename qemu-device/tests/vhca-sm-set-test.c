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
 * SM LID with SM_CHANGE, ClientReregister with CLIENT_REREGISTER, a
 * transition IBA does not allow refused with 0x001c and nothing changed,
 * Down taking the link down (PORT_ERR) and back to INIT with a new HELLO.
 * The standalone switch's SM configures the port by LINK frames instead: a
 * LINK repeated changes nothing, a LINK with ClientReregister (a master
 * new to the subnet, tools/vhca-switch-sm.c) sets it again with
 * CLIENT_REREGISTER (and LID_CHANGE, SM_CHANGE for what changed).
 * When the ACTIVE port's CapabilityMask changes, its SMA sends Trap 144
 * out of the cable to its SM LID, every second with the same TID until
 * the SM's TrapRepress comes back over the cable, at most 8 times.  Its
 * link going down with the cable in (portN-link off, a device reset)
 * sends the switch LINK DOWN before the port trains again.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-cable.h"
#include "vhca-pma.h"
#include "vhca-trap-mad.h"

#define MAD_SIZE        VHCA_MAD_SIZE
#define SMP_DATA        VHCA_SMP_DATA_OFF
#define GET             VHCA_MGMT_METHOD_GET
#define DR              VHCA_MGMT_CLASS_SUBN_DR
#define BAD_VALUE       VHCA_MAD_STATUS_INVALID_ATTR_VALUE
/* Trap 144's details (IBA 14.2.5.1) and its CapabilityMask in the SMP. */
#define T144(field)     VHCA_MAD_OFF(vhca_trap144_details, field)
#define TRAP_CAP_MASK   (SMP_DATA + VHCA_NOTICE(details) + T144(cap_mask))

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

    cable_send_dr_smp(r, VHCA_MGMT_METHOD_SET, VHCA_SMP_ATTR_PORT_INFO, tid,
                      pi);

    cable_expect(r, VHCA_WIRE_DATAGRAM, frame);
    g_assert_cmpuint(h->qp_type, ==, VHCA_QPT_SMI);
    g_assert_cmphex(lduw_le_p(&h->dlid), ==, 0xffff);
    g_assert_cmphex(vhca_mad_method(smp), ==, VHCA_MGMT_METHOD_GET_RESP);
    g_assert_cmphex(vhca_mad_tid(smp), ==, tid);
    g_assert_cmpuint(smp[VHCA_SMP(return_path) + 1], ==, 2);
    memcpy(pi, smp + SMP_DATA, VHCA_SMP_DATA_SIZE);
    g_assert_cmphex(vhca_mad_status(smp) & VHCA_SMP_DIRECTION, ==,
                    VHCA_SMP_DIRECTION);
    return vhca_mad_status(smp) & ~VHCA_SMP_DIRECTION;
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

/* The device up with port 2 cabled to the test, which got its HELLO. */
static void rig_start(VhcaCable *r, uint8_t *frame)
{
    cable_start(r);
    vhca_bringup(r->v);
    cable_wait_hello(r, frame);
}

static void test_sm_set_port_info(void)
{
    uint8_t frame[sizeof(struct vhca_wire_hdr) + 4096];
    uint8_t pi[VHCA_SMP_DATA_SIZE];
    struct vhca_port_attr attr;
    struct vhca_eqe ev[4];
    VhcaCable r;

    /* The link trains: a HELLO, and the port waits in INIT with no LID. */
    rig_start(&r, frame);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 0);   /* port 1's pass */
    g_assert_cmpuint(vhca_query_port(r.v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_INIT);
    g_assert_cmpuint(le16_to_cpu(attr.lid), ==, 0);

    /* INIT -> ACTIVE directly is not a transition IBA allows. */
    vhca_pi_init(pi, 0x22, 0x21, VHCA_PORT_ACTIVE);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, BAD_VALUE);
    g_assert_cmpuint(lduw_be_p(pi + VHCA_PI(lid)), ==, 0); /* not written */
    g_assert_cmpuint(pi[VHCA_PI(speed_supported_state)] & 0xf, ==,
                     VHCA_PORT_INIT);

    /* LID, SM LID and ARMED in one Set; the answer shows them. */
    vhca_pi_init(pi, 0x22, 0x21, VHCA_PORT_ARMED);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0);
    g_assert_cmpuint(lduw_be_p(pi + VHCA_PI(lid)), ==, 0x22);
    g_assert_cmpuint(lduw_be_p(pi + VHCA_PI(master_sm_lid)), ==, 0x21);
    g_assert_cmpuint(pi[VHCA_PI(speed_supported_state)] & 0xf, ==,
                     VHCA_PORT_ARMED);
    g_assert_cmpuint(pi[VHCA_PI(neighbor_mtu_sm_sl)] >> 4, ==,
                     VHCA_MTU_2048);                    /* stored */
    g_assert_cmpuint(pi[VHCA_PI(rereg_subnet_timeout)] & 0x1f, ==, 17);
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
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, BAD_VALUE);
    g_assert_cmpuint(lduw_be_p(pi + VHCA_PI(lid)), ==, 0x22);
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

    /*
     * IBA 14.4.11: the port advertises IsClientReregistrationSupported,
     * and a new master's Set with ClientReregister (and a new SM LID)
     * raises SM_CHANGE then CLIENT_REREGISTER; the bit reads back 0.
     */
    vhca_pi_init(pi, 0x30, 0x31, 0);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0);
    g_assert_cmphex(ldl_be_p(pi + VHCA_PI(cap_mask)) &
                    VHCA_PORT_CAP_CLIENT_REREG, ==,
                    VHCA_PORT_CAP_CLIENT_REREG);
    vhca_pi_init(pi, 0x30, 0x32, 0);
    pi[VHCA_PI(rereg_subnet_timeout)] |= 0x80;         /* ClientReregister */
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0);
    g_assert_cmpuint(pi[VHCA_PI(rereg_subnet_timeout)] >> 7, ==, 0);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 2);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_SM_CHANGE);
    g_assert_cmpuint(ev[1].subtype, ==, VHCA_PORT_EV_CLIENT_REREGISTER);
    g_assert_cmpuint(ev[1].data.port.state, ==, VHCA_PORT_ACTIVE);
    /* without the bit: no event at all when nothing changed */
    vhca_pi_init(pi, 0x30, 0x32, 0);
    g_assert_cmphex(rig_set_port_info(&r, pi), ==, 0);
    g_assert_cmpint(port2_events(r.v, ev, 4), ==, 0);

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

/* Port 2's events until n came (the cable's frames are read meanwhile). */
static int port2_events_n(VhcaCable *r, struct vhca_eqe *ev, int n)
{
    int got = 0, i;

    for (i = 0; i < 50 && got < n; i++) {
        got += port2_events(r->v, ev + got, n - got);
        if (got < n) {
            qtest_clock_step(r->v->qts, 10 * 1000 * 1000LL);
        }
    }
    return got + port2_events(r->v, ev + got, 0);
}

static void test_link_rereg(void)
{
    uint8_t frame[sizeof(struct vhca_wire_hdr) + 4096];
    struct vhca_port_attr attr;
    struct vhca_eqe ev[4];
    VhcaCable r;

    rig_start(&r, frame);
    port2_events(r.v, ev, 4);
    cable_send_link(&r, 0x22, 1, 0);
    g_assert_cmpint(port2_events_n(&r, ev, 1), ==, 1);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_ACTIVE);

    /* the same LINK again (the switch's SM saw another HELLO): nothing */
    cable_send_link(&r, 0x22, 1, 0);
    cable_send_link(&r, 0x22, 1, VHCA_WIRE_LINK_F_REREG);
    g_assert_cmpint(port2_events_n(&r, ev, 1), ==, 1);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_CLIENT_REREGISTER);
    g_assert_cmpuint(ev[0].data.port.state, ==, VHCA_PORT_ACTIVE);

    /* a master new to the subnet with another LID and SM LID */
    cable_send_link(&r, 0x23, 5, VHCA_WIRE_LINK_F_REREG);
    g_assert_cmpint(port2_events_n(&r, ev, 3), ==, 3);
    g_assert_cmpuint(ev[0].subtype, ==, VHCA_PORT_EV_LID_CHANGE);
    g_assert_cmpuint(ev[1].subtype, ==, VHCA_PORT_EV_SM_CHANGE);
    g_assert_cmpuint(ev[2].subtype, ==, VHCA_PORT_EV_CLIENT_REREGISTER);
    g_assert_cmpuint(vhca_query_port(r.v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmpuint(attr.state, ==, VHCA_PORT_ACTIVE);
    g_assert_cmpuint(le16_to_cpu(attr.lid), ==, 0x23);
    g_assert_cmpuint(le16_to_cpu(attr.sm_lid), ==, 5);
    cable_stop(&r);
}

/* SET_PORT_CAP of port 2 (the driver's ib_modify_port). */
static void port2_set_cap(Vhca *v, uint32_t set, uint32_t clear)
{
    struct vhca_cmd cmd;
    uint32_t result[2];

    cmd_init(v, &cmd, VHCA_CMD_SET_PORT_CAP);
    cmd.in.port_cap.port = 2;
    cmd.in.port_cap.set = cpu_to_le32(set);
    cmd.in.port_cap.clear = cpu_to_le32(clear);
    g_assert_cmpuint(vhca_exec(v, &cmd, result), ==, VHCA_CMD_OK);
}

/* The next frame of kind out of the cable within ms (others pass). */
static bool rig_next(VhcaCable *r, uint8_t *frame, int ms, uint8_t kind)
{
    const struct vhca_wire_hdr *h = (const struct vhca_wire_hdr *)frame;
    struct pollfd pfd = { .fd = r->fd, .events = POLLIN };

    while (poll(&pfd, 1, ms) > 0) {
        cable_recv(r, frame, sizeof(struct vhca_wire_hdr) + 4096);
        if (h->kind == kind) {
            return true;
        }
    }
    return false;
}

/* The next SMP (the port's only datagrams here): false if none. */
static bool rig_next_smp(VhcaCable *r, uint8_t *frame, int ms)
{
    const struct vhca_wire_hdr *h = (const struct vhca_wire_hdr *)frame;

    if (!rig_next(r, frame, ms, VHCA_WIRE_DATAGRAM)) {
        return false;
    }
    g_assert_cmpuint(h->qp_type, ==, VHCA_QPT_SMI);
    return true;
}

/*
 * The port's Trap 144 (IBA 14.2.5.1): LID-routed from its LID to QP0 of
 * its SM LID, informational from a CA, LIDADDR and CapabilityMask (the
 * port's, as QUERY_PORT reads it) in the details; its TID.
 */
static uint64_t rig_expect_trap_144(VhcaCable *r, uint8_t *frame,
                                    uint16_t lid, uint16_t sm_lid)
{
    const struct vhca_wire_hdr *h = (const struct vhca_wire_hdr *)frame;
    const uint8_t *smp = frame + sizeof(*h), *d = smp + SMP_DATA;
    const uint8_t *det = d + VHCA_NOTICE(details);
    struct vhca_port_attr attr;

    g_assert_true(rig_next_smp(r, frame, 5000));
    g_assert_cmphex(lduw_le_p(&h->slid), ==, lid);
    g_assert_cmphex(lduw_le_p(&h->dlid), ==, sm_lid);
    g_assert_cmpuint(le32_to_cpu(h->src_qpn), ==, 0);
    g_assert_cmpuint(le32_to_cpu(h->dst_qpn), ==, 0);
    g_assert_cmphex(vhca_mad_class(smp), ==, VHCA_MGMT_CLASS_SUBN_LID);
    g_assert_cmphex(vhca_mad_method(smp), ==, VHCA_MGMT_METHOD_TRAP);
    g_assert_cmphex(vhca_mad_attr(smp), ==, VHCA_SMP_ATTR_NOTICE);
    g_assert_cmphex(d[VHCA_NOTICE(generic_type)], ==,
                    VHCA_NOTICE_GENERIC | VHCA_TRAP_TYPE_INFO);
    g_assert_cmphex(ldl_be_p(d + VHCA_NOTICE(generic_type)) & 0xffffff, ==,
                    VHCA_TRAP_PRODUCER_CA);
    g_assert_cmpuint(vhca_smp_trap_number(smp), ==, VHCA_TRAP_CAP_MASK);
    g_assert_cmpuint(lduw_be_p(d + VHCA_NOTICE(issuer_lid)), ==, lid);
    g_assert_cmpuint(lduw_be_p(det + T144(lidaddr)), ==, lid);
    g_assert_cmpuint(vhca_query_port(r->v, 2, &attr), ==, VHCA_CMD_OK);
    g_assert_cmphex(ldl_be_p(det + T144(cap_mask)), ==,
                    le32_to_cpu(attr.port_cap_flags));
    return vhca_mad_tid(smp);
}

static void test_link_trap_144(void)
{
    uint8_t frame[sizeof(struct vhca_wire_hdr) + 4096], smp[MAD_SIZE];
    const uint8_t *out = frame + sizeof(struct vhca_wire_hdr);
    struct vhca_eqe ev[4];
    uint64_t tid;
    VhcaCable r;
    int i;

    rig_start(&r, frame);
    port2_set_cap(r.v, VHCA_PORT_CAP_SM, 0);    /* INIT, no SM: no trap */
    g_assert_false(rig_next_smp(&r, frame, 300));
    cable_send_link(&r, 0x22, 1, 0);
    g_assert_cmpint(port2_events_n(&r, ev, 1), ==, 1);

    /* ACTIVE: a change (IsSM off, as opensm closing issm) is trapped */
    port2_set_cap(r.v, 0, VHCA_PORT_CAP_SM);
    tid = rig_expect_trap_144(&r, frame, 0x22, 1);
    g_assert_cmphex(ldl_be_p(out + TRAP_CAP_MASK) & VHCA_PORT_CAP_SM, ==, 0);
    qtest_clock_step(r.v->qts, 1000 * 1000 * 1000LL);
    g_assert_cmphex(rig_expect_trap_144(&r, frame, 0x22, 1), ==, tid);

    /*
     * The SM's TrapRepress (the Trap back, method TrapRepress) LID-routed
     * to the port: the SMA takes it, no more repeats.  A Get(PortInfo)
     * behind it on the cable is answered first, so the repress was seen.
     */
    memcpy(smp, out, MAD_SIZE);
    smp[VHCA_SMP(method)] = VHCA_MGMT_METHOD_TRAP_REPRESS;
    cable_send_smp(&r, 1, 0x22, smp);
    vhca_mad_init(smp, VHCA_MGMT_CLASS_SUBN_LID, 1, GET, ++r.tid,
                  VHCA_SMP_ATTR_PORT_INFO);
    cable_send_smp(&r, 1, 0x22, smp);
    g_assert_true(rig_next_smp(&r, frame, 5000));
    g_assert_cmphex(vhca_mad_method(out), ==, VHCA_MGMT_METHOD_GET_RESP);
    g_assert_cmphex(vhca_mad_tid(out), ==, r.tid);
    qtest_clock_step(r.v->qts, 3000 * 1000 * 1000LL);
    g_assert_false(rig_next_smp(&r, frame, 300));
    port2_set_cap(r.v, 0, VHCA_PORT_CAP_SM);            /* no change */
    g_assert_false(rig_next_smp(&r, frame, 300));

    /* a new change: a new TID; unanswered, 8 sends in all, then quiet */
    port2_set_cap(r.v, VHCA_PORT_CAP_SM, 0);
    g_assert_cmphex(rig_expect_trap_144(&r, frame, 0x22, 1), ==, tid + 1);
    g_assert_cmphex(ldl_be_p(out + TRAP_CAP_MASK) & VHCA_PORT_CAP_SM, ==,
                    VHCA_PORT_CAP_SM);
    for (i = 2; i <= 8; i++) {
        qtest_clock_step(r.v->qts, 1000 * 1000 * 1000LL);
        g_assert_cmphex(rig_expect_trap_144(&r, frame, 0x22, 1), ==,
                        tid + 1);
    }
    qtest_clock_step(r.v->qts, 3000 * 1000 * 1000LL);
    g_assert_false(rig_next_smp(&r, frame, 300));
    cable_stop(&r);
}

/* A LINK with state DOWN out of the cable: the port's link went. */
static void rig_expect_link_down(VhcaCable *r, uint8_t *frame)
{
    const struct vhca_wire_hdr *h = (const struct vhca_wire_hdr *)frame;

    g_assert_true(rig_next(r, frame, 5000, VHCA_WIRE_LINK));
    g_assert_cmpuint(h->opcode, ==, VHCA_PORT_DOWN);
    g_assert_cmphex(ldq_le_p(&h->src_guid), ==, NODE_GUID + 2);
}

/*
 * IBA 7.2: a link that goes down with the cable in goes down at both
 * ends.  portN-link off, and a device reset (a driver reload), send the
 * switch LINK DOWN, so that the HELLO when the port trains again is a
 * link change its SM (or opensm, by Trap 128) acts on at once.
 */
static void test_link_down(void)
{
    uint8_t frame[sizeof(struct vhca_wire_hdr) + 4096];
    struct vhca_eqe ev[4];
    VhcaCable r;

    rig_start(&r, frame);
    cable_send_link(&r, 0x22, 1, 0);
    g_assert_cmpint(port2_events_n(&r, ev, 1), ==, 1);
    qom_set_link(r.v, "port2-link", false);
    rig_expect_link_down(&r, frame);
    qom_set_link(r.v, "port2-link", true);
    cable_wait_hello(&r, frame);

    cable_send_link(&r, 0x22, 1, 0);
    g_assert_cmpint(port2_events_n(&r, ev, 1), ==, 1);
    vhca_bringup(r.v);                  /* reset and enable: a reload */
    rig_expect_link_down(&r, frame);
    cable_wait_hello(&r, frame);
    cable_stop(&r);
}

/*
 * MAD_IFC: req (MAD_SIZE bytes) for port's own agents; the status, and
 * in result[0] whether it answered (then the answer is in resp).
 */
static uint8_t mad_ifc(Vhca *v, uint8_t port, const uint8_t *req,
                       uint8_t *resp, uint32_t out_len, uint32_t result[2])
{
    uint64_t in = v->buf + 2048;
    struct vhca_cmd cmd;
    uint8_t status;

    qtest_memwrite(v->qts, in, req, MAD_SIZE);
    qtest_memset(v->qts, v->buf, 0, MAD_SIZE);
    cmd_init(v, &cmd, VHCA_CMD_MAD_IFC);
    cmd.in.port.port = port;
    cmd.in_addr = cpu_to_le64(in);
    cmd.in_len = cpu_to_le32(MAD_SIZE);
    cmd_out(v, &cmd, out_len);
    status = vhca_exec(v, &cmd, result);
    qtest_memread(v->qts, v->buf, resp, MAD_SIZE);
    return status;
}

static void smp_init(uint8_t *mad, uint8_t mgmt_class, uint8_t method,
                     uint16_t attr)
{
    vhca_mad_init(mad, mgmt_class, 1, method, 0x1234, attr);
    stw_be_p(mad + VHCA_SMP(dr_slid), 0xffff);      /* permissive */
    stw_be_p(mad + VHCA_SMP(dr_dlid), 0xffff);
}

/*
 * The driver's process_mad (IBA 14.2.2.2): the port's SMA answers a
 * directed-route SMP of hop count 0, its PMA a PerfMgt Get; SMInfo (the
 * SM's) and responses are not the device's, nothing is written.
 */
static void test_mad_ifc(void)
{
    Vhca *v = vhca_start(NULL);
    uint8_t req[MAD_SIZE], resp[MAD_SIZE];
    uint32_t result[2];

    vhca_bringup(v);
    smp_init(req, DR, GET, VHCA_SMP_ATTR_NODE_INFO);
    g_assert_cmpuint(mad_ifc(v, 2, req, resp, MAD_SIZE, result), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(result[0], ==, 1);
    g_assert_cmphex(vhca_mad_method(resp), ==, VHCA_MGMT_METHOD_GET_RESP);
    g_assert_cmphex(vhca_mad_status(resp), ==,
                    VHCA_SMP_DIRECTION);                /* D bit, status 0 */
    g_assert_cmphex(vhca_mad_tid(resp), ==, 0x1234);
    g_assert_cmphex(ldq_be_p(resp + SMP_DATA + VHCA_NI(node_guid)), ==,
                    NODE_GUID);
    g_assert_cmpuint(resp[SMP_DATA + VHCA_NI(local_port)], ==, 2);

    smp_init(req, DR, GET, VHCA_SMP_ATTR_SM_INFO);
    g_assert_cmpuint(mad_ifc(v, 1, req, resp, MAD_SIZE, result), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(result[0], ==, 0);
    g_assert_cmphex(vhca_mad_method(resp), ==, 0);      /* nothing written */
    smp_init(req, DR, VHCA_MGMT_METHOD_GET_RESP, VHCA_SMP_ATTR_NODE_INFO);
    g_assert_cmpuint(mad_ifc(v, 1, req, resp, MAD_SIZE, result), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(result[0], ==, 0);
    smp_init(req, DR, GET, VHCA_SMP_ATTR_NODE_INFO);
    req[VHCA_SMP(hop_cnt)] = 1;
    g_assert_cmpuint(mad_ifc(v, 1, req, resp, MAD_SIZE, result), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(result[0], ==, 0);

    smp_init(req, VHCA_MGMT_CLASS_PERF_MGMT, GET,
             VHCA_PMA_ATTR_CLASS_PORT_INFO);
    g_assert_cmpuint(mad_ifc(v, 1, req, resp, MAD_SIZE, result), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(result[0], ==, 1);
    g_assert_cmphex(vhca_mad_method(resp), ==, VHCA_MGMT_METHOD_GET_RESP);

    g_assert_cmpuint(mad_ifc(v, 3, req, resp, MAD_SIZE, result), ==,
                     VHCA_CMD_BAD_PARAM);               /* no port 3 */
    g_assert_cmpuint(mad_ifc(v, 1, req, resp, 100, result), ==,
                     VHCA_CMD_BAD_SIZE);
    vhca_assert_alive(v);
    vhca_stop(v);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/sm-set/port-info", test_sm_set_port_info);
    qtest_add_func("/vhca/sm-set/mad-ifc", test_mad_ifc);
    qtest_add_func("/vhca/sm-set/link-rereg", test_link_rereg);
    qtest_add_func("/vhca/sm-set/link-trap-144", test_link_trap_144);
    qtest_add_func("/vhca/sm-set/link-down", test_link_down);
    return g_test_run();
}
