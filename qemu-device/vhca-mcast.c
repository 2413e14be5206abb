/*
 * vhca - multicast attachments (IBA 10.5, 11.3.1 Attach/Detach QP to
 * multicast group).
 *
 * A UD QP attached to a group receives every datagram sent to the group's
 * MLID on the fabric, at the port it is bound to.  The switch forwards a
 * multicast datagram to every ACTIVE port of the fabric (vhca-transport.c);
 * each device then delivers a copy to each of its QPs attached to the MLID
 * on that port, except the sending QP itself.  The MLID comes from the
 * driver's MCMemberRecord join at the fabric SM's SA (vhca-sa-mcast.c);
 * the device takes the MLID it is given.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "vhca.h"
#include "trace.h"

void vhca_mcast_init(VhcaState *s)
{
    s->mcast = g_new0(VhcaMcast, VHCA_MCAST_SLOTS);
}

void vhca_mcast_reset(VhcaState *s)
{
    memset(s->mcast, 0, sizeof(VhcaMcast) * VHCA_MCAST_SLOTS);
}

static uint8_t vhca_mcast_reject(uint8_t status, const char *why,
                                 uint32_t val)
{
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: multicast command: %s (0x%x)\n",
                  why, val);
    trace_vhca_mcast_reject(why, val);
    return status;
}

/* Attachments to mlid, and whether qp_handle is one of them (*found). */
static uint32_t vhca_mcast_count(VhcaState *s, uint16_t mlid,
                                 uint32_t qp_handle, int *found)
{
    uint32_t i, n = 0;

    *found = -1;
    for (i = 0; i < VHCA_MCAST_SLOTS; i++) {
        if (s->mcast[i].valid && s->mcast[i].mlid == mlid) {
            n++;
            if (s->mcast[i].qp_handle == qp_handle) {
                *found = i;
            }
        }
    }
    return n;
}

static uint32_t vhca_mcast_groups(VhcaState *s)
{
    DECLARE_BITMAP(seen, VHCA_MAX_MLID - VHCA_MIN_MLID + 1);
    uint32_t i, n = 0;

    bitmap_zero(seen, VHCA_MAX_MLID - VHCA_MIN_MLID + 1);
    for (i = 0; i < VHCA_MCAST_SLOTS; i++) {
        if (s->mcast[i].valid &&
            !test_and_set_bit(s->mcast[i].mlid - VHCA_MIN_MLID, seen)) {
            n++;
        }
    }
    return n;
}

uint8_t vhca_cmd_mcast(VhcaState *s, bool attach,
                       const struct vhca_cmd_mcast_in *in)
{
    uint32_t handle = le32_to_cpu(in->qpn);
    uint16_t mlid = le16_to_cpu(in->mlid);
    VhcaQp *qp = vhca_qp_get(s, handle);
    uint32_t members, i;
    int found;

    if (mlid < VHCA_MIN_MLID || mlid > VHCA_MAX_MLID) {
        return vhca_mcast_reject(VHCA_CMD_BAD_PARAM, "not a multicast LID",
                                 mlid);
    }
    if (!qp) {
        return vhca_mcast_reject(VHCA_CMD_BAD_HANDLE, "no such QP", handle);
    }
    if (qp->type != VHCA_QPT_UD) {
        return vhca_mcast_reject(VHCA_CMD_BAD_PARAM, "only UD QPs attach",
                                 handle);
    }
    members = vhca_mcast_count(s, mlid, handle, &found);
    if (!attach) {
        if (found < 0) {
            return vhca_mcast_reject(VHCA_CMD_BAD_HANDLE, "QP not attached",
                                     mlid);
        }
        s->mcast[found].valid = false;
        trace_vhca_mcast(handle, mlid, false);
        return VHCA_CMD_OK;
    }
    if (found >= 0) {
        return VHCA_CMD_OK;     /* attached already: nothing changes */
    }
    if (members >= VHCA_MAX_MCAST_QP_ATTACH ||
        (members == 0 && vhca_mcast_groups(s) >= VHCA_MAX_MCAST_GRP)) {
        return VHCA_CMD_NO_RESOURCES;
    }
    for (i = 0; i < VHCA_MCAST_SLOTS; i++) {
        if (!s->mcast[i].valid) {
            s->mcast[i].valid = true;
            s->mcast[i].mlid = mlid;
            s->mcast[i].qp_handle = handle;
            memcpy(s->mcast[i].mgid, in->mgid, sizeof(in->mgid));
            trace_vhca_mcast(handle, mlid, true);
            return VHCA_CMD_OK;
        }
    }
    return VHCA_CMD_NO_RESOURCES;
}

/* DESTROY_QP (and reset) detach the QP from every group. */
void vhca_mcast_detach_qp(VhcaState *s, uint32_t qp_handle)
{
    uint32_t i;

    for (i = 0; s->mcast && i < VHCA_MCAST_SLOTS; i++) {
        if (s->mcast[i].valid && s->mcast[i].qp_handle == qp_handle) {
            s->mcast[i].valid = false;
        }
    }
}

/* Call fn for every QP bound to port and attached to mlid. */
void vhca_mcast_foreach(VhcaState *s, uint8_t port, uint16_t mlid,
                        VhcaMcastFn fn, void *opaque)
{
    uint32_t i;
    VhcaQp *qp;

    for (i = 0; i < VHCA_MCAST_SLOTS && vhca_is_enabled(s); i++) {
        if (!s->mcast[i].valid || s->mcast[i].mlid != mlid) {
            continue;
        }
        qp = vhca_qp_get(s, s->mcast[i].qp_handle);
        if (qp && qp->port == port) {
            fn(s, qp, opaque);
        }
    }
}
