/*
 * vhca - the Subnet Management Agent (IBA 14.2) of the device.
 *
 * An SMP (a MAD of class SubnLID 0x01 or SubnDirectedRoute 0x81, base
 * version 1) that a port's SMI QP sends to the port itself (LID-routed to
 * the port's LID, or directed-route with hop count 0), to QPN 0, is taken
 * by the SMA instead of being looped back to the QP.  The SMA answers
 * Get(NodeDescription, NodeInfo, GUIDInfo, PortInfo, P_KeyTable,
 * SLtoVLMappingTable) with a GetResp of the same TID, delivered as a
 * receive completion on the same SMI QP (src_qp 0, slid = the port's
 * LID).  Every other attribute is "unsupported method/attribute
 * combination" (status 0x000c), but SMInfo, which is the SM's (IBA
 * 14.4.1): it goes on to QP0, where an SM such as opensm answers it (and
 * the kernel's MAD layer answers 0x000c when none listens).  Set is taken when the node says an SM
 * may configure it (sm_sets: a port cabled to a switch, or on an in-process
 * fabric, whose embedded SM is off, Documentation/fabric.md "opensm"): PortInfo (LID, MasterSMLID,
 * PortState, the stored fields of VhcaPortSmConf), P_KeyTable (the one
 * default partition the device enforces), SLtoVLMappingTable; the caller
 * applies the changed node.  Otherwise Set is refused with 0x000c (the
 * embedded SM owns the configuration).  The GetResp of a Set carries the
 * attribute's value after it.  Other request methods get status 0x0008
 * (TrapRepress is taken without an answer), a class version other than 1
 * status 0x0004.  M_Keys are stored, never checked.
 *
 * This file is pure (vhca_sma_process: request bytes and a description
 * of the node in, response bytes out; no device state), so that a fuzz
 * target can link it alone.  vhca-sma-hook.c is the glue the requester
 * (vhca-transport.c) calls.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-sma.h"

/* SMP header offsets (vhca-mad.h: IBA 13.4.3, 14.2.1.1). */
#define SMP_BASE_VERSION    VHCA_SMP(base_version)
#define SMP_MGMT_CLASS      VHCA_SMP(mgmt_class)
#define SMP_CLASS_VERSION   VHCA_SMP(class_version)
#define SMP_METHOD          VHCA_SMP(method)
#define SMP_STATUS          VHCA_SMP(status)
#define SMP_HOP_CNT         VHCA_SMP(hop_cnt)
#define SMP_TID             VHCA_SMP(tid)
#define SMP_ATTR_ID         VHCA_SMP(attr_id)
#define SMP_ATTR_MOD        VHCA_SMP(attr_mod)

#define SMA_GID_TABLE_LEN   VHCA_GID_TABLE_LEN
#define SMA_PKEY_TABLE_LEN  VHCA_PKEY_TABLE_LEN
#define SMA_DEFAULT_PKEY    VHCA_DEFAULT_PKEY
#define SMA_GID_PREFIX      VHCA_GID_PREFIX_DEFAULT

static VhcaSmaPort *sma_port(const VhcaSmaNode *node, uint32_t num)
{
    return num >= 1 && num <= node->num_ports && num <= VHCA_MAX_PORTS ?
           (VhcaSmaPort *)&node->ports[num - 1] : NULL;
}

void vhca_port_sm_conf_default(VhcaPortSmConf *c)
{
    memset(c, 0, sizeof(*c));
    c->neighbor_mtu = VHCA_MTU_4096;
    c->oper_vls = 1;                            /* VL0 */
    c->subnet_timeout = 18;                     /* 4.096 us * 2^18 */
}

/* PortInfo bytes the stored fields occupy (IBA 14.2.5.6, Table 145). */
void vhca_port_info_get_conf(const VhcaPortSmConf *c, uint8_t *d)
{
    vhca_put_be64(d + VHCA_PI(mkey), c->mkey);
    vhca_put_be16(d + VHCA_PI(mkey_lease), c->mkey_lease);
    d[VHCA_PI(mkey_protect_lmc)] = c->mkey_protect << 6;        /* LMC 0 */
    d[VHCA_PI(neighbor_mtu_sm_sl)] = c->neighbor_mtu << 4 | (c->sm_sl & 0xf);
    d[VHCA_PI(vl_high_limit)] = c->vl_high_limit;
    d[VHCA_PI(oper_vls_enforcement)] = c->oper_vls << 4; /* no enforcing */
    d[VHCA_PI(rereg_subnet_timeout)] = c->subnet_timeout & 0x1f; /* no rereg */
}

uint16_t vhca_port_info_set_check(const uint8_t *d, uint8_t cur,
                                  uint8_t *state)
{
    uint8_t want = d[VHCA_PI(speed_supported_state)] & 0xf;
    uint8_t mtu = d[VHCA_PI(neighbor_mtu_sm_sl)] >> 4;
    uint8_t vls = d[VHCA_PI(oper_vls_enforcement)] >> 4;

    /* Table 146: 0 no change, 1 Down, 3 Armed from Init, 4 Active from Armed */
    switch (want) {
    case 0:
        *state = cur;
        break;
    case 1:
        *state = 1;
        break;
    case 3:
        *state = cur == 2 || cur == 3 ? 3 : 0;
        break;
    case 4:
        *state = cur == 3 || cur == 4 ? 4 : 0;
        break;
    default:
        *state = 0;
        break;
    }
    if (!*state ||                              /* Disabled: not by SMP */
        (d[VHCA_PI(phys_state_down_default)] >> 4) == 3 ||
        (d[VHCA_PI(mkey_protect_lmc)] & 7) != 0 ||  /* LMC: one LID a port */
        mtu > VHCA_MTU_4096 || vls > 1) {       /* MTUCap, VLCap VL0 */
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    return 0;
}

/* 0 in NeighborMTU and OperationalVLs: leave them as they are. */
void vhca_port_info_set_conf(VhcaPortSmConf *c, const uint8_t *d)
{
    uint8_t mtu_sl = d[VHCA_PI(neighbor_mtu_sm_sl)];
    uint8_t vls = d[VHCA_PI(oper_vls_enforcement)] >> 4;

    c->mkey = vhca_get_be64(d + VHCA_PI(mkey));
    c->mkey_lease = vhca_get_be16(d + VHCA_PI(mkey_lease));
    c->mkey_protect = d[VHCA_PI(mkey_protect_lmc)] >> 6;
    c->sm_sl = mtu_sl & 0xf;
    c->neighbor_mtu = mtu_sl >> 4 ? mtu_sl >> 4 : c->neighbor_mtu;
    c->vl_high_limit = d[VHCA_PI(vl_high_limit)];
    c->oper_vls = vls ? vls : c->oper_vls;
    c->subnet_timeout = d[VHCA_PI(rereg_subnet_timeout)] & 0x1f;
}

/*
 * IBA 14.2.5.8: with one data VL every SL goes to VL0 or is dropped
 * (VL15); any other VL does not exist on this port.
 */
uint16_t vhca_sl2vl_set(VhcaPortSmConf *c, const uint8_t *d)
{
    int i;

    for (i = 0; i < 16; i++) {
        uint8_t vl = (d[i / 2] >> (i % 2 ? 0 : 4)) & 0xf;

        if (vl != 0 && vl != 15) {
            return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
        }
    }
    memcpy(c->sl2vl, d, sizeof(c->sl2vl));
    return 0;
}

/* IBA 14.2.5.3 NodeInfo of any node, a CA or a switch. */
void vhca_node_info_put(uint8_t *d, const VhcaNodeInfo *ni)
{
    d[VHCA_NI(base_version)] = 1;
    d[VHCA_NI(class_version)] = 1;
    d[VHCA_NI(node_type)] = ni->node_type;
    d[VHCA_NI(num_ports)] = ni->num_ports;
    vhca_put_be64(d + VHCA_NI(sys_image_guid), ni->sys_image_guid);
    vhca_put_be64(d + VHCA_NI(node_guid), ni->node_guid);
    vhca_put_be64(d + VHCA_NI(port_guid), ni->port_guid);
    vhca_put_be16(d + VHCA_NI(partition_cap), ni->partition_cap);
    vhca_put_be16(d + VHCA_NI(device_id), ni->device_id);
    vhca_put_be32(d + VHCA_NI(revision), ni->revision);
    d[VHCA_NI(local_port)] = ni->local_port;
    d[VHCA_NI(vendor_id)] = ni->vendor_id >> 16;
    d[VHCA_NI(vendor_id) + 1] = ni->vendor_id >> 8;
    d[VHCA_NI(vendor_id) + 2] = ni->vendor_id;
}

/* A CA's NodeInfo, as seen through local_port (the SA's too). */
uint16_t vhca_sma_node_info(const VhcaSmaNode *node, uint8_t *d)
{
    const VhcaSmaPort *port = sma_port(node, node->local_port);
    const VhcaNodeInfo ni = {
        .node_type = VHCA_NODE_TYPE_CA,
        .num_ports = node->num_ports,
        .local_port = node->local_port,
        .sys_image_guid = node->sys_image_guid,
        .node_guid = node->node_guid,
        .port_guid = port ? port->guid : 0,
        .partition_cap = SMA_PKEY_TABLE_LEN,
        .device_id = node->device_id,
        .revision = node->revision,
        .vendor_id = node->vendor_id,
    };

    vhca_node_info_put(d, &ni);
    return 0;
}

/*
 * The link of every port, a CA's or a switch's external one: the fixed
 * one QUERY_PORT reports, 4x QDR, MTU 4096, VL0 (IBA 14.2.5.6).
 */
void vhca_port_info_link(uint8_t *d, uint8_t state, uint8_t phys_state)
{
    d[VHCA_PI(link_width_enabled)] = 3;         /* 1x|4x */
    d[VHCA_PI(link_width_supported)] = 3;
    d[VHCA_PI(link_width_active)] = 2;          /* 4x */
    d[VHCA_PI(speed_supported_state)] = 7 << 4 | (state & 0xf);
    d[VHCA_PI(phys_state_down_default)] = (phys_state & 0xf) << 4 | 2;
    d[VHCA_PI(speed_active_enabled)] = 4 << 4 | 7;  /* QDR; SDR|DDR|QDR */
    d[VHCA_PI(vl_cap_init_type)] = 1 << 4;      /* VLCap: VL0 */
    d[VHCA_PI(init_type_reply_mtu_cap)] = VHCA_MTU_4096;   /* MTUCap */
}

/*
 * IBA 14.2.5.6 PortInfo; modifier 0 means the port the SMP came in on.
 * The link is the fixed one QUERY_PORT reports: 4x QDR, MTU 4096, VL0.
 * The SA's NodeRecord and PortInfoRecord (vhca-sa.c) use these two too.
 */
uint16_t vhca_sma_port_info(const VhcaSmaNode *node, uint32_t mod,
                            uint8_t *d)
{
    const VhcaSmaPort *port = sma_port(node, mod ? mod : node->local_port);

    if (!port) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    vhca_put_be64(d + VHCA_PI(gid_prefix), SMA_GID_PREFIX);
    vhca_put_be16(d + VHCA_PI(lid), port->lid);
    vhca_put_be16(d + VHCA_PI(master_sm_lid), port->sm_lid);
    vhca_put_be32(d + VHCA_PI(cap_mask), port->cap_mask);
    d[VHCA_PI(local_port)] = node->local_port;
    vhca_port_info_link(d, port->state, port->phys_state);
    d[VHCA_PI(guid_cap)] = SMA_GID_TABLE_LEN;
    d[VHCA_PI(resp_time_value)] = 8;
    vhca_port_info_get_conf(&port->conf, d);    /* M_Key, NeighborMTU, ... */
    return 0;
}

/* IBA 14.2.5.5 GUIDInfo: blocks of 8; only GUID 0 (the port GUID) is set. */
static uint16_t sma_guid_info(const VhcaSmaNode *node, uint32_t mod,
                              uint8_t *d)
{
    const VhcaSmaPort *port = sma_port(node, node->local_port);

    if (mod >= SMA_GID_TABLE_LEN / 8 || !port) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    if (mod == 0) {
        vhca_put_be64(d, port->guid);
    }
    return 0;
}

/* IBA 14.2.5.7 P_KeyTable: blocks of 32 (low 16 bits of the modifier). */
static uint16_t sma_pkey_table(uint32_t mod, uint8_t *d)
{
    if ((mod & 0xffff) != 0) {      /* 16 entries: block 0 only */
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    vhca_put_be16(d, SMA_DEFAULT_PKEY);
    return 0;
}

/*
 * The device enforces one partition, the default (full member, index 0):
 * a Set that writes anything else is refused rather than pretended.
 */
static uint16_t sma_pkey_table_set(uint32_t mod, const uint8_t *d)
{
    uint8_t want[VHCA_SMP_DATA_SIZE] = { 0 };

    if ((mod & 0xffff) != 0) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    vhca_put_be16(want, SMA_DEFAULT_PKEY);
    return memcmp(d, want, SMA_PKEY_TABLE_LEN * 2) ?
           VHCA_MAD_STATUS_INVALID_ATTR_VALUE : 0;
}

/* IBA 14.2.5.8: modifier 0 for a CA (its port: the one asked through). */
static VhcaSmaPort *sma_sl2vl_port(const VhcaSmaNode *node, uint32_t mod)
{
    return mod == 0 ? sma_port(node, node->local_port) : NULL;
}

/*
 * Set(PortInfo) of a CA port: LID, MasterSMLID, PortState, stored fields.
 * Only of the port the SMP came in on: another port of the node may be on
 * a fabric whose SM is the embedded one (sm_sets is the local port's).
 */
static uint16_t sma_port_info_set(VhcaSmaNode *node, uint32_t mod,
                                  const uint8_t *d)
{
    VhcaSmaPort *port = mod == 0 || mod == node->local_port ?
                        sma_port(node, node->local_port) : NULL;
    uint16_t lid = vhca_get_be16(d + VHCA_PI(lid));
    uint16_t sm_lid = vhca_get_be16(d + VHCA_PI(master_sm_lid));
    uint8_t state;
    uint16_t st;

    if (!port) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    st = vhca_port_info_set_check(d, port->state, &state);
    if (st == 0 && (lid > VHCA_MAX_UNICAST_LID ||
                    sm_lid > VHCA_MAX_UNICAST_LID ||
                    vhca_get_be64(d + VHCA_PI(gid_prefix)) != SMA_GID_PREFIX)) {
        st = VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    if (st) {
        return st;
    }
    port->lid = lid;
    port->sm_lid = sm_lid;
    port->state = state;
    port->client_rereg = d[VHCA_PI(rereg_subnet_timeout)] >> 7; /* reads 0 */
    vhca_port_info_set_conf(&port->conf, d);
    return 0;
}

static uint16_t sma_set(void *opaque, uint16_t attr, uint32_t mod,
                        const uint8_t *d)
{
    VhcaSmaNode *node = opaque;
    VhcaSmaPort *port;

    if (!node->sm_sets) {
        return VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;   /* the embedded SM's */
    }
    switch (attr) {
    case VHCA_SMP_ATTR_PORT_INFO:
        return sma_port_info_set(node, mod, d);
    case VHCA_SMP_ATTR_PKEY_TABLE:
        return sma_pkey_table_set(mod, d);
    case VHCA_SMP_ATTR_SL2VL:
        port = sma_sl2vl_port(node, mod);
        return port ? vhca_sl2vl_set(&port->conf, d)
                    : VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    default:
        return VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;
    }
}

static uint16_t sma_attr(const void *opaque, uint16_t attr, uint32_t mod,
                         uint8_t *d)
{
    const VhcaSmaNode *node = opaque;
    const VhcaSmaPort *port;

    switch (attr) {
    case VHCA_SMP_ATTR_NODE_DESC:
        memcpy(d, node->node_desc, VHCA_SMP_DATA_SIZE);
        return 0;
    case VHCA_SMP_ATTR_NODE_INFO:
        return vhca_sma_node_info(node, d);
    case VHCA_SMP_ATTR_GUID_INFO:
        return sma_guid_info(node, mod, d);
    case VHCA_SMP_ATTR_PORT_INFO:
        return vhca_sma_port_info(node, mod, d);
    case VHCA_SMP_ATTR_PKEY_TABLE:
        return sma_pkey_table(mod, d);
    case VHCA_SMP_ATTR_SL2VL:
        port = sma_sl2vl_port(node, mod);
        if (!port) {
            return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
        }
        memcpy(d, port->conf.sl2vl, sizeof(port->conf.sl2vl));
        return 0;
    default:
        return VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;
    }
}

VhcaSmaAction vhca_sma_process(const uint8_t *req, uint64_t len,
                               uint16_t dlid, uint32_t dqpn,
                               VhcaSmaNode *node, uint8_t *resp,
                               uint16_t *status)
{
    const VhcaSmaPort *port = sma_port(node, node->local_port);
    bool dr;

    *status = 0;
    if (len != VHCA_MAD_SIZE || dqpn != 0 || !port ||
        req[SMP_BASE_VERSION] != 1) {
        return VHCA_SMA_NOT_MINE;
    }
    switch (req[SMP_MGMT_CLASS]) {
    case VHCA_MGMT_CLASS_SUBN_LID:
        if (port->lid == 0 || dlid != port->lid) {
            return VHCA_SMA_NOT_MINE;
        }
        dr = false;
        break;
    case VHCA_MGMT_CLASS_SUBN_DR:
        if (req[SMP_HOP_CNT] != 0) {
            return VHCA_SMA_NOT_MINE;   /* vhca-fabric-smp.c */
        }
        dr = true;
        break;
    default:
        return VHCA_SMA_NOT_MINE;
    }
    return vhca_sma_answer(req, dr, node, resp, status);
}

/* A LID-routed request SMP of an SM (vhca-sma.h). */
void vhca_smp_request(uint8_t *mad, uint8_t method, uint64_t tid,
                      uint16_t attr, uint32_t mod)
{
    memset(mad, 0, VHCA_MAD_SIZE);
    mad[SMP_BASE_VERSION] = 1;
    mad[SMP_MGMT_CLASS] = VHCA_MGMT_CLASS_SUBN_LID;
    mad[SMP_CLASS_VERSION] = 1;
    mad[SMP_METHOD] = method;
    vhca_put_be64(mad + SMP_TID, tid);
    vhca_put_be16(mad + SMP_ATTR_ID, attr);
    vhca_put_be32(mad + SMP_ATTR_MOD, mod);
}

/*
 * The answer of an agent to an SMP request that reached it (IBA 14.2.1):
 * GetResp with the request's TID, attribute and path, the attribute's
 * 64 bytes from attr(), the status, and for directed route the D bit
 * (IBA 14.2.2.2).  A Set goes to set() first (none: refused, 0x000c);
 * the answer carries the value after it, whether it was taken or not
 * (a GetResp to a Set reports the attribute as it now is).
 */
VhcaSmaAction vhca_smp_answer(const uint8_t *req, bool dr,
                              VhcaSmpAttrFn attr, VhcaSmpSetFn set,
                              void *opaque, uint8_t *resp, uint16_t *status)
{
    uint8_t method = req[SMP_METHOD];
    uint16_t st;

    *status = 0;
    if (method & VHCA_MGMT_METHOD_RESP || method == VHCA_MGMT_METHOD_TRAP) {
        /* a response, or a trap to the SM here (IBA 14.2.5.1, 14.4.1) */
        return VHCA_SMA_NOT_MINE;
    }
    if (method == VHCA_MGMT_METHOD_TRAP_REPRESS) {
        return VHCA_SMA_CONSUMED;       /* the SMA never sends traps */
    }

    memcpy(resp, req, VHCA_MAD_SIZE);
    memset(resp + VHCA_SMP_DATA_OFF, 0, VHCA_SMP_DATA_SIZE);
    resp[SMP_METHOD] = VHCA_MGMT_METHOD_GET_RESP;
    if (req[SMP_CLASS_VERSION] != 1) {
        st = VHCA_MAD_STATUS_BAD_VERSION;
    } else if (method != VHCA_MGMT_METHOD_GET &&
               method != VHCA_MGMT_METHOD_SET) {
        st = VHCA_MAD_STATUS_UNSUP_METHOD;
    } else {
        uint16_t id = vhca_get_be16(req + SMP_ATTR_ID);
        uint32_t mod = vhca_get_be32(req + SMP_ATTR_MOD);
        uint16_t set_st = 0;

        if (method == VHCA_MGMT_METHOD_SET) {
            set_st = set ? set(opaque, id, mod, req + VHCA_SMP_DATA_OFF)
                         : VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;
        }
        st = attr(opaque, id, mod, resp + VHCA_SMP_DATA_OFF);
        st = st ? st : set_st;
    }
    *status = st;
    vhca_put_be16(resp + SMP_STATUS, st | (dr ? VHCA_SMP_DIRECTION : 0));
    return VHCA_SMA_REPLY;
}

/* A CA's SMA, for an SMP that reached local_port by any route. */
VhcaSmaAction vhca_sma_answer(const uint8_t *req, bool dr,
                              VhcaSmaNode *node, uint8_t *resp,
                              uint16_t *status)
{
    *status = 0;
    if (vhca_get_be16(req + SMP_ATTR_ID) == VHCA_SMP_ATTR_SM_INFO) {
        return VHCA_SMA_NOT_MINE;   /* IBA 14.4.1: for the SM behind QP0 */
    }
    return vhca_smp_answer(req, dr, sma_attr, sma_set, node, resp, status);
}
