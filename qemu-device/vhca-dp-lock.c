/*
 * vhca - the data-path lock: SQ doorbells run off the BQL (dp-lockless=on).
 *
 * QEMU 7.2 has no per-region way to dispatch MMIO without the BQL: TCG's
 * io_writex() and the memory API's prepare_mmio_access() (KVM's
 * KVM_EXIT_MMIO) take it for every MMIO access (the old
 * memory_region_clear_global_locking() is gone from this tree).  So the SQ
 * doorbell handler, called with the BQL, drops it itself for the send
 * queue's work, as QEMU's own hw/remote/proxy.c BAR handlers do around
 * their socket I/O (mpqemu_msg_send), and takes it back before it returns.
 *
 * What protects device state instead is one recursive mutex for all vhca
 * devices of the process (the in-process fabric joins devices: a message
 * of one device's QP runs the responder of another's).  While some device
 * has dp-lockless=on, every entry point that runs with the BQL takes it
 * (VHCA_DP_GUARD: BQL first, then this lock), so the lockless path excludes
 * commands (create/modify/destroy of QPs, CQs, MRs), resets, unrealize,
 * timers, bottom halves, the SM and the sq-poll passes; with every device
 * at dp-lockless=off it is never taken and nothing changes.
 *
 * The lockless path holds only this lock and must never take the BQL:
 *   - MSI-X (APIC delivery) is deferred: the vector is remembered and
 *     msix_notify() runs once the handler has the BQL back;
 *   - DMA must be plain guest RAM outside the device's BARs: anything else
 *     would enter prepare_mmio_access() and take the BQL, so it is refused
 *     (a DMA fault, traced).  A topology change (BAR moved, bus mastering
 *     off, RAM unplugged) cannot happen under it: the memory listener's
 *     begin takes this lock and its commit drops it, and the memory API
 *     publishes the new flat view between the two;
 *   - only RC and UC QPs of in-process ports run here (no netdev I/O);
 *     timers are armed with timer_mod() and bottom halves scheduled with
 *     qemu_bh_schedule(), both thread-safe in QEMU 7.2.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "qemu/thread.h"
#include "qemu/atomic.h"
#include "qemu/host-utils.h"
#include "qapi/visitor.h"
#include "hw/core/cpu.h"
#include "hw/pci/msix.h"
#include "vhca-qemu-compat.h"
#include "vhca.h"
#include "vhca-transport.h"
#include "vhca-dp-lock.h"
#include "trace.h"

static QemuRecMutex vhca_dp_mutex;
static bool vhca_dp_mutex_ready;            /* BQL */
static unsigned vhca_dp_devices;            /* with dp-lockless=on; BQL */
static int vhca_dp_cabled_ports;            /* vhca-link.c; BQL */
static __thread unsigned vhca_dp_depth;     /* this thread's holds */
static __thread bool vhca_dp_unlocked;      /* runs without the BQL */

/* Devices with MSI-X messages deferred by the lockless path (this lock). */
static QTAILQ_HEAD(, VhcaState) vhca_dp_msix_devs =
    QTAILQ_HEAD_INITIALIZER(vhca_dp_msix_devs);

bool vhca_dp_lockless(void)
{
    return vhca_dp_unlocked;
}

bool vhca_dp_enter(void)
{
    if (vhca_dp_unlocked || !qatomic_read(&vhca_dp_devices)) {
        return false;
    }
    qemu_rec_mutex_lock(&vhca_dp_mutex);
    vhca_dp_depth++;
    return true;
}

void vhca_dp_leave(bool taken)
{
    if (taken) {
        vhca_dp_depth--;
        qemu_rec_mutex_unlock(&vhca_dp_mutex);
    }
}

void vhca_dp_realize(VhcaState *s)
{
    if (!s->dp_lockless) {
        return;
    }
    if (!vhca_dp_mutex_ready) {
        qemu_rec_mutex_init(&vhca_dp_mutex);
        vhca_dp_mutex_ready = true;
    }
    /*
     * QEMU's re-entrancy guard is one flag per device, raised for the whole
     * of an MMIO access: while one vCPU runs a doorbell here without the
     * BQL, a second vCPU's doorbell would find it raised and be dropped.
     * The device keeps its own guard (in_dma, checked under this lock) and
     * never DMAs into its BARs (vhca_dma_hits_own_bars).
     */
    s->db_bar.disable_reentrancy_guard = true;
    qatomic_inc(&vhca_dp_devices);
}

/* After the device's teardown; the caller no longer holds the lock. */
void vhca_dp_unrealize(VhcaState *s)
{
    bool dp;

    if (!s->dp_lockless) {
        return;
    }
    dp = vhca_dp_enter();
    if (s->dp_msix_queued) {
        QTAILQ_REMOVE(&vhca_dp_msix_devs, s, dp_msix_link);
        s->dp_msix_queued = false;
    }
    vhca_dp_leave(dp);
    qatomic_dec(&vhca_dp_devices);
}

void vhca_dp_cabled(int delta)
{
    vhca_dp_cabled_ports += delta;
}

bool vhca_dp_defer_msix(VhcaState *s, uint16_t vector)
{
    if (!vhca_dp_unlocked) {
        return false;
    }
    s->dp_msix_pending |= 1ull << (vector & 63);
    if (!s->dp_msix_queued) {
        QTAILQ_INSERT_TAIL(&vhca_dp_msix_devs, s, dp_msix_link);
        s->dp_msix_queued = true;
    }
    trace_vhca_dp_msix_deferred(vector);
    return true;
}

/* BQL and lock held: send what the lockless path deferred. */
static void vhca_dp_flush_msix(void)
{
    VhcaState *s;

    while ((s = QTAILQ_FIRST(&vhca_dp_msix_devs))) {
        uint64_t pending = s->dp_msix_pending;
        PCIDevice *pdev = PCI_DEVICE(s);

        QTAILQ_REMOVE(&vhca_dp_msix_devs, s, dp_msix_link);
        s->dp_msix_queued = false;
        s->dp_msix_pending = 0;
        while (pending && !s->dp_dead && msix_enabled(pdev)) {
            int vector = ctz64(pending);

            pending &= pending - 1;
            s->in_dma = true;       /* as vhca_eq_interrupt: guest-aimed */
            msix_notify(pdev, vector);
            s->in_dma = false;
        }
    }
}

bool vhca_dp_dma_refused(VhcaState *s, uint64_t addr, uint64_t len)
{
    AddressSpace *as = pci_get_address_space(&s->parent_obj);
    uint64_t a = addr, left = len;

    if (len == 0) {
        return false;
    }
    if (addr + len - 1 < addr) {
        trace_vhca_dp_dma_refused(addr, len);
        return true;
    }
    RCU_READ_LOCK_GUARD();
    while (left) {
        hwaddr xlat, l = left;
        MemoryRegion *mr = address_space_translate(as, a, &xlat, &l, true,
                                                   MEMTXATTRS_UNSPECIFIED);

        /* direct for writes implies direct for reads (ROM is refused) */
        if (!memory_access_is_direct(mr, true, MEMTXATTRS_UNSPECIFIED) || mr->owner == OBJECT(s) ||
            l == 0) {
            trace_vhca_dp_dma_refused(addr, len);
            return true;
        }
        a += l;
        left -= MIN(l, left);
    }
    return false;
}

/*
 * Whether this doorbell may run its send queue without the BQL: the device
 * asks for it; the caller is an MMIO access of a vCPU (or of qtest), not
 * nested in another send queue or entry point; the QP is an RC or UC QP in
 * RTS, no port of the process cabled out (no netdev), nothing waiting for
 * a timer; no loss injection; no vIOMMU (its translation is not covered by
 * the listener argument above).
 */
static bool vhca_dp_eligible(VhcaState *s, VhcaQp *qp)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    const char *why = NULL;

    if (!s->dp_lockless) {
        return false;
    }
    if (s->sq_poll) {
        why = "sq-poll";
    } else if (!current_cpu && !qtest_enabled()) {
        why = "not a vCPU";
    } else if (vhca_dp_depth != 1 || vhca_sq_nested()) {
        why = "nested";
    } else if (qp->type != VHCA_QPT_RC && qp->type != VHCA_QPT_UC) {
        why = "QP type";
    } else if (qp->state != VHCA_QPS_RTS || qp->sq_waiting ||
               qp->odp_stopped) {
        why = "QP state";
    } else if (vhca_dp_cabled_ports) {
        /* a port event of any device (EQ overflow: vhca_fatal) may send a
         * frame to a netdev, which needs the BQL */
        why = "cabled port";
    } else if (s->rc_drop_request || s->rc_drop_response ||
               vhca_rc_windowed(s, qp)) {
        why = "RC loss or window";
    } else if (pci_device_iommu_address_space(pdev) != &address_space_memory) {
        why = "vIOMMU";
    }
    if (why) {
        trace_vhca_dp_fallback(qp->handle, why);
        s->dp_fallbacks++;
        return false;
    }
    return true;
}

void vhca_dp_sq_produced(VhcaState *s, VhcaQp *qp)
{
    uint32_t handle = qp->handle;

    if (!vhca_dp_eligible(s, qp)) {
        vhca_sq_produced(s, qp);
        return;
    }
    trace_vhca_dp_lockless(handle, qp->sq.ci, qp->sq.pi);
    /* Lock order: drop ours, then the BQL; take ours alone. */
    qemu_rec_mutex_unlock(&vhca_dp_mutex);
    bql_unlock();
    qemu_rec_mutex_lock(&vhca_dp_mutex);
    vhca_dp_unlocked = true;
    /*
     * Anything may have run in between: an unrealize (its tables freed,
     * dp_dead), a reset, the QP destroyed or its slot reused.  The device
     * object itself lives on: the MMIO dispatch that called us holds the
     * RCU read lock, and the flat view holding our region holds a reference.
     */
    if (!s->dp_dead && vhca_is_enabled(s) && qp->valid &&
        qp->handle == handle) {
        s->dp_lockless_runs++;
        vhca_sq_produced(s, qp);
    }
    vhca_dp_unlocked = false;
    qemu_rec_mutex_unlock(&vhca_dp_mutex);
    bql_lock();
    qemu_rec_mutex_lock(&vhca_dp_mutex);    /* the caller's guard's */
    vhca_dp_flush_msix();
}

/* dp-lockless-runs, dp-lockless-fallbacks: what the SQ doorbells did. */
static void vhca_dp_count_get(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    VHCA_DP_GUARD();
    VhcaState *s = VHCA(obj);
    uint64_t value = opaque ? s->dp_fallbacks : s->dp_lockless_runs;

    visit_type_uint64(v, name, &value, errp);
}

void vhca_dp_instance_init(Object *obj)
{
    object_property_add(obj, "dp-lockless-runs", "uint64",
                        vhca_dp_count_get, NULL, NULL, NULL);
    object_property_set_description(obj, "dp-lockless-runs",
                                    "SQ doorbells run without the BQL");
    object_property_add(obj, "dp-lockless-fallbacks", "uint64",
                        vhca_dp_count_get, NULL, NULL, obj);
    object_property_set_description(obj, "dp-lockless-fallbacks",
                                    "SQ doorbells of dp-lockless=on run "
                                    "with the BQL (vhca_dp_fallback says "
                                    "why)");
}
