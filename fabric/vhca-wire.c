/*
 * vhca - parsing and encoding of the frames between a cabled port and the
 * switch (the format: vhca-wire.h).  Pure: bytes in, a decoded frame or the
 * reason it is refused out; fuzzed by fuzz/fuzz_wire.c.  Built into QEMU
 * and into the standalone switch (tools/vhca-switch*.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-wire.h"

/* A data frame carries the segment of its message at offset. */
static const char *vhca_wire_check_segment(const VhcaWireFrame *f)
{
    if (f->offset % VHCA_WIRE_MAX_PAYLOAD ||
        (f->offset && f->offset >= f->length)) {
        return "segment offset";
    }
    return f->payload_len == vhca_wire_segment_len(f->length, f->offset) ?
           NULL : "payload is not the message's segment";
}

/* The payload each kind must carry (the header has been decoded). */
static const char *vhca_wire_check_payload(const VhcaWireFrame *f)
{
    switch (f->kind) {
    case VHCA_WIRE_HELLO:
        return f->payload_len == sizeof(struct vhca_wire_hello) ? NULL
               : "HELLO payload size";
    case VHCA_WIRE_LINK:
        if (f->payload_len) {
            return "LINK with a payload";
        }
        return f->opcode >= VHCA_PORT_DOWN && f->opcode <= VHCA_PORT_ACTIVE ?
               NULL : "LINK port state";
    case VHCA_WIRE_REQUEST:
    case VHCA_WIRE_DATAGRAM:
        if (!vhca_wqe_goes_on_wire(f->opcode)) {
            return "opcode";
        }
        if (f->kind == VHCA_WIRE_DATAGRAM &&
            f->length > VHCA_WIRE_MAX_PAYLOAD) {
            return "datagram in segments";
        }
        if (!vhca_wqe_returns_data(f->opcode)) {
            return vhca_wire_check_segment(f);
        }
        if (f->kind == VHCA_WIRE_DATAGRAM) {
            return "READ/atomic as a datagram";
        }
        return f->payload_len == 0 && f->offset == 0 ? NULL
               : "READ/atomic request with data";
    case VHCA_WIRE_RESPONSE:
        if (f->syndrome > VHCA_WIRE_SYNDROME_MAX) {
            return "syndrome";
        }
        if (f->opcode == VHCA_WQE_RDMA_READ && f->syndrome == VHCA_WIRE_ACK) {
            return vhca_wire_check_segment(f);
        }
        return f->payload_len == 0 && f->offset == 0 ? NULL
               : "response with data";
    default:
        return "kind";
    }
}

const char *vhca_wire_parse(const uint8_t *buf, size_t len, VhcaWireFrame *f)
{
    const struct vhca_wire_hdr *h = (const void *)buf;
    struct vhca_wire_hdr hdr;

    memset(f, 0, sizeof(*f));
    if (len < sizeof(hdr)) {
        return "shorter than the header";
    }
    memcpy(&hdr, h, sizeof(hdr));
    if (vhca_le32_to_cpu(hdr.magic) != VHCA_WIRE_MAGIC) {
        return "magic";
    }
    if (hdr.version != VHCA_WIRE_VERSION) {
        return "version";
    }
    f->payload_len = vhca_le32_to_cpu(hdr.payload_len);
    if (f->payload_len > VHCA_WIRE_MAX_PAYLOAD ||
        f->payload_len != len - sizeof(hdr)) {
        return "payload length";
    }
    if (hdr.flags & ~VHCA_WIRE_F_ALL) {
        return "flags";
    }
    f->kind = hdr.kind;
    f->opcode = hdr.opcode;
    f->syndrome = hdr.syndrome;
    f->sl = hdr.sl & 0xf;
    f->flags = hdr.flags;
    f->rnr_timer = hdr.rnr_timer & 0x1f;
    f->qp_type = hdr.qp_type;
    f->traffic_class = hdr.traffic_class;
    f->hop_limit = hdr.hop_limit;
    f->slid = vhca_le16_to_cpu(hdr.slid);
    f->dlid = vhca_le16_to_cpu(hdr.dlid);
    f->src_qpn = vhca_le32_to_cpu(hdr.src_qpn) & VHCA_DB_OBJ_MASK;
    f->dst_qpn = vhca_le32_to_cpu(hdr.dst_qpn) & VHCA_DB_OBJ_MASK;
    f->psn = vhca_le32_to_cpu(hdr.psn) & VHCA_DB_OBJ_MASK;
    f->packets = vhca_le32_to_cpu(hdr.packets);
    f->length = vhca_le32_to_cpu(hdr.length);
    f->imm_inv = hdr.imm_inv;
    f->rkey = vhca_le32_to_cpu(hdr.rkey);
    f->qkey = vhca_le32_to_cpu(hdr.qkey);
    f->nak_psn = vhca_le32_to_cpu(hdr.nak_psn) & VHCA_DB_OBJ_MASK;
    f->offset = vhca_le32_to_cpu(hdr.offset);
    f->flow_label = vhca_le32_to_cpu(hdr.flow_label) & 0xfffff;
    f->xrc_srqn = vhca_le32_to_cpu(hdr.xrc_srqn) & VHCA_DB_OBJ_MASK;
    f->remote_addr = vhca_le64_to_cpu(hdr.remote_addr);
    f->compare_add = vhca_le64_to_cpu(hdr.compare_add);
    f->swap = vhca_le64_to_cpu(hdr.swap);
    f->src_guid = vhca_le64_to_cpu(hdr.src_guid);
    memcpy(f->dgid, hdr.dgid, sizeof(f->dgid));
    f->payload = buf + sizeof(hdr);
    if (f->length > VHCA_WIRE_MAX_MESSAGE) {
        return "message length";
    }
    if (f->offset && f->kind != VHCA_WIRE_REQUEST &&
        f->kind != VHCA_WIRE_RESPONSE) {
        return "segment of a kind that has none";
    }
    if ((f->kind == VHCA_WIRE_REQUEST || f->kind == VHCA_WIRE_RESPONSE) &&
        (f->packets == 0 || f->packets > f->length / 256 + 1)) {
        return "packet count";      /* at least one, at most 256-byte MTU */
    }
    return vhca_wire_check_payload(f);
}

void vhca_wire_encode(const VhcaWireFrame *f, struct vhca_wire_hdr *hdr)
{
    memset(hdr, 0, sizeof(*hdr));
    hdr->magic = vhca_cpu_to_le32(VHCA_WIRE_MAGIC);
    hdr->version = VHCA_WIRE_VERSION;
    hdr->kind = f->kind;
    hdr->opcode = f->opcode;
    hdr->syndrome = f->syndrome;
    hdr->slid = vhca_cpu_to_le16(f->slid);
    hdr->dlid = vhca_cpu_to_le16(f->dlid);
    hdr->src_qpn = vhca_cpu_to_le32(f->src_qpn);
    hdr->dst_qpn = vhca_cpu_to_le32(f->dst_qpn);
    hdr->psn = vhca_cpu_to_le32(f->psn);
    hdr->packets = vhca_cpu_to_le32(f->packets);
    hdr->length = vhca_cpu_to_le32(f->length);
    hdr->payload_len = vhca_cpu_to_le32(f->payload_len);
    hdr->imm_inv = f->imm_inv;
    hdr->rkey = vhca_cpu_to_le32(f->rkey);
    hdr->qkey = vhca_cpu_to_le32(f->qkey);
    hdr->nak_psn = vhca_cpu_to_le32(f->nak_psn);
    hdr->offset = vhca_cpu_to_le32(f->offset);
    hdr->remote_addr = vhca_cpu_to_le64(f->remote_addr);
    hdr->compare_add = vhca_cpu_to_le64(f->compare_add);
    hdr->swap = vhca_cpu_to_le64(f->swap);
    hdr->src_guid = vhca_cpu_to_le64(f->src_guid);
    hdr->sl = f->sl;
    hdr->flags = f->flags;
    hdr->rnr_timer = f->rnr_timer;
    hdr->qp_type = f->qp_type;
    hdr->traffic_class = f->traffic_class;
    hdr->hop_limit = f->hop_limit;
    hdr->flow_label = vhca_cpu_to_le32(f->flow_label);
    hdr->xrc_srqn = vhca_cpu_to_le32(f->xrc_srqn);
    memcpy(hdr->dgid, f->dgid, sizeof(hdr->dgid));
}

const char *vhca_wire_hello_parse(const VhcaWireFrame *f, VhcaWireHello *h)
{
    struct vhca_wire_hello in;

    if (f->kind != VHCA_WIRE_HELLO || f->payload_len != sizeof(in)) {
        return "not a HELLO";
    }
    memcpy(&in, f->payload, sizeof(in));
    h->node_guid = vhca_le64_to_cpu(in.node_guid);
    h->sys_image_guid = vhca_le64_to_cpu(in.sys_image_guid);
    h->port_guid = vhca_le64_to_cpu(in.port_guid);
    h->vendor_id = vhca_le32_to_cpu(in.vendor_id) & 0xffffff;
    h->revision = vhca_le32_to_cpu(in.revision);
    h->cap_mask = vhca_le32_to_cpu(in.cap_mask);
    h->device_id = vhca_le16_to_cpu(in.device_id);
    h->num_ports = in.num_ports;
    h->local_port = in.local_port;
    memcpy(h->node_desc, in.node_desc, sizeof(h->node_desc));
    if (h->num_ports < 1 || h->num_ports > VHCA_MAX_PORTS ||
        h->local_port < 1 || h->local_port > h->num_ports) {
        return "HELLO port numbers";
    }
    if (h->port_guid == 0) {
        return "HELLO port GUID 0";
    }
    return NULL;
}

void vhca_wire_hello_encode(const VhcaWireHello *h,
                            struct vhca_wire_hello *out)
{
    memset(out, 0, sizeof(*out));
    out->node_guid = vhca_cpu_to_le64(h->node_guid);
    out->sys_image_guid = vhca_cpu_to_le64(h->sys_image_guid);
    out->port_guid = vhca_cpu_to_le64(h->port_guid);
    out->vendor_id = vhca_cpu_to_le32(h->vendor_id);
    out->revision = vhca_cpu_to_le32(h->revision);
    out->cap_mask = vhca_cpu_to_le32(h->cap_mask);
    out->device_id = vhca_cpu_to_le16(h->device_id);
    out->num_ports = h->num_ports;
    out->local_port = h->local_port;
    memcpy(out->node_desc, h->node_desc, sizeof(out->node_desc));
}

bool vhca_wire_packets(const VhcaWireFrame *f, uint32_t *packets,
                       uint64_t *payload, bool *multicast)
{
    *multicast = f->dlid >= VHCA_MIN_MLID && f->dlid != 0xffff;
    *payload = f->payload_len;
    *packets = f->offset ? 0 : MAX(f->packets, 1);
    switch (f->kind) {
    case VHCA_WIRE_DATAGRAM:
        *packets = 1;
        *payload += 8;                              /* DETH */
        return true;
    case VHCA_WIRE_REQUEST:
        if (vhca_wqe_returns_data(f->opcode)) {
            *packets = 1;
        }
        return true;
    case VHCA_WIRE_RESPONSE:
        if (f->length == 0 || f->syndrome || f->opcode != VHCA_WQE_RDMA_READ) {
            *packets = 1;
        }
        return true;
    default:
        return false;
    }
}
