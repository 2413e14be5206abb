/*
 * vhca - the fabric's wire as the device and the standalone switch parse
 * it: the frame format is uapi/vhca_hw_wire.h; this header adds the decoded
 * frame (host order) and the parser and encoder of vhca-wire.c (fuzzed by
 * fuzz/fuzz_wire.c).  Every frame is untrusted input at both ends.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_WIRE_H
#define HW_INFINIBAND_VHCA_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "vhca_hw_wire.h"

/* A frame that passed vhca_wire_parse(), in host order. */
typedef struct VhcaWireFrame {
    uint8_t kind;
    uint8_t opcode;
    uint8_t syndrome;
    uint8_t sl;
    uint8_t flags;
    uint8_t rnr_timer;
    uint8_t qp_type;
    uint8_t traffic_class;
    uint8_t hop_limit;
    uint16_t slid;
    uint16_t dlid;
    uint32_t src_qpn;
    uint32_t dst_qpn;
    uint32_t psn;
    uint32_t packets;
    uint32_t length;
    uint32_t imm_inv;
    uint32_t rkey;
    uint32_t qkey;
    uint32_t nak_psn;
    uint32_t offset;            /* of the payload in the message */
    uint32_t flow_label;
    uint32_t xrc_srqn;
    uint64_t remote_addr;
    uint64_t compare_add;
    uint64_t swap;
    uint64_t src_guid;
    uint8_t dgid[16];
    const uint8_t *payload;     /* into the buffer given to the parser */
    uint32_t payload_len;
} VhcaWireFrame;

/* The payload of the segment at offset of a message of length bytes. */
static inline uint32_t vhca_wire_segment_len(uint32_t length, uint32_t offset)
{
    return length - offset < VHCA_WIRE_MAX_PAYLOAD ? length - offset
                                                   : VHCA_WIRE_MAX_PAYLOAD;
}

/*
 * The IB packets a frame stands for, for the port counters (vhca-pma.h):
 * false for the switch's HELLO and LINK (no IB packets).  A segment
 * counts its payload, and the message's packets with its first segment; a
 * READ or atomic request, an ACK, NAK or atomic ACK is one packet; a
 * datagram's payload includes its DETH.
 */
bool vhca_wire_packets(const VhcaWireFrame *f, uint32_t *packets,
                       uint64_t *payload, bool *multicast);

/*
 * Check len bytes from the wire and decode them into *f.  Returns NULL, or
 * why the frame is refused (the caller drops it and says so).
 */
const char *vhca_wire_parse(const uint8_t *buf, size_t len, VhcaWireFrame *f);

/* Encode f's header into hdr (payload_len from f); the payload follows. */
void vhca_wire_encode(const VhcaWireFrame *f, struct vhca_wire_hdr *hdr);

/* HELLO payload to and from a VhcaSmaNode-like description. */
typedef struct VhcaWireHello {
    uint64_t node_guid;
    uint64_t sys_image_guid;
    uint64_t port_guid;
    uint32_t vendor_id;
    uint32_t revision;
    uint32_t cap_mask;
    uint16_t device_id;
    uint8_t num_ports;
    uint8_t local_port;
    uint8_t node_desc[VHCA_NODE_DESC_LEN];
} VhcaWireHello;

const char *vhca_wire_hello_parse(const VhcaWireFrame *f, VhcaWireHello *h);
void vhca_wire_hello_encode(const VhcaWireHello *h,
                            struct vhca_wire_hello *out);

#endif /* HW_INFINIBAND_VHCA_WIRE_H */
