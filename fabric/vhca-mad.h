/*
 * vhca fabric library - the one statement of the MAD layouts the fabric
 * speaks: the common MAD header (IBA 13.4.3), the SMP's (14.2.1.1 LID
 * routed, 14.2.1.2 directed route), the RMPP header (13.6.2.1), the SA
 * header (15.2.1.1), and the attributes the agents and SMs exchange:
 * NodeInfo, SwitchInfo, PortInfo, SMInfo and Notice (14.2.5.3, 14.2.5.4,
 * 14.2.5.6, 14.2.5.13, 13.4.8.2).  The SMA, SA, PMA, SM and trap code take each offset from
 * here (VHCA_MAD_OFF); the Python host tests read the same structs as
 * tools/vhca-wire-layout.c dumps them (selftests/host/wirelayout.py),
 * never typed by hand.
 *
 * The structs describe bytes, not memory the code casts: every field is
 * big-endian on the wire (IBA 13.4.2) and is read and written with
 * vhca-bytes.h's vhca_get_be and vhca_put_be at VHCA_MAD_OFF(struct,
 * field).  No struct needs packing: each field sits at a multiple of its
 * size, but for the SA's SM_Key, which is bytes for that reason.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef VHCA_FABRIC_MAD_H
#define VHCA_FABRIC_MAD_H

#include <stddef.h>
#include <stdint.h>
#include "vhca_hw.h"

#define VHCA_MAD_SIZE           256     /* IBA 13.4.2 */

/* Where field sits in a MAD laid out as struct type. */
#define VHCA_MAD_OFF(type, field)   offsetof(struct type, field)
/* ... in the common header every MAD starts with. */
#define VHCA_MAD(field)             VHCA_MAD_OFF(vhca_mad_hdr, field)

/* The common MAD header (IBA 13.4.3, Figure 144). */
struct vhca_mad_hdr {
    uint8_t     base_version;           /* 1 */
    uint8_t     mgmt_class;
    uint8_t     class_version;
    uint8_t     method;
    uint16_t    status;                 /* SMP: bit 15 is the D bit */
    uint16_t    class_specific;
    uint64_t    tid;
    uint16_t    attr_id;
    uint16_t    rsvd;
    uint32_t    attr_mod;
};
VHCA_SIZE_CHECK(struct vhca_mad_hdr, 24);

/*
 * An SMP (IBA 14.2.1.1, 14.2.1.2): the directed-route fields are zero in a
 * LID-routed one, whose data is the same 64 bytes at the same place.
 */
struct vhca_smp {
    uint8_t     base_version;
    uint8_t     mgmt_class;             /* SUBN_LID or SUBN_DR */
    uint8_t     class_version;
    uint8_t     method;
    uint16_t    status;                 /* bit 15: D, VHCA_SMP_DIRECTION */
    uint8_t     hop_ptr;
    uint8_t     hop_cnt;
    uint64_t    tid;
    uint16_t    attr_id;
    uint16_t    rsvd;
    uint32_t    attr_mod;
    uint64_t    mkey;
    uint16_t    dr_slid;
    uint16_t    dr_dlid;
    uint8_t     rsvd2[28];
    uint8_t     data[64];
    uint8_t     initial_path[64];
    uint8_t     return_path[64];
};
VHCA_SIZE_CHECK(struct vhca_smp, VHCA_MAD_SIZE);

#define VHCA_SMP(field)         VHCA_MAD_OFF(vhca_smp, field)
#define VHCA_SMP_DATA_OFF       VHCA_SMP(data)
#define VHCA_SMP_DATA_SIZE      64

/* The RMPP header after the common one (IBA 13.6.2.1). */
struct vhca_rmpp_hdr {
    uint8_t     rmpp_version;           /* 1 */
    uint8_t     rmpp_type;              /* VHCA_RMPP_TYPE_* */
    uint8_t     rtime_flags;            /* RRespTime[7:3], VHCA_RMPP_F_* */
    uint8_t     rmpp_status;
    uint32_t    data1;                  /* SegmentNumber */
    uint32_t    data2;                  /* PayloadLength / NewWindowLast */
};
VHCA_SIZE_CHECK(struct vhca_rmpp_hdr, 12);

/* A SubnAdm MAD (IBA 15.2.1.1): the two headers above, then the SA's. */
struct vhca_sa_mad {
    struct vhca_mad_hdr mad;
    struct vhca_rmpp_hdr rmpp;
    uint8_t     sm_key[8];              /* at 36: not 8-byte aligned */
    uint16_t    attr_offset;            /* records' size, 8-byte units */
    uint16_t    rsvd;
    uint64_t    comp_mask;
    uint8_t     data[200];              /* VHCA_SA_DATA_SIZE */
};
VHCA_SIZE_CHECK(struct vhca_sa_mad, VHCA_MAD_SIZE);

#define VHCA_RMPP_TYPE_DATA     1
#define VHCA_RMPP_TYPE_ACK      2
#define VHCA_RMPP_TYPE_STOP     3
#define VHCA_RMPP_TYPE_ABORT    4
#define VHCA_RMPP_F_ACTIVE      0x01
#define VHCA_RMPP_F_FIRST       0x02
#define VHCA_RMPP_F_LAST        0x04

/* A PerfMgt MAD (IBA 16.1.3): the common header, 40 reserved bytes,
 * 192 bytes of data. */
struct vhca_pma_mad {
    struct vhca_mad_hdr mad;
    uint8_t     rsvd[40];
    uint8_t     data[192];
};
VHCA_SIZE_CHECK(struct vhca_pma_mad, VHCA_MAD_SIZE);

/* SMInfo (IBA 14.2.5.13), the first bytes of the SMP's data. */
struct vhca_smp_sm_info {
    uint64_t    guid;
    uint64_t    sm_key;
    uint32_t    act_count;
    uint8_t     priority_state;         /* Priority[7:4], SMState[3:0] */
    uint8_t     rsvd[3];
};
VHCA_SIZE_CHECK(struct vhca_smp_sm_info, 24);

/* Notice (IBA 13.4.8.2), generic, as a trap's SMP data. */
struct vhca_smp_notice {
    uint8_t     generic_type;           /* IsGeneric[7], Type[6:0] */
    uint8_t     producer_type[3];
    uint16_t    trap_number;
    uint16_t    issuer_lid;
    uint16_t    toggle_count;           /* NoticeToggle[15], NoticeCount */
    uint8_t     details[54];
};
VHCA_SIZE_CHECK(struct vhca_smp_notice, 64);
#define VHCA_NOTICE_GENERIC     0x80    /* generic_type: IsGeneric */

/*
 * The attributes' layouts (SMP data, 64 bytes), byte for byte: a field
 * of several bits shares its byte with others and is named after them
 * all, high bits first (IBA's tables give each its bit offset).
 */

/* NodeInfo (IBA 14.2.5.3): its GUIDs are not 8-byte aligned, so bytes. */
struct vhca_smp_node_info {
    uint8_t     base_version;
    uint8_t     class_version;
    uint8_t     node_type;              /* 1 CA, 2 switch */
    uint8_t     num_ports;
    uint8_t     sys_image_guid[8];
    uint8_t     node_guid[8];
    uint8_t     port_guid[8];
    uint16_t    partition_cap;
    uint16_t    device_id;
    uint32_t    revision;
    uint8_t     local_port;
    uint8_t     vendor_id[3];
    uint8_t     rsvd[24];
};
VHCA_SIZE_CHECK(struct vhca_smp_node_info, VHCA_SMP_DATA_SIZE);

/* SwitchInfo (IBA 14.2.5.4), the fields up to MulticastFDBTop. */
struct vhca_smp_switch_info {
    uint16_t    lft_cap;                /* LinearFDBCap */
    uint16_t    rft_cap;                /* RandomFDBCap */
    uint16_t    mft_cap;                /* MulticastFDBCap */
    uint16_t    lft_top;                /* LinearFDBTop */
    uint8_t     default_port;
    uint8_t     default_mcast_primary_port;
    uint8_t     default_mcast_not_primary_port;
    uint8_t     life_time_psc;          /* LifeTimeValue[7:3], PortStateChange[2] */
    uint16_t    lids_per_port;
    uint16_t    partition_enforcement_cap;
    uint8_t     enforcement_caps;
    uint8_t     port0_caps;
    uint16_t    mft_top;                /* MulticastFDBTop */
    uint8_t     rsvd[44];
};
VHCA_SIZE_CHECK(struct vhca_smp_switch_info, VHCA_SMP_DATA_SIZE);

/* PortInfo (IBA 14.2.5.6, Table 145). */
struct vhca_smp_port_info {
    uint64_t    mkey;
    uint64_t    gid_prefix;
    uint16_t    lid;
    uint16_t    master_sm_lid;
    uint32_t    cap_mask;
    uint16_t    diag_code;
    uint16_t    mkey_lease;             /* M_KeyLeasePeriod */
    uint8_t     local_port;             /* LocalPortNum */
    uint8_t     link_width_enabled;
    uint8_t     link_width_supported;
    uint8_t     link_width_active;
    uint8_t     speed_supported_state;  /* LinkSpeedSupported[7:4], PortState[3:0] */
    uint8_t     phys_state_down_default; /* PortPhysicalState[7:4],
                                         * LinkDownDefaultState[3:0] */
    uint8_t     mkey_protect_lmc;       /* M_KeyProtectBits[7:6], LMC[2:0] */
    uint8_t     speed_active_enabled;   /* LinkSpeedActive[7:4], Enabled[3:0] */
    uint8_t     neighbor_mtu_sm_sl;     /* NeighborMTU[7:4], MasterSMSL[3:0] */
    uint8_t     vl_cap_init_type;       /* VLCap[7:4], InitType[3:0] */
    uint8_t     vl_high_limit;
    uint8_t     vl_arb_high_cap;
    uint8_t     vl_arb_low_cap;
    uint8_t     init_type_reply_mtu_cap; /* InitTypeReply[7:4], MTUCap[3:0] */
    uint8_t     vl_stall_hoq_life;      /* VLStallCount[7:5], HOQLife[4:0] */
    uint8_t     oper_vls_enforcement;   /* OperationalVLs[7:4], partition
                                         * enforcement and raw filters */
    uint16_t    mkey_violations;
    uint16_t    pkey_violations;
    uint16_t    qkey_violations;
    uint8_t     guid_cap;
    uint8_t     rereg_subnet_timeout;   /* ClientReregister[7], SubnetTimeOut[4:0] */
    uint8_t     resp_time_value;        /* [4:0] */
    uint8_t     phy_overrun_errors;     /* LocalPhyErrors[7:4], OverrunErrors[3:0] */
    uint16_t    max_credit_hint;
    uint32_t    link_round_trip_latency; /* [23:0] */
    uint16_t    cap_mask2;
    uint8_t     speed_ext_active_supported;
    uint8_t     speed_ext_enabled;
};
VHCA_SIZE_CHECK(struct vhca_smp_port_info, VHCA_SMP_DATA_SIZE);

/* ClassPortInfo (IBA 13.4.8.1) of any class's agent: the SA's, the PMA's. */
struct vhca_class_port_info {
    uint8_t     base_version;
    uint8_t     class_version;
    uint16_t    cap_mask;
    uint32_t    cap_mask2_resp_time;    /* CapabilityMask2[31:5], RespTimeValue[4:0] */
    uint8_t     redirect_gid[16];
    uint32_t    redirect_tc_sl_fl;
    uint16_t    redirect_lid;
    uint16_t    redirect_pkey;
    uint32_t    redirect_qp;
    uint32_t    redirect_qkey;
    uint8_t     trap_gid[16];
    uint32_t    trap_tc_sl_fl;
    uint16_t    trap_lid;
    uint16_t    trap_pkey;
    uint32_t    trap_hl_qp;
    uint32_t    trap_qkey;
};
VHCA_SIZE_CHECK(struct vhca_class_port_info, 72);

/* Where a field of these attributes sits in the SMP's data. */
#define VHCA_NI(field)      VHCA_MAD_OFF(vhca_smp_node_info, field)
#define VHCA_SWI(field)     VHCA_MAD_OFF(vhca_smp_switch_info, field)
#define VHCA_PI(field)      VHCA_MAD_OFF(vhca_smp_port_info, field)
#define VHCA_CPI(field)     VHCA_MAD_OFF(vhca_class_port_info, field)

/*
 * The common header's fields of the MAD at m, big-endian (plain shifts:
 * C++ tests include this file too).
 */
static inline uint8_t vhca_mad_class(const uint8_t *m)
{
    return m[VHCA_MAD(mgmt_class)];
}

static inline uint8_t vhca_mad_method(const uint8_t *m)
{
    return m[VHCA_MAD(method)];
}

static inline uint16_t vhca_mad_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t vhca_mad_be32(const uint8_t *p)
{
    return (uint32_t)vhca_mad_be16(p) << 16 | vhca_mad_be16(p + 2);
}

static inline uint16_t vhca_mad_status(const uint8_t *m)
{
    return vhca_mad_be16(m + VHCA_MAD(status));
}

static inline uint16_t vhca_mad_attr(const uint8_t *m)
{
    return vhca_mad_be16(m + VHCA_MAD(attr_id));
}

static inline uint32_t vhca_mad_attr_mod(const uint8_t *m)
{
    return vhca_mad_be32(m + VHCA_MAD(attr_mod));
}

static inline uint64_t vhca_mad_tid(const uint8_t *m)
{
    return (uint64_t)vhca_mad_be32(m + VHCA_MAD(tid)) << 32 |
           vhca_mad_be32(m + VHCA_MAD(tid) + 4);
}

/* The TrapNumber of a Trap(Notice) SMP. */
static inline uint16_t vhca_smp_trap_number(const uint8_t *m)
{
    return vhca_mad_be16(m + VHCA_SMP_DATA_OFF +
                         VHCA_MAD_OFF(vhca_smp_notice, trap_number));
}

/* MAD header (IBA 13.4.3) and SMP (14.2.1) values the fabric knows. */
#define VHCA_MGMT_CLASS_SUBN_LID    0x01
#define VHCA_MGMT_CLASS_SUBN_DR     0x81
#define VHCA_MGMT_METHOD_TRAP       0x05    /* to an SM: never the SMA's */
#define VHCA_MGMT_METHOD_GET        0x01
#define VHCA_MGMT_METHOD_SET        0x02
#define VHCA_MGMT_METHOD_GET_RESP   0x81
#define VHCA_MGMT_METHOD_TRAP_REPRESS 0x07
#define VHCA_MGMT_METHOD_RESP       0x80

#define VHCA_MAD_STATUS_BAD_VERSION         0x0004
#define VHCA_MAD_STATUS_UNSUP_METHOD        0x0008
#define VHCA_MAD_STATUS_UNSUP_METHOD_ATTR   0x000c
#define VHCA_MAD_STATUS_INVALID_ATTR_VALUE  0x001c
#define VHCA_SMP_DIRECTION                  0x8000

#define VHCA_SMP_ATTR_NOTICE        0x0002
#define VHCA_SMP_ATTR_NODE_DESC     0x0010
#define VHCA_SMP_ATTR_NODE_INFO     0x0011
#define VHCA_SMP_ATTR_GUID_INFO     0x0014
#define VHCA_SMP_ATTR_PORT_INFO     0x0015
#define VHCA_SMP_ATTR_PKEY_TABLE    0x0016
#define VHCA_SMP_ATTR_SL2VL         0x0017  /* SLtoVLMappingTable */
#define VHCA_SMP_ATTR_SM_INFO       0x0020  /* the SM's, not the SMA's */

#endif /* VHCA_FABRIC_MAD_H */
