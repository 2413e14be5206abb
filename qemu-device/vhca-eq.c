/*
 * vhca - event queues: writing EQEs with the owner bit, arming, MSI-X.
 *
 * An EQ is a ring of 2^log_size struct vhca_eqe in guest memory.  The
 * device owns the producer index (pi, free running), the driver reports its
 * consumer index with the EQ doorbell (low 24 bits).  Owner bit: pass
 * parity, 1 on the first pass (vhca_eqe_owner()), written last so that a
 * driver that sees the new owner value sees the whole entry.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/pci/msix.h"
#include "vhca.h"
#include "vhca-ring.h"
#include "trace.h"

#define VHCA_EQE_OWNER_OFFSET   offsetof(struct vhca_eqe, owner)

bool vhca_eq_config_valid(VhcaState *s, uint64_t base, uint32_t log_size)
{
    if (base == 0 || (base & (VHCA_QUEUE_ALIGN - 1)) ||
        log_size < VHCA_MIN_LOG_EQ || log_size > VHCA_MAX_LOG_EQ) {
        return false;
    }
    return vhca_dma_range_valid(s, base,
                                sizeof(struct vhca_eqe) << log_size);
}

void vhca_eq_setup(VhcaState *s, uint32_t eqn, uint64_t base,
                   uint8_t log_size, uint16_t vector)
{
    VhcaEq *eq = &s->eqs[eqn];

    eq->valid = true;
    eq->armed = false;
    eq->base = base;
    eq->log_size = log_size;
    eq->vector = vector;
    eq->pi = 0;
    eq->ci = 0;
    eq->fired_on_arm = false;
    eq->stuck = false;
    trace_vhca_eq_setup(eqn, base, log_size, vector);
}

void vhca_eq_teardown(VhcaState *s, uint32_t eqn)
{
    memset(&s->eqs[eqn], 0, sizeof(s->eqs[eqn]));
    trace_vhca_eq_teardown(eqn);
}

void vhca_eq_reset(VhcaState *s)
{
    memset(s->eqs, 0, sizeof(s->eqs));
}

static void vhca_eq_interrupt(VhcaState *s, uint32_t eqn)
{
    VhcaEq *eq = &s->eqs[eqn];
    PCIDevice *pdev = PCI_DEVICE(s);

    eq->armed = false;
    trace_vhca_eq_interrupt(eqn, eq->vector);
    if (msix_enabled(pdev)) {
        /*
         * The MSI-X message is a write the guest aimed: it may target our
         * own BARs, so it runs under the re-entrancy guard like DMA.
         */
        s->in_dma = true;
        msix_notify(pdev, eq->vector);
        s->in_dma = false;
    }
}

/*
 * Write one EQE at the producer index.  The caller's entry is copied, its
 * owner byte set here; the 31 leading bytes go first, the owner byte last
 * (IBA-style "valid bit last" ordering, vhca_hw.h "Event queues").
 */
VhcaEqPostResult vhca_eq_post(VhcaState *s, uint32_t eqn,
                              const struct vhca_eqe *eqe)
{
    struct vhca_eqe entry = *eqe;
    VhcaEq *eq;
    uint64_t addr;

    if (eqn >= VHCA_MAX_EQS || !s->eqs[eqn].valid) {
        return VHCA_EQ_NOT_VALID;
    }
    eq = &s->eqs[eqn];
    if (vhca_eq_full(eq->pi, eq->ci, eq->log_size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: EQ %u overflow (pi %u ci %u)\n",
                      eqn, eq->pi, eq->ci);
        trace_vhca_reject("eq-overflow", eqn);
        return VHCA_EQ_OVERFLOW;
    }
    entry.owner = vhca_eqe_owner(eq->pi, eq->log_size);
    addr = vhca_ring_slot_addr(eq->base, eq->pi, eq->log_size, sizeof(entry));
    if (vhca_dma_write(s, addr, &entry, VHCA_EQE_OWNER_OFFSET) != MEMTX_OK ||
        vhca_dma_write(s, addr + VHCA_EQE_OWNER_OFFSET, &entry.owner, 1)
            != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: EQ %u write at 0x%" PRIx64
                      " failed\n", eqn, addr);
        return VHCA_EQ_DMA_ERROR;
    }
    trace_vhca_eq_post(eqn, eq->pi, entry.type, entry.subtype, entry.owner);
    eq->pi++;
    if (eq->armed) {
        vhca_eq_interrupt(s, eqn);
    }
    return VHCA_EQ_POSTED;
}

/* EQ 0 carries command completions: losing an entry is fatal. */
bool vhca_eq0_post(VhcaState *s, const struct vhca_eqe *eqe)
{
    if (!vhca_is_enabled(s)) {
        return false;
    }
    switch (vhca_eq_post(s, 0, eqe)) {
    case VHCA_EQ_POSTED:
        return true;
    case VHCA_EQ_OVERFLOW:
        vhca_fatal(s, VHCA_FATAL_EQ0_OVERFLOW);
        return false;
    case VHCA_EQ_DMA_ERROR:
    case VHCA_EQ_NOT_VALID:
    default:
        vhca_fatal(s, VHCA_FATAL_EQ0_DMA);
        return false;
    }
}

/*
 * An arm with entries pending, checked against the previous one: when it
 * repeats it (vhca_eq_arm_repeats) the driver does not see entry ci, and
 * the interrupt this arm raises starts a storm the driver cannot end.
 * The device still interrupts, as the EQ doorbell's contract says; it
 * counts the arm (eq-stuck-arms) and logs what lies in entry ci's owner
 * byte: the value the device wrote means the driver misreads the ring,
 * another value that something overwrote it.  Once per episode, which
 * ends when an arm finds nothing pending (the driver caught up): a driver
 * that stays behind while events keep coming logs one line, not one an
 * event.
 */
static void vhca_eq_check_repeat(VhcaState *s, uint32_t eqn)
{
    VhcaEq *eq = &s->eqs[eqn];
    uint8_t written = vhca_eqe_owner(eq->ci, eq->log_size);
    uint8_t owner = 0xff;
    uint64_t addr;

    if (!vhca_eq_arm_repeats(eq->fired_on_arm, eq->fired_ci, eq->fired_pi,
                             eq->ci, eq->pi)) {
        eq->fired_on_arm = true;
        eq->fired_ci = eq->ci;
        eq->fired_pi = eq->pi;
        return;
    }
    s->eq_stuck_arms++;
    if (eq->stuck) {
        return;
    }
    eq->stuck = true;
    addr = vhca_ring_slot_addr(eq->base, eq->ci, eq->log_size,
                               sizeof(struct vhca_eqe));
    if (vhca_dma_read(s, addr + VHCA_EQE_OWNER_OFFSET, &owner, 1) !=
        MEMTX_OK) {
        owner = 0xff;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: EQ %u armed again at consumer "
                  "index %u with %u entries pending and none consumed since "
                  "its interrupt; entry %u's owner byte reads 0x%x, the "
                  "device wrote owner %u\n", eqn, eq->ci,
                  vhca_eq_used(eq->pi, eq->ci), eq->ci, owner, written);
    trace_vhca_eq_arm_stuck(eqn, eq->ci, eq->pi, owner, written);
}

/*
 * EQ doorbell: record the driver's consumer index, optionally arm.  A
 * consumer index ahead of the producer, or further behind it than the ring
 * size, cannot be right and is ignored.  Arming with entries pending fires
 * at once, so that an event posted just before the arm is not lost.
 */
void vhca_eq_doorbell(VhcaState *s, uint32_t value)
{
    VhcaEqDoorbell db = vhca_eq_doorbell_decode(value);
    uint32_t eqn = db.eqn;
    uint32_t ci = db.ci;
    bool arm = db.arm;
    VhcaEq *eq;

    if (!vhca_is_enabled(s) || eqn >= VHCA_MAX_EQS || !s->eqs[eqn].valid) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: doorbell for EQ %u, which is "
                      "not live, ignored\n", eqn);
        trace_vhca_reject("eq-db-eqn", eqn);
        return;
    }
    eq = &s->eqs[eqn];
    if (!vhca_eq_ci_valid(eq->pi, ci, eq->log_size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: EQ %u consumer index %u "
                      "impossible with producer index %u, ignored\n",
                      eqn, ci, eq->pi);
        trace_vhca_reject("eq-db-ci", value);
        return;
    }
    eq->ci = ci;
    trace_vhca_eq_doorbell(eqn, ci, arm);
    if (!arm) {
        return;
    }
    if (vhca_eq_used(eq->pi, eq->ci)) {
        vhca_eq_check_repeat(s, eqn);
        vhca_eq_interrupt(s, eqn);
    } else {
        eq->fired_on_arm = false;
        eq->stuck = false;
        eq->armed = true;
    }
}

/* eq-stuck-arms: read-only, with qom-get (Documentation/device.md). */
void vhca_eq_props_init(Object *obj)
{
    VhcaState *s = VHCA(obj);

    object_property_add_uint64_ptr(obj, "eq-stuck-arms", &s->eq_stuck_arms,
                                   OBJ_PROP_FLAG_READ);
    object_property_set_description(obj, "eq-stuck-arms",
        "EQ arms that repeated the last one with entries pending and none "
        "consumed (the driver does not see the entry the device wrote)");
}
