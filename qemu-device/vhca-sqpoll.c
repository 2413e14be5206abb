/*
 * vhca - device-side polling of send doorbell records (issue 12).
 *
 * Properties (vhca.c):
 *   sq-poll         (bool, default off) run a polling thread that reads
 *                   the send doorbell records (struct vhca_wq_dbrec,
 *                   CREATE_QP's sq_dbrec_addr) of the device's QPs, and
 *                   advertise VHCA_DEV_CAP_SQ_POLL.  Off: records are
 *                   accepted but never polled; drivers ring SQ doorbells.
 *   sq-poll-window  (uint32, microseconds, 1..60000000, default 100) how long
 *                   the thread keeps polling after the last WQE it or a
 *                   doorbell announced, before it sleeps until the next SQ
 *                   doorbell.
 *
 * The protocol with the driver is virtio's VRING_USED_F_NO_NOTIFY
 * (vhca_hw_verbs.h "Send doorbell records"): while the thread polls, every
 * polled record has VHCA_WQ_DBREC_F_POLLED in device_flags and the driver
 * posts with memory writes only; before it sleeps the thread clears the
 * flags and reads every record once more, so a producer index stored
 * before the driver saw the flag clear is never missed (both sides put a
 * full barrier between their store and their load: the driver smp_mb, the
 * device the one every DMA starts with).
 *
 * Locking: the device state is the BQL's (Documentation/device-qemu.md
 * "Threading model").  The thread takes the BQL for each pass over the
 * records and runs exactly the code an SQ doorbell runs
 * (vhca_sq_produced); between passes it holds no lock and no pointer, so
 * DESTROY_QP, MODIFY_QP to RESET and device reset (all under the BQL)
 * never race with it.  The set of polled QPs is a bitmap of QP slots,
 * also under the BQL.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <sched.h>
#include "qemu/bitmap.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "qemu/thread.h"
#include "vhca-qemu-compat.h"
#include "vhca.h"
#include "vhca-sqpoll.h"
#include "trace.h"

struct VhcaSqPoller {
    VhcaState *s;
    QemuThread thread;
    QemuEvent wake;             /* set by an SQ doorbell and at stop */
    bool stop;                  /* atomic */
    bool polling;               /* BQL: the records say POLLED */
    int64_t window_ns;
    unsigned long slots[BITS_TO_LONGS(VHCA_QP_SLOTS)];  /* BQL */
};

/* Tell the driver of one record whether it must ring (BQL held). */
static void vhca_sqpoll_flag(VhcaSqPoller *p, uint32_t slot)
{
    VhcaQp *qp = &p->s->qps[slot];
    uint32_t flags = cpu_to_le32(p->polling ? VHCA_WQ_DBREC_F_POLLED : 0);

    if (vhca_dma_write(p->s, qp->sq.dbrec +
                       offsetof(struct vhca_wq_dbrec, device_flags),
                       &flags, sizeof(flags)) != MEMTX_OK) {
        /* The guest moved its own record away: its QP may then wait for
         * a doorbell it does not ring; the device is not harmed. */
        trace_vhca_wq_dbrec_reject("sq", qp->handle, "flags not writable",
                                   p->polling);
    }
}

static void vhca_sqpoll_set_polling(VhcaSqPoller *p, bool polling)
{
    unsigned long slot;

    p->polling = polling;
    for (slot = find_first_bit(p->slots, VHCA_QP_SLOTS); slot < VHCA_QP_SLOTS;
         slot = find_next_bit(p->slots, VHCA_QP_SLOTS, slot + 1)) {
        vhca_sqpoll_flag(p, slot);
    }
}

/*
 * One pass over the polled records (BQL held): take each new producer
 * index as an SQ doorbell would.  Returns whether any was new.  A record
 * is checked as a receive record is (behind the index or more than a ring
 * ahead: ignored, logged and traced once per value).
 */
static bool vhca_sqpoll_pass(VhcaSqPoller *p)
{
    VhcaState *s = p->s;
    unsigned long slot;
    bool found = false;

    for (slot = find_first_bit(p->slots, VHCA_QP_SLOTS);
         slot < VHCA_QP_SLOTS && vhca_is_enabled(s);
         slot = find_next_bit(p->slots, VHCA_QP_SLOTS, slot + 1)) {
        VhcaQp *qp = &s->qps[slot];
        uint32_t pi = qp->sq.pi;

        /* RESET: the driver zeroes the record before it leaves RESET. */
        if (!qp->valid || qp->state == VHCA_QPS_RESET) {
            continue;
        }
        vhca_wq_read_dbrec(s, &qp->sq, "sq", qp->handle);
        if (qp->sq.pi != pi) {
            found = true;
            vhca_sq_produced(s, qp);
        }
    }
    return found;
}

/* Between passes: let the vCPUs and the main loop have the BQL and, on a
 * host with fewer cores than busy threads, the core. */
static void vhca_sqpoll_pause(void)
{
    sched_yield();
}

/*
 * Poll until nothing was new for window_ns; then clear the flags, look
 * once more, and sleep if still nothing (BQL taken and dropped here).
 */
static void vhca_sqpoll_window(VhcaSqPoller *p)
{
    int64_t idle_since = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    uint64_t passes = 0, busy = 0;

    bql_lock();
    vhca_sqpoll_set_polling(p, true);
    trace_vhca_sqpoll_wake();
    while (!qatomic_read(&p->stop)) {
        int64_t now;
        bool found = vhca_sqpoll_pass(p);

        passes++;
        now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
        if (!found && now - idle_since >= p->window_ns) {
            qemu_event_reset(&p->wake);
            vhca_sqpoll_set_polling(p, false);
            /* The flag store above is ordered before these record reads
             * by the barrier every DMA starts with (dma_barrier). */
            if (!vhca_sqpoll_pass(p)) {
                break;
            }
            vhca_sqpoll_set_polling(p, true);
            found = true;
        }
        if (found) {
            busy++;
            idle_since = now;
        }
        bql_unlock();
        vhca_sqpoll_pause();
        bql_lock();
    }
    p->polling = false;
    trace_vhca_sqpoll_sleep(passes, busy);
    bql_unlock();
}

static void *vhca_sqpoll_thread(void *opaque)
{
    VhcaSqPoller *p = opaque;

    rcu_register_thread();
    while (!qatomic_read(&p->stop)) {
        qemu_event_wait(&p->wake);
        if (qatomic_read(&p->stop)) {
            break;
        }
        vhca_sqpoll_window(p);
    }
    rcu_unregister_thread();
    return NULL;
}

void vhca_sqpoll_realize(VhcaState *s)
{
    VhcaSqPoller *p;

    if (!s->sq_poll) {
        return;
    }
    p = g_new0(VhcaSqPoller, 1);
    p->s = s;
    p->window_ns = (int64_t)s->sq_poll_window_us * SCALE_US;
    qemu_event_init(&p->wake, false);
    s->sq_poller = p;
    qemu_thread_create(&p->thread, "vhca-sqpoll", vhca_sqpoll_thread, p,
                       QEMU_THREAD_JOINABLE);
}

/* BQL held: the thread may be waiting for it, so it is dropped while the
 * thread is joined. */
void vhca_sqpoll_unrealize(VhcaState *s)
{
    VhcaSqPoller *p = s->sq_poller;

    if (!p) {
        return;
    }
    qatomic_set(&p->stop, true);
    qemu_event_set(&p->wake);
    bql_unlock();
    qemu_thread_join(&p->thread);
    bql_lock();
    qemu_event_destroy(&p->wake);
    s->sq_poller = NULL;
    g_free(p);
}

void vhca_sqpoll_add(VhcaState *s, uint32_t slot)
{
    VhcaSqPoller *p = s->sq_poller;

    if (p) {
        set_bit(slot, p->slots);
        vhca_sqpoll_flag(p, slot);
    }
}

void vhca_sqpoll_remove(VhcaState *s, uint32_t slot)
{
    if (s->sq_poller) {
        clear_bit(slot, s->sq_poller->slots);
    }
}

void vhca_sqpoll_kick(VhcaState *s)
{
    if (s->sq_poller) {
        qemu_event_set(&s->sq_poller->wake);
    }
}
