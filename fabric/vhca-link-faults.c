/*
 * vhca - link faults on demand (see vhca-link-faults.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "vhca-link-faults.h"

void vhca_faults_init(VhcaFaultLink *l, uint64_t seed, VhcaFaultSend *send,
                      void *opaque)
{
    memset(l, 0, sizeof(*l));
    l->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
    l->send = send;
    l->opaque = opaque;
    l->delayed_tail = &l->delayed;
}

bool vhca_fault_rates_valid(const VhcaFaultRates *r)
{
    return r->loss <= 100 && r->dup <= 100 && r->reorder <= 100 &&
           r->corrupt <= 100 && r->delay_ms <= VHCA_FAULT_MAX_DELAY_MS;
}

/* true with probability pct / 100 */
static bool vhca_faults_roll(VhcaFaultLink *l, uint32_t pct)
{
    if (!pct) {
        return false;
    }
    l->rng ^= l->rng << 13;
    l->rng ^= l->rng >> 7;
    l->rng ^= l->rng << 17;
    return l->rng % 100 < pct;
}

/* A copy of the frame, or NULL (then it is lost: counted by the caller). */
static VhcaFaultFrame *vhca_faults_copy(const uint8_t *frame, uint32_t len)
{
    VhcaFaultFrame *f = malloc(sizeof(*f) + len);

    if (f) {
        f->next = NULL;
        f->len = len;
        memcpy(f->frame, frame, len);
    }
    return f;
}

/* A frame onto the link: now, or once the link's delay has passed. */
static void vhca_faults_emit(VhcaFaultLink *l, const uint8_t *frame,
                             uint32_t len, int64_t now_ms)
{
    VhcaFaultFrame *f;

    if (!l->rates.delay_ms) {
        l->send(l->opaque, frame, len);
        return;
    }
    f = vhca_faults_copy(frame, len);
    if (!f) {
        l->stats.lost++;
        return;
    }
    f->due_ms = now_ms + l->rates.delay_ms;
    *l->delayed_tail = f;
    l->delayed_tail = &f->next;
    l->stats.delayed++;
}

static void vhca_faults_send_held(VhcaFaultLink *l, int64_t now_ms)
{
    VhcaFaultFrame *held = l->held;

    if (held) {
        l->held = NULL;
        vhca_faults_emit(l, held->frame, held->len, now_ms);
        free(held);
    }
}

void vhca_faults_egress(VhcaFaultLink *l, const uint8_t *frame, uint32_t len,
                        int64_t now_ms)
{
    if (vhca_faults_roll(l, l->rates.corrupt)) {
        l->stats.icrc_errors++;
        return;
    }
    if (vhca_faults_roll(l, l->rates.loss)) {
        l->stats.lost++;
        return;
    }
    if (!l->held && vhca_faults_roll(l, l->rates.reorder)) {
        l->held = vhca_faults_copy(frame, len);
        if (l->held) {
            l->stats.reordered++;
            return;
        }
    }
    vhca_faults_emit(l, frame, len, now_ms);
    if (vhca_faults_roll(l, l->rates.dup)) {
        l->stats.duplicated++;
        vhca_faults_emit(l, frame, len, now_ms);
    }
    vhca_faults_send_held(l, now_ms);
}

void vhca_faults_hold(VhcaFaultLink *l, const uint8_t *frame, uint32_t len,
                      int64_t now_ms)
{
    if (!l->held) {
        l->held = vhca_faults_copy(frame, len);
        if (l->held) {
            l->stats.reordered++;
            return;
        }
    }
    vhca_faults_emit(l, frame, len, now_ms);
}

void vhca_faults_delay(VhcaFaultLink *l, const uint8_t *frame, uint32_t len,
                       int64_t now_ms, uint32_t ms)
{
    VhcaFaultFrame *f = vhca_faults_copy(frame, len), **at;

    if (!f) {
        l->stats.lost++;
        return;
    }
    f->due_ms = now_ms + l->rates.delay_ms + ms;
    /* in due order, after those due at the same time */
    for (at = &l->delayed; *at && (*at)->due_ms <= f->due_ms;
         at = &(*at)->next) {
    }
    f->next = *at;
    *at = f;
    if (!f->next) {
        l->delayed_tail = &f->next;
    }
    l->stats.delayed++;
    vhca_faults_send_held(l, now_ms);
}

int64_t vhca_faults_due(VhcaFaultLink *l, int64_t now_ms)
{
    VhcaFaultFrame *f;

    while ((f = l->delayed) && f->due_ms <= now_ms) {
        l->delayed = f->next;
        if (!l->delayed) {
            l->delayed_tail = &l->delayed;
        }
        l->send(l->opaque, f->frame, f->len);
        free(f);
    }
    return l->delayed ? l->delayed->due_ms - now_ms : -1;
}

void vhca_faults_flush(VhcaFaultLink *l)
{
    VhcaFaultFrame *f;

    free(l->held);
    l->held = NULL;
    while ((f = l->delayed)) {
        l->delayed = f->next;
        free(f);
    }
    l->delayed_tail = &l->delayed;
}
