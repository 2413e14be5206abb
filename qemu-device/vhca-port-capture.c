/*
 * vhca - capture of a cabled port's packets (Documentation/fabric-tests.md
 * "Capture"), started and stopped from QMP or the command line:
 *
 *   -device vhca,...,port1-netdev=wire0,port1-capture=/tmp/p1.pcapng
 *   qom-set vhca0 port1-capture-filter "qpn=0x12,snaplen=128"
 *   qom-set vhca0 port1-capture /tmp/p1.pcapng    start (truncates)
 *   qom-set vhca0 port1-capture ""                stop
 *   qom-get vhca0 port1-capture-stats             "packets P filtered F"
 *
 * The frames the port sends and receives through its netdev (vhca-link.c)
 * are written as the IBA packets they stand for (vhca-capture.c, shared
 * with the standalone switch).  The filter applies to the next start.  A
 * port not captured pays one pointer test per frame.  A port of the
 * in-process fabric has no link frames: capturing it is refused.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "vhca.h"
#include "vhca-capture.h"
#include "vhca-port-capture.h"

static void vhca_capture_stop(VhcaPort *port)
{
    if (port->capture) {
        vhca_capture_close(port->capture);
        port->capture = NULL;
    }
}

static char *vhca_capture_path_get(Object *obj, Error **errp, VhcaPort *port)
{
    return g_strdup(port->capture_path ? port->capture_path : "");
}

/* Capture into value from now on ("": stop). */
static void vhca_capture_start(Object *obj, const char *value, Error **errp,
                               VhcaPort *port)
{
    VhcaCaptureFilter flt;
    const char *why;
    const char *names[1];
    g_autofree char *name = g_strdup_printf("%s-port%u",
                                            DEVICE(obj)->id ?: "vhca",
                                            port->num);

    if (*value && !port->link) {
        error_setg(errp, "vhca: port%u-capture: port %u is not cabled out "
                   "(portN-netdev); the in-process fabric is not captured",
                   port->num, port->num);
        return;
    }
    why = vhca_capture_filter_parse(port->capture_filter, &flt);
    if (why) {
        error_setg(errp, "vhca: port%u-capture-filter: %s", port->num, why);
        return;
    }
    vhca_capture_stop(port);
    g_free(port->capture_path);
    port->capture_path = NULL;
    if (!*value) {
        return;
    }
    names[0] = name;
    port->capture = vhca_capture_open(value, &flt, names, 1);
    if (!port->capture) {
        error_setg_errno(errp, errno, "vhca: port%u-capture: %s", port->num,
                         value);
        return;
    }
    port->capture_path = g_strdup(value);
}

/* -device (started at realize, once the port is cabled) or qom-set. */
static void vhca_capture_path_set(Object *obj, const char *value,
                                  Error **errp, VhcaPort *port)
{
    if (!DEVICE(obj)->realized) {
        g_free(port->capture_path);
        port->capture_path = g_strdup(value);
        return;
    }
    vhca_capture_start(obj, value, errp, port);
}

static char *vhca_capture_filter_get(Object *obj, Error **errp,
                                     VhcaPort *port)
{
    return g_strdup(port->capture_filter ? port->capture_filter : "");
}

static void vhca_capture_filter_set(Object *obj, const char *value,
                                    Error **errp, VhcaPort *port)
{
    VhcaCaptureFilter flt;
    const char *why = vhca_capture_filter_parse(value, &flt);

    if (why) {
        error_setg(errp, "vhca: port%u-capture-filter: %s", port->num, why);
        return;
    }
    g_free(port->capture_filter);
    port->capture_filter = g_strdup(value);
}

static char *vhca_capture_stats_get(Object *obj, Error **errp, VhcaPort *port)
{
    uint64_t written = 0, filtered = 0;

    if (port->capture) {
        vhca_capture_stats(port->capture, &written, &filtered);
    }
    return g_strdup_printf("packets %" PRIu64 " filtered %" PRIu64,
                           written, filtered);
}

/* QOM string properties take no opaque: one accessor per port number. */
#define VHCA_CAPTURE_ACCESSORS(n)                                           \
static char *vhca_p##n##_capture_get(Object *o, Error **e)                  \
{ return vhca_capture_path_get(o, e, &VHCA(o)->ports[n - 1]); }             \
static void vhca_p##n##_capture_set(Object *o, const char *v, Error **e)    \
{ vhca_capture_path_set(o, v, e, &VHCA(o)->ports[n - 1]); }                 \
static char *vhca_p##n##_filter_get(Object *o, Error **e)                   \
{ return vhca_capture_filter_get(o, e, &VHCA(o)->ports[n - 1]); }           \
static void vhca_p##n##_filter_set(Object *o, const char *v, Error **e)     \
{ vhca_capture_filter_set(o, v, e, &VHCA(o)->ports[n - 1]); }               \
static char *vhca_p##n##_stats_get(Object *o, Error **e)                    \
{ return vhca_capture_stats_get(o, e, &VHCA(o)->ports[n - 1]); }

VHCA_CAPTURE_ACCESSORS(1)
VHCA_CAPTURE_ACCESSORS(2)
QEMU_BUILD_BUG_ON(VHCA_MAX_PORTS != 2);

void vhca_port_capture_init(Object *obj)
{
    static const struct {
        const char *name;
        char *(*get)(Object *, Error **);
        void (*set)(Object *, const char *, Error **);
        const char *description;
    } props[] = {
        { "port1-capture", vhca_p1_capture_get, vhca_p1_capture_set,
          "pcapng file of port 1's packets (\"\": off)" },
        { "port1-capture-filter", vhca_p1_filter_get, vhca_p1_filter_set,
          "qpn=N,lid=N,mads,snaplen=N: what the next capture keeps" },
        { "port1-capture-stats", vhca_p1_stats_get, NULL,
          "packets written and filtered out" },
        { "port2-capture", vhca_p2_capture_get, vhca_p2_capture_set,
          "pcapng file of port 2's packets (\"\": off)" },
        { "port2-capture-filter", vhca_p2_filter_get, vhca_p2_filter_set,
          "qpn=N,lid=N,mads,snaplen=N: what the next capture keeps" },
        { "port2-capture-stats", vhca_p2_stats_get, NULL,
          "packets written and filtered out" },
    };

    for (size_t i = 0; i < ARRAY_SIZE(props); i++) {
        object_property_add_str(obj, props[i].name, props[i].get,
                                props[i].set);
        object_property_set_description(obj, props[i].name,
                                        props[i].description);
    }
}

bool vhca_port_capture_realize(VhcaPort *port, Error **errp)
{
    g_autofree char *path = port->capture_path;
    Error *err = NULL;

    port->capture_path = NULL;
    if (path && *path) {
        vhca_capture_start(OBJECT(port->dev), path, &err, port);
    }
    if (err) {
        error_propagate(errp, err);
        return false;
    }
    return true;
}

void vhca_port_capture_frame(VhcaPort *port, const VhcaWireFrame *f,
                             bool outbound)
{
    vhca_capture_frame(port->capture, 0, outbound, f,
                       VHCA_MTU_BYTES(VHCA_MTU_4096));
}

void vhca_port_capture_free(VhcaPort *port)
{
    vhca_capture_stop(port);
    g_free(port->capture_path);
    port->capture_path = NULL;
}
