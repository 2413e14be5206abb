/*
 * vhca - the Subnet Management Agent of the device (IBA 14.2): answers
 * SMPs that an SMI QP sends to its own port.
 *
 * vhca_sma_process() (vhca-sma.c) is a pure function (bytes in, bytes
 * out, no device state), fuzzed by fuzz/fuzz_sma.c; vhca_sma_send()
 * (vhca-sma-hook.c, declared in vhca-transport.h) is the hook the
 * requester (vhca-transport.c) calls for SMI sends, and
 * vhca-fabric-smp.c takes those for the switch and beyond.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_SMA_H
#define HW_INFINIBAND_VHCA_SMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "vhca_hw.h"
#include "vhca-mad.h"


/*
 * The PortInfo fields an SM writes and the port only stores (IBA
 * 14.2.5.6): reported back as written, none enforced (no M_Key check).
 */
typedef struct VhcaPortSmConf {
    uint64_t mkey;
    uint16_t mkey_lease;        /* M_KeyLeasePeriod */
    uint8_t mkey_protect;       /* M_KeyProtectBits, 0..3 */
    uint8_t sm_sl;              /* MasterSMSL */
    uint8_t neighbor_mtu;       /* enum vhca_ib_mtu */
    uint8_t oper_vls;           /* OperationalVLs: 1, VL0 only */
    uint8_t vl_high_limit;
    uint8_t subnet_timeout;
    uint8_t sl2vl[8];           /* SLtoVLMappingTable, two SLs a byte */
} VhcaPortSmConf;

/* What a port's PortInfo says before any SM wrote it. */
/* NodeInfo's values (IBA 14.2.5.3), for vhca_node_info_put(). */
#define VHCA_NODE_TYPE_CA       1
#define VHCA_NODE_TYPE_SWITCH   2
typedef struct VhcaNodeInfo {
    uint8_t node_type;          /* VHCA_NODE_TYPE_* */
    uint8_t num_ports;
    uint8_t local_port;
    uint64_t sys_image_guid;
    uint64_t node_guid;
    uint64_t port_guid;
    uint16_t partition_cap;
    uint16_t device_id;
    uint32_t revision;
    uint32_t vendor_id;         /* OUI, 24 bits */
} VhcaNodeInfo;

/* NodeInfo's 64 bytes at d. */
void vhca_node_info_put(uint8_t *d, const VhcaNodeInfo *ni);

/* PortInfo's link fields of every port: 4x QDR, MTU 4096, VL0. */
void vhca_port_info_link(uint8_t *d, uint8_t state, uint8_t phys_state);

void vhca_port_sm_conf_default(VhcaPortSmConf *c);

/* What the SMA may report of one port. */
typedef struct VhcaSmaPort {
    uint8_t state;              /* IBA PortState: 1 Down .. 4 Active */
    uint8_t phys_state;         /* IBA PortPhysicalState */
    uint16_t lid;
    uint16_t sm_lid;
    uint64_t guid;
    uint32_t cap_mask;          /* PortInfo:CapabilityMask */
    bool client_rereg;          /* a Set asked ClientReregister (14.4.11) */
    VhcaPortSmConf conf;
} VhcaSmaPort;

/* What the SMA may report of the node, seen from local_port. */
typedef struct VhcaSmaNode {
    uint64_t node_guid;
    uint64_t sys_image_guid;
    uint32_t vendor_id;         /* OUI, 24 bits */
    uint16_t device_id;
    uint32_t revision;
    uint8_t num_ports;          /* 1..VHCA_MAX_PORTS */
    uint8_t local_port;         /* 1..num_ports: the port the SMP came in on */
    uint8_t node_desc[VHCA_NODE_DESC_LEN];
    bool sm_sets;               /* an SM may Set PortInfo and tables */
    VhcaSmaPort ports[VHCA_MAX_PORTS];
} VhcaSmaNode;

typedef enum VhcaSmaAction {
    VHCA_SMA_NOT_MINE,          /* not an SMP for this port's SMA */
    VHCA_SMA_CONSUMED,          /* taken, no answer (TrapRepress) */
    VHCA_SMA_REPLY,             /* taken, *resp is the answer */
} VhcaSmaAction;

/*
 * req: len bytes sent on the local_port's SMI QP to dlid, QPN dqpn.
 * resp: VHCA_MAD_SIZE bytes, written only for VHCA_SMA_REPLY;
 * *status: the MAD status of the reply (for tracing).  A Set that
 * succeeds (node->sm_sets) has changed *node: the caller applies it.
 */
VhcaSmaAction vhca_sma_process(const uint8_t *req, uint64_t len,
                               uint16_t dlid, uint32_t dqpn,
                               VhcaSmaNode *node, uint8_t *resp,
                               uint16_t *status);

/* One attribute's 64 bytes of SMP data at d; the MAD status. */
typedef uint16_t (*VhcaSmpAttrFn)(const void *opaque, uint16_t attr,
                                  uint32_t mod, uint8_t *d);
/* A Set of one attribute from the request's data d: the MAD status. */
typedef uint16_t (*VhcaSmpSetFn)(void *opaque, uint16_t attr, uint32_t mod,
                                 const uint8_t *d);

/*
 * The answer to a request SMP that reached an agent (req: VHCA_MAD_SIZE
 * bytes): VHCA_SMA_REPLY with *resp, CONSUMED for TrapRepress, NOT_MINE
 * for a response.  set NULL: every Set is refused (status 0x000c).
 */
VhcaSmaAction vhca_smp_answer(const uint8_t *req, bool dr,
                              VhcaSmpAttrFn attr, VhcaSmpSetFn set,
                              void *opaque, uint8_t *resp, uint16_t *status);
/*
 * A LID-routed request SMP an SM sends (IBA 13.4.2 MAD header, 14.2.1.1):
 * mad zeroed, then BaseVersion 1, SubnLID class, method, TID, attribute
 * and modifier.
 */
void vhca_smp_request(uint8_t *mad, uint8_t method, uint64_t tid,
                      uint16_t attr, uint32_t mod);
/* The same from a CA's SMA, seen through node->local_port. */
VhcaSmaAction vhca_sma_answer(const uint8_t *req, bool dr,
                              VhcaSmaNode *node, uint8_t *resp,
                              uint16_t *status);

/*
 * IBA 14.2.5.6 Set(PortInfo), the parts every port shares: the PortState
 * a request asks of a port in state cur (*state; 0 when the transition is
 * not allowed, Table 146 and 7.2), and the stored fields.  Both check
 * before anything is written: a Set is all or nothing.
 */
uint16_t vhca_port_info_set_check(const uint8_t *d, uint8_t cur,
                                  uint8_t *state);
void vhca_port_info_set_conf(VhcaPortSmConf *c, const uint8_t *d);
void vhca_port_info_get_conf(const VhcaPortSmConf *c, uint8_t *d);
/* IBA 14.2.5.8 SLtoVLMappingTable of a port with VL0 only: Get and Set. */
uint16_t vhca_sl2vl_set(VhcaPortSmConf *c, const uint8_t *d);

/* The NodeInfo and PortInfo attributes (64-byte SMP data) of a node. */
uint16_t vhca_sma_node_info(const VhcaSmaNode *node, uint8_t *d);
uint16_t vhca_sma_port_info(const VhcaSmaNode *node, uint32_t mod,
                            uint8_t *d);

#endif /* HW_INFINIBAND_VHCA_SMA_H */
