/*
 * vhca-switch - Trap 128 of the standalone switch (IBA 14.2.5.1, 13.4.9;
 * Documentation/fabric.md "Traps"): with its embedded SM off or not
 * MASTER, once an SM
 * has given the switch's port 0 a LID and a MasterSMLID, a link that goes
 * down or comes back (a VM's QEMU killed or started, a flap) is told to
 * that SM at once, so opensm sweeps then instead of at its next light
 * sweep.  The Notice is the device's (fabric/vhca-trap-mad.c):
 * urgent, producer switch, LIDADDR the switch's LID, LID-routed by the
 * switch's LFT to QP0 of the SM's port.  It is sent again every
 * VHCA_TRAP_REPEAT_MS with the same TID until the SM's TrapRepress of
 * that TID, at most VHCA_TRAP_MAX_SENDS times; a new change is a new TID.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-switch.h"
#include "vhca-trap-mad.h"

static struct {
    uint64_t tid;               /* of the outstanding trap, or the last */
    uint32_t sends;             /* 0: none outstanding */
    int64_t next_ms;            /* when it goes again */
    uint8_t mad[VHCA_MAD_SIZE];
} sw_trap = { .tid = 0x5754000000000000ull };   /* "WT": the switch's */

/* The trap out of the port the LFT routes the SM's LID to (or lost). */
static void sw_trap_send(SwPort *ports, int nports)
{
    uint8_t out = vhca_switch_lft_port(&sw_node, sw_node.sm_lid);

    sw_trap.sends++;
    sw_trap.next_ms = sw_now_ms() + VHCA_TRAP_REPEAT_MS;
    if (out < 1 || out > nports || ports[out - 1].fd < 0) {
        sw_log("trap 128 tid 0x%" PRIx64 ": no route to SM LID %u\n",
               sw_trap.tid, sw_node.sm_lid);
        return;
    }
    sw_log("trap 128 tid 0x%" PRIx64 " to SM LID %u (send %u)\n",
           sw_trap.tid, sw_node.sm_lid, sw_trap.sends);
    sw_send_smp(&ports[out - 1], sw_node.sm_lid, sw_trap.mad);
}

void sw_trap_link_changed(SwPort *ports, int nports)
{
    uint8_t lid[2];

    if (sw_sm_manages() || !sw_node.lid || !sw_node.sm_lid) {
        return;         /* the embedded SM's own, or nobody to tell yet */
    }
    vhca_put_be16(lid, sw_node.lid);         /* LIDADDR: the switch's */
    vhca_trap_build(sw_trap.mad, ++sw_trap.tid, VHCA_TRAP_TYPE_URGENT,
                    VHCA_TRAP_LINK_STATE, VHCA_TRAP_PRODUCER_SWITCH,
                    sw_node.lid, lid, sizeof(lid));
    sw_trap.sends = 0;
    sw_trap_send(ports, nports);
}

bool sw_trap_repress(const uint8_t *smp)
{
    if (!vhca_trap_repressed(smp, sw_trap.tid)) {
        return false;
    }
    if (sw_trap.sends) {
        sw_log("trap 128 tid 0x%" PRIx64 " repressed\n", sw_trap.tid);
    }
    sw_trap.sends = 0;
    return true;        /* a late one for a finished trap: taken too */
}

int sw_trap_tick(SwPort *ports, int nports)
{
    int64_t now = sw_now_ms();

    if (!sw_trap.sends) {
        return -1;
    }
    if (sw_trap.sends >= VHCA_TRAP_MAX_SENDS) {
        sw_trap.sends = 0;      /* an SM that never answers: not flooded */
        return -1;
    }
    if (now >= sw_trap.next_ms) {
        sw_trap_send(ports, nports);
    }
    return (int)(sw_trap.next_ms - now > 0 ? sw_trap.next_ms - now : 0);
}
