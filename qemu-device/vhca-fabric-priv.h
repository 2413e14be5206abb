/*
 * vhca - the in-process fabric's state, shared by its files: the ports
 * and switch (vhca-fabric.c), SMPs through the switch (vhca-fabric-smp.c)
 * and the embedded SM's part in SMInfo arbitration (vhca-fabric-sm.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_FABRIC_PRIV_H
#define HW_INFINIBAND_VHCA_FABRIC_PRIV_H

#include "vhca.h"
#include "vhca-sa.h"
#include "vhca-sm-arbiter.h"
#include "vhca-switch-sma.h"
#include "vhca-trap.h"
#include "vhca-wire.h"            /* VHCA_WIRE_SM_LID */

struct VhcaFabric {
    char *name;
    QTAILQ_HEAD(, VhcaPort) ports;
    GHashTable *lid_by_guid;            /* uint64_t GUID -> LID */
    uint16_t next_lid;
    QEMUTimer *sm_timer;
    VhcaSa *sa;                         /* the SM's subnet administration */
    bool sm_off;                        /* no embedded SM at all */
    VhcaSwitchNode *sw;                 /* what an SM in a guest programmed */
    VhcaTrap trap;                      /* the switch's Trap 128 */
    VhcaPort *switch_ports[VHCA_SWITCH_MAX_PORTS + 1];  /* cabled to 1..N */
    /* The switch's PMA counters, port 0 (management) first. */
    VhcaPortCounters switch_counters[VHCA_SWITCH_MAX_PORTS + 1];
    /* The embedded SM beside SMs in guests (vhca-fabric-sm.c). */
    VhcaSmArbiter arb;                  /* state, conf, ActCount, polls */
    uint64_t sm_guid;                   /* the switch's port 0 GUID */
    QEMUTimer *sm_poll_timer;           /* runs the arbiter's tick */
    bool sm_rereg;                      /* next sweep: every port again */
};

/*
 * Does an SM in a guest manage the fabric (the switch and the CA ports
 * take its Sets, the switch forwards by the tables it wrote)?  So with
 * no embedded SM, and while the embedded one is not MASTER.
 */
static inline bool vhca_fabric_guest_managed(const VhcaFabric *f)
{
    return f->sm_off || f->arb.state != VHCA_SM_STATE_MASTER;
}

/* vhca-fabric.c */
void vhca_fabric_schedule_sweep(VhcaFabric *f);

/* vhca-fabric-switch.c */
uint8_t vhca_fabric_free_switch_port(VhcaFabric *f);
uint8_t vhca_fabric_switch_num_ports(const VhcaFabric *f);
void vhca_fabric_switch_create(VhcaFabric *f);
void vhca_fabric_switch_link(VhcaPort *port, uint8_t state);
void vhca_fabric_switch_adopt(VhcaFabric *f);
VhcaPort *vhca_fabric_switch_out(VhcaFabric *f, uint16_t dlid);

/* vhca-fabric-sm.c */
bool vhca_fabric_sm_configure(VhcaFabric *f, const VhcaFabricSmConf *conf,
                              bool first, Error **errp);

#endif /* HW_INFINIBAND_VHCA_FABRIC_PRIV_H */
