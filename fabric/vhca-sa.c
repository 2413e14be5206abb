/*
 * vhca - Subnet Administration (IBA 15) of the fabric's embedded SM.
 *
 * A SubnAdm MAD (class 0x03, base version 1, class version 2, IBA 15.2.1)
 * that a GSI QP sends to the SM's LID and QPN 1 is answered here, as a
 * response MAD of the same TID.  The SA answers:
 *   ClassPortInfo   Get
 *   NodeRecord      Get, GetTable    (one per ACTIVE end port)
 *   PortInfoRecord  Get, GetTable
 *   PathRecord      Get, GetTable    (one path per pair of ACTIVE ports)
 *   MCMemberRecord  Set (join), Delete (leave), Get, GetTable
 * Records are chosen by the request's ComponentMask (IBA 15.2.4): every
 * field whose component bit is set must equal the request's, except that
 * MTU, Rate and PacketLifeTime follow their selectors (IBA 15.2.5.16).
 * Each record type is a table of its fields (bit offset and width, in
 * component bit order), so the matching is one generic function.
 *
 * Errors (IBA 15.2.1.1, 13.4.7): a class version other than 2 is status
 * 0x0004, an unknown method 0x0008, an unknown attribute or a method the
 * attribute does not have 0x000c; Get without a match ERR_NO_RECORDS,
 * with more than one ERR_TOO_MANY_RECORDS; a bad request ERR_REQ_INVALID.
 * GetTable answers go out with RMPP (vhca-sa-rmpp.c); an empty table is a
 * successful answer without records.  Responses to the SA, and requests
 * that are not 256-byte SubnAdm MADs, are dropped.
 *
 * This file is pure (no device state: see vhca-sa.h), so that a fuzz
 * target can link it alone; vhca-sa-hook.c is the glue.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-sa.h"

/* MAD (IBA 13.4.3), RMPP (13.6.2.1) and SA (15.2.1.1) header offsets. */
#define SA_OFF(field)       VHCA_MAD_OFF(vhca_sa_mad, field)
#define MAD_BASE_VERSION    SA_OFF(mad.base_version)
#define MAD_MGMT_CLASS      SA_OFF(mad.mgmt_class)
#define MAD_CLASS_VERSION   SA_OFF(mad.class_version)
#define MAD_METHOD          SA_OFF(mad.method)
#define MAD_STATUS          SA_OFF(mad.status)
#define MAD_TID             SA_OFF(mad.tid)
#define MAD_ATTR_ID         SA_OFF(mad.attr_id)
#define MAD_HDR_SIZE        SA_OFF(rmpp)
#define RMPP_TYPE           SA_OFF(rmpp.rmpp_type)
#define RMPP_FLAGS          SA_OFF(rmpp.rtime_flags)
#define RMPP_SEG_NUM        SA_OFF(rmpp.data1)
#define SA_ATTR_OFFSET      SA_OFF(attr_offset)
#define SA_COMP_MASK        SA_OFF(comp_mask)

#define RMPP_FLAG_ACTIVE    VHCA_RMPP_F_ACTIVE
#define RMPP_FLAG_FIRST     VHCA_RMPP_F_FIRST
#define RMPP_FLAG_LAST      VHCA_RMPP_F_LAST
#define RMPP_TYPE_DATA      VHCA_RMPP_TYPE_DATA

#define NODE_RECORD_SIZE    VHCA_SA_REC_SIZE(vhca_sa_node_record)
#define PORTINFO_RECORD_SIZE VHCA_SA_REC_SIZE(vhca_sa_port_info_record)
#define PATH_RECORD_SIZE    VHCA_SA_REC_SIZE(vhca_sa_path_record)
#define CLASS_PORT_INFO_SIZE sizeof(struct vhca_class_port_info)

/*
 * The component tables below give each field's bit offset in its record
 * (IBA 15.2.4: one ComponentMask bit per field, in the record's order),
 * from vhca-mad.h's structs: a whole field's first bit, or a bit field's
 * at sub bits into it.
 */
#define BITS_OF(bytes)      ((uint16_t)((bytes) * 8))
#define NR_BIT(f)           BITS_OF(VHCA_NR(f))
#define NR_NI_BIT(f)        BITS_OF(VHCA_NR(node_info) + VHCA_NI(f))
#define PIR_BIT(f)          BITS_OF(VHCA_PIR(f))
#define PIR_PI_BIT(f)       BITS_OF(VHCA_PIR(port_info) + VHCA_PI(f))
#define PATH_BIT(f)         BITS_OF(VHCA_PATH(f))

/* IBA 15.2.5.2 NodeRecord: LID, reserved, NodeInfo, NodeDescription. */
static const VhcaSaField node_record_fields[] = {
    { NR_BIT(lid), 16, 0 }, { NR_BIT(rsvd), 16, VHCA_SA_F_SKIP },
    /* versions..ports */
    { NR_NI_BIT(base_version), 8, 0 }, { NR_NI_BIT(class_version), 8, 0 },
    { NR_NI_BIT(node_type), 8, 0 }, { NR_NI_BIT(num_ports), 8, 0 },
    /* GUIDs */
    { NR_NI_BIT(sys_image_guid), 64, 0 }, { NR_NI_BIT(node_guid), 64, 0 },
    { NR_NI_BIT(port_guid), 64, 0 },
    /* PartCap..Rev */
    { NR_NI_BIT(partition_cap), 16, 0 }, { NR_NI_BIT(device_id), 16, 0 },
    { NR_NI_BIT(revision), 32, 0 },
    /* port, OUI, desc */
    { NR_NI_BIT(local_port), 8, 0 }, { NR_NI_BIT(vendor_id), 24, 0 },
    { NR_BIT(node_desc), BITS_OF(VHCA_NODE_DESC_LEN), 0 },
};

/*
 * IBA 15.2.5.3 PortInfoRecord: EndportLID, PortNum, options, PortInfo.
 * Only the first PortInfo fields are comparable; higher component bits
 * are ignored.
 */
static const VhcaSaField portinfo_record_fields[] = {
    { PIR_BIT(lid), 16, 0 }, { PIR_BIT(port_num), 8, 0 },
    { PIR_BIT(options), 8, VHCA_SA_F_SKIP },
    /* M_Key..SM LID */
    { PIR_PI_BIT(mkey), 64, 0 }, { PIR_PI_BIT(gid_prefix), 64, 0 },
    { PIR_PI_BIT(lid), 16, 0 }, { PIR_PI_BIT(master_sm_lid), 16, 0 },
    /* CapMask..port */
    { PIR_PI_BIT(cap_mask), 32, 0 }, { PIR_PI_BIT(diag_code), 16, 0 },
    { PIR_PI_BIT(mkey_lease), 16, 0 }, { PIR_PI_BIT(local_port), 8, 0 },
    /* link widths */
    { PIR_PI_BIT(link_width_enabled), 8, 0 },
    { PIR_PI_BIT(link_width_supported), 8, 0 },
    { PIR_PI_BIT(link_width_active), 8, 0 },
    /* speed, states */
    { PIR_PI_BIT(speed_supported_state), 4, 0 },
    { PIR_PI_BIT(speed_supported_state) + 4, 4, 0 },
    { PIR_PI_BIT(phys_state_down_default), 4, 0 },
    { PIR_PI_BIT(phys_state_down_default) + 4, 4, 0 },
};

/*
 * IBA 15.2.5.16 PathRecord.  ServiceID (bits 0, 1) is echoed, Reversible
 * always true and NumbPath a limit, so none of them is compared.
 */
static const VhcaSaField path_record_fields[] = {
    { PATH_BIT(service_id), 32, VHCA_SA_F_SKIP },
    { PATH_BIT(service_id) + 32, 32, VHCA_SA_F_SKIP },
    /* GIDs, LIDs */
    { PATH_BIT(dgid), 128, 0 }, { PATH_BIT(sgid), 128, 0 },
    { PATH_BIT(dlid), 16, 0 }, { PATH_BIT(slid), 16, 0 },
    /* RawTraffic, reserved, FlowLabel, HopLimit */
    { PATH_BIT(raw_flow_hop), 1, 0 },
    { PATH_BIT(raw_flow_hop) + 1, 3, VHCA_SA_F_SKIP },
    { PATH_BIT(raw_flow_hop) + 4, 20, 0 },
    { PATH_BIT(raw_flow_hop) + 24, 8, 0 },
    /* TClass, Reversible, NumbPath */
    { PATH_BIT(tclass), 8, 0 },
    { PATH_BIT(reversible_numb_path), 1, VHCA_SA_F_SKIP },
    { PATH_BIT(reversible_numb_path) + 1, 7, VHCA_SA_F_SKIP },
    /* P_Key, QoSClass, SL */
    { PATH_BIT(pkey), 16, 0 }, { PATH_BIT(qos_sl), 12, 0 },
    { PATH_BIT(qos_sl) + 12, 4, 0 },
    { PATH_BIT(mtu), 2, VHCA_SA_F_SEL }, { PATH_BIT(mtu) + 2, 6, 0 },
    { PATH_BIT(rate), 2, VHCA_SA_F_SEL }, { PATH_BIT(rate) + 2, 6, 0 },
    { PATH_BIT(packet_life), 2, VHCA_SA_F_SEL },
    { PATH_BIT(packet_life) + 2, 6, 0 },
    { PATH_BIT(preference), 8, 0 },
};

/* ---- records and component masks ---------------------------------------- */

uint64_t vhca_sa_get_bits(const uint8_t *rec, uint32_t off, uint32_t bits)
{
    uint64_t v = 0;
    uint32_t i;

    for (i = 0; i < bits && i < 64; i++) {
        v = v << 1 | ((rec[(off + i) / 8] >> (7 - (off + i) % 8)) & 1);
    }
    return v;
}

void vhca_sa_set_bits(uint8_t *rec, uint32_t off, uint32_t bits,
                      uint64_t val)
{
    uint32_t i, b;

    for (i = 0; i < bits && i < 64; i++) {
        b = off + bits - 1 - i;
        rec[b / 8] &= ~(0x80 >> (b % 8));
        rec[b / 8] |= ((val >> i) & 1) << (7 - b % 8);
    }
}

/* IBA 15.2.5.16: does have satisfy want under selector sel? */
static bool sa_selected(uint8_t sel, uint64_t want, uint64_t have)
{
    switch (sel) {
    case VHCA_SA_SEL_GREATER:
        return have > want;
    case VHCA_SA_SEL_LESS:
        return have < want;
    case VHCA_SA_SEL_EXACTLY:
        return have == want;
    default:
        return true;    /* one path, one group: it is the best */
    }
}

/* Does record have match the request want under ComponentMask mask? */
bool vhca_sa_match(const VhcaSaField *f, uint32_t nf, uint64_t mask,
                   const uint8_t *want, const uint8_t *have)
{
    uint32_t i;
    uint64_t w, h;

    for (i = 0; i < nf && i < 64; i++) {
        if (!(mask & (1ull << i)) || (f[i].flags & (VHCA_SA_F_SKIP |
                                                     VHCA_SA_F_SEL))) {
            continue;
        }
        if (f[i].bits > 64) {           /* GIDs, descriptions: whole bytes */
            if (memcmp(want + f[i].off / 8, have + f[i].off / 8,
                       f[i].bits / 8)) {
                return false;
            }
            continue;
        }
        w = vhca_sa_get_bits(want, f[i].off, f[i].bits);
        h = vhca_sa_get_bits(have, f[i].off, f[i].bits);
        if (i > 0 && (f[i - 1].flags & VHCA_SA_F_SEL) &&
            (mask & (1ull << (i - 1)))) {
            if (!sa_selected(vhca_sa_get_bits(want, f[i - 1].off,
                                              f[i - 1].bits), w, h)) {
                return false;
            }
        } else if (w != h) {
            return false;
        }
    }
    return true;
}

/* Room for one more record (zeroed), or NULL when the answer is full. */
uint8_t *vhca_sa_table_add(VhcaSaTable *t)
{
    uint8_t *rec;

    if ((t->n + 1) * t->rec_size > VHCA_SA_MAX_PAYLOAD) {
        t->overflow = true;
        return NULL;
    }
    rec = t->data + t->n * t->rec_size;
    memset(rec, 0, t->rec_size);
    t->n++;
    return rec;
}

static void sa_port_gid(const VhcaSaPort *p, uint8_t *gid)
{
    const VhcaSmaNode *n = &p->node;

    vhca_put_be64(gid, VHCA_GID_PREFIX_DEFAULT);
    vhca_put_be64(gid + 8, n->ports[n->local_port - 1].guid);
}

static uint16_t sa_port_lid(const VhcaSaPort *p)
{
    return p->node.ports[p->node.local_port - 1].lid;
}

const VhcaSaPort *vhca_sa_port_by_gid(const VhcaSa *sa, const uint8_t *gid)
{
    uint8_t g[16];
    uint32_t i;

    for (i = 0; i < sa->num_ports; i++) {
        sa_port_gid(&sa->ports[i], g);
        if (!memcmp(g, gid, sizeof(g))) {
            return &sa->ports[i];
        }
    }
    return NULL;
}

/* ---- attributes ------------------------------------------------------- */

/* IBA 13.4.8.1 ClassPortInfo of the SA: no redirection, no traps. */
static uint16_t sa_class_port_info(VhcaSaTable *t)
{
    uint8_t *d;

    t->rec_size = CLASS_PORT_INFO_SIZE;
    d = vhca_sa_table_add(t);
    d[VHCA_CPI(base_version)] = 1;
    d[VHCA_CPI(class_version)] = VHCA_SA_CLASS_VERSION;
    vhca_put_be16(d + VHCA_CPI(cap_mask), 1u << 9);     /* IsUDMulticastSupported */
    vhca_put_be32(d + VHCA_CPI(cap_mask2_resp_time), 18); /* CapabilityMask2 0 */
    return 0;
}

/* IBA 15.2.5.2 NodeRecord of an end port. */
static void sa_node_record(const VhcaSaPort *p, uint8_t *rec)
{
    vhca_put_be16(rec + VHCA_NR(lid), sa_port_lid(p));
    vhca_sma_node_info(&p->node, rec + VHCA_NR(node_info));
    memcpy(rec + VHCA_NR(node_desc), p->node.node_desc, VHCA_NODE_DESC_LEN);
}

/* IBA 15.2.5.3 PortInfoRecord of an end port. */
static void sa_portinfo_record(const VhcaSaPort *p, uint8_t *rec)
{
    vhca_put_be16(rec + VHCA_PIR(lid), sa_port_lid(p));
    rec[VHCA_PIR(port_num)] = p->node.local_port;
    vhca_sma_port_info(&p->node, 0, rec + VHCA_PIR(port_info));
}

typedef struct SaPortRecord {
    uint32_t size;
    const VhcaSaField *fields;
    uint32_t nfields;
    void (*make)(const VhcaSaPort *p, uint8_t *rec);
} SaPortRecord;

static const SaPortRecord sa_node_rec = {
    NODE_RECORD_SIZE, node_record_fields, ARRAY_SIZE(node_record_fields),
    sa_node_record,
};

static const SaPortRecord sa_portinfo_rec = {
    PORTINFO_RECORD_SIZE, portinfo_record_fields,
    ARRAY_SIZE(portinfo_record_fields), sa_portinfo_record,
};

/* The records of kind, one per end port, that the request selects. */
static uint16_t sa_port_records(const VhcaSa *sa, const SaPortRecord *kind,
                                uint64_t mask, const uint8_t *want,
                                VhcaSaTable *t)
{
    uint8_t rec[NODE_RECORD_SIZE], *out;    /* the largest of the two */
    uint32_t i;

    t->rec_size = kind->size;
    for (i = 0; i < sa->num_ports; i++) {
        memset(rec, 0, sizeof(rec));
        kind->make(&sa->ports[i], rec);
        if (vhca_sa_match(kind->fields, kind->nfields, mask, want, rec) &&
            (out = vhca_sa_table_add(t))) {
            memcpy(out, rec, kind->size);
        }
    }
    return 0;
}

/*
 * IBA 15.2.5.16: the path from src to dst through the one switch: the
 * port's link (MTU 4096, 40 Gb/s), SL 0, the default partition.  Every
 * port is a full member of it, so a path exists for its limited P_Key
 * 0x7FFF too (IBA 10.9.1.2: one full member suffices); a request naming
 * that P_Key gets records carrying it, as ib_srp's pkey=7fff logins need.
 */
static void sa_path(const VhcaSaPort *src, const VhcaSaPort *dst,
                    uint64_t mask, const uint8_t *want, uint8_t *rec)
{
    uint16_t pkey = VHCA_DEFAULT_PKEY;

    if ((mask & VHCA_PATH_COMP_PKEY) &&
        (vhca_get_be16(want + VHCA_PATH(pkey)) & 0x7fff) ==
        (VHCA_DEFAULT_PKEY & 0x7fff)) {
        pkey = vhca_get_be16(want + VHCA_PATH(pkey));
    }
    memset(rec, 0, PATH_RECORD_SIZE);
    memcpy(rec + VHCA_PATH(service_id), want + VHCA_PATH(service_id),
           sizeof(uint64_t));                   /* ServiceID: echoed */
    sa_port_gid(dst, rec + VHCA_PATH(dgid));
    sa_port_gid(src, rec + VHCA_PATH(sgid));
    vhca_put_be16(rec + VHCA_PATH(dlid), sa_port_lid(dst));
    vhca_put_be16(rec + VHCA_PATH(slid), sa_port_lid(src));
    rec[VHCA_PATH(reversible_numb_path)] = VHCA_PATH_REVERSIBLE | 1;
    vhca_put_be16(rec + VHCA_PATH(pkey), pkey);
    rec[VHCA_PATH(mtu)] = VHCA_SA_SELECTOR(VHCA_SA_SEL_EXACTLY, VHCA_MTU_4096);
    rec[VHCA_PATH(rate)] = VHCA_SA_SELECTOR(VHCA_SA_SEL_EXACTLY,
                                            VHCA_SA_RATE_40G);
    rec[VHCA_PATH(packet_life)] = VHCA_SA_SELECTOR(VHCA_SA_SEL_EXACTLY,
                                                   VHCA_SA_PACKET_LIFE);
}

/*
 * NumbPath (IBA 15.2.5.16) limits the paths per SGID/DGID pair of a
 * GetTable; a SubnAdmGet asks one path whatever it says (the IBA 1.2
 * erratum opensm follows).  It matters after an SM change: IPoIB asks the
 * new SA again with the record the old one returned, and opensm returns
 * NumbPath 0 (only Reversible set), so an SA that took that 0 literally
 * would answer ERR_NO_RECORDS and IPoIB would drop its unicast until the
 * neighbour's ARP probe resets the record (Documentation/fabric.md "The
 * master dies").
 */
static bool sa_path_none_asked(uint8_t method, uint64_t mask,
                               const uint8_t *want)
{
    return method == VHCA_SA_METHOD_GET_TABLE &&
           (mask & VHCA_PATH_COMP_NUMB_PATH) &&
           (want[VHCA_PATH(reversible_numb_path)] & ~VHCA_PATH_REVERSIBLE) == 0;
}

static uint16_t sa_path_records(const VhcaSa *sa, uint8_t method,
                                uint64_t mask, const uint8_t *want,
                                VhcaSaTable *t)
{
    uint8_t rec[PATH_RECORD_SIZE], *out;
    uint32_t i, j;

    t->rec_size = PATH_RECORD_SIZE;
    if (sa_path_none_asked(method, mask, want)) {
        return 0;                               /* no path per pair asked */
    }
    for (i = 0; i < sa->num_ports; i++) {
        for (j = 0; j < sa->num_ports; j++) {
            sa_path(&sa->ports[i], &sa->ports[j], mask, want, rec);
            if (vhca_sa_match(path_record_fields,
                              ARRAY_SIZE(path_record_fields), mask, want,
                              rec) && (out = vhca_sa_table_add(t))) {
                memcpy(out, rec, sizeof(rec));
            }
        }
    }
    return 0;
}

/* The records of attr that the request selects, or a MAD status. */
static uint16_t sa_attr(VhcaSa *sa, uint8_t method, uint16_t attr,
                        uint64_t mask, const uint8_t *want, VhcaSaTable *t)
{
    bool read = method == VHCA_SA_METHOD_GET ||
                method == VHCA_SA_METHOD_GET_TABLE;

    switch (attr) {
    case VHCA_SA_ATTR_CLASS_PORT_INFO:
        if (method != VHCA_SA_METHOD_GET) {
            return VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;
        }
        return sa_class_port_info(t);
    case VHCA_SA_ATTR_NODE_RECORD:
        return read ? sa_port_records(sa, &sa_node_rec, mask, want, t)
                    : VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;
    case VHCA_SA_ATTR_PORT_INFO_RECORD:
        return read ? sa_port_records(sa, &sa_portinfo_rec, mask, want, t)
                    : VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;
    case VHCA_SA_ATTR_PATH_RECORD:
        return read ? sa_path_records(sa, method, mask, want, t)
                    : VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;
    case VHCA_SA_ATTR_MCMEMBER_RECORD:
        return vhca_sa_mcast(sa, method, mask, want, t);
    default:
        return VHCA_MAD_STATUS_UNSUP_METHOD_ATTR;
    }
}

/* ---- requests --------------------------------------------------------- */

void vhca_sa_init(VhcaSa *sa)
{
    memset(sa, 0, sizeof(*sa));
    vhca_sa_mcast_init(sa);
}

static uint8_t sa_resp_method(uint8_t method)
{
    switch (method) {
    case VHCA_SA_METHOD_GET_TABLE:
        return VHCA_SA_METHOD_GET_TABLE_RESP;
    case VHCA_SA_METHOD_DELETE:
        return VHCA_SA_METHOD_DELETE_RESP;
    default:
        return VHCA_SA_METHOD_GET_RESP;     /* Get, Set, and the unknown */
    }
}

static bool sa_method_known(uint8_t method)
{
    return method == VHCA_SA_METHOD_GET || method == VHCA_SA_METHOD_SET ||
           method == VHCA_SA_METHOD_GET_TABLE ||
           method == VHCA_SA_METHOD_DELETE;
}

/* An RMPP request that is not a single segment: this SA takes none. */
static bool sa_multi_segment(const uint8_t *req)
{
    uint8_t flags = req[RMPP_FLAGS] & 7;

    return (flags & RMPP_FLAG_ACTIVE) &&
           ((flags & (RMPP_FLAG_FIRST | RMPP_FLAG_LAST)) !=
            (RMPP_FLAG_FIRST | RMPP_FLAG_LAST) ||
            vhca_get_be32(req + RMPP_SEG_NUM) != 1);
}

VhcaSaResult vhca_sa_process(VhcaSa *sa, const uint8_t *req, uint64_t len,
                             uint16_t slid, VhcaSaEmit *emit, void *opaque,
                             uint16_t *status)
{
    VhcaSaTable *t = &sa->table;
    uint8_t resp[VHCA_MAD_SIZE];
    uint8_t method;
    uint16_t st;

    *status = 0;
    if (len != VHCA_MAD_SIZE || req[MAD_BASE_VERSION] != 1 ||
        req[MAD_MGMT_CLASS] != VHCA_MGMT_CLASS_SUBN_ADM) {
        return VHCA_SA_DROPPED;
    }
    if (sa->num_ports > VHCA_SA_MAX_PORTS) {
        sa->num_ports = VHCA_SA_MAX_PORTS;
    }
    vhca_sa_mcast_prune(sa);
    method = req[MAD_METHOD];
    if ((req[RMPP_FLAGS] & RMPP_FLAG_ACTIVE) &&
        req[RMPP_TYPE] != RMPP_TYPE_DATA) {
        return vhca_sa_rmpp_recv(sa, slid, req, emit, opaque);
    }
    if (method & VHCA_MGMT_METHOD_RESP) {
        return VHCA_SA_DROPPED;         /* a response: the SA asked nothing */
    }

    memset(resp, 0, sizeof(resp));
    memcpy(resp, req, MAD_HDR_SIZE);
    resp[MAD_METHOD] = sa_resp_method(method);
    memcpy(resp + SA_COMP_MASK, req + SA_COMP_MASK, 8);
    memset(t, 0, offsetof(VhcaSaTable, data));
    if (req[MAD_CLASS_VERSION] != VHCA_SA_CLASS_VERSION) {
        st = VHCA_MAD_STATUS_BAD_VERSION;
    } else if (!sa_method_known(method)) {
        st = VHCA_MAD_STATUS_UNSUP_METHOD;
    } else if (sa_multi_segment(req)) {
        st = VHCA_SA_ERR_REQ_INVALID;
    } else {
        st = sa_attr(sa, method, vhca_get_be16(req + MAD_ATTR_ID),
                     vhca_get_be64(req + SA_COMP_MASK), req + VHCA_SA_HDR_SIZE, t);
    }
    if (st == 0 && t->overflow) {
        st = VHCA_SA_ERR_NO_RESOURCES;
    }
    if (st == 0 && method != VHCA_SA_METHOD_GET_TABLE) {
        st = t->n == 0 ? VHCA_SA_ERR_NO_RECORDS :
             t->n > 1 ? VHCA_SA_ERR_TOO_MANY_RECORDS : 0;
    }
    *status = st;
    vhca_put_be16(resp + MAD_STATUS, st);
    if (st == 0 && t->rec_size) {
        vhca_put_be16(resp + SA_ATTR_OFFSET, t->rec_size / 8);
    }
    if (st == 0 && method == VHCA_SA_METHOD_GET_TABLE) {
        vhca_sa_rmpp_send(sa, slid, resp, t, emit, opaque);
        return VHCA_SA_REPLIED;
    }
    if (st == 0) {
        memcpy(resp + VHCA_SA_HDR_SIZE, t->data, MIN(t->rec_size,
                                                     VHCA_SA_DATA_SIZE));
    }
    emit(opaque, resp);
    return VHCA_SA_REPLIED;
}
