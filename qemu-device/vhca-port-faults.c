/*
 * vhca - faults on a cabled port's link (Documentation/fabric-tests.md "Faults
 * on demand"), set by properties and changed at run time from QMP:
 *
 *   qom-set vhca0 port2-loss 5        percent of data frames lost
 *   qom-set vhca0 port2-dup 1         ... sent twice
 *   qom-set vhca0 port2-reorder 2     ... held back behind the next frame
 *   qom-set vhca0 port2-corrupt 1     ... dropped as a bad ICRC would be
 *   qom-set vhca0 port2-delay-ms 20   added delay of every data frame
 *   qom-get vhca0 port2-fault-stats   "lost L dup D reordered R icrc I
 *                                      delayed N"
 *
 * They act on the frames the port sends through its netdev (vhca-link.c),
 * the engine shared with the standalone switch (vhca-link-faults.c); HELLO
 * and LINK frames, the link's training, pass untouched.  Delays run on the
 * virtual clock, so a stopped VM holds its frames.  A port of the
 * in-process fabric has no such link: setting a rate there is refused.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "vhca.h"
#include "vhca-link.h"
#include "vhca-port-faults.h"

/* One settable field of a port's rates. */
typedef struct VhcaFaultProp {
    const char *suffix;
    size_t offset;              /* in VhcaFaultRates */
    const char *description;
} VhcaFaultProp;

static const VhcaFaultProp vhca_fault_props[] = {
    { "loss", offsetof(VhcaFaultRates, loss),
      "percent of the data frames sent by the port's link that are lost" },
    { "dup", offsetof(VhcaFaultRates, dup),
      "percent of them sent twice" },
    { "reorder", offsetof(VhcaFaultRates, reorder),
      "percent of them held back and sent after the next one" },
    { "corrupt", offsetof(VhcaFaultRates, corrupt),
      "percent of them dropped as a receiver drops a bad ICRC" },
    { "delay-ms", offsetof(VhcaFaultRates, delay_ms),
      "milliseconds every data frame waits (0..10000)" },
};

/* The opaque of one property: the port and the field. */
typedef struct VhcaFaultPropRef {
    VhcaPort *port;
    const VhcaFaultProp *prop;
} VhcaFaultPropRef;

static uint32_t *vhca_fault_field(VhcaFaultRates *r, const VhcaFaultProp *p)
{
    return (uint32_t *)((uint8_t *)r + p->offset);
}

static void vhca_fault_prop_get(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    VhcaFaultPropRef *ref = opaque;
    uint32_t value = *vhca_fault_field(&ref->port->faults.rates, ref->prop);

    visit_type_uint32(v, name, &value, errp);
}

/* qom-set (the BQL is held) or -device: checked, then in effect at once. */
static void vhca_fault_prop_set(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    VhcaFaultPropRef *ref = opaque;
    VhcaPort *port = ref->port;
    VhcaFaultRates rates = port->faults.rates;
    uint32_t value;

    if (!visit_type_uint32(v, name, &value, errp)) {
        return;
    }
    *vhca_fault_field(&rates, ref->prop) = value;
    if (!vhca_fault_rates_valid(&rates)) {
        error_setg(errp, "vhca: %s: rates are 0..100 percent, the delay "
                   "0..%u ms", name, VHCA_FAULT_MAX_DELAY_MS);
        return;
    }
    if (DEVICE(obj)->realized && value && !port->link) {
        error_setg(errp, "vhca: %s: port %u is not cabled out (portN-netdev)",
                   name, port->num);
        return;
    }
    port->faults.rates = rates;
}

/* Each property owns its reference: freed when the object's properties
 * are, at finalize (also of an instance that is never realized: -device
 * help, the NIC model list that q35's board init builds, device-list-
 * properties).  Found by generic-fuzz-vhca's leak check. */
static void vhca_fault_prop_release(Object *obj, const char *name,
                                    void *opaque)
{
    g_free(opaque);
}

static void vhca_fault_stats_get(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    const VhcaFaultStats *st = &((VhcaPort *)opaque)->faults.stats;
    g_autofree char *text = g_strdup_printf(
        "lost %" PRIu64 " dup %" PRIu64 " reordered %" PRIu64 " icrc %"
        PRIu64 " delayed %" PRIu64, st->lost, st->duplicated, st->reordered,
        st->icrc_errors, st->delayed);

    visit_type_str(v, name, &text, errp);
}

static void vhca_fault_put(void *opaque, const uint8_t *frame, uint32_t len)
{
    vhca_link_put(opaque, frame, len);
}

void vhca_port_faults_init(Object *obj, VhcaPort *port)
{
    size_t i;
    char *name;

    vhca_faults_init(&port->faults, 0x5648434100000000ull | port->num,
                     vhca_fault_put, port);
    for (i = 0; i < ARRAY_SIZE(vhca_fault_props); i++) {
        VhcaFaultPropRef *ref = g_new(VhcaFaultPropRef, 1);

        ref->port = port;
        ref->prop = &vhca_fault_props[i];
        name = g_strdup_printf("port%u-%s", port->num, ref->prop->suffix);
        object_property_add(obj, name, "uint32", vhca_fault_prop_get,
                            vhca_fault_prop_set, vhca_fault_prop_release,
                            ref);
        object_property_set_description(obj, name, ref->prop->description);
        g_free(name);
    }
    name = g_strdup_printf("port%u-fault-stats", port->num);
    object_property_add(obj, name, "str", vhca_fault_stats_get, NULL, NULL,
                        port);
    object_property_set_description(obj, name, "what the faults did");
    g_free(name);
}

static void vhca_port_faults_tick(void *opaque)
{
    VhcaPort *port = opaque;
    int64_t next = vhca_faults_due(&port->faults,
                                   qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL));

    if (next >= 0) {
        timer_mod(port->fault_timer,
                  qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) + next);
    }
}

/* Frames wait in the delay FIFO: the timer runs for the first one due. */
static void vhca_port_faults_arm(VhcaPort *port)
{
    if (port->faults.delayed) {
        if (!port->fault_timer) {
            port->fault_timer = timer_new_ms(QEMU_CLOCK_VIRTUAL,
                                             vhca_port_faults_tick, port);
        }
        if (!timer_pending(port->fault_timer)) {
            timer_mod(port->fault_timer,
                      port->faults.delayed->due_ms);
        }
    }
}

void vhca_port_faults_egress(VhcaPort *port, const uint8_t *frame,
                             uint32_t len)
{
    vhca_faults_egress(&port->faults, frame, len,
                       qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL));
    vhca_port_faults_arm(port);
}

void vhca_port_faults_hold(VhcaPort *port, const uint8_t *frame,
                           uint32_t len)
{
    vhca_faults_hold(&port->faults, frame, len,
                     qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL));
    vhca_port_faults_arm(port);
}

void vhca_port_faults_delay(VhcaPort *port, const uint8_t *frame,
                            uint32_t len, uint32_t ms)
{
    vhca_faults_delay(&port->faults, frame, len,
                      qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL), ms);
    /* an earlier due time than the timer's: the timer moves up */
    if (port->fault_timer && timer_pending(port->fault_timer)) {
        timer_del(port->fault_timer);
    }
    vhca_port_faults_arm(port);
}

void vhca_port_faults_flush(VhcaPort *port)
{
    vhca_faults_flush(&port->faults);
    if (port->fault_timer) {
        timer_del(port->fault_timer);
    }
}

void vhca_port_faults_free(VhcaPort *port)
{
    vhca_port_faults_flush(port);
    if (port->fault_timer) {
        timer_free(port->fault_timer);
        port->fault_timer = NULL;
    }
}
