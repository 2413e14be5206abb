/*
 * vhca - the hook between the requester and the Subnet Administration of
 * the fabric's SM (vhca-sa.c): a GSI send to the SM's LID (1) and QPN 1
 * carrying a SubnAdm MAD (class 0x03) is given to the SA; the send
 * completes as any datagram's, then the SA's answers (one MAD, or the
 * segments of a GetTableResp the RMPP window allows) arrive on the same
 * GSI QP, from SLID 1 and source QPN 1 (Documentation/device-agents.md "Subnet
 * administration").  RMPP ACKs the guest sends to the SA are taken the
 * same way and answered with the next segments.  With the embedded SM off
 * there is no SA here (opensm answers, at its own LID) and the switch's
 * LID is the one opensm gave it: only the switch's PMA answers there.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/log.h"
#include "vhca-transport.h"
#include "trace.h"

QEMU_BUILD_BUG_ON(VHCA_MIN_MLID + VHCA_SA_MAX_GROUPS - 1 > VHCA_MAX_MLID);

/* The SA's picture of the fabric: every ACTIVE port of an enabled device. */
static void vhca_sa_add_port(VhcaPort *port, void *opaque)
{
    VhcaSa *sa = opaque;

    if (sa->num_ports < VHCA_SA_MAX_PORTS) {
        vhca_sma_describe(port->dev, port->num,
                          &sa->ports[sa->num_ports++].node);
    }
}

static void vhca_sa_emit(void *opaque, const uint8_t *mad)
{
    VhcaSaReply *reply = opaque;

    if (reply->n < VHCA_SA_MAX_SEGS) {
        memcpy(reply->mads[reply->n++], mad, VHCA_MAD_SIZE);
    }
}

static void vhca_sa_reject(VhcaQp *qp, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: QP 0x%x message to the SA "
                  "dropped: %s\n", qp->handle, why);
    trace_vhca_sa_reject(qp->port, why);
}

/*
 * A GSI send: is it for the SA?  If not, NULL (the ordinary datagram path
 * takes it).  If so, the SA's answers, to deliver once the send has
 * completed; the caller frees them.  A message to the SA that cannot be
 * one (not 256 bytes, unreadable) is dropped, as the SA would.
 */
VhcaSaReply *vhca_sa_send(VhcaState *s, VhcaQp *qp, VhcaPacket *pkt)
{
    const VhcaSendWqe *wqe = pkt->wqe;
    uint8_t req[VHCA_MAD_SIZE];
    VhcaSaReply *reply;
    VhcaSaResult res;
    VhcaPort *port;
    uint16_t status;
    VhcaSa *sa;

    if (qp->type != VHCA_QPT_GSI || qp->port < 1 || qp->port > s->num_ports ||
        (wqe->remote_qpn & VHCA_DB_OBJ_MASK) != VHCA_SA_QPN) {
        return NULL;
    }
    port = &s->ports[qp->port - 1];
    /* the switch's LID: 1 (its SM's), or what opensm gave it */
    if (!port->fabric || port->state != VHCA_PORT_ACTIVE || !wqe->av.dlid ||
        le16_to_cpu(wqe->av.dlid) != vhca_fabric_switch_lid(port)) {
        return NULL;                /* no route to the switch: dropped */
    }
    sa = vhca_fabric_sa(port);
    reply = g_new0(VhcaSaReply, 1);
    if (wqe->length != VHCA_MAD_SIZE) {
        vhca_sa_reject(qp, "not a MAD (length)");
        return reply;
    }
    if (vhca_sgl_read(pkt->local, req, VHCA_MAD_SIZE) != VHCA_VERR_NONE) {
        vhca_sa_reject(qp, "message unreadable");
        return reply;
    }
    if (vhca_mad_class(req) == VHCA_MGMT_CLASS_PERF_MGMT &&
        vhca_pma_switch_take(port, req, reply->mads[0])) {
        reply->n = 1;               /* LID 1 is the switch's too: its PMA */
        return reply;
    }
    if (!sa || vhca_mad_class(req) != VHCA_MGMT_CLASS_SUBN_ADM) {
        vhca_sa_reject(qp, "management class the SM does not serve");
        return reply;
    }
    sa->num_ports = 0;
    vhca_fabric_foreach_active(port, vhca_sa_add_port, sa);
    res = vhca_sa_process(sa, req, VHCA_MAD_SIZE, port->lid, vhca_sa_emit,
                          reply, &status);
    /* port, method, attribute, status, result, answers */
    trace_vhca_sa(qp->port, vhca_mad_method(req), vhca_mad_attr(req), status,
                  res, reply->n);
    if (res == VHCA_SA_DROPPED) {
        vhca_sa_reject(qp, "not a SubnAdm request");
    } else if ((status & 0xff) || status == VHCA_SA_ERR_REQ_INVALID ||
               status == VHCA_SA_ERR_REQ_INSUFFICIENT_COMPONENTS) {
        /* malformed: a MAD-level error, or a request that cannot be */
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: SA refuses method 0x%x "
                      "attribute 0x%x: status 0x%04x\n", vhca_mad_method(req),
                      vhca_mad_attr(req), status);
    }
    return reply;
}

/* The SA's answers arrive on the GSI QP that asked, from SLID 1, QPN 1. */
void vhca_sa_reply(VhcaState *s, VhcaQp *qp, const VhcaSaReply *reply)
{
    uint32_t i;

    for (i = 0; i < reply->n && vhca_is_enabled(s) && qp->valid; i++) {
        vhca_port_count_datagram(&s->ports[qp->port - 1], true,
                                 VHCA_MAD_SIZE, false);
        vhca_mad_reply(s, qp, reply->mads[i],
                       vhca_fabric_switch_lid(&s->ports[qp->port - 1]),
                       VHCA_SA_QPN);
    }
}
