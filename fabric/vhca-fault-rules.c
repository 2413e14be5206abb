/*
 * vhca - fault rules per packet (see vhca-fault-rules.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vhca-fault-rules.h"
#include "vhca-mad.h"

#define VHCA_FAULT_DEFAULT_SEED 0x9e3779b97f4a7c15ull

static const char *const vhca_fault_op_names[] = {
    [VHCA_FAULT_OP_ANY] = "any",
    [VHCA_FAULT_OP_SEND] = "send",
    [VHCA_FAULT_OP_WRITE] = "write",
    [VHCA_FAULT_OP_READ_REQ] = "read-req",
    [VHCA_FAULT_OP_READ_RESP] = "read-resp",
    [VHCA_FAULT_OP_ATOMIC] = "atomic",
    [VHCA_FAULT_OP_ACK] = "ack",
    [VHCA_FAULT_OP_MAD] = "mad",
};

static const char *const vhca_fault_action_names[] = {
    [VHCA_FAULT_PASS] = "pass",
    [VHCA_FAULT_DROP] = "drop",
    [VHCA_FAULT_DUP] = "dup",
    [VHCA_FAULT_REORDER] = "reorder",
    [VHCA_FAULT_CORRUPT] = "corrupt",
    [VHCA_FAULT_DELAY] = "delay",
    [VHCA_FAULT_NAK] = "nak",
    [VHCA_FAULT_FLAP] = "flap",
};

/* The NAK syndromes a rule may name (IBA 9.7.5.2.x). */
static const struct {
    const char *name;
    uint32_t syndrome;
} vhca_fault_naks[] = {
    { "rnr", VHCA_WIRE_NAK_RNR },
    { "seq", VHCA_WIRE_NAK_SEQ },
    { "access", VHCA_WIRE_NAK_REM_ACCESS },
};

const char *vhca_fault_action_name(VhcaFaultAction a)
{
    return a < sizeof(vhca_fault_action_names) / sizeof(char *) ?
           vhca_fault_action_names[a] : "?";
}

static const char *vhca_fault_nak_name(uint32_t syndrome)
{
    for (size_t i = 0; i < sizeof(vhca_fault_naks) / sizeof(vhca_fault_naks[0]);
         i++) {
        if (vhca_fault_naks[i].syndrome == syndrome) {
            return vhca_fault_naks[i].name;
        }
    }
    return "?";
}

void vhca_fault_rules_seed(VhcaFaultRules *r, uint64_t seed)
{
    r->seed = seed;
    r->rng = seed ? seed : VHCA_FAULT_DEFAULT_SEED;
    for (uint32_t i = 0; i < VHCA_FAULT_MAX_RULES; i++) {
        r->rules[i].matches = 0;
        r->rules[i].fired = 0;
    }
    memset(r->msgs, 0, sizeof(r->msgs));
    r->trace_seq = 0;
}

void vhca_fault_rules_init(VhcaFaultRules *r, uint64_t seed)
{
    memset(r, 0, sizeof(*r));
    r->next_id = 1;
    vhca_fault_rules_seed(r, seed);
}

static const char *vhca_fault_fail(VhcaFaultRules *r, const char *fmt,
                                   const char *term)
{
    snprintf(r->why, sizeof(r->why), fmt, term);
    return r->why;
}

/* A whole number, decimal or 0x hex, at most max. */
static bool vhca_fault_number(const char *s, uint32_t max, uint32_t *out)
{
    char *end;
    unsigned long long v;

    if (!*s || *s == '-' || *s == '+') {
        return false;
    }
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno || *end || v > max) {
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* "action=NAME[:ARG]" */
static const char *vhca_fault_parse_action(VhcaFaultRules *r, const char *v,
                                           VhcaFaultRule *rule)
{
    const char *colon = strchr(v, ':');
    size_t n = colon ? (size_t)(colon - v) : strlen(v);
    uint32_t a;

    for (a = VHCA_FAULT_DROP; a <= VHCA_FAULT_FLAP; a++) {
        if (strlen(vhca_fault_action_names[a]) == n &&
            !strncmp(v, vhca_fault_action_names[a], n)) {
            break;
        }
    }
    if (a > VHCA_FAULT_FLAP) {
        return vhca_fault_fail(r, "unknown action '%s' (drop, dup, reorder, "
                               "corrupt, delay:MS, nak:rnr|seq|access, "
                               "flap:MS)", v);
    }
    rule->action = a;
    rule->arg = 0;
    if (a == VHCA_FAULT_NAK) {
        for (size_t i = 0; colon && i < sizeof(vhca_fault_naks) /
                                         sizeof(vhca_fault_naks[0]); i++) {
            if (!strcmp(colon + 1, vhca_fault_naks[i].name)) {
                rule->arg = vhca_fault_naks[i].syndrome;
                return NULL;
            }
        }
        return vhca_fault_fail(r, "'%s': nak takes rnr, seq or access", v);
    }
    if (a == VHCA_FAULT_DELAY || a == VHCA_FAULT_FLAP) {
        if (!colon || !vhca_fault_number(colon + 1, VHCA_FAULT_MAX_MS,
                                         &rule->arg) || !rule->arg) {
            return vhca_fault_fail(r, "'%s': delay and flap take :MS, "
                                   "1..60000", v);
        }
        return NULL;
    }
    return colon ? vhca_fault_fail(r, "'%s': this action takes no argument",
                                   v) : NULL;
}

static const char *vhca_fault_parse_term(VhcaFaultRules *r, char *term,
                                         VhcaFaultRule *rule)
{
    static const struct {
        const char *key;
        size_t offset;
        uint32_t max;
    } nums[] = {
        { "port", offsetof(VhcaFaultRule, port), 255 },
        { "slid", offsetof(VhcaFaultRule, slid), 0xffff },
        { "dlid", offsetof(VhcaFaultRule, dlid), 0xffff },
        { "qpn", offsetof(VhcaFaultRule, qpn), 0xffffff },
        { "psn", offsetof(VhcaFaultRule, psn), 0xffffff },
        { "msg", offsetof(VhcaFaultRule, msg), 0xffffffffu - 1 },
        { "mad-class", offsetof(VhcaFaultRule, mad_class), 0xff },
        { "mad-attr", offsetof(VhcaFaultRule, mad_attr), 0xffff },
        { "nth", offsetof(VhcaFaultRule, nth), 0xffffffffu - 1 },
        { "count", offsetof(VhcaFaultRule, count), 0xffffffffu - 1 },
        { "pct", offsetof(VhcaFaultRule, pct), 100 },
    };
    char *eq = strchr(term, '=');
    const char *v;

    if (!eq) {
        return vhca_fault_fail(r, "'%s' is not KEY=VALUE", term);
    }
    *eq = '\0';
    v = eq + 1;
    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
        if (!strcmp(term, nums[i].key)) {
            uint32_t *field = (uint32_t *)((char *)rule + nums[i].offset);

            *eq = '=';
            if (!vhca_fault_number(v, nums[i].max, field)) {
                return vhca_fault_fail(r, "'%s': the value is out of range "
                                       "or not a number", term);
            }
            return NULL;
        }
    }
    if (!strcmp(term, "dir")) {
        *eq = '=';
        if (strcmp(v, "in") && strcmp(v, "out")) {
            return vhca_fault_fail(r, "'%s': dir is in or out", term);
        }
        rule->dir = !strcmp(v, "out");
        return NULL;
    }
    if (!strcmp(term, "op")) {
        *eq = '=';
        for (uint32_t op = VHCA_FAULT_OP_SEND; op <= VHCA_FAULT_OP_MAD; op++) {
            if (!strcmp(v, vhca_fault_op_names[op])) {
                rule->op = op;
                return NULL;
            }
        }
        return vhca_fault_fail(r, "'%s': op is send, write, read-req, "
                               "read-resp, atomic, ack or mad", term);
    }
    if (!strcmp(term, "action")) {
        *eq = '=';
        if (rule->action != VHCA_FAULT_PASS) {
            return vhca_fault_fail(r, "'%s': one action per rule", term);
        }
        return vhca_fault_parse_action(r, v, rule);
    }
    *eq = '=';
    return vhca_fault_fail(r, "unknown term '%s'", term);
}

const char *vhca_fault_rule_parse(VhcaFaultRules *r, const char *text,
                                  VhcaFaultRule *rule)
{
    char buf[sizeof(rule->text)], *term, *save = NULL;
    const char *why;
    bool nth_given;

    memset(rule, 0, sizeof(*rule));
    rule->port = rule->dir = rule->slid = rule->dlid = VHCA_FAULT_ANY;
    rule->qpn = rule->psn = rule->msg = VHCA_FAULT_ANY;
    rule->mad_class = rule->mad_attr = VHCA_FAULT_ANY;
    rule->nth = rule->count = rule->pct = VHCA_FAULT_ANY;
    if (strlen(text) >= sizeof(buf)) {
        return vhca_fault_fail(r, "rule longer than %s characters", "159");
    }
    strcpy(buf, text);
    for (term = strtok_r(buf, ", \t\n", &save); term;
         term = strtok_r(NULL, ", \t\n", &save)) {
        why = vhca_fault_parse_term(r, term, rule);
        if (why) {
            return why;
        }
    }
    if (rule->action == VHCA_FAULT_PASS) {
        return vhca_fault_fail(r, "rule '%s' has no action=", text);
    }
    if (rule->mad_class != VHCA_FAULT_ANY || rule->mad_attr != VHCA_FAULT_ANY) {
        if (rule->op != VHCA_FAULT_OP_ANY && rule->op != VHCA_FAULT_OP_MAD) {
            return vhca_fault_fail(r, "rule '%s': mad-class and mad-attr "
                                   "need op=mad", text);
        }
        rule->op = VHCA_FAULT_OP_MAD;
    }
    if (rule->action == VHCA_FAULT_NAK && rule->op != VHCA_FAULT_OP_ACK &&
        rule->op != VHCA_FAULT_OP_READ_RESP) {
        return vhca_fault_fail(r, "rule '%s': nak replaces an answer: it "
                               "needs op=ack or op=read-resp", text);
    }
    if (rule->nth == 0 || rule->count == 0) {
        return vhca_fault_fail(r, "rule '%s': nth and count start at 1",
                               text);
    }
    nth_given = rule->nth != VHCA_FAULT_ANY;
    if (!nth_given) {
        rule->nth = 1;
    }
    if (rule->count == VHCA_FAULT_ANY && nth_given) {
        rule->count = 1;
    }
    if (rule->pct == VHCA_FAULT_ANY) {
        rule->pct = 100;
    }
    strcpy(rule->text, text);
    return NULL;
}

const char *vhca_fault_rule_add(VhcaFaultRules *r, const char *text,
                                uint32_t *id)
{
    VhcaFaultRule rule;
    const char *why = vhca_fault_rule_parse(r, text, &rule);
    uint32_t i;

    if (why) {
        return why;
    }
    for (i = 0; i < VHCA_FAULT_MAX_RULES && r->rules[i].id; i++) {
    }
    if (i == VHCA_FAULT_MAX_RULES) {
        return vhca_fault_fail(r, "at most %s rules at once", "32");
    }
    rule.id = r->next_id++;
    r->rules[i] = rule;
    r->nrules++;
    if (id) {
        *id = rule.id;
    }
    return NULL;
}

const char *vhca_fault_rule_del(VhcaFaultRules *r, uint32_t id)
{
    for (uint32_t i = 0; i < VHCA_FAULT_MAX_RULES; i++) {
        if (id && r->rules[i].id == id) {
            memset(&r->rules[i], 0, sizeof(r->rules[i]));
            r->nrules--;
            return NULL;
        }
    }
    snprintf(r->why, sizeof(r->why), "no rule %" PRIu32, id);
    return r->why;
}

void vhca_fault_rules_clear(VhcaFaultRules *r)
{
    memset(r->rules, 0, sizeof(r->rules));
    r->nrules = 0;
    vhca_fault_rules_seed(r, r->seed);
}

const char *vhca_fault_rules_command(VhcaFaultRules *r, const char *cmd)
{
    uint32_t id;
    unsigned long long seed;
    char *end;

    while (*cmd == ' ') {
        cmd++;
    }
    if (!strncmp(cmd, "add ", 4)) {
        return vhca_fault_rule_add(r, cmd + 4, NULL);
    }
    if (!strncmp(cmd, "del ", 4)) {
        if (!vhca_fault_number(cmd + 4, 0xffffffffu, &id)) {
            return vhca_fault_fail(r, "'%s': del takes a rule id", cmd);
        }
        return vhca_fault_rule_del(r, id);
    }
    if (!strcmp(cmd, "clear")) {
        vhca_fault_rules_clear(r);
        return NULL;
    }
    if (!strncmp(cmd, "seed ", 5)) {
        errno = 0;
        seed = strtoull(cmd + 5, &end, 0);
        if (errno || end == cmd + 5 || *end || cmd[5] == '-') {
            return vhca_fault_fail(r, "'%s': seed takes a number", cmd);
        }
        vhca_fault_rules_seed(r, seed);
        return NULL;
    }
    return vhca_fault_fail(r, "'%s': the commands are add RULE, del ID, "
                           "clear, seed N", cmd);
}

/* true with probability pct / 100: a step of the one generator */
static bool vhca_fault_roll(VhcaFaultRules *r, uint32_t pct)
{
    if (pct >= 100) {
        return true;
    }
    r->rng ^= r->rng << 13;
    r->rng ^= r->rng >> 7;
    r->rng ^= r->rng << 17;
    return r->rng % 100 < pct;
}

/* The number of this message on its (port, direction, qpn), from 1. */
static uint32_t vhca_fault_msg_number(VhcaFaultRules *r,
                                      const VhcaFaultPkt *p)
{
    uint32_t h = (p->qpn * 2654435761u) ^ ((uint32_t)p->port << 1) ^
                 p->outbound;

    for (uint32_t n = 0; n < VHCA_FAULT_MSG_SLOTS; n++) {
        VhcaFaultMsgSlot *s = &r->msgs[(h + n) % VHCA_FAULT_MSG_SLOTS];

        if (!s->key_port) {
            s->key_port = p->port;
            s->key_out = p->outbound;
            s->key_qpn = p->qpn;
        }
        if (s->key_port == p->port && s->key_out == p->outbound &&
            s->key_qpn == p->qpn) {
            return ++s->count;
        }
    }
    return VHCA_FAULT_ANY;      /* the table is full: msg= rules miss */
}

static bool vhca_fault_eq(uint32_t want, uint32_t have)
{
    return want == VHCA_FAULT_ANY || want == have;
}

static bool vhca_fault_matches(const VhcaFaultRule *rule,
                               const VhcaFaultPkt *p, uint32_t msg)
{
    return vhca_fault_eq(rule->port, p->port) &&
           vhca_fault_eq(rule->dir, p->outbound) &&
           vhca_fault_eq(rule->slid, p->slid) &&
           vhca_fault_eq(rule->dlid, p->dlid) &&
           vhca_fault_eq(rule->qpn, p->qpn) &&
           vhca_fault_eq(rule->psn, p->psn) &&
           vhca_fault_eq(rule->msg, msg) &&
           (rule->op == VHCA_FAULT_OP_ANY || rule->op == p->op) &&
           vhca_fault_eq(rule->mad_class, p->mad_class) &&
           vhca_fault_eq(rule->mad_attr, p->mad_attr);
}

VhcaFaultAction vhca_fault_rules_judge(VhcaFaultRules *r,
                                       const VhcaFaultPkt *pkt,
                                       uint32_t *arg)
{
    uint32_t msg, best = VHCA_FAULT_MAX_RULES;
    VhcaFaultTraceEntry *t;
    VhcaFaultRule *rule;

    if (!r->nrules) {
        return VHCA_FAULT_PASS;
    }
    msg = vhca_fault_msg_number(r, pkt);
    /* every matching rule counts the match; the lowest id that fires acts */
    for (uint32_t i = 0; i < VHCA_FAULT_MAX_RULES; i++) {
        rule = &r->rules[i];
        if (!rule->id || !vhca_fault_matches(rule, pkt, msg)) {
            continue;
        }
        rule->matches++;
        if (rule->matches < rule->nth ||
            (rule->count != VHCA_FAULT_ANY && rule->fired >= rule->count) ||
            !vhca_fault_roll(r, rule->pct)) {
            continue;
        }
        if (best == VHCA_FAULT_MAX_RULES || rule->id < r->rules[best].id) {
            best = i;
        }
    }
    if (best == VHCA_FAULT_MAX_RULES) {
        return VHCA_FAULT_PASS;
    }
    rule = &r->rules[best];
    rule->fired++;
    t = &r->trace[r->trace_seq % VHCA_FAULT_TRACE_LEN];
    t->seq = r->trace_seq++;
    t->rule = rule->id;
    t->action = (uint8_t)rule->action;
    t->arg = rule->arg;
    t->pkt = *pkt;
    t->msg = msg;
    *arg = rule->arg;
    return (VhcaFaultAction)rule->action;
}

/* snprintf that keeps count past the end of the buffer */
#define VHCA_FAULT_PRINT(buf, size, used, ...)                              \
    do {                                                                    \
        int n_ = snprintf((used) < (size) ? (buf) + (used) : NULL,          \
                          (used) < (size) ? (size) - (used) : 0,            \
                          __VA_ARGS__);                                     \
        (used) += n_ > 0 ? (size_t)n_ : 0;                                  \
    } while (0)

size_t vhca_fault_rules_list(const VhcaFaultRules *r, char *buf, size_t size)
{
    size_t used = 0;

    if (size) {
        buf[0] = '\0';
    }
    VHCA_FAULT_PRINT(buf, size, used, "seed 0x%016" PRIx64 "\n", r->seed);
    for (uint32_t id = 1; id < r->next_id; id++) {
        for (uint32_t i = 0; i < VHCA_FAULT_MAX_RULES; i++) {
            const VhcaFaultRule *rule = &r->rules[i];

            if (rule->id == id) {
                VHCA_FAULT_PRINT(buf, size, used, "rule %" PRIu32
                                 " matches %" PRIu64 " fired %" PRIu64
                                 ": %s\n", rule->id, rule->matches,
                                 rule->fired, rule->text);
            }
        }
    }
    return used;
}

size_t vhca_fault_rules_trace(const VhcaFaultRules *r, char *buf, size_t size)
{
    uint64_t first = r->trace_seq > VHCA_FAULT_TRACE_LEN ?
                     r->trace_seq - VHCA_FAULT_TRACE_LEN : 0;
    size_t used = 0;

    if (size) {
        buf[0] = '\0';
    }
    VHCA_FAULT_PRINT(buf, size, used, "seed 0x%016" PRIx64 " faults %" PRIu64
                     "\n", r->seed, r->trace_seq);
    for (uint64_t s = first; s < r->trace_seq; s++) {
        const VhcaFaultTraceEntry *t = &r->trace[s % VHCA_FAULT_TRACE_LEN];
        char arg[16] = "";

        if (t->action == VHCA_FAULT_NAK) {
            snprintf(arg, sizeof(arg), ":%s", vhca_fault_nak_name(t->arg));
        } else if (t->action == VHCA_FAULT_DELAY ||
                   t->action == VHCA_FAULT_FLAP) {
            snprintf(arg, sizeof(arg), ":%" PRIu32, t->arg);
        }
        VHCA_FAULT_PRINT(buf, size, used, "%" PRIu64 " rule %" PRIu32
                         " %s%s port %u %s %s slid %u dlid %u qpn 0x%x "
                         "psn 0x%x msg %u len %u", t->seq, t->rule,
                         vhca_fault_action_name(t->action), arg,
                         t->pkt.port, t->pkt.outbound ? "out" : "in",
                         vhca_fault_op_names[t->pkt.op], t->pkt.slid,
                         t->pkt.dlid, t->pkt.qpn, t->pkt.psn, t->msg,
                         t->pkt.length);
        if (t->pkt.op == VHCA_FAULT_OP_MAD) {
            VHCA_FAULT_PRINT(buf, size, used, " mad-class 0x%02x mad-attr "
                             "0x%04x", t->pkt.mad_class, t->pkt.mad_attr);
        }
        VHCA_FAULT_PRINT(buf, size, used, "\n");
    }
    return used;
}

/*
 * The rule's op of a request, from its row in the opcode table
 * (vhca_hw_wqe_rules.h): the SENDs carry the AV segment, WRITE and READ
 * the RDMA one (READ returns the data), the atomics theirs; FLUSH and
 * what does not go on the wire match only op=any.
 */
VhcaFaultOp vhca_fault_op_of_wqe(uint8_t wqe_opcode)
{
    const struct vhca_wqe_opcode_info *row = vhca_wqe_opcode_row(wqe_opcode);

    switch (row->segment) {
    case VHCA_WQE_SEG_AV:
        return VHCA_FAULT_OP_SEND;
    case VHCA_WQE_SEG_RADDR:
        return row->flags & VHCA_WQE_OPF_RETURNS ? VHCA_FAULT_OP_READ_REQ
                                                 : VHCA_FAULT_OP_WRITE;
    case VHCA_WQE_SEG_ATOMIC:
        return VHCA_FAULT_OP_ATOMIC;
    default:
        return VHCA_FAULT_OP_ANY;
    }
}

void vhca_fault_pkt_set_mad(VhcaFaultPkt *pkt, const uint8_t *mad, size_t len)
{
    pkt->op = VHCA_FAULT_OP_MAD;
    if (len >= VHCA_MAD(attr_id) + 2) {
        pkt->mad_class = vhca_mad_class(mad);
        pkt->mad_attr = vhca_mad_attr(mad);
    }
}

void vhca_fault_pkt_from_frame(const VhcaWireFrame *f, uint8_t port,
                               bool outbound, VhcaFaultPkt *pkt)
{
    memset(pkt, 0, sizeof(*pkt));
    pkt->port = port;
    pkt->outbound = outbound;
    pkt->slid = f->slid;
    pkt->dlid = f->dlid;
    pkt->qpn = f->dst_qpn & 0xffffff;
    pkt->psn = f->psn & 0xffffff;
    pkt->length = f->length;
    switch (f->kind) {
    case VHCA_WIRE_REQUEST:
        pkt->op = vhca_fault_op_of_wqe(f->opcode);
        break;
    case VHCA_WIRE_RESPONSE:
        pkt->op = f->opcode == VHCA_WQE_RDMA_READ &&
                  f->syndrome == VHCA_WIRE_ACK ? VHCA_FAULT_OP_READ_RESP
                                               : VHCA_FAULT_OP_ACK;
        break;
    case VHCA_WIRE_DATAGRAM:
        if (pkt->qpn <= 1 && f->payload_len > VHCA_MAD(attr_id) + 1) {
            vhca_fault_pkt_set_mad(pkt, f->payload, f->payload_len);
        } else {
            pkt->op = VHCA_FAULT_OP_SEND;
        }
        break;
    default:
        pkt->op = VHCA_FAULT_OP_ANY;
    }
}
