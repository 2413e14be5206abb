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

/* MAD/SMP header offsets (IBA 13.4.3, 14.2.1.1). */
#define SMP_BASE_VERSION    0
#define SMP_MGMT_CLASS      1
#define SMP_CLASS_VERSION   2
#define SMP_METHOD          3
#define SMP_STATUS          4
#define SMP_HOP_CNT         7
#define SMP_ATTR_ID         16
#define SMP_ATTR_MOD        20

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
    c->neighbor_mtu = 5;                        /* 4096 */
    c->oper_vls = 1;                            /* VL0 */
    c->subnet_timeout = 18;                     /* 4.096 us * 2^18 */
}

/* PortInfo bytes the stored fields occupy (IBA 14.2.5.6, Table 145). */
void vhca_port_info_get_conf(const VhcaPortSmConf *c, uint8_t *d)
{
    vhca_put_be64(d + 0, c->mkey);
    vhca_put_be16(d + 26, c->mkey_lease);
    d[34] = c->mkey_protect << 6;               /* LMC 0 */
    d[36] = c->neighbor_mtu << 4 | (c->sm_sl & 0xf);
    d[38] = c->vl_high_limit;
    d[43] = c->oper_vls << 4;                   /* no partition enforcing */
    d[51] = c->subnet_timeout & 0x1f;           /* ClientReregister 0 */
}

uint16_t vhca_port_info_set_check(const uint8_t *d, uint8_t cur,
                                  uint8_t *state)
{
    uint8_t want = d[32] & 0xf, mtu = d[36] >> 4, vls = d[43] >> 4;

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
    if (!*state || (d[33] >> 4) == 3 ||         /* Disabled: not by SMP */
        (d[34] & 7) != 0 ||                     /* LMC: one LID per port */
        mtu > 5 || vls > 1) {                   /* MTUCap 4096, VLCap VL0 */
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    return 0;
}

/* 0 in NeighborMTU and OperationalVLs: leave them as they are. */
void vhca_port_info_set_conf(VhcaPortSmConf *c, const uint8_t *d)
{
    c->mkey = vhca_get_be64(d + 0);
    c->mkey_lease = vhca_get_be16(d + 26);
    c->mkey_protect = d[34] >> 6;
    c->sm_sl = d[36] & 0xf;
    c->neighbor_mtu = d[36] >> 4 ? d[36] >> 4 : c->neighbor_mtu;
    c->vl_high_limit = d[38];
    c->oper_vls = d[43] >> 4 ? d[43] >> 4 : c->oper_vls;
    c->subnet_timeout = d[51] & 0x1f;
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

/* IBA 14.2.5.3 NodeInfo, as seen through local_port (the SA's too). */
uint16_t vhca_sma_node_info(const VhcaSmaNode *node, uint8_t *d)
{
    const VhcaSmaPort *port = sma_port(node, node->local_port);

    d[0] = 1;                                   /* BaseVersion */
    d[1] = 1;                                   /* ClassVersion */
    d[2] = 1;                                   /* NodeType: CA */
    d[3] = node->num_ports;
    vhca_put_be64(d + 4, node->sys_image_guid);
    vhca_put_be64(d + 12, node->node_guid);
    vhca_put_be64(d + 20, port ? port->guid : 0);
    vhca_put_be16(d + 28, SMA_PKEY_TABLE_LEN);       /* PartitionCap */
    vhca_put_be16(d + 30, node->device_id);
    vhca_put_be32(d + 32, node->revision);
    d[36] = node->local_port;
    d[37] = node->vendor_id >> 16;
    d[38] = node->vendor_id >> 8;
    d[39] = node->vendor_id;
    return 0;
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
    vhca_put_be64(d + 8, SMA_GID_PREFIX);
    vhca_put_be16(d + 16, port->lid);
    vhca_put_be16(d + 18, port->sm_lid);
    vhca_put_be32(d + 20, port->cap_mask);
    d[28] = node->local_port;                   /* LocalPortNum */
    d[29] = 3;                                  /* LinkWidthEnabled 1x|4x */
    d[30] = 3;                                  /* LinkWidthSupported */
    d[31] = 2;                                  /* LinkWidthActive 4x */
    d[32] = 7 << 4 | (port->state & 0xf);       /* SpeedSupported, state */
    d[33] = (port->phys_state & 0xf) << 4 | 2;  /* phys, LinkDownDefault */
    d[35] = 4 << 4 | 7;                         /* SpeedActive QDR, Enabled */
    d[37] = 1 << 4;                             /* VLCap: VL0 */
    d[41] = 5;                                  /* MTUCap 4096 */
    d[50] = SMA_GID_TABLE_LEN;                  /* GUIDCap */
    d[52] = 8;                                  /* RespTimeValue */
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
    uint16_t lid = vhca_get_be16(d + 16), sm_lid = vhca_get_be16(d + 18);
    uint8_t state;
    uint16_t st;

    if (!port) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    st = vhca_port_info_set_check(d, port->state, &state);
    if (st == 0 && (lid > VHCA_MAX_UNICAST_LID ||
                    sm_lid > VHCA_MAX_UNICAST_LID ||
                    vhca_get_be64(d + 8) != SMA_GID_PREFIX)) {
        st = VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    if (st) {
        return st;
    }
    port->lid = lid;
    port->sm_lid = sm_lid;
    port->state = state;
    port->client_rereg = d[51] >> 7;            /* Table 145; reads 0 */
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
    mad[0] = 1;                                 /* BaseVersion */
    mad[1] = VHCA_MGMT_CLASS_SUBN_LID;
    mad[2] = 1;                                 /* ClassVersion */
    mad[3] = method;
    vhca_put_be64(mad + 8, tid);
    vhca_put_be16(mad + 16, attr);
    vhca_put_be32(mad + 20, mod);
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
