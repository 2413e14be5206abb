/*
 * vhca - the Subnet Management Agent of the fabric's switch and the
 * SMInfo of its embedded SM (vhca-switch-sma.h).
 *
 * Get(NodeDescription, NodeInfo, SwitchInfo, GUIDInfo, PortInfo,
 * P_KeyTable, LinearForwardingTable, SMInfo) is answered from the
 * switch's description; Set is refused with the current value, as the
 * CA's SMA does: the embedded SM configures the fabric.  The forwarding
 * table is what the SM programmed: each CA port's LID to the switch port
 * it is cabled to, the SM's LID to port 0, nothing else (port 255).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "vhca-switch-sma.h"

#define LFT_BLOCK           64      /* IBA 14.2.5.10: LIDs per block */
#define LFT_NO_ROUTE        0xff
#define PKEY_TABLE_LEN      16
#define GUID_TABLE_LEN      8

typedef struct SwitchQuery {
    const VhcaSwitchNode *sw;
    uint8_t in_port;
} SwitchQuery;

/* IBA 14.2.5.3 NodeInfo of a switch: its ports share port 0's GUID. */
static uint16_t sw_node_info(const SwitchQuery *q, uint8_t *d)
{
    const VhcaSwitchNode *sw = q->sw;

    d[0] = 1;                                   /* BaseVersion */
    d[1] = 1;                                   /* ClassVersion */
    d[2] = 2;                                   /* NodeType: switch */
    d[3] = sw->num_ports;
    stq_be_p(d + 4, sw->node_guid);             /* SystemImageGUID */
    stq_be_p(d + 12, sw->node_guid);
    stq_be_p(d + 20, sw->node_guid);            /* PortGUID */
    stw_be_p(d + 28, PKEY_TABLE_LEN);           /* PartitionCap */
    stw_be_p(d + 30, VHCA_SWITCH_DEVICE_ID);
    stl_be_p(d + 32, 1);                        /* Revision */
    d[36] = q->in_port;                         /* LocalPortNum */
    d[37] = sw->vendor_id >> 16;
    d[38] = sw->vendor_id >> 8;
    d[39] = sw->vendor_id;
    return 0;
}

/* The highest LID the forwarding table routes (LinearFDBTop). */
static uint16_t sw_lft_top(const VhcaSwitchNode *sw)
{
    uint16_t top = sw->lid;
    int i;

    for (i = 1; i <= sw->num_ports; i++) {
        top = MAX(top, sw->ports[i].peer_lid);
    }
    return top;
}

/* IBA 14.2.5.4 SwitchInfo: one LID per port, no random or multicast FDB. */
static uint16_t sw_switch_info(const VhcaSwitchNode *sw, uint8_t *d)
{
    stw_be_p(d + 0, VHCA_SWITCH_LFT_CAP);       /* LinearFDBCap */
    stw_be_p(d + 6, sw_lft_top(sw));            /* LinearFDBTop */
    d[11] = 18 << 3;                            /* LifeTimeValue, no PSC */
    stw_be_p(d + 12, 1);                        /* LIDsPerPort */
    return 0;
}

/* IBA 14.2.5.6 PortInfo: port 0 carries the LIDs, 1..N the links. */
static uint16_t sw_port_info(const SwitchQuery *q, uint32_t mod, uint8_t *d)
{
    const VhcaSwitchNode *sw = q->sw;
    const VhcaSwitchPort *p;

    if (mod > sw->num_ports) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    p = &sw->ports[mod];
    stq_be_p(d + 8, VHCA_GID_PREFIX_DEFAULT);
    if (mod == 0) {
        stw_be_p(d + 16, sw->lid);
        stw_be_p(d + 18, sw->lid);              /* MasterSMLID: itself */
        stl_be_p(d + 20, 0x2);                  /* CapabilityMask: IsSM */
        d[32] = 4;                              /* port 0 is always ACTIVE */
        d[33] = 5 << 4;                         /* LinkUp */
    } else {
        d[29] = 3;                              /* LinkWidthEnabled 1x|4x */
        d[30] = 3;                              /* LinkWidthSupported */
        d[31] = 2;                              /* LinkWidthActive 4x */
        d[32] = 7 << 4 | (p->state & 0xf);      /* SpeedSupported, state */
        d[33] = (p->phys_state & 0xf) << 4 | 2; /* phys, LinkDownDefault */
        d[35] = 4 << 4 | 7;                     /* SpeedActive QDR */
        d[36] = 5 << 4;                         /* NeighborMTU 4096 */
        d[37] = 1 << 4;                         /* VLCap: VL0 */
        d[41] = 5;                              /* MTUCap 4096 */
        d[43] = 1 << 4;                         /* OperationalVLs: VL0 */
    }
    d[28] = q->in_port;                         /* LocalPortNum */
    d[51] = 18;                                 /* SubnetTimeOut */
    return 0;
}

/* IBA 14.2.5.7 P_KeyTable: modifier port << 16 | block; block 0 only. */
static uint16_t sw_pkey_table(const VhcaSwitchNode *sw, uint32_t mod,
                              uint8_t *d)
{
    if ((mod & 0xffff) != 0 || (mod >> 16) > sw->num_ports) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    stw_be_p(d, VHCA_DEFAULT_PKEY);
    return 0;
}

/* IBA 14.2.5.10 LinearForwardingTable: block mod, a port per LID. */
static uint16_t sw_lft(const VhcaSwitchNode *sw, uint32_t mod, uint8_t *d)
{
    uint32_t first = mod * LFT_BLOCK;
    uint32_t lid;
    int i;

    if (first > VHCA_SWITCH_LFT_CAP - LFT_BLOCK) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    memset(d, LFT_NO_ROUTE, LFT_BLOCK);
    if (sw->lid - first < LFT_BLOCK) {
        d[sw->lid - first] = 0;
    }
    for (i = 1; i <= sw->num_ports; i++) {
        lid = sw->ports[i].peer_lid;
        if (lid && lid - first < LFT_BLOCK) {
            d[lid - first] = i;
        }
    }
    return 0;
}

/* IBA 14.4.1 SMInfo of the SM at port 0: the master, with no SM_Key. */
static uint16_t sw_sm_info(const VhcaSwitchNode *sw, uint8_t *d)
{
    stq_be_p(d + 0, sw->node_guid);
    stl_be_p(d + 16, sw->sm_act_count);
    d[20] = VHCA_SM_STATE_MASTER;               /* Priority 0, SMState */
    return 0;
}

static uint16_t sw_attr(const void *opaque, uint16_t attr, uint32_t mod,
                        uint8_t *d)
{
    const SwitchQuery *q = opaque;

    switch (attr) {
    case VHCA_SMP_ATTR_NODE_DESC:
        memcpy(d, q->sw->node_desc, VHCA_SMP_DATA_SIZE);
        return 0;
    case VHCA_SMP_ATTR_NODE_INFO:
        return sw_node_info(q, d);
    case VHCA_SMP_ATTR_SWITCH_INFO:
        return sw_switch_info(q->sw, d);
    case VHCA_SMP_ATTR_GUID_INFO:
        if (mod >= GUID_TABLE_LEN / 8) {
            return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
        }
        stq_be_p(d, q->sw->node_guid);
        return 0;
    case VHCA_SMP_ATTR_PORT_INFO:
        return sw_port_info(q, mod, d);
    case VHCA_SMP_ATTR_PKEY_TABLE:
        return sw_pkey_table(q->sw, mod, d);
    case VHCA_SMP_ATTR_LFT:
        return sw_lft(q->sw, mod, d);
    case VHCA_SMP_ATTR_SM_INFO:
        return sw_sm_info(q->sw, d);
    default:
        return VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;
    }
}

VhcaSmaAction vhca_switch_sma_answer(const uint8_t *req, bool dr,
                                     const VhcaSwitchNode *sw,
                                     uint8_t in_port, uint8_t *resp,
                                     uint16_t *status)
{
    SwitchQuery q = { .sw = sw, .in_port = in_port };

    return vhca_smp_answer(req, dr, sw_attr, &q, resp, status);
}
