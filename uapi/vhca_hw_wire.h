/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * vhca_hw_wire.h - the frames a port cabled out of its QEMU process (a
 * `portN-netdev` property naming a QEMU netdev) exchanges with the switch
 * it is cabled to: the one definition of the fabric's wire.  The device
 * (qemu-device/vhca-link.c), the standalone switch (tools/vhca-switch*.c)
 * and the fuzz targets include it through fabric/vhca-wire.h, which
 * adds the parser; the Python host tests read these layouts as
 * tools/vhca-wire-layout.c dumps them (selftests/host/wirelayout.py),
 * never restated by hand.  The verbs provider does not speak the wire, so
 * rdma-core's series leaves this file out (scripts/rdma-core-patches.sh).
 *
 * A frame is one IB message as the wire would carry it: a fixed header
 * holding what the LRH (SLID, DLID, SL), BTH (opcode, destination QP, PSN),
 * DETH (source QP, Q_Key), RETH/AtomicETH (address, R_Key, operands),
 * ImmDt/IETH and AETH/AtomicAckETH (syndrome, original value) carry, then
 * the payload.  A message of up to VHCA_WIRE_MAX_PAYLOAD bytes is one
 * frame; a longer one (up to VHCA_WIRE_MAX_MESSAGE) travels as segments,
 * frames of the same header each carrying the VHCA_WIRE_MAX_PAYLOAD bytes
 * at `offset` (the last one the rest), which the receiver puts together
 * before it takes the message (vhca-link.c).  `packets` says how many PSNs
 * the message uses at the path MTU, so RC PSNs advance as they would
 * packet by packet (Documentation/fabric.md "The wire").
 * Fields are little-endian.  QEMU's stream netdev puts a 4-byte
 * big-endian length before each frame on the socket.
 *
 * Every frame is untrusted input at both ends.
 */
#ifndef VHCA_HW_WIRE_H
#define VHCA_HW_WIRE_H

#include "vhca_hw.h"

#define VHCA_WIRE_MAGIC         0x56484346u     /* "FCHV" on the wire */
#define VHCA_WIRE_VERSION       2               /* 2: segments */
/* QEMU 7.2's stream netdev reassembles frames of at most 4096 + 65536. */
#define VHCA_WIRE_MAX_PAYLOAD   65536u          /* one frame's payload */
#define VHCA_WIRE_MAX_MESSAGE   (128u << 20)    /* one message, in segments */
#define VHCA_WIRE_MAX_FRAME     (sizeof(struct vhca_wire_hdr) + \
                                 VHCA_WIRE_MAX_PAYLOAD)
#define VHCA_WIRE_SM_LID        1               /* the embedded SMs (switch, fabric) */
#define VHCA_WIRE_GSI_QKEY      0x80010000u     /* IBA 13.5.3.4 */

enum vhca_wire_kind {
    VHCA_WIRE_HELLO = 1,        /* port -> switch: its node (payload) */
    VHCA_WIRE_LINK = 2,         /* switch's SM -> port: LID, SM LID, state;
                                 * port -> switch: DOWN (its link went) */
    VHCA_WIRE_REQUEST = 3,      /* RC/UC request message */
    VHCA_WIRE_RESPONSE = 4,     /* RC ACK/NAK, READ response, atomic ACK */
    VHCA_WIRE_DATAGRAM = 5,     /* UD, GSI, SMI; multicast by DLID */
};

/* RESPONSE syndromes (IBA 9.7.5.2 AETH, as the device's VhcaAck). */
enum vhca_wire_syndrome {
    VHCA_WIRE_ACK = 0,
    VHCA_WIRE_NAK_RNR = 1,
    VHCA_WIRE_NAK_INV_REQ = 2,
    VHCA_WIRE_NAK_REM_ACCESS = 3,
    VHCA_WIRE_NAK_REM_OP = 4,
    VHCA_WIRE_NAK_SEQ = 5,
    VHCA_WIRE_SYNDROME_MAX = VHCA_WIRE_NAK_SEQ,
};

#define VHCA_WIRE_F_SOLICITED   (1u << 0)       /* BTH SE */
#define VHCA_WIRE_F_GRH         (1u << 1)       /* a GRH: the fields below */
#define VHCA_WIRE_F_IMM         (1u << 2)       /* imm_inv is ImmDt */
#define VHCA_WIRE_F_INV         (1u << 3)       /* imm_inv is an IETH R_Key */
#define VHCA_WIRE_F_ALL         0x0fu
/*
 * LINK: the SM is new to the subnet (it took it over, or was handed it)
 * and sets the port again with ClientReregister (IBA 14.4.11).
 */
#define VHCA_WIRE_LINK_F_REREG  VHCA_WIRE_F_SOLICITED

struct vhca_wire_hdr {
    vhca_le32   magic;
    uint8_t     version;
    uint8_t     kind;           /* enum vhca_wire_kind */
    uint8_t     opcode;         /* enum vhca_wqe_opcode; LINK: port state */
    uint8_t     syndrome;       /* RESPONSE: enum vhca_wire_syndrome */
    vhca_le16   slid;
    vhca_le16   dlid;
    vhca_le32   src_qpn;
    vhca_le32   dst_qpn;
    vhca_le32   psn;            /* RESPONSE: the request's PSN */
    vhca_le32   packets;        /* PSNs the message uses */
    vhca_le32   length;         /* message length */
    vhca_le32   payload_len;    /* bytes after the header */
    vhca_le32   imm_inv;        /* wire order, as the guest wrote it */
    vhca_le32   rkey;
    vhca_le32   qkey;
    vhca_le32   nak_psn;        /* RESPONSE: sequence error NAK's ePSN */
    vhca_le32   offset;         /* where the payload sits in the message */
    vhca_le64   remote_addr;
    vhca_le64   compare_add;    /* RESPONSE: the atomic's original value;
                                 * FLUSH request: the RETH's length */
    vhca_le64   swap;           /* FLUSH request: the FETH (VHCA_FETH) */
    vhca_le64   src_guid;       /* the sender port's GUID (its GID[0]) */
    uint8_t     sl;
    uint8_t     flags;          /* VHCA_WIRE_F_* */
    uint8_t     rnr_timer;      /* RESPONSE RNR NAK: the responder's timer */
    uint8_t     qp_type;        /* the sender QP's enum vhca_qp_type */
    uint8_t     traffic_class;
    uint8_t     hop_limit;
    vhca_le16   rsvd;
    vhca_le32   flow_label;
    vhca_le32   xrc_srqn;       /* REQUEST of an XRC initiator: [23:0] the
                                 * XRCETH's SRQ number (IBA A14.3.1) */
    uint8_t     dgid[16];
};
VHCA_SIZE_CHECK(struct vhca_wire_hdr, 120);

/* HELLO payload: the node as its SMA describes it, seen from this port. */
struct vhca_wire_hello {
    vhca_le64   node_guid;
    vhca_le64   sys_image_guid;
    vhca_le64   port_guid;
    vhca_le32   vendor_id;
    vhca_le32   revision;
    vhca_le32   cap_mask;
    vhca_le16   device_id;
    uint8_t     num_ports;
    uint8_t     local_port;
    uint8_t     node_desc[VHCA_NODE_DESC_LEN];
};
VHCA_SIZE_CHECK(struct vhca_wire_hello, 40 + VHCA_NODE_DESC_LEN);

#endif /* VHCA_HW_WIRE_H */
