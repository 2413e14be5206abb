/*
 * vhca - the state machine of a subnet manager (vhca-sm-state.h).
 *
 * The transitions are those of IBA 14.4 (the SM state diagram) as opensm
 * implements them (osm_sm_state_mgr_check_legality): a MASTER takes only
 * HANDOVER (from another master: sweep again); a STANDBY takes HANDOVER
 * (it becomes MASTER), DISABLE (NOT-ACTIVE), DISCOVER (DISCOVERING) and
 * ACKNOWLEDGE (nothing to do); a NOT-ACTIVE SM only STANDBY; a
 * DISCOVERING one HANDOVER.  HANDOVER, DISABLE, STANDBY and DISCOVER come
 * from a MASTER, ACKNOWLEDGE from a STANDBY (the sender's SMInfo says
 * which); anything else is refused with "invalid attribute value".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-sma.h"
#include "vhca-sm-state.h"

/* IBA 14.4.1 Table "SMInfo": GUID, SM_Key, ActCount, Priority|SMState. */
#define SMINFO_GUID         VHCA_MAD_OFF(vhca_smp_sm_info, guid)
#define SMINFO_SM_KEY       VHCA_MAD_OFF(vhca_smp_sm_info, sm_key)
#define SMINFO_ACT_COUNT    VHCA_MAD_OFF(vhca_smp_sm_info, act_count)
#define SMINFO_PRI_STATE    VHCA_MAD_OFF(vhca_smp_sm_info, priority_state)

void vhca_sm_info_encode(const VhcaSmInfo *smi, uint8_t *d)
{
    memset(d, 0, VHCA_SMP_DATA_SIZE);
    vhca_put_be64(d + SMINFO_GUID, smi->guid);
    vhca_put_be64(d + SMINFO_SM_KEY, smi->sm_key);
    vhca_put_be32(d + SMINFO_ACT_COUNT, smi->act_count);
    d[SMINFO_PRI_STATE] = (smi->priority & 0xf) << 4 | (smi->state & 0xf);
}

void vhca_sm_info_decode(const uint8_t *d, VhcaSmInfo *smi)
{
    smi->guid = vhca_get_be64(d + SMINFO_GUID);
    smi->sm_key = vhca_get_be64(d + SMINFO_SM_KEY);
    smi->act_count = vhca_get_be32(d + SMINFO_ACT_COUNT);
    smi->priority = d[SMINFO_PRI_STATE] >> 4;
    smi->state = d[SMINFO_PRI_STATE] & 0xf;
}

bool vhca_sm_outranks(uint8_t pri_a, uint64_t guid_a, uint8_t pri_b,
                      uint64_t guid_b)
{
    return pri_a != pri_b ? pri_a > pri_b : guid_a < guid_b;
}

/* The sender a modifier needs: ACKNOWLEDGE a STANDBY, the rest a MASTER. */
static bool sm_set_sender_ok(uint32_t mod, uint8_t sender_state)
{
    switch (mod) {
    case VHCA_SMINFO_ACKNOWLEDGE:
        return sender_state == VHCA_SM_STATE_STANDBY;
    case VHCA_SMINFO_HANDOVER:
    case VHCA_SMINFO_DISABLE:
    case VHCA_SMINFO_STANDBY:
    case VHCA_SMINFO_DISCOVER:
        return sender_state == VHCA_SM_STATE_MASTER;
    default:
        return false;
    }
}

/* The state a legal request leads to from state, or -1. */
static int sm_set_next(uint8_t state, uint32_t mod)
{
    switch (state) {
    case VHCA_SM_STATE_MASTER:
    case VHCA_SM_STATE_DISCOVERING:
        return mod == VHCA_SMINFO_HANDOVER ? VHCA_SM_STATE_MASTER : -1;
    case VHCA_SM_STATE_STANDBY:
        switch (mod) {
        case VHCA_SMINFO_HANDOVER:
            return VHCA_SM_STATE_MASTER;
        case VHCA_SMINFO_DISABLE:
            return VHCA_SM_STATE_NOT_ACTIVE;
        case VHCA_SMINFO_DISCOVER:
            return VHCA_SM_STATE_DISCOVERING;
        case VHCA_SMINFO_ACKNOWLEDGE:
            return VHCA_SM_STATE_STANDBY;
        default:
            return -1;
        }
    case VHCA_SM_STATE_NOT_ACTIVE:
        return mod == VHCA_SMINFO_STANDBY ? VHCA_SM_STATE_STANDBY : -1;
    default:
        return -1;
    }
}

uint16_t vhca_sm_set_transition(uint8_t state, uint32_t mod,
                                uint8_t sender_state, uint8_t *next)
{
    int n = sm_set_sender_ok(mod, sender_state) ? sm_set_next(state, mod)
                                                 : -1;

    *next = state;
    if (n < 0) {
        return VHCA_MAD_STATUS_INVALID_ATTR_VALUE;
    }
    *next = n;
    return 0;
}

/* A standby's poll answered (opensm's osm_sminfo_rcv: process_get_sm). */
static VhcaSmVerdict sm_judge_polled(uint8_t priority, uint64_t guid,
                                     const VhcaSmInfo *remote)
{
    if (remote->state == VHCA_SM_STATE_MASTER) {
        return VHCA_SM_MASTER_ALIVE;
    }
    /* a master that handed over to us went STANDBY: alive if it is higher */
    if (remote->state == VHCA_SM_STATE_STANDBY &&
        vhca_sm_outranks(remote->priority, remote->guid, priority, guid)) {
        return VHCA_SM_MASTER_ALIVE;
    }
    return VHCA_SM_IGNORE;
}

/*
 * A master found another SM (IBA 14.4.1.1): a higher standby gets the
 * subnet by HANDOVER; a higher master keeps it (this SM polls it as a
 * standby); a higher SM still discovering is asked again once it has
 * decided (a HANDOVER now would only make it sweep again).
 */
static VhcaSmVerdict sm_judge_as_master(uint8_t priority, uint64_t guid,
                                        const VhcaSmInfo *remote)
{
    if (!vhca_sm_outranks(remote->priority, remote->guid, priority, guid)) {
        return VHCA_SM_IGNORE;
    }
    switch (remote->state) {
    case VHCA_SM_STATE_STANDBY:
        return VHCA_SM_HAND_OVER;
    case VHCA_SM_STATE_MASTER:
        return VHCA_SM_STEP_DOWN;
    case VHCA_SM_STATE_DISCOVERING:
        return VHCA_SM_ASK_AGAIN;
    default:
        return VHCA_SM_IGNORE;
    }
}

VhcaSmVerdict vhca_sm_judge(uint8_t state, uint8_t priority, uint64_t guid,
                            const VhcaSmInfo *remote, bool polled)
{
    if (remote->guid == guid) {
        return VHCA_SM_IGNORE;          /* itself */
    }
    switch (state) {
    case VHCA_SM_STATE_STANDBY:
    case VHCA_SM_STATE_DISCOVERING:
        return polled ? sm_judge_polled(priority, guid, remote)
                      : VHCA_SM_IGNORE;
    case VHCA_SM_STATE_MASTER:
        return sm_judge_as_master(priority, guid, remote);
    default:
        return VHCA_SM_IGNORE;
    }
}

const char *vhca_sm_state_name(uint8_t state)
{
    static const char *const names[] = {
        "NOT-ACTIVE", "DISCOVERING", "STANDBY", "MASTER",
    };

    return state < ARRAY_SIZE(names) ? names[state] : "?";
}
