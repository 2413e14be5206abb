/*
 * vhca - MADs from the wire that the device's own agents answer, as a
 * hardware HCA's firmware does, before any reaches the guest's QP0 or QP1
 * (Documentation/fabric.md "SMPs across VMs"):
 *
 * - the SMA (vhca-sma.c): an SMP request LID-routed to the port's LID, or
 *   a directed-route one whose path ends here (hop pointer = hop count,
 *   C14-9:3), which gets the port in return path[hop count] and goes back
 *   with the D bit and that hop pointer (the destination's increment and
 *   the sending decrement of C14-13:1 cancel out), DLID permissive;
 * - the PMA (vhca-pma.c): a PerfMgt request to QPN 1;
 * - the SMA's Trap 144 (vhca-port-trap.c) leaves here to the SM LID, and
 *   the SM's TrapRepress of it, LID-routed to the port, is taken here.
 *
 * Responses (GetResp) are for the guest's agents and go on to its QP.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "vhca-link.h"
#include "vhca-switch-sma.h"
#include "trace.h"

/* A MAD of the device's agents out of port's cable, from its QPN src_qpn. */
static void vhca_link_agent_send(VhcaPort *port, uint32_t src_qpn,
                                 uint32_t dst_qpn, uint16_t dlid, uint8_t sl,
                                 const uint8_t *mad)
{
    VhcaWireFrame f = {
        .kind = VHCA_WIRE_DATAGRAM,
        .opcode = VHCA_WQE_SEND,
        .slid = port->lid,
        .dlid = dlid,
        .src_qpn = src_qpn,
        .dst_qpn = dst_qpn,
        .qkey = src_qpn ? VHCA_WIRE_GSI_QKEY : 0,
        .sl = sl,
        .packets = 1,
        .length = VHCA_MAD_SIZE,
        .qp_type = src_qpn ? VHCA_QPT_GSI : VHCA_QPT_SMI,
        .src_guid = port->guid,
    };

    vhca_link_send(port, &f, mad, VHCA_MAD_SIZE);
}

/* An agent's answer to req, from QPN src_qpn of port. */
static void vhca_link_agent_answer(VhcaPort *port, const VhcaWireFrame *req,
                                   uint32_t src_qpn, uint16_t dlid,
                                   const uint8_t *resp)
{
    vhca_link_agent_send(port, src_qpn, req->src_qpn, dlid, req->sl, resp);
}

/*
 * The SMA's trap (vhca-port-trap.c): LID-routed from the port's LID to
 * the QP0 of its MasterSMLID (IBA 13.4.9), which the switch forwards to
 * its own SM or, by its LFT, to the port of an SM in another VM.
 */
void vhca_link_trap_send(VhcaPort *port, const uint8_t *mad)
{
    vhca_link_agent_send(port, 0, 0, port->sm_lid, 0, mad);
}

/* An SMP for this port's SMA: the answer in resp; *dr for its route. */
static bool vhca_link_smp_for_me(VhcaPort *port, const VhcaWireFrame *f,
                                 uint8_t *smp, bool *dr)
{
    uint8_t hops;

    if (f->qp_type != VHCA_QPT_SMI || f->dst_qpn != 0 ||
        f->payload_len != VHCA_MAD_SIZE ||
        f->payload[VHCA_MAD(base_version)] != 1) {
        return false;
    }
    memcpy(smp, f->payload, VHCA_MAD_SIZE);
    if (vhca_mad_class(smp) == VHCA_MGMT_CLASS_SUBN_LID) {
        *dr = false;
        return port->lid && f->dlid == port->lid;
    }
    hops = smp[VHCA_SMP_HOP_CNT];
    if (vhca_mad_class(smp) != VHCA_MGMT_CLASS_SUBN_DR || hops == 0 ||
        smp[VHCA_SMP_HOP_PTR] != hops ||
        vhca_mad_status(smp) & VHCA_SMP_DIRECTION ||
        lduw_be_p(smp + VHCA_SMP_DR_DLID) != VHCA_LID_PERMISSIVE) {
        return false;
    }
    smp[VHCA_SMP_RETURN_PATH + hops] = port->num;
    *dr = true;
    return true;
}

bool vhca_link_agents_take(VhcaPort *port, const VhcaWireFrame *f,
                           VhcaPacket *pkt)
{
    uint8_t smp[VHCA_MAD_SIZE], resp[VHCA_MAD_SIZE];
    VhcaSmaNode node;
    uint16_t status;
    bool dr;

    if (vhca_pma_take(port, pkt, resp)) {
        vhca_link_agent_answer(port, f, VHCA_GSI_QPN, f->slid, resp);
        return true;
    }
    if (!vhca_link_smp_for_me(port, f, smp, &dr)) {
        return false;
    }
    if (vhca_port_trap_repress(port, smp)) {
        return true;            /* the SM heard this SMA's Trap 144 */
    }
    vhca_sma_describe(port->dev, port->num, &node);
    if (vhca_sma_answer(smp, dr, &node, resp, &status) != VHCA_SMA_REPLY) {
        return false;           /* a response, or TrapRepress: the guest's */
    }
    trace_vhca_sma(port->num, vhca_mad_class(smp), vhca_mad_method(smp),
                   vhca_mad_attr(smp), status);
    vhca_link_agent_answer(port, f, 0, dr ? VHCA_LID_PERMISSIVE : f->slid,
                           resp);
    vhca_sma_apply(port->dev, smp, status, &node);  /* after: Set to DOWN */
    return true;
}
