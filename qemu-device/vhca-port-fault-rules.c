/*
 * vhca - fault rules per packet on a device's ports (Documentation/
 * fabric-tests.md "Fault rules"), from QMP like the other run-time knobs
 * of the device (qom-set/qom-get, as portN-loss and portN-capture):
 *
 *   qom-set vhca0 fault-rules "seed 42"         the one generator, again
 *   qom-set vhca0 fault-rules "add port=1,op=read-resp,nth=3,action=drop"
 *   qom-set vhca0 fault-rules "del 2"
 *   qom-set vhca0 fault-rules "clear"
 *   qom-get vhca0 fault-rules                   "seed S" + a line per rule
 *   qom-get vhca0 fault-trace                   what fired, oldest first
 *
 * The rule engine is vhca-fault-rules.c (shared with the standalone
 * switch).  Its rules see every message that crosses one of the device's
 * ports, both ways:
 *  - on the in-process fabric, an RC request and its answer (vhca-rc.c)
 *    and a datagram (vhca-transport.c): the sender's device judges it
 *    leaving (dir=out), the receiver's arriving (dir=in);
 *  - on a cabled port, each frame it sends through its netdev and each
 *    it receives (vhca-link.c), before the link's fault rates.
 * The in-process fabric moves a message in one step, so delay and reorder
 * need a cabled port and dir=out: they are refused elsewhere.
 * A refused command is an error of qom-set, with why, and the trace event
 * vhca_fault_rule_rejected.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "vhca.h"
#include "vhca-link.h"
#include "vhca-port-faults.h"
#include "vhca-port-fault-rules.h"
#include "trace.h"

/* RNR NAK made from an ACK on the wire: the frame names no timer; IBA
 * 9.7.5.2.8 table 45 code 1, 0.01 ms, keeps a burst short. */
#define VHCA_FAULT_WIRE_RNR_TIMER   1

/* The ports a rule may act on: port=N, or all of them. */
static bool vhca_fault_rule_ports_cabled(VhcaState *s, const VhcaFaultRule *r)
{
    for (int i = 0; i < s->num_ports; i++) {
        if ((r->port == VHCA_FAULT_ANY || r->port == (uint32_t)i + 1) &&
            !vhca_link_cabled(&s->ports[i])) {
            return false;
        }
    }
    return true;
}

/* What the device cannot do with a rule the engine took. */
static const char *vhca_fault_rule_check(VhcaState *s, const char *text)
{
    VhcaFaultRule rule;
    const char *why = vhca_fault_rule_parse(s->fault_rules, text, &rule);

    if (why) {
        return why;
    }
    if (rule.port != VHCA_FAULT_ANY &&
        (rule.port < 1 || rule.port > s->num_ports)) {
        return "no such port on this device";
    }
    if (rule.action == VHCA_FAULT_DELAY || rule.action == VHCA_FAULT_REORDER) {
        if (rule.dir != 1) {
            return "delay and reorder act on what a port sends: dir=out";
        }
        if (!vhca_fault_rule_ports_cabled(s, &rule)) {
            return "delay and reorder need a cabled port (portN-netdev): "
                   "the in-process fabric moves a message in one step";
        }
    }
    return NULL;
}

static char *vhca_fault_rules_get(Object *obj, Error **errp)
{
    VhcaFaultRules *r = VHCA(obj)->fault_rules;
    size_t len = vhca_fault_rules_list(r, NULL, 0) + 1;
    char *text = g_malloc(len);

    vhca_fault_rules_list(r, text, len);
    return text;
}

static void vhca_fault_rules_set(Object *obj, const char *value, Error **errp)
{
    VhcaState *s = VHCA(obj);
    const char *why = NULL;
    const char *cmd = value;

    while (*cmd == ' ') {
        cmd++;
    }
    if (!strncmp(cmd, "add ", 4)) {
        why = vhca_fault_rule_check(s, cmd + 4);
    }
    if (!why) {
        why = vhca_fault_rules_command(s->fault_rules, cmd);
    }
    if (why) {
        trace_vhca_fault_rule_rejected(value, why);
        error_setg(errp, "vhca: fault-rules: %s", why);
        return;
    }
    if (!strncmp(cmd, "add ", 4) && s->fault_rules->nrules == 1) {
        /* the run's seed, so that a failure can be repeated */
        info_report("vhca: %s: fault rules seed 0x%016" PRIx64,
                    DEVICE(obj)->id ?: "vhca", s->fault_rules->seed);
    }
}

static char *vhca_fault_trace_get(Object *obj, Error **errp)
{
    VhcaFaultRules *r = VHCA(obj)->fault_rules;
    size_t len = vhca_fault_rules_trace(r, NULL, 0) + 1;
    char *text = g_malloc(len);

    vhca_fault_rules_trace(r, text, len);
    return text;
}

void vhca_fault_rules_props_init(Object *obj)
{
    VhcaState *s = VHCA(obj);

    /* a seed of its own per run unless the test sets one ("seed N") */
    s->fault_rules = g_new(VhcaFaultRules, 1);
    vhca_fault_rules_init(s->fault_rules,
                          (uint64_t)g_get_real_time() ^
                          ((uint64_t)getpid() << 32));
    object_property_add_str(obj, "fault-rules", vhca_fault_rules_get,
                            vhca_fault_rules_set);
    object_property_set_description(obj, "fault-rules",
        "add RULE | del ID | clear | seed N; read: the seed and the rules "
        "(Documentation/fabric-tests.md \"Fault rules\")");
    object_property_add_str(obj, "fault-trace", vhca_fault_trace_get, NULL);
    object_property_set_description(obj, "fault-trace",
        "the faults the rules made, oldest first");
}

void vhca_fault_rules_free(VhcaState *s)
{
    for (int i = 0; i < VHCA_MAX_PORTS; i++) {
        if (s->ports[i].flap_timer) {
            timer_free(s->ports[i].flap_timer);
            s->ports[i].flap_timer = NULL;
        }
    }
}

void vhca_fault_rules_finalize(VhcaState *s)
{
    g_free(s->fault_rules);
    s->fault_rules = NULL;
}

static void vhca_fault_flap_end(void *opaque)
{
    vhca_port_set_link(opaque, true);
}

/* action=flap:MS: the port's link goes down and comes back MS ms later. */
static void vhca_fault_flap(VhcaPort *port, uint32_t ms)
{
    if (!port->flap_timer) {
        port->flap_timer = timer_new_ms(QEMU_CLOCK_VIRTUAL,
                                        vhca_fault_flap_end, port);
    }
    vhca_port_set_link(port, false);
    timer_mod(port->flap_timer, qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) + ms);
}

VhcaFaultAction vhca_fault_judge(VhcaPort *port, VhcaFaultPkt *pkt,
                                 uint32_t *arg)
{
    VhcaFaultAction act;

    pkt->port = port->num;
    act = vhca_fault_rules_judge(port->dev->fault_rules, pkt, arg);
    if (act == VHCA_FAULT_PASS) {
        return act;
    }
    trace_vhca_fault_rule(port->num, pkt->outbound, vhca_fault_action_name(act),
                          pkt->qpn, pkt->psn);
    if (act == VHCA_FAULT_CORRUPT && !pkt->outbound) {
        port->counters.rcv_errors++;    /* the receiver's bad ICRC */
    }
    if (act == VHCA_FAULT_FLAP) {
        vhca_fault_flap(port, *arg);
    }
    return act;
}

VhcaFaultAction vhca_fault_judge_path(VhcaPort *from, VhcaPort *to,
                                      VhcaFaultPkt *pkt, uint32_t *arg)
{
    VhcaFaultAction act = VHCA_FAULT_PASS;

    if (vhca_fault_rules_active(from->dev->fault_rules)) {
        pkt->outbound = true;
        act = vhca_fault_judge(from, pkt, arg);
    }
    if (act == VHCA_FAULT_PASS && to &&
        vhca_fault_rules_active(to->dev->fault_rules)) {
        pkt->outbound = false;
        act = vhca_fault_judge(to, pkt, arg);
    }
    if (act == VHCA_FAULT_CORRUPT && to && pkt->outbound) {
        to->counters.rcv_errors++;      /* the receiver drops it */
    }
    return act;
}

/* An answer frame made a NAK of syndrome (IBA 9.7.5.2): no payload. */
static void vhca_fault_make_nak(VhcaWireFrame *f, uint32_t syndrome)
{
    f->syndrome = syndrome;
    f->rnr_timer = syndrome == VHCA_WIRE_NAK_RNR ? VHCA_FAULT_WIRE_RNR_TIMER
                                                 : 0;
    f->nak_psn = f->psn;        /* sequence error: resend from this one */
    f->compare_add = 0;
    f->payload_len = 0;
    f->length = 0;
    f->offset = 0;
}

bool vhca_fault_rules_egress(VhcaPort *port, VhcaWireFrame *f,
                             const uint8_t *buf, uint32_t len)
{
    struct vhca_wire_hdr hdr;
    VhcaFaultPkt pkt;
    uint32_t arg = 0;

    vhca_fault_pkt_from_frame(f, port->num, true, &pkt);
    switch (vhca_fault_judge(port, &pkt, &arg)) {
    case VHCA_FAULT_PASS:
        return false;
    case VHCA_FAULT_DROP:
    case VHCA_FAULT_FLAP:
        port->faults.stats.lost++;
        return true;
    case VHCA_FAULT_CORRUPT:
        port->faults.stats.icrc_errors++;
        return true;
    case VHCA_FAULT_DUP:
        port->faults.stats.duplicated++;
        vhca_port_faults_egress(port, buf, len);
        vhca_port_faults_egress(port, buf, len);
        return true;
    case VHCA_FAULT_REORDER:
        vhca_port_faults_hold(port, buf, len);
        return true;
    case VHCA_FAULT_DELAY:
        vhca_port_faults_delay(port, buf, len, arg);
        return true;
    case VHCA_FAULT_NAK:
        vhca_fault_make_nak(f, arg);
        vhca_wire_encode(f, &hdr);
        vhca_port_faults_egress(port, (const uint8_t *)&hdr, sizeof(hdr));
        return true;
    }
    return false;
}

VhcaFaultAction vhca_fault_rules_ingress(VhcaPort *port, VhcaWireFrame *f)
{
    VhcaFaultPkt pkt;
    uint32_t arg = 0;
    VhcaFaultAction act;

    vhca_fault_pkt_from_frame(f, port->num, false, &pkt);
    act = vhca_fault_judge(port, &pkt, &arg);
    if (act == VHCA_FAULT_NAK) {
        vhca_fault_make_nak(f, arg);
    }
    return act;
}
