/*
 * Host fuzzing shim for QEMU's "qemu/bswap.h": the little-endian
 * conversions and loads of the device's pure files that the host builds
 * (vhca-cmd-check.c, vhca-wqe.c, vhca-place.c; see osdep.h in this directory).  The
 * fabric library (fabric/) needs none of this: it has its own
 * fabric/vhca-bytes.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef VHCA_FUZZ_SHIM_BSWAP_H
#define VHCA_FUZZ_SHIM_BSWAP_H

#include <stdint.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define VHCA_SHIM_LE(bits, v) __builtin_bswap##bits(v)
#else
#define VHCA_SHIM_LE(bits, v) (v)
#endif

static inline uint16_t le16_to_cpu(uint16_t v) { return VHCA_SHIM_LE(16, v); }
static inline uint32_t le32_to_cpu(uint32_t v) { return VHCA_SHIM_LE(32, v); }
static inline uint64_t le64_to_cpu(uint64_t v) { return VHCA_SHIM_LE(64, v); }

/* Unaligned loads from a byte buffer (QEMU's ld*_p family). */
static inline uint32_t ldl_he_p(const void *p)
{
    uint32_t v;

    __builtin_memcpy(&v, p, sizeof(v));
    return v;
}

static inline uint16_t lduw_le_p(const void *p)
{
    uint16_t v;

    __builtin_memcpy(&v, p, sizeof(v));
    return le16_to_cpu(v);
}

static inline uint32_t ldl_le_p(const void *p)
{
    return le32_to_cpu(ldl_he_p(p));
}

static inline uint64_t ldq_le_p(const void *p)
{
    uint64_t v;

    __builtin_memcpy(&v, p, sizeof(v));
    return le64_to_cpu(v);
}

static inline uint64_t ldq_he_p(const void *p)
{
    uint64_t v;

    __builtin_memcpy(&v, p, sizeof(v));
    return v;
}

/* An unaligned store in one go (vhca-place.c's tail words). */
static inline void stq_he_p(void *p, uint64_t v)
{
    __builtin_memcpy(p, &v, sizeof(v));
}

#endif /* VHCA_FUZZ_SHIM_BSWAP_H */
