/*
 * vhca - the MADs of traps (IBA 14.2.5.1, 13.4.9): vhca-trap-mad.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_TRAP_MAD_H
#define HW_INFINIBAND_VHCA_TRAP_MAD_H

#include "vhca-sma.h"

/* Notice:DataDetails, 54 bytes (vhca-mad.h) */
#define VHCA_TRAP_DETAILS   sizeof(((struct vhca_smp_notice *)0)->details)
#define VHCA_TRAP_TYPE_URGENT       1       /* IBA Table 131 */
#define VHCA_TRAP_TYPE_INFO         4
#define VHCA_TRAP_PRODUCER_CA       1       /* IBA Table 130: NodeType */
#define VHCA_TRAP_PRODUCER_SWITCH   2
#define VHCA_TRAP_LINK_STATE        128     /* a switch port's link state */
#define VHCA_TRAP_CAP_MASK          144     /* a CA port's CapabilityMask */
#define VHCA_TRAP_REPEAT_MS         1000    /* until TrapRepress */
#define VHCA_TRAP_MAX_SENDS         8

/* An SMP Trap(Notice) of trap number num from issuer_lid, details after. */
void vhca_trap_build(uint8_t *mad, uint64_t tid, uint8_t type, uint16_t num,
                     uint32_t producer, uint16_t issuer_lid,
                     const uint8_t *details, size_t len);
/* Is req (VHCA_MAD_SIZE bytes) the SM's TrapRepress of the trap tid? */
bool vhca_trap_repressed(const uint8_t *req, uint64_t tid);
/* The trap number of req if it is a Trap(Notice) SMP to an SM, else -1. */
int vhca_trap_number(const uint8_t *req);
/* The master SM's TrapRepress of trap (VHCA_MAD_SIZE bytes) into resp. */
void vhca_trap_repress_build(uint8_t *resp, const uint8_t *trap, bool dr);

#endif /* HW_INFINIBAND_VHCA_TRAP_MAD_H */
