/*
 * vhca - the Subnet Management Agent of the switch that ports are cabled
 * to, and the SMInfo of the subnet manager embedded in it (IBA 14.2.5,
 * 14.4.1).  The switch's management port 0 has the SM's LID; ports 1..N
 * are cabled to CA ports.
 *
 * vhca_switch_sma_answer() is pure (the switch's state and request bytes
 * in, response bytes out, the state changed by a Set), fuzzed by
 * fuzz/fuzz_switch_sma.c; the in-process fabric (vhca-fabric-smp.c)
 * describes its switch for each SMP and refuses Sets (its embedded SM owns
 * it); the standalone switch (tools/vhca-switch*.c) keeps one state, and
 * with its embedded SM off an SM such as opensm programs it by SMPs.  The
 * forwarding tables here are the ones the switch forwards by, whoever
 * wrote them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_SWITCH_SMA_H
#define HW_INFINIBAND_VHCA_SWITCH_SMA_H

#include "vhca-sma.h"
#include "vhca-sm-state.h"

#define VHCA_SWITCH_MAX_PORTS       64      /* external ports 1..64 */
#define VHCA_SWITCH_DEVICE_ID       0x10f1
#define VHCA_SWITCH_LFT_CAP         4096    /* LIDs 0..4095 */
#define VHCA_SWITCH_MFT_CAP         256     /* MLIDs VHCA_MIN_MLID.. +255 */
#define VHCA_SWITCH_MFT_POSITIONS   5       /* 16 ports each: 0..64 */
#define VHCA_SWITCH_NO_ROUTE        0xff    /* an LFT entry for no port */

#define VHCA_SMP_ATTR_SWITCH_INFO   0x0012
#define VHCA_SMP_ATTR_LFT           0x0019  /* LinearForwardingTable */
#define VHCA_SMP_ATTR_MFT           0x001b  /* MulticastForwardingTable */

/* A switch port, as its PortInfo shows it: the link to a CA port. */
typedef struct VhcaSwitchPort {
    uint8_t state;              /* IBA PortState of the link; 1 Down */
    uint8_t phys_state;         /* IBA PortPhysicalState; 2 Polling */
    VhcaPortSmConf conf;        /* what an SM wrote (port 0: M_Key too) */
} VhcaSwitchPort;

typedef struct VhcaSwitchNode {
    uint64_t node_guid;         /* also port 0's GUID and the SM's */
    uint32_t vendor_id;         /* OUI, 24 bits */
    uint16_t lid;               /* port 0's LID (the embedded SM's: 1) */
    uint16_t sm_lid;            /* port 0's MasterSMLID */
    uint8_t num_ports;          /* external ports, 1..VHCA_SWITCH_MAX_PORTS */
    uint8_t node_desc[VHCA_NODE_DESC_LEN];
    bool embedded_sm;           /* an SM runs at port 0: IsSM, SMInfo */
    uint8_t sm_state;           /* its SMInfo:SMState; MASTER: Sets refused */
    uint8_t sm_priority;        /* its SMInfo:Priority */
    uint32_t sm_act_count;      /* SMInfo:ActCount, the SM's sweeps */
    /* SwitchInfo (IBA 14.2.5.4) */
    uint16_t lft_top;           /* LinearFDBTop */
    uint16_t mft_top;           /* MulticastFDBTop */
    uint8_t default_ports[3];   /* DefaultPort, ..MulticastPrimary/NotPrimary */
    uint8_t life_time;          /* LifeTimeValue, 5 bits */
    bool port_state_change;     /* PortStateChange: a port changed state */
    VhcaSwitchPort ports[VHCA_SWITCH_MAX_PORTS + 1];    /* [0]: port 0 */
    uint8_t lft[VHCA_SWITCH_LFT_CAP];   /* LID -> port, 0xff none */
    uint16_t mft[VHCA_SWITCH_MFT_CAP][VHCA_SWITCH_MFT_POSITIONS];
} VhcaSwitchNode;

/* A switch with no port up and nothing programmed (LFT all NO_ROUTE). */
void vhca_switch_node_init(VhcaSwitchNode *sw);
/* A port's link changes state (PortStateChange, IBA 14.2.5.4). */
void vhca_switch_port_state(VhcaSwitchNode *sw, uint8_t port, uint8_t state,
                            uint8_t phys_state);
/* The port the LFT sends lid out of (VHCA_SWITCH_NO_ROUTE: none). */
uint8_t vhca_switch_lft_port(const VhcaSwitchNode *sw, uint16_t lid);
/* The embedded SM routes lid out of port (and raises LinearFDBTop). */
void vhca_switch_lft_route(VhcaSwitchNode *sw, uint16_t lid, uint8_t port);
/* Is port a member of the MFT entry of mlid? */
bool vhca_switch_mft_has(const VhcaSwitchNode *sw, uint16_t mlid,
                         uint8_t port);
/* The embedded SM programs an MFT entry: the port set of mlid. */
void vhca_switch_mft_set(VhcaSwitchNode *sw, uint16_t mlid, uint8_t port,
                         bool member);

/* IBA 14.2.1.2: the directed-route fields of an SMP (vhca-mad.h). */
#define VHCA_SMP_HOP_PTR            VHCA_MAD_OFF(vhca_smp, hop_ptr)
#define VHCA_SMP_HOP_CNT            VHCA_MAD_OFF(vhca_smp, hop_cnt)
#define VHCA_SMP_DR_SLID            VHCA_MAD_OFF(vhca_smp, dr_slid)
#define VHCA_SMP_DR_DLID            VHCA_MAD_OFF(vhca_smp, dr_dlid)
#define VHCA_SMP_INITIAL_PATH       VHCA_MAD_OFF(vhca_smp, initial_path)
#define VHCA_SMP_RETURN_PATH        VHCA_MAD_OFF(vhca_smp, return_path)
#define VHCA_LID_PERMISSIVE         0xffff

/*
 * A request SMP (VHCA_MAD_SIZE bytes at req) that reached the switch on
 * in_port (0: LID-routed to port 0's LID): as vhca_smp_answer().  Unless
 * an embedded SM is MASTER, Set of SwitchInfo, PortInfo, P_KeyTable,
 * SLtoVLMappingTable, LinearForwardingTable and MulticastForwardingTable
 * change *sw.
 */
VhcaSmaAction vhca_switch_sma_answer(const uint8_t *req, bool dr,
                                     VhcaSwitchNode *sw,
                                     uint8_t in_port, uint8_t *resp,
                                     uint16_t *status);

#endif /* HW_INFINIBAND_VHCA_SWITCH_SMA_H */
