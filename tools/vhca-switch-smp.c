/*
 * vhca-switch - the management agents of the standalone switch
 * (Documentation/fabric.md "SMPs across VMs"): its SMA and the SM's
 * SMInfo (vhca-switch-sm.c), the same code as the in-process switch (qemu-device/
 * vhca-switch-sma.c), directed routes through it (IBA 14.2.2), and its
 * PMA (fabric/vhca-pma.c) over the counters of its ports.
 *
 * The switch's state (sw_node: port states, SwitchInfo, the forwarding
 * tables it forwards by) lives here, written by its embedded SM (a LID
 * per HELLO, vhca-switch.c) or, with `--embedded-sm off`, only by the SMPs
 * of an SM in a guest such as opensm (IBA 14.2.5).
 *
 * An SMI datagram (QPN 0) LID-routed to port 0's LID is answered here.
 * A directed-route SMP is forwarded or answered by its hop pointer
 * (sw_smp_dr, IBA 14.2.2), at any depth: the switch may be hop 1 behind
 * the SM's CA or hop k behind other switches of a topology
 * (Documentation/fabric-topology.md); a CA port at the
 * end of the path is answered by its device (qemu-device/vhca-link.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-switch-sma.h"
#include "vhca-switch.h"

VhcaSwitchNode sw_node;

void sw_node_init(int nports, bool embedded_sm, uint64_t guid,
                  const char *name)
{
    VhcaSwitchNode *sw = &sw_node;

    vhca_switch_node_init(sw);
    sw->node_guid = guid;
    sw->vendor_id = 0x525400;
    sw->num_ports = nports;
    sw->embedded_sm = embedded_sm;
    snprintf((char *)sw->node_desc, sizeof(sw->node_desc), "%s", name);
    if (embedded_sm) {
        sw->sm_state = VHCA_SM_STATE_MASTER;    /* until SMInfo decides */
        sw->sm_act_count = 1;
        sw->lid = VHCA_WIRE_SM_LID;     /* its SM's port 0 */
        sw->sm_lid = VHCA_WIRE_SM_LID;
        vhca_switch_lft_route(sw, sw->lid, 0);
    }
}

/*
 * A HELLO on port p: the CA port behind it trains.  A port that was up
 * and says HELLO again has gone through INIT (its device was reset), so
 * the SM must configure it again: PortStateChange tells it.
 */
void sw_node_link_up(SwPort *p)
{
    VhcaSwitchPort *sp = &sw_node.ports[p->num];

    if (sp->state != VHCA_PORT_INIT) {
        vhca_switch_port_state(&sw_node, p->num, VHCA_PORT_INIT,
                               VHCA_PHYS_LINK_UP);
    }
}

void sw_node_link_down(SwPort *p)
{
    vhca_switch_port_state(&sw_node, p->num, VHCA_PORT_DOWN,
                           VHCA_PHYS_POLLING);
}

/* A Set, or any SMP refused: on stderr with --verbose (sw_log). */
static void sw_smp_log(const uint8_t *smp, uint16_t status)
{
    if (status || smp[VHCA_SMP(method)] == VHCA_MGMT_METHOD_SET) {
        sw_log("SMP method 0x%x attr 0x%x mod 0x%x: status 0x%x\n",
               smp[VHCA_SMP(method)], vhca_get_be16(smp + VHCA_SMP(attr_id)),
               vhca_get_be32(smp + VHCA_SMP(attr_mod)), status);
    }
}

/* An SMP frame from the switch's port 0 (its SMA or SM) out of port p. */
static void sw_smp_reply(SwPort *p, const VhcaWireFrame *req, bool dr,
                         const uint8_t *resp)
{
    VhcaWireFrame f = {
        .kind = VHCA_WIRE_DATAGRAM,
        .opcode = req->opcode,
        /* directed route: permissive both ways, the sender may have no LID */
        .slid = dr ? VHCA_LID_PERMISSIVE : sw_node.lid,
        .dlid = dr ? VHCA_LID_PERMISSIVE : req->slid,
        .src_qpn = 0,
        .dst_qpn = req->src_qpn,
        .packets = 1,
        .length = VHCA_MAD_SIZE,
        .qp_type = req->qp_type,
        .src_guid = SW_NODE_GUID,
    };

    sw_send_frame(p, &f, resp, VHCA_MAD_SIZE);
}

void sw_send_smp(SwPort *p, uint16_t dlid, const uint8_t *mad)
{
    VhcaWireFrame f = {
        .kind = VHCA_WIRE_DATAGRAM,
        .opcode = VHCA_WQE_SEND,
        .slid = sw_node.lid,
        .dlid = dlid,
        .src_qpn = 0,
        .dst_qpn = 0,
        .packets = 1,
        .length = VHCA_MAD_SIZE,
        .qp_type = VHCA_QPT_SMI,
        .src_guid = SW_NODE_GUID,
    };

    sw_send_frame(p, &f, mad, VHCA_MAD_SIZE);
}

/* The SMP of f with its directed-route fields changed, out of port out. */
static void sw_smp_forward(SwPort *out, const VhcaWireFrame *f,
                           const uint8_t *smp)
{
    VhcaWireFrame g = *f;

    g.dlid = VHCA_LID_PERMISSIVE;
    sw_send_frame(out, &g, smp, VHCA_MAD_SIZE);
}

static SwPort *sw_port_num(SwPort *ports, int nports, uint8_t num)
{
    return num >= 1 && num <= nports && ports[num - 1].fd >= 0 ?
           &ports[num - 1] : NULL;
}

/*
 * Port 0's agents: the SM's SMInfo and its own PortInfo answers
 * (vhca-switch-sm.c), else the switch's SMA.
 */
static VhcaSmaAction sw_port0_answer(SwPort *in, const uint8_t *smp, bool dr,
                                     uint8_t in_port, uint8_t *resp)
{
    uint16_t status;
    VhcaSmaAction act = sw_sm_smp(in, smp, dr, resp, &status);

    if (act == VHCA_SMA_NOT_MINE) {
        act = vhca_switch_sma_answer(smp, dr, &sw_node, in_port, resp,
                                     &status);
    }
    if (act == VHCA_SMA_REPLY) {
        sw_smp_log(smp, status);
    }
    return act;
}

/*
 * A directed-route SMP that came in on port in (IBA 14.2.2, the switch's
 * rules; hop pointer h, hop count n, both directions, any depth up to
 * VHCA_SMP_MAX_HOPS, so that SMs reach switches behind switches):
 * - outgoing (D 0), 1 <= h < n: the switch is an intermediate hop
 *   (C14-9:2): return path[h] = in, h + 1, out of initial path[h + 1];
 * - outgoing, h == n: the switch is the destination (C14-9:3): return
 *   path[n] = in, and its answer leaves by in with D set and hop pointer
 *   n, as if it had been sent with n + 1 and decremented (C14-13:1);
 * - returning (D 1), 2 <= h <= n: an intermediate hop on the way back
 *   (C14-13:2): h - 1, out of return path[h - 1].
 * Anything else (h 0 or beyond n + 1 on the wire, a LID-routed part of
 * the path, a port with no cable) is dropped: false.
 */
static bool sw_smp_dr(SwPort *in, SwPort *ports, int nports,
                      const VhcaWireFrame *f, uint8_t *smp)
{
    bool returning = vhca_get_be16(smp + VHCA_SMP(status)) & VHCA_SMP_DIRECTION;
    uint8_t hops = smp[VHCA_SMP_HOP_CNT], h = smp[VHCA_SMP_HOP_PTR];
    uint8_t resp[VHCA_MAD_SIZE];
    SwPort *out;

    if (hops < 1 || hops > VHCA_SMP_MAX_HOPS) {
        return false;
    }
    if (returning) {
        if (h < 2 || h > hops ||
            vhca_get_be16(smp + VHCA_SMP_DR_SLID) != VHCA_LID_PERMISSIVE) {
            return false;
        }
        out = sw_port_num(ports, nports, smp[VHCA_SMP_RETURN_PATH + h - 1]);
        if (out) {
            smp[VHCA_SMP_HOP_PTR] = h - 1;
            sw_smp_forward(out, f, smp);
        }
        return out != NULL;
    }
    if (h < 1 || h > hops ||
        vhca_get_be16(smp + VHCA_SMP_DR_DLID) != VHCA_LID_PERMISSIVE) {
        return false;
    }
    smp[VHCA_SMP_RETURN_PATH + h] = in->num;
    if (h < hops) {
        out = sw_port_num(ports, nports, smp[VHCA_SMP_INITIAL_PATH + h + 1]);
        if (out) {
            smp[VHCA_SMP_HOP_PTR] = h + 1;
            sw_smp_forward(out, f, smp);
        }
        return out != NULL;
    }
    if (sw_port0_answer(in, smp, true, in->num, resp) != VHCA_SMA_REPLY) {
        return false;
    }
    resp[VHCA_SMP_HOP_PTR] = hops;
    sw_smp_reply(in, f, true, resp);
    return true;
}

bool sw_smp(SwPort *in, SwPort *ports, int nports, const VhcaWireFrame *f)
{
    uint8_t smp[VHCA_MAD_SIZE], resp[VHCA_MAD_SIZE];
    VhcaSmaAction act;

    if (f->payload_len != VHCA_MAD_SIZE || f->payload[VHCA_SMP(base_version)] != 1) {
        return false;
    }
    memcpy(smp, f->payload, VHCA_MAD_SIZE);
    if (smp[VHCA_SMP(mgmt_class)] == VHCA_MGMT_CLASS_SUBN_DR) {
        return sw_smp_dr(in, ports, nports, f, smp);
    }
    if (smp[VHCA_SMP(mgmt_class)] != VHCA_MGMT_CLASS_SUBN_LID || !sw_node.lid ||
        f->dlid != sw_node.lid) {
        return false;
    }
    if (sw_trap_repress(smp)) {
        return true;            /* the SM heard the switch's Trap 128 */
    }
    act = sw_port0_answer(in, smp, false, 0, resp);
    if (act == VHCA_SMA_REPLY) {
        sw_smp_reply(in, f, false, resp);
    }
    return act != VHCA_SMA_NOT_MINE;
}

void sw_count(SwPort *p, const VhcaWireFrame *f, bool rx)
{
    uint32_t packets;
    uint64_t payload;
    bool multicast;

    if (vhca_wire_packets(f, &packets, &payload, &multicast)) {
        vhca_pma_count(&p->counters, rx, packets, payload, multicast);
    }
}

bool sw_pma(SwPort *in, SwPort *ports, int nports, const VhcaWireFrame *f)
{
    static VhcaPortCounters port0;      /* the management port's */
    VhcaPortCounters *counters[SW_MAX_PORTS + 1] = { &port0 };
    uint8_t resp[VHCA_MAD_SIZE];
    uint16_t status;
    VhcaWireFrame g = {
        .kind = VHCA_WIRE_DATAGRAM,
        .opcode = VHCA_WQE_SEND,
        .slid = sw_node.lid,
        .dlid = f->slid,
        .src_qpn = 1,
        .dst_qpn = f->src_qpn,
        .qkey = VHCA_WIRE_GSI_QKEY,
        .qp_type = VHCA_QPT_GSI,
        .length = VHCA_MAD_SIZE,
        .packets = 1,
        .src_guid = SW_NODE_GUID,
    };
    int i;

    if (f->payload_len != VHCA_MAD_SIZE || f->dst_qpn != 1) {
        return false;
    }
    for (i = 0; i < nports; i++) {
        counters[i + 1] = &ports[i].counters;
    }
    if (vhca_pma_process(f->payload, VHCA_MAD_SIZE, VHCA_PMA_SWITCH,
                         nports + 1, counters, resp, &status) !=
        VHCA_PMA_REPLY) {
        return false;
    }
    sw_send_frame(in, &g, resp, VHCA_MAD_SIZE);
    return true;
}
