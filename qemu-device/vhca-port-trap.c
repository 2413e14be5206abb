/*
 * vhca - the traps of a CA port's SMA (IBA 14.2.5.1) to its master SM
 * (Documentation/fabric.md "Traps"): Trap 144 when the port's
 * CapabilityMask changes, repeated until TrapRepress (vhca-trap.c).  On
 * an in-process fabric whose embedded SM is off the SM is in a guest of
 * this process; a cabled port's SM (the standalone switch's, or opensm in
 * another VM) is behind the cable, and the trap leaves through it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "vhca-transport.h"
#include "vhca-link.h"
#include "vhca-trap.h"
#include "trace.h"

#define VHCA_PORT_TRAP_TID_BASE 0x5443000000000000ull

/*
 * A CA port's trap to its master SM: LID-routed from the port as any SMP
 * it sends, to the SM port's QP0 (IBA 13.4.9: the SMA sends it to the
 * MasterSMLID of its PortInfo).
 */
static void vhca_port_trap_send(void *opaque, const uint8_t *mad)
{
    VhcaPort *port = opaque;
    VhcaPort *sm;
    VhcaQp *qp0;

    trace_vhca_port_trap(port->num, vhca_smp_trap_number(mad), port->sm_lid,
                         port->trap.sends);
    if (vhca_link_cabled(port)) {
        if (port->state == VHCA_PORT_ACTIVE && port->sm_lid) {
            vhca_link_trap_send(port, mad); /* the switch forwards it */
        }
        return;                 /* a repeat after the link went: lost */
    }
    sm = vhca_fabric_route(port, port->sm_lid);
    qp0 = sm ? vhca_qp_by_qpn(sm->dev, sm->num, 0) : NULL;
    if (qp0) {
        vhca_mad_reply(sm->dev, qp0, mad, port->lid, 0);
    }
}

/*
 * SET_PORT_CAP changed the port's CapabilityMask (an SM opened issm, an
 * agent registered): Trap 144 with the LID and the new mask (IBA
 * 14.2.5.1), so that the SM reads the port again.  The in-process
 * embedded SM reads CapabilityMask itself and needs none; an SM behind a
 * cabled port hears of it only so, or at its next sweep.
 */
void vhca_port_cap_changed(VhcaPort *port)
{
    uint8_t d[sizeof(struct vhca_trap144_details)] = { 0 };

    vhca_fabric_sm_cap_changed(port);   /* the embedded SM, MASTER, looks */
    if (!(vhca_fabric_sm_off(port) || vhca_link_cabled(port)) ||
        port->state != VHCA_PORT_ACTIVE ||
        !port->sm_lid || !vhca_is_enabled(port->dev)) {
        return;
    }
    stw_be_p(d + VHCA_MAD_OFF(vhca_trap144_details, lidaddr), port->lid);
    stl_be_p(d + VHCA_MAD_OFF(vhca_trap144_details, cap_mask),
             port->cap_mask);
    vhca_trap_raise(&port->trap, VHCA_TRAP_TYPE_INFO, VHCA_TRAP_CAP_MASK,
                    VHCA_TRAP_PRODUCER_CA, port->lid, d, sizeof(d));
}

/*
 * An SMP for port's SMA: the SM's TrapRepress ends its trap's repeats
 * (true: it was that, the SMA takes it).
 */
bool vhca_port_trap_repress(VhcaPort *port, const uint8_t *req)
{
    if (!vhca_trap_repress(&port->trap, req)) {
        return false;
    }
    trace_vhca_port_trap_repress(port->num, port->trap.tid);
    return true;
}

void vhca_port_trap_init(VhcaPort *port)
{
    vhca_trap_init(&port->trap, VHCA_PORT_TRAP_TID_BASE, vhca_port_trap_send,
                   port);
}
