/*
 * vhca - XRC (IBA Annex A14 "Extended Reliable Connected Transport
 * Service"): XRC domains, and the binding of an XRC target QP to the XRC
 * SRQ each request names.
 *
 * An XRC domain (ALLOC_XRCD) groups XRC SRQs and XRC target QPs.  The
 * target QP has no queues of its own: every request that reaches it
 * carries the number of an XRC SRQ (the XRCETH, IBA A14.3.1; the
 * xrc_srqn of the initiator's WQE), which must be an SRQ of the QP's
 * domain (else the request is NAKed as invalid, IBA A14.4.1.1).  That SRQ
 * gives the receive WQE, the CQ the completion goes to and the PD that
 * memory accesses are checked against (IBA A14.2.3.2): vhca_xrc_bind()
 * points the QP's srqn, recv_cqn and pdn at it, and everything after
 * that is RC's responder (vhca-rc.c, vhca-responder.c), unchanged.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "vhca.h"
#include "trace.h"

void vhca_xrc_init(VhcaState *s)
{
    s->xrcds = g_new0(VhcaXrcd, VHCA_MAX_XRCD);
}

void vhca_xrc_reset(VhcaState *s)
{
    memset(s->xrcds, 0, sizeof(VhcaXrcd) * VHCA_MAX_XRCD);
}

void vhca_xrc_unrealize(VhcaState *s)
{
    g_free(s->xrcds);
    s->xrcds = NULL;
}

static uint8_t vhca_xrc_reject(uint8_t status, const char *why, uint32_t val)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: XRC: %s (0x%x)\n", why, val);
    trace_vhca_xrc_reject(why, val);
    return status;
}

/* XRC domain numbers are 1..VHCA_MAX_XRCD-1: 0 names none. */
static VhcaXrcd *vhca_xrcd_get(VhcaState *s, uint32_t xrcdn)
{
    if (xrcdn == 0 || xrcdn >= VHCA_MAX_XRCD || !s->xrcds[xrcdn].valid) {
        return NULL;
    }
    return &s->xrcds[xrcdn];
}

bool vhca_xrcd_valid(VhcaState *s, uint32_t xrcdn)
{
    return vhca_xrcd_get(s, xrcdn) != NULL;
}

uint8_t vhca_cmd_alloc_xrcd(VhcaState *s, uint32_t result[2])
{
    uint32_t n;

    for (n = 1; n < VHCA_MAX_XRCD; n++) {
        if (!s->xrcds[n].valid) {
            s->xrcds[n].valid = true;
            s->xrcds[n].users = 0;
            result[0] = n;
            trace_vhca_xrcd(n, true);
            return VHCA_CMD_OK;
        }
    }
    return VHCA_CMD_NO_RESOURCES;
}

uint8_t vhca_cmd_dealloc_xrcd(VhcaState *s, uint32_t xrcdn)
{
    VhcaXrcd *xrcd = vhca_xrcd_get(s, xrcdn);

    if (!xrcd) {
        return vhca_xrc_reject(VHCA_CMD_BAD_HANDLE, "no such XRC domain",
                               xrcdn);
    }
    if (xrcd->users) {
        return vhca_xrc_reject(VHCA_CMD_BUSY, "XRC domain has SRQs or QPs",
                               xrcdn);
    }
    xrcd->valid = false;
    trace_vhca_xrcd(xrcdn, false);
    return VHCA_CMD_OK;
}

/* An XRC SRQ or target QP joins (hold) or leaves the domain. */
bool vhca_xrcd_hold(VhcaState *s, uint32_t xrcdn)
{
    VhcaXrcd *xrcd = vhca_xrcd_get(s, xrcdn);

    if (!xrcd) {
        vhca_xrc_reject(VHCA_CMD_BAD_HANDLE, "no such XRC domain", xrcdn);
        return false;
    }
    xrcd->users++;
    return true;
}

void vhca_xrcd_release(VhcaState *s, uint32_t xrcdn)
{
    VhcaXrcd *xrcd = vhca_xrcd_get(s, xrcdn);

    if (xrcd && xrcd->users) {
        xrcd->users--;
    }
}

/*
 * A request reached XRC target QP qp naming XRC SRQ srqn: false (the
 * caller NAKs it as an invalid request) unless the SRQ is an XRC SRQ of
 * the QP's domain; then the QP receives through it (see the top).
 */
bool vhca_xrc_bind(VhcaState *s, VhcaQp *qp, uint32_t srqn)
{
    VhcaSrq *srq = vhca_srq_get(s, srqn & VHCA_DB_OBJ_MASK);

    if (!srq || !srq->xrc || srq->xrcdn != qp->xrcdn) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: XRC target QP 0x%x: request "
                      "for SRQ 0x%x, not an XRC SRQ of its domain %u\n",
                      qp->handle, srqn, qp->xrcdn);
        trace_vhca_xrc_bind(qp->handle, srqn, false);
        return false;
    }
    qp->srqn = srqn & VHCA_DB_OBJ_MASK;
    qp->recv_cqn = srq->cqn;
    qp->pdn = srq->pdn;
    trace_vhca_xrc_bind(qp->handle, srqn, true);
    return true;
}
