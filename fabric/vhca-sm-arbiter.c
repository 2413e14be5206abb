/*
 * vhca - an embedded SM's part in SMInfo arbitration (vhca-sm-arbiter.h;
 * Documentation/fabric.md "The embedded SM beside opensm").
 *
 * As MASTER it looks, every poll_ms and soon after a CA port gained IsSM,
 * at the SMInfo of every other SM: a STANDBY SM that outranks it (higher
 * priority, then lower GUID, IBA 14.4.1.1) gets the subnet by
 * SubnSet(SMInfo) HANDOVER, and once that SM has answered it this one is
 * STANDBY (opensm does the same; nobody sends ACKNOWLEDGE).  As STANDBY
 * (or DISCOVERING, after a DISCOVER) it polls the master with
 * SubnGet(SMInfo) every poll_ms; when more than poll_retries polls went
 * unanswered (an error status such as the kernel's 0x000c for a QP0
 * nobody listens on is no answer) it takes the subnet over: MASTER, and
 * ops->became sweeps with ClientReregister.  HANDOVER from the master
 * does the same at once.  Its requests carry TIDs of its own ("SM" in the
 * top 16 bits); a GetResp with another TID is not its.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-sm-arbiter.h"

#define SM_TID_BASE         0x534d000000000000ull   /* "SM" */
#define SM_TID_MASK         0xffff000000000000ull
#define SM_LOOK_SOON_MS     10      /* an SM appeared: ask it */
#define SM_ASK_AGAIN_MS     1000    /* it was still discovering */
#define SM_MAX_LOOK         64      /* SMs asked per look */

const char *vhca_sm_conf_invalid(const VhcaFabricSmConf *conf)
{
    if (conf->priority > VHCA_SM_PRIORITY_MAX) {
        return "sm-priority must be 0..15";
    }
    if (conf->poll_ms < VHCA_SM_POLL_MIN_MS ||
        conf->poll_ms > VHCA_SM_POLL_MAX_MS) {
        return "sm-poll-ms must be 100..600000";
    }
    return NULL;
}

/* The tick runs in ms (not later than it would anyway). */
static void arb_due_within(VhcaSmArbiter *arb, uint32_t ms)
{
    int64_t at = arb->now_ms + ms;

    if (arb->due_ms < 0 || arb->due_ms > at) {
        arb->due_ms = at;
    }
}

void vhca_sm_arbiter_init(VhcaSmArbiter *arb, const VhcaSmArbiterOps *ops,
                          void *opaque, const VhcaFabricSmConf *conf,
                          uint64_t guid, int64_t now_ms)
{
    memset(arb, 0, sizeof(*arb));
    arb->ops = ops;
    arb->opaque = opaque;
    arb->conf = *conf;
    arb->guid = guid;
    arb->state = VHCA_SM_STATE_MASTER;      /* alone on its subnet */
    arb->now_ms = now_ms;
    arb->due_ms = conf->embedded ? now_ms + conf->poll_ms : -1;
}

void vhca_sm_arbiter_info(const VhcaSmArbiter *arb, VhcaSmInfo *smi)
{
    memset(smi, 0, sizeof(*smi));
    smi->guid = arb->guid;
    smi->sm_key = arb->conf.sm_key;
    smi->act_count = arb->act_count;
    smi->priority = arb->conf.priority;
    smi->state = arb->state;
}

/*
 * The state changes; the poll period starts again (NOT-ACTIVE: no timer
 * until a master says STANDBY).
 */
static void arb_become(VhcaSmArbiter *arb, uint8_t next)
{
    uint8_t old = arb->state;

    arb->state = next;
    arb->unanswered = 0;
    arb->handover_tid = 0;
    arb->handover_guid = 0;
    arb->due_ms = next == VHCA_SM_STATE_NOT_ACTIVE ? -1
                  : arb->now_ms + arb->conf.poll_ms;
    arb->ops->became(arb, old);
}

/* A SubnGet/SubnSet(SMInfo) with its SMInfo to guid's port: its TID or 0. */
static uint64_t arb_send(VhcaSmArbiter *arb, uint64_t guid, uint8_t method,
                         uint32_t mod)
{
    uint8_t mad[VHCA_MAD_SIZE];
    uint64_t tid = SM_TID_BASE | (++arb->tid & ~SM_TID_MASK);
    VhcaSmInfo smi;

    vhca_smp_request(mad, method, tid, VHCA_SMP_ATTR_SM_INFO, mod);
    arb->act_count++;
    vhca_sm_arbiter_info(arb, &smi);
    vhca_sm_info_encode(&smi, mad + VHCA_SMP_DATA_OFF);
    return arb->ops->send(arb, guid, mad) ? tid : 0;
}

/*
 * MASTER: a HANDOVER decided on an answer (sent here, not from inside the
 * other SM's send), else the SMInfo of every other SM.
 */
static void arb_look_for_sms(VhcaSmArbiter *arb)
{
    uint64_t guids[SM_MAX_LOOK];
    int i, n;

    if (arb->handover_guid) {
        uint64_t to = arb->handover_guid;

        arb->handover_guid = 0;
        arb->handover_tid = arb_send(arb, to, VHCA_MGMT_METHOD_SET,
                                     VHCA_SMINFO_HANDOVER);
        return;
    }
    n = arb->ops->sm_ports(arb, guids, SM_MAX_LOOK);
    for (i = 0; i < n; i++) {
        if (guids[i] != arb->guid) {
            arb_send(arb, guids[i], VHCA_MGMT_METHOD_GET, 0);
        }
    }
}

/* STANDBY, DISCOVERING: poll the master; too many unanswered: take over. */
static void arb_poll_master(VhcaSmArbiter *arb)
{
    if (arb->unanswered > arb->conf.poll_retries) {
        arb_become(arb, VHCA_SM_STATE_MASTER);      /* the master is gone */
        return;
    }
    if (arb->master_guid) {
        arb_send(arb, arb->master_guid, VHCA_MGMT_METHOD_GET, 0);
    }                                   /* else lost: unanswered all the same */
    arb->unanswered++;
}

void vhca_sm_arbiter_tick(VhcaSmArbiter *arb, int64_t now_ms)
{
    arb->now_ms = now_ms;
    if (arb->due_ms < 0 || now_ms < arb->due_ms || !arb->conf.embedded) {
        return;
    }
    arb->due_ms = -1;
    switch (arb->state) {
    case VHCA_SM_STATE_MASTER:
        arb_look_for_sms(arb);
        break;
    case VHCA_SM_STATE_STANDBY:
    case VHCA_SM_STATE_DISCOVERING:
        arb_poll_master(arb);
        break;
    default:
        return;                         /* NOT-ACTIVE: it waits */
    }
    if (arb->state != VHCA_SM_STATE_NOT_ACTIVE) {
        arb_due_within(arb, arb->conf.poll_ms);
    }
}

void vhca_sm_arbiter_sm_appeared(VhcaSmArbiter *arb, int64_t now_ms)
{
    arb->now_ms = now_ms;
    if (arb->conf.embedded && arb->state == VHCA_SM_STATE_MASTER) {
        arb_due_within(arb, SM_LOOK_SOON_MS);
    }
}

/* What it makes of another SM's SMInfo (vhca_sm_judge). */
static void arb_act(VhcaSmArbiter *arb, const VhcaSmInfo *remote)
{
    switch (vhca_sm_judge(arb->state, arb->conf.priority, arb->guid, remote,
                          remote->guid == arb->master_guid)) {
    case VHCA_SM_MASTER_ALIVE:
        arb->unanswered = 0;
        if (arb->state == VHCA_SM_STATE_DISCOVERING) {
            arb_become(arb, VHCA_SM_STATE_STANDBY);     /* found the master */
        }
        break;
    case VHCA_SM_HAND_OVER:
        arb->handover_guid = remote->guid;      /* sent from the tick */
        arb_due_within(arb, 1);
        break;
    case VHCA_SM_STEP_DOWN:
        arb->master_guid = remote->guid;
        arb_become(arb, VHCA_SM_STATE_STANDBY);
        break;
    case VHCA_SM_ASK_AGAIN:
        arb_due_within(arb, SM_ASK_AGAIN_MS);
        break;
    case VHCA_SM_IGNORE:
        break;
    }
}

/* A GetResp to one of its requests (else not its: dropped). */
static void arb_answer(VhcaSmArbiter *arb, const uint8_t *resp)
{
    uint64_t tid = vhca_get_be64(resp + VHCA_SMP(tid));
    uint16_t status = vhca_get_be16(resp + VHCA_SMP(status)) &
                      ~VHCA_SMP_DIRECTION;
    VhcaSmInfo remote;

    vhca_sm_info_decode(resp + VHCA_SMP_DATA_OFF, &remote);
    if (remote.guid == arb->guid) {
        /*
         * An answer showing this SM's own GUID is no other SM: neither a
         * master to poll nor one to hand over to (it polled itself).
         */
        if (tid == arb->handover_tid) {
            arb->handover_tid = 0;
        }
        return;
    }
    if (tid == arb->handover_tid) {
        arb->handover_tid = 0;
        if (!status && arb->state == VHCA_SM_STATE_MASTER) {
            arb->master_guid = remote.guid;     /* the new master */
            arb_become(arb, VHCA_SM_STATE_STANDBY);
        }
        return;
    }
    if (status) {
        return;                         /* an error: no SM answered */
    }
    if (remote.sm_key && remote.sm_key != arb->conf.sm_key) {
        return;                 /* IBA 14.4.1: another subnet's SM, ignored */
    }
    arb_act(arb, &remote);
}

static uint16_t arb_attr(const void *opaque, uint16_t attr, uint32_t mod,
                         uint8_t *d)
{
    VhcaSmInfo smi;

    vhca_sm_arbiter_info(opaque, &smi);
    vhca_sm_info_encode(&smi, d);
    return 0;
}

/* SubnSet(SMInfo) from another SM (its SMInfo in d): IBA 14.4. */
static uint16_t arb_set(void *opaque, uint16_t attr, uint32_t mod,
                        const uint8_t *d)
{
    VhcaSmArbiter *arb = opaque;
    VhcaSmInfo sender;
    uint16_t status;
    uint8_t next;

    vhca_sm_info_decode(d, &sender);
    if (sender.guid == arb->guid) {
        /* another SM showing this one's GUID: not a master to follow */
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    status = vhca_sm_set_transition(arb->state, mod, sender.state, &next);
    if (status) {
        return status;
    }
    if (mod != VHCA_SMINFO_ACKNOWLEDGE) {
        arb->master_guid = sender.guid;     /* the master to poll */
    }
    if (next != arb->state || mod == VHCA_SMINFO_HANDOVER) {
        arb_become(arb, next);  /* HANDOVER to a MASTER: sweep again */
    }
    return 0;
}

VhcaSmaAction vhca_sm_arbiter_smp(VhcaSmArbiter *arb, const uint8_t *req,
                                  bool dr, uint8_t *resp, uint16_t *status,
                                  int64_t now_ms)
{
    arb->now_ms = now_ms;
    *status = 0;
    if (!arb->conf.embedded || req[VHCA_SMP(base_version)] != 1 ||
        vhca_get_be16(req + VHCA_SMP(attr_id)) != VHCA_SMP_ATTR_SM_INFO) {
        return VHCA_SMA_NOT_MINE;
    }
    if (req[VHCA_SMP(method)] == VHCA_MGMT_METHOD_GET_RESP) {
        if ((vhca_get_be64(req + VHCA_SMP(tid)) & SM_TID_MASK) ==
            SM_TID_BASE) {
            arb_answer(arb, req);
        }
        return VHCA_SMA_CONSUMED;       /* another TID: not its, dropped */
    }
    return vhca_smp_answer(req, dr, arb_attr, arb_set, arb, resp, status);
}
