/*
 * vhca - fault rules per packet on a device's ports (vhca-port-fault-
 * rules.c; the engine: vhca-fault-rules.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef VHCA_PORT_FAULT_RULES_H
#define VHCA_PORT_FAULT_RULES_H

#include "vhca.h"
#include "vhca-fault-rules.h"
#include "vhca-wire.h"

/* instance_init: the fault-rules and fault-trace properties. */
void vhca_fault_rules_props_init(Object *obj);
/* unrealize: the flap timers go. */
void vhca_fault_rules_free(VhcaState *s);
/* instance_finalize: the rules go. */
void vhca_fault_rules_finalize(VhcaState *s);

/*
 * The verdict of port's device on pkt crossing port (pkt->outbound says
 * which way); a flap is done here, a corrupt packet counted at a receiving
 * port (PortRcvErrors).  The caller does the rest of the action.
 */
VhcaFaultAction vhca_fault_judge(VhcaPort *port, VhcaFaultPkt *pkt,
                                 uint32_t *arg);
/* In-process: pkt leaves from (its device's rules, dir=out), then arrives
 * at to (NULL: nowhere) unless the first gave a verdict. */
VhcaFaultAction vhca_fault_judge_path(VhcaPort *from, VhcaPort *to,
                                      VhcaFaultPkt *pkt, uint32_t *arg);

static inline bool vhca_fault_rules_on(const VhcaPort *a, const VhcaPort *b)
{
    return vhca_fault_rules_active(a->dev->fault_rules) ||
           (b && vhca_fault_rules_active(b->dev->fault_rules));
}

/*
 * Cabled port: frame f (encoded in buf) leaves; true when the rules took
 * care of it (dropped, doubled, held, delayed or sent as a NAK).
 */
bool vhca_fault_rules_egress(VhcaPort *port, VhcaWireFrame *f,
                             const uint8_t *buf, uint32_t len);
/* Cabled port: frame f came in; a NAK verdict has rewritten it. */
VhcaFaultAction vhca_fault_rules_ingress(VhcaPort *port, VhcaWireFrame *f);

#endif /* VHCA_PORT_FAULT_RULES_H */
