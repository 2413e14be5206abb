/*
 * vhca - traps (IBA 14.2.5.1 Notice, 13.4.9 Traps): what a node's SMA
 * sends its master SM, unasked, when something changed, repeated until
 * the SM answers with TrapRepress of the same TID.
 *
 * On the in-process fabric with its embedded SM off (vhca-fabric.c): the
 * switch sends Trap 128 ("link state of at least one port of the switch
 * changed", urgent, producer: switch, data: the switch's LID) when a
 * link's state changes by itself (PortStateChange), and a CA port sends
 * Trap 144 (informational, producer: CA, data: its LID and new
 * CapabilityMask) when its CapabilityMask changes (an SM opening issm, an
 * agent registering), so that opensm sweeps at once instead of at its next
 * periodic sweep.  The caller routes the trap (send); here it is built,
 * repeated every VHCA_TRAP_REPEAT_MS with the same TID (at most
 * VHCA_TRAP_MAX_SENDS times: an SM that never answers is not flooded) and
 * stopped by the SM's TrapRepress.  Runs with the BQL held.  The Notice
 * itself is built and recognised in vhca-trap-mad.c (the standalone
 * switch sends Trap 128 with it too).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "vhca-trap.h"

static void vhca_trap_timer(void *opaque)
{
    VhcaTrap *t = opaque;

    if (!t->sends || t->sends > VHCA_TRAP_MAX_SENDS) {
        t->sends = 0;
        return;
    }
    timer_mod(t->timer, qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) +
                        VHCA_TRAP_REPEAT_MS);
    t->sends++;
    t->send(t->opaque, t->mad);
}

void vhca_trap_init(VhcaTrap *t, uint64_t tid_base, VhcaTrapSendFn *send,
                    void *opaque)
{
    memset(t, 0, sizeof(*t));
    t->timer = timer_new_ms(QEMU_CLOCK_VIRTUAL, vhca_trap_timer, t);
    t->send = send;
    t->opaque = opaque;
    t->tid = tid_base;
}

void vhca_trap_raise(VhcaTrap *t, uint8_t type, uint16_t num,
                     uint32_t producer, uint16_t issuer_lid,
                     const uint8_t *details, size_t len)
{
    vhca_trap_build(t->mad, ++t->tid, type, num, producer, issuer_lid,
                    details, len);
    t->sends = 1;
    vhca_trap_timer(t);
}

bool vhca_trap_repress(VhcaTrap *t, const uint8_t *req)
{
    if (!t->sends || !vhca_trap_repressed(req, t->tid)) {
        return false;
    }
    t->sends = 0;
    timer_del(t->timer);
    return true;
}

void vhca_trap_fini(VhcaTrap *t)
{
    if (t->timer) {
        timer_free(t->timer);
        t->timer = NULL;
    }
    t->sends = 0;
}
