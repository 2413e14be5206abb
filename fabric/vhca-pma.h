/*
 * vhca - the Performance Management Agent of the device (IBA 16.1): the
 * per-port counters and the PerfMgt MADs that read and clear them.
 *
 * vhca_pma_process() (vhca-pma.c) takes request bytes and the device's
 * counters and writes the answer; it touches nothing else, so that
 * fuzz/fuzz_pma.c can link it alone.  vhca-pma-hook.c counts the traffic
 * of the ports and gives the PMA the PerfMgt requests that reach a port's
 * QPN 1 (Documentation/device-agents.md "Performance management agent").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_PMA_H
#define HW_INFINIBAND_VHCA_PMA_H

#include "vhca-sma.h"

#define VHCA_MGMT_CLASS_PERF_MGMT   0x04
#define VHCA_GSI_QPN                1       /* IBA 13.5.1: QP1, the GSI */

/* IBA 16.1.2 attributes the PMA serves. */
#define VHCA_PMA_ATTR_CLASS_PORT_INFO       0x0001
#define VHCA_PMA_ATTR_PORT_COUNTERS         0x0012
#define VHCA_PMA_ATTR_PORT_COUNTERS_EXT     0x001d

/*
 * ClassPortInfo:CapabilityMask (IBA 16.1.3.1, Table 230 footnote; the
 * kernel's IB_PMA_CLASS_CAP_EXT_WIDTH): PortCountersExtended is served.
 */
#define VHCA_PMA_CAP_EXT_WIDTH      0x0200

/*
 * What a port has sent and received since the device was reset or the
 * counters cleared (IBA 16.1.3.5 PortCounters, 16.1.4.11
 * PortCountersExtended).  Data in octets: the MADs report it divided by 4.
 * The 32-, 16- and 8-bit fields of PortCounters read these, saturated.
 */
typedef struct VhcaPortCounters {
    uint64_t xmit_data;             /* octets, headers included */
    uint64_t rcv_data;
    uint64_t xmit_pkts;
    uint64_t rcv_pkts;
    uint64_t multicast_xmit_pkts;   /* unicast = pkts - multicast */
    uint64_t multicast_rcv_pkts;
    uint64_t rcv_errors;            /* PortRcvErrors */
    uint64_t xmit_discards;         /* PortXmitDiscards */
    uint64_t link_downed;           /* LinkDownedCounter */
} VhcaPortCounters;

/*
 * Count packets (their payload octets besides) received (rcv) or sent:
 * data includes the 26 octets of LRH, BTH, ICRC and VCRC per packet.
 */
void vhca_pma_count(VhcaPortCounters *c, bool rcv, uint32_t packets,
                    uint64_t payload, bool multicast);

typedef enum VhcaPmaAction {
    VHCA_PMA_NOT_MINE,              /* not a PerfMgt request */
    VHCA_PMA_REPLY,                 /* taken, *resp is the answer */
} VhcaPmaAction;

/* local_port of a switch: counters[0] is its management port 0. */
#define VHCA_PMA_SWITCH             0xff

/*
 * req: len bytes that reached QPN 1 of port local_port (1..num_ports) of a
 * CA, or of a switch (local_port VHCA_PMA_SWITCH).
 * counters: num_ports pointers, the CA's port 1 or the switch's port 0
 * first; a Set clears some of them.
 * resp: VHCA_MAD_SIZE bytes, written only for VHCA_PMA_REPLY;
 * *status: the MAD status of the reply (for tracing).
 */
VhcaPmaAction vhca_pma_process(const uint8_t *req, uint64_t len,
                               uint8_t local_port, uint8_t num_ports,
                               VhcaPortCounters *const *counters,
                               uint8_t *resp,
                               uint16_t *status);

#endif /* HW_INFINIBAND_VHCA_PMA_H */
