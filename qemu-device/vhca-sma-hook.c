/*
 * vhca - the hook between the requester and the Subnet Management Agent
 * (vhca-sma.c): an SMI send is read and, when it is an SMP for the port's
 * own SMA, answered on the same SMI QP (Documentation/device-agents.md "Subnet
 * management agent").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/log.h"
#include "vhca-transport.h"
#include "vhca-link.h"
#include "vhca-switch-sma.h"
#include "trace.h"

/* The node as its SMA describes it through local_port (the SA's too). */
void vhca_sma_describe(VhcaState *s, uint8_t local_port, VhcaSmaNode *node)
{
    uint32_t i;

    memset(node, 0, sizeof(*node));
    node->node_guid = s->node_guid;
    node->sys_image_guid = s->node_guid;
    node->vendor_id = VHCA_VENDOR_OUI;
    node->device_id = VHCA_PCI_DEVICE_ID;
    node->revision = VHCA_PCI_REVISION;
    node->num_ports = s->num_ports;
    node->local_port = local_port;
    memcpy(node->node_desc, s->node_desc, sizeof(node->node_desc));
    /* a cabled port's switch, or the fabric's, may have no SM: opensm sets */
    node->sm_sets = local_port >= 1 && local_port <= s->num_ports &&
                    (vhca_link_cabled(&s->ports[local_port - 1]) ||
                     vhca_fabric_sm_off(&s->ports[local_port - 1]));
    for (i = 0; i < s->num_ports && i < VHCA_MAX_PORTS; i++) {
        node->ports[i].state = s->ports[i].state;
        node->ports[i].phys_state = s->ports[i].phys_state;
        node->ports[i].lid = s->ports[i].lid;
        node->ports[i].sm_lid = s->ports[i].sm_lid;
        node->ports[i].guid = s->ports[i].guid;
        node->ports[i].cap_mask = s->ports[i].cap_mask;
        node->ports[i].conf = s->ports[i].sm_conf;
    }
}

/* An SM's Set the SMA took (vhca_sma_answer changed node): the ports. */
void vhca_sma_apply(VhcaState *s, const uint8_t *req, uint16_t status,
                    const VhcaSmaNode *node)
{
    uint32_t i;

    if (vhca_mad_method(req) != VHCA_MGMT_METHOD_SET || status != 0) {
        return;
    }
    for (i = 0; i < s->num_ports && i < VHCA_MAX_PORTS; i++) {
        vhca_port_sm_set(&s->ports[i], &node->ports[i]);
    }
}

/*
 * An SMI send: is it for this port's SMA?  If so the message is read and,
 * for VHCA_SMA_REPLY, the answer left in resp (VHCA_MAD_SIZE bytes).  A
 * message that cannot be read is not known to be an SMP: the ordinary
 * datagram path reports the error (or, after a reset by the DMA, nothing).
 */
/* req for the SMA of port (to dlid): its answer in resp, a Set applied. */
static VhcaSmaAction vhca_sma_run(VhcaState *s, uint8_t port,
                                  const uint8_t *req, uint16_t dlid,
                                  uint8_t *resp)
{
    VhcaSmaAction act;
    VhcaSmaNode node;
    uint16_t status;

    vhca_sma_describe(s, port, &node);
    act = vhca_sma_process(req, VHCA_MAD_SIZE, dlid, 0, &node, resp, &status);
    if (act != VHCA_SMA_NOT_MINE) {
        /* class, method, attribute id */
        trace_vhca_sma(port, vhca_mad_class(req), vhca_mad_method(req),
                       vhca_mad_attr(req), status);
        vhca_sma_apply(s, req, status, &node);
    }
    return act;
}

/*
 * The kernel's MAD layer gives a CA's process_mad what the CA itself must
 * answer (IBA 14.2.2.2, C14-9:3/4: a directed-route SMP at the end of its
 * path): here the SMA for hop count 0, the PMA for PerfMgt (the kernel's
 * sysfs counters).  SMInfo and everything else go on to the guest's
 * agents: an SM there answers SMInfo, directed route or not.
 */
bool vhca_mad_ifc(VhcaState *s, uint8_t port, const uint8_t *req,
                  uint8_t *resp)
{
    if (req[VHCA_MAD(base_version)] != 1 ||
        (vhca_mad_method(req) & VHCA_MGMT_METHOD_RESP)) {
        return false;
    }
    if (vhca_mad_class(req) == VHCA_MGMT_CLASS_SUBN_DR &&
        req[VHCA_SMP_HOP_CNT] == 0) {
        return vhca_sma_run(s, port, req, 0, resp) == VHCA_SMA_REPLY;
    }
    if (vhca_mad_class(req) == VHCA_MGMT_CLASS_PERF_MGMT) {
        return vhca_pma_answer(&s->ports[port - 1], req, resp);
    }
    return false;
}

VhcaSmaAction vhca_sma_send(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt,
                            uint8_t *resp)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    uint8_t req[VHCA_MAD_SIZE];

    if (qp->type != VHCA_QPT_SMI || qp->port < 1 || qp->port > s->num_ports ||
        wqe->length != VHCA_MAD_SIZE) {
        return VHCA_SMA_NOT_MINE;
    }
    if (vhca_sgl_read(pkt->local, req, VHCA_MAD_SIZE) != VHCA_VERR_NONE) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x SMI message "
                      "unreadable, not given to the SMA\n", qp->handle);
        return vhca_is_enabled(s) ? VHCA_SMA_NOT_MINE : VHCA_SMA_CONSUMED;
    }
    if (lduw_le_p(&wqe->av.dlid) == s->ports[qp->port - 1].lid) {
        vhca_port_trap_repress(&s->ports[qp->port - 1], req);  /* own SM */
    }
    if ((wqe->remote_qpn & VHCA_DB_OBJ_MASK) != 0) {
        return VHCA_SMA_NOT_MINE;       /* the SMA is behind QPN 0 only */
    }
    return vhca_sma_run(s, qp->port, req, le16_to_cpu(wqe->av.dlid), resp);
}

/*
 * The answer of a management agent (the port's SMA, the fabric's SA)
 * arrives on the QP that asked, from slid and src_qpn, without a GRH.
 */
void vhca_mad_reply(VhcaState *s, VhcaQp *qp, const uint8_t *mad,
                    uint16_t slid, uint32_t src_qpn)
{
    VhcaSendWqe wqe = {
        .opcode = VHCA_WQE_SEND,
        .length = VHCA_MAD_SIZE,
        .remote_qkey = qp->qkey,
    };
    VhcaPort *port = &s->ports[qp->port - 1];
    VhcaPacket pkt = {
        .src_qp = qp,
        .src_port = port,
        .dst_port = port,
        .wqe = &wqe,
        .packets = 1,
        .from_agent = true,
        .agent_slid = slid,
        .agent_qpn = src_qpn,
    };
    VhcaSgl sgl;

    vhca_sgl_host(s, mad, VHCA_MAD_SIZE, &sgl);
    pkt.local = &sgl;
    if (qp->valid && qp->state >= VHCA_QPS_RTR &&
        qp->state <= VHCA_QPS_SQE) {
        vhca_deliver_datagram(s, qp, &pkt);
    }
}
