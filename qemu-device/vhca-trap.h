/*
 * vhca - traps an SMA sends its master SM (IBA 14.2.5.1, 13.4.9):
 * vhca-trap.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_TRAP_H
#define HW_INFINIBAND_VHCA_TRAP_H

#include "qemu/timer.h"
#include "vhca-trap-mad.h"

/* Sends mad (VHCA_MAD_SIZE bytes) towards the master SM, or drops it. */
typedef void VhcaTrapSendFn(void *opaque, const uint8_t *mad);

/* One outstanding trap of a node: repeated until repressed. */
typedef struct VhcaTrap {
    QEMUTimer *timer;
    VhcaTrapSendFn *send;
    void *opaque;
    uint64_t tid;                   /* of the outstanding trap, or the last */
    uint32_t sends;                 /* 0: none outstanding */
    uint8_t mad[VHCA_MAD_SIZE];
} VhcaTrap;

void vhca_trap_init(VhcaTrap *t, uint64_t tid_base, VhcaTrapSendFn *send,
                    void *opaque);
/* A new trap (a new TID): sent now, then every VHCA_TRAP_REPEAT_MS. */
void vhca_trap_raise(VhcaTrap *t, uint8_t type, uint16_t num,
                     uint32_t producer, uint16_t issuer_lid,
                     const uint8_t *details, size_t len);
/* An SMP to the node: its TrapRepress ends the repeats (true). */
bool vhca_trap_repress(VhcaTrap *t, const uint8_t *req);
void vhca_trap_fini(VhcaTrap *t);

#endif /* HW_INFINIBAND_VHCA_TRAP_H */
