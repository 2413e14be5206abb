/*
 * vhca-switch - the standalone switch's embedded SM beside SMs in guests
 * (Documentation/fabric.md "The standalone switch's SM beside opensm"):
 * its LIDs, and its part in SMInfo arbitration (IBA 14.4.1.1), which is
 * the in-process fabric's (fabric/vhca-sm-arbiter.c) wired to the
 * switch's poll() timeout and its ports.
 *
 * - The SM is port 0 of the switch (GUID SW_NODE_GUID).  Its SMInfo
 *   (Get, and Set as vhca_sm_set_transition() allows) is answered here,
 *   LID-routed or directed, with SM_Key: the switch has no M_Key.
 * - As MASTER it reads, every --sm-poll-ms, PortInfo of every ACTIVE CA
 *   port (LID-routed from LID 1, TIDs "SP..."), and at once after a Trap
 *   144 from one (which it represses): a CapabilityMask that gains IsSM
 *   makes it look at once.  The SMs it looks at are the ports
 *   whose HELLO or PortInfo showed IsSM.
 * - Its SMInfo requests go out of the port the SM's GUID said HELLO on,
 *   with the permissive DLID (an SMP on QP0 is accepted by any port,
 *   IBA 7.11.1), so they reach a guest SM whose LID the switch did not
 *   give; the answers come back LID-routed to the switch's LID.
 * - Leaving MASTER the switch keeps its tables, and takes the guest SM's
 *   Sets (vhca-switch-sma.c) and forwards by what it writes; the SA is
 *   silent, a HELLO gets no LINK.  Entering MASTER (a HANDOVER, or a
 *   master that stopped answering) it sweeps: LID 1 again, an LFT of its
 *   own LIDs, and a LINK with ClientReregister to every port.
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
#include "vhca-sm-arbiter.h"
#include "vhca-switch.h"
#include "vhca-trap-mad.h"

#define SW_FIRST_LID        (VHCA_WIRE_SM_LID + 1)  /* the ports' LIDs */
#define SW_PI_TID_BASE      0x5350000000000000ull   /* "SP": PortInfo look */
#define SW_PI_TID_MASK      0xffff000000000000ull
#define SW_PI_CAP_MASK      20                      /* PortInfo offset */

typedef struct SwLidEntry {
    uint64_t guid;
    uint16_t lid;
} SwLidEntry;

static SwLidEntry sw_lids[VHCA_MAX_UNICAST_LID];
static uint32_t sw_nlids;
static VhcaSmArbiter sw_arb;
static SwPort *sw_sm_ports;
static int sw_sm_nports;
static uint64_t sw_pi_tid = SW_PI_TID_BASE;

bool sw_sm_manages(void)
{
    return sw_node.embedded_sm && sw_arb.state == VHCA_SM_STATE_MASTER;
}

/* ---- LIDs ---------------------------------------------------------------- */

static bool sw_lid_taken(uint16_t lid)
{
    uint32_t i;

    for (i = 0; i < sw_nlids; i++) {
        if (sw_lids[i].lid == lid) {
            return true;
        }
    }
    return false;
}

uint16_t sw_lid_of(uint64_t guid, int port_num)
{
    uint16_t lid = (uint16_t)(SW_FIRST_LID - 1 + port_num);
    uint32_t i;

    for (i = 0; i < sw_nlids; i++) {
        if (sw_lids[i].guid == guid) {
            return sw_lids[i].lid;
        }
    }
    if (sw_nlids >= ARRAY_SIZE(sw_lids) - SW_FIRST_LID - SW_MAX_PORTS) {
        return 0;
    }
    if (sw_lid_taken(lid)) {
        lid = SW_FIRST_LID + SW_MAX_PORTS;
        while (sw_lid_taken(lid)) {
            lid++;
        }
    }
    sw_lids[sw_nlids].guid = guid;
    sw_lids[sw_nlids].lid = lid;
    sw_nlids++;
    return lid;
}

/* ---- SMPs of the SM ------------------------------------------------------ */

static SwPort *sw_sm_port_of(uint64_t guid)
{
    int i;

    for (i = 0; i < sw_sm_nports; i++) {
        if (sw_sm_ports[i].fd >= 0 && sw_sm_ports[i].hello &&
            sw_sm_ports[i].node.port_guid == guid) {
            return &sw_sm_ports[i];
        }
    }
    return NULL;
}

static bool sw_arb_send(VhcaSmArbiter *arb, uint64_t guid, const uint8_t *mad)
{
    SwPort *p = sw_sm_port_of(guid);

    if (!p || sw_node.ports[p->num].state == VHCA_PORT_DOWN) {
        sw_log("SM: SMInfo method 0x%x to 0x%016" PRIx64 ": no port\n",
               mad[VHCA_SMP(method)], guid);
        return false;
    }
    sw_log("SM: SMInfo method 0x%x mod %u to port %d\n", mad[VHCA_SMP(method)],
           vhca_get_be32(mad + VHCA_SMP(attr_mod)), p->num);
    sw_send_smp(p, VHCA_LID_PERMISSIVE, mad);
    return true;
}

/* The SM's own PortInfo look at an ACTIVE CA port it gave a LID. */
static void sw_sm_read_port_info(SwPort *p)
{
    uint8_t mad[VHCA_MAD_SIZE];

    sw_pi_tid = SW_PI_TID_BASE | ((sw_pi_tid + 1) & ~SW_PI_TID_MASK);
    vhca_smp_request(mad, VHCA_MGMT_METHOD_GET, sw_pi_tid,
                     VHCA_SMP_ATTR_PORT_INFO, 0);
    sw_send_smp(p, p->lid, mad);
}

/* The SMs to look at (and a PortInfo look at every port for the next). */
static int sw_arb_sm_ports(VhcaSmArbiter *arb, uint64_t *guids, int max)
{
    int i, n = 0;

    for (i = 0; i < sw_sm_nports; i++) {
        SwPort *p = &sw_sm_ports[i];

        if (p->fd < 0 || !p->hello || !p->lid ||
            sw_node.ports[p->num].state != VHCA_PORT_ACTIVE) {
            continue;
        }
        sw_sm_read_port_info(p);
        if ((p->node.cap_mask & VHCA_PORT_CAP_SM) && n < max) {
            guids[n++] = p->node.port_guid;
        }
    }
    return n;
}

/* A PortInfo GetResp of a look: IsSM new on that port?  Look at it soon. */
static void sw_sm_port_info_answer(SwPort *in, const uint8_t *resp)
{
    uint32_t cap = vhca_get_be32(resp + VHCA_SMP_DATA_OFF + SW_PI_CAP_MASK);
    bool new_sm = (cap & VHCA_PORT_CAP_SM) &&
                  !(in->node.cap_mask & VHCA_PORT_CAP_SM);

    if (vhca_get_be16(resp + VHCA_SMP(status)) & ~VHCA_SMP_DIRECTION) {
        return;                         /* an error status: nothing read */
    }
    in->node.cap_mask = cap;
    if (new_sm) {
        sw_log("SM: port %d has IsSM\n", in->num);
        vhca_sm_arbiter_sm_appeared(&sw_arb, sw_now_ms());
    }
}

/*
 * A Trap(Notice) to the switch's LID, from a CA port's SMA or an SM
 * behind any port (IBA 13.4.9), logged.  As MASTER: TrapRepress back to
 * the sender (vhca_trap_repress_build: same TID, attribute and Notice),
 * and for Trap 144 (a CA port's CapabilityMask changed) a PortInfo look
 * at that port at once.  Not MASTER: dropped unanswered, as opensm does
 * (traps are the master's; qemu-device/vhca-fabric-sm.c says why).
 */
static VhcaSmaAction sw_sm_trap(SwPort *in, const uint8_t *smp, bool dr,
                                uint8_t *resp)
{
    int num = vhca_trap_number(smp);
    bool master = sw_sm_manages();

    /* the TID tells the device's SMA (TIDs 0x5443...) from an SM's own */
    sw_log("SM: trap %d tid 0x%016" PRIx64 " from port %d (SLID %u) %s\n",
           num, vhca_get_be64(smp + VHCA_SMP(tid)), in->num, in->lid,
           master ? "repressed" : "dropped: the SM is not MASTER");
    if (!master) {
        return VHCA_SMA_CONSUMED;
    }
    vhca_trap_repress_build(resp, smp, dr);
    if (num == VHCA_TRAP_CAP_MASK && in->lid &&
        sw_node.ports[in->num].state == VHCA_PORT_ACTIVE) {
        sw_sm_read_port_info(in);
    }
    return VHCA_SMA_REPLY;
}

/* ---- state changes ------------------------------------------------------- */

/*
 * A master new to the subnet: LID 1 for port 0 and the SM, an LFT of its
 * own LIDs only (the old master's routes go), every port set again with
 * ClientReregister (IBA 14.4.11), the MFT from its SA's groups.
 */
static void sw_sm_sweep(void)
{
    int i;

    sw_node.lid = VHCA_WIRE_SM_LID;
    sw_node.sm_lid = VHCA_WIRE_SM_LID;
    memset(sw_node.lft, VHCA_SWITCH_NO_ROUTE, sizeof(sw_node.lft));
    sw_node.lft_top = 0;
    vhca_switch_lft_route(&sw_node, sw_node.lid, 0);
    for (i = 0; i < sw_sm_nports; i++) {
        if (sw_sm_ports[i].fd >= 0 && sw_sm_ports[i].hello) {
            sw_sm_configure_port(&sw_sm_ports[i], true);
        }
    }
    sw_sm_program_mft();
}

static void sw_arb_became(VhcaSmArbiter *arb, uint8_t old)
{
    fprintf(stderr, "vhca-switch: SM %s -> %s\n", vhca_sm_state_name(old),
            vhca_sm_state_name(arb->state));
    sw_node.sm_state = arb->state;
    sw_node.sm_act_count = arb->act_count;
    if (arb->state == VHCA_SM_STATE_MASTER) {
        arb->act_count++;
        sw_sm_sweep();
    }
}

static const VhcaSmArbiterOps sw_arb_ops = {
    .send = sw_arb_send,
    .sm_ports = sw_arb_sm_ports,
    .became = sw_arb_became,
};

void sw_sm_init(SwPort *ports, int nports, const VhcaFabricSmConf *conf)
{
    sw_sm_ports = ports;
    sw_sm_nports = nports;
    vhca_sm_arbiter_init(&sw_arb, &sw_arb_ops, NULL, conf, SW_NODE_GUID,
                         sw_now_ms());
    sw_node.sm_priority = conf->priority;
}

int sw_sm_tick(void)
{
    int64_t now = sw_now_ms();

    vhca_sm_arbiter_tick(&sw_arb, now);
    sw_node.sm_act_count = sw_arb.act_count;
    if (sw_arb.due_ms < 0) {
        return -1;
    }
    return sw_arb.due_ms > now ? (int)MIN(sw_arb.due_ms - now, INT32_MAX)
                               : 0;
}

VhcaSmaAction sw_sm_smp(SwPort *in, const uint8_t *smp, bool dr,
                        uint8_t *resp, uint16_t *status)
{
    VhcaSmaAction act;

    *status = 0;
    if (!sw_node.embedded_sm) {
        return VHCA_SMA_NOT_MINE;
    }
    if (smp[VHCA_SMP(method)] == VHCA_MGMT_METHOD_GET_RESP &&
        vhca_get_be16(smp + VHCA_SMP(attr_id)) == VHCA_SMP_ATTR_PORT_INFO &&
        (vhca_get_be64(smp + VHCA_SMP(tid)) & SW_PI_TID_MASK) == SW_PI_TID_BASE) {
        sw_sm_port_info_answer(in, smp);
        return VHCA_SMA_CONSUMED;
    }
    if (vhca_trap_number(smp) >= 0) {
        return sw_sm_trap(in, smp, dr, resp);
    }
    act = vhca_sm_arbiter_smp(&sw_arb, smp, dr, resp, status, sw_now_ms());
    if (act != VHCA_SMA_NOT_MINE && smp[VHCA_SMP(method)] == VHCA_MGMT_METHOD_SET &&
        *status) {
        sw_log("SM: SubnSet(SMInfo) mod %u refused in %s\n",
               vhca_get_be32(smp + VHCA_SMP(attr_mod)),
               vhca_sm_state_name(sw_arb.state));
    }
    return act;
}
