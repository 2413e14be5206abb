/*
 * vhca - the data-path lock: SQ doorbells run off the BQL (dp-lockless=on).
 *
 * Lock order: the BQL before the data-path lock, never the reverse.  Every
 * entry point into device code that runs with the BQL (MMIO handlers,
 * bottom halves, timers, the netdev receive, QOM accessors, realize,
 * unrealize, reset, the memory listener, the sq-poll thread's passes) takes
 * the data-path lock too, while some device of the process has
 * dp-lockless=on; the lockless send path holds only the data-path lock and
 * never takes the BQL.  Documentation/device.md "Threading model".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_VHCA_DP_LOCK_H
#define HW_MISC_VHCA_DP_LOCK_H

#include "vhca.h"

/* Whether this thread runs a send queue without the BQL right now. */
bool vhca_dp_lockless(void);

/*
 * Take the data-path lock if any device of the process has dp-lockless=on
 * (the caller holds the BQL); returns whether it was taken, for
 * vhca_dp_leave().
 */
bool vhca_dp_enter(void);
void vhca_dp_leave(bool taken);

typedef struct VhcaDpGuard {
    bool taken;
} VhcaDpGuard;

static inline void vhca_dp_guard_release(VhcaDpGuard *g)
{
    vhca_dp_leave(g->taken);
}

/* The data-path lock for the rest of the enclosing scope (BQL held). */
#define VHCA_DP_GUARD() \
    VhcaDpGuard vhca_dp_guard_ \
        __attribute__((cleanup(vhca_dp_guard_release))) = \
        { .taken = vhca_dp_enter() }

/*
 * A port cabled out (vhca-link.c) joins or leaves the process (BQL): while
 * any is, no send queue runs lockless (a port event may reach its netdev).
 */
void vhca_dp_cabled(int delta);

/* The read-only counters dp-lockless-runs and dp-lockless-fallbacks. */
void vhca_dp_instance_init(Object *obj);

/* realize/unrealize of a device with dp-lockless=on (BQL held). */
void vhca_dp_realize(VhcaState *s);
void vhca_dp_unrealize(VhcaState *s);

/*
 * The SQ doorbell: run the new WQEs of qp off the BQL when the QP and the
 * calling context allow it, else exactly as before (vhca_sq_produced).
 */
void vhca_dp_sq_produced(VhcaState *s, VhcaQp *qp);

/* An MSI-X message from the lockless path: sent once the BQL is back. */
bool vhca_dp_defer_msix(VhcaState *s, uint16_t vector);

/*
 * The DMA check of the lockless path: true when [addr, addr + len) is not
 * plain guest RAM outside the device's own BARs (anything else would take
 * the BQL inside the memory API, against the lock order).
 */
bool vhca_dp_dma_refused(VhcaState *s, uint64_t addr, uint64_t len);

#endif
