/*
 * vhca - the state machine of a subnet manager (IBA 14.4): the SMInfo
 * attribute it answers with, the SubnSet(SMInfo) requests it takes, and
 * what it makes of another SM's SMInfo.  The embedded SM of the in-process
 * fabric (vhca-fabric-sm.c) runs it beside an SM in a guest such as
 * opensm, so that SMInfo decides the master as on a real subnet.
 *
 * Pure (no device or timer state), as opensm's osm_sm_state_mgr.c and
 * osm_sminfo_rcv.c decide: the caller sends the SMPs and keeps the timers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_SM_STATE_H
#define HW_INFINIBAND_VHCA_SM_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* IBA 14.4.1 SMInfo:SMState */
#define VHCA_SM_STATE_NOT_ACTIVE    0
#define VHCA_SM_STATE_DISCOVERING   1
#define VHCA_SM_STATE_STANDBY       2
#define VHCA_SM_STATE_MASTER        3

/* IBA 14.4.1: the AttributeModifier of SubnSet(SMInfo). */
#define VHCA_SMINFO_HANDOVER        1
#define VHCA_SMINFO_ACKNOWLEDGE     2
#define VHCA_SMINFO_DISABLE         3
#define VHCA_SMINFO_STANDBY         4
#define VHCA_SMINFO_DISCOVER        5

#define VHCA_SM_PRIORITY_MAX        15      /* SMInfo:Priority, 4 bits */

/* The SMInfo attribute (IBA 14.4.1, 64 bytes of SMP data). */
typedef struct VhcaSmInfo {
    uint64_t guid;              /* the SM's port GUID */
    uint64_t sm_key;
    uint32_t act_count;         /* ActCount: it moves while the SM works */
    uint8_t priority;
    uint8_t state;              /* VHCA_SM_STATE_* */
} VhcaSmInfo;

void vhca_sm_info_encode(const VhcaSmInfo *smi, uint8_t *d);
void vhca_sm_info_decode(const uint8_t *d, VhcaSmInfo *smi);

/*
 * IBA 14.4.1.1: does the SM (pri_a, guid_a) outrank (pri_b, guid_b)?
 * The higher priority wins, then the lower GUID.
 */
bool vhca_sm_outranks(uint8_t pri_a, uint64_t guid_a, uint8_t pri_b,
                      uint64_t guid_b);

/*
 * SubnSet(SMInfo) with modifier mod, from an SM whose SMInfo (the
 * request's data) says sender_state, to an SM in state: the MAD status
 * (0, or VHCA_MAD_STATUS_INVALID_ATTR_VALUE for a request the state does
 * not take) and in *next the state after it.
 */
uint16_t vhca_sm_set_transition(uint8_t state, uint32_t mod,
                                uint8_t sender_state, uint8_t *next);

/* What an SM does with another SM's SMInfo (a GetResp it asked for). */
typedef enum VhcaSmVerdict {
    VHCA_SM_IGNORE,             /* nothing to do */
    VHCA_SM_MASTER_ALIVE,       /* the polled master answered: retries 0 */
    VHCA_SM_HAND_OVER,          /* master: give that SM the subnet */
    VHCA_SM_STEP_DOWN,          /* master: a higher master; poll it */
    VHCA_SM_ASK_AGAIN,          /* master: it is still discovering */
} VhcaSmVerdict;

/*
 * An SM in state (priority, guid) got remote's SMInfo; polled: remote is
 * the master it polls (STANDBY, DISCOVERING) or not.
 */
VhcaSmVerdict vhca_sm_judge(uint8_t state, uint8_t priority, uint64_t guid,
                            const VhcaSmInfo *remote, bool polled);

const char *vhca_sm_state_name(uint8_t state);

/*
 * The switch's embedded SM, as the devices' properties configure it
 * (every device on a fabric must agree; vhca-fabric-sm.c), or the
 * standalone switch's options (tools/vhca-switch-sm.c).
 */
typedef struct VhcaFabricSmConf {
    bool embedded;              /* embedded-sm: it runs at all */
    uint8_t priority;           /* sm-priority: SMInfo:Priority, 0..15 */
    uint32_t poll_ms;           /* sm-poll-ms: a standby's polling interval */
    uint8_t poll_retries;       /* sm-poll-retries: unanswered polls */
    uint64_t sm_key;            /* sm-key: SMInfo:SM_Key, shared by SMs */
} VhcaFabricSmConf;

#endif /* HW_INFINIBAND_VHCA_SM_STATE_H */
