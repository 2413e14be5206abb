/*
 * vhca - fault rules per packet (Documentation/fabric-tests.md "Fault
 * rules"): which message of the fabric meets which fault, chosen by the
 * test rather than by a rate.
 *
 * Plain C (no QEMU header, no glib, no clock, no I/O): the device
 * (vhca-port-fault-rules.c, for the in-process fabric and a cabled
 * port's link), the standalone switch (tools/vhca-switch-faults.c) and
 * the host tests (fabric/tests/fault_rules_test.cpp) link the
 * same file of the fabric library (fabric/), so a rule means the same
 * everywhere.  The caller describes
 * each message it is about to move (VhcaFaultPkt) and does what the
 * verdict says; the engine only decides and records.
 *
 * A rule is one line of comma-separated terms, all of which must match:
 *   port=N dir=in|out slid=N dlid=N qpn=N psn=N msg=N
 *   op=send|write|read-req|read-resp|atomic|ack|mad
 *   mad-class=N mad-attr=N (op=mad implied)
 *   nth=N     fire from the Nth match on (default 1)
 *   count=N   fire on N matches, then stop (default: 1 with nth, else all)
 *   pct=N     fire on N percent of the matches (the seeded generator)
 * and exactly one action:
 *   action=drop|dup|reorder|corrupt|delay:MS|nak:rnr|nak:seq|nak:access|
 *          flap:MS
 * qpn matches the destination QP (a request's responder, an answer's
 * requester, a datagram's receiver); msg is the number of the message on
 * that (port, direction, qpn) since the rules were last cleared, from 1.
 * nak replaces an answer (op=ack or op=read-resp) by a NAK of the
 * syndrome.  Numbers are decimal or 0x hex.
 *
 * Every random choice (pct) comes from one xorshift generator seeded by
 * vhca_fault_rules_seed(): the same seed and the same sequence of
 * messages give the same verdicts, and the trace of what fired (rule id
 * and a summary of the message, no times) is the same, line for line.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_FAULT_RULES_H
#define HW_INFINIBAND_VHCA_FAULT_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "vhca-wire.h"

#define VHCA_FAULT_MAX_RULES    32
#define VHCA_FAULT_TRACE_LEN    1024    /* entries kept, oldest dropped */
#define VHCA_FAULT_MSG_SLOTS    256     /* (port, dir, qpn) message counters */
#define VHCA_FAULT_MAX_MS       60000   /* delay and flap */
#define VHCA_FAULT_ANY          0xffffffffu

typedef enum VhcaFaultOp {
    VHCA_FAULT_OP_ANY,
    VHCA_FAULT_OP_SEND,
    VHCA_FAULT_OP_WRITE,
    VHCA_FAULT_OP_READ_REQ,
    VHCA_FAULT_OP_READ_RESP,
    VHCA_FAULT_OP_ATOMIC,
    VHCA_FAULT_OP_ACK,          /* ACK, NAK, atomic ACK */
    VHCA_FAULT_OP_MAD,          /* a datagram to QP0 or QP1 */
} VhcaFaultOp;

typedef enum VhcaFaultAction {
    VHCA_FAULT_PASS,            /* no rule fired */
    VHCA_FAULT_DROP,
    VHCA_FAULT_DUP,
    VHCA_FAULT_REORDER,         /* held back, sent after the next one */
    VHCA_FAULT_CORRUPT,         /* the receiver drops it: ICRC error */
    VHCA_FAULT_DELAY,           /* arg: ms */
    VHCA_FAULT_NAK,             /* arg: enum vhca_wire_syndrome */
    VHCA_FAULT_FLAP,            /* arg: ms the link stays down */
} VhcaFaultAction;

/* What a rule looks at: one message crossing a port. */
typedef struct VhcaFaultPkt {
    uint8_t port;               /* 1.. */
    bool outbound;              /* sent by the port (else received) */
    uint8_t op;                 /* VhcaFaultOp */
    uint8_t mad_class;          /* op MAD: MgmtClass */
    uint16_t mad_attr;          /* op MAD: AttributeID */
    uint16_t slid, dlid;
    uint32_t qpn;               /* destination QP */
    uint32_t psn;
    uint32_t length;
} VhcaFaultPkt;

typedef struct VhcaFaultRule {
    uint32_t id;                /* 0: free slot */
    uint32_t port, dir, slid, dlid, qpn, psn, msg;   /* _ANY: any */
    uint32_t op, mad_class, mad_attr;
    uint32_t nth, count, pct;
    uint32_t action, arg;
    uint64_t matches, fired;
    char text[160];             /* as given, for the listing */
} VhcaFaultRule;

typedef struct VhcaFaultTraceEntry {
    uint64_t seq;
    uint32_t rule;
    uint8_t action;
    uint32_t arg;
    VhcaFaultPkt pkt;
    uint32_t msg;
} VhcaFaultTraceEntry;

typedef struct VhcaFaultMsgSlot {
    uint32_t key_qpn;
    uint8_t key_port;           /* 0: free */
    bool key_out;
    uint32_t count;
} VhcaFaultMsgSlot;

typedef struct VhcaFaultRules {
    uint64_t seed;
    uint64_t rng;
    uint32_t nrules;            /* rules in use: 0 is the fast path */
    uint32_t next_id;
    VhcaFaultRule rules[VHCA_FAULT_MAX_RULES];
    VhcaFaultMsgSlot msgs[VHCA_FAULT_MSG_SLOTS];
    uint64_t trace_seq;         /* entries ever recorded */
    VhcaFaultTraceEntry trace[VHCA_FAULT_TRACE_LEN];
    char why[160];              /* the last error */
} VhcaFaultRules;

/* No rules, the generator seeded. */
void vhca_fault_rules_init(VhcaFaultRules *r, uint64_t seed);
/* A new seed: the generator, the counters of each rule, the message
 * numbers and the trace start again (the rules stay). */
void vhca_fault_rules_seed(VhcaFaultRules *r, uint64_t seed);

/* Add one rule; NULL and its id in *id, or what is wrong with it. */
const char *vhca_fault_rule_add(VhcaFaultRules *r, const char *text,
                                uint32_t *id);
/* Parse text without adding it (a caller's own checks come next). */
const char *vhca_fault_rule_parse(VhcaFaultRules *r, const char *text,
                                  VhcaFaultRule *rule);
const char *vhca_fault_rule_del(VhcaFaultRules *r, uint32_t id);
/* All rules go; message numbers and the trace start again. */
void vhca_fault_rules_clear(VhcaFaultRules *r);

/*
 * "add RULE", "del ID", "clear", "seed N": one command of the control
 * interfaces (the device's fault-rules property, the switch's "rule ..."
 * lines).  NULL, or what is wrong.
 */
const char *vhca_fault_rules_command(VhcaFaultRules *r, const char *cmd);

/* The rules, one "id N matches M fired F: TEXT" line each; the seed first.
 * Returns the length it needed (as snprintf). */
size_t vhca_fault_rules_list(const VhcaFaultRules *r, char *buf, size_t size);
/* The trace, oldest first, one line per fault. */
size_t vhca_fault_rules_trace(const VhcaFaultRules *r, char *buf,
                              size_t size);

/*
 * The verdict on pkt: the action of the first rule (in id order) that
 * matches and fires, recorded in the trace, its argument in *arg.
 * VHCA_FAULT_PASS when none does.
 */
VhcaFaultAction vhca_fault_rules_judge(VhcaFaultRules *r,
                                       const VhcaFaultPkt *pkt,
                                       uint32_t *arg);

static inline bool vhca_fault_rules_active(const VhcaFaultRules *r)
{
    return r && r->nrules;
}

/* A wire frame's summary as the port sees it (vhca-wire.h). */
void vhca_fault_pkt_from_frame(const VhcaWireFrame *f, uint8_t port,
                               bool outbound, VhcaFaultPkt *pkt);
/* A datagram to QP0/QP1 of len bytes at mad: op=mad, its class and
 * attribute (the common MAD header, vhca-mad.h) when len holds them. */
void vhca_fault_pkt_set_mad(VhcaFaultPkt *pkt, const uint8_t *mad, size_t len);
/* The op class of a request of enum vhca_wqe_opcode. */
VhcaFaultOp vhca_fault_op_of_wqe(uint8_t wqe_opcode);

const char *vhca_fault_action_name(VhcaFaultAction a);

#endif /* HW_INFINIBAND_VHCA_FAULT_RULES_H */
