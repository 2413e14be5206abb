/*
 * vhca - the port counters and the hook to the Performance Management
 * Agent (vhca-pma.c).
 *
 * A port counts a packet where it crosses the port's link: what leaves the
 * port (requests, datagrams, answers of a responder, MADs to the SA) in
 * its Xmit counters, what arrives in its Rcv counters.  In one process the
 * transport (vhca-transport.c, vhca-rc.c) counts both ends of each
 * exchange; a cabled port (vhca-link.c) counts its frames.  An SMP to the
 * port's own SMA never reaches the link and is not counted.  Packets are
 * the PSNs a message uses at the path MTU; data is the payload plus the
 * headers every packet has: LRH 8, BTH 12, ICRC 4 and VCRC 2 octets
 * (IBA 7.7, 9.2), and a datagram's DETH 8; extension headers (RETH, AETH,
 * AtomicETH, ImmDt, GRH) are not counted.  A frame from the link that
 * cannot be parsed counts as a PortRcvError (what a bad ICRC is on a real
 * link), a datagram sent while the port is not ACTIVE as a
 * PortXmitDiscard, a link lost while the port was up as LinkDowned.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "vhca-transport.h"
#include "vhca-switch-sma.h"
#include "trace.h"

#define VHCA_DETH_OCTETS        8

/*
 * What leaves a CA port of the in-process fabric enters the switch port
 * at the other end of its cable, and the other way round.
 */
void vhca_port_count(VhcaPort *port, bool rcv, uint32_t packets,
                     uint64_t payload, bool multicast)
{
    VhcaPortCounters *peer = vhca_fabric_switch_counters(port);

    vhca_pma_count(&port->counters, rcv, packets, payload, multicast);
    if (peer) {
        vhca_pma_count(peer, !rcv, packets, payload, multicast);
    }
}

/*
 * A PerfMgt request to the switch (LID 1, QPN 1, in-process): the switch's
 * PMA answers it in resp (false: not a PerfMgt request).
 */
bool vhca_pma_switch_take(VhcaPort *port, const uint8_t *req, uint8_t *resp)
{
    VhcaPortCounters *counters[VHCA_SWITCH_MAX_PORTS + 1];
    uint16_t status = 0;
    uint8_t n;

    if (!port->fabric) {
        return false;
    }
    n = vhca_fabric_switch_counters_all(port, counters);
    if (vhca_pma_process(req, VHCA_MAD_SIZE, VHCA_PMA_SWITCH, n, counters,
                         resp, &status) != VHCA_PMA_REPLY) {
        return false;
    }
    trace_vhca_pma(0, vhca_mad_method(req), vhca_mad_attr(req), status);
    return true;
}

/* A datagram's one packet carries its DETH too. */
void vhca_port_count_datagram(VhcaPort *port, bool rx, uint64_t length,
                              bool multicast)
{
    vhca_port_count(port, rx, 1, length + VHCA_DETH_OCTETS, multicast);
}

/*
 * A datagram for QPN 1 of port: if it is a PerfMgt request the device's
 * PMA takes it (it never reaches the guest's QP1) and the answer is left
 * in resp (VHCA_MAD_SIZE bytes).
 */
bool vhca_pma_take(VhcaPort *port, VhcaPacket *pkt, uint8_t *resp)
{
    uint8_t req[VHCA_MAD_SIZE];

    if ((pkt->wqe->remote_qpn & VHCA_DB_OBJ_MASK) != VHCA_GSI_QPN ||
        pkt->src_qp->type == VHCA_QPT_SMI ||
        pkt->wqe->length != VHCA_MAD_SIZE || !vhca_is_enabled(port->dev) ||
        vhca_sgl_read(pkt->local, req, VHCA_MAD_SIZE) != VHCA_VERR_NONE) {
        return false;               /* not a MAD: the guest's QP1 judges */
    }
    return vhca_pma_answer(port, req, resp);
}

bool vhca_pma_answer(VhcaPort *port, const uint8_t *req, uint8_t *resp)
{
    VhcaState *s = port->dev;
    VhcaPortCounters *counters[VHCA_MAX_PORTS];
    uint16_t status = 0;
    uint8_t i;

    for (i = 0; i < s->num_ports && i < VHCA_MAX_PORTS; i++) {
        counters[i] = &s->ports[i].counters;
    }
    if (vhca_pma_process(req, VHCA_MAD_SIZE, port->num, s->num_ports,
                         counters, resp, &status) != VHCA_PMA_REPLY) {
        return false;
    }
    /* port, method, attribute id, status */
    trace_vhca_pma(port->num, vhca_mad_method(req), vhca_mad_attr(req), status);
    return true;
}
