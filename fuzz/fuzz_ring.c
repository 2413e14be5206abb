/*
 * libFuzzer target: ring index arithmetic (qemu-device/vhca-ring.h), the
 * producer/consumer bookkeeping of the command queue and the EQs, with
 * free-running 32-bit indexes that wrap, the 24-bit EQ doorbell consumer
 * index and the EQE owner bit.
 *
 * The input drives a simulated driver against the device's functions; the
 * simulation keeps its own 64-bit (never wrapping) counts and a shadow of
 * every ring slot, and aborts when the device's arithmetic disagrees:
 *  - EQ: the device posts only when the ring has room and never overwrites
 *    an entry the driver has not consumed; the owner bit tells a consumer
 *    exactly whether the slot at its index holds the next entry (also
 *    across 2^24 and 2^32 wraps); every consumer index the driver could
 *    legitimately report is accepted and every other one refused.
 *  - CMDQ: a producer index is accepted iff it is at most one ring ahead;
 *    the device reads only slots inside the ring, in order, each command
 *    once, and never one the driver has not written.
 *
 * Input: byte 0 selects the ring (bit 7: 1 = CMDQ) and its log size;
 * bytes 1..4 the index the counters start from (as if the queue had
 * already run that long); then 5-byte operations (opcode, 32-bit argument).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vhca-ring.h"

#define MAX_OPS         512
#define ENTRY_SIZE_EQ   32
#define ENTRY_SIZE_CMD  64
#define RING_BASE       0x7fff0000ull   /* a 4 KiB aligned guest address */
#define NO_INDEX        UINT64_MAX

static void fail(const char *what, uint64_t a, uint64_t b)
{
    fprintf(stderr, "fuzz_ring: %s (0x%llx, 0x%llx)\n", what,
            (unsigned long long)a, (unsigned long long)b);
    abort();
}

static uint32_t arg32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* One ring slot as the simulation remembers it. */
typedef struct Slot {
    uint64_t index;         /* absolute index written there, NO_INDEX: none */
    uint8_t owner;          /* EQ: owner byte in guest memory */
} Slot;

typedef struct Sim {
    uint32_t log_size;
    uint32_t size;
    Slot *slots;
    /* Absolute counts (64-bit: they never wrap). */
    uint64_t produced;      /* EQ: entries the device wrote; CMDQ: driver */
    uint64_t consumed;      /* EQ: driver's own ci; CMDQ: device's ci */
    uint64_t acked;         /* EQ: ci the device accepted last */
    /* The device's view, 32-bit. */
    uint32_t dev_pi;
    uint32_t dev_ci;
} Sim;

/* Which slot an index lands in, checked against the ring's bounds. */
static uint32_t slot_of(const Sim *sim, uint32_t idx, uint32_t entry_size)
{
    uint64_t addr = vhca_ring_slot_addr(RING_BASE, idx, sim->log_size,
                                        entry_size);
    uint64_t off = addr - RING_BASE;

    if (addr < RING_BASE || off >= (uint64_t)sim->size * entry_size ||
        off % entry_size) {
        fail("slot address outside the ring", idx, addr);
    }
    if (off / entry_size != idx % sim->size) {
        fail("slot is not index mod size", idx, off / entry_size);
    }
    return off / entry_size;
}

/*
 * The queue has already run to the 32-bit index start, after at least one
 * full wrap of the 32-bit counters (a device at index 0 cannot tell a fresh
 * ring from one that wrapped): every slot holds a consumed entry written
 * with the owner bit of its pass.  Absolute counts start at 2^32 + start.
 */
static void sim_init(Sim *sim, uint32_t log_size, uint32_t start)
{
    uint64_t abs_start = (1ull << 32) + start;
    uint32_t i;

    sim->log_size = log_size;
    sim->size = vhca_ring_entries(log_size);
    sim->slots = calloc(sim->size, sizeof(Slot));
    for (i = 0; i < sim->size; i++) {
        /* The last index below start that maps to slot i. */
        uint32_t back = (start - i) % sim->size;
        uint64_t last = abs_start - (back ? back : sim->size);

        sim->slots[i].index = last;
        sim->slots[i].owner = vhca_eqe_owner((uint32_t)last, log_size);
    }
    sim->produced = sim->consumed = sim->acked = abs_start;
    sim->dev_pi = sim->dev_ci = start;
}

/* ---- EQ ------------------------------------------------------------- */

static void eq_post(Sim *sim)
{
    bool full = vhca_eq_full(sim->dev_pi, sim->dev_ci, sim->log_size);
    uint32_t slot;

    if (full != (sim->produced - sim->acked >= sim->size)) {
        fail("EQ full verdict", sim->produced, sim->acked);
    }
    if (full) {
        return;                 /* the device reports an overflow */
    }
    slot = slot_of(sim, sim->dev_pi, ENTRY_SIZE_EQ);
    if (sim->slots[slot].index != NO_INDEX &&
        sim->slots[slot].index >= sim->acked) {
        fail("EQ entry overwritten before it was consumed",
             sim->slots[slot].index, sim->acked);
    }
    sim->slots[slot].index = sim->produced;
    sim->slots[slot].owner = vhca_eqe_owner(sim->dev_pi, sim->log_size);
    sim->produced++;
    sim->dev_pi++;
}

/* The driver polls: the owner bit must say exactly whether an entry is new. */
static void eq_poll(Sim *sim, uint32_t max)
{
    while (max--) {
        uint32_t ci = (uint32_t)sim->consumed;
        uint32_t slot = slot_of(sim, ci, ENTRY_SIZE_EQ);
        bool valid = sim->slots[slot].owner == vhca_eqe_owner(ci,
                                                              sim->log_size);
        bool is_next = sim->slots[slot].index == sim->consumed;

        if (valid != is_next) {
            fail("owner bit lies", sim->consumed, sim->slots[slot].index);
        }
        if (!valid) {
            return;
        }
        sim->consumed++;
    }
}

/* Accept or refuse a doorbell consumer index; the model decides alone. */
static void eq_doorbell(Sim *sim, uint32_t value)
{
    VhcaEqDoorbell db = vhca_eq_doorbell_decode(value);
    bool accepted = vhca_eq_ci_valid(sim->dev_pi, db.ci, sim->log_size);
    uint64_t lowest = sim->produced >= sim->size ? sim->produced - sim->size
                                                 : 0;
    uint64_t match = (sim->produced & ~(uint64_t)0xffffff) | db.ci;

    if (db.ci != (value & 0xffffff) || db.eqn != ((value >> 24) & 0x7f) ||
        db.arm != (value >> 31)) {
        fail("doorbell decode", value, db.ci);
    }
    if (vhca_db_eq_value(db.eqn, db.ci, db.arm) != value) {
        fail("doorbell encode/decode round trip", value, db.ci);
    }
    /*
     * The one position at or below the producer with these low 24 bits;
     * possible if no more than one ring behind it.
     */
    if (match > sim->produced) {
        match = match >= 0x1000000 ? match - 0x1000000 : NO_INDEX;
    }
    if (match != NO_INDEX && match < lowest) {
        match = NO_INDEX;
    }
    if (accepted != (match != NO_INDEX)) {
        fail("doorbell consumer index verdict", db.ci, sim->produced);
    }
    if (accepted) {
        sim->dev_ci = db.ci;
        sim->acked = match;
        sim->consumed = match;  /* a buggy driver's view follows it */
    }
}

/* ---- CMDQ ----------------------------------------------------------- */

/* The driver writes n commands, if the ring has room, and rings. */
static bool cmdq_submit(Sim *sim, uint32_t n)
{
    while (n-- && sim->produced - sim->consumed < sim->size) {
        uint32_t slot = slot_of(sim, (uint32_t)sim->produced,
                                ENTRY_SIZE_CMD);

        sim->slots[slot].index = sim->produced++;
    }
    return vhca_cmdq_pi_valid((uint32_t)sim->produced, sim->dev_ci,
                              sim->log_size);
}

/* The device processes what the doorbell says, in order, once each. */
static void cmdq_process(Sim *sim, uint32_t pi)
{
    while (sim->dev_ci != pi) {
        uint32_t slot = slot_of(sim, sim->dev_ci, ENTRY_SIZE_CMD);

        if (sim->slots[slot].index != sim->consumed) {
            fail("command read from a slot the driver did not write",
                 sim->consumed, sim->slots[slot].index);
        }
        sim->dev_ci++;
        sim->consumed++;
    }
}

static void cmdq_doorbell_raw(Sim *sim, uint32_t pi)
{
    bool accepted = vhca_cmdq_pi_valid(pi, sim->dev_ci, sim->log_size);
    uint64_t ahead = (uint64_t)(uint32_t)(pi - (uint32_t)sim->consumed);

    if (accepted != (ahead <= sim->size)) {
        fail("producer index verdict", pi, sim->consumed);
    }
    /* Accepted garbage is the driver's bug: only bounds can be checked. */
    if (accepted) {
        while (sim->dev_ci != pi) {
            slot_of(sim, sim->dev_ci++, ENTRY_SIZE_CMD);
        }
        sim->consumed = sim->produced = sim->dev_ci;
        for (uint32_t i = 0; i < sim->size; i++) {
            sim->slots[i].index = NO_INDEX;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bool cmdq;
    uint32_t log_size, op;
    Sim sim;

    if (size < 5) {
        return 0;
    }
    cmdq = data[0] & 0x80;
    log_size = cmdq ? VHCA_MIN_LOG_CMDQ + data[0] % VHCA_MAX_LOG_CMDQ
                    : VHCA_MIN_LOG_EQ +
                      data[0] % (VHCA_MAX_LOG_EQ - VHCA_MIN_LOG_EQ + 1);
    sim_init(&sim, log_size, arg32(data + 1));
    data += 5;
    size -= 5;
    for (op = 0; op < MAX_OPS && size >= 5; op++, data += 5, size -= 5) {
        uint32_t arg = arg32(data + 1);

        if (cmdq) {
            switch (data[0] % 3) {
            case 0:
                if (!cmdq_submit(&sim, arg % (2 * sim.size + 1))) {
                    fail("driver's own producer index refused",
                         sim.produced, sim.dev_ci);
                }
                break;
            case 1:
                cmdq_process(&sim, (uint32_t)sim.produced);
                break;
            default:
                cmdq_doorbell_raw(&sim, arg);
                break;
            }
            continue;
        }
        switch (data[0] % 4) {
        case 0:
            for (uint32_t n = arg % (2 * sim.size + 1); n; n--) {
                eq_post(&sim);
            }
            break;
        case 1:
            eq_poll(&sim, arg % (2 * sim.size + 1));
            break;
        case 2:
            /* The driver reports what it consumed, as the driver does. */
            eq_doorbell(&sim, vhca_db_eq_value(arg & 0x7f,
                                               (uint32_t)sim.consumed,
                                               arg >> 31));
            if (sim.acked != sim.consumed || sim.dev_ci !=
                ((uint32_t)sim.consumed & VHCA_DB_EQ_CI_MASK)) {
                fail("driver's own consumer index refused", sim.consumed,
                     sim.acked);
            }
            break;
        default:
            eq_doorbell(&sim, arg);
            break;
        }
    }
    free(sim.slots);
    return 0;
}
