/*
 * vhca - the switch of the in-process fabric: its ports, how its SMA
 * sees it (a description of what the embedded SM, MASTER, programmed, or
 * the state an SM in a guest programs by SMPs), where it sends a LID, its
 * Trap 128 and its PMA's counters (vhca-fabric.c has the ports' side).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "vhca-fabric-priv.h"
#include "vhca-transport.h"
#include "trace.h"

#define VHCA_TRAP_TID_BASE      0x5452000000000000ull    /* the switch's */

/* The lowest switch port with no cable: the port number SMPs see. */
uint8_t vhca_fabric_free_switch_port(VhcaFabric *f)
{
    uint8_t n;

    for (n = 1; n <= VHCA_SWITCH_MAX_PORTS; n++) {
        if (!f->switch_ports[n]) {
            return n;
        }
    }
    return 0;
}

/* The switch's external ports: up to the highest cabled one, at least 1. */
uint8_t vhca_fabric_switch_num_ports(const VhcaFabric *f)
{
    uint8_t n = VHCA_SWITCH_MAX_PORTS;

    while (n > 1 && !f->switch_ports[n]) {
        n--;
    }
    return n;
}

/* What the switch is whoever manages it: a GUID from the fabric's name. */
static void vhca_fabric_describe_switch_init(VhcaFabric *f, VhcaSwitchNode *sw)
{
    vhca_switch_node_init(sw);
    sw->node_guid = f->sm_guid;
    sw->vendor_id = VHCA_VENDOR_OUI;
    snprintf((char *)sw->node_desc, sizeof(sw->node_desc),
             "vhca switch %s", f->name);
    sw->num_ports = vhca_fabric_switch_num_ports(f);
}

/*
 * The port the switch sends dlid out of: while a guest's SM manages it,
 * by the LFT it wrote (an ACTIVE switch port, to the CA port that has
 * that LID); while the embedded SM does, the port it gave that LID.
 */
VhcaPort *vhca_fabric_switch_out(VhcaFabric *f, uint16_t dlid)
{
    VhcaSwitchNode *sw = f->sw;
    VhcaPort *port = NULL;
    uint8_t out;

    if (!vhca_fabric_guest_managed(f)) {
        QTAILQ_FOREACH(port, &f->ports, fabric_link) {
            if (port->lid == dlid && port->state != VHCA_PORT_DOWN) {
                break;
            }
        }
    } else {
        out = vhca_switch_lft_port(sw, dlid);
        if (out >= 1 && out <= VHCA_SWITCH_MAX_PORTS &&
            sw->ports[out].state != VHCA_PORT_DOWN) {
            port = f->switch_ports[out];
        }
    }
    return port && port->lid == dlid && port->state != VHCA_PORT_DOWN &&
           vhca_is_enabled(port->dev) ? port : NULL;
}

/*
 * A trap of the switch (a guest's SM manages it) to the master SM its
 * port 0 knows: LID-routed by its LFT to that SM's QP0, from its LID.
 */
static void vhca_fabric_trap_send(void *opaque, const uint8_t *mad)
{
    VhcaFabric *f = opaque;
    VhcaSwitchNode *sw = f->sw;
    VhcaPort *sm;
    VhcaQp *qp0 = NULL;

    trace_vhca_fabric_trap(f->name, vhca_smp_trap_number(mad), sw->sm_lid,
                           f->trap.sends);
    sm = vhca_fabric_switch_out(f, sw->sm_lid);
    if (sm) {
        qp0 = vhca_qp_by_qpn(sm->dev, sm->num, 0);
    }
    if (qp0) {
        vhca_mad_reply(sm->dev, qp0, mad, sw->lid, 0);
    }                                   /* else no route to the SM: lost */
}

/* A link changed by itself: Trap 128, if an SM configured the switch. */
static void vhca_fabric_trap_link(VhcaFabric *f)
{
    uint8_t lid[sizeof(struct vhca_trap128_details)];

    if (!f->sw->lid || !f->sw->sm_lid) {
        return;                         /* nobody to tell yet */
    }
    /* LIDADDR: the switch's */
    stw_be_p(lid + VHCA_MAD_OFF(vhca_trap128_details, lidaddr), f->sw->lid);
    vhca_trap_raise(&f->trap, VHCA_TRAP_TYPE_URGENT, VHCA_TRAP_LINK_STATE,
                    VHCA_TRAP_PRODUCER_SWITCH, f->sw->lid, lid, sizeof(lid));
}

/* An SMP to the switch: the SM's TrapRepress ends the repeats. */
void vhca_fabric_switch_repress(VhcaPort *port, const uint8_t *req)
{
    VhcaFabric *f = port->fabric;

    if (f && f->sw && vhca_fabric_guest_managed(f) &&
        vhca_trap_repress(&f->trap, req)) {
        trace_vhca_fabric_trap_repress(f->name, f->trap.tid);
    }
}

/*
 * The link of port's switch port changed (no embedded SM): the switch
 * sees it (PortStateChange for the SM's light sweep, IBA 14.2.5.4); a
 * port that trains again after having been configured goes back to INIT.
 */
void vhca_fabric_switch_link(VhcaPort *port, uint8_t state)
{
    VhcaSwitchNode *sw = port->fabric ? port->fabric->sw : NULL;

    if (!sw || !vhca_fabric_guest_managed(port->fabric) ||
        sw->ports[port->switch_port].state == state) {
        return;
    }
    vhca_switch_port_state(sw, port->switch_port, state,
                           state == VHCA_PORT_DOWN ? VHCA_PHYS_POLLING
                                                   : VHCA_PHYS_LINK_UP);
    vhca_fabric_trap_link(port->fabric);
}

/* The switch state a guest's SM programs, created on first need. */
void vhca_fabric_switch_create(VhcaFabric *f)
{
    if (!f->sw) {
        f->sw = g_new(VhcaSwitchNode, 1);
        vhca_fabric_describe_switch_init(f, f->sw);
        vhca_trap_init(&f->trap, VHCA_TRAP_TID_BASE, vhca_fabric_trap_send,
                       f);
    }
}

/* The CA port cabled to switch port n, if any. */
VhcaPort *vhca_fabric_switch_port(VhcaPort *port, uint8_t n)
{
    if (!port->fabric || n < 1 || n > VHCA_SWITCH_MAX_PORTS) {
        return NULL;
    }
    return port->fabric->switch_ports[n];
}

/*
 * The switch as the embedded SM, MASTER, has programmed it: its LID 1,
 * a route per LID it gave, port states from the CA ports' links.
 */
static void vhca_fabric_describe_switch(VhcaFabric *f, VhcaSwitchNode *sw)
{
    VhcaPort *peer;
    int n;

    vhca_fabric_describe_switch_init(f, sw);
    sw->embedded_sm = true;
    sw->sm_state = f->arb.state;
    sw->sm_priority = f->arb.conf.priority;
    sw->lid = VHCA_WIRE_SM_LID;
    sw->sm_lid = VHCA_WIRE_SM_LID;
    sw->sm_act_count = f->arb.act_count;
    vhca_switch_lft_route(sw, sw->lid, 0);
    for (n = 1; n <= VHCA_SWITCH_MAX_PORTS; n++) {
        peer = f->switch_ports[n];
        sw->ports[n].state = peer ? MAX(peer->state, VHCA_PORT_DOWN)
                                  : VHCA_PORT_DOWN;
        sw->ports[n].phys_state = peer && peer->state != VHCA_PORT_DOWN ?
                                  VHCA_PHYS_LINK_UP : VHCA_PHYS_POLLING;
        if (peer) {
            vhca_switch_lft_route(sw, peer->lid, n);    /* SM's routes */
        }
    }
}

/*
 * The embedded SM stops being MASTER: the switch keeps what it had
 * programmed, now as state that the guest's new master reads and
 * rewrites by SMPs (and that forwards meanwhile).
 */
void vhca_fabric_switch_adopt(VhcaFabric *f)
{
    vhca_fabric_switch_create(f);
    vhca_fabric_describe_switch(f, f->sw);
}

/*
 * The switch of port's fabric as its SMA describes it (vhca-switch-sma.h):
 * while the embedded SM is MASTER, a description made for each SMP from
 * the ports' states and LIDs (scratch); else the one switch state that an
 * SM in a guest programs (its Sets change it) and that forwards.
 */
VhcaSwitchNode *vhca_fabric_switch_node(VhcaPort *port,
                                        VhcaSwitchNode *scratch)
{
    VhcaFabric *f = port->fabric;

    if (vhca_fabric_guest_managed(f)) {
        return f->sw;
    }
    vhca_fabric_describe_switch(f, scratch);
    return scratch;
}

/*
 * The LID of the switch's port 0, where its SMA, its PMA and (embedded
 * SM) the SM and SA are: 1, or what an SM set (0: none yet).
 */
uint16_t vhca_fabric_switch_lid(VhcaPort *port)
{
    if (!port->fabric) {
        return 0;
    }
    return vhca_fabric_guest_managed(port->fabric) ? port->fabric->sw->lid
                                                   : VHCA_WIRE_SM_LID;
}

/* The counters of the switch port port is cabled to, if any. */
VhcaPortCounters *vhca_fabric_switch_counters(VhcaPort *port)
{
    return port->fabric ? &port->fabric->switch_counters[port->switch_port]
                        : NULL;
}

/*
 * The switch's counters for its PMA, port 0 first, up to the highest
 * cabled port: how many.
 */
uint8_t vhca_fabric_switch_counters_all(VhcaPort *port,
                                        VhcaPortCounters **out)
{
    uint8_t num_ports = vhca_fabric_switch_num_ports(port->fabric);
    int n;

    for (n = 0; n <= num_ports; n++) {
        out[n] = &port->fabric->switch_counters[n];
    }
    return num_ports + 1;
}
