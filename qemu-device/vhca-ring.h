/*
 * vhca - ring index arithmetic shared by the command queue and the EQs.
 *
 * Pure functions on the guest's and the device's indexes: no device state,
 * no guest memory access, only vhca_hw.h and standard C, so that the host
 * fuzzing harness (fuzz/fuzz_ring.c) builds them without QEMU's tree.
 *
 * Indexes are free-running 32-bit counters (vhca_hw.h); the slot of index
 * i in a ring of 2^log_size entries is i & (2^log_size - 1).  The EQ
 * doorbell carries only the low 24 bits of the consumer index
 * (VHCA_DB_EQ_CI_MASK), so EQ distances are computed modulo 2^24; every
 * ring is at most 2^16 entries, far below that.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_RING_H
#define HW_INFINIBAND_VHCA_RING_H

#include <stdbool.h>
#include <stdint.h>
#include "vhca_hw.h"

static inline uint32_t vhca_ring_entries(uint32_t log_size)
{
    return 1u << log_size;
}

/* Guest address of the entry at free-running index idx. */
static inline uint64_t vhca_ring_slot_addr(uint64_t base, uint32_t idx,
                                           uint32_t log_size,
                                           uint32_t entry_size)
{
    uint32_t slot = idx & (vhca_ring_entries(log_size) - 1);

    return base + (uint64_t)slot * entry_size;
}

/*
 * Command queue: the driver's producer index may be at most one ring ahead
 * of the device's consumer index.  Anything else (including a producer
 * "behind" the consumer, a huge unsigned distance) is an overrun.
 */
static inline bool vhca_cmdq_pi_valid(uint32_t pi, uint32_t ci,
                                      uint32_t log_size)
{
    return pi - ci <= vhca_ring_entries(log_size);
}

/* EQ entries written by the device and not yet consumed by the driver. */
static inline uint32_t vhca_eq_used(uint32_t pi, uint32_t ci)
{
    return (pi - ci) & VHCA_DB_EQ_CI_MASK;
}

/* Whether the EQ has no room for another entry. */
static inline bool vhca_eq_full(uint32_t pi, uint32_t ci, uint32_t log_size)
{
    return vhca_eq_used(pi, ci) >= vhca_ring_entries(log_size);
}

/*
 * Whether a consumer index from the EQ doorbell is possible: at most the
 * producer index, at least one ring behind it.
 */
static inline bool vhca_eq_ci_valid(uint32_t pi, uint32_t ci,
                                    uint32_t log_size)
{
    return vhca_eq_used(pi, ci & VHCA_DB_EQ_CI_MASK) <=
           vhca_ring_entries(log_size);
}

/*
 * Whether an arm that finds entries pending repeats the previous one that
 * did: the same consumer index, no entry written since.  The device
 * interrupted for those entries and the driver consumed none of them, so
 * it does not see entry ci as written (its owner bit is not what the
 * device wrote, vhca_hw.h "Event queues"), and every further arm fires
 * again at once: an interrupt storm.  A correct driver consumes at least
 * entry ci after such an interrupt before it arms again.
 */
static inline bool vhca_eq_arm_repeats(bool fired, uint32_t fired_ci,
                                       uint32_t fired_pi, uint32_t ci,
                                       uint32_t pi)
{
    return fired && fired_ci == ci && fired_pi == pi;
}

/* The EQ doorbell value, decoded (vhca_db_eq_value() encodes it). */
typedef struct VhcaEqDoorbell {
    uint32_t eqn;
    uint32_t ci;
    bool arm;
} VhcaEqDoorbell;

static inline VhcaEqDoorbell vhca_eq_doorbell_decode(uint32_t value)
{
    VhcaEqDoorbell db = {
        .eqn = (value >> VHCA_DB_EQ_EQN_SHIFT) & VHCA_DB_EQ_EQN_MASK,
        .ci = value & VHCA_DB_EQ_CI_MASK,
        .arm = (value & VHCA_DB_EQ_ARM) != 0,
    };

    return db;
}

#endif /* HW_INFINIBAND_VHCA_RING_H */
