/*
 * vhca - Subnet Administration (IBA 15): the SA of the fabric's embedded
 * subnet manager (SM LID 1), answering the SubnAdm MADs that GSI QPs send
 * to it.
 *
 * vhca_sa_process() is pure (request bytes, the SA's state and a picture
 * of the fabric in; response MADs out through a callback), fuzzed by
 * fuzz/fuzz_sa.c:
 *   vhca-sa.c        MAD checks, dispatch, ClassPortInfo, NodeRecord,
 *                    PortInfoRecord, PathRecord, ComponentMask matching
 *   vhca-sa-mcast.c  MCMemberRecord: multicast groups, joins and leaves
 *   vhca-sa-rmpp.c   the RMPP sender of GetTable responses (IBA 13.6)
 * vhca-sa-hook.c is the glue the requester (vhca-transport.c) calls.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_SA_H
#define HW_INFINIBAND_VHCA_SA_H

#include "vhca-sma.h"

#define VHCA_MGMT_CLASS_SUBN_ADM    0x03
#define VHCA_SA_CLASS_VERSION       2
#define VHCA_SA_QPN                 1
#define VHCA_SA_HDR_SIZE            VHCA_MAD_OFF(vhca_sa_mad, data)
#define VHCA_SA_DATA_SIZE           sizeof(((struct vhca_sa_mad *)0)->data)

/* SA methods (IBA 15.2.2). */
#define VHCA_SA_METHOD_GET          VHCA_MGMT_METHOD_GET
#define VHCA_SA_METHOD_SET          VHCA_MGMT_METHOD_SET
#define VHCA_SA_METHOD_GET_RESP     VHCA_MGMT_METHOD_GET_RESP
#define VHCA_SA_METHOD_GET_TABLE    0x12
#define VHCA_SA_METHOD_GET_TABLE_RESP 0x92
#define VHCA_SA_METHOD_DELETE       0x15
#define VHCA_SA_METHOD_DELETE_RESP  0x95

/* SA attributes (IBA 15.2.5). */
#define VHCA_SA_ATTR_CLASS_PORT_INFO    0x0001
#define VHCA_SA_ATTR_NODE_RECORD        0x0011
#define VHCA_SA_ATTR_PORT_INFO_RECORD   0x0012
#define VHCA_SA_ATTR_PATH_RECORD        0x0035
#define VHCA_SA_ATTR_MCMEMBER_RECORD    0x0038

/*
 * ComponentMask bits (IBA 15.2.4): bit n selects a record's n-th field,
 * the order of the component tables in vhca-sa.c and vhca-sa-mcast.c.
 * The ones the SA and its tests name:
 */
#define VHCA_PIR_COMP_LID           (1ull << 0)     /* PortInfoRecord */
#define VHCA_PATH_COMP_DGID         (1ull << 2)     /* PathRecord */
#define VHCA_PATH_COMP_SGID         (1ull << 3)
#define VHCA_PATH_COMP_TCLASS       (1ull << 10)
#define VHCA_PATH_COMP_NUMB_PATH    (1ull << 12)
#define VHCA_PATH_COMP_PKEY         (1ull << 13)
#define VHCA_PATH_COMP_MTU_SEL      (1ull << 16)
#define VHCA_PATH_COMP_MTU          (1ull << 17)
#define VHCA_MCR_COMP_MGID          (1ull << 0)     /* MCMemberRecord */
#define VHCA_MCR_COMP_PORT_GID      (1ull << 1)
#define VHCA_MCR_COMP_QKEY          (1ull << 2)
#define VHCA_MCR_COMP_MTU_SEL       (1ull << 4)
#define VHCA_MCR_COMP_MTU           (1ull << 5)
#define VHCA_MCR_COMP_TCLASS        (1ull << 6)
#define VHCA_MCR_COMP_PKEY          (1ull << 7)
#define VHCA_MCR_COMP_RATE          (1ull << 9)
#define VHCA_MCR_COMP_PLT           (1ull << 11)
#define VHCA_MCR_COMP_SL            (1ull << 12)
#define VHCA_MCR_COMP_FLOW          (1ull << 13)
#define VHCA_MCR_COMP_HOP           (1ull << 14)
#define VHCA_MCR_COMP_JOIN          (1ull << 16)
#define VHCA_MCR_COMP_PROXY         (1ull << 17)

/* MCMemberRecord:JoinState bits (IBA 15.2.5.17). */
#define VHCA_MCR_JOIN_FULL          0x1
#define VHCA_MCR_JOIN_SENDONLY_FULL 0x8

/* MAD status: class-specific SA codes in bits 8..14 (IBA 15.2.1.1). */
#define VHCA_SA_ERR_NO_RESOURCES        0x0100
#define VHCA_SA_ERR_REQ_INVALID         0x0200
#define VHCA_SA_ERR_NO_RECORDS          0x0300
#define VHCA_SA_ERR_TOO_MANY_RECORDS    0x0400
#define VHCA_SA_ERR_REQ_INVALID_GID     0x0500
#define VHCA_SA_ERR_REQ_INSUFFICIENT_COMPONENTS 0x0600

/* Limits of this SA. */
#define VHCA_SA_MAX_PORTS       32      /* end ports it knows of */
#define VHCA_SA_MAX_GROUPS      64
#define VHCA_SA_MAX_MEMBERS     VHCA_SA_MAX_PORTS
#define VHCA_SA_MAX_XFERS       8       /* RMPP transfers in flight */
#define VHCA_SA_MAX_SEGS        64      /* segments of one GetTableResp */
#define VHCA_SA_MAX_PAYLOAD     (VHCA_SA_MAX_SEGS * VHCA_SA_DATA_SIZE)

/* IPoIB broadcast group of the default partition (RFC 4391). */
#define VHCA_SA_IPOIB_QKEY      0x0b1b
#define VHCA_SA_RATE_40G        7
#define VHCA_SA_PACKET_LIFE     16      /* 4.096 us * 2^16, ~268 ms */

/* An ACTIVE end port, described as its node's SMA would describe it. */
typedef struct VhcaSaPort {
    VhcaSmaNode node;           /* local_port: this port */
} VhcaSaPort;

typedef struct VhcaSaMember {
    uint8_t gid[16];
    uint8_t join_state;         /* IBA JoinState bits */
    bool proxy;
} VhcaSaMember;

typedef struct VhcaSaGroup {
    bool valid;
    bool permanent;             /* the IPoIB broadcast group */
    uint8_t mgid[16];
    uint32_t qkey;
    uint16_t mlid;
    uint16_t pkey;
    uint8_t mtu;
    uint8_t tclass;
    uint8_t rate;
    uint8_t plt;
    uint8_t sl;
    uint32_t flow_label;
    uint8_t hop_limit;
    uint8_t scope;
    uint32_t nmembers;
    VhcaSaMember members[VHCA_SA_MAX_MEMBERS];
} VhcaSaGroup;

/* An RMPP sender transfer (IBA 13.6.5): one GetTableResp in flight. */
typedef struct VhcaSaXfer {
    bool valid;
    uint16_t lid;               /* the requester's port */
    uint64_t tid;
    uint64_t age;
    uint32_t segs;
    uint32_t sent;              /* last segment sent */
    uint32_t len;               /* payload bytes (records) */
    uint8_t hdr[VHCA_SA_HDR_SIZE];
    uint8_t data[VHCA_SA_MAX_PAYLOAD];
} VhcaSaXfer;

/* Records of a GetTable/Get answer, laid out as the response carries them. */
typedef struct VhcaSaTable {
    uint32_t rec_size;          /* AttributeOffset * 8 */
    uint32_t n;
    bool overflow;
    uint8_t data[VHCA_SA_MAX_PAYLOAD];
} VhcaSaTable;

typedef struct VhcaSa {
    /* The fabric as it is now: refreshed by the caller before each call. */
    uint32_t num_ports;
    VhcaSaPort ports[VHCA_SA_MAX_PORTS];
    /* The SA's own state. */
    VhcaSaGroup groups[VHCA_SA_MAX_GROUPS];
    VhcaSaXfer xfers[VHCA_SA_MAX_XFERS];
    uint64_t clock;
    VhcaSaTable table;          /* scratch: the records of one answer */
} VhcaSa;

typedef enum VhcaSaResult {
    VHCA_SA_REPLIED,            /* one or more MADs emitted */
    VHCA_SA_CONSUMED,           /* an RMPP ACK/STOP/ABORT: taken */
    VHCA_SA_DROPPED,            /* not a request the SA answers */
} VhcaSaResult;

/* Called once per response MAD (VHCA_MAD_SIZE bytes), in order. */
typedef void VhcaSaEmit(void *opaque, const uint8_t *mad);

void vhca_sa_init(VhcaSa *sa);

/*
 * req: len bytes a GSI QP of the port with LID slid sent to the SA.
 * *status: the MAD status answered (for tracing), 0 when none.
 */
VhcaSaResult vhca_sa_process(VhcaSa *sa, const uint8_t *req, uint64_t len,
                             uint16_t slid, VhcaSaEmit *emit, void *opaque,
                             uint16_t *status);

/* ---- between the SA's files ------------------------------------------- */

/* A field of a record: bit offset and width, in ComponentMask order. */
typedef struct VhcaSaField {
    uint16_t off;
    uint16_t bits;
    uint8_t flags;
} VhcaSaField;

#define VHCA_SA_F_SKIP  1       /* not compared (reserved, or special) */
#define VHCA_SA_F_SEL   2       /* a selector for the next field */

#define VHCA_SA_MCMEMBER_SIZE   VHCA_SA_REC_SIZE(vhca_sa_mcmember_record)


uint64_t vhca_sa_get_bits(const uint8_t *rec, uint32_t off, uint32_t bits);
void vhca_sa_set_bits(uint8_t *rec, uint32_t off, uint32_t bits,
                      uint64_t val);
bool vhca_sa_match(const VhcaSaField *f, uint32_t nf, uint64_t mask,
                   const uint8_t *want, const uint8_t *have);
uint8_t *vhca_sa_table_add(VhcaSaTable *t);
const VhcaSaPort *vhca_sa_port_by_gid(const VhcaSa *sa, const uint8_t *gid);

/* vhca-sa-mcast.c */
void vhca_sa_mcast_init(VhcaSa *sa);
void vhca_sa_mcast_prune(VhcaSa *sa);
uint16_t vhca_sa_mcast(VhcaSa *sa, uint8_t method, uint64_t mask,
                       const uint8_t *rec, VhcaSaTable *t);

/* vhca-sa-rmpp.c */
void vhca_sa_rmpp_send(VhcaSa *sa, uint16_t lid, const uint8_t *hdr,
                       const VhcaSaTable *t, VhcaSaEmit *emit, void *opaque);
VhcaSaResult vhca_sa_rmpp_recv(VhcaSa *sa, uint16_t lid, const uint8_t *mad,
                               VhcaSaEmit *emit, void *opaque);

#endif /* HW_INFINIBAND_VHCA_SA_H */
