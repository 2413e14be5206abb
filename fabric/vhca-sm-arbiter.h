/*
 * vhca - an embedded SM's part in SMInfo arbitration (IBA 14.4.1.1): the
 * polls, hand-overs and take-overs around the decisions of vhca-sm-state.c,
 * shared by the in-process fabric's switch (vhca-fabric-sm.c) and the
 * standalone switch (tools/vhca-switch-sm.c).
 *
 * No timers and no sending of its own: the arbiter builds its SMPs and
 * hands them to ops->send, learns the SMs to look at from ops->sm_ports,
 * tells ops->became of a state change, and keeps in due_ms when
 * vhca_sm_arbiter_tick() wants to run next; the caller arms its timer (a
 * QEMUTimer, or the standalone switch's poll() timeout) from that after
 * every call.  Every entry point takes the caller's clock in ms.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_SM_ARBITER_H
#define HW_INFINIBAND_VHCA_SM_ARBITER_H

#include "vhca-sma.h"
#include "vhca-sm-state.h"

#define VHCA_SM_POLL_MIN_MS         100
#define VHCA_SM_POLL_MAX_MS         600000
#define VHCA_SM_POLL_DEFAULT_MS     10000
#define VHCA_SM_RETRIES_DEFAULT     4
#define VHCA_SM_KEY_DEFAULT         1

typedef struct VhcaSmArbiter VhcaSmArbiter;

typedef struct VhcaSmArbiterOps {
    /*
     * Send mad (a LID-routed SubnGet/SubnSet(SMInfo), VHCA_MAD_SIZE bytes)
     * to QP0 of the port whose GUID is guid; false when it cannot go.
     */
    bool (*send)(VhcaSmArbiter *arb, uint64_t guid, const uint8_t *mad);
    /* The GUIDs (at most max) of the ports with an SM to look at. */
    int (*sm_ports)(VhcaSmArbiter *arb, uint64_t *guids, int max);
    /* arb->state has changed from old (entering MASTER: sweep again). */
    void (*became)(VhcaSmArbiter *arb, uint8_t old);
} VhcaSmArbiterOps;

struct VhcaSmArbiter {
    const VhcaSmArbiterOps *ops;
    void *opaque;                       /* the caller's */
    VhcaFabricSmConf conf;
    uint64_t guid;                      /* its SMInfo:GUID (port 0's) */
    uint8_t state;                      /* SMInfo:SMState, IBA 14.4 */
    uint32_t act_count;                 /* SMInfo:ActCount: sweeps, SMPs */
    uint16_t unanswered;                /* polls of the master unanswered */
    uint64_t master_guid;               /* the SM it polls when not master */
    uint64_t tid;                       /* the TID of its last request */
    uint64_t handover_guid;             /* the SM to hand over to next */
    uint64_t handover_tid;              /* a HANDOVER awaiting its answer */
    int64_t due_ms;                     /* tick due at (-1: not armed) */
    int64_t now_ms;                     /* the clock of the current call */
};

/* What is wrong with conf (a constant text), or NULL. */
const char *vhca_sm_conf_invalid(const VhcaFabricSmConf *conf);

/* Start MASTER, alone on its subnet; the first look in conf.poll_ms. */
void vhca_sm_arbiter_init(VhcaSmArbiter *arb, const VhcaSmArbiterOps *ops,
                          void *opaque, const VhcaFabricSmConf *conf,
                          uint64_t guid, int64_t now_ms);

/* Its SMInfo (IBA 14.4.1): SM_Key too, there is no M_Key to check. */
void vhca_sm_arbiter_info(const VhcaSmArbiter *arb, VhcaSmInfo *smi);

/* due_ms has come: MASTER looks at the other SMs, else polls the master. */
void vhca_sm_arbiter_tick(VhcaSmArbiter *arb, int64_t now_ms);

/* A CA port's CapabilityMask gained IsSM: a MASTER looks soon. */
void vhca_sm_arbiter_sm_appeared(VhcaSmArbiter *arb, int64_t now_ms);

/*
 * An SMP to the SM (LID-routed to its port or directed to port 0):
 * SMInfo Get and Set answered in resp (*status its MAD status), a GetResp
 * to one of its own requests taken (CONSUMED); NOT_MINE for any other
 * attribute.
 */
VhcaSmaAction vhca_sm_arbiter_smp(VhcaSmArbiter *arb, const uint8_t *req,
                                  bool dr, uint8_t *resp, uint16_t *status,
                                  int64_t now_ms);

#endif /* HW_INFINIBAND_VHCA_SM_ARBITER_H */
