/*
 * vhca-switch - cables between switches (Documentation/fabric-topology.md).  Each switch of a topology is one
 * vhca-switch process (tools/vhca-topology.py starts them from a topology
 * file); a switch-to-switch cable is a unix socket that one switch listens
 * on (DIR/portN) and the other dials (--connect), both ports named by
 * --isl.  Frames cross it unchanged: data by each switch's LFT, SMPs by
 * their directed route (vhca-switch-smp.c) or LID.
 *
 * An inter-switch link trains when its cable is in: both ends LinkUp,
 * INIT, with no HELLO (that is a CA port's description of itself), and
 * each switch tells the master SM by Trap 128 (vhca-switch-trap.c), as it
 * does when the link goes down.  `link N down` on the control socket cuts
 * the cable of --connect port N (it stays out until `link N up`), so a
 * test can fail one inter-switch link and watch the SM reroute.
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

void sw_isl_cable_in(SwPort *p, SwPort *ports, int nports)
{
    fprintf(stderr, "vhca-switch: port %d: switch link up, INIT\n", p->num);
    sw_node_link_up(p);
    sw_trap_link_changed(ports, nports);
}

void sw_link_command(const char *line, SwPort *ports, int nports, char *out,
                     size_t size)
{
    char what[8];
    int num;
    SwPort *p;

    if (sscanf(line, "link %d %7s", &num, what) != 2 ||
        (strcmp(what, "down") && strcmp(what, "up"))) {
        snprintf(out, size, "error: link N down | link N up\n");
        return;
    }
    if (num < 1 || num > nports) {
        snprintf(out, size, "error: no such port\n");
        return;
    }
    p = &ports[num - 1];
    if (!p->connect_path) {
        /* a listening port would take the peer's next dial at once */
        snprintf(out, size, "error: link needs a --connect port: give it "
                 "to the switch that dials\n");
        return;
    }
    if (!strcmp(what, "up")) {
        p->down_until_ms = 0;           /* dialed again by the main loop */
        fprintf(stderr, "vhca-switch: port %d: cable back in\n", p->num);
    } else {
        p->down_until_ms = INT64_MAX;
        if (p->fd >= 0) {
            sw_disconnect(p, "cable cut");
        }
    }
    snprintf(out, size, "ok\n");
}
