/*
 * vhca - SMPs that leave a port for the in-process fabric: to the switch
 * (its SMA, the SMInfo of the SM at its port 0) and through the switch to
 * the SMA of another CA port (Documentation/device-agents.md "The
 * switch's SMA").
 *
 * LID-routed (class 0x01): to the switch's LID (the SM's, 1) or to
 * another port's LID.  Directed route (class 0x81, IBA 14.2.2): the
 * guest's SMI has already taken the first hop (hop pointer 1, initial
 * path[1] this port, C14-9:1); the switch is hop 1, the CA port behind
 * switch port initial path[2] is hop 2.  Each node fills the return path
 * with the port the SMP came in on (C14-9:2, C14-9:3); the node at hop
 * count answers, and the answer comes back with the D bit and, having
 * been handed back hop by hop (C14-13), hop pointer 1.  Paths that end in
 * the LID-routed part (DrDLID not permissive), paths through a CA (a CA
 * does not forward, C14-9:2) and paths to a switch port with no cable go
 * nowhere: the SMP is dropped there, as it would be on a real fabric.
 * Ports cabled out of the process (vhca-link.c) do not take this path.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "vhca-transport.h"
#include "vhca-switch-sma.h"
#include "trace.h"

/* The switch's answer, for an SMP that came in on its port in_port. */
static VhcaSmaAction vhca_fabric_switch_answer(VhcaPort *port,
                                               const uint8_t *req, bool dr,
                                               uint8_t in_port,
                                               uint8_t *resp)
{
    VhcaSwitchNode scratch;
    uint16_t status;
    VhcaSmaAction act;

    vhca_fabric_switch_repress(port, req);
    act = vhca_fabric_sm_smp(port, req, dr, resp);
    if (act != VHCA_SMA_NOT_MINE) {
        return act;                     /* SMInfo: its embedded SM's */
    }
    act = vhca_switch_sma_answer(req, dr,
                                 vhca_fabric_switch_node(port, &scratch),
                                 in_port, resp, &status);
    trace_vhca_switch_sma(in_port, vhca_mad_class(req), vhca_mad_method(req),
                          vhca_mad_attr(req), status);
    return act;
}

/*
 * A CA port's SMA, for an SMP that came in on that port; a Set it took
 * (no embedded SM: opensm configuring the port) changes the port.
 */
static VhcaSmaAction vhca_fabric_ca_answer(VhcaPort *target,
                                           const uint8_t *req, bool dr,
                                           uint8_t *resp)
{
    VhcaSmaNode node;
    uint16_t status;
    VhcaSmaAction act;

    vhca_port_trap_repress(target, req);
    vhca_sma_describe(target->dev, target->num, &node);
    act = vhca_sma_answer(req, dr, &node, resp, &status);
    if (act == VHCA_SMA_REPLY) {
        trace_vhca_sma(target->num, vhca_mad_class(req), vhca_mad_method(req),
                       vhca_mad_attr(req), status);
        vhca_sma_apply(target->dev, req, status, &node);
    }
    return act;
}

static VhcaSmaAction vhca_fabric_lid_smp(VhcaPort *port, uint16_t dlid,
                                         const uint8_t *req, uint8_t *resp,
                                         uint16_t *slid)
{
    VhcaPort *target;

    if (port->state != VHCA_PORT_ACTIVE) {
        return VHCA_SMA_NOT_MINE;
    }
    *slid = dlid;
    if (dlid && dlid == vhca_fabric_switch_lid(port)) {
        return vhca_fabric_switch_answer(port, req, false, 0, resp);
    }
    target = vhca_fabric_route(port, dlid);
    return target ? vhca_fabric_ca_answer(target, req, false, resp)
                  : VHCA_SMA_NOT_MINE;
}

/* Directed route: hops 1 (the switch) and 2 (a CA port behind it). */
static VhcaSmaAction vhca_fabric_dr_smp(VhcaPort *port, uint8_t *req,
                                        uint8_t *resp, uint16_t *slid)
{
    uint8_t hops = req[VHCA_SMP_HOP_CNT];
    VhcaPort *target;
    VhcaSmaAction act;

    if (vhca_mad_status(req) & VHCA_SMP_DIRECTION || hops == 0 ||
        req[VHCA_SMP_HOP_PTR] != 1 ||
        req[VHCA_SMP_INITIAL_PATH + 1] != port->num ||
        lduw_be_p(req + VHCA_SMP_DR_DLID) != VHCA_LID_PERMISSIVE ||
        port->state == VHCA_PORT_DOWN || hops > 2) {
        return VHCA_SMA_NOT_MINE;       /* goes nowhere on this fabric */
    }
    *slid = VHCA_LID_PERMISSIVE;
    req[VHCA_SMP_RETURN_PATH + 1] = port->switch_port;
    if (hops == 1) {
        act = vhca_fabric_switch_answer(port, req, true, port->switch_port,
                                        resp);
    } else {
        target = vhca_fabric_switch_port(port, req[VHCA_SMP_INITIAL_PATH + 2]);
        if (!target || target->state == VHCA_PORT_DOWN ||
            !vhca_is_enabled(target->dev)) {
            return VHCA_SMA_NOT_MINE;
        }
        req[VHCA_SMP_RETURN_PATH + 2] = target->num;
        act = vhca_fabric_ca_answer(target, req, true, resp);
    }
    resp[VHCA_SMP_HOP_PTR] = 1;         /* handed back to the requester */
    return act;
}

/*
 * An SMI send that the port's own SMA did not take: for the switch or
 * through it?  If so the answer is in resp and its SLID in *slid.
 */
VhcaSmaAction vhca_fabric_smp(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt,
                              uint8_t *resp, uint16_t *slid)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    VhcaPort *port = &s->ports[qp->port - 1];
    uint8_t req[VHCA_MAD_SIZE];

    if (!port->fabric || wqe->length != VHCA_MAD_SIZE ||
        (wqe->remote_qpn & VHCA_DB_OBJ_MASK) != 0 ||
        vhca_sgl_read(pkt->local, req, VHCA_MAD_SIZE) != VHCA_VERR_NONE ||
        req[VHCA_MAD(base_version)] != 1) {
        return VHCA_SMA_NOT_MINE;
    }
    switch (vhca_mad_class(req)) {
    case VHCA_MGMT_CLASS_SUBN_LID:
        return vhca_fabric_lid_smp(port, le16_to_cpu(wqe->av.dlid), req,
                                   resp, slid);
    case VHCA_MGMT_CLASS_SUBN_DR:
        return vhca_fabric_dr_smp(port, req, resp, slid);
    default:
        return VHCA_SMA_NOT_MINE;
    }
}
