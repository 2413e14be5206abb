/*
 * vhca - a port cabled out of its QEMU process (Documentation/fabric.md).
 *
 * A port whose `portN-netdev` property names a QEMU netdev (for several
 * VMs: `-netdev stream` to the standalone switch, tools/vhca-switch*.c) is
 * not on an in-process fabric: every message whose DLID is not a port of
 * this process leaves as a frame (vhca-wire.h) through its own NIC queue,
 * one NIC per port as hw/net/rocker gives each front-panel port its own.
 *
 * - Link: while the port is INIT it sends HELLO (its node as the SMA
 *   describes it) every VHCA_LINK_HELLO_MS; the switch's SM answers LINK
 *   with the LID and SM LID, and the port goes ACTIVE (vhca-fabric.c).
 *   When it goes down with the cable in, it sends LINK with state DOWN.
 * - RC requester: requests leave as REQUEST frames, up to rc-window in
 *   flight (vhca-rc-window.c); each RESPONSE that comes back goes to the
 *   QP's window, which completes WQEs in order, resends from a NAK'd PSN,
 *   and after a local ACK timeout goes back to the oldest unanswered
 *   request.  The responder's PSN checks make a resend a duplicate.
 * - RC/UC/XRC responder: a REQUEST runs through vhca_rc_receive()/
 *   vhca_respond() with the frame's payload as the requester's memory and
 *   a picture of the remote QP and port (VhcaLinkSource) as its source.
 * - Datagrams (UD, GSI, SMI, multicast) leave as DATAGRAM frames and are
 *   delivered like local ones on arrival; the switch's SA answers GSI
 *   messages to LID 1, QPN 1.
 *
 * - A message longer than one frame's payload leaves in segments
 *   (vhca_link_send_message) and is put together on arrival
 *   (vhca-link-reasm.c) before any of the above sees it.
 *
 * Every frame is parsed by vhca_wire_parse() and checked against the
 * port's state before it touches a QP; a refused frame is dropped with a
 * trace event and LOG_GUEST_ERROR.  All of it runs with the BQL held (the
 * netdev's receive callback runs in the main loop).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "vhca-link.h"
#include "vhca-link-reasm.h"
#include "vhca-port-faults.h"
#include "vhca-port-capture.h"
#include "vhca-port-fault-rules.h"
#include "vhca-switch-sma.h"
#include "vhca-wire.h"
#include "trace.h"

#define VHCA_LINK_HELLO_MS      200

/* The remote requester, as the responder code wants to see it. */
typedef struct VhcaLinkSource {
    VhcaQp qp;
    VhcaPort port;
} VhcaLinkSource;

struct VhcaLink {
    VhcaPort *port;
    NICState *nic;
    QEMUTimer *hello_timer;
    QEMUTimer *watch_timer;     /* is the netdev still connected? */
    VhcaReasm *reasm;           /* messages arriving in segments */
    VhcaLinkSource src;
};

static void vhca_link_drop(VhcaPort *port, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: port %u: frame from the wire "
                  "dropped: %s\n", port->num, why);
    trace_vhca_link_drop(port->num, why);
}

bool vhca_link_cabled(const VhcaPort *port)
{
    return port->link != NULL;
}

/* ---- sending ------------------------------------------------------------ */

/* A frame in the port counters (vhca-pma-hook.c). */
static void vhca_link_count(VhcaPort *port, const VhcaWireFrame *f, bool rx)
{
    uint32_t packets;
    uint64_t payload;
    bool multicast;

    if (vhca_wire_packets(f, &packets, &payload, &multicast)) {
        vhca_port_count(port, rx, packets, payload, multicast);
    }
}

void vhca_link_send(VhcaPort *port, VhcaWireFrame *f,
                    const uint8_t *payload, uint32_t payload_len)
{
    size_t len = sizeof(struct vhca_wire_hdr) + payload_len;
    g_autofree uint8_t *buf = g_malloc(len);

    f->payload_len = payload_len;
    vhca_wire_encode(f, (struct vhca_wire_hdr *)buf);
    if (payload_len) {
        memcpy(buf + sizeof(struct vhca_wire_hdr), payload, payload_len);
    }
    trace_vhca_link_tx(port->num, f->kind, f->slid, f->dlid, f->dst_qpn,
                       f->psn, payload_len);
    vhca_link_count(port, f, false);
    f->payload = payload;       /* for the capture and the fault rules */
    if (unlikely(port->capture)) {
        vhca_port_capture_frame(port, f, true);
    }
    if (f->kind == VHCA_WIRE_HELLO || f->kind == VHCA_WIRE_LINK) {
        vhca_link_put(port, buf, len);      /* training: no faults */
    } else if (likely(!vhca_fault_rules_active(port->dev->fault_rules)) ||
               !vhca_fault_rules_egress(port, f, buf, len)) {
        vhca_port_faults_egress(port, buf, len);
    }
}

/* One encoded frame onto the port's netdev. */
void vhca_link_put(VhcaPort *port, const uint8_t *frame, uint32_t len)
{
    if (port->link) {
        qemu_send_packet(qemu_get_queue(port->link->nic), frame, len);
    }
}

/* A message in as many frames as it needs (vhca-wire.h), one if short. */
static void vhca_link_send_message(VhcaPort *port, VhcaWireFrame *f,
                                   const uint8_t *data, uint32_t len)
{
    uint32_t offset = 0;

    do {
        f->offset = offset;
        vhca_link_send(port, f, data ? data + offset : NULL,
                       vhca_wire_segment_len(len, offset));
        offset += VHCA_WIRE_MAX_PAYLOAD;
    } while (offset < len);
}

static void vhca_link_hello(void *opaque)
{
    VhcaPort *port = opaque;
    struct vhca_wire_hello out;
    VhcaWireFrame f = { .kind = VHCA_WIRE_HELLO };
    VhcaWireHello h;
    VhcaSmaNode node;

    if (port->state != VHCA_PORT_INIT || !vhca_is_enabled(port->dev)) {
        return;
    }
    vhca_sma_describe(port->dev, port->num, &node);
    memset(&h, 0, sizeof(h));
    h.node_guid = node.node_guid;
    h.sys_image_guid = node.sys_image_guid;
    h.port_guid = port->guid;
    h.vendor_id = node.vendor_id;
    h.revision = node.revision;
    h.cap_mask = node.ports[port->num - 1].cap_mask;
    h.device_id = node.device_id;
    h.num_ports = node.num_ports;
    h.local_port = port->num;
    memcpy(h.node_desc, node.node_desc, sizeof(h.node_desc));
    vhca_wire_hello_encode(&h, &out);
    f.src_guid = port->guid;
    vhca_link_send(port, &f, (const uint8_t *)&out, sizeof(out));
    timer_mod(port->link->hello_timer,
              qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) + VHCA_LINK_HELLO_MS);
}

void vhca_link_port_init(VhcaPort *port)
{
    vhca_link_hello(port);
}

/*
 * The port's link went down with the cable in (a device reset or fatal
 * error, portN-link off, an SM's Set to Down): a LINK frame with state
 * DOWN takes the switch's port DOWN as a pulled cable does, so its next
 * HELLO is a link change the switch's SM or opensm (Trap 128) sees.
 */
void vhca_link_port_down(VhcaPort *port)
{
    VhcaWireFrame f = { .kind = VHCA_WIRE_LINK, .opcode = VHCA_PORT_DOWN };

    f.src_guid = port->guid;
    vhca_link_send(port, &f, NULL, 0);
}

/*
 * QEMU 7.2's stream netdev tells its peer nothing when its connection goes
 * or comes back (it only sets its own link_down), so the port looks: a lost
 * connection takes it DOWN, a new one (a netdev with server=on that the
 * switch connects to again) brings it back through INIT.
 */
static void vhca_link_watch(void *opaque)
{
    VhcaPort *port = opaque;
    NetClientState *peer = qemu_get_queue(port->link->nic)->peer;
    bool up = peer && !peer->link_down;

    if (!up && port->state != VHCA_PORT_DOWN) {
        trace_vhca_link_carrier(port->num, false);
        vhca_port_carrier(port, false);
    } else if (up && port->state == VHCA_PORT_DOWN) {
        trace_vhca_link_carrier(port->num, true);
        vhca_port_carrier(port, true);
    }
    timer_mod(port->link->watch_timer,
              qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) + VHCA_LINK_HELLO_MS);
}

static void vhca_link_frame_from_qp(VhcaQp *qp, VhcaPacket *pkt,
                                    VhcaWireFrame *f)
{
    const VhcaSendWqe *wqe = pkt->wqe;

    f->opcode = wqe->opcode;
    f->slid = pkt->src_port->lid;
    f->src_qpn = qp->qpn;
    f->length = wqe->length;
    f->imm_inv = wqe->imm_inv;
    f->qp_type = qp->type;
    f->src_guid = pkt->src_port->guid;
    if (wqe->flags & VHCA_WQE_F_SOLICITED) {
        f->flags |= VHCA_WIRE_F_SOLICITED;
    }
}

/* The message bytes of a SEND/WRITE, or NULL (then *ack says why). */
static uint8_t *vhca_link_payload(VhcaQp *qp, VhcaPacket *pkt, VhcaAck *ack)
{
    uint64_t len = pkt->wqe->length;
    uint8_t *data;

    if (len > VHCA_WIRE_MAX_MESSAGE) {
        qemu_log_mask(LOG_UNIMP, "vhca: QP 0x%x message of %" PRIu64 " bytes "
                      "to another process: at most %u\n", qp->handle, len,
                      VHCA_WIRE_MAX_MESSAGE);
        *ack = VHCA_NAK_INV_REQ;
        return NULL;
    }
    data = g_malloc(MAX(len, 1));
    if (vhca_sgl_read(pkt->local, data, len) != VHCA_VERR_NONE) {
        g_free(data);
        *ack = VHCA_NAK_REM_OP;
        return NULL;
    }
    return data;
}

/* An RC/UC request of a send WQE leaves.  Returns false on error. */
bool vhca_link_send_request(VhcaQp *qp, VhcaPacket *pkt, VhcaAck *ack)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    VhcaWireFrame f = { .kind = VHCA_WIRE_REQUEST };
    g_autofree uint8_t *data = NULL;
    bool reads = vhca_wqe_returns_data(wqe->opcode);

    if (!reads) {
        data = vhca_link_payload(qp, pkt, ack);
        if (!data) {
            return false;
        }
    } else if (wqe->length > VHCA_WIRE_MAX_MESSAGE) {
        *ack = VHCA_NAK_INV_REQ;
        return false;
    }
    vhca_link_frame_from_qp(qp, pkt, &f);
    f.dlid = le16_to_cpu(qp->av.dlid);
    f.dst_qpn = qp->dest_qpn;
    f.sl = qp->av.sl;
    f.psn = pkt->psn;
    f.packets = pkt->packets;
    f.rkey = wqe->rkey;
    f.remote_addr = wqe->remote_addr;
    f.compare_add = wqe->compare_add;
    f.swap = wqe->swap;
    f.xrc_srqn = wqe->xrc_srqn;
    vhca_link_send_message(pkt->src_port, &f, data, reads ? 0 : wqe->length);
    return true;
}

/* UC: the message leaves; nobody answers. */
void vhca_link_uc_send(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt)
{
    VhcaAck ack;

    pkt->psn = qp->sq_psn;
    if (pkt->src_port->state == VHCA_PORT_ACTIVE) {
        vhca_link_send_request(qp, pkt, &ack);
    }
}

/* A UD/GSI/SMI message leaves.  Returns false when the port is not cabled. */
bool vhca_link_send_datagram(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    VhcaWireFrame f = { .kind = VHCA_WIRE_DATAGRAM };
    g_autofree uint8_t *data = NULL;
    VhcaAck ack;

    if (!vhca_link_cabled(pkt->src_port)) {
        return false;
    }
    if (pkt->src_port->state != VHCA_PORT_ACTIVE &&
        (qp->type != VHCA_QPT_SMI || pkt->src_port->state == VHCA_PORT_DOWN)) {
        /* IBA 7.2: INIT and ARMED ports send SMPs only */
        pkt->src_port->counters.xmit_discards++;
        return true;                /* no link: lost */
    }
    data = vhca_link_payload(qp, pkt, &ack);
    if (!data) {
        return true;
    }
    vhca_link_frame_from_qp(qp, pkt, &f);
    f.opcode = wqe->opcode == VHCA_WQE_SEND_WITH_IMM ? VHCA_WQE_SEND_WITH_IMM
                                                     : VHCA_WQE_SEND;
    f.dlid = le16_to_cpu(wqe->av.dlid);
    f.dst_qpn = wqe->remote_qpn & VHCA_DB_OBJ_MASK;
    f.qkey = wqe->remote_qkey & 0x80000000u ? qp->qkey : wqe->remote_qkey;
    f.sl = wqe->av.sl;
    f.packets = 1;
    if (wqe->av.flags & VHCA_AV_F_GRH) {
        f.flags |= VHCA_WIRE_F_GRH;
        f.traffic_class = wqe->av.traffic_class;
        f.hop_limit = wqe->av.hop_limit;
        f.flow_label = le32_to_cpu(wqe->av.flow_label) & 0xfffff;
        memcpy(f.dgid, wqe->av.dgid, sizeof(f.dgid));
    }
    vhca_link_send(pkt->src_port, &f, data, wqe->length);
    return true;
}

void vhca_link_forget(VhcaQp *qp)
{
    VhcaState *s = qp->dev;
    int i;

    for (i = 0; s && i < s->num_ports; i++) {
        if (s->ports[i].link) {
            vhca_reasm_forget(s->ports[i].link->reasm, qp->qpn);
        }
    }
}

/* ---- receiving ------------------------------------------------------------ */

/* The request or datagram f as a packet from a remote QP. */
static void vhca_link_packet(VhcaLink *link, const VhcaWireFrame *f,
                             VhcaSendWqe *wqe, VhcaSgl *data, VhcaPacket *pkt)
{
    VhcaLinkSource *src = &link->src;

    memset(src, 0, sizeof(*src));
    src->qp.qpn = f->src_qpn;
    src->qp.type = f->qp_type;
    src->qp.qkey = f->qkey;
    src->qp.av.sl = f->sl;
    src->port.lid = f->slid;
    src->port.guid = f->src_guid;
    src->port.num = link->port->num;
    src->port.dev = link->port->dev;

    memset(wqe, 0, sizeof(*wqe));
    wqe->opcode = f->opcode;
    wqe->flags = f->flags & VHCA_WIRE_F_SOLICITED ? VHCA_WQE_F_SOLICITED : 0;
    wqe->imm_inv = f->imm_inv;
    wqe->length = f->length;
    wqe->remote_addr = f->remote_addr;
    wqe->rkey = f->rkey;
    wqe->compare_add = f->compare_add;
    wqe->swap = f->swap;
    wqe->xrc_srqn = f->xrc_srqn;
    wqe->remote_qkey = f->qkey;
    wqe->remote_qpn = f->dst_qpn;
    wqe->av.dlid = cpu_to_le16(f->dlid);
    wqe->av.sl = f->sl;
    if (f->flags & VHCA_WIRE_F_GRH) {
        wqe->av.flags = VHCA_AV_F_GRH;
        wqe->av.traffic_class = f->traffic_class;
        wqe->av.hop_limit = f->hop_limit;
        wqe->av.flow_label = cpu_to_le32(f->flow_label);
        memcpy(wqe->av.dgid, f->dgid, sizeof(wqe->av.dgid));
    }

    memset(pkt, 0, sizeof(*pkt));
    pkt->src_qp = &src->qp;
    pkt->src_port = &src->port;
    pkt->dst_port = link->port;
    pkt->wqe = wqe;
    pkt->local = data;
    pkt->packets = MAX(f->packets, 1);
    pkt->psn = f->psn;
}

static void vhca_link_respond(VhcaLink *link, const VhcaWireFrame *req,
                              VhcaAck ack, const VhcaPacket *pkt,
                              const uint8_t *data)
{
    VhcaWireFrame f = {
        .kind = VHCA_WIRE_RESPONSE,
        .opcode = req->opcode,
        .syndrome = ack,
        .slid = link->port->lid,
        .dlid = req->slid,
        .src_qpn = req->dst_qpn,
        .dst_qpn = req->src_qpn,
        .psn = req->psn,
        .packets = MAX(req->packets, 1),
        .length = req->length,
        .nak_psn = pkt->nak_psn,
        .rnr_timer = pkt->rnr_timer,
        .compare_add = pkt->atomic_orig,
        .qp_type = VHCA_QPT_RC,
        .src_guid = link->port->guid,
    };
    bool read_data = ack == VHCA_ACK && req->opcode == VHCA_WQE_RDMA_READ;

    QEMU_BUILD_BUG_ON(VHCA_WIRE_NAK_SEQ != (int)VHCA_NAK_SEQ);
    vhca_link_send_message(link->port, &f, read_data ? data : NULL,
                           read_data ? req->length : 0);
}

/* An RC/UC request for a QP of this port. */
static void vhca_link_rx_request(VhcaLink *link, const VhcaWireFrame *f)
{
    VhcaState *s = link->port->dev;
    VhcaQp *dqp = vhca_qp_by_qpn(s, link->port->num, f->dst_qpn);
    g_autofree uint8_t *read_buf = NULL;
    VhcaSendWqe wqe;
    VhcaPacket pkt;
    VhcaSgl data;
    VhcaAck ack;

    if (!dqp || dqp->type != vhca_qpt_peer(f->qp_type) ||
        (dqp->type != VHCA_QPT_RC && dqp->type != VHCA_QPT_UC &&
         dqp->type != VHCA_QPT_XRC_TGT) ||
        !vhca_qp_receives(dqp) || dqp->dest_qpn != f->src_qpn ||
        le16_to_cpu(dqp->av.dlid) != f->slid) {
        /* IBA 9.6: not for a connected QP of this port; the requester
         * times out. */
        vhca_link_drop(link->port, "request for no connected QP");
        return;
    }
    if (f->opcode == VHCA_WQE_RDMA_READ) {
        read_buf = g_malloc(MAX(f->length, 1));
        vhca_sgl_host(s, NULL, f->length, &data);
        data.host_out = read_buf;
    } else {
        vhca_sgl_host(s, f->payload, f->payload_len, &data);
    }
    vhca_link_packet(link, f, &wqe, &data, &pkt);
    if (dqp->type == VHCA_QPT_UC) {
        vhca_respond(s, dqp, &pkt);
        return;
    }
    ack = vhca_rc_receive(s, dqp, &pkt);
    if (ack != VHCA_NO_PEER && vhca_is_enabled(s) &&
        link->port->state == VHCA_PORT_ACTIVE) {
        vhca_link_respond(link, f, ack, &pkt, read_buf);
    }
}

/* An answer for one of the requests in flight (vhca-rc-window.c). */
static void vhca_link_rx_window(VhcaState *s, VhcaQp *qp,
                                const VhcaWireFrame *f)
{
    VhcaRcAnswer a = {
        .psn = f->psn,
        .ack = (VhcaAck)f->syndrome,
        .rnr_timer = f->rnr_timer,
        .nak_psn = f->nak_psn,
        .atomic_orig = f->compare_add,
        .data = f->payload,
        .len = f->payload_len,
    };

    /* READ data lands by DMA: a doorbell it hits defers (vhca_sq_nest_*). */
    vhca_sq_nest_enter();
    vhca_rc_window_answer(s, qp, &a);
    vhca_sq_nest_leave();
}

/* An RC answer for a request a requester QP of this port sent. */
static void vhca_link_rx_response(VhcaLink *link, const VhcaWireFrame *f)
{
    VhcaState *s = link->port->dev;
    VhcaQp *qp = vhca_qp_by_qpn(s, link->port->num, f->dst_qpn);

    if (!qp || !vhca_rc_windowed(s, qp) ||
        (qp->state != VHCA_QPS_RTS && qp->state != VHCA_QPS_SQD) ||
        qp->dest_qpn != f->src_qpn || le16_to_cpu(qp->av.dlid) != f->slid) {
        vhca_link_drop(link->port, "response for no connected QP");
        return;
    }
    vhca_link_rx_window(s, qp, f);
    if (qp->valid && vhca_is_enabled(s)) {
        vhca_sq_process(s, qp, VHCA_WQE_BATCH);
    }
}

static void vhca_link_deliver_mcast(VhcaState *ds, VhcaQp *dqp, void *opaque)
{
    VhcaPacket *pkt = opaque;

    if (vhca_qp_receives(dqp) && dqp->type == VHCA_QPT_UD) {
        vhca_deliver_datagram(ds, dqp, pkt);
    }
}

static void vhca_link_rx_datagram(VhcaLink *link, const VhcaWireFrame *f)
{
    VhcaState *s = link->port->dev;
    VhcaSendWqe wqe;
    VhcaPacket pkt;
    VhcaSgl data;
    VhcaQp *dqp;

    if (f->qp_type != VHCA_QPT_UD && f->qp_type != VHCA_QPT_GSI &&
        f->qp_type != VHCA_QPT_SMI) {
        vhca_link_drop(link->port, "datagram from a connected QP type");
        return;
    }
    vhca_sgl_host(s, f->payload, f->payload_len, &data);
    vhca_link_packet(link, f, &wqe, &data, &pkt);
    if (f->dlid >= VHCA_MIN_MLID && f->dlid <= VHCA_MAX_MLID) {
        vhca_mcast_foreach(s, link->port->num, f->dlid,
                           vhca_link_deliver_mcast, &pkt);
        return;
    }
    if (vhca_link_agents_take(link->port, f, &pkt)) {
        return;                 /* the device's SMA or PMA answered it */
    }
    dqp = vhca_qp_by_qpn(s, link->port->num, f->dst_qpn);
    if (!dqp || !vhca_qp_receives(dqp) ||
        (dqp->type == VHCA_QPT_SMI) != (f->qp_type == VHCA_QPT_SMI) ||
        !vhca_qpt_is_datagram(dqp->type)) {
        trace_vhca_datagram_drop(f->dst_qpn, "no receiver on the wire");
        return;
    }
    vhca_deliver_datagram(s, dqp, &pkt);
}

/* The SM's configuration of the port (its SubnSet(PortInfo)). */
static void vhca_link_rx_link(VhcaLink *link, const VhcaWireFrame *f)
{
    VhcaPort *port = link->port;

    if (f->opcode != VHCA_PORT_ACTIVE || f->dlid == 0 ||
        f->dlid >= VHCA_MIN_MLID || f->slid == 0 || f->slid >= VHCA_MIN_MLID) {
        vhca_link_drop(port, "LINK with no unicast LID");
        return;
    }
    if (f->flags & VHCA_WIRE_LINK_F_REREG) {
        /* a new master: every port again, ClientReregister (IBA 14.4.11) */
        timer_del(link->hello_timer);
        vhca_port_reconfigure(port, f->dlid, f->slid);
    } else if (port->state == VHCA_PORT_INIT ||
               (port->state == VHCA_PORT_ACTIVE && port->lid != f->dlid)) {
        timer_del(link->hello_timer);
        vhca_port_configure(port, f->dlid, f->slid);
    }
}

static bool vhca_link_port_ready(VhcaPort *port, const VhcaWireFrame *f)
{
    if (!vhca_is_enabled(port->dev) || port->state == VHCA_PORT_DOWN) {
        return false;
    }
    if (f->kind == VHCA_WIRE_LINK) {
        return true;
    }
    if (f->kind == VHCA_WIRE_DATAGRAM && f->qp_type == VHCA_QPT_SMI &&
        (f->dlid == VHCA_LID_PERMISSIVE ||
         (port->lid && f->dlid == port->lid))) {
        return true;            /* SMPs: any live port (IBA 7.2, 14.2.2) */
    }
    return port->state == VHCA_PORT_ACTIVE &&
           (f->dlid == port->lid ||
            (f->kind == VHCA_WIRE_DATAGRAM && f->dlid >= VHCA_MIN_MLID &&
             f->dlid <= VHCA_MAX_MLID));
}

static void vhca_link_take(VhcaLink *link, const VhcaWireFrame *f)
{
    switch (f->kind) {
    case VHCA_WIRE_LINK:
        vhca_link_rx_link(link, f);
        break;
    case VHCA_WIRE_REQUEST:
        vhca_sq_nest_enter();
        vhca_link_rx_request(link, f);
        vhca_sq_nest_leave();
        break;
    case VHCA_WIRE_RESPONSE:
        vhca_link_rx_response(link, f);
        break;
    case VHCA_WIRE_DATAGRAM:
        vhca_sq_nest_enter();
        vhca_link_rx_datagram(link, f);
        vhca_sq_nest_leave();
        break;
    default:
        vhca_link_drop(link->port, "a switch's frame kind");
        break;
    }
}

/* A frame, or the message its segments make once all are there. */
static void vhca_link_dispatch(VhcaLink *link, const VhcaWireFrame *f)
{
    VhcaReasmMsg *m;
    const char *why;

    if (f->length <= VHCA_WIRE_MAX_PAYLOAD || !f->payload_len) {
        vhca_link_take(link, f);
        return;
    }
    m = vhca_reasm_add(link->reasm, f, &why);
    if (why) {
        vhca_link_drop(link->port, why);
    }
    if (m) {
        vhca_link_take(link, &m->frame);
        vhca_reasm_done(m);
    }
}

static ssize_t vhca_link_receive(NetClientState *nc, const uint8_t *buf,
                                 size_t size)
{
    VhcaLink *link = qemu_get_nic_opaque(nc);
    VhcaPort *port = link->port;
    VhcaWireFrame f;
    const char *why = vhca_wire_parse(buf, size, &f);

    if (why) {
        port->counters.rcv_errors++;    /* what a bad ICRC is on a link */
        vhca_link_drop(port, why);
        return size;
    }
    trace_vhca_link_rx(port->num, f.kind, f.slid, f.dlid, f.dst_qpn, f.psn,
                       f.payload_len);
    if (unlikely(port->capture)) {
        vhca_port_capture_frame(port, &f, false);
    }
    if (!vhca_link_port_ready(port, &f)) {
        trace_vhca_link_not_ready(port->num, f.kind, port->state);
        return size;
    }
    if (unlikely(vhca_fault_rules_active(port->dev->fault_rules)) &&
        f.kind >= VHCA_WIRE_REQUEST) {
        switch (vhca_fault_rules_ingress(port, &f)) {
        case VHCA_FAULT_DROP:
        case VHCA_FAULT_CORRUPT:
        case VHCA_FAULT_FLAP:
            return size;
        case VHCA_FAULT_DUP:
            vhca_link_count(port, &f, true);
            vhca_link_dispatch(link, &f);
            break;
        default:
            break;
        }
    }
    vhca_link_count(port, &f, true);
    vhca_link_dispatch(link, &f);
    return size;
}

static NetClientInfo vhca_link_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .receive = vhca_link_receive,
};

void vhca_link_attach(VhcaPort *port, NICConf *conf)
{
    VhcaState *s = port->dev;
    DeviceState *dev = DEVICE(s);
    VhcaLink *link = g_new0(VhcaLink, 1);

    link->port = port;
    link->reasm = vhca_reasm_new();
    link->hello_timer = timer_new_ms(QEMU_CLOCK_VIRTUAL, vhca_link_hello,
                                     port);
    link->watch_timer = timer_new_ms(QEMU_CLOCK_VIRTUAL, vhca_link_watch,
                                     port);
    qemu_macaddr_default_if_unset(&conf->macaddr);
    link->nic = qemu_new_nic(&vhca_link_info, conf,
                             object_get_typename(OBJECT(s)), dev->id,
                             &dev->mem_reentrancy_guard, link);
    port->link = link;
    vhca_port_trap_init(port);          /* Trap 144 out of the cable */
    timer_mod(link->watch_timer,
              qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) + VHCA_LINK_HELLO_MS);
}

void vhca_link_detach(VhcaPort *port)
{
    VhcaLink *link = port->link;

    if (!link) {
        return;
    }
    vhca_trap_fini(&port->trap);
    vhca_port_faults_free(port);
    qemu_del_nic(link->nic);
    timer_free(link->hello_timer);
    timer_free(link->watch_timer);
    vhca_reasm_free(link->reasm);
    g_free(link);
    port->link = NULL;
}
