/*
 * vhca - the MADs of traps (IBA 14.2.5.1 Notice, 13.4.9 Traps): a Trap
 * SMP and the SM's TrapRepress that ends its repeats.  Pure (no timers,
 * no device state), so that the standalone switch (tools/vhca-switch-
 * trap.c) builds its traps with the same code as the device (vhca-trap.c),
 * and both embedded SMs (vhca-fabric-sm.c, tools/vhca-switch-sm.c) answer
 * the traps they get with the same TrapRepress.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-trap-mad.h"

#define SMP_STATUS              VHCA_SMP(status)
#define NOTICE_OFF(field)       VHCA_MAD_OFF(vhca_smp_notice, field)

/* An SMP Trap(Notice) of trap number num from issuer_lid, details after. */
void vhca_trap_build(uint8_t *mad, uint64_t tid, uint8_t type, uint16_t num,
                     uint32_t producer, uint16_t issuer_lid,
                     const uint8_t *details, size_t len)
{
    uint8_t *d = mad + VHCA_SMP_DATA_OFF;

    vhca_smp_request(mad, VHCA_MGMT_METHOD_TRAP, tid, VHCA_SMP_ATTR_NOTICE, 0);
    d[NOTICE_OFF(generic_type)] = VHCA_NOTICE_GENERIC | type;
    d[NOTICE_OFF(producer_type)] = producer >> 16;      /* 24 bits */
    d[NOTICE_OFF(producer_type) + 1] = producer >> 8;
    d[NOTICE_OFF(producer_type) + 2] = producer;
    vhca_put_be16(d + NOTICE_OFF(trap_number), num);
    vhca_put_be16(d + NOTICE_OFF(issuer_lid), issuer_lid);
    /* NoticeToggle 0, NoticeCount 0: a trap, not a report */
    memcpy(d + NOTICE_OFF(details), details, MIN(len, VHCA_TRAP_DETAILS));
}

/* Is req (VHCA_MAD_SIZE bytes) the SM's TrapRepress of the trap tid? */
bool vhca_trap_repressed(const uint8_t *req, uint64_t tid)
{
    return req[VHCA_SMP(base_version)] == 1 &&
           req[VHCA_SMP(mgmt_class)] == VHCA_MGMT_CLASS_SUBN_LID &&
           req[VHCA_SMP(method)] == VHCA_MGMT_METHOD_TRAP_REPRESS &&
           vhca_get_be16(req + VHCA_SMP(attr_id)) == VHCA_SMP_ATTR_NOTICE &&
           vhca_get_be64(req + VHCA_SMP(tid)) == tid;
}

/* The trap number of req if it is a Trap(Notice) SMP to an SM, else -1. */
int vhca_trap_number(const uint8_t *req)
{
    uint8_t mclass = req[VHCA_SMP(mgmt_class)];

    if (req[VHCA_SMP(base_version)] != 1 ||
        (mclass != VHCA_MGMT_CLASS_SUBN_LID && mclass != VHCA_MGMT_CLASS_SUBN_DR) ||
        req[VHCA_SMP(method)] != VHCA_MGMT_METHOD_TRAP ||
        vhca_get_be16(req + VHCA_SMP(attr_id)) != VHCA_SMP_ATTR_NOTICE) {
        return -1;
    }
    return vhca_get_be16(req + VHCA_SMP_DATA_OFF + NOTICE_OFF(trap_number));
}

/*
 * The master SM's TrapRepress of trap into resp (IBA 13.4.9): the Trap
 * with method TrapRepress, its TID, attribute, modifier and Notice kept
 * (opensm echoes the Notice too), the D bit for a directed route as in
 * every answer (IBA 14.2.2.2).  The sender's MAD layer takes it as the
 * answer of its Trap (ib_mad: TrapRepress is a response method) and stops
 * repeating it.
 */
void vhca_trap_repress_build(uint8_t *resp, const uint8_t *trap, bool dr)
{
    memcpy(resp, trap, VHCA_MAD_SIZE);
    resp[VHCA_SMP(method)] = VHCA_MGMT_METHOD_TRAP_REPRESS;
    vhca_put_be16(resp + SMP_STATUS, dr ? VHCA_SMP_DIRECTION : 0);
}
