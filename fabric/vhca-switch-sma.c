/*
 * vhca - the Subnet Management Agent of the fabric's switch and the
 * SMInfo of its embedded SM (vhca-switch-sma.h).
 *
 * Get(NodeDescription, NodeInfo, SwitchInfo, GUIDInfo, PortInfo,
 * P_KeyTable, SLtoVLMappingTable, LinearForwardingTable,
 * MulticastForwardingTable) is answered from the switch's state, and
 * SMInfo while its embedded SM runs (Get only: the in-process fabric's
 * embedded SM takes SMInfo itself, vhca-fabric-sm.c).  While that SM is
 * MASTER it configures the switch itself and Set is refused with the
 * current value; with it off or not MASTER an SM in a guest configures
 * the switch as IBA 14.2.5 describes, and the switch forwards by the
 * tables it wrote.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-switch-sma.h"

#define LFT_BLOCK           64      /* IBA 14.2.5.10: LIDs per block */
#define MFT_BLOCK           32      /* IBA 14.2.5.11: MLIDs per block */
#define MFT_PORTS_PER_POS   16
#define PKEY_TABLE_LEN      16
#define GUID_TABLE_LEN      8
#define SWITCH_LIFE_TIME    18      /* LifeTimeValue: 4.096 us * 2^18 */

typedef struct SwitchQuery {
    VhcaSwitchNode *sw;
    uint8_t in_port;
} SwitchQuery;

void vhca_switch_node_init(VhcaSwitchNode *sw)
{
    int i;

    memset(sw, 0, sizeof(*sw));
    memset(sw->lft, VHCA_SWITCH_NO_ROUTE, sizeof(sw->lft));
    sw->life_time = SWITCH_LIFE_TIME;
    for (i = 0; i <= VHCA_SWITCH_MAX_PORTS; i++) {
        sw->ports[i].state = VHCA_PORT_DOWN;
        sw->ports[i].phys_state = VHCA_PHYS_POLLING;
        vhca_port_sm_conf_default(&sw->ports[i].conf);
    }
    sw->ports[0].state = VHCA_PORT_ACTIVE;      /* base port 0: always */
    sw->ports[0].phys_state = VHCA_PHYS_LINK_UP;
}

void vhca_switch_port_state(VhcaSwitchNode *sw, uint8_t port, uint8_t state,
                            uint8_t phys_state)
{
    VhcaSwitchPort *p;

    if (port < 1 || port > VHCA_SWITCH_MAX_PORTS) {
        return;
    }
    p = &sw->ports[port];
    if (p->state != state) {
        sw->port_state_change = true;           /* for the SM's light sweep */
    }
    p->state = state;
    p->phys_state = phys_state;
}

/* IBA 14.2.5.4: LIDs above LinearFDBTop are not forwarded. */
uint8_t vhca_switch_lft_port(const VhcaSwitchNode *sw, uint16_t lid)
{
    return lid <= sw->lft_top && lid < VHCA_SWITCH_LFT_CAP ?
           sw->lft[lid] : VHCA_SWITCH_NO_ROUTE;
}

void vhca_switch_lft_route(VhcaSwitchNode *sw, uint16_t lid, uint8_t port)
{
    if (lid && lid < VHCA_SWITCH_LFT_CAP) {
        sw->lft[lid] = port;
        sw->lft_top = MAX(sw->lft_top, lid);
    }
}

static uint16_t *sw_mft_entry(const VhcaSwitchNode *sw, uint16_t mlid)
{
    uint32_t i = (uint32_t)mlid - VHCA_MIN_MLID;

    return mlid >= VHCA_MIN_MLID && i < VHCA_SWITCH_MFT_CAP ?
           (uint16_t *)sw->mft[i] : NULL;
}

bool vhca_switch_mft_has(const VhcaSwitchNode *sw, uint16_t mlid,
                         uint8_t port)
{
    const uint16_t *e = sw_mft_entry(sw, mlid);

    return e && port <= VHCA_SWITCH_MAX_PORTS &&
           (e[port / MFT_PORTS_PER_POS] >> (port % MFT_PORTS_PER_POS)) & 1;
}

void vhca_switch_mft_set(VhcaSwitchNode *sw, uint16_t mlid, uint8_t port,
                         bool member)
{
    uint16_t *e = sw_mft_entry(sw, mlid);
    uint16_t bit = 1u << (port % MFT_PORTS_PER_POS);

    if (e && port <= VHCA_SWITCH_MAX_PORTS) {
        e[port / MFT_PORTS_PER_POS] = member ? e[port / MFT_PORTS_PER_POS] | bit
                                             : e[port / MFT_PORTS_PER_POS] & ~bit;
    }
}

/* IBA 14.2.5.3 NodeInfo of a switch: its ports share port 0's GUID. */
static uint16_t sw_node_info(const SwitchQuery *q, uint8_t *d)
{
    const VhcaSwitchNode *sw = q->sw;
    const VhcaNodeInfo ni = {
        .node_type = VHCA_NODE_TYPE_SWITCH,
        .num_ports = sw->num_ports,
        .local_port = q->in_port,
        .sys_image_guid = sw->node_guid,
        .node_guid = sw->node_guid,
        .port_guid = sw->node_guid,
        .partition_cap = PKEY_TABLE_LEN,
        .device_id = VHCA_SWITCH_DEVICE_ID,
        .revision = 1,
        .vendor_id = sw->vendor_id,
    };

    vhca_node_info_put(d, &ni);
    return 0;
}

/* IBA 14.2.5.4 SwitchInfo: one LID per port, no random FDB. */
static uint16_t sw_switch_info(const VhcaSwitchNode *sw, uint8_t *d)
{
    vhca_put_be16(d + VHCA_SWI(lft_cap), VHCA_SWITCH_LFT_CAP);
    vhca_put_be16(d + VHCA_SWI(mft_cap), VHCA_SWITCH_MFT_CAP);
    vhca_put_be16(d + VHCA_SWI(lft_top), sw->lft_top);
    memcpy(d + VHCA_SWI(default_port), sw->default_ports, 3);
    d[VHCA_SWI(life_time_psc)] = sw->life_time << 3 |
                                 (sw->port_state_change ? VHCA_SWI_PSC : 0);
    vhca_put_be16(d + VHCA_SWI(lids_per_port), 1);
    vhca_put_be16(d + VHCA_SWI(mft_top), sw->mft_top);
    return 0;
}

/*
 * Set(SwitchInfo): the tops, the default ports and LifeTimeValue are the
 * SM's; PortStateChange is cleared by writing 1 (IBA 14.2.5.4).
 */
static uint16_t sw_switch_info_set(VhcaSwitchNode *sw, const uint8_t *d)
{
    uint16_t lft_top = vhca_get_be16(d + VHCA_SWI(lft_top));
    uint16_t mft_top = vhca_get_be16(d + VHCA_SWI(mft_top));

    if (lft_top >= VHCA_SWITCH_LFT_CAP ||
        (mft_top && (mft_top < VHCA_MIN_MLID ||
                     mft_top >= VHCA_MIN_MLID + VHCA_SWITCH_MFT_CAP))) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    sw->lft_top = lft_top;
    sw->mft_top = mft_top;
    memcpy(sw->default_ports, d + VHCA_SWI(default_port), 3);
    sw->life_time = d[VHCA_SWI(life_time_psc)] >> 3;
    if (d[VHCA_SWI(life_time_psc)] & VHCA_SWI_PSC) {
        sw->port_state_change = false;
    }
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
    vhca_put_be64(d + VHCA_PI(gid_prefix), VHCA_GID_PREFIX_DEFAULT);
    if (mod == 0) {
        vhca_put_be16(d + VHCA_PI(lid), sw->lid);
        vhca_put_be16(d + VHCA_PI(master_sm_lid), sw->sm_lid);
        vhca_put_be32(d + VHCA_PI(cap_mask),
                      (sw->embedded_sm ? VHCA_PORT_CAP_SM : 0) |
                      VHCA_PORT_CAP_SL_MAP);
        /* base port 0: always ACTIVE */
        d[VHCA_PI(speed_supported_state)] = VHCA_PORT_ACTIVE;
        d[VHCA_PI(phys_state_down_default)] = VHCA_PHYS_LINK_UP << 4;
    } else {
        vhca_port_info_link(d, p->state, p->phys_state);
    }
    vhca_port_info_get_conf(&p->conf, d);
    if (mod != 0) {
        vhca_put_be64(d + VHCA_PI(mkey), 0);    /* M_Key: port 0's only */
    }
    d[VHCA_PI(local_port)] = q->in_port;
    return 0;
}

/*
 * Set(PortInfo): port 0's LID, MasterSMLID and stored fields; an external
 * port's state (ARMED, ACTIVE; DOWN retrains it to INIT while its cable
 * is there) and stored fields.
 */
static uint16_t sw_port_info_set(VhcaSwitchNode *sw, uint32_t mod,
                                 const uint8_t *d)
{
    VhcaSwitchPort *p;
    uint16_t lid = vhca_get_be16(d + VHCA_PI(lid));
    uint16_t sm_lid = vhca_get_be16(d + VHCA_PI(master_sm_lid));
    uint8_t state;
    uint16_t st;

    if (mod > sw->num_ports) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    p = &sw->ports[mod];
    st = vhca_port_info_set_check(d, p->state, &state);
    if (st) {
        return st;
    }
    if (mod == 0) {
        if (lid >= VHCA_MIN_MLID || sm_lid >= VHCA_MIN_MLID ||
            state != VHCA_PORT_ACTIVE) {
            return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
        }
        sw->lid = lid;
        sw->sm_lid = sm_lid;
    } else if (state == VHCA_PORT_DOWN) {
        state = p->phys_state == VHCA_PHYS_LINK_UP ? VHCA_PORT_INIT
                                                   : VHCA_PORT_DOWN;
    }
    if (mod != 0) {
        vhca_switch_port_state(sw, mod, state, p->phys_state);
    }
    vhca_port_info_set_conf(&p->conf, d);
    return 0;
}

/* IBA 14.2.5.7 P_KeyTable: modifier port << 16 | block; block 0 only. */
static uint16_t sw_pkey_table(const VhcaSwitchNode *sw, uint32_t mod,
                              uint8_t *d)
{
    if ((mod & 0xffff) != 0 || (mod >> 16) > sw->num_ports) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    vhca_put_be16(d, VHCA_DEFAULT_PKEY);
    return 0;
}

/* The one partition the switch has (no enforcement): Set only to it. */
static uint16_t sw_pkey_table_set(const VhcaSwitchNode *sw, uint32_t mod,
                                  const uint8_t *d)
{
    uint8_t want[VHCA_SMP_DATA_SIZE] = { 0 };

    if (sw_pkey_table(sw, mod, want)) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    return memcmp(d, want, PKEY_TABLE_LEN * 2) ?
           VHCA_MAD_STATUS_INVALID_ATTR_VALUE : 0;
}

/*
 * IBA 14.2.5.8 SLtoVLMappingTable: modifier input port << 8 | output
 * port.  With one data VL the table does not depend on the input port:
 * the switch keeps one per output port.
 */
static VhcaSwitchPort *sw_sl2vl_port(const VhcaSwitchNode *sw, uint32_t mod)
{
    uint8_t in = mod >> 8, out = mod;

    return (mod >> 16) || in > sw->num_ports || out > sw->num_ports ?
           NULL : (VhcaSwitchPort *)&sw->ports[out];
}

/* IBA 14.2.5.10 LinearForwardingTable: block mod, a port per LID. */
static uint8_t *sw_lft_block(const VhcaSwitchNode *sw, uint32_t mod)
{
    return mod < VHCA_SWITCH_LFT_CAP / LFT_BLOCK ?
           (uint8_t *)sw->lft + mod * LFT_BLOCK : NULL;
}

/*
 * IBA 14.2.5.11 MulticastForwardingTable: modifier bits 31..28 the
 * position (ports 16 * position ..), bits 8..0 the block of 32 MLIDs;
 * 32 big-endian port masks.
 */
static bool sw_mft_block(uint32_t mod, uint32_t *first, uint8_t *pos)
{
    *pos = mod >> 28;
    *first = (mod & 0x1ff) * MFT_BLOCK;
    return (mod & 0x0ffffe00) == 0 && *pos < VHCA_SWITCH_MFT_POSITIONS &&
           *first < VHCA_SWITCH_MFT_CAP;
}

static uint16_t sw_mft(const VhcaSwitchNode *sw, uint32_t mod, uint8_t *d)
{
    uint32_t first, i;
    uint8_t pos;

    if (!sw_mft_block(mod, &first, &pos)) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    for (i = 0; i < MFT_BLOCK; i++) {
        vhca_put_be16(d + 2 * i, sw->mft[first + i][pos]);
    }
    return 0;
}

static uint16_t sw_mft_set(VhcaSwitchNode *sw, uint32_t mod, const uint8_t *d)
{
    uint32_t first, i;
    uint8_t pos;

    if (!sw_mft_block(mod, &first, &pos)) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    for (i = 0; i < MFT_BLOCK; i++) {
        sw->mft[first + i][pos] = vhca_get_be16(d + 2 * i);
    }
    return 0;
}

/* IBA 14.4.1 SMInfo of the SM at port 0, with no SM_Key. */
static uint16_t sw_sm_info(const VhcaSwitchNode *sw, uint8_t *d)
{
    VhcaSmInfo smi = {
        .guid = sw->node_guid,
        .act_count = sw->sm_act_count,
        .priority = sw->sm_priority,
        .state = sw->sm_state,
    };

    if (!sw->embedded_sm) {
        return VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;   /* no SM here */
    }
    vhca_sm_info_encode(&smi, d);
    return 0;
}

static uint16_t sw_attr(const void *opaque, uint16_t attr, uint32_t mod,
                        uint8_t *d)
{
    const SwitchQuery *q = opaque;
    const VhcaSwitchPort *p;
    const uint8_t *block;

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
        vhca_put_be64(d, q->sw->node_guid);
        return 0;
    case VHCA_SMP_ATTR_PORT_INFO:
        return sw_port_info(q, mod, d);
    case VHCA_SMP_ATTR_PKEY_TABLE:
        return sw_pkey_table(q->sw, mod, d);
    case VHCA_SMP_ATTR_SL2VL:
        p = sw_sl2vl_port(q->sw, mod);
        if (!p) {
            return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
        }
        memcpy(d, p->conf.sl2vl, sizeof(p->conf.sl2vl));
        return 0;
    case VHCA_SMP_ATTR_LFT:
        block = sw_lft_block(q->sw, mod);
        if (!block) {
            return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
        }
        memcpy(d, block, LFT_BLOCK);
        return 0;
    case VHCA_SMP_ATTR_MFT:
        return sw_mft(q->sw, mod, d);
    case VHCA_SMP_ATTR_SM_INFO:
        return sw_sm_info(q->sw, d);
    default:
        return VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;
    }
}

static uint16_t sw_set(void *opaque, uint16_t attr, uint32_t mod,
                       const uint8_t *d)
{
    SwitchQuery *q = opaque;
    VhcaSwitchNode *sw = q->sw;
    VhcaSwitchPort *p;
    uint8_t *block;

    if (sw->embedded_sm && sw->sm_state == VHCA_SM_STATE_MASTER) {
        return VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;   /* the embedded SM's */
    }
    switch (attr) {
    case VHCA_SMP_ATTR_SWITCH_INFO:
        return sw_switch_info_set(sw, d);
    case VHCA_SMP_ATTR_PORT_INFO:
        return sw_port_info_set(sw, mod, d);
    case VHCA_SMP_ATTR_PKEY_TABLE:
        return sw_pkey_table_set(sw, mod, d);
    case VHCA_SMP_ATTR_SL2VL:
        p = sw_sl2vl_port(sw, mod);
        return p ? vhca_sl2vl_set(&p->conf, d)
                 : VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    case VHCA_SMP_ATTR_LFT:
        block = sw_lft_block(sw, mod);
        if (!block) {
            return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
        }
        memcpy(block, d, LFT_BLOCK);
        return 0;
    case VHCA_SMP_ATTR_MFT:
        return sw_mft_set(sw, mod, d);
    default:
        return VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;
    }
}

VhcaSmaAction vhca_switch_sma_answer(const uint8_t *req, bool dr,
                                     VhcaSwitchNode *sw,
                                     uint8_t in_port, uint8_t *resp,
                                     uint16_t *status)
{
    SwitchQuery q = { .sw = sw, .in_port = in_port };

    return vhca_smp_answer(req, dr, sw_attr, sw_set, &q, resp, status);
}
