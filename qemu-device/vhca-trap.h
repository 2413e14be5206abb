/*
 * vhca - traps an SMA sends its master SM (IBA 14.2.5.1, 13.4.9):
 * vhca-trap.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_MISC_VHCA_TRAP_H
#define HW_MISC_VHCA_TRAP_H

#include "vhca-sma.h"

#define VHCA_MGMT_METHOD_TRAP       0x05
#define VHCA_TRAP_DETAILS           54      /* Notice:DataDetails */
#define VHCA_TRAP_PRODUCER_SWITCH   2       /* IBA Table 130: NodeType */
#define VHCA_TRAP_LINK_STATE        128     /* a switch port's link state */

void vhca_trap_build(uint8_t *mad, uint64_t tid, uint16_t num,
                     uint32_t producer, uint16_t issuer_lid,
                     const uint8_t *details, size_t len);
bool vhca_trap_repressed(const uint8_t *req, uint64_t tid);

#endif /* HW_MISC_VHCA_TRAP_H */
