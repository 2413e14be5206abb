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
 * The DataDetails of the traps the fabric raises (IBA 14.2.5.1, Table
 * 132 ff.): 128, a switch's link state changed, names the switch; 144, a
 * CA port's CapabilityMask changed, the port and the new mask.
 */
struct vhca_trap128_details {
    uint16_t    lidaddr;
};
VHCA_SIZE_CHECK(struct vhca_trap128_details, 2);

struct vhca_trap144_details {
    uint16_t    rsvd;
    uint16_t    lidaddr;
    uint8_t     rsvd2[2];               /* OtherLocalChanges, change bits */
    uint8_t     cap_mask[4];            /* CapabilityMask, unaligned */
    uint8_t     rsvd3[4];
};
VHCA_SIZE_CHECK(struct vhca_trap144_details, 14);

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
#define VHCA_SMI(field)     VHCA_MAD_OFF(vhca_smp_sm_info, field)
#define VHCA_NOTICE(field)  VHCA_MAD_OFF(vhca_smp_notice, field)
#define VHCA_SWI_PSC        0x04    /* life_time_psc: PortStateChange */

/*
 * The SA's records (IBA 15.2.5), as a SubnAdm MAD's data carries them: a
 * GetTable answer puts them VHCA_SA_REC_SIZE() bytes apart, the record's
 * size rounded up to the 8-byte units of AttributeOffset (15.2.1.1).  The
 * NodeInfo and PortInfo in them are the SMP attributes' bytes, unaligned
 * here: VHCA_NI() and VHCA_PI() place a field within them.  A selector
 * (MTU, Rate, PacketLifeTime) is the byte's two high bits
 * (VHCA_SA_SELECTOR()), the value its six low ones.
 */
#define VHCA_SA_REC_SIZE(type)  ((sizeof(struct type) + 7) & ~(size_t)7)
#define VHCA_NODE_INFO_SIZE     VHCA_NI(rsvd)   /* NodeInfo's 40 bytes */

/* NodeRecord (IBA 15.2.5.2). */
struct vhca_sa_node_record {
    uint16_t    lid;
    uint16_t    rsvd;
    uint8_t     node_info[40];          /* VHCA_NODE_INFO_SIZE */
    uint8_t     node_desc[64];          /* VHCA_NODE_DESC_LEN */
};
VHCA_SIZE_CHECK(struct vhca_sa_node_record, 108);
VHCA_SIZE_CHECK(((struct vhca_sa_node_record *)0)->node_info,
                VHCA_NODE_INFO_SIZE);
VHCA_SIZE_CHECK(((struct vhca_sa_node_record *)0)->node_desc,
                VHCA_NODE_DESC_LEN);

/* PortInfoRecord (IBA 15.2.5.3). */
struct vhca_sa_port_info_record {
    uint16_t    lid;                    /* EndportLID */
    uint8_t     port_num;
    uint8_t     options;
    uint8_t     port_info[64];          /* VHCA_SMP_DATA_SIZE */
};
VHCA_SIZE_CHECK(struct vhca_sa_port_info_record, 68);

/* PathRecord (IBA 15.2.5.16). */
struct vhca_sa_path_record {
    uint64_t    service_id;
    uint8_t     dgid[16];
    uint8_t     sgid[16];
    uint16_t    dlid;
    uint16_t    slid;
    uint32_t    raw_flow_hop;           /* RawTraffic[31], FlowLabel[27:8],
                                         * HopLimit[7:0] */
    uint8_t     tclass;
    uint8_t     reversible_numb_path;   /* Reversible[7], NumbPath[6:0] */
    uint16_t    pkey;
    uint16_t    qos_sl;                 /* QoSClass[15:4], SL[3:0] */
    uint8_t     mtu;                    /* MTUSelector[7:6], MTU[5:0] */
    uint8_t     rate;                   /* RateSelector[7:6], Rate[5:0] */
    uint8_t     packet_life;            /* its selector[7:6], value[5:0] */
    uint8_t     preference;
    uint8_t     rsvd[6];
};
VHCA_SIZE_CHECK(struct vhca_sa_path_record, 64);
#define VHCA_PATH_REVERSIBLE    0x80    /* reversible_numb_path */

/* MCMemberRecord (IBA 15.2.5.17). */
struct vhca_sa_mcmember_record {
    uint8_t     mgid[16];
    uint8_t     port_gid[16];
    uint32_t    qkey;
    uint16_t    mlid;
    uint8_t     mtu;                    /* MTUSelector[7:6], MTU[5:0] */
    uint8_t     tclass;
    uint16_t    pkey;
    uint8_t     rate;                   /* RateSelector[7:6], Rate[5:0] */
    uint8_t     packet_life;            /* its selector[7:6], value[5:0] */
    uint32_t    sl_flow_hop;            /* SL[31:28], FlowLabel[27:8],
                                         * HopLimit[7:0] */
    uint8_t     scope_join_state;       /* Scope[7:4], JoinState[3:0] */
    uint8_t     proxy_join;             /* ProxyJoin[7] */
    uint8_t     rsvd[2];
};
VHCA_SIZE_CHECK(struct vhca_sa_mcmember_record, 52);
#define VHCA_MCR_PROXY_JOIN     0x80    /* proxy_join */

/* IBA 15.2.5.16: a selector, 0 greater than, 1 less than, 2 exactly,
 * 3 the largest value available. */
#define VHCA_SA_SEL_GREATER     0
#define VHCA_SA_SEL_LESS        1
#define VHCA_SA_SEL_EXACTLY     2
#define VHCA_SA_SEL_BEST        3
#define VHCA_SA_SELECTOR(sel, value)    ((uint8_t)((sel) << 6 | (value)))

#define VHCA_NR(field)      VHCA_MAD_OFF(vhca_sa_node_record, field)
#define VHCA_PIR(field)     VHCA_MAD_OFF(vhca_sa_port_info_record, field)
#define VHCA_PATH(field)    VHCA_MAD_OFF(vhca_sa_path_record, field)
#define VHCA_MCR(field)     VHCA_MAD_OFF(vhca_sa_mcmember_record, field)

/* PortCounters (IBA 16.1.3.5, Table 236; the kernel's struct
 * ib_pma_portcounters), the first bytes of a PerfMgt MAD's data. */
struct vhca_pma_port_counters {
    uint8_t     rsvd;
    uint8_t     port_select;
    uint16_t    counter_select;
    uint16_t    symbol_error_counter;
    uint8_t     link_error_recovery_counter;
    uint8_t     link_downed_counter;
    uint16_t    port_rcv_errors;
    uint16_t    port_rcv_remphys_errors;
    uint16_t    port_rcv_switch_relay_errors;
    uint16_t    port_xmit_discards;
    uint8_t     port_xmit_constraint_errors;
    uint8_t     port_rcv_constraint_errors;
    uint8_t     rsvd1;
    uint8_t     link_overrun_errors;    /* LocalLinkIntegrity[7:4],
                                         * ExcessiveBufferOverrun[3:0] */
    uint16_t    rsvd2;
    uint16_t    vl15_dropped;
    uint32_t    port_xmit_data;         /* octets / 4 */
    uint32_t    port_rcv_data;
    uint32_t    port_xmit_packets;
    uint32_t    port_rcv_packets;
    uint32_t    port_xmit_wait;
};
VHCA_SIZE_CHECK(struct vhca_pma_port_counters, 44);

/* PortCountersExtended (IBA 16.1.4.11, Table 264; struct
 * ib_pma_portcounters_ext). */
struct vhca_pma_port_counters_ext {
    uint8_t     rsvd;
    uint8_t     port_select;
    uint16_t    counter_select;
    uint32_t    rsvd1;
    uint64_t    port_xmit_data;         /* octets / 4 */
    uint64_t    port_rcv_data;
    uint64_t    port_xmit_packets;
    uint64_t    port_rcv_packets;
    uint64_t    port_unicast_xmit_packets;
    uint64_t    port_unicast_rcv_packets;
    uint64_t    port_multicast_xmit_packets;
    uint64_t    port_multicast_rcv_packets;
};
VHCA_SIZE_CHECK(struct vhca_pma_port_counters_ext, 72);

#define VHCA_PC(field)      VHCA_MAD_OFF(vhca_pma_port_counters, field)
#define VHCA_PCX(field)     VHCA_MAD_OFF(vhca_pma_port_counters_ext, field)

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
#define VHCA_SMP_ATTR_VL_ARB        0x0018  /* VLArbitrationTable: none */
#define VHCA_SMP_ATTR_SM_INFO       0x0020  /* the SM's, not the SMA's */

#endif /* VHCA_FABRIC_MAD_H */
