/*
 * vhca - the Subnet Management Agent of the switch that ports are cabled
 * to, and the SMInfo of the subnet manager embedded in it (IBA 14.2.5,
 * 14.4.1).  The switch's management port 0 has the SM's LID; ports 1..N
 * are cabled to CA ports.
 *
 * vhca_switch_sma_answer() is pure (the switch's description and request
 * bytes in, response bytes out), fuzzed by fuzz/fuzz_switch_sma.c; the
 * in-process fabric (vhca-fabric-smp.c) describes its switch and calls it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_MISC_VHCA_SWITCH_SMA_H
#define HW_MISC_VHCA_SWITCH_SMA_H

#include "vhca-sma.h"

#define VHCA_SWITCH_MAX_PORTS       64      /* external ports 1..64 */
#define VHCA_SWITCH_DEVICE_ID       0x10f1
#define VHCA_SWITCH_LFT_CAP         0xc000  /* every unicast LID */

#define VHCA_SMP_ATTR_SWITCH_INFO   0x0012
#define VHCA_SMP_ATTR_LFT           0x0019  /* LinearForwardingTable */
#define VHCA_SMP_ATTR_SM_INFO       0x0020

#define VHCA_SM_STATE_MASTER        3       /* IBA 14.4.1 SMInfo:SMState */

/* A switch port, as its PortInfo shows it: the link to a CA port. */
typedef struct VhcaSwitchPort {
    uint8_t state;              /* IBA PortState of the link; 1 Down */
    uint8_t phys_state;         /* IBA PortPhysicalState; 2 Polling */
    uint16_t peer_lid;          /* the CA port's LID (routes to here) */
} VhcaSwitchPort;

typedef struct VhcaSwitchNode {
    uint64_t node_guid;         /* also port 0's GUID and the SM's */
    uint32_t vendor_id;         /* OUI, 24 bits */
    uint16_t lid;               /* port 0: the SM's LID */
    uint8_t num_ports;          /* external ports, 1..VHCA_SWITCH_MAX_PORTS */
    uint8_t node_desc[VHCA_NODE_DESC_LEN];
    uint32_t sm_act_count;      /* SMInfo:ActCount, the SM's sweeps */
    VhcaSwitchPort ports[VHCA_SWITCH_MAX_PORTS + 1];    /* [0]: port 0 */
} VhcaSwitchNode;

/* IBA 14.2.1.2: the directed-route fields of an SMP. */
#define VHCA_SMP_HOP_PTR            6
#define VHCA_SMP_HOP_CNT            7
#define VHCA_SMP_DR_SLID            32
#define VHCA_SMP_DR_DLID            34
#define VHCA_SMP_INITIAL_PATH       128
#define VHCA_SMP_RETURN_PATH        192
#define VHCA_LID_PERMISSIVE         0xffff

/*
 * A request SMP (VHCA_MAD_SIZE bytes at req) that reached the switch on
 * in_port (0: LID-routed to port 0's LID): as vhca_smp_answer().
 */
VhcaSmaAction vhca_switch_sma_answer(const uint8_t *req, bool dr,
                                     const VhcaSwitchNode *sw,
                                     uint8_t in_port, uint8_t *resp,
                                     uint16_t *status);

#endif /* HW_MISC_VHCA_SWITCH_SMA_H */
