/*
 * vhca - link faults on demand (Documentation/fabric-tests.md "Faults on
 * demand"): what a frame meets on a lossy link, shared by the standalone
 * switch (each switch port's link, tools/vhca-switch-faults.c) and the
 * device (each cabled port's link, vhca-port-faults.c), so both inject
 * the same faults the same way.
 *
 * A data frame that leaves through vhca_faults_egress() is, by the link's
 * rates in percent: corrupted (dropped, as a receiver drops a packet with
 * a bad ICRC, IBA 7.8.1, and counted as such), lost, held back to be sent
 * after the next frame (reordered), or sent twice (duplicated); then it
 * waits out the link's added delay in a FIFO (a delay alone never
 * reorders).  The choices come from a seeded xorshift generator per link,
 * so a run is repeatable.  No clock, no I/O and no glib here (the switch
 * has none): the caller passes the time and a function that puts a frame
 * on the wire.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef VHCA_LINK_FAULTS_H
#define VHCA_LINK_FAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VHCA_FAULT_MAX_DELAY_MS 10000

/* The faults of one link: rates in percent (0..100), an added delay. */
typedef struct VhcaFaultRates {
    uint32_t loss, dup, reorder, corrupt;
    uint32_t delay_ms;          /* 0..VHCA_FAULT_MAX_DELAY_MS */
} VhcaFaultRates;

typedef struct VhcaFaultStats {
    uint64_t lost, duplicated, reordered, icrc_errors, delayed;
} VhcaFaultStats;

/* A frame held back (reordering) or waiting out the delay. */
typedef struct VhcaFaultFrame {
    struct VhcaFaultFrame *next;
    int64_t due_ms;
    uint32_t len;
    uint8_t frame[];
} VhcaFaultFrame;

/* Puts one frame on the wire. */
typedef void VhcaFaultSend(void *opaque, const uint8_t *frame, uint32_t len);

typedef struct VhcaFaultLink {
    VhcaFaultRates rates;
    VhcaFaultStats stats;
    uint64_t rng;
    VhcaFaultFrame *held;
    VhcaFaultFrame *delayed, **delayed_tail;
    VhcaFaultSend *send;
    void *opaque;
} VhcaFaultLink;

void vhca_faults_init(VhcaFaultLink *l, uint64_t seed, VhcaFaultSend *send,
                      void *opaque);
/* Rates and delay within their ranges (what a setter must check). */
bool vhca_fault_rates_valid(const VhcaFaultRates *r);
/* A data frame leaves by this link at now_ms (copied when kept). */
void vhca_faults_egress(VhcaFaultLink *l, const uint8_t *frame, uint32_t len,
                        int64_t now_ms);
/*
 * A fault rule's verdict (vhca-fault-rules.h) on one frame: hold it back
 * and send it after the next frame (one held at a time: a second goes at
 * once), or make it wait ms more than the link's delay (a delay of its
 * own may overtake or fall behind others).
 */
void vhca_faults_hold(VhcaFaultLink *l, const uint8_t *frame, uint32_t len,
                      int64_t now_ms);
void vhca_faults_delay(VhcaFaultLink *l, const uint8_t *frame, uint32_t len,
                       int64_t now_ms, uint32_t ms);
/* Sends the delayed frames due at now_ms; ms until the next one, -1: none. */
int64_t vhca_faults_due(VhcaFaultLink *l, int64_t now_ms);
/* The link goes down or is reset: what waits on it is lost. */
void vhca_faults_flush(VhcaFaultLink *l);

#endif /* VHCA_LINK_FAULTS_H */
