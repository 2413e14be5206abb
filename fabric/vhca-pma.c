/*
 * vhca - the Performance Management Agent (IBA 16.1) of the device.
 *
 * A PerfMgt request (a MAD of class 0x04, base and class version 1, a
 * request method) that reaches QPN 1 of a port is answered by the PMA of
 * the device the port belongs to, as on a hardware HCA, and never given
 * to the guest's QP1.  It serves:
 *
 * - Get(ClassPortInfo): CapabilityMask says PortCountersExtended is
 *   served (IBA 16.1.3.1);
 * - Get/Set(PortCounters) (IBA 16.1.3.5): Set clears the counters that
 *   CounterSelect names and answers with the counters after clearing;
 * - Get/Set(PortCountersExtended) (IBA 16.1.4.11), the 64-bit counters.
 *
 * PortSelect names a port of this device; for a CA 0 means the port the
 * request came in on, for a switch port 0 is its management port.  AllPortSelect (0xFF) is not served (its capability bit is
 * clear), nor is any other attribute: "unsupported method/attribute
 * combination" (0x000C).  A PortSelect naming no port is "invalid
 * attribute value" (0x001C), other methods 0x0008, a class version other
 * than 1 0x0004 (IBA 13.4.7 status field).
 *
 * Which traffic is counted and how is in vhca-pma-hook.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-pma.h"

/* MAD header offsets (IBA 13.4.3) and the PerfMgt data area (16.1.1). */
#define MAD_BASE_VERSION    VHCA_MAD_OFF(vhca_mad_hdr, base_version)
#define MAD_MGMT_CLASS      VHCA_MAD_OFF(vhca_mad_hdr, mgmt_class)
#define MAD_CLASS_VERSION   VHCA_MAD_OFF(vhca_mad_hdr, class_version)
#define MAD_METHOD          VHCA_MAD_OFF(vhca_mad_hdr, method)
#define MAD_STATUS          VHCA_MAD_OFF(vhca_mad_hdr, status)
#define MAD_ATTR_ID         VHCA_MAD_OFF(vhca_mad_hdr, attr_id)
#define PMA_DATA_OFF        VHCA_MAD_OFF(vhca_pma_mad, data)
#define PMA_DATA_SIZE       sizeof(((struct vhca_pma_mad *)0)->data)

/* PortCounters:CounterSelect bits (IBA 16.1.3.5, Table 236). */
#define PC_SEL_LINK_DOWNED      (1u << 2)
#define PC_SEL_RCV_ERRORS       (1u << 3)
#define PC_SEL_XMIT_DISCARDS    (1u << 6)
#define PC_SEL_XMIT_DATA        (1u << 12)
#define PC_SEL_RCV_DATA         (1u << 13)
#define PC_SEL_XMIT_PKTS        (1u << 14)
#define PC_SEL_RCV_PKTS         (1u << 15)

/* PortCountersExtended:CounterSelect bits (IBA 16.1.4.11, Table 264). */
#define PCX_SEL_XMIT_DATA       (1u << 0)
#define PCX_SEL_RCV_DATA        (1u << 1)
#define PCX_SEL_XMIT_PKTS       (1u << 2)
#define PCX_SEL_RCV_PKTS        (1u << 3)
#define PCX_SEL_UNICAST_XMIT    (1u << 4)
#define PCX_SEL_UNICAST_RCV     (1u << 5)
#define PCX_SEL_MULTICAST_XMIT  (1u << 6)
#define PCX_SEL_MULTICAST_RCV   (1u << 7)

/* IBA 13.4.6.1: RespTimeValue, 4.096 us * 2^18 (about 1 s), as the SMA. */
#define PMA_RESP_TIME_VALUE     18

/* Octets every packet has: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 (IBA 7.7). */
#define PKT_HDR_OCTETS      26

void vhca_pma_count(VhcaPortCounters *c, bool rcv, uint32_t packets,
                    uint64_t payload, bool multicast)
{
    uint64_t octets = payload + (uint64_t)packets * PKT_HDR_OCTETS;

    if (rcv) {
        c->rcv_pkts += packets;
        c->rcv_data += octets;
        c->multicast_rcv_pkts += multicast ? packets : 0;
    } else {
        c->xmit_pkts += packets;
        c->xmit_data += octets;
        c->multicast_xmit_pkts += multicast ? packets : 0;
    }
}

static uint64_t sat(uint64_t v, uint64_t max)
{
    return v < max ? v : max;
}

/* IBA 16.1.3.1 ClassPortInfo: no redirection, no traps. */
static uint16_t pma_class_port_info(uint8_t *d)
{
    d[VHCA_CPI(base_version)] = 1;
    d[VHCA_CPI(class_version)] = 1;
    vhca_put_be16(d + VHCA_CPI(cap_mask), VHCA_PMA_CAP_EXT_WIDTH);
    vhca_put_be32(d + VHCA_CPI(cap_mask2_resp_time),
                  PMA_RESP_TIME_VALUE);         /* CapabilityMask2 0 */
    return 0;
}

/* IBA 16.1.3.5 PortCounters (the kernel's struct ib_pma_portcounters). */
static void pma_fill_port_counters(const VhcaPortCounters *c, uint8_t *d)
{
    d[VHCA_PC(link_downed_counter)] = sat(c->link_downed, UINT8_MAX);
    vhca_put_be16(d + VHCA_PC(port_rcv_errors),
                  sat(c->rcv_errors, UINT16_MAX));
    vhca_put_be16(d + VHCA_PC(port_xmit_discards),
                  sat(c->xmit_discards, UINT16_MAX));
    vhca_put_be32(d + VHCA_PC(port_xmit_data),
                  sat(c->xmit_data / 4, UINT32_MAX));
    vhca_put_be32(d + VHCA_PC(port_rcv_data),
                  sat(c->rcv_data / 4, UINT32_MAX));
    vhca_put_be32(d + VHCA_PC(port_xmit_packets),
                  sat(c->xmit_pkts, UINT32_MAX));
    vhca_put_be32(d + VHCA_PC(port_rcv_packets),
                  sat(c->rcv_pkts, UINT32_MAX));
}

static void pma_clear_port_counters(VhcaPortCounters *c, uint16_t select)
{
    if (select & PC_SEL_LINK_DOWNED) {
        c->link_downed = 0;
    }
    if (select & PC_SEL_RCV_ERRORS) {
        c->rcv_errors = 0;
    }
    if (select & PC_SEL_XMIT_DISCARDS) {
        c->xmit_discards = 0;
    }
    if (select & PC_SEL_XMIT_DATA) {
        c->xmit_data = 0;
    }
    if (select & PC_SEL_RCV_DATA) {
        c->rcv_data = 0;
    }
    if (select & PC_SEL_XMIT_PKTS) {
        c->xmit_pkts = 0;
        c->multicast_xmit_pkts = 0;
    }
    if (select & PC_SEL_RCV_PKTS) {
        c->rcv_pkts = 0;
        c->multicast_rcv_pkts = 0;
    }
}

/* IBA 16.1.4.11 PortCountersExtended (struct ib_pma_portcounters_ext). */
static void pma_fill_port_counters_ext(const VhcaPortCounters *c,
                                       uint8_t *d)
{
    vhca_put_be64(d + VHCA_PCX(port_xmit_data), c->xmit_data / 4);
    vhca_put_be64(d + VHCA_PCX(port_rcv_data), c->rcv_data / 4);
    vhca_put_be64(d + VHCA_PCX(port_xmit_packets), c->xmit_pkts);
    vhca_put_be64(d + VHCA_PCX(port_rcv_packets), c->rcv_pkts);
    vhca_put_be64(d + VHCA_PCX(port_unicast_xmit_packets),
                  c->xmit_pkts - c->multicast_xmit_pkts);
    vhca_put_be64(d + VHCA_PCX(port_unicast_rcv_packets),
                  c->rcv_pkts - c->multicast_rcv_pkts);
    vhca_put_be64(d + VHCA_PCX(port_multicast_xmit_packets),
                  c->multicast_xmit_pkts);
    vhca_put_be64(d + VHCA_PCX(port_multicast_rcv_packets),
                  c->multicast_rcv_pkts);
}

/*
 * The packet counters are kept as totals and multicast: clearing the
 * unicast or the multicast count alone moves the part into the other.
 */
static void pma_clear_port_counters_ext(VhcaPortCounters *c, uint16_t select)
{
    if (select & (PCX_SEL_XMIT_PKTS | PCX_SEL_UNICAST_XMIT)) {
        c->xmit_pkts = c->multicast_xmit_pkts;
    }
    if (select & (PCX_SEL_XMIT_PKTS | PCX_SEL_MULTICAST_XMIT)) {
        c->xmit_pkts -= c->multicast_xmit_pkts;
        c->multicast_xmit_pkts = 0;
    }
    if (select & (PCX_SEL_RCV_PKTS | PCX_SEL_UNICAST_RCV)) {
        c->rcv_pkts = c->multicast_rcv_pkts;
    }
    if (select & (PCX_SEL_RCV_PKTS | PCX_SEL_MULTICAST_RCV)) {
        c->rcv_pkts -= c->multicast_rcv_pkts;
        c->multicast_rcv_pkts = 0;
    }
    if (select & PCX_SEL_XMIT_DATA) {
        c->xmit_data = 0;
    }
    if (select & PCX_SEL_RCV_DATA) {
        c->rcv_data = 0;
    }
}

/*
 * PortSelect (data byte 1).  A CA's ports are 1..num_ports and 0 is the
 * port the request came in on; a switch's are 0 (the management port)
 * to num_ports - 1, taken as they are (local_port VHCA_PMA_SWITCH).
 */
static VhcaPortCounters *pma_port(const uint8_t *d, uint8_t local_port,
                                  uint8_t num_ports,
                                  VhcaPortCounters *const *counters)
{
    uint8_t port = d[VHCA_PC(port_select)];

    if (local_port == VHCA_PMA_SWITCH) {
        return port < num_ports ? counters[port] : NULL;
    }
    port = port ? port : local_port;
    return port >= 1 && port <= num_ports ? counters[port - 1] : NULL;
}

/* PortSelect and CounterSelect sit alike in both counters attributes. */
_Static_assert(VHCA_PC(port_select) == VHCA_PCX(port_select) &&
               VHCA_PC(counter_select) == VHCA_PCX(counter_select),
               "PortCounters and PortCountersExtended disagree");

/* A counters attribute: Get reads, Set clears then reads (IBA 16.1.3.5). */
static uint16_t pma_counters(uint16_t attr, bool set, const uint8_t *req,
                             uint8_t *d, uint8_t local_port,
                             uint8_t num_ports,
                             VhcaPortCounters *const *counters)
{
    const uint8_t *rd = req + PMA_DATA_OFF;
    VhcaPortCounters *c = pma_port(rd, local_port, num_ports, counters);
    uint16_t select = vhca_get_be16(rd + VHCA_PC(counter_select));

    if (!c) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    d[VHCA_PC(port_select)] = rd[VHCA_PC(port_select)];
    vhca_put_be16(d + VHCA_PC(counter_select), select);
    if (attr == VHCA_PMA_ATTR_PORT_COUNTERS) {
        if (set) {
            pma_clear_port_counters(c, select);
        }
        pma_fill_port_counters(c, d);
    } else {
        if (set) {
            pma_clear_port_counters_ext(c, select);
        }
        pma_fill_port_counters_ext(c, d);
    }
    return 0;
}

static uint16_t pma_attribute(const uint8_t *req, uint8_t *d,
                              uint8_t local_port, uint8_t num_ports,
                              VhcaPortCounters *const *counters)
{
    uint8_t method = req[MAD_METHOD];
    uint16_t attr = vhca_get_be16(req + MAD_ATTR_ID);

    if (req[MAD_CLASS_VERSION] != 1) {
        return VHCA_MAD_STATUS_BAD_VERSION;
    }
    if (method != VHCA_MGMT_METHOD_GET && method != VHCA_MGMT_METHOD_SET) {
        return VHCA_MAD_STATUS_UNSUP_METHOD;
    }
    switch (attr) {
    case VHCA_PMA_ATTR_CLASS_PORT_INFO:
        if (method == VHCA_MGMT_METHOD_SET) {
            return VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;
        }
        return pma_class_port_info(d);
    case VHCA_PMA_ATTR_PORT_COUNTERS:
    case VHCA_PMA_ATTR_PORT_COUNTERS_EXT:
        return pma_counters(attr, method == VHCA_MGMT_METHOD_SET, req, d,
                            local_port, num_ports, counters);
    default:
        return VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;
    }
}

VhcaPmaAction vhca_pma_process(const uint8_t *req, uint64_t len,
                               uint8_t local_port, uint8_t num_ports,
                               VhcaPortCounters *const *counters,
                               uint8_t *resp,
                               uint16_t *status)
{
    uint8_t *d = resp + PMA_DATA_OFF;

    if (len != VHCA_MAD_SIZE || req[MAD_BASE_VERSION] != 1 ||
        req[MAD_MGMT_CLASS] != VHCA_MGMT_CLASS_PERF_MGMT ||
        (req[MAD_METHOD] & VHCA_MGMT_METHOD_RESP)) {
        return VHCA_PMA_NOT_MINE;   /* a response goes to the guest's QP1 */
    }
    memcpy(resp, req, VHCA_MAD_SIZE);
    memset(d, 0, PMA_DATA_SIZE);
    *status = pma_attribute(req, d, local_port, num_ports, counters);
    resp[MAD_METHOD] = VHCA_MGMT_METHOD_GET_RESP;
    vhca_put_be16(resp + MAD_STATUS, *status);
    return VHCA_PMA_REPLY;
}
