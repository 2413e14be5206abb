/*
 * vhca - the in-process fabric's embedded SM beside SMs in guests: SMInfo
 * decides the master as on a real subnet (IBA 14.4, Documentation/
 * fabric.md "The embedded SM beside opensm").
 *
 * The embedded SM lives at the switch's port 0.  It answers SubnGet
 * (SMInfo) with its GUID (the switch's), SM_Key (sm-key: the SMs of one
 * subnet share it, and opensm ignores an SM that shows another; the
 * switch has no M_Key protection, so every requester gets it), ActCount,
 * Priority (sm-priority) and state, and takes SubnSet(SMInfo) as the
 * state machine of vhca-sm-state.c allows.  The polls, hand-overs and
 * take-overs are the arbiter's (vhca-sm-arbiter.c, which the standalone
 * switch runs too); this file gives it its timer (on the virtual clock, so
 * a paused VM does not lose its master and qtests step it), the SMs to
 * look at (CA ports with IsSM, ACTIVE), its way to a port's QP0 and what
 * a state change does here.  While not MASTER the embedded SM neither
 * sweeps nor assigns, its SA is silent and the switch and CA ports take
 * the guest SM's Sets (vhca_fabric_guest_managed()); leaving MASTER the
 * switch keeps what it had programmed, for the guest's SM; entering it a
 * sweep sets every port again with ClientReregister.
 *
 * Its requests go LID-routed from the switch's LID to QP0 of the other
 * SM's port, with TIDs of its own; the answers come back to the switch's
 * LID (vhca-fabric-smp.c hands them here), and so do the Traps that
 * SMAs and other SMs send to it, which as MASTER it represses.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qapi/error.h"
#include "vhca-fabric-priv.h"
#include "vhca-transport.h"
#include "trace.h"

static int64_t sm_now(void)
{
    return qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL);
}

/* After every call into the arbiter: its tick, when it wants it. */
static void sm_sync_timer(VhcaFabric *f)
{
    if (f->arb.due_ms < 0) {
        timer_del(f->sm_poll_timer);
    } else {
        timer_mod(f->sm_poll_timer, f->arb.due_ms);
    }
}

static void sm_tick(void *opaque)
{
    VhcaFabric *f = opaque;

    if (f->arb.state != VHCA_SM_STATE_MASTER) {
        trace_vhca_fabric_sm_poll(f->name, f->arb.master_guid,
                                  f->arb.unanswered);
    }
    vhca_sm_arbiter_tick(&f->arb, sm_now());
    sm_sync_timer(f);
}

static VhcaPort *sm_port_by_guid(VhcaFabric *f, uint64_t guid)
{
    VhcaPort *port;

    QTAILQ_FOREACH(port, &f->ports, fabric_link) {
        if (port->guid == guid) {
            return port;
        }
    }
    return NULL;
}

/* The arbiter's SMP to QP0 of guid's port, LID-routed from the switch. */
static bool sm_send(VhcaSmArbiter *arb, uint64_t guid, const uint8_t *mad)
{
    VhcaFabric *f = arb->opaque;
    VhcaPort *to = sm_port_by_guid(f, guid);
    VhcaQp *qp0;

    if (!to || !to->lid || vhca_fabric_switch_out(f, to->lid) != to) {
        return false;
    }
    qp0 = vhca_qp_by_qpn(to->dev, to->num, 0);
    if (!qp0) {
        return false;
    }
    trace_vhca_fabric_sm_send(f->name, vhca_mad_method(mad),
                              vhca_mad_attr_mod(mad), to->lid);
    vhca_mad_reply(to->dev, qp0, mad, vhca_fabric_switch_lid(to), 0);
    return true;
}

/* The other SMs: CA ports with IsSM that are ACTIVE. */
static int sm_ports(VhcaSmArbiter *arb, uint64_t *guids, int max)
{
    VhcaFabric *f = arb->opaque;
    VhcaPort *port;
    int n = 0;

    QTAILQ_FOREACH(port, &f->ports, fabric_link) {
        if (n < max && (port->cap_mask & VHCA_PORT_CAP_SM) &&
            port->state == VHCA_PORT_ACTIVE && vhca_is_enabled(port->dev)) {
            guids[n++] = port->guid;
        }
    }
    return n;
}

/*
 * The state changed.  Leaving MASTER the switch keeps what it had
 * programmed, for the guest's SM (vhca_fabric_switch_adopt); entering it
 * a sweep sets every port again.
 */
static void sm_became(VhcaSmArbiter *arb, uint8_t old)
{
    VhcaFabric *f = arb->opaque;

    trace_vhca_fabric_sm_state(f->name, vhca_sm_state_name(old),
                               vhca_sm_state_name(arb->state));
    if (old == VHCA_SM_STATE_MASTER && arb->state != VHCA_SM_STATE_MASTER) {
        vhca_fabric_switch_adopt(f);
    }
    if (f->sw) {
        f->sw->sm_state = arb->state;
    }
    if (arb->state == VHCA_SM_STATE_MASTER) {
        f->sm_rereg = true;
        vhca_fabric_schedule_sweep(f);
    }
}

static const VhcaSmArbiterOps sm_ops = {
    .send = sm_send,
    .sm_ports = sm_ports,
    .became = sm_became,
};

static bool sm_conf_same(const VhcaFabricSmConf *a, const VhcaFabricSmConf *b)
{
    return a->embedded == b->embedded && (!a->embedded ||
           (a->priority == b->priority && a->poll_ms == b->poll_ms &&
            a->poll_retries == b->poll_retries && a->sm_key == b->sm_key));
}

/*
 * The SM is a property of the switch: the first device cabled to an empty
 * fabric configures it, every other one must agree.
 */
bool vhca_fabric_sm_configure(VhcaFabric *f, const VhcaFabricSmConf *conf,
                              bool first, Error **errp)
{
    const char *why = vhca_sm_conf_invalid(conf);
    const VhcaFabricSmConf *c = &f->arb.conf;

    if (why) {
        error_setg(errp, "vhca: %s", why);
        return false;
    }
    if (!first) {
        if (!sm_conf_same(c, conf)) {
            error_setg(errp, "vhca: fabric '%s' has embedded-sm=%s "
                       "sm-priority=%u sm-poll-ms=%u sm-poll-retries=%u "
                       "sm-key=0x%" PRIx64 "; every device on it must have "
                       "the same", f->name, f->sm_off ? "off" : "on",
                       c->priority, c->poll_ms, c->poll_retries, c->sm_key);
            return false;
        }
        return true;
    }
    f->sm_off = !conf->embedded;
    vhca_sm_arbiter_init(&f->arb, &sm_ops, f, conf, f->sm_guid, sm_now());
    if (!f->sm_poll_timer) {
        f->sm_poll_timer = timer_new_ms(QEMU_CLOCK_VIRTUAL, sm_tick, f);
    }
    sm_sync_timer(f);
    return true;
}

/*
 * A Trap(Notice) that reached the switch's port 0 from port (IBA 13.4.9:
 * an SMA's or an SM's, e.g. opensm's Trap 144 to the master it found):
 * as MASTER the SM answers TrapRepress, which ends the sender's repeats.
 * Traps are the master's (sent to PortInfo:MasterSMLID); a STANDBY,
 * DISCOVERING or NOT-ACTIVE SM takes no part in them and drops them
 * unanswered, as opensm does (sm_mad_ctrl_process_trap): a TrapRepress
 * from it would stop the repeats although no master heard the event.
 */
static VhcaSmaAction sm_trap(VhcaFabric *f, VhcaPort *port,
                             const uint8_t *req, bool dr, uint8_t *resp)
{
    bool master = f->arb.state == VHCA_SM_STATE_MASTER;

    trace_vhca_fabric_sm_trap(f->name, vhca_trap_number(req),
                              vhca_mad_tid(req), port->guid, port->lid,
                              vhca_sm_state_name(f->arb.state),
                              master ? "TrapRepress" : "dropped");
    if (!master) {
        return VHCA_SMA_CONSUMED;
    }
    vhca_trap_repress_build(resp, req, dr);
    return VHCA_SMA_REPLY;
}

/*
 * An SMP to the switch's port 0 from port (vhca-fabric-smp.c) that is
 * the SM's: a Trap; SMInfo Get and Set answered here, a GetResp to the
 * SM's own request taken.
 */
VhcaSmaAction vhca_fabric_sm_smp(VhcaPort *port, const uint8_t *req, bool dr,
                                 uint8_t *resp)
{
    VhcaFabric *f = port->fabric;
    VhcaSmInfo remote;
    uint16_t status;
    VhcaSmaAction act;

    if (!f || f->sm_off) {
        return VHCA_SMA_NOT_MINE;
    }
    if (vhca_trap_number(req) >= 0) {
        return sm_trap(f, port, req, dr, resp);
    }
    vhca_sm_info_decode(req + VHCA_SMP_DATA_OFF, &remote);
    act = vhca_sm_arbiter_smp(&f->arb, req, dr, resp, &status, sm_now());
    sm_sync_timer(f);
    if (act == VHCA_SMA_NOT_MINE) {
        return act;
    }
    if (vhca_mad_method(req) == VHCA_MGMT_METHOD_GET_RESP) {
        trace_vhca_fabric_sm_answer(f->name, remote.guid, remote.state,
                                    remote.priority,
                                    vhca_mad_status(req) & ~VHCA_SMP_DIRECTION);
        return act;
    }
    if (vhca_mad_method(req) == VHCA_MGMT_METHOD_SET && status) {
        trace_vhca_fabric_sm_set_refused(f->name, vhca_mad_attr_mod(req),
                                         remote.state,
                                         vhca_sm_state_name(f->arb.state));
    }
    trace_vhca_switch_sma(0, vhca_mad_class(req), vhca_mad_method(req),
                          VHCA_SMP_ATTR_SM_INFO, status);
    return act;
}

/* A CA port's CapabilityMask changed: an SM there is looked at soon. */
void vhca_fabric_sm_cap_changed(VhcaPort *port)
{
    VhcaFabric *f = port->fabric;

    if (f && !vhca_fabric_guest_managed(f) &&
        (port->cap_mask & VHCA_PORT_CAP_SM)) {
        vhca_sm_arbiter_sm_appeared(&f->arb, sm_now());
        sm_sync_timer(f);
    }
}
