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
 * state machine of vhca-sm-state.c allows.  As MASTER it looks, every sm-poll-ms and as
 * soon as a CA port's CapabilityMask gains IsSM, at the SMInfo of every
 * port with IsSM: a STANDBY SM that outranks it (higher priority, then
 * lower GUID, IBA 14.4.1.1) gets the subnet by SubnSet(SMInfo) HANDOVER,
 * and once that SM has answered it the embedded SM is STANDBY (opensm
 * does the same; nobody sends ACKNOWLEDGE).  While not MASTER it neither
 * sweeps nor assigns, its SA is silent and the switch and CA ports take
 * the guest SM's Sets (vhca_fabric_guest_managed()).  As STANDBY (or
 * DISCOVERING, after a DISCOVER) it polls the master with SubnGet(SMInfo)
 * every sm-poll-ms; when more than sm-poll-retries polls went unanswered
 * (an error status such as the kernel's 0x000c for a QP0 nobody listens
 * on is no answer) it takes the subnet over: MASTER, and a sweep that
 * sets every port again with ClientReregister.  HANDOVER from the master
 * does the same at once.
 *
 * Its requests go LID-routed from the switch's LID to QP0 of the other
 * SM's port, with TIDs of its own; the answers come back to the switch's
 * LID (vhca-fabric-smp.c hands them here).  The timers run on the virtual
 * clock, so a paused VM does not lose its master and qtests step them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qapi/error.h"
#include "vhca-fabric-priv.h"
#include "vhca-transport.h"
#include "trace.h"

#define SM_TID_BASE         0x534d000000000000ull   /* "SM" */
#define SM_TID_MASK         0xffff000000000000ull
#define SM_LOOK_SOON_MS     10      /* an SM appeared: ask it */
#define SM_ASK_AGAIN_MS     1000    /* it was still discovering */
#define SM_POLL_MIN_MS      100
#define SM_POLL_MAX_MS      600000

static void sm_tick(void *opaque);

static bool sm_conf_valid(const VhcaFabricSmConf *conf, Error **errp)
{
    if (conf->priority > VHCA_SM_PRIORITY_MAX) {
        error_setg(errp, "vhca: sm-priority must be 0..%d",
                   VHCA_SM_PRIORITY_MAX);
        return false;
    }
    if (conf->poll_ms < SM_POLL_MIN_MS || conf->poll_ms > SM_POLL_MAX_MS) {
        error_setg(errp, "vhca: sm-poll-ms must be %d..%d", SM_POLL_MIN_MS,
                   SM_POLL_MAX_MS);
        return false;
    }
    return true;
}

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
    if (!sm_conf_valid(conf, errp)) {
        return false;
    }
    if (!first) {
        if (!sm_conf_same(&f->sm_conf, conf)) {
            error_setg(errp, "vhca: fabric '%s' has embedded-sm=%s "
                       "sm-priority=%u sm-poll-ms=%u sm-poll-retries=%u "
                       "sm-key=0x%" PRIx64 "; every device on it must have "
                       "the same", f->name, f->sm_off ? "off" : "on",
                       f->sm_conf.priority, f->sm_conf.poll_ms,
                       f->sm_conf.poll_retries, f->sm_conf.sm_key);
            return false;
        }
        return true;
    }
    f->sm_conf = *conf;
    f->sm_off = !conf->embedded;
    f->sm_state = VHCA_SM_STATE_MASTER;     /* alone on its subnet */
    f->sm_unanswered = 0;
    f->sm_master_guid = 0;
    f->sm_handover_tid = 0;
    f->sm_handover_guid = 0;
    if (!f->sm_poll_timer) {
        f->sm_poll_timer = timer_new_ms(QEMU_CLOCK_VIRTUAL, sm_tick, f);
    }
    if (!f->sm_off) {
        timer_mod(f->sm_poll_timer, qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) +
                                    f->sm_conf.poll_ms);
    }
    return true;
}

void vhca_fabric_sm_info(const VhcaFabric *f, VhcaSmInfo *smi)
{
    memset(smi, 0, sizeof(*smi));
    smi->guid = f->sm_guid;
    smi->sm_key = f->sm_conf.sm_key;        /* no M_Key to authenticate */
    smi->act_count = f->sweeps;             /* sweeps and polls */
    smi->priority = f->sm_conf.priority;
    smi->state = f->sm_state;
}

/* Arm the timer to fire in ms, unless it fires sooner anyway. */
static void sm_timer_within(VhcaFabric *f, uint32_t ms)
{
    int64_t at = qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) + ms;

    if (!timer_pending(f->sm_poll_timer) ||
        timer_expire_time_ns(f->sm_poll_timer) > at * SCALE_MS) {
        timer_mod(f->sm_poll_timer, at);
    }
}

/*
 * The state changes.  Leaving MASTER the switch keeps what it had
 * programmed, for the guest's SM (vhca_fabric_switch_adopt); entering it
 * a sweep sets every port again.
 */
static void sm_become(VhcaFabric *f, uint8_t next)
{
    uint8_t old = f->sm_state;

    trace_vhca_fabric_sm_state(f->name, vhca_sm_state_name(old),
                               vhca_sm_state_name(next));
    f->sm_state = next;
    if (old == VHCA_SM_STATE_MASTER && next != VHCA_SM_STATE_MASTER) {
        vhca_fabric_switch_adopt(f);
    }
    if (f->sw) {
        f->sw->sm_state = next;
    }
    f->sm_unanswered = 0;
    f->sm_handover_tid = 0;
    f->sm_handover_guid = 0;
    if (next == VHCA_SM_STATE_MASTER) {
        f->sm_rereg = true;
        vhca_fabric_schedule_sweep(f);
    }
    if (next == VHCA_SM_STATE_NOT_ACTIVE) {
        timer_del(f->sm_poll_timer);        /* until a master says STANDBY */
    } else {
        timer_mod(f->sm_poll_timer, qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) +
                                    f->sm_conf.poll_ms);
    }
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

/*
 * A SubnGet/SubnSet(SMInfo) of the embedded SM, carrying its SMInfo, to
 * QP0 of port to (LID-routed from the switch's LID); its TID, or 0 when
 * the switch has no route there.
 */
static uint64_t sm_send(VhcaFabric *f, VhcaPort *to, uint8_t method,
                        uint32_t mod)
{
    uint8_t mad[VHCA_MAD_SIZE] = { 0 };
    uint16_t slid = vhca_fabric_switch_lid(to);
    uint64_t tid = SM_TID_BASE | (++f->sm_tid & ~SM_TID_MASK);
    VhcaSmInfo smi;
    VhcaQp *qp0;

    if (!to->lid || vhca_fabric_switch_out(f, to->lid) != to) {
        return 0;
    }
    qp0 = vhca_qp_by_qpn(to->dev, to->num, 0);
    if (!qp0) {
        return 0;
    }
    mad[0] = 1;                                 /* BaseVersion */
    mad[1] = VHCA_MGMT_CLASS_SUBN_LID;
    mad[2] = 1;                                 /* ClassVersion */
    mad[3] = method;
    stq_be_p(mad + 8, tid);
    stw_be_p(mad + 16, VHCA_SMP_ATTR_SM_INFO);
    stl_be_p(mad + 20, mod);
    vhca_fabric_sm_info(f, &smi);
    vhca_sm_info_encode(&smi, mad + VHCA_SMP_DATA_OFF);
    trace_vhca_fabric_sm_send(f->name, method, mod, to->lid);
    f->sweeps++;
    vhca_mad_reply(to->dev, qp0, mad, slid, 0);
    return tid;
}

/*
 * MASTER: a HANDOVER decided on an answer (sent here, not from inside the
 * other SM's send), else the SMInfo of every other SM (CA ports with
 * IsSM).
 */
static void sm_look_for_sms(VhcaFabric *f)
{
    VhcaPort *port = sm_port_by_guid(f, f->sm_handover_guid);

    f->sm_handover_guid = 0;
    if (port) {
        f->sm_handover_tid = sm_send(f, port, VHCA_MGMT_METHOD_SET,
                                     VHCA_SMINFO_HANDOVER);
        return;
    }
    QTAILQ_FOREACH(port, &f->ports, fabric_link) {
        if ((port->cap_mask & VHCA_PORT_CAP_SM) &&
            port->state == VHCA_PORT_ACTIVE && vhca_is_enabled(port->dev)) {
            sm_send(f, port, VHCA_MGMT_METHOD_GET, 0);
        }
    }
}

/* STANDBY, DISCOVERING: poll the master; too many unanswered: take over. */
static void sm_poll_master(VhcaFabric *f)
{
    VhcaPort *master = sm_port_by_guid(f, f->sm_master_guid);

    trace_vhca_fabric_sm_poll(f->name, f->sm_master_guid, f->sm_unanswered);
    if (f->sm_unanswered > f->sm_conf.poll_retries) {
        sm_become(f, VHCA_SM_STATE_MASTER);     /* the master is gone */
        return;
    }
    if (master) {
        sm_send(f, master, VHCA_MGMT_METHOD_GET, 0);
    }                                   /* else lost: unanswered all the same */
    f->sm_unanswered++;
}

static void sm_tick(void *opaque)
{
    VhcaFabric *f = opaque;

    if (f->sm_off) {
        return;
    }
    switch (f->sm_state) {
    case VHCA_SM_STATE_MASTER:
        sm_look_for_sms(f);
        break;
    case VHCA_SM_STATE_STANDBY:
    case VHCA_SM_STATE_DISCOVERING:
        sm_poll_master(f);
        break;
    default:
        return;                         /* NOT-ACTIVE: it waits */
    }
    sm_timer_within(f, f->sm_conf.poll_ms);
}

/* What the embedded SM makes of another SM's SMInfo (vhca_sm_judge). */
static void sm_act(VhcaFabric *f, const VhcaSmInfo *remote)
{
    VhcaSmVerdict v = vhca_sm_judge(f->sm_state, f->sm_conf.priority,
                                    f->sm_guid, remote,
                                    remote->guid == f->sm_master_guid);

    switch (v) {
    case VHCA_SM_MASTER_ALIVE:
        f->sm_unanswered = 0;
        if (f->sm_state == VHCA_SM_STATE_DISCOVERING) {
            sm_become(f, VHCA_SM_STATE_STANDBY);    /* it found the master */
        }
        break;
    case VHCA_SM_HAND_OVER:
        f->sm_handover_guid = remote->guid;     /* sent from the timer */
        sm_timer_within(f, 1);
        break;
    case VHCA_SM_STEP_DOWN:
        f->sm_master_guid = remote->guid;
        sm_become(f, VHCA_SM_STATE_STANDBY);
        break;
    case VHCA_SM_ASK_AGAIN:
        sm_timer_within(f, SM_ASK_AGAIN_MS);
        break;
    case VHCA_SM_IGNORE:
        break;
    }
}

/* A GetResp to one of its requests (else not its: dropped). */
static void sm_answer(VhcaFabric *f, const uint8_t *resp)
{
    uint64_t tid = ldq_be_p(resp + 8);
    uint16_t status = lduw_be_p(resp + 4) & ~VHCA_SMP_DIRECTION;
    bool handover = tid == f->sm_handover_tid;
    VhcaSmInfo remote;

    if ((tid & SM_TID_MASK) != SM_TID_BASE) {
        return;
    }
    vhca_sm_info_decode(resp + VHCA_SMP_DATA_OFF, &remote);
    trace_vhca_fabric_sm_answer(f->name, remote.guid, remote.state,
                                remote.priority, status, handover);
    if (handover) {
        f->sm_handover_tid = 0;
        if (!status && f->sm_state == VHCA_SM_STATE_MASTER) {
            f->sm_master_guid = remote.guid;    /* the new master */
            sm_become(f, VHCA_SM_STATE_STANDBY);
        }
        return;
    }
    if (!status && remote.sm_key && remote.sm_key != f->sm_conf.sm_key) {
        return;                 /* IBA 14.4.1: another subnet's SM, ignored */
    }
    if (!status) {
        sm_act(f, &remote);
    }                                   /* an error: no SM answered */
}

static uint16_t sm_attr(const void *opaque, uint16_t attr, uint32_t mod,
                        uint8_t *d)
{
    VhcaSmInfo smi;

    vhca_fabric_sm_info(opaque, &smi);
    vhca_sm_info_encode(&smi, d);
    return 0;
}

/* SubnSet(SMInfo) from another SM (its SMInfo in d): IBA 14.4. */
static uint16_t sm_set(void *opaque, uint16_t attr, uint32_t mod,
                       const uint8_t *d)
{
    VhcaFabric *f = opaque;
    VhcaSmInfo sender;
    uint16_t status;
    uint8_t next;

    vhca_sm_info_decode(d, &sender);
    status = vhca_sm_set_transition(f->sm_state, mod, sender.state, &next);
    if (status) {
        trace_vhca_fabric_sm_set_refused(f->name, mod, sender.state,
                                         vhca_sm_state_name(f->sm_state));
        return status;
    }
    if (mod != VHCA_SMINFO_ACKNOWLEDGE) {
        f->sm_master_guid = sender.guid;    /* the master to poll */
    }
    if (next != f->sm_state || mod == VHCA_SMINFO_HANDOVER) {
        sm_become(f, next);     /* HANDOVER to a MASTER: sweep again */
    }
    return 0;
}

/*
 * An SMInfo SMP that reached the switch's port 0 (vhca-fabric-smp.c):
 * Get and Set answered here, a GetResp to the SM's own request taken.
 */
VhcaSmaAction vhca_fabric_sm_smp(VhcaPort *port, const uint8_t *req, bool dr,
                                 uint8_t *resp)
{
    VhcaFabric *f = port->fabric;
    uint16_t status;
    VhcaSmaAction act;

    if (!f || f->sm_off ||
        lduw_be_p(req + 16) != VHCA_SMP_ATTR_SM_INFO) {
        return VHCA_SMA_NOT_MINE;
    }
    if (req[3] == VHCA_MGMT_METHOD_GET_RESP) {
        sm_answer(f, req);
        return VHCA_SMA_CONSUMED;
    }
    act = vhca_smp_answer(req, dr, sm_attr, sm_set, f, resp, &status);
    trace_vhca_switch_sma(0, req[1], req[3], VHCA_SMP_ATTR_SM_INFO, status);
    return act;
}

/* A CA port's CapabilityMask changed: an SM there is looked at soon. */
void vhca_fabric_sm_cap_changed(VhcaPort *port)
{
    VhcaFabric *f = port->fabric;

    if (f && !vhca_fabric_guest_managed(f) &&
        (port->cap_mask & VHCA_PORT_CAP_SM)) {
        sm_timer_within(f, SM_LOOK_SOON_MS);
    }
}
