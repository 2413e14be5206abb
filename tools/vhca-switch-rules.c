/*
 * vhca-switch - fault rules per packet on the switch's ports
 * (Documentation/fabric-tests.md "Fault rules"), the engine the device
 * uses too (fabric/vhca-fault-rules.c), set from the control socket:
 *
 *   rule add RULE      "ok N" (its id), or "error: why"
 *   rule del N | rule clear | rule seed N
 *   rule list          "seed S", then a line per rule
 *   rule trace         what the rules did, oldest first
 *
 * port=N is the switch's port; dir=in a frame that came in by it, dir=out
 * one that leaves by it.  Rules judge data frames only (not HELLO/LINK,
 * not what the switch's own SM, SA and PMA send), before the link's fault
 * rates.  A frame that comes in may be dropped, corrupted or flap its
 * link; dup, delay, reorder and nak act on what leaves a port (dir=out,
 * where the switch writes the frame); flap
 * needs a --connect port, as the control socket's "port N flap".  The
 * rules' seed is the switch's --seed unless "rule seed" sets another.
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
#include "vhca-fault-rules.h"

/* RNR NAK made of an ACK: IBA table 45 code 1, 0.01 ms (as the device). */
#define SW_RULE_RNR_TIMER   1

static VhcaFaultRules sw_rules;

void sw_rules_init(uint64_t seed)
{
    vhca_fault_rules_init(&sw_rules, seed);
}

static const char *sw_rule_check(SwPort *ports, int nports, const char *text)
{
    VhcaFaultRule rule;
    const char *why = vhca_fault_rule_parse(&sw_rules, text, &rule);

    if (why) {
        return why;
    }
    if (rule.port != VHCA_FAULT_ANY &&
        (rule.port < 1 || rule.port > (uint32_t)nports)) {
        return "no such port";
    }
    if ((rule.action == VHCA_FAULT_DELAY || rule.action == VHCA_FAULT_DUP ||
         rule.action == VHCA_FAULT_REORDER || rule.action == VHCA_FAULT_NAK) &&
        rule.dir != 1) {
        return "dup, delay, reorder and nak act on what leaves a port: "
               "dir=out";
    }
    for (int i = 0; rule.action == VHCA_FAULT_FLAP && i < nports; i++) {
        if ((rule.port == VHCA_FAULT_ANY || rule.port == (uint32_t)i + 1) &&
            !ports[i].connect_path) {
            return "flap needs a --connect port (QEMU 7.2 does not redial)";
        }
    }
    return NULL;
}

/* "rule ...": the answer, malloc'd (a trace may be long). */
char *sw_rules_command(SwPort *ports, int nports, const char *args)
{
    const char *why = NULL;
    char *out;
    size_t len;

    while (*args == ' ') {
        args++;
    }
    if (!strcmp(args, "list") || !strcmp(args, "trace")) {
        bool list = !strcmp(args, "list");

        len = (list ? vhca_fault_rules_list(&sw_rules, NULL, 0)
                    : vhca_fault_rules_trace(&sw_rules, NULL, 0)) + 1;
        out = malloc(len);
        if (out) {
            list ? vhca_fault_rules_list(&sw_rules, out, len)
                 : vhca_fault_rules_trace(&sw_rules, out, len);
        }
        return out;
    }
    if (!strncmp(args, "add ", 4)) {
        why = sw_rule_check(ports, nports, args + 4);
    }
    if (!why) {
        why = vhca_fault_rules_command(&sw_rules, args);
    }
    len = 32 + (why ? strlen(why) : 0);
    out = malloc(len);
    if (!out) {
        return NULL;
    }
    if (why) {
        snprintf(out, len, "error: %s\n", why);
    } else if (!strncmp(args, "add ", 4)) {
        snprintf(out, len, "ok %" PRIu32 "\n", sw_rules.next_id - 1);
        if (sw_rules.nrules == 1) {
            fprintf(stderr, "vhca-switch: fault rules seed 0x%016" PRIx64
                    "\n", sw_rules.seed);
        }
    } else {
        snprintf(out, len, "ok\n");
    }
    return out;
}

static VhcaFaultAction sw_rules_judge(SwPort *p, const VhcaWireFrame *f,
                                      bool out, uint32_t *arg)
{
    VhcaFaultPkt pkt;
    VhcaFaultAction act;

    vhca_fault_pkt_from_frame(f, (uint8_t)p->num, out, &pkt);
    act = vhca_fault_rules_judge(&sw_rules, &pkt, arg);
    if (act != VHCA_FAULT_PASS) {
        sw_log("port %d: rule %s on a frame %s, QPN 0x%x PSN 0x%x\n", p->num,
               vhca_fault_action_name(act), out ? "out" : "in", pkt.qpn,
               pkt.psn);
    }
    if (act == VHCA_FAULT_FLAP) {
        sw_flap(p, *arg);
    }
    return act;
}

bool sw_rules_ingress(SwPort *p, const VhcaWireFrame *f)
{
    uint32_t arg = 0;

    if (!vhca_fault_rules_active(&sw_rules)) {
        return true;
    }
    switch (sw_rules_judge(p, f, false, &arg)) {
    case VHCA_FAULT_DROP:
    case VHCA_FAULT_FLAP:
        p->faults.stats.lost++;
        return false;
    case VHCA_FAULT_CORRUPT:
        p->faults.stats.icrc_errors++;
        p->counters.rcv_errors++;       /* PortRcvErrors: a bad ICRC */
        return false;
    default:
        return true;    /* the others are refused for dir=in */
    }
}

bool sw_rules_egress(SwPort *p, const uint8_t *frame, uint32_t len)
{
    struct vhca_wire_hdr hdr;
    VhcaWireFrame f;
    uint32_t arg = 0;
    int64_t now = sw_now_ms();

    if (!vhca_fault_rules_active(&sw_rules) ||
        vhca_wire_parse(frame, len, &f)) {
        return false;
    }
    switch (sw_rules_judge(p, &f, true, &arg)) {
    case VHCA_FAULT_PASS:
        return false;
    case VHCA_FAULT_DROP:
    case VHCA_FAULT_FLAP:
        p->faults.stats.lost++;
        return true;
    case VHCA_FAULT_CORRUPT:
        p->faults.stats.icrc_errors++;
        return true;
    case VHCA_FAULT_DUP:
        p->faults.stats.duplicated++;
        vhca_faults_egress(&p->faults, frame, len, now);
        vhca_faults_egress(&p->faults, frame, len, now);
        return true;
    case VHCA_FAULT_REORDER:
        vhca_faults_hold(&p->faults, frame, len, now);
        return true;
    case VHCA_FAULT_DELAY:
        vhca_faults_delay(&p->faults, frame, len, now, arg);
        return true;
    case VHCA_FAULT_NAK:
        f.syndrome = (uint8_t)arg;
        f.rnr_timer = arg == VHCA_WIRE_NAK_RNR ? SW_RULE_RNR_TIMER : 0;
        f.nak_psn = f.psn;
        f.payload_len = f.length = f.offset = 0;
        f.compare_add = 0;
        vhca_wire_encode(&f, &hdr);
        vhca_faults_egress(&p->faults, (const uint8_t *)&hdr, sizeof(hdr),
                           now);
        return true;
    }
    return false;
}
