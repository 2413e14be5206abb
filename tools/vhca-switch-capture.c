/*
 * vhca-switch - captures of its ports (Documentation/fabric-tests.md "Capture"):
 * the frames each port receives and sends, as the IBA packets they stand
 * for, in pcapng (fabric/vhca-capture.c writes them).
 *
 *   --capture FILE [--capture-filter FILTER]
 *                                      every port, one pcapng interface
 *                                      per port, from the start
 *   capture FILE [FILTER]              the same from the control socket
 *   port N capture FILE [FILTER]       port N alone into its own FILE
 *   capture off | port N capture off   stop (the file is complete)
 *
 * FILTER: qpn=N,lid=N,mads,snaplen=N (vhca_capture_filter_parse()).  A
 * port not captured costs one pointer test per frame.  The switch knows
 * no path MTU: a message's packet count says it (vhca-capture.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-switch.h"
#include "vhca-capture.h"

/* Close c unless another port still writes to it. */
static void sw_capture_release(SwPort *ports, int nports, VhcaCapture *c)
{
    for (int i = 0; i < nports; i++) {
        if (ports[i].capture == c) {
            return;
        }
    }
    vhca_capture_close(c);
}

static void sw_capture_stop(SwPort *ports, int nports, SwPort *p)
{
    VhcaCapture *c = p->capture;

    if (c) {
        p->capture = NULL;
        sw_capture_release(ports, nports, c);
    }
}

/*
 * Start capturing port p (NULL: every port, into one file) into path.
 * Returns NULL or what is wrong.
 */
const char *sw_capture_start(SwPort *ports, int nports, SwPort *p,
                             const char *path, const char *filter)
{
    static char why[160];
    const char *names[SW_MAX_PORTS];
    char name_buf[SW_MAX_PORTS][24];
    VhcaCaptureFilter flt;
    const char *bad = vhca_capture_filter_parse(filter, &flt);
    VhcaCapture *c;
    int first = p ? p->num - 1 : 0, n = p ? 1 : nports;

    if (bad) {
        return bad;
    }
    for (int i = 0; i < n; i++) {
        snprintf(name_buf[i], sizeof(name_buf[i]), "switch-port%d",
                 first + i + 1);
        names[i] = name_buf[i];
    }
    c = vhca_capture_open(path, &flt, names, n);
    if (!c) {
        snprintf(why, sizeof(why), "%s: %s", path, strerror(errno));
        return why;
    }
    for (int i = first; i < first + n; i++) {
        sw_capture_stop(ports, nports, &ports[i]);
        ports[i].capture = c;
        ports[i].capture_if = i - first;
    }
    sw_log("capture: %s (%s) into %s\n", p ? "one port" : "every port",
           filter && *filter ? filter : "no filter", path);
    return NULL;
}

void sw_capture_off(SwPort *ports, int nports, SwPort *p)
{
    if (p) {
        sw_capture_stop(ports, nports, p);
        return;
    }
    for (int i = 0; i < nports; i++) {
        sw_capture_stop(ports, nports, &ports[i]);
    }
}

void sw_capture_rx(SwPort *p, const VhcaWireFrame *f)
{
    vhca_capture_frame(p->capture, p->capture_if, false, f, 4096);
}

void sw_capture_tx(SwPort *p, const uint8_t *frame, uint32_t len)
{
    VhcaWireFrame f;

    if (!vhca_wire_parse(frame, len, &f)) {
        vhca_capture_frame(p->capture, p->capture_if, true, &f, 4096);
    }
}

/* The control socket's "capture ..." (after "port N " for one port). */
void sw_capture_command(SwPort *ports, int nports, SwPort *p,
                        const char *args, char *out, size_t size)
{
    char path[108], filter[108] = "";
    const char *why;
    int n = sscanf(args, "capture %107s %107s", path, filter);

    if (n < 1) {
        snprintf(out, size, "error: capture FILE [qpn=N,lid=N,mads,"
                 "snaplen=N] | capture off\n");
        return;
    }
    if (!strcmp(path, "off")) {
        sw_capture_off(ports, nports, p);
        snprintf(out, size, "ok\n");
        return;
    }
    why = sw_capture_start(ports, nports, p, path, filter);
    if (why) {
        snprintf(out, size, "error: %s\n", why);
    } else {
        snprintf(out, size, "ok\n");
    }
}
